// One negative test per dot_general constraint that core_rules_test does not
// already cover (C4, C6-C8, C13-C24; C1-C3, C5, C9-C12 are there): each
// program breaks exactly one rule (graph/ops/dot.c).
#include "tests/graph_lowering/rules_harness.h"

namespace {

using hlx_rules::Case;

// dot_general(lhs: tensor<`l`>, rhs: tensor<`r`>) -> tensor<`o`> with
// dimension numbers `dn` and extra attributes `attrs`.
#define DOT(l, r, o, dn, attrs)                                               \
  "func.func @main(%a: tensor<" l ">, %b: tensor<" r ">) -> tensor<" o       \
  "> {\n  %0 = \"stablehlo.dot_general\"(%a, %b) {dot_dimension_numbers = "  \
  "#stablehlo.dot<" dn ">" attrs "} : (tensor<" l ">, tensor<" r            \
  ">) -> tensor<" o ">\n  return %0 : tensor<" o "> }"

#define MM "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]"

#define Q8(scale_zp) "!quant.uniform<i8:f32, " scale_zp ">"

// An algorithm with the given three counts.
#define ALG(l, r, n)                                                         \
  ", algorithm = #stablehlo.dot_algorithm<lhs_precision_type = f32, "        \
  "rhs_precision_type = f32, accumulation_type = f32, lhs_component_count = " \
  l ", rhs_component_count = " r ", num_primitive_operations = " n           \
  ", allow_imprecise_accumulation = false>"

const Case kCases[] = {
    {"DotGeneral_C4_RhsRepeated",
     DOT("3x3xf32", "3x3xf32", "3xf32",
         "lhs_batching_dimensions = [0], rhs_batching_dimensions = [1], "
         "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]",
         ""),
     "stablehlo.dot_general", "(C4) rhs dimension 1 appears twice"},
    {"DotGeneral_C6_LhsContractingRange",
     DOT("2x3xf32", "3x2xf32", "2x2xf32",
         "lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [0]",
         ""),
     "stablehlo.dot_general", "(C6) lhs_contracting_dimensions has 2"},
    {"DotGeneral_C7_RhsBatchingRange",
     DOT("2x3xf32", "2x3xf32", "2xf32",
         "lhs_batching_dimensions = [0], rhs_batching_dimensions = [-1], "
         "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]",
         ""),
     "stablehlo.dot_general", "(C7) rhs_batching_dimensions has -1"},
    {"DotGeneral_C8_RhsContractingRange",
     DOT("2x3xf32", "3x2xf32", "2x2xf32",
         "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [3]",
         ""),
     "stablehlo.dot_general", "(C8) rhs_contracting_dimensions has 3"},
    {"DotGeneral_C13_ElementTypes",
     DOT("2x3xf32", "3x2xi32", "2x2xf32", MM, ""), "stablehlo.dot_general",
     "(C13) lhs has element type f32, rhs i32"},
    {"DotGeneral_C14_QuantizedLhsFloatResult",
     DOT("2x3x" Q8("0.5:0"), "3x2x" Q8("0.5:0"), "2x2xf32", MM, ""),
     "stablehlo.dot_general", "(C14) is_quantized(lhs) = is_quantized(result)"},
    {"DotGeneral_C15_RhsZeroPoint",
     DOT("2x3x" Q8("0.5:0"), "3x2x" Q8("0.5:3"), "2x2x" Q8("1.0:0"), MM, ""),
     "stablehlo.dot_general", "(C15) rhs zero point #0 is 3"},
    {"DotGeneral_C16_RhsQuantizationDimension",
     DOT("2x3x" Q8("0.5:0"), "3x2x!quant.uniform<i8:f32:0, {0.5, 0.5, 0.5}>",
         "2x2x" Q8("1.0:0"), MM, ""),
     "stablehlo.dot_general",
     "(C16) quantization_dimension(rhs) = 0 is a contracting dimension"},
    {"DotGeneral_C17_StorageTypes",
     DOT("2x3x!quant.uniform<i16:f32, 0.5:0>", "3x2x" Q8("0.5:0"),
         "2x2x" Q8("1.0:0"), MM, ""),
     "stablehlo.dot_general", "(C17) storage types i16 (lhs) and i8 (rhs)"},
    {"DotGeneral_C18_ExpressedTypes",
     DOT("2x3x" Q8("0.5:0"), "3x2x" Q8("0.5:0"),
         "2x2x!quant.uniform<i8:f16, 1.0:0>", MM, ""),
     "stablehlo.dot_general", "(C18) expressed types of lhs, rhs and result"},
    {"DotGeneral_C19_PerTensorRhsPerAxisResult",
     DOT("2x3x" Q8("0.5:0"), "3x2x" Q8("0.5:0"),
         "2x2x!quant.uniform<i8:f32:1, {1.0, 1.0}>", MM, ""),
     "stablehlo.dot_general", "(C19) a per-tensor rhs needs a per-tensor result"},
    {"DotGeneral_C20_HybridResultType",
     DOT("2x3xf32", "3x2x" Q8("0.5:0"), "2x2xf64", MM, ""),
     "stablehlo.dot_general", "(C20) element_type(lhs) = expressed_type(rhs)"},
    {"DotGeneral_C21_PrecisionWithAlgorithm",
     DOT("2x3xf32", "3x2xf32", "2x2xf32", MM,
         ", precision_config = [#stablehlo<precision HIGHEST>, "
         "#stablehlo<precision DEFAULT>]" ALG("1", "1", "1")),
     "stablehlo.dot_general", "(C21) precision_config[0] is HIGHEST"},
    {"DotGeneral_C22_LhsComponentCount",
     DOT("2x3xf32", "3x2xf32", "2x2xf32", MM, ALG("0", "1", "1")),
     "stablehlo.dot_general", "(C22) lhs_component_count = 0"},
    {"DotGeneral_C23_RhsComponentCount",
     DOT("2x3xf32", "3x2xf32", "2x2xf32", MM, ALG("1", "0", "1")),
     "stablehlo.dot_general", "(C23) rhs_component_count = 0"},
    {"DotGeneral_C24_NumPrimitiveOperations",
     DOT("2x3xf32", "3x2xf32", "2x2xf32", MM, ALG("1", "1", "-1")),
     "stablehlo.dot_general", "(C24) num_primitive_operations = -1"},
};

HLX_RULES_TEST(DotGeneralRules, kCases);

}  // namespace
