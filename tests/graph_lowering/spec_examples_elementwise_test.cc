// Spec examples of the elementwise ops whose example values are exact
// (the transcendental ones print rounded decimals and are left to the
// conformance suite's ULP checks).
// Each program is the spec's "Example" for the op, transcribed from
// reference/stablehlo_spec.md (inputs as constants, expected values as the
// second half of the results); see spec_example_harness.h.
#include "tests/graph_lowering/spec_example_harness.h"

namespace {

const hlx_spec_examples::Example kExamples[] = {
    {"abs_0",
     R"(func.func @main() -> (tensor<3xi32>, tensor<3xi32>) {
  %operand = stablehlo.constant dense<[-2, 0, 2]> : tensor<3xi32>
  %result = "stablehlo.abs"(%operand) : (tensor<3xi32>) -> tensor<3xi32>
  %expected0 = stablehlo.constant dense<[2, 0, 2]> : tensor<3xi32>
  return %result, %expected0 : tensor<3xi32>, tensor<3xi32>
})"},
    {"add_0",
     R"(func.func @main() -> (tensor<2x2xi32>, tensor<2x2xi32>) {
  %lhs = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %rhs = stablehlo.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi32>
  %result = "stablehlo.add"(%lhs, %rhs) : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  %expected0 = stablehlo.constant dense<[[6, 8], [10, 12]]> : tensor<2x2xi32>
  return %result, %expected0 : tensor<2x2xi32>, tensor<2x2xi32>
})"},
    {"and_0",
     R"(func.func @main() -> (tensor<2x2xi32>, tensor<2x2xi32>) {
  %lhs = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %rhs = stablehlo.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi32>
  %result = "stablehlo.and"(%lhs, %rhs) : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  %expected0 = stablehlo.constant dense<[[1, 2], [3, 0]]> : tensor<2x2xi32>
  return %result, %expected0 : tensor<2x2xi32>, tensor<2x2xi32>
})"},
    {"ceil_0",
     R"(func.func @main() -> (tensor<5xf32>, tensor<5xf32>) {
  %operand = stablehlo.constant dense<[-0.8166, -0.2530, 0.2530, 0.8166, 2.0]> : tensor<5xf32>
  %result = "stablehlo.ceil"(%operand) : (tensor<5xf32>) -> tensor<5xf32>
  %expected0 = stablehlo.constant dense<[-0.0, -0.0, 1.0, 1.0, 2.0]> : tensor<5xf32>
  return %result, %expected0 : tensor<5xf32>, tensor<5xf32>
})"},
    {"clamp_0",
     R"(func.func @main() -> (tensor<3xi32>, tensor<3xi32>) {
  %min = stablehlo.constant dense<[5, 10, 15]> : tensor<3xi32>
  %operand = stablehlo.constant dense<[3, 13, 23]> : tensor<3xi32>
  %max = stablehlo.constant dense<[10, 15, 20]> : tensor<3xi32>
  %result = "stablehlo.clamp"(%min, %operand, %max) : (tensor<3xi32>, tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %expected0 = stablehlo.constant dense<[5, 13, 20]> : tensor<3xi32>
  return %result, %expected0 : tensor<3xi32>, tensor<3xi32>
})"},
    {"compare_0",
     R"(func.func @main() -> (tensor<2xi1>, tensor<2xi1>) {
  %lhs = stablehlo.constant dense<[1.0, 3.0]> : tensor<2xf32>
  %rhs = stablehlo.constant dense<[1.1, 2.9]> : tensor<2xf32>
  %result = "stablehlo.compare"(%lhs, %rhs) {
    comparison_direction = #stablehlo<comparison_direction LT>,
    compare_type = #stablehlo<comparison_type FLOAT>
  } : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  %expected0 = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  return %result, %expected0 : tensor<2xi1>, tensor<2xi1>
})"},
    {"complex_0",
     R"(func.func @main() -> (tensor<2xcomplex<f64>>, tensor<2xcomplex<f64>>) {
  %lhs = stablehlo.constant dense<[1.0, 3.0]> : tensor<2xf64>
  %rhs = stablehlo.constant dense<[2.0, 4.0]> : tensor<2xf64>
  %result = "stablehlo.complex"(%lhs, %rhs) : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xcomplex<f64>>
  %expected0 = stablehlo.constant dense<[(1.0, 2.0), (3.0, 4.0)]> : tensor<2xcomplex<f64>>
  return %result, %expected0 : tensor<2xcomplex<f64>>, tensor<2xcomplex<f64>>
})"},
    {"convert_0",
     R"(func.func @main() -> (tensor<3xcomplex<f64>>, tensor<3xcomplex<f64>>) {
  %operand = stablehlo.constant dense<[-1, 0, 1]> : tensor<3xi64>
  %result = "stablehlo.convert"(%operand) : (tensor<3xi64>) -> tensor<3xcomplex<f64>>
  %expected0 = stablehlo.constant dense<[(-1.0, 0.0), (0.0, 0.0), (1.0, 0.0)]> : tensor<3xcomplex<f64>>
  return %result, %expected0 : tensor<3xcomplex<f64>>, tensor<3xcomplex<f64>>
})"},
    {"count_leading_zeros_0",
     R"(func.func @main() -> (tensor<2x2xi64>, tensor<2x2xi64>) {
  %operand = stablehlo.constant dense<[[0, 1], [128, -1]]> : tensor<2x2xi64>
  %result = "stablehlo.count_leading_zeros"(%operand) : (tensor<2x2xi64>) -> tensor<2x2xi64>
  %expected0 = stablehlo.constant dense<[[64, 63], [56, 0]]> : tensor<2x2xi64>
  return %result, %expected0 : tensor<2x2xi64>, tensor<2x2xi64>
})"},
    {"exponential_0",
     R"(func.func @main() -> (tensor<2x2xf64>, tensor<2x2xf64>) {
  %operand = stablehlo.constant dense<[[0.0, 1.0], [2.0, 3.0]]> : tensor<2x2xf64>
  %result = "stablehlo.exponential"(%operand) : (tensor<2x2xf64>) -> tensor<2x2xf64>
  %expected0 = stablehlo.constant dense<[[1.0, 2.7182818284590451], [7.3890560989306504, 20.085536923187668]]> : tensor<2x2xf64>
  return %result, %expected0 : tensor<2x2xf64>, tensor<2x2xf64>
})"},
    {"floor_0",
     R"(func.func @main() -> (tensor<5xf32>, tensor<5xf32>) {
  %operand = stablehlo.constant dense<[-0.8166, -0.2530, 0.2530, 0.8166, 2.0]> : tensor<5xf32>
  %result = "stablehlo.floor"(%operand) : (tensor<5xf32>) -> tensor<5xf32>
  %expected0 = stablehlo.constant dense<[-1.0, -1.0, 0.0, 0.0, 2.0]> : tensor<5xf32>
  return %result, %expected0 : tensor<5xf32>, tensor<5xf32>
})"},
    {"imag_0",
     R"(func.func @main() -> (tensor<2xf32>, tensor<2xf32>) {
  %operand = stablehlo.constant dense<[(1.0, 2.0), (3.0, 4.0)]> : tensor<2xcomplex<f32>>
  %result = "stablehlo.imag"(%operand) : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  %expected0 = stablehlo.constant dense<[2.0, 4.0]> : tensor<2xf32>
  return %result, %expected0 : tensor<2xf32>, tensor<2xf32>
})"},
    {"log_0",
     R"(func.func @main() -> (tensor<2x2xf64>, tensor<2x2xf64>) {
  %operand = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf64>
  %result = "stablehlo.log"(%operand) : (tensor<2x2xf64>) -> tensor<2x2xf64>
  %expected0 = stablehlo.constant dense<[[0.0, 0.69314718055994529], [1.0986122886681098, 1.3862943611198906]]> : tensor<2x2xf64>
  return %result, %expected0 : tensor<2x2xf64>, tensor<2x2xf64>
})"},
    {"maximum_0",
     R"(func.func @main() -> (tensor<2x2xi32>, tensor<2x2xi32>) {
  %lhs = stablehlo.constant dense<[[1, 2], [7, 8]]> : tensor<2x2xi32>
  %rhs = stablehlo.constant dense<[[5, 6], [3, 4]]> : tensor<2x2xi32>
  %result = "stablehlo.maximum"(%lhs, %rhs) : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  %expected0 = stablehlo.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi32>
  return %result, %expected0 : tensor<2x2xi32>, tensor<2x2xi32>
})"},
    {"minimum_0",
     R"(func.func @main() -> (tensor<2x2xi32>, tensor<2x2xi32>) {
  %lhs = stablehlo.constant dense<[[1, 2], [7, 8]]> : tensor<2x2xi32>
  %rhs = stablehlo.constant dense<[[5, 6], [3, 4]]> : tensor<2x2xi32>
  %result = "stablehlo.minimum"(%lhs, %rhs) : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  %expected0 = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  return %result, %expected0 : tensor<2x2xi32>, tensor<2x2xi32>
})"},
    {"multiply_0",
     R"(func.func @main() -> (tensor<2x2xi32>, tensor<2x2xi32>) {
  %lhs = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %rhs = stablehlo.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi32>
  %result = "stablehlo.multiply"(%lhs, %rhs) : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  %expected0 = stablehlo.constant dense<[[5, 12], [21, 32]]> : tensor<2x2xi32>
  return %result, %expected0 : tensor<2x2xi32>, tensor<2x2xi32>
})"},
    {"negate_0",
     R"(func.func @main() -> (tensor<2xi32>, tensor<2xi32>) {
  %operand = stablehlo.constant dense<[0, -2]> : tensor<2xi32>
  %result = "stablehlo.negate"(%operand) : (tensor<2xi32>) -> tensor<2xi32>
  %expected0 = stablehlo.constant dense<[0, 2]> : tensor<2xi32>
  return %result, %expected0 : tensor<2xi32>, tensor<2xi32>
})"},
    {"not_0",
     R"(func.func @main() -> (tensor<2x2xi32>, tensor<2x2xi32>) {
  %operand = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %result = "stablehlo.not"(%operand) : (tensor<2x2xi32>) -> tensor<2x2xi32>
  %expected0 = stablehlo.constant dense<[[-2, -3], [-4, -5]]> : tensor<2x2xi32>
  return %result, %expected0 : tensor<2x2xi32>, tensor<2x2xi32>
})"},
    {"not_1",
     R"(func.func @main() -> (tensor<2xi1>, tensor<2xi1>) {
  %operand = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  %result = "stablehlo.not"(%operand) : (tensor<2xi1>) -> tensor<2xi1>
  %expected0 = stablehlo.constant dense<[false, true]> : tensor<2xi1>
  return %result, %expected0 : tensor<2xi1>, tensor<2xi1>
})"},
    {"or_0",
     R"(func.func @main() -> (tensor<2x2xi32>, tensor<2x2xi32>) {
  %lhs = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %rhs = stablehlo.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi32>
  %result = "stablehlo.or"(%lhs, %rhs) : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  %expected0 = stablehlo.constant dense<[[5, 6], [7, 12]]> : tensor<2x2xi32>
  return %result, %expected0 : tensor<2x2xi32>, tensor<2x2xi32>
})"},
    {"or_1",
     R"(func.func @main() -> (tensor<2x2xi1>, tensor<2x2xi1>) {
  %lhs = stablehlo.constant dense<[[false, false], [true, true]]> : tensor<2x2xi1>
  %rhs = stablehlo.constant dense<[[false, true], [false, true]]> : tensor<2x2xi1>
  %result = "stablehlo.or"(%lhs, %rhs) : (tensor<2x2xi1>, tensor<2x2xi1>) -> tensor<2x2xi1>
  %expected0 = stablehlo.constant dense<[[false, true], [true, true]]> : tensor<2x2xi1>
  return %result, %expected0 : tensor<2x2xi1>, tensor<2x2xi1>
})"},
    {"popcnt_0",
     R"(func.func @main() -> (tensor<4xi64>, tensor<4xi64>) {
  %operand = stablehlo.constant dense<[0, 1, 2, 127]> : tensor<4xi64>
  %result = "stablehlo.popcnt"(%operand) : (tensor<4xi64>) -> tensor<4xi64>
  %expected0 = stablehlo.constant dense<[0, 1, 1, 7]> : tensor<4xi64>
  return %result, %expected0 : tensor<4xi64>, tensor<4xi64>
})"},
    {"real_0",
     R"(func.func @main() -> (tensor<2xf32>, tensor<2xf32>) {
  %operand = stablehlo.constant dense<[(1.0, 2.0), (3.0, 4.0)]> : tensor<2xcomplex<f32>>
  %result = "stablehlo.real"(%operand) : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  %expected0 = stablehlo.constant dense<[1.0, 3.0]> : tensor<2xf32>
  return %result, %expected0 : tensor<2xf32>, tensor<2xf32>
})"},
    {"remainder_0",
     R"(func.func @main() -> (tensor<4xi64>, tensor<4xi64>) {
  %lhs = stablehlo.constant dense<[17, -17, 17, -17]> : tensor<4xi64>
  %rhs = stablehlo.constant dense<[3, 3, -3, -3]> : tensor<4xi64>
  %result = "stablehlo.remainder"(%lhs, %rhs) : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %expected0 = stablehlo.constant dense<[2, -2, 2, -2]> : tensor<4xi64>
  return %result, %expected0 : tensor<4xi64>, tensor<4xi64>
})"},
    {"round_nearest_afz_0",
     R"(func.func @main() -> (tensor<5xf64>, tensor<5xf64>) {
  %operand = stablehlo.constant dense<[-2.5, 0.4, 0.5, 0.6, 2.5]> : tensor<5xf64>
  %result = "stablehlo.round_nearest_afz"(%operand) : (tensor<5xf64>) -> tensor<5xf64>
  %expected0 = stablehlo.constant dense<[-3.0, 0.0, 1.0, 1.0, 3.0]> : tensor<5xf64>
  return %result, %expected0 : tensor<5xf64>, tensor<5xf64>
})"},
    {"round_nearest_even_0",
     R"(func.func @main() -> (tensor<5xf64>, tensor<5xf64>) {
  %operand = stablehlo.constant dense<[-2.5, 0.4, 0.5, 0.6, 2.5]> : tensor<5xf64>
  %result = "stablehlo.round_nearest_even"(%operand) : (tensor<5xf64>) -> tensor<5xf64>
  %expected0 = stablehlo.constant dense<[-2.0, 0.0, 0.0, 1.0, 2.0]> : tensor<5xf64>
  return %result, %expected0 : tensor<5xf64>, tensor<5xf64>
})"},
    {"select_0",
     R"(func.func @main() -> (tensor<2x2xi32>, tensor<2x2xi32>) {
  %pred = stablehlo.constant dense<[[false, true], [true, false]]> : tensor<2x2xi1>
  %on_true = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %on_false = stablehlo.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi32>
  %result = "stablehlo.select"(%pred, %on_true, %on_false) : (tensor<2x2xi1>, tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  %expected0 = stablehlo.constant dense<[[5, 2], [3, 8]]> : tensor<2x2xi32>
  return %result, %expected0 : tensor<2x2xi32>, tensor<2x2xi32>
})"},
    {"shift_left_0",
     R"(func.func @main() -> (tensor<3xi64>, tensor<3xi64>) {
  %lhs = stablehlo.constant dense<[-1, 0, 1]> : tensor<3xi64>
  %rhs = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi64>
  %result = "stablehlo.shift_left"(%lhs, %rhs): (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %expected0 = stablehlo.constant dense<[-2, 0, 8]> : tensor<3xi64>
  return %result, %expected0 : tensor<3xi64>, tensor<3xi64>
})"},
    {"shift_right_arithmetic_0",
     R"(func.func @main() -> (tensor<3xi64>, tensor<3xi64>) {
  %lhs = stablehlo.constant dense<[-1, 0, 8]> : tensor<3xi64>
  %rhs = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi64>
  %result = "stablehlo.shift_right_arithmetic"(%lhs, %rhs): (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %expected0 = stablehlo.constant dense<[-1, 0, 1]> : tensor<3xi64>
  return %result, %expected0 : tensor<3xi64>, tensor<3xi64>
})"},
    {"shift_right_logical_0",
     R"(func.func @main() -> (tensor<3xi64>, tensor<3xi64>) {
  %lhs = stablehlo.constant dense<[-1, 0, 8]> : tensor<3xi64>
  %rhs = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi64>
  %result = "stablehlo.shift_right_logical"(%lhs, %rhs): (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %expected0 = stablehlo.constant dense<[9223372036854775807, 0, 1]> : tensor<3xi64>
  return %result, %expected0 : tensor<3xi64>, tensor<3xi64>
})"},
    {"sqrt_0",
     R"(func.func @main() -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %operand = stablehlo.constant dense<[[0.0, 1.0], [4.0, 9.0]]> : tensor<2x2xf32>
  %result = "stablehlo.sqrt"(%operand) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %expected0 = stablehlo.constant dense<[[0.0, 1.0], [2.0, 3.0]]> : tensor<2x2xf32>
  return %result, %expected0 : tensor<2x2xf32>, tensor<2x2xf32>
})"},
    {"subtract_0",
     R"(func.func @main() -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %lhs = stablehlo.constant dense<[[6, 8], [10, 12]]> : tensor<2x2xf32>
  %rhs = stablehlo.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xf32>
  %result = "stablehlo.subtract"(%lhs, %rhs) : (tensor<2x2xf32>, tensor<2x2xf32>) -> (tensor<2x2xf32>)
  %expected0 = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xf32>
  return %result, %expected0 : tensor<2x2xf32>, tensor<2x2xf32>
})"},
    {"tanh_0",
     R"(func.func @main() -> (tensor<3xf32>, tensor<3xf32>) {
  %operand = stablehlo.constant dense<[-1.0, 0.0, 1.0]> : tensor<3xf32>
  %result = "stablehlo.tanh"(%operand) : (tensor<3xf32>) -> tensor<3xf32>
  %expected0 = stablehlo.constant dense<[-0.76159416, 0.0, 0.76159416]> : tensor<3xf32>
  return %result, %expected0 : tensor<3xf32>, tensor<3xf32>
})"},
    {"xor_0",
     R"(func.func @main() -> (tensor<2x2xi32>, tensor<2x2xi32>) {
  %lhs = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %rhs = stablehlo.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi32>
  %result = "stablehlo.xor"(%lhs, %rhs) : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  %expected0 = stablehlo.constant dense<[[4, 4], [4, 12]]> : tensor<2x2xi32>
  return %result, %expected0 : tensor<2x2xi32>, tensor<2x2xi32>
})"},
    {"xor_1",
     R"(func.func @main() -> (tensor<2x2xi1>, tensor<2x2xi1>) {
  %lhs = stablehlo.constant dense<[[false, false], [true, true]]> : tensor<2x2xi1>
  %rhs = stablehlo.constant dense<[[false, true], [false, true]]> : tensor<2x2xi1>
  %result = "stablehlo.xor"(%lhs, %rhs) : (tensor<2x2xi1>, tensor<2x2xi1>) -> tensor<2x2xi1>
  %expected0 = stablehlo.constant dense<[[false, true], [true, false]]> : tensor<2x2xi1>
  return %result, %expected0 : tensor<2x2xi1>, tensor<2x2xi1>
})"},
    {"uniform_quantize_0",
     R"(func.func @main() -> (tensor<2x!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>>, tensor<2x!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>>) {
  %operand = stablehlo.constant dense<[4.0, 15.0]> : tensor<2xf32>
  %result = "stablehlo.uniform_quantize"(%operand) : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>>
  %expected0 = stablehlo.constant dense<[10, 10]> : tensor<2x!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>>
  return %result, %expected0 : tensor<2x!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>>, tensor<2x!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>>
})"},
    {"uniform_quantize_1",
     R"(func.func @main() -> (tensor<2x!quant.uniform<i8:f32:0, {0.1:-20,0.2:-30}>>, tensor<2x!quant.uniform<i8:f32:0, {0.1:-20,0.2:-30}>>) {
  %operand = stablehlo.constant dense<[10, 10]> : tensor<2x!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>>
  %result = "stablehlo.uniform_quantize"(%operand) : (tensor<2x!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>>) -> tensor<2x!quant.uniform<i8:f32:0, {0.1:-20,0.2:-30}>>
  %expected0 = stablehlo.constant dense<[20, 45]> : tensor<2x!quant.uniform<i8:f32:0, {0.1:-20,0.2:-30}>>
  return %result, %expected0 : tensor<2x!quant.uniform<i8:f32:0, {0.1:-20,0.2:-30}>>, tensor<2x!quant.uniform<i8:f32:0, {0.1:-20,0.2:-30}>>
})"},
    {"uniform_dequantize_0",
     R"(func.func @main() -> (tensor<2xf32>, tensor<2xf32>) {
  %operand = stablehlo.constant dense<[10, 10]> : tensor<2x!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>>
  %result = "stablehlo.uniform_dequantize"(%operand) : (tensor<2x!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>>) -> tensor<2xf32>
  %expected0 = stablehlo.constant dense<[4.0, 15.0]> : tensor<2xf32>
  return %result, %expected0 : tensor<2xf32>, tensor<2xf32>
})"},
    {"cbrt_0",
     R"(func.func @main() -> (tensor<4xf64>, tensor<4xf64>) {
  %operand = stablehlo.constant dense<[0.0, 1.0, 8.0, 27.0]> : tensor<4xf64>
  %result = "stablehlo.cbrt"(%operand) : (tensor<4xf64>) -> tensor<4xf64>
  %expected0 = stablehlo.constant dense<[0.0, 1.0, 2.0, 3.0]> : tensor<4xf64>
  return %result, %expected0 : tensor<4xf64>, tensor<4xf64>
})"},
    {"is_finite_0",
     R"(func.func @main() -> (tensor<7xi1>, tensor<7xi1>) {
  %x = stablehlo.constant dense<[0xFFF0000000000000, 0x7FF0000000000000, 0x7FF8000000000000, -10.0, -0.0, 0.0, 10.0]> : tensor<7xf64>
  %y = "stablehlo.is_finite"(%x) : (tensor<7xf64>) -> tensor<7xi1>
  %expected0 = stablehlo.constant dense<[false, false, false, true, true, true, true]> : tensor<7xi1>
  return %y, %expected0 : tensor<7xi1>, tensor<7xi1>
})"},
    {"sign_0",
     R"(func.func @main() -> (tensor<5xf64>, tensor<5xf64>) {
  %operand = stablehlo.constant dense<[0x7FFFFFFFFFFFFFFF, -1.0, -0.0, 0.0, 1.0]> : tensor<5xf64>
  %result = "stablehlo.sign"(%operand) : (tensor<5xf64>) -> tensor<5xf64>
  %expected0 = stablehlo.constant dense<[0x7FFFFFFFFFFFFFFF, -1.0, -0.0, 0.0, 1.0]> : tensor<5xf64>
  return %result, %expected0 : tensor<5xf64>, tensor<5xf64>
})"},
    {"bitcast_convert_0",
     R"(func.func @main() -> (tensor<4xf16>, tensor<4xf16>) {
  %operand = stablehlo.constant dense<0x0123456789ABCDEF> : tensor<f64>
  %result = "stablehlo.bitcast_convert"(%operand) : (tensor<f64>) -> tensor<4xf16>
  %expected0 = stablehlo.constant dense<[0xCDEF, 0x89AB, 0x4567, 0x0123]> : tensor<4xf16>
  return %result, %expected0 : tensor<4xf16>, tensor<4xf16>
})"},
};

HLX_SPEC_EXAMPLES_TEST(ElementwiseExamples, kExamples);

}  // namespace
