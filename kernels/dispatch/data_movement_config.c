/* Data-movement dispatch: the transpose table (by element size) filled
 * once from kernels/data_movement.inc, and hlx_copy_strided(), which spots
 * a transposed pair of dims in a strided copy and runs the tiled kernel on
 * each 2-D slice. */
#include <pthread.h>

#include "kernels/dispatch.h"

static hlx_transpose_fn g_tr4[HLX_ISA_COUNT];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void fill(void) {
  hlx_isa_t hw = hlx_cpu_detected_isa();
  for (int lv = 0; lv < HLX_ISA_COUNT; lv++) {
    (void)lv;
    (void)hw;
#if defined(__x86_64__) || defined(__aarch64__) /* the lists guard each ISA */
#define HLX_TRANSPOSE_KERNEL(ISA, ES, TILE, fn)                         \
  if (HLX_ISA_##ISA <= lv && HLX_ISA_##ISA <= hw && ES == 4 && !g_tr4[lv]) \
    g_tr4[lv] = fn;
#include "kernels/data_movement.inc"
#undef HLX_TRANSPOSE_KERNEL
#endif
  }
}

hlx_transpose_fn hlx_transpose_kernel(size_t elem_size) {
  if (elem_size != 4) return NULL;
  pthread_once(&g_once, fill);
  return g_tr4[hlx_cpu_max_isa()];
}

/* Below this many rows or columns a transposed slice is cheaper as the
 * reference's strided loop. */
enum { kMinTransposeDim = 8 };

void hlx_copy_strided(size_t elem_size, int32_t rank, const int64_t* dims,
                      const void* in, const int64_t* in_strides, void* out,
                      const int64_t* out_strides) {
  hlx_transpose_fn tr = hlx_transpose_kernel(elem_size);
  if (tr && rank >= 2 && rank <= HLX_KERNEL_MAX_RANK) {
    int32_t ci = -1, rj = -1; /* contiguous-in dim, contiguous-out dim */
    bool empty = false;
    for (int32_t d = 0; d < rank; d++) {
      if (dims[d] == 0) empty = true;
      if (dims[d] < kMinTransposeDim) continue;
      if (in_strides[d] == 1 && out_strides[d] != 1 && ci < 0) ci = d;
      if (out_strides[d] == 1 && in_strides[d] != 1 && rj < 0) rj = d;
    }
    if (empty) return;
    if (ci >= 0 && rj >= 0) {
      const char* src = in;
      char* dst = out;
      int64_t idx[HLX_KERNEL_MAX_RANK] = {0};
      int64_t in_off = 0, out_off = 0;
      for (;;) {
        tr(src + in_off * 4, in_strides[rj], dst + out_off * 4,
           out_strides[ci], (size_t)dims[rj], (size_t)dims[ci]);
        int32_t d = rank - 1;
        for (; d >= 0; d--) {
          if (d == ci || d == rj) continue;
          in_off += in_strides[d];
          out_off += out_strides[d];
          if (++idx[d] < dims[d]) break;
          in_off -= in_strides[d] * dims[d];
          out_off -= out_strides[d] * dims[d];
          idx[d] = 0;
        }
        if (d < 0) return;
      }
    }
  }
  hlx_ref_copy_strided(elem_size, rank, dims, in, in_strides, out,
                       out_strides);
}
