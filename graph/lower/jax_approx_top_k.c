/* ApproxTopK and stablehlo.dynamic_approx_top_k (JAX's approx_max_k /
 * approx_min_k; the dynamic form once graph/passes/refine_shapes.c made its
 * shapes static). The approximate op may return exact results, and does
 * here as XLA's CPU fallback does: the inputs are sorted along
 * reduction_dim by the comparator function (called_computations), stably,
 * and each result keeps the first elements of its input (as many as the
 * result has along reduction_dim; past the input's size, the initial
 * value). A comparator that chains key compares (JAX's GT / LT on the
 * values) runs the native key sort; others run the function's plan per
 * comparison. */
#include <stdlib.h>
#include <string.h>

#include "graph/lower/jax.h"
#include "kernels/data_movement.h"
#include "kernels/sort.h"

enum { kMaxInputs = 16 };

typedef struct atk_args_t {
  int32_t n; /* inputs = initial values = results */
  int32_t rank, axis;
  int64_t dims[HLX_MAX_RANK]; /* the inputs' shape */
  int64_t out;                /* the results' size along axis */
  hlx_dtype_t dtypes[kMaxInputs];
  size_t es[kMaxInputs];
  int32_t num_keys; /* > 0: the native sort on keys */
  hlx_sort_key_t keys[HLX_SORT_MAX_KEYS];
  const hlx_lowered_module_t* lm; /* else: function #cmp's plan */
  int32_t cmp;
} atk_args_t;

/* Result k from its sorted input: the first elements along the axis, then
 * the initial value. */
static void keep(const atk_args_t* a, int32_t k, const char* sorted,
                 const void* init, char* dst) {
  size_t es = a->es[k];
  int64_t m = a->out < a->dims[a->axis] ? a->out : a->dims[a->axis];
  int64_t cd[HLX_MAX_RANK], is[HLX_MAX_RANK], os[HLX_MAX_RANK];
  int64_t si = 1, so = 1, outer = 1, inner = 1;
  for (int32_t d = a->rank - 1; d >= 0; d--) {
    cd[d] = d == a->axis ? m : a->dims[d];
    is[d] = si;
    os[d] = so;
    si *= a->dims[d];
    so *= d == a->axis ? a->out : a->dims[d];
    if (d < a->axis) outer *= a->dims[d];
    if (d > a->axis) inner *= a->dims[d];
  }
  hlx_ref_copy_strided(es, a->rank, cd, sorted, is, dst, os);
  for (int64_t o = 0; o < outer; o++)
    for (int64_t j = m; j < a->out; j++)
      hlx_ref_fill(es, init, dst + (size_t)((o * a->out + j) * inner) * es,
                   (size_t)inner);
}

static hlx_status_t run_approx_top_k(const void* args, void* const* in,
                                     void* const* out, hlx_run_ctx_t* ctx) {
  const atk_args_t* a = args;
  int64_t count = 1;
  for (int32_t d = 0; d < a->rank; d++) count *= a->dims[d];
  size_t total = 0;
  for (int32_t k = 0; k < a->n; k++) total += (size_t)count * a->es[k];
  char* mem = malloc(total ? total : 1);
  if (!mem) return hlx_status_oom();
  void* sorted[kMaxInputs];
  size_t off = 0;
  for (int32_t k = 0; k < a->n; k++) {
    sorted[k] = mem + off;
    off += (size_t)count * a->es[k];
  }
  const void* const* ins = (const void* const*)in;
  hlx_status_t st;
  if (a->num_keys) {
    st = hlx_ref_sort(a->n, a->dtypes, a->rank, a->dims, a->axis, a->keys,
                      a->num_keys, ins, sorted);
  } else {
    const void* params[2 * kMaxInputs];
    hlx_lower_plan_less_t less = {a->lm->plans[a->cmp], a->n, a->es, ins,
                                  params, ctx};
    st = hlx_ref_sort_custom(a->n, a->es, a->rank, a->dims, a->axis,
                             hlx_lower_plan_less, &less, ins, sorted);
  }
  for (int32_t k = 0; !st && k < a->n; k++)
    keep(a, k, sorted[k], in[a->n + k], out[k]);
  free(mem);
  return st;
}

/* ---- Lowering -------------------------------------------------------------- */

/* Inputs, initial values and results of op (n each) against input 0 and
 * reduction_dim rd; sets the shapes of a. */
static hlx_status_t check_types(const hlx_op_t* op, const char* target,
                                int32_t n, int64_t rd, atk_args_t* a) {
  const hlx_type_t* x = hlx_static_tensor(op->operands[0]);
  const hlx_type_t* r0 = hlx_static_tensor(op->results[0]);
  if (!x || !r0 || x->quant || rd < 0 || rd >= x->rank)
    return hlx_jax_error(op, target, HLX_STATUS_INVALID_ARGUMENT,
                         "input #0 and result #0 must be static tensors, "
                         "reduction_dim (%lld) one of the input's dims",
                         (long long)rd);
  a->n = n;
  a->rank = x->rank;
  a->axis = (int32_t)rd;
  memcpy(a->dims, x->dims, sizeof(int64_t) * (size_t)x->rank);
  a->out = r0->rank == x->rank ? r0->dims[rd] : -1;
  for (int32_t i = 0; i < n; i++) {
    const hlx_type_t* in = hlx_static_tensor(op->operands[i]);
    const hlx_type_t* init = hlx_static_tensor(op->operands[n + i]);
    const hlx_type_t* res = hlx_static_tensor(op->results[i]);
    bool ok = in && init && res && !in->quant && in->rank == x->rank &&
              init->rank == 0 && init->dtype == in->dtype &&
              res->dtype == in->dtype && res->rank == x->rank;
    for (int32_t d = 0; ok && d < x->rank; d++)
      ok = in->dims[d] == x->dims[d] &&
           res->dims[d] == (d == rd ? a->out : x->dims[d]);
    if (!ok)
      return hlx_jax_error(op, target, HLX_STATUS_INVALID_ARGUMENT,
                           "input #%d, initial value #%d and result #%d must "
                           "be: input #0's shape, a scalar, that shape with "
                           "dim %lld of the results' size, all of one "
                           "element type",
                           i, i, i, (long long)rd);
    a->dtypes[i] = in->dtype;
    a->es[i] = hlx_dtype_size(in->dtype);
  }
  return NULL;
}

/* The comparator: called_computations' one function, of 2n scalars of the
 * inputs' types to i1. */
static hlx_status_t comparator(hlx_lower_ctx_t* c, const hlx_op_t* op,
                               const char* target, atk_args_t* a) {
  const hlx_attr_t* cc = hlx_op_attr(op, "called_computations");
  if (!cc || cc->kind != HLX_ATTR_ARRAY || cc->count != 1 ||
      cc->items[0]->kind != HLX_ATTR_SYMBOL)
    return hlx_jax_error(op, target, HLX_STATUS_INVALID_ARGUMENT,
                         "called_computations must name one comparator");
  const hlx_module_t* m = c->lm->module;
  const char* name = cc->items[0]->str;
  a->cmp = -1;
  for (int32_t i = 0; i < m->num_funcs; i++)
    if (strcmp(m->funcs[i]->name, name) == 0) a->cmp = i;
  const hlx_func_t* f = a->cmp >= 0 ? m->funcs[a->cmp] : NULL;
  bool ok = f && f->num_args == 2 * a->n && f->num_results == 1 &&
            f->result_types[0]->kind == HLX_TYPE_TENSOR &&
            f->result_types[0]->rank == 0 &&
            f->result_types[0]->dtype == HLX_DTYPE_PRED;
  const hlx_block_t* b = ok ? f->body->blocks[0] : NULL;
  for (int32_t i = 0; ok && i < 2 * a->n; i++) {
    const hlx_type_t* t = b->args[i]->type;
    ok = t->kind == HLX_TYPE_TENSOR && t->rank == 0 && !t->quant &&
         t->dtype == a->dtypes[i / 2];
  }
  if (!ok)
    return hlx_jax_error(op, target, HLX_STATUS_INVALID_ARGUMENT,
                         "comparator @%s must be a function of %d scalars "
                         "(two per input, of its type) returning tensor<i1>",
                         name, 2 * a->n);
  a->lm = c->lm;
  if (!hlx_lower_sort_keys(b, a->keys, &a->num_keys)) a->num_keys = 0;
  return NULL;
}

hlx_status_t hlx_lower_jax_approx_top_k(hlx_lower_ctx_t* c,
                                        const hlx_op_t* op,
                                        const char* target) {
  bool dynamic = strcmp(target, "ApproxTopK") != 0;
  int32_t n = op->num_results;
  if (n < 1 || n > kMaxInputs || op->num_operands < 2 * n + dynamic)
    return hlx_jax_error(op, target, HLX_STATUS_INVALID_ARGUMENT,
                         "takes N inputs, N initial values%s and returns N "
                         "results (1 <= N <= %d)",
                         dynamic ? " and k" : "", kMaxInputs);
  /* The dynamic form's k (operand 2n) may be computed from arguments:
   * its results' shapes, refined from k or given, stand for it. */
  int64_t k = 0, rd = -1, aggregate = 1;
  bool has_k = dynamic, has_rd;
  if (!dynamic)
    HLX_RETURN_IF_ERROR(hlx_jax_config_int(op, target, "top_k", &k, &has_k));
  HLX_RETURN_IF_ERROR(
      hlx_jax_config_int(op, target, "reduction_dim", &rd, &has_rd));
  bool present;
  HLX_RETURN_IF_ERROR(hlx_jax_config_int(op, target, "aggregate_to_topk",
                                         &aggregate, &present));
  if (!has_k || !has_rd || k < 0)
    return hlx_jax_error(op, target, HLX_STATUS_INVALID_ARGUMENT,
                         "needs k >= 0%s and mhlo.backend_config's "
                         "reduction_dim",
                         dynamic ? "" : " (mhlo.backend_config's top_k)");
  atk_args_t* a = hlx_lower_alloc(c, sizeof *a);
  if (!a) return hlx_status_oom();
  memset(a, 0, sizeof *a);
  HLX_RETURN_IF_ERROR(check_types(op, target, n, rd, a));
  if (dynamic) k = a->out;
  if (a->out < 0 || (aggregate && a->out != k))
    return hlx_jax_error(op, target, HLX_STATUS_INVALID_ARGUMENT,
                         "the results must have k = %lld elements along "
                         "reduction_dim %lld (aggregate_to_topk), not %lld",
                         (long long)k, (long long)rd, (long long)a->out);
  HLX_RETURN_IF_ERROR(comparator(c, op, target, a));
  int32_t ins[2 * kMaxInputs], outs[kMaxInputs];
  for (int32_t i = 0; i < 2 * n; i++)
    HLX_RETURN_IF_ERROR(hlx_lower_in(c, op, i, &ins[i]));
  for (int32_t i = 0; i < n; i++)
    HLX_RETURN_IF_ERROR(hlx_lower_out(c, op, i, &outs[i]));
  return hlx_lower_emit(c, op, run_approx_top_k, a, 2 * n, ins, n, outs);
}
