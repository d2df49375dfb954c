// cholesky, triangular_solve and batch_norm_* reference kernels.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>

#include "kernels/linalg.h"

namespace {

using cf = std::complex<float>;

TEST(Cholesky, SpecExampleLowerAndUpper) {
  const float a[9] = {1, 2, 3, 2, 20, 26, 3, 26, 70};
  float l[9];
  ASSERT_EQ(hlx_ref_cholesky(HLX_DTYPE_F32, 1, 3, true, a, l), nullptr);
  const float want[9] = {1, 0, 0, 2, 4, 0, 3, 5, 6};
  for (int i = 0; i < 9; i++) EXPECT_FLOAT_EQ(l[i], want[i]) << i;
  float u[9];
  ASSERT_EQ(hlx_ref_cholesky(HLX_DTYPE_F32, 1, 3, false, a, u), nullptr);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) EXPECT_FLOAT_EQ(u[i * 3 + j], want[j * 3 + i]);
}

TEST(Cholesky, ReadsOnlyItsTriangleAndBatches) {
  // Two batches; garbage in the unread triangle.
  const double a[8] = {4, 99, 2, 10, /* */ 9, -7, 3, 5};
  double l[8];
  ASSERT_EQ(hlx_ref_cholesky(HLX_DTYPE_F64, 2, 2, true, a, l), nullptr);
  EXPECT_DOUBLE_EQ(l[0], 2);
  EXPECT_DOUBLE_EQ(l[1], 0);
  EXPECT_DOUBLE_EQ(l[2], 1);
  EXPECT_DOUBLE_EQ(l[3], 3);
  EXPECT_DOUBLE_EQ(l[4], 3);
  EXPECT_DOUBLE_EQ(l[6], 1);
  EXPECT_DOUBLE_EQ(l[7], 2);
}

TEST(Cholesky, ComplexHermitian) {
  // a = L L^H with L = [[2, 0], [1+i, 3]].
  const cf a[4] = {cf(4, 0), cf(2, -2), cf(2, 2), cf(11, 0)};
  cf l[4];
  ASSERT_EQ(hlx_ref_cholesky(HLX_DTYPE_C64, 1, 2, true, a, l), nullptr);
  EXPECT_NEAR(l[0].real(), 2, 1e-6);
  EXPECT_NEAR(l[2].real(), 1, 1e-6);
  EXPECT_NEAR(l[2].imag(), 1, 1e-6);
  EXPECT_NEAR(l[3].real(), 3, 1e-6);
  EXPECT_EQ(l[1], cf(0, 0));
  cf u[4];
  ASSERT_EQ(hlx_ref_cholesky(HLX_DTYPE_C64, 1, 2, false, a, u), nullptr);
  EXPECT_NEAR(u[1].real(), 1, 1e-6);  // U = L^H: u01 = conj(l10)
  EXPECT_NEAR(u[1].imag(), -1, 1e-6);
}

TEST(Cholesky, NotPositiveDefiniteGivesNaN) {
  const float a[4] = {-1, 0, 0, 1};
  float l[4];
  ASSERT_EQ(hlx_ref_cholesky(HLX_DTYPE_F32, 1, 2, true, a, l), nullptr);
  EXPECT_TRUE(std::isnan(l[0]));
}

TEST(Cholesky, RejectsIntegers) {
  int32_t a[1] = {1}, o[1];
  hlx_status_t s = hlx_ref_cholesky(HLX_DTYPE_S32, 1, 1, true, a, o);
  ASSERT_NE(s, nullptr);
  hlx_status_free(s);
}

TEST(TriangularSolve, SpecExample) {
  const float a[9] = {1, 0, 0, 2, 4, 0, 3, 5, 6};
  const float b[9] = {2, 0, 0, 4, 8, 0, 6, 10, 12};
  float x[9];
  ASSERT_EQ(hlx_ref_triangular_solve(HLX_DTYPE_F32, 1, 3, 3, true, true, false,
                                     HLX_TRANSPOSE_NO, a, b, x),
            nullptr);
  const float want[9] = {2, 0, 0, 0, 2, 0, 0, 0, 2};
  for (int i = 0; i < 9; i++) EXPECT_NEAR(x[i], want[i], 1e-6) << i;
}

// Every side/triangle/transpose/unit combination against op(A) x = b checked
// by multiplying back, in f64 (exact substitution) and f32 (XLA's path).
TEST(TriangularSolve, AllVariantsMultiplyBack) {
  const int k = 4, o = 3;
  double a[k * k];
  for (int i = 0; i < k * k; i++) a[i] = 0.5 + ((i * 7) % 5) * 0.25;
  for (int i = 0; i < k; i++) a[i * k + i] = 2.0 + i;
  for (int left = 0; left < 2; left++)
    for (int lower = 0; lower < 2; lower++)
      for (int unit = 0; unit < 2; unit++)
        for (int tr = 0; tr < 2; tr++) {
          int m = left ? k : o, n = left ? o : k;
          std::vector<double> b(m * n), x(m * n);
          for (int i = 0; i < m * n; i++) b[i] = std::sin(i + 1.0);
          ASSERT_EQ(hlx_ref_triangular_solve(
                        HLX_DTYPE_F64, 1, m, n, left, lower, unit,
                        tr ? HLX_TRANSPOSE_T : HLX_TRANSPOSE_NO, a, b.data(),
                        x.data()),
                    nullptr);
          // opA(i, j)
          auto opa = [&](int i, int j) {
            int r = tr ? j : i, c = tr ? i : j;
            if (r == c && unit) return 1.0;
            bool in = lower ? r >= c : r <= c;
            return in ? a[r * k + c] : 0.0;
          };
          std::vector<float> af(a, a + k * k), bf(b.begin(), b.end()),
              xf(m * n);
          ASSERT_EQ(hlx_ref_triangular_solve(
                        HLX_DTYPE_F32, 1, m, n, left, lower, unit,
                        tr ? HLX_TRANSPOSE_T : HLX_TRANSPOSE_NO, af.data(),
                        bf.data(), xf.data()),
                    nullptr);
          for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++) {
              double s = 0, sf = 0;
              for (int q = 0; q < k; q++) {
                if (left) {
                  s += opa(i, q) * x[q * n + j];
                  sf += opa(i, q) * xf[q * n + j];
                } else {
                  s += x[i * n + q] * opa(q, j);
                  sf += xf[i * n + q] * opa(q, j);
                }
              }
              EXPECT_NEAR(s, b[i * n + j], 1e-12)
                  << left << lower << unit << tr;
              EXPECT_NEAR(sf, b[i * n + j], 1e-5)
                  << left << lower << unit << tr;
            }
        }
}

TEST(TriangularSolve, ComplexAdjoint) {
  // Values from the StableHLO interpreter tests.
  const cf a[9] = {cf(1, 1), cf(0, 0), cf(0, 0), cf(2, -2), cf(3, 4),
                   cf(0, 0), cf(4, -3), cf(5, 5), cf(6, -8)};
  const cf b[3] = {cf(7, -2), cf(8, 4), cf(9, -5)};
  cf x[3];
  ASSERT_EQ(hlx_ref_triangular_solve(HLX_DTYPE_C64, 1, 3, 1, true, true, false,
                                     HLX_TRANSPOSE_NO, a, b, x),
            nullptr);
  EXPECT_NEAR(x[0].real(), 2.5, 1e-5);
  EXPECT_NEAR(x[0].imag(), -4.5, 1e-5);
  EXPECT_NEAR(x[1].real(), 4.32, 1e-5);
  EXPECT_NEAR(x[1].imag(), 0.24, 1e-5);
  ASSERT_EQ(hlx_ref_triangular_solve(HLX_DTYPE_C64, 1, 3, 1, true, true, false,
                                     HLX_TRANSPOSE_ADJOINT, a, b, x),
            nullptr);
  EXPECT_NEAR(x[0].real(), 7.18, 1e-4);
  EXPECT_NEAR(x[0].imag(), 2.68, 1e-4);
  EXPECT_NEAR(x[2].real(), 0.14, 1e-4);
  EXPECT_NEAR(x[2].imag(), -1.02, 1e-4);
}

TEST(TriangularSolve, BatchedAndEmpty) {
  const double a[8] = {2, 0, 0, 4, /* */ 1, 0, 1, 1};
  const double b[4] = {2, 8, 3, 5};
  double x[4];
  ASSERT_EQ(hlx_ref_triangular_solve(HLX_DTYPE_F64, 2, 2, 1, true, true,
                                     false, HLX_TRANSPOSE_NO, a, b, x),
            nullptr);
  EXPECT_DOUBLE_EQ(x[0], 1);
  EXPECT_DOUBLE_EQ(x[1], 2);
  EXPECT_DOUBLE_EQ(x[2], 3);
  EXPECT_DOUBLE_EQ(x[3], 2);
  ASSERT_EQ(hlx_ref_triangular_solve(HLX_DTYPE_F64, 2, 2, 0, true, true,
                                     false, HLX_TRANSPOSE_NO, a, b, x),
            nullptr);
}

TEST(BatchNorm, SpecExamples) {
  const double x[8] = {1, 2, 3, 4, 3, 4, 1, 2};
  const double one[2] = {1, 1}, mean[2] = {2, 3};
  double y[8];
  // feature_index 2 of 2x2x2: outer 4, c 2, inner 1.
  ASSERT_EQ(hlx_ref_batch_norm_inference(HLX_DTYPE_F64, 4, 2, 1, x, one, one,
                                         mean, one, 0.0f, y),
            nullptr);
  const double want[8] = {0, 0, 2, 2, 2, 2, 0, 0};
  for (int i = 0; i < 8; i++) EXPECT_DOUBLE_EQ(y[i], want[i]);
  double bm[2], bv[2];
  ASSERT_EQ(hlx_ref_batch_norm_training(HLX_DTYPE_F64, 4, 2, 1, x, one, one,
                                        0.0f, y, bm, bv),
            nullptr);
  for (int i = 0; i < 8; i++) EXPECT_DOUBLE_EQ(y[i], want[i]);
  EXPECT_DOUBLE_EQ(bm[0], 2);
  EXPECT_DOUBLE_EQ(bm[1], 3);
  EXPECT_DOUBLE_EQ(bv[0], 1);
  EXPECT_DOUBLE_EQ(bv[1], 1);
  double g[8], gx[8], gs[2], go[2];
  for (double& v : g) v = 0.1;
  ASSERT_EQ(hlx_ref_batch_norm_grad(HLX_DTYPE_F64, 4, 2, 1, x, one, mean, one,
                                    g, 0.0f, gx, gs, go),
            nullptr);
  for (double v : gx) EXPECT_NEAR(v, 0, 1e-12);
  EXPECT_NEAR(gs[0], 0, 1e-12);
  EXPECT_NEAR(go[0], 0.4, 1e-12);
  EXPECT_NEAR(go[1], 0.4, 1e-12);
}

TEST(BatchNorm, GradMatchesFiniteDifferences) {
  // grad_operand of sum(g * batch_norm_training(x)) w.r.t. x when mean and
  // variance are x's own batch statistics.
  const int outer = 3, c = 2, inner = 2, n = outer * c * inner;
  std::vector<double> x(n), g(n), scale = {1.5, -0.5}, off = {0.2, 0.3};
  for (int i = 0; i < n; i++) {
    x[i] = std::cos(i * 1.3) * 2;
    g[i] = std::sin(i * 0.7);
  }
  const float eps = 0.01f;
  auto loss = [&](const std::vector<double>& xx) {
    std::vector<double> y(n), m(c), v(c);
    EXPECT_EQ(hlx_ref_batch_norm_training(HLX_DTYPE_F64, outer, c, inner,
                                          xx.data(), scale.data(), off.data(),
                                          eps, y.data(), m.data(), v.data()),
              nullptr);
    double s = 0;
    for (int i = 0; i < n; i++) s += g[i] * y[i];
    return s;
  };
  std::vector<double> y(n), m(c), v(c), gx(n), gs(c), go(c);
  ASSERT_EQ(hlx_ref_batch_norm_training(HLX_DTYPE_F64, outer, c, inner,
                                        x.data(), scale.data(), off.data(),
                                        eps, y.data(), m.data(), v.data()),
            nullptr);
  ASSERT_EQ(hlx_ref_batch_norm_grad(HLX_DTYPE_F64, outer, c, inner, x.data(),
                                    scale.data(), m.data(), v.data(),
                                    g.data(), eps, gx.data(), gs.data(),
                                    go.data()),
            nullptr);
  for (int i = 0; i < n; i++) {
    std::vector<double> xp = x, xm = x;
    xp[i] += 1e-6;
    xm[i] -= 1e-6;
    double fd = (loss(xp) - loss(xm)) / 2e-6;
    EXPECT_NEAR(gx[i], fd, 1e-5) << i;
  }
}

TEST(BatchNorm, F16AndRejectsInts) {
  // f16 values 2, 4 with mean 3, var 1 -> -1, 1.
  const uint16_t x[2] = {0x4000, 0x4400};
  const uint16_t one = 0x3c00, zero = 0, three = 0x4200;
  uint16_t y[2];
  ASSERT_EQ(hlx_ref_batch_norm_inference(HLX_DTYPE_F16, 2, 1, 1, x, &one,
                                         &zero, &three, &one, 0.0f, y),
            nullptr);
  EXPECT_EQ(y[0], 0xbc00);
  EXPECT_EQ(y[1], 0x3c00);
  int32_t xi[1] = {0}, o[1];
  hlx_status_t s = hlx_ref_batch_norm_inference(HLX_DTYPE_S32, 1, 1, 1, xi,
                                                xi, xi, xi, xi, 0.0f, o);
  ASSERT_NE(s, nullptr);
  hlx_status_free(s);
}

}  // namespace
