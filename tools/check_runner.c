#include "tools/check_runner.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/hlx.h"
#include "base/status.h"
#include "graph/hlo/hlo_parser.h"
#include "graph/stablehlo/parser.h"
#include "tools/check_dynamic.h"
#include "tools/check_hlo.h"
#include "tools/file_util.h"
#include "tools/filecheck.h"
#include "tools/tensor_text.h"

const char* hlx_check_outcome_name(hlx_check_outcome_t o) {
  switch (o) {
    case HLX_CHECK_PASS: return "PASS";
    case HLX_CHECK_FAIL: return "FAIL";
    default: return "ERROR";
  }
}

static const hlx_host_function_v2_t* g_host_functions;
static int32_t g_num_host_functions;

void hlx_check_set_host_functions(const hlx_host_function_v2_t* fns,
                                  int32_t n) {
  g_host_functions = fns;
  g_num_host_functions = fns ? n : 0;
}

void hlx_check_compile_options_init(hlx_compile_options_t* o) {
  hlx_compile_options_init(o);
  o->host_functions_v2 = g_host_functions;
  o->num_host_functions_v2 = g_num_host_functions;
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
  /* A shape-polymorphic program is checked specialised (check_dynamic.c). */
  if (hlx_program_function_is_dynamic(p, fn))
    return hlx_check_dynamic(p, fn, why);
  hlx_compile_options_t o;
  hlx_check_compile_options_init(&o);
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


/* ---- FileCheck-verified programs ----------------------------------------
 * Files whose RUN lines pipe `stablehlo-translate --interpret` into
 * FileCheck are verified by printing what the interpreter prints (each
 * result of the entry function, and `%name = ` + value for
 * interpreter.print) and matching the program's own directives with
 * tools/filecheck.c. RUN lines under `not` (they test the reference tool's
 * own error messages) are not emulated. */

typedef struct run_line_t {
  char prefix[64];
  bool dense;
  char* args; /* the --args="[...]" list, or NULL */
} run_line_t;

typedef struct text_buf_t {
  char* buf;
  size_t len, cap;
  pthread_mutex_t mu;
  bool dense;
  bool ok;
} text_buf_t;

/* Appends s to t (t->ok turns false on out of memory). */
static void append_str(text_buf_t* t, const char* s) {
  size_t n = strlen(s);
  if (!t->ok) return;
  if (t->len + n + 1 > t->cap) {
    size_t cap = t->cap * 2 + n + 64;
    char* g = realloc(t->buf, cap);
    if (!g) {
      t->ok = false;
      return;
    }
    t->buf = g;
    t->cap = cap;
  }
  memcpy(t->buf + t->len, s, n + 1);
  t->len += n;
}

/* One printed value: "%name = " (for interpreter.print) + tensor + "\n".
 * Serialised: processes of run_parallel print concurrently. */
static void append_tensor(text_buf_t* t, const char* name, hlx_dtype_t dt,
                          int32_t rank, const int64_t* dims, const void* data) {
  pthread_mutex_lock(&t->mu);
  if (name) {
    append_str(t, "%");
    append_str(t, name);
    append_str(t, " = ");
  }
  if (t->ok)
    t->ok = hlx_tensor_text(dt, rank, dims, data, t->dense, &t->buf, &t->len,
                            &t->cap);
  append_str(t, "\n");
  pthread_mutex_unlock(&t->mu);
}

static void on_print(void* user, const char* value_name,
                     const hlx_tensor_desc_t* d, const void* data) {
  append_tensor(user, value_name, (hlx_dtype_t)d->element_type, d->rank,
                d->dims, data);
}

/* The RUN lines this emulation understands. */
static int parse_run_lines(const char* text, size_t len, run_line_t* out,
                           int max) {
  int n = 0;
  const char* end = text + len;
  for (const char* p = text; p < end && n < max;) {
    const char* nl = memchr(p, '\n', (size_t)(end - p));
    size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
    char* line = strndup(p, l);
    p = nl ? nl + 1 : end;
    if (!line) break;
    const char* r = strstr(line, "// RUN:");
    if (r && strstr(line, "--interpret") && strstr(line, "FileCheck")) {
      r += 7;
      while (*r == ' ') r++;
      if (strncmp(r, "not ", 4) != 0) {
        run_line_t* rl = &out[n];
        memset(rl, 0, sizeof(*rl));
        snprintf(rl->prefix, sizeof rl->prefix, "CHECK");
        const char* cp = strstr(line, "--check-prefix");
        if (cp) {
          cp = strchr(cp, '=');
          if (cp) {
            cp++;
            size_t k = strcspn(cp, " ,");
            if (k < sizeof rl->prefix) {
              memcpy(rl->prefix, cp, k);
              rl->prefix[k] = 0;
            }
          }
        }
        rl->dense = strstr(line, "--interpreter-print-dense") != NULL;
        const char* a = strstr(line, "--args=\"");
        if (a) {
          a += 8;
          const char* q = strchr(a, '"');
          if (q) rl->args = strndup(a, (size_t)(q - a));
        }
        n++;
      }
    }
    free(line);
  }
  return n;
}

/* Builds buffers from an --args list "[dense<..> : tensor<..>, ...]" by
 * running a generated program that returns those constants. */
static hlx_status_t make_args(const char* list, hlx_buffer_t*** out, int32_t* n) {
  *out = NULL;
  *n = 0;
  const char* s = strchr(list, '[');
  const char* e = strrchr(list, ']');
  if (!s || !e || e < s)
    return hlx_status_create(HLX_STATUS_INVALID_ARGUMENT,
                             "--args must be a [...] list");
  /* Split at top-level commas. */
  size_t cap = 4096 + 4 * strlen(list);
  char* body = malloc(cap);
  char* types = malloc(cap);
  char* rets = malloc(cap);
  if (!body || !types || !rets) {
    free(body);
    free(types);
    free(rets);
    return hlx_status_create(HLX_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  }
  body[0] = types[0] = rets[0] = 0;
  int depth = 0, count = 0;
  const char* item = s + 1;
  for (const char* c = s + 1; c <= e; c++) {
    if (*c == '<' || *c == '[' || *c == '(') depth++;
    if ((*c == '>' || *c == ']' || *c == ')') && c != e) depth--;
    if ((c == e || (*c == ',' && depth == 0)) && c > item) {
      char* it = strndup(item, (size_t)(c - item));
      const char* colon = it ? strrchr(it, ':') : NULL;
      if (it && colon) {
        size_t bl = strlen(body), tl = strlen(types), rl = strlen(rets);
        snprintf(body + bl, cap - bl, "  %%a%d = stablehlo.constant %s\n",
                 count, it);
        snprintf(types + tl, cap - tl, "%s%s", count ? ", " : "", colon + 1);
        snprintf(rets + rl, cap - rl, "%s%%a%d", count ? ", " : "", count);
        count++;
      }
      free(it);
      item = c + 1;
    }
  }
  size_t tl = 3 * cap;
  char* text = malloc(tl);
  hlx_status_t st = NULL;
  if (!text) st = hlx_status_create(HLX_STATUS_RESOURCE_EXHAUSTED, "oom");
  else
    snprintf(text, tl,
             "func.func @main() -> (%s) {\n%s  return %s : %s\n}\n", types,
             body, rets, types);
  hlx_program_t* p = NULL;
  hlx_executable_t* x = NULL;
  if (!st) st = hlx_program_parse(text, strlen(text), "--args", 1, &p);
  if (!st) st = hlx_executable_create(p, NULL, &x);
  hlx_buffer_t** bufs = calloc((size_t)count + 1, sizeof(*bufs));
  if (!st && !bufs) st = hlx_status_create(HLX_STATUS_RESOURCE_EXHAUSTED, "oom");
  if (!st) st = hlx_executable_run(x, NULL, 0, bufs, count);
  hlx_executable_destroy(x);
  hlx_program_destroy(p);
  free(text);
  free(body);
  free(types);
  free(rets);
  if (st) {
    free(bufs);
    return st;
  }
  *out = bufs;
  *n = count;
  return NULL;
}

/* Runs fn as the interpreter would for one RUN line, printing into t. */
static hlx_status_t run_printing(const hlx_program_t* p, const char* fn,
                                 const run_line_t* rl, text_buf_t* t) {
  hlx_compile_options_t o;
  hlx_check_compile_options_init(&o);
  o.entry = fn;
  hlx_executable_t* e = NULL;
  hlx_buffer_t** args = NULL;
  int32_t nargs = 0;
  hlx_status_t st = hlx_executable_create(p, &o, &e);
  if (!st && rl->args) st = make_args(rl->args, &args, &nargs);
  if (!st && nargs != hlx_executable_num_params(e))
    st = hlx_status_create(HLX_STATUS_INVALID_ARGUMENT,
                           "the RUN line's --args do not match the entry's "
                           "parameters");
  int32_t nr = st ? 0 : hlx_executable_num_results(e);
  hlx_buffer_t** res = calloc((size_t)nr + 1, sizeof(*res));
  if (!st && !res) st = hlx_status_create(HLX_STATUS_RESOURCE_EXHAUSTED, "oom");
  if (!st) {
    hlx_run_options_t ro;
    hlx_run_options_init(&ro);
    ro.print = on_print;
    ro.user = t;
    st = hlx_executable_run_with_options(e, args, nargs, res, nr, &ro);
  }
  for (int32_t i = 0; !st && i < nr; i++) {
    const hlx_tensor_desc_t* d = hlx_buffer_desc(res[i]);
    append_tensor(t, NULL, (hlx_dtype_t)d->element_type, d->rank, d->dims,
                  hlx_buffer_data(res[i]));
  }
  for (int32_t i = 0; i < nr; i++) hlx_buffer_destroy(res[i]);
  for (int32_t i = 0; i < nargs; i++) hlx_buffer_destroy(args[i]);
  free(res);
  free(args);
  hlx_executable_destroy(e);
  return st;
}

/* PASS when every emulated RUN line's directives in this chunk match. */
static hlx_check_outcome_t filecheck_program(const hlx_program_t* p,
                                             const char* chunk, size_t clen,
                                             const run_line_t* runs, int nruns,
                                             char* why, size_t why_len) {
  int verified = 0;
  int32_t nf = hlx_program_num_functions(p);
  for (int r = 0; r < nruns; r++) {
    if (hlx_filecheck_count(chunk, clen, runs[r].prefix) == 0) continue;
    text_buf_t t = {NULL, 0, 0, PTHREAD_MUTEX_INITIALIZER, runs[r].dense, true};
    hlx_status_t st = NULL;
    for (int32_t i = 0; i < nf && !st; i++) {
      const char* fn = hlx_program_function_name(p, i);
      if (!hlx_program_function_is_public(p, i) ||
          hlx_program_function_is_called(p, i))
        continue;
      if (hlx_program_function_num_args(p, i) != 0 && !runs[r].args) continue;
      st = run_printing(p, fn, &runs[r], &t);
    }
    if (st) {
      snprintf(why, why_len, "%s", hlx_status_get_message(st));
      hlx_status_release(st);
      free(t.buf);
      return HLX_CHECK_ERROR;
    }
    bool ok = t.ok && hlx_filecheck(chunk, clen, runs[r].prefix,
                                    t.buf ? t.buf : "", why, why_len);
    free(t.buf);
    pthread_mutex_destroy(&t.mu);
    if (!ok) return HLX_CHECK_FAIL;
    verified++;
  }
  if (!verified) {
    snprintf(why, why_len,
             "unsupported: the output is verified with FileCheck and no RUN "
             "line could be emulated");
    return HLX_CHECK_ERROR;
  }
  return HLX_CHECK_PASS;
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
  run_line_t runs[8];
  int nruns = filecheck ? parse_run_lines(text, len, runs, 8) : 0;
  size_t name_len = strlen(display_path) + 16;
  char* name = malloc(name_len);
  for (int k = 0; k < n && name; k++) {
    if (n == 1)
      snprintf(name, name_len, "%s", display_path);
    else
      snprintf(name, name_len, "%s#%d", display_path, k + 1);
    if (hlx_text_is_hlo(chunks[k].text, chunks[k].len)) {
      /* XLA HLO text: parse, round trip, run against the reference build
       * (tools/check_hlo.h); its CHECK lines are for XLA's tools. */
      char* why = NULL;
      hlx_check_outcome_t o =
          hlx_check_hlo(chunks[k].text, chunks[k].len, display_path,
                        chunks[k].first_line, true, &why);
      report(cb, user, name, o, why);
      free(why);
      failed += o != HLX_CHECK_PASS;
      continue;
    }
    hlx_program_t* p = NULL;
    hlx_status_t st = hlx_program_parse(chunks[k].text, chunks[k].len,
                                        display_path, chunks[k].first_line, &p);
    /* A program without check ops whose file compares the printed output
     * with FileCheck is judged by that comparison. */
    if (!st && filecheck && !has_check_op(chunks[k].text, chunks[k].len) &&
        hlx_program_num_functions(p) > 0) {
      char why[512] = "";
      hlx_check_outcome_t o = filecheck_program(
          p, chunks[k].text, chunks[k].len, runs, nruns, why, sizeof why);
      report(cb, user, name, o, why);
      hlx_program_destroy(p);
      failed += o != HLX_CHECK_PASS;
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
  for (int r = 0; r < nruns; r++) free(runs[r].args);
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
