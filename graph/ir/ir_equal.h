/* Structural equality of IR modules: functions, signatures, ops (code,
 * name), attributes (deep, order-insensitive by name; dense data bytewise;
 * floats bitwise), types, regions, blocks and value wiring by position (value
 * ids and names are ignored). */
#ifndef HLX_GRAPH_IR_EQUAL_H_
#define HLX_GRAPH_IR_EQUAL_H_

#include <stdbool.h>
#include <stddef.h>


#ifdef __cplusplus
extern "C" {
#endif

/* graph/ir/ir.h has no C++ guards of its own: include it with C linkage. */
#include "graph/ir/ir.h"

/* True when equal. Otherwise, if why is not NULL, writes a NUL-terminated
 * description of the first difference (truncated to why_len). */
bool hlx_module_equal(const hlx_module_t* a, const hlx_module_t* b, char* why,
                      size_t why_len);
bool hlx_attr_equal(const hlx_attr_t* a, const hlx_attr_t* b);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* HLX_GRAPH_IR_EQUAL_H_ */
