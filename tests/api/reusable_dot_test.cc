// hlx_compile_options_t.reusable_params for dot_general: weights (the rhs)
// of a reusable parameter are packed into oneDNN's matmul layout once per
// buffer and kept across runs (graph/lower/dot.c). Results match an
// executable without the option, with and without an epilogue (bias +
// relu post-ops), a different buffer is packed again, and writing into the
// same buffer in place (which the option forbids) shows the kept copy —
// proof that it is kept. Concurrent runs alternating buffers see their own
// weights. Quarter-integer data: every sum is exact, so results must match
// bitwise whatever order the kernels add in.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "api/hlx.h"
#include "tests/api/api_testing.h"

namespace {

constexpr int64_t kM = 300, kK = 64, kN = 96;

const char* kDot = R"(
func.func @main(%x: tensor<300x64xf32>, %w: tensor<64x96xf32>) -> tensor<300x96xf32> {
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<300x64xf32>, tensor<64x96xf32>) -> tensor<300x96xf32>
  return %0 : tensor<300x96xf32>
}
)";

// dot + per-feature bias + relu: an epilogue on oneDNN post-ops.
const char* kDotBiasRelu = R"(
func.func @main(%x: tensor<300x64xf32>, %w: tensor<64x96xf32>, %b: tensor<96xf32>) -> tensor<300x96xf32> {
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<300x64xf32>, tensor<64x96xf32>) -> tensor<300x96xf32>
  %1 = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<96xf32>) -> tensor<300x96xf32>
  %2 = stablehlo.add %0, %1 : tensor<300x96xf32>
  %z = stablehlo.constant dense<0.0> : tensor<300x96xf32>
  %3 = stablehlo.maximum %2, %z : tensor<300x96xf32>
  return %3 : tensor<300x96xf32>
}
)";

std::vector<float> Quarters(size_t n, int salt) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; i++)
    v[i] = static_cast<float>((i * 7 + salt * 13) % 17) / 4.0f - 2.0f;
  return v;
}

struct Fixture {
  hlx_test::Compiled plain, cached;
  std::vector<float> xv = Quarters(kM * kK, 1), w1 = Quarters(kK * kN, 2),
                     w2 = Quarters(kK * kN, 3), bv = Quarters(kN, 4);
  hlx_buffer_t *x = nullptr, *b1 = nullptr, *b2 = nullptr, *bias = nullptr;
  bool with_bias;
  Fixture(int threads, bool epilogue) : with_bias(epilogue) {
    const char* text = epilogue ? kDotBiasRelu : kDot;
    EXPECT_EQ(
        hlx_test::CompilePlainAndReusable(text, threads, 1, &plain, &cached),
        "");
    hlx_tensor_desc_t xd = hlx_test::F32Desc({kM, kK}),
                      wd = hlx_test::F32Desc({kK, kN}),
                      bd = hlx_test::F32Desc({kN});
    EXPECT_EQ(hlx_test::Msg(hlx_buffer_create(&xd, xv.data(), &x)), "");
    EXPECT_EQ(hlx_test::Msg(hlx_buffer_create(&wd, w1.data(), &b1)), "");
    EXPECT_EQ(hlx_test::Msg(hlx_buffer_create(&bd, bv.data(), &bias)), "");
    // Zero-copy: the test writes into w2's memory in place later.
    EXPECT_EQ(hlx_test::Msg(hlx_buffer_create_zero_copy(&wd, w2.data(), nullptr,
                                                        nullptr, nullptr, &b2)),
              "");
  }
  ~Fixture() {
    hlx_buffer_destroy(x);
    hlx_buffer_destroy(b1);
    hlx_buffer_destroy(b2);
    hlx_buffer_destroy(bias);
  }
  std::vector<float> Run(const hlx_test::Compiled& c, hlx_buffer_t* w) {
    hlx_buffer_t* in[3] = {x, w, bias};
    hlx_buffer_t* out = nullptr;
    std::string err = hlx_test::Msg(
        hlx_executable_run(c.exe, in, with_bias ? 3 : 2, &out, 1));
    EXPECT_EQ(err, "");
    if (!out) return {};
    const float* p = static_cast<const float*>(hlx_buffer_data(out));
    std::vector<float> r(p, p + kM * kN);
    hlx_buffer_destroy(out);
    return r;
  }
};

void KeptAndFollowed(int threads, bool epilogue) {
  SCOPED_TRACE(testing::Message()
               << threads << " threads" << (epilogue ? ", epilogue" : ""));
  Fixture f(threads, epilogue);
  ASSERT_NE(f.cached.exe, nullptr);
  std::vector<float> want1 = f.Run(f.plain, f.b1);
  std::vector<float> want2 = f.Run(f.plain, f.b2);
  ASSERT_FALSE(want1.empty());
  ASSERT_NE(want1, want2);
  for (int rep = 0; rep < 3; rep++) {
    EXPECT_EQ(f.Run(f.cached, f.b1), want1) << "run " << rep;
    EXPECT_EQ(f.Run(f.cached, f.b2), want2) << "run " << rep;
  }
  // In-place writes into a reusable buffer are not seen (documented).
  std::vector<float> saved = f.w2;
  for (float& v : f.w2) v *= 2.0f;
  std::vector<float> doubled = f.Run(f.plain, f.b2);
  ASSERT_NE(doubled, want2);
  EXPECT_EQ(f.Run(f.cached, f.b2), want2) << "the packed b2 was kept";
  // Another buffer and then b2 again packs b2's current contents.
  EXPECT_EQ(f.Run(f.cached, f.b1), want1);
  EXPECT_EQ(f.Run(f.cached, f.b2), doubled);
  f.w2 = saved;
}

TEST(ReusableDot, KeptPackedWeightsGiveTheSameResultsAndFollowNewBuffers) {
  KeptAndFollowed(1, false);
  KeptAndFollowed(2, false);
  KeptAndFollowed(1, true);
  KeptAndFollowed(2, true);
}

TEST(ReusableDot, ConcurrentRunsAlternatingBuffersSeeTheirOwnWeights) {
  Fixture f(2, true);
  ASSERT_NE(f.cached.exe, nullptr);
  std::vector<float> want1 = f.Run(f.plain, f.b1);
  std::vector<float> want2 = f.Run(f.plain, f.b2);
  std::atomic<int> wrong{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < 3; t++)
    ts.emplace_back([&, t] {
      for (int i = 0; i < 30; i++) {
        bool one = (i + t) % 2 == 0;
        if (f.Run(f.cached, one ? f.b1 : f.b2) != (one ? want1 : want2))
          wrong++;
      }
    });
  for (auto& th : ts) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
