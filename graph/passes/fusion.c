/* Elementwise fusion analysis (see fusion.h for the group rules).
 *
 * Groups grow backwards from a root: ops are visited last to first, and an
 * unassigned fusible op starts a group; producers of its operands join
 * while all their uses are inside the group, until nothing changes. Use
 * counts are computed here over the block and its nested regions (values
 * of a block are only visible there), since the IR keeps no use lists. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/passes/fusion.h"
#include "kernels/elementwise.h"

static signed char g_kind[HLX_OP_COUNT];
static int16_t g_id[HLX_OP_COUNT];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

/* Registers "stablehlo.<name>" and "chlo.<name>" as the kernel op `id`. */
static void add_named(const char* name, hlx_fusion_kind_t kind, int id) {
  static const char* const kDialects[] = {"stablehlo.", "chlo."};
  for (int d = 0; d < 2; d++) {
    char full[96];
    int len = snprintf(full, sizeof full, "%s%s", kDialects[d], name);
    hlx_opcode_t op = hlx_opcode_from_name(full, (size_t)len);
    if (op == HLX_OP_UNKNOWN) continue;
    g_kind[op] = (signed char)kind;
    g_id[op] = (int16_t)id;
  }
}

static void build(void) {
  for (int i = 0; i < HLX_UNARY_COUNT; i++)
    add_named(hlx_unary_op_name((hlx_unary_op_t)i), HLX_FUSION_UNARY, i);
  for (int i = 0; i < HLX_BINARY_COUNT; i++)
    add_named(hlx_binary_op_name((hlx_binary_op_t)i), HLX_FUSION_BINARY, i);
  g_kind[HLX_OP_COMPARE] = HLX_FUSION_COMPARE;
  g_kind[HLX_OP_SELECT] = HLX_FUSION_SELECT;
  g_kind[HLX_OP_CLAMP] = HLX_FUSION_CLAMP;
  g_kind[HLX_OP_CONVERT] = HLX_FUSION_CONVERT;
  g_kind[HLX_OP_BROADCAST_IN_DIM] = HLX_FUSION_BROADCAST;
}

hlx_fusion_kind_t hlx_fusion_kind(hlx_opcode_t code, int32_t* kernel_id) {
  pthread_once(&g_once, build);
  if (code <= HLX_OP_UNKNOWN || code >= HLX_OP_COUNT) return HLX_FUSION_NONE;
  if (kernel_id) *kernel_id = g_id[code];
  return (hlx_fusion_kind_t)g_kind[code];
}

enum { kMaxRank = 8 };

static const hlx_type_t* plain_tensor(const hlx_value_t* v) {
  const hlx_type_t* t = v->type;
  if (!t || t->kind != HLX_TYPE_TENSOR || t->quant || t->rank > kMaxRank ||
      !hlx_type_is_static(t))
    return NULL;
  return t;
}

static bool same_dims(const hlx_type_t* a, const hlx_type_t* b) {
  if (a->rank != b->rank) return false;
  for (int32_t d = 0; d < a->rank; d++)
    if (a->dims[d] != b->dims[d]) return false;
  return true;
}

bool hlx_fusion_op_fusible(const hlx_op_t* op) {
  hlx_fusion_kind_t k = hlx_fusion_kind(op->code, NULL);
  static const int kArity[] = {0, 1, 2, 2, 3, 3, 1, 1};
  if (k == HLX_FUSION_NONE || op->num_results != 1 || op->num_regions != 0 ||
      op->num_operands != kArity[k])
    return false;
  const hlx_type_t* r = plain_tensor(op->results[0]);
  if (!r) return false;
  for (int32_t i = 0; i < op->num_operands; i++) {
    const hlx_type_t* t = plain_tensor(op->operands[i]);
    if (!t) return false;
    if (k == HLX_FUSION_BROADCAST) return t->rank <= r->rank;
    /* select's pred and clamp's bounds may be scalars. */
    bool scalar_ok = (k == HLX_FUSION_SELECT && i == 0) ||
                     (k == HLX_FUSION_CLAMP && i != 1);
    if (!same_dims(t, r) && !(scalar_ok && t->rank == 0)) return false;
  }
  return true;
}

/* uses[id] += every use of a value inside region-tree of block b. */
static void count_uses(const hlx_block_t* b, int32_t nv, int32_t* uses) {
  for (int32_t o = 0; o < b->num_ops; o++) {
    const hlx_op_t* op = b->ops[o];
    for (int32_t i = 0; i < op->num_operands; i++) {
      int32_t id = op->operands[i]->id;
      if (id >= 0 && id < nv) uses[id]++;
    }
    for (int32_t r = 0; r < op->num_regions; r++)
      for (int32_t k = 0; k < op->regions[r]->num_blocks; k++)
        count_uses(op->regions[r]->blocks[k], nv, uses);
  }
}

void hlx_fusion_destroy(hlx_fusion_t* f) {
  if (!f) return;
  free(f->group_of);
  free(f->reduce);
  free(f->keeps_value);
  free(f->root);
  free(f->start);
  free(f->member);
  free(f->head);
  free(f);
}

typedef struct grow_t {
  const hlx_block_t* b;
  const unsigned char* skip;
  const int32_t* uses;
  const int32_t* def_idx; /* value id -> op index in b, or -1 */
  int32_t* inside;        /* value id -> uses by current members */
  int32_t* group_of;
  int32_t members[HLX_FUSION_MAX_MEMBERS];
  int32_t n;
} grow_t;

static void add_member(grow_t* g, int32_t idx, int32_t group) {
  const hlx_op_t* op = g->b->ops[idx];
  g->members[g->n++] = idx;
  g->group_of[idx] = group;
  for (int32_t i = 0; i < op->num_operands; i++) g->inside[op->operands[i]->id]++;
}

static bool is_broadcast(const hlx_op_t* op) {
  return hlx_fusion_kind(op->code, NULL) == HLX_FUSION_BROADCAST;
}

/* Whether a broadcast member of the group reads v. */
static bool broadcast_reads(const grow_t* g, const hlx_value_t* v) {
  for (int32_t m = 0; m < g->n; m++) {
    const hlx_op_t* op = g->b->ops[g->members[m]];
    if (is_broadcast(op) && op->operands[0] == v) return true;
  }
  return false;
}

/* Adds producers whose every use is inside the group, to a fixpoint:
 * group-shaped elementwise ops and broadcasts feeding elementwise members,
 * and broadcasts (of any shape) feeding broadcast members, which compose
 * into one strided read. A value a broadcast reads is never a register
 * (registers have no strides), so its producer joins only broadcast chains. */
static void grow(grow_t* g, int32_t group, const hlx_type_t* shape) {
  bool changed = true;
  /* One place stays free for an absorbed reduce. */
  const int32_t max = HLX_FUSION_MAX_MEMBERS - 1;
  while (changed && g->n < max) {
    changed = false;
    for (int32_t m = 0; m < g->n && g->n < max; m++) {
      const hlx_op_t* op = g->b->ops[g->members[m]];
      for (int32_t i = 0; i < op->num_operands; i++) {
        const hlx_value_t* v = op->operands[i];
        int32_t p = g->def_idx[v->id];
        if (p < 0 || g->group_of[p] >= 0 || (g->skip && g->skip[p]) ||
            g->inside[v->id] != g->uses[v->id])
          continue;
        const hlx_op_t* pop = g->b->ops[p];
        if (!hlx_fusion_op_fusible(pop)) continue;
        if (is_broadcast(op) ? !is_broadcast(pop)
                             : !same_dims(pop->results[0]->type, shape) ||
                                   (!is_broadcast(pop) &&
                                    broadcast_reads(g, v)))
          continue;
        add_member(g, p, group);
        changed = true;
        if (g->n >= max) break;
      }
    }
  }
}

static int cmp_i32(const void* a, const void* b) {
  int32_t x = *(const int32_t*)a, y = *(const int32_t*)b;
  return (x > y) - (x < y);
}

/* Whether op (or an op in its regions) reads v. */
static bool op_reads(const hlx_op_t* op, const hlx_value_t* v) {
  for (int32_t i = 0; i < op->num_operands; i++)
    if (op->operands[i] == v) return true;
  for (int32_t r = 0; r < op->num_regions; r++)
    for (int32_t k = 0; k < op->regions[r]->num_blocks; k++) {
      const hlx_block_t* blk = op->regions[r]->blocks[k];
      for (int32_t o = 0; o < blk->num_ops; o++)
        if (op_reads(blk->ops[o], v)) return true;
    }
  return false;
}

/* The reduce group `root` may absorb: the first op reading the root's
 * value, when it is a reduce of that value alone. -1 if none. */
static int32_t absorbable_reduce(const hlx_block_t* b, const grow_t* g,
                                 int32_t root,
                                 hlx_fusion_reduce_ok_fn reduce_ok) {
  const hlx_value_t* v = b->ops[root]->results[0];
  for (int32_t q = root + 1; q < b->num_ops; q++) {
    const hlx_op_t* op = b->ops[q];
    if (!op_reads(op, v)) continue;
    if (op->code != HLX_OP_REDUCE || op->num_operands != 2 ||
        op->operands[0] != v || op->operands[1] == v ||
        g->group_of[q] >= 0 || (g->skip && g->skip[q]) || !reduce_ok(op))
      return -1;
    return q;
  }
  return -1;
}

hlx_status_t hlx_fusion_analyze(const hlx_block_t* b, int32_t num_values,
                                const unsigned char* skip,
                                hlx_fusion_reduce_ok_fn reduce_ok,
                                hlx_fusion_t** out) {
  return hlx_fusion_analyze_ex(b, num_values, skip, reduce_ok, NULL, NULL, out);
}

/* A dot_general whose result's one use is a transpose: the group [dot,
 * transpose] (head = the dot) lets the lowering write the product in the
 * transposed order instead of making a second pass over it. */
static int32_t transposed_dot(const hlx_block_t* b, int32_t o,
                              const unsigned char* skip, const int32_t* uses,
                              const int32_t* taken, int32_t* mem) {
  const hlx_op_t* op = b->ops[o];
  if (op->code != HLX_OP_DOT_GENERAL || op->num_results != 1) return 0;
  const hlx_value_t* v = op->results[0];
  if (v->id < 0 || uses[v->id] != 1) return 0;
  for (int32_t q = o + 1; q < b->num_ops; q++) {
    const hlx_op_t* t = b->ops[q];
    if (!op_reads(t, v)) continue;
    if (t->code != HLX_OP_TRANSPOSE || t->num_operands != 1 ||
        t->num_regions || taken[q] >= 0 || (skip && skip[q]))
      return 0;
    mem[0] = o;
    mem[1] = q;
    return 2;
  }
  return 0;
}

/* Epilogue groups of b, numbered from 0; returns their count. */
static int32_t epilogue_groups(const hlx_block_t* b, const unsigned char* skip,
                               const int32_t* uses, hlx_fusion_epilogue_fn fn,
                               const void* ctx, hlx_fusion_t* f, int32_t* nm) {
  int32_t ng = 0, mem[HLX_FUSION_MAX_MEMBERS];
  for (int32_t o = b->num_ops - 1; o >= 0; o--) {
    if (f->group_of[o] >= 0 || (skip && skip[o])) continue;
    int32_t k = fn(ctx, b, o, uses, f->group_of, mem, HLX_FUSION_MAX_MEMBERS);
    if (k < 2) k = transposed_dot(b, o, skip, uses, f->group_of, mem);
    bool ok = k >= 2;
    for (int32_t m = 0; m < k && ok; m++)
      ok = mem[m] >= 0 && mem[m] < b->num_ops && f->group_of[mem[m]] < 0 &&
           !(skip && skip[mem[m]]);
    if (!ok) continue;
    qsort(mem, (size_t)k, sizeof(int32_t), cmp_i32);
    f->head[ng] = o;
    f->reduce[ng] = -1;
    f->keeps_value[ng] = 1;
    f->root[ng] = mem[k - 1];
    f->start[ng] = *nm;
    for (int32_t m = 0; m < k; m++) {
      f->group_of[mem[m]] = ng;
      f->member[(*nm)++] = mem[m];
    }
    ng++;
  }
  return ng;
}

/* ---- recomputing cheap producers ------------------------------------------
 *
 * A reduce group whose elementwise value is also read by one later group
 * (softmax: s = x * scale feeds max(s) and exp(s - max)) writes that value
 * only for the reader, which reads it back: one write and one read of a
 * full tensor. When the value's chain is cheap (broadcasts, add, subtract,
 * multiply, maximum, minimum, negate), the reader recomputes it from the
 * chain's inputs instead and the reduce group writes only its reduction:
 * the chain's members join the reader's member list too (group_of keeps
 * their home group, whose root still emits them). Same kernels on the
 * same inputs, so the values are bit-identical. HLX_NO_FUSION_RECOMPUTE=1
 * turns it off. */

static bool cheap_member(const hlx_op_t* op) {
  int32_t id = 0;
  switch (hlx_fusion_kind(op->code, &id)) {
    case HLX_FUSION_BROADCAST:
      return true;
    case HLX_FUSION_UNARY:
      return id == HLX_UNARY_NEGATE;
    case HLX_FUSION_BINARY:
      return id == HLX_BINARY_ADD || id == HLX_BINARY_SUBTRACT ||
             id == HLX_BINARY_MULTIPLY || id == HLX_BINARY_MAXIMUM ||
             id == HLX_BINARY_MINIMUM;
    default:
      return false;
  }
}

/* The group (not a) whose non-broadcast members read v exactly
 * uses - 1 times (a's reduce reading it once), or -1. */
static int32_t sole_reader_group(const hlx_block_t* b, const hlx_fusion_t* f,
                                 int32_t a, const hlx_value_t* v,
                                 int32_t uses) {
  int32_t reader = -1, seen = 0;
  for (int32_t o = 0; o < b->num_ops; o++) {
    const hlx_op_t* op = b->ops[o];
    int32_t k = 0;
    for (int32_t i = 0; i < op->num_operands; i++) k += op->operands[i] == v;
    if (!k || o == f->reduce[a]) continue;
    int32_t g = f->group_of[o];
    if (g < 0 || g == a || f->head[g] >= 0 || is_broadcast(op) ||
        (reader >= 0 && g != reader) || op->num_regions)
      return -1;
    reader = g;
    seen += k;
  }
  return seen == uses - 1 ? reader : -1;
}

/* Adds the cheap chains (see above) to their readers' member lists.
 * A group is a reader (extra_of) or gives its chain away (gives), not
 * both: a reader's chain may read the value the reader recomputes, which
 * its home group no longer writes, so a second reader recomputing that
 * chain would read a value nobody defines. */
static hlx_status_t recompute_cheap(const hlx_block_t* b, const int32_t* uses,
                                    hlx_fusion_t* f) {
  const char* off = getenv("HLX_NO_FUSION_RECOMPUTE");
  if (off && *off && *off != '0') return NULL;
  int32_t ng = f->num_groups;
  int32_t* extra_of = malloc(((size_t)ng + 1) * sizeof(int32_t));
  unsigned char* gives = calloc((size_t)ng + 1, 1);
  if (!extra_of || !gives) {
    free(extra_of);
    free(gives);
    return hlx_status_oom();
  }
  for (int32_t g = 0; g < ng; g++) extra_of[g] = -1;
  int32_t added = 0;
  for (int32_t a = 0; a < ng; a++) {
    if (f->head[a] >= 0 || f->reduce[a] < 0 || !f->keeps_value[a] ||
        extra_of[a] >= 0)
      continue;
    int32_t na = f->start[a + 1] - f->start[a] - 1; /* without the reduce */
    const hlx_value_t* v = b->ops[f->member[f->start[a] + na - 1]]->results[0];
    bool cheap = true;
    for (int32_t m = 0; m < na && cheap; m++)
      cheap = cheap_member(b->ops[f->member[f->start[a] + m]]);
    int32_t r = cheap ? sole_reader_group(b, f, a, v, uses[v->id]) : -1;
    /* One chain per reader keeps the rebuild simple. */
    if (r < 0 || extra_of[r] >= 0 || gives[r] ||
        f->start[r + 1] - f->start[r] + na > HLX_FUSION_MAX_MEMBERS)
      continue;
    const hlx_type_t* rt =
        b->ops[f->member[f->start[r + 1] - 1 - (f->reduce[r] >= 0)]]
            ->results[0]->type;
    if (!same_dims(v->type, rt)) continue;
    extra_of[r] = a;
    gives[a] = 1;
    f->keeps_value[a] = 0;
    added += na;
  }
  free(gives);
  if (!added) {
    free(extra_of);
    return NULL;
  }
  int32_t total = f->start[ng] + added;
  int32_t* member = malloc(((size_t)total + 1) * sizeof(int32_t));
  int32_t* start = malloc(((size_t)ng + 1) * sizeof(int32_t));
  if (!member || !start) {
    free(member);
    free(start);
    free(extra_of);
    return hlx_status_oom();
  }
  memcpy(start, f->start, ((size_t)ng + 1) * sizeof(int32_t));
  int32_t k = 0;
  for (int32_t g = 0; g < ng; g++) {
    int32_t s = k;
    for (int32_t m = start[g]; m < start[g + 1]; m++)
      member[k++] = f->member[m];
    int32_t a = extra_of[g];
    if (a >= 0)
      for (int32_t m = start[a]; m < start[a + 1] - 1; m++)
        member[k++] = f->member[m];
    qsort(member + s, (size_t)(k - s), sizeof(int32_t), cmp_i32);
    f->start[g] = s;
  }
  f->start[ng] = k;
  free(f->member);
  f->member = member;
  free(start);
  free(extra_of);
  return NULL;
}

hlx_status_t hlx_fusion_analyze_ex(const hlx_block_t* b, int32_t num_values,
                                   const unsigned char* skip,
                                   hlx_fusion_reduce_ok_fn reduce_ok,
                                   hlx_fusion_epilogue_fn epilogue,
                                   const void* epilogue_ctx,
                                   hlx_fusion_t** out) {
  *out = NULL;
  int32_t n = b->num_ops, nv = num_values;
  hlx_fusion_t* f = calloc(1, sizeof(*f));
  int32_t* scratch = calloc((size_t)nv * 3 + 1, sizeof(int32_t));
  if (f) {
    f->num_ops = n;
    f->group_of = malloc(((size_t)n + 1) * sizeof(int32_t));
    f->root = malloc(((size_t)n + 1) * sizeof(int32_t));
    f->start = malloc(((size_t)n + 2) * sizeof(int32_t));
    f->member = malloc(((size_t)n + 1) * sizeof(int32_t));
    f->reduce = malloc(((size_t)n + 1) * sizeof(int32_t));
    f->keeps_value = malloc((size_t)n + 1);
    f->head = malloc(((size_t)n + 1) * sizeof(int32_t));
  }
  if (!f || !scratch || !f->group_of || !f->root || !f->start || !f->member ||
      !f->reduce || !f->keeps_value || !f->head) {
    free(scratch);
    hlx_fusion_destroy(f);
    return hlx_status_oom();
  }
  grow_t g = {.b = b, .skip = skip, .uses = scratch, .def_idx = scratch + nv,
              .inside = scratch + 2 * nv, .group_of = f->group_of};
  int32_t* def_idx = scratch + nv;
  count_uses(b, nv, scratch);
  for (int32_t i = 0; i < nv; i++) def_idx[i] = -1;
  for (int32_t o = 0; o < n; o++) {
    f->group_of[o] = -1;
    const hlx_op_t* op = b->ops[o];
    for (int32_t r = 0; r < op->num_results; r++) {
      int32_t id = op->results[r]->id;
      if (id >= 0 && id < nv) def_idx[id] = o;
    }
  }
  int32_t ng = 0, nm = 0;
  if (epilogue)
    ng = epilogue_groups(b, skip, scratch, epilogue, epilogue_ctx, f, &nm);
  for (int32_t o = n - 1; o >= 0; o--) {
    const hlx_op_t* op = b->ops[o];
    if (f->group_of[o] >= 0 || (skip && skip[o]) || is_broadcast(op) ||
        !hlx_fusion_op_fusible(op))
      continue;
    g.n = 0;
    add_member(&g, o, ng);
    grow(&g, ng, op->results[0]->type);
    /* Undo the use tallies (only members' operands were touched). */
    for (int32_t m = 0; m < g.n; m++) {
      const hlx_op_t* mo = b->ops[g.members[m]];
      for (int32_t i = 0; i < mo->num_operands; i++)
        g.inside[mo->operands[i]->id] = 0;
    }
    int32_t q = reduce_ok ? absorbable_reduce(b, &g, o, reduce_ok) : -1;
    if (g.n + (q >= 0) < 2) {
      f->group_of[o] = -1;
      continue;
    }
    f->head[ng] = -1;
    f->reduce[ng] = q;
    f->keeps_value[ng] = q < 0 || g.uses[b->ops[o]->results[0]->id] > 1;
    if (q >= 0) {
      g.members[g.n++] = q;
      f->group_of[q] = ng;
    }
    qsort(g.members, (size_t)g.n, sizeof(int32_t), cmp_i32);
    f->root[ng] = q >= 0 ? q : o;
    f->start[ng] = nm;
    for (int32_t m = 0; m < g.n; m++) f->member[nm++] = g.members[m];
    ng++;
  }
  f->start[ng] = nm;
  f->num_groups = ng;
  hlx_status_t st = recompute_cheap(b, scratch, f);
  free(scratch);
  if (st) {
    hlx_fusion_destroy(f);
    return st;
  }
  *out = f;
  return NULL;
}
