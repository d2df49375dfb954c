/* Fused attention (see attention_f32.h). In row-major terms the products
 * are S[Lq, Lk] = Q[Lq, D] * Kt[D, Lk] with K packed transposed (both
 * paths want unit column strides) and O[Lq, Dv] = P[Lq, Lk] * V[Lk, Dv],
 * V read in place when its columns are unit-strided. The row passes are
 * GCC vector-extension code and the register path AVX-512 intrinsics,
 * built per ISA with target attributes, so the file needs no ISA flags
 * and runs on any x86-64. */
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
  bool fused; /* fused_rows instead of the libxsmm blocks */
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

/* Part `part` of `parts` of the rows of Q, K and V problem b reads,
 * towards the cache while the current one computes (their rows are far
 * apart: the heads interleave). */
static void prefetch_problem(const hlx_attention_params_t* p,
                             const job_t* jb, int64_t b, int64_t part,
                             int64_t parts);

/* ---- AVX-512: softmax in registers (Lk <= 16 * kMaxVecs) ----
 * Per group of up to 4 query rows: S = Q K^T with the rows' whole S in
 * zmm accumulators (4 x 6 at most), scaled and its row max taken there,
 * written once; one pass per row e = exp(x - m) (vmath_f32.h's exp, the
 * one the dispatched AVX-512 exp runs) that also sums e; then O = E V / l
 * with the division on the accumulators (P = e / l is never stored; same
 * value up to rounding). No libxsmm calls, no row-pass tails: K^T's rows
 * and the S tile are padded to whole vectors and the pad lanes masked. */
#if defined(__x86_64__)
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl,fma")
#include "kernels/x86/avx512/vec.h"
#include "kernels/x86/vmath_f32.h"

enum { kMaxVecs = 6, kGroupRows = 4, kMaxOutVecs = 4 };

#define FUSED_INLINE static inline __attribute__((always_inline))

/* Lanes past n's last whole vector (n >= 1). */
FUSED_INLINE __mmask16 tail_mask(int64_t n) {
  int64_t r = n % 16;
  return r ? (__mmask16)((1u << r) - 1u) : (__mmask16)0xffff;
}

/* x scaled the way the graph does (multiply or divide by sc, or not). */
FUSED_INLINE __m512 scaled(__m512 x, hlx_attention_scale_t kind, __m512 sc) {
  if (kind == HLX_ATTENTION_SCALE_MULTIPLY) return _mm512_mul_ps(x, sc);
  if (kind == HLX_ATTENTION_SCALE_DIVIDE) return _mm512_div_ps(x, sc);
  return x;
}

/* s[r, 0:16 C] = scaled(q[r, :] kt) for r < R (kt: d rows of 16 C floats,
 * ld apart, 64-byte aligned), mx[r] = each lane's NaN-propagating max over
 * the row's first n columns (-inf lanes where none). */
FUSED_INLINE void qk_tile(const float* q, int64_t ldq, const float* kt,
                          int64_t ld, int64_t d, float* s, int64_t n,
                          const hlx_attention_params_t* p, __m512* mx,
                          const int R, const int C) {
  __m512 acc[kGroupRows][kMaxVecs];
#pragma GCC unroll 4
  for (int r = 0; r < R; r++)
#pragma GCC unroll 6
    for (int c = 0; c < C; c++) acc[r][c] = _mm512_setzero_ps();
  for (int64_t k = 0; k < d; k++) {
    __m512 b[kMaxVecs];
#pragma GCC unroll 6
    for (int c = 0; c < C; c++) b[c] = _mm512_load_ps(kt + k * ld + 16 * c);
#pragma GCC unroll 4
    for (int r = 0; r < R; r++) {
      __m512 a = _mm512_set1_ps(q[r * ldq + k]);
#pragma GCC unroll 6
      for (int c = 0; c < C; c++) acc[r][c] = _mm512_fmadd_ps(a, b[c], acc[r][c]);
    }
  }
  const __m512 sc = _mm512_set1_ps(p->scale), ninf = _mm512_set1_ps(-INFINITY);
  const __mmask16 tail = tail_mask(n);
#pragma GCC unroll 4
  for (int r = 0; r < R; r++) {
    __m512 m = ninf;
#pragma GCC unroll 6
    for (int c = 0; c < C; c++) {
      __m512 x = scaled(acc[r][c], p->scale_kind, sc);
      _mm512_store_ps(s + r * ld + 16 * c, x);
      if (c == C - 1) x = _mm512_mask_blend_ps(tail, ninf, x);
      __mmask16 take = _mm512_cmp_ps_mask(x, m, _CMP_GT_OQ) |
                       _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
      m = _mm512_mask_blend_ps(take, m, x);
    }
    mx[r] = m;
  }
}

/* o[r, 0:w] = (e[r, 0:n] v[0:n, 0:w]) / l[r] for r < R, w <= 16 C (the
 * last vector's lanes past w masked: tail). */
FUSED_INLINE void pv_tile(const float* e, int64_t ld, const float* v,
                          int64_t ldv, int64_t n, float* o, int64_t ldo,
                          const float* l, __mmask16 tail, const int R,
                          const int C) {
  __m512 acc[kGroupRows][kMaxOutVecs];
#pragma GCC unroll 4
  for (int r = 0; r < R; r++)
#pragma GCC unroll 4
    for (int c = 0; c < C; c++) acc[r][c] = _mm512_setzero_ps();
  for (int64_t j = 0; j < n; j++) {
    __m512 b[kMaxOutVecs];
#pragma GCC unroll 4
    for (int c = 0; c < C; c++)
      b[c] = c == C - 1 ? _mm512_maskz_loadu_ps(tail, v + j * ldv + 16 * c)
                        : _mm512_loadu_ps(v + j * ldv + 16 * c);
#pragma GCC unroll 4
    for (int r = 0; r < R; r++) {
      __m512 a = _mm512_set1_ps(e[r * ld + j]);
#pragma GCC unroll 4
      for (int c = 0; c < C; c++) acc[r][c] = _mm512_fmadd_ps(a, b[c], acc[r][c]);
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < R; r++) {
    __m512 lr = _mm512_set1_ps(l[r]);
#pragma GCC unroll 4
    for (int c = 0; c < C; c++) {
      __m512 x = _mm512_div_ps(acc[r][c], lr);
      if (c == C - 1)
        _mm512_mask_storeu_ps(o + r * ldo + 16 * c, tail, x);
      else
        _mm512_storeu_ps(o + r * ldo + 16 * c, x);
    }
  }
}

typedef void (*qk_fn)(const float* q, int64_t ldq, const float* kt,
                      int64_t ld, int64_t d, float* s, int64_t n,
                      const hlx_attention_params_t* p, __m512* mx);
typedef void (*pv_fn)(const float* e, int64_t ld, const float* v,
                      int64_t ldv, int64_t n, float* o, int64_t ldo,
                      const float* l, __mmask16 tail);

/* One instance per (rows, vectors): the accumulators need fixed counts. */
#define QK_FN(R, C)                                                          \
  static void qk_##R##_##C(const float* q, int64_t ldq, const float* kt,     \
                           int64_t ld, int64_t d, float* s, int64_t n,       \
                           const hlx_attention_params_t* p, __m512* mx) {    \
    qk_tile(q, ldq, kt, ld, d, s, n, p, mx, R, C);                           \
  }
#define QK_ROWS(R) \
  QK_FN(R, 1) QK_FN(R, 2) QK_FN(R, 3) QK_FN(R, 4) QK_FN(R, 5) QK_FN(R, 6)
QK_ROWS(1)
QK_ROWS(2)
QK_ROWS(3)
QK_ROWS(4)
#define QK_ROW(R) {qk_##R##_1, qk_##R##_2, qk_##R##_3, qk_##R##_4, qk_##R##_5, qk_##R##_6}
static const qk_fn kQk[kGroupRows][kMaxVecs] = {QK_ROW(1), QK_ROW(2),
                                                 QK_ROW(3), QK_ROW(4)};

#define PV_FN(R, C)                                                          \
  static void pv_##R##_##C(const float* e, int64_t ld, const float* v,       \
                           int64_t ldv, int64_t n, float* o, int64_t ldo,    \
                           const float* l, __mmask16 tail) {                 \
    pv_tile(e, ld, v, ldv, n, o, ldo, l, tail, R, C);                        \
  }
#define PV_ROWS(R) PV_FN(R, 1) PV_FN(R, 2) PV_FN(R, 3) PV_FN(R, 4)
PV_ROWS(1)
PV_ROWS(2)
PV_ROWS(3)
PV_ROWS(4)
#define PV_ROW(R) {pv_##R##_1, pv_##R##_2, pv_##R##_3, pv_##R##_4}
static const pv_fn kPv[kGroupRows][kMaxOutVecs] = {PV_ROW(1), PV_ROW(2),
                                                    PV_ROW(3), PV_ROW(4)};

/* The row max of mx's lanes, NaN when any lane is NaN. */
static float lane_max(__m512 mx) {
  if (_mm512_cmp_ps_mask(mx, mx, _CMP_UNORD_Q)) return NAN;
  return _mm512_reduce_max_ps(mx);
}

/* Rows r < R of x (ld apart): x[r, 0:nv) = exp(x - m[r]) with the lanes
 * past n zeroed, l[r] = sum_init + their sum. Two rows per step: one
 * row's exp is a latency chain, two keep the FMA pipes busy. */
static void exp_rows(float* x, int64_t ld, int R, int64_t nv, int64_t n,
                     const float* m, float sum_init, float* l) {
  const __mmask16 tail = tail_mask(n);
  for (int r = 0; r < R; r += 2) {
    float* x0 = x + r * ld;
    float* x1 = r + 1 < R ? x0 + ld : x0; /* odd R: the last row twice */
    const __m512 m0 = _mm512_set1_ps(m[r]), m1 = _mm512_set1_ps(m[r + 1 < R ? r + 1 : r]);
    __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
    for (int64_t j = 0; j < nv; j += 16) {
      __m512 e0 = f32_exp(_mm512_sub_ps(_mm512_load_ps(x0 + j), m0));
      __m512 e1 = f32_exp(_mm512_sub_ps(_mm512_load_ps(x1 + j), m1));
      if (j + 16 > n) {
        e0 = _mm512_maskz_mov_ps(tail, e0);
        e1 = _mm512_maskz_mov_ps(tail, e1);
      }
      _mm512_store_ps(x0 + j, e0);
      _mm512_store_ps(x1 + j, e1);
      s0 = _mm512_add_ps(s0, e0);
      s1 = _mm512_add_ps(s1, e1);
    }
    l[r] = sum_init + _mm512_reduce_add_ps(s0);
    if (r + 1 < R) l[r + 1] = sum_init + _mm512_reduce_add_ps(s1);
  }
}

/* Every query row of one problem: q (ldq), kt (d x ld, ld = 16 C), v
 * (ldv), o (ldo) all with unit column strides; s: kGroupRows x ld floats. */
static void fused_rows(const hlx_attention_params_t* p, const float* q,
                       int64_t ldq, const float* kt, int64_t ld,
                       const float* v, int64_t ldv, float* o, int64_t ldo,
                       float* s, const job_t* jb, int64_t next) {
  const int64_t groups = (p->lq + kGroupRows - 1) / kGroupRows;
  const int64_t nv = ld, n = p->lk;
  const int C = (int)(ld / 16);
  for (int64_t i0 = 0; i0 < p->lq; i0 += kGroupRows) {
    int R = p->lq - i0 < kGroupRows ? (int)(p->lq - i0) : kGroupRows;
    if (next >= 0) /* spread over the groups: a few lines at a time */
      prefetch_problem(p, jb, next, i0 / kGroupRows, groups);
    __m512 mx[kGroupRows];
    kQk[R - 1][C - 1](q + i0 * ldq, ldq, kt, ld, p->d, s, n, p, mx);
    float m[kGroupRows], l[kGroupRows];
    for (int r = 0; r < R; r++) {
      m[r] = max_nan(p->max_init, lane_max(mx[r]));
      if (p->has_floor) m[r] = max_nan(p->max_floor, m[r]);
    }
    exp_rows(s, ld, R, nv, n, m, p->sum_init, l);
    for (int64_t e0 = 0; e0 < p->dv; e0 += 16 * kMaxOutVecs) {
      int64_t w = p->dv - e0 < 16 * kMaxOutVecs ? p->dv - e0 : 16 * kMaxOutVecs;
      kPv[R - 1][(w + 15) / 16 - 1](s, ld, v + e0, ldv, n,
                                    o + i0 * ldo + e0, ldo, l, tail_mask(w));
    }
  }
}
#pragma GCC pop_options
#endif


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
  if (b + 1 < p->batch && !jb->fused) prefetch_problem(p, jb, b + 1, 0, 1);
  v = unit_columns(v, p->v_sj, p->v_se, p->lk, p->dv, a->v_direct, &next, &ldv);
  float* ot = a->o_direct ? o : next;
  int64_t ldo = a->o_direct ? p->o_si : p->dv;
#if defined(__x86_64__)
  if (jb->fused) {
    fused_rows(p, q, ldq, kt, a->ld, v, ldv, ot, ldo, s, jb,
               b + 2 < p->batch ? b + 2 : -1);
    if (!a->o_direct) copy2d(ot, p->dv, 1, o, p->o_si, p->o_se, p->lq, p->dv);
    return;
  }
#endif
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

/* Rows [r0, r1) of x, each `width` elements wstride apart. */
static void prefetch_rows(const float* x, int64_t r0, int64_t r1,
                          int64_t stride, int64_t width, int64_t wstride) {
  int64_t step = wstride == 1 ? 16 : 1; /* a line, or every element */
  for (int64_t r = r0; r < r1; r++)
    for (int64_t e = 0; e < width; e += step)
      __builtin_prefetch(x + r * stride + e * wstride, 0, 2); /* to L2 */
}

static void prefetch_problem(const hlx_attention_params_t* p,
                             const job_t* jb, int64_t b, int64_t part,
                             int64_t parts) {
  int64_t k0 = p->lk * part / parts, k1 = p->lk * (part + 1) / parts;
  int64_t q0 = p->lq * part / parts, q1 = p->lq * (part + 1) / parts;
  prefetch_rows(jb->k + p->k_off[b], k0, k1, p->k_sj, p->d, p->k_sd);
  prefetch_rows(jb->v + p->v_off[b], k0, k1, p->v_sj, p->dv, p->v_se);
  prefetch_rows(jb->q + p->q_off[b], q0, q1, p->q_si, p->d, p->q_sd);
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
#if defined(__x86_64__)
  jb.fused = ops->simd >= 2 && a->p.lk >= 1 && a->p.lk <= 16 * kMaxVecs &&
              !ops->xsmm_blocks;
#endif
  if (a->p.batch <= 0 || a->p.lq <= 0 || a->p.dv <= 0) return true;
  hlx_parallel_for(par, (size_t)a->p.batch, 1, run_range, &jb);
  return !__atomic_load_n(&jb.failed, __ATOMIC_RELAXED);
}
