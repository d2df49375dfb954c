#include "tools/check_runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/hlx.h"
#include "base/status.h"
#include "graph/stablehlo/parser.h"
#include "tools/file_util.h"

const char* hlx_check_outcome_name(hlx_check_outcome_t o) {
  switch (o) {
    case HLX_CHECK_PASS: return "PASS";
    case HLX_CHECK_FAIL: return "FAIL";
    default: return "ERROR";
  }
}

static void report(hlx_check_callback cb, void* user, const char* name,
                   hlx_check_outcome_t o, const char* detail) {
  hlx_check_result_t r = {name, o, detail ? detail : ""};
  cb(&r, user);
}

/* Runs function `fn` (no arguments); returns the outcome, detail in *why
 * (malloc'd or NULL). */
static hlx_check_outcome_t run_function(const hlx_program_t* p, const char* fn,
                                        char** why) {
  *why = NULL;
  hlx_compile_options_t o;
  hlx_compile_options_init(&o);
  o.entry = fn;
  hlx_executable_t* e = NULL;
  hlx_status_t st = hlx_executable_create(p, &o, &e);
  if (!st && hlx_executable_num_params(e) > 0) {
    char buf[160];
    snprintf(buf, sizeof buf,
             "@%s takes %d inputs and the file gives none (nothing to check)",
             fn, hlx_executable_num_params(e));
    *why = strdup(buf);
    hlx_executable_destroy(e);
    return HLX_CHECK_ERROR;
  }
  int32_t nr = st ? 0 : hlx_executable_num_results(e);
  hlx_buffer_t** results = calloc((size_t)nr + 1, sizeof(hlx_buffer_t*));
  if (!st && !results) st = hlx_status_oom();
  if (!st) st = hlx_executable_run(e, NULL, 0, results, nr);
  for (int32_t i = 0; i < nr; i++) hlx_buffer_destroy(results[i]);
  free(results);
  hlx_executable_destroy(e);
  if (!st) return HLX_CHECK_PASS;
  hlx_check_outcome_t out =
      hlx_status_is_check_failure(st) ? HLX_CHECK_FAIL : HLX_CHECK_ERROR;
  *why = strdup(hlx_status_get_message(st));
  hlx_status_release(st);
  return out;
}

/* Whether the text has a check op (check.* or a @check.* custom call). */
static bool has_check_op(const char* text, size_t len) {
  const char* needles[] = {"check.expect", "check.eq"};
  for (size_t k = 0; k < 2; k++) {
    size_t nl = strlen(needles[k]);
    for (size_t i = 0; i + nl <= len; i++)
      if (memcmp(text + i, needles[k], nl) == 0) return true;
  }
  return false;
}

/* Whether the file's RUN lines verify the output with FileCheck. */
static bool uses_filecheck(const char* text, size_t len) {
  const char* p = text;
  const char* end = text + len;
  while (p < end) {
    const char* nl = memchr(p, '\n', (size_t)(end - p));
    size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
    if (l > 8 && memcmp(p, "// RUN:", 7) == 0) {
      for (size_t i = 0; i + 9 <= l; i++)
        if (memcmp(p + i, "FileCheck", 9) == 0) return true;
    }
    if (!nl) break;
    p = nl + 1;
  }
  return false;
}

/* The functions a test program runs: @main if present, else every public
 * function without arguments that no other function calls. */
static int check_program(const hlx_program_t* p, const char* name,
                         hlx_check_callback cb, void* user) {
  int32_t nf = hlx_program_num_functions(p);
  int ran = 0;
  hlx_check_outcome_t worst = HLX_CHECK_PASS;
  char* worst_why = NULL;
  for (int32_t i = 0; i < nf; i++) {
    const char* fn = hlx_program_function_name(p, i);
    bool is_main = strcmp(fn, "main") == 0;
    bool has_main = false;
    for (int32_t j = 0; j < nf; j++)
      if (strcmp(hlx_program_function_name(p, j), "main") == 0) has_main = true;
    if (has_main ? !is_main
                 : (!hlx_program_function_is_public(p, i) ||
                    hlx_program_function_num_args(p, i) != 0 ||
                    hlx_program_function_is_called(p, i)))
      continue;
    ran++;
    char* why;
    hlx_check_outcome_t o = run_function(p, fn, &why);
    if (o > worst) {
      worst = o;
      free(worst_why);
      worst_why = why;
    } else {
      free(why);
    }
  }
  if (!ran && nf == 0) {
    /* An empty module: parsing it was the whole test. */
    report(cb, user, name, HLX_CHECK_PASS, NULL);
    return 0;
  }
  if (!ran) {
    report(cb, user, name, HLX_CHECK_ERROR, "no entry function to run");
    return 1;
  }
  report(cb, user, name, worst, worst_why);
  free(worst_why);
  return worst != HLX_CHECK_PASS;
}

int hlx_check_text(const char* text, size_t len, const char* display_path,
                   hlx_check_callback cb, void* user) {
  int n = hlx_split_programs(text, len, NULL, 0);
  hlx_text_chunk_t* chunks = calloc((size_t)n + 1, sizeof(*chunks));
  if (!chunks) {
    report(cb, user, display_path, HLX_CHECK_ERROR, "out of memory");
    return 1;
  }
  hlx_split_programs(text, len, chunks, n);
  int failed = 0;
  bool filecheck = uses_filecheck(text, len);
  size_t name_len = strlen(display_path) + 16;
  char* name = malloc(name_len);
  for (int k = 0; k < n && name; k++) {
    if (n == 1)
      snprintf(name, name_len, "%s", display_path);
    else
      snprintf(name, name_len, "%s#%d", display_path, k + 1);
    hlx_program_t* p = NULL;
    hlx_status_t st = hlx_program_parse(chunks[k].text, chunks[k].len,
                                        display_path, chunks[k].first_line, &p);
    /* A program without check ops whose file compares the printed output
     * with FileCheck cannot be judged here: running it proves nothing. */
    if (!st && filecheck && !has_check_op(chunks[k].text, chunks[k].len) &&
        hlx_program_num_functions(p) > 0) {
      report(cb, user, name, HLX_CHECK_ERROR,
             "unsupported: the output is verified with FileCheck, which hlx "
             "check does not emulate");
      hlx_program_destroy(p);
      failed++;
      continue;
    }
    if (st) {
      report(cb, user, name, HLX_CHECK_ERROR, hlx_status_get_message(st));
      hlx_status_release(st);
      failed++;
      continue;
    }
    failed += check_program(p, name, cb, user);
    hlx_program_destroy(p);
  }
  free(name);
  free(chunks);
  return failed;
}

int hlx_check_file(const char* path, const char* display_path,
                   hlx_check_callback cb, void* user) {
  char* text = NULL;
  size_t len = 0;
  hlx_status_t st = hlx_read_file(path, &text, &len);
  if (st) {
    report(cb, user, display_path, HLX_CHECK_ERROR, hlx_status_get_message(st));
    hlx_status_release(st);
    return 1;
  }
  int failed = hlx_check_text(text, len, display_path, cb, user);
  free(text);
  return failed;
}
