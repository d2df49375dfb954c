// FFTW plans' lifetime through the API: an executable holds a reference to
// the plan of each fft it runs and drops it when destroyed
// (graph/lower/fft.c's plan cleanup); unused plans stay cached up to the
// idle capacity (shrunk here to 3) and are destroyed past it, so creating
// and destroying executables with many distinct shapes keeps the cache
// bounded; results stay right when plans are reused or rebuilt. Under
// --config=asan LeakSanitizer checks nothing is lost.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdlib>
#include <string>
#include <vector>

#include "api/hlx.h"
#include "kernels/libs/fftw_cache.h"

namespace {

const bool kWisdomEnv = [] {  // never the user's home
  const char* t = std::getenv("TEST_TMPDIR");
  std::string dir = t && *t ? t : "/tmp";
  setenv("HLX_FFTW_WISDOM", (dir + "/fftw_lifetime.wisdom").c_str(), 1);
  return true;
}();

std::string Program(int64_t n) {
  std::string t = "tensor<2x" + std::to_string(n) + "xcomplex<f32>>";
  return "func.func @main(%x: " + t + ") -> " + t +
         " {\n  %0 = stablehlo.fft %x, type = FFT, length = [" +
         std::to_string(n) + "] : (" + t + ") -> " + t + "\n  return %0 : " +
         t + "\n}\n";
}

struct Exe {
  hlx_program_t* prog = nullptr;
  hlx_executable_t* exe = nullptr;
  int64_t n = 0;
  Exe(int64_t len, bool fast, int32_t threads = 0) : n(len) {
    std::string t = Program(n);
    hlx_compile_options_t o;
    hlx_compile_options_init(&o);
    o.fast_compile = fast;
    o.num_threads = threads;
    hlx_status_t s = hlx_program_parse(t.data(), t.size(), "t.mlir", 1, &prog);
    if (!s) s = hlx_executable_create(prog, &o, &exe);
    EXPECT_EQ(s, nullptr) << hlx_status_get_message(s);
    hlx_status_release(s);
  }
  ~Exe() {
    hlx_executable_destroy(exe);
    hlx_program_destroy(prog);
  }
};

// Runs e on a complex exponential of frequency 3: the transform is 2 * n
// at bin 3 of each row and ~0 elsewhere.
void RunAndCheck(const Exe& e) {
  ASSERT_NE(e.exe, nullptr);
  std::vector<std::complex<float>> x(2 * e.n);
  for (int64_t r = 0; r < 2; r++)
    for (int64_t i = 0; i < e.n; i++)
      x[r * e.n + i] = std::polar(1.0f + r, 2.0f * (float)M_PI * 3 * i / e.n);
  hlx_tensor_desc_t d;
  ASSERT_EQ(hlx_executable_param_desc(e.exe, 0, &d), nullptr);
  hlx_buffer_t* in = nullptr;
  ASSERT_EQ(hlx_buffer_create(&d, x.data(), &in), nullptr);
  hlx_buffer_t* out = nullptr;
  hlx_status_t s = hlx_executable_run(e.exe, &in, 1, &out, 1);
  EXPECT_EQ(s, nullptr) << hlx_status_get_message(s);
  hlx_status_release(s);
  if (out) {
    auto* y = static_cast<const std::complex<float>*>(hlx_buffer_data(out));
    for (int64_t r = 0; r < 2; r++)
      for (int64_t i = 0; i < e.n; i++) {
        float want = i == 3 ? (float)((1 + r) * e.n) : 0.0f;
        ASSERT_NEAR(y[r * e.n + i].real(), want, 1e-3 * e.n) << e.n << " " << i;
        ASSERT_NEAR(y[r * e.n + i].imag(), 0.0f, 1e-3 * e.n) << e.n << " " << i;
      }
    hlx_buffer_destroy(out);
  }
  hlx_buffer_destroy(in);
}

hlx_fftw_cache_stats_t Stats() {
  hlx_fftw_cache_stats_t s;
  hlx_fftw_cache_stats(&s);
  return s;
}

class FftwLifetime : public testing::Test {
 protected:
  void SetUp() override { prev_ = hlx_fftw_cache_set_idle_capacity(3); }
  void TearDown() override { hlx_fftw_cache_set_idle_capacity(prev_); }
  int32_t prev_ = 0;
};

TEST_F(FftwLifetime, DestroyedExecutablesFreeTheirPlansPastCapacity) {
  const int kShapes = 24;
  hlx_fftw_cache_stats_t s0 = Stats();
  for (int i = 0; i < kShapes; i++) {
    {
      Exe e(64 + i, /*fast=*/i % 2 == 0);  // ESTIMATE and MEASURE plans
      hlx_fftw_cache_stats_t s = Stats();
      EXPECT_EQ(s.builds, s0.builds + i + 1) << "shape " << i;
      EXPECT_EQ(s.live - s.idle, s0.live - s0.idle + 1) << "not in use";
      RunAndCheck(e);
    }
    hlx_fftw_cache_stats_t s = Stats();
    EXPECT_EQ(s.live - s.idle, s0.live - s0.idle) << "still in use: " << i;
    EXPECT_LE(s.idle, 3);
  }
  hlx_fftw_cache_stats_t s1 = Stats();
  EXPECT_EQ(s1.idle, 3);
  EXPECT_EQ(s1.live, s0.live - s0.idle + 3);
  {  // the newest idle plan is reused
    Exe e(64 + kShapes - 1, false);
    EXPECT_EQ(Stats().builds, s1.builds);
    RunAndCheck(e);
  }
  {  // the first was destroyed: planned again, and right
    Exe e(64, true);
    EXPECT_EQ(Stats().builds, s1.builds + 1);
    RunAndCheck(e);
  }
}

TEST_F(FftwLifetime, SharedPlanOutlivesTheFirstExecutable) {
  auto* a = new Exe(100, true);
  Exe b(100, true);
  hlx_fftw_cache_stats_t s = Stats();
  delete a;
  EXPECT_EQ(Stats().live - Stats().idle, s.live - s.idle) << "b still uses it";
  RunAndCheck(b);
}

// 2 x 32768 elements is past the thread threshold: on a two-thread
// executable the plan is made for two threads, measured on the
// executable's pool, and its loops run there (TSan checks the hand-off);
// on one thread they are not handed to a pool.
TEST_F(FftwLifetime, ThreadedPlanRunsOnTheExecutablesPool) {
  for (bool fast : {true, false}) {
    Exe e(32768, fast, 2);
    int64_t before = Stats().pool_loops;
    RunAndCheck(e);
    RunAndCheck(e);
    EXPECT_GT(Stats().pool_loops, before) << "the run's loops ran inline";
  }
  Exe one(32768, true, 1);
  int64_t before = Stats().pool_loops;
  RunAndCheck(one);
  EXPECT_EQ(Stats().pool_loops, before);
}

}  // namespace
