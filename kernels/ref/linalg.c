/* cholesky, triangular_solve and batch_norm_* reference kernels. */
#include "kernels/linalg.h"

#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/elementwise.h"

typedef double _Complex cplx;

static hlx_status_t bad_type(const char* op, hlx_dtype_t t) {
  return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                         "%s: element type %s is not a floating-point or "
                         "complex type",
                         op, hlx_dtype_name(t));
}

/* The working type of t: f64 for real floats, c128 for complex. */
static bool work_type(hlx_dtype_t t, hlx_dtype_t* w) {
  if (hlx_dtype_is_complex(t)) {
    *w = HLX_DTYPE_C128;
    return true;
  }
  if (hlx_dtype_is_float(t)) {
    *w = HLX_DTYPE_F64;
    return true;
  }
  return false;
}

/* Converted copy of n elements of x into a new buffer of type w. */
static void* widen(hlx_dtype_t t, hlx_dtype_t w, const void* x, int64_t n) {
  size_t bytes = (size_t)(n > 0 ? n : 1) * hlx_dtype_size(w);
  void* buf = malloc(bytes);
  if (!buf) return NULL;
  if (n > 0 && !hlx_ref_convert(t, x, w, buf, (size_t)n)) {
    free(buf);
    return NULL;
  }
  return buf;
}

/* ---- cholesky ------------------------------------------------------------ */

/* The k-th column loop of a right-looking-free (Cholesky-Crout) lower
 * factorization of the Hermitian matrix whose lower triangle is read by
 * A(i, j) (i >= j). */
#define CHOLESKY_BODY(T, CONJ, ABS2, SQRT)                                   \
  for (int64_t j = 0; j < n; j++) {                                          \
    double d = creal_or_self(A(j, j));                                      \
    for (int64_t k = 0; k < j; k++) d -= ABS2(L[j * n + k]);               \
    double piv = SQRT(d);                                                    \
    L[j * n + j] = piv;                                                      \
    for (int64_t i = j + 1; i < n; i++) {                                    \
      T s = A(i, j);                                                         \
      const T* li = L + i * n;                                               \
      const T* lj = L + j * n;                                               \
      for (int64_t k = 0; k < j; k++) s -= li[k] * CONJ(lj[k]);              \
      L[i * n + j] = s / piv;                                                \
    }                                                                        \
  }

static inline double creal_or_self_d(double x) { return x; }
static inline double abs2_d(double x) { return x * x; }
static inline double self_d(double x) { return x; }
static inline double abs2_c(cplx x) {
  return creal(x) * creal(x) + cimag(x) * cimag(x);
}

static void chol_real(int64_t n, bool lower, const double* a, double* L) {
  memset(L, 0, sizeof(double) * (size_t)(n * n));
#define creal_or_self creal_or_self_d
#define A(i, j) (lower ? a[(i) * n + (j)] : a[(j) * n + (i)])
  CHOLESKY_BODY(double, self_d, abs2_d, sqrt)
#undef A
#undef creal_or_self
}

static void chol_cplx(int64_t n, bool lower, const cplx* a, cplx* L) {
  memset(L, 0, sizeof(cplx) * (size_t)(n * n));
#define creal_or_self creal
#define A(i, j) (lower ? a[(i) * n + (j)] : conj(a[(j) * n + (i)]))
  CHOLESKY_BODY(cplx, conj, abs2_c, sqrt)
#undef A
#undef creal_or_self
}

hlx_status_t hlx_ref_cholesky(hlx_dtype_t t, int64_t batch, int64_t n,
                              bool lower, const void* a, void* out) {
  hlx_dtype_t w;
  if (!work_type(t, &w)) return bad_type("cholesky", t);
  if (batch < 0 || n < 0)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "cholesky: negative size");
  int64_t total = batch * n * n;
  if (total == 0) return NULL;
  void* wa = widen(t, w, a, total);
  void* wl = malloc((size_t)total * hlx_dtype_size(w));
  if (!wa || !wl) {
    free(wa);
    free(wl);
    return hlx_status_oom();
  }
  bool cx = w == HLX_DTYPE_C128;
  for (int64_t b = 0; b < batch; b++) {
    if (cx) {
      cplx* L = (cplx*)wl + b * n * n;
      chol_cplx(n, lower, (const cplx*)wa + b * n * n, L);
      if (!lower) /* U = L^H */
        for (int64_t i = 0; i < n; i++)
          for (int64_t j = i + 1; j < n; j++) {
            L[i * n + j] = conj(L[j * n + i]);
            L[j * n + i] = 0;
          }
      if (!lower)
        for (int64_t i = 0; i < n; i++) L[i * n + i] = conj(L[i * n + i]);
    } else {
      double* L = (double*)wl + b * n * n;
      chol_real(n, lower, (const double*)wa + b * n * n, L);
      if (!lower)
        for (int64_t i = 0; i < n; i++)
          for (int64_t j = i + 1; j < n; j++) {
            L[i * n + j] = L[j * n + i];
            L[j * n + i] = 0;
          }
    }
  }
  bool ok = hlx_ref_convert(w, wl, t, out, (size_t)total);
  free(wa);
  free(wl);
  return ok ? NULL : bad_type("cholesky", t);
}

/* ---- triangular_solve ---------------------------------------------------- */

/* Solves with the dense k x k matrix M = op(a) (triangle and unit diagonal
 * already applied), lower-triangular when `low`. x (m x n) holds b on entry.
 */
#define TRSM_BODY(T)                                                         \
  if (left) {                                                                \
    /* M x = b, row by row of x. */                                          \
    for (int64_t s = 0; s < m; s++) {                                        \
      int64_t i = low ? s : m - 1 - s;                                       \
      T* xi = x + i * n;                                                     \
      int64_t j0 = low ? 0 : i + 1, j1 = low ? i : m;                        \
      for (int64_t j = j0; j < j1; j++) {                                    \
        T f = M[i * m + j];                                                  \
        if (f == 0) continue;                                                \
        const T* xj = x + j * n;                                             \
        for (int64_t c = 0; c < n; c++) xi[c] -= f * xj[c];                  \
      }                                                                      \
      T d = M[i * m + i];                                                    \
      for (int64_t c = 0; c < n; c++) xi[c] /= d;                            \
    }                                                                        \
  } else {                                                                   \
    /* x M = b: for each row r, x_r[j] = (b_r[j] - sum x_r[i] M[i][j]) /    \
     * M[j][j], i over the solved side. */                                   \
    for (int64_t r = 0; r < m; r++) {                                        \
      T* xr = x + r * n;                                                     \
      for (int64_t s = 0; s < n; s++) {                                      \
        int64_t j = low ? n - 1 - s : s;                                     \
        T v = xr[j];                                                         \
        int64_t i0 = low ? j + 1 : 0, i1 = low ? n : j;                      \
        for (int64_t i = i0; i < i1; i++) v -= xr[i] * M[i * n + j];         \
        xr[j] = v / M[j * n + j];                                            \
      }                                                                      \
    }                                                                        \
  }

static void trsm_real(int64_t m, int64_t n, bool left, bool low,
                      const double* M, double* x) {
  TRSM_BODY(double)
}

static void trsm_cplx(int64_t m, int64_t n, bool left, bool low,
                      const cplx* M, cplx* x) {
  TRSM_BODY(cplx)
}

hlx_status_t hlx_ref_triangular_solve(hlx_dtype_t t, int64_t batch,
                                      int64_t m, int64_t n, bool left_side,
                                      bool lower, bool unit_diagonal,
                                      hlx_transpose_t transpose_a,
                                      const void* a, const void* b,
                                      void* out) {
  hlx_dtype_t w;
  if (!work_type(t, &w)) return bad_type("triangular_solve", t);
  if (batch < 0 || m < 0 || n < 0)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "triangular_solve: negative size");
  if (transpose_a != HLX_TRANSPOSE_NO && transpose_a != HLX_TRANSPOSE_T &&
      transpose_a != HLX_TRANSPOSE_ADJOINT)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "triangular_solve: bad transpose_a %d",
                           (int)transpose_a);
  int64_t k = left_side ? m : n;
  int64_t na = batch * k * k, nb = batch * m * n;
  if (nb == 0) return NULL;
  bool cx = w == HLX_DTYPE_C128;
  size_t es = hlx_dtype_size(w);
  void* wa = widen(t, w, a, na);
  void* wx = widen(t, w, b, nb);
  void* M = malloc((size_t)(k * k > 0 ? k * k : 1) * es);
  if (!wa || !wx || !M) {
    free(wa);
    free(wx);
    free(M);
    return hlx_status_oom();
  }
  bool trans = transpose_a != HLX_TRANSPOSE_NO;
  bool conj_a = transpose_a == HLX_TRANSPOSE_ADJOINT;
  bool low = lower != trans; /* op(a) is lower-triangular */
  for (int64_t bi = 0; bi < batch; bi++) {
    /* M[i][j] = op(tri(a))[i][j]. */
    for (int64_t i = 0; i < k; i++)
      for (int64_t j = 0; j < k; j++) {
        int64_t r = trans ? j : i, c = trans ? i : j; /* index into a */
        bool in_tri = lower ? r >= c : r <= c;
        if (cx) {
          cplx v = 0;
          if (r == c && unit_diagonal)
            v = 1;
          else if (in_tri)
            v = ((const cplx*)wa)[bi * k * k + r * k + c];
          if (conj_a) v = conj(v);
          ((cplx*)M)[i * k + j] = v;
        } else {
          double v = 0;
          if (r == c && unit_diagonal)
            v = 1;
          else if (in_tri)
            v = ((const double*)wa)[bi * k * k + r * k + c];
          ((double*)M)[i * k + j] = v;
        }
      }
    if (cx) {
      trsm_cplx(m, n, left_side, low, M, (cplx*)wx + bi * m * n);
    } else {
      trsm_real(m, n, left_side, low, M, (double*)wx + bi * m * n);
    }
  }
  bool ok = hlx_ref_convert(w, wx, t, out, (size_t)nb);
  free(wa);
  free(wx);
  free(M);
  return ok ? NULL : bad_type("triangular_solve", t);
}

/* ---- batch norm ---------------------------------------------------------- */

static hlx_status_t bn_type(const char* op, hlx_dtype_t t) {
  if (hlx_dtype_is_float(t)) return NULL;
  return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                         "%s: element type %s is not a floating-point type",
                         op, hlx_dtype_name(t));
}

/* Widens `count` tensors (sizes in ns) into one f64 allocation. */
static double* widen_all(hlx_dtype_t t, int count, const void* const* xs,
                         const int64_t* ns, double** parts) {
  int64_t total = 0;
  for (int i = 0; i < count; i++) total += ns[i];
  double* buf = malloc(sizeof(double) * (size_t)(total > 0 ? total : 1));
  if (!buf) return NULL;
  int64_t off = 0;
  for (int i = 0; i < count; i++) {
    parts[i] = buf + off;
    if (xs[i] && ns[i] > 0)
      hlx_ref_convert(t, xs[i], HLX_DTYPE_F64, parts[i], (size_t)ns[i]);
    off += ns[i];
  }
  return buf;
}

static void bn_normalize(int64_t outer, int64_t c, int64_t inner,
                         const double* x, const double* scale,
                         const double* offset, const double* mean,
                         const double* var, double eps, double* y) {
  for (int64_t f = 0; f < c; f++) {
    double sd = sqrt(var[f] + eps);
    for (int64_t o = 0; o < outer; o++) {
      const double* xp = x + (o * c + f) * inner;
      double* yp = y + (o * c + f) * inner;
      for (int64_t i = 0; i < inner; i++)
        yp[i] = scale[f] * ((xp[i] - mean[f]) / sd) + offset[f];
    }
  }
}

hlx_status_t hlx_ref_batch_norm_inference(
    hlx_dtype_t t, int64_t outer, int64_t c, int64_t inner,
    const void* operand, const void* scale, const void* offset,
    const void* mean, const void* variance, float epsilon, void* result) {
  HLX_RETURN_IF_ERROR(bn_type("batch_norm_inference", t));
  int64_t n = outer * c * inner;
  const void* xs[6] = {operand, scale, offset, mean, variance, NULL};
  int64_t ns[6] = {n, c, c, c, c, n};
  double* p[6];
  double* buf = widen_all(t, 6, xs, ns, p);
  if (!buf) return hlx_status_oom();
  bn_normalize(outer, c, inner, p[0], p[1], p[2], p[3], p[4], epsilon, p[5]);
  if (n > 0) hlx_ref_convert(HLX_DTYPE_F64, p[5], t, result, (size_t)n);
  free(buf);
  return NULL;
}

/* Per-feature mean of x over outer and inner. */
static void bn_mean(int64_t outer, int64_t c, int64_t inner, const double* x,
                    double* mean) {
  double cnt = (double)(outer * inner);
  for (int64_t f = 0; f < c; f++) {
    double s = 0;
    for (int64_t o = 0; o < outer; o++) {
      const double* xp = x + (o * c + f) * inner;
      for (int64_t i = 0; i < inner; i++) s += xp[i];
    }
    mean[f] = s / cnt;
  }
}

hlx_status_t hlx_ref_batch_norm_training(
    hlx_dtype_t t, int64_t outer, int64_t c, int64_t inner,
    const void* operand, const void* scale, const void* offset,
    float epsilon, void* output, void* batch_mean, void* batch_var) {
  HLX_RETURN_IF_ERROR(bn_type("batch_norm_training", t));
  int64_t n = outer * c * inner;
  const void* xs[6] = {operand, scale, offset, NULL, NULL, NULL};
  int64_t ns[6] = {n, c, c, c, c, n};
  double* p[6];
  double* buf = widen_all(t, 6, xs, ns, p);
  if (!buf) return hlx_status_oom();
  double *x = p[0], *mean = p[3], *var = p[4], *y = p[5];
  bn_mean(outer, c, inner, x, mean);
  double cnt = (double)(outer * inner);
  for (int64_t f = 0; f < c; f++) {
    double s = 0;
    for (int64_t o = 0; o < outer; o++) {
      const double* xp = x + (o * c + f) * inner;
      for (int64_t i = 0; i < inner; i++) {
        double d = xp[i] - mean[f];
        s += d * d;
      }
    }
    var[f] = s / cnt;
  }
  bn_normalize(outer, c, inner, x, p[1], p[2], mean, var, epsilon, y);
  if (n > 0) hlx_ref_convert(HLX_DTYPE_F64, y, t, output, (size_t)n);
  if (c > 0) {
    hlx_ref_convert(HLX_DTYPE_F64, mean, t, batch_mean, (size_t)c);
    hlx_ref_convert(HLX_DTYPE_F64, var, t, batch_var, (size_t)c);
  }
  free(buf);
  return NULL;
}

hlx_status_t hlx_ref_batch_norm_grad(
    hlx_dtype_t t, int64_t outer, int64_t c, int64_t inner,
    const void* operand, const void* scale, const void* mean,
    const void* variance, const void* grad_output, float epsilon,
    void* grad_operand, void* grad_scale, void* grad_offset) {
  HLX_RETURN_IF_ERROR(bn_type("batch_norm_grad", t));
  int64_t n = outer * c * inner;
  const void* xs[8] = {operand, scale, mean, variance, grad_output,
                       NULL,    NULL,  NULL};
  int64_t ns[8] = {n, c, c, c, n, n, c, c};
  double* p[8];
  double* buf = widen_all(t, 8, xs, ns, p);
  if (!buf) return hlx_status_oom();
  const double *x = p[0], *sc = p[1], *mu = p[2], *var = p[3], *gy = p[4];
  double *gx = p[5], *gsc = p[6], *goff = p[7];
  double epf = (double)(outer * inner); /* elements_per_feature */
  double eps = epsilon;
  for (int64_t f = 0; f < c; f++) {
    double sd = sqrt(var[f] + eps);
    double sum_gy = 0, sum_gy_xc = 0, sum_gy_norm = 0;
    for (int64_t o = 0; o < outer; o++) {
      const double* xp = x + (o * c + f) * inner;
      const double* gp = gy + (o * c + f) * inner;
      for (int64_t i = 0; i < inner; i++) {
        double xc = xp[i] - mu[f];
        sum_gy += gp[i];
        sum_gy_xc += gp[i] * xc;
        sum_gy_norm += gp[i] * (xc / sd);
      }
    }
    gsc[f] = sum_gy_norm;
    goff[f] = sum_gy;
    double k = sc[f] / sd / epf;
    for (int64_t o = 0; o < outer; o++) {
      const double* xp = x + (o * c + f) * inner;
      const double* gp = gy + (o * c + f) * inner;
      double* op = gx + (o * c + f) * inner;
      for (int64_t i = 0; i < inner; i++) {
        double xc = xp[i] - mu[f];
        double i1 = gp[i] * epf;
        double i5 = sum_gy_xc * xc / (var[f] + eps);
        op[i] = k * (i1 - sum_gy - i5);
      }
    }
  }
  if (n > 0) hlx_ref_convert(HLX_DTYPE_F64, gx, t, grad_operand, (size_t)n);
  if (c > 0) {
    hlx_ref_convert(HLX_DTYPE_F64, gsc, t, grad_scale, (size_t)c);
    hlx_ref_convert(HLX_DTYPE_F64, goff, t, grad_offset, (size_t)c);
  }
  free(buf);
  return NULL;
}
