/* Reference gather / scatter. Both walk the index space once: gather per
 * batch position (one strided window copy each), scatter per update element
 * in row-major order, in runs along the innermost update dimension when it
 * is a window dimension landing on consecutive result elements. */
#include "kernels/gather_scatter.h"

#include <string.h>

#include "kernels/data_movement.h"
#include "kernels/elementwise.h"

/* Element i of an integer index tensor as int64 (unsigned values above
 * INT64_MAX saturate). */
static int64_t load_index(hlx_dtype_t t, const void* base, int64_t i) {
  switch (t) {
    case HLX_DTYPE_S2:
    case HLX_DTYPE_S4:
    case HLX_DTYPE_S8:
      return ((const int8_t*)base)[i];
    case HLX_DTYPE_S16:
      return ((const int16_t*)base)[i];
    case HLX_DTYPE_S32:
      return ((const int32_t*)base)[i];
    case HLX_DTYPE_S64:
      return ((const int64_t*)base)[i];
    case HLX_DTYPE_PRED:
    case HLX_DTYPE_U2:
    case HLX_DTYPE_U4:
    case HLX_DTYPE_U8:
      return ((const uint8_t*)base)[i];
    case HLX_DTYPE_U16:
      return ((const uint16_t*)base)[i];
    case HLX_DTYPE_U32:
      return ((const uint32_t*)base)[i];
    case HLX_DTYPE_U64: {
      uint64_t v = ((const uint64_t*)base)[i];
      return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
    }
    default:
      return 0;
  }
}

static bool in_list(const int64_t* list, int32_t n, int64_t v) {
  for (int32_t i = 0; i < n; i++)
    if (list[i] == v) return true;
  return false;
}

static void strides_of(int32_t rank, const int64_t* dims, int64_t* s) {
  int64_t acc = 1;
  for (int32_t d = rank - 1; d >= 0; d--) {
    s[d] = acc;
    acc *= dims[d];
  }
}

/* ---- gather ------------------------------------------------------------ */

int32_t hlx_gather_result_shape(const hlx_gather_params_t* p, int64_t* dims) {
  int32_t nbatch = p->indices_rank -
                   (p->index_vector_dim < p->indices_rank ? 1 : 0);
  int32_t rank = nbatch + p->num_offset_dims;
  if (rank > HLX_GS_MAX_RANK || rank < 0) return -1;
  int64_t batch[HLX_GS_MAX_RANK], offs[HLX_GS_MAX_RANK];
  int32_t nb = 0, no = 0;
  for (int32_t d = 0; d < p->indices_rank; d++)
    if (d != p->index_vector_dim) batch[nb++] = p->indices_dims[d];
  for (int32_t d = 0; d < p->operand_rank; d++)
    if (!in_list(p->collapsed_slice_dims, p->num_collapsed, d) &&
        !in_list(p->operand_batching_dims, p->num_batching, d) &&
        no < HLX_GS_MAX_RANK)
      offs[no++] = p->slice_sizes[d];
  int32_t bi = 0, oi = 0;
  for (int32_t d = 0; d < rank; d++) {
    if (in_list(p->offset_dims, p->num_offset_dims, d))
      dims[d] = oi < no ? offs[oi++] : 0;
    else
      dims[d] = bi < nb ? batch[bi++] : 0;
  }
  return rank;
}

void hlx_ref_gather(const hlx_gather_params_t* p, size_t elem_size,
                    const void* operand, const void* indices, void* result) {
  int64_t rdims[HLX_GS_MAX_RANK], rstr[HLX_GS_MAX_RANK];
  int32_t rrank = hlx_gather_result_shape(p, rdims);
  if (rrank < 0) return;
  strides_of(rrank, rdims, rstr);
  int64_t rsize = 1;
  for (int32_t d = 0; d < rrank; d++) rsize *= rdims[d];
  if (rsize == 0) return;
  /* A collapsed or batching dim with slice size 0 selects no operand
   * element, yet drops out of the result shape: the spec leaves those
   * values undefined; they are zero here (never read out of bounds). */
  for (int32_t d = 0; d < p->operand_rank; d++)
    if (p->slice_sizes[d] == 0 &&
        (in_list(p->collapsed_slice_dims, p->num_collapsed, d) ||
         in_list(p->operand_batching_dims, p->num_batching, d))) {
      memset(result, 0, (size_t)rsize * elem_size);
      return;
    }
  int64_t ostr[HLX_GS_MAX_RANK], istr[HLX_GS_MAX_RANK + 1];
  strides_of(p->operand_rank, p->operand_dims, ostr);
  strides_of(p->indices_rank, p->indices_dims, istr);
  /* Window: operand dims kept in the result (offset dims, in order). */
  int64_t wdims[HLX_GS_MAX_RANK], wostr[HLX_GS_MAX_RANK],
      wrstr[HLX_GS_MAX_RANK];
  int32_t nw = 0;
  for (int32_t d = 0; d < p->operand_rank; d++) {
    if (in_list(p->collapsed_slice_dims, p->num_collapsed, d) ||
        in_list(p->operand_batching_dims, p->num_batching, d))
      continue;
    wdims[nw] = p->slice_sizes[d];
    wostr[nw] = ostr[d];
    wrstr[nw] = nw < p->num_offset_dims ? rstr[p->offset_dims[nw]] : 0;
    nw++;
  }
  /* Batch dims: indices dims except index_vector_dim, each with its result
   * stride (the result's non-offset axes, in order). */
  int32_t nb = 0;
  int64_t bdims[HLX_GS_MAX_RANK], bistr[HLX_GS_MAX_RANK],
      brstr[HLX_GS_MAX_RANK], bostr[HLX_GS_MAX_RANK];
  int32_t raxis = 0;
  for (int32_t d = 0; d < p->indices_rank; d++) {
    if (d == p->index_vector_dim) continue;
    while (raxis < rrank &&
           in_list(p->offset_dims, p->num_offset_dims, raxis))
      raxis++;
    bdims[nb] = p->indices_dims[d];
    bistr[nb] = istr[d];
    brstr[nb] = raxis < rrank ? rstr[raxis] : 0;
    raxis++;
    /* A batching dim of start_indices moves the operand along its paired
     * operand batching dim. */
    bostr[nb] = 0;
    for (int32_t i = 0; i < p->num_batching; i++)
      if (p->start_indices_batching_dims[i] == d)
        bostr[nb] = ostr[p->operand_batching_dims[i]];
    nb++;
  }
  int64_t ivstr = p->index_vector_dim < p->indices_rank
                      ? istr[p->index_vector_dim]
                      : 0;
  int64_t hi[HLX_GS_MAX_RANK], sstr[HLX_GS_MAX_RANK];
  for (int32_t k = 0; k < p->num_start_index_map; k++) {
    int64_t od = p->start_index_map[k];
    hi[k] = p->operand_dims[od] - p->slice_sizes[od];
    sstr[k] = ostr[od];
  }
  int64_t pos[HLX_GS_MAX_RANK] = {0};
  int64_t ioff = 0, roff = 0, boff = 0;
  for (;;) {
    int64_t ooff = boff;
    for (int32_t k = 0; k < p->num_start_index_map; k++) {
      int64_t s = load_index(p->index_dtype, indices, ioff + k * ivstr);
      if (s > hi[k]) s = hi[k];
      if (s < 0) s = 0;
      ooff += s * sstr[k];
    }
    hlx_ref_copy_strided(elem_size, nw, wdims,
                         (const char*)operand + ooff * (int64_t)elem_size,
                         wostr, (char*)result + roff * (int64_t)elem_size,
                         wrstr);
    int32_t d = nb - 1;
    for (; d >= 0; d--) {
      ioff += bistr[d];
      roff += brstr[d];
      boff += bostr[d];
      if (++pos[d] < bdims[d]) break;
      ioff -= bistr[d] * bdims[d];
      roff -= brstr[d] * bdims[d];
      boff -= bostr[d] * bdims[d];
      pos[d] = 0;
    }
    if (d < 0) break;
  }
}

/* ---- scatter ----------------------------------------------------------- */

int hlx_ref_scatter_visit(const hlx_scatter_params_t* p, const void* indices,
                          hlx_scatter_visit_fn visit, void* ctx) {
  int32_t R = p->update_rank, IR = p->input_rank;
  for (int32_t d = 0; d < R; d++)
    if (p->update_dims[d] == 0) return 0;
  for (int32_t d = 0; d < IR; d++)
    if (p->input_dims[d] == 0) return 0;
  int64_t instr[HLX_GS_MAX_RANK], istr[HLX_GS_MAX_RANK];
  strides_of(IR, p->input_dims, instr);
  strides_of(p->indices_rank, p->indices_dims, istr);
  int64_t ivstr = p->index_vector_dim < p->indices_rank
                      ? istr[p->index_vector_dim]
                      : 0;
  /* Per update dim: whether it is a window dim; for window dims the input
   * dim it moves along; for scatter dims the indices dim. */
  bool is_win[HLX_GS_MAX_RANK];
  int32_t win_in[HLX_GS_MAX_RANK], sc_idx[HLX_GS_MAX_RANK];
  int32_t next_in = 0, next_idx = 0;
  for (int32_t d = 0; d < R; d++) {
    is_win[d] = in_list(p->update_window_dims, p->num_update_window_dims, d);
    win_in[d] = sc_idx[d] = -1;
    if (is_win[d]) {
      while (next_in < IR &&
             (in_list(p->inserted_window_dims, p->num_inserted, next_in) ||
              in_list(p->input_batching_dims, p->num_batching, next_in)))
        next_in++;
      win_in[d] = next_in++;
    } else {
      if (next_idx == p->index_vector_dim) next_idx++;
      sc_idx[d] = next_idx++;
    }
  }
  /* Input dim of each indices dim that is a batching dim (-1 otherwise). */
  int32_t batch_in[HLX_GS_MAX_RANK + 1];
  for (int32_t d = 0; d <= p->indices_rank && d < HLX_GS_MAX_RANK + 1; d++)
    batch_in[d] = -1;
  for (int32_t i = 0; i < p->num_batching; i++)
    batch_in[p->scatter_indices_batching_dims[i]] =
        (int32_t)p->input_batching_dims[i];
  /* Runs along the innermost update dim when it is a window dim of input
   * stride 1. */
  int32_t run_dim = -1;
  int64_t run_len = 1;
  if (R > 0 && is_win[R - 1] && instr[win_in[R - 1]] == 1) {
    run_dim = R - 1;
    run_len = p->update_dims[R - 1];
  }
  int32_t outer = run_dim >= 0 ? R - 1 : R;
  int64_t pos[HLX_GS_MAX_RANK] = {0};
  int64_t full[HLX_GS_MAX_RANK]; /* start + batching index per input dim */
  bool need_start = true;
  int64_t upd_off = 0;
  for (;;) {
    if (need_start) {
      /* Scatter position changed: rebuild the start index. */
      for (int32_t d = 0; d < IR; d++) full[d] = 0;
      int64_t ioff = 0;
      for (int32_t d = 0; d < R; d++) {
        if (is_win[d]) continue;
        ioff += pos[d] * istr[sc_idx[d]];
        if (batch_in[sc_idx[d]] >= 0) full[batch_in[sc_idx[d]]] += pos[d];
      }
      for (int32_t k = 0; k < p->num_scatter_dims; k++)
        full[p->scatter_dims_to_operand_dims[k]] +=
            load_index(p->index_dtype, indices, ioff + k * ivstr);
      need_start = false;
    }
    /* Full index = full + window index; check bounds on the outer dims. */
    bool ok = true;
    int64_t roff = 0;
    int64_t widx[HLX_GS_MAX_RANK];
    for (int32_t d = 0; d < IR; d++) widx[d] = 0;
    for (int32_t d = 0; d < outer; d++)
      if (is_win[d]) widx[win_in[d]] = pos[d];
    int32_t rin = run_dim >= 0 ? win_in[run_dim] : -1;
    int64_t lo = 0, hi = 1;
    for (int32_t d = 0; d < IR && ok; d++) {
      int64_t f = full[d];
      if (d == rin) {
        /* Valid run positions w: 0 <= f + w < dim. */
        if (f >= p->input_dims[d] || f <= -run_len) {
          ok = false;
          break;
        }
        lo = f < 0 ? -f : 0;
        hi = p->input_dims[d] - f;
        if (hi > run_len) hi = run_len;
        roff += (f + lo) * instr[d];
        continue;
      }
      int64_t w = widx[d];
      if (f < -w || f >= p->input_dims[d] - w) {
        ok = false;
        break;
      }
      roff += (f + w) * instr[d];
    }
    if (ok && hi > lo) {
      int r = visit(ctx, roff, upd_off + lo, hi - lo);
      if (r) return r;
    }
    upd_off += run_len;
    int32_t d = outer - 1;
    for (; d >= 0; d--) {
      if (!is_win[d]) need_start = true;
      if (++pos[d] < p->update_dims[d]) break;
      pos[d] = 0;
    }
    if (d < 0) break;
  }
  return 0;
}

static hlx_binary_op_t binary_of(hlx_reduce_op_t op) {
  switch (op) {
    case HLX_REDUCE_ADD:
      return HLX_BINARY_ADD;
    case HLX_REDUCE_MUL:
      return HLX_BINARY_MULTIPLY;
    case HLX_REDUCE_MAX:
      return HLX_BINARY_MAXIMUM;
    case HLX_REDUCE_MIN:
      return HLX_BINARY_MINIMUM;
    case HLX_REDUCE_AND:
      return HLX_BINARY_AND;
    case HLX_REDUCE_OR:
      return HLX_BINARY_OR;
    case HLX_REDUCE_XOR:
      return HLX_BINARY_XOR;
  }
  return HLX_BINARY_COUNT;
}

static hlx_binary_fn combiner_fn(hlx_scatter_combiner_t comb, hlx_dtype_t t) {
  hlx_binary_op_t b = binary_of(comb.op);
  if (b == HLX_BINARY_COUNT) return NULL;
  hlx_dtype_t rt = HLX_DTYPE_INVALID;
  hlx_binary_fn fn = hlx_ref_binary_kernel(b, t, &rt);
  return fn && rt == t ? fn : NULL;
}

bool hlx_scatter_supported(hlx_scatter_combiner_t comb, hlx_dtype_t t) {
  if (hlx_dtype_size(t) == 0) return false;
  return comb.replace || combiner_fn(comb, t) != NULL;
}

typedef struct scatter_ctx_t {
  hlx_binary_fn fn; /* NULL: replace */
  size_t es;
  const char* upd;
  char* out;
} scatter_ctx_t;

static int scatter_apply(void* vctx, int64_t r, int64_t u, int64_t n) {
  scatter_ctx_t* c = vctx;
  char* dst = c->out + r * (int64_t)c->es;
  const char* src = c->upd + u * (int64_t)c->es;
  if (c->fn)
    c->fn(dst, src, dst, (size_t)n);
  else
    memmove(dst, src, (size_t)n * c->es);
  return 0;
}

bool hlx_ref_scatter(const hlx_scatter_params_t* p, hlx_scatter_combiner_t comb,
                     hlx_dtype_t t, const void* indices, const void* updates,
                     void* out) {
  if (!hlx_scatter_supported(comb, t)) return false;
  scatter_ctx_t c = {comb.replace ? NULL : combiner_fn(comb, t),
                     hlx_dtype_size(t), updates, out};
  hlx_ref_scatter_visit(p, indices, scatter_apply, &c);
  return true;
}
