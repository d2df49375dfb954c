/* f32 cumulative-sum kernels, NEON build (see kernels/x86/scan_impl.h). */
#include "kernels/arm/neon/vec.h"
#include "kernels/x86/scan_impl.h"
