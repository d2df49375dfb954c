/* Gather/scatter dispatch: recognises the embedding-lookup pattern (rows of
 * a 2-D table picked by a vector of int32/int64 indices) for gather and
 * f32 scatter-add, runs the best variant of kernels/gather_kernels.inc
 * (split across threads when large: gathers by output rows, scatter-adds
 * by destination rows), and leaves every other form to the reference
 * kernels. */
#include "kernels/dispatch.h"
#include "kernels/dispatch/thread_split.h"

static const hlx_gather_rows_fn g_gather[HLX_ISA_COUNT] = {
#if defined(__x86_64__) || defined(__aarch64__) /* the lists guard each ISA */
#define HLX_GATHER_ROWS(ISA, fn) [HLX_ISA_##ISA] = fn,
#include "kernels/gather_kernels.inc"
#endif
};
static const hlx_scatter_add_rows_fn g_scatter_add[HLX_ISA_COUNT] = {
#if defined(__x86_64__) || defined(__aarch64__) /* the lists guard each ISA */
#define HLX_SCATTER_ADD_ROWS(ISA, fn) [HLX_ISA_##ISA] = fn,
#include "kernels/gather_kernels.inc"
#endif
};

hlx_gather_rows_fn hlx_gather_rows_kernel(hlx_isa_t isa) {
  if ((unsigned)isa >= HLX_ISA_COUNT || !hlx_cpu_supports_isa(isa))
    return NULL;
  return g_gather[isa];
}

hlx_scatter_add_rows_fn hlx_scatter_add_rows_kernel(hlx_isa_t isa) {
  if ((unsigned)isa >= HLX_ISA_COUNT || !hlx_cpu_supports_isa(isa))
    return NULL;
  return g_scatter_add[isa];
}

/* Number of index scalars when every index vector is one element (the
 * index_vector_dim is implicit, or a trailing dim of size 1); -1 if not.
 * *batch_rank receives the rank of the index batch. */
static int64_t scalar_indices(int32_t rank, const int64_t* dims, int32_t ivd,
                              hlx_dtype_t t, int32_t* batch_rank) {
  if (t != HLX_DTYPE_S32 && t != HLX_DTYPE_S64) return -1;
  if (ivd == rank - 1 && rank > 0 && dims[rank - 1] == 1)
    *batch_rank = rank - 1;
  else if (ivd == rank)
    *batch_rank = rank;
  else
    return -1;
  int64_t n = 1;
  for (int32_t d = 0; d < *batch_rank; d++) n *= dims[d];
  return n;
}

bool hlx_gather_is_row_lookup(const hlx_gather_params_t* p, int64_t* n) {
  int32_t br;
  *n = scalar_indices(p->indices_rank, p->indices_dims, p->index_vector_dim,
                      p->index_dtype, &br);
  return *n >= 0 && p->operand_rank == 2 && p->num_batching == 0 &&
         p->num_collapsed == 1 && p->collapsed_slice_dims[0] == 0 &&
         p->num_start_index_map == 1 && p->start_index_map[0] == 0 &&
         p->num_offset_dims == 1 && p->offset_dims[0] == br &&
         p->operand_dims[0] >= 1 && p->slice_sizes[0] == 1 &&
         p->slice_sizes[1] >= 0 && p->slice_sizes[1] <= p->operand_dims[1];
}

/* Lookups split across threads from this many rows on (below, the pool's
 * wake-up costs more than the copies). */
enum { kParallelMinRows = 1 << 16 };

typedef struct gather_split_t {
  hlx_gather_rows_fn fn;
  const void* table;
  int64_t n_rows, row_stride;
  size_t row_bytes, idx_bytes;
  const void* idx;
  bool idx64;
  void* out;
  hlx_thread_split_t split; /* over the lookups: disjoint output rows */
} gather_split_t;

static void gather_piece(void* arg, size_t begin, size_t end) {
  const gather_split_t* s = arg;
  int64_t lo, hi;
  for (size_t k = begin; k < end; k++)
    if (hlx_thread_split_piece(&s->split, k, &lo, &hi))
      s->fn(s->table, s->n_rows, s->row_stride, s->row_bytes,
            (const char*)s->idx + lo * (int64_t)s->idx_bytes, s->idx64,
            hi - lo, (char*)s->out + lo * (int64_t)s->row_bytes);
}

void hlx_gather(const hlx_gather_params_t* p, size_t elem_size,
                const void* operand, const void* indices, void* result,
                const hlx_parallel_t* par) {
  int64_t n;
  hlx_gather_rows_fn fn = NULL;
  for (int lv = hlx_cpu_max_isa(); lv > HLX_ISA_REFERENCE && !fn; lv--)
    fn = g_gather[lv];
  if (fn && hlx_gather_is_row_lookup(p, &n)) {
    bool idx64 = p->index_dtype == HLX_DTYPE_S64;
    size_t row_bytes = (size_t)p->slice_sizes[1] * elem_size;
    int threads = n >= kParallelMinRows ? hlx_parallel_num_threads(par) : 1;
    gather_split_t s = {fn,
                        operand,
                        p->operand_dims[0],
                        p->operand_dims[1] * (int64_t)elem_size,
                        row_bytes,
                        idx64 ? 8 : 4,
                        indices,
                        idx64,
                        result,
                        /* whole output lines per piece */
                        hlx_thread_split(
                            n, threads,
                            hlx_thread_split_line_items((int64_t)row_bytes))};
    hlx_parallel_for(par, (size_t)s.split.pieces, 1, gather_piece, &s);
    return;
  }
  hlx_ref_gather(p, elem_size, operand, indices, result);
}

bool hlx_scatter_is_row_update(const hlx_scatter_params_t* p, int64_t* n) {
  int32_t br;
  *n = scalar_indices(p->indices_rank, p->indices_dims, p->index_vector_dim,
                      p->index_dtype, &br);
  return *n >= 0 && p->input_rank == 2 && p->num_batching == 0 &&
         p->num_inserted == 1 && p->inserted_window_dims[0] == 0 &&
         p->num_scatter_dims == 1 && p->scatter_dims_to_operand_dims[0] == 0 &&
         p->num_update_window_dims == 1 && p->update_rank == br + 1 &&
         p->update_window_dims[0] == br &&
         p->update_dims[br] <= p->input_dims[1];
}

typedef struct scatter_split_t {
  hlx_scatter_add_rows_fn fn;
  float* table;
  int64_t n_rows, row_stride, row_len, n;
  const void* idx;
  bool idx64;
  const float* updates;
  hlx_thread_split_t split; /* over the table's rows */
} scatter_split_t;

/* Piece k owns a window of table rows and applies, in index order, every
 * update that lands there: each row sees the same additions in the same
 * order as one sequential call, so the f32 results are bit-identical for
 * any thread count (no atomics, no reduction of partial tables). Each
 * piece reads all the indices. */
static void scatter_piece(void* arg, size_t begin, size_t end) {
  const scatter_split_t* s = arg;
  int64_t lo, hi;
  for (size_t k = begin; k < end; k++)
    if (hlx_thread_split_piece(&s->split, k, &lo, &hi))
      s->fn(s->table, s->n_rows, lo, hi, s->row_stride, s->row_len, s->idx,
            s->idx64, s->n, s->updates);
}

bool hlx_scatter(const hlx_scatter_params_t* p, hlx_scatter_combiner_t comb,
                 hlx_dtype_t t, const void* indices, const void* updates,
                 void* out, const hlx_parallel_t* par) {
  int64_t n;
  hlx_scatter_add_rows_fn fn = NULL;
  for (int lv = hlx_cpu_max_isa(); lv > HLX_ISA_REFERENCE && !fn; lv--)
    fn = g_scatter_add[lv];
  if (fn && !comb.replace && comb.op == HLX_REDUCE_ADD &&
      t == HLX_DTYPE_F32 && hlx_scatter_is_row_update(p, &n)) {
    int64_t n_rows = p->input_dims[0], stride = p->input_dims[1];
    int threads = n >= kParallelMinRows ? hlx_parallel_num_threads(par) : 1;
    if (threads > n_rows) threads = (int)n_rows;
    scatter_split_t s = {fn,
                         (float*)out,
                         n_rows,
                         stride,
                         p->update_dims[p->update_rank - 1],
                         n,
                         indices,
                         p->index_dtype == HLX_DTYPE_S64,
                         (const float*)updates,
                         /* row windows on whole table lines */
                         hlx_thread_split(
                             n_rows, threads,
                             hlx_thread_split_line_items(stride * 4))};
    hlx_parallel_for(par, (size_t)s.split.pieces, 1, scatter_piece, &s);
    return true;
  }
  return hlx_ref_scatter(p, comb, t, indices, updates, out);
}
