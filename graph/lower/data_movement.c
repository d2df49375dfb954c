/* Lowering of layout ops (broadcast_in_dim, transpose, slice, reverse, pad,
 * concatenate, iota, dynamic_slice, dynamic_update_slice) onto strided
 * copies (kernels/data_movement.h). Offsets and strides are computed here
 * once; dynamic offsets are clamped at run time as the spec says. */
#include <string.h>

#include "graph/lower/ctx.h"
#include "kernels/data_movement.h"
#include "kernels/dispatch.h"
#include "kernels/elementwise.h"

/* One strided copy of `dims` elements; offsets and strides in elements. */
typedef struct copy_t {
  int32_t rank;
  int64_t dims[HLX_MAX_RANK];
  int64_t in_offset, out_offset;
  int64_t in_strides[HLX_MAX_RANK], out_strides[HLX_MAX_RANK];
  int32_t input; /* which task input to read */
} copy_t;

typedef struct copies_args_t {
  size_t elem_size;
  int32_t fill_from; /* >= 0: first fill the output with this scalar input */
  size_t out_n;
  int32_t num_copies;
  copy_t copies[];
} copies_args_t;

static void do_copy(size_t es, const copy_t* k, const void* in, void* out,
                    const hlx_parallel_t* par) {
  /* Dispatched: transposed slices use the tiled ISA kernels, large ones on
   * the pool's threads. */
  hlx_copy_strided_par(es, k->rank, k->dims,
                       (const char*)in + k->in_offset * (int64_t)es,
                       k->in_strides, (char*)out + k->out_offset * (int64_t)es,
                       k->out_strides, par);
}

static hlx_status_t run_copies(const void* args, void* const* in,
                               void* const* out, hlx_run_ctx_t* ctx) {
  const copies_args_t* a = args;
  if (a->fill_from >= 0)
    hlx_ref_fill(a->elem_size, in[a->fill_from], out[0], a->out_n);
  for (int32_t i = 0; i < a->num_copies; i++)
    do_copy(a->elem_size, &a->copies[i], in[a->copies[i].input], out[0],
            ctx->parallel);
  return NULL;
}

static copies_args_t* new_copies(hlx_lower_ctx_t* c, int32_t n,
                                 const hlx_type_t* out) {
  copies_args_t* a =
      hlx_lower_alloc(c, sizeof(copies_args_t) + (size_t)n * sizeof(copy_t));
  if (!a) return NULL;
  a->elem_size = hlx_dtype_size(out->dtype);
  a->fill_from = -1;
  a->out_n = (size_t)hlx_type_num_elements(out);
  a->num_copies = n;
  return a;
}

/* Copy of the whole output (row-major) reading the input with strides. */
static void whole_output(copy_t* k, const hlx_type_t* out) {
  k->rank = out->rank;
  /* dims may be NULL at rank 0 */
  if (out->rank)
    memcpy(k->dims, out->dims, sizeof(int64_t) * (size_t)out->rank);
  hlx_row_major_strides(out->rank, out->dims, k->out_strides);
}

static hlx_status_t static_types(const hlx_op_t* op) {
  for (int32_t i = 0; i < op->num_operands; i++)
    if (op->operands[i]->type->rank > HLX_MAX_RANK)
      return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                          "unsupported: rank above %d", HLX_MAX_RANK);
  for (int32_t i = 0; i < op->num_operands; i++)
    if (!hlx_static_tensor(op->operands[i]))
      return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                          "unsupported: operand #%d is not a static tensor", i);
  for (int32_t i = 0; i < op->num_results; i++)
    if (!hlx_static_tensor(op->results[i]))
      return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                          "unsupported: dynamic shapes are not executed");
  if (op->num_results != 1)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT, "has %d results",
                        op->num_results);
  return NULL;
}

static hlx_status_t emit_copies(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                copies_args_t* a, int32_t num_in) {
  int32_t in[64], out;
  if (num_in > 64)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: more than 64 operands");
  for (int32_t i = 0; i < num_in; i++)
    HLX_RETURN_IF_ERROR(hlx_lower_in(c, op, i, &in[i]));
  HLX_RETURN_IF_ERROR(hlx_lower_out(c, op, 0, &out));
  return hlx_lower_emit(c, op, run_copies, a, num_in, in, 1, &out);
}

static bool same_dims(const hlx_type_t* a, const hlx_type_t* b) {
  if (a->rank != b->rank) return false;
  for (int32_t d = 0; d < a->rank; d++)
    if (a->dims[d] != b->dims[d]) return false;
  return true;
}

/* Quantization dimension of a per-axis quantized type, else -1. */
static int32_t qdim(const hlx_type_t* t) {
  return t->quant ? t->quant->quantized_dimension : -1;
}

/* `rule` is the spec constraint that asks for equal element types. */
static hlx_status_t same_dtype(const hlx_op_t* op, int operand,
                               const char* rule) {
  if (op->operands[operand]->type->dtype != op->results[0]->type->dtype)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(%s) operand #%d has element type %s, result %s",
                        rule, operand,
                        hlx_dtype_name(op->operands[operand]->type->dtype),
                        hlx_dtype_name(op->results[0]->type->dtype));
  return NULL;
}

/* ---- broadcast_in_dim ---------------------------------------------------- */

/* Fills the copy that broadcasts `in` into `out` along `bd` (checked). */
static hlx_status_t broadcast_copy(const hlx_op_t* op, const hlx_type_t* in,
                                   const hlx_type_t* out, const int64_t* bd,
                                   int32_t nbd, copy_t* k) {
  if (nbd != in->rank)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C2) broadcast_dimensions has %d entries, operand "
                        "rank is "
                        "%d",
                        nbd, in->rank);
  whole_output(k, out);
  int64_t in_strides[HLX_MAX_RANK];
  hlx_row_major_strides(in->rank, in->dims, in_strides);
  for (int32_t i = 0; i < in->rank; i++) {
    int64_t d = bd[i];
    if (d < 0 || d >= out->rank)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C3) broadcast_dimensions[%d] = %lld is out of "
                          "range for "
                          "result rank %d",
                          i, (long long)d, out->rank);
    for (int32_t j = 0; j < i; j++)
      if (bd[j] == d)
        return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                            "(C4) broadcast_dimensions has %lld twice",
                            (long long)d);
    if (in->dims[i] != 1 && in->dims[i] != out->dims[d])
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C5) operand dim %d has size %lld, result dim %lld "
                          "has "
                          "%lld (must be equal or 1)",
                          i, (long long)in->dims[i], (long long)d,
                          (long long)out->dims[d]);
    k->in_strides[d] = in->dims[i] == 1 ? 0 : in_strides[i];
  }
  return NULL;
}

static hlx_status_t lower_broadcast_with(hlx_lower_ctx_t* c,
                                         const hlx_op_t* op, const int64_t* bd,
                                         int32_t nbd) {
  HLX_RETURN_IF_ERROR(static_types(op));
  HLX_RETURN_IF_ERROR(same_dtype(op, 0, "C1"));
  const hlx_type_t* out = op->results[0]->type;
  copies_args_t* a = new_copies(c, 1, out);
  if (!a) return hlx_status_oom();
  HLX_RETURN_IF_ERROR(
      broadcast_copy(op, op->operands[0]->type, out, bd, nbd, &a->copies[0]));
  return emit_copies(c, op, a, 1);
}

static hlx_status_t lower_broadcast_in_dim(hlx_lower_ctx_t* c,
                                           const hlx_op_t* op) {
  const int64_t* bd;
  int32_t nbd;
  HLX_RETURN_IF_ERROR(
      hlx_attr_i64_array(op, "broadcast_dimensions", true, &bd, &nbd));
  int32_t qi = qdim(op->operands[0]->type), qo = qdim(op->results[0]->type);
  if (qo >= 0 && (qi < 0 || qi >= nbd || bd[qi] != qo))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C6) quantization_dimension(result) = %d must be "
                        "broadcast_dimensions[quantization_dimension(operand)]",
                        qo);
  return lower_broadcast_with(c, op, bd, nbd);
}

/* The legacy broadcast: `broadcast_sizes` dims are prepended. */
static hlx_status_t lower_broadcast(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  const hlx_type_t* in = op->operands[0]->type;
  const hlx_type_t* out = op->results[0]->type;
  if (in->kind != HLX_TYPE_TENSOR || out->kind != HLX_TYPE_TENSOR ||
      out->rank < in->rank || in->rank > HLX_MAX_RANK)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "result rank must be at least the operand's");
  int64_t bd[HLX_MAX_RANK];
  for (int32_t i = 0; i < in->rank; i++) bd[i] = out->rank - in->rank + i;
  return lower_broadcast_with(c, op, bd, in->rank);
}

hlx_status_t hlx_lower_broadcast_slot(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                      int32_t in_slot, const hlx_type_t* in,
                                      const hlx_type_t* out, const int64_t* bd,
                                      int32_t* out_slot) {
  copies_args_t* a = new_copies(c, 1, out);
  if (!a) return hlx_status_oom();
  a->elem_size = hlx_dtype_size(in->dtype);
  HLX_RETURN_IF_ERROR(broadcast_copy(op, in, out, bd, in->rank, &a->copies[0]));
  *out_slot = hlx_plan_add_slot(c->plan, a->out_n * a->elem_size);
  if (*out_slot < 0) return hlx_status_oom();
  return hlx_lower_emit(c, op, run_copies, a, 1, &in_slot, 1, out_slot);
}

/* ---- transpose ----------------------------------------------------------- */

static hlx_status_t lower_transpose(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  HLX_RETURN_IF_ERROR(static_types(op));
  HLX_RETURN_IF_ERROR(same_dtype(op, 0, "C1"));
  const hlx_type_t* in = op->operands[0]->type;
  const hlx_type_t* out = op->results[0]->type;
  const int64_t* perm;
  int32_t np;
  HLX_RETURN_IF_ERROR(hlx_attr_i64_array(op, "permutation", true, &perm, &np));
  if (np != in->rank)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C2) permutation has %d entries, operand rank is %d",
                        np, in->rank);
  if (out->rank != in->rank)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C3) result rank %d differs from operand rank %d",
                        out->rank, in->rank);
  bool seen[HLX_MAX_RANK] = {false};
  copies_args_t* a = new_copies(c, 1, out);
  if (!a) return hlx_status_oom();
  copy_t* k = &a->copies[0];
  whole_output(k, out);
  int64_t in_strides[HLX_MAX_RANK];
  hlx_row_major_strides(in->rank, in->dims, in_strides);
  for (int32_t j = 0; j < np; j++) {
    if (perm[j] < 0 || perm[j] >= in->rank || seen[perm[j]])
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C2) permutation is not a permutation of [0, %d)",
                          in->rank);
    seen[perm[j]] = true;
  }
  int32_t qi = qdim(in), qo = qdim(out);
  if (qo >= 0 && (qo >= np || perm[qo] != qi))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C4) quantization_dimension(operand) = %d must be "
                        "permutation[quantization_dimension(result) = %d]",
                        qi, qo);
  for (int32_t j = 0; j < np; j++) {
    if (out->dims[j] != in->dims[perm[j]])
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C3) result dim %d has size %lld, operand dim %lld "
                          "has "
                          "%lld",
                          j, (long long)out->dims[j], (long long)perm[j],
                          (long long)in->dims[perm[j]]);
    k->in_strides[j] = in_strides[perm[j]];
  }
  return emit_copies(c, op, a, 1);
}

/* ---- slice / reverse ----------------------------------------------------- */

/* slice and real_dynamic_slice (whose index operands are constants). */
static hlx_status_t lower_slice_with(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                     const int64_t* start, int32_t ns,
                                     const int64_t* limit, int32_t nl,
                                     const int64_t* strides, int32_t nst) {
  HLX_RETURN_IF_ERROR(static_types(op));
  HLX_RETURN_IF_ERROR(same_dtype(op, 0, "C1"));
  const hlx_type_t* in = op->operands[0]->type;
  const hlx_type_t* out = op->results[0]->type;
  if (out->rank != in->rank)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C5) result rank %d differs from operand rank %d",
                        out->rank, in->rank);
  if (ns != in->rank || nl != in->rank || (strides && nst != in->rank))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C2) start_indices, limit_indices and strides need "
                        "%d "
                        "entries",
                        in->rank);
  copies_args_t* a = new_copies(c, 1, out);
  if (!a) return hlx_status_oom();
  copy_t* k = &a->copies[0];
  whole_output(k, out);
  int64_t in_strides[HLX_MAX_RANK];
  hlx_row_major_strides(in->rank, in->dims, in_strides);
  for (int32_t d = 0; d < in->rank; d++) {
    int64_t s = strides ? strides[d] : 1;
    if (start[d] < 0 || start[d] > limit[d] || limit[d] > in->dims[d] || s <= 0)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(%s) dim %d: need 0 <= start (%lld) <= limit "
                          "(%lld) <= size (%lld) and stride (%lld) > 0",
                          s <= 0 ? "C4" : "C3", d, (long long)start[d], (long long)limit[d],
                          (long long)in->dims[d], (long long)s);
    int64_t size = (limit[d] - start[d] + s - 1) / s;
    if (size != out->dims[d])
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C5) result dim %d has size %lld, the slice gives "
                          "%lld",
                          d, (long long)out->dims[d], (long long)size);
    k->in_offset += start[d] * in_strides[d];
    k->in_strides[d] = in_strides[d] * s;
  }
  return emit_copies(c, op, a, 1);
}

static hlx_status_t lower_slice(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  const int64_t *start, *limit, *strides;
  int32_t ns, nl, nst;
  HLX_RETURN_IF_ERROR(hlx_attr_i64_array(op, "start_indices", true, &start, &ns));
  HLX_RETURN_IF_ERROR(hlx_attr_i64_array(op, "limit_indices", true, &limit, &nl));
  HLX_RETURN_IF_ERROR(hlx_attr_i64_array(op, "strides", false, &strides, &nst));
  return lower_slice_with(c, op, start, ns, limit, nl, strides, nst);
}

static hlx_status_t lower_real_dynamic_slice(hlx_lower_ctx_t* c,
                                             const hlx_op_t* op) {
  int64_t start[HLX_MAX_RANK], limit[HLX_MAX_RANK], strides[HLX_MAX_RANK];
  int32_t ns, nl, nst;
  if (op->num_operands != 4)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT, "takes 4 operands");
  HLX_RETURN_IF_ERROR(hlx_op_constant_i64(op, 1, start, HLX_MAX_RANK, &ns));
  HLX_RETURN_IF_ERROR(hlx_op_constant_i64(op, 2, limit, HLX_MAX_RANK, &nl));
  HLX_RETURN_IF_ERROR(hlx_op_constant_i64(op, 3, strides, HLX_MAX_RANK, &nst));
  return lower_slice_with(c, op, start, ns, limit, nl, strides, nst);
}

/* The dynamic_* shape ops whose result type is static behave as their
 * static twins; the shape operand is implied by the result type. */
static hlx_status_t lower_dynamic_broadcast_in_dim(hlx_lower_ctx_t* c,
                                                   const hlx_op_t* op) {
  const hlx_type_t* in = op->operands[0]->type;
  const hlx_type_t* out = op->results[0]->type;
  const hlx_type_t* shape = op->num_operands == 2 ? op->operands[1]->type : NULL;
  if (shape && shape->kind == HLX_TYPE_TENSOR && shape->rank == 1 &&
      shape->dims[0] != out->rank)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C7) output_dimensions has %lld entries, result rank "
                        "is %d",
                        (long long)shape->dims[0], out->rank);
  /* (C8)-(C10): the expansion hints name distinct operand dims. */
  static const char* const kHints[2] = {"known_expanding_dimensions",
                                        "known_nonexpanding_dimensions"};
  bool seen[HLX_MAX_RANK] = {false};
  for (int h = 0; h < 2; h++) {
    int64_t d[HLX_MAX_RANK];
    int32_t n;
    if (!hlx_attr_int_list(hlx_op_attr(op, kHints[h]), d, HLX_MAX_RANK, &n))
      continue;
    for (int32_t i = 0; i < n; i++) {
      if (d[i] < 0 || d[i] >= in->rank)
        return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                            "(C%d) %s[%d] = %lld is out of range for rank %d",
                            9 + h, kHints[h], i, (long long)d[i], in->rank);
      if (seen[d[i]])
        return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                            "(C8) operand dim %lld is named twice in the "
                            "known (non)expanding dimensions",
                            (long long)d[i]);
      seen[d[i]] = true;
    }
  }
  return lower_broadcast_in_dim(c, op);
}

static hlx_status_t lower_reverse(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  HLX_RETURN_IF_ERROR(static_types(op));
  HLX_RETURN_IF_ERROR(same_dtype(op, 0, "C1"));
  const hlx_type_t* in = op->operands[0]->type;
  const hlx_type_t* out = op->results[0]->type;
  if (!same_dims(in, out))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C1) result shape differs from the operand's");
  const int64_t* dims;
  int32_t nd;
  HLX_RETURN_IF_ERROR(hlx_attr_i64_array(op, "dimensions", true, &dims, &nd));
  copies_args_t* a = new_copies(c, 1, out);
  if (!a) return hlx_status_oom();
  copy_t* k = &a->copies[0];
  whole_output(k, out);
  hlx_row_major_strides(in->rank, in->dims, k->in_strides);
  bool seen[HLX_MAX_RANK] = {false};
  for (int32_t i = 0; i < nd; i++) {
    int64_t d = dims[i];
    if (d < 0 || d >= in->rank)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C3) dimensions[%d] = %lld is out of range for "
                          "rank %d",
                          i, (long long)d, in->rank);
    if (seen[d])
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C2) dimensions[%d] = %lld is repeated", i,
                          (long long)d);
    seen[d] = true;
    if (in->dims[d] > 0) k->in_offset += (in->dims[d] - 1) * k->in_strides[d];
    k->in_strides[d] = -k->in_strides[d];
  }
  return emit_copies(c, op, a, 1);
}

/* ---- concatenate --------------------------------------------------------- */

static hlx_status_t lower_concatenate(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  HLX_RETURN_IF_ERROR(static_types(op));
  const hlx_type_t* out = op->results[0]->type;
  int64_t dim;
  HLX_RETURN_IF_ERROR(hlx_attr_int(op, "dimension", true, 0, &dim));
  if (op->num_operands < 1)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C3) needs at least one input");
  if (dim < 0 || dim >= op->operands[0]->type->rank)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C4) dimension %lld is out of range for rank %d",
                        (long long)dim, op->operands[0]->type->rank);
  copies_args_t* a = new_copies(c, op->num_operands, out);
  if (!a) return hlx_status_oom();
  int64_t out_strides[HLX_MAX_RANK];
  hlx_row_major_strides(out->rank, out->dims, out_strides);
  int64_t at = 0;
  for (int32_t i = 0; i < op->num_operands; i++) {
    const hlx_type_t* in = op->operands[i]->type;
    const hlx_type_t* in0 = op->operands[0]->type;
    if (in->dtype != in0->dtype)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C1) input #%d has element type %s, input #0 %s",
                          i, hlx_dtype_name(in->dtype),
                          hlx_dtype_name(in0->dtype));
    HLX_RETURN_IF_ERROR(same_dtype(op, i, "C5"));
    if (in->rank != in0->rank)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C2) input #%d has rank %d, input #0 %d", i,
                          in->rank, in0->rank);
    for (int32_t d = 0; d < in->rank; d++)
      if (d != dim && in->dims[d] != in0->dims[d])
        return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                            "(C2) input #%d dim %d has size %lld, input #0 "
                            "%lld",
                            i, d, (long long)in->dims[d],
                            (long long)in0->dims[d]);
    if (in->rank != out->rank)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C6) result rank %d differs from the inputs' %d",
                          out->rank, in->rank);
    for (int32_t d = 0; d < in->rank; d++)
      if (d != dim && in->dims[d] != out->dims[d])
        return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                            "(C6) operand #%d dim %d has size %lld, result "
                            "%lld",
                            i, d, (long long)in->dims[d],
                            (long long)out->dims[d]);
    copy_t* k = &a->copies[i];
    k->rank = in->rank;
    /* dims may be NULL at rank 0 */
    if (in->rank)
      memcpy(k->dims, in->dims, sizeof(int64_t) * (size_t)in->rank);
    hlx_row_major_strides(in->rank, in->dims, k->in_strides);
    memcpy(k->out_strides, out_strides, sizeof(int64_t) * (size_t)out->rank);
    k->out_offset = at * out_strides[dim];
    k->input = i;
    at += in->dims[dim];
  }
  if (at != out->dims[dim])
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C6) operands add up to %lld along dim %lld, result "
                        "has "
                        "%lld",
                        (long long)at, (long long)dim,
                        (long long)out->dims[dim]);
  return emit_copies(c, op, a, op->num_operands);
}

/* ---- pad ----------------------------------------------------------------- */

/* pad and dynamic_pad (whose padding operands are constants). */
static hlx_status_t lower_pad_with(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                   const int64_t* lo, int32_t nlo,
                                   const int64_t* hi, int32_t nhi,
                                   const int64_t* interior, int32_t nin) {
  HLX_RETURN_IF_ERROR(static_types(op));
  HLX_RETURN_IF_ERROR(same_dtype(op, 0, "C1"));
  HLX_RETURN_IF_ERROR(same_dtype(op, 1, "C1"));
  const hlx_type_t* in = op->operands[0]->type;
  const hlx_type_t* out = op->results[0]->type;
  if (op->operands[1]->type->rank != 0)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "padding_value must be a scalar");
  if (nlo != in->rank || nhi != in->rank || nin != in->rank)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C2) padding attributes need %d entries", in->rank);
  copies_args_t* a = new_copies(c, 1, out);
  if (!a) return hlx_status_oom();
  a->fill_from = 1;
  copy_t* k = &a->copies[0];
  k->rank = in->rank;
  int64_t in_strides[HLX_MAX_RANK], out_strides[HLX_MAX_RANK];
  hlx_row_major_strides(in->rank, in->dims, in_strides);
  hlx_row_major_strides(out->rank, out->dims, out_strides);
  if (out->rank != in->rank)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C4) result rank %d differs from operand rank %d",
                        out->rank, in->rank);
  for (int32_t d = 0; d < in->rank; d++) {
    if (interior[d] < 0)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C3) interior_padding[%d] = %lld must be >= 0", d,
                          (long long)interior[d]);
    int64_t step = interior[d] + 1;
    int64_t padded = in->dims[d] == 0 ? 0 : (in->dims[d] - 1) * step + 1;
    int64_t size = lo[d] + padded + hi[d];
    if (size != out->dims[d])
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C4) result dim %d has size %lld, padding gives "
                          "%lld",
                          d,
                          (long long)out->dims[d], (long long)size);
    /* Input elements i land at lo + i*step; keep those inside [0, size). */
    int64_t first = lo[d] >= 0 ? 0 : (-lo[d] + step - 1) / step;
    int64_t last = in->dims[d] - 1; /* largest i with lo + i*step < size */
    if (lo[d] + last * step >= size)
      last = size - 1 - lo[d] < 0 ? -1 : (size - 1 - lo[d]) / step;
    int64_t count = last >= first ? last - first + 1 : 0;
    k->dims[d] = count;
    k->in_offset += first * in_strides[d];
    k->in_strides[d] = in_strides[d];
    k->out_offset += (lo[d] + first * step) * out_strides[d];
    k->out_strides[d] = out_strides[d] * step;
  }
  return emit_copies(c, op, a, 2);
}

static hlx_status_t lower_pad(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  const int64_t *lo, *hi, *interior;
  int32_t nlo, nhi, nin;
  HLX_RETURN_IF_ERROR(hlx_attr_i64_array(op, "edge_padding_low", true, &lo, &nlo));
  HLX_RETURN_IF_ERROR(hlx_attr_i64_array(op, "edge_padding_high", true, &hi, &nhi));
  HLX_RETURN_IF_ERROR(hlx_attr_i64_array(op, "interior_padding", true, &interior, &nin));
  return lower_pad_with(c, op, lo, nlo, hi, nhi, interior, nin);
}

static hlx_status_t lower_dynamic_pad(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  int64_t lo[HLX_MAX_RANK], hi[HLX_MAX_RANK], interior[HLX_MAX_RANK];
  int32_t nlo, nhi, nin;
  if (op->num_operands != 5)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT, "takes 5 operands");
  HLX_RETURN_IF_ERROR(hlx_op_constant_i64(op, 2, lo, HLX_MAX_RANK, &nlo));
  HLX_RETURN_IF_ERROR(hlx_op_constant_i64(op, 3, hi, HLX_MAX_RANK, &nhi));
  HLX_RETURN_IF_ERROR(hlx_op_constant_i64(op, 4, interior, HLX_MAX_RANK, &nin));
  return lower_pad_with(c, op, lo, nlo, hi, nhi, interior, nin);
}

/* ---- iota: folded to a constant at lowering ------------------------------ */

static hlx_status_t lower_iota(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  HLX_RETURN_IF_ERROR(static_types(op));
  const hlx_type_t* out = op->results[0]->type;
  int64_t dim;
  HLX_RETURN_IF_ERROR(hlx_attr_int(op, "iota_dimension", true, 0, &dim));
  /* dynamic_iota (C2): one output_shape entry per result dim. */
  const hlx_type_t* shape =
      op->code == HLX_OP_DYNAMIC_IOTA && op->num_operands == 1
          ? op->operands[0]->type
          : NULL;
  if (shape && shape->rank == 1 && shape->dims[0] != out->rank)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C2) output_shape has %lld entries, result rank is "
                        "%d",
                        (long long)shape->dims[0], out->rank);
  if (out->rank == 0 || dim < 0 || dim >= out->rank)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C1) iota_dimension %lld is out of range for rank "
                        "%d",
                        (long long)dim, out->rank);
  int32_t slot;
  HLX_RETURN_IF_ERROR(hlx_lower_out(c, op, 0, &slot));
  size_t n = (size_t)hlx_type_num_elements(out);
  int64_t* idx = hlx_lower_alloc(c, n * 8 + 8);
  void* data = hlx_lower_alloc(c, c->plan->slot_bytes[slot] + 16);
  if (!idx || !data) return hlx_status_oom();
  hlx_ref_iota_s64(out->rank, out->dims, (int32_t)dim, idx);
  if (!hlx_ref_convert(HLX_DTYPE_S64, idx, out->dtype, data, n))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "element type %s is not allowed",
                        hlx_dtype_name(out->dtype));
  c->plan->slot_data[slot] = data;
  return NULL;
}

/* ---- dynamic_slice / dynamic_update_slice -------------------------------- */

typedef struct dynamic_args_t {
  size_t elem_size;
  int32_t rank;
  hlx_dtype_t index_dtype;
  int64_t operand_dims[HLX_MAX_RANK];
  int64_t window[HLX_MAX_RANK]; /* slice sizes / update dims */
  int64_t strides[HLX_MAX_RANK];
  size_t operand_bytes;
} dynamic_args_t;

static int64_t read_index(hlx_dtype_t t, const void* p) {
  int64_t v = 0;
  hlx_ref_convert(t, p, HLX_DTYPE_S64, &v, 1);
  return v;
}

/* Start of the window along each dim, clamped to [0, dim - window]. */
static void clamped_starts(const dynamic_args_t* a, void* const* idx_inputs,
                           int64_t* offset) {
  *offset = 0;
  for (int32_t d = 0; d < a->rank; d++) {
    int64_t s = read_index(a->index_dtype, idx_inputs[d]);
    int64_t hi = a->operand_dims[d] - a->window[d];
    if (s > hi) s = hi;
    if (s < 0) s = 0;
    *offset += s * a->strides[d];
  }
}

static hlx_status_t run_dynamic_slice(const void* args, void* const* in,
                                      void* const* out, hlx_run_ctx_t* ctx) {
  (void)ctx;
  const dynamic_args_t* a = args;
  int64_t off;
  clamped_starts(a, in + 1, &off);
  int64_t out_strides[HLX_MAX_RANK];
  hlx_row_major_strides(a->rank, a->window, out_strides);
  hlx_ref_copy_strided(a->elem_size, a->rank, a->window,
                       (const char*)in[0] + off * (int64_t)a->elem_size,
                       a->strides, out[0], out_strides);
  return NULL;
}

static hlx_status_t run_dynamic_update_slice(const void* args, void* const* in,
                                             void* const* out,
                                             hlx_run_ctx_t* ctx) {
  (void)ctx;
  const dynamic_args_t* a = args;
  memcpy(out[0], in[0], a->operand_bytes);
  int64_t off;
  clamped_starts(a, in + 2, &off);
  int64_t upd_strides[HLX_MAX_RANK];
  hlx_row_major_strides(a->rank, a->window, upd_strides);
  hlx_ref_copy_strided(a->elem_size, a->rank, a->window, in[1], upd_strides,
                       (char*)out[0] + off * (int64_t)a->elem_size,
                       a->strides);
  return NULL;
}

static hlx_status_t lower_dynamic(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                  bool update) {
  HLX_RETURN_IF_ERROR(static_types(op));
  HLX_RETURN_IF_ERROR(same_dtype(op, 0, "C1"));
  const hlx_type_t* in = op->operands[0]->type;
  if (update && !same_dims(in, op->results[0]->type))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C1) result shape differs from the operand's");
  int first_index = update ? 2 : 1;
  if (op->num_operands < first_index)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT, "takes %d operands",
                        first_index);
  if (op->num_operands != first_index + in->rank)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(%s) needs %d start indices, has %d",
                        update ? "C4" : "C2", in->rank,
                        op->num_operands - first_index);
  dynamic_args_t* a = hlx_lower_alloc(c, sizeof(*a));
  if (!a) return hlx_status_oom();
  a->elem_size = hlx_dtype_size(in->dtype);
  a->rank = in->rank;
  a->operand_bytes = hlx_tensor_bytes(in);
  /* dims may be NULL at rank 0 */
  if (in->rank)
    memcpy(a->operand_dims, in->dims, sizeof(int64_t) * (size_t)in->rank);
  hlx_row_major_strides(in->rank, in->dims, a->strides);
  for (int32_t i = first_index; i < op->num_operands; i++) {
    const hlx_type_t* t = op->operands[i]->type;
    if (t->rank != 0 || !hlx_dtype_is_int(t->dtype) ||
        t->dtype != op->operands[first_index]->type->dtype)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(%s) start indices must be integer scalars of one "
                          "type",
                          update ? "C5" : "C3");
  }
  if (in->rank) a->index_dtype = op->operands[first_index]->type->dtype;
  if (update) {
    const hlx_type_t* u = op->operands[1]->type;
    HLX_RETURN_IF_ERROR(same_dtype(op, 1, "C2"));
    if (u->rank != in->rank)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C3) update rank %d differs from operand rank %d",
                          u->rank, in->rank);
    /* dims may be NULL at rank 0 */
    if (u->rank)
      memcpy(a->window, u->dims, sizeof(int64_t) * (size_t)u->rank);
  } else {
    const int64_t* sizes;
    int32_t ns;
    HLX_RETURN_IF_ERROR(hlx_attr_i64_array(op, "slice_sizes", true, &sizes, &ns));
    if (ns != in->rank)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C2) slice_sizes has %d entries, operand rank is %d",
                          ns,
                          in->rank);
    memcpy(a->window, sizes, sizeof(int64_t) * (size_t)ns);
    const hlx_type_t* out = op->results[0]->type;
    bool ok = out->rank == ns;
    for (int32_t d = 0; ok && d < ns; d++) ok = out->dims[d] == sizes[d];
    if (!ok)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C5) result shape is not slice_sizes");
  }
  for (int32_t d = 0; d < in->rank; d++)
    if (a->window[d] < 0 || a->window[d] > in->dims[d])
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(%s) dim %d: window size %lld exceeds operand size "
                          "%lld",
                          update ? "C6" : "C4", d, (long long)a->window[d], (long long)in->dims[d]);
  int32_t ins[HLX_MAX_RANK + 2], out;
  for (int32_t i = 0; i < op->num_operands; i++)
    HLX_RETURN_IF_ERROR(hlx_lower_in(c, op, i, &ins[i]));
  HLX_RETURN_IF_ERROR(hlx_lower_out(c, op, 0, &out));
  return hlx_lower_emit(c, op,
                        update ? run_dynamic_update_slice : run_dynamic_slice,
                        a, op->num_operands, ins, 1, &out);
}

static hlx_status_t lower_dynamic_slice(hlx_lower_ctx_t* c,
                                        const hlx_op_t* op) {
  return lower_dynamic(c, op, false);
}

static hlx_status_t lower_dynamic_update_slice(hlx_lower_ctx_t* c,
                                               const hlx_op_t* op) {
  return lower_dynamic(c, op, true);
}

const hlx_lowering_t hlx_lowerings_data_movement[] = {
    {HLX_OP_BROADCAST_IN_DIM, lower_broadcast_in_dim},
    {HLX_OP_BROADCAST, lower_broadcast},
    {HLX_OP_TRANSPOSE, lower_transpose},
    {HLX_OP_SLICE, lower_slice},
    {HLX_OP_REVERSE, lower_reverse},
    {HLX_OP_CONCATENATE, lower_concatenate},
    {HLX_OP_PAD, lower_pad},
    {HLX_OP_IOTA, lower_iota},
    {HLX_OP_DYNAMIC_SLICE, lower_dynamic_slice},
    {HLX_OP_DYNAMIC_UPDATE_SLICE, lower_dynamic_update_slice},
    {HLX_OP_DYNAMIC_PAD, lower_dynamic_pad},
    {HLX_OP_REAL_DYNAMIC_SLICE, lower_real_dynamic_slice},
    {HLX_OP_DYNAMIC_BROADCAST_IN_DIM, lower_dynamic_broadcast_in_dim},
    {HLX_OP_DYNAMIC_IOTA, lower_iota},
    {HLX_OP_UNKNOWN, NULL},
};
