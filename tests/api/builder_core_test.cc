// The core builder ops of api/hlx.h run on the worked examples of XLA's
// operation semantics (Broadcast, Clamp, Concatenate, ConvertElementType,
// DotGeneral, Tuple/GetTupleElement, Iota, Reshape with and without
// dimensions, Select, Slice): the values in the text are the expected
// values. Printed programs parse back to the same module.
#include <vector>

#include "tests/api/builder_testing.h"

namespace {
using namespace hlx_test;

// Builds roots, checks the print/parse round trip, runs; one buffer per
// root (the caller takes them with Values<T>).
std::vector<hlx_buffer_t*> RunRoots(Builder& bb, std::vector<uint32_t> roots) {
  hlx_program_t* p = bb.Program(roots);
  if (p) ExpectPrintParses(p);
  std::vector<hlx_buffer_t*> out = RunAll(p);
  EXPECT_EQ(out.size(), roots.size());
  out.resize(roots.size(), nullptr);
  return out;
}

// "if operand is a scalar f32 with value 2.0f, and broadcast_sizes is
// {2, 3}, then the result will be an array with shape f32[2, 3] and all
// the values in the result will be 2.0f".
TEST(BuilderCoreExamples, Broadcast) {
  Builder bb;
  uint32_t r;
  int64_t sizes[2] = {2, 3};
  BOK(hlx_builder_broadcast(bb.b, bb.Scalar(F32(), 2.0), sizes, 2, &r));
  EXPECT_EQ(Dims(bb.b, r), (std::vector<int64_t>{2, 3}));
  auto out = RunRoots(bb, {r});
  EXPECT_EQ(Values<float>(out[0]), std::vector<float>(6, 2.0f));
}

// operand s32[3] {-1, 5, 9}, min 0, max 6 -> {0, 5, 6}.
TEST(BuilderCoreExamples, ClampWithScalarMinAndMax) {
  Builder bb;
  uint32_t r;
  BOK(hlx_builder_clamp(bb.b, bb.Scalar(I32(), 0), bb.I({3}, {-1, 5, 9}),
                        bb.Scalar(I32(), 6), &r));
  auto out = RunRoots(bb, {r});
  EXPECT_EQ(Values<int32_t>(out[0]), (std::vector<int32_t>{0, 5, 6}));
}

// Concat({{2, 3}, {4, 5}, {6, 7}}, 0) -> {2, 3, 4, 5, 6, 7}; a (3x2) and
// b (1x2) along 0 -> 4x2.
TEST(BuilderCoreExamples, Concatenate) {
  Builder bb;
  uint32_t one[3] = {bb.F({2}, {2, 3}), bb.F({2}, {4, 5}), bb.F({2}, {6, 7})};
  uint32_t two[2] = {bb.F({3, 2}, {1, 2, 3, 4, 5, 6}), bb.F({1, 2}, {7, 8})};
  uint32_t r1, r2;
  BOK(hlx_builder_concatenate(bb.b, one, 3, 0, &r1));
  BOK(hlx_builder_concatenate(bb.b, two, 2, 0, &r2));
  EXPECT_EQ(Dims(bb.b, r2), (std::vector<int64_t>{4, 2}));
  auto out = RunRoots(bb, {r1, r2});
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(Values<float>(out[1]), (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}));
}

// a: s32[3] = {0, 1, 2}; convert(a, f32) == f32[3]{0.0, 1.0, 2.0}.
TEST(BuilderCoreExamples, ConvertElementType) {
  Builder bb;
  uint32_t r;
  BOK(hlx_builder_convert(bb.b, bb.I({3}, {0, 1, 2}), F32(), &r));
  auto out = RunRoots(bb, {r});
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{0.0f, 1.0f, 2.0f}));
}

// The two DotGeneral examples: contracting dims 1 x 1, and batch 0 x 0
// with contracting 2 x 1 against identity matrices.
TEST(BuilderCoreExamples, DotGeneral) {
  Builder bb;
  uint32_t lhs = bb.F({2, 3}, {1, 2, 3, 4, 5, 6});
  uint32_t rhs = bb.F({2, 3}, {1, 1, 1, 2, 2, 2});
  int64_t c1 = 1, c2 = 2, b0 = 0;
  uint32_t r1, r2;
  BOK(hlx_builder_dot_general(bb.b, lhs, rhs, nullptr, nullptr, 0, &c1, &c1,
                              1, &r1));
  uint32_t bl = bb.F({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  uint32_t br = bb.F({2, 2, 2}, {1, 0, 0, 1, 1, 0, 0, 1});
  BOK(hlx_builder_dot_general(bb.b, bl, br, &b0, &b0, 1, &c2, &c1, 1, &r2));
  EXPECT_EQ(Dims(bb.b, r2), (std::vector<int64_t>{2, 2, 2}));
  auto out = RunRoots(bb, {r1, r2});
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{6, 12, 15, 30}));
  EXPECT_EQ(Values<float>(out[1]), (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}));
}

// v: f32[10] = {0..9}; s: s32 = 5; t = tuple(v, s); gettupleelement(t, 1)
// is an s32 (5); element 0 is v.
TEST(BuilderCoreExamples, TupleAndGetTupleElement) {
  Builder bb;
  uint32_t v = bb.F({10}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  uint32_t s = bb.Scalar(I32(), 5), t;
  uint32_t elems[2] = {v, s};
  BOK(hlx_builder_tuple(bb.b, elems, 2, &t));
  uint32_t e1 = bb.Gte(t, 1), e0 = bb.Gte(t, 0);
  hlx_tensor_desc_t d;
  BOK(hlx_builder_get_desc(bb.b, e1, &d));
  EXPECT_EQ(d.element_type, I32());
  EXPECT_EQ(d.rank, 0);
  auto out = RunRoots(bb, {e1, e0});
  EXPECT_EQ(Values<int32_t>(out[0]), (std::vector<int32_t>{5}));
  EXPECT_EQ(Values<float>(out[1]),
            (std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

// Iota(s32[4, 8], 0) and Iota(s32[4, 8], 1).
TEST(BuilderCoreExamples, Iota) {
  Builder bb;
  hlx_tensor_desc_t d = Desc(I32(), {4, 8});
  uint32_t r0, r1;
  BOK(hlx_builder_iota(bb.b, &d, 0, &r0));
  BOK(hlx_builder_iota(bb.b, &d, 1, &r1));
  auto out = RunRoots(bb, {r0, r1});
  std::vector<int32_t> want0, want1;
  for (int32_t i = 0; i < 4; i++)
    for (int32_t j = 0; j < 8; j++) {
      want0.push_back(i);
      want1.push_back(j);
    }
  EXPECT_EQ(Values<int32_t>(out[0]), want0);
  EXPECT_EQ(Values<int32_t>(out[1]), want1);
}

// v = f32[4x2x3] {{{10,11,12},{15,16,17}}, ..., {{40,41,42},{45,46,47}}}:
// in-order collapses to {24} and {8,3}, out-of-order ({1,2,0}) to {24},
// {8,3} and {2,6,2}; and f32[1x1] {{5}} <-> 5.
TEST(BuilderCoreExamples, Reshape) {
  Builder bb;
  std::vector<float> vv;
  for (int i = 1; i <= 4; i++)
    for (int j = 0; j < 2; j++)
      for (int k = 0; k < 3; k++) vv.push_back((float)(10 * i + 5 * j + k));
  uint32_t v = bb.F({4, 2, 3}, vv);
  int64_t in_order[3] = {0, 1, 2}, out_of_order[3] = {1, 2, 0};
  int64_t s24[1] = {24}, s83[2] = {8, 3}, s262[3] = {2, 6, 2};
  uint32_t r[5];
  BOK(hlx_builder_reshape_with_dimensions(bb.b, v, in_order, 3, s24, 1, &r[0]));
  BOK(hlx_builder_reshape(bb.b, v, s83, 2, &r[1]));
  BOK(hlx_builder_reshape_with_dimensions(bb.b, v, out_of_order, 3, s24, 1,
                                          &r[2]));
  BOK(hlx_builder_reshape_with_dimensions(bb.b, v, out_of_order, 3, s83, 2,
                                          &r[3]));
  BOK(hlx_builder_reshape_with_dimensions(bb.b, v, out_of_order, 3, s262, 3,
                                          &r[4]));
  EXPECT_EQ(Dims(bb.b, r[4]), (std::vector<int64_t>{2, 6, 2}));
  uint32_t scalar, back;
  int64_t d01[2] = {0, 1}, s11[2] = {1, 1};
  BOK(hlx_builder_reshape_with_dimensions(bb.b, bb.F({1, 1}, {5}), d01, 2,
                                          nullptr, 0, &scalar));
  BOK(hlx_builder_reshape_with_dimensions(bb.b, bb.Scalar(F32(), 5), nullptr,
                                          0, s11, 2, &back));
  EXPECT_EQ(Dims(bb.b, scalar), (std::vector<int64_t>{}));
  EXPECT_EQ(Dims(bb.b, back), (std::vector<int64_t>{1, 1}));
  auto out = RunRoots(bb, {r[0], r[1], r[2], r[3], r[4], scalar, back});
  const std::vector<float> in_order_24 = {10, 11, 12, 15, 16, 17, 20, 21,
                                          22, 25, 26, 27, 30, 31, 32, 35,
                                          36, 37, 40, 41, 42, 45, 46, 47};
  const std::vector<float> out_of_order_24 = {10, 20, 30, 40, 11, 21, 31, 41,
                                              12, 22, 32, 42, 15, 25, 35, 45,
                                              16, 26, 36, 46, 17, 27, 37, 47};
  EXPECT_EQ(Values<float>(out[0]), in_order_24);
  EXPECT_EQ(Values<float>(out[1]), in_order_24);  // {{10,11,12},...}
  EXPECT_EQ(Values<float>(out[2]), out_of_order_24);
  EXPECT_EQ(Values<float>(out[3]), out_of_order_24);  // {{10,20,30},{40,11,21},...}
  EXPECT_EQ(Values<float>(out[4]), out_of_order_24);  // {{{10,20},{30,40},...}}}
  EXPECT_EQ(Values<float>(out[5]), (std::vector<float>{5}));
  EXPECT_EQ(Values<float>(out[6]), (std::vector<float>{5}));
}

TEST(BuilderCoreExamples, ReshapeWithDimensionsErrors) {
  auto check = [](std::vector<int64_t> dims, std::vector<int64_t> sizes,
                  const char* want) {
    Builder bb;
    uint32_t x = bb.F({2, 3}, {1, 2, 3, 4, 5, 6}), r;
    ExpectLatched(bb, hlx_builder_reshape_with_dimensions(
                          bb.b, x, dims.data(), (int32_t)dims.size(),
                          sizes.data(), (int32_t)sizes.size(), &r),
                  want);
  };
  check({1, 1}, {6}, "reshape: dimensions is not a permutation of 0..1 "
                     "(entry 1 is 1)");
  check({0}, {6}, "reshape: dimensions must list all 2 operand dimensions, "
                  "got 1");
  check({1, 0}, {5}, "reshape: element count changes: operand has 6 "
                     "elements, the new shape 5");
}

// pred {true, false, false, true}, v1 {1, 2, 3, 4}, v2 {100, 200, 300,
// 400} -> {1, 200, 300, 4}; with a scalar true pred -> v1.
TEST(BuilderCoreExamples, Select) {
  Builder bb;
  uint32_t v1 = bb.I({4}, {1, 2, 3, 4}), v2 = bb.I({4}, {100, 200, 300, 400});
  uint32_t pred = bb.Const(Pred(), {4}, std::vector<uint8_t>{1, 0, 0, 1});
  uint32_t r1, r2;
  BOK(hlx_builder_select(bb.b, pred, v1, v2, &r1));
  BOK(hlx_builder_select(bb.b, bb.Scalar(Pred(), 1), v1, v2, &r2));
  auto out = RunRoots(bb, {r1, r2});
  EXPECT_EQ(Values<int32_t>(out[0]), (std::vector<int32_t>{1, 200, 300, 4}));
  EXPECT_EQ(Values<int32_t>(out[1]), (std::vector<int32_t>{1, 2, 3, 4}));
}

// Slice({0.0 .. 4.0}, {2}, {4}) -> {2.0, 3.0}; Slice(b 4x3, {2, 1},
// {4, 3}) -> {{7, 8}, {10, 11}}.
TEST(BuilderCoreExamples, Slice) {
  Builder bb;
  uint32_t a = bb.F({5}, {0, 1, 2, 3, 4});
  uint32_t m = bb.F({4, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  int64_t s1 = 2, l1 = 4, s2[2] = {2, 1}, l2[2] = {4, 3};
  uint32_t r1, r2;
  BOK(hlx_builder_slice(bb.b, a, &s1, &l1, nullptr, 1, &r1));
  BOK(hlx_builder_slice(bb.b, m, s2, l2, nullptr, 2, &r2));
  auto out = RunRoots(bb, {r1, r2});
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{2, 3}));
  EXPECT_EQ(Values<float>(out[1]), (std::vector<float>{7, 8, 10, 11}));
}

// "When Op is Rem, the sign of the result is taken from the dividend, and
// the absolute value of the result is always less than the divisor's".
TEST(BuilderCoreExamples, RemTakesTheDividendsSign) {
  Builder bb;
  uint32_t r = bb.Bin(HLX_BINARY_REM, bb.I({4}, {7, -7, 7, -7}),
                      bb.I({4}, {3, 3, -3, -3}));
  uint32_t f = bb.Bin(HLX_BINARY_REM, bb.F({2}, {5.5f, -5.5f}),
                      bb.F({2}, {2, 2}));
  auto out = RunRoots(bb, {r, f});
  EXPECT_EQ(Values<int32_t>(out[0]), (std::vector<int32_t>{1, -1, 1, -1}));
  EXPECT_EQ(Values<float>(out[1]), (std::vector<float>{1.5f, -1.5f}));
}

}  // namespace
