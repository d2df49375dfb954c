/* Integer and bf16/f16 elementwise kernels, avx512 build (see
 * kernels/x86/elementwise_ext_impl.h). */
#include "kernels/x86/avx512/vec.h"
#include "kernels/simd.h"
#include "kernels/x86/elementwise_ext_impl.h"
