/* Tiled evaluation of a fused elementwise program (kernels/
 * fused_elementwise.h). Per call, each input is classified once: read in
 * place (its layout is the output's), a scalar (one tile filled once and
 * reused) or gathered per tile through its strides after merging the
 * dimensions it walks contiguously, so a bias along the last dim is a
 * memcpy per row and a per-row value one fill per row. */
#include <string.h>

#include "kernels/fused_elementwise.h"

enum { kAlign = 64 };

static size_t align_up(size_t x) { return (x + kAlign - 1) & ~(size_t)(kAlign - 1); }

static size_t tile_of(const hlx_fused_program_t* p) {
  return p->tile ? p->tile : HLX_FUSED_TILE;
}

/* Bytes of the register that receives the last step when the values are
 * not an output: sized by the last step's own dtype, which reg_elem_size
 * (the widest of the other steps) need not cover -- a lone clamp feeding
 * a reduction has no other step at all. */
static size_t last_reg_bytes(const hlx_fused_program_t* p) {
  if (p->write_values || p->num_steps < 1) return 0;
  size_t es = hlx_dtype_size(p->steps[p->num_steps - 1].out_dtype);
  if (es < p->reg_elem_size) es = p->reg_elem_size;
  return align_up(tile_of(p) * es);
}

/* Registers, then the last step's register (see last_reg_bytes), then one
 * tile per input. */
size_t hlx_fused_scratch_bytes(const hlx_fused_program_t* p) {
  size_t t = tile_of(p);
  size_t b = (size_t)p->num_regs * align_up(t * p->reg_elem_size) +
             last_reg_bytes(p);
  for (int32_t i = 0; i < p->num_inputs; i++)
    b += align_up(t * p->inputs[i].elem_size);
  return b;
}

/* kPeriodic: a gathered input whose values repeat every `period` output
 * elements (zero strides outside its trailing dims, e.g. a layer norm's
 * gamma over 256-wide rows) with period dividing the tile and the range's
 * start: every tile reads the same values, so one gather serves all. */
typedef enum { kInPlace, kScalar, kGather, kPeriodic } in_mode_t;

/* An input's view after merging dims: out-shape dims (outermost first) and
 * the input's element strides along them. */
typedef struct in_view_t {
  in_mode_t mode;
  int32_t rank;
  int64_t dims[HLX_FUSED_MAX_RANK];
  int64_t strides[HLX_FUSED_MAX_RANK];
  size_t period; /* flat period of the values (0: none below the size) */
  unsigned char* tile;
} in_view_t;

static void classify(const hlx_fused_program_t* p, const hlx_fused_input_t* in,
                     in_view_t* v) {
  int32_t r = 0;
  for (int32_t d = 0; d < p->rank; d++) {
    if (p->dims[d] == 1) continue; /* its stride never matters */
    if (r > 0 && v->strides[r - 1] == in->strides[d] * p->dims[d]) {
      v->dims[r - 1] *= p->dims[d];
      v->strides[r - 1] = in->strides[d];
      continue;
    }
    v->dims[r] = p->dims[d];
    v->strides[r] = in->strides[d];
    r++;
  }
  v->rank = r;
  bool scalar = true;
  for (int32_t d = 0; d < r; d++) scalar = scalar && v->strides[d] == 0;
  /* Period: the size of the dims after the leading zero-stride ones. */
  int32_t lead = 0;
  while (lead < r && v->strides[lead] == 0) lead++;
  size_t period = 1;
  for (int32_t d = lead; d < r; d++) period *= (size_t)v->dims[d];
  v->period = lead > 0 ? period : 0;
  if (scalar)
    v->mode = kScalar;
  else if (r == 1 && v->strides[0] == 1)
    v->mode = kInPlace;
  else
    v->mode = kGather;
}

/* dst[0..n) = n copies of the element at src. A 64-byte pattern, then
 * fixed-size block copies (inlined as vector moves): cheap even for the
 * short rows of a per-row broadcast, where a chain of libc calls is not. */
void hlx_fused_fill(void* dst_v, const void* src_v, size_t es, size_t n) {
  unsigned char* dst = dst_v;
  const unsigned char* src = src_v;
  enum { kBlock = 64 };
  unsigned char pat[kBlock];
  size_t total = n * es, off = 0;
  switch (es) {
    case 1:
      memset(dst, *src, n);
      return;
    case 2:
      for (int k = 0; k < kBlock / 2; k++) memcpy(pat + 2 * k, src, 2);
      break;
    case 4:
      for (int k = 0; k < kBlock / 4; k++) memcpy(pat + 4 * k, src, 4);
      break;
    case 8:
      for (int k = 0; k < kBlock / 8; k++) memcpy(pat + 8 * k, src, 8);
      break;
    case 16:
      for (int k = 0; k < kBlock / 16; k++) memcpy(pat + 16 * k, src, 16);
      break;
    default:
      for (size_t i = 0; i < n; i++) memcpy(dst + es * i, src, es);
      return;
  }
  for (; off + kBlock <= total; off += kBlock) memcpy(dst + off, pat, kBlock);
  if (off == total) return;
  if (total >= kBlock) {
    /* The rest as one block ending at the end, overlapping the last one
     * (es divides kBlock, so the pattern stays in phase): a libc call per
     * row tail cost as much as the row's stores. */
    memcpy(dst + total - kBlock, pat, kBlock);
    return;
  }
  /* Short runs in fixed-size pieces: the rest is a multiple of es, so
   * only pieces of at least es (multiples of it) are taken. */
#define HLX_FILL_PIECE(k)         \
  if (total - off >= (k)) {       \
    memcpy(dst + off, pat, (k));  \
    off += (k);                   \
  }
  HLX_FILL_PIECE(32)
  HLX_FILL_PIECE(16)
  HLX_FILL_PIECE(8)
  HLX_FILL_PIECE(4)
  HLX_FILL_PIECE(2)
#undef HLX_FILL_PIECE
}

/* Gathers output elements [lo, lo + n) of input view v into v->tile. */
static void gather(const in_view_t* v, const unsigned char* base, size_t es,
                   size_t lo, size_t n) {
  int64_t idx[HLX_FUSED_MAX_RANK];
  size_t rem = lo;
  int64_t off = 0;
  for (int32_t d = v->rank - 1; d >= 0; d--) {
    idx[d] = (int64_t)(rem % (size_t)v->dims[d]);
    rem /= (size_t)v->dims[d];
    off += idx[d] * v->strides[d];
  }
  const int32_t last = v->rank - 1;
  const int64_t s = v->strides[last];
  unsigned char* dst = v->tile;
  size_t done = 0;
  while (done < n) {
    size_t run = (size_t)(v->dims[last] - idx[last]);
    if (run > n - done) run = n - done;
    const unsigned char* src = base + (size_t)off * es;
    if (s == 0)
      hlx_fused_fill(dst, src, es, run);
    else if (s == 1)
      memcpy(dst, src, run * es);
    else
      for (size_t i = 0; i < run; i++)
        memcpy(dst + i * es, src + (size_t)((int64_t)i * s) * es, es);
    dst += run * es;
    done += run;
    /* Advance the odometer by `run` along the last dim (ends a row or the
     * tile), carrying into the outer dims. */
    idx[last] += (int64_t)run;
    off += (int64_t)run * s;
    for (int32_t d = last; d > 0 && idx[d] == v->dims[d]; d--) {
      off -= idx[d] * v->strides[d];
      idx[d] = 0;
      idx[d - 1]++;
      off += v->strides[d - 1];
    }
  }
}

static const void* operand(const hlx_fused_ref_t* r, const in_view_t* views,
                           const hlx_fused_program_t* p,
                           const void* const* inputs, unsigned char* regs,
                           size_t reg_stride, size_t lo) {
  if (!r->is_input) return regs + (size_t)r->index * reg_stride;
  const in_view_t* v = &views[r->index];
  if (v->mode == kInPlace)
    return (const unsigned char*)inputs[r->index] +
           lo * p->inputs[r->index].elem_size;
  return v->tile;
}

bool hlx_fused_step_apply(const hlx_fused_step_t* s, const void* const* a,
                          void* y, size_t n) {
  switch (s->kind) {
    case HLX_FUSED_UNARY:
      s->unary(a[0], y, n);
      return true;
    case HLX_FUSED_BINARY:
      s->binary(a[0], a[1], y, n);
      return true;
    case HLX_FUSED_COMPARE:
      return s->compare(s->dir, s->cmp_type, s->in_dtype, a[0], a[1], y, n);
    case HLX_FUSED_SELECT:
      s->select(hlx_dtype_size(s->in_dtype), a[0], false, a[1], a[2], y, n);
      return true;
    case HLX_FUSED_CLAMP:
      return hlx_ref_clamp(s->in_dtype, a[0], false, a[1], a[2], false, y, n);
    case HLX_FUSED_CONVERT:
      return s->convert(s->in_dtype, a[0], s->out_dtype, y, n);
  }
  return false;
}

bool hlx_fused_elementwise_run(const hlx_fused_program_t* p,
                               const void* const* inputs, void* out,
                               void* reduced, size_t begin, size_t end,
                               void* scratch) {
  in_view_t views[64];
  if (p->num_inputs > 64 || p->num_steps < 1) return false;
  const size_t tile = tile_of(p);
  unsigned char* regs = scratch;
  size_t reg_stride = align_up(tile * p->reg_elem_size);
  /* Without a values output the last step writes this extra register. */
  unsigned char* last_reg = regs + (size_t)p->num_regs * reg_stride;
  unsigned char* next = last_reg + last_reg_bytes(p);
  for (int32_t i = 0; i < p->num_inputs; i++) {
    in_view_t* v = &views[i];
    classify(p, &p->inputs[i], v);
    v->tile = next;
    next += align_up(tile * p->inputs[i].elem_size);
    if (v->mode == kScalar)
      hlx_fused_fill(v->tile, inputs[i], p->inputs[i].elem_size, tile);
    if (v->mode == kGather && v->period && tile % v->period == 0 &&
        begin % v->period == 0 && begin < end) {
      /* Later tiles (all full but the last) repeat the first's values. */
      v->mode = kPeriodic;
      gather(v, inputs[i], p->inputs[i].elem_size, begin,
             end - begin < tile ? end - begin : tile);
    }
  }
  const hlx_fused_step_t* lastp = &p->steps[p->num_steps - 1];
  size_t out_es = hlx_dtype_size(lastp->out_dtype);
  for (size_t lo = begin; lo < end; lo += tile) {
    size_t n = end - lo < tile ? end - lo : tile;
    for (int32_t i = 0; i < p->num_inputs; i++)
      if (views[i].mode == kGather)
        gather(&views[i], inputs[i], p->inputs[i].elem_size, lo, n);
    for (int32_t k = 0; k < p->num_steps; k++) {
      const hlx_fused_step_t* s = &p->steps[k];
      const void* a[HLX_FUSED_MAX_OPERANDS] = {0};
      for (int32_t j = 0; j < s->num_operands; j++)
        a[j] = operand(&s->operands[j], views, p, inputs, regs, reg_stride, lo);
      void* y = k < p->num_steps - 1 ? (void*)(regs + (size_t)s->dst * reg_stride)
                : p->write_values      ? (void*)((unsigned char*)out + lo * out_es)
                                       : (void*)last_reg;
      if (!hlx_fused_step_apply(s, a, y, n)) return false;
    }
    if (p->reduce.fn) {
      /* Whole rows: the same per-row kernel call the unfused reduce makes. */
      const hlx_fused_reduce_t* r = &p->reduce;
      const void* vals = p->write_values
                             ? (const void*)((unsigned char*)out + lo * out_es)
                             : (const void*)last_reg;
      int64_t dims[2] = {(int64_t)(n / r->row), (int64_t)r->row};
      if (!r->fn(r->op, lastp->out_dtype, 2, dims, 2u, vals,
                 inputs[r->init_input],
                 (unsigned char*)reduced + lo / r->row * out_es))
        return false;
    }
  }
  return true;
}
