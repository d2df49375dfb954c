// rng_bit_generator (Threefry / Philox as XLA) and rng kernels.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/rng.h"

namespace {

TEST(Threefry, KnownAnswerRandom123) {
  // Random123's kat_vectors: threefry2x32_20 with zero key and counter.
  uint32_t key[2] = {0, 0};
  uint32_t x[2] = {0, 0};
  hlx_threefry2x32(key, x);
  EXPECT_EQ(x[0], 0x6b200159u);
  EXPECT_EQ(x[1], 0x99ba4efeu);
  uint32_t key2[2] = {0xffffffffu, 0xffffffffu};
  uint32_t y[2] = {0xffffffffu, 0xffffffffu};
  hlx_threefry2x32(key2, y);
  EXPECT_EQ(y[0], 0x1cb996fcu);
  EXPECT_EQ(y[1], 0xbb002be7u);
}

TEST(Philox, KnownAnswerRandom123) {
  // Random123's kat_vectors: philox4x32_10 with zero key and counter.
  uint32_t key[2] = {0, 0};
  uint32_t c[4] = {0, 0, 0, 0};
  hlx_philox4x32(key, c);
  EXPECT_EQ(c[0], 0x6627e8d5u);
  EXPECT_EQ(c[1], 0xe169c58du);
  EXPECT_EQ(c[2], 0xbc57ac4cu);
  EXPECT_EQ(c[3], 0x9b00dbd8u);
}

TEST(RngBitGenerator, ThreeFrySpecExampleU64) {
  uint64_t st[2] = {1, 2}, os[2];
  uint64_t out[4];
  int64_t dims[2] = {2, 2};
  ASSERT_EQ(hlx_ref_rng_bit_generator(HLX_RNG_THREE_FRY, st, 2, os,
                                      HLX_DTYPE_U64, 2, dims, out),
            nullptr);
  EXPECT_EQ(os[0], 1u);
  EXPECT_EQ(os[1], 6u);
  EXPECT_EQ(out[0], 9236835810183407956ull);
  EXPECT_EQ(out[1], 16087790271692313299ull);
  EXPECT_EQ(out[2], 18212823393184779219ull);
  EXPECT_EQ(out[3], 2658481902456610144ull);
}

TEST(RngBitGenerator, ThreeFry32SplitsTheEvenDimension) {
  // 3x2 u32: split dim 1 (size 2) into halves; row i = threefry(counter i).
  uint64_t st[2] = {0, 0}, os[2];
  uint32_t out[6];
  int64_t dims[2] = {3, 2};
  ASSERT_EQ(hlx_ref_rng_bit_generator(HLX_RNG_THREE_FRY, st, 2, os,
                                      HLX_DTYPE_U32, 2, dims, out),
            nullptr);
  EXPECT_EQ(os[1], 3u);
  const uint32_t key[2] = {0, 0};
  for (uint32_t i = 0; i < 3; i++) {
    uint32_t x[2] = {i, 0};
    hlx_threefry2x32(key, x);
    EXPECT_EQ(out[2 * i], x[0]);
    EXPECT_EQ(out[2 * i + 1], x[1]);
  }
  EXPECT_EQ(out[0], 1797259609u);
  EXPECT_EQ(out[5], 4229293427u);
}

TEST(RngBitGenerator, ThreeFry32OddShape) {
  // 3 elements (odd): half shape 2; x0 of counter 0,1 at 0,2 and x1 of
  // counter 0 at 1. Counter advances by 2.
  uint64_t st[2] = {5, 10}, os[2];
  uint32_t out[3];
  int64_t dims[1] = {3};
  ASSERT_EQ(hlx_ref_rng_bit_generator(HLX_RNG_THREE_FRY, st, 2, os,
                                      HLX_DTYPE_U32, 1, dims, out),
            nullptr);
  EXPECT_EQ(os[1], 12u);
  const uint32_t key[2] = {5, 0};
  uint32_t a[2] = {10, 0}, b[2] = {11, 0};
  hlx_threefry2x32(key, a);
  hlx_threefry2x32(key, b);
  EXPECT_EQ(out[0], a[0]);
  EXPECT_EQ(out[1], a[1]);
  EXPECT_EQ(out[2], b[0]);
}

TEST(RngBitGenerator, PhiloxLayoutAndState) {
  uint64_t st[3] = {0x123456789ull, ~0ull, 4}, os[3];
  uint32_t out[6];
  int64_t dims[1] = {6};
  ASSERT_EQ(hlx_ref_rng_bit_generator(HLX_RNG_PHILOX, st, 3, os,
                                      HLX_DTYPE_U32, 1, dims, out),
            nullptr);
  // Two blocks; the 128-bit counter carries into the high word.
  EXPECT_EQ(os[0], st[0]);
  EXPECT_EQ(os[1], 1u);
  EXPECT_EQ(os[2], 5u);
  const uint32_t key[2] = {0x23456789u, 0x1u};
  uint32_t b0[4] = {0xffffffffu, 0xffffffffu, 4, 0};
  uint32_t b1[4] = {0, 0, 5, 0};
  hlx_philox4x32(key, b0);
  hlx_philox4x32(key, b1);
  for (int i = 0; i < 4; i++) EXPECT_EQ(out[i], b0[i]);
  EXPECT_EQ(out[4], b1[0]);
  EXPECT_EQ(out[5], b1[1]);
}

TEST(RngBitGenerator, PhiloxTwoWordStateAnd64Bit) {
  uint64_t st[2] = {3, 100}, os[2];
  uint64_t out[3];
  int64_t dims[1] = {3};
  ASSERT_EQ(hlx_ref_rng_bit_generator(HLX_RNG_PHILOX, st, 2, os,
                                      HLX_DTYPE_S64, 1, dims, out),
            nullptr);
  EXPECT_EQ(os[0], 3u);
  EXPECT_EQ(os[1], 102u);
  // 2-word state: counter = (lo = state[1], hi = state[0]).
  const uint32_t key[2] = {3, 0};
  uint32_t b0[4] = {100, 0, 3, 0};
  hlx_philox4x32(key, b0);
  EXPECT_EQ(out[0], (uint64_t)b0[0] | (uint64_t)b0[1] << 32);
  EXPECT_EQ(out[1], (uint64_t)b0[2] | (uint64_t)b0[3] << 32);
}

TEST(RngBitGenerator, NarrowTypesTruncate) {
  uint64_t st[2] = {9, 9}, os[2];
  uint32_t wide[4];
  uint16_t h[4];
  int8_t s4[4];
  int64_t dims[1] = {4};
  ASSERT_EQ(hlx_ref_rng_bit_generator(HLX_RNG_PHILOX, st, 2, os,
                                      HLX_DTYPE_U32, 1, dims, wide),
            nullptr);
  ASSERT_EQ(hlx_ref_rng_bit_generator(HLX_RNG_PHILOX, st, 2, os,
                                      HLX_DTYPE_F16, 1, dims, h),
            nullptr);
  ASSERT_EQ(hlx_ref_rng_bit_generator(HLX_RNG_PHILOX, st, 2, os,
                                      HLX_DTYPE_S4, 1, dims, s4),
            nullptr);
  for (int i = 0; i < 4; i++) {
    EXPECT_EQ(h[i], (uint16_t)wide[i]);
    int v = (int)(wide[i] & 0xf);
    if (v >= 8) v -= 16;
    EXPECT_EQ(s4[i], v);
  }
}

TEST(RngBitGenerator, Errors) {
  uint64_t st[3] = {0, 0, 0}, os[3];
  uint32_t out[1];
  int64_t dims[1] = {1};
  hlx_status_t s = hlx_ref_rng_bit_generator(HLX_RNG_THREE_FRY, st, 3, os,
                                             HLX_DTYPE_U32, 1, dims, out);
  ASSERT_NE(s, nullptr);
  hlx_status_free(s);
  s = hlx_ref_rng_bit_generator(HLX_RNG_THREE_FRY, st, 2, os, HLX_DTYPE_C64,
                                1, dims, out);
  ASSERT_NE(s, nullptr);
  hlx_status_free(s);
}

TEST(RngBitGenerator, EmptyOutput) {
  uint64_t st[2] = {1, 7}, os[2];
  int64_t dims[2] = {0, 3};
  uint32_t dummy = 0;
  ASSERT_EQ(hlx_ref_rng_bit_generator(HLX_RNG_THREE_FRY, st, 2, os,
                                      HLX_DTYPE_U32, 2, dims, &dummy),
            nullptr);
  EXPECT_EQ(os[1], 7u);
}

TEST(Rng, UniformFloatIntAndNormal) {
  const int n = 1001;
  std::vector<float> f(n);
  float a = 1.5f, b = 1.75f;
  ASSERT_EQ(hlx_ref_rng(HLX_RNG_UNIFORM, HLX_DTYPE_F32, &a, &b, 42, n,
                        f.data()),
            nullptr);
  double mean = 0;
  for (float v : f) {
    EXPECT_GE(v, a);
    EXPECT_LT(v, b);
    mean += v;
  }
  EXPECT_NEAR(mean / n, 1.625, 0.01);
  std::vector<int64_t> i(n);
  int64_t ia = -3, ib = 4;
  ASSERT_EQ(hlx_ref_rng(HLX_RNG_UNIFORM, HLX_DTYPE_S64, &ia, &ib, 42, n,
                        i.data()),
            nullptr);
  for (int64_t v : i) {
    EXPECT_GE(v, -3);
    EXPECT_LT(v, 4);
  }
  std::vector<double> d(n);
  double mu = 10, sd = 2;
  ASSERT_EQ(hlx_ref_rng(HLX_RNG_NORMAL, HLX_DTYPE_F64, &mu, &sd, 1, n,
                        d.data()),
            nullptr);
  double m = 0, v2 = 0;
  for (double v : d) m += v;
  m /= n;
  for (double v : d) v2 += (v - m) * (v - m);
  EXPECT_NEAR(m, 10, 0.3);
  EXPECT_NEAR(std::sqrt(v2 / n), 2, 0.3);
  // Deterministic.
  std::vector<double> d2(n);
  ASSERT_EQ(hlx_ref_rng(HLX_RNG_NORMAL, HLX_DTYPE_F64, &mu, &sd, 1, n,
                        d2.data()),
            nullptr);
  EXPECT_EQ(d, d2);
}

TEST(Rng, NormalNeedsFloat) {
  int32_t a = 0, b = 1, out[2];
  hlx_status_t s = hlx_ref_rng(HLX_RNG_NORMAL, HLX_DTYPE_S32, &a, &b, 0, 2,
                               out);
  ASSERT_NE(s, nullptr);
  hlx_status_free(s);
}

}  // namespace
