/* Builder: collectives (XLA AllReduce, CrossReplicaSum, AllGather,
 * ReduceScatter, AllToAll, CollectivePermute) and ReplicaId, emitted as
 * the StableHLO ops with replica_groups / source_target_pairs as 2-D i64
 * dense attributes and channel_handle structs. */
#include <stdio.h>
#include <string.h>

#include "api/builder_internal.h"

hlx_attr_t* hlx_bld_attr_channel(hlx_builder_t* b, int64_t channel,
                                 int64_t type) {
  hlx_attr_t* h = hlx_bld_attr_new(b, HLX_ATTR_STRUCT);
  if (!h) return NULL;
  h->str = "stablehlo.channel_handle";
  h->dict = hlx_bld_balloc(b, sizeof(hlx_named_attr_t) * 2);
  hlx_attr_t* hv = hlx_bld_attr_new(b, HLX_ATTR_INT);
  hlx_attr_t* tv = hlx_bld_attr_new(b, HLX_ATTR_INT);
  if (!h->dict || !hv || !tv) return NULL;
  hv->i = channel;
  tv->i = type;
  h->dict[0].name = "handle";
  h->dict[0].value = hv;
  h->dict[1].name = "type";
  h->dict[1].value = tv;
  h->count = 2;
  return h;
}

/* Appends replica_groups (always) and channel_handle (when channel > 0). */
static hlx_status_t group_attrs(hlx_builder_t* b, const char* kOp,
                                const int64_t* groups, int32_t num_groups,
                                int32_t group_size, int64_t channel,
                                const char* groups_name, named_t* attrs,
                                int32_t* n) {
  if (num_groups < 0 || group_size < 0 || (num_groups > 0 && !groups) ||
      (num_groups > 0 && group_size == 0))
    return hlx_bld_fail(b, kOp, "bad %s: %d groups of %d", groups_name,
                        (int)num_groups, (int)group_size);
  for (int64_t i = 0; i < (int64_t)num_groups * group_size; i++)
    if (groups[i] < 0)
      return hlx_bld_fail(b, kOp, "%s has a negative id %lld", groups_name,
                          (long long)groups[i]);
  if (channel < 0)
    return hlx_bld_fail(b, kOp, "channel_id %lld is negative",
                        (long long)channel);
  attrs[*n].name = groups_name;
  attrs[*n].value = hlx_bld_attr_dense_i64(b, groups, num_groups,
                                           num_groups ? group_size : 0);
  (*n)++;
  if (channel > 0) {
    attrs[*n].name = "channel_handle";
    attrs[*n].value = hlx_bld_attr_channel(b, channel, 1);
    (*n)++;
  }
  return NULL;
}

static hlx_status_t check_dim(hlx_builder_t* b, const char* kOp,
                              const char* name, int64_t d, int32_t rank) {
  if (d < 0 || d >= rank)
    return hlx_bld_fail(b, kOp, "%s %lld is out of range for rank %d", name,
                        (long long)d, (int)rank);
  return NULL;
}

/* shard_count >= 1 and, with groups, equal to their size. */
static hlx_status_t check_count(hlx_builder_t* b, const char* kOp,
                                const char* name, int64_t count,
                                int32_t num_groups, int32_t group_size) {
  if (count < 1)
    return hlx_bld_fail(b, kOp, "%s %lld must be >= 1", name, (long long)count);
  if (num_groups > 0 && count != group_size)
    return hlx_bld_fail(b, kOp, "%s %lld differs from the replica group size "
                        "%d", name, (long long)count, (int)group_size);
  return NULL;
}

/* n (1..64) tensor operands into vs. */
static hlx_status_t tensor_operands(hlx_builder_t* b, const char* kOp,
                                    const uint32_t* operands, int32_t n,
                                    hlx_value_t** vs) {
  if (n < 1 || n > 64 || !operands)
    return hlx_bld_fail(b, kOp, "needs 1 to 64 operands, got %d", (int)n);
  HLX_RETURN_IF_ERROR(hlx_bld_get_values(b, kOp, operands, n, vs, NULL));
  for (int32_t i = 0; i < n; i++)
    if (vs[i]->type->kind != HLX_TYPE_TENSOR)
      return hlx_bld_fail(b, kOp, "operand %d must be a tensor", (int)i);
  return NULL;
}

/* Operands of one element type and a (E, E) -> E computation over it:
 * XLA applies the one computation to every element of the tuple. */
static hlx_status_t same_type_reducer(hlx_builder_t* b, const char* kOp,
                                      hlx_value_t* const* vs, int32_t n,
                                      const hlx_computation_t* computation) {
  hlx_dtype_t dt = vs[0]->type->dtype;
  for (int32_t i = 1; i < n; i++)
    if (vs[i]->type->dtype != dt)
      return hlx_bld_fail(b, kOp, "operand %d has element type %s, operand 0 "
                          "%s", (int)i, hlx_dtype_name(vs[i]->type->dtype),
                          hlx_dtype_name(dt));
  return hlx_bld_check_scalar_computation(b, kOp, "computation", computation,
                                          2, dt, 1, dt);
}

hlx_status_t hlx_builder_all_reduce_variadic(
    hlx_builder_t* b, const uint32_t* operands, int32_t n,
    const hlx_computation_t* computation, const int64_t* replica_groups,
    int32_t num_groups, int32_t group_size, int64_t channel_id,
    uint32_t* out_value) {
  static const char kOp[] = "all_reduce";
  BEGIN(b, out_value, kOp);
  hlx_value_t* vs[64];
  hlx_type_t* ts[64];
  HLX_RETURN_IF_ERROR(tensor_operands(b, kOp, operands, n, vs));
  for (int32_t i = 0; i < n; i++) ts[i] = vs[i]->type;
  HLX_RETURN_IF_ERROR(same_type_reducer(b, kOp, vs, n, computation));
  named_t attrs[2];
  int32_t na = 0;
  HLX_RETURN_IF_ERROR(group_attrs(b, kOp, replica_groups, num_groups,
                                  group_size, channel_id, "replica_groups",
                                  attrs, &na));
  hlx_op_t* op = hlx_bld_emit(b, HLX_OP_ALL_REDUCE, vs, n, ts, n, attrs, na);
  if (!op) return hlx_bld_oom(b);
  HLX_RETURN_IF_ERROR(hlx_bld_attach_regions(b, op, &computation, NULL, 1));
  return hlx_bld_results_value(b, op, out_value);
}

hlx_status_t hlx_builder_all_reduce(hlx_builder_t* b, uint32_t operand,
                                    const hlx_computation_t* computation,
                                    const int64_t* replica_groups,
                                    int32_t num_groups, int32_t group_size,
                                    int64_t channel_id, uint32_t* out_value) {
  return hlx_builder_all_reduce_variadic(b, &operand, 1, computation,
                                         replica_groups, num_groups,
                                         group_size, channel_id, out_value);
}

hlx_status_t hlx_builder_cross_replica_sum(hlx_builder_t* b, uint32_t operand,
                                           const int64_t* replica_groups,
                                           int32_t num_groups,
                                           int32_t group_size,
                                           uint32_t* out_value) {
  static const char kOp[] = "cross_replica_sum";
  BEGIN(b, out_value, kOp);
  hlx_value_t* x = NULL;
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "operand", operand, &x));
  /* The (a, b) -> a + b computation, made with a nested builder. */
  hlx_tensor_desc_t d;
  memset(&d, 0, sizeof d);
  d.element_type = (hlx_element_type_t)x->type->dtype;
  hlx_builder_t* sb = NULL;
  hlx_computation_t* add = NULL;
  uint32_t p0, p1, sum;
  hlx_status_t st = hlx_builder_create("add", &sb);
  if (!st) st = hlx_builder_parameter(sb, 0, &d, NULL, &p0);
  if (!st) st = hlx_builder_parameter(sb, 1, &d, NULL, &p1);
  if (!st) st = hlx_builder_binary(sb, HLX_BINARY_ADD, p0, p1, NULL, 0, &sum);
  if (!st) st = hlx_builder_build_computation(sb, &sum, 1, &add);
  hlx_builder_destroy(sb);
  if (st) {
    hlx_status_t e = hlx_bld_fail(b, kOp, "%s", hlx_status_get_message(st));
    hlx_status_release(st);
    return e;
  }
  st = hlx_builder_all_reduce(b, operand, add, replica_groups, num_groups,
                              group_size, 0, out_value);
  hlx_computation_destroy(add);
  return st;
}

/* How a collective resizes its operands: dimension `split` (< 0: none)
 * shrinks count times, `concat` (< 0: none) grows count times. */
typedef struct shard_rule_t {
  const char* split_name;
  int64_t split;
  const char* concat_name;
  int64_t concat;
  const char* count_name;
  int64_t count;
} shard_rule_t;

/* Looks up n tensor operands into vs, checks the rule for each and makes
 * their result types (rts). */
static hlx_status_t sharded_types(hlx_builder_t* b, const char* kOp,
                                  const uint32_t* operands, int32_t n,
                                  const shard_rule_t* rule, int32_t num_groups,
                                  int32_t group_size, hlx_value_t** vs,
                                  hlx_type_t** rts) {
  HLX_RETURN_IF_ERROR(tensor_operands(b, kOp, operands, n, vs));
  HLX_RETURN_IF_ERROR(check_count(b, kOp, rule->count_name, rule->count,
                                  num_groups, group_size));
  for (int32_t i = 0; i < n; i++) {
    const hlx_type_t* t = vs[i]->type;
    int64_t dims[HLX_MAX_RANK];
    memcpy(dims, t->dims, sizeof(int64_t) * (size_t)t->rank);
    if (rule->split_name) {
      HLX_RETURN_IF_ERROR(
          check_dim(b, kOp, rule->split_name, rule->split, t->rank));
      if (dims[rule->split] % rule->count != 0)
        return hlx_bld_fail(b, kOp, "%s size %lld of operand %d is not a "
                            "multiple of %s %lld", rule->split_name,
                            (long long)dims[rule->split], (int)i,
                            rule->count_name, (long long)rule->count);
      dims[rule->split] /= rule->count;
    }
    if (rule->concat_name) {
      HLX_RETURN_IF_ERROR(
          check_dim(b, kOp, rule->concat_name, rule->concat, t->rank));
      dims[rule->concat] *= rule->count;
    }
    rts[i] = hlx_bld_tensor_type(&b->module->arena, t->dtype, t->rank, dims);
    if (!rts[i]) return hlx_bld_oom(b);
  }
  return NULL;
}

hlx_status_t hlx_builder_all_gather_variadic(
    hlx_builder_t* b, const uint32_t* operands, int32_t n,
    int64_t all_gather_dimension, int64_t shard_count,
    const int64_t* replica_groups, int32_t num_groups, int32_t group_size,
    int64_t channel_id, uint32_t* out_value) {
  static const char kOp[] = "all_gather";
  BEGIN(b, out_value, kOp);
  hlx_value_t* vs[64];
  hlx_type_t* rts[64];
  shard_rule_t rule = {NULL, -1, "all_gather_dimension", all_gather_dimension,
                       "shard_count", shard_count};
  HLX_RETURN_IF_ERROR(sharded_types(b, kOp, operands, n, &rule, num_groups,
                                    group_size, vs, rts));
  named_t attrs[3] = {{"all_gather_dim", hlx_bld_attr_int(
                           b, all_gather_dimension, HLX_DTYPE_S64)}};
  int32_t na = 1;
  HLX_RETURN_IF_ERROR(group_attrs(b, kOp, replica_groups, num_groups,
                                  group_size, channel_id, "replica_groups",
                                  attrs, &na));
  hlx_op_t* op = hlx_bld_emit(b, HLX_OP_ALL_GATHER, vs, n, rts, n, attrs, na);
  if (!op) return hlx_bld_oom(b);
  return hlx_bld_results_value(b, op, out_value);
}

hlx_status_t hlx_builder_all_gather(hlx_builder_t* b, uint32_t operand,
                                    int64_t all_gather_dimension,
                                    int64_t shard_count,
                                    const int64_t* replica_groups,
                                    int32_t num_groups, int32_t group_size,
                                    int64_t channel_id, uint32_t* out_value) {
  return hlx_builder_all_gather_variadic(b, &operand, 1, all_gather_dimension,
                                         shard_count, replica_groups,
                                         num_groups, group_size, channel_id,
                                         out_value);
}

/* StableHLO's reduce_scatter takes one operand, so XLA's tuple form
 * becomes one reduce_scatter per operand (each reduces and scatters its
 * element independently, which is what the tuple form means). */
hlx_status_t hlx_builder_reduce_scatter_variadic(
    hlx_builder_t* b, const uint32_t* operands, int32_t n,
    const hlx_computation_t* computation, int64_t scatter_dimension,
    int64_t shard_count, const int64_t* replica_groups, int32_t num_groups,
    int32_t group_size, int64_t channel_id, uint32_t* out_value) {
  static const char kOp[] = "reduce_scatter";
  BEGIN(b, out_value, kOp);
  hlx_value_t* vs[64];
  hlx_type_t* rts[64];
  shard_rule_t rule = {"scatter_dimension", scatter_dimension, NULL, -1,
                       "shard_count", shard_count};
  HLX_RETURN_IF_ERROR(sharded_types(b, kOp, operands, n, &rule, num_groups,
                                    group_size, vs, rts));
  HLX_RETURN_IF_ERROR(same_type_reducer(b, kOp, vs, n, computation));
  uint32_t ids[64];
  for (int32_t i = 0; i < n; i++) {
    named_t attrs[3] = {{"scatter_dimension", hlx_bld_attr_int(
                             b, scatter_dimension, HLX_DTYPE_S64)}};
    int32_t na = 1;
    HLX_RETURN_IF_ERROR(group_attrs(b, kOp, replica_groups, num_groups,
                                    group_size, channel_id, "replica_groups",
                                    attrs, &na));
    hlx_value_t* r = NULL;
    HLX_RETURN_IF_ERROR(hlx_bld_emit1(b, HLX_OP_REDUCE_SCATTER, &vs[i], 1,
                                      rts[i], attrs, na, &r, &ids[i]));
    HLX_RETURN_IF_ERROR(
        hlx_bld_attach_regions(b, r->def, &computation, NULL, 1));
  }
  if (n == 1) {
    *out_value = ids[0];
    return NULL;
  }
  return hlx_builder_tuple(b, ids, n, out_value);
}

hlx_status_t hlx_builder_reduce_scatter(hlx_builder_t* b, uint32_t operand,
                                        const hlx_computation_t* computation,
                                        int64_t scatter_dimension,
                                        int64_t shard_count,
                                        const int64_t* replica_groups,
                                        int32_t num_groups, int32_t group_size,
                                        int64_t channel_id,
                                        uint32_t* out_value) {
  return hlx_builder_reduce_scatter_variadic(
      b, &operand, 1, computation, scatter_dimension, shard_count,
      replica_groups, num_groups, group_size, channel_id, out_value);
}

hlx_status_t hlx_builder_all_to_all_variadic(
    hlx_builder_t* b, const uint32_t* operands, int32_t n,
    int64_t split_dimension, int64_t concat_dimension, int64_t split_count,
    const int64_t* replica_groups, int32_t num_groups, int32_t group_size,
    uint32_t* out_value) {
  static const char kOp[] = "all_to_all";
  BEGIN(b, out_value, kOp);
  hlx_value_t* vs[64];
  hlx_type_t* rts[64];
  shard_rule_t rule = {"split_dimension", split_dimension, "concat_dimension",
                       concat_dimension, "split_count", split_count};
  HLX_RETURN_IF_ERROR(sharded_types(b, kOp, operands, n, &rule, num_groups,
                                    group_size, vs, rts));
  named_t attrs[4] = {
      {"split_dimension", hlx_bld_attr_int(b, split_dimension, HLX_DTYPE_S64)},
      {"concat_dimension", hlx_bld_attr_int(b, concat_dimension, HLX_DTYPE_S64)},
      {"split_count", hlx_bld_attr_int(b, split_count, HLX_DTYPE_S64)}};
  int32_t na = 3;
  HLX_RETURN_IF_ERROR(group_attrs(b, kOp, replica_groups, num_groups,
                                  group_size, 0, "replica_groups", attrs, &na));
  hlx_op_t* op = hlx_bld_emit(b, HLX_OP_ALL_TO_ALL, vs, n, rts, n, attrs, na);
  if (!op) return hlx_bld_oom(b);
  return hlx_bld_results_value(b, op, out_value);
}

hlx_status_t hlx_builder_all_to_all(hlx_builder_t* b, uint32_t operand,
                                    int64_t split_dimension,
                                    int64_t concat_dimension,
                                    int64_t split_count,
                                    const int64_t* replica_groups,
                                    int32_t num_groups, int32_t group_size,
                                    uint32_t* out_value) {
  return hlx_builder_all_to_all_variadic(b, &operand, 1, split_dimension,
                                         concat_dimension, split_count,
                                         replica_groups, num_groups,
                                         group_size, out_value);
}

hlx_status_t hlx_builder_collective_permute(hlx_builder_t* b, uint32_t operand,
                                            const int64_t* source_target_pairs,
                                            int32_t num_pairs,
                                            int64_t channel_id,
                                            uint32_t* out_value) {
  static const char kOp[] = "collective_permute";
  BEGIN(b, out_value, kOp);
  hlx_value_t* x = NULL;
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "operand", operand, &x));
  for (int32_t i = 0; i < num_pairs && source_target_pairs; i++)
    for (int32_t j = 0; j < i; j++) {
      if (source_target_pairs[2 * i] == source_target_pairs[2 * j])
        return hlx_bld_fail(b, kOp, "source %lld appears in two pairs",
                            (long long)source_target_pairs[2 * i]);
      if (source_target_pairs[2 * i + 1] == source_target_pairs[2 * j + 1])
        return hlx_bld_fail(b, kOp, "target %lld appears in two pairs",
                            (long long)source_target_pairs[2 * i + 1]);
    }
  named_t attrs[2];
  int32_t na = 0;
  HLX_RETURN_IF_ERROR(group_attrs(b, kOp, source_target_pairs, num_pairs, 2,
                                  channel_id, "source_target_pairs", attrs,
                                  &na));
  return hlx_bld_emit1(b, HLX_OP_COLLECTIVE_PERMUTE, &x, 1, x->type, attrs, na,
                       NULL, out_value);
}

hlx_status_t hlx_builder_replica_id(hlx_builder_t* b, uint32_t* out_value) {
  static const char kOp[] = "replica_id";
  BEGIN(b, out_value, kOp);
  hlx_type_t* t = hlx_bld_tensor_type(&b->module->arena, HLX_DTYPE_U32, 0, NULL);
  if (!t) return hlx_bld_oom(b);
  return hlx_bld_emit1(b, HLX_OP_REPLICA_ID, NULL, 0, t, NULL, 0, NULL,
                       out_value);
}
