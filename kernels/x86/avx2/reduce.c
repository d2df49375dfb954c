/* f32 reductions, avx2 build (see kernels/x86/reduce_impl.h). */
#include "kernels/x86/avx2/vec.h"
#include "kernels/simd.h"
#include "kernels/x86/vmath.h"
#include "kernels/x86/reduce_impl.h"
