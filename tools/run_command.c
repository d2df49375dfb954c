#include "tools/run_command.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/hlx.h"
#include "tools/custom_call_lib.h"
#include "tools/file_util.h"
#include "tools/npy.h"
#include "tools/profile.h"
#include "tools/random_fill.h"
#include "tools/summary.h"

enum { kMaxInputs = 1024, kMaxLibs = 64 };

typedef struct run_options_t {
  const char* file;
  const char* inputs[kMaxInputs];
  int num_inputs;
  const char* output_dir;
  int iterations;
  int threads;
  bool json;
  bool fill_elided;
  const char* profile; /* --profile FILE.json: Chrome trace of the last run */
  bool stats;          /* --stats: per-op-kind times and peak memory */
  const char* max_isa; /* --max-isa NAME: the executable's ISA cap */
  const char* cpus;    /* --cpus LIST: pin the pool's workers ("0,2-3") */
  const char* reusable; /* --reusable-params LIST: kept weights ("1-") */
  bool winograd;        /* --winograd: conv_winograd compile option */
  bool fast_compile;    /* --fast-compile: fast_compile compile option */
  int replicas;         /* --replicas N (0: the module's, else 1) */
  int partitions;       /* --partitions N (0: the module's, else 1) */
  const char* libs[kMaxLibs]; /* --custom-call-lib LIB.so, in order */
  int num_libs;
} run_options_t;

/* A --replicas / --partitions value: [1, 65536]. */
static bool parse_count(const char* flag, const char* v, int* out) {
  char* end;
  long n = strtol(v, &end, 10);
  if (end == v || *end || n < 1 || n > 65536) {
    fprintf(stderr, "hlx run: %s must be in [1, 65536]\n", flag);
    return false;
  }
  *out = (int)n;
  return true;
}

static int parse_args(int argc, char** argv, run_options_t* o) {
  memset(o, 0, sizeof(*o));
  o->threads = 0;
  for (int i = 0; i < argc; i++) {
    const char* a = argv[i];
    const char* next = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--input") == 0 && next) {
      if (o->num_inputs == kMaxInputs) {
        fprintf(stderr, "hlx run: more than %d --input\n", kMaxInputs);
        return -1;
      }
      o->inputs[o->num_inputs++] = next;
      i++;
    } else if (strcmp(a, "--custom-call-lib") == 0 && next) {
      if (o->num_libs == kMaxLibs) {
        fprintf(stderr, "hlx run: more than %d --custom-call-lib\n",
                kMaxLibs);
        return -1;
      }
      o->libs[o->num_libs++] = next;
      i++;
    } else if (strcmp(a, "--output-dir") == 0 && next) {
      o->output_dir = next;
      i++;
    } else if (strcmp(a, "--iterations") == 0 && next) {
      o->iterations = atoi(next);
      if (o->iterations < 1 || o->iterations > 1000000) {
        fprintf(stderr, "hlx run: --iterations must be in [1, 1000000]\n");
        return -1;
      }
      i++;
    } else if (strcmp(a, "--threads") == 0 && next) {
      o->threads = atoi(next);
      if (o->threads < 1 || o->threads > 4096) {
        fprintf(stderr, "hlx run: --threads must be in [1, 4096]\n");
        return -1;
      }
      i++;
    } else if (strcmp(a, "--json") == 0) {
      o->json = true;
    } else if (strcmp(a, "--profile") == 0 && next) {
      o->profile = next;
      i++;
    } else if (strcmp(a, "--max-isa") == 0 && next) {
      o->max_isa = next; /* checked by hlx_executable_create */
      i++;
    } else if (strcmp(a, "--reusable-params") == 0 && next) {
      o->reusable = next; /* parsed against the entry's parameters */
      i++;
    } else if (strcmp(a, "--cpus") == 0 && next) {
      o->cpus = next; /* checked by hlx_client_create */
      i++;
    } else if ((strcmp(a, "--replicas") == 0 ||
                strcmp(a, "--partitions") == 0) &&
               next) {
      if (!parse_count(a, next,
                       a[2] == 'r' ? &o->replicas : &o->partitions))
        return -1;
      i++;
    } else if (strcmp(a, "--winograd") == 0) {
      o->winograd = true;
    } else if (strcmp(a, "--fast-compile") == 0) {
      o->fast_compile = true;
    } else if (strcmp(a, "--stats") == 0) {
      o->stats = true;
    } else if (strcmp(a, "--fill-elided") == 0) {
      o->fill_elided = true;
    } else if (a[0] == '-' || o->file) {
      fprintf(stderr, "hlx run: unexpected argument '%s'\n", a);
      return -1;
    } else {
      o->file = a;
    }
  }
  if (!o->file) {
    fprintf(stderr, "hlx run: no program file given\n");
    return -1;
  }
  return 0;
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static size_t desc_elements(const hlx_tensor_desc_t* d) {
  size_t n = 1;
  for (int32_t i = 0; i < d->rank; i++) n *= (size_t)d->dims[i];
  return n;
}

/* Creates the parameters of nproc processes (process-major, np each):
 * from .npy files, one per parameter (every process gets the same) or one
 * per parameter of every process, or random (process 0's as in a run of
 * one process, the others' from other seeds). */
static hlx_status_t make_params(const hlx_executable_t* e,
                                const run_options_t* o, hlx_buffer_t** params,
                                int32_t np, int32_t nproc) {
  if (o->num_inputs && o->num_inputs != np && nproc == 1)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "the program takes %d inputs, %d given", np,
                           o->num_inputs);
  if (o->num_inputs && o->num_inputs != np && o->num_inputs != np * nproc)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "the program takes %d inputs on each of its %d "
                           "processes: give %d (the same for every process) "
                           "or %d (process-major), not %d",
                           np, nproc, np, np * nproc, o->num_inputs);
  for (int32_t k = 0; k < np * nproc; k++) {
    int32_t i = k % np;
    hlx_tensor_desc_t d;
    HLX_RETURN_IF_ERROR(hlx_executable_param_desc(e, i, &d));
    if (o->num_inputs) {
      const char* path = o->inputs[o->num_inputs == np ? i : k];
      hlx_npy_array_t a;
      HLX_RETURN_IF_ERROR(
          hlx_npy_read(path, (hlx_dtype_t)d.element_type, &a));
      bool same = a.rank == d.rank;
      for (int32_t x = 0; same && x < d.rank; x++) same = a.dims[x] == d.dims[x];
      hlx_status_t s =
          same ? hlx_buffer_create(&d, a.data, &params[k])
               : hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                                 "%s: shape does not match parameter %d",
                                 path, i);
      hlx_npy_free(&a);
      HLX_RETURN_IF_ERROR(s);
    } else {
      HLX_RETURN_IF_ERROR(hlx_buffer_create(&d, NULL, &params[k]));
      hlx_random_fill((hlx_dtype_t)d.element_type,
                      (void*)hlx_buffer_data(params[k]), desc_elements(&d),
                      0x5eed0000u + (uint64_t)k);
    }
  }
  return NULL;
}

/* How the results of process q are named: "" for a run of one process,
 * else "replica 1" / "replica1_" (with partitions: "replica 1 partition
 * 0" / "replica1_partition0_"). */
static void process_names(const hlx_executable_t* e, int32_t q, char* label,
                          size_t label_len, char* file, size_t file_len) {
  int32_t P = hlx_executable_num_partitions(e);
  label[0] = file[0] = '\0';
  if (hlx_executable_num_processes(e) == 1) return;
  if (P > 1) {
    snprintf(label, label_len, "replica %d partition %d ", q / P, q % P);
    snprintf(file, file_len, "replica%d_partition%d_", q / P, q % P);
  } else {
    snprintf(label, label_len, "replica %d ", q);
    snprintf(file, file_len, "replica%d_", q);
  }
}

/* Prints (and with --output-dir writes) the nr results of every process:
 * results holds them process-major. */
static hlx_status_t report_results(const run_options_t* o,
                                   const hlx_executable_t* e,
                                   hlx_buffer_t** results, int32_t nr,
                                   double median_s, double min_s) {
  int32_t nproc = hlx_executable_num_processes(e);
  int32_t P = hlx_executable_num_partitions(e);
  if (o->json) {
    printf("{\"file\": \"%s\", ", o->file);
    if (nproc > 1)
      printf("\"replicas\": %d, \"partitions\": %d, \"processes\": [",
             hlx_executable_num_replicas(e), P);
    else
      printf("\"results\": [");
  }
  for (int32_t q = 0; q < nproc; q++) {
    char label[64], file[64];
    process_names(e, q, label, sizeof label, file, sizeof file);
    if (o->json && nproc > 1)
      printf("%s{\"replica\": %d, \"partition\": %d, \"results\": [",
             q ? ", " : "", q / P, q % P);
    for (int32_t i = 0; i < nr; i++) {
      const hlx_buffer_t* b = results[(size_t)q * nr + i];
      const hlx_tensor_desc_t* d = hlx_buffer_desc(b);
      char* text = NULL;
      hlx_status_t s =
          o->json ? hlx_tensor_summary_json((hlx_dtype_t)d->element_type,
                                            d->rank, d->dims,
                                            hlx_buffer_data(b), 8, &text)
                  : hlx_tensor_summary((hlx_dtype_t)d->element_type, d->rank,
                                       d->dims, hlx_buffer_data(b), 8, &text);
      HLX_RETURN_IF_ERROR(s);
      if (o->json)
        printf("%s%s", i ? ", " : "", text);
      else
        printf("%sresult %d: %s\n", label, i, text);
      free(text);
      if (o->output_dir) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%sout%d.npy", o->output_dir, file, i);
        HLX_RETURN_IF_ERROR(hlx_npy_write(path, (hlx_dtype_t)d->element_type,
                                          d->rank, d->dims,
                                          hlx_buffer_data(b)));
      }
    }
    if (o->json && nproc > 1) printf("]}");
  }
  if (o->json) {
    printf("]");
    if (o->iterations)
      printf(", \"iterations\": %d, \"median_ms\": %.4f, \"min_ms\": %.4f",
             o->iterations, median_s * 1e3, min_s * 1e3);
    printf("}\n");
  } else if (o->iterations) {
    printf("time: median %.4f ms, min %.4f ms over %d runs\n", median_s * 1e3,
           min_s * 1e3, o->iterations);
  }
  return NULL;
}

static hlx_status_t write_trace(const hlx_profile_t* prof, const char* path) {
  FILE* f = fopen(path, "w");
  if (!f)
    return hlx_make_status(HLX_STATUS_NOT_FOUND, "--profile: cannot write %s",
                           path);
  hlx_status_t s = hlx_profile_write_trace(prof, f);
  if (fclose(f) != 0 && !s)
    s = hlx_make_status(HLX_STATUS_DATA_LOSS, "--profile: cannot write %s",
                        path);
  return s;
}

/* --reusable-params: "all", or comma-separated indices and ranges of the
 * entry's parameters ("1-5", "1-" = from 1 to the last), into a malloc'd
 * array (*out_n entries). */
static hlx_status_t parse_reusable(const char* list, const hlx_program_t* p,
                                   int32_t** out, int32_t* out_n) {
  *out = NULL;
  *out_n = 0;
  const char* entry = hlx_program_entry(p);
  int32_t nargs = 0;
  for (int32_t i = 0; entry && i < hlx_program_num_functions(p); i++)
    if (strcmp(hlx_program_function_name(p, i), entry) == 0)
      nargs = hlx_program_function_num_args(p, i);
  int32_t* v = malloc(((size_t)nargs + 1) * sizeof(int32_t));
  if (!v) return hlx_status_oom();
  int32_t n = 0;
  if (strcmp(list, "all") == 0) {
    for (int32_t i = 0; i < nargs; i++) v[n++] = i;
  } else {
    const char* s = list;
    while (*s) {
      char* end;
      long lo = strtol(s, &end, 10), hi = lo;
      bool ok = end != s;
      if (ok && *end == '-') {
        s = end + 1;
        hi = *s && *s != ',' ? strtol(s, &end, 10) : nargs - 1;
        ok = *s == '\0' || *s == ',' || end != s;
        if (*s == '\0' || *s == ',') end = (char*)s;
      }
      if (!ok || lo < 0 || hi < lo || hi >= nargs || (*end && *end != ',')) {
        free(v);
        return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                               "--reusable-params \"%s\": expected \"all\" or "
                               "indices/ranges of @%s's %d parameters",
                               list, entry ? entry : "?", nargs);
      }
      for (long k = lo; k <= hi && n < nargs; k++) v[n++] = (int32_t)k;
      s = *end == ',' ? end + 1 : end;
    }
  }
  *out = v;
  *out_n = n;
  return NULL;
}

/* A shape-polymorphic program is specialised to its --input files: their
 * shapes and the values of the scalar dimension arguments. *p is replaced
 * by the static program. */
static hlx_status_t specialize_to_inputs(const run_options_t* o,
                                         hlx_program_t** p) {
  if (!hlx_program_function_is_dynamic(*p, NULL)) return NULL;
  const char* entry = hlx_program_entry(*p);
  int32_t nargs = -1;
  for (int32_t i = 0; entry && i < hlx_program_num_functions(*p); i++)
    if (strcmp(hlx_program_function_name(*p, i), entry) == 0)
      nargs = hlx_program_function_num_args(*p, i);
  if (nargs < 0 || o->num_inputs != nargs)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "the program is shape-polymorphic: give one "
                           "--input per argument (%d), %d given",
                           (int)nargs, o->num_inputs);
  hlx_buffer_t** bufs = calloc((size_t)nargs + 1, sizeof(*bufs));
  hlx_status_t s = bufs ? NULL : hlx_status_oom();
  for (int32_t i = 0; !s && i < nargs; i++) {
    hlx_tensor_desc_t d;
    s = hlx_program_function_arg_desc(*p, NULL, i, &d);
    hlx_npy_array_t a = {0};
    if (!s) s = hlx_npy_read(o->inputs[i], (hlx_dtype_t)d.element_type, &a);
    if (!s && a.rank != d.rank)
      s = hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                          "%s: rank %d, argument %d has rank %d", o->inputs[i],
                          (int)a.rank, (int)i, (int)d.rank);
    for (int32_t k = 0; !s && k < d.rank; k++) d.dims[k] = a.dims[k];
    if (!s) s = hlx_buffer_create(&d, a.data, &bufs[i]);
    hlx_npy_free(&a);
  }
  hlx_program_t* q = NULL;
  if (!s)
    s = hlx_program_specialize(*p, NULL, (const hlx_buffer_t* const*)bufs,
                               nargs, &q);
  for (int32_t i = 0; bufs && i < nargs; i++) hlx_buffer_destroy(bufs[i]);
  free(bufs);
  if (s) return s;
  hlx_program_destroy(*p);
  *p = q;
  return NULL;
}

static hlx_status_t run(const run_options_t* o) {
  char* text = NULL;
  size_t len;
  hlx_program_t* p = NULL;
  hlx_executable_t* e = NULL;
  hlx_buffer_t** params = NULL;
  hlx_buffer_t** results = NULL;
  int32_t np = 0, nr = 0;
  double* times = NULL;
  hlx_client_t* client = NULL;
  int32_t* reusable = NULL;
  int32_t num_reusable = 0;
  hlx_custom_call_libs_t* libs = NULL;
  hlx_status_t s = hlx_read_file(o->file, &text, &len);
  if (!s && o->num_libs)
    s = hlx_custom_call_libs_open(o->libs, o->num_libs, &libs);
  if (!s) s = hlx_program_parse(text, len, o->file, 1, &p);
  if (!s) s = specialize_to_inputs(o, &p);
  if (!s && o->reusable)
    s = parse_reusable(o->reusable, p, &reusable, &num_reusable);
  /* A pool of our own unless the run is single-threaded, so --cpus can pin
   * it and --stats can describe it (hlx_client_topology). */
  if (!s && (o->threads != 1 || o->cpus)) {
    hlx_client_options_t cl;
    hlx_client_options_init(&cl);
    cl.num_threads = o->threads;
    cl.cpus = o->cpus;
    s = hlx_client_create(&cl, &client);
  }
  if (!s) {
    hlx_compile_options_t co;
    hlx_compile_options_init(&co);
    co.fill_elided = o->fill_elided;
    /* --threads N: a pool of N threads for this run (1 = the caller
     * only); without it, HLX_NUM_THREADS or one thread per core. */
    co.num_threads = o->threads;
    co.client = client;
    co.max_isa = o->max_isa;
    co.conv_winograd = o->winograd;
    co.fast_compile = o->fast_compile;
    co.reusable_params = reusable;
    co.num_reusable_params = num_reusable;
    /* 0: the module's mhlo.num_replicas / mhlo.num_partitions, else 1. */
    co.num_replicas = o->replicas;
    co.num_partitions = o->partitions;
    co.host_functions_v2 =
        hlx_custom_call_libs_functions(libs, &co.num_host_functions_v2);
    s = hlx_executable_create(p, &co, &e);
  }
  /* A replicated program runs every process; np and nr count the
   * parameters and results of all of them (process-major). */
  int32_t nproc = e ? hlx_executable_num_processes(e) : 1;
  if (!s) {
    np = hlx_executable_num_params(e) * nproc;
    nr = hlx_executable_num_results(e) * nproc;
    params = calloc((size_t)np + 1, sizeof(*params));
    results = calloc((size_t)nr + 1, sizeof(*results));
    if (!params || !results) s = hlx_status_oom();
  }
  if (!s && o->fill_elided && !o->json)
    printf("note: elided constants (dense_resource) are filled with "
           "deterministic random values\n");
  if (!s) s = make_params(e, o, params, np / nproc, nproc);
  int iters = o->iterations ? o->iterations : 1;
  if (!s) times = calloc((size_t)iters, sizeof(double));
  if (!s && !times) s = hlx_status_oom();
  hlx_profile_t* prof = NULL;
  hlx_run_options_t ro;
  hlx_run_options_init(&ro);
  if (!s && (o->profile || o->stats)) {
    prof = hlx_profile_create();
    if (!prof) s = hlx_status_oom();
    ro.on_task = hlx_profile_on_task;
    ro.on_task_user = prof;
  }
  for (int it = 0; it < iters && !s; it++) {
    if (it) /* keep only the last run's results */
      for (int32_t i = 0; i < nr; i++) {
        hlx_buffer_destroy(results[i]);
        results[i] = NULL;
      }
    if (prof) hlx_profile_begin_run(prof);
    double t0 = now_seconds();
    s = nproc > 1 ? hlx_executable_run_replicated_with_options(
                        e, params, np, results, nr, &ro)
                  : hlx_executable_run_with_options(e, params, np, results,
                                                    nr, &ro);
    times[it] = now_seconds() - t0;
  }
  if (!s) {
    qsort(times, (size_t)iters, sizeof(double), cmp_double);
    s = report_results(o, e, results, nr / nproc, times[iters / 2],
                       times[0]);
  }
  if (!s && o->profile) s = write_trace(prof, o->profile);
  if (!s && o->stats)
    s = hlx_profile_print_stats(prof, o->json ? stderr : stdout,
                                hlx_executable_arena_bytes(e),
                                hlx_executable_live_bytes(e),
                                hlx_executable_intermediate_bytes(e));
  if (!s && o->stats)
    fprintf(o->json ? stderr : stdout, "threads: %s\n",
            client ? hlx_client_topology(client)
                   : "1 (the calling thread only)");
  hlx_profile_destroy(prof);
  for (int32_t i = 0; results && i < nr; i++) hlx_buffer_destroy(results[i]);
  for (int32_t i = 0; params && i < np; i++) hlx_buffer_destroy(params[i]);
  free(times);
  free(results);
  free(params);
  hlx_executable_destroy(e);
  hlx_custom_call_libs_close(libs);
  hlx_client_destroy(client);
  free(reusable);
  hlx_program_destroy(p);
  free(text);
  return s;
}

int hlx_cmd_run(int argc, char** argv) {
  run_options_t o;
  if (parse_args(argc, argv, &o) != 0) return 2;
  hlx_status_t s = run(&o);
  if (s) {
    fprintf(stderr, "hlx run: %s\n", hlx_status_get_message(s));
    hlx_status_release(s);
    return 1;
  }
  return 0;
}
