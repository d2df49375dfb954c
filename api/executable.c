/* hlx_executable_t: a program lowered to plans, ready to run many times. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "api/internal.h"
#include "graph/ops/process_counts.h"
#include "kernels/cpu_features.h"
#include "scheduler/collectives.h"
#include "scheduler/pool.h"

/* ---- clients ------------------------------------------------------------- */

struct hlx_client_t {
  hlx_pool_t* pool;
};

void hlx_client_options_init(hlx_client_options_t* o) {
  memset(o, 0, sizeof(*o));
  o->struct_size = sizeof(*o);
  o->pin_threads = true;
}

hlx_status_t hlx_client_create(const hlx_client_options_t* options,
                               hlx_client_t** out_client) {
  *out_client = NULL;
  hlx_client_options_t o;
  hlx_client_options_init(&o);
  if (options) {
    size_t n = options->struct_size < sizeof(o) ? options->struct_size
                                                : sizeof(o);
    memcpy(&o, options, n);
  }
  hlx_pool_options_t po;
  hlx_pool_options_init(&po);
  po.num_threads = o.num_threads;
  po.pin_threads = o.pin_threads;
  po.cpus = o.cpus;
  hlx_client_t* c = calloc(1, sizeof(*c));
  if (!c) return hlx_status_oom();
  hlx_status_t st = hlx_pool_create(&po, &c->pool);
  if (st) {
    free(c);
    return hlx_status_annotate(st, "hlx_client_create");
  }
  *out_client = c;
  return NULL;
}

void hlx_client_destroy(hlx_client_t* c) {
  if (!c) return;
  hlx_pool_destroy(c->pool);
  free(c);
}

int32_t hlx_client_num_threads(const hlx_client_t* c) {
  return hlx_pool_num_threads(c->pool);
}

const char* hlx_client_warning(const hlx_client_t* c) {
  return hlx_pool_warning(c->pool);
}

const char* hlx_client_topology(const hlx_client_t* c) {
  return hlx_pool_topology(c->pool);
}

size_t hlx_internal_desc_bytes(const hlx_tensor_desc_t* d);

void hlx_compile_options_init(hlx_compile_options_t* o) {
  memset(o, 0, sizeof(*o));
  o->struct_size = sizeof(*o);
  o->fuse_elementwise = true;
}

/* Appends the tensor leaves of t to descs (count in *n). */
static hlx_status_t add_leaves(const hlx_type_t* t, hlx_tensor_desc_t* descs,
                               int32_t* n, int32_t cap) {
  if (t->kind == HLX_TYPE_TUPLE) {
    for (int32_t i = 0; i < t->num_elems; i++)
      HLX_RETURN_IF_ERROR(add_leaves(t->elems[i], descs, n, cap));
    return NULL;
  }
  if (*n >= cap)
    return hlx_make_status(HLX_STATUS_INTERNAL, "too many tuple leaves");
  hlx_tensor_desc_t* d = &descs[(*n)++];
  memset(d, 0, sizeof(*d));
  if (t->kind == HLX_TYPE_TOKEN) {
    d->element_type = HLX_DTYPE_PRED; /* tokens are empty tensors */
    d->rank = 1;
    d->dims[0] = 0;
    return NULL;
  }
  if (t->rank > HLX_MAX_DIMS)
    return hlx_make_status(HLX_STATUS_UNIMPLEMENTED,
                           "unsupported: rank %d above %d", t->rank,
                           HLX_MAX_DIMS);
  d->element_type = t->dtype;
  d->rank = t->rank;
  /* dims may be NULL at rank 0 */
  if (t->rank)
    memcpy(d->dims, t->dims, sizeof(int64_t) * (size_t)t->rank);
  return NULL;
}

/* Whether ops in b (or regions nested in it) record or read probes. */
static bool block_uses_probes(const hlx_block_t* b) {
  for (int32_t i = 0; i < b->num_ops; i++) {
    const hlx_op_t* op = b->ops[i];
    if (op->code == HLX_OP_INTERPRETER_PROBE ||
        op->code == HLX_OP_CHECK_EXPECT_SERIALIZED_EQ)
      return true;
    for (int32_t r = 0; r < op->num_regions; r++)
      for (int32_t k = 0; k < op->regions[r]->num_blocks; k++)
        if (block_uses_probes(op->regions[r]->blocks[k])) return true;
  }
  return false;
}

static bool module_uses_probes(const hlx_module_t* m) {
  for (int32_t f = 0; f < m->num_funcs; f++)
    for (int32_t k = 0; k < m->funcs[f]->body->num_blocks; k++)
      if (block_uses_probes(m->funcs[f]->body->blocks[k])) return true;
  return false;
}

static int32_t count_leaves(const hlx_type_t* t) {
  if (t->kind != HLX_TYPE_TUPLE) return 1;
  int32_t n = 0;
  for (int32_t i = 0; i < t->num_elems; i++) n += count_leaves(t->elems[i]);
  return n;
}

hlx_status_t hlx_executable_create(const hlx_program_t* p,
                                   const hlx_compile_options_t* options,
                                   hlx_executable_t** out_executable) {
  *out_executable = NULL;
  hlx_compile_options_t o;
  hlx_compile_options_init(&o);
  if (options) {
    size_t n = options->struct_size < sizeof(o) ? options->struct_size
                                                : sizeof(o);
    memcpy(&o, options, n);
  }
  const char* entry = o.entry ? o.entry : hlx_program_entry(p);
  const hlx_func_t* f = entry ? hlx_module_find_func(p->module, entry) : NULL;
  if (!f)
    return hlx_make_status(HLX_STATUS_NOT_FOUND,
                           "hlx_executable_create: no function @%s",
                           entry ? entry : "(none)");
  /* Counts the caller leaves at 0 come from the module's mhlo.num_replicas
   * / mhlo.num_partitions attributes (JAX exports), else 1. */
  int32_t module_replicas, module_partitions;
  HLX_RETURN_IF_ERROR(hlx_status_annotate(
      hlx_module_process_counts(p->module, &module_replicas,
                                &module_partitions),
      "hlx_executable_create"));
  int32_t replicas = o.num_replicas    ? o.num_replicas
                     : module_replicas ? module_replicas
                                       : 1;
  int32_t partitions = o.num_partitions    ? o.num_partitions
                       : module_partitions ? module_partitions
                                           : 1;
  if (o.num_threads < 0 || o.num_threads > 4096 || o.num_replicas < 0 ||
      o.num_partitions < 0 ||
      (int64_t)replicas * partitions > HLX_MAX_PROCESSES)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "hlx_executable_create: num_threads %d, "
                           "num_replicas %d, num_partitions %d out of range",
                           o.num_threads, replicas, partitions);
  hlx_isa_t isa_cap = HLX_ISA_COUNT; /* none */
  if (o.max_isa && o.max_isa[0] && !hlx_isa_parse(o.max_isa, &isa_cap))
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "hlx_executable_create: max_isa \"%s\" is not an "
                           "ISA level (reference, avx2, avx512, neon)",
                           o.max_isa);
  hlx_executable_t* e = calloc(1, sizeof(*e));
  if (!e) return hlx_status_oom();
  e->program = p;
  e->num_replicas = replicas;
  e->num_partitions = partitions;
  e->collective_timeout_ms = o.collective_timeout_ms;
  e->uses_probes = module_uses_probes(p->module);
  hlx_status_t st = NULL;
  if (o.num_threads == 1) {
    e->pool = NULL;
  } else if (o.client) {
    e->pool = o.client->pool;
  } else if (o.num_threads > 1) {
    hlx_pool_options_t po;
    hlx_pool_options_init(&po);
    po.num_threads = o.num_threads;
    st = hlx_pool_create(&po, &e->private_pool);
    e->pool = e->private_pool;
  } else {
    st = hlx_pool_get_default(&e->pool);
  }
  if (!st) e->parallel = hlx_pool_parallel(e->pool);
  if (!st)
    st = hlx_internal_host_functions(&o, &e->host_functions,
                                     &e->num_host_functions);
  /* reusable_params: checked against the entry's parameter leaves. */
  bool* reusable = NULL;
  int32_t num_leaves = 0;
  for (int32_t i = 0; i < f->num_args; i++)
    num_leaves += count_leaves(f->body->blocks[0]->args[i]->type);
  if (!st && o.reusable_params && o.num_reusable_params > 0) {
    reusable = calloc((size_t)num_leaves + 1, sizeof(bool));
    if (!reusable) st = hlx_status_oom();
    for (int32_t i = 0; !st && i < o.num_reusable_params; i++) {
      int32_t k = o.reusable_params[i];
      if (k < 0 || k >= num_leaves)
        st = hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                             "hlx_executable_create: reusable_params[%d] = "
                             "%d is not a parameter of @%s (it has %d)",
                             i, k, f->name, num_leaves);
      else
        reusable[k] = true;
    }
  }
  hlx_lower_options_t lo = {.fill_elided = o.fill_elided,
                            .host_functions = e->host_functions,
                            .num_host_functions = e->num_host_functions,
                            .disable_fusion = !o.fuse_elementwise,
                            .library_threads =
                                o.num_threads == 1 || !e->pool
                                    ? 1
                                    : hlx_pool_num_threads(e->pool),
                            .conv_winograd = o.conv_winograd,
                            .fast_compile = o.fast_compile,
                            .parallel = e->parallel,
                            .reusable_entry = f->name,
                            .reusable_params = reusable,
                            .num_reusable_params = reusable ? num_leaves : 0};
  /* Kernels picked while lowering obey the cap; runs set it again on the
   * threads that run the plans (scheduler/executor.c). */
  bool capped = isa_cap != HLX_ISA_COUNT;
  hlx_isa_t prev_cap = capped ? hlx_cpu_thread_isa_cap_swap(isa_cap)
                              : HLX_ISA_COUNT;
  if (!st) st = hlx_lower_module(p->module, &lo, &e->lowered);
  free(reusable); /* lowering keeps slot lists of its own */
  if (e->lowered) {
    e->lowered->options.reusable_params = NULL;
    e->lowered->options.num_reusable_params = 0;
  }
  if (capped) hlx_cpu_thread_isa_cap_swap(prev_cap);
  for (int32_t i = 0; !st && i < e->lowered->num_funcs; i++)
    if (e->lowered->plans[i]) e->lowered->plans[i]->isa_cap = isa_cap;
  /* The grid is known: its collectives' replica groups must fit it. */
  if (!st) st = hlx_verify_process_counts(p->module, f, replicas, partitions);
  if (!st) {
    e->plan = hlx_lowered_find(e->lowered, f->name);
    int32_t np = 0, nr = 0;
    for (int32_t i = 0; i < f->num_args; i++)
      np += count_leaves(f->body->blocks[0]->args[i]->type);
    for (int32_t i = 0; i < f->num_results; i++)
      nr += count_leaves(f->result_types[i]);
    e->params = calloc((size_t)np + 1, sizeof(hlx_tensor_desc_t));
    e->results = calloc((size_t)nr + 1, sizeof(hlx_tensor_desc_t));
    if (!e->params || !e->results) st = hlx_status_oom();
    for (int32_t i = 0; i < f->num_args && !st; i++)
      st = add_leaves(f->body->blocks[0]->args[i]->type, e->params,
                      &e->num_params, np);
    for (int32_t i = 0; i < f->num_results && !st; i++)
      st = add_leaves(f->result_types[i], e->results, &e->num_results, nr);
  }
  if (!st) st = hlx_internal_boundary_options(e, &o);
  if (st) {
    hlx_executable_destroy(e);
    return st;
  }
  *out_executable = e;
  return NULL;
}

void hlx_executable_destroy(hlx_executable_t* e) {
  if (!e) return;
  hlx_lowered_module_destroy(e->lowered);
  hlx_pool_destroy(e->private_pool);
  hlx_internal_host_functions_free(e->host_functions, e->num_host_functions);
  free(e->params);
  free(e->results);
  free(e->result_layouts);
  free(e->result_padded);
  free(e);
}

int32_t hlx_executable_num_params(const hlx_executable_t* e) {
  return e->num_params;
}
int32_t hlx_executable_num_results(const hlx_executable_t* e) {
  return e->num_results;
}

hlx_status_t hlx_executable_param_desc(const hlx_executable_t* e, int32_t i,
                                       hlx_tensor_desc_t* out_desc) {
  if (i < 0 || i >= e->num_params)
    return hlx_make_status(HLX_STATUS_OUT_OF_RANGE,
                           "parameter %d of %d does not exist", i,
                           e->num_params);
  *out_desc = e->params[i];
  return NULL;
}

hlx_status_t hlx_executable_result_desc(const hlx_executable_t* e, int32_t i,
                                        hlx_tensor_desc_t* out_desc) {
  if (i < 0 || i >= e->num_results)
    return hlx_make_status(HLX_STATUS_OUT_OF_RANGE,
                           "result %d of %d does not exist", i, e->num_results);
  *out_desc = e->results[i];
  return NULL;
}

static bool same_desc(const hlx_tensor_desc_t* a, const hlx_tensor_desc_t* b) {
  if (a->element_type != b->element_type || a->rank != b->rank) return false;
  for (int32_t i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i]) return false;
  return true;
}

int32_t hlx_executable_num_processes(const hlx_executable_t* e) {
  return e->num_replicas * e->num_partitions;
}
int32_t hlx_executable_num_replicas(const hlx_executable_t* e) {
  return e->num_replicas;
}
int32_t hlx_executable_num_partitions(const hlx_executable_t* e) {
  return e->num_partitions;
}

/* Runs nproc processes; params/results are process-major. results_of[i]
 * says which process's results out_results[] receives (nproc == 1 or the
 * replicated case: all). */
/* Adapts the graph's raw print hook to the public callback. */
static void print_adapter(void* user, const char* value_name, hlx_dtype_t dtype,
                          int32_t rank, const int64_t* dims, const void* data) {
  const hlx_run_options_t* ro = user;
  hlx_tensor_desc_t d;
  memset(&d, 0, sizeof(d));
  d.element_type = dtype;
  d.rank = rank > HLX_MAX_DIMS ? HLX_MAX_DIMS : rank;
  for (int32_t i = 0; i < d.rank; i++) d.dims[i] = dims[i];
  ro->print(ro->user, value_name, &d, data);
}

/* Adapts the executor's task events to the public callback. */
static void task_event_adapter(void* user, const hlx_plan_t* plan,
                               int32_t task, const char* name, int32_t thread,
                               uint64_t start_ns, uint64_t end_ns) {
  const hlx_run_options_t* ro = user;
  (void)plan;
  ro->on_task(ro->on_task_user, task, name, thread, start_ns, end_ns);
}

int32_t hlx_executable_num_tasks(const hlx_executable_t* e) {
  return e->plan->num_tasks;
}

/* Sums over p and its nested plans (each has its own arena). */
static size_t plan_tree_bytes(const hlx_plan_t* p,
                              size_t (*bytes)(const hlx_plan_t*)) {
  size_t n = bytes(p);
  for (int32_t i = 0; i < p->num_children; i++)
    n += plan_tree_bytes(p->children[i], bytes);
  return n;
}

size_t hlx_executable_arena_bytes(const hlx_executable_t* e) {
  return plan_tree_bytes(e->plan, hlx_plan_arena_bytes);
}

size_t hlx_executable_intermediate_bytes(const hlx_executable_t* e) {
  return plan_tree_bytes(e->plan, hlx_plan_intermediate_bytes);
}

size_t hlx_executable_live_bytes(const hlx_executable_t* e) {
  return plan_tree_bytes(e->plan, hlx_plan_live_bytes);
}

void hlx_run_options_init(hlx_run_options_t* o) {
  memset(o, 0, sizeof(*o));
  o->struct_size = sizeof(*o);
}

/* The first of bufs[0..n) whose memory overlaps r's, or -1. */
static int32_t first_overlap(const hlx_buffer_t* r, hlx_buffer_t* const* bufs,
                             int32_t n) {
  uintptr_t r0 = (uintptr_t)r->data;
  for (int32_t j = 0; j < n; j++) {
    uintptr_t b0 = (uintptr_t)bufs[j]->data;
    if (r->bytes && bufs[j]->bytes && r0 < b0 + bufs[j]->bytes &&
        b0 < r0 + r->bytes)
      return j;
  }
  return -1;
}

/* Caller-provided result buffers (results_provided): each matches its
 * result and overlaps no parameter (kernels read those while writing
 * results) and no other result. */
static hlx_status_t check_provided(const hlx_executable_t* e,
                                   hlx_buffer_t* const* params,
                                   int32_t num_params,
                                   hlx_buffer_t* const* results,
                                   int32_t num_results) {
  for (int32_t i = 0, k = 0; i < num_results; i++, k++) {
    if (k == e->num_results) k = 0;
    const hlx_buffer_t* r = results[i];
    if (!r || !same_desc(&r->desc, &e->results[k]))
      return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                             "hlx_executable_run: result buffer %d is NULL "
                             "or does not match @%s's result type",
                             i, e->plan->name);
    int32_t j = first_overlap(r, params, num_params);
    if (j >= 0)
      return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                             "hlx_executable_run: result buffer %d shares "
                             "memory with parameter %d",
                             i, j);
    j = first_overlap(r, results, i);
    if (j >= 0)
      return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                             "hlx_executable_run: result buffers %d and %d "
                             "share memory",
                             j, i);
  }
  return NULL;
}

/* Whether the run can skip the layout boundary: every parameter and result
 * buffer is plain row-major (results made by the run are when the
 * executable asks no layout or padding of them). */
static bool plain_boundary(const hlx_executable_t* e,
                           hlx_buffer_t* const* params, int32_t num_params,
                           hlx_buffer_t* const* results, int32_t num_results,
                           bool provided) {
  for (int32_t i = 0; i < num_params; i++)
    if (!hlx_internal_is_plain(params[i])) return false;
  if (!provided) return !e->result_layouts && !e->result_padded;
  for (int32_t i = 0; i < num_results; i++)
    if (!hlx_internal_is_plain(results[i])) return false;
  return true;
}

/* Pointer arrays of at most this many entries live on the stack. */
enum { kStackLeaves = 16 };

static hlx_status_t run_impl(const hlx_executable_t* e,
                             hlx_buffer_t* const* params, int32_t num_params,
                             hlx_buffer_t** out_results, int32_t num_results,
                             bool replicated,
                             const hlx_run_options_t* options) {
  hlx_run_options_t ro;
  hlx_run_options_init(&ro);
  if (options) hlx_internal_copy_versioned(&ro, sizeof(ro), options);
  bool provided = ro.results_provided;
  int32_t nproc = hlx_executable_num_processes(e);
  int32_t pin = replicated ? nproc : 1;  /* parameter sets given */
  int32_t pout = replicated ? nproc : 1; /* result sets returned */
  if (!provided)
    for (int32_t i = 0; i < num_results; i++) out_results[i] = NULL;
  if (num_params != e->num_params * pin || num_results != e->num_results * pout)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "hlx_executable_run: @%s takes %d parameters and "
                           "gives %d results%s; called with %d and %d",
                           e->plan->name, e->num_params * pin,
                           e->num_results * pout,
                           replicated ? " over all processes" : "", num_params,
                           num_results);
  size_t np = (size_t)e->num_params, nr = (size_t)e->num_results;
  size_t nin = np * (size_t)nproc, nout = nr * (size_t)nproc;
  const void* in_small[kStackLeaves];
  void* out_small[kStackLeaves];
  const void** in =
      nin <= kStackLeaves ? in_small : calloc(nin + 1, sizeof(void*));
  void** out = nout <= kStackLeaves ? out_small : calloc(nout + 1, sizeof(void*));
  hlx_buffer_t** scratch = NULL; /* results of processes not returned */
  hlx_status_t st = (!in || !out) ? hlx_status_oom() : NULL;
  for (int32_t i = 0, k = 0; i < num_params && !st; i++, k++) {
    if (k == (int32_t)np) k = 0; /* k = i % np, without a division */
    if (!params[i] || !same_desc(&params[i]->desc, &e->params[k]))
      st = hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "hlx_executable_run: parameter %d does not match "
                           "@%s's argument type",
                           i, e->plan->name);
  }
  if (!st && provided)
    st = check_provided(e, params, num_params, out_results, num_results);
  /* Layouts: params not in row-major get a row-major copy, results not in
   * row-major a row-major staging area (api/layout.c). Plain buffers (the
   * usual case) are used as they are, with no per-run allocation. */
  bool plain = !st && plain_boundary(e, params, num_params, out_results,
                                     num_results, provided);
  hlx_boundary_t bd = {0};
  if (!st && !plain)
    st = hlx_internal_boundary_begin(e, params, num_params, num_results, &bd);
  for (int32_t q = 0; q < nproc && !st; q++)
    for (size_t i = 0; i < np; i++) {
      size_t k = (pin > 1 ? (size_t)q * np : 0) + i;
      in[(size_t)q * np + i] = plain ? params[k]->data : bd.in[k];
    }
  for (int32_t i = 0, k = 0; i < num_results && !st; i++, k++) {
    if (k == (int32_t)nr) k = 0;
    if (!provided) st = hlx_internal_result_alloc(e, k, &out_results[i]);
    if (st) break;
    if (plain)
      out[i] = out_results[i]->data;
    else
      st = hlx_internal_boundary_result(&bd, i, out_results[i], &out[i]);
  }
  if (!st && pout < nproc) {
    size_t extra = nr * (size_t)(nproc - pout);
    scratch = calloc(extra + 1, sizeof(*scratch));
    if (!scratch) st = hlx_status_oom();
    for (size_t i = 0; i < extra && !st; i++) {
      st = hlx_internal_result_alloc(e, (int32_t)(i % nr), &scratch[i]);
      if (!st) out[nr + i] = scratch[i]->data;
    }
  }
  /* The run's host side: feeds from the options, a fresh probe store when
   * the program has probes. */
  hlx_run_env_t env = {ro.infeed, ro.outfeed, ro.user, ro.user,
                       ro.print ? print_adapter : NULL, &ro, NULL};
  if (!st && e->uses_probes) {
    env.probes = hlx_probe_store_create();
    if (!env.probes) st = hlx_status_oom();
  }
  if (!st) {
    /* Built in place: a copied struct cost store-forwarding stalls
     * measurable on one-op runs. */
    hlx_run_ctx_t ctx = {.user = &env,
                         .pool = e->pool,
                         .parallel = e->parallel,
                         .on_task = ro.on_task ? task_event_adapter : NULL,
                         .on_task_user = ro.on_task ? &ro : NULL};
    if (nproc == 1) {
      st = hlx_plan_execute(e->plan, in, out, &ctx);
    } else {
      hlx_process_run_t* procs = calloc((size_t)nproc, sizeof(*procs));
      if (!procs) st = hlx_status_oom();
      for (int32_t q = 0; q < nproc && !st; q++) {
        procs[q].plan = e->plan;
        procs[q].params = in + (size_t)q * np;
        procs[q].results = out + (size_t)q * nr;
      }
      if (!st)
        st = hlx_run_processes(procs, e->num_replicas, e->num_partitions,
                               e->collective_timeout_ms, &ctx);
      free(procs);
    }
  }
  if (!st && !plain) hlx_internal_boundary_finish(&bd, out_results);
  if (!plain) hlx_internal_boundary_free(&bd);
  if (env.probes) hlx_probe_store_destroy(env.probes);
  if (scratch) {
    for (size_t i = 0; i < nr * (size_t)(nproc - pout); i++)
      hlx_buffer_destroy(scratch[i]);
    free(scratch);
  }
  if (st && !provided)
    for (int32_t i = 0; i < num_results; i++) {
      hlx_buffer_destroy(out_results[i]);
      out_results[i] = NULL;
    }
  if (in != in_small) free(in);
  if (out != out_small) free(out);
  return st;
}

hlx_status_t hlx_executable_run(const hlx_executable_t* e,
                                hlx_buffer_t* const* params,
                                int32_t num_params, hlx_buffer_t** out_results,
                                int32_t num_results) {
  return run_impl(e, params, num_params, out_results, num_results, false,
                  NULL);
}

hlx_status_t hlx_executable_run_with_options(const hlx_executable_t* e,
                                             hlx_buffer_t* const* params,
                                             int32_t num_params,
                                             hlx_buffer_t** out_results,
                                             int32_t num_results,
                                             const hlx_run_options_t* options) {
  return run_impl(e, params, num_params, out_results, num_results, false,
                  options);
}

hlx_status_t hlx_executable_run_replicated(const hlx_executable_t* e,
                                           hlx_buffer_t* const* params,
                                           int32_t num_params,
                                           hlx_buffer_t** out_results,
                                           int32_t num_results) {
  return run_impl(e, params, num_params, out_results, num_results, true,
                  NULL);
}

hlx_status_t hlx_executable_run_replicated_with_options(
    const hlx_executable_t* e, hlx_buffer_t* const* params,
    int32_t num_params, hlx_buffer_t** out_results, int32_t num_results,
    const hlx_run_options_t* options) {
  return run_impl(e, params, num_params, out_results, num_results, true,
                  options);
}

/* ---- async runs ---------------------------------------------------------- */

struct hlx_run_handle_t {
  const hlx_executable_t* e;
  hlx_buffer_t* const* params;
  int32_t num_params;
  hlx_buffer_t** out_results;
  int32_t num_results;
  hlx_run_callback_t callback;
  void* user;
  hlx_status_t status;
  pthread_t thread;
};

static void* async_main(void* a) {
  hlx_run_handle_t* h = a;
  h->status = hlx_executable_run(h->e, h->params, h->num_params,
                                 h->out_results, h->num_results);
  if (h->callback) h->callback(h->user, h->status);
  return NULL;
}

hlx_status_t hlx_executable_run_async(const hlx_executable_t* e,
                                      hlx_buffer_t* const* params,
                                      int32_t num_params,
                                      hlx_buffer_t** out_results,
                                      int32_t num_results,
                                      hlx_run_callback_t callback, void* user,
                                      hlx_run_handle_t** out_handle) {
  *out_handle = NULL;
  hlx_run_handle_t* h = calloc(1, sizeof(*h));
  if (!h) return hlx_status_oom();
  *h = (hlx_run_handle_t){e,           params,   num_params, out_results,
                          num_results, callback, user,       NULL,
                          (pthread_t)0};
  int rc = pthread_create(&h->thread, NULL, async_main, h);
  if (rc) {
    free(h);
    return hlx_make_status(HLX_STATUS_RESOURCE_EXHAUSTED,
                           "hlx_executable_run_async: cannot start a thread "
                           "(%s)",
                           strerror(rc));
  }
  *out_handle = h;
  return NULL;
}

hlx_status_t hlx_run_wait(hlx_run_handle_t* h) {
  if (!h) return NULL;
  pthread_join(h->thread, NULL);
  hlx_status_t st = h->status;
  free(h);
  return st;
}
