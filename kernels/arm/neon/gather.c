/* Embedding gather / scatter-add kernels, NEON build (see
 * kernels/x86/gather_impl.h). */
#include <stdbool.h>

#include "kernels/arm/neon/vec.h"
#include "kernels/simd.h"
#include "kernels/x86/gather_impl.h"
