#include "tests/api/isa_kernels_testing.h"

#include "kernels/dispatch.h"
#include "kernels/elementwise.h"

namespace hlx_test {

bool ExpF32AtIsa(hlx_isa_t isa, const float* x, float* y, size_t n) {
  hlx_dtype_t out_t;
  hlx_unary_fn fn =
      isa == HLX_ISA_REFERENCE
          ? hlx_ref_unary_kernel(HLX_UNARY_EXP, HLX_DTYPE_F32, &out_t)
          : hlx_unary_kernel_for_isa(HLX_UNARY_EXP, HLX_DTYPE_F32, isa);
  if (!fn) return false;
  fn(x, y, n);
  return true;
}

}  // namespace hlx_test
