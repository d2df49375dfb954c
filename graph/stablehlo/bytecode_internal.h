/* Shared by the MLIR bytecode reader's files (bytecode_*.c). Not a public
 * header: graph/stablehlo/bytecode.h is the entry point.
 *
 * The reader works in two layers. The format layer (bytecode_stream.c,
 * bytecode_sections.c, bytecode_types.c, bytecode_attrs.c, bytecode_sdy.c)
 * decodes what the file says: sections, tables, and attribute/type entries
 * into the bc_attr_t / bc_type_t model below, faithful to the dialect
 * encodings (builtin, vhlo, sdy). The IR layer (bytecode_ir.c,
 * bytecode_vhlo.c, bytecode_convert.c) reads the IR section and builds the
 * hlx IR the text parser would build for the same program.
 *
 * Robustness contract: every read is bounds-checked against its section;
 * every count is checked against the bytes left before anything is
 * allocated for it; attribute/type references are decoded once (memoized)
 * with cycle detection; nesting is limited. The first error wins and names
 * the byte offset in the file and what was expected. */
#ifndef HLX_GRAPH_STABLEHLO_BYTECODE_INTERNAL_H_
#define HLX_GRAPH_STABLEHLO_BYTECODE_INTERNAL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/status.h"
#include "graph/ir/ir.h"

/* ---- Format constants (the MLIR bytecode format) ------------------------- */
#define HLX_BC_MAX_VERSION 6 /* newest bytecode version understood */
enum {
  HLX_BC_V_DIALECT_VERSIONING = 1,
  HLX_BC_V_LAZY_LOADING = 2, /* isolated regions are nested IR sections */
  HLX_BC_V_USE_LIST_ORDERS = 3,
  HLX_BC_V_ELIDE_ARG_LOCS = 4, /* block args: type|hasLoc flag; op count */
  HLX_BC_V_PROPERTIES = 5,     /* native properties; op name registered bit */
  HLX_BC_V_SEGMENT_PROPS = 6,  /* operandSegmentSizes as a sparse array */
};

typedef enum hlx_bc_section_id_t {
  HLX_BC_SEC_STRING = 0,
  HLX_BC_SEC_DIALECT = 1,
  HLX_BC_SEC_ATTR_TYPE = 2,
  HLX_BC_SEC_ATTR_TYPE_OFFSET = 3,
  HLX_BC_SEC_IR = 4,
  HLX_BC_SEC_RESOURCE = 5,
  HLX_BC_SEC_RESOURCE_OFFSET = 6,
  HLX_BC_SEC_DIALECT_VERSIONS = 7,
  HLX_BC_SEC_PROPERTIES = 8,
  HLX_BC_NUM_SECTIONS = 9,
} hlx_bc_section_id_t;

/* Operation encoding mask bits. */
enum {
  HLX_BC_OP_ATTRS = 0x01,
  HLX_BC_OP_RESULTS = 0x02,
  HLX_BC_OP_OPERANDS = 0x04,
  HLX_BC_OP_SUCCESSORS = 0x08,
  HLX_BC_OP_REGIONS = 0x10,
  HLX_BC_OP_USE_LISTS = 0x20,
  HLX_BC_OP_PROPERTIES = 0x40,
};

#define HLX_BC_MAX_DEPTH 256 /* nested regions, attributes and types */
/* Expanded size (counting shared sub-attributes once per use) above which
 * an attribute is refused: decoding is linear, but consumers walk trees. */
#define HLX_BC_MAX_ATTR_TREE ((uint64_t)1 << 24)

/* ---- Input windows ---------------------------------------------------------- */
typedef struct hlx_bc_stream_t {
  const uint8_t* p;
  const uint8_t* end;
  const char* what; /* "IR section", "attribute #12", ... for messages */
} hlx_bc_stream_t;

/* ---- Decoded model ---------------------------------------------------------- */
typedef enum hlx_bc_dialect_kind_t {
  HLX_BC_DIALECT_OTHER,
  HLX_BC_DIALECT_BUILTIN,
  HLX_BC_DIALECT_VHLO,
  HLX_BC_DIALECT_SDY,
} hlx_bc_dialect_kind_t;

typedef enum hlx_bc_type_kind_t {
  HLX_BC_TYPE_SCALAR,   /* element type: t is a rank-0 tensor of dtype */
  HLX_BC_TYPE_TENSOR,   /* t: ranked tensor */
  HLX_BC_TYPE_TUPLE,    /* t: tuple */
  HLX_BC_TYPE_TOKEN,    /* t: token */
  HLX_BC_TYPE_FUNCTION, /* in/out */
  HLX_BC_TYPE_NONE,     /* none (dot algorithm "unset") */
  HLX_BC_TYPE_UNSUPPORTED, /* name says what (unranked tensor, memref, ...) */
} hlx_bc_type_kind_t;

typedef struct hlx_bc_type_t hlx_bc_type_t;
struct hlx_bc_type_t {
  hlx_bc_type_kind_t kind;
  hlx_type_t* t;     /* SCALAR/TENSOR/TUPLE/TOKEN, in the module arena */
  bool index;        /* element type is `index` (kept as i64) */
  const char* name;  /* SCALAR: MLIR spelling ("f32", "tf32"); UNSUPPORTED:
                        what it is */
  int32_t nin, nout; /* FUNCTION */
  hlx_bc_type_t** in;
  hlx_bc_type_t** out;
};

typedef enum hlx_bc_attr_kind_t {
  HLX_BC_ATTR_UNIT,
  HLX_BC_ATTR_BOOL,
  HLX_BC_ATTR_INT,      /* type + i (sign/zero-extended per the type) */
  HLX_BC_ATTR_FLOAT,    /* type + f */
  HLX_BC_ATTR_STRING,   /* str/len */
  HLX_BC_ATTR_SYMBOL,   /* str (flat symbol reference) */
  HLX_BC_ATTR_TYPE,     /* type */
  HLX_BC_ATTR_ARRAY,    /* items */
  HLX_BC_ATTR_DICT,     /* keys + items */
  HLX_BC_ATTR_TENSOR,   /* type + raw element data (VHLO tensor, builtin dense) */
  HLX_BC_ATTR_DENSE_ARRAY, /* builtin array<T: ...>: type (element) + data */
  HLX_BC_ATTR_RESOURCE, /* dense_resource: type + resource index */
  HLX_BC_ATTR_ENUM,     /* enum_kind + enum_value (a StableHLO enum) */
  HLX_BC_ATTR_OUTPUT_ALIAS, /* ints[0..n0) out tuple idx, i operand, rest */
  HLX_BC_ATTR_RESULT_ACCURACY, /* f = atol, f2 = rtol, i = ulps, items[0] mode */
  HLX_BC_ATTR_TYPE_EXTENSIONS, /* ints: bounds */
  HLX_BC_ATTR_TEXT,     /* an attribute kept as its MLIR text (str) */
  HLX_BC_ATTR_SDY_PART, /* text of a part of an sdy attribute (a factor
                           mapping): not an attribute of its own */
  HLX_BC_ATTR_LOCATION, /* a location (never needed, never converted) */
} hlx_bc_attr_kind_t;

typedef struct hlx_bc_attr_t hlx_bc_attr_t;
struct hlx_bc_attr_t {
  hlx_bc_attr_kind_t kind;
  hlx_bc_type_t* type;
  int64_t i;
  double f, f2;
  bool b;
  const char* str; /* STRING (may hold NUL: len), SYMBOL, TEXT, ENUM kind */
  size_t len;
  const char* enum_value;
  int32_t n;             /* ARRAY/DICT items, OUTPUT_ALIAS/TYPE_EXT ints */
  int32_t n0;            /* OUTPUT_ALIAS: output tuple indices count */
  hlx_bc_attr_t** items; /* ARRAY/DICT values, RESULT_ACCURACY mode */
  const char** keys;     /* DICT keys (NUL-free) */
  int64_t* ints;
  const uint8_t* data;   /* TENSOR/DENSE_ARRAY: raw bytes in the file, or
                            unpacked i1 bytes in the scratch arena */
  size_t nbytes;
  uint64_t resource;     /* RESOURCE: index into the resource table */
  uint64_t tree;         /* expanded size, for HLX_BC_MAX_ATTR_TREE */
  hlx_attr_t* ir;        /* memoized generic conversion (bytecode_convert.c) */
};

/* ---- Tables ------------------------------------------------------------------- */
typedef struct hlx_bc_str_t {
  const char* p; /* not NUL-terminated in the file: use n */
  size_t n;
  const char* z; /* NUL-terminated copy, made on demand */
} hlx_bc_str_t;

typedef struct hlx_bc_dialect_t {
  const hlx_bc_str_t* name;
  hlx_bc_dialect_kind_t kind;
} hlx_bc_dialect_t;

typedef struct hlx_bc_opname_t {
  uint32_t dialect;
  const hlx_bc_str_t* name; /* without the dialect prefix */
  int8_t registered;        /* -1: not recorded (version < 5) */
  const char* full;         /* "dialect.name", made on demand */
} hlx_bc_opname_t;

typedef struct hlx_bc_entry_t {
  uint32_t dialect;
  bool custom; /* dialect encoding; false: MLIR assembly text */
  uint8_t state; /* 0 not read, 1 being read (cycle guard), 2 done */
  const uint8_t* p;
  size_t n;
  void* value; /* hlx_bc_attr_t* or hlx_bc_type_t* */
} hlx_bc_entry_t;

typedef struct hlx_bc_resource_t {
  const hlx_bc_str_t* key;
  const uint8_t* data; /* blob payload (NULL: declared without data) */
  size_t n;
} hlx_bc_resource_t;

/* ---- Reader context ---------------------------------------------------------- */
typedef struct hlx_bc_t {
  const uint8_t* data;
  size_t size;
  const char* filename;
  uint64_t version;
  hlx_status_t err;
  hlx_module_t* m;       /* the result; IR memory lives in m->arena */
  hlx_arena_t scratch;   /* tables and decoded entries, freed at the end */

  const uint8_t* sec[HLX_BC_NUM_SECTIONS]; /* NULL when absent */
  size_t sec_len[HLX_BC_NUM_SECTIONS];

  uint64_t nstrings;
  hlx_bc_str_t* strings;
  uint64_t ndialects;
  hlx_bc_dialect_t* dialects;
  uint64_t nopnames;
  hlx_bc_opname_t* opnames;
  uint64_t nattrs, ntypes;
  hlx_bc_entry_t* attrs;
  hlx_bc_entry_t* types;
  uint64_t nresources;
  hlx_bc_resource_t* resources;
  uint64_t nprops;
  const uint8_t** props; /* start of each properties blob (size + data) */

  int depth;           /* attribute/type decoding depth */
  uint64_t tree_total; /* converted attribute tree sizes, summed */
} hlx_bc_t;

/* ---- Streams and errors (bytecode_stream.c) --------------------------------- */
/* Records the first error: "file: byte N (what): message". Returns false. */
bool hlx_bc_fail(hlx_bc_t* bc, const hlx_bc_stream_t* s, const char* fmt, ...)
    HLX_PRINTF(3, 4);
/* Same, with an explicit position (NULL: none) and description. */
bool hlx_bc_fail_at(hlx_bc_t* bc, const uint8_t* at, const char* what,
                    const char* fmt, ...) HLX_PRINTF(4, 5);
bool hlx_bc_unsupported(hlx_bc_t* bc, const hlx_bc_stream_t* s,
                        const char* fmt, ...) HLX_PRINTF(3, 4);
void hlx_bc_oom(hlx_bc_t* bc);

hlx_bc_stream_t hlx_bc_stream(const uint8_t* p, size_t n, const char* what);
size_t hlx_bc_left(const hlx_bc_stream_t* s);
bool hlx_bc_byte(hlx_bc_t* bc, hlx_bc_stream_t* s, uint8_t* out);
bool hlx_bc_bytes(hlx_bc_t* bc, hlx_bc_stream_t* s, size_t n,
                  const uint8_t** out);
bool hlx_bc_varint(hlx_bc_t* bc, hlx_bc_stream_t* s, uint64_t* out);
bool hlx_bc_svarint(hlx_bc_t* bc, hlx_bc_stream_t* s, int64_t* out);
bool hlx_bc_varint_flag(hlx_bc_t* bc, hlx_bc_stream_t* s, uint64_t* out,
                        bool* flag);
/* A varint count of items that take at least min_bytes each: refuses counts
 * the bytes left cannot hold (so nothing is over-allocated). */
bool hlx_bc_count(hlx_bc_t* bc, hlx_bc_stream_t* s, size_t min_bytes,
                  const char* what, uint32_t* out);
bool hlx_bc_cstring(hlx_bc_t* bc, hlx_bc_stream_t* s, const char** out,
                    size_t* len);
/* Section header: id byte (high bit: aligned), length, [alignment, padding
 * 0xCB]. *body is the section's contents. */
bool hlx_bc_section(hlx_bc_t* bc, hlx_bc_stream_t* s, uint8_t* id,
                    hlx_bc_stream_t* body);
/* Skips 0xCB padding up to the alignment (a power of two, relative to the
 * start of the file). */
bool hlx_bc_align(hlx_bc_t* bc, hlx_bc_stream_t* s, uint64_t alignment);
bool hlx_bc_expect_end(hlx_bc_t* bc, const hlx_bc_stream_t* s);

void* hlx_bc_scratch(hlx_bc_t* bc, size_t n, size_t elem);
void* hlx_bc_irmem(hlx_bc_t* bc, size_t n, size_t elem);

/* ---- Tables (bytecode_sections.c) --------------------------------------------- */
bool hlx_bc_read_header(hlx_bc_t* bc);
bool hlx_bc_read_tables(hlx_bc_t* bc);
/* Resolves references read from s. */
bool hlx_bc_string_ref(hlx_bc_t* bc, hlx_bc_stream_t* s,
                       const hlx_bc_str_t** out);
const hlx_bc_str_t* hlx_bc_string_at(hlx_bc_t* bc, const hlx_bc_stream_t* s,
                                     uint64_t index);
const char* hlx_bc_zstr(hlx_bc_t* bc, const hlx_bc_str_t* str); /* NULL: NUL */
const char* hlx_bc_opname(hlx_bc_t* bc, hlx_bc_opname_t* op);
/* The properties blob at index: a stream over its bytes. */
bool hlx_bc_properties(hlx_bc_t* bc, hlx_bc_stream_t* s, uint64_t index,
                       hlx_bc_stream_t* out);

/* ---- Attributes and types (bytecode_attrs.c, bytecode_types.c) ---------------- */
/* Reads an index and returns the decoded entry (NULL on error). */
hlx_bc_attr_t* hlx_bc_attr_ref(hlx_bc_t* bc, hlx_bc_stream_t* s);
hlx_bc_type_t* hlx_bc_type_ref(hlx_bc_t* bc, hlx_bc_stream_t* s);
hlx_bc_attr_t* hlx_bc_attr_at(hlx_bc_t* bc, const hlx_bc_stream_t* s,
                              uint64_t index);
hlx_bc_type_t* hlx_bc_type_at(hlx_bc_t* bc, const hlx_bc_stream_t* s,
                              uint64_t index);
/* Validates an attribute index without decoding it (locations). */
bool hlx_bc_skip_attr_ref(hlx_bc_t* bc, hlx_bc_stream_t* s);
/* Dialect decoders: s is the entry's bytes. */
hlx_bc_type_t* hlx_bc_decode_builtin_type(hlx_bc_t* bc, hlx_bc_stream_t* s);
hlx_bc_type_t* hlx_bc_decode_vhlo_type(hlx_bc_t* bc, hlx_bc_stream_t* s);
hlx_bc_type_t* hlx_bc_parse_type_text(hlx_bc_t* bc, hlx_bc_stream_t* s,
                                      const char* text);
hlx_bc_attr_t* hlx_bc_decode_builtin_attr(hlx_bc_t* bc, hlx_bc_stream_t* s);
hlx_bc_attr_t* hlx_bc_decode_vhlo_attr(hlx_bc_t* bc, hlx_bc_stream_t* s);
hlx_bc_attr_t* hlx_bc_decode_sdy_attr(hlx_bc_t* bc, hlx_bc_stream_t* s);
/* Dictionaries of builtin and VHLO attributes: (name, value) pairs whose
 * names are string attributes of either dialect. */
hlx_bc_attr_t* hlx_bc_decode_dict(hlx_bc_t* bc, hlx_bc_stream_t* s);
/* Helpers shared by the decoders. */
hlx_bc_attr_t* hlx_bc_new_attr(hlx_bc_t* bc, hlx_bc_attr_kind_t kind);
hlx_bc_type_t* hlx_bc_scalar_type(hlx_bc_t* bc, hlx_dtype_t dt, bool index,
                                  const char* name);
hlx_bc_type_t* hlx_bc_tensor_type(hlx_bc_t* bc, hlx_bc_stream_t* s,
                                  const int64_t* dims, uint32_t rank,
                                  hlx_bc_type_t* elem, hlx_bc_attr_t* encoding);
bool hlx_bc_attr_list(hlx_bc_t* bc, hlx_bc_stream_t* s, hlx_bc_attr_t* a);
bool hlx_bc_svarint_list(hlx_bc_t* bc, hlx_bc_stream_t* s, int64_t** out,
                         int32_t* n);
/* APInt of a known bit width: one byte up to 8 bits, else a signed varint
 * (up to 64 bits). */
bool hlx_bc_apint(hlx_bc_t* bc, hlx_bc_stream_t* s, int bits, uint64_t* out);
/* Integer / float attribute values of a scalar type. */
bool hlx_bc_int_value(hlx_bc_t* bc, hlx_bc_stream_t* s, const hlx_bc_type_t* t,
                      hlx_bc_attr_t* a);
bool hlx_bc_float_value(hlx_bc_t* bc, hlx_bc_stream_t* s,
                        const hlx_bc_type_t* t, double* out);
/* A tensor attribute (type ref, then length-prefixed element data, whole or
 * one splat element; i1 data may be bit-packed), as builtin and VHLO write
 * it. */
hlx_bc_attr_t* hlx_bc_tensor_attr(hlx_bc_t* bc, hlx_bc_stream_t* s);
/* A string attribute: a string-section reference, copied NUL-terminated. */
hlx_bc_attr_t* hlx_bc_string_attr(hlx_bc_t* bc, hlx_bc_stream_t* s);

/* ---- IR (bytecode_ir.c) ---------------------------------------------------------- */
bool hlx_bc_read_ir(hlx_bc_t* bc);

#endif /* HLX_GRAPH_STABLEHLO_BYTECODE_INTERNAL_H_ */
