// A compiled convolution holds its oneDNN object (the reference-counted
// primitive cache, kernels/libs/onednn_common.c) while the executable
// lives: an equal layer in a second executable shares it, and destroying
// both leaves it idle (graph/lower/conv.c releases it with the plan).
// Results are checked against the reference convolution
// (HLX_CONV_REFERENCE=1 at compile time).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <vector>

#include "api/hlx.h"
#include "api/hlx_builder_ops.h"
#include "kernels/libs/onednn.h"

namespace {

hlx_tensor_desc_t Desc(std::vector<int64_t> dims) {
  hlx_tensor_desc_t d = {};
  d.element_type = hlx_element_type_from_name("f32");
  d.rank = static_cast<int32_t>(dims.size());
  for (size_t i = 0; i < dims.size(); i++) d.dims[i] = dims[i];
  return d;
}

// The first layer of a small NCHW network (7x7/2, 3 -> 16 at 41x37, odd
// sizes; bands on two threads), weights a constant.
class ConvExe {
 public:
  ConvExe() {
    hlx_tensor_desc_t xd = Desc({1, 3, 41, 37}), wd = Desc({16, 3, 7, 7});
    std::mt19937 g(5);
    std::uniform_real_distribution<float> u(-1, 1);
    w_.resize(16 * 3 * 49);
    for (auto& v : w_) v = u(g);
    hlx_conv_dimension_numbers_t dn;
    hlx_conv_dimension_numbers_default(2, &dn);
    const int64_t strides[2] = {2, 2}, pads[4] = {3, 3, 3, 3};
    uint32_t xv, wv, y;
    Ok(hlx_builder_create("conv", &b_));
    Ok(hlx_builder_parameter(b_, 0, &xd, "x", &xv));
    Ok(hlx_builder_constant(b_, &wd, w_.data(), &wv));
    Ok(hlx_builder_conv_general_dilated(b_, xv, wv, strides, pads, nullptr,
                                        nullptr, &dn, 1, 1, &y));
    Ok(hlx_builder_build(b_, &y, 1, &prog_));
    hlx_compile_options_t opts;
    hlx_compile_options_init(&opts);
    opts.num_threads = 2;
    Ok(hlx_executable_create(prog_, &opts, &exe_));
  }
  ~ConvExe() {
    hlx_executable_destroy(exe_);
    hlx_program_destroy(prog_);
    hlx_builder_destroy(b_);
  }
  std::vector<float> Run(const std::vector<float>& x) {
    hlx_tensor_desc_t xd = Desc({1, 3, 41, 37});
    hlx_buffer_t* in = nullptr;
    hlx_buffer_t* out[1] = {nullptr};
    Ok(hlx_buffer_create(&xd, x.data(), &in));
    Ok(hlx_executable_run(exe_, &in, 1, out, 1));
    const float* y = static_cast<const float*>(hlx_buffer_data(out[0]));
    std::vector<float> r(y, y + 16 * 21 * 19);
    hlx_buffer_destroy(out[0]);
    hlx_buffer_destroy(in);
    return r;
  }

 private:
  static void Ok(hlx_status_t st) {
    ASSERT_EQ(st, nullptr) << hlx_status_get_message(st);
  }
  std::vector<float> w_;
  hlx_builder_t* b_ = nullptr;
  hlx_program_t* prog_ = nullptr;
  hlx_executable_t* exe_ = nullptr;
};

int64_t InUse() {
  hlx_onednn_cache_stats_t s;
  hlx_onednn_cache_stats(&s);
  return s.live - s.idle;
}

TEST(ConvLifetime, ExecutablesHoldAndReleaseTheirConvolution) {
  std::vector<float> x(3 * 41 * 37);
  std::mt19937 g(6);
  std::uniform_real_distribution<float> u(-1, 1);
  for (auto& v : x) v = u(g);
  setenv("HLX_CONV_REFERENCE", "1", 1);
  std::vector<float> want = ConvExe().Run(x);
  unsetenv("HLX_CONV_REFERENCE");

  int64_t before = InUse();
  {
    ConvExe a;
    int64_t held = InUse();
    EXPECT_GT(held, before) << "the executable holds nothing";
    hlx_onednn_cache_stats_t s0;
    hlx_onednn_cache_stats(&s0);
    {
      ConvExe b;  // the same layer: shares a's objects, builds nothing
      hlx_onednn_cache_stats_t s1;
      hlx_onednn_cache_stats(&s1);
      EXPECT_EQ(s1.builds, s0.builds);
      std::vector<float> got = b.Run(x);
      for (size_t i = 0; i < want.size(); i++)
        ASSERT_NEAR(got[i], want[i], 1e-4f * (1 + std::fabs(want[i])))
            << "element " << i;
    }
    EXPECT_EQ(InUse(), held) << "b's release freed a's object";
    std::vector<float> got = a.Run(x);
    for (size_t i = 0; i < want.size(); i++)
      ASSERT_NEAR(got[i], want[i], 1e-4f * (1 + std::fabs(want[i])))
          << "element " << i;
  }
  EXPECT_EQ(InUse(), before) << "still in use after both were destroyed";
}

// Two 3x3 convolutions in a row keep their activation in oneDNN's blocked
// layout; returning it too converts it back by an activation reorder
// (graph/lower/opt/conv_layout.c), which the plan releases with the
// convolutions when the executable is destroyed.
TEST(ConvLifetime, ChainReleasesItsLayoutConversion) {
  hlx_tensor_desc_t xd = Desc({1, 16, 14, 14}), wd = Desc({16, 16, 3, 3});
  std::vector<float> w(16 * 16 * 9);
  std::mt19937 g(7);
  std::uniform_real_distribution<float> u(-1, 1);
  for (auto& v : w) v = u(g);
  hlx_conv_dimension_numbers_t dn;
  hlx_conv_dimension_numbers_default(2, &dn);
  const int64_t strides[2] = {1, 1}, pads[4] = {1, 1, 1, 1};
  hlx_builder_t* b = nullptr;
  hlx_program_t* prog = nullptr;
  uint32_t xv, wv, y1, y2;
  ASSERT_EQ(hlx_builder_create("chain", &b), nullptr);
  ASSERT_EQ(hlx_builder_parameter(b, 0, &xd, "x", &xv), nullptr);
  ASSERT_EQ(hlx_builder_constant(b, &wd, w.data(), &wv), nullptr);
  ASSERT_EQ(hlx_builder_conv_general_dilated(b, xv, wv, strides, pads, nullptr,
                                             nullptr, &dn, 1, 1, &y1),
            nullptr);
  ASSERT_EQ(hlx_builder_conv_general_dilated(b, y1, wv, strides, pads, nullptr,
                                             nullptr, &dn, 1, 1, &y2),
            nullptr);
  const uint32_t results[2] = {y2, y1};
  ASSERT_EQ(hlx_builder_build(b, results, 2, &prog), nullptr);
  int64_t before = InUse();
  hlx_executable_t* exe = nullptr;
  ASSERT_EQ(hlx_executable_create(prog, nullptr, &exe), nullptr);
  // the chain's convolutions and its reorder back to the logical layout
  EXPECT_GE(InUse() - before, 2) << "the executable holds too little";
  hlx_executable_destroy(exe);
  EXPECT_EQ(InUse(), before) << "still in use after the executable went";
  hlx_program_destroy(prog);
  hlx_builder_destroy(b);
}

}  // namespace
