/* hlx IR -> MLIR text in the generic op form (always reparseable by
 * hlx_parse_module and by MLIR tools). Values are numbered %0, %1, ... per
 * function in definition order (multi-result ops %N:k, uses %N#i), so
 * print(parse(print(m))) == print(m); value ids must be unique and within
 * 0..num_values-1 of their function (else INVALID_ARGUMENT). Dense data
 * is printed as a literal when it is a splat (floats as exact hex bit
 * patterns) and as a hex blob otherwise. */
#ifndef HLX_GRAPH_STABLEHLO_PRINTER_H_
#define HLX_GRAPH_STABLEHLO_PRINTER_H_

#include <stddef.h>

#include "base/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* graph/ir/ir.h has no C++ guards of its own: include it with C linkage. */
#include "graph/ir/ir.h"

/* *out_text is malloc'd and NUL-terminated (caller frees); *out_len excludes
 * the NUL (out_len may be NULL). On error *out_text is NULL. */
hlx_status_t hlx_print_module(const hlx_module_t* m, char** out_text,
                              size_t* out_len);

/* Prints one type / attribute (same syntax as inside a module); for
 * messages and tools. Same ownership as hlx_print_module. */
hlx_status_t hlx_print_type(const hlx_type_t* t, char** out_text);
hlx_status_t hlx_print_attr(const hlx_attr_t* a, char** out_text);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* HLX_GRAPH_STABLEHLO_PRINTER_H_ */
