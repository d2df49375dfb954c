// One negative test per constraint of reduce, reduce_window, convolution,
// select_and_scatter, sort and map that no other rules test covers: each
// program breaks exactly one rule of the spec's Constraints list.
#include "tests/graph_lowering/rules_harness.h"

namespace {

using hlx_rules::Case;

#define ADD_F32                                           \
  "({ ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"          \
  "   %s = stablehlo.add %x, %y : tensor<f32>\n"          \
  "   stablehlo.return %s : tensor<f32> })"

#define GE_F32                                                             \
  "{ ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"                            \
  "   %c = stablehlo.compare GE, %x, %y : (tensor<f32>, tensor<f32>) -> "  \
  "tensor<i1>\n"                                                           \
  "   stablehlo.return %c : tensor<i1> }"

// select_and_scatter over tensor<4xf32> with a [2]/[2] window: `attrs`,
// `source`/`init`/`result` types vary per case.
#define SAS(src, init, res, scatter, attrs)                                 \
  "func.func @main(%a: tensor<4xf32>, %s: tensor<" src ">, %i: tensor<" init \
  ">) -> tensor<" res "> {\n"                                                \
  "  %r = \"stablehlo.select_and_scatter\"(%a, %s, %i) (" GE_F32 ", " scatter \
  ") {" attrs "} : (tensor<4xf32>, tensor<" src ">, tensor<" init ">) -> "  \
  "tensor<" res ">\n  return %r : tensor<" res "> }"

#define SCATTER_F32                                     \
  "{ ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"         \
  "   %s = stablehlo.add %x, %y : tensor<f32>\n"        \
  "   stablehlo.return %s : tensor<f32> }"

#define W2S2 "window_dimensions = array<i64: 2>, window_strides = array<i64: 2>"

// reduce_window of tensor<4xf32> with `attrs` into tensor<`res`>.
#define RW(res, attrs)                                                    \
  "func.func @main(%a: tensor<4xf32>, %i: tensor<f32>) -> tensor<" res    \
  "> {\n  %r = \"stablehlo.reduce_window\"(%a, %i) " ADD_F32 " {" attrs   \
  "} : (tensor<4xf32>, tensor<f32>) -> tensor<" res ">\n"                 \
  "  return %r : tensor<" res "> }"

// convolution of tensor<1x4x1xf32> by a 3-tap kernel: `dn` dimension
// numbers, extra `attrs`, result type `res`.
#define CONV(dn, attrs, res)                                                  \
  "func.func @main(%a: tensor<1x4x1xf32>, %k: tensor<3x1x1xf32>) -> tensor<" \
  res "> {\n  %r = \"stablehlo.convolution\"(%a, %k) {dimension_numbers = "  \
  "#stablehlo.conv<" dn ">" attrs "} : (tensor<1x4x1xf32>, "                 \
  "tensor<3x1x1xf32>) -> tensor<" res ">\n  return %r : tensor<" res "> }"

#define DN1 "[b, 0, f]x[0, i, o]->[b, 0, f]"

// convolution of quantized tensor<1x4x1x`l`> by tensor<3x1x1x`k`> into
// tensor<1x2x1x`o`> with DN1 (kernel output feature dim 2, output feature
// dim 2).
#define QCONV(l, k, o)                                                       \
  "func.func @main(%a: tensor<1x4x1x" l ">, %k: tensor<3x1x1x" k ">) -> "    \
  "tensor<1x2x1x" o "> {\n  %r = \"stablehlo.convolution\"(%a, %k) "        \
  "{dimension_numbers = #stablehlo.conv<" DN1 ">} : (tensor<1x4x1x" l       \
  ">, tensor<3x1x1x" k ">) -> tensor<1x2x1x" o ">\n  return %r : "          \
  "tensor<1x2x1x" o "> }"
#define Q8 "!quant.uniform<i8:f32, 0.5:0>"

const Case kCases[] = {
    {"Reduce_C3_InitCount",
     "func.func @main(%a: tensor<4xf32>, %z: tensor<f32>) -> tensor<f32> {\n"
     "  %0 = \"stablehlo.reduce\"(%a, %a, %z) " ADD_F32
     " {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<4xf32>, "
     "tensor<f32>) -> tensor<f32>\n  return %0 : tensor<f32> }",
     "stablehlo.reduce", "(C3) needs N inputs, N init values"},
    {"Reduce_C8_ResultElementType",
     "func.func @main(%a: tensor<4xf32>, %z: tensor<f32>) -> tensor<f64> {\n"
     "  %0 = \"stablehlo.reduce\"(%a, %z) " ADD_F32
     " {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<f32>) -> "
     "tensor<f64>\n  return %0 : tensor<f64> }",
     "stablehlo.reduce", "(C8) result #0 has element type f64"},
    {"ReduceWindow_C6_StridesSize",
     RW("2xf32", "window_dimensions = array<i64: 2>, window_strides = "
                 "array<i64: 2, 2>"),
     "stablehlo.reduce_window", "(C6): size(window_strides) = 2"},
    {"ReduceWindow_C8_BaseDilationsSize",
     RW("4xf32", "window_dimensions = array<i64: 1>, base_dilations = "
                 "array<i64: 1, 1>"),
     "stablehlo.reduce_window", "(C8): size(base_dilations) = 2"},
    {"ReduceWindow_C11_WindowDilationPositive",
     RW("4xf32", "window_dimensions = array<i64: 1>, window_dilations = "
                 "array<i64: 0>"),
     "stablehlo.reduce_window", "(C11): window_dilations[0] = 0"},
    {"ReduceWindow_C16_ResultElementType",
     RW("4xf64", "window_dimensions = array<i64: 1>"),
     "stablehlo.reduce_window", "(C16) result #0 has element type f64"},
    {"SelectAndScatter_C3_InitType",
     SAS("2xf32", "f64", "4xf32", SCATTER_F32, W2S2),
     "stablehlo.select_and_scatter", "(C3) init_value has element type f64"},
    {"SelectAndScatter_C4_WindowSize",
     SAS("2xf32", "f32", "4xf32", SCATTER_F32,
         "window_dimensions = array<i64: 2, 2>, window_strides = "
         "array<i64: 2>"),
     "stablehlo.select_and_scatter", "(C4): size(window_dimensions) = 2"},
    {"SelectAndScatter_C5_WindowPositive",
     SAS("2xf32", "f32", "4xf32", SCATTER_F32,
         "window_dimensions = array<i64: 0>, window_strides = array<i64: 2>"),
     "stablehlo.select_and_scatter", "(C5): window_dimensions[0] = 0"},
    {"SelectAndScatter_C6_StridesSize",
     SAS("2xf32", "f32", "4xf32", SCATTER_F32,
         "window_dimensions = array<i64: 2>, window_strides = "
         "array<i64: 2, 2>"),
     "stablehlo.select_and_scatter", "(C6): size(window_strides) = 2"},
    {"SelectAndScatter_C8_PaddingShape",
     SAS("2xf32", "f32", "4xf32", SCATTER_F32,
         W2S2 ", padding = dense<0> : tensor<1x3xi64>"),
     "stablehlo.select_and_scatter", "(C8): shape(padding) must be [1, 2]"},
    {"SelectAndScatter_C10_ScatterType",
     SAS("2xf32", "f32", "4xf32",
         "{ ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
         "   %c = stablehlo.compare GE, %x, %y : (tensor<f32>, tensor<f32>) "
         "-> tensor<i1>\n"
         "   stablehlo.return %c : tensor<i1> }",
         W2S2),
     "stablehlo.select_and_scatter", "(C10): scatter region result #0"},
    {"SelectAndScatter_C12_ResultElementType",
     SAS("2xf32", "f32", "4xf64", SCATTER_F32, W2S2),
     "stablehlo.select_and_scatter", "(C12) result has element type f64"},
    {"Sort_C1_NoInputs",
     "func.func @main() -> () {\n"
     "  \"stablehlo.sort\"() ({\n"
     "  ^bb0:\n"
     "    %c = stablehlo.constant dense<true> : tensor<i1>\n"
     "    stablehlo.return %c : tensor<i1>\n"
     "  }) {dimension = 0 : i64} : () -> ()\n"
     "  return }",
     "stablehlo.sort", "expects at least 1 operand, has 0"},
    {"Map_C2_NoInputs",
     "func.func @main() -> tensor<2xf32> {\n"
     "  %0 = \"stablehlo.map\"() ({\n"
     "  ^bb0:\n"
     "    %c = stablehlo.constant dense<1.0> : tensor<f32>\n"
     "    stablehlo.return %c : tensor<f32>\n"
     "  }) {dimensions = array<i64: 0>} : () -> tensor<2xf32>\n"
     "  return %0 : tensor<2xf32> }",
     "stablehlo.map", "expects at least 1 operand, has 0"},
    {"Convolution_C3_StridePositive",
     CONV(DN1, ", window_strides = array<i64: 0>", "1x2x1xf32"),
     "stablehlo.convolution", "(C3)"},
    {"Convolution_C5_LhsDilationSize",
     CONV(DN1, ", lhs_dilation = array<i64: 1, 1>", "1x2x1xf32"),
     "stablehlo.convolution", "(C5)"},
    {"Convolution_C7_RhsDilationSize",
     CONV(DN1, ", rhs_dilation = array<i64: 1, 1>", "1x2x1xf32"),
     "stablehlo.convolution", "(C7)"},
    {"Convolution_C8_RhsDilationPositive",
     CONV(DN1, ", rhs_dilation = array<i64: 0>", "1x2x1xf32"),
     "stablehlo.convolution", "(C8)"},
    {"Convolution_C22_BatchGroupCountPositive",
     CONV(DN1, ", batch_group_count = 0 : i64", "1x2x1xf32"),
     "stablehlo.convolution", "(C22) batch_group_count = 0"},
    {"Convolution_C26_ResultRank",
     CONV(DN1, "", "1x2xf32"),
     "stablehlo.convolution", "(C26) rank(result) = 2 must be 3"},
    {"Convolution_C12_InputSpatialCount",
     CONV("[b, 0, 1, f]x[0, i, o]->[b, 0, f]", "", "1x2x1xf32"),
     "stablehlo.convolution", "(C12)"},
    {"Convolution_C13_InputDimsUnique",
     CONV(
         "raw input_batch_dimension = 0, input_feature_dimension = 0, "
         "input_spatial_dimensions = [1], "
         "kernel_input_feature_dimension = 1, "
         "kernel_output_feature_dimension = 2, "
         "kernel_spatial_dimensions = [0], output_batch_dimension = 0, "
         "output_feature_dimension = 2, "
         "output_spatial_dimensions = [1]",
         "", "1x2x1xf32"),
     "stablehlo.convolution", "(C13)"},
    {"Convolution_C17_KernelSpatialCount",
     CONV("[b, 0, f]x[0, 1, i, o]->[b, 0, f]", "", "1x2x1xf32"),
     "stablehlo.convolution", "(C17)"},
    {"Convolution_C18_KernelDimsUnique",
     CONV(
         "raw input_batch_dimension = 0, input_feature_dimension = 2, "
         "input_spatial_dimensions = [1], "
         "kernel_input_feature_dimension = 2, "
         "kernel_output_feature_dimension = 2, "
         "kernel_spatial_dimensions = [0], output_batch_dimension = 0, "
         "output_feature_dimension = 2, "
         "output_spatial_dimensions = [1]",
         "", "1x2x1xf32"),
     "stablehlo.convolution", "(C18)"},
    {"Convolution_C19_OutputSpatialCount",
     CONV("[b, 0, f]x[0, i, o]->[b, 0, 1, f]", "", "1x2x1xf32"),
     "stablehlo.convolution", "(C19)"},
    {"Convolution_C20_OutputDimsUnique",
     CONV(
         "raw input_batch_dimension = 0, input_feature_dimension = 2, "
         "input_spatial_dimensions = [1], "
         "kernel_input_feature_dimension = 1, "
         "kernel_output_feature_dimension = 2, "
         "kernel_spatial_dimensions = [0], output_batch_dimension = 2, "
         "output_feature_dimension = 2, "
         "output_spatial_dimensions = [1]",
         "", "1x2x1xf32"),
     "stablehlo.convolution", "(C20)"},
    {"Convolution_C29_RhsQuantizationDimension",
     QCONV(Q8, "!quant.uniform<i8:f32:0, {0.5, 0.5, 0.5}>", Q8),
     "stablehlo.convolution",
     "(C29) quantization_dimension(rhs) = 0 must be "
     "kernel_output_feature_dimension 2"},
    {"Convolution_C30_ResultQuantizationDimension",
     QCONV(Q8, "!quant.uniform<i8:f32:2, {0.5}>",
           "!quant.uniform<i8:f32:1, {0.5, 0.5}>"),
     "stablehlo.convolution",
     "(C30) quantization_dimension(result) = 1 must be "
     "output_feature_dimension 2"},
    {"Convolution_C32_ExpressedTypes",
     QCONV(Q8, Q8, "!quant.uniform<i8:f16, 0.5:0>"), "stablehlo.convolution",
     "(C32) expressed types f32 (lhs), f32 (rhs) and f16 (result) differ"},
    {"Convolution_C33_PerTensorRhsPerAxisResult",
     QCONV(Q8, Q8, "!quant.uniform<i8:f32:2, {0.5}>"), "stablehlo.convolution",
     "(C33) a per-tensor quantized rhs needs a per-tensor quantized result"},
};

HLX_RULES_TEST(WindowReduce, kCases);

// Each convolution case again as dynamic_conv: same rule, same number.
TEST(DynamicConvRules, ConvolutionRulesHoldForDynamicConv) {
  int n = 0;
  for (const Case& c : kCases) {
    if (std::string(c.op) != "stablehlo.convolution") continue;
    std::string p = hlx_rules::AsDynamicConv(c.program);
    ASSERT_FALSE(p.empty()) << c.name;
    std::string msg = hlx_rules::CompileError(p.c_str());
    EXPECT_NE(msg.find("stablehlo.dynamic_conv"), std::string::npos)
        << c.name << ": " << msg;
    EXPECT_NE(msg.find(c.rule), std::string::npos) << c.name << ": " << msg;
    n++;
  }
  EXPECT_EQ(n, 16);
}

}  // namespace
