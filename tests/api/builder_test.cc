// The graph builder (api/hlx.h "graph builder"): programs built op by op,
// run, printed and parsed back; one error test per shape rule.
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "tests/api/builder_testing.h"

namespace {
using namespace hlx_test;

// Asserts the call succeeded (stops the test: later steps need its value).
#define OK(call)                                          \
  do {                                                    \
    hlx_status_t s_ = (call);                             \
    ASSERT_EQ(s_, nullptr) << hlx_status_get_message(s_); \
  } while (0)

// ---- MLP --------------------------------------------------------------------
// x[2,3] -> relu(x W1 + b1) W2 + b2 -> logits[2,2] and their row sums.
hlx_program_t* BuildMlp() {
  Builder mb("mlp");
  hlx_builder_t* b = mb.b;
  uint32_t x = mb.Param(0, F32(), {2, 3}, "x");
  uint32_t w1 = mb.F({3, 4}, {1, 0, -1, 0.5f, 0, 1, 1, 0, 1, 1, 0, -1});
  uint32_t b1 = mb.F({4}, {0.5f, -1, 0, 1});
  uint32_t w2 = mb.F({4, 2}, {1, -1, 0.5f, 0, 0, 2, 3, 1});
  uint32_t b2 = mb.F({2}, {0, 1});
  uint32_t zero = HLX_BUILDER_NO_VALUE, h = 0, hb, relu, o, logits, sums;
  EXPECT_EQ(Msg(hlx_builder_constant_scalar(b, F32(), 0.0, &zero)), "");
  EXPECT_EQ(Msg(hlx_builder_dot(b, x, w1, &h)), "");
  hb = mb.Bin(HLX_BINARY_ADD, h, b1, {1});    // [2,4] + [4] along dim 1
  relu = mb.Bin(HLX_BINARY_MAX, hb, zero);     // scalar broadcast
  EXPECT_EQ(Msg(hlx_builder_dot(b, relu, w2, &o)), "");
  logits = mb.Bin(HLX_BINARY_ADD, b2, o, {1});  // lower rank on the left
  hlx_computation_t* add = BinaryComputation(HLX_BINARY_ADD, F32());
  int64_t dim1 = 1;
  EXPECT_EQ(Msg(hlx_builder_reduce(b, logits, zero, add, &dim1, 1, &sums)), "");
  hlx_computation_destroy(add);  // the reduce holds its own copy
  hlx_tensor_desc_t d;
  EXPECT_EQ(Msg(hlx_builder_get_desc(b, logits, &d)), "");
  EXPECT_EQ(d.rank, 2);
  EXPECT_EQ(d.dims[0], 2);
  EXPECT_EQ(d.dims[1], 2);
  uint32_t roots[2] = {logits, sums};
  hlx_program_t* p = nullptr;
  EXPECT_EQ(Msg(hlx_builder_build(b, roots, 2, &p)), "");
  return p;
}

TEST(Builder, MlpRunsAndMatchesHandComputedValues) {
  hlx_program_t* p = BuildMlp();
  ASSERT_NE(p, nullptr);
  EXPECT_STREQ(hlx_program_entry(p), "mlp");
  std::vector<hlx_buffer_t*> out =
      RunKeep(p, {BufF({2, 3}, {1, 2, 3, -1, 0, 1})});
  ASSERT_EQ(out.size(), 2u);
  // h = relu([[4.5, 4, 1, -1.5], [0.5, 0, 1, -0.5]]) = [[4.5,4,1,0],[0.5,0,1,0]]
  // logits = h W2 + b2 = [[6.5, -1.5], [0.5, 2.5]]; sums = [5, 3].
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{6.5f, -1.5f, 0.5f, 2.5f}));
  EXPECT_EQ(Values<float>(out[1]), (std::vector<float>{5, 3}));
  hlx_program_destroy(p);
}

TEST(Builder, MlpRoundTripsThroughText) {
  hlx_program_t* p = BuildMlp();
  ASSERT_NE(p, nullptr);
  ExpectPrintParses(p);
  hlx_program_destroy(p);
}

TEST(Builder, BuilderIsSpentAfterBuild) {
  Builder mb;
  uint32_t c = mb.F({1}, {1});
  hlx_program_t* p = nullptr;
  ASSERT_EQ(Msg(hlx_builder_build(mb.b, &c, 1, &p)), "");
  uint32_t v;
  EXPECT_NE(Msg(hlx_builder_unary(mb.b, HLX_UNARY_NEG, c, &v)).find("already built"),
            std::string::npos);
  EXPECT_EQ(v, HLX_BUILDER_NO_VALUE);
  hlx_program_destroy(p);
}

// ---- the XLA overview's axpy -----------------------------------------------------
TEST(Builder, AxpyWithConstants) {
  Builder mb("axpy");
  uint32_t alpha, axpy, ax;
  OK(hlx_builder_constant_scalar(mb.b, F32(), 3.5, &alpha));
  uint32_t x = mb.F({4}, {1, 2, 3, 4});
  uint32_t y = mb.F({4}, {10, 20, 30, 40});
  OK(hlx_builder_binary(mb.b, HLX_BINARY_MUL, alpha, x, nullptr, 0, &ax));
  OK(hlx_builder_binary(mb.b, HLX_BINARY_ADD, ax, y, nullptr, 0, &axpy));
  hlx_program_t* p = nullptr;
  OK(hlx_builder_build(mb.b, &axpy, 1, &p));
  std::vector<hlx_buffer_t*> out = RunKeep(p, {});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{13.5f, 27, 40.5f, 54}));
  ExpectPrintParses(p);
  hlx_program_destroy(p);
}

TEST(Builder, AxpyWithParametersRunsManyTimes) {
  Builder mb("axpy");
  uint32_t alpha = mb.Param(0, F32(), {}, "alpha");
  uint32_t x = mb.Param(1, F32(), {4}, "x");
  uint32_t y = mb.Param(2, F32(), {4}, "y");
  uint32_t axpy = mb.Bin(HLX_BINARY_ADD, mb.Bin(HLX_BINARY_MUL, alpha, x), y);
  hlx_program_t* p = nullptr;
  OK(hlx_builder_build(mb.b, &axpy, 1, &p));
  EXPECT_EQ(hlx_program_function_num_args(p, 0), 3);
  std::vector<hlx_buffer_t*> out =
      RunKeep(p, {BufF({}, {2}), BufF({4}, {1, 2, 3, 4}),
              BufF({4}, {10, 20, 30, 40})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{12, 24, 36, 48}));
  out = RunKeep(p, {BufF({}, {-1}), BufF({4}, {1, 2, 3, 4}),
                BufF({4}, {0.5f, 0, 0, 0})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{-0.5f, -2, -3, -4}));
  ExpectPrintParses(p);
  hlx_program_destroy(p);
}

TEST(Builder, ParametersMayBeDeclaredOutOfOrder) {
  Builder mb;
  uint32_t y = mb.Param(1, F32(), {2});
  uint32_t x = mb.Param(0, F32(), {2});
  uint32_t d = mb.Bin(HLX_BINARY_SUB, x, y);
  hlx_program_t* p = nullptr;
  OK(hlx_builder_build(mb.b, &d, 1, &p));
  std::vector<hlx_buffer_t*> out =
      RunKeep(p, {BufF({2}, {10, 20}), BufF({2}, {1, 2})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{9, 18}));
  hlx_program_destroy(p);
}

// ---- broadcasting ------------------------------------------------------------------
TEST(Builder, DegenerateAndInDimBroadcasting) {
  Builder mb;
  // [2,1] + [1,3] -> [2,3]; then + [2] along dim 0 (XLA's matrix+vector).
  uint32_t a = mb.F({2, 1}, {1, 2});
  uint32_t c = mb.F({1, 3}, {10, 20, 30});
  uint32_t v = mb.F({2}, {100, 200});
  uint32_t s = mb.Bin(HLX_BINARY_ADD, a, c);
  uint32_t t = mb.Bin(HLX_BINARY_ADD, s, v, {0});
  uint32_t lt;
  const int64_t k0v[1] = {0};
  OK(hlx_builder_compare(mb.b, HLX_COMPARE_LT, t, v, k0v, 1, &lt));
  hlx_tensor_desc_t d;
  OK(hlx_builder_get_desc(mb.b, lt, &d));
  EXPECT_EQ(d.element_type, Pred());
  uint32_t roots[2] = {t, lt};
  hlx_program_t* p = nullptr;
  OK(hlx_builder_build(mb.b, roots, 2, &p));
  std::vector<hlx_buffer_t*> out = RunKeep(p, {});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Values<float>(out[0]),
            (std::vector<float>{111, 121, 131, 212, 222, 232}));
  EXPECT_EQ(Values<uint8_t>(out[1]), (std::vector<uint8_t>{0, 0, 0, 0, 0, 0}));
  ExpectPrintParses(p);
  hlx_program_destroy(p);
}

// ---- shape ops, select, clamp, convert ------------------------------------------------
TEST(Builder, ShapeOpsSelectClampConvert) {
  Builder mb("shapes");
  hlx_builder_t* b = mb.b;
  hlx_tensor_desc_t d23 = Desc(I32(), {2, 3});
  uint32_t io, tr, rs, sl, pad, cat, cv, cl, gt, sel, neg1, lo, hi, zero, seven;
  OK(hlx_builder_iota(b, &d23, 1, &io));  // [[0,1,2],[0,1,2]]
  int64_t perm[2] = {1, 0};
  OK(hlx_builder_transpose(b, io, perm, 2, &tr));  // [[0,0],[1,1],[2,2]]
  int64_t six = 6;
  OK(hlx_builder_reshape(b, tr, &six, 1, &rs));  // [0,0,1,1,2,2]
  int64_t st = 1, li = 6, sd = 2;
  OK(hlx_builder_slice(b, rs, &st, &li, &sd, 1, &sl));  // [0,1,2]
  OK(hlx_builder_constant_scalar(b, I32(), -1, &neg1));
  int64_t plo = 1, phi = 2, pin = 1;
  OK(hlx_builder_pad(b, sl, neg1, &plo, &phi, &pin, 1, &pad));
  // [-1,0,-1,1,-1,2,-1,-1]
  int32_t sv[2] = {7, 8};
  hlx_tensor_desc_t d2 = Desc(I32(), {2});
  OK(hlx_builder_constant(b, &d2, sv, &seven));
  uint32_t parts[2] = {pad, seven};
  OK(hlx_builder_concatenate(b, parts, 2, 0, &cat));  // 10 elements
  OK(hlx_builder_convert(b, cat, F32(), &cv));
  OK(hlx_builder_constant_scalar(b, F32(), -0.5, &lo));
  OK(hlx_builder_constant_scalar(b, F32(), 1.5, &hi));
  OK(hlx_builder_clamp(b, lo, cv, hi, &cl));
  // [-0.5,0,-0.5,1,-0.5,1.5,-0.5,-0.5,1.5,1.5]
  OK(hlx_builder_constant_scalar(b, F32(), 0, &zero));
  OK(hlx_builder_compare(b, HLX_COMPARE_GT, cl, zero, nullptr, 0, &gt));
  uint32_t negcl;
  OK(hlx_builder_unary(b, HLX_UNARY_NEG, cl, &negcl));
  OK(hlx_builder_select(b, gt, cl, negcl, &sel));  // |clamped|
  hlx_program_t* p = nullptr;
  OK(hlx_builder_build(b, &sel, 1, &p));
  std::vector<hlx_buffer_t*> out = RunKeep(p, {});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{0.5f, 0, 0.5f, 1, 0.5f,
                                                       1.5f, 0.5f, 0.5f, 1.5f,
                                                       1.5f}));
  ExpectPrintParses(p);
  hlx_program_destroy(p);
}

TEST(Builder, BroadcastPrependsDimensions) {
  Builder mb;
  uint32_t v = mb.F({2}, {1, 2}), r;
  int64_t sizes[1] = {3};
  OK(hlx_builder_broadcast(mb.b, v, sizes, 1, &r));
  int64_t out[2] = {2, 3}, bd[1] = {0};
  uint32_t r2;
  OK(hlx_builder_broadcast_in_dim(mb.b, v, out, 2, bd, 1, &r2));
  uint32_t roots[2] = {r, r2};
  hlx_program_t* p = nullptr;
  OK(hlx_builder_build(mb.b, roots, 2, &p));
  std::vector<hlx_buffer_t*> o = RunKeep(p, {});
  ASSERT_EQ(o.size(), 2u);
  EXPECT_EQ(Values<float>(o[0]), (std::vector<float>{1, 2, 1, 2, 1, 2}));
  EXPECT_EQ(Values<float>(o[1]), (std::vector<float>{1, 1, 1, 2, 2, 2}));
  hlx_program_destroy(p);
}

// ---- dot_general, tuples ---------------------------------------------------------------
TEST(Builder, DotGeneralWithBatchDims) {
  Builder mb;
  // lhs [2,1,3], rhs [2,3,1]: batch 0, contract lhs 2 with rhs 1 -> [2,1,1].
  uint32_t l = mb.F({2, 1, 3}, {1, 2, 3, 4, 5, 6});
  uint32_t r = mb.F({2, 3, 1}, {1, 1, 1, 1, 0, -1});
  int64_t lb = 0, rb = 0, lc = 2, rc = 1;
  uint32_t d;
  OK(hlx_builder_dot_general(mb.b, l, r, &lb, &rb, 1, &lc, &rc, 1, &d));
  hlx_tensor_desc_t desc;
  OK(hlx_builder_get_desc(mb.b, d, &desc));
  EXPECT_EQ(desc.rank, 3);
  hlx_program_t* p = nullptr;
  OK(hlx_builder_build(mb.b, &d, 1, &p));
  std::vector<hlx_buffer_t*> o = RunKeep(p, {});
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(Values<float>(o[0]), (std::vector<float>{6, -2}));
  ExpectPrintParses(p);
  hlx_program_destroy(p);
}

TEST(Builder, TupleAndGetTupleElement) {
  Builder mb;
  uint32_t a = mb.F({2}, {1, 2});
  uint32_t c = mb.Param(0, F32(), {});
  uint32_t elems[2] = {a, c}, t, e1, sum;
  OK(hlx_builder_tuple(mb.b, elems, 2, &t));
  OK(hlx_builder_get_tuple_element(mb.b, t, 1, &e1));
  sum = mb.Bin(HLX_BINARY_MUL, a, e1);
  uint32_t roots[2] = {t, sum};
  hlx_program_t* p = nullptr;
  OK(hlx_builder_build(mb.b, roots, 2, &p));
  std::vector<hlx_buffer_t*> o = RunKeep(p, {BufF({}, {3})});
  ASSERT_EQ(o.size(), 3u);  // the tuple's leaves, then sum
  EXPECT_EQ(Values<float>(o[0]), (std::vector<float>{1, 2}));
  EXPECT_EQ(Values<float>(o[1]), (std::vector<float>{3}));
  EXPECT_EQ(Values<float>(o[2]), (std::vector<float>{3, 6}));
  ExpectPrintParses(p);
  hlx_program_destroy(p);
}

TEST(Builder, OneComputationServesTwoReduces) {
  Builder mb;
  hlx_computation_t* add = BinaryComputation(HLX_BINARY_ADD, I32());
  hlx_tensor_desc_t d = Desc(I32(), {2, 3});
  uint32_t io, zero, r0, r1;
  OK(hlx_builder_iota(mb.b, &d, 1, &io));
  OK(hlx_builder_constant_scalar(mb.b, I32(), 0, &zero));
  int64_t dims0 = 0, both[2] = {0, 1};
  OK(hlx_builder_reduce(mb.b, io, zero, add, &dims0, 1, &r0));
  OK(hlx_builder_reduce(mb.b, io, zero, add, both, 2, &r1));
  hlx_computation_destroy(add);
  uint32_t roots[2] = {r0, r1};
  hlx_program_t* p = nullptr;
  OK(hlx_builder_build(mb.b, roots, 2, &p));
  std::vector<hlx_buffer_t*> o = RunKeep(p, {});
  ASSERT_EQ(o.size(), 2u);
  EXPECT_EQ(Values<int32_t>(o[0]), (std::vector<int32_t>{0, 2, 4}));
  EXPECT_EQ(Values<int32_t>(o[1]), (std::vector<int32_t>{6}));
  ExpectPrintParses(p);
  hlx_program_destroy(p);
}

// ---- error latching: one case per rule ----------------------------------------------------
struct ErrorCase {
  const char* name;
  const char* want;  // substring of the message
  // Makes the failing call on a builder holding:
  //   v[0] f32[2,3] param, v[1] f32[3] const, v[2] i32[2,3] const,
  //   v[3] f32[] const, v[4] pred[2,3] const, v[5] tuple(v[0], v[3]).
  std::function<hlx_status_t(hlx_builder_t*, const uint32_t*, uint32_t*)> call;
};

hlx_computation_t* BadComputation(int which) {
  Builder sb("bad");
  if (which == 0) {  // 3 parameters
    uint32_t a = sb.Param(0, F32(), {}), c = sb.Param(1, F32(), {});
    sb.Param(2, F32(), {});
    uint32_t r = sb.Bin(HLX_BINARY_ADD, a, c);
    hlx_computation_t* comp = nullptr;
    hlx_status_release(hlx_builder_build_computation(sb.b, &r, 1, &comp));
    return comp;
  }
  // which == 1: parameters of type i32
  uint32_t a = sb.Param(0, I32(), {}), c = sb.Param(1, I32(), {});
  uint32_t r = sb.Bin(HLX_BINARY_ADD, a, c);
  hlx_computation_t* comp = nullptr;
  hlx_status_release(hlx_builder_build_computation(sb.b, &r, 1, &comp));
  return comp;
}

const int64_t k0[] = {0}, k1[] = {1}, k2[] = {2}, k01[] = {0, 1},
              k00[] = {0, 0}, k10[] = {1, 0}, k5[] = {5}, k23[] = {2, 3},
              k_1[] = {-1};

hlx_tensor_desc_t DescOf(hlx_element_type_t t, std::vector<int64_t> dims) {
  return Desc(t, dims);
}

const ErrorCase kErrorCases[] = {
    {"UnknownValue", "add: lhs: 99 is not a value of this builder",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_binary(b, HLX_BINARY_ADD, 99, v[0], nullptr, 0, o);
     }},
    {"TupleOperand", "negate: operand must be a tensor",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_unary(b, HLX_UNARY_NEG, v[5], o);
     }},
    {"UnaryElementType", "exponential: operand element type i32 is not a float or complex type",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_unary(b, HLX_UNARY_EXP, v[2], o);
     }},
    {"UnknownUnaryOp", "unknown unary op 999",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_unary(b, (hlx_unary_op_t)999, v[0], o);
     }},
    {"BinaryElementTypesDiffer", "add: element types differ: lhs f32, rhs i32",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_binary(b, HLX_BINARY_ADD, v[0], v[2], nullptr, 0, o);
     }},
    {"BinaryElementTypeKind", "and: element type f32 is not pred or an integer type",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_binary(b, HLX_BINARY_AND, v[0], v[0], nullptr, 0, o);
     }},
    {"ComplexNeedsF32OrF64", "complex: element type i32 is not f32 or f64",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_binary(b, HLX_BINARY_COMPLEX, v[2], v[2], nullptr, 0, o);
     }},
    {"EqualRankSizesMismatch", "dimension 0: lhs has size 2, rhs has size 3",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       uint32_t t;
       hlx_status_release(hlx_builder_transpose(b, v[0], k10, 2, &t));
       return hlx_builder_binary(b, HLX_BINARY_ADD, v[0], t, nullptr, 0, o);
     }},
    {"EqualRankNonIdentityBroadcastDims", "must be empty or the identity",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_binary(b, HLX_BINARY_ADD, v[0], v[0], k10, 2, o);
     }},
    {"DifferentRanksNeedBroadcastDims", "need broadcast_dimensions unless one is a scalar",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_binary(b, HLX_BINARY_ADD, v[0], v[1], nullptr, 0, o);
     }},
    {"BroadcastDimsCount", "broadcast_dimensions has 2 entries, the lower-rank operand (rhs) has rank 1",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_binary(b, HLX_BINARY_ADD, v[0], v[1], k01, 2, o);
     }},
    {"BroadcastDimsRange", "broadcast_dimensions[0] = 2 is out of range for rank 2",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_binary(b, HLX_BINARY_ADD, v[0], v[1], k2, 1, o);
     }},
    {"BroadcastDimsIncreasing", "broadcast_dimensions must be strictly increasing",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       hlx_tensor_desc_t d = DescOf(F32(), {2, 3, 4});
       uint32_t big;
       hlx_status_release(hlx_builder_iota(b, &d, 0, &big));
       return hlx_builder_binary(b, HLX_BINARY_ADD, big, v[0], k10, 2, o);
     }},
    {"BroadcastDimsSizes", "rhs dimension 0 has size 3, mapped to dimension 0 of size 2",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_binary(b, HLX_BINARY_ADD, v[0], v[1], k0, 1, o);
     }},
    {"CompareElementTypes", "compare: element types differ",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_compare(b, HLX_COMPARE_EQ, v[0], v[2], nullptr, 0, o);
     }},
    {"CompareDirection", "compare: unknown comparison direction 9",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_compare(b, (hlx_comparison_direction_t)9, v[0], v[0], nullptr, 0, o);
     }},
    {"SelectPredType", "select: pred must have element type i1, not f32",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_select(b, v[0], v[0], v[0], o);
     }},
    {"SelectBranchTypes", "select: on_true f32[2,3] and on_false i32[2,3] must have the same type",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_select(b, v[4], v[0], v[2], o);
     }},
    {"SelectPredShape", "select: pred must be rank 0 or have on_true's shape",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_select(b, v[4], v[1], v[1], o);
     }},
    {"ClampElementType", "clamp: min element type i32 differs from operand's f32",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_clamp(b, v[2], v[0], v[3], o);
     }},
    {"ClampShape", "clamp: max must be rank 0 or have the operand's shape",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_clamp(b, v[3], v[0], v[1], o);
     }},
    {"ConvertType", "convert: unknown element type 1000",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_convert(b, v[0], 1000, o);
     }},
    {"ReshapeCount", "reshape: element count changes: operand has 6 elements, the new shape 5",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_reshape(b, v[0], k5, 1, o);
     }},
    {"TransposeLength", "transpose: permutation has 1 entries, the operand has rank 2",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_transpose(b, v[0], k0, 1, o);
     }},
    {"TransposeNotPermutation", "transpose: permutation is not a permutation of 0..1",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_transpose(b, v[0], k00, 2, o);
     }},
    {"BroadcastInDimCount", "broadcast_in_dim: broadcast_dimensions has 2 entries, the operand has rank 1",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_broadcast_in_dim(b, v[1], k23, 2, k01, 2, o);
     }},
    {"BroadcastInDimRange", "broadcast_in_dim: broadcast_dimensions[0] = 2 is out of range",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_broadcast_in_dim(b, v[1], k23, 2, k2, 1, o);
     }},
    {"BroadcastInDimTwice", "broadcast_in_dim: broadcast_dimensions has 0 twice",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_broadcast_in_dim(b, v[0], k23, 2, k00, 2, o);
     }},
    {"BroadcastInDimSize", "broadcast_in_dim: operand dimension 0 has size 3; it must be 1 or the result's size 2",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_broadcast_in_dim(b, v[1], k23, 2, k0, 1, o);
     }},
    {"SliceBounds", "slice: dimension 0: need 0 <= start (0) <= limit (5) <= size (3)",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_slice(b, v[1], k0, k5, nullptr, 1, o);
     }},
    {"SliceStride", "slice: stride 0 is -1; strides must be >= 1",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_slice(b, v[1], k0, k1, k_1, 1, o);
     }},
    {"SliceRank", "slice: start/limit have 1 entries, the operand has rank 2",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_slice(b, v[0], k0, k1, nullptr, 1, o);
     }},
    {"ConcatenateDimension", "concatenate: dimension 2 is out of range for rank 2",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       uint32_t ops[2] = {v[0], v[0]};
       return hlx_builder_concatenate(b, ops, 2, 2, o);
     }},
    {"ConcatenateElementType", "concatenate: operand 1 has element type i32, operand 0 has f32",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       uint32_t ops[2] = {v[0], v[2]};
       return hlx_builder_concatenate(b, ops, 2, 0, o);
     }},
    {"ConcatenateRank", "concatenate: operand 1 has rank 1, operand 0 has rank 2",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       uint32_t ops[2] = {v[0], v[1]};
       return hlx_builder_concatenate(b, ops, 2, 0, o);
     }},
    {"ConcatenateSizes", "concatenate: operand 1 dimension 0 has size 3, operand 0 has 2",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       uint32_t t;
       hlx_status_release(hlx_builder_transpose(b, v[0], k10, 2, &t));
       uint32_t ops[2] = {v[0], t};
       return hlx_builder_concatenate(b, ops, 2, 1, o);
     }},
    {"PadValueRank", "pad: padding_value must be rank 0, it has rank 1",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_pad(b, v[1], v[1], k0, k0, nullptr, 1, o);
     }},
    {"PadValueType", "pad: padding_value element type f32 differs from operand's i32",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_pad(b, v[2], v[3], k00, k00, nullptr, 2, o);
     }},
    {"PadInteriorNegative", "pad: interior padding 0 is negative (-1)",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_pad(b, v[1], v[3], k0, k0, k_1, 1, o);
     }},
    {"PadNegativeSize", "pad: dimension 0 would have negative size -2",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       const int64_t lo[] = {-5};
       return hlx_builder_pad(b, v[1], v[3], lo, k0, nullptr, 1, o);
     }},
    {"IotaDimension", "iota: iota_dimension 2 is out of range for rank 2",
     [](hlx_builder_t* b, const uint32_t*, uint32_t* o) {
       hlx_tensor_desc_t d = DescOf(F32(), {2, 3});
       return hlx_builder_iota(b, &d, 2, o);
     }},
    {"ReduceInit", "reduce: init must be a rank-0 f32",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       hlx_computation_t* add = BinaryComputation(HLX_BINARY_ADD, F32());
       hlx_status_t s = hlx_builder_reduce(b, v[0], v[1], add, k0, 1, o);
       hlx_computation_destroy(add);
       return s;
     }},
    {"ReduceCombinerArity", "reduce: the combiner must take 2 parameters and return 1 value (it takes 3",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       hlx_computation_t* c = BadComputation(0);
       hlx_status_t s = hlx_builder_reduce(b, v[0], v[3], c, k0, 1, o);
       hlx_computation_destroy(c);
       return s;
     }},
    {"ReduceCombinerTypes", "reduce: combiner parameter 0 must be a rank-0 f32",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       hlx_computation_t* c = BadComputation(1);
       hlx_status_t s = hlx_builder_reduce(b, v[0], v[3], c, k0, 1, o);
       hlx_computation_destroy(c);
       return s;
     }},
    {"ReduceDimensionTwice", "reduce: dimension 0 appears twice",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       hlx_computation_t* add = BinaryComputation(HLX_BINARY_ADD, F32());
       hlx_status_t s = hlx_builder_reduce(b, v[0], v[3], add, k00, 2, o);
       hlx_computation_destroy(add);
       return s;
     }},
    {"ReduceDimensionRange", "reduce: dimension 2 is out of range for rank 2",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       hlx_computation_t* add = BinaryComputation(HLX_BINARY_ADD, F32());
       hlx_status_t s = hlx_builder_reduce(b, v[0], v[3], add, k2, 1, o);
       hlx_computation_destroy(add);
       return s;
     }},
    {"ReduceNullCombiner", "reduce: NULL combiner computation",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_reduce(b, v[0], v[3], nullptr, k0, 1, o);
     }},
    {"DotRank", "dot: operands must have rank 1 or 2 (lhs 0, rhs 1)",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_dot(b, v[3], v[1], o);
     }},
    {"DotContractingSize", "stablehlo.dot_general: (C10) lhs contracting dim 1 has size 3, rhs dim 0 has 2",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_dot(b, v[0], v[0], o);
     }},
    {"DotElementTypes", "stablehlo.dot_general: (C13) lhs has element type f32, rhs i32",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_dot(b, v[0], v[2], o);
     }},
    {"DotGeneralBatchSize", "stablehlo.dot_general: (C9) lhs batching dim 0 has size 2, rhs dim 1 has 3",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_dot_general(b, v[0], v[0], k0, k1, 1, nullptr, nullptr, 0, o);
     }},
    {"DotGeneralDimTwice", "stablehlo.dot_general: (C3) lhs dimension 0 appears twice",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_dot_general(b, v[0], v[0], k0, k0, 1, k0, k1, 1, o);
     }},
    {"DotGeneralDimRange", "stablehlo.dot_general: (C8) rhs_contracting_dimensions has 2, out of range for rank 2",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_dot_general(b, v[0], v[0], nullptr, nullptr, 0, k1, k2, 1, o);
     }},
    {"GetTupleElementNotTuple", "get_tuple_element: operand must be a tuple",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_get_tuple_element(b, v[0], 0, o);
     }},
    {"GetTupleElementIndex", "get_tuple_element: index 2 is out of range for a tuple of 2 elements",
     [](hlx_builder_t* b, const uint32_t* v, uint32_t* o) {
       return hlx_builder_get_tuple_element(b, v[5], 2, o);
     }},
    {"ParameterTwice", "parameter: index 0 is declared twice",
     [](hlx_builder_t* b, const uint32_t*, uint32_t* o) {
       hlx_tensor_desc_t d = DescOf(F32(), {});
       return hlx_builder_parameter(b, 0, &d, nullptr, o);
     }},
    {"ParameterNegativeDim", "parameter: dimension 1 has negative size -3",
     [](hlx_builder_t* b, const uint32_t*, uint32_t* o) {
       hlx_tensor_desc_t d = DescOf(F32(), {2, -3});
       return hlx_builder_parameter(b, 1, &d, nullptr, o);
     }},
    {"ParameterRank", "parameter: rank 17 is out of range 0..16",
     [](hlx_builder_t* b, const uint32_t*, uint32_t* o) {
       hlx_tensor_desc_t d = DescOf(F32(), {});
       d.rank = 17;
       return hlx_builder_parameter(b, 1, &d, nullptr, o);
     }},
    {"ConstantNullData", "constant: data is NULL for 3 elements",
     [](hlx_builder_t* b, const uint32_t*, uint32_t* o) {
       hlx_tensor_desc_t d = DescOf(F32(), {3});
       return hlx_builder_constant(b, &d, nullptr, o);
     }},
};

class BuilderError : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(BuilderError, IsLatchedAndReturnedByBuild) {
  const ErrorCase& c = GetParam();
  Builder mb;
  hlx_builder_t* b = mb.b;
  uint32_t v[6];
  v[0] = mb.Param(0, F32(), {2, 3});
  v[1] = mb.F({3}, {1, 2, 3});
  hlx_tensor_desc_t di = Desc(I32(), {2, 3});
  int32_t iv[6] = {1, 2, 3, 4, 5, 6};
  OK(hlx_builder_constant(b, &di, iv, &v[2]));
  v[3] = mb.F({}, {0});
  hlx_tensor_desc_t dp = Desc(Pred(), {2, 3});
  uint8_t pv[6] = {1, 0, 1, 0, 1, 0};
  OK(hlx_builder_constant(b, &dp, pv, &v[4]));
  uint32_t te[2] = {v[0], v[3]};
  OK(hlx_builder_tuple(b, te, 2, &v[5]));

  uint32_t out = 0;
  hlx_status_t s = c.call(b, v, &out);
  ASSERT_NE(s, nullptr) << c.name;
  EXPECT_EQ(hlx_status_get_code(s), 1);  // INVALID_ARGUMENT
  std::string first = Msg(s);
  EXPECT_NE(first.find(c.want), std::string::npos) << first;
  EXPECT_EQ(out, HLX_BUILDER_NO_VALUE);

  // Later calls are no-ops returning the first error.
  uint32_t later = 0;
  EXPECT_EQ(Msg(hlx_builder_unary(b, HLX_UNARY_NEG, v[0], &later)), first);
  EXPECT_EQ(later, HLX_BUILDER_NO_VALUE);
  EXPECT_EQ(Msg(hlx_builder_first_error(b)), first);
  hlx_program_t* p = nullptr;
  EXPECT_EQ(Msg(hlx_builder_build(b, &v[0], 1, &p)), first);
  EXPECT_EQ(p, nullptr);
}

INSTANTIATE_TEST_SUITE_P(Rules, BuilderError, ::testing::ValuesIn(kErrorCases),
                         [](const ::testing::TestParamInfo<ErrorCase>& i) {
                           return std::string(i.param.name);
                         });

TEST(BuilderBuild, MissingParameterIsAnError) {
  Builder mb;
  uint32_t x = mb.Param(1, F32(), {2});
  hlx_program_t* p = nullptr;
  std::string m = Msg(hlx_builder_build(mb.b, &x, 1, &p));
  EXPECT_NE(m.find("build: parameter 0 is missing"), std::string::npos) << m;
  EXPECT_EQ(p, nullptr);
}

TEST(BuilderBuild, NoRootsIsAnError) {
  Builder mb;
  hlx_program_t* p = nullptr;
  std::string m = Msg(hlx_builder_build(mb.b, nullptr, 0, &p));
  EXPECT_NE(m.find("build: at least one root value is needed"), std::string::npos) << m;
}

TEST(BuilderBuild, UnknownRootIsAnError) {
  Builder mb;
  uint32_t bad = 7;
  hlx_program_t* p = nullptr;
  std::string m = Msg(hlx_builder_build(mb.b, &bad, 1, &p));
  EXPECT_NE(m.find("build: root 0: 7 is not a value of this builder"),
            std::string::npos) << m;
}

TEST(BuilderBuild, NullBuilderIsAnErrorNotACrash) {
  uint32_t v = 0;
  std::string m = Msg(hlx_builder_unary(nullptr, HLX_UNARY_NEG, 0, &v));
  EXPECT_NE(m.find("NULL builder"), std::string::npos);
  EXPECT_EQ(v, HLX_BUILDER_NO_VALUE);
  hlx_builder_destroy(nullptr);
  hlx_computation_destroy(nullptr);
}

}  // namespace
