// Ops with implicit broadcasting: chlo.broadcast_* (numpy-style and with
// broadcast_dimensions), the legacy stablehlo.broadcast, chlo.constant_like.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "api/hlx.h"

namespace {

template <typename T>
std::string RunProgram(const char* text, std::vector<T>* out) {
  hlx_program_t* p = nullptr;
  hlx_executable_t* e = nullptr;
  hlx_buffer_t* r[1] = {nullptr};
  hlx_status_t s = hlx_program_parse(text, strlen(text), "t", 1, &p);
  if (!s) s = hlx_executable_create(p, nullptr, &e);
  if (!s) s = hlx_executable_run(e, nullptr, 0, r, 1);
  std::string msg = s ? hlx_status_get_message(s) : "";
  if (!s) {
    out->resize(hlx_buffer_bytes(r[0]) / sizeof(T));
    std::memcpy(out->data(), hlx_buffer_data(r[0]), hlx_buffer_bytes(r[0]));
  }
  hlx_status_release(s);
  hlx_buffer_destroy(r[0]);
  hlx_executable_destroy(e);
  hlx_program_destroy(p);
  return msg;
}

TEST(BroadcastOps, ChloAddRightAligned) {
  std::vector<int32_t> v;
  ASSERT_EQ(RunProgram(R"(func.func @main() -> tensor<2x3xi32> {
      %a = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
      %b = stablehlo.constant dense<[10, 20, 30]> : tensor<3xi32>
      %0 = "chlo.broadcast_add"(%a, %b) : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
      return %0 : tensor<2x3xi32> })", &v), "");
  EXPECT_EQ(v, (std::vector<int32_t>{11, 22, 33, 14, 25, 36}));
}

TEST(BroadcastOps, ChloSubtractAlongBroadcastDimensions) {
  std::vector<int32_t> v;
  ASSERT_EQ(RunProgram(R"(func.func @main() -> tensor<2x3xi32> {
      %a = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
      %b = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
      %0 = "chlo.broadcast_subtract"(%a, %b) {broadcast_dimensions = array<i64: 0>} : (tensor<2x3xi32>, tensor<2xi32>) -> tensor<2x3xi32>
      return %0 : tensor<2x3xi32> })", &v), "");
  EXPECT_EQ(v, (std::vector<int32_t>{0, 1, 2, 2, 3, 4}));
}

TEST(BroadcastOps, ChloCompareAndSelect) {
  std::vector<float> v;
  ASSERT_EQ(RunProgram(R"(func.func @main() -> tensor<4xf32> {
      %a = stablehlo.constant dense<[1.0, 5.0, 2.0, 7.0]> : tensor<4xf32>
      %t = stablehlo.constant dense<3.0> : tensor<f32>
      %p = "chlo.broadcast_compare"(%a, %t) {comparison_direction = #chlo<comparison_direction GT>} : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
      %z = stablehlo.constant dense<0.0> : tensor<f32>
      %0 = "chlo.broadcast_select"(%p, %a, %z) : (tensor<4xi1>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
      return %0 : tensor<4xf32> })", &v), "");
  EXPECT_EQ(v, (std::vector<float>{0, 5, 0, 7}));
}

TEST(BroadcastOps, LegacyBroadcastPrependsDims) {
  std::vector<int64_t> v;
  ASSERT_EQ(RunProgram(R"(func.func @main() -> tensor<2x3xi64> {
      %a = stablehlo.constant dense<[7, 8, 9]> : tensor<3xi64>
      %0 = "stablehlo.broadcast"(%a) {broadcast_sizes = array<i64: 2>} : (tensor<3xi64>) -> tensor<2x3xi64>
      return %0 : tensor<2x3xi64> })", &v), "");
  EXPECT_EQ(v, (std::vector<int64_t>{7, 8, 9, 7, 8, 9}));
}

TEST(BroadcastOps, ConstantLikeTakesTheOperandShape) {
  std::vector<double> v;
  ASSERT_EQ(RunProgram(R"(func.func @main() -> tensor<2x2xf64> {
      %a = stablehlo.constant dense<0.0> : tensor<2x2xf64>
      %0 = "chlo.constant_like"(%a) {value = 2.5 : f64} : (tensor<2x2xf64>) -> tensor<2x2xf64>
      return %0 : tensor<2x2xf64> })", &v), "");
  EXPECT_EQ(v, (std::vector<double>{2.5, 2.5, 2.5, 2.5}));
}

TEST(BroadcastOps, IncompatibleShapesAreAnError) {
  std::vector<int32_t> v;
  std::string msg = RunProgram(R"(func.func @main() -> tensor<2x3xi32> {
      %a = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
      %b = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
      %0 = "chlo.broadcast_add"(%a, %b) : (tensor<2x3xi32>, tensor<2xi32>) -> tensor<2x3xi32>
      return %0 : tensor<2x3xi32> })", &v);
  EXPECT_NE(msg.find("chlo.broadcast_add"), std::string::npos) << msg;
  EXPECT_NE(msg.find("must be equal or 1"), std::string::npos) << msg;
}

}  // namespace
