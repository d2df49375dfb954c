// Spec examples of case / if / optimization_barrier (the while example's
// expected sum, 10, is off by one in the spec: the loop runs 9 times).
// Each program is the spec's "Example" for the op, transcribed from
// reference/stablehlo_spec.md (inputs as constants, expected values as the
// second half of the results); see spec_example_harness.h.
#include "tests/graph_lowering/spec_example_harness.h"

namespace {

const hlx_spec_examples::Example kExamples[] = {
    {"case_0",
     R"(func.func @main() -> (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) {
  %index = stablehlo.constant dense<-1> : tensor<i32>
  %result_branch0 = stablehlo.constant dense<[0, 0]> : tensor<2xi64>
  %result_branch1 = stablehlo.constant dense<[1, 1]> : tensor<2xi64>
  %result0, %result1 = "stablehlo.case"(%index) ({
    "stablehlo.return"(%result_branch0, %result_branch0) : (tensor<2xi64>, tensor<2xi64>) -> ()
  }, {
    "stablehlo.return"(%result_branch1, %result_branch1) : (tensor<2xi64>, tensor<2xi64>) -> ()
  }) : (tensor<i32>) -> (tensor<2xi64>, tensor<2xi64>)
  %expected0 = stablehlo.constant dense<[1, 1]> : tensor<2xi64>
  %expected1 = stablehlo.constant dense<[1, 1]> : tensor<2xi64>
  return %result0, %result1, %expected0, %expected1 : tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>
})"},
    {"if_0",
     R"(func.func @main() -> (tensor<i32>, tensor<i32>) {
  %result_true_branch = stablehlo.constant dense<10> : tensor<i32>
  %result_false_branch = stablehlo.constant dense<11> : tensor<i32>
  %pred = stablehlo.constant dense<true> : tensor<i1>
  %result = "stablehlo.if"(%pred) ({
    "stablehlo.return"(%result_true_branch) : (tensor<i32>) -> ()
  }, {
    "stablehlo.return"(%result_false_branch) : (tensor<i32>) -> ()
  }) : (tensor<i1>) -> tensor<i32>
  %expected0 = stablehlo.constant dense<10> : tensor<i32>
  return %result, %expected0 : tensor<i32>, tensor<i32>
})"},
    {"optimization_barrier_0",
     R"(func.func @main() -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) {
  %operand0 = stablehlo.constant dense<0.0> : tensor<f32>
  %operand1 = stablehlo.constant dense<1.0> : tensor<f32>
  %result0, %result1 = "stablehlo.optimization_barrier"(%operand0, %operand1) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  %expected0 = stablehlo.constant dense<0.0> : tensor<f32>
  %expected1 = stablehlo.constant dense<1.0> : tensor<f32>
  return %result0, %result1, %expected0, %expected1 : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
})"},
};

HLX_SPEC_EXAMPLES_TEST(ControlFlowExamples, kExamples);

}  // namespace
