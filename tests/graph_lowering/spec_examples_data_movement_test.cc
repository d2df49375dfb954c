// Spec examples of the data-movement ops.
// Each program is the spec's "Example" for the op, transcribed from
// reference/stablehlo_spec.md (inputs as constants, expected values as the
// second half of the results); see spec_example_harness.h.
#include "tests/graph_lowering/spec_example_harness.h"

namespace {

const hlx_spec_examples::Example kExamples[] = {
    {"broadcast_in_dim_0",
     R"(func.func @main() -> (tensor<2x3x2xi32>, tensor<2x3x2xi32>) {
  %operand = stablehlo.constant dense<[ [1, 2, 3] ]> : tensor<1x3xi32>
  %result = "stablehlo.broadcast_in_dim"(%operand) {
    broadcast_dimensions = array<i64: 2, 1>
  } : (tensor<1x3xi32>) -> tensor<2x3x2xi32>
  %expected0 = stablehlo.constant dense<[ [ [1, 1], [2, 2], [3, 3] ], [ [1, 1], [2, 2], [3, 3] ] ]> : tensor<2x3x2xi32>
  return %result, %expected0 : tensor<2x3x2xi32>, tensor<2x3x2xi32>
})"},
    {"concatenate_0",
     R"(func.func @main() -> (tensor<4x2xi64>, tensor<4x2xi64>) {
  %input0 = stablehlo.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi64>
  %input1 = stablehlo.constant dense<[[7, 8]]> : tensor<1x2xi64>
  %result = "stablehlo.concatenate"(%input0, %input1) {
    dimension = 0 : i64
  } : (tensor<3x2xi64>, tensor<1x2xi64>) -> tensor<4x2xi64>
  %expected0 = stablehlo.constant dense<[[1, 2], [3, 4], [5, 6], [7, 8]]> : tensor<4x2xi64>
  return %result, %expected0 : tensor<4x2xi64>, tensor<4x2xi64>
})"},
    {"dynamic_slice_0",
     R"(func.func @main() -> (tensor<2x2xi32>, tensor<2x2xi32>) {
  %operand = stablehlo.constant dense<[ [0, 0, 1, 1], [0, 0, 1, 1], [0, 0, 0, 0], [0, 0, 0, 0] ]> : tensor<4x4xi32>
  %start_indices0 = stablehlo.constant dense<-1> : tensor<i64>
  %start_indices1 = stablehlo.constant dense<3> : tensor<i64>
  %result = "stablehlo.dynamic_slice"(%operand, %start_indices0, %start_indices1) {
    slice_sizes = array<i64: 2, 2>
  } : (tensor<4x4xi32>, tensor<i64>, tensor<i64>) -> tensor<2x2xi32>
  %expected0 = stablehlo.constant dense<[ [1, 1], [1, 1] ]> : tensor<2x2xi32>
  return %result, %expected0 : tensor<2x2xi32>, tensor<2x2xi32>
})"},
    {"dynamic_update_slice_0",
     R"(func.func @main() -> (tensor<4x4xi32>, tensor<4x4xi32>) {
  %operand = stablehlo.constant dense<[ [1, 1, 0, 0], [1, 1, 0, 0], [1, 1, 1, 1], [1, 1, 1, 1] ]> : tensor<4x4xi32>
  %update = stablehlo.constant dense<[ [1, 1], [1, 1] ]> : tensor<2x2xi32>
  %start_indices0 = stablehlo.constant dense<-1> : tensor<i64>
  %start_indices1 = stablehlo.constant dense<3> : tensor<i64>
  %result = "stablehlo.dynamic_update_slice"(%operand, %update, %start_indices0, %start_indices1)
    : (tensor<4x4xi32>, tensor<2x2xi32>, tensor<i64>, tensor<i64>) -> tensor<4x4xi32>
  %expected0 = stablehlo.constant dense<[ [1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1] ]> : tensor<4x4xi32>
  return %result, %expected0 : tensor<4x4xi32>, tensor<4x4xi32>
})"},
    {"iota_0",
     R"(func.func @main() -> (tensor<4x5xi32>, tensor<4x5xi32>) {

  %output = "stablehlo.iota"() {
    iota_dimension = 0 : i64
  } : () -> tensor<4x5xi32>
  %expected0 = stablehlo.constant dense<[ [0, 0, 0, 0, 0], [1, 1, 1, 1, 1], [2, 2, 2, 2, 2], [3, 3, 3, 3, 3] ]> : tensor<4x5xi32>
  return %output, %expected0 : tensor<4x5xi32>, tensor<4x5xi32>
})"},
    {"iota_1",
     R"(func.func @main() -> (tensor<4x5xi32>, tensor<4x5xi32>) {

  %output = "stablehlo.iota"() {
    iota_dimension = 1 : i64
  } : () -> tensor<4x5xi32>
  %expected0 = stablehlo.constant dense<[ [0, 1, 2, 3, 4], [0, 1, 2, 3, 4], [0, 1, 2, 3, 4], [0, 1, 2, 3, 4] ]> : tensor<4x5xi32>
  return %output, %expected0 : tensor<4x5xi32>, tensor<4x5xi32>
})"},
    {"pad_0",
     R"(func.func @main() -> (tensor<5x9xi32>, tensor<5x9xi32>) {
  %operand = stablehlo.constant dense<[ [1, 2, 3], [4, 5, 6] ]> : tensor<2x3xi32>
  %padding_value = stablehlo.constant dense<0> : tensor<i32>
  %result = "stablehlo.pad"(%operand, %padding_value) {
    edge_padding_low = array<i64: 0, 1>,
    edge_padding_high = array<i64: 2, 1>,
    interior_padding = array<i64: 1, 2>
  } : (tensor<2x3xi32>, tensor<i32>) -> tensor<5x9xi32>
  %expected0 = stablehlo.constant dense<[ [0, 1, 0, 0, 2, 0, 0, 3, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 4, 0, 0, 5, 0, 0, 6, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0] ]> : tensor<5x9xi32>
  return %result, %expected0 : tensor<5x9xi32>, tensor<5x9xi32>
})"},
    {"reshape_0",
     R"(func.func @main() -> (tensor<3x2xi32>, tensor<3x2xi32>) {
  %operand = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %result = "stablehlo.reshape"(%operand) : (tensor<2x3xi32>) -> tensor<3x2xi32>
  %expected0 = stablehlo.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi32>
  return %result, %expected0 : tensor<3x2xi32>, tensor<3x2xi32>
})"},
    {"reverse_0",
     R"(func.func @main() -> (tensor<3x2xi32>, tensor<3x2xi32>) {
  %operand = stablehlo.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi32>
  %result = "stablehlo.reverse"(%operand) {
    dimensions = array<i64: 1>
  } : (tensor<3x2xi32>) -> tensor<3x2xi32>
  %expected0 = stablehlo.constant dense<[[2, 1], [4, 3], [6, 5]]> : tensor<3x2xi32>
  return %result, %expected0 : tensor<3x2xi32>, tensor<3x2xi32>
})"},
    {"slice_0",
     R"(func.func @main() -> (tensor<2x2xi64>, tensor<2x2xi64>) {
  %operand = stablehlo.constant dense<[ [0, 0, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1] ]> : tensor<3x4xi64>
  %result = "stablehlo.slice"(%operand) {
    start_indices = array<i64: 1, 2>,
    limit_indices = array<i64: 3, 4>,
    strides = array<i64: 1, 1>
  } : (tensor<3x4xi64>) -> tensor<2x2xi64>
  %expected0 = stablehlo.constant dense<[ [1, 1], [1, 1] ]> : tensor<2x2xi64>
  return %result, %expected0 : tensor<2x2xi64>, tensor<2x2xi64>
})"},
    {"transpose_0",
     R"(func.func @main() -> (tensor<2x3x2xi32>, tensor<2x3x2xi32>) {
  %operand = stablehlo.constant dense<[ [[1,2], [3,4], [5,6]], [[7,8], [9,10], [11,12]] ]> : tensor<2x3x2xi32>
  %result = "stablehlo.transpose"(%operand) {
    permutation = array<i64: 2, 1, 0>
  } : (tensor<2x3x2xi32>) -> tensor<2x3x2xi32>
  %expected0 = stablehlo.constant dense<[ [[1,7], [3,9], [5,11]], [[2,8], [4,10], [6,12]] ]> : tensor<2x3x2xi32>
  return %result, %expected0 : tensor<2x3x2xi32>, tensor<2x3x2xi32>
})"},
    {"dynamic_pad_0",
     R"(func.func @main() -> (tensor<5x9xi64>, tensor<5x9xi64>) {
  %operand = stablehlo.constant dense<[ [1, 2, 3], [4, 5, 6] ]> : tensor<2x3xi64>
  %padding_value = stablehlo.constant dense<0> : tensor<i64>
  %edge_padding_low = stablehlo.constant dense<[0, 1]> : tensor<2xi64>
  %edge_padding_high = stablehlo.constant dense<[2, 1]> : tensor<2xi64>
  %interior_padding = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  %result = "stablehlo.dynamic_pad"(%operand, %padding_value,
    %edge_padding_low, %edge_padding_high, %interior_padding
  ) : (tensor<2x3xi64>, tensor<i64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<5x9xi64>
  %expected0 = stablehlo.constant dense<[ [0, 1, 0, 0, 2, 0, 0, 3, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 4, 0, 0, 5, 0, 0, 6, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0] ]> : tensor<5x9xi64>
  return %result, %expected0 : tensor<5x9xi64>, tensor<5x9xi64>
})"},
    {"dynamic_reshape_0",
     R"(func.func @main() -> (tensor<3x2xi64>, tensor<3x2xi64>) {
  %operand = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %output_shape = stablehlo.constant dense<[3, 2]> : tensor<2xi64>
  %result = "stablehlo.dynamic_reshape"(%operand, %output_shape) : (tensor<2x3xi64>, tensor<2xi64>) -> tensor<3x2xi64>
  %expected0 = stablehlo.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi64>
  return %result, %expected0 : tensor<3x2xi64>, tensor<3x2xi64>
})"},
    {"get_dimension_size_0",
     R"(func.func @main() -> (tensor<i32>, tensor<i32>) {
  %operand = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %result = "stablehlo.get_dimension_size"(%operand) {
    dimension = 1 : i64
  } : (tensor<2x3xi64>) -> tensor<i32>
  %expected0 = stablehlo.constant dense<3> : tensor<i32>
  return %result, %expected0 : tensor<i32>, tensor<i32>
})"},
    {"constant_0",
     R"(func.func @main() -> (tensor<2x2xf32>, tensor<2x2xf32>) {

  %output = "stablehlo.constant"() {
    value = dense<[[0.0, 1.0], [2.0, 3.0]]> : tensor<2x2xf32>
  } : () -> tensor<2x2xf32>
  %expected0 = stablehlo.constant dense<[[0.0, 1.0], [2.0, 3.0]]> : tensor<2x2xf32>
  return %output, %expected0 : tensor<2x2xf32>, tensor<2x2xf32>
})"},
    {"dynamic_iota_0",
     R"(func.func @main() -> (tensor<4x5xi64>, tensor<4x5xi64>) {
  %output_shape = stablehlo.constant dense<[4, 5]> : tensor<2xi64>
  %result = "stablehlo.dynamic_iota"(%output_shape) {
    iota_dimension = 0 : i64
  } : (tensor<2xi64>) -> tensor<4x5xi64>
  %expected0 = stablehlo.constant dense<[[0, 0, 0, 0, 0], [1, 1, 1, 1, 1], [2, 2, 2, 2, 2], [3, 3, 3, 3, 3]]> : tensor<4x5xi64>
  return %result, %expected0 : tensor<4x5xi64>, tensor<4x5xi64>
})"},
    {"dynamic_broadcast_in_dim_0",
     R"(func.func @main() -> (tensor<2x3x2xi64>, tensor<2x3x2xi64>) {
  %operand = stablehlo.constant dense<[[1, 2, 3]]> : tensor<1x3xi64>
  %output_dimensions = stablehlo.constant dense<[2, 3, 2]> : tensor<3xi64>
  %result = "stablehlo.dynamic_broadcast_in_dim"(%operand, %output_dimensions) {
    broadcast_dimensions = array<i64: 2, 1>,
    known_expanding_dimensions = array<i64: 0>,
    known_nonexpanding_dimensions = array<i64: 1>
  } : (tensor<1x3xi64>, tensor<3xi64>) -> tensor<2x3x2xi64>
  %expected0 = stablehlo.constant dense<[[[1, 1], [2, 2], [3, 3]], [[1, 1], [2, 2], [3, 3]]]> : tensor<2x3x2xi64>
  return %result, %expected0 : tensor<2x3x2xi64>, tensor<2x3x2xi64>
})"},
};

HLX_SPEC_EXAMPLES_TEST(DataMovementExamples, kExamples);

}  // namespace
