/* Shared by kernels/libs/lapack*.c: the Fortran LAPACK/BLAS symbols (LP64:
 * 32-bit integers; gfortran's hidden character lengths last) and the
 * batch-splitting driver. Not a public header. */
#ifndef HLX_KERNELS_LIBS_LAPACK_INTERNAL_H_
#define HLX_KERNELS_LIBS_LAPACK_INTERNAL_H_

#include <stddef.h>

#include "kernels/libs/lapack.h"

typedef int lp_int;
typedef size_t lp_len; /* a hidden CHARACTER length */

/* Index of the element type in the s, d, c, z tables (-1: none). */
int hlx_lapack_type_index(hlx_dtype_t t);

/* One chunk [b0, b1) of the batch; false when memory ran out. */
typedef bool (*hlx_lapack_chunk_fn)(const hlx_lapack_args_t* a,
                                    void* const* bufs, int64_t b0, int64_t b1);
/* Runs fn over the whole batch, split over par. */
hlx_status_t hlx_lapack_for_batch(const hlx_lapack_args_t* a,
                                  void* const* bufs, hlx_lapack_chunk_fn fn,
                                  const hlx_parallel_t* par) HLX_MUST_USE;

/* Address of element i of buf with elements of `es` bytes. */
static inline void* hlx_lapack_at(void* buf, int64_t i, size_t es) {
  return buf ? (char*)buf + (size_t)i * es : NULL;
}

/* lwork (>= 1) from a workspace query's first element (real part). */
lp_int hlx_lapack_lwork(hlx_dtype_t t, const void* w);

/* Chunk functions of the eigen/SVD/Schur/reduction routines (lapack_eig.c). */
bool hlx_lapack_syevd_chunk(const hlx_lapack_args_t* a, void* const* bufs,
                            int64_t b0, int64_t b1);
bool hlx_lapack_geev_chunk(const hlx_lapack_args_t* a, void* const* bufs,
                           int64_t b0, int64_t b1);
bool hlx_lapack_svd_chunk(const hlx_lapack_args_t* a, void* const* bufs,
                          int64_t b0, int64_t b1);
bool hlx_lapack_gees_chunk(const hlx_lapack_args_t* a, void* const* bufs,
                           int64_t b0, int64_t b1);
bool hlx_lapack_gehrd_chunk(const hlx_lapack_args_t* a, void* const* bufs,
                            int64_t b0, int64_t b1);
bool hlx_lapack_sytrd_chunk(const hlx_lapack_args_t* a, void* const* bufs,
                            int64_t b0, int64_t b1);

#define LP_DECL4(ret, name, args) \
  ret s##name args;               \
  ret d##name args;               \
  ret c##name args;               \
  ret z##name args;

/* Same signature for all four types. */
LP_DECL4(void, getrf_, (const lp_int* m, const lp_int* n, void* a,
                        const lp_int* lda, lp_int* ipiv, lp_int* info))
LP_DECL4(void, potrf_, (const char* uplo, const lp_int* n, void* a,
                        const lp_int* lda, lp_int* info, lp_len))
LP_DECL4(void, geqrf_, (const lp_int* m, const lp_int* n, void* a,
                        const lp_int* lda, void* tau, void* work,
                        const lp_int* lwork, lp_int* info))
LP_DECL4(void, gehrd_, (const lp_int* n, const lp_int* ilo,
                        const lp_int* ihi, void* a, const lp_int* lda,
                        void* tau, void* work, const lp_int* lwork,
                        lp_int* info))
LP_DECL4(void, gtsv_, (const lp_int* n, const lp_int* nrhs, void* dl,
                       void* d, void* du, void* b, const lp_int* ldb,
                       lp_int* info))
LP_DECL4(void, trsm_, (const char* side, const char* uplo, const char* ta,
                       const char* diag, const lp_int* m, const lp_int* n,
                       const void* alpha, const void* a, const lp_int* lda,
                       void* b, const lp_int* ldb, lp_len, lp_len, lp_len,
                       lp_len))
/* orgqr (real) / ungqr (complex). */
typedef void lp_orgqr_fn(const lp_int* m, const lp_int* n, const lp_int* k,
                         void* a, const lp_int* lda, const void* tau,
                         void* work, const lp_int* lwork, lp_int* info);
lp_orgqr_fn sorgqr_, dorgqr_, cungqr_, zungqr_;
/* sytrd (real) / hetrd (complex): d, e real. */
typedef void lp_sytrd_fn(const char* uplo, const lp_int* n, void* a,
                         const lp_int* lda, void* d, void* e, void* tau,
                         void* work, const lp_int* lwork, lp_int* info,
                         lp_len);
lp_sytrd_fn ssytrd_, dsytrd_, chetrd_, zhetrd_;

/* geqp3: complex adds rwork. */
void sgeqp3_(const lp_int*, const lp_int*, void*, const lp_int*, lp_int*,
             void*, void*, const lp_int*, lp_int*);
void dgeqp3_(const lp_int*, const lp_int*, void*, const lp_int*, lp_int*,
             void*, void*, const lp_int*, lp_int*);
void cgeqp3_(const lp_int*, const lp_int*, void*, const lp_int*, lp_int*,
             void*, void*, const lp_int*, void*, lp_int*);
void zgeqp3_(const lp_int*, const lp_int*, void*, const lp_int*, lp_int*,
             void*, void*, const lp_int*, void*, lp_int*);

#endif /* HLX_KERNELS_LIBS_LAPACK_INTERNAL_H_ */
