// The pool's deques and cpu lists: items an attached caller pushes are
// stolen by the worker when the caller does not run them; stolen batches
// and parallel_for helpers mix without losing or repeating an item; cpu
// lists parse, pin and reject bad input with a clear status; the topology
// line names the NUMA nodes.
#include <gtest/gtest.h>
#include <sched.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "scheduler/pool.h"

namespace {

hlx_pool_t* MakePool(int threads, const char* cpus = nullptr) {
  hlx_pool_options_t o;
  hlx_pool_options_init(&o);
  o.num_threads = threads;
  o.spin_iterations = 100;
  o.cpus = cpus;
  hlx_pool_t* p = nullptr;
  hlx_status_t st = hlx_pool_create(&o, &p);
  EXPECT_EQ(st, nullptr) << hlx_status_message(st);
  hlx_status_free(st);
  return p;
}

struct Record {
  std::atomic<int> runs{0};
  std::atomic<int> on_caller{0};
  std::thread::id caller;
  hlx_pool_t* pool = nullptr;
  int notify_at = -1;  // wake hlx_pool_wait callers when runs gets here
};

void Count(void* a, int32_t) {
  auto* r = static_cast<Record*>(a);
  if (std::this_thread::get_id() == r->caller) r->on_caller++;
  if (++r->runs == r->notify_at) hlx_pool_notify(r->pool);
}

TEST(PoolSteal, WorkerStealsEverythingAnAttachedCallerLeaves) {
  hlx_pool_t* p = MakePool(2);
  ASSERT_NE(p, nullptr);
  Record r;
  r.caller = std::this_thread::get_id();
  hlx_pool_attach(p);
  std::vector<hlx_pool_item_t> items(1000, hlx_pool_item_t{Count, &r, 0});
  ASSERT_TRUE(hlx_pool_push(p, items.data(), items.size()));
  // The caller does not help: only stealing gets the items run.
  while (r.runs.load() < 1000) std::this_thread::yield();
  hlx_pool_detach(p);
  EXPECT_EQ(r.runs.load(), 1000);
  EXPECT_EQ(r.on_caller.load(), 0);
  hlx_pool_destroy(p);
}

bool AllRun(void* a) { return static_cast<Record*>(a)->runs.load() == 4000; }

TEST(PoolSteal, ItemsFromManyThreadsRunOnceEach) {
  hlx_pool_t* p = MakePool(3);
  ASSERT_NE(p, nullptr);
  Record r;
  r.pool = p;
  r.notify_at = 4000;
  std::vector<std::thread> ts;
  // Two attached callers, two unattached (injector), all helping.
  for (int t = 0; t < 4; t++)
    ts.emplace_back([&, t] {
      if (t < 2) hlx_pool_attach(p);
      std::vector<hlx_pool_item_t> items(1000, hlx_pool_item_t{Count, &r, 0});
      for (size_t k = 0; k < items.size(); k += 100)
        ASSERT_TRUE(hlx_pool_push(p, items.data() + k, 100));
      hlx_pool_wait(p, AllRun, &r);
      if (t < 2) hlx_pool_detach(p);
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(r.runs.load(), 4000);
  hlx_pool_destroy(p);
}

// Items that call parallel_for: helper items and stolen batches share the
// deques; every index is covered exactly once.
struct Nested {
  hlx_pool_t* pool;
  std::vector<std::atomic<int>>* hits;
};

void NestedItem(void* a, int32_t i) {
  auto* n = static_cast<Nested*>(a);
  struct C {
    std::vector<std::atomic<int>>* hits;
    int32_t i;
  } c{n->hits, i};
  hlx_pool_parallel_for(
      n->pool, 1000, 10,
      [](void* arg, size_t b, size_t e) {
        auto* cc = static_cast<C*>(arg);
        for (size_t k = b; k < e; k++) (*cc->hits)[cc->i * 1000 + k]++;
      },
      &c);
}

TEST(PoolSteal, ParallelForInsideStolenItems) {
  hlx_pool_t* p = MakePool(3);
  ASSERT_NE(p, nullptr);
  std::vector<std::atomic<int>> hits(64 * 1000);
  for (auto& h : hits) h = 0;
  Nested n{p, &hits};
  std::atomic<int> done{0};
  struct Wrap {
    Nested* n;
    std::atomic<int>* done;
  } w{&n, &done};
  // The last item wakes the waiting caller (hlx_pool_wait's contract).
  std::vector<hlx_pool_item_t> items;
  for (int32_t i = 0; i < 64; i++)
    items.push_back(hlx_pool_item_t{
        [](void* a, int32_t i) {
          auto* ww = static_cast<Wrap*>(a);
          NestedItem(ww->n, i);
          if (ww->done->fetch_add(1) + 1 == 64) hlx_pool_notify(ww->n->pool);
        },
        &w, i});
  hlx_pool_attach(p);
  ASSERT_TRUE(hlx_pool_push(p, items.data(), items.size()));
  hlx_pool_wait(
      p, [](void* a) { return static_cast<std::atomic<int>*>(a)->load() == 64; },
      &done);
  hlx_pool_detach(p);
  for (size_t k = 0; k < hits.size(); k++) ASSERT_EQ(hits[k].load(), 1) << k;
  hlx_pool_destroy(p);
}

// ---- cpu lists -------------------------------------------------------------

TEST(CpuList, ParsesSinglesAndRanges) {
  int cpus[16];
  int n = -1;
  ASSERT_EQ(hlx_pool_parse_cpu_list("0,2-3", cpus, 16, &n), nullptr);
  ASSERT_EQ(n, 3);
  EXPECT_EQ(cpus[0], 0);
  EXPECT_EQ(cpus[1], 2);
  EXPECT_EQ(cpus[2], 3);
  ASSERT_EQ(hlx_pool_parse_cpu_list("5", cpus, 16, &n), nullptr);
  ASSERT_EQ(n, 1);
  EXPECT_EQ(cpus[0], 5);
}

TEST(CpuList, RejectsMalformedLists) {
  int cpus[4];
  int n = -1;
  for (const char* bad : {"", "a", "1,", ",1", "0,,1", "3-1", "0-", "-2",
                          "1 2", "1,1", "0-5", "99999"}) {
    hlx_status_t st = hlx_pool_parse_cpu_list(bad, cpus, 4, &n);
    ASSERT_NE(st, nullptr) << bad;
    EXPECT_EQ(hlx_status_code(st), HLX_STATUS_INVALID_ARGUMENT) << bad;
    EXPECT_NE(std::string(hlx_status_message(st)).find("cpu list"),
              std::string::npos)
        << hlx_status_message(st);
    EXPECT_EQ(n, 0) << bad;
    hlx_status_free(st);
  }
}

void RecordAffinity(void* a, int32_t) {
  auto* set = static_cast<cpu_set_t*>(a);
  sched_getaffinity(0, sizeof *set, set);
  __atomic_store_n(reinterpret_cast<char*>(set) + sizeof(cpu_set_t), 1,
                   __ATOMIC_RELEASE);
}

TEST(CpuList, WorkersBindToTheListedCpu) {
  cpu_set_t mine;
  ASSERT_EQ(sched_getaffinity(0, sizeof mine, &mine), 0);
  int cpu = 0;
  while (!CPU_ISSET(cpu, &mine)) cpu++;
  std::string list = std::to_string(cpu);
  hlx_pool_t* p = MakePool(2, list.c_str());
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(hlx_pool_num_threads(p), 2);
  EXPECT_EQ(hlx_pool_worker_cpu(p, 0), cpu);
  EXPECT_EQ(hlx_pool_worker_cpu(p, 1), -1);  // no worker 1
  struct {
    cpu_set_t set;
    char ready;
  } rec{};
  hlx_pool_item_t it{RecordAffinity, &rec, 0};
  ASSERT_TRUE(hlx_pool_push(p, &it, 1));  // unattached: the worker steals it
  while (!__atomic_load_n(&rec.ready, __ATOMIC_ACQUIRE))
    std::this_thread::yield();
  if (hlx_pool_warning(p)[0] == 0) {
    EXPECT_EQ(CPU_COUNT(&rec.set), 1);
    EXPECT_TRUE(CPU_ISSET(cpu, &rec.set));
  } else {
    // Binding forbidden (container): a warning, never an error.
    EXPECT_NE(std::string(hlx_pool_warning(p)).find("unpinned"),
              std::string::npos);
  }
  EXPECT_NE(std::string(hlx_pool_topology(p)).find("pinned to cpus " + list),
            std::string::npos)
      << hlx_pool_topology(p);
  hlx_pool_destroy(p);
}

TEST(CpuList, ThreadCountDefaultsToTheListLength) {
  cpu_set_t mine;
  ASSERT_EQ(sched_getaffinity(0, sizeof mine, &mine), 0);
  std::string list;
  int n = 0;
  for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
    if (CPU_ISSET(c, &mine)) {
      list += (n ? "," : "") + std::to_string(c);
      n++;
    }
  hlx_pool_t* p = MakePool(0, list.c_str());
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(hlx_pool_num_threads(p), n);
  hlx_pool_destroy(p);
}

TEST(CpuList, CpusOutsideTheCpusetAndBadEnvAreErrors) {
  hlx_pool_options_t o;
  hlx_pool_options_init(&o);
  o.cpus = "4000";  // not on this machine
  hlx_pool_t* p = nullptr;
  hlx_status_t st = hlx_pool_create(&o, &p);
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(hlx_status_code(st), HLX_STATUS_INVALID_ARGUMENT);
  std::string msg = hlx_status_message(st);
  EXPECT_NE(msg.find("cpu 4000 is not in this process's allowed cpus"),
            std::string::npos)
      << msg;
  hlx_status_free(st);

  ASSERT_EQ(setenv("HLX_CPUS", "0-x", 1), 0);
  st = hlx_pool_create(nullptr, &p);
  unsetenv("HLX_CPUS");
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(p, nullptr);
  msg = hlx_status_message(st);
  EXPECT_NE(msg.find("HLX_CPUS"), std::string::npos) << msg;
  EXPECT_NE(msg.find("malformed"), std::string::npos) << msg;
  hlx_status_free(st);
}

TEST(Topology, NamesNumaNodesAndCores) {
  hlx_pool_t* p = MakePool(2);
  ASSERT_NE(p, nullptr);
  EXPECT_GE(hlx_pool_num_numa_nodes(p), 1);
  std::string t = hlx_pool_topology(p);
  EXPECT_NE(t.find("2 threads"), std::string::npos) << t;
  EXPECT_NE(t.find("NUMA node"), std::string::npos) << t;
  EXPECT_NE(t.find(std::to_string(hlx_pool_num_cores(p)) + " cores"),
            std::string::npos)
      << t;
  EXPECT_EQ(hlx_pool_worker_cpu(p, 0), -1);  // no list: per core
  hlx_pool_destroy(p);
}

}  // namespace
