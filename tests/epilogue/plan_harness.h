// Shared by the tests of this directory: lower a program's @main with an
// environment switch set while lowering, and run the plan on f32 inputs.
#ifndef HLX_TESTS_EPILOGUE_PLAN_HARNESS_H_
#define HLX_TESTS_EPILOGUE_PLAN_HARNESS_H_

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "tests/graph_lowering/plan_run.h"

using plan_run::Lowered;

// @main of `text` lowered for one thread, with `env` (if not null) set to
// "1" during lowering and the conv_winograd lowering option as given; null
// (and a test failure) when that fails.
inline const hlx_plan_t* LowerMain(const std::string& text, const char* env,
                                   Lowered* l, bool conv_winograd = false) {
  hlx_lower_options_t opts = {};
  opts.library_threads = 1;
  opts.conv_winograd = conv_winograd;
  if (!plan_run::LowerOptions(text, env, opts, l)) return nullptr;
  return hlx_lowered_find(l->lm, "main");
}

// How many of the plan's tasks have `part` in their name.
inline int32_t TasksNamed(const hlx_plan_t* p, const char* part) {
  int32_t n = 0;
  for (int32_t i = 0; i < p->num_tasks; i++)
    n += std::strstr(p->tasks[i].name, part) != nullptr;
  return n;
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
  plan_run::Buffers bytes;
  for (auto& b : in) {
    const auto* d = reinterpret_cast<const unsigned char*>(b.data());
    bytes.emplace_back(d, d + b.size() * sizeof(float));
  }
  std::vector<std::vector<float>> out;
  for (auto& r : plan_run::RunPlan(p, bytes)) {
    out.emplace_back(r.size() / sizeof(float));  // drops RunPlan's guard byte
    std::memcpy(out.back().data(), r.data(), out.back().size() * sizeof(float));
  }
  return out;
}

#endif  // HLX_TESTS_EPILOGUE_PLAN_HARNESS_H_
