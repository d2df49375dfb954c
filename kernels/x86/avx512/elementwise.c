/* Elementwise kernels, avx512 build (see kernels/x86/elementwise_impl.h). */
#include "kernels/x86/avx512/vec.h"
#include "kernels/simd.h"
#include "kernels/x86/elementwise_impl.h"
