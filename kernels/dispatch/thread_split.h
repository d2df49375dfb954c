/* One piece per thread over [0, n): the split the dispatch files use for
 * large kernels (gathers by output rows, scatter-adds by destination rows;
 * tiled transposes by input rows). Piece starts are
 * multiples of `align` items, so with align * item bytes >= 64 neighbouring
 * pieces never write the same cache line (no false sharing) and streaming
 * stores stay aligned; the last piece takes the remainder, and pieces past
 * the end are empty. Internal to kernels/dispatch. */
#ifndef HLX_KERNELS_DISPATCH_THREAD_SPLIT_H_
#define HLX_KERNELS_DISPATCH_THREAD_SPLIT_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct hlx_thread_split_t {
  int64_t n;    /* items in all */
  int64_t step; /* items per piece, a multiple of align */
  int pieces;   /* hlx_parallel_for over [0, pieces) */
} hlx_thread_split_t;

/* `threads` pieces of ceil(n / threads) items rounded up to `align` (>= 1).
 * threads <= 1 gives one piece of everything. */
static inline hlx_thread_split_t hlx_thread_split(int64_t n, int threads,
                                                  int64_t align) {
  hlx_thread_split_t s = {n, n, 1};
  if (threads > 1 && n > 0) {
    int64_t per = (n + threads - 1) / threads;
    s.step = (per + align - 1) / align * align;
    s.pieces = threads;
  }
  return s;
}

/* Items [*lo, *hi) of piece k; false when the piece is empty. */
static inline bool hlx_thread_split_piece(const hlx_thread_split_t* s, size_t k,
                                          int64_t* lo, int64_t* hi) {
  *lo = (int64_t)k * s->step;
  *hi = *lo + s->step < s->n ? *lo + s->step : s->n;
  return *lo < *hi;
}

/* The fewest items whose bytes are a whole number of 64-byte lines (64 /
 * gcd(64, item_bytes)): the align that keeps piece starts on line
 * boundaries for items of any size (12-byte items: 16, i.e. 3 lines). */
static inline int64_t hlx_thread_split_line_items(int64_t item_bytes) {
  if (item_bytes <= 0) return 1;
  int64_t a = 64, b = item_bytes % 64;
  while (b) { /* gcd(64, item_bytes) */
    int64_t r = a % b;
    a = b;
    b = r;
  }
  return 64 / a;
}

#endif /* HLX_KERNELS_DISPATCH_THREAD_SPLIT_H_ */
