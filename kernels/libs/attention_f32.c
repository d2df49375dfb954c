/* Fused attention (see attention_f32.h). In row-major terms the products
 * are S[Lq, Lk] = Q[Lq, D] * Kt[D, Lk] with K packed transposed (libxsmm
 * wants unit column strides) and O[Lq, Dv] = P[Lq, Lk] * V[Lk, Dv], V read
 * in place when its columns are unit-strided. The row passes are GCC
 * vector-extension code built per ISA with target attributes, so the
 * file needs no ISA flags and runs on any x86-64. */
#include "kernels/libs/attention_f32.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/libs/thread_buffer.h"

/* Query rows per block: 16 x Lk of S (5 KB at the chess Lk = 79) stays in
 * L1 between the products and the softmax. */
enum { kBlockRows = 16 };

/* stablehlo.maximum: NaN propagates. */
static float max_nan(float a, float b) {
  if (isnan(a) || isnan(b)) return a + b;
  return a > b ? a : (b > a ? b : (signbit(a) ? b : a));
}

/* The softmax of the rows of tile s (rows x n, row stride ld >= n rounded
 * up to W): first every row's scale, max (lanes past n masked to -inf)
 * and x - max, then exp over the whole tile in one call, then every row's
 * sum (lanes past n masked out) and division. A lane that meets a NaN
 * keeps it through the max, so a NaN anywhere makes the row's max NaN. */
#define SOFTMAX_ROWS(NAME, ATTR, W)                                           \
  ATTR static void NAME(const hlx_attention_params_t* p, float* s,           \
                        int64_t rows, int64_t n, int64_t ld,                 \
                        hlx_unary_fn ex) {                                   \
    typedef float vf __attribute__((vector_size((W) * 4)));                  \
    typedef int32_t vi __attribute__((vector_size((W) * 4)));                \
    const float sc = p->scale;                                               \
    const int64_t nv = (n + (W) - 1) / (W) * (W);                            \
    vi lanes, rot[5];                                                        \
    vf ninf;                                                                 \
    for (int l = 0; l < (W); l++) {                                          \
      lanes[l] = l;                                                          \
      ninf[l] = -INFINITY;                                                   \
    }                                                                        \
    int nrot = 0;                                                            \
    for (int h = (W) / 2; h >= 1; h /= 2, nrot++)                            \
      for (int l = 0; l < (W); l++) rot[nrot][l] = (l + h) % (W);            \
    for (int64_t r = 0; r < rows; r++) {                                     \
      float* x = s + r * ld;                                                 \
      vf vm = ninf, v;                                                       \
      for (int64_t j = 0; j < nv; j += (W)) {                                \
        memcpy(&v, x + j, sizeof v);                                         \
        if (p->scale_kind == HLX_ATTENTION_SCALE_MULTIPLY) v = v * sc;       \
        if (p->scale_kind == HLX_ATTENTION_SCALE_DIVIDE) v = v / sc;         \
        if (p->scale_kind != HLX_ATTENTION_SCALE_NONE)                       \
          memcpy(x + j, &v, sizeof v);                                       \
        vi in = (lanes + (int32_t)j) < (int32_t)n;                           \
        v = (vf)(((vi)v & in) | ((vi)ninf & ~in));                           \
        vi take = (v > vm) | (v != v);                                       \
        vm = (vf)(((vi)v & take) | ((vi)vm & ~take));                        \
      }                                                                      \
      for (int t = 0; t < nrot; t++) {                                       \
        vf o = __builtin_shuffle(vm, rot[t]);                                \
        vi take = (o > vm) | (o != o);                                       \
        vm = (vf)(((vi)o & take) | ((vi)vm & ~take));                        \
      }                                                                      \
      float m = max_nan(p->max_init, vm[0]);                                 \
      if (p->has_floor) m = max_nan(p->max_floor, m);                        \
      for (int64_t j = 0; j < nv; j += (W)) {                                \
        memcpy(&v, x + j, sizeof v);                                         \
        v = v - m;                                                           \
        memcpy(x + j, &v, sizeof v);                                         \
      }                                                                      \
    }                                                                        \
    if (ex)                                                                  \
      ex(s, s, (size_t)((rows - 1) * ld + nv));                              \
    else                                                                     \
      for (int64_t j = 0; j < (rows - 1) * ld + nv; j++) s[j] = expf(s[j]);  \
    for (int64_t r = 0; r < rows; r++) {                                     \
      float* x = s + r * ld;                                                 \
      vf acc = {0}, v;                                                       \
      for (int64_t j = 0; j < nv; j += (W)) {                                \
        memcpy(&v, x + j, sizeof v);                                         \
        vi in = (lanes + (int32_t)j) < (int32_t)n;                           \
        acc += (vf)((vi)v & in);                                             \
      }                                                                      \
      for (int t = 0; t < nrot; t++) acc += __builtin_shuffle(acc, rot[t]);  \
      float l = p->sum_init + acc[0];                                        \
      for (int64_t j = 0; j < nv; j += (W)) {                                \
        memcpy(&v, x + j, sizeof v);                                         \
        v = v / l;                                                           \
        memcpy(x + j, &v, sizeof v);                                         \
      }                                                                      \
    }                                                                        \
  }

SOFTMAX_ROWS(softmax_rows, , 4)
#if defined(__x86_64__)
SOFTMAX_ROWS(softmax_rows_avx2, __attribute__((target("avx2,fma"))), 8)
SOFTMAX_ROWS(softmax_rows_avx512,
             __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"))),
             16)
#endif

typedef void (*softmax_fn)(const hlx_attention_params_t* p, float* s,
                           int64_t rows, int64_t n, int64_t ld,
                           hlx_unary_fn ex);

static softmax_fn softmax_for(int simd) {
#if defined(__x86_64__)
  if (simd >= 2) return softmax_rows_avx512;
  if (simd >= 1) return softmax_rows_avx2;
#else
  (void)simd;
#endif
  return softmax_rows;
}

void hlx_attention_f32_init(hlx_attention_f32_t* a,
                            const hlx_attention_params_t* p) {
  memset(a, 0, sizeof *a);
  a->p = *p;
  a->q_direct = p->q_sd == 1 && p->q_si >= p->d;
  a->v_direct = p->v_se == 1 && p->v_sj >= p->dv;
  a->o_direct = p->o_se == 1 && p->o_si >= p->dv;
  int64_t ldq = a->q_direct ? p->q_si : p->d;
  int64_t ldv = a->v_direct ? p->v_sj : p->dv;
  int64_t ldo = a->o_direct ? p->o_si : p->dv;
  a->ld = (p->lk + 15) / 16 * 16;
  a->rows = p->lq < kBlockRows ? p->lq : kBlockRows;
  a->last_rows = p->lq - (p->lq > 0 ? (p->lq - 1) / a->rows * a->rows : 0);
  for (int t = 0; t < 2; t++) {
    int64_t m = t ? a->last_rows : a->rows;
    a->qk_xsmm[t] = hlx_xsmm_gemm_init(&a->qk[t], HLX_DTYPE_F32, m, p->lk,
                                       p->d, ldq, a->ld, a->ld);
    a->pv_xsmm[t] = hlx_xsmm_gemm_init(&a->pv[t], HLX_DTYPE_F32, m, p->dv,
                                       p->lk, a->ld, ldv, ldo);
  }
  size_t n = (size_t)((p->d + a->rows) * a->ld);
  if (!a->q_direct) n += (size_t)(p->lq * p->d);
  if (!a->v_direct) n += (size_t)(p->lk * p->dv);
  if (!a->o_direct) n += (size_t)(p->lq * p->dv);
  a->scratch_floats = n + 64;
}

/* c[m, n] (ldc) = a[m, k] (lda) * b[k, n] (ldb): the libxsmm kernel x
 * (made for these leading dims), or plain loops when it declined. */
static void gemm(const hlx_xsmm_gemm_t* x, int64_t m, int64_t n, int64_t k,
                 const float* a, int64_t lda, const float* b, int64_t ldb,
                 float* c, int64_t ldc) {
  if (x) {
    hlx_xsmm_gemm_run(x, 1, a, 0, b, 0, c, 0);
    return;
  }
  for (int64_t i = 0; i < m; i++) {
    float* ci = c + i * ldc;
    for (int64_t j = 0; j < n; j++) ci[j] = 0;
    for (int64_t t = 0; t < k; t++) {
      const float ai = a[i * lda + t];
      const float* bt = b + t * ldb;
      for (int64_t j = 0; j < n; j++) ci[j] += ai * bt[j];
    }
  }
}

typedef struct job_t {
  const hlx_attention_f32_t* a;
  const float *q, *k, *v;
  float* o;
  hlx_unary_fn ex;
  hlx_transpose_fn transpose;
  softmax_fn softmax;
  int failed;
} job_t;

/* dst[r * dr + c * dc] = src[r * sr + c * sc] for r < rows, c < cols. */
static void copy2d(const float* src, int64_t sr, int64_t sc, float* dst,
                   int64_t dr, int64_t dc, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; r++)
    for (int64_t c = 0; c < cols; c++)
      dst[r * dr + c * dc] = src[r * sr + c * sc];
}

/* x (rows x cols, element strides sr, sc) with unit column stride: x
 * itself (leading dim sr) when direct, else a copy at *next (leading dim
 * cols; *next moves past it). */
static const float* unit_columns(const float* x, int64_t sr, int64_t sc,
                                 int64_t rows, int64_t cols, bool direct,
                                 float** next, int64_t* ld) {
  *ld = direct ? sr : cols;
  if (direct) return x;
  float* dst = *next;
  copy2d(x, sr, sc, dst, cols, 1, rows, cols);
  *next += rows * cols;
  return dst;
}

/* The rows of Q, K and V problem b reads, towards the cache while the
 * current one computes (their rows are far apart: the heads interleave). */
static void prefetch_problem(const hlx_attention_params_t* p,
                             const struct job_t* jb, int64_t b);

static void one_problem(const job_t* jb, int64_t b, float* scratch) {
  const hlx_attention_f32_t* a = jb->a;
  const hlx_attention_params_t* p = &a->p;
  const float* q = jb->q + p->q_off[b];
  const float* k = jb->k + p->k_off[b];
  const float* v = jb->v + p->v_off[b];
  float* o = jb->o + p->o_off[b];
  float* kt = scratch;
  float* s = kt + p->d * a->ld;
  float* next = s + a->rows * a->ld;
  if (jb->transpose && p->k_sd == 1)
    jb->transpose(k, p->k_sj, kt, a->ld, (size_t)p->lk, (size_t)p->d);
  else
    copy2d(k, p->k_sj, p->k_sd, kt, 1, a->ld, p->lk, p->d);
  int64_t ldq, ldv;
  q = unit_columns(q, p->q_si, p->q_sd, p->lq, p->d, a->q_direct, &next, &ldq);
  if (b + 1 < p->batch) prefetch_problem(p, jb, b + 1);
  v = unit_columns(v, p->v_sj, p->v_se, p->lk, p->dv, a->v_direct, &next, &ldv);
  float* ot = a->o_direct ? o : next;
  int64_t ldo = a->o_direct ? p->o_si : p->dv;
  for (int64_t i0 = 0; i0 < p->lq; i0 += a->rows) {
    int t = i0 + a->rows >= p->lq; /* the last block */
    int64_t m = t ? a->last_rows : a->rows;
    gemm(a->qk_xsmm[t] ? &a->qk[t] : NULL, m, p->lk, p->d, q + i0 * ldq, ldq,
         kt, a->ld, s, a->ld);
    jb->softmax(p, s, m, p->lk, a->ld, jb->ex);
    gemm(a->pv_xsmm[t] ? &a->pv[t] : NULL, m, p->dv, p->lk, s, a->ld, v, ldv,
         ot + i0 * ldo, ldo);
  }
  if (!a->o_direct) copy2d(ot, p->dv, 1, o, p->o_si, p->o_se, p->lq, p->dv);
}

static void prefetch_rows(const float* x, int64_t rows, int64_t stride,
                          int64_t width, int64_t wstride) {
  int64_t step = wstride == 1 ? 16 : 1; /* a line, or every element */
  for (int64_t r = 0; r < rows; r++)
    for (int64_t e = 0; e < width; e += step)
      __builtin_prefetch(x + r * stride + e * wstride, 0, 2); /* to L2 */
}

static void prefetch_problem(const hlx_attention_params_t* p,
                             const job_t* jb, int64_t b) {
  prefetch_rows(jb->q + p->q_off[b], p->lq, p->q_si, p->d, p->q_sd);
  prefetch_rows(jb->k + p->k_off[b], p->lk, p->k_sj, p->d, p->k_sd);
  prefetch_rows(jb->v + p->v_off[b], p->lk, p->v_sj, p->dv, p->v_se);
}

/* Each thread's scratch, kept across runs (no allocation per chunk). */
static hlx_thread_buffer_t g_scratch = HLX_THREAD_BUFFER_INIT;

static void run_range(void* arg, size_t b0, size_t b1) {
  job_t* jb = arg;
  const hlx_attention_f32_t* a = jb->a;
  float* scratch =
      hlx_thread_buffer(&g_scratch, a->scratch_floats * sizeof(float), NULL);
  if (!scratch) {
    __atomic_store_n(&jb->failed, 1, __ATOMIC_RELAXED);
    return;
  }
  /* The row passes read the pad columns of the K^T and S tiles (masked):
   * zero them, not another run's values, so they hold no NaN or denormal. */
  memset(scratch, 0, (size_t)((a->p.d + a->rows) * a->ld) * sizeof(float));
  for (size_t b = b0; b < b1; b++) one_problem(jb, (int64_t)b, scratch);
}

bool hlx_attention_f32_run(const hlx_attention_f32_t* a, const float* q,
                           const float* k, const float* v, float* o,
                           const hlx_attention_f32_ops_t* ops,
                           const hlx_parallel_t* par) {
  job_t jb = {.a = a, .q = q, .k = k, .v = v, .o = o, .ex = ops->exp,
              .transpose = ops->transpose,
              .softmax = softmax_for(ops->simd)};
  if (a->p.batch <= 0 || a->p.lq <= 0 || a->p.dv <= 0) return true;
  hlx_parallel_for(par, (size_t)a->p.batch, 1, run_range, &jb);
  return !__atomic_load_n(&jb.failed, __ATOMIC_RELAXED);
}
