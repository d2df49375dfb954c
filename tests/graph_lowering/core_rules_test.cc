// One negative test per rule the verifier and the lowering of the core op
// families (elementwise, data movement, reduce, dot, control flow, calls)
// enforce: each broken rule must give a status that names the op and the
// rule, never a crash.
#include "tests/graph_lowering/rules_harness.h"

namespace {

using hlx_rules::Case;

const Case kCases[] = {
    {"add_mixed_types",
     R"(func.func @main(%a: tensor<2xf32>, %b: tensor<2xf64>) -> tensor<2xf32> {
       %0 = "stablehlo.add"(%a, %b) : (tensor<2xf32>, tensor<2xf64>) -> tensor<2xf32>
       return %0 : tensor<2xf32> })",
     "stablehlo.add", "element types f32 and f64"},
    {"add_shape_mismatch",
     R"(func.func @main(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<2xf32> {
       %0 = "stablehlo.add"(%a, %b) : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>
       return %0 : tensor<2xf32> })",
     "stablehlo.add", "shape differs"},
    {"sqrt_of_int",
     R"(func.func @main(%a: tensor<2xi32>) -> tensor<2xi32> {
       %0 = stablehlo.sqrt %a : tensor<2xi32>
       return %0 : tensor<2xi32> })",
     "stablehlo.sqrt", "element type i32 is not allowed"},
    {"is_finite_result_type",
     R"(func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
       %0 = "stablehlo.is_finite"(%a) : (tensor<2xf32>) -> tensor<2xf32>
       return %0 : tensor<2xf32> })",
     "stablehlo.is_finite", "the op produces i1"},
    {"compare_bad_direction",
     R"(func.func @main(%a: tensor<2xf32>) -> tensor<2xi1> {
       %0 = "stablehlo.compare"(%a, %a) {comparison_direction = #stablehlo<comparison_direction XX>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
       return %0 : tensor<2xi1> })",
     "stablehlo.compare", "comparison_direction must be one of"},
    {"Compare_C3_TypeForElementType",
     R"(func.func @main(%a: tensor<2xi32>) -> tensor<2xi1> {
       %0 = "stablehlo.compare"(%a, %a) {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
       return %0 : tensor<2xi1> })",
     "stablehlo.compare", "(C3) compare_type FLOAT is not allowed for i32"},
    {"Compare_C1_OperandTypes",
     R"(func.func @main(%a: tensor<2xi32>, %b: tensor<2xi64>) -> tensor<2xi1> {
       %0 = "stablehlo.compare"(%a, %b) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<2xi32>, tensor<2xi64>) -> tensor<2xi1>
       return %0 : tensor<2xi1> })",
     "stablehlo.compare", "(C1) lhs and rhs have element types i32 and i64"},
    {"select_pred_type",
     R"(func.func @main(%p: tensor<2xi32>, %a: tensor<2xf32>) -> tensor<2xf32> {
       %0 = "stablehlo.select"(%p, %a, %a) : (tensor<2xi32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
       return %0 : tensor<2xf32> })",
     "stablehlo.select", "pred must have element type i1"},
    {"select_pred_shape",
     R"(func.func @main(%p: tensor<3xi1>, %a: tensor<2xf32>) -> tensor<2xf32> {
       %0 = "stablehlo.select"(%p, %a, %a) : (tensor<3xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
       return %0 : tensor<2xf32> })",
     "stablehlo.select", "pred must be a scalar or have the operands' shape"},
    {"clamp_bound_shape",
     R"(func.func @main(%lo: tensor<3xf32>, %a: tensor<2xf32>) -> tensor<2xf32> {
       %0 = "stablehlo.clamp"(%lo, %a, %a) : (tensor<3xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
       return %0 : tensor<2xf32> })",
     "stablehlo.clamp", "min must be a scalar or have the operand's type"},
    {"reduce_precision_exponent",
     R"(func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
       %0 = "stablehlo.reduce_precision"(%a) {exponent_bits = 0 : i32, mantissa_bits = 2 : i32} : (tensor<2xf32>) -> tensor<2xf32>
       return %0 : tensor<2xf32> })",
     "stablehlo.reduce_precision", "exponent_bits must be >= 1"},
    {"BroadcastInDim_C2_BroadcastDimsCount",
     R"(func.func @main(%a: tensor<3xf32>) -> tensor<2x3xf32> {
       %0 = stablehlo.broadcast_in_dim %a, dims = [0, 1] : (tensor<3xf32>) -> tensor<2x3xf32>
       return %0 : tensor<2x3xf32> })",
     "stablehlo.broadcast_in_dim", "(C2) broadcast_dimensions has 2 entries"},
    {"BroadcastInDim_C5_BroadcastSize",
     R"(func.func @main(%a: tensor<3xf32>) -> tensor<2x4xf32> {
       %0 = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<3xf32>) -> tensor<2x4xf32>
       return %0 : tensor<2x4xf32> })",
     "stablehlo.broadcast_in_dim", "(C5) operand dim 0 has size 3"},
    {"Transpose_C2_NotPermutation",
     R"(func.func @main(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
       %0 = stablehlo.transpose %a, dims = [0, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
       return %0 : tensor<3x2xf32> })",
     "stablehlo.transpose", "(C2) permutation is not a permutation"},
    {"Slice_C3_LimitBeyondSize",
     R"(func.func @main(%a: tensor<4xf32>) -> tensor<3xf32> {
       %0 = "stablehlo.slice"(%a) {start_indices = array<i64: 2>, limit_indices = array<i64: 5>, strides = array<i64: 1>} : (tensor<4xf32>) -> tensor<3xf32>
       return %0 : tensor<3xf32> })",
     "stablehlo.slice", "(C3) dim 0: need 0 <= start (2) <= limit (5) <= size (4)"},
    {"Reverse_C2_RepeatedDim",
     R"(func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
       %0 = stablehlo.reverse %a, dims = [0, 0] : tensor<4xf32>
       return %0 : tensor<4xf32> })",
     "stablehlo.reverse", "(C2) dimensions[1] = 0 is repeated"},
    {"Concatenate_C6_Sizes",
     R"(func.func @main(%a: tensor<2xf32>) -> tensor<5xf32> {
       %0 = stablehlo.concatenate %a, %a, dim = 0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<5xf32>
       return %0 : tensor<5xf32> })",
     "stablehlo.concatenate", "(C6) operands add up to 4 along dim 0"},
    {"Pad_C3_NegativeInterior",
     R"(func.func @main(%a: tensor<2xf32>, %v: tensor<f32>) -> tensor<2xf32> {
       %0 = stablehlo.pad %a, %v, low = [0], high = [1], interior = [-1] : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
       return %0 : tensor<2xf32> })",
     "stablehlo.pad", "(C3) interior_padding[0] = -1 must be >= 0"},
    {"Iota_C1_Dimension",
     R"(func.func @main() -> tensor<4xf32> {
       %0 = stablehlo.iota dim = 1 : tensor<4xf32>
       return %0 : tensor<4xf32> })",
     "stablehlo.iota", "(C1) iota_dimension 1 is out of range"},
    {"DynamicSlice_C4_Size",
     R"(func.func @main(%a: tensor<4xf32>, %i: tensor<i32>) -> tensor<5xf32> {
       %0 = stablehlo.dynamic_slice %a, %i, sizes = [5] : (tensor<4xf32>, tensor<i32>) -> tensor<5xf32>
       return %0 : tensor<5xf32> })",
     "stablehlo.dynamic_slice", "(C4) dim 0: window size 5 exceeds operand size 4"},
    {"Reduce_C4_DimensionRange",
     R"(func.func @main(%a: tensor<4xf32>, %z: tensor<f32>) -> tensor<f32> {
       %0 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
       return %0 : tensor<f32> })",
     "stablehlo.reduce", "(C4) dimensions[0] = 1 is out of range"},
    {"DotGeneral_C10_ContractingSizes",
     R"(func.func @main(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
       %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
       return %0 : tensor<2x5xf32> })",
     "stablehlo.dot_general", "(C10) lhs contracting dim 1 has size 3, rhs dim 0 has 4"},
    {"DotGeneral_C12_ResultShape",
     R"(func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) -> tensor<2x6xf32> {
       %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x6xf32>
       return %0 : tensor<2x6xf32> })",
     "stablehlo.dot_general", "(C12) result shape must be"},
    {"DotGeneral_C1_BatchingCounts",
     R"(func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2xf32> {
       %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2xf32>
       return %0 : tensor<2xf32> })",
     "stablehlo.dot_general", "(C1) lhs and rhs need as many batching dimensions (1 vs 0)"},
    {"DotGeneral_C2_ContractingCounts",
     R"(func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<2x2xf32> {
       %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = []>} : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
       return %0 : tensor<2x2xf32> })",
     "stablehlo.dot_general", "(C2) lhs and rhs need as many contracting dimensions (1 vs 0)"},
    {"DotGeneral_C3_RepeatedDimension",
     R"(func.func @main(%a: tensor<3x3xf32>, %b: tensor<3x3xf32>) -> tensor<3xf32> {
       %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [1]>} : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3xf32>
       return %0 : tensor<3xf32> })",
     "stablehlo.dot_general", "(C3) lhs dimension 0 appears twice"},
    {"DotGeneral_C5_BatchingRange",
     R"(func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2xf32> {
       %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [5], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2xf32>
       return %0 : tensor<2xf32> })",
     "stablehlo.dot_general", "(C5) lhs_batching_dimensions has 5"},
    {"DotGeneral_C9_BatchingSizes",
     R"(func.func @main(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) -> tensor<2xf32> {
       %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2xf32>
       return %0 : tensor<2xf32> })",
     "stablehlo.dot_general", "(C9) lhs batching dim 0 has size 2, rhs dim 0 has 4"},
    {"DotGeneral_C11_PrecisionConfigSize",
     R"(func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<2x2xf32> {
       %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>]} : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
       return %0 : tensor<2x2xf32> })",
     "stablehlo.dot_general", "(C11) precision_config must have 2 entries"},
    {"While_C1_CondNotPred",
     R"(func.func @main(%a: tensor<i32>) -> tensor<i32> {
       %0 = "stablehlo.while"(%a) ({
         ^bb0(%x: tensor<i32>):
           stablehlo.return %x : tensor<i32>
       }, {
         ^bb0(%x: tensor<i32>):
           stablehlo.return %x : tensor<i32>
       }) : (tensor<i32>) -> tensor<i32>
       return %0 : tensor<i32> })",
     "stablehlo.while", "(C1) cond result #0 has the wrong type"},
    {"While_C2_BodyType",
     R"(func.func @main(%a: tensor<i32>, %p: tensor<i1>) -> tensor<i32> {
       %0 = "stablehlo.while"(%a) ({
         ^bb0(%x: tensor<i32>):
           stablehlo.return %p : tensor<i1>
       }, {
         ^bb0(%x: tensor<i32>):
           %f = stablehlo.convert %x : (tensor<i32>) -> tensor<f32>
           stablehlo.return %f : tensor<f32>
       }) : (tensor<i32>) -> tensor<i32>
       return %0 : tensor<i32> })",
     "stablehlo.while", "(C2) body result #0 has the wrong type"},
    {"While_C2_BodyArguments",
     R"(func.func @main(%a: tensor<i32>, %p: tensor<i1>) -> tensor<i32> {
       %0 = "stablehlo.while"(%a) ({
         ^bb0(%x: tensor<i32>):
           stablehlo.return %p : tensor<i1>
       }, {
         ^bb0(%x: tensor<i32>, %y: tensor<i32>):
           stablehlo.return %x : tensor<i32>
       }) : (tensor<i32>) -> tensor<i32>
       return %0 : tensor<i32> })",
     "stablehlo.while", "(C2) body takes 2 arguments, must take 1"},
    {"If_C2_BranchTypes",
     R"(func.func @main(%p: tensor<i1>, %a: tensor<f32>, %b: tensor<i32>) -> tensor<f32> {
       %0 = "stablehlo.if"(%p) ({ stablehlo.return %a : tensor<f32> }, { stablehlo.return %b : tensor<i32> }) : (tensor<i1>) -> tensor<f32>
       return %0 : tensor<f32> })",
     "stablehlo.if", "(C2) branch 1 result #0 has the wrong type"},
    {"Case_C2_BranchArguments",
     R"(func.func @main(%i: tensor<i32>, %a: tensor<f32>) -> tensor<f32> {
       %0 = "stablehlo.case"(%i) ({
         ^bb0(%x: tensor<f32>):
           stablehlo.return %x : tensor<f32>
       }) : (tensor<i32>) -> tensor<f32>
       return %0 : tensor<f32> })",
     "stablehlo.case", "(C2) branch 0 takes 1 arguments, must take 0"},
    {"Reduce_C1_ShapesDiffer",
     R"(func.func @main(%a: tensor<4xf32>, %b: tensor<3xf32>, %z: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
       %0:2 = stablehlo.reduce(%a init: %z), (%b init: %z) across dimensions = [0] : (tensor<4xf32>, tensor<3xf32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
        reducer(%x: tensor<f32>, %y: tensor<f32>) (%u: tensor<f32>, %v: tensor<f32>) {
         stablehlo.return %x, %u : tensor<f32>, tensor<f32>
       }
       return %0#0, %0#1 : tensor<f32>, tensor<f32> })",
     "stablehlo.reduce", "(C1) inputs #0 and #1 have different shapes"},
    {"Reduce_C2_InitType",
     R"(func.func @main(%a: tensor<4xf32>, %z: tensor<f64>) -> tensor<f32> {
       %0 = "stablehlo.reduce"(%a, %z) ({
         ^bb0(%x: tensor<f32>, %y: tensor<f32>):
           stablehlo.return %x : tensor<f32>
       }) {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<f64>) -> tensor<f32>
       return %0 : tensor<f32> })",
     "stablehlo.reduce", "(C2) init value #0 must be a scalar of the input's element type"},
    {"Reduce_C5_RepeatedDimension",
     R"(func.func @main(%a: tensor<4x2xf32>, %z: tensor<f32>) -> tensor<f32> {
       %0 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0, 0] : (tensor<4x2xf32>, tensor<f32>) -> tensor<f32>
       return %0 : tensor<f32> })",
     "stablehlo.reduce", "(C5) dimensions[1] = 0 is repeated"},
    {"Reduce_C6_BodySignature",
     R"(func.func @main(%a: tensor<4xf32>, %z: tensor<f32>) -> tensor<f32> {
       %0 = "stablehlo.reduce"(%a, %z) ({
         ^bb0(%x: tensor<f32>, %y: tensor<f64>):
           stablehlo.return %x : tensor<f32>
       }) {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
       return %0 : tensor<f32> })",
     "stablehlo.reduce", "(C6) body arguments #0 and #1"},
    {"Reduce_C7_ResultShape",
     R"(func.func @main(%a: tensor<4x2xf32>, %z: tensor<f32>) -> tensor<4xf32> {
       %0 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4x2xf32>, tensor<f32>) -> tensor<4xf32>
       return %0 : tensor<4xf32> })",
     "stablehlo.reduce", "(C7) result #0's shape is not the input's kept dims"},
    {"Concatenate_C1_ElementTypes",
     R"(func.func @main(%a: tensor<2xf32>, %b: tensor<2xf64>) -> tensor<4xf32> {
       %0 = "stablehlo.concatenate"(%a, %b) {dimension = 0 : i64} : (tensor<2xf32>, tensor<2xf64>) -> tensor<4xf32>
       return %0 : tensor<4xf32> })",
     "stablehlo.concatenate", "(C1) input #1 has element type f64, input #0 f32"},
    {"Concatenate_C2_OtherDims",
     R"(func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) -> tensor<4x3xf32> {
       %0 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
       return %0 : tensor<4x3xf32> })",
     "stablehlo.concatenate", "(C2) input #1 dim 1 has size 4, input #0 3"},
    {"Concatenate_C4_DimensionRange",
     R"(func.func @main(%a: tensor<2xf32>) -> tensor<4xf32> {
       %0 = "stablehlo.concatenate"(%a, %a) {dimension = 1 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
       return %0 : tensor<4xf32> })",
     "stablehlo.concatenate", "(C4) dimension 1 is out of range for rank 1"},
    {"Pad_C4_ResultSize",
     R"(func.func @main(%a: tensor<2xf32>, %v: tensor<f32>) -> tensor<5xf32> {
       %0 = stablehlo.pad %a, %v, low = [1], high = [1], interior = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<5xf32>
       return %0 : tensor<5xf32> })",
     "stablehlo.pad", "(C4) result dim 0 has size 5, padding gives 4"},
    {"pad_value_scalar",
     R"(func.func @main(%a: tensor<2xf32>, %v: tensor<1xf32>) -> tensor<2xf32> {
       %0 = "stablehlo.pad"(%a, %v) {edge_padding_low = array<i64: 0>, edge_padding_high = array<i64: 0>, interior_padding = array<i64: 0>} : (tensor<2xf32>, tensor<1xf32>) -> tensor<2xf32>
       return %0 : tensor<2xf32> })",
     "stablehlo.pad", "padding_value must be a scalar"},
    {"Slice_C4_StridePositive",
     R"(func.func @main(%a: tensor<4xf32>) -> tensor<2xf32> {
       %0 = "stablehlo.slice"(%a) {start_indices = array<i64: 0>, limit_indices = array<i64: 2>, strides = array<i64: 0>} : (tensor<4xf32>) -> tensor<2xf32>
       return %0 : tensor<2xf32> })",
     "stablehlo.slice", "(C4) dim 0: need"},
    {"Slice_C5_ResultShape",
     R"(func.func @main(%a: tensor<4xf32>) -> tensor<3xf32> {
       %0 = "stablehlo.slice"(%a) {start_indices = array<i64: 0>, limit_indices = array<i64: 4>, strides = array<i64: 2>} : (tensor<4xf32>) -> tensor<3xf32>
       return %0 : tensor<3xf32> })",
     "stablehlo.slice", "(C5) result dim 0 has size 3, the slice gives 2"},
    {"Transpose_C3_ResultShape",
     R"(func.func @main(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
       %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<2x3xf32>
       return %0 : tensor<2x3xf32> })",
     "stablehlo.transpose", "(C3) result dim 0 has size 2, operand dim 1 has 3"},
    {"BroadcastInDim_C4_BroadcastDimsRepeated",
     R"(func.func @main(%a: tensor<1x1xf32>) -> tensor<2x2xf32> {
       %0 = stablehlo.broadcast_in_dim %a, dims = [0, 0] : (tensor<1x1xf32>) -> tensor<2x2xf32>
       return %0 : tensor<2x2xf32> })",
     "stablehlo.broadcast_in_dim", "(C4) broadcast_dimensions has 0 twice"},
    {"BroadcastInDim_C1_BroadcastElementType",
     R"(func.func @main(%a: tensor<2xf32>) -> tensor<2xf64> {
       %0 = stablehlo.broadcast_in_dim %a, dims = [0] : (tensor<2xf32>) -> tensor<2xf64>
       return %0 : tensor<2xf64> })",
     "stablehlo.broadcast_in_dim", "(C1) operand #0 has element type f32, result f64"},
    {"Reshape_C2_ElementCount",
     R"(func.func @main(%a: tensor<2x3xf32>) -> tensor<5xf32> {
       %0 = stablehlo.reshape %a : (tensor<2x3xf32>) -> tensor<5xf32>
       return %0 : tensor<5xf32> })",
     "stablehlo.reshape", "(C2) operand has 6 elements, result 5"},
    {"bitcast_convert_bits",
     R"(func.func @main(%a: tensor<2xf32>) -> tensor<2xf64> {
       %0 = stablehlo.bitcast_convert %a : (tensor<2xf32>) -> tensor<2xf64>
       return %0 : tensor<2xf64> })",
     "stablehlo.bitcast_convert", "operand has 64 bits, result 128"},
    {"DynamicSlice_C2_IndexCount",
     R"(func.func @main(%a: tensor<4x4xf32>, %i: tensor<i32>) -> tensor<2x2xf32> {
       %0 = "stablehlo.dynamic_slice"(%a, %i) {slice_sizes = array<i64: 2, 2>} : (tensor<4x4xf32>, tensor<i32>) -> tensor<2x2xf32>
       return %0 : tensor<2x2xf32> })",
     "stablehlo.dynamic_slice", "(C2) needs 2 start indices, has 1"},
    {"DynamicUpdateSlice_C5_IndexTypes",
     R"(func.func @main(%a: tensor<4xf32>, %u: tensor<2xf32>, %i: tensor<f32>) -> tensor<4xf32> {
       %0 = "stablehlo.dynamic_update_slice"(%a, %u, %i) : (tensor<4xf32>, tensor<2xf32>, tensor<f32>) -> tensor<4xf32>
       return %0 : tensor<4xf32> })",
     "stablehlo.dynamic_update_slice", "(C5) start indices must be integer scalars"},
    {"select_branch_types",
     R"(func.func @main(%p: tensor<i1>, %a: tensor<2xf32>, %b: tensor<2xf64>) -> tensor<2xf32> {
       %0 = "stablehlo.select"(%p, %a, %b) : (tensor<i1>, tensor<2xf32>, tensor<2xf64>) -> tensor<2xf32>
       return %0 : tensor<2xf32> })",
     "stablehlo.select", "on_true, on_false and the result must have the same type"},
    {"compare_result_type",
     R"(func.func @main(%a: tensor<2xf32>) -> tensor<2xi32> {
       %0 = "stablehlo.compare"(%a, %a) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi32>
       return %0 : tensor<2xi32> })",
     "stablehlo.compare", "result element type is i32, the op produces i1"},
    {"GetTupleElement_C1_Index",
     R"(func.func @main(%a: tensor<f32>) -> tensor<f32> {
       %t = stablehlo.tuple %a : tuple<tensor<f32>>
       %0 = "stablehlo.get_tuple_element"(%t) {index = 3 : i32} : (tuple<tensor<f32>>) -> tensor<f32>
       return %0 : tensor<f32> })",
     "stablehlo.get_tuple_element", "(C1) index 3 is out of range"},
    {"if_pred_not_scalar",
     R"(func.func @main(%p: tensor<2xi1>, %a: tensor<f32>) -> tensor<f32> {
       %0 = "stablehlo.if"(%p) ({ stablehlo.return %a : tensor<f32> }, { stablehlo.return %a : tensor<f32> }) : (tensor<2xi1>) -> tensor<f32>
       return %0 : tensor<f32> })",
     "stablehlo.if", "selector must be a tensor<i1> scalar"},
    {"call_unknown_function",
     R"(func.func @main(%a: tensor<f32>) -> tensor<f32> {
       %0 = func.call @nowhere(%a) : (tensor<f32>) -> tensor<f32>
       return %0 : tensor<f32> })",
     "func.call", "no function named @nowhere"},
    {"call_arity",
     R"(func.func @f(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> { return %a : tensor<f32> }
       func.func @main(%a: tensor<f32>) -> tensor<f32> {
       %0 = func.call @f(%a) : (tensor<f32>) -> tensor<f32>
       return %0 : tensor<f32> })",
     "func.call", "@f takes 2 arguments"},
    {"return_type",
     R"(func.func @main(%a: tensor<2xf32>) -> tensor<3xf32> {
       return %a : tensor<2xf32> })",
     "func.return", "differs from @main's result #0"},
    {"unknown_custom_call",
     R"(func.func @main(%a: tensor<f32>) -> tensor<f32> {
       %0 = stablehlo.custom_call @my_kernel(%a) : (tensor<f32>) -> tensor<f32>
       return %0 : tensor<f32> })",
     "stablehlo.custom_call", "unknown custom_call target 'my_kernel'"},
    {"set_dimension_size_dimension",
     R"(func.func @main(%a: tensor<4xf32>, %n: tensor<i32>) -> tensor<4xf32> {
       %0 = "stablehlo.set_dimension_size"(%a, %n) {dimension = 1 : i64} : (tensor<4xf32>, tensor<i32>) -> tensor<4xf32>
       return %0 : tensor<4xf32> })",
     "stablehlo.set_dimension_size", "dimension 1 must be in range"},
    {"elided_constant",
     R"(func.func @main() -> tensor<2xf32> {
       %0 = stablehlo.constant dense_resource<__elided__> : tensor<2xf32>
       return %0 : tensor<2xf32> })",
     "stablehlo.constant", "--fill-elided"},
    {"Constant_C1_ValueType",
     R"(func.func @main() -> tensor<2xf64> {
       %0 = "stablehlo.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf64>
       return %0 : tensor<2xf64> })",
     "stablehlo.constant", "(C1) the value's type differs from the result's"},
    {"BitcastConvert_C1_Bits",
     R"(func.func @main(%a: tensor<2xf32>) -> tensor<2xi16> {
       %0 = stablehlo.bitcast_convert %a : (tensor<2xf32>) -> tensor<2xi16>
       return %0 : tensor<2xi16> })",
     "stablehlo.bitcast_convert", "(C1) operand has 64 bits, result 32"},
    {"BitcastConvert_C2_Complex",
     R"(func.func @main(%a: tensor<2xcomplex<f32>>) -> tensor<2xf64> {
       %0 = stablehlo.bitcast_convert %a : (tensor<2xcomplex<f32>>) -> tensor<2xf64>
       return %0 : tensor<2xf64> })",
     "stablehlo.bitcast_convert", "(C2) complex<f32> and f64"},
    {"GetDimensionSize_C1_DimensionRange",
     R"(func.func @main(%a: tensor<2xf32>) -> tensor<i32> {
       %0 = "stablehlo.get_dimension_size"(%a) {dimension = 1 : i64} : (tensor<2xf32>) -> tensor<i32>
       return %0 : tensor<i32> })",
     "stablehlo.get_dimension_size", "(C1) dimension 1 is out of range"},
    {"OptimizationBarrier_C1_ResultTypes",
     R"(func.func @main(%a: tensor<2xf32>) -> tensor<3xf32> {
       %0 = "stablehlo.optimization_barrier"(%a) : (tensor<2xf32>) -> tensor<3xf32>
       return %0 : tensor<3xf32> })",
     "stablehlo.optimization_barrier", "(C1) results must have the operands' types"},
    {"Composite_C1_NamespacedName",
     R"(func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
       %0 = "stablehlo.composite"(%a) {name = "foo", decomposition = @dec} : (tensor<2xf32>) -> tensor<2xf32>
       return %0 : tensor<2xf32> }
       func.func private @dec(%a: tensor<2xf32>) -> tensor<2xf32> { return %a : tensor<2xf32> })",
     "stablehlo.composite", "(C1) name must be a namespaced op name"},
    {"Composite_C2_DecompositionDefined",
     R"(func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
       %0 = "stablehlo.composite"(%a) {name = "my.foo", decomposition = @nowhere} : (tensor<2xf32>) -> tensor<2xf32>
       return %0 : tensor<2xf32> })",
     "stablehlo.composite", "(C2) no function named @nowhere"},
    {"Composite_C3_InputTypes",
     R"(func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
       %0 = "stablehlo.composite"(%a) {name = "my.foo", decomposition = @dec} : (tensor<2xf32>) -> tensor<2xf32>
       return %0 : tensor<2xf32> }
       func.func private @dec(%a: tensor<3xf32>) -> tensor<2xf32> {
         %c = stablehlo.constant dense<1.0> : tensor<2xf32>
         return %c : tensor<2xf32> })",
     "stablehlo.composite", "(C3) operand #0's type differs from @dec's argument"},
    {"Composite_C4_OutputTypes",
     R"(func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
       %0 = "stablehlo.composite"(%a) {name = "my.foo", decomposition = @dec} : (tensor<2xf32>) -> tensor<2xf32>
       return %0 : tensor<2xf32> }
       func.func private @dec(%a: tensor<2xf32>) -> tensor<3xf32> {
         %c = stablehlo.constant dense<1.0> : tensor<3xf32>
         return %c : tensor<3xf32> })",
     "stablehlo.composite", "(C4) result #0's type differs from @dec's result"},
    {"Infeed_C1_NoResults",
     R"(func.func @main(%t: !stablehlo.token) -> tensor<2xf32> {
       "stablehlo.infeed"(%t) : (!stablehlo.token) -> ()
       %c = stablehlo.constant dense<1.0> : tensor<2xf32>
       return %c : tensor<2xf32> })",
     "stablehlo.infeed", "expects at least 1 result, has 0"},
    {"Infeed_C2_TensorResults",
     R"(func.func @main(%t: !stablehlo.token) -> !stablehlo.token {
       %0:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (!stablehlo.token, !stablehlo.token)
       return %0#1 : !stablehlo.token })",
     "stablehlo.infeed", "(C2) result #0 must be a tensor"},
    {"Infeed_C3_LastResultToken",
     R"(func.func @main(%t: !stablehlo.token) -> tensor<2xf32> {
       %0:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (!stablehlo.token, tensor<2xf32>)
       return %0#1 : tensor<2xf32> })",
     "stablehlo.infeed", "(C3) the last result must be a token"},
    {"UniformDequantize_C1_Shape",
     R"(func.func @main(%a: tensor<2x!quant.uniform<i8:f32, 0.5:0>>) -> tensor<3xf32> {
       %0 = "stablehlo.uniform_dequantize"(%a) : (tensor<2x!quant.uniform<i8:f32, 0.5:0>>) -> tensor<3xf32>
       return %0 : tensor<3xf32> })",
     "stablehlo.uniform_dequantize", "(C1) shape(operand) must equal shape(result)"},
};

HLX_RULES_TEST(CoreRules, kCases);

}  // namespace
