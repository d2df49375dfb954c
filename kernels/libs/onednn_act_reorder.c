/* oneDNN activation reorders (onednn.h): strided <-> blocked. */
#include <stdlib.h>
#include <string.h>

#include "kernels/libs/onednn_internal.h"

struct hlx_onednn_act_reorder_t {
  hlx_onednn_act_desc_t d;
  dnnl_primitive_t prim;
  dnnl_memory_desc_t from, to;
};

static void act_destroy(void* p) {
  hlx_onednn_act_reorder_t* r = p;
  if (r->prim) dnnl_primitive_destroy(r->prim);
}

static hlx_status_t act_build(void* obj, const void* key) {
  hlx_onednn_act_reorder_t* r = obj;
  r->d = *(const hlx_onednn_act_desc_t*)key;
  const hlx_onednn_act_desc_t* d = &r->d;
  int nd = 2 + d->num_spatial;
  dnnl_dims_t dims, st;
  dims[0] = d->batch, dims[1] = d->features;
  for (int i = 0; i < d->num_spatial; i++) dims[2 + i] = d->spatial[i];
  for (int i = 0; i < nd; i++) st[i] = d->strides[i];
  if (!hlx_dnnl_engine())
    return hlx_make_status(HLX_STATUS_INTERNAL, "oneDNN: no CPU engine");
  dnnl_memory_desc_t plain, blocked;
  HLX_DNNL_TRY(dnnl_memory_desc_init_by_strides(&plain, nd, dims, dnnl_f32, st),
               "activation descriptor");
  HLX_RETURN_IF_ERROR(hlx_dnnl_blocked_md(&blocked, nd, dims));
  r->from = d->to_blocked ? plain : blocked;
  r->to = d->to_blocked ? blocked : plain;
  hlx_dnnl_scope_t scope;
  hlx_dnnl_scope_enter(&scope, d->threads);
  hlx_status_t st2 = hlx_dnnl_make_reorder(&r->from, &r->to, &r->prim, NULL);
  hlx_dnnl_scope_leave(&scope, d->threads);
  return st2;
}

hlx_status_t hlx_onednn_act_reorder_create(const hlx_onednn_act_desc_t* d,
                                           hlx_onednn_act_reorder_t** out) {
  *out = NULL;
  if (d->num_spatial < 1 || d->num_spatial > HLX_ONEDNN_CONV_MAX_SPATIAL)
    return hlx_make_status(HLX_STATUS_UNIMPLEMENTED,
                           "oneDNN reorder: %d spatial dims", d->num_spatial);
  void* obj;
  HLX_RETURN_IF_ERROR(hlx_dnnl_obtain(HLX_DNNL_KIND_ACT, d, sizeof(*d),
                                      sizeof(hlx_onednn_act_reorder_t),
                                      act_build, act_destroy, &obj));
  *out = obj;
  return NULL;
}

hlx_status_t hlx_onednn_act_reorder_run(const hlx_onednn_act_reorder_t* r,
                                        const float* src, float* dst) {
  if (!r->prim) { /* equal layouts (C == block, no spatial padding...) */
    memcpy(dst, src, dnnl_memory_desc_get_size(&r->to));
    return NULL;
  }
  return hlx_dnnl_run_reorder(r->prim, &r->from, src, &r->to, dst, NULL,
                              r->d.threads);
}

void hlx_onednn_act_reorder_release(hlx_onednn_act_reorder_t* r) {
  hlx_dnnl_put(r);
}
