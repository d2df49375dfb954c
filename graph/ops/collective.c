/* The collectives' Constraints: the static ones (replica_groups /
 * source_target_pairs uniqueness and sign, channel ids, dimension
 * attributes, the reduction computation's signature and the result types)
 * and, once the run's replicas x partitions are known at compile time
 * (graph/ops/process_counts.c), those that depend on them: the ids' upper
 * bound, replica_groups naming every replica (process) once, and the
 * result shapes that follow from the group size. */
#include <string.h>

#include "graph/ir/attr.h"
#include "graph/ops/family.h"

/* The rule numbers of one op's Constraints list (0 = the op has no such
 * rule). */
typedef struct labels_t {
  int unique, nonneg, global_channel, computation, result_type;
} labels_t;

typedef struct groups_t {
  int32_t rows, cols;
  const int64_t* v;
} groups_t;

/* A 2-D si64 dense attribute; absent = empty. Other forms are left to the
 * lowering, which names them. */
static bool read_groups(const hlx_op_t* op, const char* name, groups_t* g) {
  g->rows = g->cols = 0;
  g->v = NULL;
  const hlx_attr_t* a = hlx_op_attr(op, name);
  if (!a) return true;
  if (a->kind != HLX_ATTR_DENSE || !a->type || a->type->rank != 2 ||
      a->type->dtype != HLX_DTYPE_S64)
    return false;
  g->rows = (int32_t)a->type->dims[0];
  g->cols = (int32_t)a->type->dims[1];
  g->v = a->dense;
  return true;
}

/* Ids must be >= 0 (-1 pads ragged groups) and appear once. */
static hlx_status_t check_ids(const hlx_op_t* op, const char* name,
                              const groups_t* g, int unique_rule,
                              int nonneg_rule) {
  int32_t n = g->rows * g->cols;
  for (int32_t i = 0; i < n; i++) {
    int64_t v = g->v[i];
    if (v < -1)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C%d) %s has id %lld, ids must be >= 0",
                          nonneg_rule, name, (long long)v);
    for (int32_t k = 0; k < i && v >= 0; k++)
      if (g->v[k] == v)
        return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                            "(C%d) %s has id %lld twice", unique_rule, name,
                            (long long)v);
  }
  return NULL;
}

static bool flag(const hlx_op_t* op, const char* name) {
  const hlx_attr_t* a = hlx_op_attr(op, name);
  return a && (a->kind == HLX_ATTR_UNIT || (a->kind == HLX_ATTR_BOOL && a->b));
}

static int64_t channel_id(const hlx_op_t* op) {
  const hlx_attr_t* a = hlx_op_attr(op, "channel_handle");
  if (!a) a = hlx_op_attr(op, "channel_id");
  if (a && a->kind == HLX_ATTR_INT) return a->i;
  if (a && (a->kind == HLX_ATTR_STRUCT || a->kind == HLX_ATTR_DICT)) {
    const hlx_attr_t* h = hlx_attr_dict_get(a, "handle");
    if (h && h->kind == HLX_ATTR_INT) return h->i;
  }
  return 0;
}

static const hlx_type_t* tensor(const hlx_value_t* v) {
  const hlx_type_t* t = v->type;
  return t->kind == HLX_TYPE_TENSOR && t->rank <= HLX_MAX_RANK ? t : NULL;
}

static bool same_shape(const hlx_type_t* a, const hlx_type_t* b) {
  if (a->rank != b->rank) return false;
  for (int32_t d = 0; d < a->rank; d++)
    if (a->dims[d] != b->dims[d]) return false;
  return true;
}

/* is_promotable(from, to): the same type, or a wider one of its kind. */
static bool promotable(hlx_dtype_t from, hlx_dtype_t to) {
  if (from == to) return true;
  bool same_kind =
      (hlx_dtype_is_float(from) && hlx_dtype_is_float(to)) ||
      (hlx_dtype_is_complex(from) && hlx_dtype_is_complex(to)) ||
      (hlx_dtype_is_signed_int(from) && hlx_dtype_is_signed_int(to)) ||
      (hlx_dtype_is_unsigned_int(from) && hlx_dtype_is_unsigned_int(to));
  return same_kind && hlx_dtype_bits(to) >= hlx_dtype_bits(from);
}

/* computation: (tensor<E>, tensor<E>) -> tensor<E> with operand element
 * types promotable to E; results have element type E (result_rule). */
static hlx_status_t check_computation(const hlx_op_t* op, int32_t n,
                                      int rule, int result_rule) {
  if (op->num_regions < 1 || op->regions[0]->num_blocks != 1 ||
      op->regions[0]->blocks[0]->num_ops < 1)
    return NULL; /* the lowering / region checks name these */
  const hlx_block_t* b = op->regions[0]->blocks[0];
  const hlx_op_t* ret = b->ops[b->num_ops - 1];
  const hlx_type_t* e = b->num_args == 2 ? b->args[0]->type : NULL;
  bool ok = e && e->kind == HLX_TYPE_TENSOR && e->rank == 0 &&
            hlx_type_equal(b->args[1]->type, e) && ret->num_operands == 1 &&
            hlx_type_equal(ret->operands[0]->type, e);
  if (!ok)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C%d) computation must have type (tensor<E>, "
                        "tensor<E>) -> tensor<E>",
                        rule);
  if (e->quant) return NULL;
  for (int32_t j = 0; j < n; j++) {
    const hlx_type_t* t = tensor(op->operands[j]);
    if (t && !t->quant && !promotable(t->dtype, e->dtype))
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C%d) operand #%d's element type %s is not "
                          "promotable to the computation's %s",
                          rule, j, hlx_dtype_name(t->dtype),
                          hlx_dtype_name(e->dtype));
    const hlx_type_t* r = j < op->num_results ? tensor(op->results[j]) : NULL;
    if (r && !r->quant && r->dtype != e->dtype)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C%d) result #%d has element type %s, the "
                          "computation's is %s",
                          result_rule, j, hlx_dtype_name(r->dtype),
                          hlx_dtype_name(e->dtype));
  }
  return NULL;
}

/* (rule) one result per operand, at least one. */
static hlx_status_t result_count(const hlx_op_t* op, int32_t n, int rule) {
  if (n < 1 || op->num_results != n)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C%d) has %d results for %d operands", rule,
                        op->num_results, n);
  return NULL;
}

/* Results have the operands' types, except along `dim` where the result
 * size is the operand's * mul / div (mul = div = 1: no exception). A
 * zero factor (unknown group size) skips that dim. */
static hlx_status_t check_result_types(const hlx_op_t* op, int32_t n,
                                       int rule, int64_t dim, int64_t mul,
                                       int64_t div, int64_t dim2,
                                       int64_t mul2) {
  HLX_RETURN_IF_ERROR(result_count(op, n, rule));
  for (int32_t j = 0; j < n; j++) {
    const hlx_type_t* t = tensor(op->operands[j]);
    const hlx_type_t* r = tensor(op->results[j]);
    if (!t || !r) continue;
    if (t->dtype != r->dtype || r->rank != t->rank)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C%d) result #%d's type differs from operand "
                          "#%d's",
                          rule, j, j);
    for (int32_t d = 0; d < t->rank; d++) {
      int64_t want = t->dims[d];
      if (want == HLX_DYNAMIC_DIM || r->dims[d] == HLX_DYNAMIC_DIM) continue;
      if (d == dim && d == dim2) {
        /* split_dimension = concat_dimension: the size is kept */
      } else if (d == dim) {
        if (!mul || !div) continue;
        want = want * mul / div;
      } else if (d == dim2) {
        if (!mul2) continue;
        want *= mul2;
      }
      if (r->dims[d] != want)
        return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                            "(C%d) result #%d dim %d has size %lld, expected "
                            "%lld",
                            rule, j, d, (long long)r->dims[d],
                            (long long)want);
    }
  }
  return NULL;
}

/* (rule) one result per operand (n >= 1), of the operand's shape. */
static hlx_status_t check_result_shapes(const hlx_op_t* op, int32_t n,
                                        int rule) {
  HLX_RETURN_IF_ERROR(result_count(op, n, rule));
  for (int32_t j = 0; j < n; j++) {
    const hlx_type_t* t = tensor(op->operands[j]);
    const hlx_type_t* r = tensor(op->results[j]);
    if (t && r && !same_shape(t, r))
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C%d) result #%d's shape differs from operand "
                          "#%d's",
                          rule, j, j);
  }
  return NULL;
}

/* An integer attribute; false when absent or not an integer. */
static bool int_attr(const hlx_op_t* op, const char* name, int64_t* v) {
  const hlx_attr_t* a = hlx_op_attr(op, name);
  if (!a || a->kind != HLX_ATTR_INT) return false;
  *v = a->i;
  return true;
}

/* (rule) 0 <= dim < rank of every operand. */
static hlx_status_t check_dim(const hlx_op_t* op, int32_t n, const char* name,
                              int64_t dim, int rule) {
  for (int32_t j = 0; j < n; j++) {
    const hlx_type_t* t = tensor(op->operands[j]);
    if (t && (dim < 0 || dim >= t->rank))
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C%d) %s %lld is out of range for operand #%d of "
                          "rank %d",
                          rule, name, (long long)dim, j, t->rank);
  }
  return NULL;
}

static hlx_status_t check_replica_groups(const hlx_op_t* op, groups_t* g,
                                         const labels_t* l) {
  if (!read_groups(op, "replica_groups", g)) return NULL;
  HLX_RETURN_IF_ERROR(
      check_ids(op, "replica_groups", g, l->unique, l->nonneg));
  if (l->global_channel && flag(op, "use_global_device_ids") &&
      channel_id(op) <= 0)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C%d) use_global_device_ids needs channel_id > 0",
                        l->global_channel);
  return NULL;
}

/* dim(process_groups, 1) when it is static: the replica group size, except
 * in cross_replica_and_partition mode (a channel, no global ids) where each
 * group spans the partitions too (StableHLO issue 1933); 0 = unknown. */
static int64_t group_size(const hlx_op_t* op, const groups_t* g) {
  if (channel_id(op) > 0 && !flag(op, "use_global_device_ids")) return 0;
  return g->cols;
}

static hlx_status_t verify_all_gather(const hlx_op_t* op) {
  static const labels_t l = {2, 4, 5, 0, 6};
  groups_t g;
  HLX_RETURN_IF_ERROR(check_replica_groups(op, &g, &l));
  int64_t dim;
  if (!int_attr(op, "all_gather_dim", &dim)) return NULL;
  HLX_RETURN_IF_ERROR(check_dim(op, op->num_operands, "all_gather_dim", dim, 1));
  return check_result_types(op, op->num_operands, 6, dim, group_size(op, &g),
                            1, -1, 0);
}

static hlx_status_t verify_all_reduce(const hlx_op_t* op) {
  static const labels_t l = {1, 3, 4, 5, 7};
  groups_t g;
  HLX_RETURN_IF_ERROR(check_replica_groups(op, &g, &l));
  int32_t n = op->num_operands;
  HLX_RETURN_IF_ERROR(check_result_shapes(op, n, 6));
  return check_computation(op, n, l.computation, l.result_type);
}

static hlx_status_t verify_reduce_scatter(const hlx_op_t* op) {
  static const labels_t l = {3, 5, 6, 7, 9};
  groups_t g;
  HLX_RETURN_IF_ERROR(check_replica_groups(op, &g, &l));
  int64_t dim;
  if (int_attr(op, "scatter_dimension", &dim)) {
    HLX_RETURN_IF_ERROR(check_dim(op, 1, "scatter_dimension", dim, 2));
    const hlx_type_t* t = tensor(op->operands[0]);
    int64_t size = group_size(op, &g);
    if (t && size > 0 && t->dims[dim] != HLX_DYNAMIC_DIM &&
        t->dims[dim] % size)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C1) dim(operand, %lld) = %lld is not a multiple "
                          "of the group size %lld",
                          (long long)dim, (long long)t->dims[dim],
                          (long long)size);
    HLX_RETURN_IF_ERROR(check_computation(op, 1, l.computation, l.result_type));
    return check_result_types(op, 1, 8, dim, 1, size, -1, 0);
  }
  return check_computation(op, 1, l.computation, l.result_type);
}

static hlx_status_t verify_all_to_all(const hlx_op_t* op) {
  static const labels_t l = {5, 7, 0, 0, 9};
  groups_t g;
  HLX_RETURN_IF_ERROR(check_replica_groups(op, &g, &l));
  int64_t split, concat, count;
  if (!int_attr(op, "split_dimension", &split) ||
      !int_attr(op, "concat_dimension", &concat) ||
      !int_attr(op, "split_count", &count))
    return NULL;
  int32_t n = op->num_operands;
  HLX_RETURN_IF_ERROR(check_dim(op, n, "split_dimension", split, 1));
  HLX_RETURN_IF_ERROR(check_dim(op, n, "concat_dimension", concat, 3));
  if (count <= 0)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C4) split_count %lld must be > 0",
                        (long long)count);
  for (int32_t j = 0; j < n; j++) {
    const hlx_type_t* t = tensor(op->operands[j]);
    if (t && t->dims[split] != HLX_DYNAMIC_DIM && t->dims[split] % count)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C2) operand #%d dim %lld has size %lld, not a "
                          "multiple of split_count %lld",
                          j, (long long)split, (long long)t->dims[split],
                          (long long)count);
  }
  if (g.rows && g.cols != count)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C8) replica groups have %d members, split_count is "
                        "%lld",
                        g.cols, (long long)count);
  return check_result_types(op, n, 9, split, 1, count, concat, count);
}

/* send/recv (C5): channel_type follows is_host_transfer. Types: 1
 * DEVICE_TO_DEVICE, 2 DEVICE_TO_HOST, 3 HOST_TO_DEVICE. */
static hlx_status_t check_channel_type(const hlx_op_t* op) {
  const hlx_attr_t* a = hlx_op_attr(op, "channel_handle");
  const hlx_attr_t* t =
      a && (a->kind == HLX_ATTR_STRUCT || a->kind == HLX_ATTR_DICT)
          ? hlx_attr_dict_get(a, "type")
          : NULL;
  if (!t || t->kind != HLX_ATTR_INT) return NULL;
  int64_t want = !flag(op, "is_host_transfer") ? 1
                 : op->code == HLX_OP_SEND      ? 2
                                                : 3;
  /* The spec says DEVICE_TO_HOST for a host recv too; MLIR's verifier
   * wants HOST_TO_DEVICE: accept both. */
  bool ok = t->i == want || (want == 3 && t->i == 2);
  if (!ok)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C5) channel_type is %lld, must be %lld (%s) when "
                        "is_host_transfer is %s",
                        (long long)t->i, (long long)want,
                        want == 1 ? "DEVICE_TO_DEVICE"
                        : want == 2 ? "DEVICE_TO_HOST"
                                    : "HOST_TO_DEVICE",
                        want == 1 ? "false" : "true");
  return NULL;
}

static hlx_status_t verify_permute(const hlx_op_t* op) {
  groups_t g;
  if (!read_groups(op, "source_target_pairs", &g)) return NULL;
  if (g.rows && g.cols != 2)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C1) source_target_pairs must have shape [N, 2], "
                        "has [%d, %d]",
                        g.rows, g.cols);
  for (int32_t i = 0; i < 2 * g.rows; i++) {
    if (g.v[i] < 0)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C4) source_target_pairs has id %lld, ids must "
                          "be >= 0",
                          (long long)g.v[i]);
    for (int32_t k = i % 2; k < i; k += 2)
      if (g.v[k] == g.v[i])
        return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                            "(C%d) %s %lld appears twice in "
                            "source_target_pairs",
                            i % 2 ? 3 : 2, i % 2 ? "target" : "source",
                            (long long)g.v[i]);
  }
  if (op->code == HLX_OP_COLLECTIVE_PERMUTE)
    return check_result_types(op, op->num_operands, 5, -1, 1, 1, -1, 0);
  return check_channel_type(op);
}

static hlx_status_t verify_broadcast(const hlx_op_t* op) {
  groups_t g;
  if (read_groups(op, "replica_groups", &g))
    HLX_RETURN_IF_ERROR(check_ids(op, "replica_groups", &g, 1, 2));
  bool dyn = flag(op, "has_dynamic_root");
  int32_t n = op->num_operands - (dyn ? 1 : 0);
  if (n < 1)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C%d) needs at least %d operands", dyn ? 4 : 3,
                        dyn ? 2 : 1);
  if (op->num_results != n)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C5) has %d results, needs %d", op->num_results, n);
  if (dyn) {
    const hlx_type_t* rt = tensor(op->operands[n]);
    if (!rt || rt->quant || rt->dtype != HLX_DTYPE_S32 || rt->rank != 1 ||
        rt->dims[0] != n)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C4) the last operand must be tensor<%dxi32>", n);
  }
  for (int32_t j = 0; j < n; j++)
    if (!hlx_type_equal(op->operands[j]->type, op->results[j]->type))
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C%d) result #%d's type differs from operand "
                          "#%d's",
                          dyn ? 4 : 3, j, j);
  return NULL;
}

static hlx_status_t verify_collective_reduce(const hlx_op_t* op) {
  groups_t g;
  if (read_groups(op, "replica_groups", &g))
    HLX_RETURN_IF_ERROR(check_ids(op, "replica_groups", &g, 1, 2));
  bool dyn = flag(op, "has_dynamic_root");
  int32_t n = op->num_operands - (dyn ? 1 : 0);
  if (dyn) {
    const hlx_type_t* rt = n >= 1 ? tensor(op->operands[n]) : NULL;
    if (!rt || rt->rank != 1 || rt->dims[0] != n)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C3) the last operand must have %d elements", n);
  }
  HLX_RETURN_IF_ERROR(check_result_shapes(op, n, 3));
  return check_computation(op, n, 4, 4);
}

/* ---- rules that depend on the number of processes ---------------------- */

/* How an op splits the replicas x partitions grid into process groups
 * (the spec's cross_replica, cross_partition, cross_replica_and_partition,
 * flattened_ids). */
typedef enum grid_mode_t {
  CROSS_REPLICA,
  CROSS_PARTITION,
  CROSS_REPLICA_AND_PARTITION,
  FLATTENED_IDS,
} grid_mode_t;

/* One op's count-dependent rules: the rule numbers (0 = the op has no
 * such rule) and what its process groups are. */
typedef struct count_rules_t {
  int size;  /* size(replica_groups) is the number of replicas (processes) */
  int below; /* ids < that number */
  int shape; /* result dims that follow from the group size */
  bool three_modes; /* all_reduce, all_gather, reduce_scatter */
  bool pairs;       /* source_target_pairs instead of replica_groups */
} count_rules_t;

static bool count_rules(hlx_opcode_t code, count_rules_t* r) {
  static const struct {
    hlx_opcode_t code;
    count_rules_t rules;
  } kTable[] = {
      {HLX_OP_ALL_GATHER, {3, 4, 6, true, false}},
      {HLX_OP_ALL_REDUCE, {2, 3, 0, true, false}},
      /* XLA's CrossReplicaSum: all_reduce(add) across replicas. */
      {HLX_OP_CROSS_REPLICA_SUM, {2, 3, 0, false, false}},
      {HLX_OP_REDUCE_SCATTER, {4, 5, 8, true, false}},
      {HLX_OP_ALL_TO_ALL, {6, 7, 8, false, false}},
      {HLX_OP_COLLECTIVE_BROADCAST, {0, 2, 0, false, false}},
      {HLX_OP_COLLECTIVE_REDUCE, {0, 2, 0, false, false}},
      {HLX_OP_COLLECTIVE_PERMUTE, {0, 4, 0, false, true}},
      {HLX_OP_SEND, {0, 4, 0, false, true}},
      {HLX_OP_RECV, {0, 4, 0, false, true}},
  };
  for (size_t i = 0; i < sizeof kTable / sizeof kTable[0]; i++)
    if (kTable[i].code == code) {
      *r = kTable[i].rules;
      return true;
    }
  return false;
}

static grid_mode_t grid_mode(const hlx_op_t* op, const count_rules_t* r) {
  bool channel = channel_id(op) > 0;
  if (op->code == HLX_OP_CROSS_REPLICA_SUM || !channel) return CROSS_REPLICA;
  if (!r->three_modes) return CROSS_PARTITION;
  return flag(op, "use_global_device_ids") ? FLATTENED_IDS
                                           : CROSS_REPLICA_AND_PARTITION;
}

/* dim(process_groups, 1) for a replica group of `width` ids (width 0: no
 * replica_groups, one group of everyone the mode reaches). */
static int64_t process_group_size(grid_mode_t mode, int64_t width, int32_t R,
                                  int32_t P) {
  switch (mode) {
    case CROSS_REPLICA: return width ? width : R;
    case CROSS_PARTITION: return width ? width : P;
    case CROSS_REPLICA_AND_PARTITION: return (width ? width : R) * P;
    case FLATTENED_IDS: return width ? width : (int64_t)R * P;
  }
  return width;
}

/* The result dims that follow from a group of `size` processes:
 * all_gather concatenates `size` operands, reduce_scatter splits into
 * `size` parts, all_to_all exchanges split_count parts. */
static hlx_status_t check_group_shape(const hlx_op_t* op, int rule,
                                      int64_t size) {
  int64_t v;
  if (op->code == HLX_OP_ALL_TO_ALL) {
    if (int_attr(op, "split_count", &v) && v != size)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C%d) split_count %lld differs from the group "
                          "size %lld",
                          rule, (long long)v, (long long)size);
    return NULL;
  }
  bool gather = op->code == HLX_OP_ALL_GATHER;
  if (!int_attr(op, gather ? "all_gather_dim" : "scatter_dimension", &v))
    return NULL;
  for (int32_t j = 0; j < op->num_operands && j < op->num_results; j++) {
    const hlx_type_t* t = tensor(op->operands[j]);
    const hlx_type_t* r = tensor(op->results[j]);
    if (!t || !r || v < 0 || v >= t->rank || v >= r->rank ||
        t->dims[v] == HLX_DYNAMIC_DIM || r->dims[v] == HLX_DYNAMIC_DIM)
      continue;
    if (!gather && t->dims[v] % size)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C1) dim(operand, %lld) = %lld is not a multiple "
                          "of the group size %lld",
                          (long long)v, (long long)t->dims[v],
                          (long long)size);
    int64_t want = gather ? t->dims[v] * size : t->dims[v] / size;
    if (r->dims[v] != want)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C%d) result #%d dim %lld has size %lld, expected "
                          "%lld (%lld %s a group of %lld)",
                          rule, j, (long long)v, (long long)r->dims[v],
                          (long long)want, (long long)t->dims[v],
                          gather ? "x" : "/", (long long)size);
  }
  return NULL;
}

hlx_status_t hlx_verify_collective_counts(const hlx_op_t* op,
                                          int32_t num_replicas,
                                          int32_t num_partitions) {
  count_rules_t r;
  if (!count_rules(op->code, &r)) return NULL;
  groups_t g;
  if (!read_groups(op, r.pairs ? "source_target_pairs" : "replica_groups",
                   &g))
    return NULL; /* the static checks and the lowering name these */
  grid_mode_t mode = grid_mode(op, &r);
  int32_t R = num_replicas, P = num_partitions;
  /* send/recv name no mode: their ids must name processes. */
  bool p2p = op->code == HLX_OP_SEND || op->code == HLX_OP_RECV;
  int64_t n = p2p ? (int64_t)R * P
              : mode == CROSS_PARTITION ? P
              : mode == FLATTENED_IDS   ? (int64_t)R * P
                                        : R;
  const char* what = p2p || mode == FLATTENED_IDS ? "processes"
                     : mode == CROSS_PARTITION    ? "partitions"
                                                  : "replicas";
  const char* name = r.pairs ? "source_target_pairs" : "replica_groups";
  int64_t ids = 0;
  for (int32_t i = 0; i < g.rows * g.cols; i++) {
    if (g.v[i] >= n)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C%d) %s id %lld is not below %lld, the number "
                          "of %s",
                          r.below, name, (long long)g.v[i], (long long)n,
                          what);
    if (g.v[i] >= 0) ids++;
  }
  /* Ids are unique (static rule) and below n: n of them name everyone. */
  if (r.size && g.rows > 0 && g.cols > 0 && ids != n)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C%d) replica_groups has %lld ids, must have %lld: "
                        "each of the %lld %s once",
                        r.size, (long long)ids, (long long)n, (long long)n,
                        what);
  if (!r.shape) return NULL;
  /* Ragged groups (-1 padding) have sizes of their own. */
  for (int32_t i = 0; i < (g.rows ? g.rows : 1); i++) {
    int64_t width = 0;
    for (int32_t k = 0; k < g.cols && g.rows; k++)
      if (g.v[(size_t)i * g.cols + k] >= 0) width++;
    if (g.rows && !width) continue; /* a row of padding */
    HLX_RETURN_IF_ERROR(
        check_group_shape(op, r.shape, process_group_size(mode, width, R, P)));
  }
  return NULL;
}

static hlx_status_t verify(const hlx_op_t* op, const hlx_module_t* m) {
  (void)m;
  switch (op->code) {
    case HLX_OP_ALL_GATHER: return verify_all_gather(op);
    case HLX_OP_ALL_REDUCE: return verify_all_reduce(op);
    case HLX_OP_REDUCE_SCATTER: return verify_reduce_scatter(op);
    case HLX_OP_ALL_TO_ALL: return verify_all_to_all(op);
    case HLX_OP_COLLECTIVE_PERMUTE:
    case HLX_OP_SEND:
    case HLX_OP_RECV: return verify_permute(op);
    case HLX_OP_COLLECTIVE_BROADCAST: return verify_broadcast(op);
    case HLX_OP_COLLECTIVE_REDUCE: return verify_collective_reduce(op);
    default: return NULL;
  }
}

const hlx_op_rules_t hlx_op_rules_collective[] = {
    {HLX_OP_ALL_GATHER, verify, NULL},
    {HLX_OP_ALL_REDUCE, verify, NULL},
    {HLX_OP_REDUCE_SCATTER, verify, NULL},
    {HLX_OP_ALL_TO_ALL, verify, NULL},
    {HLX_OP_COLLECTIVE_PERMUTE, verify, NULL},
    {HLX_OP_SEND, verify, NULL},
    {HLX_OP_RECV, verify, NULL},
    {HLX_OP_COLLECTIVE_BROADCAST, verify, NULL},
    {HLX_OP_COLLECTIVE_REDUCE, verify, NULL},
    {HLX_OP_UNKNOWN, NULL, NULL},
};
