/* hlx_executable_t: a program lowered to plans, ready to run many times. */
#include <stdlib.h>
#include <string.h>

#include "api/internal.h"

size_t hlx_internal_desc_bytes(const hlx_tensor_desc_t* d);

void hlx_compile_options_init(hlx_compile_options_t* o) {
  memset(o, 0, sizeof(*o));
  o->struct_size = sizeof(*o);
}

/* Appends the tensor leaves of t to descs (count in *n). */
static hlx_status_t add_leaves(const hlx_type_t* t, hlx_tensor_desc_t* descs,
                               int32_t* n, int32_t cap) {
  if (t->kind == HLX_TYPE_TUPLE) {
    for (int32_t i = 0; i < t->num_elems; i++)
      HLX_RETURN_IF_ERROR(add_leaves(t->elems[i], descs, n, cap));
    return NULL;
  }
  if (*n >= cap)
    return hlx_make_status(HLX_STATUS_INTERNAL, "too many tuple leaves");
  hlx_tensor_desc_t* d = &descs[(*n)++];
  memset(d, 0, sizeof(*d));
  if (t->kind == HLX_TYPE_TOKEN) {
    d->element_type = HLX_DTYPE_PRED; /* tokens are empty tensors */
    d->rank = 1;
    d->dims[0] = 0;
    return NULL;
  }
  if (t->rank > HLX_MAX_DIMS)
    return hlx_make_status(HLX_STATUS_UNIMPLEMENTED,
                           "unsupported: rank %d above %d", t->rank,
                           HLX_MAX_DIMS);
  d->element_type = t->dtype;
  d->rank = t->rank;
  /* dims may be NULL at rank 0 */
  if (t->rank)
    memcpy(d->dims, t->dims, sizeof(int64_t) * (size_t)t->rank);
  return NULL;
}

static int32_t count_leaves(const hlx_type_t* t) {
  if (t->kind != HLX_TYPE_TUPLE) return 1;
  int32_t n = 0;
  for (int32_t i = 0; i < t->num_elems; i++) n += count_leaves(t->elems[i]);
  return n;
}

hlx_status_t hlx_executable_create(const hlx_program_t* p,
                                   const hlx_compile_options_t* options,
                                   hlx_executable_t** out_executable) {
  *out_executable = NULL;
  hlx_compile_options_t o;
  hlx_compile_options_init(&o);
  if (options) {
    size_t n = options->struct_size < sizeof(o) ? options->struct_size
                                                : sizeof(o);
    memcpy(&o, options, n);
  }
  const char* entry = o.entry ? o.entry : hlx_program_entry(p);
  const hlx_func_t* f = entry ? hlx_module_find_func(p->module, entry) : NULL;
  if (!f)
    return hlx_make_status(HLX_STATUS_NOT_FOUND,
                           "hlx_executable_create: no function @%s",
                           entry ? entry : "(none)");
  hlx_executable_t* e = calloc(1, sizeof(*e));
  if (!e) return hlx_status_oom();
  e->program = p;
  hlx_lower_options_t lo = {.fill_elided = o.fill_elided};
  hlx_status_t st = hlx_lower_module(p->module, &lo, &e->lowered);
  if (!st) {
    e->plan = hlx_lowered_find(e->lowered, f->name);
    int32_t np = 0, nr = 0;
    for (int32_t i = 0; i < f->num_args; i++)
      np += count_leaves(f->body->blocks[0]->args[i]->type);
    for (int32_t i = 0; i < f->num_results; i++)
      nr += count_leaves(f->result_types[i]);
    e->params = calloc((size_t)np + 1, sizeof(hlx_tensor_desc_t));
    e->results = calloc((size_t)nr + 1, sizeof(hlx_tensor_desc_t));
    if (!e->params || !e->results) st = hlx_status_oom();
    for (int32_t i = 0; i < f->num_args && !st; i++)
      st = add_leaves(f->body->blocks[0]->args[i]->type, e->params,
                      &e->num_params, np);
    for (int32_t i = 0; i < f->num_results && !st; i++)
      st = add_leaves(f->result_types[i], e->results, &e->num_results, nr);
  }
  if (st) {
    hlx_executable_destroy(e);
    return st;
  }
  *out_executable = e;
  return NULL;
}

void hlx_executable_destroy(hlx_executable_t* e) {
  if (!e) return;
  hlx_lowered_module_destroy(e->lowered);
  free(e->params);
  free(e->results);
  free(e);
}

int32_t hlx_executable_num_params(const hlx_executable_t* e) {
  return e->num_params;
}
int32_t hlx_executable_num_results(const hlx_executable_t* e) {
  return e->num_results;
}

hlx_status_t hlx_executable_param_desc(const hlx_executable_t* e, int32_t i,
                                       hlx_tensor_desc_t* out_desc) {
  if (i < 0 || i >= e->num_params)
    return hlx_make_status(HLX_STATUS_OUT_OF_RANGE,
                           "parameter %d of %d does not exist", i,
                           e->num_params);
  *out_desc = e->params[i];
  return NULL;
}

hlx_status_t hlx_executable_result_desc(const hlx_executable_t* e, int32_t i,
                                        hlx_tensor_desc_t* out_desc) {
  if (i < 0 || i >= e->num_results)
    return hlx_make_status(HLX_STATUS_OUT_OF_RANGE,
                           "result %d of %d does not exist", i, e->num_results);
  *out_desc = e->results[i];
  return NULL;
}

static bool same_desc(const hlx_tensor_desc_t* a, const hlx_tensor_desc_t* b) {
  if (a->element_type != b->element_type || a->rank != b->rank) return false;
  for (int32_t i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i]) return false;
  return true;
}

hlx_status_t hlx_executable_run(const hlx_executable_t* e,
                                hlx_buffer_t* const* params,
                                int32_t num_params, hlx_buffer_t** out_results,
                                int32_t num_results) {
  for (int32_t i = 0; i < num_results; i++) out_results[i] = NULL;
  if (num_params != e->num_params || num_results != e->num_results)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "hlx_executable_run: @%s takes %d parameters and "
                           "gives %d results; called with %d and %d",
                           e->plan->name, e->num_params, e->num_results,
                           num_params, num_results);
  const void** in = calloc((size_t)num_params + 1, sizeof(void*));
  void** out = calloc((size_t)num_results + 1, sizeof(void*));
  hlx_status_t st = (!in || !out) ? hlx_status_oom() : NULL;
  for (int32_t i = 0; i < num_params && !st; i++) {
    if (!params[i] || !same_desc(&params[i]->desc, &e->params[i]))
      st = hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "hlx_executable_run: parameter %d does not match "
                           "@%s's argument type",
                           i, e->plan->name);
    else
      in[i] = params[i]->data;
  }
  for (int32_t i = 0; i < num_results && !st; i++) {
    st = hlx_buffer_create(&e->results[i], NULL, &out_results[i]);
    if (!st) out[i] = out_results[i]->data;
  }
  if (!st) {
    hlx_run_ctx_t ctx = {0};
    st = hlx_plan_execute(e->plan, in, out, &ctx);
  }
  if (st)
    for (int32_t i = 0; i < num_results; i++) {
      hlx_buffer_destroy(out_results[i]);
      out_results[i] = NULL;
    }
  free(in);
  free(out);
  return st;
}
