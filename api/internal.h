/* Definitions of the public handles, shared by the api/ sources only. */
#ifndef HLX_API_INTERNAL_H_
#define HLX_API_INTERNAL_H_

#include "api/hlx.h"
#include "base/status.h"
#include "graph/ir.h"
#include "graph/lower.h"

struct hlx_program_t {
  hlx_module_t* module;
};

struct hlx_buffer_t {
  hlx_tensor_desc_t desc;
  size_t bytes;
  void* data; /* 64-byte aligned, owned */
};

struct hlx_executable_t {
  const hlx_program_t* program;
  hlx_lowered_module_t* lowered;
  const hlx_plan_t* plan; /* the entry's plan, owned by `lowered` */
  int32_t num_params, num_results;
  hlx_tensor_desc_t* params;
  hlx_tensor_desc_t* results;
  /* Scheduling (api/executable.c). */
  struct hlx_pool_t* pool;         /* NULL: run on the caller only */
  struct hlx_pool_t* private_pool; /* owned, when num_threads asked one */
  int32_t num_replicas, num_partitions;
  int64_t collective_timeout_ms;
  /* custom_call targets, copied from the compile options (names too). */
  hlx_lower_host_function_t* host_functions;
  int32_t num_host_functions;
};

#endif /* HLX_API_INTERNAL_H_ */
