/* dot_general (and the legacy dot): operands are permuted into canonical
 * [batch, free, contract] / [batch, contract, free] order, widened into a
 * compute type (f64 / s64 / c128), multiplied by the reference batched
 * matmul and narrowed into the result's element type. */
#include <stdlib.h>
#include <string.h>

#include "graph/lower_internal.h"
#include "kernels/data_movement.h"
#include "kernels/dot.h"
#include "kernels/elementwise.h"

typedef struct canon_t {
  hlx_dtype_t dtype;
  int32_t rank;
  int64_t dims[HLX_MAX_RANK];    /* permuted dims */
  int64_t strides[HLX_MAX_RANK]; /* source strides in permuted order */
} canon_t;

typedef struct dot_args_t {
  canon_t lhs, rhs;
  hlx_dtype_t compute, out;
  int64_t B, M, N, K;
} dot_args_t;

/* Permutes and widens one operand into `dst` (compute type). */
static bool canonicalize(const canon_t* c, hlx_dtype_t compute, const void* src,
                         void* dst, size_t n) {
  size_t es = hlx_dtype_size(c->dtype);
  void* tmp = malloc(n * es + 16);
  if (!tmp) return false;
  int64_t out_strides[HLX_MAX_RANK];
  hlx_row_major_strides(c->rank, c->dims, out_strides);
  hlx_ref_copy_strided(es, c->rank, c->dims, src, c->strides, tmp, out_strides);
  bool ok = hlx_ref_convert(c->dtype, tmp, compute, dst, n);
  free(tmp);
  return ok;
}

static hlx_status_t run_dot(const void* args, void* const* in,
                            void* const* out, hlx_run_ctx_t* ctx) {
  (void)ctx;
  const dot_args_t* a = args;
  size_t cs = hlx_dtype_size(a->compute);
  size_t nl = (size_t)(a->B * a->M * a->K), nr = (size_t)(a->B * a->K * a->N),
         no = (size_t)(a->B * a->M * a->N);
  void* l = malloc(nl * cs + 16);
  void* r = malloc(nr * cs + 16);
  void* o = malloc(no * cs + 16);
  hlx_status_t st = NULL;
  if (!l || !r || !o || !canonicalize(&a->lhs, a->compute, in[0], l, nl) ||
      !canonicalize(&a->rhs, a->compute, in[1], r, nr)) {
    st = hlx_status_oom();
  } else {
    if (a->compute == HLX_DTYPE_F32)
      hlx_ref_batch_matmul_f32(a->B, a->M, a->N, a->K, l, r, o);
    else if (a->compute == HLX_DTYPE_C64)
      hlx_ref_batch_matmul_c64(a->B, a->M, a->N, a->K, l, r, o);
    else if (a->compute == HLX_DTYPE_F64)
      hlx_ref_batch_matmul_f64(a->B, a->M, a->N, a->K, l, r, o);
    else if (a->compute == HLX_DTYPE_S64)
      hlx_ref_batch_matmul_s64(a->B, a->M, a->N, a->K, l, r, o);
    else
      hlx_ref_batch_matmul_c128(a->B, a->M, a->N, a->K, l, r, o);
    hlx_ref_convert(a->compute, o, a->out, out[0], no);
  }
  free(l);
  free(r);
  free(o);
  return st;
}

/* Reads an integer list attribute field (I64_ARRAY, ARRAY of INT, DENSE). */
static bool int_list(const hlx_attr_t* a, int64_t* out, int32_t* n) {
  *n = 0;
  if (!a) return true;
  if (a->kind == HLX_ATTR_I64_ARRAY) {
    if (a->count > HLX_MAX_RANK) return false;
    if (a->count) memcpy(out, a->ints, sizeof(int64_t) * (size_t)a->count);
    *n = a->count;
    return true;
  }
  if (a->kind == HLX_ATTR_ARRAY) {
    if (a->count > HLX_MAX_RANK) return false;
    for (int32_t i = 0; i < a->count; i++) {
      if (a->items[i]->kind != HLX_ATTR_INT) return false;
      out[i] = a->items[i]->i;
    }
    *n = a->count;
    return true;
  }
  return false;
}

/* Builds the canonical view of an operand: `first` dims, then the free dims
 * (those in neither list) when free_middle, then `second`. */
static hlx_status_t make_canon(const hlx_op_t* op, const char* which,
                               const hlx_type_t* t, const int64_t* batch,
                               int32_t nb, const int64_t* contract, int32_t nc,
                               bool lhs, canon_t* c, int64_t* free_size) {
  bool used[HLX_MAX_RANK] = {false};
  int64_t rs[HLX_MAX_RANK];
  hlx_row_major_strides(t->rank, t->dims, rs);
  c->dtype = t->dtype;
  c->rank = 0;
  for (int32_t i = 0; i < nb + nc; i++) {
    int64_t d = i < nb ? batch[i] : contract[i - nb];
    if (d < 0 || d >= t->rank || used[d])
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "%s %s dimension %lld is out of range or repeated",
                          which, i < nb ? "batching" : "contracting",
                          (long long)d);
    used[d] = true;
  }
  int64_t order[HLX_MAX_RANK];
  int32_t k = 0;
  for (int32_t i = 0; i < nb; i++) order[k++] = batch[i];
  if (!lhs)
    for (int32_t i = 0; i < nc; i++) order[k++] = contract[i];
  *free_size = 1;
  for (int32_t d = 0; d < t->rank; d++)
    if (!used[d]) {
      order[k++] = d;
      *free_size *= t->dims[d];
    }
  if (lhs)
    for (int32_t i = 0; i < nc; i++) order[k++] = contract[i];
  for (int32_t i = 0; i < t->rank; i++) {
    c->dims[i] = t->dims[order[i]];
    c->strides[i] = rs[order[i]];
  }
  c->rank = t->rank;
  return NULL;
}

static hlx_dtype_t compute_type(hlx_dtype_t t) {
  if (hlx_dtype_is_complex(t)) return HLX_DTYPE_C128;
  if (hlx_dtype_is_float(t)) return HLX_DTYPE_F64;
  return HLX_DTYPE_S64;
}

static hlx_status_t lower_dot_common(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                     const int64_t* lb, int32_t nlb,
                                     const int64_t* rb, int32_t nrb,
                                     const int64_t* lc, int32_t nlc,
                                     const int64_t* rc, int32_t nrc) {
  const hlx_type_t* l = hlx_static_tensor(op->operands[0]);
  const hlx_type_t* r = hlx_static_tensor(op->operands[1]);
  const hlx_type_t* o = hlx_static_tensor(op->results[0]);
  if (!l || !r || !o || l->rank > HLX_MAX_RANK || r->rank > HLX_MAX_RANK)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: dynamic shapes are not executed");
  if (l->quant || r->quant)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: quantized operands");
  if (nlb != nrb || nlc != nrc)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "lhs and rhs need as many batching (%d vs %d) and "
                        "contracting (%d vs %d) dimensions",
                        nlb, nrb, nlc, nrc);
  int64_t B = 1, K = 1;
  for (int32_t i = 0; i < nlb; i++) {
    if (lb[i] < 0 || lb[i] >= l->rank || rb[i] < 0 || rb[i] >= r->rank)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "batching dimension pair %d is out of range", i);
    if (l->dims[lb[i]] != r->dims[rb[i]])
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "lhs batching dim %lld has size %lld, rhs dim %lld "
                          "has %lld",
                          (long long)lb[i], (long long)l->dims[lb[i]],
                          (long long)rb[i], (long long)r->dims[rb[i]]);
    B *= l->dims[lb[i]];
  }
  for (int32_t i = 0; i < nlc; i++) {
    if (lc[i] < 0 || lc[i] >= l->rank || rc[i] < 0 || rc[i] >= r->rank)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "contracting dimension pair %d is out of range", i);
    if (l->dims[lc[i]] != r->dims[rc[i]])
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "lhs contracting dim %lld has size %lld, rhs dim "
                          "%lld has %lld",
                          (long long)lc[i], (long long)l->dims[lc[i]],
                          (long long)rc[i], (long long)r->dims[rc[i]]);
    K *= l->dims[lc[i]];
  }
  dot_args_t* a = hlx_lower_alloc(c, sizeof(*a));
  if (!a) return hlx_status_oom();
  int64_t M, N;
  HLX_RETURN_IF_ERROR(make_canon(op, "lhs", l, lb, nlb, lc, nlc, true, &a->lhs, &M));
  HLX_RETURN_IF_ERROR(make_canon(op, "rhs", r, rb, nrb, rc, nrc, false, &a->rhs, &N));
  /* Result: batch dims, lhs free dims, rhs free dims. */
  int32_t want_rank = l->rank + r->rank - nlb - 2 * nlc;
  bool shape_ok = o->rank == want_rank;
  int32_t k = 0;
  for (int32_t i = 0; shape_ok && i < nlb; i++) shape_ok = o->dims[k++] == l->dims[lb[i]];
  for (int32_t i = nlb; shape_ok && i < l->rank - nlc; i++)
    shape_ok = o->dims[k++] == a->lhs.dims[i];
  for (int32_t i = nlb + nlc; shape_ok && i < r->rank; i++)
    shape_ok = o->dims[k++] == a->rhs.dims[i];
  if (!shape_ok)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "result shape is not [batch..., lhs free..., rhs "
                        "free...]");
  /* The widest domain any of the three types needs. */
  hlx_dtype_t ct = HLX_DTYPE_S64;
  hlx_dtype_t types[3] = {l->dtype, r->dtype, o->dtype};
  for (int i = 0; i < 3; i++) {
    hlx_dtype_t t = compute_type(types[i]);
    if (t == HLX_DTYPE_C128 || (t == HLX_DTYPE_F64 && ct == HLX_DTYPE_S64))
      ct = t;
  }
  /* Single precision is enough (and what XLA does) unless a type is f64. */
  bool wide = false;
  for (int i = 0; i < 3; i++)
    wide |= hlx_dtype_complex_part(types[i]) == HLX_DTYPE_F64;
  if (!wide && ct == HLX_DTYPE_F64) ct = HLX_DTYPE_F32;
  if (!wide && ct == HLX_DTYPE_C128) ct = HLX_DTYPE_C64;
  a->compute = ct;
  a->out = o->dtype;
  a->B = B;
  a->M = M;
  a->N = N;
  a->K = K;
  int32_t in[2], out;
  HLX_RETURN_IF_ERROR(hlx_lower_in(c, op, 0, &in[0]));
  HLX_RETURN_IF_ERROR(hlx_lower_in(c, op, 1, &in[1]));
  HLX_RETURN_IF_ERROR(hlx_lower_out(c, op, 0, &out));
  return hlx_lower_emit(c, op, run_dot, a, 2, in, 1, &out);
}

static hlx_status_t lower_dot_general(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  const hlx_attr_t* dn = hlx_op_attr(op, "dot_dimension_numbers");
  if (!dn || dn->kind != HLX_ATTR_STRUCT)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "missing attribute 'dot_dimension_numbers'");
  int64_t lb[HLX_MAX_RANK], rb[HLX_MAX_RANK], lc[HLX_MAX_RANK],
      rc[HLX_MAX_RANK];
  int32_t nlb, nrb, nlc, nrc;
  if (!int_list(hlx_attr_dict_get(dn, "lhs_batching_dimensions"), lb, &nlb) ||
      !int_list(hlx_attr_dict_get(dn, "rhs_batching_dimensions"), rb, &nrb) ||
      !int_list(hlx_attr_dict_get(dn, "lhs_contracting_dimensions"), lc, &nlc) ||
      !int_list(hlx_attr_dict_get(dn, "rhs_contracting_dimensions"), rc, &nrc))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "dot_dimension_numbers fields must be lists of at "
                        "most %d integers",
                        HLX_MAX_RANK);
  if (op->num_operands != 2)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT, "takes two operands");
  return lower_dot_common(c, op, lb, nlb, rb, nrb, lc, nlc, rc, nrc);
}

/* Legacy dot: vector/matrix products contracting lhs's last dim with rhs's
 * first. */
static hlx_status_t lower_dot(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  if (op->num_operands != 2)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT, "takes two operands");
  const hlx_type_t* l = op->operands[0]->type;
  if (l->kind != HLX_TYPE_TENSOR || l->rank < 1 || l->rank > 2 ||
      op->operands[1]->type->rank < 1 || op->operands[1]->type->rank > 2)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "operands must be vectors or matrices");
  int64_t lc = l->rank - 1, rc = 0;
  return lower_dot_common(c, op, NULL, 0, NULL, 0, &lc, 1, &rc, 1);
}

const hlx_lowering_t hlx_lowerings_dot[] = {
    {HLX_OP_DOT_GENERAL, lower_dot_general},
    {HLX_OP_DOT, lower_dot},
    {HLX_OP_UNKNOWN, NULL},
};
