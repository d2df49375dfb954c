/* Shared by the StableHLO text parser's files (lexer.c, parser.c,
 * parse_attr.c, parse_pretty.c). Not a public header. */
#ifndef HLX_GRAPH_STABLEHLO_PARSER_INTERNAL_H_
#define HLX_GRAPH_STABLEHLO_PARSER_INTERNAL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/status.h"
#include "graph/ir/ir.h"

/* Internal symbols get a library prefix at link time. */
#define lx_init hlx_shlo_lx_init
#define lx_peek hlx_shlo_lx_peek
#define lx_next hlx_shlo_lx_next
#define lx_skip_ws hlx_shlo_lx_skip_ws
#define lx_char hlx_shlo_lx_char
#define lx_advance hlx_shlo_lx_advance
#define lx_save hlx_shlo_lx_save
#define lx_restore hlx_shlo_lx_restore
#define lx_col hlx_shlo_lx_col
#define tok_is hlx_shlo_tok_is
#define tok_punct hlx_shlo_tok_punct
#define lit_hexval hlx_shlo_lit_hexval
#define lit_int_text hlx_shlo_lit_int_text
#define lit_is_hex hlx_shlo_lit_is_hex
#define lit_to_float hlx_shlo_lit_to_float
#define perr_tok hlx_shlo_perr_tok
#define perr_at hlx_shlo_perr_at
#define perr_unsupported hlx_shlo_perr_unsupported
#define expect_punct hlx_shlo_expect_punct
#define accept_punct hlx_shlo_accept_punct
#define accept_bare hlx_shlo_accept_bare
#define peek_punct hlx_shlo_peek_punct
#define peek_bare hlx_shlo_peek_bare
#define pa_alloc hlx_shlo_pa_alloc
#define pa_strndup hlx_shlo_pa_strndup
#define pa_push hlx_shlo_pa_push
#define parse_type hlx_shlo_parse_type
#define parse_attr_type hlx_shlo_parse_attr_type
#define make_scalar_type hlx_shlo_make_scalar_type
#define make_tensor_type hlx_shlo_make_tensor_type
#define parse_attr hlx_shlo_parse_attr
#define parse_attr_dict hlx_shlo_parse_attr_dict
#define parse_dense_after_kw hlx_shlo_parse_dense_after_kw
#define parse_int_literal hlx_shlo_parse_int_literal
#define parse_float_literal hlx_shlo_parse_float_literal
#define parse_i64_list hlx_shlo_parse_i64_list
#define make_i64_array hlx_shlo_make_i64_array
#define make_int_attr hlx_shlo_make_int_attr
#define make_enum_attr hlx_shlo_make_enum_attr
#define make_string_attr hlx_shlo_make_string_attr
#define decode_string hlx_shlo_decode_string
#define add_attr hlx_shlo_add_attr
#define parse_conv_dims_body hlx_shlo_parse_conv_dims_body
#define parse_struct_fields hlx_shlo_parse_struct_fields
#define skip_loc hlx_shlo_skip_loc
#define find_alias hlx_shlo_find_alias
#define parse_value_use hlx_shlo_parse_value_use
#define ob_add_operand hlx_shlo_ob_add_operand
#define ob_add_attr hlx_shlo_ob_add_attr
#define ob_set_results hlx_shlo_ob_set_results
#define parse_region hlx_shlo_parse_region
#define ob_add_region hlx_shlo_ob_add_region
#define new_value hlx_shlo_new_value
#define new_op hlx_shlo_new_op
#define parse_type_list hlx_shlo_parse_type_list
#define parse_signature hlx_shlo_parse_signature
#define parse_pretty_op hlx_shlo_parse_pretty_op

/* ---- Lexer ---------------------------------------------------------------- */
typedef enum tok_kind_t {
  TK_EOF,
  TK_ERROR,   /* unterminated string, stray character */
  TK_BARE,    /* foo, stablehlo.add, f32, x, e5m10 */
  TK_PERCENT, /* %name (text includes '%'; a #N suffix is not included) */
  TK_AT,      /* @name or @"quoted" (text includes '@') */
  TK_HASH,    /* #name (text includes '#') */
  TK_BANG,    /* !name (text includes '!') */
  TK_CARET,   /* ^bb0 */
  TK_INT,     /* 12, -3, 0x1F */
  TK_FLOAT,   /* 1.5, -2.0e-3 */
  TK_STRING,  /* "..." (text includes the quotes) */
  TK_PUNCT,   /* ( ) [ ] { } < > , : = ? * + - -> */
} tok_kind_t;

typedef struct tok_t {
  tok_kind_t kind;
  const char* p;
  size_t n;
  int line, col;
} tok_t;

typedef struct lex_state_t {
  const char* p;
  const char* line_start;
  int line;
} lex_state_t;

typedef struct lexer_t {
  const char* begin;
  const char* end;
  lex_state_t s;
  bool has_peek;
  tok_t peek_tok;
  lex_state_t after_peek;
} lexer_t;

void lx_init(lexer_t* lx, const char* text, size_t len, int first_line);
tok_t lx_peek(lexer_t* lx);
tok_t lx_next(lexer_t* lx);
/* Skips whitespace and comments; drops a pending peek. */
void lx_skip_ws(lexer_t* lx);
/* Current character after lx_skip_ws (0 at end). */
int lx_char(lexer_t* lx);
void lx_advance(lexer_t* lx, size_t n);
lex_state_t lx_save(lexer_t* lx);
void lx_restore(lexer_t* lx, lex_state_t s);
int lx_col(const lexer_t* lx);

bool tok_is(tok_t t, const char* s); /* exact text match */
bool tok_punct(tok_t t, const char* s);

/* ---- Literals (parse_literal.c) ----------------------------------------- */
int lit_hexval(char c); /* -1 if not a hex digit */
/* [-]decimal or [-]0x hex text -> magnitude and sign; false on overflow. */
bool lit_int_text(const char* s, size_t n, uint64_t* mag, bool* neg);
bool lit_is_hex(const char* s, size_t n);

/* ---- Parser ------------------------------------------------------------- */
typedef struct sym_t {
  const char* name; /* without '%' */
  size_t len;
  hlx_value_t** vals;
  int32_t n;
  int32_t next; /* previous head of the bucket */
  uint32_t hash;
} sym_t;

typedef struct alias_t {
  const char* name; /* with '#' or '!' */
  size_t len;
  hlx_attr_t* attr;
  hlx_type_t* type;
} alias_t;

typedef struct lit_t {
  const char* p;
  uint32_t n;
  uint8_t kind; /* tok_kind_t of the literal (TK_INT/TK_FLOAT/TK_BARE) */
  uint8_t neg;  /* a separate '-' preceded it */
  int line, col;
} lit_t;

#define HLX_PARSE_MAX_DEPTH 256
#define HLX_DENSE_MAX_BYTES ((size_t)1 << 30)

typedef struct parser_t {
  lexer_t lx;
  hlx_module_t* m;
  hlx_arena_t* a;
  const char* filename;
  hlx_status_t err;
  int depth;
  /* Set while parsing the type of an attribute (dense<..> : T, a type
   * attribute): only there may the element type be `index`. */
  bool allow_index;
  /* SSA symbol table: a stack of bindings with hash-bucket chains. */
  sym_t* syms;
  int32_t nsyms, capsyms;
  int32_t* buckets; /* HLX_SYM_BUCKETS heads, -1 = empty */
  int32_t scope_start;
  hlx_func_t* func;
  alias_t* aliases;
  int32_t naliases, capaliases;
  lit_t* lits; /* dense literal scratch */
  size_t nlits, caplits;
} parser_t;

#define HLX_SYM_BUCKETS 4096

/* Errors: the first error wins; functions return false / NULL after one. */
bool perr_tok(parser_t* p, tok_t t, const char* expected);
bool perr_at(parser_t* p, int line, int col, const char* fmt, ...)
    HLX_PRINTF(4, 5);
bool perr_unsupported(parser_t* p, tok_t t, const char* what);

/* Token helpers. */
bool expect_punct(parser_t* p, const char* s, const char* what);
bool accept_punct(parser_t* p, const char* s);
bool accept_bare(parser_t* p, const char* s);
bool peek_punct(parser_t* p, const char* s);
bool peek_bare(parser_t* p, const char* s);

/* Arena helpers. */
void* pa_alloc(parser_t* p, size_t bytes);
char* pa_strndup(parser_t* p, const char* s, size_t n);
/* Appends item (elem bytes) to an arena vector, doubling capacity. */
bool pa_push(parser_t* p, void** arr, int32_t* n, int32_t* cap, size_t elem,
             const void* item);

/* Types / attributes (parse_attr.c). */
hlx_type_t* parse_type(parser_t* p);
/* parse_type for an attribute's type: `index` elements allowed. */
hlx_type_t* parse_attr_type(parser_t* p);
hlx_type_t* make_scalar_type(parser_t* p, hlx_dtype_t dt); /* rank 0 */
hlx_type_t* make_tensor_type(parser_t* p, hlx_dtype_t dt, hlx_quant_t* q,
                             int32_t rank, const int64_t* dims);
/* in_struct: inside #dialect.name<...> (lists of ints -> I64_ARRAY, bare
 * words -> OPAQUE). */
hlx_attr_t* parse_attr(parser_t* p, bool in_struct);
/* { key = value, unit_key, ... } -> appends to (*list, *n). */
bool parse_attr_dict(parser_t* p, hlx_named_attr_t** list, int32_t* n,
                     int32_t* cap);
hlx_attr_t* parse_dense_after_kw(parser_t* p, tok_t kw); /* after `dense` */
bool parse_int_literal(parser_t* p, int64_t* out);       /* [-]N */
/* A float literal (decimal, hex bit pattern of dt, inf, nan) -> double, or
 * raw bits (*is_bits) for hex. */
bool lit_to_float(parser_t* p, const lit_t* l, hlx_dtype_t dt, double* d,
                  uint64_t* bits, bool* is_bits);
bool parse_float_literal(parser_t* p, double* out);      /* [-]N[.N][eN] */
bool parse_i64_list(parser_t* p, int64_t** out, int32_t* n); /* [1, 2] */
hlx_attr_t* make_i64_array(parser_t* p, const int64_t* v, int32_t n,
                           hlx_dtype_t elem);
hlx_attr_t* make_int_attr(parser_t* p, int64_t v, hlx_dtype_t dt);
hlx_attr_t* make_enum_attr(parser_t* p, const char* kind, tok_t value);
hlx_attr_t* make_string_attr(parser_t* p, const char* s, size_t n);
/* Decodes a TK_STRING token into the arena. */
bool decode_string(parser_t* p, tok_t t, char** out, size_t* out_len);
bool add_attr(parser_t* p, hlx_named_attr_t** list, int32_t* n, int32_t* cap,
              const char* name, hlx_attr_t* v);
hlx_attr_t* parse_conv_dims_body(parser_t* p); /* [b, 0, f]x[...]->[...] */
hlx_attr_t* parse_struct_fields(parser_t* p, const char* name); /* <k = v, ...> */
void skip_loc(parser_t* p); /* optional loc(...) */
const alias_t* find_alias(parser_t* p, const char* name, size_t len);

/* Core (parser.c). */
typedef struct op_builder_t {
  hlx_op_t* op;
  hlx_value_t** operands;
  int32_t nops, capops;
  hlx_named_attr_t* attrs;
  int32_t nattrs, capattrs;
  hlx_region_t** regions;
  int32_t nregions, capregions;
  int32_t nlhs; /* number of result names on the left-hand side */
} op_builder_t;

typedef struct block_arg_spec_t {
  tok_t name;
  hlx_type_t* type;
} block_arg_spec_t;

hlx_value_t* parse_value_use(parser_t* p);
bool ob_add_operand(parser_t* p, op_builder_t* b, hlx_value_t* v);
bool ob_add_attr(parser_t* p, op_builder_t* b, const char* name,
                 hlx_attr_t* v);
bool ob_set_results(parser_t* p, op_builder_t* b, hlx_type_t** types,
                    int32_t n);
/* Parses `{ [^bb0(args):] ops }`; when args is not NULL the block takes
 * those (named) arguments and no label is allowed. */
hlx_region_t* parse_region(parser_t* p, const block_arg_spec_t* args,
                           int32_t nargs);
bool ob_add_region(parser_t* p, op_builder_t* b, hlx_region_t* r);
hlx_value_t* new_value(parser_t* p, hlx_type_t* t);
/* Creates an op in block (appended) — used for synthesized bodies. */
hlx_op_t* new_op(parser_t* p, const char* name);

/* Type signature after ':' of a pretty op. */
typedef struct sig_t {
  hlx_type_t** in;
  int32_t nin, capin;
  hlx_type_t** out;
  int32_t nout, capout;
  bool has_arrow; /* results were written explicitly */
} sig_t;
bool parse_type_list(parser_t* p, hlx_type_t*** list, int32_t* n,
                     int32_t* cap);
bool parse_signature(parser_t* p, sig_t* s);

/* Pretty forms (parse_pretty.c): parses everything after the op name. */
bool parse_pretty_op(parser_t* p, op_builder_t* b, tok_t name_tok,
                     hlx_opcode_t code);

#endif /* HLX_GRAPH_STABLEHLO_PARSER_INTERNAL_H_ */
