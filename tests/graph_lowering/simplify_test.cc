// Simplifications made while building plans: constant folding
// (graph/lower/opt/fold.c: pure ops whose inputs are all constants
// become plan constants, computed by the same kernels a run would use) and
// dead-code elimination (graph/lower/opt/dce.c: pure ops nobody needs are not
// lowered; ops with effects always are).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern "C" {
#include "graph/lower/lower.h"
#include "graph/stablehlo/parser.h"
}

#include "tests/graph_lowering/plan_run.h"

namespace {

using plan_run::Lowered;

// Lowers `text` with the default options; returns the task count of @main
// (-1 on error).
int32_t MainTasks(const std::string& text, Lowered* l) {
  if (!plan_run::LowerOptions(text, nullptr, hlx_lower_options_t{}, l))
    return -1;
  return hlx_lowered_find(l->lm, "main")->num_tasks;
}

std::vector<float> RunMain(const Lowered& l, size_t n) {
  const hlx_plan_t* p = hlx_lowered_find(l.lm, "main");
  std::vector<float> out(n);
  void* results[1] = {out.data()};
  hlx_run_ctx_t ctx = {};
  ctx.sequential = true;
  hlx_status_t s = hlx_plan_execute(p, nullptr, results, &ctx);
  EXPECT_EQ(s, nullptr) << (s ? hlx_status_message(s) : "");
  hlx_status_free(s);
  return out;
}

const char* kConstantChain = R"(
  func.func @main() -> tensor<6xf32> {
    %c = stablehlo.constant dense<[1.0, -2.0, 0.5, 4.0, 0x7FC00000, 0x7F800000]> : tensor<6xf32>
    %t = stablehlo.constant dense<2.0> : tensor<f32>
    %b = stablehlo.broadcast_in_dim %t, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %0 = stablehlo.multiply %c, %b : tensor<6xf32>
    %1 = stablehlo.exponential %0 : tensor<6xf32>
    %i = stablehlo.iota dim = 0 : tensor<6xf32>
    %2 = stablehlo.add %1, %i : tensor<6xf32>
    return %2 : tensor<6xf32>
  })";

TEST(ConstantFold, ConstantOnlyChainLeavesNoTasks) {
  Lowered folded;
  ASSERT_EQ(MainTasks(kConstantChain, &folded), 0);
  std::vector<float> got = RunMain(folded, 6);

  setenv("HLX_NO_CONSTANT_FOLD", "1", 1);
  Lowered plain;
  int32_t tasks = MainTasks(kConstantChain, &plain);
  unsetenv("HLX_NO_CONSTANT_FOLD");
  EXPECT_GE(tasks, 1);  // the chain (one fused task, or one per op)
  std::vector<float> want = RunMain(plain, 6);
  // Bit-identical: the folded values come from the same kernels.
  ASSERT_EQ(std::memcmp(got.data(), want.data(), 6 * sizeof(float)), 0);
  EXPECT_EQ(got[0], std::exp(2.0f) + 0.0f);
  EXPECT_TRUE(std::isnan(got[4]));
  EXPECT_TRUE(std::isinf(got[5]));
}

TEST(ConstantFold, OpsReadingParametersStayTasks) {
  Lowered l;
  EXPECT_EQ(MainTasks(R"(
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %c = stablehlo.constant dense<3.0> : tensor<f32>
      %b = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %0 = stablehlo.add %x, %b : tensor<4xf32>
      return %0 : tensor<4xf32>
    })", &l), 1);  // the broadcast folds, the add reads %x
}

TEST(ConstantFold, LargeResultsStayTasks) {
  Lowered l;  // 4 MiB: above the fold limit
  EXPECT_EQ(MainTasks(R"(
    func.func @main() -> tensor<1048576xf32> {
      %c = stablehlo.constant dense<1.5> : tensor<f32>
      %b = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<1048576xf32>
      return %b : tensor<1048576xf32>
    })", &l), 1);
}

TEST(ConstantFold, OnlyPureElementwiseAndDataMovementFold) {
  Lowered l;  // dot_general and reduce are not folded (cost unbounded)
  EXPECT_EQ(MainTasks(R"(
    func.func @main() -> tensor<f32> {
      %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
      %0 = stablehlo.dot_general %a, %a, contracting_dims = [0] x [0] : (tensor<2xf32>, tensor<2xf32>) -> tensor<f32>
      return %0 : tensor<f32>
    })", &l), 1);
}

const char* kDeadCode = R"(
  func.func @main(%x: tensor<4xf32>, %w: tensor<4x4xf32>) -> tensor<4xf32> {
    %dead0 = stablehlo.exponential %x : tensor<4xf32>
    %dead1 = stablehlo.dot_general %dead0, %w, contracting_dims = [0] x [0] : (tensor<4xf32>, tensor<4x4xf32>) -> tensor<4xf32>
    %dead2 = call @helper(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %0 = stablehlo.add %x, %x : tensor<4xf32>
    %1 = call @helper(%0) : (tensor<4xf32>) -> tensor<4xf32>
    return %1 : tensor<4xf32>
  }
  func.func private @helper(%y: tensor<4xf32>) -> tensor<4xf32> {
    %unused = stablehlo.tanh %y : tensor<4xf32>
    %0 = stablehlo.multiply %y, %y : tensor<4xf32>
    return %0 : tensor<4xf32>
  })";

TEST(DeadCode, UnneededPureOpsAreNotLowered) {
  Lowered l;
  // Kept: add and the two inlined multiplies (a call is not in the pure
  // set, so the unused call stays; its body's unused tanh does not).
  // Gone: exponential, dot_general, both tanh.
  EXPECT_EQ(MainTasks(kDeadCode, &l), 3);
  setenv("HLX_NO_DCE", "1", 1);
  Lowered all;
  int32_t tasks = MainTasks(kDeadCode, &all);
  unsetenv("HLX_NO_DCE");
  EXPECT_EQ(tasks, 7);
}

// Ops outside the pure set (rng state, outfeed) are lowered even when
// nothing reads their results: the plan is the same with DCE off.
TEST(DeadCode, OpsWithEffectsAreKeptEvenIfUnused) {
  const char* text = R"(
    func.func @main(%s: tensor<2xui64>, %x: tensor<3xf32>) -> tensor<3xf32> {
      %state, %bits = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
      %tok = stablehlo.after_all : !stablehlo.token
      %t = "stablehlo.outfeed"(%x, %tok) <{outfeed_config = ""}> : (tensor<3xf32>, !stablehlo.token) -> !stablehlo.token
      return %x : tensor<3xf32>
    })";
  Lowered l;
  int32_t with_dce = MainTasks(text, &l);
  setenv("HLX_NO_DCE", "1", 1);
  Lowered all;
  int32_t without = MainTasks(text, &all);
  unsetenv("HLX_NO_DCE");
  EXPECT_GE(with_dce, 2);
  EXPECT_EQ(with_dce, without);
}

}  // namespace
