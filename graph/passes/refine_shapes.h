/* Shape refinement: specialises a shape-polymorphic program (`?` dims,
 * dimension-variable scalar arguments, dynamic_* ops) to concrete argument
 * shapes and dimension values, giving a fully static program the lowering
 * runs. In place, on the module's entry function and the functions it
 * calls. */
#ifndef HLX_GRAPH_REFINE_SHAPES_H_
#define HLX_GRAPH_REFINE_SHAPES_H_

#include "base/status.h"
#include "graph/ir/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One argument of the entry: its concrete dims (rank must match the
 * declared type; a static declared dim must equal it) and, for an integer
 * argument shapes may be computed from (a dimension variable, or JAX's
 * slice starts), its values: num_values row-major elements, or values NULL
 * when unknown. The result is specialised to those values. */
typedef struct hlx_refine_arg_t {
  int32_t rank;
  const int64_t* dims;
  const int64_t* values;
  int64_t num_values;
} hlx_refine_arg_t;

/* Whether any value, argument or result type of `f` or a function it
 * calls has a `?` dim (static programs with dynamic_* ops lower as they
 * are). */
bool hlx_func_is_dynamic(const hlx_module_t* m, const hlx_func_t* f);

/* Rewrites `entry` (and its callees) to static shapes: propagates shapes op
 * by op, folds shape computations, replaces dynamic_broadcast_in_dim,
 * dynamic_iota, dynamic_reshape, real_dynamic_slice, dynamic_pad,
 * dynamic_gather and get_dimension_size by their static forms. Errors name
 * the op and the rule. On error the module is partly rewritten: callers
 * refine a copy. */
hlx_status_t hlx_refine_shapes(hlx_module_t* m, hlx_func_t* entry,
                               int32_t num_args, const hlx_refine_arg_t* args);

#ifdef __cplusplus
}
#endif

#endif /* HLX_GRAPH_REFINE_SHAPES_H_ */
