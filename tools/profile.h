/* `hlx run --profile / --stats`: collects the task events of runs (the
 * hlx_run_options_t on_task callback) and writes them as a Chrome/Perfetto
 * trace or as per-op-kind time totals. */
#ifndef HLX_TOOLS_PROFILE_H_
#define HLX_TOOLS_PROFILE_H_

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hlx_profile_t hlx_profile_t;

hlx_profile_t* hlx_profile_create(void); /* NULL on OOM */
void hlx_profile_destroy(hlx_profile_t* p);

/* The on_task callback (user = the profile); thread-safe. */
void hlx_profile_on_task(void* user, int32_t task, const char* name,
                         int32_t thread, uint64_t start_ns, uint64_t end_ns);

/* Starts a run: the trace keeps the events of the last run only; the stats
 * cover every run. */
void hlx_profile_begin_run(hlx_profile_t* p);

/* Events of the last run as a Chrome trace (JSON object format): one
 * complete event ("ph": "X") per task, tid = the thread that ran it,
 * name = the task's name, ts/dur in microseconds from the run's start. */
hlx_status_t hlx_profile_write_trace(const hlx_profile_t* p, FILE* f)
    HLX_MUST_USE;

/* Per-op-kind totals per run (the task name up to " at "), sorted by time,
 * with their share and task counts, then the peak arena bytes against the
 * largest live set and the sum of all intermediates. */
hlx_status_t hlx_profile_print_stats(const hlx_profile_t* p, FILE* f,
                                     size_t arena_bytes, size_t live_bytes,
                                     size_t intermediate_bytes) HLX_MUST_USE;

/* Events recorded over all runs, for tests. */
size_t hlx_profile_num_events(const hlx_profile_t* p);

#ifdef __cplusplus
}
#endif

#endif /* HLX_TOOLS_PROFILE_H_ */
