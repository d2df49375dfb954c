/* Batched LAPACK eigen- and singular-value decompositions, Schur forms and
 * the Hessenberg / tridiagonal reductions (kernels/libs/lapack.h):
 * ?syevd/?heevd, ?geev, ?gesdd, ?gesvd, ?gees, ?gehrd, ?sytrd/?hetrd. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/libs/lapack_internal.h"

/* Real types: (a, ..., work, lwork, iwork, liwork, info); complex ones add
 * rwork, lrwork before iwork. */
void ssyevd_(const char*, const char*, const lp_int*, void*, const lp_int*,
             void*, void*, const lp_int*, lp_int*, const lp_int*, lp_int*,
             lp_len, lp_len);
void dsyevd_(const char*, const char*, const lp_int*, void*, const lp_int*,
             void*, void*, const lp_int*, lp_int*, const lp_int*, lp_int*,
             lp_len, lp_len);
void cheevd_(const char*, const char*, const lp_int*, void*, const lp_int*,
             void*, void*, const lp_int*, void*, const lp_int*, lp_int*,
             const lp_int*, lp_int*, lp_len, lp_len);
void zheevd_(const char*, const char*, const lp_int*, void*, const lp_int*,
             void*, void*, const lp_int*, void*, const lp_int*, lp_int*,
             const lp_int*, lp_int*, lp_len, lp_len);
void sgeev_(const char*, const char*, const lp_int*, void*, const lp_int*,
            void*, void*, void*, const lp_int*, void*, const lp_int*, void*,
            const lp_int*, lp_int*, lp_len, lp_len);
void dgeev_(const char*, const char*, const lp_int*, void*, const lp_int*,
            void*, void*, void*, const lp_int*, void*, const lp_int*, void*,
            const lp_int*, lp_int*, lp_len, lp_len);
void cgeev_(const char*, const char*, const lp_int*, void*, const lp_int*,
            void*, void*, const lp_int*, void*, const lp_int*, void*,
            const lp_int*, void*, lp_int*, lp_len, lp_len);
void zgeev_(const char*, const char*, const lp_int*, void*, const lp_int*,
            void*, void*, const lp_int*, void*, const lp_int*, void*,
            const lp_int*, void*, lp_int*, lp_len, lp_len);
void sgesdd_(const char*, const lp_int*, const lp_int*, void*, const lp_int*,
             void*, void*, const lp_int*, void*, const lp_int*, void*,
             const lp_int*, lp_int*, lp_int*, lp_len);
void dgesdd_(const char*, const lp_int*, const lp_int*, void*, const lp_int*,
             void*, void*, const lp_int*, void*, const lp_int*, void*,
             const lp_int*, lp_int*, lp_int*, lp_len);
void cgesdd_(const char*, const lp_int*, const lp_int*, void*, const lp_int*,
             void*, void*, const lp_int*, void*, const lp_int*, void*,
             const lp_int*, void*, lp_int*, lp_int*, lp_len);
void zgesdd_(const char*, const lp_int*, const lp_int*, void*, const lp_int*,
             void*, void*, const lp_int*, void*, const lp_int*, void*,
             const lp_int*, void*, lp_int*, lp_int*, lp_len);
void sgesvd_(const char*, const char*, const lp_int*, const lp_int*, void*,
             const lp_int*, void*, void*, const lp_int*, void*, const lp_int*,
             void*, const lp_int*, lp_int*, lp_len, lp_len);
void dgesvd_(const char*, const char*, const lp_int*, const lp_int*, void*,
             const lp_int*, void*, void*, const lp_int*, void*, const lp_int*,
             void*, const lp_int*, lp_int*, lp_len, lp_len);
void cgesvd_(const char*, const char*, const lp_int*, const lp_int*, void*,
             const lp_int*, void*, void*, const lp_int*, void*, const lp_int*,
             void*, const lp_int*, void*, lp_int*, lp_len, lp_len);
void zgesvd_(const char*, const char*, const lp_int*, const lp_int*, void*,
             const lp_int*, void*, void*, const lp_int*, void*, const lp_int*,
             void*, const lp_int*, void*, lp_int*, lp_len, lp_len);
void sgees_(const char*, const char*, void*, const lp_int*, void*,
            const lp_int*, lp_int*, void*, void*, void*, const lp_int*, void*,
            const lp_int*, lp_int*, lp_int*, lp_len, lp_len);
void dgees_(const char*, const char*, void*, const lp_int*, void*,
            const lp_int*, lp_int*, void*, void*, void*, const lp_int*, void*,
            const lp_int*, lp_int*, lp_int*, lp_len, lp_len);
void cgees_(const char*, const char*, void*, const lp_int*, void*,
            const lp_int*, lp_int*, void*, void*, const lp_int*, void*,
            const lp_int*, void*, lp_int*, lp_int*, lp_len, lp_len);
void zgees_(const char*, const char*, void*, const lp_int*, void*,
            const lp_int*, lp_int*, void*, void*, const lp_int*, void*,
            const lp_int*, void*, lp_int*, lp_int*, lp_len, lp_len);

static bool is_complex(hlx_dtype_t t) {
  return t == HLX_DTYPE_C64 || t == HLX_DTYPE_C128;
}

/* Bytes of one real component (float / double). */
static size_t real_size(hlx_dtype_t t) {
  return t == HLX_DTYPE_F32 || t == HLX_DTYPE_C64 ? 4 : 8;
}

static lp_int at_least_1(int64_t v) { return v > 1 ? (lp_int)v : 1; }

/* ---- syevd / heevd --------------------------------------------------------- */

static void syevd_call(int t, const hlx_lapack_args_t* a, const lp_int* n,
                       void* x, const lp_int* lda, void* w, void* work,
                       const lp_int* lwork, void* rwork, const lp_int* lrwork,
                       lp_int* iwork, const lp_int* liwork, lp_int* info) {
  const char *j = &a->job, *u = &a->uplo;
  switch (t) {
    case 0: ssyevd_(j, u, n, x, lda, w, work, lwork, iwork, liwork, info, 1, 1); break;
    case 1: dsyevd_(j, u, n, x, lda, w, work, lwork, iwork, liwork, info, 1, 1); break;
    case 2: cheevd_(j, u, n, x, lda, w, work, lwork, rwork, lrwork, iwork, liwork, info, 1, 1); break;
    default: zheevd_(j, u, n, x, lda, w, work, lwork, rwork, lrwork, iwork, liwork, info, 1, 1);
  }
}

bool hlx_lapack_syevd_chunk(const hlx_lapack_args_t* a, void* const* bufs,
                            int64_t b0, int64_t b1) {
  int t = hlx_lapack_type_index(a->dtype);
  size_t es = hlx_dtype_size(a->dtype), rs = real_size(a->dtype);
  lp_int n = (lp_int)a->n, lda = at_least_1(a->n), info;
  double qw[2] = {0, 0}, qr[2] = {0, 0};
  lp_int qi = 0, lwork = -1, lrwork = -1, liwork = -1;
  syevd_call(t, a, &n, NULL, &lda, NULL, qw, &lwork, qr, &lrwork, &qi,
             &liwork, &info);
  lwork = hlx_lapack_lwork(a->dtype, qw);
  lrwork = at_least_1((int64_t)(rs == 4 ? *(float*)qr : qr[0]));
  liwork = at_least_1(qi);
  char* mem = malloc((size_t)lwork * es + (size_t)lrwork * rs +
                     (size_t)liwork * sizeof(lp_int));
  if (!mem) return false;
  void* work = mem;
  void* rwork = mem + (size_t)lwork * es;
  lp_int* iwork = (lp_int*)(mem + (size_t)lwork * es + (size_t)lrwork * rs);
  int32_t* infos = bufs[2];
  for (int64_t b = b0; b < b1; b++)
    syevd_call(t, a, &n, hlx_lapack_at(bufs[0], b * a->n * a->n, es), &lda,
               hlx_lapack_at(bufs[1], b * a->n, rs), work, &lwork, rwork,
               &lrwork, iwork, &liwork, infos + b);
  free(mem);
  return true;
}

/* ---- geev ------------------------------------------------------------------ */

static void geev_call(int t, const hlx_lapack_args_t* a, const lp_int* n,
                      void* x, void* w1, void* w2, void* vl, void* vr,
                      const lp_int* ld, void* work, const lp_int* lwork,
                      void* rwork, lp_int* info) {
  const char *l = &a->job, *r = &a->job2;
  switch (t) {
    case 0: sgeev_(l, r, n, x, ld, w1, w2, vl, ld, vr, ld, work, lwork, info, 1, 1); break;
    case 1: dgeev_(l, r, n, x, ld, w1, w2, vl, ld, vr, ld, work, lwork, info, 1, 1); break;
    case 2: cgeev_(l, r, n, x, ld, w1, vl, ld, vr, ld, work, lwork, rwork, info, 1, 1); break;
    default: zgeev_(l, r, n, x, ld, w1, vl, ld, vr, ld, work, lwork, rwork, info, 1, 1);
  }
}

/* Real geev's packed eigenvectors (a complex pair in columns j, j+1) into
 * complex columns, as jaxlib's UnpackEigenvectors. */
static void unpack_vectors(bool f32, int64_t n, const void* wi,
                           const void* packed, void* out) {
#define UNPACK(T)                                                        \
  do {                                                                   \
    const T* im = wi;                                                    \
    const T* v = packed;                                                 \
    T* o = out;                                                          \
    for (int64_t j = 0; j < n; j++) {                                    \
      if (im[j] == 0 || j + 1 >= n) {                                    \
        for (int64_t i = 0; i < n; i++) {                                \
          o[2 * (j * n + i)] = v[j * n + i];                             \
          o[2 * (j * n + i) + 1] = 0;                                    \
        }                                                                \
        continue;                                                        \
      }                                                                  \
      for (int64_t i = 0; i < n; i++) {                                  \
        T re = v[j * n + i], ii = v[(j + 1) * n + i];                    \
        o[2 * (j * n + i)] = re;                                         \
        o[2 * (j * n + i) + 1] = ii;                                     \
        o[2 * ((j + 1) * n + i)] = re;                                   \
        o[2 * ((j + 1) * n + i) + 1] = -ii;                              \
      }                                                                  \
      j++;                                                               \
    }                                                                    \
  } while (0)
  if (f32) UNPACK(float);
  else UNPACK(double);
#undef UNPACK
}

static bool all_finite(bool f32, const void* x, int64_t count) {
  for (int64_t i = 0; i < count; i++) {
    double v = f32 ? ((const float*)x)[i] : ((const double*)x)[i];
    if (!isfinite(v)) return false;
  }
  return true;
}

bool hlx_lapack_geev_chunk(const hlx_lapack_args_t* a, void* const* bufs,
                           int64_t b0, int64_t b1) {
  int t = hlx_lapack_type_index(a->dtype);
  bool cplx = is_complex(a->dtype), f32 = real_size(a->dtype) == 4;
  size_t es = hlx_dtype_size(a->dtype), rs = real_size(a->dtype);
  int64_t n = a->n, nn = n * n;
  lp_int ni = (lp_int)n, ld = at_least_1(n), info;
  size_t mat = (size_t)nn * es, ce = 2 * rs; /* complex element bytes */
  /* scratch: a copy, real vl/vr (real types), rwork (complex types) */
  size_t scratch = mat + (cplx ? 0 : 2 * mat) + (size_t)(2 * n + 1) * rs;
  double q[2] = {0, 0};
  lp_int lwork = -1;
  char* mem = malloc(scratch);
  if (!mem) return false;
  char* rwork = mem + mat + (cplx ? 0 : 2 * mat);
  geev_call(t, a, &ni, mem, NULL, NULL, NULL, NULL, &ld, q, &lwork, rwork,
            &info);
  lwork = hlx_lapack_lwork(a->dtype, q);
  void* work = malloc((size_t)lwork * es);
  if (!work) {
    free(mem);
    return false;
  }
  /* buffer indices: real (a, wr, wi, vl, vr, info), complex (a, w, vl, vr,
   * info) */
  int ivl = cplx ? 2 : 3, ivr = ivl + 1, iinfo = ivr + 1;
  int32_t* infos = bufs[iinfo];
  for (int64_t b = b0; b < b1; b++) {
    void* w1 = hlx_lapack_at(bufs[1], b * n, cplx ? es : rs);
    void* w2 = cplx ? NULL : hlx_lapack_at(bufs[2], b * n, rs);
    void* vl = hlx_lapack_at(bufs[ivl], b * nn, ce);
    void* vr = hlx_lapack_at(bufs[ivr], b * nn, ce);
    memcpy(mem, hlx_lapack_at(bufs[0], b * nn, es), mat);
    memset(vl, 0, (size_t)nn * ce);
    memset(vr, 0, (size_t)nn * ce);
    if (!all_finite(f32, mem, cplx ? 2 * nn : nn)) {
      infos[b] = -4; /* as jaxlib: LAPACK may not terminate on Inf/NaN */
      memset(w1, 0, (size_t)n * (cplx ? es : rs));
      if (w2) memset(w2, 0, (size_t)n * rs);
      continue;
    }
    void* pl = cplx ? vl : mem + mat;
    void* pr = cplx ? vr : mem + 2 * mat;
    geev_call(t, a, &ni, mem, w1, w2, pl, pr, &ld, work, &lwork, rwork,
              &infos[b]);
    if (!cplx && infos[b] == 0) {
      if (a->job == 'V') unpack_vectors(f32, n, w2, pl, vl);
      if (a->job2 == 'V') unpack_vectors(f32, n, w2, pr, vr);
    }
  }
  free(work);
  free(mem);
  return true;
}

/* ---- gesdd / gesvd --------------------------------------------------------- */

typedef struct svd_ws_t {
  void* work;
  lp_int lwork;
  void* rwork;
  lp_int* iwork;
} svd_ws_t;

static void svd_call(int t, bool dd, char job, const lp_int* m,
                     const lp_int* n, void* x, const lp_int* lda, void* s,
                     void* u, const lp_int* ldu, void* vt, const lp_int* ldvt,
                     svd_ws_t* w, lp_int* info) {
  if (dd) {
    switch (t) {
      case 0: sgesdd_(&job, m, n, x, lda, s, u, ldu, vt, ldvt, w->work, &w->lwork, w->iwork, info, 1); break;
      case 1: dgesdd_(&job, m, n, x, lda, s, u, ldu, vt, ldvt, w->work, &w->lwork, w->iwork, info, 1); break;
      case 2: cgesdd_(&job, m, n, x, lda, s, u, ldu, vt, ldvt, w->work, &w->lwork, w->rwork, w->iwork, info, 1); break;
      default: zgesdd_(&job, m, n, x, lda, s, u, ldu, vt, ldvt, w->work, &w->lwork, w->rwork, w->iwork, info, 1);
    }
    return;
  }
  switch (t) {
    case 0: sgesvd_(&job, &job, m, n, x, lda, s, u, ldu, vt, ldvt, w->work, &w->lwork, info, 1, 1); break;
    case 1: dgesvd_(&job, &job, m, n, x, lda, s, u, ldu, vt, ldvt, w->work, &w->lwork, info, 1, 1); break;
    case 2: cgesvd_(&job, &job, m, n, x, lda, s, u, ldu, vt, ldvt, w->work, &w->lwork, w->rwork, info, 1, 1); break;
    default: zgesvd_(&job, &job, m, n, x, lda, s, u, ldu, vt, ldvt, w->work, &w->lwork, w->rwork, info, 1, 1);
  }
}

/* rwork elements of complex ?gesdd / ?gesvd (LAPACK's documented sizes). */
static int64_t svd_rwork(bool dd, char job, int64_t m, int64_t n) {
  int64_t mn = m < n ? m : n, mx = m < n ? n : m;
  if (!dd) return 5 * mn + 1;
  if (job == 'N') return 7 * mn + 1;
  int64_t x = 5 * mn * mn + 5 * mn, y = 2 * mx * mn + 2 * mn * mn + mn;
  return (x > y ? x : y) + 1;
}

bool hlx_lapack_svd_chunk(const hlx_lapack_args_t* a, void* const* bufs,
                          int64_t b0, int64_t b1) {
  int t = hlx_lapack_type_index(a->dtype);
  bool dd = a->routine == HLX_LAPACK_GESDD;
  size_t es = hlx_dtype_size(a->dtype), rs = real_size(a->dtype);
  int64_t mn = a->m < a->n ? a->m : a->n;
  lp_int m = (lp_int)a->m, n = (lp_int)a->n, lda = at_least_1(a->m), info;
  lp_int ldu = at_least_1(a->m), ldvt = at_least_1(a->l);
  int64_t nr = is_complex(a->dtype) ? svd_rwork(dd, a->job, a->m, a->n) : 0;
  char* mem = malloc((size_t)nr * rs + (size_t)(8 * mn + 1) * sizeof(lp_int));
  if (!mem) return false;
  double q[2] = {0, 0}, dummy[2];
  svd_ws_t w = {q, -1, mem, (lp_int*)(mem + (size_t)nr * rs)};
  svd_call(t, dd, a->job, &m, &n, dummy, &lda, dummy, dummy, &ldu, dummy,
           &ldvt, &w, &info);
  w.lwork = hlx_lapack_lwork(a->dtype, q);
  w.work = malloc((size_t)w.lwork * es);
  if (!w.work) {
    free(mem);
    return false;
  }
  int32_t* infos = bufs[4];
  for (int64_t b = b0; b < b1; b++) {
    void* u = hlx_lapack_at(bufs[2], b * a->m * a->k, es);
    void* vt = hlx_lapack_at(bufs[3], b * a->l * a->n, es);
    if (a->job == 'N') { /* not written by LAPACK */
      if (u) memset(u, 0, (size_t)(a->m * a->k) * es);
      if (vt) memset(vt, 0, (size_t)(a->l * a->n) * es);
    }
    svd_call(t, dd, a->job, &m, &n,
             hlx_lapack_at(bufs[0], b * a->m * a->n, es), &lda,
             hlx_lapack_at(bufs[1], b * mn, rs), u ? u : dummy, &ldu,
             vt ? vt : dummy, &ldvt, &w, infos + b);
  }
  free(w.work);
  free(mem);
  return true;
}

/* ---- gees ------------------------------------------------------------------ */

static void gees_call(int t, const hlx_lapack_args_t* a, const lp_int* n,
                      void* x, lp_int* sdim, void* w1, void* w2, void* vs,
                      const lp_int* ld, void* work, const lp_int* lwork,
                      void* rwork, lp_int* info) {
  const char *j = &a->job, *s = &a->sort;
  lp_int* bwork = NULL; /* sort = 'N': not referenced */
  switch (t) {
    case 0: sgees_(j, s, NULL, n, x, ld, sdim, w1, w2, vs, ld, work, lwork, bwork, info, 1, 1); break;
    case 1: dgees_(j, s, NULL, n, x, ld, sdim, w1, w2, vs, ld, work, lwork, bwork, info, 1, 1); break;
    case 2: cgees_(j, s, NULL, n, x, ld, sdim, w1, vs, ld, work, lwork, rwork, bwork, info, 1, 1); break;
    default: zgees_(j, s, NULL, n, x, ld, sdim, w1, vs, ld, work, lwork, rwork, bwork, info, 1, 1);
  }
}

bool hlx_lapack_gees_chunk(const hlx_lapack_args_t* a, void* const* bufs,
                           int64_t b0, int64_t b1) {
  int t = hlx_lapack_type_index(a->dtype);
  bool cplx = is_complex(a->dtype);
  size_t es = hlx_dtype_size(a->dtype), rs = real_size(a->dtype);
  int64_t n = a->n, nn = n * n;
  lp_int ni = (lp_int)n, ld = at_least_1(n), sd;
  double q[2] = {0, 0}, dummy[2];
  lp_int lwork = -1, info;
  void* rwork = malloc((size_t)(n + 1) * rs);
  if (!rwork) return false;
  gees_call(t, a, &ld, dummy, &sd, dummy, dummy, dummy, &ld, q, &lwork,
            rwork, &info);
  lwork = hlx_lapack_lwork(a->dtype, q);
  void* work = malloc((size_t)lwork * es);
  if (!work) {
    free(rwork);
    return false;
  }
  /* buffers: real (a, vs, wr, wi, sdim, info), complex (a, vs, w, sdim,
   * info) */
  int isd = cplx ? 3 : 4;
  int32_t* sdim = bufs[isd];
  int32_t* infos = bufs[isd + 1];
  for (int64_t b = b0; b < b1; b++) {
    void* vs = hlx_lapack_at(bufs[1], b * nn, es);
    if (a->job == 'N') memset(vs, 0, (size_t)nn * es);
    gees_call(t, a, &ni, hlx_lapack_at(bufs[0], b * nn, es), sdim + b,
              hlx_lapack_at(bufs[2], b * n, cplx ? es : rs),
              cplx ? NULL : hlx_lapack_at(bufs[3], b * n, rs), vs, &ld, work,
              &lwork, rwork, infos + b);
  }
  free(work);
  free(rwork);
  return true;
}

/* ---- gehrd / sytrd --------------------------------------------------------- */

bool hlx_lapack_gehrd_chunk(const hlx_lapack_args_t* a, void* const* bufs,
                            int64_t b0, int64_t b1) {
  static void (*const kFn[4])(const lp_int*, const lp_int*, const lp_int*,
                              void*, const lp_int*, void*, void*,
                              const lp_int*, lp_int*) = {
      sgehrd_, dgehrd_, cgehrd_, zgehrd_};
  int t = hlx_lapack_type_index(a->dtype);
  size_t es = hlx_dtype_size(a->dtype);
  lp_int n = (lp_int)a->n, lda = at_least_1(a->n), ilo = a->ilo,
         ihi = a->ihi, info;
  double q[2] = {0, 0};
  lp_int lwork = -1;
  kFn[t](&n, &ilo, &ihi, NULL, &lda, NULL, q, &lwork, &info);
  lwork = hlx_lapack_lwork(a->dtype, q);
  void* work = malloc((size_t)lwork * es);
  if (!work) return false;
  int64_t nt = a->n > 0 ? a->n - 1 : 0;
  int32_t* infos = bufs[2];
  for (int64_t b = b0; b < b1; b++)
    kFn[t](&n, &ilo, &ihi, hlx_lapack_at(bufs[0], b * a->n * a->n, es), &lda,
           hlx_lapack_at(bufs[1], b * nt, es), work, &lwork, infos + b);
  free(work);
  return true;
}

bool hlx_lapack_sytrd_chunk(const hlx_lapack_args_t* a, void* const* bufs,
                            int64_t b0, int64_t b1) {
  static lp_sytrd_fn* const kFn[4] = {ssytrd_, dsytrd_, chetrd_, zhetrd_};
  int t = hlx_lapack_type_index(a->dtype);
  size_t es = hlx_dtype_size(a->dtype), rs = real_size(a->dtype);
  lp_int n = (lp_int)a->n, lda = at_least_1(a->n), info;
  double q[2] = {0, 0};
  lp_int lwork = -1;
  kFn[t](&a->uplo, &n, NULL, &lda, NULL, NULL, NULL, q, &lwork, &info, 1);
  lwork = hlx_lapack_lwork(a->dtype, q);
  void* work = malloc((size_t)lwork * es);
  if (!work) return false;
  int64_t nt = a->n > 0 ? a->n - 1 : 0;
  int32_t* infos = bufs[4];
  for (int64_t b = b0; b < b1; b++)
    kFn[t](&a->uplo, &n, hlx_lapack_at(bufs[0], b * a->n * a->n, es), &lda,
           hlx_lapack_at(bufs[1], b * a->n, rs),
           hlx_lapack_at(bufs[2], b * nt, rs),
           hlx_lapack_at(bufs[3], b * nt, es), work, &lwork, infos + b, 1);
  free(work);
  return true;
}
