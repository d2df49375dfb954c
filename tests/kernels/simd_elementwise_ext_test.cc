// Every integer and bf16/f16 elementwise ISA variant of
// kernels/elementwise_ext.inc against the reference kernel: random data
// (all bit patterns, plus each type's extremes, and for bf16/f16 NaN, Inf,
// -0 and denormals), sizes 0 .. 2*64+1 and a few large ones, inputs
// misaligned by one element, a guard element past the end; exhaustive
// f16/bf16 -> f32 conversion and dense f32 -> f16/bf16 rounding checks
// (ties, denormal results, overflow); and the dispatch plumbing (compare
// types, select widths, converts). Variants this CPU cannot run are skipped
// visibly.
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/dispatch.h"
#include "kernels/simd.h"
#include "tests/kernels/simd_test_util.h"

namespace {

using hlx_test::Bits;
using hlx_test::FromBits;
using hlx_test::Transcendental;

using hlx_test::BinaryVariant;
using hlx_test::CompareVariant;
using hlx_test::SelectVariant;
using hlx_test::UnaryVariant;
struct ConvertVariant {
  const char* name;
  hlx_isa_t isa;
  hlx_dtype_t from, to;
  hlx_unary_fn fn;
};

const UnaryVariant kUnary[] = {
#define HLX_EW_UNARY(ISA, OP, DT, fn) \
  {#fn, HLX_ISA_##ISA, HLX_UNARY_##OP, HLX_DTYPE_##DT, fn},
#include "kernels/elementwise_ext.inc"
};
const BinaryVariant kBinary[] = {
#define HLX_EW_BINARY(ISA, OP, DT, fn) \
  {#fn, HLX_ISA_##ISA, HLX_BINARY_##OP, HLX_DTYPE_##DT, fn},
#include "kernels/elementwise_ext.inc"
};
const CompareVariant kCompare[] = {
#define HLX_EW_COMPARE(ISA, DT, fn) {#fn, HLX_ISA_##ISA, HLX_DTYPE_##DT, fn},
#include "kernels/elementwise_ext.inc"
};
const SelectVariant kSelect[] = {
#define HLX_EW_SELECT(ISA, ES, fn) {#fn, HLX_ISA_##ISA, ES, fn},
#include "kernels/elementwise_ext.inc"
};
const ConvertVariant kConvert[] = {
#define HLX_EW_CONVERT(ISA, FROM, TO, fn) \
  {#fn, HLX_ISA_##ISA, HLX_DTYPE_##FROM, HLX_DTYPE_##TO, fn},
#include "kernels/elementwise_ext.inc"
};

bool IsHalf(hlx_dtype_t t) {
  return t == HLX_DTYPE_BF16 || t == HLX_DTYPE_F16;
}

// Random bit patterns, one in eight replaced by a special value of the type.
std::vector<uint8_t> Inputs(hlx_dtype_t t, size_t n, uint32_t seed) {
  const size_t es = hlx_dtype_size(t);
  std::mt19937_64 rng(seed);
  std::vector<uint8_t> v(n * es);
  for (size_t i = 0; i < n; i++) {
    uint64_t r = rng();
    if (r % 8 == 0) {
      uint64_t sp;
      if (t == HLX_DTYPE_BF16) {
        const uint16_t s[] = {0x7fc0, 0xffc0, 0x7f81, 0x7f80, 0xff80, 0x0000,
                              0x8000, 0x0001, 0x8001, 0x007f, 0x0080, 0x7f7f,
                              0x3f80, 0xbf80, 0x42b2, 0xc2cf};
        sp = s[(r >> 8) % 16];
      } else if (t == HLX_DTYPE_F16) {
        const uint16_t s[] = {0x7e00, 0xfe00, 0x7c01, 0x7c00, 0xfc00, 0x0000,
                              0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x7bff,
                              0x3c00, 0xbc00, 0x4900, 0xcc00};
        sp = s[(r >> 8) % 16];
      } else {
        const int bits = (int)es * 8;
        const uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
        const uint64_t s[] = {0, 1, mask, mask >> 1, (mask >> 1) + 1, 2,
                              mask - 1, 0x80};
        sp = s[(r >> 8) % 8] & mask;
      }
      memcpy(&v[i * es], &sp, es);
    } else {
      uint64_t bits = r >> 3 | (r << 61);
      memcpy(&v[i * es], &bits, es);
    }
  }
  return v;
}

std::vector<size_t> Sizes() {
  std::vector<size_t> s;
  for (size_t n = 0; n <= 2 * 64 + 1; n++) s.push_back(n);
  for (size_t n : {255, 1000, 4097}) s.push_back(n);
  return s;
}

uint64_t Elem(const uint8_t* p, size_t es, size_t i) {
  uint64_t v = 0;
  memcpy(&v, p + i * es, es);
  return v;
}

// The 16-bit float's value as float (for NaN tests and ULP distances).
float HalfToFloat(hlx_dtype_t t, uint16_t h) {
  float f;
  EXPECT_TRUE(hlx_ref_convert(t, &h, HLX_DTYPE_F32, &f, 1));
  return f;
}
// Same value (bits, or both NaN) or, for transcendentals, within 1 ulp of
// the 16-bit format (the f32 result is itself within 1 f32 ulp).
bool HalfClose(hlx_dtype_t t, uint16_t want, uint16_t got, bool one_ulp) {
  if (want == got) return true;
  float w = HalfToFloat(t, want), g = HalfToFloat(t, got);
  if (isnan(w) && isnan(g)) return true;
  if (!one_ulp || isnan(w) || isnan(g)) return false;
  auto key = [](uint16_t h) {
    return (h & 0x8000) ? -(int)(h & 0x7fff) : (int)h;
  };
  return std::abs(key(want) - key(got)) <= 1;
}

bool OutputsMatch(hlx_dtype_t t, bool one_ulp, const uint8_t* want,
                  const uint8_t* got, size_t n, size_t* bad) {
  const size_t es = hlx_dtype_size(t);
  for (size_t i = 0; i < n; i++) {
    uint64_t w = Elem(want, es, i), g = Elem(got, es, i);
    bool ok = IsHalf(t) ? HalfClose(t, (uint16_t)w, (uint16_t)g, one_ulp)
                        : w == g;
    if (!ok) {
      *bad = i;
      return false;
    }
  }
  return true;
}

class ExtUnary : public ::testing::TestWithParam<UnaryVariant> {};
TEST_P(ExtUnary, MatchesReference) {
  const UnaryVariant& v = GetParam();
  HLX_SKIP_IF_UNSUPPORTED(v.isa);
  hlx_unary_fn ref = hlx_ref_unary_kernel(v.op, v.dtype, nullptr);
  ASSERT_NE(ref, nullptr);
  const size_t es = hlx_dtype_size(v.dtype);
  uint32_t seed = 1;
  for (size_t n : Sizes()) {
    std::vector<uint8_t> x = Inputs(v.dtype, n + 1, seed++);
    std::vector<uint8_t> want(n * es + 1), got((n + 2) * es, 0xa5);
    ref(x.data() + es, want.data(), n);
    v.fn(x.data() + es, got.data() + es, n);
    for (size_t b = 0; b < es; b++)
      ASSERT_EQ(got[(n + 1) * es + b], 0xa5) << v.name << " wrote past n=" << n;
    size_t bad = 0;
    ASSERT_TRUE(OutputsMatch(v.dtype, Transcendental(v.op), want.data(),
                             got.data() + es, n, &bad))
        << v.name << " n=" << n << " i=" << bad << " x=0x" << std::hex
        << Elem(x.data() + es, es, bad) << " want=0x"
        << Elem(want.data(), es, bad) << " got=0x"
        << Elem(got.data() + es, es, bad);
  }
}
INSTANTIATE_TEST_SUITE_P(Variants, ExtUnary, ::testing::ValuesIn(kUnary),
                         [](const auto& i) { return std::string(i.param.name); });

class ExtBinary : public ::testing::TestWithParam<BinaryVariant> {};
TEST_P(ExtBinary, MatchesReference) {
  const BinaryVariant& v = GetParam();
  HLX_SKIP_IF_UNSUPPORTED(v.isa);
  hlx_binary_fn ref = hlx_ref_binary_kernel(v.op, v.dtype, nullptr);
  ASSERT_NE(ref, nullptr);
  const size_t es = hlx_dtype_size(v.dtype);
  uint32_t seed = 1;
  for (size_t n : Sizes()) {
    std::vector<uint8_t> a = Inputs(v.dtype, n + 1, seed++);
    std::vector<uint8_t> b = Inputs(v.dtype, n + 1, seed * 31 + 7);
    // Equal pairs (max/min of equal values, -0 vs +0 for floats).
    for (size_t i = 1; i + 1 < n; i += 9)
      memcpy(&b[(i + 1) * es], &a[(i + 1) * es], es);
    std::vector<uint8_t> want(n * es + 1), got((n + 2) * es, 0xa5);
    ref(a.data() + es, b.data() + es, want.data(), n);
    v.fn(a.data() + es, b.data() + es, got.data() + es, n);
    for (size_t k = 0; k < es; k++)
      ASSERT_EQ(got[(n + 1) * es + k], 0xa5) << v.name << " wrote past n=" << n;
    size_t bad = 0;
    ASSERT_TRUE(OutputsMatch(v.dtype, false, want.data(), got.data() + es, n,
                             &bad))
        << v.name << " n=" << n << " i=" << bad << std::hex << " a=0x"
        << Elem(a.data() + es, es, bad) << " b=0x"
        << Elem(b.data() + es, es, bad) << " want=0x"
        << Elem(want.data(), es, bad) << " got=0x"
        << Elem(got.data() + es, es, bad);
    // In place (y aliases a).
    std::vector<uint8_t> ip(a);
    v.fn(ip.data() + es, b.data() + es, ip.data() + es, n);
    ASSERT_TRUE(OutputsMatch(v.dtype, false, want.data(), ip.data() + es, n,
                             &bad))
        << v.name << " in place, n=" << n << " i=" << bad;
  }
}
// Past HLX_NT_STORE_MIN_BYTES (16 MiB) integer outputs use non-temporal
// stores after an aligning head: the add variants at that size, output
// misaligned by one element.
class ExtIntAdd : public ::testing::TestWithParam<BinaryVariant> {};
TEST_P(ExtIntAdd, LargeStreamingOutput) {
  const BinaryVariant& v = GetParam();
  HLX_SKIP_IF_UNSUPPORTED(v.isa);
  hlx_binary_fn ref = hlx_ref_binary_kernel(v.op, v.dtype, nullptr);
  const size_t es = hlx_dtype_size(v.dtype);
  const size_t n = ((size_t)16 << 20) / es + 37;
  std::vector<uint8_t> a = Inputs(v.dtype, n, 11), b = Inputs(v.dtype, n, 12);
  std::vector<uint8_t> want(n * es), got((n + 2) * es, 0xa5);
  ref(a.data(), b.data(), want.data(), n);
  v.fn(a.data(), b.data(), got.data() + es, n);
  ASSERT_EQ(0, memcmp(want.data(), got.data() + es, n * es)) << v.name;
  for (size_t k = 0; k < es; k++) {
    ASSERT_EQ(got[k], 0xa5) << v.name << " wrote before y";
    ASSERT_EQ(got[(n + 1) * es + k], 0xa5) << v.name << " wrote past n";
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, ExtBinary, ::testing::ValuesIn(kBinary),
                         [](const auto& i) { return std::string(i.param.name); });
std::vector<BinaryVariant> IntAddVariants() {
  std::vector<BinaryVariant> v;
  for (const auto& b : kBinary)
    if (b.op == HLX_BINARY_ADD && !IsHalf(b.dtype)) v.push_back(b);
  return v;
}
INSTANTIATE_TEST_SUITE_P(Variants, ExtIntAdd, ::testing::ValuesIn(IntAddVariants()),
                         [](const auto& i) { return std::string(i.param.name); });

class ExtCompare : public ::testing::TestWithParam<CompareVariant> {};
TEST_P(ExtCompare, MatchesReferenceEveryDirection) {
  const CompareVariant& v = GetParam();
  HLX_SKIP_IF_UNSUPPORTED(v.isa);
  const size_t es = hlx_dtype_size(v.dtype);
  uint32_t seed = 5;
  for (size_t n : Sizes()) {
    std::vector<uint8_t> a = Inputs(v.dtype, n + 1, seed++);
    std::vector<uint8_t> b = Inputs(v.dtype, n + 1, seed * 13 + 1);
    for (size_t i = 0; i + 1 < n; i += 5)
      memcpy(&b[(i + 1) * es], &a[(i + 1) * es], es);
    for (int d = HLX_CMP_EQ; d <= HLX_CMP_LT; d++) {
      std::vector<uint8_t> want(n + 1), got(n + 1, 0xa5);
      ASSERT_TRUE(hlx_ref_compare((hlx_compare_dir_t)d, HLX_CMP_DEFAULT,
                                  v.dtype, a.data() + es, b.data() + es,
                                  want.data(), n));
      v.fn((hlx_compare_dir_t)d, a.data() + es, b.data() + es, got.data(), n);
      ASSERT_EQ(got[n], 0xa5) << v.name << " wrote past n=" << n;
      for (size_t i = 0; i < n; i++)
        ASSERT_EQ(want[i], got[i]) << v.name << " dir=" << d << " n=" << n
                                   << " i=" << i;
    }
  }
}
INSTANTIATE_TEST_SUITE_P(Variants, ExtCompare, ::testing::ValuesIn(kCompare),
                         [](const auto& i) { return std::string(i.param.name); });

class ExtSelect : public ::testing::TestWithParam<SelectVariant> {};
TEST_P(ExtSelect, MatchesReference) {
  const SelectVariant& v = GetParam();
  HLX_SKIP_IF_UNSUPPORTED(v.isa);
  const size_t es = v.elem_size;
  const hlx_dtype_t t = es == 1 ? HLX_DTYPE_U8 : HLX_DTYPE_U16;
  uint32_t seed = 9;
  for (size_t n : Sizes()) {
    std::vector<uint8_t> p = Inputs(HLX_DTYPE_U8, n, seed++);
    for (size_t i = 0; i < n; i += 3) p[i] = 0;  // plenty of false lanes
    std::vector<uint8_t> a = Inputs(t, n, seed * 3), b = Inputs(t, n, seed * 5);
    std::vector<uint8_t> want(n * es + 1), got((n + 1) * es, 0xa5);
    hlx_ref_select(es, p.data(), false, a.data(), b.data(), want.data(), n);
    v.fn(p.data(), a.data(), b.data(), got.data(), n);
    for (size_t k = 0; k < es; k++) ASSERT_EQ(got[n * es + k], 0xa5);
    ASSERT_EQ(0, memcmp(want.data(), got.data(), n * es)) << v.name << " n=" << n;
  }
}
INSTANTIATE_TEST_SUITE_P(Variants, ExtSelect, ::testing::ValuesIn(kSelect),
                         [](const auto& i) { return std::string(i.param.name); });

// Conversions: every 16-bit pattern to f32; to 16 bits from every 16-bit
// value's f32 image nudged by -1..+1 f32 ulps and from exact midpoints
// between neighbours (ties to even), plus random f32 bit patterns (which
// include NaNs, infinities, denormals and overflow).
std::vector<float> ConvertInputs(hlx_dtype_t half) {
  std::vector<float> v;
  for (uint32_t h = 0; h < 65536; h++) {
    uint16_t hh = (uint16_t)h, next = (uint16_t)(h + 1);
    float f = HalfToFloat(half, hh), g = HalfToFloat(half, next);
    if (isnan(f)) continue;
    v.push_back(f);
    v.push_back(FromBits(Bits(f) + 1));
    if (Bits(f) & 0x7fffffff) v.push_back(FromBits(Bits(f) - 1));
    if (!isnan(g) && !isinf(g) && !isinf(f) && (h & 0x7fff) != 0x7fff &&
        ((h ^ (h + 1)) & 0x8000) == 0)
      v.push_back((float)(((double)f + (double)g) / 2));  // exact midpoint
  }
  std::mt19937 rng(3);
  for (int i = 0; i < 200000; i++) v.push_back(FromBits(rng()));
  return v;
}

class ExtConvert : public ::testing::TestWithParam<ConvertVariant> {};
TEST_P(ExtConvert, MatchesReference) {
  const ConvertVariant& v = GetParam();
  HLX_SKIP_IF_UNSUPPORTED(v.isa);
  if (v.from == HLX_DTYPE_F32) {
    std::vector<float> x = ConvertInputs(v.to);
    size_t n = x.size();
    std::vector<uint16_t> want(n), got(n + 1, 0xa5a5);
    ASSERT_TRUE(hlx_ref_convert(HLX_DTYPE_F32, x.data(), v.to, want.data(), n));
    v.fn(x.data(), got.data(), n);
    ASSERT_EQ(got[n], 0xa5a5);
    // Bit-exact except NaN payloads (NaN must stay NaN, as dispatch.h says).
    for (size_t i = 0; i < n; i++)
      ASSERT_TRUE(HalfClose(v.to, want[i], got[i], false))
          << v.name << " x=" << x[i] << std::hex << " bits=0x" << Bits(x[i])
          << " want=0x" << want[i] << " got=0x" << got[i];
    // Odd sizes and tails.
    for (size_t m = 0; m < 70; m++) {
      std::vector<uint16_t> g(m + 1, 0x5a5a);
      v.fn(x.data() + 1, g.data(), m);
      ASSERT_EQ(g[m], 0x5a5a) << "wrote past m=" << m;
      for (size_t i = 0; i < m; i++)
        ASSERT_TRUE(HalfClose(v.to, want[i + 1], g[i], false)) << "m=" << m;
    }
  } else {
    std::vector<uint16_t> x(65536);
    for (uint32_t h = 0; h < 65536; h++) x[h] = (uint16_t)h;
    std::vector<float> want(65536), got(65537, 1234.5f);
    ASSERT_TRUE(hlx_ref_convert(v.from, x.data(), HLX_DTYPE_F32, want.data(),
                                65536));
    v.fn(x.data(), got.data(), 65536);
    ASSERT_EQ(got[65536], 1234.5f);
    for (uint32_t h = 0; h < 65536; h++)
      ASSERT_TRUE(hlx_test::SameValue(want[h], got[h]))
          << v.name << " h=0x" << std::hex << h;
    for (size_t m = 0; m < 40; m++) {
      std::vector<float> g(m + 1, 7.0f);
      v.fn(x.data() + 3, g.data(), m);
      ASSERT_EQ(g[m], 7.0f) << "wrote past m=" << m;
      for (size_t i = 0; i < m; i++)
        ASSERT_TRUE(hlx_test::SameValue(want[i + 3], g[i]));
    }
  }
}
INSTANTIATE_TEST_SUITE_P(Variants, ExtConvert, ::testing::ValuesIn(kConvert),
                         [](const auto& i) { return std::string(i.param.name); });

// ---- dispatch ----

class CapGuard {
 public:
  explicit CapGuard(hlx_isa_t cap) { hlx_cpu_set_max_isa(cap); }
  ~CapGuard() { hlx_cpu_set_max_isa(HLX_ISA_COUNT); }
};

TEST(ExtDispatch, PicksVariantPerLevel) {
  for (int lv = HLX_ISA_REFERENCE; lv < HLX_ISA_COUNT; lv++) {
    if (!hlx_cpu_supports_isa((hlx_isa_t)lv)) continue;
    CapGuard g((hlx_isa_t)lv);
    hlx_binary_fn want = lv == HLX_ISA_REFERENCE
                             ? hlx_ref_binary_kernel(HLX_BINARY_ADD, HLX_DTYPE_S32, nullptr)
                             : hlx_binary_kernel_for_isa(HLX_BINARY_ADD, HLX_DTYPE_S32,
                                                         (hlx_isa_t)lv);
    hlx_dtype_t out = HLX_DTYPE_INVALID;
    EXPECT_EQ(hlx_binary_kernel(HLX_BINARY_ADD, HLX_DTYPE_S32, &out), want);
    EXPECT_EQ(out, HLX_DTYPE_S32);
    // bf16 exp goes through the variant at this level too.
    hlx_unary_fn ue = hlx_unary_kernel(HLX_UNARY_EXP, HLX_DTYPE_BF16, &out);
    EXPECT_EQ(ue, lv == HLX_ISA_REFERENCE
                      ? hlx_ref_unary_kernel(HLX_UNARY_EXP, HLX_DTYPE_BF16, nullptr)
                      : hlx_unary_kernel_for_isa(HLX_UNARY_EXP, HLX_DTYPE_BF16,
                                                 (hlx_isa_t)lv));
    EXPECT_EQ(out, HLX_DTYPE_BF16);
  }
}

// compare_type decides whether the variant (dtype's own signedness) may
// run: UNSIGNED on i32 must still compare unsigned, SIGNED on u8 signed.
TEST(ExtDispatch, CompareHonoursCompareType) {
  const int32_t a[3] = {-1, 1, 5};
  const int32_t b[3] = {1, -1, 5};
  uint8_t y[3];
  ASSERT_TRUE(hlx_compare(HLX_CMP_LT, HLX_CMP_UNSIGNED, HLX_DTYPE_S32, a, b, y, 3));
  EXPECT_EQ(y[0], 0);  // 0xffffffff < 1 is false unsigned
  EXPECT_EQ(y[1], 1);
  EXPECT_EQ(y[2], 0);
  ASSERT_TRUE(hlx_compare(HLX_CMP_LT, HLX_CMP_SIGNED, HLX_DTYPE_S32, a, b, y, 3));
  EXPECT_EQ(y[0], 1);
  EXPECT_EQ(y[1], 0);
  const uint8_t c[2] = {0xff, 1}, d[2] = {1, 0xff};
  ASSERT_TRUE(hlx_compare(HLX_CMP_LT, HLX_CMP_SIGNED, HLX_DTYPE_U8, c, d, y, 2));
  EXPECT_EQ(y[0], 1);  // -1 < 1 signed
  EXPECT_EQ(y[1], 0);
  ASSERT_TRUE(hlx_compare(HLX_CMP_LT, HLX_CMP_DEFAULT, HLX_DTYPE_U8, c, d, y, 2));
  EXPECT_EQ(y[0], 0);
  EXPECT_EQ(y[1], 1);
  // FLOAT on an integer type is not a valid pair: rejected, not guessed.
  EXPECT_FALSE(hlx_compare(HLX_CMP_LT, HLX_CMP_FLOAT, HLX_DTYPE_S32, a, b, y, 3));
}

TEST(ExtDispatch, ConvertAndSelectWidths) {
  const float x[5] = {1.0f, 1.00390625f, -3.5f, 65520.0f, 1e-8f};
  uint16_t h[5], r[5];
  for (hlx_dtype_t t : {HLX_DTYPE_F16, HLX_DTYPE_BF16}) {
    ASSERT_TRUE(hlx_convert(HLX_DTYPE_F32, x, t, h, 5));
    ASSERT_TRUE(hlx_ref_convert(HLX_DTYPE_F32, x, t, r, 5));
    EXPECT_EQ(0, memcmp(h, r, sizeof h));
  }
  EXPECT_EQ(h[0], 0x3f80);  // bf16 1.0
  // Pairs without a variant still convert through the reference.
  int32_t i[5];
  ASSERT_TRUE(hlx_convert(HLX_DTYPE_F32, x, HLX_DTYPE_S32, i, 5));
  EXPECT_EQ(i[2], -3);
  const uint8_t p[3] = {1, 0, 7};
  const uint16_t t16[3] = {1, 2, 3}, f16[3] = {4, 5, 6};
  uint16_t y16[3];
  hlx_select(2, p, false, t16, f16, y16, 3);
  EXPECT_EQ(y16[0], 1);
  EXPECT_EQ(y16[1], 5);
  EXPECT_EQ(y16[2], 3);
  const uint8_t t8[3] = {1, 2, 3}, f8[3] = {4, 5, 6};
  uint8_t y8[3];
  hlx_select(1, p, false, t8, f8, y8, 3);
  EXPECT_EQ(y8[1], 5);
  EXPECT_EQ(y8[2], 3);
}

}  // namespace
