/* Lowering: a parsed module becomes one plan per function (tasks + buffer
 * slots). Every op's attributes are read and checked here once, so tasks
 * only move data and call kernels. */
#ifndef HLX_GRAPH_LOWER_H_
#define HLX_GRAPH_LOWER_H_

#include "graph/ir/ir.h"
#include "scheduler/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A host function a custom_call can name (its call_target_name). It gets
 * the operands' and results' buffers (row-major, flattened tuples) and the
 * op's backend_config string ("" if none). */
typedef hlx_status_t (*hlx_host_fn)(void* user, const void* const* inputs,
                                    int32_t num_inputs, void* const* outputs,
                                    int32_t num_outputs,
                                    const char* backend_config);
/* Version 2 (api/hlx.h's hlx_host_function_v2_fn): one call frame with
 * descriptions, layouts and attributes (graph/lower/host_call.h). */
typedef struct hlx_host_call_t hlx_host_call_t;
typedef hlx_status_t (*hlx_host_fn_v2)(void* user,
                                       const hlx_host_call_t* call);
typedef struct hlx_lower_host_function_t {
  const char* name;
  hlx_host_fn fn;       /* version 1, or NULL */
  hlx_host_fn_v2 fn_v2; /* version 2, or NULL */
  void* user;
} hlx_lower_host_function_t;

typedef struct hlx_lower_options_t {
  /* Fill dense_resource<__elided__> constants with deterministic random
   * values instead of failing. */
  bool fill_elided;
  /* custom_call targets (borrowed; must outlive the lowered module). */
  const hlx_lower_host_function_t* host_functions;
  int32_t num_host_functions;
  /* Lower every elementwise op as its own task instead of fusing chains
   * (graph/passes/fusion.h); HLX_NO_FUSION=1 does the same. */
  bool disable_fusion;
  /* OpenMP team size of oneDNN calls (the executable's thread count, so a
   * one-thread executable uses one core); 0 = OpenMP's default. */
  int32_t library_threads;
  /* hlx_compile_options_t.conv_winograd (or HLX_CONV_WINOGRAD=1). */
  bool conv_winograd;
  /* hlx_compile_options_t.fast_compile: FFTW_ESTIMATE plans. */
  bool fast_compile;
  /* The executable's pool (NULL: none), where FFTW measures threaded
   * plans while planning. */
  const struct hlx_parallel_t* parallel;
  /* Parameter leaves of function `reusable_entry` whose buffers keep their
   * contents from run to run (hlx_compile_options_t.reusable_params):
   * reusable_params[i] for leaf i (num_reusable_params entries), NULL =
   * none. Kernels may cache data derived from them, keyed by address. */
  const char* reusable_entry;
  const bool* reusable_params;
  int32_t num_reusable_params;
} hlx_lower_options_t;

/* Host-side state of one run, reached through hlx_run_ctx_t.user (NULL
 * when the runner gives none: infeed/outfeed then fail with a clear
 * status and probes are not recorded). */
typedef struct hlx_probe_store_t hlx_probe_store_t;
typedef struct hlx_run_env_t {
  /* infeed: fill `n` buffers of the given byte sizes with the next
   * values of the queue; outfeed: take `n` buffers. `config` is the op's
   * infeed_config / outfeed_config ("" if none). */
  hlx_status_t (*infeed)(void* user, const char* config, void* const* bufs,
                         const size_t* bytes, int32_t n);
  hlx_status_t (*outfeed)(void* user, const char* config,
                          const void* const* bufs, const size_t* bytes,
                          int32_t n);
  void* infeed_user;
  void* outfeed_user;
  /* interpreter.print: receives the printed value (NULL: not printed). */
  void (*print)(void* user, const char* value_name, hlx_dtype_t dtype,
                int32_t rank, const int64_t* dims, const void* data);
  void* print_user;
  /* interpreter.probe values of this run (thread-safe; may be NULL). */
  hlx_probe_store_t* probes;
} hlx_run_env_t;

hlx_probe_store_t* hlx_probe_store_create(void); /* NULL on OOM */
void hlx_probe_store_destroy(hlx_probe_store_t* s);

typedef struct hlx_lowered_module_t {
  const hlx_module_t* module; /* borrowed: must outlive this */
  hlx_lower_options_t options;
  int32_t num_funcs;
  hlx_plan_t** plans; /* plans[i] runs module->funcs[i] */
} hlx_lowered_module_t;

hlx_status_t hlx_lower_module(const hlx_module_t* m,
                              const hlx_lower_options_t* options,
                              hlx_lowered_module_t** out) HLX_MUST_USE;
void hlx_lowered_module_destroy(hlx_lowered_module_t* lm);

/* Whether `op` has a lowering (a kernel or a plan construct) at all. */
bool hlx_lower_supports(hlx_opcode_t op);

/* The plan of function `name`, NULL if absent. */
const hlx_plan_t* hlx_lowered_find(const hlx_lowered_module_t* lm,
                                   const char* name);

/* Check ops (check.expect_*, @check.* custom calls) that do not hold fail the
 * run with this code and a message starting with HLX_CHECK_FAILED. */
#define HLX_CHECK_FAILED_CODE HLX_STATUS_FAILED_PRECONDITION
#define HLX_CHECK_FAILED "check failed"

#ifdef __cplusplus
}
#endif

#endif /* HLX_GRAPH_LOWER_H_ */
