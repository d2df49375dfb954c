/* Version-2 host calls: the call frame a custom_call hands its host
 * function (api/hlx.h's opaque hlx_host_call_t, read through the
 * hlx_host_call_* functions of api/host_call.c) and the attribute
 * dictionaries (hlx_attrs_t) made from the op's attributes when it is
 * lowered (graph/lower/host_call.c, graph/lower/host_attrs.c). */
#ifndef HLX_GRAPH_HOST_CALL_H_
#define HLX_GRAPH_HOST_CALL_H_

#include "graph/ir/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Entry types; the values of api/hlx.h's hlx_attrs_type_t. */
typedef enum hlx_host_attr_type_t {
  HLX_HOST_ATTR_ABSENT = 0,
  HLX_HOST_ATTR_BOOL = 1,
  HLX_HOST_ATTR_INT = 2,
  HLX_HOST_ATTR_FLOAT = 3,
  HLX_HOST_ATTR_STRING = 4,
  HLX_HOST_ATTR_INT_ARRAY = 5,
  HLX_HOST_ATTR_FLOAT_ARRAY = 6,
  HLX_HOST_ATTR_STRING_ARRAY = 7,
  HLX_HOST_ATTR_DICT = 8,
  HLX_HOST_ATTR_OTHER = 9,
} hlx_host_attr_type_t;

typedef struct hlx_attrs_t hlx_attrs_t;

/* One entry: the fields of its type are set. */
typedef struct hlx_host_attr_t {
  const char* name;
  hlx_host_attr_type_t type;
  hlx_dtype_t dtype; /* scalars and arrays: the element type */
  bool b;            /* BOOL */
  int64_t i;         /* INT */
  double f;          /* FLOAT */
  const char* str;   /* STRING (NUL-terminated, len bytes) */
  size_t len;
  int64_t count;     /* arrays */
  const int64_t* ints;
  const double* floats;
  const char* const* strs;
  const hlx_attrs_t* dict; /* DICT */
} hlx_host_attr_t;

struct hlx_attrs_t {
  const char* target; /* the custom_call's target, for errors */
  const char* what;   /* "backend_config", "backend_config.x", "op" */
  int32_t count;
  const hlx_host_attr_t* entries;
};

/* The entry `name` of a, NULL when absent. */
const hlx_host_attr_t* hlx_host_attrs_find(const hlx_attrs_t* a,
                                           const char* name);

/* The dictionaries of custom_call op (target: its call_target_name), in
 * the plan's memory: *ffi the FFI attributes (the dictionary of
 * mhlo.backend_config or backend_config, else empty), *all every
 * attribute of the op plus the defaults api/hlx.h lists. */
struct hlx_lower_ctx_t;
hlx_status_t hlx_host_attrs_build(struct hlx_lower_ctx_t* c,
                                  const hlx_op_t* op, const char* target,
                                  const hlx_attrs_t** ffi,
                                  const hlx_attrs_t** all) HLX_MUST_USE;

/* One operand or result leaf of a call. */
typedef struct hlx_host_leaf_t {
  hlx_dtype_t dtype; /* tokens: PRED with dims {0} */
  int32_t rank;
  const int64_t* dims;
  int32_t m2m[HLX_MAX_RANK]; /* the layout the function sees */
  const int64_t* layout;     /* the same; NULL when row-major (no copy) */
  size_t bytes;
} hlx_host_leaf_t;

/* What lowering learnt about one custom_call (immutable, in the plan). */
typedef struct hlx_host_call_info_t {
  const char* target;
  int32_t num_in, num_out;
  const hlx_host_leaf_t* leaves; /* num_in operand leaves, then results */
  const hlx_attrs_t* attrs;      /* FFI attributes (backend_config dict) */
  const hlx_attrs_t* op_attrs;   /* every attribute, with defaults */
} hlx_host_call_info_t;

/* One call: the info and each leaf's buffer in the leaf's layout. */
struct hlx_host_call_t {
  const hlx_host_call_info_t* info;
  void* const* data; /* num_in + num_out */
};

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* HLX_GRAPH_HOST_CALL_H_ */
