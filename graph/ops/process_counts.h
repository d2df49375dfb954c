/* The process grid of a run: num_replicas x num_partitions processes.
 * A caller that gives no counts gets the module's mhlo.num_replicas /
 * mhlo.num_partitions attributes (JAX exports carry them); once the counts
 * are known at compile time, the collectives' Constraints that depend on
 * them (graph/ops/collective.c) are checked over every op a run can
 * reach, so a bad replica group is a compile error, not a hang or a
 * silent single-replica result. */
#ifndef HLX_GRAPH_PROCESS_COUNTS_H_
#define HLX_GRAPH_PROCESS_COUNTS_H_

#include "graph/ir/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest replicas x partitions grid (one thread per process). */
#define HLX_MAX_PROCESSES 65536

/* The module's counts: 0 where the attribute is absent; an error naming
 * the attribute when it is not an integer in [1, HLX_MAX_PROCESSES]. */
hlx_status_t hlx_module_process_counts(const hlx_module_t* m,
                                       int32_t* num_replicas,
                                       int32_t* num_partitions) HLX_MUST_USE;

/* Checks the collectives a run of `f` on num_replicas x num_partitions
 * processes reaches: f's ops and regions and the functions they call
 * (func.call, composite). interpreter.run_parallel's programs run on a
 * grid of their own and are checked where that op is lowered. */
hlx_status_t hlx_verify_process_counts(const hlx_module_t* m,
                                       const hlx_func_t* f,
                                       int32_t num_replicas,
                                       int32_t num_partitions) HLX_MUST_USE;

#ifdef __cplusplus
}
#endif

#endif /* HLX_GRAPH_PROCESS_COUNTS_H_ */
