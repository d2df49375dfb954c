/* reduce_window and select_and_scatter.
 *
 * reduce_window: a single input whose body is a recognised combiner (add,
 * max, ...) runs hlx_ref_reduce_window; any other body (variadic argmin,
 * custom regions) becomes a sub-plan applied per window element in
 * row-major order, holes (padding, base dilation) contributing the init
 * values, exactly as the spec's pad-then-reduce definition. A combiner
 * over a cumulative window (JAX's cumsum / cumprod / cummax / cummin and
 * their reverse variants) runs the linear-time scan (kernels/scan.h)
 * instead, falling back to the reference at run time when the init value
 * is not idempotent.
 *
 * select_and_scatter: a select region that is one compare of its two
 * arguments runs hlx_ref_window_select, a combiner scatter region runs
 * hlx_ref_scatter_selected; other regions run as sub-plans. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/lower/ctx.h"
#include "graph/lower/region_match.h"
#include "kernels/dispatch.h" /* hlx_reduce_window, hlx_window_select */
#include "kernels/scan.h"
#include "kernels/window.h"

/* ---- shared helpers ------------------------------------------------------ */

typedef struct region_call_t {
  const hlx_plan_t* plan;
  int32_t first_capture; /* index of its first capture among task inputs */
  int32_t num_captures;
} region_call_t;

/* Lowers region r; appends its captured values' slots to ins[*n...]. */
static hlx_status_t lower_region_call(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                      const hlx_region_t* r, const char* which,
                                      region_call_t* rc, int32_t** ins,
                                      int32_t* n, int32_t* cap) {
  hlx_plan_t* plan;
  const hlx_value_t** caps;
  int32_t ncap;
  hlx_status_t st = hlx_lower_region(c, r, &plan, &caps, &ncap);
  if (st) {
    char where[256];
    return hlx_status_annotate(st, "in the %s region of %s", which,
                               hlx_op_where(op, where, sizeof where));
  }
  rc->plan = plan;
  rc->first_capture = *n;
  rc->num_captures = 0;
  for (int32_t i = 0; i < ncap; i++) {
    hlx_value_slots_t s;
    HLX_RETURN_IF_ERROR(hlx_lower_slots_of(c, caps[i], &s));
    if (s.n < 0)
      return hlx_op_error(op, HLX_STATUS_INTERNAL,
                          "%s region captures an unavailable value", which);
    if (*n + s.n > *cap) {
      int32_t nc = (*n + s.n) * 2 + 8;
      int32_t* grown = hlx_lower_alloc(c, (size_t)nc * 4);
      if (!grown) return hlx_status_oom();
      memcpy(grown, *ins, (size_t)*n * 4);
      *ins = grown;
      *cap = nc;
    }
    for (int32_t j = 0; j < s.n; j++) (*ins)[(*n)++] = s.slots[j];
    rc->num_captures += s.n;
  }
  return NULL;
}

/* Runs a region with explicit params followed by its captures. `params`
 * has room for ne + captures entries. */
static hlx_status_t call_region(const region_call_t* rc, const void** params,
                                int32_t ne, void* const* task_in,
                                void* const* results, hlx_run_ctx_t* ctx) {
  for (int32_t i = 0; i < rc->num_captures; i++)
    params[ne + i] = task_in[rc->first_capture + i];
  return hlx_plan_execute(rc->plan, params, results, ctx);
}

/* Checks that region r takes `nargs` rank-0 tensors of arg_types and
 * returns `nres` rank-0 tensors of res_types (rule text names the
 * constraint). */
static hlx_status_t check_region(const hlx_op_t* op, const hlx_region_t* r,
                                 const char* which, const char* rule,
                                 int32_t nargs, const hlx_dtype_t* arg_types,
                                 int32_t nres, const hlx_dtype_t* res_types) {
  if (!r || r->num_blocks != 1 || r->blocks[0]->num_ops < 1)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "%s: %s region must have one block", rule, which);
  const hlx_block_t* b = r->blocks[0];
  if (b->num_args != nargs)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "%s: %s region takes %d arguments, expected %d", rule,
                        which, b->num_args, nargs);
  for (int32_t i = 0; i < nargs; i++) {
    const hlx_type_t* t = b->args[i]->type;
    if (t->kind != HLX_TYPE_TENSOR || t->rank != 0 || t->quant ||
        t->dtype != arg_types[i])
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "%s: %s region argument #%d must be tensor<%s>",
                          rule, which, i, hlx_dtype_name(arg_types[i]));
  }
  const hlx_op_t* ret = b->ops[b->num_ops - 1];
  if (ret->num_operands != nres)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "%s: %s region returns %d values, expected %d", rule,
                        which, ret->num_operands, nres);
  for (int32_t i = 0; i < nres; i++) {
    const hlx_type_t* t = ret->operands[i]->type;
    if (t->kind != HLX_TYPE_TENSOR || t->rank != 0 || t->quant ||
        t->dtype != res_types[i])
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "%s: %s region result #%d must be tensor<%s>", rule,
                          which, i, hlx_dtype_name(res_types[i]));
  }
  return NULL;
}

/* Reads an optional per-dimension array attribute (default `dflt`), each
 * value >= min_value. */
static hlx_status_t dim_array(const hlx_op_t* op, const char* name,
                              int32_t rank, int64_t dflt, int64_t min_value,
                              const char* size_rule, const char* value_rule,
                              bool required, int64_t* out) {
  const int64_t* v;
  int32_t n;
  HLX_RETURN_IF_ERROR(hlx_attr_i64_array(op, name, required, &v, &n));
  if (!v) {
    for (int32_t d = 0; d < rank; d++) out[d] = dflt;
    return NULL;
  }
  if (n != rank)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "%s: size(%s) = %d must equal rank(inputs[0]) = %d",
                        size_rule, name, n, rank);
  for (int32_t d = 0; d < rank; d++) {
    if (v[d] < min_value)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "%s: %s[%d] = %lld must be >= %lld", value_rule,
                          name, d, (long long)v[d], (long long)min_value);
    out[d] = v[d];
  }
  return NULL;
}

/* padding: DENSE [rank, 2] (or a flat array of 2*rank); default zeros. */
static hlx_status_t padding_attr(const hlx_op_t* op, int32_t rank,
                                 const char* rule, int64_t* lo, int64_t* hi) {
  const hlx_attr_t* a = hlx_op_attr(op, "padding");
  for (int32_t d = 0; d < rank; d++) lo[d] = hi[d] = 0;
  if (!a) return NULL;
  const int64_t* v;
  int32_t n;
  HLX_RETURN_IF_ERROR(hlx_attr_i64_array(op, "padding", true, &v, &n));
  bool shape_ok = n == 2 * rank;
  if (a->kind == HLX_ATTR_DENSE && a->type)
    shape_ok = shape_ok && a->type->rank == 2 && a->type->dims[0] == rank &&
               a->type->dims[1] == 2;
  if (!shape_ok)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "%s: shape(padding) must be [%d, 2]", rule, rank);
  for (int32_t d = 0; d < rank; d++) {
    lo[d] = v[2 * d];
    hi[d] = v[2 * d + 1];
  }
  return NULL;
}

/* ---- reduce_window -------------------------------------------------------- */

typedef struct rw_kernel_args_t {
  hlx_reduce_op_t op;
  hlx_dtype_t dtype;
  hlx_window_t w;
} rw_kernel_args_t;

static hlx_status_t run_reduce_window(const void* args, void* const* in,
                                      void* const* out, hlx_run_ctx_t* ctx) {
  (void)ctx;
  const rw_kernel_args_t* a = args;
  if (!hlx_reduce_window(a->op, a->dtype, &a->w, in[0], in[1], out[0]))
    return hlx_status_oom();
  return NULL;
}

typedef struct rw_scan_args_t {
  rw_kernel_args_t k; /* the fallback */
  hlx_scan_t s;
} rw_scan_args_t;

static hlx_status_t run_scan(const void* args, void* const* in,
                             void* const* out, hlx_run_ctx_t* ctx) {
  const rw_scan_args_t* a = args;
  if (hlx_scan(a->k.op, a->k.dtype, &a->s, in[0], in[1], out[0],
               ctx->parallel))
    return NULL;
  return run_reduce_window(&a->k, in, out, ctx);
}

typedef struct rw_region_args_t {
  int32_t n;
  hlx_window_t w;
  size_t elem_size[64];
  region_call_t body;
} rw_region_args_t;

static hlx_status_t run_reduce_window_region(const void* args,
                                             void* const* in,
                                             void* const* out,
                                             hlx_run_ctx_t* ctx) {
  const rw_region_args_t* a = args;
  const hlx_window_t* w = &a->w;
  int32_t n = a->n;
  int64_t n_out = hlx_window_out_count(w), total = hlx_window_size(w);
  if (n_out == 0) return NULL;
  size_t tab_n = 1;
  for (int32_t d = 0; d < w->rank; d++)
    tab_n += (size_t)(w->out_dims[d] * w->window[d]);
  int64_t* storage = malloc(tab_n * sizeof(int64_t));
  int64_t* offs = malloc(((size_t)total + 1) * sizeof(int64_t));
  unsigned char* acc = malloc(2 * 16 * (size_t)n);
  const void** params =
      malloc((2 * (size_t)n + (size_t)a->body.num_captures + 1) * sizeof(void*));
  void** results = malloc(((size_t)n + 1) * sizeof(void*));
  hlx_status_t st = NULL;
  if (!storage || !offs || !acc || !params || !results) {
    st = hlx_status_oom();
    goto done;
  }
  int64_t* tables[HLX_WINDOW_MAX_RANK];
  hlx_window_tables(w, storage, tables);
  unsigned char* next = acc + 16 * (size_t)n;
  int64_t o[HLX_WINDOW_MAX_RANK] = {0};
  for (int64_t i = 0; i < n_out && !st; i++) {
    hlx_window_offsets(w, tables, o, offs);
    for (int32_t k = 0; k < n; k++)
      memcpy(acc + 16 * k, in[n + k], a->elem_size[k]);
    for (int64_t j = 0; j < total && !st; j++) {
      for (int32_t k = 0; k < n; k++) {
        params[k] = acc + 16 * k;
        params[n + k] =
            offs[j] < 0 ? (const void*)in[n + k]
                        : (const unsigned char*)in[k] +
                              (size_t)offs[j] * a->elem_size[k];
        results[k] = next + 16 * k;
      }
      st = call_region(&a->body, params, 2 * n, in, results, ctx);
      memcpy(acc, next, 16 * (size_t)n);
    }
    for (int32_t k = 0; k < n; k++)
      memcpy((unsigned char*)out[k] + (size_t)i * a->elem_size[k],
             acc + 16 * k, a->elem_size[k]);
    for (int32_t d = w->rank - 1; d >= 0; d--) {
      if (++o[d] < w->out_dims[d]) break;
      o[d] = 0;
    }
  }
done:
  free(storage);
  free(offs);
  free(acc);
  free(params);
  free(results);
  return st;
}

static hlx_status_t lower_reduce_window(hlx_lower_ctx_t* c,
                                        const hlx_op_t* op) {
  int32_t n = op->num_operands / 2;
  if (op->num_operands % 2 || n < 1 || op->num_results != n)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C1) needs 0 < size(inputs) = size(init_values) = "
                        "size(results); got %d operands and %d results",
                        op->num_operands, op->num_results);
  if (n > 64)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: more than 64 inputs");
  if (op->num_regions != 1)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C13) needs exactly one body region");
  const hlx_type_t* in0 = hlx_static_tensor(op->operands[0]);
  if (!in0 || in0->rank > HLX_WINDOW_MAX_RANK)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: dynamic or rank > %d input",
                        HLX_WINDOW_MAX_RANK);
  int32_t rank = in0->rank;
  hlx_dtype_t types[128];
  for (int32_t i = 0; i < n; i++) {
    const hlx_type_t* t = hlx_static_tensor(op->operands[i]);
    const hlx_type_t* init = hlx_static_tensor(op->operands[n + i]);
    if (!t || !init)
      return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                          "unsupported: input #%d or init value #%d is not a "
                          "static tensor",
                          i, i);
    if (t->quant || init->quant)
      return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                          "unsupported: quantized input #%d", i);
    if (t->rank != rank)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C2) inputs #0 and #%d have different shapes", i);
    for (int32_t d = 0; d < rank; d++)
      if (t->dims[d] != in0->dims[d])
        return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                            "(C2) inputs #0 and #%d have different shapes", i);
    if (init->rank != 0)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "init value #%d must be a 0-dimensional tensor", i);
    if (init->dtype != t->dtype)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C3) init value #%d has element type %s, input #%d "
                          "has %s",
                          i, hlx_dtype_name(init->dtype), i,
                          hlx_dtype_name(t->dtype));
    types[i] = types[n + i] = t->dtype;
  }
  hlx_window_t w;
  memset(&w, 0, sizeof w);
  w.rank = rank;
  int64_t pad_hi[HLX_WINDOW_MAX_RANK];
  HLX_RETURN_IF_ERROR(dim_array(op, "window_dimensions", rank, 1, 1, "(C4)",
                                "(C5)", true, w.window));
  HLX_RETURN_IF_ERROR(dim_array(op, "window_strides", rank, 1, 1, "(C6)",
                                "(C7)", false, w.stride));
  HLX_RETURN_IF_ERROR(dim_array(op, "base_dilations", rank, 1, 1, "(C8)",
                                "(C9)", false, w.base_dilation));
  HLX_RETURN_IF_ERROR(dim_array(op, "window_dilations", rank, 1, 1, "(C10)",
                                "(C11)", false, w.window_dilation));
  HLX_RETURN_IF_ERROR(padding_attr(op, rank, "(C12)", w.pad_lo, pad_hi));
  for (int32_t d = 0; d < rank; d++) {
    w.in_dims[d] = in0->dims[d];
    int64_t nw = hlx_window_num_windows(in0->dims[d], w.window[d], w.stride[d],
                                        w.base_dilation[d],
                                        w.window_dilation[d], w.pad_lo[d],
                                        pad_hi[d]);
    if (nw < 0)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C15) window arithmetic overflows in dimension %d",
                          d);
    w.out_dims[d] = nw;
  }
  HLX_RETURN_IF_ERROR(check_region(op, op->regions[0], "body", "(C13)", 2 * n,
                                   types, n, types));
  for (int32_t i = 0; i < n; i++) {
    const hlx_type_t* r = hlx_static_tensor(op->results[i]);
    if (!r)
      return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                          "unsupported: result #%d is not a static tensor", i);
    if (r->dtype != types[i] || r->quant)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C16) result #%d has element type %s, the body "
                          "returns %s",
                          i, hlx_dtype_name(r->dtype),
                          hlx_dtype_name(types[i]));
    bool ok = r->rank == rank;
    for (int32_t d = 0; ok && d < rank; d++) ok = r->dims[d] == w.out_dims[d];
    if (!ok) {
      char want[256];
      size_t len = 0;
      want[0] = 0;
      for (int32_t d = 0; d < rank && len < sizeof want - 24; d++)
        len += (size_t)snprintf(want + len, sizeof want - len, "%s%lld",
                                d ? "x" : "", (long long)w.out_dims[d]);
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C14/C15) result #%d must have shape [%s] "
                          "(num_windows)",
                          i, want);
    }
  }

  hlx_reduce_op_t rop;
  if (n == 1 && hlx_region_is_simple_combiner(op->regions[0], &rop)) {
    unsigned char z[16] = {0}, o[16];
    hlx_window_t probe;
    memset(&probe, 0, sizeof probe);
    if (hlx_ref_reduce_window(rop, types[0], &probe, z, z, o)) {
      int32_t in[2], out;
      HLX_RETURN_IF_ERROR(hlx_lower_in(c, op, 0, &in[0]));
      HLX_RETURN_IF_ERROR(hlx_lower_in(c, op, 1, &in[1]));
      HLX_RETURN_IF_ERROR(hlx_lower_out(c, op, 0, &out));
      hlx_scan_t s;
      if (hlx_scan_supported(rop, types[0]) && hlx_window_as_scan(&w, &s)) {
        rw_scan_args_t* a = hlx_lower_alloc(c, sizeof(*a));
        if (!a) return hlx_status_oom();
        a->k.op = rop;
        a->k.dtype = types[0];
        a->k.w = w;
        a->s = s;
        return hlx_lower_emit(c, op, run_scan, a, 2, in, 1, &out);
      }
      rw_kernel_args_t* a = hlx_lower_alloc(c, sizeof(*a));
      if (!a) return hlx_status_oom();
      a->op = rop;
      a->dtype = types[0];
      a->w = w;
      return hlx_lower_emit(c, op, run_reduce_window, a, 2, in, 1, &out);
    }
  }
  rw_region_args_t* a = hlx_lower_alloc(c, sizeof(*a));
  if (!a) return hlx_status_oom();
  a->n = n;
  a->w = w;
  for (int32_t i = 0; i < n; i++) {
    a->elem_size[i] = hlx_dtype_size(types[i]);
    if (a->elem_size[i] > 16)
      return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                          "unsupported element type %s",
                          hlx_dtype_name(types[i]));
  }
  int32_t cap = 2 * n + 8, nin = 0;
  int32_t* ins = hlx_lower_alloc(c, (size_t)cap * 4);
  if (!ins) return hlx_status_oom();
  for (int32_t i = 0; i < 2 * n; i++)
    HLX_RETURN_IF_ERROR(hlx_lower_in(c, op, i, &ins[nin++]));
  HLX_RETURN_IF_ERROR(lower_region_call(c, op, op->regions[0], "body",
                                        &a->body, &ins, &nin, &cap));
  if (a->body.plan->num_results != n)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C13) body must return %d values", n);
  int32_t *outs, nout;
  HLX_RETURN_IF_ERROR(hlx_lower_flatten(c, op, true, &outs, &nout));
  return hlx_lower_emit(c, op, run_reduce_window_region, a, nin, ins, nout,
                        outs);
}

/* ---- select_and_scatter --------------------------------------------------- */

typedef struct sas_args_t {
  hlx_window_t w;
  hlx_dtype_t dtype;
  size_t es;
  bool select_kernel;
  hlx_compare_dir_t dir;
  hlx_compare_type_t cmp_type;
  region_call_t select;
  bool scatter_kernel;
  hlx_reduce_op_t scatter_op;
  region_call_t scatter;
  int64_t n_operand;
} sas_args_t;

static hlx_status_t run_select_and_scatter(const void* args, void* const* in,
                                           void* const* out,
                                           hlx_run_ctx_t* ctx) {
  const sas_args_t* a = args;
  const hlx_window_t* w = &a->w;
  int64_t n_src = hlx_window_out_count(w), total = hlx_window_size(w);
  size_t es = a->es;
  int64_t* sel = malloc(((size_t)n_src + 1) * sizeof(int64_t));
  int32_t ncap = a->select.num_captures > a->scatter.num_captures
                     ? a->select.num_captures
                     : a->scatter.num_captures;
  const void** params = malloc(((size_t)ncap + 3) * sizeof(void*));
  int64_t* storage = NULL;
  int64_t* offs = NULL;
  hlx_status_t st = NULL;
  if (!sel || !params) {
    st = hlx_status_oom();
    goto done;
  }
  const unsigned char* operand = in[0];
  if (a->select_kernel) {
    if (!hlx_window_select(a->dir, a->cmp_type, a->dtype, w, operand,
                           sel)) {
      st = hlx_status_oom();
      goto done;
    }
  } else if (n_src > 0) {
    size_t tab_n = 1;
    for (int32_t d = 0; d < w->rank; d++)
      tab_n += (size_t)(w->out_dims[d] * w->window[d]);
    storage = malloc(tab_n * sizeof(int64_t));
    offs = malloc(((size_t)total + 1) * sizeof(int64_t));
    if (!storage || !offs) {
      st = hlx_status_oom();
      goto done;
    }
    int64_t* tables[HLX_WINDOW_MAX_RANK];
    hlx_window_tables(w, storage, tables);
    int64_t o[HLX_WINDOW_MAX_RANK] = {0};
    for (int64_t i = 0; i < n_src && !st; i++) {
      hlx_window_offsets(w, tables, o, offs);
      int64_t cur = -1;
      for (int64_t j = 0; j < total && !st; j++) {
        if (offs[j] < 0) continue;
        if (cur < 0) {
          cur = offs[j];
          continue;
        }
        uint8_t keep = 0;
        void* res[1] = {&keep};
        params[0] = operand + (size_t)cur * es;
        params[1] = operand + (size_t)offs[j] * es;
        st = call_region(&a->select, params, 2, in, res, ctx);
        if (!(keep & 1)) cur = offs[j];
      }
      sel[i] = cur;
      for (int32_t d = w->rank - 1; d >= 0; d--) {
        if (++o[d] < w->out_dims[d]) break;
        o[d] = 0;
      }
    }
  }
  if (st) goto done;
  if (a->scatter_kernel) {
    if (!hlx_ref_scatter_selected(a->scatter_op, a->dtype, n_src, sel, in[1],
                                  in[2], a->n_operand, out[0]))
      st = hlx_status_oom();
  } else {
    unsigned char* dst = out[0];
    const unsigned char* src = in[1];
    unsigned char tmp[16];
    for (int64_t i = 0; i < a->n_operand; i++)
      memcpy(dst + (size_t)i * es, in[2], es);
    for (int64_t i = 0; i < n_src && !st; i++) {
      if (sel[i] < 0) continue;
      void* res[1] = {tmp};
      params[0] = dst + (size_t)sel[i] * es;
      params[1] = src + (size_t)i * es;
      st = call_region(&a->scatter, params, 2, in, res, ctx);
      memcpy(dst + (size_t)sel[i] * es, tmp, es);
    }
  }
done:
  free(sel);
  free(params);
  free(storage);
  free(offs);
  return st;
}

/* A select region that is `return compare(arg0, arg1)` (or with the
 * arguments swapped, direction mirrored). */
static bool match_compare_select(const hlx_region_t* r, hlx_compare_dir_t* dir,
                                 hlx_compare_type_t* type) {
  if (r->num_blocks != 1) return false;
  const hlx_block_t* b = r->blocks[0];
  if (b->num_args != 2 || b->num_ops != 2) return false;
  const hlx_op_t* f = b->ops[0];
  const hlx_op_t* ret = b->ops[1];
  if (f->code != HLX_OP_COMPARE || ret->num_operands != 1 ||
      ret->operands[0] != f->results[0] || f->num_operands != 2)
    return false;
  bool swapped;
  if (f->operands[0] == b->args[0] && f->operands[1] == b->args[1])
    swapped = false;
  else if (f->operands[0] == b->args[1] && f->operands[1] == b->args[0])
    swapped = true;
  else
    return false;
  const hlx_attr_t* d = hlx_op_attr(f, "comparison_direction");
  if (!d || d->kind != HLX_ATTR_ENUM || !d->enum_value) return false;
  static const struct {
    const char* name;
    hlx_compare_dir_t dir, mirrored;
  } dirs[] = {{"EQ", HLX_CMP_EQ, HLX_CMP_EQ}, {"NE", HLX_CMP_NE, HLX_CMP_NE},
              {"GE", HLX_CMP_GE, HLX_CMP_LE}, {"GT", HLX_CMP_GT, HLX_CMP_LT},
              {"LE", HLX_CMP_LE, HLX_CMP_GE}, {"LT", HLX_CMP_LT, HLX_CMP_GT}};
  bool found = false;
  for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
    if (strcmp(d->enum_value, dirs[i].name) == 0) {
      *dir = swapped ? dirs[i].mirrored : dirs[i].dir;
      found = true;
    }
  if (!found) return false;
  *type = HLX_CMP_DEFAULT;
  const hlx_attr_t* t = hlx_op_attr(f, "compare_type");
  if (t) {
    if (t->kind != HLX_ATTR_ENUM || !t->enum_value) return false;
    if (strcmp(t->enum_value, "FLOAT") == 0) *type = HLX_CMP_FLOAT;
    else if (strcmp(t->enum_value, "TOTALORDER") == 0) *type = HLX_CMP_TOTALORDER;
    else if (strcmp(t->enum_value, "SIGNED") == 0) *type = HLX_CMP_SIGNED;
    else if (strcmp(t->enum_value, "UNSIGNED") == 0) *type = HLX_CMP_UNSIGNED;
    else if (strcmp(t->enum_value, "NOTYPE") != 0) return false;
  }
  return true;
}

static hlx_status_t lower_select_and_scatter(hlx_lower_ctx_t* c,
                                             const hlx_op_t* op) {
  if (op->num_operands != 3 || op->num_results != 1 || op->num_regions != 2)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "needs operand, source and init_value, one result "
                        "and select/scatter regions");
  const hlx_type_t* opd = hlx_static_tensor(op->operands[0]);
  const hlx_type_t* src = hlx_static_tensor(op->operands[1]);
  const hlx_type_t* init = hlx_static_tensor(op->operands[2]);
  const hlx_type_t* res = hlx_static_tensor(op->results[0]);
  if (!opd || !src || !init || !res || opd->rank > HLX_WINDOW_MAX_RANK)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: dynamic shapes or rank > %d",
                        HLX_WINDOW_MAX_RANK);
  if (opd->quant || src->quant || init->quant || res->quant)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: quantized operands");
  hlx_dtype_t e = opd->dtype;
  if (src->dtype != e)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C1) source has element type %s, operand has %s",
                        hlx_dtype_name(src->dtype), hlx_dtype_name(e));
  if (init->rank != 0)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "init_value must be a 0-dimensional tensor");
  if (init->dtype != e)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C3) init_value has element type %s, operand has %s",
                        hlx_dtype_name(init->dtype), hlx_dtype_name(e));
  int32_t rank = opd->rank;
  hlx_window_t w;
  memset(&w, 0, sizeof w);
  w.rank = rank;
  int64_t pad_hi[HLX_WINDOW_MAX_RANK];
  HLX_RETURN_IF_ERROR(dim_array(op, "window_dimensions", rank, 1, 1, "(C4)",
                                "(C5)", false, w.window));
  HLX_RETURN_IF_ERROR(dim_array(op, "window_strides", rank, 1, 1, "(C6)",
                                "(C7)", false, w.stride));
  HLX_RETURN_IF_ERROR(padding_attr(op, rank, "(C8)", w.pad_lo, pad_hi));
  bool src_ok = src->rank == rank;
  for (int32_t d = 0; d < rank; d++) {
    w.in_dims[d] = opd->dims[d];
    w.base_dilation[d] = w.window_dilation[d] = 1;
    int64_t nw = hlx_window_num_windows(opd->dims[d], w.window[d], w.stride[d],
                                        1, 1, w.pad_lo[d], pad_hi[d]);
    if (nw < 0)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C2) window arithmetic overflows in dimension %d",
                          d);
    w.out_dims[d] = nw;
    if (src_ok && src->dims[d] != nw) src_ok = false;
  }
  if (!src_ok) {
    char want[256];
    size_t len = 0;
    want[0] = 0;
    for (int32_t d = 0; d < rank && len < sizeof want - 24; d++)
      len += (size_t)snprintf(want + len, sizeof want - len, "%s%lld",
                              d ? "x" : "", (long long)w.out_dims[d]);
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C2) source must have shape [%s] (num_windows)",
                        want);
  }
  bool res_ok = res->rank == rank;
  for (int32_t d = 0; res_ok && d < rank; d++)
    res_ok = res->dims[d] == opd->dims[d];
  if (!res_ok)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C11) result shape must equal the operand's");
  if (res->dtype != e)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C12) result has element type %s, expected %s",
                        hlx_dtype_name(res->dtype), hlx_dtype_name(e));
  hlx_dtype_t ee[2] = {e, e}, pred = HLX_DTYPE_PRED;
  HLX_RETURN_IF_ERROR(
      check_region(op, op->regions[0], "select", "(C9)", 2, ee, 1, &pred));
  HLX_RETURN_IF_ERROR(
      check_region(op, op->regions[1], "scatter", "(C10)", 2, ee, 1, ee));
  size_t es = hlx_dtype_size(e);
  if (es == 0 || es > 16)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported element type %s", hlx_dtype_name(e));

  sas_args_t* a = hlx_lower_alloc(c, sizeof(*a));
  if (!a) return hlx_status_oom();
  memset(a, 0, sizeof(*a));
  a->w = w;
  a->dtype = e;
  a->es = es;
  a->n_operand = hlx_type_num_elements(opd);
  int32_t cap = 16, nin = 0;
  int32_t* ins = hlx_lower_alloc(c, (size_t)cap * 4);
  if (!ins) return hlx_status_oom();
  for (int32_t i = 0; i < 3; i++)
    HLX_RETURN_IF_ERROR(hlx_lower_in(c, op, i, &ins[nin++]));

  unsigned char z[16] = {0};
  uint8_t y;
  if (match_compare_select(op->regions[0], &a->dir, &a->cmp_type) &&
      hlx_ref_compare(a->dir, a->cmp_type, e, z, z, &y, 1)) {
    a->select_kernel = true;
  } else {
    HLX_RETURN_IF_ERROR(lower_region_call(c, op, op->regions[0], "select",
                                          &a->select, &ins, &nin, &cap));
  }
  int64_t sel0 = 0;
  unsigned char o[16];
  if (hlx_region_is_simple_combiner(op->regions[1], &a->scatter_op) &&
      hlx_ref_scatter_selected(a->scatter_op, e, 0, &sel0, z, z, 1, o)) {
    a->scatter_kernel = true;
  } else {
    HLX_RETURN_IF_ERROR(lower_region_call(c, op, op->regions[1], "scatter",
                                          &a->scatter, &ins, &nin, &cap));
  }
  int32_t out;
  HLX_RETURN_IF_ERROR(hlx_lower_out(c, op, 0, &out));
  return hlx_lower_emit(c, op, run_select_and_scatter, a, nin, ins, 1, &out);
}

const hlx_lowering_t hlx_lowerings_window[] = {
    {HLX_OP_REDUCE_WINDOW, lower_reduce_window},
    {HLX_OP_SELECT_AND_SCATTER, lower_select_and_scatter},
    {HLX_OP_UNKNOWN, NULL},
};
