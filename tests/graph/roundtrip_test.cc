// Every program of every .mlir file in the conformance and models directories
// parses, prints in generic form, reparses to an equal module, and prints the
// same text again.
#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "tests/data_paths.h"
#include "tests/graph/test_util.h"

namespace {

// "relative/path.mlir:first_line" of programs that may fail to parse, each
// with the reason. Keep empty unless a program is genuinely out of scope.
const std::set<std::string>& AllowedParseFailures() {
  static const std::set<std::string> kAllowed = {};
  return kAllowed;
}

struct Counts {
  int files = 0, programs = 0, parse_failures = 0, allowed = 0,
      roundtrip_failures = 0;
};

void RunDir(const std::string& dir, Counts* c) {
  std::vector<std::string> files;
  hlx_test::ListMlirFiles(dir, &files);
  for (const std::string& path : files) {
    std::string text;
    ASSERT_TRUE(hlx_test::ReadFile(path, &text)) << path;
    c->files++;
    std::string rel = path.substr(dir.size() + 1);
    for (const hlx_text_chunk_t& ch : hlx_test::SplitPrograms(text)) {
      c->programs++;
      std::string chunk(ch.text, ch.len);
      hlx_test::ModulePtr m;
      std::string err;
      if (!hlx_test::Parse(chunk, &m, &err, path.c_str(), ch.first_line)) {
        std::string key = rel + ":" + std::to_string(ch.first_line);
        if (AllowedParseFailures().count(key)) {
          c->allowed++;
        } else {
          c->parse_failures++;
          ADD_FAILURE() << "parse failed: " << err;
        }
        continue;
      }
      std::string rt = hlx_test::RoundTrip(m.get());
      if (!rt.empty()) {
        c->roundtrip_failures++;
        ADD_FAILURE() << path << ":" << ch.first_line << ": " << rt;
      }
    }
  }
}

TEST(RoundTrip, ConformanceAndModels) {
  std::string conf = hlx_test::ConformanceDir();
  std::string models = hlx_test::ModelsDir();
  ASSERT_TRUE(hlx_test::IsDir(conf))
      << "conformance data not found at " << conf
      << " (set HLX_CONFORMANCE_DIR or put ../shared beside the checkout)";
  ASSERT_TRUE(hlx_test::IsDir(models)) << "models not found at " << models;
  Counts c;
  RunDir(conf, &c);
  Counts cm;
  RunDir(models, &cm);
  std::printf(
      "conformance: %d files, %d programs, %d parse failures (%d allowed), "
      "%d round-trip failures\n",
      c.files, c.programs, c.parse_failures, c.allowed, c.roundtrip_failures);
  std::printf(
      "models: %d files, %d programs, %d parse failures, %d round-trip "
      "failures\n",
      cm.files, cm.programs, cm.parse_failures, cm.roundtrip_failures);
  // JAX's exported CPU programs (custom_call layouts, backend configs).
  Counts cj;
  std::string jax = hlx_test::SharedDir() + "/jax_exports";
  if (hlx_test::IsDir(jax)) RunDir(jax, &cj);
  std::printf("jax_exports: %d files, %d parse failures, %d round-trip "
              "failures\n",
              cj.files, cj.parse_failures, cj.roundtrip_failures);
  EXPECT_GT(c.programs, 2000);
  EXPECT_GE(cm.files, 3);
  EXPECT_EQ(c.parse_failures + cm.parse_failures, 0);
  EXPECT_EQ(c.roundtrip_failures + cm.roundtrip_failures, 0);
}

}  // namespace
