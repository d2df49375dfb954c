/* custom_call targets served by version-2 host functions (api/hlx.h's
 * hlx_host_function_v2_t). Lowering describes every operand and result
 * leaf (type, dims, the layout operand_layouts / result_layouts give) and
 * turns the op's attributes into dictionaries (host_attrs.c); a run
 * copies the operands into their declared layouts, calls the function
 * with one frame (graph/lower/host_call.h) and copies the results back, as the
 * JAX LAPACK targets do (hlx_jax_layout, hlx_layout_copy). */
#include <stdlib.h>
#include <string.h>

#include "graph/lower/host_call.h"
#include "graph/lower/jax.h"
#include "kernels/libs/lapack.h"

typedef struct host_v2_args_t {
  hlx_lower_host_function_t f;
  hlx_host_call_info_t info;
  size_t staging; /* bytes of the copies one call needs */
} host_v2_args_t;

enum { kLocalLeaves = 16 };

static size_t round64(size_t b) { return (b + 63) & ~(size_t)63; }

static hlx_status_t run_host_v2(const void* args, void* const* in,
                                void* const* out, hlx_run_ctx_t* ctx) {
  (void)ctx;
  const host_v2_args_t* a = args;
  const hlx_host_call_info_t* info = &a->info;
  int32_t n = info->num_in + info->num_out;
  void* local[kLocalLeaves];
  size_t ptrs = round64(sizeof(void*) * (size_t)n);
  bool heap = n > kLocalLeaves || a->staging;
  char* mem = heap ? malloc(ptrs + a->staging) : NULL;
  if (heap && !mem) return hlx_status_oom();
  void** data = heap ? (void**)mem : local;
  char* stage = heap ? mem + ptrs : NULL;
  for (int32_t i = 0; i < n; i++) {
    const hlx_host_leaf_t* l = &info->leaves[i];
    void* slot = i < info->num_in ? in[i] : out[i - info->num_in];
    data[i] = l->bytes ? slot : NULL;
    if (!l->layout || !l->bytes) continue;
    data[i] = stage;
    stage += round64(l->bytes);
    if (i < info->num_in)
      hlx_layout_copy(hlx_dtype_size(l->dtype), l->rank, l->dims, slot, NULL,
                      data[i], l->layout);
  }
  hlx_host_call_t call = {info, data};
  hlx_status_t st = a->f.fn_v2(a->f.user, &call);
  for (int32_t i = info->num_in; !st && i < n; i++) {
    const hlx_host_leaf_t* l = &info->leaves[i];
    if (l->layout && l->bytes)
      hlx_layout_copy(hlx_dtype_size(l->dtype), l->rank, l->dims, data[i],
                      l->layout, out[i - info->num_in], NULL);
  }
  free(mem);
  return st;
}

/* ---- Lowering -------------------------------------------------------------- */

/* Appends the leaves of type t (operand or result `index` of the op, or
 * part of it) at leaves[*k]; `layout` is that value's declared layout. */
static hlx_status_t add_leaves(const hlx_op_t* op, const char* target,
                               bool results, int32_t index,
                               const hlx_type_t* t, const int64_t* layout,
                               hlx_host_leaf_t* leaves, int32_t* k) {
  if (t->kind == HLX_TYPE_TUPLE) {
    for (int32_t i = 0; i < t->num_elems; i++)
      HLX_RETURN_IF_ERROR(add_leaves(op, target, results, index, t->elems[i],
                                     NULL, leaves, k));
    return NULL;
  }
  hlx_host_leaf_t* l = &leaves[(*k)++];
  static const int64_t kTokenDims[1] = {0};
  if (t->kind == HLX_TYPE_TOKEN) { /* an empty pred[0], as at the boundary */
    l->dtype = HLX_DTYPE_PRED;
    l->rank = 1;
    l->dims = kTokenDims;
    return NULL;
  }
  if (!hlx_type_is_static(t))
    return hlx_jax_error(op, target, HLX_STATUS_UNIMPLEMENTED,
                         "%s #%d is not a static tensor (specialise the "
                         "program first)",
                         results ? "result" : "operand", index);
  l->dtype = t->dtype;
  l->rank = t->rank;
  l->dims = t->dims;
  l->layout = layout;
  l->bytes = hlx_tensor_bytes(t);
  for (int32_t d = 0; d < t->rank; d++)
    l->m2m[d] = layout ? (int32_t)layout[d] : t->rank - 1 - d;
  return NULL;
}

/* Describes every operand (or result) leaf of op into leaves[*k...]. */
static hlx_status_t describe(hlx_lower_ctx_t* c, const hlx_op_t* op,
                             const char* target, bool results,
                             hlx_host_leaf_t* leaves, int32_t* k,
                             size_t* staging) {
  int32_t n = results ? op->num_results : op->num_operands;
  for (int32_t i = 0; i < n; i++) {
    const hlx_type_t* t = (results ? op->results[i] : op->operands[i])->type;
    const int64_t* layout = NULL;
    if (t->kind != HLX_TYPE_TOKEN)
      HLX_RETURN_IF_ERROR(hlx_jax_layout(c, op, target, results, i, &layout));
    int32_t first = *k;
    HLX_RETURN_IF_ERROR(
        add_leaves(op, target, results, i, t, layout, leaves, k));
    if (layout) *staging += round64(leaves[first].bytes);
  }
  return NULL;
}

hlx_status_t hlx_lower_host_call_v2(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                    const char* target,
                                    const hlx_lower_host_function_t* f) {
  host_v2_args_t* a = hlx_lower_alloc(c, sizeof *a);
  if (!a) return hlx_status_oom();
  memset(a, 0, sizeof *a);
  a->f = *f;
  hlx_host_call_info_t* info = &a->info;
  info->target = target;
  int32_t *ins, *outs, nin, nout;
  HLX_RETURN_IF_ERROR(hlx_lower_flatten(c, op, false, &ins, &nin));
  HLX_RETURN_IF_ERROR(hlx_lower_flatten(c, op, true, &outs, &nout));
  int32_t n = nin + nout;
  hlx_host_leaf_t* leaves =
      hlx_lower_alloc(c, sizeof *leaves * (size_t)(n + 1));
  if (!leaves) return hlx_status_oom();
  memset(leaves, 0, sizeof *leaves * (size_t)(n + 1));
  int32_t k = 0;
  HLX_RETURN_IF_ERROR(describe(c, op, target, false, leaves, &k, &a->staging));
  info->num_in = k;
  HLX_RETURN_IF_ERROR(describe(c, op, target, true, leaves, &k, &a->staging));
  info->num_out = k - info->num_in;
  info->leaves = leaves;
  HLX_RETURN_IF_ERROR(
      hlx_host_attrs_build(c, op, target, &info->attrs, &info->op_attrs));
  HLX_RETURN_IF_ERROR(
      hlx_lower_emit(c, op, run_host_v2, a, nin, ins, nout, outs));
  hlx_plan_last_task_set_flags(c->plan, HLX_TASK_SIDE_EFFECT);
  return NULL;
}
