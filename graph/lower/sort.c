/* sort and chlo.top_k.
 *
 * sort: a comparator that is a lexicographic chain of key compares (one
 * `compare LT/GT` of an operand's two arguments, optionally behind JAX's
 * -0/NaN canonicalisation, chained as `or(lt, and(eq, rest))`) runs the
 * native key sort (one 4-byte key on slices of >= 256: the radix sort of
 * kernels/sort_radix.h, else the merge sort); any other comparator runs as
 * a sub-plan per comparison inside the same stable merge sort. */
#include <stdlib.h>
#include <string.h>

#include "graph/lower/ctx.h"
#include "kernels/elementwise.h"
#include "kernels/sort.h"
#include "kernels/sort_radix.h"

enum { kMaxSortOperands = 64, kMaxSortKeys = HLX_SORT_MAX_KEYS };

/* ---- comparator recognition ---------------------------------------------- */

static const hlx_op_t* def_of(const hlx_value_t* v, hlx_opcode_t code) {
  return v && v->def && v->def->code == code ? v->def : NULL;
}

/* Bits of a scalar constant (element size <= 8). */
static bool scalar_const_bits(const hlx_value_t* v, uint64_t* bits) {
  const hlx_op_t* c = def_of(v, HLX_OP_CONSTANT);
  if (!c) return false;
  const hlx_attr_t* a = hlx_op_attr(c, "value");
  if (!a || a->kind != HLX_ATTR_DENSE || !a->type || a->type->quant ||
      hlx_type_num_elements(a->type) != 1)
    return false;
  size_t es = hlx_dtype_size(a->type->dtype);
  if (es > 8 || a->dense_bytes < es) return false;
  *bits = 0;
  memcpy(bits, a->dense, es);
  return true;
}

typedef struct cmp_info_t {
  hlx_compare_dir_t dir;
  hlx_compare_type_t type;
  const hlx_value_t *lhs, *rhs;
} cmp_info_t;

static bool match_compare(const hlx_value_t* v, cmp_info_t* ci) {
  const hlx_op_t* f = def_of(v, HLX_OP_COMPARE);
  if (!f || f->num_operands != 2) return false;
  const hlx_attr_t* d = hlx_op_attr(f, "comparison_direction");
  if (!d || d->kind != HLX_ATTR_ENUM || !d->enum_value) return false;
  static const char* const kDirs[] = {"EQ", "NE", "GE", "GT", "LE", "LT"};
  int dir = -1;
  for (int i = 0; i < 6; i++)
    if (strcmp(d->enum_value, kDirs[i]) == 0) dir = i;
  if (dir < 0) return false;
  ci->dir = (hlx_compare_dir_t)dir;
  ci->type = HLX_CMP_DEFAULT;
  const hlx_attr_t* t = hlx_op_attr(f, "compare_type");
  if (t) {
    if (t->kind != HLX_ATTR_ENUM || !t->enum_value) return false;
    static const char* const kTypes[] = {"NOTYPE", "FLOAT", "TOTALORDER",
                                         "SIGNED", "UNSIGNED"};
    int k = -1;
    for (int i = 0; i < 5; i++)
      if (strcmp(t->enum_value, kTypes[i]) == 0) k = i;
    if (k < 0) return false;
    ci->type = (hlx_compare_type_t)k;
  }
  ci->lhs = f->operands[0];
  ci->rhs = f->operands[1];
  return true;
}

/* The order a compare of this type applies to dtype t. */
static bool sort_order_of(hlx_compare_type_t type, hlx_dtype_t t,
                          hlx_sort_order_t* order) {
  switch (type) {
    case HLX_CMP_DEFAULT:
      if (hlx_dtype_is_float(t)) *order = HLX_SORT_FLOAT;
      else if (hlx_dtype_is_signed_int(t)) *order = HLX_SORT_SIGNED;
      else *order = HLX_SORT_UNSIGNED;
      break;
    case HLX_CMP_FLOAT: *order = HLX_SORT_FLOAT; break;
    case HLX_CMP_TOTALORDER: *order = HLX_SORT_TOTALORDER; break;
    case HLX_CMP_SIGNED: *order = HLX_SORT_SIGNED; break;
    case HLX_CMP_UNSIGNED: *order = HLX_SORT_UNSIGNED; break;
  }
  return hlx_sort_key_supported(t, *order);
}

/* What a compare operand is in terms of the block arguments. */
typedef struct key_value_t {
  int32_t arg;
  bool canon;
  uint64_t match, zero, nan;
} key_value_t;

static bool is_float_compare(const cmp_info_t* c) {
  return c->type == HLX_CMP_DEFAULT || c->type == HLX_CMP_FLOAT;
}

/* v is a block argument x, or JAX's canonicalisation of one:
 *   select(compare NE x x, NAN, select(compare EQ x ZERO, ZERO2, x)). */
static bool match_key_value(const hlx_block_t* b, const hlx_value_t* v,
                            key_value_t* kv) {
  memset(kv, 0, sizeof *kv);
  if (!v->def) {
    if (v->block != b) return false;
    kv->arg = v->index;
    return true;
  }
  const hlx_op_t* outer = def_of(v, HLX_OP_SELECT);
  if (!outer || outer->num_operands != 3) return false;
  cmp_info_t ne, eq;
  if (!match_compare(outer->operands[0], &ne) || ne.dir != HLX_CMP_NE ||
      !is_float_compare(&ne) || ne.lhs != ne.rhs || ne.lhs->def ||
      ne.lhs->block != b)
    return false;
  const hlx_value_t* x = ne.lhs;
  if (!scalar_const_bits(outer->operands[1], &kv->nan)) return false;
  const hlx_op_t* inner = def_of(outer->operands[2], HLX_OP_SELECT);
  if (!inner || inner->num_operands != 3 || inner->operands[2] != x ||
      !scalar_const_bits(inner->operands[1], &kv->zero))
    return false;
  if (!match_compare(inner->operands[0], &eq) || eq.dir != HLX_CMP_EQ ||
      !is_float_compare(&eq))
    return false;
  const hlx_value_t* c = eq.lhs == x ? eq.rhs : eq.rhs == x ? eq.lhs : NULL;
  if (!c || !scalar_const_bits(c, &kv->match)) return false;
  if (!hlx_dtype_is_float(x->type->dtype)) return false;
  kv->arg = x->index;
  kv->canon = true;
  return true;
}

static bool same_canon(const key_value_t* a, const key_value_t* b) {
  return a->canon == b->canon &&
         (!a->canon ||
          (a->match == b->match && a->zero == b->zero && a->nan == b->nan));
}

/* A single LT/GT key compare; ci receives the compare. */
static bool match_key_compare(const hlx_block_t* b, const hlx_value_t* v,
                              hlx_sort_key_t* key, cmp_info_t* ci) {
  if (!match_compare(v, ci) || (ci->dir != HLX_CMP_LT && ci->dir != HLX_CMP_GT))
    return false;
  key_value_t l, r;
  if (!match_key_value(b, ci->lhs, &l) || !match_key_value(b, ci->rhs, &r) ||
      !same_canon(&l, &r))
    return false;
  bool swapped;
  if (l.arg % 2 == 0 && r.arg == l.arg + 1)
    swapped = false;
  else if (r.arg % 2 == 0 && l.arg == r.arg + 1)
    swapped = true;
  else
    return false;
  memset(key, 0, sizeof *key);
  key->operand = (swapped ? r.arg : l.arg) / 2;
  hlx_dtype_t t = b->args[l.arg]->type->dtype;
  if (!sort_order_of(ci->type, t, &key->order)) return false;
  key->descending = (ci->dir == HLX_CMP_GT) != swapped;
  key->canonicalize = l.canon;
  key->match_bits = l.match;
  key->zero_bits = l.zero;
  key->nan_bits = l.nan;
  return true;
}

static bool match_keys(const hlx_block_t* b, const hlx_value_t* v,
                       hlx_sort_key_t* keys, int32_t* nk) {
  if (*nk >= kMaxSortKeys) return false;
  cmp_info_t ci;
  if (match_key_compare(b, v, &keys[*nk], &ci)) {
    (*nk)++;
    return true;
  }
  /* or(lt, and(eq, rest)) with either operand order of or / and. */
  const hlx_op_t* orop = def_of(v, HLX_OP_OR);
  if (!orop || orop->num_operands != 2) return false;
  for (int i = 0; i < 2; i++) {
    int32_t save = *nk;
    if (!match_key_compare(b, orop->operands[i], &keys[*nk], &ci)) continue;
    const hlx_op_t* andop = def_of(orop->operands[1 - i], HLX_OP_AND);
    if (!andop || andop->num_operands != 2) continue;
    for (int j = 0; j < 2; j++) {
      cmp_info_t eq;
      if (!match_compare(andop->operands[j], &eq) || eq.dir != HLX_CMP_EQ ||
          eq.type != ci.type ||
          !((eq.lhs == ci.lhs && eq.rhs == ci.rhs) ||
            (eq.lhs == ci.rhs && eq.rhs == ci.lhs)))
        continue;
      *nk = save + 1;
      if (match_keys(b, andop->operands[1 - j], keys, nk)) return true;
      *nk = save;
    }
  }
  return false;
}

bool hlx_lower_sort_keys(const hlx_block_t* b, hlx_sort_key_t* keys,
                         int32_t* num_keys) {
  const hlx_op_t* ret = b->num_ops ? b->ops[b->num_ops - 1] : NULL;
  *num_keys = 0;
  return ret && ret->num_operands == 1 &&
         match_keys(b, ret->operands[0], keys, num_keys);
}

/* ---- tasks ----------------------------------------------------------------- */

typedef struct sort_args_t {
  int32_t n;
  int32_t rank, axis;
  int64_t dims[HLX_MAX_RANK];
  hlx_dtype_t dtypes[kMaxSortOperands];
  size_t elem_size[kMaxSortOperands];
  int32_t num_keys;
  hlx_sort_key_t keys[kMaxSortKeys];
  const hlx_plan_t* body; /* region path */
  int32_t num_captures;
} sort_args_t;

static hlx_status_t run_sort_native(const void* args, void* const* in,
                                    void* const* out, hlx_run_ctx_t* ctx) {
  const sort_args_t* a = args;
  if (a->num_keys == 1) {
    bool done;
    HLX_RETURN_IF_ERROR(hlx_sort_radix(a->n, a->dtypes, a->rank, a->dims,
                                       a->axis, &a->keys[0],
                                       (const void* const*)in, out,
                                       ctx->parallel, &done));
    if (done) return NULL;
  }
  return hlx_ref_sort(a->n, a->dtypes, a->rank, a->dims, a->axis, a->keys,
                      a->num_keys, (const void* const*)in, out);
}

hlx_status_t hlx_lower_plan_less(void* user, int64_t lhs, int64_t rhs,
                                 bool* less) {
  hlx_lower_plan_less_t* r = user;
  for (int32_t k = 0; k < r->n; k++) {
    const unsigned char* base = r->in[k];
    r->params[2 * k] = base + (size_t)lhs * r->elem_size[k];
    r->params[2 * k + 1] = base + (size_t)rhs * r->elem_size[k];
  }
  uint8_t pred = 0;
  void* res[1] = {&pred};
  HLX_RETURN_IF_ERROR(hlx_plan_execute(r->plan, r->params, res, r->ctx));
  *less = pred != 0;
  return NULL;
}

static hlx_status_t run_sort_region(const void* args, void* const* in,
                                    void* const* out, hlx_run_ctx_t* ctx) {
  const sort_args_t* a = args;
  int32_t np = 2 * a->n + a->num_captures;
  const void** params = calloc((size_t)np + 1, sizeof(void*));
  if (!params) return hlx_status_oom();
  for (int32_t c = 0; c < a->num_captures; c++)
    params[2 * a->n + c] = in[a->n + c];
  hlx_lower_plan_less_t r = {a->body, a->n, a->elem_size,
                             (const void* const*)in, params, ctx};
  hlx_status_t st = hlx_ref_sort_custom(a->n, a->elem_size, a->rank, a->dims,
                                        a->axis, hlx_lower_plan_less, &r,
                                        (const void* const*)in, out);
  free(params);
  return st;
}

/* ---- lowering -------------------------------------------------------------- */

static hlx_status_t lower_sort(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  int32_t n = op->num_operands;
  if (n < 1)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C1) needs at least one input");
  if (n > kMaxSortOperands)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: more than %d inputs", kMaxSortOperands);
  if (op->num_results != n)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C2) has %d inputs but %d results", n,
                        op->num_results);
  if (op->num_regions != 1 || op->regions[0]->num_blocks != 1)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "needs one comparator region");
  const hlx_type_t* in0 = hlx_static_tensor(op->operands[0]);
  if (!in0)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: input #0 is not a static tensor");
  if (in0->rank > HLX_MAX_RANK)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: rank > %d", HLX_MAX_RANK);
  bool quant = false;
  for (int32_t i = 0; i < n; i++) {
    const hlx_type_t* t = hlx_static_tensor(op->operands[i]);
    const hlx_type_t* r = hlx_static_tensor(op->results[i]);
    if (!t || !r)
      return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                          "unsupported: input or result #%d is not a static "
                          "tensor",
                          i);
    if (!hlx_type_equal(t, r))
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C2) result #%d's type differs from input #%d's", i,
                          i);
    if (t->rank != in0->rank)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C3) input #%d has rank %d, input #0 has %d", i,
                          t->rank, in0->rank);
    for (int32_t d = 0; d < t->rank; d++)
      if (t->dims[d] != in0->dims[d])
        return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                            "(C3) input #%d's shape differs from input #0's "
                            "in dim %d (%lld vs %lld)",
                            i, d, (long long)t->dims[d],
                            (long long)in0->dims[d]);
    if (t->quant) quant = true;
  }
  int64_t dim;
  HLX_RETURN_IF_ERROR(hlx_attr_int(op, "dimension", false, -1, &dim));
  int64_t R = in0->rank;
  if (dim < -R || dim >= R)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C4) dimension %lld is not in [-%lld, %lld)",
                        (long long)dim, (long long)R, (long long)R);
  const hlx_attr_t* st = hlx_op_attr(op, "is_stable");
  if (st && st->kind != HLX_ATTR_BOOL)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "attribute 'is_stable' must be a bool");
  /* (C5) comparator type. */
  const hlx_block_t* b = op->regions[0]->blocks[0];
  if (b->num_args != 2 * n)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C5) comparator takes %d arguments, expected %d",
                        b->num_args, 2 * n);
  for (int32_t i = 0; i < 2 * n; i++) {
    const hlx_type_t* at = b->args[i]->type;
    const hlx_type_t* it = op->operands[i / 2]->type;
    bool ok = at && at->kind == HLX_TYPE_TENSOR && at->rank == 0 &&
              at->dtype == it->dtype && (!at->quant) == (!it->quant);
    if (!ok)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C5) comparator argument #%d must be tensor<%s>", i,
                          hlx_dtype_name(it->dtype));
  }
  const hlx_op_t* ret = b->num_ops ? b->ops[b->num_ops - 1] : NULL;
  if (!ret || ret->num_operands != 1 || !ret->operands[0]->type ||
      ret->operands[0]->type->kind != HLX_TYPE_TENSOR ||
      ret->operands[0]->type->rank != 0 ||
      ret->operands[0]->type->dtype != HLX_DTYPE_PRED)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C5) comparator must return one tensor<i1>");

  sort_args_t* a = hlx_lower_alloc(c, sizeof(*a));
  if (!a) return hlx_status_oom();
  memset(a, 0, sizeof *a);
  a->n = n;
  a->rank = in0->rank;
  a->axis = (int32_t)(dim < 0 ? dim + R : dim);
  memcpy(a->dims, in0->dims, sizeof(int64_t) * (size_t)in0->rank);
  for (int32_t i = 0; i < n; i++) {
    a->dtypes[i] = op->operands[i]->type->dtype;
    a->elem_size[i] = hlx_dtype_size(a->dtypes[i]);
  }
  int32_t* outs;
  int32_t nout;
  int32_t nk = 0;
  if (!quant && match_keys(b, ret->operands[0], a->keys, &nk)) {
    a->num_keys = nk;
    int32_t* ins = hlx_lower_alloc(c, (size_t)n * sizeof(int32_t));
    if (!ins) return hlx_status_oom();
    for (int32_t i = 0; i < n; i++)
      HLX_RETURN_IF_ERROR(hlx_lower_in(c, op, i, &ins[i]));
    HLX_RETURN_IF_ERROR(hlx_lower_flatten(c, op, true, &outs, &nout));
    return hlx_lower_emit(c, op, run_sort_native, a, n, ins, nout, outs);
  }
  hlx_plan_t* body;
  const hlx_value_t** caps;
  int32_t ncap;
  HLX_RETURN_IF_ERROR(hlx_lower_region(c, op->regions[0], &body, &caps, &ncap));
  if (body->num_params != 2 * n + ncap || body->num_results != 1)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C5) comparator must take %d scalars and return one "
                        "i1",
                        2 * n);
  a->body = body;
  a->num_captures = ncap;
  int32_t* ins = hlx_lower_alloc(c, ((size_t)(n + ncap) + 1) * sizeof(int32_t));
  if (!ins) return hlx_status_oom();
  for (int32_t i = 0; i < n; i++)
    HLX_RETURN_IF_ERROR(hlx_lower_in(c, op, i, &ins[i]));
  for (int32_t i = 0; i < ncap; i++) {
    hlx_value_slots_t s;
    HLX_RETURN_IF_ERROR(hlx_lower_slots_of(c, caps[i], &s));
    if (s.n != 1)
      return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                          "unsupported: comparator captures a tuple");
    ins[n + i] = s.slots[0];
  }
  HLX_RETURN_IF_ERROR(hlx_lower_flatten(c, op, true, &outs, &nout));
  return hlx_lower_emit(c, op, run_sort_region, a, n + ncap, ins, nout, outs);
}

/* ---- chlo.top_k ------------------------------------------------------------ */

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

static hlx_status_t lower_top_k(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  if (op->num_operands != 1 || op->num_results != 2)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "needs one operand and two results (values, indices)");
  const hlx_type_t* t = hlx_static_tensor(op->operands[0]);
  const hlx_type_t* v = hlx_static_tensor(op->results[0]);
  const hlx_type_t* ix = hlx_static_tensor(op->results[1]);
  if (!t || !v || !ix)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: dynamic shapes");
  if (t->quant)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: quantized operand");
  if (t->rank < 1)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "operand must have rank >= 1");
  if (hlx_dtype_is_complex(t->dtype))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "operand element type %s has no order",
                        hlx_dtype_name(t->dtype));
  int64_t k;
  HLX_RETURN_IF_ERROR(hlx_attr_int(op, "k", true, 0, &k));
  int64_t last = t->dims[t->rank - 1];
  if (k < 0 || k > last)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "k = %lld must be in [0, %lld] (the last dimension's "
                        "size)",
                        (long long)k, (long long)last);
  if (last > INT32_MAX)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: last dimension above 2^31 (indices "
                        "are i32)");
  const hlx_attr_t* st = hlx_op_attr(op, "is_stable");
  if (st && st->kind != HLX_ATTR_BOOL)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "attribute 'is_stable' must be a bool");
  if (v->dtype != t->dtype || v->quant)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "values must have the operand's element type %s",
                        hlx_dtype_name(t->dtype));
  if (ix->dtype != HLX_DTYPE_S32)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "indices must have element type i32, not %s",
                        hlx_dtype_name(ix->dtype));
  for (int w = 0; w < 2; w++) {
    const hlx_type_t* r = w ? ix : v;
    bool ok = r->rank == t->rank;
    for (int32_t d = 0; ok && d < t->rank; d++)
      ok = r->dims[d] == (d == t->rank - 1 ? k : t->dims[d]);
    if (!ok)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "%s shape must be operand.shape[:-1] + [k = %lld]",
                          w ? "indices" : "values", (long long)k);
  }
  top_k_args_t* a = hlx_lower_alloc(c, sizeof(*a));
  if (!a) return hlx_status_oom();
  a->dtype = t->dtype;
  a->n = last;
  a->k = k;
  a->rows = 1;
  for (int32_t d = 0; d + 1 < t->rank; d++) a->rows *= t->dims[d];
  int32_t in, *outs, nout;
  HLX_RETURN_IF_ERROR(hlx_lower_in(c, op, 0, &in));
  HLX_RETURN_IF_ERROR(hlx_lower_flatten(c, op, true, &outs, &nout));
  return hlx_lower_emit(c, op, run_top_k, a, 1, &in, nout, outs);
}

const hlx_lowering_t hlx_lowerings_sort[] = {
    {HLX_OP_SORT, lower_sort},
    {HLX_OP_CHLO_TOP_K, lower_top_k},
    {HLX_OP_UNKNOWN, NULL},
};
