/* JAX's LAPACK custom-call targets (lapack_?getrf_ffi, ..., the legacy
 * lapack_?getrf / blas_?trsm forms with their leading scalar operands) on
 * kernels/libs/lapack.h. Each target's operands and results become the
 * kernel's buffers: operands are copied into the physical layout their
 * operand_layouts give (JAX: column-major matrices), the kernel runs on the
 * executable's pool, and results are read back from their result_layouts,
 * as XLA hands jaxlib its buffers. Results the kernel does not produce
 * (legacy workspaces) are zeros. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/lower/jax.h"
#include "kernels/libs/lapack.h"

enum { kMaxBuf = 8 };

typedef struct jl_buf_t {
  int32_t operand, result; /* -1: none */
  hlx_dtype_t dtype;
  int32_t rank;
  int64_t dims[HLX_MAX_RANK];
  const int64_t *in_m2m, *out_m2m; /* physical layouts (NULL: row-major) */
  size_t bytes;
} jl_buf_t;

typedef struct jl_task_t {
  hlx_lapack_args_t la;
  int32_t nbuf;
  jl_buf_t buf[kMaxBuf];
  int32_t num_results;
  size_t* result_bytes;
  bool* result_written;
} jl_task_t;

static size_t round64(size_t b) { return (b + 63) & ~(size_t)63; }

static hlx_status_t run_lapack_task(const void* args, void* const* in,
                                    void* const* out, hlx_run_ctx_t* ctx) {
  const jl_task_t* t = args;
  size_t total = 0;
  for (int32_t i = 0; i < t->nbuf; i++) total += round64(t->buf[i].bytes);
  char* mem = malloc(total ? total : 1);
  if (!mem) return hlx_status_oom();
  void* bufs[kMaxBuf] = {0};
  size_t off = 0;
  for (int32_t i = 0; i < t->nbuf; i++) {
    const jl_buf_t* b = &t->buf[i];
    if (!b->bytes) continue;
    bufs[i] = mem + off;
    off += round64(b->bytes);
    if (b->operand >= 0)
      hlx_layout_copy(hlx_dtype_size(b->dtype), b->rank, b->dims,
                      in[b->operand], NULL, bufs[i], b->in_m2m);
    else
      memset(bufs[i], 0, b->bytes);
  }
  hlx_status_t st = hlx_lapack_run(&t->la, bufs, ctx->parallel);
  for (int32_t i = 0; !st && i < t->nbuf; i++) {
    const jl_buf_t* b = &t->buf[i];
    if (b->result >= 0 && b->bytes)
      hlx_layout_copy(hlx_dtype_size(b->dtype), b->rank, b->dims, bufs[i],
                      b->out_m2m, out[b->result], NULL);
  }
  for (int32_t r = 0; !st && r < t->num_results; r++)
    if (!t->result_written[r] && t->result_bytes[r])
      memset(out[r], 0, t->result_bytes[r]);
  free(mem);
  return st;
}

/* ---- Building a task ------------------------------------------------------- */

typedef struct jl_ctx_t {
  hlx_lower_ctx_t* c;
  const hlx_op_t* op;
  const char* target;
  jl_task_t* t;
  hlx_dtype_t T, R, C; /* element type, its real part, its complex form */
  bool cplx, ffi;
  int32_t nb;          /* batch dims (of the main matrix) */
  int64_t B[HLX_MAX_RANK];
} jl_ctx_t;

static hlx_status_t jl_err(const jl_ctx_t* j, const char* fmt, const char* a,
                           int i) HLX_MUST_USE;
static hlx_status_t jl_err(const jl_ctx_t* j, const char* fmt, const char* a,
                           int i) {
  char msg[256];
  snprintf(msg, sizeof msg, fmt, a, i);
  return hlx_jax_error(j->op, j->target, HLX_STATUS_INVALID_ARGUMENT, "%s",
                       msg);
}

/* "tensor<2x3xf32>" into out. */
static void type_text(hlx_dtype_t dt, int32_t rank, const int64_t* dims,
                      char* out, size_t n) {
  size_t o = (size_t)snprintf(out, n, "tensor<");
  for (int32_t i = 0; i < rank && o < n; i++)
    o += (size_t)snprintf(out + o, n - o, "%lldx", (long long)dims[i]);
  if (o < n) snprintf(out + o, n - o, "%s>", hlx_dtype_name(dt));
}

/* Adds a kernel buffer of type dt[B..., x, y] (tail = how many of x, y):
 * initialised from `operand`, read back into `result` (either -1), each
 * checked to have that type. */
static hlx_status_t jl_buf(jl_ctx_t* j, int32_t operand, int32_t result,
                           hlx_dtype_t dt, int tail, int64_t x, int64_t y) {
  jl_buf_t* b = &j->t->buf[j->t->nbuf++];
  b->operand = operand;
  b->result = result;
  b->dtype = dt;
  b->rank = j->nb + tail;
  memcpy(b->dims, j->B, sizeof(int64_t) * (size_t)j->nb);
  if (tail >= 1) b->dims[j->nb] = x;
  if (tail >= 2) b->dims[j->nb + 1] = y;
  int64_t n = 1;
  for (int32_t d = 0; d < b->rank; d++) n *= b->dims[d];
  b->bytes = (size_t)n * hlx_dtype_size(dt);
  for (int side = 0; side < 2; side++) {
    int32_t idx = side ? result : operand;
    if (idx < 0) continue;
    const hlx_value_t* v =
        side ? j->op->results[idx] : j->op->operands[idx];
    const hlx_type_t* t = hlx_static_tensor(v);
    bool ok = t && !t->quant && t->dtype == dt && t->rank == b->rank;
    for (int32_t d = 0; ok && d < b->rank; d++) ok = t->dims[d] == b->dims[d];
    if (!ok) {
      char want[160];
      type_text(dt, b->rank, b->dims, want, sizeof want);
      return jl_err(j, side ? "result #%2$d must be %1$s"
                            : "operand #%2$d must be %1$s",
                    want, idx);
    }
    HLX_RETURN_IF_ERROR(hlx_jax_layout(j->c, j->op, j->target, side == 1,
                                       idx, side ? &b->out_m2m : &b->in_m2m));
  }
  if (result >= 0) j->t->result_written[result] = true;
  return NULL;
}

/* The main matrix: operand i of rank >= 2 and the target's element type;
 * sets the batch, m and n. */
static hlx_status_t jl_matrix(jl_ctx_t* j, int32_t i, bool square) {
  const hlx_type_t* t =
      i < j->op->num_operands ? hlx_static_tensor(j->op->operands[i]) : NULL;
  if (!t || t->rank < 2 || t->dtype != j->T || t->quant)
    return jl_err(j, "operand #%2$d must be a static %1$s tensor of rank >= 2",
                  hlx_dtype_name(j->T), i);
  j->nb = t->rank - 2;
  memcpy(j->B, t->dims, sizeof(int64_t) * (size_t)j->nb);
  j->t->la.batch = 1;
  for (int32_t d = 0; d < j->nb; d++) j->t->la.batch *= t->dims[d];
  j->t->la.m = t->dims[t->rank - 2];
  j->t->la.n = t->dims[t->rank - 1];
  if (square && j->t->la.m != j->t->la.n)
    return jl_err(j, "operand #%2$d must hold square matrices%1$s", "", i);
  return NULL;
}

static hlx_status_t jl_counts(const jl_ctx_t* j, int32_t nin, int32_t nout) {
  if (j->op->num_operands == nin && j->op->num_results == nout) return NULL;
  return hlx_jax_error(j->op, j->target, HLX_STATUS_INVALID_ARGUMENT,
                       "takes %d operand(s) and %d result(s), has %d and %d",
                       nin, nout, j->op->num_operands, j->op->num_results);
}

/* A letter from backend_config (FFI form), with a default. */
static hlx_status_t jl_letter(const jl_ctx_t* j, const char* name, char dflt,
                              char* out) {
  int64_t v = 0;
  bool present;
  HLX_RETURN_IF_ERROR(hlx_jax_config_int(j->op, j->target, name, &v, &present));
  *out = present ? (char)v : dflt;
  return NULL;
}

/* A legacy scalar flag operand. */
static hlx_status_t jl_flag(const jl_ctx_t* j, int32_t i, const char* what,
                            int64_t* v) {
  return hlx_jax_const_ints(j->c, j->op, j->target, i, what, v, 1, NULL);
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* ---- Targets: operands, results and letters ------------------------------ */

/* getrf: a -> (lu, ipiv, info); legacy operands (b, m, n, a). */
static hlx_status_t spec_getrf(jl_ctx_t* j) {
  int32_t ia = j->ffi ? 0 : 3;
  HLX_RETURN_IF_ERROR(jl_counts(j, ia + 1, 3));
  HLX_RETURN_IF_ERROR(jl_matrix(j, ia, false));
  hlx_lapack_args_t* la = &j->t->la;
  HLX_RETURN_IF_ERROR(jl_buf(j, ia, 0, j->T, 2, la->m, la->n));
  HLX_RETURN_IF_ERROR(jl_buf(j, -1, 1, HLX_DTYPE_S32, 1, min64(la->m, la->n), 0));
  return jl_buf(j, -1, 2, HLX_DTYPE_S32, 0, 0, 0);
}

/* potrf: a -> (l, info), uplo; legacy (lower, b, n, a). */
static hlx_status_t spec_potrf(jl_ctx_t* j) {
  int32_t ia = j->ffi ? 0 : 3;
  hlx_lapack_args_t* la = &j->t->la;
  HLX_RETURN_IF_ERROR(jl_counts(j, ia + 1, 2));
  HLX_RETURN_IF_ERROR(jl_matrix(j, ia, true));
  if (j->ffi) {
    HLX_RETURN_IF_ERROR(jl_letter(j, "uplo", 'L', &la->uplo));
  } else {
    int64_t lower;
    HLX_RETURN_IF_ERROR(jl_flag(j, 0, "lower", &lower));
    la->uplo = lower ? 'L' : 'U';
  }
  HLX_RETURN_IF_ERROR(jl_buf(j, ia, 0, j->T, 2, la->n, la->n));
  return jl_buf(j, -1, 1, HLX_DTYPE_S32, 0, 0, 0);
}

/* geqrf: a -> (qr, tau) [, info, work]; legacy (b, m, n, lwork, a). */
static hlx_status_t spec_geqrf(jl_ctx_t* j) {
  int32_t ia = j->ffi ? 0 : 4;
  int32_t nres = j->op->num_results == 4 || !j->ffi ? 4 : 2;
  HLX_RETURN_IF_ERROR(jl_counts(j, ia + 1, nres));
  HLX_RETURN_IF_ERROR(jl_matrix(j, ia, false));
  hlx_lapack_args_t* la = &j->t->la;
  HLX_RETURN_IF_ERROR(jl_buf(j, ia, 0, j->T, 2, la->m, la->n));
  return jl_buf(j, -1, 1, j->T, 1, min64(la->m, la->n), 0);
}

/* geqp3: (a, jpvt) -> (qr, jpvt, tau). */
static hlx_status_t spec_geqp3(jl_ctx_t* j) {
  HLX_RETURN_IF_ERROR(jl_counts(j, 2, 3));
  HLX_RETURN_IF_ERROR(jl_matrix(j, 0, false));
  hlx_lapack_args_t* la = &j->t->la;
  HLX_RETURN_IF_ERROR(jl_buf(j, 0, 0, j->T, 2, la->m, la->n));
  HLX_RETURN_IF_ERROR(jl_buf(j, 1, 1, HLX_DTYPE_S32, 1, la->n, 0));
  return jl_buf(j, -1, 2, j->T, 1, min64(la->m, la->n), 0);
}

/* orgqr / ungqr: (a, tau) -> q [, info, work]; legacy (b, m, n, k, lwork,
 * a, tau). */
static hlx_status_t spec_orgqr(jl_ctx_t* j) {
  int32_t ia = j->ffi ? 0 : 5;
  int32_t nres = j->op->num_results == 3 || !j->ffi ? 3 : 1;
  HLX_RETURN_IF_ERROR(jl_counts(j, ia + 2, nres));
  HLX_RETURN_IF_ERROR(jl_matrix(j, ia, false));
  hlx_lapack_args_t* la = &j->t->la;
  const hlx_type_t* tau = hlx_static_tensor(j->op->operands[ia + 1]);
  la->k = tau && tau->rank == j->nb + 1 ? tau->dims[j->nb] : -1;
  HLX_RETURN_IF_ERROR(jl_buf(j, ia, 0, j->T, 2, la->m, la->n));
  return jl_buf(j, ia + 1, -1, j->T, 1, la->k, 0);
}

/* syevd / heevd: a -> (v, w, info), uplo, mode; legacy (lower, b, n, a)
 * with workspace results. */
static hlx_status_t spec_syevd(jl_ctx_t* j) {
  int32_t ia = j->ffi ? 0 : 3;
  hlx_lapack_args_t* la = &j->t->la;
  HLX_RETURN_IF_ERROR(jl_counts(j, ia + 1, j->ffi ? 3 : j->cplx ? 6 : 5));
  HLX_RETURN_IF_ERROR(jl_matrix(j, ia, true));
  la->job = 'V';
  if (j->ffi) {
    HLX_RETURN_IF_ERROR(jl_letter(j, "uplo", 'L', &la->uplo));
    HLX_RETURN_IF_ERROR(jl_letter(j, "mode", 'V', &la->job));
  } else {
    int64_t lower;
    HLX_RETURN_IF_ERROR(jl_flag(j, 0, "lower", &lower));
    la->uplo = lower ? 'L' : 'U';
  }
  HLX_RETURN_IF_ERROR(jl_buf(j, ia, 0, j->T, 2, la->n, la->n));
  HLX_RETURN_IF_ERROR(jl_buf(j, -1, 1, j->R, 1, la->n, 0));
  return jl_buf(j, -1, 2, HLX_DTYPE_S32, 0, 0, 0);
}

/* geev: a -> real (wr, wi, vl, vr, info) / complex (w, vl, vr, info),
 * compute_left / compute_right; legacy (b, n, jobvl, jobvr, a) -> real
 * (a, vl, vr work, wr, wi, vl, vr, info), complex (a, rwork, w, vl, vr,
 * info). */
static hlx_status_t spec_geev(jl_ctx_t* j) {
  int32_t ia = j->ffi ? 0 : 4;
  hlx_lapack_args_t* la = &j->t->la;
  HLX_RETURN_IF_ERROR(
      jl_counts(j, ia + 1, (j->cplx ? 4 : 5) + (j->ffi ? 0 : j->cplx ? 2 : 3)));
  HLX_RETURN_IF_ERROR(jl_matrix(j, ia, true));
  if (j->ffi) {
    HLX_RETURN_IF_ERROR(jl_letter(j, "compute_left", 'V', &la->job));
    HLX_RETURN_IF_ERROR(jl_letter(j, "compute_right", 'V', &la->job2));
  } else {
    int64_t l, r;
    HLX_RETURN_IF_ERROR(jl_flag(j, 2, "jobvl", &l));
    HLX_RETURN_IF_ERROR(jl_flag(j, 3, "jobvr", &r));
    la->job = (char)l;
    la->job2 = (char)r;
  }
  int32_t r0 = j->ffi ? 0 : j->cplx ? 2 : 3, n = (int32_t)la->n;
  HLX_RETURN_IF_ERROR(jl_buf(j, ia, -1, j->T, 2, n, n));
  HLX_RETURN_IF_ERROR(jl_buf(j, -1, r0, j->T, 1, n, 0));
  if (!j->cplx) HLX_RETURN_IF_ERROR(jl_buf(j, -1, ++r0, j->T, 1, n, 0));
  HLX_RETURN_IF_ERROR(jl_buf(j, -1, r0 + 1, j->C, 2, n, n));
  HLX_RETURN_IF_ERROR(jl_buf(j, -1, r0 + 2, j->C, 2, n, n));
  return jl_buf(j, -1, r0 + 3, HLX_DTYPE_S32, 0, 0, 0);
}

/* gesdd / gesvd: a -> (a, s, u, vt, info), mode; legacy gesdd
 * (full_matrices, compute_uv, b, m, n, lwork, a) with workspace results. */
static hlx_status_t spec_svd(jl_ctx_t* j) {
  int32_t ia = j->ffi ? 0 : 6;
  hlx_lapack_args_t* la = &j->t->la;
  HLX_RETURN_IF_ERROR(jl_counts(j, ia + 1, j->ffi ? 5 : j->cplx ? 8 : 7));
  HLX_RETURN_IF_ERROR(jl_matrix(j, ia, false));
  if (j->ffi) {
    HLX_RETURN_IF_ERROR(jl_letter(j, "mode", 'A', &la->job));
  } else {
    int64_t full, uv;
    HLX_RETURN_IF_ERROR(jl_flag(j, 0, "full_matrices", &full));
    HLX_RETURN_IF_ERROR(jl_flag(j, 1, "compute_uv", &uv));
    la->job = !uv ? 'N' : full ? 'A' : 'S';
  }
  const hlx_type_t* u = hlx_static_tensor(j->op->results[2]);
  const hlx_type_t* vt = hlx_static_tensor(j->op->results[3]);
  la->k = u && u->rank == j->nb + 2 ? u->dims[j->nb + 1] : -1;
  la->l = vt && vt->rank == j->nb + 2 ? vt->dims[j->nb] : -1;
  HLX_RETURN_IF_ERROR(jl_buf(j, ia, 0, j->T, 2, la->m, la->n));
  HLX_RETURN_IF_ERROR(jl_buf(j, -1, 1, j->R, 1, min64(la->m, la->n), 0));
  HLX_RETURN_IF_ERROR(jl_buf(j, -1, 2, j->T, 2, la->m, la->k));
  HLX_RETURN_IF_ERROR(jl_buf(j, -1, 3, j->T, 2, la->l, la->n));
  return jl_buf(j, -1, 4, HLX_DTYPE_S32, 0, 0, 0);
}

/* gees: a -> real (t, vs, wr, wi, sdim, info) / complex (t, vs, w, sdim,
 * info), mode, sort; legacy (b, n, jobvs, sort, a) -> real (t, wr, wi, vs,
 * sdim, info) / complex (t, rwork, w, vs, sdim, info). */
static hlx_status_t spec_gees(jl_ctx_t* j) {
  int32_t ia = j->ffi ? 0 : 4;
  hlx_lapack_args_t* la = &j->t->la;
  HLX_RETURN_IF_ERROR(jl_counts(j, ia + 1, j->cplx && j->ffi ? 5 : 6));
  HLX_RETURN_IF_ERROR(jl_matrix(j, ia, true));
  if (j->ffi) {
    HLX_RETURN_IF_ERROR(jl_letter(j, "mode", 'V', &la->job));
    HLX_RETURN_IF_ERROR(jl_letter(j, "sort", 'N', &la->sort));
  } else {
    int64_t v, s;
    HLX_RETURN_IF_ERROR(jl_flag(j, 2, "jobvs", &v));
    HLX_RETURN_IF_ERROR(jl_flag(j, 3, "sort", &s));
    la->job = (char)v;
    la->sort = (char)s;
  }
  int32_t n = (int32_t)la->n;
  /* result of each kernel buffer: (t, vs, w or wr[, wi], sdim, info) */
  int32_t rv = j->ffi ? 1 : 3, rw = j->ffi ? 2 : j->cplx ? 2 : 1;
  int32_t rs = j->ffi ? (j->cplx ? 3 : 4) : 4;
  HLX_RETURN_IF_ERROR(jl_buf(j, ia, 0, j->T, 2, n, n));
  HLX_RETURN_IF_ERROR(jl_buf(j, -1, rv, j->T, 2, n, n));
  HLX_RETURN_IF_ERROR(jl_buf(j, -1, rw, j->T, 1, n, 0));
  if (!j->cplx) HLX_RETURN_IF_ERROR(jl_buf(j, -1, rw + 1, j->T, 1, n, 0));
  HLX_RETURN_IF_ERROR(jl_buf(j, -1, rs, HLX_DTYPE_S32, 0, 0, 0));
  return jl_buf(j, -1, rs + 1, HLX_DTYPE_S32, 0, 0, 0);
}

/* gehrd: a -> (h, tau, info), low, high; legacy (n, ilo, ihi, lda, b,
 * lwork, a) -> (h, tau, info, work). */
static hlx_status_t spec_gehrd(jl_ctx_t* j) {
  int32_t ia = j->ffi ? 0 : 6;
  hlx_lapack_args_t* la = &j->t->la;
  HLX_RETURN_IF_ERROR(jl_counts(j, ia + 1, j->ffi ? 3 : 4));
  HLX_RETURN_IF_ERROR(jl_matrix(j, ia, true));
  int64_t lo = 1, hi = la->n;
  bool present;
  if (j->ffi) {
    HLX_RETURN_IF_ERROR(hlx_jax_config_int(j->op, j->target, "low", &lo, &present));
    HLX_RETURN_IF_ERROR(hlx_jax_config_int(j->op, j->target, "high", &hi, &present));
  } else {
    HLX_RETURN_IF_ERROR(jl_flag(j, 1, "ilo", &lo));
    HLX_RETURN_IF_ERROR(jl_flag(j, 2, "ihi", &hi));
  }
  la->ilo = (int32_t)lo;
  la->ihi = (int32_t)hi;
  int64_t nt = la->n > 0 ? la->n - 1 : 0;
  HLX_RETURN_IF_ERROR(jl_buf(j, ia, 0, j->T, 2, la->n, la->n));
  HLX_RETURN_IF_ERROR(jl_buf(j, -1, 1, j->T, 1, nt, 0));
  return jl_buf(j, -1, 2, HLX_DTYPE_S32, 0, 0, 0);
}

/* sytrd / hetrd: a -> (a, d, e, tau, info), uplo; legacy (n, lower, lda, b,
 * lwork, a) with a workspace result. */
static hlx_status_t spec_sytrd(jl_ctx_t* j) {
  int32_t ia = j->ffi ? 0 : 5;
  hlx_lapack_args_t* la = &j->t->la;
  HLX_RETURN_IF_ERROR(jl_counts(j, ia + 1, j->ffi ? 5 : 6));
  HLX_RETURN_IF_ERROR(jl_matrix(j, ia, true));
  if (j->ffi) {
    HLX_RETURN_IF_ERROR(jl_letter(j, "uplo", 'L', &la->uplo));
  } else {
    int64_t lower;
    HLX_RETURN_IF_ERROR(jl_flag(j, 1, "lower", &lower));
    la->uplo = lower ? 'L' : 'U';
  }
  int64_t nt = la->n > 0 ? la->n - 1 : 0;
  HLX_RETURN_IF_ERROR(jl_buf(j, ia, 0, j->T, 2, la->n, la->n));
  HLX_RETURN_IF_ERROR(jl_buf(j, -1, 1, j->R, 1, la->n, 0));
  HLX_RETURN_IF_ERROR(jl_buf(j, -1, 2, j->R, 1, nt, 0));
  HLX_RETURN_IF_ERROR(jl_buf(j, -1, 3, j->T, 1, nt, 0));
  return jl_buf(j, -1, 4, HLX_DTYPE_S32, 0, 0, 0);
}

/* trsm: (a, b[, alpha]) -> x, side, uplo, trans_x, diag; legacy blas_?trsm
 * (left_side, lower, trans_a, diag, m, n, batch, alpha, a, b). */
static hlx_status_t spec_trsm(jl_ctx_t* j) {
  hlx_lapack_args_t* la = &j->t->la;
  int32_t ia = j->ffi ? 0 : 8, ialpha = j->ffi ? 2 : 7;
  if (j->ffi && j->op->num_operands == 2) ialpha = -1;
  HLX_RETURN_IF_ERROR(jl_counts(j, j->ffi ? (ialpha < 0 ? 2 : 3) : 10, 1));
  HLX_RETURN_IF_ERROR(jl_matrix(j, ia + 1, false)); /* b sets m, n */
  if (j->ffi) {
    HLX_RETURN_IF_ERROR(jl_letter(j, "side", 'L', &la->side));
    HLX_RETURN_IF_ERROR(jl_letter(j, "uplo", 'L', &la->uplo));
    HLX_RETURN_IF_ERROR(jl_letter(j, "trans_x", 'N', &la->trans));
    HLX_RETURN_IF_ERROR(jl_letter(j, "diag", 'N', &la->diag));
  } else {
    int64_t f[4];
    static const char* const kWhat[4] = {"left_side", "lower", "trans_a",
                                         "diag"};
    for (int i = 0; i < 4; i++)
      HLX_RETURN_IF_ERROR(jl_flag(j, i, kWhat[i], &f[i]));
    la->side = f[0] ? 'L' : 'R';
    la->uplo = f[1] ? 'L' : 'U';
    la->trans = f[2] == 1 ? 'T' : f[2] == 2 ? 'C' : 'N';
    la->diag = f[3] ? 'U' : 'N';
  }
  int64_t k = la->side == 'R' ? la->n : la->m;
  HLX_RETURN_IF_ERROR(jl_buf(j, ia, -1, j->T, 2, k, k));
  HLX_RETURN_IF_ERROR(jl_buf(j, ia + 1, 0, j->T, 2, la->m, la->n));
  if (ialpha < 0) {
    j->t->buf[j->t->nbuf++] = (jl_buf_t){.operand = -1, .result = -1};
    return NULL;
  }
  int32_t nb = j->nb;
  j->nb = 0; /* alpha is a scalar */
  hlx_status_t st = jl_buf(j, ialpha, -1, j->T, 0, 0, 0);
  j->nb = nb;
  return st;
}

/* gtsv: (dl, d, du, b) -> (dl, d, du, x, info). */
static hlx_status_t spec_gtsv(jl_ctx_t* j) {
  HLX_RETURN_IF_ERROR(jl_counts(j, 4, 5));
  HLX_RETURN_IF_ERROR(jl_matrix(j, 3, false));
  hlx_lapack_args_t* la = &j->t->la;
  for (int32_t i = 0; i < 3; i++)
    HLX_RETURN_IF_ERROR(jl_buf(j, i, i, j->T, 1, la->m, 0));
  HLX_RETURN_IF_ERROR(jl_buf(j, 3, 3, j->T, 2, la->m, la->n));
  return jl_buf(j, -1, 4, HLX_DTYPE_S32, 0, 0, 0);
}

/* ---- Target names ---------------------------------------------------------- */

typedef hlx_status_t (*jl_spec_fn)(jl_ctx_t* j);

static const struct {
  const char* name;
  hlx_lapack_routine_t routine;
  jl_spec_fn spec;
  int kind; /* 0: any type, 1: real letters only, 2: complex only */
} kRoutines[] = {
    {"getrf", HLX_LAPACK_GETRF, spec_getrf, 0},
    {"potrf", HLX_LAPACK_POTRF, spec_potrf, 0},
    {"geqrf", HLX_LAPACK_GEQRF, spec_geqrf, 0},
    {"geqp3", HLX_LAPACK_GEQP3, spec_geqp3, 0},
    {"orgqr", HLX_LAPACK_ORGQR, spec_orgqr, 1},
    {"ungqr", HLX_LAPACK_ORGQR, spec_orgqr, 2},
    {"syevd", HLX_LAPACK_SYEVD, spec_syevd, 1},
    {"heevd", HLX_LAPACK_SYEVD, spec_syevd, 2},
    {"geev", HLX_LAPACK_GEEV, spec_geev, 0},
    {"gesdd", HLX_LAPACK_GESDD, spec_svd, 0},
    {"gesvd", HLX_LAPACK_GESVD, spec_svd, 0},
    {"gees", HLX_LAPACK_GEES, spec_gees, 0},
    {"gehrd", HLX_LAPACK_GEHRD, spec_gehrd, 0},
    {"sytrd", HLX_LAPACK_SYTRD, spec_sytrd, 1},
    {"hetrd", HLX_LAPACK_SYTRD, spec_sytrd, 2},
    {"trsm", HLX_LAPACK_TRSM, spec_trsm, 0},
    {"gtsv", HLX_LAPACK_GTSV, spec_gtsv, 0},
};

/* lapack_<x><routine>[_ffi] or blas_<x>trsm[_ffi] (older trsm exports);
 * -1 when not a target. */
static int parse_target(const char* s, hlx_dtype_t* dt, bool* ffi) {
  bool blas = strncmp(s, "blas_", 5) == 0;
  if (!blas && strncmp(s, "lapack_", 7) != 0) return -1;
  s += blas ? 5 : 7;
  const char* letters = "sdcz";
  const char* at = *s ? strchr(letters, *s) : NULL;
  if (!at) return -1;
  static const hlx_dtype_t kTypes[4] = {HLX_DTYPE_F32, HLX_DTYPE_F64,
                                        HLX_DTYPE_C64, HLX_DTYPE_C128};
  *dt = kTypes[at - letters];
  s++;
  size_t n = strlen(s);
  *ffi = n > 4 && strcmp(s + n - 4, "_ffi") == 0;
  if (*ffi) n -= 4;
  bool cplx = at - letters >= 2;
  for (int i = 0; i < (int)(sizeof kRoutines / sizeof kRoutines[0]); i++) {
    if (strlen(kRoutines[i].name) != n || strncmp(kRoutines[i].name, s, n))
      continue;
    if ((kRoutines[i].kind == 1 && cplx) || (kRoutines[i].kind == 2 && !cplx))
      return -1;
    if (blas && kRoutines[i].routine != HLX_LAPACK_TRSM) return -1;
    return i;
  }
  return -1;
}

hlx_status_t hlx_lower_jax_lapack(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                  const char* target, bool* handled) {
  hlx_dtype_t dt;
  bool ffi;
  int r = parse_target(target, &dt, &ffi);
  *handled = r >= 0;
  if (r < 0) return NULL;
  /* Typed-FFI calls (api_version 4: a backend_config dictionary) take the
   * FFI operands even under a legacy name. */
  const hlx_attr_t* cfg = hlx_op_attr(op, "mhlo.backend_config");
  if (!cfg) cfg = hlx_op_attr(op, "backend_config");
  const hlx_attr_t* api = hlx_op_attr(op, "api_version");
  ffi = ffi || (cfg && cfg->kind == HLX_ATTR_DICT) ||
        (api && api->kind == HLX_ATTR_INT && api->i == 4);
  jl_task_t* t = hlx_lower_alloc(c, sizeof *t);
  if (!t) return hlx_status_oom();
  memset(t, 0, sizeof *t);
  t->num_results = op->num_results;
  size_t nr = (size_t)(op->num_results ? op->num_results : 1);
  t->result_bytes = hlx_lower_alloc(c, sizeof(size_t) * nr);
  t->result_written = hlx_lower_alloc(c, sizeof(bool) * nr);
  if (!t->result_bytes || !t->result_written) return hlx_status_oom();
  memset(t->result_written, 0, sizeof(bool) * nr);
  for (int32_t i = 0; i < op->num_results; i++) {
    const hlx_type_t* rt = hlx_static_tensor(op->results[i]);
    if (!rt)
      return hlx_jax_error(op, target, HLX_STATUS_UNIMPLEMENTED,
                           "result #%d must be a static tensor", i);
    t->result_bytes[i] = hlx_tensor_bytes(rt);
  }
  t->la.routine = kRoutines[r].routine;
  t->la.dtype = dt;
  bool cplx = hlx_dtype_is_complex(dt);
  jl_ctx_t j = {.c = c, .op = op, .target = target, .t = t, .T = dt,
                .R = hlx_dtype_complex_part(dt),
                .C = dt == HLX_DTYPE_F32 ? HLX_DTYPE_C64
                     : dt == HLX_DTYPE_F64 ? HLX_DTYPE_C128 : dt,
                .cplx = cplx, .ffi = ffi};
  HLX_RETURN_IF_ERROR(kRoutines[r].spec(&j));
  const char* bad = hlx_lapack_invalid(&t->la);
  if (bad) return hlx_jax_error(op, target, HLX_STATUS_INVALID_ARGUMENT, "%s", bad);
  int32_t *ins, *outs, nin, nout;
  HLX_RETURN_IF_ERROR(hlx_lower_flatten(c, op, false, &ins, &nin));
  HLX_RETURN_IF_ERROR(hlx_lower_flatten(c, op, true, &outs, &nout));
  return hlx_lower_emit(c, op, run_lapack_task, t, nin, ins, nout, outs);
}
