// sort, chlo.top_k, map and fft through the public API: one negative test
// per spec constraint (the message names the op and the rule) and runs of
// the general comparator / map-body paths.
#include <gtest/gtest.h>

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

#define LT_I32                                                           \
  "^bb0(%x: tensor<i32>, %y: tensor<i32>):\n"                            \
  "  %c = stablehlo.compare LT, %x, %y : (tensor<i32>, tensor<i32>) -> " \
  "tensor<i1>\n"                                                         \
  "  stablehlo.return %c : tensor<i1>\n"

const Case kCases[] = {
    {"Sort_C4_DimensionRange",
     "func.func @main(%a: tensor<4xi32>) -> tensor<4xi32> {\n"
     "  %0 = \"stablehlo.sort\"(%a) ({\n" LT_I32
     "  }) {dimension = 1 : i64} : (tensor<4xi32>) -> tensor<4xi32>\n"
     "  return %0 : tensor<4xi32> }",
     "stablehlo.sort", "(C4) dimension 1 is not in [-1, 1)"},
    {"Sort_C3_ShapesDiffer",
     "func.func @main(%a: tensor<4xi32>, %b: tensor<3xi32>) -> tensor<4xi32> {\n"
     "  %0:2 = \"stablehlo.sort\"(%a, %b) ({\n"
     "  ^bb0(%x: tensor<i32>, %y: tensor<i32>, %u: tensor<i32>, %v: tensor<i32>):\n"
     "    %c = stablehlo.compare LT, %x, %y : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
     "    stablehlo.return %c : tensor<i1>\n"
     "  }) {dimension = 0 : i64} : (tensor<4xi32>, tensor<3xi32>) -> (tensor<4xi32>, tensor<3xi32>)\n"
     "  return %0#0 : tensor<4xi32> }",
     "stablehlo.sort", "(C3) input #1's shape differs"},
    {"Sort_C2_ResultType",
     "func.func @main(%a: tensor<4xi32>) -> tensor<4xf32> {\n"
     "  %0 = \"stablehlo.sort\"(%a) ({\n" LT_I32
     "  }) {dimension = 0 : i64} : (tensor<4xi32>) -> tensor<4xf32>\n"
     "  return %0 : tensor<4xf32> }",
     "stablehlo.sort", "(C2) result #0's type differs"},
    {"Sort_C5_ComparatorArgs",
     "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
     "  %0 = \"stablehlo.sort\"(%a) ({\n" LT_I32
     "  }) {dimension = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>\n"
     "  return %0 : tensor<4xf32> }",
     "stablehlo.sort", "(C5) comparator argument #0 must be tensor<f32>"},
    {"Sort_C5_ComparatorResult",
     "func.func @main(%a: tensor<4xi32>) -> tensor<4xi32> {\n"
     "  %0 = \"stablehlo.sort\"(%a) ({\n"
     "  ^bb0(%x: tensor<i32>, %y: tensor<i32>):\n"
     "    stablehlo.return %x : tensor<i32>\n"
     "  }) {dimension = 0 : i64} : (tensor<4xi32>) -> tensor<4xi32>\n"
     "  return %0 : tensor<4xi32> }",
     "stablehlo.sort", "(C5) comparator must return one tensor<i1>"},
    {"top_k_k_too_big",
     "func.func @main(%a: tensor<2x3xf32>) -> tensor<2x4xf32> {\n"
     "  %v, %i = chlo.top_k(%a, k = 4) : tensor<2x3xf32> -> (tensor<2x4xf32>, tensor<2x4xi32>)\n"
     "  return %v : tensor<2x4xf32> }",
     "chlo.top_k", "k = 4 must be in [0, 3]"},
    {"top_k_complex",
     "func.func @main(%a: tensor<3xcomplex<f32>>) -> tensor<1xcomplex<f32>> {\n"
     "  %v, %i = chlo.top_k(%a, k = 1) : tensor<3xcomplex<f32>> -> (tensor<1xcomplex<f32>>, tensor<1xi32>)\n"
     "  return %v : tensor<1xcomplex<f32>> }",
     "chlo.top_k", "has no order"},
    {"Map_C3_Dimensions",
     "func.func @main(%a: tensor<2x2xi32>) -> tensor<2x2xi32> {\n"
     "  %0 = \"stablehlo.map\"(%a, %a) ({\n"
     "  ^bb0(%x: tensor<i32>, %y: tensor<i32>):\n"
     "    %s = stablehlo.add %x, %y : tensor<i32>\n"
     "    stablehlo.return %s : tensor<i32>\n"
     "  }) {dimensions = array<i64: 1, 0>} : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>\n"
     "  return %0 : tensor<2x2xi32> }",
     "stablehlo.map", "(C3) dimensions must be [0, ..., 1]"},
    {"Map_C1_Shape",
     "func.func @main(%a: tensor<2xi32>, %b: tensor<3xi32>) -> tensor<2xi32> {\n"
     "  %0 = \"stablehlo.map\"(%a, %b) ({\n"
     "  ^bb0(%x: tensor<i32>, %y: tensor<i32>):\n"
     "    stablehlo.return %x : tensor<i32>\n"
     "  }) {dimensions = array<i64: 0>} : (tensor<2xi32>, tensor<3xi32>) -> tensor<2xi32>\n"
     "  return %0 : tensor<2xi32> }",
     "stablehlo.map", "(C1) input #1's shape differs"},
    {"Map_C4_BodyType",
     "func.func @main(%a: tensor<2xi32>) -> tensor<2xf32> {\n"
     "  %0 = \"stablehlo.map\"(%a) ({\n"
     "  ^bb0(%x: tensor<i32>):\n"
     "    stablehlo.return %x : tensor<i32>\n"
     "  }) {dimensions = array<i64: 0>} : (tensor<2xi32>) -> tensor<2xf32>\n"
     "  return %0 : tensor<2xf32> }",
     "stablehlo.map", "(C4) computation must return one tensor<f32>"},
    {"Fft_C1_LengthRank",
     "func.func @main(%a: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {\n"
     "  %0 = stablehlo.fft %a, type = FFT, length = [1, 4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>\n"
     "  return %0 : tensor<4xcomplex<f32>> }",
     "stablehlo.fft", "(C1) size(fft_length) = 2 exceeds"},
    {"Fft_C3_LengthCount",
     "func.func @main(%a: tensor<1x1x1x4xcomplex<f32>>) -> tensor<1x1x1x4xcomplex<f32>> {\n"
     "  %0 = stablehlo.fft %a, type = FFT, length = [1, 1, 1, 4] : (tensor<1x1x1x4xcomplex<f32>>) -> tensor<1x1x1x4xcomplex<f32>>\n"
     "  return %0 : tensor<1x1x1x4xcomplex<f32>> }",
     "stablehlo.fft", "(C3) size(fft_length) = 4 must be in [1, 3]"},
    {"Fft_C2_Types",
     "func.func @main(%a: tensor<4xf32>) -> tensor<4xcomplex<f32>> {\n"
     "  %0 = stablehlo.fft %a, type = FFT, length = [4] : (tensor<4xf32>) -> tensor<4xcomplex<f32>>\n"
     "  return %0 : tensor<4xcomplex<f32>> }",
     "stablehlo.fft", "(C2) FFT needs the same complex element type"},
    {"Fft_C2_RfftPrecision",
     "func.func @main(%a: tensor<4xf32>) -> tensor<3xcomplex<f64>> {\n"
     "  %0 = stablehlo.fft %a, type = RFFT, length = [4] : (tensor<4xf32>) -> tensor<3xcomplex<f64>>\n"
     "  return %0 : tensor<3xcomplex<f64>> }",
     "stablehlo.fft", "(C2) RFFT needs a float operand"},
    {"Fft_C4_RfftRealShape",
     "func.func @main(%a: tensor<4xf32>) -> tensor<3xcomplex<f32>> {\n"
     "  %0 = stablehlo.fft %a, type = RFFT, length = [5] : (tensor<4xf32>) -> tensor<3xcomplex<f32>>\n"
     "  return %0 : tensor<3xcomplex<f32>> }",
     "stablehlo.fft", "(C4) operand dim 0 is 4 but fft_length[0] = 5"},
    {"Fft_C5_RfftResultShape",
     "func.func @main(%a: tensor<4xf32>) -> tensor<4xcomplex<f32>> {\n"
     "  %0 = stablehlo.fft %a, type = RFFT, length = [4] : (tensor<4xf32>) -> tensor<4xcomplex<f32>>\n"
     "  return %0 : tensor<4xcomplex<f32>> }",
     "stablehlo.fft", "(C5) result's last dim is 4, expected 3"},
    {"Fft_C5_IrfftOperandShape",
     "func.func @main(%a: tensor<4xcomplex<f32>>) -> tensor<4xf32> {\n"
     "  %0 = stablehlo.fft %a, type = IRFFT, length = [4] : (tensor<4xcomplex<f32>>) -> tensor<4xf32>\n"
     "  return %0 : tensor<4xf32> }",
     "stablehlo.fft", "(C5) IRFFT operand's last dim is 4, expected 3"},
};

class Rules : public ::testing::TestWithParam<Case> {};

TEST_P(Rules, ErrorNamesOpAndRule) {
  const Case& c = GetParam();
  std::string msg = CompileError(c.program);
  ASSERT_FALSE(msg.empty()) << c.name << " compiled";
  EXPECT_NE(msg.find(c.op), std::string::npos) << msg;
  EXPECT_NE(msg.find(c.rule), std::string::npos) << msg;
}

INSTANTIATE_TEST_SUITE_P(SortMapFft, Rules, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& i) {
                           return std::string(i.param.name);
                         });

// Compiles `text`, runs it on one i32 vector, returns the i32 result(s).
std::vector<std::vector<int32_t>> RunI32(const char* text,
                                         const std::vector<int32_t>& in,
                                         int num_results) {
  std::vector<std::vector<int32_t>> res;
  hlx_program_t* p = nullptr;
  hlx_executable_t* e = nullptr;
  hlx_status_t s = hlx_program_parse(text, strlen(text), "t.mlir", 1, &p);
  if (!s) s = hlx_executable_create(p, nullptr, &e);
  EXPECT_EQ(s, nullptr) << hlx_status_get_message(s);
  hlx_buffer_t* b = nullptr;
  if (!s) {
    hlx_tensor_desc_t d = {};
    d.element_type = hlx_element_type_from_name("i32");
    d.rank = 1;
    d.dims[0] = (int64_t)in.size();
    s = hlx_buffer_create(&d, in.data(), &b);
  }
  std::vector<hlx_buffer_t*> out((size_t)num_results, nullptr);
  if (!s) s = hlx_executable_run(e, &b, 1, out.data(), num_results);
  EXPECT_EQ(s, nullptr) << hlx_status_get_message(s);
  if (!s) {
    for (auto* o : out) {
      const int32_t* d = static_cast<const int32_t*>(hlx_buffer_data(o));
      res.emplace_back(d, d + hlx_buffer_bytes(o) / 4);
      hlx_buffer_destroy(o);
    }
  }
  hlx_status_release(s);
  hlx_buffer_destroy(b);
  hlx_executable_destroy(e);
  hlx_program_destroy(p);
  return res;
}

TEST(SortRun, GeneralComparatorRunsTheRegion) {
  // Sort by |x| descending, negative dimension: not a native key pattern.
  auto r = RunI32(
      "func.func @main(%a: tensor<7xi32>) -> (tensor<7xi32>, tensor<7xi32>) {\n"
      "  %i = stablehlo.iota dim = 0 : tensor<7xi32>\n"
      "  %0:2 = \"stablehlo.sort\"(%a, %i) ({\n"
      "  ^bb0(%x: tensor<i32>, %y: tensor<i32>, %u: tensor<i32>, %v: tensor<i32>):\n"
      "    %ax = stablehlo.abs %x : tensor<i32>\n"
      "    %ay = stablehlo.abs %y : tensor<i32>\n"
      "    %c = stablehlo.compare GT, %ax, %ay : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
      "    stablehlo.return %c : tensor<i1>\n"
      "  }) {dimension = -1 : i64, is_stable = true} : (tensor<7xi32>, tensor<7xi32>) -> (tensor<7xi32>, tensor<7xi32>)\n"
      "  return %0#0, %0#1 : tensor<7xi32>, tensor<7xi32> }",
      {-3, 1, -1, 2, 0, 3, -2}, 2);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0], (std::vector<int32_t>{-3, 3, 2, -2, 1, -1, 0}));
  EXPECT_EQ(r[1], (std::vector<int32_t>{0, 5, 3, 6, 1, 2, 4}));
}

TEST(SortRun, LexicographicComparatorUsesNativeKeys) {
  // JAX's two-key pattern: by x ascending, then iota descending (GT).
  auto r = RunI32(
      "func.func @main(%a: tensor<6xi32>) -> (tensor<6xi32>, tensor<6xi32>) {\n"
      "  %i = stablehlo.iota dim = 0 : tensor<6xi32>\n"
      "  %0:2 = \"stablehlo.sort\"(%a, %i) ({\n"
      "  ^bb0(%x: tensor<i32>, %y: tensor<i32>, %u: tensor<i32>, %v: tensor<i32>):\n"
      "    %lt = stablehlo.compare LT, %x, %y, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
      "    %eq = stablehlo.compare EQ, %x, %y, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
      "    %gt = stablehlo.compare GT, %u, %v, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
      "    %a1 = stablehlo.and %eq, %gt : tensor<i1>\n"
      "    %o = stablehlo.or %lt, %a1 : tensor<i1>\n"
      "    stablehlo.return %o : tensor<i1>\n"
      "  }) {dimension = 0 : i64} : (tensor<6xi32>, tensor<6xi32>) -> (tensor<6xi32>, tensor<6xi32>)\n"
      "  return %0#0, %0#1 : tensor<6xi32>, tensor<6xi32> }",
      {2, 1, 2, 1, 0, 2}, 2);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0], (std::vector<int32_t>{0, 1, 1, 2, 2, 2}));
  EXPECT_EQ(r[1], (std::vector<int32_t>{4, 3, 1, 5, 2, 0}));
}

TEST(MapRun, GeneralBodyAndSingleOpBody) {
  auto r = RunI32(
      "func.func @main(%a: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {\n"
      "  %0 = \"stablehlo.map\"(%a, %a) ({\n"
      "  ^bb0(%x: tensor<i32>, %y: tensor<i32>):\n"
      "    %m = stablehlo.multiply %x, %y : tensor<i32>\n"
      "    %c = stablehlo.constant dense<1> : tensor<i32>\n"
      "    %s = stablehlo.add %m, %c : tensor<i32>\n"
      "    stablehlo.return %s : tensor<i32>\n"
      "  }) {dimensions = array<i64: 0>} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>\n"
      "  %1 = \"stablehlo.map\"(%a, %0) ({\n"
      "  ^bb0(%x: tensor<i32>, %y: tensor<i32>):\n"
      "    %d = stablehlo.subtract %x, %y : tensor<i32>\n"
      "    stablehlo.return %d : tensor<i32>\n"
      "  }) {dimensions = array<i64: 0>} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>\n"
      "  return %0, %1 : tensor<4xi32>, tensor<4xi32> }",
      {0, 1, -2, 3}, 2);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0], (std::vector<int32_t>{1, 2, 5, 10}));
  EXPECT_EQ(r[1], (std::vector<int32_t>{-1, -1, -7, -7}));
}

TEST(TopKRun, ValuesAndIndices) {
  auto r = RunI32(
      "func.func @main(%a: tensor<5xi32>) -> (tensor<2xi32>, tensor<2xi32>) {\n"
      "  %v, %i = chlo.top_k(%a, k = 2) : tensor<5xi32> -> (tensor<2xi32>, tensor<2xi32>)\n"
      "  return %v, %i : tensor<2xi32>, tensor<2xi32> }",
      {4, 9, 4, 9, -1}, 2);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0], (std::vector<int32_t>{9, 9}));
  EXPECT_EQ(r[1], (std::vector<int32_t>{1, 3}));
}

}  // namespace
