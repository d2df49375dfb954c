// hlx_plan_finalize: a plan's DAG and buffer assignment are built once,
// when it is finalized, and runs only read them. An unfinalized plan does
// not run; a finalized one no longer changes; concurrent first runs share
// the one schedule (run under --config=tsan); no_buffer_reuse, set through
// the options and not the environment, gives every buffer its own memory.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "scheduler/plan.h"
#include "scheduler/pool.h"
#include "tests/scheduler/plan_testing.h"

namespace {

using hlx_testing::ArenaInts;

constexpr size_t kWords = 512;  // per slot: 4 KiB of int64

// out[i] = in[i] + add for every word; records where it wrote.
struct AddArgs {
  int64_t add;
  void** wrote;  // nullptr: not recorded
};

hlx_status_t RunAdd(const void* args, void* const* in, void* const* out,
                    hlx_run_ctx_t*) {
  const AddArgs* a = static_cast<const AddArgs*>(args);
  const int64_t* x = static_cast<const int64_t*>(in[0]);
  int64_t* y = static_cast<int64_t*>(out[0]);
  for (size_t i = 0; i < kWords; i++) y[i] = x[i] + a->add;
  if (a->wrote) *a->wrote = out[0];
  return nullptr;
}

// A plan, complete but not finalized: param x; `width` independent tasks
// y_k = x + k + 1, each followed by a chain of `depth - 1` more elementwise
// steps; the ends of the chains are the results.
struct Built {
  hlx_plan_t* plan = nullptr;
  std::vector<AddArgs> args;
  std::vector<void*> wrote;
  ~Built() { hlx_plan_destroy(plan); }
};

void Build(Built* b, int width, int depth) {
  b->plan = hlx_plan_create("finalize");
  hlx_plan_t* p = b->plan;
  int32_t x = hlx_plan_add_slot(p, kWords * 8);
  p->num_params = 1;
  p->param_slots = ArenaInts(p, {x});
  b->args.resize(static_cast<size_t>(width * depth));
  b->wrote.assign(b->args.size(), nullptr);
  std::vector<int32_t> results;
  for (int k = 0; k < width; k++) {
    int32_t prev = x;
    for (int d = 0; d < depth; d++) {
      size_t i = static_cast<size_t>(k * depth + d);
      b->args[i] = AddArgs{d == 0 ? k + 1 : 1, &b->wrote[i]};
      int32_t out = hlx_plan_add_slot(p, kWords * 8);
      ASSERT_NE(hlx_plan_add_task(p, "add", RunAdd, &b->args[i], 1, &prev, 1,
                                  &out),
                nullptr);
      hlx_plan_last_task_set_flags(p, HLX_TASK_ELEMENTWISE);
      prev = out;
    }
    results.push_back(prev);
  }
  p->num_results = static_cast<int32_t>(results.size());
  p->result_slots = ArenaInts(p, results);
}

// Runs p on x = 0..kWords-1; the results, or the status in *st.
std::vector<std::vector<int64_t>> RunPlan(const hlx_plan_t* p,
                                          hlx_pool_t* pool, hlx_status_t* st) {
  std::vector<int64_t> x(kWords);
  for (size_t i = 0; i < kWords; i++) x[i] = static_cast<int64_t>(i);
  std::vector<std::vector<int64_t>> res(static_cast<size_t>(p->num_results),
                                        std::vector<int64_t>(kWords, -1));
  std::vector<void*> outs;
  for (auto& r : res) outs.push_back(r.data());
  const void* params[] = {x.data()};
  hlx_run_ctx_t ctx;
  std::memset(&ctx, 0, sizeof ctx);
  ctx.pool = pool;
  ctx.parallel = pool ? hlx_pool_parallel(pool) : nullptr;
  *st = hlx_plan_execute(p, params, outs.data(), &ctx);
  return res;
}

// What Build's plan computes: result k is x + k + depth.
bool Correct(const std::vector<std::vector<int64_t>>& res, int depth) {
  for (size_t k = 0; k < res.size(); k++)
    for (size_t i = 0; i < kWords; i++)
      if (res[k][i] != static_cast<int64_t>(i + k) + depth) return false;
  return true;
}

TEST(Finalize, UnfinalizedPlanDoesNotRun) {
  Built b;
  Build(&b, 2, 2);
  EXPECT_FALSE(hlx_plan_is_finalized(b.plan));
  EXPECT_EQ(hlx_plan_arena_bytes(b.plan), 0u);
  hlx_status_t st = nullptr;
  RunPlan(b.plan, nullptr, &st);
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(hlx_status_code(st), HLX_STATUS_FAILED_PRECONDITION);
  EXPECT_NE(std::strstr(hlx_status_message(st), "hlx_plan_finalize"), nullptr)
      << hlx_status_message(st);
  hlx_status_free(st);
  for (void* w : b.wrote) EXPECT_EQ(w, nullptr) << "a task ran";
}

TEST(Finalize, FinalizedPlanNoLongerChanges) {
  Built b;
  Build(&b, 2, 2);
  hlx_plan_t* p = b.plan;
  ASSERT_EQ(hlx_plan_finalize(p, nullptr), nullptr);
  EXPECT_TRUE(hlx_plan_is_finalized(p));
  const void* schedule = p->schedule;
  hlx_status_t st = hlx_plan_finalize(p, nullptr);
  EXPECT_EQ(hlx_status_code(st), HLX_STATUS_FAILED_PRECONDITION);
  hlx_status_free(st);
  EXPECT_EQ(p->schedule, schedule) << "finalized twice";
  int32_t slots = p->num_slots, tasks = p->num_tasks;
  uint32_t flags = p->tasks[tasks - 1].flags;
  EXPECT_EQ(hlx_plan_add_slot(p, 8), -1);
  int32_t s = 0;
  EXPECT_EQ(hlx_plan_add_task(p, "late", RunAdd, nullptr, 1, &s, 1, &s),
            nullptr);
  hlx_plan_last_task_set_flags(p, HLX_TASK_SIDE_EFFECT);
  st = hlx_plan_adopt(p, hlx_plan_create("late"));  // destroys the child
  EXPECT_EQ(hlx_status_code(st), HLX_STATUS_FAILED_PRECONDITION);
  hlx_status_free(st);
  EXPECT_EQ(p->num_slots, slots);
  EXPECT_EQ(p->num_tasks, tasks);
  EXPECT_EQ(p->tasks[tasks - 1].flags, flags);
  EXPECT_EQ(p->num_children, 0);
  RunPlan(p, nullptr, &st);
  EXPECT_EQ(st, nullptr) << hlx_status_message(st);
  hlx_status_free(st);
}

// A run of a plan may run its sub-plans: they are finalized first.
TEST(Finalize, SubPlansAreFinalizedFirst) {
  Built parent, child;
  Build(&parent, 1, 1);
  Build(&child, 1, 1);
  ASSERT_EQ(hlx_plan_adopt(parent.plan, child.plan), nullptr);
  hlx_plan_t* c = child.plan;
  child.plan = nullptr;  // the parent owns it now
  hlx_status_t st = hlx_plan_finalize(parent.plan, nullptr);
  EXPECT_EQ(hlx_status_code(st), HLX_STATUS_FAILED_PRECONDITION);
  EXPECT_NE(std::strstr(hlx_status_message(st), "not finalized"), nullptr)
      << hlx_status_message(st);
  hlx_status_free(st);
  EXPECT_FALSE(hlx_plan_is_finalized(parent.plan));
  ASSERT_EQ(hlx_plan_finalize(c, nullptr), nullptr);
  ASSERT_EQ(hlx_plan_finalize(parent.plan, nullptr), nullptr);
}

// Several threads make the first runs of one finalized plan at the same
// time, on a pool, and read its figures meanwhile: they share the schedule
// finalize built (the same one before and after, the same figures), and
// under ThreadSanitizer nothing races, since runs only read it.
TEST(Finalize, ConcurrentFirstRunsShareTheOneSchedule) {
  Built b;
  Build(&b, 8, 3);
  hlx_plan_t* p = b.plan;
  for (AddArgs& a : b.args) a.wrote = nullptr;  // threads would race on it
  ASSERT_EQ(hlx_plan_finalize(p, nullptr), nullptr);
  const void* schedule = p->schedule;
  size_t arena = hlx_plan_arena_bytes(p);
  size_t sum = hlx_plan_intermediate_bytes(p);
  EXPECT_GT(arena, 0u);
  EXPECT_LT(arena, sum);
  ASSERT_FALSE(hlx_plan_is_sequential(p));
  hlx_pool_t* pool = hlx_testing::Pool(3);
  ASSERT_NE(pool, nullptr);
  std::atomic<int> ready{0}, bad{0};
  std::vector<std::thread> threads;
  for (int th = 0; th < 4; th++)
    threads.emplace_back([&, th] {
      ready++;
      while (ready.load() < 4) std::this_thread::yield();
      for (int rep = 0; rep < 20; rep++) {
        hlx_status_t st = nullptr;
        auto res = RunPlan(p, th % 2 ? pool : nullptr, &st);
        if (st || !Correct(res, 3)) bad++;
        hlx_status_free(st);
        if (hlx_plan_arena_bytes(p) != arena || hlx_plan_is_sequential(p))
          bad++;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(p->schedule, schedule);
  EXPECT_EQ(hlx_plan_intermediate_bytes(p), sum);
  hlx_pool_destroy(pool);
}

// no_buffer_reuse comes from the options: the scheduler reads no
// environment variable (HLX_NO_BUFFER_REUSE=1 is the lowering's, see
// graph/lower/driver.c), and with it every buffer a run owns is its own.
TEST(Finalize, NoBufferReuseOptionGivesEveryBufferItsOwnMemory) {
  constexpr int kDepth = 20;
  const size_t slot = kWords * 8;
  setenv("HLX_NO_BUFFER_REUSE", "1", 1);
  Built reuse;
  Build(&reuse, 1, kDepth);
  ASSERT_EQ(hlx_plan_finalize(reuse.plan, nullptr), nullptr);
  unsetenv("HLX_NO_BUFFER_REUSE");
  // An elementwise chain runs in place: one buffer.
  EXPECT_EQ(hlx_plan_arena_bytes(reuse.plan), slot);

  Built own;
  Build(&own, 1, kDepth);
  hlx_plan_finalize_options_t o = {};
  o.no_buffer_reuse = true;
  ASSERT_EQ(hlx_plan_finalize(own.plan, &o), nullptr);
  EXPECT_EQ(hlx_plan_intermediate_bytes(own.plan), kDepth * slot);
  EXPECT_EQ(hlx_plan_arena_bytes(own.plan), kDepth * slot);
  EXPECT_EQ(hlx_plan_live_bytes(own.plan), kDepth * slot);
  hlx_status_t st = nullptr;
  auto res = RunPlan(own.plan, nullptr, &st);
  ASSERT_EQ(st, nullptr) << hlx_status_message(st);
  EXPECT_TRUE(Correct(res, kDepth));
  // No two tasks wrote the same bytes (the last may have written the
  // caller's buffer, which is memory of its own too).
  for (size_t i = 0; i < own.wrote.size(); i++)
    for (size_t j = i + 1; j < own.wrote.size(); j++) {
      auto a = reinterpret_cast<uintptr_t>(own.wrote[i]);
      auto c = reinterpret_cast<uintptr_t>(own.wrote[j]);
      EXPECT_TRUE(a + slot <= c || c + slot <= a)
          << "tasks " << i << " and " << j << " share memory";
    }
}

}  // namespace
