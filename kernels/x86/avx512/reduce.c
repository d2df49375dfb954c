/* f32 reductions, avx512 build (see kernels/x86/reduce_impl.h). */
#include "kernels/x86/avx512/vec.h"
#include "kernels/simd.h"
#include "kernels/x86/vmath.h"
#include "kernels/x86/reduce_impl.h"
