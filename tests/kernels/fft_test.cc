// fft reference kernel: spec examples, a naive long double DFT as oracle for
// mixed-radix and Bluestein lengths, multi-dim, RFFT/IRFFT shapes and
// round trips, empty dims, errors.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/fft.h"

namespace {

using cd = std::complex<double>;
using cld = std::complex<long double>;

void ExpectOk(hlx_status_t s) {
  ASSERT_EQ(s, nullptr) << hlx_status_message(s);
}

// Naive 1-D DFT in long double (sign -1 forward, +1 inverse, no scaling).
std::vector<cld> Dft(const std::vector<cld>& x, int sign) {
  size_t n = x.size();
  std::vector<cld> y(n);
  const long double pi = 3.141592653589793238462643383279502884L;
  for (size_t k = 0; k < n; k++) {
    cld acc = 0;
    for (size_t j = 0; j < n; j++) {
      long double a = sign * 2 * pi * (long double)((j * k) % n) / (long double)n;
      acc += x[j] * cld(cosl(a), sinl(a));
    }
    y[k] = acc;
  }
  return y;
}

std::vector<cd> Random(size_t n, uint32_t seed) {
  std::vector<cd> v(n);
  for (size_t i = 0; i < n; i++) {
    seed = seed * 1664525u + 1013904223u;
    double re = ((seed >> 8) % 20001) / 10000.0 - 1.0;
    seed = seed * 1664525u + 1013904223u;
    double im = ((seed >> 8) % 20001) / 10000.0 - 1.0;
    v[i] = cd(re, im);
  }
  return v;
}

// |a - b| <= tol * (max |reference| over the line) for every element.
void ExpectNear(const std::vector<cd>& got, const std::vector<cld>& want,
                double tol) {
  long double scale = 1e-300L;
  for (auto& w : want) scale = std::max(scale, std::abs(w));
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); i++) {
    long double e = std::abs(cld(got[i].real(), got[i].imag()) - want[i]);
    ASSERT_LE((double)(e / scale), tol) << "element " << i;
  }
}

TEST(Fft, SpecExampleImpulse) {
  std::vector<std::complex<float>> x = {{1, 0}, {0, 0}, {0, 0}, {0, 0}}, y(4);
  int64_t dims[1] = {4}, len[1] = {4};
  ExpectOk(hlx_ref_fft(HLX_FFT_FFT, HLX_DTYPE_C64, HLX_DTYPE_C64, 1, dims, 1,
                       len, x.data(), y.data()));
  for (auto v : y) EXPECT_EQ(v, std::complex<float>(1, 0));
}

TEST(Fft, InterpretExamples2x2) {
  // interpret/fft.mlir: FFT [2,2] of [[1+2i, 3-4i], [-5+6i, -7-8i]].
  std::vector<cd> x = {{1, 2}, {3, -4}, {-5, 6}, {-7, -8}}, y(4), z(4);
  int64_t dims[2] = {2, 2}, len[2] = {2, 2};
  ExpectOk(hlx_ref_fft(HLX_FFT_FFT, HLX_DTYPE_C128, HLX_DTYPE_C128, 2, dims, 2,
                       len, x.data(), y.data()));
  EXPECT_EQ(y, (std::vector<cd>{{-8, -4}, {0, 20}, {16, 0}, {-4, -8}}));
  ExpectOk(hlx_ref_fft(HLX_FFT_IFFT, HLX_DTYPE_C128, HLX_DTYPE_C128, 2, dims, 2,
                       len, y.data(), z.data()));
  EXPECT_EQ(z, x);  // IFFT is scaled by 1/n per dim
}

TEST(Fft, MatchesNaiveDftForManyLengths) {
  // Powers of two, mixed radix (2,3,5,7, 17, 61), Bluestein (67, 131, 2*97).
  for (int64_t n : {1, 2, 3, 5, 8, 12, 17, 30, 33, 49, 61, 64, 67, 131, 194, 210}) {
    std::vector<cd> x = Random((size_t)n, (uint32_t)n), y((size_t)n), z((size_t)n);
    int64_t dims[1] = {n}, len[1] = {n};
    ExpectOk(hlx_ref_fft(HLX_FFT_FFT, HLX_DTYPE_C128, HLX_DTYPE_C128, 1, dims, 1,
                         len, x.data(), y.data()));
    std::vector<cld> xl(x.begin(), x.end());
    ExpectNear(y, Dft(xl, -1), 1e-15);
    ExpectOk(hlx_ref_fft(HLX_FFT_IFFT, HLX_DTYPE_C128, HLX_DTYPE_C128, 1, dims,
                         1, len, y.data(), z.data()));
    std::vector<cld> inv = Dft(std::vector<cld>(y.begin(), y.end()), +1);
    for (auto& v : inv) v /= (long double)n;
    ExpectNear(z, inv, 1e-15);
    for (size_t i = 0; i < x.size(); i++) {
      EXPECT_NEAR(z[i].real(), x[i].real(), 1e-14) << n;
      EXPECT_NEAR(z[i].imag(), x[i].imag(), 1e-14) << n;
    }
  }
}

TEST(Fft, BatchedThreeDimsOverLastTwoAxes) {
  // Shape 2x3x5, transform the last two dims; compare with row/col DFTs.
  const int64_t B = 2, R = 3, C = 5;
  std::vector<cd> x = Random(B * R * C, 7), y(x.size());
  int64_t dims[3] = {B, R, C}, len[2] = {R, C};
  ExpectOk(hlx_ref_fft(HLX_FFT_FFT, HLX_DTYPE_C128, HLX_DTYPE_C128, 3, dims, 2,
                       len, x.data(), y.data()));
  for (int64_t b = 0; b < B; b++) {
    std::vector<cld> t(R * C);
    for (int64_t r = 0; r < R; r++) {
      std::vector<cld> row(x.begin() + (b * R + r) * C, x.begin() + (b * R + r + 1) * C);
      auto f = Dft(row, -1);
      for (int64_t c = 0; c < C; c++) t[r * C + c] = f[c];
    }
    std::vector<cld> want(R * C);
    for (int64_t c = 0; c < C; c++) {
      std::vector<cld> col(R);
      for (int64_t r = 0; r < R; r++) col[r] = t[r * C + c];
      auto f = Dft(col, -1);
      for (int64_t r = 0; r < R; r++) want[r * C + c] = f[r];
    }
    std::vector<cd> got(y.begin() + b * R * C, y.begin() + (b + 1) * R * C);
    ExpectNear(got, want, 1e-15);
  }
}

TEST(Fft, RfftShapesAndValuesF32) {
  // RFFT of 7 reals -> 4 complex; 2 rows.
  std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, -1, 0.5f, 0, 2, 0, 0, 3};
  std::vector<std::complex<float>> y(8);
  int64_t dims[2] = {2, 7}, len[1] = {7};
  ExpectOk(hlx_ref_fft(HLX_FFT_RFFT, HLX_DTYPE_F32, HLX_DTYPE_C64, 2, dims, 1,
                       len, x.data(), y.data()));
  for (int r = 0; r < 2; r++) {
    std::vector<cld> row(7);
    for (int j = 0; j < 7; j++) row[j] = x[r * 7 + j];
    auto f = Dft(row, -1);
    for (int k = 0; k < 4; k++) {
      // Computed in extended precision, rounded once: within 1 ULP-ish.
      EXPECT_NEAR(y[r * 4 + k].real(), (double)f[k].real(), 4e-6);
      EXPECT_NEAR(y[r * 4 + k].imag(), (double)f[k].imag(), 4e-6);
      EXPECT_EQ(y[r * 4 + k].real(), (float)f[k].real());
    }
  }
}

TEST(Fft, IrfftInvertsRfftEvenAndOdd2D) {
  for (int64_t n : {6, 9}) {
    const int64_t R = 3;
    int64_t h = n / 2 + 1;
    std::vector<double> x(R * n), back(R * n);
    auto r = Random(R * n, 3);
    for (size_t i = 0; i < x.size(); i++) x[i] = r[i].real();
    std::vector<cd> spec(R * h);
    int64_t dims[2] = {R, n}, len[2] = {R, n};
    ExpectOk(hlx_ref_fft(HLX_FFT_RFFT, HLX_DTYPE_F64, HLX_DTYPE_C128, 2, dims, 2,
                         len, x.data(), spec.data()));
    int64_t sdims[2] = {R, h};
    ExpectOk(hlx_ref_fft(HLX_FFT_IRFFT, HLX_DTYPE_C128, HLX_DTYPE_F64, 2, sdims,
                         2, len, spec.data(), back.data()));
    for (size_t i = 0; i < x.size(); i++) EXPECT_NEAR(back[i], x[i], 1e-15) << n;
  }
}

TEST(Fft, IrfftIgnoresImaginaryDcAndNyquist) {
  // n = 4: input [a, b, c] with imaginary DC/Nyquist parts that a real
  // signal cannot have; they are dropped (real part of the inverse).
  std::vector<cd> in = {{4, 100}, {1, 1}, {2, -50}};
  std::vector<double> out(4);
  int64_t dims[1] = {3}, len[1] = {4};
  ExpectOk(hlx_ref_fft(HLX_FFT_IRFFT, HLX_DTYPE_C128, HLX_DTYPE_F64, 1, dims, 1,
                       len, in.data(), out.data()));
  // x_j = (4 + 2 Re(1+i) cos(pi j/2) - 2 Im(1+i) sin(pi j/2) + 2 (-1)^j) / 4
  EXPECT_NEAR(out[0], (4 + 2 + 2) / 4.0, 1e-15);
  EXPECT_NEAR(out[1], (4 - 2 - 2) / 4.0, 1e-15);
  EXPECT_NEAR(out[2], (4 - 2 + 2) / 4.0, 1e-15);
  EXPECT_NEAR(out[3], (4 + 2 - 2) / 4.0, 1e-15);
}

TEST(Fft, EmptyDimsWriteNothing) {
  std::vector<float> x(1);
  std::vector<std::complex<float>> y(1, {42, 42});
  int64_t dims[3] = {14, 0, 17}, len[1] = {17};
  ExpectOk(hlx_ref_fft(HLX_FFT_RFFT, HLX_DTYPE_F32, HLX_DTYPE_C64, 3, dims, 1,
                       len, x.data(), y.data()));
  EXPECT_EQ(y[0], std::complex<float>(42, 42));
  int64_t d0[1] = {0}, l0[1] = {0};
  ExpectOk(hlx_ref_fft(HLX_FFT_IRFFT, HLX_DTYPE_C64, HLX_DTYPE_F32, 1, d0, 1,
                       l0, y.data(), x.data()));
}

TEST(Fft, Errors) {
  std::vector<cd> x(8), y(8);
  int64_t dims[1] = {8}, len[1] = {8}, bad[1] = {4};
  hlx_status_t s = hlx_ref_fft(HLX_FFT_FFT, HLX_DTYPE_C128, HLX_DTYPE_C64, 1,
                               dims, 1, len, x.data(), y.data());
  ASSERT_NE(s, nullptr);
  EXPECT_NE(std::string(hlx_status_message(s)).find("element types"), std::string::npos);
  hlx_status_free(s);
  s = hlx_ref_fft(HLX_FFT_FFT, HLX_DTYPE_C128, HLX_DTYPE_C128, 1, dims, 1, bad,
                  x.data(), y.data());
  ASSERT_NE(s, nullptr);
  hlx_status_free(s);
  int64_t four[4] = {1, 1, 1, 8};
  s = hlx_ref_fft(HLX_FFT_FFT, HLX_DTYPE_C128, HLX_DTYPE_C128, 4, four, 4, four,
                  x.data(), y.data());
  ASSERT_NE(s, nullptr);  // more than 3 fft dims
  hlx_status_free(s);
  // IRFFT operand's last dim must be n/2 + 1.
  s = hlx_ref_fft(HLX_FFT_IRFFT, HLX_DTYPE_C128, HLX_DTYPE_F64, 1, dims, 1, len,
                  x.data(), y.data());
  ASSERT_NE(s, nullptr);
  hlx_status_free(s);
}

}  // namespace
