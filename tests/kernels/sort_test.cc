// sort / top_k reference kernels: spec example, keys of every order, JAX's
// NaN canonicalisation, stability, multi-key, custom comparators, errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels/sort.h"

namespace {

hlx_sort_key_t Key(int32_t operand, hlx_sort_order_t order, bool desc) {
  hlx_sort_key_t k = {};
  k.operand = operand;
  k.order = order;
  k.descending = desc;
  return k;
}

void ExpectOk(hlx_status_t s) {
  ASSERT_EQ(s, nullptr) << hlx_status_message(s);
}

uint32_t Bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

TEST(Sort, SpecExampleTwoOperandsDim0GT) {
  // Spec: sort along dim 0 by input0 with GT; input1 follows.
  std::vector<int64_t> in0 = {1, 2, 3, 3, 2, 1}, in1 = {3, 2, 1, 1, 2, 3};
  std::vector<int64_t> o0(6), o1(6);
  hlx_dtype_t dt[2] = {HLX_DTYPE_S64, HLX_DTYPE_S64};
  int64_t dims[2] = {2, 3};
  hlx_sort_key_t k = Key(0, HLX_SORT_SIGNED, true);
  const void* in[2] = {in0.data(), in1.data()};
  void* out[2] = {o0.data(), o1.data()};
  ExpectOk(hlx_ref_sort(2, dt, 2, dims, 0, &k, 1, in, out));
  EXPECT_EQ(o0, (std::vector<int64_t>{3, 2, 3, 1, 2, 1}));
  EXPECT_EQ(o1, (std::vector<int64_t>{1, 2, 1, 3, 2, 3}));
}

TEST(Sort, SignedUnsignedAndSubByte) {
  // i8 as SIGNED vs UNSIGNED order; odd length along the last dim.
  std::vector<int8_t> x = {5, -1, 0, -128, 127};
  std::vector<int8_t> y(5);
  hlx_dtype_t dt = HLX_DTYPE_S8;
  int64_t dims[1] = {5};
  const void* in[1] = {x.data()};
  void* out[1] = {y.data()};
  hlx_sort_key_t k = Key(0, HLX_SORT_SIGNED, false);
  ExpectOk(hlx_ref_sort(1, &dt, 1, dims, 0, &k, 1, in, out));
  EXPECT_EQ(y, (std::vector<int8_t>{-128, -1, 0, 5, 127}));
  k.order = HLX_SORT_UNSIGNED;
  ExpectOk(hlx_ref_sort(1, &dt, 1, dims, 0, &k, 1, in, out));
  EXPECT_EQ(y, (std::vector<int8_t>{0, 5, 127, -128, -1}));
  // i4 stored one per byte: 0x0F is -1.
  std::vector<uint8_t> q = {0x07, 0x0F, 0x08, 0x00}, r(4);
  hlx_dtype_t s4 = HLX_DTYPE_S4;
  int64_t d4[1] = {4};
  const void* qi[1] = {q.data()};
  void* ro[1] = {r.data()};
  k.order = HLX_SORT_SIGNED;
  ExpectOk(hlx_ref_sort(1, &s4, 1, d4, 0, &k, 1, qi, ro));
  EXPECT_EQ(r, (std::vector<uint8_t>{0x08, 0x0F, 0x00, 0x07}));
}

TEST(Sort, TotalOrderFloats) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  float inf = std::numeric_limits<float>::infinity();
  std::vector<float> x = {1.0f, -0.0f, nan, -inf, 0.0f, -nan, 2.5f};
  std::vector<float> y(7);
  hlx_dtype_t dt = HLX_DTYPE_F32;
  int64_t dims[1] = {7};
  const void* in[1] = {x.data()};
  void* out[1] = {y.data()};
  hlx_sort_key_t k = Key(0, HLX_SORT_TOTALORDER, false);
  ExpectOk(hlx_ref_sort(1, &dt, 1, dims, 0, &k, 1, in, out));
  EXPECT_EQ(Bits(y[0]), Bits(-nan));
  EXPECT_EQ(y[1], -inf);
  EXPECT_EQ(Bits(y[2]), Bits(-0.0f));
  EXPECT_EQ(Bits(y[3]), Bits(0.0f));
  EXPECT_EQ(y[4], 1.0f);
  EXPECT_EQ(y[5], 2.5f);
  EXPECT_EQ(Bits(y[6]), Bits(nan));
}

TEST(Sort, JaxCanonicalisationIsStableOverZerosAndNaNs) {
  // -0 == +0 and every NaN equal (and above +inf): equal keys keep order.
  float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> x = {0.0f, -nan, 3.0f, -0.0f, nan, -1.0f};
  std::vector<float> y(6);
  hlx_dtype_t dt = HLX_DTYPE_F32;
  int64_t dims[1] = {6};
  const void* in[1] = {x.data()};
  void* out[1] = {y.data()};
  hlx_sort_key_t k = Key(0, HLX_SORT_TOTALORDER, false);
  k.canonicalize = true;
  k.match_bits = Bits(0.0f);
  k.zero_bits = Bits(0.0f);
  k.nan_bits = 0x7FC00000u;
  ExpectOk(hlx_ref_sort(1, &dt, 1, dims, 0, &k, 1, in, out));
  EXPECT_EQ(y[0], -1.0f);
  EXPECT_EQ(Bits(y[1]), Bits(0.0f));   // +0 came first
  EXPECT_EQ(Bits(y[2]), Bits(-0.0f));  // then -0
  EXPECT_EQ(y[3], 3.0f);
  EXPECT_EQ(Bits(y[4]), Bits(-nan));   // original order among NaNs
  EXPECT_EQ(Bits(y[5]), Bits(nan));
}

TEST(Sort, FloatOrderTreatsZerosEqual) {
  std::vector<double> x = {-0.0, 1.0, 0.0, -2.0}, y(4);
  hlx_dtype_t dt = HLX_DTYPE_F64;
  int64_t dims[1] = {4};
  const void* in[1] = {x.data()};
  void* out[1] = {y.data()};
  hlx_sort_key_t k = Key(0, HLX_SORT_FLOAT, true);
  ExpectOk(hlx_ref_sort(1, &dt, 1, dims, 0, &k, 1, in, out));
  EXPECT_EQ(y[0], 1.0);
  EXPECT_TRUE(std::signbit(y[1]));  // -0 stays before +0 (stable)
  EXPECT_FALSE(std::signbit(y[2]));
  EXPECT_EQ(y[3], -2.0);
}

TEST(Sort, SmallFloatsAndPred) {
  // bf16: 1.0 = 0x3F80, -2.0 = 0xC000, 0.5 = 0x3F00.
  std::vector<uint16_t> x = {0x3F80, 0xC000, 0x3F00}, y(3);
  hlx_dtype_t dt = HLX_DTYPE_BF16;
  int64_t dims[1] = {3};
  const void* in[1] = {x.data()};
  void* out[1] = {y.data()};
  hlx_sort_key_t k = Key(0, HLX_SORT_FLOAT, false);
  ExpectOk(hlx_ref_sort(1, &dt, 1, dims, 0, &k, 1, in, out));
  EXPECT_EQ(y, (std::vector<uint16_t>{0xC000, 0x3F00, 0x3F80}));
  std::vector<uint8_t> p = {1, 0, 1, 0, 0}, q(5);
  hlx_dtype_t pt = HLX_DTYPE_PRED;
  int64_t pd[1] = {5};
  const void* pi[1] = {p.data()};
  void* po[1] = {q.data()};
  k.order = HLX_SORT_UNSIGNED;
  ExpectOk(hlx_ref_sort(1, &pt, 1, pd, 0, &k, 1, pi, po));
  EXPECT_EQ(q, (std::vector<uint8_t>{0, 0, 0, 1, 1}));
}

TEST(Sort, MultiKeyLexicographicWithPayload) {
  // Sort by (a asc, b desc); c is carried along. Last dim, 2 rows.
  std::vector<int32_t> a = {2, 1, 2, 1, 3, 3, 3, 3};
  std::vector<int32_t> b = {5, 7, 9, 7, 1, 2, 2, 0};
  std::vector<float> c = {0, 1, 2, 3, 4, 5, 6, 7};
  std::vector<int32_t> oa(8), ob(8);
  std::vector<float> oc(8);
  hlx_dtype_t dt[3] = {HLX_DTYPE_S32, HLX_DTYPE_S32, HLX_DTYPE_F32};
  int64_t dims[2] = {2, 4};
  hlx_sort_key_t k[2] = {Key(0, HLX_SORT_SIGNED, false),
                         Key(1, HLX_SORT_SIGNED, true)};
  const void* in[3] = {a.data(), b.data(), c.data()};
  void* out[3] = {oa.data(), ob.data(), oc.data()};
  ExpectOk(hlx_ref_sort(3, dt, 2, dims, -1 + 2, k, 2, in, out));
  EXPECT_EQ(oa, (std::vector<int32_t>{1, 1, 2, 2, 3, 3, 3, 3}));
  EXPECT_EQ(ob, (std::vector<int32_t>{7, 7, 9, 5, 2, 2, 1, 0}));
  EXPECT_EQ(oc, (std::vector<float>{1, 3, 2, 0, 5, 6, 4, 7}));
}

TEST(Sort, LongInputMatchesStableReference) {
  // 1000 elements with many ties, middle axis of a 3x1000x2 tensor.
  const int64_t n = 1000;
  std::vector<int16_t> x(3 * n * 2), y(x.size());
  std::vector<int32_t> idx(x.size()), oidx(x.size());
  uint32_t s = 12345;
  for (size_t i = 0; i < x.size(); i++) {
    s = s * 1103515245u + 12345u;
    x[i] = (int16_t)((s >> 16) % 37) - 18;
    idx[i] = (int32_t)i;
  }
  hlx_dtype_t dt[2] = {HLX_DTYPE_S16, HLX_DTYPE_S32};
  int64_t dims[3] = {3, n, 2};
  hlx_sort_key_t k = Key(0, HLX_SORT_SIGNED, false);
  const void* in[2] = {x.data(), idx.data()};
  void* out[2] = {y.data(), oidx.data()};
  ExpectOk(hlx_ref_sort(2, dt, 3, dims, 1, &k, 1, in, out));
  for (int64_t o = 0; o < 3; o++)
    for (int64_t j = 0; j < 2; j++)
      for (int64_t i = 1; i < n; i++) {
        size_t p = (size_t)((o * n + i - 1) * 2 + j), q = p + 2;
        ASSERT_LE(y[p], y[q]);
        if (y[p] == y[q]) {
          ASSERT_LT(oidx[p], oidx[q]);  // stable
        }
        ASSERT_EQ(x[(size_t)oidx[q]], y[q]);
      }
}

struct CountingCmp {
  const int32_t* v;
  int calls = 0;
  int fail_after = -1;
};

hlx_status_t CountingLess(void* user, int64_t lhs, int64_t rhs, bool* less) {
  CountingCmp* c = static_cast<CountingCmp*>(user);
  if (c->fail_after >= 0 && c->calls >= c->fail_after)
    return hlx_make_status(HLX_STATUS_INTERNAL, "comparator failed");
  c->calls++;
  // Sort by absolute value (a comparator the native keys cannot express).
  *less = std::abs(c->v[lhs]) < std::abs(c->v[rhs]);
  return nullptr;
}

TEST(Sort, CustomComparatorAndErrors) {
  std::vector<int32_t> x = {-3, 1, -1, 2, 0, 3, -2}, y(7);
  size_t es = 4;
  int64_t dims[1] = {7};
  CountingCmp c;
  c.v = x.data();
  const void* in[1] = {x.data()};
  void* out[1] = {y.data()};
  ExpectOk(hlx_ref_sort_custom(1, &es, 1, dims, 0, CountingLess, &c, in, out));
  EXPECT_EQ(y, (std::vector<int32_t>{0, 1, -1, 2, -2, -3, 3}));
  EXPECT_GT(c.calls, 0);
  EXPECT_LE(c.calls, 7 * 3);  // merge sort: at most n log2 n comparisons
  CountingCmp bad;
  bad.v = x.data();
  bad.fail_after = 2;
  hlx_status_t s =
      hlx_ref_sort_custom(1, &es, 1, dims, 0, CountingLess, &bad, in, out);
  ASSERT_NE(s, nullptr);
  EXPECT_NE(std::string(hlx_status_message(s)).find("comparator failed"),
            std::string::npos);
  hlx_status_free(s);
  // Bad axis.
  hlx_sort_key_t k = Key(0, HLX_SORT_SIGNED, false);
  hlx_dtype_t dt = HLX_DTYPE_S32;
  s = hlx_ref_sort(1, &dt, 1, dims, 1, &k, 1, in, out);
  ASSERT_NE(s, nullptr);
  hlx_status_free(s);
  // FLOAT order on an integer key is not a key.
  k.order = HLX_SORT_FLOAT;
  s = hlx_ref_sort(1, &dt, 1, dims, 0, &k, 1, in, out);
  ASSERT_NE(s, nullptr);
  hlx_status_free(s);
}

TEST(Sort, EmptyDimensionIsANoOp) {
  std::vector<float> x(1), y(1, 42.0f);
  hlx_dtype_t dt = HLX_DTYPE_F32;
  int64_t dims[2] = {0, 5};
  hlx_sort_key_t k = Key(0, HLX_SORT_FLOAT, false);
  const void* in[1] = {x.data()};
  void* out[1] = {y.data()};
  ExpectOk(hlx_ref_sort(1, &dt, 2, dims, 1, &k, 1, in, out));
  EXPECT_EQ(y[0], 42.0f);
}

TEST(TopK, LargestFirstStableTies) {
  std::vector<int32_t> x = {3, 7, 3, 7, 1, 9,   // row 0
                            -1, -5, -1, 0, 2, 2};  // row 1
  std::vector<int32_t> v(6), idx(6);
  ExpectOk(hlx_ref_top_k(HLX_DTYPE_S32, 2, 6, 3, x.data(), v.data(), idx.data()));
  EXPECT_EQ(v, (std::vector<int32_t>{9, 7, 7, 2, 2, 0}));
  EXPECT_EQ(idx, (std::vector<int32_t>{5, 1, 3, 4, 5, 3}));
}

TEST(TopK, FloatsTotalOrderAndUnsigned) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> x = {-0.0f, 0.0f, nan, 1.0f, -nan};
  std::vector<float> v(5);
  std::vector<int32_t> idx(5);
  ExpectOk(hlx_ref_top_k(HLX_DTYPE_F32, 1, 5, 5, x.data(), v.data(), idx.data()));
  EXPECT_EQ(idx, (std::vector<int32_t>{2, 3, 1, 0, 4}));
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_EQ(v[1], 1.0f);
  std::vector<uint16_t> u = {1, 65535, 2}, uv(2);
  std::vector<int32_t> ui(2);
  ExpectOk(hlx_ref_top_k(HLX_DTYPE_U16, 1, 3, 2, u.data(), uv.data(), ui.data()));
  EXPECT_EQ(uv, (std::vector<uint16_t>{65535, 2}));
  EXPECT_EQ(ui, (std::vector<int32_t>{1, 2}));
}

TEST(TopK, Errors) {
  std::vector<float> x(3), v(4);
  std::vector<int32_t> i(4);
  hlx_status_t s = hlx_ref_top_k(HLX_DTYPE_F32, 1, 3, 4, x.data(), v.data(), i.data());
  ASSERT_NE(s, nullptr);
  EXPECT_NE(std::string(hlx_status_message(s)).find("k = 4"), std::string::npos);
  hlx_status_free(s);
  s = hlx_ref_top_k(HLX_DTYPE_C64, 1, 1, 1, x.data(), v.data(), i.data());
  ASSERT_NE(s, nullptr);
  hlx_status_free(s);
  // k = 0 writes nothing.
  ExpectOk(hlx_ref_top_k(HLX_DTYPE_F32, 1, 3, 0, x.data(), v.data(), i.data()));
}

}  // namespace
