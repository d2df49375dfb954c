// uniform quantize / dequantize / requantize reference kernels.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/quant.h"

namespace {

hlx_quant_params_t PerTensor(double scale, int64_t zp) {
  static double s;
  static int64_t z;
  s = scale;
  z = zp;
  hlx_quant_params_t q = {};
  q.storage = HLX_DTYPE_S8;
  q.expressed = HLX_DTYPE_F32;
  q.storage_min = -128;
  q.storage_max = 127;
  q.channels = 1;
  q.inner = 1;
  q.scales = &s;
  q.zero_points = &z;
  return q;
}

TEST(Quant, SpecExamplesPerAxis) {
  const double s1[2] = {0.1, 0.5}, s2[2] = {0.1, 0.2};
  const int64_t z1[2] = {-30, -20}, z2[2] = {-20, -30};
  hlx_quant_params_t a = {HLX_DTYPE_S8, HLX_DTYPE_F32, -128, 127, 2, 1, s1,
                          z1};
  hlx_quant_params_t b = {HLX_DTYPE_S8, HLX_DTYPE_F32, -128, 127, 2, 1, s2,
                          z2};
  const float x[2] = {4.0f, 15.0f};
  int8_t q[2], rq[2];
  ASSERT_EQ(hlx_ref_quantize(&a, HLX_DTYPE_F32, x, q, 2), nullptr);
  EXPECT_EQ(q[0], 10);
  EXPECT_EQ(q[1], 10);
  ASSERT_EQ(hlx_ref_requantize(&a, &b, q, rq, 2), nullptr);
  EXPECT_EQ(rq[0], 20);
  EXPECT_EQ(rq[1], 45);
  float y[2];
  ASSERT_EQ(hlx_ref_dequantize(&a, q, HLX_DTYPE_F32, y, 2), nullptr);
  EXPECT_FLOAT_EQ(y[0], 4.0f);
  EXPECT_FLOAT_EQ(y[1], 15.0f);
}

TEST(Quant, PerAxisInnerStride) {
  // 2x3 tensor quantized along dim 0: channel = i / 3.
  const double s[2] = {1.0, 2.0};
  const int64_t z[2] = {0, 1};
  hlx_quant_params_t q = {HLX_DTYPE_S8, HLX_DTYPE_F32, -128, 127, 2, 3, s, z};
  const float x[6] = {1, 2, 3, 2, 4, 6};
  int8_t out[6];
  ASSERT_EQ(hlx_ref_quantize(&q, HLX_DTYPE_F32, x, out, 6), nullptr);
  const int8_t want[6] = {1, 2, 3, 2, 3, 4};
  for (int i = 0; i < 6; i++) EXPECT_EQ(out[i], want[i]) << i;
}

TEST(Quant, RoundsHalfToEvenClampsAndNaN) {
  hlx_quant_params_t q = PerTensor(1.0, 0);
  const float x[7] = {0.5f, 1.5f, 2.5f, -0.5f, 1000.0f, -1000.0f,
                      std::numeric_limits<float>::quiet_NaN()};
  int8_t out[7];
  ASSERT_EQ(hlx_ref_quantize(&q, HLX_DTYPE_F32, x, out, 7), nullptr);
  const int8_t want[7] = {0, 2, 2, 0, 127, -128, 0};
  for (int i = 0; i < 7; i++) EXPECT_EQ(out[i], want[i]) << i;
}

TEST(Quant, StorageRangeAndUnsigned) {
  static const double s = 0.5;
  static const int64_t z = 3;
  hlx_quant_params_t q = {HLX_DTYPE_U8, HLX_DTYPE_F32, 2, 10, 1, 1, &s, &z};
  const float x[3] = {-5.0f, 1.0f, 50.0f};
  uint8_t out[3];
  ASSERT_EQ(hlx_ref_quantize(&q, HLX_DTYPE_F32, x, out, 3), nullptr);
  EXPECT_EQ(out[0], 2);
  EXPECT_EQ(out[1], 5);
  EXPECT_EQ(out[2], 10);
  float y[3];
  ASSERT_EQ(hlx_ref_dequantize(&q, out, HLX_DTYPE_F32, y, 3), nullptr);
  EXPECT_FLOAT_EQ(y[0], -0.5f);
  EXPECT_FLOAT_EQ(y[1], 1.0f);
  EXPECT_FLOAT_EQ(y[2], 3.5f);
}

TEST(Quant, SubByteStorageAndLargeCount) {
  static const double s = 0.25;
  static const int64_t z = 0;
  hlx_quant_params_t q = {HLX_DTYPE_S4, HLX_DTYPE_F32, -8, 7, 1, 1, &s, &z};
  std::vector<float> x(1000);
  for (size_t i = 0; i < x.size(); i++) x[i] = (float)((int)(i % 20) - 10) * 0.25f;
  std::vector<int8_t> out(x.size());
  ASSERT_EQ(hlx_ref_quantize(&q, HLX_DTYPE_F32, x.data(), out.data(),
                             (int64_t)x.size()),
            nullptr);
  for (size_t i = 0; i < x.size(); i++) {
    int want = (int)(i % 20) - 10;
    if (want < -8) want = -8;
    if (want > 7) want = 7;
    EXPECT_EQ(out[i], want) << i;
  }
}

TEST(Quant, F16Expressed) {
  static const double s = 0.1;
  static const int64_t z = 0;
  hlx_quant_params_t q = {HLX_DTYPE_S8, HLX_DTYPE_F16, -128, 127, 1, 1, &s, &z};
  const int8_t in[1] = {10};
  uint16_t y[1];
  ASSERT_EQ(hlx_ref_dequantize(&q, in, HLX_DTYPE_F16, y, 1), nullptr);
  // 10 * f16(0.1) = 0.999755859375, halfway between f16 neighbours:
  // rounds to even, 1.0.
  EXPECT_EQ(y[0], 0x3c00);
}

TEST(Quant, BadParams) {
  hlx_quant_params_t q = PerTensor(1.0, 0);
  q.channels = 0;
  int8_t x[1] = {0};
  float y[1];
  hlx_status_t s = hlx_ref_dequantize(&q, x, HLX_DTYPE_F32, y, 1);
  ASSERT_NE(s, nullptr);
  hlx_status_free(s);
  q = PerTensor(1.0, 0);
  s = hlx_ref_dequantize(&q, x, HLX_DTYPE_S32, y, 1);
  ASSERT_NE(s, nullptr);
  hlx_status_free(s);
}

}  // namespace
