// Gather and scatter-add of 4M random f32 elements (a [16M, 1] table, int32
// indices), the issue-5 yardstick "a plain C loop on huge pages": the plain
// loops and hlx_gather / hlx_scatter (the executor's entry points: ISA
// dispatch and thread split) on 1 and 2 threads of one hlx pool each, in
// wall time (UseRealTime), so thread scaling shows directly. Also each ISA
// variant alone (1 thread) and the embedding lookup (64K rows of 256 f32).
// Peers: benchmarks/peers.py --gather. Results: benchmarks/RESULTS.md.
//
//   bazel build //benchmarks:gather_scatter_bench
//   bazel-bin/benchmarks/gather_scatter_bench --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true   (one line)
//
// Rows: <op>/<who>/threads:<T>. The 2-thread plain loops run on the same
// pool: the gather splits the lookups in halves; the scatter-add splits
// the table's rows, each thread skipping (with a branch) the updates outside
// its half, which is what a plain loop needs to stay race-free without
// atomics. All buffers are 2 MiB-aligned with MADV_HUGEPAGE.
#include <benchmark/benchmark.h>
#include <stdint.h>
#include <string.h>

#include <random>
#include <string>

#include "benchmarks/bench_pool.h"
#include "benchmarks/kernels/huge_pages.h"
#include "kernels/dispatch.h"
#include "scheduler/pool.h"

namespace {

constexpr int64_t kTable = (int64_t)16 << 20;  // 16M f32 = 64 MiB
constexpr int64_t kN = (int64_t)4 << 20;       // 4M random lookups

using hlx_bench::HugeAlloc;

struct Data {
  float* table = HugeAlloc<float>(kTable);
  float* out = HugeAlloc<float>(kN);
  float* upd = HugeAlloc<float>(kN);
  int32_t* idx = HugeAlloc<int32_t>(kN);
  Data() {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(0.5f, 2.0f);
    for (int64_t i = 0; i < kTable; i++) table[i] = u(rng);
    for (int64_t i = 0; i < kN; i++) {
      idx[i] = (int32_t)(rng() % (uint32_t)kTable);
      upd[i] = u(rng);
    }
  }
};
Data& D() {
  static Data* d = new Data;
  return *d;
}

const hlx_parallel_t* Par(int threads) {
  hlx_pool_t* p = hlx_bench::Pool(threads);
  return p ? hlx_pool_parallel(p) : nullptr;
}

// ---- plain C loops, pieces [begin, end) of `parts` ----

struct Plain {
  int parts;
};
void PlainGather(void* arg, size_t begin, size_t end) {
  const int parts = static_cast<Plain*>(arg)->parts;
  const float* t = D().table;
  const int32_t* idx = D().idx;
  float* y = D().out;
  for (size_t k = begin; k < end; k++)
    for (int64_t i = kN * (int64_t)k / parts; i < kN * ((int64_t)k + 1) / parts; i++)
      y[i] = t[idx[i]];
}
void PlainScatterAdd(void* arg, size_t begin, size_t end) {
  const int parts = static_cast<Plain*>(arg)->parts;
  float* t = D().table;
  const int32_t* idx = D().idx;
  const float* u = D().upd;
  for (size_t k = begin; k < end; k++) {
    if (parts == 1) {
      for (int64_t i = 0; i < kN; i++) t[idx[i]] += u[i];
      continue;
    }
    const int64_t lo = kTable * (int64_t)k / parts;
    const int64_t hi = kTable * ((int64_t)k + 1) / parts;
    for (int64_t i = 0; i < kN; i++)
      if (idx[i] >= lo && idx[i] < hi) t[idx[i]] += u[i];
  }
}

void SetItems(benchmark::State& st) {
  st.SetItemsProcessed((int64_t)st.iterations() * kN);
}

void RunPlain(benchmark::State& st, hlx_parallel_fn loop) {
  int threads = (int)st.range(0);
  const hlx_parallel_t* par = Par(threads);
  Plain p{threads};
  for (auto _ : st) {
    hlx_parallel_for(par, (size_t)threads, 1, loop, &p);
    benchmark::ClobberMemory();
  }
  SetItems(st);
}
void BM_PlainGather(benchmark::State& st) { RunPlain(st, PlainGather); }
void BM_PlainScatterAdd(benchmark::State& st) { RunPlain(st, PlainScatterAdd); }

// ---- hlx_gather / hlx_scatter on the pool ----

void Params(hlx_gather_params_t* g, hlx_scatter_params_t* sc) {
  memset(g, 0, sizeof *g);
  memset(sc, 0, sizeof *sc);
  g->operand_rank = sc->input_rank = 2;
  g->operand_dims[0] = sc->input_dims[0] = kTable;
  g->operand_dims[1] = sc->input_dims[1] = 1;
  g->indices_rank = sc->indices_rank = 1;
  g->indices_dims[0] = sc->indices_dims[0] = kN;
  g->index_dtype = sc->index_dtype = HLX_DTYPE_S32;
  g->index_vector_dim = sc->index_vector_dim = 1;
  g->num_offset_dims = sc->num_update_window_dims = 1;
  g->offset_dims[0] = sc->update_window_dims[0] = 1;
  g->num_collapsed = sc->num_inserted = 1;
  g->num_start_index_map = sc->num_scatter_dims = 1;
  g->slice_sizes[0] = g->slice_sizes[1] = 1;
  sc->update_rank = 2;
  sc->update_dims[0] = kN;
  sc->update_dims[1] = 1;
}

void BM_HlxGather(benchmark::State& st) {
  const hlx_parallel_t* par = Par((int)st.range(0));
  hlx_gather_params_t g;
  hlx_scatter_params_t sc;
  Params(&g, &sc);
  for (auto _ : st) {
    hlx_gather(&g, 4, D().table, D().idx, D().out, par);
    benchmark::ClobberMemory();
  }
  SetItems(st);
}
void BM_HlxScatterAdd(benchmark::State& st) {
  const hlx_parallel_t* par = Par((int)st.range(0));
  hlx_gather_params_t g;
  hlx_scatter_params_t sc;
  Params(&g, &sc);
  hlx_scatter_combiner_t add = {false, HLX_REDUCE_ADD};
  for (auto _ : st) {
    if (!hlx_scatter(&sc, add, HLX_DTYPE_F32, D().idx, D().upd, D().table, par))
      st.SkipWithError("hlx_scatter declined");
    benchmark::ClobberMemory();
  }
  SetItems(st);
}

// ---- one ISA variant alone, one thread ----

void RunGatherRows(benchmark::State& st, hlx_gather_rows_fn fn) {
  for (auto _ : st) {
    fn(D().table, kTable, 4, 4, D().idx, false, kN, D().out);
    benchmark::ClobberMemory();
  }
  SetItems(st);
}
// hi < kTable: one thread's share of a split (rows [0, hi)), on one
// thread: the work a 2-thread split leaves each thread, without the noise
// of a second core.
void RunScatterAddRows(benchmark::State& st, hlx_scatter_add_rows_fn fn,
                       int64_t hi) {
  for (auto _ : st) {
    fn(D().table, kTable, 0, hi, 1, 1, D().idx, false, kN, D().upd);
    benchmark::ClobberMemory();
  }
  SetItems(st);
}

// Embedding lookup: 64K random rows of 256 f32 from a 16K-row table (the
// plain loop: one memcpy per row). Bytes: read + written. The 64 MiB result
// has its own buffer (D().upd holds only kN = 4M floats, and the scatter-add
// rows read it).
void RunEmbedding(benchmark::State& st, hlx_gather_rows_fn fn) {
  constexpr int64_t rows = 16384, len = 256, n = 65536;
  static int32_t* ix = [] {
    int32_t* r = HugeAlloc<int32_t>(n);
    for (int64_t i = 0; i < n; i++) r[i] = D().idx[i] % rows;
    return r;
  }();
  static float* y = HugeAlloc<float>(n * len);
  for (auto _ : st) {
    if (fn == nullptr) {
      for (int64_t i = 0; i < n; i++)
        memcpy(y + i * len, D().table + ix[i] * len, len * 4);
    } else {
      fn(D().table, rows, len * 4, len * 4, ix, false, n, y);
    }
    benchmark::ClobberMemory();
  }
  st.SetBytesProcessed((int64_t)st.iterations() * n * len * 8);
}

void RegisterAll() {
  for (int t : {1, 2}) {
    benchmark::RegisterBenchmark("gather/plain_c_loop", BM_PlainGather)
        ->Arg(t)->ArgName("threads")->UseRealTime();
    benchmark::RegisterBenchmark("gather/hlx_gather", BM_HlxGather)
        ->Arg(t)->ArgName("threads")->UseRealTime();
  }
  for (int t : {1, 2}) {
    benchmark::RegisterBenchmark("scatter_add/plain_c_loop", BM_PlainScatterAdd)
        ->Arg(t)->ArgName("threads")->UseRealTime();
    benchmark::RegisterBenchmark("scatter_add/hlx_scatter", BM_HlxScatterAdd)
        ->Arg(t)->ArgName("threads")->UseRealTime();
  }
  benchmark::RegisterBenchmark("embedding/memcpy_loop_64Kx256",
                               [](benchmark::State& st) { RunEmbedding(st, nullptr); })
      ->UseRealTime();
  for (hlx_isa_t isa : {HLX_ISA_AVX2, HLX_ISA_AVX512}) {
    std::string sfx = std::string("__") + hlx_isa_name(isa);
    if (hlx_gather_rows_fn g = hlx_gather_rows_kernel(isa)) {
      benchmark::RegisterBenchmark(("gather/hlx_gather_rows" + sfx).c_str(),
                                   [g](benchmark::State& st) { RunGatherRows(st, g); })
          ->UseRealTime();
      benchmark::RegisterBenchmark(("embedding/hlx_gather_rows" + sfx + "_64Kx256").c_str(),
                                   [g](benchmark::State& st) { RunEmbedding(st, g); })
          ->UseRealTime();
    } else {
      fprintf(stderr, "skipped: gather/scatter %s variants (CPU lacks it)\n",
              hlx_isa_name(isa));
    }
    if (hlx_scatter_add_rows_fn s = hlx_scatter_add_rows_kernel(isa)) {
      benchmark::RegisterBenchmark(("scatter_add/hlx_f32_scatter_add_rows" + sfx).c_str(),
                                   [s](benchmark::State& st) { RunScatterAddRows(st, s, kTable); })
          ->UseRealTime();
      benchmark::RegisterBenchmark(("scatter_add/hlx_f32_scatter_add_rows" + sfx + "/half_window").c_str(),
                                   [s](benchmark::State& st) { RunScatterAddRows(st, s, kTable / 2); })
          ->UseRealTime();
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  (void)D();  // allocate and fill the buffers outside any timed loop
  RegisterAll();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
