/* Reduce dispatch: table[level][op] (f32 only so far) filled once from
 * kernels/reduce.inc; hlx_reduce() merges the dims into [outer, reduced,
 * inner] when the reduced dims form one group and calls the kernel, and
 * leaves everything else to hlx_ref_reduce. */
#include <pthread.h>

#include "kernels/dispatch.h"

#define NUM_OPS (HLX_REDUCE_XOR + 1)

static hlx_reduce3_fn g_f32[HLX_ISA_COUNT][NUM_OPS];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void fill(void) {
  hlx_isa_t hw = hlx_cpu_detected_isa();
  for (int lv = 0; lv < HLX_ISA_COUNT; lv++) {
    (void)lv;
    (void)hw;
#if defined(__x86_64__) || defined(__aarch64__) /* the lists guard each ISA */
#define HLX_REDUCE_KERNEL(ISA, OP, DT, fn)                              \
  if (HLX_ISA_##ISA <= lv && HLX_ISA_##ISA <= hw &&                     \
      HLX_DTYPE_##DT == HLX_DTYPE_F32 && !g_f32[lv][HLX_REDUCE_##OP])   \
    g_f32[lv][HLX_REDUCE_##OP] = fn;
#include "kernels/reduce.inc"
#undef HLX_REDUCE_KERNEL
#endif
  }
}

hlx_reduce3_fn hlx_reduce3_kernel(hlx_reduce_op_t op, hlx_dtype_t t) {
  if (t != HLX_DTYPE_F32 || (unsigned)op >= NUM_OPS) return NULL;
  pthread_once(&g_once, fill);
  return g_f32[hlx_cpu_max_isa()][op];
}

bool hlx_reduce(hlx_reduce_op_t op, hlx_dtype_t t, int32_t rank,
                const int64_t* dims, uint32_t reduce_mask, const void* in,
                const void* init, void* out) {
  hlx_reduce3_fn fn = hlx_reduce3_kernel(op, t);
  if (fn && rank >= 0 && rank <= 32) {
    /* Groups of adjacent dims with the same role; size-1 dims play no
     * role. Accept kept* reduced* kept*. */
    int64_t size[3] = {1, 1, 1}; /* outer, reduced, inner */
    int phase = 0;               /* 0: outer kept, 1: reduced, 2: inner */
    bool ok = true;
    for (int32_t d = 0; d < rank && ok; d++) {
      if (dims[d] == 0) ok = false; /* empty: the reference handles it */
      if (dims[d] <= 1) continue;
      bool red = (reduce_mask >> d) & 1u;
      if (red) {
        if (phase == 2) ok = false;
        phase = 1;
        size[1] *= dims[d];
      } else {
        if (phase == 1) phase = 2;
        size[phase == 0 ? 0 : 2] *= dims[d];
      }
    }
    if (ok) {
      fn(in, (size_t)size[0], (size_t)size[1], (size_t)size[2], init, out);
      return true;
    }
  }
  return hlx_ref_reduce(op, t, rank, dims, reduce_mask, in, init, out);
}
