// The f32 exp kernel of one ISA level, for tests of the public API that
// compare against it (kernels/elementwise.h cannot share a translation
// unit with api/hlx.h: both name the elementwise op enums).
#ifndef HLX_TESTS_API_ISA_KERNELS_TESTING_H_
#define HLX_TESTS_API_ISA_KERNELS_TESTING_H_

#include <cstddef>

#include "kernels/cpu_features.h"

namespace hlx_test {

// y[i] = exp(x[i]) by the kernel compiled for exactly `isa` (the reference
// kernel for HLX_ISA_REFERENCE). false if there is none or the CPU cannot
// run it.
bool ExpF32AtIsa(hlx_isa_t isa, const float* x, float* y, size_t n);

}  // namespace hlx_test

#endif  // HLX_TESTS_API_ISA_KERNELS_TESTING_H_
