/* f32 reductions, NEON build (see kernels/x86/reduce_impl.h). */
#include "kernels/arm/neon/vec.h"
#include "kernels/simd.h"
#include "kernels/x86/vmath.h"
#include "kernels/x86/reduce_impl.h"
