/* reduce_window dispatch: recognises 2-D pooling (rank 4, no dilation, the
 * window on dims 2-3 = NCHW or dims 1-2 = NHWC, the other dims untouched)
 * for f32 max/min/add and runs the best pooling variant
 * (kernels/window_kernels.inc); everything else goes to the reference. */
#include <string.h>

#include "kernels/dispatch.h"

enum { POOL_NCHW, POOL_NHWC, POOL_LAYOUTS };

/* Variants by the ISA they need; a level uses the best one at or below
 * it (hlx_cpu_max_isa() is already capped by what the CPU runs). */
static const hlx_pool2d_fn g_pool[HLX_ISA_COUNT][HLX_REDUCE_XOR + 1][POOL_LAYOUTS] = {
#if defined(__x86_64__) || defined(__aarch64__) /* the lists guard each ISA */
#define HLX_POOL_KERNEL(ISA, OP, LAYOUT, fn) \
  [HLX_ISA_##ISA][HLX_REDUCE_##OP][POOL_##LAYOUT] = fn,
#include "kernels/window_kernels.inc"
#endif
};

/* [isa][0 = GE, 1 = LE][layout] */
static const hlx_pool2d_select_fn g_select[HLX_ISA_COUNT][2][POOL_LAYOUTS] = {
#if defined(__x86_64__) || defined(__aarch64__) /* the lists guard each ISA */
#define HLX_POOL_SELECT(ISA, DIR, LAYOUT, fn) \
  [HLX_ISA_##ISA][HLX_CMP_##DIR == HLX_CMP_LE][POOL_##LAYOUT] = fn,
#include "kernels/window_kernels.inc"
#endif
};

static hlx_pool2d_fn best_pool(hlx_reduce_op_t op, int layout) {
  for (int lv = hlx_cpu_max_isa(); lv > HLX_ISA_REFERENCE; lv--)
    if (g_pool[lv][op][layout]) return g_pool[lv][op][layout];
  return NULL;
}

/* A dim the window leaves alone: size-1 window, stride 1, no padding. */
static bool untouched(const hlx_window_t* w, int d) {
  return w->window[d] == 1 && w->stride[d] == 1 && w->pad_lo[d] == 0 &&
         w->out_dims[d] == w->in_dims[d];
}

bool hlx_window_as_pool2d(const hlx_window_t* w, bool* nhwc,
                          hlx_pool2d_t* g) {
  if (w->rank != 4) return false;
  for (int d = 0; d < 4; d++)
    if (w->base_dilation[d] != 1 || w->window_dilation[d] != 1 ||
        w->window[d] < 1)
      return false;
  int y, x;
  if (untouched(w, 0) && untouched(w, 1) && w->stride[3] <= 2) {
    *nhwc = false;
    y = 2;
    x = 3;
    g->planes = w->in_dims[0] * w->in_dims[1];
    g->c = 1;
  } else if (untouched(w, 0) && untouched(w, 3)) {
    *nhwc = true;
    y = 1;
    x = 2;
    g->planes = w->in_dims[0];
    g->c = w->in_dims[3];
  } else {
    return false;
  }
  g->h = w->in_dims[y];
  g->w = w->in_dims[x];
  g->oh = w->out_dims[y];
  g->ow = w->out_dims[x];
  g->kh = w->window[y];
  g->kw = w->window[x];
  g->sh = w->stride[y];
  g->sw = w->stride[x];
  g->ph = w->pad_lo[y];
  g->pw = w->pad_lo[x];
  return true;
}

hlx_pool2d_fn hlx_pool2d_kernel_for_isa(hlx_reduce_op_t op, bool nhwc,
                                        hlx_isa_t isa) {
  if ((unsigned)isa >= HLX_ISA_COUNT || !hlx_cpu_supports_isa(isa) ||
      (unsigned)op > HLX_REDUCE_XOR)
    return NULL;
  return g_pool[isa][op][nhwc ? POOL_NHWC : POOL_NCHW];
}

bool hlx_reduce_window(hlx_reduce_op_t op, hlx_dtype_t t,
                       const hlx_window_t* w, const void* in,
                       const void* init, void* out) {
  hlx_pool2d_t g;
  bool nhwc;
  if (t == HLX_DTYPE_F32 && (unsigned)op <= HLX_REDUCE_XOR &&
      hlx_window_as_pool2d(w, &nhwc, &g)) {
    hlx_pool2d_fn fn = best_pool(op, nhwc ? POOL_NHWC : POOL_NCHW);
    if (fn) {
      float init_v;
      memcpy(&init_v, init, sizeof init_v);
      fn(&g, (const float*)in, init_v, (float*)out);
      return true;
    }
  }
  return hlx_ref_reduce_window(op, t, w, in, init, out);
}

hlx_pool2d_select_fn hlx_pool2d_select_kernel_for_isa(hlx_compare_dir_t dir,
                                                      bool nhwc,
                                                      hlx_isa_t isa) {
  if ((unsigned)isa >= HLX_ISA_COUNT || !hlx_cpu_supports_isa(isa) ||
      (dir != HLX_CMP_GE && dir != HLX_CMP_LE))
    return NULL;
  return g_select[isa][dir == HLX_CMP_LE][nhwc ? POOL_NHWC : POOL_NCHW];
}

bool hlx_window_select(hlx_compare_dir_t dir, hlx_compare_type_t type,
                       hlx_dtype_t t, const hlx_window_t* w,
                       const void* operand, int64_t* selected) {
  hlx_pool2d_t g;
  bool nhwc;
  /* Window positions travel as exact floats: keep windows < 2^24. */
  if (t == HLX_DTYPE_F32 && (dir == HLX_CMP_GE || dir == HLX_CMP_LE) &&
      (type == HLX_CMP_DEFAULT || type == HLX_CMP_FLOAT) &&
      hlx_window_as_pool2d(w, &nhwc, &g) && g.kh * g.kw < (1 << 24)) {
    hlx_pool2d_select_fn fn = NULL;
    for (int lv = hlx_cpu_max_isa(); lv > HLX_ISA_REFERENCE && !fn; lv--)
      fn = g_select[lv][dir == HLX_CMP_LE][nhwc ? POOL_NHWC : POOL_NCHW];
    if (fn) {
      fn(&g, (const float*)operand, selected);
      return true;
    }
  }
  return hlx_ref_window_select(dir, type, t, w, operand, selected);
}
