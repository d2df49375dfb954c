// FFTW plans (kernels/libs/fftw.c) against the reference fft kernel: all
// four transform types, ranks 1-3, power-of-two / odd / prime lengths,
// batches, f32 and f64, non-finite inputs, and the fallback cases.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>
#include <string>
#include <vector>

extern "C" {
#include "kernels/fft.h"
#include "kernels/libs/fftw.h"
}

namespace {

struct Case {
  hlx_fft_type_t type;
  bool f64;
  std::vector<int64_t> dims;  // operand dims
  std::vector<int64_t> len;   // fft_length
};

int64_t Count(const std::vector<int64_t>& d) {
  int64_t n = 1;
  for (int64_t x : d) n *= x;
  return n;
}

// Runs both kernels on random data (with `poison` non-finite values
// planted) and compares every real component within a tolerance scaled by
// the transform's magnitude.
void Check(const Case& c, bool poison = false) {
  bool complex_in = c.type != HLX_FFT_RFFT;
  bool complex_out = c.type != HLX_FFT_IRFFT;
  hlx_dtype_t in_t = complex_in ? (c.f64 ? HLX_DTYPE_C128 : HLX_DTYPE_C64)
                                : (c.f64 ? HLX_DTYPE_F64 : HLX_DTYPE_F32);
  hlx_dtype_t out_t = complex_out ? (c.f64 ? HLX_DTYPE_C128 : HLX_DTYPE_C64)
                                  : (c.f64 ? HLX_DTYPE_F64 : HLX_DTYPE_F32);
  std::vector<int64_t> out_dims = c.dims;
  int64_t last = c.len.back();
  if (c.type == HLX_FFT_RFFT) out_dims.back() = last / 2 + 1;
  if (c.type == HLX_FFT_IRFFT) out_dims.back() = last;
  size_t in_reals = (size_t)Count(c.dims) * (complex_in ? 2 : 1);
  size_t out_reals = (size_t)Count(out_dims) * (complex_out ? 2 : 1);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> x(in_reals);
  for (auto& v : x) v = u(rng);
  if (poison && in_reals > 3) {
    // Real parts (imaginary parts of an IRFFT operand's DC term do not
    // contribute to a real result; FFTW ignores them, NaN or not).
    x[0] = NAN;
    x[2] = INFINITY;
  }
  std::vector<char> in(in_reals * (c.f64 ? 8 : 4));
  for (size_t i = 0; i < in_reals; i++) {
    if (c.f64)
      reinterpret_cast<double*>(in.data())[i] = x[i];
    else
      reinterpret_cast<float*>(in.data())[i] = (float)x[i];
  }
  std::vector<char> in_copy = in;
  std::vector<char> want(out_reals * (c.f64 ? 8 : 4) + 8);
  std::vector<char> got(want.size());
  hlx_status_t s = hlx_ref_fft(c.type, in_t, out_t, (int32_t)c.dims.size(),
                               c.dims.data(), (int32_t)c.len.size(),
                               c.len.data(), in.data(), want.data());
  ASSERT_EQ(s, nullptr) << hlx_status_message(s);
  const hlx_fftw_plan_t* p = nullptr;
  s = hlx_fftw_plan_get(c.type, in_t, (int32_t)c.dims.size(), c.dims.data(),
                        (int32_t)c.len.size(), c.len.data(), &p);
  ASSERT_EQ(s, nullptr) << hlx_status_message(s);
  ASSERT_EQ(hlx_fftw_execute(p, in.data(), got.data()), nullptr);
  EXPECT_EQ(in, in_copy) << "the operand was modified";
  double mag = 0;
  for (size_t i = 0; i < out_reals; i++) {
    double w = c.f64 ? reinterpret_cast<double*>(want.data())[i]
                     : reinterpret_cast<float*>(want.data())[i];
    if (std::isfinite(w)) mag = std::max(mag, std::fabs(w));
  }
  double tol = (c.f64 ? 1e-13 : 2e-6) * (mag + 1) *
               std::log2((double)Count(c.len) + 2);
  for (size_t i = 0; i < out_reals; i++) {
    double w = c.f64 ? reinterpret_cast<double*>(want.data())[i]
                     : reinterpret_cast<float*>(want.data())[i];
    double g = c.f64 ? reinterpret_cast<double*>(got.data())[i]
                     : reinterpret_cast<float*>(got.data())[i];
    if (!std::isfinite(w)) {
      // A complex element is non-finite in both; which of its two parts is
      // NaN depends on the arithmetic order (FFTW skips multiplications by
      // the unit twiddle, the reference does not), which IEEE leaves open.
      size_t first = complex_out ? i & ~(size_t)1 : i;
      size_t parts = complex_out ? 2 : 1;
      bool any = false;
      for (size_t j = first; j < first + parts; j++)
        any |= !std::isfinite(c.f64 ? reinterpret_cast<double*>(got.data())[j]
                                    : reinterpret_cast<float*>(got.data())[j]);
      EXPECT_TRUE(any) << "element " << i / parts << " is finite";
      continue;
    }
    ASSERT_NEAR(g, w, tol) << "element " << i;
  }
}

const hlx_fft_type_t kTypes[] = {HLX_FFT_FFT, HLX_FFT_IFFT, HLX_FFT_RFFT,
                                 HLX_FFT_IRFFT};

// The operand dims for a transform of `len` over a batch of `batch`.
std::vector<int64_t> Dims(hlx_fft_type_t t, std::vector<int64_t> batch,
                          const std::vector<int64_t>& len) {
  for (size_t i = 0; i < len.size(); i++)
    batch.push_back(i + 1 == len.size() && t == HLX_FFT_IRFFT
                        ? len[i] / 2 + 1
                        : len[i]);
  return batch;
}

TEST(Fftw, OneDimensionalLengthsMatchReference) {
  for (hlx_fft_type_t t : kTypes)
    for (bool f64 : {false, true})
      for (int64_t n : {1, 2, 7, 16, 97, 120, 1024, 4099})
        Check({t, f64, Dims(t, {3}, {n}), {n}});
}

TEST(Fftw, MultiDimensionalAndBatchedMatchReference) {
  for (hlx_fft_type_t t : kTypes)
    for (bool f64 : {false, true}) {
      Check({t, f64, Dims(t, {2, 3}, {6, 10}), {6, 10}});
      Check({t, f64, Dims(t, {}, {5, 8, 9}), {5, 8, 9}});
      Check({t, f64, Dims(t, {4}, {32, 33}), {32, 33}});
    }
}

TEST(Fftw, NonFiniteInputsPropagateLikeReference) {
  for (hlx_fft_type_t t : kTypes) Check({t, false, Dims(t, {2}, {16}), {16}}, true);
}

TEST(Fftw, PlansAreCachedPerShape) {
  const hlx_fftw_plan_t *a = nullptr, *b = nullptr;
  int64_t dims[] = {4, 64}, len[] = {64};
  ASSERT_EQ(hlx_fftw_plan_get(HLX_FFT_FFT, HLX_DTYPE_C64, 2, dims, 1, len, &a),
            nullptr);
  ASSERT_EQ(hlx_fftw_plan_get(HLX_FFT_FFT, HLX_DTYPE_C64, 2, dims, 1, len, &b),
            nullptr);
  EXPECT_EQ(a, b);
}

// Shapes FFTW is not given (empty transforms, wrong element types) are
// UNIMPLEMENTED, so the caller falls back to the reference kernel.
TEST(Fftw, EmptyAndUnsupportedShapesFallBack) {
  const hlx_fftw_plan_t* p = nullptr;
  int64_t dims[] = {0, 8}, len[] = {8};
  hlx_status_t s = hlx_fftw_plan_get(HLX_FFT_FFT, HLX_DTYPE_C64, 2, dims, 1,
                                     len, &p);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(hlx_status_code(s), HLX_STATUS_UNIMPLEMENTED);
  hlx_status_free(s);
  int64_t dims2[] = {8};
  s = hlx_fftw_plan_get(HLX_FFT_FFT, HLX_DTYPE_F32, 1, dims2, 1, len, &p);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(hlx_status_code(s), HLX_STATUS_UNIMPLEMENTED);
  hlx_status_free(s);
}

}  // namespace
