/* hlx IR -> XLA HLO text.
 *
 * Prints the entry function (hlx_module_entry) as the ENTRY computation
 * `main`, the functions it calls (func.call, custom_call's
 * called_computations) and every region as computations before their
 * users, shapes with default layouts and the `entry_computation_layout`
 * header. Ops and attributes map back through the same table the HLO
 * parser uses (graph/hlo/hlo_ops.c), so for a module parsed from HLO,
 * hlx_parse_hlo_module(hlx_print_hlo_module(m)) is equal to m
 * (graph/ir/ir_equal.h). StableHLO-only ops (dynamic shapes, composite,
 * check.*, most chlo ops) and regions reading values from outside
 * (except stablehlo.if / case branches, whose captures become the branch
 * operand) give UNIMPLEMENTED naming the op. */
#ifndef HLX_GRAPH_HLO_HLO_PRINTER_H_
#define HLX_GRAPH_HLO_HLO_PRINTER_H_

#include <stddef.h>

#include "base/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* graph/ir/ir.h has no C++ guards of its own: include it with C linkage. */
#include "graph/ir/ir.h"

/* *out_text is malloc'd and NUL-terminated (caller frees); *out_len
 * excludes the NUL (out_len may be NULL). On error *out_text is NULL. */
hlx_status_t hlx_print_hlo_module(const hlx_module_t* m, char** out_text,
                                  size_t* out_len);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* HLX_GRAPH_HLO_HLO_PRINTER_H_ */
