// One negative test per data-movement constraint (spec "Constraints" lists
// of broadcast_in_dim, concatenate, dynamic_slice, dynamic_update_slice, pad,
// reshape, reverse, slice, transpose) that core_rules_test does not already
// cover: each program breaks exactly one rule.
#include "tests/graph_lowering/rules_harness.h"

namespace {

using hlx_rules::Case;

const Case kCases[] = {
    {"broadcast_dim_range",
     R"(func.func @main(%a: tensor<3xf32>) -> tensor<2x3xf32> {
       %0 = stablehlo.broadcast_in_dim %a, dims = [2] : (tensor<3xf32>) -> tensor<2x3xf32>
       return %0 : tensor<2x3xf32> })",
     "stablehlo.broadcast_in_dim", "(C3) broadcast_dimensions[0] = 2"},
    {"concatenate_no_inputs",
     R"(func.func @main() -> tensor<0xf32> {
       %0 = "stablehlo.concatenate"() {dimension = 0 : i64} : () -> tensor<0xf32>
       return %0 : tensor<0xf32> })",
     "stablehlo.concatenate", "(C3) needs at least one input"},
    {"concatenate_result_type",
     R"(func.func @main(%a: tensor<2xf32>) -> tensor<4xf64> {
       %0 = "stablehlo.concatenate"(%a, %a) {dimension = 0 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf64>
       return %0 : tensor<4xf64> })",
     "stablehlo.concatenate", "(C5) operand #0 has element type f32, result f64"},
    {"concatenate_result_other_dim",
     R"(func.func @main(%a: tensor<2x3xf32>) -> tensor<4x2xf32> {
       %0 = stablehlo.concatenate %a, %a, dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x2xf32>
       return %0 : tensor<4x2xf32> })",
     "stablehlo.concatenate", "(C6) operand #0 dim 1 has size 3, result 2"},
    {"dynamic_slice_element_type",
     R"(func.func @main(%a: tensor<4xf32>, %i: tensor<i32>) -> tensor<2xf64> {
       %0 = "stablehlo.dynamic_slice"(%a, %i) {slice_sizes = array<i64: 2>} : (tensor<4xf32>, tensor<i32>) -> tensor<2xf64>
       return %0 : tensor<2xf64> })",
     "stablehlo.dynamic_slice", "(C1) operand #0 has element type f32, result f64"},
    {"dynamic_slice_sizes_count",
     R"(func.func @main(%a: tensor<4xf32>, %i: tensor<i32>) -> tensor<2xf32> {
       %0 = "stablehlo.dynamic_slice"(%a, %i) {slice_sizes = array<i64: 2, 1>} : (tensor<4xf32>, tensor<i32>) -> tensor<2xf32>
       return %0 : tensor<2xf32> })",
     "stablehlo.dynamic_slice", "(C2) slice_sizes has 2 entries"},
    {"dynamic_slice_index_types",
     R"(func.func @main(%a: tensor<4x4xf32>, %i: tensor<i32>, %j: tensor<i64>) -> tensor<2x2xf32> {
       %0 = "stablehlo.dynamic_slice"(%a, %i, %j) {slice_sizes = array<i64: 2, 2>} : (tensor<4x4xf32>, tensor<i32>, tensor<i64>) -> tensor<2x2xf32>
       return %0 : tensor<2x2xf32> })",
     "stablehlo.dynamic_slice", "(C3) start indices must be integer scalars"},
    {"dynamic_slice_result_shape",
     R"(func.func @main(%a: tensor<4xf32>, %i: tensor<i32>) -> tensor<3xf32> {
       %0 = "stablehlo.dynamic_slice"(%a, %i) {slice_sizes = array<i64: 2>} : (tensor<4xf32>, tensor<i32>) -> tensor<3xf32>
       return %0 : tensor<3xf32> })",
     "stablehlo.dynamic_slice", "(C5) result shape is not slice_sizes"},
    {"dynamic_update_slice_result_type",
     R"(func.func @main(%a: tensor<4xf32>, %u: tensor<2xf32>, %i: tensor<i32>) -> tensor<5xf32> {
       %0 = "stablehlo.dynamic_update_slice"(%a, %u, %i) : (tensor<4xf32>, tensor<2xf32>, tensor<i32>) -> tensor<5xf32>
       return %0 : tensor<5xf32> })",
     "stablehlo.dynamic_update_slice", "(C1) result shape differs"},
    {"dynamic_update_slice_update_type",
     R"(func.func @main(%a: tensor<4xf32>, %u: tensor<2xf64>, %i: tensor<i32>) -> tensor<4xf32> {
       %0 = "stablehlo.dynamic_update_slice"(%a, %u, %i) : (tensor<4xf32>, tensor<2xf64>, tensor<i32>) -> tensor<4xf32>
       return %0 : tensor<4xf32> })",
     "stablehlo.dynamic_update_slice", "(C2) operand #1 has element type f64"},
    {"dynamic_update_slice_update_rank",
     R"(func.func @main(%a: tensor<4xf32>, %u: tensor<1x2xf32>, %i: tensor<i32>) -> tensor<4xf32> {
       %0 = "stablehlo.dynamic_update_slice"(%a, %u, %i) : (tensor<4xf32>, tensor<1x2xf32>, tensor<i32>) -> tensor<4xf32>
       return %0 : tensor<4xf32> })",
     "stablehlo.dynamic_update_slice", "(C3) update rank 2 differs"},
    {"dynamic_update_slice_index_count",
     R"(func.func @main(%a: tensor<4xf32>, %u: tensor<2xf32>, %i: tensor<i32>) -> tensor<4xf32> {
       %0 = "stablehlo.dynamic_update_slice"(%a, %u, %i, %i) : (tensor<4xf32>, tensor<2xf32>, tensor<i32>, tensor<i32>) -> tensor<4xf32>
       return %0 : tensor<4xf32> })",
     "stablehlo.dynamic_update_slice", "(C4) needs 1 start indices, has 2"},
    {"dynamic_update_slice_update_size",
     R"(func.func @main(%a: tensor<4xf32>, %u: tensor<5xf32>, %i: tensor<i32>) -> tensor<4xf32> {
       %0 = "stablehlo.dynamic_update_slice"(%a, %u, %i) : (tensor<4xf32>, tensor<5xf32>, tensor<i32>) -> tensor<4xf32>
       return %0 : tensor<4xf32> })",
     "stablehlo.dynamic_update_slice", "(C6) dim 0: window size 5 exceeds"},
    {"pad_value_type",
     R"(func.func @main(%a: tensor<2xf32>, %v: tensor<f64>) -> tensor<2xf32> {
       %0 = stablehlo.pad %a, %v, low = [0], high = [0], interior = [0] : (tensor<2xf32>, tensor<f64>) -> tensor<2xf32>
       return %0 : tensor<2xf32> })",
     "stablehlo.pad", "(C1) operand #1 has element type f64"},
    {"pad_attribute_sizes",
     R"(func.func @main(%a: tensor<2xf32>, %v: tensor<f32>) -> tensor<3xf32> {
       %0 = "stablehlo.pad"(%a, %v) {edge_padding_low = array<i64: 0, 0>, edge_padding_high = array<i64: 1>, interior_padding = array<i64: 0>} : (tensor<2xf32>, tensor<f32>) -> tensor<3xf32>
       return %0 : tensor<3xf32> })",
     "stablehlo.pad", "(C2) padding attributes need 1 entries"},
    {"reshape_element_type",
     R"(func.func @main(%a: tensor<2x3xf32>) -> tensor<6xi32> {
       %0 = stablehlo.reshape %a : (tensor<2x3xf32>) -> tensor<6xi32>
       return %0 : tensor<6xi32> })",
     "stablehlo.reshape", "(C1) operand has element type f32, result i32"},
    {"reverse_result_type",
     R"(func.func @main(%a: tensor<4xf32>) -> tensor<3xf32> {
       %0 = "stablehlo.reverse"(%a) {dimensions = array<i64: 0>} : (tensor<4xf32>) -> tensor<3xf32>
       return %0 : tensor<3xf32> })",
     "stablehlo.reverse", "(C1) result shape differs"},
    {"reverse_dimension_range",
     R"(func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
       %0 = stablehlo.reverse %a, dims = [1] : tensor<4xf32>
       return %0 : tensor<4xf32> })",
     "stablehlo.reverse", "(C3) dimensions[0] = 1 is out of range"},
    {"slice_element_type",
     R"(func.func @main(%a: tensor<4xf32>) -> tensor<2xi32> {
       %0 = "stablehlo.slice"(%a) {start_indices = array<i64: 0>, limit_indices = array<i64: 2>, strides = array<i64: 1>} : (tensor<4xf32>) -> tensor<2xi32>
       return %0 : tensor<2xi32> })",
     "stablehlo.slice", "(C1) operand #0 has element type f32, result i32"},
    {"slice_attribute_sizes",
     R"(func.func @main(%a: tensor<4xf32>) -> tensor<2xf32> {
       %0 = "stablehlo.slice"(%a) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 2>, strides = array<i64: 1>} : (tensor<4xf32>) -> tensor<2xf32>
       return %0 : tensor<2xf32> })",
     "stablehlo.slice", "(C2) start_indices, limit_indices and strides"},
    {"transpose_element_type",
     R"(func.func @main(%a: tensor<2x3xf32>) -> tensor<3x2xf64> {
       %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf64>
       return %0 : tensor<3x2xf64> })",
     "stablehlo.transpose", "(C1) operand #0 has element type f32, result f64"},
    {"transpose_permutation_size",
     R"(func.func @main(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
       %0 = "stablehlo.transpose"(%a) {permutation = array<i64: 1, 0, 2>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
       return %0 : tensor<3x2xf32> })",
     "stablehlo.transpose", "(C2) permutation has 3 entries"},
    {"broadcast_quantization_dimension",
     R"(func.func @main(%a: tensor<2x!quant.uniform<i8:f32:0, {0.1, 0.2}>>) -> tensor<2x2x!quant.uniform<i8:f32:0, {0.1, 0.2}>> {
       %0 = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<2x!quant.uniform<i8:f32:0, {0.1, 0.2}>>) -> tensor<2x2x!quant.uniform<i8:f32:0, {0.1, 0.2}>>
       return %0 : tensor<2x2x!quant.uniform<i8:f32:0, {0.1, 0.2}>> })",
     "stablehlo.broadcast_in_dim", "(C6) quantization_dimension(result) = 0"},
    {"transpose_quantization_dimension",
     R"(func.func @main(%a: tensor<2x3x!quant.uniform<i8:f32:0, {0.1, 0.2}>>) -> tensor<3x2x!quant.uniform<i8:f32:0, {0.1, 0.2, 0.3}>> {
       %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3x!quant.uniform<i8:f32:0, {0.1, 0.2}>>) -> tensor<3x2x!quant.uniform<i8:f32:0, {0.1, 0.2, 0.3}>>
       return %0 : tensor<3x2x!quant.uniform<i8:f32:0, {0.1, 0.2, 0.3}>> })",
     "stablehlo.transpose", "(C4) quantization_dimension(operand) = 0"},
    {"reshape_quantization_dimension",
     R"(func.func @main(%a: tensor<2x3x!quant.uniform<i8:f32:1, {0.1, 0.2, 0.3}>>) -> tensor<3x2x!quant.uniform<i8:f32:1, {0.1, 0.2}>> {
       %0 = stablehlo.reshape %a : (tensor<2x3x!quant.uniform<i8:f32:1, {0.1, 0.2, 0.3}>>) -> tensor<3x2x!quant.uniform<i8:f32:1, {0.1, 0.2}>>
       return %0 : tensor<3x2x!quant.uniform<i8:f32:1, {0.1, 0.2}>> })",
     "stablehlo.reshape", "(C3) the quantized dimension must keep its size"},
};

HLX_RULES_TEST(DataMovement, kCases);

}  // namespace
