/* Module verification: duplicate functions, function bodies and their
 * terminators against the signatures, region structure, and every op
 * through hlx_op_verify (graph/ops/ops.h: its counts and its spec rules).
 * hlx_program_parse, the builder and the lowering run it, so a rule
 * violation is reported without building plans. */
#ifndef HLX_GRAPH_OPS_VERIFY_H_
#define HLX_GRAPH_OPS_VERIFY_H_

#include "graph/ir/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

hlx_status_t hlx_verify_module(const hlx_module_t* m) HLX_MUST_USE;

#ifdef __cplusplus
}
#endif

#endif /* HLX_GRAPH_OPS_VERIFY_H_ */
