/* Shape-polymorphic programs: specialising a program to its inputs. The
 * copy (graph/ir/copy.h) leaves the caller's program untouched, and
 * refinement rewrites the copy freely. */
#include <stdlib.h>
#include <string.h>

#include "api/internal.h"
#include "graph/passes/refine_shapes.h"
#include "graph/ir/copy.h"

static const hlx_func_t* find_fn(const hlx_program_t* p, const char* fn) {
  return fn ? hlx_module_find_func(p->module, fn)
            : hlx_module_entry(p->module);
}

bool hlx_program_function_is_dynamic(const hlx_program_t* p, const char* fn) {
  const hlx_func_t* f = find_fn(p, fn);
  return f && hlx_func_is_dynamic(p->module, f);
}

hlx_status_t hlx_program_function_arg_desc(const hlx_program_t* p,
                                           const char* fn, int32_t arg,
                                           hlx_tensor_desc_t* desc) {
  const hlx_func_t* f = find_fn(p, fn);
  if (!f) return hlx_make_status(HLX_STATUS_NOT_FOUND, "no function @%s", fn);
  if (arg < 0 || arg >= f->num_args)
    return hlx_make_status(HLX_STATUS_OUT_OF_RANGE,
                           "@%s has %d arguments, not %d", f->name,
                           (int)f->num_args, (int)arg + 1);
  const hlx_type_t* t = f->body->blocks[0]->args[arg]->type;
  if (t->kind != HLX_TYPE_TENSOR || t->rank > HLX_MAX_DIMS)
    return hlx_make_status(HLX_STATUS_UNIMPLEMENTED,
                           "@%s argument %d is not a tensor", f->name,
                           (int)arg);
  memset(desc, 0, sizeof *desc);
  desc->element_type = (hlx_element_type_t)t->dtype;
  desc->rank = t->rank;
  for (int32_t d = 0; d < t->rank; d++)
    desc->dims[d] = t->dims[d] == HLX_DYNAMIC_DIM ? -1 : t->dims[d];
  return NULL;
}

enum { kMaxValues = 256 }; /* integer arguments up to this size are read */

static int64_t int_at(hlx_dtype_t t, const void* d, int64_t i) {
  bool s = hlx_dtype_is_signed_int(t);
  switch (hlx_dtype_size(t)) {
    case 1: return s ? (int64_t)((const int8_t*)d)[i] : (int64_t)((const uint8_t*)d)[i];
    case 2: return s ? (int64_t)((const int16_t*)d)[i] : (int64_t)((const uint16_t*)d)[i];
    case 4: return s ? (int64_t)((const int32_t*)d)[i] : (int64_t)((const uint32_t*)d)[i];
    default: return ((const int64_t*)d)[i];
  }
}

hlx_status_t hlx_program_specialize(const hlx_program_t* p, const char* fn,
                                    const hlx_buffer_t* const* args,
                                    int32_t num_args, hlx_program_t** out) {
  *out = NULL;
  const hlx_func_t* f = find_fn(p, fn);
  if (!f) return hlx_make_status(HLX_STATUS_NOT_FOUND, "no function @%s", fn);
  if (num_args != f->num_args)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "@%s takes %d arguments, %d given", f->name,
                           (int)f->num_args, (int)num_args);
  hlx_program_t* q = calloc(1, sizeof *q);
  hlx_status_t st = q ? hlx_module_copy(p->module, &q->module)
                      : hlx_status_oom();
  if (st) {
    free(q);
    return st;
  }
  hlx_refine_arg_t* ra = calloc((size_t)num_args + 1, sizeof *ra);
  if (!ra) st = hlx_status_oom();
  for (int32_t i = 0; !st && i < num_args; i++) {
    const hlx_buffer_t* b = args[i];
    const hlx_type_t* t = f->body->blocks[0]->args[i]->type;
    if (t->kind == HLX_TYPE_TENSOR &&
        (hlx_dtype_t)b->desc.element_type != t->dtype && !t->quant)
      st = hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "@%s argument %d: element type %s given, %s "
                           "declared",
                           f->name, (int)i,
                           hlx_dtype_name((hlx_dtype_t)b->desc.element_type),
                           hlx_dtype_name(t->dtype));
    ra[i].rank = b->desc.rank;
    ra[i].dims = b->desc.dims;
    hlx_dtype_t dt = (hlx_dtype_t)b->desc.element_type;
    int64_t n = 1;
    for (int32_t d = 0; d < b->desc.rank; d++) n *= b->desc.dims[d];
    if (hlx_dtype_is_int(dt) && n <= kMaxValues && hlx_internal_is_plain(b)) {
      int64_t* v = malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
      if (!v) {
        st = hlx_status_oom();
        break;
      }
      for (int64_t k = 0; k < n; k++) v[k] = int_at(dt, hlx_buffer_data(b), k);
      ra[i].values = v;
      ra[i].num_values = n;
    }
  }
  hlx_func_t* qf = st ? NULL : hlx_module_find_func(q->module, f->name);
  if (!st && !qf) st = hlx_make_status(HLX_STATUS_INTERNAL, "lost @%s", f->name);
  if (!st) st = hlx_refine_shapes(q->module, qf, num_args, ra);
  for (int32_t i = 0; ra && i < num_args; i++) free((void*)ra[i].values);
  free(ra);
  if (st) {
    hlx_program_destroy(q);
    return st;
  }
  *out = q;
  return NULL;
}
