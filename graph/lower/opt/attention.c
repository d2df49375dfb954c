/* Fused attention (see attention.h): the chain matcher, run by the
 * fusion analysis at every op (walking back from the chain's last op)
 * and again at emission, and the task that runs the fused kernel. The
 * kernel computes what the graph computes in the graph's order (scale,
 * max with the reduce's init, the optional floor, subtract, exp, sum with
 * its init, divide), reading the rank-0 scale, floor and init values at
 * run time, so results differ from the unfused plan by float rounding. */
#include "graph/lower/opt/attention.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/passes/fusion.h"
#include "graph/lower/opt/epilogue.h"
#include "graph/lower/region_match.h"
#include "kernels/cpu_features.h"
#include "kernels/dispatch.h"
#include "kernels/libs/attention_f32.h"

enum { kMaxMembers = 48 };

static bool attention_enabled(const hlx_lower_ctx_t* c) {
  const char* e = getenv("HLX_NO_ATTENTION_FUSION");
  if (e && *e && *e != '0') return false;
  return hlx_lower_fusion_enabled(c);
}

/* A rank-0 value read at run time: operand `index` of `op`. */
typedef struct scalar_ref_t {
  const hlx_op_t* op;
  int32_t index;
} scalar_ref_t;

typedef struct match_t {
  const hlx_op_t *dot1, *dot2, *tr, *rmax, *rsum, *last;
  int32_t p_index; /* P's operand index in dot2 */
  hlx_attention_scale_t scale_kind;
  scalar_ref_t scale, floor; /* floor.op NULL: no floor step */
  int32_t n, nopt;
  const hlx_op_t* ops[kMaxMembers];
  /* broadcasts of the scale / floor scalar: members when used only here */
  const hlx_op_t* opt[8];
} match_t;

static const hlx_type_t* f32_tensor(const hlx_value_t* v) {
  const hlx_type_t* t = hlx_static_tensor(v);
  return t && !t->quant && t->dtype == HLX_DTYPE_F32 ? t : NULL;
}

/* v has n uses (uses NULL: trusted, the group was already formed). */
static bool used(const int32_t* uses, const hlx_value_t* v, int32_t n) {
  return !uses || (v->id >= 0 && uses[v->id] == n);
}

static const hlx_op_t* def_of(const hlx_value_t* v, hlx_opcode_t code,
                              int32_t num_operands) {
  const hlx_op_t* op = v->def;
  return op && op->code == code && op->num_results == 1 &&
                 op->num_operands == num_operands && !op->num_regions &&
                 f32_tensor(op->results[0])
             ? op
             : NULL;
}

static bool add(match_t* m, const hlx_op_t* op) {
  if (m->n >= kMaxMembers) return false;
  m->ops[m->n++] = op;
  return true;
}

/* v (any shape) is broadcast_in_dim chains of a rank-0 f32 value; the
 * broadcasts used only here join the group. */
static bool uniform(match_t* m, const hlx_value_t* v, const int32_t* uses,
                    scalar_ref_t* out) {
  for (int32_t step = 0; step < 8; step++) {
    const hlx_op_t* bc = def_of(v, HLX_OP_BROADCAST_IN_DIM, 1);
    if (!bc) return false;
    if (used(uses, v, 1)) {
      if (m->nopt >= 8) return false;
      m->opt[m->nopt++] = bc;
    }
    const hlx_value_t* src = bc->operands[0];
    const hlx_type_t* t = f32_tensor(src);
    if (t && t->rank == 0) {
      out->op = bc;
      out->index = 0;
      return true;
    }
    if (uses && !used(uses, v, 1)) return false; /* shared mid-chain */
    v = src;
  }
  return false;
}

/* v, of full's shape [.., n], is broadcast_in_dim chains (each used once)
 * of a value of shape full[0 .. rank-2] along its last dim; that value. */
static const hlx_value_t* row_broadcast(match_t* m, const hlx_value_t* v,
                                        const hlx_type_t* full,
                                        const int32_t* uses) {
  int64_t map[HLX_MAX_RANK]; /* dims of the current value -> full's */
  int32_t r = full->rank;
  for (int32_t d = 0; d < r; d++) map[d] = d;
  const hlx_value_t* cur = v;
  for (int32_t step = 0; step < 8; step++) {
    const hlx_op_t* bc = def_of(cur, HLX_OP_BROADCAST_IN_DIM, 1);
    if (!bc) break;
    if (!used(uses, cur, 1) || !add(m, bc)) return NULL;
    const hlx_type_t* in = hlx_static_tensor(bc->operands[0]);
    int64_t bd[HLX_MAX_RANK], nmap[HLX_MAX_RANK];
    int32_t nbd;
    if (!in || !hlx_attr_int_list(hlx_op_attr(bc, "broadcast_dimensions"), bd,
                                  HLX_MAX_RANK, &nbd) ||
        nbd != in->rank)
      return NULL;
    for (int32_t d = 0; d < nbd; d++) {
      if (bd[d] < 0 || bd[d] >= bc->results[0]->type->rank) return NULL;
      nmap[d] = map[bd[d]];
    }
    memcpy(map, nmap, sizeof(int64_t) * (size_t)nbd);
    cur = bc->operands[0];
  }
  const hlx_type_t* t = f32_tensor(cur);
  if (cur == v || !t || t->rank != r - 1) return NULL;
  for (int32_t d = 0; d < r - 1; d++)
    if (map[d] != d || t->dims[d] != full->dims[d]) return NULL;
  return cur;
}

/* v = reduce(x, init) over x's last dim with `kind`; its op. */
static const hlx_op_t* row_reduce(const hlx_value_t* v, const hlx_value_t* x,
                                  hlx_reduce_op_t kind) {
  const hlx_op_t* op = v->def;
  if (!op || op->code != HLX_OP_REDUCE || op->num_operands != 2 ||
      op->num_results != 1 || op->num_regions != 1 || op->operands[0] != x)
    return NULL;
  const hlx_type_t* init = f32_tensor(op->operands[1]);
  const hlx_type_t* xt = f32_tensor(x);
  int64_t dims[HLX_MAX_RANK];
  int32_t nd;
  hlx_reduce_op_t k;
  if (!init || init->rank != 0 || !xt || !f32_tensor(v) ||
      !hlx_attr_int_list(hlx_op_attr(op, "dimensions"), dims, HLX_MAX_RANK,
                         &nd) ||
      nd != 1 || dims[0] != xt->rank - 1 ||
      !hlx_region_is_simple_combiner(op->regions[0], &k) || k != kind)
    return NULL;
  return op;
}

/* The chain ending at dot2, whose operand p_index is P. */
static bool match_from_p(match_t* m, const hlx_op_t* dot2, int32_t p_index,
                         const int32_t* uses) {
  const hlx_value_t* P = dot2->operands[p_index];
  if (P == dot2->operands[1 - p_index] || !used(uses, P, 1)) return false;
  const hlx_op_t* div = def_of(P, HLX_OP_DIVIDE, 2);
  if (!div || !add(m, div)) return false;
  const hlx_value_t* E = div->operands[0];
  const hlx_type_t* full = f32_tensor(E);
  if (!full || full->rank < 2 || !used(uses, E, 2)) return false;
  const hlx_value_t* l = row_broadcast(m, div->operands[1], full, uses);
  if (!l || !used(uses, l, 1)) return false;
  m->rsum = row_reduce(l, E, HLX_REDUCE_ADD);
  const hlx_op_t* ex = def_of(E, HLX_OP_EXPONENTIAL, 1);
  if (!m->rsum || !ex || !add(m, m->rsum) || !add(m, ex)) return false;
  const hlx_value_t* X = ex->operands[0];
  const hlx_op_t* sub = def_of(X, HLX_OP_SUBTRACT, 2);
  if (!sub || !used(uses, X, 1) || !add(m, sub)) return false;
  const hlx_value_t* S2 = sub->operands[0];
  const hlx_value_t* m2 = row_broadcast(m, sub->operands[1], full, uses);
  if (!m2 || S2 == sub->operands[1] || !used(uses, S2, 2) ||
      !used(uses, m2, 1))
    return false;
  const hlx_value_t* mx = m2;
  const hlx_op_t* fl = def_of(m2, HLX_OP_MAXIMUM, 2);
  if (fl) {
    if (!add(m, fl)) return false;
    int32_t i = row_reduce(fl->operands[0], S2, HLX_REDUCE_MAX) ? 0 : 1;
    mx = fl->operands[i];
    if (!uniform(m, fl->operands[1 - i], uses, &m->floor) ||
        !used(uses, mx, 1))
      return false;
  }
  m->rmax = row_reduce(mx, S2, HLX_REDUCE_MAX);
  if (!m->rmax || !add(m, m->rmax)) return false;
  const hlx_value_t* S = S2;
  m->scale_kind = HLX_ATTENTION_SCALE_NONE;
  const hlx_op_t* sc = def_of(S2, HLX_OP_MULTIPLY, 2);
  if (!sc) sc = def_of(S2, HLX_OP_DIVIDE, 2);
  if (sc) {
    int32_t i = 0; /* the operand that is S */
    if (sc->code == HLX_OP_MULTIPLY &&
        !(sc->operands[1]->def &&
          sc->operands[1]->def->code == HLX_OP_BROADCAST_IN_DIM))
      i = 1;
    S = sc->operands[i];
    m->scale_kind = sc->code == HLX_OP_MULTIPLY ? HLX_ATTENTION_SCALE_MULTIPLY
                                                : HLX_ATTENTION_SCALE_DIVIDE;
    if (!add(m, sc) || !used(uses, S, 1) ||
        !uniform(m, sc->operands[1 - i], uses, &m->scale))
      return false;
  }
  m->dot1 = def_of(S, HLX_OP_DOT_GENERAL, 2);
  return m->dot1 && add(m, m->dot1);
}

/* The attention chain whose last op is b->ops[o]. */
static bool match_at(const hlx_block_t* b, int32_t o, const int32_t* uses,
                     match_t* m) {
  const hlx_op_t* op = b->ops[o];
  memset(m, 0, sizeof *m);
  m->last = op;
  const hlx_op_t* dot2 = op;
  if (op->code == HLX_OP_TRANSPOSE) {
    if (op->num_operands != 1 || op->num_results != 1 ||
        !used(uses, op->operands[0], 1))
      return false;
    m->tr = op;
    dot2 = op->operands[0]->def;
  }
  if (!dot2 || dot2->code != HLX_OP_DOT_GENERAL || dot2->num_results != 1 ||
      !def_of(dot2->results[0], HLX_OP_DOT_GENERAL, 2) ||
      !f32_tensor(dot2->operands[0]) || !f32_tensor(dot2->operands[1]))
    return false;
  m->dot2 = dot2;
  for (int32_t pi = 1; pi >= 0; pi--) {
    m->n = m->nopt = 0;
    m->floor.op = NULL;
    m->p_index = pi;
    if (m->tr) add(m, m->tr);
    add(m, dot2);
    if (match_from_p(m, dot2, pi, uses)) return true;
  }
  return false;
}

/* ---- geometry ------------------------------------------------------------ */

typedef struct dims_t {
  int64_t lb[HLX_MAX_RANK], rb[HLX_MAX_RANK], lc[HLX_MAX_RANK],
      rc[HLX_MAX_RANK];
  int32_t nlb, nrb, nlc, nrc;
} dims_t;

static bool in_range(const int64_t* dims, int32_t n, int32_t rank) {
  for (int32_t i = 0; i < n; i++)
    if (dims[i] < 0 || dims[i] >= rank) return false;
  return true;
}

/* op's dimension numbers: one contracting dim each side, as many batch
 * dims, every index within its operand's rank. */
static bool dot_dims(const hlx_op_t* op, dims_t* d) {
  const hlx_attr_t* dn = hlx_op_attr(op, "dot_dimension_numbers");
  int32_t lr = op->operands[0]->type->rank, rr = op->operands[1]->type->rank;
  return dn && dn->kind == HLX_ATTR_STRUCT &&
         hlx_attr_int_list(hlx_attr_dict_get(dn, "lhs_batching_dimensions"),
                           d->lb, HLX_MAX_RANK, &d->nlb) &&
         hlx_attr_int_list(hlx_attr_dict_get(dn, "rhs_batching_dimensions"),
                           d->rb, HLX_MAX_RANK, &d->nrb) &&
         hlx_attr_int_list(hlx_attr_dict_get(dn, "lhs_contracting_dimensions"),
                           d->lc, HLX_MAX_RANK, &d->nlc) &&
         hlx_attr_int_list(hlx_attr_dict_get(dn, "rhs_contracting_dimensions"),
                           d->rc, HLX_MAX_RANK, &d->nrc) &&
         d->nlb == d->nrb && d->nlc == 1 && d->nrc == 1 &&
         in_range(d->lb, d->nlb, lr) && in_range(d->rb, d->nrb, rr) &&
         in_range(d->lc, 1, lr) && in_range(d->rc, 1, rr);
}

static void row_major(const hlx_type_t* t, int64_t* s) {
  int64_t acc = 1;
  for (int32_t d = t->rank - 1; d >= 0; d--) {
    s[d] = acc;
    acc *= t->dims[d];
  }
}

/* The one dim of a rank nb + 2 operand that is neither batch nor
 * contracting, or -1. */
static int32_t free_dim(int32_t rank, const int64_t* batch, int32_t nb,
                        int64_t contracting) {
  int32_t f = -1;
  for (int32_t d = 0; d < rank; d++) {
    bool taken = d == contracting;
    for (int32_t k = 0; k < nb; k++) taken |= batch[k] == d;
    if (!taken) {
      if (f >= 0) return -1;
      f = d;
    }
  }
  return f;
}

typedef struct geom_t {
  int32_t nb;
  int64_t bdims[HLX_MAX_RANK];
  int64_t qb[HLX_MAX_RANK], kb[HLX_MAX_RANK], vb[HLX_MAX_RANK],
      ob[HLX_MAX_RANK];
  hlx_attention_params_t p; /* sizes and strides */
} geom_t;

static bool geometry(const match_t* m, geom_t* g) {
  memset(g, 0, sizeof *g);
  dims_t d1, d2;
  if (!dot_dims(m->dot1, &d1) || !dot_dims(m->dot2, &d2) || d1.nlb != d2.nlb)
    return false;
  int32_t nb = g->nb = d1.nlb;
  const hlx_type_t* Q = f32_tensor(m->dot1->operands[0]);
  const hlx_type_t* K = f32_tensor(m->dot1->operands[1]);
  const hlx_type_t* V = f32_tensor(m->dot2->operands[1 - m->p_index]);
  const hlx_type_t* O = f32_tensor(m->dot2->results[0]);
  const hlx_type_t* F = f32_tensor(m->last->results[0]);
  if (!Q || !K || !V || !O || !F || Q->rank != nb + 2 || K->rank != nb + 2 ||
      V->rank != nb + 2 || O->rank != nb + 2 || F->rank != nb + 2)
    return false;
  int32_t qf = free_dim(Q->rank, d1.lb, nb, d1.lc[0]);
  int32_t kf = free_dim(K->rank, d1.rb, nb, d1.rc[0]);
  /* P = [batch.., Lq, Lk]: batch dims in order, contracting its last. */
  const int64_t* pbat = m->p_index == 0 ? d2.lb : d2.rb;
  const int64_t* vbat = m->p_index == 0 ? d2.rb : d2.lb;
  int64_t pc = m->p_index == 0 ? d2.lc[0] : d2.rc[0];
  int64_t vc = m->p_index == 0 ? d2.rc[0] : d2.lc[0];
  int32_t vf = free_dim(V->rank, vbat, nb, vc);
  if (qf < 0 || kf < 0 || vf < 0 || pc != nb + 1) return false;
  for (int32_t k = 0; k < nb; k++)
    if (pbat[k] != k) return false;
  int64_t qs[HLX_MAX_RANK], ks[HLX_MAX_RANK], vs[HLX_MAX_RANK],
      fs[HLX_MAX_RANK], os[HLX_MAX_RANK];
  row_major(Q, qs);
  row_major(K, ks);
  row_major(V, vs);
  row_major(F, fs);
  /* Element stride in the final value of each dim of dot2's result. */
  if (m->tr) {
    int64_t perm[HLX_MAX_RANK];
    int32_t np;
    if (!hlx_attr_int_list(hlx_op_attr(m->tr, "permutation"), perm,
                           HLX_MAX_RANK, &np) ||
        np != O->rank)
      return false;
    for (int32_t x = 0; x < np; x++) {
      if (perm[x] < 0 || perm[x] >= np) return false;
      os[perm[x]] = fs[x];
    }
  } else {
    memcpy(os, fs, sizeof os);
  }
  hlx_attention_params_t* p = &g->p;
  p->lq = Q->dims[qf];
  p->lk = K->dims[kf];
  p->d = Q->dims[d1.lc[0]];
  p->dv = V->dims[vf];
  p->batch = 1;
  for (int32_t k = 0; k < nb; k++) {
    g->bdims[k] = Q->dims[d1.lb[k]];
    p->batch *= g->bdims[k];
    g->qb[k] = qs[d1.lb[k]];
    g->kb[k] = ks[d1.rb[k]];
    g->vb[k] = vs[vbat[k]];
    g->ob[k] = os[k];
  }
  p->q_si = qs[qf], p->q_sd = qs[d1.lc[0]];
  p->k_sj = ks[kf], p->k_sd = ks[d1.rc[0]];
  p->v_sj = vs[vc], p->v_se = vs[vf];
  bool v_lhs = m->p_index == 1; /* O = [batch.., Dv, Lq] */
  p->o_se = os[v_lhs ? nb : nb + 1];
  p->o_si = os[v_lhs ? nb + 1 : nb];
  return p->batch > 0 && p->lq > 0 && p->lk > 0 && p->d > 0 && p->dv > 0 &&
         V->dims[vc] == p->lk;
}

static int32_t index_of(const hlx_block_t* b, const hlx_op_t* op) {
  for (int32_t o = 0; o < b->num_ops; o++)
    if (b->ops[o] == op) return o;
  return -1;
}

int32_t hlx_lower_attention_or_epilogue_match(const void* ctx,
                                              const hlx_block_t* b,
                                              int32_t head,
                                              const int32_t* uses,
                                              const int32_t* taken,
                                              int32_t* members, int32_t max) {
  const hlx_lower_ctx_t* c = ctx;
  match_t m;
  geom_t g;
  if (attention_enabled(c) && match_at(b, head, uses, &m) &&
      m.n + m.nopt <= max && geometry(&m, &g)) {
    bool ok = true;
    for (int32_t i = 0; i < m.n + m.nopt && ok; i++) {
      members[i] = index_of(b, i < m.n ? m.ops[i] : m.opt[i - m.n]);
      ok = members[i] >= 0 && taken[members[i]] < 0;
    }
    if (ok) return m.n + m.nopt;
  }
  return hlx_lower_epilogue_match(ctx, b, head, uses, taken, members, max);
}

/* ---- run ----------------------------------------------------------------- */

typedef struct attention_args_t {
  hlx_attention_f32_t k;
  int32_t in_scale, in_floor; /* input index, or -1 */
} attention_args_t;

/* in: Q, K, V, max init, sum init, [scale], [floor]. */
static hlx_status_t run_attention(const void* args, void* const* in,
                                  void* const* out, hlx_run_ctx_t* ctx) {
  const attention_args_t* a = args;
  hlx_attention_f32_t k = a->k;
  k.p.max_init = *(const float*)in[3];
  k.p.sum_init = *(const float*)in[4];
  if (a->in_scale >= 0) k.p.scale = *(const float*)in[a->in_scale];
  if (a->in_floor >= 0) k.p.max_floor = *(const float*)in[a->in_floor];
  hlx_dtype_t ot;
  hlx_attention_f32_ops_t ops = {
      .exp = hlx_unary_kernel(HLX_UNARY_EXP, HLX_DTYPE_F32, &ot),
      .transpose = hlx_transpose_kernel(sizeof(float)),
      .simd = (int)hlx_cpu_max_isa()};
  if (!hlx_attention_f32_run(&k, in[0], in[1], in[2], out[0], &ops,
                             ctx ? ctx->parallel : NULL))
    return hlx_status_oom();
  return NULL;
}

hlx_status_t hlx_lower_attention_group(hlx_lower_ctx_t* c,
                                       const hlx_block_t* blk,
                                       const struct hlx_fusion_t* f,
                                       int32_t g, bool* done) {
  *done = false;
  match_t m;
  geom_t geo;
  if (f->head[g] < 0 || !attention_enabled(c) ||
      !match_at(blk, f->root[g], NULL, &m) || !geometry(&m, &geo))
    return NULL;
  /* The group is exactly the chain (with the scalar broadcasts the
   * analysis found used only here). */
  int32_t n_in = m.n;
  for (int32_t i = 0; i < m.n + m.nopt; i++) {
    int32_t idx = index_of(blk, i < m.n ? m.ops[i] : m.opt[i - m.n]);
    if (i < m.n && (idx < 0 || f->group_of[idx] != g)) return NULL;
    if (i >= m.n && idx >= 0 && f->group_of[idx] == g) n_in++;
  }
  if (n_in != f->start[g + 1] - f->start[g]) return NULL;
  hlx_attention_params_t* p = &geo.p;
  int64_t* off = hlx_lower_alloc(c, sizeof(int64_t) * 4 * (size_t)p->batch);
  attention_args_t* a = hlx_lower_alloc(c, sizeof *a);
  if (!off || !a) return hlx_status_oom();
  /* Per problem offsets, the batch index running row-major over bdims. */
  for (int64_t b = 0; b < p->batch; b++) {
    int64_t rest = b, o[4] = {0, 0, 0, 0};
    for (int32_t k = geo.nb - 1; k >= 0; k--) {
      int64_t i = rest % geo.bdims[k];
      rest /= geo.bdims[k];
      o[0] += i * geo.qb[k], o[1] += i * geo.kb[k];
      o[2] += i * geo.vb[k], o[3] += i * geo.ob[k];
    }
    for (int32_t t = 0; t < 4; t++) off[t * p->batch + b] = o[t];
  }
  p->q_off = off, p->k_off = off + p->batch;
  p->v_off = off + 2 * p->batch, p->o_off = off + 3 * p->batch;
  p->scale_kind = m.scale_kind;
  p->has_floor = m.floor.op != NULL;
  hlx_attention_f32_init(&a->k, p);
  int32_t in[7], n = 5, out;
  HLX_RETURN_IF_ERROR(hlx_lower_in(c, m.dot1, 0, &in[0]));
  HLX_RETURN_IF_ERROR(hlx_lower_in(c, m.dot1, 1, &in[1]));
  HLX_RETURN_IF_ERROR(hlx_lower_in(c, m.dot2, 1 - m.p_index, &in[2]));
  HLX_RETURN_IF_ERROR(hlx_lower_in(c, m.rmax, 1, &in[3]));
  HLX_RETURN_IF_ERROR(hlx_lower_in(c, m.rsum, 1, &in[4]));
  a->in_scale = a->in_floor = -1;
  if (m.scale_kind != HLX_ATTENTION_SCALE_NONE) {
    HLX_RETURN_IF_ERROR(hlx_lower_in(c, m.scale.op, m.scale.index, &in[n]));
    a->in_scale = n++;
  }
  if (m.floor.op) {
    HLX_RETURN_IF_ERROR(hlx_lower_in(c, m.floor.op, m.floor.index, &in[n]));
    a->in_floor = n++;
  }
  HLX_RETURN_IF_ERROR(hlx_lower_out(c, m.last, 0, &out));
  char name[160];
  if (m.last->line > 0)
    snprintf(name, sizeof name, "hlx.attention(%lldx%lldx%lldx%lld) at %d:%d",
             (long long)p->batch, (long long)p->lq, (long long)p->lk,
             (long long)p->d, m.last->line, m.last->col);
  else
    snprintf(name, sizeof name, "hlx.attention(%lldx%lldx%lldx%lld)",
             (long long)p->batch, (long long)p->lq, (long long)p->lk,
             (long long)p->d);
  if (!hlx_plan_add_task(c->plan, name, run_attention, a, n, in, 1, &out))
    return hlx_status_oom();
  *done = true;
  return NULL;
}
