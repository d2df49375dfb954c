/* oneDNN wrappers: matmul and f32 forward convolution (see onednn.h).
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
 *     creates is not stacked on the worker's own core (scope_enter). libgomp's idle team threads spin for a
 *     while after each parallel region (GOMP_SPINCOUNT) before sleeping;
 *     OMP_WAIT_POLICY=passive in the environment makes them sleep at once
 *     when hlx's pool needs the cores back quickly.
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
#include "kernels/libs/onednn.h"

#include <omp.h>
#include <sched.h>
#include <unistd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <oneapi/dnnl/dnnl.h>

/* ---- engine, errors ---- */

static dnnl_engine_t g_engine;
static dnnl_status_t g_engine_status = dnnl_runtime_error;
static pthread_once_t g_engine_once = PTHREAD_ONCE_INIT;

static void engine_init(void) {
  g_engine_status = dnnl_engine_create(&g_engine, dnnl_cpu, 0);
}

static dnnl_engine_t engine(void) {
  pthread_once(&g_engine_once, engine_init);
  return g_engine_status == dnnl_success ? g_engine : NULL;
}

static hlx_status_t dnnl_error(dnnl_status_t s, const char* what) {
  hlx_status_code_t code = HLX_STATUS_INTERNAL;
  if (s == dnnl_unimplemented) code = HLX_STATUS_UNIMPLEMENTED;
  if (s == dnnl_invalid_arguments) code = HLX_STATUS_INVALID_ARGUMENT;
  if (s == dnnl_out_of_memory) return hlx_status_oom();
  return hlx_make_status(code, "oneDNN: %s failed (status %d)", what, (int)s);
}

#define DNNL_TRY(expr, what)                        \
  do {                                              \
    dnnl_status_t s_ = (expr);                      \
    if (s_ != dnnl_success) return dnnl_error(s_, what); \
  } while (0)

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
 * can spread over the cores. Both are restored by scope_leave. */
typedef struct omp_scope_t {
  int prev_threads;
  bool widened;
  cpu_set_t saved;
} omp_scope_t;

static void scope_enter(omp_scope_t* s, int32_t threads) {
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

static void scope_leave(const omp_scope_t* s, int32_t threads) {
  if (threads > 0) omp_set_num_threads(s->prev_threads);
  if (s->widened)
    pthread_setaffinity_np(pthread_self(), sizeof s->saved, &s->saved);
}

static bool is_ref_impl(const_dnnl_primitive_desc_t pd, char* name,
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

/* ---- process-wide cache ---- */

enum { CACHE_BUCKETS = 256, CACHE_MAX = 4096 };

typedef struct cache_entry_t {
  struct cache_entry_t* next;
  int kind;
  void* obj;
  size_t key_len;
  unsigned char key[];
} cache_entry_t;

static cache_entry_t* g_cache[CACHE_BUCKETS];
static int g_cache_count;
static pthread_mutex_t g_cache_mu = PTHREAD_MUTEX_INITIALIZER;

static uint64_t hash_bytes(int kind, const void* p, size_t n) {
  const unsigned char* b = p;
  uint64_t h = 1469598103934665603ull ^ (uint64_t)kind;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

static void* cache_find(int kind, const void* key, size_t n) {
  uint64_t h = hash_bytes(kind, key, n) % CACHE_BUCKETS;
  void* obj = NULL;
  pthread_mutex_lock(&g_cache_mu);
  for (cache_entry_t* e = g_cache[h]; e; e = e->next)
    if (e->kind == kind && e->key_len == n && !memcmp(e->key, key, n)) {
      obj = e->obj;
      break;
    }
  pthread_mutex_unlock(&g_cache_mu);
  return obj;
}

/* Inserts obj unless an equal key got there first; returns the cached
 * object (obj or the earlier one), or NULL if the cache is full / OOM. */
static void* cache_insert(int kind, const void* key, size_t n, void* obj) {
  uint64_t h = hash_bytes(kind, key, n) % CACHE_BUCKETS;
  void* found = NULL;
  pthread_mutex_lock(&g_cache_mu);
  for (cache_entry_t* e = g_cache[h]; e; e = e->next)
    if (e->kind == kind && e->key_len == n && !memcmp(e->key, key, n)) {
      found = e->obj;
      break;
    }
  if (!found && g_cache_count < CACHE_MAX) {
    cache_entry_t* e = malloc(sizeof(*e) + n);
    if (e) {
      e->kind = kind;
      e->obj = obj;
      e->key_len = n;
      memcpy(e->key, key, n);
      e->next = g_cache[h];
      g_cache[h] = e;
      g_cache_count++;
      found = obj;
    }
  }
  pthread_mutex_unlock(&g_cache_mu);
  return found;
}

static dnnl_data_type_t dnnl_type(hlx_dtype_t t) {
  switch (t) {
    case HLX_DTYPE_F32: return dnnl_f32;
    case HLX_DTYPE_BF16: return dnnl_bf16;
    case HLX_DTYPE_F16: return dnnl_f16;
    case HLX_DTYPE_S8: return dnnl_s8;
    case HLX_DTYPE_U8: return dnnl_u8;
    case HLX_DTYPE_S32: return dnnl_s32;
    default: return dnnl_data_type_undef;
  }
}

static void* aligned_buffer(size_t bytes) {
  size_t n = (bytes + 63) / 64 * 64;
  return aligned_alloc(64, n ? n : 64);
}

/* Primitive attributes asking for a caller-provided scratchpad (see the
 * comment at the top). NULL on failure. */
static dnnl_primitive_attr_t user_scratchpad_attr(void) {
  dnnl_primitive_attr_t attr = NULL;
  if (dnnl_primitive_attr_create(&attr) != dnnl_success) return NULL;
  if (dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user) !=
      dnnl_success) {
    dnnl_primitive_attr_destroy(attr);
    return NULL;
  }
  return attr;
}

/* Appends the post-ops to attr; binary ops get their second operand's
 * descriptor in mds[i]: dst's dims with every dim but `feature` set to 1
 * (per feature) or all ones (scalar). At most one add/subtract of a whole
 * tensor (FULL) becomes a sum post-op; *full receives its index or -1. */
static hlx_status_t add_post_ops(dnnl_primitive_attr_t attr, int32_t n,
                                 const hlx_onednn_post_op_t* ops, int nd,
                                 const dnnl_dims_t dims,
                                 const dnnl_dims_t strides, int feature,
                                 dnnl_memory_desc_t* mds, int32_t* full) {
  *full = -1;
  if (n == 0) return NULL;
  dnnl_post_ops_t po;
  DNNL_TRY(dnnl_post_ops_create(&po), "post-ops");
  dnnl_status_t s = dnnl_success;
  for (int32_t i = 0; i < n && s == dnnl_success; i++) {
    const hlx_onednn_post_op_t* op = &ops[i];
    dnnl_alg_kind_t alg;
    switch (op->kind) {
      case HLX_ONEDNN_POST_ADD: alg = dnnl_binary_add; break;
      case HLX_ONEDNN_POST_SUB: alg = dnnl_binary_sub; break;
      case HLX_ONEDNN_POST_MUL: alg = dnnl_binary_mul; break;
      case HLX_ONEDNN_POST_RELU: alg = dnnl_eltwise_relu; break;
      case HLX_ONEDNN_POST_LOGISTIC: alg = dnnl_eltwise_logistic; break;
      case HLX_ONEDNN_POST_TANH: alg = dnnl_eltwise_tanh; break;
      default: s = dnnl_invalid_arguments; continue;
    }
    if (op->kind >= HLX_ONEDNN_POST_RELU) {
      s = dnnl_post_ops_append_eltwise(po, 1.0f, alg, 0.0f, 0.0f);
      continue;
    }
    if (op->shape == HLX_ONEDNN_OPERAND_FULL) {
      /* A whole tensor: oneDNN's sum post-op adds what dst holds before
       * the call (the run copies the operand there); binary post-ops on a
       * whole tensor push convolutions onto slow generic kernels. */
      if (op->kind == HLX_ONEDNN_POST_MUL || *full >= 0) {
        s = dnnl_unimplemented;
        continue;
      }
      *full = i;
      s = dnnl_post_ops_append_sum(po, op->kind == HLX_ONEDNN_POST_SUB ? -1.0f
                                                                       : 1.0f);
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
  return s == dnnl_success ? NULL : dnnl_error(s, "post-ops");
}

/* A primitive's scratchpad need, recorded at creation. */
typedef struct scratch_t {
  dnnl_memory_desc_t md;
  size_t bytes;
} scratch_t;

static void scratch_query(const_dnnl_primitive_desc_t pd, scratch_t* sc) {
  const dnnl_memory_desc_t* md =
      dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
  sc->bytes = md ? dnnl_memory_desc_get_size(md) : 0;
  if (sc->bytes) sc->md = *md;
}

/* ---- matmul ---- */

enum { KIND_MATMUL = 1, KIND_CONV = 2 };

struct hlx_onednn_matmul_t {
  hlx_onednn_matmul_desc_t d;
  dnnl_primitive_t prim;
  dnnl_memory_desc_t a_md, b_md, c_md;
  dnnl_memory_desc_t post_md[HLX_ONEDNN_MAX_POST_OPS];
  int32_t sum_index; /* post-op read from c (a sum), or -1 */
  scratch_t scratch;
  bool cached;
  char impl[64];
};

void hlx_onednn_matmul_desc_init(hlx_onednn_matmul_desc_t* d, hlx_dtype_t a,
                                 hlx_dtype_t b, hlx_dtype_t c, int64_t batch,
                                 int64_t m, int64_t n, int64_t k) {
  memset(d, 0, sizeof(*d));
  d->a_type = a;
  d->b_type = b;
  d->c_type = c;
  d->batch = batch;
  d->m = m;
  d->n = n;
  d->k = k;
  d->a_strides[0] = m * k, d->a_strides[1] = k, d->a_strides[2] = 1;
  d->b_strides[0] = k * n, d->b_strides[1] = n, d->b_strides[2] = 1;
  d->c_strides[0] = m * n, d->c_strides[1] = n, d->c_strides[2] = 1;
}

static bool matmul_types_ok(const hlx_onednn_matmul_desc_t* d) {
  hlx_dtype_t a = d->a_type, b = d->b_type, c = d->c_type;
  if (a == HLX_DTYPE_F32) return b == HLX_DTYPE_F32 && c == HLX_DTYPE_F32;
  if (a == HLX_DTYPE_BF16)
    return b == HLX_DTYPE_BF16 && (c == HLX_DTYPE_F32 || c == HLX_DTYPE_BF16);
  if (a == HLX_DTYPE_F16)
    return b == HLX_DTYPE_F16 && (c == HLX_DTYPE_F32 || c == HLX_DTYPE_F16);
  if (a == HLX_DTYPE_S8 || a == HLX_DTYPE_U8)
    return b == HLX_DTYPE_S8 && c == HLX_DTYPE_S32;
  return false;
}

static hlx_status_t md3(dnnl_memory_desc_t* md, hlx_dtype_t t, int64_t batch,
                        int64_t rows, int64_t cols, const int64_t* strides) {
  dnnl_dims_t dims, st;
  int nd;
  if (batch == 1) {
    nd = 2;
    dims[0] = rows, dims[1] = cols;
    st[0] = strides[1], st[1] = strides[2];
  } else {
    nd = 3;
    dims[0] = batch, dims[1] = rows, dims[2] = cols;
    st[0] = strides[0], st[1] = strides[1], st[2] = strides[2];
  }
  DNNL_TRY(dnnl_memory_desc_init_by_strides(md, nd, dims, dnnl_type(t), st),
           "memory descriptor");
  return NULL;
}

static hlx_status_t matmul_build(hlx_onednn_matmul_t* mm) {
  const hlx_onednn_matmul_desc_t* d = &mm->d;
  dnnl_engine_t eng = engine();
  if (!eng)
    return hlx_make_status(HLX_STATUS_INTERNAL, "oneDNN: no CPU engine");
  HLX_RETURN_IF_ERROR(md3(&mm->a_md, d->a_type, d->batch, d->m, d->k,
                          d->a_strides));
  HLX_RETURN_IF_ERROR(md3(&mm->b_md, d->b_type, d->batch, d->k, d->n,
                          d->b_strides));
  HLX_RETURN_IF_ERROR(md3(&mm->c_md, d->c_type, d->batch, d->m, d->n,
                          d->c_strides));
  dnnl_matmul_desc_t md;
  DNNL_TRY(dnnl_matmul_desc_init(&md, &mm->a_md, &mm->b_md, NULL, &mm->c_md),
           "matmul descriptor");
  dnnl_primitive_desc_t pd = NULL;
  dnnl_primitive_attr_t attr = user_scratchpad_attr();
  if (!attr) return hlx_status_oom();
  mm->sum_index = -1;
  if (d->num_post_ops) {
    hlx_status_t pst =
        d->c_type != HLX_DTYPE_F32 || d->num_post_ops < 0 ||
                d->num_post_ops > HLX_ONEDNN_MAX_POST_OPS
            ? hlx_make_status(HLX_STATUS_UNIMPLEMENTED,
                              "oneDNN matmul: post-ops need an f32 result")
            : add_post_ops(attr, d->num_post_ops, d->post_ops,
                           mm->c_md.ndims, mm->c_md.dims,
                           mm->c_md.format_desc.blocking.strides,
                           mm->c_md.ndims - 1, mm->post_md, &mm->sum_index);
    if (pst) {
      dnnl_primitive_attr_destroy(attr);
      return pst;
    }
  }
  omp_scope_t scope;
  scope_enter(&scope, d->threads);
  dnnl_status_t s = dnnl_primitive_desc_create(&pd, &md, attr, eng, NULL);
  scope_leave(&scope, d->threads);
  dnnl_primitive_attr_destroy(attr);
  if (s != dnnl_success) return dnnl_error(s, "matmul primitive descriptor");
  scratch_query(pd, &mm->scratch);
  if (is_ref_impl(pd, mm->impl, sizeof(mm->impl))) {
    dnnl_primitive_desc_destroy(pd);
    return hlx_make_status(HLX_STATUS_UNIMPLEMENTED,
                           "oneDNN: only a reference matmul for this layout");
  }
  scope_enter(&scope, d->threads);
  s = dnnl_primitive_create(&mm->prim, pd);
  scope_leave(&scope, d->threads);
  dnnl_primitive_desc_destroy(pd);
  if (s != dnnl_success) return dnnl_error(s, "matmul primitive");
  return NULL;
}

hlx_status_t hlx_onednn_matmul_create(const hlx_onednn_matmul_desc_t* d,
                                      hlx_onednn_matmul_t** out) {
  *out = NULL;
  if (!matmul_types_ok(d))
    return hlx_make_status(HLX_STATUS_UNIMPLEMENTED,
                           "oneDNN matmul: unsupported type combination");
  if (d->batch < 1 || d->m < 1 || d->n < 1 || d->k < 1)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "oneDNN matmul: empty dimensions");
  hlx_onednn_matmul_t* mm = cache_find(KIND_MATMUL, d, sizeof(*d));
  if (mm) {
    *out = mm;
    return NULL;
  }
  mm = calloc(1, sizeof(*mm));
  if (!mm) return hlx_status_oom();
  mm->d = *d;
  hlx_status_t st = matmul_build(mm);
  if (st) {
    if (mm->prim) dnnl_primitive_destroy(mm->prim);
    free(mm);
    return st;
  }
  mm->cached = true;
  hlx_onednn_matmul_t* c = cache_insert(KIND_MATMUL, d, sizeof(*d), mm);
  if (c != mm) {
    mm->cached = false;
    if (c) { /* another thread won the race */
      hlx_onednn_matmul_release(mm);
      mm = c;
    }
  }
  *out = mm;
  return NULL;
}

void hlx_onednn_matmul_release(hlx_onednn_matmul_t* mm) {
  if (!mm || mm->cached) return;
  dnnl_primitive_destroy(mm->prim);
  free(mm);
}

const hlx_onednn_matmul_desc_t* hlx_onednn_matmul_desc(
    const hlx_onednn_matmul_t* mm) {
  return &mm->d;
}

const char* hlx_onednn_matmul_impl(const hlx_onednn_matmul_t* mm) {
  return mm->impl;
}

typedef struct mem_list_t {
  dnnl_memory_t m[8 + HLX_ONEDNN_MAX_POST_OPS];
  int n;
} mem_list_t;

static void mem_free(mem_list_t* l) {
  for (int i = 0; i < l->n; i++) dnnl_memory_destroy(l->m[i]);
  l->n = 0;
}

static dnnl_status_t mem_add(mem_list_t* l, const dnnl_memory_desc_t* md,
                             const void* ptr, dnnl_memory_t* out) {
  dnnl_status_t s = dnnl_memory_create(out, md, engine(), (void*)ptr);
  if (s == dnnl_success) l->m[l->n++] = *out;
  return s;
}

hlx_status_t hlx_onednn_matmul_run(const hlx_onednn_matmul_t* mm,
                                   const void* a, const void* b, void* c) {
  return hlx_onednn_matmul_run_ex(mm, a, b, NULL, c);
}

hlx_status_t hlx_onednn_matmul_run_ex(const hlx_onednn_matmul_t* mm,
                                      const void* a, const void* b,
                                      const void* const* post_args, void* c) {
  mem_list_t ml = {.n = 0};
  dnnl_memory_t am, bm, cm, sm = NULL;
  dnnl_stream_t stream = NULL;
  dnnl_status_t s;
  void* scratch = mm->scratch.bytes ? aligned_buffer(mm->scratch.bytes) : NULL;
  if (mm->scratch.bytes && !scratch) return hlx_status_oom();
  if ((s = mem_add(&ml, &mm->a_md, a, &am)) != dnnl_success ||
      (s = mem_add(&ml, &mm->b_md, b, &bm)) != dnnl_success ||
      (s = mem_add(&ml, &mm->c_md, c, &cm)) != dnnl_success ||
      (scratch &&
       (s = mem_add(&ml, &mm->scratch.md, scratch, &sm)) != dnnl_success) ||
      (s = dnnl_stream_create(&stream, engine(), dnnl_stream_default_flags)) !=
          dnnl_success) {
    mem_free(&ml);
    free(scratch);
    return dnnl_error(s, "matmul memory");
  }
  dnnl_exec_arg_t args[4 + HLX_ONEDNN_MAX_POST_OPS] = {
      {DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}};
  int na = 3;
  if (sm) args[na++] = (dnnl_exec_arg_t){DNNL_ARG_SCRATCHPAD, sm};
  if (mm->sum_index >= 0 && post_args[mm->sum_index] != c)
    memcpy(c, post_args[mm->sum_index], dnnl_memory_desc_get_size(&mm->c_md));
  for (int32_t i = 0; i < mm->d.num_post_ops; i++) {
    dnnl_memory_t pm;
    if (mm->d.post_ops[i].shape == HLX_ONEDNN_OPERAND_NONE ||
        i == mm->sum_index)
      continue;
    if ((s = mem_add(&ml, &mm->post_md[i], post_args[i], &pm)) !=
        dnnl_success) {
      dnnl_stream_destroy(stream);
      mem_free(&ml);
      free(scratch);
      return dnnl_error(s, "matmul post-op memory");
    }
    args[na++] = (dnnl_exec_arg_t){
        DNNL_ARG_ATTR_MULTIPLE_POST_OP(i) | DNNL_ARG_SRC_1, pm};
  }
  omp_scope_t scope;
  scope_enter(&scope, mm->d.threads);
  s = dnnl_primitive_execute(mm->prim, stream, na, args);
  if (s == dnnl_success) s = dnnl_stream_wait(stream);
  scope_leave(&scope, mm->d.threads);
  dnnl_stream_destroy(stream);
  mem_free(&ml);
  free(scratch);
  return s == dnnl_success ? NULL : dnnl_error(s, "matmul execution");
}

/* ---- convolution ---- */

struct hlx_onednn_conv_t {
  hlx_onednn_conv_desc_t d;
  dnnl_primitive_t conv;
  /* user layout -> primitive layout (NULL when they are equal) */
  dnnl_primitive_t src_reorder, wei_reorder, dst_reorder;
  dnnl_memory_desc_t src_user, wei_user, dst_user;
  dnnl_memory_desc_t src_prim, wei_prim, dst_prim;
  dnnl_memory_desc_t bias_md, post_md[HLX_ONEDNN_MAX_POST_OPS];
  int32_t sum_index; /* post-op read from dst (a sum), or -1 */
  scratch_t scratch; /* of `conv`; src/dst reorders need none */
  scratch_t wei_scratch; /* of wei_reorder (Winograd weights need one) */
  bool cached;
  char impl[64];
};

void hlx_onednn_conv_desc_zero(hlx_onednn_conv_desc_t* d) {
  memset(d, 0, sizeof(*d));
}

/* A reorder; one that needs a scratchpad only when `sc` takes its size. */
static hlx_status_t make_reorder(const dnnl_memory_desc_t* from,
                                 const dnnl_memory_desc_t* to,
                                 dnnl_primitive_t* out, scratch_t* sc_out) {
  *out = NULL;
  if (dnnl_memory_desc_equal(from, to)) return NULL;
  dnnl_primitive_desc_t rpd;
  dnnl_primitive_attr_t attr = user_scratchpad_attr();
  if (!attr) return hlx_status_oom();
  dnnl_status_t s = dnnl_reorder_primitive_desc_create(&rpd, from, engine(),
                                                       to, engine(), attr);
  dnnl_primitive_attr_destroy(attr);
  if (s != dnnl_success) return dnnl_error(s, "reorder descriptor");
  scratch_t sc;
  scratch_query(rpd, &sc);
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
    return dnnl_error(s, "reorder");
  }
  return NULL;
}

int32_t hlx_onednn_act_block(void) {
  dnnl_cpu_isa_t isa = dnnl_get_effective_cpu_isa();
  if ((isa & dnnl_cpu_isa_avx512_core) == dnnl_cpu_isa_avx512_core) return 16;
  if ((isa & dnnl_cpu_isa_avx2) == dnnl_cpu_isa_avx2) return 8;
  return 0;
}

/* The blocked activation layout of dims [N, C, S...] (nd = 3..5). */
static hlx_status_t blocked_md(dnnl_memory_desc_t* md, int nd,
                               const dnnl_dims_t dims) {
  static const dnnl_format_tag_t k16[] = {dnnl_nCw16c, dnnl_nChw16c,
                                          dnnl_nCdhw16c};
  static const dnnl_format_tag_t k8[] = {dnnl_nCw8c, dnnl_nChw8c,
                                         dnnl_nCdhw8c};
  int32_t b = hlx_onednn_act_block();
  if (b == 0 || nd < 3 || nd > 5 || dims[1] % b)
    return hlx_make_status(HLX_STATUS_UNIMPLEMENTED,
                           "oneDNN: no blocked layout for %d channels",
                           (int)dims[1]);
  DNNL_TRY(dnnl_memory_desc_init_by_tag(md, nd, dims, dnnl_f32,
                                        (b == 16 ? k16 : k8)[nd - 3]),
           "blocked descriptor");
  return NULL;
}

/* oneDNN lists its F(2x2, 3x3) Winograd kernel first; F(4x4, 3x3) does
 * fewer multiplications: with ResNet-50's epilogues it measured 1.4x
 * faster at 56x56 outputs but slower at 14x14 and 7x7 (28x28 only has
 * the 4x3 kernel), so the caller asks for it from 28x28 up and *pd
 * becomes that one when it is offered. */
static void pick_wino_4x3(dnnl_primitive_desc_t* pd, const_dnnl_op_desc_t od,
                          const_dnnl_primitive_attr_t attr,
                          dnnl_engine_t eng) {
  const char* impl = NULL;
  if (dnnl_primitive_desc_query(*pd, dnnl_query_impl_info_str, 0, &impl) !=
          dnnl_success ||
      !impl || strstr(impl, "wino_4x3"))
    return;
  dnnl_primitive_desc_iterator_t it;
  if (dnnl_primitive_desc_iterator_create(&it, od, attr, eng, NULL) !=
      dnnl_success)
    return;
  do {
    dnnl_primitive_desc_t c = dnnl_primitive_desc_iterator_fetch(it);
    if (!c) break;
    if (dnnl_primitive_desc_query(c, dnnl_query_impl_info_str, 0, &impl) ==
            dnnl_success &&
        impl && strstr(impl, "wino_4x3")) {
      dnnl_primitive_desc_destroy(*pd);
      *pd = c;
      break;
    }
    dnnl_primitive_desc_destroy(c);
  } while (dnnl_primitive_desc_iterator_next(it) == dnnl_success);
  dnnl_primitive_desc_iterator_destroy(it);
}

static hlx_status_t conv_build(hlx_onednn_conv_t* cv) {
  const hlx_onednn_conv_desc_t* d = &cv->d;
  int32_t ns = d->num_spatial;
  dnnl_engine_t eng = engine();
  if (!eng)
    return hlx_make_status(HLX_STATUS_INTERNAL, "oneDNN: no CPU engine");
  dnnl_dims_t sd, wd, dd, ss, ws, ds, strides, dil, pl, pr;
  int wnd = 0;
  sd[0] = d->batch, sd[1] = d->in_features;
  ss[0] = d->src_strides[0], ss[1] = d->src_strides[1];
  dd[0] = d->batch, dd[1] = d->out_features;
  ds[0] = d->dst_strides[0], ds[1] = d->dst_strides[1];
  int64_t ci = d->in_features / d->groups, og = d->out_features / d->groups;
  if (d->groups > 1) {
    wd[0] = d->groups, wd[1] = og, wd[2] = ci;
    ws[0] = og * d->wei_strides[0], ws[1] = d->wei_strides[0],
    ws[2] = d->wei_strides[1];
    wnd = 3;
  } else {
    wd[0] = d->out_features, wd[1] = ci;
    ws[0] = d->wei_strides[0], ws[1] = d->wei_strides[1];
    wnd = 2;
  }
  for (int32_t i = 0; i < ns; i++) {
    sd[2 + i] = d->in_spatial[i], ss[2 + i] = d->src_strides[2 + i];
    dd[2 + i] = d->out_spatial[i], ds[2 + i] = d->dst_strides[2 + i];
    wd[wnd + i] = d->kernel_spatial[i], ws[wnd + i] = d->wei_strides[2 + i];
    strides[i] = d->stride[i];
    dil[i] = d->dilation[i] - 1;
    pl[i] = d->pad_lo[i];
    int64_t range = (d->kernel_spatial[i] - 1) * d->dilation[i] + 1;
    /* what the far side pads (oneDNN wants it given) */
    int64_t small = d->transposed ? d->in_spatial[i] : d->out_spatial[i];
    int64_t big = d->transposed ? d->out_spatial[i] : d->in_spatial[i];
    pr[i] = (small - 1) * d->stride[i] + range - big - d->pad_lo[i];
    if (d->transposed && pr[i] < 0) /* a convolution may end early */
      return hlx_make_status(HLX_STATUS_UNIMPLEMENTED,
                             "oneDNN deconvolution: negative high padding");
  }
  wnd += ns;
  DNNL_TRY(dnnl_memory_desc_init_by_strides(&cv->src_user, 2 + ns, sd,
                                            dnnl_f32, ss),
           "src descriptor");
  DNNL_TRY(dnnl_memory_desc_init_by_strides(&cv->wei_user, wnd, wd, dnnl_f32,
                                            ws),
           "weights descriptor");
  DNNL_TRY(dnnl_memory_desc_init_by_strides(&cv->dst_user, 2 + ns, dd,
                                            dnnl_f32, ds),
           "dst descriptor");
  if (d->src_blocked)
    HLX_RETURN_IF_ERROR(blocked_md(&cv->src_user, 2 + ns, sd));
  if (d->dst_blocked)
    HLX_RETURN_IF_ERROR(blocked_md(&cv->dst_user, 2 + ns, dd));
  /* A blocked src/dst is asked for as it is (no reorder); if oneDNN has
   * no fast kernel for that, the primitive picks its own layout again. */
  bool pinned = d->src_blocked || d->dst_blocked;
retry:;
  dnnl_memory_desc_t sa, wa, da;
  DNNL_TRY(dnnl_memory_desc_init_by_tag(&sa, 2 + ns, sd, dnnl_f32,
                                        dnnl_format_tag_any),
           "src descriptor");
  DNNL_TRY(dnnl_memory_desc_init_by_tag(&wa, wnd, wd, dnnl_f32,
                                        dnnl_format_tag_any),
           "weights descriptor");
  DNNL_TRY(dnnl_memory_desc_init_by_tag(&da, 2 + ns, dd, dnnl_f32,
                                        dnnl_format_tag_any),
           "dst descriptor");
  if (pinned && d->src_blocked) sa = cv->src_user;
  if (pinned && d->dst_blocked) da = cv->dst_user;
  if (d->has_bias) {
    dnnl_dims_t bd = {d->out_features};
    DNNL_TRY(dnnl_memory_desc_init_by_tag(&cv->bias_md, 1, bd, dnnl_f32,
                                          dnnl_a),
             "bias descriptor");
  }
  dnnl_convolution_desc_t cd;
  dnnl_deconvolution_desc_t dcd;
  if (d->transposed)
    DNNL_TRY(dnnl_dilated_deconvolution_forward_desc_init(
                 &dcd, dnnl_forward_inference, dnnl_deconvolution_direct, &sa,
                 &wa, d->has_bias ? &cv->bias_md : NULL, &da, strides, dil, pl,
                 pr),
             "deconvolution descriptor");
  else
    DNNL_TRY(dnnl_dilated_convolution_forward_desc_init(
                 &cd, dnnl_forward_inference, d->winograd ? dnnl_convolution_winograd : dnnl_convolution_direct,
                 &sa,
                 &wa, d->has_bias ? &cv->bias_md : NULL, &da, strides, dil, pl,
                 pr),
             "convolution descriptor");
  dnnl_primitive_desc_t pd = NULL;
  dnnl_primitive_attr_t attr = user_scratchpad_attr();
  if (!attr) return hlx_status_oom();
  if (d->num_post_ops < 0 || d->num_post_ops > HLX_ONEDNN_MAX_POST_OPS) {
    dnnl_primitive_attr_destroy(attr);
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "oneDNN convolution: %d post-ops", d->num_post_ops);
  }
  hlx_status_t pst = add_post_ops(attr, d->num_post_ops, d->post_ops, 2 + ns,
                                  dd, ds, 1, cv->post_md, &cv->sum_index);
  if (pst) {
    dnnl_primitive_attr_destroy(attr);
    return pst;
  }
  omp_scope_t scope;
  scope_enter(&scope, d->threads);
  const_dnnl_op_desc_t od = d->transposed ? (const_dnnl_op_desc_t)&dcd : &cd;
  dnnl_status_t s = dnnl_primitive_desc_create(&pd, od, attr, eng, NULL);
  if (s == dnnl_success && d->winograd && ns == 2 &&
      d->out_spatial[0] * d->out_spatial[1] >= 28 * 28)
    pick_wino_4x3(&pd, od, attr, eng);
  scope_leave(&scope, d->threads);
  dnnl_primitive_attr_destroy(attr);
  if (s != dnnl_success && pinned) {
    pinned = false;
    goto retry;
  }
  if (s != dnnl_success) return dnnl_error(s, "convolution descriptor");
  scratch_query(pd, &cv->scratch);
  if (is_ref_impl(pd, cv->impl, sizeof(cv->impl))) {
    dnnl_primitive_desc_destroy(pd);
    if (pinned) {
      pinned = false;
      goto retry;
    }
    return hlx_make_status(HLX_STATUS_UNIMPLEMENTED,
                           "oneDNN: only a reference convolution here");
  }
  cv->src_prim = *dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
  cv->wei_prim = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
  cv->dst_prim = *dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
  scope_enter(&scope, d->threads);
  s = dnnl_primitive_create(&cv->conv, pd);
  scope_leave(&scope, d->threads);
  dnnl_primitive_desc_destroy(pd);
  if (s != dnnl_success) return dnnl_error(s, "convolution primitive");
  /* Reorders fix their thread split at creation too: without the budget
   * here a one-thread executable ran them as an all-core OpenMP team. */
  scope_enter(&scope, d->threads);
  hlx_status_t rst = make_reorder(&cv->src_user, &cv->src_prim,
                                  &cv->src_reorder, NULL);
  if (!rst)
    rst = make_reorder(&cv->wei_user, &cv->wei_prim, &cv->wei_reorder,
                       &cv->wei_scratch);
  if (!rst)
    rst = make_reorder(&cv->dst_prim, &cv->dst_user, &cv->dst_reorder, NULL);
  scope_leave(&scope, d->threads);
  HLX_RETURN_IF_ERROR(rst);
  if (cv->sum_index >= 0 && cv->dst_reorder)
    return hlx_make_status(HLX_STATUS_UNIMPLEMENTED,
                           "oneDNN convolution: a whole-tensor post-op needs "
                           "dst in the caller's layout");
  return NULL;
}

static void conv_free(hlx_onednn_conv_t* cv) {
  if (cv->conv) dnnl_primitive_destroy(cv->conv);
  if (cv->src_reorder) dnnl_primitive_destroy(cv->src_reorder);
  if (cv->wei_reorder) dnnl_primitive_destroy(cv->wei_reorder);
  if (cv->dst_reorder) dnnl_primitive_destroy(cv->dst_reorder);
  free(cv);
}

hlx_status_t hlx_onednn_conv_create(const hlx_onednn_conv_desc_t* d,
                                    hlx_onednn_conv_t** out) {
  *out = NULL;
  if (d->num_spatial < 1 || d->num_spatial > HLX_ONEDNN_CONV_MAX_SPATIAL ||
      d->groups < 1 || d->in_features % d->groups ||
      d->out_features % d->groups || d->batch < 1 || d->in_features < 1 ||
      d->out_features < 1)
    return hlx_make_status(HLX_STATUS_UNIMPLEMENTED,
                           "oneDNN convolution: unsupported parameters");
  for (int32_t i = 0; i < d->num_spatial; i++)
    if (d->in_spatial[i] < 1 || d->kernel_spatial[i] < 1 ||
        d->out_spatial[i] < 1 || d->stride[i] < 1 || d->dilation[i] < 1 ||
        d->pad_lo[i] < 0)
      return hlx_make_status(HLX_STATUS_UNIMPLEMENTED,
                             "oneDNN convolution: unsupported window");
  hlx_onednn_conv_t* cv = cache_find(KIND_CONV, d, sizeof(*d));
  if (cv) {
    *out = cv;
    return NULL;
  }
  cv = calloc(1, sizeof(*cv));
  if (!cv) return hlx_status_oom();
  cv->d = *d;
  hlx_status_t st = conv_build(cv);
  if (st && d->winograd) { /* no Winograd kernel: the direct one */
    hlx_status_free(st);
    conv_free(cv);
    cv = calloc(1, sizeof(*cv));
    if (!cv) return hlx_status_oom();
    cv->d = *d;
    cv->d.winograd = 0;
    st = conv_build(cv);
  }
  if (st) {
    conv_free(cv);
    return st;
  }
  cv->cached = true;
  hlx_onednn_conv_t* c = cache_insert(KIND_CONV, d, sizeof(*d), cv);
  if (c != cv) {
    cv->cached = false;
    if (c) {
      conv_free(cv);
      cv = c;
    }
  }
  *out = cv;
  return NULL;
}

void hlx_onednn_conv_release(hlx_onednn_conv_t* cv) {
  if (cv && !cv->cached) conv_free(cv);
}

const hlx_onednn_conv_desc_t* hlx_onednn_conv_desc(const hlx_onednn_conv_t* cv) {
  return &cv->d;
}

const char* hlx_onednn_conv_impl(const hlx_onednn_conv_t* cv) {
  return cv->impl;
}

size_t hlx_onednn_conv_packed_weights_bytes(const hlx_onednn_conv_t* cv) {
  return dnnl_memory_desc_get_size(&cv->wei_prim);
}

/* Runs `prim` with (from, to) on a fresh stream with the budget, and a
 * scratchpad when sc asks for one. */
static dnnl_status_t exec2(const hlx_onednn_conv_t* cv, dnnl_primitive_t prim,
                           dnnl_stream_t stream, const dnnl_memory_desc_t* fmd,
                           const void* from, const dnnl_memory_desc_t* tmd,
                           void* to, const scratch_t* sc) {
  mem_list_t ml = {.n = 0};
  dnnl_memory_t fm, tm, xm;
  dnnl_status_t s;
  void* scratch = sc && sc->bytes ? aligned_buffer(sc->bytes) : NULL;
  if (sc && sc->bytes && !scratch) return dnnl_out_of_memory;
  if ((s = mem_add(&ml, fmd, from, &fm)) == dnnl_success &&
      (s = mem_add(&ml, tmd, to, &tm)) == dnnl_success &&
      (!scratch || (s = mem_add(&ml, &sc->md, scratch, &xm)) == dnnl_success)) {
    dnnl_exec_arg_t args[3] = {{DNNL_ARG_FROM, fm}, {DNNL_ARG_TO, tm}};
    if (scratch) args[2] = (dnnl_exec_arg_t){DNNL_ARG_SCRATCHPAD, xm};
    omp_scope_t scope;
    scope_enter(&scope, cv->d.threads);
    s = dnnl_primitive_execute(prim, stream, scratch ? 3 : 2, args);
    if (s == dnnl_success) s = dnnl_stream_wait(stream);
    scope_leave(&scope, cv->d.threads);
  }
  mem_free(&ml);
  free(scratch);
  return s;
}

hlx_status_t hlx_onednn_conv_pack_weights(const hlx_onednn_conv_t* cv,
                                          const float* weights, void* packed) {
  if (!cv->wei_reorder) {
    memcpy(packed, weights, dnnl_memory_desc_get_size(&cv->wei_prim));
    return NULL;
  }
  dnnl_stream_t stream;
  DNNL_TRY(dnnl_stream_create(&stream, engine(), dnnl_stream_default_flags),
           "stream");
  dnnl_status_t s = exec2(cv, cv->wei_reorder, stream, &cv->wei_user, weights,
                          &cv->wei_prim, packed, &cv->wei_scratch);
  dnnl_stream_destroy(stream);
  return s == dnnl_success ? NULL : dnnl_error(s, "weights reorder");
}

hlx_status_t hlx_onednn_conv_run(const hlx_onednn_conv_t* cv, const float* src,
                                 const float* weights, const void* packed,
                                 float* dst) {
  return hlx_onednn_conv_run_ex(cv, src, weights, packed, NULL, NULL, dst);
}

hlx_status_t hlx_onednn_conv_run_ex(const hlx_onednn_conv_t* cv,
                                    const float* src, const float* weights,
                                    const void* packed, const float* bias,
                                    const void* const* post_args,
                                    float* dst) {
  void* sbuf = NULL;
  void* wbuf = NULL;
  void* dbuf = NULL;
  void* scratch = NULL;
  dnnl_stream_t stream = NULL;
  mem_list_t ml = {.n = 0};
  hlx_status_t st = NULL;
  dnnl_status_t s = dnnl_stream_create(&stream, engine(),
                                       dnnl_stream_default_flags);
  if (s != dnnl_success) return dnnl_error(s, "stream");
  const void* sp = src;
  const void* wp = packed ? packed : weights;
  void* dp = dst;
  if (cv->src_reorder) {
    sbuf = aligned_buffer(dnnl_memory_desc_get_size(&cv->src_prim));
    if (!sbuf) goto oom;
    s = exec2(cv, cv->src_reorder, stream, &cv->src_user, src, &cv->src_prim,
              sbuf, NULL);
    if (s != dnnl_success) goto fail;
    sp = sbuf;
  }
  if (!packed && cv->wei_reorder) {
    wbuf = aligned_buffer(dnnl_memory_desc_get_size(&cv->wei_prim));
    if (!wbuf) goto oom;
    s = exec2(cv, cv->wei_reorder, stream, &cv->wei_user, weights,
              &cv->wei_prim, wbuf, &cv->wei_scratch);
    if (s != dnnl_success) goto fail;
    wp = wbuf;
  }
  if (cv->dst_reorder) {
    dbuf = aligned_buffer(dnnl_memory_desc_get_size(&cv->dst_prim));
    if (!dbuf) goto oom;
    dp = dbuf;
  }
  if (cv->scratch.bytes) {
    scratch = aligned_buffer(cv->scratch.bytes);
    if (!scratch) goto oom;
  }
  {
    dnnl_memory_t sm, wm, dm, xm = NULL, bm = NULL;
    if ((s = mem_add(&ml, &cv->src_prim, sp, &sm)) != dnnl_success ||
        (s = mem_add(&ml, &cv->wei_prim, wp, &wm)) != dnnl_success ||
        (s = mem_add(&ml, &cv->dst_prim, dp, &dm)) != dnnl_success ||
        (scratch && (s = mem_add(&ml, &cv->scratch.md, scratch, &xm)) !=
                        dnnl_success) ||
        (cv->d.has_bias &&
         (s = mem_add(&ml, &cv->bias_md, bias, &bm)) != dnnl_success))
      goto fail;
    dnnl_exec_arg_t args[5 + HLX_ONEDNN_MAX_POST_OPS] = {
        {DNNL_ARG_SRC, sm}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DST, dm}};
    int na = 3;
    if (xm) args[na++] = (dnnl_exec_arg_t){DNNL_ARG_SCRATCHPAD, xm};
    if (bm) args[na++] = (dnnl_exec_arg_t){DNNL_ARG_BIAS, bm};
    if (cv->sum_index >= 0 && post_args[cv->sum_index] != dst)
      memcpy(dst, post_args[cv->sum_index],
             dnnl_memory_desc_get_size(&cv->dst_user));
    for (int32_t i = 0; i < cv->d.num_post_ops; i++) {
      if (cv->d.post_ops[i].shape == HLX_ONEDNN_OPERAND_NONE ||
          i == cv->sum_index)
        continue;
      dnnl_memory_t pm;
      if ((s = mem_add(&ml, &cv->post_md[i], post_args[i], &pm)) !=
          dnnl_success)
        goto fail;
      args[na++] = (dnnl_exec_arg_t){
          DNNL_ARG_ATTR_MULTIPLE_POST_OP(i) | DNNL_ARG_SRC_1, pm};
    }
    omp_scope_t scope;
    scope_enter(&scope, cv->d.threads);
    s = dnnl_primitive_execute(cv->conv, stream, na, args);
    if (s == dnnl_success) s = dnnl_stream_wait(stream);
    scope_leave(&scope, cv->d.threads);
    if (s != dnnl_success) goto fail;
  }
  if (cv->dst_reorder) {
    s = exec2(cv, cv->dst_reorder, stream, &cv->dst_prim, dbuf, &cv->dst_user,
              dst, NULL);
    if (s != dnnl_success) goto fail;
  }
  goto done;
oom:
  st = hlx_status_oom();
  goto done;
fail:
  st = dnnl_error(s, "convolution execution");
done:
  mem_free(&ml);
  dnnl_stream_destroy(stream);
  free(sbuf);
  free(wbuf);
  free(dbuf);
  free(scratch);
  return st;
}

/* ---- activation reorders (strided <-> blocked) ---- */

enum { KIND_ACT = 3 };

struct hlx_onednn_act_reorder_t {
  hlx_onednn_act_desc_t d;
  dnnl_primitive_t prim;
  dnnl_memory_desc_t from, to;
  bool cached;
};

static void act_free(hlx_onednn_act_reorder_t* r) {
  if (r->prim) dnnl_primitive_destroy(r->prim);
  free(r);
}

static hlx_status_t act_build(hlx_onednn_act_reorder_t* r) {
  const hlx_onednn_act_desc_t* d = &r->d;
  int nd = 2 + d->num_spatial;
  dnnl_dims_t dims, st;
  dims[0] = d->batch, dims[1] = d->features;
  for (int i = 0; i < d->num_spatial; i++) dims[2 + i] = d->spatial[i];
  for (int i = 0; i < nd; i++) st[i] = d->strides[i];
  if (!engine())
    return hlx_make_status(HLX_STATUS_INTERNAL, "oneDNN: no CPU engine");
  dnnl_memory_desc_t plain, blocked;
  DNNL_TRY(dnnl_memory_desc_init_by_strides(&plain, nd, dims, dnnl_f32, st),
           "activation descriptor");
  HLX_RETURN_IF_ERROR(blocked_md(&blocked, nd, dims));
  r->from = d->to_blocked ? plain : blocked;
  r->to = d->to_blocked ? blocked : plain;
  omp_scope_t scope;
  scope_enter(&scope, d->threads);
  hlx_status_t st2 = make_reorder(&r->from, &r->to, &r->prim, NULL);
  scope_leave(&scope, d->threads);
  return st2;
}

hlx_status_t hlx_onednn_act_reorder_create(const hlx_onednn_act_desc_t* d,
                                           hlx_onednn_act_reorder_t** out) {
  *out = NULL;
  if (d->num_spatial < 1 || d->num_spatial > HLX_ONEDNN_CONV_MAX_SPATIAL)
    return hlx_make_status(HLX_STATUS_UNIMPLEMENTED,
                           "oneDNN reorder: %d spatial dims", d->num_spatial);
  hlx_onednn_act_reorder_t* r = cache_find(KIND_ACT, d, sizeof(*d));
  if (r) {
    *out = r;
    return NULL;
  }
  r = calloc(1, sizeof(*r));
  if (!r) return hlx_status_oom();
  r->d = *d;
  hlx_status_t st = act_build(r);
  if (st) {
    act_free(r);
    return st;
  }
  r->cached = true;
  hlx_onednn_act_reorder_t* c = cache_insert(KIND_ACT, d, sizeof(*d), r);
  if (c != r) {
    r->cached = false;
    if (c) {
      act_free(r);
      r = c;
    }
  }
  *out = r;
  return NULL;
}

hlx_status_t hlx_onednn_act_reorder_run(const hlx_onednn_act_reorder_t* r,
                                        const float* src, float* dst) {
  if (!r->prim) { /* equal layouts (C == block, no spatial padding...) */
    memcpy(dst, src, dnnl_memory_desc_get_size(&r->to));
    return NULL;
  }
  dnnl_stream_t stream;
  DNNL_TRY(dnnl_stream_create(&stream, engine(), dnnl_stream_default_flags),
           "stream");
  mem_list_t ml = {.n = 0};
  dnnl_memory_t fm, tm;
  dnnl_status_t s;
  if ((s = mem_add(&ml, &r->from, src, &fm)) == dnnl_success &&
      (s = mem_add(&ml, &r->to, dst, &tm)) == dnnl_success) {
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, fm}, {DNNL_ARG_TO, tm}};
    omp_scope_t scope;
    scope_enter(&scope, r->d.threads);
    s = dnnl_primitive_execute(r->prim, stream, 2, args);
    if (s == dnnl_success) s = dnnl_stream_wait(stream);
    scope_leave(&scope, r->d.threads);
  }
  mem_free(&ml);
  dnnl_stream_destroy(stream);
  return s == dnnl_success ? NULL : dnnl_error(s, "activation reorder");
}

void hlx_onednn_act_reorder_release(hlx_onednn_act_reorder_t* r) {
  if (r && !r->cached) act_free(r);
}
