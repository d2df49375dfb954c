/* Module-level verification that runs before lowering: function
 * signatures, terminators, calls, region structure and operand/result
 * counts, and the Constraints of dot_general and the collectives
 * (graph/ops/rules.h). Other ops' shape and attribute rules are checked
 * where each op is lowered (graph/lower_<family>.c), next to the code that
 * relies on them. */
#ifndef HLX_GRAPH_VERIFY_H_
#define HLX_GRAPH_VERIFY_H_

#include "graph/ir/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

hlx_status_t hlx_verify_module(const hlx_module_t* m) HLX_MUST_USE;

#ifdef __cplusplus
}
#endif

#endif /* HLX_GRAPH_VERIFY_H_ */
