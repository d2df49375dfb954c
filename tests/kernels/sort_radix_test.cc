// Radix sort (kernels/sort_radix.h) against the reference merge sort with
// the same key: random and duplicate keys, NaN / -0 / +0 / Inf under JAX's
// canonicalised TOTALORDER and under FLOAT, descending, i32 / u32 keys, odd
// sizes, multi-dim along each dimension, payloads of several widths, a split
// across a fake pool, and what it declines.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "kernels/sort.h"
#include "kernels/sort_radix.h"

namespace {

uint32_t Bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

hlx_sort_key_t Key(int32_t operand, hlx_sort_order_t order, bool desc,
                   bool jax_canon = false) {
  hlx_sort_key_t k = {};
  k.operand = operand;
  k.order = order;
  k.descending = desc;
  if (jax_canon) {  // select(x != x, NaN, select(x == 0, 0, x))
    k.canonicalize = true;
    k.match_bits = 0;
    k.zero_bits = 0;
    k.nan_bits = 0x7fc00000u;
  }
  return k;
}

enum Fill { kRandom, kDuplicates, kSpecials };

// Keys (4-byte elements as u32 bits) of dtype t.
std::vector<uint32_t> Keys(hlx_dtype_t t, int64_t n, Fill fill,
                           std::mt19937& rng) {
  std::vector<uint32_t> k((size_t)n);
  std::uniform_real_distribution<float> u(-100.0f, 100.0f);
  static const float kSpecial[] = {std::numeric_limits<float>::quiet_NaN(),
                                   -std::numeric_limits<float>::quiet_NaN(),
                                   INFINITY, -INFINITY, 0.0f, -0.0f, 1.5f,
                                   -1.5f};
  for (auto& v : k) {
    if (t == HLX_DTYPE_F32) {
      float f = u(rng);
      if (fill == kDuplicates) f = (float)(int)(rng() % 7) - 3.0f;
      if (fill == kSpecials && rng() % 3 == 0) f = kSpecial[rng() % 8];
      v = Bits(f);
      if (fill == kSpecials && rng() % 40 == 0) v = 0x7f800001u;  // sNaN
    } else {
      v = fill == kDuplicates ? (uint32_t)(rng() % 5) * 0x40000001u
                              : (uint32_t)rng();
    }
  }
  return k;
}

// Sorts (key operand `kop` of dtype kt among: u32 keys, i32 iota, f64 and
// u8 payloads) with both kernels; expects the radix sort to take it and
// every output to match the reference bit-for-bit.
void Check(hlx_dtype_t kt, const std::vector<int64_t>& dims, int axis,
           hlx_sort_key_t key, Fill fill, std::mt19937& rng,
           const hlx_parallel_t* par = nullptr) {
  SCOPED_TRACE(testing::Message() << hlx_dtype_name(kt) << " axis " << axis
                                  << " order " << (int)key.order << " desc "
                                  << key.descending << " fill " << fill);
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<uint32_t> k = Keys(kt, n, fill, rng);
  std::vector<int32_t> iota((size_t)n);
  std::vector<double> f64((size_t)n);
  std::vector<uint8_t> u8((size_t)n);
  for (int64_t i = 0; i < n; i++) {
    iota[i] = (int32_t)i;
    f64[i] = (double)rng() / 7.0;
    u8[i] = (uint8_t)rng();
  }
  // The key is operand key.operand; the others fill the remaining places.
  hlx_dtype_t dt[4] = {HLX_DTYPE_S32, HLX_DTYPE_S32, HLX_DTYPE_F64,
                       HLX_DTYPE_U8};
  const void* in[4] = {iota.data(), iota.data(), f64.data(), u8.data()};
  dt[key.operand] = kt;
  in[key.operand] = k.data();
  std::vector<std::vector<unsigned char>> want(4), got(4);
  void* wout[4];
  void* gout[4];
  for (int i = 0; i < 4; i++) {
    size_t bytes = (size_t)n * hlx_dtype_size(dt[i]);
    want[i].assign(bytes, 0);
    got[i].assign(bytes, 0xcd);
    wout[i] = want[i].data();
    gout[i] = got[i].data();
  }
  int rank = (int)dims.size();
  hlx_status_t st = hlx_ref_sort(4, dt, rank, dims.data(), axis, &key, 1, in,
                                 wout);
  ASSERT_EQ(st, nullptr) << hlx_status_message(st);
  bool done = false;
  st = hlx_sort_radix(4, dt, rank, dims.data(), axis, &key, in, gout, par,
                      &done);
  ASSERT_EQ(st, nullptr) << hlx_status_message(st);
  ASSERT_TRUE(done);
  for (int i = 0; i < 4; i++) EXPECT_EQ(want[i], got[i]) << "operand " << i;
}

TEST(SortRadix, F32TotalOrderAsJaxEmitsIt) {
  std::mt19937 rng(1);
  for (int64_t n : {256, 1000, 1001, 4099})
    for (Fill f : {kRandom, kDuplicates, kSpecials})
      for (bool desc : {false, true}) {
        Check(HLX_DTYPE_F32, {n}, 0, Key(0, HLX_SORT_TOTALORDER, desc, true),
              f, rng);
        // Without the canonicalisation: NaN payloads and -0 < +0 ordered.
        Check(HLX_DTYPE_F32, {n}, 0, Key(0, HLX_SORT_TOTALORDER, desc), f,
              rng);
      }
}

TEST(SortRadix, F32FloatOrderWithoutNaN) {
  std::mt19937 rng(2);
  for (Fill f : {kRandom, kDuplicates})
    for (bool desc : {false, true})
      Check(HLX_DTYPE_F32, {777}, 0, Key(0, HLX_SORT_FLOAT, desc), f, rng);
  // -0 and +0 are equal under FLOAT: stable order between them.
  std::vector<int64_t> dims = {600};
  std::vector<uint32_t> k(600);
  for (int i = 0; i < 600; i++)
    k[i] = Bits(i % 3 == 0 ? -0.0f : i % 3 == 1 ? 0.0f : -INFINITY);
  std::vector<int32_t> iota(600), o0(600), o1(600), r0(600), r1(600);
  for (int i = 0; i < 600; i++) iota[i] = i;
  hlx_dtype_t dt[2] = {HLX_DTYPE_F32, HLX_DTYPE_S32};
  const void* in[2] = {k.data(), iota.data()};
  void* out[2] = {o0.data(), o1.data()};
  void* ref[2] = {r0.data(), r1.data()};
  hlx_sort_key_t key = Key(0, HLX_SORT_FLOAT, false);
  ASSERT_EQ(hlx_ref_sort(2, dt, 1, dims.data(), 0, &key, 1, in, ref), nullptr);
  bool done = false;
  ASSERT_EQ(hlx_sort_radix(2, dt, 1, dims.data(), 0, &key, in, out, nullptr,
                           &done),
            nullptr);
  ASSERT_TRUE(done);
  EXPECT_EQ(o0, r0);
  EXPECT_EQ(o1, r1);
}

TEST(SortRadix, FloatOrderWithNaNDeclines) {
  std::vector<int64_t> dims = {300};
  std::vector<float> k(300, 1.0f);
  k[123] = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> out(300, 7.0f);
  hlx_dtype_t dt = HLX_DTYPE_F32;
  const void* in[1] = {k.data()};
  void* o[1] = {out.data()};
  hlx_sort_key_t key = Key(0, HLX_SORT_FLOAT, false);
  bool done = true;
  ASSERT_EQ(hlx_sort_radix(1, &dt, 1, dims.data(), 0, &key, in, o, nullptr,
                           &done),
            nullptr);
  EXPECT_FALSE(done);
  for (float v : out) ASSERT_EQ(v, 7.0f);
}

TEST(SortRadix, IntegerKeys) {
  std::mt19937 rng(3);
  for (Fill f : {kRandom, kDuplicates})
    for (bool desc : {false, true}) {
      Check(HLX_DTYPE_S32, {999}, 0, Key(0, HLX_SORT_SIGNED, desc), f, rng);
      Check(HLX_DTYPE_U32, {999}, 0, Key(0, HLX_SORT_UNSIGNED, desc), f, rng);
      // The key need not be operand 0.
      Check(HLX_DTYPE_S32, {513}, 0, Key(2, HLX_SORT_SIGNED, desc), f, rng);
    }
}

TEST(SortRadix, MultiDimEachAxis) {
  std::mt19937 rng(4);
  const std::vector<int64_t> dims = {300, 3, 257};
  for (int axis : {0, 2})
    for (bool desc : {false, true})
      Check(HLX_DTYPE_F32, dims, axis, Key(0, HLX_SORT_TOTALORDER, desc, true),
            kSpecials, rng);
  // Axis 1 is too short for the radix sort.
  hlx_dtype_t dt[1] = {HLX_DTYPE_F32};
  hlx_sort_key_t key = Key(0, HLX_SORT_TOTALORDER, false);
  EXPECT_FALSE(hlx_sort_radix_supported(dt, 3, dims.data(), 1, &key));
  EXPECT_TRUE(hlx_sort_radix_supported(dt, 3, dims.data(), 2, &key));
  hlx_dtype_t f64 = HLX_DTYPE_F64;
  EXPECT_FALSE(hlx_sort_radix_supported(&f64, 3, dims.data(), 2, &key));
}

struct FakePool {
  int calls = 0;
};
int FakeThreads(void*) { return 2; }
void FakeFor(void* ctx, size_t n, size_t grain, hlx_parallel_fn fn,
             void* arg) {
  static_cast<FakePool*>(ctx)->calls++;
  for (size_t c = n; c-- > 0;) fn(arg, c, c + 1);  // one slice per call
  (void)grain;
}

TEST(SortRadix, SplitAcrossPool) {
  std::mt19937 rng(5);
  FakePool pool;
  hlx_parallel_t par = {&pool, FakeThreads, FakeFor};
  Check(HLX_DTYPE_F32, {7, 70000}, 1, Key(0, HLX_SORT_TOTALORDER, false, true),
        kSpecials, rng, &par);
  Check(HLX_DTYPE_S32, {70000, 3}, 0, Key(0, HLX_SORT_SIGNED, true), kRandom,
        rng, &par);
  EXPECT_EQ(pool.calls, 2);
}

}  // namespace
