/* dot_general's Constraints C1-C24 and its result type. Dynamic dims
 * are skipped: their sizes are only known at run time. */
#include <stdio.h>
#include <string.h>

#include "graph/ir/attr.h"
#include "graph/ops/family.h"

typedef struct dims_t {
  int64_t v[HLX_MAX_RANK];
  int32_t n;
} dims_t;

static bool known(int64_t d) { return d != HLX_DYNAMIC_DIM; }

/* 0 integer or i1, 1 float, 2 complex. */
static int type_kind(hlx_dtype_t t) {
  return hlx_dtype_is_complex(t) ? 2 : hlx_dtype_is_float(t) ? 1 : 0;
}

/* (C3/C4) unique and (C5-C8) in range, for one side. */
static hlx_status_t side_dims(const hlx_op_t* op, const char* side,
                              const hlx_type_t* t, const dims_t* b,
                              const dims_t* k, int unique_rule,
                              int batch_rule, int contract_rule) {
  bool used[HLX_MAX_RANK] = {false};
  for (int32_t i = 0; i < b->n + k->n; i++) {
    bool batch = i < b->n;
    int64_t d = batch ? b->v[i] : k->v[i - b->n];
    if (d < 0 || d >= t->rank)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C%d) %s_%s_dimensions has %lld, out of range for "
                          "rank %d",
                          batch ? batch_rule : contract_rule, side,
                          batch ? "batching" : "contracting", (long long)d,
                          t->rank);
    if (used[d])
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C%d) %s dimension %lld appears twice in the "
                          "batching and contracting dimensions",
                          unique_rule, side, (long long)d);
    used[d] = true;
  }
  return NULL;
}

static hlx_status_t sizes_match(const hlx_op_t* op, const char* what,
                                const hlx_type_t* l, const dims_t* ld,
                                const hlx_type_t* r, const dims_t* rd,
                                int rule) {
  for (int32_t i = 0; i < ld->n; i++) {
    int64_t a = l->dims[ld->v[i]], b = r->dims[rd->v[i]];
    if (known(a) && known(b) && a != b)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C%d) lhs %s dim %lld has size %lld, rhs dim %lld "
                          "has %lld",
                          rule, what, (long long)ld->v[i], (long long)a,
                          (long long)rd->v[i], (long long)b);
  }
  return NULL;
}

/* (C12) result = batch dims, then lhs free dims, then rhs free dims. */
static hlx_status_t result_shape(const hlx_op_t* op, const hlx_type_t* l,
                                 const hlx_type_t* r, const hlx_type_t* o,
                                 const dims_t* lb, const dims_t* lc,
                                 const dims_t* rb, const dims_t* rc) {
  int64_t want[2 * HLX_MAX_RANK];
  int32_t n = 0;
  bool used_l[HLX_MAX_RANK] = {false}, used_r[HLX_MAX_RANK] = {false};
  for (int32_t i = 0; i < lb->n; i++) want[n++] = l->dims[lb->v[i]];
  for (int32_t i = 0; i < lb->n; i++) used_l[lb->v[i]] = true;
  for (int32_t i = 0; i < lc->n; i++) used_l[lc->v[i]] = true;
  for (int32_t i = 0; i < rb->n; i++) used_r[rb->v[i]] = true;
  for (int32_t i = 0; i < rc->n; i++) used_r[rc->v[i]] = true;
  for (int32_t d = 0; d < l->rank; d++)
    if (!used_l[d]) want[n++] = l->dims[d];
  for (int32_t d = 0; d < r->rank; d++)
    if (!used_r[d]) want[n++] = r->dims[d];
  bool ok = o->rank == n;
  for (int32_t d = 0; ok && d < n; d++)
    ok = !known(o->dims[d]) || !known(want[d]) || o->dims[d] == want[d];
  if (ok) return NULL;
  char buf[160];
  size_t k = 0;
  buf[0] = 0;
  for (int32_t d = 0; d < n && k < sizeof buf; d++)
    k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%lld", d ? "x" : "",
                          (long long)want[d]);
  return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                      "(C12) result shape must be [batch..., lhs free..., "
                      "rhs free...] = [%s]",
                      buf);
}

/* C14-C20: quantized operands. */
static hlx_status_t quant_rules(const hlx_op_t* op, const hlx_type_t* l,
                                const hlx_type_t* r, const hlx_type_t* o,
                                const dims_t* rc) {
  const hlx_quant_t *lq = l->quant, *rq = r->quant, *oq = o->quant;
  if (!rq) {
    if (lq || oq)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C14) a quantized lhs or result needs a quantized "
                          "rhs");
    return NULL;
  }
  if (lq && !oq)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C14) is_quantized(lhs) = is_quantized(result) and "
                        "is_quantized(rhs)");
  for (int32_t i = 0; i < rq->num_scales; i++)
    if (rq->zero_points && rq->zero_points[i] != 0)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C15) rhs zero point #%d is %lld, must be 0", i,
                          (long long)rq->zero_points[i]);
  if (rq->quantized_dimension >= 0)
    for (int32_t i = 0; i < rc->n; i++)
      if (rc->v[i] == rq->quantized_dimension)
        return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                            "(C16) quantization_dimension(rhs) = %d is a "
                            "contracting dimension",
                            rq->quantized_dimension);
  if (lq) {
    if (lq->storage != rq->storage)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C17) storage types %s (lhs) and %s (rhs) differ",
                          hlx_dtype_name(lq->storage),
                          hlx_dtype_name(rq->storage));
    if (lq->expressed != rq->expressed || lq->expressed != oq->expressed)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C18) expressed types of lhs, rhs and result "
                          "differ");
    if (rq->quantized_dimension < 0 && oq->quantized_dimension >= 0)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C19) a per-tensor rhs needs a per-tensor result");
  } else if (oq || l->dtype != rq->expressed || o->dtype != l->dtype) {
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C20) element_type(lhs) = expressed_type(rhs) = "
                        "element_type(result) is broken (%s, %s, %s)",
                        hlx_dtype_name(l->dtype),
                        hlx_dtype_name(rq->expressed),
                        oq ? "quantized" : hlx_dtype_name(o->dtype));
  }
  return NULL;
}

/* C21-C24: with an algorithm, precision_config is DEFAULT and the
 * algorithm's counts are positive. */
static hlx_status_t algorithm_rules(const hlx_op_t* op) {
  const hlx_attr_t* alg = hlx_op_attr(op, "algorithm");
  if (!alg || (alg->kind != HLX_ATTR_STRUCT && alg->kind != HLX_ATTR_DICT))
    return NULL;
  const hlx_attr_t* pc = hlx_op_attr(op, "precision_config");
  for (int32_t i = 0; pc && pc->kind == HLX_ATTR_ARRAY && i < pc->count; i++) {
    const hlx_attr_t* e = pc->items[i];
    if (e->kind == HLX_ATTR_ENUM && strcmp(e->enum_value, "DEFAULT") != 0)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C21) precision_config[%d] is %s, must be DEFAULT "
                          "with an algorithm",
                          i, e->enum_value);
  }
  static const char* const kCounts[] = {"lhs_component_count",
                                        "rhs_component_count",
                                        "num_primitive_operations"};
  for (int i = 0; i < 3; i++) {
    const hlx_attr_t* v = hlx_attr_dict_get(alg, kCounts[i]);
    if (v && v->kind == HLX_ATTR_INT && v->i <= 0)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C%d) %s = %lld must be > 0", 22 + i, kCounts[i],
                          (long long)v->i);
  }
  return NULL;
}

/* The dimension numbers of a dot_general; false (with the status) when
 * they cannot be read. */
typedef struct dot_dims_t {
  dims_t lb, rb, lc, rc;
} dot_dims_t;

static hlx_status_t read_dims(const hlx_op_t* op, dot_dims_t* d) {
  const hlx_attr_t* dn = hlx_op_attr(op, "dot_dimension_numbers");
  if (!dn || dn->kind != HLX_ATTR_STRUCT)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "missing attribute 'dot_dimension_numbers'");
  if (!hlx_attr_int_list(hlx_attr_dict_get(dn, "lhs_batching_dimensions"),
                         d->lb.v, HLX_MAX_RANK, &d->lb.n) ||
      !hlx_attr_int_list(hlx_attr_dict_get(dn, "rhs_batching_dimensions"),
                         d->rb.v, HLX_MAX_RANK, &d->rb.n) ||
      !hlx_attr_int_list(hlx_attr_dict_get(dn, "lhs_contracting_dimensions"),
                         d->lc.v, HLX_MAX_RANK, &d->lc.n) ||
      !hlx_attr_int_list(hlx_attr_dict_get(dn, "rhs_contracting_dimensions"),
                         d->rc.v, HLX_MAX_RANK, &d->rc.n))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "dot_dimension_numbers fields must be lists of at "
                        "most %d integers",
                        HLX_MAX_RANK);
  return NULL;
}

/* The rules on the operands alone (C1-C10, C13), which the result type
 * follows from. */
static hlx_status_t operand_rules(const hlx_op_t* op, dot_dims_t* d) {
  const hlx_type_t* l = op->operands[0]->type;
  const hlx_type_t* r = op->operands[1]->type;
  if (l->kind != HLX_TYPE_TENSOR || r->kind != HLX_TYPE_TENSOR)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "operands must be tensors");
  HLX_RETURN_IF_ERROR(read_dims(op, d));
  /* C13 asks for equal element types; like XLA we take mixed integer
   * widths/signs (ui8 x i8 -> i32 runs on oneDNN) and mixed float widths,
   * and reject only mixed kinds (float x integer, complex x real). */
  if (!l->quant && !r->quant && type_kind(l->dtype) != type_kind(r->dtype))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C13) lhs has element type %s, rhs %s",
                        hlx_dtype_name(l->dtype), hlx_dtype_name(r->dtype));
  if (d->lb.n != d->rb.n)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C1) lhs and rhs need as many batching dimensions "
                        "(%d vs %d)",
                        d->lb.n, d->rb.n);
  if (d->lc.n != d->rc.n)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C2) lhs and rhs need as many contracting "
                        "dimensions (%d vs %d)",
                        d->lc.n, d->rc.n);
  HLX_RETURN_IF_ERROR(side_dims(op, "lhs", l, &d->lb, &d->lc, 3, 5, 6));
  HLX_RETURN_IF_ERROR(side_dims(op, "rhs", r, &d->rb, &d->rc, 4, 7, 8));
  HLX_RETURN_IF_ERROR(sizes_match(op, "batching", l, &d->lb, r, &d->rb, 9));
  HLX_RETURN_IF_ERROR(
      sizes_match(op, "contracting", l, &d->lc, r, &d->rc, 10));
  return NULL;
}

/* (C11) precision_config has one entry per operand (or is absent). */
static hlx_status_t precision_rule(const hlx_op_t* op) {
  const hlx_attr_t* pc = hlx_op_attr(op, "precision_config");
  if (pc && (pc->kind != HLX_ATTR_ARRAY || pc->count != 2))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C11) precision_config must have 2 entries, has %d",
                        pc->kind == HLX_ATTR_ARRAY ? pc->count : -1);
  return NULL;
}

static hlx_status_t verify_dot_general(const hlx_op_t* op,
                                       const hlx_module_t* m) {
  (void)m;
  dot_dims_t d;
  HLX_RETURN_IF_ERROR(operand_rules(op, &d));
  const hlx_type_t* l = op->operands[0]->type;
  const hlx_type_t* r = op->operands[1]->type;
  const hlx_type_t* o = op->results[0]->type;
  if (o->kind != HLX_TYPE_TENSOR)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "the result must be a tensor");
  HLX_RETURN_IF_ERROR(precision_rule(op));
  HLX_RETURN_IF_ERROR(result_shape(op, l, r, o, &d.lb, &d.lc, &d.rb, &d.rc));
  HLX_RETURN_IF_ERROR(quant_rules(op, l, r, o, &d.rc));
  return algorithm_rules(op);
}

/* (C12) [batch..., lhs free..., rhs free...], of lhs's element type (the
 * common choice: XlaBuilder's and the builder's; a program may declare a
 * wider result, which verify accepts). */
static hlx_status_t infer_dot_general(const hlx_op_t* op, hlx_arena_t* arena,
                                      hlx_type_t** out) {
  dot_dims_t d;
  HLX_RETURN_IF_ERROR(operand_rules(op, &d));
  const hlx_type_t* l = op->operands[0]->type;
  const hlx_type_t* r = op->operands[1]->type;
  if (l->quant || r->quant)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "the result type of a quantized dot_general must be "
                        "given");
  int64_t dims[2 * HLX_MAX_RANK];
  bool used_l[HLX_MAX_RANK] = {false}, used_r[HLX_MAX_RANK] = {false};
  int32_t n = 0;
  for (int32_t i = 0; i < d.lb.n; i++) dims[n++] = l->dims[d.lb.v[i]];
  for (int32_t i = 0; i < d.lb.n; i++) used_l[d.lb.v[i]] = true;
  for (int32_t i = 0; i < d.lc.n; i++) used_l[d.lc.v[i]] = true;
  for (int32_t i = 0; i < d.rb.n; i++) used_r[d.rb.v[i]] = true;
  for (int32_t i = 0; i < d.rc.n; i++) used_r[d.rc.v[i]] = true;
  for (int32_t i = 0; i < l->rank; i++)
    if (!used_l[i]) dims[n++] = l->dims[i];
  for (int32_t i = 0; i < r->rank; i++)
    if (!used_r[i]) dims[n++] = r->dims[i];
  if (n > HLX_MAX_RANK)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "the result would have rank %d, above %d", (int)n,
                        HLX_MAX_RANK);
  out[0] = hlx_ops_tensor_type(arena, l->dtype, n, dims);
  return out[0] ? NULL : hlx_status_oom();
}

const hlx_op_rules_t hlx_op_rules_dot[] = {
    {HLX_OP_DOT_GENERAL, verify_dot_general, infer_dot_general},
    {HLX_OP_UNKNOWN, NULL, NULL},
};
