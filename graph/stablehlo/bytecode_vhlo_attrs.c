/* VHLO attributes that StableHLO spells differently: dimension numbers
 * (VHLO keeps each field as its own attribute; StableHLO and the text
 * parser have one #stablehlo.conv / .dot / .gather / .scatter struct),
 * channel handles, dot algorithms, and the attributes StableHLO stores as
 * dense arrays or symbol references where VHLO has tensors and strings.
 * Structs carry the fields their text form prints: gather, scatter and
 * channel_handle omit empty lists and zeros (StableHLO's printStruct);
 * conv and dot carry all fields, as the text parser's pretty forms do. */
#include <string.h>

#include "graph/stablehlo/bytecode_convert.h"

static bool eq(const char* a, const char* b) { return strcmp(a, b) == 0; }

typedef struct implode_t {
  hlx_bc_t* bc;
  const hlx_bc_stream_t* s;
  const hlx_bc_op_t* op;
  bool* consumed;
  hlx_named_attr_t fields[12];
  int32_t nfields;
} implode_t;

static hlx_bc_attr_t* take(implode_t* c, const char* name) {
  for (int32_t i = 0; i < c->op->nattrs; i++)
    if (eq(c->op->attrs[i].name, name)) {
      c->consumed[i] = true;
      return c->op->attrs[i].value;
    }
  return NULL;
}

/* An integer field; omit_zero: left out when 0 (or absent). */
static bool int_field(implode_t* c, const char* name, bool omit_zero) {
  hlx_bc_attr_t* a = take(c, name);
  int64_t v = 0;
  if (a && a->kind != HLX_BC_ATTR_INT)
    return hlx_bc_fail(c->bc, c->s, "expected an integer for '%s'", name);
  if (a) v = a->i;
  if (omit_zero && v == 0) return true;
  hlx_attr_t* r = hlx_bc_ir_int(c->bc, v, HLX_DTYPE_INVALID);
  if (!r) return false;
  c->fields[c->nfields].name = name;
  c->fields[c->nfields++].value = r;
  return true;
}

static bool list_field(implode_t* c, const char* name, bool omit_empty) {
  hlx_bc_attr_t* a = take(c, name);
  int64_t* v = NULL;
  int32_t n = 0;
  if (a && !hlx_bc_tensor_ints(c->bc, c->s, a, &v, &n)) return false;
  if (omit_empty && n == 0) return true;
  hlx_attr_t* r = hlx_bc_ir_i64_array(c->bc, v, n, HLX_DTYPE_S64);
  if (!r) return false;
  c->fields[c->nfields].name = name;
  c->fields[c->nfields++].value = r;
  return true;
}

static bool finish(implode_t* c, const char* attr, const char* sname,
                   hlx_named_attr_t* out, int32_t* n) {
  if (c->bc->err) return false;
  hlx_attr_t* st = hlx_bc_ir_struct(c->bc, sname, c->fields, c->nfields);
  if (!st) return false;
  out[*n].name = attr;
  out[(*n)++].value = st;
  c->nfields = 0;
  return true;
}

static bool conv_dims(implode_t* c, hlx_named_attr_t* out, int32_t* n) {
  static const char* const kFields[] = {
      "input_batch_dimension",          "input_feature_dimension",
      "input_spatial_dimensions",       "kernel_input_feature_dimension",
      "kernel_output_feature_dimension", "kernel_spatial_dimensions",
      "output_batch_dimension",         "output_feature_dimension",
      "output_spatial_dimensions"};
  for (int i = 0; i < 9; i++) {
    bool list = strstr(kFields[i], "spatial") != NULL;
    if (!(list ? list_field(c, kFields[i], false) : int_field(c, kFields[i], false)))
      return false;
  }
  return finish(c, "dimension_numbers", "stablehlo.conv", out, n);
}

static bool dot_dims(implode_t* c, hlx_named_attr_t* out, int32_t* n) {
  return list_field(c, "lhs_batching_dimensions", false) &&
         list_field(c, "rhs_batching_dimensions", false) &&
         list_field(c, "lhs_contracting_dimensions", false) &&
         list_field(c, "rhs_contracting_dimensions", false) &&
         finish(c, "dot_dimension_numbers", "stablehlo.dot", out, n);
}

/* dot_general_v2: an algorithm whose precision types are `none` is unset. */
static bool dot_algorithm(implode_t* c, hlx_named_attr_t* out, int32_t* n) {
  static const char* const kTypes[] = {"lhs_precision_type", "rhs_precision_type",
                                       "accumulation_type"};
  static const char* const kInts[] = {"lhs_component_count", "rhs_component_count",
                                      "num_primitive_operations"};
  hlx_bc_attr_t* t[3];
  for (int i = 0; i < 3; i++) t[i] = take(c, kTypes[i]);
  hlx_bc_attr_t* imprecise = take(c, "allow_imprecise_accumulation");
  if (!t[0] || (t[0]->kind == HLX_BC_ATTR_TYPE && t[0]->type->kind == HLX_BC_TYPE_NONE)) {
    for (int i = 0; i < 3; i++) take(c, kInts[i]);
    return true;
  }
  for (int i = 0; i < 3; i++) {
    if (!t[i] || t[i]->kind != HLX_BC_ATTR_TYPE || !t[i]->type->name)
      return hlx_bc_fail(c->bc, c->s, "expected an element type for '%s'", kTypes[i]);
    c->fields[c->nfields].name = kTypes[i];
    if (!(c->fields[c->nfields++].value = hlx_bc_ir_opaque(c->bc, t[i]->type->name)))
      return false;
  }
  for (int i = 0; i < 3; i++)
    if (!int_field(c, kInts[i], false)) return false;
  if (imprecise) {
    c->fields[c->nfields].name = "allow_imprecise_accumulation";
    if (!(c->fields[c->nfields++].value = hlx_bc_to_ir(c->bc, c->s, imprecise)))
      return false;
  }
  return finish(c, "algorithm", "stablehlo.dot_algorithm", out, n);
}

static bool gather_dims(implode_t* c, hlx_named_attr_t* out, int32_t* n) {
  return list_field(c, "offset_dims", true) &&
         list_field(c, "collapsed_slice_dims", true) &&
         list_field(c, "operand_batching_dims", true) &&
         list_field(c, "start_indices_batching_dims", true) &&
         list_field(c, "start_index_map", true) &&
         int_field(c, "index_vector_dim", true) &&
         finish(c, "dimension_numbers", "stablehlo.gather", out, n);
}

static bool scatter_dims(implode_t* c, hlx_named_attr_t* out, int32_t* n) {
  return list_field(c, "update_window_dims", true) &&
         list_field(c, "inserted_window_dims", true) &&
         list_field(c, "input_batching_dims", true) &&
         list_field(c, "scatter_indices_batching_dims", true) &&
         list_field(c, "scatter_dims_to_operand_dims", true) &&
         int_field(c, "index_vector_dim", true) &&
         finish(c, "scatter_dimension_numbers", "stablehlo.scatter", out, n);
}

/* send/recv: channel_id + channel_type -> #stablehlo.channel_handle. */
static bool channel_handle(implode_t* c, hlx_named_attr_t* out, int32_t* n) {
  hlx_bc_attr_t* id = take(c, "channel_id");
  hlx_bc_attr_t* type = take(c, "channel_type");
  int64_t v[2] = {id && id->kind == HLX_BC_ATTR_INT ? id->i : 0,
                  type && type->kind == HLX_BC_ATTR_INT ? type->i : 0};
  static const char* const kNames[] = {"handle", "type"};
  for (int i = 0; i < 2; i++) {
    if (v[i] == 0) continue;
    c->fields[c->nfields].name = kNames[i];
    if (!(c->fields[c->nfields++].value = hlx_bc_ir_int(c->bc, v[i], HLX_DTYPE_INVALID)))
      return false;
  }
  return finish(c, "channel_handle", "stablehlo.channel_handle", out, n);
}

bool hlx_bc_vhlo_implode(hlx_bc_t* bc, const hlx_bc_stream_t* s,
                         const hlx_bc_op_t* op, const char* base, bool* consumed,
                         hlx_named_attr_t* out, int32_t* n) {
  implode_t c = {bc, s, op, consumed, {{0}}, 0};
  *n = 0;
  if (eq(base, "convolution") || eq(base, "dynamic_conv")) {
    if (eq(op->name, "vhlo.dynamic_conv_v1")) take(&c, "padding");
    return conv_dims(&c, out, n);
  }
  if (eq(base, "dot_general")) return dot_dims(&c, out, n) && dot_algorithm(&c, out, n);
  if (eq(base, "gather") || eq(base, "dynamic_gather")) return gather_dims(&c, out, n);
  if (eq(base, "scatter")) return scatter_dims(&c, out, n);
  if (eq(base, "send") || eq(base, "recv")) return channel_handle(&c, out, n);
  return true;
}

/* ---- Single attributes -------------------------------------------------------------- */
/* (op, attribute) pairs StableHLO keeps as array<i64> (array<i1> for
 * window_reversal) where VHLO has a 1-d tensor. */
static const char* const kDenseArrays[][2] = {
    {"broadcast_in_dim", "broadcast_dimensions"}, {"broadcast", "broadcast_sizes"},
    {"dynamic_broadcast_in_dim", "broadcast_dimensions"},
    {"dynamic_broadcast_in_dim", "known_expanding_dimensions"},
    {"dynamic_broadcast_in_dim", "known_nonexpanding_dimensions"},
    {"dynamic_slice", "slice_sizes"}, {"fft", "fft_length"},
    {"gather", "slice_sizes"}, {"map", "dimensions"}, {"reduce", "dimensions"},
    {"reverse", "dimensions"}, {"transpose", "permutation"},
    {"pad", "edge_padding_low"}, {"pad", "edge_padding_high"},
    {"pad", "interior_padding"}, {"slice", "start_indices"},
    {"slice", "limit_indices"}, {"slice", "strides"},
    {"reduce_window", "window_dimensions"}, {"reduce_window", "window_strides"},
    {"reduce_window", "base_dilations"}, {"reduce_window", "window_dilations"},
    {"select_and_scatter", "window_dimensions"},
    {"select_and_scatter", "window_strides"},
    {"convolution", "window_strides"}, {"convolution", "lhs_dilation"},
    {"convolution", "rhs_dilation"}, {"convolution", "window_reversal"},
    {"dynamic_conv", "window_strides"}, {"dynamic_conv", "lhs_dilation"},
    {"dynamic_conv", "rhs_dilation"}, {"dynamic_conv", "window_reversal"},
};

static bool is_dense_array(const char* base, const char* name) {
  for (size_t i = 0; i < sizeof kDenseArrays / sizeof kDenseArrays[0]; i++)
    if (eq(kDenseArrays[i][0], base) && eq(kDenseArrays[i][1], name)) return true;
  return false;
}

static hlx_attr_t* symbol(hlx_bc_t* bc, const hlx_bc_stream_t* s, hlx_bc_attr_t* a) {
  if (a->kind != HLX_BC_ATTR_STRING || memchr(a->str, 0, a->len)) {
    hlx_bc_fail(bc, s, "expected a symbol name");
    return NULL;
  }
  hlx_attr_t* r = hlx_bc_irmem(bc, 1, sizeof(*r));
  if (!r) return NULL;
  r->kind = HLX_ATTR_SYMBOL;
  r->str = a->str;
  r->len = a->len;
  return r;
}

static bool is_collective(const char* base) {
  return eq(base, "all_gather") || eq(base, "all_reduce") || eq(base, "all_to_all") ||
         eq(base, "reduce_scatter") || eq(base, "collective_permute") ||
         eq(base, "collective_broadcast");
}

hlx_attr_t* hlx_bc_vhlo_special(hlx_bc_t* bc, const hlx_bc_stream_t* s,
                                const char* base, const char* name,
                                hlx_bc_attr_t* a) {
  if (is_dense_array(base, name)) {
    int64_t* v;
    int32_t n = 0;
    if (!hlx_bc_tensor_ints(bc, s, a, &v, &n)) return NULL;
    return hlx_bc_ir_i64_array(bc, v, n,
                               eq(name, "window_reversal") ? HLX_DTYPE_PRED : HLX_DTYPE_S64);
  }
  if (is_collective(base) && eq(name, "channel_id")) {
    if (a->kind != HLX_BC_ATTR_INT) {
      hlx_bc_fail(bc, s, "expected an integer channel id");
      return NULL;
    }
    hlx_named_attr_t f = {"handle", hlx_bc_ir_int(bc, a->i, HLX_DTYPE_INVALID)};
    return f.value ? hlx_bc_ir_struct(bc, "stablehlo.channel_handle", &f, 1) : NULL;
  }
  if (eq(name, "use_global_device_ids") && a->kind == HLX_BC_ATTR_BOOL) {
    hlx_attr_t* r = hlx_bc_irmem(bc, 1, sizeof(*r));
    if (r) r->kind = HLX_ATTR_UNIT;
    return r;
  }
  if ((eq(base, "call") && eq(name, "callee")) ||
      (eq(base, "composite") && eq(name, "decomposition")))
    return symbol(bc, s, a);
  if (eq(base, "custom_call") && eq(name, "called_computations")) {
    hlx_attr_t* r = hlx_bc_irmem(bc, 1, sizeof(*r));
    if (!r || a->kind != HLX_BC_ATTR_ARRAY ||
        !(r->items = hlx_bc_irmem(bc, (size_t)a->n, sizeof(hlx_attr_t*))))
      return r ? (hlx_bc_fail(bc, s, "expected an array of names"), NULL) : NULL;
    r->kind = HLX_ATTR_ARRAY;
    r->count = a->n;
    for (int32_t i = 0; i < a->n; i++)
      if (!(r->items[i] = symbol(bc, s, a->items[i]))) return NULL;
    return r;
  }
  return hlx_bc_to_ir(bc, s, a);
}
