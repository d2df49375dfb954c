/* Recognises regions that are one binary op on their two block arguments
 * (`return add(a, b)`), so reductions and scatters run a kernel instead of
 * interpreting the region per element. */
#ifndef HLX_GRAPH_REGION_MATCH_H_
#define HLX_GRAPH_REGION_MATCH_H_

#include <stdbool.h>

#include "graph/ir/ir.h"
#include "kernels/reduce.h"

/* True when r computes op(arg0, arg1) (or op(arg1, arg0) for commutative
 * ops) and returns it; *op receives the combiner. */
bool hlx_region_is_simple_combiner(const hlx_region_t* r, hlx_reduce_op_t* op);

#endif /* HLX_GRAPH_REGION_MATCH_H_ */
