// Buffer assignment: reuse on a chain, in-place elementwise tasks and
// HLX_TASK_OUT0_OVER_IN outputs, no two simultaneously-live slots overlap
// (checked exhaustively on random DAG plans against the DAG's
// reachability), results and params never aliased, and concurrent runs of
// random plans equal to a direct evaluation.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "scheduler/buffer_assign.h"
#include "scheduler/plan.h"
#include "scheduler/pool.h"
#include "tests/scheduler/plan_testing.h"

namespace {

using hlx_testing::ArenaInts;
using hlx_testing::Finalize;

// Task body: out word i = mix of word i (mod size) of each input and the
// task's id. Reads word i of every input before writing word i, so it meets
// HLX_TASK_ELEMENTWISE's rule.
struct Body {
  uint32_t id;
  int32_t num_in;
  std::vector<size_t> in_words;
  size_t out_words;
};

uint32_t Mix(uint32_t h, uint32_t v) { return (h ^ v) * 0x9e3779b1u + 7; }

hlx_status_t RunBody(const void* args, void* const* in, void* const* out,
                     hlx_run_ctx_t*) {
  const Body* b = static_cast<const Body*>(args);
  uint32_t* o = static_cast<uint32_t*>(out[0]);
  for (size_t i = 0; i < b->out_words; i++) {
    uint32_t h = b->id;
    for (int32_t k = 0; k < b->num_in; k++)
      h = Mix(h, static_cast<const uint32_t*>(in[k])[i % b->in_words[k]]);
    o[i] = h;
  }
  return nullptr;
}

struct TestPlan {
  hlx_plan_t* plan = nullptr;
  std::vector<Body> bodies;
  std::vector<size_t> param_words;
  ~TestPlan() { hlx_plan_destroy(plan); }
};

// n tasks with one output each of a random size, reading up to 3 earlier
// values (params included); a random subset of values are results; about
// half the tasks are flagged elementwise, and every third of the others
// HLX_TASK_OUT0_OVER_IN.
// A read picks among the last 6 values with probability `local`, else any.
void BuildRandom(TestPlan* tp, int n, unsigned seed, bool same_sizes = false,
                 double local = 0.75) {
  std::mt19937 rng(seed);
  tp->plan = hlx_plan_create("random");
  hlx_plan_t* p = tp->plan;
  std::vector<int32_t> values, params, results;
  std::vector<size_t> words;
  auto size_of = [&]() -> size_t {
    return same_sizes ? 16 : 1 + rng() % 48;
  };
  for (int i = 0; i < 2; i++) {
    size_t w = size_of();
    int32_t s = hlx_plan_add_slot(p, w * 4);
    params.push_back(s);
    values.push_back(s);
    words.push_back(w);
    tp->param_words.push_back(w);
  }
  tp->bodies.resize(static_cast<size_t>(n));
  for (int t = 0; t < n; t++) {
    int k = 1 + static_cast<int>(rng() % 3);
    std::vector<int32_t> in;
    Body& b = tp->bodies[static_cast<size_t>(t)];
    for (int i = 0; i < k; i++) {
      bool near = std::uniform_real_distribution<double>(0, 1)(rng) < local;
      size_t lo = values.size() > 6 && near ? values.size() - 6 : 0;
      size_t v = lo + rng() % (values.size() - lo);
      in.push_back(values[v]);
      b.in_words.push_back(words[v]);
    }
    // Same size as the first input half the time, so in place can happen.
    size_t w = rng() % 2 ? b.in_words[0] : size_of();
    int32_t out = hlx_plan_add_slot(p, w * 4);
    b.id = static_cast<uint32_t>(t + 1);
    b.num_in = k;
    b.out_words = w;
    ASSERT_NE(hlx_plan_add_task(p, ("t" + std::to_string(t)).c_str(), RunBody,
                                &b, k, in.data(), 1, &out),
              nullptr);
    if (rng() % 2)
      hlx_plan_last_task_set_flags(p, HLX_TASK_ELEMENTWISE);
    else if (t % 3 == 0)  // RunBody meets this rule too (no rng draw)
      hlx_plan_last_task_set_flags(p, HLX_TASK_OUT0_OVER_IN(t % k));
    values.push_back(out);
    words.push_back(w);
    if (rng() % 8 == 0 || t == n - 1) results.push_back(out);
  }
  if (rng() % 2) results.push_back(params[0]);  // a param returned as is
  p->num_params = static_cast<int32_t>(params.size());
  p->param_slots = ArenaInts(p, params);
  p->num_results = static_cast<int32_t>(results.size());
  p->result_slots = ArenaInts(p, results);
  Finalize(p);
}

// The producer edges of the DAG (dag.h: producer -> reader), as edge lists.
void ProducerEdges(const hlx_plan_t* p, std::vector<int32_t>* from,
                   std::vector<int32_t>* to) {
  std::vector<int32_t> producer(static_cast<size_t>(p->num_slots), -1);
  for (int32_t t = 0; t < p->num_tasks; t++) {
    const hlx_task_t& task = p->tasks[t];
    for (int32_t i = 0; i < task.num_in; i++) {
      int32_t pr = producer[static_cast<size_t>(task.in[i])];
      if (pr >= 0) from->push_back(pr), to->push_back(t);
    }
    for (int32_t i = 0; i < task.num_out; i++)
      producer[static_cast<size_t>(task.out[i])] = t;
  }
}

std::vector<unsigned char> Owned(const hlx_plan_t* p) {
  std::vector<unsigned char> owned(static_cast<size_t>(p->num_slots), 1);
  for (int32_t i = 0; i < p->num_params; i++)
    owned[static_cast<size_t>(p->param_slots[i])] = 0;
  return owned;
}

// Assigns p's buffers over the producer DAG (returned in from/to).
hlx_status_t Assign(const hlx_plan_t* p, std::vector<int32_t>* from,
                    std::vector<int32_t>* to, hlx_buffer_assignment_t* a) {
  ProducerEdges(p, from, to);
  std::vector<unsigned char> owned = Owned(p);
  return hlx_buffer_assign(p, owned.data(), from->data(), to->data(),
                           from->size(), true, a);
}

// reach[a][b]: a happens-before b (a path a -> ... -> b).
std::vector<std::vector<bool>> Reach(int32_t nt,
                                     const std::vector<int32_t>& from,
                                     const std::vector<int32_t>& to) {
  std::vector<std::vector<int32_t>> succ(static_cast<size_t>(nt));
  for (size_t e = 0; e < from.size(); e++)
    succ[static_cast<size_t>(from[e])].push_back(to[e]);
  std::vector<std::vector<bool>> r(static_cast<size_t>(nt),
                                   std::vector<bool>(static_cast<size_t>(nt)));
  for (int32_t a = nt - 1; a >= 0; a--)
    for (int32_t s : succ[static_cast<size_t>(a)]) {
      r[static_cast<size_t>(a)][static_cast<size_t>(s)] = true;
      for (int32_t c = 0; c < nt; c++)
        if (r[static_cast<size_t>(s)][static_cast<size_t>(c)])
          r[static_cast<size_t>(a)][static_cast<size_t>(c)] = true;
    }
  return r;
}

// Every pair of overlapping slots must be ordered: all users of the earlier
// one happen-before the later one's producer; the one exception is an
// elementwise task writing over an input whose other users precede it.
void CheckNoLiveOverlap(const hlx_plan_t* p,
                        const hlx_buffer_assignment_t& a,
                        const std::vector<std::vector<bool>>& reach) {
  size_t ns = static_cast<size_t>(p->num_slots);
  std::vector<int32_t> def(ns, -1);
  std::vector<std::vector<int32_t>> readers(ns);
  std::vector<bool> result(ns);
  for (int32_t t = 0; t < p->num_tasks; t++) {
    for (int32_t i = 0; i < p->tasks[t].num_in; i++)
      readers[static_cast<size_t>(p->tasks[t].in[i])].push_back(t);
    for (int32_t i = 0; i < p->tasks[t].num_out; i++)
      def[static_cast<size_t>(p->tasks[t].out[i])] = t;
  }
  for (int32_t i = 0; i < p->num_results; i++)
    result[static_cast<size_t>(p->result_slots[i])] = true;
  // Whether every user of x but `except` happens-before task t.
  auto dead_before = [&](size_t x, int32_t t, int32_t except) {
    if (result[x]) return false;
    if (def[x] != except && !reach[static_cast<size_t>(def[x])][static_cast<size_t>(t)])
      return false;
    for (int32_t r : readers[x])
      if (r != except && !reach[static_cast<size_t>(r)][static_cast<size_t>(t)])
        return false;
    return true;
  };
  for (size_t x = 0; x < ns; x++) {
    if (a.slot_off[x] == SIZE_MAX) continue;
    ASSERT_EQ(a.slot_off[x] % 64, 0u);
    ASSERT_LE(a.slot_off[x] + p->slot_bytes[x], a.arena_bytes);
    for (size_t y = x + 1; y < ns; y++) {
      if (a.slot_off[y] == SIZE_MAX) continue;
      bool overlap = a.slot_off[x] < a.slot_off[y] + p->slot_bytes[y] &&
                     a.slot_off[y] < a.slot_off[x] + p->slot_bytes[x];
      if (!overlap) continue;
      int32_t dx = def[x], dy = def[y];
      ASSERT_TRUE(dx >= 0 && dy >= 0) << "an unwritten slot is shared";
      size_t first = dx < dy ? x : y, second = dx < dy ? y : x;
      int32_t t = def[second];
      if (dead_before(first, t, -1)) continue;
      const hlx_task_t& task = p->tasks[t];
      bool reads_first = false;
      for (int32_t i = 0; i < task.num_in; i++)
        reads_first |= static_cast<size_t>(task.in[i]) == first;
      // HLX_TASK_OUT0_OVER_IN(k): output 0 over input k, named once.
      bool over_k = false;
      if ((task.flags & HLX_TASK_OUT0_OVER_IN_SET) &&
          static_cast<size_t>(task.out[0]) == second) {
        int32_t k = HLX_TASK_OUT0_OVER_IN_INDEX(task.flags), uses = 0;
        for (int32_t i = 0; i < task.num_in; i++)
          uses += static_cast<size_t>(task.in[i]) == first;
        over_k = k < task.num_in &&
                 static_cast<size_t>(task.in[k]) == first && uses == 1;
      }
      bool in_place = ((task.flags & HLX_TASK_ELEMENTWISE) ? reads_first
                                                           : over_k) &&
                      a.slot_off[first] == a.slot_off[second] &&
                      p->slot_bytes[first] == p->slot_bytes[second] &&
                      dead_before(first, t, t);
      ASSERT_TRUE(in_place) << "slots " << first << " and " << second
                            << " overlap while both live";
    }
  }
}

TEST(BufferAssign, ChainReusesTwoBuffers) {
  for (bool elementwise : {false, true}) {
    hlx_plan_t* p = hlx_plan_create("chain");
    int32_t prev = hlx_plan_add_slot(p, 4096);
    p->num_params = 1;
    p->param_slots = ArenaInts(p, {prev});
    std::vector<Body> bodies(20);
    for (int t = 0; t < 20; t++) {
      int32_t out = hlx_plan_add_slot(p, 4096);
      bodies[static_cast<size_t>(t)] = Body{static_cast<uint32_t>(t), 1, {1024}, 1024};
      ASSERT_NE(hlx_plan_add_task(p, "step", RunBody, &bodies[static_cast<size_t>(t)], 1,
                                  &prev, 1, &out),
                nullptr);
      if (elementwise) hlx_plan_last_task_set_flags(p, HLX_TASK_ELEMENTWISE);
      prev = out;
    }
    p->num_results = 1;
    p->result_slots = ArenaInts(p, {prev});
    Finalize(p);
    EXPECT_EQ(hlx_plan_intermediate_bytes(p), 20u * 4096);
    // Ping-pong between two buffers; in place, one.
    EXPECT_EQ(hlx_plan_arena_bytes(p), elementwise ? 4096u : 2u * 4096);
    // The chain still computes the right value.
    std::vector<uint32_t> x(1024), y(1024);
    for (size_t i = 0; i < x.size(); i++) x[i] = static_cast<uint32_t>(i * 3);
    for (int t = 0; t < 20; t++)
      for (size_t i = 0; i < x.size(); i++) x[i] = Mix(static_cast<uint32_t>(t), x[i]);
    std::vector<uint32_t> in(1024);
    for (size_t i = 0; i < in.size(); i++) in[i] = static_cast<uint32_t>(i * 3);
    const void* params[] = {in.data()};
    void* results[] = {y.data()};
    hlx_run_ctx_t ctx;
    std::memset(&ctx, 0, sizeof ctx);
    for (int run = 0; run < 2; run++) {
      ASSERT_EQ(hlx_plan_execute(p, params, results, &ctx), nullptr);
      EXPECT_EQ(x, y);
    }
    hlx_plan_destroy(p);
  }
}

TEST(BufferAssign, RandomPlansNeverOverlapLiveSlots) {
  for (unsigned seed = 1; seed <= 150; seed++) {
    TestPlan tp;
    BuildRandom(&tp, 5 + static_cast<int>(seed % 60), seed, seed % 3 == 0);
    const hlx_plan_t* p = tp.plan;
    std::vector<int32_t> from, to;
    hlx_buffer_assignment_t a;
    ASSERT_EQ(Assign(p, &from, &to, &a), nullptr);
    EXPECT_EQ(a.num_extra, 0u) << "small plans are proven, not ordered";
    // Params are never in the arena.
    for (int32_t i = 0; i < p->num_params; i++)
      EXPECT_EQ(a.slot_off[p->param_slots[i]], SIZE_MAX);
    EXPECT_LE(a.arena_bytes, a.sum_bytes);
    CheckNoLiveOverlap(p, a, Reach(p->num_tasks, from, to));
    hlx_buffer_assignment_free(&a);
    if (HasFatalFailure()) return;
  }
}

TEST(BufferAssign, ReuseHappensOnRandomPlans) {
  size_t arena = 0, sum = 0;
  for (unsigned seed = 1; seed <= 5; seed++) {
    TestPlan tp;
    BuildRandom(&tp, 2000, seed, false, 1.0);
    arena += hlx_plan_arena_bytes(tp.plan);
    sum += hlx_plan_intermediate_bytes(tp.plan);
  }
  // Values die within a few tasks except the 1 in 8 that are results; the
  // tasks between are often unordered, which limits proven reuse.
  EXPECT_LT(arena * 2, sum);
}

// Above the reachability bound, reuse is made safe by added edges, which
// must go forward in program order.
TEST(BufferAssign, LargePlansAddForwardEdges) {
  TestPlan tp;
  BuildRandom(&tp, HLX_BUFFER_ASSIGN_MAX_REACH_TASKS + 100, 7);
  const hlx_plan_t* p = tp.plan;
  std::vector<int32_t> from, to;
  hlx_buffer_assignment_t a;
  ASSERT_EQ(Assign(p, &from, &to, &a), nullptr);
  EXPECT_GT(a.num_extra, 0u);
  for (size_t e = 0; e < a.num_extra; e++)
    ASSERT_LT(a.extra_from[e], a.extra_to[e]);
  EXPECT_LT(a.arena_bytes * 4, a.sum_bytes);
  hlx_buffer_assignment_free(&a);
}

// Direct evaluation of a random plan, in program order with fresh memory.
std::vector<std::vector<uint32_t>> Reference(const TestPlan& tp,
                                             const std::vector<std::vector<uint32_t>>& params) {
  const hlx_plan_t* p = tp.plan;
  std::vector<std::vector<uint32_t>> val(static_cast<size_t>(p->num_slots));
  for (int32_t i = 0; i < p->num_params; i++)
    val[static_cast<size_t>(p->param_slots[i])] = params[static_cast<size_t>(i)];
  for (int32_t t = 0; t < p->num_tasks; t++) {
    const hlx_task_t& task = p->tasks[t];
    val[static_cast<size_t>(task.out[0])].resize(p->slot_bytes[task.out[0]] / 4);
    std::vector<void*> in;
    for (int32_t i = 0; i < task.num_in; i++)
      in.push_back(val[static_cast<size_t>(task.in[i])].data());
    void* out[] = {val[static_cast<size_t>(task.out[0])].data()};
    EXPECT_EQ(RunBody(task.args, in.data(), out, nullptr), nullptr);
  }
  std::vector<std::vector<uint32_t>> res;
  for (int32_t i = 0; i < p->num_results; i++)
    res.push_back(val[static_cast<size_t>(p->result_slots[i])]);
  return res;
}

void RunPlan(const TestPlan& tp, hlx_pool_t* pool,
             const std::vector<std::vector<uint32_t>>& params,
             std::vector<std::vector<uint32_t>>* res) {
  const hlx_plan_t* p = tp.plan;
  std::vector<const void*> pp;
  for (auto& v : params) pp.push_back(v.data());
  res->assign(static_cast<size_t>(p->num_results), {});
  std::vector<void*> rp;
  for (int32_t i = 0; i < p->num_results; i++) {
    (*res)[static_cast<size_t>(i)].assign(p->slot_bytes[p->result_slots[i]] / 4, 0);
    rp.push_back((*res)[static_cast<size_t>(i)].data());
  }
  hlx_run_ctx_t ctx;
  std::memset(&ctx, 0, sizeof ctx);
  ctx.pool = pool;
  ctx.parallel = pool ? hlx_pool_parallel(pool) : nullptr;
  hlx_status_t st = hlx_plan_execute(p, pp.data(), rp.data(), &ctx);
  EXPECT_EQ(st, nullptr);
  hlx_status_free(st);
}

TEST(BufferAssign, ConcurrentRunsMatchSequentialEvaluation) {
  hlx_pool_t* pool = hlx_testing::Pool(4);
  ASSERT_NE(pool, nullptr);
  for (unsigned seed = 1; seed <= 40; seed++) {
    TestPlan tp;
    int n = seed == 40 ? HLX_BUFFER_ASSIGN_MAX_REACH_TASKS + 50
                       : 20 + static_cast<int>(seed * 7 % 150);
    BuildRandom(&tp, n, seed + 1000, seed % 4 == 0);
    std::mt19937 rng(seed);
    std::vector<std::vector<uint32_t>> params;
    for (size_t w : tp.param_words) {
      params.emplace_back(w);
      for (auto& x : params.back()) x = static_cast<uint32_t>(rng());
    }
    std::vector<std::vector<uint32_t>> want = Reference(tp, params), got;
    EXPECT_LT(hlx_plan_arena_bytes(tp.plan), hlx_plan_intermediate_bytes(tp.plan));
    for (int run = 0; run < 3; run++) {
      RunPlan(tp, run == 0 ? nullptr : pool, params, &got);
      ASSERT_EQ(got, want) << "seed " << seed << " run " << run;
    }
  }
  hlx_pool_destroy(pool);
}

// HLX_TASK_OUT0_OVER_IN(k) (a oneDNN sum's residual): the output takes
// input k's slot when k dies there and has its size, and no other input's;
// not when k is read later, is a param or a result, differs in size, or is
// also another input of the task.
TEST(BufferAssign, OutputOverOneInput) {
  enum Variant { kDies, kLaterUser, kParam, kResult, kSize, kTwice, kOther };
  for (int v = kDies; v <= kOther; v++) {
    SCOPED_TRACE(v);
    hlx_plan_t* p = hlx_plan_create("over_in");
    int32_t x = hlx_plan_add_slot(p, 1024);
    p->num_params = 1;
    p->param_slots = ArenaInts(p, {x});
    std::vector<Body> bodies(4);
    auto add = [&](size_t i, std::vector<int32_t> in, size_t bytes,
                   uint32_t flags) {
      int32_t out = hlx_plan_add_slot(p, bytes);
      Body& b = bodies[i];
      b = Body{static_cast<uint32_t>(i + 1), static_cast<int32_t>(in.size()),
               {}, bytes / 4};
      for (int32_t s : in) b.in_words.push_back(p->slot_bytes[s] / 4);
      EXPECT_NE(hlx_plan_add_task(p, "t", RunBody, &b,
                                  static_cast<int32_t>(in.size()), in.data(),
                                  1, &out),
                nullptr);
      hlx_plan_last_task_set_flags(p, flags);
      return out;
    };
    // r: the residual; a: the other input (the product's operand).
    int32_t r = v == kParam ? x : add(0, {x}, v == kSize ? 512 : 1024, 0);
    int32_t a = add(1, {x}, 1024, 0);
    std::vector<int32_t> in = {a, v == kTwice ? r : a, r};
    int32_t k = v == kOther ? 0 : 2;  // kOther: flags a, which lives on
    int32_t y = add(2, in, 1024, HLX_TASK_OUT0_OVER_IN(k));
    std::vector<int32_t> results = {y};
    if (v == kLaterUser) results.push_back(add(3, {r, y}, 1024, 0));
    if (v == kResult) results.push_back(r);
    if (v == kOther) results.push_back(a);
    p->num_results = static_cast<int32_t>(results.size());
    p->result_slots = ArenaInts(p, results);
    Finalize(p);
    std::vector<int32_t> from, to;
    hlx_buffer_assignment_t ba;
    ASSERT_EQ(Assign(p, &from, &to, &ba), nullptr);
    bool want = v == kDies;
    EXPECT_EQ(ba.slot_off[y] == ba.slot_off[r], want);
    CheckNoLiveOverlap(p, ba, Reach(p->num_tasks, from, to));
    hlx_buffer_assignment_free(&ba);
    // The plan computes what a fresh-memory evaluation does.
    std::vector<uint32_t> xin(256);
    for (size_t i = 0; i < xin.size(); i++) xin[i] = static_cast<uint32_t>(i);
    std::vector<std::vector<uint32_t>> got(results.size());
    std::vector<void*> rp;
    for (size_t i = 0; i < results.size(); i++) {
      got[i].assign(p->slot_bytes[results[i]] / 4, 0);
      rp.push_back(got[i].data());
    }
    const void* params[] = {xin.data()};
    hlx_run_ctx_t ctx;
    std::memset(&ctx, 0, sizeof ctx);
    ASSERT_EQ(hlx_plan_execute(p, params, rp.data(), &ctx), nullptr);
    std::vector<std::vector<uint32_t>> val(static_cast<size_t>(p->num_slots));
    val[static_cast<size_t>(x)] = xin;
    for (int32_t t = 0; t < p->num_tasks; t++) {
      const hlx_task_t& task = p->tasks[t];
      val[static_cast<size_t>(task.out[0])].resize(
          p->slot_bytes[task.out[0]] / 4);
      std::vector<void*> tin;
      for (int32_t i = 0; i < task.num_in; i++)
        tin.push_back(val[static_cast<size_t>(task.in[i])].data());
      void* tout[] = {val[static_cast<size_t>(task.out[0])].data()};
      ASSERT_EQ(RunBody(task.args, tin.data(), tout, nullptr), nullptr);
    }
    for (size_t i = 0; i < results.size(); i++)
      EXPECT_EQ(got[i], val[static_cast<size_t>(results[i])]) << i;
    hlx_plan_destroy(p);
  }
}

// Results are copied out after the last task: their memory is never given
// to a later slot, even when nothing in the plan reads them.
TEST(BufferAssign, ResultsAreNeverOverwritten) {
  hlx_plan_t* p = hlx_plan_create("results");
  int32_t param = hlx_plan_add_slot(p, 256);
  p->num_params = 1;
  p->param_slots = ArenaInts(p, {param});
  std::vector<Body> bodies(6);
  std::vector<int32_t> outs;
  for (int t = 0; t < 6; t++) {
    int32_t out = hlx_plan_add_slot(p, 256);
    bodies[static_cast<size_t>(t)] = Body{static_cast<uint32_t>(t), 1, {64}, 64};
    ASSERT_NE(hlx_plan_add_task(p, "r", RunBody, &bodies[static_cast<size_t>(t)], 1, &param, 1, &out),
              nullptr);
    hlx_plan_last_task_set_flags(p, HLX_TASK_ELEMENTWISE);
    outs.push_back(out);
  }
  p->num_results = 6;
  p->result_slots = ArenaInts(p, outs);
  Finalize(p);
  EXPECT_EQ(hlx_plan_arena_bytes(p), 6u * 256);
  hlx_plan_destroy(p);
}

}  // namespace
