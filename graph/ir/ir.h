/* The hlx IR: modules of functions whose bodies are SSA regions of ops.
 *
 * Everything of one module lives in the module's arena and is freed by
 * hlx_module_destroy; nothing here is freed piecemeal. Ops are generic:
 * an opcode (graph/ir/ops.inc), operands, result values, named attributes and
 * nested regions. Attribute names are those of StableHLO's generic form
 * (e.g. broadcast_in_dim's `broadcast_dimensions`), whatever text form the
 * parser read, so passes and lowering read one spelling. */
#ifndef HLX_GRAPH_IR_H_
#define HLX_GRAPH_IR_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/dtype.h"
#include "base/status.h"
#include "base/arena.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Opcodes ------------------------------------------------------------ */
typedef enum hlx_opcode_t {
#define HLX_OP(id, text, ...) HLX_OP_##id,
#include "graph/ir/ops.inc"
#undef HLX_OP
  HLX_OP_COUNT
} hlx_opcode_t;

const char* hlx_opcode_name(hlx_opcode_t op); /* "stablehlo.add" */
/* HLX_OP_UNKNOWN when the name is not in ops.inc. */
hlx_opcode_t hlx_opcode_from_name(const char* name, size_t len);

/* How many operands, results and regions an op of this code takes
 * (graph/ir/ops.inc); a max of -1 means no upper bound. */
typedef struct hlx_op_arity_t {
  int16_t min_operands, max_operands;
  int16_t min_results, max_results;
  int16_t min_regions, max_regions;
} hlx_op_arity_t;
hlx_op_arity_t hlx_opcode_arity(hlx_opcode_t op);

/* ---- Types -------------------------------------------------------------- */
#define HLX_DYNAMIC_DIM INT64_MIN /* a `?` dimension */
#define HLX_MAX_RANK 16

typedef enum hlx_type_kind_t {
  HLX_TYPE_TENSOR,
  HLX_TYPE_TUPLE,
  HLX_TYPE_TOKEN,
} hlx_type_kind_t;

/* Quantized element type: !quant.uniform<storage:expressed, scale:zp> or
 * per-axis !quant.uniform<i8:f32:1, {0.1:-5, 0.2}>. */
typedef struct hlx_quant_t {
  hlx_dtype_t storage;   /* i8, ui8, i4, ... */
  hlx_dtype_t expressed; /* f32, f16, bf16 */
  bool has_storage_range;
  int64_t storage_min, storage_max;
  int32_t quantized_dimension; /* -1 for per-tensor */
  int32_t num_scales;          /* 1 for per-tensor */
  double* scales;
  int64_t* zero_points;
} hlx_quant_t;

typedef struct hlx_type_t hlx_type_t;
struct hlx_type_t {
  hlx_type_kind_t kind;
  /* TENSOR */
  hlx_dtype_t dtype;  /* for quantized tensors: quant->storage */
  hlx_quant_t* quant; /* NULL unless the element type is quantized */
  int32_t rank;
  int64_t* dims;      /* rank entries; HLX_DYNAMIC_DIM for `?` */
  int64_t* bounds;    /* NULL, or rank entries from #stablehlo.bounds<..>
                         (HLX_DYNAMIC_DIM = no bound) */
  /* Element type `index` (MLIR's target-sized integer), which exporters
   * write in attributes only: `operand_layouts = [dense<[0, 1]> :
   * tensor<2xindex>]`, `result_layout`, `5 : index`. Kept as dtype S64
   * (dense data is int64, as MLIR stores index on 64-bit hosts) with this
   * flag, so readers treat it as i64 and printers write `index` back.
   * Front ends (text, bytecode) accept it only in attribute types. */
  bool is_index;
  /* TUPLE (also !stablehlo.future<T...>: the async_start result, whose
   * values are computed eagerly and held like a tuple's) */
  int32_t num_elems;
  hlx_type_t** elems;
  bool is_future;
};

/* Element count of a static tensor type; -1 if any dim is dynamic or the
 * count overflows int64. */
int64_t hlx_type_num_elements(const hlx_type_t* t);
bool hlx_type_is_static(const hlx_type_t* t);
bool hlx_type_equal(const hlx_type_t* a, const hlx_type_t* b);

/* ---- Attributes --------------------------------------------------------- */
typedef enum hlx_attr_kind_t {
  HLX_ATTR_UNIT,       /* present without value */
  HLX_ATTR_BOOL,       /* true / false */
  HLX_ATTR_INT,        /* 5 : i64   (type in .type, may be NULL) */
  HLX_ATTR_FLOAT,      /* 1.0e-3 : f32 */
  HLX_ATTR_STRING,     /* "abc" (escapes decoded, may contain NUL: .len) */
  HLX_ATTR_SYMBOL,     /* @foo */
  HLX_ATTR_TYPE,       /* tensor<2xf32> used as an attribute value */
  HLX_ATTR_ARRAY,      /* [a, b, ...] */
  HLX_ATTR_I64_ARRAY,  /* array<i64: 1, 2> (also array<i1/i32>, kept as i64) */
  HLX_ATTR_DENSE,      /* dense<...> : tensor<...>, data in .dense */
  HLX_ATTR_ELIDED,     /* dense_resource<name> : tensor<...> (no data) */
  HLX_ATTR_DICT,       /* {a = 1, b} */
  HLX_ATTR_ENUM,       /* #stablehlo<comparison_direction EQ>:
                          .str = "comparison_direction", .enum_value = "EQ" */
  HLX_ATTR_STRUCT,     /* #stablehlo.gather<offset_dims = [1], ...>:
                          .str = "stablehlo.gather", fields in .dict */
  HLX_ATTR_OPAQUE,     /* anything else kept as its source text (.str) so
                          unknown dialect attributes survive a round trip */
} hlx_attr_kind_t;

typedef struct hlx_attr_t hlx_attr_t;
typedef struct hlx_named_attr_t {
  const char* name;
  hlx_attr_t* value;
} hlx_named_attr_t;

struct hlx_attr_t {
  hlx_attr_kind_t kind;
  hlx_type_t* type; /* INT/FLOAT optional type; DENSE/ELIDED/TYPE: the type */
  bool b;
  int64_t i;
  double f;
  const char* str; /* STRING/SYMBOL/ENUM kind/STRUCT name/OPAQUE text */
  size_t len;      /* STRING byte length */
  const char* enum_value;
  int32_t count;         /* ARRAY / I64_ARRAY / DICT entries */
  hlx_attr_t** items;    /* ARRAY */
  int64_t* ints;         /* I64_ARRAY */
  hlx_named_attr_t* dict; /* DICT / STRUCT fields */
  /* DENSE: row-major element data of .type, hlx_dtype_size bytes each
   * (quantized: storage type). Splats are expanded. */
  void* dense;
  size_t dense_bytes;
};

/* ---- Values, ops, regions, functions, modules --------------------------- */
typedef struct hlx_op_t hlx_op_t;
typedef struct hlx_block_t hlx_block_t;
typedef struct hlx_region_t hlx_region_t;

typedef struct hlx_value_t {
  hlx_type_t* type;
  int32_t id;           /* unique within its function (all nested regions) */
  hlx_op_t* def;        /* defining op, or NULL for a block argument */
  int32_t index;        /* result index in def, or argument index in block */
  hlx_block_t* block;   /* owning block for block arguments */
  const char* name;     /* source SSA name without '%' (for printing/errors) */
} hlx_value_t;

struct hlx_op_t {
  hlx_opcode_t code;
  const char* name; /* full op name as written, e.g. "stablehlo.add" */
  int32_t num_operands;
  hlx_value_t** operands;
  int32_t num_results;
  hlx_value_t** results;
  int32_t num_attrs;
  hlx_named_attr_t* attrs;
  int32_t num_regions;
  hlx_region_t** regions;
  int32_t line, col; /* source position (0 when built) */
  hlx_block_t* parent;
};

struct hlx_block_t {
  int32_t num_args;
  hlx_value_t** args;
  int32_t num_ops;
  hlx_op_t** ops; /* in program order; the last is the terminator
                     (stablehlo.return / func.return) */
  hlx_region_t* parent;
};

struct hlx_region_t {
  int32_t num_blocks; /* StableHLO regions have exactly one block */
  hlx_block_t** blocks;
  hlx_op_t* parent; /* NULL for a function body */
};

typedef struct hlx_func_t {
  const char* name; /* without '@' */
  bool is_public;   /* public unless marked private */
  int32_t num_args;
  hlx_named_attr_t** arg_attrs; /* per argument: NULL or a DICT attr's list */
  int32_t* num_arg_attrs;
  int32_t num_results;
  hlx_type_t** result_types;
  hlx_named_attr_t** result_attrs;
  int32_t* num_result_attrs;
  int32_t num_attrs; /* func attributes (attributes {...}) */
  hlx_named_attr_t* attrs;
  hlx_region_t* body; /* args = body->blocks[0]->args */
  int32_t num_values; /* ids 0 .. num_values-1 are used in this function */
  int32_t line, col;
} hlx_func_t;

typedef struct hlx_module_t {
  hlx_arena_t arena;
  const char* name; /* NULL if anonymous */
  int32_t num_attrs;
  hlx_named_attr_t* attrs;
  int32_t num_funcs;
  hlx_func_t** funcs;
} hlx_module_t;

hlx_module_t* hlx_module_create(void); /* NULL on out of memory */
void hlx_module_destroy(hlx_module_t* m);
hlx_func_t* hlx_module_find_func(const hlx_module_t* m, const char* name);
/* The entry point: @main, else the only public function, else the first. */
hlx_func_t* hlx_module_entry(const hlx_module_t* m);

/* Whether op's operand, result and region counts are in its opcode's
 * ranges (HLX_OP_UNKNOWN: any). If not, writes what is wrong to why, e.g.
 * "expects 2 operands, has 3" (without the op's name). The parser and the
 * verifier check this first so that no later code indexes past an op's
 * operands, results or regions. */
bool hlx_op_arity_ok(const hlx_op_t* op, char* why, size_t len);
/* The first op of m (functions, then nested regions, in order) whose
 * counts hlx_op_arity_ok refuses, with `why` filled; NULL if none. For
 * front ends that add regions after making an op. */
const hlx_op_t* hlx_module_first_bad_arity(const hlx_module_t* m, char* why,
                                           size_t len);

/* Attribute lookup by name; NULL when absent. */
const hlx_attr_t* hlx_op_attr(const hlx_op_t* op, const char* name);
const hlx_attr_t* hlx_attr_dict_get(const hlx_attr_t* dict, const char* name);
const hlx_attr_t* hlx_named_attrs_get(const hlx_named_attr_t* a, int32_t n,
                                      const char* name);

#ifdef __cplusplus
}
#endif

#endif /* HLX_GRAPH_IR_H_ */
