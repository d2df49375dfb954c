// fft through hlx (public API on a parsed program: parse and compile once,
// then one run per iteration into a result buffer made once,
// results_provided; BM_HlxFresh takes a new result buffer per run) vs FFTW
// called directly with the same plan flags (FFTW_ESTIMATE | FFTW_UNALIGNED,
// new-array execute, one thread): complex f32 1-D 1024 / 65536 / 2^20 and
// 2-D 512x512. Rates are transforms/s; RESULTS.md has the ratios.
#include <benchmark/benchmark.h>
#include <fftw3.h>

#include <complex>
#include <random>
#include <string>
#include <vector>

#include "api/hlx.h"

namespace {

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

void BM_FftwDirect(benchmark::State& st) {
  std::vector<int> n = Dims(st);
  size_t total = 1;
  for (int x : n) total *= (size_t)x;
  auto in = Random(total);
  std::vector<std::complex<float>> out(total);
  fftwf_plan p = fftwf_plan_dft((int)n.size(), n.data(),
                                reinterpret_cast<fftwf_complex*>(in.data()),
                                reinterpret_cast<fftwf_complex*>(out.data()),
                                FFTW_FORWARD, FFTW_ESTIMATE | FFTW_UNALIGNED);
  for (auto _ : st) {
    fftwf_execute_dft(p, reinterpret_cast<fftwf_complex*>(in.data()),
                      reinterpret_cast<fftwf_complex*>(out.data()));
    benchmark::DoNotOptimize(out.data());
  }
  fftwf_destroy_plan(p);
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
  o.num_threads = 1;
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

void Sizes(benchmark::internal::Benchmark* b) {
  b->Args({1024, 0})->Args({65536, 0})->Args({1 << 20, 0})->Args({512, 512});
  b->Unit(benchmark::kMicrosecond);
}

BENCHMARK(BM_FftwDirect)->Apply(Sizes);
BENCHMARK(BM_Hlx)->Apply(Sizes);
BENCHMARK(BM_HlxFresh)->Apply(Sizes);

}  // namespace
