// End-to-end tests through the public C API: parse, compile, run, read back.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "api/hlx.h"
#include "tests/api/api_testing.h"
#include "tests/data_paths.h"

namespace {

using hlx_test::Compile;
using hlx_test::Compiled;

hlx_buffer_t* MakeF32(std::vector<int64_t> dims, const std::vector<float>& v) {
  hlx_tensor_desc_t d = {};
  d.element_type = hlx_element_type_from_name("f32");
  d.rank = (int32_t)dims.size();
  for (size_t i = 0; i < dims.size(); i++) d.dims[i] = dims[i];
  hlx_buffer_t* b = nullptr;
  hlx_status_t s = hlx_buffer_create(&d, v.data(), &b);
  EXPECT_EQ(s, nullptr);
  return b;
}

TEST(Run, AddsTwoVectors) {
  Compiled c;
  ASSERT_EQ(Compile(R"(
    func.func @main(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
      %0 = stablehlo.add %a, %b : tensor<3xf32>
      return %0 : tensor<3xf32>
    })", &c), "");
  ASSERT_EQ(hlx_executable_num_params(c.exe), 2);
  ASSERT_EQ(hlx_executable_num_results(c.exe), 1);
  hlx_buffer_t* in[2] = {MakeF32({3}, {1, 2, 3}), MakeF32({3}, {10, 20, 30.5f})};
  hlx_buffer_t* out[1];
  hlx_status_t s = hlx_executable_run(c.exe, in, 2, out, 1);
  ASSERT_EQ(s, nullptr) << hlx_status_get_message(s);
  const float* r = static_cast<const float*>(hlx_buffer_data(out[0]));
  EXPECT_EQ(r[0], 11.0f);
  EXPECT_EQ(r[1], 22.0f);
  EXPECT_EQ(r[2], 33.5f);
  hlx_buffer_destroy(out[0]);
  hlx_buffer_destroy(in[0]);
  hlx_buffer_destroy(in[1]);
}

TEST(Run, WhileLoopSumsToTen) {
  Compiled c;
  ASSERT_EQ(Compile(R"(
    func.func @main() -> tensor<i64> {
      %0 = stablehlo.constant dense<0> : tensor<i64>
      %1 = stablehlo.constant dense<1> : tensor<i64>
      %2 = stablehlo.constant dense<5> : tensor<i64>
      %r:2 = stablehlo.while(%i = %0, %acc = %0) : tensor<i64>, tensor<i64>
       cond {
        %c = stablehlo.compare LT, %i, %2 : (tensor<i64>, tensor<i64>) -> tensor<i1>
        stablehlo.return %c : tensor<i1>
      } do {
        %n = stablehlo.add %i, %1 : tensor<i64>
        %s = stablehlo.add %acc, %i : tensor<i64>
        stablehlo.return %n, %s : tensor<i64>, tensor<i64>
      }
      return %r#1 : tensor<i64>
    })", &c), "");
  hlx_buffer_t* out[1];
  hlx_status_t s = hlx_executable_run(c.exe, nullptr, 0, out, 1);
  ASSERT_EQ(s, nullptr) << hlx_status_get_message(s);
  EXPECT_EQ(*static_cast<const int64_t*>(hlx_buffer_data(out[0])), 10);
  hlx_buffer_destroy(out[0]);
}

TEST(Run, ExampleModelGivesProbabilities) {
  std::ifstream f(hlx_test::RepoRoot() + "/examples/mlp_classifier.mlir");
  ASSERT_TRUE(f.good());
  std::stringstream ss;
  ss << f.rdbuf();
  Compiled c;
  ASSERT_EQ(Compile(ss.str(), &c), "");
  std::vector<float> x(8 * 64);
  for (size_t i = 0; i < x.size(); i++) x[i] = std::sin(0.37f * (float)i);
  hlx_buffer_t* in[1] = {MakeF32({8, 64}, x)};
  hlx_buffer_t* out[1];
  hlx_status_t s = hlx_executable_run(c.exe, in, 1, out, 1);
  ASSERT_EQ(s, nullptr) << hlx_status_get_message(s);
  const float* p = static_cast<const float*>(hlx_buffer_data(out[0]));
  for (int row = 0; row < 8; row++) {
    double sum = 0;
    for (int k = 0; k < 10; k++) {
      EXPECT_GT(p[row * 10 + k], 0.0f);
      sum += p[row * 10 + k];
    }
    EXPECT_NEAR(sum, 1.0, 1e-5) << "row " << row;
  }
  hlx_buffer_destroy(out[0]);
  hlx_buffer_destroy(in[0]);
}

TEST(Errors, WrongParameterCountIsAnError) {
  Compiled c;
  ASSERT_EQ(Compile(R"(
    func.func @main(%a: tensor<3xf32>) -> tensor<3xf32> {
      return %a : tensor<3xf32>
    })", &c), "");
  hlx_buffer_t* out[1];
  hlx_status_t s = hlx_executable_run(c.exe, nullptr, 0, out, 1);
  ASSERT_NE(s, nullptr);
  EXPECT_NE(std::string(hlx_status_get_message(s)).find("takes 1 parameters"),
            std::string::npos)
      << hlx_status_get_message(s);
  hlx_status_release(s);
}

TEST(Errors, BroadcastDimensionOutOfRangeNamesOpAndRule) {
  Compiled c;
  std::string msg = Compile(R"(
    func.func @main(%a: tensor<3xf32>) -> tensor<2x3xf32> {
      %0 = stablehlo.broadcast_in_dim %a, dims = [2] : (tensor<3xf32>) -> tensor<2x3xf32>
      return %0 : tensor<2x3xf32>
    })", &c);
  EXPECT_NE(msg.find("stablehlo.broadcast_in_dim"), std::string::npos) << msg;
  EXPECT_NE(msg.find("out of range"), std::string::npos) << msg;
}

TEST(Errors, ElidedConstantNeedsFillOption) {
  const std::string text = R"(
    func.func @main() -> tensor<2xf32> {
      %0 = stablehlo.constant dense_resource<__elided__> : tensor<2xf32>
      return %0 : tensor<2xf32>
    })";
  Compiled c;
  std::string msg = Compile(text, &c);
  EXPECT_NE(msg.find("--fill-elided"), std::string::npos) << msg;

  Compiled d;
  ASSERT_EQ(hlx_program_parse(text.data(), text.size(), "t", 1, &d.program),
            nullptr);
  hlx_compile_options_t o;
  hlx_compile_options_init(&o);
  o.fill_elided = true;
  ASSERT_EQ(hlx_executable_create(d.program, &o, &d.exe), nullptr);
  hlx_buffer_t* out[1];
  ASSERT_EQ(hlx_executable_run(d.exe, nullptr, 0, out, 1), nullptr);
  const float* v = static_cast<const float*>(hlx_buffer_data(out[0]));
  // Vectors (biases, norm parameters) get positive values in [0.5, 1.5).
  EXPECT_TRUE(v[0] >= 0.5f && v[0] < 1.5f && v[1] >= 0.5f && v[1] < 1.5f)
      << v[0] << " " << v[1];
  EXPECT_NE(v[0], v[1]);
  hlx_buffer_destroy(out[0]);
}

// Runs c (no inputs, no results), which must fail a check; its message.
std::string FailedCheck(const Compiled& c) {
  hlx_status_t s = hlx_executable_run(c.exe, nullptr, 0, nullptr, 0);
  EXPECT_NE(s, nullptr);
  EXPECT_TRUE(s && hlx_status_is_check_failure(s));
  return hlx_test::Msg(s);
}

TEST(Errors, FailedCheckIsReportedAsCheckFailure) {
  Compiled c;
  ASSERT_EQ(Compile(R"(
    func.func @main() {
      %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
      check.expect_eq_const %0, dense<[1, 3]> : tensor<2xi32>
      func.return
    })", &c), "");
  std::string msg = FailedCheck(c);
  EXPECT_NE(msg.find("element [1]: got 2, expected 3"), std::string::npos) << msg;
}

// The ULP distance of far-apart f64 values passes INT64_MAX: it was signed
// overflow (UBSan's abort under --config=asan) whose wrapped value let
// 1e308 vs -1e308 pass as close within 2^62 ULP.
TEST(Errors, ExpectCloseMeasuresDistancesPastInt64) {
  Compiled c;
  ASSERT_EQ(Compile(R"(
    func.func @main() {
      %a = stablehlo.constant dense<[1.0, 1.0e308]> : tensor<2xf64>
      %b = stablehlo.constant dense<[1.0, -1.0e308]> : tensor<2xf64>
      check.expect_close %a, %b, max_ulp_difference = 4611686018427387904 : tensor<2xf64>, tensor<2xf64>
      func.return
    })", &c), "");
  std::string msg = FailedCheck(c);
  // 2 * 0x7fe1ccf385ebc8a0, the bit pattern of 1e308.
  EXPECT_NE(msg.find("element [1]: got 1e+308, expected -1e+308 "
                     "(18429743317745373504 ULP, allowed "
                     "4611686018427387904)"),
            std::string::npos)
      << msg;
}

TEST(Errors, ExpectCloseRejectsANegativeUlpBound) {
  Compiled c;
  std::string msg = Compile(R"(
    func.func @main(%a: tensor<2xf32>) {
      check.expect_close %a, %a, max_ulp_difference = -1 : tensor<2xf32>, tensor<2xf32>
      func.return
    })", &c);
  EXPECT_NE(msg.find("check.expect_close"), std::string::npos) << msg;
  EXPECT_NE(msg.find("must be >= 0"), std::string::npos) << msg;
}

}  // namespace
