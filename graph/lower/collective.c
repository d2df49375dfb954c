/* Replicas, partitions and collectives: replica_id, partition_id,
 * all_reduce, all_gather, all_to_all, reduce_scatter, collective_permute,
 * collective_broadcast, collective_reduce, send/recv, XLA's
 * cross_replica_sum, and the test-suite driver interpreter.run_parallel.
 *
 * A run of num_replicas x num_partitions processes is a thread group
 * (scheduler/collectives.h). Each collective task computes its process
 * group from replica_groups / channel_handle / use_global_device_ids (the
 * spec's cross_replica, cross_partition, cross_replica_and_partition and
 * flattened_ids), meets the group at the rendezvous, and computes its own
 * results from every member's operands in group order: reductions combine
 * in rank order, so every member gets bit-identical results. Without a
 * rendezvous (a plain single-process run) every group is the process
 * alone. Collective tasks are side-effecting (kept in program order).
 *
 * Members check each other's operand types at the meeting (check_peers):
 * which ops meet is only known at run time. The rules that depend on the
 * number of processes are checked before any run, when the grid is known
 * (graph/ops/process_counts.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/lower/ctx.h"
#include "graph/ops/process_counts.h"
#include "graph/lower/region_match.h"
#include "kernels/elementwise.h"
#include "scheduler/collectives.h"

enum { kMaxOperands = 64 };

typedef enum coll_kind_t {
  K_ALL_REDUCE = 1,
  K_ALL_GATHER,
  K_ALL_TO_ALL,
  K_REDUCE_SCATTER,
  K_PERMUTE,
  K_BROADCAST,
  K_COLL_REDUCE,
  K_SEND,
  K_RECV,
} coll_kind_t;

typedef enum coll_mode_t {
  M_CROSS_REPLICA,
  M_CROSS_PARTITION,
  M_CROSS_REPLICA_AND_PARTITION,
  M_FLATTENED,
} coll_mode_t;

typedef struct tinfo_t {
  hlx_dtype_t dtype;
  int32_t rank;
  int64_t dims[HLX_MAX_RANK];
  size_t es, bytes;
} tinfo_t;

typedef struct coll_args_t {
  coll_kind_t kind;
  coll_mode_t mode;
  const char* what; /* "stablehlo.all_reduce at 4:5" */
  int64_t channel;
  int32_t num_groups, group_width; /* replica_groups, -1 padded */
  const int64_t* groups;
  int32_t num_pairs; /* collective_permute */
  const int64_t* pairs;
  int32_t n;         /* data operands / results */
  tinfo_t* in;       /* n */
  tinfo_t* out;      /* n */
  int64_t dim;       /* all_gather_dim, scatter_dimension, split_dimension */
  int64_t dim2;      /* concat_dimension */
  int64_t split_count;
  bool dynamic_root; /* last operand: i32 roots */
  /* Reduction: a kernel per operand, or the region as a sub-plan. */
  hlx_binary_fn combine[kMaxOperands];
  const hlx_plan_t* body;
  int32_t num_captures; /* task inputs after the data operands (+ root) */
} coll_args_t;

/* ---- process groups ------------------------------------------------------ */

/* Writes the group (flat ids, in order) that process (r, p) belongs to
 * into g and returns its size (0: in no group). */
static int32_t find_group(const coll_args_t* a, int32_t R, int32_t P,
                          int32_t r, int32_t p, int32_t* g, int32_t* rank) {
  int32_t n = 0;
  *rank = -1;
  int32_t me = r * P + p;
  if (a->num_groups == 0 || a->group_width == 0) {
    /* No groups: every replica (or partition, or process) in one group. */
    if (a->mode == M_CROSS_PARTITION) {
      for (int32_t q = 0; q < P; q++) g[n++] = r * P + q;
    } else if (a->mode == M_CROSS_REPLICA) {
      for (int32_t q = 0; q < R; q++) g[n++] = q * P + p;
    } else {
      for (int32_t q = 0; q < R * P; q++) g[n++] = q;
    }
  } else {
    int32_t key = a->mode == M_CROSS_PARTITION ? p
                  : a->mode == M_FLATTENED     ? me
                                               : r;
    int32_t gi = -1;
    for (int32_t i = 0; i < a->num_groups && gi < 0; i++)
      for (int32_t j = 0; j < a->group_width; j++)
        if (a->groups[(size_t)i * a->group_width + j] == key) gi = i;
    if (gi < 0) return 0;
    const int64_t* grp = a->groups + (size_t)gi * a->group_width;
    int32_t w = 0;
    while (w < a->group_width && grp[w] >= 0) w++;
    switch (a->mode) {
      case M_CROSS_REPLICA:
        for (int32_t j = 0; j < w; j++) g[n++] = (int32_t)grp[j] * P + p;
        break;
      case M_CROSS_PARTITION:
        for (int32_t j = 0; j < w; j++) g[n++] = r * P + (int32_t)grp[j];
        break;
      case M_CROSS_REPLICA_AND_PARTITION:
        for (int32_t q = 0; q < P; q++)
          for (int32_t j = 0; j < w; j++) g[n++] = (int32_t)grp[j] * P + q;
        break;
      case M_FLATTENED:
        for (int32_t j = 0; j < w; j++) g[n++] = (int32_t)grp[j];
        break;
    }
  }
  for (int32_t i = 0; i < n; i++)
    if (g[i] == me) *rank = i;
  return n;
}

static uint64_t group_key(coll_kind_t kind, int64_t channel, const int32_t* g,
                          int32_t n) {
  uint64_t h = 1469598103934665603ull;
  for (int32_t i = 0; i < n; i++) {
    h ^= (uint64_t)(uint32_t)g[i];
    h *= 1099511628211ull;
  }
  h ^= (uint64_t)channel * 0x9e3779b97f4a7c15ull;
  return (h & ~((uint64_t)0xff << 56)) | ((uint64_t)kind << 56);
}

/* ---- data movement helpers ----------------------------------------------- */

/* Copies the box `box` (rank dims) from src (dims sdims) at soff to dst
 * (dims ddims) at doff. */
static void copy_box(const unsigned char* src, const int64_t* sdims,
                     const int64_t* soff, unsigned char* dst,
                     const int64_t* ddims, const int64_t* doff,
                     const int64_t* box, int32_t rank, size_t es) {
  for (int32_t d = 0; d < rank; d++)
    if (box[d] == 0) return;
  if (rank == 0) {
    memcpy(dst, src, es);
    return;
  }
  int64_t sstr[HLX_MAX_RANK], dstr[HLX_MAX_RANK], s = 1, t = 1;
  for (int32_t d = rank - 1; d >= 0; d--) {
    sstr[d] = s;
    dstr[d] = t;
    s *= sdims[d];
    t *= ddims[d];
  }
  int64_t idx[HLX_MAX_RANK] = {0};
  size_t row = (size_t)box[rank - 1] * es;
  for (;;) {
    int64_t so = 0, dof = 0;
    for (int32_t d = 0; d < rank; d++) {
      so += (soff[d] + (d == rank - 1 ? 0 : idx[d])) * sstr[d];
      dof += (doff[d] + (d == rank - 1 ? 0 : idx[d])) * dstr[d];
    }
    memcpy(dst + (size_t)dof * es, src + (size_t)so * es, row);
    int32_t d = rank - 2;
    for (; d >= 0; d--) {
      if (++idx[d] < box[d]) break;
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

/* acc = acc (op) x for operand j, elementwise. */
static hlx_status_t combine_into(const coll_args_t* a, int32_t j, void* acc,
                                 const void* x, const void* const* caps,
                                 hlx_run_ctx_t* ctx) {
  const tinfo_t* t = &a->in[j];
  size_t count = t->es ? t->bytes / t->es : 0;
  if (a->combine[j]) {
    a->combine[j](acc, x, acc, count);
    return NULL;
  }
  int32_t np = 2 + a->num_captures;
  const void* params[2 + kMaxOperands];
  unsigned char tmp[64];
  void* res[1] = {tmp};
  for (int32_t c = 0; c < a->num_captures; c++) params[2 + c] = caps[c];
  (void)np;
  for (size_t i = 0; i < count; i++) {
    unsigned char* ai = (unsigned char*)acc + i * t->es;
    params[0] = ai;
    params[1] = (const unsigned char*)x + i * t->es;
    HLX_RETURN_IF_ERROR(hlx_plan_execute(a->body, params, res, ctx));
    memcpy(ai, tmp, t->es);
  }
  return NULL;
}

/* What each member contributes: its task inputs, the op it is at (peers
 * may reach the meeting from different ops: branches on replica_id,
 * interpreter.run_parallel programs) and its flat process id. */
typedef struct contribution_t {
  void* const* in;
  const coll_args_t* a;
  int32_t process;
} contribution_t;

/* "tensor<4x4096xf32>" into buf (400 bytes hold rank HLX_MAX_RANK). */
static const char* type_text(const tinfo_t* t, char* buf, size_t len) {
  size_t n = (size_t)snprintf(buf, len, "tensor<");
  for (int32_t d = 0; d < t->rank && n < len; d++)
    n += (size_t)snprintf(buf + n, len - n, "%lldx", (long long)t->dims[d]);
  if (n < len) snprintf(buf + n, len - n, "%s>", hlx_dtype_name(t->dtype));
  return buf;
}

/* "replica 1" (or "replica 1 partition 0" when there are partitions). */
static const char* process_text(int32_t process, int32_t P, char* buf,
                                size_t len) {
  if (P > 1)
    snprintf(buf, len, "replica %d partition %d", process / P, process % P);
  else
    snprintf(buf, len, "replica %d", process);
  return buf;
}

static const char* role(const coll_args_t* a) {
  return a->kind == K_SEND ? "sends" : a->kind == K_RECV ? "receives" : "has";
}

/* Every member reads the others' operands with its own types, so they must
 * agree (operand count, element types, shapes). Each member runs this on
 * the same contributions, so either all of them fail or none does: nobody
 * is left waiting. (The executor prefixes the op's name.) */
static hlx_status_t check_peers(contribution_t* const* all, int32_t gsize,
                                int32_t P) {
  const contribution_t* first = all[0];
  for (int32_t r = 1; r < gsize; r++) {
    const contribution_t* peer = all[r];
    char p0[64], p1[64], t0[400], t1[400];
    process_text(first->process, P, p0, sizeof p0);
    process_text(peer->process, P, p1, sizeof p1);
    if (peer->a->n != first->a->n)
      return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                             "%s %s %d operands, %s %s %d: the processes of "
                             "a collective must agree on its operands",
                             p0, role(first->a), first->a->n, p1,
                             role(peer->a), peer->a->n);
    for (int32_t j = 0; j < first->a->n; j++) {
      const tinfo_t* x = &first->a->in[j];
      const tinfo_t* y = &peer->a->in[j];
      if (x->dtype == y->dtype && x->rank == y->rank &&
          memcmp(x->dims, y->dims, sizeof(int64_t) * (size_t)x->rank) == 0)
        continue;
      char where[300] = "";
      if (strcmp(peer->a->what, first->a->what) != 0)
        snprintf(where, sizeof where, " (%s is at %s)", p1, peer->a->what);
      char operand[32] = "";
      if (first->a->n > 1)
        snprintf(operand, sizeof operand, " as operand #%d", j);
      return hlx_make_status(
          HLX_STATUS_INVALID_ARGUMENT,
          "%s %s %s, %s %s %s%s: the processes of a collective must agree "
          "on its operand types%s",
          p0, role(first->a), type_text(x, t0, sizeof t0), p1, role(peer->a),
          type_text(y, t1, sizeof t1), operand, where);
    }
  }
  return NULL;
}

static hlx_status_t reduce_all(const coll_args_t* a, int32_t j,
                               contribution_t* const* all, int32_t gsize,
                               void* out, const void* const* caps,
                               hlx_run_ctx_t* ctx) {
  memcpy(out, all[0]->in[j], a->in[j].bytes);
  for (int32_t r = 1; r < gsize; r++)
    HLX_RETURN_IF_ERROR(combine_into(a, j, out, all[r]->in[j], caps, ctx));
  return NULL;
}

/* Computes this member's results from all contributions (group order). */
static hlx_status_t compute(const coll_args_t* a, contribution_t* const* all,
                            int32_t gsize, int32_t rank, bool in_group,
                            void* const* in, void* const* out,
                            hlx_run_ctx_t* ctx) {
  int32_t extra = a->dynamic_root ? 1 : 0;
  const void* const* caps = (const void* const*)in + a->n + extra;
  for (int32_t j = 0; j < a->n; j++) {
    const tinfo_t* ti = &a->in[j];
    const tinfo_t* to = &a->out[j];
    if (!in_group) {
      /* Not in any group: zeros (broadcast/reduce/permute), or own data. */
      if (a->kind == K_BROADCAST || a->kind == K_COLL_REDUCE ||
          a->kind == K_PERMUTE)
        memset(out[j], 0, to->bytes);
      else if (to->bytes == ti->bytes)
        memcpy(out[j], in[j], to->bytes);
      else
        memset(out[j], 0, to->bytes);
      continue;
    }
    switch (a->kind) {
      case K_ALL_REDUCE:
        HLX_RETURN_IF_ERROR(reduce_all(a, j, all, gsize, out[j], caps, ctx));
        break;
      case K_COLL_REDUCE: {
        int32_t root = 0;
        if (a->dynamic_root) root = ((const int32_t*)in[a->n])[j];
        if (root < 0 || root >= gsize)
          return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                                 "%s: root %d is outside the group of %d",
                                 a->what, root, gsize);
        if (rank == root)
          HLX_RETURN_IF_ERROR(
              reduce_all(a, j, all, gsize, out[j], caps, ctx));
        else
          memset(out[j], 0, to->bytes);
        break;
      }
      case K_ALL_GATHER: {
        int64_t zero[HLX_MAX_RANK] = {0}, off[HLX_MAX_RANK] = {0};
        for (int32_t r = 0; r < gsize; r++) {
          off[a->dim] = r * ti->dims[a->dim];
          copy_box(all[r]->in[j], ti->dims, zero, out[j], to->dims, off,
                   ti->dims, ti->rank, ti->es);
        }
        break;
      }
      case K_REDUCE_SCATTER: {
        unsigned char* tmp = malloc(ti->bytes ? ti->bytes : 1);
        if (!tmp) return hlx_status_oom();
        hlx_status_t st = reduce_all(a, j, all, gsize, tmp, caps, ctx);
        if (!st) {
          int64_t soff[HLX_MAX_RANK] = {0}, zero[HLX_MAX_RANK] = {0};
          soff[a->dim] = rank * to->dims[a->dim];
          copy_box(tmp, ti->dims, soff, out[j], to->dims, zero, to->dims,
                   ti->rank, ti->es);
        }
        free(tmp);
        HLX_RETURN_IF_ERROR(st);
        break;
      }
      case K_ALL_TO_ALL: {
        int64_t part = ti->dims[a->dim] / a->split_count;
        int64_t box[HLX_MAX_RANK], soff[HLX_MAX_RANK] = {0},
            doff[HLX_MAX_RANK] = {0};
        memcpy(box, ti->dims, sizeof box);
        box[a->dim] = part;
        for (int32_t s = 0; s < gsize; s++) {
          soff[a->dim] = rank * part;
          for (int32_t d = 0; d < ti->rank; d++)
            if (d != a->dim) soff[d] = 0;
          doff[a->dim2] = s * box[a->dim2];
          copy_box(all[s]->in[j], ti->dims, soff, out[j], to->dims, doff,
                   box, ti->rank, ti->es);
          doff[a->dim2] = 0;
        }
        break;
      }
      case K_BROADCAST: {
        int32_t root = 0;
        if (a->dynamic_root) root = ((const int32_t*)in[a->n])[j];
        if (root < 0 || root >= gsize)
          return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                                 "%s: (C6) root %d is outside the group of "
                                 "%d",
                                 a->what, root, gsize);
        memcpy(out[j], all[root]->in[j], to->bytes);
        break;
      }
      case K_PERMUTE: {
        int32_t src = -1;
        for (int32_t k = 0; k < a->num_pairs; k++)
          if (a->pairs[2 * k + 1] == rank) src = (int32_t)a->pairs[2 * k];
        if (src >= 0 && src < gsize)
          memcpy(out[j], all[src]->in[j], to->bytes);
        else
          memset(out[j], 0, to->bytes);
        break;
      }
      default:
        break;
    }
  }
  return NULL;
}

static hlx_status_t run_collective(const void* args, void* const* in,
                                   void* const* out, hlx_run_ctx_t* ctx) {
  const coll_args_t* a = args;
  hlx_rendezvous_t* rv = ctx->rendezvous;
  int32_t R = hlx_rendezvous_num_replicas(rv);
  int32_t P = hlx_rendezvous_num_partitions(rv);
  int32_t r = rv ? ctx->replica_id : 0, p = rv ? ctx->partition_id : 0;
  int32_t* g = malloc(sizeof(int32_t) * (size_t)R * (size_t)P + 4);
  if (!g) return hlx_status_oom();
  int32_t rank, gsize;
  if (a->kind == K_PERMUTE) {
    /* Everyone along the replica (or partition) axis meets; pairs name
     * replica (partition) ids, i.e. ranks. */
    gsize = 0;
    if (a->mode == M_CROSS_PARTITION)
      for (int32_t q = 0; q < P; q++) g[gsize++] = r * P + q;
    else
      for (int32_t q = 0; q < R; q++) g[gsize++] = q * P + p;
    rank = a->mode == M_CROSS_PARTITION ? p : r;
  } else {
    gsize = find_group(a, R, P, r, p, g, &rank);
  }
  contribution_t mine = {in, a, r * P + p};
  hlx_status_t st = NULL;
  if (gsize == 0 || rank < 0) {
    st = compute(a, NULL, 0, -1, false, in, out, ctx);
  } else if (gsize == 1 || !rv) {
    contribution_t* all[1] = {&mine};
    st = compute(a, all, 1, 0, true, in, out, ctx);
  } else {
    hlx_meeting_t* m;
    st = hlx_rendezvous_join(rv, a->what, r * P + p,
                             group_key(a->kind, a->channel, g, gsize), gsize,
                             rank, &mine, &m);
    if (!st) {
      contribution_t* const* all = (contribution_t* const*)hlx_meeting_data(m);
      st = check_peers(all, gsize, P);
      if (!st) st = compute(a, all, gsize, rank, true, in, out, ctx);
      hlx_rendezvous_leave(rv, m);
    }
  }
  free(g);
  return st;
}

/* send/recv: the k-th send on a channel meets the k-th recv on it. */
static hlx_status_t run_p2p(const void* args, void* const* in,
                            void* const* out, hlx_run_ctx_t* ctx) {
  const coll_args_t* a = args;
  hlx_rendezvous_t* rv = ctx->rendezvous;
  if (!rv)
    return hlx_make_status(HLX_STATUS_FAILED_PRECONDITION,
                           "%s: no peer: send/recv need a run of several "
                           "processes (interpreter.run_parallel or "
                           "num_replicas/num_partitions)",
                           a->what);
  int32_t P = hlx_rendezvous_num_partitions(rv);
  int32_t me = ctx->replica_id * P + ctx->partition_id;
  contribution_t mine = {in, a, me};
  hlx_meeting_t* m;
  HLX_RETURN_IF_ERROR(hlx_rendezvous_join(
      rv, a->what, me, ((uint64_t)K_SEND << 56) ^ (uint64_t)a->channel, 2,
      a->kind == K_SEND ? 0 : 1, &mine, &m));
  /* Rank 0 is the sender: its operand types are the receiver's results'. */
  contribution_t* const* all = (contribution_t* const*)hlx_meeting_data(m);
  hlx_status_t st = check_peers(all, 2, P);
  if (!st && a->kind == K_RECV)
    for (int32_t j = 0; j < a->n; j++)
      memcpy(out[j], all[0]->in[j], a->out[j].bytes);
  hlx_rendezvous_leave(rv, m);
  return st;
}

/* ---- lowering ------------------------------------------------------------ */

static hlx_status_t tinfo(const hlx_op_t* op, const hlx_value_t* v,
                          const char* what, int i, tinfo_t* t) {
  const hlx_type_t* ty = hlx_static_tensor(v);
  if (!ty || ty->rank > HLX_MAX_RANK)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: %s #%d must be a static tensor", what,
                        i);
  memset(t, 0, sizeof(*t));
  t->dtype = ty->dtype;
  t->rank = ty->rank;
  for (int32_t d = 0; d < ty->rank; d++) t->dims[d] = ty->dims[d];
  t->es = hlx_dtype_size(ty->dtype);
  t->bytes = hlx_tensor_bytes(ty);
  return NULL;
}

static hlx_status_t read_channel(const hlx_op_t* op, int64_t* channel) {
  *channel = 0;
  const hlx_attr_t* a = hlx_op_attr(op, "channel_handle");
  if (!a) a = hlx_op_attr(op, "channel_id");
  if (!a) return NULL;
  if (a->kind == HLX_ATTR_INT) {
    *channel = a->i;
    return NULL;
  }
  if (a->kind == HLX_ATTR_STRUCT || a->kind == HLX_ATTR_DICT) {
    const hlx_attr_t* h = hlx_attr_dict_get(a, "handle");
    if (h && h->kind == HLX_ATTR_INT) {
      *channel = h->i;
      return NULL;
    }
  }
  return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                      "channel_handle must be #stablehlo.channel_handle<"
                      "handle = N, type = T>");
}

static bool flag_attr(const hlx_op_t* op, const char* name) {
  const hlx_attr_t* a = hlx_op_attr(op, name);
  if (!a) return false;
  if (a->kind == HLX_ATTR_BOOL) return a->b;
  return a->kind == HLX_ATTR_UNIT;
}

/* A 2-D i64 dense attribute (or absent / empty). */
static hlx_status_t read_groups(const hlx_op_t* op, const char* name,
                                int32_t* rows, int32_t* cols,
                                const int64_t** vals) {
  *rows = *cols = 0;
  *vals = NULL;
  const hlx_attr_t* a = hlx_op_attr(op, name);
  if (!a) return NULL;
  if (a->kind != HLX_ATTR_DENSE || !a->type || a->type->rank != 2 ||
      a->type->dtype != HLX_DTYPE_S64)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "%s must be a 2-D tensor constant of si64", name);
  *rows = (int32_t)a->type->dims[0];
  *cols = (int32_t)a->type->dims[1];
  *vals = a->dense;
  return NULL;
}

static coll_args_t* new_args(hlx_lower_ctx_t* c, const hlx_op_t* op,
                             coll_kind_t kind) {
  coll_args_t* a = hlx_lower_alloc(c, sizeof(*a));
  if (!a) return NULL;
  memset(a, 0, sizeof(*a));
  a->kind = kind;
  char where[256];
  hlx_op_where(op, where, sizeof where);
  a->what = hlx_arena_strndup(&c->plan->arena, where, strlen(where));
  return a->what ? a : NULL;
}

/* Checks replica_groups: ids unique and in [0, limit) (or -1 padding). */
static hlx_status_t check_groups(const hlx_op_t* op, const coll_args_t* a) {
  for (int32_t i = 0; i < a->num_groups * a->group_width; i++) {
    int64_t v = a->groups[i];
    if (v < -1)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "replica_groups entry %lld is negative (C2)",
                          (long long)v);
    for (int32_t k = 0; k < i && v >= 0; k++)
      if (a->groups[k] == v)
        return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                            "replica_groups repeats id %lld (is_unique)",
                            (long long)v);
  }
  return NULL;
}

/* Emits the task: inputs = operands (+ captures), outputs = results. */
static hlx_status_t emit_collective(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                    coll_args_t* a, hlx_task_fn fn,
                                    const hlx_value_t** caps, int32_t ncap) {
  int32_t nin = 0, nout = 0;
  int32_t* ins;
  int32_t* outs;
  HLX_RETURN_IF_ERROR(hlx_lower_flatten(c, op, false, &ins, &nin));
  if (ncap) {
    int32_t* all = hlx_lower_alloc(c, sizeof(int32_t) * (size_t)(nin + ncap));
    if (!all) return hlx_status_oom();
    memcpy(all, ins, sizeof(int32_t) * (size_t)nin);
    for (int32_t i = 0; i < ncap; i++) {
      hlx_value_slots_t s;
      HLX_RETURN_IF_ERROR(hlx_lower_slots_of(c, caps[i], &s));
      if (s.n != 1)
        return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                            "unsupported: the computation captures a tuple");
      all[nin + i] = s.slots[0];
    }
    ins = all;
    nin += ncap;
  }
  HLX_RETURN_IF_ERROR(hlx_lower_flatten(c, op, true, &outs, &nout));
  HLX_RETURN_IF_ERROR(hlx_lower_emit(c, op, fn, a, nin, ins, nout, outs));
  hlx_plan_last_task_set_flags(c->plan, HLX_TASK_SIDE_EFFECT);
  return NULL;
}

/* Reduction computation: a kernel when the body is one binary op. */
static hlx_status_t setup_reduction(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                    coll_args_t* a, const hlx_value_t*** caps,
                                    int32_t* ncap) {
  *caps = NULL;
  *ncap = 0;
  if (op->num_regions != 1)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "needs a reduction computation region");
  hlx_reduce_op_t rop;
  bool simple = hlx_region_is_simple_combiner(op->regions[0], &rop);
  for (int32_t j = 0; j < a->n && simple; j++) {
    hlx_binary_op_t bop = HLX_BINARY_ADD;
    bool pred = a->in[j].dtype == HLX_DTYPE_PRED;
    switch (rop) {
      case HLX_REDUCE_ADD: bop = pred ? HLX_BINARY_OR : HLX_BINARY_ADD; break;
      case HLX_REDUCE_MUL: bop = pred ? HLX_BINARY_AND : HLX_BINARY_MULTIPLY; break;
      case HLX_REDUCE_MAX: bop = HLX_BINARY_MAXIMUM; break;
      case HLX_REDUCE_MIN: bop = HLX_BINARY_MINIMUM; break;
      case HLX_REDUCE_AND: bop = HLX_BINARY_AND; break;
      case HLX_REDUCE_OR: bop = HLX_BINARY_OR; break;
      case HLX_REDUCE_XOR: bop = HLX_BINARY_XOR; break;
    }
    hlx_dtype_t od;
    a->combine[j] = hlx_ref_binary_kernel(bop, a->in[j].dtype, &od);
    if (!a->combine[j] || od != a->in[j].dtype) simple = false;
  }
  if (simple) return NULL;
  for (int32_t j = 0; j < a->n; j++) {
    a->combine[j] = NULL;
    if (a->in[j].es > 64)
      return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                          "unsupported: element type too wide");
  }
  hlx_plan_t* body;
  HLX_RETURN_IF_ERROR(hlx_lower_region(c, op->regions[0], &body, caps, ncap));
  if (*ncap > kMaxOperands)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: computation captures %d values", *ncap);
  if (body->num_params != 2 + *ncap || body->num_results != 1)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "computation must take two scalars and return one");
  a->body = body;
  a->num_captures = *ncap;
  return NULL;
}

static hlx_status_t lower_group_op(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                   coll_kind_t kind) {
  coll_args_t* a = new_args(c, op, kind);
  if (!a) return hlx_status_oom();
  bool dyn = kind == K_BROADCAST || kind == K_COLL_REDUCE
                 ? flag_attr(op, "has_dynamic_root")
                 : false;
  a->dynamic_root = dyn;
  a->n = op->num_operands - (dyn ? 1 : 0);
  if (a->n < 1 || a->n > kMaxOperands || op->num_results != a->n)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "needs 1 to %d operands and as many results",
                        kMaxOperands);
  a->in = hlx_lower_alloc(c, sizeof(tinfo_t) * (size_t)a->n);
  a->out = hlx_lower_alloc(c, sizeof(tinfo_t) * (size_t)a->n);
  if (!a->in || !a->out) return hlx_status_oom();
  for (int32_t j = 0; j < a->n; j++) {
    HLX_RETURN_IF_ERROR(tinfo(op, op->operands[j], "operand", j, &a->in[j]));
    HLX_RETURN_IF_ERROR(tinfo(op, op->results[j], "result", j, &a->out[j]));
  }
  if (dyn) {
    const hlx_type_t* rt = hlx_static_tensor(op->operands[a->n]);
    if (!rt || rt->dtype != HLX_DTYPE_S32 || rt->rank != 1 ||
        rt->dims[0] != a->n)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "has_dynamic_root: the last operand must be "
                          "tensor<%dxi32> of roots",
                          a->n);
  }
  HLX_RETURN_IF_ERROR(read_channel(op, &a->channel));
  bool global = flag_attr(op, "use_global_device_ids");
  if (global && a->channel <= 0)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "use_global_device_ids needs channel_id > 0");
  bool three_modes = kind == K_ALL_REDUCE || kind == K_ALL_GATHER ||
                     kind == K_REDUCE_SCATTER;
  if (three_modes)
    a->mode = a->channel <= 0 ? M_CROSS_REPLICA
              : global        ? M_FLATTENED
                              : M_CROSS_REPLICA_AND_PARTITION;
  else
    a->mode = a->channel <= 0 ? M_CROSS_REPLICA : M_CROSS_PARTITION;
  if (kind == K_PERMUTE) {
    int32_t rows, cols;
    HLX_RETURN_IF_ERROR(
        read_groups(op, "source_target_pairs", &rows, &cols, &a->pairs));
    if (rows && cols != 2)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "source_target_pairs must have shape [N, 2]");
    a->num_pairs = rows;
    for (int32_t i = 0; i < 2 * rows; i++)
      if (a->pairs[i] < 0)
        return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                            "source_target_pairs has a negative id");
  } else {
    HLX_RETURN_IF_ERROR(read_groups(op, "replica_groups", &a->num_groups,
                                    &a->group_width, &a->groups));
    HLX_RETURN_IF_ERROR(check_groups(op, a));
  }
  for (int32_t j = 0; j < a->n; j++) {
    const tinfo_t* ti = &a->in[j];
    const tinfo_t* to = &a->out[j];
    if (ti->dtype != to->dtype)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "result #%d element type differs from operand #%d",
                          j, j);
    bool same_shape = ti->rank == to->rank &&
                      memcmp(ti->dims, to->dims, sizeof(int64_t) *
                                                     (size_t)ti->rank) == 0;
    if ((kind == K_ALL_REDUCE || kind == K_BROADCAST || kind == K_PERMUTE ||
         kind == K_COLL_REDUCE) &&
        !same_shape)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "result #%d must have the type of operand #%d", j,
                          j);
  }
  const hlx_value_t** caps = NULL;
  int32_t ncap = 0;
  if (kind == K_ALL_GATHER || kind == K_REDUCE_SCATTER) {
    HLX_RETURN_IF_ERROR(hlx_attr_int(op, kind == K_ALL_GATHER
                                             ? "all_gather_dim"
                                             : "scatter_dimension",
                                     true, 0, &a->dim));
    for (int32_t j = 0; j < a->n; j++) {
      const tinfo_t* ti = &a->in[j];
      const tinfo_t* to = &a->out[j];
      if (a->dim < 0 || a->dim >= ti->rank || to->rank != ti->rank)
        return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                            "%s %lld is out of range for operand #%d (C1)",
                            kind == K_ALL_GATHER ? "all_gather_dim"
                                                 : "scatter_dimension",
                            (long long)a->dim, j);
      for (int32_t d = 0; d < ti->rank; d++) {
        if (d == a->dim) continue;
        if (ti->dims[d] != to->dims[d])
          return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                              "result #%d dim %d must equal the operand's", j,
                              d);
      }
      int64_t small = kind == K_ALL_GATHER ? ti->dims[a->dim]
                                           : to->dims[a->dim];
      int64_t big = kind == K_ALL_GATHER ? to->dims[a->dim]
                                         : ti->dims[a->dim];
      if (small == 0 ? big != 0 : big % small != 0)
        return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                            "dim %lld of the result (%lld) is not a multiple "
                            "of the operand's (%lld)",
                            (long long)a->dim,
                            (long long)to->dims[a->dim],
                            (long long)ti->dims[a->dim]);
    }
  }
  if (kind == K_ALL_TO_ALL) {
    HLX_RETURN_IF_ERROR(hlx_attr_int(op, "split_dimension", true, 0, &a->dim));
    HLX_RETURN_IF_ERROR(
        hlx_attr_int(op, "concat_dimension", true, 0, &a->dim2));
    HLX_RETURN_IF_ERROR(
        hlx_attr_int(op, "split_count", true, 0, &a->split_count));
    for (int32_t j = 0; j < a->n; j++) {
      const tinfo_t* ti = &a->in[j];
      if (a->dim < 0 || a->dim >= ti->rank || a->dim2 < 0 ||
          a->dim2 >= ti->rank)
        return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                            "split_dimension/concat_dimension out of range "
                            "(C1, C3)");
      if (a->split_count <= 0 || ti->dims[a->dim] % a->split_count)
        return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                            "dim %lld (%lld) is not divisible by split_count "
                            "%lld (C2, C4)",
                            (long long)a->dim, (long long)ti->dims[a->dim],
                            (long long)a->split_count);
    }
    if (a->group_width && a->group_width != a->split_count)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "replica groups have %d members, split_count is "
                          "%lld (C8)",
                          a->group_width, (long long)a->split_count);
  }
  if (kind == K_ALL_REDUCE || kind == K_REDUCE_SCATTER ||
      kind == K_COLL_REDUCE)
    HLX_RETURN_IF_ERROR(setup_reduction(c, op, a, &caps, &ncap));
  return emit_collective(c, op, a, run_collective, caps, ncap);
}

static hlx_status_t lower_all_reduce(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  return lower_group_op(c, op, K_ALL_REDUCE);
}
static hlx_status_t lower_all_gather(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  return lower_group_op(c, op, K_ALL_GATHER);
}
static hlx_status_t lower_all_to_all(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  return lower_group_op(c, op, K_ALL_TO_ALL);
}
static hlx_status_t lower_reduce_scatter(hlx_lower_ctx_t* c,
                                         const hlx_op_t* op) {
  return lower_group_op(c, op, K_REDUCE_SCATTER);
}
static hlx_status_t lower_permute(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  return lower_group_op(c, op, K_PERMUTE);
}
static hlx_status_t lower_broadcast(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  return lower_group_op(c, op, K_BROADCAST);
}
static hlx_status_t lower_coll_reduce(hlx_lower_ctx_t* c,
                                      const hlx_op_t* op) {
  return lower_group_op(c, op, K_COLL_REDUCE);
}

/* XLA CrossReplicaSum: all_reduce(add) over replica_groups. */
static hlx_status_t lower_cross_replica_sum(hlx_lower_ctx_t* c,
                                            const hlx_op_t* op) {
  coll_args_t* a = new_args(c, op, K_ALL_REDUCE);
  if (!a) return hlx_status_oom();
  a->n = op->num_operands;
  if (a->n < 1 || a->n > kMaxOperands || op->num_results != a->n)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "needs 1 to %d operands and as many results",
                        kMaxOperands);
  a->in = hlx_lower_alloc(c, sizeof(tinfo_t) * (size_t)a->n);
  a->out = a->in;
  if (!a->in) return hlx_status_oom();
  for (int32_t j = 0; j < a->n; j++) {
    HLX_RETURN_IF_ERROR(tinfo(op, op->operands[j], "operand", j, &a->in[j]));
    tinfo_t r;
    HLX_RETURN_IF_ERROR(tinfo(op, op->results[j], "result", j, &r));
    if (r.dtype != a->in[j].dtype || r.bytes != a->in[j].bytes)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "result #%d must have the type of operand #%d", j,
                          j);
    hlx_dtype_t od;
    a->combine[j] = hlx_ref_binary_kernel(
        a->in[j].dtype == HLX_DTYPE_PRED ? HLX_BINARY_OR : HLX_BINARY_ADD,
        a->in[j].dtype, &od);
    if (!a->combine[j])
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "operand #%d: element type %s cannot be summed", j,
                          hlx_dtype_name(a->in[j].dtype));
  }
  a->mode = M_CROSS_REPLICA;
  HLX_RETURN_IF_ERROR(read_groups(op, "replica_groups", &a->num_groups,
                                  &a->group_width, &a->groups));
  HLX_RETURN_IF_ERROR(check_groups(op, a));
  return emit_collective(c, op, a, run_collective, NULL, 0);
}

/* send(operands..., token) -> token; recv(token) -> (results..., token). */
static hlx_status_t lower_p2p(hlx_lower_ctx_t* c, const hlx_op_t* op,
                              coll_kind_t kind) {
  coll_args_t* a = new_args(c, op, kind);
  if (!a) return hlx_status_oom();
  HLX_RETURN_IF_ERROR(read_channel(op, &a->channel));
  if (kind == K_SEND) {
    a->n = op->num_operands - 1;
    if (a->n < 0 || op->num_results != 1)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "needs operands, a token and one token result");
  } else {
    a->n = op->num_results - 1;
    if (a->n < 0 || op->num_operands != 1)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "needs a token operand, results and a token");
  }
  if (a->n > kMaxOperands)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: more than %d values", kMaxOperands);
  a->in = hlx_lower_alloc(c, sizeof(tinfo_t) * (size_t)(a->n + 1));
  a->out = a->in;
  if (!a->in) return hlx_status_oom();
  for (int32_t j = 0; j < a->n; j++)
    HLX_RETURN_IF_ERROR(tinfo(op,
                              kind == K_SEND ? op->operands[j]
                                             : op->results[j],
                              kind == K_SEND ? "operand" : "result", j,
                              &a->in[j]));
  return emit_collective(c, op, a, run_p2p, NULL, 0);
}

static hlx_status_t lower_send(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  return lower_p2p(c, op, K_SEND);
}
static hlx_status_t lower_recv(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  return lower_p2p(c, op, K_RECV);
}

/* ---- replica_id / partition_id ------------------------------------------ */

static hlx_status_t run_replica_id(const void* args, void* const* in,
                                   void* const* out, hlx_run_ctx_t* ctx) {
  (void)in;
  uint32_t v = (uint32_t)(args ? ctx->partition_id : ctx->replica_id);
  memcpy(out[0], &v, 4);
  return NULL;
}

static hlx_status_t lower_id(hlx_lower_ctx_t* c, const hlx_op_t* op,
                             bool partition) {
  const hlx_type_t* t =
      op->num_results == 1 ? hlx_static_tensor(op->results[0]) : NULL;
  if (op->num_operands != 0 || !t || t->rank != 0 ||
      t->dtype != HLX_DTYPE_U32)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "result must be tensor<ui32>");
  int32_t out;
  HLX_RETURN_IF_ERROR(hlx_lower_out(c, op, 0, &out));
  /* args: non-NULL selects the partition id. */
  return hlx_lower_emit(c, op, run_replica_id, partition ? (void*)op : NULL,
                        0, NULL, 1, &out);
}

static hlx_status_t lower_replica_id(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  return lower_id(c, op, false);
}
static hlx_status_t lower_partition_id(hlx_lower_ctx_t* c,
                                       const hlx_op_t* op) {
  return lower_id(c, op, true);
}

/* ---- interpreter.run_parallel -------------------------------------------- */

typedef struct run_parallel_args_t {
  const hlx_lowered_module_t* lm;
  int32_t R, P;
  int32_t* funcs; /* R*P plan indices */
  int32_t num_infeed;
  int32_t* infeed; /* functions whose results form the infeed queue */
} run_parallel_args_t;

/* The interpreter's infeed queue: each stablehlo.infeed takes the results
 * of the next queue function, in order, whichever process asks. */
typedef struct infeed_queue_t {
  const run_parallel_args_t* a;
  int32_t next;
  pthread_mutex_t mu;
} infeed_queue_t;

static hlx_status_t queue_infeed(void* user, const char* config,
                                 void* const* bufs, const size_t* bytes,
                                 int32_t n) {
  (void)config;
  infeed_queue_t* q = user;
  pthread_mutex_lock(&q->mu);
  int32_t k = q->next < q->a->num_infeed ? q->next++ : -1;
  pthread_mutex_unlock(&q->mu);
  if (k < 0)
    return hlx_make_status(HLX_STATUS_OUT_OF_RANGE,
                           "stablehlo.infeed: the infeed queue is empty");
  const hlx_plan_t* p = q->a->lm->plans[q->a->infeed[k]];
  if (p->num_params != 0 || p->num_results != n)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "stablehlo.infeed: queue function @%s gives %d "
                           "values, the infeed takes %d",
                           p->name, p->num_results, n);
  for (int32_t i = 0; i < n; i++)
    if (p->slot_bytes[p->result_slots[i]] != bytes[i])
      return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                             "stablehlo.infeed: value %d of @%s has %zu "
                             "bytes, the infeed expects %zu",
                             i, p->name, p->slot_bytes[p->result_slots[i]],
                             bytes[i]);
  hlx_run_ctx_t qctx;
  memset(&qctx, 0, sizeof(qctx));
  qctx.sequential = true;
  return hlx_plan_execute(p, NULL, bufs, &qctx);
}

/* The interpreter's outfeed queue has no reader inside a program: values
 * are accepted (and dropped) unless the caller attached its own consumer. */
static hlx_status_t accept_outfeed(void* user, const char* config,
                                   const void* const* bufs,
                                   const size_t* bytes, int32_t n) {
  (void)user, (void)config, (void)bufs, (void)bytes, (void)n;
  return NULL;
}

static hlx_status_t run_parallel(const void* args, void* const* in,
                                 void* const* out, hlx_run_ctx_t* ctx) {
  const run_parallel_args_t* a = args;
  int32_t n = a->R * a->P;
  hlx_process_run_t* procs = calloc((size_t)n, sizeof(*procs));
  if (!procs) return hlx_status_oom();
  size_t ki = 0, ko = 0;
  for (int32_t i = 0; i < n; i++) {
    const hlx_plan_t* p = a->lm->plans[a->funcs[i]];
    procs[i].plan = p;
    procs[i].params = (const void* const*)in + ki;
    procs[i].results = out + ko;
    ki += (size_t)p->num_params;
    ko += (size_t)p->num_results;
  }
  hlx_run_ctx_t base = *ctx;
  base.rendezvous = NULL;
  base.depth = 0;
  /* With an infeed= queue the processes see it through their run env. */
  infeed_queue_t queue = {a, 0, PTHREAD_MUTEX_INITIALIZER};
  hlx_run_env_t env = {NULL, NULL, NULL, NULL, NULL, NULL, NULL};
  if (ctx->user) env = *(const hlx_run_env_t*)ctx->user;
  if (a->num_infeed) {
    env.infeed = queue_infeed;
    env.infeed_user = &queue;
  }
  if (!env.outfeed) env.outfeed = accept_outfeed;
  base.user = &env;
  hlx_status_t st = hlx_run_processes(procs, a->R, a->P, 0, &base);
  pthread_mutex_destroy(&queue.mu);
  free(procs);
  return st;
}

static int32_t leaves(const hlx_type_t* t) {
  if (t->kind != HLX_TYPE_TUPLE) return 1;
  int32_t n = 0;
  for (int32_t i = 0; i < t->num_elems; i++) n += leaves(t->elems[i]);
  return n;
}

static hlx_status_t lower_run_parallel(hlx_lower_ctx_t* c,
                                       const hlx_op_t* op) {
  const hlx_attr_t* progs = hlx_op_attr(op, "programs");
  const hlx_attr_t* infeed = hlx_op_attr(op, "infeed");
  if (infeed && (infeed->kind != HLX_ATTR_ARRAY || infeed->count > 65536))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "infeed must be an array of function symbols");
  if (!progs || progs->kind != HLX_ATTR_ARRAY || progs->count < 1)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "programs must be a non-empty array of arrays of "
                        "function symbols");
  int32_t R = progs->count, P = -1;
  for (int32_t r = 0; r < R; r++) {
    const hlx_attr_t* row = progs->items[r];
    if (row->kind != HLX_ATTR_ARRAY || row->count < 1 ||
        (P >= 0 && row->count != P))
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "programs must be a rectangular array (replicas x "
                          "partitions) of function symbols");
    P = row->count;
  }
  if ((int64_t)R * P > 65536)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "too many processes (%d x %d)", R, P);
  run_parallel_args_t* a = hlx_lower_alloc(c, sizeof(*a));
  if (!a) return hlx_status_oom();
  a->lm = c->lm;
  a->R = R;
  a->P = P;
  a->funcs = hlx_lower_alloc(c, sizeof(int32_t) * (size_t)(R * P));
  if (!a->funcs) return hlx_status_oom();
  const hlx_module_t* m = c->lm->module;
  int64_t want_in = 0, want_out = 0;
  for (int32_t i = 0; i < R * P; i++) {
    const hlx_attr_t* s = progs->items[i / P]->items[i % P];
    if (s->kind != HLX_ATTR_SYMBOL)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "programs[%d][%d] must be a function symbol",
                          i / P, i % P);
    const char* name = s->str && s->str[0] == '@' ? s->str + 1 : s->str;
    int32_t f = -1;
    for (int32_t k = 0; k < m->num_funcs; k++)
      if (strcmp(m->funcs[k]->name, name) == 0) f = k;
    if (f < 0)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "programs[%d][%d]: no function @%s", i / P, i % P,
                          name);
    a->funcs[i] = f;
    const hlx_func_t* fn = m->funcs[f];
    /* The grid is known now: check each program's collectives on it. */
    bool checked = false;
    for (int32_t k = 0; k < i; k++) checked |= a->funcs[k] == f;
    hlx_status_t st = checked ? NULL : hlx_verify_process_counts(m, fn, R, P);
    if (st) {
      char where[256];
      return hlx_status_annotate(st, "%s on %d replicas x %d partitions",
                                 hlx_op_where(op, where, sizeof where), R, P);
    }
    for (int32_t k = 0; k < fn->num_args; k++)
      want_in += leaves(fn->body->blocks[0]->args[k]->type);
    for (int32_t k = 0; k < fn->num_results; k++)
      want_out += leaves(fn->result_types[k]);
  }
  if (infeed) {
    a->num_infeed = infeed->count;
    a->infeed = hlx_lower_alloc(c, sizeof(int32_t) * ((size_t)infeed->count + 1));
    if (!a->infeed) return hlx_status_oom();
    for (int32_t i = 0; i < infeed->count; i++) {
      const hlx_attr_t* sym = infeed->items[i];
      int32_t f = -1;
      for (int32_t k = 0; sym->kind == HLX_ATTR_SYMBOL && k < m->num_funcs; k++)
        if (strcmp(m->funcs[k]->name, sym->str) == 0) f = k;
      if (f < 0 || m->funcs[f]->num_args != 0)
        return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                            "infeed[%d] must name a function without "
                            "arguments",
                            i);
      a->infeed[i] = f;
    }
  }
  int32_t *ins, *outs, nin, nout;
  HLX_RETURN_IF_ERROR(hlx_lower_flatten(c, op, false, &ins, &nin));
  HLX_RETURN_IF_ERROR(hlx_lower_flatten(c, op, true, &outs, &nout));
  if (nin != want_in || nout != want_out)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "the programs take %lld inputs and give %lld results "
                        "in all; the op has %d and %d",
                        (long long)want_in, (long long)want_out, nin, nout);
  HLX_RETURN_IF_ERROR(
      hlx_lower_emit(c, op, run_parallel, a, nin, ins, nout, outs));
  hlx_plan_last_task_set_flags(c->plan, HLX_TASK_SIDE_EFFECT);
  return NULL;
}

const hlx_lowering_t hlx_lowerings_collective[] = {
    {HLX_OP_REPLICA_ID, lower_replica_id},
    {HLX_OP_PARTITION_ID, lower_partition_id},
    {HLX_OP_ALL_REDUCE, lower_all_reduce},
    {HLX_OP_ALL_GATHER, lower_all_gather},
    {HLX_OP_ALL_TO_ALL, lower_all_to_all},
    {HLX_OP_REDUCE_SCATTER, lower_reduce_scatter},
    {HLX_OP_COLLECTIVE_PERMUTE, lower_permute},
    {HLX_OP_COLLECTIVE_BROADCAST, lower_broadcast},
    {HLX_OP_COLLECTIVE_REDUCE, lower_coll_reduce},
    {HLX_OP_CROSS_REPLICA_SUM, lower_cross_replica_sum},
    {HLX_OP_SEND, lower_send},
    {HLX_OP_RECV, lower_recv},
    {HLX_OP_INTERPRETER_RUN_PARALLEL, lower_run_parallel},
    {HLX_OP_UNKNOWN, NULL},
};
