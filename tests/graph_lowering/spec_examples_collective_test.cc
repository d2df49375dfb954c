// Spec examples of the collectives (and of infeed, send/recv), run on the
// spec's processes with interpreter.run_parallel: each process gets the spec's %operand@(r, p),
// and the results of every process are compared with the spec's
// %result@(r, p) bytewise (see spec_example_harness.h).
#include "tests/graph_lowering/spec_example_harness.h"

namespace {

const hlx_spec_examples::Example kExamples[] = {
    {"all_gather_0",
     R"(func.func @f(%operand0: tensor<2x2xi64>, %operand1: tensor<2x2xi64>) -> (tensor<2x4xi64>, tensor<2x4xi64>) {
  %result:2 = "stablehlo.all_gather"(%operand0, %operand1) {
    all_gather_dim = 1 : i64,
    replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
    channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>
  } : (tensor<2x2xi64>, tensor<2x2xi64>) -> (tensor<2x4xi64>, tensor<2x4xi64>)
  return %result#0, %result#1 : tensor<2x4xi64>, tensor<2x4xi64>
}
func.func @main() -> (tensor<2x4xi64>, tensor<2x4xi64>, tensor<2x4xi64>, tensor<2x4xi64>,
                      tensor<2x4xi64>, tensor<2x4xi64>, tensor<2x4xi64>, tensor<2x4xi64>) {
  %a0 = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  %a1 = stablehlo.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi64>
  %b0 = stablehlo.constant dense<[[11, 12], [13, 14]]> : tensor<2x2xi64>
  %b1 = stablehlo.constant dense<[[15, 16], [17, 18]]> : tensor<2x2xi64>
  %r:4 = "interpreter.run_parallel"(%a0, %b0, %a1, %b1) {
    programs = [[@f], [@f]]
  } : (tensor<2x2xi64>, tensor<2x2xi64>, tensor<2x2xi64>, tensor<2x2xi64>) ->
      (tensor<2x4xi64>, tensor<2x4xi64>, tensor<2x4xi64>, tensor<2x4xi64>)
  %e0 = stablehlo.constant dense<[[1, 2, 5, 6], [3, 4, 7, 8]]> : tensor<2x4xi64>
  %e1 = stablehlo.constant dense<[[11, 12, 15, 16], [13, 14, 17, 18]]> : tensor<2x4xi64>
  return %r#0, %r#1, %r#2, %r#3, %e0, %e1, %e0, %e1 :
      tensor<2x4xi64>, tensor<2x4xi64>, tensor<2x4xi64>, tensor<2x4xi64>,
      tensor<2x4xi64>, tensor<2x4xi64>, tensor<2x4xi64>, tensor<2x4xi64>
})"},
    // The spec passes (%operand0, %operand0) but prints %result1 as the sum
    // of %operand1: reduce (%operand0, %operand1).
    {"all_reduce_0",
     R"(func.func @f(%operand0: tensor<4xi64>, %operand1: tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>) {
  %result:2 = "stablehlo.all_reduce"(%operand0, %operand1) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %0 = "stablehlo.add"(%arg0, %arg1) : (tensor<i64>, tensor<i64>) -> tensor<i64>
      "stablehlo.return"(%0) : (tensor<i64>) -> ()
  }) {
    replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
    channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>
  } : (tensor<4xi64>, tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>)
  return %result#0, %result#1 : tensor<4xi64>, tensor<4xi64>
}
func.func @main() -> (tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>,
                      tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>) {
  %a0 = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi64>
  %a1 = stablehlo.constant dense<[5, 6, 7, 8]> : tensor<4xi64>
  %b0 = stablehlo.constant dense<[9, 10, 11, 12]> : tensor<4xi64>
  %b1 = stablehlo.constant dense<[13, 14, 15, 16]> : tensor<4xi64>
  %r:4 = "interpreter.run_parallel"(%a0, %b0, %a1, %b1) {
    programs = [[@f], [@f]]
  } : (tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>) ->
      (tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>)
  %e0 = stablehlo.constant dense<[6, 8, 10, 12]> : tensor<4xi64>
  %e1 = stablehlo.constant dense<[22, 24, 26, 28]> : tensor<4xi64>
  return %r#0, %r#1, %r#2, %r#3, %e0, %e1, %e0, %e1 :
      tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>,
      tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>
})"},
    {"all_to_all_0",
     R"(func.func @f(%operand1: tensor<2x4xi64>, %operand2: tensor<2x4xi64>) -> (tensor<4x2xi64>, tensor<4x2xi64>) {
  %result:2 = "stablehlo.all_to_all"(%operand1, %operand2) {
    split_dimension = 1 : i64,
    concat_dimension = 0 : i64,
    split_count = 2 : i64,
    replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>
  } : (tensor<2x4xi64>, tensor<2x4xi64>) -> (tensor<4x2xi64>, tensor<4x2xi64>)
  return %result#0, %result#1 : tensor<4x2xi64>, tensor<4x2xi64>
}
func.func @main() -> (tensor<4x2xi64>, tensor<4x2xi64>, tensor<4x2xi64>, tensor<4x2xi64>,
                      tensor<4x2xi64>, tensor<4x2xi64>, tensor<4x2xi64>, tensor<4x2xi64>) {
  %a0 = stablehlo.constant dense<[[1, 2, 3, 4], [5, 6, 7, 8]]> : tensor<2x4xi64>
  %a1 = stablehlo.constant dense<[[9, 10, 11, 12], [13, 14, 15, 16]]> : tensor<2x4xi64>
  %b0 = stablehlo.constant dense<[[17, 18, 19, 20], [21, 22, 23, 24]]> : tensor<2x4xi64>
  %b1 = stablehlo.constant dense<[[25, 26, 27, 28], [29, 30, 31, 32]]> : tensor<2x4xi64>
  %r:4 = "interpreter.run_parallel"(%a0, %b0, %a1, %b1) {
    programs = [[@f], [@f]]
  } : (tensor<2x4xi64>, tensor<2x4xi64>, tensor<2x4xi64>, tensor<2x4xi64>) ->
      (tensor<4x2xi64>, tensor<4x2xi64>, tensor<4x2xi64>, tensor<4x2xi64>)
  %e00 = stablehlo.constant dense<[[1, 2], [5, 6], [9, 10], [13, 14]]> : tensor<4x2xi64>
  %e10 = stablehlo.constant dense<[[17, 18], [21, 22], [25, 26], [29, 30]]> : tensor<4x2xi64>
  %e01 = stablehlo.constant dense<[[3, 4], [7, 8], [11, 12], [15, 16]]> : tensor<4x2xi64>
  %e11 = stablehlo.constant dense<[[19, 20], [23, 24], [27, 28], [31, 32]]> : tensor<4x2xi64>
  return %r#0, %r#1, %r#2, %r#3, %e00, %e10, %e01, %e11 :
      tensor<4x2xi64>, tensor<4x2xi64>, tensor<4x2xi64>, tensor<4x2xi64>,
      tensor<4x2xi64>, tensor<4x2xi64>, tensor<4x2xi64>, tensor<4x2xi64>
})"},
    {"collective_broadcast_0",
     R"(func.func @f(%operand: tensor<1x2xi64>) -> tensor<1x2xi64> {
  %result = "stablehlo.collective_broadcast"(%operand) {
    replica_groups = dense<[[2, 1]]> : tensor<1x2xi64>,
    channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>
  } : (tensor<1x2xi64>) -> tensor<1x2xi64>
  return %result : tensor<1x2xi64>
}
func.func @main() -> (tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>,
                      tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>) {
  %o0 = stablehlo.constant dense<[[1, 2]]> : tensor<1x2xi64>
  %o1 = stablehlo.constant dense<[[3, 4]]> : tensor<1x2xi64>
  %o2 = stablehlo.constant dense<[[5, 6]]> : tensor<1x2xi64>
  %o3 = stablehlo.constant dense<[[7, 8]]> : tensor<1x2xi64>
  %r:4 = "interpreter.run_parallel"(%o0, %o1, %o2, %o3) {
    programs = [[@f], [@f], [@f], [@f]]
  } : (tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>) ->
      (tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>)
  %zero = stablehlo.constant dense<[[0, 0]]> : tensor<1x2xi64>
  %root = stablehlo.constant dense<[[5, 6]]> : tensor<1x2xi64>
  return %r#0, %r#1, %r#2, %r#3, %zero, %root, %root, %zero :
      tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>,
      tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>
})"},
    {"collective_permute_0",
     R"(func.func @f(%operand: tensor<2x2xi64>) -> tensor<2x2xi64> {
  %result = "stablehlo.collective_permute"(%operand) {
    source_target_pairs = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>,
    channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>
  } : (tensor<2x2xi64>) -> tensor<2x2xi64>
  return %result : tensor<2x2xi64>
}
func.func @main() -> (tensor<2x2xi64>, tensor<2x2xi64>, tensor<2x2xi64>,
                      tensor<2x2xi64>, tensor<2x2xi64>, tensor<2x2xi64>) {
  %o0 = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  %o1 = stablehlo.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi64>
  %o2 = stablehlo.constant dense<[[9, 10], [11, 12]]> : tensor<2x2xi64>
  %r:3 = "interpreter.run_parallel"(%o0, %o1, %o2) {
    programs = [[@f], [@f], [@f]]
  } : (tensor<2x2xi64>, tensor<2x2xi64>, tensor<2x2xi64>) ->
      (tensor<2x2xi64>, tensor<2x2xi64>, tensor<2x2xi64>)
  %zero = stablehlo.constant dense<0> : tensor<2x2xi64>
  return %r#0, %r#1, %r#2, %zero, %o0, %o1 :
      tensor<2x2xi64>, tensor<2x2xi64>, tensor<2x2xi64>,
      tensor<2x2xi64>, tensor<2x2xi64>, tensor<2x2xi64>
})"},
    // The spec's collective_reduce examples omit the computation: a sum,
    // which the printed results ([[16, 20]]) are.
    {"collective_reduce_0",
     R"(func.func @f(%operand: tensor<1x2xi64>) -> tensor<1x2xi64> {
  %result = "stablehlo.collective_reduce"(%operand) ({
    ^bb0(%x: tensor<i64>, %y: tensor<i64>):
      %s = stablehlo.add %x, %y : tensor<i64>
      stablehlo.return %s : tensor<i64>
  }) {
    has_dynamic_root = false,
    replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>,
    channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>
  } : (tensor<1x2xi64>) -> tensor<1x2xi64>
  return %result : tensor<1x2xi64>
}
func.func @main() -> (tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>,
                      tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>) {
  %o0 = stablehlo.constant dense<[[1, 2]]> : tensor<1x2xi64>
  %o1 = stablehlo.constant dense<[[3, 4]]> : tensor<1x2xi64>
  %o2 = stablehlo.constant dense<[[5, 6]]> : tensor<1x2xi64>
  %o3 = stablehlo.constant dense<[[7, 8]]> : tensor<1x2xi64>
  %r:4 = "interpreter.run_parallel"(%o0, %o1, %o2, %o3) {
    programs = [[@f], [@f], [@f], [@f]]
  } : (tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>) ->
      (tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>)
  %zero = stablehlo.constant dense<[[0, 0]]> : tensor<1x2xi64>
  %sum = stablehlo.constant dense<[[16, 20]]> : tensor<1x2xi64>
  return %r#0, %r#1, %r#2, %r#3, %sum, %zero, %zero, %zero :
      tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>,
      tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>
})"},
    {"collective_reduce_1",
     R"(func.func @f(%operand: tensor<1x2xi64>, %root: tensor<1xi32>) -> tensor<1x2xi64> {
  %result = "stablehlo.collective_reduce"(%operand, %root) ({
    ^bb0(%x: tensor<i64>, %y: tensor<i64>):
      %s = stablehlo.add %x, %y : tensor<i64>
      stablehlo.return %s : tensor<i64>
  }) {
    has_dynamic_root = true,
    replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>,
    channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>
  } : (tensor<1x2xi64>, tensor<1xi32>) -> tensor<1x2xi64>
  return %result : tensor<1x2xi64>
}
func.func @main() -> (tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>,
                      tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>) {
  %o0 = stablehlo.constant dense<[[1, 2]]> : tensor<1x2xi64>
  %o1 = stablehlo.constant dense<[[3, 4]]> : tensor<1x2xi64>
  %o2 = stablehlo.constant dense<[[5, 6]]> : tensor<1x2xi64>
  %o3 = stablehlo.constant dense<[[7, 8]]> : tensor<1x2xi64>
  %root = stablehlo.constant dense<[3]> : tensor<1xi32>
  %r:4 = "interpreter.run_parallel"(%o0, %root, %o1, %root, %o2, %root, %o3, %root) {
    programs = [[@f], [@f], [@f], [@f]]
  } : (tensor<1x2xi64>, tensor<1xi32>, tensor<1x2xi64>, tensor<1xi32>,
       tensor<1x2xi64>, tensor<1xi32>, tensor<1x2xi64>, tensor<1xi32>) ->
      (tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>)
  %zero = stablehlo.constant dense<[[0, 0]]> : tensor<1x2xi64>
  %sum = stablehlo.constant dense<[[16, 20]]> : tensor<1x2xi64>
  return %r#0, %r#1, %r#2, %r#3, %zero, %zero, %zero, %sum :
      tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>,
      tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>
})"},
    {"reduce_scatter_0",
     R"(func.func @f(%operand: tensor<2x4xi64>) -> tensor<2x2xi64> {
  %result = "stablehlo.reduce_scatter"(%operand) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
    %0 = "stablehlo.add"(%arg0, %arg1) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    "stablehlo.return"(%0) : (tensor<i64>) -> ()
  }) {
    scatter_dimension = 1 : i64,
    replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
    channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>
  } : (tensor<2x4xi64>) -> tensor<2x2xi64>
  return %result : tensor<2x2xi64>
}
func.func @main() -> (tensor<2x2xi64>, tensor<2x2xi64>, tensor<2x2xi64>, tensor<2x2xi64>) {
  %o0 = stablehlo.constant dense<[[1, 2, 3, 4], [5, 6, 7, 8]]> : tensor<2x4xi64>
  %o1 = stablehlo.constant dense<[[9, 10, 11, 12], [13, 14, 15, 16]]> : tensor<2x4xi64>
  %r:2 = "interpreter.run_parallel"(%o0, %o1) {
    programs = [[@f], [@f]]
  } : (tensor<2x4xi64>, tensor<2x4xi64>) -> (tensor<2x2xi64>, tensor<2x2xi64>)
  %e0 = stablehlo.constant dense<[[10, 12], [18, 20]]> : tensor<2x2xi64>
  %e1 = stablehlo.constant dense<[[14, 16], [22, 24]]> : tensor<2x2xi64>
  return %r#0, %r#1, %e0, %e1 : tensor<2x2xi64>, tensor<2x2xi64>, tensor<2x2xi64>, tensor<2x2xi64>
})"},
    // The spec's replica_id / partition_id examples print no values: run
    // them on 2 replicas x 2 partitions, process (r, p) gets r and p.
    {"replica_id_partition_id_0",
     R"(func.func @f() -> (tensor<ui32>, tensor<ui32>) {
  %r = "stablehlo.replica_id"() : () -> tensor<ui32>
  %p = "stablehlo.partition_id"() : () -> tensor<ui32>
  return %r, %p : tensor<ui32>, tensor<ui32>
}
func.func @main() -> (tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>,
                      tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>,
                      tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>,
                      tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>) {
  %x:8 = "interpreter.run_parallel"() {
    programs = [[@f, @f], [@f, @f]]
  } : () -> (tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>,
             tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>)
  %z = stablehlo.constant dense<0> : tensor<ui32>
  %o = stablehlo.constant dense<1> : tensor<ui32>
  return %x#0, %x#1, %x#2, %x#3, %x#4, %x#5, %x#6, %x#7, %z, %z, %z, %o, %o, %z, %o, %o :
      tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>,
      tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>,
      tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>,
      tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>
})"},
    // The spec's async_start / async_done example (an all_gather in groups
    // [[0, 2, 4, 6], [1, 3, 5, 7]]) prints no values: on 8 replicas where
    // replica r holds r everywhere, each row gathers its group's ids.
    {"async_start_async_done_0",
     R"(func.func @f(%arg0: tensor<8x2xf32>) -> tensor<8x8xf32> {
  %0 = "stablehlo.async_start"(%arg0) ({
    %1 = "stablehlo.all_gather"(%arg0) {
      all_gather_dim = 1 : i64,
      replica_groups = dense<[[0, 2, 4, 6], [1, 3, 5, 7]]> : tensor<2x4xi64>
    } : (tensor<8x2xf32>) -> tensor<8x8xf32>
    "stablehlo.return"(%1) : (tensor<8x8xf32>) -> ()
  }) : (tensor<8x2xf32>) -> !stablehlo.future<tensor<8x8xf32>>
  %2 = "stablehlo.async_done"(%0) : (!stablehlo.future<tensor<8x8xf32>>) -> tensor<8x8xf32>
  return %2 : tensor<8x8xf32>
}
func.func @main() -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) {
  %o0 = stablehlo.constant dense<0.0> : tensor<8x2xf32>
  %o1 = stablehlo.constant dense<1.0> : tensor<8x2xf32>
  %o2 = stablehlo.constant dense<2.0> : tensor<8x2xf32>
  %o3 = stablehlo.constant dense<3.0> : tensor<8x2xf32>
  %o4 = stablehlo.constant dense<4.0> : tensor<8x2xf32>
  %o5 = stablehlo.constant dense<5.0> : tensor<8x2xf32>
  %o6 = stablehlo.constant dense<6.0> : tensor<8x2xf32>
  %o7 = stablehlo.constant dense<7.0> : tensor<8x2xf32>
  %r:8 = "interpreter.run_parallel"(%o0, %o1, %o2, %o3, %o4, %o5, %o6, %o7) {
    programs = [[@f], [@f], [@f], [@f], [@f], [@f], [@f], [@f]]
  } : (tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>)
  %even = stablehlo.constant dense<[0.0, 0.0, 2.0, 2.0, 4.0, 4.0, 6.0, 6.0]> : tensor<8xf32>
  %odd = stablehlo.constant dense<[1.0, 1.0, 3.0, 3.0, 5.0, 5.0, 7.0, 7.0]> : tensor<8xf32>
  %e0 = stablehlo.broadcast_in_dim %even, dims = [1] : (tensor<8xf32>) -> tensor<8x8xf32>
  %e1 = stablehlo.broadcast_in_dim %odd, dims = [1] : (tensor<8xf32>) -> tensor<8x8xf32>
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6, %r#7, %e0, %e1, %e0, %e1, %e0, %e1, %e0, %e1 : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
})"},
    // The spec's send / recv / after_all examples print no values: process
    // 0 sends its operand (after_all joining two tokens, as in after_all's
    // example) to process 1, which receives it.
    {"send_recv_after_all_0",
     R"(func.func @sender(%operand: tensor<2x2xi64>, %input0: !stablehlo.token, %input1: !stablehlo.token) -> !stablehlo.token {
  %token = "stablehlo.after_all"(%input0, %input1) : (!stablehlo.token, !stablehlo.token) -> !stablehlo.token
  %result = "stablehlo.send"(%operand, %token) {
    channel_handle = #stablehlo.channel_handle<handle = 0, type = 1>,
    is_host_transfer = false,
    source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>
  } : (tensor<2x2xi64>, !stablehlo.token) -> !stablehlo.token
  return %result : !stablehlo.token
}
func.func @receiver(%token: !stablehlo.token) -> (tensor<2x2xi64>, !stablehlo.token) {
  %results0, %results1 = "stablehlo.recv"(%token) {
    channel_handle = #stablehlo.channel_handle<handle = 0, type = 1>,
    is_host_transfer = false,
    source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>
  } : (!stablehlo.token) -> (tensor<2x2xi64>, !stablehlo.token)
  return %results0, %results1 : tensor<2x2xi64>, !stablehlo.token
}
func.func @main() -> (tensor<2x2xi64>, tensor<2x2xi64>) {
  %operand = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  %t = stablehlo.after_all : !stablehlo.token
  %r:3 = "interpreter.run_parallel"(%operand, %t, %t, %t) {
    programs = [[@sender], [@receiver]]
  } : (tensor<2x2xi64>, !stablehlo.token, !stablehlo.token, !stablehlo.token) ->
      (!stablehlo.token, tensor<2x2xi64>, !stablehlo.token)
  return %r#1, %operand : tensor<2x2xi64>, tensor<2x2xi64>
})"},
    // infeed's queue as interpreter.run_parallel's infeed functions.
    {"infeed_0",
     R"(func.func @f(%token: !stablehlo.token) -> (tensor<2x2xi64>, tensor<2x2xi64>) {
  %results0:2 = "stablehlo.infeed"(%token) {
    infeed_config = ""
  } : (!stablehlo.token) -> (tensor<2x2xi64>, !stablehlo.token)
  %results1:2 = "stablehlo.infeed"(%token) {
    infeed_config = ""
  } : (!stablehlo.token) -> (tensor<2x2xi64>, !stablehlo.token)
  return %results0#0, %results1#0 : tensor<2x2xi64>, tensor<2x2xi64>
}
func.func @queue0() -> tensor<2x2xi64> {
  %0 = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  return %0 : tensor<2x2xi64>
}
func.func @queue1() -> tensor<2x2xi64> {
  %0 = stablehlo.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi64>
  return %0 : tensor<2x2xi64>
}
func.func @main() -> (tensor<2x2xi64>, tensor<2x2xi64>, tensor<2x2xi64>, tensor<2x2xi64>) {
  %token = stablehlo.after_all : !stablehlo.token
  %r:2 = "interpreter.run_parallel"(%token) {
    infeed = [@queue0, @queue1],
    programs = [[@f]]
  } : (!stablehlo.token) -> (tensor<2x2xi64>, tensor<2x2xi64>)
  %e0 = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  %e1 = stablehlo.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi64>
  return %r#0, %r#1, %e0, %e1 : tensor<2x2xi64>, tensor<2x2xi64>, tensor<2x2xi64>, tensor<2x2xi64>
})"},
};

HLX_SPEC_EXAMPLES_TEST(CollectiveExamples, kExamples);

}  // namespace
