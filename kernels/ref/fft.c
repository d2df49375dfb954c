/* fft: mixed-radix Cooley-Tukey (prime factors up to kMaxRadix) or
 * Bluestein, in long double, one 1-D transform per line along each axis
 * (see kernels/fft.h). */
#include "kernels/fft.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef long double real_t;
typedef struct cplx_t {
  real_t re, im;
} cplx_t;

enum { kMaxRadix = 64, kMaxFactors = 64 };

static const real_t kTwoPi =
    6.283185307179586476925286766559005768394338798750211641949889L;

static inline cplx_t cmul(cplx_t a, cplx_t b) {
  cplx_t r = {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
  return r;
}

/* exp(-2 pi i k / n) for 0 <= k < n, using the symmetric half of the
 * circle for accuracy. */
static cplx_t root(uint64_t k, uint64_t n) {
  cplx_t r;
  bool neg = false;
  if (2 * k > n) { /* exp(-2 pi i k/n) = conj(exp(-2 pi i (n-k)/n)) */
    k = n - k;
    neg = true;
  }
  real_t ang = kTwoPi * (real_t)k / (real_t)n;
  r.re = cosl(ang);
  r.im = -sinl(ang);
  if (neg) r.im = -r.im;
  return r;
}

/* ---- 1-D plans -------------------------------------------------------------- */

typedef struct plan1d_t plan1d_t;
struct plan1d_t {
  int64_t n;
  bool bluestein;
  /* mixed radix */
  int32_t num_factors;
  int32_t factors[kMaxFactors];
  cplx_t* w; /* w[k] = exp(-2 pi i k / n) */
  /* bluestein */
  int64_t m;         /* power of two >= 2n - 1 */
  plan1d_t* inner;   /* mixed-radix plan of size m */
  cplx_t* chirp;     /* exp(-pi i k^2 / n), k < n */
  cplx_t* bfft;      /* forward transform of the conjugate chirp, size m */
  cplx_t* scratch;   /* 2m */
};

static void plan_destroy(plan1d_t* p) {
  if (!p) return;
  plan_destroy(p->inner);
  free(p->w);
  free(p->chirp);
  free(p->bfft);
  free(p->scratch);
  free(p);
}

static void fft_forward(const plan1d_t* p, const cplx_t* in, cplx_t* out);

/* Recursive decimation in time: out[0..n) = DFT of in[0], in[s], ...
 * factors[0..] multiply to n; w is the full table of size N with
 * wstep = N / n. */
static void rec(const cplx_t* in, int64_t s, cplx_t* out, int64_t n,
                const int32_t* factors, const cplx_t* w, int64_t wstep,
                int64_t big_n) {
  int64_t p = factors[0], m = n / p;
  if (m == 1) {
    if (p == 2) {
      cplx_t a = in[0], b = in[s];
      out[0].re = a.re + b.re;
      out[0].im = a.im + b.im;
      out[1].re = a.re - b.re;
      out[1].im = a.im - b.im;
      return;
    }
    for (int64_t q = 0; q < p; q++) {
      cplx_t acc = {0, 0};
      for (int64_t j = 0; j < p; j++) {
        cplx_t t = cmul(in[j * s], w[((j * q) % p) * wstep]);
        acc.re += t.re;
        acc.im += t.im;
      }
      out[q] = acc;
    }
    return;
  }
  for (int64_t j = 0; j < p; j++)
    rec(in + j * s, s * p, out + j * m, m, factors + 1, w, wstep * p, big_n);
  cplx_t t[kMaxRadix];
  for (int64_t k = 0; k < m; k++) {
    for (int64_t j = 0; j < p; j++) {
      cplx_t y = out[j * m + k];
      t[j] = j == 0 ? y : cmul(y, w[(j * k) * wstep]);
    }
    if (p == 2) {
      out[k].re = t[0].re + t[1].re;
      out[k].im = t[0].im + t[1].im;
      out[k + m].re = t[0].re - t[1].re;
      out[k + m].im = t[0].im - t[1].im;
      continue;
    }
    for (int64_t q = 0; q < p; q++) {
      cplx_t acc = t[0];
      for (int64_t j = 1; j < p; j++) {
        /* W_p^(jq) = W_n^(jqm) = w[(jqm mod n) * wstep] */
        cplx_t r = cmul(t[j], w[(((j * q) % p) * m) * wstep]);
        acc.re += r.re;
        acc.im += r.im;
      }
      out[k + q * m] = acc;
    }
  }
  (void)big_n;
}

static plan1d_t* plan_create(int64_t n);

static bool factorize(int64_t n, int32_t* f, int32_t* nf) {
  *nf = 0;
  static const int32_t kFirst[] = {4, 2, 3, 5};
  for (size_t i = 0; i < 4; i++)
    while (n % kFirst[i] == 0 && n > 1) {
      f[(*nf)++] = kFirst[i];
      n /= kFirst[i];
    }
  for (int64_t p = 7; n > 1 && p <= kMaxRadix; p += 2)
    while (n % p == 0) {
      f[(*nf)++] = (int32_t)p;
      n /= p;
    }
  if (*nf == 0) f[(*nf)++] = 1; /* n == 1 */
  return n == 1;
}

static plan1d_t* plan_create(int64_t n) {
  plan1d_t* p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->n = n;
  if (n <= 1) return p;
  if (factorize(n, p->factors, &p->num_factors)) {
    p->w = malloc((size_t)n * sizeof(cplx_t));
    if (!p->w) goto oom;
    for (int64_t k = 0; k < n; k++) p->w[k] = root((uint64_t)k, (uint64_t)n);
    return p;
  }
  /* Bluestein: X_k = c_k sum_j (x_j c_j) conj(c_{k-j}), c_k = e^{-pi i k^2/n}. */
  p->bluestein = true;
  int64_t m = 1;
  while (m < 2 * n - 1) m *= 2;
  p->m = m;
  p->inner = plan_create(m);
  p->chirp = malloc((size_t)n * sizeof(cplx_t));
  p->bfft = malloc((size_t)m * sizeof(cplx_t));
  p->scratch = malloc(2 * (size_t)m * sizeof(cplx_t));
  if (!p->inner || !p->chirp || !p->bfft || !p->scratch) goto oom;
  for (int64_t k = 0; k < n; k++) {
    /* e^{-pi i k^2 / n} = root(k^2 mod 2n, 2n) */
    uint64_t k2 = ((uint64_t)k * (uint64_t)k) % (2 * (uint64_t)n);
    p->chirp[k] = root(k2, 2 * (uint64_t)n);
  }
  cplx_t* b = p->scratch;
  memset(b, 0, (size_t)m * sizeof(cplx_t));
  for (int64_t k = 0; k < n; k++) {
    cplx_t c = {p->chirp[k].re, -p->chirp[k].im};
    b[k] = c;
    if (k) b[m - k] = c;
  }
  fft_forward(p->inner, b, p->bfft);
  return p;
oom:
  plan_destroy(p);
  return NULL;
}

/* out = forward DFT of in (n elements); in and out must not overlap. */
static void fft_forward(const plan1d_t* p, const cplx_t* in, cplx_t* out) {
  int64_t n = p->n;
  if (n == 0) return;
  if (n == 1) {
    out[0] = in[0];
    return;
  }
  if (!p->bluestein) {
    rec(in, 1, out, n, p->factors, p->w, 1, n);
    return;
  }
  int64_t m = p->m;
  cplx_t* a = p->scratch;
  cplx_t* fa = p->scratch + m;
  for (int64_t k = 0; k < n; k++) a[k] = cmul(in[k], p->chirp[k]);
  for (int64_t k = n; k < m; k++) a[k].re = a[k].im = 0;
  fft_forward(p->inner, a, fa);
  /* inverse via conj(fft(conj(.))) / m */
  for (int64_t k = 0; k < m; k++) {
    cplx_t t = cmul(fa[k], p->bfft[k]);
    a[k].re = t.re;
    a[k].im = -t.im;
  }
  fft_forward(p->inner, a, fa);
  real_t inv = 1.0L / (real_t)m;
  for (int64_t k = 0; k < n; k++) {
    cplx_t conv = {fa[k].re * inv, -fa[k].im * inv};
    out[k] = cmul(conv, p->chirp[k]);
  }
}

/* One line: forward, or inverse (conj trick, scaled by 1/n). */
static void fft_line(const plan1d_t* p, bool inverse, cplx_t* in,
                     cplx_t* out) {
  int64_t n = p->n;
  if (!inverse) {
    fft_forward(p, in, out);
    return;
  }
  for (int64_t k = 0; k < n; k++) in[k].im = -in[k].im;
  fft_forward(p, in, out);
  real_t inv = 1.0L / (real_t)n;
  for (int64_t k = 0; k < n; k++) {
    out[k].re = out[k].re * inv;
    out[k].im = -out[k].im * inv;
  }
}

/* Transforms `work` (shape dims[0..rank)) along `axis` in place. */
static bool transform_axis(cplx_t* work, int32_t rank, const int64_t* dims,
                           int32_t axis, bool inverse) {
  int64_t n = dims[axis], outer = 1, inner = 1;
  for (int32_t d = 0; d < axis; d++) outer *= dims[d];
  for (int32_t d = axis + 1; d < rank; d++) inner *= dims[d];
  if (n <= 1 || outer == 0 || inner == 0) return true; /* identity */
  plan1d_t* p = plan_create(n);
  cplx_t* a = malloc(2 * (size_t)n * sizeof(cplx_t));
  if (!p || !a) {
    plan_destroy(p);
    free(a);
    return false;
  }
  cplx_t* b = a + n;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t j = 0; j < inner; j++) {
      cplx_t* base = work + o * n * inner + j;
      for (int64_t k = 0; k < n; k++) a[k] = base[k * inner];
      fft_line(p, inverse, a, b);
      for (int64_t k = 0; k < n; k++) base[k * inner] = b[k];
    }
  plan_destroy(p);
  free(a);
  return true;
}

/* ---- loads / stores ---------------------------------------------------------- */

static void load_complex(hlx_dtype_t t, const void* in, size_t i, cplx_t* c) {
  if (t == HLX_DTYPE_C64) {
    const float* f = (const float*)in + 2 * i;
    c->re = f[0];
    c->im = f[1];
  } else {
    const double* d = (const double*)in + 2 * i;
    c->re = d[0];
    c->im = d[1];
  }
}

static void store_complex(hlx_dtype_t t, void* out, size_t i, cplx_t c) {
  if (t == HLX_DTYPE_C64) {
    float* f = (float*)out + 2 * i;
    f[0] = (float)c.re;
    f[1] = (float)c.im;
  } else {
    double* d = (double*)out + 2 * i;
    d[0] = (double)c.re;
    d[1] = (double)c.im;
  }
}

static bool pair_ok(hlx_fft_type_t type, hlx_dtype_t in, hlx_dtype_t out) {
  switch (type) {
    case HLX_FFT_FFT:
    case HLX_FFT_IFFT:
      return in == out && (in == HLX_DTYPE_C64 || in == HLX_DTYPE_C128);
    case HLX_FFT_RFFT:
      return (in == HLX_DTYPE_F32 && out == HLX_DTYPE_C64) ||
             (in == HLX_DTYPE_F64 && out == HLX_DTYPE_C128);
    case HLX_FFT_IRFFT:
      return (in == HLX_DTYPE_C64 && out == HLX_DTYPE_F32) ||
             (in == HLX_DTYPE_C128 && out == HLX_DTYPE_F64);
  }
  return false;
}

hlx_status_t hlx_ref_fft(hlx_fft_type_t type, hlx_dtype_t in_dtype,
                         hlx_dtype_t out_dtype, int32_t rank,
                         const int64_t* in_dims, int32_t fft_rank,
                         const int64_t* fft_length, const void* in,
                         void* out) {
  if (!pair_ok(type, in_dtype, out_dtype))
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "fft: unsupported element types %s -> %s",
                           hlx_dtype_name(in_dtype), hlx_dtype_name(out_dtype));
  if (fft_rank < 1 || fft_rank > 3 || fft_rank > rank || rank > 64)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "fft: fft_length has %d entries for rank %d",
                           (int)fft_rank, (int)rank);
  int32_t first = rank - fft_rank;
  int64_t last_n = fft_length[fft_rank - 1];
  int64_t half = last_n == 0 ? 0 : last_n / 2 + 1;
  /* The full complex shape the transforms run on. */
  int64_t dims[64];
  for (int32_t d = 0; d < rank; d++) dims[d] = in_dims[d];
  for (int32_t i = 0; i < fft_rank; i++) {
    int64_t want = fft_length[i], have = in_dims[first + i];
    if (type == HLX_FFT_IRFFT && i == fft_rank - 1) want = half;
    if (want < 0 || have != want)
      return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                             "fft: operand dim %d is %lld, fft_length needs "
                             "%lld",
                             (int)(first + i), (long long)have,
                             (long long)want);
  }
  if (type == HLX_FFT_IRFFT) dims[rank - 1] = last_n;
  int64_t total = 1;
  for (int32_t d = 0; d < rank; d++) total *= dims[d];
  if (total == 0) return NULL;

  if (type == HLX_FFT_IRFFT) {
    /* Inverse along the other fft axes on the half spectrum, then a
     * Hermitian extension and inverse along the last. */
    int64_t hdims[64];
    memcpy(hdims, dims, sizeof(int64_t) * (size_t)rank);
    hdims[rank - 1] = half;
    int64_t htotal = total / last_n * half;
    cplx_t* work = malloc((size_t)htotal * sizeof(cplx_t));
    cplx_t* line = malloc(2 * (size_t)last_n * sizeof(cplx_t));
    plan1d_t* p = plan_create(last_n);
    bool ok = work && line && p;
    if (ok) {
      for (int64_t i = 0; i < htotal; i++)
        load_complex(in_dtype, in, (size_t)i, &work[i]);
      for (int32_t ax = rank - 2; ok && ax >= first; ax--)
        ok = transform_axis(work, rank, hdims, ax, true);
    }
    if (ok) {
      int64_t lines = htotal / half;
      cplx_t* res = line + last_n;
      for (int64_t l = 0; l < lines; l++) {
        const cplx_t* h = work + l * half;
        for (int64_t k = 0; k < last_n; k++) {
          if (k < half) {
            line[k] = h[k];
          } else {
            line[k].re = h[last_n - k].re;
            line[k].im = -h[last_n - k].im;
          }
        }
        fft_line(p, true, line, res);
        for (int64_t k = 0; k < last_n; k++) {
          if (out_dtype == HLX_DTYPE_F32)
            ((float*)out)[l * last_n + k] = (float)res[k].re;
          else
            ((double*)out)[l * last_n + k] = (double)res[k].re;
        }
      }
    }
    free(work);
    free(line);
    plan_destroy(p);
    return ok ? NULL : hlx_status_oom();
  }

  cplx_t* work = malloc((size_t)total * sizeof(cplx_t));
  if (!work) return hlx_status_oom();
  if (type == HLX_FFT_RFFT) {
    for (int64_t i = 0; i < total; i++) {
      work[i].re = in_dtype == HLX_DTYPE_F32 ? (real_t)((const float*)in)[i]
                                             : (real_t)((const double*)in)[i];
      work[i].im = 0;
    }
  } else {
    for (int64_t i = 0; i < total; i++)
      load_complex(in_dtype, in, (size_t)i, &work[i]);
  }
  bool inverse = type == HLX_FFT_IFFT;
  bool ok = true;
  for (int32_t ax = rank - 1; ok && ax >= first; ax--)
    ok = transform_axis(work, rank, dims, ax, inverse);
  if (ok) {
    if (type == HLX_FFT_RFFT) {
      int64_t lines = total / last_n;
      for (int64_t l = 0; l < lines; l++)
        for (int64_t k = 0; k < half; k++)
          store_complex(out_dtype, out, (size_t)(l * half + k),
                        work[l * last_n + k]);
    } else {
      for (int64_t i = 0; i < total; i++)
        store_complex(out_dtype, out, (size_t)i, work[i]);
    }
  }
  free(work);
  return ok ? NULL : hlx_status_oom();
}
