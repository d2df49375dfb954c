/* The builder's handle and the helpers its op families share
 * (api/builder.c defines them; api/builder_<family>.c use them). Not a
 * public header. */
#ifndef HLX_API_BUILDER_INTERNAL_H_
#define HLX_API_BUILDER_INTERNAL_H_

#include "api/internal.h"
#include "graph/ops/ops.h"
#include "graph/ops/verify.h"

struct hlx_builder_t {
  hlx_module_t* module; /* owned until built */
  hlx_func_t* func;
  hlx_block_t* block;
  hlx_op_t** ops; /* malloc'd; copied into the arena at build */
  int32_t num_ops, cap_ops;
  hlx_value_t** values; /* builder id -> value (malloc'd) */
  uint32_t num_values, cap_values;
  hlx_value_t** params; /* by parameter index, NULL = not declared */
  int32_t cap_params;
  hlx_status_t err; /* the latched first error */
  bool spent;       /* built: only destroy remains */
  bool no_latch;    /* options: each error is returned, none is latched */
  /* Values with dynamic dimension sizes (set_dimension_size; malloc'd,
   * api/builder_dynamic.c), and whether a lookup may return one. */
  struct hlx_bld_dynamic_t* dynamic;
  uint32_t num_dynamic, cap_dynamic;
  bool allow_dynamic;
};

struct hlx_computation_t {
  hlx_module_t* module; /* one function; its body ends with func.return */
  const hlx_func_t* func;
};

typedef struct named_t {
  const char* name;
  hlx_attr_t* value;
} named_t;

/* ---- errors: every helper returns a status the caller owns -------------- */
hlx_status_t hlx_bld_copy_status(hlx_status_t s);
/* Latches "<op>: <message>" (unless options said not to) and returns a copy. */
hlx_status_t hlx_bld_fail(hlx_builder_t* b, const char* op, const char* fmt,
                          ...) HLX_PRINTF(3, 4);
hlx_status_t hlx_bld_oom(hlx_builder_t* b);
/* "unknown element type" unless t names one. */
hlx_status_t hlx_bld_check_element_type(hlx_builder_t* b, const char* op,
                                        hlx_element_type_t t);
/* A caller's shape: non-NULL, known element type, rank in range, no
 * negative dims. */
hlx_status_t hlx_bld_check_desc(hlx_builder_t* b, const char* op,
                                const hlx_tensor_desc_t* d);

/* Common prologue of every op call. */
#define BEGIN(b, out, opname)                                              \
  do {                                                                     \
    if (out) *(out) = HLX_BUILDER_NO_VALUE;                                \
    if (!(b))                                                              \
      return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,                  \
                             "%s: NULL builder", opname);                  \
    if ((b)->spent)                                                        \
      return hlx_make_status(HLX_STATUS_FAILED_PRECONDITION,               \
                             "%s: the builder was already built", opname); \
    if ((b)->err) return hlx_bld_copy_status((b)->err);                    \
    if (!(out)) return hlx_bld_fail(b, opname, "NULL out_value");          \
  } while (0)

/* ---- arena, types and attributes (in the builder's module arena) -------- */
void* hlx_bld_balloc(hlx_builder_t* b, size_t n);
hlx_type_t* hlx_bld_tensor_type(hlx_arena_t* a, hlx_dtype_t dt, int32_t rank,
                                const int64_t* dims);
hlx_attr_t* hlx_bld_attr_new(hlx_builder_t* b, hlx_attr_kind_t k);
hlx_attr_t* hlx_bld_attr_i64s(hlx_builder_t* b, const int64_t* v, int32_t n);
hlx_attr_t* hlx_bld_attr_int(hlx_builder_t* b, int64_t v, hlx_dtype_t dt);
hlx_attr_t* hlx_bld_attr_enum(hlx_builder_t* b, const char* kind,
                              const char* value);
void hlx_bld_desc_of(const hlx_type_t* t, hlx_tensor_desc_t* d);
bool hlx_bld_same_dims(const hlx_type_t* a, const hlx_type_t* b);

/* ---- values and ops ------------------------------------------------------ */
bool hlx_bld_add_value(hlx_builder_t* b, hlx_value_t* v, uint32_t* id);
/* Appends an op (NULL = out of memory, also when an attr or type is NULL). */
hlx_op_t* hlx_bld_emit(hlx_builder_t* b, hlx_opcode_t code,
                       hlx_value_t* const* operands, int32_t nops,
                       hlx_type_t* const* rtypes, int32_t nres,
                       const named_t* attrs, int32_t nattrs);
/* hlx_bld_emit for one result, registered under a new id written to *out. */
/* Emits a one-result op without regions whose result type follows from
 * its operands and attributes (graph/ops/ops.h: hlx_op_infer), checked
 * against its spec rules like a parsed op. */
hlx_status_t hlx_bld_emit_inferred(hlx_builder_t* b, hlx_opcode_t code,
                                   hlx_value_t* const* operands, int32_t nops,
                                   const named_t* attrs, int32_t nattrs,
                                   uint32_t* out);
/* Checks a complete op (its regions attached) against its spec rules
 * (graph/ops/ops.h); a violation becomes the builder's error. */
hlx_status_t hlx_bld_verify_op(hlx_builder_t* b, const hlx_op_t* op);
hlx_status_t hlx_bld_emit1(hlx_builder_t* b, hlx_opcode_t code,
                           hlx_value_t* const* operands, int32_t nops,
                           hlx_type_t* rtype, const named_t* attrs,
                           int32_t nattrs, hlx_value_t** out_v, uint32_t* out);
hlx_status_t hlx_bld_get_value(hlx_builder_t* b, const char* op,
                               const char* role, uint32_t id, hlx_value_t** v);
hlx_status_t hlx_bld_get_tensor(hlx_builder_t* b, const char* op,
                                const char* role, uint32_t id,
                                hlx_value_t** v);
/* A copy of the computation's body as a region (its func.return becomes
 * stablehlo.return); NULL = out of memory. */
hlx_region_t* hlx_bld_clone_computation(hlx_builder_t* b,
                                        const hlx_computation_t* comp);

/* Same, but the region takes no arguments: uses of parameter i become uses
 * of outer_args[i] (if/case branches capture their operands). */
hlx_region_t* hlx_bld_clone_computation_captured(
    hlx_builder_t* b, const hlx_computation_t* comp,
    hlx_value_t* const* outer_args);
/* Gives op n regions copied from comps (captured: NULL, or per region
 * NULL / the outer values its parameters become). */
hlx_status_t hlx_bld_attach_regions(hlx_builder_t* b, hlx_op_t* op,
                                    const hlx_computation_t* const* comps,
                                    hlx_value_t* const* const* captured,
                                    int32_t n);
/* dense<...> : tensor<rows x cols x i64> (cols < 0: a rank-1 tensor). */
hlx_attr_t* hlx_bld_attr_dense_i64(hlx_builder_t* b, const int64_t* v,
                                   int64_t rows, int64_t cols);
hlx_attr_t* hlx_bld_attr_bool(hlx_builder_t* b, bool v);
hlx_attr_t* hlx_bld_attr_string(hlx_builder_t* b, const char* str);
/* Registers every result of op under new ids (ids: op->num_results). */
hlx_status_t hlx_bld_register_results(hlx_builder_t* b, hlx_op_t* op,
                                      uint32_t* ids);


/* ---- shared checks (api/builder_window.c) -------------------------------- */
/* Checks that comp takes nargs rank-0 `in` parameters and returns nres
 * rank-0 `out` values; role names it in the error ("combiner"). */
hlx_status_t hlx_bld_check_scalar_computation(hlx_builder_t* b,
                                              const char* op,
                                              const char* role,
                                              const hlx_computation_t* comp,
                                              int32_t nargs, hlx_dtype_t in,
                                              int32_t nres, hlx_dtype_t out);
/* Looks up n (<= 64) values ("operand i" in errors); ts (may be NULL)
 * receives their types. */
hlx_status_t hlx_bld_get_values(hlx_builder_t* b, const char* op,
                                const uint32_t* ids, int32_t n,
                                hlx_value_t** vs, hlx_type_t** ts);
/* n operands of one shape then n rank-0 inits of their element types,
 * into vs (2n entries). */
hlx_status_t hlx_bld_variadic_operands(hlx_builder_t* b, const char* op,
                                       const uint32_t* operands,
                                       const uint32_t* inits, int32_t n,
                                       hlx_value_t** vs);
/* A reducer over n operands: (acc_0..acc_{n-1}, x_0..x_{n-1}) -> n rank-0
 * values, typed like the operands' elements. */
hlx_status_t hlx_bld_check_variadic_computation(hlx_builder_t* b,
                                                const char* op,
                                                const hlx_computation_t* comp,
                                                hlx_value_t* const* operands,
                                                int32_t n);
/* v, or (when NULL) HLX_MAX_RANK ones: default strides and dilations. */
const int64_t* hlx_bld_or_ones(const int64_t* v);
/* Number of window positions along one dimension (XLA window arithmetic);
 * -1 when a parameter is out of range. */
int64_t hlx_bld_window_count(int64_t size, int64_t window, int64_t stride,
                             int64_t lo, int64_t hi, int64_t base_dilation,
                             int64_t window_dilation);
/* (low, high) SAME padding for one dimension: ceil(size/stride) outputs. */
void hlx_bld_same_padding(int64_t size, int64_t window, int64_t stride,
                          int64_t window_dilation, int64_t* lo, int64_t* hi);
/* (low, high) pairs for VALID/SAME over n dims of t (dims[i] names the
 * i-th; NULL = 0..n-1), windows/strides/dilations of n entries. */
hlx_status_t hlx_bld_padding_pairs(hlx_builder_t* b, const char* op,
                                   const hlx_type_t* t, const int64_t* dims,
                                   int32_t n, const int64_t* window,
                                   const int64_t* strides,
                                   const int64_t* window_dilation,
                                   hlx_padding_t padding, int64_t* pad);
/* #stablehlo.channel_handle<handle = channel, type = type> (1 = device to
 * device); api/builder_collective.c. */
hlx_attr_t* hlx_bld_attr_channel(hlx_builder_t* b, int64_t channel,
                                 int64_t type);
/* ---- dynamic dimension sizes (api/builder_dynamic.c) --------------------
 * XLA SetDimensionSize gives a value a run-time size (an s32[] value id)
 * per dimension, below its static size. hlx models them only as far as
 * XLA's semantics need: reduce ignores the elements beyond the sizes of
 * the dimensions it reduces, get_dimension_size returns the size; every
 * other op rejects such values (hlx_bld_get_value). */
/* The per-dimension size ids of value id (HLX_BUILDER_NO_VALUE = static),
 * or NULL when every dimension is static. */
const uint32_t* hlx_bld_dynamic_sizes(const hlx_builder_t* b, uint32_t id);
/* For a reduce of `operand` over the dims flagged in `reduced` (its rank
 * entries) starting from init: writes to *out an operand whose elements
 * beyond the dynamic sizes are init (operand itself when it has none).
 * A dynamic dimension that is not reduced is an error. */
hlx_status_t hlx_bld_mask_dynamic(hlx_builder_t* b, const char* op,
                                  uint32_t operand, uint32_t init,
                                  const bool* reduced, uint32_t* out);

/* Packs a single result or (n > 1) a tuple of results; writes the id. */
hlx_status_t hlx_bld_results_value(hlx_builder_t* b, hlx_op_t* op,
                                   uint32_t* out_value);

#endif /* HLX_API_BUILDER_INTERNAL_H_ */
