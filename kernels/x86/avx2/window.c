/* reduce_window pooling kernels, avx2 build (see kernels/x86/window_impl.h). */
#include <stdbool.h>

#include "kernels/x86/avx2/vec.h"
#include "kernels/simd.h"
#include "kernels/x86/window_impl.h"
