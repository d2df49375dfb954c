/* oneDNN (Debian's libdnnl 2.x, C API) behind hlx kernel signatures:
 * batched matmul (f32; bf16 with f32 accumulation; s8/u8 x s8 with s32
 * accumulation) over strided operands, and f32 forward convolution with
 * strides, padding, dilation and feature groups.
 *
 * Both are two-step: `*_create` builds (or finds in a process-wide,
 * thread-safe cache keyed by the whole descriptor) a ready primitive; it
 * returns HLX_STATUS_UNIMPLEMENTED when oneDNN has no optimised
 * implementation for that descriptor, so the caller can fall back (copy
 * into a plainer layout, or use the reference kernel). Objects are shared
 * and reference-counted: every successful `*_create` returns a reference
 * that `*_release` drops; an object nobody uses stays cached for reuse
 * until more than the idle capacity are unused (then the longest unused
 * one is freed).
 * `*_run` may be called from many threads at once on one object.
 *
 * Threads: see the header comment of kernels/libs/onednn_common.c. `threads` in a
 * descriptor is the worker budget the call gets (0: oneDNN's default, every
 * core); it is part of the cache key because oneDNN fixes a primitive's
 * partitioning when it is created. */
#ifndef HLX_KERNELS_LIBS_ONEDNN_H_
#define HLX_KERNELS_LIBS_ONEDNN_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/dtype.h"
#include "base/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Post-ops applied to the convolution's f32 result in order, before it is
 * written (oneDNN attributes): binary ops read a second operand that is
 * one value (SCALAR), one value per output feature (PER_FEATURE, a
 * contiguous vector) or a whole tensor laid out like dst (FULL: at most
 * one, add or subtract only, and only when oneDNN writes dst in the
 * caller's layout; it runs as a sum post-op over a copy in dst). */
#define HLX_ONEDNN_MAX_POST_OPS 8
typedef enum hlx_onednn_post_kind_t {
  HLX_ONEDNN_POST_ADD,
  HLX_ONEDNN_POST_SUB,
  HLX_ONEDNN_POST_MUL,
  HLX_ONEDNN_POST_RELU, /* max(x, 0) */
  HLX_ONEDNN_POST_LOGISTIC,
  HLX_ONEDNN_POST_TANH,
  HLX_ONEDNN_POST_SWISH, /* x * logistic(x) (silu) */
} hlx_onednn_post_kind_t;
typedef enum hlx_onednn_post_shape_t {
  HLX_ONEDNN_OPERAND_NONE,
  HLX_ONEDNN_OPERAND_SCALAR,
  HLX_ONEDNN_OPERAND_PER_FEATURE,
  HLX_ONEDNN_OPERAND_FULL,
} hlx_onednn_post_shape_t;
typedef struct hlx_onednn_post_op_t {
  int32_t kind;  /* hlx_onednn_post_kind_t */
  int32_t shape; /* hlx_onednn_post_shape_t (NONE for eltwise kinds) */
} hlx_onednn_post_op_t;

/* c[b, m, n] = sum_k a[b, m, k] * b[b, k, n]. Strides in elements, in
 * (batch, row, column) order; each matrix needs a unit stride in one of
 * its two matrix dims for oneDNN's fast paths. Types: a/b/c = f32/f32/f32,
 * bf16/bf16/{f32,bf16}, {s8,u8}/s8/s32. */
typedef struct hlx_onednn_matmul_desc_t {
  hlx_dtype_t a_type, b_type, c_type;
  int64_t batch, m, n, k;
  int64_t a_strides[3], b_strides[3], c_strides[3];
  int32_t threads;
  /* f32 c only: post-ops as for convolution (below), the feature being n;
   * a FULL operand is laid out like c. */
  int32_t num_post_ops;
  hlx_onednn_post_op_t post_ops[HLX_ONEDNN_MAX_POST_OPS];
  /* A second batch dim outside `batch` (0 or 1: none): outer entry o of
   * a, b and c starts o * outer_strides[0 / 1 / 2] elements further, e.g.
   * attention's [batch, head] when heads interleave with the tokens. */
  int64_t outer_batch;
  int64_t outer_strides[3];
  /* b in oneDNN's own (blocked) layout, made once by
   * hlx_onednn_matmul_pack_b from b at b_strides: runs pass that copy. */
  int32_t b_packed;
  int32_t unused;
} hlx_onednn_matmul_desc_t;

typedef struct hlx_onednn_matmul_t hlx_onednn_matmul_t;

/* Zero-fills the descriptor (it is compared bytewise) and sets row-major
 * contiguous strides for the given shape. */
void hlx_onednn_matmul_desc_init(hlx_onednn_matmul_desc_t* d, hlx_dtype_t a,
                                 hlx_dtype_t b, hlx_dtype_t c, int64_t batch,
                                 int64_t m, int64_t n, int64_t k);
hlx_status_t hlx_onednn_matmul_create(const hlx_onednn_matmul_desc_t* d,
                                      hlx_onednn_matmul_t** out) HLX_MUST_USE;
hlx_status_t hlx_onednn_matmul_run(const hlx_onednn_matmul_t* mm,
                                   const void* a, const void* b,
                                   void* c) HLX_MUST_USE;
/* With the binary post-ops' second operands (post_args[i] for post-op i,
 * as for hlx_onednn_conv_run_ex). */
hlx_status_t hlx_onednn_matmul_run_ex(const hlx_onednn_matmul_t* mm,
                                      const void* a, const void* b,
                                      const void* const* post_args,
                                      void* c) HLX_MUST_USE;
/* Drops the reference hlx_onednn_matmul_create returned (NULL: no-op). */
void hlx_onednn_matmul_release(hlx_onednn_matmul_t* mm);
/* The descriptor the object was created from. */
const hlx_onednn_matmul_desc_t* hlx_onednn_matmul_desc(
    const hlx_onednn_matmul_t* mm);
/* oneDNN's implementation name ("brg:avx512_core", "gemm:jit", ...). */
const char* hlx_onednn_matmul_impl(const hlx_onednn_matmul_t* mm);
/* With desc.b_packed: the bytes of b in the primitive's layout, and b (as
 * b_strides lay it out) reordered into `packed` (64-byte aligned). */
size_t hlx_onednn_matmul_packed_b_bytes(const hlx_onednn_matmul_t* mm);
hlx_status_t hlx_onednn_matmul_pack_b(const hlx_onednn_matmul_t* mm,
                                      const void* b,
                                      void* packed) HLX_MUST_USE;

#define HLX_ONEDNN_CONV_MAX_SPATIAL 3

/* f32 forward convolution, 1-3 spatial dims, oneDNN's semantics with
 * XLA's conventions: dilation 1 = dense; out feature o is in group
 * o / (out_features / groups), which reads input features
 * g * (in_features / groups) ... Strides (elements) of the logical dims:
 * src [N, C, S...], weights [O, C/groups, K...], dst [N, O, P...] — any
 * permutation or padding of the memory layout. */
typedef struct hlx_onednn_conv_desc_t {
  int32_t num_spatial;
  int32_t threads;
  /* oneDNN's deconvolution (transposed convolution) instead: out position
   * i * stride + k * dilation - pad_lo receives in[i] * w[k]; out_spatial
   * is then the larger side. */
  int32_t transposed;
  int32_t has_bias; /* a per-output-feature bias added before post-ops */
  int32_t num_post_ops;
  hlx_onednn_post_op_t post_ops[HLX_ONEDNN_MAX_POST_OPS];
  int64_t batch, in_features, out_features, groups;
  int64_t in_spatial[HLX_ONEDNN_CONV_MAX_SPATIAL];
  int64_t kernel_spatial[HLX_ONEDNN_CONV_MAX_SPATIAL];
  int64_t out_spatial[HLX_ONEDNN_CONV_MAX_SPATIAL];
  int64_t stride[HLX_ONEDNN_CONV_MAX_SPATIAL];
  int64_t pad_lo[HLX_ONEDNN_CONV_MAX_SPATIAL];
  int64_t dilation[HLX_ONEDNN_CONV_MAX_SPATIAL];
  int64_t src_strides[HLX_ONEDNN_CONV_MAX_SPATIAL + 2];
  int64_t wei_strides[HLX_ONEDNN_CONV_MAX_SPATIAL + 2];
  int64_t dst_strides[HLX_ONEDNN_CONV_MAX_SPATIAL + 2];
  /* src / dst in the blocked activation layout (hlx_onednn_act_block:
   * nC[d][h]w16c or 8c) instead of the strides above; the features must
   * be a multiple of the block. A whole-tensor post-op operand is then
   * blocked like dst. */
  int32_t src_blocked, dst_blocked;
  /* Ask for oneDNN's Winograd algorithm (fewer multiplications, different
   * rounding); the direct one when there is no Winograd kernel. */
  int32_t winograd;
  int32_t unused;
} hlx_onednn_conv_desc_t;

typedef struct hlx_onednn_conv_t hlx_onednn_conv_t;

/* Zero-fills the descriptor (compared bytewise). */
void hlx_onednn_conv_desc_zero(hlx_onednn_conv_desc_t* d);
hlx_status_t hlx_onednn_conv_create(const hlx_onednn_conv_desc_t* d,
                                    hlx_onednn_conv_t** out) HLX_MUST_USE;
/* Bytes of the weights in the primitive's preferred (blocked) layout. */
size_t hlx_onednn_conv_packed_weights_bytes(const hlx_onednn_conv_t* cv);
/* Reorders weights from the descriptor's layout into `packed` (64-byte
 * aligned, hlx_onednn_conv_packed_weights_bytes). */
hlx_status_t hlx_onednn_conv_pack_weights(const hlx_onednn_conv_t* cv,
                                          const float* weights,
                                          void* packed) HLX_MUST_USE;
/* Runs the convolution. Exactly one of `weights` (descriptor layout) and
 * `packed` (from hlx_onednn_conv_pack_weights) is non-NULL. */
hlx_status_t hlx_onednn_conv_run(const hlx_onednn_conv_t* cv, const float* src,
                                 const float* weights, const void* packed,
                                 float* dst) HLX_MUST_USE;
/* With a bias (desc.has_bias: out_features floats, else NULL) and the
 * binary post-ops' second operands (post_args[i] for post-op i; entries of
 * other post-ops are ignored; NULL when there are none). */
hlx_status_t hlx_onednn_conv_run_ex(const hlx_onednn_conv_t* cv,
                                    const float* src, const float* weights,
                                    const void* packed, const float* bias,
                                    const void* const* post_args,
                                    float* dst) HLX_MUST_USE;
void hlx_onednn_conv_release(hlx_onednn_conv_t* cv);

/* Channels per block of the blocked activation layout oneDNN's direct
 * convolutions prefer on this CPU (16 with AVX-512, 8 with AVX2), 0 when
 * there is none. Such a tensor [N, C, S...] is [N, C/b, S..., b] row-major,
 * the same bytes as the logical tensor when C % b == 0. */
int32_t hlx_onednn_act_block(void);

/* Whether oneDNN's int8 matmul is exact here: without VNNI it sums byte
 * pairs with vpmaddubsw, whose int16 result saturates (oneDNN's int8
 * nuances), so hlx_onednn_matmul_create declines int8 there. */
bool hlx_onednn_int8_exact(void);

/* A reorder between an activation [N, C, S...] at the given strides
 * (elements, any permutation) and the blocked layout (C % block == 0). */
typedef struct hlx_onednn_act_desc_t {
  int32_t num_spatial;
  int32_t threads;
  int32_t to_blocked; /* 1: strided -> blocked, 0: blocked -> strided */
  int32_t unused;
  int64_t batch, features;
  int64_t spatial[HLX_ONEDNN_CONV_MAX_SPATIAL];
  int64_t strides[HLX_ONEDNN_CONV_MAX_SPATIAL + 2];
} hlx_onednn_act_desc_t;
typedef struct hlx_onednn_act_reorder_t hlx_onednn_act_reorder_t;
hlx_status_t hlx_onednn_act_reorder_create(
    const hlx_onednn_act_desc_t* d, hlx_onednn_act_reorder_t** out) HLX_MUST_USE;
hlx_status_t hlx_onednn_act_reorder_run(const hlx_onednn_act_reorder_t* r,
                                        const float* src,
                                        float* dst) HLX_MUST_USE;
/* Drops the reference create returned (NULL: no-op). */
void hlx_onednn_act_reorder_release(hlx_onednn_act_reorder_t* r);
/* The descriptor the object was created from. */
const hlx_onednn_conv_desc_t* hlx_onednn_conv_desc(const hlx_onednn_conv_t* cv);
const char* hlx_onednn_conv_impl(const hlx_onednn_conv_t* cv);
/* What a run copies into or out of the primitive's own layouts:
 * HLX_ONEDNN_REORDER_SRC / _DST (0: oneDNN reads src and writes dst in the
 * descriptor's layouts). A lone layer in plain layouts avoids them where
 * oneDNN has a fast kernel for that (1x1 convolutions, the first layer's
 * few input features: onednn_conv.c). Runs reuse one workspace per calling
 * thread for these copies and the scratchpad. */
enum { HLX_ONEDNN_REORDER_SRC = 1, HLX_ONEDNN_REORDER_DST = 2 };
int32_t hlx_onednn_conv_reorders(const hlx_onednn_conv_t* cv);
/* Which of those hlx's transpose does instead of oneDNN's reorder (nchw
 * <-> channels last or channel blocks: onednn_conv.c channel_block). */
int32_t hlx_onednn_conv_transposed_reorders(const hlx_onednn_conv_t* cv);
/* How many bands of output rows a run splits into (a first layer whose
 * blocked dst is transposed back band by band: onednn_conv.c band_build),
 * 0 when it runs whole. */
int64_t hlx_onednn_conv_bands(const hlx_onednn_conv_t* cv);

/* The primitive cache, for tests and diagnostics: objects alive (in use
 * or idle), idle ones, and builds so far (a create that found its object
 * cached builds nothing). */
typedef struct hlx_onednn_cache_stats_t {
  int64_t live, idle, builds;
} hlx_onednn_cache_stats_t;
void hlx_onednn_cache_stats(hlx_onednn_cache_stats_t* s);
/* How many unused objects the cache keeps (default 4096, or the
 * HLX_ONEDNN_CACHE_IDLE environment variable read at first use); frees
 * the excess now. Returns the previous capacity. */
int32_t hlx_onednn_cache_set_idle_capacity(int32_t n);

#ifdef __cplusplus
}
#endif

#endif /* HLX_KERNELS_LIBS_ONEDNN_H_ */
