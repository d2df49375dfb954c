/* What the oneDNN wrappers (onednn_matmul.c, onednn_conv.c,
 * onednn_act_reorder.c) share, defined in onednn_common.c; not part of
 * the kernel layer's interface (that is onednn.h). */
#ifndef HLX_KERNELS_LIBS_ONEDNN_INTERNAL_H_
#define HLX_KERNELS_LIBS_ONEDNN_INTERNAL_H_

#include <oneapi/dnnl/dnnl.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

#include "kernels/libs/onednn.h"

/* The CPU engine, created once; NULL if oneDNN could not make one. */
dnnl_engine_t hlx_dnnl_engine(void);

/* An hlx status for a failed oneDNN call named by `what`. */
hlx_status_t hlx_dnnl_error(dnnl_status_t s, const char* what);

#define HLX_DNNL_TRY(expr, what)                             \
  do {                                                       \
    dnnl_status_t s_ = (expr);                               \
    if (s_ != dnnl_success) return hlx_dnnl_error(s_, what); \
  } while (0)

/* Around every oneDNN call (see onednn_common.c's threading decision):
 * the calling thread's OpenMP team size and, when it is pinned, its
 * affinity widened; hlx_dnnl_scope_leave restores both. */
typedef struct hlx_dnnl_scope_t {
  int prev_threads;
  bool widened;
  cpu_set_t saved;
} hlx_dnnl_scope_t;
void hlx_dnnl_scope_enter(hlx_dnnl_scope_t* s, int32_t threads);
void hlx_dnnl_scope_leave(const hlx_dnnl_scope_t* s, int32_t threads);

/* Copies the primitive's implementation name into name; true when it is
 * one of oneDNN's reference (slow, loop) implementations. */
bool hlx_dnnl_is_ref_impl(const_dnnl_primitive_desc_t pd, char* name,
                          size_t len);

/* The process-wide primitive cache, keyed by (kind, descriptor bytes);
 * lifetime rules in onednn_common.c. */
enum {
  HLX_DNNL_KIND_MATMUL = 1,
  HLX_DNNL_KIND_CONV = 2,
  HLX_DNNL_KIND_ACT = 3
};
/* Fills a zeroed object of obj_size bytes from its descriptor `key`. */
typedef hlx_status_t (*hlx_dnnl_build_fn)(void* obj, const void* key);
/* *out = a new reference to the object cached under (kind, key), built on
 * a miss with build; destroy frees what build made (also after a failed
 * build, and for an equal object another thread built first), not the
 * object's memory. A build error is returned as it is. */
hlx_status_t hlx_dnnl_obtain(int kind, const void* key, size_t n,
                             size_t obj_size, hlx_dnnl_build_fn build,
                             void (*destroy)(void*), void** out) HLX_MUST_USE;
/* Drops a reference hlx_dnnl_obtain returned (NULL: no-op). */
void hlx_dnnl_put(void* obj);

dnnl_data_type_t hlx_dnnl_type(hlx_dtype_t t);
/* 64-byte aligned, rounded up to whole lines; free() it. */
void* hlx_dnnl_aligned_buffer(size_t bytes);
/* The calling thread's workspace of at least `bytes` (64-byte aligned,
 * contents undefined; kept between runs, valid until the thread's next
 * call), or NULL when memory runs out. */
void* hlx_dnnl_workspace(size_t bytes);
/* Attributes asking for a caller-provided scratchpad; NULL on failure. */
dnnl_primitive_attr_t hlx_dnnl_user_scratchpad_attr(void);

/* Appends the post-ops to attr (binary operands' descriptors in mds[i]);
 * *full receives the index of a whole-tensor add turned into a sum, or -1.
 * relu keeps NaN (two oneDNN post-ops) unless relu_flushes_nan (one, which
 * gives 0 for NaN: for kernels that take no other, Winograd's). */
hlx_status_t hlx_dnnl_add_post_ops(dnnl_primitive_attr_t attr, int32_t n,
                                   const hlx_onednn_post_op_t* ops, int nd,
                                   const dnnl_dims_t dims,
                                   const dnnl_dims_t strides, int feature,
                                   bool relu_flushes_nan,
                                   dnnl_memory_desc_t* mds, int32_t* full);

/* oneDNN's index of post-op i (DNNL_ARG_ATTR_MULTIPLE_POST_OP) as
 * hlx_dnnl_add_post_ops appended them. */
int32_t hlx_dnnl_post_op_index(const hlx_onednn_post_op_t* ops, int32_t i,
                               bool relu_flushes_nan);

/* Whether some of the post-ops read a second operand (post_args). */
bool hlx_dnnl_post_ops_need_args(int32_t n, const hlx_onednn_post_op_t* ops);

/* A primitive's scratchpad need, recorded at creation. */
typedef struct hlx_dnnl_scratch_t {
  dnnl_memory_desc_t md;
  size_t bytes;
} hlx_dnnl_scratch_t;
void hlx_dnnl_scratch_query(const_dnnl_primitive_desc_t pd,
                            hlx_dnnl_scratch_t* sc);

/* The memory objects of one execution, destroyed together. */
typedef struct hlx_dnnl_mem_list_t {
  dnnl_memory_t m[8 + HLX_ONEDNN_MAX_POST_OPS];
  int n;
} hlx_dnnl_mem_list_t;
void hlx_dnnl_mem_free(hlx_dnnl_mem_list_t* l);
dnnl_status_t hlx_dnnl_mem_add(hlx_dnnl_mem_list_t* l,
                               const dnnl_memory_desc_t* md, const void* ptr,
                               dnnl_memory_t* out);

/* A reorder primitive from -> to (*out NULL when they are equal); one that
 * needs a scratchpad is allowed only when sc_out takes its size. */
hlx_status_t hlx_dnnl_make_reorder(const dnnl_memory_desc_t* from,
                                   const dnnl_memory_desc_t* to,
                                   dnnl_primitive_t* out,
                                   hlx_dnnl_scratch_t* sc_out);
/* Runs a reorder from -> to on `stream` under the threads budget and
 * waits for it; sc (NULL: none) the reorder's scratchpad need, at
 * `scratch`. */
dnnl_status_t hlx_dnnl_exec_reorder(dnnl_primitive_t prim, dnnl_stream_t stream,
                                    const dnnl_memory_desc_t* from_md,
                                    const void* from,
                                    const dnnl_memory_desc_t* to_md, void* to,
                                    const hlx_dnnl_scratch_t* sc,
                                    void* scratch, int32_t threads);
/* The same on a stream of its own, the scratchpad from the calling
 * thread's workspace. */
hlx_status_t hlx_dnnl_run_reorder(dnnl_primitive_t prim,
                                  const dnnl_memory_desc_t* from_md,
                                  const void* from,
                                  const dnnl_memory_desc_t* to_md, void* to,
                                  const hlx_dnnl_scratch_t* sc,
                                  int32_t threads) HLX_MUST_USE;
/* The blocked activation layout of dims [N, C, S...] (nd = 3..5). */
hlx_status_t hlx_dnnl_blocked_md(dnnl_memory_desc_t* md, int nd,
                                 const dnnl_dims_t dims);

#endif /* HLX_KERNELS_LIBS_ONEDNN_INTERNAL_H_ */
