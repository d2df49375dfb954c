// Unit tests of the reference elementwise kernels (kernels/elementwise.h):
// one test per semantic rule, with expected values written out.
#include "kernels/elementwise.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <complex>
#include <limits>
#include <random>
#include <vector>

#include "base/dtype.h"
#include "base/float_formats.h"
#include "gtest/gtest.h"

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();
const float kNaNf = std::numeric_limits<float>::quiet_NaN();
const float kInff = std::numeric_limits<float>::infinity();

// Runs unary `op` on dtype `t`; In/Out are the storage types.
template <typename Out, typename In>
std::vector<Out> Unary(hlx_unary_op_t op, hlx_dtype_t t,
                       const std::vector<In>& x) {
  hlx_dtype_t out_t;
  hlx_unary_fn fn = hlx_ref_unary_kernel(op, t, &out_t);
  std::vector<Out> y(x.size());
  EXPECT_NE(fn, nullptr) << hlx_unary_op_name(op) << " " << hlx_dtype_name(t);
  if (!fn) return y;
  EXPECT_EQ(sizeof(Out), hlx_dtype_size(out_t));
  fn(x.data(), y.data(), x.size());
  return y;
}

template <typename T>
std::vector<T> Binary(hlx_binary_op_t op, hlx_dtype_t t,
                      const std::vector<T>& a, const std::vector<T>& b) {
  hlx_dtype_t out_t;
  hlx_binary_fn fn = hlx_ref_binary_kernel(op, t, &out_t);
  std::vector<T> y(a.size());
  EXPECT_NE(fn, nullptr) << hlx_binary_op_name(op) << " " << hlx_dtype_name(t);
  EXPECT_EQ(out_t, t);
  if (!fn) return y;
  EXPECT_EQ(sizeof(T), hlx_dtype_size(t));
  fn(a.data(), b.data(), y.data(), a.size());
  return y;
}

bool SameFloat(double a, double b) {
  if (isnan(a) && isnan(b)) return true;
  return a == b && signbit(a) == signbit(b);
}
#define EXPECT_SAME(a, b) EXPECT_PRED2(SameFloat, a, b)

// Perfect cubes have exact f64 cube roots (the spec's cbrt example), and
// the special values pass through.
TEST(ElementwiseFloat, CbrtOfPerfectCubesIsExact) {
  std::vector<double> x = {27.0, 8.0, -64.0, 0.125,
                           1e18, 0.0, -0.0, kInf, -kInf, kNaN};
  std::vector<double> want = {3.0, 2.0, -4.0, 0.5, 1e6, 0.0, -0.0,
                              kInf, -kInf, kNaN};
  std::vector<double> got = Unary<double>(HLX_UNARY_CBRT, HLX_DTYPE_F64, x);
  for (size_t i = 0; i < x.size(); i++) EXPECT_SAME(got[i], want[i]) << x[i];
}

// ---------------------------------------------------------------- integers

TEST(ElementwiseInt, AddWrapsAtEveryWidth) {
  EXPECT_EQ(Binary<int8_t>(HLX_BINARY_ADD, HLX_DTYPE_S2, {1, -2}, {1, -1}),
            (std::vector<int8_t>{-2, 1}));
  EXPECT_EQ(Binary<int8_t>(HLX_BINARY_ADD, HLX_DTYPE_S4, {7, -8}, {1, -1}),
            (std::vector<int8_t>{-8, 7}));
  EXPECT_EQ(Binary<int8_t>(HLX_BINARY_ADD, HLX_DTYPE_S8, {127}, {1}),
            (std::vector<int8_t>{-128}));
  EXPECT_EQ(Binary<int16_t>(HLX_BINARY_ADD, HLX_DTYPE_S16, {32767}, {1}),
            (std::vector<int16_t>{-32768}));
  EXPECT_EQ(Binary<int32_t>(HLX_BINARY_ADD, HLX_DTYPE_S32, {INT32_MAX}, {1}),
            (std::vector<int32_t>{INT32_MIN}));
  EXPECT_EQ(Binary<int64_t>(HLX_BINARY_ADD, HLX_DTYPE_S64, {INT64_MAX}, {1}),
            (std::vector<int64_t>{INT64_MIN}));
  EXPECT_EQ(Binary<uint8_t>(HLX_BINARY_ADD, HLX_DTYPE_U2, {3, 2}, {1, 3}),
            (std::vector<uint8_t>{0, 1}));
  EXPECT_EQ(Binary<uint8_t>(HLX_BINARY_ADD, HLX_DTYPE_U4, {15}, {1}),
            (std::vector<uint8_t>{0}));
  EXPECT_EQ(Binary<uint8_t>(HLX_BINARY_ADD, HLX_DTYPE_U8, {255}, {1}),
            (std::vector<uint8_t>{0}));
  EXPECT_EQ(Binary<uint16_t>(HLX_BINARY_ADD, HLX_DTYPE_U16, {65535}, {2}),
            (std::vector<uint16_t>{1}));
  EXPECT_EQ(Binary<uint32_t>(HLX_BINARY_ADD, HLX_DTYPE_U32, {UINT32_MAX}, {1}),
            (std::vector<uint32_t>{0}));
  EXPECT_EQ(Binary<uint64_t>(HLX_BINARY_ADD, HLX_DTYPE_U64, {UINT64_MAX}, {3}),
            (std::vector<uint64_t>{2}));
}

TEST(ElementwiseInt, SubtractMultiplyNegateAbsWrap) {
  EXPECT_EQ(Binary<uint8_t>(HLX_BINARY_SUBTRACT, HLX_DTYPE_U4, {0}, {1}),
            (std::vector<uint8_t>{15}));
  EXPECT_EQ(Binary<int8_t>(HLX_BINARY_SUBTRACT, HLX_DTYPE_S4, {-8}, {1}),
            (std::vector<int8_t>{7}));
  EXPECT_EQ(Binary<int8_t>(HLX_BINARY_MULTIPLY, HLX_DTYPE_S4, {3, -3}, {3, 3}),
            (std::vector<int8_t>{-7, 7}));
  EXPECT_EQ(Binary<int8_t>(HLX_BINARY_MULTIPLY, HLX_DTYPE_S8, {16}, {16}),
            (std::vector<int8_t>{0}));
  EXPECT_EQ(Binary<uint16_t>(HLX_BINARY_MULTIPLY, HLX_DTYPE_U16, {65535},
                             {65535}),
            (std::vector<uint16_t>{1}));
  EXPECT_EQ(Binary<int32_t>(HLX_BINARY_MULTIPLY, HLX_DTYPE_S32, {65536},
                            {65536}),
            (std::vector<int32_t>{0}));
  EXPECT_EQ(Unary<int8_t>(HLX_UNARY_NEGATE, HLX_DTYPE_S4,
                          std::vector<int8_t>{-8, 7, 0}),
            (std::vector<int8_t>{-8, -7, 0}));
  EXPECT_EQ(Unary<uint8_t>(HLX_UNARY_NEGATE, HLX_DTYPE_U2,
                           std::vector<uint8_t>{1, 0}),
            (std::vector<uint8_t>{3, 0}));
  EXPECT_EQ(Unary<int8_t>(HLX_UNARY_ABS, HLX_DTYPE_S8,
                          std::vector<int8_t>{-128, -5, 5}),
            (std::vector<int8_t>{-128, 5, 5}));
  EXPECT_EQ(Unary<int64_t>(HLX_UNARY_ABS, HLX_DTYPE_S64,
                           std::vector<int64_t>{INT64_MIN, -3}),
            (std::vector<int64_t>{INT64_MIN, 3}));
}

TEST(ElementwiseInt, DivideAndRemainderEdgeCases) {
  // x / 0 = -1 (all ones), x % 0 = x, truncation toward zero.
  EXPECT_EQ(Binary<int32_t>(HLX_BINARY_DIVIDE, HLX_DTYPE_S32,
                            {7, -7, 7, INT32_MIN, 0}, {0, 2, -2, -1, 0}),
            (std::vector<int32_t>{-1, -3, -3, INT32_MIN, -1}));
  EXPECT_EQ(Binary<int32_t>(HLX_BINARY_REMAINDER, HLX_DTYPE_S32,
                            {7, -7, 7, INT32_MIN, 5}, {0, 2, -2, -1, 3}),
            (std::vector<int32_t>{7, -1, 1, 0, 2}));
  EXPECT_EQ(Binary<int64_t>(HLX_BINARY_DIVIDE, HLX_DTYPE_S64, {INT64_MIN, 9},
                            {-1, 0}),
            (std::vector<int64_t>{INT64_MIN, -1}));
  EXPECT_EQ(Binary<int64_t>(HLX_BINARY_REMAINDER, HLX_DTYPE_S64,
                            {INT64_MIN, 9}, {-1, 0}),
            (std::vector<int64_t>{0, 9}));
  EXPECT_EQ(Binary<int8_t>(HLX_BINARY_DIVIDE, HLX_DTYPE_S4, {-8, 5}, {-1, 0}),
            (std::vector<int8_t>{-8, -1}));
  EXPECT_EQ(Binary<int8_t>(HLX_BINARY_REMAINDER, HLX_DTYPE_S4, {-8, 5}, {-1, 0}),
            (std::vector<int8_t>{0, 5}));
  EXPECT_EQ(Binary<uint8_t>(HLX_BINARY_DIVIDE, HLX_DTYPE_U8, {200, 7}, {0, 2}),
            (std::vector<uint8_t>{255, 3}));
  EXPECT_EQ(Binary<uint8_t>(HLX_BINARY_DIVIDE, HLX_DTYPE_U4, {9}, {0}),
            (std::vector<uint8_t>{15}));
  EXPECT_EQ(Binary<uint64_t>(HLX_BINARY_DIVIDE, HLX_DTYPE_U64, {5}, {0}),
            (std::vector<uint64_t>{UINT64_MAX}));
  EXPECT_EQ(Binary<uint16_t>(HLX_BINARY_REMAINDER, HLX_DTYPE_U16, {17, 20},
                             {0, 7}),
            (std::vector<uint16_t>{17, 6}));
}

TEST(ElementwiseInt, ShiftsByWidthAndNegativeCounts) {
  EXPECT_EQ(Binary<int8_t>(HLX_BINARY_SHIFT_LEFT, HLX_DTYPE_S8,
                           {1, 1, 1, 3, -1}, {7, 8, -1, 2, 100}),
            (std::vector<int8_t>{-128, 0, 0, 12, 0}));
  EXPECT_EQ(Binary<int8_t>(HLX_BINARY_SHIFT_RIGHT_LOGICAL, HLX_DTYPE_S8,
                           {-1, -128, 64, -1}, {1, 7, 8, -3}),
            (std::vector<int8_t>{127, 1, 0, 0}));
  EXPECT_EQ(Binary<int8_t>(HLX_BINARY_SHIFT_RIGHT_ARITHMETIC, HLX_DTYPE_S8,
                           {-128, -128, 100, -1, 5}, {1, 8, 9, -2, 1}),
            (std::vector<int8_t>{-64, -1, 0, -1, 2}));
  // Arithmetic shift of an unsigned type shifts the bit pattern.
  EXPECT_EQ(Binary<uint8_t>(HLX_BINARY_SHIFT_RIGHT_ARITHMETIC, HLX_DTYPE_U8,
                            {0x80, 0x40, 0x80}, {1, 1, 8}),
            (std::vector<uint8_t>{0xC0, 0x20, 0xFF}));
  EXPECT_EQ(Binary<int8_t>(HLX_BINARY_SHIFT_LEFT, HLX_DTYPE_S4, {1, 1, 1},
                           {3, 4, 2}),
            (std::vector<int8_t>{-8, 0, 4}));
  EXPECT_EQ(Binary<int8_t>(HLX_BINARY_SHIFT_RIGHT_LOGICAL, HLX_DTYPE_S4, {-8},
                           {1}),
            (std::vector<int8_t>{4}));
  EXPECT_EQ(Binary<uint8_t>(HLX_BINARY_SHIFT_RIGHT_ARITHMETIC, HLX_DTYPE_U4,
                            {8, 8}, {1, 4}),
            (std::vector<uint8_t>{12, 15}));
  EXPECT_EQ(Binary<uint32_t>(HLX_BINARY_SHIFT_LEFT, HLX_DTYPE_U32,
                             {1, 1, 1}, {31, 32, 33}),
            (std::vector<uint32_t>{0x80000000u, 0, 0}));
  EXPECT_EQ(Binary<int64_t>(HLX_BINARY_SHIFT_RIGHT_ARITHMETIC, HLX_DTYPE_S64,
                            {INT64_MIN, INT64_MIN}, {63, 64}),
            (std::vector<int64_t>{-1, -1}));
  EXPECT_EQ(Binary<uint64_t>(HLX_BINARY_SHIFT_RIGHT_LOGICAL, HLX_DTYPE_U64,
                             {UINT64_MAX, UINT64_MAX}, {63, 64}),
            (std::vector<uint64_t>{1, 0}));
}

TEST(ElementwiseInt, PowerIncludingNegativeExponents) {
  // From the StableHLO interpreter tests.
  EXPECT_EQ(Binary<int64_t>(HLX_BINARY_POWER, HLX_DTYPE_S64,
                            {-1, -1, -3, 1, -3, 0}, {1, 0, -3, -3, 3, 2}),
            (std::vector<int64_t>{-1, 1, 0, 1, -27, 0}));
  EXPECT_EQ(Binary<uint64_t>(HLX_BINARY_POWER, HLX_DTYPE_U64, {0, 0, 1, 1, 5},
                             {0, 1, 0, 2, 5}),
            (std::vector<uint64_t>{1, 0, 1, 1, 3125}));
  EXPECT_EQ(Binary<int8_t>(HLX_BINARY_POWER, HLX_DTYPE_S8, {3, -1, -1, 2},
                           {5, -3, -4, -1}),
            (std::vector<int8_t>{-13, -1, 1, 0}));  // 243 wraps to -13
  EXPECT_EQ(Binary<int8_t>(HLX_BINARY_POWER, HLX_DTYPE_S4, {2, -2}, {3, 3}),
            (std::vector<int8_t>{-8, -8}));
  EXPECT_EQ(Binary<uint8_t>(HLX_BINARY_POWER, HLX_DTYPE_U8, {2, 3}, {8, 4}),
            (std::vector<uint8_t>{0, 81}));
}

TEST(ElementwiseInt, MaxMinAndBitwise) {
  EXPECT_EQ(Binary<int8_t>(HLX_BINARY_MAXIMUM, HLX_DTYPE_S4, {-8, 3}, {7, -1}),
            (std::vector<int8_t>{7, 3}));
  EXPECT_EQ(Binary<uint32_t>(HLX_BINARY_MINIMUM, HLX_DTYPE_U32,
                             {0xFFFFFFFFu, 2}, {1, 3}),
            (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(Binary<int16_t>(HLX_BINARY_AND, HLX_DTYPE_S16, {0x0F0F}, {0x00FF}),
            (std::vector<int16_t>{0x000F}));
  EXPECT_EQ(Binary<int16_t>(HLX_BINARY_OR, HLX_DTYPE_S16, {0x0F00}, {0x00F0}),
            (std::vector<int16_t>{0x0FF0}));
  EXPECT_EQ(Binary<int8_t>(HLX_BINARY_XOR, HLX_DTYPE_S4, {-1}, {5}),
            (std::vector<int8_t>{-6}));
  EXPECT_EQ(Unary<int8_t>(HLX_UNARY_NOT, HLX_DTYPE_S4,
                          std::vector<int8_t>{0, -1, 5}),
            (std::vector<int8_t>{-1, 0, -6}));
  EXPECT_EQ(Unary<uint8_t>(HLX_UNARY_NOT, HLX_DTYPE_U4,
                           std::vector<uint8_t>{0, 15, 5}),
            (std::vector<uint8_t>{15, 0, 10}));
  EXPECT_EQ(Unary<int32_t>(HLX_UNARY_NOT, HLX_DTYPE_S32,
                           std::vector<int32_t>{1, 2}),
            (std::vector<int32_t>{-2, -3}));
}

TEST(ElementwiseInt, PopcntAndClzUseTheTypeWidth) {
  EXPECT_EQ(Unary<int8_t>(HLX_UNARY_POPCNT, HLX_DTYPE_S4,
                          std::vector<int8_t>{-1, -8, 0, 7}),
            (std::vector<int8_t>{4, 1, 0, 3}));
  EXPECT_EQ(Unary<int8_t>(HLX_UNARY_CLZ, HLX_DTYPE_S4,
                          std::vector<int8_t>{-1, 0, 1, 4}),
            (std::vector<int8_t>{0, 4, 3, 1}));
  EXPECT_EQ(Unary<uint8_t>(HLX_UNARY_CLZ, HLX_DTYPE_U2,
                           std::vector<uint8_t>{0, 1, 2}),
            (std::vector<uint8_t>{2, 1, 0}));
  EXPECT_EQ(Unary<int8_t>(HLX_UNARY_POPCNT, HLX_DTYPE_S8,
                          std::vector<int8_t>{-1, -128}),
            (std::vector<int8_t>{8, 1}));
  EXPECT_EQ(Unary<int16_t>(HLX_UNARY_CLZ, HLX_DTYPE_S16,
                           std::vector<int16_t>{0, 1, -1}),
            (std::vector<int16_t>{16, 15, 0}));
  EXPECT_EQ(Unary<int64_t>(HLX_UNARY_CLZ, HLX_DTYPE_S64,
                           std::vector<int64_t>{0, 1, INT64_MIN}),
            (std::vector<int64_t>{64, 63, 0}));
  EXPECT_EQ(Unary<uint64_t>(HLX_UNARY_POPCNT, HLX_DTYPE_U64,
                            std::vector<uint64_t>{UINT64_MAX}),
            (std::vector<uint64_t>{64}));
}

TEST(ElementwiseInt, SignOfSignedInts) {
  EXPECT_EQ(Unary<int8_t>(HLX_UNARY_SIGN, HLX_DTYPE_S4,
                          std::vector<int8_t>{-8, 0, 7}),
            (std::vector<int8_t>{-1, 0, 1}));
  EXPECT_EQ(Unary<int64_t>(HLX_UNARY_SIGN, HLX_DTYPE_S64,
                           std::vector<int64_t>{INT64_MIN, 0, 9}),
            (std::vector<int64_t>{-1, 0, 1}));
}

TEST(ElementwiseInt, MulhiIsTheHighHalf) {
  EXPECT_EQ(Binary<int32_t>(HLX_BINARY_MULHI, HLX_DTYPE_S32,
                            {0x40000000, -1, INT32_MIN}, {4, 1, INT32_MIN}),
            (std::vector<int32_t>{1, -1, 0x40000000}));
  EXPECT_EQ(Binary<uint8_t>(HLX_BINARY_MULHI, HLX_DTYPE_U8, {200}, {200}),
            (std::vector<uint8_t>{156}));  // 40000 = 0x9C40
  EXPECT_EQ(Binary<int8_t>(HLX_BINARY_MULHI, HLX_DTYPE_S8, {-128, -1}, {-128, 5}),
            (std::vector<int8_t>{64, -1}));
  EXPECT_EQ(Binary<uint64_t>(HLX_BINARY_MULHI, HLX_DTYPE_U64, {UINT64_MAX},
                             {UINT64_MAX}),
            (std::vector<uint64_t>{UINT64_MAX - 1}));
  EXPECT_EQ(Binary<int64_t>(HLX_BINARY_MULHI, HLX_DTYPE_S64, {INT64_MIN, -1},
                            {2, 1}),
            (std::vector<int64_t>{-1, -1}));
  EXPECT_EQ(Binary<int8_t>(HLX_BINARY_MULHI, HLX_DTYPE_S4, {-8, 7}, {-8, 7}),
            (std::vector<int8_t>{4, 3}));  // 64 = 0x40, 49 = 0x31
}

TEST(ElementwisePred, LogicalOps) {
  std::vector<uint8_t> a = {0, 0, 1, 1}, b = {0, 1, 0, 1};
  std::vector<uint8_t> orv = {0, 1, 1, 1}, andv = {0, 0, 0, 1};
  EXPECT_EQ(Binary<uint8_t>(HLX_BINARY_ADD, HLX_DTYPE_PRED, a, b), orv);
  EXPECT_EQ(Binary<uint8_t>(HLX_BINARY_OR, HLX_DTYPE_PRED, a, b), orv);
  EXPECT_EQ(Binary<uint8_t>(HLX_BINARY_MAXIMUM, HLX_DTYPE_PRED, a, b), orv);
  EXPECT_EQ(Binary<uint8_t>(HLX_BINARY_MULTIPLY, HLX_DTYPE_PRED, a, b), andv);
  EXPECT_EQ(Binary<uint8_t>(HLX_BINARY_AND, HLX_DTYPE_PRED, a, b), andv);
  EXPECT_EQ(Binary<uint8_t>(HLX_BINARY_MINIMUM, HLX_DTYPE_PRED, a, b), andv);
  EXPECT_EQ(Binary<uint8_t>(HLX_BINARY_XOR, HLX_DTYPE_PRED, a, b),
            (std::vector<uint8_t>{0, 1, 1, 0}));
  EXPECT_EQ(Unary<uint8_t>(HLX_UNARY_NOT, HLX_DTYPE_PRED, a),
            (std::vector<uint8_t>{1, 1, 0, 0}));
}

// ------------------------------------------------------------------ floats

TEST(ElementwiseFloat, SignSpecialValues) {
  auto y = Unary<double>(HLX_UNARY_SIGN, HLX_DTYPE_F64,
                         std::vector<double>{kNaN, -0.0, 0.0, -5, 3, -kInf,
                                             4.9e-324});
  EXPECT_TRUE(isnan(y[0]));
  EXPECT_SAME(y[1], -0.0);
  EXPECT_SAME(y[2], 0.0);
  EXPECT_SAME(y[3], -1.0);
  EXPECT_SAME(y[4], 1.0);
  EXPECT_SAME(y[5], -1.0);
  EXPECT_SAME(y[6], 1.0);
  auto z = Unary<float>(HLX_UNARY_SIGN, HLX_DTYPE_F32,
                        std::vector<float>{-0.0f, kNaNf, -2.5f});
  EXPECT_SAME(z[0], -0.0);
  EXPECT_TRUE(isnan(z[1]));
  EXPECT_SAME(z[2], -1.0);
}

TEST(ElementwiseFloat, RoundingModes) {
  std::vector<double> x = {0.5, 1.5, 2.5, -0.5, -2.5, -0.4, 3.7, -kInf, 0.49999999999999994};
  auto afz = Unary<double>(HLX_UNARY_ROUND_AFZ, HLX_DTYPE_F64, x);
  auto even = Unary<double>(HLX_UNARY_ROUND_EVEN, HLX_DTYPE_F64, x);
  std::vector<double> want_afz = {1, 2, 3, -1, -3, -0.0, 4, -kInf, 0};
  std::vector<double> want_even = {0, 2, 2, -0.0, -2, -0.0, 4, -kInf, 0};
  for (size_t i = 0; i < x.size(); i++) {
    EXPECT_SAME(afz[i], want_afz[i]) << x[i];
    EXPECT_SAME(even[i], want_even[i]) << x[i];
  }
  auto fl = Unary<float>(HLX_UNARY_FLOOR, HLX_DTYPE_F32,
                         std::vector<float>{-0.5f, 1.5f, -0.0f});
  EXPECT_SAME(fl[0], -1.0);
  EXPECT_SAME(fl[1], 1.0);
  EXPECT_SAME(fl[2], -0.0);
  auto ce = Unary<float>(HLX_UNARY_CEIL, HLX_DTYPE_F32,
                         std::vector<float>{-0.5f, 1.5f});
  EXPECT_SAME(ce[0], -0.0);
  EXPECT_SAME(ce[1], 2.0);
}

TEST(ElementwiseFloat, MaximumMinimumPropagateNaNAndOrderZeros) {
  std::vector<float> a = {kNaNf, 1.0f, -0.0f, 0.0f, -kInff};
  std::vector<float> b = {1.0f, kNaNf, 0.0f, -0.0f, 2.0f};
  auto mx = Binary<float>(HLX_BINARY_MAXIMUM, HLX_DTYPE_F32, a, b);
  auto mn = Binary<float>(HLX_BINARY_MINIMUM, HLX_DTYPE_F32, a, b);
  EXPECT_TRUE(isnan(mx[0]));
  EXPECT_TRUE(isnan(mx[1]));
  EXPECT_SAME(mx[2], 0.0);
  EXPECT_SAME(mx[3], 0.0);
  EXPECT_SAME(mx[4], 2.0);
  EXPECT_TRUE(isnan(mn[0]));
  EXPECT_TRUE(isnan(mn[1]));
  EXPECT_SAME(mn[2], -0.0);
  EXPECT_SAME(mn[3], -0.0);
  EXPECT_SAME(mn[4], -kInf);
  // Narrow types too.
  std::vector<uint16_t> h = {0x7E00, 0x3C00}, g = {0x3C00, 0x4000};
  auto hm = Binary<uint16_t>(HLX_BINARY_MAXIMUM, HLX_DTYPE_F16, h, g);
  EXPECT_TRUE(isnan(hlx_f16_to_f32(hm[0])));
  EXPECT_EQ(hm[1], 0x4000);
}

TEST(ElementwiseFloat, RemainderHasTheDividendSign) {
  auto r = Binary<double>(HLX_BINARY_REMAINDER, HLX_DTYPE_F64,
                          {17.1, -17.1, 17.1, -17.1, 5.5, -0.0, 1.0, kInf},
                          {3.0, 3.0, -3.0, -3.0, -2.0, 1.0, 0.0, 1.0});
  EXPECT_SAME(r[0], 2.1000000000000014);
  EXPECT_SAME(r[1], -2.1000000000000014);
  EXPECT_SAME(r[2], 2.1000000000000014);
  EXPECT_SAME(r[3], -2.1000000000000014);
  EXPECT_SAME(r[4], 1.5);
  EXPECT_SAME(r[5], -0.0);
  EXPECT_TRUE(isnan(r[6]));
  EXPECT_TRUE(isnan(r[7]));
}

TEST(ElementwiseFloat, IeeeSpecialValues) {
  auto d = Binary<float>(HLX_BINARY_DIVIDE, HLX_DTYPE_F32,
                         {1.0f, -1.0f, 0.0f, 1.0f}, {0.0f, 0.0f, 0.0f, -0.0f});
  EXPECT_SAME(d[0], kInf);
  EXPECT_SAME(d[1], -kInf);
  EXPECT_TRUE(isnan(d[2]));
  EXPECT_SAME(d[3], -kInf);
  auto s = Unary<float>(HLX_UNARY_SQRT, HLX_DTYPE_F32,
                        std::vector<float>{-1.0f, -0.0f, kInff, 1e-45f});
  EXPECT_TRUE(isnan(s[0]));
  EXPECT_SAME(s[1], -0.0);
  EXPECT_SAME(s[2], kInf);
  EXPECT_SAME(s[3], (double)sqrtf(1e-45f));
  auto rs = Unary<float>(HLX_UNARY_RSQRT, HLX_DTYPE_F32,
                         std::vector<float>{0.0f, 4.0f, kInff, -1.0f});
  EXPECT_SAME(rs[0], kInf);
  EXPECT_SAME(rs[1], 0.5);
  EXPECT_SAME(rs[2], 0.0);
  EXPECT_TRUE(isnan(rs[3]));
  auto lg = Unary<double>(HLX_UNARY_LOG, HLX_DTYPE_F64,
                          std::vector<double>{0.0, -1.0, 1.0});
  EXPECT_SAME(lg[0], -kInf);
  EXPECT_TRUE(isnan(lg[1]));
  EXPECT_SAME(lg[2], 0.0);
  auto fin = Unary<uint8_t>(HLX_UNARY_IS_FINITE, HLX_DTYPE_F32,
                            std::vector<float>{1.0f, kInff, kNaNf, 1e-45f});
  EXPECT_EQ(fin, (std::vector<uint8_t>{1, 0, 0, 1}));
  std::vector<double> v = {kInf, -kInf, kNaN, 1.0};
  EXPECT_EQ(Unary<uint8_t>(HLX_UNARY_IS_INF, HLX_DTYPE_F64, v),
            (std::vector<uint8_t>{1, 1, 0, 0}));
  EXPECT_EQ(Unary<uint8_t>(HLX_UNARY_IS_POS_INF, HLX_DTYPE_F64, v),
            (std::vector<uint8_t>{1, 0, 0, 0}));
  EXPECT_EQ(Unary<uint8_t>(HLX_UNARY_IS_NEG_INF, HLX_DTYPE_F64, v),
            (std::vector<uint8_t>{0, 1, 0, 0}));
}

TEST(ElementwiseFloat, DenormalsAreKept) {
  float den = 1e-45f;  // smallest f32 subnormal
  auto a = Binary<float>(HLX_BINARY_ADD, HLX_DTYPE_F32, {den, den}, {den, 0});
  EXPECT_EQ(a[0], 2 * den);
  EXPECT_EQ(a[1], den);
  auto m = Binary<float>(HLX_BINARY_MULTIPLY, HLX_DTYPE_F32, {1e-20f}, {1e-20f});
  EXPECT_EQ(m[0], 1e-20f * 1e-20f);
  EXPECT_GT(m[0], 0.0f);
  // f16 subnormal arithmetic: 2^-24 + 2^-24 = 2^-23.
  auto h = Binary<uint16_t>(HLX_BINARY_ADD, HLX_DTYPE_F16, {0x0001}, {0x0001});
  EXPECT_EQ(h[0], 0x0002);
}

TEST(ElementwiseFloat, NarrowFloatsComputeInF32AndRoundOnce) {
  // 1 + 2^-11 is a tie in f16: rounds to even (1.0); 1 + 3*2^-11 rounds up.
  auto h = Binary<uint16_t>(HLX_BINARY_ADD, HLX_DTYPE_F16,
                            {0x3C00, 0x3C00, 0x7BFF, 0xFBFF},
                            {0x1000, 0x1600, 0x5000, 0xD000});
  EXPECT_EQ(h[0], 0x3C00);
  EXPECT_EQ(h[1], 0x3C02);
  EXPECT_EQ(h[2], 0x7C00);  // 65504 + 32 overflows to +Inf
  EXPECT_EQ(h[3], 0xFC00);
  // Exhaustive f16 sqrt and exp against f32 + one rounding (base formats).
  std::vector<uint16_t> all(65536);
  for (int i = 0; i < 65536; i++) all[i] = (uint16_t)i;
  auto sq = Unary<uint16_t>(HLX_UNARY_SQRT, HLX_DTYPE_F16, all);
  auto ex = Unary<uint16_t>(HLX_UNARY_EXP, HLX_DTYPE_F16, all);
  int bad = 0;
  for (int i = 0; i < 65536; i++) {
    float x = hlx_f16_to_f32((uint16_t)i);
    uint16_t ws = hlx_f32_to_f16(sqrtf(x));
    uint16_t we = hlx_f32_to_f16((float)exp((double)x));
    bool nan_s = isnan(hlx_f16_to_f32(ws)) && isnan(hlx_f16_to_f32(sq[i]));
    bool nan_e = isnan(hlx_f16_to_f32(we)) && isnan(hlx_f16_to_f32(ex[i]));
    if (!(nan_s || sq[i] == ws) || !(nan_e || ex[i] == we)) bad++;
  }
  EXPECT_EQ(bad, 0);
  // bf16: 1 + 2^-8 is a tie -> 1; 1 + 3*2^-9 rounds up to 1 + 2^-7.
  auto b = Binary<uint16_t>(HLX_BINARY_ADD, HLX_DTYPE_BF16, {0x3F80, 0x3F80},
                            {0x3B80, 0x3BC0});
  EXPECT_EQ(b[0], 0x3F80);
  EXPECT_EQ(b[1], 0x3F81);
  // f8e4m3fn: 448 * 2 has no Inf -> NaN (0x7F); 1.0 + 1.0 = 2.0.
  auto f8 = Binary<uint8_t>(HLX_BINARY_MULTIPLY, HLX_DTYPE_F8E4M3FN,
                            {0x7E, 0x38}, {0x40, 0x40});
  EXPECT_EQ(f8[0], 0x7F);
  EXPECT_EQ(f8[1], 0x40);
}

TEST(ElementwiseFloat, NextAfterStepsInTheOperandFormat) {
  auto f = Binary<float>(HLX_BINARY_NEXT_AFTER, HLX_DTYPE_F32,
                         {1.0f, 0.0f, -0.0f, 1.0f, kNaNf},
                         {2.0f, -1.0f, 1.0f, 1.0f, 0.0f});
  EXPECT_EQ(f[0], nextafterf(1.0f, 2.0f));
  EXPECT_SAME(f[1], -(double)1e-45f);
  EXPECT_EQ(f[2], 1e-45f);
  EXPECT_EQ(f[3], 1.0f);
  EXPECT_TRUE(isnan(f[4]));
  auto h = Binary<uint16_t>(HLX_BINARY_NEXT_AFTER, HLX_DTYPE_F16,
                            {0x3C00, 0x3C00, 0x0000, 0x8001, 0x7BFF},
                            {0x4000, 0x0000, 0x8000 | 0x3C00, 0x3C00, 0x7C00});
  EXPECT_EQ(h[0], 0x3C01);
  EXPECT_EQ(h[1], 0x3BFF);
  EXPECT_EQ(h[2], 0x8001);
  EXPECT_EQ(h[3], 0x8000);
  EXPECT_EQ(h[4], 0x7C00);
  auto bf = Binary<uint16_t>(HLX_BINARY_NEXT_AFTER, HLX_DTYPE_BF16, {0x3F80},
                             {0xBF80});
  EXPECT_EQ(bf[0], 0x3F7F);
}

TEST(ElementwiseFloat, F32TranscendentalsAreCorrectlyRoundedFromDouble) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-20.0f, 20.0f);
  std::vector<float> x(1001);
  for (float& v : x) v = dist(rng);
  auto s = Unary<float>(HLX_UNARY_SIN, HLX_DTYPE_F32, x);
  auto t = Unary<float>(HLX_UNARY_TANH, HLX_DTYPE_F32, x);
  auto e = Unary<float>(HLX_UNARY_EXPM1, HLX_DTYPE_F32, x);
  auto l = Unary<float>(HLX_UNARY_LOGISTIC, HLX_DTYPE_F32, x);
  for (size_t i = 0; i < x.size(); i++) {
    double d = x[i];
    EXPECT_EQ(s[i], (float)sin(d));
    EXPECT_EQ(t[i], (float)tanh(d));
    EXPECT_EQ(e[i], (float)expm1(d));
    EXPECT_NEAR(l[i], 1.0 / (1.0 + exp(-d)), 1e-7 * (1.0 / (1.0 + exp(-d))));
  }
  auto big = Unary<float>(HLX_UNARY_LOGISTIC, HLX_DTYPE_F32,
                          std::vector<float>{-100.0f, 100.0f, 0.0f});
  EXPECT_EQ(big[0], (float)exp(-100.0));
  EXPECT_EQ(big[1], 1.0f);
  EXPECT_EQ(big[2], 0.5f);
}

TEST(ElementwiseFloat, RealImagConjOfRealTypes) {
  std::vector<double> x = {-1.5, 2.0};
  EXPECT_EQ(Unary<double>(HLX_UNARY_REAL, HLX_DTYPE_F64, x), x);
  EXPECT_EQ(Unary<double>(HLX_UNARY_CONJ, HLX_DTYPE_F64, x), x);
  EXPECT_EQ(Unary<double>(HLX_UNARY_IMAG, HLX_DTYPE_F64, x),
            (std::vector<double>{0.0, 0.0}));
  EXPECT_EQ(Unary<double>(HLX_UNARY_SQUARE, HLX_DTYPE_F64, x),
            (std::vector<double>{2.25, 4.0}));
}

TEST(ElementwiseFloat, ChloSpecialFunctions) {
  const double gamma = 0.57721566490153286;
  auto dg = Unary<double>(HLX_UNARY_DIGAMMA, HLX_DTYPE_F64,
                          std::vector<double>{1.0, 0.5, -0.5, 2.5, -3.7, 0.0,
                                              -2.0, kInf});
  EXPECT_NEAR(dg[0], -gamma, 1e-15);
  EXPECT_NEAR(dg[1], -gamma - 2 * log(2.0), 1e-15);
  EXPECT_NEAR(dg[2], 0.0364899739785765205590, 1e-15);
  EXPECT_NEAR(dg[3], 0.703156640645243187226, 1e-15);
  EXPECT_NEAR(dg[4], -0.845076858870419354616, 1e-14);
  EXPECT_TRUE(isnan(dg[5]));
  EXPECT_TRUE(isnan(dg[6]));
  EXPECT_EQ(dg[7], kInf);
  auto lg = Unary<double>(HLX_UNARY_LGAMMA, HLX_DTYPE_F64,
                          std::vector<double>{0.5, -2.5, 1.0, 0.0, -3.0});
  EXPECT_NEAR(lg[0], 0.572364942924700087072, 1e-15);
  EXPECT_NEAR(lg[1], -0.0562437164976740506726, 1e-15);
  EXPECT_EQ(lg[2], 0.0);
  EXPECT_EQ(lg[3], kInf);
  EXPECT_EQ(lg[4], kInf);
  auto ei = Unary<double>(HLX_UNARY_ERF_INV, HLX_DTYPE_F64,
                          std::vector<double>{0.5, -0.999999, 1e-10, 1.0, -1.0,
                                              1.5, 0.0});
  EXPECT_NEAR(ei[0], 0.476936276204469873381, 1e-15);
  EXPECT_NEAR(ei[1], -3.45891073727549877753, 4e-15);
  EXPECT_NEAR(ei[2], 8.86226925452758013651e-11, 1e-25);
  EXPECT_EQ(ei[3], kInf);
  EXPECT_EQ(ei[4], -kInf);
  EXPECT_TRUE(isnan(ei[5]));
  EXPECT_SAME(ei[6], 0.0);
  std::vector<double> bx = {1.0, 30.0, 100.0, 0.1, 24.9, 25.1, 700.0, -1.0};
  auto i0 = Unary<double>(HLX_UNARY_BESSEL_I0E, HLX_DTYPE_F64, bx);
  auto i1 = Unary<double>(HLX_UNARY_BESSEL_I1E, HLX_DTYPE_F64, bx);
  const double want_i0[] = {0.465759607593640436502, 0.0731459464822372939289,
                            0.0399443792990966826476, 0.907100925782301091652,
                            0.0803593326115322136243, 0.0800351972542962364473,
                            0.0150812956515313575870, 0.465759607593640436502};
  const double want_i1[] = {0.207910415349708448869, 0.0719163305986475547061,
                            0.0397441530251302526736, 0.0452984468088093272765,
                            0.0787287948821031291997, 0.0784243151783684138817,
                            0.0150705194447168469493, -0.207910415349708448869};
  for (size_t i = 0; i < bx.size(); i++) {
    EXPECT_NEAR(i0[i], want_i0[i], 4e-16 * fabs(want_i0[i]) * 8) << bx[i];
    EXPECT_NEAR(i1[i], want_i1[i], 4e-16 * fabs(want_i1[i]) * 8) << bx[i];
  }
  auto z = Binary<double>(HLX_BINARY_ZETA, HLX_DTYPE_F64,
                          {2.0, 3.0, 2.5, 4.0, 1.0, 0.5},
                          {1.0, 2.0, 0.3, -1.5, 1.0, 1.0});
  EXPECT_NEAR(z[0], M_PI * M_PI / 6, 1e-15);
  EXPECT_NEAR(z[1], 0.202056903159594285400, 1e-15);
  EXPECT_NEAR(z[2], 21.0692392022477249172, 1e-13);
  EXPECT_NEAR(z[3], 32.4323793698646037369, 1e-13);
  EXPECT_EQ(z[4], kInf);
  EXPECT_TRUE(isnan(z[5]));
  auto pg = Binary<double>(HLX_BINARY_POLYGAMMA, HLX_DTYPE_F64,
                           {1.0, 2.0, 3.0, 0.0, 0.5, -1.0},
                           {1.0, 1.0, 0.5, 1.0, 1.0, 1.0});
  EXPECT_NEAR(pg[0], 1.64493406684822643647, 1e-14);
  EXPECT_NEAR(pg[1], -2.40411380631918857080, 1e-14);
  EXPECT_NEAR(pg[2], 97.4090910340024372364, 1e-12);
  EXPECT_NEAR(pg[3], -gamma, 1e-15);
  EXPECT_TRUE(isnan(pg[4]));
  EXPECT_TRUE(isnan(pg[5]));
  // Near digamma's positive root and in erf_inv's far tail (relative
  // accuracy, where naive recurrence / Newton-on-erfc lose digits).
  auto dr = Unary<double>(HLX_UNARY_DIGAMMA, HLX_DTYPE_F64,
                          std::vector<double>{1.46, 1.47});
  EXPECT_NEAR(dr[0], -0.0015805619870834522, 1e-15 * 0.0016);
  EXPECT_NEAR(dr[1], 0.008066489011364869, 1e-15 * 0.008);
  auto et = Unary<double>(HLX_UNARY_ERF_INV, HLX_DTYPE_F64,
                          std::vector<double>{0.9999999999999999});
  EXPECT_NEAR(et[0], 5.8635847487551676, 1e-14);
  // f32 goes through the same double code and rounds once.
  auto f = Unary<float>(HLX_UNARY_ERF_INV, HLX_DTYPE_F32,
                        std::vector<float>{0.5f});
  EXPECT_EQ(f[0], (float)0.476936276204469873381);
}

// ----------------------------------------------------------------- complex

using c64 = std::complex<float>;
using c128 = std::complex<double>;

TEST(ElementwiseComplex, ArithmeticMatchesStdComplex) {
  std::vector<c128> a = {{1.5, 2.5}, {7.5, 5.5}, {-3, 0.25}};
  std::vector<c128> b = {{2.5, 1.5}, {5.5, 7.5}, {0.5, -4}};
  auto m = Binary<c128>(HLX_BINARY_MULTIPLY, HLX_DTYPE_C128, a, b);
  auto d = Binary<c128>(HLX_BINARY_DIVIDE, HLX_DTYPE_C128, a, b);
  auto s = Binary<c128>(HLX_BINARY_SUBTRACT, HLX_DTYPE_C128, a, b);
  for (size_t i = 0; i < a.size(); i++) {
    EXPECT_EQ(m[i], a[i] * b[i]);
    EXPECT_NEAR(std::abs(d[i] - a[i] / b[i]), 0, 1e-15 * std::abs(a[i] / b[i]));
    EXPECT_EQ(s[i], a[i] - b[i]);
  }
  auto p = Binary<c128>(HLX_BINARY_POWER, HLX_DTYPE_C128, a, b);
  EXPECT_NEAR(p[0].real(), -1.5679313814305016, 1e-13);
  EXPECT_NEAR(p[0].imag(), -2.6674775446623613, 1e-13);
  EXPECT_NEAR(p[1].real(), 392.89270835580857, 1e-10);
  EXPECT_NEAR(p[1].imag(), 1801.8249193362644, 1e-10);
  auto z = Binary<c128>(HLX_BINARY_POWER, HLX_DTYPE_C128, {{0, 0}, {0, 0}},
                        {{0, 0}, {2, 0}});
  EXPECT_EQ(z[0], c128(1, 0));
  EXPECT_EQ(z[1], c128(0, 0));
  auto f = Binary<c64>(HLX_BINARY_MULTIPLY, HLX_DTYPE_C64, {{1, 2}}, {{3, 4}});
  EXPECT_EQ(f[0], c64(-5, 10));
}

TEST(ElementwiseComplex, UnaryOpsMatchStdComplex) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> dist(-3, 3);
  std::vector<c128> x(37);
  for (c128& v : x) v = c128(dist(rng), dist(rng));
  struct Case {
    hlx_unary_op_t op;
    c128 (*ref)(c128);
  } cases[] = {
      {HLX_UNARY_EXP, [](c128 z) { return std::exp(z); }},
      {HLX_UNARY_LOG, [](c128 z) { return std::log(z); }},
      {HLX_UNARY_SQRT, [](c128 z) { return std::sqrt(z); }},
      {HLX_UNARY_RSQRT, [](c128 z) { return 1.0 / std::sqrt(z); }},
      {HLX_UNARY_SIN, [](c128 z) { return std::sin(z); }},
      {HLX_UNARY_COS, [](c128 z) { return std::cos(z); }},
      {HLX_UNARY_TAN, [](c128 z) { return std::tan(z); }},
      {HLX_UNARY_TANH, [](c128 z) { return std::tanh(z); }},
      {HLX_UNARY_SINH, [](c128 z) { return std::sinh(z); }},
      {HLX_UNARY_COSH, [](c128 z) { return std::cosh(z); }},
      {HLX_UNARY_ASIN, [](c128 z) { return std::asin(z); }},
      {HLX_UNARY_ACOS, [](c128 z) { return std::acos(z); }},
      {HLX_UNARY_ATAN, [](c128 z) { return std::atan(z); }},
      {HLX_UNARY_ASINH, [](c128 z) { return std::asinh(z); }},
      {HLX_UNARY_ACOSH, [](c128 z) { return std::acosh(z); }},
      {HLX_UNARY_ATANH, [](c128 z) { return std::atanh(z); }},
      {HLX_UNARY_EXPM1, [](c128 z) { return std::exp(z) - 1.0; }},
      {HLX_UNARY_LOG1P, [](c128 z) { return std::log(1.0 + z); }},
      {HLX_UNARY_LOGISTIC, [](c128 z) { return 1.0 / (1.0 + std::exp(-z)); }},
      {HLX_UNARY_SQUARE, [](c128 z) { return z * z; }},
      {HLX_UNARY_CONJ, [](c128 z) { return std::conj(z); }},
      {HLX_UNARY_NEGATE, [](c128 z) { return -z; }},
      {HLX_UNARY_SIGN, [](c128 z) { return z / std::abs(z); }},
  };
  for (const Case& c : cases) {
    auto y = Unary<c128>(c.op, HLX_DTYPE_C128, x);
    std::vector<c64> xf(x.begin(), x.end());
    auto yf = Unary<c64>(c.op, HLX_DTYPE_C64, xf);
    for (size_t i = 0; i < x.size(); i++) {
      c128 want = c.ref(x[i]);
      EXPECT_NEAR(std::abs(y[i] - want), 0, 1e-13 * std::max(1.0, std::abs(want)))
          << hlx_unary_op_name(c.op) << " " << x[i];
      c128 wantf = c.ref(c128(xf[i]));
      EXPECT_NEAR(std::abs(c128(yf[i]) - wantf), 0,
                  2e-7 * std::max(1.0, std::abs(wantf)))
          << hlx_unary_op_name(c.op) << " c64 " << xf[i];
    }
  }
}

TEST(ElementwiseComplex, KnownValuesAndComponentResults) {
  auto sq = Unary<c128>(HLX_UNARY_SQRT, HLX_DTYPE_C128,
                        std::vector<c128>{{-4, 0}, {0, 2}});
  EXPECT_EQ(sq[0], c128(0, 2));
  EXPECT_NEAR(sq[1].real(), 1, 1e-15);
  EXPECT_NEAR(sq[1].imag(), 1, 1e-15);
  auto ex = Unary<c128>(HLX_UNARY_EXP, HLX_DTYPE_C128,
                        std::vector<c128>{{0, M_PI}});
  EXPECT_NEAR(ex[0].real(), -1, 1e-15);
  auto lg = Unary<c128>(HLX_UNARY_LOG, HLX_DTYPE_C128,
                        std::vector<c128>{{-1, 0}});
  EXPECT_NEAR(lg[0].imag(), M_PI, 1e-15);
  auto cb = Unary<c128>(HLX_UNARY_CBRT, HLX_DTYPE_C128,
                        std::vector<c128>{{3, 4}, {0, 0}, {-8, 0}});
  EXPECT_NEAR(cb[0].real(), 1.62893714592217587521, 1e-15);
  EXPECT_NEAR(cb[0].imag(), 0.520174502304545839546, 1e-15);
  EXPECT_EQ(cb[1], c128(0, 0));
  EXPECT_NEAR(cb[2].real(), 1.0, 1e-15);
  EXPECT_NEAR(cb[2].imag(), sqrt(3.0), 1e-15);
  // abs/real/imag give the component type.
  hlx_dtype_t out;
  ASSERT_NE(hlx_ref_unary_kernel(HLX_UNARY_ABS, HLX_DTYPE_C64, &out), nullptr);
  EXPECT_EQ(out, HLX_DTYPE_F32);
  std::vector<c64> v = {{3, 4}, {-1e30f, 1e30f}};
  std::vector<float> r(2);
  hlx_ref_unary_kernel(HLX_UNARY_ABS, HLX_DTYPE_C64, &out)(v.data(), r.data(), 2);
  EXPECT_EQ(r[0], 5.0f);
  EXPECT_EQ(r[1], (float)hypot(1e30, 1e30));  // no overflow
  hlx_ref_unary_kernel(HLX_UNARY_IMAG, HLX_DTYPE_C64, &out)(v.data(), r.data(), 2);
  EXPECT_EQ(out, HLX_DTYPE_F32);
  EXPECT_EQ(r[0], 4.0f);
  hlx_ref_unary_kernel(HLX_UNARY_REAL, HLX_DTYPE_C64, &out)(v.data(), r.data(), 2);
  EXPECT_EQ(r[0], 3.0f);
  // sign: NaN -> (NaN, NaN), 0 -> 0, else z/|z|.
  auto sg = Unary<c128>(HLX_UNARY_SIGN, HLX_DTYPE_C128,
                        std::vector<c128>{{kNaN, 0}, {0, 0}, {3, 4}, {0, 1}});
  EXPECT_TRUE(isnan(sg[0].real()) && isnan(sg[0].imag()));
  EXPECT_EQ(sg[1], c128(0, 0));
  EXPECT_EQ(sg[2], c128(0.6, 0.8));
  EXPECT_EQ(sg[3], c128(0, 1));
  // atan2 (StableHLO interpreter test).
  auto at = Binary<c128>(HLX_BINARY_ATAN2, HLX_DTYPE_C128, {{1, 0}, {-1, 0}},
                         {{0, 0}, {0, 0}});
  EXPECT_NEAR(at[0].real(), M_PI / 2, 1e-15);
  EXPECT_NEAR(at[0].imag(), 0, 1e-15);
  EXPECT_NEAR(at[1].real(), -M_PI / 2, 1e-15);
  // complex(re, im)
  std::vector<float> re = {1, 2}, im = {3, 4};
  std::vector<c64> cz(2);
  ASSERT_NE(hlx_ref_binary_kernel(HLX_BINARY_COMPLEX, HLX_DTYPE_F32, &out),
            nullptr);
  EXPECT_EQ(out, HLX_DTYPE_C64);
  hlx_ref_binary_kernel(HLX_BINARY_COMPLEX, HLX_DTYPE_F32, &out)(
      re.data(), im.data(), cz.data(), 2);
  EXPECT_EQ(cz[1], c64(2, 4));
}

TEST(ElementwiseComplex, MaxMinAreLexicographic) {
  std::vector<c64> a = {{1.5, 2.5}, {1.5, 7.5}, {0.0, 1.5}, {0.0, 1.5}};
  std::vector<c64> b = {{7.5, 1.5}, {1.5, 2.5}, {-0.0, 2.5}, {0.0, 1.5}};
  auto mx = Binary<c64>(HLX_BINARY_MAXIMUM, HLX_DTYPE_C64, a, b);
  EXPECT_EQ(mx, (std::vector<c64>{{7.5, 1.5}, {1.5, 7.5}, {-0.0, 2.5}, {0, 1.5}}));
  auto mn = Binary<c64>(HLX_BINARY_MINIMUM, HLX_DTYPE_C64, a, b);
  EXPECT_EQ(mn, (std::vector<c64>{{1.5, 2.5}, {1.5, 2.5}, {0.0, 1.5}, {0, 1.5}}));
}

// ----------------------------------------------------------------- compare

std::vector<uint8_t> Compare(hlx_compare_dir_t dir, hlx_compare_type_t type,
                             hlx_dtype_t t, const void* a, const void* b,
                             size_t n) {
  std::vector<uint8_t> y(n, 7);
  EXPECT_TRUE(hlx_ref_compare(dir, type, t, a, b, y.data(), n));
  return y;
}

TEST(ElementwiseCompare, FloatNaNIsUnordered) {
  std::vector<float> a = {kNaNf, 1.0f, kNaNf, -0.0f};
  std::vector<float> b = {1.0f, kNaNf, kNaNf, 0.0f};
  const hlx_compare_dir_t dirs[] = {HLX_CMP_EQ, HLX_CMP_NE, HLX_CMP_GE,
                                    HLX_CMP_GT, HLX_CMP_LE, HLX_CMP_LT};
  for (hlx_compare_dir_t d : dirs) {
    auto y = Compare(d, HLX_CMP_FLOAT, HLX_DTYPE_F32, a.data(), b.data(), 4);
    uint8_t nan_result = d == HLX_CMP_NE;
    EXPECT_EQ(y[0], nan_result) << d;
    EXPECT_EQ(y[1], nan_result) << d;
    EXPECT_EQ(y[2], nan_result) << d;
    // -0 == +0 under IEEE.
    EXPECT_EQ(y[3], d == HLX_CMP_EQ || d == HLX_CMP_GE || d == HLX_CMP_LE) << d;
  }
  // DEFAULT on a float type means FLOAT.
  auto y = Compare(HLX_CMP_EQ, HLX_CMP_DEFAULT, HLX_DTYPE_F32, a.data(),
                   b.data(), 4);
  EXPECT_EQ(y, (std::vector<uint8_t>{0, 0, 0, 1}));
}

TEST(ElementwiseCompare, TotalOrder) {
  // Increasing under totalOrder.
  std::vector<double> v = {-kNaN, -kInf, -1.0, -4.9e-324, -0.0,
                           0.0,   4.9e-324, 1.0, kInf, kNaN};
  v[0] = copysign(kNaN, -1.0);
  for (size_t i = 0; i < v.size(); i++) {
    for (size_t j = 0; j < v.size(); j++) {
      uint8_t lt, eq;
      hlx_ref_compare(HLX_CMP_LT, HLX_CMP_TOTALORDER, HLX_DTYPE_F64, &v[i],
                      &v[j], &lt, 1);
      hlx_ref_compare(HLX_CMP_EQ, HLX_CMP_TOTALORDER, HLX_DTYPE_F64, &v[i],
                      &v[j], &eq, 1);
      EXPECT_EQ(lt, i < j) << i << " " << j;
      EXPECT_EQ(eq, i == j) << i << " " << j;
    }
  }
  // f16 and bf16 too: -0 < +0, NaN > Inf.
  std::vector<uint16_t> a = {0x8000, 0x7E00, 0xFE00};
  std::vector<uint16_t> b = {0x0000, 0x7C00, 0xFC00};
  EXPECT_EQ(Compare(HLX_CMP_LT, HLX_CMP_TOTALORDER, HLX_DTYPE_F16, a.data(),
                    b.data(), 3),
            (std::vector<uint8_t>{1, 0, 1}));
  EXPECT_EQ(Compare(HLX_CMP_GT, HLX_CMP_TOTALORDER, HLX_DTYPE_BF16, a.data(),
                    b.data(), 3),
            (std::vector<uint8_t>{0, 1, 0}));
}

TEST(ElementwiseCompare, SignedUnsignedAndPred) {
  std::vector<int8_t> a = {-1, 3, -8}, b = {1, 3, 7};
  EXPECT_EQ(Compare(HLX_CMP_LT, HLX_CMP_SIGNED, HLX_DTYPE_S8, a.data(),
                    b.data(), 3),
            (std::vector<uint8_t>{1, 0, 1}));
  EXPECT_EQ(Compare(HLX_CMP_LT, HLX_CMP_DEFAULT, HLX_DTYPE_S4, a.data(),
                    b.data(), 3),
            (std::vector<uint8_t>{1, 0, 1}));
  // The same bits read as unsigned: 0xFF > 1.
  EXPECT_EQ(Compare(HLX_CMP_LT, HLX_CMP_UNSIGNED, HLX_DTYPE_S8, a.data(),
                    b.data(), 3),
            (std::vector<uint8_t>{0, 0, 0}));
  std::vector<uint64_t> u = {UINT64_MAX, 0}, w = {1, 0};
  EXPECT_EQ(Compare(HLX_CMP_GT, HLX_CMP_UNSIGNED, HLX_DTYPE_U64, u.data(),
                    w.data(), 2),
            (std::vector<uint8_t>{1, 0}));
  std::vector<uint8_t> p = {1, 0, 1}, q = {0, 1, 1};
  EXPECT_EQ(Compare(HLX_CMP_GT, HLX_CMP_DEFAULT, HLX_DTYPE_PRED, p.data(),
                    q.data(), 3),
            (std::vector<uint8_t>{1, 0, 0}));
  EXPECT_EQ(Compare(HLX_CMP_GE, HLX_CMP_UNSIGNED, HLX_DTYPE_PRED, p.data(),
                    q.data(), 3),
            (std::vector<uint8_t>{1, 0, 1}));
  uint8_t r;
  EXPECT_FALSE(hlx_ref_compare(HLX_CMP_EQ, HLX_CMP_FLOAT, HLX_DTYPE_S32,
                               a.data(), b.data(), &r, 1));
  EXPECT_FALSE(hlx_ref_compare(HLX_CMP_EQ, HLX_CMP_SIGNED, HLX_DTYPE_F32,
                               a.data(), b.data(), &r, 1));
}

TEST(ElementwiseCompare, ComplexEqualityAndLexicographicOrder) {
  std::vector<c128> a = {{1, 2}, {1, 2}, {1, 2}, {kNaN, 0}};
  std::vector<c128> b = {{1, 2}, {1, 3}, {0, 9}, {kNaN, 0}};
  EXPECT_EQ(Compare(HLX_CMP_EQ, HLX_CMP_FLOAT, HLX_DTYPE_C128, a.data(),
                    b.data(), 4),
            (std::vector<uint8_t>{1, 0, 0, 0}));
  EXPECT_EQ(Compare(HLX_CMP_NE, HLX_CMP_DEFAULT, HLX_DTYPE_C128, a.data(),
                    b.data(), 4),
            (std::vector<uint8_t>{0, 1, 1, 1}));
  EXPECT_EQ(Compare(HLX_CMP_LT, HLX_CMP_FLOAT, HLX_DTYPE_C128, a.data(),
                    b.data(), 4),
            (std::vector<uint8_t>{0, 1, 0, 0}));
  EXPECT_EQ(Compare(HLX_CMP_GE, HLX_CMP_FLOAT, HLX_DTYPE_C128, a.data(),
                    b.data(), 4),
            (std::vector<uint8_t>{1, 0, 1, 0}));
  std::vector<c64> fa = {{1, 2}}, fb = {{1, 2}};
  EXPECT_EQ(Compare(HLX_CMP_LE, HLX_CMP_FLOAT, HLX_DTYPE_C64, fa.data(),
                    fb.data(), 1),
            (std::vector<uint8_t>{1}));
}

// ---------------------------------------------------------- select / clamp

TEST(ElementwiseSelect, ScalarAndVectorPredicatesAllSizes) {
  std::vector<uint8_t> pred = {1, 0, 1, 0, 0};
  std::vector<int8_t> t1 = {1, 2, 3, 4, 5}, f1 = {-1, -2, -3, -4, -5}, y1(5);
  hlx_ref_select(1, pred.data(), false, t1.data(), f1.data(), y1.data(), 5);
  EXPECT_EQ(y1, (std::vector<int8_t>{1, -2, 3, -4, -5}));
  std::vector<c128> t16 = {{1, 1}, {2, 2}}, f16 = {{-1, -1}, {-2, -2}}, y16(2);
  hlx_ref_select(16, pred.data() + 1, false, t16.data(), f16.data(),
                 y16.data(), 2);
  EXPECT_EQ(y16, (std::vector<c128>{{-1, -1}, {2, 2}}));
  uint8_t yes = 1, no = 0;
  std::vector<uint16_t> t2 = {1, 2, 3}, f2 = {4, 5, 6}, y2(3);
  hlx_ref_select(2, &yes, true, t2.data(), f2.data(), y2.data(), 3);
  EXPECT_EQ(y2, t2);
  hlx_ref_select(2, &no, true, t2.data(), f2.data(), y2.data(), 3);
  EXPECT_EQ(y2, f2);
  std::vector<double> t8 = {1.5, 2.5}, f8 = {-1.5, -2.5}, y8(2);
  std::vector<uint8_t> p8 = {0, 1};
  hlx_ref_select(8, p8.data(), false, t8.data(), f8.data(), y8.data(), 2);
  EXPECT_EQ(y8, (std::vector<double>{-1.5, 2.5}));
}

TEST(ElementwiseClamp, ScalarBoundsAndNaN) {
  std::vector<int32_t> x = {-5, 0, 5, 10, 15};
  int32_t lo = 0, hi = 10;
  std::vector<int32_t> y(5);
  ASSERT_TRUE(hlx_ref_clamp(HLX_DTYPE_S32, &lo, true, x.data(), &hi, true,
                            y.data(), 5));
  EXPECT_EQ(y, (std::vector<int32_t>{0, 0, 5, 10, 10}));
  std::vector<float> fx = {kNaNf, -2.0f, 2.0f}, flo = {0.0f, kNaNf, -1.0f};
  float fhi = 1.0f;
  std::vector<float> fy(3);
  ASSERT_TRUE(hlx_ref_clamp(HLX_DTYPE_F32, flo.data(), false, fx.data(), &fhi,
                            true, fy.data(), 3));
  EXPECT_TRUE(isnan(fy[0]));
  EXPECT_TRUE(isnan(fy[1]));
  EXPECT_EQ(fy[2], 1.0f);
  // Large n crosses the internal chunking; ui4 bounds.
  std::vector<uint8_t> u(1000), uy(1000);
  for (size_t i = 0; i < u.size(); i++) u[i] = (uint8_t)(i % 16);
  uint8_t ulo = 3, uhi = 12;
  ASSERT_TRUE(hlx_ref_clamp(HLX_DTYPE_U4, &ulo, true, u.data(), &uhi, true,
                            uy.data(), u.size()));
  for (size_t i = 0; i < u.size(); i++)
    EXPECT_EQ(uy[i], std::min<uint8_t>(std::max<uint8_t>(u[i], 3), 12));
}

// ----------------------------------------------------------------- convert

template <typename To, typename From>
std::vector<To> Convert(hlx_dtype_t from, const std::vector<From>& x,
                        hlx_dtype_t to) {
  std::vector<To> y(x.size());
  EXPECT_TRUE(hlx_ref_convert(from, x.data(), to, y.data(), x.size()));
  return y;
}

TEST(ElementwiseConvert, FloatToIntTruncatesAndSaturates) {
  std::vector<float> x = {3e9f, -3e9f, kNaNf, -1.9f, 2.9f, kInff, -kInff, -0.5f};
  EXPECT_EQ(Convert<int32_t>(HLX_DTYPE_F32, x, HLX_DTYPE_S32),
            (std::vector<int32_t>{INT32_MAX, INT32_MIN, 0, -1, 2, INT32_MAX,
                                  INT32_MIN, 0}));
  EXPECT_EQ(Convert<uint8_t>(HLX_DTYPE_F32, x, HLX_DTYPE_U8),
            (std::vector<uint8_t>{255, 0, 0, 0, 2, 255, 0, 0}));
  EXPECT_EQ(Convert<int8_t>(HLX_DTYPE_F32, x, HLX_DTYPE_S4),
            (std::vector<int8_t>{7, -8, 0, -1, 2, 7, -8, 0}));
  EXPECT_EQ(Convert<int64_t>(HLX_DTYPE_F64, std::vector<double>{1e19, -1e19,
                                                                 9.2e18},
                             HLX_DTYPE_S64),
            (std::vector<int64_t>{INT64_MAX, INT64_MIN, 9200000000000000000}));
  EXPECT_EQ(Convert<uint64_t>(HLX_DTYPE_F64, std::vector<double>{2e19, -1.0,
                                                                  1.8e19},
                              HLX_DTYPE_U64),
            (std::vector<uint64_t>{UINT64_MAX, 0, 18000000000000000000ull}));
  // f16 -> int
  EXPECT_EQ(Convert<int16_t>(HLX_DTYPE_F16, std::vector<uint16_t>{0x7C00, 0xC500},
                             HLX_DTYPE_S16),
            (std::vector<int16_t>{INT16_MAX, -5}));
}

TEST(ElementwiseConvert, IntToIntWrapsAndSignExtends) {
  EXPECT_EQ(Convert<int8_t>(HLX_DTYPE_S32, std::vector<int32_t>{300, -129, 255},
                            HLX_DTYPE_S8),
            (std::vector<int8_t>{44, 127, -1}));
  EXPECT_EQ(Convert<uint8_t>(HLX_DTYPE_S8, std::vector<int8_t>{-1, -128},
                             HLX_DTYPE_U8),
            (std::vector<uint8_t>{255, 128}));
  EXPECT_EQ(Convert<int8_t>(HLX_DTYPE_U8, std::vector<uint8_t>{255, 8, 7},
                            HLX_DTYPE_S4),
            (std::vector<int8_t>{-1, -8, 7}));
  EXPECT_EQ(Convert<uint64_t>(HLX_DTYPE_S4, std::vector<int8_t>{-1},
                              HLX_DTYPE_U64),
            (std::vector<uint64_t>{UINT64_MAX}));
  EXPECT_EQ(Convert<uint8_t>(HLX_DTYPE_S4, std::vector<int8_t>{-1, 5},
                             HLX_DTYPE_U2),
            (std::vector<uint8_t>{3, 1}));
  EXPECT_EQ(Convert<int64_t>(HLX_DTYPE_U32, std::vector<uint32_t>{UINT32_MAX},
                             HLX_DTYPE_S64),
            (std::vector<int64_t>{4294967295ll}));
}

TEST(ElementwiseConvert, RoundsOnceToNearestEven) {
  // int -> f32: 2^24 + 1 is a tie -> 2^24; 2^24 + 3 -> 2^24 + 4.
  EXPECT_EQ(Convert<float>(HLX_DTYPE_S32, std::vector<int32_t>{16777217,
                                                                16777219},
                           HLX_DTYPE_F32),
            (std::vector<float>{16777216.0f, 16777220.0f}));
  // int -> bf16 directly: 2^24 + 2^16 + 1 is just above the bf16 half-ulp
  // (2^16) and must round up; going through f32 would round it down.
  auto b = Convert<uint16_t>(HLX_DTYPE_S32, std::vector<int32_t>{16842753},
                             HLX_DTYPE_BF16);
  EXPECT_EQ(hlx_bf16_to_f32(b[0]), 16908288.0f);
  // u64 -> f16 saturates to Inf, -> f32 rounds.
  auto h = Convert<uint16_t>(HLX_DTYPE_U64, std::vector<uint64_t>{UINT64_MAX,
                                                                   65519},
                             HLX_DTYPE_F16);
  EXPECT_EQ(h, (std::vector<uint16_t>{0x7C00, 0x7BFF}));
  // f64 -> f16 with one rounding: 1 + 2^-11 + 2^-40 rounds up (via f32 it
  // would become the tie 1 + 2^-11 and round to 1).
  auto h2 = Convert<uint16_t>(HLX_DTYPE_F64,
                              std::vector<double>{1 + ldexp(1, -11) + ldexp(1, -40)},
                              HLX_DTYPE_F16);
  EXPECT_EQ(h2[0], 0x3C01);
  auto f = Convert<float>(HLX_DTYPE_F64, std::vector<double>{0.1, 1e300, -1e-300},
                          HLX_DTYPE_F32);
  EXPECT_EQ(f[0], 0.1f);
  EXPECT_EQ(f[1], kInff);
  EXPECT_SAME(f[2], -0.0);
  // s64 -> f64: 2^53 + 1 ties to even.
  EXPECT_EQ(Convert<double>(HLX_DTYPE_S64, std::vector<int64_t>{9007199254740993},
                            HLX_DTYPE_F64),
            (std::vector<double>{9007199254740992.0}));
}

TEST(ElementwiseConvert, PredComplexAndRealConversions) {
  EXPECT_EQ(Convert<uint8_t>(HLX_DTYPE_F32,
                             std::vector<float>{0.5f, kNaNf, 0.0f, -0.0f},
                             HLX_DTYPE_PRED),
            (std::vector<uint8_t>{1, 1, 0, 0}));
  EXPECT_EQ(Convert<uint8_t>(HLX_DTYPE_S32, std::vector<int32_t>{0, -7},
                             HLX_DTYPE_PRED),
            (std::vector<uint8_t>{0, 1}));
  EXPECT_EQ(Convert<uint8_t>(HLX_DTYPE_C64,
                             std::vector<c64>{{0, 1}, {0, 0}, {-2, 0}},
                             HLX_DTYPE_PRED),
            (std::vector<uint8_t>{0, 0, 1}));  // real part only
  EXPECT_EQ(Convert<float>(HLX_DTYPE_PRED, std::vector<uint8_t>{1, 0},
                           HLX_DTYPE_F32),
            (std::vector<float>{1.0f, 0.0f}));
  EXPECT_EQ(Convert<int32_t>(HLX_DTYPE_PRED, std::vector<uint8_t>{1, 0},
                             HLX_DTYPE_S32),
            (std::vector<int32_t>{1, 0}));
  EXPECT_EQ(Convert<float>(HLX_DTYPE_C64, std::vector<c64>{{1.5f, 2.5f}},
                           HLX_DTYPE_F32),
            (std::vector<float>{1.5f}));
  EXPECT_EQ(Convert<c128>(HLX_DTYPE_F32, std::vector<float>{1.5f},
                          HLX_DTYPE_C128),
            (std::vector<c128>{{1.5, 0}}));
  EXPECT_EQ(Convert<c64>(HLX_DTYPE_C128, std::vector<c128>{{0.1, -0.2}},
                         HLX_DTYPE_C64),
            (std::vector<c64>{{0.1f, -0.2f}}));
  EXPECT_EQ(Convert<c64>(HLX_DTYPE_S32, std::vector<int32_t>{-3},
                         HLX_DTYPE_C64),
            (std::vector<c64>{{-3, 0}}));
  EXPECT_EQ(Convert<int32_t>(HLX_DTYPE_C128, std::vector<c128>{{-2.7, 9}},
                             HLX_DTYPE_S32),
            (std::vector<int32_t>{-2}));
}

TEST(ElementwiseConvert, SmallFloatRoundTrips) {
  const hlx_dtype_t small[] = {
      HLX_DTYPE_F4E2M1FN,   HLX_DTYPE_F6E2M3FN,      HLX_DTYPE_F6E3M2FN,
      HLX_DTYPE_F8E3M4,     HLX_DTYPE_F8E4M3,        HLX_DTYPE_F8E4M3FN,
      HLX_DTYPE_F8E4M3FNUZ, HLX_DTYPE_F8E4M3B11FNUZ, HLX_DTYPE_F8E5M2,
      HLX_DTYPE_F8E5M2FNUZ, HLX_DTYPE_F8E8M0FNU};
  for (hlx_dtype_t t : small) {
    int bits = hlx_dtype_bits(t);
    std::vector<uint8_t> all(1u << bits);
    for (size_t i = 0; i < all.size(); i++) all[i] = (uint8_t)i;
    auto f = Convert<float>(t, all, HLX_DTYPE_F32);
    auto d = Convert<double>(t, all, HLX_DTYPE_F64);
    auto h = Convert<uint16_t>(t, all, HLX_DTYPE_F16);
    auto back = Convert<uint8_t>(HLX_DTYPE_F32, f, t);
    auto back64 = Convert<uint8_t>(HLX_DTYPE_F64, d, t);
    for (size_t i = 0; i < all.size(); i++) {
      if (isnan(f[i])) {
        EXPECT_TRUE(isnan(hlx_small_float_to_f64(t, back[i])));
        continue;
      }
      EXPECT_EQ((double)f[i], hlx_small_float_to_f64(t, (uint32_t)i));
      // -0 of a format without -0 maps to +0: compare values.
      EXPECT_EQ(hlx_small_float_to_f64(t, back[i]), (double)f[i])
          << hlx_dtype_name(t) << " " << i;
      EXPECT_EQ(back64[i], back[i]);
      if (bits <= 8 && t != HLX_DTYPE_F8E8M0FNU) {  // all fit f16 exactly
        EXPECT_EQ(hlx_f16_to_f32(h[i]), f[i]) << hlx_dtype_name(t) << " " << i;
      }
    }
  }
  // Out of range: Inf for e5m2, NaN for e4m3fn (no Inf), saturation for f4.
  std::vector<float> big = {1e6f};
  EXPECT_EQ(Convert<uint8_t>(HLX_DTYPE_F32, big, HLX_DTYPE_F8E5M2)[0], 0x7C);
  EXPECT_EQ(Convert<uint8_t>(HLX_DTYPE_F32, big, HLX_DTYPE_F8E4M3FN)[0], 0x7F);
  EXPECT_EQ(Convert<uint8_t>(HLX_DTYPE_F32, big, HLX_DTYPE_F4E2M1FN)[0], 0x7);
  // RNE: 1.0625 is halfway between e4m3 1.0 and 1.125 -> 1.0 (even).
  EXPECT_EQ(Convert<uint8_t>(HLX_DTYPE_F32, std::vector<float>{1.0625f, 1.1875f},
                             HLX_DTYPE_F8E4M3FN),
            (std::vector<uint8_t>{0x38, 0x3A}));
  // f8 -> int saturates like any float.
  EXPECT_EQ(Convert<int8_t>(HLX_DTYPE_F8E4M3FN, std::vector<uint8_t>{0x7E},
                            HLX_DTYPE_S8),
            (std::vector<int8_t>{127}));
}

TEST(ElementwiseConvert, F16AndBf16RoundTrips) {
  std::vector<uint16_t> all(65536);
  for (int i = 0; i < 65536; i++) all[i] = (uint16_t)i;
  for (hlx_dtype_t t : {HLX_DTYPE_F16, HLX_DTYPE_BF16}) {
    auto f = Convert<float>(t, all, HLX_DTYPE_F32);
    auto back = Convert<uint16_t>(HLX_DTYPE_F32, f, t);
    auto d = Convert<double>(t, all, HLX_DTYPE_F64);
    auto back64 = Convert<uint16_t>(HLX_DTYPE_F64, d, t);
    int bad = 0;
    for (int i = 0; i < 65536; i++) {
      if (isnan(f[i])) continue;
      if (back[i] != i || back64[i] != i || (double)f[i] != d[i]) bad++;
    }
    EXPECT_EQ(bad, 0) << hlx_dtype_name(t);
  }
  // f16 <-> bf16: 65504 is not a bf16 value (rounds to 65536), and bf16 1e10
  // overflows f16.
  auto hb = Convert<uint16_t>(HLX_DTYPE_F16, std::vector<uint16_t>{0x7BFF},
                              HLX_DTYPE_BF16);
  EXPECT_EQ(hlx_bf16_to_f32(hb[0]), 65536.0f);
  auto bh = Convert<uint16_t>(HLX_DTYPE_BF16, std::vector<uint16_t>{0x5015},
                              HLX_DTYPE_F16);
  EXPECT_EQ(bh[0], 0x7C00);
}

// -------------------------------------------------------- reduce_precision

TEST(ElementwiseReducePrecision, SpecExamples) {
  std::vector<uint64_t> x = {0x7FF0000000000000ull, 0x7FFFFFFFFFFFFFFFull,
                             0x0000000000000001ull, 0};
  double a = 65505.0, b = 65520.0;
  x.push_back(0);
  x.push_back(0);
  memcpy(&x[4], &a, 8);
  memcpy(&x[5], &b, 8);
  std::vector<uint64_t> y(6);
  ASSERT_TRUE(hlx_ref_reduce_precision(HLX_DTYPE_F64, 5, 10, x.data(),
                                       y.data(), 6));
  double out[6];
  memcpy(out, y.data(), sizeof out);
  EXPECT_EQ(y[0], 0x7FF0000000000000ull);
  EXPECT_TRUE(isnan(out[1]));
  EXPECT_SAME(out[2], 0.0);
  EXPECT_SAME(out[3], 0.0);
  EXPECT_EQ(out[4], 65504.0);
  EXPECT_EQ(out[5], kInf);
  // mantissa_bits = 0 turns NaN into Inf (XLA).
  ASSERT_TRUE(hlx_ref_reduce_precision(HLX_DTYPE_F64, 5, 0, &x[1], &y[0], 1));
  EXPECT_EQ(y[0], 0x7FF0000000000000ull);
}

TEST(ElementwiseReducePrecision, RoundsMantissaAndClampsExponent) {
  std::vector<float> x = {1.0f + 0x1p-11f, 1.0f + 3 * 0x1p-11f, -65520.0f,
                          0x1p-14f,        0x1p-15f,            -0x1p-20f,
                          kNaNf,           1.5f};
  std::vector<float> y(x.size());
  ASSERT_TRUE(hlx_ref_reduce_precision(HLX_DTYPE_F32, 5, 10, x.data(),
                                       y.data(), x.size()));
  EXPECT_EQ(y[0], 1.0f);                 // tie -> even
  EXPECT_EQ(y[1], 1.0f + 0x1p-9f);       // rounds up
  EXPECT_EQ(y[2], -kInff);               // overflow keeps the sign
  EXPECT_EQ(y[3], 0x1p-14f);             // smallest f16 normal stays
  EXPECT_SAME(y[4], 0.0);                // reduced denormals flush to zero
  EXPECT_SAME(y[5], -0.0);
  EXPECT_TRUE(isnan(y[6]));
  EXPECT_EQ(y[7], 1.5f);
  // To bf16 precision (e8m7) equals the f32 -> bf16 conversion.
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1e30f, 1e30f);
  std::vector<float> r(500), ry(500);
  for (float& v : r) v = dist(rng);
  hlx_ref_reduce_precision(HLX_DTYPE_F32, 8, 7, r.data(), ry.data(), r.size());
  for (size_t i = 0; i < r.size(); i++)
    EXPECT_EQ(ry[i], hlx_bf16_to_f32(hlx_f32_to_bf16(r[i])));
  // Native f16: e5m2 precision.
  std::vector<uint16_t> h = {0x3C00 | 0x80, 0x3C00 | 0x180, 0x7BFF}, hy(3);
  ASSERT_TRUE(hlx_ref_reduce_precision(HLX_DTYPE_F16, 5, 2, h.data(),
                                       hy.data(), 3));
  EXPECT_EQ(hy[0], 0x3C00);  // 1.125 tie -> 1.0
  EXPECT_EQ(hy[1], 0x3E00);  // 1.375 -> 1.5
  EXPECT_EQ(hy[2], 0x7C00);  // 65504 rounds up to Inf
  // Finite-only formats: identity at their own width, rounding otherwise;
  // overflow has no Inf and becomes NaN (e4m3fn 448 at 1 mantissa bit ties
  // up to 512).
  std::vector<uint8_t> f8 = {0x7E, 0x7E, 0x39}, f8y(3);
  ASSERT_TRUE(hlx_ref_reduce_precision(HLX_DTYPE_F8E4M3FN, 4, 3, f8.data(),
                                       f8y.data(), 1));
  EXPECT_EQ(f8y[0], 0x7E);
  ASSERT_TRUE(hlx_ref_reduce_precision(HLX_DTYPE_F8E4M3FN, 4, 1, f8.data() + 1,
                                       f8y.data() + 1, 2));
  EXPECT_TRUE(isnan(hlx_small_float_to_f64(HLX_DTYPE_F8E4M3FN, f8y[1])));
  EXPECT_EQ(f8y[2], 0x38);  // 1.125 -> 1.0 (tie to even)
  int32_t dummy = 0;
  EXPECT_FALSE(hlx_ref_reduce_precision(HLX_DTYPE_S32, 5, 10, &dummy, &dummy, 1));
}

// ------------------------------------------------------------- tails / sizes

TEST(ElementwiseTails, OddSizesAcrossChunkBoundaries) {
  for (size_t n : {1, 3, 7, 255, 256, 257, 511, 1025}) {
    std::vector<uint16_t> a(n), b(n);
    std::vector<int16_t> ia(n), ib(n);
    for (size_t i = 0; i < n; i++) {
      a[i] = hlx_f32_to_f16((float)i * 0.25f - 10.0f);
      b[i] = hlx_f32_to_f16((float)(i % 13) + 0.5f);
      ia[i] = (int16_t)(i * 37 - 1000);
      ib[i] = (int16_t)(i % 11 - 5);
    }
    auto y = Binary<uint16_t>(HLX_BINARY_MULTIPLY, HLX_DTYPE_F16, a, b);
    auto q = Binary<int16_t>(HLX_BINARY_DIVIDE, HLX_DTYPE_S16, ia, ib);
    auto e = Unary<uint8_t>(HLX_UNARY_IS_FINITE, HLX_DTYPE_F16, a);
    std::vector<uint8_t> c(n);
    ASSERT_TRUE(hlx_ref_compare(HLX_CMP_LT, HLX_CMP_FLOAT, HLX_DTYPE_F16,
                                a.data(), b.data(), c.data(), n));
    std::vector<float> f(n);
    ASSERT_TRUE(hlx_ref_convert(HLX_DTYPE_F16, a.data(), HLX_DTYPE_F32,
                                f.data(), n));
    for (size_t i = 0; i < n; i++) {
      float fa = hlx_f16_to_f32(a[i]), fb = hlx_f16_to_f32(b[i]);
      ASSERT_EQ(y[i], hlx_f32_to_f16(fa * fb)) << n << " " << i;
      int16_t want = ib[i] == 0 ? -1 : (int16_t)(ia[i] / ib[i]);
      ASSERT_EQ(q[i], want) << n << " " << i;
      ASSERT_EQ(e[i], 1);
      ASSERT_EQ(c[i], fa < fb);
      ASSERT_EQ(f[i], fa);
    }
  }
}

// ------------------------------------------------- (op, dtype) coverage table

enum Cls { kPred = 1, kSint = 2, kUint = 4, kFloat = 8, kCplx = 16 };
const int kInt = kSint | kUint, kAll = kPred | kInt | kFloat | kCplx;

int ClassOf(hlx_dtype_t t) {
  if (hlx_dtype_is_pred(t)) return kPred;
  if (hlx_dtype_is_signed_int(t)) return kSint;
  if (hlx_dtype_is_unsigned_int(t)) return kUint;
  if (hlx_dtype_is_float(t)) return kFloat;
  return kCplx;
}

// Which element classes the StableHLO spec / chlo docs allow per op.
int UnaryAllowed(hlx_unary_op_t op) {
  switch (op) {
    case HLX_UNARY_ABS: return kSint | kFloat | kCplx;
    case HLX_UNARY_NEGATE: return kInt | kFloat | kCplx;
    case HLX_UNARY_NOT: return kPred | kInt;
    case HLX_UNARY_SIGN: return kSint | kFloat | kCplx;
    case HLX_UNARY_SQRT: case HLX_UNARY_RSQRT: case HLX_UNARY_CBRT:
    case HLX_UNARY_EXP: case HLX_UNARY_EXPM1: case HLX_UNARY_LOG:
    case HLX_UNARY_LOG1P: case HLX_UNARY_LOGISTIC: case HLX_UNARY_SIN:
    case HLX_UNARY_COS: case HLX_UNARY_TAN: case HLX_UNARY_TANH:
    case HLX_UNARY_REAL: case HLX_UNARY_IMAG: case HLX_UNARY_CONJ:
    case HLX_UNARY_ACOS: case HLX_UNARY_ACOSH: case HLX_UNARY_ASIN:
    case HLX_UNARY_ASINH: case HLX_UNARY_ATAN: case HLX_UNARY_ATANH:
    case HLX_UNARY_COSH: case HLX_UNARY_SINH: case HLX_UNARY_SQUARE:
      return kFloat | kCplx;
    case HLX_UNARY_FLOOR: case HLX_UNARY_CEIL: case HLX_UNARY_ROUND_AFZ:
    case HLX_UNARY_ROUND_EVEN: case HLX_UNARY_IS_FINITE: case HLX_UNARY_ERF:
    case HLX_UNARY_ERFC: case HLX_UNARY_ERF_INV: case HLX_UNARY_LGAMMA:
    case HLX_UNARY_DIGAMMA: case HLX_UNARY_BESSEL_I0E:
    case HLX_UNARY_BESSEL_I1E: case HLX_UNARY_IS_INF:
    case HLX_UNARY_IS_POS_INF: case HLX_UNARY_IS_NEG_INF:
      return kFloat;
    case HLX_UNARY_POPCNT: case HLX_UNARY_CLZ: return kInt;
    default: ADD_FAILURE() << "op " << op << " missing from the test table";
  }
  return 0;
}

int BinaryAllowed(hlx_binary_op_t op) {
  switch (op) {
    case HLX_BINARY_ADD: case HLX_BINARY_MULTIPLY: case HLX_BINARY_MAXIMUM:
    case HLX_BINARY_MINIMUM:
      return kAll;
    case HLX_BINARY_SUBTRACT: case HLX_BINARY_DIVIDE: case HLX_BINARY_POWER:
      return kInt | kFloat | kCplx;
    case HLX_BINARY_REMAINDER: return kInt | kFloat;  // complex: spec TBD
    case HLX_BINARY_AND: case HLX_BINARY_OR: case HLX_BINARY_XOR:
      return kPred | kInt;
    case HLX_BINARY_SHIFT_LEFT: case HLX_BINARY_SHIFT_RIGHT_ARITHMETIC:
    case HLX_BINARY_SHIFT_RIGHT_LOGICAL: case HLX_BINARY_MULHI:
      return kInt;
    case HLX_BINARY_ATAN2: return kFloat | kCplx;
    case HLX_BINARY_NEXT_AFTER: case HLX_BINARY_POLYGAMMA:
    case HLX_BINARY_ZETA:
      return kFloat;
    case HLX_BINARY_COMPLEX: return 0;  // f32/f64 only, checked below
    default: ADD_FAILURE() << "op " << op << " missing from the test table";
  }
  return 0;
}

TEST(ElementwiseTable, EveryAllowedPairHasAKernelAndOthersAreNull) {
  int have = 0;
  for (int d = 1; d < HLX_DTYPE_COUNT; d++) {
    hlx_dtype_t t = (hlx_dtype_t)d;
    for (int o = 0; o < HLX_UNARY_COUNT; o++) {
      hlx_unary_op_t op = (hlx_unary_op_t)o;
      hlx_dtype_t out = HLX_DTYPE_INVALID;
      hlx_unary_fn fn = hlx_ref_unary_kernel(op, t, &out);
      bool allowed = (UnaryAllowed(op) & ClassOf(t)) != 0;
      EXPECT_EQ(fn != nullptr, allowed)
          << hlx_unary_op_name(op) << " " << hlx_dtype_name(t);
      if (!fn) {
        EXPECT_EQ(out, HLX_DTYPE_INVALID);
        continue;
      }
      have++;
      hlx_dtype_t want = t;
      if (op == HLX_UNARY_IS_FINITE || op == HLX_UNARY_IS_INF ||
          op == HLX_UNARY_IS_POS_INF || op == HLX_UNARY_IS_NEG_INF)
        want = HLX_DTYPE_PRED;
      if (op == HLX_UNARY_ABS || op == HLX_UNARY_REAL || op == HLX_UNARY_IMAG)
        want = hlx_dtype_complex_part(t);
      EXPECT_EQ(out, want) << hlx_unary_op_name(op) << " " << hlx_dtype_name(t);
    }
    for (int o = 0; o < HLX_BINARY_COUNT; o++) {
      hlx_binary_op_t op = (hlx_binary_op_t)o;
      hlx_dtype_t out = HLX_DTYPE_INVALID;
      hlx_binary_fn fn = hlx_ref_binary_kernel(op, t, &out);
      bool allowed = (BinaryAllowed(op) & ClassOf(t)) != 0;
      hlx_dtype_t want = t;
      if (op == HLX_BINARY_COMPLEX) {
        allowed = t == HLX_DTYPE_F32 || t == HLX_DTYPE_F64;
        want = t == HLX_DTYPE_F32 ? HLX_DTYPE_C64 : HLX_DTYPE_C128;
      }
      EXPECT_EQ(fn != nullptr, allowed)
          << hlx_binary_op_name(op) << " " << hlx_dtype_name(t);
      if (fn) {
        have++;
        EXPECT_EQ(out, want);
      }
    }
  }
  EXPECT_GT(have, 900);
  EXPECT_EQ(hlx_ref_unary_kernel(HLX_UNARY_ABS, HLX_DTYPE_INVALID, nullptr),
            nullptr);
  EXPECT_EQ(hlx_ref_binary_kernel(HLX_BINARY_COUNT, HLX_DTYPE_F32, nullptr),
            nullptr);
  EXPECT_STREQ(hlx_unary_op_name(HLX_UNARY_EXP), "exponential");
  EXPECT_STREQ(hlx_binary_op_name(HLX_BINARY_SHIFT_RIGHT_LOGICAL),
               "shift_right_logical");
}

// Every kernel runs on every value class without crashing and writes every
// output element (odd n).
TEST(ElementwiseTable, EveryKernelWritesEveryElement) {
  const size_t n = 259;
  for (int d = 1; d < HLX_DTYPE_COUNT; d++) {
    hlx_dtype_t t = (hlx_dtype_t)d;
    size_t es = hlx_dtype_size(t);
    std::vector<uint8_t> a(n * es), b(n * es);
    for (size_t i = 0; i < a.size(); i++) {
      a[i] = (uint8_t)(i * 131 + 7);
      b[i] = (uint8_t)(i * 71 + 3);
    }
    if (t == HLX_DTYPE_PRED)
      for (size_t i = 0; i < n; i++) a[i] &= 1, b[i] &= 1;
    for (int o = 0; o < HLX_UNARY_COUNT; o++) {
      hlx_dtype_t out;
      hlx_unary_fn fn = hlx_ref_unary_kernel((hlx_unary_op_t)o, t, &out);
      if (!fn) continue;
      size_t os = hlx_dtype_size(out);
      std::vector<uint8_t> y1(n * os + 16, 0xAA), y2(n * os + 16, 0x55);
      fn(a.data(), y1.data(), n);
      fn(a.data(), y2.data(), n);
      // Same output whatever was there before (NaN payloads aside), and
      // nothing written past the end.
      for (size_t i = n * os; i < y1.size(); i++) {
        ASSERT_EQ(y1[i], 0xAA);
        ASSERT_EQ(y2[i], 0x55);
      }
      EXPECT_EQ(memcmp(y1.data(), y2.data(), n * os), 0)
          << hlx_unary_op_name((hlx_unary_op_t)o) << " " << hlx_dtype_name(t);
    }
    for (int o = 0; o < HLX_BINARY_COUNT; o++) {
      hlx_dtype_t out;
      hlx_binary_fn fn = hlx_ref_binary_kernel((hlx_binary_op_t)o, t, &out);
      if (!fn) continue;
      size_t os = hlx_dtype_size(out);
      std::vector<uint8_t> y1(n * os + 16, 0xAA), y2(n * os + 16, 0x55);
      fn(a.data(), b.data(), y1.data(), n);
      fn(a.data(), b.data(), y2.data(), n);
      for (size_t i = n * os; i < y1.size(); i++) {
        ASSERT_EQ(y1[i], 0xAA);
        ASSERT_EQ(y2[i], 0x55);
      }
      EXPECT_EQ(memcmp(y1.data(), y2.data(), n * os), 0)
          << hlx_binary_op_name((hlx_binary_op_t)o) << " " << hlx_dtype_name(t);
    }
  }
}

}  // namespace
