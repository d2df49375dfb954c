/* gather, dynamic_gather and scatter.
 *
 * Both check every constraint of the spec (errors name the rule), then:
 *  - gather / dynamic_gather: one kernel call (hlx_gather: SIMD row copies
 *    for embedding lookups, split across the pool's threads when large,
 *    the reference otherwise); the slice
 *    sizes of dynamic_gather are read at plan build when they are a
 *    constant, else at run time (and checked against the result type);
 *  - scatter: recognised combiners (add, mul, max, min, and, or, xor) and
 *    the plain replace region (`return %update...`) run hlx_scatter (SIMD
 *    f32 scatter-add of rows, large ones split by destination rows across
 *    the pool's threads with results independent of the thread count; the
 *    reference otherwise);
 *    any other region (and variadic scatters that are not plain replaces)
 *    runs through its sub-plan once per in-bounds update element, in
 *    row-major order of the update index. indices_are_sorted and
 *    unique_indices are hints: the results never depend on them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/lower/ctx.h"
#include "graph/lower/region_match.h"
#include "kernels/elementwise.h"
#include "kernels/dispatch.h"
#include "kernels/gather_scatter.h"

#define GS_MAX_N 64 /* variadic scatter operands */

/* ---- shared helpers ---------------------------------------------------- */

static bool is_index_type(const hlx_type_t* t) {
  return t && !t->quant && hlx_dtype_is_int(t->dtype);
}

/* A dimension-numbers field: I64_ARRAY or ARRAY of INT; absent = empty. */
static hlx_status_t dn_list(const hlx_op_t* op, const hlx_attr_t* dn,
                            const char* field, int64_t* out, int32_t* n) {
  const hlx_attr_t* a = hlx_attr_dict_get(dn, field);
  *n = 0;
  if (!a) return NULL;
  int32_t count = a->count;
  if ((a->kind != HLX_ATTR_I64_ARRAY && a->kind != HLX_ATTR_ARRAY) ||
      count > HLX_GS_MAX_RANK || count < 0)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "%s must be a list of at most %d integers", field,
                        HLX_GS_MAX_RANK);
  for (int32_t i = 0; i < count; i++) {
    if (a->kind == HLX_ATTR_I64_ARRAY) {
      out[i] = a->ints[i];
    } else {
      if (a->items[i]->kind != HLX_ATTR_INT)
        return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                            "%s must be a list of integers", field);
      out[i] = a->items[i]->i;
    }
  }
  *n = count;
  return NULL;
}

static hlx_status_t dn_int(const hlx_op_t* op, const hlx_attr_t* dn,
                           const char* field, int64_t* out) {
  const hlx_attr_t* a = hlx_attr_dict_get(dn, field);
  *out = 0;
  if (!a) return NULL;
  if (a->kind != HLX_ATTR_INT)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "%s must be an integer", field);
  *out = a->i;
  return NULL;
}

static bool contains(const int64_t* l, int32_t n, int64_t v) {
  for (int32_t i = 0; i < n; i++)
    if (l[i] == v) return true;
  return false;
}

/* "(Cn) <what> ..." checks shared by gather and scatter. */
static hlx_status_t check_sorted_unique(const hlx_op_t* op, const char* rule,
                                        const char* name, const int64_t* l,
                                        int32_t n, bool sorted, bool unique) {
  for (int32_t i = 0; i < n; i++)
    for (int32_t j = i + 1; j < n; j++) {
      if (unique && l[i] == l[j])
        return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                            "%s %s has repeated entry %lld", rule, name,
                            (long long)l[i]);
      if (sorted && j == i + 1 && l[j] < l[i])
        return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                            "%s %s is not sorted", rule, name);
    }
  return NULL;
}

static hlx_status_t check_range(const hlx_op_t* op, const char* rule,
                                const char* name, const int64_t* l, int32_t n,
                                int64_t hi, const char* hi_what) {
  for (int32_t i = 0; i < n; i++)
    if (l[i] < 0 || l[i] >= hi)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "%s %s[%d] = %lld is not in [0, %lld) (%s)", rule,
                          name, i, (long long)l[i], (long long)hi, hi_what);
  return NULL;
}

static hlx_status_t check_disjoint(const hlx_op_t* op, const char* rule,
                                   const char* a_name, const int64_t* a,
                                   int32_t na, const char* b_name,
                                   const int64_t* b, int32_t nb) {
  for (int32_t i = 0; i < na; i++)
    if (contains(b, nb, a[i]))
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "%s dim %lld is in both %s and %s", rule,
                          (long long)a[i], a_name, b_name);
  return NULL;
}

static void shape_str(char* buf, size_t len, int32_t rank, const int64_t* d) {
  size_t k = 0;
  buf[0] = 0;
  for (int32_t i = 0; i < rank && k + 24 < len; i++)
    k += (size_t)snprintf(buf + k, len - k, "%s%lld", i ? "x" : "",
                          (long long)d[i]);
  if (rank == 0) snprintf(buf, len, "scalar");
}

/* ---- gather / dynamic_gather ------------------------------------------- */

typedef struct gather_args_t {
  hlx_gather_params_t p;
  size_t elem_size;
  /* dynamic_gather with run-time slice sizes: */
  bool runtime_sizes;
  hlx_dtype_t sizes_dtype;
  int32_t result_rank;
  int64_t result_dims[HLX_GS_MAX_RANK];
} gather_args_t;

static hlx_status_t run_gather(const void* args, void* const* in,
                               void* const* out, hlx_run_ctx_t* ctx) {
  const gather_args_t* a = args;
  if (!a->runtime_sizes) {
    /* dispatched: SIMD row copies for embedding lookups (large ones on the
     * pool's threads), else reference */
    hlx_gather(&a->p, a->elem_size, in[0], in[1], out[0], ctx->parallel);
    return NULL;
  }
  hlx_gather_params_t p = a->p;
  if (!hlx_ref_convert(a->sizes_dtype, in[2], HLX_DTYPE_S64, p.slice_sizes,
                       (size_t)p.operand_rank))
    return hlx_make_status(HLX_STATUS_INTERNAL,
                           "dynamic_gather: cannot read slice_sizes");
  for (int32_t d = 0; d < p.operand_rank; d++) {
    int64_t s = p.slice_sizes[d];
    if (s < 0 || s > p.operand_dims[d])
      return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                             "dynamic_gather: (C12) slice_sizes[%d] = %lld is "
                             "not in [0, %lld]",
                             d, (long long)s, (long long)p.operand_dims[d]);
    if (s > 1 && contains(p.collapsed_slice_dims, p.num_collapsed, d))
      return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                             "dynamic_gather: (C8) slice_sizes[%d] = %lld of a "
                             "collapsed dim exceeds 1",
                             d, (long long)s);
  }
  int64_t dims[HLX_GS_MAX_RANK];
  int32_t r = hlx_gather_result_shape(&p, dims);
  bool same = r == a->result_rank;
  for (int32_t d = 0; same && d < r; d++) same = dims[d] == a->result_dims[d];
  if (!same)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "dynamic_gather: (C13) slice_sizes do not match "
                           "the result type");
  hlx_ref_gather(&p, a->elem_size, in[0], in[1], out[0]);
  return NULL;
}

/* Checks everything but the slice-size rules; fills the params. */
static hlx_status_t gather_params(const hlx_op_t* op, bool dynamic,
                                  hlx_gather_params_t* p) {
  memset(p, 0, sizeof *p);
  const hlx_type_t* ot = hlx_static_tensor(op->operands[0]);
  const hlx_type_t* it = hlx_static_tensor(op->operands[1]);
  const hlx_type_t* rt = hlx_static_tensor(op->results[0]);
  if (!ot || !it || !rt)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: dynamically shaped operand or result");
  if (ot->rank > HLX_GS_MAX_RANK || it->rank > HLX_GS_MAX_RANK ||
      rt->rank > HLX_GS_MAX_RANK)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: rank above %d", HLX_GS_MAX_RANK);
  if (!is_index_type(it))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(I2) start_indices must be a tensor of integer type");
  const hlx_attr_t* dn = hlx_op_attr(op, "dimension_numbers");
  if (!dn || dn->kind != HLX_ATTR_STRUCT)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "missing #stablehlo.gather dimension_numbers");
  int64_t ivd;
  HLX_RETURN_IF_ERROR(dn_list(op, dn, "offset_dims", p->offset_dims,
                              &p->num_offset_dims));
  HLX_RETURN_IF_ERROR(dn_list(op, dn, "collapsed_slice_dims",
                              p->collapsed_slice_dims, &p->num_collapsed));
  int32_t nob, nsb;
  HLX_RETURN_IF_ERROR(dn_list(op, dn, "operand_batching_dims",
                              p->operand_batching_dims, &nob));
  HLX_RETURN_IF_ERROR(dn_list(op, dn, "start_indices_batching_dims",
                              p->start_indices_batching_dims, &nsb));
  HLX_RETURN_IF_ERROR(dn_list(op, dn, "start_index_map", p->start_index_map,
                              &p->num_start_index_map));
  HLX_RETURN_IF_ERROR(dn_int(op, dn, "index_vector_dim", &ivd));
  if (dynamic && (nob || nsb))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "dynamic_gather has no batching dims");
  p->num_batching = nob;
  p->operand_rank = ot->rank;
  p->indices_rank = it->rank;
  p->index_dtype = it->dtype;
  if (ot->rank)
    memcpy(p->operand_dims, ot->dims, sizeof(int64_t) * (size_t)ot->rank);
  if (it->rank)
    memcpy(p->indices_dims, it->dims, sizeof(int64_t) * (size_t)it->rank);
  const char* c[24];
  /* Rule numbers differ between gather and dynamic_gather. */
  if (!dynamic) {
    const char* g[24] = {"",      "(C1)",  "(C2)",  "(C3)",  "(C4)",
                         "(C5)",  "(C6)",  "(C7)",  "(C8)",  "(C9)",
                         "(C10)", "(C11)", "(C12)", "(C13)", "(C14)",
                         "(C15)", "(C16)", "(C17)", "(C18)", "(C19)",
                         "(C20)", "(C21)", "(C22)", "(C23)"};
    memcpy(c, g, sizeof g);
  } else {
    /* gather rule -> dynamic_gather rule */
    const char* g[24] = {"",     "(C1)",  "(C2)",  "(C3)",  "(C4)",
                         "(C5)",  "(C6)", "(C6)",  "(C7)",  "(C8)",
                         "",      "",     "",      "",      "",
                         "",      "",     "",      "(C9)",  "(C10)",
                         "(C11)", "(C12)", "(C13)", "(C14)"};
    memcpy(c, g, sizeof g);
  }
  int64_t orank = ot->rank, irank = it->rank;
  /* (C1) */
  if (orank != p->num_offset_dims + p->num_collapsed + nob)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "%s operand rank %lld != size(offset_dims) %d + "
                        "size(collapsed_slice_dims) %d%s",
                        c[1], (long long)orank, p->num_offset_dims,
                        p->num_collapsed,
                        dynamic ? "" : " + size(operand_batching_dims)");
  /* (C2) */
  if (ivd < 0 || ivd > irank)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "%s index_vector_dim %lld is not in [0, %lld]", c[2],
                        (long long)ivd, (long long)irank);
  p->index_vector_dim = (int32_t)ivd;
  /* (C3) */
  int64_t nidx = ivd < irank ? it->dims[ivd] : 1;
  if (p->num_start_index_map != nidx)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "%s size(start_index_map) %d != %lld index vector "
                        "length",
                        c[3], p->num_start_index_map, (long long)nidx);
  /* (C4), (C5) */
  HLX_RETURN_IF_ERROR(check_sorted_unique(op, c[4], "offset_dims",
                                          p->offset_dims, p->num_offset_dims,
                                          true, true));
  HLX_RETURN_IF_ERROR(check_range(op, c[5], "offset_dims", p->offset_dims,
                                  p->num_offset_dims, rt->rank,
                                  "result rank"));
  /* (C6), (C7), (C8) */
  HLX_RETURN_IF_ERROR(check_sorted_unique(op, c[6], "collapsed_slice_dims",
                                          p->collapsed_slice_dims,
                                          p->num_collapsed, false, true));
  HLX_RETURN_IF_ERROR(check_disjoint(op, c[6], "collapsed_slice_dims",
                                     p->collapsed_slice_dims, p->num_collapsed,
                                     "operand_batching_dims",
                                     p->operand_batching_dims, nob));
  HLX_RETURN_IF_ERROR(check_sorted_unique(op, c[7], "collapsed_slice_dims",
                                          p->collapsed_slice_dims,
                                          p->num_collapsed, true, false));
  HLX_RETURN_IF_ERROR(check_range(op, c[8], "collapsed_slice_dims",
                                  p->collapsed_slice_dims, p->num_collapsed,
                                  orank, "operand rank"));
  /* (C10), (C11) */
  HLX_RETURN_IF_ERROR(check_sorted_unique(op, "(C6)", "operand_batching_dims",
                                          p->operand_batching_dims, nob, false,
                                          true));
  HLX_RETURN_IF_ERROR(check_sorted_unique(op, "(C10)", "operand_batching_dims",
                                          p->operand_batching_dims, nob, true,
                                          false));
  HLX_RETURN_IF_ERROR(check_range(op, "(C11)", "operand_batching_dims",
                                  p->operand_batching_dims, nob, orank,
                                  "operand rank"));
  /* (C13), (C14), (C15), (C16), (C17) */
  HLX_RETURN_IF_ERROR(check_sorted_unique(op, "(C13)",
                                          "start_indices_batching_dims",
                                          p->start_indices_batching_dims, nsb,
                                          false, true));
  HLX_RETURN_IF_ERROR(check_range(op, "(C14)", "start_indices_batching_dims",
                                  p->start_indices_batching_dims, nsb, irank,
                                  "start_indices rank"));
  if (contains(p->start_indices_batching_dims, nsb, ivd))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C15) index_vector_dim %lld is in "
                        "start_indices_batching_dims",
                        (long long)ivd);
  if (nob != nsb)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C16) size(operand_batching_dims) %d != "
                        "size(start_indices_batching_dims) %d",
                        nob, nsb);
  for (int32_t i = 0; i < nob; i++)
    if (ot->dims[p->operand_batching_dims[i]] !=
        it->dims[p->start_indices_batching_dims[i]])
      return hlx_op_error(
          op, HLX_STATUS_INVALID_ARGUMENT,
          "(C17) operand batching dim %lld has size %lld, start_indices "
          "batching dim %lld has %lld",
          (long long)p->operand_batching_dims[i],
          (long long)ot->dims[p->operand_batching_dims[i]],
          (long long)p->start_indices_batching_dims[i],
          (long long)it->dims[p->start_indices_batching_dims[i]]);
  /* (C18), (C19) */
  HLX_RETURN_IF_ERROR(check_sorted_unique(op, c[18], "start_index_map",
                                          p->start_index_map,
                                          p->num_start_index_map, false, true));
  HLX_RETURN_IF_ERROR(check_disjoint(op, c[18], "start_index_map",
                                     p->start_index_map,
                                     p->num_start_index_map,
                                     "operand_batching_dims",
                                     p->operand_batching_dims, nob));
  HLX_RETURN_IF_ERROR(check_range(op, c[19], "start_index_map",
                                  p->start_index_map, p->num_start_index_map,
                                  orank, "operand rank"));
  /* (C23) */
  if (rt->dtype != ot->dtype || (rt->quant == NULL) != (ot->quant == NULL))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "%s result element type differs from the operand's",
                        c[23]);
  return NULL;
}

/* (C9), (C12), (C20)-(C22) on known slice sizes. */
static hlx_status_t check_slice_sizes(const hlx_op_t* op, bool dynamic,
                                      const hlx_gather_params_t* p,
                                      int32_t nsizes) {
  const char* c20 = dynamic ? "(C11)" : "(C20)";
  const char* c21 = dynamic ? "(C12)" : "(C21)";
  const char* c22 = dynamic ? "(C13)" : "(C22)";
  const char* c9 = dynamic ? "(C8)" : "(C9)";
  if (nsizes != p->operand_rank)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "%s size(slice_sizes) %d != operand rank %d", c20,
                        nsizes, p->operand_rank);
  for (int32_t d = 0; d < p->operand_rank; d++)
    if (p->slice_sizes[d] < 0 || p->slice_sizes[d] > p->operand_dims[d])
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "%s slice_sizes[%d] = %lld is not in [0, %lld]", c21,
                          d, (long long)p->slice_sizes[d],
                          (long long)p->operand_dims[d]);
  for (int32_t i = 0; i < p->num_collapsed; i++)
    if (p->slice_sizes[p->collapsed_slice_dims[i]] > 1)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "%s slice_sizes[%lld] = %lld of a collapsed dim "
                          "exceeds 1",
                          c9, (long long)p->collapsed_slice_dims[i],
                          (long long)p->slice_sizes[p->collapsed_slice_dims[i]]);
  for (int32_t i = 0; i < p->num_batching; i++)
    if (p->slice_sizes[p->operand_batching_dims[i]] > 1)
      return hlx_op_error(
          op, HLX_STATUS_INVALID_ARGUMENT,
          "(C12) slice_sizes[%lld] = %lld of an operand batching dim "
          "exceeds 1",
          (long long)p->operand_batching_dims[i],
          (long long)p->slice_sizes[p->operand_batching_dims[i]]);
  int64_t dims[HLX_GS_MAX_RANK];
  int32_t r = hlx_gather_result_shape(p, dims);
  const hlx_type_t* rt = op->results[0]->type;
  bool same = r == rt->rank;
  for (int32_t d = 0; same && d < r; d++) same = dims[d] == rt->dims[d];
  if (!same) {
    char want[400], have[400];
    shape_str(want, sizeof want, r < 0 ? 0 : r, dims);
    shape_str(have, sizeof have, rt->rank, rt->dims);
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "%s result shape %s, expected %s", c22, have,
                        r < 0 ? "(rank too large)" : want);
  }
  return NULL;
}

static hlx_status_t lower_gather_common(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                        bool dynamic) {
  int nops = dynamic ? 3 : 2;
  if (op->num_operands != nops || op->num_results != 1)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "takes %d operands and one result", nops);
  gather_args_t* a = hlx_lower_alloc(c, sizeof(*a));
  if (!a) return hlx_status_oom();
  memset(a, 0, sizeof *a);
  HLX_RETURN_IF_ERROR(gather_params(op, dynamic, &a->p));
  a->elem_size = hlx_dtype_size(op->operands[0]->type->dtype);
  if (!dynamic) {
    const int64_t* sizes;
    int32_t ns;
    HLX_RETURN_IF_ERROR(
        hlx_attr_i64_array(op, "slice_sizes", true, &sizes, &ns));
    if (ns > HLX_GS_MAX_RANK)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C20) size(slice_sizes) %d != operand rank %d", ns,
                          a->p.operand_rank);
    if (ns) memcpy(a->p.slice_sizes, sizes, sizeof(int64_t) * (size_t)ns);
    HLX_RETURN_IF_ERROR(check_slice_sizes(op, false, &a->p, ns));
  } else {
    const hlx_type_t* st = hlx_static_tensor(op->operands[2]);
    if (!st || st->rank != 1 || !is_index_type(st))
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(I3) slice_sizes must be a 1-dimensional tensor of "
                          "integer type");
    if (st->dims[0] != a->p.operand_rank)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C11) size(slice_sizes) %lld != operand rank %d",
                          (long long)st->dims[0], a->p.operand_rank);
    const hlx_value_t* v = op->operands[2];
    if (v->def && v->def->code == HLX_OP_CONSTANT) {
      int32_t ns;
      HLX_RETURN_IF_ERROR(hlx_op_constant_i64(op, 2, a->p.slice_sizes,
                                                 HLX_GS_MAX_RANK, &ns));
      HLX_RETURN_IF_ERROR(check_slice_sizes(op, true, &a->p, ns));
    } else {
      a->runtime_sizes = true;
      a->sizes_dtype = st->dtype;
      const hlx_type_t* rt = op->results[0]->type;
      a->result_rank = rt->rank;
      if (rt->rank)
        memcpy(a->result_dims, rt->dims, sizeof(int64_t) * (size_t)rt->rank);
    }
  }
  int32_t in[3], out;
  for (int i = 0; i < (a->runtime_sizes ? 3 : 2); i++)
    HLX_RETURN_IF_ERROR(hlx_lower_in(c, op, i, &in[i]));
  HLX_RETURN_IF_ERROR(hlx_lower_out(c, op, 0, &out));
  return hlx_lower_emit(c, op, run_gather, a, a->runtime_sizes ? 3 : 2, in, 1,
                        &out);
}

static hlx_status_t lower_gather(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  return lower_gather_common(c, op, false);
}

static hlx_status_t lower_dynamic_gather(hlx_lower_ctx_t* c,
                                         const hlx_op_t* op) {
  return lower_gather_common(c, op, true);
}

/* ---- scatter ----------------------------------------------------------- */

typedef struct scatter_args_t {
  hlx_scatter_params_t p;
  int32_t n;
  hlx_scatter_combiner_t comb;          /* kernel path */
  hlx_dtype_t in_dtype[GS_MAX_N];       /* inputs/updates */
  hlx_dtype_t e_dtype[GS_MAX_N];        /* region argument / result types */
  size_t in_bytes[GS_MAX_N];            /* whole input tensor */
  int64_t in_count;                     /* elements per input */
  const hlx_plan_t* body;               /* region path */
  int32_t num_captures;
} scatter_args_t;

/* Kernel path: task inputs = inputs[n], indices, updates[n]. */
static hlx_status_t run_scatter(const void* args, void* const* in,
                                void* const* out, hlx_run_ctx_t* ctx) {
  const scatter_args_t* a = args;
  int32_t n = a->n;
  for (int32_t i = 0; i < n; i++) {
    memcpy(out[i], in[i], a->in_bytes[i]);
    if (!hlx_scatter(&a->p, a->comb, a->in_dtype[i], in[n], in[n + 1 + i],
                     out[i], ctx->parallel))
      return hlx_make_status(HLX_STATUS_INTERNAL,
                             "scatter: unsupported combiner for %s",
                             hlx_dtype_name(a->in_dtype[i]));
  }
  return NULL;
}

typedef struct region_visit_t {
  const scatter_args_t* a;
  void* const* in;
  void* const* out;
  hlx_run_ctx_t* ctx;
  const void** params;
  void** results;
  unsigned char* conv;   /* converted updates, 16 bytes per operand */
  unsigned char* tmp;    /* body results, 16 bytes per operand */
  hlx_status_t status;
} region_visit_t;

static int region_apply(void* vctx, int64_t r, int64_t u, int64_t count) {
  region_visit_t* v = vctx;
  const scatter_args_t* a = v->a;
  int32_t n = a->n;
  for (int64_t k = 0; k < count; k++) {
    for (int32_t i = 0; i < n; i++) {
      size_t es = hlx_dtype_size(a->e_dtype[i]);
      size_t is = hlx_dtype_size(a->in_dtype[i]);
      v->params[i] = (unsigned char*)v->out[i] + (r + k) * (int64_t)es;
      const unsigned char* up =
          (const unsigned char*)v->in[n + 1 + i] + (u + k) * (int64_t)is;
      if (a->e_dtype[i] != a->in_dtype[i]) {
        hlx_ref_convert(a->in_dtype[i], up, a->e_dtype[i], v->conv + 16 * i,
                        1);
        up = v->conv + 16 * i;
      }
      v->params[n + i] = up;
      v->results[i] = v->tmp + 16 * i;
    }
    hlx_status_t st = hlx_plan_execute(a->body, v->params, v->results, v->ctx);
    if (st) {
      v->status = st;
      return 1;
    }
    for (int32_t i = 0; i < n; i++) {
      size_t es = hlx_dtype_size(a->e_dtype[i]);
      memcpy((unsigned char*)v->out[i] + (r + k) * (int64_t)es, v->tmp + 16 * i,
             es);
    }
  }
  return 0;
}

/* Region path: task inputs = inputs[n], indices, updates[n], captures. */
static hlx_status_t run_scatter_region(const void* args, void* const* in,
                                       void* const* out, hlx_run_ctx_t* ctx) {
  const scatter_args_t* a = args;
  int32_t n = a->n, np = 2 * n + a->num_captures;
  for (int32_t i = 0; i < n; i++) {
    if (a->e_dtype[i] == a->in_dtype[i])
      memcpy(out[i], in[i], a->in_bytes[i]);
    else
      hlx_ref_convert(a->in_dtype[i], in[i], a->e_dtype[i], out[i],
                      (size_t)a->in_count);
  }
  region_visit_t v = {a, in, out, ctx, NULL, NULL, NULL, NULL, NULL};
  v.params = calloc((size_t)np + 1, sizeof(void*));
  v.results = calloc((size_t)n + 1, sizeof(void*));
  v.conv = malloc(32 * (size_t)n + 16);
  if (!v.params || !v.results || !v.conv) {
    free(v.params);
    free(v.results);
    free(v.conv);
    return hlx_status_oom();
  }
  v.tmp = v.conv + 16 * (size_t)n;
  for (int32_t k = 0; k < a->num_captures; k++)
    v.params[2 * n + k] = in[2 * n + 1 + k];
  hlx_ref_scatter_visit(&a->p, in[n], region_apply, &v);
  free(v.params);
  free(v.results);
  free(v.conv);
  return v.status;
}

/* True when the region returns its last n block arguments unchanged. */
static bool region_is_replace(const hlx_region_t* r, int32_t n) {
  if (!r || r->num_blocks != 1) return false;
  const hlx_block_t* b = r->blocks[0];
  if (b->num_args != 2 * n || b->num_ops != 1) return false;
  const hlx_op_t* ret = b->ops[0];
  if (ret->num_operands != n) return false;
  for (int32_t i = 0; i < n; i++)
    if (ret->operands[i] != b->args[n + i]) return false;
  return true;
}

static bool promotable(const hlx_type_t* x, const hlx_type_t* y) {
  if (x->quant || y->quant) {
    if (!x->quant || !y->quant) return false;
    return hlx_dtype_bits(x->dtype) <= hlx_dtype_bits(y->dtype);
  }
  hlx_dtype_t a = x->dtype, b = y->dtype;
  bool same_kind = (hlx_dtype_is_pred(a) && hlx_dtype_is_pred(b)) ||
                   (hlx_dtype_is_int(a) && hlx_dtype_is_int(b)) ||
                   (hlx_dtype_is_float(a) && hlx_dtype_is_float(b)) ||
                   (hlx_dtype_is_complex(a) && hlx_dtype_is_complex(b));
  if (!same_kind) return false;
  if (hlx_dtype_is_pred(a)) return true;
  return hlx_dtype_bits(a) <= hlx_dtype_bits(b);
}

static hlx_status_t scatter_params(const hlx_op_t* op, int32_t n,
                                   hlx_scatter_params_t* p) {
  memset(p, 0, sizeof *p);
  const hlx_type_t* in0 = hlx_static_tensor(op->operands[0]);
  const hlx_type_t* it = hlx_static_tensor(op->operands[n]);
  const hlx_type_t* u0 = hlx_static_tensor(op->operands[n + 1]);
  if (!in0 || !it || !u0)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: dynamically shaped operand");
  if (in0->rank > HLX_GS_MAX_RANK || it->rank > HLX_GS_MAX_RANK ||
      u0->rank > HLX_GS_MAX_RANK)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: rank above %d", HLX_GS_MAX_RANK);
  if (!is_index_type(it))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(I2) scatter_indices must be a tensor of integer "
                        "type");
  for (int32_t i = 0; i < n; i++) {
    const hlx_type_t* t = hlx_static_tensor(op->operands[i]);
    const hlx_type_t* u = hlx_static_tensor(op->operands[n + 1 + i]);
    const hlx_type_t* r = hlx_static_tensor(op->results[i]);
    if (!t || !u || !r)
      return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                          "unsupported: dynamically shaped operand");
    bool same = t->rank == in0->rank;
    for (int32_t d = 0; same && d < t->rank; d++)
      same = t->dims[d] == in0->dims[d];
    if (!same)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C1) inputs #0 and #%d have different shapes", i);
    same = u->rank == u0->rank;
    for (int32_t d = 0; same && d < u->rank; d++)
      same = u->dims[d] == u0->dims[d];
    if (!same)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C3) updates #0 and #%d have different shapes", i);
    if (u->dtype != t->dtype || (u->quant == NULL) != (t->quant == NULL))
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C6) updates #%d has element type %s, input #%d "
                          "has %s",
                          i, hlx_dtype_name(u->dtype), i,
                          hlx_dtype_name(t->dtype));
    same = r->rank == in0->rank;
    for (int32_t d = 0; same && d < r->rank; d++)
      same = r->dims[d] == in0->dims[d];
    if (!same)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C24) result #%d's shape differs from the inputs'",
                          i);
  }
  const hlx_attr_t* dn = hlx_op_attr(op, "scatter_dimension_numbers");
  if (!dn || dn->kind != HLX_ATTR_STRUCT)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "missing #stablehlo.scatter "
                        "scatter_dimension_numbers");
  int32_t nib, nsb;
  int64_t ivd;
  HLX_RETURN_IF_ERROR(dn_list(op, dn, "update_window_dims",
                              p->update_window_dims,
                              &p->num_update_window_dims));
  HLX_RETURN_IF_ERROR(dn_list(op, dn, "inserted_window_dims",
                              p->inserted_window_dims, &p->num_inserted));
  HLX_RETURN_IF_ERROR(
      dn_list(op, dn, "input_batching_dims", p->input_batching_dims, &nib));
  HLX_RETURN_IF_ERROR(dn_list(op, dn, "scatter_indices_batching_dims",
                              p->scatter_indices_batching_dims, &nsb));
  HLX_RETURN_IF_ERROR(dn_list(op, dn, "scatter_dims_to_operand_dims",
                              p->scatter_dims_to_operand_dims,
                              &p->num_scatter_dims));
  HLX_RETURN_IF_ERROR(dn_int(op, dn, "index_vector_dim", &ivd));
  p->num_batching = nib;
  p->input_rank = in0->rank;
  p->indices_rank = it->rank;
  p->update_rank = u0->rank;
  p->index_dtype = it->dtype;
  if (in0->rank)
    memcpy(p->input_dims, in0->dims, sizeof(int64_t) * (size_t)in0->rank);
  if (it->rank)
    memcpy(p->indices_dims, it->dims, sizeof(int64_t) * (size_t)it->rank);
  if (u0->rank)
    memcpy(p->update_dims, u0->dims, sizeof(int64_t) * (size_t)u0->rank);
  int64_t irank = in0->rank, srank = it->rank;
  /* (C2) */
  if (irank != p->num_update_window_dims + p->num_inserted + nib)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C2) input rank %lld != size(update_window_dims) %d "
                        "+ size(inserted_window_dims) %d + "
                        "size(input_batching_dims) %d",
                        (long long)irank, p->num_update_window_dims,
                        p->num_inserted, nib);
  /* (C22) */
  if (ivd < 0 || ivd > srank)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C22) index_vector_dim %lld is not in [0, %lld]",
                        (long long)ivd, (long long)srank);
  p->index_vector_dim = (int32_t)ivd;
  /* (C7), (C8) */
  HLX_RETURN_IF_ERROR(check_sorted_unique(op, "(C7)", "update_window_dims",
                                          p->update_window_dims,
                                          p->num_update_window_dims, true,
                                          true));
  HLX_RETURN_IF_ERROR(check_range(op, "(C8)", "update_window_dims",
                                  p->update_window_dims,
                                  p->num_update_window_dims, u0->rank,
                                  "updates rank"));
  /* (C9)..(C13) */
  HLX_RETURN_IF_ERROR(check_sorted_unique(op, "(C9)", "inserted_window_dims",
                                          p->inserted_window_dims,
                                          p->num_inserted, false, true));
  HLX_RETURN_IF_ERROR(check_sorted_unique(op, "(C9)", "input_batching_dims",
                                          p->input_batching_dims, nib, false,
                                          true));
  HLX_RETURN_IF_ERROR(check_disjoint(op, "(C9)", "inserted_window_dims",
                                     p->inserted_window_dims, p->num_inserted,
                                     "input_batching_dims",
                                     p->input_batching_dims, nib));
  HLX_RETURN_IF_ERROR(check_sorted_unique(op, "(C10)", "inserted_window_dims",
                                          p->inserted_window_dims,
                                          p->num_inserted, true, false));
  HLX_RETURN_IF_ERROR(check_range(op, "(C11)", "inserted_window_dims",
                                  p->inserted_window_dims, p->num_inserted,
                                  irank, "input rank"));
  HLX_RETURN_IF_ERROR(check_sorted_unique(op, "(C12)", "input_batching_dims",
                                          p->input_batching_dims, nib, true,
                                          false));
  HLX_RETURN_IF_ERROR(check_range(op, "(C13)", "input_batching_dims",
                                  p->input_batching_dims, nib, irank,
                                  "input rank"));
  /* (C14)..(C18) */
  HLX_RETURN_IF_ERROR(check_sorted_unique(op, "(C14)",
                                          "scatter_indices_batching_dims",
                                          p->scatter_indices_batching_dims,
                                          nsb, false, true));
  HLX_RETURN_IF_ERROR(check_range(op, "(C15)", "scatter_indices_batching_dims",
                                  p->scatter_indices_batching_dims, nsb, srank,
                                  "scatter_indices rank"));
  if (contains(p->scatter_indices_batching_dims, nsb, ivd))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C16) index_vector_dim %lld is in "
                        "scatter_indices_batching_dims",
                        (long long)ivd);
  if (nib != nsb)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C17) size(input_batching_dims) %d != "
                        "size(scatter_indices_batching_dims) %d",
                        nib, nsb);
  for (int32_t i = 0; i < nib; i++)
    if (in0->dims[p->input_batching_dims[i]] !=
        it->dims[p->scatter_indices_batching_dims[i]])
      return hlx_op_error(
          op, HLX_STATUS_INVALID_ARGUMENT,
          "(C18) input batching dim %lld has size %lld, scatter_indices "
          "batching dim %lld has %lld",
          (long long)p->input_batching_dims[i],
          (long long)in0->dims[p->input_batching_dims[i]],
          (long long)p->scatter_indices_batching_dims[i],
          (long long)it->dims[p->scatter_indices_batching_dims[i]]);
  /* (C19)..(C21) */
  int64_t nidx = ivd < srank ? it->dims[ivd] : 1;
  if (p->num_scatter_dims != nidx)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C19) size(scatter_dims_to_operand_dims) %d != %lld "
                        "index vector length",
                        p->num_scatter_dims, (long long)nidx);
  HLX_RETURN_IF_ERROR(check_sorted_unique(op, "(C20)",
                                          "scatter_dims_to_operand_dims",
                                          p->scatter_dims_to_operand_dims,
                                          p->num_scatter_dims, false, true));
  HLX_RETURN_IF_ERROR(check_disjoint(op, "(C20)",
                                     "scatter_dims_to_operand_dims",
                                     p->scatter_dims_to_operand_dims,
                                     p->num_scatter_dims,
                                     "input_batching_dims",
                                     p->input_batching_dims, nib));
  HLX_RETURN_IF_ERROR(check_range(op, "(C21)", "scatter_dims_to_operand_dims",
                                  p->scatter_dims_to_operand_dims,
                                  p->num_scatter_dims, irank, "input rank"));
  /* (C4): updates shape = combine(scatter dim sizes, window dim sizes). */
  int64_t nsc = srank - (ivd < srank ? 1 : 0);
  if (u0->rank != nsc + p->num_update_window_dims)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C4) updates rank %d != %lld scatter dims + %d "
                        "window dims",
                        u0->rank, (long long)nsc, p->num_update_window_dims);
  int32_t next_idx = 0, next_in = 0;
  for (int32_t d = 0; d < u0->rank; d++) {
    if (contains(p->update_window_dims, p->num_update_window_dims, d)) {
      while (next_in < irank &&
             (contains(p->inserted_window_dims, p->num_inserted, next_in) ||
              contains(p->input_batching_dims, nib, next_in)))
        next_in++;
      if (u0->dims[d] > in0->dims[next_in])
        return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                            "(C4) updates window dim %d has size %lld, more "
                            "than input dim %d's %lld",
                            d, (long long)u0->dims[d], next_in,
                            (long long)in0->dims[next_in]);
      next_in++;
    } else {
      if (next_idx == ivd) next_idx++;
      if (u0->dims[d] != it->dims[next_idx])
        return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                            "(C4) updates scatter dim %d has size %lld, "
                            "scatter_indices dim %d has %lld",
                            d, (long long)u0->dims[d], next_idx,
                            (long long)it->dims[next_idx]);
      next_idx++;
    }
  }
  return NULL;
}

static hlx_status_t lower_scatter(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  int32_t n = (op->num_operands - 1) / 2;
  if (op->num_operands < 3 || op->num_operands % 2 == 0 ||
      op->num_results != n || op->num_regions != 1)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C5) needs N inputs, scatter_indices, N updates "
                        "(N > 0), N results and an update_computation");
  if (n > GS_MAX_N)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: more than %d inputs", GS_MAX_N);
  scatter_args_t* a = hlx_lower_alloc(c, sizeof(*a));
  if (!a) return hlx_status_oom();
  memset(a, 0, sizeof *a);
  HLX_RETURN_IF_ERROR(scatter_params(op, n, &a->p));
  a->n = n;
  /* (C23), (C25): the region's types. */
  const hlx_region_t* r = op->regions[0];
  if (!r || r->num_blocks != 1 || r->blocks[0]->num_args != 2 * n)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C23) update_computation must take %d scalars",
                        2 * n);
  const hlx_block_t* b = r->blocks[0];
  const hlx_op_t* ret = b->num_ops ? b->ops[b->num_ops - 1] : NULL;
  if (!ret || ret->num_operands != n)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C23) update_computation must return %d values", n);
  bool convert = false;
  for (int32_t i = 0; i < n; i++) {
    const hlx_type_t* t = op->operands[i]->type;
    const hlx_type_t* e0 = b->args[i]->type;
    const hlx_type_t* e1 = b->args[n + i]->type;
    const hlx_type_t* er = ret->operands[i]->type;
    const hlx_type_t* rt = op->results[i]->type;
    if (e0->kind != HLX_TYPE_TENSOR || e0->rank != 0 ||
        e1->kind != HLX_TYPE_TENSOR || e1->rank != 0 ||
        er->kind != HLX_TYPE_TENSOR || er->rank != 0 ||
        e0->dtype != e1->dtype || e0->dtype != er->dtype)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C23) update_computation argument #%d, #%d and "
                          "result #%d must be scalars of one type",
                          i, n + i, i);
    if (!promotable(t, e0))
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C23) input #%d's element type %s is not "
                          "promotable to the update_computation's %s",
                          i, hlx_dtype_name(t->dtype),
                          hlx_dtype_name(e0->dtype));
    if (rt->dtype != e0->dtype)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C25) result #%d has element type %s, "
                          "update_computation returns %s",
                          i, hlx_dtype_name(rt->dtype),
                          hlx_dtype_name(e0->dtype));
    if (t->quant && e0->quant && t->dtype != e0->dtype)
      return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                          "unsupported: quantized input promoted to another "
                          "storage type");
    a->in_dtype[i] = t->dtype;
    a->e_dtype[i] = e0->dtype;
    a->in_bytes[i] = hlx_tensor_bytes(t);
    if (t->dtype != e0->dtype) convert = true;
  }
  a->in_count = 1;
  for (int32_t d = 0; d < a->p.input_rank; d++) a->in_count *= a->p.input_dims[d];
  /* Kernel paths. */
  bool kernel = false;
  if (!convert && region_is_replace(r, n)) {
    a->comb.replace = true;
    kernel = true;
  } else if (!convert && n == 1 && !op->operands[0]->type->quant &&
             hlx_region_is_simple_combiner(r, &a->comb.op)) {
    a->comb.replace = false;
    kernel = hlx_scatter_supported(a->comb, a->in_dtype[0]);
  }
  if (kernel) {
    int32_t* ins = hlx_lower_alloc(c, sizeof(int32_t) * (size_t)(2 * n + 1));
    if (!ins) return hlx_status_oom();
    for (int32_t i = 0; i < 2 * n + 1; i++)
      HLX_RETURN_IF_ERROR(hlx_lower_in(c, op, i, &ins[i]));
    int32_t *outs, nout;
    HLX_RETURN_IF_ERROR(hlx_lower_flatten(c, op, true, &outs, &nout));
    return hlx_lower_emit(c, op, run_scatter, a, 2 * n + 1, ins, nout, outs);
  }
  /* Region path. */
  for (int32_t i = 0; i < n; i++)
    if (hlx_dtype_size(a->e_dtype[i]) > 16 ||
        hlx_dtype_size(a->in_dtype[i]) > 16)
      return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                          "unsupported element type");
  hlx_plan_t* body;
  const hlx_value_t** caps;
  int32_t ncap;
  HLX_RETURN_IF_ERROR(hlx_lower_region(c, r, &body, &caps, &ncap));
  if (body->num_params != 2 * n + ncap || body->num_results != n)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C23) update_computation must take %d scalars and "
                        "return %d",
                        2 * n, n);
  a->body = body;
  a->num_captures = ncap;
  int32_t* ins =
      hlx_lower_alloc(c, sizeof(int32_t) * ((size_t)(2 * n + 1 + ncap) + 1));
  if (!ins) return hlx_status_oom();
  for (int32_t i = 0; i < 2 * n + 1; i++)
    HLX_RETURN_IF_ERROR(hlx_lower_in(c, op, i, &ins[i]));
  int32_t nin = 2 * n + 1;
  for (int32_t i = 0; i < ncap; i++) {
    hlx_value_slots_t s;
    HLX_RETURN_IF_ERROR(hlx_lower_slots_of(c, caps[i], &s));
    if (s.n != 1)
      return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                          "unsupported: update_computation captures a tuple");
    ins[nin++] = s.slots[0];
  }
  int32_t *outs, nout;
  HLX_RETURN_IF_ERROR(hlx_lower_flatten(c, op, true, &outs, &nout));
  return hlx_lower_emit(c, op, run_scatter_region, a, nin, ins, nout, outs);
}

const hlx_lowering_t hlx_lowerings_gather_scatter[] = {
    {HLX_OP_GATHER, lower_gather},
    {HLX_OP_DYNAMIC_GATHER, lower_dynamic_gather},
    {HLX_OP_SCATTER, lower_scatter},
    {HLX_OP_UNKNOWN, NULL},
};
