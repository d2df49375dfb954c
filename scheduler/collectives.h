/* Replicas and partitions: the processes of one run are threads that meet
 * at rendezvous points for collectives (XLA's InProcessCommunicator).
 *
 * A process is (replica_id, partition_id); its flat id is
 * replica_id * num_partitions + partition_id. A collective names its
 * meeting with a 64-bit key (op kind, channel, group); the rendezvous adds a
 * per-process sequence number, so the k-th execution of a collective in one
 * process meets the k-th in the others (loops, repeated sends on one
 * channel). Every participant contributes one pointer; once all have
 * arrived each reads the others' contributions (in rank order, so results
 * are deterministic) and then leaves; leaving waits until everyone has
 * finished reading, so contributions may point at stack or run memory.
 *
 * A meeting whose peers do not all arrive within the timeout fails with
 * HLX_STATUS_DEADLINE_EXCEEDED instead of hanging; a process that fails
 * aborts the rendezvous so its peers stop waiting at once. */
#ifndef HLX_SCHEDULER_COLLECTIVES_H_
#define HLX_SCHEDULER_COLLECTIVES_H_

#include <stdbool.h>
#include <stdint.h>

#include "base/status.h"
#include "scheduler/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hlx_rendezvous_t hlx_rendezvous_t;
typedef struct hlx_meeting_t hlx_meeting_t;

/* Default timeout for a meeting whose peers do not arrive; the environment
 * variable HLX_COLLECTIVE_TIMEOUT_MS overrides it when timeout_ms <= 0. */
#define HLX_COLLECTIVE_DEFAULT_TIMEOUT_MS 10000

hlx_status_t hlx_rendezvous_create(int32_t num_replicas,
                                   int32_t num_partitions, int64_t timeout_ms,
                                   hlx_rendezvous_t** out) HLX_MUST_USE;
void hlx_rendezvous_destroy(hlx_rendezvous_t* r);
int32_t hlx_rendezvous_num_replicas(const hlx_rendezvous_t* r);
int32_t hlx_rendezvous_num_partitions(const hlx_rendezvous_t* r);
/* A process failed: current and future meetings fail at once. */
void hlx_rendezvous_abort(hlx_rendezvous_t* r);
/* Whether s is the status a meeting returns after hlx_rendezvous_abort. */
bool hlx_rendezvous_is_abort_status(hlx_status_t s);

/* Joins meeting `key` of `group_size` participants as `rank` (0-based,
 * unique in the group) on behalf of process `process_id`, contributing
 * `data`. Blocks until all participants have joined. On success the caller
 * reads hlx_meeting_data and then calls hlx_rendezvous_leave. `what` names
 * the op for errors. */
hlx_status_t hlx_rendezvous_join(hlx_rendezvous_t* r, const char* what,
                                 int32_t process_id, uint64_t key,
                                 int32_t group_size, int32_t rank, void* data,
                                 hlx_meeting_t** out_meeting) HLX_MUST_USE;
/* The contributions, indexed by rank (borrowed until leave). */
void* const* hlx_meeting_data(const hlx_meeting_t* m);
/* Waits until every participant has called leave, then frees m. */
void hlx_rendezvous_leave(hlx_rendezvous_t* r, hlx_meeting_t* m);

/* One process of a multi-process run: its plan, inputs and outputs (as
 * for hlx_plan_execute). */
typedef struct hlx_process_run_t {
  const hlx_plan_t* plan;
  const void* const* params;
  void* const* results;
} hlx_process_run_t;

/* Runs num_replicas * num_partitions processes (procs[flat id]) as a thread
 * group: process 0 on the caller, the others on threads of their own (they
 * block at collectives, so they never borrow pool workers). Each gets a
 * copy of *base with its ids and a fresh rendezvous. The first failure
 * aborts the others; the status is that of the first process that failed
 * for a reason of its own, prefixed with its ids. */
hlx_status_t hlx_run_processes(const hlx_process_run_t* procs,
                               int32_t num_replicas, int32_t num_partitions,
                               int64_t timeout_ms,
                               const hlx_run_ctx_t* base) HLX_MUST_USE;

#ifdef __cplusplus
}
#endif

#endif /* HLX_SCHEDULER_COLLECTIVES_H_ */
