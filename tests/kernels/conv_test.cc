// Reference convolution kernels (canonical layouts, wide compute types)
// against the spec's examples, hand-computed cases (reversal, groups,
// wraparound, complex) and a brute-force model written from the spec's
// split / pad / slice / dot_general definition.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels/conv.h"

namespace {

struct Geometry {
  int64_t n, c, o, g = 1, b = 1;
  std::vector<int64_t> in, k, stride, lo, hi, ldil, rdil;
  std::vector<bool> rev;
};

bool MakeParams(const Geometry& g, hlx_conv_params_t* p) {
  memset(p, 0, sizeof *p);
  int32_t ns = (int32_t)g.in.size();
  p->num_spatial = ns;
  p->batch = g.n;
  p->in_features = g.c;
  p->out_features = g.o;
  p->kernel_in_features = g.c / g.g;
  p->feature_group_count = g.g;
  p->batch_group_count = g.b;
  for (int32_t d = 0; d < ns; d++) {
    p->in_spatial[d] = g.in[d];
    p->kernel_spatial[d] = g.k[d];
    p->stride[d] = g.stride.empty() ? 1 : g.stride[d];
    p->pad_lo[d] = g.lo.empty() ? 0 : g.lo[d];
    int64_t hi = g.hi.empty() ? 0 : g.hi[d];
    p->lhs_dilation[d] = g.ldil.empty() ? 1 : g.ldil[d];
    p->rhs_dilation[d] = g.rdil.empty() ? 1 : g.rdil[d];
    p->reversal[d] = g.rev.empty() ? false : g.rev[d];
    p->out_spatial[d] = hlx_conv_num_windows(
        g.in[d], g.k[d], p->stride[d], p->pad_lo[d], hi, p->lhs_dilation[d],
        p->rhs_dilation[d]);
    if (p->out_spatial[d] < 0) return false;
  }
  return true;
}

int64_t Prod(const int64_t* v, int32_t n) {
  int64_t r = 1;
  for (int32_t i = 0; i < n; i++) r *= v[i];
  return r;
}

// The spec's definition for feature_group_count = batch_group_count = 1 on
// canonical layouts, then its split/concatenate rules for groups.
std::vector<double> Brute(const hlx_conv_params_t& p,
                          const std::vector<double>& lhs,
                          const std::vector<double>& rhs) {
  int32_t ns = p.num_spatial;
  int64_t G = p.feature_group_count, B = p.batch_group_count;
  int64_t groups = G * B, Nb = p.batch / B, Ci = p.kernel_in_features;
  int64_t Og = p.out_features / groups, O = p.out_features;
  int64_t S = Prod(p.in_spatial, ns), K = Prod(p.kernel_spatial, ns),
          P = Prod(p.out_spatial, ns);
  std::vector<double> out(Nb * P * O, 0.0);
  for (int64_t grp = 0; grp < groups; grp++)
    for (int64_t n = 0; n < Nb; n++)
      for (int64_t pi = 0; pi < P; pi++)
        for (int64_t og = 0; og < Og; og++) {
          int64_t o = grp * Og + og;
          int64_t nn = B > 1 ? grp * Nb + n : n;
          int64_t cbase = B > 1 ? 0 : grp * Ci;
          // Output position multi-index.
          std::vector<int64_t> pos(ns);
          for (int32_t d = ns - 1, r = pi; d >= 0; d--) {
            pos[d] = r % p.out_spatial[d];
            r /= p.out_spatial[d];
          }
          double acc = 0;
          for (int64_t ki = 0; ki < K; ki++) {
            std::vector<int64_t> q(ns);
            for (int32_t d = ns - 1, r = ki; d >= 0; d--) {
              q[d] = r % p.kernel_spatial[d];
              r /= p.kernel_spatial[d];
            }
            // reversed_lhs_window[q] = lhs_window[K - 1 - q].
            int64_t soff = 0;
            bool inside = true;
            for (int32_t d = 0; d < ns; d++) {
              int64_t qq = p.reversal[d] ? p.kernel_spatial[d] - 1 - q[d] : q[d];
              int64_t x = pos[d] * p.stride[d] + qq * p.rhs_dilation[d] -
                          p.pad_lo[d];
              if (x < 0 || x % p.lhs_dilation[d] ||
                  x / p.lhs_dilation[d] >= p.in_spatial[d]) {
                inside = false;
                break;
              }
              soff = soff * p.in_spatial[d] + x / p.lhs_dilation[d];
            }
            if (!inside) continue;
            for (int64_t c = 0; c < Ci; c++)
              acc += lhs[(nn * S + soff) * p.in_features + cbase + c] *
                     rhs[(ki * Ci + c) * O + o];
          }
          out[(n * P + pi) * O + o] = acc;
        }
  return out;
}

TEST(ConvNumWindows, FollowsSpecFormula) {
  EXPECT_EQ(hlx_conv_num_windows(4, 3, 4, 0, 0, 2, 1), 2);
  EXPECT_EQ(hlx_conv_num_windows(224, 7, 2, 3, 3, 1, 1), 112);
  EXPECT_EQ(hlx_conv_num_windows(9, 3, 1, 0, 0, 1, 2), 5);
  EXPECT_EQ(hlx_conv_num_windows(2, 3, 1, 0, 0, 1, 1), 0);
  EXPECT_EQ(hlx_conv_num_windows(0, 1, 1, 0, 0, 1, 1), 0);
  EXPECT_EQ(hlx_conv_num_windows(3, 0, 1, 0, 0, 1, 1), 4);  // empty kernel
  EXPECT_EQ(hlx_conv_num_windows(3, 1, 0, 0, 0, 1, 1), -1);
}

// lhs [[1 2 5 6] [3 4 7 8] [10 11 14 15] [12 13 16 17]], 3x3 ones kernel,
// stride 4, lhs dilation 2.
const int64_t kSpecLhs[] = {1, 2, 5, 6, 3, 4, 7, 8, 10, 11, 14, 15, 12, 13, 16, 17};

TEST(Conv, SpecExampleS64) {
  Geometry g{1, 1, 1, 1, 1, {4, 4}, {3, 3}, {4, 4}, {}, {}, {2, 2}, {}, {}};
  hlx_conv_params_t p;
  ASSERT_TRUE(MakeParams(g, &p));
  ASSERT_EQ(p.out_spatial[0], 2);
  std::vector<int64_t> rhs(9, 1), out(4, -1);
  ASSERT_TRUE(hlx_ref_conv_s64(&p, kSpecLhs, rhs.data(), out.data()));
  EXPECT_EQ(out, (std::vector<int64_t>{10, 26, 46, 62}));
}

TEST(Conv, SpecPaddingExample) {
  Geometry g{1, 1, 1, 1, 1, {4, 4}, {3, 3}, {4, 4}, {1, 1}, {1, 1}, {2, 2},
             {}, {}};
  hlx_conv_params_t p;
  ASSERT_TRUE(MakeParams(g, &p));
  std::vector<double> lhs(kSpecLhs, kSpecLhs + 16), rhs(9, 1.0), out(4);
  ASSERT_TRUE(hlx_ref_conv_f64(&p, lhs.data(), rhs.data(), out.data()));
  EXPECT_EQ(out, (std::vector<double>{1, 5, 10, 14}));
}

TEST(Conv, BatchGroupCountFourSpecExample) {
  // lhs batch 4 (the rows), spatial 1x4, feature 1; rhs 1x2 kernel of ones,
  // 4 output features; stride 4, lhs dilation 2.
  Geometry g{4, 1, 4, 1, 4, {1, 4}, {1, 2}, {4, 4}, {}, {}, {2, 2}, {}, {}};
  hlx_conv_params_t p;
  ASSERT_TRUE(MakeParams(g, &p));
  ASSERT_EQ(p.out_spatial[0], 1);
  ASSERT_EQ(p.out_spatial[1], 2);
  std::vector<int64_t> rhs(2 * 4, 1), out(8);
  ASSERT_TRUE(hlx_ref_conv_s64(&p, kSpecLhs, rhs.data(), out.data()));
  // out [1, 1, 2, 4] = [[1 3 10 12] [5 7 14 16]]
  EXPECT_EQ(out, (std::vector<int64_t>{1, 3, 10, 12, 5, 7, 14, 16}));
}

TEST(Conv, WindowReversalFlipsTheKernel) {
  const double lhs[] = {1, 2, 3}, rhs[] = {1, 10};
  double out[2];
  Geometry g{1, 1, 1, 1, 1, {3}, {2}, {}, {}, {}, {}, {}, {}};
  hlx_conv_params_t p;
  ASSERT_TRUE(MakeParams(g, &p));
  ASSERT_TRUE(hlx_ref_conv_f64(&p, lhs, rhs, out));
  EXPECT_EQ(out[0], 21);
  EXPECT_EQ(out[1], 32);
  g.rev = {true};
  ASSERT_TRUE(MakeParams(g, &p));
  ASSERT_TRUE(hlx_ref_conv_f64(&p, lhs, rhs, out));
  EXPECT_EQ(out[0], 12);
  EXPECT_EQ(out[1], 23);
}

TEST(Conv, S64ProductsWrap) {
  const int64_t lhs[] = {INT64_C(1) << 62, 3}, rhs[] = {4, 1};
  int64_t out[1];
  Geometry g{1, 1, 1, 1, 1, {2}, {2}, {}, {}, {}, {}, {}, {}};
  hlx_conv_params_t p;
  ASSERT_TRUE(MakeParams(g, &p));
  ASSERT_TRUE(hlx_ref_conv_s64(&p, lhs, rhs, out));
  EXPECT_EQ(out[0], 3);  // 2^64 wraps to 0
}

TEST(Conv, ComplexMultiplyAccumulate) {
  // (1+2i)(3+4i) + (0+1i)(0+1i) = (-5+10i) + (-1) = -6+10i
  const double lhs[] = {1, 2, 0, 1}, rhs[] = {3, 4, 0, 1};
  double out[2];
  Geometry g{1, 1, 1, 1, 1, {2}, {2}, {}, {}, {}, {}, {}, {}};
  hlx_conv_params_t p;
  ASSERT_TRUE(MakeParams(g, &p));
  ASSERT_TRUE(hlx_ref_conv_c128(&p, lhs, rhs, out));
  EXPECT_EQ(out[0], -6);
  EXPECT_EQ(out[1], 10);
}

TEST(Conv, NaNAndInfPropagate) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double lhs[] = {0, 1}, rhs[] = {INFINITY, nan};
  double out[1];
  Geometry g{1, 1, 1, 1, 1, {2}, {2}, {}, {}, {}, {}, {}, {}};
  hlx_conv_params_t p;
  ASSERT_TRUE(MakeParams(g, &p));
  ASSERT_TRUE(hlx_ref_conv_f64(&p, lhs, rhs, out));
  EXPECT_TRUE(std::isnan(out[0]));  // 0 * inf is NaN, not skipped
}

TEST(Conv, EmptyOutputAndEmptyFeatures) {
  double out[4] = {7, 7, 7, 7};
  Geometry g{1, 1, 1, 1, 1, {2}, {3}, {}, {}, {}, {}, {}, {}};
  hlx_conv_params_t p;
  ASSERT_TRUE(MakeParams(g, &p));
  EXPECT_EQ(p.out_spatial[0], 0);
  const double one = 1;
  ASSERT_TRUE(hlx_ref_conv_f64(&p, &one, &one, out));
  EXPECT_EQ(out[0], 7);  // nothing written
  // Zero input features: every output is 0.
  Geometry z{1, 0, 2, 1, 1, {2}, {1}, {}, {}, {}, {}, {}, {}};
  ASSERT_TRUE(MakeParams(z, &p));
  ASSERT_TRUE(hlx_ref_conv_f64(&p, nullptr, nullptr, out));
  EXPECT_EQ(out[0], 0);
  EXPECT_EQ(out[3], 0);
}

TEST(Conv, RejectsInconsistentGroups) {
  Geometry g{2, 3, 4, 2, 1, {2}, {1}, {}, {}, {}, {}, {}, {}};  // 3 % 2 != 0
  hlx_conv_params_t p;
  ASSERT_TRUE(MakeParams(g, &p));
  double buf[64] = {0};
  EXPECT_FALSE(hlx_ref_conv_f64(&p, buf, buf, buf));
}

TEST(Conv, MatchesSpecModelOnOddGeometries) {
  const Geometry geoms[] = {
      // 2-D, stride, padding, both dilations, one reversed axis.
      {2, 3, 5, 1, 1, {5, 4}, {3, 2}, {2, 1}, {1, 0}, {2, 1}, {1, 2}, {2, 1},
       {false, true}},
      // Feature groups (depthwise-like: 3 groups of 2 channels).
      {1, 6, 9, 3, 1, {7}, {3}, {2}, {1}, {1}, {}, {}, {}},
      // Batch groups.
      {6, 2, 6, 1, 3, {4, 3}, {2, 2}, {}, {0, 1}, {1, 0}, {}, {1, 2}, {}},
      // Negative padding, 3 spatial dims.
      {1, 2, 3, 1, 1, {4, 3, 5}, {2, 1, 2}, {1, 2, 2}, {-1, 0, 1},
       {0, -1, 0}, {1, 1, 2}, {}, {true, false, true}},
      // No spatial dims (a matrix product).
      {3, 4, 2, 1, 1, {}, {}, {}, {}, {}, {}, {}, {}},
  };
  for (const Geometry& g : geoms) {
    hlx_conv_params_t p;
    ASSERT_TRUE(MakeParams(g, &p));
    int32_t ns = p.num_spatial;
    int64_t nl = p.batch * Prod(p.in_spatial, ns) * p.in_features;
    int64_t nr = Prod(p.kernel_spatial, ns) * p.kernel_in_features * p.out_features;
    int64_t no = p.batch / p.batch_group_count * Prod(p.out_spatial, ns) *
                 p.out_features;
    std::vector<double> lhs(nl), rhs(nr), out(no);
    for (int64_t i = 0; i < nl; i++) lhs[i] = (double)((i * 5 + 3) % 13) - 6;
    for (int64_t i = 0; i < nr; i++) rhs[i] = (double)((i * 7 + 1) % 9) - 4;
    std::vector<double> want = Brute(p, lhs, rhs);
    ASSERT_TRUE(hlx_ref_conv_f64(&p, lhs.data(), rhs.data(), out.data()));
    EXPECT_EQ(out, want);
    // Same in s64.
    std::vector<int64_t> il(lhs.begin(), lhs.end()), ir(rhs.begin(), rhs.end()),
        io(no);
    ASSERT_TRUE(hlx_ref_conv_s64(&p, il.data(), ir.data(), io.data()));
    for (int64_t i = 0; i < no; i++) EXPECT_EQ((double)io[i], want[i]);
    // c128 with purely real data equals the real result; with data scaled
    // by i on the lhs it is i times the result.
    std::vector<double> cl(2 * nl), cr(2 * nr), co(2 * no);
    for (int64_t i = 0; i < nl; i++) cl[2 * i + 1] = lhs[i];
    for (int64_t i = 0; i < nr; i++) cr[2 * i] = rhs[i];
    ASSERT_TRUE(hlx_ref_conv_c128(&p, cl.data(), cr.data(), co.data()));
    for (int64_t i = 0; i < no; i++) {
      EXPECT_EQ(co[2 * i], 0.0);
      EXPECT_EQ(co[2 * i + 1], want[i]);
    }
  }
}

}  // namespace
