// The body shared by the libFuzzer targets and the replay test.
#ifndef HLX_TESTS_FUZZ_FUZZ_TARGET_H_
#define HLX_TESTS_FUZZ_FUZZ_TARGET_H_

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" {
#include "base/status.h"
#include "graph/hlo/hlo_parser.h"
#include "graph/hlo/hlo_printer.h"
#include "graph/ir/ir.h"
#include "graph/ir/ir_equal.h"
#include "graph/lower/lower.h"
#include "graph/stablehlo/bytecode.h"
#include "graph/stablehlo/parser.h"
#include "graph/stablehlo/printer.h"
}

// A module's text form: StableHLO (generic form) or XLA HLO text.
struct hlx_fuzz_text_form_t {
  const char* name;
  hlx_status_t (*print)(const hlx_module_t*, char**, size_t*);
  hlx_status_t (*parse)(const char*, size_t, const char*, int, hlx_module_t**);
};

inline const hlx_fuzz_text_form_t* hlx_fuzz_stablehlo_form() {
  static const hlx_fuzz_text_form_t f = {"", hlx_print_module, hlx_parse_module};
  return &f;
}

inline const hlx_fuzz_text_form_t* hlx_fuzz_hlo_form() {
  static const hlx_fuzz_text_form_t f = {"HLO ", hlx_print_hlo_module,
                                         hlx_parse_hlo_module};
  return &f;
}

// Lowers m, prints it in `form` and parses the print: "" when that gives
// m again, else a description of the inconsistency. Destroys m.
inline std::string hlx_fuzz_check_module(hlx_module_t* m,
                                         const hlx_fuzz_text_form_t* form =
                                             hlx_fuzz_stablehlo_form()) {
  hlx_status_t s;
  std::string problem;
  hlx_lowered_module_t* lm = nullptr;
  hlx_lower_options_t lo = {};
  hlx_status_free(hlx_lower_module(m, &lo, &lm));
  hlx_lowered_module_destroy(lm);
  char* printed = nullptr;
  size_t len = 0;
  s = form->print(m, &printed, &len);
  if (s) {
    problem = std::string(form->name) + "print failed: " + hlx_status_message(s);
    hlx_status_free(s);
  } else {
    hlx_module_t* again = nullptr;
    s = form->parse(printed, len, "printed", 1, &again);
    if (s) {
      problem = std::string(form->name) + "printed text does not parse: " +
                hlx_status_message(s);
      hlx_status_free(s);
    } else {
      char why[512] = "";
      if (!hlx_module_equal(m, again, why, sizeof why))
        problem = std::string(form->name) + "round trip differs: " + why;
      hlx_module_destroy(again);
    }
  }
  free(printed);
  hlx_module_destroy(m);
  if (!problem.empty() && getenv("HLX_FUZZ_ABORT_ON_MISMATCH")) abort();
  return problem;
}

// Returns "" when the input round-trips (or is rejected cleanly), else a
// description of the inconsistency. Crashes are for the sanitizers to see.
// XLA HLO text goes through the HLO parser and printer.
inline std::string hlx_fuzz_one_input(const uint8_t* data, size_t size) {
  const char* text = reinterpret_cast<const char*>(data);
  const hlx_fuzz_text_form_t* form = hlx_text_is_hlo(text, size)
                                         ? hlx_fuzz_hlo_form()
                                         : hlx_fuzz_stablehlo_form();
  hlx_module_t* m = nullptr;
  hlx_status_t s = form->parse(text, size, "fuzz", 1, &m);
  if (s) {
    hlx_status_free(s);
    return "";
  }
  return hlx_fuzz_check_module(m, form);
}

// The same for MLIR bytecode: a module read from bytecode must lower
// without crashing and print to text that parses back to it.
inline std::string hlx_fuzz_bytecode_one_input(const uint8_t* data, size_t size) {
  hlx_module_t* m = nullptr;
  hlx_status_t s = hlx_parse_bytecode(data, size, "fuzz.mlirbc", &m);
  if (s) {
    hlx_status_free(s);
    return "";
  }
  return hlx_fuzz_check_module(m);
}

#endif  // HLX_TESTS_FUZZ_FUZZ_TARGET_H_
