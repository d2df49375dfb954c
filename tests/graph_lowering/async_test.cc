// async_start / async_done (run eagerly, futures held like tuples) and the
// !stablehlo.future type through parse, print and run.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "api/hlx.h"

namespace {

const char kAsyncSlice[] = R"(
func.func @main() -> tensor<1x2xf32> {
  %x = stablehlo.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xf32>
  %0 = "stablehlo.async_start"(%x) ({
    %1 = "stablehlo.slice"(%x) {start_indices = array<i64: 1, 1>, limit_indices = array<i64: 2, 4>, strides = array<i64: 1, 2>} : (tensor<2x4xf32>) -> tensor<1x2xf32>
    "stablehlo.return"(%1) : (tensor<1x2xf32>) -> ()
  }) : (tensor<2x4xf32>) -> !stablehlo.future<tensor<1x2xf32>>
  %2 = "stablehlo.async_done"(%0) : (!stablehlo.future<tensor<1x2xf32>>) -> tensor<1x2xf32>
  return %2 : tensor<1x2xf32>
})";

std::string RunFloats(const std::string& text, float* out, int n) {
  hlx_program_t* p = nullptr;
  hlx_executable_t* e = nullptr;
  hlx_buffer_t* r[1] = {nullptr};
  hlx_status_t s = hlx_program_parse(text.data(), text.size(), "t", 1, &p);
  if (!s) s = hlx_executable_create(p, nullptr, &e);
  if (!s) s = hlx_executable_run(e, nullptr, 0, r, 1);
  std::string msg = s ? hlx_status_get_message(s) : "";
  if (!s) std::memcpy(out, hlx_buffer_data(r[0]), sizeof(float) * n);
  hlx_status_release(s);
  hlx_buffer_destroy(r[0]);
  hlx_executable_destroy(e);
  hlx_program_destroy(p);
  return msg;
}

TEST(Async, SliceRunsThroughTheFuture) {
  float v[2];
  ASSERT_EQ(RunFloats(kAsyncSlice, v, 2), "");
  EXPECT_EQ(v[0], 6.0f);
  EXPECT_EQ(v[1], 8.0f);
}

TEST(Async, FutureTypeRoundTripsThroughThePrinter) {
  hlx_program_t* p = nullptr;
  ASSERT_EQ(hlx_program_parse(kAsyncSlice, strlen(kAsyncSlice), "t", 1, &p),
            nullptr);
  char* text = nullptr;
  size_t len = 0;
  ASSERT_EQ(hlx_program_print(p, &text, &len), nullptr);
  std::string printed(text, len);
  free(text);
  hlx_program_destroy(p);
  EXPECT_NE(printed.find("!stablehlo.future<tensor<1x2xf32>>"),
            std::string::npos)
      << printed;
  float v[2];
  ASSERT_EQ(RunFloats(printed, v, 2), "");
  EXPECT_EQ(v[0], 6.0f);
  EXPECT_EQ(v[1], 8.0f);
}

TEST(Async, BodyOpMustBeACollectiveOrASlice) {
  std::string text = kAsyncSlice;
  std::string from = "\"stablehlo.slice\"(%x) {start_indices = array<i64: 1, 1>, limit_indices = array<i64: 2, 4>, strides = array<i64: 1, 2>} : (tensor<2x4xf32>) -> tensor<1x2xf32>";
  size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, from.size(),
               "\"stablehlo.reshape\"(%x) : (tensor<2x4xf32>) -> tensor<1x2xf32>");
  float v[2];
  std::string msg = RunFloats(text, v, 2);
  EXPECT_NE(msg.find("stablehlo.async_start"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(C2)"), std::string::npos) << msg;
}

}  // namespace
