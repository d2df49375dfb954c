// Embedding-pattern gather and f32 scatter-add variants
// (kernels/gather_kernels.inc) against hlx_ref_gather / hlx_ref_scatter:
// tables of 1..1000 rows, row lengths 0..100 (single elements take the
// hardware-gather path), partial rows, int32/int64 indices with negative and
// too-large values (gather clamps, scatter skips), duplicate indices
// (scatter order), index batches of rank 1 and 2 with implicit or trailing-1
// index vectors, 1/2/4/8-byte elements, NaN/Inf/denormal updates; each
// variant at its ISA and hlx_gather/hlx_scatter at every cap the CPU
// supports, plus fallbacks for forms outside the pattern.
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/dispatch.h"
#include "tests/kernels/simd_test_util.h"

namespace {

struct Case {
  int64_t rows, cols, slice;  // table [rows, cols], copy slice per row
  std::vector<int64_t> batch;  // index batch shape
  bool trailing_one;           // indices [..., 1] instead of implicit
  bool idx64;
};

std::vector<Case> Cases() {
  std::vector<Case> cs;
  std::mt19937 rng(17);
  const int64_t rows[] = {1, 5, 1000};
  const int64_t cols[] = {1, 2, 3, 8, 16, 17, 33, 64, 100};
  for (int64_t r : rows)
    for (int64_t c : cols)
      for (int k = 0; k < 2; k++) {
        Case x;
        x.rows = r;
        x.cols = c;
        x.slice = k == 0 ? c : (int64_t)(rng() % (c + 1));
        int64_t n = (int64_t)(rng() % 70);
        x.batch = rng() % 3 == 0 ? std::vector<int64_t>{n / 5 + 1, 5}
                                 : std::vector<int64_t>{n};
        x.trailing_one = rng() % 2;
        x.idx64 = rng() % 2;
        cs.push_back(x);
      }
  return cs;
}

int64_t Count(const Case& c) {
  int64_t n = 1;
  for (int64_t d : c.batch) n *= d;
  return n;
}

// Indices: mostly in range, some negative or past the end, duplicates.
std::vector<uint8_t> Indices(const Case& c, uint32_t seed) {
  std::mt19937 rng(seed);
  int64_t n = Count(c);
  std::vector<uint8_t> v(n * (c.idx64 ? 8 : 4));
  for (int64_t i = 0; i < n; i++) {
    uint32_t r = rng();
    int64_t x = r % 10 == 0 ? -(int64_t)(r % 7) - 1
                : r % 10 == 1 ? c.rows + (int64_t)(r % 5)
                : r % 10 == 2 ? 0
                              : (int64_t)(r % c.rows);
    if (c.idx64)
      memcpy(&v[i * 8], &x, 8);
    else {
      int32_t y = (int32_t)x;
      memcpy(&v[i * 4], &y, 4);
    }
  }
  return v;
}

void FillIndexShape(const Case& c, int32_t* rank, int64_t* dims,
                    int32_t* ivd) {
  *rank = (int32_t)c.batch.size();
  for (size_t d = 0; d < c.batch.size(); d++) dims[d] = c.batch[d];
  if (c.trailing_one) dims[(*rank)++] = 1;
  *ivd = c.trailing_one ? *rank - 1 : *rank;
}

hlx_gather_params_t GatherParams(const Case& c) {
  hlx_gather_params_t p;
  memset(&p, 0, sizeof p);
  p.operand_rank = 2;
  p.operand_dims[0] = c.rows;
  p.operand_dims[1] = c.cols;
  FillIndexShape(c, &p.indices_rank, p.indices_dims, &p.index_vector_dim);
  p.index_dtype = c.idx64 ? HLX_DTYPE_S64 : HLX_DTYPE_S32;
  p.num_offset_dims = 1;
  p.offset_dims[0] = (int64_t)c.batch.size();
  p.num_collapsed = 1;
  p.collapsed_slice_dims[0] = 0;
  p.num_start_index_map = 1;
  p.start_index_map[0] = 0;
  p.slice_sizes[0] = 1;
  p.slice_sizes[1] = c.slice;
  return p;
}

hlx_scatter_params_t ScatterParams(const Case& c) {
  hlx_scatter_params_t p;
  memset(&p, 0, sizeof p);
  p.input_rank = 2;
  p.input_dims[0] = c.rows;
  p.input_dims[1] = c.cols;
  FillIndexShape(c, &p.indices_rank, p.indices_dims, &p.index_vector_dim);
  p.index_dtype = c.idx64 ? HLX_DTYPE_S64 : HLX_DTYPE_S32;
  p.update_rank = (int32_t)c.batch.size() + 1;
  for (size_t d = 0; d < c.batch.size(); d++) p.update_dims[d] = c.batch[d];
  p.update_dims[c.batch.size()] = c.slice;
  p.num_update_window_dims = 1;
  p.update_window_dims[0] = (int64_t)c.batch.size();
  p.num_inserted = 1;
  p.inserted_window_dims[0] = 0;
  p.num_scatter_dims = 1;
  p.scatter_dims_to_operand_dims[0] = 0;
  return p;
}

std::vector<float> Floats(size_t n, uint32_t seed) {
  const float sp[] = {NAN, INFINITY, -INFINITY, -0.0f, 1e-40f, 3e38f};
  std::mt19937 rng(seed);
  std::vector<float> v(n);
  for (auto& x : v) {
    uint32_t r = rng();
    x = r % 29 == 0 ? sp[(r >> 8) % 6] : (float)((int)(r % 20001) - 10000) / 3.0f;
  }
  return v;
}

class SimdGather : public ::testing::TestWithParam<hlx_isa_t> {};

TEST_P(SimdGather, RowsMatchReference) {
  hlx_isa_t isa = GetParam();
  HLX_SKIP_IF_UNSUPPORTED(isa);
  hlx_gather_rows_fn fn = hlx_gather_rows_kernel(isa);
  ASSERT_NE(fn, nullptr);
  uint32_t seed = 3;
  for (const Case& c : Cases()) {
    hlx_gather_params_t p = GatherParams(c);
    int64_t n = -1;
    ASSERT_TRUE(hlx_gather_is_row_lookup(&p, &n));
    ASSERT_EQ(n, Count(c));
    std::vector<uint8_t> idx = Indices(c, seed++);
    for (size_t es : {1, 2, 4, 8}) {
      std::vector<uint8_t> table(c.rows * c.cols * es);
      for (size_t i = 0; i < table.size(); i++) table[i] = (uint8_t)(i * 131 + seed);
      size_t out_bytes = (size_t)(n * c.slice) * es;
      std::vector<uint8_t> want(out_bytes + 1), got(out_bytes + 1, 0xee);
      hlx_ref_gather(&p, es, table.data(), idx.data(), want.data());
      fn(table.data(), c.rows, c.cols * (int64_t)es, (size_t)c.slice * es,
         idx.data(), c.idx64, n, got.data());
      ASSERT_EQ(got[out_bytes], 0xee) << "wrote past the end";
      ASSERT_EQ(0, memcmp(want.data(), got.data(), out_bytes))
          << hlx_isa_name(isa) << " rows=" << c.rows << " cols=" << c.cols
          << " slice=" << c.slice << " es=" << es << " n=" << n
          << " idx64=" << c.idx64;
    }
  }
}

TEST_P(SimdGather, ScatterAddMatchesReference) {
  hlx_isa_t isa = GetParam();
  HLX_SKIP_IF_UNSUPPORTED(isa);
  hlx_scatter_add_rows_fn fn = hlx_scatter_add_rows_kernel(isa);
  ASSERT_NE(fn, nullptr);
  uint32_t seed = 5;
  hlx_scatter_combiner_t add = {false, HLX_REDUCE_ADD};
  for (const Case& c : Cases()) {
    hlx_scatter_params_t p = ScatterParams(c);
    int64_t n = -1;
    ASSERT_TRUE(hlx_scatter_is_row_update(&p, &n));
    std::vector<uint8_t> idx = Indices(c, seed++);
    std::vector<float> upd = Floats((size_t)(n * c.slice), seed * 7);
    std::vector<float> want = Floats((size_t)(c.rows * c.cols), seed * 11);
    std::vector<float> got = want;
    ASSERT_TRUE(hlx_ref_scatter(&p, add, HLX_DTYPE_F32, idx.data(), upd.data(),
                                want.data()));
    fn(got.data(), c.rows, 0, c.rows, c.cols, c.slice, idx.data(), c.idx64, n, upd.data());
    for (size_t i = 0; i < want.size(); i++)
      ASSERT_TRUE(hlx_test::SameValue(want[i], got[i]))
          << hlx_isa_name(isa) << " rows=" << c.rows << " cols=" << c.cols
          << " slice=" << c.slice << " i=" << i;
  }
}

// The scatter-add kernel's row window: windows covering the table, applied
// one after the other, give the whole call's result bit for bit.
TEST_P(SimdGather, ScatterAddRowWindowsMatchWholeCall) {
  hlx_isa_t isa = GetParam();
  HLX_SKIP_IF_UNSUPPORTED(isa);
  hlx_scatter_add_rows_fn fn = hlx_scatter_add_rows_kernel(isa);
  ASSERT_NE(fn, nullptr);
  uint32_t seed = 9;
  for (const Case& c : Cases()) {
    int64_t n = Count(c);
    std::vector<uint8_t> idx = Indices(c, seed++);
    std::vector<float> upd = Floats((size_t)(n * c.slice), seed * 7);
    std::vector<float> whole = Floats((size_t)(c.rows * c.cols), seed * 11);
    std::vector<float> parts = whole;
    fn(whole.data(), c.rows, 0, c.rows, c.cols, c.slice, idx.data(), c.idx64, n, upd.data());
    int64_t cut1 = c.rows / 3, cut2 = c.rows - c.rows / 4;
    fn(parts.data(), c.rows, cut1, cut2, c.cols, c.slice, idx.data(), c.idx64, n, upd.data());
    fn(parts.data(), c.rows, 0, cut1, c.cols, c.slice, idx.data(), c.idx64, n, upd.data());
    fn(parts.data(), c.rows, cut2, c.rows, c.cols, c.slice, idx.data(), c.idx64, n, upd.data());
    ASSERT_EQ(0, memcmp(whole.data(), parts.data(), whole.size() * 4))
        << hlx_isa_name(isa) << " rows=" << c.rows << " cols=" << c.cols;
  }
}

INSTANTIATE_TEST_SUITE_P(Isa, SimdGather,
                         ::testing::Values(HLX_ISA_AVX2, HLX_ISA_AVX512),
                         [](const auto& i) { return std::string(hlx_isa_name(i.param)); });

// hlx_gather / hlx_scatter at every cap, including forms they must leave
// to the reference (int16 indices, a replace combiner, f64 scatter-add).
TEST(SimdGatherDispatch, EveryCapMatchesReference) {
  std::vector<Case> cs = Cases();
  for (int lv = HLX_ISA_REFERENCE; lv < HLX_ISA_COUNT; lv++) {
    if (!hlx_cpu_supports_isa((hlx_isa_t)lv)) {
      hlx_test::SkipCounter::Get()->Count((hlx_isa_t)lv);
      continue;
    }
    hlx_cpu_set_max_isa((hlx_isa_t)lv);
    for (size_t k = 0; k < cs.size(); k += 4) {
      const Case& c = cs[k];
      std::vector<uint8_t> idx = Indices(c, (uint32_t)k);
      int64_t n = Count(c);
      // gather, 4-byte elements
      hlx_gather_params_t gp = GatherParams(c);
      std::vector<float> table = Floats((size_t)(c.rows * c.cols), (uint32_t)k);
      std::vector<float> gw((size_t)(n * c.slice)), gg(gw.size());
      hlx_ref_gather(&gp, 4, table.data(), idx.data(), gw.data());
      hlx_gather(&gp, 4, table.data(), idx.data(), gg.data(), nullptr);
      ASSERT_EQ(0, memcmp(gw.data(), gg.data(), gw.size() * 4));
      // scatter add and replace, f32 and f64
      hlx_scatter_params_t sp = ScatterParams(c);
      std::vector<float> upd = Floats((size_t)(n * c.slice), (uint32_t)k + 1);
      for (bool replace : {false, true}) {
        hlx_scatter_combiner_t comb = {replace, HLX_REDUCE_ADD};
        std::vector<float> sw = table, sg = table;
        ASSERT_TRUE(hlx_ref_scatter(&sp, comb, HLX_DTYPE_F32, idx.data(), upd.data(), sw.data()));
        ASSERT_TRUE(hlx_scatter(&sp, comb, HLX_DTYPE_F32, idx.data(), upd.data(), sg.data(), nullptr));
        for (size_t i = 0; i < sw.size(); i++)
          ASSERT_TRUE(hlx_test::SameValue(sw[i], sg[i])) << "replace=" << replace;
      }
      std::vector<double> dt(table.begin(), table.end()), du(upd.begin(), upd.end());
      std::vector<double> dw = dt, dg = dt;
      hlx_scatter_combiner_t add = {false, HLX_REDUCE_ADD};
      ASSERT_TRUE(hlx_ref_scatter(&sp, add, HLX_DTYPE_F64, idx.data(), du.data(), dw.data()));
      ASSERT_TRUE(hlx_scatter(&sp, add, HLX_DTYPE_F64, idx.data(), du.data(), dg.data(), nullptr));
      ASSERT_EQ(0, memcmp(dw.data(), dg.data(), dw.size() * 8));
    }
    // int16 indices: not the fast pattern, still the reference's result.
    Case c = {7, 3, 3, {5}, false, false};
    hlx_gather_params_t gp = GatherParams(c);
    gp.index_dtype = HLX_DTYPE_S16;
    int64_t n;
    EXPECT_FALSE(hlx_gather_is_row_lookup(&gp, &n));
    const int16_t idx16[5] = {6, -2, 9, 0, 3};
    std::vector<float> table = Floats(21, 1), gw(15), gg(15);
    hlx_ref_gather(&gp, 4, table.data(), idx16, gw.data());
    hlx_gather(&gp, 4, table.data(), idx16, gg.data(), nullptr);
    EXPECT_EQ(0, memcmp(gw.data(), gg.data(), 60));
    EXPECT_EQ(0, memcmp(&gg[0], &table[18], 12));  // row 6
    EXPECT_EQ(0, memcmp(&gg[3], &table[0], 12));   // -2 clamps to row 0
    EXPECT_EQ(0, memcmp(&gg[6], &table[18], 12));  // 9 clamps to row 6
  }
  hlx_cpu_set_max_isa(HLX_ISA_COUNT);
}

// Large lookups and scatter-adds split across 2 and 3 threads give the
// unsplit results bit for bit (f32 adds with duplicate indices included:
// each destination row's updates stay in index order), at every cap; also
// with fewer table rows than threads and rows longer than a cache line.
TEST(SimdGatherDispatch, ThreadSplitMatchesOneThread) {
  for (int lv = HLX_ISA_REFERENCE; lv < HLX_ISA_COUNT; lv++) {
    if (!hlx_cpu_supports_isa((hlx_isa_t)lv)) {
      hlx_test::SkipCounter::Get()->Count((hlx_isa_t)lv);
      continue;
    }
    for (int64_t len : {1, 5, 20}) {
      for (int v = 0; v < 4; v++) {
        bool idx64 = (v & 1) != 0;
        int64_t rows = v & 2 ? 2 : 3000;
        // 200K lookups into 3000 (or 2) rows: many duplicates per row.
        Case c = {rows, len, len, {200000}, false, idx64};
        std::vector<uint8_t> idx = Indices(c, 41 + (uint32_t)len);
        int64_t n = Count(c);
        std::vector<float> table = Floats((size_t)(c.rows * c.cols), 42);
        std::vector<float> upd = Floats((size_t)(n * len), 43);
        hlx_gather_params_t gp = GatherParams(c);
        hlx_scatter_params_t sp = ScatterParams(c);
        hlx_scatter_combiner_t add = {false, HLX_REDUCE_ADD};
        std::vector<float> g1((size_t)(n * len)), s1 = table;
        hlx_cpu_set_max_isa((hlx_isa_t)lv);
        hlx_gather(&gp, 4, table.data(), idx.data(), g1.data(), nullptr);
        ASSERT_TRUE(hlx_scatter(&sp, add, HLX_DTYPE_F32, idx.data(), upd.data(),
                                s1.data(), nullptr));
        for (int t : {2, 3}) {
          hlx_test::Threads th{t};
          hlx_parallel_t par = th.Par();
          std::vector<float> gt(g1.size(), -1.0f), st = table;
          hlx_gather(&gp, 4, table.data(), idx.data(), gt.data(), &par);
          ASSERT_TRUE(hlx_scatter(&sp, add, HLX_DTYPE_F32, idx.data(), upd.data(),
                                  st.data(), &par));
          EXPECT_EQ(0, memcmp(g1.data(), gt.data(), g1.size() * 4))
              << "gather level " << lv << " threads " << t << " len " << len;
          EXPECT_EQ(0, memcmp(s1.data(), st.data(), s1.size() * 4))
              << "scatter level " << lv << " threads " << t << " len " << len;
        }
        // And the split result is the reference's.
        std::vector<float> sw = table;
        ASSERT_TRUE(hlx_ref_scatter(&sp, add, HLX_DTYPE_F32, idx.data(), upd.data(),
                                    sw.data()));
        for (size_t i = 0; i < sw.size(); i++)
          ASSERT_TRUE(hlx_test::SameValue(sw[i], s1[i])) << i;
        hlx_cpu_set_max_isa(HLX_ISA_COUNT);
      }
    }
  }
}

}  // namespace
