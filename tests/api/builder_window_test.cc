// Builder ReduceWindow and SelectAndScatter (api/hlx_builder_ops.h): built,
// run, values checked (XLA operation semantics' worked examples), one
// error test per shape rule.
#include <algorithm>
#include <cfloat>
#include <memory>

#include "tests/api/builder_testing.h"

namespace {
using namespace hlx_test;
using Comp = std::unique_ptr<hlx_computation_t, ComputationDeleter>;

// XLA text: ReduceWindow of f32[4x6] with max, window and strides [2x3],
// VALID -> f32[2x2] of the window maxima.
TEST(BuilderReduceWindow, Max2x3Valid) {
  Builder bb;
  Comp max(BinaryComputation(HLX_BINARY_MAX, F32()));
  uint32_t x = bb.Param(0, F32(), {4, 6});
  uint32_t init = bb.Scalar(F32(), -FLT_MAX);
  int64_t win[2] = {2, 3}, str[2] = {2, 3};
  uint32_t r;
  BOK(hlx_builder_reduce_window(bb.b, x, init, max.get(), win, str,
                                HLX_PADDING_VALID, &r));
  EXPECT_EQ(Dims(bb.b, r), (std::vector<int64_t>{2, 2}));
  std::vector<float> in(24);
  for (int i = 0; i < 24; i++) in[i] = (float)((i * 7) % 24);
  hlx_program_t* p = bb.Program({r});
  ExpectPrintParses(p);
  std::vector<float> got = RunOne<float>(p, {Buf(F32(), {4, 6}, in.data())});
  std::vector<float> want(4, -FLT_MAX);
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 6; j++)
      want[(i / 2) * 2 + j / 3] = std::max(want[(i / 2) * 2 + j / 3], in[i * 6 + j]);
  EXPECT_EQ(got, want);
}

// XLA text: min over [10000, 1000, 100, 10, 1], window 3, stride 2:
// VALID -> [100, 1]; SAME -> [1000, 10, 1].
TEST(BuilderReduceWindow, MinValidAndSamePaddingExample) {
  for (hlx_padding_t pad : {HLX_PADDING_VALID, HLX_PADDING_SAME}) {
    Builder bb;
    Comp min(BinaryComputation(HLX_BINARY_MIN, F32()));
    uint32_t x = bb.F({5}, {10000, 1000, 100, 10, 1});
    uint32_t init = bb.Scalar(F32(), FLT_MAX);
    int64_t win = 3, str = 2;
    uint32_t r;
    BOK(hlx_builder_reduce_window(bb.b, x, init, min.get(), &win, &str, pad, &r));
    std::vector<float> got = RunOne<float>(bb.Program({r}));
    if (pad == HLX_PADDING_VALID)
      EXPECT_EQ(got, (std::vector<float>{100, 1}));
    else
      EXPECT_EQ(got, (std::vector<float>{1000, 10, 1}));
  }
}

// General padding and dilations: sum over windows of 2 with window
// dilation 2, base dilation 2 and padding (1, 1) of [1, 2, 3].
TEST(BuilderReduceWindow, GeneralPaddingAndDilations) {
  Builder bb;
  Comp add(BinaryComputation(HLX_BINARY_ADD, F32()));
  uint32_t x = bb.F({3}, {1, 2, 3});
  uint32_t init = bb.Scalar(F32(), 0);
  int64_t win = 2, str = 1, bd = 2, wd = 2, pad[2] = {1, 1};
  uint32_t r;
  BOK(hlx_builder_reduce_window_general(bb.b, x, init, add.get(), &win, &str,
                                        &bd, &wd, pad, &r));
  // base-dilated, padded: [0, 1, 0, 2, 0, 3, 0]; windows {i, i+2}: 5 of them.
  EXPECT_EQ(RunOne<float>(bb.Program({r})),
            (std::vector<float>{0, 3, 0, 5, 0}));
}

// Variadic: the max and its index over windows of 2 with stride 2.
TEST(BuilderReduceWindow, VariadicMaxAndArgmax) {
  Comp f;
  {
    Builder sb("argmax");
    uint32_t m = sb.Param(0, F32(), {}), am = sb.Param(1, I32(), {});
    uint32_t v = sb.Param(2, F32(), {}), k = sb.Param(3, I32(), {});
    uint32_t gt = sb.Cmp(HLX_COMPARE_GT, v, m), nm, nk;
    BOK(hlx_builder_select(sb.b, gt, v, m, &nm));
    BOK(hlx_builder_select(sb.b, gt, k, am, &nk));
    f.reset(sb.Computation({nm, nk}));
  }
  Builder bb;
  uint32_t ops[2] = {bb.F({6}, {3, 7, 9, 1, 4, 4}), bb.I({6}, {0, 1, 2, 3, 4, 5})};
  uint32_t inits[2] = {bb.Scalar(F32(), -FLT_MAX), bb.Scalar(I32(), -1)}, t;
  int64_t win = 2, str = 2;
  BOK(hlx_builder_reduce_window_variadic(bb.b, ops, inits, 2, f.get(), &win,
                                         &str, nullptr, nullptr, nullptr, &t));
  hlx_program_t* p = bb.Program({bb.Gte(t, 0), bb.Gte(t, 1)});
  ExpectPrintParses(p);
  std::vector<hlx_buffer_t*> out = RunAll(p);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{7, 9, 4}));
  EXPECT_EQ(Values<int32_t>(out[1]), (std::vector<int32_t>{1, 2, 4}));
}

// StableHLO spec example of select_and_scatter (GE select, add scatter).
TEST(BuilderSelectAndScatter, SpecExample) {
  Builder bb;
  Comp ge(CompareComputation(HLX_COMPARE_GE, I32()));
  Comp add(BinaryComputation(HLX_BINARY_ADD, I32()));
  uint32_t x = bb.I({4, 2}, {1, 5, 2, 5, 3, 6, 4, 4});
  uint32_t src = bb.I({2, 2}, {5, 6, 7, 8});
  uint32_t init = bb.Scalar(I32(), 0);
  int64_t win[2] = {3, 1}, str[2] = {2, 1}, pad[4] = {0, 1, 0, 0};
  uint32_t r;
  BOK(hlx_builder_select_and_scatter(bb.b, x, ge.get(), win, str, pad, src,
                                     init, add.get(), &r));
  hlx_program_t* p = bb.Program({r});
  ExpectPrintParses(p);
  EXPECT_EQ(RunOne<int32_t>(p),
            (std::vector<int32_t>{0, 0, 0, 0, 5, 14, 7, 0}));
}

TEST(BuilderWindowErrors, EachRuleIsLatched) {
  Comp add(BinaryComputation(HLX_BINARY_ADD, F32()));
  Comp addi(BinaryComputation(HLX_BINARY_ADD, I32()));
  Comp ge(CompareComputation(HLX_COMPARE_GE, F32()));
  int64_t w2[2] = {2, 2}, s2[2] = {1, 1}, bad0[2] = {0, 1};
  uint32_t r;
  {
    Builder bb;
    uint32_t x = bb.F({2, 2}, {1, 2, 3, 4}), i = bb.Scalar(I32(), 0);
    ExpectLatched(bb, hlx_builder_reduce_window(bb.b, x, i, add.get(), w2, s2,
                                                HLX_PADDING_VALID, &r),
                  "reduce_window: init must be a rank-0 f32");
  }
  {
    Builder bb;
    uint32_t x = bb.F({2, 2}, {1, 2, 3, 4}), i = bb.Scalar(F32(), 0);
    ExpectLatched(bb, hlx_builder_reduce_window(bb.b, x, i, addi.get(), w2, s2,
                                                HLX_PADDING_VALID, &r),
                  "reduce_window: computation parameter 0 must be a rank-0 f32");
  }
  {
    Builder bb;
    uint32_t x = bb.F({2, 2}, {1, 2, 3, 4}), i = bb.Scalar(F32(), 0);
    ExpectLatched(bb, hlx_builder_reduce_window(bb.b, x, i, add.get(), bad0, s2,
                                                HLX_PADDING_VALID, &r),
                  "reduce_window: window dimension 0 is 0, must be >= 1");
  }
  {
    Builder bb;
    uint32_t x = bb.F({2, 2}, {1, 2, 3, 4}), i = bb.Scalar(F32(), 0);
    ExpectLatched(bb, hlx_builder_reduce_window(bb.b, x, i, add.get(), w2, bad0,
                                                HLX_PADDING_VALID, &r),
                  "reduce_window: window stride 0 is 0, must be >= 1");
  }
  {
    Builder bb;
    uint32_t x = bb.F({2, 2}, {1, 2, 3, 4}), i = bb.Scalar(F32(), 0);
    ExpectLatched(bb, hlx_builder_reduce_window_general(bb.b, x, i, add.get(),
                                                        w2, s2, bad0, nullptr,
                                                        nullptr, &r),
                  "reduce_window: dilation of dimension 0 must be >= 1");
  }
  {
    Builder bb;
    uint32_t x = bb.F({2, 2}, {1, 2, 3, 4}), i = bb.Scalar(F32(), 0);
    ExpectLatched(bb, hlx_builder_reduce_window(bb.b, x, i, add.get(), w2, s2,
                                                (hlx_padding_t)7, &r),
                  "reduce_window: padding must be HLX_PADDING_VALID or _SAME");
  }
  {
    Builder bb;
    uint32_t ops[2] = {bb.F({2, 2}, {1, 2, 3, 4}), bb.F({2}, {1, 2})};
    uint32_t inits[2] = {bb.Scalar(F32(), 0), bb.Scalar(F32(), 0)};
    ExpectLatched(bb, hlx_builder_reduce_window_variadic(bb.b, ops, inits, 2,
                                                         add.get(), w2, s2,
                                                         nullptr, nullptr,
                                                         nullptr, &r),
                  "reduce_window: operand 1 has another shape than operand 0");
  }
  {
    Builder bb;
    uint32_t ops[2] = {bb.F({2, 2}, {1, 2, 3, 4}), bb.F({2, 2}, {1, 2, 3, 4})};
    uint32_t inits[2] = {bb.Scalar(F32(), 0), bb.Scalar(F32(), 0)};
    ExpectLatched(bb, hlx_builder_reduce_window_variadic(bb.b, ops, inits, 2,
                                                         add.get(), w2, s2,
                                                         nullptr, nullptr,
                                                         nullptr, &r),
                  "reduce_window: the computation must take 4 parameters and "
                  "return 2 values (it takes 2, returns 1)");
  }
  {
    Builder bb;
    uint32_t x = bb.F({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
    uint32_t src = bb.F({3, 1}, {1, 2, 3}), i = bb.Scalar(F32(), 0);
    ExpectLatched(bb, hlx_builder_select_and_scatter(bb.b, x, ge.get(), w2, w2,
                                                     nullptr, src, i, add.get(),
                                                     &r),
                  "select_and_scatter: source dimension 0 has size 3, but "
                  "there are 2 windows");
  }
  {
    Builder bb;
    uint32_t x = bb.F({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
    uint32_t src = bb.F({2, 1}, {1, 2}), i = bb.Scalar(F32(), 0);
    ExpectLatched(bb, hlx_builder_select_and_scatter(bb.b, x, add.get(), w2, w2,
                                                     nullptr, src, i, add.get(),
                                                     &r),
                  "select_and_scatter: the select must return a rank-0 i1");
  }
  {
    Builder bb;
    uint32_t x = bb.F({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
    uint32_t src = bb.I({2, 1}, {1, 2}), i = bb.Scalar(F32(), 0);
    ExpectLatched(bb, hlx_builder_select_and_scatter(bb.b, x, ge.get(), w2, w2,
                                                     nullptr, src, i, add.get(),
                                                     &r),
                  "select_and_scatter: source and init (rank 0) must have");
  }
}

}  // namespace
