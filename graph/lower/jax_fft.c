/* JAX's CPU FFT targets: ducc_fft (descriptor: a DuccFftDescriptor
 * flatbuffer as a ui8 constant operand, then the operand) and
 * dynamic_ducc_fft (descriptor DynamicDuccFftDescriptor {ndims, dtype,
 * fft_type, axes, forward}; operands descriptor, x, shape, strides_in,
 * strides_out, scale[1], output shape), run on the fft op's FFTW plans
 * (kernels/libs/fftw.h). ducc computes the unnormalised transform times
 * `scale`; hlx's IFFT / IRFFT divide by n, so the result is multiplied by
 * scale (forward) or scale * n (backward) unless that is 1. Only the
 * trailing axes in order with row-major strides (what JAX writes) are
 * supported. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/lower/jax.h"
#include "kernels/fft.h"
#include "kernels/libs/fftw.h"

/* ---- A minimal flatbuffer reader ------------------------------------------ */

typedef struct fb_t {
  const uint8_t* p;
  size_t n;
} fb_t;

static bool fb_u32(const fb_t* b, size_t off, uint32_t* v) {
  if (off > b->n || b->n - off < 4) return false;
  *v = (uint32_t)b->p[off] | (uint32_t)b->p[off + 1] << 8 |
       (uint32_t)b->p[off + 2] << 16 | (uint32_t)b->p[off + 3] << 24;
  return true;
}

static bool fb_u16(const fb_t* b, size_t off, uint32_t* v) {
  if (off > b->n || b->n - off < 2) return false;
  *v = (uint32_t)b->p[off] | (uint32_t)b->p[off + 1] << 8;
  return true;
}

/* Offset of field `id` of the table at `tab` (0: absent); false: corrupt. */
static bool fb_field(const fb_t* b, size_t tab, int id, size_t* off) {
  uint32_t rel, vsize, foff = 0;
  if (!fb_u32(b, tab, &rel)) return false;
  int64_t vt = (int64_t)tab - (int32_t)rel;
  if (vt < 0 || !fb_u16(b, (size_t)vt, &vsize)) return false;
  if (4 + 2 * (uint32_t)id < vsize &&
      !fb_u16(b, (size_t)vt + 4 + 2 * (size_t)id, &foff))
    return false;
  *off = foff ? tab + foff : 0;
  return *off <= b->n;
}

static bool fb_byte(const fb_t* b, size_t tab, int id, uint8_t* v) {
  size_t off;
  if (!fb_field(b, tab, id, &off)) return false;
  *v = 0;
  if (!off) return true;
  if (off >= b->n) return false;
  *v = b->p[off];
  return true;
}

/* Vector field of `width`-byte unsigned integers (at most max). */
static bool fb_uvec(const fb_t* b, size_t tab, int id, int width,
                    int64_t* out, int32_t max, int32_t* n) {
  size_t off;
  uint32_t rel, len;
  *n = 0;
  if (!fb_field(b, tab, id, &off)) return false;
  if (!off) return true;
  if (!fb_u32(b, off, &rel) || !fb_u32(b, off + rel, &len) ||
      len > (uint32_t)max)
    return false;
  size_t at = off + rel + 4;
  for (uint32_t i = 0; i < len; i++) {
    uint32_t lo, hi = 0;
    if (!fb_u32(b, at + (size_t)i * (size_t)width, &lo) ||
        (width == 8 && !fb_u32(b, at + (size_t)i * 8 + 4, &hi)))
      return false;
    out[i] = (int64_t)((uint64_t)hi << 32 | lo);
  }
  *n = (int32_t)len;
  return true;
}

/* ---- The descriptor --------------------------------------------------------- */

typedef struct ducc_desc_t {
  uint8_t dtype;    /* 0: complex64, 1: complex128 */
  uint8_t fft_type; /* 0: C2C, 1: C2R, 2: R2C */
  bool forward;
  int32_t ndims, naxes, nshape, nsin, nsout;
  int64_t axes[HLX_MAX_RANK], shape[HLX_MAX_RANK];
  int64_t strides_in[HLX_MAX_RANK], strides_out[HLX_MAX_RANK];
  double scale;
} ducc_desc_t;

static bool read_desc(const fb_t* b, bool dynamic, ducc_desc_t* d) {
  uint32_t root;
  uint8_t fwd;
  memset(d, 0, sizeof *d);
  if (!fb_u32(b, 0, &root)) return false;
  if (dynamic) {
    size_t off;
    uint32_t nd = 0;
    if (!fb_field(b, root, 0, &off) || (off && !fb_u32(b, off, &nd)))
      return false;
    d->ndims = (int32_t)nd;
    return nd <= HLX_MAX_RANK && fb_byte(b, root, 1, &d->dtype) &&
           fb_byte(b, root, 2, &d->fft_type) &&
           fb_uvec(b, root, 3, 4, d->axes, HLX_MAX_RANK, &d->naxes) &&
           fb_byte(b, root, 4, &fwd) && ((d->forward = fwd), true);
  }
  size_t soff;
  if (!fb_byte(b, root, 0, &d->dtype) || !fb_byte(b, root, 1, &d->fft_type) ||
      !fb_uvec(b, root, 2, 8, d->shape, HLX_MAX_RANK, &d->nshape) ||
      !fb_uvec(b, root, 3, 8, d->strides_in, HLX_MAX_RANK, &d->nsin) ||
      !fb_uvec(b, root, 4, 8, d->strides_out, HLX_MAX_RANK, &d->nsout) ||
      !fb_uvec(b, root, 5, 4, d->axes, HLX_MAX_RANK, &d->naxes) ||
      !fb_byte(b, root, 6, &fwd) || !fb_field(b, root, 7, &soff))
    return false;
  d->forward = fwd;
  d->ndims = d->nshape;
  if (soff) {
    if (soff > b->n || b->n - soff < 8) return false;
    memcpy(&d->scale, b->p + soff, 8);
  }
  return true;
}

/* ---- The task ---------------------------------------------------------------- */

typedef struct ducc_args_t {
  hlx_fft_type_t type;
  hlx_dtype_t in_dtype, out_dtype;
  int32_t rank, fft_rank;
  int64_t dims[HLX_MAX_RANK], out_dims[HLX_MAX_RANK];
  int64_t real_dims[HLX_MAX_RANK]; /* ducc's shape: the real side */
  int64_t fft_length[3];
  int64_t n; /* elements of one transform */
  bool dynamic;
  double scale; /* static descriptor's */
  int64_t out_elems;
  hlx_fftw_plan_t* fftw;
  const char* target;
} ducc_args_t;

/* dynamic_ducc_fft's shape and strides operands must be what was planned. */
static hlx_status_t check_dynamic(const ducc_args_t* a, void* const* in) {
  const int32_t* shape = in[2];
  const int32_t *sin = in[3], *sout = in[4];
  int64_t rin[HLX_MAX_RANK], rout[HLX_MAX_RANK];
  int64_t s1 = 1, s2 = 1;
  for (int32_t d = a->rank - 1; d >= 0; d--) {
    rin[d] = s1;
    rout[d] = s2;
    s1 *= a->dims[d];
    s2 *= a->out_dims[d];
  }
  for (int32_t d = 0; d < a->rank; d++) {
    if (shape[d] != a->real_dims[d])
      return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                             "%s: shape operand's dim %d is %d, the tensors "
                             "say %lld",
                             a->target, d, shape[d],
                             (long long)a->real_dims[d]);
    if (sin[d] != rin[d] || sout[d] != rout[d])
      return hlx_make_status(HLX_STATUS_UNIMPLEMENTED,
                             "%s: unsupported: strides other than row-major "
                             "(dim %d: in %d, out %d)",
                             a->target, d, sin[d], sout[d]);
  }
  return NULL;
}

static hlx_status_t run_ducc(const void* args, void* const* in,
                             void* const* out, hlx_run_ctx_t* ctx) {
  const ducc_args_t* a = args;
  const void* x = in[1];
  double scale = a->scale;
  if (a->dynamic) {
    HLX_RETURN_IF_ERROR(check_dynamic(a, in));
    scale = *(const double*)in[5];
  }
  hlx_status_t st =
      a->fftw ? hlx_fftw_execute(a->fftw, x, out[0], ctx->parallel)
              : hlx_ref_fft(a->type, a->in_dtype, a->out_dtype, a->rank,
                            a->dims, a->fft_rank, a->fft_length, x, out[0]);
  if (st) return st;
  bool inverse = a->type == HLX_FFT_IFFT || a->type == HLX_FFT_IRFFT;
  double f = inverse ? scale * (double)a->n : scale;
  if (fabs(f - 1.0) <= 4 * DBL_EPSILON) return NULL;
  bool cplx = hlx_dtype_is_complex(a->out_dtype);
  int64_t m = a->out_elems * (cplx ? 2 : 1);
  if (hlx_dtype_complex_part(a->out_dtype) == HLX_DTYPE_F32) {
    float* o = out[0];
    for (int64_t i = 0; i < m; i++) o[i] = (float)(o[i] * f);
  } else {
    double* o = out[0];
    for (int64_t i = 0; i < m; i++) o[i] *= f;
  }
  return NULL;
}

static void release_plan(void* p) { hlx_fftw_plan_release(p); }

/* Maps the descriptor onto an fft of hlx's kind, checking the tensors. */
static hlx_status_t map_desc(const hlx_op_t* op, const char* target,
                             const ducc_desc_t* d, const hlx_type_t* x,
                             const hlx_type_t* r, ducc_args_t* a) {
  int32_t R = x->rank, L = d->naxes;
  if (d->ndims != R || (d->nshape && d->nshape != R) || r->rank != R)
    return hlx_jax_error(op, target, HLX_STATUS_INVALID_ARGUMENT,
                         "descriptor has %d dims, the operand rank %d",
                         d->ndims, R);
  if (L < 1 || L > 3)
    return hlx_jax_error(op, target, HLX_STATUS_UNIMPLEMENTED,
                         "unsupported: %d transformed axes (1 to 3 are)", L);
  for (int32_t i = 0; i < L; i++)
    if (d->axes[i] != R - L + i)
      return hlx_jax_error(op, target, HLX_STATUS_UNIMPLEMENTED,
                           "unsupported: axes other than the last %d in "
                           "order",
                           L);
  static const hlx_fft_type_t kTypes[2][3] = {
      {HLX_FFT_IFFT, HLX_FFT_IRFFT, HLX_FFT_RFFT},
      {HLX_FFT_FFT, HLX_FFT_IRFFT, HLX_FFT_RFFT}};
  if (d->fft_type > 2 || d->dtype > 1 ||
      (d->fft_type == 1 && d->forward) || (d->fft_type == 2 && !d->forward))
    return hlx_jax_error(op, target, HLX_STATUS_UNIMPLEMENTED,
                         "unsupported descriptor (dtype %d, fft_type %d, "
                         "forward %d)",
                         d->dtype, d->fft_type, d->forward);
  a->type = kTypes[d->forward][d->fft_type];
  hlx_dtype_t c = d->dtype ? HLX_DTYPE_C128 : HLX_DTYPE_C64;
  hlx_dtype_t f = hlx_dtype_complex_part(c);
  a->in_dtype = a->type == HLX_FFT_RFFT ? f : c;
  a->out_dtype = a->type == HLX_FFT_IRFFT ? f : c;
  if (x->dtype != a->in_dtype || r->dtype != a->out_dtype)
    return hlx_jax_error(op, target, HLX_STATUS_INVALID_ARGUMENT,
                         "operand and result must be %s and %s",
                         hlx_dtype_name(a->in_dtype),
                         hlx_dtype_name(a->out_dtype));
  const hlx_type_t* real = a->type == HLX_FFT_IRFFT ? r : x;
  for (int32_t i = 0; i < R; i++) {
    int64_t xd = x->dims[i], rd = r->dims[i];
    bool last = i == R - 1;
    bool ok = last && a->type == HLX_FFT_RFFT    ? rd == xd / 2 + 1
              : last && a->type == HLX_FFT_IRFFT ? xd == rd / 2 + 1
                                                 : xd == rd;
    if (!ok)
      return hlx_jax_error(op, target, HLX_STATUS_INVALID_ARGUMENT,
                           "operand and result shapes do not match at dim "
                           "%d",
                           i);
    if (d->nshape && d->shape[i] != real->dims[i])
      return hlx_jax_error(op, target, HLX_STATUS_INVALID_ARGUMENT,
                           "descriptor shape differs from the tensors at dim "
                           "%d",
                           i);
  }
  a->rank = R;
  a->fft_rank = L;
  memcpy(a->dims, x->dims, sizeof(int64_t) * (size_t)R);
  memcpy(a->out_dims, r->dims, sizeof(int64_t) * (size_t)R);
  memcpy(a->real_dims, real->dims, sizeof(int64_t) * (size_t)R);
  a->n = 1;
  for (int32_t i = 0; i < L; i++) {
    a->fft_length[i] = real->dims[R - L + i];
    a->n *= a->fft_length[i];
  }
  a->out_elems = hlx_type_num_elements(r);
  return NULL;
}

/* The static descriptor's strides must be row-major. */
static bool static_strides_ok(const ducc_desc_t* d, const ducc_args_t* a) {
  int64_t s1 = 1, s2 = 1;
  if (d->nsin != a->rank || d->nsout != a->rank) return false;
  for (int32_t i = a->rank - 1; i >= 0; i--) {
    if (d->strides_in[i] != s1 || d->strides_out[i] != s2) return false;
    s1 *= a->dims[i];
    s2 *= a->out_dims[i];
  }
  return true;
}

hlx_status_t hlx_lower_jax_ducc_fft(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                    const char* target) {
  bool dynamic = strcmp(target, "dynamic_ducc_fft") == 0;
  int32_t want = dynamic ? 7 : 2;
  if (op->num_operands < want - (dynamic ? 1 : 0) ||
      op->num_operands > want || op->num_results != 1)
    return hlx_jax_error(op, target, HLX_STATUS_INVALID_ARGUMENT,
                         "takes %d operands and one result", want);
  const hlx_type_t* dt = hlx_static_tensor(op->operands[0]);
  const hlx_type_t* x = hlx_static_tensor(op->operands[1]);
  const hlx_type_t* r = hlx_static_tensor(op->results[0]);
  hlx_value_slots_t s;
  HLX_RETURN_IF_ERROR(hlx_lower_slots_of(c, op->operands[0], &s));
  const void* bytes = s.n == 1 ? c->plan->slot_data[s.slots[0]] : NULL;
  if (!dt || dt->dtype != HLX_DTYPE_U8 || dt->rank != 1 || !bytes)
    return hlx_jax_error(op, target, HLX_STATUS_INVALID_ARGUMENT,
                         "operand #0 must be the descriptor, a constant "
                         "tensor of ui8");
  if (!x || !r || x->rank < 1 || x->rank > HLX_MAX_RANK)
    return hlx_jax_error(op, target, HLX_STATUS_UNIMPLEMENTED,
                         "operand and result must be static tensors");
  fb_t fb = {bytes, (size_t)dt->dims[0]};
  ducc_desc_t d;
  if (!read_desc(&fb, dynamic, &d))
    return hlx_jax_error(op, target, HLX_STATUS_INVALID_ARGUMENT,
                         "the descriptor is not a valid %sDuccFftDescriptor "
                         "flatbuffer",
                         dynamic ? "Dynamic" : "");
  ducc_args_t* a = hlx_lower_alloc(c, sizeof *a);
  if (!a) return hlx_status_oom();
  memset(a, 0, sizeof *a);
  a->target = target;
  a->dynamic = dynamic;
  a->scale = d.scale;
  HLX_RETURN_IF_ERROR(map_desc(op, target, &d, x, r, a));
  if (!dynamic && !static_strides_ok(&d, a))
    return hlx_jax_error(op, target, HLX_STATUS_UNIMPLEMENTED,
                         "unsupported: strides other than row-major");
  for (int32_t i = 2; dynamic && i < op->num_operands; i++) {
    const hlx_type_t* t = hlx_static_tensor(op->operands[i]);
    bool scale = i == 5;
    if (!t || t->rank != 1 ||
        (scale ? t->dtype != HLX_DTYPE_F64 || t->dims[0] != 1
               : !(t->dtype == HLX_DTYPE_S32 || t->dtype == HLX_DTYPE_U32) ||
                     t->dims[0] != x->rank))
      return hlx_jax_error(op, target, HLX_STATUS_INVALID_ARGUMENT,
                           "operand #%d must be %s", i,
                           scale ? "tensor<1xf64> (the scale)"
                                 : "a 32-bit integer vector of the rank");
  }
  const char* ref = getenv("HLX_FFT_REFERENCE");
  if (!(ref && *ref == '1')) {
    hlx_fftw_options_t fo = {.estimate = c->lm->options.fast_compile,
                             .threads = c->lm->options.library_threads,
                             .parallel = c->lm->options.parallel};
    hlx_status_t st = hlx_fftw_plan_obtain(a->type, a->in_dtype, a->rank,
                                           a->dims, a->fft_rank,
                                           a->fft_length, &fo, &a->fftw);
    if (st) {
      hlx_status_free(st); /* the reference kernel takes it */
      a->fftw = NULL;
    } else if (!hlx_plan_on_destroy(c->plan, release_plan, a->fftw)) {
      hlx_fftw_plan_release(a->fftw);
      return hlx_status_oom();
    }
  }
  int32_t *ins, nin, out;
  HLX_RETURN_IF_ERROR(hlx_lower_flatten(c, op, false, &ins, &nin));
  HLX_RETURN_IF_ERROR(hlx_lower_out(c, op, 0, &out));
  return hlx_lower_emit(c, op, run_ducc, a, nin, ins, 1, &out);
}
