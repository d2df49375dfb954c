/* oneDNN matmul (onednn.h): batched, strided operands, post-ops. */
#include <stdlib.h>
#include <string.h>

#include "kernels/libs/onednn_internal.h"

struct hlx_onednn_matmul_t {
  hlx_onednn_matmul_desc_t d;
  dnnl_primitive_t prim;
  dnnl_memory_desc_t a_md, b_md, c_md;
  dnnl_memory_desc_t post_md[HLX_ONEDNN_MAX_POST_OPS];
  int32_t sum_index; /* post-op read from c (a sum), or -1 */
  hlx_dnnl_scratch_t scratch;
  /* b_packed: b as the descriptor lays it out -> b_md (NULL: equal) */
  dnnl_memory_desc_t b_user;
  dnnl_primitive_t b_reorder;
  hlx_dnnl_scratch_t b_scratch;
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
  if (a == HLX_DTYPE_S8 || a == HLX_DTYPE_U8) /* saturates without VNNI */
    return b == HLX_DTYPE_S8 && c == HLX_DTYPE_S32 && hlx_onednn_int8_exact();
  return false;
}

/* [outer,] [batch,] rows x cols: the batch dim only when batch > 1 or
 * there is an outer batch. */
static hlx_status_t matrix_md(dnnl_memory_desc_t* md, hlx_dtype_t t,
                              int64_t outer, int64_t outer_stride,
                              int64_t batch, int64_t rows, int64_t cols,
                              const int64_t* strides) {
  dnnl_dims_t dims, st;
  int nd = 0;
  if (outer > 1) dims[nd] = outer, st[nd++] = outer_stride;
  if (batch > 1 || outer > 1) dims[nd] = batch, st[nd++] = strides[0];
  dims[nd] = rows, st[nd++] = strides[1];
  dims[nd] = cols, st[nd++] = strides[2];
  HLX_DNNL_TRY(
      dnnl_memory_desc_init_by_strides(md, nd, dims, hlx_dnnl_type(t), st),
      "memory descriptor");
  return NULL;
}

static hlx_status_t matmul_build(void* obj, const void* key) {
  hlx_onednn_matmul_t* mm = obj;
  mm->d = *(const hlx_onednn_matmul_desc_t*)key;
  const hlx_onednn_matmul_desc_t* d = &mm->d;
  dnnl_engine_t eng = hlx_dnnl_engine();
  if (!eng)
    return hlx_make_status(HLX_STATUS_INTERNAL, "oneDNN: no CPU engine");
  int64_t ob = d->outer_batch;
  HLX_RETURN_IF_ERROR(matrix_md(&mm->a_md, d->a_type, ob, d->outer_strides[0],
                                d->batch, d->m, d->k, d->a_strides));
  HLX_RETURN_IF_ERROR(matrix_md(&mm->b_md, d->b_type, ob, d->outer_strides[1],
                                d->batch, d->k, d->n, d->b_strides));
  HLX_RETURN_IF_ERROR(matrix_md(&mm->c_md, d->c_type, ob, d->outer_strides[2],
                                d->batch, d->m, d->n, d->c_strides));
  mm->b_user = mm->b_md;
  if (d->b_packed) /* oneDNN's choice, filled in from the primitive */
    HLX_DNNL_TRY(dnnl_memory_desc_init_by_tag(&mm->b_md, mm->b_user.ndims,
                                              mm->b_user.dims,
                                              mm->b_user.data_type,
                                              dnnl_format_tag_any),
                 "weights descriptor");
  dnnl_matmul_desc_t md;
  HLX_DNNL_TRY(
      dnnl_matmul_desc_init(&md, &mm->a_md, &mm->b_md, NULL, &mm->c_md),
      "matmul descriptor");
  dnnl_primitive_desc_t pd = NULL;
  dnnl_primitive_attr_t attr = hlx_dnnl_user_scratchpad_attr();
  if (!attr) return hlx_status_oom();
  mm->sum_index = -1;
  if (d->num_post_ops) {
    hlx_status_t pst =
        d->c_type != HLX_DTYPE_F32 || d->num_post_ops < 0 ||
                d->num_post_ops > HLX_ONEDNN_MAX_POST_OPS
            ? hlx_make_status(HLX_STATUS_UNIMPLEMENTED,
                              "oneDNN matmul: post-ops need an f32 result")
            : hlx_dnnl_add_post_ops(
                  attr, d->num_post_ops, d->post_ops, mm->c_md.ndims,
                  mm->c_md.dims, mm->c_md.format_desc.blocking.strides,
                  mm->c_md.ndims - 1, false, mm->post_md, &mm->sum_index);
    if (pst) {
      dnnl_primitive_attr_destroy(attr);
      return pst;
    }
  }
  hlx_dnnl_scope_t scope;
  hlx_dnnl_scope_enter(&scope, d->threads);
  dnnl_status_t s = dnnl_primitive_desc_create(&pd, &md, attr, eng, NULL);
  hlx_dnnl_scope_leave(&scope, d->threads);
  dnnl_primitive_attr_destroy(attr);
  if (s != dnnl_success)
    return hlx_dnnl_error(s, "matmul primitive descriptor");
  hlx_dnnl_scratch_query(pd, &mm->scratch);
  if (hlx_dnnl_is_ref_impl(pd, mm->impl, sizeof(mm->impl))) {
    dnnl_primitive_desc_destroy(pd);
    return hlx_make_status(HLX_STATUS_UNIMPLEMENTED,
                           "oneDNN: only a reference matmul for this layout");
  }
  if (d->b_packed) {
    mm->b_md = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    hlx_dnnl_scope_enter(&scope, d->threads);
    hlx_status_t rst = hlx_dnnl_make_reorder(&mm->b_user, &mm->b_md,
                                             &mm->b_reorder, &mm->b_scratch);
    hlx_dnnl_scope_leave(&scope, d->threads);
    if (rst) {
      dnnl_primitive_desc_destroy(pd);
      return rst;
    }
  }
  hlx_dnnl_scope_enter(&scope, d->threads);
  s = dnnl_primitive_create(&mm->prim, pd);
  hlx_dnnl_scope_leave(&scope, d->threads);
  dnnl_primitive_desc_destroy(pd);
  if (s != dnnl_success) return hlx_dnnl_error(s, "matmul primitive");
  return NULL;
}

static void matmul_destroy(void* p) {
  hlx_onednn_matmul_t* mm = p;
  if (mm->prim) dnnl_primitive_destroy(mm->prim);
  if (mm->b_reorder) dnnl_primitive_destroy(mm->b_reorder);
}

hlx_status_t hlx_onednn_matmul_create(const hlx_onednn_matmul_desc_t* d,
                                      hlx_onednn_matmul_t** out) {
  *out = NULL;
  if (!matmul_types_ok(d))
    return hlx_make_status(HLX_STATUS_UNIMPLEMENTED,
                           "oneDNN matmul: unsupported type combination");
  if (d->batch < 1 || d->m < 1 || d->n < 1 || d->k < 1 || d->outer_batch < 0)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "oneDNN matmul: empty dimensions");
  void* obj;
  HLX_RETURN_IF_ERROR(hlx_dnnl_obtain(HLX_DNNL_KIND_MATMUL, d, sizeof(*d),
                                      sizeof(hlx_onednn_matmul_t), matmul_build,
                                      matmul_destroy, &obj));
  *out = obj;
  return NULL;
}

void hlx_onednn_matmul_release(hlx_onednn_matmul_t* mm) { hlx_dnnl_put(mm); }

const hlx_onednn_matmul_desc_t* hlx_onednn_matmul_desc(
    const hlx_onednn_matmul_t* mm) {
  return &mm->d;
}

const char* hlx_onednn_matmul_impl(const hlx_onednn_matmul_t* mm) {
  return mm->impl;
}

size_t hlx_onednn_matmul_packed_b_bytes(const hlx_onednn_matmul_t* mm) {
  return dnnl_memory_desc_get_size(&mm->b_md);
}

hlx_status_t hlx_onednn_matmul_pack_b(const hlx_onednn_matmul_t* mm,
                                      const void* b, void* packed) {
  if (!mm->d.b_packed)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "oneDNN matmul: packing b of a matmul created "
                           "without b_packed");
  if (!mm->b_reorder) {
    memcpy(packed, b, dnnl_memory_desc_get_size(&mm->b_md));
    return NULL;
  }
  return hlx_dnnl_run_reorder(mm->b_reorder, &mm->b_user, b, &mm->b_md, packed,
                              &mm->b_scratch, mm->d.threads);
}

hlx_status_t hlx_onednn_matmul_run(const hlx_onednn_matmul_t* mm, const void* a,
                                   const void* b, void* c) {
  return hlx_onednn_matmul_run_ex(mm, a, b, NULL, c);
}

hlx_status_t hlx_onednn_matmul_run_ex(const hlx_onednn_matmul_t* mm,
                                      const void* a, const void* b,
                                      const void* const* post_args, void* c) {
  hlx_dnnl_mem_list_t ml = {.n = 0};
  dnnl_memory_t am, bm, cm, sm = NULL;
  dnnl_stream_t stream = NULL;
  dnnl_status_t s;
  if (!post_args &&
      hlx_dnnl_post_ops_need_args(mm->d.num_post_ops, mm->d.post_ops))
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "oneDNN matmul: created with post-ops, run "
                           "without their operands");
  void* scratch =
      mm->scratch.bytes ? hlx_dnnl_workspace(mm->scratch.bytes) : NULL;
  if (mm->scratch.bytes && !scratch) return hlx_status_oom();
  if ((s = hlx_dnnl_mem_add(&ml, &mm->a_md, a, &am)) != dnnl_success ||
      (s = hlx_dnnl_mem_add(&ml, &mm->b_md, b, &bm)) != dnnl_success ||
      (s = hlx_dnnl_mem_add(&ml, &mm->c_md, c, &cm)) != dnnl_success ||
      (scratch && (s = hlx_dnnl_mem_add(&ml, &mm->scratch.md, scratch, &sm)) !=
                      dnnl_success) ||
      (s = dnnl_stream_create(&stream, hlx_dnnl_engine(),
                              dnnl_stream_default_flags)) != dnnl_success) {
    hlx_dnnl_mem_free(&ml);
    return hlx_dnnl_error(s, "matmul memory");
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
    if ((s = hlx_dnnl_mem_add(&ml, &mm->post_md[i], post_args[i], &pm)) !=
        dnnl_success) {
      dnnl_stream_destroy(stream);
      hlx_dnnl_mem_free(&ml);
      return hlx_dnnl_error(s, "matmul post-op memory");
    }
    int32_t k = hlx_dnnl_post_op_index(mm->d.post_ops, i, false);
    args[na++] = (dnnl_exec_arg_t){
        DNNL_ARG_ATTR_MULTIPLE_POST_OP(k) | DNNL_ARG_SRC_1, pm};
  }
  hlx_dnnl_scope_t scope;
  hlx_dnnl_scope_enter(&scope, mm->d.threads);
  s = dnnl_primitive_execute(mm->prim, stream, na, args);
  if (s == dnnl_success) s = dnnl_stream_wait(stream);
  hlx_dnnl_scope_leave(&scope, mm->d.threads);
  dnnl_stream_destroy(stream);
  hlx_dnnl_mem_free(&ml);
  return s == dnnl_success ? NULL : hlx_dnnl_error(s, "matmul execution");
}
