/* Elementwise kernels, avx2 build (see kernels/x86/elementwise_impl.h). */
#include "kernels/x86/avx2/vec.h"
#include "kernels/simd.h"
#include "kernels/x86/elementwise_impl.h"
