/* Constant folding at plan-building time.
 *
 * When a pure elementwise or data-movement task is about to be emitted and
 * every buffer it reads is a constant of the plan (or it reads none, like
 * iota), the task is run once, now, and its outputs become constants of
 * the plan: no run ever executes it again. The task's own kernel computes
 * the value, so folding cannot disagree with execution. Outputs above
 * kMaxFoldBytes stay tasks (folding would trade run time for plan memory);
 * a kernel that fails here is emitted as a task so the error surfaces at
 * run time, where it belongs. HLX_NO_CONSTANT_FOLD=1 turns folding off
 * (A/B checks). */
#include <stdlib.h>

#include "graph/lower/ctx.h"

enum { kMaxFoldBytes = 1 << 20, kMaxFoldArgs = 16 };

static bool folding_enabled(void) {
  const char* e = getenv("HLX_NO_CONSTANT_FOLD");
  return !(e && *e && *e != '0');
}

hlx_status_t hlx_lower_try_fold(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                hlx_task_fn fn, const void* args,
                                int32_t num_in, const int32_t* in,
                                int32_t num_out, const int32_t* out,
                                bool* folded) {
  *folded = false;
  hlx_plan_t* p = c->plan;
  if (num_out < 1 || num_in > kMaxFoldArgs || num_out > kMaxFoldArgs ||
      !hlx_lower_is_foldable(op->code) || !folding_enabled())
    return NULL;
  void* ins[kMaxFoldArgs];
  void* outs[kMaxFoldArgs];
  for (int32_t i = 0; i < num_in; i++) {
    if (!p->slot_data[in[i]]) return NULL;
    ins[i] = (void*)p->slot_data[in[i]];
  }
  size_t total = 0;
  for (int32_t i = 0; i < num_out; i++) {
    if (p->slot_data[out[i]]) return NULL; /* not a fresh result */
    total += p->slot_bytes[out[i]];
    if (total > kMaxFoldBytes) return NULL;
  }
  for (int32_t i = 0; i < num_out; i++) {
    outs[i] = hlx_arena_alloc(&p->arena, p->slot_bytes[out[i]] + 1);
    if (!outs[i]) return hlx_status_oom();
  }
  hlx_run_ctx_t ctx = {0};
  ctx.sequential = true;
  hlx_status_t st = fn(args, ins, outs, &ctx);
  if (st) {
    hlx_status_free(st);
    return NULL;
  }
  for (int32_t i = 0; i < num_out; i++) p->slot_data[out[i]] = outs[i];
  *folded = true;
  return NULL;
}
