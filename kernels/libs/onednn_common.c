/* What the oneDNN wrappers share (onednn_internal.h): the engine, the
 * threading scope, the primitive cache, post-ops, scratchpads, reorders.
 * The wrappers: onednn_matmul.c, onednn_conv.c, onednn_act_reorder.c.
 *
 * Threading decision. Debian's oneDNN 2.6 is built on OpenMP (libgomp), so
 * it cannot run on hlx's own worker pool through the threadpool interop.
 * The two coexist this way:
 *   - A oneDNN call runs inside one hlx task, on the hlx worker thread that
 *     runs the task. That thread becomes the OpenMP master of its own team
 *     (libgomp keeps one team per master thread, so calls from different
 *     hlx workers never share or fight over a team).
 *   - The team size is the task's worker budget, `threads` in the
 *     descriptor: set with omp_set_num_threads() around primitive creation
 *     and around every execution, and restored afterwards (the ICV is per
 *     thread, so nothing else in the process changes). oneDNN fixes a
 *     primitive's work split at creation (it reads omp_get_max_threads()
 *     then), which is why `threads` is part of the cache key and must be
 *     known when the plan is built. threads = 1 runs oneDNN sequentially on
 *     the calling worker, with no OpenMP team at all: that is what a
 *     scheduler running independent tasks on every worker should ask for;
 *     a task that has the machine to itself asks for all cores. 0 keeps
 *     OpenMP's default (all cores). graph/ asks for the executable's thread
 *     count (hlx_lower_options_t.library_threads): one for a one-thread
 *     executable, the pool's size otherwise.
 *   - The other hlx workers should not run compute while a multi-threaded
 *     oneDNN call holds their cores: plans with oneDNN tasks
 *     (HLX_TASK_WIDE) run in program order on the calling thread, and a
 *     pinned worker's affinity is widened for the call so the team it
 *     creates is not stacked on the worker's own core (hlx_dnnl_scope_enter).
 * libgomp's idle team threads spin for a while after each parallel region
 * (GOMP_SPINCOUNT) before sleeping; OMP_WAIT_POLICY=passive in the environment
 * makes them sleep at once when hlx's pool needs the cores back quickly.
 * libxsmm kernels (kernels/libs/libxsmm.c) are single-threaded calls and
 * need none of this.
 *
 * Scratchpad: user-managed (dnnl_scratchpad_mode_user), one buffer per
 * execution. oneDNN's default library-managed scratchpad is shared by all
 * primitives unless oneDNN was built with DNNL_ENABLE_CONCURRENT_EXEC,
 * which Debian's is not: two primitives executing at once on different
 * hlx workers then overwrite each other's scratch data (seen as
 * run-to-run differences of a transformer on two threads). Streams are
 * created per call (cheap on the CPU engine; nothing is kept per thread). */
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/idle_list.h"
#include "kernels/libs/onednn_internal.h"
#include "kernels/libs/thread_buffer.h"

/* ---- engine, errors ---- */

static dnnl_engine_t g_engine;
static dnnl_status_t g_engine_status = dnnl_runtime_error;
static pthread_once_t g_engine_once = PTHREAD_ONCE_INIT;

static void engine_init(void) {
  g_engine_status = dnnl_engine_create(&g_engine, dnnl_cpu, 0);
}

dnnl_engine_t hlx_dnnl_engine(void) {
  pthread_once(&g_engine_once, engine_init);
  return g_engine_status == dnnl_success ? g_engine : NULL;
}

hlx_status_t hlx_dnnl_error(dnnl_status_t s, const char* what) {
  hlx_status_code_t code = HLX_STATUS_INTERNAL;
  if (s == dnnl_unimplemented) code = HLX_STATUS_UNIMPLEMENTED;
  if (s == dnnl_invalid_arguments) code = HLX_STATUS_INVALID_ARGUMENT;
  if (s == dnnl_out_of_memory) return hlx_status_oom();
  return hlx_make_status(code, "oneDNN: %s failed (status %d)", what, (int)s);
}

/* The machine's cores as the process's main thread may use them, read
 * once: hlx pins its pool workers to one core each, and threads inherit
 * the affinity of the thread that creates them, so an OpenMP team that a
 * pinned worker creates would put every team thread on that one core. */
static cpu_set_t g_all_cores;
static bool g_all_cores_ok;
static pthread_once_t g_cores_once = PTHREAD_ONCE_INIT;

static void cores_init(void) {
  g_all_cores_ok =
      sched_getaffinity(getpid(), sizeof g_all_cores, &g_all_cores) == 0;
}

/* Around every oneDNN call: the calling thread's OpenMP team size (the
 * task's budget, `threads` > 0; 0 keeps OpenMP's default) and, for a
 * thread pinned to fewer cores than the process has, its affinity widened
 * to all of them, so the team libgomp creates (or reuses) for this thread
 * can spread over the cores. Both are restored by hlx_dnnl_scope_leave. */
void hlx_dnnl_scope_enter(hlx_dnnl_scope_t* s, int32_t threads) {
  s->prev_threads = omp_get_max_threads();
  if (threads > 0) omp_set_num_threads(threads);
  s->widened = false;
  if (threads == 1) return; /* no team: stay on the worker's core */
  pthread_once(&g_cores_once, cores_init);
  if (g_all_cores_ok &&
      pthread_getaffinity_np(pthread_self(), sizeof s->saved, &s->saved) == 0 &&
      !CPU_EQUAL(&s->saved, &g_all_cores))
    s->widened = pthread_setaffinity_np(pthread_self(), sizeof g_all_cores,
                                        &g_all_cores) == 0;
}

void hlx_dnnl_scope_leave(const hlx_dnnl_scope_t* s, int32_t threads) {
  if (threads > 0) omp_set_num_threads(s->prev_threads);
  if (s->widened)
    pthread_setaffinity_np(pthread_self(), sizeof s->saved, &s->saved);
}

bool hlx_dnnl_is_ref_impl(const_dnnl_primitive_desc_t pd, char* name,
                          size_t len) {
  const char* impl = NULL;
  if (dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl) !=
          dnnl_success ||
      !impl)
    impl = "?";
  strncpy(name, impl, len - 1);
  name[len - 1] = 0;
  return strncmp(impl, "ref", 3) == 0;
}

/* ---- process-wide cache ----
 * Objects are shared and reference-counted. hlx_dnnl_obtain returns a
 * reference to the object cached under (kind, descriptor bytes), building
 * it on a miss; hlx_dnnl_put drops one (the wrappers' *_release; graph/
 * calls those from plan cleanups, hlx_plan_on_destroy). An object nobody
 * references stays cached, idle, for the next create of its descriptor
 * (a recompiled model reuses its primitives); past the idle capacity the
 * longest-idle one is destroyed. Objects in use are never evicted, so the
 * cache holds what live executables use plus at most `capacity` more. */

enum { CACHE_BUCKETS = 256, CACHE_IDLE_DEFAULT = 4096 };

typedef struct cache_entry_t {
  struct cache_entry_t* next;                  /* hash chain */
  hlx_idle_link_t idle;        /* in g_idle when refs == 0 */
  int kind;
  int64_t refs;
  void* obj;
  void (*destroy)(void*); /* frees obj's parts, not obj */
  size_t key_len;
  unsigned char key[];
} cache_entry_t;

/* What hlx_dnnl_obtain puts before each object it allocates. */
typedef union obj_header_t {
  cache_entry_t* entry;
  max_align_t align;
} obj_header_t;

static cache_entry_t* g_cache[CACHE_BUCKETS];
/* HLX_ONEDNN_CACHE_IDLE: a smaller cache. */
static hlx_idle_list_t g_idle =
    HLX_IDLE_LIST_INIT(g_idle, "HLX_ONEDNN_CACHE_IDLE", CACHE_IDLE_DEFAULT);
static int64_t g_live, g_builds;
static pthread_mutex_t g_cache_mu = PTHREAD_MUTEX_INITIALIZER;

static uint64_t hash_bytes(int kind, const void* p, size_t n) {
  const unsigned char* b = p;
  uint64_t h = 1469598103934665603ull ^ (uint64_t)kind;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
  return h % CACHE_BUCKETS;
}

/* The entry cached under (kind, key) in bucket h, or NULL; g_cache_mu
 * held. */
static cache_entry_t* lookup_locked(uint64_t h, int kind, const void* key,
                                    size_t n) {
  for (cache_entry_t* e = g_cache[h]; e; e = e->next)
    if (e->kind == kind && e->key_len == n && !memcmp(e->key, key, n)) return e;
  return NULL;
}

/* Takes a reference to e (out of the idle list if it was idle); locked. */
static void ref_locked(cache_entry_t* e) {
  if (e->refs++ == 0) hlx_idle_remove(&g_idle, &e->idle);
}

/* Unlinks idle entries past the capacity onto *dead (destroyed by the
 * caller after unlocking); locked. */
static void evict_locked(cache_entry_t** dead) {
  for (hlx_idle_link_t* l; (l = hlx_idle_pop_excess(&g_idle));) {
    cache_entry_t* e = HLX_IDLE_ENTRY(l, cache_entry_t, idle);
    cache_entry_t** pp = &g_cache[hash_bytes(e->kind, e->key, e->key_len)];
    while (*pp != e) pp = &(*pp)->next;
    *pp = e->next;
    e->next = *dead;
    *dead = e;
  }
}

static void destroy_entry(cache_entry_t* e) {
  e->destroy(e->obj);
  free((obj_header_t*)e->obj - 1);
  free(e);
  pthread_mutex_lock(&g_cache_mu);
  g_live--;
  pthread_mutex_unlock(&g_cache_mu);
}

static void destroy_list(cache_entry_t* dead) {
  while (dead) {
    cache_entry_t* e = dead;
    dead = e->next;
    destroy_entry(e);
  }
}

hlx_status_t hlx_dnnl_obtain(int kind, const void* key, size_t n,
                             size_t obj_size, hlx_dnnl_build_fn build,
                             void (*destroy)(void*), void** out) {
  *out = NULL;
  uint64_t h = hash_bytes(kind, key, n);
  pthread_mutex_lock(&g_cache_mu);
  cache_entry_t* e = lookup_locked(h, kind, key, n);
  if (e) ref_locked(e);
  pthread_mutex_unlock(&g_cache_mu);
  if (e) {
    *out = e->obj;
    return NULL;
  }
  /* A miss: build outside the lock (it takes milliseconds). */
  e = calloc(1, sizeof(*e) + n);
  obj_header_t* hd = calloc(1, sizeof(*hd) + obj_size);
  if (!e || !hd) {
    free(e);
    free(hd);
    return hlx_status_oom();
  }
  e->kind = kind;
  e->refs = 1;
  e->obj = hd + 1;
  e->destroy = destroy;
  e->key_len = n;
  memcpy(e->key, key, n);
  hd->entry = e;
  hlx_status_t st = build(e->obj, key);
  if (st) {
    destroy(e->obj);
    free(hd);
    free(e);
    return st;
  }
  pthread_mutex_lock(&g_cache_mu);
  g_builds++;
  g_live++;
  cache_entry_t* first = lookup_locked(h, kind, key, n);
  if (first) { /* another thread built an equal one meanwhile */
    ref_locked(first);
  } else {
    e->next = g_cache[h];
    g_cache[h] = e;
  }
  pthread_mutex_unlock(&g_cache_mu);
  if (first) {
    destroy_entry(e);
    e = first;
  }
  *out = e->obj;
  return NULL;
}

void hlx_dnnl_put(void* obj) {
  if (!obj) return;
  cache_entry_t* e = ((obj_header_t*)obj - 1)->entry;
  cache_entry_t* dead = NULL;
  pthread_mutex_lock(&g_cache_mu);
  if (--e->refs == 0) {
    hlx_idle_push(&g_idle, &e->idle);
    evict_locked(&dead);
  }
  pthread_mutex_unlock(&g_cache_mu);
  destroy_list(dead);
}

void hlx_onednn_cache_stats(hlx_onednn_cache_stats_t* s) {
  pthread_mutex_lock(&g_cache_mu);
  s->live = g_live;
  s->idle = g_idle.count;
  s->builds = g_builds;
  pthread_mutex_unlock(&g_cache_mu);
}

int32_t hlx_onednn_cache_set_idle_capacity(int32_t n) {
  cache_entry_t* dead = NULL;
  pthread_mutex_lock(&g_cache_mu);
  int32_t prev = hlx_idle_set_capacity(&g_idle, n);
  evict_locked(&dead);
  pthread_mutex_unlock(&g_cache_mu);
  destroy_list(dead);
  return prev;
}

dnnl_data_type_t hlx_dnnl_type(hlx_dtype_t t) {
  switch (t) {
    case HLX_DTYPE_F32:
      return dnnl_f32;
    case HLX_DTYPE_BF16:
      return dnnl_bf16;
    case HLX_DTYPE_F16:
      return dnnl_f16;
    case HLX_DTYPE_S8:
      return dnnl_s8;
    case HLX_DTYPE_U8:
      return dnnl_u8;
    case HLX_DTYPE_S32:
      return dnnl_s32;
    default:
      return dnnl_data_type_undef;
  }
}

void* hlx_dnnl_aligned_buffer(size_t bytes) {
  if (bytes > SIZE_MAX - 63) return NULL; /* rounding up would wrap */
  size_t n = (bytes + 63) / 64 * 64;
  return aligned_alloc(64, n ? n : 64);
}

/* Primitive attributes asking for a caller-provided scratchpad (see the
 * comment at the top). NULL on failure. */
dnnl_primitive_attr_t hlx_dnnl_user_scratchpad_attr(void) {
  dnnl_primitive_attr_t attr = NULL;
  if (dnnl_primitive_attr_create(&attr) != dnnl_success) return NULL;
  if (dnnl_primitive_attr_set_scratchpad_mode(
          attr, dnnl_scratchpad_mode_user) != dnnl_success) {
    dnnl_primitive_attr_destroy(attr);
    return NULL;
  }
  return attr;
}

/* relu is max(x, +0) with StableHLO's NaN: NaN for a NaN x. oneDNN's relu
 * (alpha 0) computes vmaxps(x, 0), which gives 0 for a NaN, so it runs as
 * elu with alpha 0 -- x where x > 0 or x is NaN, 0 * (exp(x) - 1) = -0
 * elsewhere, -Inf included -- then x * 1 + 0, which makes that -0 a +0:
 * bit for bit the graph's maximum. The exp costs little on 3x3 layers
 * (+0-6%, one thread) and up to 1.4-1.8x on cheap ones (1x1 64->256 at
 * 56x56, the 3->64 first layer). Two oneDNN post-ops per relu, except
 * with relu_flushes_nan (oneDNN's Winograd kernels take relu, not elu). */
static int32_t dnnl_post_ops_of(const hlx_onednn_post_op_t* op,
                                bool relu_flushes_nan) {
  return op->kind == HLX_ONEDNN_POST_RELU && !relu_flushes_nan ? 2 : 1;
}

int32_t hlx_dnnl_post_op_index(const hlx_onednn_post_op_t* ops, int32_t i,
                               bool relu_flushes_nan) {
  int32_t k = 0;
  for (int32_t j = 0; j < i; j++)
    k += dnnl_post_ops_of(&ops[j], relu_flushes_nan);
  return k;
}

/* Appends the post-ops to attr; binary ops get their second operand's
 * descriptor in mds[i]: dst's dims with every dim but `feature` set to 1
 * (per feature) or all ones (scalar). At most one add/subtract of a whole
 * tensor (FULL) becomes a sum post-op; *full receives its index or -1. */
hlx_status_t hlx_dnnl_add_post_ops(dnnl_primitive_attr_t attr, int32_t n,
                                   const hlx_onednn_post_op_t* ops, int nd,
                                   const dnnl_dims_t dims,
                                   const dnnl_dims_t strides, int feature,
                                   bool relu_flushes_nan,
                                   dnnl_memory_desc_t* mds, int32_t* full) {
  *full = -1;
  if (n == 0) return NULL;
  dnnl_post_ops_t po;
  HLX_DNNL_TRY(dnnl_post_ops_create(&po), "post-ops");
  dnnl_status_t s = dnnl_success;
  for (int32_t i = 0; i < n && s == dnnl_success; i++) {
    const hlx_onednn_post_op_t* op = &ops[i];
    dnnl_alg_kind_t alg;
    switch (op->kind) {
      case HLX_ONEDNN_POST_ADD:
        alg = dnnl_binary_add;
        break;
      case HLX_ONEDNN_POST_SUB:
        alg = dnnl_binary_sub;
        break;
      case HLX_ONEDNN_POST_MUL:
        alg = dnnl_binary_mul;
        break;
      case HLX_ONEDNN_POST_RELU: /* elu, then x * 1 + 0: see above */
        alg = relu_flushes_nan ? dnnl_eltwise_relu : dnnl_eltwise_elu;
        break;
      case HLX_ONEDNN_POST_LOGISTIC:
        alg = dnnl_eltwise_logistic;
        break;
      case HLX_ONEDNN_POST_TANH:
        alg = dnnl_eltwise_tanh;
        break;
      case HLX_ONEDNN_POST_SWISH:
        alg = dnnl_eltwise_swish;
        break;
      default:
        s = dnnl_invalid_arguments;
        continue;
    }
    if (op->kind >= HLX_ONEDNN_POST_RELU) {
      float alpha = op->kind == HLX_ONEDNN_POST_SWISH ? 1.0f : 0.0f;
      s = dnnl_post_ops_append_eltwise(po, 1.0f, alg, alpha, 0.0f);
      if (s == dnnl_success && alg == dnnl_eltwise_elu)
        s = dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_linear, 1.0f,
                                         0.0f);
      continue;
    }
    /* A whole-tensor multiply is a binary post-op reading it like dst
     * (graph/lower/opt/epilogue.c does not emit it: on oneDNN 2.6's brgemm
     * matmul it costs more than a separate pass). */
    if (op->shape == HLX_ONEDNN_OPERAND_FULL &&
        op->kind != HLX_ONEDNN_POST_MUL) {
      /* A whole tensor: oneDNN's sum post-op adds what dst holds before
       * the call (the run copies the operand there); binary post-ops on a
       * whole tensor push convolutions onto slow generic kernels. */
      if (*full >= 0) {
        s = dnnl_unimplemented;
        continue;
      }
      *full = i;
      s = dnnl_post_ops_append_sum(
          po, op->kind == HLX_ONEDNN_POST_SUB ? -1.0f : 1.0f);
      continue;
    }
    dnnl_dims_t d, st;
    for (int k = 0; k < nd; k++) {
      bool keep = op->shape == HLX_ONEDNN_OPERAND_FULL ||
                  (op->shape == HLX_ONEDNN_OPERAND_PER_FEATURE && k == feature);
      d[k] = keep ? dims[k] : 1;
      st[k] = op->shape == HLX_ONEDNN_OPERAND_FULL ? strides[k] : 0;
    }
    if (op->shape != HLX_ONEDNN_OPERAND_FULL) { /* contiguous, row-major */
      int64_t acc = 1;
      for (int k = nd - 1; k >= 0; k--) st[k] = acc, acc *= d[k];
    }
    s = dnnl_memory_desc_init_by_strides(&mds[i], nd, d, dnnl_f32, st);
    if (s == dnnl_success) s = dnnl_post_ops_append_binary(po, alg, &mds[i]);
  }
  if (s == dnnl_success) s = dnnl_primitive_attr_set_post_ops(attr, po);
  dnnl_post_ops_destroy(po);
  return s == dnnl_success ? NULL : hlx_dnnl_error(s, "post-ops");
}

bool hlx_dnnl_post_ops_need_args(int32_t n, const hlx_onednn_post_op_t* ops) {
  for (int32_t i = 0; i < n; i++)
    if (ops[i].shape != HLX_ONEDNN_OPERAND_NONE) return true;
  return false;
}

void hlx_dnnl_scratch_query(const_dnnl_primitive_desc_t pd,
                            hlx_dnnl_scratch_t* sc) {
  const dnnl_memory_desc_t* md =
      dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
  sc->bytes = md ? dnnl_memory_desc_get_size(md) : 0;
  if (sc->bytes) sc->md = *md;
}

void hlx_dnnl_mem_free(hlx_dnnl_mem_list_t* l) {
  for (int i = 0; i < l->n; i++) dnnl_memory_destroy(l->m[i]);
  l->n = 0;
}

dnnl_status_t hlx_dnnl_mem_add(hlx_dnnl_mem_list_t* l,
                               const dnnl_memory_desc_t* md, const void* ptr,
                               dnnl_memory_t* out) {
  dnnl_status_t s = dnnl_memory_create(out, md, hlx_dnnl_engine(), (void*)ptr);
  if (s == dnnl_success) l->m[l->n++] = *out;
  return s;
}

void hlx_onednn_conv_desc_zero(hlx_onednn_conv_desc_t* d) {
  memset(d, 0, sizeof(*d));
}

/* A reorder; one that needs a scratchpad only when `sc` takes its size. */
hlx_status_t hlx_dnnl_make_reorder(const dnnl_memory_desc_t* from,
                                   const dnnl_memory_desc_t* to,
                                   dnnl_primitive_t* out,
                                   hlx_dnnl_scratch_t* sc_out) {
  *out = NULL;
  if (dnnl_memory_desc_equal(from, to)) return NULL;
  dnnl_primitive_desc_t rpd;
  dnnl_primitive_attr_t attr = hlx_dnnl_user_scratchpad_attr();
  if (!attr) return hlx_status_oom();
  dnnl_status_t s = dnnl_reorder_primitive_desc_create(
      &rpd, from, hlx_dnnl_engine(), to, hlx_dnnl_engine(), attr);
  dnnl_primitive_attr_destroy(attr);
  if (s != dnnl_success) return hlx_dnnl_error(s, "reorder descriptor");
  hlx_dnnl_scratch_t sc;
  hlx_dnnl_scratch_query(rpd, &sc);
  if (sc_out) *sc_out = sc;
  if (sc.bytes && !sc_out) {
    dnnl_primitive_desc_destroy(rpd);
    return hlx_make_status(HLX_STATUS_UNIMPLEMENTED,
                           "oneDNN: reorder needs a scratchpad");
  }
  s = dnnl_primitive_create(out, rpd);
  dnnl_primitive_desc_destroy(rpd);
  if (s != dnnl_success) {
    *out = NULL;
    return hlx_dnnl_error(s, "reorder");
  }
  return NULL;
}

dnnl_status_t hlx_dnnl_exec_reorder(dnnl_primitive_t prim, dnnl_stream_t stream,
                                    const dnnl_memory_desc_t* from_md,
                                    const void* from,
                                    const dnnl_memory_desc_t* to_md, void* to,
                                    const hlx_dnnl_scratch_t* sc,
                                    void* scratch, int32_t threads) {
  hlx_dnnl_mem_list_t ml = {.n = 0};
  dnnl_memory_t fm, tm, xm;
  dnnl_status_t s;
  bool sp = sc && sc->bytes;
  if ((s = hlx_dnnl_mem_add(&ml, from_md, from, &fm)) == dnnl_success &&
      (s = hlx_dnnl_mem_add(&ml, to_md, to, &tm)) == dnnl_success &&
      (!sp ||
       (s = hlx_dnnl_mem_add(&ml, &sc->md, scratch, &xm)) == dnnl_success)) {
    dnnl_exec_arg_t args[3] = {{DNNL_ARG_FROM, fm}, {DNNL_ARG_TO, tm}};
    if (sp) args[2] = (dnnl_exec_arg_t){DNNL_ARG_SCRATCHPAD, xm};
    hlx_dnnl_scope_t scope;
    hlx_dnnl_scope_enter(&scope, threads);
    s = dnnl_primitive_execute(prim, stream, sp ? 3 : 2, args);
    if (s == dnnl_success) s = dnnl_stream_wait(stream);
    hlx_dnnl_scope_leave(&scope, threads);
  }
  hlx_dnnl_mem_free(&ml);
  return s;
}

hlx_status_t hlx_dnnl_run_reorder(dnnl_primitive_t prim,
                                  const dnnl_memory_desc_t* from_md,
                                  const void* from,
                                  const dnnl_memory_desc_t* to_md, void* to,
                                  const hlx_dnnl_scratch_t* sc,
                                  int32_t threads) {
  bool sp = sc && sc->bytes;
  void* scratch = sp ? hlx_dnnl_workspace(sc->bytes) : NULL;
  if (sp && !scratch) return hlx_status_oom();
  dnnl_stream_t stream;
  HLX_DNNL_TRY(
      dnnl_stream_create(&stream, hlx_dnnl_engine(), dnnl_stream_default_flags),
      "stream");
  dnnl_status_t s = hlx_dnnl_exec_reorder(prim, stream, from_md, from, to_md,
                                          to, sc, scratch, threads);
  dnnl_stream_destroy(stream);
  return s == dnnl_success ? NULL : hlx_dnnl_error(s, "reorder");
}

int32_t hlx_onednn_act_block(void) {
  dnnl_cpu_isa_t isa = dnnl_get_effective_cpu_isa();
  if ((isa & dnnl_cpu_isa_avx512_core) == dnnl_cpu_isa_avx512_core) return 16;
  if ((isa & dnnl_cpu_isa_avx2) == dnnl_cpu_isa_avx2) return 8;
  return 0;
}

bool hlx_onednn_int8_exact(void) {
  dnnl_cpu_isa_t isa = dnnl_get_effective_cpu_isa();
  return (isa & dnnl_cpu_isa_avx512_core_vnni) == dnnl_cpu_isa_avx512_core_vnni ||
         (isa & dnnl_cpu_isa_avx2_vnni) == dnnl_cpu_isa_avx2_vnni;
}

/* The blocked activation layout of dims [N, C, S...] (nd = 3..5). */
hlx_status_t hlx_dnnl_blocked_md(dnnl_memory_desc_t* md, int nd,
                                 const dnnl_dims_t dims) {
  static const dnnl_format_tag_t k16[] = {dnnl_nCw16c, dnnl_nChw16c,
                                          dnnl_nCdhw16c};
  static const dnnl_format_tag_t k8[] = {dnnl_nCw8c, dnnl_nChw8c, dnnl_nCdhw8c};
  int32_t b = hlx_onednn_act_block();
  if (b == 0 || nd < 3 || nd > 5 || dims[1] % b)
    return hlx_make_status(HLX_STATUS_UNIMPLEMENTED,
                           "oneDNN: no blocked layout for %d channels",
                           (int)dims[1]);
  HLX_DNNL_TRY(dnnl_memory_desc_init_by_tag(md, nd, dims, dnnl_f32,
                                            (b == 16 ? k16 : k8)[nd - 3]),
               "blocked descriptor");
  return NULL;
}

/* ---- per-thread workspace ----
 * A run's scratchpads (and a convolution's src/dst in the primitive's
 * layout and its weights reordered per run) come from one buffer per
 * calling thread, kept between runs and grown when a bigger primitive
 * needs more (kernels/libs/thread_buffer.h). */
static hlx_thread_buffer_t g_ws = HLX_THREAD_BUFFER_INIT;

void* hlx_dnnl_workspace(size_t bytes) {
  return hlx_thread_buffer(&g_ws, bytes, NULL);
}
