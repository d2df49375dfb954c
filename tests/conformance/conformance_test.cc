// The conformance suite: every program of StableHLO's own tests under
// $HLX_CONFORMANCE_DIR (default ../shared/conformance) must behave as
// expected_failures.txt says: a listed program must still fail (otherwise
// the list must shrink), an unlisted one must pass.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/data_paths.h"
#include "tests/expectations.h"

extern "C" {
#include "tools/check_runner.h"
#include "tools/file_util.h"
}

namespace {

struct Outcome {
  std::string name;
  hlx_check_outcome_t outcome;
  std::string detail;
};

void Collect(const hlx_check_result_t* r, void* user) {
  static_cast<std::vector<Outcome>*>(user)->push_back(
      {r->name, r->outcome, r->detail});
}

std::string Folder(const std::string& name) {
  // "testdata/quantized/x.mlir" -> "testdata/quantized"; "interpret/chlo/..."
  size_t slash = name.rfind('/');
  return slash == std::string::npos ? "." : name.substr(0, slash);
}

std::string OneLine(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\t') c = ' ';
  if (s.size() > 200) s = s.substr(0, 200) + "...";
  return s;
}

TEST(Conformance, AllProgramsMatchExpectations) {
  const std::string dir = hlx_test::ConformanceDir();
  ASSERT_TRUE(hlx_test::IsDir(dir + "/interpret") &&
              hlx_test::IsDir(dir + "/testdata"))
      << "conformance data not found: looked for interpret/ and testdata/ in "
      << dir << " (set HLX_CONFORMANCE_DIR to a StableHLO checkout's "
      << "stablehlo/tests directory layout, or put ../shared beside the "
      << "checkout)";
  const std::string expectations_path =
      hlx_test::RepoRoot() + "/tests/conformance/expected_failures.txt";
  auto expected = hlx_test::LoadExpectations(expectations_path);

  std::vector<Outcome> results;
  for (const char* sub : {"interpret", "testdata"}) {
    char** paths = nullptr;
    int n = 0;
    hlx_status_t s = hlx_list_mlir_files((dir + "/" + sub).c_str(), &paths, &n);
    ASSERT_EQ(s, nullptr) << hlx_status_get_message(s);
    for (int i = 0; i < n; i++) {
      std::string rel = std::string(paths[i]).substr(dir.size() + 1);
      hlx_check_file(paths[i], rel.c_str(), Collect, &results);
    }
    hlx_free_paths(paths, n);
  }
  ASSERT_GT(results.size(), 1000u) << "too few programs found under " << dir;

  std::map<std::string, std::pair<int, int>> per_folder;
  int passed = 0, failed = 0;
  std::vector<std::string> unexpected_failures, unexpected_passes;
  std::set<std::string> seen;
  for (const Outcome& o : results) {
    seen.insert(o.name);
    bool ok = o.outcome == HLX_CHECK_PASS;
    auto& f = per_folder[Folder(o.name)];
    (ok ? f.first : f.second)++;
    (ok ? passed : failed)++;
    bool listed = expected.count(o.name) > 0;
    if (!ok && !listed)
      unexpected_failures.push_back(o.name + "  " +
                                    hlx_check_outcome_name(o.outcome) + ": " +
                                    OneLine(o.detail));
    if (ok && listed) unexpected_passes.push_back(o.name);
  }
  std::vector<std::string> stale;
  for (const auto& e : expected)
    if (!seen.count(e.first)) stale.push_back(e.first);

  for (const auto& f : per_folder)
    std::printf("conformance %-22s %5d passed, %5d failed\n", f.first.c_str(),
                f.second.first, f.second.second);
  for (const std::string& u : unexpected_failures)
    std::printf("UNEXPECTED FAILURE %s\n", u.c_str());
  for (const std::string& u : unexpected_passes)
    std::printf("UNEXPECTED PASS %s (remove it from expected_failures.txt)\n",
                u.c_str());
  for (const std::string& u : stale)
    std::printf("STALE EXPECTATION %s (no such program)\n", u.c_str());
  std::printf("conformance: %d passed, %d failed (%zu listed as expected)\n",
              passed, failed, expected.size());
  EXPECT_TRUE(unexpected_failures.empty())
      << unexpected_failures.size() << " programs fail that "
      << expectations_path << " does not list";
  EXPECT_TRUE(unexpected_passes.empty())
      << unexpected_passes.size()
      << " listed programs pass now: shrink the expectations file";
  EXPECT_TRUE(stale.empty()) << stale.size() << " stale expectations";
}

}  // namespace
