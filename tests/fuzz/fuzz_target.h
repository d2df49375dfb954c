// The body shared by the libFuzzer target and the replay test.
#ifndef HLX_TESTS_FUZZ_FUZZ_TARGET_H_
#define HLX_TESTS_FUZZ_FUZZ_TARGET_H_

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" {
#include "base/status.h"
#include "graph/ir.h"
#include "graph/ir_equal.h"
#include "graph/lower.h"
#include "graph/stablehlo/bytecode.h"
#include "graph/stablehlo/parser.h"
#include "graph/stablehlo/printer.h"
}

// Lowers m, prints it and parses the print: "" when that gives m again,
// else a description of the inconsistency. Destroys m.
inline std::string hlx_fuzz_check_module(hlx_module_t* m) {
  hlx_status_t s;
  std::string problem;
  hlx_lowered_module_t* lm = nullptr;
  hlx_lower_options_t lo = {};
  hlx_status_free(hlx_lower_module(m, &lo, &lm));
  hlx_lowered_module_destroy(lm);
  char* printed = nullptr;
  size_t len = 0;
  s = hlx_print_module(m, &printed, &len);
  if (s) {
    problem = std::string("print failed: ") + hlx_status_message(s);
    hlx_status_free(s);
  } else {
    hlx_module_t* again = nullptr;
    s = hlx_parse_module(printed, len, "printed", 1, &again);
    if (s) {
      problem = std::string("printed text does not parse: ") +
                hlx_status_message(s);
      hlx_status_free(s);
    } else {
      char why[512] = "";
      if (!hlx_module_equal(m, again, why, sizeof why))
        problem = std::string("round trip differs: ") + why;
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
inline std::string hlx_fuzz_one_input(const uint8_t* data, size_t size) {
  const char* text = reinterpret_cast<const char*>(data);
  hlx_module_t* m = nullptr;
  hlx_status_t s = hlx_parse_module(text, size, "fuzz", 1, &m);
  if (s) {
    hlx_status_free(s);
    return "";
  }
  return hlx_fuzz_check_module(m);
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
