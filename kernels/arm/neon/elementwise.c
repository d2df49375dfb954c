/* Elementwise kernels, NEON build (see kernels/x86/elementwise_impl.h). */
#include "kernels/arm/neon/vec.h"
#include "kernels/simd.h"
#include "kernels/x86/elementwise_impl.h"
