// The parser returns a status (never crashes, leaks or hangs) on truncated
// and corrupted versions of real programs and on adversarial inputs. Run it
// under ASan too: bazel test --config=asan //tests/graph/...
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/data_paths.h"
#include "tests/graph/test_util.h"

namespace {

// Parses; when it succeeds the module must also round-trip.
void Check(const std::string& text, const std::string& what) {
  hlx_module_t* m = nullptr;
  hlx_status_t s = hlx_parse_module(text.data(), text.size(), "fuzz.mlir", 1, &m);
  if (s) {
    EXPECT_EQ(m, nullptr) << what;
    EXPECT_NE(std::string(hlx_status_message(s)), "") << what;
    hlx_status_free(s);
    return;
  }
  ASSERT_NE(m, nullptr) << what;
  std::string rt = hlx_test::RoundTrip(m);
  EXPECT_EQ(rt, "") << what;
  hlx_module_destroy(m);
}

const char* const kFiles[] = {
    "interpret/while.mlir",        "interpret/reduce.mlir",
    "interpret/chlo/scan.mlir",    "interpret/convolution.mlir",
    "interpret/dot_general.mlir",  "interpret/quantized_ops.mlir",
    "interpret/all_reduce.mlir",   "interpret/printing.mlir",
    "interpret/case.mlir",         "interpret/gather.mlir",
};

std::vector<std::string> Samples() {
  std::vector<std::string> out;
  std::string conf = hlx_test::ConformanceDir();
  for (const char* f : kFiles) {
    std::string text;
    if (hlx_test::ReadFile(conf + "/" + f, &text)) {
      // Keep the first program of each file (the others look alike).
      auto chunks = hlx_test::SplitPrograms(text);
      out.emplace_back(chunks[0].text, chunks[0].len);
    }
  }
  std::vector<std::string> td;
  hlx_test::ListMlirFiles(conf + "/testdata/quantized", &td);
  std::string text;
  if (!td.empty() && hlx_test::ReadFile(td[0], &text)) out.push_back(text);
  if (hlx_test::ReadFile(hlx_test::ModelsDir() + "/searchless_chess_9m.mlir", &text))
    out.push_back(text.substr(0, 30000));
  return out;
}

TEST(Robustness, TruncatedPrograms) {
  std::vector<std::string> samples = Samples();
  ASSERT_GE(samples.size(), 8u) << "conformance data not found under "
                                << hlx_test::ConformanceDir();
  for (size_t k = 0; k < samples.size(); k++) {
    const std::string& s = samples[k];
    size_t step = s.size() / 300 + 1;
    for (size_t cut = 0; cut < s.size(); cut += step)
      Check(s.substr(0, cut), "sample " + std::to_string(k) + " cut at " + std::to_string(cut));
  }
}

TEST(Robustness, CorruptedPrograms) {
  std::vector<std::string> samples = Samples();
  ASSERT_GE(samples.size(), 8u);
  uint64_t rng = 0x9E3779B97F4A7C15ull;
  auto next = [&rng]() {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
  };
  const char kInteresting[] = "{}()[]<>%@#!^:,=-\"x?0123456789.\n /\\";
  for (size_t k = 0; k < samples.size(); k++) {
    for (int iter = 0; iter < 200; iter++) {
      std::string s = samples[k];
      if (s.empty()) continue;
      int edits = 1 + (int)(next() % 3);
      for (int e = 0; e < edits; e++) {
        size_t pos = next() % s.size();
        switch (next() % 4) {
          case 0:
            s[pos] = kInteresting[next() % (sizeof(kInteresting) - 1)];
            break;
          case 1:
            s[pos] = (char)(next() & 0xFF);
            break;
          case 2:
            s.erase(pos, 1 + next() % 8);
            break;
          default:
            s.insert(pos, s.substr(next() % s.size(), 1 + next() % 16));
            break;
        }
        if (s.empty()) break;
      }
      Check(s, "sample " + std::to_string(k) + " mutation " + std::to_string(iter));
    }
  }
}

TEST(Robustness, AdversarialInputs) {
  const std::string pre = "func.func @f() {\n  %0 = stablehlo.constant ";
  std::vector<std::string> cases = {
      "",
      "   // only a comment\n",
      "module {",
      "func.func @f(",
      pre + "dense<" + std::string(100000, '[') + "1" + std::string(100000, ']') +
          "> : tensor<f32>\n}",
      "func.func @f(%a: " + std::string(50000, 't') + ") {}",
      "func.func @f(%a: tensor<" + [] {
        std::string s;
        for (int i = 0; i < 5000; i++) s += "tuple<";
        return s;
      }() + ">) {}",
      "func.func @f() {\n  %0 = \"a.b\"() <{x = " + std::string(100000, '[') +
          "}> : () -> ()\n}",
      "func.func @f() {\n  %0 = \"a.b\"() <{x = " + [] {
        std::string s;
        for (int i = 0; i < 100000; i++) s += "{a = ";
        return s;
      }() + "}> : () -> ()\n}",
      "func.func @f() {\n  \"a.b\"() (" + [] {
        std::string s;
        for (int i = 0; i < 5000; i++) s += "{ \"a.b\"() (";
        return s;
      }() + " : () -> ()\n}",
      pre + "dense<1.0> : tensor<100000x100000x100000xf32>\n  func.return\n}",
      pre + "dense<1.0> : tensor<9223372036854775807x2xf32>\n  func.return\n}",
      pre + "dense<99999999999999999999999> : tensor<i64>\n  func.return\n}",
      pre + "dense<18446744073709551616> : tensor<ui64>\n  func.return\n}",
      pre + "dense<\"0x0102\"> : tensor<3xi32>\n  func.return\n}",
      pre + "dense<\"0xZZ\"> : tensor<i8>\n  func.return\n}",
      pre + "dense<[1, 2, 3]> : tensor<2xi32>\n  func.return\n}",
      pre + "dense<(1.0, 2.0)> : tensor<f32>\n  func.return\n}",
      pre + "dense<1> : tensor<99999999999999999999xf32>\n  func.return\n}",
      "func.func @f() {\n  %0:99999999999 = \"a.b\"() : () -> ()\n}",
      "func.func @f() {\n  %0 = \"a.b\"(%0) : (tensor<f32>) -> tensor<f32>\n}",
      "func.func @f() {\n  %x#99 = \"a.b\"() : () -> ()\n}",
      "func.func @f(%a: tensor<f32>) {\n  \"a.b\"(%a#99999999999999) : (tensor<f32>) -> ()\n}",
      "func.func @f() {\n  %0 = stablehlo.add : tensor<f32>\n}",
      "func.func @f() {\n  \"unterminated\n}",
      "func.func @f() {\n  %0 = stablehlo.constant dense<1> : tensor<1x2x3x4x5x6x7x8x9x1x2x3x4x5x6x7x8xf32>\n}",
      "#a = #a\n!b = !b\nfunc.func @f() { func.return }",
      "func.func @f() { func.return } func.func @f() { func.return }",
      std::string("func.func @f() {\0 }", 19),
  };
  for (size_t i = 0; i < cases.size(); i++)
    Check(cases[i], "adversarial case " + std::to_string(i));
}

}  // namespace
