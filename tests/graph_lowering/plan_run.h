// Shared by cse_test, fusion_recompute_test and tests/epilogue's
// plan_harness.h: lower a program with given options and an environment
// switch set while lowering, count tasks, run plans on random inputs
// (NaN/Inf mixed in) and compare results.
#ifndef HLX_TESTS_GRAPH_LOWERING_PLAN_RUN_H_
#define HLX_TESTS_GRAPH_LOWERING_PLAN_RUN_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

extern "C" {
#include "base/parallel.h"
#include "graph/lower/lower.h"
#include "graph/stablehlo/parser.h"
#include "kernels/elementwise.h"
}

namespace plan_run {

struct Lowered {
  hlx_module_t* module = nullptr;
  hlx_lowered_module_t* lm = nullptr;
  ~Lowered() {
    hlx_lowered_module_destroy(lm);
    hlx_module_destroy(module);
  }
  const hlx_plan_t* main() const {
    return hlx_lowered_find(lm, hlx_module_entry(module)->name);
  }
};

// Lowers text with `opts` and `env` (if not null) set to "1" meanwhile;
// false (and a test failure naming the program) when that fails.
inline bool LowerOptions(const std::string& text, const char* env,
                         const hlx_lower_options_t& opts, Lowered* l) {
  hlx_status_t s =
      hlx_parse_module(text.data(), text.size(), "t", 1, &l->module);
  if (!s) {
    if (env) setenv(env, "1", 1);
    s = hlx_lower_module(l->module, &opts, &l->lm);
    if (env) unsetenv(env);
  }
  if (s) {
    ADD_FAILURE() << hlx_status_message(s) << "\n" << text;
    hlx_status_free(s);
    return false;
  }
  return true;
}

// Lowers text (fusion on or off) with `env` (if not null) set to "1".
inline bool LowerWith(const std::string& text, const char* env, bool fuse,
                      Lowered* l) {
  hlx_lower_options_t opts = {};
  opts.disable_fusion = !fuse;
  opts.fill_elided = true;  // the ResNet file's weights
  return LowerOptions(text, env, opts, l);
}

// Tasks of p and of its sub-plans.
inline int32_t Tasks(const hlx_plan_t* p) {
  int32_t n = p->num_tasks;
  for (int32_t i = 0; i < p->num_children; i++) n += Tasks(p->children[i]);
  return n;
}

using Buffers = std::vector<std::vector<unsigned char>>;

// A pool stand-in that claims four threads and runs a parallel_for's
// chunks one at a time: tasks split their work deterministically.
inline int FourThreads(void*) { return 4; }
inline void SerialFor(void*, size_t n, size_t, hlx_parallel_fn fn,
                      void* arg) {
  for (size_t i = 0; i < n; i++) fn(arg, i, i + 1);
}

// Runs p on `in`; with split, through the stand-in pool above.
inline Buffers RunPlan(const hlx_plan_t* p, const Buffers& in,
                       bool split = false) {
  std::vector<const void*> params;
  for (auto& b : in) params.push_back(b.data());
  Buffers out(p->num_results);
  std::vector<void*> res;
  for (int32_t i = 0; i < p->num_results; i++) {
    out[i].resize(p->slot_bytes[p->result_slots[i]] + 1);
    res.push_back(out[i].data());
  }
  hlx_parallel_t par = {nullptr, FourThreads, SerialFor};
  hlx_run_ctx_t ctx = {};
  ctx.sequential = true;
  if (split) ctx.parallel = &par;
  hlx_status_t s = hlx_plan_execute(p, params.data(), res.data(), &ctx);
  EXPECT_EQ(s, nullptr) << (s ? hlx_status_message(s) : "");
  hlx_status_free(s);
  return out;
}

// Random arguments of f (floats with NaN/Inf/0 mixed in; small ints).
inline Buffers RandomArgs(const hlx_func_t* f, unsigned seed, double scale) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-3, 3);
  std::uniform_int_distribution<int> small(0, 30), pick(0, 31);
  Buffers in;
  const hlx_block_t* b = f->body->blocks[0];
  for (int32_t i = 0; i < b->num_args; i++) {
    const hlx_type_t* t = b->args[i]->type;
    size_t n = (size_t)hlx_type_num_elements(t);
    std::vector<double> v(n);
    for (auto& e : v) {
      if (hlx_dtype_is_int(t->dtype) || t->dtype == HLX_DTYPE_PRED) {
        e = t->dtype == HLX_DTYPE_PRED ? small(rng) & 1 : small(rng);
        continue;
      }
      e = u(rng) * scale;
      int k = pick(rng);
      if (scale == 1 && k == 0) e = NAN;
      if (scale == 1 && k == 1) e = INFINITY;
      if (scale == 1 && k == 2) e = -INFINITY;
    }
    std::vector<unsigned char> buf(n * hlx_dtype_size(t->dtype) + 1);
    EXPECT_TRUE(
        hlx_ref_convert(HLX_DTYPE_F64, v.data(), t->dtype, buf.data(), n));
    in.push_back(buf);
  }
  return in;
}

// Largest relative difference of a and b (NaN where both are NaN: equal),
// |a - b| / (|b| + floor).
inline double MaxRel(hlx_dtype_t t, const std::vector<unsigned char>& a,
              const std::vector<unsigned char>& b, size_t n,
              double floor = 1e-30) {
  std::vector<double> x(n), y(n);
  EXPECT_TRUE(hlx_ref_convert(t, a.data(), HLX_DTYPE_F64, x.data(), n));
  EXPECT_TRUE(hlx_ref_convert(t, b.data(), HLX_DTYPE_F64, y.data(), n));
  double m = 0;
  for (size_t i = 0; i < n; i++) {
    if (x[i] == y[i] || (std::isnan(x[i]) && std::isnan(y[i]))) continue;
    if (!std::isfinite(x[i]) || !std::isfinite(y[i])) return INFINITY;
    m = std::max(m, std::fabs(x[i] - y[i]) / (std::fabs(y[i]) + floor));
  }
  return m;
}

}  // namespace plan_run

#endif  // HLX_TESTS_GRAPH_LOWERING_PLAN_RUN_H_
