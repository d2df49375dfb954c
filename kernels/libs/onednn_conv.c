/* oneDNN f32 forward convolution (onednn.h): user layouts reordered to
 * the primitive's (or read as they are where oneDNN has a fast kernel for
 * them: plain_pins; nchw <-> channels last by hlx's transpose:
 * channel_block; a first layer in bands of output rows: band_build),
 * packed weights, Winograd on request, post-ops; runs take their reorder
 * buffers and scratchpad from a per-thread workspace. Objects live in
 * onednn_common.c's reference-counted cache (hlx_dnnl_obtain). */
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/dispatch.h"
#include "kernels/libs/onednn_internal.h"

/* A one-thread primitive for the output rows of one band (band_build),
 * keyed by its geometry. */
enum { BAND_MAX_PRIMS = 6, BAND_DST_BYTES = 512 * 1024 };
typedef struct band_prim_t {
  dnnl_primitive_t prim;
  int64_t in_rows, out_rows, pad_t;
  dnnl_memory_desc_t src;      /* dense nchw [1, C, in_rows, W] */
  dnnl_memory_desc_t dst;      /* the primitive's blocked [1, O, rows, OW] */
  dnnl_memory_desc_t dst_user; /* those rows of the caller's dst */
  hlx_dnnl_scratch_t scratch;
} band_prim_t;

struct hlx_onednn_conv_t {
  hlx_onednn_conv_desc_t d;
  dnnl_primitive_t conv;
  /* user layout -> primitive layout (NULL when they are equal) */
  dnnl_primitive_t src_reorder, wei_reorder, dst_reorder;
  dnnl_memory_desc_t src_user, wei_user, dst_user;
  dnnl_memory_desc_t src_prim, wei_prim, dst_prim;
  dnnl_memory_desc_t bias_md, post_md[HLX_ONEDNN_MAX_POST_OPS];
  int32_t sum_index;          /* post-op read from dst (a sum), or -1 */
  hlx_dnnl_scratch_t scratch; /* of `conv`; src/dst reorders need none */
  hlx_dnnl_scratch_t
      wei_scratch; /* of wei_reorder (Winograd weights need one) */
  /* Channel block of src_prim / dst_prim when hlx's transpose does that
   * side's reorder instead of oneDNN (see channel_block), else 0. */
  int64_t src_blk, dst_blk;
  /* Output-row bands of a first layer (see band_build): 0 = none. */
  int64_t band_rows, num_bands;
  int32_t num_band_prims;
  band_prim_t band[BAND_MAX_PRIMS];
  char impl[64];
};

/* oneDNN lists its F(2x2, 3x3) Winograd kernel first; F(4x4, 3x3) does
 * fewer multiplications: with ResNet-50's epilogues it measured 1.4x
 * faster at 56x56 outputs but slower at 14x14 and 7x7 (28x28 only has
 * the 4x3 kernel), so the caller asks for it from 28x28 up and *pd
 * becomes that one when it is offered. */
static void pick_wino_4x3(dnnl_primitive_desc_t* pd, const_dnnl_op_desc_t od,
                          const_dnnl_primitive_attr_t attr, dnnl_engine_t eng) {
  const char* impl = NULL;
  if (dnnl_primitive_desc_query(*pd, dnnl_query_impl_info_str, 0, &impl) !=
          dnnl_success ||
      !impl || strstr(impl, "wino_4x3"))
    return;
  dnnl_primitive_desc_iterator_t it;
  if (dnnl_primitive_desc_iterator_create(&it, od, attr, eng, NULL) !=
      dnnl_success)
    return;
  do {
    dnnl_primitive_desc_t c = dnnl_primitive_desc_iterator_fetch(it);
    if (!c) break;
    if (dnnl_primitive_desc_query(c, dnnl_query_impl_info_str, 0, &impl) ==
            dnnl_success &&
        impl && strstr(impl, "wino_4x3")) {
      dnnl_primitive_desc_destroy(*pd);
      *pd = c;
      break;
    }
    dnnl_primitive_desc_destroy(c);
  } while (dnnl_primitive_desc_iterator_next(it) == dnnl_success);
  dnnl_primitive_desc_iterator_destroy(it);
}

/* Which of src (PIN_SRC) / dst (PIN_DST) to ask for in the caller's own
 * layout for a lone layer (neither side blocked by the plan): a reorder
 * into the blocked layout and back costs a 1x1 layer a quarter of its
 * time. Measured (benchmarks/RESULTS.md, conv_bench and issue 6):
 *   - a 1x1 stride-1 unpadded convolution is a matmul per image; oneDNN
 *     runs it on plain (nchw) src and dst as one gemm with no copy, as fast
 *     as its blocked kernel from 13x13 outputs on, slower below (7x7);
 *   - with few input features (the first layer: 3), oneDNN's direct
 *     kernel reads nchw src itself (dst stays blocked): the src reorder
 *     goes, and an im2col gemm kernel is refused (PIN_PLAIN).
 * HLX_CONV_NO_PLAIN=1 turns this off (read when a primitive is built). */
enum { PIN_SRC = 1, PIN_DST = 2, PIN_PLAIN = 4 };
enum { POINTWISE_MIN_OUT = 128, FIRST_LAYER_MAX_IN = 4 };

static int32_t plain_pins(const hlx_onednn_conv_desc_t* d) {
  const char* off = getenv("HLX_CONV_NO_PLAIN"); /* A/B switch */
  if (off && *off && *off != '0') return 0;
  if (d->src_blocked || d->dst_blocked || d->transposed || d->winograd ||
      d->groups != 1)
    return 0;
  bool pointwise = true;
  int64_t out = 1;
  for (int32_t i = 0; i < d->num_spatial; i++) {
    pointwise &= d->kernel_spatial[i] == 1 && d->stride[i] == 1 &&
                 d->pad_lo[i] == 0 && d->out_spatial[i] == d->in_spatial[i];
    out *= d->out_spatial[i];
  }
  if (pointwise && out >= POINTWISE_MIN_OUT)
    return PIN_SRC | PIN_DST | PIN_PLAIN;
  if (d->in_features <= FIRST_LAYER_MAX_IN) return PIN_SRC | PIN_PLAIN;
  return 0;
}

/* The boundary reorders of a lone NCHW layer (nchw <-> nhwc or nChw16c)
 * are transposes: oneDNN's reorders ran them at 7-15 GB/s (the 3x3
 * 64->64 layer at 56^2 spent 8% of its time in them, RESULTS.md); hlx's
 * tiled transpose, split over the same threads, does them ~3x faster.
 * Returns b when `prim` is `user` with the channels moved innermost in
 * blocks of b (b = C: channels last; b = 16 or 8: nC[d][h]w16c), both
 * with dense row-major spatial dims, the user's image and channel
 * strides free; 0 otherwise (oneDNN's reorder stays).
 * HLX_CONV_ONEDNN_REORDER=1 turns it off (A/B switch, read at creation). */
static int64_t channel_block(const dnnl_memory_desc_t* user,
                             const dnnl_memory_desc_t* prim) {
  const char* off = getenv("HLX_CONV_ONEDNN_REORDER");
  if (off && *off && *off != '0') return 0;
  int nd = user->ndims;
  const dnnl_blocking_desc_t* u = &user->format_desc.blocking;
  const dnnl_blocking_desc_t* p = &prim->format_desc.blocking;
  if (nd < 3 || prim->ndims != nd || user->format_kind != dnnl_blocked ||
      prim->format_kind != dnnl_blocked || user->data_type != dnnl_f32 ||
      prim->data_type != dnnl_f32 || user->offset0 || prim->offset0 ||
      u->inner_nblks != 0)
    return 0;
  int64_t c = user->dims[1], b = c, sp = 1;
  for (int i = 0; i < nd; i++)
    if (prim->dims[i] != user->dims[i] ||
        prim->padded_dims[i] != user->dims[i])
      return 0;
  if (p->inner_nblks == 1 && p->inner_idxs[0] == 1)
    b = p->inner_blks[0];
  else if (p->inner_nblks != 0 || p->strides[1] != 1)
    return 0;
  if (c % b) return 0;
  for (int i = nd - 1; i >= 2; i--) {
    if (u->strides[i] != sp || p->strides[i] != sp * b) return 0;
    sp *= user->dims[i];
  }
  if (p->strides[0] != sp * c || (b != c && p->strides[1] != sp * b)) return 0;
  return b;
}

/* One side's reorder by transposes: per image and channel block, the
 * [b, S] slice of the user tensor (row stride = its channel stride) to or
 * from the primitive's [S, b]; the threads take ranges of S. */
typedef struct boundary_t {
  const dnnl_memory_desc_t *user, *prim;
  int64_t blk;
  bool to_prim; /* user -> prim (src) or prim -> user (dst) */
  hlx_transpose_fn tr; /* the calling thread's (its ISA cap) */
  const float* from;
  float* to;
} boundary_t;

static void boundary_part(const boundary_t* b, int t, int nt) {
  hlx_transpose_fn tr = b->tr;
  const dnnl_memory_desc_t* u = b->user;
  const dnnl_dims_t* us = &u->format_desc.blocking.strides;
  const dnnl_dims_t* ps = &b->prim->format_desc.blocking.strides;
  int64_t sp = 1;
  for (int i = 2; i < u->ndims; i++) sp *= u->dims[i];
  /* ranges of whole 64-byte lines of the user's rows */
  int64_t s0 = sp * t / nt / 16 * 16,
          s1 = t + 1 == nt ? sp : sp * (t + 1) / nt / 16 * 16;
  if (s1 <= s0) return;
  for (int64_t n = 0; n < u->dims[0]; n++)
    for (int64_t cb = 0; cb < u->dims[1] / b->blk; cb++) {
      int64_t uo = n * (*us)[0] + cb * b->blk * (*us)[1] + s0;
      int64_t po = n * (*ps)[0] + (b->blk == u->dims[1] ? 0 : cb * (*ps)[1]) +
                   s0 * b->blk;
      if (b->to_prim)
        tr(b->from + uo, (*us)[1], b->to + po, b->blk, (size_t)b->blk,
           (size_t)(s1 - s0));
      else
        tr(b->from + po, b->blk, b->to + uo, (*us)[1], (size_t)(s1 - s0),
           (size_t)b->blk);
    }
}

/* The OpenMP team for hlx's own parallel regions here (the scope's budget
 * set). Under ThreadSanitizer one thread: Debian's libgomp is not
 * instrumented, so TSan cannot see its fork/join and would report every
 * buffer a team thread writes and the caller then reads. */
static int team_size(void) {
#if defined(__SANITIZE_THREAD__)
  return 1;
#else
  return omp_get_max_threads();
#endif
}

/* Runs the transposes on the run's thread budget (one OpenMP team, as
 * oneDNN's reorder would). */
static void boundary_run(const hlx_onednn_conv_t* cv, const boundary_t* b) {
  hlx_dnnl_scope_t scope;
  hlx_dnnl_scope_enter(&scope, cv->d.threads);
  int nt = team_size();
  if (nt <= 1) {
    boundary_part(b, 0, 1);
  } else {
#pragma omp parallel num_threads(nt)
    boundary_part(b, omp_get_thread_num(), omp_get_num_threads());
  }
  hlx_dnnl_scope_leave(&scope, cv->d.threads);
}

/* Bytes of a workspace part, whole 64-byte lines. */
static size_t ws_part(size_t bytes) { return (bytes + 63) / 64 * 64; }

/* Rows [*in0, *in0 + *in_rows) of the input that band `b` (output rows
 * [b * rows, ...)) reads, with the padding above them. */
static void band_geometry(const hlx_onednn_conv_t* cv, int64_t b,
                          int64_t* out_rows, int64_t* in0, int64_t* in_rows,
                          int64_t* pad_t) {
  const hlx_onednn_conv_desc_t* d = &cv->d;
  int64_t oy0 = b * cv->band_rows, r = d->out_spatial[0] - oy0;
  if (r > cv->band_rows) r = cv->band_rows;
  int64_t range = (d->kernel_spatial[0] - 1) * d->dilation[0] + 1;
  int64_t lo = oy0 * d->stride[0] - d->pad_lo[0];
  int64_t hi = (oy0 + r - 1) * d->stride[0] - d->pad_lo[0] + range;
  *pad_t = lo < 0 ? -lo : 0;
  if (lo < 0) lo = 0;
  if (hi > d->in_spatial[0]) hi = d->in_spatial[0];
  *out_rows = r, *in0 = lo, *in_rows = hi - lo;
}

static const band_prim_t* band_find(const hlx_onednn_conv_t* cv,
                                    int64_t out_rows, int64_t in_rows,
                                    int64_t pad_t) {
  for (int32_t i = 0; i < cv->num_band_prims; i++)
    if (cv->band[i].out_rows == out_rows && cv->band[i].in_rows == in_rows &&
        cv->band[i].pad_t == pad_t)
      return &cv->band[i];
  return NULL;
}

/* A first layer (src read as nchw, dst blocked and transposed back) runs
 * as bands of output rows, each thread of one OpenMP team taking whole
 * bands: copy its input rows, convolve them with a one-thread primitive,
 * transpose its ~512 KB of output back while it is still in L2. That is
 * one parallel region instead of two (conv, reorder) and no 3.2 MB
 * blocked dst written out and read back. Measured (RESULTS.md, busy
 * machine): one thread as fast as the whole layer + reorder (0.92 of
 * oneDNN direct); two threads on a loaded machine 0.85-1.0 where two
 * regions gave 0.12-0.94 (each region waits for a time slice).
 * HLX_CONV_NO_BANDS=1 turns it off (A/B switch, read at creation).
 * Declines (num_bands = 0) when a band primitive would differ. */
/* oneDNN's Winograd kernels take its relu but not the elu that keeps NaN
 * (hlx_dnnl_add_post_ops): with them a fused relu gives 0 for NaN, part
 * of the option's different rounding (README). */
static bool wino_relu(const hlx_onednn_conv_desc_t* d) {
  return d->winograd && !d->transposed;
}

static void band_build(hlx_onednn_conv_t* cv, int32_t pins) {
  const hlx_onednn_conv_desc_t* d = &cv->d;
  const char* off = getenv("HLX_CONV_NO_BANDS");
  if ((off && *off && *off != '0') || pins != (PIN_SRC | PIN_PLAIN) ||
      !cv->dst_blk || cv->src_reorder || d->num_spatial != 2 ||
      d->transposed || d->winograd || d->groups != 1 ||
      d->src_strides[3] != 1 || d->src_strides[2] != d->in_spatial[1])
    return;
  for (int32_t i = 0; i < d->num_post_ops; i++)
    if (d->post_ops[i].shape != HLX_ONEDNN_OPERAND_NONE) return;
  int64_t oh = d->out_spatial[0], ow = d->out_spatial[1];
  int64_t rows = BAND_DST_BYTES / (d->out_features * ow * 4);
  if (rows < 1) rows = 1;
  int nt = d->threads > 0 ? d->threads : omp_get_max_threads();
  int64_t nb = (oh + rows - 1) / rows;
  nb = (nb + nt - 1) / nt * nt;
  if (nb < 2) return;
  cv->band_rows = (oh + nb - 1) / nb;
  cv->num_bands = (oh + cv->band_rows - 1) / cv->band_rows;
  dnnl_format_tag_t tag = cv->dst_blk == 16  ? dnnl_aBcd16b
                          : cv->dst_blk == 8 ? dnnl_aBcd8b
                                             : dnnl_format_tag_undef;
  bool ok = tag != dnnl_format_tag_undef;
  for (int64_t b = 0; ok && b < cv->num_bands; b++) {
    int64_t r, in0, in_rows, pt;
    band_geometry(cv, b, &r, &in0, &in_rows, &pt);
    if (band_find(cv, r, in_rows, pt)) continue;
    if (cv->num_band_prims == BAND_MAX_PRIMS) {
      ok = false;
      break;
    }
    band_prim_t* bp = &cv->band[cv->num_band_prims];
    bp->out_rows = r, bp->in_rows = in_rows, bp->pad_t = pt;
    dnnl_dims_t sd = {1, d->in_features, in_rows, d->in_spatial[1]},
                dd = {1, d->out_features, r, ow},
                ds = {d->dst_strides[0], d->dst_strides[1], d->dst_strides[2],
                      d->dst_strides[3]},
                st = {d->stride[0], d->stride[1]},
                dil = {d->dilation[0] - 1, d->dilation[1] - 1},
                pl = {pt, d->pad_lo[1]}, pr;
    for (int i = 0; i < 2; i++) {
      int64_t range = (d->kernel_spatial[i] - 1) * d->dilation[i] + 1;
      int64_t in = i ? d->in_spatial[1] : in_rows;
      pr[i] = (dd[2 + i] - 1) * d->stride[i] + range - in - pl[i];
    }
    dnnl_convolution_desc_t cd;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_attr_t attr = hlx_dnnl_user_scratchpad_attr();
    ok = attr && pr[0] >= 0 &&
         dnnl_memory_desc_init_by_tag(&bp->src, 4, sd, dnnl_f32, dnnl_nchw) ==
             dnnl_success &&
         dnnl_memory_desc_init_by_tag(&bp->dst, 4, dd, dnnl_f32, tag) ==
             dnnl_success &&
         dnnl_memory_desc_init_by_strides(&bp->dst_user, 4, dd, dnnl_f32,
                                          ds) == dnnl_success &&
         dnnl_dilated_convolution_forward_desc_init(
             &cd, dnnl_forward_inference, dnnl_convolution_direct, &bp->src,
             &cv->wei_prim, d->has_bias ? &cv->bias_md : NULL, &bp->dst, st,
             dil, pl, pr) == dnnl_success;
    if (ok) {
      dnnl_memory_desc_t post_md[HLX_ONEDNN_MAX_POST_OPS];
      int32_t sum_index;
      hlx_status_t pst =
          hlx_dnnl_add_post_ops(attr, d->num_post_ops, d->post_ops, 4, dd, ds,
                                1, false, post_md, &sum_index);
      ok = !pst;
      hlx_status_free(pst);
    }
    hlx_dnnl_scope_t scope;
    hlx_dnnl_scope_enter(&scope, 1);
    ok = ok && dnnl_primitive_desc_create(&pd, &cd, attr, hlx_dnnl_engine(),
                                          NULL) == dnnl_success;
    char impl[64];
    /* a fast kernel on the weights packed for the whole layer */
    ok = ok && !hlx_dnnl_is_ref_impl(pd, impl, sizeof impl) &&
         !strstr(impl, "gemm") &&
         dnnl_memory_desc_equal(
             dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0),
             &cv->wei_prim);
    if (ok) {
      hlx_dnnl_scratch_query(pd, &bp->scratch);
      ok = dnnl_primitive_create(&bp->prim, pd) == dnnl_success;
    }
    hlx_dnnl_scope_leave(&scope, 1);
    if (pd) dnnl_primitive_desc_destroy(pd);
    if (attr) dnnl_primitive_attr_destroy(attr);
    if (ok) cv->num_band_prims++;
  }
  if (!ok) cv->num_bands = 0; /* primitives made so far go with cv */
}

/* A band thread's workspace: input rows, output rows, then the largest
 * scratchpad; returns the total. */
static size_t band_ws_bytes(const hlx_onednn_conv_t* cv, size_t* in_bytes,
                            size_t* out_bytes) {
  const hlx_onednn_conv_desc_t* d = &cv->d;
  int64_t range = (d->kernel_spatial[0] - 1) * d->dilation[0] + 1;
  int64_t in_rows = (cv->band_rows - 1) * d->stride[0] + range;
  *in_bytes = ws_part((size_t)(d->in_features * in_rows * d->in_spatial[1]) *
                      sizeof(float));
  *out_bytes = ws_part(
      (size_t)(d->out_features * cv->band_rows * d->out_spatial[1]) *
      sizeof(float));
  size_t sc = 0;
  for (int32_t i = 0; i < cv->num_band_prims; i++)
    if (cv->band[i].scratch.bytes > sc) sc = cv->band[i].scratch.bytes;
  return *in_bytes + *out_bytes + ws_part(sc);
}

/* One thread's share of a banded run (bands [nb t / nt, nb (t+1) / nt) of
 * every image); *failed set on an error. */
typedef struct band_run_t {
  const hlx_onednn_conv_t* cv;
  const float *src, *bias;
  const void* wei;
  float* dst;
  hlx_transpose_fn tr;
  void* master_ws; /* thread 0's part of the run's workspace */
  size_t ws_bytes;
  atomic_int failed;
} band_run_t;

static void band_part(band_run_t* br, int t, int nt) {
  const hlx_onednn_conv_t* cv = br->cv;
  const hlx_onednn_conv_desc_t* d = &cv->d;
  unsigned char* ws =
      t == 0 ? br->master_ws : hlx_dnnl_workspace(br->ws_bytes);
  dnnl_stream_t stream = NULL;
  if (!ws || dnnl_stream_create(&stream, hlx_dnnl_engine(),
                                dnnl_stream_default_flags) != dnnl_success) {
    atomic_store(&br->failed, 1);
    return;
  }
  int64_t w = d->in_spatial[1];
  size_t in_bytes, out_bytes;
  band_ws_bytes(cv, &in_bytes, &out_bytes);
  float* in = (float*)ws;
  float* out = (float*)(ws + in_bytes);
  void* scratch = ws + in_bytes + out_bytes;
  int64_t b0 = cv->num_bands * t / nt, b1 = cv->num_bands * (t + 1) / nt;
  for (int64_t n = 0; n < d->batch && !atomic_load(&br->failed); n++)
    for (int64_t b = b0; b < b1 && !atomic_load(&br->failed); b++) {
      int64_t r, in0, in_rows, pt;
      band_geometry(cv, b, &r, &in0, &in_rows, &pt);
      const band_prim_t* bp = band_find(cv, r, in_rows, pt);
      for (int64_t c = 0; c < d->in_features; c++)
        memcpy(in + c * in_rows * w,
               br->src + n * d->src_strides[0] + c * d->src_strides[1] +
                   in0 * w,
               (size_t)(in_rows * w) * sizeof(float));
      hlx_dnnl_mem_list_t ml = {.n = 0};
      dnnl_memory_t sm, wm, dm, xm = NULL, bm = NULL;
      dnnl_status_t s;
      if ((s = hlx_dnnl_mem_add(&ml, &bp->src, in, &sm)) == dnnl_success &&
          (s = hlx_dnnl_mem_add(&ml, &cv->wei_prim, br->wei, &wm)) ==
              dnnl_success &&
          (s = hlx_dnnl_mem_add(&ml, &bp->dst, out, &dm)) == dnnl_success &&
          (!bp->scratch.bytes ||
           (s = hlx_dnnl_mem_add(&ml, &bp->scratch.md, scratch, &xm)) ==
               dnnl_success) &&
          (!d->has_bias || (s = hlx_dnnl_mem_add(&ml, &cv->bias_md, br->bias,
                                                 &bm)) == dnnl_success)) {
        dnnl_exec_arg_t args[5] = {
            {DNNL_ARG_SRC, sm}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DST, dm}};
        int na = 3;
        if (xm) args[na++] = (dnnl_exec_arg_t){DNNL_ARG_SCRATCHPAD, xm};
        if (bm) args[na++] = (dnnl_exec_arg_t){DNNL_ARG_BIAS, bm};
        s = dnnl_primitive_execute(bp->prim, stream, na, args);
        if (s == dnnl_success) s = dnnl_stream_wait(stream);
      }
      hlx_dnnl_mem_free(&ml);
      if (s != dnnl_success) {
        atomic_store(&br->failed, 1);
        break;
      }
      boundary_t tb = {&bp->dst_user, &bp->dst, cv->dst_blk, false, br->tr,
                       out, br->dst + n * d->dst_strides[0] +
                                b * cv->band_rows * d->dst_strides[2]};
      boundary_part(&tb, 0, 1);
    }
  dnnl_stream_destroy(stream);
}

static hlx_status_t band_run(const hlx_onednn_conv_t* cv, const float* src,
                             const void* wei, const float* bias, float* dst,
                             void* master_ws) {
  size_t in_bytes, out_bytes;
  band_run_t br = {.cv = cv,
                   .src = src,
                   .bias = bias,
                   .wei = wei,
                   .dst = dst,
                   .tr = hlx_transpose_kernel(sizeof(float)),
                   .master_ws = master_ws,
                   .ws_bytes = band_ws_bytes(cv, &in_bytes, &out_bytes)};
  atomic_init(&br.failed, 0);
  hlx_dnnl_scope_t scope;
  hlx_dnnl_scope_enter(&scope, cv->d.threads);
  int nt = team_size();
  if (nt <= 1) {
    band_part(&br, 0, 1);
  } else {
#pragma omp parallel num_threads(nt)
    band_part(&br, omp_get_thread_num(), omp_get_num_threads());
  }
  hlx_dnnl_scope_leave(&scope, cv->d.threads);
  return atomic_load(&br.failed)
             ? hlx_make_status(HLX_STATUS_INTERNAL,
                               "oneDNN convolution: a band failed (out of "
                               "memory or a oneDNN error)")
             : NULL;
}

static hlx_status_t conv_build(hlx_onednn_conv_t* cv) {
  const hlx_onednn_conv_desc_t* d = &cv->d;
  int32_t ns = d->num_spatial;
  dnnl_engine_t eng = hlx_dnnl_engine();
  if (!eng)
    return hlx_make_status(HLX_STATUS_INTERNAL, "oneDNN: no CPU engine");
  dnnl_dims_t sd, wd, dd, ss, ws, ds, strides, dil, pl, pr;
  int wnd = 0;
  sd[0] = d->batch, sd[1] = d->in_features;
  ss[0] = d->src_strides[0], ss[1] = d->src_strides[1];
  dd[0] = d->batch, dd[1] = d->out_features;
  ds[0] = d->dst_strides[0], ds[1] = d->dst_strides[1];
  int64_t ci = d->in_features / d->groups, og = d->out_features / d->groups;
  if (d->groups > 1) {
    wd[0] = d->groups, wd[1] = og, wd[2] = ci;
    ws[0] = og * d->wei_strides[0], ws[1] = d->wei_strides[0],
    ws[2] = d->wei_strides[1];
    wnd = 3;
  } else {
    wd[0] = d->out_features, wd[1] = ci;
    ws[0] = d->wei_strides[0], ws[1] = d->wei_strides[1];
    wnd = 2;
  }
  for (int32_t i = 0; i < ns; i++) {
    sd[2 + i] = d->in_spatial[i], ss[2 + i] = d->src_strides[2 + i];
    dd[2 + i] = d->out_spatial[i], ds[2 + i] = d->dst_strides[2 + i];
    wd[wnd + i] = d->kernel_spatial[i], ws[wnd + i] = d->wei_strides[2 + i];
    strides[i] = d->stride[i];
    dil[i] = d->dilation[i] - 1;
    pl[i] = d->pad_lo[i];
    int64_t range = (d->kernel_spatial[i] - 1) * d->dilation[i] + 1;
    /* what the far side pads (oneDNN wants it given) */
    int64_t small = d->transposed ? d->in_spatial[i] : d->out_spatial[i];
    int64_t big = d->transposed ? d->out_spatial[i] : d->in_spatial[i];
    pr[i] = (small - 1) * d->stride[i] + range - big - d->pad_lo[i];
    if (d->transposed && pr[i] < 0) /* a convolution may end early */
      return hlx_make_status(HLX_STATUS_UNIMPLEMENTED,
                             "oneDNN deconvolution: negative high padding");
  }
  wnd += ns;
  HLX_DNNL_TRY(
      dnnl_memory_desc_init_by_strides(&cv->src_user, 2 + ns, sd, dnnl_f32, ss),
      "src descriptor");
  HLX_DNNL_TRY(
      dnnl_memory_desc_init_by_strides(&cv->wei_user, wnd, wd, dnnl_f32, ws),
      "weights descriptor");
  HLX_DNNL_TRY(
      dnnl_memory_desc_init_by_strides(&cv->dst_user, 2 + ns, dd, dnnl_f32, ds),
      "dst descriptor");
  if (d->src_blocked)
    HLX_RETURN_IF_ERROR(hlx_dnnl_blocked_md(&cv->src_user, 2 + ns, sd));
  if (d->dst_blocked)
    HLX_RETURN_IF_ERROR(hlx_dnnl_blocked_md(&cv->dst_user, 2 + ns, dd));
  if (d->has_bias) {
    dnnl_dims_t bd = {d->out_features};
    HLX_DNNL_TRY(
        dnnl_memory_desc_init_by_tag(&cv->bias_md, 1, bd, dnnl_f32, dnnl_a),
        "bias descriptor");
  }
  if (d->num_post_ops < 0 || d->num_post_ops > HLX_ONEDNN_MAX_POST_OPS)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "oneDNN convolution: %d post-ops", d->num_post_ops);
  /* Attempts, first that gives a fast kernel wins: src/dst in the
   * caller's layout where that avoids reorders (plain_pins), a blocked
   * src/dst as it is (no reorder), then every layout oneDNN's choice. */
  int32_t pins[4], np = 0;
  int32_t plain = plain_pins(d);
  if (plain) pins[np++] = plain;
  if (d->src_blocked || d->dst_blocked)
    pins[np++] =
        (d->src_blocked ? PIN_SRC : 0) | (d->dst_blocked ? PIN_DST : 0);
  /* a sum post-op reads dst as the caller holds it: without AVX-512
   * oneDNN's choice is a blocked dst, which would decline the epilogue */
  bool sum = false;
  for (int32_t i = 0; i < d->num_post_ops; i++)
    sum |= d->post_ops[i].shape == HLX_ONEDNN_OPERAND_FULL &&
           d->post_ops[i].kind != HLX_ONEDNN_POST_MUL;
  if (sum && !d->dst_blocked && !(plain & PIN_DST))
    pins[np++] = PIN_DST | (d->src_blocked ? 0 : PIN_SRC);
  pins[np++] = 0;
  dnnl_primitive_desc_t pd = NULL;
  dnnl_status_t s = dnnl_unimplemented;
  int32_t chosen = 0;
  for (int32_t at = 0; at < np && !pd; at++) {
    dnnl_memory_desc_t sa, wa, da;
    HLX_DNNL_TRY(dnnl_memory_desc_init_by_tag(&sa, 2 + ns, sd, dnnl_f32,
                                              dnnl_format_tag_any),
                 "src descriptor");
    HLX_DNNL_TRY(dnnl_memory_desc_init_by_tag(&wa, wnd, wd, dnnl_f32,
                                              dnnl_format_tag_any),
                 "weights descriptor");
    HLX_DNNL_TRY(dnnl_memory_desc_init_by_tag(&da, 2 + ns, dd, dnnl_f32,
                                              dnnl_format_tag_any),
                 "dst descriptor");
    if (pins[at] & PIN_SRC) sa = cv->src_user;
    if (pins[at] & PIN_DST) da = cv->dst_user;
    dnnl_convolution_desc_t cd;
    dnnl_deconvolution_desc_t dcd;
    if (d->transposed)
      HLX_DNNL_TRY(
          dnnl_dilated_deconvolution_forward_desc_init(
              &dcd, dnnl_forward_inference, dnnl_deconvolution_direct, &sa, &wa,
              d->has_bias ? &cv->bias_md : NULL, &da, strides, dil, pl, pr),
          "deconvolution descriptor");
    else
      HLX_DNNL_TRY(
          dnnl_dilated_convolution_forward_desc_init(
              &cd, dnnl_forward_inference,
              d->winograd ? dnnl_convolution_winograd : dnnl_convolution_direct,
              &sa, &wa, d->has_bias ? &cv->bias_md : NULL, &da, strides, dil,
              pl, pr),
          "convolution descriptor");
    dnnl_primitive_attr_t attr = hlx_dnnl_user_scratchpad_attr();
    if (!attr) return hlx_status_oom();
    hlx_status_t pst =
        hlx_dnnl_add_post_ops(attr, d->num_post_ops, d->post_ops, 2 + ns, dd,
                              ds, 1, wino_relu(d), cv->post_md,
                              &cv->sum_index);
    if (pst) {
      dnnl_primitive_attr_destroy(attr);
      return pst;
    }
    hlx_dnnl_scope_t scope;
    hlx_dnnl_scope_enter(&scope, d->threads);
    const_dnnl_op_desc_t od = d->transposed ? (const_dnnl_op_desc_t)&dcd : &cd;
    s = dnnl_primitive_desc_create(&pd, od, attr, eng, NULL);
    if (s == dnnl_success && d->winograd && ns == 2 &&
        d->out_spatial[0] * d->out_spatial[1] >= 28 * 28)
      pick_wino_4x3(&pd, od, attr, eng);
    hlx_dnnl_scope_leave(&scope, d->threads);
    dnnl_primitive_attr_destroy(attr);
    if (s != dnnl_success) {
      pd = NULL;
      continue;
    }
    /* a reference kernel, or (plain src only) the im2col gemm one, is
     * slower than reorders around a fast kernel */
    bool slow = hlx_dnnl_is_ref_impl(pd, cv->impl, sizeof(cv->impl)) ||
                (pins[at] == (PIN_SRC | PIN_PLAIN) && strstr(cv->impl, "gemm"));
    if (slow && at + 1 < np) {
      dnnl_primitive_desc_destroy(pd);
      pd = NULL;
    } else if (slow) {
      dnnl_primitive_desc_destroy(pd);
      return hlx_make_status(HLX_STATUS_UNIMPLEMENTED,
                             "oneDNN: only a reference convolution here");
    }
    chosen = pins[at];
  }
  if (!pd) return hlx_dnnl_error(s, "convolution descriptor");
  hlx_dnnl_scratch_query(pd, &cv->scratch);
  cv->src_prim = *dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
  cv->wei_prim = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
  cv->dst_prim = *dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
  hlx_dnnl_scope_t scope;
  hlx_dnnl_scope_enter(&scope, d->threads);
  s = dnnl_primitive_create(&cv->conv, pd);
  hlx_dnnl_scope_leave(&scope, d->threads);
  dnnl_primitive_desc_destroy(pd);
  if (s != dnnl_success) return hlx_dnnl_error(s, "convolution primitive");
  /* Reorders fix their thread split at creation too: without the budget
   * here a one-thread executable ran them as an all-core OpenMP team. */
  hlx_dnnl_scope_enter(&scope, d->threads);
  hlx_status_t rst = hlx_dnnl_make_reorder(&cv->src_user, &cv->src_prim,
                                           &cv->src_reorder, NULL);
  if (!rst)
    rst = hlx_dnnl_make_reorder(&cv->wei_user, &cv->wei_prim, &cv->wei_reorder,
                                &cv->wei_scratch);
  if (!rst)
    rst = hlx_dnnl_make_reorder(&cv->dst_prim, &cv->dst_user, &cv->dst_reorder,
                                NULL);
  hlx_dnnl_scope_leave(&scope, d->threads);
  HLX_RETURN_IF_ERROR(rst);
  if (hlx_transpose_kernel(sizeof(float))) {
    if (cv->src_reorder)
      cv->src_blk = channel_block(&cv->src_user, &cv->src_prim);
    if (cv->dst_reorder)
      cv->dst_blk = channel_block(&cv->dst_user, &cv->dst_prim);
  }
  if (cv->dst_blk) band_build(cv, chosen);
  /* Whole-tensor channel blocks (nChw16c) back to nchw: oneDNN's jit:blk
   * reorder is faster than hlx's transpose of [S, 16] slices (0.08 vs
   * 0.11 ms for the first layer's 3.2 MB); bands keep theirs in L2. */
  if (cv->src_blk != d->in_features) cv->src_blk = 0;
  if (cv->dst_blk != d->out_features && !cv->num_bands) cv->dst_blk = 0;
  if (cv->sum_index >= 0 && cv->dst_reorder)
    return hlx_make_status(HLX_STATUS_UNIMPLEMENTED,
                           "oneDNN convolution: a whole-tensor post-op needs "
                           "dst in the caller's layout");
  return NULL;
}

/* Frees what conv_build made (hlx_dnnl_obtain frees the object). */
static void conv_destroy(void* p) {
  hlx_onednn_conv_t* cv = p;
  if (cv->conv) dnnl_primitive_destroy(cv->conv);
  if (cv->src_reorder) dnnl_primitive_destroy(cv->src_reorder);
  if (cv->wei_reorder) dnnl_primitive_destroy(cv->wei_reorder);
  if (cv->dst_reorder) dnnl_primitive_destroy(cv->dst_reorder);
  for (int32_t i = 0; i < cv->num_band_prims; i++)
    if (cv->band[i].prim) dnnl_primitive_destroy(cv->band[i].prim);
}

/* hlx_dnnl_obtain's build: without a Winograd kernel, the direct one. */
static hlx_status_t conv_obtain_build(void* obj, const void* key) {
  hlx_onednn_conv_t* cv = obj;
  cv->d = *(const hlx_onednn_conv_desc_t*)key;
  hlx_status_t st = conv_build(cv);
  if (st && cv->d.winograd) {
    hlx_status_free(st);
    conv_destroy(cv);
    memset(cv, 0, sizeof *cv);
    cv->d = *(const hlx_onednn_conv_desc_t*)key;
    cv->d.winograd = 0;
    st = conv_build(cv);
  }
  return st;
}

hlx_status_t hlx_onednn_conv_create(const hlx_onednn_conv_desc_t* d,
                                    hlx_onednn_conv_t** out) {
  *out = NULL;
  if (d->num_spatial < 1 || d->num_spatial > HLX_ONEDNN_CONV_MAX_SPATIAL ||
      d->groups < 1 || d->in_features % d->groups ||
      d->out_features % d->groups || d->batch < 1 || d->in_features < 1 ||
      d->out_features < 1)
    return hlx_make_status(HLX_STATUS_UNIMPLEMENTED,
                           "oneDNN convolution: unsupported parameters");
  for (int32_t i = 0; i < d->num_spatial; i++)
    if (d->in_spatial[i] < 1 || d->kernel_spatial[i] < 1 ||
        d->out_spatial[i] < 1 || d->stride[i] < 1 || d->dilation[i] < 1 ||
        d->pad_lo[i] < 0)
      return hlx_make_status(HLX_STATUS_UNIMPLEMENTED,
                             "oneDNN convolution: unsupported window");
  void* obj;
  HLX_RETURN_IF_ERROR(hlx_dnnl_obtain(HLX_DNNL_KIND_CONV, d, sizeof(*d),
                                      sizeof(hlx_onednn_conv_t),
                                      conv_obtain_build, conv_destroy, &obj));
  *out = obj;
  return NULL;
}

void hlx_onednn_conv_release(hlx_onednn_conv_t* cv) { hlx_dnnl_put(cv); }

const hlx_onednn_conv_desc_t* hlx_onednn_conv_desc(
    const hlx_onednn_conv_t* cv) {
  return &cv->d;
}

const char* hlx_onednn_conv_impl(const hlx_onednn_conv_t* cv) {
  return cv->impl;
}

int32_t hlx_onednn_conv_reorders(const hlx_onednn_conv_t* cv) {
  return (cv->src_reorder ? HLX_ONEDNN_REORDER_SRC : 0) |
         (cv->dst_reorder ? HLX_ONEDNN_REORDER_DST : 0);
}

int32_t hlx_onednn_conv_transposed_reorders(const hlx_onednn_conv_t* cv) {
  return (cv->src_blk ? HLX_ONEDNN_REORDER_SRC : 0) |
         (cv->dst_blk ? HLX_ONEDNN_REORDER_DST : 0);
}

int64_t hlx_onednn_conv_bands(const hlx_onednn_conv_t* cv) {
  return cv->num_bands;
}

size_t hlx_onednn_conv_packed_weights_bytes(const hlx_onednn_conv_t* cv) {
  return dnnl_memory_desc_get_size(&cv->wei_prim);
}

hlx_status_t hlx_onednn_conv_pack_weights(const hlx_onednn_conv_t* cv,
                                          const float* weights, void* packed) {
  if (!cv->wei_reorder) {
    memcpy(packed, weights, dnnl_memory_desc_get_size(&cv->wei_prim));
    return NULL;
  }
  void* scratch = NULL;
  if (cv->wei_scratch.bytes) {
    scratch = hlx_dnnl_aligned_buffer(cv->wei_scratch.bytes);
    if (!scratch) return hlx_status_oom();
  }
  dnnl_stream_t stream;
  dnnl_status_t s =
      dnnl_stream_create(&stream, hlx_dnnl_engine(), dnnl_stream_default_flags);
  if (s == dnnl_success) {
    s = hlx_dnnl_exec_reorder(cv->wei_reorder, stream, &cv->wei_user,
                              weights, &cv->wei_prim, packed,
                              &cv->wei_scratch, scratch, cv->d.threads);
    dnnl_stream_destroy(stream);
  }
  free(scratch);
  return s == dnnl_success ? NULL : hlx_dnnl_error(s, "weights reorder");
}

hlx_status_t hlx_onednn_conv_run(const hlx_onednn_conv_t* cv, const float* src,
                                 const float* weights, const void* packed,
                                 float* dst) {
  return hlx_onednn_conv_run_ex(cv, src, weights, packed, NULL, NULL, dst);
}

hlx_status_t hlx_onednn_conv_run_ex(const hlx_onednn_conv_t* cv,
                                    const float* src, const float* weights,
                                    const void* packed, const float* bias,
                                    const void* const* post_args, float* dst) {
  if ((cv->d.has_bias && !bias) ||
      (!post_args &&
       hlx_dnnl_post_ops_need_args(cv->d.num_post_ops, cv->d.post_ops)))
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "oneDNN convolution: created with a bias or "
                           "post-op operands, run without them");
  /* workspace parts: src, weights, weights-reorder scratch, dst, scratch */
  bool wre = !packed && cv->wei_reorder;
  size_t part[5] = {
      cv->src_reorder ? ws_part(dnnl_memory_desc_get_size(&cv->src_prim)) : 0,
      wre ? ws_part(dnnl_memory_desc_get_size(&cv->wei_prim)) : 0,
      wre ? ws_part(cv->wei_scratch.bytes) : 0,
      cv->dst_reorder && !cv->num_bands
          ? ws_part(dnnl_memory_desc_get_size(&cv->dst_prim))
          : 0,
      ws_part(cv->scratch.bytes)};
  size_t band_in, band_out; /* bands: thread 0's part instead of scratch */
  if (cv->num_bands) part[4] = band_ws_bytes(cv, &band_in, &band_out);
  size_t total = 0;
  for (int i = 0; i < 5; i++) total += part[i];
  unsigned char* ws = total ? hlx_dnnl_workspace(total) : NULL;
  if (total && !ws) return hlx_status_oom();
  void* buf[5];
  for (int i = 0; i < 5; i++) {
    buf[i] = part[i] ? ws : NULL;
    ws += part[i];
  }
  dnnl_stream_t stream = NULL;
  hlx_dnnl_mem_list_t ml = {.n = 0};
  dnnl_status_t s =
      dnnl_stream_create(&stream, hlx_dnnl_engine(), dnnl_stream_default_flags);
  if (s != dnnl_success) return hlx_dnnl_error(s, "stream");
  const void* sp = src;
  const void* wp = packed ? packed : weights;
  void* dp = cv->dst_reorder ? buf[3] : dst;
  if (cv->src_blk) {
    boundary_t b = {&cv->src_user, &cv->src_prim, cv->src_blk, true,
                    hlx_transpose_kernel(sizeof(float)), src, buf[0]};
    boundary_run(cv, &b);
    sp = buf[0];
  } else if (cv->src_reorder) {
    s = hlx_dnnl_exec_reorder(cv->src_reorder, stream, &cv->src_user, src,
                              &cv->src_prim, buf[0], NULL, NULL,
                              cv->d.threads);
    if (s != dnnl_success) goto done;
    sp = buf[0];
  }
  if (wre) {
    s = hlx_dnnl_exec_reorder(cv->wei_reorder, stream, &cv->wei_user,
                              weights, &cv->wei_prim, buf[1],
                              &cv->wei_scratch, buf[2], cv->d.threads);
    if (s != dnnl_success) goto done;
    wp = buf[1];
  }
  if (cv->num_bands) {
    dnnl_stream_destroy(stream);
    return band_run(cv, src, wp, bias, dst, buf[4]);
  }
  dnnl_memory_t sm, wm, dm, xm = NULL, bm = NULL;
  if ((s = hlx_dnnl_mem_add(&ml, &cv->src_prim, sp, &sm)) != dnnl_success ||
      (s = hlx_dnnl_mem_add(&ml, &cv->wei_prim, wp, &wm)) != dnnl_success ||
      (s = hlx_dnnl_mem_add(&ml, &cv->dst_prim, dp, &dm)) != dnnl_success ||
      (buf[4] && (s = hlx_dnnl_mem_add(&ml, &cv->scratch.md, buf[4], &xm)) !=
                     dnnl_success) ||
      (cv->d.has_bias &&
       (s = hlx_dnnl_mem_add(&ml, &cv->bias_md, bias, &bm)) != dnnl_success))
    goto done;
  dnnl_exec_arg_t args[5 + HLX_ONEDNN_MAX_POST_OPS] = {
      {DNNL_ARG_SRC, sm}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DST, dm}};
  int na = 3;
  if (xm) args[na++] = (dnnl_exec_arg_t){DNNL_ARG_SCRATCHPAD, xm};
  if (bm) args[na++] = (dnnl_exec_arg_t){DNNL_ARG_BIAS, bm};
  if (cv->sum_index >= 0 && post_args[cv->sum_index] != dst)
    memcpy(dst, post_args[cv->sum_index],
           dnnl_memory_desc_get_size(&cv->dst_user));
  for (int32_t i = 0; i < cv->d.num_post_ops; i++) {
    if (cv->d.post_ops[i].shape == HLX_ONEDNN_OPERAND_NONE ||
        i == cv->sum_index)
      continue;
    dnnl_memory_t pm;
    if ((s = hlx_dnnl_mem_add(&ml, &cv->post_md[i], post_args[i], &pm)) !=
        dnnl_success)
      goto done;
    int32_t k = hlx_dnnl_post_op_index(cv->d.post_ops, i, wino_relu(&cv->d));
    args[na++] = (dnnl_exec_arg_t){
        DNNL_ARG_ATTR_MULTIPLE_POST_OP(k) | DNNL_ARG_SRC_1, pm};
  }
  hlx_dnnl_scope_t scope;
  hlx_dnnl_scope_enter(&scope, cv->d.threads);
  s = dnnl_primitive_execute(cv->conv, stream, na, args);
  if (s == dnnl_success) s = dnnl_stream_wait(stream);
  hlx_dnnl_scope_leave(&scope, cv->d.threads);
  if (s == dnnl_success && cv->dst_blk) {
    boundary_t b = {&cv->dst_user, &cv->dst_prim, cv->dst_blk, false,
                    hlx_transpose_kernel(sizeof(float)), buf[3], dst};
    boundary_run(cv, &b);
  } else if (s == dnnl_success && cv->dst_reorder)
    s = hlx_dnnl_exec_reorder(cv->dst_reorder, stream, &cv->dst_prim, buf[3],
                              &cv->dst_user, dst, NULL, NULL, cv->d.threads);
done:
  hlx_dnnl_mem_free(&ml);
  dnnl_stream_destroy(stream);
  return s == dnnl_success ? NULL : hlx_dnnl_error(s, "convolution execution");
}
