/* XLA HLO text -> hlx IR.
 *
 * Reads what XLA prints (HloModule::ToString, XLA_FLAGS=--xla_dump_to, the
 * CPU benchmark suite, bug reports): the optional `HloModule name, ...`
 * header, computations with and without `%` sigils and `ENTRY`, `ROOT`,
 * shapes with layouts (tiles and memory spaces ignored), tuple shapes,
 * literals including the elided `{...}` form, and the attributes of every
 * opcode of XLA's operation semantics. The result is the IR the StableHLO
 * parser (graph/stablehlo/parser.h) produces for the equivalent program:
 *  - the ENTRY computation (else the last one) is the public @main; the
 *    module is named after `HloModule` (else `module_<entry name>`);
 *  - computations reached by call / fusion / custom-call are private
 *    functions named after the computation (func.call; a fusion's call
 *    keeps its kind as the STRING attribute `hlo.fusion_kind`);
 *  - computations used by reduce, reduce-window, scatter, select-and-scatter,
 *    sort, map, all-reduce, reduce-scatter and while are regions (a tuple
 *    root of a reduce-like body returns its elements); conditional becomes
 *    stablehlo.if (pred selector) or stablehlo.case (s32 index) whose
 *    branch regions read the branch operand from outside;
 *  - ops whose HLO result is a tuple but whose StableHLO op has several
 *    results (variadic reduce/sort/scatter/reduce-window/all-reduce,
 *    batch-norm-training/grad, rng-bit-generator, top-k, custom-call,
 *    infeed) give those results, regrouped by stablehlo.tuple;
 *  - copy, domain and add-dependency are their operand; bitcast follows the
 *    layouts (transpose to the physical order, reshape, transpose back;
 *    a reshape when both layouts are the default);
 *  - constants are stablehlo.constant with a DENSE value, or ELIDED
 *    (`__elided__`) for `{...}` (compile with fill_elided to run them);
 *  - metadata, sharding, frontend_attributes, backend_config (except on
 *    custom-call), statistics and control-predecessors are dropped.
 * Errors are `file:line:col: expected X, got 'tok'` (INVALID_ARGUMENT) or
 * `...: unsupported: ...` (UNIMPLEMENTED); the parser never aborts. */
#ifndef HLX_GRAPH_HLO_HLO_PARSER_H_
#define HLX_GRAPH_HLO_HLO_PARSER_H_

#include <stdbool.h>
#include <stddef.h>

#include "base/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* graph/ir/ir.h has no C++ guards of its own: include it with C linkage. */
#include "graph/ir/ir.h"

/* Whether text is HLO text rather than MLIR: it starts (after comments)
 * with `HloModule`, has a line starting with `ENTRY`, or starts with a
 * computation (`name {` or `name (params) -> shape {`). */
bool hlx_text_is_hlo(const char* text, size_t len);

/* Parses one HLO module. filename and first_line are for messages
 * (filename may be NULL). On success *out owns a new module (free with
 * hlx_module_destroy); on error *out is NULL. */
hlx_status_t hlx_parse_hlo_module(const char* text, size_t len,
                                  const char* filename, int first_line,
                                  hlx_module_t** out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* HLX_GRAPH_HLO_HLO_PARSER_H_ */
