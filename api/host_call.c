/* The public side of version-2 host calls: what a host function reads
 * from its call frame (operands, results, attribute dictionaries) and the
 * typed attribute getters, over graph/lower/host_call.h's structures. */
#include <stdio.h>
#include <string.h>

#include "api/internal.h"
#include "graph/lower/host_call.h"

#define SAME_TYPE(pub, internal)                 \
  _Static_assert((int)(pub) == (int)(internal), \
                 #pub " must equal " #internal)
SAME_TYPE(HLX_ATTRS_ABSENT, HLX_HOST_ATTR_ABSENT);
SAME_TYPE(HLX_ATTRS_BOOL, HLX_HOST_ATTR_BOOL);
SAME_TYPE(HLX_ATTRS_INT, HLX_HOST_ATTR_INT);
SAME_TYPE(HLX_ATTRS_FLOAT, HLX_HOST_ATTR_FLOAT);
SAME_TYPE(HLX_ATTRS_STRING, HLX_HOST_ATTR_STRING);
SAME_TYPE(HLX_ATTRS_INT_ARRAY, HLX_HOST_ATTR_INT_ARRAY);
SAME_TYPE(HLX_ATTRS_FLOAT_ARRAY, HLX_HOST_ATTR_FLOAT_ARRAY);
SAME_TYPE(HLX_ATTRS_STRING_ARRAY, HLX_HOST_ATTR_STRING_ARRAY);
SAME_TYPE(HLX_ATTRS_DICT, HLX_HOST_ATTR_DICT);
SAME_TYPE(HLX_ATTRS_OTHER, HLX_HOST_ATTR_OTHER);
_Static_assert(HLX_MAX_DIMS == HLX_MAX_RANK, "leaf ranks fit a desc");

/* ---- The call frame ------------------------------------------------------ */

const char* hlx_host_call_target(const hlx_host_call_t* call) {
  return call ? call->info->target : "";
}
int32_t hlx_host_call_num_operands(const hlx_host_call_t* call) {
  return call ? call->info->num_in : 0;
}
int32_t hlx_host_call_num_results(const hlx_host_call_t* call) {
  return call ? call->info->num_out : 0;
}

static hlx_status_t leaf(const char* fn, const hlx_host_call_t* call,
                         bool result, int32_t i, hlx_host_buffer_t* out) {
  if (out) memset(out, 0, sizeof *out);
  if (!call || !out)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT, "%s: call or out is "
                           "NULL", fn);
  const hlx_host_call_info_t* info = call->info;
  int32_t n = result ? info->num_out : info->num_in;
  if (i < 0 || i >= n)
    return hlx_make_status(HLX_STATUS_OUT_OF_RANGE,
                           "%s: %s: no %s #%d (the call has %d)",
                           info->target, fn, result ? "result" : "operand", i,
                           n);
  int32_t k = result ? info->num_in + i : i;
  const hlx_host_leaf_t* l = &info->leaves[k];
  out->desc.element_type = (hlx_element_type_t)l->dtype;
  out->desc.rank = l->rank;
  for (int32_t d = 0; d < l->rank; d++) {
    out->desc.dims[d] = l->dims[d];
    out->minor_to_major[d] = l->m2m[d];
  }
  out->data = call->data[k];
  out->bytes = l->bytes;
  return NULL;
}

hlx_status_t hlx_host_call_operand(const hlx_host_call_t* call, int32_t i,
                                   hlx_host_buffer_t* out) {
  return leaf("hlx_host_call_operand", call, false, i, out);
}
hlx_status_t hlx_host_call_result(const hlx_host_call_t* call, int32_t i,
                                  hlx_host_buffer_t* out) {
  return leaf("hlx_host_call_result", call, true, i, out);
}
const hlx_attrs_t* hlx_host_call_attrs(const hlx_host_call_t* call) {
  return call ? call->info->attrs : NULL;
}
const hlx_attrs_t* hlx_host_call_op_attrs(const hlx_host_call_t* call) {
  return call ? call->info->op_attrs : NULL;
}

/* ---- Attribute dictionaries ---------------------------------------------- */

int32_t hlx_attrs_count(const hlx_attrs_t* attrs) {
  return attrs ? attrs->count : 0;
}
const char* hlx_attrs_name_at(const hlx_attrs_t* attrs, int32_t i) {
  return attrs && i >= 0 && i < attrs->count ? attrs->entries[i].name : NULL;
}
hlx_attrs_type_t hlx_attrs_type(const hlx_attrs_t* attrs, const char* name) {
  const hlx_host_attr_t* e =
      attrs && name ? hlx_host_attrs_find(attrs, name) : NULL;
  return e ? (hlx_attrs_type_t)e->type : HLX_ATTRS_ABSENT;
}
hlx_element_type_t hlx_attrs_element_type(const hlx_attrs_t* attrs,
                                          const char* name) {
  const hlx_host_attr_t* e =
      attrs && name ? hlx_host_attrs_find(attrs, name) : NULL;
  return e ? (hlx_element_type_t)e->dtype : 0;
}

static const char* type_name(hlx_host_attr_type_t t) {
  static const char* const kNames[] = {
      "absent",        "a bool",         "an integer",
      "a float",       "a string",       "an integer array",
      "a float array", "a string array", "a dictionary",
      "another kind of attribute"};
  return kNames[t];
}

static bool is_array(hlx_host_attr_type_t t) {
  return t == HLX_HOST_ATTR_INT_ARRAY || t == HLX_HOST_ATTR_FLOAT_ARRAY ||
         t == HLX_HOST_ATTR_STRING_ARRAY;
}

/* The entry `name` of type `want` (fn names the getter), or a status. */
static hlx_status_t lookup(const char* fn, const hlx_attrs_t* a,
                           const char* name, const void* out,
                           hlx_host_attr_type_t want,
                           const hlx_host_attr_t** e) {
  *e = NULL;
  if (!a || !name || !out)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "%s: attrs, name or the output is NULL", fn);
  const hlx_host_attr_t* x = hlx_host_attrs_find(a, name);
  if (!x) {
    char have[256] = "";
    size_t o = 0;
    for (int32_t i = 0; i < a->count && o + 1 < sizeof have; i++)
      o += (size_t)snprintf(have + o, sizeof have - o, "%s%s", i ? ", " : "",
                            a->entries[i].name);
    return hlx_make_status(HLX_STATUS_NOT_FOUND,
                           "%s: %s has no attribute '%s' (%s%s)", a->target,
                           a->what, name, a->count ? "it has: " : "it has none",
                           have);
  }
  bool empty_array = is_array(want) && is_array(x->type) && x->count == 0;
  if (x->type != want && !empty_array)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "%s: attribute '%s' of %s is %s, not %s",
                           a->target, name, a->what, type_name(x->type),
                           type_name(want));
  *e = x;
  return NULL;
}

hlx_status_t hlx_attrs_get_bool(const hlx_attrs_t* attrs, const char* name,
                                bool* out_value) {
  const hlx_host_attr_t* e;
  if (out_value) *out_value = false;
  HLX_RETURN_IF_ERROR(lookup("hlx_attrs_get_bool", attrs, name, out_value,
                             HLX_HOST_ATTR_BOOL, &e));
  *out_value = e->b;
  return NULL;
}

hlx_status_t hlx_attrs_get_int(const hlx_attrs_t* attrs, const char* name,
                               int64_t* out_value) {
  const hlx_host_attr_t* e;
  if (out_value) *out_value = 0;
  HLX_RETURN_IF_ERROR(lookup("hlx_attrs_get_int", attrs, name, out_value,
                             HLX_HOST_ATTR_INT, &e));
  *out_value = e->i;
  return NULL;
}

hlx_status_t hlx_attrs_get_float(const hlx_attrs_t* attrs, const char* name,
                                 double* out_value) {
  const hlx_host_attr_t* e;
  if (out_value) *out_value = 0;
  HLX_RETURN_IF_ERROR(lookup("hlx_attrs_get_float", attrs, name, out_value,
                             HLX_HOST_ATTR_FLOAT, &e));
  *out_value = e->f;
  return NULL;
}

hlx_status_t hlx_attrs_get_string(const hlx_attrs_t* attrs, const char* name,
                                  const char** out_value, size_t* out_len) {
  const hlx_host_attr_t* e;
  if (out_value) *out_value = NULL;
  if (out_len) *out_len = 0;
  HLX_RETURN_IF_ERROR(lookup("hlx_attrs_get_string", attrs, name, out_value,
                             HLX_HOST_ATTR_STRING, &e));
  *out_value = e->str;
  if (out_len) *out_len = e->len;
  return NULL;
}

/* The array entry `name` of type want, or NULL and a status. */
static const hlx_host_attr_t* get_array(const char* fn,
                                        const hlx_attrs_t* attrs,
                                        const char* name, bool has_out,
                                        int64_t* out_count,
                                        hlx_host_attr_type_t want,
                                        hlx_status_t* st) {
  const hlx_host_attr_t* e = NULL;
  if (out_count) *out_count = 0;
  *st = lookup(fn, attrs, name, has_out ? out_count : NULL, want, &e);
  if (e) *out_count = e->count;
  return e;
}

hlx_status_t hlx_attrs_get_int_array(const hlx_attrs_t* attrs,
                                     const char* name,
                                     const int64_t** out_values,
                                     int64_t* out_count) {
  hlx_status_t st;
  const hlx_host_attr_t* e =
      get_array("hlx_attrs_get_int_array", attrs, name, out_values != NULL,
                out_count, HLX_HOST_ATTR_INT_ARRAY, &st);
  if (out_values) *out_values = e ? e->ints : NULL;
  return st;
}

hlx_status_t hlx_attrs_get_float_array(const hlx_attrs_t* attrs,
                                       const char* name,
                                       const double** out_values,
                                       int64_t* out_count) {
  hlx_status_t st;
  const hlx_host_attr_t* e =
      get_array("hlx_attrs_get_float_array", attrs, name, out_values != NULL,
                out_count, HLX_HOST_ATTR_FLOAT_ARRAY, &st);
  if (out_values) *out_values = e ? e->floats : NULL;
  return st;
}

hlx_status_t hlx_attrs_get_string_array(const hlx_attrs_t* attrs,
                                        const char* name,
                                        const char* const** out_values,
                                        int64_t* out_count) {
  hlx_status_t st;
  const hlx_host_attr_t* e =
      get_array("hlx_attrs_get_string_array", attrs, name, out_values != NULL,
                out_count, HLX_HOST_ATTR_STRING_ARRAY, &st);
  if (out_values) *out_values = e ? e->strs : NULL;
  return st;
}

hlx_status_t hlx_attrs_get_dict(const hlx_attrs_t* attrs, const char* name,
                                const hlx_attrs_t** out_dict) {
  const hlx_host_attr_t* e;
  if (out_dict) *out_dict = NULL;
  HLX_RETURN_IF_ERROR(lookup("hlx_attrs_get_dict", attrs, name, out_dict,
                             HLX_HOST_ATTR_DICT, &e));
  *out_dict = e->dict;
  return NULL;
}
