// The machine's f32 FMA peak, measured in the benchmark's own run as the
// limit kernels are compared with: BM_FmaPeak(threads) runs an AVX-512 FMA
// loop on 1 or 2 threads and reports GFLOP/s. Register it in the benchmark
// with BENCHMARK(hlx_bench::BM_FmaPeak)->Arg(1)->Arg(2)->UseRealTime().
#ifndef HLX_BENCHMARKS_FMA_PEAK_H_
#define HLX_BENCHMARKS_FMA_PEAK_H_

#include <benchmark/benchmark.h>
#include <immintrin.h>

#include <cstdint>
#include <thread>
#include <vector>

namespace hlx_bench {

// 12 independent FMA chains in registers: enough to cover FMA latency
// (4 cycles) x 2 FMA pipes with room to spare.
__attribute__((target("avx512f"))) inline float FmaLoop(int64_t iters) {
  const __m512 x = _mm512_set1_ps(0.9999f), y = _mm512_set1_ps(1e-6f);
  __m512 a0 = _mm512_set1_ps(0.0f), a1 = _mm512_set1_ps(0.1f),
         a2 = _mm512_set1_ps(0.2f), a3 = _mm512_set1_ps(0.3f),
         a4 = _mm512_set1_ps(0.4f), a5 = _mm512_set1_ps(0.5f),
         a6 = _mm512_set1_ps(0.6f), a7 = _mm512_set1_ps(0.7f),
         a8 = _mm512_set1_ps(0.8f), a9 = _mm512_set1_ps(0.9f),
         a10 = _mm512_set1_ps(1.0f), a11 = _mm512_set1_ps(1.1f);
  for (int64_t it = 0; it < iters; it++) {
    a0 = _mm512_fmadd_ps(a0, x, y);
    a1 = _mm512_fmadd_ps(a1, x, y);
    a2 = _mm512_fmadd_ps(a2, x, y);
    a3 = _mm512_fmadd_ps(a3, x, y);
    a4 = _mm512_fmadd_ps(a4, x, y);
    a5 = _mm512_fmadd_ps(a5, x, y);
    a6 = _mm512_fmadd_ps(a6, x, y);
    a7 = _mm512_fmadd_ps(a7, x, y);
    a8 = _mm512_fmadd_ps(a8, x, y);
    a9 = _mm512_fmadd_ps(a9, x, y);
    a10 = _mm512_fmadd_ps(a10, x, y);
    a11 = _mm512_fmadd_ps(a11, x, y);
  }
  __m512 s = _mm512_add_ps(
      _mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)),
      _mm512_add_ps(_mm512_add_ps(a4, a5), _mm512_add_ps(a6, a7)));
  s = _mm512_add_ps(s, _mm512_add_ps(_mm512_add_ps(a8, a9),
                                     _mm512_add_ps(a10, a11)));
  return _mm512_reduce_add_ps(s);
}

inline void BM_FmaPeak(benchmark::State& st) {
  int threads = static_cast<int>(st.range(0));
  const int64_t iters = 1 << 20;
  float sink = 0;
  for (auto _ : st) {
    std::vector<std::thread> ts;
    std::vector<float> out(threads);
    for (int t = 0; t < threads; t++)
      ts.emplace_back([&, t] { out[t] = FmaLoop(iters); });
    for (auto& t : ts) t.join();
    sink += out[0];
  }
  benchmark::DoNotOptimize(sink);
  double flops = 2.0 * 16 * 12 * iters * threads;
  st.counters["GFLOPs"] = benchmark::Counter(
      flops * st.iterations() / 1e9, benchmark::Counter::kIsRate);
}

}  // namespace hlx_bench

#endif  // HLX_BENCHMARKS_FMA_PEAK_H_
