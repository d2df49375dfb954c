/* A row-local fused program: a chain of elementwise ops, reductions over
 * the row and broadcasts of per-row results back along it, run one block
 * of rows at a time so a block stays in L1/L2 from the first read of its
 * input to the write of its output (layer norm, softmax, log_softmax read
 * their input once and write once instead of one pass per op).
 *
 * Values live in one of four domains over a [rows, row_len] view of the
 * output: SCALAR (one element), ROW (one element per row), VEC (one
 * row_len vector shared by all rows; inputs only) and FULL (row_len
 * elements per row). Steps compute in their own domain; an EXPAND step
 * broadcasts a lower-domain value up (scalar -> row/full, row -> full,
 * vec -> full) or copies one. Steps marked invariant (operands that are
 * the same for every block) run once per call. Kernels are the caller's
 * (the dispatched ones the unfused ops use), so a fused run computes the
 * same values as the ops one by one.
 *
 * Kernels know nothing of the graph: the program is plain data. */
#ifndef HLX_KERNELS_ROW_FUSED_H_
#define HLX_KERNELS_ROW_FUSED_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/fused_elementwise.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hlx_row_domain_t {
  HLX_ROW_SCALAR,
  HLX_ROW_ROW,
  HLX_ROW_VEC,
  HLX_ROW_FULL,
} hlx_row_domain_t;

typedef enum hlx_row_ref_kind_t {
  HLX_ROW_REF_INPUT,  /* input `index` (its domain's slice of the block) */
  HLX_ROW_REF_TEMP,   /* temporary `index` */
  HLX_ROW_REF_OUTPUT, /* the output (of domain out_domain) */
} hlx_row_ref_kind_t;

typedef struct hlx_row_ref_t {
  hlx_row_ref_kind_t kind;
  int32_t index;
} hlx_row_ref_t;

typedef struct hlx_row_buffer_t {
  hlx_row_domain_t domain;
  size_t elem_size;
} hlx_row_buffer_t;

typedef enum hlx_row_step_kind_t {
  HLX_ROW_ELEMENTWISE, /* `ew` on operands of the step's domain */
  HLX_ROW_REDUCE,      /* FULL operand 0 -> ROW, init = SCALAR operand 1 */
  HLX_ROW_EXPAND,      /* operand 0 broadcast (or copied) to the domain */
} hlx_row_step_kind_t;

typedef struct hlx_row_step_t {
  hlx_row_step_kind_t kind;
  hlx_row_domain_t domain; /* of the result */
  bool invariant;          /* run once per call, before the blocks */
  hlx_fused_step_t ew;     /* ELEMENTWISE: kernels and dtypes (its operands
                              and dst are not used) */
  hlx_fused_reduce_fn reduce; /* REDUCE */
  hlx_reduce_op_t reduce_op;
  hlx_dtype_t reduce_dtype;
  int32_t num_operands;
  hlx_row_ref_t operands[HLX_FUSED_MAX_OPERANDS];
  hlx_row_ref_t dst;
} hlx_row_step_t;

typedef struct hlx_row_program_t {
  int64_t rows, row_len;
  int64_t block; /* rows per block (>= 1) */
  int32_t num_inputs;
  const hlx_row_buffer_t* inputs;
  int32_t num_temps;
  const hlx_row_buffer_t* temps;
  int32_t num_steps;
  const hlx_row_step_t* steps;
  hlx_row_domain_t out_domain; /* FULL or ROW */
  size_t out_elem_size;
} hlx_row_program_t;

/* Scratch bytes one call of hlx_row_fused_run needs. */
size_t hlx_row_fused_scratch_bytes(const hlx_row_program_t* p);

/* Computes output rows [begin, end) of p. inputs[i] is the base of input
 * i (FULL: rows x row_len, ROW: rows, SCALAR: 1, VEC: row_len elements),
 * out the base of the whole output (FULL or ROW). scratch holds
 * hlx_row_fused_scratch_bytes(p) bytes, 64-byte aligned. Disjoint ranges
 * may run concurrently with separate scratch. Returns false if a kernel
 * refused its dtype (the caller checked it beforehand). */
bool hlx_row_fused_run(const hlx_row_program_t* p, const void* const* inputs,
                       void* out, int64_t begin, int64_t end, void* scratch);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* HLX_KERNELS_ROW_FUSED_H_ */
