/* Lowering of values that need no kernel (constants, renames, tuples) and
 * of calls between functions. */
#include <math.h>
#include <string.h>

#include "base/float_formats.h"
#include "graph/lower/ctx.h"

/* ---- constant ------------------------------------------------------------ */

/* Deterministic stand-ins for elided weights (splitmix64 stream), scaled
 * so a network still computes finite numbers: tensors of rank >= 2 are
 * weights and get He-uniform values, +-sqrt(6 / fan_in) with fan_in the
 * element count over the last dim (HWIO / [in, out] layouts); vectors and
 * scalars (biases, batch-norm scales, means and variances) get values in
 * [0.5, 1.5), positive so variances stay valid. Integers get [0, 4). */
static void fill_pseudo_random(const hlx_type_t* t, void* data, size_t n,
                               uint64_t seed) {
  hlx_dtype_t dt = t->dtype;
  size_t es = hlx_dtype_size(dt);
  double lo = 0.5, width = 1.0;
  if (t->rank >= 2 && t->dims[t->rank - 1] > 0) {
    double fan_in = (double)n / (double)t->dims[t->rank - 1];
    double bound = fan_in > 0 ? sqrt(6.0 / fan_in) : 1.0;
    lo = -bound;
    width = 2 * bound;
  }
  unsigned char* p = data;
  for (size_t i = 0; i < n; i++) {
    uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    double u = lo + (double)(z >> 11) / 9007199254740992.0 * width;
    hlx_dtype_t part = hlx_dtype_complex_part(dt);
    if (part == HLX_DTYPE_F32) {
      float f = (float)u;
      memcpy(p + i * es, &f, 4);
      if (es == 8) memcpy(p + i * es + 4, &f, 4);
    } else if (part == HLX_DTYPE_F64) {
      memcpy(p + i * es, &u, 8);
      if (es == 16) memcpy(p + i * es + 8, &u, 8);
    } else if (hlx_dtype_is_float(dt)) {
      uint32_t b = hlx_f64_to_small_float(dt, u);
      memcpy(p + i * es, &b, es); /* little-endian low bytes */
    } else {
      uint64_t v = (z >> 60) & 3; /* 0..3 */
      if (dt == HLX_DTYPE_PRED) v &= 1;
      memcpy(p + i * es, &v, es);
    }
  }
}

static hlx_status_t lower_constant(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  const hlx_attr_t* v = hlx_op_attr(op, "value");
  if (!v || (v->kind != HLX_ATTR_DENSE && v->kind != HLX_ATTR_ELIDED))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "attribute 'value' must be a dense elements literal");
  int32_t slot;
  HLX_RETURN_IF_ERROR(hlx_lower_out(c, op, 0, &slot));
  size_t bytes = c->plan->slot_bytes[slot];
  if (v->kind == HLX_ATTR_ELIDED) {
    if (!c->lm->options.fill_elided)
      return hlx_op_error(
          op, HLX_STATUS_FAILED_PRECONDITION,
          "constant %%%s has no data (dense_resource<%s>, exported with its "
          "weights elided); run with --fill-elided to use random values",
          op->results[0]->name ? op->results[0]->name : "?",
          v->str ? v->str : "__elided__");
    void* data = hlx_lower_alloc(c, bytes);
    if (!data) return hlx_status_oom();
    const hlx_type_t* t = op->results[0]->type;
    /* Seeded by the constant's value id and line, not its buffer slot:
     * every build of a program (any ISA cap, fused or not) fills it with
     * the same data, so builds can be compared. */
    fill_pseudo_random(t, data, bytes / hlx_dtype_size(t->dtype),
                       (uint64_t)op->results[0]->id * 7919u +
                           (uint64_t)op->line);
    c->plan->slot_data[slot] = data;
    return NULL;
  }
  /* (C1) type(value) = type(output); quantized outputs hold their storage
   * values. */
  const hlx_type_t* vt = v->type;
  const hlx_type_t* rt = op->results[0]->type;
  if (vt && vt->kind == HLX_TYPE_TENSOR && rt->kind == HLX_TYPE_TENSOR &&
      (vt->dtype != rt->dtype || vt->rank != rt->rank ||
       (vt->rank && memcmp(vt->dims, rt->dims,
                           sizeof(int64_t) * (size_t)vt->rank) != 0)))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C1) the value's type differs from the result's");
  if (v->dense_bytes != bytes)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C1) literal has %zu bytes, result type needs %zu",
                        v->dense_bytes, bytes);
  /* The module outlives its plans: use the literal in place. */
  c->plan->slot_data[slot] = v->dense;
  return NULL;
}

/* ---- renames: reshape, bitcast of whole bytes, barriers, tuples ---------- */

static hlx_status_t alias_operand(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                  int operand, int result) {
  hlx_value_slots_t s;
  HLX_RETURN_IF_ERROR(hlx_lower_slots_of(c, op->operands[operand], &s));
  return hlx_lower_alias(c, op->results[result], &s);
}

static hlx_status_t lower_reshape(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  const hlx_type_t* in = hlx_static_tensor(op->operands[0]);
  const hlx_type_t* out = hlx_static_tensor(op->results[0]);
  if (!in || !out)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: dynamic shapes are not executed "
                        "(hlx_program_specialize makes them static)");
  if (in->dtype != out->dtype)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C1) operand has element type %s, result %s",
                        hlx_dtype_name(in->dtype), hlx_dtype_name(out->dtype));
  if (hlx_type_num_elements(in) != hlx_type_num_elements(out))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C2) operand has %lld elements, result %lld",
                        (long long)hlx_type_num_elements(in),
                        (long long)hlx_type_num_elements(out));
  /* (C3) per-axis quantization: the quantized axis keeps its size and the
   * element counts before it. */
  if (in->quant && in->quant->quantized_dimension >= 0) {
    int32_t qi = in->quant->quantized_dimension;
    int32_t qo = out->quant ? out->quant->quantized_dimension : -1;
    int64_t before_in = 1, before_out = 1;
    for (int32_t d = 0; d < qi && d < in->rank; d++) before_in *= in->dims[d];
    for (int32_t d = 0; d < qo && d < out->rank; d++)
      before_out *= out->dims[d];
    if (qo < 0 || qo >= out->rank || qi >= in->rank ||
        in->dims[qi] != out->dims[qo] || before_in != before_out)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C3) the quantized dimension must keep its size "
                          "and the element count before it");
  }
  return alias_operand(c, op, 0, 0);
}

/* dynamic_reshape with a static result is reshape; (C4) one output_shape
 * entry per result dim. */
static hlx_status_t lower_dynamic_reshape(hlx_lower_ctx_t* c,
                                          const hlx_op_t* op) {
  const hlx_type_t* shape = op->num_operands == 2 ? op->operands[1]->type : NULL;
  const hlx_type_t* out = op->results[0]->type;
  if (shape && shape->kind == HLX_TYPE_TENSOR && shape->rank == 1 &&
      out->kind == HLX_TYPE_TENSOR && shape->dims[0] != out->rank)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C4) output_shape has %lld entries, result rank is "
                        "%d",
                        (long long)shape->dims[0], out->rank);
  return lower_reshape(c, op);
}

/* Bit-level repacking for bitcasts that involve sub-byte element types:
 * the operand's elements are a little-endian bit stream (element i holds
 * bits [i*ib, (i+1)*ib)), cut into result elements of ob bits. Signed
 * sub-byte results are sign-extended into their byte. */
typedef struct bitcast_args_t {
  int in_bits, out_bits, out_size;
  bool out_signed;
  size_t in_count, in_size, out_count;
} bitcast_args_t;

static hlx_status_t run_bitcast_bits(const void* args, void* const* in,
                                     void* const* out, hlx_run_ctx_t* ctx) {
  (void)ctx;
  const bitcast_args_t* a = args;
  const unsigned char* src = in[0];
  unsigned char* dst = out[0];
  memset(dst, 0, a->out_count * (size_t)a->out_size);
  for (size_t o = 0; o < a->out_count; o++) {
    uint64_t v = 0;
    for (int b = 0; b < a->out_bits; b++) {
      size_t bit = o * (size_t)a->out_bits + (size_t)b;
      size_t e = bit / (size_t)a->in_bits, eb = bit % (size_t)a->in_bits;
      uint64_t word = 0;
      memcpy(&word, src + e * a->in_size, a->in_size);
      v |= ((word >> eb) & 1u) << b;
    }
    if (a->out_signed && a->out_bits < 8 && (v >> (a->out_bits - 1)) & 1)
      v |= ~(uint64_t)0 << a->out_bits;
    memcpy(dst + o * (size_t)a->out_size, &v, (size_t)a->out_size);
  }
  return NULL;
}

static hlx_status_t lower_bitcast_convert(hlx_lower_ctx_t* c,
                                          const hlx_op_t* op) {
  const hlx_type_t* in = hlx_static_tensor(op->operands[0]);
  const hlx_type_t* out = hlx_static_tensor(op->results[0]);
  if (!in || !out)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: dynamic shapes are not executed "
                        "(hlx_program_specialize makes them static)");
  int ib = hlx_dtype_bits(in->dtype), ob = hlx_dtype_bits(out->dtype);
  int64_t nin = hlx_type_num_elements(in), nout = hlx_type_num_elements(out);
  if (hlx_dtype_is_complex(in->dtype) != hlx_dtype_is_complex(out->dtype))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C2) %s and %s: a complex type converts only to "
                        "another complex type",
                        hlx_dtype_name(in->dtype), hlx_dtype_name(out->dtype));
  if (nin * ib != nout * ob)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C1) operand has %lld bits, result %lld",
                        (long long)(nin * ib), (long long)(nout * ob));
  if (ib % 8 == 0 && ob % 8 == 0)
    /* Same little-endian byte stream in row-major order: a rename. */
    return alias_operand(c, op, 0, 0);
  bitcast_args_t* a = hlx_lower_alloc(c, sizeof(*a));
  if (!a) return hlx_status_oom();
  *a = (bitcast_args_t){ib, ob, (int)hlx_dtype_size(out->dtype),
                        hlx_dtype_is_signed_int(out->dtype), (size_t)nin,
                        hlx_dtype_size(in->dtype), (size_t)nout};
  int32_t s_in, s_out;
  HLX_RETURN_IF_ERROR(hlx_lower_in(c, op, 0, &s_in));
  HLX_RETURN_IF_ERROR(hlx_lower_out(c, op, 0, &s_out));
  return hlx_lower_emit(c, op, run_bitcast_bits, a, 1, &s_in, 1, &s_out);
}

static hlx_status_t lower_pass_through(hlx_lower_ctx_t* c,
                                       const hlx_op_t* op) {
  if (op->num_operands != op->num_results)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "has %d operands but %d results", op->num_operands,
                        op->num_results);
  for (int32_t i = 0; i < op->num_operands; i++)
    HLX_RETURN_IF_ERROR(alias_operand(c, op, i, i));
  return NULL;
}

static hlx_status_t lower_tuple(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  const hlx_type_t* t = op->results[0]->type;
  if (t->kind != HLX_TYPE_TUPLE || t->num_elems != op->num_operands)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C1) result must be a tuple of %d elements",
                        op->num_operands);
  for (int32_t i = 0; i < op->num_operands; i++)
    if (!hlx_type_equal(t->elems[i], op->operands[i]->type))
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C1) result element #%d's type differs from "
                          "operand #%d's",
                          i, i);
  int32_t n = 0;
  for (int32_t i = 0; i < op->num_operands; i++) {
    hlx_value_slots_t s;
    HLX_RETURN_IF_ERROR(hlx_lower_slots_of(c, op->operands[i], &s));
    n += s.n;
  }
  int32_t* slots = hlx_lower_alloc(c, ((size_t)n + 1) * 4);
  if (!slots) return hlx_status_oom();
  int32_t k = 0;
  for (int32_t i = 0; i < op->num_operands; i++) {
    hlx_value_slots_t s;
    HLX_RETURN_IF_ERROR(hlx_lower_slots_of(c, op->operands[i], &s));
    for (int32_t j = 0; j < s.n; j++) slots[k++] = s.slots[j];
  }
  hlx_value_slots_t all = {n, slots};
  return hlx_lower_alias(c, op->results[0], &all);
}

static int32_t leaves(const hlx_type_t* t) {
  if (t->kind != HLX_TYPE_TUPLE) return 1;
  int32_t n = 0;
  for (int32_t i = 0; i < t->num_elems; i++) n += leaves(t->elems[i]);
  return n;
}

static hlx_status_t lower_get_tuple_element(hlx_lower_ctx_t* c,
                                            const hlx_op_t* op) {
  const hlx_type_t* t = op->operands[0]->type;
  int64_t index;
  HLX_RETURN_IF_ERROR(hlx_attr_int(op, "index", true, 0, &index));
  if (t->kind != HLX_TYPE_TUPLE || index < 0 || index >= t->num_elems)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C1) index %lld is out of range for the operand",
                        (long long)index);
  if (!hlx_type_equal(t->elems[index], op->results[0]->type))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C2) result type differs from tuple element #%lld",
                        (long long)index);
  hlx_value_slots_t s;
  HLX_RETURN_IF_ERROR(hlx_lower_slots_of(c, op->operands[0], &s));
  int32_t first = 0;
  for (int64_t i = 0; i < index; i++) first += leaves(t->elems[i]);
  hlx_value_slots_t part = {leaves(t->elems[index]), s.slots + first};
  return hlx_lower_alias(c, op->results[0], &part);
}

static hlx_status_t lower_token(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  /* after_all and friends: tokens carry no data, ordering is program order. */
  for (int32_t i = 0; i < op->num_results; i++)
    HLX_RETURN_IF_ERROR(hlx_lower_define(c, op->results[i], NULL));
  return NULL;
}

/* ---- call ---------------------------------------------------------------- */

typedef struct call_args_t {
  const hlx_lowered_module_t* lm;
  int32_t callee;
} call_args_t;

static hlx_status_t run_call(const void* args, void* const* in,
                             void* const* out, hlx_run_ctx_t* ctx) {
  const call_args_t* a = args;
  return hlx_plan_execute(a->lm->plans[a->callee], (const void* const*)in,
                          out, ctx);
}

/* Flattened slots of all operands (or results when `results`). */
static hlx_status_t flatten(hlx_lower_ctx_t* c, const hlx_op_t* op,
                            bool results, int32_t** out, int32_t* n) {
  int32_t count = results ? op->num_results : op->num_operands;
  int32_t total = 0;
  for (int32_t i = 0; i < count; i++)
    total += leaves((results ? op->results[i] : op->operands[i])->type);
  int32_t* s = hlx_lower_alloc(c, ((size_t)total + 1) * 4);
  if (!s) return hlx_status_oom();
  int32_t k = 0;
  for (int32_t i = 0; i < count; i++) {
    hlx_value_slots_t vs;
    if (results)
      HLX_RETURN_IF_ERROR(hlx_lower_define(c, op->results[i], &vs));
    else
      HLX_RETURN_IF_ERROR(hlx_lower_slots_of(c, op->operands[i], &vs));
    for (int32_t j = 0; j < vs.n; j++) s[k++] = vs.slots[j];
  }
  *out = s;
  *n = total;
  return NULL;
}

hlx_status_t hlx_lower_flatten(hlx_lower_ctx_t* c, const hlx_op_t* op,
                               bool results, int32_t** out, int32_t* n) {
  return flatten(c, op, results, out, n);
}

/* A call of the function named by the SYMBOL attribute `attr`. */
static hlx_status_t lower_call_of(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                  const char* attr) {
  const hlx_attr_t* callee = hlx_op_attr(op, attr);
  if (!callee || callee->kind != HLX_ATTR_SYMBOL)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "missing attribute '%s'", attr);
  const hlx_module_t* m = c->lm->module;
  int32_t idx = -1;
  for (int32_t i = 0; i < m->num_funcs; i++)
    if (strcmp(m->funcs[i]->name, callee->str) == 0) idx = i;
  if (idx < 0)
    return hlx_op_error(op, HLX_STATUS_NOT_FOUND, "no function named @%s",
                        callee->str);
  const hlx_func_t* f = m->funcs[idx];
  /* func.call's signature rules are the verifier's; composite's are here. */
  if (f->num_args != op->num_operands || f->num_results != op->num_results)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "@%s takes %d arguments and returns %d results, the "
                        "op has %d operands and %d results",
                        f->name, f->num_args, f->num_results,
                        op->num_operands, op->num_results);
  bool inlined;
  HLX_RETURN_IF_ERROR(hlx_lower_inline_call(c, op, f, &inlined));
  if (inlined) return NULL;
  call_args_t* a = hlx_lower_alloc(c, sizeof(*a));
  if (!a) return hlx_status_oom();
  a->lm = c->lm;
  a->callee = idx;
  int32_t *in, *out, nin, nout;
  HLX_RETURN_IF_ERROR(flatten(c, op, false, &in, &nin));
  HLX_RETURN_IF_ERROR(flatten(c, op, true, &out, &nout));
  return hlx_lower_emit(c, op, run_call, a, nin, in, nout, out);
}

static hlx_status_t lower_call(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  return lower_call_of(c, op, "callee");
}

/* composite runs its decomposition function. */
static hlx_status_t lower_composite(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  return lower_call_of(c, op, "decomposition");
}

/* get_dimension_size of a static shape is a constant. */
static hlx_status_t lower_get_dimension_size(hlx_lower_ctx_t* c,
                                             const hlx_op_t* op) {
  const hlx_type_t* t = op->operands[0]->type;
  int64_t dim;
  HLX_RETURN_IF_ERROR(hlx_attr_int(op, "dimension", true, 0, &dim));
  if (t->kind != HLX_TYPE_TENSOR || dim < 0 || dim >= t->rank)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C1) dimension %lld is out of range for the "
                        "operand",
                        (long long)dim);
  if (t->dims[dim] < 0)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: dynamic shapes are not executed "
                        "(hlx_program_specialize makes them static)");
  const hlx_type_t* r = op->results[0]->type;
  if (r->kind != HLX_TYPE_TENSOR || r->rank != 0 || r->dtype != HLX_DTYPE_S32)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "result must be tensor<i32>");
  int32_t slot;
  HLX_RETURN_IF_ERROR(hlx_lower_out(c, op, 0, &slot));
  int32_t* v = hlx_lower_alloc(c, sizeof(int32_t));
  if (!v) return hlx_status_oom();
  *v = (int32_t)t->dims[dim];
  c->plan->slot_data[slot] = v;
  return NULL;
}

/* set_dimension_size (XLA): with a static result of the operand's shape
 * the data is unchanged (elements past the size are padding whose values
 * are unspecified), so the result renames the operand. Dynamic results
 * are not executed. */
static hlx_status_t lower_set_dimension_size(hlx_lower_ctx_t* c,
                                             const hlx_op_t* op) {
  if (op->num_operands != 2 || op->num_results != 1)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "takes an operand and a size");
  const hlx_type_t* in = hlx_static_tensor(op->operands[0]);
  const hlx_type_t* out = hlx_static_tensor(op->results[0]);
  const hlx_type_t* size = op->operands[1]->type;
  int64_t dim;
  HLX_RETURN_IF_ERROR(hlx_attr_int(op, "dimension", true, 0, &dim));
  if (size->kind != HLX_TYPE_TENSOR || size->rank != 0 ||
      size->dtype != HLX_DTYPE_S32)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "size must be a tensor<i32> scalar");
  if (!in || !out)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: dynamic shapes are not executed "
                        "(hlx_program_specialize makes them static)");
  if (dim < 0 || dim >= in->rank || !hlx_type_equal(in, out))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "dimension %lld must be in range and the result "
                        "type the operand's",
                        (long long)dim);
  return alias_operand(c, op, 0, 0);
}

const hlx_lowering_t hlx_lowerings_core[] = {
    {HLX_OP_SET_DIMENSION_SIZE, lower_set_dimension_size},
    {HLX_OP_CONSTANT, lower_constant},
    {HLX_OP_RESHAPE, lower_reshape},
    {HLX_OP_BITCAST_CONVERT, lower_bitcast_convert},
    {HLX_OP_OPTIMIZATION_BARRIER, lower_pass_through},
    {HLX_OP_TUPLE, lower_tuple},
    {HLX_OP_GET_TUPLE_ELEMENT, lower_get_tuple_element},
    {HLX_OP_AFTER_ALL, lower_token},
    {HLX_OP_FUNC_CALL, lower_call},
    {HLX_OP_COMPOSITE, lower_composite},
    {HLX_OP_GET_DIMENSION_SIZE, lower_get_dimension_size},
    {HLX_OP_DYNAMIC_RESHAPE, lower_dynamic_reshape},
    {HLX_OP_UNKNOWN, NULL},
};
