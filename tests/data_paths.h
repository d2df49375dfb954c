// Where the shared test data lives: $HLX_CONFORMANCE_DIR for the conformance
// programs, else ../shared beside the checkout. Inside a Bazel test the
// checkout is found by resolving the runfile link of //:WORKSPACE (tests that
// use these helpers list "//:WORKSPACE" in `data`).
#ifndef HLX_TESTS_DATA_PATHS_H_
#define HLX_TESTS_DATA_PATHS_H_

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <string>

namespace hlx_test {

// The checkout's root directory ("" if it cannot be found).
inline std::string RepoRoot() {
  const char* srcdir = getenv("TEST_SRCDIR");
  const char* ws = getenv("TEST_WORKSPACE");
  std::string candidates[] = {
      std::string(srcdir ? srcdir : ".") + "/" + (ws ? ws : "hlx") + "/WORKSPACE",
      "WORKSPACE",
  };
  for (const std::string& c : candidates) {
    char buf[PATH_MAX];
    if (realpath(c.c_str(), buf)) {
      std::string p(buf);
      return p.substr(0, p.rfind('/'));
    }
  }
  return "";
}

// ../shared beside the checkout.
inline std::string SharedDir() { return RepoRoot() + "/../shared"; }

// The StableHLO conformance programs (interpret/, testdata/).
inline std::string ConformanceDir() {
  const char* env = getenv("HLX_CONFORMANCE_DIR");
  if (env && *env) return env;
  return SharedDir() + "/conformance";
}

inline std::string ModelsDir() { return SharedDir() + "/models"; }

inline bool IsDir(const std::string& p) { return access(p.c_str(), R_OK | X_OK) == 0; }

}  // namespace hlx_test

#endif  // HLX_TESTS_DATA_PATHS_H_
