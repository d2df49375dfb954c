// hlx_compile_options_t.fuse_elementwise: on by default; executables
// compiled with and without fusion compute the same values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

extern "C" {
#include "api/hlx.h"
}

namespace {

const char* kChain = R"(
  func.func @main(%x: tensor<9x301xf32>, %b: tensor<301xf32>) -> tensor<9x301xf32> {
    %c = stablehlo.constant dense<0.5> : tensor<f32>
    %cb = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<9x301xf32>
    %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<301xf32>) -> tensor<9x301xf32>
    %0 = stablehlo.multiply %x, %cb : tensor<9x301xf32>
    %1 = stablehlo.add %0, %bb : tensor<9x301xf32>
    %2 = stablehlo.tanh %1 : tensor<9x301xf32>
    %p = stablehlo.compare GT, %2, %x : (tensor<9x301xf32>, tensor<9x301xf32>) -> tensor<9x301xi1>
    %3 = stablehlo.select %p, %2, %0 : tensor<9x301xi1>, tensor<9x301xf32>
    return %3 : tensor<9x301xf32>
  })";

std::vector<float> RunWith(const hlx_program_t* prog, bool fuse) {
  hlx_compile_options_t o;
  hlx_compile_options_init(&o);
  EXPECT_TRUE(o.fuse_elementwise);  // the default
  o.fuse_elementwise = fuse;
  hlx_executable_t* e = nullptr;
  hlx_status_t s = hlx_executable_create(prog, &o, &e);
  EXPECT_EQ(s, nullptr) << (s ? hlx_status_get_message(s) : "");
  hlx_status_release(s);
  if (!e) return {};
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-3, 3);
  std::vector<hlx_buffer_t*> in;
  for (int32_t i = 0; i < hlx_executable_num_params(e); i++) {
    hlx_tensor_desc_t d;
    EXPECT_EQ(hlx_executable_param_desc(e, i, &d), nullptr);
    int64_t n = 1;
    for (int32_t k = 0; k < d.rank; k++) n *= d.dims[k];
    std::vector<float> v((size_t)n);
    for (auto& f : v) f = u(rng);
    v[0] = NAN;
    hlx_buffer_t* b = nullptr;
    EXPECT_EQ(hlx_buffer_create(&d, v.data(), &b), nullptr);
    in.push_back(b);
  }
  hlx_buffer_t* out = nullptr;
  s = hlx_executable_run(e, in.data(), (int32_t)in.size(), &out, 1);
  EXPECT_EQ(s, nullptr) << (s ? hlx_status_get_message(s) : "");
  hlx_status_release(s);
  std::vector<float> r;
  if (out) {
    r.resize(hlx_buffer_bytes(out) / sizeof(float));
    std::memcpy(r.data(), hlx_buffer_data(out), r.size() * sizeof(float));
  }
  hlx_buffer_destroy(out);
  for (auto* b : in) hlx_buffer_destroy(b);
  hlx_executable_destroy(e);
  return r;
}

TEST(FusionApi, FusedAndUnfusedExecutablesAgree) {
  hlx_program_t* prog = nullptr;
  ASSERT_EQ(hlx_program_parse(kChain, std::strlen(kChain), "t", 1, &prog),
            nullptr);
  std::vector<float> fused = RunWith(prog, true);
  std::vector<float> plain = RunWith(prog, false);
  hlx_program_destroy(prog);
  ASSERT_EQ(fused.size(), 9u * 301u);
  ASSERT_EQ(plain.size(), fused.size());
  EXPECT_TRUE(std::isnan(fused[0]) && std::isnan(plain[0]));
  for (size_t i = 1; i < fused.size(); i++)
    ASSERT_NEAR(fused[i], plain[i], 1e-6f * std::fabs(plain[i]) + 1e-30f)
        << "element " << i;
}

}  // namespace
