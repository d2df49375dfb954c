// rng_bit_generator, rng, cholesky, triangular_solve, batch_norm_*,
// uniform_quantize / uniform_dequantize and quantized elementwise ops through
// the public API: one negative test per spec constraint (the message names
// the op and the rule) and end-to-end runs with hand-checked values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "api/hlx.h"

namespace {

struct Case {
  const char* name;
  const char* program;
  const char* op;
  const char* rule;
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

// Runs a parameterless @main; returns each result's bytes (empty on error).
std::vector<std::vector<uint8_t>> RunMain(const char* text, std::string* err) {
  std::vector<std::vector<uint8_t>> res;
  hlx_program_t* p = nullptr;
  hlx_executable_t* e = nullptr;
  hlx_status_t s = hlx_program_parse(text, strlen(text), "t.mlir", 1, &p);
  if (!s) s = hlx_executable_create(p, nullptr, &e);
  int32_t n = e ? hlx_executable_num_results(e) : 0;
  std::vector<hlx_buffer_t*> out((size_t)(n > 0 ? n : 1), nullptr);
  if (!s) s = hlx_executable_run(e, nullptr, 0, out.data(), n);
  if (!s) {
    for (int32_t i = 0; i < n; i++) {
      const uint8_t* d = static_cast<const uint8_t*>(hlx_buffer_data(out[i]));
      res.emplace_back(d, d + hlx_buffer_bytes(out[i]));
      hlx_buffer_destroy(out[i]);
    }
  }
  if (err) *err = s ? hlx_status_get_message(s) : "";
  hlx_status_release(s);
  hlx_executable_destroy(e);
  hlx_program_destroy(p);
  return res;
}

template <typename T>
std::vector<T> As(const std::vector<uint8_t>& b) {
  std::vector<T> v(b.size() / sizeof(T));
  memcpy(v.data(), b.data(), v.size() * sizeof(T));
  return v;
}

const Case kCases[] = {
    {"rbg_state_type",
     "func.func @main(%s: tensor<2xui32>) -> tensor<4xui32> {\n"
     "  %0:2 = \"stablehlo.rng_bit_generator\"(%s) {rng_algorithm = "
     "#stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xui32>) -> "
     "(tensor<2xui32>, tensor<4xui32>)\n"
     "  return %0#1 : tensor<4xui32> }",
     "stablehlo.rng_bit_generator", "(I2) initial_state must be"},
    {"RngBitGenerator_C1_Rule",
     "func.func @main(%s: tensor<2xui64>) -> tensor<4xui32> {\n"
     "  %0:2 = \"stablehlo.rng_bit_generator\"(%s) {rng_algorithm = "
     "#stablehlo<rng_algorithm PHILOX>} : (tensor<2xui64>) -> "
     "(tensor<3xui64>, tensor<4xui32>)\n"
     "  return %0#1 : tensor<4xui32> }",
     "stablehlo.rng_bit_generator", "(C1)"},
    {"RngBitGenerator_C2_Threefry",
     "func.func @main(%s: tensor<3xui64>) -> tensor<4xui32> {\n"
     "  %0:2 = \"stablehlo.rng_bit_generator\"(%s) {rng_algorithm = "
     "#stablehlo<rng_algorithm THREE_FRY>} : (tensor<3xui64>) -> "
     "(tensor<3xui64>, tensor<4xui32>)\n"
     "  return %0#1 : tensor<4xui32> }",
     "stablehlo.rng_bit_generator", "(C2) size(initial_state) must be 2"},
    {"RngBitGenerator_C2_Philox",
     "func.func @main(%s: tensor<4xui64>) -> tensor<4xui32> {\n"
     "  %0:2 = \"stablehlo.rng_bit_generator\"(%s) {rng_algorithm = "
     "#stablehlo<rng_algorithm PHILOX>} : (tensor<4xui64>) -> "
     "(tensor<4xui64>, tensor<4xui32>)\n"
     "  return %0#1 : tensor<4xui32> }",
     "stablehlo.rng_bit_generator", "(C2) size(initial_state) must be 2 or 3"},
    {"Rng_C1_Rule",
     "func.func @main(%a: tensor<i32>, %b: tensor<f32>) -> tensor<3xi32> {\n"
     "  %s = stablehlo.constant dense<[3]> : tensor<1xi64>\n"
     "  %0 = \"stablehlo.rng\"(%a, %b, %s) {rng_distribution = "
     "#stablehlo<rng_distribution UNIFORM>} : (tensor<i32>, tensor<f32>, "
     "tensor<1xi64>) -> tensor<3xi32>\n"
     "  return %0 : tensor<3xi32> }",
     "stablehlo.rng", "(C1)"},
    {"Rng_C2_Rule",
     "func.func @main(%a: tensor<i32>, %b: tensor<i32>) -> tensor<3xi32> {\n"
     "  %s = stablehlo.constant dense<[3]> : tensor<1xi64>\n"
     "  %0 = \"stablehlo.rng\"(%a, %b, %s) {rng_distribution = "
     "#stablehlo<rng_distribution NORMAL>} : (tensor<i32>, tensor<i32>, "
     "tensor<1xi64>) -> tensor<3xi32>\n"
     "  return %0 : tensor<3xi32> }",
     "stablehlo.rng", "(C2) NORMAL needs a floating-point"},
    {"Rng_C3_Rule",
     "func.func @main(%a: tensor<f32>, %b: tensor<f32>) -> tensor<3xf32> {\n"
     "  %s = stablehlo.constant dense<[4]> : tensor<1xi64>\n"
     "  %0 = \"stablehlo.rng\"(%a, %b, %s) {rng_distribution = "
     "#stablehlo<rng_distribution UNIFORM>} : (tensor<f32>, tensor<f32>, "
     "tensor<1xi64>) -> tensor<3xf32>\n"
     "  return %0 : tensor<3xf32> }",
     "stablehlo.rng", "(C3) shape[0] = 4"},
    {"Cholesky_C2_Rule",
     "func.func @main(%a: tensor<3xf32>) -> tensor<3xf32> {\n"
     "  %0 = \"stablehlo.cholesky\"(%a) {lower = true} : (tensor<3xf32>) -> "
     "tensor<3xf32>\n"
     "  return %0 : tensor<3xf32> }",
     "stablehlo.cholesky", "(C2) rank(a) = 1"},
    {"Cholesky_C3_Rule",
     "func.func @main(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {\n"
     "  %0 = \"stablehlo.cholesky\"(%a) {lower = true} : (tensor<2x3xf32>) -> "
     "tensor<2x3xf32>\n"
     "  return %0 : tensor<2x3xf32> }",
     "stablehlo.cholesky", "(C3) dim(a, -2) = 2 must equal dim(a, -1) = 3"},
    {"Cholesky_C1_Rule",
     "func.func @main(%a: tensor<2x2xf32>) -> tensor<2x2xf64> {\n"
     "  %0 = \"stablehlo.cholesky\"(%a) {lower = true} : (tensor<2x2xf32>) -> "
     "tensor<2x2xf64>\n"
     "  return %0 : tensor<2x2xf64> }",
     "stablehlo.cholesky", "(C1) baseline_type(a)"},
    {"cholesky_int",
     "func.func @main(%a: tensor<2x2xi32>) -> tensor<2x2xi32> {\n"
     "  %0 = \"stablehlo.cholesky\"(%a) {lower = true} : (tensor<2x2xi32>) -> "
     "tensor<2x2xi32>\n"
     "  return %0 : tensor<2x2xi32> }",
     "stablehlo.cholesky", "(I1) a must be a tensor of floating-point"},
    {"TriangularSolve_C1_Trsm",
     "func.func @main(%a: tensor<2x2xf32>, %b: tensor<2x2xf64>) -> "
     "tensor<2x2xf64> {\n"
     "  %0 = \"stablehlo.triangular_solve\"(%a, %b) {left_side = true, lower "
     "= true, unit_diagonal = false, transpose_a = #stablehlo<transpose "
     "NO_TRANSPOSE>} : (tensor<2x2xf32>, tensor<2x2xf64>) -> tensor<2x2xf64>\n"
     "  return %0 : tensor<2x2xf64> }",
     "stablehlo.triangular_solve", "(C1) baseline_element_type(a) = f32"},
    {"TriangularSolve_C2_Trsm",
     "func.func @main(%a: tensor<2x2xf32>, %b: tensor<1x2x2xf32>) -> "
     "tensor<1x2x2xf32> {\n"
     "  %0 = \"stablehlo.triangular_solve\"(%a, %b) {left_side = true, lower "
     "= true, unit_diagonal = false, transpose_a = #stablehlo<transpose "
     "NO_TRANSPOSE>} : (tensor<2x2xf32>, tensor<1x2x2xf32>) -> "
     "tensor<1x2x2xf32>\n"
     "  return %0 : tensor<1x2x2xf32> }",
     "stablehlo.triangular_solve", "(C2)"},
    {"TriangularSolve_C3_Batch",
     "func.func @main(%a: tensor<2x2x2xf32>, %b: tensor<3x2x2xf32>) -> "
     "tensor<3x2x2xf32> {\n"
     "  %0 = \"stablehlo.triangular_solve\"(%a, %b) {left_side = true, lower "
     "= true, unit_diagonal = false, transpose_a = #stablehlo<transpose "
     "NO_TRANSPOSE>} : (tensor<2x2x2xf32>, tensor<3x2x2xf32>) -> "
     "tensor<3x2x2xf32>\n"
     "  return %0 : tensor<3x2x2xf32> }",
     "stablehlo.triangular_solve", "(C3) batch dim 0"},
    {"TriangularSolve_C3_Square",
     "func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x2xf32>) -> "
     "tensor<2x2xf32> {\n"
     "  %0 = \"stablehlo.triangular_solve\"(%a, %b) {left_side = true, lower "
     "= true, unit_diagonal = false, transpose_a = #stablehlo<transpose "
     "NO_TRANSPOSE>} : (tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>\n"
     "  return %0 : tensor<2x2xf32> }",
     "stablehlo.triangular_solve", "(C3) dim(a, -2) = 2"},
    {"TriangularSolve_C3_Side",
     "func.func @main(%a: tensor<2x2xf32>, %b: tensor<3x1xf32>) -> "
     "tensor<3x1xf32> {\n"
     "  %0 = \"stablehlo.triangular_solve\"(%a, %b) {left_side = true, lower "
     "= true, unit_diagonal = false, transpose_a = #stablehlo<transpose "
     "NO_TRANSPOSE>} : (tensor<2x2xf32>, tensor<3x1xf32>) -> tensor<3x1xf32>\n"
     "  return %0 : tensor<3x1xf32> }",
     "stablehlo.triangular_solve", "(C3) dim(a, -1) = 2 must equal dim(b, -2)"},
    {"TriangularSolve_C4_Trsm",
     "func.func @main(%a: tensor<2x2xf32>, %b: tensor<2x1xf32>) -> "
     "tensor<2x2xf32> {\n"
     "  %0 = \"stablehlo.triangular_solve\"(%a, %b) {left_side = true, lower "
     "= true, unit_diagonal = false, transpose_a = #stablehlo<transpose "
     "NO_TRANSPOSE>} : (tensor<2x2xf32>, tensor<2x1xf32>) -> tensor<2x2xf32>\n"
     "  return %0 : tensor<2x2xf32> }",
     "stablehlo.triangular_solve", "(C4) baseline_type(b)"},
    {"BatchNormInference_C1_Rule",
     "func.func @main(%x: tensor<2x3xf32>, %s: tensor<3xf32>) -> "
     "tensor<2x3xf32> {\n"
     "  %0 = \"stablehlo.batch_norm_inference\"(%x, %s, %s, %s, %s) {epsilon "
     "= 0.0 : f32, feature_index = 2 : i64} : (tensor<2x3xf32>, "
     "tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> "
     "tensor<2x3xf32>\n"
     "  return %0 : tensor<2x3xf32> }",
     "stablehlo.batch_norm_inference", "(C1) 0 <= feature_index"},
    {"BatchNormInference_C2_Rule",
     "func.func @main(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %o: "
     "tensor<3xf64>) -> tensor<2x3xf32> {\n"
     "  %0 = \"stablehlo.batch_norm_inference\"(%x, %s, %o, %s, %s) {epsilon "
     "= 0.0 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, "
     "tensor<3xf32>, tensor<3xf64>, tensor<3xf32>, tensor<3xf32>) -> "
     "tensor<2x3xf32>\n"
     "  return %0 : tensor<2x3xf32> }",
     "stablehlo.batch_norm_inference", "(C2) offset has element type f64"},
    {"BatchNormInference_C3_Rule",
     "func.func @main(%x: tensor<2x3xf32>, %s: tensor<2xf32>, %o: "
     "tensor<3xf32>) -> tensor<2x3xf32> {\n"
     "  %0 = \"stablehlo.batch_norm_inference\"(%x, %s, %o, %o, %o) {epsilon "
     "= 0.0 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, "
     "tensor<2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> "
     "tensor<2x3xf32>\n"
     "  return %0 : tensor<2x3xf32> }",
     "stablehlo.batch_norm_inference", "(C3) size(scale) = 2"},
    {"BatchNormInference_C6_Rule",
     "func.func @main(%x: tensor<2x3xf32>, %s: tensor<2xf32>, %o: "
     "tensor<3xf32>) -> tensor<2x3xf32> {\n"
     "  %0 = \"stablehlo.batch_norm_inference\"(%x, %o, %o, %o, %s) {epsilon "
     "= 0.0 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, "
     "tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2xf32>) -> "
     "tensor<2x3xf32>\n"
     "  return %0 : tensor<2x3xf32> }",
     "stablehlo.batch_norm_inference", "(C6) size(variance) = 2"},
    {"BatchNormInference_C7_Rule",
     "func.func @main(%x: tensor<2x3xf32>, %o: tensor<3xf32>) -> "
     "tensor<3x2xf32> {\n"
     "  %0 = \"stablehlo.batch_norm_inference\"(%x, %o, %o, %o, %o) {epsilon "
     "= 0.0 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, "
     "tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> "
     "tensor<3x2xf32>\n"
     "  return %0 : tensor<3x2xf32> }",
     "stablehlo.batch_norm_inference", "(C7) result must have the shape"},
    {"BatchNormTraining_C5_Rule",
     "func.func @main(%x: tensor<2x3xf32>, %o: tensor<3xf32>) -> "
     "tensor<2x3xf32> {\n"
     "  %0:3 = \"stablehlo.batch_norm_training\"(%x, %o, %o) {epsilon = 0.0 "
     ": f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, "
     "tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2xf32>, tensor<3xf32>)\n"
     "  return %0#0 : tensor<2x3xf32> }",
     "stablehlo.batch_norm_training", "(C5) size(batch_mean) = 2"},
    {"BatchNormGrad_C3_Rule",
     "func.func @main(%x: tensor<2x3xf32>, %g: tensor<3x2xf32>, %o: "
     "tensor<3xf32>) -> tensor<2x3xf32> {\n"
     "  %0:3 = \"stablehlo.batch_norm_grad\"(%x, %o, %o, %o, %g) {epsilon = "
     "0.0 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, "
     "tensor<3xf32>, tensor<3xf32>, tensor<3x2xf32>) -> (tensor<2x3xf32>, "
     "tensor<3xf32>, tensor<3xf32>)\n"
     "  return %0#0 : tensor<2x3xf32> }",
     "stablehlo.batch_norm_grad", "(C3) grad_output must have the shape"},
    {"BatchNormGrad_C5_Rule",
     "func.func @main(%x: tensor<2x3xf32>, %s: tensor<2xf32>, %o: "
     "tensor<3xf32>) -> tensor<2x3xf32> {\n"
     "  %0:3 = \"stablehlo.batch_norm_grad\"(%x, %s, %o, %o, %x) {epsilon = "
     "0.0 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<2xf32>, "
     "tensor<3xf32>, tensor<3xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, "
     "tensor<3xf32>, tensor<3xf32>)\n"
     "  return %0#0 : tensor<2x3xf32> }",
     "stablehlo.batch_norm_grad", "(C5) size(scale) = 2"},
    {"UniformQuantize_C1_Quantize",
     "func.func @main(%x: tensor<2xf32>) -> tensor<3x!quant.uniform<i8:f32, "
     "0.5:1>> {\n"
     "  %0 = \"stablehlo.uniform_quantize\"(%x) : (tensor<2xf32>) -> "
     "tensor<3x!quant.uniform<i8:f32, 0.5:1>>\n"
     "  return %0 : tensor<3x!quant.uniform<i8:f32, 0.5:1>> }",
     "stablehlo.uniform_quantize", "(C1) shape(operand)"},
    {"UniformQuantize_C2_Quantize",
     "func.func @main(%x: tensor<2xf16>) -> tensor<2x!quant.uniform<i8:f32, "
     "0.5:1>> {\n"
     "  %0 = \"stablehlo.uniform_quantize\"(%x) : (tensor<2xf16>) -> "
     "tensor<2x!quant.uniform<i8:f32, 0.5:1>>\n"
     "  return %0 : tensor<2x!quant.uniform<i8:f32, 0.5:1>> }",
     "stablehlo.uniform_quantize", "(C2) expressed_type(result) = f32"},
    {"UniformDequantize_C2_Dequantize",
     "func.func @main(%x: tensor<2x!quant.uniform<i8:f32, 0.5:1>>) -> "
     "tensor<2xf16> {\n"
     "  %0 = \"stablehlo.uniform_dequantize\"(%x) : "
     "(tensor<2x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<2xf16>\n"
     "  return %0 : tensor<2xf16> }",
     "stablehlo.uniform_dequantize", "(C2) element_type(result) = f16"},
};

class Rules : public ::testing::TestWithParam<Case> {};

TEST_P(Rules, ErrorNamesOpAndRule) {
  const Case& c = GetParam();
  std::string msg = CompileError(c.program);
  EXPECT_NE(msg.find(c.op), std::string::npos) << msg;
  EXPECT_NE(msg.find(c.rule), std::string::npos) << msg;
}

INSTANTIATE_TEST_SUITE_P(RngLinalg, Rules, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& i) {
                           return std::string(i.param.name);
                         });

TEST(RngRun, ThreeFrySpecExample) {
  std::string err;
  auto r = RunMain(
      "func.func @main() -> (tensor<2xui64>, tensor<2x2xui64>) {\n"
      "  %s = stablehlo.constant dense<[1, 2]> : tensor<2xui64>\n"
      "  %0:2 = \"stablehlo.rng_bit_generator\"(%s) {rng_algorithm = "
      "#stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xui64>) -> "
      "(tensor<2xui64>, tensor<2x2xui64>)\n"
      "  return %0#0, %0#1 : tensor<2xui64>, tensor<2x2xui64> }",
      &err);
  ASSERT_EQ(r.size(), 2u) << err;
  EXPECT_EQ(As<uint64_t>(r[0]), (std::vector<uint64_t>{1, 6}));
  EXPECT_EQ(As<uint64_t>(r[1]),
            (std::vector<uint64_t>{9236835810183407956ull,
                                   16087790271692313299ull,
                                   18212823393184779219ull,
                                   2658481902456610144ull}));
}

TEST(RngRun, DefaultIsPhiloxWithTwoWordState) {
  std::string err;
  auto r = RunMain(
      "func.func @main() -> (tensor<2xui64>, tensor<5xui32>, tensor<2xui64>, "
      "tensor<5xui32>) {\n"
      "  %s = stablehlo.constant dense<[7, 9]> : tensor<2xui64>\n"
      "  %0:2 = \"stablehlo.rng_bit_generator\"(%s) {rng_algorithm = "
      "#stablehlo<rng_algorithm DEFAULT>} : (tensor<2xui64>) -> "
      "(tensor<2xui64>, tensor<5xui32>)\n"
      "  %1:2 = \"stablehlo.rng_bit_generator\"(%s) {rng_algorithm = "
      "#stablehlo<rng_algorithm PHILOX>} : (tensor<2xui64>) -> "
      "(tensor<2xui64>, tensor<5xui32>)\n"
      "  return %0#0, %0#1, %1#0, %1#1 : tensor<2xui64>, tensor<5xui32>, "
      "tensor<2xui64>, tensor<5xui32> }",
      &err);
  ASSERT_EQ(r.size(), 4u) << err;
  // Two Philox blocks (5 words): counter 9 + 2.
  EXPECT_EQ(As<uint64_t>(r[0]), (std::vector<uint64_t>{7, 11}));
  EXPECT_EQ(r[1], r[3]);
  EXPECT_EQ(r[0], r[2]);
}

TEST(RngRun, UniformIsInRangeAndDeterministic) {
  const char* prog =
      "func.func @main() -> (tensor<64xf32>, tensor<64xi32>) {\n"
      "  %a = stablehlo.constant dense<-2.0> : tensor<f32>\n"
      "  %b = stablehlo.constant dense<3.0> : tensor<f32>\n"
      "  %ia = stablehlo.constant dense<5> : tensor<i32>\n"
      "  %ib = stablehlo.constant dense<9> : tensor<i32>\n"
      "  %s = stablehlo.constant dense<[64]> : tensor<1xi64>\n"
      "  %0 = \"stablehlo.rng\"(%a, %b, %s) {rng_distribution = "
      "#stablehlo<rng_distribution UNIFORM>} : (tensor<f32>, tensor<f32>, "
      "tensor<1xi64>) -> tensor<64xf32>\n"
      "  %1 = \"stablehlo.rng\"(%ia, %ib, %s) {rng_distribution = "
      "#stablehlo<rng_distribution UNIFORM>} : (tensor<i32>, tensor<i32>, "
      "tensor<1xi64>) -> tensor<64xi32>\n"
      "  return %0, %1 : tensor<64xf32>, tensor<64xi32> }";
  std::string err;
  auto r = RunMain(prog, &err);
  ASSERT_EQ(r.size(), 2u) << err;
  for (float v : As<float>(r[0])) {
    EXPECT_GE(v, -2.0f);
    EXPECT_LT(v, 3.0f);
  }
  bool seen[4] = {false, false, false, false};
  for (int32_t v : As<int32_t>(r[1])) {
    ASSERT_GE(v, 5);
    ASSERT_LT(v, 9);
    seen[v - 5] = true;
  }
  EXPECT_TRUE(seen[0] && seen[1] && seen[2] && seen[3]);
  auto again = RunMain(prog, &err);
  EXPECT_EQ(r, again);
}

TEST(LinalgRun, CholeskySpecExampleAndTriangularSolve) {
  std::string err;
  auto r = RunMain(
      "func.func @main() -> (tensor<3x3xf32>, tensor<3x3xf32>) {\n"
      "  %a = stablehlo.constant dense<[[1.0, 2.0, 3.0], [2.0, 20.0, 26.0], "
      "[3.0, 26.0, 70.0]]> : tensor<3x3xf32>\n"
      "  %0 = \"stablehlo.cholesky\"(%a) {lower = true} : (tensor<3x3xf32>) "
      "-> tensor<3x3xf32>\n"
      "  %b = stablehlo.constant dense<[[2.0, 0.0, 0.0], [4.0, 8.0, 0.0], "
      "[6.0, 10.0, 12.0]]> : tensor<3x3xf32>\n"
      "  %1 = \"stablehlo.triangular_solve\"(%0, %b) {left_side = true, lower "
      "= true, unit_diagonal = false, transpose_a = #stablehlo<transpose "
      "NO_TRANSPOSE>} : (tensor<3x3xf32>, tensor<3x3xf32>) -> "
      "tensor<3x3xf32>\n"
      "  return %0, %1 : tensor<3x3xf32>, tensor<3x3xf32> }",
      &err);
  ASSERT_EQ(r.size(), 2u) << err;
  std::vector<float> want_l = {1, 0, 0, 2, 4, 0, 3, 5, 6};
  std::vector<float> want_x = {2, 0, 0, 0, 2, 0, 0, 0, 2};
  auto l = As<float>(r[0]), x = As<float>(r[1]);
  for (size_t i = 0; i < 9; i++) {
    EXPECT_NEAR(l[i], want_l[i], 1e-6) << i;
    EXPECT_NEAR(x[i], want_x[i], 1e-6) << i;
  }
}

TEST(LinalgRun, BatchNormSpecExamples) {
  std::string err;
  auto r = RunMain(
      "func.func @main() -> (tensor<2x2x2xf64>, tensor<2x2x2xf64>, "
      "tensor<2xf64>, tensor<2xf64>, tensor<2x2x2xf64>, tensor<2xf64>, "
      "tensor<2xf64>) {\n"
      "  %x = stablehlo.constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[3.0, 4.0], "
      "[1.0, 2.0]]]> : tensor<2x2x2xf64>\n"
      "  %one = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf64>\n"
      "  %mean = stablehlo.constant dense<[2.0, 3.0]> : tensor<2xf64>\n"
      "  %g = stablehlo.constant dense<0.1> : tensor<2x2x2xf64>\n"
      "  %0 = \"stablehlo.batch_norm_inference\"(%x, %one, %one, %mean, %one) "
      "{epsilon = 0.0 : f32, feature_index = 2 : i64} : (tensor<2x2x2xf64>, "
      "tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>) -> "
      "tensor<2x2x2xf64>\n"
      "  %1:3 = \"stablehlo.batch_norm_training\"(%x, %one, %one) {epsilon = "
      "0.0 : f32, feature_index = 2 : i64} : (tensor<2x2x2xf64>, "
      "tensor<2xf64>, tensor<2xf64>) -> (tensor<2x2x2xf64>, tensor<2xf64>, "
      "tensor<2xf64>)\n"
      "  %2:3 = \"stablehlo.batch_norm_grad\"(%x, %one, %mean, %one, %g) "
      "{epsilon = 0.0 : f32, feature_index = 2 : i64} : (tensor<2x2x2xf64>, "
      "tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2x2x2xf64>) -> "
      "(tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>)\n"
      "  return %0, %1#0, %1#1, %1#2, %2#0, %2#1, %2#2 : tensor<2x2x2xf64>, "
      "tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2x2x2xf64>, "
      "tensor<2xf64>, tensor<2xf64> }",
      &err);
  ASSERT_EQ(r.size(), 7u) << err;
  std::vector<double> y = {0, 0, 2, 2, 2, 2, 0, 0};
  EXPECT_EQ(As<double>(r[0]), y);
  EXPECT_EQ(As<double>(r[1]), y);
  EXPECT_EQ(As<double>(r[2]), (std::vector<double>{2, 3}));
  EXPECT_EQ(As<double>(r[3]), (std::vector<double>{1, 1}));
  for (double v : As<double>(r[4])) EXPECT_NEAR(v, 0.0, 1e-12);
  for (double v : As<double>(r[5])) EXPECT_NEAR(v, 0.0, 1e-12);
  for (double v : As<double>(r[6])) EXPECT_NEAR(v, 0.4, 1e-12);
}

TEST(QuantRun, SpecExamplesAndQuantizedAdd) {
  std::string err;
  auto r = RunMain(
      "func.func @main() -> (tensor<2x!quant.uniform<i8:f32:0, "
      "{0.1:-30,0.5:-20}>>, tensor<2x!quant.uniform<i8:f32:0, "
      "{0.1:-20,0.2:-30}>>, tensor<2xf32>, tensor<2x!quant.uniform<i8:f32, "
      "0.5:-20>>) {\n"
      "  %x = stablehlo.constant dense<[4.0, 15.0]> : tensor<2xf32>\n"
      "  %q = \"stablehlo.uniform_quantize\"(%x) : (tensor<2xf32>) -> "
      "tensor<2x!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>>\n"
      "  %rq = \"stablehlo.uniform_quantize\"(%q) : "
      "(tensor<2x!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>>) -> "
      "tensor<2x!quant.uniform<i8:f32:0, {0.1:-20,0.2:-30}>>\n"
      "  %dq = \"stablehlo.uniform_dequantize\"(%q) : "
      "(tensor<2x!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>>) -> "
      "tensor<2xf32>\n"
      "  %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>\n"
      "  %b = stablehlo.constant dense<[3.0, 4.0]> : tensor<2xf32>\n"
      "  %qa = \"stablehlo.uniform_quantize\"(%a) : (tensor<2xf32>) -> "
      "tensor<2x!quant.uniform<i8:f32, 0.1:-30>>\n"
      "  %qb = \"stablehlo.uniform_quantize\"(%b) : (tensor<2xf32>) -> "
      "tensor<2x!quant.uniform<i8:f32, 0.5:-20>>\n"
      "  %s = \"stablehlo.add\"(%qa, %qb) : (tensor<2x!quant.uniform<i8:f32, "
      "0.1:-30>>, tensor<2x!quant.uniform<i8:f32, 0.5:-20>>) -> "
      "tensor<2x!quant.uniform<i8:f32, 0.5:-20>>\n"
      "  return %q, %rq, %dq, %s : tensor<2x!quant.uniform<i8:f32:0, "
      "{0.1:-30,0.5:-20}>>, tensor<2x!quant.uniform<i8:f32:0, "
      "{0.1:-20,0.2:-30}>>, tensor<2xf32>, tensor<2x!quant.uniform<i8:f32, "
      "0.5:-20>> }",
      &err);
  ASSERT_EQ(r.size(), 4u) << err;
  EXPECT_EQ(As<int8_t>(r[0]), (std::vector<int8_t>{10, 10}));
  EXPECT_EQ(As<int8_t>(r[1]), (std::vector<int8_t>{20, 45}));
  auto dq = As<float>(r[2]);
  EXPECT_NEAR(dq[0], 4.0f, 1e-5);
  EXPECT_NEAR(dq[1], 15.0f, 1e-5);
  EXPECT_EQ(As<int8_t>(r[3]), (std::vector<int8_t>{-12, -8}));
}

}  // namespace
