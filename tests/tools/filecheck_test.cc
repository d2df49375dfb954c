// The FileCheck emulation and the interpreter-style tensor printer that
// `hlx check` uses for FileCheck-verified test programs.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "tools/filecheck.h"
#include "tools/tensor_text.h"

namespace {

std::string Text(hlx_dtype_t t, std::vector<int64_t> dims, const void* data,
                 bool dense) {
  char* buf = nullptr;
  size_t len = 0, cap = 0;
  EXPECT_TRUE(hlx_tensor_text(t, (int32_t)dims.size(), dims.data(), data,
                              dense, &buf, &len, &cap));
  std::string s(buf ? buf : "");
  free(buf);
  return s;
}

TEST(TensorText, InterpreterLayouts) {
  int8_t m[] = {1, 2, 3, 4};
  EXPECT_EQ(Text(HLX_DTYPE_S8, {2, 2}, m, false),
            "tensor<2x2xi8> {\n  [\n    [1, 2],\n    [3, 4]\n  ]\n}");
  uint8_t one = 1;
  EXPECT_EQ(Text(HLX_DTYPE_U8, {}, &one, false), "tensor<ui8> {1}");
  EXPECT_EQ(Text(HLX_DTYPE_S8, {2, 0}, m, false),
            "tensor<2x0xi8> {\n  [\n    [],\n    []\n  ]\n}");
  uint8_t b[] = {1, 0};
  EXPECT_EQ(Text(HLX_DTYPE_PRED, {2}, b, false),
            "tensor<2xi1> {\n  [true, false]\n}");
  float f[] = {1.0f, -2.5f};
  EXPECT_EQ(Text(HLX_DTYPE_F32, {2}, f, false),
            "tensor<2xf32> {\n  [1.000000e+00, -2.500000e+00]\n}");
}

TEST(TensorText, DenseLayouts) {
  int8_t m[] = {1, 2, 3, 4};
  EXPECT_EQ(Text(HLX_DTYPE_S8, {2, 2}, m, true),
            "dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>");
  int8_t splat[] = {7, 7, 7};
  EXPECT_EQ(Text(HLX_DTYPE_S8, {3}, splat, true), "dense<7> : tensor<3xi8>");
  EXPECT_EQ(Text(HLX_DTYPE_S8, {0}, m, true), "dense<> : tensor<0xi8>");
  float c[] = {1.0f, 2.0f};
  EXPECT_EQ(Text(HLX_DTYPE_C64, {1}, c, true),
            "dense<(1.000000e+00,2.000000e+00)> : tensor<1xcomplex<f32>>");
}

const char kChecks[] =
    "// CHECK:      tensor<2xi8> {\n"
    "// CHECK-NEXT:   [1,   2]\n"
    "// CHECK-NEXT: }\n"
    "// OTHER: nothing\n";

TEST(FileCheck, MatchesWithWhitespaceFolding) {
  char why[256] = "";
  EXPECT_EQ(hlx_filecheck_count(kChecks, strlen(kChecks), "CHECK"), 3);
  EXPECT_TRUE(hlx_filecheck(kChecks, strlen(kChecks), "CHECK",
                            "noise\ntensor<2xi8> {\n  [1, 2]\n}\n", why,
                            sizeof why))
      << why;
}

TEST(FileCheck, NextMustBeOnTheFollowingLine) {
  char why[256] = "";
  EXPECT_FALSE(hlx_filecheck(kChecks, strlen(kChecks), "CHECK",
                             "tensor<2xi8> {\nextra\n  [1, 2]\n}\n", why,
                             sizeof why));
  EXPECT_NE(std::string(why).find("CHECK-NEXT"), std::string::npos) << why;
}

TEST(FileCheck, MissingPatternFails) {
  char why[256] = "";
  EXPECT_FALSE(hlx_filecheck(kChecks, strlen(kChecks), "CHECK",
                             "tensor<2xi8> {\n  [1, 3]\n}\n", why, sizeof why));
  EXPECT_FALSE(hlx_filecheck(kChecks, strlen(kChecks), "OTHER", "something",
                             why, sizeof why));
  EXPECT_NE(std::string(why).find("not found"), std::string::npos) << why;
}

TEST(FileCheck, RegexSyntaxIsReportedUnsupported) {
  const char checks[] = "// CHECK: value {{[0-9]+}}\n";
  char why[256] = "";
  EXPECT_FALSE(hlx_filecheck(checks, strlen(checks), "CHECK", "value 12",
                             why, sizeof why));
  EXPECT_NE(std::string(why).find("unsupported"), std::string::npos) << why;
}

}  // namespace
