/* Integer and bf16/f16 elementwise kernels, NEON build (see
 * kernels/x86/elementwise_ext_impl.h). */
#include "kernels/arm/neon/vec.h"
#include "kernels/simd.h"
#include "kernels/x86/elementwise_ext_impl.h"
