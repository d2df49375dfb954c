// fft through hlx (public API on a parsed program: parse and compile once,
// then one run per iteration into a result buffer made once,
// results_provided; BM_HlxFresh takes a new result buffer per run) vs FFTW
// called directly with the same plan flags (FFTW_MEASURE | FFTW_UNALIGNED,
// new-array execute) and threads as hlx uses them: complex f32 1-D 1024 /
// 65536 / 2^20 and 2-D 512x512, at 1 and 2 threads (args: n, m or 0,
// threads). hlx runs a 2-thread executable on a private pool of 2 and plans
// transforms of >= HLX_FFTW_THREAD_MIN elements for 2 threads, running
// FFTW's loops on that pool; FFTW direct then uses its own threads
// (fftwf_plan_with_nthreads(2)) for the same sizes and 1 thread below.
// BM_Crossover* (1-D 2^10..2^20 and 512x512, hlx with
// HLX_FFTW_THREAD_MIN=0 at 1 and 2 threads) measure where threads start
// to pay. Rates are transforms/s; RESULTS.md has the ratios.
//
// hlx installs its own FFTW thread callback when it makes its first plan,
// after which FFTW direct could not use FFTW's threads: every BM_FftwDirect
// runs first (registered first) and refuses to run after hlx has planned.
// Run with HLX_FFTW_WISDOM= (empty) so hlx measures like FFTW direct does.
#include <benchmark/benchmark.h>
#include <fftw3.h>

#include <algorithm>
#include <complex>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "api/hlx.h"

namespace {

bool g_hlx_planned = false;

std::vector<std::complex<float>> Random(size_t n) {
  std::mt19937 g(42);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<std::complex<float>> v(n);
  for (auto& x : v) x = {d(g), d(g)};
  return v;
}

// dims: the transform's lengths (1-D: {n}, 2-D: {a, b}).
std::vector<int> Dims(const benchmark::State& st) {
  std::vector<int> d = {static_cast<int>(st.range(0))};
  if (st.range(1) > 0) d.push_back(static_cast<int>(st.range(1)));
  return d;
}

// hlx's default HLX_FFTW_THREAD_MIN (kernels/libs/fftw.c) unless set.
long ThreadMin() {
  const char* e = std::getenv("HLX_FFTW_THREAD_MIN");
  return e && *e ? std::atol(e) : 1l << 15;
}

void BM_FftwDirect(benchmark::State& st) {
  if (g_hlx_planned) {
    st.SkipWithError("runs before hlx installs its FFTW thread callback");
    return;
  }
  static bool threads_ok = fftwf_init_threads() != 0;
  std::vector<int> n = Dims(st);
  size_t total = 1;
  for (int x : n) total *= (size_t)x;
  int threads = st.range(2) > 1 && (long)total >= ThreadMin() && threads_ok
                    ? (int)st.range(2)
                    : 1;
  auto in = Random(total);
  std::vector<std::complex<float>> out(total);
  auto* fi = reinterpret_cast<fftwf_complex*>(in.data());
  auto* fo = reinterpret_cast<fftwf_complex*>(out.data());
  fftwf_plan_with_nthreads(threads);
  fftwf_plan p = fftwf_plan_dft((int)n.size(), n.data(), fi, fo, FFTW_FORWARD,
                                FFTW_MEASURE | FFTW_UNALIGNED);
  auto fresh = Random(total);  // MEASURE overwrote the arrays
  std::copy(fresh.begin(), fresh.end(), in.begin());
  for (auto _ : st) {
    fftwf_execute_dft(p, fi, fo);
    benchmark::DoNotOptimize(out.data());
  }
  fftwf_destroy_plan(p);
  st.counters["threads"] = threads;
  st.counters["transforms/s"] =
      benchmark::Counter((double)st.iterations(), benchmark::Counter::kIsRate);
}

void RunHlx(benchmark::State& st, bool provided) {
  std::vector<int> n = Dims(st);
  std::string shape, len;
  size_t total = 1;
  for (size_t i = 0; i < n.size(); i++) {
    shape += std::to_string(n[i]) + "x";
    len += (i ? ", " : "") + std::to_string(n[i]);
    total *= (size_t)n[i];
  }
  std::string t = "tensor<" + shape + "complex<f32>>";
  std::string text = "func.func @main(%x: " + t + ") -> " + t +
                     " {\n  %0 = stablehlo.fft %x, type = FFT, length = [" +
                     len + "] : (" + t + ") -> " + t + "\n  return %0 : " + t +
                     "\n}\n";
  hlx_program_t* prog = nullptr;
  hlx_executable_t* exe = nullptr;
  hlx_compile_options_t o;
  hlx_compile_options_init(&o);
  o.num_threads = (int32_t)st.range(2);
  g_hlx_planned = true;
  hlx_status_t s = hlx_program_parse(text.data(), text.size(), "fft", 1, &prog);
  if (!s) s = hlx_executable_create(prog, &o, &exe);
  if (s) {
    st.SkipWithError(hlx_status_get_message(s));
    hlx_status_release(s);
    hlx_program_destroy(prog);
    return;
  }
  auto data = Random(total);
  hlx_tensor_desc_t d;
  hlx_executable_param_desc(exe, 0, &d);
  hlx_buffer_t* in = nullptr;
  hlx_buffer_create(&d, data.data(), &in);
  hlx_run_options_t ro;
  hlx_run_options_init(&ro);
  ro.results_provided = provided;
  hlx_buffer_t* out = nullptr;
  if (provided) hlx_buffer_create(&d, nullptr, &out);
  for (auto _ : st) {
    hlx_status_t r = hlx_executable_run_with_options(exe, &in, 1, &out, 1, &ro);
    if (r) {
      st.SkipWithError(hlx_status_get_message(r));
      hlx_status_release(r);
      break;
    }
    if (!provided) hlx_buffer_destroy(out);
  }
  st.counters["transforms/s"] =
      benchmark::Counter((double)st.iterations(), benchmark::Counter::kIsRate);
  if (provided) hlx_buffer_destroy(out);
  hlx_buffer_destroy(in);
  hlx_executable_destroy(exe);
  hlx_program_destroy(prog);
}

void BM_Hlx(benchmark::State& st) { RunHlx(st, true); }
void BM_HlxFresh(benchmark::State& st) { RunHlx(st, false); }

// hlx with every transform planned for the executable's threads.
void BM_Crossover(benchmark::State& st) {
  setenv("HLX_FFTW_THREAD_MIN", "0", 1);
  RunHlx(st, true);
  unsetenv("HLX_FFTW_THREAD_MIN");
}

void Sizes(benchmark::internal::Benchmark* b) {
  for (int threads : {1, 2})
    b->Args({1024, 0, threads})
        ->Args({65536, 0, threads})
        ->Args({1 << 20, 0, threads})
        ->Args({512, 512, threads});
  b->Unit(benchmark::kMicrosecond)->UseRealTime();
}

void CrossoverSizes(benchmark::internal::Benchmark* b) {
  for (int threads : {1, 2}) {
    for (int lg : {10, 12, 14, 15, 16, 17, 18, 20})
      b->Args({1 << lg, 0, threads});
    b->Args({512, 512, threads});
  }
  b->Unit(benchmark::kMicrosecond)->UseRealTime();
}

BENCHMARK(BM_FftwDirect)->Apply(Sizes);
BENCHMARK(BM_Hlx)->Apply(Sizes);
BENCHMARK(BM_HlxFresh)->Apply(Sizes);
BENCHMARK(BM_Crossover)->Apply(CrossoverSizes);

}  // namespace
