/* Op rules (the spec's Constraints) checked by the verifier before
 * lowering, for op families whose lowering files are busy with kernels:
 * dot_general (graph/ops/dot.c), the collectives
 * (graph/ops/collective.c) and convolution's quantization rules
 * (graph/ops/conv.c). Each error names the op and the rule. */
#ifndef HLX_GRAPH_VERIFY_RULES_H_
#define HLX_GRAPH_VERIFY_RULES_H_

#include "graph/ir/ir.h"

hlx_status_t hlx_verify_dot_general(const hlx_op_t* op) HLX_MUST_USE;
hlx_status_t hlx_verify_collective(const hlx_op_t* op) HLX_MUST_USE;
/* The collectives' rules that depend on the run's replicas x partitions
 * (graph/ops/process_counts.c calls it once they are known). */
hlx_status_t hlx_verify_collective_counts(const hlx_op_t* op,
                                          int32_t num_replicas,
                                          int32_t num_partitions)
    HLX_MUST_USE;
/* convolution and dynamic_conv (graph/ops/conv.c). */
hlx_status_t hlx_verify_conv_quant(const hlx_op_t* op) HLX_MUST_USE;

#endif /* HLX_GRAPH_VERIFY_RULES_H_ */
