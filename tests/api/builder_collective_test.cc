// Builder collectives and ReplicaId (api/hlx_builder_ops.h): programs run
// on 2 or 4 replicas with per-replica inputs; the XLA text's examples are
// the expected values; one error test per shape rule.
#include <functional>
#include <memory>
#include <string>

#include "tests/api/builder_testing.h"

namespace {
using namespace hlx_test;
using Comp = std::unique_ptr<hlx_computation_t, ComputationDeleter>;

// Runs p on one replica per entry of `inputs` (each its f32 param of
// shape dims); returns each replica's single result.
std::vector<std::vector<float>> PerReplica(
    hlx_program_t* p, std::vector<int64_t> dims,
    const std::vector<std::vector<float>>& inputs) {
  std::vector<hlx_buffer_t*> params;
  for (const auto& v : inputs) params.push_back(Buf(F32(), dims, v.data()));
  std::vector<hlx_buffer_t*> out = RunAll(p, params, (int32_t)inputs.size());
  std::vector<std::vector<float>> res;
  for (hlx_buffer_t* b : out) res.push_back(Values<float>(b));
  return res;
}

// XLA text: [1.0, 2.5] and [3.0, 5.25] summed -> [4.0, 7.75] on both.
TEST(BuilderCollective, AllReduceAndCrossReplicaSumExample) {
  Comp add(BinaryComputation(HLX_BINARY_ADD, F32()));
  Builder bb;
  uint32_t x = bb.Param(0, F32(), {2}), r, s;
  BOK(hlx_builder_all_reduce(bb.b, x, add.get(), nullptr, 0, 0, 0, &r));
  BOK(hlx_builder_cross_replica_sum(bb.b, r, nullptr, 0, 0, &s));
  hlx_program_t* p = bb.Program({r});
  ExpectPrintParses(p);
  auto got = PerReplica(p, {2}, {{1.0f, 2.5f}, {3.0f, 5.25f}});
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], (std::vector<float>{4.0f, 7.75f}));
  EXPECT_EQ(got[1], (std::vector<float>{4.0f, 7.75f}));
  Builder b2;
  uint32_t y = b2.Param(0, F32(), {2}), t;
  int64_t groups[4] = {0, 2, 1, 3};
  BOK(hlx_builder_cross_replica_sum(b2.b, y, groups, 2, 2, &t));
  auto got4 = PerReplica(b2.Program({t}), {2}, {{1, 2}, {10, 20}, {100, 200}, {1000, 2000}});
  ASSERT_EQ(got4.size(), 4u);
  EXPECT_EQ(got4[0], (std::vector<float>{101, 202}));
  EXPECT_EQ(got4[1], (std::vector<float>{1010, 2020}));
  EXPECT_EQ(got4[2], (std::vector<float>{101, 202}));
  EXPECT_EQ(got4[3], (std::vector<float>{1010, 2020}));
}

// XLA text: "If the input is a tuple, the output is a tuple as well"; with
// a channel id (cross replica and partition on 1 partition).
TEST(BuilderCollective, AllReduceOfATupleWithChannel) {
  Comp mx(BinaryComputation(HLX_BINARY_MAX, F32()));
  Builder bb;
  uint32_t x = bb.Param(0, F32(), {2}), y = bb.Bin(HLX_BINARY_MUL, x, x), t;
  uint32_t ops[2] = {x, y};
  BOK(hlx_builder_all_reduce_variadic(bb.b, ops, 2, mx.get(), nullptr, 0, 0, 5, &t));
  hlx_program_t* p = bb.Program({bb.Gte(t, 0), bb.Gte(t, 1)});
  ExpectPrintParses(p);
  float a[2] = {1, -4}, c[2] = {-3, 2};
  std::vector<hlx_buffer_t*> out =
      RunAll(p, {Buf(F32(), {2}, a), Buf(F32(), {2}, c)}, 2);
  ASSERT_EQ(out.size(), 4u);
  for (int r = 0; r < 2; r++) {
    EXPECT_EQ(Values<float>(out[2 * r]), (std::vector<float>{1, 2}));
    EXPECT_EQ(Values<float>(out[2 * r + 1]), (std::vector<float>{9, 16}));
  }
}

// XLA text: [1.0, 2.5] and [3.0, 5.25] gathered on dim 0 -> [1, 2.5, 3, 5.25].
TEST(BuilderCollective, AllGatherExample) {
  Builder bb;
  uint32_t x = bb.Param(0, F32(), {2}), r;
  BOK(hlx_builder_all_gather(bb.b, x, 0, 2, nullptr, 0, 0, 0, &r));
  EXPECT_EQ(Dims(bb.b, r), (std::vector<int64_t>{4}));
  hlx_program_t* p = bb.Program({r});
  ExpectPrintParses(p);
  auto got = PerReplica(p, {2}, {{1.0f, 2.5f}, {3.0f, 5.25f}});
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], (std::vector<float>{1.0f, 2.5f, 3.0f, 5.25f}));
  EXPECT_EQ(got[1], got[0]);
}

// XLA text: [1.0, 2.25] and [3.0, 5.25], scatter_dim 0 -> [4.0] and [7.5].
TEST(BuilderCollective, ReduceScatterExample) {
  Comp add(BinaryComputation(HLX_BINARY_ADD, F32()));
  Builder bb;
  uint32_t x = bb.Param(0, F32(), {2}), r;
  int64_t groups[2] = {0, 1};
  BOK(hlx_builder_reduce_scatter(bb.b, x, add.get(), 0, 2, groups, 1, 2, 0, &r));
  hlx_program_t* p = bb.Program({r});
  ExpectPrintParses(p);
  auto got = PerReplica(p, {2}, {{1.0f, 2.25f}, {3.0f, 5.25f}});
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], (std::vector<float>{4.0f}));
  EXPECT_EQ(got[1], (std::vector<float>{7.5f}));
}

// XLA text: x = f32[4,16] on 4 cores, split_dimension 1, concat_dimension
// 0, split_count 4 -> f32[16,4]: core c gets block c (columns 4c..4c+3) of
// every core, stacked in core order.
TEST(BuilderCollective, AllToAllExample) {
  Builder bb;
  uint32_t x = bb.Param(0, F32(), {4, 16}), r;
  BOK(hlx_builder_all_to_all(bb.b, x, 1, 0, 4, nullptr, 0, 0, &r));
  EXPECT_EQ(Dims(bb.b, r), (std::vector<int64_t>{16, 4}));
  std::vector<std::vector<float>> in(4, std::vector<float>(64));
  for (int c = 0; c < 4; c++)
    for (int i = 0; i < 64; i++) in[c][i] = (float)(c * 1000 + i);
  hlx_program_t* p = bb.Program({r});
  ExpectPrintParses(p);
  auto got = PerReplica(p, {4, 16}, in);
  ASSERT_EQ(got.size(), 4u);
  for (int c = 0; c < 4; c++) {
    std::vector<float> want;
    for (int src = 0; src < 4; src++)
      for (int row = 0; row < 4; row++)
        for (int k = 0; k < 4; k++) want.push_back(in[src][row * 16 + 4 * c + k]);
    EXPECT_EQ(got[c], want) << "core " << c;
  }
}

// Runs p (two i32 params [2, k] per replica) on 2 replicas; returns the
// 2 x 2 result buffers' values, replica-major.
std::vector<std::vector<int32_t>> TwoByTwo(
    hlx_program_t* p, std::vector<int64_t> dims,
    const std::vector<std::vector<int32_t>>& in) {
  std::vector<hlx_buffer_t*> params;
  for (const auto& v : in) params.push_back(Buf(I32(), dims, v.data()));
  std::vector<std::vector<int32_t>> res;
  for (hlx_buffer_t* b : RunAll(p, params, 2)) res.push_back(Values<int32_t>(b));
  return res;
}

// The spec's all_gather example (two operands, all_gather_dim 1, 2
// replicas) through the tuple form.
TEST(BuilderCollective, AllGatherVariadicSpecExample) {
  Builder bb;
  uint32_t x = bb.Param(0, I32(), {2, 2}), y = bb.Param(1, I32(), {2, 2}), t;
  uint32_t ops[2] = {x, y};
  int64_t groups[2] = {0, 1};
  BOK(hlx_builder_all_gather_variadic(bb.b, ops, 2, 1, 2, groups, 1, 2, 0, &t));
  uint32_t r0 = bb.Gte(t, 0), r1 = bb.Gte(t, 1);
  EXPECT_EQ(Dims(bb.b, r0), (std::vector<int64_t>{2, 4}));
  hlx_program_t* p = bb.Program({r0, r1});
  ExpectPrintParses(p);
  auto got = TwoByTwo(p, {2, 2}, {{1, 2, 3, 4}, {11, 12, 13, 14},
                                  {5, 6, 7, 8}, {15, 16, 17, 18}});
  ASSERT_EQ(got.size(), 4u);
  for (int r = 0; r < 2; r++) {
    EXPECT_EQ(got[2 * r], (std::vector<int32_t>{1, 2, 5, 6, 3, 4, 7, 8}));
    EXPECT_EQ(got[2 * r + 1],
              (std::vector<int32_t>{11, 12, 15, 16, 13, 14, 17, 18}));
  }
}

// The spec's all_to_all example (two operands, split 1, concat 0).
TEST(BuilderCollective, AllToAllVariadicSpecExample) {
  Builder bb;
  uint32_t x = bb.Param(0, I32(), {2, 4}), y = bb.Param(1, I32(), {2, 4}), t;
  uint32_t ops[2] = {x, y};
  BOK(hlx_builder_all_to_all_variadic(bb.b, ops, 2, 1, 0, 2, nullptr, 0, 0, &t));
  uint32_t r0 = bb.Gte(t, 0), r1 = bb.Gte(t, 1);
  EXPECT_EQ(Dims(bb.b, r1), (std::vector<int64_t>{4, 2}));
  hlx_program_t* p = bb.Program({r0, r1});
  ExpectPrintParses(p);
  auto got = TwoByTwo(p, {2, 4},
                      {{1, 2, 3, 4, 5, 6, 7, 8},
                       {17, 18, 19, 20, 21, 22, 23, 24},
                       {9, 10, 11, 12, 13, 14, 15, 16},
                       {25, 26, 27, 28, 29, 30, 31, 32}});
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0], (std::vector<int32_t>{1, 2, 5, 6, 9, 10, 13, 14}));
  EXPECT_EQ(got[2], (std::vector<int32_t>{3, 4, 7, 8, 11, 12, 15, 16}));
  EXPECT_EQ(got[1], (std::vector<int32_t>{17, 18, 21, 22, 25, 26, 29, 30}));
  EXPECT_EQ(got[3], (std::vector<int32_t>{19, 20, 23, 24, 27, 28, 31, 32}));
}

// Tuple forms with replica groups {0,2},{1,3} on 4 replicas and operands
// of different element types: all_gather concatenates in group order,
// all_to_all exchanges within each group.
TEST(BuilderCollective, VariadicFormsWithReplicaGroupsAndMixedTypes) {
  Builder bb;
  uint32_t x = bb.Param(0, F32(), {2}), y = bb.Param(1, I32(), {2}), g, a;
  uint32_t ops[2] = {x, y};
  int64_t groups[4] = {0, 2, 1, 3};
  BOK(hlx_builder_all_gather_variadic(bb.b, ops, 2, 0, 2, groups, 2, 2, 0, &g));
  BOK(hlx_builder_all_to_all_variadic(bb.b, ops, 2, 0, 0, 2, groups, 2, 2, &a));
  hlx_program_t* p =
      bb.Program({bb.Gte(g, 0), bb.Gte(g, 1), bb.Gte(a, 0), bb.Gte(a, 1)});
  ExpectPrintParses(p);
  std::vector<hlx_buffer_t*> params;
  for (int r = 0; r < 4; r++) {
    float xf[2] = {(float)r, (float)r + 0.5f};
    int32_t yi[2] = {10 * r, 10 * r + 1};
    params.push_back(Buf(F32(), {2}, xf));
    params.push_back(Buf(I32(), {2}, yi));
  }
  std::vector<hlx_buffer_t*> out = RunAll(p, params, 4);
  ASSERT_EQ(out.size(), 16u);
  for (int r = 0; r < 4; r++) {
    int lo = r % 2, hi = lo + 2;  // the group's members in order
    int rank = r / 2;             // r's position in its group
    SCOPED_TRACE("replica " + std::to_string(r));
    EXPECT_EQ(Values<float>(out[4 * r]),
              (std::vector<float>{(float)lo, lo + 0.5f, (float)hi, hi + 0.5f}));
    EXPECT_EQ(Values<int32_t>(out[4 * r + 1]),
              (std::vector<int32_t>{10 * lo, 10 * lo + 1, 10 * hi, 10 * hi + 1}));
    // all_to_all: element `rank` of each member, in group order.
    EXPECT_EQ(Values<float>(out[4 * r + 2]),
              (std::vector<float>{lo + 0.5f * rank, hi + 0.5f * rank}));
    EXPECT_EQ(Values<int32_t>(out[4 * r + 3]),
              (std::vector<int32_t>{10 * lo + rank, 10 * hi + rank}));
  }
}

// XLA text: "When operand is a tuple of arrays, the reduce-scatter is
// performed on each element of the tuple": the example's [1.0, 2.25] /
// [3.0, 5.25] next to a second operand of another shape, over 2 replicas.
TEST(BuilderCollective, ReduceScatterVariadic) {
  Comp add(BinaryComputation(HLX_BINARY_ADD, F32()));
  Builder bb;
  uint32_t x = bb.Param(0, F32(), {2}), y = bb.Param(1, F32(), {2, 4}), t;
  uint32_t ops[2] = {x, y};
  BOK(hlx_builder_reduce_scatter_variadic(bb.b, ops, 2, add.get(), 0, 2,
                                          nullptr, 0, 0, 3, &t));
  uint32_t r0 = bb.Gte(t, 0), r1 = bb.Gte(t, 1);
  EXPECT_EQ(Dims(bb.b, r1), (std::vector<int64_t>{1, 4}));
  hlx_program_t* p = bb.Program({r0, r1});
  ExpectPrintParses(p);
  float a0[2] = {1.0f, 2.25f}, a1[2] = {3.0f, 5.25f};
  float b0[8] = {1, 2, 3, 4, 5, 6, 7, 8}, b1[8] = {10, 20, 30, 40, 50, 60, 70, 80};
  std::vector<hlx_buffer_t*> out =
      RunAll(p, {Buf(F32(), {2}, a0), Buf(F32(), {2, 4}, b0),
                 Buf(F32(), {2}, a1), Buf(F32(), {2, 4}, b1)}, 2);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{4.0f}));
  EXPECT_EQ(Values<float>(out[1]), (std::vector<float>{11, 22, 33, 44}));
  EXPECT_EQ(Values<float>(out[2]), (std::vector<float>{7.5f}));
  EXPECT_EQ(Values<float>(out[3]), (std::vector<float>{55, 66, 77, 88}));
}

TEST(BuilderCollective, CollectivePermuteAndReplicaId) {
  Builder bb;
  uint32_t x = bb.Param(0, F32(), {1}), r, id, idf, sum;
  int64_t pairs[6] = {0, 1, 1, 2, 2, 0};  // a ring over 3 replicas
  BOK(hlx_builder_collective_permute(bb.b, x, pairs, 3, 0, &r));
  BOK(hlx_builder_replica_id(bb.b, &id));
  BOK(hlx_builder_convert(bb.b, id, F32(), &idf));
  int64_t one = 1;
  BOK(hlx_builder_reshape(bb.b, idf, &one, 1, &idf));
  sum = bb.Bin(HLX_BINARY_ADD, r, bb.Bin(HLX_BINARY_MUL, idf, bb.F({1}, {100})));
  hlx_program_t* p = bb.Program({sum});
  ExpectPrintParses(p);
  auto got = PerReplica(p, {1}, {{1}, {2}, {3}});
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0], (std::vector<float>{3}));
  EXPECT_EQ(got[1], (std::vector<float>{101}));
  EXPECT_EQ(got[2], (std::vector<float>{202}));
}

// XLA text: a replica that is no pair's target gets zeros.
TEST(BuilderCollective, CollectivePermuteNonTargetGetsZeros) {
  Builder bb;
  uint32_t x = bb.Param(0, F32(), {2}), r;
  int64_t pairs[2] = {0, 1};
  BOK(hlx_builder_collective_permute(bb.b, x, pairs, 1, 0, &r));
  auto got = PerReplica(bb.Program({r}), {2}, {{1, 2}, {3, 4}});
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], (std::vector<float>{0, 0}));
  EXPECT_EQ(got[1], (std::vector<float>{1, 2}));
}

TEST(BuilderCollectiveErrors, EachRuleIsLatched) {
  Comp add(BinaryComputation(HLX_BINARY_ADD, F32()));
  Comp addi(BinaryComputation(HLX_BINARY_ADD, I32()));
  auto check = [](std::function<hlx_status_t(Builder&, uint32_t, uint32_t*)> f,
                  const char* want) {
    Builder bb;
    uint32_t x = bb.Param(0, F32(), {4, 6}), r;
    ExpectLatched(bb, f(bb, x, &r), want);
  };
  int64_t g[4] = {0, 1, 2, 3}, neg[2] = {0, -1};
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    return hlx_builder_all_reduce(bb.b, x, addi.get(), nullptr, 0, 0, 0, o);
  }, "all_reduce: computation parameter 0 must be a rank-0 f32");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    uint32_t ops[2] = {x, bb.I({1}, {1})};
    return hlx_builder_all_reduce_variadic(bb.b, ops, 2, add.get(), nullptr, 0, 0, 0, o);
  }, "all_reduce: operand 1 has element type i32, operand 0 f32");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    return hlx_builder_all_reduce(bb.b, x, add.get(), neg, 1, 2, 0, o);
  }, "all_reduce: replica_groups has a negative id -1");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    return hlx_builder_all_reduce(bb.b, x, add.get(), nullptr, 0, 0, -2, o);
  }, "all_reduce: channel_id -2 is negative");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    return hlx_builder_all_gather(bb.b, x, 2, 2, nullptr, 0, 0, 0, o);
  }, "all_gather: all_gather_dimension 2 is out of range for rank 2");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    return hlx_builder_all_gather(bb.b, x, 0, 2, g, 1, 4, 0, o);
  }, "all_gather: shard_count 2 differs from the replica group size 4");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    return hlx_builder_all_gather(bb.b, x, 0, 0, nullptr, 0, 0, 0, o);
  }, "all_gather: shard_count 0 must be >= 1");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    return hlx_builder_reduce_scatter(bb.b, x, add.get(), 1, 4, nullptr, 0, 0, 0, o);
  }, "reduce_scatter: scatter_dimension size 6 of operand 0 is not a multiple of shard_count 4");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    return hlx_builder_all_to_all(bb.b, x, 1, 0, 4, nullptr, 0, 0, o);
  }, "all_to_all: split_dimension size 6 of operand 0 is not a multiple of split_count 4");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    return hlx_builder_all_to_all(bb.b, x, 0, 3, 2, nullptr, 0, 0, o);
  }, "all_to_all: concat_dimension 3 is out of range for rank 2");
  // Tuple forms: every operand obeys the rules; operand counts 1..64.
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    uint32_t ops[2] = {x, bb.F({3}, {1, 2, 3})};
    return hlx_builder_all_gather_variadic(bb.b, ops, 2, 1, 2, nullptr, 0, 0, 0, o);
  }, "all_gather: all_gather_dimension 1 is out of range for rank 1");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    return hlx_builder_all_gather_variadic(bb.b, &x, 0, 0, 2, nullptr, 0, 0, 0, o);
  }, "all_gather: needs 1 to 64 operands, got 0");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    uint32_t ops[2] = {x, bb.I({4, 6}, std::vector<int32_t>(24, 1))};
    return hlx_builder_reduce_scatter_variadic(bb.b, ops, 2, add.get(), 0, 2,
                                               nullptr, 0, 0, 0, o);
  }, "reduce_scatter: operand 1 has element type i32, operand 0 f32");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    uint32_t ops[2] = {x, bb.F({3, 2}, {1, 2, 3, 4, 5, 6})};
    return hlx_builder_reduce_scatter_variadic(bb.b, ops, 2, add.get(), 0, 2,
                                               nullptr, 0, 0, 0, o);
  }, "reduce_scatter: scatter_dimension size 3 of operand 1 is not a multiple of shard_count 2");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    uint32_t ops[2] = {x, bb.F({4, 3}, std::vector<float>(12, 1))};
    return hlx_builder_all_to_all_variadic(bb.b, ops, 2, 1, 0, 2, nullptr, 0, 0, o);
  }, "all_to_all: split_dimension size 3 of operand 1 is not a multiple of split_count 2");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    uint32_t ops[2] = {x, 999};
    return hlx_builder_all_to_all_variadic(bb.b, ops, 2, 1, 0, 2, nullptr, 0, 0, o);
  }, "all_to_all: operand 1");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    int64_t pairs[4] = {0, 1, 0, 2};
    return hlx_builder_collective_permute(bb.b, x, pairs, 2, 0, o);
  }, "collective_permute: source 0 appears in two pairs");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    int64_t pairs[4] = {0, 1, 2, 1};
    return hlx_builder_collective_permute(bb.b, x, pairs, 2, 0, o);
  }, "collective_permute: target 1 appears in two pairs");
}

}  // namespace
