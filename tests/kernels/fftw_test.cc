// FFTW plans (kernels/libs/fftw.c) against the reference fft kernel: all
// four transform types, ranks 1-3, power-of-two / odd / prime lengths,
// batches, f32 and f64, measured and estimated, threaded plans on a pool,
// non-finite inputs, the fallback cases, the wisdom file and the bounded
// plan cache.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <fftw3.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern "C" {
#include "kernels/fft.h"
#include "kernels/libs/fftw.h"
}

namespace {

// The wisdom file lives in the test's scratch directory, never in $HOME;
// set before the first plan reads it.
std::string WisdomPath(const char* name) {
  const char* t = std::getenv("TEST_TMPDIR");
  return std::string(t && *t ? t : "/tmp") + "/" + name;
}
const bool kWisdomEnv = [] {
  setenv("HLX_FFTW_WISDOM", WisdomPath("fftw_test.wisdom").c_str(), 1);
  return true;
}();

// A two-thread hlx_parallel_t: the calling thread and one std::thread
// split the range, as hlx's pool would.
struct TwoThreads {
  static int NumThreads(void*) { return 2; }
  static void For(void*, size_t n, size_t grain, hlx_parallel_fn fn,
                  void* arg) {
    (void)grain;
    size_t mid = n / 2;
    calls++;
    std::thread t([&] { fn(arg, mid, n); });
    fn(arg, 0, mid);
    t.join();
  }
  static std::atomic<int> calls;
  hlx_parallel_t par{nullptr, NumThreads, For};
};
std::atomic<int> TwoThreads::calls{0};

struct Case {
  hlx_fft_type_t type;
  bool f64;
  std::vector<int64_t> dims;  // operand dims
  std::vector<int64_t> len;   // fft_length
  bool estimate = false;
  const hlx_parallel_t* par = nullptr;  // threads = 2 with it
};

int64_t Count(const std::vector<int64_t>& d) {
  int64_t n = 1;
  for (int64_t x : d) n *= x;
  return n;
}

// Runs both kernels on random data (with `poison` non-finite values
// planted) and compares every real component within a tolerance scaled by
// the transform's magnitude.
void Check(const Case& c, bool poison = false) {
  bool complex_in = c.type != HLX_FFT_RFFT;
  bool complex_out = c.type != HLX_FFT_IRFFT;
  hlx_dtype_t in_t = complex_in ? (c.f64 ? HLX_DTYPE_C128 : HLX_DTYPE_C64)
                                : (c.f64 ? HLX_DTYPE_F64 : HLX_DTYPE_F32);
  hlx_dtype_t out_t = complex_out ? (c.f64 ? HLX_DTYPE_C128 : HLX_DTYPE_C64)
                                  : (c.f64 ? HLX_DTYPE_F64 : HLX_DTYPE_F32);
  std::vector<int64_t> out_dims = c.dims;
  int64_t last = c.len.back();
  if (c.type == HLX_FFT_RFFT) out_dims.back() = last / 2 + 1;
  if (c.type == HLX_FFT_IRFFT) out_dims.back() = last;
  size_t in_reals = (size_t)Count(c.dims) * (complex_in ? 2 : 1);
  size_t out_reals = (size_t)Count(out_dims) * (complex_out ? 2 : 1);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> x(in_reals);
  for (auto& v : x) v = u(rng);
  if (poison && in_reals > 3) {
    // Real parts (imaginary parts of an IRFFT operand's DC term do not
    // contribute to a real result; FFTW ignores them, NaN or not).
    x[0] = NAN;
    x[2] = INFINITY;
  }
  std::vector<char> in(in_reals * (c.f64 ? 8 : 4));
  for (size_t i = 0; i < in_reals; i++) {
    if (c.f64)
      reinterpret_cast<double*>(in.data())[i] = x[i];
    else
      reinterpret_cast<float*>(in.data())[i] = (float)x[i];
  }
  std::vector<char> in_copy = in;
  std::vector<char> want(out_reals * (c.f64 ? 8 : 4) + 8);
  std::vector<char> got(want.size());
  hlx_status_t s = hlx_ref_fft(c.type, in_t, out_t, (int32_t)c.dims.size(),
                               c.dims.data(), (int32_t)c.len.size(),
                               c.len.data(), in.data(), want.data());
  ASSERT_EQ(s, nullptr) << hlx_status_message(s);
  hlx_fftw_plan_t* p = nullptr;
  hlx_fftw_options_t o = {c.estimate, c.par ? 2 : 1, c.par};
  s = hlx_fftw_plan_obtain(c.type, in_t, (int32_t)c.dims.size(),
                           c.dims.data(), (int32_t)c.len.size(), c.len.data(),
                           &o, &p);
  ASSERT_EQ(s, nullptr) << hlx_status_message(s);
  s = hlx_fftw_execute(p, in.data(), got.data(), c.par);
  hlx_fftw_plan_release(p);
  ASSERT_EQ(s, nullptr);
  EXPECT_EQ(in, in_copy) << "the operand was modified";
  double mag = 0;
  for (size_t i = 0; i < out_reals; i++) {
    double w = c.f64 ? reinterpret_cast<double*>(want.data())[i]
                     : reinterpret_cast<float*>(want.data())[i];
    if (std::isfinite(w)) mag = std::max(mag, std::fabs(w));
  }
  double tol = (c.f64 ? 1e-13 : 2e-6) * (mag + 1) *
               std::log2((double)Count(c.len) + 2);
  for (size_t i = 0; i < out_reals; i++) {
    double w = c.f64 ? reinterpret_cast<double*>(want.data())[i]
                     : reinterpret_cast<float*>(want.data())[i];
    double g = c.f64 ? reinterpret_cast<double*>(got.data())[i]
                     : reinterpret_cast<float*>(got.data())[i];
    if (!std::isfinite(w)) {
      // A complex element is non-finite in both; which of its two parts is
      // NaN depends on the arithmetic order (FFTW skips multiplications by
      // the unit twiddle, the reference does not), which IEEE leaves open.
      size_t first = complex_out ? i & ~(size_t)1 : i;
      size_t parts = complex_out ? 2 : 1;
      bool any = false;
      for (size_t j = first; j < first + parts; j++)
        any |= !std::isfinite(c.f64 ? reinterpret_cast<double*>(got.data())[j]
                                    : reinterpret_cast<float*>(got.data())[j]);
      EXPECT_TRUE(any) << "element " << i / parts << " is finite";
      continue;
    }
    ASSERT_NEAR(g, w, tol) << "element " << i;
  }
}

const hlx_fft_type_t kTypes[] = {HLX_FFT_FFT, HLX_FFT_IFFT, HLX_FFT_RFFT,
                                 HLX_FFT_IRFFT};

// The operand dims for a transform of `len` over a batch of `batch`.
std::vector<int64_t> Dims(hlx_fft_type_t t, std::vector<int64_t> batch,
                          const std::vector<int64_t>& len) {
  for (size_t i = 0; i < len.size(); i++)
    batch.push_back(i + 1 == len.size() && t == HLX_FFT_IRFFT
                        ? len[i] / 2 + 1
                        : len[i]);
  return batch;
}

// Estimated plans for every length; measured ones (~0.5 s of planning per
// shape without wisdom) for a few.
TEST(Fftw, OneDimensionalLengthsMatchReference) {
  for (hlx_fft_type_t t : kTypes)
    for (bool f64 : {false, true}) {
      for (int64_t n : {1, 2, 7, 16, 97, 120, 1024, 4099})
        Check({t, f64, Dims(t, {3}, {n}), {n}, true});
      for (int64_t n : {7, 1024})
        Check({t, f64, Dims(t, {3}, {n}), {n}, false});
    }
}

// Past the thread threshold the plan is made for two threads and FFTW's
// loops run through the hlx_parallel_t given to execute.
TEST(Fftw, ThreadedPlansMatchReferenceAndUseThePool) {
  TwoThreads two;
  for (hlx_fft_type_t t : kTypes)
    for (bool f64 : {false, true}) {
      Check({t, f64, Dims(t, {}, {1 << 17}), {1 << 17}, true, &two.par});
      Check({t, f64, Dims(t, {8}, {16384}), {16384}, true, &two.par});
    }
  // MEASURE times threaded candidates through the pool while planning.
  Check({HLX_FFT_FFT, false, {512, 256}, {512, 256}, false, &two.par});
  hlx_fftw_plan_t* p = nullptr;
  int64_t big[] = {1 << 17}, small[] = {1024};
  hlx_fftw_options_t o = {true, 2, &two.par};
  ASSERT_EQ(hlx_fftw_plan_obtain(HLX_FFT_FFT, HLX_DTYPE_C64, 1, big, 1, big,
                                 &o, &p),
            nullptr);
  EXPECT_EQ(hlx_fftw_plan_threads(p), 2);
  std::vector<std::complex<float>> x(big[0], 1.0f), y(big[0]);
  int before = TwoThreads::calls;
  ASSERT_EQ(hlx_fftw_execute(p, x.data(), y.data(), &two.par), nullptr);
  EXPECT_GT(TwoThreads::calls, before) << "no loop ran on the pool";
  EXPECT_NEAR(y[0].real(), (float)big[0], 1e-3);
  hlx_fftw_plan_release(p);
  ASSERT_EQ(hlx_fftw_plan_obtain(HLX_FFT_FFT, HLX_DTYPE_C64, 1, small, 1,
                                 small, &o, &p),
            nullptr);
  EXPECT_EQ(hlx_fftw_plan_threads(p), 1) << "small transforms: one thread";
  hlx_fftw_plan_release(p);
}

TEST(Fftw, MultiDimensionalAndBatchedMatchReference) {
  for (hlx_fft_type_t t : kTypes)
    for (bool f64 : {false, true}) {
      Check({t, f64, Dims(t, {2, 3}, {6, 10}), {6, 10}});
      Check({t, f64, Dims(t, {}, {5, 8, 9}), {5, 8, 9}});
      Check({t, f64, Dims(t, {4}, {32, 33}), {32, 33}});
    }
}

TEST(Fftw, NonFiniteInputsPropagateLikeReference) {
  for (hlx_fft_type_t t : kTypes) Check({t, false, Dims(t, {2}, {16}), {16}}, true);
}

hlx_fftw_cache_stats_t Stats() {
  hlx_fftw_cache_stats_t s;
  hlx_fftw_cache_stats(&s);
  return s;
}

TEST(Fftw, PlansAreCachedPerShape) {
  hlx_fftw_plan_t *a = nullptr, *b = nullptr;
  int64_t dims[] = {4, 64}, len[] = {64};
  ASSERT_EQ(hlx_fftw_plan_obtain(HLX_FFT_FFT, HLX_DTYPE_C64, 2, dims, 1, len,
                                 nullptr, &a),
            nullptr);
  int64_t builds = Stats().builds;
  ASSERT_EQ(hlx_fftw_plan_obtain(HLX_FFT_FFT, HLX_DTYPE_C64, 2, dims, 1, len,
                                 nullptr, &b),
            nullptr);
  EXPECT_EQ(a, b);
  EXPECT_EQ(Stats().builds, builds);
  hlx_fftw_plan_release(a);
  hlx_fftw_plan_release(b);
}

// Released plans stay cached up to the idle capacity; past it the
// longest-idle ones are destroyed, and plans in use never are.
TEST(Fftw, IdlePlansAreBounded) {
  int32_t prev = hlx_fftw_cache_set_idle_capacity(3);
  hlx_fftw_cache_stats_t s0 = Stats();
  hlx_fftw_options_t est = {true, 1, nullptr};
  int64_t keep_len[] = {40};
  hlx_fftw_plan_t* keep = nullptr;
  ASSERT_EQ(hlx_fftw_plan_obtain(HLX_FFT_FFT, HLX_DTYPE_C64, 1, keep_len, 1,
                                 keep_len, &est, &keep),
            nullptr);
  for (int64_t i = 0; i < 20; i++) {
    int64_t len[] = {200 + i};
    hlx_fftw_plan_t* p = nullptr;
    ASSERT_EQ(hlx_fftw_plan_obtain(HLX_FFT_RFFT, HLX_DTYPE_F32, 1, len, 1,
                                   len, &est, &p),
              nullptr);
    hlx_fftw_plan_release(p);
    EXPECT_LE(Stats().idle, 3);
  }
  hlx_fftw_cache_stats_t s = Stats();
  EXPECT_EQ(s.idle, 3);
  EXPECT_LE(s.live - s.idle, s0.live - s0.idle + 1);
  // The newest idle plan is reused, the oldest was rebuilt.
  int64_t last[] = {219}, first[] = {200};
  hlx_fftw_plan_t* p = nullptr;
  ASSERT_EQ(hlx_fftw_plan_obtain(HLX_FFT_RFFT, HLX_DTYPE_F32, 1, last, 1, last,
                                 &est, &p),
            nullptr);
  EXPECT_EQ(Stats().builds, s.builds);
  hlx_fftw_plan_release(p);
  ASSERT_EQ(hlx_fftw_plan_obtain(HLX_FFT_RFFT, HLX_DTYPE_F32, 1, first, 1,
                                 first, &est, &p),
            nullptr);
  EXPECT_EQ(Stats().builds, s.builds + 1);
  hlx_fftw_plan_release(p);
  // The plan in use survived every eviction and still computes.
  std::vector<std::complex<float>> x(40, 1.0f), y(40);
  ASSERT_EQ(hlx_fftw_execute(keep, x.data(), y.data(), nullptr), nullptr);
  EXPECT_NEAR(y[0].real(), 40.0f, 1e-4);
  hlx_fftw_plan_release(keep);
  hlx_fftw_cache_set_idle_capacity(0);
  EXPECT_EQ(Stats().idle, 0);
  hlx_fftw_cache_set_idle_capacity(prev);
}

std::string ReadAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// MEASURE writes what it learnt to the wisdom file; a process starting
// afresh (simulated by forgetting the wisdom) reads it and plans that
// shape from wisdom alone, with the same results, leaving the file as it
// was. Both precisions share the file.
TEST(Fftw, WisdomFileIsWrittenAndReused) {
  std::string path = WisdomPath("reuse.wisdom");
  std::remove(path.c_str());
  setenv("HLX_FFTW_WISDOM", path.c_str(), 1);
  hlx_fftw_reset_wisdom_for_testing();
  hlx_fftw_cache_stats_t s0 = Stats();
  Check({HLX_FFT_FFT, false, {2, 3000}, {3000}});
  Check({HLX_FFT_IRFFT, true, {5, 601}, {1200}});
  hlx_fftw_cache_stats_t s1 = Stats();
  EXPECT_EQ(s1.wisdom_hits, s0.wisdom_hits);
  EXPECT_EQ(s1.wisdom_writes, s0.wisdom_writes + 2);
  std::string text = ReadAll(path);
  ASSERT_NE(text.find("fftwf_wisdom"), std::string::npos) << text;
  ASSERT_NE(text.find("fftw_wisdom"), std::string::npos) << text;

  hlx_fftw_reset_wisdom_for_testing();
  Check({HLX_FFT_FFT, false, {2, 3000}, {3000}});
  Check({HLX_FFT_IRFFT, true, {5, 601}, {1200}});
  hlx_fftw_cache_stats_t s2 = Stats();
  EXPECT_EQ(s2.wisdom_hits, s1.wisdom_hits + 2) << "wisdom not reused";
  EXPECT_EQ(s2.builds, s1.builds + 2);
  EXPECT_EQ(s2.wisdom_writes, s1.wisdom_writes);
  EXPECT_EQ(ReadAll(path), text);

  // No file, an unreadable one or an unwritable place: planning measures.
  for (std::string bad : {WisdomPath("no/such/dir/w"), WisdomPath("")}) {
    setenv("HLX_FFTW_WISDOM", bad.c_str(), 1);
    hlx_fftw_reset_wisdom_for_testing();
    Check({HLX_FFT_RFFT, false, {3, 77}, {77}});
  }
  setenv("HLX_FFTW_WISDOM", WisdomPath("fftw_test.wisdom").c_str(), 1);
  hlx_fftw_reset_wisdom_for_testing();
}

// The CPU time of the calling thread running plan p `reps` times (best).
double ThreadCpuSeconds(fftwf_plan p, int reps) {
  double best = 1e30;
  for (int r = 0; r < reps; r++) {
    timespec a, b;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
    fftwf_execute(p);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
    best = std::min(best, (double)(b.tv_sec - a.tv_sec) +
                              1e-9 * (double)(b.tv_nsec - a.tv_nsec));
  }
  return best;
}

// Two processes learning new shapes at once: the one that writes the
// wisdom file second must merge what the first wrote, not overwrite it
// with what it read before. The "other process" here holds the file's lock
// (<path>.lock, flock) while it writes its own content; hlx's write for a
// newly measured shape waits for it and then keeps both.
TEST(Fftw, WisdomWritesOfTwoProcessesAreMerged) {
  std::string path = WisdomPath("merge.wisdom");
  std::remove(path.c_str());
  setenv("HLX_FFTW_WISDOM", path.c_str(), 1);
  hlx_fftw_reset_wisdom_for_testing();
  Check({HLX_FFT_FFT, false, {2, 2310}, {2310}});
  std::string before = ReadAll(path);
  ASSERT_NE(before.find("fftwf_wisdom"), std::string::npos);
  int lock = open((path + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(lock, 0);
  ASSERT_EQ(flock(lock, LOCK_EX), 0);
  hlx_fftw_cache_stats_t s0 = Stats();
  std::thread planner([] { Check({HLX_FFT_FFT, false, {2, 2730}, {2730}}); });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  {  // the other process: what it read before, plus nothing new of ours
    std::ofstream f(path + ".other", std::ios::binary);
    f << before;
  }
  ASSERT_EQ(std::rename((path + ".other").c_str(), path.c_str()), 0);
  flock(lock, LOCK_UN);
  close(lock);
  planner.join();
  EXPECT_EQ(Stats().wisdom_writes, s0.wisdom_writes + 1);
  std::string after = ReadAll(path);
  EXPECT_NE(after, before) << "the new shape's wisdom was overwritten";
  // A fresh process plans the new shape from the file alone.
  hlx_fftw_reset_wisdom_for_testing();
  hlx_fftw_cache_stats_t s1 = Stats();
  Check({HLX_FFT_FFT, false, {2, 2730}, {2730}});
  EXPECT_EQ(Stats().wisdom_hits, s1.wisdom_hits + 1);
  setenv("HLX_FFTW_WISDOM", WisdomPath("fftw_test.wisdom").c_str(), 1);
  hlx_fftw_reset_wisdom_for_testing();
}

// hlx installs FFTW's process-wide loop callback; an application's own
// threaded plans (made outside hlx, on threads hlx does not run) must still
// spread over threads, not run inline on the caller: the caller's CPU time
// for a two-thread plan is well under that of the one-thread plan.
// Another thread plans through hlx meanwhile (FFTW's planner is shared).
TEST(Fftw, ApplicationThreadedPlansStillUseThreads) {
  hlx_fftw_plan_t* p = nullptr;
  int64_t len[] = {4096}, dims[] = {16, 4096};
  hlx_fftw_options_t o = {true, 1, nullptr};
  ASSERT_EQ(hlx_fftw_plan_obtain(HLX_FFT_FFT, HLX_DTYPE_C64, 2, dims, 1, len,
                                 &o, &p),
            nullptr);
  ASSERT_EQ(fftwf_init_threads(), 1);
  // hlx's planning leaves the application's thread count as it was.
  fftwf_plan_with_nthreads(2);
  int64_t odd[] = {4099};
  hlx_fftw_plan_t* q = nullptr;
  ASSERT_EQ(hlx_fftw_plan_obtain(HLX_FFT_FFT, HLX_DTYPE_C64, 1, odd, 1, odd,
                                 &o, &q),
            nullptr);
  EXPECT_EQ(hlx_fftw_plan_threads(q), 1);
  EXPECT_EQ(fftwf_planner_nthreads(), 2);
  hlx_fftw_plan_release(q);
  const int n = 16384, howmany = 64;
  fftwf_complex* x = fftwf_alloc_complex((size_t)n * howmany);
  fftwf_complex* y = fftwf_alloc_complex((size_t)n * howmany);
  std::atomic<bool> stop{false};
  std::thread planner([&] {
    for (int64_t k = 0; !stop; k++) {
      int64_t l[] = {64 + (k % 512)}, d[] = {2, l[0]};
      hlx_fftw_plan_t* q = nullptr;
      hlx_status_t s = hlx_fftw_plan_obtain(HLX_FFT_FFT, HLX_DTYPE_C64, 2, d,
                                            1, l, &o, &q);
      hlx_status_free(s);
      hlx_fftw_plan_release(q);
    }
  });
  fftwf_plan_with_nthreads(1);
  fftwf_plan one = fftwf_plan_many_dft(1, &n, howmany, x, nullptr, 1, n, y,
                                       nullptr, 1, n, FFTW_FORWARD,
                                       FFTW_ESTIMATE);
  stop = true;
  planner.join();
  // (The thread count is FFTW's global: set it with no hlx planning.)
  fftwf_plan_with_nthreads(2);
  fftwf_plan two = fftwf_plan_many_dft(1, &n, howmany, x, nullptr, 1, n, y,
                                       nullptr, 1, n, FFTW_FORWARD,
                                       FFTW_ESTIMATE);
  ASSERT_NE(one, nullptr);
  ASSERT_NE(two, nullptr);
  for (size_t i = 0; i < (size_t)n * howmany; i++) {
    x[i][0] = (float)(i % 7);
    x[i][1] = (float)(i % 5);
  }
  double t1 = ThreadCpuSeconds(one, 5), t2 = ThreadCpuSeconds(two, 5);
  EXPECT_LT(t2, 0.8 * t1) << "caller CPU: 1 thread " << t1 << " s, 2 threads "
                          << t2 << " s";
  fftwf_plan_with_nthreads(1);
  fftwf_destroy_plan(one);
  fftwf_destroy_plan(two);
  fftwf_free(x);
  fftwf_free(y);
  hlx_fftw_plan_release(p);
}

// Shapes FFTW is not given (empty transforms, wrong element types) are
// UNIMPLEMENTED, so the caller falls back to the reference kernel.
TEST(Fftw, EmptyAndUnsupportedShapesFallBack) {
  hlx_fftw_plan_t* p = nullptr;
  int64_t dims[] = {0, 8}, len[] = {8};
  hlx_status_t s = hlx_fftw_plan_obtain(HLX_FFT_FFT, HLX_DTYPE_C64, 2, dims,
                                        1, len, nullptr, &p);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(hlx_status_code(s), HLX_STATUS_UNIMPLEMENTED);
  hlx_status_free(s);
  int64_t dims2[] = {8};
  s = hlx_fftw_plan_obtain(HLX_FFT_FFT, HLX_DTYPE_F32, 1, dims2, 1, len,
                           nullptr, &p);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(hlx_status_code(s), HLX_STATUS_UNIMPLEMENTED);
  hlx_status_free(s);
  // A batch whose product overflows int64 (UBSan aborts on the multiply).
  int64_t huge[] = {int64_t{1} << 40, int64_t{1} << 40, 8};
  s = hlx_fftw_plan_obtain(HLX_FFT_FFT, HLX_DTYPE_C64, 3, huge, 1, len,
                           nullptr, &p);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(hlx_status_code(s), HLX_STATUS_UNIMPLEMENTED);
  hlx_status_free(s);
}

}  // namespace
