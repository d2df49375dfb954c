/* chlo.ragged_dot: a dot_general where one lhs dimension is split into
 * groups by `group_sizes` (consecutive runs of indices):
 *   mode 1, ragged lhs free dim m:  [b,m,k] x [g,b,k,n] -> [b,m,n]
 *           (row m uses rhs group g(m); rows past the groups are zero)
 *   mode 2, ragged contracting k:   [b,m,k] x [b,k,n]   -> [g,b,m,n]
 *           (group g sums only over its own k range)
 *   mode 3, ragged batch b:         [b,m,k] x [b,k,n]   -> [b,m,n]
 *           (batches past the groups are zero)
 * group_sizes is [g] or [batch..., g]. Computed in f64 / s64 / c128 and
 * narrowed once, like the reference dot. */
#include <stdlib.h>
#include <string.h>

#include "graph/lower/ctx.h"
#include "kernels/data_movement.h"
#include "kernels/elementwise.h"

enum { kMaxDims = 2 * HLX_MAX_RANK + 1 };

typedef struct ragged_args_t {
  int mode;
  hlx_dtype_t lhs_t, rhs_t, out_t, compute, groups_t;
  size_t lhs_n, rhs_n, out_n;
  /* Output dims, with the lhs/rhs stride each one advances. */
  int32_t out_rank;
  int64_t out_dims[kMaxDims], out_lhs[kMaxDims], out_rhs[kMaxDims];
  int32_t out_ragged;  /* output dim holding the ragged index (modes 1, 3) */
  int32_t out_group;   /* mode 2: output dim 0 is the group */
  int32_t num_batch;   /* leading output dims that are batch dims */
  /* Contracting dims. */
  int32_t k_rank;
  int64_t k_dims[HLX_MAX_RANK], k_lhs[HLX_MAX_RANK], k_rhs[HLX_MAX_RANK];
  int32_t k_ragged; /* mode 2: contracting dim holding the ragged index */
  int64_t rhs_group_stride; /* mode 1 */
  int64_t num_groups;
  size_t groups_count;   /* elements of group_sizes */
  bool groups_per_batch; /* group_sizes is [batch..., g] */
} ragged_args_t;

static int64_t group_of(const ragged_args_t* a, const int64_t* sizes,
                        int64_t flat_batch, int64_t r) {
  const int64_t* s = sizes + (a->groups_per_batch ? flat_batch * a->num_groups
                                                  : 0);
  int64_t end = 0;
  for (int64_t g = 0; g < a->num_groups; g++) {
    end += s[g];
    if (r < end) return g;
  }
  return -1;
}

static void mac(hlx_dtype_t ct, void* acc, const void* l, const void* r) {
  if (ct == HLX_DTYPE_F64) {
    *(double*)acc += *(const double*)l * *(const double*)r;
  } else if (ct == HLX_DTYPE_S64) {
    *(uint64_t*)acc += *(const uint64_t*)l * *(const uint64_t*)r;
  } else {
    const double *x = l, *y = r;
    double* z = acc;
    z[0] += x[0] * y[0] - x[1] * y[1];
    z[1] += x[0] * y[1] + x[1] * y[0];
  }
}

static hlx_status_t run_ragged_dot(const void* args, void* const* in,
                                   void* const* out, hlx_run_ctx_t* ctx) {
  (void)ctx;
  const ragged_args_t* a = args;
  size_t cs = hlx_dtype_size(a->compute);
  char* l = malloc(a->lhs_n * cs + 16);
  char* r = malloc(a->rhs_n * cs + 16);
  char* o = calloc(a->out_n + 1, cs);
  int64_t* sizes = malloc((a->groups_count + 1) * sizeof(int64_t));
  hlx_status_t st = NULL;
  if (!l || !r || !o || !sizes) {
    st = hlx_status_oom();
    goto done;
  }
  hlx_ref_convert(a->lhs_t, in[0], a->compute, l, a->lhs_n);
  hlx_ref_convert(a->rhs_t, in[1], a->compute, r, a->rhs_n);
  hlx_ref_convert(a->groups_t, in[2], HLX_DTYPE_S64, sizes, a->groups_count);
  int64_t idx[kMaxDims] = {0};
  for (size_t oi = 0; oi < a->out_n; oi++) {
    int64_t lo = 0, ro = 0, flat_batch = 0;
    for (int32_t d = 0; d < a->out_rank; d++) {
      lo += idx[d] * a->out_lhs[d];
      ro += idx[d] * a->out_rhs[d];
    }
    int32_t first_batch = a->mode == 2 ? 1 : 0;
    for (int32_t d = first_batch; d < first_batch + a->num_batch; d++)
      flat_batch = flat_batch * a->out_dims[d] + idx[d];
    int64_t g = -1;
    if (a->mode == 2)
      g = idx[0];
    else
      g = group_of(a, sizes, flat_batch, idx[a->out_ragged]);
    if (g >= 0) {
      if (a->mode == 1) ro += g * a->rhs_group_stride;
      int64_t k[HLX_MAX_RANK] = {0};
      bool more = true;
      for (int32_t d = 0; d < a->k_rank; d++)
        if (a->k_dims[d] == 0) more = false;
      while (more) {
        int64_t kl = lo, kr = ro;
        for (int32_t d = 0; d < a->k_rank; d++) {
          kl += k[d] * a->k_lhs[d];
          kr += k[d] * a->k_rhs[d];
        }
        if (a->mode != 2 ||
            group_of(a, sizes, flat_batch, k[a->k_ragged]) == g)
          mac(a->compute, o + oi * cs, l + kl * (int64_t)cs, r + kr * (int64_t)cs);
        more = false;
        for (int32_t d = a->k_rank - 1; d >= 0; d--) {
          if (++k[d] < a->k_dims[d]) {
            more = true;
            break;
          }
          k[d] = 0;
        }
      }
    }
    for (int32_t d = a->out_rank - 1; d >= 0; d--) {
      if (++idx[d] < a->out_dims[d]) break;
      idx[d] = 0;
    }
  }
  hlx_ref_convert(a->compute, o, a->out_t, out[0], a->out_n);
done:
  free(l);
  free(r);
  free(o);
  free(sizes);
  return st;
}

static bool list_field(const hlx_attr_t* s, const char* name, int64_t* out,
                       int32_t* n) {
  const hlx_attr_t* a = hlx_attr_dict_get(s, name);
  *n = 0;
  if (!a) return true;
  if (a->kind != HLX_ATTR_I64_ARRAY || a->count > HLX_MAX_RANK) return false;
  if (a->count) memcpy(out, a->ints, sizeof(int64_t) * (size_t)a->count);
  *n = a->count;
  return true;
}

static bool contains(const int64_t* v, int32_t n, int64_t x) {
  for (int32_t i = 0; i < n; i++)
    if (v[i] == x) return true;
  return false;
}

static hlx_status_t lower_ragged_dot(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  const hlx_attr_t* dn = hlx_op_attr(op, "ragged_dot_dimension_numbers");
  if (op->num_operands != 3 || !dn || dn->kind != HLX_ATTR_STRUCT)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "needs lhs, rhs, group_sizes and "
                        "ragged_dot_dimension_numbers");
  const hlx_type_t* L = hlx_static_tensor(op->operands[0]);
  const hlx_type_t* R = hlx_static_tensor(op->operands[1]);
  const hlx_type_t* G = hlx_static_tensor(op->operands[2]);
  const hlx_type_t* O = hlx_static_tensor(op->results[0]);
  if (!L || !R || !G || !O || L->rank > HLX_MAX_RANK || R->rank > HLX_MAX_RANK)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: dynamic shapes are not executed");
  if (L->quant || R->quant || !hlx_dtype_is_int(G->dtype))
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: quantized operands or non-integer "
                        "group_sizes");
  int64_t lb[HLX_MAX_RANK], rb[HLX_MAX_RANK], lc[HLX_MAX_RANK],
      rc[HLX_MAX_RANK], lr[HLX_MAX_RANK], rg[HLX_MAX_RANK];
  int32_t nlb, nrb, nlc, nrc, nlr, nrg;
  if (!list_field(dn, "lhs_batching_dimensions", lb, &nlb) ||
      !list_field(dn, "rhs_batching_dimensions", rb, &nrb) ||
      !list_field(dn, "lhs_contracting_dimensions", lc, &nlc) ||
      !list_field(dn, "rhs_contracting_dimensions", rc, &nrc) ||
      !list_field(dn, "lhs_ragged_dimensions", lr, &nlr) ||
      !list_field(dn, "rhs_group_dimensions", rg, &nrg) || nlb != nrb ||
      nlc != nrc || nlr != 1 || nrg > 1)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "dimension numbers need matching batching and "
                        "contracting lists, one lhs ragged dimension and at "
                        "most one rhs group dimension");
  for (int32_t i = 0; i < nlb; i++)
    if (lb[i] < 0 || lb[i] >= L->rank || rb[i] < 0 || rb[i] >= R->rank ||
        L->dims[lb[i]] != R->dims[rb[i]])
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "batching dimension pair %d is out of range or has "
                          "different sizes",
                          i);
  for (int32_t i = 0; i < nlc; i++)
    if (lc[i] < 0 || lc[i] >= L->rank || rc[i] < 0 || rc[i] >= R->rank ||
        L->dims[lc[i]] != R->dims[rc[i]])
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "contracting dimension pair %d is out of range or "
                          "has different sizes",
                          i);
  ragged_args_t* a = hlx_lower_alloc(c, sizeof(*a));
  if (!a) return hlx_status_oom();
  int64_t ragged = lr[0];
  if (ragged < 0 || ragged >= L->rank)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "lhs ragged dimension %lld is out of range",
                        (long long)ragged);
  bool ragged_batch = contains(lb, nlb, ragged);
  bool ragged_contract = contains(lc, nlc, ragged);
  a->mode = ragged_batch ? 3 : ragged_contract ? 2 : 1;
  if ((a->mode == 1) != (nrg == 1))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "the rhs has a group dimension exactly when the "
                        "ragged dimension is an lhs non-contracting one");
  a->num_groups = G->rank ? G->dims[G->rank - 1] : 1;
  a->groups_per_batch = G->rank > 1;
  if (a->mode == 1 && R->dims[rg[0]] != a->num_groups)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "rhs group dimension has size %lld, group_sizes has "
                        "%lld groups",
                        (long long)R->dims[rg[0]], (long long)a->num_groups);
  int64_t ls[HLX_MAX_RANK], rs[HLX_MAX_RANK];
  hlx_row_major_strides(L->rank, L->dims, ls);
  hlx_row_major_strides(R->rank, R->dims, rs);
  int32_t k = 0;
  if (a->mode == 2) {
    a->out_dims[k] = a->num_groups;
    a->out_lhs[k] = a->out_rhs[k] = 0;
    k++;
  }
  for (int32_t i = 0; i < nlb; i++, k++) {
    a->out_dims[k] = L->dims[lb[i]];
    a->out_lhs[k] = ls[lb[i]];
    a->out_rhs[k] = rs[rb[i]];
    if (lb[i] == ragged) a->out_ragged = k;
  }
  a->num_batch = nlb;
  for (int32_t d = 0; d < L->rank; d++)
    if (!contains(lb, nlb, d) && !contains(lc, nlc, d)) {
      if (d == ragged) a->out_ragged = k;
      a->out_dims[k] = L->dims[d];
      a->out_lhs[k] = ls[d];
      a->out_rhs[k++] = 0;
    }
  for (int32_t d = 0; d < R->rank; d++)
    if (!contains(rb, nrb, d) && !contains(rc, nrc, d) &&
        !(nrg && d == rg[0])) {
      a->out_dims[k] = R->dims[d];
      a->out_lhs[k] = 0;
      a->out_rhs[k++] = rs[d];
    }
  a->out_rank = k;
  bool shape_ok = O->rank == k;
  for (int32_t d = 0; shape_ok && d < k; d++)
    shape_ok = O->dims[d] == a->out_dims[d];
  if (!shape_ok)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "result shape does not match mode %d's "
                        "[%sbatch, lhs free, rhs free]",
                        a->mode, a->mode == 2 ? "group, " : "");
  a->k_rank = nlc;
  for (int32_t i = 0; i < nlc; i++) {
    a->k_dims[i] = L->dims[lc[i]];
    a->k_lhs[i] = ls[lc[i]];
    a->k_rhs[i] = rs[rc[i]];
    if (lc[i] == ragged) a->k_ragged = i;
  }
  a->rhs_group_stride = nrg ? rs[rg[0]] : 0;
  int64_t expect_groups = a->num_groups;
  if (a->groups_per_batch)
    for (int32_t i = 0; i < nlb; i++) expect_groups *= L->dims[lb[i]];
  if (hlx_type_num_elements(G) != expect_groups)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "group_sizes must be [g] or [batch..., g]");
  a->groups_count = (size_t)expect_groups;
  a->lhs_t = L->dtype;
  a->rhs_t = R->dtype;
  a->out_t = O->dtype;
  a->groups_t = G->dtype;
  hlx_dtype_t ct = HLX_DTYPE_S64;
  hlx_dtype_t types[3] = {L->dtype, R->dtype, O->dtype};
  for (int i = 0; i < 3; i++) {
    if (hlx_dtype_is_complex(types[i])) ct = HLX_DTYPE_C128;
    else if (hlx_dtype_is_float(types[i]) && ct == HLX_DTYPE_S64)
      ct = HLX_DTYPE_F64;
  }
  a->compute = ct;
  a->lhs_n = (size_t)hlx_type_num_elements(L);
  a->rhs_n = (size_t)hlx_type_num_elements(R);
  a->out_n = (size_t)hlx_type_num_elements(O);
  int32_t ins[3], out;
  for (int i = 0; i < 3; i++) HLX_RETURN_IF_ERROR(hlx_lower_in(c, op, i, &ins[i]));
  HLX_RETURN_IF_ERROR(hlx_lower_out(c, op, 0, &out));
  return hlx_lower_emit(c, op, run_ragged_dot, a, 3, ins, 1, &out);
}

const hlx_lowering_t hlx_lowerings_ragged_dot[] = {
    {HLX_OP_CHLO_RAGGED_DOT, lower_ragged_dot},
    {HLX_OP_UNKNOWN, NULL},
};
