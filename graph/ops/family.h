/* What each op family of graph/ops/ gives the registry (graph/ops/
 * registry.c): a table of its ops' rules, and helpers the families share.
 * Family names are those of graph/lower/ and kernels/. */
#ifndef HLX_GRAPH_OPS_FAMILY_H_
#define HLX_GRAPH_OPS_FAMILY_H_

#include "graph/ir/attr.h"
#include "graph/ops/ops.h"

/* Checks every Constraint of `op` (its counts already hold). */
typedef hlx_status_t (*hlx_op_verify_fn)(const hlx_op_t* op,
                                         const hlx_module_t* m);
/* Fills out[0 .. op->num_results) from the operands and attributes. */
typedef hlx_status_t (*hlx_op_infer_fn)(const hlx_op_t* op,
                                        hlx_arena_t* arena,
                                        hlx_type_t** out);

typedef struct hlx_op_rules_t {
  hlx_opcode_t op;
  hlx_op_verify_fn verify; /* NULL: the op has no rule beyond its counts */
  hlx_op_infer_fn infer;   /* NULL: result types are not inferable */
} hlx_op_rules_t;

/* One table per family, each ending with {HLX_OP_UNKNOWN, NULL, NULL}. */
extern const hlx_op_rules_t hlx_op_rules_check[];
extern const hlx_op_rules_t hlx_op_rules_collective[];
extern const hlx_op_rules_t hlx_op_rules_control_flow[];
extern const hlx_op_rules_t hlx_op_rules_conv[];
extern const hlx_op_rules_t hlx_op_rules_core[];
extern const hlx_op_rules_t hlx_op_rules_data_movement[];
extern const hlx_op_rules_t hlx_op_rules_dot[];
extern const hlx_op_rules_t hlx_op_rules_elementwise[];
extern const hlx_op_rules_t hlx_op_rules_fft[];
extern const hlx_op_rules_t hlx_op_rules_gather_scatter[];
extern const hlx_op_rules_t hlx_op_rules_host[];
extern const hlx_op_rules_t hlx_op_rules_linalg[];
extern const hlx_op_rules_t hlx_op_rules_map[];
extern const hlx_op_rules_t hlx_op_rules_quant[];
extern const hlx_op_rules_t hlx_op_rules_reduce[];
extern const hlx_op_rules_t hlx_op_rules_rng[];
extern const hlx_op_rules_t hlx_op_rules_sort[];
extern const hlx_op_rules_t hlx_op_rules_window[];

/* The collectives' rules that depend on the run's replicas x partitions
 * (graph/ops/process_counts.c calls it once they are known). */
hlx_status_t hlx_verify_collective_counts(const hlx_op_t* op,
                                          int32_t num_replicas,
                                          int32_t num_partitions)
    HLX_MUST_USE;

/* ---- helpers shared by the families (graph/ops/shape.c) ---------------- */

/* Whether two dims may be equal: either is `?`, or they are. */
bool hlx_dim_compatible(int64_t a, int64_t b);
/* A new tensor type in `arena` (dims copied; quant borrowed); NULL on OOM. */
hlx_type_t* hlx_ops_tensor_type(hlx_arena_t* arena, hlx_dtype_t dtype,
                                int32_t rank, const int64_t* dims);

#endif /* HLX_GRAPH_OPS_FAMILY_H_ */
