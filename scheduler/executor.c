/* The sequential executor: runs a plan's tasks in order on the calling
 * thread. Slot memory is allocated per run (64-byte aligned); constants and
 * parameters are used in place. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler/plan.h"

enum { kMaxDepth = 64 };
static unsigned char g_empty[64] __attribute__((aligned(64)));

static void* alloc_slot(size_t bytes) {
  if (bytes == 0) return g_empty;
  size_t rounded = (bytes + 63) & ~(size_t)63;
  if (rounded < bytes) return NULL;
  return aligned_alloc(64, rounded);
}

hlx_status_t hlx_plan_execute(const hlx_plan_t* p, const void* const* params,
                              void* const* results, hlx_run_ctx_t* ctx) {
  if (ctx->depth >= kMaxDepth)
    return hlx_make_status(HLX_STATUS_RESOURCE_EXHAUSTED,
                           "%s: calls nested deeper than %d", p->name,
                           kMaxDepth);
  void** slots = calloc((size_t)p->num_slots + 1, sizeof(void*));
  unsigned char* owned = calloc((size_t)p->num_slots + 1, 1);
  if (!slots || !owned) {
    free(slots);
    free(owned);
    return hlx_status_oom();
  }
  hlx_status_t st = NULL;
  for (int32_t i = 0; i < p->num_slots; i++)
    if (p->slot_data[i]) slots[i] = (void*)p->slot_data[i];
  for (int32_t i = 0; i < p->num_params; i++)
    slots[p->param_slots[i]] = (void*)params[i];
  for (int32_t i = 0; i < p->num_slots && !st; i++) {
    if (slots[i]) continue;
    slots[i] = alloc_slot(p->slot_bytes[i]);
    if (!slots[i]) {
      st = hlx_make_status(HLX_STATUS_RESOURCE_EXHAUSTED,
                           "%s: cannot allocate %zu bytes for a buffer",
                           p->name, p->slot_bytes[i]);
      break;
    }
    owned[i] = p->slot_bytes[i] != 0;
  }
  ctx->depth++;
  enum { kMaxArgs = 64 };
  for (int32_t t = 0; t < p->num_tasks && !st; t++) {
    const hlx_task_t* task = &p->tasks[t];
    void* small_in[kMaxArgs];
    void* small_out[kMaxArgs];
    void** in = task->num_in <= kMaxArgs
                    ? small_in
                    : malloc((size_t)task->num_in * sizeof(void*));
    void** out = task->num_out <= kMaxArgs
                     ? small_out
                     : malloc((size_t)task->num_out * sizeof(void*));
    if (!in || !out) {
      st = hlx_status_oom();
    } else {
      for (int32_t i = 0; i < task->num_in; i++) in[i] = slots[task->in[i]];
      for (int32_t i = 0; i < task->num_out; i++) out[i] = slots[task->out[i]];
      st = task->fn(task->args, in, out, ctx);
      if (st) st = hlx_status_annotate(st, "%s", task->name);
    }
    if (in != small_in) free(in);
    if (out != small_out) free(out);
  }
  ctx->depth--;
  for (int32_t i = 0; i < p->num_results && !st; i++) {
    int32_t s = p->result_slots[i];
    if (p->slot_bytes[s]) memcpy(results[i], slots[s], p->slot_bytes[s]);
  }
  for (int32_t i = 0; i < p->num_slots; i++)
    if (owned[i]) free(slots[i]);
  free(slots);
  free(owned);
  return st;
}
