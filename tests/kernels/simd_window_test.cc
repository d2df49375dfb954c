// reduce_window pooling variants (kernels/window_kernels.inc) against
// hlx_ref_reduce_window: random NCHW and NHWC geometries (2x2/2, 3x3/2 and
// random windows, strides, negative/zero/positive padding, odd sizes so
// every vector tail and border path runs), max/min/add with zero and
// non-zero init, inputs with NaN/Inf/-0/denormals; each variant called
// directly at its ISA and through hlx_reduce_window at every cap the CPU
// supports. Geometries the fast path does not take fall back to the
// reference (checked too). The select half of select_and_scatter
// (hlx_window_select) is checked the same way against
// hlx_ref_window_select.
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

using hlx_test::SameValue;

struct PoolVariant {
  const char* name;
  hlx_isa_t isa;
  hlx_reduce_op_t op;
  bool nhwc;
  hlx_pool2d_fn fn;
};
const PoolVariant kPool[] = {
#define HLX_POOL_KERNEL(ISA, OP, LAYOUT, fn) \
  {#fn, HLX_ISA_##ISA, HLX_REDUCE_##OP, std::string(#LAYOUT) == "NHWC", fn},
#include "kernels/window_kernels.inc"
};

struct Geometry {
  int64_t n, c, h, w, kh, kw, sh, sw, ph_lo, ph_hi, pw_lo, pw_hi;
};

// Builds the rank-4 window for g in the given layout.
bool MakeWindow(const Geometry& g, bool nhwc, hlx_window_t* w) {
  memset(w, 0, sizeof *w);
  w->rank = 4;
  int y = nhwc ? 1 : 2, x = nhwc ? 2 : 3, cd = nhwc ? 3 : 1;
  w->in_dims[0] = g.n;
  w->in_dims[cd] = g.c;
  w->in_dims[y] = g.h;
  w->in_dims[x] = g.w;
  for (int d = 0; d < 4; d++) {
    w->window[d] = 1;
    w->stride[d] = 1;
    w->base_dilation[d] = 1;
    w->window_dilation[d] = 1;
  }
  w->window[y] = g.kh;
  w->window[x] = g.kw;
  w->stride[y] = g.sh;
  w->stride[x] = g.sw;
  w->pad_lo[y] = g.ph_lo;
  w->pad_lo[x] = g.pw_lo;
  int64_t hi[4] = {0, 0, 0, 0};
  hi[y] = g.ph_hi;
  hi[x] = g.pw_hi;
  for (int d = 0; d < 4; d++) {
    w->out_dims[d] = hlx_window_num_windows(w->in_dims[d], w->window[d],
                                            w->stride[d], 1, 1, w->pad_lo[d],
                                            hi[d]);
    if (w->out_dims[d] < 0) return false;
  }
  return true;
}

std::vector<float> Data(size_t n, uint32_t seed) {
  const float sp[] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1e-40f, -1e-40f,
                      3.0f, -3.0f, 1e30f};
  std::mt19937 rng(seed);
  std::vector<float> v(n);
  for (auto& x : v) {
    uint32_t r = rng();
    if (r % 23 == 0)
      x = sp[(r >> 8) % 10];
    else
      x = (float)((int)(r % 2001) - 1000) / 7.0f;  // equal values happen
  }
  return v;
}

std::vector<Geometry> Geometries(uint32_t seed) {
  std::vector<Geometry> gs = {
      {2, 3, 8, 8, 2, 2, 2, 2, 0, 0, 0, 0},        // 2x2/2
      {1, 5, 17, 37, 2, 2, 2, 2, 0, 0, 0, 0},      // odd sizes
      {1, 3, 112, 112, 3, 3, 2, 2, 1, 1, 1, 1},    // ResNet max pool
      {2, 4, 33, 71, 3, 3, 2, 2, 1, 1, 1, 1},
      {1, 2, 9, 50, 3, 3, 2, 2, 0, 1, 0, 1},       // SAME-style
      {1, 19, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1},       // stride 1
      {1, 33, 11, 13, 2, 2, 2, 2, -1, 0, -1, 2},   // negative padding
      {1, 2, 5, 40, 4, 4, 3, 2, 2, 2, 3, 3},       // padding wider than 1
      {1, 1, 3, 3, 5, 5, 2, 2, 2, 2, 2, 2},        // window past the input
      {1, 3, 0, 4, 2, 2, 2, 2, 1, 1, 1, 1},        // empty input
  };
  std::mt19937 rng(seed);
  for (int i = 0; i < 40; i++) {
    Geometry g;
    g.n = 1 + rng() % 2;
    g.c = 1 + rng() % 40;
    g.h = 1 + rng() % 20;
    g.w = 1 + rng() % 70;
    g.kh = 1 + rng() % 4;
    g.kw = 1 + rng() % 4;
    g.sh = 1 + rng() % 3;
    g.sw = 1 + rng() % 2;
    g.ph_lo = (int)(rng() % 4) - 1;
    g.ph_hi = (int)(rng() % 4) - 1;
    g.pw_lo = (int)(rng() % 4) - 1;
    g.pw_hi = (int)(rng() % 4) - 1;
    gs.push_back(g);
  }
  return gs;
}

std::string Describe(const Geometry& g) {
  char buf[200];
  snprintf(buf, sizeof buf,
           "n=%ld c=%ld h=%ld w=%ld k=%ldx%ld s=%ld,%ld pad=[%ld,%ld]x[%ld,%ld]",
           (long)g.n, (long)g.c, (long)g.h, (long)g.w, (long)g.kh, (long)g.kw,
           (long)g.sh, (long)g.sw, (long)g.ph_lo, (long)g.ph_hi,
           (long)g.pw_lo, (long)g.pw_hi);
  return buf;
}

void ExpectSame(const std::vector<float>& want, const std::vector<float>& got,
                const std::string& what) {
  ASSERT_EQ(want.size(), got.size());
  for (size_t i = 0; i < want.size(); i++)
    ASSERT_TRUE(SameValue(want[i], got[i]))
        << what << " i=" << i << " want=" << want[i] << " got=" << got[i];
}

class SimdPool : public ::testing::TestWithParam<PoolVariant> {};

TEST_P(SimdPool, MatchesReference) {
  const PoolVariant& v = GetParam();
  HLX_SKIP_IF_UNSUPPORTED(v.isa);
  uint32_t seed = 1;
  for (const Geometry& g : Geometries(7)) {
    hlx_window_t w;
    if (!MakeWindow(g, v.nhwc, &w)) continue;
    hlx_pool2d_t pg;
    bool nhwc = false;
    ASSERT_TRUE(hlx_window_as_pool2d(&w, &nhwc, &pg)) << Describe(g);
    // A 1x1 stride-1 window is both layouts; it is taken as NCHW.
    if (nhwc != v.nhwc) continue;
    size_t n_in = (size_t)(g.n * g.c * g.h * g.w);
    std::vector<float> x = Data(n_in, seed++);
    for (float init : {v.op == HLX_REDUCE_ADD ? 0.0f : -INFINITY, 1.5f}) {
      std::vector<float> want((size_t)hlx_window_out_count(&w));
      std::vector<float> got(want.size() + 1, 777.0f);
      ASSERT_TRUE(hlx_ref_reduce_window(v.op, HLX_DTYPE_F32, &w, x.data(),
                                        &init, want.data()));
      v.fn(&pg, x.data(), init, got.data());
      ASSERT_EQ(got.back(), 777.0f) << v.name << " wrote past the end";
      got.pop_back();
      ExpectSame(want, got, std::string(v.name) + " " + Describe(g));
      if (HasFatalFailure()) return;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, SimdPool, ::testing::ValuesIn(kPool),
                         [](const auto& i) { return std::string(i.param.name); });

// Through hlx_reduce_window at every cap: same results as the reference,
// fast path or not (dilated windows, rank 3, f64 and window on dims 0/1
// fall back).
TEST(SimdPoolDispatch, EveryCapMatchesReference) {
  std::vector<Geometry> gs = Geometries(11);
  for (int lv = HLX_ISA_REFERENCE; lv < HLX_ISA_COUNT; lv++) {
    if (!hlx_cpu_supports_isa((hlx_isa_t)lv)) {
      hlx_test::SkipCounter::Get()->Count((hlx_isa_t)lv);
      continue;
    }
    hlx_cpu_set_max_isa((hlx_isa_t)lv);
    for (bool nhwc : {false, true})
      for (hlx_reduce_op_t op : {HLX_REDUCE_MAX, HLX_REDUCE_ADD, HLX_REDUCE_MUL})
        for (size_t i = 0; i < gs.size(); i += 3) {
          hlx_window_t w;
          if (!MakeWindow(gs[i], nhwc, &w)) continue;
          if (i % 2) w.window_dilation[nhwc ? 1 : 2] = 2;  // not a pool2d
          for (int d = 0; d < 4; d++)
            w.out_dims[d] = hlx_window_num_windows(
                w.in_dims[d], w.window[d], w.stride[d], 1,
                w.window_dilation[d], w.pad_lo[d],
                (nhwc ? (d == 1 || d == 2) : d >= 2) ? 1 : 0);
          std::vector<float> x = Data((size_t)(gs[i].n * gs[i].c * gs[i].h * gs[i].w), i);
          std::vector<float> want((size_t)hlx_window_out_count(&w)), got(want.size());
          float init = op == HLX_REDUCE_MUL ? 1.0f : 0.25f;
          ASSERT_TRUE(hlx_ref_reduce_window(op, HLX_DTYPE_F32, &w, x.data(), &init,
                                            want.data()));
          ASSERT_TRUE(hlx_reduce_window(op, HLX_DTYPE_F32, &w, x.data(), &init,
                                        got.data()));
          ExpectSame(want, got, std::string("cap ") + hlx_isa_name((hlx_isa_t)lv) +
                                    " " + Describe(gs[i]));
        }
  }
  hlx_cpu_set_max_isa(HLX_ISA_COUNT);
  // Unsupported (op, dtype) keeps the reference's answer: false.
  hlx_window_t w;
  ASSERT_TRUE(MakeWindow(gs[0], false, &w));
  std::vector<float> x(1000), y(1000);
  float init = 0;
  EXPECT_FALSE(hlx_reduce_window((hlx_reduce_op_t)99, HLX_DTYPE_F32, &w,
                                 x.data(), &init, y.data()));
}

struct SelectVariant {
  const char* name;
  hlx_isa_t isa;
  hlx_compare_dir_t dir;
  bool nhwc;
  hlx_pool2d_select_fn fn;
};
const SelectVariant kSelect[] = {
#define HLX_POOL_SELECT(ISA, DIR, LAYOUT, fn) \
  {#fn, HLX_ISA_##ISA, HLX_CMP_##DIR, std::string(#LAYOUT) == "NHWC", fn},
#include "kernels/window_kernels.inc"
};

void ExpectSameSelection(const std::vector<int64_t>& want,
                         const std::vector<int64_t>& got,
                         const std::string& what) {
  ASSERT_EQ(want.size(), got.size());
  for (size_t i = 0; i < want.size(); i++)
    ASSERT_EQ(want[i], got[i]) << what << " window " << i;
}

class SimdPoolSelect : public ::testing::TestWithParam<SelectVariant> {};

// Ties (values repeat often), NaN, -0/+0 and padding-only windows all
// exercise the "first wins unless !(cur <dir> x)" rule.
TEST_P(SimdPoolSelect, MatchesReference) {
  const SelectVariant& v = GetParam();
  HLX_SKIP_IF_UNSUPPORTED(v.isa);
  uint32_t seed = 3;
  for (const Geometry& g : Geometries(5)) {
    hlx_window_t w;
    if (!MakeWindow(g, v.nhwc, &w)) continue;
    hlx_pool2d_t pg;
    bool nhwc = false;
    ASSERT_TRUE(hlx_window_as_pool2d(&w, &nhwc, &pg));
    if (nhwc != v.nhwc) continue;
    std::vector<float> x = Data((size_t)(g.n * g.c * g.h * g.w), seed++);
    for (size_t i = 0; i < x.size(); i += 3) x[i] = (float)(int)(x[i] / 50);
    std::vector<int64_t> want((size_t)hlx_window_out_count(&w));
    std::vector<int64_t> got(want.size() + 1, 777);
    ASSERT_TRUE(hlx_ref_window_select(v.dir, HLX_CMP_DEFAULT, HLX_DTYPE_F32, &w,
                                      x.data(), want.data()));
    v.fn(&pg, x.data(), got.data());
    ASSERT_EQ(got.back(), 777) << v.name << " wrote past the end";
    got.pop_back();
    ExpectSameSelection(want, got, std::string(v.name) + " " + Describe(g));
    if (HasFatalFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, SimdPoolSelect, ::testing::ValuesIn(kSelect),
                         [](const auto& i) { return std::string(i.param.name); });

TEST(SimdPoolDispatch, WindowSelectEveryCapMatchesReference) {
  std::vector<Geometry> gs = Geometries(13);
  for (int lv = HLX_ISA_REFERENCE; lv < HLX_ISA_COUNT; lv++) {
    if (!hlx_cpu_supports_isa((hlx_isa_t)lv)) continue;
    hlx_cpu_set_max_isa((hlx_isa_t)lv);
    for (bool nhwc : {false, true})
      for (hlx_compare_dir_t dir : {HLX_CMP_GE, HLX_CMP_LE, HLX_CMP_GT})
        for (size_t i = 0; i < gs.size(); i += 4) {
          hlx_window_t w;
          if (!MakeWindow(gs[i], nhwc, &w)) continue;
          std::vector<float> x = Data((size_t)(gs[i].n * gs[i].c * gs[i].h * gs[i].w), i);
          std::vector<int64_t> want((size_t)hlx_window_out_count(&w)), got(want.size());
          for (hlx_compare_type_t type : {HLX_CMP_FLOAT, HLX_CMP_TOTALORDER}) {
            ASSERT_TRUE(hlx_ref_window_select(dir, type, HLX_DTYPE_F32, &w,
                                              x.data(), want.data()));
            ASSERT_TRUE(hlx_window_select(dir, type, HLX_DTYPE_F32, &w, x.data(),
                                          got.data()));
            ExpectSameSelection(want, got, std::string("cap ") +
                                               hlx_isa_name((hlx_isa_t)lv) + " " +
                                               Describe(gs[i]));
          }
        }
  }
  hlx_cpu_set_max_isa(HLX_ISA_COUNT);
}

TEST(SimdPoolDispatch, RecognisesLayouts) {
  hlx_window_t w;
  hlx_pool2d_t g;
  bool nhwc = true;
  Geometry geo = {2, 3, 8, 9, 3, 3, 2, 2, 1, 1, 1, 1};
  ASSERT_TRUE(MakeWindow(geo, false, &w));
  ASSERT_TRUE(hlx_window_as_pool2d(&w, &nhwc, &g));
  EXPECT_FALSE(nhwc);
  EXPECT_EQ(g.planes, 6);
  EXPECT_EQ(g.ow, 5);
  ASSERT_TRUE(MakeWindow(geo, true, &w));
  ASSERT_TRUE(hlx_window_as_pool2d(&w, &nhwc, &g));
  EXPECT_TRUE(nhwc);
  EXPECT_EQ(g.planes, 2);
  EXPECT_EQ(g.c, 3);
  w.base_dilation[1] = 2;
  EXPECT_FALSE(hlx_window_as_pool2d(&w, &nhwc, &g));
  w.rank = 3;
  EXPECT_FALSE(hlx_window_as_pool2d(&w, &nhwc, &g));
}

}  // namespace
