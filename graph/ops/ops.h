/* Op semantics: the one home of every rule of the StableHLO spec.
 *
 * For each op, graph/ops/<family>.c holds (in its hlx_op_rules_t table,
 * graph/ops/family.h) a verify function that checks every Constraint the
 * spec lists for the op, each error tagged with its label ("(C3) ..."), and,
 * where the result types follow from the operands and attributes, an infer
 * function that computes them (`?` dims allowed: a dim that depends on a
 * dynamic one stays dynamic). Everything that needs an op's rules calls
 * these: the module verifier (graph/ops/verify.h), the builder (api/), shape
 * refinement (graph/passes/). Lowering (graph/lower/) reads verified IR and
 * checks no spec rule of its own; it reports only what it cannot run
 * (UNIMPLEMENTED). docs/ARCHITECTURE.md has the recipe for adding an op. */
#ifndef HLX_GRAPH_OPS_OPS_H_
#define HLX_GRAPH_OPS_OPS_H_

#include <stdbool.h>

#include "base/arena.h"
#include "base/status.h"
#include "graph/ir/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Checks op against its spec: first its operand/result/region counts
 * (graph/ir/ops.inc), then its family's verify function. `m` is the module
 * the op belongs to, for ops that name functions (func.call, composite);
 * NULL skips those lookups. Dims that are `?` on either side of a
 * comparison are not compared: they are checked once specialised. */
hlx_status_t hlx_op_verify(const hlx_op_t* op,
                           const hlx_module_t* m) HLX_MUST_USE;

/* Computes op's result types from its operands and attributes into
 * out[0 .. op->num_results) (allocated in `arena`; the types of op's own
 * results are not read). *inferred = false (and out untouched) for ops
 * whose result types are not determined that way (reshape, iota, ...: the
 * caller must give them). An error names the rule the operands break. */
hlx_status_t hlx_op_infer(const hlx_op_t* op, hlx_arena_t* arena,
                          hlx_type_t** out, bool* inferred) HLX_MUST_USE;

/* Whether the op has a verify / an infer function (coverage tests). */
bool hlx_op_has_verify(hlx_opcode_t code);
bool hlx_op_has_infer(hlx_opcode_t code);

#ifdef __cplusplus
}
#endif

#endif /* HLX_GRAPH_OPS_OPS_H_ */
