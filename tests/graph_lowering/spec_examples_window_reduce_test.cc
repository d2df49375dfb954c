// Spec examples of reduce, reduce_window, select_and_scatter, sort, map
// and reduce_precision.
// Each program is the spec's "Example" for the op, transcribed from
// reference/stablehlo_spec.md (inputs as constants, expected values as the
// second half of the results); see spec_example_harness.h.
#include "tests/graph_lowering/spec_example_harness.h"

namespace {

const hlx_spec_examples::Example kExamples[] = {
    {"reduce_0",
     R"(func.func @main() -> (tensor<1xi64>, tensor<1xi64>) {
  %input = stablehlo.constant dense<[[0, 1, 2, 3, 4, 5]]> : tensor<1x6xi64>
  %init_value = stablehlo.constant dense<0> : tensor<i64>
  %result = "stablehlo.reduce"(%input, %init_value) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %0 = "stablehlo.add"(%arg0, %arg1) : (tensor<i64>, tensor<i64>) -> tensor<i64>
      "stablehlo.return"(%0) : (tensor<i64>) -> ()
  }) {
    dimensions = array<i64: 1>
  } : (tensor<1x6xi64>, tensor<i64>) -> tensor<1xi64>
  %expected0 = stablehlo.constant dense<[15]> : tensor<1xi64>
  return %result, %expected0 : tensor<1xi64>, tensor<1xi64>
})"},
    {"reduce_window_0",
     R"(func.func @main() -> (tensor<2x2xi64>, tensor<2x2xi64>) {
  %input = stablehlo.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi64>
  %init_value = stablehlo.constant dense<0> : tensor<i64>
  %result = "stablehlo.reduce_window"(%input, %init_value) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %0 = "stablehlo.add"(%arg0, %arg1) : (tensor<i64>, tensor<i64>) -> tensor<i64>
      "stablehlo.return"(%0) : (tensor<i64>) -> ()
  }) {
    window_dimensions = array<i64: 2, 1>,
    window_strides = array<i64: 4, 1>,
    base_dilations = array<i64: 2, 1>,
    window_dilations = array<i64: 3, 1>,
    padding = dense<[[2, 1], [0, 0]]> : tensor<2x2xi64>
  } : (tensor<3x2xi64>, tensor<i64>) -> tensor<2x2xi64>
  %expected0 = stablehlo.constant dense<[[0, 0], [3, 4]]> : tensor<2x2xi64>
  return %result, %expected0 : tensor<2x2xi64>, tensor<2x2xi64>
})"},
    {"select_and_scatter_0",
     R"(func.func @main() -> (tensor<4x2xi64>, tensor<4x2xi64>) {
  %operand = stablehlo.constant dense<[[1, 5], [2, 5], [3, 6], [4, 4]]> : tensor<4x2xi64>
  %source = stablehlo.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi64>
  %init_value = stablehlo.constant dense<0> : tensor<i64>
  %result = "stablehlo.select_and_scatter"(%operand, %source, %init_value) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %0 = "stablehlo.compare"(%arg0, %arg1) {
        comparison_direction = #stablehlo<comparison_direction GE>
      } : (tensor<i64>, tensor<i64>) -> tensor<i1>
      "stablehlo.return"(%0) : (tensor<i1>) -> ()
  }, {
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %0 = "stablehlo.add"(%arg0, %arg1) : (tensor<i64>, tensor<i64>) -> tensor<i64>
      "stablehlo.return"(%0) : (tensor<i64>) -> ()
  }) {
    window_dimensions = array<i64: 3, 1>,
    window_strides = array<i64: 2, 1>,
    padding = dense<[[0, 1], [0, 0]]> : tensor<2x2xi64>
  } : (tensor<4x2xi64>, tensor<2x2xi64>, tensor<i64>) -> tensor<4x2xi64>
  %expected0 = stablehlo.constant dense<[[0, 0], [0, 0], [5, 14], [7, 0]]> : tensor<4x2xi64>
  return %result, %expected0 : tensor<4x2xi64>, tensor<4x2xi64>
})"},
    {"sort_0",
     R"(func.func @main() -> (tensor<2x3xi64>, tensor<2x3xi64>, tensor<2x3xi64>, tensor<2x3xi64>) {
  %input0 = stablehlo.constant dense<[[1, 2, 3], [3, 2, 1]]> : tensor<2x3xi64>
  %input1 = stablehlo.constant dense<[[3, 2, 1], [1, 2, 3]]> : tensor<2x3xi64>
  %result0, %result1 = "stablehlo.sort"(%input0, %input1) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>, %arg2: tensor<i64>, %arg3: tensor<i64>):
      %predicate = "stablehlo.compare"(%arg0, %arg1) {
        comparison_direction = #stablehlo<comparison_direction GT>
      } : (tensor<i64>, tensor<i64>) -> tensor<i1>
      "stablehlo.return"(%predicate) : (tensor<i1>) -> ()
  }) {
    dimension = 0 : i64,
    is_stable = true
  } : (tensor<2x3xi64>, tensor<2x3xi64>) -> (tensor<2x3xi64>, tensor<2x3xi64>)
  %expected0 = stablehlo.constant dense<[[3, 2, 3], [1, 2, 1]]> : tensor<2x3xi64>
  %expected1 = stablehlo.constant dense<[[1, 2, 1], [3, 2, 3]]> : tensor<2x3xi64>
  return %result0, %result1, %expected0, %expected1 : tensor<2x3xi64>, tensor<2x3xi64>, tensor<2x3xi64>, tensor<2x3xi64>
})"},
    {"map_0",
     R"(func.func @main() -> (tensor<2x2xi64>, tensor<2x2xi64>) {
  %input0 = stablehlo.constant dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>
  %input1 = stablehlo.constant dense<[[4, 5], [6, 7]]> : tensor<2x2xi64>
  %result = "stablehlo.map"(%input0, %input1) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %0 = stablehlo.multiply %arg0, %arg1 : tensor<i64>
      stablehlo.return %0 : tensor<i64>
  }) {
    dimensions = array<i64: 0, 1>
  } : (tensor<2x2xi64>, tensor<2x2xi64>) -> tensor<2x2xi64>
  %expected0 = stablehlo.constant dense<[[0, 5], [12, 21]]> : tensor<2x2xi64>
  return %result, %expected0 : tensor<2x2xi64>, tensor<2x2xi64>
})"},
    {"reduce_precision_0",
     R"(func.func @main() -> (tensor<6xf64>, tensor<6xf64>) {
  %operand = stablehlo.constant dense<[0x7FF0000000000000, 0x7FFFFFFFFFFFFFFF, 0x0000000000000001, 0.0, 65519.0, 65520.0]> : tensor<6xf64>
  %output = "stablehlo.reduce_precision"(%operand) {
    exponent_bits = 5 : i32,
    mantissa_bits = 10 : i32
  } : (tensor<6xf64>) -> tensor<6xf64>
  %expected0 = stablehlo.constant dense<[0x7FF0000000000000, 0x7FFFFFFFFFFFFFFF, 0.0, 0.0, 65504.0, 0x7FF0000000000000]> : tensor<6xf64>
  return %output, %expected0 : tensor<6xf64>, tensor<6xf64>
})"},
};

HLX_SPEC_EXAMPLES_TEST(WindowReduceExamples, kExamples);

}  // namespace
