/* convolution / dynamic_conv's quantization rules C29, C30, C32, C33
 * (the others are checked by the lowering, graph/lower/conv.c). */
#include "graph/ir/attr.h"
#include "graph/ops/family.h"

static bool dim_field(const hlx_op_t* op, const char* name, int64_t* v) {
  const hlx_attr_t* dn = hlx_op_attr(op, "dimension_numbers");
  const hlx_attr_t* a = dn && dn->kind == HLX_ATTR_STRUCT
                            ? hlx_attr_dict_get(dn, name)
                            : NULL;
  if (!a || a->kind != HLX_ATTR_INT) return false;
  *v = a->i;
  return true;
}

static hlx_status_t verify_conv(const hlx_op_t* op, const hlx_module_t* m) {
  (void)m;
  if (op->num_operands < 2 || op->num_results != 1) return NULL;
  const hlx_type_t* l = op->operands[0]->type;
  const hlx_type_t* r = op->operands[1]->type;
  const hlx_type_t* o = op->results[0]->type;
  if (l->kind != HLX_TYPE_TENSOR || r->kind != HLX_TYPE_TENSOR ||
      o->kind != HLX_TYPE_TENSOR)
    return NULL;
  const hlx_quant_t *lq = l->quant, *rq = r->quant, *oq = o->quant;
  int64_t d;
  if (rq && rq->quantized_dimension >= 0 &&
      dim_field(op, "kernel_output_feature_dimension", &d) &&
      rq->quantized_dimension != d)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C29) quantization_dimension(rhs) = %d must be "
                        "kernel_output_feature_dimension %lld",
                        rq->quantized_dimension, (long long)d);
  if (oq && oq->quantized_dimension >= 0 &&
      dim_field(op, "output_feature_dimension", &d) &&
      oq->quantized_dimension != d)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C30) quantization_dimension(result) = %d must be "
                        "output_feature_dimension %lld",
                        oq->quantized_dimension, (long long)d);
  if (!lq || !rq || !oq) return NULL; /* C28 / C34 are the lowering's */
  if (lq->expressed != rq->expressed || lq->expressed != oq->expressed)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C32) expressed types %s (lhs), %s (rhs) and %s "
                        "(result) differ",
                        hlx_dtype_name(lq->expressed),
                        hlx_dtype_name(rq->expressed),
                        hlx_dtype_name(oq->expressed));
  if (rq->quantized_dimension < 0 && oq->quantized_dimension >= 0)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C33) a per-tensor quantized rhs needs a per-tensor "
                        "quantized result");
  return NULL;
}

const hlx_op_rules_t hlx_op_rules_conv[] = {
    {HLX_OP_CONVOLUTION, verify_conv, NULL},
    {HLX_OP_DYNAMIC_CONV, verify_conv, NULL},
    {HLX_OP_UNKNOWN, NULL, NULL},
};
