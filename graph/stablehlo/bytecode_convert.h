/* The IR layer of the bytecode reader (bytecode_convert.c, bytecode_vhlo.c,
 * bytecode_vhlo_table.c, bytecode_ir.c): decoded attributes -> hlx IR
 * attributes, and VHLO operations -> the StableHLO ops of the IR. Not a
 * public header. */
#ifndef HLX_GRAPH_STABLEHLO_BYTECODE_CONVERT_H_
#define HLX_GRAPH_STABLEHLO_BYTECODE_CONVERT_H_

#include "graph/stablehlo/bytecode_internal.h"

/* ---- Generic conversion (bytecode_convert.c) ------------------------------- */
/* The IR form of a decoded attribute (memoized; NULL on error). */
hlx_attr_t* hlx_bc_to_ir(hlx_bc_t* bc, const hlx_bc_stream_t* s,
                         hlx_bc_attr_t* a);
hlx_type_t* hlx_bc_scalar_ir_type(hlx_bc_t* bc, hlx_dtype_t dt);
/* INT with a rank-0 type of dt (INVALID: no type). */
hlx_attr_t* hlx_bc_ir_int(hlx_bc_t* bc, int64_t v, hlx_dtype_t dt);
/* I64_ARRAY; elem S64 leaves .type NULL, as the text parser does. */
hlx_attr_t* hlx_bc_ir_i64_array(hlx_bc_t* bc, const int64_t* v, int32_t n,
                                hlx_dtype_t elem);
hlx_attr_t* hlx_bc_ir_struct(hlx_bc_t* bc, const char* name,
                             const hlx_named_attr_t* fields, int32_t n);
hlx_attr_t* hlx_bc_ir_opaque(hlx_bc_t* bc, const char* text);
/* The elements of a rank <= 1 integer (or i1) tensor attribute. */
bool hlx_bc_tensor_ints(hlx_bc_t* bc, const hlx_bc_stream_t* s,
                        const hlx_bc_attr_t* a, int64_t** out, int32_t* n);

/* ---- Operations (bytecode_vhlo.c, bytecode_vhlo_table.c) ---------------------- */
typedef struct hlx_bc_named_t {
  const char* name;
  hlx_bc_attr_t* value;
} hlx_bc_named_t;

/* One operation as the IR section describes it, before it becomes IR. */
typedef struct hlx_bc_op_t {
  hlx_bc_opname_t* opname;
  const char* name;        /* "vhlo.add_v1" */
  hlx_bc_named_t* attrs;   /* inherent (properties) first, then discardable */
  int32_t nattrs;
  int32_t nresults;
  hlx_bc_type_t** results;
  int32_t noperands;
  hlx_value_t** operands;
  uint32_t nregions;
  bool isolated;
} hlx_bc_op_t;

/* VHLO operations hlx knows: the op's sorted inherent attribute names (the
 * order of its properties) and how it maps to StableHLO. */
typedef struct hlx_vhlo_op_t {
  const char* name;              /* "add_v1" */
  const char* const* attrs;      /* sorted, NULL-terminated; NULL: none */
  bool segments;                 /* operandSegmentSizes property */
} hlx_vhlo_op_t;
const hlx_vhlo_op_t* hlx_vhlo_op_find(const char* name, size_t len);
/* The whole table, for tests (sortedness of the attribute lists). */
const hlx_vhlo_op_t* hlx_vhlo_ops(int32_t* n);

/* Reads the op's attributes: its properties blob (s, version >= 5) or its
 * attribute dictionary, into op->attrs. */
bool hlx_bc_read_properties(hlx_bc_t* bc, hlx_bc_stream_t* s, hlx_bc_op_t* op);
bool hlx_bc_add_dict(hlx_bc_t* bc, const hlx_bc_stream_t* s, hlx_bc_op_t* op,
                     hlx_bc_attr_t* dict);
/* The StableHLO (or func) name of op; in_func: directly in a function body
 * (vhlo.return becomes func.return there). */
const char* hlx_bc_ir_op_name(hlx_bc_t* bc, const hlx_bc_op_t* op, bool in_func);
/* op's attributes as IR attributes, VHLO -> StableHLO: inherent attributes
 * at their default values dropped, dimension numbers imploded into their
 * #stablehlo structs, integer tensors of dense-array attributes as arrays. */
bool hlx_bc_convert_attrs(hlx_bc_t* bc, const hlx_bc_stream_t* s,
                          const hlx_bc_op_t* op, hlx_named_attr_t** out,
                          int32_t* n);
/* The same for attributes that need no VHLO rules (module, function
 * arguments, other dialects). */
bool hlx_bc_convert_named(hlx_bc_t* bc, const hlx_bc_stream_t* s,
                          const hlx_bc_named_t* in, int32_t nin,
                          hlx_named_attr_t** out, int32_t* n);
/* bytecode_vhlo_attrs.c: structs made of several VHLO attributes (dimension
 * numbers, channel handles, dot algorithms; at most 4 per op, into out),
 * marking the attributes used in consumed[]; and the special forms of
 * single attributes (dense arrays, symbols, channel ids). */
bool hlx_bc_vhlo_implode(hlx_bc_t* bc, const hlx_bc_stream_t* s,
                         const hlx_bc_op_t* op, const char* base, bool* consumed,
                         hlx_named_attr_t* out, int32_t* n);
hlx_attr_t* hlx_bc_vhlo_special(hlx_bc_t* bc, const hlx_bc_stream_t* s,
                                const char* base, const char* name,
                                hlx_bc_attr_t* a);
const hlx_bc_named_t* hlx_bc_find_attr(const hlx_bc_op_t* op, const char* name);

#endif /* HLX_GRAPH_STABLEHLO_BYTECODE_CONVERT_H_ */
