/* libxsmm wrappers (see libxsmm.h). libxsmm is column-major; a row-major
 * C = A * B is the column-major C^T = B^T * A^T, so the kernel is
 * dispatched with (m, n, k) = (N, M, K) and called with (B, A, C). */
#include "kernels/libs/libxsmm.h"

#include <pthread.h>

#include <libxsmm.h>

static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void xsmm_init(void) { libxsmm_init(); }

bool hlx_xsmm_is_small(int64_t m, int64_t n, int64_t k) {
  return m > 0 && n > 0 && k > 0 && m <= 128 && n <= 128 && k <= 128 &&
         m * n * k <= 64 * 64 * 64;
}

bool hlx_xsmm_gemm_init(hlx_xsmm_gemm_t* g, hlx_dtype_t type, int64_t m,
                        int64_t n, int64_t k, int64_t lda, int64_t ldb,
                        int64_t ldc) {
  g->fn = NULL;
  if (type != HLX_DTYPE_F32 && type != HLX_DTYPE_F64) return false;
  if (m < 1 || n < 1 || k < 1 || m > 4096 || n > 4096 || k > 4096 ||
      lda < k || ldb < n || ldc < n || lda > (1 << 24) || ldb > (1 << 24) ||
      ldc > (1 << 24))
    return false;
  pthread_once(&g_once, xsmm_init);
  libxsmm_blasint cm = (libxsmm_blasint)n, cn = (libxsmm_blasint)m,
                  ck = (libxsmm_blasint)k;
  libxsmm_blasint l_a = (libxsmm_blasint)ldb, l_b = (libxsmm_blasint)lda,
                  l_c = (libxsmm_blasint)ldc;
  int flags = LIBXSMM_GEMM_FLAG_NONE;
  int prefetch = LIBXSMM_GEMM_PREFETCH_NONE;
  if (type == HLX_DTYPE_F32) {
    float alpha = 1.0f, beta = 0.0f;
    libxsmm_smmfunction f = libxsmm_smmdispatch(cm, cn, ck, &l_a, &l_b, &l_c,
                                                &alpha, &beta, &flags, &prefetch);
    g->fn = *(void**)&f;
  } else {
    double alpha = 1.0, beta = 0.0;
    libxsmm_dmmfunction f = libxsmm_dmmdispatch(cm, cn, ck, &l_a, &l_b, &l_c,
                                                &alpha, &beta, &flags, &prefetch);
    g->fn = *(void**)&f;
  }
  g->type = type;
  g->m = m, g->n = n, g->k = k;
  g->lda = lda, g->ldb = ldb, g->ldc = ldc;
  return g->fn != NULL;
}

void hlx_xsmm_gemm_run(const hlx_xsmm_gemm_t* g, int64_t batch, const void* a,
                       int64_t a_stride, const void* b, int64_t b_stride,
                       void* c, int64_t c_stride) {
  if (g->type == HLX_DTYPE_F32) {
    libxsmm_smmfunction f;
    *(void**)&f = g->fn;
    const float* pa = a;
    const float* pb = b;
    float* pc = c;
    for (int64_t i = 0; i < batch; i++)
      f(pb + i * b_stride, pa + i * a_stride, pc + i * c_stride);
  } else {
    libxsmm_dmmfunction f;
    *(void**)&f = g->fn;
    const double* pa = a;
    const double* pb = b;
    double* pc = c;
    for (int64_t i = 0; i < batch; i++)
      f(pb + i * b_stride, pa + i * a_stride, pc + i * c_stride);
  }
}
