/* fft: validates the spec's constraints and runs the transform with an
 * FFTW plan made here, at compile time (kernels/libs/fftw.h), or with the
 * reference kernel when FFTW cannot take it or HLX_FFT_REFERENCE=1. */
#include <stdlib.h>
#include <string.h>

#include "graph/lower/ctx.h"
#include "kernels/fft.h"
#include "kernels/libs/fftw.h"

typedef struct fft_args_t {
  hlx_fft_type_t type;
  hlx_dtype_t in_dtype, out_dtype;
  int32_t rank, fft_rank;
  int64_t dims[HLX_MAX_RANK];
  int64_t fft_length[3];
  hlx_fftw_plan_t* fftw; /* NULL: the reference kernel */
} fft_args_t;

static hlx_status_t run_fft(const void* args, void* const* in,
                            void* const* out, hlx_run_ctx_t* ctx) {
  const fft_args_t* a = args;
  /* a threaded plan splits its loops over the task's pool */
  if (a->fftw) return hlx_fftw_execute(a->fftw, in[0], out[0], ctx->parallel);
  return hlx_ref_fft(a->type, a->in_dtype, a->out_dtype, a->rank, a->dims,
                     a->fft_rank, a->fft_length, in[0], out[0]);
}

static void release_plan(void* p) { hlx_fftw_plan_release(p); }

static hlx_status_t lower_fft(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  if (op->num_operands != 1 || op->num_results != 1)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "needs one operand and one result");
  const hlx_type_t* t = hlx_static_tensor(op->operands[0]);
  const hlx_type_t* r = hlx_static_tensor(op->results[0]);
  if (!t || !r)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: dynamic shapes");
  if (t->quant || r->quant)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "operand and result must be floating-point or "
                        "complex, not quantized");
  const hlx_attr_t* ft = hlx_op_attr(op, "fft_type");
  static const char* const kTypes[] = {"FFT", "IFFT", "RFFT", "IRFFT"};
  int type = -1;
  if (ft && ft->kind == HLX_ATTR_ENUM && ft->enum_value)
    for (int i = 0; i < 4; i++)
      if (strcmp(ft->enum_value, kTypes[i]) == 0) type = i;
  if (type < 0)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "fft_type must be one of FFT, IFFT, RFFT, IRFFT");
  const int64_t* len;
  int32_t L;
  HLX_RETURN_IF_ERROR(hlx_attr_i64_array(op, "fft_length", true, &len, &L));
  if (L > t->rank)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C1) size(fft_length) = %d exceeds the operand's "
                        "rank %d",
                        L, t->rank);
  if (L < 1 || L > 3)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C3) size(fft_length) = %d must be in [1, 3]", L);
  for (int32_t i = 0; i < L; i++)
    if (len[i] < 0)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "fft_length[%d] = %lld is negative", i,
                          (long long)len[i]);
  /* (C2) element types. */
  hlx_dtype_t it = t->dtype, ot = r->dtype;
  bool in_c = hlx_dtype_is_complex(it), out_c = hlx_dtype_is_complex(ot);
  switch (type) {
    case HLX_FFT_FFT:
    case HLX_FFT_IFFT:
      if (!in_c || it != ot)
        return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                            "(C2) %s needs the same complex element type for "
                            "operand and result, got %s -> %s",
                            kTypes[type], hlx_dtype_name(it),
                            hlx_dtype_name(ot));
      break;
    case HLX_FFT_RFFT:
      if (!hlx_dtype_is_float(it) || !out_c ||
          hlx_dtype_complex_part(ot) != it)
        return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                            "(C2) RFFT needs a float operand and a complex "
                            "result of the same precision, got %s -> %s",
                            hlx_dtype_name(it), hlx_dtype_name(ot));
      break;
    default:
      if (!in_c || !hlx_dtype_is_float(ot) ||
          hlx_dtype_complex_part(it) != ot)
        return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                            "(C2) IRFFT needs a complex operand and a float "
                            "result of the same precision, got %s -> %s",
                            hlx_dtype_name(it), hlx_dtype_name(ot));
  }
  if (it != HLX_DTYPE_C64 && it != HLX_DTYPE_C128 && it != HLX_DTYPE_F32 &&
      it != HLX_DTYPE_F64)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: element type %s (f32, f64, complex<f32> "
                        "and complex<f64> are)",
                        hlx_dtype_name(it));
  /* (C5) result shape. */
  int32_t R = t->rank;
  if (r->rank != R)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C5) result rank %d differs from operand rank %d",
                        r->rank, R);
  for (int32_t d = 0; d + 1 < R; d++)
    if (r->dims[d] != t->dims[d])
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C5) result dim %d is %lld, operand's is %lld", d,
                          (long long)r->dims[d], (long long)t->dims[d]);
  int64_t tl = t->dims[R - 1], rl = r->dims[R - 1];
  int64_t want_rl = tl;
  if (type == HLX_FFT_RFFT) want_rl = tl == 0 ? 0 : tl / 2 + 1;
  if (type == HLX_FFT_IRFFT) {
    int64_t want_tl = rl == 0 ? 0 : rl / 2 + 1;
    if (tl != want_tl)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C5) IRFFT operand's last dim is %lld, expected "
                          "%lld (result's last dim %lld / 2 + 1)",
                          (long long)tl, (long long)want_tl, (long long)rl);
    want_rl = rl;
  }
  if (rl != want_rl)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C5) result's last dim is %lld, expected %lld",
                        (long long)rl, (long long)want_rl);
  /* (C4) the real side's trailing dims equal fft_length; the complex side
   * of FFT/IFFT must match it too (XLA's rule). */
  const hlx_type_t* side = type == HLX_FFT_IRFFT ? r : t;
  for (int32_t i = 0; i < L; i++) {
    int64_t have = side->dims[R - L + i];
    if (have != len[i])
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C4) %s dim %d is %lld but fft_length[%d] = %lld",
                          type == HLX_FFT_IRFFT ? "result" : "operand",
                          R - L + i, (long long)have, i, (long long)len[i]);
  }
  if (R > HLX_MAX_RANK)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: rank > %d", HLX_MAX_RANK);
  fft_args_t* a = hlx_lower_alloc(c, sizeof(*a));
  if (!a) return hlx_status_oom();
  memset(a, 0, sizeof *a);
  a->type = (hlx_fft_type_t)type;
  a->in_dtype = it;
  a->out_dtype = ot;
  a->rank = R;
  a->fft_rank = L;
  memcpy(a->dims, t->dims, sizeof(int64_t) * (size_t)R);
  memcpy(a->fft_length, len, sizeof(int64_t) * (size_t)L);
  const char* ref = getenv("HLX_FFT_REFERENCE");
  if (!(ref && *ref == '1')) {
    /* MEASURE (or ESTIMATE for a fast compile); large transforms get the
     * executable's threads and are measured on its pool. */
    hlx_fftw_options_t fo = {.estimate = c->lm->options.fast_compile,
                             .threads = c->lm->options.library_threads,
                             .parallel = c->lm->options.parallel};
    hlx_status_t st = hlx_fftw_plan_obtain(a->type, it, R, a->dims, L, len,
                                           &fo, &a->fftw);
    if (st) { /* not for FFTW: the reference kernel takes it */
      hlx_status_free(st);
      a->fftw = NULL;
    } else if (!hlx_plan_on_destroy(c->plan, release_plan, a->fftw)) {
      hlx_fftw_plan_release(a->fftw); /* the plan holds it until destroyed */
      return hlx_status_oom();
    }
  }
  int32_t in, out;
  HLX_RETURN_IF_ERROR(hlx_lower_in(c, op, 0, &in));
  HLX_RETURN_IF_ERROR(hlx_lower_out(c, op, 0, &out));
  return hlx_lower_emit(c, op, run_fft, a, 1, &in, 1, &out);
}

const hlx_lowering_t hlx_lowerings_fft[] = {
    {HLX_OP_FFT, lower_fft},
    {HLX_OP_UNKNOWN, NULL},
};
