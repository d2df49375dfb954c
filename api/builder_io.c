/* Builder: tokens and side effects (XLA AfterAll/CreateToken, Infeed,
 * Outfeed, Send, Recv, CustomCall). */
#include <stdio.h>
#include <string.h>

#include "api/builder_internal.h"

static hlx_type_t* token_type(hlx_builder_t* b) {
  hlx_type_t* t = hlx_bld_balloc(b, sizeof(*t));
  if (t) t->kind = HLX_TYPE_TOKEN;
  return t;
}

static hlx_status_t get_token(hlx_builder_t* b, const char* kOp, uint32_t id,
                              hlx_value_t** v) {
  HLX_RETURN_IF_ERROR(hlx_bld_get_value(b, kOp, "token", id, v));
  if ((*v)->type->kind != HLX_TYPE_TOKEN)
    return hlx_bld_fail(b, kOp, "token must be a token value");
  return NULL;
}

static hlx_status_t shape_type(hlx_builder_t* b, const char* kOp,
                               const hlx_tensor_desc_t* d, hlx_type_t** t) {
  HLX_RETURN_IF_ERROR(hlx_bld_check_desc(b, kOp, d));
  *t = hlx_bld_tensor_type(&b->module->arena, (hlx_dtype_t)d->element_type,
                           d->rank, d->dims);
  return *t ? NULL : hlx_bld_oom(b);
}

hlx_status_t hlx_builder_after_all(hlx_builder_t* b, const uint32_t* tokens,
                                   int32_t n, uint32_t* out_value) {
  static const char kOp[] = "after_all";
  BEGIN(b, out_value, kOp);
  if (n < 0 || n > 64 || (n > 0 && !tokens))
    return hlx_bld_fail(b, kOp, "bad token count %d", (int)n);
  hlx_value_t* vs[64];
  for (int32_t i = 0; i < n; i++)
    HLX_RETURN_IF_ERROR(get_token(b, kOp, tokens[i], &vs[i]));
  hlx_type_t* t = token_type(b);
  if (!t) return hlx_bld_oom(b);
  return hlx_bld_emit1(b, HLX_OP_AFTER_ALL, vs, n, t, NULL, 0, NULL, out_value);
}

hlx_status_t hlx_builder_infeed(hlx_builder_t* b, uint32_t token,
                                const hlx_tensor_desc_t* desc,
                                const char* config, uint32_t* out_value) {
  static const char kOp[] = "infeed";
  BEGIN(b, out_value, kOp);
  hlx_value_t* tok = NULL;
  HLX_RETURN_IF_ERROR(get_token(b, kOp, token, &tok));
  hlx_type_t* rts[2] = {NULL, token_type(b)};
  HLX_RETURN_IF_ERROR(shape_type(b, kOp, desc, &rts[0]));
  named_t attrs[] = {
      {"infeed_config", hlx_bld_attr_string(b, config ? config : "")}};
  hlx_op_t* op = hlx_bld_emit(b, HLX_OP_INFEED, &tok, 1, rts, 2, attrs, 1);
  if (!op) return hlx_bld_oom(b);
  return hlx_bld_results_value(b, op, out_value);
}

hlx_status_t hlx_builder_outfeed(hlx_builder_t* b, uint32_t operand,
                                 uint32_t token, const char* config,
                                 uint32_t* out_value) {
  static const char kOp[] = "outfeed";
  BEGIN(b, out_value, kOp);
  hlx_value_t* vs[2] = {NULL, NULL};
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "operand", operand, &vs[0]));
  HLX_RETURN_IF_ERROR(get_token(b, kOp, token, &vs[1]));
  hlx_type_t* t = token_type(b);
  if (!t) return hlx_bld_oom(b);
  named_t attrs[] = {
      {"outfeed_config", hlx_bld_attr_string(b, config ? config : "")}};
  return hlx_bld_emit1(b, HLX_OP_OUTFEED, vs, 2, t, attrs, 1, NULL, out_value);
}

static hlx_status_t check_channel(hlx_builder_t* b, const char* kOp,
                                  int64_t channel_id) {
  if (channel_id <= 0)
    return hlx_bld_fail(b, kOp, "channel_id %lld must be > 0",
                        (long long)channel_id);
  return NULL;
}

hlx_status_t hlx_builder_send(hlx_builder_t* b, uint32_t operand,
                              uint32_t token, int64_t channel_id,
                              uint32_t* out_value) {
  static const char kOp[] = "send";
  BEGIN(b, out_value, kOp);
  hlx_value_t* vs[2] = {NULL, NULL};
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "operand", operand, &vs[0]));
  HLX_RETURN_IF_ERROR(get_token(b, kOp, token, &vs[1]));
  HLX_RETURN_IF_ERROR(check_channel(b, kOp, channel_id));
  hlx_type_t* t = token_type(b);
  if (!t) return hlx_bld_oom(b);
  named_t attrs[] = {{"channel_handle", hlx_bld_attr_channel(b, channel_id, 1)},
                     {"is_host_transfer", hlx_bld_attr_bool(b, false)}};
  return hlx_bld_emit1(b, HLX_OP_SEND, vs, 2, t, attrs, 2, NULL, out_value);
}

hlx_status_t hlx_builder_recv(hlx_builder_t* b, uint32_t token,
                              const hlx_tensor_desc_t* desc,
                              int64_t channel_id, uint32_t* out_value) {
  static const char kOp[] = "recv";
  BEGIN(b, out_value, kOp);
  hlx_value_t* tok = NULL;
  HLX_RETURN_IF_ERROR(get_token(b, kOp, token, &tok));
  HLX_RETURN_IF_ERROR(check_channel(b, kOp, channel_id));
  hlx_type_t* rts[2] = {NULL, token_type(b)};
  HLX_RETURN_IF_ERROR(shape_type(b, kOp, desc, &rts[0]));
  named_t attrs[] = {{"channel_handle", hlx_bld_attr_channel(b, channel_id, 1)},
                     {"is_host_transfer", hlx_bld_attr_bool(b, false)}};
  hlx_op_t* op = hlx_bld_emit(b, HLX_OP_RECV, &tok, 1, rts, 2, attrs, 2);
  if (!op) return hlx_bld_oom(b);
  return hlx_bld_results_value(b, op, out_value);
}

hlx_status_t hlx_builder_custom_call(hlx_builder_t* b, const char* target_name,
                                     const uint32_t* operands, int32_t n,
                                     const hlx_tensor_desc_t* result_descs,
                                     int32_t num_results,
                                     const char* backend_config,
                                     bool has_side_effect,
                                     uint32_t* out_value) {
  static const char kOp[] = "custom_call";
  BEGIN(b, out_value, kOp);
  if (!target_name || !target_name[0])
    return hlx_bld_fail(b, kOp, "target_name must be a non-empty string");
  if (n < 0 || n > 64 || (n > 0 && !operands))
    return hlx_bld_fail(b, kOp, "bad operand count %d", (int)n);
  if (num_results < 1 || num_results > 64 || !result_descs)
    return hlx_bld_fail(b, kOp, "needs 1 to 64 result shapes, got %d",
                        (int)num_results);
  hlx_value_t* vs[64];
  HLX_RETURN_IF_ERROR(hlx_bld_get_values(b, kOp, operands, n, vs, NULL));
  hlx_type_t* rts[64];
  for (int32_t i = 0; i < num_results; i++)
    HLX_RETURN_IF_ERROR(shape_type(b, kOp, &result_descs[i], &rts[i]));
  named_t attrs[] = {
      {"call_target_name", hlx_bld_attr_string(b, target_name)},
      {"has_side_effect", hlx_bld_attr_bool(b, has_side_effect)},
      {"backend_config",
       hlx_bld_attr_string(b, backend_config ? backend_config : "")},
  };
  hlx_op_t* op = hlx_bld_emit(b, HLX_OP_CUSTOM_CALL, vs, n, rts, num_results,
                              attrs, 3);
  if (!op) return hlx_bld_oom(b);
  return hlx_bld_results_value(b, op, out_value);
}
