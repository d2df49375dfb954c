// Host functions for custom_call, and infeed/outfeed through run options.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "api/hlx.h"
#include "tests/api/api_testing.h"

namespace {

using hlx_test::Compile;
using hlx_test::Compiled;

// out[i] = in[i] * factor, factor taken from backend_config.
hlx_status_t Scale(void* user, const void* const* in, int32_t nin,
                   void* const* out, int32_t nout, const char* config) {
  int* calls = static_cast<int*>(user);
  ++*calls;
  if (nin != 1 || nout != 1)
    return hlx_status_create(1, "scale: wants one input and one output");
  float f = std::stof(config);
  const float* x = static_cast<const float*>(in[0]);
  float* y = static_cast<float*>(out[0]);
  for (int i = 0; i < 3; i++) y[i] = x[i] * f;
  return nullptr;
}

hlx_status_t Fail(void*, const void* const*, int32_t, void* const*, int32_t,
                  const char*) {
  return hlx_status_create(3, "fail: out of range on purpose");
}

const char kScaleProgram[] = R"(
  func.func @main() -> tensor<3xf32> {
    %0 = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
    %1 = stablehlo.custom_call @scale(%0) {backend_config = "2.5"} : (tensor<3xf32>) -> tensor<3xf32>
    return %1 : tensor<3xf32>
  })";

TEST(HostFunctions, CustomCallRunsTheRegisteredFunction) {
  int calls = 0;
  hlx_host_function_t fns[] = {{"scale", Scale, &calls}};
  hlx_compile_options_t o;
  hlx_compile_options_init(&o);
  o.host_functions = fns;
  o.num_host_functions = 1;
  Compiled c;
  ASSERT_EQ(Compile(kScaleProgram, &o, &c), "");
  hlx_buffer_t* out[1];
  hlx_status_t s = hlx_executable_run(c.exe, nullptr, 0, out, 1);
  ASSERT_EQ(s, nullptr) << hlx_status_get_message(s);
  const float* y = static_cast<const float*>(hlx_buffer_data(out[0]));
  EXPECT_EQ(y[0], 2.5f);
  EXPECT_EQ(y[1], 5.0f);
  EXPECT_EQ(y[2], 7.5f);
  EXPECT_EQ(calls, 1);
  hlx_buffer_destroy(out[0]);
}

TEST(HostFunctions, UnknownTargetIsNamed) {
  Compiled c;
  std::string msg = Compile(kScaleProgram, nullptr, &c);
  EXPECT_NE(msg.find("unknown custom_call target 'scale'"), std::string::npos)
      << msg;
}

TEST(HostFunctions, ErrorFromTheHostFailsTheRunWithItsMessage) {
  hlx_host_function_t fns[] = {{"scale", Fail, nullptr}};
  hlx_compile_options_t o;
  hlx_compile_options_init(&o);
  o.host_functions = fns;
  o.num_host_functions = 1;
  Compiled c;
  ASSERT_EQ(Compile(kScaleProgram, &o, &c), "");
  hlx_buffer_t* out[1];
  hlx_status_t s = hlx_executable_run(c.exe, nullptr, 0, out, 1);
  ASSERT_NE(s, nullptr);
  std::string msg = hlx_status_get_message(s);
  EXPECT_NE(msg.find("stablehlo.custom_call"), std::string::npos) << msg;
  EXPECT_NE(msg.find("out of range on purpose"), std::string::npos) << msg;
  hlx_status_release(s);
}

struct Feeds {
  std::vector<std::vector<int64_t>> queue;
  std::vector<std::vector<int64_t>> outfed;
};

hlx_status_t Infeed(void* user, const char*, void* const* bufs,
                    const size_t* bytes, int32_t n) {
  Feeds* f = static_cast<Feeds*>(user);
  if (n != 1 || f->queue.empty() || bytes[0] != f->queue[0].size() * 8)
    return hlx_status_create(3, "test infeed: nothing fits");
  std::memcpy(bufs[0], f->queue[0].data(), bytes[0]);
  f->queue.erase(f->queue.begin());
  return nullptr;
}

hlx_status_t Outfeed(void* user, const char*, const void* const* bufs,
                     const size_t* bytes, int32_t n) {
  Feeds* f = static_cast<Feeds*>(user);
  for (int32_t i = 0; i < n; i++) {
    const int64_t* v = static_cast<const int64_t*>(bufs[i]);
    f->outfed.emplace_back(v, v + bytes[i] / 8);
  }
  return nullptr;
}

TEST(HostIo, InfeedAndOutfeedGoThroughRunOptions) {
  Compiled c;
  ASSERT_EQ(Compile(R"(
    func.func @main() -> tensor<2xi64> {
      %t = stablehlo.after_all : !stablehlo.token
      %a:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<2xi64>, !stablehlo.token)
      %b:2 = "stablehlo.infeed"(%a#1) : (!stablehlo.token) -> (tensor<2xi64>, !stablehlo.token)
      %s = stablehlo.add %a#0, %b#0 : tensor<2xi64>
      %o = "stablehlo.outfeed"(%s, %b#1) : (tensor<2xi64>, !stablehlo.token) -> !stablehlo.token
      return %s : tensor<2xi64>
    })", nullptr, &c), "");
  Feeds feeds;
  feeds.queue = {{1, 2}, {10, 20}};
  hlx_run_options_t ro;
  hlx_run_options_init(&ro);
  ro.infeed = Infeed;
  ro.outfeed = Outfeed;
  ro.user = &feeds;
  hlx_buffer_t* out[1];
  hlx_status_t s = hlx_executable_run_with_options(c.exe, nullptr, 0, out, 1, &ro);
  ASSERT_EQ(s, nullptr) << hlx_status_get_message(s);
  const int64_t* y = static_cast<const int64_t*>(hlx_buffer_data(out[0]));
  EXPECT_EQ(y[0], 11);
  EXPECT_EQ(y[1], 22);
  ASSERT_EQ(feeds.outfed.size(), 1u);
  EXPECT_EQ(feeds.outfed[0], (std::vector<int64_t>{11, 22}));
  EXPECT_TRUE(feeds.queue.empty());
  hlx_buffer_destroy(out[0]);

  // Without a queue the infeed is a clear error.
  s = hlx_executable_run(c.exe, nullptr, 0, out, 1);
  ASSERT_NE(s, nullptr);
  EXPECT_NE(std::string(hlx_status_get_message(s)).find("no infeed queue"),
            std::string::npos);
  hlx_status_release(s);
}

}  // namespace
