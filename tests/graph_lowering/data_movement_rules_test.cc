// One negative test per data-movement constraint (spec "Constraints" lists
// of broadcast_in_dim, concatenate, dynamic_slice, dynamic_update_slice, pad,
// reshape, reverse, slice, transpose) that core_rules_test does not already
// cover: each program breaks exactly one rule.
#include "tests/graph_lowering/rules_harness.h"

namespace {

using hlx_rules::Case;

// dynamic_broadcast_in_dim of tensor<`in`> to tensor<`out`> (output
// dimensions from a rank-sized argument) with `dims` and extra `attrs`.
#define DBID(in, out, dims, attrs)                                           \
  "func.func @main(%a: tensor<" in ">, %s: tensor<2xi64>) -> tensor<" out   \
  "> {\n  %0 = \"stablehlo.dynamic_broadcast_in_dim\"(%a, %s) "              \
  "{broadcast_dimensions = array<i64: " dims ">" attrs "} : (tensor<" in    \
  ">, tensor<2xi64>) -> tensor<" out ">\n  return %0 : tensor<" out "> }"

// dynamic_pad of tensor<2xf32> by a tensor<`pv`> value with constant
// paddings (`n` entries each for low) into tensor<`res`xf32>.
#define DPAD(pv, lo, hi, in, n, res)                                         \
  "func.func @main(%a: tensor<2xf32>, %v: tensor<" pv ">) -> tensor<" res   \
  "xf32> {\n  %l = stablehlo.constant dense<" lo "> : tensor<" n "xi64>\n"  \
  "  %h = stablehlo.constant dense<" hi "> : tensor<1xi64>\n"               \
  "  %i = stablehlo.constant dense<" in "> : tensor<1xi64>\n"               \
  "  %0 = \"stablehlo.dynamic_pad\"(%a, %v, %l, %h, %i) : (tensor<2xf32>, "  \
  "tensor<" pv ">, tensor<" n "xi64>, tensor<1xi64>, tensor<1xi64>) -> "     \
  "tensor<" res "xf32>\n  return %0 : tensor<" res "xf32> }"

// dynamic_reshape of tensor<2x3xf32> to tensor<`res`> with an
// output_shape of `n` entries.
#define DRESHAPE(res, n)                                                     \
  "func.func @main(%a: tensor<2x3xf32>, %s: tensor<" n "xi64>) -> tensor<"  \
  res "> {\n  %0 = \"stablehlo.dynamic_reshape\"(%a, %s) : (tensor<2x3xf32>, " \
  "tensor<" n "xi64>) -> tensor<" res ">\n  return %0 : tensor<" res "> }"

// dynamic_iota with a constant output_shape of `n` entries `shape`.
#define DIOTA(shape, n, dim, res)                                            \
  "func.func @main() -> tensor<" res "> {\n"                                 \
  "  %s = stablehlo.constant dense<[" shape "]> : tensor<" n "xi64>\n"       \
  "  %0 = \"stablehlo.dynamic_iota\"(%s) {iota_dimension = " dim " : i64} : " \
  "(tensor<" n "xi64>) -> tensor<" res ">\n  return %0 : tensor<" res "> }"

const Case kCases[] = {
    {"BroadcastInDim_C3_BroadcastDimRange",
     R"(func.func @main(%a: tensor<3xf32>) -> tensor<2x3xf32> {
       %0 = stablehlo.broadcast_in_dim %a, dims = [2] : (tensor<3xf32>) -> tensor<2x3xf32>
       return %0 : tensor<2x3xf32> })",
     "stablehlo.broadcast_in_dim", "(C3) broadcast_dimensions[0] = 2"},
    {"Concatenate_C3_NoInputs",
     R"(func.func @main() -> tensor<0xf32> {
       %0 = "stablehlo.concatenate"() {dimension = 0 : i64} : () -> tensor<0xf32>
       return %0 : tensor<0xf32> })",
     "stablehlo.concatenate", "expects at least 1 operand, has 0"},
    {"Concatenate_C5_ResultType",
     R"(func.func @main(%a: tensor<2xf32>) -> tensor<4xf64> {
       %0 = "stablehlo.concatenate"(%a, %a) {dimension = 0 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf64>
       return %0 : tensor<4xf64> })",
     "stablehlo.concatenate", "(C5) operand #0 has element type f32, result f64"},
    {"Concatenate_C6_ResultOtherDim",
     R"(func.func @main(%a: tensor<2x3xf32>) -> tensor<4x2xf32> {
       %0 = stablehlo.concatenate %a, %a, dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x2xf32>
       return %0 : tensor<4x2xf32> })",
     "stablehlo.concatenate", "(C6) operand #0 dim 1 has size 3, result 2"},
    {"DynamicSlice_C1_ElementType",
     R"(func.func @main(%a: tensor<4xf32>, %i: tensor<i32>) -> tensor<2xf64> {
       %0 = "stablehlo.dynamic_slice"(%a, %i) {slice_sizes = array<i64: 2>} : (tensor<4xf32>, tensor<i32>) -> tensor<2xf64>
       return %0 : tensor<2xf64> })",
     "stablehlo.dynamic_slice", "(C1) operand #0 has element type f32, result f64"},
    {"DynamicSlice_C2_SizesCount",
     R"(func.func @main(%a: tensor<4xf32>, %i: tensor<i32>) -> tensor<2xf32> {
       %0 = "stablehlo.dynamic_slice"(%a, %i) {slice_sizes = array<i64: 2, 1>} : (tensor<4xf32>, tensor<i32>) -> tensor<2xf32>
       return %0 : tensor<2xf32> })",
     "stablehlo.dynamic_slice", "(C2) slice_sizes has 2 entries"},
    {"DynamicSlice_C3_IndexTypes",
     R"(func.func @main(%a: tensor<4x4xf32>, %i: tensor<i32>, %j: tensor<i64>) -> tensor<2x2xf32> {
       %0 = "stablehlo.dynamic_slice"(%a, %i, %j) {slice_sizes = array<i64: 2, 2>} : (tensor<4x4xf32>, tensor<i32>, tensor<i64>) -> tensor<2x2xf32>
       return %0 : tensor<2x2xf32> })",
     "stablehlo.dynamic_slice", "(C3) start indices must be integer scalars"},
    {"DynamicSlice_C5_ResultShape",
     R"(func.func @main(%a: tensor<4xf32>, %i: tensor<i32>) -> tensor<3xf32> {
       %0 = "stablehlo.dynamic_slice"(%a, %i) {slice_sizes = array<i64: 2>} : (tensor<4xf32>, tensor<i32>) -> tensor<3xf32>
       return %0 : tensor<3xf32> })",
     "stablehlo.dynamic_slice", "(C5) result shape is not slice_sizes"},
    {"DynamicUpdateSlice_C1_ResultType",
     R"(func.func @main(%a: tensor<4xf32>, %u: tensor<2xf32>, %i: tensor<i32>) -> tensor<5xf32> {
       %0 = "stablehlo.dynamic_update_slice"(%a, %u, %i) : (tensor<4xf32>, tensor<2xf32>, tensor<i32>) -> tensor<5xf32>
       return %0 : tensor<5xf32> })",
     "stablehlo.dynamic_update_slice", "(C1) result shape differs"},
    {"DynamicUpdateSlice_C2_UpdateType",
     R"(func.func @main(%a: tensor<4xf32>, %u: tensor<2xf64>, %i: tensor<i32>) -> tensor<4xf32> {
       %0 = "stablehlo.dynamic_update_slice"(%a, %u, %i) : (tensor<4xf32>, tensor<2xf64>, tensor<i32>) -> tensor<4xf32>
       return %0 : tensor<4xf32> })",
     "stablehlo.dynamic_update_slice", "(C2) operand #1 has element type f64"},
    {"DynamicUpdateSlice_C3_UpdateRank",
     R"(func.func @main(%a: tensor<4xf32>, %u: tensor<1x2xf32>, %i: tensor<i32>) -> tensor<4xf32> {
       %0 = "stablehlo.dynamic_update_slice"(%a, %u, %i) : (tensor<4xf32>, tensor<1x2xf32>, tensor<i32>) -> tensor<4xf32>
       return %0 : tensor<4xf32> })",
     "stablehlo.dynamic_update_slice", "(C3) update rank 2 differs"},
    {"DynamicUpdateSlice_C4_IndexCount",
     R"(func.func @main(%a: tensor<4xf32>, %u: tensor<2xf32>, %i: tensor<i32>) -> tensor<4xf32> {
       %0 = "stablehlo.dynamic_update_slice"(%a, %u, %i, %i) : (tensor<4xf32>, tensor<2xf32>, tensor<i32>, tensor<i32>) -> tensor<4xf32>
       return %0 : tensor<4xf32> })",
     "stablehlo.dynamic_update_slice", "(C4) needs 1 start indices, has 2"},
    {"DynamicUpdateSlice_C6_UpdateSize",
     R"(func.func @main(%a: tensor<4xf32>, %u: tensor<5xf32>, %i: tensor<i32>) -> tensor<4xf32> {
       %0 = "stablehlo.dynamic_update_slice"(%a, %u, %i) : (tensor<4xf32>, tensor<5xf32>, tensor<i32>) -> tensor<4xf32>
       return %0 : tensor<4xf32> })",
     "stablehlo.dynamic_update_slice", "(C6) dim 0: window size 5 exceeds"},
    {"Pad_C1_ValueType",
     R"(func.func @main(%a: tensor<2xf32>, %v: tensor<f64>) -> tensor<2xf32> {
       %0 = stablehlo.pad %a, %v, low = [0], high = [0], interior = [0] : (tensor<2xf32>, tensor<f64>) -> tensor<2xf32>
       return %0 : tensor<2xf32> })",
     "stablehlo.pad", "(C1) operand #1 has element type f64"},
    {"Pad_C2_AttributeSizes",
     R"(func.func @main(%a: tensor<2xf32>, %v: tensor<f32>) -> tensor<3xf32> {
       %0 = "stablehlo.pad"(%a, %v) {edge_padding_low = array<i64: 0, 0>, edge_padding_high = array<i64: 1>, interior_padding = array<i64: 0>} : (tensor<2xf32>, tensor<f32>) -> tensor<3xf32>
       return %0 : tensor<3xf32> })",
     "stablehlo.pad", "(C2) padding attributes need 1 entries"},
    {"Reshape_C1_ElementType",
     R"(func.func @main(%a: tensor<2x3xf32>) -> tensor<6xi32> {
       %0 = stablehlo.reshape %a : (tensor<2x3xf32>) -> tensor<6xi32>
       return %0 : tensor<6xi32> })",
     "stablehlo.reshape", "(C1) operand has element type f32, result i32"},
    {"Reverse_C1_ResultType",
     R"(func.func @main(%a: tensor<4xf32>) -> tensor<3xf32> {
       %0 = "stablehlo.reverse"(%a) {dimensions = array<i64: 0>} : (tensor<4xf32>) -> tensor<3xf32>
       return %0 : tensor<3xf32> })",
     "stablehlo.reverse", "(C1) result shape differs"},
    {"Reverse_C3_DimensionRange",
     R"(func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
       %0 = stablehlo.reverse %a, dims = [1] : tensor<4xf32>
       return %0 : tensor<4xf32> })",
     "stablehlo.reverse", "(C3) dimensions[0] = 1 is out of range"},
    {"Slice_C1_ElementType",
     R"(func.func @main(%a: tensor<4xf32>) -> tensor<2xi32> {
       %0 = "stablehlo.slice"(%a) {start_indices = array<i64: 0>, limit_indices = array<i64: 2>, strides = array<i64: 1>} : (tensor<4xf32>) -> tensor<2xi32>
       return %0 : tensor<2xi32> })",
     "stablehlo.slice", "(C1) operand #0 has element type f32, result i32"},
    {"Slice_C2_AttributeSizes",
     R"(func.func @main(%a: tensor<4xf32>) -> tensor<2xf32> {
       %0 = "stablehlo.slice"(%a) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 2>, strides = array<i64: 1>} : (tensor<4xf32>) -> tensor<2xf32>
       return %0 : tensor<2xf32> })",
     "stablehlo.slice", "(C2) start_indices, limit_indices and strides"},
    {"Transpose_C1_ElementType",
     R"(func.func @main(%a: tensor<2x3xf32>) -> tensor<3x2xf64> {
       %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf64>
       return %0 : tensor<3x2xf64> })",
     "stablehlo.transpose", "(C1) operand #0 has element type f32, result f64"},
    {"Transpose_C2_PermutationSize",
     R"(func.func @main(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
       %0 = "stablehlo.transpose"(%a) {permutation = array<i64: 1, 0, 2>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
       return %0 : tensor<3x2xf32> })",
     "stablehlo.transpose", "(C2) permutation has 3 entries"},
    {"BroadcastInDim_C6_BroadcastQuantizationDimension",
     R"(func.func @main(%a: tensor<2x!quant.uniform<i8:f32:0, {0.1, 0.2}>>) -> tensor<2x2x!quant.uniform<i8:f32:0, {0.1, 0.2}>> {
       %0 = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<2x!quant.uniform<i8:f32:0, {0.1, 0.2}>>) -> tensor<2x2x!quant.uniform<i8:f32:0, {0.1, 0.2}>>
       return %0 : tensor<2x2x!quant.uniform<i8:f32:0, {0.1, 0.2}>> })",
     "stablehlo.broadcast_in_dim", "(C6) quantization_dimension(result) = 0"},
    {"Transpose_C4_QuantizationDimension",
     R"(func.func @main(%a: tensor<2x3x!quant.uniform<i8:f32:0, {0.1, 0.2}>>) -> tensor<3x2x!quant.uniform<i8:f32:0, {0.1, 0.2, 0.3}>> {
       %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3x!quant.uniform<i8:f32:0, {0.1, 0.2}>>) -> tensor<3x2x!quant.uniform<i8:f32:0, {0.1, 0.2, 0.3}>>
       return %0 : tensor<3x2x!quant.uniform<i8:f32:0, {0.1, 0.2, 0.3}>> })",
     "stablehlo.transpose", "(C4) quantization_dimension(operand) = 0"},
    {"Reshape_C3_QuantizationDimension",
     R"(func.func @main(%a: tensor<2x3x!quant.uniform<i8:f32:1, {0.1, 0.2, 0.3}>>) -> tensor<3x2x!quant.uniform<i8:f32:1, {0.1, 0.2}>> {
       %0 = stablehlo.reshape %a : (tensor<2x3x!quant.uniform<i8:f32:1, {0.1, 0.2, 0.3}>>) -> tensor<3x2x!quant.uniform<i8:f32:1, {0.1, 0.2}>>
       return %0 : tensor<3x2x!quant.uniform<i8:f32:1, {0.1, 0.2}>> })",
     "stablehlo.reshape", "(C3) the quantized dimension must keep its size"},
    {"DynamicBroadcastInDim_C1_ElementType", DBID("3xf32", "2x3xf64", "1", ""),
     "stablehlo.dynamic_broadcast_in_dim", "(C1) operand #0 has element type f32, result f64"},
    {"DynamicBroadcastInDim_C2_DimsCount", DBID("3xf32", "2x3xf32", "0, 1", ""),
     "stablehlo.dynamic_broadcast_in_dim", "(C2) broadcast_dimensions has 2 entries"},
    {"DynamicBroadcastInDim_C3_DimRange", DBID("3xf32", "2x3xf32", "2", ""),
     "stablehlo.dynamic_broadcast_in_dim", "(C3) broadcast_dimensions[0] = 2"},
    {"DynamicBroadcastInDim_C4_DimsUnique", DBID("1x1xf32", "2x3xf32", "0, 0", ""),
     "stablehlo.dynamic_broadcast_in_dim", "(C4) broadcast_dimensions has 0 twice"},
    {"DynamicBroadcastInDim_C5_DimSize", DBID("3xf32", "2x4xf32", "1", ""),
     "stablehlo.dynamic_broadcast_in_dim", "(C5) operand dim 0 has size 3"},
    {"DynamicBroadcastInDim_C7_OutputDimensionsSize",
     "func.func @main(%a: tensor<3xf32>, %s: tensor<3xi64>) -> tensor<2x3xf32> {\n"
     "  %0 = \"stablehlo.dynamic_broadcast_in_dim\"(%a, %s) {broadcast_dimensions = "
     "array<i64: 1>} : (tensor<3xf32>, tensor<3xi64>) -> tensor<2x3xf32>\n"
     "  return %0 : tensor<2x3xf32> }",
     "stablehlo.dynamic_broadcast_in_dim", "(C7) output_dimensions has 3 entries, result rank is 2"},
    {"DynamicBroadcastInDim_C8_HintsUnique",
     DBID("3xf32", "2x3xf32", "1",
          ", known_expanding_dimensions = array<i64: 0>, "
          "known_nonexpanding_dimensions = array<i64: 0>"),
     "stablehlo.dynamic_broadcast_in_dim", "(C8) operand dim 0 is named twice"},
    {"DynamicBroadcastInDim_C9_ExpandingRange",
     DBID("3xf32", "2x3xf32", "1", ", known_expanding_dimensions = array<i64: 1>"),
     "stablehlo.dynamic_broadcast_in_dim", "(C9) known_expanding_dimensions[0] = 1"},
    {"DynamicBroadcastInDim_C10_NonexpandingRange",
     DBID("3xf32", "2x3xf32", "1", ", known_nonexpanding_dimensions = array<i64: -1>"),
     "stablehlo.dynamic_broadcast_in_dim", "(C10) known_nonexpanding_dimensions[0] = -1"},
    {"DynamicPad_C1_ElementTypes", DPAD("f64", "[1]", "[1]", "[0]", "1", "4"),
     "stablehlo.dynamic_pad", "(C1) operand #1 has element type f64"},
    {"DynamicPad_C2_PaddingSizes", DPAD("f32", "[1, 0]", "[1]", "[0]", "2", "4"),
     "stablehlo.dynamic_pad", "(C2) padding attributes need 1 entries"},
    {"DynamicPad_C3_InteriorNonNegative", DPAD("f32", "[1]", "[1]", "[-1]", "1", "3"),
     "stablehlo.dynamic_pad", "(C3) interior_padding[0] = -1 must be >= 0"},
    {"DynamicPad_C4_ResultShape", DPAD("f32", "[1]", "[1]", "[0]", "1", "5"),
     "stablehlo.dynamic_pad", "(C4) result dim 0 has size 5, padding gives 4"},
    {"DynamicReshape_C1_ElementType", DRESHAPE("6xi32", "1"),
     "stablehlo.dynamic_reshape", "(C1) operand has element type f32, result i32"},
    {"DynamicReshape_C2_ElementCount", DRESHAPE("5xf32", "1"),
     "stablehlo.dynamic_reshape", "(C2) operand has 6 elements, result 5"},
    {"DynamicReshape_C4_OutputShapeSize", DRESHAPE("6xf32", "2"),
     "stablehlo.dynamic_reshape", "(C4) output_shape has 2 entries, result rank is 1"},
    {"DynamicBroadcastInDim_C6_QuantizationDimension",
     "func.func @main(%a: tensor<2x!quant.uniform<i8:f32:0, {0.1, 0.2}>>, %s: tensor<2xi64>) -> tensor<2x2x!quant.uniform<i8:f32:0, {0.1, 0.2}>> {\n"
     "  %0 = \"stablehlo.dynamic_broadcast_in_dim\"(%a, %s) {broadcast_dimensions = array<i64: 1>} : "
     "(tensor<2x!quant.uniform<i8:f32:0, {0.1, 0.2}>>, tensor<2xi64>) -> tensor<2x2x!quant.uniform<i8:f32:0, {0.1, 0.2}>>\n"
     "  return %0 : tensor<2x2x!quant.uniform<i8:f32:0, {0.1, 0.2}>> }",
     "stablehlo.dynamic_broadcast_in_dim", "(C6) quantization_dimension(result) = 0"},
    {"DynamicReshape_C3_QuantizationDimension",
     "func.func @main(%a: tensor<2x3x!quant.uniform<i8:f32:1, {0.1, 0.2, 0.3}>>, %s: tensor<2xi64>) -> tensor<3x2x!quant.uniform<i8:f32:1, {0.1, 0.2}>> {\n"
     "  %0 = \"stablehlo.dynamic_reshape\"(%a, %s) : (tensor<2x3x!quant.uniform<i8:f32:1, {0.1, 0.2, 0.3}>>, tensor<2xi64>) -> "
     "tensor<3x2x!quant.uniform<i8:f32:1, {0.1, 0.2}>>\n"
     "  return %0 : tensor<3x2x!quant.uniform<i8:f32:1, {0.1, 0.2}>> }",
     "stablehlo.dynamic_reshape", "(C3) the quantized dimension must keep its size"},
    {"DynamicIota_C1_IotaDimension", DIOTA("4, 5", "2", "2", "4x5xf32"),
     "stablehlo.dynamic_iota", "(C1) iota_dimension 2 is out of range"},
    {"DynamicIota_C2_OutputShapeSize", DIOTA("4, 5, 6", "3", "0", "4x5xf32"),
     "stablehlo.dynamic_iota", "(C2) output_shape has 3 entries, result rank is 2"},
};

HLX_RULES_TEST(DataMovement, kCases);

}  // namespace
