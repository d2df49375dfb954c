// reduce_window, select_and_scatter, convolution and dynamic_conv through the
// public API: every spec constraint the lowering checks gives a status
// naming the op and the rule; kernel and general-region paths compute the
// right values end to end.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "api/hlx.h"
#include "tests/graph_lowering/rules_harness.h"

namespace {

struct Case {
  const char* name;
  const char* program;
  const char* op;    // must appear in the message
  const char* rule;  // must appear in the message
};

std::string CompileError(const char* text) {
  hlx_program_t* p = nullptr;
  hlx_executable_t* e = nullptr;
  hlx_status_t s = hlx_program_parse(text, strlen(text), "t.mlir", 1, &p);
  if (!s) s = hlx_executable_create(p, nullptr, &e);
  std::string msg = s ? hlx_status_get_message(s) : "";
  hlx_status_release(s);
  hlx_executable_destroy(e);
  hlx_program_destroy(p);
  return msg;
}

#define RW_BODY                                                    \
  "({ ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"                   \
  "   %s = stablehlo.add %x, %y : tensor<f32>\n"                   \
  "   stablehlo.return %s : tensor<f32> })"

#define SAS_REGIONS                                                          \
  "({ ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"                             \
  "   %c = stablehlo.compare GE, %x, %y : (tensor<f32>, tensor<f32>) -> "    \
  "tensor<i1>\n"                                                             \
  "   stablehlo.return %c : tensor<i1> }, {\n"                               \
  " ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"                               \
  "   %s = stablehlo.add %x, %y : tensor<f32>\n"                             \
  "   stablehlo.return %s : tensor<f32> })"

const Case kCases[] = {
    {"ReduceWindow_C1_OperandCount",
     "func.func @main(%a: tensor<4xf32>, %i: tensor<f32>) -> tensor<4xf32> {\n"
     "  %r = \"stablehlo.reduce_window\"(%a, %i, %i) " RW_BODY
     " {window_dimensions = array<i64: 1>} : (tensor<4xf32>, tensor<f32>, "
     "tensor<f32>) -> tensor<4xf32>\n  return %r : tensor<4xf32> }",
     "stablehlo.reduce_window", "(C1)"},
    {"ReduceWindow_C3_InitType",
     "func.func @main(%a: tensor<4xf32>, %i: tensor<f64>) -> tensor<4xf32> {\n"
     "  %r = \"stablehlo.reduce_window\"(%a, %i) " RW_BODY
     " {window_dimensions = array<i64: 1>} : (tensor<4xf32>, tensor<f64>) -> "
     "tensor<4xf32>\n  return %r : tensor<4xf32> }",
     "stablehlo.reduce_window", "(C3)"},
    {"ReduceWindow_C4_WindowDimsSize",
     "func.func @main(%a: tensor<4xf32>, %i: tensor<f32>) -> tensor<4xf32> {\n"
     "  %r = \"stablehlo.reduce_window\"(%a, %i) " RW_BODY
     " {window_dimensions = array<i64: 1, 1>} : (tensor<4xf32>, tensor<f32>) "
     "-> tensor<4xf32>\n  return %r : tensor<4xf32> }",
     "stablehlo.reduce_window", "(C4)"},
    {"ReduceWindow_C5_WindowDimsPositive",
     "func.func @main(%a: tensor<4xf32>, %i: tensor<f32>) -> tensor<4xf32> {\n"
     "  %r = \"stablehlo.reduce_window\"(%a, %i) " RW_BODY
     " {window_dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<f32>) -> "
     "tensor<4xf32>\n  return %r : tensor<4xf32> }",
     "stablehlo.reduce_window", "(C5)"},
    {"ReduceWindow_C7_StridePositive",
     "func.func @main(%a: tensor<4xf32>, %i: tensor<f32>) -> tensor<4xf32> {\n"
     "  %r = \"stablehlo.reduce_window\"(%a, %i) " RW_BODY
     " {window_dimensions = array<i64: 1>, window_strides = array<i64: 0>} : "
     "(tensor<4xf32>, tensor<f32>) -> tensor<4xf32>\n  return %r : "
     "tensor<4xf32> }",
     "stablehlo.reduce_window", "(C7)"},
    {"ReduceWindow_C9_BaseDilationPositive",
     "func.func @main(%a: tensor<4xf32>, %i: tensor<f32>) -> tensor<4xf32> {\n"
     "  %r = \"stablehlo.reduce_window\"(%a, %i) " RW_BODY
     " {window_dimensions = array<i64: 1>, base_dilations = array<i64: -1>} "
     ": (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>\n  return %r : "
     "tensor<4xf32> }",
     "stablehlo.reduce_window", "(C9)"},
    {"ReduceWindow_C10_WindowDilationSize",
     "func.func @main(%a: tensor<4xf32>, %i: tensor<f32>) -> tensor<4xf32> {\n"
     "  %r = \"stablehlo.reduce_window\"(%a, %i) " RW_BODY
     " {window_dimensions = array<i64: 1>, window_dilations = array<i64: 1, "
     "1>} : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>\n  return %r : "
     "tensor<4xf32> }",
     "stablehlo.reduce_window", "(C10)"},
    {"ReduceWindow_C12_PaddingShape",
     "func.func @main(%a: tensor<4xf32>, %i: tensor<f32>) -> tensor<4xf32> {\n"
     "  %r = \"stablehlo.reduce_window\"(%a, %i) " RW_BODY
     " {window_dimensions = array<i64: 1>, padding = dense<0> : "
     "tensor<2x2xi64>} : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>\n"
     "  return %r : tensor<4xf32> }",
     "stablehlo.reduce_window", "(C12)"},
    {"ReduceWindow_C13_BodyType",
     "func.func @main(%a: tensor<4xf32>, %i: tensor<f32>) -> tensor<4xf32> {\n"
     "  %r = \"stablehlo.reduce_window\"(%a, %i) ({ ^bb0(%x: tensor<f64>, %y: "
     "tensor<f64>):\n   %s = stablehlo.add %x, %y : tensor<f64>\n"
     "   stablehlo.return %s : tensor<f64> })"
     " {window_dimensions = array<i64: 1>} : (tensor<4xf32>, tensor<f32>) -> "
     "tensor<4xf32>\n  return %r : tensor<4xf32> }",
     "stablehlo.reduce_window", "(C13)"},
    {"ReduceWindow_C14_ResultShape",
     "func.func @main(%a: tensor<4xf32>, %i: tensor<f32>) -> tensor<4xf32> {\n"
     "  %r = \"stablehlo.reduce_window\"(%a, %i) " RW_BODY
     " {window_dimensions = array<i64: 2>} : (tensor<4xf32>, tensor<f32>) -> "
     "tensor<4xf32>\n  return %r : tensor<4xf32> }",
     "stablehlo.reduce_window", "(C14/C15) result #0 must have shape [3]"},
    {"ReduceWindow_C2_InputsDiffer",
     "func.func @main(%a: tensor<4xf32>, %b: tensor<3xf32>, %i: tensor<f32>) "
     "-> tensor<4xf32> {\n"
     "  %r:2 = \"stablehlo.reduce_window\"(%a, %b, %i, %i) ({ ^bb0(%x: "
     "tensor<f32>, %y: tensor<f32>, %z: tensor<f32>, %w: tensor<f32>):\n"
     "   stablehlo.return %x, %y : tensor<f32>, tensor<f32> })"
     " {window_dimensions = array<i64: 1>} : (tensor<4xf32>, tensor<3xf32>, "
     "tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)\n"
     "  return %r#0 : tensor<4xf32> }",
     "stablehlo.reduce_window", "(C2)"},
    {"SelectAndScatter_C1_SourceType",
     "func.func @main(%a: tensor<4xf32>, %s: tensor<2xf64>, %i: tensor<f32>) "
     "-> tensor<4xf32> {\n"
     "  %r = \"stablehlo.select_and_scatter\"(%a, %s, %i) " SAS_REGIONS
     " {window_dimensions = array<i64: 2>, window_strides = array<i64: 2>} : "
     "(tensor<4xf32>, tensor<2xf64>, tensor<f32>) -> tensor<4xf32>\n"
     "  return %r : tensor<4xf32> }",
     "stablehlo.select_and_scatter", "(C1)"},
    {"SelectAndScatter_C2_SourceShape",
     "func.func @main(%a: tensor<4xf32>, %s: tensor<3xf32>, %i: tensor<f32>) "
     "-> tensor<4xf32> {\n"
     "  %r = \"stablehlo.select_and_scatter\"(%a, %s, %i) " SAS_REGIONS
     " {window_dimensions = array<i64: 2>, window_strides = array<i64: 2>} : "
     "(tensor<4xf32>, tensor<3xf32>, tensor<f32>) -> tensor<4xf32>\n"
     "  return %r : tensor<4xf32> }",
     "stablehlo.select_and_scatter", "(C2) source must have shape [2]"},
    {"SelectAndScatter_C7_StridePositive",
     "func.func @main(%a: tensor<4xf32>, %s: tensor<2xf32>, %i: tensor<f32>) "
     "-> tensor<4xf32> {\n"
     "  %r = \"stablehlo.select_and_scatter\"(%a, %s, %i) " SAS_REGIONS
     " {window_dimensions = array<i64: 2>, window_strides = array<i64: 0>} : "
     "(tensor<4xf32>, tensor<2xf32>, tensor<f32>) -> tensor<4xf32>\n"
     "  return %r : tensor<4xf32> }",
     "stablehlo.select_and_scatter", "(C7)"},
    {"SelectAndScatter_C9_SelectReturnsF32",
     "func.func @main(%a: tensor<4xf32>, %s: tensor<2xf32>, %i: tensor<f32>) "
     "-> tensor<4xf32> {\n"
     "  %r = \"stablehlo.select_and_scatter\"(%a, %s, %i) ({ ^bb0(%x: "
     "tensor<f32>, %y: tensor<f32>):\n   stablehlo.return %x : tensor<f32> "
     "}, { ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n   stablehlo.return %x : "
     "tensor<f32> })"
     " {window_dimensions = array<i64: 2>, window_strides = array<i64: 2>} : "
     "(tensor<4xf32>, tensor<2xf32>, tensor<f32>) -> tensor<4xf32>\n"
     "  return %r : tensor<4xf32> }",
     "stablehlo.select_and_scatter", "(C9)"},
    {"SelectAndScatter_C11_ResultShape",
     "func.func @main(%a: tensor<4xf32>, %s: tensor<2xf32>, %i: tensor<f32>) "
     "-> tensor<5xf32> {\n"
     "  %r = \"stablehlo.select_and_scatter\"(%a, %s, %i) " SAS_REGIONS
     " {window_dimensions = array<i64: 2>, window_strides = array<i64: 2>} : "
     "(tensor<4xf32>, tensor<2xf32>, tensor<f32>) -> tensor<5xf32>\n"
     "  return %r : tensor<5xf32> }",
     "stablehlo.select_and_scatter", "(C11)"},
    {"Convolution_C1_Rank",
     "func.func @main(%a: tensor<1x4x1xf32>, %k: tensor<3x1xf32>) -> "
     "tensor<1x2x1xf32> {\n"
     "  %r = \"stablehlo.convolution\"(%a, %k) {dimension_numbers = "
     "#stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>} : (tensor<1x4x1xf32>, "
     "tensor<3x1xf32>) -> tensor<1x2x1xf32>\n  return %r : tensor<1x2x1xf32> }",
     "stablehlo.convolution", "(C1)"},
    {"Convolution_C2_StridesSize",
     "func.func @main(%a: tensor<1x4x1xf32>, %k: tensor<3x1x1xf32>) -> "
     "tensor<1x2x1xf32> {\n"
     "  %r = \"stablehlo.convolution\"(%a, %k) {dimension_numbers = "
     "#stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, window_strides = "
     "array<i64: 1, 1>} : (tensor<1x4x1xf32>, tensor<3x1x1xf32>) -> "
     "tensor<1x2x1xf32>\n  return %r : tensor<1x2x1xf32> }",
     "stablehlo.convolution", "(C2)"},
    {"Convolution_C6_LhsDilationPositive",
     "func.func @main(%a: tensor<1x4x1xf32>, %k: tensor<3x1x1xf32>) -> "
     "tensor<1x2x1xf32> {\n"
     "  %r = \"stablehlo.convolution\"(%a, %k) {dimension_numbers = "
     "#stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, lhs_dilation = "
     "array<i64: 0>} : (tensor<1x4x1xf32>, tensor<3x1x1xf32>) -> "
     "tensor<1x2x1xf32>\n  return %r : tensor<1x2x1xf32> }",
     "stablehlo.convolution", "(C6)"},
    {"Convolution_C4_PaddingShape",
     "func.func @main(%a: tensor<1x4x1xf32>, %k: tensor<3x1x1xf32>) -> "
     "tensor<1x2x1xf32> {\n"
     "  %r = \"stablehlo.convolution\"(%a, %k) {dimension_numbers = "
     "#stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, padding = dense<0> : "
     "tensor<2x2xi64>} : (tensor<1x4x1xf32>, tensor<3x1x1xf32>) -> "
     "tensor<1x2x1xf32>\n  return %r : tensor<1x2x1xf32> }",
     "stablehlo.convolution", "(C4)"},
    {"Convolution_C9_ReversalSize",
     "func.func @main(%a: tensor<1x4x1xf32>, %k: tensor<3x1x1xf32>) -> "
     "tensor<1x2x1xf32> {\n"
     "  %r = \"stablehlo.convolution\"(%a, %k) {dimension_numbers = "
     "#stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, window_reversal = "
     "array<i1: true, false>} : (tensor<1x4x1xf32>, tensor<3x1x1xf32>) -> "
     "tensor<1x2x1xf32>\n  return %r : tensor<1x2x1xf32> }",
     "stablehlo.convolution", "(C9)"},
    {"Convolution_C10_BatchGroupsDivide",
     "func.func @main(%a: tensor<3x4x1xf32>, %k: tensor<3x1x2xf32>) -> "
     "tensor<1x2x2xf32> {\n"
     "  %r = \"stablehlo.convolution\"(%a, %k) {dimension_numbers = "
     "#stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, batch_group_count = 2 "
     ": i64} : (tensor<3x4x1xf32>, tensor<3x1x2xf32>) -> tensor<1x2x2xf32>\n"
     "  return %r : tensor<1x2x2xf32> }",
     "stablehlo.convolution", "(C10)"},
    {"Convolution_C11_FeatureGroupsDivide",
     "func.func @main(%a: tensor<1x4x3xf32>, %k: tensor<3x1x2xf32>) -> "
     "tensor<1x2x2xf32> {\n"
     "  %r = \"stablehlo.convolution\"(%a, %k) {dimension_numbers = "
     "#stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, feature_group_count = "
     "2 : i64} : (tensor<1x4x3xf32>, tensor<3x1x2xf32>) -> tensor<1x2x2xf32>\n"
     "  return %r : tensor<1x2x2xf32> }",
     "stablehlo.convolution", "(C11)"},
    {"Convolution_C14_KernelInputFeatures",
     "func.func @main(%a: tensor<1x4x2xf32>, %k: tensor<3x1x1xf32>) -> "
     "tensor<1x2x1xf32> {\n"
     "  %r = \"stablehlo.convolution\"(%a, %k) {dimension_numbers = "
     "#stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>} : (tensor<1x4x2xf32>, "
     "tensor<3x1x1xf32>) -> tensor<1x2x1xf32>\n  return %r : "
     "tensor<1x2x1xf32> }",
     "stablehlo.convolution", "(C14)"},
    {"Convolution_C15_OutputFeaturesBatchGroups",
     "func.func @main(%a: tensor<2x4x1xf32>, %k: tensor<3x1x3xf32>) -> "
     "tensor<1x2x3xf32> {\n"
     "  %r = \"stablehlo.convolution\"(%a, %k) {dimension_numbers = "
     "#stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, batch_group_count = 2 "
     ": i64} : (tensor<2x4x1xf32>, tensor<3x1x3xf32>) -> tensor<1x2x3xf32>\n"
     "  return %r : tensor<1x2x3xf32> }",
     "stablehlo.convolution", "(C15)"},
    {"Convolution_C16_OutputFeaturesFeatureGroups",
     "func.func @main(%a: tensor<1x4x2xf32>, %k: tensor<3x1x3xf32>) -> "
     "tensor<1x2x3xf32> {\n"
     "  %r = \"stablehlo.convolution\"(%a, %k) {dimension_numbers = "
     "#stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, feature_group_count = "
     "2 : i64} : (tensor<1x4x2xf32>, tensor<3x1x3xf32>) -> tensor<1x2x3xf32>\n"
     "  return %r : tensor<1x2x3xf32> }",
     "stablehlo.convolution", "(C16)"},
    {"Convolution_C21_GroupCountsPositive",
     "func.func @main(%a: tensor<1x4x1xf32>, %k: tensor<3x1x1xf32>) -> "
     "tensor<1x2x1xf32> {\n"
     "  %r = \"stablehlo.convolution\"(%a, %k) {dimension_numbers = "
     "#stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, feature_group_count = "
     "0 : i64} : (tensor<1x4x1xf32>, tensor<3x1x1xf32>) -> tensor<1x2x1xf32>\n"
     "  return %r : tensor<1x2x1xf32> }",
     "stablehlo.convolution", "(C21)"},
    {"Convolution_C23_BothGroupCounts",
     "func.func @main(%a: tensor<2x4x2xf32>, %k: tensor<3x1x4xf32>) -> "
     "tensor<1x2x4xf32> {\n"
     "  %r = \"stablehlo.convolution\"(%a, %k) {dimension_numbers = "
     "#stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, feature_group_count = "
     "2 : i64, batch_group_count = 2 : i64} : (tensor<2x4x2xf32>, "
     "tensor<3x1x4xf32>) -> tensor<1x2x4xf32>\n"
     "  return %r : tensor<1x2x4xf32> }",
     "stablehlo.convolution", "(C23)"},
    {"Convolution_C24_PrecisionConfigSize",
     "func.func @main(%a: tensor<1x4x1xf32>, %k: tensor<3x1x1xf32>) -> "
     "tensor<1x2x1xf32> {\n"
     "  %r = \"stablehlo.convolution\"(%a, %k) {dimension_numbers = "
     "#stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, precision_config = "
     "[#stablehlo<precision DEFAULT>]} : (tensor<1x4x1xf32>, "
     "tensor<3x1x1xf32>) -> tensor<1x2x1xf32>\n  return %r : "
     "tensor<1x2x1xf32> }",
     "stablehlo.convolution", "(C24)"},
    {"Convolution_C25_ResultSpatial",
     "func.func @main(%a: tensor<1x4x1xf32>, %k: tensor<3x1x1xf32>) -> "
     "tensor<1x3x1xf32> {\n"
     "  %r = \"stablehlo.convolution\"(%a, %k) {dimension_numbers = "
     "#stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>} : (tensor<1x4x1xf32>, "
     "tensor<3x1x1xf32>) -> tensor<1x3x1xf32>\n  return %r : "
     "tensor<1x3x1xf32> }",
     "stablehlo.convolution", "(C25) result dimension 1 (spatial 0) has size 3, expected 2"},
    {"Convolution_C25_ResultFeatures",
     "func.func @main(%a: tensor<1x4x1xf32>, %k: tensor<3x1x1xf32>) -> "
     "tensor<1x2x2xf32> {\n"
     "  %r = \"stablehlo.convolution\"(%a, %k) {dimension_numbers = "
     "#stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>} : (tensor<1x4x1xf32>, "
     "tensor<3x1x1xf32>) -> tensor<1x2x2xf32>\n  return %r : "
     "tensor<1x2x2xf32> }",
     "stablehlo.convolution", "(C25) result feature dimension"},
    {"Convolution_C27_OperandTypes",
     "func.func @main(%a: tensor<1x4x1xf32>, %k: tensor<3x1x1xf64>) -> "
     "tensor<1x2x1xf32> {\n"
     "  %r = \"stablehlo.convolution\"(%a, %k) {dimension_numbers = "
     "#stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>} : (tensor<1x4x1xf32>, "
     "tensor<3x1x1xf64>) -> tensor<1x2x1xf32>\n  return %r : "
     "tensor<1x2x1xf32> }",
     "stablehlo.convolution", "(C27)"},
    {"DynamicConv_C4_PaddingShape",
     "func.func @main(%a: tensor<1x4x1xf32>, %k: tensor<3x1x1xf32>, %p: "
     "tensor<1x3xi64>) -> tensor<1x2x1xf32> {\n"
     "  %r = \"stablehlo.dynamic_conv\"(%a, %k, %p) {dimension_numbers = "
     "#stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>} : (tensor<1x4x1xf32>, "
     "tensor<3x1x1xf32>, tensor<1x3xi64>) -> tensor<1x2x1xf32>\n  return %r : "
     "tensor<1x2x1xf32> }",
     "stablehlo.dynamic_conv", "(C4)"},
    {"Convolution_C28_QuantLhsFloatResult",
     "func.func @main(%a: tensor<1x4x1x!quant.uniform<i8:f32, 0.5:1>>, %k: "
     "tensor<3x1x1x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<1x2x1xf32> {\n"
     "  %r = \"stablehlo.convolution\"(%a, %k) {dimension_numbers = "
     "#stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>} : "
     "(tensor<1x4x1x!quant.uniform<i8:f32, 0.5:1>>, "
     "tensor<3x1x1x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<1x2x1xf32>\n"
     "  return %r : tensor<1x2x1xf32> }",
     "stablehlo.convolution", "(C28)"},
    {"Convolution_C31_QuantStorageTypes",
     "func.func @main(%a: tensor<1x4x1x!quant.uniform<i8:f32, 0.5:1>>, %k: "
     "tensor<3x1x1x!quant.uniform<i16:f32, 0.5:1>>) -> "
     "tensor<1x2x1x!quant.uniform<i32:f32, 0.25>> {\n"
     "  %r = \"stablehlo.convolution\"(%a, %k) {dimension_numbers = "
     "#stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>} : "
     "(tensor<1x4x1x!quant.uniform<i8:f32, 0.5:1>>, "
     "tensor<3x1x1x!quant.uniform<i16:f32, 0.5:1>>) -> "
     "tensor<1x2x1x!quant.uniform<i32:f32, 0.25>>\n"
     "  return %r : tensor<1x2x1x!quant.uniform<i32:f32, 0.25>> }",
     "stablehlo.convolution", "(C31)"},
    {"Convolution_C34_HybridTypes",
     "func.func @main(%a: tensor<1x4x1xf64>, %k: "
     "tensor<3x1x1x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<1x2x1xf64> {\n"
     "  %r = \"stablehlo.convolution\"(%a, %k) {dimension_numbers = "
     "#stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>} : "
     "(tensor<1x4x1xf64>, tensor<3x1x1x!quant.uniform<i8:f32, 0.5:1>>) -> "
     "tensor<1x2x1xf64>\n  return %r : tensor<1x2x1xf64> }",
     "stablehlo.convolution", "(C34)"},
};

// Each convolution case again as dynamic_conv, but the padding-attribute
// one (its twin is DynamicConv_C4_PaddingShape) and the spatial result size,
// which depends on the padding and is checked when dynamic_conv runs
// (DynamicConvChecksPaddingAtRunTime).
TEST(WindowConvRules, ConvolutionRulesHoldForDynamicConv) {
  int n = 0;
  for (const Case& c : kCases) {
    std::string name = c.name;
    if (std::string(c.op) != "stablehlo.convolution" ||
        name == "Convolution_C4_PaddingShape" ||
        name == "Convolution_C25_ResultSpatial")
      continue;
    std::string p = hlx_rules::AsDynamicConv(c.program);
    ASSERT_FALSE(p.empty()) << c.name;
    std::string msg = CompileError(p.c_str());
    EXPECT_NE(msg.find("stablehlo.dynamic_conv"), std::string::npos)
        << c.name << ": " << msg;
    EXPECT_NE(msg.find(c.rule), std::string::npos) << c.name << ": " << msg;
    n++;
  }
  EXPECT_EQ(n, 17);
}

TEST(WindowConvRules, EachBrokenRuleNamesOpAndRule) {
  for (const Case& c : kCases) {
    std::string msg = CompileError(c.program);
    EXPECT_NE(msg.find(c.op), std::string::npos) << c.name << ": " << msg;
    EXPECT_NE(msg.find(c.rule), std::string::npos) << c.name << ": " << msg;
  }
}

// Compiles and runs a program without parameters; returns result 0's bytes.
std::vector<unsigned char> RunNoArgs(const char* text, std::string* err) {
  std::vector<unsigned char> bytes;
  hlx_program_t* p = nullptr;
  hlx_executable_t* e = nullptr;
  hlx_buffer_t* out[1] = {nullptr};
  hlx_status_t s = hlx_program_parse(text, strlen(text), "t.mlir", 1, &p);
  if (!s) s = hlx_executable_create(p, nullptr, &e);
  if (!s) s = hlx_executable_run(e, nullptr, 0, out, 1);
  if (s) {
    *err = hlx_status_get_message(s);
  } else {
    const unsigned char* d =
        static_cast<const unsigned char*>(hlx_buffer_data(out[0]));
    bytes.assign(d, d + hlx_buffer_bytes(out[0]));
  }
  hlx_status_release(s);
  hlx_buffer_destroy(out[0]);
  hlx_executable_destroy(e);
  hlx_program_destroy(p);
  return bytes;
}

template <typename T>
std::vector<T> As(const std::vector<unsigned char>& b) {
  std::vector<T> v(b.size() / sizeof(T));
  if (!v.empty()) memcpy(v.data(), b.data(), v.size() * sizeof(T));
  return v;
}

TEST(WindowConvRun, VariadicReduceWindowArgminThroughTheRegion) {
  // (value, index) argmin over windows of 2 with stride 1.
  std::string err;
  auto b = RunNoArgs(R"(
    func.func @main() -> tensor<3xi32> {
      %v = stablehlo.constant dense<[4.0, 1.0, 3.0, 0.5]> : tensor<4xf32>
      %i = stablehlo.constant dense<[0, 1, 2, 3]> : tensor<4xi32>
      %vi = stablehlo.constant dense<0x7F800000> : tensor<f32>
      %ii = stablehlo.constant dense<-1> : tensor<i32>
      %r:2 = "stablehlo.reduce_window"(%v, %i, %vi, %ii) ({
      ^bb0(%a: tensor<f32>, %ai: tensor<i32>, %b: tensor<f32>, %bi: tensor<i32>):
        %le = stablehlo.compare LE, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
        %m = stablehlo.select %le, %a, %b : tensor<i1>, tensor<f32>
        %mi = stablehlo.select %le, %ai, %bi : tensor<i1>, tensor<i32>
        stablehlo.return %m, %mi : tensor<f32>, tensor<i32>
      }) {window_dimensions = array<i64: 2>}
        : (tensor<4xf32>, tensor<4xi32>, tensor<f32>, tensor<i32>) -> (tensor<3xf32>, tensor<3xi32>)
      return %r#1 : tensor<3xi32>
    })", &err);
  ASSERT_EQ(err, "");
  EXPECT_EQ(As<int32_t>(b), (std::vector<int32_t>{1, 1, 3}));
}

TEST(WindowConvRun, NonCombinerBodyUsesInitForHoles) {
  // body = 2*acc + x, init 1, input [1, 2] base-dilated to [1, h, 2],
  // window 2: ((1*2+1)*2+1) = 7 and ((1*2+1)*2+2) = 8.
  std::string err;
  auto b = RunNoArgs(R"(
    func.func @main() -> tensor<2xi64> {
      %v = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
      %i = stablehlo.constant dense<1> : tensor<i64>
      %two = stablehlo.constant dense<2> : tensor<i64>
      %r = "stablehlo.reduce_window"(%v, %i) ({
      ^bb0(%a: tensor<i64>, %x: tensor<i64>):
        %m = stablehlo.multiply %a, %two : tensor<i64>
        %s = stablehlo.add %m, %x : tensor<i64>
        stablehlo.return %s : tensor<i64>
      }) {window_dimensions = array<i64: 2>, base_dilations = array<i64: 2>}
        : (tensor<2xi64>, tensor<i64>) -> tensor<2xi64>
      return %r : tensor<2xi64>
    })", &err);
  ASSERT_EQ(err, "");
  EXPECT_EQ(As<int64_t>(b), (std::vector<int64_t>{7, 8}));
}

TEST(WindowConvRun, SelectAndScatterGeneralRegions) {
  // select: |x| >= |y| (not a plain compare); scatter: acc + 2*x.
  std::string err;
  auto b = RunNoArgs(R"(
    func.func @main() -> tensor<4xf32> {
      %o = stablehlo.constant dense<[1.0, -5.0, 2.0, 3.0]> : tensor<4xf32>
      %s = stablehlo.constant dense<[10.0, 100.0]> : tensor<2xf32>
      %i = stablehlo.constant dense<0.5> : tensor<f32>
      %two = stablehlo.constant dense<2.0> : tensor<f32>
      %r = "stablehlo.select_and_scatter"(%o, %s, %i) ({
      ^bb0(%x: tensor<f32>, %y: tensor<f32>):
        %ax = stablehlo.abs %x : tensor<f32>
        %ay = stablehlo.abs %y : tensor<f32>
        %c = stablehlo.compare GE, %ax, %ay : (tensor<f32>, tensor<f32>) -> tensor<i1>
        stablehlo.return %c : tensor<i1>
      }, {
      ^bb0(%x: tensor<f32>, %y: tensor<f32>):
        %d = stablehlo.multiply %y, %two : tensor<f32>
        %t = stablehlo.add %x, %d : tensor<f32>
        stablehlo.return %t : tensor<f32>
      }) {window_dimensions = array<i64: 2>, window_strides = array<i64: 2>}
        : (tensor<4xf32>, tensor<2xf32>, tensor<f32>) -> tensor<4xf32>
      return %r : tensor<4xf32>
    })", &err);
  ASSERT_EQ(err, "");
  EXPECT_EQ(As<float>(b), (std::vector<float>{0.5f, 20.5f, 0.5f, 200.5f}));
}

TEST(WindowConvRun, SelectAndScatterSwappedCompareIsMirrored) {
  // compare LE, %y, %x == GE on (x, y): picks the first maximum.
  std::string err;
  auto b = RunNoArgs(R"(
    func.func @main() -> tensor<4xi32> {
      %o = stablehlo.constant dense<[3, 3, 1, 7]> : tensor<4xi32>
      %s = stablehlo.constant dense<[5, 6]> : tensor<2xi32>
      %i = stablehlo.constant dense<0> : tensor<i32>
      %r = "stablehlo.select_and_scatter"(%o, %s, %i) ({
      ^bb0(%x: tensor<i32>, %y: tensor<i32>):
        %c = stablehlo.compare LE, %y, %x : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %c : tensor<i1>
      }, {
      ^bb0(%x: tensor<i32>, %y: tensor<i32>):
        %t = stablehlo.add %x, %y : tensor<i32>
        stablehlo.return %t : tensor<i32>
      }) {window_dimensions = array<i64: 2>, window_strides = array<i64: 2>}
        : (tensor<4xi32>, tensor<2xi32>, tensor<i32>) -> tensor<4xi32>
      return %r : tensor<4xi32>
    })", &err);
  ASSERT_EQ(err, "");
  EXPECT_EQ(As<int32_t>(b), (std::vector<int32_t>{5, 0, 0, 6}));
}

TEST(WindowConvRun, ConvNchwOihwWithPreferredResultType) {
  // NCHW lhs 1x2x2x3 (2 channels), OIHW kernel 1x2x1x2 -> i32 result.
  // out[0,0,h,w] = sum_c sum_kw x[c,h,w+kw] * k[c,kw]
  std::string err;
  auto b = RunNoArgs(R"(
    func.func @main() -> tensor<1x1x2x2xi32> {
      %x = stablehlo.constant dense<[[[[1, 2, 3], [4, 5, 6]], [[100, 100, 100], [-1, -2, -3]]]]> : tensor<1x2x2x3xi8>
      %k = stablehlo.constant dense<[[[[1, 10]], [[1, 1]]]]> : tensor<1x2x1x2xi8>
      %r = stablehlo.convolution(%x, %k)
        dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {}
        {batch_group_count = 1 : i64, feature_group_count = 1 : i64}
        : (tensor<1x2x2x3xi8>, tensor<1x2x1x2xi8>) -> tensor<1x1x2x2xi32>
      return %r : tensor<1x1x2x2xi32>
    })", &err);
  ASSERT_EQ(err, "");
  // h0: (1+20)+200=221, (2+30)+200=232; h1: (4+50)-3=51, (5+60)-5=60
  EXPECT_EQ(As<int32_t>(b), (std::vector<int32_t>{221, 232, 51, 60}));
}

TEST(WindowConvRun, ConvComplex) {
  std::string err;
  auto b = RunNoArgs(R"(
    func.func @main() -> tensor<1x1x1xcomplex<f32>> {
      %x = stablehlo.constant dense<[[[(1.0, 2.0)], [(0.0, 1.0)]]]> : tensor<1x2x1xcomplex<f32>>
      %k = stablehlo.constant dense<[[[(3.0, 4.0)]], [[(0.0, 1.0)]]]> : tensor<2x1x1xcomplex<f32>>
      %r = stablehlo.convolution(%x, %k)
        dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {}
        {batch_group_count = 1 : i64, feature_group_count = 1 : i64}
        : (tensor<1x2x1xcomplex<f32>>, tensor<2x1x1xcomplex<f32>>) -> tensor<1x1x1xcomplex<f32>>
      return %r : tensor<1x1x1xcomplex<f32>>
    })", &err);
  ASSERT_EQ(err, "");
  EXPECT_EQ(As<float>(b), (std::vector<float>{-6.0f, 10.0f}));
}

TEST(WindowConvRun, DynamicConvChecksPaddingAtRunTime) {
  std::string err;
  auto b = RunNoArgs(R"(
    func.func @main() -> tensor<1x3x1xf32> {
      %x = stablehlo.constant dense<[[[1.0], [2.0], [3.0]]]> : tensor<1x3x1xf32>
      %k = stablehlo.constant dense<[[[1.0]], [[10.0]]]> : tensor<2x1x1xf32>
      %p = stablehlo.constant dense<[[1, 0]]> : tensor<1x2xi64>
      %r = "stablehlo.dynamic_conv"(%x, %k, %p) {
        dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>,
        batch_group_count = 1 : i64, feature_group_count = 1 : i64
      } : (tensor<1x3x1xf32>, tensor<2x1x1xf32>, tensor<1x2xi64>) -> tensor<1x3x1xf32>
      return %r : tensor<1x3x1xf32>
    })", &err);
  ASSERT_EQ(err, "");
  EXPECT_EQ(As<float>(b), (std::vector<float>{10.0f, 21.0f, 32.0f}));
  err.clear();
  RunNoArgs(R"(
    func.func @main() -> tensor<1x3x1xf32> {
      %x = stablehlo.constant dense<[[[1.0], [2.0], [3.0]]]> : tensor<1x3x1xf32>
      %k = stablehlo.constant dense<[[[1.0]], [[10.0]]]> : tensor<2x1x1xf32>
      %p = stablehlo.constant dense<[[2, 2]]> : tensor<1x2xi64>
      %r = "stablehlo.dynamic_conv"(%x, %k, %p) {
        dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>
      } : (tensor<1x3x1xf32>, tensor<2x1x1xf32>, tensor<1x2xi64>) -> tensor<1x3x1xf32>
      return %r : tensor<1x3x1xf32>
    })", &err);
  EXPECT_NE(err.find("dynamic_conv"), std::string::npos) << err;
  EXPECT_NE(err.find("(C25)"), std::string::npos) << err;
}

TEST(WindowConvRun, QuantizedConvDequantizesAndRequantizes) {
  // lhs (s - 1) * 0.5 = [1, 2, 4]; rhs s * 0.25 = [1, 0.5];
  // float result [2, 4] -> quantized with scale 0.125, zp 2: [18, 34].
  std::string err;
  auto b = RunNoArgs(R"(
    func.func @main() -> tensor<1x2x1xi32> {
      %x = stablehlo.constant dense<[[[3], [5], [9]]]> : tensor<1x3x1x!quant.uniform<i8:f32, 0.5:1>>
      %k = stablehlo.constant dense<[[[4]], [[2]]]> : tensor<2x1x1x!quant.uniform<i8:f32, 0.25:0>>
      %r = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {}
        {batch_group_count = 1 : i64, feature_group_count = 1 : i64}
        : (tensor<1x3x1x!quant.uniform<i8:f32, 0.5:1>>, tensor<2x1x1x!quant.uniform<i8:f32, 0.25:0>>)
        -> tensor<1x2x1x!quant.uniform<i32:f32, 0.125:2>>
      %b = stablehlo.bitcast_convert %r : (tensor<1x2x1x!quant.uniform<i32:f32, 0.125:2>>) -> tensor<1x2x1xi32>
      return %b : tensor<1x2x1xi32>
    })", &err);
  ASSERT_EQ(err, "");
  EXPECT_EQ(As<int32_t>(b), (std::vector<int32_t>{18, 34}));
}

TEST(WindowConvRun, QuantizedResultSaturates) {
  // 2 * 100 / 1.0 = 200 clamps to 127 in i8.
  std::string err;
  auto b = RunNoArgs(R"(
    func.func @main() -> tensor<1x1x1xi8> {
      %x = stablehlo.constant dense<[[[100]]]> : tensor<1x1x1x!quant.uniform<i8:f32, 1.0>>
      %k = stablehlo.constant dense<[[[2]]]> : tensor<1x1x1x!quant.uniform<i8:f32, 1.0>>
      %r = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {}
        {batch_group_count = 1 : i64, feature_group_count = 1 : i64}
        : (tensor<1x1x1x!quant.uniform<i8:f32, 1.0>>, tensor<1x1x1x!quant.uniform<i8:f32, 1.0>>)
        -> tensor<1x1x1x!quant.uniform<i8:f32, 1.0>>
      %b = stablehlo.bitcast_convert %r : (tensor<1x1x1x!quant.uniform<i8:f32, 1.0>>) -> tensor<1x1x1xi8>
      return %b : tensor<1x1x1xi8>
    })", &err);
  ASSERT_EQ(err, "");
  EXPECT_EQ(As<int8_t>(b), (std::vector<int8_t>{127}));
}

TEST(WindowConvRun, HybridConvWithPerAxisWeights) {
  // Float lhs [1, 2]; rhs [i=1, o=2] per-axis on o: scales 0.5, 2; zps 0, 1.
  // kernel position 0: [2, 3] -> [1, 4]; position 1: [4, 1] -> [2, 0].
  // out o0 = 1*1 + 2*2 = 5, o1 = 1*4 + 2*0 = 4.
  std::string err;
  auto b = RunNoArgs(R"(
    func.func @main() -> tensor<1x1x2xf32> {
      %x = stablehlo.constant dense<[[[1.0], [2.0]]]> : tensor<1x2x1xf32>
      %k = stablehlo.constant dense<[[[2, 3]], [[4, 1]]]> : tensor<2x1x2x!quant.uniform<i8:f32:2, {0.5, 2.0:1}>>
      %r = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {}
        {batch_group_count = 1 : i64, feature_group_count = 1 : i64}
        : (tensor<1x2x1xf32>, tensor<2x1x2x!quant.uniform<i8:f32:2, {0.5, 2.0:1}>>) -> tensor<1x1x2xf32>
      return %r : tensor<1x1x2xf32>
    })", &err);
  ASSERT_EQ(err, "");
  EXPECT_EQ(As<float>(b), (std::vector<float>{5.0f, 4.0f}));
}

}  // namespace
