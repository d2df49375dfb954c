// Helpers shared by the StableHLO front-end tests.
#ifndef HLX_TESTS_GRAPH_TEST_UTIL_H_
#define HLX_TESTS_GRAPH_TEST_UTIL_H_

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "graph/ir/ir_equal.h"
#include "graph/stablehlo/parser.h"
#include "graph/stablehlo/printer.h"

namespace hlx_test {

inline bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::ostringstream ss;
  ss << f.rdbuf();
  *out = ss.str();
  return true;
}

// All *.mlir files below dir (sorted, recursive).
inline void ListMlirFiles(const std::string& dir, std::vector<std::string>* out) {
  DIR* d = opendir(dir.c_str());
  if (!d) return;
  std::vector<std::string> names;
  while (struct dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n == "." || n == "..") continue;
    names.push_back(n);
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  for (const std::string& n : names) {
    std::string p = dir + "/" + n;
    struct stat st;
    if (stat(p.c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      ListMlirFiles(p, out);
    } else if (n.size() > 5 && n.compare(n.size() - 5, 5, ".mlir") == 0) {
      out->push_back(p);
    }
  }
}

inline std::vector<hlx_text_chunk_t> SplitPrograms(const std::string& text) {
  int n = hlx_split_programs(text.data(), text.size(), nullptr, 0);
  std::vector<hlx_text_chunk_t> chunks(n);
  hlx_split_programs(text.data(), text.size(), chunks.data(), n);
  return chunks;
}

// Owns a parsed module.
struct ModulePtr {
  hlx_module_t* m = nullptr;
  ModulePtr() = default;
  explicit ModulePtr(hlx_module_t* x) : m(x) {}
  ModulePtr(const ModulePtr&) = delete;
  ModulePtr& operator=(const ModulePtr&) = delete;
  ~ModulePtr() { hlx_module_destroy(m); }
  hlx_module_t* get() const { return m; }
};

// Parses text; on error returns false and the message in *err.
inline bool Parse(const std::string& text, ModulePtr* out, std::string* err,
                  const char* name = "test.mlir", int first_line = 1) {
  hlx_module_t* m = nullptr;
  hlx_status_t s = hlx_parse_module(text.data(), text.size(), name, first_line, &m);
  if (s) {
    if (err) *err = hlx_status_message(s);
    hlx_status_free(s);
    return false;
  }
  hlx_module_destroy(out->m);
  out->m = m;
  return true;
}

inline std::string Print(const hlx_module_t* m) {
  char* text = nullptr;
  size_t len = 0;
  hlx_status_t s = hlx_print_module(m, &text, &len);
  if (s) {
    std::string msg = std::string("<print failed: ") + hlx_status_message(s) + ">";
    hlx_status_free(s);
    return msg;
  }
  std::string r(text, len);
  free(text);
  return r;
}

// parse(print(m)) must equal m; returns "" or a description of the problem.
inline std::string RoundTrip(const hlx_module_t* m) {
  std::string printed = Print(m);
  ModulePtr again;
  std::string err;
  if (!Parse(printed, &again, &err, "<printed>"))
    return "reparse failed: " + err;
  char why[512];
  if (!hlx_module_equal(m, again.get(), why, sizeof why))
    return std::string("not equal after round trip: ") + why;
  std::string printed2 = Print(again.get());
  if (printed2 != printed) return "printing is not idempotent";
  return "";
}

}  // namespace hlx_test

#endif  // HLX_TESTS_GRAPH_TEST_UTIL_H_
