/* dot_general (and the legacy dot): operands are viewed in canonical
 * [batch, free, contract] / [batch, contract, free] order.
 *
 * Library path (lower_fast): when the types allow it: f32 (also bf16/f16
 * operands with f32 accumulation), s8/u8 x s8 -> s32, all-f64, the
 * canonical view is collapsed into a batched matrix [B, M, K] x [B, K, N]
 * with strides; batch dims that do not collapse into one may split into
 * an outer and an inner batch (attention's [batch, head] with the heads
 * interleaved with the tokens). Small products (M*N*K <= 64^3) go to a
 * libxsmm JIT kernel (f32/f64; needs unit column strides; split over the
 * executable's threads by whole products, or by row blocks of one product,
 * when large enough), the rest to oneDNN's matmul primitive (f32, bf16,
 * int8), which takes row- or column-major operands with any leading and
 * batch strides, so the transpose a dot_general implies costs nothing;
 * small products with a large batch go to oneDNN too when libxsmm would
 * need a copy (oneDNN reads them in place and splits the batch across
 * threads). An operand is copied (transposed, and converted to the
 * library's type) only when its dims do not collapse or the library cannot
 * read the layout.
 * Kernels/primitives are made when the plan is built. Result: [B, M, N]
 * row-major, converted if its type differs.
 *
 * An epilogue group (graph/lower/opt/epilogue.h) with a dot_general head runs
 * on oneDNN with post-ops (f32 result, not libxsmm-sized) or not at all.
 *
 * Reference path (everything else: complex, other integers, mixed widths,
 * empty dims): operands are copied into canonical order, widened into a
 * compute type (f32 / f64 / s64 / c64 / c128), multiplied by the reference
 * batched matmul and narrowed into the result's element type. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/parallel.h"
#include "graph/lower/opt/epilogue.h"
#include "graph/lower/ctx.h"
#include "graph/lower/packed_copy.h"
#include "kernels/data_movement.h"
#include "kernels/dot.h"
#include "kernels/elementwise.h"
#include "kernels/quant.h"
#include "kernels/libs/libxsmm.h"
#include "kernels/libs/onednn.h"

typedef struct canon_t {
  hlx_dtype_t dtype;
  int32_t rank;
  int64_t dims[HLX_MAX_RANK];    /* permuted dims */
  int64_t strides[HLX_MAX_RANK]; /* source strides in permuted order */
} canon_t;

typedef struct dot_args_t {
  canon_t lhs, rhs;
  hlx_dtype_t compute, out;
  int64_t B, M, N, K;
  int32_t nc; /* contracting dims (the lhs's last, the rhs's middle) */
  /* Quantized operands are dequantized to their expressed type first, a
   * quantized result is quantized from the compute type (spec: dot_general
   * on quantized tensors = dequantize, dot, quantize). */
  bool lhs_q, rhs_q, out_q;
  hlx_quant_params_t lq, rq, oq;
} dot_args_t;

/* Permutes and widens one operand into `dst` (compute type). */
static bool canonicalize(const canon_t* c, hlx_dtype_t compute, const void* src,
                         void* dst, size_t n) {
  size_t es = hlx_dtype_size(c->dtype);
  int64_t rs[HLX_MAX_RANK];
  if (c->dtype == compute) {
    hlx_row_major_strides(c->rank, c->dims, rs);
    hlx_ref_copy_strided(es, c->rank, c->dims, src, c->strides, dst, rs);
    return true;
  }
  void* tmp = malloc(n * es + 16);
  if (!tmp) return false;
  int64_t out_strides[HLX_MAX_RANK];
  hlx_row_major_strides(c->rank, c->dims, out_strides);
  hlx_ref_copy_strided(es, c->rank, c->dims, src, c->strides, tmp, out_strides);
  bool ok = hlx_ref_convert(c->dtype, tmp, compute, dst, n);
  free(tmp);
  return ok;
}

/* Dequantizes `src` into a new buffer of q's expressed type (or returns
 * src itself when the operand is not quantized). */
static hlx_status_t maybe_dequantize(bool on, const hlx_quant_params_t* q,
                                     const void* src, size_t n,
                                     void** owned, const void** view) {
  *owned = NULL;
  *view = src;
  if (!on) return NULL;
  *owned = malloc(n * hlx_dtype_size(q->expressed) + 16);
  if (!*owned) return hlx_status_oom();
  *view = *owned;
  return hlx_ref_dequantize(q, src, q->expressed, *owned, (int64_t)n);
}

static hlx_status_t run_dot(const void* args, void* const* in,
                            void* const* out, hlx_run_ctx_t* ctx) {
  (void)ctx;
  const dot_args_t* a = args;
  size_t cs = hlx_dtype_size(a->compute);
  size_t nl = (size_t)(a->B * a->M * a->K), nr = (size_t)(a->B * a->K * a->N),
         no = (size_t)(a->B * a->M * a->N);
  void* l = malloc(nl * cs + 16);
  void* r = malloc(nr * cs + 16);
  void* o = malloc(no * cs + 16);
  void *lq = NULL, *rq = NULL;
  const void *lsrc, *rsrc;
  hlx_status_t st = maybe_dequantize(a->lhs_q, &a->lq, in[0], nl, &lq, &lsrc);
  if (!st) st = maybe_dequantize(a->rhs_q, &a->rq, in[1], nr, &rq, &rsrc);
  if (!st && (!l || !r || !o || !canonicalize(&a->lhs, a->compute, lsrc, l, nl) ||
              !canonicalize(&a->rhs, a->compute, rsrc, r, nr)))
    st = hlx_status_oom();
  if (!st) {
    if (a->compute == HLX_DTYPE_F32)
      hlx_ref_batch_matmul_f32(a->B, a->M, a->N, a->K, l, r, o);
    else if (a->compute == HLX_DTYPE_C64)
      hlx_ref_batch_matmul_c64(a->B, a->M, a->N, a->K, l, r, o);
    else if (a->compute == HLX_DTYPE_F64)
      hlx_ref_batch_matmul_f64(a->B, a->M, a->N, a->K, l, r, o);
    else if (a->compute == HLX_DTYPE_S64)
      hlx_ref_batch_matmul_s64(a->B, a->M, a->N, a->K, l, r, o);
    else
      hlx_ref_batch_matmul_c128(a->B, a->M, a->N, a->K, l, r, o);
    if (a->out_q)
      st = hlx_ref_quantize(&a->oq, a->compute, o, out[0], (int64_t)no);
    else
      hlx_ref_convert(a->compute, o, a->out, out[0], no);
  }
  free(lq);
  free(rq);
  free(l);
  free(r);
  free(o);
  return st;
}

/* ---- library path ---- */

typedef enum lib_t { LIB_XSMM, LIB_ONEDNN } lib_t;

/* B*M*N*K from which a batch of small products that libxsmm would read
 * from a copy goes to oneDNN instead (~0.2 ms of work: the copy would cost
 * more than oneDNN's per-call overhead). */
#define HLX_DOT_BATCH_ONEDNN_WORK (1 << 22)

/* B*M*N*K from which a libxsmm product (or batch) splits over the
 * executable's threads. Measured on 2 cores (benchmarks/RESULTS.md "Small
 * matmuls on two threads, session 7"): handing half to a worker costs
 * ~0.25 us, so 32^3 and 8 x 16^3 (0.65 us) break even, 48^3 runs 1.4 us
 * split against 2.0 us whole; the threshold sits between. */
#define HLX_DOT_XSMM_SPLIT_WORK (1 << 16)

/* How the library reads one operand: straight from the slot with the
 * given strides, or from a canonical contiguous copy in `type`. */
typedef struct operand_view_t {
  bool copy;
  hlx_dtype_t type;
  int64_t strides[3]; /* batch, row, column (elements) */
  int64_t outer_stride; /* of the outer batch (fast_dot_t.Bo > 1) */
} operand_view_t;

typedef struct fast_dot_t {
  lib_t lib;
  canon_t lhs, rhs;
  operand_view_t a, b;
  hlx_dtype_t c_type, out;
  int64_t B, M, N, K;
  int64_t Bo; /* B = Bo outer x B / Bo inner batch entries */
  bool swap;  /* oneDNN computes C^T = B^T A^T (a column-major result) */
  hlx_xsmm_gemm_t xsmm;
  /* libxsmm over nsplit > 1 threads (0: one thread): whole products of a
   * batch (bitwise as on one thread), or one product (B = 1) in nsplit row
   * blocks of height mb, the last one (M - (nsplit - 1) * mb rows) with
   * xsmm_tail when shorter (the blocks' rows may differ from the whole
   * kernel's in the last ulp, libxsmm blocks rows by kernel height, so
   * the cut is fixed: kXsmmRowBlocks on any thread count). */
  int32_t nsplit;
  int64_t mb;
  hlx_xsmm_gemm_t xsmm_rows, xsmm_tail;
  hlx_onednn_matmul_t* mm;
  /* b of a reusable parameter in the primitive's own layout (desc.b_packed:
   * oneDNN's matmul ran 2-4% faster so on the chess model's shapes,
   * benchmarks/RESULTS.md), or NULL. HLX_DOT_NO_PACK=1 turns it off. */
  hlx_packed_copy_t* pb;
  int32_t num_post; /* epilogue post-ops; binary ones read in[2], ... */
} fast_dot_t;

/* Binary post-ops read in[2], in[3], ... in order. */
static hlx_status_t run_with_post_ops(const fast_dot_t* f, const void* A,
                                      const void* Bm, void* const* in,
                                      void* C) {
  const void* post[HLX_ONEDNN_MAX_POST_OPS] = {NULL};
  const hlx_onednn_matmul_desc_t* d = hlx_onednn_matmul_desc(f->mm);
  for (int32_t i = 0, k = 2; i < f->num_post; i++)
    if (d->post_ops[i].shape != HLX_ONEDNN_OPERAND_NONE) post[i] = in[k++];
  return hlx_onednn_matmul_run_ex(f->mm, A, Bm, post, C);
}

static hlx_status_t run_onednn(const fast_dot_t* f, const void* A,
                               const void* Bm, void* const* in, void* C) {
  return f->num_post ? run_with_post_ops(f, A, Bm, in, C)
                     : hlx_onednn_matmul_run(f->mm, A, Bm, C);
}

typedef struct pack_b_arg_t {
  const fast_dot_t* f;
  const void* b;
} pack_b_arg_t;

static hlx_status_t pack_b(const void* arg, void* data) {
  const pack_b_arg_t* a = arg;
  return hlx_onednn_matmul_pack_b(a->f->mm, a->b, data);
}

/* With b packed from in[1] (packed first when in[1] is another buffer). */
static hlx_status_t run_packed(const fast_dot_t* f, const void* A,
                               void* const* in, void* C) {
  pack_b_arg_t a = {f, in[1]};
  HLX_RETURN_IF_ERROR(hlx_packed_copy_lock(f->pb, in[1], NULL, pack_b, &a));
  hlx_status_t st = run_onednn(f, A, f->pb->data, in, C);
  hlx_packed_copy_unlock(f->pb);
  return st;
}

/* One libxsmm call of a run, split over pieces of the pool. */
typedef struct xsmm_split_t {
  const fast_dot_t* f;
  const char* a;
  const char* b;
  char* c;
  int64_t per_piece; /* products per piece (batch split) */
} xsmm_split_t;

/* Products [begin, end) of the batch (outer x inner, flattened). */
static void xsmm_products(const xsmm_split_t* s, int64_t begin, int64_t end) {
  const fast_dot_t* f = s->f;
  int64_t bi = f->B / f->Bo;
  size_t ea = hlx_dtype_size(f->a.type), eb = hlx_dtype_size(f->b.type),
         ec = hlx_dtype_size(f->c_type);
  for (int64_t i = begin; i < end;) {
    int64_t o = i / bi, j = i % bi, n = bi - j < end - i ? bi - j : end - i;
    hlx_xsmm_gemm_run(
        &f->xsmm, n,
        s->a + (o * f->a.outer_stride + j * f->a.strides[0]) * (int64_t)ea,
        f->a.strides[0],
        s->b + (o * f->b.outer_stride + j * f->b.strides[0]) * (int64_t)eb,
        f->b.strides[0], s->c + i * f->M * f->N * (int64_t)ec, f->M * f->N);
    i += n;
  }
}

static void xsmm_batch_pieces(void* arg, size_t begin, size_t end) {
  const xsmm_split_t* s = arg;
  int64_t lo = (int64_t)begin * s->per_piece,
          hi = (int64_t)end * s->per_piece;
  xsmm_products(s, lo, hi < s->f->B ? hi : s->f->B);
}

/* Row blocks [begin, end) of the one product. */
static void xsmm_row_blocks(void* arg, size_t begin, size_t end) {
  const xsmm_split_t* s = arg;
  const fast_dot_t* f = s->f;
  size_t ea = hlx_dtype_size(f->a.type), ec = hlx_dtype_size(f->c_type);
  for (size_t r = begin; r < end; r++) {
    int64_t r0 = (int64_t)r * f->mb;
    const hlx_xsmm_gemm_t* g =
        r0 + f->mb <= f->M ? &f->xsmm_rows : &f->xsmm_tail;
    hlx_xsmm_gemm_run(g, 1, s->a + r0 * f->a.strides[1] * (int64_t)ea, 0,
                      s->b, 0, s->c + r0 * f->N * (int64_t)ec, 0);
  }
}

static void run_xsmm(const fast_dot_t* f, const void* A, const void* Bm,
                     void* C, hlx_run_ctx_t* ctx) {
  const hlx_parallel_t* par = ctx ? ctx->parallel : NULL;
  int threads = hlx_parallel_num_threads(par);
  xsmm_split_t s = {f, A, Bm, C, f->B};
  if (f->nsplit > 1 && f->B == 1) {
    /* The blocks even inline: libxsmm's register blocking depends on the
     * kernel's height, so a block's rows may round differently from the
     * whole product's, and a run must give the bits a sequential run
     * gives. */
    hlx_parallel_for(threads > 1 ? par : NULL, (size_t)f->nsplit, 1,
                     xsmm_row_blocks, &s);
  } else if (f->nsplit <= 1 || threads <= 1) {
    xsmm_products(&s, 0, f->B);
  } else {
    int64_t pieces = threads < f->B ? threads : f->B;
    s.per_piece = (f->B + pieces - 1) / pieces;
    pieces = (f->B + s.per_piece - 1) / s.per_piece;
    hlx_parallel_for(par, (size_t)pieces, 1, xsmm_batch_pieces, &s);
  }
}

static hlx_status_t run_dot_fast(const void* args, void* const* in,
                                 void* const* out, hlx_run_ctx_t* ctx) {
  const fast_dot_t* f = args;
  size_t na = (size_t)(f->B * f->M * f->K), nb = (size_t)(f->B * f->K * f->N),
         nc = (size_t)(f->B * f->M * f->N);
  void* ta = NULL;
  void* tb = NULL;
  void* tc = NULL;
  const void* A = in[0];
  const void* Bm = in[1];
  void* C = out[0];
  hlx_status_t st = NULL;
  if (f->a.copy) {
    ta = malloc(na * hlx_dtype_size(f->a.type) + 64);
    if (!ta || !canonicalize(&f->lhs, f->a.type, in[0], ta, na)) goto oom;
    A = ta;
  }
  if (f->b.copy) {
    tb = malloc(nb * hlx_dtype_size(f->b.type) + 64);
    if (!tb || !canonicalize(&f->rhs, f->b.type, in[1], tb, nb)) goto oom;
    Bm = tb;
  }
  if (f->c_type != f->out) {
    tc = malloc(nc * hlx_dtype_size(f->c_type) + 64);
    if (!tc) goto oom;
    C = tc;
  }
  if (f->lib == LIB_XSMM) {
    run_xsmm(f, A, Bm, C, ctx);
  } else if (f->swap) {
    st = hlx_onednn_matmul_run(f->mm, Bm, A, C);
  } else if (f->pb) {
    st = run_packed(f, A, in, C);
  } else {
    st = run_onednn(f, A, Bm, in, C);
  }
  if (!st && tc) hlx_ref_convert(f->c_type, tc, f->out, out[0], nc);
  goto done;
oom:
  st = hlx_status_oom();
done:
  free(ta);
  free(tb);
  free(tc);
  return st;
}

/* Collapses canonical dims [lo, hi) into one (size, stride); false when
 * they are not one evenly strided run. Size-1 dims are skipped. */
static bool collapse(const canon_t* c, int32_t lo, int32_t hi,
                     int64_t* stride) {
  int64_t s = -1, expect = -1;
  for (int32_t i = hi - 1; i >= lo; i--) {
    if (c->dims[i] == 1) continue;
    if (s < 0) {
      s = c->strides[i];
    } else if (c->strides[i] != expect) {
      return false;
    }
    expect = c->strides[i] * c->dims[i];
  }
  *stride = s < 0 ? 0 : s;
  return true;
}

/* The number of leading batch dims that form the outer batch: 0 when
 * both operands' batch dims collapse into one, else the first split into
 * two collapsible runs for both, or 0 (copies) when there is none. */
static bool splits_at(const canon_t* c, int32_t j, int32_t nb) {
  int64_t s;
  return collapse(c, 0, j, &s) && collapse(c, j, nb, &s);
}

/* (The result too when it is written with strides: cv.) */
static int32_t outer_split(const canon_t* l, const canon_t* r,
                           const canon_t* cv, int32_t nb) {
  for (int32_t j = 0; j < nb; j++)
    if (splits_at(l, j, nb) && splits_at(r, j, nb) &&
        (!cv || splits_at(cv, j, nb)))
      return j;
  return 0;
}

/* Strides for a rows x cols matrix (+ batch, the first no dims of it the
 * outer batch) read in place, with size-1 dims given the stride of a
 * plain layout. */
static bool direct_view(const canon_t* c, int32_t no, int32_t nb,
                        int32_t nrow, int64_t rows, int64_t cols,
                        operand_view_t* v) {
  int64_t so = 0, sb, sr, sc;
  if (!collapse(c, 0, no, &so) || !collapse(c, no, nb, &sb) ||
      !collapse(c, nb, nb + nrow, &sr) ||
      !collapse(c, nb + nrow, c->rank, &sc))
    return false;
  if (rows == 1 && cols == 1) {
    sr = 1, sc = 1;
  } else if (cols == 1) {
    sc = 1; /* row-major with leading dim sr >= 1 */
  } else if (rows == 1) {
    sr = sc == 1 ? cols : 1;
  }
  v->copy = false;
  v->type = c->dtype;
  v->strides[0] = sb ? sb : rows * cols;
  v->strides[1] = sr;
  v->strides[2] = sc;
  v->outer_stride = so;
  return true;
}

/* A canonical copy [Bo, inner, rows, cols], contiguous. */
static void copy_view(hlx_dtype_t type, int64_t inner, int64_t rows,
                      int64_t cols, operand_view_t* v) {
  v->copy = true;
  v->type = type;
  v->strides[0] = rows * cols;
  v->strides[1] = cols;
  v->strides[2] = 1;
  v->outer_stride = inner * rows * cols;
}

/* libxsmm reads unit column strides with a leading dim >= the width. */
static bool xsmm_reads(const operand_view_t* v, int64_t cols) {
  return v->copy || (v->strides[2] == 1 && v->strides[1] >= cols);
}

static bool is_f32_like(hlx_dtype_t t) {
  return t == HLX_DTYPE_F32 || t == HLX_DTYPE_BF16 || t == HLX_DTYPE_F16;
}

/* The matmul desc's post-ops for ep and the slots of the binary ones'
 * operands (*nin of them, in order). *ok = false when the product cannot
 * take them: f32 result, the feature (the result's last dim) all of n. */
static hlx_status_t epilogue_inputs(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                    const hlx_epilogue_t* ep, int64_t N,
                                    hlx_onednn_matmul_desc_t* md, int32_t* in,
                                    int32_t* nin, bool* ok) {
  const hlx_type_t* o = op->results[0]->type;
  *ok = o->rank >= 1 && o->dims[o->rank - 1] == N &&
        md->c_type == HLX_DTYPE_F32;
  *nin = 0;
  md->num_post_ops = ep->num_steps;
  for (int32_t i = 0; *ok && i < ep->num_steps; i++) {
    md->post_ops[i] = ep->steps[i].op;
    if (ep->steps[i].op.shape == HLX_ONEDNN_OPERAND_NONE) continue;
    hlx_value_slots_t s;
    HLX_RETURN_IF_ERROR(hlx_lower_slots_of(c, ep->steps[i].operand, &s));
    *ok = s.n == 1;
    if (*ok) in[(*nin)++] = s.slots[0];
  }
  return NULL;
}

/* Swaps the row and column strides of a view (its matrix transposed). */
static void transpose_view(operand_view_t* v) {
  int64_t t = v->strides[1];
  v->strides[1] = v->strides[2];
  v->strides[2] = t;
}

/* The matmul descriptor for f's views and the result view cv; with
 * f->swap, the product C^T = B^T A^T (a and b trade places). */
static hlx_status_t onednn_desc(hlx_lower_ctx_t* c, const fast_dot_t* f,
                                const operand_view_t* cv, hlx_dtype_t at,
                                hlx_dtype_t bt, hlx_dtype_t ct, int64_t Bi,
                                hlx_onednn_matmul_desc_t* md) {
  operand_view_t a = f->a, b = f->b, cc = *cv;
  int64_t M = f->M, N = f->N;
  if (f->swap) {
    operand_view_t t = a;
    a = b, b = t;
    transpose_view(&a);
    transpose_view(&b);
    transpose_view(&cc);
    hlx_dtype_t tt = at;
    at = bt, bt = tt;
    M = f->N, N = f->M;
  }
  hlx_onednn_matmul_desc_init(md, at, bt, ct, Bi, M, N, f->K);
  md->threads = c->lm->options.library_threads;
  memcpy(md->a_strides, a.strides, sizeof(md->a_strides));
  memcpy(md->b_strides, b.strides, sizeof(md->b_strides));
  memcpy(md->c_strides, cc.strides, sizeof(md->c_strides));
  if (f->Bo > 1) {
    md->outer_batch = f->Bo;
    md->outer_strides[0] = a.outer_stride;
    md->outer_strides[1] = b.outer_stride;
    md->outer_strides[2] = cc.outer_stride;
  }
  return NULL;
}

static void release_matmul(void* mm) { hlx_onednn_matmul_release(mm); }

/* Whether b should be packed: f32 b read in place from a reusable
 * parameter, one product (no batch), not swapped. */
static hlx_status_t want_packed_b(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                  const fast_dot_t* f, hlx_dtype_t bt,
                                  bool* pack) {
  *pack = false;
  const char* off = getenv("HLX_DOT_NO_PACK");
  if ((off && *off && *off != '0') || bt != HLX_DTYPE_F32 || f->b.copy ||
      f->swap || f->B != 1)
    return NULL;
  hlx_value_slots_t ws;
  HLX_RETURN_IF_ERROR(hlx_lower_slots_of(c, op->operands[1], &ws));
  *pack = ws.n == 1 && hlx_lower_slot_is_reusable(c, ws.slots[0]);
  return NULL;
}

/* One product above the threshold is always cut in this many row blocks,
 * whatever the executable's thread count: a block's rows may round
 * differently from the whole kernel's (see fast_dot_t.nsplit), and a
 * fixed cut keeps the result the same on 1, 2 or more threads. */
enum { kXsmmRowBlocks = 2 };

/* Splits f's libxsmm work over the executable's threads when it is large
 * enough (f->nsplit stays 0 otherwise). */
static void plan_xsmm_split(hlx_lower_ctx_t* c, fast_dot_t* f) {
  int32_t t = c->lm->options.library_threads;
  if (f->B * f->M * f->N * f->K < HLX_DOT_XSMM_SPLIT_WORK) return;
  if (f->B > 1) { /* whole products: the same bits on any thread count */
    if (t > 1) f->nsplit = t;
    return;
  }
  int64_t nb = kXsmmRowBlocks < f->M ? kXsmmRowBlocks : f->M;
  f->mb = (f->M + nb - 1) / nb;
  nb = (f->M + f->mb - 1) / f->mb;
  int64_t tail = f->M - (nb - 1) * f->mb;
  if (nb <= 1 ||
      !hlx_xsmm_gemm_init(&f->xsmm_rows, f->xsmm.type, f->mb, f->N, f->K,
                          f->xsmm.lda, f->xsmm.ldb, f->xsmm.ldc) ||
      !hlx_xsmm_gemm_init(&f->xsmm_tail, f->xsmm.type, tail, f->N, f->K,
                          f->xsmm.lda, f->xsmm.ldb, f->xsmm.ldc))
    return;
  f->nsplit = (int32_t)nb;
}

/* Tries the library path; *done = false leaves the op to the reference.
 * With ep (graph/lower/opt/epilogue.h), only oneDNN with the post-ops will do,
 * and the task writes ep->last's result. With tr (the transpose that is
 * the result's one use; cv: the result's canonical dims at the strides
 * tr's layout gives them), only oneDNN writing that layout will do, and
 * the task writes tr's result. */
static hlx_status_t lower_fast(hlx_lower_ctx_t* c, const hlx_op_t* op,
                               const dot_args_t* d, int32_t nb,
                               const hlx_epilogue_t* ep, const hlx_op_t* tr,
                               const canon_t* cv, bool* done) {
  *done = false;
  if (getenv("HLX_DOT_REFERENCE")) return NULL; /* A/B switch for tests */
  hlx_dtype_t lt = d->lhs.dtype, rt = d->rhs.dtype, ot = d->out;
  int64_t B = d->B, M = d->M, N = d->N, K = d->K;
  if (B < 1 || M < 1 || N < 1 || K < 1) return NULL;
  bool small = hlx_xsmm_is_small(M, N, K);
  if (ep && (small || ot != HLX_DTYPE_F32)) return NULL;
  /* The outer batch: the first no batch dims. */
  int32_t no = outer_split(&d->lhs, &d->rhs, cv, nb);
  int64_t Bo = 1;
  for (int32_t i = 0; i < no; i++) Bo *= d->lhs.dims[i];
  hlx_dtype_t at, bt, ct;
  if (is_f32_like(lt) && is_f32_like(rt) && is_f32_like(ot)) {
    at = bt = ct = HLX_DTYPE_F32;
    if (!small && lt == HLX_DTYPE_BF16 && rt == HLX_DTYPE_BF16 &&
        (ot == HLX_DTYPE_F32 || ot == HLX_DTYPE_BF16)) {
      at = bt = HLX_DTYPE_BF16;
      ct = ot;
    }
  } else if (lt == HLX_DTYPE_F64 && rt == HLX_DTYPE_F64 &&
             ot == HLX_DTYPE_F64 && small) {
    at = bt = ct = HLX_DTYPE_F64;
  } else if ((lt == HLX_DTYPE_S8 || lt == HLX_DTYPE_U8) &&
             rt == HLX_DTYPE_S8 && ot == HLX_DTYPE_S32 && !small &&
             K <= 65536) {
    /* |sum| <= K * 2^15 fits s32: exact, so no wraparound questions. */
    at = lt;
    bt = HLX_DTYPE_S8;
    ct = HLX_DTYPE_S32;
  } else {
    return NULL;
  }
  fast_dot_t* f = hlx_lower_alloc(c, sizeof(*f));
  if (!f) return hlx_status_oom();
  memset(f, 0, sizeof(*f));
  int32_t post_in[HLX_ONEDNN_MAX_POST_OPS], npost_in = 0;
  f->lhs = d->lhs;
  f->rhs = d->rhs;
  f->c_type = ct;
  f->out = ot;
  f->B = B, f->M = M, f->N = N, f->K = K;
  f->Bo = Bo;
  int64_t Bi = B / Bo;
  /* lhs canonical: [batch (nb), free, contract]; rhs: [batch, contract,
   * free]. The contract dims are the lhs's last nc dims. */
  int32_t nc = d->nc;
  bool a_ok = lt == at && direct_view(&d->lhs, no, nb, d->lhs.rank - nb - nc,
                                      M, K, &f->a);
  bool b_ok = rt == bt && direct_view(&d->rhs, no, nb, nc, K, N, &f->b);
  if (!a_ok) copy_view(at, Bi, M, K, &f->a);
  if (!b_ok) copy_view(bt, Bi, K, N, &f->b);
  operand_view_t cvw; /* the result's view; plain without tr */
  copy_view(ct, Bi, M, N, &cvw);
  if (cv) {
    if (ct != ot || !direct_view(cv, no, nb, d->lhs.rank - nb - nc, M, N,
                                 &cvw))
      return NULL;
    if (cvw.strides[2] != 1) {
      /* column-major: C^T = B^T A^T is row-major */
      if (cvw.strides[1] != 1) return NULL;
      f->swap = true;
    }
    small = false;
  }
  /* A big batch of small products that libxsmm could only read from a
   * copy: oneDNN reads it in place, on every thread (f32 only). */
  if (small && at == HLX_DTYPE_F32 &&
      (!xsmm_reads(&f->a, K) || !xsmm_reads(&f->b, N)) &&
      B * M * N * K >= HLX_DOT_BATCH_ONEDNN_WORK)
    small = false;
  if (small && (at == HLX_DTYPE_F32 || at == HLX_DTYPE_F64)) {
    if (!xsmm_reads(&f->a, K)) copy_view(at, Bi, M, K, &f->a);
    if (!xsmm_reads(&f->b, N)) copy_view(bt, Bi, K, N, &f->b);
    if (!hlx_xsmm_gemm_init(&f->xsmm, at, M, N, K, f->a.strides[1],
                            f->b.strides[1], N))
      return NULL;
    f->lib = LIB_XSMM;
    plan_xsmm_split(c, f);
  } else {
    if (at == HLX_DTYPE_F64) return NULL;
    f->lib = LIB_ONEDNN;
    hlx_onednn_matmul_desc_t md;
    HLX_RETURN_IF_ERROR(
        onednn_desc(c, f, &cvw, at, bt, ct, Bi, &md));
    if (ep) {
      bool ok;
      HLX_RETURN_IF_ERROR(
          epilogue_inputs(c, op, ep, N, &md, post_in, &npost_in, &ok));
      if (!ok) return NULL;
      f->num_post = md.num_post_ops;
    }
    bool pack;
    HLX_RETURN_IF_ERROR(want_packed_b(c, op, f, bt, &pack));
    md.b_packed = pack;
    hlx_status_t st = hlx_onednn_matmul_create(&md, &f->mm);
    if (st && (!f->a.copy || !f->b.copy)) {
      /* Layout oneDNN cannot read fast: copy both into plain order. */
      hlx_status_free(st);
      copy_view(at, Bi, M, K, &f->a);
      copy_view(bt, Bi, K, N, &f->b);
      hlx_onednn_matmul_desc_t plain; /* its strides; md keeps post-ops */
      HLX_RETURN_IF_ERROR(onednn_desc(c, f, &cvw, at, bt, ct, Bi, &plain));
      memcpy(md.a_strides, plain.a_strides, sizeof(md.a_strides));
      memcpy(md.b_strides, plain.b_strides, sizeof(md.b_strides));
      memcpy(md.outer_strides, plain.outer_strides, sizeof(md.outer_strides));
      md.b_packed = 0; /* b is a copy now */
      st = hlx_onednn_matmul_create(&md, &f->mm);
    }
    if (st) {
      hlx_status_free(st);
      return NULL;
    }
    /* the plan holds its reference until it is destroyed */
    if (!hlx_plan_on_destroy(c->plan, release_matmul, f->mm)) {
      hlx_onednn_matmul_release(f->mm);
      return hlx_status_oom();
    }
    if (md.b_packed)
      HLX_RETURN_IF_ERROR(hlx_lower_packed_copy(
          c, hlx_onednn_matmul_packed_b_bytes(f->mm), &f->pb));
  }
  if (ep && f->lib != LIB_ONEDNN) return NULL;
  int32_t in[2 + HLX_ONEDNN_MAX_POST_OPS], out;
  HLX_RETURN_IF_ERROR(hlx_lower_in(c, op, 0, &in[0]));
  HLX_RETURN_IF_ERROR(hlx_lower_in(c, op, 1, &in[1]));
  for (int32_t i = 0; i < npost_in; i++) in[2 + i] = post_in[i];
  HLX_RETURN_IF_ERROR(
      hlx_lower_out(c, ep ? ep->last : tr ? tr : op, 0, &out));
  *done = true;
  if (ep) {
    if (!hlx_plan_add_task(c->plan, ep->name, run_dot_fast, f, 2 + npost_in,
                           in, 1, &out))
      return hlx_status_oom();
  } else if (tr) {
    char name[96];
    if (tr->line > 0)
      snprintf(name, sizeof name, "%s+transpose at %d:%d", op->name,
               tr->line, tr->col);
    else
      snprintf(name, sizeof name, "%s+transpose", op->name);
    if (!hlx_plan_add_task(c->plan, name, run_dot_fast, f, 2, in, 1, &out))
      return hlx_status_oom();
  } else {
    HLX_RETURN_IF_ERROR(
        hlx_lower_emit(c, op, run_dot_fast, f, 2, in, 1, &out));
  }
  /* oneDNN runs an OpenMP team over every core; libxsmm splits on the
   * pool (hlx_parallel_for), which needs no flag. */
  if (f->lib == LIB_ONEDNN)
    hlx_plan_last_task_set_flags(c->plan, HLX_TASK_WIDE);
  return NULL;
}

/* Reads an integer list attribute field (I64_ARRAY, ARRAY of INT, DENSE). */

/* Builds the canonical view of an operand: `first` dims, then the free dims
 * (those in neither list) when free_middle, then `second`. */
static hlx_status_t make_canon(const hlx_op_t* op, const char* which,
                               const hlx_type_t* t, const int64_t* batch,
                               int32_t nb, const int64_t* contract, int32_t nc,
                               bool lhs, canon_t* c, int64_t* free_size) {
  bool used[HLX_MAX_RANK] = {false};
  int64_t rs[HLX_MAX_RANK];
  hlx_row_major_strides(t->rank, t->dims, rs);
  c->dtype = t->dtype;
  c->rank = 0;
  for (int32_t i = 0; i < nb + nc; i++) {
    int64_t d = i < nb ? batch[i] : contract[i - nb];
    if (d < 0 || d >= t->rank || used[d])
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "%s %s dimension %lld is out of range or repeated",
                          which, i < nb ? "batching" : "contracting",
                          (long long)d);
    used[d] = true;
  }
  int64_t order[HLX_MAX_RANK];
  int32_t k = 0;
  for (int32_t i = 0; i < nb; i++) order[k++] = batch[i];
  if (!lhs)
    for (int32_t i = 0; i < nc; i++) order[k++] = contract[i];
  *free_size = 1;
  for (int32_t d = 0; d < t->rank; d++)
    if (!used[d]) {
      order[k++] = d;
      *free_size *= t->dims[d];
    }
  if (lhs)
    for (int32_t i = 0; i < nc; i++) order[k++] = contract[i];
  for (int32_t i = 0; i < t->rank; i++) {
    c->dims[i] = t->dims[order[i]];
    c->strides[i] = rs[order[i]];
  }
  c->rank = t->rank;
  return NULL;
}

static hlx_dtype_t compute_type(hlx_dtype_t t) {
  if (hlx_dtype_is_complex(t)) return HLX_DTYPE_C128;
  if (hlx_dtype_is_float(t)) return HLX_DTYPE_F64;
  return HLX_DTYPE_S64;
}

/* The result's canonical dims with the strides the layout of tr (a
 * transpose of the result) gives them; false when tr does not fit. */
static bool transposed_result(const hlx_op_t* tr, const hlx_type_t* o,
                              canon_t* cv) {
  const hlx_type_t* t = hlx_static_tensor(tr->results[0]);
  int64_t perm[HLX_MAX_RANK];
  int32_t np;
  if (!t || t->rank != o->rank ||
      !hlx_attr_int_list(hlx_op_attr(tr, "permutation"), perm, HLX_MAX_RANK,
                         &np) ||
      np != o->rank)
    return false;
  int64_t ts[HLX_MAX_RANK];
  hlx_row_major_strides(t->rank, t->dims, ts);
  bool seen[HLX_MAX_RANK] = {false};
  for (int32_t i = 0; i < np; i++) {
    if (perm[i] < 0 || perm[i] >= np || seen[perm[i]] ||
        t->dims[i] != o->dims[perm[i]])
      return false;
    seen[perm[i]] = true;
    cv->strides[perm[i]] = ts[i];
  }
  cv->dtype = o->dtype;
  cv->rank = o->rank;
  memcpy(cv->dims, o->dims, sizeof(int64_t) * (size_t)o->rank);
  return true;
}

/* With ep: the product and its epilogue on oneDNN, or nothing
 * (*ep_done = false); likewise with tr, the product written in the order
 * of that transpose of the result. */
static hlx_status_t lower_dot_common(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                     const int64_t* lb, int32_t nlb,
                                     const int64_t* rb, int32_t nrb,
                                     const int64_t* lc, int32_t nlc,
                                     const int64_t* rc, int32_t nrc,
                                     const hlx_epilogue_t* ep,
                                     const hlx_op_t* tr, bool* ep_done) {
  const hlx_type_t* l = hlx_static_tensor(op->operands[0]);
  const hlx_type_t* r = hlx_static_tensor(op->operands[1]);
  const hlx_type_t* o = hlx_static_tensor(op->results[0]);
  if (!l || !r || !o || l->rank > HLX_MAX_RANK || r->rank > HLX_MAX_RANK)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: dynamic shapes are not executed "
                        "(hlx_program_specialize makes them static)");
  if ((l->quant || r->quant || o->quant) && (!l->quant || !r->quant))
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: mixing quantized and float operands");
  if (nlb != nrb || nlc != nrc)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "lhs and rhs need as many batching (%d vs %d) and "
                        "contracting (%d vs %d) dimensions",
                        nlb, nrb, nlc, nrc);
  int64_t B = 1, K = 1;
  for (int32_t i = 0; i < nlb; i++) {
    if (lb[i] < 0 || lb[i] >= l->rank || rb[i] < 0 || rb[i] >= r->rank)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "batching dimension pair %d is out of range", i);
    if (l->dims[lb[i]] != r->dims[rb[i]])
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "lhs batching dim %lld has size %lld, rhs dim %lld "
                          "has %lld",
                          (long long)lb[i], (long long)l->dims[lb[i]],
                          (long long)rb[i], (long long)r->dims[rb[i]]);
    B *= l->dims[lb[i]];
  }
  for (int32_t i = 0; i < nlc; i++) {
    if (lc[i] < 0 || lc[i] >= l->rank || rc[i] < 0 || rc[i] >= r->rank)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "contracting dimension pair %d is out of range", i);
    if (l->dims[lc[i]] != r->dims[rc[i]])
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "lhs contracting dim %lld has size %lld, rhs dim "
                          "%lld has %lld",
                          (long long)lc[i], (long long)l->dims[lc[i]],
                          (long long)rc[i], (long long)r->dims[rc[i]]);
    K *= l->dims[lc[i]];
  }
  dot_args_t* a = hlx_lower_alloc(c, sizeof(*a));
  if (!a) return hlx_status_oom();
  int64_t M, N;
  HLX_RETURN_IF_ERROR(make_canon(op, "lhs", l, lb, nlb, lc, nlc, true, &a->lhs, &M));
  HLX_RETURN_IF_ERROR(make_canon(op, "rhs", r, rb, nrb, rc, nrc, false, &a->rhs, &N));
  /* Result: batch dims, lhs free dims, rhs free dims. */
  int32_t want_rank = l->rank + r->rank - nlb - 2 * nlc;
  bool shape_ok = o->rank == want_rank;
  int32_t k = 0;
  for (int32_t i = 0; shape_ok && i < nlb; i++) shape_ok = o->dims[k++] == l->dims[lb[i]];
  for (int32_t i = nlb; shape_ok && i < l->rank - nlc; i++)
    shape_ok = o->dims[k++] == a->lhs.dims[i];
  for (int32_t i = nlb + nlc; shape_ok && i < r->rank; i++)
    shape_ok = o->dims[k++] == a->rhs.dims[i];
  if (!shape_ok)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "result shape is not [batch..., lhs free..., rhs "
                        "free...]");
  /* Quantized operands compute in their expressed type. */
  hlx_dtype_t types[3] = {l->dtype, r->dtype, o->dtype};
  if (l->quant) {
    HLX_RETURN_IF_ERROR(hlx_lower_quant_params(c, op, "lhs", l, &a->lq));
    HLX_RETURN_IF_ERROR(hlx_lower_quant_params(c, op, "rhs", r, &a->rq));
    a->lhs_q = a->rhs_q = true;
    types[0] = a->lhs.dtype = l->quant->expressed;
    types[1] = a->rhs.dtype = r->quant->expressed;
  }
  if (o->quant) {
    HLX_RETURN_IF_ERROR(hlx_lower_quant_params(c, op, "result", o, &a->oq));
    a->out_q = true;
    types[2] = o->quant->expressed;
  }
  /* The widest domain any of the three types needs. */
  hlx_dtype_t ct = HLX_DTYPE_S64;
  for (int i = 0; i < 3; i++) {
    hlx_dtype_t t = compute_type(types[i]);
    if (t == HLX_DTYPE_C128 || (t == HLX_DTYPE_F64 && ct == HLX_DTYPE_S64))
      ct = t;
  }
  /* Single precision is enough (and what XLA does) unless a type is f64. */
  bool wide = false;
  for (int i = 0; i < 3; i++)
    wide |= hlx_dtype_complex_part(types[i]) == HLX_DTYPE_F64;
  if (!wide && ct == HLX_DTYPE_F64) ct = HLX_DTYPE_F32;
  if (!wide && ct == HLX_DTYPE_C128) ct = HLX_DTYPE_C64;
  a->compute = ct;
  a->out = o->dtype;
  a->B = B;
  a->M = M;
  a->N = N;
  a->K = K;
  a->nc = nlc;
  bool done = false;
  canon_t cv;
  if (tr && !transposed_result(tr, o, &cv)) {
    *ep_done = false;
    return NULL;
  }
  if (!a->lhs_q && !a->out_q)
    HLX_RETURN_IF_ERROR(
        lower_fast(c, op, a, nlb, ep, tr, tr ? &cv : NULL, &done));
  if (ep || tr) {
    *ep_done = done;
    return NULL;
  }
  if (done) return NULL;
  return hlx_lower_emit_simple(c, op, run_dot, a, 2);
}

static hlx_status_t lower_dot_general_ep(hlx_lower_ctx_t* c,
                                         const hlx_op_t* op,
                                         const hlx_epilogue_t* ep,
                                         const hlx_op_t* tr, bool* ep_done) {
  const hlx_attr_t* dn = hlx_op_attr(op, "dot_dimension_numbers");
  if (!dn || dn->kind != HLX_ATTR_STRUCT)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "missing attribute 'dot_dimension_numbers'");
  int64_t lb[HLX_MAX_RANK], rb[HLX_MAX_RANK], lc[HLX_MAX_RANK],
      rc[HLX_MAX_RANK];
  int32_t nlb, nrb, nlc, nrc;
  if (!hlx_attr_int_list(hlx_attr_dict_get(dn, "lhs_batching_dimensions"), lb,
                         HLX_MAX_RANK, &nlb) ||
      !hlx_attr_int_list(hlx_attr_dict_get(dn, "rhs_batching_dimensions"), rb,
                         HLX_MAX_RANK, &nrb) ||
      !hlx_attr_int_list(hlx_attr_dict_get(dn, "lhs_contracting_dimensions"),
                         lc, HLX_MAX_RANK, &nlc) ||
      !hlx_attr_int_list(hlx_attr_dict_get(dn, "rhs_contracting_dimensions"),
                         rc, HLX_MAX_RANK, &nrc))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "dot_dimension_numbers fields must be lists of at "
                        "most %d integers",
                        HLX_MAX_RANK);
  return lower_dot_common(c, op, lb, nlb, rb, nrb, lc, nlc, rc, nrc, ep, tr,
                          ep_done);
}

static hlx_status_t lower_dot_general(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  return lower_dot_general_ep(c, op, NULL, NULL, NULL);
}

hlx_status_t hlx_lower_dot_epilogue(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                    const hlx_epilogue_t* ep, bool* done) {
  *done = false;
  if (op->code != HLX_OP_DOT_GENERAL) return NULL;
  return lower_dot_general_ep(c, op, ep, NULL, done);
}

hlx_status_t hlx_lower_dot_transposed(hlx_lower_ctx_t* c, const hlx_op_t* dot,
                                      const hlx_op_t* tr, bool* done) {
  *done = false;
  if (dot->code != HLX_OP_DOT_GENERAL || tr->num_operands != 1 ||
      tr->operands[0] != dot->results[0] || getenv("HLX_NO_DOT_TRANSPOSE"))
    return NULL;
  return lower_dot_general_ep(c, dot, NULL, tr, done);
}

/* Legacy dot: vector/matrix products contracting lhs's last dim with rhs's
 * first. */
static hlx_status_t lower_dot(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  if (op->num_operands != 2)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT, "takes two operands");
  const hlx_type_t* l = op->operands[0]->type;
  if (l->kind != HLX_TYPE_TENSOR || l->rank < 1 || l->rank > 2 ||
      op->operands[1]->type->rank < 1 || op->operands[1]->type->rank > 2)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "operands must be vectors or matrices");
  int64_t lc = l->rank - 1, rc = 0;
  return lower_dot_common(c, op, NULL, 0, NULL, 0, &lc, 1, &rc, 1, NULL, NULL,
                          NULL);
}

const hlx_lowering_t hlx_lowerings_dot[] = {
    {HLX_OP_DOT_GENERAL, lower_dot_general},
    {HLX_OP_DOT, lower_dot},
    {HLX_OP_UNKNOWN, NULL},
};
