/* FFTW3 plans for the fft op (see fftw.h). */
#include "kernels/libs/fftw.h"

#include <fftw3.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The transform a plan computes: its cache key. */
typedef struct fft_key_t {
  int32_t type; /* hlx_fft_type_t */
  int32_t dbl;  /* 1: fftw_ (f64/c128), 0: fftwf_ (f32/c64) */
  int32_t fft_rank;
  int32_t howmany; /* batch: product of the leading dims */
  int32_t n[3];    /* the real-side (logical) transform lengths */
} fft_key_t;

struct hlx_fftw_plan_t {
  fft_key_t key;
  size_t in_elems;  /* complex or real elements of the operand */
  size_t out_elems; /* of the result */
  double scale;     /* 1/N for IFFT/IRFFT, else 1 */
  union {
    fftwf_plan f;
    fftw_plan d;
  } plan;
  struct hlx_fftw_plan_t* next; /* cache list */
};

/* FFTW's planner (creating and destroying plans) is not thread-safe. */
static pthread_mutex_t g_planner = PTHREAD_MUTEX_INITIALIZER;
static hlx_fftw_plan_t* g_cache;

static unsigned planner_flags(void) {
  const char* m = getenv("HLX_FFTW_MEASURE");
  return (m && *m == '1' ? FFTW_MEASURE : FFTW_ESTIMATE) | FFTW_UNALIGNED;
}

static hlx_status_t unsupported(const char* why) {
  return hlx_make_status(HLX_STATUS_UNIMPLEMENTED, "FFTW: %s", why);
}

/* Makes the FFTW plan of p->key; planner lock held. MEASURE overwrites the
 * arrays it is given, so planning uses scratch arrays of the right size. */
static bool make_plan(hlx_fftw_plan_t* p) {
  const fft_key_t* k = &p->key;
  size_t cs = k->dbl ? sizeof(fftw_complex) : sizeof(fftwf_complex);
  size_t rs = k->dbl ? sizeof(double) : sizeof(float);
  bool in_real = k->type == HLX_FFT_RFFT, out_real = k->type == HLX_FFT_IRFFT;
  void* in = fftw_malloc(p->in_elems * (in_real ? rs : cs) + 64);
  void* out = fftw_malloc(p->out_elems * (out_real ? rs : cs) + 64);
  bool ok = false;
  if (in && out) {
    int r = k->fft_rank;
    int n_real = 1, n_cplx = 1;
    for (int i = 0; i < r; i++) {
      n_real *= k->n[i];
      n_cplx *= i == r - 1 ? k->n[i] / 2 + 1 : k->n[i];
    }
    unsigned flags = planner_flags();
    int sign = k->type == HLX_FFT_IFFT ? FFTW_BACKWARD : FFTW_FORWARD;
    if (k->dbl) {
      if (k->type == HLX_FFT_FFT || k->type == HLX_FFT_IFFT)
        p->plan.d = fftw_plan_many_dft(r, k->n, k->howmany, in, NULL, 1,
                                       n_real, out, NULL, 1, n_real, sign,
                                       flags);
      else if (k->type == HLX_FFT_RFFT)
        p->plan.d = fftw_plan_many_dft_r2c(r, k->n, k->howmany, in, NULL, 1,
                                           n_real, out, NULL, 1, n_cplx,
                                           flags);
      else
        p->plan.d = fftw_plan_many_dft_c2r(r, k->n, k->howmany, in, NULL, 1,
                                           n_cplx, out, NULL, 1, n_real,
                                           flags);
      ok = p->plan.d != NULL;
    } else {
      if (k->type == HLX_FFT_FFT || k->type == HLX_FFT_IFFT)
        p->plan.f = fftwf_plan_many_dft(r, k->n, k->howmany, in, NULL, 1,
                                        n_real, out, NULL, 1, n_real, sign,
                                        flags);
      else if (k->type == HLX_FFT_RFFT)
        p->plan.f = fftwf_plan_many_dft_r2c(r, k->n, k->howmany, in, NULL, 1,
                                            n_real, out, NULL, 1, n_cplx,
                                            flags);
      else
        p->plan.f = fftwf_plan_many_dft_c2r(r, k->n, k->howmany, in, NULL, 1,
                                            n_cplx, out, NULL, 1, n_real,
                                            flags);
      ok = p->plan.f != NULL;
    }
  }
  fftw_free(in);
  fftw_free(out);
  return ok;
}

hlx_status_t hlx_fftw_plan_get(hlx_fft_type_t type, hlx_dtype_t in_dtype,
                               int32_t rank, const int64_t* in_dims,
                               int32_t fft_rank, const int64_t* fft_length,
                               const hlx_fftw_plan_t** out) {
  *out = NULL;
  fft_key_t k;
  memset(&k, 0, sizeof k);
  k.type = (int32_t)type;
  bool complex_in = type == HLX_FFT_FFT || type == HLX_FFT_IFFT ||
                    type == HLX_FFT_IRFFT;
  if (in_dtype == (complex_in ? HLX_DTYPE_C64 : HLX_DTYPE_F32))
    k.dbl = 0;
  else if (in_dtype == (complex_in ? HLX_DTYPE_C128 : HLX_DTYPE_F64))
    k.dbl = 1;
  else
    return unsupported("element type");
  if (fft_rank < 1 || fft_rank > 3 || fft_rank > rank)
    return unsupported("fft rank");
  k.fft_rank = fft_rank;
  int64_t batch = 1, n_real = 1, n_cplx = 1;
  for (int32_t i = 0; i < rank - fft_rank; i++) batch *= in_dims[i];
  for (int32_t i = 0; i < fft_rank; i++) {
    int64_t n = fft_length[i];
    if (n < 1 || n > INT_MAX / 2) return unsupported("transform length");
    k.n[i] = (int32_t)n;
    n_real *= n;
    n_cplx *= i == fft_rank - 1 ? n / 2 + 1 : n;
    if (n_real > INT_MAX) return unsupported("transform size");
  }
  if (batch < 1 || batch > INT_MAX || batch > INT64_MAX / 4 / n_real)
    return unsupported("batch size");
  k.howmany = (int32_t)batch;

  pthread_mutex_lock(&g_planner);
  hlx_fftw_plan_t* p = g_cache;
  while (p && memcmp(&p->key, &k, sizeof k) != 0) p = p->next;
  hlx_status_t st = NULL;
  if (!p) {
    p = calloc(1, sizeof *p);
    if (!p) {
      st = hlx_status_oom();
    } else {
      p->key = k;
      p->in_elems = (size_t)(batch * (type == HLX_FFT_IRFFT ? n_cplx : n_real));
      p->out_elems = (size_t)(batch * (type == HLX_FFT_RFFT ? n_cplx : n_real));
      p->scale = type == HLX_FFT_IFFT || type == HLX_FFT_IRFFT
                     ? 1.0 / (double)n_real
                     : 1.0;
      if (make_plan(p)) {
        p->next = g_cache;
        g_cache = p;
      } else {
        free(p);
        p = NULL;
        st = unsupported("no plan for this transform");
      }
    }
  }
  pthread_mutex_unlock(&g_planner);
  *out = p;
  return st;
}

hlx_status_t hlx_fftw_execute(const hlx_fftw_plan_t* p, const void* in,
                              void* out) {
  const fft_key_t* k = &p->key;
  /* c2r transforms overwrite their input: give them a copy. */
  void* tmp = NULL;
  if (k->type == HLX_FFT_IRFFT) {
    size_t bytes = p->in_elems * (k->dbl ? sizeof(fftw_complex)
                                         : sizeof(fftwf_complex));
    tmp = malloc(bytes + 64);
    if (!tmp) return hlx_status_oom();
    memcpy(tmp, in, bytes);
    in = tmp;
  }
  void* src = (void*)in; /* FFTW's signatures are not const-correct */
  size_t n_out = p->out_elems * (k->type == HLX_FFT_IRFFT ? 1 : 2);
  if (k->dbl) {
    if (k->type == HLX_FFT_FFT || k->type == HLX_FFT_IFFT)
      fftw_execute_dft(p->plan.d, src, out);
    else if (k->type == HLX_FFT_RFFT)
      fftw_execute_dft_r2c(p->plan.d, src, out);
    else
      fftw_execute_dft_c2r(p->plan.d, src, out);
    if (p->scale != 1.0) {
      double* o = out;
      for (size_t i = 0; i < n_out; i++) o[i] *= p->scale;
    }
  } else {
    if (k->type == HLX_FFT_FFT || k->type == HLX_FFT_IFFT)
      fftwf_execute_dft(p->plan.f, src, out);
    else if (k->type == HLX_FFT_RFFT)
      fftwf_execute_dft_r2c(p->plan.f, src, out);
    else
      fftwf_execute_dft_c2r(p->plan.f, src, out);
    if (p->scale != 1.0) {
      float* o = out;
      float s = (float)p->scale;
      for (size_t i = 0; i < n_out; i++) o[i] *= s;
    }
  }
  free(tmp);
  return NULL;
}
