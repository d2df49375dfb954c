/* Reference reduce_window / select_and_scatter kernels (see window.h).
 *
 * reduce_window gathers, for one window position at a time, the element
 * every output reads (or the init value for a hole) into a contiguous
 * buffer and folds it into all accumulators with one call of the
 * elementwise binary kernel, so each step rounds in the element type just
 * as the body region would, while the loops stay vectorisable. */
#include <stdlib.h>
#include <string.h>

#include "kernels/window.h"

int64_t hlx_window_num_windows(int64_t in_dim, int64_t window, int64_t stride,
                               int64_t base_dilation, int64_t window_dilation,
                               int64_t pad_lo, int64_t pad_hi) {
  if (in_dim < 0 || window < 0 || stride <= 0 || base_dilation <= 0 ||
      window_dilation <= 0)
    return -1;
  int64_t dilated, padded, dw;
  if (in_dim == 0) {
    dilated = 0;
  } else if (__builtin_mul_overflow(in_dim - 1, base_dilation, &dilated) ||
             __builtin_add_overflow(dilated, 1, &dilated)) {
    return -1;
  }
  if (__builtin_add_overflow(dilated, pad_lo, &padded) ||
      __builtin_add_overflow(padded, pad_hi, &padded))
    return -1;
  if (window == 0) {
    dw = 0;
  } else if (__builtin_mul_overflow(window - 1, window_dilation, &dw) ||
             __builtin_add_overflow(dw, 1, &dw)) {
    return -1;
  }
  if (padded <= 0 || dw > padded) return 0;
  return (padded - dw) / stride + 1;
}

int64_t hlx_window_size(const hlx_window_t* w) {
  int64_t n = 1;
  for (int32_t d = 0; d < w->rank; d++) n *= w->window[d];
  return n;
}

int64_t hlx_window_out_count(const hlx_window_t* w) {
  int64_t n = 1;
  for (int32_t d = 0; d < w->rank; d++) n *= w->out_dims[d];
  return n;
}

void hlx_window_tables(const hlx_window_t* w, int64_t* storage,
                       int64_t** tables) {
  int64_t* t = storage;
  for (int32_t d = 0; d < w->rank; d++) {
    tables[d] = t;
    int64_t bd = w->base_dilation[d];
    for (int64_t o = 0; o < w->out_dims[d]; o++)
      for (int64_t k = 0; k < w->window[d]; k++) {
        int64_t p = o * w->stride[d] + k * w->window_dilation[d] - w->pad_lo[d];
        int64_t v = -1;
        if (p >= 0 && p % bd == 0 && p / bd < w->in_dims[d]) v = p / bd;
        *t++ = v;
      }
  }
}

void hlx_window_offsets(const hlx_window_t* w, int64_t* const* tables,
                        const int64_t* out_index, int64_t* offsets) {
  int64_t in_stride[HLX_WINDOW_MAX_RANK], s = 1;
  for (int32_t d = w->rank - 1; d >= 0; d--) {
    in_stride[d] = s;
    s *= w->in_dims[d];
  }
  int64_t total = hlx_window_size(w);
  if (total == 0) return;
  int64_t k[HLX_WINDOW_MAX_RANK] = {0};
  for (int64_t i = 0; i < total; i++) {
    int64_t off = 0;
    for (int32_t d = 0; d < w->rank; d++) {
      int64_t v = tables[d][out_index[d] * w->window[d] + k[d]];
      if (v < 0) {
        off = -1;
        break;
      }
      off += v * in_stride[d];
    }
    offsets[i] = off;
    for (int32_t d = w->rank - 1; d >= 0; d--) {
      if (++k[d] < w->window[d]) break;
      k[d] = 0;
    }
  }
}

static size_t table_entries(const hlx_window_t* w) {
  size_t n = 0;
  for (int32_t d = 0; d < w->rank; d++)
    n += (size_t)(w->out_dims[d] * w->window[d]);
  return n;
}

/* The elementwise kernel implementing combiner `op` on t (pred: add is or,
 * multiply is and, as in StableHLO). */
static hlx_binary_fn combiner_kernel(hlx_reduce_op_t op, hlx_dtype_t t) {
  hlx_binary_op_t b;
  bool pred = hlx_dtype_is_pred(t);
  switch (op) {
    case HLX_REDUCE_ADD: b = pred ? HLX_BINARY_OR : HLX_BINARY_ADD; break;
    case HLX_REDUCE_MUL: b = pred ? HLX_BINARY_AND : HLX_BINARY_MULTIPLY; break;
    case HLX_REDUCE_MAX: b = HLX_BINARY_MAXIMUM; break;
    case HLX_REDUCE_MIN: b = HLX_BINARY_MINIMUM; break;
    case HLX_REDUCE_AND: b = HLX_BINARY_AND; break;
    case HLX_REDUCE_OR: b = HLX_BINARY_OR; break;
    case HLX_REDUCE_XOR: b = HLX_BINARY_XOR; break;
    default: return NULL;
  }
  hlx_dtype_t out;
  hlx_binary_fn fn = hlx_ref_binary_kernel(b, t, &out);
  return fn && out == t ? fn : NULL;
}

bool hlx_ref_reduce_window(hlx_reduce_op_t op, hlx_dtype_t t,
                           const hlx_window_t* w, const void* in,
                           const void* init, void* out) {
  if (w->rank < 0 || w->rank > HLX_WINDOW_MAX_RANK) return false;
  hlx_binary_fn fn = combiner_kernel(op, t);
  if (!fn) return false;
  size_t es = hlx_dtype_size(t);
  int64_t n_out = hlx_window_out_count(w), total = hlx_window_size(w);
  if (n_out == 0) return true;
  unsigned char* acc = malloc((size_t)n_out * es);
  unsigned char* acc2 = malloc((size_t)n_out * es);
  unsigned char* x = malloc((size_t)n_out * es);
  int64_t* storage = malloc(sizeof(int64_t) * (table_entries(w) + 1));
  if (!acc || !acc2 || !x || !storage) {
    free(acc);
    free(acc2);
    free(x);
    free(storage);
    return false;
  }
  int64_t* tables[HLX_WINDOW_MAX_RANK];
  hlx_window_tables(w, storage, tables);
  int64_t in_stride[HLX_WINDOW_MAX_RANK], s = 1;
  for (int32_t d = w->rank - 1; d >= 0; d--) {
    in_stride[d] = s;
    s *= w->in_dims[d];
  }
  for (int64_t i = 0; i < n_out; i++) memcpy(acc + (size_t)i * es, init, es);
  const unsigned char* src = in;
  int32_t r = w->rank;
  int64_t inner = r > 0 ? w->out_dims[r - 1] : 1;
  int64_t outer = inner ? n_out / inner : 0;
  int64_t k[HLX_WINDOW_MAX_RANK] = {0};
  for (int64_t step = 0; step < total; step++) {
    /* Gather window position k of every output into x. */
    int64_t o[HLX_WINDOW_MAX_RANK] = {0};
    unsigned char* dst = x;
    for (int64_t ob = 0; ob < outer; ob++) {
      int64_t base = 0;
      bool hole = false;
      for (int32_t d = 0; d < r - 1; d++) {
        int64_t v = tables[d][o[d] * w->window[d] + k[d]];
        if (v < 0) hole = true;
        base += v * in_stride[d];
      }
      if (r == 0) {
        memcpy(dst, src, es);
        dst += es;
      } else if (hole) {
        for (int64_t j = 0; j < inner; j++, dst += es) memcpy(dst, init, es);
      } else {
        const int64_t* tab = tables[r - 1] + k[r - 1];
        int64_t wl = w->window[r - 1];
        if (es == 4) {
          for (int64_t j = 0; j < inner; j++, dst += 4) {
            int64_t v = tab[j * wl];
            memcpy(dst, v < 0 ? init : src + (size_t)(base + v) * 4, 4);
          }
        } else {
          for (int64_t j = 0; j < inner; j++, dst += es) {
            int64_t v = tab[j * wl];
            memcpy(dst, v < 0 ? init : src + (size_t)(base + v) * es, es);
          }
        }
      }
      for (int32_t d = r - 2; d >= 0; d--) {
        if (++o[d] < w->out_dims[d]) break;
        o[d] = 0;
      }
    }
    fn(acc, x, acc2, (size_t)n_out);
    unsigned char* tmp = acc;
    acc = acc2;
    acc2 = tmp;
    for (int32_t d = r - 1; d >= 0; d--) {
      if (++k[d] < w->window[d]) break;
      k[d] = 0;
    }
  }
  memcpy(out, acc, (size_t)n_out * es);
  free(acc);
  free(acc2);
  free(x);
  free(storage);
  return true;
}

bool hlx_ref_window_select(hlx_compare_dir_t dir, hlx_compare_type_t type,
                           hlx_dtype_t t, const hlx_window_t* w,
                           const void* operand, int64_t* selected) {
  if (w->rank < 0 || w->rank > HLX_WINDOW_MAX_RANK) return false;
  size_t es = hlx_dtype_size(t);
  unsigned char zero[16] = {0};
  uint8_t y;
  if (es == 0 || es > sizeof(zero) ||
      !hlx_ref_compare(dir, type, t, zero, zero, &y, 1))
    return false;
  int64_t n_out = hlx_window_out_count(w), total = hlx_window_size(w);
  if (n_out == 0) return true;
  int64_t* storage = malloc(sizeof(int64_t) * (table_entries(w) + 1));
  int64_t* offs = malloc(sizeof(int64_t) * ((size_t)total + 1));
  if (!storage || !offs) {
    free(storage);
    free(offs);
    return false;
  }
  int64_t* tables[HLX_WINDOW_MAX_RANK];
  hlx_window_tables(w, storage, tables);
  const unsigned char* src = operand;
  int64_t o[HLX_WINDOW_MAX_RANK] = {0};
  for (int64_t i = 0; i < n_out; i++) {
    hlx_window_offsets(w, tables, o, offs);
    int64_t cur = -1;
    for (int64_t j = 0; j < total; j++) {
      int64_t off = offs[j];
      if (off < 0) continue;
      if (cur < 0) {
        cur = off;
        continue;
      }
      hlx_ref_compare(dir, type, t, src + (size_t)cur * es,
                      src + (size_t)off * es, &y, 1);
      if (!y) cur = off;
    }
    selected[i] = cur;
    for (int32_t d = w->rank - 1; d >= 0; d--) {
      if (++o[d] < w->out_dims[d]) break;
      o[d] = 0;
    }
  }
  free(storage);
  free(offs);
  return true;
}

bool hlx_ref_scatter_selected(hlx_reduce_op_t op, hlx_dtype_t t,
                              int64_t n_source, const int64_t* selected,
                              const void* source, const void* init,
                              int64_t n_out, void* out) {
  hlx_binary_fn fn = combiner_kernel(op, t);
  size_t es = hlx_dtype_size(t);
  if (!fn || es > 16) return false;
  unsigned char* dst = out;
  const unsigned char* src = source;
  for (int64_t i = 0; i < n_out; i++) memcpy(dst + (size_t)i * es, init, es);
  unsigned char tmp[16];
  for (int64_t i = 0; i < n_source; i++) {
    int64_t s = selected[i];
    if (s < 0 || s >= n_out) continue;
    fn(dst + (size_t)s * es, src + (size_t)i * es, tmp, 1);
    memcpy(dst + (size_t)s * es, tmp, es);
  }
  return true;
}
