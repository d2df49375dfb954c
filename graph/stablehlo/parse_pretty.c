/* Pretty (custom assembly) forms of stablehlo / chlo / func / check /
 * interpreter ops. Every form is turned into the generic representation:
 * operands in generic order, attributes under their generic names (see
 * parser.h), regions as in the generic form. */
#include <stdio.h>
#include <string.h>

#include "graph/stablehlo/parser_internal.h"

/* True when the next tokens are `word =`. */
static bool peek_kw(parser_t* p) {
  if (p->err) return false;
  tok_t t = lx_peek(&p->lx);
  if (t.kind != TK_BARE) return false;
  lex_state_t save = lx_save(&p->lx);
  lx_next(&p->lx);
  bool r = tok_punct(lx_peek(&p->lx), "=");
  lx_restore(&p->lx, save);
  return r;
}

static hlx_attr_t* i64_list_attr(parser_t* p) {
  int64_t* v;
  int32_t n;
  if (!parse_i64_list(p, &v, &n)) return NULL;
  return make_i64_array(p, v, n, HLX_DTYPE_S64);
}

static hlx_attr_t* int_attr_typed(parser_t* p, hlx_dtype_t dt) {
  int64_t v;
  if (!parse_int_literal(p, &v)) return NULL;
  return make_int_attr(p, v, dt);
}

static hlx_attr_t* enum_word(parser_t* p, const char* kind) {
  tok_t t = lx_next(&p->lx);
  if (t.kind != TK_BARE) {
    perr_tok(p, t, "enum value");
    return NULL;
  }
  return make_enum_attr(p, kind, t);
}

static hlx_attr_t* float_attr_f64(parser_t* p) {
  double d;
  if (!parse_float_literal(p, &d)) return NULL;
  hlx_attr_t* a = pa_alloc(p, sizeof(*a));
  if (!a) return NULL;
  a->kind = HLX_ATTR_FLOAT;
  a->f = d;
  a->type = make_scalar_type(p, HLX_DTYPE_F64);
  return a->type ? a : NULL;
}

static hlx_attr_t* string_attr(parser_t* p) {
  tok_t t = lx_next(&p->lx);
  if (t.kind != TK_STRING) {
    perr_tok(p, t, "string");
    return NULL;
  }
  char* s;
  size_t n;
  if (!decode_string(p, t, &s, &n)) return NULL;
  hlx_attr_t* a = pa_alloc(p, sizeof(*a));
  if (!a) return NULL;
  a->kind = HLX_ATTR_STRING;
  a->str = s;
  a->len = n;
  return a;
}

/* `[a] x [b]` for dot_general dims. */
static bool parse_dims_pair(parser_t* p, int64_t** l, int32_t* nl, int64_t** r,
                            int32_t* nr) {
  if (!parse_i64_list(p, l, nl)) return false;
  tok_t x = lx_next(&p->lx);
  if (!(x.kind == TK_BARE && tok_is(x, "x"))) return perr_tok(p, x, "'x'");
  return parse_i64_list(p, r, nr);
}

typedef struct dot_dims_t {
  bool any;
  int64_t *lb, *rb, *lc, *rc;
  int32_t nlb, nrb, nlc, nrc;
} dot_dims_t;

static bool parse_conv_window(parser_t* p, op_builder_t* b) {
  if (!expect_punct(p, "{", "'{'")) return false;
  if (accept_punct(p, "}")) return true;
  for (;;) {
    tok_t k = lx_next(&p->lx);
    if (k.kind != TK_BARE) return perr_tok(p, k, "window field");
    if (!expect_punct(p, "=", "'='")) return false;
    if (tok_is(k, "stride") || tok_is(k, "lhs_dilate") || tok_is(k, "rhs_dilate")) {
      const char* name = tok_is(k, "stride")       ? "window_strides"
                         : tok_is(k, "lhs_dilate") ? "lhs_dilation"
                                                   : "rhs_dilation";
      if (!ob_add_attr(p, b, name, i64_list_attr(p))) return false;
    } else if (tok_is(k, "reverse")) {
      if (!expect_punct(p, "[", "'['")) return false;
      int64_t* v = NULL;
      int32_t n = 0, cap = 0;
      if (!accept_punct(p, "]")) {
        for (;;) {
          tok_t t = lx_peek(&p->lx);
          int64_t x;
          if (t.kind == TK_BARE && (tok_is(t, "true") || tok_is(t, "false"))) {
            lx_next(&p->lx);
            x = tok_is(t, "true");
          } else if (!parse_int_literal(p, &x)) {
            return false;
          }
          if (!pa_push(p, (void**)&v, &n, &cap, sizeof(x), &x)) return false;
          if (accept_punct(p, ",")) continue;
          if (!expect_punct(p, "]", "',' or ']'")) return false;
          break;
        }
      }
      if (!ob_add_attr(p, b, "window_reversal", make_i64_array(p, v, n, HLX_DTYPE_PRED)))
        return false;
    } else if (tok_is(k, "pad")) {
      if (!expect_punct(p, "[", "'['")) return false;
      int64_t* v = NULL;
      int32_t n = 0, cap = 0;
      if (!accept_punct(p, "]")) {
        for (;;) {
          int64_t* pr;
          int32_t np;
          if (!parse_i64_list(p, &pr, &np)) return false;
          if (np != 2) return perr_tok(p, lx_peek(&p->lx), "[low, high] pair");
          if (!pa_push(p, (void**)&v, &n, &cap, sizeof(int64_t), &pr[0]) ||
              !pa_push(p, (void**)&v, &n, &cap, sizeof(int64_t), &pr[1]))
            return false;
          if (accept_punct(p, ",")) continue;
          if (!expect_punct(p, "]", "',' or ']'")) return false;
          break;
        }
      }
      int64_t dims[2] = {n / 2, 2};
      hlx_attr_t* a = pa_alloc(p, sizeof(*a));
      if (!a) return false;
      a->kind = HLX_ATTR_DENSE;
      a->type = make_tensor_type(p, HLX_DTYPE_S64, NULL, 2, dims);
      a->dense_bytes = sizeof(int64_t) * (size_t)n;
      a->dense = pa_alloc(p, a->dense_bytes);
      if (!a->type || !a->dense) return false;
      if (n > 0) memcpy(a->dense, v, a->dense_bytes);
      if (!ob_add_attr(p, b, "padding", a)) return false;
    } else {
      return perr_unsupported(p, k, "convolution window field");
    }
    if (accept_punct(p, ",")) continue;
    return expect_punct(p, "}", "',' or '}'");
  }
}

/* `kw = value` items of the pretty forms. */
static bool parse_kw_item(parser_t* p, op_builder_t* b, hlx_opcode_t code,
                          dot_dims_t* dd) {
  tok_t k = lx_next(&p->lx);
  lx_next(&p->lx); /* = */
  hlx_attr_t* a = NULL;
  const char* name = NULL;
  if (tok_is(k, "dims")) {
    name = code == HLX_OP_TRANSPOSE ? "permutation"
           : code == HLX_OP_REVERSE ? "dimensions"
                                    : "broadcast_dimensions";
    a = i64_list_attr(p);
  } else if (tok_is(k, "dim")) {
    name = (code == HLX_OP_IOTA || code == HLX_OP_DYNAMIC_IOTA) ? "iota_dimension"
                                                                : "dimension";
    a = int_attr_typed(p, HLX_DTYPE_S64);
  } else if (tok_is(k, "sizes")) {
    name = "slice_sizes";
    a = i64_list_attr(p);
  } else if (tok_is(k, "low") || tok_is(k, "high") || tok_is(k, "interior")) {
    name = tok_is(k, "low")    ? "edge_padding_low"
           : tok_is(k, "high") ? "edge_padding_high"
                               : "interior_padding";
    a = i64_list_attr(p);
  } else if (tok_is(k, "length") && code == HLX_OP_FFT) {
    name = "fft_length";
    a = i64_list_attr(p);
  } else if (tok_is(k, "type") && code == HLX_OP_FFT) {
    name = "fft_type";
    a = enum_word(p, "fft_type");
  } else if (tok_is(k, "algorithm") && code == HLX_OP_RNG_BIT_GENERATOR) {
    name = "rng_algorithm";
    a = enum_word(p, "rng_algorithm");
  } else if (tok_is(k, "distribution") && code == HLX_OP_RNG) {
    name = "rng_distribution";
    a = enum_word(p, "rng_distribution");
  } else if (tok_is(k, "format") && code == HLX_OP_REDUCE_PRECISION) {
    tok_t f = lx_next(&p->lx);
    int e = 0, m = 0, i = 1;
    bool ok = f.kind == TK_BARE && f.n >= 4 && f.p[0] == 'e';
    while (ok && i < (int)f.n && f.p[i] >= '0' && f.p[i] <= '9' && e < 100000)
      e = e * 10 + (f.p[i++] - '0');
    ok = ok && i > 1 && i < (int)f.n && f.p[i] == 'm';
    int j = ++i;
    while (ok && i < (int)f.n && f.p[i] >= '0' && f.p[i] <= '9' && m < 100000)
      m = m * 10 + (f.p[i++] - '0');
    ok = ok && i == (int)f.n && i > j;
    if (!ok) return perr_tok(p, f, "format like e5m10");
    return ob_add_attr(p, b, "exponent_bits", make_int_attr(p, e, HLX_DTYPE_S32)) &&
           ob_add_attr(p, b, "mantissa_bits", make_int_attr(p, m, HLX_DTYPE_S32));
  } else if ((tok_is(k, "batching_dims") || tok_is(k, "contracting_dims")) &&
             (code == HLX_OP_DOT_GENERAL || code == HLX_OP_UNKNOWN)) {
    dd->any = true;
    if (tok_is(k, "batching_dims"))
      return parse_dims_pair(p, &dd->lb, &dd->nlb, &dd->rb, &dd->nrb);
    return parse_dims_pair(p, &dd->lc, &dd->nlc, &dd->rc, &dd->nrc);
  } else if (tok_is(k, "precision")) {
    name = "precision_config";
    if (!expect_punct(p, "[", "'['")) return false;
    a = pa_alloc(p, sizeof(*a));
    if (!a) return false;
    a->kind = HLX_ATTR_ARRAY;
    int32_t cap = 0;
    if (!accept_punct(p, "]")) {
      for (;;) {
        hlx_attr_t* e = enum_word(p, "precision");
        if (!e || !pa_push(p, (void**)&a->items, &a->count, &cap, sizeof(e), &e))
          return false;
        if (accept_punct(p, ",")) continue;
        if (!expect_punct(p, "]", "',' or ']'")) return false;
        break;
      }
    }
  } else if (tok_is(k, "algorithm")) {
    name = "algorithm";
    a = parse_struct_fields(p, "stablehlo.dot_algorithm");
  } else if (tok_is(k, "probe_id")) {
    name = "probe_id";
    a = string_attr(p);
  } else if (tok_is(k, "iter") || tok_is(k, "max_ulp_difference") ||
             tok_is(k, "min_ulp_difference") || tok_is(k, "k")) {
    name = pa_strndup(p, k.p, k.n);
    a = int_attr_typed(p, HLX_DTYPE_S64);
  } else if (tok_is(k, "tolerance")) {
    name = "tolerance";
    a = float_attr_f64(p);
  } else {
    name = pa_strndup(p, k.p, k.n);
    a = parse_attr(p, false);
  }
  if (!name || !a) return false;
  return ob_add_attr(p, b, name, a);
}

static bool finish_dot_dims(parser_t* p, op_builder_t* b, dot_dims_t* dd) {
  if (!dd->any) return true;
  hlx_attr_t* a = pa_alloc(p, sizeof(*a));
  if (!a) return false;
  a->kind = HLX_ATTR_STRUCT;
  a->str = "stablehlo.dot";
  int32_t cap = 0;
  bool ok =
      add_attr(p, &a->dict, &a->count, &cap, "lhs_batching_dimensions",
               make_i64_array(p, dd->lb, dd->nlb, HLX_DTYPE_S64)) &&
      add_attr(p, &a->dict, &a->count, &cap, "rhs_batching_dimensions",
               make_i64_array(p, dd->rb, dd->nrb, HLX_DTYPE_S64)) &&
      add_attr(p, &a->dict, &a->count, &cap, "lhs_contracting_dimensions",
               make_i64_array(p, dd->lc, dd->nlc, HLX_DTYPE_S64)) &&
      add_attr(p, &a->dict, &a->count, &cap, "rhs_contracting_dimensions",
               make_i64_array(p, dd->rc, dd->nrc, HLX_DTYPE_S64));
  if (!ok) return false;
  /* dot_dimension_numbers goes first, as in the generic form. */
  if (!ob_add_attr(p, b, "dot_dimension_numbers", a)) return false;
  hlx_named_attr_t last = b->attrs[b->nattrs - 1];
  memmove(b->attrs + 1, b->attrs, sizeof(hlx_named_attr_t) * (size_t)(b->nattrs - 1));
  b->attrs[0] = last;
  return true;
}

/* `%t [1:3, 0:4:2]` */
static bool parse_slice_spec(parser_t* p, op_builder_t* b) {
  if (!expect_punct(p, "[", "'['")) return false;
  int64_t *st = NULL, *li = NULL, *sd = NULL;
  int32_t n1 = 0, n2 = 0, n3 = 0, c1 = 0, c2 = 0, c3 = 0;
  if (!accept_punct(p, "]")) {
    for (;;) {
      int64_t s, l, d = 1;
      if (!parse_int_literal(p, &s) || !expect_punct(p, ":", "':'") ||
          !parse_int_literal(p, &l))
        return false;
      if (accept_punct(p, ":") && !parse_int_literal(p, &d)) return false;
      if (!pa_push(p, (void**)&st, &n1, &c1, sizeof(s), &s) ||
          !pa_push(p, (void**)&li, &n2, &c2, sizeof(l), &l) ||
          !pa_push(p, (void**)&sd, &n3, &c3, sizeof(d), &d))
        return false;
      if (accept_punct(p, ",")) continue;
      if (!expect_punct(p, "]", "',' or ']'")) return false;
      break;
    }
  }
  return ob_add_attr(p, b, "start_indices", make_i64_array(p, st, n1, HLX_DTYPE_S64)) &&
         ob_add_attr(p, b, "limit_indices", make_i64_array(p, li, n2, HLX_DTYPE_S64)) &&
         ob_add_attr(p, b, "strides", make_i64_array(p, sd, n3, HLX_DTYPE_S64));
}

/* Comma-separated operands and `kw = value` items. */
static bool parse_items(parser_t* p, op_builder_t* b, hlx_opcode_t code,
                        dot_dims_t* dd) {
  tok_t t = lx_peek(&p->lx);
  if (!(t.kind == TK_PERCENT || peek_kw(p))) return true;
  for (;;) {
    t = lx_peek(&p->lx);
    if (t.kind == TK_PERCENT) {
      if (!ob_add_operand(p, b, parse_value_use(p))) return false;
      if (code == HLX_OP_SLICE && peek_punct(p, "[")) {
        if (!parse_slice_spec(p, b)) return false;
      } else if (code == HLX_OP_GET_TUPLE_ELEMENT && peek_punct(p, "[")) {
        lx_next(&p->lx);
        int64_t idx;
        if (!parse_int_literal(p, &idx) || !expect_punct(p, "]", "']'")) return false;
        if (idx < INT32_MIN || idx > INT32_MAX)
          return perr_tok(p, t, "tuple index in range");
        if (!ob_add_attr(p, b, "index", make_int_attr(p, idx, HLX_DTYPE_S32)))
          return false;
      }
    } else if (peek_kw(p)) {
      if (!parse_kw_item(p, b, code, dd)) return false;
    } else {
      return perr_tok(p, t, "operand or 'name = value'");
    }
    if (p->err) return false;
    if (!accept_punct(p, ",")) return true;
  }
}

static bool opt_attr_dict(parser_t* p, op_builder_t* b) {
  if (peek_punct(p, "{"))
    return parse_attr_dict(p, &b->attrs, &b->nattrs, &b->capattrs);
  return !p->err;
}

static bool opt_attributes_kw(parser_t* p, op_builder_t* b) {
  if (accept_bare(p, "attributes"))
    return parse_attr_dict(p, &b->attrs, &b->nattrs, &b->capattrs);
  return !p->err;
}

/* Result types from a pretty signature. */
static bool infer_results(parser_t* p, op_builder_t* b, hlx_opcode_t code,
                          const sig_t* s, tok_t where) {
  if (s->has_arrow) return ob_set_results(p, b, s->out, s->nout);
  if (b->nlhs == 0) return ob_set_results(p, b, NULL, 0);
  if (s->nin == 0) return perr_at(p, where.line, where.col, "expected result type");
  if (b->nlhs > 1) {
    if (s->nin != b->nlhs)
      return perr_at(p, where.line, where.col,
                     "%d results but %d types in the signature", b->nlhs, s->nin);
    return ob_set_results(p, b, s->in, s->nin);
  }
  hlx_type_t* rt = s->in[s->nin - 1];
  if ((code == HLX_OP_COMPARE || code == HLX_OP_CHLO_BROADCAST_COMPARE ||
       code == HLX_OP_IS_FINITE) &&
      rt->kind == HLX_TYPE_TENSOR) {
    hlx_type_t* t = make_tensor_type(p, HLX_DTYPE_PRED, NULL, rt->rank, rt->dims);
    if (!t) return false;
    t->bounds = rt->bounds;
    rt = t;
  }
  return ob_set_results(p, b, &rt, 1);
}

static bool finish_with_signature(parser_t* p, op_builder_t* b,
                                  hlx_opcode_t code) {
  tok_t colon = lx_peek(&p->lx);
  if (!accept_punct(p, ":")) {
    if (p->err) return false;
    if (b->nlhs > 0) return perr_tok(p, colon, "':' and a type");
    return ob_set_results(p, b, NULL, 0);
  }
  sig_t s;
  if (!parse_signature(p, &s)) return false;
  return infer_results(p, b, code, &s, colon);
}

static bool parse_paren_operands(parser_t* p, op_builder_t* b) {
  if (!expect_punct(p, "(", "'('")) return false;
  if (accept_punct(p, ")")) return true;
  for (;;) {
    if (!ob_add_operand(p, b, parse_value_use(p))) return false;
    if (accept_punct(p, ",")) continue;
    return expect_punct(p, ")", "',' or ')'");
  }
}

static bool parse_symbol_call(parser_t* p, op_builder_t* b, const char* attr_name,
                              bool as_string) {
  tok_t s = lx_next(&p->lx);
  if (s.kind != TK_AT) return perr_tok(p, s, "@symbol");
  char* name;
  size_t len;
  if (s.n > 1 && s.p[1] == '"') {
    tok_t st = {TK_STRING, s.p + 1, s.n - 1, s.line, s.col};
    if (!decode_string(p, st, &name, &len)) return false;
    if (!as_string && strlen(name) != len) return perr_tok(p, s, "symbol without NUL");
  } else {
    len = s.n - 1;
    name = pa_strndup(p, s.p + 1, len);
    if (!name) return false;
  }
  hlx_attr_t* a = pa_alloc(p, sizeof(*a));
  if (!a) return false;
  a->kind = as_string ? HLX_ATTR_STRING : HLX_ATTR_SYMBOL;
  a->str = name;
  a->len = len;
  if (!ob_add_attr(p, b, attr_name, a)) return false;
  return parse_paren_operands(p, b);
}

/* ---- reduce -------------------------------------------------------------- */
static bool parse_reduce(parser_t* p, op_builder_t* b, tok_t name_tok) {
  hlx_value_t* ins[64];
  hlx_value_t* inits[64];
  int n = 0;
  for (;;) {
    if (!expect_punct(p, "(", "'('")) return false;
    if (n >= 64) return perr_unsupported(p, name_tok, "reduce with more than 64 inputs");
    ins[n] = parse_value_use(p);
    if (!ins[n]) return false;
    tok_t kw = lx_next(&p->lx);
    if (!(kw.kind == TK_BARE && tok_is(kw, "init"))) return perr_tok(p, kw, "'init'");
    if (!expect_punct(p, ":", "':'")) return false;
    inits[n] = parse_value_use(p);
    if (!inits[n] || !expect_punct(p, ")", "')'")) return false;
    n++;
    if (!accept_punct(p, ",")) break;
  }
  for (int i = 0; i < n; i++)
    if (!ob_add_operand(p, b, ins[i])) return false;
  for (int i = 0; i < n; i++)
    if (!ob_add_operand(p, b, inits[i])) return false;
  tok_t applied = {0};
  bool applies = false;
  if (accept_bare(p, "applies")) {
    applied = lx_next(&p->lx);
    if (applied.kind != TK_BARE) return perr_tok(p, applied, "op name");
    applies = true;
  }
  tok_t t = lx_next(&p->lx);
  if (!(t.kind == TK_BARE && tok_is(t, "across"))) return perr_tok(p, t, "'across'");
  t = lx_next(&p->lx);
  if (!(t.kind == TK_BARE && tok_is(t, "dimensions"))) return perr_tok(p, t, "'dimensions'");
  if (!expect_punct(p, "=", "'='")) return false;
  if (!ob_add_attr(p, b, "dimensions", i64_list_attr(p))) return false;
  if (!opt_attr_dict(p, b)) return false;
  tok_t colon = lx_peek(&p->lx);
  if (!expect_punct(p, ":", "':'")) return false;
  sig_t s;
  if (!parse_signature(p, &s)) return false;
  if (!infer_results(p, b, HLX_OP_REDUCE, &s, colon)) return false;
  if (applies) {
    /* Synthesized body: ^bb0(acc..., x...): r = applied(acc..., x...) */
    hlx_region_t* r = pa_alloc(p, sizeof(*r));
    hlx_block_t* blk = pa_alloc(p, sizeof(*blk));
    hlx_block_t** blocks = pa_alloc(p, sizeof(hlx_block_t*));
    hlx_value_t** args = pa_alloc(p, sizeof(hlx_value_t*) * (size_t)(2 * n));
    hlx_op_t** ops = pa_alloc(p, sizeof(hlx_op_t*) * 2);
    if (!r || !blk || !blocks || !args || !ops) return false;
    blocks[0] = blk;
    r->num_blocks = 1;
    r->blocks = blocks;
    blk->parent = r;
    hlx_type_t* et[64];
    for (int i = 0; i < n; i++) {
      hlx_type_t* it = inits[i]->type;
      if (it->kind == HLX_TYPE_TENSOR && it->rank != 0) {
        it = make_tensor_type(p, it->dtype, it->quant, 0, NULL);
        if (!it) return false;
      }
      et[i] = it;
    }
    for (int i = 0; i < 2 * n; i++) {
      hlx_value_t* v = new_value(p, et[i % n]);
      if (!v) return false;
      v->block = blk;
      v->index = i;
      args[i] = v;
    }
    blk->args = args;
    blk->num_args = 2 * n;
    char* opname = pa_strndup(p, applied.p, applied.n);
    hlx_op_t* op = opname ? new_op(p, opname) : NULL;
    hlx_op_t* ret = new_op(p, "stablehlo.return");
    if (!op || !ret) return false;
    if (op->code != HLX_OP_UNKNOWN) op->name = hlx_opcode_name(op->code);
    op->num_operands = 2 * n;
    op->operands = args;
    op->parent = blk;
    op->line = ret->line = applied.line;
    op->col = ret->col = applied.col;
    op_builder_t ob;
    memset(&ob, 0, sizeof ob);
    ob.op = op;
    if (!ob_set_results(p, &ob, et, n)) return false;
    ret->num_operands = n;
    ret->operands = op->results;
    ret->parent = blk;
    ops[0] = op;
    ops[1] = ret;
    blk->ops = ops;
    blk->num_ops = 2;
    return ob_add_region(p, b, r);
  }
  tok_t rk = lx_next(&p->lx);
  if (!(rk.kind == TK_BARE && tok_is(rk, "reducer"))) return perr_tok(p, rk, "'reducer'");
  block_arg_spec_t specs[128];
  for (int i = 0; i < n; i++) {
    if (!expect_punct(p, "(", "'('")) return false;
    for (int k = 0; k < 2; k++) {
      if (k == 1 && !expect_punct(p, ",", "','")) return false;
      tok_t an = lx_next(&p->lx);
      if (an.kind != TK_PERCENT) return perr_tok(p, an, "block argument");
      if (!expect_punct(p, ":", "':'")) return false;
      hlx_type_t* ty = parse_type(p);
      if (!ty) return false;
      specs[k * n + i].name = an;
      specs[k * n + i].type = ty;
    }
    if (!expect_punct(p, ")", "')'")) return false;
  }
  return ob_add_region(p, b, parse_region(p, specs, 2 * n));
}

/* ---- while --------------------------------------------------------------- */
static const block_arg_spec_t kNoArgs[1];

static bool parse_while(parser_t* p, op_builder_t* b) {
  if (!expect_punct(p, "(", "'('")) return false;
  block_arg_spec_t* specs = NULL;
  int32_t n = 0, cap = 0;
  if (!accept_punct(p, ")")) {
    for (;;) {
      block_arg_spec_t sp;
      memset(&sp, 0, sizeof sp);
      sp.name = lx_next(&p->lx);
      if (sp.name.kind != TK_PERCENT) return perr_tok(p, sp.name, "iteration argument");
      if (!expect_punct(p, "=", "'='")) return false;
      if (!ob_add_operand(p, b, parse_value_use(p))) return false;
      if (!pa_push(p, (void**)&specs, &n, &cap, sizeof(sp), &sp)) return false;
      if (accept_punct(p, ",")) continue;
      if (!expect_punct(p, ")", "',' or ')'")) return false;
      break;
    }
  }
  tok_t colon = lx_peek(&p->lx);
  hlx_type_t** types = NULL;
  int32_t nt = 0, capt = 0;
  if (n > 0) {
    if (!expect_punct(p, ":", "':'")) return false;
    if (!parse_type_list(p, &types, &nt, &capt)) return false;
    if (nt != n)
      return perr_at(p, colon.line, colon.col, "while has %d operands but %d types", n, nt);
  } else if (accept_punct(p, ":")) {
    /* `: ` followed by nothing */
  }
  for (int32_t i = 0; i < n; i++) specs[i].type = types[i];
  if (!opt_attributes_kw(p, b)) return false;
  tok_t c = lx_next(&p->lx);
  if (!(c.kind == TK_BARE && tok_is(c, "cond"))) return perr_tok(p, c, "'cond'");
  if (!ob_add_region(p, b, parse_region(p, specs ? specs : kNoArgs, n)))
    return false;
  c = lx_next(&p->lx);
  if (!(c.kind == TK_BARE && tok_is(c, "do"))) return perr_tok(p, c, "'do'");
  if (!ob_add_region(p, b, parse_region(p, specs ? specs : kNoArgs, n)))
    return false;
  return ob_set_results(p, b, types, nt);
}

/* ---- chlo.scan ------------------------------------------------------------- */
static bool parse_scan(parser_t* p, op_builder_t* b) {
  if (!parse_paren_operands(p, b)) return false;
  int64_t segs[2];
  segs[0] = b->nops;
  tok_t t = lx_next(&p->lx);
  if (!(t.kind == TK_BARE && tok_is(t, "inits"))) return perr_tok(p, t, "'inits'");
  if (!parse_paren_operands(p, b)) return false;
  segs[1] = b->nops - segs[0];
  for (;;) {
    if (peek_kw(p)) {
      tok_t k = lx_next(&p->lx);
      lx_next(&p->lx);
      char* name = pa_strndup(p, k.p, k.n);
      hlx_attr_t* a = tok_is(k, "dimension") ? int_attr_typed(p, HLX_DTYPE_S64)
                                             : parse_attr(p, false);
      if (!name || !ob_add_attr(p, b, name, a)) return false;
      accept_punct(p, ",");
      continue;
    }
    break;
  }
  if (!opt_attributes_kw(p, b)) return false;
  if (!ob_add_attr(p, b, "operandSegmentSizes",
                   make_i64_array(p, segs, 2, HLX_DTYPE_S32)))
    return false;
  if (!ob_add_region(p, b, parse_region(p, NULL, 0))) return false;
  return finish_with_signature(p, b, HLX_OP_CHLO_SCAN);
}

/* ---- convolution ------------------------------------------------------------ */
static bool parse_convolution(parser_t* p, op_builder_t* b) {
  if (!parse_paren_operands(p, b)) return false;
  for (;;) {
    if (!peek_kw(p)) break;
    tok_t k = lx_next(&p->lx);
    lx_next(&p->lx);
    if (tok_is(k, "dim_numbers")) {
      if (!ob_add_attr(p, b, "dimension_numbers", parse_conv_dims_body(p))) return false;
    } else if (tok_is(k, "window")) {
      if (!parse_conv_window(p, b)) return false;
    } else {
      char* name = pa_strndup(p, k.p, k.n);
      if (!name || !ob_add_attr(p, b, name, parse_attr(p, false))) return false;
    }
    if (!accept_punct(p, ",")) break;
  }
  if (!opt_attr_dict(p, b)) return false;
  return finish_with_signature(p, b, HLX_OP_CONVOLUTION);
}

/* ---- entry ------------------------------------------------------------------- */
bool parse_pretty_op(parser_t* p, op_builder_t* b, tok_t name_tok,
                     hlx_opcode_t code) {
  dot_dims_t dd;
  memset(&dd, 0, sizeof dd);
  switch (code) {
    case HLX_OP_CONSTANT: {
      if (!opt_attr_dict(p, b)) return false;
      hlx_attr_t* v = parse_attr(p, false);
      if (!v) return false;
      if ((v->kind != HLX_ATTR_DENSE && v->kind != HLX_ATTR_ELIDED) || !v->type)
        return perr_tok(p, name_tok, "dense constant after");
      if (!ob_add_attr(p, b, "value", v)) return false;
      hlx_type_t* t = v->type;
      return ob_set_results(p, b, &t, 1);
    }
    case HLX_OP_FUNC_CALL:
      if (!parse_symbol_call(p, b, "callee", false)) return false;
      if (!opt_attr_dict(p, b)) return false;
      return finish_with_signature(p, b, code);
    case HLX_OP_CUSTOM_CALL:
      if (!parse_symbol_call(p, b, "call_target_name", true)) return false;
      if (!opt_attr_dict(p, b)) return false;
      return finish_with_signature(p, b, code);
    case HLX_OP_COMPOSITE: {
      tok_t s = lx_peek(&p->lx);
      if (s.kind != TK_STRING) return perr_tok(p, s, "composite name string");
      if (!ob_add_attr(p, b, "name", string_attr(p))) return false;
      if (!parse_items(p, b, code, &dd)) return false;
      if (!opt_attr_dict(p, b)) return false;
      return finish_with_signature(p, b, code);
    }
    case HLX_OP_COMPARE:
    case HLX_OP_CHLO_BROADCAST_COMPARE: {
      if (code == HLX_OP_COMPARE || lx_peek(&p->lx).kind == TK_BARE) {
        if (!ob_add_attr(p, b, "comparison_direction",
                         enum_word(p, code == HLX_OP_COMPARE
                                          ? "comparison_direction"
                                          : "chlo.comparison_direction")))
          return false;
        if (!expect_punct(p, ",", "','")) return false;
      }
      if (!ob_add_operand(p, b, parse_value_use(p))) return false;
      if (!expect_punct(p, ",", "','")) return false;
      if (!ob_add_operand(p, b, parse_value_use(p))) return false;
      if (accept_punct(p, ",")) {
        if (!ob_add_attr(p, b, "compare_type",
                         enum_word(p, code == HLX_OP_COMPARE ? "comparison_type"
                                                             : "chlo.comparison_type")))
          return false;
      }
      if (!opt_attr_dict(p, b)) return false;
      return finish_with_signature(p, b, code);
    }
    case HLX_OP_REDUCE:
      if (peek_punct(p, "(")) return parse_reduce(p, b, name_tok);
      break;
    case HLX_OP_WHILE:
      if (peek_punct(p, "(")) return parse_while(p, b);
      break;
    case HLX_OP_CHLO_SCAN:
      return parse_scan(p, b);
    case HLX_OP_CONVOLUTION:
      if (peek_punct(p, "(")) return parse_convolution(p, b);
      break;
    case HLX_OP_CHLO_TOP_K:
      if (!expect_punct(p, "(", "'('")) return false;
      if (!parse_items(p, b, code, &dd)) return false;
      if (!expect_punct(p, ")", "')'")) return false;
      if (!opt_attr_dict(p, b)) return false;
      return finish_with_signature(p, b, code);
    case HLX_OP_CHECK_EXPECT_EQ_CONST:
    case HLX_OP_CHECK_EXPECT_ALMOST_EQ_CONST: {
      if (!ob_add_operand(p, b, parse_value_use(p))) return false;
      if (!expect_punct(p, ",", "','")) return false;
      hlx_attr_t* v = parse_attr(p, false);
      if (!v) return false;
      if (!ob_add_attr(p, b, "value", v)) return false;
      while (accept_punct(p, ",")) {
        if (!peek_kw(p)) return perr_tok(p, lx_peek(&p->lx), "'name = value'");
        if (!parse_kw_item(p, b, code, &dd)) return false;
      }
      if (!opt_attr_dict(p, b)) return false;
      return ob_set_results(p, b, NULL, 0);
    }
    default:
      break;
  }
  /* Default: operands and `kw = value` items, attr-dict, signature. */
  if (!parse_items(p, b, code, &dd)) return false;
  if (!finish_dot_dims(p, b, &dd)) return false;
  if (!opt_attr_dict(p, b)) return false;
  if (peek_punct(p, "(") || peek_punct(p, "{")) {
    return perr_unsupported(p, lx_peek(&p->lx), "pretty form of this op at");
  }
  return finish_with_signature(p, b, code);
}
