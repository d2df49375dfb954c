/* Shared by the XLA HLO text front end's files: the lexer, the syntax tree
 * the parser builds (computations of instructions whose attribute values
 * are kept as source spans and read on demand), and the op table that maps
 * HLO opcodes to hlx IR ops in both directions. Not a public header. */
#ifndef HLX_GRAPH_HLO_HLO_INTERNAL_H_
#define HLX_GRAPH_HLO_HLO_INTERNAL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/status.h"
#include "graph/ir/ir.h"

/* ---- Lexer (hlo_lexer.c) ------------------------------------------------- */
typedef enum hlo_tok_kind_t {
  HT_EOF,
  HT_ERROR,  /* stray character, unterminated string or comment */
  HT_NAME,   /* add.1, f32, ENTRY, %param_0 (text without the '%') */
  HT_INT,    /* 12, -3 */
  HT_FLOAT,  /* 1.5, -2e-3, -inf, -nan */
  HT_WORD,   /* other digit-led words: 3x3, 0_0x1_1, 0bf_0io->0bf */
  HT_STRING, /* "..." (text includes the quotes) */
  HT_PUNCT,  /* { } [ ] ( ) , = : * # + ~ ? <= -> ... */
} hlo_tok_kind_t;

typedef struct hlo_tok_t {
  hlo_tok_kind_t kind;
  const char* p;
  size_t n;
  int line, col;
  bool space_before; /* whitespace or a comment precedes it */
} hlo_tok_t;

typedef struct hlo_lexer_t {
  const char* begin;
  const char* end;
  const char* p;
  const char* line_start;
  int line;
} hlo_lexer_t;

void hlo_lx_init(hlo_lexer_t* lx, const char* text, size_t len, int line,
                 const char* line_start);
hlo_tok_t hlo_lx_next(hlo_lexer_t* lx);
hlo_tok_t hlo_lx_peek(const hlo_lexer_t* lx);
bool hlo_tok_is(hlo_tok_t t, const char* s);    /* exact text */
bool hlo_tok_punct(hlo_tok_t t, const char* s); /* a punctuation token s */

/* ---- Errors ---------------------------------------------------------------
 */
/* Keeps the first error: "file:line:col: message". */
typedef struct hlo_err_t {
  const char* filename;
  hlx_status_t status;
} hlo_err_t;

bool hlo_error_at(hlo_err_t* e, int line, int col, const char* fmt, ...)
    HLX_PRINTF(4, 5);
/* "expected X, got 'tok'" (or "end of input"). */
bool hlo_error_tok(hlo_err_t* e, hlo_tok_t t, const char* expected);
/* UNIMPLEMENTED "unsupported: ..." at t. */
bool hlo_error_unsupported(hlo_err_t* e, hlo_tok_t t, const char* fmt, ...)
    HLX_PRINTF(3, 4);
bool hlo_error_oom(hlo_err_t* e);

/* ---- Shapes -----------------------------------------------------------------
 */
typedef struct hlo_shape_t hlo_shape_t;
struct hlo_shape_t {
  hlx_type_kind_t kind; /* TENSOR, TUPLE or TOKEN */
  hlx_dtype_t dtype;
  int32_t rank;
  int64_t* dims;     /* HLX_DYNAMIC_DIM for `?` and `<=N` */
  int64_t* bounds;   /* NULL, or rank entries (N of `<=N`, else DYNAMIC) */
  int64_t* layout;   /* minor_to_major, NULL when none was written */
  int32_t num_elems; /* TUPLE */
  hlo_shape_t** elems;
};

/* HLO element type names: "f32" <-> HLX_DTYPE_F32 ... */
hlx_dtype_t hlo_dtype_from_name(const char* s, size_t n);
const char* hlo_dtype_name(hlx_dtype_t t); /* NULL when HLO has no name */

/* ---- Syntax tree (hlo_ast.c) ----------------------------------------------
 */
typedef struct hlo_span_t {
  const char *begin, *end; /* source text of an attribute value */
  int line, col;           /* of begin */
  const char* line_start;  /* of begin's line, to restart the lexer there */
} hlo_span_t;

typedef struct hlo_attr_t {
  hlo_tok_t name;
  hlo_span_t value;
} hlo_attr_t;

typedef struct hlo_instr_t {
  hlo_tok_t name;
  hlo_tok_t opcode;
  hlo_shape_t* shape;
  bool is_root;
  int32_t num_operands;
  int32_t* operands;      /* indices into the computation's instrs */
  hlo_tok_t* operand_tok; /* where each operand was named */
  hlo_span_t paren;       /* inside `(...)` of constant and parameter */
  int32_t num_attrs;
  hlo_attr_t* attrs;
} hlo_instr_t;

typedef struct hlo_comp_t {
  hlo_tok_t name;
  bool is_entry;
  int32_t num_instrs;
  hlo_instr_t* instrs;
  int32_t root; /* the ROOT instruction, else the last */
  int32_t num_params;
  int32_t* params; /* instruction index of parameter(i) */
} hlo_comp_t;

typedef struct hlo_ast_t {
  hlo_tok_t name; /* HloModule name; kind HT_EOF when there is no header */
  int32_t num_attrs;
  hlo_attr_t* attrs; /* of the HloModule line */
  int32_t num_comps;
  hlo_comp_t* comps;
  int32_t entry; /* the ENTRY computation, else the last */
} hlo_ast_t;

/* Parses text into ast (allocated in a). */
bool hlo_parse_ast(const char* text, size_t len, int first_line, hlx_arena_t* a,
                   hlo_err_t* e, hlo_ast_t* ast);
/* Index of the computation named n, or -1. */
int32_t hlo_find_comp(const hlo_ast_t* ast, const char* n, size_t len);
/* Parses a shape at the lexer (shared with attribute readers). */
hlo_shape_t* hlo_parse_shape(hlo_lexer_t* lx, hlx_arena_t* a, hlo_err_t* e);
/* Starts a lexer over an attribute value. */
void hlo_span_lexer(const hlo_span_t* s, hlo_lexer_t* lx);
/* Appends item to an arena vector (doubling); false on out of memory. */
bool hlo_push(hlx_arena_t* a, void** arr, int32_t* n, int32_t* cap, size_t elem,
              const void* item);

/* ---- Attribute values (hlo_attr_parse.c) -----------------------------------
 */
/* Each reads one attribute value span entirely; errors name its position. */
bool hlo_read_i64(const hlo_span_t* s, hlo_err_t* e, int64_t* out);
bool hlo_read_bool(const hlo_span_t* s, hlo_err_t* e, bool* out);
bool hlo_read_f64(const hlo_span_t* s, hlo_err_t* e, double* out);
/* {1, 2, 3} */
bool hlo_read_i64_list(const hlo_span_t* s, hlx_arena_t* a, hlo_err_t* e,
                       int64_t** out, int32_t* n);
/* {{0,1},{2,3}} or the iota form [2,2]<=[4] / [2,2]<=[2,2]T(1,0): a
 * rows x cols matrix (rows*cols entries). */
bool hlo_read_groups(const hlo_span_t* s, hlx_arena_t* a, hlo_err_t* e,
                     int64_t** out, int32_t* rows, int32_t* cols);
/* A bare word (kLoop, LT, rng_uniform): its token. */
bool hlo_read_word(const hlo_span_t* s, hlo_err_t* e, hlo_tok_t* out);
/* "..." decoded, or a {...} JSON dictionary kept as its text. */
bool hlo_read_string(const hlo_span_t* s, hlx_arena_t* a, hlo_err_t* e,
                     bool allow_json, char** out, size_t* n);
/* {[0:10], [2:8:2]} -> starts, limits, strides (rank entries each). */
bool hlo_read_slice(const hlo_span_t* s, hlx_arena_t* a, hlo_err_t* e,
                    int64_t** starts, int64_t** limits, int64_t** strides,
                    int32_t* rank);
/* 0_0_1x2_3 -> low, high, interior per dim; interior may be absent when
 * allow_interior is false (window pads). */
bool hlo_read_padding(const hlo_span_t* s, const char* text, size_t n,
                      hlx_arena_t* a, hlo_err_t* e, bool allow_interior,
                      int64_t** low, int64_t** high, int64_t** interior,
                      int32_t* rank);

typedef struct hlo_window_t {
  int32_t rank;
  int64_t* size;
  int64_t* stride;
  int64_t* pad_low;
  int64_t* pad_high;
  int64_t* lhs_dilate;
  int64_t* rhs_dilate;
  int64_t* reversal; /* 0/1 */
} hlo_window_t;
/* {size=3x3 stride=2x2 pad=0_1x0_1 lhs_dilate=.. rhs_dilate=.. rhs_reversal=..}
 * (absent fields get their defaults). */
bool hlo_read_window(const hlo_span_t* s, hlx_arena_t* a, hlo_err_t* e,
                     hlo_window_t* w);

typedef struct hlo_conv_dims_t {
  int64_t in_batch, in_feature, k_in, k_out, out_batch, out_feature;
  int32_t spatial;
  int64_t in_sp[HLX_MAX_RANK], k_sp[HLX_MAX_RANK], out_sp[HLX_MAX_RANK];
} hlo_conv_dims_t;
/* b01f_01io->b01f */
bool hlo_read_dim_labels(const hlo_span_t* s, hlo_err_t* e, hlo_conv_dims_t* d);

/* ---- IR construction (hlo_build.c) -----------------------------------------
 */
typedef struct hlo_b_t {
  hlx_arena_t* a; /* the module's arena */
  hlo_err_t* e;
  hlx_func_t* func; /* values are numbered within it */
} hlo_b_t;

hlx_type_t* hb_tensor(hlo_b_t* b, hlx_dtype_t dt, int32_t rank,
                      const int64_t* dims);
hlx_type_t* hb_type_from_shape(hlo_b_t* b, const hlo_shape_t* s);
hlx_type_t* hb_tuple(hlo_b_t* b, hlx_type_t* const* elems, int32_t n);
hlx_value_t* hb_value(hlo_b_t* b, hlx_type_t* t);
/* An op appended to blk with operands, n results of the given types. */
hlx_op_t* hb_op(hlo_b_t* b, hlx_block_t* blk, hlx_opcode_t code,
                hlx_value_t* const* operands, int32_t nops,
                hlx_type_t* const* result_types, int32_t nres, int line,
                int col);
bool hb_attr(hlo_b_t* b, hlx_op_t* op, const char* name, hlx_attr_t* v);
hlx_attr_t* hb_i64_array(hlo_b_t* b, const int64_t* v, int32_t n);
hlx_attr_t* hb_bool_array(hlo_b_t* b, const int64_t* v, int32_t n);
/* INT : dt (no type when dt is HLX_DTYPE_INVALID, as in struct fields). */
hlx_attr_t* hb_int(hlo_b_t* b, int64_t v, hlx_dtype_t dt);
hlx_attr_t* hb_float(hlo_b_t* b, double v, hlx_dtype_t dt);
hlx_attr_t* hb_bool(hlo_b_t* b, bool v);
hlx_attr_t* hb_unit(hlo_b_t* b);
hlx_attr_t* hb_string(hlo_b_t* b, const char* s, size_t n);
hlx_attr_t* hb_symbol(hlo_b_t* b, const char* s);
hlx_attr_t* hb_enum(hlo_b_t* b, const char* kind, const char* value);
/* A DENSE i64 matrix of rows x cols (copied). */
hlx_attr_t* hb_i64_matrix(hlo_b_t* b, const int64_t* v, int32_t rows,
                          int32_t cols);
hlx_attr_t* hb_struct(hlo_b_t* b, const char* name);
bool hb_struct_field(hlo_b_t* b, hlx_attr_t* s, const char* name,
                     hlx_attr_t* v);
hlx_attr_t* hb_array(hlo_b_t* b, hlx_attr_t* const* items, int32_t n);
/* A one-block region with block arguments of the given types. */
hlx_region_t* hb_region(hlo_b_t* b, hlx_type_t* const* arg_types,
                        int32_t nargs);
bool hb_add_region(hlo_b_t* b, hlx_op_t* op, hlx_region_t* r);

/* ---- Literals (hlo_literal.c) ----------------------------------------------
 */
/* The constant(...) contents for a value of type t: DENSE, or ELIDED for
 * `{...}`. */
hlx_attr_t* hlo_read_literal(hlo_b_t* b, const hlo_span_t* s, hlx_type_t* t);
/* Exponent and mantissa widths of the float types whose NaNs carry a
 * payload (`nan(0x..)`); false for the others. */
bool hlo_nan_layout(hlx_dtype_t dt, int* ebits, int* mbits);
/* The bits of d rounded to the real float type dt (low bytes). */
uint64_t hlo_float_bits(hlx_dtype_t dt, double d);

/* ---- Op table (hlo_ops.c) ------------------------------------------------ */
typedef enum hlo_attr_kind_t {
  HA_I64_LIST,   /* {1,2} <-> I64_ARRAY */
  HA_I64,        /* 5 <-> INT : i64 */
  HA_I32,        /* 5 <-> INT : i32 */
  HA_BOOL,       /* true <-> BOOL */
  HA_F32,        /* 1e-3 <-> FLOAT : f32 */
  HA_STRING,     /* "x" <-> STRING */
  HA_JSON,       /* "x" or {...} <-> STRING */
  HA_ENUM,       /* word <-> ENUM aux (values mapped by the enum table) */
  HA_PRECISION,  /* {default,high} <-> ARRAY of ENUM precision */
  HA_GROUPS,     /* replica groups <-> DENSE i64 [groups, size] */
  HA_PAIRS,      /* {{0,1},{1,0}} <-> DENSE i64 [n, 2] */
  HA_CHANNEL,    /* 1 <-> STRUCT stablehlo.channel_handle<handle, type=1> */
  HA_UNIT_BOOL,  /* true <-> UNIT present */
  HA_FIELD_LIST, /* {1,2} <-> I64_ARRAY field of STRUCT aux */
  HA_FIELD_I64,  /* 5 <-> INT field of STRUCT aux */
  HA_SLICE,      /* {[a:b:c], ...} <-> start_indices/limit_indices/strides */
  HA_PADDING,    /* 0_0_0x1_1_0 <-> edge_padding_low/high/interior */
  HA_WINDOW,     /* window={...}: conv or reduce-window form (by op) */
  HA_DIM_LABELS, /* conv dimension_numbers */
  HA_FIRST_I64,  /* {5} <-> INT : i64 (one-element list) */
  HA_REGION,     /* to_apply=%comp -> a region; aux "unpack": a tuple root
                    returns its elements, "keep": the root value itself */
  HA_SPECIAL,    /* read by the op's own importer (calls=, ...) */
  HA_IGNORE,     /* accepted, dropped */
} hlo_attr_kind_t;

typedef struct hlo_attr_spec_t {
  const char* hlo; /* HLO attribute name */
  const char* ir;  /* IR attribute name (or struct field) */
  hlo_attr_kind_t kind;
  const char* aux; /* enum kind / struct name */
  bool required;
  const char* dflt; /* printed/imported default when absent (text), or NULL */
} hlo_attr_spec_t;

typedef enum hlo_op_kind_t {
  HK_SIMPLE,  /* operands -> one result, attributes by spec */
  HK_SPECIAL, /* handled in hlo_import_ops.c / hlo_print_ops.c */
} hlo_op_kind_t;

typedef struct hlo_op_t {
  const char* hlo; /* "add" */
  hlx_opcode_t ir; /* HLX_OP_ADD */
  hlo_op_kind_t kind;
  const hlo_attr_spec_t* attrs; /* NULL-terminated (hlo == NULL) */
  bool tuple_results;           /* a tuple-shaped HLO result is the IR op's
                                   results (its leaves), regrouped by tuple ops */
} hlo_op_t;

const hlo_op_t* hlo_op_by_name(const char* s, size_t n);
/* The HLO op an IR op prints as (first entry with that IR opcode). */
const hlo_op_t* hlo_op_by_ir(hlx_opcode_t code);
/* Attributes every instruction may carry and that hlx drops. */
bool hlo_attr_ignored(const char* s, size_t n);

/* Enum spellings: HLO word <-> IR enum value (e.g. rng_uniform <-> UNIFORM,
 * default <-> DEFAULT). Unknown words are passed through upper-cased. */
const char* hlo_enum_to_ir(const char* kind, const char* word, size_t n,
                           char* buf, size_t buf_len);
const char* hlo_enum_to_hlo(const char* kind, const char* value, char* buf,
                            size_t buf_len);

/* ---- Import: syntax tree -> IR (hlo_import*.c) ----------------------------
 */
typedef struct hlo_imp_t {
  hlo_b_t b;
  hlx_module_t* m;
  const hlo_ast_t* ast;
  hlx_func_t** funcs; /* per computation: its function once made */
  bool* busy;         /* per computation: being made into a function */
} hlo_imp_t;

/* One instantiation of a computation into a block. */
typedef struct hlo_scope_t {
  int32_t comp;
  const hlo_comp_t* c;
  hlx_block_t* blk;
  hlx_value_t** vals;         /* per instruction: its IR value */
  hlx_value_t* const* params; /* parameter(i)'s value */
  int32_t* param_of;          /* per instruction: its parameter number */
  int32_t* uses;              /* per instruction: operand uses by others */
  int32_t skip;               /* instruction left out (an unpacked root
                                 tuple), or -1 */
} hlo_scope_t;

/* The computation an attribute names (`to_apply=%add`); it must be defined
 * before the computation using it, as in XLA. -1 on error. */
int32_t hlo_called_comp(hlo_imp_t* im, const hlo_scope_t* sc,
                        const hlo_span_t* s);
hlx_func_t* hlo_import_func(hlo_imp_t* im, int32_t comp);
/* Region from a computation: block arguments are its parameters (or, when
 * params is not NULL, no block arguments and parameter(i) is params[i]);
 * the return is the root, or with unpack the elements of a tuple root. */
hlx_region_t* hlo_import_region(hlo_imp_t* im, int32_t comp, bool unpack,
                                hlx_value_t* const* params);
/* Imports instructions of sc->c into sc->blk; the root's value. */
hlx_value_t* hlo_import_body(hlo_imp_t* im, hlo_scope_t* sc);
/* Builds a value of tuple type t from the leaves vals[*next...] with
 * stablehlo.tuple ops (nested as t is). */
hlx_value_t* hlo_regroup(hlo_imp_t* im, hlo_scope_t* sc,
                         hlx_value_t* const* vals, int32_t* next, hlx_type_t* t,
                         int line, int col);
/* Counts and lists the tensor/token leaves of t (out may be NULL). */
int32_t hlo_leaves(hlx_type_t* t, hlx_type_t** out, int32_t max);
/* Attributes of instruction in by the op's spec list. */
bool hlo_import_module(const hlo_ast_t* ast, hlx_module_t* m, hlo_err_t* e);
bool hlo_import_attrs(hlo_imp_t* im, hlo_scope_t* sc, const hlo_instr_t* in,
                      const hlo_op_t* op, hlx_op_t* ir);
/* The attribute of in named name, or NULL. */
const hlo_attr_t* hlo_instr_attr(const hlo_instr_t* in, const char* name);
bool hlo_import_simple(hlo_imp_t* im, hlo_scope_t* sc, int32_t i,
                       const hlo_op_t* op);
bool hlo_import_special(hlo_imp_t* im, hlo_scope_t* sc, int32_t i,
                        const hlo_op_t* op);
/* The value of instruction in imported by op's table entry as if its
 * shape were `shape` (the async starts wrap such a value). */
hlx_value_t* hlo_simple_value(hlo_imp_t* im, hlo_scope_t* sc,
                              const hlo_instr_t* in, const hlo_op_t* op,
                              const hlo_shape_t* shape);
/* The *-start / *-update / *-done and copy-start / copy-done family
 * (hlo_import_async.c). */
bool hlo_is_async(const char* opcode);
bool hlo_import_async(hlo_imp_t* im, hlo_scope_t* sc, int32_t i,
                      const hlo_op_t* op);
/* Sets the value name of v (and its op's other results) from in. */
void hlo_name_value(hlo_imp_t* im, hlx_value_t* v, const hlo_instr_t* in);

#endif /* HLX_GRAPH_HLO_HLO_INTERNAL_H_ */
