/* Block-by-block evaluation of a row-local fused program
 * (kernels/row_fused.h). Temporaries are sized for one block of rows;
 * invariant steps fill theirs once per call, the others once per block. */
#include <string.h>

#include "kernels/row_fused.h"

enum { kAlign = 64 };

static size_t align_up(size_t x) {
  return (x + kAlign - 1) & ~(size_t)(kAlign - 1);
}

/* Elements of a value of domain d over nb rows. */
static size_t count(const hlx_row_program_t* p, hlx_row_domain_t d,
                    int64_t nb) {
  switch (d) {
    case HLX_ROW_SCALAR:
      return 1;
    case HLX_ROW_ROW:
      return (size_t)nb;
    case HLX_ROW_VEC:
      return (size_t)p->row_len;
    case HLX_ROW_FULL:
      return (size_t)(nb * p->row_len);
  }
  return 0;
}

size_t hlx_row_fused_scratch_bytes(const hlx_row_program_t* p) {
  size_t b = 0;
  for (int32_t t = 0; t < p->num_temps; t++)
    b += align_up(count(p, p->temps[t].domain, p->block) *
                  p->temps[t].elem_size);
  return b;
}

typedef struct view_t {
  const hlx_row_program_t* p;
  const void* const* inputs;
  unsigned char* out;
  unsigned char* const* temps;
} view_t;

static const hlx_row_buffer_t* buffer_of(const view_t* v, hlx_row_ref_t r,
                                         hlx_row_buffer_t* tmp) {
  if (r.kind == HLX_ROW_REF_INPUT) return &v->p->inputs[r.index];
  if (r.kind == HLX_ROW_REF_TEMP) return &v->p->temps[r.index];
  tmp->domain = v->p->out_domain;
  tmp->elem_size = v->p->out_elem_size;
  return tmp;
}

/* Where ref r's values for the block starting at row r0 are. */
static unsigned char* address(const view_t* v, hlx_row_ref_t r, int64_t r0) {
  const hlx_row_program_t* p = v->p;
  switch (r.kind) {
    case HLX_ROW_REF_TEMP:
      return v->temps[r.index];
    case HLX_ROW_REF_OUTPUT:
      return v->out + (size_t)(p->out_domain == HLX_ROW_FULL ? r0 * p->row_len
                                                             : r0) *
                          p->out_elem_size;
    case HLX_ROW_REF_INPUT: {
      const hlx_row_buffer_t* in = &p->inputs[r.index];
      unsigned char* base = (unsigned char*)v->inputs[r.index];
      if (in->domain == HLX_ROW_FULL)
        return base + (size_t)(r0 * p->row_len) * in->elem_size;
      if (in->domain == HLX_ROW_ROW) return base + (size_t)r0 * in->elem_size;
      return base;
    }
  }
  return NULL;
}

static bool expand(const view_t* v, const hlx_row_step_t* s, const void* src,
                   void* dst, int64_t nb) {
  hlx_row_buffer_t tmp;
  const hlx_row_buffer_t* from = buffer_of(v, s->operands[0], &tmp);
  size_t es = from->elem_size, len = (size_t)v->p->row_len;
  size_t n = count(v->p, s->domain, nb);
  const unsigned char* a = src;
  unsigned char* y = dst;
  if (from->domain == s->domain) {
    memmove(y, a, n * es);
  } else if (from->domain == HLX_ROW_SCALAR) {
    hlx_fused_fill(y, a, es, n);
  } else if (from->domain == HLX_ROW_ROW && s->domain == HLX_ROW_FULL) {
    for (int64_t r = 0; r < nb; r++)
      hlx_fused_fill(y + (size_t)r * len * es, a + (size_t)r * es, es, len);
  } else if (from->domain == HLX_ROW_VEC && s->domain == HLX_ROW_FULL) {
    for (int64_t r = 0; r < nb; r++) memcpy(y + (size_t)r * len * es, a, len * es);
  } else {
    return false;
  }
  return true;
}

static bool run_step(const view_t* v, const hlx_row_step_t* s, int64_t r0,
                     int64_t nb) {
  const void* a[HLX_FUSED_MAX_OPERANDS] = {0};
  for (int32_t j = 0; j < s->num_operands; j++)
    a[j] = address(v, s->operands[j], r0);
  void* y = address(v, s->dst, r0);
  switch (s->kind) {
    case HLX_ROW_ELEMENTWISE:
      return hlx_fused_step_apply(&s->ew, a, y, count(v->p, s->domain, nb));
    case HLX_ROW_REDUCE: {
      int64_t dims[2] = {nb, v->p->row_len};
      return s->reduce(s->reduce_op, s->reduce_dtype, 2, dims, 2u, a[0], a[1],
                       y);
    }
    case HLX_ROW_EXPAND:
      return expand(v, s, a[0], y, nb);
  }
  return false;
}

bool hlx_row_fused_run(const hlx_row_program_t* p, const void* const* inputs,
                       void* out, int64_t begin, int64_t end, void* scratch) {
  enum { kMaxTemps = 256 };
  unsigned char* temps[kMaxTemps];
  if (p->num_temps > kMaxTemps || p->block < 1) return false;
  unsigned char* next = scratch;
  for (int32_t t = 0; t < p->num_temps; t++) {
    temps[t] = next;
    next += align_up(count(p, p->temps[t].domain, p->block) *
                     p->temps[t].elem_size);
  }
  view_t v = {p, inputs, out, temps};
  if (begin >= end) return true;
  for (int32_t k = 0; k < p->num_steps; k++)
    if (p->steps[k].invariant && !run_step(&v, &p->steps[k], begin, p->block))
      return false;
  for (int64_t r0 = begin; r0 < end; r0 += p->block) {
    int64_t nb = end - r0 < p->block ? end - r0 : p->block;
    for (int32_t k = 0; k < p->num_steps; k++)
      if (!p->steps[k].invariant && !run_step(&v, &p->steps[k], r0, nb))
        return false;
  }
  return true;
}
