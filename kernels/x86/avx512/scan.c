/* f32 cumulative-sum kernels, avx512 build (see kernels/x86/scan_impl.h). */
#include "kernels/x86/avx512/vec.h"
#include "kernels/x86/scan_impl.h"
