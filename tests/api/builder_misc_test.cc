// Builder Map, Sort, Rev, Collapse, BitcastConvertType, ReducePrecision,
// GetDimensionSize, OptimizationBarrier and builder options
// (api/hlx_builder_ops.h): built, run, values checked (XLA operation
// semantics' worked examples), one error test per shape rule.
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>

#include "tests/api/builder_testing.h"

namespace {
using namespace hlx_test;
using Comp = std::unique_ptr<hlx_computation_t, ComputationDeleter>;

// Map(op1, op2, computation): elementwise x * y + 1 into f32.
TEST(BuilderMap, AppliesTheComputationElementwise) {
  Comp f;
  {
    Builder sb("f");
    uint32_t x = sb.Param(0, F32(), {}), y = sb.Param(1, F32(), {});
    uint32_t one = sb.Scalar(F32(), 1);
    f.reset(sb.Computation({sb.Bin(HLX_BINARY_ADD, sb.Bin(HLX_BINARY_MUL, x, y), one)}));
  }
  Builder bb;
  uint32_t ops[2] = {bb.F({2, 2}, {1, 2, 3, 4}), bb.F({2, 2}, {5, 6, 7, 8})};
  int64_t dims[2] = {0, 1};
  uint32_t r;
  BOK(hlx_builder_map(bb.b, ops, 2, f.get(), dims, 2, &r));
  hlx_program_t* p = bb.Program({r});
  ExpectPrintParses(p);
  EXPECT_EQ(RunOne<float>(p), (std::vector<float>{6, 13, 22, 33}));
}

// XLA text: operand0 = [3, 1], operand1 = [42, 50], operand2 = [-3.0, 1.1]
// sorted by operand0 with less-than -> ([1, 3], [50, 42], [1.1, -3.0]).
TEST(BuilderSort, MultiOperandExampleFromXlaText) {
  Comp lt;
  {
    Builder sb("lt");
    uint32_t a = sb.Param(0, I32(), {}), b = sb.Param(1, I32(), {});
    sb.Param(2, I32(), {});
    sb.Param(3, I32(), {});
    sb.Param(4, F32(), {});
    sb.Param(5, F32(), {});
    lt.reset(sb.Computation({sb.Cmp(HLX_COMPARE_LT, a, b)}));
  }
  Builder bb;
  uint32_t ops[3] = {bb.I({2}, {3, 1}), bb.I({2}, {42, 50}), bb.F({2}, {-3.0f, 1.1f})};
  uint32_t t;
  BOK(hlx_builder_sort(bb.b, ops, 3, lt.get(), 0, false, &t));
  hlx_program_t* p = bb.Program({bb.Gte(t, 0), bb.Gte(t, 1), bb.Gte(t, 2)});
  ExpectPrintParses(p);
  std::vector<hlx_buffer_t*> out = RunAll(p);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(Values<int32_t>(out[0]), (std::vector<int32_t>{1, 3}));
  EXPECT_EQ(Values<int32_t>(out[1]), (std::vector<int32_t>{50, 42}));
  EXPECT_EQ(Values<float>(out[2]), (std::vector<float>{1.1f, -3.0f}));
}

// Rank 2, dimension 1 sorts each row; stable keeps equal keys in order.
TEST(BuilderSort, RowsAndStability) {
  Comp lt;
  {
    Builder sb("lt");
    uint32_t a = sb.Param(0, F32(), {}), b = sb.Param(1, F32(), {});
    sb.Param(2, I32(), {});
    sb.Param(3, I32(), {});
    lt.reset(sb.Computation({sb.Cmp(HLX_COMPARE_LT, a, b)}));
  }
  Comp lt1(CompareComputation(HLX_COMPARE_LT, F32()));
  Builder bb;
  uint32_t keys = bb.F({2, 4}, {3, 1, 3, 1, 9, 8, 7, 6});
  uint32_t ops[2] = {keys, bb.I({2, 4}, {0, 1, 2, 3, 4, 5, 6, 7})};
  uint32_t t, s1;
  BOK(hlx_builder_sort(bb.b, ops, 2, lt.get(), -1, true, &t));  // last
  BOK(hlx_builder_sort(bb.b, &keys, 1, lt1.get(), 0, false, &s1));
  std::vector<hlx_buffer_t*> out = RunAll(bb.Program({bb.Gte(t, 1), s1}));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Values<int32_t>(out[0]), (std::vector<int32_t>{1, 3, 0, 2, 7, 6, 5, 4}));
  EXPECT_EQ(Values<float>(out[1]), (std::vector<float>{3, 1, 3, 1, 9, 8, 7, 6}));
}

// XLA text Reduce examples: [[1,2,3],[4,5,6]] over dim 0 / 1; the
// [4,2,3] array of 1..6 repeated over dim 0, dim 2, dims {0,1}, all.
TEST(BuilderReduce, ExamplesFromXlaText) {
  Comp add(BinaryComputation(HLX_BINARY_ADD, F32()));
  std::vector<float> v3;
  for (int k = 0; k < 4; k++)
    for (int i = 1; i <= 6; i++) v3.push_back((float)i);
  struct Case {
    std::vector<int64_t> shape, dims;
    std::vector<float> want;
  } cases[] = {
      {{2, 3}, {0}, {5, 7, 9}},
      {{2, 3}, {1}, {6, 15}},
      {{4, 2, 3}, {0}, {4, 8, 12, 16, 20, 24}},
      {{4, 2, 3}, {2}, {6, 15, 6, 15, 6, 15, 6, 15}},
      {{4, 2, 3}, {0, 1}, {20, 28, 36}},
      {{4, 2, 3}, {0, 1, 2}, {84}},
  };
  for (const Case& c : cases) {
    Builder bb;
    std::vector<float> in(v3.begin(), v3.begin() + (c.shape.size() == 2 ? 6 : 24));
    uint32_t x = bb.F(c.shape, in), init = bb.Scalar(F32(), 0), r;
    BOK(hlx_builder_reduce_variadic(bb.b, &x, &init, 1, add.get(), c.dims.data(),
                                    (int32_t)c.dims.size(), &r));
    EXPECT_EQ(RunOne<float>(bb.Program({r})), c.want);
  }
}

// XLA text: variadic reduce computing max and argmax of a 1-D array with
// f(max, argmax, value, index) = value >= max ? (value, index) : (max, argmax).
TEST(BuilderReduce, VariadicMaxArgmax) {
  Comp f;
  {
    Builder sb("argmax");
    uint32_t m = sb.Param(0, F32(), {}), am = sb.Param(1, I32(), {});
    uint32_t v = sb.Param(2, F32(), {}), k = sb.Param(3, I32(), {});
    uint32_t ge = sb.Cmp(HLX_COMPARE_GE, v, m), nm, nk;
    BOK(hlx_builder_select(sb.b, ge, v, m, &nm));
    BOK(hlx_builder_select(sb.b, ge, k, am, &nk));
    f.reset(sb.Computation({nm, nk}));
  }
  Builder bb;
  uint32_t ops[2] = {bb.F({5}, {3, 9, 2, 9, 1}), bb.I({5}, {0, 1, 2, 3, 4})};
  uint32_t inits[2] = {bb.Scalar(F32(), -1e30), bb.Scalar(I32(), -1)}, t;
  int64_t d = 0;
  BOK(hlx_builder_reduce_variadic(bb.b, ops, inits, 2, f.get(), &d, 1, &t));
  hlx_program_t* p = bb.Program({bb.Gte(t, 0), bb.Gte(t, 1)});
  ExpectPrintParses(p);
  std::vector<hlx_buffer_t*> out = RunAll(p);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{9}));
  EXPECT_EQ(Values<int32_t>(out[1]), (std::vector<int32_t>{3}));  // ">=": last max
}

TEST(BuilderRev, ReversesTheGivenDimensions) {
  Builder bb;
  uint32_t x = bb.F({2, 3}, {1, 2, 3, 4, 5, 6});
  int64_t d1 = 1, d01[2] = {0, 1};
  uint32_t r1, r01;
  BOK(hlx_builder_rev(bb.b, x, &d1, 1, &r1));
  BOK(hlx_builder_rev(bb.b, x, d01, 2, &r01));
  std::vector<hlx_buffer_t*> out = RunAll(bb.Program({r1, r01}));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{3, 2, 1, 6, 5, 4}));
  EXPECT_EQ(Values<float>(out[1]), (std::vector<float>{6, 5, 4, 3, 2, 1}));
}

// XLA text: v = f32[4x2x3]; Collapse {0,1,2} -> [24] with the listed
// values. The text's two other examples swap their shapes ({0,1} -> [4x6],
// {1,2} -> [8x3]) against its own rule ("the lowest dimension number is
// the most major"; XlaBuilder merges dims 0,1 of [4,2,3] into 8), so the
// shapes here follow the rule; the values (row-major) are the text's.
TEST(BuilderCollapse, ExamplesFromXlaText) {
  std::vector<float> v = {10, 11, 12, 15, 16, 17, 20, 21, 22, 25, 26, 27,
                          30, 31, 32, 35, 36, 37, 40, 41, 42, 45, 46, 47};
  std::vector<std::vector<int64_t>> sets = {{0, 1, 2}, {0, 1}, {1, 2}};
  std::vector<std::vector<int64_t>> shapes = {{24}, {8, 3}, {4, 6}};
  for (size_t i = 0; i < sets.size(); i++) {
    Builder bb;
    uint32_t x = bb.F({4, 2, 3}, v), r;
    BOK(hlx_builder_collapse(bb.b, x, sets[i].data(), (int32_t)sets[i].size(), &r));
    EXPECT_EQ(Dims(bb.b, r), shapes[i]);
    EXPECT_EQ(RunOne<float>(bb.Program({r})), v);
  }
}

TEST(BuilderBitcastConvert, SameWidthNarrowerAndWider) {
  Builder bb;
  uint32_t x = bb.F({2}, {1.0f, -2.5f}), same, narrow, back;
  BOK(hlx_builder_bitcast_convert(bb.b, x, I32(), &same));
  hlx_element_type_t u8 = hlx_element_type_from_name("ui8");
  BOK(hlx_builder_bitcast_convert(bb.b, x, u8, &narrow));
  EXPECT_EQ(Dims(bb.b, narrow), (std::vector<int64_t>{2, 4}));
  BOK(hlx_builder_bitcast_convert(bb.b, narrow, F32(), &back));
  EXPECT_EQ(Dims(bb.b, back), (std::vector<int64_t>{2}));
  std::vector<hlx_buffer_t*> out = RunAll(bb.Program({same, narrow, back}));
  ASSERT_EQ(out.size(), 3u);
  float f[2] = {1.0f, -2.5f};
  int32_t bits[2];
  std::memcpy(bits, f, sizeof f);
  EXPECT_EQ(Values<int32_t>(out[0]), (std::vector<int32_t>{bits[0], bits[1]}));
  std::vector<uint8_t> bytes(8);
  std::memcpy(bytes.data(), f, 8);
  EXPECT_EQ(Values<uint8_t>(out[1]), bytes);
  EXPECT_EQ(Values<float>(out[2]), (std::vector<float>{1.0f, -2.5f}));
}

// XLA text: f32[10] -> f16[10,2]; f32[] -> f16[2]; f16[10,2] -> f32[10],
// the bytes unchanged.
TEST(BuilderBitcastConvert, ShapeExamplesFromXlaText) {
  hlx_element_type_t f16 = hlx_element_type_from_name("f16");
  Builder bb;
  std::vector<float> v(10);
  for (int i = 0; i < 10; i++) v[i] = 1.0f + (float)i / 8;
  uint32_t x = bb.F({10}, v), s = bb.Scalar(F32(), 3.5), h, hs, back;
  BOK(hlx_builder_bitcast_convert(bb.b, x, f16, &h));
  BOK(hlx_builder_bitcast_convert(bb.b, s, f16, &hs));
  BOK(hlx_builder_bitcast_convert(bb.b, h, F32(), &back));
  EXPECT_EQ(Dims(bb.b, h), (std::vector<int64_t>{10, 2}));
  EXPECT_EQ(Dims(bb.b, hs), (std::vector<int64_t>{2}));
  EXPECT_EQ(Dims(bb.b, back), (std::vector<int64_t>{10}));
  std::vector<hlx_buffer_t*> out = RunAll(bb.Program({h, hs, back}));
  ASSERT_EQ(out.size(), 3u);
  std::vector<uint16_t> hv = Values<uint16_t>(out[0]), hsv = Values<uint16_t>(out[1]);
  std::vector<uint16_t> want(20), want_s(2);
  std::memcpy(want.data(), v.data(), 40);
  float three_half = 3.5f;
  std::memcpy(want_s.data(), &three_half, 4);
  EXPECT_EQ(hv, want);
  EXPECT_EQ(hsv, want_s);
  EXPECT_EQ(Values<float>(out[2]), v);
}

// f32 -> e5m2-like precision: 1 + 2^-3 keeps, 1 + 2^-4 rounds to even (1).
TEST(BuilderReducePrecision, RoundsMantissaAndExponent) {
  Builder bb;
  uint32_t x = bb.F({4}, {1.125f, 1.0625f, 1.1875f, 1e6f}), r;
  BOK(hlx_builder_reduce_precision(bb.b, x, 5, 2, &r));
  hlx_program_t* p = bb.Program({r});
  ExpectPrintParses(p);
  std::vector<float> got = RunOne<float>(p);
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0], 1.0f);    // 1.001b: ties to even -> 1.00b
  EXPECT_EQ(got[1], 1.0f);
  EXPECT_EQ(got[2], 1.25f);   // 1.0011b -> 1.01b
  EXPECT_TRUE(std::isinf(got[3]));  // beyond e5's max 57344
}

TEST(BuilderGetDimensionSize, IsAnS32Scalar) {
  Builder bb;
  uint32_t x = bb.Param(0, F32(), {3, 7}), r;
  BOK(hlx_builder_get_dimension_size(bb.b, x, 1, &r));
  EXPECT_EQ(Dims(bb.b, r), (std::vector<int64_t>{}));
  std::vector<float> in(21, 0.f);
  EXPECT_EQ(RunOne<int32_t>(bb.Program({r}), {Buf(F32(), {3, 7}, in.data())}),
            (std::vector<int32_t>{7}));
}

// The XLA text's example: v = f32[10] {1..10}; set_dimension_size(v, five,
// 0) and (v, six, 0) keep the static shape f32[10]; reduce_sum of the
// first is 1+2+3+4+5, reduce_product 1*2*3*4*5, reduce_sum of the second
// 1+...+6. Sizes as constants and as run-time parameters.
TEST(BuilderSetDimensionSize, XlaExampleReductionsIgnorePadding) {
  for (bool runtime : {false, true}) {
    SCOPED_TRACE(runtime ? "run-time sizes" : "constant sizes");
    Builder bb;
    uint32_t v = bb.F({10}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
    uint32_t five = runtime ? bb.Param(0, I32(), {}) : bb.Scalar(I32(), 5);
    uint32_t six = runtime ? bb.Param(1, I32(), {}) : bb.Scalar(I32(), 6);
    uint32_t p5, p6, sum, product, sum6, n5;
    BOK(hlx_builder_set_dimension_size(bb.b, v, five, 0, &p5));
    BOK(hlx_builder_set_dimension_size(bb.b, v, six, 0, &p6));
    EXPECT_EQ(Dims(bb.b, p5), (std::vector<int64_t>{10}));
    std::unique_ptr<hlx_computation_t, ComputationDeleter> add(
        BinaryComputation(HLX_BINARY_ADD, F32()));
    std::unique_ptr<hlx_computation_t, ComputationDeleter> mul(
        BinaryComputation(HLX_BINARY_MUL, F32()));
    int64_t d0 = 0;
    BOK(hlx_builder_reduce(bb.b, p5, bb.Scalar(F32(), 0), add.get(), &d0, 1,
                           &sum));
    BOK(hlx_builder_reduce(bb.b, p5, bb.Scalar(F32(), 1), mul.get(), &d0, 1,
                           &product));
    uint32_t ops[1] = {p6}, inits[1] = {bb.Scalar(F32(), 0)};
    BOK(hlx_builder_reduce_variadic(bb.b, ops, inits, 1, add.get(), &d0, 1,
                                    &sum6));
    BOK(hlx_builder_get_dimension_size(bb.b, p5, 0, &n5));
    hlx_program_t* p = bb.Program({sum, product, sum6, n5});
    ExpectPrintParses(p);
    std::vector<hlx_buffer_t*> params;
    int32_t s5 = 5, s6 = 6;
    if (runtime) params = {Buf(I32(), {}, &s5), Buf(I32(), {}, &s6)};
    std::vector<hlx_buffer_t*> out = RunAll(p, params);
    ASSERT_EQ(out.size(), 4u);
    EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{15}));
    EXPECT_EQ(Values<float>(out[1]), (std::vector<float>{120}));
    EXPECT_EQ(Values<float>(out[2]), (std::vector<float>{21}));
    EXPECT_EQ(Values<int32_t>(out[3]), (std::vector<int32_t>{5}));
  }
}

// Rank 2, both dimensions dynamic, reduced together and one at a time is
// refused; the static size is no dynamic size.
TEST(BuilderSetDimensionSize, TwoDynamicDimensionsAndTheStaticSize) {
  Builder bb;
  std::vector<float> m(12);
  for (int i = 0; i < 12; i++) m[i] = (float)(i + 1);  // [[1..4],[5..8],[9..12]]
  uint32_t x = bb.F({3, 4}, m), a, c, sum, same;
  BOK(hlx_builder_set_dimension_size(bb.b, x, bb.Scalar(I32(), 2), 0, &a));
  BOK(hlx_builder_set_dimension_size(bb.b, a, bb.Param(0, I32(), {}), 1, &c));
  std::unique_ptr<hlx_computation_t, ComputationDeleter> add(
      BinaryComputation(HLX_BINARY_ADD, F32()));
  int64_t both[2] = {0, 1};
  BOK(hlx_builder_reduce(bb.b, c, bb.Scalar(F32(), 0), add.get(), both, 2,
                         &sum));
  BOK(hlx_builder_set_dimension_size(bb.b, x, bb.Scalar(I32(), 4), 1, &same));
  uint32_t doubled = bb.Bin(HLX_BINARY_ADD, same, same);  // an ordinary value
  int32_t three = 3;
  std::vector<hlx_buffer_t*> out =
      RunAll(bb.Program({sum, doubled}), {Buf(I32(), {}, &three)});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{1 + 2 + 3 + 5 + 6 + 7}));
  std::vector<float> twice(12);
  for (int i = 0; i < 12; i++) twice[i] = 2 * m[i];
  EXPECT_EQ(Values<float>(out[1]), twice);
}

// A dynamic dimension reaches only reduce, get/set_dimension_size: other
// ops, a reduce that keeps it and a build root are clear errors, as are
// bad sizes.
TEST(BuilderSetDimensionSize, LimitsAreErrors) {
  auto dynamic = [](Builder& bb) {
    uint32_t x = bb.F({2, 3}, {1, 2, 3, 4, 5, 6}), r;
    BOK(hlx_builder_set_dimension_size(bb.b, x, bb.Scalar(I32(), 2), 1, &r));
    return r;
  };
  {
    Builder bb;
    uint32_t r = dynamic(bb), y;
    ExpectLatched(bb, hlx_builder_unary(bb.b, HLX_UNARY_NEG, r, &y),
                  "negate: operand has a dynamic dimension size "
                  "(set_dimension_size); only reduce, get_dimension_size and "
                  "set_dimension_size take such values");
  }
  {
    Builder bb;
    uint32_t r = dynamic(bb), y;
    std::unique_ptr<hlx_computation_t, ComputationDeleter> add(
        BinaryComputation(HLX_BINARY_ADD, F32()));
    int64_t d0 = 0;
    ExpectLatched(bb, hlx_builder_reduce(bb.b, r, bb.Scalar(F32(), 0),
                                         add.get(), &d0, 1, &y),
                  "reduce: dimension 1 has a dynamic size but is not reduced");
  }
  {
    Builder bb;
    uint32_t r = dynamic(bb);
    hlx_program_t* p = nullptr;
    std::string m = Msg(hlx_builder_build(bb.b, &r, 1, &p));
    EXPECT_NE(m.find("has a dynamic dimension size"), std::string::npos) << m;
    EXPECT_EQ(p, nullptr);
  }
  {
    Builder bb;
    uint32_t x = bb.F({10}, std::vector<float>(10, 1)), r;
    ExpectLatched(bb, hlx_builder_set_dimension_size(
                          bb.b, x, bb.Scalar(I32(), 11), 0, &r),
                  "set_dimension_size: size 11 is outside 0..10, dimension "
                  "0's static size");
  }
}

TEST(BuilderOptimizationBarrier, PassesValuesThrough) {
  Builder bb;
  uint32_t ops[2] = {bb.F({2}, {1, 2}), bb.I({1}, {7})}, t, one;
  BOK(hlx_builder_optimization_barrier(bb.b, ops, 2, &t));
  BOK(hlx_builder_optimization_barrier(bb.b, ops, 1, &one));
  hlx_program_t* p = bb.Program({bb.Gte(t, 0), bb.Gte(t, 1), one});
  ExpectPrintParses(p);
  std::vector<hlx_buffer_t*> out = RunAll(p);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{1, 2}));
  EXPECT_EQ(Values<int32_t>(out[1]), (std::vector<int32_t>{7}));
  EXPECT_EQ(Values<float>(out[2]), (std::vector<float>{1, 2}));
}

TEST(BuilderOptions, NameAndNonLatchingErrors) {
  hlx_builder_options_t o;
  hlx_builder_options_init(&o);
  EXPECT_EQ(o.struct_size, sizeof o);
  EXPECT_TRUE(o.latch_errors);
  o.name = "f";
  o.latch_errors = false;
  hlx_builder_t* b = nullptr;
  BOK(hlx_builder_create_with_options(&o, &b));
  uint32_t x, bad, r;
  BOK(hlx_builder_constant_scalar(b, F32(), 2, &x));
  int64_t d = 3;
  EXPECT_EQ(Msg(hlx_builder_rev(b, x, &d, 1, &bad)),
            "rev: 1 dimensions for an operand of rank 0");
  BOK(hlx_builder_unary(b, HLX_UNARY_NEG, x, &r));  // still usable
  hlx_program_t* p = nullptr;
  BOK(hlx_builder_build(b, &r, 1, &p));
  hlx_builder_destroy(b);
  EXPECT_STREQ(hlx_program_entry(p), "f");
  EXPECT_EQ(RunOne<float>(p), (std::vector<float>{-2}));
  o.struct_size = 3;
  EXPECT_NE(Msg(hlx_builder_create_with_options(&o, &b)).find("struct_size 3"),
            std::string::npos);
  EXPECT_EQ(b, nullptr);
}

TEST(BuilderMiscErrors, EachRuleIsLatched) {
  Comp add(BinaryComputation(HLX_BINARY_ADD, F32()));
  Comp lt(CompareComputation(HLX_COMPARE_LT, F32()));
  uint32_t r;
  auto check = [](std::function<hlx_status_t(Builder&, uint32_t, uint32_t*)> f,
                  const char* want) {
    Builder bb;
    uint32_t x = bb.F({2, 3}, {1, 2, 3, 4, 5, 6}), out;
    ExpectLatched(bb, f(bb, x, &out), want);
  };
  (void)r;
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    uint32_t ops[2] = {x, bb.F({3}, {1, 2, 3})};
    return hlx_builder_map(bb.b, ops, 2, add.get(), nullptr, 0, o);
  }, "map: operand 1 has another shape than operand 0");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    return hlx_builder_map(bb.b, &x, 1, add.get(), nullptr, 0, o);
  }, "map: the computation must take 1 parameters and return 1 value (it takes 2");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    int64_t d[2] = {1, 0};
    uint32_t ops[2] = {x, x};
    return hlx_builder_map(bb.b, ops, 2, add.get(), d, 2, o);
  }, "map: dimensions must be 0..1 in order");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    return hlx_builder_sort(bb.b, &x, 1, lt.get(), 2, false, o);
  }, "sort: dimension 2 is out of range for rank 2");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    return hlx_builder_sort(bb.b, &x, 1, add.get(), 0, false, o);
  }, "sort: the comparator must return a pred[]");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    uint32_t ops[2] = {x, x};
    return hlx_builder_sort(bb.b, ops, 2, lt.get(), 0, false, o);
  }, "sort: the comparator must take 4 parameters");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    uint32_t ops[2] = {x, bb.I({2, 3}, {1, 2, 3, 4, 5, 6})};
    Builder sb("c");
    for (int i = 0; i < 4; i++) sb.Param(i, F32(), {});
    Comp c(sb.Computation({sb.Cmp(HLX_COMPARE_LT, 0, 1)}));
    return hlx_builder_sort(bb.b, ops, 2, c.get(), 0, false, o);
  }, "sort: comparator parameter 2 must be a rank-0 i32");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    uint32_t init = bb.Scalar(I32(), 0);
    int64_t d = 0;
    return hlx_builder_reduce_variadic(bb.b, &x, &init, 1, add.get(), &d, 1, o);
  }, "reduce: init must be a rank-0 f32, like the operand's elements");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    uint32_t ops[2] = {x, x}, inits[2] = {bb.Scalar(F32(), 0), bb.Scalar(F32(), 0)};
    int64_t d = 0;
    return hlx_builder_reduce_variadic(bb.b, ops, inits, 2, add.get(), &d, 1, o);
  }, "reduce: the computation must take 4 parameters and return 2 values");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    uint32_t init = bb.Scalar(F32(), 0);
    int64_t d[2] = {1, 1};
    return hlx_builder_reduce_variadic(bb.b, &x, &init, 1, add.get(), d, 2, o);
  }, "reduce: dimension 1 is out of range for rank 2 or repeated");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    int64_t d[2] = {1, 1};
    return hlx_builder_rev(bb.b, x, d, 2, o);
  }, "rev: dimension 1 appears twice");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    int64_t d = 2;
    return hlx_builder_rev(bb.b, x, &d, 1, o);
  }, "rev: dimension 2 is out of range for rank 2");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    int64_t d[2] = {1, 0};
    return hlx_builder_collapse(bb.b, x, d, 2, o);
  }, "collapse: dimensions must be consecutive and in order (0 follows 1)");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    int64_t d = 5;
    return hlx_builder_collapse(bb.b, x, &d, 1, o);
  }, "collapse: dimension 5 is out of range for rank 2");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    return hlx_builder_bitcast_convert(bb.b, x, hlx_element_type_from_name("f64"), o);
  }, "bitcast_convert: a 64-bit f64 needs a last dimension of size 2 of 32-bit f32");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    return hlx_builder_bitcast_convert(bb.b, x, Pred(), o);
  }, "bitcast_convert: cannot bitcast between pred and f32");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    return hlx_builder_reduce_precision(bb.b, x, 0, 2, o);
  }, "reduce_precision: exponent_bits 0 must be >= 1 and mantissa_bits 2 >= 0");
  check([&](Builder& bb, uint32_t, uint32_t* o) {
    uint32_t i = bb.I({1}, {1});
    return hlx_builder_reduce_precision(bb.b, i, 5, 2, o);
  }, "reduce_precision: operand must be floating point, not i32");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    return hlx_builder_get_dimension_size(bb.b, x, 2, o);
  }, "get_dimension_size: dimension 2 is out of range for rank 2");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    return hlx_builder_set_dimension_size(bb.b, x, bb.Scalar(I32(), 4), 2, o);
  }, "set_dimension_size: dimension 2 is out of range for rank 2");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    return hlx_builder_set_dimension_size(bb.b, x, bb.F({}, {4}), 0, o);
  }, "set_dimension_size: size must be an s32[] (XLA: int32), not a rank-0 f32");
  check([&](Builder& bb, uint32_t, uint32_t* o) {
    return hlx_builder_optimization_barrier(bb.b, nullptr, 0, o);
  }, "optimization_barrier: needs 1 to 64 operands, got 0");
}

}  // namespace
