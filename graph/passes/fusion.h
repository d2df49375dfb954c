/* Elementwise fusion analysis over one block (a function body or a nested
 * region's block). The IR is not changed: lowering consults the result.
 *
 * A group is a set of fusible ops of one static output shape: elementwise
 * ops (unary, binary, compare, select, clamp, convert) plus the
 * broadcast_in_dim ops feeding them (chains of broadcasts included: they
 * compose into one strided read). It has exactly one output, the result
 * of its last member (the root); every other member's result is used only
 * by members of the same group (with multiplicity, counting uses in nested
 * regions and terminators). A value used outside therefore ends the group:
 * its producer becomes the root of a group of its own (or stays a plain
 * op). Operands defined outside the group (constants, parameters, results
 * of other ops, the operands of member broadcasts) are its inputs. Members
 * precede the root in program order, so emitting the group at the root's
 * position sees all its inputs defined. Groups have at least two members
 * and at least one elementwise op; a broadcast_in_dim is never a root.
 * A group may end in a reduce of its root's value (see reduce_ok below).
 * A cheap chain (broadcasts, add/subtract/multiply/max/min, negate) that
 * ends in such a reduce and whose value only one later group reads is
 * also recomputed by that group (member of both lists; group_of names the
 * reduce's group), so the value is never written (graph/passes/fusion.c); a group
 * that recomputes another's chain keeps its own value. */
#ifndef HLX_GRAPH_FUSION_H_
#define HLX_GRAPH_FUSION_H_

#include "graph/ir/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { HLX_FUSION_MAX_MEMBERS = 64, HLX_FUSION_MAX_INPUTS = 16 };

typedef struct hlx_fusion_t {
  int32_t num_ops;     /* of the block */
  /* Per group: the op index of a reduce absorbed as its last member (or
   * -1), and whether the elementwise root's value is an output too. */
  int32_t* reduce;
  unsigned char* keeps_value;
  int32_t* group_of;   /* per op index: its (emitting) group, or -1 */
  int32_t num_groups;
  int32_t* root;       /* per group: op index of its last member */
  int32_t* start;      /* per group g: members are member[start[g] ..
                          start[g + 1]), op indices in program order */
  int32_t* member;
  /* Per group: op index of the library op (convolution, dot_general) whose
   * result the group's other members post-process (an epilogue group, see
   * hlx_fusion_epilogue_fn, or a dot_general and the transpose that is
   * its result's one use), the root of a row group found by the same
   * callback (graph/lower/opt/row_fusion.h), or -1 for an elementwise group. */
  int32_t* head;
} hlx_fusion_t;

/* What a fusible opcode computes; *kernel_id receives the
 * hlx_unary_op_t / hlx_binary_op_t of UNARY / BINARY ops (names matched
 * through kernels/elementwise_ops.inc, so the two lists cannot drift). */
typedef enum hlx_fusion_kind_t {
  HLX_FUSION_NONE,
  HLX_FUSION_UNARY,
  HLX_FUSION_BINARY,
  HLX_FUSION_COMPARE,
  HLX_FUSION_SELECT,
  HLX_FUSION_CLAMP,
  HLX_FUSION_CONVERT,
  HLX_FUSION_BROADCAST, /* broadcast_in_dim */
} hlx_fusion_kind_t;
hlx_fusion_kind_t hlx_fusion_kind(hlx_opcode_t code, int32_t* kernel_id);

/* Whether `op` may be a group member on its own terms (kind, static
 * shapes, non-quantized element types, rank <= 8). */
bool hlx_fusion_op_fusible(const hlx_op_t* op);

/* Whether a stablehlo.reduce can be computed by a fused group from its
 * input's values (the lowering knows which reductions its kernels do). */
typedef bool (*hlx_fusion_reduce_ok_fn)(const hlx_op_t* reduce);

/* Groups of block b. `num_values` bounds the value ids of b (those of its
 * function). `skip` (per op index, may be NULL) excludes ops, e.g. dead
 * ones. With `reduce_ok`, a group also absorbs the reduce that is the
 * first user of its root's value (reduce_ok(op) holding): the reduce
 * becomes the last member, and the root's value stays an output only if
 * something else uses it (keeps_value). *out is malloc'd; free with
 * hlx_fusion_destroy. */
hlx_status_t hlx_fusion_analyze(const hlx_block_t* b, int32_t num_values,
                                const unsigned char* skip,
                                hlx_fusion_reduce_ok_fn reduce_ok,
                                hlx_fusion_t** out) HLX_MUST_USE;
void hlx_fusion_destroy(hlx_fusion_t* f);

/* Epilogue groups, found before elementwise groups, heads last to first
 * (so a chain that ends in another chain's value leaves that value to the
 * later head): for op index `head` of b, the callback writes the op
 * indices of the group it would form (head included; at most `max`; none
 * with taken[index] >= 0) into members and returns how many, or 0. It
 * gets the use counts (by value id, as above) of the block. The group is
 * emitted at its last member, so members may read only values defined
 * before that. */
typedef int32_t (*hlx_fusion_epilogue_fn)(const void* ctx,
                                          const hlx_block_t* b, int32_t head,
                                          const int32_t* uses,
                                          const int32_t* taken,
                                          int32_t* members, int32_t max);

/* hlx_fusion_analyze with epilogue groups (epilogue may be NULL). */
hlx_status_t hlx_fusion_analyze_ex(const hlx_block_t* b, int32_t num_values,
                                   const unsigned char* skip,
                                   hlx_fusion_reduce_ok_fn reduce_ok,
                                   hlx_fusion_epilogue_fn epilogue,
                                   const void* epilogue_ctx,
                                   hlx_fusion_t** out) HLX_MUST_USE;

#ifdef __cplusplus
}
#endif

#endif /* HLX_GRAPH_FUSION_H_ */
