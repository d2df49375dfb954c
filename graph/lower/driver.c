/* Module/function/region lowering and the helpers every op family uses. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/passes/fusion.h"
#include "graph/lower/opt/attention.h"
#include "graph/lower/opt/epilogue.h"
#include "graph/lower/ctx.h"
#include "graph/lower/opt/row_fusion.h"
#include "graph/ops/verify.h"
#include "kernels/elementwise.h"

static int32_t count_leaves(const hlx_type_t* t) {
  if (t->kind != HLX_TYPE_TUPLE) return 1;
  int32_t n = 0;
  for (int32_t i = 0; i < t->num_elems; i++) n += count_leaves(t->elems[i]);
  return n;
}

/* Appends a slot per leaf of t to slots[*k...]. */
static hlx_status_t add_leaf_slots(hlx_lower_ctx_t* c, const hlx_type_t* t,
                                   int32_t* slots, int32_t* k) {
  if (t->kind == HLX_TYPE_TUPLE) {
    for (int32_t i = 0; i < t->num_elems; i++)
      HLX_RETURN_IF_ERROR(add_leaf_slots(c, t->elems[i], slots, k));
    return NULL;
  }
  size_t bytes = 0;
  if (t->kind == HLX_TYPE_TENSOR) {
    if (!hlx_type_is_static(t))
      return hlx_make_status(HLX_STATUS_UNIMPLEMENTED,
                             "unsupported: dynamic shapes are not executed");
    bytes = hlx_tensor_bytes(t);
    if (bytes == SIZE_MAX)
      return hlx_make_status(HLX_STATUS_RESOURCE_EXHAUSTED,
                             "tensor of %s is too large",
                             hlx_dtype_name(t->dtype));
  }
  int32_t s = hlx_plan_add_slot(c->plan, bytes);
  if (s < 0) return hlx_status_oom();
  slots[(*k)++] = s;
  return NULL;
}

/* ---- value <-> slot map -------------------------------------------------- */

void* hlx_lower_alloc(hlx_lower_ctx_t* c, size_t bytes) {
  return hlx_arena_alloc(&c->plan->arena, bytes);
}

hlx_status_t hlx_lower_define(hlx_lower_ctx_t* c, const hlx_value_t* v,
                              hlx_value_slots_t* out) {
  int32_t n = count_leaves(v->type);
  int32_t* slots = hlx_arena_alloc_array(&c->plan->arena, (size_t)n + 1, 4);
  if (!slots) return hlx_status_oom();
  int32_t k = 0;
  HLX_RETURN_IF_ERROR(add_leaf_slots(c, v->type, slots, &k));
  c->vmap[v->id].n = n;
  c->vmap[v->id].slots = slots;
  if (out) *out = c->vmap[v->id];
  return NULL;
}

hlx_status_t hlx_lower_alias(hlx_lower_ctx_t* c, const hlx_value_t* v,
                             const hlx_value_slots_t* src) {
  c->vmap[v->id] = *src;
  return NULL;
}

hlx_status_t hlx_lower_slots_of(hlx_lower_ctx_t* c, const hlx_value_t* v,
                                hlx_value_slots_t* out) {
  if (v->id < 0 || v->id >= c->func->num_values || c->vmap[v->id].n < 0)
    return hlx_make_status(HLX_STATUS_INTERNAL,
                           "value %%%s is used before it is defined",
                           v->name ? v->name : "?");
  *out = c->vmap[v->id];
  return NULL;
}

hlx_status_t hlx_lower_in(hlx_lower_ctx_t* c, const hlx_op_t* op, int i,
                          int32_t* slot) {
  hlx_value_slots_t s;
  hlx_status_t st = hlx_lower_slots_of(c, op->operands[i], &s);
  if (st) {
    char where[256];
    return hlx_status_annotate(st, "%s", hlx_op_where(op, where, sizeof where));
  }
  if (s.n != 1)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "operand #%d must be a tensor, not a tuple", i);
  *slot = s.slots[0];
  return NULL;
}

hlx_status_t hlx_lower_out(hlx_lower_ctx_t* c, const hlx_op_t* op, int i,
                           int32_t* slot) {
  hlx_value_slots_t s;
  hlx_status_t st = hlx_lower_define(c, op->results[i], &s);
  if (st) {
    char where[256];
    return hlx_status_annotate(st, "%s result #%d",
                               hlx_op_where(op, where, sizeof where), i);
  }
  *slot = s.n == 1 ? s.slots[0] : -1;
  if (s.n != 1)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "result #%d must be a tensor, not a tuple", i);
  return NULL;
}

/* Region bodies and called functions may hold collectives: replica runs
 * keep such tasks on the process thread (scheduler/executor.c). */
static bool runs_nested_plans(const hlx_op_t* op) {
  if (op->num_regions > 0) return true;
  const hlx_attr_t* callee = hlx_op_attr(op, "callee");
  if (!callee) callee = hlx_op_attr(op, "decomposition");
  return callee && callee->kind == HLX_ATTR_SYMBOL;
}

hlx_status_t hlx_lower_emit(hlx_lower_ctx_t* c, const hlx_op_t* op,
                            hlx_task_fn fn, const void* args, int32_t num_in,
                            const int32_t* in, int32_t num_out,
                            const int32_t* out) {
  bool folded;
  HLX_RETURN_IF_ERROR(
      hlx_lower_try_fold(c, op, fn, args, num_in, in, num_out, out, &folded));
  if (folded) return NULL;
  char where[256];
  hlx_task_t* t =
      hlx_plan_add_task(c->plan, hlx_op_where(op, where, sizeof where), fn,
                        args, num_in, in, num_out, out);
  if (!t) return hlx_status_oom();
  if (runs_nested_plans(op)) t->flags |= HLX_TASK_NESTED;
  return NULL;
}

hlx_status_t hlx_lower_emit_simple(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                   hlx_task_fn fn, const void* args,
                                   int32_t num_in) {
  int32_t in[8], out;
  if (num_in > 8 || num_in > op->num_operands)
    return hlx_op_error(op, HLX_STATUS_INTERNAL, "emit_simple: %d inputs",
                        num_in);
  for (int32_t i = 0; i < num_in; i++)
    HLX_RETURN_IF_ERROR(hlx_lower_in(c, op, i, &in[i]));
  HLX_RETURN_IF_ERROR(hlx_lower_out(c, op, 0, &out));
  return hlx_lower_emit(c, op, fn, args, num_in, in, 1, &out);
}

/* ---- blocks and regions -------------------------------------------------- */

static hlx_lower_fn g_table[HLX_OP_COUNT];
static bool g_foldable[HLX_OP_COUNT];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void build_table(void) {
  const hlx_lowering_t* families[] = {
      hlx_lowerings_core, hlx_lowerings_elementwise,
      hlx_lowerings_data_movement, hlx_lowerings_check,
      hlx_lowerings_control_flow, hlx_lowerings_reduce,
      hlx_lowerings_dot, hlx_lowerings_ragged_dot, hlx_lowerings_host,
      hlx_lowerings_gather_scatter,
      hlx_lowerings_window, hlx_lowerings_conv,
      hlx_lowerings_sort, hlx_lowerings_linalg,
      hlx_lowerings_fft, hlx_lowerings_rng,
      hlx_lowerings_map, hlx_lowerings_quant,
      hlx_lowerings_collective,
      hlx_lowerings_einsum};
  for (size_t f = 0; f < sizeof families / sizeof families[0]; f++)
    for (const hlx_lowering_t* e = families[f]; e->fn; e++)
      g_table[e->op] = e->fn;
  const hlx_lowering_t* pure[] = {hlx_lowerings_elementwise,
                                  hlx_lowerings_data_movement};
  for (size_t f = 0; f < sizeof pure / sizeof pure[0]; f++)
    for (const hlx_lowering_t* e = pure[f]; e->fn; e++)
      g_foldable[e->op] = true;
}

/* Elementwise and data-movement ops are pure functions of their operands:
 * their tasks may be run at plan-building time on constant inputs. */
bool hlx_lower_is_foldable(hlx_opcode_t op) {
  pthread_once(&g_once, build_table);
  return op > HLX_OP_UNKNOWN && op < HLX_OP_COUNT && g_foldable[op];
}

static hlx_status_t lower_op(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  if (hlx_lower_op_is_dead(c, op)) return NULL;
  hlx_lower_fn fn = g_table[op->code];
  if (!fn) {
    /* A custom_call to a check target is a check; others need a registry. */
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: no kernel for this op yet");
  }
  bool reused;
  HLX_RETURN_IF_ERROR(hlx_lower_cse_op(c, op, &reused));
  if (reused) return NULL;
  HLX_RETURN_IF_ERROR(fn(c, op));
  hlx_lower_cse_record(c, op);
  return NULL;
}

/* Fusion groups of b (NULL when fusion is off); dead ops never join. */
static hlx_status_t fusion_of(hlx_lower_ctx_t* c, const hlx_block_t* b,
                              hlx_fusion_t** out) {
  *out = NULL;
  if (!hlx_lower_fusion_enabled(c)) return NULL;
  unsigned char* dead = calloc((size_t)b->num_ops + 1, 1);
  if (!dead) return hlx_status_oom();
  for (int32_t i = 0; i < b->num_ops; i++)
    dead[i] = hlx_lower_op_is_dead(c, b->ops[i]);
  hlx_status_t st = hlx_fusion_analyze_ex(b, c->func->num_values, dead,
                                          hlx_lower_fusion_reduce_ok,
                                          hlx_lower_group_match,
                                          c, out);
  free(dead);
  return st;
}

/* Lowers op i of b: a fusion group member only at its group's root, as
 * one task (or member by member when the group cannot be expressed). */
static hlx_status_t lower_at(hlx_lower_ctx_t* c, const hlx_block_t* b,
                             const hlx_fusion_t* fu, int32_t i) {
  int32_t g = fu ? fu->group_of[i] : -1;
  if (g < 0) return lower_op(c, b->ops[i]);
  if (fu->root[g] != i) return NULL;
  bool done;
  HLX_RETURN_IF_ERROR(hlx_lower_cse_group(c, b, fu, g, &done));
  if (done) return NULL;
  HLX_RETURN_IF_ERROR(hlx_lower_attention_group(c, b, fu, g, &done));
  if (!done) HLX_RETURN_IF_ERROR(hlx_lower_fused_group(c, b, fu, g, &done));
  if (done) hlx_lower_cse_record_group(c, b, fu, g);
  for (int32_t m = fu->start[g]; !done && m < fu->start[g + 1]; m++)
    HLX_RETURN_IF_ERROR(lower_op(c, b->ops[fu->member[m]]));
  return NULL;
}

/* Lowers every op of b but its terminator; *term receives the terminator. */
static hlx_status_t lower_block_body(hlx_lower_ctx_t* c, const hlx_block_t* b,
                                     const hlx_op_t** term) {
  *term = NULL;
  hlx_fusion_t* fu = NULL;
  HLX_RETURN_IF_ERROR(fusion_of(c, b, &fu));
  hlx_act_scope_t as;
  hlx_status_t st = hlx_lower_act_begin(c, b, fu, &as);
  for (int32_t i = 0; i < b->num_ops && !st; i++) {
    const hlx_op_t* op = b->ops[i];
    if (op->code == HLX_OP_RETURN || op->code == HLX_OP_FUNC_RETURN) {
      *term = op;
      st = hlx_lower_act_terminator(c, op);
      break;
    }
    st = hlx_lower_act_operands(c, b, fu, i);
    if (!st) st = lower_at(c, b, fu, i);
  }
  hlx_lower_act_end(c, &as);
  hlx_fusion_destroy(fu);
  HLX_RETURN_IF_ERROR(st);
  if (!*term)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "block has no return terminator");
  return NULL;
}

/* Plan results = the flattened slots of the terminator's operands. */
static hlx_status_t set_results(hlx_lower_ctx_t* c, const hlx_op_t* term) {
  int32_t n = 0;
  for (int32_t i = 0; i < term->num_operands; i++) {
    hlx_value_slots_t s;
    HLX_RETURN_IF_ERROR(hlx_lower_slots_of(c, term->operands[i], &s));
    n += s.n;
  }
  int32_t* r = hlx_arena_alloc_array(&c->plan->arena, (size_t)n + 1, 4);
  if (!r) return hlx_status_oom();
  int32_t k = 0;
  for (int32_t i = 0; i < term->num_operands; i++) {
    hlx_value_slots_t s;
    HLX_RETURN_IF_ERROR(hlx_lower_slots_of(c, term->operands[i], &s));
    for (int32_t j = 0; j < s.n; j++) r[k++] = s.slots[j];
  }
  c->plan->num_results = n;
  c->plan->result_slots = r;
  return NULL;
}

/* Marks the ids of every value defined inside region r. */
static void mark_defined(const hlx_region_t* r, unsigned char* defined) {
  for (int32_t b = 0; b < r->num_blocks; b++) {
    const hlx_block_t* blk = r->blocks[b];
    for (int32_t i = 0; i < blk->num_args; i++) defined[blk->args[i]->id] = 1;
    for (int32_t o = 0; o < blk->num_ops; o++) {
      const hlx_op_t* op = blk->ops[o];
      for (int32_t i = 0; i < op->num_results; i++)
        defined[op->results[i]->id] = 1;
      for (int32_t i = 0; i < op->num_regions; i++)
        mark_defined(op->regions[i], defined);
    }
  }
}

static void collect_captures(const hlx_region_t* r,
                             const unsigned char* defined, unsigned char* seen,
                             const hlx_value_t** out, int32_t* n) {
  for (int32_t b = 0; b < r->num_blocks; b++) {
    const hlx_block_t* blk = r->blocks[b];
    for (int32_t o = 0; o < blk->num_ops; o++) {
      const hlx_op_t* op = blk->ops[o];
      for (int32_t i = 0; i < op->num_operands; i++) {
        const hlx_value_t* v = op->operands[i];
        if (!defined[v->id] && !seen[v->id]) {
          seen[v->id] = 1;
          out[(*n)++] = v;
        }
      }
      for (int32_t i = 0; i < op->num_regions; i++)
        collect_captures(op->regions[i], defined, seen, out, n);
    }
  }
}

static hlx_status_t new_ctx(hlx_lowered_module_t* lm, const hlx_func_t* f,
                            const char* name, hlx_lower_ctx_t* c) {
  c->lm = lm;
  c->func = f;
  c->inline_parent = NULL;
  c->inline_depth = 0;
  c->needed = NULL;
  c->reusable_slots = NULL;
  c->num_reusable_slots = 0;
  c->act = NULL;
  c->cse = NULL;
  c->vn = NULL;
  c->plan = hlx_plan_create(name);
  c->vmap = calloc((size_t)f->num_values + 1, sizeof(hlx_value_slots_t));
  if (!c->plan || !c->vmap) {
    hlx_plan_destroy(c->plan);
    free(c->vmap);
    return hlx_status_oom();
  }
  for (int32_t i = 0; i < f->num_values; i++) c->vmap[i].n = -1;
  return NULL;
}

/* A plan is complete: its DAG and buffer assignment are built now. */
static hlx_status_t finalize_plan(hlx_plan_t* p) {
  hlx_plan_finalize_options_t o = {0};
  /* settings: moves to the settings module */
  const char* no_reuse = getenv("HLX_NO_BUFFER_REUSE");
  o.no_buffer_reuse = no_reuse && no_reuse[0] == '1';
  return hlx_plan_finalize(p, &o);
}

/* Maps the given values, in order, to new parameter slots of c->plan. */
static hlx_status_t add_params(hlx_lower_ctx_t* c, int32_t nv,
                               const hlx_value_t* const* vals,
                               int32_t base) {
  int32_t total = base;
  for (int32_t i = 0; i < nv; i++) total += count_leaves(vals[i]->type);
  int32_t* ps = hlx_arena_alloc_array(&c->plan->arena, (size_t)total + 1, 4);
  if (!ps) return hlx_status_oom();
  if (base) memcpy(ps, c->plan->param_slots, (size_t)base * 4);
  int32_t k = base;
  for (int32_t i = 0; i < nv; i++) {
    hlx_value_slots_t s;
    HLX_RETURN_IF_ERROR(hlx_lower_define(c, vals[i], &s));
    for (int32_t j = 0; j < s.n; j++) ps[k++] = s.slots[j];
  }
  c->plan->num_params = total;
  c->plan->param_slots = ps;
  return NULL;
}

hlx_status_t hlx_lower_region(hlx_lower_ctx_t* c, const hlx_region_t* r,
                              hlx_plan_t** out_plan,
                              const hlx_value_t*** captures,
                              int32_t* num_captures) {
  *out_plan = NULL;
  if (r->num_blocks != 1)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "region must have exactly one block, has %d",
                           r->num_blocks);
  int32_t nv = c->func->num_values;
  unsigned char* defined = calloc((size_t)nv + 1, 2);
  const hlx_value_t** caps =
      hlx_arena_alloc_array(&c->plan->arena, (size_t)nv + 1, sizeof(void*));
  if (!defined || !caps) {
    free(defined);
    return hlx_status_oom();
  }
  mark_defined(r, defined);
  int32_t ncap = 0;
  collect_captures(r, defined, defined + nv, caps, &ncap);
  free(defined);

  hlx_lower_ctx_t sub;
  HLX_RETURN_IF_ERROR(new_ctx(c->lm, c->func, c->plan->name, &sub));
  /* Regions of an inlined body still see the calls around it. */
  sub.inline_parent = c->inline_parent;
  sub.inline_depth = c->inline_depth;
  const hlx_block_t* blk = r->blocks[0];
  hlx_status_t st =
      add_params(&sub, blk->num_args, (const hlx_value_t* const*)blk->args, 0);
  if (!st) st = add_params(&sub, ncap, caps, sub.plan->num_params);
  if (!st) st = hlx_lower_cse_begin(&sub, true);
  const hlx_op_t* term = NULL;
  if (!st) st = lower_block_body(&sub, blk, &term);
  if (!st) st = set_results(&sub, term);
  if (!st) st = finalize_plan(sub.plan);
  hlx_lower_cse_end(&sub, true);
  free(sub.vmap);
  if (st) {
    hlx_plan_destroy(sub.plan);
    return st;
  }
  /* The parent plan owns the sub-plan. */
  HLX_RETURN_IF_ERROR(hlx_plan_adopt(c->plan, sub.plan));
  *out_plan = sub.plan;
  *captures = caps;
  *num_captures = ncap;
  return NULL;
}

enum { kMaxInlineDepth = 16 };

hlx_status_t hlx_lower_inline_call(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                   const hlx_func_t* callee, bool* inlined) {
  *inlined = false;
  if (c->inline_depth >= kMaxInlineDepth) return NULL;
  for (const hlx_lower_ctx_t* p = c; p; p = p->inline_parent)
    if (p->func == callee) return NULL; /* recursion */
  const hlx_block_t* blk = callee->body->blocks[0];
  if (blk->num_args != op->num_operands) return NULL;
  hlx_lower_ctx_t sub = *c;
  sub.func = callee;
  sub.inline_parent = c;
  sub.inline_depth = c->inline_depth + 1;
  unsigned char* needed = NULL;
  HLX_RETURN_IF_ERROR(hlx_lower_dead_values(callee, blk, &needed));
  sub.needed = needed;
  sub.vmap = calloc((size_t)callee->num_values + 1, sizeof(hlx_value_slots_t));
  if (!sub.vmap) {
    free(needed);
    return hlx_status_oom();
  }
  for (int32_t i = 0; i < callee->num_values; i++) sub.vmap[i].n = -1;
  hlx_status_t st = NULL;
  for (int32_t i = 0; i < blk->num_args && !st; i++) {
    hlx_value_slots_t s;
    st = hlx_lower_slots_of(c, op->operands[i], &s);
    if (!st) st = hlx_lower_alias(&sub, blk->args[i], &s);
  }
  sub.vn = NULL; /* the callee's own value numbers */
  if (!st) st = hlx_lower_cse_inline_args(&sub, c, op);
  const hlx_op_t* term = NULL;
  if (!st) st = lower_block_body(&sub, blk, &term);
  if (!st && term->num_operands != op->num_results)
    st = hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                      "@%s returns %d values, the call has %d results",
                      callee->name, term->num_operands, op->num_results);
  for (int32_t i = 0; !st && i < op->num_results; i++) {
    hlx_value_slots_t s;
    st = hlx_lower_slots_of(&sub, term->operands[i], &s);
    if (!st) st = hlx_lower_alias(c, op->results[i], &s);
  }
  if (!st) st = hlx_lower_cse_inline_results(c, &sub, op, term);
  hlx_lower_cse_end(&sub, false);
  free(sub.vmap);
  free(needed);
  if (st) return hlx_status_annotate(st, "in function @%s", callee->name);
  *inlined = true;
  return NULL;
}

/* ---- module -------------------------------------------------------------- */

/* The entry's reusable parameter slots (hlx_lower_options_t), in c. */
static hlx_status_t mark_reusable(hlx_lower_ctx_t* c, const hlx_func_t* f) {
  const hlx_lower_options_t* o = &c->lm->options;
  if (!o->reusable_params || !o->reusable_entry ||
      strcmp(o->reusable_entry, f->name) != 0)
    return NULL;
  int32_t n = 0;
  int32_t* slots = hlx_arena_alloc_array(&c->plan->arena,
                                         (size_t)c->plan->num_params + 1, 4);
  if (!slots) return hlx_status_oom();
  for (int32_t i = 0; i < c->plan->num_params && i < o->num_reusable_params;
       i++)
    if (o->reusable_params[i]) slots[n++] = c->plan->param_slots[i];
  c->reusable_slots = slots;
  c->num_reusable_slots = n;
  return NULL;
}

bool hlx_lower_slot_is_reusable(const hlx_lower_ctx_t* c, int32_t slot) {
  for (int32_t i = 0; i < c->num_reusable_slots; i++)
    if (c->reusable_slots[i] == slot) return true;
  return false;
}

static hlx_status_t lower_func(hlx_lowered_module_t* lm, const hlx_func_t* f,
                               hlx_plan_t** out) {
  hlx_lower_ctx_t c;
  HLX_RETURN_IF_ERROR(new_ctx(lm, f, f->name, &c));
  const hlx_block_t* blk = f->body->blocks[0];
  unsigned char* needed = NULL;
  hlx_status_t st = hlx_lower_dead_values(f, blk, &needed);
  c.needed = needed;
  if (!st)
    st = add_params(&c, blk->num_args, (const hlx_value_t* const*)blk->args,
                    0);
  if (!st) st = mark_reusable(&c, f);
  if (!st) st = hlx_lower_cse_begin(&c, true);
  const hlx_op_t* term = NULL;
  if (!st) st = lower_block_body(&c, blk, &term);
  if (!st) st = set_results(&c, term);
  if (!st) st = finalize_plan(c.plan);
  hlx_lower_cse_end(&c, true);
  free(c.vmap);
  free(needed);
  if (st) {
    hlx_plan_destroy(c.plan);
    return hlx_status_annotate(st, "in function @%s", f->name);
  }
  *out = c.plan;
  return NULL;
}


hlx_status_t hlx_lower_module(const hlx_module_t* m,
                              const hlx_lower_options_t* options,
                              hlx_lowered_module_t** out) {
  *out = NULL;
  pthread_once(&g_once, build_table);
  HLX_RETURN_IF_ERROR(hlx_verify_module(m));
  hlx_lowered_module_t* lm = calloc(1, sizeof(*lm));
  if (!lm) return hlx_status_oom();
  lm->module = m;
  if (options) lm->options = *options;
  lm->num_funcs = m->num_funcs;
  lm->plans = calloc((size_t)m->num_funcs + 1, sizeof(hlx_plan_t*));
  if (!lm->plans) {
    free(lm);
    return hlx_status_oom();
  }
  for (int32_t i = 0; i < m->num_funcs; i++) {
    hlx_status_t st = lower_func(lm, m->funcs[i], &lm->plans[i]);
    if (st) {
      hlx_lowered_module_destroy(lm);
      return st;
    }
  }
  *out = lm;
  return NULL;
}

void hlx_lowered_module_destroy(hlx_lowered_module_t* lm) {
  if (!lm) return;
  for (int32_t i = 0; i < lm->num_funcs; i++) hlx_plan_destroy(lm->plans[i]);
  free(lm->plans);
  free(lm);
}

bool hlx_lower_supports(hlx_opcode_t op) {
  pthread_once(&g_once, build_table);
  /* Terminators are handled by the region lowering itself. */
  if (op == HLX_OP_RETURN || op == HLX_OP_FUNC_RETURN) return true;
  return op > HLX_OP_UNKNOWN && op < HLX_OP_COUNT && g_table[op] != NULL;
}

const hlx_plan_t* hlx_lowered_find(const hlx_lowered_module_t* lm,
                                   const char* name) {
  for (int32_t i = 0; i < lm->num_funcs; i++)
    if (strcmp(lm->module->funcs[i]->name, name) == 0) return lm->plans[i];
  return NULL;
}
