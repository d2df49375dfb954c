/* Scan dispatch: hlx_scan is the reference scan (kernels/ref/scan.c) with
 * f32 sums along the innermost axis run by the best variant of
 * kernels/scan_kernels.inc at the current ISA cap; every other (op, dtype,
 * axis) is the reference's own kernel. */
#include "kernels/dispatch.h"
#include "kernels/scan.h"

static const hlx_scan_add_f32_fn g_add_f32[HLX_ISA_COUNT] = {
#if defined(__x86_64__) || defined(__aarch64__) /* the list guards each ISA */
#define HLX_SCAN_ADD_F32(ISA, fn) [HLX_ISA_##ISA] = fn,
#include "kernels/scan_kernels.inc"
#endif
};

hlx_scan_add_f32_fn hlx_scan_add_f32_kernel(hlx_isa_t isa) {
  if ((unsigned)isa >= HLX_ISA_COUNT || !hlx_cpu_supports_isa(isa))
    return NULL;
  return g_add_f32[isa];
}

bool hlx_scan(hlx_reduce_op_t op, hlx_dtype_t t, const hlx_scan_t* s,
              const void* in, const void* init, void* out,
              const hlx_parallel_t* par) {
  hlx_scan_add_f32_fn fn = NULL;
  for (int lv = hlx_cpu_max_isa(); lv > HLX_ISA_REFERENCE && !fn; lv--)
    fn = g_add_f32[lv];
  return hlx_scan_with(op, t, s, in, init, out, par, fn);
}
