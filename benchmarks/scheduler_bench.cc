// Scheduler overhead: empty tasks through the executor, per task, on 1 and
// 2 threads, for a one-task plan (the fixed cost of a run), a chain (runs
// sequentially on the caller by design) and a wide DAG (root -> N
// independent tasks -> join), plus the same wide DAG with tasks doing ~2 us
// of work to show the 1 -> 2 thread speed-up.
// Results and the command: benchmarks/RESULTS.md.
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "benchmarks/bench_pool.h"
#include "scheduler/plan.h"
#include "scheduler/pool.h"

namespace {

hlx_status_t Empty(const void*, void* const*, void* const*, hlx_run_ctx_t*) {
  return nullptr;
}

hlx_status_t Spin(const void* args, void* const*, void* const* out,
                  hlx_run_ctx_t*) {
  // A fixed amount of arithmetic (about 2 us on a 3 GHz core).
  uint64_t x = reinterpret_cast<uintptr_t>(args) | 1;
  for (int i = 0; i < 2000; i++) x = x * 6364136223846793005ull + 1442695040888963407ull;
  *static_cast<uint64_t*>(out[0]) = x;
  return nullptr;
}

hlx_plan_t* Chain(int n) {
  hlx_plan_t* p = hlx_plan_create("chain");
  int32_t prev = hlx_plan_add_slot(p, 8);
  hlx_plan_add_task(p, "t", Empty, nullptr, 0, nullptr, 1, &prev);
  for (int i = 1; i < n; i++) {
    int32_t s = hlx_plan_add_slot(p, 8);
    hlx_plan_add_task(p, "t", Empty, nullptr, 1, &prev, 1, &s);
    prev = s;
  }
  hlx_status_free(hlx_plan_finalize(p, nullptr));  // a fresh plan: cannot fail
  return p;
}

hlx_plan_t* Wide(int n, hlx_task_fn fn) {
  hlx_plan_t* p = hlx_plan_create("wide");
  int32_t root = hlx_plan_add_slot(p, 8);
  hlx_plan_add_task(p, "root", Empty, nullptr, 0, nullptr, 1, &root);
  std::vector<int32_t> mids;
  for (int i = 0; i < n - 2; i++) {
    int32_t s = hlx_plan_add_slot(p, 8);
    hlx_plan_add_task(p, "mid", fn, reinterpret_cast<void*>(uintptr_t(i)), 1,
                      &root, 1, &s);
    mids.push_back(s);
  }
  int32_t join = hlx_plan_add_slot(p, 8);
  hlx_plan_add_task(p, "join", Empty, nullptr,
                    static_cast<int32_t>(mids.size()), mids.data(), 1, &join);
  hlx_status_free(hlx_plan_finalize(p, nullptr));  // a fresh plan: cannot fail
  return p;
}

using hlx_bench::Pool;

void Run(benchmark::State& state, hlx_plan_t* p) {
  int threads = static_cast<int>(state.range(0));
  hlx_run_ctx_t ctx;
  std::memset(&ctx, 0, sizeof ctx);
  ctx.pool = Pool(threads);
  for (auto _ : state) {
    hlx_status_t st = hlx_plan_execute(p, nullptr, nullptr, &ctx);
    if (st) {
      state.SkipWithError(hlx_status_message(st));
      hlx_status_free(st);
      break;
    }
  }
  // Tasks per second; ns per task = 1e9 / this (= Time / num_tasks).
  state.counters["tasks_per_s"] =
      benchmark::Counter(static_cast<double>(p->num_tasks),
                         benchmark::Counter::kIsIterationInvariantRate);
  state.counters["sequential"] = hlx_plan_is_sequential(p) ? 1 : 0;
  hlx_plan_destroy(p);
}

void BM_EmptyChain(benchmark::State& state) { Run(state, Chain(1000)); }
// One empty task: the executor's fixed cost per run (no API around it).
void BM_OneTask(benchmark::State& state) { Run(state, Chain(1)); }
void BM_EmptyWide(benchmark::State& state) { Run(state, Wide(1000, Empty)); }
void BM_WorkWide(benchmark::State& state) { Run(state, Wide(1000, Spin)); }

BENCHMARK(BM_EmptyChain)->Arg(1)->Arg(2)->UseRealTime();
BENCHMARK(BM_OneTask)->Arg(1)->Arg(2)->UseRealTime();
BENCHMARK(BM_EmptyWide)->Arg(1)->Arg(2)->UseRealTime();
BENCHMARK(BM_WorkWide)->Arg(1)->Arg(2)->UseRealTime();

}  // namespace
