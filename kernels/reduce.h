/* Reference reductions with the common combiners (the regions XLA and JAX
 * emit: add, multiply, maximum, minimum, and, or, xor). Other regions are
 * run by the graph layer element by element. */
#ifndef HLX_KERNELS_REDUCE_H_
#define HLX_KERNELS_REDUCE_H_

#include <stdbool.h>
#include <stdint.h>

#include "base/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hlx_reduce_op_t {
  HLX_REDUCE_ADD,
  HLX_REDUCE_MUL,
  HLX_REDUCE_MAX,
  HLX_REDUCE_MIN,
  HLX_REDUCE_AND,
  HLX_REDUCE_OR,
  HLX_REDUCE_XOR,
} hlx_reduce_op_t;

/* Reduces `in` (row-major, `rank` dims) over the dims whose bit is set in
 * reduce_mask into `out` (row-major over the kept dims, in order), starting
 * every output from *init. Elements are combined in row-major order; f16 and
 * bf16 accumulate in f32 and round once; max/min propagate NaN. Returns
 * false if (op, dtype) is not supported. */
bool hlx_ref_reduce(hlx_reduce_op_t op, hlx_dtype_t t, int32_t rank,
                    const int64_t* dims, uint32_t reduce_mask, const void* in,
                    const void* init, void* out);

#ifdef __cplusplus
}
#endif

#endif /* HLX_KERNELS_REDUCE_H_ */
