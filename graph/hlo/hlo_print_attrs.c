/* IR attributes -> `, name=value` of HLO instructions, by the op table's
 * specs (the inverse of hlo_import_attrs.c). Values equal to the spec's
 * default are left out, as XLA does; the importer fills them back in. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "graph/hlo/hlo_print_internal.h"

#define MAX_INTS 4096

/* Integers of an I64_ARRAY, a DENSE integer tensor or an ARRAY of INT. */
static bool get_ints(const hlx_attr_t* a, int64_t* out, int32_t* n) {
  *n = 0;
  if (!a) return false;
  if (a->kind == HLX_ATTR_I64_ARRAY) {
    if (a->count > MAX_INTS) return false;
    memcpy(out, a->ints, sizeof(int64_t) * (size_t)a->count);
    *n = a->count;
    return true;
  }
  if (a->kind == HLX_ATTR_ARRAY) {
    if (a->count > MAX_INTS) return false;
    for (int32_t i = 0; i < a->count; i++) {
      if (a->items[i]->kind != HLX_ATTR_INT) return false;
      out[i] = a->items[i]->i;
    }
    *n = a->count;
    return true;
  }
  if (a->kind == HLX_ATTR_DENSE && a->type &&
      hlx_dtype_is_int(a->type->dtype)) {
    size_t es = hlx_dtype_size(a->type->dtype);
    int64_t cnt = hlx_type_num_elements(a->type);
    if (cnt < 0 || cnt > MAX_INTS || (size_t)cnt * es != a->dense_bytes)
      return false;
    for (int64_t i = 0; i < cnt; i++) {
      int64_t v = 0;
      memcpy(&v, (const char*)a->dense + i * (int64_t)es, es);
      if (es < 8 && hlx_dtype_is_signed_int(a->type->dtype) &&
          (v >> (es * 8 - 1)) & 1)
        v |= (int64_t)(~0ull << (es * 8));
      out[i] = v;
    }
    *n = (int32_t)cnt;
    return true;
  }
  return false;
}

static void int_list(pbuf_t* b, const int64_t* v, int32_t n, const char* sep) {
  for (int32_t i = 0; i < n; i++)
    pb_printf(b, "%s%" PRId64, i ? sep : "", v[i]);
}

static bool bad(hc_t* hc, const hlx_op_t* op, const hlo_attr_spec_t* sp) {
  return hp_fail(hc->hp, HLX_STATUS_UNIMPLEMENTED,
                 "unsupported: attribute %s of %s at %d:%d has no HLO spelling",
                 sp->ir ? sp->ir : sp->hlo, op->name, op->line, op->col);
}

static const hlx_attr_t* field(const hlx_op_t* op, const hlo_attr_spec_t* sp) {
  const char* an =
      strcmp(sp->aux, "stablehlo.dot") == 0       ? "dot_dimension_numbers"
      : strcmp(sp->aux, "stablehlo.scatter") == 0 ? "scatter_dimension_numbers"
                                                  : "dimension_numbers";
  return hlx_attr_dict_get(hlx_op_attr(op, an), sp->ir);
}

static bool print_window(hc_t* hc, const hlx_op_t* op,
                         const hlo_attr_spec_t* sp) {
  pbuf_t* b = &hc->body;
  bool conv = strcmp(sp->aux, "conv") == 0;
  int64_t size[HLX_MAX_RANK], st[HLX_MAX_RANK], ld[HLX_MAX_RANK],
      rd[HLX_MAX_RANK], rev[HLX_MAX_RANK], pad[2 * HLX_MAX_RANK],
      ks[HLX_MAX_RANK];
  int32_t r, n;
  if (conv) {
    const hlx_attr_t* k = hlx_attr_dict_get(
        hlx_op_attr(op, "dimension_numbers"), "kernel_spatial_dimensions");
    const hlx_type_t* kt = op->num_operands > 1 ? op->operands[1]->type : NULL;
    if (!get_ints(k, ks, &r) || r > HLX_MAX_RANK || !kt ||
        kt->kind != HLX_TYPE_TENSOR)
      return bad(hc, op, sp);
    for (int32_t i = 0; i < r; i++) {
      if (ks[i] < 0 || ks[i] >= kt->rank) return bad(hc, op, sp);
      size[i] = kt->dims[ks[i]];
    }
  } else if (!get_ints(hlx_op_attr(op, "window_dimensions"), size, &r) ||
             r > HLX_MAX_RANK) {
    return bad(hc, op, sp);
  }
  if (r == 0) return true;
  const char* names[4] = {"window_strides",
                          conv ? "lhs_dilation" : "base_dilations",
                          conv ? "rhs_dilation" : "window_dilations",
                          conv ? "window_reversal" : NULL};
  int64_t* dst[4] = {st, ld, rd, rev};
  for (int32_t f = 0; f < 4; f++) {
    const hlx_attr_t* a = names[f] ? hlx_op_attr(op, names[f]) : NULL;
    if (!a) {
      for (int32_t i = 0; i < r; i++) dst[f][i] = f == 3 ? 0 : 1;
    } else if (!get_ints(a, dst[f], &n) || n != r) {
      return bad(hc, op, sp);
    }
  }
  const hlx_attr_t* pa = hlx_op_attr(op, "padding");
  if (!pa)
    memset(pad, 0, sizeof pad);
  else if (!get_ints(pa, pad, &n) || n != 2 * r)
    return bad(hc, op, sp);
  pb_puts(b, ", window={size=");
  int_list(b, size, r, "x");
  const char* fn[4] = {"stride", "lhs_dilate", "rhs_dilate", "rhs_reversal"};
  for (int32_t f = 0; f < 4; f++) {
    bool dflt = true;
    for (int32_t i = 0; i < r; i++) dflt &= dst[f][i] == (f == 3 ? 0 : 1);
    if (dflt) continue;
    pb_printf(b, " %s=", fn[f]);
    int_list(b, dst[f], r, "x");
  }
  bool nopad = true;
  for (int32_t i = 0; i < 2 * r; i++) nopad &= pad[i] == 0;
  if (!nopad) {
    pb_puts(b, " pad=");
    for (int32_t i = 0; i < r; i++)
      pb_printf(b, "%s%" PRId64 "_%" PRId64, i ? "x" : "", pad[2 * i],
                pad[2 * i + 1]);
  }
  pb_puts(b, "}");
  return true;
}

static bool print_dim_labels(hc_t* hc, const hlx_op_t* op,
                             const hlo_attr_spec_t* sp) {
  const hlx_attr_t* d = hlx_op_attr(op, "dimension_numbers");
  static const char* const k[3][3] = {
      {"input_batch_dimension", "input_feature_dimension",
       "input_spatial_dimensions"},
      {"kernel_input_feature_dimension", "kernel_output_feature_dimension",
       "kernel_spatial_dimensions"},
      {"output_batch_dimension", "output_feature_dimension",
       "output_spatial_dimensions"}};
  static const char letters[3][2] = {{'b', 'f'}, {'i', 'o'}, {'b', 'f'}};
  pb_puts(&hc->body, ", dim_labels=");
  for (int32_t part = 0; part < 3; part++) {
    char s[HLX_MAX_RANK + 1];
    int64_t sp_dims[HLX_MAX_RANK];
    int32_t n;
    const hlx_attr_t* a = hlx_attr_dict_get(d, k[part][0]);
    const hlx_attr_t* b = hlx_attr_dict_get(d, k[part][1]);
    if (!a || !b || a->kind != HLX_ATTR_INT || b->kind != HLX_ATTR_INT ||
        !get_ints(hlx_attr_dict_get(d, k[part][2]), sp_dims, &n) ||
        n + 2 > HLX_MAX_RANK || n > 10)
      return bad(hc, op, sp);
    int32_t rank = n + 2;
    memset(s, '?', sizeof s);
    s[rank] = 0;
    bool ok = a->i >= 0 && a->i < rank && b->i >= 0 && b->i < rank;
    if (ok) s[a->i] = letters[part][0], s[b->i] = letters[part][1];
    for (int32_t i = 0; ok && i < n; i++) {
      ok = sp_dims[i] >= 0 && sp_dims[i] < rank;
      if (ok) s[sp_dims[i]] = (char)('0' + i);
    }
    if (!ok || strchr(s, '?')) return bad(hc, op, sp);
    pb_puts(&hc->body, s);
    pb_puts(&hc->body, part == 0 ? "_" : part == 1 ? "->" : "");
  }
  return true;
}

static bool print_groups(hc_t* hc, const hlx_op_t* op,
                         const hlo_attr_spec_t* sp, const hlx_attr_t* a) {
  if (a->kind != HLX_ATTR_DENSE || !a->type || a->type->rank != 2 ||
      a->type->dtype != HLX_DTYPE_S64)
    return bad(hc, op, sp);
  int64_t rows = a->type->dims[0], cols = a->type->dims[1];
  if (sp->kind == HA_GROUPS && rows == 0) return true;
  const int64_t* v = a->dense;
  pb_printf(&hc->body, ", %s={", sp->hlo);
  for (int64_t r = 0; r < rows; r++) {
    pb_puts(&hc->body, r ? ",{" : "{");
    int_list(&hc->body, v + r * cols, (int32_t)cols, ",");
    pb_puts(&hc->body, "}");
  }
  pb_puts(&hc->body, "}");
  return true;
}

static bool print_slice(hc_t* hc, const hlx_op_t* op,
                        const hlo_attr_spec_t* sp) {
  int64_t s[HLX_MAX_RANK], l[HLX_MAX_RANK], t[HLX_MAX_RANK];
  int32_t n1, n2, n3;
  const hlx_attr_t* st = hlx_op_attr(op, "strides");
  if (!get_ints(hlx_op_attr(op, "start_indices"), s, &n1) ||
      !get_ints(hlx_op_attr(op, "limit_indices"), l, &n2) || n1 != n2 ||
      n1 > HLX_MAX_RANK || (st && (!get_ints(st, t, &n3) || n3 != n1)))
    return bad(hc, op, sp);
  pb_puts(&hc->body, ", slice={");
  for (int32_t i = 0; i < n1; i++) {
    pb_printf(&hc->body, "%s[%" PRId64 ":%" PRId64, i ? ", " : "", s[i], l[i]);
    if (st && t[i] != 1) pb_printf(&hc->body, ":%" PRId64, t[i]);
    pb_puts(&hc->body, "]");
  }
  pb_puts(&hc->body, "}");
  return true;
}

static bool print_padding(hc_t* hc, const hlx_op_t* op,
                          const hlo_attr_spec_t* sp) {
  int64_t lo[HLX_MAX_RANK], hi[HLX_MAX_RANK], in[HLX_MAX_RANK];
  int32_t n1, n2, n3;
  if (!get_ints(hlx_op_attr(op, "edge_padding_low"), lo, &n1) ||
      !get_ints(hlx_op_attr(op, "edge_padding_high"), hi, &n2) ||
      !get_ints(hlx_op_attr(op, "interior_padding"), in, &n3) || n1 != n2 ||
      n1 != n3 || n1 == 0 || n1 > HLX_MAX_RANK)
    return bad(hc, op, sp);
  pb_puts(&hc->body, ", padding=");
  for (int32_t i = 0; i < n1; i++) {
    pb_printf(&hc->body, "%s%" PRId64 "_%" PRId64, i ? "x" : "", lo[i], hi[i]);
    if (in[i]) pb_printf(&hc->body, "_%" PRId64, in[i]);
  }
  return true;
}

static bool is_default_text(const hlo_attr_spec_t* sp, const char* text) {
  return sp->dflt && strcmp(sp->dflt, text) == 0;
}

static bool print_value(hc_t* hc, const hlx_op_t* op, const hlo_attr_spec_t* sp,
                        const hlx_attr_t* a) {
  pbuf_t* b = &hc->body;
  char text[64];
  int64_t v[MAX_INTS];
  int32_t n;
  switch (sp->kind) {
    case HA_I64_LIST:
    case HA_FIELD_LIST:
      if (!get_ints(a, v, &n)) return bad(hc, op, sp);
      if (n == 0 && sp->kind == HA_FIELD_LIST && is_default_text(sp, "{}"))
        return true;
      pb_printf(b, ", %s={", sp->hlo);
      int_list(b, v, n, ",");
      pb_puts(b, "}");
      return true;
    case HA_FIRST_I64:
      if (a->kind != HLX_ATTR_INT) return bad(hc, op, sp);
      pb_printf(b, ", %s={%" PRId64 "}", sp->hlo, a->i);
      return true;
    case HA_I64:
    case HA_I32:
    case HA_FIELD_I64:
      if (a->kind != HLX_ATTR_INT) return bad(hc, op, sp);
      snprintf(text, sizeof text, "%" PRId64, a->i);
      if (!is_default_text(sp, text)) pb_printf(b, ", %s=%s", sp->hlo, text);
      return true;
    case HA_BOOL:
      if (a->kind != HLX_ATTR_BOOL) return bad(hc, op, sp);
      if (!is_default_text(sp, a->b ? "true" : "false"))
        pb_printf(b, ", %s=%s", sp->hlo, a->b ? "true" : "false");
      return true;
    case HA_UNIT_BOOL:
      pb_printf(b, ", %s=true", sp->hlo);
      return true;
    case HA_F32:
      if (a->kind != HLX_ATTR_FLOAT) return bad(hc, op, sp);
      pb_printf(b, ", %s=%.17g", sp->hlo, a->f);
      return true;
    case HA_STRING:
    case HA_JSON:
      if (a->kind != HLX_ATTR_STRING) return bad(hc, op, sp);
      pb_printf(b, ", %s=", sp->hlo);
      pb_string(b, a->str, a->len);
      return true;
    case HA_ENUM:
      if (a->kind != HLX_ATTR_ENUM || !a->enum_value) return bad(hc, op, sp);
      if (!is_default_text(sp, a->enum_value))
        pb_printf(b, ", %s=%s", sp->hlo,
                  hlo_enum_to_hlo(sp->aux, a->enum_value, text, sizeof text));
      return true;
    case HA_PRECISION: {
      if (a->kind != HLX_ATTR_ARRAY || a->count > 16) return bad(hc, op, sp);
      bool all_default = a->count == 2;
      for (int32_t i = 0; i < a->count; i++) {
        if (a->items[i]->kind != HLX_ATTR_ENUM) return bad(hc, op, sp);
        all_default &= strcmp(a->items[i]->enum_value, "DEFAULT") == 0;
      }
      if (all_default) return true;
      pb_printf(b, ", %s={", sp->hlo);
      for (int32_t i = 0; i < a->count; i++)
        pb_printf(b, "%s%s", i ? "," : "",
                  hlo_enum_to_hlo("precision", a->items[i]->enum_value, text,
                                  sizeof text));
      pb_puts(b, "}");
      return true;
    }
    case HA_GROUPS:
    case HA_PAIRS:
      return print_groups(hc, op, sp, a);
    case HA_CHANNEL: {
      const hlx_attr_t* h = hlx_attr_dict_get(a, "handle");
      if (!h || h->kind != HLX_ATTR_INT) return bad(hc, op, sp);
      if (h->i > 0) pb_printf(b, ", %s=%" PRId64, sp->hlo, h->i);
      return true;
    }
    default:
      return true;
  }
}

bool hp_attrs(hc_t* hc, const hlx_op_t* op, const hlo_op_t* spec) {
  int32_t region = 0;
  for (const hlo_attr_spec_t* sp = spec->attrs; sp->hlo && !hc->hp->err; sp++) {
    switch (sp->kind) {
      case HA_IGNORE:
      case HA_SPECIAL:
        continue;
      case HA_SLICE:
        if (!print_slice(hc, op, sp)) return false;
        continue;
      case HA_PADDING:
        if (!print_padding(hc, op, sp)) return false;
        continue;
      case HA_WINDOW:
        if (!print_window(hc, op, sp)) return false;
        continue;
      case HA_DIM_LABELS:
        if (!print_dim_labels(hc, op, sp)) return false;
        continue;
      case HA_REGION: {
        if (region >= op->num_regions)
          return hp_fail(hc->hp, HLX_STATUS_INVALID_ARGUMENT,
                         "%s at %d:%d lacks a region", op->name, op->line,
                         op->col);
        hp_region_t s = {op->regions[region++],         HP_ARGS, NULL, 0, NULL,
                         strcmp(sp->aux, "unpack") == 0};
        const char* name;
        if (!hp_region(hc->hp, hc->func, &s, &name)) return false;
        pb_printf(&hc->body, ", %s=%%%s", sp->hlo, name);
        continue;
      }
      default:
        break;
    }
    const hlx_attr_t* a = sp->kind == HA_FIELD_LIST || sp->kind == HA_FIELD_I64
                              ? field(op, sp)
                              : hlx_op_attr(op, sp->ir);
    if (!a) {
      if (sp->required && !sp->dflt) return bad(hc, op, sp);
      continue;
    }
    if (!print_value(hc, op, sp, a)) return false;
  }
  return !hc->hp->err;
}
