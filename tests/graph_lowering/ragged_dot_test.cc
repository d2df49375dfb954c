// chlo.ragged_dot modes 2 (ragged contracting dim) and 3 (ragged batch dim)
// on hand-computed examples; mode 1 is covered by the conformance programs
// interpret/chlo/ragged_dot.mlir.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "api/hlx.h"

namespace {

// Parses and runs a no-argument program with one i64 result; returns it.
std::string RunI64(const char* text, int64_t* out, int n) {
  hlx_program_t* p = nullptr;
  hlx_executable_t* e = nullptr;
  hlx_buffer_t* r[1] = {nullptr};
  hlx_status_t s = hlx_program_parse(text, strlen(text), "t", 1, &p);
  if (!s) s = hlx_executable_create(p, nullptr, &e);
  if (!s) s = hlx_executable_run(e, nullptr, 0, r, 1);
  std::string msg = s ? hlx_status_get_message(s) : "";
  if (!s) std::memcpy(out, hlx_buffer_data(r[0]), sizeof(int64_t) * n);
  hlx_status_release(s);
  hlx_buffer_destroy(r[0]);
  hlx_executable_destroy(e);
  hlx_program_destroy(p);
  return msg;
}

TEST(RaggedDot, Mode2GroupsSplitTheContractingDim) {
  int64_t out[2];
  ASSERT_EQ(RunI64(R"(
    func.func @main() -> tensor<2x1x1xi64> {
      %l = stablehlo.constant dense<[[1, 2, 3, 4]]> : tensor<1x4xi64>
      %r = stablehlo.constant dense<[[1], [10], [100], [1000]]> : tensor<4x1xi64>
      %g = stablehlo.constant dense<[1, 3]> : tensor<2xi64>
      %0 = "chlo.ragged_dot"(%l, %r, %g) {
        ragged_dot_dimension_numbers = #chlo.ragged_dot<
          lhs_batching_dimensions = [], rhs_batching_dimensions = [],
          lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0],
          lhs_ragged_dimensions = [1], rhs_group_dimensions = []>
      } : (tensor<1x4xi64>, tensor<4x1xi64>, tensor<2xi64>) -> tensor<2x1x1xi64>
      return %0 : tensor<2x1x1xi64>
    })", out, 2), "");
  EXPECT_EQ(out[0], 1);               // group 0: k = 0
  EXPECT_EQ(out[1], 20 + 300 + 4000); // group 1: k = 1..3
}

TEST(RaggedDot, Mode3BatchesPastTheGroupsAreZero) {
  int64_t out[3];
  ASSERT_EQ(RunI64(R"(
    func.func @main() -> tensor<3x1x1xi64> {
      %l = stablehlo.constant dense<[[[1, 2]], [[3, 4]], [[5, 6]]]> : tensor<3x1x2xi64>
      %r = stablehlo.constant dense<[[[1], [1]], [[2], [0]], [[1], [1]]]> : tensor<3x2x1xi64>
      %g = stablehlo.constant dense<[2]> : tensor<1xi64>
      %0 = "chlo.ragged_dot"(%l, %r, %g) {
        ragged_dot_dimension_numbers = #chlo.ragged_dot<
          lhs_batching_dimensions = [0], rhs_batching_dimensions = [0],
          lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1],
          lhs_ragged_dimensions = [0], rhs_group_dimensions = []>
      } : (tensor<3x1x2xi64>, tensor<3x2x1xi64>, tensor<1xi64>) -> tensor<3x1x1xi64>
      return %0 : tensor<3x1x1xi64>
    })", out, 3), "");
  EXPECT_EQ(out[0], 3);
  EXPECT_EQ(out[1], 6);
  EXPECT_EQ(out[2], 0);
}

TEST(RaggedDot, GroupDimensionRequiredInMode1) {
  int64_t out[1];
  std::string msg = RunI64(R"(
    func.func @main() -> tensor<2x1xi64> {
      %l = stablehlo.constant dense<[[1], [2]]> : tensor<2x1xi64>
      %r = stablehlo.constant dense<[[1]]> : tensor<1x1xi64>
      %g = stablehlo.constant dense<[2]> : tensor<1xi64>
      %0 = "chlo.ragged_dot"(%l, %r, %g) {
        ragged_dot_dimension_numbers = #chlo.ragged_dot<
          lhs_batching_dimensions = [], rhs_batching_dimensions = [],
          lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0],
          lhs_ragged_dimensions = [0], rhs_group_dimensions = []>
      } : (tensor<2x1xi64>, tensor<1x1xi64>, tensor<1xi64>) -> tensor<2x1xi64>
      return %0 : tensor<2x1xi64>
    })", out, 1);
  EXPECT_NE(msg.find("chlo.ragged_dot"), std::string::npos) << msg;
  EXPECT_NE(msg.find("group dimension"), std::string::npos) << msg;
}

}  // namespace
