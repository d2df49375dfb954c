// Tests of tools/random_fill.{h,c}: the generator's reference values,
// determinism, prefix stability and the value range of every dtype.
#include "tools/random_fill.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <set>
#include <vector>

#include "base/float_formats.h"

namespace {

constexpr size_t kN = 4096;

std::vector<uint8_t> Fill(hlx_dtype_t t, size_t n, uint64_t seed) {
  std::vector<uint8_t> v(n * hlx_dtype_size(t) + 8, 0xAB);
  hlx_random_fill(t, v.data(), n, seed);
  return v;
}

template <typename T>
T At(const std::vector<uint8_t>& v, size_t i) {
  T x;
  std::memcpy(&x, v.data() + i * sizeof(T), sizeof(T));
  return x;
}

TEST(RandomFill, SplitMix64ReferenceValues) {
  // SplitMix64 seeded with 0 (the reference sequence).
  EXPECT_EQ(hlx_random_draw(0, 0), 0xe220a8397b1dcdafull);
  EXPECT_EQ(hlx_random_draw(0, 1), 0x6e789e6aa1b965f4ull);
  EXPECT_EQ(hlx_random_draw(0, 2), 0x06c45d188009454full);
}

TEST(RandomFill, DocumentedMappingForS32AndF64) {
  auto s = Fill(HLX_DTYPE_S32, 3, 0);
  EXPECT_EQ(At<int32_t>(s, 0), static_cast<int32_t>(0xe - 8));
  EXPECT_EQ(At<int32_t>(s, 1), static_cast<int32_t>(0x6 - 8));
  EXPECT_EQ(At<int32_t>(s, 2), static_cast<int32_t>(0x0 - 8));
  auto u = Fill(HLX_DTYPE_U8, 2, 0);
  EXPECT_EQ(u[0], 0xe);
  EXPECT_EQ(u[1], 0x6);
  auto p = Fill(HLX_DTYPE_PRED, 3, 0);
  EXPECT_EQ(p[0], 1);  // top bit of 0xe2...
  EXPECT_EQ(p[1], 0);  // 0x6e...
  EXPECT_EQ(p[2], 0);  // 0x06...
  auto d = Fill(HLX_DTYPE_F64, 1, 0);
  EXPECT_EQ(At<double>(d, 0),
            std::ldexp(static_cast<double>(0xe220a8397b1dcdafull >> 11), -52) -
                1.0);
  auto f = Fill(HLX_DTYPE_F32, 1, 0);
  EXPECT_EQ(At<float>(f, 0),
            std::ldexp(static_cast<float>(0xe220a8397b1dcdafull >> 40), -23) -
                1.0f);
}

TEST(RandomFill, DeterministicAndSeedDependent) {
  for (int ti = 1; ti < HLX_DTYPE_COUNT; ti++) {
    hlx_dtype_t t = static_cast<hlx_dtype_t>(ti);
    SCOPED_TRACE(hlx_dtype_name(t));
    auto a = Fill(t, 257, 42);
    auto b = Fill(t, 257, 42);
    auto c = Fill(t, 257, 43);
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
    // A shorter fill is a prefix of a longer one; bytes past n untouched.
    auto shortf = Fill(t, 100, 42);
    size_t es = hlx_dtype_size(t);
    EXPECT_EQ(std::memcmp(shortf.data(), a.data(), 100 * es), 0);
    for (size_t i = 100 * es; i < shortf.size(); i++)
      ASSERT_EQ(shortf[i], 0xAB);
  }
}

TEST(RandomFill, ZeroCountAndInvalidDtypeTouchNothing) {
  std::vector<uint8_t> v(16, 0xCD);
  hlx_random_fill(HLX_DTYPE_F32, v.data(), 0, 1);
  hlx_random_fill(HLX_DTYPE_INVALID, v.data(), 4, 1);
  for (uint8_t b : v) EXPECT_EQ(b, 0xCD);
  hlx_random_fill(HLX_DTYPE_F32, nullptr, 0, 1);  // no crash
}

TEST(RandomFill, IntegerRanges) {
  struct Case {
    hlx_dtype_t t;
    int64_t lo, hi;  // inclusive
  } cases[] = {
      {HLX_DTYPE_S2, -2, 1},   {HLX_DTYPE_S4, -8, 7},   {HLX_DTYPE_S8, -8, 7},
      {HLX_DTYPE_S16, -8, 7},  {HLX_DTYPE_S32, -8, 7},  {HLX_DTYPE_S64, -8, 7},
      {HLX_DTYPE_U2, 0, 3},    {HLX_DTYPE_U4, 0, 15},   {HLX_DTYPE_U8, 0, 15},
      {HLX_DTYPE_U16, 0, 15},  {HLX_DTYPE_U32, 0, 15},  {HLX_DTYPE_U64, 0, 15},
      {HLX_DTYPE_PRED, 0, 1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(hlx_dtype_name(c.t));
    auto v = Fill(c.t, kN, 7);
    std::set<int64_t> seen;
    for (size_t i = 0; i < kN; i++) {
      int64_t x;
      switch (hlx_dtype_size(c.t)) {
        case 1:
          x = hlx_dtype_is_signed_int(c.t)
                  ? static_cast<int64_t>(static_cast<int8_t>(v[i]))
                  : static_cast<int64_t>(v[i]);
          break;
        case 2:
          x = hlx_dtype_is_signed_int(c.t)
                  ? static_cast<int64_t>(At<int16_t>(v, i))
                  : static_cast<int64_t>(At<uint16_t>(v, i));
          break;
        case 4:
          x = hlx_dtype_is_signed_int(c.t)
                  ? static_cast<int64_t>(At<int32_t>(v, i))
                  : static_cast<int64_t>(At<uint32_t>(v, i));
          break;
        default:
          x = hlx_dtype_is_signed_int(c.t)
                  ? At<int64_t>(v, i)
                  : static_cast<int64_t>(At<uint64_t>(v, i));
      }
      ASSERT_GE(x, c.lo) << i;
      ASSERT_LE(x, c.hi) << i;
      seen.insert(x);
    }
    // Every value of the range shows up in 4096 draws.
    EXPECT_EQ(seen.size(), static_cast<size_t>(c.hi - c.lo + 1));
  }
}

double ValueAt(hlx_dtype_t t, const std::vector<uint8_t>& v, size_t i) {
  switch (t) {
    case HLX_DTYPE_F32:
      return At<float>(v, i);
    case HLX_DTYPE_F64:
      return At<double>(v, i);
    case HLX_DTYPE_F16:
    case HLX_DTYPE_BF16:
      return hlx_small_float_to_f64(t, At<uint16_t>(v, i));
    default:
      return hlx_small_float_to_f64(t, v[i]);
  }
}

TEST(RandomFill, RealFloatsInMinusOneToOne) {
  for (int ti = 1; ti < HLX_DTYPE_COUNT; ti++) {
    hlx_dtype_t t = static_cast<hlx_dtype_t>(ti);
    if (!hlx_dtype_is_float(t)) continue;
    SCOPED_TRACE(hlx_dtype_name(t));
    auto v = Fill(t, kN, 99);
    double sum = 0;
    int neg = 0, pos = 0;
    std::set<double> distinct;
    for (size_t i = 0; i < kN; i++) {
      double x = ValueAt(t, v, i);
      ASSERT_FALSE(std::isnan(x)) << i;
      if (t == HLX_DTYPE_F8E8M0FNU) {
        ASSERT_GE(x, std::ldexp(1.0, -8)) << i;
        ASSERT_LE(x, 0.5) << i;
      } else {
        ASSERT_GE(x, -1.0) << i;
        ASSERT_LT(x, 1.0) << i;
      }
      sum += x;
      neg += x < 0;
      pos += x > 0;
      distinct.insert(x);
    }
    if (t == HLX_DTYPE_F8E8M0FNU) {
      EXPECT_EQ(distinct.size(), 8u);
      continue;
    }
    // Roughly uniform: mean near 0, both signs common.
    EXPECT_LT(std::fabs(sum / kN), 0.1);
    EXPECT_GT(neg, static_cast<int>(kN / 3));
    EXPECT_GT(pos, static_cast<int>(kN / 3));
    if (t == HLX_DTYPE_F32 || t == HLX_DTYPE_F64)
      EXPECT_GT(distinct.size(), kN - 10);
    else if (t == HLX_DTYPE_F4E2M1FN)
      EXPECT_EQ(distinct.size(), 4u);  // -1, -0.5, 0, 0.5 (-0 == 0)
    else
      EXPECT_GT(distinct.size(), 10u);
  }
}

TEST(RandomFill, ComplexBothParts) {
  auto v = Fill(HLX_DTYPE_C64, kN, 5);
  auto r = Fill(HLX_DTYPE_F32, 2 * kN, 5);
  // Part k of element i is draw 2i + k: same values as an f32 fill of 2n.
  EXPECT_EQ(std::memcmp(v.data(), r.data(), kN * 8), 0);
  double sre = 0, sim = 0;
  for (size_t i = 0; i < kN; i++) {
    float re = At<float>(v, 2 * i), im = At<float>(v, 2 * i + 1);
    ASSERT_GE(re, -1.0f);
    ASSERT_LT(re, 1.0f);
    ASSERT_GE(im, -1.0f);
    ASSERT_LT(im, 1.0f);
    sre += re;
    sim += im;
  }
  EXPECT_LT(std::fabs(sre / kN), 0.1);
  EXPECT_LT(std::fabs(sim / kN), 0.1);
  auto w = Fill(HLX_DTYPE_C128, 64, 5);
  auto d = Fill(HLX_DTYPE_F64, 128, 5);
  EXPECT_EQ(std::memcmp(w.data(), d.data(), 64 * 16), 0);
}

}  // namespace
