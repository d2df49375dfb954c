// Shared by the spec_examples_*_test.cc files. Each case is one "Example" of
// the StableHLO spec turned into a parameterless @main: the example's inputs
// become constants, the op runs as written, and @main returns the op's
// results followed by the spec's expected values as constants of the same
// types. The check is a bytewise comparison of the two halves (exact, NaN
// payloads included).
#ifndef HLX_TESTS_GRAPH_LOWERING_SPEC_EXAMPLE_HARNESS_H_
#define HLX_TESTS_GRAPH_LOWERING_SPEC_EXAMPLE_HARNESS_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "api/hlx.h"

namespace hlx_spec_examples {

struct Example {
  const char* name;
  const char* program;
};

inline std::string Hex(const std::vector<uint8_t>& v) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < v.size() && i < 256; i++) {
    s += d[v[i] >> 4];
    s += d[v[i] & 15];
    if (i % 8 == 7) s += ' ';
  }
  return s;
}

// Runs the example and hands each (result, expected) pair to `compare`,
// which returns "" or what differs; returns the collected differences, or
// why the example could not run.
template <typename Compare>
std::string RunPaired(const char* text, Compare compare) {
  hlx_program_t* p = nullptr;
  hlx_executable_t* e = nullptr;
  std::string err;
  hlx_status_t s = hlx_program_parse(text, strlen(text), "spec.mlir", 1, &p);
  if (!s) s = hlx_executable_create(p, nullptr, &e);
  int32_t n = e ? hlx_executable_num_results(e) : 0;
  std::vector<hlx_buffer_t*> out((size_t)(n > 0 ? n : 1), nullptr);
  if (!s) s = hlx_executable_run(e, nullptr, 0, out.data(), n);
  if (s) {
    err = std::string("error: ") + hlx_status_get_message(s);
  } else if (n % 2 != 0 || n == 0) {
    err = "expected an even, non-zero number of results";
  } else {
    for (int32_t i = 0; i < n / 2; i++)
      err += compare(std::to_string(i), out[i], out[i + n / 2]);
  }
  if (!s)
    for (int32_t i = 0; i < n; i++) hlx_buffer_destroy(out[i]);
  hlx_status_release(s);
  hlx_executable_destroy(e);
  hlx_program_destroy(p);
  return err;
}

// Runs the example; returns "" when every result equals its expected value.
inline std::string RunExample(const char* text) {
  return RunPaired(text, [](const std::string& i, const hlx_buffer_t* g,
                            const hlx_buffer_t* w) -> std::string {
    auto bytes = [](const hlx_buffer_t* b) {
      const uint8_t* d = static_cast<const uint8_t*>(hlx_buffer_data(b));
      return std::vector<uint8_t>(d, d + hlx_buffer_bytes(b));
    };
    std::vector<uint8_t> got = bytes(g), want = bytes(w);
    if (got == want) return "";
    return "result #" + i + ": got " + Hex(got) + "\n  spec says " +
           Hex(want) + "\n";
  });
}

// Like RunExample, but f32/f64 results need only match the spec's printed
// (rounded) values: |got - want| <= rel * |want| + abs, NaN matches NaN,
// infinities match exactly. Other element types compare bytewise.
inline std::string RunExampleClose(const char* text, double rel, double abs) {
  return RunPaired(text, [rel, abs](const std::string& i,
                                    const hlx_buffer_t* g,
                                    const hlx_buffer_t* w) -> std::string {
    size_t bytes = hlx_buffer_bytes(g);
    if (bytes != hlx_buffer_bytes(w)) return "result #" + i + ": sizes differ\n";
    std::string tn = hlx_element_type_name(hlx_buffer_desc(g)->element_type);
    bool f32 = tn == "f32", f64 = tn == "f64";
    if (!f32 && !f64)
      return memcmp(hlx_buffer_data(g), hlx_buffer_data(w), bytes) != 0
                 ? "result #" + i + " differs\n"
                 : "";
    std::string err;
    size_t count = bytes / (f32 ? 4 : 8);
    for (size_t k = 0; k < count; k++) {
      double a, b;
      if (f32) {
        a = static_cast<const float*>(hlx_buffer_data(g))[k];
        b = static_cast<const float*>(hlx_buffer_data(w))[k];
      } else {
        a = static_cast<const double*>(hlx_buffer_data(g))[k];
        b = static_cast<const double*>(hlx_buffer_data(w))[k];
      }
      bool ok = (a != a && b != b) || a == b ||
                (a - b <= rel * (b < 0 ? -b : b) + abs &&
                 b - a <= rel * (b < 0 ? -b : b) + abs);
      if (!ok)
        err += "result #" + i + " element " + std::to_string(k) + ": got " +
               std::to_string(a) + ", spec says " + std::to_string(b) + "\n";
    }
    return err;
  });
}

inline std::string ExampleName(const ::testing::TestParamInfo<Example>& i) {
  return i.param.name;
}

}  // namespace hlx_spec_examples

// Defines the parameterised test over `examples` (hlx_spec_examples::Example).
#define HLX_SPEC_EXAMPLES_TEST(suite, examples)                              \
  class suite : public ::testing::TestWithParam<hlx_spec_examples::Example> { \
  };                                                                          \
  TEST_P(suite, MatchesTheSpec) {                                             \
    EXPECT_EQ(hlx_spec_examples::RunExample(GetParam().program), "")          \
        << GetParam().program;                                                \
  }                                                                           \
  INSTANTIATE_TEST_SUITE_P(Spec, suite, ::testing::ValuesIn(examples),        \
                           hlx_spec_examples::ExampleName)

#endif  // HLX_TESTS_GRAPH_LOWERING_SPEC_EXAMPLE_HARNESS_H_
