/* Reading an op: its location for errors, its attributes as integers,
 * its static tensor types and integer constant operands (graph/ir/attr.c).
 * Every layer above the IR reads ops through these, so an attribute has
 * one decoder and an error one format ("stablehlo.add at 12:5: ..."). */
#ifndef HLX_GRAPH_IR_ATTR_H_
#define HLX_GRAPH_IR_ATTR_H_

#include "graph/ir/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "stablehlo.add at 12:5" for errors. */
const char* hlx_op_where(const hlx_op_t* op, char* buf, size_t len);
hlx_status_t hlx_op_error(const hlx_op_t* op, hlx_status_code_t code,
                          const char* fmt, ...) HLX_PRINTF(3, 4) HLX_MUST_USE;

/* Tensor type of operand/result (NULL if it is not a static tensor). */
const hlx_type_t* hlx_static_tensor(const hlx_value_t* v);
size_t hlx_tensor_bytes(const hlx_type_t* t);

/* Reads operand i, which must be defined by stablehlo.constant, as up to
 * `max` int64 values (any integer element type). */
hlx_status_t hlx_op_constant_i64(const hlx_op_t* op, int i, int64_t* out,
                                 int32_t max, int32_t* n) HLX_MUST_USE;

/* Reads an integer-list attribute (array<i64: ..>, [1, 2] or a dense
 * integer/i1 tensor) into out (at most max entries). An absent attribute
 * (a == NULL) is the empty list. False when it is not such a list. */
bool hlx_attr_int_list(const hlx_attr_t* a, int64_t* out, int32_t max,
                       int32_t* n);

/* Attribute readers that name the op and attribute in their errors. */
hlx_status_t hlx_attr_i64_array(const hlx_op_t* op, const char* name,
                                bool required, const int64_t** vals,
                                int32_t* n) HLX_MUST_USE;
hlx_status_t hlx_attr_int(const hlx_op_t* op, const char* name, bool required,
                          int64_t dflt, int64_t* out) HLX_MUST_USE;

#ifdef __cplusplus
}
#endif

#endif /* HLX_GRAPH_IR_ATTR_H_ */
