/* Data-movement dispatch: the transpose tables (by element size 1/2/4/8)
 * filled once from kernels/data_movement.inc, and hlx_copy_strided(), which
 * simplifies a strided copy (drops unit dims, merges dims contiguous in
 * both layouts, folds a run contiguous in both into a wider element), then
 * spots a transposed pair of dims and runs the tiled kernel on each 2-D
 * slice. */
#include <pthread.h>

#include "kernels/dispatch.h"
#include "kernels/dispatch/thread_split.h"

/* Indexed by log2(element size). */
static hlx_transpose_fn g_tr[4][HLX_ISA_COUNT];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static int size_log2(size_t es) {
  return es == 1 ? 0 : es == 2 ? 1 : es == 4 ? 2 : es == 8 ? 3 : -1;
}

static void fill(void) {
  hlx_isa_t hw = hlx_cpu_detected_isa();
  for (int lv = 0; lv < HLX_ISA_COUNT; lv++) {
    (void)lv;
    (void)hw;
#if defined(__x86_64__) || defined(__aarch64__) /* the lists guard each ISA */
#define HLX_TRANSPOSE_KERNEL(ISA, ES, TILE, fn)                   \
  if (HLX_ISA_##ISA <= lv && HLX_ISA_##ISA <= hw &&               \
      !g_tr[size_log2(ES)][lv])                                    \
    g_tr[size_log2(ES)][lv] = fn;
#include "kernels/data_movement.inc"
#undef HLX_TRANSPOSE_KERNEL
#endif
  }
}

hlx_transpose_fn hlx_transpose_kernel(size_t elem_size) {
  int l = size_log2(elem_size);
  if (l < 0) return NULL;
  pthread_once(&g_once, fill);
  return g_tr[l][hlx_cpu_max_isa()];
}

/* Below this many rows or columns a transposed slice is cheaper as the
 * reference's strided loop. */
enum { kMinTransposeDim = 8 };

/* Drops dims of size 1 and merges dim d into d-1 where both layouts step
 * over d-1 exactly as over the whole of d (NCHW -> NHWC: H and W become one
 * dim). Returns the new rank; 0 dims stay (the caller sees them). */
static int32_t simplify(int32_t rank, int64_t* dims, int64_t* is,
                        int64_t* os) {
  int32_t n = 0;
  for (int32_t d = 0; d < rank; d++) {
    if (dims[d] == 1) continue;
    if (n > 0 && is[n - 1] == is[d] * dims[d] &&
        os[n - 1] == os[d] * dims[d]) {
      dims[n - 1] *= dims[d];
      is[n - 1] = is[d];
      os[n - 1] = os[d];
      continue;
    }
    dims[n] = dims[d];
    is[n] = is[d];
    os[n] = os[d];
    n++;
  }
  return n;
}

/* A dim of unit stride in both layouts whose run is 2, 4 or 8 bytes and
 * divides every other stride becomes the element: [N, C, 2] x i16
 * transposed on N, C moves 4-byte pairs. Both bases must be aligned to the
 * wider element. Returns the new element size. */
static size_t widen(size_t es, const void* in, const void* out, int32_t* rank,
                    int64_t* dims, int64_t* is, int64_t* os) {
  for (int32_t d = 0; d < *rank; d++) {
    if (is[d] != 1 || os[d] != 1) continue;
    int64_t k = dims[d];
    size_t wide = es * (size_t)k;
    if (wide > 8 || size_log2(wide) < 0 || (uintptr_t)in % wide != 0 ||
        (uintptr_t)out % wide != 0)
      return es;
    for (int32_t e = 0; e < *rank; e++)
      if (e != d && (is[e] % k != 0 || os[e] % k != 0)) return es;
    for (int32_t e = d; e + 1 < *rank; e++) {
      dims[e] = dims[e + 1];
      is[e] = is[e + 1];
      os[e] = os[e + 1];
    }
    (*rank)--;
    for (int32_t e = 0; e < *rank; e++) {
      is[e] /= k;
      os[e] /= k;
    }
    return wide;
  }
  return es;
}

/* A strided copy as transposed 2-D slices: the simplified dims/strides,
 * the element size the kernel moves, the contiguous-in dim ci and the
 * contiguous-out dim rj. */
typedef struct tiled_t {
  int32_t rank, ci, rj;
  size_t es;
  hlx_transpose_fn tr;
  int64_t dims[HLX_KERNEL_MAX_RANK], is[HLX_KERNEL_MAX_RANK],
      os[HLX_KERNEL_MAX_RANK];
} tiled_t;

/* Whether the copy takes the tiled kernel; fills t. Not for empty copies. */
static bool plan_tiled(size_t elem_size, int32_t rank, const int64_t* dims,
                       const void* in, const int64_t* in_strides,
                       const void* out, const int64_t* out_strides,
                       tiled_t* t) {
  if (rank < 2 || rank > HLX_KERNEL_MAX_RANK) return false;
  for (int32_t d = 0; d < rank; d++) {
    t->dims[d] = dims[d];
    t->is[d] = in_strides[d];
    t->os[d] = out_strides[d];
  }
  t->rank = simplify(rank, t->dims, t->is, t->os);
  t->es = widen(elem_size, in, out, &t->rank, t->dims, t->is, t->os);
  t->tr = hlx_transpose_kernel(t->es);
  t->ci = t->rj = -1;
  for (int32_t d = 0; t->tr && d < t->rank; d++) {
    if (t->dims[d] < kMinTransposeDim) continue;
    if (t->is[d] == 1 && t->os[d] != 1 && t->ci < 0) t->ci = d;
    if (t->os[d] == 1 && t->is[d] != 1 && t->rj < 0) t->rj = d;
  }
  return t->ci >= 0 && t->rj >= 0;
}

bool hlx_copy_strided_is_tiled(size_t elem_size, int32_t rank,
                               const int64_t* dims, const void* in,
                               const int64_t* in_strides, const void* out,
                               const int64_t* out_strides) {
  tiled_t t;
  for (int32_t d = 0; d < rank; d++)
    if (dims[d] == 0) return false;
  return plan_tiled(elem_size, rank, dims, in, in_strides, out, out_strides,
                    &t);
}

/* Tiled copies of this many bytes or more split across threads. */
enum { kParallelMinBytes = 4 << 20 };

typedef struct tiled_split_t {
  const tiled_t* t;
  const char* src;
  char* dst;
  hlx_thread_split_t split; /* of the input rows of each 2-D slice */
} tiled_split_t;

/* Pieces [begin, end): the same input rows of every 2-D slice, i.e.
 * disjoint output columns. */
static void tiled_pieces(void* arg, size_t begin, size_t end) {
  const tiled_split_t* s = arg;
  const tiled_t* t = s->t;
  const int64_t es = (int64_t)t->es;
  for (size_t k = begin; k < end; k++) {
    int64_t lo, hi;
    if (!hlx_thread_split_piece(&s->split, k, &lo, &hi)) continue;
    int64_t idx[HLX_KERNEL_MAX_RANK] = {0};
    int64_t in_off = lo * t->is[t->rj], out_off = lo;
    for (;;) {
      t->tr(s->src + in_off * es, t->is[t->rj], s->dst + out_off * es,
            t->os[t->ci], (size_t)(hi - lo), (size_t)t->dims[t->ci]);
      int32_t d = t->rank - 1;
      for (; d >= 0; d--) {
        if (d == t->ci || d == t->rj) continue;
        in_off += t->is[d];
        out_off += t->os[d];
        if (++idx[d] < t->dims[d]) break;
        in_off -= t->is[d] * t->dims[d];
        out_off -= t->os[d] * t->dims[d];
        idx[d] = 0;
      }
      if (d < 0) break;
    }
  }
}

void hlx_copy_strided_par(size_t elem_size, int32_t rank, const int64_t* dims,
                          const void* in, const int64_t* in_strides, void* out,
                          const int64_t* out_strides,
                          const hlx_parallel_t* par) {
  size_t bytes = elem_size;
  for (int32_t d = 0; d < rank; d++) {
    if (dims[d] == 0) return; /* empty */
    bytes *= (size_t)dims[d];
  }
  tiled_t t;
  if (!plan_tiled(elem_size, rank, dims, in, in_strides, out, out_strides,
                  &t)) {
    hlx_ref_copy_strided(elem_size, rank, dims, in, in_strides, out,
                         out_strides);
    return;
  }
  const int64_t rows = t.dims[t.rj];
  int threads = hlx_parallel_num_threads(par);
  if (bytes < kParallelMinBytes || rows < 128) threads = 1;
  /* Pieces on 64-row multiples: whole output lines, aligned for streaming,
   * for every element size. */
  tiled_split_t s = {&t, in, out, hlx_thread_split(rows, threads, 64)};
  if (s.split.pieces == 1) {
    tiled_pieces(&s, 0, 1);
    return;
  }
  hlx_parallel_for(par, (size_t)s.split.pieces, 1, tiled_pieces, &s);
}

void hlx_copy_strided(size_t elem_size, int32_t rank, const int64_t* dims,
                      const void* in, const int64_t* in_strides, void* out,
                      const int64_t* out_strides) {
  hlx_copy_strided_par(elem_size, rank, dims, in, in_strides, out,
                       out_strides, NULL);
}
