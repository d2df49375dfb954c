/* Host functions: the compile options' version-1 and version-2 lists
 * copied into the lowering's table, and the registry of version-2
 * functions that libraries loaded by the hlx tool fill. */
#include <stdlib.h>
#include <string.h>

#include "api/internal.h"

/* ---- Compile options ----------------------------------------------------- */

/* Appends a copy of `name` to fns (a version-2 function's name must be
 * new; version-1 lists keep their first-wins duplicates). */
static hlx_status_t add_function(hlx_lower_host_function_t* fns, int32_t* n,
                                 const char* name, bool has_fn, bool v2,
                                 int32_t index) {
  if (!name || !has_fn)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "hlx_executable_create: host_functions%s[%d] has "
                           "no name or no function",
                           v2 ? "_v2" : "", index);
  for (int32_t i = 0; v2 && i < *n; i++)
    if (strcmp(fns[i].name, name) == 0)
      return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                             "hlx_executable_create: host function '%s' is "
                             "registered twice",
                             name);
  fns[*n].name = strdup(name);
  if (!fns[*n].name) return hlx_status_oom();
  (*n)++;
  return NULL;
}

hlx_status_t hlx_internal_host_functions(const hlx_compile_options_t* o,
                                         hlx_lower_host_function_t** out,
                                         int32_t* out_n) {
  *out = NULL;
  *out_n = 0;
  int32_t n1 = o->num_host_functions, n2 = o->num_host_functions_v2;
  if (n1 < 0 || (n1 > 0 && !o->host_functions) || n2 < 0 ||
      (n2 > 0 && !o->host_functions_v2))
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "hlx_executable_create: host_functions(_v2) is "
                           "NULL or num_host_functions(_v2) is negative");
  if (n1 + n2 == 0) return NULL;
  hlx_lower_host_function_t* fns = calloc((size_t)n1 + (size_t)n2,
                                          sizeof *fns);
  if (!fns) return hlx_status_oom();
  hlx_status_t st = NULL;
  int32_t n = 0;
  for (int32_t i = 0; !st && i < n1; i++) {
    const hlx_host_function_t* h = &o->host_functions[i];
    st = add_function(fns, &n, h->name, h->fn != NULL, false, i);
    if (!st) {
      fns[n - 1].fn = h->fn;
      fns[n - 1].user = h->user;
    }
  }
  for (int32_t i = 0; !st && i < n2; i++) {
    const hlx_host_function_v2_t* h = &o->host_functions_v2[i];
    st = add_function(fns, &n, h->name, h->fn != NULL, true, i);
    if (!st) {
      fns[n - 1].fn_v2 = h->fn;
      fns[n - 1].user = h->user;
    }
  }
  if (st) {
    hlx_internal_host_functions_free(fns, n);
    return st;
  }
  *out = fns;
  *out_n = n;
  return NULL;
}

void hlx_internal_host_functions_free(hlx_lower_host_function_t* fns,
                                      int32_t n) {
  for (int32_t i = 0; fns && i < n; i++) free((char*)fns[i].name);
  free(fns);
}

/* ---- The registry -------------------------------------------------------- */

struct hlx_host_function_registry_t {
  hlx_host_function_v2_t* fns; /* names owned */
  int32_t n, cap;
};

hlx_status_t hlx_host_function_registry_create(
    hlx_host_function_registry_t** out_registry) {
  if (!out_registry)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "hlx_host_function_registry_create: "
                           "out_registry is NULL");
  *out_registry = calloc(1, sizeof **out_registry);
  return *out_registry ? NULL : hlx_status_oom();
}

void hlx_host_function_registry_destroy(hlx_host_function_registry_t* r) {
  if (!r) return;
  for (int32_t i = 0; i < r->n; i++) free((char*)r->fns[i].name);
  free(r->fns);
  free(r);
}

hlx_status_t hlx_host_function_registry_add(hlx_host_function_registry_t* r,
                                            const hlx_host_function_v2_t* f) {
  if (!r || !f || !f->name || !f->fn)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "hlx_host_function_registry_add: registry, "
                           "function, name or fn is NULL");
  for (int32_t i = 0; i < r->n; i++)
    if (strcmp(r->fns[i].name, f->name) == 0)
      return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                             "hlx_host_function_registry_add: '%s' is "
                             "registered already",
                             f->name);
  if (r->n == r->cap) {
    int32_t cap = r->cap ? 2 * r->cap : 8;
    hlx_host_function_v2_t* g = realloc(r->fns, sizeof *g * (size_t)cap);
    if (!g) return hlx_status_oom();
    r->fns = g;
    r->cap = cap;
  }
  char* name = strdup(f->name);
  if (!name) return hlx_status_oom();
  r->fns[r->n] = *f;
  r->fns[r->n++].name = name;
  return NULL;
}

const hlx_host_function_v2_t* hlx_host_function_registry_functions(
    const hlx_host_function_registry_t* r, int32_t* out_count) {
  if (out_count) *out_count = r ? r->n : 0;
  return r ? r->fns : NULL;
}
