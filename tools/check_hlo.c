/* `hlx check` of XLA HLO text. HLO test files carry no expected values
 * (their CHECK lines are for XLA's own tools), so a module passes when:
 *   (a) it parses;
 *   (b) printed as HLO and parsed again it is the same program (the two
 *       print the same StableHLO generic text, which spells every op,
 *       attribute and type);
 *   (c) its entry runs on deterministic random inputs (seed 0x410 + i for
 *       parameter i, constants elided as `{...}` filled) and agrees with the
 *       reference build (tools/check_reference.h). */
#include "tools/check_hlo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/hlx.h"
#include "base/status.h"
#include "tools/check_reference.h"
#include "tools/random_fill.h"

static char* reason(const char* what, hlx_status_t st) {
  char buf[700];
  snprintf(buf, sizeof buf, "%s%s", what, st ? hlx_status_get_message(st) : "");
  hlx_status_release(st);
  return strdup(buf);
}

/* The first line where a and b differ, for the FAIL message. */
static char* first_difference(const char* a, const char* b) {
  int line = 1;
  size_t i = 0;
  while (a[i] && a[i] == b[i]) line += a[i++] == '\n';
  size_t s = i;
  while (s > 0 && a[s - 1] != '\n') s--;
  const char* e = strchr(a + s, '\n');
  int n = e ? (int)(e - (a + s)) : (int)strlen(a + s);
  char buf[400];
  snprintf(buf, sizeof buf,
           "round trip: the printed HLO parses to another program (StableHLO "
           "line %d: %.*s)",
           line, n > 200 ? 200 : n, a + s);
  return strdup(buf);
}

static hlx_check_outcome_t round_trip(const hlx_program_t* p, char** why) {
  char *hlo = NULL, *s1 = NULL, *s2 = NULL;
  size_t n = 0, n1 = 0, n2 = 0;
  hlx_program_t* q = NULL;
  hlx_check_outcome_t out = HLX_CHECK_PASS;
  hlx_status_t st = hlx_program_print_hlo(p, &hlo, &n);
  if (st) {
    *why = reason("printing as HLO: ", st);
    return HLX_CHECK_ERROR;
  }
  st = hlx_program_parse(hlo, n, "<printed HLO>", 1, &q);
  if (!st) st = hlx_program_print(p, &s1, &n1);
  if (!st) st = hlx_program_print(q, &s2, &n2);
  if (st) {
    *why = reason("round trip: ", st);
    out = HLX_CHECK_FAIL;
  } else if (n1 != n2 || memcmp(s1, s2, n1) != 0) {
    *why = first_difference(s1, s2);
    out = HLX_CHECK_FAIL;
  }
  hlx_program_destroy(q);
  free(hlo);
  free(s1);
  free(s2);
  return out;
}

static hlx_check_outcome_t run_entry(const hlx_program_t* p, char** why) {
  const char* entry = hlx_program_entry(p);
  int32_t n = -1;
  for (int32_t i = 0; entry && i < hlx_program_num_functions(p); i++)
    if (!strcmp(hlx_program_function_name(p, i), entry))
      n = hlx_program_function_num_args(p, i);
  if (n < 0) {
    *why = strdup("no entry function");
    return HLX_CHECK_ERROR;
  }
  hlx_buffer_t** args = calloc((size_t)n + 1, sizeof(*args));
  hlx_status_t st = args ? NULL : hlx_status_oom();
  for (int32_t i = 0; !st && i < n; i++) {
    hlx_tensor_desc_t d;
    st = hlx_program_function_arg_desc(p, entry, i, &d);
    if (!st) st = hlx_buffer_create(&d, NULL, &args[i]);
    size_t count = 1;
    for (int32_t k = 0; !st && k < d.rank; k++) count *= (size_t)d.dims[k];
    if (!st)
      hlx_random_fill((hlx_dtype_t)d.element_type,
                      (void*)hlx_buffer_data(args[i]), count,
                      0x410u + (uint64_t)i);
  }
  hlx_check_outcome_t out = HLX_CHECK_ERROR;
  if (st)
    *why = reason("inputs: ", st);
  else
    out = hlx_check_against_reference(p, NULL, true, args, n, "running", why);
  for (int32_t i = 0; args && i < n; i++) hlx_buffer_destroy(args[i]);
  free(args);
  return out;
}

hlx_check_outcome_t hlx_check_hlo(const char* text, size_t len,
                                  const char* file, int first_line, bool run,
                                  char** why) {
  *why = NULL;
  hlx_program_t* p = NULL;
  hlx_status_t st = hlx_program_parse(text, len, file, first_line, &p);
  if (st) {
    *why = reason("", st);
    return HLX_CHECK_ERROR;
  }
  hlx_check_outcome_t out = round_trip(p, why);
  if (out == HLX_CHECK_PASS && run) out = run_entry(p, why);
  hlx_program_destroy(p);
  return out;
}
