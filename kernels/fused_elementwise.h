/* A fused chain of elementwise ops, evaluated in cache-sized tiles.
 *
 * The graph layer describes a group of elementwise ops as a small program:
 * inputs (dense row-major buffers read with per-output-dimension element
 * strides, 0 along broadcast dimensions) and steps, each calling an
 * elementwise kernel (any variant: the caller picks the dispatched one) on
 * tile-sized operands that are inputs or temporaries ("registers") of earlier
 * steps. The last step writes the output. A run walks the output in tiles of
 * HLX_FUSED_TILE elements, so every input is read once, the output written
 * once, and intermediates stay in L1/L2.
 *
 * Kernels know nothing of the graph: the program is plain data. */
#ifndef HLX_KERNELS_FUSED_ELEMENTWISE_H_
#define HLX_KERNELS_FUSED_ELEMENTWISE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/dtype.h"
#include "kernels/elementwise.h"
#include "kernels/reduce.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
  HLX_FUSED_TILE = 1024,   /* elements per tile */
  HLX_FUSED_MAX_RANK = 8,  /* output rank */
  HLX_FUSED_MAX_OPERANDS = 3,
};

typedef enum hlx_fused_kind_t {
  HLX_FUSED_UNARY,   /* y = unary(a) */
  HLX_FUSED_BINARY,  /* y = binary(a, b) */
  HLX_FUSED_COMPARE, /* y (pred) = a <dir> b */
  HLX_FUSED_SELECT,  /* y = a ? b : c */
  HLX_FUSED_CLAMP,   /* y = clamp(a = lo, b = x, c = hi) */
  HLX_FUSED_CONVERT, /* y (out_dtype) = a (in_dtype) */
} hlx_fused_kind_t;

/* Signatures of hlx_compare / hlx_select / hlx_convert (kernels/dispatch.h)
 * and their reference twins, so a step can hold either. */
typedef bool (*hlx_fused_compare_fn)(hlx_compare_dir_t dir,
                                     hlx_compare_type_t type, hlx_dtype_t t,
                                     const void* a, const void* b, uint8_t* y,
                                     size_t n);
typedef void (*hlx_fused_select_fn)(size_t elem_size, const uint8_t* pred,
                                    bool pred_scalar, const void* on_true,
                                    const void* on_false, void* y, size_t n);
typedef bool (*hlx_fused_convert_fn)(hlx_dtype_t from, const void* x,
                                     hlx_dtype_t to, void* y, size_t n);

/* An operand: input `index` (is_input) or the register `index`. */
typedef struct hlx_fused_ref_t {
  bool is_input;
  int32_t index;
} hlx_fused_ref_t;

typedef struct hlx_fused_input_t {
  size_t elem_size;
  /* Element stride of the input per output dimension (0: broadcast). */
  int64_t strides[HLX_FUSED_MAX_RANK];
} hlx_fused_input_t;

typedef struct hlx_fused_step_t {
  hlx_fused_kind_t kind;
  hlx_dtype_t in_dtype;  /* operand dtype (select: of on_true/on_false) */
  hlx_dtype_t out_dtype;
  hlx_unary_fn unary;
  hlx_binary_fn binary;
  hlx_fused_compare_fn compare;
  hlx_compare_dir_t dir;
  hlx_compare_type_t cmp_type;
  hlx_fused_select_fn select;
  hlx_fused_convert_fn convert;
  int32_t num_operands;
  hlx_fused_ref_t operands[HLX_FUSED_MAX_OPERANDS];
  int32_t dst; /* register written (ignored for the last step: the output) */
} hlx_fused_step_t;

/* Signature of hlx_reduce / hlx_ref_reduce (kernels/reduce.h). */
typedef bool (*hlx_fused_reduce_fn)(hlx_reduce_op_t op, hlx_dtype_t t,
                                    int32_t rank, const int64_t* dims,
                                    uint32_t reduce_mask, const void* in,
                                    const void* init, void* out);

/* An optional reduction of the last step's values over rows of `row`
 * consecutive elements (the trailing dims of the output): reduced output
 * element r = init (+) the elements of row r, computed one tile of whole
 * rows at a time with `fn` (a [rows, row] reduce over dim 1). */
typedef struct hlx_fused_reduce_t {
  hlx_fused_reduce_fn fn; /* NULL: no reduction */
  hlx_reduce_op_t op;
  size_t row;
  int32_t init_input; /* the input holding the init scalar */
} hlx_fused_reduce_t;

typedef struct hlx_fused_program_t {
  int32_t rank;
  int64_t dims[HLX_FUSED_MAX_RANK]; /* output shape */
  int32_t num_inputs;
  const hlx_fused_input_t* inputs;
  int32_t num_steps;
  const hlx_fused_step_t* steps;
  int32_t num_regs;
  size_t reg_elem_size; /* bytes per element of the widest register */
  /* Elements per tile (0: HLX_FUSED_TILE); with a reduction a multiple of
   * reduce.row. */
  size_t tile;
  hlx_fused_reduce_t reduce;
  bool write_values; /* the last step's values are an output (else only
                        the reduction is) */
} hlx_fused_program_t;

/* Scratch bytes one call of hlx_fused_elementwise_run needs. */
size_t hlx_fused_scratch_bytes(const hlx_fused_program_t* p);

/* Computes output elements [begin, end) (flat row-major indices; with a
 * reduction, multiples of reduce.row) of `p`. `inputs[i]` is the base of
 * input i; `out` the base of the whole output (NULL unless write_values),
 * `reduced` of the reduction's output (NULL without one). `scratch` holds
 * hlx_fused_scratch_bytes(p) bytes, 64-byte aligned. Disjoint ranges may
 * run concurrently with separate scratch. Returns false if a step's kernel
 * refused its dtype (the caller checked it beforehand). */
bool hlx_fused_elementwise_run(const hlx_fused_program_t* p,
                               const void* const* inputs, void* out,
                               void* reduced, size_t begin, size_t end,
                               void* scratch);

/* Runs one step's kernel on n elements: y = step(a[0], a[1], a[2]).
 * False if the kernel refused its dtype. */
bool hlx_fused_step_apply(const hlx_fused_step_t* s, const void* const* a,
                          void* y, size_t n);

/* dst[0..n) = n copies of the es-byte element at src. */
void hlx_fused_fill(void* dst, const void* src, size_t es, size_t n);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* HLX_KERNELS_FUSED_ELEMENTWISE_H_ */
