// Every HLO program of ../shared/hlo (XLA's own test inputs and a model
// from its CPU benchmark suite; $HLX_HLO_DIR overrides) must behave as
// hlo_expected_failures.txt says: parse, round-trip through HLO text and
// run on random inputs like the reference build (tools/check_hlo.h), unless
// listed with a reason. A listed program that passes must leave the list.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/data_paths.h"
#include "tests/expectations.h"

extern "C" {
#include "graph/stablehlo/parser.h"
#include "tools/check_hlo.h"
#include "tools/file_util.h"
}

namespace {

std::string HloDir() {
  const char* env = getenv("HLX_HLO_DIR");
  if (env && *env) return env;
  return hlx_test::SharedDir() + "/hlo";
}

std::string OneLine(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\t') c = ' ';
  return s.size() > 240 ? s.substr(0, 240) + "..." : s;
}

TEST(HloConformance, AllProgramsMatchExpectations) {
  const std::string dir = HloDir();
  ASSERT_TRUE(hlx_test::IsDir(dir))
      << "HLO programs not found in " << dir
      << " (put ../shared beside the checkout or set HLX_HLO_DIR)";
  auto expected = hlx_test::LoadExpectations(hlx_test::RepoRoot() +
                                   "/tests/hlo/hlo_expected_failures.txt");
  char** paths = nullptr;
  int n = 0;
  hlx_status_t s = hlx_list_program_files(dir.c_str(), &paths, &n);
  ASSERT_EQ(s, nullptr) << hlx_status_get_message(s);
  int passed = 0, failed = 0, skipped = 0;
  std::set<std::string> seen;
  std::vector<std::string> unexpected;
  for (int i = 0; i < n; i++) {
    std::string path = paths[i], rel = path.substr(dir.size() + 1);
    if (rel.size() < 4 || rel.compare(rel.size() - 4, 4, ".hlo") != 0) continue;
    char* text = nullptr;
    size_t len = 0;
    ASSERT_EQ(hlx_read_file(paths[i], &text, &len), nullptr) << path;
    int nc = hlx_split_programs(text, len, nullptr, 0);
    std::vector<hlx_text_chunk_t> chunks(nc);
    hlx_split_programs(text, len, chunks.data(), nc);
    for (int k = 0; k < nc; k++) {
      std::string name = nc == 1 ? rel : rel + "#" + std::to_string(k + 1);
      seen.insert(name);
      auto e = expected.find(name);
      bool listed = e != expected.end();
      bool skip_run = listed && e->second.rfind("skip-run:", 0) == 0;
      char* why = nullptr;
      hlx_check_outcome_t o = hlx_check_hlo(chunks[k].text, chunks[k].len,
                                            rel.c_str(), chunks[k].first_line,
                                            !skip_run, &why);
      bool ok = o == HLX_CHECK_PASS;
      std::printf("%s %s%s%s\n", hlx_check_outcome_name(o), name.c_str(),
                  why ? ": " : "", why ? OneLine(why).c_str() : "");
      skipped += skip_run;
      (ok ? passed : failed)++;
      if (!ok && (!listed || skip_run))
        unexpected.push_back("UNEXPECTED FAILURE " + name + ": " +
                             OneLine(why ? why : ""));
      if (ok && listed && !skip_run)
        unexpected.push_back("UNEXPECTED PASS " + name +
                             " (remove it from hlo_expected_failures.txt)");
      free(why);
    }
    free(text);
  }
  hlx_free_paths(paths, n);
  for (const auto& e : expected)
    if (!seen.count(e.first))
      unexpected.push_back("STALE EXPECTATION " + e.first + " (no such program)");
  for (const std::string& u : unexpected) std::printf("%s\n", u.c_str());
  std::printf("hlo conformance: %d passed (%d without running), %d failed "
              "(%zu listed)\n",
              passed, skipped, failed, expected.size());
  EXPECT_GT(passed + failed, 30) << "too few HLO programs in " << dir;
  EXPECT_TRUE(unexpected.empty()) << unexpected.size()
                                  << " programs differ from the expectations";
}

}  // namespace
