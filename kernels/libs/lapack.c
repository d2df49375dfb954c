/* Batched LAPACK calls (kernels/libs/lapack.h): the driver, layouts, and
 * the factorizations and solves (getrf, potrf, geqrf, geqp3, orgqr, trsm,
 * gtsv). Eigen, SVD, Schur and reductions are in lapack_eig.c. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/data_movement.h"
#include "kernels/libs/lapack_internal.h"

int hlx_lapack_type_index(hlx_dtype_t t) {
  switch (t) {
    case HLX_DTYPE_F32: return 0;
    case HLX_DTYPE_F64: return 1;
    case HLX_DTYPE_C64: return 2;
    case HLX_DTYPE_C128: return 3;
    default: return -1;
  }
}

lp_int hlx_lapack_lwork(hlx_dtype_t t, const void* w) {
  double v = t == HLX_DTYPE_F32 || t == HLX_DTYPE_C64 ? *(const float*)w
                                                      : *(const double*)w;
  return v >= 1 && v < 2147483647.0 ? (lp_int)v : 1;
}

const char* hlx_lapack_routine_name(hlx_lapack_routine_t r) {
  static const char* const kNames[] = {
      "getrf", "potrf", "geqrf", "geqp3", "orgqr", "syevd", "geev",
      "gesdd", "gesvd", "gees",  "gehrd", "sytrd", "trsm",  "gtsv"};
  return (unsigned)r < sizeof kNames / sizeof kNames[0] ? kNames[r] : "?";
}

/* ---- Layouts --------------------------------------------------------------- */

void hlx_layout_strides(int32_t rank, const int64_t* dims,
                        const int64_t* minor_to_major, int64_t* strides) {
  if (!minor_to_major) {
    hlx_row_major_strides(rank, dims, strides);
    return;
  }
  int64_t s = 1;
  for (int32_t i = 0; i < rank; i++) {
    strides[minor_to_major[i]] = s;
    s *= dims[minor_to_major[i]];
  }
}

void hlx_layout_copy(size_t elem_size, int32_t rank, const int64_t* dims,
                     const void* src, const int64_t* src_m2m, void* dst,
                     const int64_t* dst_m2m) {
  int64_t ss[HLX_KERNEL_MAX_RANK], ds[HLX_KERNEL_MAX_RANK];
  hlx_layout_strides(rank, dims, src_m2m, ss);
  hlx_layout_strides(rank, dims, dst_m2m, ds);
  hlx_ref_copy_strided(elem_size, rank, dims, src, ss, dst, ds);
}

/* ---- Batch driver ---------------------------------------------------------- */

typedef struct batch_ctx_t {
  const hlx_lapack_args_t* a;
  void* const* bufs;
  hlx_lapack_chunk_fn fn;
  atomic_int failed;
} batch_ctx_t;

static void run_chunk(void* arg, size_t begin, size_t end) {
  batch_ctx_t* c = arg;
  if (!c->fn(c->a, c->bufs, (int64_t)begin, (int64_t)end))
    atomic_store(&c->failed, 1);
}

hlx_status_t hlx_lapack_for_batch(const hlx_lapack_args_t* a,
                                  void* const* bufs, hlx_lapack_chunk_fn fn,
                                  const hlx_parallel_t* par) {
  batch_ctx_t c = {a, bufs, fn, 0};
  /* ~n^3 flops per matrix: small matrices are grouped per chunk. */
  int64_t sz = a->m > a->n ? a->m : a->n;
  int64_t work = sz * sz * sz + 1;
  size_t grain = work >= 100000 ? 1 : (size_t)(100000 / work);
  hlx_parallel_for(par, (size_t)a->batch, grain, run_chunk, &c);
  if (atomic_load(&c.failed)) return hlx_status_oom();
  return NULL;
}

/* ---- getrf / potrf --------------------------------------------------------- */

static bool getrf_chunk(const hlx_lapack_args_t* a, void* const* bufs,
                        int64_t b0, int64_t b1) {
  static void (*const kFn[4])(const lp_int*, const lp_int*, void*,
                              const lp_int*, lp_int*, lp_int*) = {
      sgetrf_, dgetrf_, cgetrf_, zgetrf_};
  size_t es = hlx_dtype_size(a->dtype);
  lp_int m = (lp_int)a->m, n = (lp_int)a->n, lda = m > 1 ? m : 1;
  int64_t k = a->m < a->n ? a->m : a->n;
  int32_t* ipiv = bufs[1];
  int32_t* info = bufs[2];
  for (int64_t b = b0; b < b1; b++)
    kFn[hlx_lapack_type_index(a->dtype)](
        &m, &n, hlx_lapack_at(bufs[0], b * a->m * a->n, es), &lda,
        ipiv + b * k, info + b);
  return true;
}

static bool potrf_chunk(const hlx_lapack_args_t* a, void* const* bufs,
                        int64_t b0, int64_t b1) {
  static void (*const kFn[4])(const char*, const lp_int*, void*,
                              const lp_int*, lp_int*, lp_len) = {
      spotrf_, dpotrf_, cpotrf_, zpotrf_};
  size_t es = hlx_dtype_size(a->dtype);
  lp_int n = (lp_int)a->n, lda = n > 1 ? n : 1;
  int32_t* info = bufs[1];
  for (int64_t b = b0; b < b1; b++)
    kFn[hlx_lapack_type_index(a->dtype)](
        &a->uplo, &n, hlx_lapack_at(bufs[0], b * a->n * a->n, es), &lda,
        info + b, 1);
  return true;
}

/* ---- geqrf / geqp3 / orgqr ------------------------------------------------- */

static bool geqrf_chunk(const hlx_lapack_args_t* a, void* const* bufs,
                        int64_t b0, int64_t b1) {
  static void (*const kFn[4])(const lp_int*, const lp_int*, void*,
                              const lp_int*, void*, void*, const lp_int*,
                              lp_int*) = {sgeqrf_, dgeqrf_, cgeqrf_, zgeqrf_};
  int t = hlx_lapack_type_index(a->dtype);
  size_t es = hlx_dtype_size(a->dtype);
  lp_int m = (lp_int)a->m, n = (lp_int)a->n, lda = m > 1 ? m : 1, info;
  int64_t k = a->m < a->n ? a->m : a->n;
  double q[2] = {0, 0};
  lp_int lwork = -1;
  kFn[t](&m, &n, NULL, &lda, NULL, q, &lwork, &info);
  lwork = hlx_lapack_lwork(a->dtype, q);
  void* work = malloc((size_t)lwork * es);
  if (!work) return false;
  for (int64_t b = b0; b < b1; b++)
    kFn[t](&m, &n, hlx_lapack_at(bufs[0], b * a->m * a->n, es), &lda,
           hlx_lapack_at(bufs[1], b * k, es), work, &lwork, &info);
  free(work);
  return true;
}

static void geqp3_call(int t, const lp_int* m, const lp_int* n, void* x,
                       const lp_int* lda, lp_int* jpvt, void* tau, void* work,
                       const lp_int* lwork, void* rwork, lp_int* info) {
  switch (t) {
    case 0: sgeqp3_(m, n, x, lda, jpvt, tau, work, lwork, info); break;
    case 1: dgeqp3_(m, n, x, lda, jpvt, tau, work, lwork, info); break;
    case 2: cgeqp3_(m, n, x, lda, jpvt, tau, work, lwork, rwork, info); break;
    default: zgeqp3_(m, n, x, lda, jpvt, tau, work, lwork, rwork, info);
  }
}

static bool geqp3_chunk(const hlx_lapack_args_t* a, void* const* bufs,
                        int64_t b0, int64_t b1) {
  int t = hlx_lapack_type_index(a->dtype);
  size_t es = hlx_dtype_size(a->dtype);
  lp_int m = (lp_int)a->m, n = (lp_int)a->n, lda = m > 1 ? m : 1, info;
  int64_t k = a->m < a->n ? a->m : a->n;
  double q[2] = {0, 0};
  lp_int lwork = -1;
  geqp3_call(t, &m, &n, NULL, &lda, NULL, NULL, q, &lwork, NULL, &info);
  lwork = hlx_lapack_lwork(a->dtype, q);
  void* work = malloc((size_t)lwork * es + (size_t)(2 * a->n + 1) * 8);
  if (!work) return false;
  void* rwork = (char*)work + (size_t)lwork * es;
  int32_t* jpvt = bufs[1];
  for (int64_t b = b0; b < b1; b++)
    geqp3_call(t, &m, &n, hlx_lapack_at(bufs[0], b * a->m * a->n, es), &lda,
               jpvt + b * a->n, hlx_lapack_at(bufs[2], b * k, es), work,
               &lwork, rwork, &info);
  free(work);
  return true;
}

static bool orgqr_chunk(const hlx_lapack_args_t* a, void* const* bufs,
                        int64_t b0, int64_t b1) {
  static lp_orgqr_fn* const kFn[4] = {sorgqr_, dorgqr_, cungqr_, zungqr_};
  int t = hlx_lapack_type_index(a->dtype);
  size_t es = hlx_dtype_size(a->dtype);
  lp_int m = (lp_int)a->m, n = (lp_int)a->n, k = (lp_int)a->k;
  lp_int lda = m > 1 ? m : 1, info;
  double q[2] = {0, 0};
  lp_int lwork = -1;
  kFn[t](&m, &n, &k, NULL, &lda, NULL, q, &lwork, &info);
  lwork = hlx_lapack_lwork(a->dtype, q);
  void* work = malloc((size_t)lwork * es);
  if (!work) return false;
  for (int64_t b = b0; b < b1; b++)
    kFn[t](&m, &n, &k, hlx_lapack_at(bufs[0], b * a->m * a->n, es), &lda,
           hlx_lapack_at(bufs[1], b * a->k, es), work, &lwork, &info);
  free(work);
  return true;
}

/* ---- trsm / gtsv ----------------------------------------------------------- */

static bool trsm_chunk(const hlx_lapack_args_t* a, void* const* bufs,
                       int64_t b0, int64_t b1) {
  static void (*const kFn[4])(const char*, const char*, const char*,
                              const char*, const lp_int*, const lp_int*,
                              const void*, const void*, const lp_int*, void*,
                              const lp_int*, lp_len, lp_len, lp_len,
                              lp_len) = {strsm_, dtrsm_, ctrsm_, ztrsm_};
  size_t es = hlx_dtype_size(a->dtype);
  double one[2] = {1, 0};
  float onef[2] = {1, 0};
  const void* alpha = bufs[2];
  if (!alpha)
    alpha = a->dtype == HLX_DTYPE_F32 || a->dtype == HLX_DTYPE_C64
                ? (const void*)onef
                : (const void*)one;
  int64_t k = a->side == 'L' ? a->m : a->n;
  lp_int m = (lp_int)a->m, n = (lp_int)a->n;
  lp_int lda = k > 1 ? (lp_int)k : 1, ldb = m > 1 ? m : 1;
  for (int64_t b = b0; b < b1; b++)
    kFn[hlx_lapack_type_index(a->dtype)](
        &a->side, &a->uplo, &a->trans, &a->diag, &m, &n, alpha,
        hlx_lapack_at(bufs[0], b * k * k, es), &lda,
        hlx_lapack_at(bufs[1], b * a->m * a->n, es), &ldb, 1, 1, 1, 1);
  return true;
}

static bool gtsv_chunk(const hlx_lapack_args_t* a, void* const* bufs,
                       int64_t b0, int64_t b1) {
  static void (*const kFn[4])(const lp_int*, const lp_int*, void*, void*,
                              void*, void*, const lp_int*, lp_int*) = {
      sgtsv_, dgtsv_, cgtsv_, zgtsv_};
  size_t es = hlx_dtype_size(a->dtype);
  lp_int m = (lp_int)a->m, n = (lp_int)a->n, ldb = m > 1 ? m : 1;
  int32_t* info = bufs[4];
  for (int64_t b = b0; b < b1; b++) {
    int64_t v = b * a->m;
    kFn[hlx_lapack_type_index(a->dtype)](
        &m, &n, hlx_lapack_at(bufs[0], v + 1, es),
        hlx_lapack_at(bufs[1], v, es), hlx_lapack_at(bufs[2], v, es),
        hlx_lapack_at(bufs[3], b * a->m * a->n, es), &ldb, info + b);
  }
  return true;
}

/* ---- Entry point ----------------------------------------------------------- */

static bool letter_ok(char c, const char* allowed) {
  return c && strchr(allowed, c) != NULL;
}

const char* hlx_lapack_invalid(const hlx_lapack_args_t* a) {
  if (hlx_lapack_type_index(a->dtype) < 0)
    return "element type must be f32, f64, complex<f32> or complex<f64>";
  if (a->batch < 0 || a->m < 0 || a->n < 0 || a->k < 0 || a->l < 0 ||
      a->m > INT32_MAX || a->n > INT32_MAX || a->k > INT32_MAX ||
      a->l > INT32_MAX)
    return "sizes must be in [0, 2^31)";
  switch (a->routine) {
    case HLX_LAPACK_POTRF:
    case HLX_LAPACK_SYTRD:
      return letter_ok(a->uplo, "LU") ? NULL : "uplo must be 'L' or 'U'";
    case HLX_LAPACK_SYEVD:
      if (!letter_ok(a->uplo, "LU")) return "uplo must be 'L' or 'U'";
      return letter_ok(a->job, "VN") ? NULL : "mode must be 'V' or 'N'";
    case HLX_LAPACK_GEEV:
      return letter_ok(a->job, "VN") && letter_ok(a->job2, "VN")
                 ? NULL
                 : "compute_left / compute_right must be 'V' or 'N'";
    case HLX_LAPACK_GESDD:
    case HLX_LAPACK_GESVD:
      return letter_ok(a->job, "ASN") ? NULL
                                      : "mode must be 'A', 'S' or 'N'";
    case HLX_LAPACK_GEES:
      if (!letter_ok(a->job, "VN")) return "mode must be 'V' or 'N'";
      return a->sort == 'N' ? NULL
                            : "unsupported: sorted Schur forms (sort must "
                              "be 'N', as in jaxlib)";
    case HLX_LAPACK_TRSM:
      if (!letter_ok(a->side, "LR")) return "side must be 'L' or 'R'";
      if (!letter_ok(a->uplo, "LU")) return "uplo must be 'L' or 'U'";
      if (!letter_ok(a->trans, "NTC")) return "trans_x must be 'N', 'T' or 'C'";
      return letter_ok(a->diag, "NU") ? NULL : "diag must be 'N' or 'U'";
    case HLX_LAPACK_ORGQR:
      return a->k <= a->n && a->n <= a->m ? NULL
                                          : "needs k <= n <= m";
    case HLX_LAPACK_GEHRD:
      return a->n == 0 || (1 <= a->ilo && a->ilo <= a->ihi + 1 &&
                           a->ihi <= a->n)
                 ? NULL
                 : "needs 1 <= low <= high + 1 and high <= n";
    default:
      return NULL;
  }
}

/* Index of the info buffer (-1: none); sdim, when present, precedes it. */
static int info_index(const hlx_lapack_args_t* a) {
  bool cplx = a->dtype == HLX_DTYPE_C64 || a->dtype == HLX_DTYPE_C128;
  switch (a->routine) {
    case HLX_LAPACK_GETRF: case HLX_LAPACK_SYEVD: case HLX_LAPACK_GEHRD:
      return 2;
    case HLX_LAPACK_POTRF: return 1;
    case HLX_LAPACK_GESDD: case HLX_LAPACK_GESVD: case HLX_LAPACK_SYTRD:
    case HLX_LAPACK_GTSV:
      return 4;
    case HLX_LAPACK_GEEV: case HLX_LAPACK_GEES: return cplx ? 4 : 5;
    default: return -1;
  }
}

/* Empty matrices: nothing to compute (and some LAPACK routines want
 * non-NULL arrays even then); info and sdim are 0, the SVD's u and vt
 * zeros. True when handled here. */
static bool run_empty(const hlx_lapack_args_t* a, void* const* bufs) {
  switch (a->routine) {
    case HLX_LAPACK_TRSM: case HLX_LAPACK_ORGQR: case HLX_LAPACK_GEQRF:
    case HLX_LAPACK_GEQP3: case HLX_LAPACK_GTSV:
      return false; /* LAPACK returns at once */
    default:
      break;
  }
  if (a->m != 0 && a->n != 0) return false;
  int ii = info_index(a);
  for (int64_t b = 0; ii >= 0 && b < a->batch; b++) {
    ((int32_t*)bufs[ii])[b] = 0;
    if (a->routine == HLX_LAPACK_GEES) ((int32_t*)bufs[ii - 1])[b] = 0;
  }
  if (a->routine == HLX_LAPACK_GESDD || a->routine == HLX_LAPACK_GESVD) {
    size_t es = hlx_dtype_size(a->dtype);
    if (bufs[2]) memset(bufs[2], 0, (size_t)(a->batch * a->m * a->k) * es);
    if (bufs[3]) memset(bufs[3], 0, (size_t)(a->batch * a->l * a->n) * es);
  }
  return true;
}

hlx_status_t hlx_lapack_run(const hlx_lapack_args_t* a, void* const* bufs,
                            const hlx_parallel_t* par) {
  const char* name = hlx_lapack_routine_name(a->routine);
  const char* bad = hlx_lapack_invalid(a);
  if (bad)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT, "lapack %s: %s", name,
                           bad);
  static const hlx_lapack_chunk_fn kChunk[] = {
      getrf_chunk,           potrf_chunk,           geqrf_chunk,
      geqp3_chunk,           orgqr_chunk,           hlx_lapack_syevd_chunk,
      hlx_lapack_geev_chunk, hlx_lapack_svd_chunk,  hlx_lapack_svd_chunk,
      hlx_lapack_gees_chunk, hlx_lapack_gehrd_chunk, hlx_lapack_sytrd_chunk,
      trsm_chunk,            gtsv_chunk};
  if ((unsigned)a->routine >= sizeof kChunk / sizeof kChunk[0])
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "lapack: unknown routine %d", (int)a->routine);
  if (a->batch == 0 || run_empty(a, bufs)) return NULL;
  return hlx_lapack_for_batch(a, bufs, kChunk[a->routine], par);
}
