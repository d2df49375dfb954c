/* Common-subexpression elimination while building plans.
 *
 * Value numbering as ops are lowered: every value of a plan gets a number
 * (VN); two pure ops with the same opcode and name, the same operand VNs,
 * equal attributes (graph/ir/ir_equal.h: deep, dense constants bytewise) and
 * equal result types compute the same values and share VNs. When an op's
 * results already have slots under their VNs, the op emits nothing and its
 * results alias those slots; what only it read is then never run (its
 * producers are still lowered: DCE ran on the IR before, a known limit).
 *
 * Numbering by operand VNs rather than IR values sees through inlined
 * calls (a callee's arguments take the VNs of the call's operands), which
 * is where the models' duplicates are: jax's _var recomputes the layer
 * norm's mean of a value the caller reduced already.
 *
 * Which ops: those DCE may drop (elementwise and data-movement ops,
 * constants, dot, convolution, gather, tuples, ...), with regions only when
 * each is one recognised combiner (graph/lower/region_match.h: reduce, scatter,
 * ...) and both ops' combiners are the same. Never: rng,
 * constants with elided data (each is filled on its own),
 * infeed/outfeed, collectives, custom_call, print/checks, control flow,
 * sort and any other region (they are not compared otherwise).
 *
 * Scope: one table per plan. A region (while/if/case bodies, ...) is
 * lowered into its own plan with its own table, so nothing computed in one
 * region is reused in another or outside, and a region does not reuse the
 * enclosing block's values either (they arrive as fresh parameters):
 * conservative, and dominance holds trivially because a plan's earlier
 * tasks are visible to its later ones. Inlined calls share the caller's
 * plan and table.
 *
 * Fusion groups (graph/passes/fusion.h) are numbered member by member at their
 * root; a group is skipped when all its outputs (root value and/or
 * absorbed reduction) already have slots.
 *
 * Constants are hashed by type and their first kHashBytes bytes; equal
 * hashes are confirmed by a full comparison.
 *
 * HLX_NO_CSE=1 turns it off (A/B checks); HLX_CSE_STATS=1 prints, per
 * function and region plan, how many ops it did not lower to stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/passes/fusion.h"
#include "graph/ir/ir_equal.h"
#include "graph/lower/ctx.h"
#include "graph/lower/region_match.h"

enum { kHashBytes = 256 };

typedef struct cse_entry_t {
  uint64_t hash;
  const hlx_op_t* op;
  int32_t* operand_vn; /* op->num_operands entries */
  int32_t result_vn;   /* VN of result 0; the others follow */
} cse_entry_t;

typedef struct hlx_cse_t {
  cse_entry_t* table; /* open addressing, cap a power of two */
  size_t cap, n;
  hlx_value_slots_t* slots; /* per VN: its slots in this plan, or n < 0 */
  int32_t num_vn, cap_vn;
  int32_t removed; /* ops not lowered */
  const char* name;
} hlx_cse_t;

static bool env_on(const char* name) {
  const char* e = getenv(name);
  return e && *e && *e != '0';
}

static void cse_free(hlx_cse_t* s) {
  if (!s) return;
  for (size_t i = 0; i < s->cap; i++) free(s->table[i].operand_vn);
  free(s->table);
  free(s->slots);
  free(s);
}

hlx_status_t hlx_lower_cse_begin(hlx_lower_ctx_t* c, bool own_table) {
  if (env_on("HLX_NO_CSE")) return NULL;
  if (own_table) {
    c->cse = calloc(1, sizeof(hlx_cse_t));
    if (!c->cse) return hlx_status_oom();
    c->cse->name = c->plan->name;
  }
  if (!c->cse) return NULL;
  c->vn = malloc(((size_t)c->func->num_values + 1) * sizeof(int32_t));
  if (!c->vn) return hlx_status_oom();
  for (int32_t i = 0; i < c->func->num_values; i++) c->vn[i] = -1;
  return NULL;
}

void hlx_lower_cse_end(hlx_lower_ctx_t* c, bool own_table) {
  free(c->vn);
  c->vn = NULL;
  if (own_table && c->cse) {
    if (env_on("HLX_CSE_STATS") && c->cse->removed)
      fprintf(stderr, "hlx cse: %d ops reused in %s\n", c->cse->removed,
              c->cse->name ? c->cse->name : "?");
    cse_free(c->cse);
  }
  if (own_table) c->cse = NULL;
}

/* `n` fresh VNs; the first, or -1 when out of memory. */
static int32_t new_vns(hlx_cse_t* s, int32_t n) {
  if (s->num_vn + n > s->cap_vn) {
    int32_t cap = s->cap_vn ? s->cap_vn * 2 : 256;
    while (cap < s->num_vn + n) cap *= 2;
    hlx_value_slots_t* p = realloc(s->slots, (size_t)cap * sizeof(*p));
    if (!p) return -1;
    s->slots = p;
    s->cap_vn = cap;
  }
  int32_t first = s->num_vn;
  for (int32_t i = 0; i < n; i++) s->slots[first + i].n = -1;
  s->num_vn += n;
  return first;
}

/* The VN of v in c (a fresh one the first time); -1 when out of memory. */
static int32_t vn_of(const hlx_lower_ctx_t* c, const hlx_value_t* v) {
  if (v->id < 0 || v->id >= c->func->num_values) return new_vns(c->cse, 1);
  if (c->vn[v->id] < 0) c->vn[v->id] = new_vns(c->cse, 1);
  return c->vn[v->id];
}

static bool cse_able(const hlx_op_t* op) {
  if (op->num_results < 1 || (!hlx_lower_is_foldable(op->code) &&
                              !hlx_lower_pure_compute_op(op->code)))
    return false;
  for (int32_t i = 0; i < op->num_results; i++)
    if (!op->results[i]->type || op->results[i]->type->kind == HLX_TYPE_TOKEN)
      return false;
  /* Elided weights (dense_resource) may be filled with different data. */
  for (int32_t i = 0; i < op->num_attrs; i++)
    if (op->attrs[i].value && op->attrs[i].value->kind == HLX_ATTR_ELIDED)
      return false;
  hlx_reduce_op_t r;
  for (int32_t i = 0; i < op->num_regions; i++)
    if (!hlx_region_is_simple_combiner(op->regions[i], &r)) return false;
  return true;
}

static uint64_t mix(uint64_t h, uint64_t x) {
  h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdull;
}

static uint64_t mix_bytes(uint64_t h, const void* p, size_t n) {
  const unsigned char* b = p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
  return h;
}

static uint64_t op_hash(const hlx_op_t* op, const int32_t* vns) {
  uint64_t h = mix(0xcbf29ce484222325ull, (uint64_t)op->code);
  for (int32_t i = 0; i < op->num_operands; i++) h = mix(h, (uint64_t)vns[i]);
  for (int32_t i = 0; i < op->num_results; i++) {
    const hlx_type_t* t = op->results[i]->type;
    h = mix(h, (uint64_t)t->kind * 131 + (uint64_t)t->dtype);
    if (t->kind == HLX_TYPE_TENSOR)
      for (int32_t d = 0; d < t->rank; d++) h = mix(h, (uint64_t)t->dims[d]);
  }
  for (int32_t i = 0; i < op->num_attrs; i++) {
    const hlx_attr_t* a = op->attrs[i].value;
    h = mix(h, (uint64_t)strlen(op->attrs[i].name));
    if (a && a->kind == HLX_ATTR_DENSE) {
      size_t n = a->dense_bytes < kHashBytes ? a->dense_bytes : kHashBytes;
      h = mix(mix_bytes(h, a->dense, n), (uint64_t)a->dense_bytes);
    }
  }
  return h;
}

static bool same_combiners(const hlx_op_t* a, const hlx_op_t* b) {
  if (a->num_regions != b->num_regions) return false;
  for (int32_t i = 0; i < a->num_regions; i++) {
    hlx_reduce_op_t ra, rb;
    if (!hlx_region_is_simple_combiner(a->regions[i], &ra) ||
        !hlx_region_is_simple_combiner(b->regions[i], &rb) || ra != rb)
      return false;
  }
  return true;
}

static bool attrs_equal(const hlx_op_t* a, const hlx_op_t* b) {
  if (a->num_attrs != b->num_attrs) return false;
  for (int32_t i = 0; i < a->num_attrs; i++) {
    const hlx_attr_t* bv =
        hlx_named_attrs_get(b->attrs, b->num_attrs, a->attrs[i].name);
    if (!bv || !hlx_attr_equal(a->attrs[i].value, bv)) return false;
  }
  return true;
}

static bool entry_matches(const cse_entry_t* e, const hlx_op_t* op,
                          const int32_t* vns) {
  const hlx_op_t* a = e->op;
  if (a->code != op->code || strcmp(a->name, op->name) != 0 ||
      a->num_operands != op->num_operands ||
      a->num_results != op->num_results ||
      (op->num_operands &&
       memcmp(e->operand_vn, vns, sizeof(int32_t) * (size_t)op->num_operands)))
    return false;
  for (int32_t i = 0; i < op->num_results; i++)
    if (!hlx_type_equal(a->results[i]->type, op->results[i]->type))
      return false;
  return attrs_equal(a, op) && same_combiners(a, op);
}

static bool grow_table(hlx_cse_t* s) {
  size_t cap = s->cap ? s->cap * 2 : 256;
  cse_entry_t* t = calloc(cap, sizeof(*t));
  if (!t) return false;
  for (size_t i = 0; i < s->cap; i++) {
    if (!s->table[i].op) continue;
    size_t k = s->table[i].hash & (cap - 1);
    while (t[k].op) k = (k + 1) & (cap - 1);
    t[k] = s->table[i];
  }
  free(s->table);
  s->table = t;
  s->cap = cap;
  return true;
}

/* Numbers the results of cse-able op: the VNs of an equal op seen before
 * in this plan, or fresh ones (entered in the table). The first result's
 * VN, or -1 when out of memory. */
static int32_t number(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  hlx_cse_t* s = c->cse;
  int32_t id0 = op->results[0]->id;
  bool own = id0 >= 0 && id0 < c->func->num_values;
  if (own && c->vn[id0] >= 0) return c->vn[id0]; /* numbered in its group */
  int32_t* vns = malloc(((size_t)op->num_operands + 1) * sizeof(int32_t));
  if (!vns) return -1;
  for (int32_t i = 0; i < op->num_operands; i++)
    if ((vns[i] = vn_of(c, op->operands[i])) < 0) {
      free(vns);
      return -1;
    }
  uint64_t h = op_hash(op, vns);
  int32_t first = -1;
  for (size_t k = s->cap ? h & (s->cap - 1) : 0; s->cap && s->table[k].op;
       k = (k + 1) & (s->cap - 1))
    if (s->table[k].hash == h && entry_matches(&s->table[k], op, vns)) {
      first = s->table[k].result_vn;
      break;
    }
  if (first >= 0) {
    free(vns);
  } else {
    if ((s->n + 1) * 2 > s->cap && !grow_table(s)) {
      free(vns);
      return -1;
    }
    if ((first = new_vns(s, op->num_results)) < 0) {
      free(vns);
      return -1;
    }
    size_t k = h & (s->cap - 1);
    while (s->table[k].op) k = (k + 1) & (s->cap - 1);
    s->table[k] = (cse_entry_t){h, op, vns, first};
    s->n++;
  }
  for (int32_t i = 0; i < op->num_results; i++) {
    int32_t id = op->results[i]->id;
    if (id >= 0 && id < c->func->num_values) c->vn[id] = first + i;
  }
  return first;
}

/* Whether every result of op (numbered) has slots under its VN. */
static bool available(const hlx_lower_ctx_t* c, const hlx_op_t* op) {
  for (int32_t i = 0; i < op->num_results; i++) {
    int32_t id = op->results[i]->id;
    if (id < 0 || id >= c->func->num_values || c->vn[id] < 0 ||
        c->cse->slots[c->vn[id]].n < 0)
      return false;
  }
  return true;
}

static hlx_status_t alias_results(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  for (int32_t i = 0; i < op->num_results; i++)
    HLX_RETURN_IF_ERROR(hlx_lower_alias(
        c, op->results[i], &c->cse->slots[c->vn[op->results[i]->id]]));
  return NULL;
}

hlx_status_t hlx_lower_cse_op(hlx_lower_ctx_t* c, const hlx_op_t* op,
                              bool* reused) {
  *reused = false;
  if (!c->cse || !c->vn || !cse_able(op)) return NULL;
  if (number(c, op) < 0) return hlx_status_oom();
  if (!available(c, op)) return NULL;
  HLX_RETURN_IF_ERROR(alias_results(c, op));
  c->cse->removed++;
  *reused = true;
  return NULL;
}

void hlx_lower_cse_record(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  if (!c->cse || !c->vn) return;
  for (int32_t i = 0; i < op->num_results; i++) {
    int32_t id = op->results[i]->id;
    if (id < 0 || id >= c->func->num_values || c->vn[id] < 0 ||
        c->vmap[id].n < 0)
      continue;
    hlx_value_slots_t* s = &c->cse->slots[c->vn[id]];
    if (s->n < 0) *s = c->vmap[id];
  }
}

/* The ops whose values leave group g: the root (elementwise or epilogue
 * group), or the absorbed reduce and, if kept, the elementwise value. */
static int32_t group_outputs(const hlx_block_t* blk, const hlx_fusion_t* f,
                             int32_t g, const hlx_op_t** out) {
  if (f->head[g] >= 0 || f->reduce[g] < 0) {
    out[0] = blk->ops[f->root[g]];
    return 1;
  }
  int32_t n = 0;
  out[n++] = blk->ops[f->reduce[g]];
  if (f->keeps_value[g]) {
    /* The elementwise root is the member just before the reduce. */
    int32_t last = f->start[g + 1] - 1;
    out[n++] = blk->ops[f->member[last - 1]];
  }
  return n;
}

hlx_status_t hlx_lower_cse_group(hlx_lower_ctx_t* c, const hlx_block_t* blk,
                                 const struct hlx_fusion_t* f, int32_t g,
                                 bool* reused) {
  *reused = false;
  if (!c->cse || !c->vn) return NULL;
  bool all = true;
  for (int32_t m = f->start[g]; m < f->start[g + 1]; m++) {
    const hlx_op_t* op = blk->ops[f->member[m]];
    if (!cse_able(op)) {
      all = false;
      continue;
    }
    if (number(c, op) < 0) return hlx_status_oom();
  }
  const hlx_op_t* outs[2];
  int32_t n = group_outputs(blk, f, g, outs);
  if (!all) return NULL;
  for (int32_t i = 0; i < n; i++)
    if (!available(c, outs[i])) return NULL;
  for (int32_t i = 0; i < n; i++) HLX_RETURN_IF_ERROR(alias_results(c, outs[i]));
  c->cse->removed += f->start[g + 1] - f->start[g];
  *reused = true;
  return NULL;
}

void hlx_lower_cse_record_group(hlx_lower_ctx_t* c, const hlx_block_t* blk,
                                const struct hlx_fusion_t* f, int32_t g) {
  for (int32_t m = f->start[g]; m < f->start[g + 1]; m++)
    hlx_lower_cse_record(c, blk->ops[f->member[m]]);
}

hlx_status_t hlx_lower_cse_inline_args(hlx_lower_ctx_t* callee,
                                       const hlx_lower_ctx_t* caller,
                                       const hlx_op_t* call) {
  if (!callee->cse || !caller->vn) return NULL;
  HLX_RETURN_IF_ERROR(hlx_lower_cse_begin(callee, false));
  if (!callee->vn) return NULL;
  const hlx_block_t* blk = callee->func->body->blocks[0];
  for (int32_t i = 0; i < blk->num_args; i++) {
    int32_t v = vn_of(caller, call->operands[i]);
    if (v < 0) return hlx_status_oom();
    callee->vn[blk->args[i]->id] = v;
  }
  return NULL;
}

hlx_status_t hlx_lower_cse_inline_results(hlx_lower_ctx_t* caller,
                                          const hlx_lower_ctx_t* callee,
                                          const hlx_op_t* call,
                                          const hlx_op_t* term) {
  if (!caller->vn || !callee->vn) return NULL;
  for (int32_t i = 0; i < call->num_results; i++) {
    int32_t v = vn_of(callee, term->operands[i]);
    if (v < 0) return hlx_status_oom();
    caller->vn[call->results[i]->id] = v;
  }
  return NULL;
}
