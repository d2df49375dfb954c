/* Buffer assignment (see buffer_assign.h).
 *
 * Tasks are visited in program order; each output slot is placed first-fit
 * in the arena's segment map. The map partitions [0, end) into segments,
 * each tagged with the slot that last occupied it: once slot B is placed
 * over (part of) A, A's users happen-before B's producer, so a later task
 * that may overwrite B may also overwrite what B covered, and only the
 * newest tag needs checking. */
#include "scheduler/buffer_assign.h"

#include <stdlib.h>
#include <string.h>

typedef struct seg_t {
  size_t off, size;
  int32_t slot;
} seg_t;

typedef struct ba_t {
  const hlx_plan_t* p;
  int32_t nt, ns;
  int32_t* def;          /* producer task, -1: none */
  int32_t* last;         /* last user in program order */
  unsigned char* pinned; /* never overwritten in a run */
  int32_t* rd_off;       /* readers of each slot (CSR, ns + 1) */
  int32_t* rd;
  uint64_t* anc; /* ancestors of each task (bitsets), NULL: add edges */
  size_t words;
  int32_t* safe_at; /* verdict cache: task it was computed for */
  unsigned char* safe_ok;
  int32_t* mark; /* per task: the task an edge from it was last added to */
  int32_t *xf, *xt;
  size_t nx, capx;
  seg_t *seg, *tmp;
  size_t nseg, capseg, end;
  bool overflow;
} ba_t;

static size_t round64(size_t b) { return (b + 63) & ~(size_t)63; }

static bool add_edge(ba_t* b, int32_t from, int32_t to) {
  if (from < 0 || from == to || b->mark[from] == to) return true;
  if (b->nx == b->capx) {
    size_t cap = b->capx ? b->capx * 2 : 64;
    int32_t* f = realloc(b->xf, cap * sizeof(int32_t));
    if (!f) return false;
    b->xf = f;
    int32_t* t = realloc(b->xt, cap * sizeof(int32_t));
    if (!t) return false;
    b->xt = t;
    b->capx = cap;
  }
  b->mark[from] = to;
  b->xf[b->nx] = from;
  b->xt[b->nx++] = to;
  return true;
}

static bool before(const ba_t* b, int32_t u, int32_t t) {
  const uint64_t* row = b->anc + (size_t)t * b->words;
  return (row[u >> 6] >> (u & 63)) & 1;
}

/* Whether every user of slot a but `except` happens-before task t (bitset
 * mode), or, without bitsets, adds the edges that make it so. */
static bool users_before(ba_t* b, int32_t a, int32_t t, int32_t except,
                         bool* oom) {
  int32_t d = b->def[a];
  if (!b->anc) {
    if (d != except && !add_edge(b, d, t)) *oom = true;
    for (int32_t k = b->rd_off[a]; k < b->rd_off[a + 1]; k++)
      if (b->rd[k] != except && !add_edge(b, b->rd[k], t)) *oom = true;
    return true;
  }
  if (d >= 0 && d != except && !before(b, d, t)) return false;
  for (int32_t k = b->rd_off[a]; k < b->rd_off[a + 1]; k++) {
    int32_t r = b->rd[k];
    if (r != except && !before(b, r, t)) return false;
  }
  return true;
}

/* Whether task t may overwrite a segment tagged `slot`. */
static bool available(ba_t* b, int32_t slot, int32_t t) {
  if (slot < 0) return true;
  if (b->pinned[slot] || b->last[slot] >= t) return false;
  if (!b->anc) return true; /* edges are added when it is taken */
  if (b->safe_at[slot] != t) {
    bool oom = false;
    b->safe_at[slot] = t;
    b->safe_ok[slot] = users_before(b, slot, t, -1, &oom);
  }
  return b->safe_ok[slot];
}

/* Puts slot s at [o, o + r) for task t (t < 0: before any task). */
static bool place(ba_t* b, int32_t s, size_t o, size_t r, int32_t t) {
  if (o + r < o) {
    b->overflow = true;
    return true;
  }
  size_t n = 0, hi = o + r;
  bool oom = false;
  for (size_t i = 0; i < b->nseg; i++) {
    seg_t g = b->seg[i];
    size_t ge = g.off + g.size;
    if (g.off < o) {
      b->tmp[n++] = (seg_t){g.off, (ge < o ? ge : o) - g.off, g.slot};
    } else if (g.off >= hi) {
      break;
    }
    if (ge > o && g.off < hi && t >= 0 && !b->anc && g.slot >= 0)
      (void)users_before(b, g.slot, t, -1, &oom);
  }
  b->tmp[n++] = (seg_t){o, r, s};
  for (size_t i = 0; i < b->nseg; i++) {
    seg_t g = b->seg[i];
    size_t ge = g.off + g.size;
    if (ge <= hi) continue;
    size_t from = g.off > hi ? g.off : hi;
    b->tmp[n++] = (seg_t){from, ge - from, g.slot};
  }
  seg_t* sw = b->seg;
  b->seg = b->tmp;
  b->tmp = sw;
  b->nseg = n;
  if (hi > b->end) b->end = hi;
  return !oom;
}

/* First fit: the lowest run of segments task t may overwrite that holds r
 * bytes, else the run at the end of the arena, extended (else the end).
 * Lowest-first packs long-lived buffers low and measured well below best
 * fit on the model files (chess 28.1 vs 38.3 MiB, ResNet-50 9.1 vs 12.9). */
static size_t first_fit(ba_t* b, size_t r, int32_t t) {
  size_t start = 0;
  bool in_run = false;
  for (size_t i = 0; i < b->nseg; i++) {
    if (available(b, b->seg[i].slot, t)) {
      if (!in_run) start = b->seg[i].off;
      in_run = true;
      continue;
    }
    if (in_run && b->seg[i].off - start >= r) return start;
    in_run = false;
  }
  return in_run ? start : b->end;
}

/* In place: output `out` of task t over a same-size input among in[k0,
 * k1) that dies at t and whose every other user happens-before t. -1 if
 * there is none. */
static int32_t in_place_input(ba_t* b, const hlx_task_t* task, int32_t t,
                              int32_t out, int32_t k0, int32_t k1,
                              const unsigned char* owned,
                              unsigned char* taken, bool* oom) {
  const hlx_plan_t* p = b->p;
  for (int32_t k = k0; k < k1; k++) {
    int32_t a = task->in[k];
    if (!owned[a] || taken[a] || b->pinned[a] || b->last[a] != t ||
        b->def[a] == t || p->slot_bytes[a] != p->slot_bytes[out])
      continue;
    if (b->anc && !users_before(b, a, t, t, oom)) continue;
    return a;
  }
  return -1;
}

/* The input output i of task t may be written over, or -1: any dying
 * input of an elementwise task; for HLX_TASK_OUT0_OVER_IN(k), output 0
 * over input k when no other input names the same slot. */
static int32_t in_place_for(ba_t* b, const hlx_task_t* task, int32_t t,
                            int32_t i, const unsigned char* owned,
                            unsigned char* taken, bool* oom) {
  int32_t s = task->out[i];
  if (task->flags & HLX_TASK_ELEMENTWISE)
    return in_place_input(b, task, t, s, 0, task->num_in, owned, taken, oom);
  if (i != 0 || !(task->flags & HLX_TASK_OUT0_OVER_IN_SET)) return -1;
  int32_t k = HLX_TASK_OUT0_OVER_IN_INDEX(task->flags);
  if (k >= task->num_in) return -1;
  for (int32_t j = 0; j < task->num_in; j++)
    if (j != k && task->in[j] == task->in[k]) return -1;
  return in_place_input(b, task, t, s, k, k + 1, owned, taken, oom);
}

static bool alloc_all(ba_t* b, bool bitsets) {
  size_t nt = (size_t)b->nt + 1, ns = (size_t)b->ns + 1;
  b->def = malloc(ns * sizeof(int32_t));
  b->last = malloc(ns * sizeof(int32_t));
  b->pinned = calloc(ns, 1);
  b->rd_off = calloc(ns + 1, sizeof(int32_t));
  b->safe_at = malloc(ns * sizeof(int32_t));
  b->safe_ok = calloc(ns, 1);
  b->mark = malloc(nt * sizeof(int32_t));
  b->capseg = 2 * ns + 4;
  b->seg = malloc(b->capseg * sizeof(seg_t));
  b->tmp = malloc(b->capseg * sizeof(seg_t));
  if (bitsets) {
    b->words = (nt + 63) / 64;
    b->anc = calloc(nt * b->words, sizeof(uint64_t));
  }
  return b->def && b->last && b->pinned && b->rd_off && b->safe_at &&
         b->safe_ok && b->mark && b->seg && b->tmp && (!bitsets || b->anc);
}

static void free_all(ba_t* b) {
  free(b->def);
  free(b->last);
  free(b->pinned);
  free(b->rd_off);
  free(b->rd);
  free(b->safe_at);
  free(b->safe_ok);
  free(b->mark);
  free(b->seg);
  free(b->tmp);
  free(b->anc);
}

/* Lifetimes, readers and pinned slots. */
static bool liveness(ba_t* b, const unsigned char* owned) {
  const hlx_plan_t* p = b->p;
  for (int32_t s = 0; s < b->ns; s++) {
    b->def[s] = -1;
    b->last[s] = -1;
    b->safe_at[s] = -1;
  }
  for (int32_t t = 0; t < b->nt; t++) {
    const hlx_task_t* task = &p->tasks[t];
    b->mark[t] = -1;
    for (int32_t i = 0; i < task->num_in; i++) {
      b->rd_off[task->in[i] + 1]++;
      b->last[task->in[i]] = t;
    }
    for (int32_t i = 0; i < task->num_out; i++) {
      int32_t s = task->out[i];
      b->def[s] = t;
      if (b->last[s] < t) b->last[s] = t;
    }
  }
  for (int32_t s = 0; s < b->ns; s++) b->rd_off[s + 1] += b->rd_off[s];
  b->rd = malloc(((size_t)b->rd_off[b->ns] + 1) * sizeof(int32_t));
  int32_t* fill = malloc(((size_t)b->ns + 1) * sizeof(int32_t));
  if (!b->rd || !fill) {
    free(fill);
    return false;
  }
  memcpy(fill, b->rd_off, (size_t)b->ns * sizeof(int32_t));
  for (int32_t t = 0; t < b->nt; t++)
    for (int32_t i = 0; i < p->tasks[t].num_in; i++)
      b->rd[fill[p->tasks[t].in[i]]++] = t;
  free(fill);
  for (int32_t i = 0; i < p->num_results; i++)
    b->pinned[p->result_slots[i]] = 1;
  for (int32_t s = 0; s < b->ns; s++)
    if (owned[s] && b->def[s] < 0) b->pinned[s] = 1;
  return true;
}

/* anc[t] = union over predecessors q of anc[q] + {q}. */
static bool ancestors(ba_t* b, const int32_t* from, const int32_t* to,
                      size_t ne) {
  int32_t* off = calloc((size_t)b->nt + 2, sizeof(int32_t));
  int32_t* pred = malloc((ne + 1) * sizeof(int32_t));
  if (!off || !pred) {
    free(off);
    free(pred);
    return false;
  }
  for (size_t e = 0; e < ne; e++) off[to[e] + 1]++;
  for (int32_t t = 0; t < b->nt; t++) off[t + 1] += off[t];
  for (size_t e = 0; e < ne; e++) pred[off[to[e]]++] = from[e];
  /* off[t] now ends t's list; t's list starts at off[t - 1]. */
  for (int32_t t = 0; t < b->nt; t++) {
    uint64_t* row = b->anc + (size_t)t * b->words;
    for (int32_t k = t ? off[t - 1] : 0; k < off[t]; k++) {
      int32_t q = pred[k];
      const uint64_t* qrow = b->anc + (size_t)q * b->words;
      for (size_t w = 0; w < b->words; w++) row[w] |= qrow[w];
      row[q >> 6] |= (uint64_t)1 << (q & 63);
    }
  }
  free(off);
  free(pred);
  return true;
}

/* The largest total size of slots live at one task (program order). */
static bool max_live(const ba_t* b, const unsigned char* owned,
                     size_t* out) {
  size_t* delta = calloc((size_t)b->nt + 2, sizeof(size_t));
  size_t* undo = calloc((size_t)b->nt + 2, sizeof(size_t));
  if (!delta || !undo) {
    free(delta);
    free(undo);
    return false;
  }
  for (int32_t s = 0; s < b->ns; s++) {
    if (!owned[s]) continue;
    size_t r = round64(b->p->slot_bytes[s]);
    int32_t from = b->def[s] < 0 ? 0 : b->def[s];
    int32_t to = b->pinned[s] ? b->nt : b->last[s];
    delta[from] += r;
    undo[to + 1] += r;
  }
  size_t live = 0, peak = 0;
  for (int32_t t = 0; t <= b->nt; t++) {
    live = live + delta[t] - undo[t];
    if (live > peak) peak = live;
  }
  free(delta);
  free(undo);
  *out = peak;
  return true;
}

static hlx_status_t assign_reusing(ba_t* b, const unsigned char* owned,
                                   const int32_t* edge_from,
                                   const int32_t* edge_to, size_t num_edges,
                                   size_t* slot_off, size_t* live_bytes) {
  const hlx_plan_t* p = b->p;
  bool bitsets = b->nt <= HLX_BUFFER_ASSIGN_MAX_REACH_TASKS;
  unsigned char* taken = calloc((size_t)b->ns + 1, 1);
  if (!taken || !alloc_all(b, bitsets) || !liveness(b, owned) ||
      (bitsets && !ancestors(b, edge_from, edge_to, num_edges)) ||
      !max_live(b, owned, live_bytes)) {
    free(taken);
    return hlx_status_oom();
  }
  bool ok = true;
  /* Slots no task writes live for the whole run. */
  for (int32_t s = 0; s < b->ns && ok; s++)
    if (owned[s] && b->def[s] < 0) {
      slot_off[s] = b->end;
      ok = place(b, s, b->end, round64(p->slot_bytes[s]), -1);
    }
  for (int32_t t = 0; t < b->nt && ok; t++) {
    const hlx_task_t* task = &p->tasks[t];
    for (int32_t i = 0; i < task->num_out && ok; i++) {
      int32_t s = task->out[i];
      if (!owned[s] || slot_off[s] != SIZE_MAX) continue;
      size_t r = round64(p->slot_bytes[s]);
      bool oom = false;
      int32_t a = in_place_for(b, task, t, i, owned, taken, &oom);
      if (a >= 0) {
        taken[a] = 1;
        slot_off[s] = slot_off[a];
      } else {
        slot_off[s] = first_fit(b, r, t);
      }
      ok = !oom && place(b, s, slot_off[s], r, t);
    }
  }
  free(taken);
  if (!ok) return hlx_status_oom();
  return NULL;
}

hlx_status_t hlx_buffer_assign(const hlx_plan_t* p, const unsigned char* owned,
                               const int32_t* edge_from,
                               const int32_t* edge_to, size_t num_edges,
                               bool reuse, hlx_buffer_assignment_t* out) {
  memset(out, 0, sizeof(*out));
  int32_t ns = p->num_slots;
  out->slot_off = malloc(((size_t)ns + 1) * sizeof(size_t));
  if (!out->slot_off) return hlx_status_oom();
  bool overflow = false;
  for (int32_t s = 0; s < ns; s++) {
    out->slot_off[s] = SIZE_MAX;
    if (!owned[s]) continue;
    size_t r = round64(p->slot_bytes[s]);
    if (r < p->slot_bytes[s] || out->sum_bytes + r < out->sum_bytes)
      overflow = true;
    out->sum_bytes += r;
  }
  if (overflow) {
    hlx_buffer_assignment_free(out);
    return hlx_make_status(HLX_STATUS_RESOURCE_EXHAUSTED,
                           "%s: buffers exceed the address space", p->name);
  }
  if (!reuse || ns > HLX_BUFFER_ASSIGN_MAX_SLOTS) {
    size_t off = 0;
    for (int32_t s = 0; s < ns; s++)
      if (owned[s]) {
        out->slot_off[s] = off;
        off += round64(p->slot_bytes[s]);
      }
    out->arena_bytes = off;
    out->live_bytes = off;
    return NULL;
  }
  ba_t b;
  memset(&b, 0, sizeof(b));
  b.p = p;
  b.nt = p->num_tasks;
  b.ns = ns;
  hlx_status_t st =
      assign_reusing(&b, owned, edge_from, edge_to, num_edges, out->slot_off,
                     &out->live_bytes);
  out->arena_bytes = b.end;
  out->num_extra = b.nx;
  out->extra_from = b.xf;
  out->extra_to = b.xt;
  free_all(&b);
  if (!st && b.overflow)
    st = hlx_make_status(HLX_STATUS_RESOURCE_EXHAUSTED,
                         "%s: buffers exceed the address space", p->name);
  if (st) hlx_buffer_assignment_free(out);
  return st;
}

void hlx_buffer_assignment_free(hlx_buffer_assignment_t* a) {
  free(a->slot_off);
  free(a->extra_from);
  free(a->extra_to);
  memset(a, 0, sizeof(*a));
}
