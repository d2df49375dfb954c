#include "tools/profile.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct event_t {
  const char* name; /* the executable's task name (lives with it) */
  int32_t task, thread;
  uint64_t start_ns, end_ns;
} event_t;

struct hlx_profile_t {
  pthread_mutex_t lock;
  event_t* events;
  size_t num, cap;
  size_t run_start; /* first event of the last run */
  int32_t runs;
  bool oom; /* an event could not be stored */
};

hlx_profile_t* hlx_profile_create(void) {
  hlx_profile_t* p = calloc(1, sizeof(*p));
  if (p) pthread_mutex_init(&p->lock, NULL);
  return p;
}

void hlx_profile_destroy(hlx_profile_t* p) {
  if (!p) return;
  pthread_mutex_destroy(&p->lock);
  free(p->events);
  free(p);
}

void hlx_profile_on_task(void* user, int32_t task, const char* name,
                         int32_t thread, uint64_t start_ns, uint64_t end_ns) {
  hlx_profile_t* p = user;
  pthread_mutex_lock(&p->lock);
  if (p->num == p->cap) {
    size_t cap = p->cap ? p->cap * 2 : 1024;
    event_t* e = realloc(p->events, cap * sizeof(event_t));
    if (e) {
      p->events = e;
      p->cap = cap;
    }
  }
  if (p->num < p->cap)
    p->events[p->num++] = (event_t){name, task, thread, start_ns, end_ns};
  else
    p->oom = true;
  pthread_mutex_unlock(&p->lock);
}

void hlx_profile_begin_run(hlx_profile_t* p) {
  p->run_start = p->num;
  p->runs++;
}

size_t hlx_profile_num_events(const hlx_profile_t* p) { return p->num; }

/* Writes s as the body of a JSON string. */
static void json_string(FILE* f, const char* s) {
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20)
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
}

hlx_status_t hlx_profile_write_trace(const hlx_profile_t* p, FILE* f) {
  if (p->oom) return hlx_status_oom();
  uint64_t t0 = UINT64_MAX;
  for (size_t i = p->run_start; i < p->num; i++)
    if (p->events[i].start_ns < t0) t0 = p->events[i].start_ns;
  fprintf(f, "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [");
  for (size_t i = p->run_start; i < p->num; i++) {
    const event_t* e = &p->events[i];
    fprintf(f, "%s\n{\"name\": \"", i > p->run_start ? "," : "");
    json_string(f, e->name);
    fprintf(f,
            "\", \"cat\": \"task\", \"ph\": \"X\", \"ts\": %.3f, "
            "\"dur\": %.3f, \"pid\": 1, \"tid\": %d, \"args\": {\"task\": "
            "%d}}",
            (double)(e->start_ns - t0) * 1e-3,
            (double)(e->end_ns - e->start_ns) * 1e-3, (int)e->thread,
            (int)e->task);
  }
  fprintf(f, "\n]}\n");
  if (ferror(f))
    return hlx_make_status(HLX_STATUS_DATA_LOSS,
                           "profile: writing the trace failed");
  return NULL;
}

/* An op kind: the task name up to " at " (its source location). */
static size_t kind_len(const char* name) {
  const char* at = strstr(name, " at ");
  return at ? (size_t)(at - name) : strlen(name);
}

typedef struct kind_t {
  const char* name;
  size_t len;
  uint64_t ns;
  size_t count;
} kind_t;

static int cmp_kind_name(const void* a, const void* b) {
  const kind_t *x = a, *y = b;
  size_t n = x->len < y->len ? x->len : y->len;
  int c = memcmp(x->name, y->name, n);
  return c ? c : (x->len > y->len) - (x->len < y->len);
}

static int cmp_kind_time(const void* a, const void* b) {
  const kind_t *x = a, *y = b;
  if (x->ns != y->ns) return x->ns < y->ns ? 1 : -1;
  return cmp_kind_name(a, b);
}

hlx_status_t hlx_profile_print_stats(const hlx_profile_t* p, FILE* f,
                                     size_t arena_bytes, size_t live_bytes,
                                     size_t intermediate_bytes) {
  if (p->oom) return hlx_status_oom();
  kind_t* k = malloc((p->num + 1) * sizeof(kind_t));
  if (!k) return hlx_status_oom();
  uint64_t total = 0;
  for (size_t i = 0; i < p->num; i++) {
    const event_t* e = &p->events[i];
    k[i] = (kind_t){e->name, kind_len(e->name), e->end_ns - e->start_ns, 1};
    total += k[i].ns;
  }
  /* Group equal kinds, then order by time. */
  qsort(k, p->num, sizeof(kind_t), cmp_kind_name);
  size_t nk = 0;
  for (size_t i = 0; i < p->num; i++) {
    if (nk && cmp_kind_name(&k[nk - 1], &k[i]) == 0) {
      k[nk - 1].ns += k[i].ns;
      k[nk - 1].count++;
    } else {
      k[nk++] = k[i];
    }
  }
  qsort(k, nk, sizeof(kind_t), cmp_kind_time);
  double runs = p->runs > 0 ? p->runs : 1;
  int w = 24; /* the kind column fits the longest (fused names are long) */
  for (size_t i = 0; i < nk; i++)
    if (k[i].len > (size_t)w) w = k[i].len > 120 ? 120 : (int)k[i].len;
  fprintf(f, "%-*s %12s %7s %8s\n", w, "op kind", "ms/run", "%", "count");
  for (size_t i = 0; i < nk; i++)
    fprintf(f, "%-*.*s %12.4f %6.2f%% %8.0f\n", w, (int)k[i].len, k[i].name,
            (double)k[i].ns * 1e-6 / runs,
            total ? 100.0 * (double)k[i].ns / (double)total : 0.0,
            (double)k[i].count / runs);
  fprintf(f, "%-*s %12.4f %6.2f%% %8.0f\n", w, "total (tasks)",
          (double)total * 1e-6 / runs, total ? 100.0 : 0.0,
          (double)p->num / runs);
  fprintf(f,
          "memory: peak arena %zu bytes (%.2f MiB), largest live set %zu "
          "bytes (%.2f MiB), sum of intermediates %zu bytes (%.2f MiB); "
          "arena/sum %.1f%%\n",
          arena_bytes, (double)arena_bytes / 1048576.0, live_bytes,
          (double)live_bytes / 1048576.0, intermediate_bytes,
          (double)intermediate_bytes / 1048576.0,
          intermediate_bytes
              ? 100.0 * (double)arena_bytes / (double)intermediate_bytes
              : 0.0);
  free(k);
  return NULL;
}
