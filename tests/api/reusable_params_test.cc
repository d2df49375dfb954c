// hlx_compile_options_t.reusable_params: convolution weights passed as a
// reusable parameter are packed into oneDNN's layout once per buffer and
// kept across runs. Results match an executable without the option (which
// reorders the weights every run), a different buffer is packed again, and
// writing into the same buffer in place (which the option forbids) shows
// the kept copy — proof that it is kept. Concurrent runs that alternate
// buffers always see their own weights. Bad indices are an error.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "api/hlx.h"
#include "tests/api/api_testing.h"

namespace {

// The layout JAX exports ResNet in: NHWC input, HWIO weights.
const char* kConv = R"(
func.func @main(%x: tensor<1x9x9x8xf32>, %w: tensor<3x3x8x16xf32>) -> tensor<1x9x9x16xf32> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x9x9x8xf32>, tensor<3x3x8x16xf32>) -> tensor<1x9x9x16xf32>
  return %0 : tensor<1x9x9x16xf32>
}
)";

std::vector<float> Values(size_t n, float scale, float shift) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; i++)
    v[i] = scale * static_cast<float>((i * 37) % 23) - shift;
  return v;
}

std::vector<float> RunConv(const hlx_test::Compiled& c, hlx_buffer_t* x,
                           hlx_buffer_t* w) {
  hlx_buffer_t* in[2] = {x, w};
  hlx_buffer_t* out = nullptr;
  std::string err = hlx_test::Msg(hlx_executable_run(c.exe, in, 2, &out, 1));
  EXPECT_EQ(err, "");
  if (!out) return {};
  const float* p = static_cast<const float*>(hlx_buffer_data(out));
  std::vector<float> r(p, p + 9 * 9 * 16);
  hlx_buffer_destroy(out);
  return r;
}

struct Fixture {
  hlx_test::Compiled plain, cached;
  std::vector<float> xv = Values(9 * 9 * 8, 0.1f, 1.0f);
  std::vector<float> w1 = Values(3 * 3 * 8 * 16, 0.05f, 0.5f);
  std::vector<float> w2 = Values(3 * 3 * 8 * 16, -0.03f, -0.2f);
  hlx_buffer_t *x = nullptr, *b1 = nullptr, *b2 = nullptr;
  explicit Fixture(int threads) {
    EXPECT_EQ(
        hlx_test::CompilePlainAndReusable(kConv, threads, 1, &plain, &cached),
        "");
    hlx_tensor_desc_t xd = hlx_test::F32Desc({1, 9, 9, 8}),
                      wd = hlx_test::F32Desc({3, 3, 8, 16});
    EXPECT_EQ(hlx_test::Msg(hlx_buffer_create(&xd, xv.data(), &x)), "");
    // Zero-copy: the test writes into w2's memory in place later.
    EXPECT_EQ(hlx_test::Msg(hlx_buffer_create(&wd, w1.data(), &b1)), "");
    EXPECT_EQ(hlx_test::Msg(hlx_buffer_create_zero_copy(&wd, w2.data(), nullptr,
                                                        nullptr, nullptr, &b2)),
              "");
  }
  ~Fixture() {
    hlx_buffer_destroy(x);
    hlx_buffer_destroy(b1);
    hlx_buffer_destroy(b2);
  }
};

TEST(ReusableParams, KeptPackedWeightsGiveTheSameResultsAndFollowNewBuffers) {
  Fixture f(1);
  ASSERT_NE(f.cached.exe, nullptr);
  std::vector<float> want1 = RunConv(f.plain, f.x, f.b1);
  std::vector<float> want2 = RunConv(f.plain, f.x, f.b2);
  ASSERT_FALSE(want1.empty());
  ASSERT_NE(want1, want2);
  for (int rep = 0; rep < 3; rep++) {
    EXPECT_EQ(RunConv(f.cached, f.x, f.b1), want1) << "run " << rep;
    EXPECT_EQ(RunConv(f.cached, f.x, f.b2), want2) << "run " << rep;
  }
  // In-place writes into a reusable buffer are not seen (documented):
  // the executable without the option sees them, the kept copy does not.
  std::vector<float> saved = f.w2;
  for (float& v : f.w2) v *= 2.0f;
  std::vector<float> doubled = RunConv(f.plain, f.x, f.b2);
  ASSERT_NE(doubled, want2);
  EXPECT_EQ(RunConv(f.cached, f.x, f.b2), want2)
      << "the packed weights of b2 were kept";
  // Passing another buffer and then b2 again packs b2's current contents.
  EXPECT_EQ(RunConv(f.cached, f.x, f.b1), want1);
  EXPECT_EQ(RunConv(f.cached, f.x, f.b2), doubled);
  f.w2 = saved;
}

TEST(ReusableParams, ConcurrentRunsAlternatingBuffersSeeTheirOwnWeights) {
  Fixture f(2);
  ASSERT_NE(f.cached.exe, nullptr);
  std::vector<float> want1 = RunConv(f.plain, f.x, f.b1);
  std::vector<float> want2 = RunConv(f.plain, f.x, f.b2);
  std::atomic<int> wrong{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < 3; t++)
    ts.emplace_back([&, t] {
      for (int i = 0; i < 40; i++) {
        bool one = (i + t) % 2 == 0;
        std::vector<float> got = RunConv(f.cached, f.x, one ? f.b1 : f.b2);
        if (got != (one ? want1 : want2)) wrong++;
      }
    });
  for (auto& th : ts) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(ReusableParams, AnIndexOutsideTheParametersIsAnError) {
  hlx_compile_options_t o;
  hlx_compile_options_init(&o);
  const int32_t bad[] = {2};
  o.reusable_params = bad;
  o.num_reusable_params = 1;
  hlx_test::Compiled c;
  std::string err = hlx_test::Compile(kConv, &o, &c);
  EXPECT_NE(err.find("reusable_params[0] = 2 is not a parameter of @main"),
            std::string::npos)
      << err;
}

}  // namespace
