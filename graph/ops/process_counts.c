/* Process counts from module attributes, and the walk that checks the
 * collectives against them (see process_counts.h). */
#include "graph/ops/process_counts.h"

#include <stdlib.h>

#include "graph/ops/family.h"

static hlx_status_t read_count(const hlx_module_t* m, const char* name,
                               int32_t* out) {
  *out = 0;
  const hlx_attr_t* a = hlx_named_attrs_get(m->attrs, m->num_attrs, name);
  if (!a) return NULL;
  if (a->kind != HLX_ATTR_INT || a->i < 1 || a->i > HLX_MAX_PROCESSES)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "module attribute %s must be an integer in [1, "
                           "%d]",
                           name, HLX_MAX_PROCESSES);
  *out = (int32_t)a->i;
  return NULL;
}

hlx_status_t hlx_module_process_counts(const hlx_module_t* m,
                                       int32_t* num_replicas,
                                       int32_t* num_partitions) {
  *num_partitions = 0;
  HLX_RETURN_IF_ERROR(read_count(m, "mhlo.num_replicas", num_replicas));
  return read_count(m, "mhlo.num_partitions", num_partitions);
}

typedef struct walk_t {
  const hlx_module_t* m;
  int32_t R, P;
  bool* seen; /* functions already walked, by index in m->funcs */
} walk_t;

static hlx_status_t walk_func(walk_t* w, const hlx_func_t* f);

static hlx_status_t walk_region(walk_t* w, const hlx_region_t* r) {
  for (int32_t b = 0; b < r->num_blocks; b++) {
    const hlx_block_t* blk = r->blocks[b];
    for (int32_t i = 0; i < blk->num_ops; i++) {
      const hlx_op_t* op = blk->ops[i];
      /* run_parallel's programs run on the grid its programs attribute
       * spells (graph/lower/collective.c checks them). */
      if (op->code == HLX_OP_INTERPRETER_RUN_PARALLEL) continue;
      HLX_RETURN_IF_ERROR(hlx_verify_collective_counts(op, w->R, w->P));
      const hlx_attr_t* callee = hlx_op_attr(op, "callee");
      if (!callee) callee = hlx_op_attr(op, "decomposition");
      const hlx_func_t* g =
          callee && callee->kind == HLX_ATTR_SYMBOL
              ? hlx_module_find_func(w->m, callee->str)
              : NULL;
      if (g) HLX_RETURN_IF_ERROR(walk_func(w, g));
      for (int32_t k = 0; k < op->num_regions; k++)
        HLX_RETURN_IF_ERROR(walk_region(w, op->regions[k]));
    }
  }
  return NULL;
}

static hlx_status_t walk_func(walk_t* w, const hlx_func_t* f) {
  for (int32_t i = 0; i < w->m->num_funcs; i++)
    if (w->m->funcs[i] == f) {
      if (w->seen[i]) return NULL; /* recursion, or called twice */
      w->seen[i] = true;
    }
  if (!f->body) return NULL;
  hlx_status_t st = walk_region(w, f->body);
  return st ? hlx_status_annotate(st, "in function @%s", f->name) : NULL;
}

hlx_status_t hlx_verify_process_counts(const hlx_module_t* m,
                                       const hlx_func_t* f,
                                       int32_t num_replicas,
                                       int32_t num_partitions) {
  walk_t w = {m, num_replicas, num_partitions,
              calloc((size_t)m->num_funcs + 1, sizeof(bool))};
  if (!w.seen) return hlx_status_oom();
  hlx_status_t st = walk_func(&w, f);
  free(w.seen);
  return st;
}
