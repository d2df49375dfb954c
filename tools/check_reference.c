/* Results of the default build against the reference build's (see
 * check_reference.h). */
#include "tools/check_reference.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/dtype.h"
#include "base/float_formats.h"
#include "base/status.h"
#include "tools/check_runner.h"

static double elem(hlx_dtype_t t, const void* d, size_t i) {
  switch (t) {
    case HLX_DTYPE_F32:
      return ((const float*)d)[i];
    case HLX_DTYPE_F64:
      return ((const double*)d)[i];
    case HLX_DTYPE_C64:
      return ((const float*)d)[i];
    case HLX_DTYPE_C128:
      return ((const double*)d)[i];
    default: {
      size_t sz = hlx_dtype_size(t);
      uint32_t bits = 0;
      memcpy(&bits, (const char*)d + i * sz, sz < 4 ? sz : 4);
      return hlx_small_float_to_f64(t, bits);
    }
  }
}

/* Compares results; NULL when equal, else a malloc'd reason. */
static char* compare(const hlx_buffer_t* a, const hlx_buffer_t* b, int r) {
  const hlx_tensor_desc_t* da = hlx_buffer_desc(a);
  const hlx_tensor_desc_t* db = hlx_buffer_desc(b);
  char buf[300];
  if (da->rank != db->rank || da->element_type != db->element_type ||
      memcmp(da->dims, db->dims, sizeof(int64_t) * (size_t)da->rank)) {
    snprintf(buf, sizeof buf,
             "result %d: shapes differ from the reference "
             "build's",
             r);
    return strdup(buf);
  }
  hlx_dtype_t t = (hlx_dtype_t)da->element_type;
  const void* x = hlx_buffer_data(a);
  const void* y = hlx_buffer_data(b);
  if (!hlx_dtype_is_float(t) && !hlx_dtype_is_complex(t)) {
    if (hlx_buffer_bytes(a) != hlx_buffer_bytes(b) ||
        memcmp(x, y, hlx_buffer_bytes(a))) {
      snprintf(buf, sizeof buf,
               "result %d: %s values differ from the "
               "reference build's (bitwise)",
               r, hlx_dtype_name(t));
      return strdup(buf);
    }
    return NULL;
  }
  size_t n = 1;
  for (int32_t d = 0; d < da->rank; d++) n *= (size_t)da->dims[d];
  if (hlx_dtype_is_complex(t)) n *= 2;
  for (size_t i = 0; i < n; i++) {
    double u = elem(t, x, i), v = elem(t, y, i);
    if (isnan(u) && isnan(v)) continue;
    if (u == v) continue;
    double tol = 1e-3 * (fabs(v) > 1 ? fabs(v) : 1);
    if (!(fabs(u - v) <= tol)) {
      snprintf(buf, sizeof buf,
               "result %d element %zu: %.9g, the reference "
               "build gives %.9g",
               r, i, u, v);
      return strdup(buf);
    }
  }
  return NULL;
}

static hlx_status_t run_once(const hlx_program_t* q, const char* entry,
                             bool fill_elided, bool reference,
                             hlx_buffer_t** args, int32_t n,
                             hlx_buffer_t*** out, int32_t* nr) {
  hlx_compile_options_t o;
  hlx_check_compile_options_init(&o); /* with --custom-call-lib's functions */
  o.num_threads = 1;
  o.entry = entry;
  o.fill_elided = fill_elided;
  if (reference) {
    o.max_isa = "reference";
    o.fuse_elementwise = false;
  }
  hlx_executable_t* e = NULL;
  HLX_RETURN_IF_ERROR(hlx_executable_create(q, &o, &e));
  *nr = hlx_executable_num_results(e);
  *out = calloc((size_t)*nr + 1, sizeof(hlx_buffer_t*));
  hlx_status_t st =
      *out ? hlx_executable_run(e, args, n, *out, *nr) : hlx_status_oom();
  hlx_executable_destroy(e);
  return st;
}

static void free_bufs(hlx_buffer_t** b, int32_t n) {
  for (int32_t i = 0; b && i < n; i++) hlx_buffer_destroy(b[i]);
  free(b);
}

hlx_check_outcome_t hlx_check_against_reference(const hlx_program_t* q,
                                                const char* entry,
                                                bool fill_elided,
                                                hlx_buffer_t** args, int32_t n,
                                                const char* what, char** why) {
  *why = NULL;
  hlx_buffer_t** r1 = NULL;
  hlx_buffer_t** r2 = NULL;
  int32_t n1 = 0, n2 = 0;
  hlx_check_outcome_t out = HLX_CHECK_PASS;
  hlx_status_t st = run_once(q, entry, fill_elided, false, args, n, &r1, &n1);
  if (!st) st = run_once(q, entry, fill_elided, true, args, n, &r2, &n2);
  if (st) {
    char buf[700];
    snprintf(buf, sizeof buf, "%s: %s", what, hlx_status_get_message(st));
    *why = strdup(buf);
    out = hlx_status_is_check_failure(st) ? HLX_CHECK_FAIL : HLX_CHECK_ERROR;
    hlx_status_release(st);
  } else if (n1 != n2) {
    *why = strdup("result counts differ from the reference build's");
    out = HLX_CHECK_FAIL;
  } else {
    for (int32_t i = 0; i < n1 && !*why; i++) *why = compare(r1[i], r2[i], i);
    if (*why) out = HLX_CHECK_FAIL;
  }
  free_bufs(r1, n1);
  free_bufs(r2, n2);
  return out;
}
