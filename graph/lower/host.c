/* Ops that talk to the host: infeed / outfeed (through the run's
 * hlx_run_env_t), custom_call targets registered as host functions, and the
 * interpreter's probe / expect_serialized_eq pair. All are side effects:
 * they keep their program order. */
#include <string.h>

#include "graph/lower/ctx.h"

static const char* string_attr(const hlx_op_t* op, const char* name) {
  const hlx_attr_t* a = hlx_op_attr(op, name);
  return a && a->kind == HLX_ATTR_STRING ? a->str : "";
}

static hlx_run_env_t* env_of(hlx_run_ctx_t* ctx) { return ctx->user; }

/* Emits fn over all operand leaves (in) and all result leaves (out). */
static hlx_status_t emit_side_effect(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                     hlx_task_fn fn, const void* args) {
  int32_t *ins, *outs, nin, nout;
  HLX_RETURN_IF_ERROR(hlx_lower_flatten(c, op, false, &ins, &nin));
  HLX_RETURN_IF_ERROR(hlx_lower_flatten(c, op, true, &outs, &nout));
  HLX_RETURN_IF_ERROR(hlx_lower_emit(c, op, fn, args, nin, ins, nout, outs));
  hlx_plan_last_task_set_flags(c->plan, HLX_TASK_SIDE_EFFECT);
  return NULL;
}

/* ---- infeed / outfeed ---------------------------------------------------- */

typedef struct feed_args_t {
  const char* config;
  int32_t n;       /* data buffers (tokens excluded) */
  size_t* bytes;
} feed_args_t;

static hlx_status_t run_infeed(const void* args, void* const* in,
                               void* const* out, hlx_run_ctx_t* ctx) {
  (void)in;
  const feed_args_t* a = args;
  hlx_run_env_t* env = env_of(ctx);
  if (!env || !env->infeed)
    return hlx_make_status(HLX_STATUS_FAILED_PRECONDITION,
                           "no infeed queue is attached to this run");
  return env->infeed(env->infeed_user, a->config, out, a->bytes, a->n);
}

static hlx_status_t run_outfeed(const void* args, void* const* in,
                                void* const* out, hlx_run_ctx_t* ctx) {
  (void)out;
  const feed_args_t* a = args;
  hlx_run_env_t* env = env_of(ctx);
  if (!env || !env->outfeed)
    return hlx_make_status(HLX_STATUS_FAILED_PRECONDITION,
                           "no outfeed consumer is attached to this run");
  return env->outfeed(env->outfeed_user, a->config, (const void* const*)in,
                      a->bytes, a->n);
}

/* Byte sizes of the tensor values vals[0..n) (tokens must be last). */
static hlx_status_t feed_sizes(hlx_lower_ctx_t* c, const hlx_op_t* op,
                               hlx_value_t* const* vals, int32_t n,
                               feed_args_t* a) {
  a->bytes = hlx_lower_alloc(c, sizeof(size_t) * ((size_t)n + 1));
  if (!a->bytes) return hlx_status_oom();
  for (int32_t i = 0; i < n; i++) {
    const hlx_type_t* t = hlx_static_tensor(vals[i]);
    if (!t)
      return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                          "unsupported: value #%d is not a static tensor", i);
    a->bytes[i] = hlx_tensor_bytes(t);
  }
  a->n = n;
  return NULL;
}

static bool is_token(const hlx_value_t* v) {
  return v->type->kind == HLX_TYPE_TOKEN;
}

static hlx_status_t lower_infeed(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  if (op->num_operands != 1 || !is_token(op->operands[0]))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT, "takes a token");
  if (op->num_results < 1)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C1) needs at least one result");
  if (!is_token(op->results[op->num_results - 1]))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C3) the last result must be a token");
  for (int32_t i = 0; i + 1 < op->num_results; i++)
    if (op->results[i]->type->kind != HLX_TYPE_TENSOR)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C2) result #%d must be a tensor", i);
  feed_args_t* a = hlx_lower_alloc(c, sizeof(*a));
  if (!a) return hlx_status_oom();
  a->config = string_attr(op, "infeed_config");
  HLX_RETURN_IF_ERROR(
      feed_sizes(c, op, op->results, op->num_results - 1, a));
  return emit_side_effect(c, op, run_infeed, a);
}

static hlx_status_t lower_outfeed(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  if (op->num_operands < 1 || !is_token(op->operands[op->num_operands - 1]) ||
      op->num_results != 1 || !is_token(op->results[0]))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "takes values followed by a token and returns a "
                        "token");
  feed_args_t* a = hlx_lower_alloc(c, sizeof(*a));
  if (!a) return hlx_status_oom();
  a->config = string_attr(op, "outfeed_config");
  HLX_RETURN_IF_ERROR(
      feed_sizes(c, op, op->operands, op->num_operands - 1, a));
  return emit_side_effect(c, op, run_outfeed, a);
}

/* ---- custom_call to a host function -------------------------------------- */

typedef struct host_call_args_t {
  hlx_lower_host_function_t f;
  const char* config;
  int32_t num_in, num_out;
} host_call_args_t;

static hlx_status_t run_host_call(const void* args, void* const* in,
                                  void* const* out, hlx_run_ctx_t* ctx) {
  (void)ctx;
  const host_call_args_t* a = args;
  return a->f.fn(a->f.user, (const void* const*)in, a->num_in, out,
                 a->num_out, a->config);
}

hlx_status_t hlx_lower_host_call(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                 const char* target) {
  const hlx_lower_options_t* o = &c->lm->options;
  for (int32_t i = 0; i < o->num_host_functions; i++) {
    if (strcmp(o->host_functions[i].name, target) != 0) continue;
    if (o->host_functions[i].fn_v2)
      return hlx_lower_host_call_v2(c, op, target, &o->host_functions[i]);
    host_call_args_t* a = hlx_lower_alloc(c, sizeof(*a));
    if (!a) return hlx_status_oom();
    a->f = o->host_functions[i];
    const hlx_attr_t* cfg = hlx_op_attr(op, "backend_config");
    a->config = cfg && cfg->kind == HLX_ATTR_STRING ? cfg->str : "";
    int32_t *ins, *outs;
    HLX_RETURN_IF_ERROR(hlx_lower_flatten(c, op, false, &ins, &a->num_in));
    HLX_RETURN_IF_ERROR(hlx_lower_flatten(c, op, true, &outs, &a->num_out));
    HLX_RETURN_IF_ERROR(hlx_lower_emit(c, op, run_host_call, a, a->num_in,
                                       ins, a->num_out, outs));
    hlx_plan_last_task_set_flags(c->plan, HLX_TASK_SIDE_EFFECT);
    return NULL;
  }
  return hlx_op_error(op, HLX_STATUS_NOT_FOUND,
                      "unknown custom_call target '%s' (no host function is "
                      "registered under that name)",
                      target);
}

/* ---- interpreter.probe / check.expect_serialized_eq ---------------------- */

typedef struct probe_args_t {
  const char* id;
  size_t bytes;
  int64_t iter;
} probe_args_t;

static hlx_status_t run_probe(const void* args, void* const* in,
                              void* const* out, hlx_run_ctx_t* ctx) {
  (void)out;
  const probe_args_t* a = args;
  hlx_run_env_t* env = env_of(ctx);
  if (!env || !env->probes) return NULL; /* nobody listens: identity */
  return hlx_probe_record(env->probes, a->id, in[0], a->bytes);
}

static hlx_status_t run_expect_serialized(const void* args, void* const* in,
                                          void* const* out,
                                          hlx_run_ctx_t* ctx) {
  (void)out;
  const probe_args_t* a = args;
  hlx_run_env_t* env = env_of(ctx);
  size_t bytes = 0;
  const void* want =
      env && env->probes ? hlx_probe_lookup(env->probes, a->id, a->iter, &bytes)
                         : NULL;
  if (!want)
    return hlx_make_status(HLX_CHECK_FAILED_CODE,
                           "%s: check.expect_serialized_eq: nothing was "
                           "probed as '%s' (iteration %lld)",
                           HLX_CHECK_FAILED, a->id, (long long)a->iter);
  if (bytes != a->bytes || memcmp(want, in[0], bytes) != 0)
    return hlx_make_status(HLX_CHECK_FAILED_CODE,
                           "%s: check.expect_serialized_eq: value differs "
                           "from probe '%s' iteration %lld",
                           HLX_CHECK_FAILED, a->id, (long long)a->iter);
  return NULL;
}

static hlx_status_t probe_common(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                 probe_args_t** out) {
  const hlx_type_t* t =
      op->num_operands == 1 ? hlx_static_tensor(op->operands[0]) : NULL;
  const hlx_attr_t* id = hlx_op_attr(op, "probe_id");
  if (!t || !id || id->kind != HLX_ATTR_STRING)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "takes one static tensor and a string probe_id");
  probe_args_t* a = hlx_lower_alloc(c, sizeof(*a));
  if (!a) return hlx_status_oom();
  a->id = id->str;
  a->bytes = hlx_tensor_bytes(t);
  HLX_RETURN_IF_ERROR(hlx_attr_int(op, "iter", false, 0, &a->iter));
  *out = a;
  return NULL;
}

static hlx_status_t lower_probe(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  probe_args_t* a;
  HLX_RETURN_IF_ERROR(probe_common(c, op, &a));
  if (op->num_results != 1)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT, "has one result");
  /* The result is the operand itself; the task only records it. */
  hlx_value_slots_t s;
  HLX_RETURN_IF_ERROR(hlx_lower_slots_of(c, op->operands[0], &s));
  HLX_RETURN_IF_ERROR(hlx_lower_alias(c, op->results[0], &s));
  HLX_RETURN_IF_ERROR(hlx_lower_emit(c, op, run_probe, a, 1, s.slots, 0, NULL));
  hlx_plan_last_task_set_flags(c->plan, HLX_TASK_SIDE_EFFECT);
  return NULL;
}

static hlx_status_t lower_expect_serialized_eq(hlx_lower_ctx_t* c,
                                               const hlx_op_t* op) {
  probe_args_t* a;
  HLX_RETURN_IF_ERROR(probe_common(c, op, &a));
  return emit_side_effect(c, op, run_expect_serialized, a);
}

/* ---- interpreter.print --------------------------------------------------- */

typedef struct print_args_t {
  const char* name; /* SSA name of the printed value */
  hlx_dtype_t dtype;
  int32_t rank;
  const int64_t* dims;
} print_args_t;

static hlx_status_t run_print(const void* args, void* const* in,
                              void* const* out, hlx_run_ctx_t* ctx) {
  (void)out;
  const print_args_t* a = args;
  hlx_run_env_t* env = env_of(ctx);
  if (env && env->print)
    env->print(env->print_user, a->name, a->dtype, a->rank, a->dims, in[0]);
  return NULL;
}

static hlx_status_t lower_print(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  const hlx_type_t* t =
      op->num_operands == 1 ? hlx_static_tensor(op->operands[0]) : NULL;
  if (!t || op->num_results != 0)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "prints one static tensor and has no results");
  print_args_t* a = hlx_lower_alloc(c, sizeof(*a));
  if (!a) return hlx_status_oom();
  a->name = op->operands[0]->name ? op->operands[0]->name : "";
  a->dtype = t->dtype;
  a->rank = t->rank;
  a->dims = t->dims;
  return emit_side_effect(c, op, run_print, a);
}

const hlx_lowering_t hlx_lowerings_host[] = {
    {HLX_OP_INTERPRETER_PRINT, lower_print},
    {HLX_OP_INFEED, lower_infeed},
    {HLX_OP_OUTFEED, lower_outfeed},
    {HLX_OP_INTERPRETER_PROBE, lower_probe},
    {HLX_OP_CHECK_EXPECT_SERIALIZED_EQ, lower_expect_serialized_eq},
    {HLX_OP_UNKNOWN, NULL},
};
