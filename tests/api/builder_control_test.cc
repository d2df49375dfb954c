// Builder While, Conditional (if and case) and Call (api/hlx_builder_ops.h):
// built, run, values checked (the XLA text's While example), one error
// test per shape rule.
#include <functional>
#include <memory>

#include "tests/api/builder_testing.h"

namespace {
using namespace hlx_test;
using Comp = std::unique_ptr<hlx_computation_t, ComputationDeleter>;

// XLA text: init = {0, zero_vector[10]}; while (result(0) < 1000)
// {iteration + 1, vector + constant_vector[10]}.
TEST(BuilderWhile, CounterAndAccumulatorExample) {
  Comp cond, body;
  {
    Builder sb("cond");
    uint32_t i = sb.Param(0, I32(), {});
    sb.Param(1, F32(), {10});
    cond.reset(sb.Computation({sb.Cmp(HLX_COMPARE_LT, i, sb.Scalar(I32(), 1000))}));
  }
  {
    Builder sb("body");
    uint32_t i = sb.Param(0, I32(), {}), v = sb.Param(1, F32(), {10});
    std::vector<float> c(10);
    for (int k = 0; k < 10; k++) c[k] = 0.5f * (float)k;
    uint32_t ni = sb.Bin(HLX_BINARY_ADD, i, sb.Scalar(I32(), 1));
    uint32_t nv = sb.Bin(HLX_BINARY_ADD, v, sb.F({10}, c));
    body.reset(sb.Computation({ni, nv}));
  }
  Builder bb;
  uint32_t init[2] = {bb.Scalar(I32(), 0), bb.F({10}, std::vector<float>(10, 0.f))};
  uint32_t t;
  BOK(hlx_builder_while(bb.b, cond.get(), body.get(), init, 2, &t));
  hlx_program_t* p = bb.Program({bb.Gte(t, 0), bb.Gte(t, 1)});
  ExpectPrintParses(p);
  std::vector<hlx_buffer_t*> out = RunAll(p);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Values<int32_t>(out[0]), (std::vector<int32_t>{1000}));
  std::vector<float> want(10);
  for (int k = 0; k < 10; k++) want[k] = 500.f * (float)k;
  EXPECT_EQ(Values<float>(out[1]), want);
}

TEST(BuilderWhile, SingleValue) {
  Comp cond, body;
  {
    Builder sb("cond");
    uint32_t x = sb.Param(0, F32(), {});
    cond.reset(sb.Computation({sb.Cmp(HLX_COMPARE_LT, x, sb.Scalar(F32(), 100))}));
  }
  {
    Builder sb("body");
    uint32_t x = sb.Param(0, F32(), {});
    body.reset(sb.Computation({sb.Bin(HLX_BINARY_MUL, x, sb.Scalar(F32(), 3))}));
  }
  Builder bb;
  uint32_t x = bb.Param(0, F32(), {}), r;
  BOK(hlx_builder_while(bb.b, cond.get(), body.get(), &x, 1, &r));
  float one = 1;
  EXPECT_EQ(RunOne<float>(bb.Program({r}), {Buf(F32(), {}, &one)}),
            (std::vector<float>{243}));
}

// (x) -> x * k over f32[2].
hlx_computation_t* Scale(float k) {
  Builder sb("scale");
  uint32_t x = sb.Param(0, F32(), {2});
  return sb.Computation({sb.Bin(HLX_BINARY_MUL, x, sb.F({2}, {k, k}))});
}

TEST(BuilderConditional, IfRunsOneBranchWithItsOperand) {
  Comp neg;
  {
    Builder sb("neg");
    uint32_t x = sb.Param(0, F32(), {2});
    uint32_t r;
    BOK(hlx_builder_unary(sb.b, HLX_UNARY_NEG, x, &r));
    neg.reset(sb.Computation({r}));
  }
  Comp twice(Scale(2));
  for (bool pv : {true, false}) {
    Builder bb;
    uint32_t pred = bb.Param(0, Pred(), {});
    uint32_t a = bb.F({2}, {1, 2}), c = bb.F({2}, {10, 20}), r;
    BOK(hlx_builder_conditional(bb.b, pred, a, twice.get(), c, neg.get(), &r));
    hlx_program_t* p = bb.Program({r});
    if (pv) ExpectPrintParses(p);
    uint8_t pb = pv ? 1 : 0;
    EXPECT_EQ(RunOne<float>(p, {Buf(Pred(), {}, &pb)}),
              pv ? (std::vector<float>{2, 4}) : (std::vector<float>{-10, -20}));
  }
}

// XLA text: branch_index < 0 or >= N runs the last branch.
TEST(BuilderConditional, CaseOutOfRangeRunsTheLastBranch) {
  Comp s1(Scale(1)), s2(Scale(2)), s3(Scale(3));
  const hlx_computation_t* br[3] = {s1.get(), s2.get(), s3.get()};
  for (int32_t idx : {0, 1, 2, 3, -1}) {
    Builder bb;
    uint32_t i = bb.Param(0, I32(), {});
    uint32_t ops[3] = {bb.F({2}, {1, 1}), bb.F({2}, {2, 2}), bb.F({2}, {5, 5})};
    uint32_t r;
    BOK(hlx_builder_case(bb.b, i, br, ops, 3, &r));
    float want = idx == 0 ? 1 : idx == 1 ? 4 : 15;
    EXPECT_EQ(RunOne<float>(bb.Program({r}), {Buf(I32(), {}, &idx)}),
              (std::vector<float>{want, want})) << idx;
  }
}

TEST(BuilderCall, InlinesTheComputationAnyArity) {
  Comp f, g;
  {
    Builder sb("f");
    uint32_t x = sb.Param(0, F32(), {2}), y = sb.Param(1, F32(), {2});
    f.reset(sb.Computation({sb.Bin(HLX_BINARY_SUB, x, y), x}));
  }
  {
    Builder sb("g");  // no parameters
    g.reset(sb.Computation({sb.F({1}, {42})}));
  }
  Builder bb;
  uint32_t ops[2] = {bb.F({2}, {5, 7}), bb.F({2}, {1, 2})}, t, c;
  BOK(hlx_builder_call(bb.b, f.get(), ops, 2, &t));
  BOK(hlx_builder_call(bb.b, g.get(), nullptr, 0, &c));
  hlx_program_t* p = bb.Program({bb.Gte(t, 0), bb.Gte(t, 1), c});
  ExpectPrintParses(p);
  std::vector<hlx_buffer_t*> out = RunAll(p);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{4, 5}));
  EXPECT_EQ(Values<float>(out[1]), (std::vector<float>{5, 7}));
  EXPECT_EQ(Values<float>(out[2]), (std::vector<float>{42}));
}

TEST(BuilderControlErrors, EachRuleIsLatched) {
  Comp s2(Scale(2));
  Comp cond_f;  // f32[2] -> f32 (not pred)
  {
    Builder sb("c");
    sb.Param(0, F32(), {2});
    cond_f.reset(sb.Computation({sb.Scalar(F32(), 0)}));
  }
  Comp cond_p;  // f32[2] -> pred[]
  {
    Builder sb("c");
    sb.Param(0, F32(), {2});
    cond_p.reset(sb.Computation(
        {sb.Cmp(HLX_COMPARE_LT, sb.Scalar(F32(), 0), sb.Scalar(F32(), 1))}));
  }
  Comp two_out;  // f32[2] -> (f32[2], f32[2])
  {
    Builder sb("t");
    uint32_t x = sb.Param(0, F32(), {2});
    two_out.reset(sb.Computation({x, x}));
  }
  auto check = [](std::function<hlx_status_t(Builder&, uint32_t, uint32_t*)> f,
                  const char* want) {
    Builder bb;
    uint32_t x = bb.F({2}, {1, 2}), out;
    ExpectLatched(bb, f(bb, x, &out), want);
  };
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    return hlx_builder_while(bb.b, s2.get(), s2.get(), &x, 1, o);
  }, "while: the condition must return one pred[]");
  check([&](Builder& bb, uint32_t, uint32_t* o) {
    uint32_t y = bb.F({3}, {1, 2, 3});
    return hlx_builder_while(bb.b, cond_f.get(), s2.get(), &y, 1, o);
  }, "while: condition parameter 0 does not have the type of operand 0");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    return hlx_builder_while(bb.b, cond_p.get(), two_out.get(), &x, 1, o);
  }, "while: the body returns 2 values, the loop has 1");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    uint32_t ops[2] = {x, x};
    return hlx_builder_while(bb.b, cond_f.get(), s2.get(), ops, 2, o);
  }, "while: the condition takes 1 parameters, but there are 2 operands");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    return hlx_builder_while(bb.b, cond_f.get(), s2.get(), &x, 0, o);
  }, "while: needs 1 to 64 loop values, got 0");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    return hlx_builder_conditional(bb.b, x, x, s2.get(), x, s2.get(), o);
  }, "conditional: pred must be a pred[] (rank-0 boolean)");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    uint8_t t = 1;
    hlx_tensor_desc_t d = Desc(Pred(), {});
    uint32_t p;
    BOK(hlx_builder_constant(bb.b, &d, &t, &p));
    return hlx_builder_conditional(bb.b, p, x, s2.get(), x, two_out.get(), o);
  }, "conditional: branch 1 returns other types than branch 0");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    uint32_t i = bb.Scalar(F32(), 0);
    const hlx_computation_t* br[1] = {s2.get()};
    return hlx_builder_case(bb.b, i, br, &x, 1, o);
  }, "case: branch_index must be an s32[] (rank-0 i32)");
  check([&](Builder& bb, uint32_t, uint32_t* o) {
    uint32_t i = bb.Scalar(I32(), 0), y = bb.F({1}, {1});
    const hlx_computation_t* br[1] = {s2.get()};
    return hlx_builder_case(bb.b, i, br, &y, 1, o);
  }, "case: branch 0 parameter 0 does not have the type of operand 0");
  check([&](Builder& bb, uint32_t, uint32_t* o) {
    uint32_t i = bb.Scalar(I32(), 0);
    return hlx_builder_case(bb.b, i, nullptr, nullptr, 0, o);
  }, "case: needs at least one branch");
  check([&](Builder& bb, uint32_t x, uint32_t* o) {
    uint32_t ops[2] = {x, x};
    return hlx_builder_call(bb.b, s2.get(), ops, 2, o);
  }, "call: the computation takes 1 parameters, but there are 2 operands");
}

}  // namespace
