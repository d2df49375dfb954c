// Reference reduce_window / select_and_scatter kernels against hand-computed
// values (the spec's examples), a brute-force model of the spec's
// pad-then-slice definition, and edge cases (holes, negative padding, empty
// dimensions, NaN, pred).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "base/float_formats.h"
#include "kernels/window.h"

namespace {

hlx_window_t MakeWindow(std::vector<int64_t> in, std::vector<int64_t> win,
                        std::vector<int64_t> stride = {},
                        std::vector<int64_t> base = {},
                        std::vector<int64_t> wdil = {},
                        std::vector<int64_t> pad_lo = {},
                        std::vector<int64_t> pad_hi = {}) {
  hlx_window_t w;
  memset(&w, 0, sizeof w);
  w.rank = (int32_t)in.size();
  for (int32_t d = 0; d < w.rank; d++) {
    w.in_dims[d] = in[d];
    w.window[d] = win[d];
    w.stride[d] = stride.empty() ? 1 : stride[d];
    w.base_dilation[d] = base.empty() ? 1 : base[d];
    w.window_dilation[d] = wdil.empty() ? 1 : wdil[d];
    w.pad_lo[d] = pad_lo.empty() ? 0 : pad_lo[d];
    int64_t hi = pad_hi.empty() ? 0 : pad_hi[d];
    w.out_dims[d] = hlx_window_num_windows(in[d], win[d], w.stride[d],
                                           w.base_dilation[d],
                                           w.window_dilation[d], w.pad_lo[d],
                                           hi);
  }
  return w;
}

TEST(WindowNumWindows, FollowsSpecFormula) {
  // 3 elements, base dilation 2 -> 5, padding 2+1 -> 8, window 2 dilated 3
  // -> 4, stride 4 -> (8-4)/4+1 = 2.
  EXPECT_EQ(hlx_window_num_windows(3, 2, 4, 2, 3, 2, 1), 2);
  EXPECT_EQ(hlx_window_num_windows(3, 3, 4, 2, 3, 2, 1), 1);
  EXPECT_EQ(hlx_window_num_windows(0, 1, 1, 1, 1, 0, 0), 0);  // empty input
  EXPECT_EQ(hlx_window_num_windows(2, 3, 1, 1, 1, 0, 0), 0);  // window too big
  EXPECT_EQ(hlx_window_num_windows(5, 1, 1, 1, 1, -2, -1), 2);  // negative pad
  EXPECT_EQ(hlx_window_num_windows(12, 3, 2, 1, 1, 0, 1), 6);
  EXPECT_EQ(hlx_window_num_windows(4, 1, 0, 1, 1, 0, 0), -1);  // bad stride
  EXPECT_EQ(hlx_window_num_windows(INT64_MAX, 2, 1, 4, 1, 0, 0), -1);
}

TEST(ReduceWindow, SpecExampleAddWithDilationsAndPadding) {
  const int64_t in[] = {1, 2, 3, 4, 5, 6};
  const int64_t init = 0;
  hlx_window_t w = MakeWindow({3, 2}, {2, 1}, {4, 1}, {2, 1}, {3, 1}, {2, 0},
                              {1, 0});
  ASSERT_EQ(w.out_dims[0], 2);
  ASSERT_EQ(w.out_dims[1], 2);
  int64_t out[4] = {-1, -1, -1, -1};
  ASSERT_TRUE(hlx_ref_reduce_window(HLX_REDUCE_ADD, HLX_DTYPE_S64, &w, in,
                                    &init, out));
  EXPECT_EQ(out[0], 0);
  EXPECT_EQ(out[1], 0);
  EXPECT_EQ(out[2], 3);
  EXPECT_EQ(out[3], 4);
}

TEST(ReduceWindow, Issue1662WindowOfThree) {
  const int64_t in[] = {1, 2, 3, 4, 5, 6};
  const int64_t init = 0;
  hlx_window_t w = MakeWindow({3, 2}, {3, 1}, {4, 1}, {2, 1}, {3, 1}, {2, 0},
                              {1, 0});
  ASSERT_EQ(w.out_dims[0], 1);
  int64_t out[2];
  ASSERT_TRUE(hlx_ref_reduce_window(HLX_REDUCE_ADD, HLX_DTYPE_S64, &w, in,
                                    &init, out));
  EXPECT_EQ(out[0], 5);
  EXPECT_EQ(out[1], 6);
}

TEST(ReduceWindow, HolesContributeTheInitValue) {
  // [1, h, 2] with window 2: (1 + 1) + 1 = 3 and (1 + 1) + 2 = 4 with init 1.
  const int32_t in[] = {1, 2};
  const int32_t init = 1;
  hlx_window_t w = MakeWindow({2}, {2}, {1}, {2});
  ASSERT_EQ(w.out_dims[0], 2);
  int32_t out[2];
  ASSERT_TRUE(hlx_ref_reduce_window(HLX_REDUCE_ADD, HLX_DTYPE_S32, &w, in,
                                    &init, out));
  EXPECT_EQ(out[0], 3);
  EXPECT_EQ(out[1], 4);
}

TEST(ReduceWindow, NegativePaddingDropsEdges) {
  const float in[] = {1, 2, 3, 4, 5};
  const float init = -INFINITY;
  hlx_window_t w = MakeWindow({5}, {2}, {1}, {}, {}, {-1}, {-1});
  ASSERT_EQ(w.out_dims[0], 2);  // [2, 3, 4]
  float out[2];
  ASSERT_TRUE(hlx_ref_reduce_window(HLX_REDUCE_MAX, HLX_DTYPE_F32, &w, in,
                                    &init, out));
  EXPECT_EQ(out[0], 3.0f);
  EXPECT_EQ(out[1], 4.0f);
}

TEST(ReduceWindow, MaxPropagatesNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float in[] = {1, nan, 3, 4};
  const float init = -INFINITY;
  hlx_window_t w = MakeWindow({4}, {2}, {2});
  float out[2];
  ASSERT_TRUE(hlx_ref_reduce_window(HLX_REDUCE_MAX, HLX_DTYPE_F32, &w, in,
                                    &init, out));
  EXPECT_TRUE(std::isnan(out[0]));
  EXPECT_EQ(out[1], 4.0f);
}

TEST(ReduceWindow, PredAddIsOrAndMulIsAnd) {
  const uint8_t in[] = {0, 1, 0, 0, 1, 1};
  const uint8_t f = 0, t = 1;
  hlx_window_t w = MakeWindow({6}, {2}, {2});
  uint8_t out[3];
  ASSERT_TRUE(hlx_ref_reduce_window(HLX_REDUCE_ADD, HLX_DTYPE_PRED, &w, in,
                                    &f, out));
  EXPECT_EQ(out[0], 1);
  EXPECT_EQ(out[1], 0);
  EXPECT_EQ(out[2], 1);  // 1 + 1 is true, not 0
  ASSERT_TRUE(hlx_ref_reduce_window(HLX_REDUCE_MUL, HLX_DTYPE_PRED, &w, in,
                                    &t, out));
  EXPECT_EQ(out[0], 0);
  EXPECT_EQ(out[1], 0);
  EXPECT_EQ(out[2], 1);
}

TEST(ReduceWindow, IntegerAddWraps) {
  const int8_t in[] = {100, 100, -128, -1};
  const int8_t init = 0;
  hlx_window_t w = MakeWindow({4}, {2}, {2});
  int8_t out[2];
  ASSERT_TRUE(hlx_ref_reduce_window(HLX_REDUCE_ADD, HLX_DTYPE_S8, &w, in,
                                    &init, out));
  EXPECT_EQ(out[0], -56);
  EXPECT_EQ(out[1], 127);
}

TEST(ReduceWindow, EmptyInputGivesEmptyOrInitOutput) {
  // Input dim 0: no windows at all.
  hlx_window_t w = MakeWindow({0, 3}, {1, 1});
  EXPECT_EQ(w.out_dims[0], 0);
  const float init = 7;
  float out[1] = {42};
  ASSERT_TRUE(hlx_ref_reduce_window(HLX_REDUCE_ADD, HLX_DTYPE_F32, &w, nullptr,
                                    &init, out));
  EXPECT_EQ(out[0], 42);  // untouched
  // Input dim 0 padded to 2: the window only sees padding -> init.
  hlx_window_t w2 = MakeWindow({0}, {2}, {}, {}, {}, {1}, {1});
  ASSERT_EQ(w2.out_dims[0], 1);
  ASSERT_TRUE(hlx_ref_reduce_window(HLX_REDUCE_MIN, HLX_DTYPE_F32, &w2,
                                    nullptr, &init, out));
  EXPECT_EQ(out[0], 7.0f);
}

TEST(ReduceWindow, F16RoundsAfterEveryStep) {
  // 2048 + 1 = 2049 rounds to 2048 in f16 each time; the window of four
  // ones stays 2048 (summing in f32 first would give 2052).
  uint16_t in[5];
  in[0] = hlx_f32_to_f16(2048.0f);
  for (int i = 1; i < 5; i++) in[i] = hlx_f32_to_f16(1.0f);
  uint16_t init = hlx_f32_to_f16(0.0f), out[1];
  hlx_window_t w = MakeWindow({5}, {5});
  ASSERT_TRUE(hlx_ref_reduce_window(HLX_REDUCE_ADD, HLX_DTYPE_F16, &w, in,
                                    &init, out));
  EXPECT_EQ(hlx_f16_to_f32(out[0]), 2048.0f);
}

TEST(ReduceWindow, ComplexAddAndLexicographicMax) {
  const float in[6] = {1, 2, 1, 3, 0, 9};  // (1,2) (1,3) (0,9)
  const float init[2] = {0, 0};
  float out[2];
  hlx_window_t w = MakeWindow({3}, {3});
  ASSERT_TRUE(hlx_ref_reduce_window(HLX_REDUCE_ADD, HLX_DTYPE_C64, &w, in,
                                    init, out));
  EXPECT_EQ(out[0], 2.0f);
  EXPECT_EQ(out[1], 14.0f);
  ASSERT_TRUE(hlx_ref_reduce_window(HLX_REDUCE_MAX, HLX_DTYPE_C64, &w, in,
                                    init, out));
  EXPECT_EQ(out[0], 1.0f);
  EXPECT_EQ(out[1], 3.0f);
}

TEST(ReduceWindow, BitwiseXorOnFloatIsUnsupported) {
  const float in[1] = {1}, init = 0;
  float out[1];
  hlx_window_t w = MakeWindow({1}, {1});
  EXPECT_FALSE(hlx_ref_reduce_window(HLX_REDUCE_XOR, HLX_DTYPE_F32, &w, in,
                                     &init, out));
}

// Brute force straight from the spec: pad (with init, incl. base-dilation
// holes), then slice and fold row-major.
std::vector<double> BruteReduceWindow(const hlx_window_t& w,
                                      const std::vector<double>& in,
                                      double init) {
  int32_t r = w.rank;
  std::vector<int64_t> pdims(r), pstr(r), istr(r);
  std::vector<int64_t> pad_hi(r);
  int64_t n = 1;
  for (int32_t d = r - 1; d >= 0; d--) {
    istr[d] = n;
    n *= w.in_dims[d];
  }
  int64_t pn = 1;
  for (int32_t d = r - 1; d >= 0; d--) {
    int64_t dil = w.in_dims[d] ? (w.in_dims[d] - 1) * w.base_dilation[d] + 1 : 0;
    // pad_hi chosen so the last window fits exactly.
    int64_t need = (w.out_dims[d] - 1) * w.stride[d] +
                   (w.window[d] - 1) * w.window_dilation[d] + 1;
    pdims[d] = std::max<int64_t>(need, w.pad_lo[d] + dil);
    pstr[d] = pn;
    pn *= pdims[d];
  }
  std::vector<double> padded(pn, init);
  std::vector<int64_t> idx(r, 0);
  for (int64_t i = 0; i < n; i++) {
    int64_t off = 0;
    bool ok = true;
    for (int32_t d = 0; d < r; d++) {
      int64_t p = w.pad_lo[d] + idx[d] * w.base_dilation[d];
      if (p < 0 || p >= pdims[d]) ok = false;
      off += p * pstr[d];
    }
    if (ok) padded[off] = in[i];
    for (int32_t d = r - 1; d >= 0; d--) {
      if (++idx[d] < w.in_dims[d]) break;
      idx[d] = 0;
    }
  }
  int64_t no = 1, nw = 1;
  for (int32_t d = 0; d < r; d++) {
    no *= w.out_dims[d];
    nw *= w.window[d];
  }
  std::vector<double> out(no);
  std::vector<int64_t> o(r, 0);
  for (int64_t i = 0; i < no; i++) {
    double acc = init;
    std::vector<int64_t> k(r, 0);
    for (int64_t j = 0; j < nw; j++) {
      int64_t off = 0;
      for (int32_t d = 0; d < r; d++)
        off += (o[d] * w.stride[d] + k[d] * w.window_dilation[d]) * pstr[d];
      acc = acc * 0.5 + padded[off];  // order-sensitive fold
      for (int32_t d = r - 1; d >= 0; d--) {
        if (++k[d] < w.window[d]) break;
        k[d] = 0;
      }
    }
    out[i] = acc;
    for (int32_t d = r - 1; d >= 0; d--) {
      if (++o[d] < w.out_dims[d]) break;
      o[d] = 0;
    }
  }
  return out;
}

TEST(WindowOffsets, MatchBruteForceOnOddGeometry) {
  // Positive-padding geometries (negative padding is covered above).
  struct G {
    std::vector<int64_t> in, win, stride, base, wdil, lo, hi;
  } geoms[] = {
      {{5, 7}, {3, 2}, {2, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}},
      {{4, 3}, {2, 3}, {1, 2}, {2, 1}, {1, 2}, {1, 2}, {2, 3}},
      {{3, 1, 4}, {2, 1, 3}, {3, 1, 1}, {1, 3, 2}, {2, 1, 1}, {2, 0, 1},
       {0, 1, 2}},
  };
  for (const G& g : geoms) {
    hlx_window_t w = MakeWindow(g.in, g.win, g.stride, g.base, g.wdil, g.lo,
                                g.hi);
    int64_t n = 1;
    for (int64_t d : g.in) n *= d;
    std::vector<double> in(n);
    for (int64_t i = 0; i < n; i++) in[i] = (double)(i * 7 % 11) - 3;
    const double init = 0.25;
    std::vector<double> want = BruteReduceWindow(w, in, init);
    // The same fold through hlx_window_offsets.
    size_t tab = 0;
    for (int32_t d = 0; d < w.rank; d++) tab += w.out_dims[d] * w.window[d];
    std::vector<int64_t> storage(tab + 1);
    int64_t* tables[HLX_WINDOW_MAX_RANK];
    hlx_window_tables(&w, storage.data(), tables);
    std::vector<int64_t> offs(hlx_window_size(&w));
    std::vector<int64_t> o(w.rank, 0);
    ASSERT_EQ((int64_t)want.size(), hlx_window_out_count(&w));
    for (size_t i = 0; i < want.size(); i++) {
      hlx_window_offsets(&w, tables, o.data(), offs.data());
      double acc = init;
      for (int64_t off : offs) acc = acc * 0.5 + (off < 0 ? init : in[off]);
      EXPECT_DOUBLE_EQ(acc, want[i]) << "output " << i;
      for (int32_t d = w.rank - 1; d >= 0; d--) {
        if (++o[d] < w.out_dims[d]) break;
        o[d] = 0;
      }
    }
    // And the add kernel against an add-only brute force (exact in f64).
    std::vector<double> got(want.size());
    ASSERT_TRUE(hlx_ref_reduce_window(HLX_REDUCE_ADD, HLX_DTYPE_F64, &w,
                                      in.data(), &init, got.data()));
    std::fill(o.begin(), o.end(), 0);
    for (size_t i = 0; i < want.size(); i++) {
      hlx_window_offsets(&w, tables, o.data(), offs.data());
      double acc = init;
      for (int64_t off : offs) acc += off < 0 ? init : in[off];
      EXPECT_DOUBLE_EQ(got[i], acc);
      for (int32_t d = w.rank - 1; d >= 0; d--) {
        if (++o[d] < w.out_dims[d]) break;
        o[d] = 0;
      }
    }
  }
}

TEST(SelectAndScatter, SpecExample) {
  const int64_t operand[] = {1, 5, 2, 5, 3, 6, 4, 4};
  const int64_t source[] = {5, 6, 7, 8};
  const int64_t init = 0;
  hlx_window_t w = MakeWindow({4, 2}, {3, 1}, {2, 1}, {}, {}, {0, 0}, {1, 0});
  ASSERT_EQ(w.out_dims[0], 2);
  ASSERT_EQ(w.out_dims[1], 2);
  int64_t sel[4];
  ASSERT_TRUE(hlx_ref_window_select(HLX_CMP_GE, HLX_CMP_DEFAULT, HLX_DTYPE_S64,
                                    &w, operand, sel));
  EXPECT_EQ(sel[0], 4);  // 3 at [2, 0]
  EXPECT_EQ(sel[1], 5);  // 6 at [2, 1]
  EXPECT_EQ(sel[2], 6);  // 4 at [3, 0] (padding never selected)
  EXPECT_EQ(sel[3], 5);  // 6 at [2, 1]
  int64_t out[8];
  ASSERT_TRUE(hlx_ref_scatter_selected(HLX_REDUCE_ADD, HLX_DTYPE_S64, 4, sel,
                                       source, &init, 8, out));
  const int64_t want[] = {0, 0, 0, 0, 5, 14, 7, 0};
  for (int i = 0; i < 8; i++) EXPECT_EQ(out[i], want[i]) << i;
}

TEST(SelectAndScatter, TiesPickFirstWithGeAndLastWithGt) {
  const float operand[] = {2, 2, 1};
  hlx_window_t w = MakeWindow({3}, {3});
  int64_t sel;
  ASSERT_TRUE(hlx_ref_window_select(HLX_CMP_GE, HLX_CMP_DEFAULT, HLX_DTYPE_F32,
                                    &w, operand, &sel));
  EXPECT_EQ(sel, 0);
  ASSERT_TRUE(hlx_ref_window_select(HLX_CMP_GT, HLX_CMP_DEFAULT, HLX_DTYPE_F32,
                                    &w, operand, &sel));
  EXPECT_EQ(sel, 1);
  ASSERT_TRUE(hlx_ref_window_select(HLX_CMP_LE, HLX_CMP_DEFAULT, HLX_DTYPE_F32,
                                    &w, operand, &sel));
  EXPECT_EQ(sel, 2);
}

TEST(SelectAndScatter, PaddingOnlyWindowSelectsNothing) {
  const int32_t operand[] = {9, 8};
  hlx_window_t w = MakeWindow({2}, {2}, {2}, {}, {}, {2}, {2});
  ASSERT_EQ(w.out_dims[0], 3);  // [p p] [9 8] [p p]
  int64_t sel[3];
  ASSERT_TRUE(hlx_ref_window_select(HLX_CMP_GE, HLX_CMP_DEFAULT, HLX_DTYPE_S32,
                                    &w, operand, sel));
  EXPECT_EQ(sel[0], -1);
  EXPECT_EQ(sel[1], 0);
  EXPECT_EQ(sel[2], -1);
  const int32_t source[] = {100, 5, 100}, init = 1;
  int32_t out[2];
  ASSERT_TRUE(hlx_ref_scatter_selected(HLX_REDUCE_ADD, HLX_DTYPE_S32, 3, sel,
                                       source, &init, 2, out));
  EXPECT_EQ(out[0], 6);
  EXPECT_EQ(out[1], 1);
}

TEST(SelectAndScatter, OverlappingWindowsAccumulate) {
  // Windows of 2 with stride 1 over [1, 3, 2]: both pick the 3.
  const double operand[] = {1, 3, 2}, source[] = {0.5, 0.25}, init = 10;
  hlx_window_t w = MakeWindow({3}, {2});
  int64_t sel[2];
  ASSERT_TRUE(hlx_ref_window_select(HLX_CMP_GE, HLX_CMP_DEFAULT, HLX_DTYPE_F64,
                                    &w, operand, sel));
  double out[3];
  ASSERT_TRUE(hlx_ref_scatter_selected(HLX_REDUCE_ADD, HLX_DTYPE_F64, 2, sel,
                                       source, &init, 3, out));
  EXPECT_EQ(out[0], 10);
  EXPECT_EQ(out[1], 10.75);
  EXPECT_EQ(out[2], 10);
  ASSERT_TRUE(hlx_ref_scatter_selected(HLX_REDUCE_MAX, HLX_DTYPE_F64, 2, sel,
                                       source, &init, 3, out));
  EXPECT_EQ(out[1], 10);
}

TEST(SelectAndScatter, NaNComparesFalseSoItIsSelected) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float operand[] = {5, nan, 1};
  hlx_window_t w = MakeWindow({3}, {3});
  int64_t sel;
  ASSERT_TRUE(hlx_ref_window_select(HLX_CMP_GE, HLX_CMP_FLOAT, HLX_DTYPE_F32,
                                    &w, operand, &sel));
  // 5 >= NaN is false -> NaN; NaN >= 1 is false -> 1.
  EXPECT_EQ(sel, 2);
}

TEST(SelectAndScatter, PredScatterAddIsOr) {
  const uint8_t operand[] = {0, 1, 1, 0};
  hlx_window_t w = MakeWindow({4}, {2}, {1});
  int64_t sel[3];
  ASSERT_TRUE(hlx_ref_window_select(HLX_CMP_GE, HLX_CMP_DEFAULT,
                                    HLX_DTYPE_PRED, &w, operand, sel));
  EXPECT_EQ(sel[0], 1);
  EXPECT_EQ(sel[1], 1);
  EXPECT_EQ(sel[2], 2);
  const uint8_t source[] = {1, 1, 0}, init = 0;
  uint8_t out[4];
  ASSERT_TRUE(hlx_ref_scatter_selected(HLX_REDUCE_ADD, HLX_DTYPE_PRED, 3, sel,
                                       source, &init, 4, out));
  EXPECT_EQ(out[0], 0);
  EXPECT_EQ(out[1], 1);
  EXPECT_EQ(out[2], 0);
  EXPECT_EQ(out[3], 0);
}

}  // namespace
