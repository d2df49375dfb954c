// One negative test per constraint of the collectives (all_gather,
// all_reduce, reduce_scatter, all_to_all, collective_permute,
// collective_broadcast, send, recv): replica_groups / source_target_pairs
// rules, dimension attributes, channel ids, computation and result types,
// and the rules that depend on the number of processes, checked at compile
// time against the module's mhlo.num_replicas / mhlo.num_partitions (1 x 1
// without them) or interpreter.run_parallel's grid.
#include "tests/graph_lowering/rules_harness.h"

namespace {

using hlx_rules::Case;

// all_gather of tensor<2x2xf32> with `attrs` into tensor<`res`>.
#define AG(attrs, res)                                                     \
  "func.func @main(%a: tensor<2x2xf32>) -> tensor<" res "> {\n"            \
  "  %0 = \"stablehlo.all_gather\"(%a) {" attrs "} : (tensor<2x2xf32>) -> " \
  "tensor<" res ">\n  return %0 : tensor<" res "> }"

// A reduction computation over tensor<`t`>.
#define SUM(t)                                                       \
  "({ ^bb0(%x: tensor<" t ">, %y: tensor<" t ">):\n"                 \
  "   %s = stablehlo.add %x, %y : tensor<" t ">\n"                   \
  "   stablehlo.return %s : tensor<" t "> })"

// all_reduce of tensor<`in`> with computation `body` into tensor<`res`>.
#define AR(in, body, attrs, res)                                           \
  "func.func @main(%a: tensor<" in ">) -> tensor<" res "> {\n"             \
  "  %0 = \"stablehlo.all_reduce\"(%a) " body " {" attrs "} : (tensor<" in \
  ">) -> tensor<" res ">\n  return %0 : tensor<" res "> }"

// reduce_scatter of tensor<4x2xf32> with computation `body`.
#define RS(body, attrs, res)                                                \
  "func.func @main(%a: tensor<4x2xf32>) -> tensor<" res "> {\n"             \
  "  %0 = \"stablehlo.reduce_scatter\"(%a) " body " {" attrs              \
  "} : (tensor<4x2xf32>) -> tensor<" res ">\n  return %0 : tensor<" res    \
  "> }"

// all_to_all of tensor<2x4xf32>.
#define A2A(attrs, res)                                                    \
  "func.func @main(%a: tensor<2x4xf32>) -> tensor<" res "> {\n"            \
  "  %0 = \"stablehlo.all_to_all\"(%a) {" attrs "} : (tensor<2x4xf32>) -> " \
  "tensor<" res ">\n  return %0 : tensor<" res "> }"

#define A2A_OK_DIMS \
  "split_dimension = 1 : i64, concat_dimension = 0 : i64, "

// collective_permute of tensor<2xf32> with source_target_pairs `pairs`.
#define CP(pairs, pairs_shape, res)                                          \
  "func.func @main(%a: tensor<2xf32>) -> tensor<" res "> {\n"                \
  "  %0 = \"stablehlo.collective_permute\"(%a) {source_target_pairs = "     \
  "dense<" pairs "> : tensor<" pairs_shape "xi64>} : (tensor<2xf32>) -> "    \
  "tensor<" res ">\n  return %0 : tensor<" res "> }"

// collective_broadcast of tensor<2xf32>.
#define CB(groups, shape, res)                                              \
  "func.func @main(%a: tensor<2xf32>) -> tensor<" res "> {\n"               \
  "  %0 = \"stablehlo.collective_broadcast\"(%a) {replica_groups = dense<"  \
  groups "> : tensor<" shape "xi64>} : (tensor<2xf32>) -> tensor<" res     \
  ">\n  return %0 : tensor<" res "> }"

// send of tensor<2xf32> with `attrs`.
#define SEND(attrs)                                                          \
  "func.func @main(%a: tensor<2xf32>, %t: !stablehlo.token) -> "            \
  "!stablehlo.token {\n"                                                    \
  "  %0 = \"stablehlo.send\"(%a, %t) {" attrs "} : (tensor<2xf32>, "        \
  "!stablehlo.token) -> !stablehlo.token\n  return %0 : !stablehlo.token }"

// collective_reduce of tensor<2xf32> with `groups`, a computation over
// tensor<`e`>, into tensor<`res`>.
#define CR(groups, e, res)                                                   \
  "func.func @main(%a: tensor<2xf32>) -> tensor<" res "> {\n"                \
  "  %0 = \"stablehlo.collective_reduce\"(%a) " SUM(e) " {replica_groups = " \
  "dense<" groups "> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<" res   \
  ">\n  return %0 : tensor<" res "> }"

// recv of tensor<2xf32> with source_target_pairs `pairs`.
#define RECV(pairs, shape)                                                   \
  "func.func @main(%t: !stablehlo.token) -> tensor<2xf32> {\n"               \
  "  %0:2 = \"stablehlo.recv\"(%t) {channel_handle = "                       \
  "#stablehlo.channel_handle<handle = 1, type = 1>, is_host_transfer = "     \
  "false, source_target_pairs = dense<" pairs "> : tensor<" shape          \
  "xi64>} : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)\n"       \
  "  return %0#0 : tensor<2xf32> }"

#define G01 "replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>"

// `funcs` in a module of `r` replicas x `p` partitions (JAX's attributes).
#define MOD(r, p, funcs)                                                  \
  "module attributes {mhlo.num_partitions = " p " : i32, "               \
  "mhlo.num_replicas = " r " : i32} {\n" funcs "\n}"
#define GROUPS(v, shape) \
  "replica_groups = dense<" v "> : tensor<" shape "xi64>"
#define CHANNEL "channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>"

const Case kCases[] = {
    {"AllGather_C1_DimRange", AG("all_gather_dim = 2 : i64, " G01, "2x4xf32"),
     "stablehlo.all_gather", "(C1) all_gather_dim 2 is out of range"},
    {"AllGather_C2_UniqueIds",
     AG("all_gather_dim = 1 : i64, replica_groups = dense<[[0, 0]]> : "
        "tensor<1x2xi64>",
        "2x4xf32"),
     "stablehlo.all_gather", "(C2) replica_groups has id 0 twice"},
    {"AllGather_C4_NonNegativeIds",
     AG("all_gather_dim = 1 : i64, replica_groups = dense<[[0, -2]]> : "
        "tensor<1x2xi64>",
        "2x4xf32"),
     "stablehlo.all_gather", "(C4) replica_groups has id -2"},
    {"AllGather_C5_GlobalIdsNeedChannel",
     AG("all_gather_dim = 1 : i64, " G01 ", use_global_device_ids", "2x4xf32"),
     "stablehlo.all_gather", "(C5) use_global_device_ids needs channel_id > 0"},
    {"AllGather_C6_ResultDim",
     AG("all_gather_dim = 1 : i64, " G01, "2x6xf32"), "stablehlo.all_gather",
     "(C6) result #0 dim 1 has size 6, expected 4"},
    {"AllGather_C6_ResultElementType",
     AG("all_gather_dim = 1 : i64, " G01, "2x4xf64"), "stablehlo.all_gather",
     "(C6) result #0's type differs"},
    {"AllReduce_C1_UniqueIds",
     AR("2xf32", SUM("f32"),
        "replica_groups = dense<[[1, 1]]> : tensor<1x2xi64>", "2xf32"),
     "stablehlo.all_reduce", "(C1) replica_groups has id 1 twice"},
    {"AllReduce_C3_NonNegativeIds",
     AR("2xf32", SUM("f32"),
        "replica_groups = dense<[[-3, 1]]> : tensor<1x2xi64>", "2xf32"),
     "stablehlo.all_reduce", "(C3) replica_groups has id -3"},
    {"AllReduce_C4_GlobalIdsNeedChannel",
     AR("2xf32", SUM("f32"), G01 ", use_global_device_ids", "2xf32"),
     "stablehlo.all_reduce", "(C4) use_global_device_ids needs channel_id"},
    {"AllReduce_C5_ComputationType",
     AR("2xf32",
        "({ ^bb0(%x: tensor<f32>, %y: tensor<f64>):\n"
        "   stablehlo.return %x : tensor<f32> })",
        G01, "2xf32"),
     "stablehlo.all_reduce", "(C5) computation must have type"},
    {"AllReduce_C5_NotPromotable",
     AR("2xf64", SUM("f32"), G01, "2xf32"), "stablehlo.all_reduce",
     "(C5) operand #0's element type f64 is not promotable"},
    {"AllReduce_C6_ResultShape", AR("2xf32", SUM("f32"), G01, "3xf32"),
     "stablehlo.all_reduce", "(C6) result #0's shape differs"},
    {"AllReduce_C7_ResultElementType", AR("2xf32", SUM("f64"), G01, "2xf32"),
     "stablehlo.all_reduce", "(C7) result #0 has element type f32"},
    {"ReduceScatter_C1_DimDivisible",
     RS(SUM("f32"),
        "scatter_dimension = 1 : i64, replica_groups = dense<[[0, 1, 2]]> : "
        "tensor<1x3xi64>",
        "4x1xf32"),
     "stablehlo.reduce_scatter", "(C1) dim(operand, 1) = 2 is not a multiple"},
    {"ReduceScatter_C2_DimRange",
     RS(SUM("f32"), "scatter_dimension = 2 : i64, " G01, "4x1xf32"),
     "stablehlo.reduce_scatter", "(C2) scatter_dimension 2 is out of range"},
    {"ReduceScatter_C3_UniqueIds",
     RS(SUM("f32"),
        "scatter_dimension = 0 : i64, replica_groups = dense<[[1, 1]]> : "
        "tensor<1x2xi64>",
        "2x2xf32"),
     "stablehlo.reduce_scatter", "(C3) replica_groups has id 1 twice"},
    {"ReduceScatter_C5_NonNegativeIds",
     RS(SUM("f32"),
        "scatter_dimension = 0 : i64, replica_groups = dense<[[0, -5]]> : "
        "tensor<1x2xi64>",
        "2x2xf32"),
     "stablehlo.reduce_scatter", "(C5) replica_groups has id -5"},
    {"ReduceScatter_C6_GlobalIdsNeedChannel",
     RS(SUM("f32"), "scatter_dimension = 0 : i64, " G01 ", use_global_device_ids",
        "2x2xf32"),
     "stablehlo.reduce_scatter", "(C6) use_global_device_ids needs channel_id"},
    {"ReduceScatter_C7_ComputationType",
     RS("({ ^bb0(%x: tensor<f32>):\n   stablehlo.return %x : tensor<f32> })",
        "scatter_dimension = 0 : i64, " G01, "2x2xf32"),
     "stablehlo.reduce_scatter", "(C7) computation must have type"},
    {"ReduceScatter_C8_ResultShape",
     RS(SUM("f32"), "scatter_dimension = 0 : i64, " G01, "4x2xf32"),
     "stablehlo.reduce_scatter", "(C8) result #0 dim 0 has size 4, expected 2"},
    {"ReduceScatter_C9_ResultElementType",
     RS(SUM("f64"), "scatter_dimension = 0 : i64, " G01, "2x2xf32"),
     "stablehlo.reduce_scatter", "(C9) result #0 has element type f32"},
    {"AllToAll_C1_SplitDimRange",
     A2A("split_dimension = 2 : i64, concat_dimension = 0 : i64, "
         "split_count = 2 : i64, " G01,
         "4x2xf32"),
     "stablehlo.all_to_all", "(C1) split_dimension 2 is out of range"},
    {"AllToAll_C2_SplitDimDivisible",
     A2A("split_dimension = 0 : i64, concat_dimension = 1 : i64, "
         "split_count = 3 : i64, replica_groups = dense<[[0, 1, 2]]> : "
         "tensor<1x3xi64>",
         "1x12xf32"),
     "stablehlo.all_to_all", "(C2) operand #0 dim 0 has size 2, not a multiple"},
    {"AllToAll_C3_ConcatDimRange",
     A2A("split_dimension = 1 : i64, concat_dimension = -1 : i64, "
         "split_count = 2 : i64, " G01,
         "4x2xf32"),
     "stablehlo.all_to_all", "(C3) concat_dimension -1 is out of range"},
    {"AllToAll_C4_SplitCountPositive",
     A2A(A2A_OK_DIMS "split_count = 0 : i64", "4x2xf32"),
     "stablehlo.all_to_all", "(C4) split_count 0 must be > 0"},
    {"AllToAll_C5_UniqueIds",
     A2A(A2A_OK_DIMS "split_count = 2 : i64, replica_groups = dense<[[0, 0]]> "
                     ": tensor<1x2xi64>",
         "4x2xf32"),
     "stablehlo.all_to_all", "(C5) replica_groups has id 0 twice"},
    {"AllToAll_C7_NonNegativeIds",
     A2A(A2A_OK_DIMS "split_count = 2 : i64, replica_groups = dense<[[0, "
                     "-4]]> : tensor<1x2xi64>",
         "4x2xf32"),
     "stablehlo.all_to_all", "(C7) replica_groups has id -4"},
    {"AllToAll_C8_GroupSizeIsSplitCount",
     A2A(A2A_OK_DIMS "split_count = 2 : i64, replica_groups = dense<[[0, 1, "
                     "2, 3]]> : tensor<1x4xi64>",
         "4x2xf32"),
     "stablehlo.all_to_all", "(C8) replica groups have 4 members, split_count is 2"},
    {"AllToAll_C9_ResultShape",
     A2A(A2A_OK_DIMS "split_count = 2 : i64, " G01, "2x4xf32"),
     "stablehlo.all_to_all", "(C9) result #0 dim 0 has size 2, expected 4"},
    {"CollectivePermute_C1_PairsShape", CP("[[0, 1, 2]]", "1x3", "2xf32"),
     "stablehlo.collective_permute",
     "(C1) source_target_pairs must have shape [N, 2], has [1, 3]"},
    {"CollectivePermute_C2_UniqueSources",
     CP("[[0, 1], [0, 2]]", "2x2", "2xf32"), "stablehlo.collective_permute",
     "(C2) source 0 appears twice"},
    {"CollectivePermute_C3_UniqueTargets",
     CP("[[0, 1], [2, 1]]", "2x2", "2xf32"), "stablehlo.collective_permute",
     "(C3) target 1 appears twice"},
    {"CollectivePermute_C4_NonNegativeIds", CP("[[0, -1]]", "1x2", "2xf32"),
     "stablehlo.collective_permute", "(C4) source_target_pairs has id -1"},
    {"CollectivePermute_C5_ResultType", CP("[[0, 1]]", "1x2", "3xf32"),
     "stablehlo.collective_permute", "(C5) result #0 dim 0 has size 3"},
    {"CollectiveBroadcast_C1_UniqueIds", CB("[[1, 1]]", "1x2", "2xf32"),
     "stablehlo.collective_broadcast", "(C1) replica_groups has id 1 twice"},
    {"CollectiveBroadcast_C2_NonNegativeIds", CB("[[0, -2]]", "1x2", "2xf32"),
     "stablehlo.collective_broadcast", "(C2) replica_groups has id -2"},
    {"CollectiveBroadcast_C3_ResultType", CB("[[0, 1]]", "1x2", "2xf64"),
     "stablehlo.collective_broadcast", "(C3) result #0's type differs"},
    {"CollectiveBroadcast_C5_ResultCount",
     "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
     "  %0:2 = \"stablehlo.collective_broadcast\"(%a) {replica_groups = "
     "dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> (tensor<2xf32>, "
     "tensor<2xf32>)\n  return %0#0 : tensor<2xf32> }",
     "stablehlo.collective_broadcast", "(C5) has 2 results, needs 1"},
    {"Send_C1_PairsShape",
     SEND("channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, "
          "is_host_transfer = false, source_target_pairs = dense<[[0]]> : "
          "tensor<1x1xi64>"),
     "stablehlo.send", "(C1) source_target_pairs must have shape [N, 2]"},
    {"Send_C2_UniqueSources",
     SEND("channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, "
          "is_host_transfer = false, source_target_pairs = dense<[[0, 1], [0, "
          "2]]> : tensor<2x2xi64>"),
     "stablehlo.send", "(C2) source 0 appears twice"},
    {"Send_C3_UniqueTargets",
     SEND("channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, "
          "is_host_transfer = false, source_target_pairs = dense<[[0, 1], [2, "
          "1]]> : tensor<2x2xi64>"),
     "stablehlo.send", "(C3) target 1 appears twice"},
    {"Send_C4_NonNegativeIds",
     SEND("channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, "
          "is_host_transfer = false, source_target_pairs = dense<[[-1, 1]]> : "
          "tensor<1x2xi64>"),
     "stablehlo.send", "(C4) source_target_pairs has id -1"},
    {"Send_C5_ChannelType",
     SEND("channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, "
          "is_host_transfer = true"),
     "stablehlo.send", "(C5) channel_type is 1, must be 2 (DEVICE_TO_HOST)"},
    {"Recv_C5_ChannelType",
     "func.func @main(%t: !stablehlo.token) -> tensor<2xf32> {\n"
     "  %0:2 = \"stablehlo.recv\"(%t) {channel_handle = "
     "#stablehlo.channel_handle<handle = 1, type = 3>, is_host_transfer = "
     "false} : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)\n"
     "  return %0#0 : tensor<2xf32> }",
     "stablehlo.recv", "(C5) channel_type is 3, must be 1 (DEVICE_TO_DEVICE)"},
    {"CollectiveBroadcast_C4_DynamicRootOperand",
     "func.func @main(%a: tensor<2xf32>, %r: tensor<2xi32>) -> tensor<2xf32> {\n"
     "  %0 = \"stablehlo.collective_broadcast\"(%a, %r) {replica_groups = "
     "dense<[[0, 1]]> : tensor<1x2xi64>, has_dynamic_root = true} : "
     "(tensor<2xf32>, tensor<2xi32>) -> tensor<2xf32>\n"
     "  return %0 : tensor<2xf32> }",
     "stablehlo.collective_broadcast", "(C4) the last operand must be tensor<1xi32>"},
    {"CollectiveReduce_C1_UniqueIds", CR("[[0, 0]]", "f32", "2xf32"),
     "stablehlo.collective_reduce", "(C1) replica_groups has id 0 twice"},
    {"CollectiveReduce_C2_NonNegativeIds", CR("[[0, -3]]", "f32", "2xf32"),
     "stablehlo.collective_reduce", "(C2) replica_groups has id -3"},
    {"CollectiveReduce_C3_ResultShape", CR("[[0, 1]]", "f32", "3xf32"),
     "stablehlo.collective_reduce", "(C3) result #0's shape differs"},
    {"CollectiveReduce_C4_Computation", CR("[[0, 1]]", "i32", "2xf32"),
     "stablehlo.collective_reduce", "(C4) operand #0's element type f32 is not promotable"},
    {"Recv_C1_PairsShape", RECV("[[0, 1, 2]]", "1x3"), "stablehlo.recv",
     "(C1) source_target_pairs must have shape [N, 2]"},
    {"Recv_C2_UniqueSources", RECV("[[0, 1], [0, 2]]", "2x2"), "stablehlo.recv",
     "(C2) source 0 appears twice"},
    {"Recv_C3_UniqueTargets", RECV("[[0, 1], [2, 1]]", "2x2"), "stablehlo.recv",
     "(C3) target 1 appears twice"},
    {"Recv_C4_NonNegativeIds", RECV("[[0, -1]]", "1x2"), "stablehlo.recv",
     "(C4) source_target_pairs has id -1"},
    // Rules that depend on the number of processes, known at compile time
    // from the module's attributes (1 replica x 1 partition without them).
    {"AllReduce_C3_IdsBelowModuleReplicaCount",
     MOD("2", "1", AR("2xf32", SUM("f32"), GROUPS("[[0, 7]]", "1x2"), "2xf32")),
     "stablehlo.all_reduce",
     "(C3) replica_groups id 7 is not below 2, the number of replicas"},
    {"AllReduce_C3_OneReplicaWithoutAttributes",
     AR("2xf32", SUM("f32"), G01, "2xf32"), "stablehlo.all_reduce",
     "(C3) replica_groups id 1 is not below 1, the number of replicas"},
    {"AllReduce_C3_FlattenedIdsBelowProcessCount",
     MOD("2", "2", AR("2xf32", SUM("f32"),
                      GROUPS("[[0, 1, 2, 5]]", "1x4") ", " CHANNEL
                      ", use_global_device_ids",
                      "2xf32")),
     "stablehlo.all_reduce",
     "(C3) replica_groups id 5 is not below 4, the number of processes"},
    {"AllReduce_C2_GroupsNameEveryReplica",
     MOD("4", "1", AR("2xf32", SUM("f32"), G01, "2xf32")),
     "stablehlo.all_reduce",
     "(C2) replica_groups has 2 ids, must have 4: each of the 4 replicas "
     "once"},
    {"AllGather_C3_GroupsNameEveryReplica",
     MOD("4", "1", AG("all_gather_dim = 1 : i64, " G01, "2x4xf32")),
     "stablehlo.all_gather", "(C3) replica_groups has 2 ids, must have 4"},
    {"AllGather_C4_IdsBelowModuleReplicaCount",
     MOD("2", "1", AG("all_gather_dim = 1 : i64, " GROUPS("[[0, 3]]", "1x2"),
                      "2x4xf32")),
     "stablehlo.all_gather",
     "(C4) replica_groups id 3 is not below 2, the number of replicas"},
    {"AllGather_C6_ResultDimFromReplicaCount",
     MOD("4", "1", AG("all_gather_dim = 1 : i64", "2x4xf32")),
     "stablehlo.all_gather",
     "(C6) result #0 dim 1 has size 4, expected 8 (2 x a group of 4)"},
    {"AllGather_C6_RaggedGroupSize",
     MOD("3", "1", AG("all_gather_dim = 1 : i64, " GROUPS("[[0, 1], [2, -1]]",
                                                         "2x2"),
                      "2x4xf32")),
     "stablehlo.all_gather",
     "(C6) result #0 dim 1 has size 4, expected 2 (2 x a group of 1)"},
    {"ReduceScatter_C1_DimDivisibleByReplicaCount",
     MOD("3", "1", RS(SUM("f32"), "scatter_dimension = 0 : i64", "1x2xf32")),
     "stablehlo.reduce_scatter",
     "(C1) dim(operand, 0) = 4 is not a multiple of the group size 3"},
    {"ReduceScatter_C4_GroupsNameEveryReplica",
     MOD("4", "1", RS(SUM("f32"), "scatter_dimension = 0 : i64, " G01,
                      "2x2xf32")),
     "stablehlo.reduce_scatter", "(C4) replica_groups has 2 ids, must have 4"},
    {"ReduceScatter_C5_IdsBelowModuleReplicaCount",
     MOD("2", "1", RS(SUM("f32"),
                      "scatter_dimension = 0 : i64, " GROUPS("[[0, 2]]", "1x2"),
                      "2x2xf32")),
     "stablehlo.reduce_scatter",
     "(C5) replica_groups id 2 is not below 2, the number of replicas"},
    {"ReduceScatter_C8_ResultDimFromReplicaCount",
     MOD("4", "1", RS(SUM("f32"), "scatter_dimension = 0 : i64", "2x2xf32")),
     "stablehlo.reduce_scatter",
     "(C8) result #0 dim 0 has size 2, expected 1 (4 / a group of 4)"},
    {"AllToAll_C6_GroupsNameEveryReplica",
     MOD("4", "1", A2A(A2A_OK_DIMS "split_count = 2 : i64, " G01, "4x2xf32")),
     "stablehlo.all_to_all", "(C6) replica_groups has 2 ids, must have 4"},
    {"AllToAll_C7_IdsBelowModulePartitionCount",
     MOD("1", "2", A2A(A2A_OK_DIMS "split_count = 2 : i64, " GROUPS(
                           "[[0, 2]]", "1x2") ", " CHANNEL,
                       "4x2xf32")),
     "stablehlo.all_to_all",
     "(C7) replica_groups id 2 is not below 2, the number of partitions"},
    {"AllToAll_C8_SplitCountIsReplicaCount",
     MOD("4", "1", A2A(A2A_OK_DIMS "split_count = 2 : i64", "4x2xf32")),
     "stablehlo.all_to_all", "(C8) split_count 2 differs from the group size 4"},
    {"CollectivePermute_C4_IdsBelowModuleReplicaCount",
     MOD("2", "1", CP("[[0, 1], [1, 3]]", "2x2", "2xf32")),
     "stablehlo.collective_permute",
     "(C4) source_target_pairs id 3 is not below 2, the number of replicas"},
    {"CollectiveBroadcast_C2_IdsBelowModuleReplicaCount",
     MOD("2", "1", CB("[[0, 5]]", "1x2", "2xf32")),
     "stablehlo.collective_broadcast",
     "(C2) replica_groups id 5 is not below 2, the number of replicas"},
    {"CollectiveReduce_C2_IdsBelowModuleReplicaCount",
     MOD("2", "1", CR("[[0, 5]]", "f32", "2xf32")),
     "stablehlo.collective_reduce",
     "(C2) replica_groups id 5 is not below 2, the number of replicas"},
    {"Send_C4_IdsBelowModuleProcessCount",
     MOD("2", "1",
         SEND("channel_handle = #stablehlo.channel_handle<handle = 1, type = "
              "1>, is_host_transfer = false, source_target_pairs = dense<[[0, "
              "9]]> : tensor<1x2xi64>")),
     "stablehlo.send",
     "(C4) source_target_pairs id 9 is not below 2, the number of processes"},
    {"Recv_C4_IdsBelowModuleProcessCount",
     MOD("2", "1", RECV("[[0, 9]]", "1x2")), "stablehlo.recv",
     "(C4) source_target_pairs id 9 is not below 2, the number of processes"},
    {"CrossReplicaSumIdsBelowModuleReplicaCount",
     MOD("2", "1",
         "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
         "  %0 = \"stablehlo.cross_replica_sum\"(%a) {" GROUPS("[[0, 4]]",
                                                             "1x2")
         "} : (tensor<2xf32>) -> tensor<2xf32>\n  return %0 : tensor<2xf32> }"),
     "stablehlo.cross_replica_sum",
     "replica_groups id 4 is not below 2, the number of replicas"},
    // A collective in a called function is checked too.
    {"AllReduce_C3_InACalledFunction",
     MOD("2", "1",
         "func.func private @g(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
         "  %0 = \"stablehlo.all_reduce\"(%a) " SUM("f32") " {" GROUPS(
             "[[0, 3]]", "1x2") "} : (tensor<2xf32>) -> tensor<2xf32>\n"
         "  return %0 : tensor<2xf32> }\n"
         "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
         "  %0 = func.call @g(%a) : (tensor<2xf32>) -> tensor<2xf32>\n"
         "  return %0 : tensor<2xf32> }"),
     "stablehlo.all_reduce", "(C3) replica_groups id 3 is not below 2"},
};

HLX_RULES_TEST(CollectiveRules, kCases);

// Runs a parameterless @main with one result; returns the error ("" if
// none).
std::string RunError(const char* text) {
  hlx_program_t* p = nullptr;
  hlx_executable_t* e = nullptr;
  hlx_buffer_t* out[1] = {nullptr};
  hlx_status_t s = hlx_program_parse(text, strlen(text), "t.mlir", 1, &p);
  if (!s) s = hlx_executable_create(p, nullptr, &e);
  if (!s) s = hlx_executable_run(e, nullptr, 0, out, 1);
  std::string msg = s ? hlx_status_get_message(s) : "";
  hlx_status_release(s);
  hlx_buffer_destroy(out[0]);
  hlx_executable_destroy(e);
  hlx_program_destroy(p);
  return msg;
}

// interpreter.run_parallel's programs are checked against its grid when
// the op is compiled: an id past it is a named error, not a rendezvous
// timeout.
TEST(CollectiveRules, AllGather_C4_IdsBelowReplicaCount) {
  std::string msg = RunError(R"(
    func.func @f(%a: tensor<2xi64>) -> tensor<4xi64> {
      %r = "stablehlo.all_gather"(%a) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 5]]> : tensor<1x2xi64>} : (tensor<2xi64>) -> tensor<4xi64>
      return %r : tensor<4xi64>
    }
    func.func @main() -> tensor<4xi64> {
      %a = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
      %r:2 = "interpreter.run_parallel"(%a, %a) {programs = [[@f], [@f]]} : (tensor<2xi64>, tensor<2xi64>) -> (tensor<4xi64>, tensor<4xi64>)
      return %r#0 : tensor<4xi64>
    })");
  EXPECT_NE(msg.find("stablehlo.all_gather"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(C4) replica_groups id 5 is not below 2, the number of "
                     "replicas"),
            std::string::npos)
      << msg;
}

TEST(CollectiveRules, CollectivePermute_C4_IdsBelowReplicaCount) {
  std::string msg = RunError(R"(
    func.func @f(%a: tensor<2xi64>) -> tensor<2xi64> {
      %r = "stablehlo.collective_permute"(%a) {source_target_pairs = dense<[[0, 3]]> : tensor<1x2xi64>} : (tensor<2xi64>) -> tensor<2xi64>
      return %r : tensor<2xi64>
    }
    func.func @main() -> tensor<2xi64> {
      %a = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
      %r:2 = "interpreter.run_parallel"(%a, %a) {programs = [[@f], [@f]]} : (tensor<2xi64>, tensor<2xi64>) -> (tensor<2xi64>, tensor<2xi64>)
      return %r#0 : tensor<2xi64>
    })");
  EXPECT_NE(msg.find("stablehlo.collective_permute"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(C4) source_target_pairs id 3 is not below 2"),
            std::string::npos)
      << msg;
}

TEST(CollectiveRules, CollectiveBroadcast_C6_RootInGroup) {
  std::string msg = RunError(R"(
    func.func @f(%a: tensor<2xi64>, %root: tensor<1xi32>) -> tensor<2xi64> {
      %r = "stablehlo.collective_broadcast"(%a, %root) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, has_dynamic_root = true} : (tensor<2xi64>, tensor<1xi32>) -> tensor<2xi64>
      return %r : tensor<2xi64>
    }
    func.func @main() -> tensor<2xi64> {
      %a = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
      %root = stablehlo.constant dense<[5]> : tensor<1xi32>
      %r:2 = "interpreter.run_parallel"(%a, %root, %a, %root) {programs = [[@f], [@f]]} : (tensor<2xi64>, tensor<1xi32>, tensor<2xi64>, tensor<1xi32>) -> (tensor<2xi64>, tensor<2xi64>)
      return %r#0 : tensor<2xi64>
    })");
  EXPECT_NE(msg.find("stablehlo.collective_broadcast"), std::string::npos)
      << msg;
  EXPECT_NE(msg.find("(C6) root 5 is outside the group of 2"),
            std::string::npos)
      << msg;
}

}  // namespace
