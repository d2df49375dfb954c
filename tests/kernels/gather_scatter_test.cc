// Reference gather / scatter kernels against hand-computed values: the
// spec's examples (batching dims included), clamping, implicit index vector
// dims, every index type, out-of-bounds updates, duplicate indices in
// row-major order, NaN and sub-word dtypes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <tuple>
#include <vector>

#include "base/float_formats.h"
#include "kernels/gather_scatter.h"

namespace {

template <typename T>
void SetList(int64_t* dst, int32_t* n, std::initializer_list<T> v) {
  int32_t i = 0;
  for (T x : v) dst[i++] = (int64_t)x;
  if (n) *n = i;
}

void SetDims(int64_t* dst, int32_t* rank, std::initializer_list<int64_t> v) {
  SetList(dst, rank, v);
}

std::vector<int64_t> Iota(int64_t n, int64_t start = 1) {
  std::vector<int64_t> v((size_t)n);
  for (int64_t i = 0; i < n; i++) v[(size_t)i] = start + i;
  return v;
}

// The spec's gather example: batching dims, index_vector_dim 3, one start
// index out of range (clamped).
hlx_gather_params_t SpecGather() {
  hlx_gather_params_t p = {};
  SetDims(p.operand_dims, &p.operand_rank, {2, 3, 4, 2});
  SetDims(p.indices_dims, &p.indices_rank, {2, 2, 3, 2});
  p.index_dtype = HLX_DTYPE_S64;
  p.index_vector_dim = 3;
  SetList(p.offset_dims, &p.num_offset_dims, {3, 4});
  SetList(p.collapsed_slice_dims, &p.num_collapsed, {1});
  SetList(p.operand_batching_dims, &p.num_batching, {0});
  SetList<int64_t>(p.start_indices_batching_dims, nullptr, {1});
  SetList(p.start_index_map, &p.num_start_index_map, {2, 1});
  SetList<int64_t>(p.slice_sizes, nullptr, {1, 1, 2, 2});
  return p;
}

const std::vector<int64_t> kSpecIndices = {0, 0, 1, 0, 2, 1, 0, 1, 1, 1, 0, 9,
                                           0, 0, 2, 1, 2, 2, 1, 2, 0, 1, 1, 0};

TEST(Gather, SpecExampleWithBatchingDims) {
  hlx_gather_params_t p = SpecGather();
  int64_t dims[HLX_GS_MAX_RANK];
  ASSERT_EQ(hlx_gather_result_shape(&p, dims), 5);
  EXPECT_EQ(std::vector<int64_t>(dims, dims + 5),
            (std::vector<int64_t>{2, 2, 3, 2, 2}));
  std::vector<int32_t> operand(48);
  for (int i = 0; i < 48; i++) operand[(size_t)i] = i + 1;
  std::vector<int32_t> out(48, -1);
  hlx_ref_gather(&p, 4, operand.data(), kSpecIndices.data(), out.data());
  const std::vector<int32_t> want = {
      1,  2,  3,  4,  3,  4,  5,  6,  13, 14, 15, 16, 33, 34, 35, 36,
      35, 36, 37, 38, 41, 42, 43, 44, 1,  2,  3,  4,  13, 14, 15, 16,
      21, 22, 23, 24, 43, 44, 45, 46, 33, 34, 35, 36, 27, 28, 29, 30};
  EXPECT_EQ(out, want);
}

// interpret/gather.mlir's first program: no batching, [0, 9] clamps to 2.
TEST(Gather, ClampsStartIndices) {
  hlx_gather_params_t p = {};
  SetDims(p.operand_dims, &p.operand_rank, {3, 4, 2});
  SetDims(p.indices_dims, &p.indices_rank, {2, 3, 2});
  p.index_dtype = HLX_DTYPE_S32;
  p.index_vector_dim = 2;
  SetList(p.offset_dims, &p.num_offset_dims, {2, 3});
  SetList(p.collapsed_slice_dims, &p.num_collapsed, {0});
  SetList(p.start_index_map, &p.num_start_index_map, {1, 0});
  SetList<int64_t>(p.slice_sizes, nullptr, {1, 2, 2});
  std::vector<int64_t> operand = Iota(24);
  std::vector<int32_t> idx = {0, 0, 1, 0, 2, 1, 0, 1, 1, 1, 0, 9};
  std::vector<int64_t> out(24, -1);
  hlx_ref_gather(&p, 8, operand.data(), idx.data(), out.data());
  const std::vector<int64_t> want = {1,  2,  3,  4,  3,  4,  5,  6,
                                     13, 14, 15, 16, 9,  10, 11, 12,
                                     11, 12, 13, 14, 17, 18, 19, 20};
  EXPECT_EQ(out, want);
}

// take along axis 0 of a 5x3 matrix with index_vector_dim == rank (each
// index a 1-vector), negative and too-large indices clamped, for every
// index type.
template <typename I>
std::vector<float> Take(std::vector<I> idx, hlx_dtype_t t) {
  hlx_gather_params_t p = {};
  SetDims(p.operand_dims, &p.operand_rank, {5, 3});
  p.indices_rank = 1;
  p.indices_dims[0] = (int64_t)idx.size();
  p.index_dtype = t;
  p.index_vector_dim = 1;
  SetList(p.offset_dims, &p.num_offset_dims, {1});
  SetList(p.collapsed_slice_dims, &p.num_collapsed, {0});
  SetList(p.start_index_map, &p.num_start_index_map, {0});
  SetList<int64_t>(p.slice_sizes, nullptr, {1, 3});
  std::vector<float> operand(15);
  for (int i = 0; i < 15; i++) operand[(size_t)i] = (float)(10 * (i / 3) + i % 3);
  std::vector<float> out(idx.size() * 3, -1.0f);
  hlx_ref_gather(&p, 4, operand.data(), idx.data(), out.data());
  return out;
}

TEST(Gather, ImplicitIndexVectorDimEveryIndexType) {
  const std::vector<float> want = {30, 31, 32, 0, 1, 2, 40, 41, 42};
  EXPECT_EQ(Take<int8_t>({3, -1, 7}, HLX_DTYPE_S8), want);
  EXPECT_EQ(Take<int16_t>({3, -100, 700}, HLX_DTYPE_S16), want);
  EXPECT_EQ(Take<int32_t>({3, INT32_MIN, INT32_MAX}, HLX_DTYPE_S32), want);
  EXPECT_EQ(Take<int64_t>({3, INT64_MIN, INT64_MAX}, HLX_DTYPE_S64), want);
  EXPECT_EQ(Take<int8_t>({3, -2, 7}, HLX_DTYPE_S4), want);  // one per byte
  const std::vector<float> want_u = {30, 31, 32, 0, 1, 2, 40, 41, 42};
  EXPECT_EQ(Take<uint8_t>({3, 0, 255}, HLX_DTYPE_U8), want_u);
  EXPECT_EQ(Take<uint16_t>({3, 0, 65535}, HLX_DTYPE_U16), want_u);
  EXPECT_EQ(Take<uint32_t>({3, 0, 4000000000u}, HLX_DTYPE_U32), want_u);
  // Above INT64_MAX: still clamps to the last row, never wraps negative.
  EXPECT_EQ(Take<uint64_t>({3, 0, UINT64_MAX}, HLX_DTYPE_U64), want_u);
}

TEST(Gather, EmptyBatchWritesNothing) {
  hlx_gather_params_t p = {};
  SetDims(p.operand_dims, &p.operand_rank, {4});
  SetDims(p.indices_dims, &p.indices_rank, {0, 1});
  p.index_dtype = HLX_DTYPE_S32;
  p.index_vector_dim = 1;
  SetList(p.offset_dims, &p.num_offset_dims, {1});
  SetList(p.start_index_map, &p.num_start_index_map, {0});
  SetList<int64_t>(p.slice_sizes, nullptr, {2});
  int64_t dims[HLX_GS_MAX_RANK];
  ASSERT_EQ(hlx_gather_result_shape(&p, dims), 2);
  EXPECT_EQ(dims[0], 0);
  EXPECT_EQ(dims[1], 2);
  float operand[4] = {1, 2, 3, 4};
  int32_t idx[1] = {0};
  float sentinel = 7;
  hlx_ref_gather(&p, 4, operand, idx, &sentinel);
  EXPECT_EQ(sentinel, 7);
}

// Offset dims before the batch dim in the result, index vector dim first in
// start_indices; a window of the full operand width with odd sizes.
TEST(Gather, OffsetDimsFirstAndIndexVectorDimZero) {
  hlx_gather_params_t p = {};
  SetDims(p.operand_dims, &p.operand_rank, {3, 5});
  SetDims(p.indices_dims, &p.indices_rank, {2, 3});  // [2 coords, 3 batch]
  p.index_dtype = HLX_DTYPE_S32;
  p.index_vector_dim = 0;
  SetList(p.offset_dims, &p.num_offset_dims, {0, 1});
  SetList(p.start_index_map, &p.num_start_index_map, {0, 1});
  SetList<int64_t>(p.slice_sizes, nullptr, {2, 3});
  int64_t dims[HLX_GS_MAX_RANK];
  ASSERT_EQ(hlx_gather_result_shape(&p, dims), 3);
  EXPECT_EQ(std::vector<int64_t>(dims, dims + 3),
            (std::vector<int64_t>{2, 3, 3}));
  std::vector<int16_t> operand(15);
  for (int i = 0; i < 15; i++) operand[(size_t)i] = (int16_t)i;
  // starts (row, col): (0,0), (1,2), (5,4) -> clamped to (1,2)
  int32_t idx[6] = {0, 1, 5, 0, 2, 4};
  std::vector<int16_t> out(18, -1);
  hlx_ref_gather(&p, 2, operand.data(), idx, out.data());
  // out[i][j][b] = operand[start_b.row + i][start_b.col + j]
  std::vector<int16_t> want(18);
  const int rows[3] = {0, 1, 1}, cols[3] = {0, 2, 2};
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++)
      for (int b = 0; b < 3; b++)
        want[(size_t)(i * 9 + j * 3 + b)] =
            (int16_t)((rows[b] + i) * 5 + cols[b] + j);
  EXPECT_EQ(out, want);
}

// ---- scatter -------------------------------------------------------------

hlx_scatter_params_t SpecScatter() {
  hlx_scatter_params_t p = {};
  SetDims(p.input_dims, &p.input_rank, {2, 3, 4, 2});
  SetDims(p.indices_dims, &p.indices_rank, {2, 2, 3, 2});
  p.index_dtype = HLX_DTYPE_S64;
  p.index_vector_dim = 3;
  SetDims(p.update_dims, &p.update_rank, {2, 2, 3, 2, 2});
  SetList(p.update_window_dims, &p.num_update_window_dims, {3, 4});
  SetList(p.inserted_window_dims, &p.num_inserted, {1});
  SetList(p.input_batching_dims, &p.num_batching, {0});
  SetList<int64_t>(p.scatter_indices_batching_dims, nullptr, {1});
  SetList(p.scatter_dims_to_operand_dims, &p.num_scatter_dims, {2, 1});
  return p;
}

hlx_scatter_combiner_t Comb(hlx_reduce_op_t op) {
  hlx_scatter_combiner_t c = {};
  c.replace = false;
  c.op = op;
  return c;
}

hlx_scatter_combiner_t Replace() {
  hlx_scatter_combiner_t c = {};
  c.replace = true;
  return c;
}

TEST(Scatter, SpecExampleAddWithBatchingDims) {
  hlx_scatter_params_t p = SpecScatter();
  std::vector<int64_t> out = Iota(48);
  std::vector<int64_t> upd(48, 1);
  ASSERT_TRUE(hlx_ref_scatter(&p, Comb(HLX_REDUCE_ADD), HLX_DTYPE_S64,
                              kSpecIndices.data(), upd.data(), out.data()));
  const std::vector<int64_t> want = {
      3,  4,  6,  7,  6,  7,  7,  8,  9,  10, 11, 12, 15, 16, 17, 18,
      17, 18, 19, 20, 22, 23, 24, 25, 25, 26, 28, 29, 30, 31, 31, 32,
      35, 36, 38, 39, 38, 39, 39, 40, 41, 42, 44, 45, 46, 47, 47, 48};
  EXPECT_EQ(out, want);
}

// interpret/scatter.mlir's first program: [0, 9] lands its window at
// columns 9.. of row 0: fully out of bounds, skipped.
TEST(Scatter, InterpretExample) {
  hlx_scatter_params_t p = {};
  SetDims(p.input_dims, &p.input_rank, {3, 4, 2});
  SetDims(p.indices_dims, &p.indices_rank, {2, 3, 2});
  p.index_dtype = HLX_DTYPE_S64;
  p.index_vector_dim = 2;
  SetDims(p.update_dims, &p.update_rank, {2, 3, 2, 2});
  SetList(p.update_window_dims, &p.num_update_window_dims, {2, 3});
  SetList(p.inserted_window_dims, &p.num_inserted, {0});
  SetList(p.scatter_dims_to_operand_dims, &p.num_scatter_dims, {1, 0});
  std::vector<int64_t> idx = {0, 2, 1, 0, 2, 1, 0, 1, 1, 0, 0, 9};
  std::vector<int64_t> out = Iota(24);
  std::vector<int64_t> upd(24, 1);
  ASSERT_TRUE(hlx_ref_scatter(&p, Comb(HLX_REDUCE_ADD), HLX_DTYPE_S64,
                              idx.data(), upd.data(), out.data()));
  const std::vector<int64_t> want = {1,  2,  5,  6,  7,  8,  7,  8,
                                     10, 11, 12, 13, 14, 15, 16, 17,
                                     18, 19, 20, 21, 21, 22, 23, 24};
  EXPECT_EQ(out, want);
}

// 1-D input of 5, windows of 3: each update element is kept or skipped on
// its own full index (start 3 -> elements 3, 4 written, the third skipped;
// start -1 -> the first skipped).
TEST(Scatter, OutOfBoundsElementsSkippedOneByOne) {
  hlx_scatter_params_t p = {};
  SetDims(p.input_dims, &p.input_rank, {5});
  SetDims(p.indices_dims, &p.indices_rank, {2});
  p.index_dtype = HLX_DTYPE_S32;
  p.index_vector_dim = 1;  // == rank: implicit 1-vectors
  SetDims(p.update_dims, &p.update_rank, {2, 3});
  SetList(p.update_window_dims, &p.num_update_window_dims, {1});
  SetList(p.scatter_dims_to_operand_dims, &p.num_scatter_dims, {0});
  int32_t idx[2] = {3, -1};
  float upd[6] = {10, 20, 30, 40, 50, 60};
  float out[5] = {0, 0, 0, 0, 0};
  ASSERT_TRUE(hlx_ref_scatter(&p, Replace(), HLX_DTYPE_F32, idx, upd, out));
  EXPECT_EQ(std::vector<float>(out, out + 5),
            (std::vector<float>{50, 60, 0, 10, 20}));
  // Far out of range either way (and INT32_MIN): nothing written.
  int32_t far[2] = {INT32_MIN, 5};
  float out2[5] = {1, 2, 3, 4, 5};
  ASSERT_TRUE(hlx_ref_scatter(&p, Comb(HLX_REDUCE_ADD), HLX_DTYPE_F32, far,
                              upd, out2));
  EXPECT_EQ(std::vector<float>(out2, out2 + 5),
            (std::vector<float>{1, 2, 3, 4, 5}));
}

// Inserted dim out of bounds skips the element even though the window fits.
TEST(Scatter, InsertedDimOutOfBoundsAndHugeUnsignedIndex) {
  hlx_scatter_params_t p = {};
  SetDims(p.input_dims, &p.input_rank, {3, 2});
  SetDims(p.indices_dims, &p.indices_rank, {3, 1});
  p.index_dtype = HLX_DTYPE_U64;
  p.index_vector_dim = 1;
  SetDims(p.update_dims, &p.update_rank, {3, 2});
  SetList(p.update_window_dims, &p.num_update_window_dims, {1});
  SetList(p.inserted_window_dims, &p.num_inserted, {0});
  SetList(p.scatter_dims_to_operand_dims, &p.num_scatter_dims, {0});
  uint64_t idx[3] = {2, 3, UINT64_MAX};
  int32_t upd[6] = {1, 2, 3, 4, 5, 6};
  int32_t out[6] = {0, 0, 0, 0, 0, 0};
  ASSERT_TRUE(hlx_ref_scatter(&p, Comb(HLX_REDUCE_ADD), HLX_DTYPE_S32, idx,
                              upd, out));
  EXPECT_EQ(std::vector<int32_t>(out, out + 6),
            (std::vector<int32_t>{0, 0, 0, 0, 1, 2}));
}

// Duplicate indices: updates apply in row-major order of the update index,
// so the last replace wins and f32 sums accumulate in that order.
TEST(Scatter, DuplicatesInRowMajorOrder) {
  hlx_scatter_params_t p = {};
  SetDims(p.input_dims, &p.input_rank, {3});
  SetDims(p.indices_dims, &p.indices_rank, {4, 1});
  p.index_dtype = HLX_DTYPE_S32;
  p.index_vector_dim = 1;
  SetDims(p.update_dims, &p.update_rank, {4});
  SetList(p.inserted_window_dims, &p.num_inserted, {0});
  SetList(p.scatter_dims_to_operand_dims, &p.num_scatter_dims, {0});
  int32_t idx[4] = {1, 1, 2, 1};
  float upd[4] = {1e8f, 1.0f, 5.0f, -1e8f};
  float out[3] = {0, 0, 0};
  ASSERT_TRUE(hlx_ref_scatter(&p, Replace(), HLX_DTYPE_F32, idx, upd, out));
  EXPECT_EQ(std::vector<float>(out, out + 3), (std::vector<float>{0, -1e8f, 5}));
  float sum[3] = {0, 0, 0};
  ASSERT_TRUE(hlx_ref_scatter(&p, Comb(HLX_REDUCE_ADD), HLX_DTYPE_F32, idx,
                              upd, sum));
  // ((0 + 1e8) + 1) + -1e8 in f32 = 0 (the 1 is absorbed).
  EXPECT_EQ(std::vector<float>(sum, sum + 3), (std::vector<float>{0, 0, 5}));
}

// Window dim outermost, scatter dim innermost: the walk interleaves scatter
// positions inside each window row (row-major over the update index).
TEST(Scatter, VisitOrderWindowDimOutermost) {
  hlx_scatter_params_t p = {};
  SetDims(p.input_dims, &p.input_rank, {4, 3});
  SetDims(p.indices_dims, &p.indices_rank, {2});
  p.index_dtype = HLX_DTYPE_S32;
  p.index_vector_dim = 1;
  SetDims(p.update_dims, &p.update_rank, {3, 2});  // [window col, scatter]
  SetList(p.update_window_dims, &p.num_update_window_dims, {0});
  SetList(p.inserted_window_dims, &p.num_inserted, {0});
  SetList(p.scatter_dims_to_operand_dims, &p.num_scatter_dims, {0});
  int32_t idx[2] = {2, 0};
  std::vector<std::tuple<int64_t, int64_t, int64_t>> seen;
  auto visit = [](void* ctx, int64_t r, int64_t u, int64_t n) {
    static_cast<std::vector<std::tuple<int64_t, int64_t, int64_t>>*>(ctx)
        ->emplace_back(r, u, n);
    return 0;
  };
  EXPECT_EQ(hlx_ref_scatter_visit(&p, idx, visit, &seen), 0);
  const std::vector<std::tuple<int64_t, int64_t, int64_t>> want = {
      {6, 0, 1}, {0, 1, 1}, {7, 2, 1}, {1, 3, 1}, {8, 4, 1}, {2, 5, 1}};
  EXPECT_EQ(seen, want);
  // Transposed updates still land right.
  int32_t upd[6] = {1, 2, 3, 4, 5, 6};
  int32_t out[12] = {};
  ASSERT_TRUE(hlx_ref_scatter(&p, Replace(), HLX_DTYPE_S32, idx, upd, out));
  EXPECT_EQ(std::vector<int32_t>(out, out + 12),
            (std::vector<int32_t>{2, 4, 6, 0, 0, 0, 1, 3, 5, 0, 0, 0}));
}

// Runs along a contiguous window are visited as one call with a partial
// range when the window hangs over the edge; a nonzero return stops.
TEST(Scatter, VisitRunsAndStops) {
  hlx_scatter_params_t p = {};
  SetDims(p.input_dims, &p.input_rank, {2, 7});
  SetDims(p.indices_dims, &p.indices_rank, {3, 2});
  p.index_dtype = HLX_DTYPE_S16;
  p.index_vector_dim = 1;
  SetDims(p.update_dims, &p.update_rank, {3, 4});
  SetList(p.update_window_dims, &p.num_update_window_dims, {1});
  SetList(p.inserted_window_dims, &p.num_inserted, {0});
  SetList(p.scatter_dims_to_operand_dims, &p.num_scatter_dims, {0, 1});
  int16_t idx[6] = {1, 5, 0, -2, 1, 1};
  std::vector<std::tuple<int64_t, int64_t, int64_t>> seen;
  auto visit = [](void* ctx, int64_t r, int64_t u, int64_t n) {
    auto* v = static_cast<std::vector<std::tuple<int64_t, int64_t, int64_t>>*>(
        ctx);
    v->emplace_back(r, u, n);
    return v->size() == 2 ? 42 : 0;
  };
  EXPECT_EQ(hlx_ref_scatter_visit(&p, idx, visit, &seen), 42);
  const std::vector<std::tuple<int64_t, int64_t, int64_t>> want = {
      {12, 0, 2}, {0, 6, 2}};
  EXPECT_EQ(seen, want);
}

TEST(Scatter, MaxMinPropagateNaNAndMul) {
  hlx_scatter_params_t p = {};
  SetDims(p.input_dims, &p.input_rank, {3});
  SetDims(p.indices_dims, &p.indices_rank, {3, 1});
  p.index_dtype = HLX_DTYPE_S8;
  p.index_vector_dim = 1;
  SetDims(p.update_dims, &p.update_rank, {3});
  SetList(p.inserted_window_dims, &p.num_inserted, {0});
  SetList(p.scatter_dims_to_operand_dims, &p.num_scatter_dims, {0});
  int8_t idx[3] = {0, 1, 1};
  const double nan = std::numeric_limits<double>::quiet_NaN();
  double upd[3] = {nan, 4, -2};
  double mx[3] = {1, 1, 1};
  ASSERT_TRUE(
      hlx_ref_scatter(&p, Comb(HLX_REDUCE_MAX), HLX_DTYPE_F64, idx, upd, mx));
  EXPECT_TRUE(std::isnan(mx[0]));
  EXPECT_EQ(mx[1], 4);
  EXPECT_EQ(mx[2], 1);
  double mn[3] = {1, 1, 1};
  ASSERT_TRUE(
      hlx_ref_scatter(&p, Comb(HLX_REDUCE_MIN), HLX_DTYPE_F64, idx, upd, mn));
  EXPECT_TRUE(std::isnan(mn[0]));
  EXPECT_EQ(mn[1], -2);
  double mul[3] = {2, 3, 5};
  ASSERT_TRUE(
      hlx_ref_scatter(&p, Comb(HLX_REDUCE_MUL), HLX_DTYPE_F64, idx, upd, mul));
  EXPECT_TRUE(std::isnan(mul[0]));
  EXPECT_EQ(mul[1], -24);
  EXPECT_EQ(mul[2], 5);
}

TEST(Scatter, SmallTypesWrapRoundAndPred) {
  hlx_scatter_params_t p = {};
  SetDims(p.input_dims, &p.input_rank, {2});
  SetDims(p.indices_dims, &p.indices_rank, {3, 1});
  p.index_dtype = HLX_DTYPE_U8;
  p.index_vector_dim = 1;
  SetDims(p.update_dims, &p.update_rank, {3});
  SetList(p.inserted_window_dims, &p.num_inserted, {0});
  SetList(p.scatter_dims_to_operand_dims, &p.num_scatter_dims, {0});
  uint8_t idx[3] = {0, 0, 1};
  int8_t i8[2] = {120, 0};
  int8_t u8[3] = {5, 5, -3};
  ASSERT_TRUE(
      hlx_ref_scatter(&p, Comb(HLX_REDUCE_ADD), HLX_DTYPE_S8, idx, u8, i8));
  EXPECT_EQ(i8[0], -126);  // 130 wraps
  EXPECT_EQ(i8[1], -3);
  // f16: 2048 + 1 + 1 rounds each step (ties to even) and stays 2048.
  uint16_t h[2] = {hlx_f32_to_f16(2048.0f), hlx_f32_to_f16(0.5f)};
  uint16_t hu[3] = {hlx_f32_to_f16(1.0f), hlx_f32_to_f16(1.0f),
                    hlx_f32_to_f16(0.25f)};
  ASSERT_TRUE(
      hlx_ref_scatter(&p, Comb(HLX_REDUCE_ADD), HLX_DTYPE_F16, idx, hu, h));
  EXPECT_EQ(hlx_f16_to_f32(h[0]), 2048.0f);
  EXPECT_EQ(hlx_f16_to_f32(h[1]), 0.75f);
  // bf16: 256 + 1 + 1 also stays 256.
  uint16_t b[2] = {hlx_f32_to_bf16(256.0f), hlx_f32_to_bf16(1.0f)};
  uint16_t bu[3] = {hlx_f32_to_bf16(1.0f), hlx_f32_to_bf16(1.0f),
                    hlx_f32_to_bf16(2.0f)};
  ASSERT_TRUE(
      hlx_ref_scatter(&p, Comb(HLX_REDUCE_ADD), HLX_DTYPE_BF16, idx, bu, b));
  EXPECT_EQ(hlx_bf16_to_f32(b[0]), 256.0f);
  EXPECT_EQ(hlx_bf16_to_f32(b[1]), 3.0f);
  // pred: add is or, mul is and.
  uint8_t pr[2] = {0, 1};
  uint8_t pu[3] = {0, 1, 0};
  ASSERT_TRUE(
      hlx_ref_scatter(&p, Comb(HLX_REDUCE_ADD), HLX_DTYPE_PRED, idx, pu, pr));
  EXPECT_EQ(pr[0], 1);
  EXPECT_EQ(pr[1], 1);
  uint8_t pm[2] = {1, 1};
  ASSERT_TRUE(
      hlx_ref_scatter(&p, Comb(HLX_REDUCE_MUL), HLX_DTYPE_PRED, idx, pu, pm));
  EXPECT_EQ(pm[0], 0);
  EXPECT_EQ(pm[1], 0);
  // u32 xor / and / or.
  uint32_t x[2] = {0xF0, 0xFF};
  uint32_t xu[3] = {0x0F, 0xFF, 0x0F};
  ASSERT_TRUE(
      hlx_ref_scatter(&p, Comb(HLX_REDUCE_XOR), HLX_DTYPE_U32, idx, xu, x));
  EXPECT_EQ(x[0], 0x00u);
  EXPECT_EQ(x[1], 0xF0u);
}

TEST(Scatter, ComplexAddAndMul) {
  hlx_scatter_params_t p = {};
  SetDims(p.input_dims, &p.input_rank, {2});
  SetDims(p.indices_dims, &p.indices_rank, {2, 1});
  p.index_dtype = HLX_DTYPE_S64;
  p.index_vector_dim = 1;
  SetDims(p.update_dims, &p.update_rank, {2});
  SetList(p.inserted_window_dims, &p.num_inserted, {0});
  SetList(p.scatter_dims_to_operand_dims, &p.num_scatter_dims, {0});
  int64_t idx[2] = {1, 1};
  float c[4] = {1, 2, 3, 4};     // (1+2i), (3+4i)
  float cu[4] = {0, 1, 0, 1};    // i, i
  ASSERT_TRUE(
      hlx_ref_scatter(&p, Comb(HLX_REDUCE_MUL), HLX_DTYPE_C64, idx, cu, c));
  // (3+4i) * i * i = -(3+4i)
  EXPECT_EQ(std::vector<float>(c, c + 4), (std::vector<float>{1, 2, -3, -4}));
  ASSERT_TRUE(
      hlx_ref_scatter(&p, Comb(HLX_REDUCE_ADD), HLX_DTYPE_C64, idx, cu, c));
  EXPECT_EQ(std::vector<float>(c, c + 4), (std::vector<float>{1, 2, -3, -2}));
}

TEST(Scatter, SupportedCombinations) {
  EXPECT_TRUE(hlx_scatter_supported(Replace(), HLX_DTYPE_C128));
  EXPECT_TRUE(hlx_scatter_supported(Replace(), HLX_DTYPE_F8E4M3FN));
  EXPECT_TRUE(hlx_scatter_supported(Comb(HLX_REDUCE_ADD), HLX_DTYPE_BF16));
  EXPECT_TRUE(hlx_scatter_supported(Comb(HLX_REDUCE_AND), HLX_DTYPE_S16));
  EXPECT_FALSE(hlx_scatter_supported(Comb(HLX_REDUCE_AND), HLX_DTYPE_F32));
  EXPECT_FALSE(hlx_scatter_supported(Replace(), HLX_DTYPE_INVALID));
  // Unsupported pairs leave the output alone.
  hlx_scatter_params_t p = {};
  SetDims(p.input_dims, &p.input_rank, {1});
  SetDims(p.indices_dims, &p.indices_rank, {1});
  p.index_dtype = HLX_DTYPE_S32;
  p.index_vector_dim = 0;
  SetList(p.update_window_dims, &p.num_update_window_dims, {0});
  SetDims(p.update_dims, &p.update_rank, {1});
  SetList(p.scatter_dims_to_operand_dims, &p.num_scatter_dims, {0});
  int32_t idx[1] = {0};
  float u[1] = {3}, o[1] = {1};
  EXPECT_FALSE(
      hlx_ref_scatter(&p, Comb(HLX_REDUCE_AND), HLX_DTYPE_F32, idx, u, o));
  EXPECT_EQ(o[0], 1);
  EXPECT_TRUE(hlx_ref_scatter(&p, Replace(), HLX_DTYPE_F32, idx, u, o));
  EXPECT_EQ(o[0], 3);
}

TEST(Scatter, EmptyUpdatesLeaveInput) {
  hlx_scatter_params_t p = {};
  SetDims(p.input_dims, &p.input_rank, {3});
  SetDims(p.indices_dims, &p.indices_rank, {0, 1});
  p.index_dtype = HLX_DTYPE_S32;
  p.index_vector_dim = 1;
  SetDims(p.update_dims, &p.update_rank, {0});
  SetList(p.inserted_window_dims, &p.num_inserted, {0});
  SetList(p.scatter_dims_to_operand_dims, &p.num_scatter_dims, {0});
  int32_t idx[1] = {0};
  int32_t u[1] = {9}, o[3] = {1, 2, 3};
  ASSERT_TRUE(hlx_ref_scatter(&p, Replace(), HLX_DTYPE_S32, idx, u, o));
  EXPECT_EQ(std::vector<int32_t>(o, o + 3), (std::vector<int32_t>{1, 2, 3}));
}

// ---- randomized: the kernels against a direct transcription of the spec --

struct Rng {
  uint64_t s;
  int64_t Next(int64_t lo, int64_t hi) {  // inclusive
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (int64_t)((s >> 33) % (uint64_t)(hi - lo + 1));
  }
};

std::vector<int64_t> Strides(const std::vector<int64_t>& d) {
  std::vector<int64_t> s(d.size());
  int64_t a = 1;
  for (size_t i = d.size(); i-- > 0;) {
    s[i] = a;
    a *= d[i];
  }
  return s;
}

int64_t Count(const std::vector<int64_t>& d) {
  int64_t n = 1;
  for (int64_t x : d) n *= x;
  return n;
}

std::vector<int64_t> Unravel(int64_t i, const std::vector<int64_t>& d) {
  std::vector<int64_t> idx(d.size());
  for (size_t k = d.size(); k-- > 0;) {
    idx[k] = i % d[k];
    i /= d[k];
  }
  return idx;
}

bool Has(const std::vector<int64_t>& l, int64_t v) {
  for (int64_t x : l)
    if (x == v) return true;
  return false;
}

// A random valid configuration shared by gather and scatter: operand dims,
// batching / collapsed / window dims, start_index_map, indices shape.
struct Config {
  std::vector<int64_t> operand, batching, collapsed, window, sim, indices,
      idx_batching;
  int64_t ivd;
  std::vector<int64_t> batch_only;  // indices dims except ivd
};

Config RandomConfig(Rng& r) {
  Config c;
  int64_t rank = r.Next(1, 4);
  for (int64_t d = 0; d < rank; d++) c.operand.push_back(r.Next(1, 4));
  for (int64_t d = 0; d < rank; d++) {
    int64_t k = r.Next(0, 3);
    if (k == 0)
      c.batching.push_back(d);
    else if (k == 1)
      c.collapsed.push_back(d);
    else
      c.window.push_back(d);
  }
  for (int64_t d = 0; d < rank; d++)
    if (!Has(c.batching, d) && r.Next(0, 1)) c.sim.push_back(d);
  for (size_t i = c.sim.size(); i > 1; i--)  // shuffle
    std::swap(c.sim[i - 1], c.sim[(size_t)r.Next(0, (int64_t)i - 1)]);
  // Batch dims of the indices: the batching dims plus 0-2 free ones, in a
  // random order.
  std::vector<int64_t> order;
  for (size_t i = 0; i < c.batching.size(); i++) order.push_back((int64_t)i);
  int64_t free_dims = r.Next(0, 2);
  for (int64_t i = 0; i < free_dims; i++) order.push_back(-1);
  for (size_t i = order.size(); i > 1; i--)
    std::swap(order[i - 1], order[(size_t)r.Next(0, (int64_t)i - 1)]);
  bool implicit = c.sim.size() == 1 && r.Next(0, 1);
  c.ivd = implicit ? (int64_t)order.size() : r.Next(0, (int64_t)order.size());
  c.idx_batching.assign(c.batching.size(), 0);
  for (size_t i = 0, pos = 0; i <= order.size(); i++) {
    if (!implicit && (int64_t)pos == c.ivd) {
      c.indices.push_back((int64_t)c.sim.size());
      pos++;
    }
    if (i == order.size()) break;
    if (order[i] >= 0) {
      c.idx_batching[(size_t)order[i]] = (int64_t)pos;
      c.indices.push_back(c.operand[(size_t)c.batching[(size_t)order[i]]]);
    } else {
      c.indices.push_back(r.Next(0, 3));
    }
    c.batch_only.push_back(c.indices.back());
    pos++;
  }
  return c;
}

std::vector<int64_t> RandomIndices(Rng& r, const Config& c) {
  int64_t maxd = 0;
  for (int64_t d : c.operand) maxd = std::max(maxd, d);
  std::vector<int64_t> v((size_t)Count(c.indices));
  for (auto& x : v) x = r.Next(-3, maxd + 2);
  return v;
}

// start_index for a batch index (indices dims except ivd).
std::vector<int64_t> StartIndex(const Config& c, const std::vector<int64_t>& idx,
                                const std::vector<int64_t>& bi) {
  std::vector<int64_t> st = Strides(c.indices);
  std::vector<int64_t> out;
  int64_t base = 0;
  for (size_t k = 0, j = 0; k < c.indices.size(); k++) {
    if ((int64_t)k == c.ivd) continue;
    base += bi[j++] * st[k];
  }
  if (c.ivd < (int64_t)c.indices.size()) {
    for (size_t k = 0; k < c.sim.size(); k++)
      out.push_back(idx[(size_t)(base + (int64_t)k * st[(size_t)c.ivd])]);
  } else {
    out.push_back(idx[(size_t)base]);
  }
  return out;
}

TEST(Randomized, GatherMatchesSpecFormula) {
  Rng r{12345};
  for (int iter = 0; iter < 400; iter++) {
    Config c = RandomConfig(r);
    std::vector<int64_t> sizes(c.operand.size());
    for (size_t d = 0; d < c.operand.size(); d++)
      sizes[d] = Has(c.window, (int64_t)d) ? r.Next(0, c.operand[d])
                                           : std::min<int64_t>(1, c.operand[d]);
    int64_t rrank = (int64_t)(c.batch_only.size() + c.window.size());
    std::vector<int64_t> offset_dims;  // random sorted subset of size |window|
    {
      std::vector<int64_t> axes;
      for (int64_t a = 0; a < rrank; a++) axes.push_back(a);
      for (size_t i = axes.size(); i > 1; i--)
        std::swap(axes[i - 1], axes[(size_t)r.Next(0, (int64_t)i - 1)]);
      offset_dims.assign(axes.begin(), axes.begin() + (long)c.window.size());
      std::sort(offset_dims.begin(), offset_dims.end());
    }
    hlx_gather_params_t p = {};
    p.operand_rank = (int32_t)c.operand.size();
    std::copy(c.operand.begin(), c.operand.end(), p.operand_dims);
    p.indices_rank = (int32_t)c.indices.size();
    std::copy(c.indices.begin(), c.indices.end(), p.indices_dims);
    p.index_dtype = HLX_DTYPE_S64;
    p.index_vector_dim = (int32_t)c.ivd;
    p.num_offset_dims = (int32_t)offset_dims.size();
    std::copy(offset_dims.begin(), offset_dims.end(), p.offset_dims);
    p.num_collapsed = (int32_t)c.collapsed.size();
    std::copy(c.collapsed.begin(), c.collapsed.end(), p.collapsed_slice_dims);
    p.num_batching = (int32_t)c.batching.size();
    std::copy(c.batching.begin(), c.batching.end(), p.operand_batching_dims);
    std::copy(c.idx_batching.begin(), c.idx_batching.end(),
              p.start_indices_batching_dims);
    p.num_start_index_map = (int32_t)c.sim.size();
    std::copy(c.sim.begin(), c.sim.end(), p.start_index_map);
    std::copy(sizes.begin(), sizes.end(), p.slice_sizes);
    int64_t rd[HLX_GS_MAX_RANK];
    ASSERT_EQ(hlx_gather_result_shape(&p, rd), rrank);
    std::vector<int64_t> rdims(rd, rd + rrank);
    std::vector<int64_t> idx = RandomIndices(r, c);
    std::vector<int32_t> operand((size_t)Count(c.operand));
    for (size_t i = 0; i < operand.size(); i++) operand[i] = (int32_t)i + 1;
    std::vector<int32_t> got((size_t)Count(rdims), -7);
    hlx_ref_gather(&p, 4, operand.data(), idx.data(), got.data());
    std::vector<int64_t> ost = Strides(c.operand);
    bool degenerate = false;  // a dropped dim of slice size 0
    for (size_t d = 0; d < sizes.size(); d++)
      if (sizes[d] == 0 && !Has(c.window, (int64_t)d)) degenerate = true;
    for (int64_t ri = 0; ri < Count(rdims); ri++) {
      std::vector<int64_t> res = Unravel(ri, rdims);
      std::vector<int64_t> bi, oi;
      for (int64_t a = 0; a < rrank; a++)
        (Has(offset_dims, a) ? oi : bi).push_back(res[(size_t)a]);
      std::vector<int64_t> start = StartIndex(c, idx, bi);
      int64_t off = 0;
      for (size_t d = 0, w = 0; d < c.operand.size(); d++) {
        int64_t v = 0;
        for (size_t k = 0; k < c.sim.size(); k++)
          if (c.sim[k] == (int64_t)d)
            v += std::min(std::max<int64_t>(start[k], 0),
                          c.operand[d] - sizes[d]);
        for (size_t i = 0; i < c.batching.size(); i++)
          if (c.batching[i] == (int64_t)d) {
            int64_t ds = c.idx_batching[i];
            v += bi[(size_t)(ds - (ds < c.ivd ? 0 : 1))];
          }
        if (Has(c.window, (int64_t)d)) v += oi[w++];
        off += v * ost[d];
      }
      int32_t want = degenerate ? 0 : operand[(size_t)off];
      ASSERT_EQ(got[(size_t)ri], want) << "iteration " << iter << " element "
                                       << ri;
    }
  }
}

TEST(Randomized, ScatterMatchesSpecFormula) {
  Rng r{777};
  for (int iter = 0; iter < 400; iter++) {
    Config c = RandomConfig(r);
    // updates: scatter dims = indices dims except ivd, window dims sized
    // up to the input's, at a random sorted subset of axes.
    int64_t urank = (int64_t)(c.batch_only.size() + c.window.size());
    std::vector<int64_t> uwd;
    {
      std::vector<int64_t> axes;
      for (int64_t a = 0; a < urank; a++) axes.push_back(a);
      for (size_t i = axes.size(); i > 1; i--)
        std::swap(axes[i - 1], axes[(size_t)r.Next(0, (int64_t)i - 1)]);
      uwd.assign(axes.begin(), axes.begin() + (long)c.window.size());
      std::sort(uwd.begin(), uwd.end());
    }
    std::vector<int64_t> udims;
    for (int64_t a = 0, w = 0, b = 0; a < urank; a++)
      udims.push_back(Has(uwd, a) ? r.Next(0, c.operand[(size_t)c.window[(size_t)w++]])
                                  : c.batch_only[(size_t)b++]);
    hlx_scatter_params_t p = {};
    p.input_rank = (int32_t)c.operand.size();
    std::copy(c.operand.begin(), c.operand.end(), p.input_dims);
    p.indices_rank = (int32_t)c.indices.size();
    std::copy(c.indices.begin(), c.indices.end(), p.indices_dims);
    p.index_dtype = HLX_DTYPE_S64;
    p.index_vector_dim = (int32_t)c.ivd;
    p.update_rank = (int32_t)urank;
    std::copy(udims.begin(), udims.end(), p.update_dims);
    p.num_update_window_dims = (int32_t)uwd.size();
    std::copy(uwd.begin(), uwd.end(), p.update_window_dims);
    p.num_inserted = (int32_t)c.collapsed.size();
    std::copy(c.collapsed.begin(), c.collapsed.end(), p.inserted_window_dims);
    p.num_batching = (int32_t)c.batching.size();
    std::copy(c.batching.begin(), c.batching.end(), p.input_batching_dims);
    std::copy(c.idx_batching.begin(), c.idx_batching.end(),
              p.scatter_indices_batching_dims);
    p.num_scatter_dims = (int32_t)c.sim.size();
    std::copy(c.sim.begin(), c.sim.end(), p.scatter_dims_to_operand_dims);
    std::vector<int64_t> idx = RandomIndices(r, c);
    std::vector<int64_t> upd((size_t)Count(udims));
    for (size_t i = 0; i < upd.size(); i++) upd[i] = (int64_t)i + 1;
    // Order-sensitive combination: out = out * 3 + u (as a region would
    // run it) via the visitor; plus the add kernel.
    std::vector<int64_t> base((size_t)Count(c.operand));
    for (size_t i = 0; i < base.size(); i++) base[i] = (int64_t)(i % 5);
    struct Ctx {
      std::vector<int64_t>* out;
      const std::vector<int64_t>* upd;
    };
    std::vector<int64_t> got = base, got_add = base;
    Ctx ctx{&got, &upd};
    hlx_ref_scatter_visit(
        &p, idx.data(),
        [](void* v, int64_t ro, int64_t uo, int64_t n) {
          Ctx* k = static_cast<Ctx*>(v);
          for (int64_t j = 0; j < n; j++)
            (*k->out)[(size_t)(ro + j)] =
                (*k->out)[(size_t)(ro + j)] * 3 + (*k->upd)[(size_t)(uo + j)];
          return 0;
        },
        &ctx);
    ASSERT_TRUE(hlx_ref_scatter(&p, Comb(HLX_REDUCE_ADD), HLX_DTYPE_S64,
                                idx.data(), upd.data(), got_add.data()));
    std::vector<int64_t> want = base, want_add = base;
    std::vector<int64_t> ist = Strides(c.operand);
    for (int64_t ui = 0; ui < Count(udims); ui++) {
      std::vector<int64_t> u = Unravel(ui, udims);
      std::vector<int64_t> si, wi;
      for (int64_t a = 0; a < urank; a++)
        (Has(uwd, a) ? wi : si).push_back(u[(size_t)a]);
      std::vector<int64_t> start = StartIndex(c, idx, si);
      int64_t off = 0;
      bool in = true;
      for (size_t d = 0, w = 0; d < c.operand.size(); d++) {
        int64_t v = 0;
        for (size_t k = 0; k < c.sim.size(); k++)
          if (c.sim[k] == (int64_t)d) v += start[k];
        for (size_t i = 0; i < c.batching.size(); i++)
          if (c.batching[i] == (int64_t)d) {
            int64_t ds = c.idx_batching[i];
            v += si[(size_t)(ds - (ds < c.ivd ? 0 : 1))];
          }
        if (Has(c.window, (int64_t)d)) v += wi[w++];
        if (v < 0 || v >= c.operand[d]) in = false;
        off += v * ist[d];
      }
      if (!in) continue;
      want[(size_t)off] = want[(size_t)off] * 3 + upd[(size_t)ui];
      want_add[(size_t)off] += upd[(size_t)ui];
    }
    ASSERT_EQ(got, want) << "iteration " << iter;
    ASSERT_EQ(got_add, want_add) << "iteration " << iter;
  }
}

}  // namespace
