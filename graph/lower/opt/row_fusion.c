/* Row-local fusion (see graph/lower/opt/row_fusion.h for the group rules).
 *
 * One builder serves both the analysis (does this set of ops make a row
 * program?) and the lowering (the program itself), so the two cannot
 * disagree. It walks the members in program order, expanding calls into
 * their callees' ops, and gives every value a node: an input (external
 * values, splat constants), a step's result, or for broadcast_in_dim a
 * view of its operand's node (a broadcast changes the shape, not the
 * values a row holds). A step computes in the domain of its result's shape
 * (kernels/row_fused.h); operands of a lower domain are expanded first,
 * once per (node, domain). Steps the root does not need are dropped; the
 * root's step writes the output. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/parallel.h"
#include "graph/passes/fusion.h"
#include "graph/lower/opt/attention.h"
#include "graph/lower/opt/row_fusion.h"
#include "kernels/dispatch.h"
#include "kernels/libs/thread_buffer.h"
#include "kernels/row_fused.h"

enum {
  kMaxNodes = 512,
  kMaxSteps = 256,
  kMaxInputs = 32,
  kMaxDepth = 8,
  kMaxRowLen = 1 << 16,
  /* Elements per block: the block's temporaries stay in L1/L2 and each
   * kernel call has enough work to hide its overhead. One chess layer norm
   * (2607 rows of 256) at one thread: 0.82 / 0.51 / 0.48 / 0.57 / 0.59 ms
   * for 256 / 1024 / 2048 / 4096 / 8192 (0.56 unfused; busy machine). */
  kBlockElems = 2048,
  kParallelMinRows = 64,
};

static bool row_fusion_enabled(void) {
  const char* e = getenv("HLX_NO_ROW_FUSION");
  return !(e && *e && *e != '0');
}

/* ---- shapes ---------------------------------------------------------------- */

typedef struct rows_t {
  const hlx_type_t* full;
  int64_t rows, len;
} rows_t;

static const hlx_type_t* plain(const hlx_value_t* v) {
  const hlx_type_t* t = hlx_static_tensor(v);
  return t && !t->quant && t->rank <= HLX_FUSED_MAX_RANK ? t : NULL;
}

static bool same_dims(const hlx_type_t* a, const hlx_type_t* b) {
  if (a->rank != b->rank) return false;
  for (int32_t d = 0; d < a->rank; d++)
    if (a->dims[d] != b->dims[d]) return false;
  return true;
}

/* The non-1 dims of t, in order, are those of F's leading dims: t holds one
 * element per row, in row order. */
static bool row_shaped(const rows_t* s, const hlx_type_t* t) {
  if (hlx_type_num_elements(t) != s->rows) return false;
  const hlx_type_t* f = s->full;
  int32_t j = 0;
  for (int32_t i = 0; i < t->rank; i++) {
    if (t->dims[i] == 1) continue;
    while (j < f->rank - 1 && f->dims[j] == 1) j++;
    if (j >= f->rank - 1 || f->dims[j] != t->dims[i]) return false;
    j++;
  }
  return true;
}

/* The domain a value of type t is computed in, or -1. */
static int domain_of(const rows_t* s, const hlx_type_t* t) {
  if (same_dims(t, s->full)) return HLX_ROW_FULL;
  if (row_shaped(s, t)) return HLX_ROW_ROW;
  if (hlx_type_num_elements(t) == 1) return HLX_ROW_SCALAR;
  return -1;
}

/* Positions of t's non-1 dims among dims [0, end). */
static int32_t big_dims(const hlx_type_t* t, int32_t end, int32_t* pos) {
  int32_t n = 0;
  for (int32_t d = 0; d < end; d++)
    if (t->dims[d] != 1) pos[n++] = d;
  return n;
}

/* The domain in which broadcast_in_dim `op` reads its operand (its result
 * is a view of it in that domain), or -1: SCALAR for one element; ROW when
 * the operand's dims land on the result's per-row dims in order; VEC when
 * its one non-1 dim (the row length) lands on the result's last dim; FULL
 * for an identity broadcast of F. */
static int broadcast_domain(const rows_t* s, const hlx_op_t* op) {
  const hlx_type_t* t = plain(op->operands[0]);
  const hlx_type_t* r = plain(op->results[0]);
  int64_t bd[HLX_FUSED_MAX_RANK];
  int32_t nbd;
  if (!t || !r || op->num_operands != 1 ||
      !hlx_attr_int_list(hlx_op_attr(op, "broadcast_dimensions"), bd,
                         HLX_FUSED_MAX_RANK, &nbd) ||
      nbd != t->rank)
    return -1;
  for (int32_t i = 0; i < t->rank; i++)
    if (bd[i] < 0 || bd[i] >= r->rank) return -1;
  if (hlx_type_num_elements(t) == 1) return HLX_ROW_SCALAR;
  bool r_full = same_dims(r, s->full);
  int32_t tp[HLX_FUSED_MAX_RANK], rp[HLX_FUSED_MAX_RANK];
  int32_t nt = big_dims(t, t->rank, tp);
  if (row_shaped(s, t) && (r_full || row_shaped(s, r))) {
    int32_t nr = big_dims(r, r_full ? r->rank - 1 : r->rank, rp);
    bool ok = nt == nr;
    for (int32_t k = 0; k < nt && ok; k++) ok = bd[tp[k]] == rp[k];
    if (ok) return HLX_ROW_ROW;
  }
  int32_t nr = big_dims(r, r->rank, rp);
  bool r_vec = r_full || (nr == 1 && rp[0] == r->rank - 1);
  if (nt == 1 && t->dims[tp[0]] == s->len && r_vec &&
      r->dims[r->rank - 1] == s->len && bd[tp[0]] == r->rank - 1)
    return HLX_ROW_VEC;
  if (r_full && same_dims(t, s->full)) {
    for (int32_t i = 0; i < t->rank; i++)
      if (bd[i] != i) return -1;
    return HLX_ROW_FULL;
  }
  return -1;
}

/* The domain of a reshape between per-row shapes (or one-element ones),
 * which keeps each row's values in place; -1 for any other. */
static int reshape_domain(const rows_t* s, const hlx_op_t* op) {
  const hlx_type_t* t = op->num_operands == 1 ? plain(op->operands[0]) : NULL;
  const hlx_type_t* r = plain(op->results[0]);
  if (!t || !r) return -1;
  int d = domain_of(s, t);
  return (d == HLX_ROW_ROW || d == HLX_ROW_SCALAR) && domain_of(s, r) == d
             ? d
             : -1;
}

/* The function a func.call names, or NULL. */
static const hlx_func_t* callee_of(const hlx_lower_ctx_t* c,
                                   const hlx_op_t* op) {
  const hlx_attr_t* a = hlx_op_attr(op, "callee");
  if (op->code != HLX_OP_FUNC_CALL || !a || a->kind != HLX_ATTR_SYMBOL)
    return NULL;
  const hlx_func_t* f = hlx_module_find_func(c->lm->module, a->str);
  if (!f || !f->body || f->body->num_blocks != 1 ||
      f->body->blocks[0]->num_args != op->num_operands ||
      op->num_results != 1)
    return NULL;
  return f;
}

/* ---- the builder ------------------------------------------------------------ */

typedef struct node_t {
  hlx_row_domain_t domain;
  hlx_dtype_t dtype;
  int32_t input; /* input index, or -1 */
  int32_t step;  /* producing step, or -1 */
  bool invariant;
} node_t;

typedef struct binding_t {
  int32_t inst; /* 0: the block; k > 0: the k-th call expanded */
  const hlx_value_t* v;
  int32_t node;
} binding_t;

typedef struct builder_t {
  const hlx_lower_ctx_t* c;
  rows_t s;
  int32_t num_inst, num_bind, num_nodes, num_inputs, num_steps, reduces;
  binding_t bind[kMaxNodes];
  node_t nodes[kMaxNodes];
  const hlx_value_t* in_val[kMaxInputs];
  bool in_embedded[kMaxInputs]; /* a splat constant (no slot) */
  hlx_row_step_t steps[kMaxSteps];
  int32_t step_node[kMaxSteps];
  int32_t step_args[kMaxSteps][HLX_FUSED_MAX_OPERANDS];
} builder_t;

static int32_t lookup(const builder_t* b, int32_t inst, const hlx_value_t* v) {
  for (int32_t i = b->num_bind - 1; i >= 0; i--)
    if (b->bind[i].inst == inst && b->bind[i].v == v) return b->bind[i].node;
  return -1;
}

static bool bind(builder_t* b, int32_t inst, const hlx_value_t* v,
                 int32_t node) {
  if (node < 0 || b->num_bind == kMaxNodes) return false;
  b->bind[b->num_bind++] = (binding_t){inst, v, node};
  return true;
}

static int32_t new_node(builder_t* b, hlx_row_domain_t d, hlx_dtype_t t) {
  if (b->num_nodes == kMaxNodes) return -1;
  int32_t n = b->num_nodes++;
  b->nodes[n] = (node_t){d, t, -1, -1, d == HLX_ROW_SCALAR || d == HLX_ROW_VEC};
  return n;
}

/* The first element of splat constant v, or NULL. */
static const void* splat_bytes(const hlx_value_t* v) {
  if (!hlx_lower_splat_constant(v)) return NULL;
  const hlx_attr_t* a = hlx_op_attr(v->def, "value");
  return a->dense_bytes >= hlx_dtype_size(v->type->dtype) ? a->dense : NULL;
}

/* The node of input v read in domain d. A splat constant is embedded in
 * the program as a scalar, one node per dtype and value (the caller's and
 * a callee's zero are the same input, so their steps can merge). */
static int32_t input_node(builder_t* b, const hlx_value_t* v,
                          hlx_row_domain_t d) {
  const void* k = splat_bytes(v);
  hlx_dtype_t t = v->type->dtype;
  if (k) d = HLX_ROW_SCALAR;
  for (int32_t n = 0; n < b->num_nodes; n++) {
    int32_t i = b->nodes[n].input;
    if (i < 0 || b->nodes[n].domain != d) continue;
    const void* ki = b->in_embedded[i] ? splat_bytes(b->in_val[i]) : NULL;
    if (k ? ki && b->in_val[i]->type->dtype == t &&
                !memcmp(k, ki, hlx_dtype_size(t))
          : b->in_val[i] == v)
      return n;
  }
  if (b->num_inputs == kMaxInputs) return -1;
  int32_t n = new_node(b, d, t);
  if (n < 0) return -1;
  b->nodes[n].input = b->num_inputs;
  b->in_embedded[b->num_inputs] = k != NULL;
  b->in_val[b->num_inputs++] = v;
  return n;
}

/* The node of operand v (in instance inst) wanted in domain d: its own, or
 * for a value from outside the group, an input read in d. */
static int32_t operand_node(builder_t* b, int32_t inst, const hlx_value_t* v,
                            int d) {
  int32_t n = lookup(b, inst, v);
  if (n >= 0 || inst > 0 || d < 0 || !plain(v)) return n;
  return input_node(b, v, (hlx_row_domain_t)d);
}

/* Whether steps x and y compute the same function of their operands. */
static bool same_step(const hlx_row_step_t* x, const hlx_row_step_t* y) {
  if (x->kind != y->kind || x->domain != y->domain ||
      x->num_operands != y->num_operands)
    return false;
  const hlx_fused_step_t *e = &x->ew, *f = &y->ew;
  switch (x->kind) {
    case HLX_ROW_ELEMENTWISE:
      return e->kind == f->kind && e->in_dtype == f->in_dtype &&
             e->out_dtype == f->out_dtype && e->unary == f->unary &&
             e->binary == f->binary && e->compare == f->compare &&
             e->dir == f->dir && e->cmp_type == f->cmp_type &&
             e->select == f->select && e->convert == f->convert;
    case HLX_ROW_REDUCE:
      return x->reduce == y->reduce && x->reduce_op == y->reduce_op &&
             x->reduce_dtype == y->reduce_dtype;
    case HLX_ROW_EXPAND:
      return true;
  }
  return false;
}

/* The node of a new step st on args (invariant when they all are). */
static int32_t append_step(builder_t* b, const hlx_row_step_t* st,
                           hlx_dtype_t out, const int32_t* args) {
  if (b->num_steps == kMaxSteps) return -1;
  int32_t n = new_node(b, st->domain, out);
  if (n < 0) return -1;
  int32_t k = b->num_steps++;
  b->steps[k] = *st;
  b->step_node[k] = n;
  bool inv = true;
  for (int32_t i = 0; i < st->num_operands; i++) {
    b->step_args[k][i] = args[i];
    inv = inv && b->nodes[args[i]].invariant;
  }
  b->nodes[n].step = k;
  b->nodes[n].invariant = inv;
  return n;
}

/* The node of step st on args: an equal earlier step's, or a new one. */
static int32_t add_step(builder_t* b, const hlx_row_step_t* st,
                        hlx_dtype_t out, const int32_t* args) {
  for (int32_t k = 0; k < b->num_steps; k++) {
    bool same = same_step(&b->steps[k], st) &&
                b->nodes[b->step_node[k]].dtype == out;
    for (int32_t i = 0; i < st->num_operands && same; i++)
      same = b->step_args[k][i] == args[i];
    if (same) return b->step_node[k];
  }
  return append_step(b, st, out, args);
}

/* Node n in domain d: itself, or its (shared) expansion. */
static int32_t expanded(builder_t* b, int32_t n, hlx_row_domain_t d) {
  if (n < 0) return -1;
  hlx_row_domain_t from = b->nodes[n].domain;
  if (from == d) return n;
  bool ok = from == HLX_ROW_SCALAR ||
            (from == HLX_ROW_ROW && d == HLX_ROW_FULL) ||
            (from == HLX_ROW_VEC && d == HLX_ROW_FULL);
  if (!ok) return -1;
  hlx_row_step_t st = {.kind = HLX_ROW_EXPAND, .domain = d, .num_operands = 1};
  return add_step(b, &st, b->nodes[n].dtype, &n);
}

static bool build_op(builder_t* b, int32_t inst, const hlx_op_t* op,
                     int depth);

static bool build_call(builder_t* b, int32_t inst, const hlx_op_t* op,
                       int depth) {
  const hlx_func_t* f = depth < kMaxDepth ? callee_of(b->c, op) : NULL;
  if (!f) return false;
  const hlx_block_t* blk = f->body->blocks[0];
  int32_t in = ++b->num_inst;
  for (int32_t i = 0; i < op->num_operands; i++) {
    const hlx_type_t* t = plain(op->operands[i]);
    if (!t || !bind(b, in, blk->args[i],
                    operand_node(b, inst, op->operands[i], domain_of(&b->s, t))))
      return false;
  }
  for (int32_t o = 0; o < blk->num_ops; o++) {
    const hlx_op_t* q = blk->ops[o];
    if (q->code == HLX_OP_FUNC_RETURN || q->code == HLX_OP_RETURN)
      return q->num_operands == 1 &&
             bind(b, inst, op->results[0], lookup(b, in, q->operands[0]));
    if (!build_op(b, in, q, depth + 1)) return false;
  }
  return false;
}

static bool build_reduce(builder_t* b, int32_t inst, const hlx_op_t* op) {
  hlx_row_step_t st = {.kind = HLX_ROW_REDUCE, .domain = HLX_ROW_ROW,
                       .num_operands = 2, .reduce = hlx_reduce};
  size_t row;
  const hlx_type_t* t = plain(op->operands[0]);
  const hlx_type_t* r = plain(op->results[0]);
  if (!t || !r || !hlx_lower_fusion_reduce_params(op, &st.reduce_op, &row) ||
      (int64_t)row != b->s.len || !same_dims(t, b->s.full) ||
      !row_shaped(&b->s, r))
    return false;
  st.reduce_dtype = t->dtype;
  int32_t args[2] = {
      expanded(b, operand_node(b, inst, op->operands[0], HLX_ROW_FULL),
               HLX_ROW_FULL),
      operand_node(b, inst, op->operands[1], HLX_ROW_SCALAR)};
  if (args[0] < 0 || args[1] < 0 ||
      b->nodes[args[1]].domain != HLX_ROW_SCALAR)
    return false;
  b->reduces++;
  return bind(b, inst, op->results[0], add_step(b, &st, r->dtype, args));
}

static bool build_elementwise(builder_t* b, int32_t inst, const hlx_op_t* op) {
  const hlx_type_t* r = plain(op->results[0]);
  int d = r ? domain_of(&b->s, r) : -1;
  hlx_row_step_t st = {.kind = HLX_ROW_ELEMENTWISE,
                       .num_operands = op->num_operands};
  if (d < 0 || op->num_operands > HLX_FUSED_MAX_OPERANDS ||
      !hlx_lower_fused_step_of(op, &st.ew))
    return false;
  st.domain = (hlx_row_domain_t)d;
  int32_t args[HLX_FUSED_MAX_OPERANDS];
  for (int32_t i = 0; i < op->num_operands; i++) {
    const hlx_type_t* t = plain(op->operands[i]);
    if (!t) return false;
    int want = same_dims(t, r) ? d : domain_of(&b->s, t);
    args[i] = expanded(b, operand_node(b, inst, op->operands[i], want),
                       st.domain);
    if (args[i] < 0) return false;
  }
  return bind(b, inst, op->results[0], add_step(b, &st, r->dtype, args));
}

static bool build_op(builder_t* b, int32_t inst, const hlx_op_t* op,
                     int depth) {
  if (op->num_results != 1) return false;
  switch (op->code) {
    case HLX_OP_CONSTANT:
      /* Only a callee's constants are members (the block's are inputs). */
      return inst > 0 && plain(op->results[0]) &&
             hlx_lower_splat_constant(op->results[0]) &&
             bind(b, inst, op->results[0],
                  input_node(b, op->results[0], HLX_ROW_SCALAR));
    case HLX_OP_REDUCE:
      return build_reduce(b, inst, op);
    case HLX_OP_FUNC_CALL:
      return build_call(b, inst, op, depth);
    case HLX_OP_RESHAPE: {
      /* Per-row values (or scalars) keep their order: a view. */
      int d = reshape_domain(&b->s, op);
      int32_t n = operand_node(b, inst, op->operands[0], d);
      return d >= 0 && n >= 0 && b->nodes[n].domain <= (hlx_row_domain_t)d &&
             bind(b, inst, op->results[0], n);
    }
    case HLX_OP_BROADCAST_IN_DIM: {
      int d = broadcast_domain(&b->s, op);
      int32_t n = operand_node(b, inst, op->operands[0], d);
      if (d < 0 || n < 0) return false;
      /* A view keeps its operand's node (a lower domain stays lower). */
      hlx_row_domain_t have = b->nodes[n].domain;
      if (have != (hlx_row_domain_t)d && have != HLX_ROW_SCALAR) return false;
      return bind(b, inst, op->results[0], n);
    }
    default:
      return hlx_fusion_op_fusible(op) && build_elementwise(b, inst, op);
  }
}

/* Builds the program of the given members (op indices of blk, program
 * order) rooted at the last; *root_node receives the root's node. The
 * group must pay for itself: a reduction whose per-row result (or a value
 * computed from it) is broadcast back along the rows, which elementwise
 * groups cannot do in one pass. */
static bool build(builder_t* b, const hlx_block_t* blk, const int32_t* mem,
                  int32_t n, int32_t* root_node) {
  for (int32_t m = 0; m < n; m++)
    if (!build_op(b, 0, blk->ops[mem[m]], 0)) return false;
  const hlx_op_t* root = blk->ops[mem[n - 1]];
  int d = domain_of(&b->s, plain(root->results[0]));
  *root_node = lookup(b, 0, root->results[0]);
  if (*root_node < 0 || (d != HLX_ROW_FULL && d != HLX_ROW_ROW) ||
      b->nodes[*root_node].domain > (hlx_row_domain_t)d ||
      b->nodes[*root_node].domain == HLX_ROW_VEC)
    return false;
  for (int32_t k = 0; k < b->num_steps; k++) {
    int32_t src = b->step_args[k][0];
    if (b->steps[k].kind == HLX_ROW_EXPAND &&
        b->steps[k].domain == HLX_ROW_FULL && b->nodes[src].step >= 0 &&
        b->nodes[src].domain == HLX_ROW_ROW)
      return b->reduces > 0;
  }
  return false;
}

/* Row structure with full shape t, false if it has none. */
static bool rows_of(const hlx_type_t* t, rows_t* s) {
  if (!t || t->rank < 1) return false;
  s->full = t;
  s->len = t->dims[t->rank - 1];
  s->rows = s->len > 0 ? hlx_type_num_elements(t) / s->len : 0;
  return s->len > 1 && s->len <= kMaxRowLen && s->rows > 1;
}

static builder_t* new_builder(const hlx_lower_ctx_t* c, const rows_t* s) {
  builder_t* b = malloc(sizeof *b);
  if (!b) return NULL;
  b->c = c;
  b->s = *s;
  b->num_inst = b->num_bind = b->num_nodes = b->num_inputs = 0;
  b->num_steps = b->reduces = 0;
  return b;
}

/* ---- analysis ---------------------------------------------------------------- */

/* Whether op may join a row group over s (its own terms; the builder
 * checks how its operands fit). */
static bool joinable(const hlx_lower_ctx_t* c, const rows_t* s,
                     const hlx_op_t* op) {
  if (op->num_results != 1 || !plain(op->results[0])) return false;
  const hlx_type_t* r = plain(op->results[0]);
  if (op->code == HLX_OP_BROADCAST_IN_DIM) return broadcast_domain(s, op) >= 0;
  if (op->code == HLX_OP_RESHAPE) return reshape_domain(s, op) >= 0;
  if (op->code == HLX_OP_REDUCE) {
    hlx_reduce_op_t rop;
    size_t row;
    const hlx_type_t* t = plain(op->operands[0]);
    return t && hlx_lower_fusion_reduce_params(op, &rop, &row) &&
           (int64_t)row == s->len && same_dims(t, s->full) &&
           row_shaped(s, r);
  }
  if (op->code == HLX_OP_FUNC_CALL) {
    /* The callee alone, its arguments as inputs. */
    builder_t* b = domain_of(s, r) >= 0 ? new_builder(c, s) : NULL;
    bool ok = b && build_call(b, 0, op, 0);
    free(b);
    return ok;
  }
  return op->code != HLX_OP_CONSTANT && hlx_fusion_op_fusible(op) &&
         domain_of(s, r) >= 0;
}

/* Index of the op defining v in blk, searching back from `from`; -1. */
static int32_t def_index(const hlx_block_t* blk, const hlx_value_t* v,
                         int32_t from) {
  if (!v->def || v->def->parent != blk) return -1;
  for (int32_t o = from; o >= 0; o--)
    if (blk->ops[o] == v->def) return o;
  return -1;
}

static int cmp_i32(const void* a, const void* b) {
  int32_t x = *(const int32_t*)a, y = *(const int32_t*)b;
  return (x > y) - (x < y);
}

/* Uses of v by the members. */
static int32_t uses_inside(const hlx_block_t* blk, const int32_t* mem,
                           int32_t n, const hlx_value_t* v) {
  int32_t k = 0;
  for (int32_t m = 0; m < n; m++) {
    const hlx_op_t* op = blk->ops[mem[m]];
    for (int32_t i = 0; i < op->num_operands; i++) k += op->operands[i] == v;
  }
  return k;
}

/* Grows the group rooted at head over s: producers join while every use
 * of their value is inside. Returns its size if it builds, else 0. */
static int32_t grow(const hlx_lower_ctx_t* c, const hlx_block_t* blk,
                    const rows_t* s, int32_t head, const int32_t* uses,
                    const int32_t* taken, int32_t* mem, int32_t max) {
  if (!joinable(c, s, blk->ops[head])) return 0;
  int32_t n = 0;
  mem[n++] = head;
  bool changed = true;
  while (changed && n < max) {
    changed = false;
    for (int32_t m = 0; m < n && n < max; m++) {
      const hlx_op_t* op = blk->ops[mem[m]];
      for (int32_t i = 0; i < op->num_operands && n < max; i++) {
        const hlx_value_t* v = op->operands[i];
        int32_t p = def_index(blk, v, mem[m] - 1);
        if (p < 0 || taken[p] >= 0 || v->id < 0) continue;
        bool in = false;
        for (int32_t q = 0; q < n && !in; q++) in = mem[q] == p;
        const hlx_op_t* pop = blk->ops[p];
        if (in || hlx_lower_op_is_dead(c, pop) ||
            uses_inside(blk, mem, n, v) != uses[v->id] ||
            !joinable(c, s, pop))
          continue;
        mem[n++] = p;
        changed = true;
      }
    }
  }
  if (n < 2) return 0;
  qsort(mem, (size_t)n, sizeof(int32_t), cmp_i32);
  builder_t* b = new_builder(c, s);
  int32_t rn;
  bool ok = b && build(b, blk, mem, n, &rn);
  free(b);
  return ok ? n : 0;
}

/* The row structures tried for a group rooted at head, in order: the
 * root's own shape, then the inputs of the reduces shortly before it (a
 * per-row root such as a variance). Returns how many (at most kMaxRows). */
enum { kMaxRows = 4, kReduceWindow = 256 };
static int32_t row_candidates(const hlx_block_t* blk, int32_t head,
                              rows_t* out) {
  const hlx_op_t* root = blk->ops[head];
  const hlx_type_t* t = root->num_results == 1 ? plain(root->results[0]) : NULL;
  if (!t || root->code == HLX_OP_BROADCAST_IN_DIM ||
      root->code == HLX_OP_CONSTANT)
    return 0;
  int32_t n = 0;
  if (root->code != HLX_OP_REDUCE && rows_of(t, &out[n])) n++;
  for (int32_t q = head - (root->code != HLX_OP_REDUCE);
       q >= 0 && q > head - kReduceWindow && n < kMaxRows; q--) {
    const hlx_op_t* r = blk->ops[q];
    if (r->code == HLX_OP_REDUCE && rows_of(plain(r->operands[0]), &out[n]) &&
        row_shaped(&out[n], t))
      n++;
  }
  return n;
}

static int32_t row_match(const hlx_lower_ctx_t* c, const hlx_block_t* blk,
                         int32_t head, const int32_t* uses,
                         const int32_t* taken, int32_t* mem, int32_t max) {
  rows_t s[kMaxRows];
  int32_t nc = row_candidates(blk, head, s), k = 0;
  for (int32_t i = 0; i < nc && !k; i++)
    k = grow(c, blk, &s[i], head, uses, taken, mem, max);
  return k;
}

int32_t hlx_lower_group_match(const void* ctx, const hlx_block_t* b,
                              int32_t head, const int32_t* uses,
                              const int32_t* taken, int32_t* members,
                              int32_t max) {
  int32_t k = hlx_lower_attention_or_epilogue_match(ctx, b, head, uses, taken,
                                                    members, max);
  if (k > 0 || !row_fusion_enabled()) return k;
  return row_match(ctx, b, head, uses, taken, members, max);
}

/* ---- program ------------------------------------------------------------------- */

typedef struct row_args_t {
  hlx_row_program_t prog;
  int32_t num_inputs;
  const void** embedded; /* per input: constant bytes, or NULL (a slot) */
  int32_t* slot_of;      /* per input: index into the task's inputs */
} row_args_t;

/* Drops steps the root does not need, assigns temporaries (invariant
 * results keep theirs; others are reused once their last reader ran) and
 * points the root's step at the output. Returns the step count, or -1. */
static int32_t finish(builder_t* b, int32_t root, hlx_row_domain_t out_domain,
                      hlx_row_step_t* out, hlx_row_buffer_t* temps,
                      int32_t* num_temps) {
  bool need[kMaxNodes] = {false};
  need[root] = true;
  for (int32_t k = b->num_steps - 1; k >= 0; k--)
    if (need[b->step_node[k]])
      for (int32_t i = 0; i < b->steps[k].num_operands; i++)
        need[b->step_args[k][i]] = true;
  int32_t last = -1;
  for (int32_t k = 0; k < b->num_steps; k++)
    if (need[b->step_node[k]]) last = k;
  const node_t* rn = &b->nodes[root];
  bool direct = rn->step >= 0 && rn->step == last && !rn->invariant &&
                rn->domain == out_domain;
  if (!direct) {
    /* The root is an input or a view: copy (or expand) it out. */
    hlx_row_step_t st = {.kind = HLX_ROW_EXPAND, .domain = out_domain,
                         .num_operands = 1};
    if (append_step(b, &st, rn->dtype, &root) < 0) return -1;
    last = b->num_steps - 1;
    b->nodes[b->step_node[last]].invariant = false;
    need[b->step_node[last]] = true;
  }
  int32_t last_use[kMaxNodes];
  for (int32_t n = 0; n < b->num_nodes; n++) last_use[n] = -1;
  for (int32_t k = 0; k < b->num_steps; k++)
    if (need[b->step_node[k]] && !b->nodes[b->step_node[k]].invariant)
      for (int32_t i = 0; i < b->steps[k].num_operands; i++)
        last_use[b->step_args[k][i]] = k;
  int32_t temp_of[kMaxNodes], free_list[kMaxNodes], nfree = 0, nt = 0, ns = 0;
  for (int32_t k = 0; k < b->num_steps; k++) {
    int32_t node = b->step_node[k];
    if (!need[node]) continue;
    const node_t* nd = &b->nodes[node];
    hlx_row_step_t* st = &out[ns++];
    *st = b->steps[k];
    st->invariant = nd->invariant;
    for (int32_t i = 0; i < st->num_operands; i++) {
      const node_t* a = &b->nodes[b->step_args[k][i]];
      st->operands[i] =
          a->input >= 0
              ? (hlx_row_ref_t){HLX_ROW_REF_INPUT, a->input}
              : (hlx_row_ref_t){HLX_ROW_REF_TEMP, temp_of[b->step_args[k][i]]};
    }
    if (k == last) {
      st->dst = (hlx_row_ref_t){HLX_ROW_REF_OUTPUT, 0};
      continue;
    }
    hlx_row_buffer_t want = {nd->domain, hlx_dtype_size(nd->dtype)};
    int32_t t = -1;
    for (int32_t f = 0; f < nfree && t < 0 && !nd->invariant; f++)
      if (temps[free_list[f]].domain == want.domain &&
          temps[free_list[f]].elem_size == want.elem_size) {
        t = free_list[f];
        free_list[f] = free_list[--nfree];
      }
    if (t < 0) {
      t = nt++;
      temps[t] = want;
    }
    temp_of[node] = t;
    st->dst = (hlx_row_ref_t){HLX_ROW_REF_TEMP, t};
    /* Operands whose last reader this is free their temporaries now (after
     * dst was taken: kernels need not support in-place calls). */
    for (int32_t i = 0; i < st->num_operands && !nd->invariant; i++) {
      int32_t a = b->step_args[k][i];
      bool dup = false;
      for (int32_t j = 0; j < i; j++) dup = dup || b->step_args[k][j] == a;
      if (!dup && last_use[a] == k && b->nodes[a].input < 0 &&
          !b->nodes[a].invariant)
        free_list[nfree++] = temp_of[a];
    }
  }
  *num_temps = nt;
  return ns;
}

/* ---- run ------------------------------------------------------------------------ */

typedef struct row_split_t {
  const row_args_t* a;
  const void* const* in;
  void* out;
  int64_t step;
  atomic_int failed;
} row_split_t;

/* Each thread's scratch, kept from run to run (no allocation per run). */
static hlx_thread_buffer_t g_row_scratch = HLX_THREAD_BUFFER_INIT;

static void run_pieces(void* arg, size_t begin, size_t end) {
  row_split_t* s = arg;
  const hlx_row_program_t* p = &s->a->prog;
  void* scratch = hlx_thread_buffer(&g_row_scratch,
                                    hlx_row_fused_scratch_bytes(p) + 64, NULL);
  if (!scratch) {
    atomic_store(&s->failed, 1);
    return;
  }
  for (size_t piece = begin; piece < end; piece++) {
    int64_t lo = (int64_t)piece * s->step;
    int64_t hi = lo + s->step < p->rows ? lo + s->step : p->rows;
    if (lo < hi && !hlx_row_fused_run(p, s->in, s->out, lo, hi, scratch))
      atomic_store(&s->failed, 2);
  }
}

static hlx_status_t run_row_fused(const void* args, void* const* in,
                                  void* const* out, hlx_run_ctx_t* ctx) {
  const row_args_t* a = args;
  const void* ptrs[kMaxInputs];
  for (int32_t i = 0; i < a->num_inputs; i++)
    ptrs[i] = a->embedded[i] ? a->embedded[i] : in[a->slot_of[i]];
  const hlx_row_program_t* p = &a->prog;
  row_split_t s = {a, ptrs, out[0], p->rows, 0};
  atomic_init(&s.failed, 0);
  int threads = hlx_parallel_num_threads(ctx->parallel);
  if (threads <= 1 || p->rows < kParallelMinRows) {
    run_pieces(&s, 0, 1);
  } else {
    /* Pieces of whole blocks. */
    int64_t pieces = (int64_t)threads * 4;
    s.step = ((p->rows + pieces - 1) / pieces + p->block - 1) / p->block *
             p->block;
    pieces = (p->rows + s.step - 1) / s.step;
    hlx_parallel_for(ctx->parallel, (size_t)pieces, 1, run_pieces, &s);
  }
  int f = atomic_load(&s.failed);
  if (f == 1) return hlx_status_oom();
  if (f == 2)
    return hlx_make_status(HLX_STATUS_INTERNAL,
                           "row fusion: a kernel refused its dtype");
  return NULL;
}

/* "rowfused(reduce,divide,call,...) at 12:5": the members. */
static void group_name(const hlx_block_t* blk, const int32_t* mem, int32_t n,
                       char* buf, size_t len) {
  size_t k = (size_t)snprintf(buf, len, "rowfused(");
  for (int32_t m = 0; m < n && k < len; m++) {
    const hlx_op_t* op = blk->ops[mem[m]];
    const char* dot = strrchr(op->name, '.');
    k += (size_t)snprintf(buf + k, len - k, "%s%s", m ? "," : "",
                          dot ? dot + 1 : op->name);
  }
  const hlx_op_t* root = blk->ops[mem[n - 1]];
  if (k < len) {
    if (root->line > 0)
      snprintf(buf + k, len - k, ") at %d:%d", root->line, root->col);
    else
      snprintf(buf + k, len - k, ")");
  }
}

static hlx_status_t emit(hlx_lower_ctx_t* c, const hlx_block_t* blk,
                         const int32_t* mem, int32_t n, builder_t* b,
                         int32_t root, bool* done) {
  hlx_row_step_t steps[kMaxSteps + 1];
  hlx_row_buffer_t temps[kMaxSteps + 1];
  int32_t nt = 0;
  const hlx_op_t* rop = blk->ops[mem[n - 1]];
  hlx_row_domain_t od =
      (hlx_row_domain_t)domain_of(&b->s, plain(rop->results[0]));
  int32_t ns = finish(b, root, od, steps, temps, &nt);
  if (ns < 0) return NULL;
  row_args_t* a = hlx_lower_alloc(c, sizeof *a);
  hlx_row_step_t* st = hlx_lower_alloc(c, sizeof *st * (size_t)ns);
  hlx_row_buffer_t* tb = hlx_lower_alloc(c, sizeof *tb * ((size_t)nt + 1));
  hlx_row_buffer_t* ib =
      hlx_lower_alloc(c, sizeof *ib * ((size_t)b->num_inputs + 1));
  const void** emb =
      hlx_lower_alloc(c, sizeof(void*) * ((size_t)b->num_inputs + 1));
  int32_t* slot_of =
      hlx_lower_alloc(c, sizeof(int32_t) * ((size_t)b->num_inputs + 1));
  if (!a || !st || !tb || !ib || !emb || !slot_of) return hlx_status_oom();
  memcpy(st, steps, sizeof *st * (size_t)ns);
  memcpy(tb, temps, sizeof *tb * (size_t)nt);
  int32_t in_slots[kMaxInputs], nin = 0;
  for (int32_t i = 0; i < b->num_inputs; i++) {
    const hlx_value_t* v = b->in_val[i];
    size_t es = hlx_dtype_size(v->type->dtype);
    ib[i].elem_size = es;
    emb[i] = NULL;
    slot_of[i] = -1;
    for (int32_t nd = 0; nd < b->num_nodes; nd++)
      if (b->nodes[nd].input == i) ib[i].domain = b->nodes[nd].domain;
    if (b->in_embedded[i]) {
      void* bytes = hlx_lower_alloc(c, es + 16);
      if (!bytes) return hlx_status_oom();
      memcpy(bytes, splat_bytes(v), es);
      emb[i] = bytes;
      continue;
    }
    hlx_value_slots_t vs;
    HLX_RETURN_IF_ERROR(hlx_lower_slots_of(c, v, &vs));
    if (vs.n != 1) return NULL;
    slot_of[i] = nin;
    in_slots[nin++] = vs.slots[0];
  }
  memset(a, 0, sizeof *a);
  a->prog.out_domain = od;
  a->prog.rows = b->s.rows;
  a->prog.row_len = b->s.len;
  a->prog.block = b->s.len >= kBlockElems ? 1 : kBlockElems / b->s.len;
  a->prog.num_inputs = b->num_inputs;
  a->prog.inputs = ib;
  a->prog.num_temps = nt;
  a->prog.temps = tb;
  a->prog.num_steps = ns;
  a->prog.steps = st;
  a->prog.out_elem_size = hlx_dtype_size(rop->results[0]->type->dtype);
  a->num_inputs = b->num_inputs;
  a->embedded = emb;
  a->slot_of = slot_of;
  int32_t out_slot;
  HLX_RETURN_IF_ERROR(hlx_lower_out(c, rop, 0, &out_slot));
  *done = true;
  bool folded;
  HLX_RETURN_IF_ERROR(hlx_lower_try_fold(c, rop, run_row_fused, a, nin,
                                         in_slots, 1, &out_slot, &folded));
  if (folded) return NULL;
  char name[512];
  group_name(blk, mem, n, name, sizeof name);
  if (!hlx_plan_add_task(c->plan, name, run_row_fused, a, nin, in_slots, 1,
                         &out_slot))
    return hlx_status_oom();
  return NULL;
}

hlx_status_t hlx_lower_row_group(hlx_lower_ctx_t* c, const hlx_block_t* blk,
                                 const struct hlx_fusion_t* f, int32_t g,
                                 bool* done) {
  *done = false;
  const int32_t* mem = f->member + f->start[g];
  int32_t n = f->start[g + 1] - f->start[g];
  if (!row_fusion_enabled() || f->reduce[g] >= 0 || n < 2 ||
      mem[n - 1] != f->root[g])
    return NULL;
  /* The row structures in the analysis's order; the first that builds. */
  rows_t s[kMaxRows];
  int32_t nc = row_candidates(blk, f->root[g], s);
  for (int32_t i = 0; i < nc; i++) {
    builder_t* b = new_builder(c, &s[i]);
    if (!b) return hlx_status_oom();
    int32_t rn;
    hlx_status_t st = NULL;
    if (build(b, blk, mem, n, &rn)) st = emit(c, blk, mem, n, b, rn, done);
    free(b);
    if (st || *done) return st;
  }
  return NULL;
}
