// The fused attention kernel (kernels/libs/attention_f32.c) on one chess
// layer (searchless_chess_9m: 264 problems = 33 batch x 8 heads, Lq = Lk =
// 79, D = Dv = 32, Q/K/V/O [33, 79, 8, 32] with the heads between the
// rows, scale 1/sqrt(32), the -inf floor) on 1 and 2 hlx pool threads,
// against the limits measured in the same run: the f32 FMA peak and the
// two products alone as whole-problem libxsmm GEMMs (S = Q K^T with K
// already transposed, O = S V; no softmax). Rates are GFLOP/s of the
// products (2 * 264 * 79 * 79 * 32 * 2 per layer), times per layer;
// RESULTS.md has the ratios.
#include <benchmark/benchmark.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "benchmarks/bench_pool.h"
#include "benchmarks/fma_peak.h"

extern "C" {
#include "kernels/attention.h"
#include "kernels/cpu_features.h"
#include "kernels/dispatch.h"
#include "kernels/libs/attention_f32.h"
#include "kernels/libs/libxsmm.h"
}

namespace {

constexpr int64_t kB1 = 33, kHeads = 8, kL = 79, kD = 32;
constexpr int64_t kBatch = kB1 * kHeads, kElems = kB1 * kL * kHeads * kD;
constexpr double kFlops = 2.0 * 2.0 * kBatch * kL * kL * kD;

std::vector<float> Random(uint32_t seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> v(kElems);
  for (auto& x : v) x = d(g);
  return v;
}

struct Layer {
  std::vector<float> q = Random(1), k = Random(2), v = Random(3),
                     o = std::vector<float>(kElems);
  std::vector<int64_t> off;
  hlx_attention_params_t p = {};
  Layer() {
    for (int64_t b1 = 0; b1 < kB1; b1++)
      for (int64_t h = 0; h < kHeads; h++)
        off.push_back(b1 * kL * kHeads * kD + h * kD);
    p.batch = kBatch;
    p.lq = p.lk = kL;
    p.d = p.dv = kD;
    p.q_si = p.k_sj = p.v_sj = p.o_si = kHeads * kD;
    p.q_sd = p.k_sd = p.v_se = p.o_se = 1;
    p.q_off = p.k_off = p.v_off = p.o_off = off.data();
    p.scale_kind = HLX_ATTENTION_SCALE_MULTIPLY;
    p.scale = 1 / std::sqrt((float)kD);
    p.max_init = -std::numeric_limits<float>::infinity();
    p.has_floor = true;
    p.max_floor = -std::numeric_limits<float>::infinity();
    p.sum_init = 0;
  }
};

void Report(benchmark::State& st) {
  st.counters["GFLOPs"] =
      benchmark::Counter(kFlops * st.iterations() / 1e9,
                         benchmark::Counter::kIsRate);
}

// Args: threads, path (0: the register path the lowering runs on AVX-512,
// 1: the libxsmm blocks).
void BM_Attention(benchmark::State& st) {
  int threads = static_cast<int>(st.range(0));
  hlx_pool_t* pool = hlx_bench::Pool(threads);
  if (!pool) {
    st.SkipWithError("no pool");
    return;
  }
  Layer l;
  hlx_attention_f32_t a;
  hlx_attention_f32_init(&a, &l.p);
  hlx_dtype_t ot;
  hlx_attention_f32_ops_t ops = {
      hlx_unary_kernel(HLX_UNARY_EXP, HLX_DTYPE_F32, &ot),
      hlx_transpose_kernel(sizeof(float)), (int)hlx_cpu_max_isa(),
      st.range(1) == 1};
  for (auto _ : st) {
    if (!hlx_attention_f32_run(&a, l.q.data(), l.k.data(), l.v.data(),
                               l.o.data(), &ops, hlx_pool_parallel(pool))) {
      st.SkipWithError("attention run failed");
      return;
    }
    benchmark::ClobberMemory();
  }
  Report(st);
}
BENCHMARK(BM_Attention)
    ->Args({1, 0})
    ->Args({2, 0})
    ->Args({1, 1})
    ->Args({2, 1})
    ->UseRealTime();

// The products alone, one thread: per problem S[79, 80] = Q Kt and
// O = S V with libxsmm on K^T packed once before the loop.
void BM_ProductsOnly(benchmark::State& st) {
  Layer l;
  const int64_t ld = 80, ldx = kHeads * kD;
  std::vector<float> kt(kBatch * kD * ld, 0.0f), s(kL * ld, 0.0f);
  for (int64_t b = 0; b < kBatch; b++)
    for (int64_t j = 0; j < kL; j++)
      for (int64_t d = 0; d < kD; d++)
        kt[(b * kD + d) * ld + j] = l.k[l.off[b] + j * ldx + d];
  hlx_xsmm_gemm_t qk, pv;
  if (!hlx_xsmm_gemm_init(&qk, HLX_DTYPE_F32, kL, kL, kD, ldx, ld, ld) ||
      !hlx_xsmm_gemm_init(&pv, HLX_DTYPE_F32, kL, kD, kL, ld, ldx, ldx)) {
    st.SkipWithError("libxsmm declined");
    return;
  }
  for (auto _ : st) {
    for (int64_t b = 0; b < kBatch; b++) {
      hlx_xsmm_gemm_run(&qk, 1, l.q.data() + l.off[b], 0,
                        kt.data() + b * kD * ld, 0, s.data(), 0);
      hlx_xsmm_gemm_run(&pv, 1, s.data(), 0, l.v.data() + l.off[b], 0,
                        l.o.data() + l.off[b], 0);
    }
    benchmark::ClobberMemory();
  }
  Report(st);
}
BENCHMARK(BM_ProductsOnly)->UseRealTime();

BENCHMARK(hlx_bench::BM_FmaPeak)->Arg(1)->Arg(2)->UseRealTime();

}  // namespace
