// cumsum (the reduce_window scan kernel) and sort / argsort of 1M f32 (the
// radix sort) against the reference merge sort, through the kernels; the
// numpy / PyTorch peers: benchmarks/peers.py --scan-sort. Results:
// benchmarks/RESULTS.md ("cumsum and sort (issue 5)").
//
//   bazel run -c opt //benchmarks:scan_sort_bench -- --benchmark_repetitions=3
//
// Threads: 1 (no pool) or 2 (a std::thread helper running the second half
// of each parallel_for), arg "threads". Buffers are 2 MiB-aligned with
// MADV_HUGEPAGE, as the executor's arena allocates large tensors.
#include <benchmark/benchmark.h>

#include <stdlib.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <thread>

#include "benchmarks/kernels/huge_pages.h"
#include "kernels/dispatch.h" /* hlx_scan */
#include "kernels/scan.h"
#include "kernels/sort.h"
#include "kernels/sort_radix.h"

namespace {

const int64_t kM = 4096, kN1 = 16 << 20, kSortN = 1 << 20;

int TwoThreads(void*) { return 2; }
void TwoFor(void*, size_t n, size_t grain, hlx_parallel_fn fn, void* arg) {
  size_t half = n / 2;
  if (half < grain || half == 0) {
    fn(arg, 0, n);
    return;
  }
  std::thread t([&] { fn(arg, half, n); });
  fn(arg, 0, half);
  t.join();
}
const hlx_parallel_t kTwo = {nullptr, TwoThreads, TwoFor};

const hlx_parallel_t* Pool(int threads) {
  return threads > 1 ? &kTwo : nullptr;
}

// n elements of T on 2 MiB pages, zeroed.
template <typename T>
struct Huge {
  explicit Huge(int64_t n) : p(hlx_bench::HugeAlloc<T>((size_t)n)) {}
  ~Huge() { free(p); }
  Huge(const Huge&) = delete;
  Huge& operator=(const Huge&) = delete;
  T* data() { return p; }
  T& operator[](int64_t i) { return p[i]; }
  T* p;
};

void FillRandom(Huge<float>& v, int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (int64_t i = 0; i < n; i++) v[i] = u(rng);
}

// Args: axis (-1 = 1-D 16M), reverse, threads.
void BM_CumsumF32(benchmark::State& st) {
  int axis = (int)st.range(0);
  bool rev = st.range(1) != 0;
  hlx_scan_t s;
  int64_t n = axis < 0 ? kN1 : kM * kM;
  if (axis < 0) s = {1, kN1, 1, rev};
  else if (axis == 0) s = {1, kM, kM, rev};
  else s = {kM, kM, 1, rev};
  Huge<float> x(n), y(n);
  FillRandom(x, n, 1);
  float zero = 0.0f;
  for (auto _ : st) {
    bool ok = hlx_scan(HLX_REDUCE_ADD, HLX_DTYPE_F32, &s, x.data(), &zero,
                       y.data(), Pool((int)st.range(2)));
    if (!ok) st.SkipWithError("hlx_scan declined");
    benchmark::DoNotOptimize(y.data());
  }
  st.SetItemsProcessed(st.iterations() * n);
  st.SetBytesProcessed(st.iterations() * n * 8);
}
BENCHMARK(BM_CumsumF32)
    ->ArgNames({"axis", "rev", "threads"})
    ->Args({0, 0, 1})->Args({1, 0, 1})->Args({-1, 0, 1})
    ->Args({0, 1, 1})->Args({1, 1, 1})->Args({-1, 1, 1})
    ->Args({0, 0, 2})->Args({1, 0, 2})
    ->Unit(benchmark::kMillisecond)->UseRealTime();

// 1M f32, ascending with JAX's canonicalised TOTALORDER key. Args:
// with_indices (argsort: an i32 iota payload), kernel (0 radix, 1 the
// reference merge sort).
void BM_SortF32(benchmark::State& st) {
  bool idx = st.range(0) != 0, ref = st.range(1) != 0;
  Huge<float> x(kSortN), y(kSortN);
  Huge<int32_t> iota(kSortN), yi(kSortN);
  FillRandom(x, kSortN, 2);
  for (int64_t i = 0; i < kSortN; i++) iota[i] = (int32_t)i;
  hlx_dtype_t dt[2] = {HLX_DTYPE_F32, HLX_DTYPE_S32};
  const void* in[2] = {x.data(), iota.data()};
  void* out[2] = {y.data(), yi.data()};
  int64_t dims[1] = {kSortN};
  hlx_sort_key_t key = {};
  key.order = HLX_SORT_TOTALORDER;
  key.canonicalize = true;
  key.nan_bits = 0x7fc00000u;
  int nops = idx ? 2 : 1;
  for (auto _ : st) {
    hlx_status_t s;
    bool done = true;
    if (ref)
      s = hlx_ref_sort(nops, dt, 1, dims, 0, &key, 1, in, out);
    else
      s = hlx_sort_radix(nops, dt, 1, dims, 0, &key, in, out, nullptr, &done);
    if (s || !done) st.SkipWithError("sort failed or declined");
    benchmark::DoNotOptimize(y.data());
  }
  st.SetItemsProcessed(st.iterations() * kSortN);
}
BENCHMARK(BM_SortF32)
    ->ArgNames({"with_indices", "ref"})
    ->Args({0, 0})->Args({1, 0})->Args({1, 1})
    ->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
