/* Rendezvous for replicas/partitions (see collectives.h). */
#include "scheduler/collectives.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct hlx_meeting_t {
  uint64_t key, seq;
  int32_t size;
  int32_t arrived, departed, exited;
  bool failed; /* timed out: later arrivals fail at once */
  void** data;
  hlx_meeting_t* next;
};

typedef struct seq_entry_t {
  int32_t process;
  uint64_t key, count;
} seq_entry_t;

struct hlx_rendezvous_t {
  pthread_mutex_t mu;
  pthread_cond_t cv; /* CLOCK_MONOTONIC */
  int32_t num_replicas, num_partitions;
  int64_t timeout_ms;
  bool aborted;
  hlx_meeting_t* meetings;
  seq_entry_t* seqs;
  size_t num_seqs, cap_seqs;
};

static const char kAbortMessage[] = "abandoned: another process failed";

hlx_status_t hlx_rendezvous_create(int32_t num_replicas,
                                   int32_t num_partitions, int64_t timeout_ms,
                                   hlx_rendezvous_t** out) {
  *out = NULL;
  if (num_replicas < 1 || num_partitions < 1 ||
      (int64_t)num_replicas * num_partitions > 65536)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "replicas x partitions must be in [1, 65536], "
                           "got %d x %d",
                           num_replicas, num_partitions);
  hlx_rendezvous_t* r = calloc(1, sizeof(*r));
  if (!r) return hlx_status_oom();
  if (timeout_ms <= 0) {
    const char* env = getenv("HLX_COLLECTIVE_TIMEOUT_MS");
    long long v = env ? atoll(env) : 0;
    timeout_ms = v > 0 ? v : HLX_COLLECTIVE_DEFAULT_TIMEOUT_MS;
  }
  r->timeout_ms = timeout_ms;
  r->num_replicas = num_replicas;
  r->num_partitions = num_partitions;
  pthread_mutex_init(&r->mu, NULL);
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&r->cv, &ca);
  pthread_condattr_destroy(&ca);
  *out = r;
  return NULL;
}

void hlx_rendezvous_destroy(hlx_rendezvous_t* r) {
  if (!r) return;
  for (hlx_meeting_t* m = r->meetings; m;) {
    hlx_meeting_t* n = m->next;
    free(m->data);
    free(m);
    m = n;
  }
  free(r->seqs);
  pthread_mutex_destroy(&r->mu);
  pthread_cond_destroy(&r->cv);
  free(r);
}

int32_t hlx_rendezvous_num_replicas(const hlx_rendezvous_t* r) {
  return r ? r->num_replicas : 1;
}
int32_t hlx_rendezvous_num_partitions(const hlx_rendezvous_t* r) {
  return r ? r->num_partitions : 1;
}

void hlx_rendezvous_abort(hlx_rendezvous_t* r) {
  pthread_mutex_lock(&r->mu);
  r->aborted = true;
  pthread_cond_broadcast(&r->cv);
  pthread_mutex_unlock(&r->mu);
}

bool hlx_rendezvous_is_abort_status(hlx_status_t s) {
  return s && strstr(hlx_status_message(s), kAbortMessage) != NULL;
}

/* The next sequence number of (process, key). NULL-safe on OOM: returns
 * UINT64_MAX. */
static uint64_t next_seq_locked(hlx_rendezvous_t* r, int32_t process,
                                uint64_t key) {
  for (size_t i = 0; i < r->num_seqs; i++)
    if (r->seqs[i].process == process && r->seqs[i].key == key)
      return r->seqs[i].count++;
  if (r->num_seqs == r->cap_seqs) {
    size_t cap = r->cap_seqs ? r->cap_seqs * 2 : 16;
    seq_entry_t* s = realloc(r->seqs, cap * sizeof(*s));
    if (!s) return UINT64_MAX;
    r->seqs = s;
    r->cap_seqs = cap;
  }
  r->seqs[r->num_seqs++] = (seq_entry_t){process, key, 1};
  return 0;
}

static void unlink_locked(hlx_rendezvous_t* r, hlx_meeting_t* m) {
  for (hlx_meeting_t** p = &r->meetings; *p; p = &(*p)->next)
    if (*p == m) {
      *p = m->next;
      return;
    }
}

hlx_status_t hlx_rendezvous_join(hlx_rendezvous_t* r, const char* what,
                                 int32_t process_id, uint64_t key,
                                 int32_t group_size, int32_t rank, void* data,
                                 hlx_meeting_t** out_meeting) {
  *out_meeting = NULL;
  if (rank < 0 || rank >= group_size)
    return hlx_make_status(HLX_STATUS_INTERNAL, "%s: rank %d of %d", what,
                           rank, group_size);
  struct timespec deadline;
  clock_gettime(CLOCK_MONOTONIC, &deadline);
  deadline.tv_sec += (time_t)(r->timeout_ms / 1000);
  deadline.tv_nsec += (long)(r->timeout_ms % 1000) * 1000000L;
  if (deadline.tv_nsec >= 1000000000L) {
    deadline.tv_sec++;
    deadline.tv_nsec -= 1000000000L;
  }
  pthread_mutex_lock(&r->mu);
  if (r->aborted) {
    pthread_mutex_unlock(&r->mu);
    return hlx_make_status(HLX_STATUS_FAILED_PRECONDITION, "%s: %s", what,
                           kAbortMessage);
  }
  uint64_t seq = next_seq_locked(r, process_id, key);
  hlx_meeting_t* m = NULL;
  for (m = r->meetings; m; m = m->next)
    if (m->key == key && m->seq == seq) break;
  if (!m && seq != UINT64_MAX) {
    m = calloc(1, sizeof(*m));
    void** d = m ? calloc((size_t)group_size, sizeof(void*)) : NULL;
    if (m && d) {
      m->key = key;
      m->seq = seq;
      m->size = group_size;
      m->data = d;
      m->next = r->meetings;
      r->meetings = m;
    } else {
      free(m);
      m = NULL;
    }
  }
  if (!m) {
    pthread_mutex_unlock(&r->mu);
    return hlx_status_oom();
  }
  if (m->size != group_size || m->data[rank] || m->failed) {
    bool failed = m->failed;
    int32_t size = m->size;
    pthread_mutex_unlock(&r->mu);
    if (failed)
      return hlx_make_status(HLX_STATUS_DEADLINE_EXCEEDED,
                             "%s: the other participants of this collective "
                             "already gave up waiting",
                             what);
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "%s: processes disagree on the collective (group "
                           "of %d vs %d, or rank %d twice): mismatched "
                           "programs?",
                           what, size, group_size, rank);
  }
  m->data[rank] = data;
  m->arrived++;
  if (m->arrived == m->size) pthread_cond_broadcast(&r->cv);
  int rc = 0;
  while (m->arrived < m->size && !r->aborted && !m->failed && rc != ETIMEDOUT)
    rc = pthread_cond_timedwait(&r->cv, &r->mu, &deadline);
  if (m->arrived == m->size) {
    pthread_mutex_unlock(&r->mu);
    *out_meeting = m;
    return NULL;
  }
  /* Give up: the meeting stays listed as failed so late arrivals fail too
   * (it is freed with the rendezvous). */
  int32_t arrived = m->arrived;
  bool aborted = r->aborted;
  m->failed = true;
  m->data[rank] = NULL;
  m->arrived--;
  pthread_cond_broadcast(&r->cv);
  pthread_mutex_unlock(&r->mu);
  if (aborted)
    return hlx_make_status(HLX_STATUS_FAILED_PRECONDITION, "%s: %s", what,
                           kAbortMessage);
  return hlx_make_status(
      HLX_STATUS_DEADLINE_EXCEEDED,
      "%s: only %d of %d participants arrived within %lld ms (process %d, "
      "rank %d); the peers never reached this collective (mismatched "
      "programs or replica groups?)",
      what, arrived, group_size, (long long)r->timeout_ms, process_id, rank);
}

void* const* hlx_meeting_data(const hlx_meeting_t* m) { return m->data; }

void hlx_rendezvous_leave(hlx_rendezvous_t* r, hlx_meeting_t* m) {
  pthread_mutex_lock(&r->mu);
  m->departed++;
  if (m->departed == m->size) pthread_cond_broadcast(&r->cv);
  while (m->departed < m->size) pthread_cond_wait(&r->cv, &r->mu);
  if (++m->exited == m->size) {
    unlink_locked(r, m);
    free(m->data);
    free(m);
  }
  pthread_mutex_unlock(&r->mu);
}

/* ---- process groups ------------------------------------------------------ */

typedef struct proc_thread_t {
  const hlx_process_run_t* proc;
  hlx_run_ctx_t ctx;
  hlx_rendezvous_t* rv;
  hlx_status_t status;
  pthread_t thread;
  bool started;
} proc_thread_t;

static void* proc_main(void* a) {
  proc_thread_t* t = a;
  t->status = hlx_plan_execute(t->proc->plan, t->proc->params,
                               t->proc->results, &t->ctx);
  if (t->status) hlx_rendezvous_abort(t->rv);
  return NULL;
}

hlx_status_t hlx_run_processes(const hlx_process_run_t* procs,
                               int32_t num_replicas, int32_t num_partitions,
                               int64_t timeout_ms,
                               const hlx_run_ctx_t* base) {
  hlx_rendezvous_t* rv;
  HLX_RETURN_IF_ERROR(
      hlx_rendezvous_create(num_replicas, num_partitions, timeout_ms, &rv));
  int32_t n = num_replicas * num_partitions;
  proc_thread_t* ts = calloc((size_t)n, sizeof(*ts));
  if (!ts) {
    hlx_rendezvous_destroy(rv);
    return hlx_status_oom();
  }
  hlx_status_t st = NULL;
  for (int32_t i = 0; i < n; i++) {
    ts[i].proc = &procs[i];
    ts[i].ctx = *base;
    ts[i].ctx.replica_id = i / num_partitions;
    ts[i].ctx.partition_id = i % num_partitions;
    ts[i].ctx.rendezvous = rv;
    ts[i].rv = rv;
  }
  for (int32_t i = 1; i < n; i++) {
    int rc = pthread_create(&ts[i].thread, NULL, proc_main, &ts[i]);
    if (rc) {
      ts[i].status = hlx_make_status(
          HLX_STATUS_RESOURCE_EXHAUSTED,
          "cannot start a thread for replica %d partition %d (%s)",
          ts[i].ctx.replica_id, ts[i].ctx.partition_id, strerror(rc));
      hlx_rendezvous_abort(rv);
      break;
    }
    ts[i].started = true;
  }
  proc_main(&ts[0]);
  for (int32_t i = 1; i < n; i++)
    if (ts[i].started) pthread_join(ts[i].thread, NULL);
  /* Report the first process that failed on its own; else the first. */
  int32_t pick = -1;
  for (int32_t i = 0; i < n && pick < 0; i++)
    if (ts[i].status && !hlx_rendezvous_is_abort_status(ts[i].status))
      pick = i;
  for (int32_t i = 0; i < n && pick < 0; i++)
    if (ts[i].status) pick = i;
  if (pick >= 0) {
    st = ts[pick].status;
    ts[pick].status = NULL;
    if (n > 1)
      st = hlx_status_annotate(st, "replica %d partition %d",
                               ts[pick].ctx.replica_id,
                               ts[pick].ctx.partition_id);
  }
  for (int32_t i = 0; i < n; i++) hlx_status_free(ts[i].status);
  free(ts);
  hlx_rendezvous_destroy(rv);
  return st;
}
