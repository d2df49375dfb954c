/* f32 cumulative-sum kernels, avx2 build (see kernels/x86/scan_impl.h). */
#include "kernels/x86/avx2/vec.h"
#include "kernels/x86/scan_impl.h"
