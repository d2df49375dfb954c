// Builder Gather, Scatter, DynamicSlice and DynamicUpdateSlice
// (api/hlx_builder_ops.h): built, run, values checked (the XLA text's
// worked examples), one error test per shape rule.
#include <algorithm>
#include <functional>
#include <memory>

#include "tests/api/builder_testing.h"

namespace {
using namespace hlx_test;
using Comp = std::unique_ptr<hlx_computation_t, ComputationDeleter>;

hlx_element_type_t I64() { return hlx_element_type_from_name("i64"); }

std::vector<float> Iota(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; i++) v[i] = (float)i;
  return v;
}

// XLA text: 5 slices of shape [8,6] from a [16,11] array with S64[5,2]
// indices: out[G, O0, O1] = in[X + O0, Y + O1] (starts clamped to fit).
TEST(BuilderGather, FiveSlicesOf8x6From16x11) {
  Builder bb;
  std::vector<float> in = Iota(16 * 11);
  std::vector<int64_t> idx = {0, 0, 3, 5, 8, 2, 15, 1, 4, 10};  // last two clamp
  uint32_t x = bb.F({16, 11}, in), ix = bb.Const(I64(), {5, 2}, idx);
  int64_t off[2] = {1, 2}, map[2] = {0, 1}, sizes[2] = {8, 6};
  hlx_gather_dimension_numbers_t dn = {};
  dn.offset_dims = off;
  dn.num_offset_dims = 2;
  dn.start_index_map = map;
  dn.num_start_index_map = 2;
  dn.index_vector_dim = 1;
  uint32_t r;
  BOK(hlx_builder_gather(bb.b, x, ix, &dn, sizes, 2, false, &r));
  EXPECT_EQ(Dims(bb.b, r), (std::vector<int64_t>{5, 8, 6}));
  hlx_program_t* p = bb.Program({r});
  ExpectPrintParses(p);
  std::vector<float> want;
  for (int g = 0; g < 5; g++) {
    int64_t X = std::min<int64_t>(std::max<int64_t>(idx[2 * g], 0), 16 - 8);
    int64_t Y = std::min<int64_t>(std::max<int64_t>(idx[2 * g + 1], 0), 11 - 6);
    for (int o0 = 0; o0 < 8; o0++)
      for (int o1 = 0; o1 < 6; o1++) want.push_back(in[(X + o0) * 11 + Y + o1]);
  }
  EXPECT_EQ(RunOne<float>(p), want);
}

// XLA text: the same with "gather indices" of shape [4,5,2] (two batch
// dimensions G0, G1).
TEST(BuilderGather, TwoBatchDimensions) {
  Builder bb;
  std::vector<float> in = Iota(16 * 11);
  std::vector<int32_t> idx(4 * 5 * 2);
  for (size_t i = 0; i < idx.size(); i++) idx[i] = (int32_t)((i * 7) % 9);
  uint32_t x = bb.F({16, 11}, in), ix = bb.I({4, 5, 2}, idx);
  int64_t off[2] = {2, 3}, map[2] = {0, 1}, sizes[2] = {8, 6};
  hlx_gather_dimension_numbers_t dn = {};
  dn.offset_dims = off;
  dn.num_offset_dims = 2;
  dn.start_index_map = map;
  dn.num_start_index_map = 2;
  dn.index_vector_dim = 2;
  uint32_t r;
  BOK(hlx_builder_gather(bb.b, x, ix, &dn, sizes, 2, false, &r));
  EXPECT_EQ(Dims(bb.b, r), (std::vector<int64_t>{4, 5, 8, 6}));
  std::vector<float> want;
  for (int g = 0; g < 20; g++) {
    int64_t X = std::min<int64_t>(idx[2 * g], 8), Y = std::min<int64_t>(idx[2 * g + 1], 5);
    for (int o0 = 0; o0 < 8; o0++)
      for (int o1 = 0; o1 < 6; o1++) want.push_back(in[(X + o0) * 11 + Y + o1]);
  }
  EXPECT_EQ(RunOne<float>(bb.Program({r})), want);
}

// XLA text: tf.gather_nd: collapsed_slice_dims {0}, start_index_map {0},
// slice_sizes [1, 11]: [G0, G1, O0] reads [GatherIndices[G0, G1, 0], O0].
TEST(BuilderGather, GatherNdRows) {
  Builder bb;
  std::vector<float> in = Iota(16 * 11);
  std::vector<int32_t> idx = {3, 0, 15, 7, 7, 1};
  uint32_t x = bb.F({16, 11}, in), ix = bb.I({2, 3, 1}, idx);
  int64_t off = 2, col = 0, map = 0, sizes[2] = {1, 11};
  hlx_gather_dimension_numbers_t dn = {};
  dn.offset_dims = &off;
  dn.num_offset_dims = 1;
  dn.collapsed_slice_dims = &col;
  dn.num_collapsed_slice_dims = 1;
  dn.start_index_map = &map;
  dn.num_start_index_map = 1;
  dn.index_vector_dim = 2;
  uint32_t r;
  BOK(hlx_builder_gather(bb.b, x, ix, &dn, sizes, 2, true, &r));
  EXPECT_EQ(Dims(bb.b, r), (std::vector<int64_t>{2, 3, 11}));
  std::vector<float> want;
  for (int32_t row : idx)
    for (int c = 0; c < 11; c++) want.push_back(in[row * 11 + c]);
  EXPECT_EQ(RunOne<float>(bb.Program({r})), want);
}

// Rows 0 and 2 (twice) of a [3,3] operand get the update rows added.
TEST(BuilderScatter, AddsUpdateRowsIncludingRepeats) {
  Comp add(BinaryComputation(HLX_BINARY_ADD, F32()));
  Builder bb;
  uint32_t x = bb.F({3, 3}, {1, 1, 1, 1, 1, 1, 1, 1, 1});
  uint32_t ix = bb.I({3, 1}, {0, 2, 2});
  uint32_t up = bb.F({3, 3}, {1, 2, 3, 10, 20, 30, 100, 200, 300});
  int64_t uw = 1, ins = 0, s2o = 0;
  hlx_scatter_dimension_numbers_t dn = {};
  dn.update_window_dims = &uw;
  dn.num_update_window_dims = 1;
  dn.inserted_window_dims = &ins;
  dn.num_inserted_window_dims = 1;
  dn.scatter_dims_to_operand_dims = &s2o;
  dn.num_scatter_dims_to_operand_dims = 1;
  dn.index_vector_dim = 1;
  uint32_t r;
  BOK(hlx_builder_scatter(bb.b, x, ix, up, add.get(), &dn, false, false, &r));
  hlx_program_t* p = bb.Program({r});
  ExpectPrintParses(p);
  EXPECT_EQ(RunOne<float>(p),
            (std::vector<float>{2, 3, 4, 1, 1, 1, 111, 221, 331}));
}

// XLA text DynamicSlice examples: {0..4} at {2} size {2} -> {2, 3};
// the 4x3 matrix at {2, 1} size {2, 2} -> {{7, 8}, {10, 11}}.
TEST(BuilderDynamicSlice, ExamplesFromXlaText) {
  Builder bb;
  uint32_t a = bb.F({5}, {0, 1, 2, 3, 4});
  uint32_t m = bb.F({4, 3}, Iota(12));
  uint32_t s1 = bb.Scalar(I32(), 2);
  uint32_t s2[2] = {bb.Scalar(I32(), 2), bb.Scalar(I32(), 1)};
  int64_t z1 = 2, z2[2] = {2, 2};
  uint32_t r1, r2;
  BOK(hlx_builder_dynamic_slice(bb.b, a, &s1, &z1, 1, &r1));
  BOK(hlx_builder_dynamic_slice(bb.b, m, s2, z2, 2, &r2));
  hlx_program_t* p = bb.Program({r1, r2});
  ExpectPrintParses(p);
  std::vector<hlx_buffer_t*> out = RunAll(p);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{2, 3}));
  EXPECT_EQ(Values<float>(out[1]), (std::vector<float>{7, 8, 10, 11}));
}

// XLA text DynamicUpdateSlice examples, plus a start that is clamped.
TEST(BuilderDynamicUpdateSlice, ExamplesFromXlaText) {
  Builder bb;
  uint32_t a = bb.F({5}, {0, 1, 2, 3, 4}), u = bb.F({2}, {5, 6});
  uint32_t m = bb.F({4, 3}, Iota(12));
  uint32_t um = bb.F({3, 2}, {12, 13, 14, 15, 16, 17});
  uint32_t s1 = bb.Scalar(I32(), 2), big = bb.Scalar(I32(), 9);
  uint32_t s2[2] = {bb.Scalar(I32(), 1), bb.Scalar(I32(), 1)};
  uint32_t r1, r2, r3;
  BOK(hlx_builder_dynamic_update_slice(bb.b, a, u, &s1, 1, &r1));
  BOK(hlx_builder_dynamic_update_slice(bb.b, m, um, s2, 2, &r2));
  BOK(hlx_builder_dynamic_update_slice(bb.b, a, u, &big, 1, &r3));
  std::vector<hlx_buffer_t*> out = RunAll(bb.Program({r1, r2, r3}));
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{0, 1, 5, 6, 4}));
  EXPECT_EQ(Values<float>(out[1]),
            (std::vector<float>{0, 1, 2, 3, 12, 13, 6, 14, 15, 9, 16, 17}));
  EXPECT_EQ(Values<float>(out[2]), (std::vector<float>{0, 1, 2, 5, 6}));
}

TEST(BuilderGatherErrors, EachRuleIsLatched) {
  Comp add(BinaryComputation(HLX_BINARY_ADD, F32()));
  int64_t off2[2] = {1, 2}, map2[2] = {0, 1}, map1 = 0, col0 = 0, s86[2] = {8, 6};
  auto gdn = [&]() {
    hlx_gather_dimension_numbers_t dn = {};
    dn.offset_dims = off2;
    dn.num_offset_dims = 2;
    dn.start_index_map = map2;
    dn.num_start_index_map = 2;
    dn.index_vector_dim = 1;
    return dn;
  };
  auto gather = [&](hlx_gather_dimension_numbers_t dn, std::vector<int64_t> sizes,
                    hlx_element_type_t it, const char* want) {
    Builder bb;
    uint32_t x = bb.Param(0, F32(), {16, 11}), ix = bb.Param(1, it, {5, 2}), r;
    ExpectLatched(bb, hlx_builder_gather(bb.b, x, ix, &dn, sizes.data(),
                                         (int32_t)sizes.size(), false, &r),
                  want);
  };
  gather(gdn(), {8, 6}, F32(), "gather: start_indices must have an integer element type, not f32");
  gather(gdn(), {8}, I32(), "gather: slice_sizes has 1 entries, operand rank is 2");
  gather(gdn(), {17, 6}, I32(), "gather: slice_sizes[0] = 17 is not in [0, 16]");
  {
    auto dn = gdn();
    dn.index_vector_dim = 3;
    gather(dn, {8, 6}, I32(), "gather: index_vector_dim 3 is out of range [0, 2]");
  }
  {
    auto dn = gdn();
    int64_t bad[2] = {2, 1};
    dn.offset_dims = bad;
    gather(dn, {8, 6}, I32(), "gather: offset_dims must be sorted");
  }
  {
    auto dn = gdn();
    dn.start_index_map = &map1;
    dn.num_start_index_map = 1;
    gather(dn, {8, 6}, I32(), "gather: start_index_map has 1 entries, but indices have 2 components");
  }
  {
    auto dn = gdn();
    dn.collapsed_slice_dims = &col0;
    dn.num_collapsed_slice_dims = 1;
    gather(dn, {8, 6}, I32(), "gather: slice_sizes[0] = 8, but collapsed and batching dimensions need size <= 1");
  }
  {
    auto dn = gdn();
    dn.collapsed_slice_dims = &col0;
    dn.num_collapsed_slice_dims = 1;
    gather(dn, {1, 6}, I32(), "gather: offset_dims has 2 entries, but 1 slice dimensions are neither collapsed nor batching");
  }
  {
    auto dn = gdn();
    int64_t rep[2] = {0, 0};
    dn.start_index_map = rep;
    gather(dn, {8, 6}, I32(), "gather: start_index_map repeats 0");
  }
  (void)s86;
  // scatter
  auto sdn = [&](int64_t* uw, int64_t* ins, int64_t* s2o) {
    hlx_scatter_dimension_numbers_t dn = {};
    dn.update_window_dims = uw;
    dn.num_update_window_dims = 1;
    dn.inserted_window_dims = ins;
    dn.num_inserted_window_dims = 1;
    dn.scatter_dims_to_operand_dims = s2o;
    dn.num_scatter_dims_to_operand_dims = 1;
    dn.index_vector_dim = 1;
    return dn;
  };
  int64_t uw = 1, ins = 0, s2o = 0;
  auto scatter = [&](hlx_scatter_dimension_numbers_t dn, std::vector<int64_t> ud,
                     hlx_element_type_t ut, const hlx_computation_t* c,
                     const char* want) {
    Builder bb;
    uint32_t x = bb.Param(0, F32(), {3, 3}), ix = bb.Param(1, I32(), {2, 1});
    uint32_t up = bb.Param(2, ut, ud), r;
    ExpectLatched(bb, hlx_builder_scatter(bb.b, x, ix, up, c, &dn, false, false, &r),
                  want);
  };
  scatter(sdn(&uw, &ins, &s2o), {2, 3}, I32(), add.get(),
          "scatter: updates element type i32 differs from the operand's f32");
  scatter(sdn(&uw, &ins, &s2o), {2, 3, 1}, F32(), add.get(),
          "scatter: updates have rank 3, but need 2");
  scatter(sdn(&uw, &ins, &s2o), {2, 4}, F32(), add.get(),
          "scatter: updates dimension 1 has size 4, more than operand dimension 1's 3");
  scatter(sdn(&uw, &ins, &s2o), {3, 3}, F32(), add.get(),
          "scatter: updates dimension 0 has size 3, but scatter_indices dimension 0 has 2");
  {
    auto dn = sdn(&uw, &ins, &s2o);
    dn.num_inserted_window_dims = 0;
    scatter(dn, {2, 3}, F32(), add.get(),
            "scatter: update_window_dims (1) + inserted_window_dims (0) + input_batching_dims (0) must equal the operand rank 2");
  }
  {
    auto dn = sdn(&uw, &ins, &s2o);
    dn.num_scatter_dims_to_operand_dims = 0;
    scatter(dn, {2, 3}, F32(), add.get(),
            "scatter: scatter_dims_to_operand_dims has 0 entries, but indices have 1 components");
  }
  {
    Comp lt(CompareComputation(HLX_COMPARE_LT, F32()));
    scatter(sdn(&uw, &ins, &s2o), {2, 3}, F32(), lt.get(),
            "scatter: the update_computation must return a rank-0 f32");
  }
  // dynamic slices
  auto dyn = [&](std::function<hlx_status_t(Builder&, uint32_t, uint32_t*)> f,
                 const char* want) {
    Builder bb;
    uint32_t x = bb.F({4, 3}, Iota(12)), r;
    ExpectLatched(bb, f(bb, x, &r), want);
  };
  dyn([](Builder& bb, uint32_t x, uint32_t* o) {
    uint32_t s = bb.Scalar(I32(), 0);
    int64_t z = 1;
    return hlx_builder_dynamic_slice(bb.b, x, &s, &z, 1, o);
  }, "dynamic_slice: 1 start indices for an operand of rank 2");
  dyn([](Builder& bb, uint32_t x, uint32_t* o) {
    uint32_t s[2] = {bb.Scalar(I32(), 0), bb.Scalar(I32(), 0)};
    int64_t z[2] = {5, 1};
    return hlx_builder_dynamic_slice(bb.b, x, s, z, 2, o);
  }, "dynamic_slice: slice_sizes[0] = 5 is not in [0, 4]");
  dyn([](Builder& bb, uint32_t x, uint32_t* o) {
    uint32_t s[2] = {bb.Scalar(I32(), 0), bb.Scalar(F32(), 0)};
    int64_t z[2] = {1, 1};
    return hlx_builder_dynamic_slice(bb.b, x, s, z, 2, o);
  }, "dynamic_slice: start index 1 must be a rank-0 integer");
  dyn([](Builder& bb, uint32_t x, uint32_t* o) {
    uint32_t s[2] = {bb.Scalar(I32(), 0), bb.Scalar(I64(), 0)};
    int64_t z[2] = {1, 1};
    return hlx_builder_dynamic_slice(bb.b, x, s, z, 2, o);
  }, "dynamic_slice: start indices must share one element type");
  dyn([](Builder& bb, uint32_t x, uint32_t* o) {
    uint32_t s[2] = {bb.Scalar(I32(), 0), bb.Scalar(I32(), 0)};
    uint32_t u = bb.F({5, 1}, {1, 2, 3, 4, 5});
    return hlx_builder_dynamic_update_slice(bb.b, x, u, s, 2, o);
  }, "dynamic_update_slice: update dimension 0 has size 5, more than the operand's 4");
  dyn([](Builder& bb, uint32_t x, uint32_t* o) {
    uint32_t s[2] = {bb.Scalar(I32(), 0), bb.Scalar(I32(), 0)};
    uint32_t u = bb.I({1, 1}, {1});
    return hlx_builder_dynamic_update_slice(bb.b, x, u, s, 2, o);
  }, "dynamic_update_slice: update must have the operand's element type and rank");
}

}  // namespace
