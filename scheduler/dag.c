/* The task DAG of a plan (see dag.h). */
#include "scheduler/dag.h"

#include <stdlib.h>

void hlx_dag_edges_free(hlx_dag_edges_t* e) {
  free(e->from);
  free(e->to);
  e->from = e->to = NULL;
  e->num = 0;
}

hlx_status_t hlx_dag_edges(const hlx_plan_t* p, hlx_dag_edges_t* out) {
  int32_t nt = p->num_tasks, ns = p->num_slots;
  out->num = 0;
  out->chain = false;
  /* At most one edge per input, plus one for side-effect order. */
  size_t max_edges = 0;
  for (int32_t t = 0; t < nt; t++) max_edges += (size_t)p->tasks[t].num_in + 1;
  out->from = malloc((max_edges + 1) * sizeof(int32_t));
  out->to = malloc((max_edges + 1) * sizeof(int32_t));
  int32_t* producer = malloc(((size_t)ns + 1) * sizeof(int32_t));
  unsigned char* ext = calloc((size_t)ns + 1, 1); /* param/const slot */
  int32_t* mark = malloc(((size_t)nt + 1) * sizeof(int32_t));
  if (!out->from || !out->to || !producer || !ext || !mark) {
    hlx_dag_edges_free(out);
    free(producer);
    free(ext);
    free(mark);
    return hlx_status_oom();
  }
  for (int32_t s = 0; s < ns; s++) {
    producer[s] = -1;
    ext[s] = p->slot_data[s] != NULL;
  }
  for (int32_t i = 0; i < p->num_params; i++) ext[p->param_slots[i]] = 1;
  /* mark[u] == t: the edge u -> t is already listed. */
  for (int32_t t = 0; t < nt; t++) mark[t] = -1;
  size_t ne = 0;
  int32_t last_effect = -1;
  for (int32_t t = 0; t < nt && !out->chain; t++) {
    const hlx_task_t* task = &p->tasks[t];
    for (int32_t i = 0; i < task->num_in; i++) {
      int32_t pr = producer[task->in[i]];
      if (pr >= 0 && pr != t && mark[pr] != t) {
        mark[pr] = t;
        out->from[ne] = pr;
        out->to[ne++] = t;
      }
    }
    if (task->flags & HLX_TASK_SIDE_EFFECT) {
      if (last_effect >= 0 && mark[last_effect] != t) {
        mark[last_effect] = t;
        out->from[ne] = last_effect;
        out->to[ne++] = t;
      }
      last_effect = t;
    }
    for (int32_t i = 0; i < task->num_out; i++) {
      int32_t s = task->out[i];
      if (ext[s] || producer[s] >= 0) out->chain = true;
      producer[s] = t;
    }
  }
  if (out->chain) {
    ne = 0;
    for (int32_t t = 1; t < nt; t++) {
      out->from[ne] = t - 1;
      out->to[ne++] = t;
    }
  }
  out->num = ne;
  free(producer);
  free(ext);
  free(mark);
  return NULL;
}

void hlx_dag_free(hlx_dag_t* d) {
  if (!d) return;
  free(d->indeg);
  free(d->succ_off);
  free(d->succ);
  free(d->roots);
  free(d->pinned);
  free(d->is_pinned);
  free(d);
}

hlx_status_t hlx_dag_build(const hlx_plan_t* p, const hlx_dag_edges_t* edges,
                           const int32_t* extra_from, const int32_t* extra_to,
                           size_t num_extra, hlx_dag_t** out) {
  *out = NULL;
  int32_t nt = p->num_tasks;
  size_t ne = edges->num;
  hlx_dag_t* d = calloc(1, sizeof(*d));
  int32_t* next = malloc(((size_t)nt + 1) * sizeof(int32_t));
  int32_t* level = malloc(((size_t)nt + 1) * sizeof(int32_t));
  if (d) {
    d->num_tasks = nt;
    d->indeg = calloc((size_t)nt + 1, sizeof(int32_t));
    d->succ_off = calloc((size_t)nt + 2, sizeof(int32_t));
    d->succ = malloc((ne + num_extra + 1) * sizeof(int32_t));
    d->roots = malloc(((size_t)nt + 1) * sizeof(int32_t));
    d->pinned = malloc(((size_t)nt + 1) * sizeof(int32_t));
    d->is_pinned = calloc((size_t)nt + 1, 1);
  }
  if (!d || !next || !level || !d->indeg || !d->succ_off || !d->succ ||
      !d->roots || !d->pinned || !d->is_pinned) {
    hlx_dag_free(d);
    free(next);
    free(level);
    return hlx_status_oom();
  }
  /* CSR, successors in ascending task order (edges come in order of `to`,
   * so each list is sorted; the extra edges are merged in order). */
  for (size_t e = 0; e < ne; e++) {
    d->succ_off[edges->from[e] + 1]++;
    d->indeg[edges->to[e]]++;
  }
  for (size_t e = 0; e < num_extra; e++) {
    d->succ_off[extra_from[e] + 1]++;
    d->indeg[extra_to[e]]++;
  }
  for (int32_t t = 0; t < nt; t++) d->succ_off[t + 1] += d->succ_off[t];
  for (int32_t t = 0; t < nt; t++) next[t] = d->succ_off[t];
  for (size_t e = 0; e < ne; e++) d->succ[next[edges->from[e]]++] = edges->to[e];
  for (size_t e = 0; e < num_extra; e++) {
    int32_t* list = d->succ + d->succ_off[extra_from[e]];
    int32_t k = next[extra_from[e]]++ - d->succ_off[extra_from[e]];
    for (; k > 0 && list[k - 1] > extra_to[e]; k--) list[k] = list[k - 1];
    list[k] = extra_to[e];
  }
  d->num_roots = 0;
  for (int32_t t = 0; t < nt; t++)
    if (d->indeg[t] == 0) d->roots[d->num_roots++] = t;
  d->num_pinned = 0;
  for (int32_t t = 0; t < nt; t++)
    if (p->tasks[t].flags & (HLX_TASK_SIDE_EFFECT | HLX_TASK_NESTED)) {
      d->is_pinned[t] = 1;
      d->pinned[d->num_pinned++] = t;
    }
  /* Longest path: a plan whose longest path covers every task is a chain
   * and gains nothing from other threads. */
  int32_t longest = 0;
  for (int32_t t = 0; t < nt; t++) level[t] = 1;
  for (int32_t t = 0; t < nt; t++) {
    if (level[t] > longest) longest = level[t];
    for (int32_t k = d->succ_off[t]; k < d->succ_off[t + 1]; k++)
      if (level[d->succ[k]] < level[t] + 1) level[d->succ[k]] = level[t] + 1;
  }
  d->sequential = nt < 3 || longest >= nt;
  /* A plan with HLX_TASK_WIDE tasks (oneDNN's OpenMP teams) runs in
   * program order on the calling thread: one OpenMP master whose team
   * spreads over the cores, while other kernels split their work over the
   * pool with parallel_for. Running tasks beside a team, or two teams at
   * once, measured slower on both models (chess 218 vs 192 ms, ResNet-50
   * 47 vs 43 ms on two threads): the teams' idle threads spin. */
  for (int32_t t = 0; t < nt; t++)
    if (p->tasks[t].flags & HLX_TASK_WIDE) d->sequential = true;
  free(next);
  free(level);
  *out = d;
  return NULL;
}
