// One negative test per batch_norm_* constraint that rng_linalg_test does
// not already cover: each program breaks exactly one rule of the spec's
// Constraints list (operand tensor<2x3xf32>, feature_index 1 unless the
// case breaks it).
#include "tests/graph_lowering/rules_harness.h"

namespace {

using hlx_rules::Case;

// batch_norm_inference(x, scale, offset, mean, variance) -> tensor<2x3xf32>.
#define BN_INF(s, o, m, v)                                                   \
  "func.func @main(%x: tensor<2x3xf32>, %s: tensor<" s ">, %o: tensor<" o    \
  ">, %m: tensor<" m ">, %v: tensor<" v ">) -> tensor<2x3xf32> {\n"          \
  "  %0 = \"stablehlo.batch_norm_inference\"(%x, %s, %o, %m, %v) {epsilon = " \
  "0.0 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<" s       \
  ">, tensor<" o ">, tensor<" m ">, tensor<" v ">) -> tensor<2x3xf32>\n"     \
  "  return %0 : tensor<2x3xf32> }"

// batch_norm_training(x, scale, offset) -> (output, batch_mean, batch_var).
#define BN_TRAIN(fi, s, o, out, bm, bv)                                      \
  "func.func @main(%x: tensor<2x3xf32>, %s: tensor<" s ">, %o: tensor<" o    \
  ">) -> tensor<" out "> {\n"                                                \
  "  %0:3 = \"stablehlo.batch_norm_training\"(%x, %s, %o) {epsilon = 0.0 : " \
  "f32, feature_index = " fi " : i64} : (tensor<2x3xf32>, tensor<" s        \
  ">, tensor<" o ">) -> (tensor<" out ">, tensor<" bm ">, tensor<" bv       \
  ">)\n  return %0#0 : tensor<" out "> }"

// batch_norm_grad(x, scale, mean, variance, grad_output)
//   -> (grad_operand, grad_scale, grad_offset).
#define BN_GRAD(fi, s, m, gs, go)                                            \
  "func.func @main(%x: tensor<2x3xf32>, %s: tensor<" s ">, %m: tensor<" m    \
  ">) -> tensor<2x3xf32> {\n"                                                \
  "  %0:3 = \"stablehlo.batch_norm_grad\"(%x, %s, %m, %m, %x) {epsilon = "   \
  "0.0 : f32, feature_index = " fi " : i64} : (tensor<2x3xf32>, tensor<" s  \
  ">, tensor<" m ">, tensor<" m ">, tensor<2x3xf32>) -> (tensor<2x3xf32>, "  \
  "tensor<" gs ">, tensor<" go ">)\n  return %0#0 : tensor<2x3xf32> }"

const Case kCases[] = {
    {"BatchNormInference_C4_Rule", BN_INF("3xf32", "2xf32", "3xf32", "3xf32"),
     "stablehlo.batch_norm_inference", "(C4) size(offset) = 2"},
    {"BatchNormInference_C5_Rule", BN_INF("3xf32", "3xf32", "2xf32", "3xf32"),
     "stablehlo.batch_norm_inference", "(C5) size(mean) = 2"},
    {"BatchNormTraining_C1_Rule",
     BN_TRAIN("2", "3xf32", "3xf32", "2x3xf32", "3xf32", "3xf32"),
     "stablehlo.batch_norm_training", "(C1) 0 <= feature_index"},
    {"BatchNormTraining_C2_Rule",
     BN_TRAIN("1", "3xf32", "3xf32", "2x3xf32", "3xf64", "3xf32"),
     "stablehlo.batch_norm_training", "(C2) batch_mean has element type f64"},
    {"BatchNormTraining_C3_Rule",
     BN_TRAIN("1", "2xf32", "3xf32", "2x3xf32", "3xf32", "3xf32"),
     "stablehlo.batch_norm_training", "(C3) size(scale) = 2"},
    {"BatchNormTraining_C4_Rule",
     BN_TRAIN("1", "3xf32", "2xf32", "2x3xf32", "3xf32", "3xf32"),
     "stablehlo.batch_norm_training", "(C4) size(offset) = 2"},
    {"BatchNormTraining_C6_Rule",
     BN_TRAIN("1", "3xf32", "3xf32", "2x3xf32", "3xf32", "2xf32"),
     "stablehlo.batch_norm_training", "(C6) size(batch_var) = 2"},
    {"BatchNormTraining_C7_Rule",
     BN_TRAIN("1", "3xf32", "3xf32", "3x2xf32", "3xf32", "3xf32"),
     "stablehlo.batch_norm_training", "(C7) output must have the shape"},
    {"BatchNormGrad_C1_Rule", BN_GRAD("-1", "3xf32", "3xf32", "3xf32", "3xf32"),
     "stablehlo.batch_norm_grad", "(C1) 0 <= feature_index"},
    {"BatchNormGrad_C2_Rule", BN_GRAD("1", "3xf32", "3xf32", "3xf64", "3xf32"),
     "stablehlo.batch_norm_grad", "(C2) grad_scale has element type f64"},
    {"BatchNormGrad_C4_Rule", BN_GRAD("1", "3xf32", "2xf32", "3xf32", "3xf32"),
     "stablehlo.batch_norm_grad", "(C4) size(mean) = 2"},
    {"BatchNormGrad_C4_Offset", BN_GRAD("1", "3xf32", "3xf32", "3xf32", "3x1xf32"),
     "stablehlo.batch_norm_grad", "(C4) grad_offset must be a 1-dimensional"},
};

HLX_RULES_TEST(Linalg, kCases);

}  // namespace
