/* convolution and dynamic_conv: operands are permuted into the canonical
 * layouts of kernels/conv.h (lhs [b, spatial..., f], rhs [spatial..., i,
 * o]) and widened into a compute type (f64 / s64 / c128, like
 * dot_general); the result is computed as [b, spatial..., f], narrowed into
 * the result's element type (which may differ from the operands': the
 * preferred element type) and permuted into the result's layout.
 * dynamic_conv reads its padding operand at run time.
 *
 * Library path (lower_conv_onednn): f32 convolutions (operands and result
 * f32, not quantized) with batch_group_count 1 (window reversal: the
 * kernel reversed first, once for constants, per run else), 1-3
 * spatial dims, non-negative low padding and a static padding run on
 * oneDNN's forward convolution; with lhs dilation (transposed convolution),
 * unit window strides and padding within the kernel's reach, on oneDNN's
 * deconvolution (the kernel reversed once for constants, per run else).
 * Both read the operands in their own layouts (any dimension numbers,
 * expressed as strides) and write the result's layout. Weights that are a
 * stablehlo.constant or another plan constant (folded, or an elided
 * constant filled in) are reordered into oneDNN's preferred blocked
 * layout once, when the plan is built; those of a reusable parameter once
 * per buffer (packed_copy.h); other weights on every run. Everything
 * else stays on the reference path below. An epilogue group
 * (graph/lower/opt/epilogue.h) runs the same library task with oneDNN
 * post-ops and writes the chain's last value; with constant weights, its
 * leading add/subtract/multiply steps by constant per-feature values fold
 * into the weights and a bias instead (conv+BN folding, exact up to float
 * rounding, graph/lower/opt/conv_fold.c); with weights of a reusable
 * parameter, steps by values computed only from reusable parameters and
 * constants fold too, per run's buffers (packed_copy.h).
 * Activations between oneDNN convolutions may stay in oneDNN's blocked
 * layout (graph/lower/opt/conv_layout.c): such a task reads/writes nChw16c
 * and its name ends in "(blocked src|dst|src+dst)". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/lower/opt/epilogue.h"
#include "graph/lower/ctx.h"
#include "graph/lower/packed_copy.h"
#include "kernels/conv.h"
#include "kernels/data_movement.h"
#include "kernels/elementwise.h"
#include "kernels/libs/onednn.h"

typedef struct perm_t {
  hlx_dtype_t dtype;
  int32_t rank;
  int64_t dims[HLX_MAX_RANK];    /* permuted dims */
  int64_t strides[HLX_MAX_RANK]; /* source strides in permuted order */
} perm_t;

/* Quantization of one canonical operand/result (per-tensor, or per-axis
 * along its last canonical dimension: the feature dimension). */
typedef struct qinfo_t {
  bool on;
  hlx_dtype_t expressed;
  double qmin, qmax;  /* storage range */
  int64_t n;          /* number of scales: 1 or the feature size */
  double* scales;
  int64_t* zps;
} qinfo_t;

typedef struct conv_args_t {
  perm_t lhs, rhs;
  qinfo_t lq, rq, oq;
  perm_t out;           /* canonical dims, destination strides */
  hlx_conv_params_t p;
  hlx_dtype_t compute;
  int64_t pad_hi[HLX_CONV_MAX_SPATIAL];
  bool dynamic_padding; /* dynamic_conv: read in[2] */
  hlx_dtype_t pad_dtype;
} conv_args_t;

static int64_t count(const perm_t* p) {
  int64_t n = 1;
  for (int32_t i = 0; i < p->rank; i++) n *= p->dims[i];
  return n;
}

/* Permutes and widens one operand into dst (compute type). */
static bool to_canonical(const perm_t* c, hlx_dtype_t compute, const void* src,
                         void* dst) {
  size_t n = (size_t)count(c), es = hlx_dtype_size(c->dtype);
  void* tmp = malloc(n * es + 16);
  if (!tmp) return false;
  int64_t rs[HLX_MAX_RANK];
  hlx_row_major_strides(c->rank, c->dims, rs);
  hlx_ref_copy_strided(es, c->rank, c->dims, src, c->strides, tmp, rs);
  bool ok = hlx_ref_convert(c->dtype, tmp, compute, dst, n);
  free(tmp);
  return ok;
}

/* v rounded to element type t (f32 fast path). */
static double round_to(hlx_dtype_t t, double v) {
  if (t == HLX_DTYPE_F32) return (double)(float)v;
  if (t == HLX_DTYPE_F64) return v;
  unsigned char tmp[16];
  double r = v;
  if (hlx_ref_convert(HLX_DTYPE_F64, &v, t, tmp, 1))
    hlx_ref_convert(t, tmp, HLX_DTYPE_F64, &r, 1);
  return r;
}

/* dequantize: (storage - zp) * scale, each step in the expressed type. */
static void dequantize(const qinfo_t* q, double* x, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    int64_t ch = q->n == 1 ? 0 : i % q->n;
    double sub = round_to(q->expressed, x[i] - (double)q->zps[ch]);
    x[i] = round_to(q->expressed, sub * round_to(q->expressed, q->scales[ch]));
  }
}

/* quantize: clamp(x / scale + zp) rounded half to even, as storage ints. */
static void quantize(const qinfo_t* q, double* x, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    int64_t ch = q->n == 1 ? 0 : i % q->n;
    double e = round_to(q->expressed, x[i]);
    double v = round_to(q->expressed,
                        e / round_to(q->expressed, q->scales[ch]));
    v = round_to(q->expressed, v + (double)q->zps[ch]);
    if (v < q->qmin) v = q->qmin;
    if (v > q->qmax) v = q->qmax;
    if (v != v) v = 0;
    x[i] = nearbyint(v); /* default rounding mode: half to even */
  }
}

static hlx_status_t run_conv(const void* args, void* const* in,
                             void* const* out, hlx_run_ctx_t* ctx) {
  (void)ctx;
  const conv_args_t* a = args;
  hlx_conv_params_t p = a->p;
  if (a->dynamic_padding) {
    int32_t ns = p.num_spatial;
    int64_t pad[2 * HLX_CONV_MAX_SPATIAL + 1];
    if (!hlx_ref_convert(a->pad_dtype, in[2], HLX_DTYPE_S64, pad,
                         (size_t)(2 * ns)))
      return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                             "dynamic_conv: padding must be an integer tensor");
    for (int32_t d = 0; d < ns; d++) {
      p.pad_lo[d] = pad[2 * d];
      int64_t nw = hlx_conv_num_windows(p.in_spatial[d], p.kernel_spatial[d],
                                        p.stride[d], pad[2 * d],
                                        pad[2 * d + 1], p.lhs_dilation[d],
                                        p.rhs_dilation[d]);
      if (nw != p.out_spatial[d])
        return hlx_make_status(
            HLX_STATUS_INVALID_ARGUMENT,
            "dynamic_conv: (C25) padding [%lld, %lld] of spatial dimension "
            "%d gives %lld windows, the result has %lld",
            (long long)pad[2 * d], (long long)pad[2 * d + 1], d,
            (long long)nw, (long long)p.out_spatial[d]);
    }
  }
  size_t cs = hlx_dtype_size(a->compute);
  size_t nl = (size_t)count(&a->lhs), nr = (size_t)count(&a->rhs),
         no = (size_t)count(&a->out);
  size_t os = hlx_dtype_size(a->out.dtype);
  void* l = malloc(nl * cs + 16);
  void* r = malloc(nr * cs + 16);
  void* o = malloc(no * cs + 16);
  void* t = malloc(no * os + 16);
  hlx_status_t st = NULL;
  if (!l || !r || !o || !t || !to_canonical(&a->lhs, a->compute, in[0], l) ||
      !to_canonical(&a->rhs, a->compute, in[1], r)) {
    st = hlx_status_oom();
    goto done;
  }
  if (a->lq.on) dequantize(&a->lq, l, (int64_t)nl);
  if (a->rq.on) dequantize(&a->rq, r, (int64_t)nr);
  bool ok;
  if (a->compute == HLX_DTYPE_F64)
    ok = hlx_ref_conv_f64(&p, l, r, o);
  else if (a->compute == HLX_DTYPE_S64)
    ok = hlx_ref_conv_s64(&p, l, r, o);
  else
    ok = hlx_ref_conv_c128(&p, l, r, o);
  if (ok && a->oq.on) quantize(&a->oq, o, (int64_t)no);
  if (!ok || !hlx_ref_convert(a->compute, o, a->out.dtype, t, no)) {
    st = hlx_status_oom();
    goto done;
  }
  int64_t rs[HLX_MAX_RANK];
  hlx_row_major_strides(a->out.rank, a->out.dims, rs);
  hlx_ref_copy_strided(os, a->out.rank, a->out.dims, t, rs, out[0],
                       a->out.strides);
done:
  free(l);
  free(r);
  free(o);
  free(t);
  return st;
}

/* ---- library path ---- */

/* Weights with some spatial dims reversed, in place of the originals
 * (same layout): canonical dims and their strides. */
typedef struct flip_t {
  int32_t rank;
  int64_t dims[HLX_MAX_RANK], strides[HLX_MAX_RANK];
  bool rev[HLX_MAX_RANK];
} flip_t;

static void flip_weights(const flip_t* f, const float* src, float* dst) {
  int64_t idx[HLX_MAX_RANK] = {0}, n = 1;
  for (int32_t d = 0; d < f->rank; d++) n *= f->dims[d];
  for (int64_t e = 0; e < n; e++) {
    int64_t from = 0, to = 0;
    for (int32_t d = 0; d < f->rank; d++) {
      from += idx[d] * f->strides[d];
      to += (f->rev[d] ? f->dims[d] - 1 - idx[d] : idx[d]) * f->strides[d];
    }
    dst[to] = src[from];
    for (int32_t d = f->rank - 1; d >= 0 && ++idx[d] == f->dims[d]; d--)
      idx[d] = 0;
  }
}

typedef struct conv_fast_t {
  hlx_onednn_conv_t* cv;
  /* Weights of a reusable parameter, packed from the buffer a run passes
   * (packed_copy.h), or NULL. With folded epilogue steps (conv+BN)
   * they are packed scaled, with their bias, and kept while the steps'
   * operand values are also those they were made with: those are compared
   * by content (a few hundred floats per convolution, computed by the
   * plan's earlier tasks each run from the parameters), so any change of
   * the batch-norm parameters, new buffer or not, refolds. */
  hlx_packed_copy_t* cache;
  float* cache_key;  /* folded steps' operand values, out_features each */
  float* cache_bias; /* folded shift (out_features), or NULL */
  const void* packed; /* weights in oneDNN's layout (constant rhs) or NULL */
  const float* bias;  /* folded epilogue shift, or NULL */
  int32_t num_post;   /* post-ops; binary ones read in[2], in[3], ... */
  const flip_t* flip; /* transposed: weights to reverse first, or NULL */
  size_t wbytes;
  /* Steps folded at run time (cache only): their operands are inputs
   * fold_in.. in step order; fold_ops their kinds/shapes. */
  int32_t num_fold, fold_in;
  hlx_onednn_post_op_t fold_ops[HLX_ONEDNN_MAX_POST_OPS];
  int64_t out_features, stride_o; /* o's row-major stride in the weights */
} conv_fast_t;

/* Packs the weights in `w` (row-major, reversed first when f->flip) into
 * `packed`. */
static hlx_status_t pack_weights(const conv_fast_t* f, const float* w,
                                 void* packed) {
  float* flipped = NULL;
  if (f->flip) {
    flipped = malloc(f->wbytes + 1);
    if (!flipped) return hlx_status_oom();
    flip_weights(f->flip, w, flipped);
  }
  hlx_status_t st =
      hlx_onednn_conv_pack_weights(f->cv, flipped ? flipped : w, packed);
  free(flipped);
  return st;
}

/* Entries of folded step j's operand: out_features, or 1 for a scalar. */
static size_t fold_len(const conv_fast_t* f, int32_t j) {
  return f->fold_ops[j].shape == HLX_ONEDNN_OPERAND_SCALAR
             ? 1
             : (size_t)f->out_features;
}

typedef struct fill_arg_t {
  const conv_fast_t* f;
  void* const* in;
} fill_arg_t;

/* Whether the cached weights were folded with this run's operand values
 * (the weights buffer itself is compared by hlx_packed_copy_lock). */
static bool fold_key_same(const void* arg) {
  const fill_arg_t* a = arg;
  const conv_fast_t* f = a->f;
  for (int32_t j = 0; j < f->num_fold; j++)
    if (memcmp(f->cache_key + (size_t)j * (size_t)f->out_features,
               a->in[f->fold_in + j], fold_len(f, j) * sizeof(float)) != 0)
      return false;
  return true;
}

/* Packs this run's weights into `packed`, scaled by the folded steps
 * composed from this run's operand values (as the constant path folds). */
static hlx_status_t cache_fill(const void* arg, void* packed) {
  const fill_arg_t* a = arg;
  const conv_fast_t* f = a->f;
  void* const* in = a->in;
  if (!f->num_fold) return pack_weights(f, in[1], packed);
  int64_t o = f->out_features;
  const float* vals[HLX_ONEDNN_MAX_POST_OPS];
  for (int32_t j = 0; j < f->num_fold; j++) {
    vals[j] = in[f->fold_in + j];
    memcpy(f->cache_key + (size_t)j * (size_t)o, vals[j],
           fold_len(f, j) * sizeof(float));
  }
  float* scale = malloc(sizeof(float) * (size_t)o + 1);
  float* scaled = malloc(f->wbytes + 1);
  hlx_status_t st = NULL;
  if (!scale || !scaled) {
    st = hlx_status_oom();
  } else {
    hlx_conv_fold_compose(f->fold_ops, vals, f->num_fold, o, scale,
                          f->cache_bias);
    hlx_conv_fold_weights(in[1], f->wbytes / sizeof(float), f->stride_o, o,
                          scale, scaled);
    st = pack_weights(f, scaled, packed);
  }
  free(scale);
  free(scaled);
  return st;
}

/* A run with the weights of a reusable parameter: the packed copy made
 * from this run's buffer (and folded operand values). */
static hlx_status_t run_conv_cached(const conv_fast_t* f, void* const* in,
                                    const void* const* post, void* out) {
  fill_arg_t a = {f, in};
  HLX_RETURN_IF_ERROR(hlx_packed_copy_lock(
      f->cache, in[1], f->num_fold ? fold_key_same : NULL, cache_fill, &a));
  hlx_status_t st = hlx_onednn_conv_run_ex(
      f->cv, in[0], NULL, f->cache->data,
      f->num_fold ? f->cache_bias : f->bias, post, out);
  hlx_packed_copy_unlock(f->cache);
  return st;
}

static hlx_status_t run_conv_onednn(const void* args, void* const* in,
                                    void* const* out, hlx_run_ctx_t* ctx) {
  (void)ctx;
  const conv_fast_t* f = args;
  const void* post[HLX_ONEDNN_MAX_POST_OPS] = {NULL};
  const hlx_onednn_conv_desc_t* d = hlx_onednn_conv_desc(f->cv);
  for (int32_t i = 0, k = 2; i < f->num_post; i++)
    if (d->post_ops[i].shape != HLX_ONEDNN_OPERAND_NONE) post[i] = in[k++];
  if (f->cache) return run_conv_cached(f, in, post, out[0]);
  float* flipped = NULL;
  if (f->flip && !f->packed) {
    flipped = malloc(f->wbytes + 1);
    if (!flipped) return hlx_status_oom();
    flip_weights(f->flip, in[1], flipped);
  }
  hlx_status_t st = hlx_onednn_conv_run_ex(
      f->cv, in[0], f->packed ? NULL : flipped ? flipped : in[1], f->packed,
      f->bias, post, out[0]);
  free(flipped);
  return st;
}

static void release_conv(void* cv) { hlx_onednn_conv_release(cv); }

/* Row-major data of constant weights: a stablehlo.constant, or a plan
 * constant (folded, or an elided constant filled in); NULL otherwise. */
static const float* constant_weights(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                     size_t wbytes) {
  const hlx_value_t* w = op->operands[1];
  const hlx_attr_t* val = w->def && w->def->code == HLX_OP_CONSTANT
                              ? hlx_op_attr(w->def, "value")
                              : NULL;
  if (val && val->kind == HLX_ATTR_DENSE && val->dense &&
      val->dense_bytes == wbytes)
    return val->dense;
  hlx_value_slots_t s;
  hlx_status_t st = hlx_lower_slots_of(c, w, &s);
  if (st) {
    hlx_status_free(st);
    return NULL;
  }
  if (s.n != 1 || !c->plan->slot_data[s.slots[0]] ||
      c->plan->slot_bytes[s.slots[0]] != wbytes)
    return NULL;
  return c->plan->slot_data[s.slots[0]];
}

/* Emits the oneDNN task when the convolution qualifies; *done = false
 * leaves it to the reference path. With ep, the task also applies the
 * epilogue and writes ep->last's result instead of op's. */
static hlx_status_t lower_conv_onednn(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                      const conv_args_t* a,
                                      const hlx_epilogue_t* ep, bool* done) {
  *done = false;
  const hlx_conv_params_t* p = &a->p;
  int32_t ns = p->num_spatial;
  if (getenv("HLX_CONV_REFERENCE")) return NULL; /* A/B switch for tests */
  if (a->dynamic_padding || a->lq.on || a->rq.on || a->oq.on ||
      a->lhs.dtype != HLX_DTYPE_F32 || a->rhs.dtype != HLX_DTYPE_F32 ||
      a->out.dtype != HLX_DTYPE_F32 || p->batch_group_count != 1 || ns < 1 ||
      ns > HLX_ONEDNN_CONV_MAX_SPATIAL)
    return NULL;
  hlx_onednn_conv_desc_t d;
  hlx_onednn_conv_desc_zero(&d);
  d.threads = c->lm->options.library_threads;
  d.num_spatial = ns;
  d.batch = p->batch;
  d.in_features = p->in_features;
  d.out_features = p->out_features;
  d.groups = p->feature_group_count;
  /* lhs dilation with unit window strides is oneDNN's deconvolution with
   * stride = lhs dilation, the kernel reversed (unless window_reversal
   * already reverses it) and low padding (K - 1) * dilation - pad_lo. */
  bool transposed = false, any_flip = false, reversed = false;
  flip_t* flip = NULL;
  for (int32_t i = 0; i < ns; i++) {
    transposed |= p->lhs_dilation[i] != 1;
    reversed |= p->reversal[i];
  }
  /* window_reversal: the kernel reversed first (once for constants). */
  if (transposed || reversed) {
    flip = hlx_lower_alloc(c, sizeof(*flip));
    if (!flip) return hlx_status_oom();
    memset(flip, 0, sizeof *flip);
    flip->rank = a->rhs.rank;
    memcpy(flip->dims, a->rhs.dims, sizeof(flip->dims));
    memcpy(flip->strides, a->rhs.strides, sizeof(flip->strides));
  }
  d.transposed = transposed;
  for (int32_t i = 0; i < ns; i++) {
    int64_t reach = (p->kernel_spatial[i] - 1) * p->rhs_dilation[i];
    if (transposed) {
      if (p->stride[i] != 1 || p->pad_lo[i] > reach) return NULL;
      flip->rev[i] = !p->reversal[i]; /* canonical rhs: spatial dims first */
      any_flip |= flip->rev[i];
    } else if (p->pad_lo[i] < 0) {
      return NULL;
    } else if (flip) {
      flip->rev[i] = p->reversal[i];
      any_flip |= flip->rev[i];
    }
    d.in_spatial[i] = p->in_spatial[i];
    d.kernel_spatial[i] = p->kernel_spatial[i];
    d.out_spatial[i] = p->out_spatial[i];
    d.stride[i] = transposed ? p->lhs_dilation[i] : p->stride[i];
    d.pad_lo[i] = transposed ? reach - p->pad_lo[i] : p->pad_lo[i];
    d.dilation[i] = p->rhs_dilation[i];
    /* canonical lhs [N, S..., C], rhs [K..., Ci, O], out [N, P..., O] */
    d.src_strides[2 + i] = a->lhs.strides[1 + i];
    d.wei_strides[2 + i] = a->rhs.strides[i];
    d.dst_strides[2 + i] = a->out.strides[1 + i];
  }
  d.src_strides[0] = a->lhs.strides[0];
  d.src_strides[1] = a->lhs.strides[ns + 1];
  d.wei_strides[0] = a->rhs.strides[ns + 1];
  d.wei_strides[1] = a->rhs.strides[ns];
  d.dst_strides[0] = a->out.strides[0];
  d.dst_strides[1] = a->out.strides[ns + 1];
  /* Blocked activations (graph/lower/opt/conv_layout.c): read a blocked input
   * as it is when its dims line up, write a planned result blocked; a sum
   * operand must be laid out like dst. */
  const hlx_value_t* ov = ep ? ep->last->results[0] : op->results[0];
  const hlx_value_t* full = NULL;
  for (int32_t i = 0; ep && i < ep->num_steps; i++)
    if (ep->steps[i].op.shape == HLX_ONEDNN_OPERAND_FULL)
      full = ep->steps[i].operand;
  const hlx_op_t* sp = hlx_lower_act_blocked(c, op->operands[0]);
  if (sp && !transposed && hlx_lower_act_matches(sp, op, true))
    d.src_blocked = 1;
  else
    HLX_RETURN_IF_ERROR(hlx_lower_act_unblock(c, op->operands[0]));
  int32_t blk = hlx_onednn_act_block();
  bool dst_blocked = !transposed && blk > 0 && d.groups == 1 &&
                     d.out_features % blk == 0 && hlx_lower_act_planned(c, ov);
  if (full) {
    const hlx_op_t* fp = hlx_lower_act_blocked(c, full);
    dst_blocked = dst_blocked && fp && hlx_lower_act_matches(fp, op, false);
    if (!dst_blocked) HLX_RETURN_IF_ERROR(hlx_lower_act_unblock(c, full));
  }
  d.dst_blocked = dst_blocked;
  /* conv_winograd option or HLX_CONV_WINOGRAD=1: 3x3 stride-1
   * convolutions on oneDNN's Winograd kernel (F(4x4, 3x3): ~2.25x fewer
   * multiplications, rounding differs; it needs blocked activations to pay
   * off). */
  const char* wg = getenv("HLX_CONV_WINOGRAD");
  bool want_wg = c->lm->options.conv_winograd || (wg && *wg && *wg != '0');
  d.winograd = want_wg && ns == 2 && !transposed &&
               d.groups == 1 && d.kernel_spatial[0] == 3 &&
               d.kernel_spatial[1] == 3 && d.stride[0] == 1 &&
               d.stride[1] == 1 && d.dilation[0] == 1 && d.dilation[1] == 1;
  conv_fast_t* f = hlx_lower_alloc(c, sizeof(*f));
  if (!f) return hlx_status_oom();
  memset(f, 0, sizeof *f);
  size_t wn = (size_t)count(&a->rhs);
  f->flip = any_flip ? flip : NULL;
  f->wbytes = wn * sizeof(float);
  const float* wconst = constant_weights(c, op, wn * sizeof(float));
  hlx_value_slots_t ws;
  HLX_RETURN_IF_ERROR(hlx_lower_slots_of(c, op->operands[1], &ws));
  bool wreuse =
      !wconst && ws.n == 1 && hlx_lower_slot_is_reusable(c, ws.slots[0]);
  /* The epilogue's leading affine steps (BN) fold into the weights and a
   * bias: once here for constant weights and operands; per set of buffers
   * (run_conv_cached) for weights of a reusable parameter whose steps read
   * only reusable parameters and constants. */
  int64_t O = p->out_features;
  int32_t folded = ep && (wconst || wreuse)
                       ? hlx_conv_fold_count(c, ep, wreuse)
                       : 0;
  float* scale = NULL;
  float* shift = NULL;
  if (folded && wconst) {
    scale = hlx_lower_alloc(c, sizeof(float) * (size_t)O);
    shift = hlx_lower_alloc(c, sizeof(float) * (size_t)O);
    if (!scale || !shift) return hlx_status_oom();
    const float* vals[HLX_ONEDNN_MAX_POST_OPS];
    hlx_onednn_post_op_t ops[HLX_ONEDNN_MAX_POST_OPS];
    for (int32_t j = 0; j < folded; j++) {
      vals[j] = hlx_conv_fold_constant(c, &ep->steps[j]);
      ops[j] = ep->steps[j].op;
    }
    hlx_conv_fold_compose(ops, vals, folded, O, scale, shift);
  }
  int32_t nin = 2, in[2 + 2 * HLX_ONEDNN_MAX_POST_OPS];
  if (ep) {
    d.has_bias = folded > 0;
    d.num_post_ops = ep->num_steps - folded;
    for (int32_t i = folded; i < ep->num_steps; i++) {
      d.post_ops[i - folded] = ep->steps[i].op;
      if (ep->steps[i].op.shape == HLX_ONEDNN_OPERAND_NONE) continue;
      hlx_value_slots_t s;
      HLX_RETURN_IF_ERROR(hlx_lower_slots_of(c, ep->steps[i].operand, &s));
      if (s.n != 1) return NULL;
      in[nin++] = s.slots[0];
    }
  }
  if (folded && !wconst) { /* the folded operands, read per run */
    f->num_fold = folded;
    f->fold_in = nin;
    f->out_features = O;
    f->stride_o = a->rhs.strides[ns + 1];
    for (int32_t j = 0; j < folded; j++) {
      f->fold_ops[j] = ep->steps[j].op;
      hlx_value_slots_t s;
      HLX_RETURN_IF_ERROR(hlx_lower_slots_of(c, ep->steps[j].operand, &s));
      if (s.n != 1) return NULL;
      in[nin++] = s.slots[0];
    }
  }
  f->num_post = d.num_post_ops;
  hlx_status_t st = hlx_onednn_conv_create(&d, &f->cv);
  if (st && full && d.src_blocked && !d.dst_blocked) {
    /* A sum into a logical dst (e.g. ResNet's last block, whose result is
     * returned): oneDNN picks a blocked dst for a blocked src, and the sum
     * needs dst as it is; from a logical src it keeps dst logical. */
    hlx_status_free(st);
    d.src_blocked = 0;
    HLX_RETURN_IF_ERROR(hlx_lower_act_unblock(c, op->operands[0]));
    st = hlx_onednn_conv_create(&d, &f->cv);
  }
  if (st) {
    hlx_status_free(st);
    return NULL;
  }
  /* the plan holds its reference until it is destroyed */
  if (!hlx_plan_on_destroy(c->plan, release_conv, f->cv)) {
    hlx_onednn_conv_release(f->cv);
    return hlx_status_oom();
  }
  /* Constant weights: reorder once into the plan's arena. */
  if (wconst) {
    float* scaled = NULL;
    if (folded || f->flip) {
      scaled = malloc(wn * sizeof(float) + 1);
      if (!scaled) return hlx_status_oom();
      if (f->flip)
        flip_weights(f->flip, wconst, scaled);
      else
        memcpy(scaled, wconst, wn * sizeof(float));
    }
    if (folded) { /* w[..., o] * scale[o]; o's row-major stride */
      hlx_conv_fold_weights(scaled, wn, a->rhs.strides[ns + 1], O, scale,
                            scaled);
      f->bias = shift;
    }
    size_t pb = hlx_onednn_conv_packed_weights_bytes(f->cv);
    unsigned char* raw = hlx_lower_alloc(c, pb + 64);
    if (!raw) {
      free(scaled);
      return hlx_status_oom();
    }
    void* packed = raw + (64 - (uintptr_t)raw % 64) % 64;
    /* oneDNN reads the weights through the descriptor's strides, which
     * describe the row-major constant. */
    st = hlx_onednn_conv_pack_weights(f->cv, scaled ? scaled : wconst, packed);
    free(scaled);
    if (st) {
      hlx_status_free(st);
      if (folded) return NULL; /* the bias needs the scaled weights */
    } else {
      f->packed = packed;
    }
  }
  int32_t out;
  HLX_RETURN_IF_ERROR(hlx_lower_in(c, op, 0, &in[0]));
  HLX_RETURN_IF_ERROR(hlx_lower_in(c, op, 1, &in[1]));
  /* Weights from a reusable parameter: packed (and folded) on the first
   * run, kept while runs pass the same buffers (run_conv_cached). */
  if (!f->packed && hlx_lower_slot_is_reusable(c, in[1])) {
    HLX_RETURN_IF_ERROR(hlx_lower_packed_copy(
        c, hlx_onednn_conv_packed_weights_bytes(f->cv), &f->cache));
    if (f->num_fold) {
      f->cache_key = hlx_lower_alloc(c, sizeof(float) * (size_t)(O * folded));
      f->cache_bias = hlx_lower_alloc(c, sizeof(float) * (size_t)O);
      if (!f->cache_key || !f->cache_bias) return hlx_status_oom();
    }
  }
  HLX_RETURN_IF_ERROR(hlx_lower_out(c, ep ? ep->last : op, 0, &out));
  if (d.dst_blocked) HLX_RETURN_IF_ERROR(hlx_lower_act_set_blocked(c, ov, op));
  *done = true;
  /* task name suffix: " (blocked src+dst)", " (winograd)" */
  char variant[64] = "";
  if (d.src_blocked || d.dst_blocked)
    snprintf(variant, sizeof variant, " (blocked %s)",
             d.src_blocked && d.dst_blocked ? "src+dst"
             : d.src_blocked                ? "src"
                                            : "dst");
  if (d.winograd && strstr(hlx_onednn_conv_impl(f->cv), "wino")) {
    size_t n = strlen(variant);
    snprintf(variant + n, sizeof variant - n, " (winograd)");
  }
  if (ep) {
    /* "..+epilogue[2 folded](subtract,multiply,relu) at ..": the graph ops
     * it computes, the first `folded` of them inside the weights/bias. */
    char name[sizeof ep->name + 80];
    const char* list = strstr(ep->name, "+epilogue(");
    if (folded && list)
      snprintf(name, sizeof name, "%.*s+epilogue[%d folded]%s",
               (int)(list - ep->name), ep->name, (int)folded,
               list + strlen("+epilogue"));
    else
      snprintf(name, sizeof name, "%s", ep->name);
    size_t n = strlen(name);
    snprintf(name + n, sizeof name - n, "%s", variant);
    if (!hlx_plan_add_task(c->plan, name, run_conv_onednn, f, nin, in, 1,
                           &out))
      return hlx_status_oom();
  } else if (d.src_blocked || d.dst_blocked || d.winograd) {
    char where[256], name[340];
    snprintf(name, sizeof name, "%s%s",
             hlx_op_where(op, where, sizeof where), variant);
    if (!hlx_plan_add_task(c->plan, name, run_conv_onednn, f, 2, in, 1, &out))
      return hlx_status_oom();
  } else {
    HLX_RETURN_IF_ERROR(
        hlx_lower_emit(c, op, run_conv_onednn, f, 2, in, 1, &out));
  }
  hlx_plan_last_task_set_flags(c->plan, HLX_TASK_WIDE); /* OpenMP team */
  return NULL;
}

static bool int_field(const hlx_attr_t* dn, const char* name, int64_t* v) {
  const hlx_attr_t* a = hlx_attr_dict_get(dn, name);
  if (!a || a->kind != HLX_ATTR_INT) return false;
  *v = a->i;
  return true;
}

/* I64_ARRAY, ARRAY of INT, or an 8-byte integer DENSE. */

/* Optional per-spatial-dimension attribute, default dflt, values >= min. */
static hlx_status_t spatial_attr(const hlx_op_t* op, const char* name,
                                 int32_t ns, int64_t dflt, int64_t min,
                                 const char* size_rule, const char* value_rule,
                                 int64_t* out) {
  const hlx_attr_t* a = hlx_op_attr(op, name);
  if (!a) {
    for (int32_t d = 0; d < ns; d++) out[d] = dflt;
    return NULL;
  }
  int64_t v[HLX_MAX_RANK];
  int32_t n;
  if (!hlx_attr_int_list(a, v, HLX_MAX_RANK, &n))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "attribute '%s' must be an integer array", name);
  if (n != ns)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "%s: size(%s) = %d must be N - 2 = %d", size_rule, name,
                        n, ns);
  for (int32_t d = 0; d < ns; d++) {
    if (v[d] < min)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "%s: %s[%d] = %lld must be >= %lld", value_rule, name,
                          d, (long long)v[d], (long long)min);
    out[d] = v[d];
  }
  return NULL;
}

static hlx_dtype_t compute_type(hlx_dtype_t t) {
  if (hlx_dtype_is_complex(t)) return HLX_DTYPE_C128;
  if (hlx_dtype_is_float(t)) return HLX_DTYPE_F64;
  return HLX_DTYPE_S64;
}

/* Checks a dimension list (first, spatial..., last) is a permutation of
 * 0..rank-1. */
static bool unique_dims(int64_t a, const int64_t* sp, int32_t ns, int64_t b,
                        int32_t rank) {
  bool used[HLX_MAX_RANK] = {false};
  int64_t all[HLX_MAX_RANK + 2];
  int32_t k = 0;
  all[k++] = a;
  for (int32_t i = 0; i < ns; i++) all[k++] = sp[i];
  all[k++] = b;
  if (k != rank) return false;
  for (int32_t i = 0; i < k; i++) {
    if (all[i] < 0 || all[i] >= rank || used[all[i]]) return false;
    used[all[i]] = true;
  }
  return true;
}

/* Permuted view of t in `order` (row-major source strides). */
static void make_perm(const hlx_type_t* t, const int64_t* order, perm_t* p) {
  int64_t rs[HLX_MAX_RANK];
  hlx_row_major_strides(t->rank, t->dims, rs);
  p->dtype = t->dtype;
  p->rank = t->rank;
  for (int32_t i = 0; i < t->rank; i++) {
    p->dims[i] = t->dims[order[i]];
    p->strides[i] = rs[order[i]];
  }
}

/* With ep: the convolution and its epilogue on oneDNN, or nothing
 * (*ep_done = false). */
static hlx_status_t lower_conv_common(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                      bool dynamic, const hlx_epilogue_t* ep,
                                      bool* ep_done) {
  int32_t want_ops = dynamic ? 3 : 2;
  if (op->num_operands != want_ops || op->num_results != 1)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "takes %d operands and one result", want_ops);
  const hlx_type_t* l = hlx_static_tensor(op->operands[0]);
  const hlx_type_t* r = hlx_static_tensor(op->operands[1]);
  const hlx_type_t* o = hlx_static_tensor(op->results[0]);
  if (!l || !r || !o)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: dynamic shapes are not executed "
                        "(hlx_program_specialize makes them static)");
  bool quant = l->quant || r->quant || o->quant;
  if (l->quant) {
    if (!r->quant || !o->quant)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C28) a quantized lhs needs a quantized rhs and "
                          "result");
    if (l->quant->quantized_dimension >= 0 || l->quant->num_scales != 1)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(I1) lhs must be per-tensor quantized");
    if (l->quant->storage != r->quant->storage)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C31) storage types differ: lhs %s, rhs %s",
                          hlx_dtype_name(l->quant->storage),
                          hlx_dtype_name(r->quant->storage));
    if (l->quant->expressed != r->quant->expressed ||
        l->quant->expressed != o->quant->expressed)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C32) lhs, rhs and result must have one expressed "
                          "type");
  } else if (r->quant) {
    if (o->quant || l->dtype != r->quant->expressed || o->dtype != l->dtype)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C34) with a float lhs, element_type(lhs) = "
                          "expressed_type(rhs) = element_type(result) is "
                          "required");
  } else if (o->quant) {
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C28) a quantized result needs quantized operands");
  }
  int32_t N = l->rank;
  if (r->rank != N)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C1) rank(lhs) = %d must equal rank(rhs) = %d", N,
                        r->rank);
  if (N < 2 || N - 2 > HLX_CONV_MAX_SPATIAL)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "operands must have rank 2 .. %d, got %d",
                        HLX_CONV_MAX_SPATIAL + 2, N);
  if (o->rank != N)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C26) rank(result) = %d must be %d", o->rank, N);
  if (!quant && l->dtype != r->dtype)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C27) lhs has element type %s, rhs has %s",
                        hlx_dtype_name(l->dtype), hlx_dtype_name(r->dtype));
  if (hlx_dtype_is_complex(l->dtype) != hlx_dtype_is_complex(o->dtype) &&
      hlx_dtype_is_complex(l->dtype))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C27) result element type %s cannot hold the %s "
                        "products",
                        hlx_dtype_name(o->dtype), hlx_dtype_name(l->dtype));
  int32_t ns = N - 2;

  const hlx_attr_t* dn = hlx_op_attr(op, "dimension_numbers");
  if (!dn || dn->kind != HLX_ATTR_STRUCT)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "missing attribute 'dimension_numbers'");
  int64_t ib, ifd, kif, kof, ob, of;
  int64_t isp[HLX_MAX_RANK], ksp[HLX_MAX_RANK], osp[HLX_MAX_RANK];
  int32_t nis, nks, nos;
  if (!int_field(dn, "input_batch_dimension", &ib) ||
      !int_field(dn, "input_feature_dimension", &ifd) ||
      !int_field(dn, "kernel_input_feature_dimension", &kif) ||
      !int_field(dn, "kernel_output_feature_dimension", &kof) ||
      !int_field(dn, "output_batch_dimension", &ob) ||
      !int_field(dn, "output_feature_dimension", &of))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "dimension_numbers misses a batch/feature dimension");
  if (!hlx_attr_int_list(hlx_attr_dict_get(dn, "input_spatial_dimensions"), isp,
                         HLX_MAX_RANK, &nis))
    nis = -1;
  if (!hlx_attr_int_list(hlx_attr_dict_get(dn, "kernel_spatial_dimensions"),
                         ksp, HLX_MAX_RANK, &nks))
    nks = -1;
  if (!hlx_attr_int_list(hlx_attr_dict_get(dn, "output_spatial_dimensions"),
                         osp, HLX_MAX_RANK, &nos))
    nos = -1;
  /* Absent spatial lists are empty (rank-2 convolutions). */
  if (nis < 0 && !hlx_attr_dict_get(dn, "input_spatial_dimensions")) nis = 0;
  if (nks < 0 && !hlx_attr_dict_get(dn, "kernel_spatial_dimensions")) nks = 0;
  if (nos < 0 && !hlx_attr_dict_get(dn, "output_spatial_dimensions")) nos = 0;
  if (nis != ns)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C12) size(input_spatial_dimensions) = %d must be "
                        "N - 2 = %d",
                        nis, ns);
  if (nks != ns)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C17) size(kernel_spatial_dimensions) = %d must be "
                        "N - 2 = %d",
                        nks, ns);
  if (nos != ns)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C19) size(output_spatial_dimensions) = %d must be "
                        "N - 2 = %d",
                        nos, ns);
  if (!unique_dims(ib, isp, ns, ifd, N))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C13) input dimensions must be unique and in [0, %d)",
                        N);
  {
    /* kernel_dimensions = spatial + [i] + [o] */
    int64_t ks2[HLX_MAX_RANK];
    for (int32_t i = 0; i < ns; i++) ks2[i] = ksp[i];
    ks2[ns] = kif;
    if (!unique_dims(ks2[0], ks2 + 1, ns, kof, N) &&
        !(ns == 0 && unique_dims(kif, NULL, 0, kof, N)))
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C18) kernel dimensions must be unique and in "
                          "[0, %d)",
                          N);
  }
  if (!unique_dims(ob, osp, ns, of, N))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C20) output dimensions must be unique and in "
                        "[0, %d)",
                        N);

  int64_t G, B;
  HLX_RETURN_IF_ERROR(hlx_attr_int(op, "feature_group_count", false, 1, &G));
  HLX_RETURN_IF_ERROR(hlx_attr_int(op, "batch_group_count", false, 1, &B));
  if (G <= 0)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C21) feature_group_count = %lld must be > 0",
                        (long long)G);
  if (B <= 0)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C22) batch_group_count = %lld must be > 0",
                        (long long)B);
  if (G != 1 && B != 1)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C23) feature_group_count = %lld and "
                        "batch_group_count = %lld: one must be 1",
                        (long long)G, (long long)B);
  const hlx_attr_t* pc = hlx_op_attr(op, "precision_config");
  if (pc && pc->kind == HLX_ATTR_ARRAY && pc->count != 2 && pc->count != 0)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C24) size(precision_config) = %d must be 2",
                        pc->count);

  int64_t lb = l->dims[ib], lf = l->dims[ifd];
  int64_t ki = r->dims[kif], ko = r->dims[kof];
  if (lb % B)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C10) lhs batch size %lld is not a multiple of "
                        "batch_group_count %lld",
                        (long long)lb, (long long)B);
  if (lf % G)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C11) lhs feature size %lld is not a multiple of "
                        "feature_group_count %lld",
                        (long long)lf, (long long)G);
  if (ki != lf / G)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C14) rhs input feature size %lld must be lhs feature "
                        "size %lld / feature_group_count %lld",
                        (long long)ki, (long long)lf, (long long)G);
  if (ko % B)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C15) rhs output feature size %lld is not a multiple "
                        "of batch_group_count %lld",
                        (long long)ko, (long long)B);
  if (ko % G)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C16) rhs output feature size %lld is not a multiple "
                        "of feature_group_count %lld",
                        (long long)ko, (long long)G);

  conv_args_t* a = hlx_lower_alloc(c, sizeof(*a));
  if (!a) return hlx_status_oom();
  memset(a, 0, sizeof(*a));
  hlx_conv_params_t* p = &a->p;
  p->num_spatial = ns;
  p->batch = lb;
  p->in_features = lf;
  p->out_features = ko;
  p->kernel_in_features = ki;
  p->feature_group_count = G;
  p->batch_group_count = B;
  HLX_RETURN_IF_ERROR(spatial_attr(op, "window_strides", ns, 1, 1, "(C2)",
                                   "(C3)", p->stride));
  HLX_RETURN_IF_ERROR(spatial_attr(op, "lhs_dilation", ns, 1, 1, "(C5)",
                                   "(C6)", p->lhs_dilation));
  HLX_RETURN_IF_ERROR(spatial_attr(op, "rhs_dilation", ns, 1, 1, "(C7)",
                                   "(C8)", p->rhs_dilation));
  int64_t rev[HLX_MAX_RANK];
  HLX_RETURN_IF_ERROR(spatial_attr(op, "window_reversal", ns, 0, 0, "(C9)",
                                   "(C9)", rev));
  for (int32_t d = 0; d < ns; d++) p->reversal[d] = rev[d] != 0;
  bool pad_known = true;
  if (dynamic) {
    const hlx_type_t* pt = hlx_static_tensor(op->operands[2]);
    if (!pt || pt->rank != 2 || pt->dims[0] != ns || pt->dims[1] != 2 ||
        !hlx_dtype_is_int(pt->dtype) || pt->quant)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C4) padding must be an integer tensor of shape "
                          "[%d, 2]",
                          ns);
    a->dynamic_padding = true;
    a->pad_dtype = pt->dtype;
    pad_known = false;
  } else {
    const hlx_attr_t* pa = hlx_op_attr(op, "padding");
    int64_t pv[2 * HLX_MAX_RANK];
    int32_t np = 0;
    if (pa) {
      bool ok = false;
      if (pa->kind == HLX_ATTR_DENSE && pa->type &&
          (hlx_dtype_is_int(pa->type->dtype))) {
        int64_t cnt = hlx_type_num_elements(pa->type);
        ok = pa->type->rank == 2 && pa->type->dims[0] == ns &&
             pa->type->dims[1] == 2 && cnt == 2 * ns &&
             hlx_ref_convert(pa->type->dtype, pa->dense, HLX_DTYPE_S64, pv,
                             (size_t)cnt);
        np = (int32_t)cnt;
      } else if (pa->kind == HLX_ATTR_I64_ARRAY && pa->count == 2 * ns) {
        if (pa->count) memcpy(pv, pa->ints, sizeof(int64_t) * (size_t)pa->count);
        np = pa->count;
        ok = true;
      }
      if (!ok)
        return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                            "(C4) shape(padding) must be [%d, 2]", ns);
    }
    for (int32_t d = 0; d < ns; d++) {
      p->pad_lo[d] = np ? pv[2 * d] : 0;
      a->pad_hi[d] = np ? pv[2 * d + 1] : 0;
    }
  }
  /* (C25) result shape. */
  for (int32_t d = 0; d < ns; d++) {
    p->in_spatial[d] = l->dims[isp[d]];
    p->kernel_spatial[d] = r->dims[ksp[d]];
    p->out_spatial[d] = o->dims[osp[d]];
    if (pad_known) {
      int64_t nw = hlx_conv_num_windows(p->in_spatial[d], p->kernel_spatial[d],
                                        p->stride[d], p->pad_lo[d],
                                        a->pad_hi[d], p->lhs_dilation[d],
                                        p->rhs_dilation[d]);
      if (nw < 0)
        return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                            "(C25) window arithmetic overflows in spatial "
                            "dimension %d",
                            d);
      if (nw != p->out_spatial[d])
        return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                            "(C25) result dimension %lld (spatial %d) has "
                            "size %lld, expected %lld windows",
                            (long long)osp[d], d, (long long)p->out_spatial[d],
                            (long long)nw);
    } else if (p->out_spatial[d] < 0) {
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C25) bad result size");
    }
  }
  if (o->dims[ob] != lb / B)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C25) result batch dimension has size %lld, expected "
                        "%lld (lhs batch / batch_group_count)",
                        (long long)o->dims[ob], (long long)(lb / B));
  if (o->dims[of] != ko)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C25) result feature dimension has size %lld, "
                        "expected %lld (rhs output features)",
                        (long long)o->dims[of], (long long)ko);

  int64_t order[HLX_MAX_RANK];
  order[0] = ib;
  for (int32_t d = 0; d < ns; d++) order[1 + d] = isp[d];
  order[N - 1] = ifd;
  make_perm(l, order, &a->lhs);
  for (int32_t d = 0; d < ns; d++) order[d] = ksp[d];
  order[ns] = kif;
  order[ns + 1] = kof;
  make_perm(r, order, &a->rhs);
  order[0] = ob;
  for (int32_t d = 0; d < ns; d++) order[1 + d] = osp[d];
  order[N - 1] = of;
  make_perm(o, order, &a->out); /* strides: where canonical index lands */

  if (r->quant && r->quant->quantized_dimension >= 0 &&
      r->quant->quantized_dimension != kof)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C29) rhs quantization_dimension %d must be "
                        "kernel_output_feature_dimension %lld",
                        r->quant->quantized_dimension, (long long)kof);
  if (o->quant && o->quant->quantized_dimension >= 0 &&
      o->quant->quantized_dimension != of)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C30) result quantization_dimension %d must be "
                        "output_feature_dimension %lld",
                        o->quant->quantized_dimension, (long long)of);
  if (l->quant && r->quant->quantized_dimension < 0 &&
      o->quant->quantized_dimension >= 0)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C33) a per-tensor quantized rhs needs a per-tensor "
                        "quantized result");
  const hlx_type_t* qt[3] = {l, r, o};
  qinfo_t* qi[3] = {&a->lq, &a->rq, &a->oq};
  for (int i = 0; i < 3; i++) {
    const hlx_quant_t* q = qt[i]->quant;
    if (!q) continue;
    qinfo_t* d = qi[i];
    d->on = true;
    d->expressed = q->expressed;
    d->n = q->quantized_dimension >= 0 ? q->num_scales : 1;
    if (q->quantized_dimension >= 0 &&
        q->num_scales != qt[i]->dims[q->quantized_dimension])
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "per-axis quantization has %d scales for a "
                          "dimension of size %lld",
                          q->num_scales,
                          (long long)qt[i]->dims[q->quantized_dimension]);
    d->scales = hlx_lower_alloc(c, sizeof(double) * (size_t)(d->n + 1));
    d->zps = hlx_lower_alloc(c, sizeof(int64_t) * (size_t)(d->n + 1));
    if (!d->scales || !d->zps) return hlx_status_oom();
    for (int64_t k = 0; k < d->n; k++) {
      d->scales[k] = q->scales[k];
      d->zps[k] = q->zero_points ? q->zero_points[k] : 0;
    }
    int bits = hlx_dtype_bits(q->storage);
    if (q->has_storage_range) {
      d->qmin = (double)q->storage_min;
      d->qmax = (double)q->storage_max;
    } else if (hlx_dtype_is_signed_int(q->storage)) {
      d->qmin = -ldexp(1.0, bits - 1);
      d->qmax = ldexp(1.0, bits - 1) - 1;
    } else {
      d->qmin = 0;
      d->qmax = ldexp(1.0, bits) - 1;
    }
  }

  hlx_dtype_t ct = quant ? HLX_DTYPE_F64 : HLX_DTYPE_S64;
  hlx_dtype_t types[3] = {l->dtype, r->dtype, o->dtype};
  for (int i = 0; i < 3; i++) {
    hlx_dtype_t t = compute_type(types[i]);
    if (t == HLX_DTYPE_C128 || (t == HLX_DTYPE_F64 && ct == HLX_DTYPE_S64))
      ct = t;
  }
  a->compute = ct;

  bool done;
  HLX_RETURN_IF_ERROR(lower_conv_onednn(c, op, a, ep, &done));
  if (ep) {
    *ep_done = done;
    return NULL;
  }
  if (done) return NULL;
  /* the reference kernel reads the logical layout */
  if (!dynamic) HLX_RETURN_IF_ERROR(hlx_lower_act_unblock(c, op->operands[0]));
  int32_t in[3], out;
  for (int32_t i = 0; i < want_ops; i++)
    HLX_RETURN_IF_ERROR(hlx_lower_in(c, op, i, &in[i]));
  HLX_RETURN_IF_ERROR(hlx_lower_out(c, op, 0, &out));
  return hlx_lower_emit(c, op, run_conv, a, want_ops, in, 1, &out);
}

static hlx_status_t lower_convolution(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  return lower_conv_common(c, op, false, NULL, NULL);
}

static hlx_status_t lower_dynamic_conv(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  return lower_conv_common(c, op, true, NULL, NULL);
}

hlx_status_t hlx_lower_conv_epilogue(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                     const hlx_epilogue_t* ep, bool* done) {
  *done = false;
  if (op->code != HLX_OP_CONVOLUTION) return NULL;
  return lower_conv_common(c, op, false, ep, done);
}

const hlx_lowering_t hlx_lowerings_conv[] = {
    {HLX_OP_CONVOLUTION, lower_convolution},
    {HLX_OP_DYNAMIC_CONV, lower_dynamic_conv},
    {HLX_OP_UNKNOWN, NULL},
};
