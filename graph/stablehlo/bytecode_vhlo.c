/* VHLO operations -> StableHLO operations of the hlx IR: op names
 * (vhlo.add_v1 -> stablehlo.add, vhlo.call_v1 -> func.call, ...), the
 * properties layout of each op, and the attribute rules of StableHLO's own
 * VHLO -> StableHLO legalization: inherent attributes at their default
 * values are dropped (VHLO spells every default out), dimension numbers
 * are imploded into #stablehlo structs, integer tensors of dense-array
 * attributes become arrays, symbols become symbol references. Every
 * versioned form of an op (gather_v1/_v2, dot_general_v1/_v2, ...) maps to
 * the current StableHLO op, missing newer attributes at their defaults. */
#include <stdio.h>
#include <string.h>

#include "graph/stablehlo/bytecode_convert.h"

static bool eq(const char* a, const char* b) { return strcmp(a, b) == 0; }

/* "add_v1" -> "add" (in buf); NULL when op is not a VHLO op. */
static const char* vhlo_base(const hlx_bc_t* bc, const hlx_bc_op_t* op,
                             char* buf, size_t n) {
  if (bc->dialects[op->opname->dialect].kind != HLX_BC_DIALECT_VHLO) return NULL;
  const hlx_bc_str_t* s = op->opname->name;
  size_t len = s->n, k = len;
  while (k > 0 && s->p[k - 1] >= '0' && s->p[k - 1] <= '9') k--;
  if (k >= 2 && k < len && s->p[k - 1] == 'v' && s->p[k - 2] == '_') len = k - 2;
  if (len + 1 > n || memchr(s->p, 0, len)) return NULL;
  memcpy(buf, s->p, len);
  buf[len] = 0;
  return buf;
}

/* ---- Attribute lists ------------------------------------------------------------ */
static bool push_named(hlx_bc_t* bc, hlx_bc_op_t* op, int32_t* cap,
                       const char* name, hlx_bc_attr_t* v) {
  if (op->nattrs == *cap) {
    int32_t nc = *cap ? *cap * 2 : 8;
    hlx_bc_named_t* na = hlx_bc_scratch(bc, (size_t)nc, sizeof(*na));
    if (!na) return false;
    if (op->nattrs) memcpy(na, op->attrs, (size_t)op->nattrs * sizeof(*na));
    op->attrs = na;
    *cap = nc;
  }
  op->attrs[op->nattrs].name = name;
  op->attrs[op->nattrs++].value = v;
  return true;
}

bool hlx_bc_add_dict(hlx_bc_t* bc, const hlx_bc_stream_t* s, hlx_bc_op_t* op,
                     hlx_bc_attr_t* dict) {
  if (dict->kind != HLX_BC_ATTR_DICT)
    return hlx_bc_fail(bc, s, "expected an attribute dictionary for '%s'", op->name);
  int32_t cap = op->nattrs;
  for (int32_t i = 0; i < dict->n; i++)
    if (!push_named(bc, op, &cap, dict->keys[i], dict->items[i])) return false;
  return true;
}

/* operandSegmentSizes from version 6 on: a varint count with a "sparse" flag,
 * then the values (after an index width when sparse). Only skipped: the
 * segments of a scatter follow from its operand count. */
static bool skip_sparse_array(hlx_bc_t* bc, hlx_bc_stream_t* s) {
  uint64_t n = 0, bits = 0;
  bool sparse = false;
  if (!hlx_bc_varint_flag(bc, s, &n, &sparse)) return false;
  if (n > hlx_bc_left(s))
    return hlx_bc_fail(bc, s, "segment array of %llu entries", (unsigned long long)n);
  if (sparse && !hlx_bc_varint(bc, s, &bits)) return false;
  for (uint64_t i = 0; i < n; i++)
    if (!hlx_bc_varint(bc, s, &bits)) return false;
  return true;
}

static bool vhlo_properties(hlx_bc_t* bc, hlx_bc_stream_t* s, hlx_bc_op_t* op) {
  const hlx_bc_str_t* nm = op->opname->name;
  const hlx_vhlo_op_t* d = hlx_vhlo_op_find(nm->p, nm->n);
  if (!d)
    return hlx_bc_unsupported(bc, s, "VHLO operation '%s' (hlx does not know its "
                              "properties)", op->name);
  int32_t cap = 0;
  bool segs_pending = d->segments && bc->version < HLX_BC_V_SEGMENT_PROPS;
  for (const char* const* a = d->attrs; a && *a; a++) {
    if (segs_pending && strcmp("operandSegmentSizes", *a) < 0) {
      segs_pending = false; /* an array<i32> attribute at its sorted place */
      if (!hlx_bc_attr_ref(bc, s)) return false;
    }
    hlx_bc_attr_t* v = hlx_bc_attr_ref(bc, s);
    if (!v || !push_named(bc, op, &cap, *a, v)) return false;
  }
  if (segs_pending && !hlx_bc_attr_ref(bc, s)) return false;
  if (d->segments && bc->version >= HLX_BC_V_SEGMENT_PROPS &&
      !skip_sparse_array(bc, s))
    return false;
  return hlx_bc_expect_end(bc, s);
}

/* builtin.module: two optional attributes. */
static bool module_properties(hlx_bc_t* bc, hlx_bc_stream_t* s, hlx_bc_op_t* op) {
  static const char* const kNames[] = {"sym_name", "sym_visibility"};
  int32_t cap = 0;
  for (int i = 0; i < 2; i++) {
    uint64_t idx = 0;
    bool present = false;
    hlx_bc_stream_t at = *s;
    if (!hlx_bc_varint_flag(bc, s, &idx, &present)) return false;
    if (!present) continue;
    hlx_bc_attr_t* v = hlx_bc_attr_at(bc, &at, idx);
    if (!v || !push_named(bc, op, &cap, kNames[i], v)) return false;
  }
  return hlx_bc_expect_end(bc, s);
}

bool hlx_bc_read_properties(hlx_bc_t* bc, hlx_bc_stream_t* s, hlx_bc_op_t* op) {
  if (eq(op->name, "builtin.module")) return module_properties(bc, s, op);
  if (bc->dialects[op->opname->dialect].kind == HLX_BC_DIALECT_VHLO)
    return vhlo_properties(bc, s, op);
  return hlx_bc_unsupported(bc, s, "properties of operation '%s'", op->name);
}

const hlx_bc_named_t* hlx_bc_find_attr(const hlx_bc_op_t* op, const char* name) {
  for (int32_t i = 0; i < op->nattrs; i++)
    if (eq(op->attrs[i].name, name)) return &op->attrs[i];
  return NULL;
}

/* ---- Names ------------------------------------------------------------------------ */
const char* hlx_bc_ir_op_name(hlx_bc_t* bc, const hlx_bc_op_t* op, bool in_func) {
  char base[96];
  if (!vhlo_base(bc, op, base, sizeof base)) return op->name;
  if (eq(base, "call")) return "func.call";
  if (eq(base, "return")) return in_func ? "func.return" : "stablehlo.return";
  if (eq(base, "cross-replica-sum")) return "stablehlo.cross_replica_sum";
  char full[112];
  snprintf(full, sizeof full, "stablehlo.%s", base);
  hlx_opcode_t code = hlx_opcode_from_name(full, strlen(full));
  if (code != HLX_OP_UNKNOWN) return hlx_opcode_name(code);
  char* z = hlx_arena_strndup(&bc->m->arena, full, strlen(full));
  if (!z) hlx_bc_oom(bc);
  return z;
}

/* ---- Default values (dropped, as StableHLO's legalization drops them) ------------- */
static bool is_bool(const hlx_bc_attr_t* a, bool v) {
  return a->kind == HLX_BC_ATTR_BOOL && a->b == v;
}
static bool is_int(const hlx_bc_attr_t* a, int64_t v) {
  return a->kind == HLX_BC_ATTR_INT && a->i == v;
}
static bool is_empty(const hlx_bc_attr_t* a) {
  return ((a->kind == HLX_BC_ATTR_ARRAY || a->kind == HLX_BC_ATTR_DICT) && a->n == 0) ||
         (a->kind == HLX_BC_ATTR_STRING && a->len == 0) ||
         (a->kind == HLX_BC_ATTR_TENSOR && hlx_type_num_elements(a->type->t) == 0);
}
static bool is_enum(const hlx_bc_attr_t* a, const char* value) {
  return a->kind == HLX_BC_ATTR_ENUM && eq(a->enum_value, value);
}
static bool all_default_precision(const hlx_bc_attr_t* a) {
  if (a->kind != HLX_BC_ATTR_ARRAY) return false;
  for (int32_t i = 0; i < a->n; i++)
    if (!is_enum(a->items[i], "DEFAULT")) return false;
  return true;
}
static bool is_splat(hlx_bc_t* bc, const hlx_bc_stream_t* s,
                     const hlx_bc_attr_t* a, int64_t v) {
  int64_t* x;
  int32_t n = 0;
  if (a->kind != HLX_BC_ATTR_TENSOR || !hlx_bc_tensor_ints(bc, s, a, &x, &n)) return false;
  for (int32_t i = 0; i < n; i++)
    if (x[i] != v) return false;
  return true;
}

typedef struct default_rule_t {
  const char* ops; /* space-separated op bases */
  const char* attr;
  enum { D_FALSE, D_ZERO, D_MINUS1, D_ONE, D_EMPTY, D_NOTYPE, D_PRECISION,
         D_SPLAT0, D_SPLAT1 } what;
} default_rule_t;

static const default_rule_t kDefaults[] = {
    {" all_gather all_reduce reduce_scatter all_to_all collective_permute "
     "collective_broadcast ", "channel_id", D_ZERO},
    {" all_gather all_reduce reduce_scatter ", "use_global_device_ids", D_FALSE},
    {" cholesky ", "lower", D_FALSE},
    {" compare ", "compare_type", D_NOTYPE},
    {" composite ", "version", D_ZERO},
    {" composite ", "composite_attributes", D_EMPTY},
    {" convolution dynamic_conv reduce_window select_and_scatter ", "window_strides", D_SPLAT1},
    {" convolution dynamic_conv reduce_window select_and_scatter ", "padding", D_SPLAT0},
    {" convolution dynamic_conv ", "lhs_dilation", D_SPLAT1},
    {" convolution dynamic_conv ", "rhs_dilation", D_SPLAT1},
    {" convolution dynamic_conv ", "window_reversal", D_SPLAT0},
    {" convolution dynamic_conv dot_general dot ", "precision_config", D_PRECISION},
    {" custom_call ", "has_side_effect", D_FALSE},
    {" custom_call ", "api_version", D_ONE},
    {" custom_call ", "backend_config", D_EMPTY},
    {" custom_call ", "called_computations", D_EMPTY},
    {" custom_call ", "operand_layouts", D_EMPTY},
    {" custom_call ", "result_layouts", D_EMPTY},
    {" custom_call ", "output_operand_aliases", D_EMPTY},
    {" dynamic_broadcast_in_dim ", "known_expanding_dimensions", D_EMPTY},
    {" dynamic_broadcast_in_dim ", "known_nonexpanding_dimensions", D_EMPTY},
    {" gather dynamic_gather scatter ", "indices_are_sorted", D_FALSE},
    {" scatter ", "unique_indices", D_FALSE},
    {" infeed ", "infeed_config", D_EMPTY},
    {" infeed ", "layout", D_EMPTY},
    {" outfeed ", "outfeed_config", D_EMPTY},
    {" send recv ", "is_host_transfer", D_FALSE},
    {" reduce_window ", "base_dilations", D_SPLAT1},
    {" reduce_window ", "window_dilations", D_SPLAT1},
    {" sort ", "dimension", D_MINUS1},
    {" sort ", "is_stable", D_FALSE},
};

static bool in_list(const char* list, const char* base) {
  char key[100];
  snprintf(key, sizeof key, " %s ", base);
  return strstr(list, key) != NULL;
}

static bool is_default(hlx_bc_t* bc, const hlx_bc_stream_t* s, const char* base,
                       const char* name, const hlx_bc_attr_t* a) {
  if (eq(name, "result_accuracy"))
    return a->kind == HLX_BC_ATTR_RESULT_ACCURACY && a->f == 0 && a->f2 == 0 &&
           a->i == 0 && is_enum(a->items[0], "DEFAULT");
  for (size_t i = 0; i < sizeof kDefaults / sizeof kDefaults[0]; i++) {
    const default_rule_t* r = &kDefaults[i];
    if (!eq(r->attr, name) || !in_list(r->ops, base)) continue;
    switch (r->what) {
      case D_FALSE: return is_bool(a, false);
      case D_ZERO: return is_int(a, 0);
      case D_MINUS1: return is_int(a, -1);
      case D_ONE: return is_int(a, 1);
      case D_EMPTY: return is_empty(a);
      case D_NOTYPE: return is_enum(a, "NOTYPE");
      case D_PRECISION: return all_default_precision(a);
      case D_SPLAT0: return is_splat(bc, s, a, 0);
      case D_SPLAT1: return is_splat(bc, s, a, 1);
    }
  }
  return false;
}

/* ---- Conversion ------------------------------------------------------------------- */
typedef struct out_t {
  hlx_named_attr_t* a;
  int32_t n, cap;
} out_t;

static bool emit(hlx_bc_t* bc, out_t* o, const char* name, hlx_attr_t* v) {
  if (!v) return false;
  if (o->n == o->cap) {
    int32_t nc = o->cap ? o->cap * 2 : 8;
    hlx_named_attr_t* na = hlx_bc_irmem(bc, (size_t)nc, sizeof(*na));
    if (!na) return false;
    if (o->n) memcpy(na, o->a, (size_t)o->n * sizeof(*na));
    o->a = na;
    o->cap = nc;
  }
  o->a[o->n].name = name;
  o->a[o->n++].value = v;
  return true;
}

bool hlx_bc_convert_named(hlx_bc_t* bc, const hlx_bc_stream_t* s,
                          const hlx_bc_named_t* in, int32_t nin,
                          hlx_named_attr_t** out, int32_t* n) {
  out_t o = {NULL, 0, 0};
  for (int32_t i = 0; i < nin; i++) {
    bc->tree_total += in[i].value->tree;
    if (bc->tree_total > 4 * HLX_BC_MAX_ATTR_TREE)
      return hlx_bc_unsupported(bc, s, "attributes of more than %llu parts in all",
                                (unsigned long long)(4 * HLX_BC_MAX_ATTR_TREE));
    if (!emit(bc, &o, in[i].name, hlx_bc_to_ir(bc, s, in[i].value))) return false;
  }
  *out = o.a;
  *n = o.n;
  return true;
}

bool hlx_bc_convert_attrs(hlx_bc_t* bc, const hlx_bc_stream_t* s,
                          const hlx_bc_op_t* op, hlx_named_attr_t** out,
                          int32_t* n) {
  char buf[96];
  const char* base = vhlo_base(bc, op, buf, sizeof buf);
  if (!base) return hlx_bc_convert_named(bc, s, op->attrs, op->nattrs, out, n);
  bool* consumed = hlx_bc_scratch(bc, (size_t)op->nattrs, sizeof(bool));
  hlx_named_attr_t made[4];
  int32_t nmade = 0;
  if (!consumed || !hlx_bc_vhlo_implode(bc, s, op, base, consumed, made, &nmade))
    return false;
  out_t o = {NULL, 0, 0};
  for (int32_t i = 0; i < nmade; i++)
    if (!emit(bc, &o, made[i].name, made[i].value)) return false;
  for (int32_t i = 0; i < op->nattrs; i++) {
    hlx_bc_named_t* a = &op->attrs[i];
    if (consumed[i] || is_default(bc, s, base, a->name, a->value)) continue;
    if (bc->err) return false;
    bc->tree_total += a->value->tree;
    if (bc->tree_total > 4 * HLX_BC_MAX_ATTR_TREE)
      return hlx_bc_unsupported(bc, s, "attributes of more than %llu parts in all",
                                (unsigned long long)(4 * HLX_BC_MAX_ATTR_TREE));
    if (!emit(bc, &o, a->name, hlx_bc_vhlo_special(bc, s, base, a->name, a->value)))
      return false;
  }
  *out = o.a;
  *n = o.n;
  return !bc->err;
}
