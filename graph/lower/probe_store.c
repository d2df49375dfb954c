/* Values recorded by interpreter.probe during one run, looked up by
 * check.expect_serialized_eq: per probe_id, every recorded value in order
 * (a probe inside a loop records once per iteration). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "graph/lower/ctx.h"

typedef struct probe_value_t {
  char* id;
  int64_t iter;
  void* data;
  size_t bytes;
} probe_value_t;

struct hlx_probe_store_t {
  pthread_mutex_t mu;
  probe_value_t* values;
  int64_t n, cap;
};

hlx_probe_store_t* hlx_probe_store_create(void) {
  hlx_probe_store_t* s = calloc(1, sizeof(*s));
  if (s) pthread_mutex_init(&s->mu, NULL);
  return s;
}

void hlx_probe_store_destroy(hlx_probe_store_t* s) {
  if (!s) return;
  for (int64_t i = 0; i < s->n; i++) {
    free(s->values[i].id);
    free(s->values[i].data);
  }
  free(s->values);
  pthread_mutex_destroy(&s->mu);
  free(s);
}

hlx_status_t hlx_probe_record(hlx_probe_store_t* s, const char* id,
                              const void* data, size_t bytes) {
  pthread_mutex_lock(&s->mu);
  hlx_status_t st = NULL;
  int64_t iter = 0;
  for (int64_t i = 0; i < s->n; i++)
    if (strcmp(s->values[i].id, id) == 0) iter++;
  if (s->n == s->cap) {
    int64_t cap = s->cap ? s->cap * 2 : 16;
    probe_value_t* v = realloc(s->values, (size_t)cap * sizeof(*v));
    if (!v) st = hlx_status_oom();
    else {
      s->values = v;
      s->cap = cap;
    }
  }
  if (!st) {
    probe_value_t* v = &s->values[s->n];
    v->id = strdup(id);
    v->data = malloc(bytes + 1);
    v->bytes = bytes;
    v->iter = iter;
    if (!v->id || !v->data) {
      free(v->id);
      free(v->data);
      st = hlx_status_oom();
    } else {
      memcpy(v->data, data, bytes);
      s->n++;
    }
  }
  pthread_mutex_unlock(&s->mu);
  return st;
}

const void* hlx_probe_lookup(hlx_probe_store_t* s, const char* id,
                             int64_t iter, size_t* bytes) {
  const void* found = NULL;
  pthread_mutex_lock(&s->mu);
  for (int64_t i = 0; i < s->n && !found; i++)
    if (s->values[i].iter == iter && strcmp(s->values[i].id, id) == 0) {
      found = s->values[i].data;
      *bytes = s->values[i].bytes;
    }
  pthread_mutex_unlock(&s->mu);
  return found;
}
