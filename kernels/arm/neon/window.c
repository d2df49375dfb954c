/* reduce_window pooling kernels, NEON build (see kernels/x86/window_impl.h). */
#include <stdbool.h>

#include "kernels/arm/neon/vec.h"
#include "kernels/simd.h"
#include "kernels/x86/window_impl.h"
