// The task-graph executor and the pool: random DAGs against sequential
// order, side-effect order, overlap of independent tasks, error propagation,
// nested plans, concurrent runs of one plan, parallel_for.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "base/parallel.h"
#include "scheduler/plan.h"
#include "scheduler/pool.h"
#include "tests/scheduler/plan_testing.h"

namespace {

using hlx_testing::Finalize;

// Each slot holds {value, magic}; magic proves the producer ran first.
struct Cell {
  int64_t value;
  int64_t magic;
};
constexpr int64_t kMagic = 0x5eed0000;

struct MixArgs {
  int32_t id;
  int32_t out_slot;
  std::atomic<int>* bad;  // inputs seen before they were written
};

struct RandomPlan {
  hlx_plan_t* plan = nullptr;
  std::vector<MixArgs> args;
  std::atomic<int> bad{0};
  ~RandomPlan() { hlx_plan_destroy(plan); }
};

// n tasks, each reading up to 3 earlier values (or the parameter); every
// value is a result. Bodies are installed by MakeDag.
void BuildRandom(RandomPlan* rp, int n, unsigned seed, double locality) {
  std::mt19937 rng(seed);
  rp->plan = hlx_plan_create("random");
  hlx_plan_t* p = rp->plan;
  int32_t param = hlx_plan_add_slot(p, sizeof(Cell));
  p->num_params = 1;
  p->param_slots = static_cast<int32_t*>(
      hlx_arena_alloc_array(&p->arena, 1, sizeof(int32_t)));
  p->param_slots[0] = param;
  std::vector<int32_t> values = {param};
  rp->args.resize(n);
  for (int t = 0; t < n; t++) {
    int k = static_cast<int>(rng() % 4);
    std::vector<int32_t> in;
    for (int i = 0; i < k; i++) {
      size_t lo = 0;
      if (std::uniform_real_distribution<double>(0, 1)(rng) < locality &&
          values.size() > 4)
        lo = values.size() - 4;
      in.push_back(values[lo + rng() % (values.size() - lo)]);
    }
    int32_t out = hlx_plan_add_slot(p, sizeof(Cell));
    rp->args[t] = MixArgs{t, out, &rp->bad};
    values.push_back(out);
    ASSERT_NE(hlx_plan_add_task(p, ("t" + std::to_string(t)).c_str(), nullptr,
                                &rp->args[t], static_cast<int32_t>(in.size()),
                                in.data(), 1, &out),
              nullptr);
  }
  p->num_results = static_cast<int32_t>(values.size()) - 1;
  p->result_slots = static_cast<int32_t*>(hlx_arena_alloc_array(
      &p->arena, static_cast<size_t>(p->num_results) + 1, sizeof(int32_t)));
  for (int32_t i = 0; i < p->num_results; i++)
    p->result_slots[i] = values[static_cast<size_t>(i) + 1];
}

// Task bodies get no input count, so each task's args carry it.
struct CountedArgs {
  MixArgs mix;
  int32_t num_in;
};

hlx_status_t RunCounted(const void* args, void* const* in, void* const* out,
                        hlx_run_ctx_t* ctx) {
  (void)ctx;
  const CountedArgs* a = static_cast<const CountedArgs*>(args);
  // Unsigned arithmetic: the mix is meant to wrap (signed overflow is UB).
  uint64_t acc = (uint64_t)a->mix.id * 1000003u;
  for (int i = 0; i < a->num_in; i++) {
    const Cell* c = static_cast<const Cell*>(in[i]);
    if ((c->magic & ~int64_t{0xffff}) != kMagic) a->mix.bad->fetch_add(1);
    acc = acc * 31u + (uint64_t)c->value;
  }
  Cell* o = static_cast<Cell*>(out[0]);
  o->value = (int64_t)acc;
  o->magic = kMagic | (a->mix.out_slot & 0xffff);
  return nullptr;
}

struct Dag {
  RandomPlan rp;
  std::vector<CountedArgs> cargs;
};

void MakeDag(Dag* d, int n, unsigned seed, double locality = 0.5) {
  BuildRandom(&d->rp, n, seed, locality);
  hlx_plan_t* p = d->rp.plan;
  d->cargs.resize(static_cast<size_t>(p->num_tasks));
  for (int32_t t = 0; t < p->num_tasks; t++) {
    d->cargs[t] = CountedArgs{d->rp.args[t], p->tasks[t].num_in};
    p->tasks[t].fn = RunCounted;
    p->tasks[t].args = &d->cargs[t];
  }
  Finalize(p);
}

std::vector<Cell> Execute(const hlx_plan_t* p, hlx_pool_t* pool,
                          hlx_status_t* st_out = nullptr) {
  Cell param{42, kMagic};
  std::vector<Cell> res(static_cast<size_t>(p->num_results));
  std::vector<void*> outs;
  for (auto& c : res) outs.push_back(&c);
  const void* params[] = {&param};
  hlx_run_ctx_t ctx;
  std::memset(&ctx, 0, sizeof ctx);
  ctx.pool = pool;
  ctx.parallel = hlx_pool_parallel(pool);
  hlx_status_t st = hlx_plan_execute(p, params, outs.data(), &ctx);
  if (st_out)
    *st_out = st;
  else {
    EXPECT_EQ(st, nullptr) << hlx_status_message(st);
    hlx_status_free(st);
  }
  return res;
}

bool SameCells(const std::vector<Cell>& a, const std::vector<Cell>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); i++)
    if (a[i].value != b[i].value || a[i].magic != b[i].magic) return false;
  return true;
}

class PoolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    hlx_pool_options_t o;
    hlx_pool_options_init(&o);
    o.num_threads = 3;  // more than the cores of a small machine: asked
    o.spin_iterations = 100;
    ASSERT_EQ(hlx_pool_create(&o, &pool_), nullptr);
  }
  void TearDown() override { hlx_pool_destroy(pool_); }
  hlx_pool_t* pool_ = nullptr;
};

TEST_F(PoolTest, RandomDagsMatchSequentialOrder) {
  EXPECT_EQ(hlx_pool_num_threads(pool_), 3);
  for (unsigned seed = 1; seed <= 60; seed++) {
    Dag d;
    MakeDag(&d, 5 + static_cast<int>(seed * 7 % 200), seed, seed % 3 * 0.4);
    std::vector<Cell> seq = Execute(d.rp.plan, nullptr);
    for (int rep = 0; rep < 5; rep++) {
      std::vector<Cell> par = Execute(d.rp.plan, pool_);
      ASSERT_TRUE(SameCells(seq, par)) << "seed " << seed;
    }
    EXPECT_EQ(d.rp.bad.load(), 0) << "a task ran before its input, seed "
                                  << seed;
    // The sequential result is the program-order evaluation.
    EXPECT_EQ(seq.back().magic & ~int64_t{0xffff}, kMagic);
  }
}

TEST_F(PoolTest, ConcurrentRunsOfOnePlanFromSeveralThreads) {
  Dag d;
  MakeDag(&d, 300, 99, 0.2);
  ASSERT_FALSE(hlx_plan_is_sequential(d.rp.plan));
  std::vector<Cell> want = Execute(d.rp.plan, nullptr);
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int th = 0; th < 4; th++)
    threads.emplace_back([&] {
      for (int i = 0; i < 200; i++)
        if (!SameCells(want, Execute(d.rp.plan, pool_))) mismatches++;
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(d.rp.bad.load(), 0);
}

// ---- side effects keep program order --------------------------------------

struct LogArgs {
  int id;
  std::mutex* mu;
  std::vector<int>* log;
};

hlx_status_t RunLog(const void* args, void* const*, void* const*,
                    hlx_run_ctx_t*) {
  const LogArgs* a = static_cast<const LogArgs*>(args);
  std::this_thread::yield();
  std::lock_guard<std::mutex> l(*a->mu);
  a->log->push_back(a->id);
  return nullptr;
}

TEST_F(PoolTest, SideEffectTasksKeepProgramOrder) {
  hlx_plan_t* p = hlx_plan_create("effects");
  std::mutex mu;
  std::vector<int> log;
  std::vector<LogArgs> args(40);
  for (int t = 0; t < 40; t++) {
    args[t] = LogArgs{t, &mu, &log};
    int32_t out = hlx_plan_add_slot(p, 8);
    ASSERT_NE(hlx_plan_add_task(p, "effect", RunLog, &args[t], 0, nullptr, 1,
                                &out),
              nullptr);
    if (t % 2 == 0) hlx_plan_last_task_set_flags(p, HLX_TASK_SIDE_EFFECT);
  }
  Finalize(p);
  for (int rep = 0; rep < 20; rep++) {
    log.clear();
    hlx_run_ctx_t ctx;
    std::memset(&ctx, 0, sizeof ctx);
    ctx.pool = pool_;
    ASSERT_EQ(hlx_plan_execute(p, nullptr, nullptr, &ctx), nullptr);
    ASSERT_EQ(log.size(), 40u);
    std::vector<int> effects;
    for (int id : log)
      if (id % 2 == 0) effects.push_back(id);
    for (size_t i = 0; i < effects.size(); i++)
      EXPECT_EQ(effects[i], static_cast<int>(2 * i));
  }
  hlx_plan_destroy(p);
}

// ---- two independent tasks overlap ----------------------------------------

struct OverlapArgs {
  int id;
  std::atomic<int>* started;
  std::chrono::steady_clock::time_point* start;
  std::chrono::steady_clock::time_point* end;
};

hlx_status_t RunOverlap(const void* args, void* const*, void* const*,
                        hlx_run_ctx_t*) {
  const OverlapArgs* a = static_cast<const OverlapArgs*>(args);
  a->start[a->id] = std::chrono::steady_clock::now();
  a->started->fetch_add(1);
  // Wait (bounded) for the other task to start: only possible if both
  // run at once.
  auto limit = a->start[a->id] + std::chrono::seconds(5);
  while (a->started->load() < 2 && std::chrono::steady_clock::now() < limit)
    std::this_thread::yield();
  a->end[a->id] = std::chrono::steady_clock::now();
  return nullptr;
}

hlx_status_t RunNothing(const void*, void* const*, void* const*,
                        hlx_run_ctx_t*) {
  return nullptr;
}

TEST_F(PoolTest, IndependentTasksOverlapInTime) {
  hlx_plan_t* p = hlx_plan_create("overlap");
  std::atomic<int> started{0};
  std::chrono::steady_clock::time_point start[2], end[2];
  OverlapArgs a0{0, &started, start, end}, a1{1, &started, start, end};
  int32_t s0 = hlx_plan_add_slot(p, 8), s1 = hlx_plan_add_slot(p, 8),
          s2 = hlx_plan_add_slot(p, 8);
  ASSERT_NE(hlx_plan_add_task(p, "a", RunOverlap, &a0, 0, nullptr, 1, &s0),
            nullptr);
  ASSERT_NE(hlx_plan_add_task(p, "b", RunOverlap, &a1, 0, nullptr, 1, &s1),
            nullptr);
  int32_t both[] = {s0, s1};
  ASSERT_NE(hlx_plan_add_task(p, "join", RunNothing, nullptr, 2, both, 1, &s2),
            nullptr);
  Finalize(p);
  EXPECT_FALSE(hlx_plan_is_sequential(p));
  hlx_run_ctx_t ctx;
  std::memset(&ctx, 0, sizeof ctx);
  ctx.pool = pool_;
  ASSERT_EQ(hlx_plan_execute(p, nullptr, nullptr, &ctx), nullptr);
  EXPECT_EQ(started.load(), 2);
  // Each started before the other ended.
  EXPECT_LT(start[0], end[1]);
  EXPECT_LT(start[1], end[0]);
  hlx_plan_destroy(p);
}

TEST_F(PoolTest, ChainsAndTinyPlansAreSequential) {
  hlx_plan_t* p = hlx_plan_create("chain");
  int32_t prev = hlx_plan_add_slot(p, 8);
  ASSERT_NE(hlx_plan_add_task(p, "c0", RunNothing, nullptr, 0, nullptr, 1,
                              &prev),
            nullptr);
  for (int i = 1; i < 10; i++) {
    int32_t next = hlx_plan_add_slot(p, 8);
    ASSERT_NE(hlx_plan_add_task(p, "c", RunNothing, nullptr, 1, &prev, 1,
                                &next),
              nullptr);
    prev = next;
  }
  Finalize(p);
  EXPECT_TRUE(hlx_plan_is_sequential(p));
  hlx_plan_destroy(p);
}

// ---- errors -----------------------------------------------------------------

struct FailArgs {
  bool fail;
  std::atomic<int>* ran;
};

hlx_status_t RunMaybeFail(const void* args, void* const*, void* const*,
                          hlx_run_ctx_t*) {
  const FailArgs* a = static_cast<const FailArgs*>(args);
  a->ran->fetch_add(1);
  if (a->fail)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT, "kernel refused");
  return nullptr;
}

TEST_F(PoolTest, FailureCancelsDependentsAndNamesTheOp) {
  // root -> {w0..w9 independent}, failing task F reads root; 20 tasks read F.
  hlx_plan_t* p = hlx_plan_create("errors");
  std::atomic<int> ran{0};
  FailArgs ok{false, &ran}, bad{true, &ran};
  int32_t root = hlx_plan_add_slot(p, 8);
  ASSERT_NE(hlx_plan_add_task(p, "root", RunMaybeFail, &ok, 0, nullptr, 1,
                              &root),
            nullptr);
  for (int i = 0; i < 10; i++) {
    int32_t s = hlx_plan_add_slot(p, 8);
    ASSERT_NE(hlx_plan_add_task(p, "w", RunMaybeFail, &ok, 1, &root, 1, &s),
              nullptr);
  }
  int32_t f = hlx_plan_add_slot(p, 8);
  ASSERT_NE(hlx_plan_add_task(p, "stablehlo.divide at 7:3", RunMaybeFail,
                              &bad, 1, &root, 1, &f),
            nullptr);
  for (int i = 0; i < 20; i++) {
    int32_t s = hlx_plan_add_slot(p, 8);
    ASSERT_NE(hlx_plan_add_task(p, "after", RunMaybeFail, &ok, 1, &f, 1, &s),
              nullptr);
  }
  Finalize(p);
  for (hlx_pool_t* pool : {static_cast<hlx_pool_t*>(nullptr), pool_}) {
    for (int rep = 0; rep < 20; rep++) {
      ran = 0;
      hlx_run_ctx_t ctx;
      std::memset(&ctx, 0, sizeof ctx);
      ctx.pool = pool;
      hlx_status_t st = hlx_plan_execute(p, nullptr, nullptr, &ctx);
      ASSERT_NE(st, nullptr);
      EXPECT_EQ(hlx_status_code(st), HLX_STATUS_INVALID_ARGUMENT);
      EXPECT_NE(std::strstr(hlx_status_message(st), "stablehlo.divide at 7:3"),
                nullptr)
          << hlx_status_message(st);
      EXPECT_NE(std::strstr(hlx_status_message(st), "kernel refused"),
                nullptr);
      hlx_status_free(st);
      // The 20 dependents never run.
      EXPECT_LE(ran.load(), 12);
    }
  }
  hlx_plan_destroy(p);
}

// ---- nested plans run inside a task ----------------------------------------

struct LoopArgs {
  const hlx_plan_t* body;
  int iterations;
};

// body: out = in + 1 (int64)
hlx_status_t RunInc(const void*, void* const* in, void* const* out,
                    hlx_run_ctx_t*) {
  *static_cast<int64_t*>(out[0]) = *static_cast<const int64_t*>(in[0]) + 1;
  return nullptr;
}

hlx_status_t RunLoop(const void* args, void* const* in, void* const* out,
                     hlx_run_ctx_t* ctx) {
  const LoopArgs* a = static_cast<const LoopArgs*>(args);
  int64_t v = *static_cast<const int64_t*>(in[0]);
  for (int i = 0; i < a->iterations; i++) {
    int64_t next;
    const void* params[] = {&v};
    void* results[] = {&next};
    HLX_RETURN_IF_ERROR(hlx_plan_execute(a->body, params, results, ctx));
    v = next;
  }
  *static_cast<int64_t*>(out[0]) = v;
  return nullptr;
}

TEST_F(PoolTest, NestedPlansRunInsideTasksWithoutDeadlock) {
  // body: three independent increments joined (so it is not a chain).
  hlx_plan_t* body = hlx_plan_create("body");
  int32_t bin = hlx_plan_add_slot(body, 8);
  body->num_params = 1;
  body->param_slots = static_cast<int32_t*>(
      hlx_arena_alloc_array(&body->arena, 1, sizeof(int32_t)));
  body->param_slots[0] = bin;
  int32_t b1 = hlx_plan_add_slot(body, 8), b2 = hlx_plan_add_slot(body, 8);
  ASSERT_NE(hlx_plan_add_task(body, "i1", RunInc, nullptr, 1, &bin, 1, &b1),
            nullptr);
  ASSERT_NE(hlx_plan_add_task(body, "i2", RunNothing, nullptr, 1, &bin, 1,
                              &b2),
            nullptr);
  int32_t b3 = hlx_plan_add_slot(body, 8);
  ASSERT_NE(hlx_plan_add_task(body, "i3", RunNothing, nullptr, 1, &bin, 1,
                              &b3),
            nullptr);
  body->num_results = 1;
  body->result_slots = static_cast<int32_t*>(
      hlx_arena_alloc_array(&body->arena, 1, sizeof(int32_t)));
  body->result_slots[0] = b1;
  Finalize(body);

  hlx_plan_t* p = hlx_plan_create("outer");
  int32_t in = hlx_plan_add_slot(p, 8);
  p->num_params = 1;
  p->param_slots = static_cast<int32_t*>(
      hlx_arena_alloc_array(&p->arena, 1, sizeof(int32_t)));
  p->param_slots[0] = in;
  std::vector<LoopArgs> loops(8);
  std::vector<int32_t> outs;
  for (int i = 0; i < 8; i++) {
    loops[i] = LoopArgs{body, 100 + i};
    int32_t s = hlx_plan_add_slot(p, 8);
    outs.push_back(s);
    ASSERT_NE(hlx_plan_add_task(p, "while", RunLoop, &loops[i], 1, &in, 1, &s),
              nullptr);
  }
  p->num_results = 8;
  p->result_slots = static_cast<int32_t*>(
      hlx_arena_alloc_array(&p->arena, 8, sizeof(int32_t)));
  for (int i = 0; i < 8; i++) p->result_slots[i] = outs[i];
  ASSERT_EQ(hlx_plan_adopt(p, body), nullptr);
  Finalize(p);

  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int th = 0; th < 3; th++)
    threads.emplace_back([&] {
      for (int rep = 0; rep < 20; rep++) {
        int64_t x = 5, r[8];
        const void* params[] = {&x};
        void* results[8];
        for (int i = 0; i < 8; i++) results[i] = &r[i];
        hlx_run_ctx_t ctx;
        std::memset(&ctx, 0, sizeof ctx);
        ctx.pool = pool_;
        hlx_status_t st = hlx_plan_execute(p, params, results, &ctx);
        if (st) {
          wrong++;
          hlx_status_free(st);
          continue;
        }
        for (int i = 0; i < 8; i++)
          if (r[i] != 5 + 100 + i) wrong++;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
  hlx_plan_destroy(p);
}

// ---- parallel_for -----------------------------------------------------------

TEST_F(PoolTest, ParallelForCoversEveryIndexOnce) {
  for (size_t n : {size_t{1}, size_t{7}, size_t{1000}, size_t{100003}}) {
    std::vector<std::atomic<int>> hits(n);
    for (auto& h : hits) h = 0;
    struct Ctx {
      std::vector<std::atomic<int>>* hits;
    } c{&hits};
    const hlx_parallel_t* par = hlx_pool_parallel(pool_);
    EXPECT_EQ(hlx_parallel_num_threads(par), 3);
    hlx_parallel_for(
        par, n, 64,
        [](void* arg, size_t b, size_t e) {
          auto* cc = static_cast<Ctx*>(arg);
          for (size_t i = b; i < e; i++) (*cc->hits)[i]++;
        },
        &c);
    for (size_t i = 0; i < n; i++) ASSERT_EQ(hits[i].load(), 1) << i;
  }
}

TEST_F(PoolTest, ParallelForFromConcurrentThreads) {
  std::vector<std::thread> threads;
  std::atomic<int64_t> total{0};
  for (int th = 0; th < 4; th++)
    threads.emplace_back([&] {
      for (int rep = 0; rep < 50; rep++)
        hlx_pool_parallel_for(
            pool_, 10000, 100,
            [](void* arg, size_t b, size_t e) {
              static_cast<std::atomic<int64_t>*>(arg)->fetch_add(
                  static_cast<int64_t>(e - b));
            },
            &total);
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(total.load(), int64_t{4} * 50 * 10000);
}

TEST(Pool, DefaultPoolAndWarningAccessors) {
  hlx_pool_t* p = hlx_pool_default();
  ASSERT_NE(p, nullptr);
  EXPECT_GE(hlx_pool_num_threads(p), 1);
  // Never more threads than cores unless asked.
  if (!std::getenv("HLX_NUM_THREADS")) {
    EXPECT_LE(hlx_pool_num_threads(p), hlx_pool_num_cores(p));
  }
  EXPECT_NE(hlx_pool_warning(p), nullptr);
  hlx_pool_options_t o;
  hlx_pool_options_init(&o);
  o.num_threads = -1;
  hlx_pool_t* bad = nullptr;
  hlx_status_t st = hlx_pool_create(&o, &bad);
  EXPECT_EQ(hlx_status_code(st), HLX_STATUS_INVALID_ARGUMENT);
  hlx_status_free(st);
}

}  // namespace

// ---- results written in place ----

// out = in + add; records where it wrote.
struct AddArgs {
  int64_t add;
  void** wrote;
};
hlx_status_t RunAdd(const void* args, void* const* in, void* const* out,
                    hlx_run_ctx_t* ctx) {
  (void)ctx;
  const AddArgs* a = static_cast<const AddArgs*>(args);
  *static_cast<int64_t*>(out[0]) = *static_cast<const int64_t*>(in[0]) + a->add;
  *a->wrote = out[0];
  return nullptr;
}

// A top-level run's result slots are pointed at the caller's buffers (no
// copy) when those are 64-byte aligned; a parameter returned, a value
// returned twice and an unaligned buffer still get correct copies, with
// and without the pool.
TEST_F(PoolTest, ResultsAreWrittenStraightIntoAlignedCallerBuffers) {
  hlx_plan_t* p = hlx_plan_create("direct");
  int32_t param = hlx_plan_add_slot(p, sizeof(int64_t));
  int32_t x = hlx_plan_add_slot(p, sizeof(int64_t));
  int32_t y = hlx_plan_add_slot(p, sizeof(int64_t));
  void* wrote_x = nullptr;
  void* wrote_y = nullptr;
  AddArgs ax{1, &wrote_x}, ay{10, &wrote_y};
  ASSERT_NE(hlx_plan_add_task(p, "x", RunAdd, &ax, 1, &param, 1, &x), nullptr);
  ASSERT_NE(hlx_plan_add_task(p, "y", RunAdd, &ay, 1, &x, 1, &y), nullptr);
  p->num_params = 1;
  p->param_slots = static_cast<int32_t*>(
      hlx_arena_alloc_array(&p->arena, 1, sizeof(int32_t)));
  p->param_slots[0] = param;
  const int32_t result_slots[] = {y, x, param, y};
  p->num_results = 4;
  p->result_slots = static_cast<int32_t*>(
      hlx_arena_alloc_array(&p->arena, 4, sizeof(int32_t)));
  std::memcpy(p->result_slots, result_slots, sizeof(result_slots));
  Finalize(p);

  for (hlx_pool_t* pool : {static_cast<hlx_pool_t*>(nullptr), pool_}) {
    for (size_t misalign : {size_t{0}, size_t{8}}) {
      alignas(64) unsigned char storage[4][128];
      void* outs[4];
      for (int i = 0; i < 4; i++) outs[i] = storage[i];
      outs[0] = storage[0] + misalign;  // y's first copy
      int64_t in = 5;
      const void* params[] = {&in};
      hlx_run_ctx_t ctx;
      std::memset(&ctx, 0, sizeof ctx);
      ctx.pool = pool;
      ctx.parallel = pool ? hlx_pool_parallel(pool) : nullptr;
      hlx_status_t st = hlx_plan_execute(p, params, outs, &ctx);
      ASSERT_EQ(st, nullptr) << hlx_status_message(st);
      int64_t got[4];
      for (int i = 0; i < 4; i++) std::memcpy(&got[i], outs[i], sizeof(int64_t));
      EXPECT_EQ(got[0], 16);
      EXPECT_EQ(got[1], 6);
      EXPECT_EQ(got[2], 5);
      EXPECT_EQ(got[3], 16);
      EXPECT_EQ(wrote_x, outs[1]) << "x is produced in the caller's buffer";
      if (misalign == 0)
        EXPECT_EQ(wrote_y, outs[0]) << "y is produced in its first buffer";
      else
        EXPECT_NE(wrote_y, outs[0]) << "an unaligned buffer gets a copy";
    }
  }
  hlx_plan_destroy(p);
}

// ---- inline runs: one-task plans and chains never wake the pool ----------

namespace {

struct WhereArgs {
  std::thread::id* ran_on;
  int64_t add;
  bool fail;
};

hlx_status_t RunWhere(const void* args, void* const* in, void* const* out,
                      hlx_run_ctx_t*) {
  const WhereArgs* a = static_cast<const WhereArgs*>(args);
  *a->ran_on = std::this_thread::get_id();
  if (a->fail)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT, "inline refused");
  *static_cast<int64_t*>(out[0]) = *static_cast<const int64_t*>(in[0]) + a->add;
  return nullptr;
}

// n tasks in a chain, param -> t0 -> ... -> t(n-1) = the result; each adds
// its index + 1 and records its thread in ran_on[i].
hlx_plan_t* WhereChain(int n, std::vector<WhereArgs>* args,
                       std::vector<std::thread::id>* ran_on, int fail_at) {
  hlx_plan_t* p = hlx_plan_create("where");
  int32_t prev = hlx_plan_add_slot(p, sizeof(int64_t));
  p->num_params = 1;
  p->param_slots = static_cast<int32_t*>(
      hlx_arena_alloc_array(&p->arena, 1, sizeof(int32_t)));
  p->param_slots[0] = prev;
  ran_on->assign(static_cast<size_t>(n), std::thread::id());
  args->resize(static_cast<size_t>(n));
  for (int i = 0; i < n; i++) {
    (*args)[i] = WhereArgs{&(*ran_on)[i], i + 1, i == fail_at};
    int32_t s = hlx_plan_add_slot(p, sizeof(int64_t));
    std::string name = "stablehlo.add at " + std::to_string(i) + ":1";
    EXPECT_NE(hlx_plan_add_task(p, name.c_str(), RunWhere, &(*args)[i], 1,
                                &prev, 1, &s),
              nullptr);
    prev = s;
  }
  p->num_results = 1;
  p->result_slots = static_cast<int32_t*>(
      hlx_arena_alloc_array(&p->arena, 1, sizeof(int32_t)));
  p->result_slots[0] = prev;
  Finalize(p);
  return p;
}

// Runs a plan of one int64 parameter and result on pool.
hlx_status_t RunInt(const hlx_plan_t* p, hlx_pool_t* pool, int64_t in,
                    int64_t* out) {
  const void* params[] = {&in};
  void* results[] = {out};
  hlx_run_ctx_t ctx;
  std::memset(&ctx, 0, sizeof ctx);
  ctx.pool = pool;
  ctx.parallel = hlx_pool_parallel(pool);
  return hlx_plan_execute(p, params, results, &ctx);
}

TEST_F(PoolTest, OneTaskPlansAndChainsRunInlineOnTheCaller) {
  for (int n : {1, 2, 5}) {
    std::vector<WhereArgs> args;
    std::vector<std::thread::id> ran_on;
    hlx_plan_t* p = WhereChain(n, &args, &ran_on, -1);
    EXPECT_TRUE(hlx_plan_is_sequential(p));
    for (int rep = 0; rep < 50; rep++) {
      int64_t out = -1;
      hlx_status_t st = RunInt(p, pool_, 100, &out);
      ASSERT_EQ(st, nullptr) << hlx_status_message(st);
      EXPECT_EQ(out, 100 + n * (n + 1) / 2);
      for (int i = 0; i < n; i++)
        ASSERT_EQ(ran_on[i], std::this_thread::get_id()) << "task " << i;
    }
    hlx_plan_destroy(p);
  }
}

TEST_F(PoolTest, InlineRunErrorNamesTheTaskAndSkipsTheRest) {
  std::vector<WhereArgs> args;
  std::vector<std::thread::id> ran_on;
  hlx_plan_t* p = WhereChain(4, &args, &ran_on, 1);
  int64_t out = -1;
  hlx_status_t st = RunInt(p, pool_, 0, &out);
  ASSERT_NE(st, nullptr);
  EXPECT_NE(std::strstr(hlx_status_message(st), "stablehlo.add at 1:1"),
            nullptr)
      << hlx_status_message(st);
  EXPECT_NE(std::strstr(hlx_status_message(st), "inline refused"), nullptr);
  hlx_status_free(st);
  EXPECT_EQ(ran_on[2], std::thread::id()) << "tasks after the failure ran";
  EXPECT_EQ(out, -1) << "a failed run wrote its result";
  hlx_plan_destroy(p);
}

TEST_F(PoolTest, ConcurrentInlineRunsOfOneTaskPlan) {
  // Four callers share one plan (and its kept run blocks); each run stays
  // on its own caller and sees its own parameter.
  hlx_plan_t* p = hlx_plan_create("one");
  int32_t a = hlx_plan_add_slot(p, sizeof(int64_t));
  int32_t b = hlx_plan_add_slot(p, sizeof(int64_t));
  ASSERT_NE(hlx_plan_add_task(p, "inc", RunInc, nullptr, 1, &a, 1, &b),
            nullptr);
  p->num_params = 1;
  p->param_slots = static_cast<int32_t*>(
      hlx_arena_alloc_array(&p->arena, 1, sizeof(int32_t)));
  p->param_slots[0] = a;
  p->num_results = 1;
  p->result_slots = static_cast<int32_t*>(
      hlx_arena_alloc_array(&p->arena, 1, sizeof(int32_t)));
  p->result_slots[0] = b;
  Finalize(p);
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int k = 0; k < 4; k++)
    threads.emplace_back([&, k] {
      for (int64_t i = 0; i < 2000; i++) {
        int64_t in = k * 1000000 + i, out = -1;
        hlx_status_t st = RunInt(p, pool_, in, &out);
        if (st || out != in + 1) bad++;
        hlx_status_free(st);
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(bad.load(), 0);
  hlx_plan_destroy(p);
}

}  // namespace
