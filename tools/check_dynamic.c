/* `hlx check` of a shape-polymorphic program (JAX exports with symbolic
 * dims). Such test files are round-trip tests without data, so PASS means:
 *   (a) printing the program and parsing the print prints the same text;
 *   (b) with the leading scalar integer arguments (the dimension
 *       variables) and every `?` input dim bound to one small value v (3,
 *       else the first of 2, 4, 5, 1, 6 the program's types accept), and
 *       integer data in [0, v), the program specialises
 *       (hlx_program_specialize, which also checks the result shapes
 *       against the declared types), compiles and runs on deterministic
 *       random inputs, and its results equal those of the same specialised
 *       program compiled with the reference ISA and no fusion: bitwise for
 *       integers and bools, within 1e-3 absolute or relative for floats
 *       (check.expect_almost_eq's tolerance; NaN equals NaN). */
#include "tools/check_dynamic.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/dtype.h"
#include "base/status.h"
#include "tools/check_reference.h"
#include "tools/random_fill.h"

static char* fmt(const char* f, const char* a) {
  char buf[600];
  snprintf(buf, sizeof buf, f, a);
  return strdup(buf);
}

static bool round_trips(const hlx_program_t* p, char** why) {
  char* t1 = NULL;
  char* t2 = NULL;
  size_t l1 = 0, l2 = 0;
  hlx_program_t* q = NULL;
  hlx_status_t st = hlx_program_print(p, &t1, &l1);
  if (!st) st = hlx_program_parse(t1, l1, "<printed>", 1, &q);
  if (!st) st = hlx_program_print(q, &t2, &l2);
  bool ok = !st && l1 == l2 && memcmp(t1, t2, l1) == 0;
  if (st)
    *why = fmt("round trip: %s", hlx_status_get_message(st));
  else if (!ok)
    *why = strdup("round trip: the printed program parses to a program "
                  "that prints differently");
  hlx_status_release(st);
  hlx_program_destroy(q);
  free(t1);
  free(t2);
  return ok;
}

/* Integer data in [0, v): JAX's symbolic slices need starts in range
 * (real_dynamic_slice does not clamp), and indices stay in bounds. */
static void in_range(hlx_dtype_t t, void* data, size_t n, int64_t v) {
  size_t sz = hlx_dtype_size(t);
  for (size_t i = 0; i < n; i++) {
    uint64_t x = 0;
    memcpy(&x, (char*)data + i * sz, sz); /* little-endian */
    int64_t y = (int64_t)(x % (uint64_t)v);
    memcpy((char*)data + i * sz, &y, sz);
  }
}

/* Inputs with every `?` dim and dimension variable (JAX puts them first:
 * the leading scalar integer arguments) bound to v; the rest random. */
static hlx_status_t make_inputs(const hlx_program_t* p, const char* fn,
                                int32_t n, int64_t v, hlx_buffer_t** args) {
  bool leading = true;
  for (int32_t i = 0; i < n; i++) {
    hlx_tensor_desc_t d;
    HLX_RETURN_IF_ERROR(hlx_program_function_arg_desc(p, fn, i, &d));
    size_t count = 1;
    for (int32_t k = 0; k < d.rank; k++) {
      if (d.dims[k] < 0) d.dims[k] = v;
      count *= (size_t)d.dims[k];
    }
    HLX_RETURN_IF_ERROR(hlx_buffer_create(&d, NULL, &args[i]));
    void* data = (void*)hlx_buffer_data(args[i]);
    hlx_dtype_t t = (hlx_dtype_t)d.element_type;
    leading = leading && d.rank == 0 && hlx_dtype_is_int(t);
    if (leading) {
      int64_t w = v;
      memcpy(data, &w, hlx_dtype_size(t)); /* little-endian */
    } else {
      hlx_random_fill(t, data, count, 0xd15eed00u + (uint64_t)i);
      if (hlx_dtype_is_int(t)) in_range(t, data, count, v);
    }
  }
  return NULL;
}

hlx_check_outcome_t hlx_check_dynamic(const hlx_program_t* p, const char* fn,
                                      char** why) {
  *why = NULL;
  if (!round_trips(p, why)) return HLX_CHECK_FAIL;
  int32_t n = -1;
  for (int32_t i = 0; i < hlx_program_num_functions(p); i++)
    if (!strcmp(hlx_program_function_name(p, i), fn))
      n = hlx_program_function_num_args(p, i);
  if (n < 0) {
    *why = fmt("no function @%s", fn);
    return HLX_CHECK_ERROR;
  }
  static const int64_t kValues[] = {3, 2, 4, 5, 1, 6};
  hlx_program_t* q = NULL;
  hlx_buffer_t** args = calloc((size_t)n + 1, sizeof(*args));
  hlx_status_t first = NULL;
  for (size_t k = 0; args && k < sizeof kValues / sizeof kValues[0]; k++) {
    hlx_status_t st = make_inputs(p, fn, n, kValues[k], args);
    if (!st)
      st = hlx_program_specialize(p, fn, (const hlx_buffer_t* const*)args, n,
                                  &q);
    if (!st) break;
    /* Only inconsistent bindings are worth another value. */
    bool retry = hlx_status_get_code(st) == HLX_STATUS_INVALID_ARGUMENT;
    if (!first) first = st;
    else hlx_status_release(st);
    for (int32_t i = 0; i < n; i++) {
      hlx_buffer_destroy(args[i]);
      args[i] = NULL;
    }
    if (!retry) break;
  }
  if (!args || !q) {
    *why = first ? fmt("specialising: %s", hlx_status_get_message(first))
                 : strdup("out of memory");
    hlx_status_release(first);
    free(args);
    return HLX_CHECK_ERROR;
  }
  hlx_status_release(first);
  hlx_check_outcome_t out = hlx_check_against_reference(
      q, NULL, false, args, n, "specialised program", why);
  for (int32_t i = 0; i < n; i++) hlx_buffer_destroy(args[i]);
  free(args);
  hlx_program_destroy(q);
  return out;
}
