// Helpers shared by the HLO front-end tests: parse HLO or StableHLO text
// into owned modules, compare modules, round-trip through the HLO printer.
#ifndef HLX_TESTS_HLO_HLO_TEST_UTIL_H_
#define HLX_TESTS_HLO_HLO_TEST_UTIL_H_

#include <cstdlib>
#include <string>

#include "graph/hlo/hlo_parser.h"
#include "graph/hlo/hlo_printer.h"
#include "graph/ir/ir_equal.h"
#include "graph/stablehlo/parser.h"
#include "graph/stablehlo/printer.h"

namespace hlx_test {

// Owns a parsed module.
struct Module {
  hlx_module_t* m = nullptr;
  Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  ~Module() { hlx_module_destroy(m); }
  hlx_module_t* get() const { return m; }
};

inline std::string TakeMessage(hlx_status_t s) {
  std::string msg = s ? hlx_status_message(s) : "";
  hlx_status_free(s);
  return msg;
}

// HLO text -> module; "" or the error message.
inline std::string ParseHlo(const std::string& text, Module* out,
                            const char* file = "test.hlo") {
  hlx_module_destroy(out->m);
  out->m = nullptr;
  return TakeMessage(hlx_parse_hlo_module(text.data(), text.size(), file, 1, &out->m));
}

inline std::string ParseStableHlo(const std::string& text, Module* out) {
  hlx_module_destroy(out->m);
  out->m = nullptr;
  return TakeMessage(hlx_parse_module(text.data(), text.size(), "test.mlir", 1, &out->m));
}

// "" when equal, else the first difference.
inline std::string Diff(const hlx_module_t* a, const hlx_module_t* b) {
  char why[512] = "";
  return hlx_module_equal(a, b, why, sizeof why) ? "" : why;
}

inline std::string PrintHlo(const hlx_module_t* m, std::string* err = nullptr) {
  char* text = nullptr;
  size_t len = 0;
  hlx_status_t s = hlx_print_hlo_module(m, &text, &len);
  if (s) {
    if (err) *err = TakeMessage(s);
    else hlx_status_free(s);
    return "";
  }
  std::string r(text, len);
  free(text);
  return r;
}

inline std::string PrintStableHlo(const hlx_module_t* m) {
  char* text = nullptr;
  size_t len = 0;
  hlx_status_t s = hlx_print_module(m, &text, &len);
  if (s) return "<print failed: " + TakeMessage(s) + ">";
  std::string r(text, len);
  free(text);
  return r;
}

// HLO -> IR -> HLO text -> IR: "" when the two modules are equal and
// printing the second gives the same text, else what went wrong.
inline std::string HloRoundTrip(const hlx_module_t* m) {
  std::string err;
  std::string printed = PrintHlo(m, &err);
  if (!err.empty()) return "print failed: " + err;
  Module again;
  err = ParseHlo(printed, &again, "<printed>");
  if (!err.empty()) return "reparse failed: " + err + "\n" + printed;
  std::string d = Diff(m, again.get());
  if (!d.empty()) return "differs after the round trip: " + d + "\n" + printed;
  if (PrintHlo(again.get()) != printed) return "printing is not idempotent";
  return "";
}

}  // namespace hlx_test

#endif  // HLX_TESTS_HLO_HLO_TEST_UTIL_H_
