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
    {"bn_inference_c4", BN_INF("3xf32", "2xf32", "3xf32", "3xf32"),
     "stablehlo.batch_norm_inference", "(C4) size(offset) = 2"},
    {"bn_inference_c5", BN_INF("3xf32", "3xf32", "2xf32", "3xf32"),
     "stablehlo.batch_norm_inference", "(C5) size(mean) = 2"},
    {"bn_training_c1",
     BN_TRAIN("2", "3xf32", "3xf32", "2x3xf32", "3xf32", "3xf32"),
     "stablehlo.batch_norm_training", "(C1) 0 <= feature_index"},
    {"bn_training_c2",
     BN_TRAIN("1", "3xf32", "3xf32", "2x3xf32", "3xf64", "3xf32"),
     "stablehlo.batch_norm_training", "(C2) batch_mean has element type f64"},
    {"bn_training_c3",
     BN_TRAIN("1", "2xf32", "3xf32", "2x3xf32", "3xf32", "3xf32"),
     "stablehlo.batch_norm_training", "(C3) size(scale) = 2"},
    {"bn_training_c4",
     BN_TRAIN("1", "3xf32", "2xf32", "2x3xf32", "3xf32", "3xf32"),
     "stablehlo.batch_norm_training", "(C4) size(offset) = 2"},
    {"bn_training_c6",
     BN_TRAIN("1", "3xf32", "3xf32", "2x3xf32", "3xf32", "2xf32"),
     "stablehlo.batch_norm_training", "(C6) size(batch_var) = 2"},
    {"bn_training_c7",
     BN_TRAIN("1", "3xf32", "3xf32", "3x2xf32", "3xf32", "3xf32"),
     "stablehlo.batch_norm_training", "(C7) output must have the shape"},
    {"bn_grad_c1", BN_GRAD("-1", "3xf32", "3xf32", "3xf32", "3xf32"),
     "stablehlo.batch_norm_grad", "(C1) 0 <= feature_index"},
    {"bn_grad_c2", BN_GRAD("1", "3xf32", "3xf32", "3xf64", "3xf32"),
     "stablehlo.batch_norm_grad", "(C2) grad_scale has element type f64"},
    {"bn_grad_c4", BN_GRAD("1", "3xf32", "2xf32", "3xf32", "3xf32"),
     "stablehlo.batch_norm_grad", "(C4) size(mean) = 2"},
    {"bn_grad_c4_offset", BN_GRAD("1", "3xf32", "3xf32", "3xf32", "3x1xf32"),
     "stablehlo.batch_norm_grad", "(C4) grad_offset must be a 1-dimensional"},
};

HLX_RULES_TEST(Linalg, kCases);

}  // namespace
