// Every elementwise ISA variant of kernels/elementwise.inc against the
// reference kernel: random data, sizes 0 .. 2*16+1 and a few large ones
// (including one past the non-temporal-store threshold), misaligned and
// in-place buffers, NaN/Inf/-0/denormal inputs; plus a dense f32 sweep
// (every 257th bit pattern, plus the neighbours of the kernels' boundary
// inputs) measuring the ULP error of exp/expm1/log/log1p/tanh/logistic/
// sin/cos/erf against double-precision libm, and the dispatch/HLX_MAX_ISA
// plumbing. Variants the CPU cannot run are skipped visibly.
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/dispatch.h"
#include "kernels/simd.h"
#include "tests/kernels/simd_test_util.h"

namespace {

// Every 257th bit pattern; under ThreadSanitizer (--config=tsan, -O0 and
// instrumented, ~30x slower, and this sweep has no threads to check) every
// 4099th, so the suite fits its time limit.
#if defined(__SANITIZE_THREAD__)
constexpr uint64_t kSweepStride = 4099;
#else
constexpr uint64_t kSweepStride = 257;
#endif

using hlx_test::Bits;
using hlx_test::ExactF32Op;
using hlx_test::FromBits;
using hlx_test::Transcendental;
using hlx_test::SameValue;
using hlx_test::UlpDistance;
using hlx_test::UlpError;

using hlx_test::BinaryVariant;
using hlx_test::CompareVariant;
using hlx_test::SelectVariant;
using hlx_test::UnaryVariant;

const UnaryVariant kUnary[] = {
#define HLX_EW_UNARY(ISA, OP, DT, fn) \
  {#fn, HLX_ISA_##ISA, HLX_UNARY_##OP, HLX_DTYPE_##DT, fn},
#include "kernels/elementwise.inc"
};
const BinaryVariant kBinary[] = {
#define HLX_EW_BINARY(ISA, OP, DT, fn) \
  {#fn, HLX_ISA_##ISA, HLX_BINARY_##OP, HLX_DTYPE_##DT, fn},
#include "kernels/elementwise.inc"
};
const CompareVariant kCompare[] = {
#define HLX_EW_COMPARE(ISA, DT, fn) {#fn, HLX_ISA_##ISA, HLX_DTYPE_##DT, fn},
#include "kernels/elementwise.inc"
};
const SelectVariant kSelect[] = {
#define HLX_EW_SELECT(ISA, ES, fn) {#fn, HLX_ISA_##ISA, ES, fn},
#include "kernels/elementwise.inc"
};

// Special values first, then random values over all exponents.
template <typename T>
std::vector<T> Inputs(size_t n, uint32_t seed, bool positive_bias) {
  const T specials[] = {T(NAN),
                        T(-NAN),
                        T(INFINITY),
                        T(-INFINITY),
                        T(0.0),
                        T(-0.0),
                        std::numeric_limits<T>::denorm_min(),
                        -std::numeric_limits<T>::denorm_min(),
                        std::numeric_limits<T>::min() / 3,
                        std::numeric_limits<T>::min(),
                        std::numeric_limits<T>::max(),
                        -std::numeric_limits<T>::max(),
                        T(1),
                        T(-1),
                        T(88.72283),
                        T(-103.5),
                        T(0.5),
                        T(2.0)};
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  for (size_t i = 0; i < n; i++) {
    uint64_t r = rng();
    if (r % 16 == 0) {
      v[i] = specials[(r >> 8) % (sizeof specials / sizeof specials[0])];
    } else if (r % 16 < 8) {
      // moderate magnitudes, both signs
      double m = std::ldexp((double)((r >> 11) & 0xfffff) / 0x100000 + 0.5,
                            (int)((r >> 40) % 40) - 20);
      v[i] = T((r >> 63) && !(positive_bias && (r >> 62 & 1)) ? -m : m);
    } else if (sizeof(T) == 4) {
      uint32_t bits = (uint32_t)(r >> 16);
      memcpy(&v[i], &bits, 4);
    } else {
      memcpy(&v[i], &r, 8);
    }
  }
  return v;
}

std::vector<size_t> Sizes() {
  std::vector<size_t> s;
  for (size_t n = 0; n <= 2 * 16 + 1; n++) s.push_back(n);
  for (size_t n : {63, 64, 65, 255, 1000, 4097}) s.push_back(n);
  return s;
}

// Runs ref and variant (misaligned by one element, and in place) and
// compares element by element.
template <typename T>
void CheckUnary(const UnaryVariant& v, hlx_unary_fn ref, size_t n,
                uint32_t seed) {
  std::vector<T> x = Inputs<T>(n + 1, seed, v.op == HLX_UNARY_LOG) ;
  const T* xin = x.data() + 1;
  std::vector<T> want(n + 1), got(n + 2), inplace(x);
  ref(xin, want.data(), n);
  got[n + 1] = T(1234.5);
  v.fn(xin, got.data() + 1, n);
  v.fn(inplace.data() + 1, inplace.data() + 1, n);
  EXPECT_EQ(Bits(got[n + 1]), Bits(T(1234.5))) << "wrote past the end";
  for (size_t i = 0; i < n; i++) {
    T w = want[i], g = got[i + 1], ip = inplace[i + 1];
    if (Transcendental(v.op)) {
      ASSERT_LE(UlpDistance((float)w, (float)g), 1.0)
          << v.name << " n=" << n << " i=" << i << " x=" << xin[i]
          << " want=" << w << " got=" << g;
    } else {
      ASSERT_TRUE(SameValue(w, g)) << v.name << " n=" << n << " i=" << i
                                   << " x=" << xin[i] << " want=" << w
                                   << " got=" << g;
    }
    ASSERT_TRUE(SameValue(g, ip)) << v.name << " in place differs at " << i;
  }
}

class SimdUnary : public ::testing::TestWithParam<UnaryVariant> {};

TEST_P(SimdUnary, MatchesReference) {
  const UnaryVariant& v = GetParam();
  HLX_SKIP_IF_UNSUPPORTED(v.isa);
  hlx_unary_fn ref = hlx_ref_unary_kernel(v.op, v.dtype, nullptr);
  ASSERT_NE(ref, nullptr);
  uint32_t seed = 1;
  for (size_t n : Sizes()) {
    if (v.dtype == HLX_DTYPE_F32)
      CheckUnary<float>(v, ref, n, seed++);
    else
      CheckUnary<double>(v, ref, n, seed++);
    if (HasFatalFailure()) return;
  }
}

TEST_P(SimdUnary, LargeStreamingOutput) {
  // Past HLX_NT_STORE_MIN_BYTES (16 MiB): non-temporal stores, aligned head.
  const UnaryVariant& v = GetParam();
  HLX_SKIP_IF_UNSUPPORTED(v.isa);
  hlx_unary_fn ref = hlx_ref_unary_kernel(v.op, v.dtype, nullptr);
  size_t n = ((size_t)16 << 20) / (v.dtype == HLX_DTYPE_F32 ? 4 : 8) + 37;
  if (v.dtype == HLX_DTYPE_F32)
    CheckUnary<float>(v, ref, n, 99);
  else
    CheckUnary<double>(v, ref, n, 99);
}

std::string UnaryName(const ::testing::TestParamInfo<UnaryVariant>& i) {
  return i.param.name;
}
INSTANTIATE_TEST_SUITE_P(Variants, SimdUnary, ::testing::ValuesIn(kUnary),
                         UnaryName);

template <typename T>
void CheckBinary(const BinaryVariant& v, hlx_binary_fn ref, size_t n,
                 uint32_t seed) {
  std::vector<T> a = Inputs<T>(n + 1, seed, false);
  std::vector<T> b = Inputs<T>(n + 1, seed * 7 + 3, false);
  // Some equal pairs and +-0 pairs for maximum/minimum.
  for (size_t i = 1; i + 3 < n; i += 11) {
    b[i] = a[i];
    a[i + 1] = T(0.0);
    b[i + 1] = T(-0.0);
    a[i + 2] = T(-0.0);
    b[i + 2] = T(0.0);
  }
  std::vector<T> want(n), got(n + 1), inplace(a);
  ref(a.data() + 1, b.data() + 1, want.data(), n);
  got[n] = T(77);
  v.fn(a.data() + 1, b.data() + 1, got.data(), n);
  v.fn(inplace.data() + 1, b.data() + 1, inplace.data() + 1, n);
  EXPECT_EQ(Bits(got[n]), Bits(T(77))) << "wrote past the end";
  for (size_t i = 0; i < n; i++) {
    ASSERT_TRUE(SameValue(want[i], got[i]))
        << v.name << " n=" << n << " i=" << i << " a=" << a[i + 1]
        << " b=" << b[i + 1] << " want=" << want[i] << " got=" << got[i];
    ASSERT_TRUE(SameValue(got[i], inplace[i + 1]))
        << v.name << " in place differs at " << i;
  }
}

class SimdBinary : public ::testing::TestWithParam<BinaryVariant> {};

TEST_P(SimdBinary, MatchesReference) {
  const BinaryVariant& v = GetParam();
  HLX_SKIP_IF_UNSUPPORTED(v.isa);
  hlx_binary_fn ref = hlx_ref_binary_kernel(v.op, v.dtype, nullptr);
  ASSERT_NE(ref, nullptr);
  uint32_t seed = 5;
  for (size_t n : Sizes()) {
    if (v.dtype == HLX_DTYPE_F32)
      CheckBinary<float>(v, ref, n, seed++);
    else
      CheckBinary<double>(v, ref, n, seed++);
    if (HasFatalFailure()) return;
  }
}

TEST_P(SimdBinary, LargeStreamingOutput) {
  const BinaryVariant& v = GetParam();
  HLX_SKIP_IF_UNSUPPORTED(v.isa);
  hlx_binary_fn ref = hlx_ref_binary_kernel(v.op, v.dtype, nullptr);
  size_t n = ((size_t)16 << 20) / (v.dtype == HLX_DTYPE_F32 ? 4 : 8) + 5;
  if (v.dtype == HLX_DTYPE_F32)
    CheckBinary<float>(v, ref, n, 42);
  else
    CheckBinary<double>(v, ref, n, 42);
}

std::string BinaryName(const ::testing::TestParamInfo<BinaryVariant>& i) {
  return i.param.name;
}
INSTANTIATE_TEST_SUITE_P(Variants, SimdBinary, ::testing::ValuesIn(kBinary),
                         BinaryName);

class SimdCompare : public ::testing::TestWithParam<CompareVariant> {};

TEST_P(SimdCompare, EveryDirectionMatchesReference) {
  const CompareVariant& v = GetParam();
  HLX_SKIP_IF_UNSUPPORTED(v.isa);
  for (size_t n : Sizes()) {
    std::vector<uint8_t> want(n + 1, 7), got(n + 1, 7);
    for (int dir = HLX_CMP_EQ; dir <= HLX_CMP_LT; dir++) {
      auto check = [&](const void* a, const void* b) {
        ASSERT_TRUE(hlx_ref_compare((hlx_compare_dir_t)dir, HLX_CMP_FLOAT,
                                    v.dtype, a, b, want.data(), n));
        v.fn((hlx_compare_dir_t)dir, a, b, got.data(), n);
        ASSERT_EQ(got[n], 7) << "wrote past the end";
        for (size_t i = 0; i < n; i++)
          ASSERT_EQ(want[i], got[i]) << v.name << " dir=" << dir << " i=" << i;
      };
      if (v.dtype == HLX_DTYPE_F32) {
        auto a = Inputs<float>(n, 11 + n, false), b = Inputs<float>(n, 3 + n, false);
        for (size_t i = 0; i < n; i += 3) b[i] = a[i];
        check(a.data(), b.data());
      } else {
        auto a = Inputs<double>(n, 11 + n, false), b = Inputs<double>(n, 3 + n, false);
        for (size_t i = 0; i < n; i += 3) b[i] = a[i];
        check(a.data(), b.data());
      }
      if (HasFatalFailure()) return;
    }
  }
}

std::string CompareName(const ::testing::TestParamInfo<CompareVariant>& i) {
  return i.param.name;
}
INSTANTIATE_TEST_SUITE_P(Variants, SimdCompare, ::testing::ValuesIn(kCompare),
                         CompareName);

class SimdSelect : public ::testing::TestWithParam<SelectVariant> {};

TEST_P(SimdSelect, MatchesReference) {
  const SelectVariant& v = GetParam();
  HLX_SKIP_IF_UNSUPPORTED(v.isa);
  std::mt19937 rng(3);
  for (size_t n : Sizes()) {
    size_t bytes = n * v.elem_size;
    std::vector<uint8_t> pred(n), t(bytes), f(bytes), want(bytes),
        got(bytes + 8, 0xAB);
    for (auto& p : pred) p = rng() % 3 == 0;  // 0/1 bytes
    for (auto& x : t) x = (uint8_t)rng();
    for (auto& x : f) x = (uint8_t)rng();
    hlx_ref_select(v.elem_size, pred.data(), false, t.data(), f.data(),
                   want.data(), n);
    v.fn(pred.data(), t.data(), f.data(), got.data(), n);
    if (bytes)  // memcmp's pointers must be valid even for 0 bytes
      ASSERT_EQ(0, memcmp(want.data(), got.data(), bytes))
          << v.name << " n=" << n;
    for (size_t i = bytes; i < bytes + 8; i++) ASSERT_EQ(got[i], 0xAB);
  }
}

std::string SelectName(const ::testing::TestParamInfo<SelectVariant>& i) {
  return i.param.name;
}
INSTANTIATE_TEST_SUITE_P(Variants, SimdSelect, ::testing::ValuesIn(kSelect),
                         SelectName);

// ---- dense f32 sweep: ULP error of the transcendentals vs libm double --

// Inputs where the kernels switch method or the result leaves the normal
// range (overflow, underflow to denormals and 0, saturation to -1 / +-1,
// the log reduction's sqrt(1/2) step, the tiny-argument shortcuts, pi/4
// and pi/2 multiples, the sin/cos scalar fallback past 2^20); the
// sweep also takes 64 bit patterns on each side of every one of them.
const float kBoundaries[] = {
    0.0f,        1.0f,         -1.0f,       0x1p-126f,  0x1p-149f,
    0x1.fffffep127f, 0.70710677f, 1.4142135f, 0.34657359f, 0.69314718f,
    88.7228394f, 89.0f,        -87.3365448f, -87.0f,     -103.972076f,
    -104.0f,     -17.328680f,  -20.0f,      16.5f,      9.01f,
    9.5f,        0x1p-12f,     0x1p-25f,    -0.29289322f, 0.41421356f,
    0.78539816f, 1.5707964f,   3.1415927f,  0x1p20f,    1e6f,
    0.55f,       8192.0f,      0.75f,       2.0f,       3.92f};

class SimdUlpSweep : public ::testing::TestWithParam<UnaryVariant> {};

TEST_P(SimdUlpSweep, EveryTwoHundredFiftySeventhBitPatternAndBoundaries) {
  const UnaryVariant& v = GetParam();
  HLX_SKIP_IF_UNSUPPORTED(v.isa);
  hlx_unary_fn ref = hlx_ref_unary_kernel(v.op, v.dtype, nullptr);
  std::vector<uint32_t> patterns;
  for (uint64_t bits = 0; bits <= 0xffffffffull; bits += kSweepStride)
    patterns.push_back((uint32_t)bits);
  std::vector<float> boundaries(std::begin(kBoundaries), std::end(kBoundaries));
  // tanh's AVX-512 table intervals: quarter binades from 1/16 to 10 (bits
  // >> 21) and the clamp at 9.1.
  for (uint32_t q = Bits(0x1p-4f); q <= Bits(10.0f); q += 1u << 21)
    boundaries.push_back(FromBits(q));
  boundaries.push_back(9.1f);
  // erfc's: its two methods' switch at 1/2, the two-step scale past 9.3,
  // the clamp at 10.5, results underflowing to 0 from 10.0546.
  for (float b : {0.5f, 9.3f, 10.5f, 10.0546f}) boundaries.push_back(b);
  for (float b : boundaries)
    for (float sb : {b, -b})
      for (int d = -64; d <= 64; d++) patterns.push_back(Bits(sb) + (uint32_t)d);
  for (uint32_t nan : {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0x7f800000u,
                       0xff800000u})
    patterns.push_back(nan);
  const size_t kChunk = 4096;
  std::vector<float> x(kChunk), y(kChunk), r(kChunk);
  double max_normal = 0, max_all = 0;
  float worst_x = 0;
  size_t count = 0, differ_from_ref = 0;
  for (size_t at = 0; at < patterns.size(); at += kChunk) {
    size_t m = std::min(kChunk, patterns.size() - at);
    for (size_t i = 0; i < m; i++) x[i] = FromBits(patterns[at + i]);
    v.fn(x.data(), y.data(), m);
    ref(x.data(), r.data(), m);
    for (size_t i = 0; i < m; i++) {
      double e = ExactF32Op(v.op, x[i]);
      // Special values (NaN/Inf/zero results, exact cases) match the
      // reference exactly.
      if (!isfinite(r[i]) || r[i] == 0 || isnan(e)) {
        ASSERT_TRUE(SameValue(r[i], y[i]))
            << v.name << " x=" << x[i] << " (bits " << std::hex << Bits(x[i])
            << std::dec << ") want " << r[i] << " got " << y[i];
        continue;
      }
      double err = UlpError(y[i], e);
      if (err > max_all) max_all = err;
      if (fabs(e) >= 1.1754943508222875e-38 && err > max_normal) {
        max_normal = err;
        worst_x = x[i];
      }
      differ_from_ref += Bits(y[i]) != Bits(r[i]);
      count++;
    }
  }
  std::printf("[ ULP      ] %-40s %zu finite inputs: max %.4f ULP (normal "
              "results, worst x=%.9g), %.4f ULP overall; %zu differ from the "
              "reference\n",
              v.name, count, max_normal, worst_x, max_all, differ_from_ref);
  RecordProperty("max_ulp_normal", std::to_string(max_normal));
  EXPECT_LE(max_normal, 1.0) << v.name << " worst x=" << worst_x;
  EXPECT_LE(max_all, 1.0) << v.name;
}

std::vector<UnaryVariant> TranscendentalVariants() {
  std::vector<UnaryVariant> v;
  for (const auto& u : kUnary)
    if (Transcendental(u.op) && u.dtype == HLX_DTYPE_F32) v.push_back(u);
  return v;
}
INSTANTIATE_TEST_SUITE_P(Variants, SimdUlpSweep,
                         ::testing::ValuesIn(TranscendentalVariants()),
                         UnaryName);

// ---- dispatch ----

class IsaCap {
 public:
  explicit IsaCap(hlx_isa_t cap) { hlx_cpu_set_max_isa(cap); }
  ~IsaCap() { hlx_cpu_set_max_isa(HLX_ISA_COUNT); }
};

TEST(SimdDispatch, ParsesIsaNames) {
  hlx_isa_t isa;
  ASSERT_TRUE(hlx_isa_parse("reference", &isa));
  EXPECT_EQ(isa, HLX_ISA_REFERENCE);
  ASSERT_TRUE(hlx_isa_parse("AVX2", &isa));
  EXPECT_EQ(isa, HLX_ISA_AVX2);
  ASSERT_TRUE(hlx_isa_parse("avx512", &isa));
  EXPECT_EQ(isa, HLX_ISA_AVX512);
  EXPECT_FALSE(hlx_isa_parse("sse9", &isa));
  ASSERT_TRUE(hlx_isa_parse("neon", &isa));
  EXPECT_EQ(isa, HLX_ISA_NEON);
#if defined(__aarch64__)  // level 1 is named after the architecture's ISA
  EXPECT_STREQ(hlx_isa_name(HLX_ISA_NEON), "neon");
#else
  EXPECT_STREQ(hlx_isa_name(HLX_ISA_AVX2), "avx2");
#endif
}

TEST(SimdDispatch, CapSelectsEveryLevelTheCpuSupports) {
  for (int lv = HLX_ISA_REFERENCE; lv < HLX_ISA_COUNT; lv++) {
    hlx_isa_t isa = (hlx_isa_t)lv;
    if (!hlx_cpu_supports_isa(isa)) {
      hlx_test::SkipCounter::Get()->Count(isa);
      std::printf("[ SKIPPED  ] dispatch level %s: CPU lacks it\n",
                  hlx_isa_name(isa));
      continue;
    }
    IsaCap cap(isa);
    EXPECT_EQ(hlx_cpu_max_isa(), isa);
    hlx_dtype_t out;
    hlx_binary_fn add = hlx_binary_kernel(HLX_BINARY_ADD, HLX_DTYPE_F32, &out);
    EXPECT_EQ(out, HLX_DTYPE_F32);
    EXPECT_EQ(add, hlx_binary_kernel_for_isa(HLX_BINARY_ADD, HLX_DTYPE_F32, isa))
        << hlx_isa_name(isa);
    hlx_unary_fn exp_fn = hlx_unary_kernel(HLX_UNARY_EXP, HLX_DTYPE_F32, &out);
    EXPECT_EQ(exp_fn, hlx_unary_kernel_for_isa(HLX_UNARY_EXP, HLX_DTYPE_F32, isa));
    // No variant: the reference kernel, with the reference's out dtype.
    EXPECT_EQ(hlx_unary_kernel(HLX_UNARY_IS_FINITE, HLX_DTYPE_F32, &out),
              hlx_ref_unary_kernel(HLX_UNARY_IS_FINITE, HLX_DTYPE_F32, nullptr));
    EXPECT_EQ(out, HLX_DTYPE_PRED);
    EXPECT_EQ(hlx_binary_kernel(HLX_BINARY_SHIFT_LEFT, HLX_DTYPE_S32, &out),
              hlx_ref_binary_kernel(HLX_BINARY_SHIFT_LEFT, HLX_DTYPE_S32, nullptr));
    // Unsupported pairs stay NULL with an invalid out dtype.
    EXPECT_EQ(hlx_unary_kernel(HLX_UNARY_POPCNT, HLX_DTYPE_F32, &out), nullptr);
    EXPECT_EQ(out, HLX_DTYPE_INVALID);
    // Results through the dispatched compare/select equal the reference.
    float a[5] = {1, NAN, -0.0f, 3, 2}, b[5] = {1, 1, 0.0f, 2, 3};
    uint8_t y[5];
    ASSERT_TRUE(hlx_compare(HLX_CMP_NE, HLX_CMP_DEFAULT, HLX_DTYPE_F32, a, b,
                            y, 5));
    EXPECT_EQ(std::vector<uint8_t>(y, y + 5),
              (std::vector<uint8_t>{0, 1, 0, 1, 1}));
    uint8_t pred[5] = {1, 0, 0, 1, 0};
    float s[5];
    hlx_select(4, pred, false, a, b, s, 5);
    EXPECT_EQ(s[0], 1.0f);
    EXPECT_EQ(s[1], 1.0f);
    EXPECT_EQ(Bits(s[2]), Bits(0.0f));
    EXPECT_EQ(s[3], 3.0f);
    EXPECT_EQ(s[4], 3.0f);
  }
}

TEST(SimdDispatch, VariantsForMissingIsaAreNull) {
  if (hlx_cpu_supports_isa(HLX_ISA_AVX512)) {
    EXPECT_NE(hlx_binary_kernel_for_isa(HLX_BINARY_ADD, HLX_DTYPE_F32,
                                        HLX_ISA_AVX512),
              nullptr);
  } else {
    EXPECT_EQ(hlx_binary_kernel_for_isa(HLX_BINARY_ADD, HLX_DTYPE_F32,
                                        HLX_ISA_AVX512),
              nullptr);
  }
  EXPECT_EQ(hlx_unary_kernel_for_isa(HLX_UNARY_CBRT, HLX_DTYPE_F32,
                                     hlx_cpu_detected_isa() == HLX_ISA_REFERENCE
                                         ? HLX_ISA_AVX2
                                         : hlx_cpu_detected_isa()),
            nullptr);
}

}  // namespace
