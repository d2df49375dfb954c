/* Runs the programs of a StableHLO test file the way `hlx check` and the
 * conformance suite do: every `// -----` part, every entry function, with
 * check.* ops deciding PASS or FAIL. */
#ifndef HLX_TOOLS_CHECK_RUNNER_H_
#define HLX_TOOLS_CHECK_RUNNER_H_

#include <stddef.h>

#include "api/hlx.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hlx_check_outcome_t {
  HLX_CHECK_PASS,
  HLX_CHECK_FAIL,  /* a check op did not hold */
  HLX_CHECK_ERROR, /* the program could not be parsed, compiled or run */
} hlx_check_outcome_t;

typedef struct hlx_check_result_t {
  const char* name;   /* "<display path>" or "<display path>#<part>" */
  hlx_check_outcome_t outcome;
  const char* detail; /* why, for FAIL and ERROR ("" for PASS) */
} hlx_check_result_t;

typedef void (*hlx_check_callback)(const hlx_check_result_t* r, void* user);

/* Checks every program of the file at `path`; `display_path` names it in
 * results. Calls cb once per program (once with ERROR if the file cannot be
 * read). Returns the number of programs that did not pass. */
int hlx_check_file(const char* path, const char* display_path,
                   hlx_check_callback cb, void* user);

/* Same for text already in memory. */
int hlx_check_text(const char* text, size_t len, const char* display_path,
                   hlx_check_callback cb, void* user);

const char* hlx_check_outcome_name(hlx_check_outcome_t o);

/* Version-2 host functions the programs of later checks are compiled with
 * (hlx check --custom-call-lib): borrowed, must outlive the checks; NULL
 * and 0 (the default) for none. Not thread-safe: set before checking. */
void hlx_check_set_host_functions(const hlx_host_function_v2_t* fns,
                                  int32_t n);
/* hlx_compile_options_init with those host functions (the checks' own
 * compiles, check_runner.c and check_dynamic.c). */
void hlx_check_compile_options_init(hlx_compile_options_t* o);

#ifdef __cplusplus
}
#endif

#endif /* HLX_TOOLS_CHECK_RUNNER_H_ */
