// Shared by the tests of this directory: lower a program's @main with an
// environment switch set while lowering, and run the plan on f32 inputs.
#ifndef HLX_TESTS_EPILOGUE_PLAN_HARNESS_H_
#define HLX_TESTS_EPILOGUE_PLAN_HARNESS_H_

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

extern "C" {
#include "graph/lower.h"
#include "graph/stablehlo/parser.h"
#include "scheduler/plan.h"
}

struct Lowered {
  hlx_module_t* module = nullptr;
  hlx_lowered_module_t* lm = nullptr;
  ~Lowered() {
    hlx_lowered_module_destroy(lm);
    hlx_module_destroy(module);
  }
};

// @main of `text` lowered for one thread, with `env` (if not null) set to
// "1" during lowering and the conv_winograd lowering option as given; null
// (and a test failure) when that fails.
inline const hlx_plan_t* LowerMain(const std::string& text, const char* env,
                                   Lowered* l, bool conv_winograd = false) {
  if (env) setenv(env, "1", 1);
  hlx_status_t s =
      hlx_parse_module(text.data(), text.size(), "t", 1, &l->module);
  if (!s) {
    hlx_lower_options_t opts = {};
    opts.library_threads = 1;
    opts.conv_winograd = conv_winograd;
    s = hlx_lower_module(l->module, &opts, &l->lm);
  }
  if (env) unsetenv(env);
  if (s) {
    ADD_FAILURE() << hlx_status_message(s) << "\n" << text;
    hlx_status_free(s);
    return nullptr;
  }
  return hlx_lowered_find(l->lm, "main");
}

// "tensor<2x3xf32>" for dims d, and its element count.
inline std::string TensorType(const std::vector<int64_t>& d) {
  std::string s = "tensor<";
  for (int64_t x : d) s += std::to_string(x) + "x";
  return s + "f32>";
}
inline int64_t ElementCount(const std::vector<int64_t>& d) {
  int64_t n = 1;
  for (int64_t x : d) n *= x;
  return n;
}

// The plan's f32 results for the given parameters.
inline std::vector<std::vector<float>> RunPlan(
    const hlx_plan_t* p, const std::vector<std::vector<float>>& in) {
  std::vector<const void*> params;
  for (auto& b : in) params.push_back(b.data());
  std::vector<std::vector<float>> out(p->num_results);
  std::vector<void*> res;
  for (int32_t i = 0; i < p->num_results; i++) {
    out[i].resize(p->slot_bytes[p->result_slots[i]] / sizeof(float) + 1);
    res.push_back(out[i].data());
  }
  hlx_run_ctx_t ctx = {};
  ctx.sequential = true;
  hlx_status_t s = hlx_plan_execute(p, params.data(), res.data(), &ctx);
  EXPECT_EQ(s, nullptr) << (s ? hlx_status_message(s) : "");
  hlx_status_free(s);
  for (auto& o : out) o.pop_back();
  return out;
}

#endif  // HLX_TESTS_EPILOGUE_PLAN_HARNESS_H_
