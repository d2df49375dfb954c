/* Building a plan: slots, tasks, sub-plans and cleanups, up to
 * hlx_plan_finalize (schedule.c); after that the plan no longer changes. */
#include "scheduler/plan.h"

#include <stdlib.h>
#include <string.h>

#include "scheduler/schedule.h"

hlx_plan_t* hlx_plan_create(const char* name) {
  hlx_plan_t* p = calloc(1, sizeof(*p));
  if (!p) return NULL;
  hlx_arena_init(&p->arena);
  p->isa_cap = HLX_ISA_COUNT;
  p->name = name ? hlx_arena_strndup(&p->arena, name, strlen(name)) : "";
  return p;
}

struct hlx_plan_cleanup_t {
  struct hlx_plan_cleanup_t* next;
  void (*fn)(void*);
  void* arg;
};

bool hlx_plan_on_destroy(hlx_plan_t* p, void (*fn)(void*), void* arg) {
  struct hlx_plan_cleanup_t* c = hlx_arena_alloc(&p->arena, sizeof(*c));
  if (!c) return false;
  c->fn = fn;
  c->arg = arg;
  c->next = p->cleanups;
  p->cleanups = c;
  return true;
}

void hlx_plan_destroy(hlx_plan_t* p) {
  if (!p) return;
  hlx_schedule_free(p->schedule);
  for (struct hlx_plan_cleanup_t* c = p->cleanups; c; c = c->next)
    c->fn(c->arg);
  for (int32_t i = 0; i < p->num_children; i++)
    hlx_plan_destroy(p->children[i]);
  free(p->children);
  free(p->slot_bytes);
  free(p->slot_data);
  free(p->tasks);
  hlx_arena_release(&p->arena);
  free(p);
}

hlx_status_t hlx_plan_adopt(hlx_plan_t* parent, hlx_plan_t* child) {
  if (parent->schedule) {
    hlx_plan_destroy(child);
    return hlx_make_status(HLX_STATUS_FAILED_PRECONDITION,
                           "plan %s: sub-plan added after finalize",
                           parent->name);
  }
  hlx_plan_t** c = realloc(parent->children,
                           ((size_t)parent->num_children + 1) * sizeof(*c));
  if (!c) {
    hlx_plan_destroy(child);
    return hlx_status_oom();
  }
  parent->children = c;
  c[parent->num_children++] = child;
  return NULL;
}

int32_t hlx_plan_add_slot(hlx_plan_t* p, size_t bytes) {
  if (p->schedule || p->num_slots == INT32_MAX) return -1;
  if (p->num_slots == p->cap_slots) {
    int32_t cap = p->cap_slots ? p->cap_slots * 2 : 16;
    size_t* sb = realloc(p->slot_bytes, (size_t)cap * sizeof(size_t));
    if (!sb) return -1;
    p->slot_bytes = sb;
    const void** sd = realloc(p->slot_data, (size_t)cap * sizeof(void*));
    if (!sd) return -1;
    p->slot_data = sd;
    p->cap_slots = cap;
  }
  p->slot_bytes[p->num_slots] = bytes;
  p->slot_data[p->num_slots] = NULL;
  return p->num_slots++;
}

hlx_task_t* hlx_plan_add_task(hlx_plan_t* p, const char* name, hlx_task_fn fn,
                              const void* args, int32_t num_in,
                              const int32_t* in, int32_t num_out,
                              const int32_t* out) {
  if (p->schedule) return NULL;
  if (p->num_tasks == p->cap_tasks) {
    int32_t cap = p->cap_tasks ? p->cap_tasks * 2 : 16;
    hlx_task_t* t = realloc(p->tasks, (size_t)cap * sizeof(hlx_task_t));
    if (!t) return NULL;
    p->tasks = t;
    p->cap_tasks = cap;
  }
  int32_t* ins = hlx_arena_alloc_array(&p->arena, (size_t)num_in + 1, 4);
  int32_t* outs = hlx_arena_alloc_array(&p->arena, (size_t)num_out + 1, 4);
  char* nm = hlx_arena_strndup(&p->arena, name, strlen(name));
  if (!ins || !outs || !nm) return NULL;
  if (num_in) memcpy(ins, in, (size_t)num_in * 4);
  if (num_out) memcpy(outs, out, (size_t)num_out * 4);
  hlx_task_t* t = &p->tasks[p->num_tasks++];
  t->name = nm;
  t->fn = fn;
  t->args = args;
  t->num_in = num_in;
  t->in = ins;
  t->num_out = num_out;
  t->out = outs;
  t->flags = 0;
  return t;
}

void hlx_plan_last_task_set_flags(hlx_plan_t* p, uint32_t flags) {
  if (p->num_tasks > 0 && !p->schedule)
    p->tasks[p->num_tasks - 1].flags |= flags;
}
