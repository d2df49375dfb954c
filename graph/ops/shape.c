/* Helpers the op families share (graph/ops/family.h). */
#include <string.h>

#include "graph/ops/family.h"

bool hlx_dim_compatible(int64_t a, int64_t b) {
  return a == b || a == HLX_DYNAMIC_DIM || b == HLX_DYNAMIC_DIM;
}

hlx_type_t* hlx_ops_tensor_type(hlx_arena_t* arena, hlx_dtype_t dtype,
                                int32_t rank, const int64_t* dims) {
  hlx_type_t* t = hlx_arena_alloc(arena, sizeof(*t));
  if (!t) return NULL;
  memset(t, 0, sizeof *t);
  t->kind = HLX_TYPE_TENSOR;
  t->dtype = dtype;
  t->rank = rank;
  if (rank > 0) {
    t->dims = hlx_arena_alloc_array(arena, (size_t)rank, sizeof(int64_t));
    if (!t->dims) return NULL;
    memcpy(t->dims, dims, sizeof(int64_t) * (size_t)rank);
  }
  return t;
}
