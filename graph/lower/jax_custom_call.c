/* custom_call targets of JAX's CPU exports that hlx runs itself, looked up
 * before the host functions: a table from target name to lowering. Here:
 * the table, the single-device identities (Sharding, SPMD*Shape,
 * annotate_device_placement), shape_assertion, and the helpers the target
 * files share (constant operands, backend_config fields, layouts). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "graph/lower/jax.h"
#include "kernels/sort.h"

hlx_status_t hlx_jax_error(const hlx_op_t* op, const char* target,
                           hlx_status_code_t code, const char* fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return hlx_op_error(op, code, "%s: %s", target, msg);
}

/* ---- Shared helpers ------------------------------------------------------- */

/* Integer element of type t at p, widened. */
static int64_t read_int(hlx_dtype_t t, const void* p) {
  bool s = hlx_dtype_is_signed_int(t);
  switch (hlx_dtype_size(t)) {
    case 1: return s ? (int64_t)*(const int8_t*)p : (int64_t)*(const uint8_t*)p;
    case 2: return s ? (int64_t)*(const int16_t*)p : (int64_t)*(const uint16_t*)p;
    case 4: return s ? (int64_t)*(const int32_t*)p : (int64_t)*(const uint32_t*)p;
    default: {
      int64_t v;
      memcpy(&v, p, 8);
      return v;
    }
  }
}


hlx_status_t hlx_jax_const_ints(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                const char* target, int i, const char* what,
                                int64_t* out, int32_t max, int32_t* count) {
  if (i >= op->num_operands)
    return hlx_jax_error(op, target, HLX_STATUS_INVALID_ARGUMENT,
                         "missing operand #%d (%s)", i, what);
  const hlx_type_t* t = hlx_static_tensor(op->operands[i]);
  hlx_value_slots_t s;
  HLX_RETURN_IF_ERROR(hlx_lower_slots_of(c, op->operands[i], &s));
  const void* data = s.n == 1 ? c->plan->slot_data[s.slots[0]] : NULL;
  if (!t || !data || !(hlx_dtype_is_int(t->dtype) || hlx_dtype_is_pred(t->dtype)))
    return hlx_jax_error(op, target, HLX_STATUS_UNIMPLEMENTED,
                         "operand #%d (%s) must be an integer known when the "
                         "program is compiled",
                         i, what);
  int64_t n = hlx_type_num_elements(t);
  if (!count) max = 1;
  if (n < 1 || n > max)
    return hlx_jax_error(op, target, HLX_STATUS_INVALID_ARGUMENT,
                         "operand #%d (%s) has %lld elements, expected %s%d",
                         i, what, (long long)n, count ? "at most " : "",
                         max);
  size_t es = hlx_dtype_size(t->dtype);
  for (int64_t k = 0; k < n; k++)
    out[k] = read_int(t->dtype, (const char*)data + (size_t)k * es);
  if (count) *count = (int32_t)n;
  return NULL;
}

hlx_status_t hlx_jax_config_int(const hlx_op_t* op, const char* target,
                                const char* name, int64_t* out,
                                bool* present) {
  *present = false;
  const hlx_attr_t* cfg = hlx_op_attr(op, "mhlo.backend_config");
  if (!cfg || cfg->kind != HLX_ATTR_DICT) cfg = hlx_op_attr(op, "backend_config");
  if (!cfg || cfg->kind != HLX_ATTR_DICT) return NULL;
  const hlx_attr_t* v = hlx_attr_dict_get(cfg, name);
  if (!v) return NULL;
  if (v->kind == HLX_ATTR_INT) *out = v->i;
  else if (v->kind == HLX_ATTR_BOOL) *out = v->b;
  else
    return hlx_jax_error(op, target, HLX_STATUS_INVALID_ARGUMENT,
                         "backend_config field '%s' must be an integer", name);
  *present = true;
  return NULL;
}

hlx_status_t hlx_jax_layout(hlx_lower_ctx_t* c, const hlx_op_t* op,
                            const char* target, bool results, int i,
                            const int64_t** m2m) {
  *m2m = NULL;
  const char* name = results ? "result_layouts" : "operand_layouts";
  const hlx_attr_t* ls = hlx_op_attr(op, name);
  if (!ls) return NULL;
  const hlx_value_t* v = results ? op->results[i] : op->operands[i];
  const hlx_type_t* t = hlx_static_tensor(v);
  int64_t perm[HLX_MAX_RANK];
  int32_t n = -1;
  if (ls->kind != HLX_ATTR_ARRAY ||
      ls->count != (results ? op->num_results : op->num_operands) || !t ||
      !hlx_attr_int_list(ls->items[i], perm, HLX_MAX_RANK, &n) ||
      n != t->rank)
    return hlx_jax_error(op, target, HLX_STATUS_INVALID_ARGUMENT,
                         "%s must give each %s a layout of its rank (entry "
                         "#%d)",
                         name, results ? "result" : "operand", i);
  bool seen[HLX_MAX_RANK] = {false};
  bool row_major = true;
  for (int32_t d = 0; d < n; d++) {
    if (perm[d] < 0 || perm[d] >= n || seen[perm[d]])
      return hlx_jax_error(op, target, HLX_STATUS_INVALID_ARGUMENT,
                           "%s entry #%d is not a permutation of 0..%d", name,
                           i, n - 1);
    seen[perm[d]] = true;
    row_major = row_major && perm[d] == n - 1 - d;
  }
  if (row_major) return NULL;
  int64_t* out = hlx_lower_alloc(c, sizeof(int64_t) * (size_t)(n ? n : 1));
  if (!out) return hlx_status_oom();
  memcpy(out, perm, sizeof(int64_t) * (size_t)n);
  *m2m = out;
  return NULL;
}

/* ---- Identities on one device --------------------------------------------- */

/* Sharding, SPMDFullToShardShape, SPMDShardToFullShape,
 * annotate_device_placement: on one device each result is its operand. */
static hlx_status_t lower_identity(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                   const char* target) {
  if (op->num_results > op->num_operands)
    return hlx_jax_error(op, target, HLX_STATUS_INVALID_ARGUMENT,
                         "has %d results for %d operands (an identity on one "
                         "device)",
                         op->num_results, op->num_operands);
  for (int32_t i = 0; i < op->num_results; i++) {
    if (!hlx_type_equal(op->operands[i]->type, op->results[i]->type))
      return hlx_jax_error(op, target, HLX_STATUS_UNIMPLEMENTED,
                           "result #%d's type differs from operand #%d's: "
                           "only one device (no sharding) is supported",
                           i, i);
    hlx_value_slots_t s;
    HLX_RETURN_IF_ERROR(hlx_lower_slots_of(c, op->operands[i], &s));
    HLX_RETURN_IF_ERROR(hlx_lower_alias(c, op->results[i], &s));
  }
  return NULL;
}

/* ---- shape_assertion ------------------------------------------------------- */

typedef struct assert_args_t {
  const char* message; /* error_message, with {0}, {1}: operands 1, 2, ... */
  int32_t num_values;
  hlx_dtype_t* dtypes;
} assert_args_t;

static hlx_status_t run_assert(const void* args, void* const* in,
                               void* const* out, hlx_run_ctx_t* ctx) {
  (void)out;
  (void)ctx;
  const assert_args_t* a = args;
  if (*(const uint8_t*)in[0]) return NULL;
  char msg[1024];
  size_t o = 0;
  for (const char* p = a->message; *p && o + 24 < sizeof msg; p++) {
    unsigned k;
    int used = 0;
    if (*p == '{' && sscanf(p, "{%u}%n", &k, &used) == 1 && used > 0 &&
        (int32_t)k < a->num_values) {
      o += (size_t)snprintf(msg + o, sizeof msg - o, "%" PRId64,
                            read_int(a->dtypes[k], in[k + 1]));
      p += used - 1;
      continue;
    }
    msg[o++] = *p;
  }
  msg[o] = 0;
  return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT, "shape_assertion: %s",
                         msg);
}

static hlx_status_t lower_shape_assertion(hlx_lower_ctx_t* c,
                                          const hlx_op_t* op,
                                          const char* target) {
  const hlx_type_t* p =
      op->num_operands >= 1 ? hlx_static_tensor(op->operands[0]) : NULL;
  if (!p || p->rank != 0 || p->dtype != HLX_DTYPE_PRED || op->num_results)
    return hlx_jax_error(op, target, HLX_STATUS_INVALID_ARGUMENT,
                         "takes a tensor<i1> predicate (then integer scalars "
                         "for the message) and has no results");
  assert_args_t* a = hlx_lower_alloc(c, sizeof *a);
  if (!a) return hlx_status_oom();
  const hlx_attr_t* m = hlx_op_attr(op, "error_message");
  a->message = m && m->kind == HLX_ATTR_STRING ? m->str : "assertion failed";
  a->num_values = op->num_operands - 1;
  a->dtypes = hlx_lower_alloc(c, sizeof(hlx_dtype_t) * (size_t)op->num_operands);
  if (!a->dtypes) return hlx_status_oom();
  for (int32_t i = 1; i < op->num_operands; i++) {
    const hlx_type_t* t = hlx_static_tensor(op->operands[i]);
    if (!t || t->rank != 0 || !hlx_dtype_is_int(t->dtype))
      return hlx_jax_error(op, target, HLX_STATUS_INVALID_ARGUMENT,
                           "operand #%d must be an integer scalar", i);
    a->dtypes[i - 1] = t->dtype;
  }
  int32_t *ins, nin;
  HLX_RETURN_IF_ERROR(hlx_lower_flatten(c, op, false, &ins, &nin));
  HLX_RETURN_IF_ERROR(hlx_lower_emit(c, op, run_assert, a, nin, ins, 0, NULL));
  hlx_plan_last_task_set_flags(c->plan, HLX_TASK_SIDE_EFFECT);
  return NULL;
}

/* ---- stablehlo.dynamic_top_k with static shapes ---------------------------- */

typedef struct top_k_args_t {
  hlx_dtype_t dtype;
  int64_t rows, n, k;
} top_k_args_t;

static hlx_status_t run_top_k(const void* args, void* const* in,
                              void* const* out, hlx_run_ctx_t* ctx) {
  (void)ctx;
  const top_k_args_t* a = args;
  return hlx_ref_top_k(a->dtype, a->rows, a->n, a->k, in[0], out[0], out[1]);
}

/* Shape-polymorphic programs get chlo.top_k from graph/passes/refine_shapes.c;
 * this takes the op when its shapes were static already. */
static hlx_status_t lower_dynamic_top_k(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                        const char* target) {
  const hlx_type_t* x =
      op->num_operands == 2 ? hlx_static_tensor(op->operands[0]) : NULL;
  const hlx_type_t* v =
      op->num_results == 2 ? hlx_static_tensor(op->results[0]) : NULL;
  const hlx_type_t* ix = v ? hlx_static_tensor(op->results[1]) : NULL;
  int64_t k;
  if (!x || !v || !ix || x->rank < 1 || x->quant)
    return hlx_jax_error(op, target, HLX_STATUS_INVALID_ARGUMENT,
                         "takes a static tensor and k, and returns values "
                         "and i32 indices");
  HLX_RETURN_IF_ERROR(hlx_jax_const_ints(c, op, target, 1, "k", &k, 1, NULL));
  bool ok = v->rank == x->rank && ix->rank == x->rank &&
            v->dtype == x->dtype && ix->dtype == HLX_DTYPE_S32 && k >= 0 &&
            k <= x->dims[x->rank - 1];
  for (int32_t d = 0; ok && d < x->rank; d++) {
    int64_t want = d == x->rank - 1 ? k : x->dims[d];
    ok = v->dims[d] == want && ix->dims[d] == want;
  }
  if (!ok)
    return hlx_jax_error(op, target, HLX_STATUS_INVALID_ARGUMENT,
                         "results must be operand.shape[:-1] + [k = %lld] "
                         "(values of the operand's type, i32 indices)",
                         (long long)k);
  top_k_args_t* a = hlx_lower_alloc(c, sizeof *a);
  if (!a) return hlx_status_oom();
  a->dtype = x->dtype;
  a->n = x->dims[x->rank - 1];
  a->k = k;
  a->rows = a->n ? hlx_type_num_elements(x) / a->n : 0;
  int32_t in, outs[2];
  HLX_RETURN_IF_ERROR(hlx_lower_in(c, op, 0, &in));
  HLX_RETURN_IF_ERROR(hlx_lower_out(c, op, 0, &outs[0]));
  HLX_RETURN_IF_ERROR(hlx_lower_out(c, op, 1, &outs[1]));
  return hlx_lower_emit(c, op, run_top_k, a, 1, &in, 2, outs);
}

/* ---- The table ------------------------------------------------------------- */

typedef hlx_status_t (*jax_lower_fn)(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                     const char* target);

static const struct {
  const char* name;
  jax_lower_fn fn;
} kTargets[] = {
    {"Sharding", lower_identity},
    {"SPMDFullToShardShape", lower_identity},
    {"SPMDShardToFullShape", lower_identity},
    {"annotate_device_placement", lower_identity},
    {"shape_assertion", lower_shape_assertion},
    {"stablehlo.dynamic_top_k", lower_dynamic_top_k},
    {"stablehlo.dynamic_approx_top_k", hlx_lower_jax_approx_top_k},
    {"ApproxTopK", hlx_lower_jax_approx_top_k},
    {"ducc_fft", hlx_lower_jax_ducc_fft},
    {"dynamic_ducc_fft", hlx_lower_jax_ducc_fft},
};

hlx_status_t hlx_lower_jax_custom_call(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                       const char* target, bool* handled) {
  *handled = true;
  for (size_t i = 0; i < sizeof kTargets / sizeof kTargets[0]; i++)
    if (strcmp(kTargets[i].name, target) == 0)
      return kTargets[i].fn(c, op, target);
  return hlx_lower_jax_lapack(c, op, target, handled);
}
