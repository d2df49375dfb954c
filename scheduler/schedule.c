/* hlx_plan_finalize: builds a plan's schedule (schedule.h) once, when the
 * plan is complete, and answers the questions asked of it (memory figures,
 * whether runs are sequential). Runs only read it (executor.c). */
#include "scheduler/schedule.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "scheduler/buffer_assign.h"

static size_t round64(size_t b) { return (b + 63) & ~(size_t)63; }

void hlx_schedule_free(hlx_schedule_t* s) {
  if (!s) return;
  hlx_dag_free(s->dag);
  free(s->slot_off);
  free(s->direct_result);
  hlx_run_blocks_destroy(s->blocks);
  free(s);
}

/* The run block's layout around the assigned buffers, and the results a
 * run may write straight into the caller's buffers. */
static hlx_status_t lay_out(const hlx_plan_t* p,
                            const hlx_buffer_assignment_t* ba,
                            hlx_schedule_t* s) {
  int32_t ns = p->num_slots;
  s->slot_off = malloc(((size_t)ns + 1) * sizeof(size_t));
  s->direct_result = calloc((size_t)p->num_results + 1, 1);
  if (!s->slot_off || !s->direct_result) return hlx_status_oom();
  size_t off = round64((size_t)ns * sizeof(void*));
  s->counters_off = off;
  off = round64(off + (size_t)p->num_tasks * sizeof(atomic_int));
  s->buffers_off = off;
  s->arena_bytes = ba->arena_bytes;
  s->intermediate_bytes = ba->sum_bytes;
  s->live_bytes = ba->live_bytes;
  for (int32_t i = 0; i < ns; i++)
    s->slot_off[i] =
        ba->slot_off[i] == SIZE_MAX ? SIZE_MAX : off + ba->slot_off[i];
  for (int32_t i = 0; i < p->num_results; i++) {
    int32_t rs = p->result_slots[i];
    bool first = true;
    for (int32_t k = 0; k < i && first; k++) first = p->result_slots[k] != rs;
    s->direct_result[i] =
        first && s->slot_off[rs] != SIZE_MAX && p->slot_bytes[rs] > 0;
  }
  /* SIZE_MAX: the run fails saying so (hlx_plan_execute). */
  size_t total = off + ba->arena_bytes;
  s->blocks = hlx_run_blocks_create(total < off ? SIZE_MAX : total);
  return s->blocks ? NULL : hlx_status_oom();
}

static hlx_status_t build(const hlx_plan_t* p,
                          const hlx_plan_finalize_options_t* o,
                          hlx_schedule_t* s) {
  hlx_dag_edges_t edges;
  HLX_RETURN_IF_ERROR(hlx_dag_edges(p, &edges));
  /* The slots a run owns: neither params, constants nor empty. */
  unsigned char* owned = malloc((size_t)p->num_slots + 1);
  if (!owned) {
    hlx_dag_edges_free(&edges);
    return hlx_status_oom();
  }
  for (int32_t i = 0; i < p->num_slots; i++)
    owned[i] = !p->slot_data[i] && p->slot_bytes[i] > 0;
  for (int32_t i = 0; i < p->num_params; i++) owned[p->param_slots[i]] = 0;
  /* Buffer assignment may add edges (plans too big to prove reuse safe by
   * reachability). Plans that are not SSA keep one buffer per slot, as
   * no_buffer_reuse does for A/B comparisons. */
  hlx_buffer_assignment_t ba;
  hlx_status_t st = hlx_buffer_assign(
      p, owned, edges.from, edges.to, edges.num,
      !edges.chain && !o->no_buffer_reuse, &ba);
  free(owned);
  if (!st) {
    st = hlx_dag_build(p, &edges, ba.extra_from, ba.extra_to, ba.num_extra,
                       &s->dag);
    if (!st) st = lay_out(p, &ba, s);
    hlx_buffer_assignment_free(&ba);
  }
  hlx_dag_edges_free(&edges);
  return st;
}

hlx_status_t hlx_plan_finalize(hlx_plan_t* p,
                               const hlx_plan_finalize_options_t* options) {
  if (p->schedule)
    return hlx_make_status(HLX_STATUS_FAILED_PRECONDITION,
                           "plan %s: finalized twice", p->name);
  /* A run of p may run its sub-plans. */
  for (int32_t i = 0; i < p->num_children; i++)
    if (!p->children[i]->schedule)
      return hlx_make_status(HLX_STATUS_FAILED_PRECONDITION,
                             "plan %s: sub-plan %d (%s) is not finalized",
                             p->name, i, p->children[i]->name);
  hlx_plan_finalize_options_t o = {0};
  if (options) o = *options;
  hlx_schedule_t* s = calloc(1, sizeof(*s));
  if (!s) return hlx_status_oom();
  hlx_status_t st = build(p, &o, s);
  if (st) {
    hlx_schedule_free(s);
    return hlx_status_annotate(st, "finalizing plan %s", p->name);
  }
  p->schedule = s;
  return NULL;
}

bool hlx_plan_is_finalized(const hlx_plan_t* p) { return p->schedule != NULL; }

size_t hlx_plan_arena_bytes(const hlx_plan_t* p) {
  return p->schedule ? p->schedule->arena_bytes : 0;
}

size_t hlx_plan_intermediate_bytes(const hlx_plan_t* p) {
  return p->schedule ? p->schedule->intermediate_bytes : 0;
}

size_t hlx_plan_live_bytes(const hlx_plan_t* p) {
  return p->schedule ? p->schedule->live_bytes : 0;
}

bool hlx_plan_is_sequential(const hlx_plan_t* p) {
  return !p->schedule || p->schedule->dag->sequential;
}
