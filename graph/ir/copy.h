/* The one deep copy of IR: types, attributes, ops, blocks, regions,
 * functions and whole modules, into an arena (graph/ir/copy.c). The
 * builder copies computations into regions with it, shape refinement
 * copies a function per argument shapes, and specialisation copies a
 * program before rewriting it.
 *
 * A copier maps source values (by id) to their copies, so a use inside
 * the copied IR refers to the copied definition; the caller may map
 * values defined outside it first (a region's captures). */
#ifndef HLX_GRAPH_IR_COPY_H_
#define HLX_GRAPH_IR_COPY_H_

#include <stdbool.h>

#include "graph/ir/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hlx_ir_copier_t {
  hlx_arena_t* arena; /* where the copy lives */
  /* Destination function: copied values take new ids from its num_values.
   * NULL: copies keep their source ids (a copy of a whole function). */
  hlx_func_t* func;
  /* Share the source's types and attributes instead of copying them: only
   * when the copy lives in the same module and nobody writes into them
   * (shape refinement replaces types, never edits one). */
  bool share_types_and_attrs;
  /* func.return becomes stablehlo.return (a function body copied into an
   * op's region). */
  bool func_return_to_return;
  hlx_value_t** map; /* by source value id: its copy (malloc'd) */
  int32_t num_map;
  bool failed; /* out of memory, or a use before its definition */
} hlx_ir_copier_t;

/* A copier for IR whose value ids are below num_source_values. Returns
 * false when out of memory. Release it with hlx_ir_copier_release. */
bool hlx_ir_copier_init(hlx_ir_copier_t* c, hlx_arena_t* arena,
                        hlx_func_t* func, int32_t num_source_values);
void hlx_ir_copier_release(hlx_ir_copier_t* c);

/* Uses of src in the copied IR become uses of dst. */
void hlx_ir_copier_map(hlx_ir_copier_t* c, const hlx_value_t* src,
                       hlx_value_t* dst);

hlx_type_t* hlx_ir_copy_type(hlx_ir_copier_t* c, const hlx_type_t* t);
hlx_attr_t* hlx_ir_copy_attr(hlx_ir_copier_t* c, const hlx_attr_t* a);
/* A copy of src (its arguments, then its ops in order); with
 * drop_arguments, the copy has none (the caller mapped them). NULL and
 * c->failed on failure. */
hlx_block_t* hlx_ir_copy_block(hlx_ir_copier_t* c, const hlx_block_t* src,
                               hlx_region_t* parent, bool drop_arguments);
hlx_region_t* hlx_ir_copy_region(hlx_ir_copier_t* c, const hlx_region_t* src,
                                 hlx_op_t* parent);

/* A copy of f named `name` in module dst (f may be one of dst's own), not
 * added to dst's functions. Ids are kept. */
hlx_status_t hlx_func_copy(hlx_module_t* dst, const hlx_func_t* f,
                           const char* name, bool share_types_and_attrs,
                           hlx_func_t** out) HLX_MUST_USE;

/* A new module equal to m (hlx_module_equal) sharing nothing with it. */
hlx_status_t hlx_module_copy(const hlx_module_t* m,
                             hlx_module_t** out) HLX_MUST_USE;

#ifdef __cplusplus
}
#endif

#endif /* HLX_GRAPH_IR_COPY_H_ */
