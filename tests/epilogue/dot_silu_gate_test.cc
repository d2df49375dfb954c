// The transformer MLP's silu as a matmul post-op
// (graph/lower/opt/epilogue.c): up = x W1 followed by a call of a silu function
// (x * 1/(1 + exp(-x)) as jax exports it, or x * logistic(x)) becomes one
// task "dot_general+epilogue(swish)"; gate = x W2 and silu(up) * gate stay
// apart (a whole-tensor binary post-op costs oneDNN more than the pass).
// Checked against the plan without
// epilogues (HLX_NO_EPILOGUE=1) on random inputs: oneDNN's swish rounds
// its own way, so within 1e-5 of the largest magnitude, not bitwise.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tests/epilogue/plan_harness.h"

namespace {

// x * n / (1 + exp(-x)): silu as jax exports it when n is 1.
std::string SiluJax(const char* n) {
  return std::string(R"(
  func.func private @silu(%a: tensor<2x40x128xf32>) -> tensor<2x40x128xf32> {
    %c = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %n = stablehlo.constant dense<)") + n + R"(> : tensor<f32>
    %0 = stablehlo.negate %a : tensor<2x40x128xf32>
    %1 = stablehlo.exponential %0 : tensor<2x40x128xf32>
    %2 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<2x40x128xf32>
    %3 = stablehlo.add %2, %1 : tensor<2x40x128xf32>
    %4 = stablehlo.broadcast_in_dim %n, dims = [] : (tensor<f32>) -> tensor<2x40x128xf32>
    %5 = stablehlo.divide %4, %3 : tensor<2x40x128xf32>
    %6 = stablehlo.multiply %a, %5 : tensor<2x40x128xf32>
    return %6 : tensor<2x40x128xf32>
  })";
}

const char* kSiluLogistic = R"(
  func.func private @silu(%a: tensor<2x40x128xf32>) -> tensor<2x40x128xf32> {
    %0 = stablehlo.logistic %a : tensor<2x40x128xf32>
    %1 = stablehlo.multiply %0, %a : tensor<2x40x128xf32>
    return %1 : tensor<2x40x128xf32>
  })";

std::string Mlp(const std::string& silu) {
  return std::string("module {\n") + R"(
  func.func @main(%x: tensor<2x40x64xf32>, %w1: tensor<64x128xf32>, %w2: tensor<64x128xf32>) -> tensor<2x40x128xf32> {
    %0 = stablehlo.dot_general %x, %w1, contracting_dims = [2] x [0] : (tensor<2x40x64xf32>, tensor<64x128xf32>) -> tensor<2x40x128xf32>
    %1 = stablehlo.dot_general %x, %w2, contracting_dims = [2] x [0] : (tensor<2x40x64xf32>, tensor<64x128xf32>) -> tensor<2x40x128xf32>
    %2 = call @silu(%0) : (tensor<2x40x128xf32>) -> tensor<2x40x128xf32>
    %3 = stablehlo.multiply %2, %1 : tensor<2x40x128xf32>
    return %3 : tensor<2x40x128xf32>
  })" + silu + "\n}\n";
}

std::vector<float> Random(size_t n, unsigned seed, float scale) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(-scale, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

// Runs the fused and the epilogue-free plans of text on the same inputs;
// returns max |fused - plain| / max |plain|.
double Compare(const std::string& text, const hlx_plan_t** fused_plan,
               Lowered* fl, Lowered* pl) {
  const hlx_plan_t* f = LowerMain(text, nullptr, fl);
  const hlx_plan_t* p = LowerMain(text, "HLX_NO_EPILOGUE", pl);
  *fused_plan = f;
  if (!f || !p) return INFINITY;
  std::vector<std::vector<float>> in = {
      Random(2 * 40 * 64, 1, 2.0f), Random(64 * 128, 2, 0.3f),
      Random(64 * 128, 3, 0.3f)};
  std::vector<float> a = RunPlan(f, in)[0], b = RunPlan(p, in)[0];
  EXPECT_EQ(a.size(), b.size());
  double d = 0, m = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); i++) {
    d = std::max(d, std::fabs(double(a[i]) - b[i]));
    m = std::max(m, std::fabs(double(b[i])));
  }
  return m > 0 ? d / m : d;
}

TEST(DotSiluGate, JaxSiluAndGateArePostOps) {
  Lowered fl, pl;
  const hlx_plan_t* f;
  EXPECT_LT(Compare(Mlp(SiluJax("1.000000e+00")), &f, &fl, &pl), 1e-5);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(TasksNamed(f, "epilogue(swish)"), 1);
  EXPECT_EQ(TasksNamed(f, "epilogue(multiply)"), 0);
  EXPECT_EQ(f->num_tasks, 3);
}

TEST(DotSiluGate, LogisticSilu) {
  Lowered fl, pl;
  const hlx_plan_t* f;
  EXPECT_LT(Compare(Mlp(kSiluLogistic), &f, &fl, &pl), 1e-5);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(TasksNamed(f, "epilogue(swish)"), 1);
}

TEST(DotSiluGate, OtherFunctionsStayCalls) {
  Lowered fl, pl;
  const hlx_plan_t* f;
  // 2 * silu: not silu.
  EXPECT_LT(Compare(Mlp(SiluJax("2.000000e+00")), &f, &fl, &pl), 1e-5);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(TasksNamed(f, "swish"), 0);
}

// HLX_NO_SWISH_POST_OP=1 (the A/B switch): silu runs as its fused
// elementwise pass, and the plan computes what the epilogue-free one does.
// The gate multiply stays a pass of its own: fusion groups ops per block
// and the inlined @silu body is its own block.
TEST(DotSiluGate, SwishPostOpSwitchedOff) {
  const std::string text = Mlp(SiluJax("1.000000e+00"));
  Lowered ol, pl;
  const hlx_plan_t* o = LowerMain(text, "HLX_NO_SWISH_POST_OP", &ol);
  const hlx_plan_t* p = LowerMain(text, "HLX_NO_EPILOGUE", &pl);
  ASSERT_TRUE(o && p);
  EXPECT_EQ(TasksNamed(o, "swish"), 0);
  EXPECT_EQ(o->num_tasks, 4);
  std::vector<std::vector<float>> in = {
      Random(2 * 40 * 64, 4, 2.0f), Random(64 * 128, 5, 0.3f),
      Random(64 * 128, 6, 0.3f)};
  EXPECT_EQ(RunPlan(o, in), RunPlan(p, in));
}

}  // namespace
