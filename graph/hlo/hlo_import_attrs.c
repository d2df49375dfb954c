/* HLO attributes -> IR attributes, driven by the op table's specs: each
 * kind reads its value span and sets the StableHLO generic-form attribute
 * (or struct field). Absent optional attributes with a default are set
 * from the default's text, so an imported op always carries the same set;
 * regions are imported last, in the order the spec lists them. */
#include <string.h>

#include "graph/hlo/hlo_internal.h"

#define MAX_SPECS 32

static const char* struct_attr_name(const char* s) {
  if (strcmp(s, "stablehlo.dot") == 0) return "dot_dimension_numbers";
  if (strcmp(s, "stablehlo.scatter") == 0) return "scatter_dimension_numbers";
  return "dimension_numbers";
}

/* The struct attribute a field goes into (created on first use). */
static hlx_attr_t* struct_of(hlo_b_t* b, hlx_op_t* ir, const char* sname) {
  const char* an = struct_attr_name(sname);
  hlx_attr_t* s = (hlx_attr_t*)hlx_op_attr(ir, an);
  if (s) return s;
  s = hb_struct(b, sname);
  return s && hb_attr(b, ir, an, s) ? s : NULL;
}

static bool set_field(hlo_b_t* b, hlx_op_t* ir, const hlo_attr_spec_t* sp,
                      hlx_attr_t* v) {
  hlx_attr_t* s = struct_of(b, ir, sp->aux);
  return s && hb_struct_field(b, s, sp->ir, v);
}

static bool read_precision(hlo_b_t* b, const hlo_span_t* s, hlx_attr_t** out) {
  hlo_lexer_t lx;
  hlo_span_lexer(s, &lx);
  hlx_attr_t* items[16];
  int32_t n = 0;
  hlo_tok_t t = hlo_lx_next(&lx);
  if (!hlo_tok_punct(t, "{")) return hlo_error_tok(b->e, t, "'{'");
  if (!hlo_tok_punct(hlo_lx_peek(&lx), "}")) {
    for (;;) {
      t = hlo_lx_next(&lx);
      const char* v = t.kind == HT_NAME
                          ? hlo_enum_to_ir("precision", t.p, t.n, NULL, 0)
                          : NULL;
      if (!v)
        return hlo_error_tok(b->e, t, "precision (default, high, highest)");
      if (n == 16)
        return hlo_error_unsupported(b->e, t, "more than 16 precisions");
      if (!(items[n++] = hb_enum(b, "precision", v))) return false;
      t = hlo_lx_next(&lx);
      if (hlo_tok_punct(t, "}")) break;
      if (!hlo_tok_punct(t, ",")) return hlo_error_tok(b->e, t, "',' or '}'");
    }
  } else {
    hlo_lx_next(&lx);
  }
  t = hlo_lx_next(&lx);
  if (t.kind != HT_EOF)
    return hlo_error_tok(b->e, t, "end of the attribute value");
  return (*out = hb_array(b, items, n)) != NULL;
}

/* low/high pairs -> the DENSE [rank, 2] padding attribute. */
static hlx_attr_t* pad_matrix(hlo_b_t* b, const int64_t* lo, const int64_t* hi,
                              int32_t rank) {
  int64_t v[2 * HLX_MAX_RANK];
  if (rank > HLX_MAX_RANK) {
    hlo_error_at(b->e, 0, 0, "unsupported: window rank above %d", HLX_MAX_RANK);
    return NULL;
  }
  for (int32_t i = 0; i < rank; i++) v[2 * i] = lo[i], v[2 * i + 1] = hi[i];
  return hb_i64_matrix(b, v, rank, 2);
}

static int32_t window_rank(hlx_op_t* ir, const char* form) {
  if (strcmp(form, "conv") == 0) {
    const hlx_attr_t* d = hlx_attr_dict_get(
        hlx_op_attr(ir, "dimension_numbers"), "input_spatial_dimensions");
    return d && d->kind == HLX_ATTR_I64_ARRAY ? d->count : 0;
  }
  const hlx_type_t* t = ir->num_operands ? ir->operands[0]->type : NULL;
  return t && t->kind == HLX_TYPE_TENSOR ? t->rank : 0;
}

static bool import_window(hlo_b_t* b, const hlo_span_t* s, const char* form,
                          hlx_op_t* ir) {
  hlo_window_t w;
  if (!hlo_read_window(s, b->a, b->e, &w)) return false;
  if (w.rank == 0 && window_rank(ir, form) > 0) {
    /* `{}` (or absent): every field at its default. */
    int32_t r = window_rank(ir, form);
    int64_t* one = hlx_arena_alloc_array(b->a, (size_t)r, 8);
    int64_t* zero = hlx_arena_alloc_array(b->a, (size_t)r, 8);
    if (!one || !zero) return hlo_error_oom(b->e);
    for (int32_t i = 0; i < r; i++) one[i] = 1;
    w.rank = r;
    w.size = w.stride = w.lhs_dilate = w.rhs_dilate = one;
    w.pad_low = w.pad_high = w.reversal = zero;
  }
  hlx_attr_t* pad = pad_matrix(b, w.pad_low, w.pad_high, w.rank);
  if (strcmp(form, "conv") == 0)
    return hb_attr(b, ir, "window_strides",
                   hb_i64_array(b, w.stride, w.rank)) &&
           hb_attr(b, ir, "padding", pad) &&
           hb_attr(b, ir, "lhs_dilation",
                   hb_i64_array(b, w.lhs_dilate, w.rank)) &&
           hb_attr(b, ir, "rhs_dilation",
                   hb_i64_array(b, w.rhs_dilate, w.rank)) &&
           hb_attr(b, ir, "window_reversal",
                   hb_bool_array(b, w.reversal, w.rank));
  bool ok =
      hb_attr(b, ir, "window_dimensions", hb_i64_array(b, w.size, w.rank)) &&
      hb_attr(b, ir, "window_strides", hb_i64_array(b, w.stride, w.rank)) &&
      hb_attr(b, ir, "padding", pad);
  if (strcmp(form, "reduce_window") == 0)
    ok = ok &&
         hb_attr(b, ir, "base_dilations",
                 hb_i64_array(b, w.lhs_dilate, w.rank)) &&
         hb_attr(b, ir, "window_dilations",
                 hb_i64_array(b, w.rhs_dilate, w.rank));
  else if (w.rank && (w.lhs_dilate[0] != 1 || w.rhs_dilate[0] != 1))
    return hlo_error_at(b->e, s->line, s->col,
                        "select-and-scatter windows have no dilation");
  return ok;
}

static bool import_dim_labels(hlo_b_t* b, const hlo_span_t* s, hlx_op_t* ir) {
  hlo_conv_dims_t d;
  if (!hlo_read_dim_labels(s, b->e, &d)) return false;
  hlx_attr_t* st = hb_struct(b, "stablehlo.conv");
  hlx_dtype_t u = HLX_DTYPE_INVALID;
  return st &&
         hb_struct_field(b, st, "input_batch_dimension",
                         hb_int(b, d.in_batch, u)) &&
         hb_struct_field(b, st, "input_feature_dimension",
                         hb_int(b, d.in_feature, u)) &&
         hb_struct_field(b, st, "input_spatial_dimensions",
                         hb_i64_array(b, d.in_sp, d.spatial)) &&
         hb_struct_field(b, st, "kernel_input_feature_dimension",
                         hb_int(b, d.k_in, u)) &&
         hb_struct_field(b, st, "kernel_output_feature_dimension",
                         hb_int(b, d.k_out, u)) &&
         hb_struct_field(b, st, "kernel_spatial_dimensions",
                         hb_i64_array(b, d.k_sp, d.spatial)) &&
         hb_struct_field(b, st, "output_batch_dimension",
                         hb_int(b, d.out_batch, u)) &&
         hb_struct_field(b, st, "output_feature_dimension",
                         hb_int(b, d.out_feature, u)) &&
         hb_struct_field(b, st, "output_spatial_dimensions",
                         hb_i64_array(b, d.out_sp, d.spatial)) &&
         hb_attr(b, ir, "dimension_numbers", st);
}

static bool import_padding(hlo_b_t* b, const hlo_span_t* s, hlx_op_t* ir) {
  hlo_lexer_t lx;
  hlo_span_lexer(s, &lx);
  hlo_tok_t t = hlo_lx_next(&lx);
  if (t.kind != HT_WORD || hlo_lx_next(&lx).kind != HT_EOF)
    return hlo_error_tok(b->e, t, "padding like 0_0_0x1_1_0");
  int64_t *lo, *hi, *in;
  int32_t r;
  return hlo_read_padding(s, t.p, t.n, b->a, b->e, true, &lo, &hi, &in, &r) &&
         hb_attr(b, ir, "edge_padding_low", hb_i64_array(b, lo, r)) &&
         hb_attr(b, ir, "edge_padding_high", hb_i64_array(b, hi, r)) &&
         hb_attr(b, ir, "interior_padding", hb_i64_array(b, in, r));
}

static bool import_groups(hlo_b_t* b, const hlo_span_t* s,
                          const hlo_attr_spec_t* sp, hlx_op_t* ir) {
  int64_t* v;
  int32_t rows, cols;
  if (!hlo_read_groups(s, b->a, b->e, &v, &rows, &cols)) return false;
  if (sp->kind == HA_PAIRS) {
    if (rows == 0) cols = 2;
    if (cols != 2)
      return hlo_error_at(b->e, s->line, s->col,
                          "expected {source,target} pairs");
  }
  return hb_attr(b, ir, sp->ir, hb_i64_matrix(b, v, rows, cols));
}

static bool import_one(hlo_imp_t* im, const hlo_span_t* s,
                       const hlo_attr_spec_t* sp, hlx_op_t* ir) {
  hlo_b_t* b = &im->b;
  int64_t i, *list, *l2, *l3;
  int32_t n;
  bool f;
  double d;
  char* str;
  size_t len;
  hlo_tok_t w;
  switch (sp->kind) {
    case HA_I64_LIST:
      return hlo_read_i64_list(s, b->a, b->e, &list, &n) &&
             hb_attr(b, ir, sp->ir, hb_i64_array(b, list, n));
    case HA_FIRST_I64:
      if (!hlo_read_i64_list(s, b->a, b->e, &list, &n)) return false;
      if (n != 1)
        return hlo_error_at(b->e, s->line, s->col,
                            "expected one dimension, got %d", n);
      return hb_attr(b, ir, sp->ir, hb_int(b, list[0], HLX_DTYPE_S64));
    case HA_I64:
    case HA_I32:
      return hlo_read_i64(s, b->e, &i) &&
             hb_attr(
                 b, ir, sp->ir,
                 hb_int(b, i,
                        sp->kind == HA_I64 ? HLX_DTYPE_S64 : HLX_DTYPE_S32));
    case HA_BOOL:
      return hlo_read_bool(s, b->e, &f) &&
             hb_attr(b, ir, sp->ir, hb_bool(b, f));
    case HA_UNIT_BOOL:
      return hlo_read_bool(s, b->e, &f) &&
             (!f || hb_attr(b, ir, sp->ir, hb_unit(b)));
    case HA_F32:
      return hlo_read_f64(s, b->e, &d) &&
             hb_attr(b, ir, sp->ir, hb_float(b, d, HLX_DTYPE_F32));
    case HA_STRING:
    case HA_JSON:
      return hlo_read_string(s, b->a, b->e, sp->kind == HA_JSON, &str, &len) &&
             hb_attr(b, ir, sp->ir, hb_string(b, str, len));
    case HA_ENUM: {
      if (!hlo_read_word(s, b->e, &w)) return false;
      const char* v = hlo_enum_to_ir(sp->aux, w.p, w.n, NULL, 0);
      if (!v)
        return hlo_error_at(b->e, w.line, w.col, "unknown %s '%.*s'", sp->aux,
                            (int)w.n, w.p);
      return hb_attr(b, ir, sp->ir, hb_enum(b, sp->aux, v));
    }
    case HA_PRECISION: {
      hlx_attr_t* a = NULL;
      return read_precision(b, s, &a) && hb_attr(b, ir, sp->ir, a);
    }
    case HA_GROUPS:
    case HA_PAIRS:
      return import_groups(b, s, sp, ir);
    case HA_CHANNEL: {
      hlx_attr_t* st = hb_struct(b, "stablehlo.channel_handle");
      return hlo_read_i64(s, b->e, &i) && st &&
             hb_struct_field(b, st, "handle",
                             hb_int(b, i, HLX_DTYPE_INVALID)) &&
             hb_struct_field(b, st, "type", hb_int(b, 1, HLX_DTYPE_INVALID)) &&
             hb_attr(b, ir, sp->ir, st);
    }
    case HA_FIELD_LIST:
      return hlo_read_i64_list(s, b->a, b->e, &list, &n) &&
             set_field(b, ir, sp, hb_i64_array(b, list, n));
    case HA_FIELD_I64:
      return hlo_read_i64(s, b->e, &i) &&
             set_field(b, ir, sp, hb_int(b, i, HLX_DTYPE_INVALID));
    case HA_SLICE:
      return hlo_read_slice(s, b->a, b->e, &list, &l2, &l3, &n) &&
             hb_attr(b, ir, "start_indices", hb_i64_array(b, list, n)) &&
             hb_attr(b, ir, "limit_indices", hb_i64_array(b, l2, n)) &&
             hb_attr(b, ir, "strides", hb_i64_array(b, l3, n));
    case HA_PADDING:
      return import_padding(b, s, ir);
    case HA_WINDOW:
      return import_window(b, s, sp->aux, ir);
    case HA_DIM_LABELS:
      return import_dim_labels(b, s, ir);
    case HA_REGION:
    case HA_SPECIAL:
    case HA_IGNORE:
      return true;
  }
  return true;
}

bool hlo_import_attrs(hlo_imp_t* im, hlo_scope_t* sc, const hlo_instr_t* in,
                      const hlo_op_t* op, hlx_op_t* ir) {
  const hlo_attr_spec_t* specs = op->attrs;
  int32_t ns = 0;
  while (specs[ns].hlo) ns++;
  int32_t given[MAX_SPECS];
  for (int32_t k = 0; k < ns; k++) given[k] = -1;
  for (int32_t i = 0; i < in->num_attrs; i++) {
    const hlo_attr_t* a = &in->attrs[i];
    int32_t k = 0;
    while (k < ns && !hlo_tok_is(a->name, specs[k].hlo)) k++;
    if (k == ns) {
      if (hlo_attr_ignored(a->name.p, a->name.n)) continue;
      return hlo_error_unsupported(im->b.e, a->name, "attribute '%.*s' of %s",
                                   (int)a->name.n, a->name.p, op->hlo);
    }
    given[k] = i;
  }
  /* In spec order, so the IR does not depend on the text's order. */
  for (int32_t k = 0; k < ns; k++) {
    const hlo_attr_spec_t* sp = &specs[k];
    if (sp->kind == HA_REGION) continue;
    if (given[k] >= 0) {
      if (!import_one(im, &in->attrs[given[k]].value, sp, ir)) return false;
      continue;
    }
    if (sp->required)
      return hlo_error_at(im->b.e, in->name.line, in->name.col,
                          "%s '%.*s' needs attribute %s=", op->hlo,
                          (int)in->name.n, in->name.p, sp->hlo);
    if (!sp->dflt) continue;
    /* The default's text, positioned at the instruction for messages. */
    hlo_span_t s = {sp->dflt, sp->dflt + strlen(sp->dflt), in->name.line, 1,
                    sp->dflt};
    if (!import_one(im, &s, sp, ir)) return false;
  }
  for (int32_t k = 0; k < ns; k++) {
    if (specs[k].kind != HA_REGION) continue;
    if (given[k] < 0)
      return hlo_error_at(im->b.e, in->name.line, in->name.col,
                          "%s '%.*s' needs attribute %s=", op->hlo,
                          (int)in->name.n, in->name.p, specs[k].hlo);
    int32_t comp = hlo_called_comp(im, sc, &in->attrs[given[k]].value);
    if (comp < 0) return false;
    bool unpack = strcmp(specs[k].aux, "unpack") == 0;
    if (!hb_add_region(&im->b, ir, hlo_import_region(im, comp, unpack, NULL)))
      return false;
  }
  return true;
}
