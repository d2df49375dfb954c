/* Lowering of a fusion group (graph/passes/fusion.h) to one task running
 * kernels/fused_elementwise.h over the group's output.
 *
 * Members become steps in program order; broadcast_in_dim members (and
 * chains of them) become strided reads of their operand; splat constants
 * are read as scalars.
 * Step results live in tile registers, reused once their last reader ran.
 * Kernels are the dispatched ones the unfused ops would use, so fused and
 * unfused plans compute the same values. Anything this file cannot express
 * (a dtype without a kernel, an attribute it does not read) makes it decline
 * (*done = false) and the caller lowers the members one by one, which also
 * reports any error the op's own lowering finds.
 *
 * HLX_NO_FUSION=1 or hlx_lower_options_t.disable_fusion turns fusion off. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/parallel.h"
#include "graph/passes/fusion.h"
#include "graph/lower/opt/epilogue.h"
#include "graph/lower/ctx.h"
#include "graph/lower/opt/row_fusion.h"
#include "graph/lower/region_match.h"
#include "kernels/dispatch.h"
#include "kernels/fused_elementwise.h"
#include "kernels/libs/thread_buffer.h"

enum { kMaxInputs = 64, kParallelMin = 1 << 15 };

bool hlx_lower_fusion_enabled(const hlx_lower_ctx_t* c) {
  const char* e = getenv("HLX_NO_FUSION");
  if (e && *e && *e != '0') return false;
  return !c->lm->options.disable_fusion;
}

/* ---- run ----------------------------------------------------------------- */

typedef struct fused_args_t {
  hlx_fused_program_t prog;
  size_t n;
} fused_args_t;

typedef struct fused_split_t {
  const fused_args_t* a;
  const void* const* in;
  void* out;     /* the values, or NULL */
  void* reduced; /* the reduction, or NULL */
  size_t step;
  atomic_int failed;
} fused_split_t;

/* Each thread's scratch, kept from run to run (no allocation per run). */
static hlx_thread_buffer_t g_fused_scratch = HLX_THREAD_BUFFER_INIT;

static void run_pieces(void* arg, size_t begin, size_t end) {
  fused_split_t* s = arg;
  void* scratch = hlx_thread_buffer(
      &g_fused_scratch, hlx_fused_scratch_bytes(&s->a->prog), NULL);
  if (!scratch) {
    atomic_store(&s->failed, 1);
    return;
  }
  for (size_t piece = begin; piece < end; piece++) {
    size_t lo = piece * s->step;
    size_t hi = lo + s->step < s->a->n ? lo + s->step : s->a->n;
    if (lo < hi && !hlx_fused_elementwise_run(&s->a->prog, s->in, s->out,
                                              s->reduced, lo, hi, scratch))
      atomic_store(&s->failed, 2);
  }
}

static hlx_status_t run_fused(const void* args, void* const* in,
                              void* const* out, hlx_run_ctx_t* ctx) {
  const fused_args_t* a = args;
  bool values = a->prog.write_values, reduce = a->prog.reduce.fn != NULL;
  fused_split_t s = {a, (const void* const*)in, values ? out[0] : NULL,
                     reduce ? out[values ? 1 : 0] : NULL, a->n, 0};
  atomic_init(&s.failed, 0);
  int threads = hlx_parallel_num_threads(ctx->parallel);
  if (threads <= 1 || a->n < kParallelMin) {
    run_pieces(&s, 0, 1);
  } else {
    /* Pieces of whole tiles (tiles hold whole reduced rows). */
    size_t pieces = (size_t)threads * 4, tile = a->prog.tile;
    s.step = ((a->n + pieces - 1) / pieces + tile - 1) / tile * tile;
    pieces = (a->n + s.step - 1) / s.step;
    hlx_parallel_for(ctx->parallel, pieces, 1, run_pieces, &s);
  }
  int f = atomic_load(&s.failed);
  if (f == 1) return hlx_status_oom();
  if (f == 2)
    return hlx_make_status(HLX_STATUS_INTERNAL,
                           "fused elementwise: a kernel refused its dtype");
  return NULL;
}

/* ---- absorbed reductions -------------------------------------------------- */

enum { kMaxReduceRow = 1 << 16 };

/* The combiner and row length of a reduce a group can compute: one
 * static, non-quantized input reduced over its trailing dims with a
 * recognised combiner the reduce kernels serve, result of the input's
 * element type, rows of at most kMaxReduceRow elements. */
bool hlx_lower_fusion_reduce_params(const hlx_op_t* op, hlx_reduce_op_t* rop,
                                    size_t* row) {
  if (op->code != HLX_OP_REDUCE || op->num_operands != 2 ||
      op->num_results != 1 || op->num_regions != 1)
    return false;
  const hlx_type_t* t = hlx_static_tensor(op->operands[0]);
  const hlx_type_t* init = hlx_static_tensor(op->operands[1]);
  const hlx_type_t* r = hlx_static_tensor(op->results[0]);
  if (!t || !init || !r || t->quant || init->quant || r->quant ||
      t->rank > HLX_FUSED_MAX_RANK || init->rank != 0 ||
      init->dtype != t->dtype || r->dtype != t->dtype ||
      !hlx_region_is_simple_combiner(op->regions[0], rop))
    return false;
  int64_t dims[HLX_FUSED_MAX_RANK];
  int32_t nd;
  if (!hlx_attr_int_list(hlx_op_attr(op, "dimensions"), dims,
                         HLX_FUSED_MAX_RANK, &nd) ||
      nd < 1)
    return false;
  uint32_t mask = 0;
  for (int32_t i = 0; i < nd; i++) {
    if (dims[i] < t->rank - nd || dims[i] >= t->rank) return false;
    mask |= 1u << dims[i];
  }
  if (mask != ((1u << t->rank) - 1) - ((1u << (t->rank - nd)) - 1))
    return false; /* not the trailing dims, or repeated */
  int64_t n = 1;
  for (int32_t d = t->rank - nd; d < t->rank; d++) n *= t->dims[d];
  unsigned char z[16] = {0}, o[16];
  int64_t one = 1;
  if (n < 1 || n > kMaxReduceRow ||
      !hlx_ref_reduce(*rop, t->dtype, 1, &one, 1, z, z, o))
    return false;
  *row = (size_t)n;
  return true;
}

bool hlx_lower_fusion_reduce_ok(const hlx_op_t* op) {
  hlx_reduce_op_t rop;
  size_t row;
  return hlx_lower_fusion_reduce_params(op, &rop, &row);
}

/* ---- program building ---------------------------------------------------- */

typedef struct builder_t {
  hlx_lower_ctx_t* c;
  const hlx_type_t* shape;
  int32_t num_inputs;
  const hlx_value_t* in_val[kMaxInputs];
  hlx_fused_input_t inputs[kMaxInputs];
} builder_t;

static void row_major(const hlx_type_t* t, int64_t* strides) {
  int64_t s = 1;
  for (int32_t d = t->rank - 1; d >= 0; d--) {
    strides[d] = s;
    s *= t->dims[d];
  }
}

bool hlx_lower_splat_constant(const hlx_value_t* v) {
  if (!v->def || v->def->code != HLX_OP_CONSTANT) return false;
  const hlx_attr_t* a = hlx_op_attr(v->def, "value");
  if (!a || a->kind != HLX_ATTR_DENSE || !a->type || a->type->quant)
    return false;
  size_t es = hlx_dtype_size(a->type->dtype);
  if (!es || a->dense_bytes % es) return false;
  const unsigned char* d = a->dense;
  for (size_t off = es; off < a->dense_bytes; off += es)
    if (memcmp(d, d + off, es)) return false;
  return true;
}

/* The input index of (v, strides), adding it if new; -1 when full. */
static int32_t add_input(builder_t* b, const hlx_value_t* v,
                         const int64_t* strides) {
  int32_t rank = b->shape->rank;
  for (int32_t i = 0; i < b->num_inputs; i++)
    if (b->in_val[i] == v &&
        !memcmp(b->inputs[i].strides, strides, sizeof(int64_t) * (size_t)rank))
      return i;
  if (b->num_inputs == kMaxInputs) return -1;
  int32_t i = b->num_inputs++;
  b->in_val[i] = v;
  memset(&b->inputs[i], 0, sizeof b->inputs[i]);
  b->inputs[i].elem_size = hlx_dtype_size(v->type->dtype);
  memcpy(b->inputs[i].strides, strides, sizeof(int64_t) * (size_t)rank);
  return i;
}

/* An operand defined outside the group, read at the group's shape. */
static int32_t direct_input(builder_t* b, const hlx_value_t* v) {
  int64_t strides[HLX_FUSED_MAX_RANK] = {0};
  if (v->type->rank == b->shape->rank && !hlx_lower_splat_constant(v))
    row_major(v->type, strides);
  return add_input(b, v, strides);
}

/* Maps the dims of broadcast_in_dim op's operand through `map` (op's
 * result dim -> group dim) into out; false if an attribute is malformed. */
static bool compose(const hlx_op_t* op, const int32_t* map, int32_t* out) {
  const hlx_type_t* t = op->operands[0]->type;
  const hlx_type_t* r = op->results[0]->type;
  int64_t bd[HLX_FUSED_MAX_RANK];
  int32_t nbd;
  if (!hlx_attr_int_list(hlx_op_attr(op, "broadcast_dimensions"), bd,
                         HLX_FUSED_MAX_RANK, &nbd) ||
      nbd != t->rank)
    return false;
  for (int32_t i = 0; i < t->rank; i++) {
    if (bd[i] < 0 || bd[i] >= r->rank) return false;
    if (t->dims[i] != r->dims[bd[i]] && t->dims[i] != 1) return false;
    out[i] = map[bd[i]];
  }
  return true;
}

/* The input read by broadcast member `op` (following broadcast members it
 * reads, which fold into the same strides); -1 if not expressible. */
static int32_t broadcast_input(builder_t* b, const hlx_block_t* blk,
                               const int32_t* mem, int32_t nm,
                               const hlx_op_t* op) {
  int32_t map[HLX_FUSED_MAX_RANK], next[HLX_FUSED_MAX_RANK];
  for (int32_t d = 0; d < b->shape->rank; d++) map[d] = d;
  for (;;) {
    if (!compose(op, map, next)) return -1;
    memcpy(map, next, sizeof map);
    const hlx_op_t* def = op->operands[0]->def;
    bool inner = false;
    for (int32_t q = 0; q < nm && !inner; q++)
      inner = blk->ops[mem[q]] == def &&
              hlx_fusion_kind(def->code, NULL) == HLX_FUSION_BROADCAST;
    if (!inner) break;
    op = def;
  }
  const hlx_value_t* v = op->operands[0];
  const hlx_type_t* t = v->type;
  int64_t in_strides[HLX_FUSED_MAX_RANK], strides[HLX_FUSED_MAX_RANK] = {0};
  row_major(t, in_strides);
  if (!hlx_lower_splat_constant(v))
    for (int32_t i = 0; i < t->rank; i++)
      if (t->dims[i] != 1) strides[map[i]] += in_strides[i];
  return add_input(b, v, strides);
}

static bool parse_compare(const hlx_op_t* op, hlx_dtype_t t,
                          hlx_fused_step_t* s) {
  /* Directions in hlx_compare_dir_t order, 3 characters apart. */
  static const char kDirs[] = "EQ NE GE GT LE LT";
  const hlx_attr_t* d = hlx_op_attr(op, "comparison_direction");
  const char* hit = d && d->kind == HLX_ATTR_ENUM && strlen(d->enum_value) == 2
                        ? strstr(kDirs, d->enum_value)
                        : NULL;
  int dir = hit ? (int)(hit - kDirs) / 3 : -1;
  /* The default comparison, or an explicit compare_type that names it
   * (FLOAT for floats, SIGNED / UNSIGNED for ints, as JAX writes them);
   * others (and their checks) stay with lower_compare. */
  const hlx_attr_t* ct = hlx_op_attr(op, "compare_type");
  if (dir < 0) return false;
  if (ct) {
    const char* want = hlx_dtype_is_signed_int(t)     ? "SIGNED"
                       : hlx_dtype_is_unsigned_int(t) ? "UNSIGNED"
                       : hlx_dtype_is_float(t)        ? "FLOAT"
                                                      : NULL;
    if (ct->kind != HLX_ATTR_ENUM || !want || strcmp(ct->enum_value, want))
      return false;
  }
  unsigned char x[16] = {0}, y[16] = {0};
  uint8_t r;
  if (!hlx_ref_compare((hlx_compare_dir_t)dir, HLX_CMP_DEFAULT, t, x, y, &r, 1))
    return false;
  s->compare = hlx_compare;
  s->dir = (hlx_compare_dir_t)dir;
  s->cmp_type = HLX_CMP_DEFAULT;
  return true;
}

/* Fills the kernel of step s for member op; false if not expressible. */
static bool step_kernel(const hlx_op_t* op, hlx_fusion_kind_t k, int32_t id,
                        hlx_fused_step_t* s) {
  hlx_dtype_t rt = op->results[0]->type->dtype, out_t;
  hlx_dtype_t t0 = op->operands[0]->type->dtype;
  s->out_dtype = rt;
  s->in_dtype = t0;
  unsigned char z[16] = {0}, o[16];
  switch (k) {
    case HLX_FUSION_UNARY:
      s->kind = HLX_FUSED_UNARY;
      s->unary = hlx_unary_kernel((hlx_unary_op_t)id, t0, &out_t);
      return s->unary && out_t == rt;
    case HLX_FUSION_BINARY:
      s->kind = HLX_FUSED_BINARY;
      s->binary = hlx_binary_kernel((hlx_binary_op_t)id, t0, &out_t);
      return op->operands[1]->type->dtype == t0 && s->binary && out_t == rt;
    case HLX_FUSION_COMPARE:
      s->kind = HLX_FUSED_COMPARE;
      return rt == HLX_DTYPE_PRED && op->operands[1]->type->dtype == t0 &&
             parse_compare(op, t0, s);
    case HLX_FUSION_SELECT:
      s->kind = HLX_FUSED_SELECT;
      s->select = hlx_select;
      s->in_dtype = rt;
      return t0 == HLX_DTYPE_PRED && op->operands[1]->type->dtype == rt &&
             op->operands[2]->type->dtype == rt;
    case HLX_FUSION_CLAMP:
      s->kind = HLX_FUSED_CLAMP;
      s->in_dtype = rt;
      return t0 == rt && op->operands[1]->type->dtype == rt &&
             op->operands[2]->type->dtype == rt &&
             hlx_ref_clamp(rt, z, true, z, z, true, o, 1);
    case HLX_FUSION_CONVERT:
      s->kind = HLX_FUSED_CONVERT;
      s->convert = hlx_ref_convert;
      return hlx_ref_convert(t0, z, rt, o, 1);
    default:
      return false;
  }
}

bool hlx_lower_fused_step_of(const hlx_op_t* op, hlx_fused_step_t* s) {
  int32_t id = 0;
  hlx_fusion_kind_t k = hlx_fusion_kind(op->code, &id);
  memset(s, 0, sizeof *s);
  s->num_operands = op->num_operands;
  return k != HLX_FUSION_BROADCAST && step_kernel(op, k, id, s);
}

/* Whether the task meets HLX_TASK_ELEMENTWISE (scheduler/plan.h), so
 * buffer assignment may write the output over a dying input of its size:
 * every input of the output's byte size is read at the output's own flat
 * index (tile i of an input is consumed before tile i of the output is
 * written; later tiles are not read early). A transposing broadcast of a
 * same-size input breaks that, and so does an absorbed reduction, whose
 * small output could land on a broadcast input still read by later tiles.
 * Constants are never written over, so they do not count. */
static bool in_place_safe(const builder_t* b, bool reduces) {
  if (reduces) return false;
  size_t out_bytes = hlx_tensor_bytes(b->shape);
  int64_t rm[HLX_FUSED_MAX_RANK];
  row_major(b->shape, rm);
  for (int32_t i = 0; i < b->num_inputs; i++) {
    const hlx_value_t* v = b->in_val[i];
    if ((v->def && v->def->code == HLX_OP_CONSTANT) ||
        hlx_tensor_bytes(v->type) != out_bytes)
      continue;
    if (hlx_type_num_elements(v->type) != hlx_type_num_elements(b->shape))
      return false;
    for (int32_t d = 0; d < b->shape->rank; d++)
      if (b->shape->dims[d] > 1 && b->inputs[i].strides[d] != rm[d])
        return false;
  }
  return true;
}

/* "fused(multiply,add,exponential) at 12:5": members by kind. */
static void group_name(const hlx_block_t* blk, const hlx_fusion_t* f,
                       int32_t g, char* buf, size_t len) {
  size_t k = (size_t)snprintf(buf, len, "fused(");
  for (int32_t m = f->start[g]; m < f->start[g + 1] && k < len; m++) {
    const char* nm = blk->ops[f->member[m]]->name;
    const char* dot = strrchr(nm, '.');
    k += (size_t)snprintf(buf + k, len - k, "%s%s",
                          m > f->start[g] ? "," : "", dot ? dot + 1 : nm);
  }
  const hlx_op_t* root = blk->ops[f->root[g]];
  if (k < len) {
    if (root->line > 0)
      snprintf(buf + k, len - k, ") at %d:%d", root->line, root->col);
    else
      snprintf(buf + k, len - k, ")");
  }
}

hlx_status_t hlx_lower_fused_group(hlx_lower_ctx_t* c, const hlx_block_t* blk,
                                   const struct hlx_fusion_t* f, int32_t g,
                                   bool* done) {
  *done = false;
  if (f->head[g] >= 0) {
    HLX_RETURN_IF_ERROR(hlx_lower_row_group(c, blk, f, g, done));
    if (*done) return NULL;
    const hlx_op_t* h = blk->ops[f->head[g]];
    const hlx_op_t* r = blk->ops[f->root[g]];
    if (h->code == HLX_OP_DOT_GENERAL && r->code == HLX_OP_TRANSPOSE)
      return hlx_lower_dot_transposed(c, h, r, done);
    return hlx_lower_epilogue_group(c, blk, f, g, done);
  }
  const int32_t* mem = f->member + f->start[g];
  int32_t nm = f->start[g + 1] - f->start[g];
  /* An absorbed reduce is the last member; the elementwise root precedes. */
  const hlx_op_t* red = f->reduce[g] >= 0 ? blk->ops[f->reduce[g]] : NULL;
  if (red) nm--;
  const hlx_op_t* root = blk->ops[mem[nm - 1]];
  builder_t b = {.c = c, .shape = root->results[0]->type};
  if (b.shape->rank > HLX_FUSED_MAX_RANK || nm > HLX_FUSION_MAX_MEMBERS)
    return NULL;
  /* Per member: the input index (broadcast) or step index it defines. */
  int32_t last_use[HLX_FUSION_MAX_MEMBERS];
  hlx_fused_step_t steps[HLX_FUSION_MAX_MEMBERS];
  int32_t step_of[HLX_FUSION_MAX_MEMBERS], ns = 0;
  for (int32_t m = 0; m < nm; m++) last_use[m] = -1;
  for (int32_t m = 0; m < nm; m++) {
    const hlx_op_t* op = blk->ops[mem[m]];
    int32_t id = 0;
    hlx_fusion_kind_t k = hlx_fusion_kind(op->code, &id);
    if (k == HLX_FUSION_BROADCAST) continue; /* read where used */
    hlx_fused_step_t* s = &steps[ns];
    memset(s, 0, sizeof *s);
    if (!step_kernel(op, k, id, s)) return NULL;
    s->num_operands = op->num_operands;
    for (int32_t i = 0; i < op->num_operands; i++) {
      const hlx_value_t* v = op->operands[i];
      int32_t src = -1;
      for (int32_t q = 0; q < m && src < 0; q++)
        if (blk->ops[mem[q]]->results[0] == v) src = q;
      if (src < 0) {
        int32_t in = direct_input(&b, v);
        if (in < 0) return NULL;
        s->operands[i] = (hlx_fused_ref_t){true, in};
      } else if (hlx_fusion_kind(blk->ops[mem[src]]->code, NULL) ==
                 HLX_FUSION_BROADCAST) {
        int32_t in = broadcast_input(&b, blk, mem, nm, blk->ops[mem[src]]);
        if (in < 0) return NULL;
        s->operands[i] = (hlx_fused_ref_t){true, in};
      } else {
        s->operands[i] = (hlx_fused_ref_t){false, src}; /* member, fixed below */
        last_use[src] = ns;
      }
    }
    step_of[m] = ns++;
  }
  /* Registers: a step's result takes a free register; registers of
   * operands whose last reader is this step are freed after it (never
   * before: kernels need not support in-place calls across dtypes). */
  int32_t reg_of_member[HLX_FUSION_MAX_MEMBERS], free_regs[HLX_FUSION_MAX_MEMBERS];
  int32_t nfree = 0, nregs = 0;
  size_t reg_es = 1;
  int32_t member_of_step[HLX_FUSION_MAX_MEMBERS];
  for (int32_t m = 0; m < nm; m++)
    if (hlx_fusion_kind(blk->ops[mem[m]]->code, NULL) != HLX_FUSION_BROADCAST)
      member_of_step[step_of[m]] = m;
  bool freed[HLX_FUSION_MAX_MEMBERS] = {false};
  for (int32_t k = 0; k < ns; k++) {
    hlx_fused_step_t* s = &steps[k];
    int32_t src[HLX_FUSED_MAX_OPERANDS];
    for (int32_t i = 0; i < s->num_operands; i++) {
      src[i] = s->operands[i].is_input ? -1 : s->operands[i].index;
      if (src[i] >= 0) s->operands[i].index = reg_of_member[src[i]];
    }
    if (k < ns - 1) {
      s->dst = nfree ? free_regs[--nfree] : nregs++;
      reg_of_member[member_of_step[k]] = s->dst;
      size_t es = hlx_dtype_size(s->out_dtype);
      if (es > reg_es) reg_es = es;
    }
    for (int32_t i = 0; i < s->num_operands; i++)
      if (src[i] >= 0 && last_use[src[i]] == k && !freed[src[i]]) {
        freed[src[i]] = true;
        free_regs[nfree++] = reg_of_member[src[i]];
      }
  }
  fused_args_t* a = hlx_lower_alloc(c, sizeof(*a));
  hlx_fused_input_t* ins =
      hlx_lower_alloc(c, sizeof(hlx_fused_input_t) * ((size_t)b.num_inputs + 1));
  hlx_fused_step_t* st =
      hlx_lower_alloc(c, sizeof(hlx_fused_step_t) * (size_t)ns);
  if (!a || !ins || !st) return hlx_status_oom();
  memcpy(ins, b.inputs, sizeof(hlx_fused_input_t) * (size_t)b.num_inputs);
  memcpy(st, steps, sizeof(hlx_fused_step_t) * (size_t)ns);
  memset(a, 0, sizeof *a);
  a->prog.rank = b.shape->rank;
  for (int32_t d = 0; d < b.shape->rank; d++) a->prog.dims[d] = b.shape->dims[d];
  a->prog.num_inputs = b.num_inputs;
  a->prog.inputs = ins;
  a->prog.num_steps = ns;
  a->prog.steps = st;
  a->prog.num_regs = nregs;
  a->prog.reg_elem_size = reg_es;
  a->n = (size_t)hlx_type_num_elements(b.shape);
  a->prog.tile = HLX_FUSED_TILE;
  a->prog.write_values = f->keeps_value[g];
  if (red) {
    hlx_fused_reduce_t* r = &a->prog.reduce;
    int64_t zero[HLX_FUSED_MAX_RANK] = {0};
    if (!hlx_lower_fusion_reduce_params(red, &r->op, &r->row)) return NULL;
    r->fn = hlx_reduce;
    r->init_input = add_input(&b, red->operands[1], zero);
    if (r->init_input < 0) return NULL;
    a->prog.inputs = ins = hlx_lower_alloc(
        c, sizeof(hlx_fused_input_t) * ((size_t)b.num_inputs + 1));
    if (!ins) return hlx_status_oom();
    memcpy(ins, b.inputs, sizeof(hlx_fused_input_t) * (size_t)b.num_inputs);
    a->prog.num_inputs = b.num_inputs;
    a->prog.tile = r->row <= HLX_FUSED_TILE
                       ? r->row * (HLX_FUSED_TILE / r->row)
                       : r->row;
  }

  int32_t in_slots[kMaxInputs], out_slots[2], nout = 0;
  for (int32_t i = 0; i < b.num_inputs; i++) {
    hlx_value_slots_t vs;
    HLX_RETURN_IF_ERROR(hlx_lower_slots_of(c, b.in_val[i], &vs));
    if (vs.n != 1) return NULL;
    in_slots[i] = vs.slots[0];
  }
  if (a->prog.write_values)
    HLX_RETURN_IF_ERROR(hlx_lower_out(c, root, 0, &out_slots[nout++]));
  if (red) HLX_RETURN_IF_ERROR(hlx_lower_out(c, red, 0, &out_slots[nout++]));
  *done = true;
  bool folded;
  HLX_RETURN_IF_ERROR(hlx_lower_try_fold(c, root, run_fused, a, b.num_inputs,
                                         in_slots, nout, out_slots, &folded));
  if (folded) return NULL;
  char name[512];
  group_name(blk, f, g, name, sizeof name);
  if (!hlx_plan_add_task(c->plan, name, run_fused, a, b.num_inputs, in_slots,
                         nout, out_slots))
    return hlx_status_oom();
  if (in_place_safe(&b, red != NULL))
    hlx_plan_last_task_set_flags(c->plan, HLX_TASK_ELEMENTWISE);
  return NULL;
}
