/* LAPACK / BLAS (Debian's reference liblapack3 + libblas3, called through
 * their Fortran symbols sgetrf_ & co.) over batches of matrices, for the
 * custom-call targets JAX's CPU exports name (lapack_?getrf_ffi, ...).
 *
 * Buffers are *physical*: every matrix is column-major with leading
 * dimension = its row count, matrices of a batch follow each other, vectors
 * (pivots, tau, eigenvalues, ...) are batch-major. That is what jaxlib's
 * kernels read from the operand_layouts JAX writes ({0, 1} per matrix,
 * batch dims major); hlx_layout_copy converts between row-major tensors and
 * any minor_to_major layout. Element types: F32, F64, C64, C128 (s, d, c,
 * z); integer outputs (ipiv, jpvt, info, sdim) are int32 as LAPACK's.
 *
 * The batch is split over `par` (NULL: inline); each chunk allocates its
 * own LAPACK workspace. LAPACK's info is returned per matrix as jaxlib
 * returns it (a singular / non-positive-definite matrix is not an error:
 * the program masks its results). */
#ifndef HLX_KERNELS_LIBS_LAPACK_H_
#define HLX_KERNELS_LIBS_LAPACK_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/dtype.h"
#include "base/parallel.h"
#include "base/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hlx_lapack_routine_t {
  /* buffers (in/out unless marked):                                   */
  HLX_LAPACK_GETRF, /* a[m,n], ipiv[min(m,n)] (1-based), info          */
  HLX_LAPACK_POTRF, /* a[n,n], info                          (uplo)    */
  HLX_LAPACK_GEQRF, /* a[m,n], tau[min(m,n)]                           */
  HLX_LAPACK_GEQP3, /* a[m,n], jpvt[n] (in: 0 = free column), tau      */
  HLX_LAPACK_ORGQR, /* a[m,n], tau[k] (in)                   (k)       */
  HLX_LAPACK_SYEVD, /* a[n,n], w[n] (real), info              (job: V/N, uplo) */
  HLX_LAPACK_GEEV,  /* a[n,n] (in), then real types: wr[n], wi[n],
                       vl[n,n], vr[n,n] (complex), info; complex types:
                       w[n], vl[n,n], vr[n,n], info      (job, job2: V/N) */
  HLX_LAPACK_GESDD, /* a[m,n], s[min] (real), u[m,k], vt[l,n], info
                       (job: A/S/N; k = u cols, l = vt rows)          */
  HLX_LAPACK_GESVD, /* as GESDD, with ?gesvd                           */
  HLX_LAPACK_GEES,  /* a[n,n] (-> T), vs[n,n], then real: wr[n], wi[n];
                       complex: w[n]; then sdim, info    (job: V/N, sort N) */
  HLX_LAPACK_GEHRD, /* a[n,n], tau[n-1], info                (ilo, ihi) */
  HLX_LAPACK_SYTRD, /* a[n,n], d[n] (real), e[n-1] (real), tau[n-1], info */
  HLX_LAPACK_TRSM,  /* a[k,k] (in; k = m for side L, n for R), b[m,n] (-> x),
                       alpha (in, one element; NULL: 1)
                       (side, uplo, trans N/T/C, diag N/U)             */
  HLX_LAPACK_GTSV,  /* dl[m] (dl[0] unused), d[m], du[m], b[m,n], info  */
} hlx_lapack_routine_t;

typedef struct hlx_lapack_args_t {
  hlx_lapack_routine_t routine;
  hlx_dtype_t dtype;
  int64_t batch;
  int64_t m, n; /* rows and columns (square routines: m == n) */
  int64_t k, l; /* see the routine */
  char uplo, side, trans, diag; /* LAPACK's letters: 'L', 'U', 'N', ... */
  char job, job2, sort;
  int32_t ilo, ihi; /* gehrd, 1-based */
} hlx_lapack_args_t;

/* Runs a->routine on every matrix of the batch. bufs: the routine's
 * buffers in the order above. INVALID_ARGUMENT for a bad dtype, letter or
 * size (naming the routine), RESOURCE_EXHAUSTED without memory. */
hlx_status_t hlx_lapack_run(const hlx_lapack_args_t* a, void* const* bufs,
                            const hlx_parallel_t* par) HLX_MUST_USE;

/* What is wrong with a's type, letters or sizes (NULL: nothing), as
 * hlx_lapack_run would report it; for checking when a program is
 * compiled. */
const char* hlx_lapack_invalid(const hlx_lapack_args_t* a);

/* "getrf", ... for messages. */
const char* hlx_lapack_routine_name(hlx_lapack_routine_t r);

/* Strides in elements of a tensor of `dims` laid out by minor_to_major
 * (rank entries, a permutation; NULL: row-major). */
void hlx_layout_strides(int32_t rank, const int64_t* dims,
                        const int64_t* minor_to_major, int64_t* strides);

/* Copies the tensor `src`, laid out by src_m2m, into `dst` laid out by
 * dst_m2m (either NULL: row-major). Buffers must not overlap. */
void hlx_layout_copy(size_t elem_size, int32_t rank, const int64_t* dims,
                     const void* src, const int64_t* src_m2m, void* dst,
                     const int64_t* dst_m2m);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* HLX_KERNELS_LIBS_LAPACK_H_ */
