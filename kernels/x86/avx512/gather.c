/* Embedding gather / scatter-add kernels, avx512 build (see
 * kernels/x86/gather_impl.h). */
#include <stdbool.h>

#include "kernels/x86/avx512/vec.h"
#include "kernels/simd.h"
#include "kernels/x86/gather_impl.h"
