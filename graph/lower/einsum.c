/* Lowering of the legacy StableHLO ops einsum, unary_einsum and
 * torch_index_select (no longer in the spec; kept for old exports).
 *
 * einsum "lhs,rhs->out" runs as a batched matmul (kernels/dot.h): labels in
 * both operands and the output are batch dims, in both operands only are
 * contracted, in one operand and the output are that side's free dims. The
 * operands are permuted to [batch, free, contract] / [batch, contract, free]
 * and the [batch, lhs free, rhs free] product is permuted into the output's
 * label order. unary_einsum "in->out" is the same with a ones vector as the
 * rhs: labels missing from the output are summed.
 *
 * torch_index_select(operand, index) {dim, batch_dims} picks slices of
 * `operand` along `dim`: result[pre..., i..., post...] =
 * operand[pre..., index[pre[:batch_dims]..., i...], post...], indices
 * clamped into range as gather does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/lower/ctx.h"
#include "kernels/data_movement.h"
#include "kernels/dot.h"
#include "kernels/elementwise.h"

/* ---- einsum / unary_einsum ------------------------------------------------ */

typedef struct einsum_args_t {
  hlx_dtype_t lhs_t, rhs_t, out_t, compute;
  int32_t lrank, rrank, orank;
  int64_t ldims[HLX_MAX_RANK], rdims[HLX_MAX_RANK]; /* permuted dims */
  int64_t lstr[HLX_MAX_RANK], rstr[HLX_MAX_RANK];   /* source strides */
  int64_t odims[HLX_MAX_RANK]; /* canonical result dims */
  int64_t ostr[HLX_MAX_RANK];  /* output strides in canonical order */
  int64_t B, M, N, K;
  bool unary; /* rhs is K ones */
} einsum_args_t;

/* Copies `src` (type t, strides `str`, permuted dims) row-major into a new
 * buffer of the compute type. */
static void* gather_operand(const einsum_args_t* a, hlx_dtype_t t,
                            int32_t rank, const int64_t* dims,
                            const int64_t* str, const void* src, size_t n) {
  size_t es = hlx_dtype_size(t), cs = hlx_dtype_size(a->compute);
  int64_t rs[HLX_MAX_RANK];
  hlx_row_major_strides(rank, dims, rs);
  void* tmp = malloc(n * es + 16);
  void* dst = malloc(n * cs + 16);
  if (tmp && dst) {
    hlx_ref_copy_strided(es, rank, dims, src, str, tmp, rs);
    if (!hlx_ref_convert(t, tmp, a->compute, dst, n)) {
      free(dst);
      dst = NULL;
    }
  }
  free(tmp);
  return dst;
}

static void* ones(hlx_dtype_t compute, size_t n) {
  size_t cs = hlx_dtype_size(compute);
  int64_t one = 1;
  void* one_c = malloc(cs + 16);
  void* dst = malloc(n * cs + 16);
  if (one_c && dst && hlx_ref_convert(HLX_DTYPE_S64, &one, compute, one_c, 1))
    hlx_ref_fill(cs, one_c, dst, n);
  free(one_c);
  return dst;
}

static void matmul(hlx_dtype_t t, int64_t B, int64_t M, int64_t N, int64_t K,
                   const void* l, const void* r, void* o) {
  switch (t) {
    case HLX_DTYPE_F32: hlx_ref_batch_matmul_f32(B, M, N, K, l, r, o); break;
    case HLX_DTYPE_F64: hlx_ref_batch_matmul_f64(B, M, N, K, l, r, o); break;
    case HLX_DTYPE_C64: hlx_ref_batch_matmul_c64(B, M, N, K, l, r, o); break;
    case HLX_DTYPE_C128: hlx_ref_batch_matmul_c128(B, M, N, K, l, r, o); break;
    default: hlx_ref_batch_matmul_s64(B, M, N, K, l, r, o); break;
  }
}

static hlx_status_t run_einsum(const void* args, void* const* in,
                               void* const* out, hlx_run_ctx_t* ctx) {
  (void)ctx;
  const einsum_args_t* a = args;
  size_t nl = (size_t)(a->B * a->M * a->K), nr = (size_t)(a->B * a->K * a->N),
         no = (size_t)(a->B * a->M * a->N);
  size_t es = hlx_dtype_size(a->out_t), cs = hlx_dtype_size(a->compute);
  void* l = gather_operand(a, a->lhs_t, a->lrank, a->ldims, a->lstr, in[0], nl);
  void* r = a->unary ? ones(a->compute, nr)
                     : gather_operand(a, a->rhs_t, a->rrank, a->rdims,
                                      a->rstr, in[1], nr);
  void* o = malloc(no * cs + 16);
  void* oc = malloc(no * es + 16);
  hlx_status_t st = NULL;
  if (!l || !r || !o || !oc) {
    st = hlx_status_oom();
  } else {
    matmul(a->compute, a->B, a->M, a->N, a->K, l, r, o);
    hlx_ref_convert(a->compute, o, a->out_t, oc, no);
    int64_t rs[HLX_MAX_RANK];
    hlx_row_major_strides(a->orank, a->odims, rs);
    hlx_ref_copy_strided(es, a->orank, a->odims, oc, rs, out[0], a->ostr);
  }
  free(l);
  free(r);
  free(o);
  free(oc);
  return st;
}

/* Splits "ab,bc->ac" (or "ab->b" when unary) into label strings. */
static hlx_status_t parse_config(const hlx_op_t* op, bool unary, char* lhs,
                                 char* rhs, char* res) {
  const hlx_attr_t* cfg = hlx_op_attr(op, "einsum_config");
  if (!cfg || cfg->kind != HLX_ATTR_STRING || cfg->len > 3 * HLX_MAX_RANK + 8)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "needs a string attribute 'einsum_config'");
  const char* s = cfg->str;
  const char* arrow = strstr(s, "->");
  const char* comma = unary ? NULL : strchr(s, ',');
  if (!arrow || (!unary && (!comma || comma > arrow)))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "einsum_config '%s' is not '%s->out'", s,
                        unary ? "in" : "lhs,rhs");
  const char* lend = unary ? arrow : comma;
  size_t nl = (size_t)(lend - s), nr = unary ? 0 : (size_t)(arrow - comma - 1),
         no = strlen(arrow + 2);
  if (nl > HLX_MAX_RANK || nr > HLX_MAX_RANK || no > HLX_MAX_RANK)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: more than %d labels", HLX_MAX_RANK);
  memcpy(lhs, s, nl);
  lhs[nl] = 0;
  if (!unary) memcpy(rhs, comma + 1, nr);
  rhs[nr] = 0;
  memcpy(res, arrow + 2, no);
  res[no] = 0;
  const char* all[3] = {lhs, rhs, res};
  for (int k = 0; k < 3; k++)
    for (size_t i = 0; all[k][i]; i++) {
      char ch = all[k][i];
      if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')))
        return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                            "unsupported: einsum_config label '%c' (only "
                            "letters, no ellipsis)",
                            ch);
      if (strchr(all[k] + i + 1, ch))
        return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                            "unsupported: label '%c' repeated in one term",
                            ch);
    }
  for (size_t i = 0; res[i]; i++)
    if (!strchr(lhs, res[i]) && !strchr(rhs, res[i]))
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "output label '%c' is in no operand", res[i]);
  return NULL;
}

static hlx_dtype_t einsum_compute(hlx_dtype_t t) {
  if (hlx_dtype_is_complex(t))
    return hlx_dtype_complex_part(t) == HLX_DTYPE_F64 ? HLX_DTYPE_C128
                                                      : HLX_DTYPE_C64;
  if (hlx_dtype_is_float(t))
    return t == HLX_DTYPE_F64 ? HLX_DTYPE_F64 : HLX_DTYPE_F32;
  return HLX_DTYPE_S64;
}

/* Size of label ch (checked equal across terms); -1 when absent. */
static int64_t label_size(const char* labels, const hlx_type_t* t, char ch) {
  const char* p = strchr(labels, ch);
  return p ? t->dims[p - labels] : -1;
}

static hlx_status_t lower_einsum_common(hlx_lower_ctx_t* c,
                                        const hlx_op_t* op, bool unary) {
  int32_t nin = unary ? 1 : 2;
  if (op->num_operands != nin || op->num_results != 1)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "takes %d operand(s) and one result", nin);
  const hlx_type_t* l = hlx_static_tensor(op->operands[0]);
  const hlx_type_t* r = unary ? l : hlx_static_tensor(op->operands[1]);
  const hlx_type_t* o = hlx_static_tensor(op->results[0]);
  if (!l || !r || !o)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: dynamic shapes are not executed");
  char ls[HLX_MAX_RANK + 1], rs[HLX_MAX_RANK + 1], os[HLX_MAX_RANK + 1];
  HLX_RETURN_IF_ERROR(parse_config(op, unary, ls, rs, os));
  if ((int32_t)strlen(ls) != l->rank || (int32_t)strlen(os) != o->rank ||
      (!unary && (int32_t)strlen(rs) != r->rank))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "einsum_config term ranks differ from the operand "
                        "and result ranks");
  if (l->quant || r->quant || o->quant)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: quantized einsum");
  einsum_args_t* a = hlx_lower_alloc(c, sizeof(*a));
  if (!a) return hlx_status_oom();
  memset(a, 0, sizeof(*a));
  a->lhs_t = l->dtype;
  a->rhs_t = unary ? l->dtype : r->dtype;
  a->out_t = o->dtype;
  a->compute = einsum_compute(o->dtype);
  a->unary = unary;
  /* Classify labels; `canon` is the result's canonical label order. */
  char batch[HLX_MAX_RANK + 1] = {0}, lfree[HLX_MAX_RANK + 1] = {0},
       rfree[HLX_MAX_RANK + 1] = {0}, contr[HLX_MAX_RANK + 1] = {0};
  int nb = 0, nlf = 0, nrf = 0, nc = 0;
  for (size_t i = 0; ls[i]; i++) {
    char ch = ls[i];
    bool in_r = strchr(rs, ch) != NULL, in_o = strchr(os, ch) != NULL;
    if (!unary && !in_r && !in_o)
      return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                          "unsupported: lhs label '%c' is in neither rhs nor "
                          "output",
                          ch);
    if (in_r && label_size(rs, r, ch) != label_size(ls, l, ch))
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "label '%c' has size %lld in lhs and %lld in rhs",
                          ch, (long long)label_size(ls, l, ch),
                          (long long)label_size(rs, r, ch));
    if (in_o && label_size(os, o, ch) != label_size(ls, l, ch))
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "label '%c' has size %lld in the operand and %lld "
                          "in the result",
                          ch, (long long)label_size(ls, l, ch),
                          (long long)label_size(os, o, ch));
    if (in_r && in_o) batch[nb++] = ch;
    else if (in_o) lfree[nlf++] = ch;
    else contr[nc++] = ch; /* in rhs only, or summed (unary) */
  }
  for (size_t i = 0; !unary && rs[i]; i++) {
    char ch = rs[i];
    if (strchr(ls, ch)) continue;
    if (!strchr(os, ch))
      return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                          "unsupported: rhs label '%c' is in neither lhs nor "
                          "output",
                          ch);
    if (label_size(os, o, ch) != label_size(rs, r, ch))
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "label '%c' has size %lld in rhs and %lld in the "
                          "result",
                          ch, (long long)label_size(rs, r, ch),
                          (long long)label_size(os, o, ch));
    rfree[nrf++] = ch;
  }
  /* lhs as [batch, lfree, contr]; rhs as [batch, contr, rfree]. */
  /* Each is at most a rank long; sized for the three parts so the
   * compiler can see nothing is cut. */
  char lorder[3 * (HLX_MAX_RANK + 1)], rorder[3 * (HLX_MAX_RANK + 1)],
      canon[3 * (HLX_MAX_RANK + 1)];
  snprintf(lorder, sizeof lorder, "%s%s%s", batch, lfree, contr);
  snprintf(rorder, sizeof rorder, "%s%s%s", batch, contr, rfree);
  snprintf(canon, sizeof canon, "%s%s%s", batch, lfree, rfree);
  int64_t lsrc[HLX_MAX_RANK], rsrc[HLX_MAX_RANK], osrc[HLX_MAX_RANK];
  hlx_row_major_strides(l->rank, l->dims, lsrc);
  if (!unary) hlx_row_major_strides(r->rank, r->dims, rsrc);
  hlx_row_major_strides(o->rank, o->dims, osrc);
  a->lrank = l->rank;
  for (int32_t i = 0; i < l->rank; i++) {
    int64_t d = strchr(ls, lorder[i]) - ls;
    a->ldims[i] = l->dims[d];
    a->lstr[i] = lsrc[d];
  }
  a->rrank = unary ? 0 : r->rank;
  for (int32_t i = 0; i < a->rrank; i++) {
    int64_t d = strchr(rs, rorder[i]) - rs;
    a->rdims[i] = r->dims[d];
    a->rstr[i] = rsrc[d];
  }
  a->orank = o->rank;
  for (int32_t i = 0; i < o->rank; i++) {
    int64_t d = strchr(os, canon[i]) - os;
    a->odims[i] = o->dims[d];
    a->ostr[i] = osrc[d];
  }
  a->B = a->M = a->N = a->K = 1;
  for (int i = 0; i < nb; i++) a->B *= a->ldims[i];
  for (int i = 0; i < nlf; i++) a->M *= a->ldims[nb + i];
  for (int i = 0; i < nc; i++) a->K *= a->ldims[nb + nlf + i];
  for (int i = 0; i < nrf; i++) a->N *= a->rdims[nb + nc + i];
  return hlx_lower_emit_simple(c, op, run_einsum, a, nin);
}

static hlx_status_t lower_einsum(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  return lower_einsum_common(c, op, false);
}

static hlx_status_t lower_unary_einsum(hlx_lower_ctx_t* c,
                                       const hlx_op_t* op) {
  return lower_einsum_common(c, op, true);
}

/* ---- torch_index_select --------------------------------------------------- */

typedef struct index_select_args_t {
  size_t elem_size;
  hlx_dtype_t index_t;
  int64_t pre, per_batch, dim, idx, post; /* see run_index_select */
} index_select_args_t;

static int64_t read_int(hlx_dtype_t t, const void* p, int64_t i) {
  int64_t v = 0;
  hlx_ref_convert(t, (const char*)p + (size_t)i * hlx_dtype_size(t),
                  HLX_DTYPE_S64, &v, 1);
  return v;
}

/* result[p, i, q] = operand[p, clamp(index[p / per_batch, i]), q] for
 * p < pre (operand dims before `dim`), i < idx (index dims after the
 * batch dims), q < post (operand dims after `dim`). */
static hlx_status_t run_index_select(const void* args, void* const* in,
                                     void* const* out, hlx_run_ctx_t* ctx) {
  (void)ctx;
  const index_select_args_t* a = args;
  size_t block = a->post * a->elem_size;
  const char* src = in[0];
  char* dst = out[0];
  for (int64_t p = 0; p < a->pre; p++)
    for (int64_t i = 0; i < a->idx; i++) {
      int64_t k = read_int(a->index_t, in[1], (p / a->per_batch) * a->idx + i);
      k = k < 0 ? 0 : k >= a->dim ? a->dim - 1 : k;
      memcpy(dst + (size_t)(p * a->idx + i) * block,
             src + (size_t)(p * a->dim + k) * block, block);
    }
  return NULL;
}

static hlx_status_t lower_torch_index_select(hlx_lower_ctx_t* c,
                                             const hlx_op_t* op) {
  if (op->num_operands != 2 || op->num_results != 1)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "takes an operand and an index");
  const hlx_type_t* x = hlx_static_tensor(op->operands[0]);
  const hlx_type_t* ix = hlx_static_tensor(op->operands[1]);
  const hlx_type_t* o = hlx_static_tensor(op->results[0]);
  if (!x || !ix || !o)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: dynamic shapes are not executed");
  int64_t dim, bd;
  HLX_RETURN_IF_ERROR(hlx_attr_int(op, "dim", true, 0, &dim));
  HLX_RETURN_IF_ERROR(hlx_attr_int(op, "batch_dims", true, 0, &bd));
  if (dim < 0) dim += x->rank;
  if (bd < 0) bd += ix->rank;
  if (dim < 0 || dim >= x->rank)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "dim %lld is out of range for operand rank %d",
                        (long long)dim, x->rank);
  if (bd < 0 || bd > dim || bd > ix->rank)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "batch_dims %lld must be in [0, min(dim, index rank)]",
                        (long long)bd);
  if (!hlx_dtype_is_int(ix->dtype))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "index must have an integer element type");
  if (o->dtype != x->dtype)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "result element type %s differs from the operand's %s",
                        hlx_dtype_name(o->dtype), hlx_dtype_name(x->dtype));
  for (int64_t d = 0; d < bd; d++)
    if (ix->dims[d] != x->dims[d])
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "index batch dim %lld has size %lld, operand %lld",
                          (long long)d, (long long)ix->dims[d],
                          (long long)x->dims[d]);
  /* Result shape: operand[:dim] + index[bd:] + operand[dim+1:]. */
  int32_t want = (int32_t)(x->rank - 1 + ix->rank - bd);
  bool ok = o->rank == want;
  int32_t k = 0;
  for (int64_t d = 0; ok && d < dim; d++) ok = o->dims[k++] == x->dims[d];
  for (int64_t d = bd; ok && d < ix->rank; d++) ok = o->dims[k++] == ix->dims[d];
  for (int64_t d = dim + 1; ok && d < x->rank; d++)
    ok = o->dims[k++] == x->dims[d];
  if (!ok)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "result shape must be operand[:dim] + index[batch_dims:]"
                        " + operand[dim+1:]");
  index_select_args_t* a = hlx_lower_alloc(c, sizeof(*a));
  if (!a) return hlx_status_oom();
  a->elem_size = hlx_dtype_size(x->dtype);
  a->index_t = ix->dtype;
  a->pre = a->post = a->idx = 1;
  int64_t batch = 1;
  for (int64_t d = 0; d < dim; d++) a->pre *= x->dims[d];
  for (int64_t d = 0; d < bd; d++) batch *= x->dims[d];
  for (int64_t d = dim + 1; d < x->rank; d++) a->post *= x->dims[d];
  for (int64_t d = bd; d < ix->rank; d++) a->idx *= ix->dims[d];
  a->dim = x->dims[dim];
  a->per_batch = batch ? a->pre / batch : 1;
  if (a->per_batch == 0) a->per_batch = 1;
  if (a->dim == 0 && a->pre * a->idx * a->post != 0)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "cannot select from an empty dimension");
  return hlx_lower_emit_simple(c, op, run_index_select, a, 2);
}

const hlx_lowering_t hlx_lowerings_einsum[] = {
    {HLX_OP_EINSUM, lower_einsum},
    {HLX_OP_UNARY_EINSUM, lower_unary_einsum},
    {HLX_OP_TORCH_INDEX_SELECT, lower_torch_index_select},
    {HLX_OP_UNKNOWN, NULL},
};
