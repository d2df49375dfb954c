// Reference gather / scatter kernels against hand-computed values: the
// spec's examples (batching dims included), clamping, implicit index vector
// dims, every index type, out-of-bounds updates, duplicate indices in
// row-major order, NaN and sub-word dtypes.
#include <gtest/gtest.h>

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

}  // namespace
