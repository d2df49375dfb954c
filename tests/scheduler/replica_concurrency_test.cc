// Concurrency inside one replica of a multi-replica run: independent plain
// tasks of a process overlap in time (recorded start/end timestamps, no
// wall-clock thresholds), while tasks that may block at a rendezvous
// (side effects, nested plans) run on the process's own thread in program
// order, so unordered collectives still meet in the same order in every
// process and never deadlock.
#include <gtest/gtest.h>
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "scheduler/collectives.h"
#include "scheduler/plan.h"
#include "scheduler/pool.h"
#include "tests/scheduler/plan_testing.h"

namespace {

constexpr int kReplicas = 2;

struct Event {
  int32_t task;
  uint64_t start, end;
};

struct Shared {
  // Tasks "a" and "b" of a replica wait for each other to start: they can
  // only finish if they run at the same time (bounded, so a sequential
  // run fails instead of hanging).
  std::atomic<int> started[kReplicas] = {};
  std::atomic<int> timed_out{0};
  std::mutex mu;
  std::vector<Event> events;
  pthread_t caller;
  std::atomic<int> pinned_off_caller{0};
};

struct TaskArgs {
  Shared* sh;
  int64_t key;  // rendezvous key for the collective tasks
};

hlx_status_t Meet(const void* args, void* const*, void* const* out,
                  hlx_run_ctx_t* ctx) {
  auto* a = static_cast<const TaskArgs*>(args);
  int r = ctx->replica_id;
  a->sh->started[r]++;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (a->sh->started[r].load() < 2) {
    if (std::chrono::steady_clock::now() > deadline) {
      a->sh->timed_out++;
      break;
    }
    std::this_thread::yield();
  }
  *static_cast<int64_t*>(out[0]) = r + 1;
  return nullptr;
}

// Sums the inputs over all replicas at rendezvous `key`.
hlx_status_t Collective(const void* args, void* const* in, void* const* out,
                        hlx_run_ctx_t* ctx) {
  auto* a = static_cast<const TaskArgs*>(args);
  if (ctx->replica_id == 0 && !pthread_equal(pthread_self(), a->sh->caller))
    a->sh->pinned_off_caller++;
  int64_t mine = *static_cast<const int64_t*>(in[0]);
  hlx_meeting_t* m = nullptr;
  hlx_status_t st = hlx_rendezvous_join(
      ctx->rendezvous, "test collective",
      ctx->replica_id * hlx_rendezvous_num_partitions(ctx->rendezvous) +
          ctx->partition_id,
      static_cast<uint64_t>(a->key), kReplicas, ctx->replica_id, &mine, &m);
  if (st) return st;
  int64_t sum = 0;
  for (int i = 0; i < kReplicas; i++)
    sum += *static_cast<const int64_t*>(hlx_meeting_data(m)[i]);
  hlx_rendezvous_leave(ctx->rendezvous, m);
  *static_cast<int64_t*>(out[0]) = sum;
  return nullptr;
}

void Record(void* user, const hlx_plan_t*, int32_t task, const char*, int32_t,
            uint64_t start, uint64_t end) {
  auto* sh = static_cast<Shared*>(user);
  std::lock_guard<std::mutex> l(sh->mu);
  sh->events.push_back(Event{task, start, end});
}

void SetParamsResults(hlx_plan_t* p, std::vector<int32_t> results) {
  p->num_results = static_cast<int32_t>(results.size());
  p->result_slots = static_cast<int32_t*>(
      hlx_arena_alloc_array(&p->arena, results.size(), sizeof(int32_t)));
  for (size_t i = 0; i < results.size(); i++) p->result_slots[i] = results[i];
  hlx_testing::Finalize(p);  // complete
}

TEST(ReplicaConcurrency, IndependentTasksOfOneReplicaOverlap) {
  Shared sh;
  sh.caller = pthread_self();
  TaskArgs args{&sh, 7};
  hlx_plan_t* p = hlx_plan_create("replica");
  int32_t sa = hlx_plan_add_slot(p, 8), sb = hlx_plan_add_slot(p, 8),
          sc = hlx_plan_add_slot(p, 8), sd = hlx_plan_add_slot(p, 8);
  ASSERT_NE(hlx_plan_add_task(p, "a", Meet, &args, 0, nullptr, 1, &sa),
            nullptr);
  ASSERT_NE(hlx_plan_add_task(p, "b", Meet, &args, 0, nullptr, 1, &sb),
            nullptr);
  ASSERT_NE(hlx_plan_add_task(p, "sum_a", Collective, &args, 1, &sa, 1, &sc),
            nullptr);
  hlx_plan_last_task_set_flags(p, HLX_TASK_SIDE_EFFECT);
  TaskArgs args2{&sh, 8};
  ASSERT_NE(
      hlx_plan_add_task(p, "sum_b", Collective, &args2, 1, &sb, 1, &sd),
      nullptr);
  hlx_plan_last_task_set_flags(p, HLX_TASK_SIDE_EFFECT);
  SetParamsResults(p, {sc, sd});
  ASSERT_FALSE(hlx_plan_is_sequential(p));

  // 3 threads in the pool plus one thread per replica.
  hlx_pool_t* pool = hlx_testing::Pool(3);
  ASSERT_NE(pool, nullptr);
  int64_t res[kReplicas][2] = {};
  std::vector<std::vector<void*>> outs(kReplicas);
  hlx_process_run_t procs[kReplicas];
  for (int r = 0; r < kReplicas; r++) {
    outs[r] = {&res[r][0], &res[r][1]};
    procs[r] = hlx_process_run_t{p, nullptr, outs[r].data()};
  }
  // Events carry no replica id (both replicas run the same plan).
  hlx_run_ctx_t base;
  std::memset(&base, 0, sizeof base);
  base.pool = pool;
  base.on_task = Record;
  base.on_task_user = &sh;
  hlx_status_t st = hlx_run_processes(procs, kReplicas, 1, 5000, &base);
  ASSERT_EQ(st, nullptr) << hlx_status_message(st);
  EXPECT_EQ(sh.timed_out.load(), 0)
      << "tasks a and b of a replica did not run at the same time";
  for (int r = 0; r < kReplicas; r++) {
    EXPECT_EQ(res[r][0], 1 + 2);
    EXPECT_EQ(res[r][1], 1 + 2);
  }
  EXPECT_EQ(sh.pinned_off_caller.load(), 0)
      << "replica 0's collectives ran off its own thread";
  // Timestamps: 4 tasks per replica; each replica's "a" overlaps a "b"
  // (started before it ended, ended after it started).
  ASSERT_EQ(sh.events.size(), 4u * kReplicas);
  int overlaps = 0;
  for (const Event& x : sh.events)
    for (const Event& y : sh.events)
      if (x.task == 0 && y.task == 1 && x.start < y.end && y.start < x.end)
        overlaps++;
  EXPECT_GE(overlaps, kReplicas);
  hlx_pool_destroy(pool);
  hlx_plan_destroy(p);
}

// Four collectives flagged HLX_TASK_NESTED only (not chained as side
// effects): independent in the DAG, they still run in program order on
// each process's thread, so every process meets them in the same order. A
// run that took them in a different order in two processes would wait for
// peers at different meetings and end with DEADLINE_EXCEEDED.
TEST(ReplicaConcurrency, UnchainedBlockingTasksMeetInProgramOrder) {
  Shared sh;
  sh.caller = pthread_self();
  hlx_plan_t* p = hlx_plan_create("unchained");
  std::vector<TaskArgs> args;
  for (int k = 0; k < 8; k++) args.push_back(TaskArgs{&sh, 100 + k});
  int32_t one = hlx_plan_add_slot(p, 8);
  static const int64_t kOne = 1;
  p->slot_data[one] = &kOne;
  std::vector<int32_t> results;
  for (int k = 0; k < 8; k++) {
    int32_t s = hlx_plan_add_slot(p, 8);
    ASSERT_NE(hlx_plan_add_task(p, ("c" + std::to_string(k)).c_str(),
                                Collective, &args[k], 1, &one, 1, &s),
              nullptr);
    hlx_plan_last_task_set_flags(p, HLX_TASK_NESTED);
    results.push_back(s);
  }
  SetParamsResults(p, results);
  ASSERT_FALSE(hlx_plan_is_sequential(p));
  hlx_pool_t* pool = hlx_testing::Pool(2);
  ASSERT_NE(pool, nullptr);
  for (int rep = 0; rep < 20; rep++) {
    int64_t res[kReplicas][8] = {};
    std::vector<std::vector<void*>> outs(kReplicas);
    hlx_process_run_t procs[kReplicas];
    for (int r = 0; r < kReplicas; r++) {
      for (int k = 0; k < 8; k++) outs[r].push_back(&res[r][k]);
      procs[r] = hlx_process_run_t{p, nullptr, outs[r].data()};
    }
    hlx_run_ctx_t base;
    std::memset(&base, 0, sizeof base);
    base.pool = pool;
    hlx_status_t st = hlx_run_processes(procs, kReplicas, 1, 3000, &base);
    ASSERT_EQ(st, nullptr) << hlx_status_message(st);
    for (int r = 0; r < kReplicas; r++)
      for (int k = 0; k < 8; k++) ASSERT_EQ(res[r][k], kReplicas);
  }
  EXPECT_EQ(sh.pinned_off_caller.load(), 0);
  hlx_pool_destroy(pool);
  hlx_plan_destroy(p);
}

}  // namespace
