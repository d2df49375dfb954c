/* Integer and bf16/f16 elementwise kernels, avx2 build (see
 * kernels/x86/elementwise_ext_impl.h). */
#include "kernels/x86/avx2/vec.h"
#include "kernels/simd.h"
#include "kernels/x86/elementwise_ext_impl.h"
