/* Tensors as StableHLO's reference interpreter prints them, so `hlx check`
 * can compare with the FileCheck expectations of its test files:
 *   nested:  tensor<2x2xi8> {\n  [\n    [1, 2],\n    [3, 4]\n  ]\n}
 *   scalar:  tensor<ui8> {1}
 *   dense:   dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>   (--interpreter-print-dense;
 *            splats as dense<v>, empty as dense<>)
 * Floats print as %e (1.000000e+00), complex as [re, im] / (re,im). */
#ifndef HLX_TOOLS_TENSOR_TEXT_H_
#define HLX_TOOLS_TENSOR_TEXT_H_

#include <stdbool.h>
#include <stdint.h>

#include "base/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Appends the text to a malloc'd, NUL-terminated buffer (*buf, *len, *cap
 * grow as needed; *buf may start NULL). Returns false on out of memory. */
bool hlx_tensor_text(hlx_dtype_t t, int32_t rank, const int64_t* dims,
                     const void* data, bool dense, char** buf, size_t* len,
                     size_t* cap);

#ifdef __cplusplus
}
#endif

#endif /* HLX_TOOLS_TENSOR_TEXT_H_ */
