/* Definitions of the public handles, shared by the api/ sources only. */
#ifndef HLX_API_INTERNAL_H_
#define HLX_API_INTERNAL_H_

#include <string.h>

#include "api/hlx.h"
#include "base/status.h"
#include "graph/ir/ir.h"
#include "graph/lower/lower.h"

struct hlx_program_t {
  hlx_module_t* module;
};

struct hlx_buffer_t {
  hlx_tensor_desc_t desc;
  int32_t minor_to_major[HLX_MAX_DIMS]; /* desc.rank entries */
  int64_t padded[HLX_MAX_DIMS]; /* desc.rank entries; = dims: no padding */
  size_t bytes;                 /* of the padded array */
  void* data;
  /* Releases data at destroy: an allocator's free or a zero-copy deleter
   * (NULL release and !owned: the caller keeps data). */
  void (*release)(void* user, void* data);
  void* release_user;
  bool owned; /* data came from aligned_alloc: free() it */
};

/* What a new buffer's memory holds before anyone writes it. */
typedef enum hlx_buffer_fill_t {
  HLX_BUFFER_FILL_ZERO,   /* zeros, then a copy of data when given */
  HLX_BUFFER_FILL_NONE,   /* left as allocated: the caller writes all of it */
  HLX_BUFFER_FILL_POISON, /* NONE, but all bytes 0xff (NaN, -1): a test aid */
} hlx_buffer_fill_t;

/* Buffer memory (api/buffer.c): a buffer of desc in layout m2m (NULL =
 * row-major) padded to `padded` (NULL = none) from allocator a (NULL =
 * default heap), holding a copy of data (NULL: zeros), or with fill NONE
 * and no data, memory the caller will overwrite. */
hlx_status_t hlx_internal_buffer_alloc(const hlx_tensor_desc_t* desc,
                                       const int32_t* m2m,
                                       const int64_t* padded,
                                       const hlx_allocator_t* a,
                                       const void* data, hlx_buffer_fill_t fill,
                                       hlx_buffer_t** out_buffer);
size_t hlx_internal_desc_bytes(const hlx_tensor_desc_t* d);

/* Copies a caller's versioned struct (struct_size first) over dst, which
 * holds defaults: fields beyond the caller's struct_size keep them. */
static inline void hlx_internal_copy_versioned(void* dst, size_t dst_size,
                                               const void* src) {
  size_t n = *(const size_t*)src;
  memcpy(dst, src, n < dst_size ? n : dst_size);
}

/* Layouts (api/layout.c). */
hlx_status_t hlx_internal_check_layout(const char* who, int32_t rank,
                                       const int32_t* m2m);
void hlx_internal_row_major(int32_t rank, int32_t* m2m);
bool hlx_internal_is_row_major(int32_t rank, const int32_t* m2m);
/* Checks padded dims (each >= the dim; the padded size fits). */
hlx_status_t hlx_internal_check_padding(const char* who,
                                        const hlx_tensor_desc_t* d,
                                        const int64_t* padded);
/* Whether b's memory is plain row-major (no permutation, no padding). */
bool hlx_internal_is_plain(const hlx_buffer_t* b);
/* A layout: minor_to_major and padded extents (NULL = the dims). */
typedef struct hlx_layout_t {
  const int32_t* m2m;
  const int64_t* padded;
} hlx_layout_t;
/* Copies the logical elements of a tensor of desc from layout `from` to
 * layout `to`; padding in dst is zeroed. */
void hlx_internal_relayout(const hlx_tensor_desc_t* d, hlx_layout_t from,
                           const void* src, hlx_layout_t to, void* dst);

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
  const struct hlx_parallel_t* parallel; /* the pool's, for kernels */
  int32_t num_replicas, num_partitions;
  int64_t collective_timeout_ms;
  /* custom_call targets, copied from the compile options (names too). */
  hlx_lower_host_function_t* host_functions;
  int32_t num_host_functions;
  /* Result layouts (NULL: all row-major; else num_results rows) and the
   * allocator of result buffers (has_allocator false: default heap). */
  int32_t (*result_layouts)[HLX_MAX_DIMS];
  /* Result padded dims (NULL: none; else num_results rows = the dims
   * where a result is not padded). */
  int64_t (*result_padded)[HLX_MAX_DIMS];
  hlx_allocator_t allocator;
  bool has_allocator;
  /* The module has interpreter.probe / check.expect_serialized_eq ops:
   * only then does a run need a probe store. */
  bool uses_probes;
};

/* The compile options' host functions (both versions) as the lowering
 * takes them: *out (names copied) has *out_n entries, NULL if none
 * (api/host_functions.c). */
hlx_status_t hlx_internal_host_functions(const hlx_compile_options_t* o,
                                         hlx_lower_host_function_t** out,
                                         int32_t* out_n);
void hlx_internal_host_functions_free(hlx_lower_host_function_t* fns,
                                      int32_t n);

/* An executable's boundary (api/layout.c). */
/* Copies compile options' result layouts and allocator into e. */
hlx_status_t hlx_internal_boundary_options(hlx_executable_t* e,
                                           const hlx_compile_options_t* o);
/* A new result buffer for result leaf i, in its layout, from e's allocator. */
hlx_status_t hlx_internal_result_alloc(const hlx_executable_t* e, int32_t i,
                                       hlx_buffer_t** out_buffer);
/* One run's conversions: in[i] is the row-major data of params[i] (the
 * buffer's own, or a converted copy); results in another layout are
 * computed into staging memory and converted by _finish. */
typedef struct hlx_boundary_t {
  const void** in;
  void** staged_in;  /* per param: owned row-major copy or NULL */
  void** staged_out; /* per result: owned row-major staging or NULL */
  int32_t num_params, num_results;
} hlx_boundary_t;
hlx_status_t hlx_internal_boundary_begin(const hlx_executable_t* e,
                                         hlx_buffer_t* const* params,
                                         int32_t num_params,
                                         int32_t num_results,
                                         hlx_boundary_t* bd);
/* Sets *out_data to where the kernels write result i (into `result`). */
hlx_status_t hlx_internal_boundary_result(hlx_boundary_t* bd, int32_t i,
                                          hlx_buffer_t* result,
                                          void** out_data);
void hlx_internal_boundary_finish(hlx_boundary_t* bd,
                                  hlx_buffer_t* const* results);
void hlx_internal_boundary_free(hlx_boundary_t* bd);

#endif /* HLX_API_INTERNAL_H_ */
