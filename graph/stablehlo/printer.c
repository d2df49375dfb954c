/* hlx IR -> MLIR generic-form text. */
#include "graph/stablehlo/printer.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/float_formats.h"

typedef struct buf_t {
  char* s;
  size_t n, cap;
  bool oom;
  bool bad_ids; /* a value id outside 0..num_values-1 */
  int depth;
  int32_t* names;  /* value id -> printed number (current function) */
  int32_t nnames;
} buf_t;

static void put(buf_t* b, const char* s, size_t n) {
  if (b->oom) return;
  if (b->n + n + 1 > b->cap) {
    size_t nc = b->cap ? b->cap : 4096;
    while (nc < b->n + n + 1) {
      if (nc > SIZE_MAX / 2) {
        b->oom = true;
        return;
      }
      nc *= 2;
    }
    char* ns = realloc(b->s, nc);
    if (!ns) {
      b->oom = true;
      return;
    }
    b->s = ns;
    b->cap = nc;
  }
  memcpy(b->s + b->n, s, n);
  b->n += n;
  b->s[b->n] = 0;
}

static void puts_(buf_t* b, const char* s) { put(b, s, strlen(s)); }

static void putf(buf_t* b, const char* fmt, ...) HLX_PRINTF(2, 3);
static void putf(buf_t* b, const char* fmt, ...) {
  char tmp[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n < 0) {
    b->oom = true;
    return;
  }
  if ((size_t)n < sizeof tmp) {
    put(b, tmp, (size_t)n);
    return;
  }
  char* big = malloc((size_t)n + 1);
  if (!big) {
    b->oom = true;
    return;
  }
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  put(b, big, (size_t)n);
  free(big);
}

static void indent(buf_t* b, int n) {
  for (int i = 0; i < n; i++) put(b, "  ", 2);
}

/* Shortest decimal that reads back as the same double, always with a '.'
 * so MLIR lexes it as a float. Non-finite values are not handled here. */
static void fmt_double(double d, char* out, size_t n) {
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(out, n, "%.*g", prec, d);
    if (strtod(out, NULL) == d) break;
  }
  if (strchr(out, '.') || strchr(out, 'n') || strchr(out, 'i')) return;
  char* e = strchr(out, 'e');
  char tmp[64];
  if (e) {
    snprintf(tmp, sizeof tmp, "%.*s.0%s", (int)(e - out), out, e);
  } else {
    snprintf(tmp, sizeof tmp, "%s.0", out);
  }
  snprintf(out, n, "%s", tmp);
}

static bool is_bare_id(const char* s, size_t n) {
  if (n == 0) return false;
  char c = s[0];
  if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'))
    return false;
  for (size_t i = 1; i < n; i++) {
    c = s[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9') || c == '_' || c == '$' || c == '.'))
      return false;
  }
  return true;
}

static void put_string(buf_t* b, const char* s, size_t n) {
  put(b, "\"", 1);
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') {
      char t[2] = {'\\', (char)c};
      put(b, t, 2);
    } else if (c >= 32 && c < 127) {
      put(b, (const char*)&c, 1);
    } else {
      putf(b, "\\%02X", c);
    }
  }
  put(b, "\"", 1);
}

static void put_symbol(buf_t* b, const char* s) {
  put(b, "@", 1);
  size_t n = strlen(s);
  bool ok = n > 0;
  for (size_t i = 0; ok && i < n; i++) {
    char c = s[i];
    ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '$' || c == '.' ||
         c == '-' || (c == ':' && i + 2 < n && s[i + 1] == ':' && s[i + 2] == '@') ||
         (c == ':' && i > 0 && s[i - 1] == ':') || (c == '@' && i > 1 && s[i - 1] == ':');
    if (i == 0 && c >= '0' && c <= '9') ok = false;
  }
  if (ok) puts_(b, s);
  else put_string(b, s, n);
}

static void put_name(buf_t* b, const char* s) {
  size_t n = strlen(s);
  if (is_bare_id(s, n)) put(b, s, n);
  else put_string(b, s, n);
}

/* ---- Types ------------------------------------------------------------------ */
static void print_type(buf_t* b, const hlx_type_t* t);

/* Element type name of a non-quantized type (`index` for is_index). */
static const char* elem_name(const hlx_type_t* t) {
  return t->is_index ? "index" : hlx_dtype_name(t->dtype);
}

static void print_elem(buf_t* b, const hlx_type_t* t) {
  const hlx_quant_t* q = t->quant;
  if (!q) {
    puts_(b, elem_name(t));
    return;
  }
  puts_(b, "!quant.uniform<");
  if (hlx_dtype_is_unsigned_int(q->storage)) putf(b, "u%d", hlx_dtype_bits(q->storage));
  else puts_(b, hlx_dtype_name(q->storage));
  if (q->has_storage_range)
    putf(b, "<%" PRId64 ":%" PRId64 ">", q->storage_min, q->storage_max);
  putf(b, ":%s", hlx_dtype_name(q->expressed));
  if (q->quantized_dimension >= 0) putf(b, ":%d", q->quantized_dimension);
  puts_(b, ", ");
  bool per_axis = q->quantized_dimension >= 0;
  if (per_axis) puts_(b, "{");
  for (int32_t i = 0; i < q->num_scales; i++) {
    char d[64];
    fmt_double(q->scales[i], d, sizeof d);
    if (i) puts_(b, ",");
    putf(b, "%s:%" PRId64, d, q->zero_points[i]);
  }
  if (per_axis) puts_(b, "}");
  puts_(b, ">");
}

static void print_type(buf_t* b, const hlx_type_t* t) {
  if (!t) {
    puts_(b, "<<null type>>");
    return;
  }
  switch (t->kind) {
    case HLX_TYPE_TOKEN:
      puts_(b, "!stablehlo.token");
      return;
    case HLX_TYPE_TUPLE:
      puts_(b, t->is_future ? "!stablehlo.future<" : "tuple<");
      for (int32_t i = 0; i < t->num_elems; i++) {
        if (i) puts_(b, ", ");
        print_type(b, t->elems[i]);
      }
      puts_(b, ">");
      return;
    case HLX_TYPE_TENSOR:
      puts_(b, "tensor<");
      for (int32_t i = 0; i < t->rank; i++) {
        if (t->dims[i] == HLX_DYNAMIC_DIM) puts_(b, "?x");
        else putf(b, "%" PRId64 "x", t->dims[i]);
      }
      print_elem(b, t);
      if (t->bounds) {
        puts_(b, ", #stablehlo.bounds<");
        for (int32_t i = 0; i < t->rank; i++) {
          if (i) puts_(b, ", ");
          if (t->bounds[i] == HLX_DYNAMIC_DIM) puts_(b, "?");
          else putf(b, "%" PRId64, t->bounds[i]);
        }
        puts_(b, ">");
      }
      puts_(b, ">");
      return;
  }
}

/* ---- Dense data --------------------------------------------------------------- */
static uint64_t load_le(const uint8_t* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

static void print_scalar_elem(buf_t* b, hlx_dtype_t dt, const uint8_t* p) {
  size_t sz = hlx_dtype_size(dt);
  if (hlx_dtype_is_complex(dt)) {
    hlx_dtype_t part = hlx_dtype_complex_part(dt);
    puts_(b, "(");
    print_scalar_elem(b, part, p);
    puts_(b, ", ");
    print_scalar_elem(b, part, p + sz / 2);
    puts_(b, ")");
    return;
  }
  uint64_t v = load_le(p, sz);
  if (dt == HLX_DTYPE_PRED) {
    puts_(b, v ? "true" : "false");
  } else if (hlx_dtype_is_float(dt)) {
    int digits = (int)sz * 2;
    putf(b, "0x%0*" PRIX64, digits, v);
  } else if (hlx_dtype_is_signed_int(dt)) {
    int bits = (int)sz * 8;
    int64_t s = (int64_t)v;
    if (bits < 64) {
      uint64_t m = (uint64_t)1 << (bits - 1);
      s = (int64_t)((v ^ m) - m);
    }
    putf(b, "%" PRId64, s);
  } else {
    putf(b, "%" PRIu64, v);
  }
}

static void print_dense(buf_t* b, const hlx_attr_t* a) {
  const hlx_type_t* t = a->type;
  size_t esz = t ? hlx_dtype_size(t->dtype) : 0;
  puts_(b, "dense<");
  if (a->dense_bytes > 0 && esz > 0) {
    const uint8_t* d = a->dense;
    size_t n = a->dense_bytes / esz;
    bool splat = true;
    for (size_t i = 1; i < n && splat; i++)
      splat = memcmp(d, d + i * esz, esz) == 0;
    if (splat) {
      print_scalar_elem(b, t->dtype, d);
    } else {
      static const char hex[] = "0123456789ABCDEF";
      puts_(b, "\"0x");
      char chunk[512];
      size_t o = 0;
      for (size_t i = 0; i < a->dense_bytes; i++) {
        chunk[o++] = hex[d[i] >> 4];
        chunk[o++] = hex[d[i] & 15];
        if (o == sizeof chunk) {
          put(b, chunk, o);
          o = 0;
        }
      }
      put(b, chunk, o);
      puts_(b, "\"");
    }
  }
  puts_(b, "> : ");
  print_type(b, t);
}

/* ---- Attributes ----------------------------------------------------------------- */
static void print_attr(buf_t* b, const hlx_attr_t* a, bool in_struct);

static void print_dict_entries(buf_t* b, const hlx_named_attr_t* d, int32_t n,
                               bool in_struct) {
  for (int32_t i = 0; i < n; i++) {
    if (i) puts_(b, ", ");
    put_name(b, d[i].name);
    if (d[i].value && d[i].value->kind == HLX_ATTR_UNIT && !in_struct) continue;
    puts_(b, " = ");
    print_attr(b, d[i].value, in_struct);
  }
}

static void print_float_value(buf_t* b, double f, const hlx_type_t* t) {
  hlx_dtype_t dt = t ? t->dtype : HLX_DTYPE_F64;
  if (isfinite(f)) {
    char d[64];
    fmt_double(f, d, sizeof d);
    puts_(b, d);
    return;
  }
  if (dt == HLX_DTYPE_F64) {
    uint64_t bits;
    memcpy(&bits, &f, 8);
    putf(b, "0x%016" PRIX64, bits);
  } else if (dt == HLX_DTYPE_F32) {
    float x = (float)f;
    uint32_t bits;
    memcpy(&bits, &x, 4);
    putf(b, "0x%08" PRIX32, bits);
  } else {
    uint32_t bits = hlx_f64_to_small_float(dt, f);
    putf(b, "0x%0*" PRIX32, (int)hlx_dtype_size(dt) * 2, bits);
  }
}

static const hlx_attr_t* field(const hlx_attr_t* s, const char* name) {
  for (int32_t i = 0; i < s->count; i++)
    if (strcmp(s->dict[i].name, name) == 0) return s->dict[i].value;
  return NULL;
}

/* Compact conv layout; false when the fields do not form a permutation. */
static bool conv_layout(buf_t* b, const hlx_attr_t* s, const char* f0,
                        const char* f1, const char* fsp, char c0, char c1) {
  const hlx_attr_t* a0 = field(s, f0);
  const hlx_attr_t* a1 = field(s, f1);
  const hlx_attr_t* sp = field(s, fsp);
  if (!a0 || !a1 || !sp || a0->kind != HLX_ATTR_INT || a1->kind != HLX_ATTR_INT ||
      sp->kind != HLX_ATTR_I64_ARRAY || a0->type || a1->type || sp->type)
    return false;
  int32_t rank = sp->count + 2;
  if (rank > HLX_MAX_RANK + 2) return false;
  int slot[HLX_MAX_RANK + 2];
  for (int32_t i = 0; i < rank; i++) slot[i] = -3;
  if (a0->i < 0 || a0->i >= rank || a1->i < 0 || a1->i >= rank) return false;
  slot[a0->i] = -1;
  if (slot[a1->i] != -3) return false;
  slot[a1->i] = -2;
  for (int32_t i = 0; i < sp->count; i++) {
    int64_t pos = sp->ints[i];
    if (pos < 0 || pos >= rank || slot[pos] != -3) return false;
    slot[pos] = i;
  }
  if (!b) return true;
  puts_(b, "[");
  for (int32_t i = 0; i < rank; i++) {
    if (i) puts_(b, ", ");
    if (slot[i] == -1) put(b, &c0, 1);
    else if (slot[i] == -2) put(b, &c1, 1);
    else putf(b, "%d", slot[i]);
  }
  puts_(b, "]");
  return true;
}

static bool print_conv(buf_t* b, const hlx_attr_t* s) {
  if (s->count != 9) return false;
  if (!conv_layout(NULL, s, "input_batch_dimension", "input_feature_dimension",
                   "input_spatial_dimensions", 'b', 'f') ||
      !conv_layout(NULL, s, "kernel_input_feature_dimension",
                   "kernel_output_feature_dimension", "kernel_spatial_dimensions",
                   'i', 'o') ||
      !conv_layout(NULL, s, "output_batch_dimension", "output_feature_dimension",
                   "output_spatial_dimensions", 'b', 'f'))
    return false;
  puts_(b, "#stablehlo.conv<");
  conv_layout(b, s, "input_batch_dimension", "input_feature_dimension",
              "input_spatial_dimensions", 'b', 'f');
  puts_(b, "x");
  conv_layout(b, s, "kernel_input_feature_dimension",
              "kernel_output_feature_dimension", "kernel_spatial_dimensions", 'i',
              'o');
  puts_(b, "->");
  conv_layout(b, s, "output_batch_dimension", "output_feature_dimension",
              "output_spatial_dimensions", 'b', 'f');
  puts_(b, ">");
  return true;
}

static void print_attr(buf_t* b, const hlx_attr_t* a, bool in_struct) {
  if (!a) {
    puts_(b, "unit");
    return;
  }
  if (++b->depth > 300) {
    b->oom = true; /* cannot happen for parsed modules */
    return;
  }
  switch (a->kind) {
    case HLX_ATTR_UNIT:
      puts_(b, "unit");
      break;
    case HLX_ATTR_BOOL:
      puts_(b, a->b ? "true" : "false");
      break;
    case HLX_ATTR_INT:
      if (a->type && hlx_dtype_is_unsigned_int(a->type->dtype))
        putf(b, "%" PRIu64, (uint64_t)a->i);
      else
        putf(b, "%" PRId64, a->i);
      if (a->type) putf(b, " : %s", elem_name(a->type));
      break;
    case HLX_ATTR_FLOAT:
      print_float_value(b, a->f, a->type);
      if (a->type) putf(b, " : %s", hlx_dtype_name(a->type->dtype));
      break;
    case HLX_ATTR_STRING:
      put_string(b, a->str ? a->str : "", a->str ? a->len : 0);
      break;
    case HLX_ATTR_SYMBOL:
      put_symbol(b, a->str ? a->str : "");
      break;
    case HLX_ATTR_TYPE:
      print_type(b, a->type);
      break;
    case HLX_ATTR_ARRAY:
      puts_(b, "[");
      for (int32_t i = 0; i < a->count; i++) {
        if (i) puts_(b, ", ");
        print_attr(b, a->items[i], in_struct);
      }
      puts_(b, "]");
      break;
    case HLX_ATTR_I64_ARRAY: {
      hlx_dtype_t et = a->type ? a->type->dtype : HLX_DTYPE_S64;
      if (in_struct) {
        puts_(b, "[");
      } else {
        putf(b, "array<%s", hlx_dtype_name(et));
        if (a->count > 0) puts_(b, ": ");
      }
      for (int32_t i = 0; i < a->count; i++) {
        if (i) puts_(b, ", ");
        if (et == HLX_DTYPE_PRED && !in_struct) puts_(b, a->ints[i] ? "true" : "false");
        else putf(b, "%" PRId64, a->ints[i]);
      }
      puts_(b, in_struct ? "]" : ">");
      break;
    }
    case HLX_ATTR_DENSE:
      print_dense(b, a);
      break;
    case HLX_ATTR_ELIDED:
      puts_(b, "dense_resource<");
      puts_(b, a->str && a->str[0] ? a->str : "__elided__");
      puts_(b, "> : ");
      print_type(b, a->type);
      break;
    case HLX_ATTR_DICT:
      puts_(b, "{");
      print_dict_entries(b, a->dict, a->count, false);
      puts_(b, "}");
      break;
    case HLX_ATTR_ENUM: {
      const char* k = a->str ? a->str : "";
      const char* dot = strchr(k, '.');
      if (dot) {
        putf(b, "#%.*s<%s %s>", (int)(dot - k), k, dot + 1,
             a->enum_value ? a->enum_value : "");
      } else {
        putf(b, "#stablehlo<%s %s>", k, a->enum_value ? a->enum_value : "");
      }
      break;
    }
    case HLX_ATTR_STRUCT: {
      const char* nm = a->str ? a->str : "";
      if (strcmp(nm, "stablehlo.conv") == 0 && print_conv(b, a)) break;
      putf(b, "#%s<", nm);
      if (strcmp(nm, "stablehlo.conv") == 0) puts_(b, "raw ");
      print_dict_entries(b, a->dict, a->count, true);
      puts_(b, ">");
      break;
    }
    case HLX_ATTR_OPAQUE:
      puts_(b, a->str ? a->str : "unit");
      break;
  }
  b->depth--;
}

static void print_attr_dict(buf_t* b, const hlx_named_attr_t* d, int32_t n) {
  puts_(b, "{");
  print_dict_entries(b, d, n, false);
  puts_(b, "}");
}

/* ---- Ops ---------------------------------------------------------------------- */
static int32_t vname(buf_t* b, const hlx_value_t* v) {
  if (!v || v->id < 0 || v->id >= b->nnames || b->names[v->id] < 0) {
    b->bad_ids = true;
    return 0;
  }
  return b->names[v->id];
}

static void print_value(buf_t* b, const hlx_value_t* v) {
  if (!v) {
    b->bad_ids = true;
    return;
  }
  if (v->def && v->def->num_results > 1)
    putf(b, "%%%d#%d", vname(b, v->def->results[0]), v->index);
  else
    putf(b, "%%%d", vname(b, v));
}

/* Numbers values in the order a parser of the printed text creates them:
 * block arguments, then per op its regions' values, then its results. */
static void number_value(buf_t* b, const hlx_value_t* v, int32_t* next) {
  if (!v || v->id < 0 || v->id >= b->nnames) {
    b->bad_ids = true;
    return;
  }
  b->names[v->id] = (*next)++;
}

static void number_block(buf_t* b, const hlx_block_t* blk, int32_t* next,
                         int depth) {
  if (!blk || depth > 10000) return;
  for (int32_t i = 0; i < blk->num_args; i++) number_value(b, blk->args[i], next);
  for (int32_t i = 0; i < blk->num_ops; i++) {
    const hlx_op_t* op = blk->ops[i];
    for (int32_t r = 0; r < op->num_regions; r++)
      for (int32_t k = 0; op->regions[r] && k < op->regions[r]->num_blocks; k++)
        number_block(b, op->regions[r]->blocks[k], next, depth + 1);
    for (int32_t k = 0; k < op->num_results; k++)
      number_value(b, op->results[k], next);
  }
}

static void print_block(buf_t* b, const hlx_block_t* blk, int ind, bool label);

static void print_op(buf_t* b, const hlx_op_t* op, int ind) {
  indent(b, ind);
  if (op->num_results == 1) {
    putf(b, "%%%d = ", vname(b, op->results[0]));
  } else if (op->num_results > 1) {
    putf(b, "%%%d:%d = ", vname(b, op->results[0]), op->num_results);
  }
  const char* name = op->name && op->name[0] ? op->name : hlx_opcode_name(op->code);
  put_string(b, name, strlen(name));
  puts_(b, "(");
  for (int32_t i = 0; i < op->num_operands; i++) {
    if (i) puts_(b, ", ");
    print_value(b, op->operands[i]);
  }
  puts_(b, ")");
  if (op->num_regions > 0) {
    puts_(b, " (");
    for (int32_t r = 0; r < op->num_regions; r++) {
      if (r) puts_(b, ", ");
      puts_(b, "{\n");
      const hlx_region_t* reg = op->regions[r];
      for (int32_t k = 0; reg && k < reg->num_blocks; k++)
        print_block(b, reg->blocks[k], ind + 1, true);
      indent(b, ind);
      puts_(b, "}");
    }
    puts_(b, ")");
  }
  if (op->num_attrs > 0) {
    puts_(b, " ");
    print_attr_dict(b, op->attrs, op->num_attrs);
  }
  puts_(b, " : (");
  for (int32_t i = 0; i < op->num_operands; i++) {
    if (i) puts_(b, ", ");
    print_type(b, op->operands[i] ? op->operands[i]->type : NULL);
  }
  puts_(b, ") -> ");
  if (op->num_results == 1 && op->results[0]->type &&
      op->results[0]->type->kind != HLX_TYPE_TUPLE) {
    print_type(b, op->results[0]->type);
  } else {
    puts_(b, "(");
    for (int32_t i = 0; i < op->num_results; i++) {
      if (i) puts_(b, ", ");
      print_type(b, op->results[i]->type);
    }
    puts_(b, ")");
  }
  puts_(b, "\n");
}

static void print_block(buf_t* b, const hlx_block_t* blk, int ind, bool label) {
  if (!blk) return;
  if (label && blk->num_args > 0) {
    indent(b, ind - 1);
    puts_(b, "^bb0(");
    for (int32_t i = 0; i < blk->num_args; i++) {
      if (i) puts_(b, ", ");
      print_value(b, blk->args[i]);
      puts_(b, ": ");
      print_type(b, blk->args[i]->type);
    }
    puts_(b, "):\n");
  }
  for (int32_t i = 0; i < blk->num_ops; i++) print_op(b, blk->ops[i], ind);
}

static void print_func(buf_t* b, const hlx_func_t* f, int ind) {
  free(b->names);
  b->nnames = f->num_values > 0 ? f->num_values : 0;
  b->names = malloc(sizeof(int32_t) * (size_t)(b->nnames > 0 ? b->nnames : 1));
  if (!b->names) {
    b->oom = true;
    return;
  }
  for (int32_t i = 0; i < b->nnames; i++) b->names[i] = -1;
  int32_t next = 0;
  if (f->body && f->body->num_blocks > 0) number_block(b, f->body->blocks[0], &next, 0);
  indent(b, ind);
  puts_(b, "func.func ");
  puts_(b, f->is_public ? "public " : "private ");
  put_symbol(b, f->name ? f->name : "");
  puts_(b, "(");
  const hlx_block_t* entry =
      f->body && f->body->num_blocks > 0 ? f->body->blocks[0] : NULL;
  for (int32_t i = 0; i < f->num_args; i++) {
    if (i) puts_(b, ", ");
    if (entry && i < entry->num_args) {
      print_value(b, entry->args[i]);
      puts_(b, ": ");
      print_type(b, entry->args[i]->type);
    } else {
      putf(b, "%%arg%d: <<missing>>", i);
    }
    if (f->num_arg_attrs && f->num_arg_attrs[i] > 0) {
      puts_(b, " ");
      print_attr_dict(b, f->arg_attrs[i], f->num_arg_attrs[i]);
    }
  }
  puts_(b, ")");
  if (f->num_results > 0) {
    puts_(b, " -> (");
    for (int32_t i = 0; i < f->num_results; i++) {
      if (i) puts_(b, ", ");
      print_type(b, f->result_types[i]);
      if (f->num_result_attrs && f->num_result_attrs[i] > 0) {
        puts_(b, " ");
        print_attr_dict(b, f->result_attrs[i], f->num_result_attrs[i]);
      }
    }
    puts_(b, ")");
  }
  if (f->num_attrs > 0) {
    puts_(b, " attributes ");
    print_attr_dict(b, f->attrs, f->num_attrs);
  }
  puts_(b, " {\n");
  print_block(b, entry, ind + 1, false);
  indent(b, ind);
  puts_(b, "}\n");
}

static hlx_status_t finish(buf_t* b, char** out_text, size_t* out_len) {
  free(b->names);
  b->names = NULL;
  if (b->bad_ids) {
    free(b->s);
    *out_text = NULL;
    if (out_len) *out_len = 0;
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "hlx_print_module: value ids must be unique and in "
                           "0..num_values-1 of their function");
  }
  if (b->oom || !b->s) {
    free(b->s);
    *out_text = NULL;
    if (out_len) *out_len = 0;
    return hlx_status_oom();
  }
  *out_text = b->s;
  if (out_len) *out_len = b->n;
  return NULL;
}

hlx_status_t hlx_print_module(const hlx_module_t* m, char** out_text,
                              size_t* out_len) {
  if (!out_text)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "hlx_print_module: NULL output");
  *out_text = NULL;
  if (out_len) *out_len = 0;
  if (!m)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "hlx_print_module: NULL module");
  buf_t b = {0};
  puts_(&b, "module ");
  if (m->name) {
    put_symbol(&b, m->name);
    puts_(&b, " ");
  }
  if (m->num_attrs > 0) {
    puts_(&b, "attributes ");
    print_attr_dict(&b, m->attrs, m->num_attrs);
    puts_(&b, " ");
  }
  puts_(&b, "{\n");
  for (int32_t i = 0; i < m->num_funcs; i++) print_func(&b, m->funcs[i], 1);
  puts_(&b, "}\n");
  return finish(&b, out_text, out_len);
}

hlx_status_t hlx_print_type(const hlx_type_t* t, char** out_text) {
  if (!out_text)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT, "hlx_print_type: NULL output");
  buf_t b = {0};
  print_type(&b, t);
  return finish(&b, out_text, NULL);
}

hlx_status_t hlx_print_attr(const hlx_attr_t* a, char** out_text) {
  if (!out_text)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT, "hlx_print_attr: NULL output");
  buf_t b = {0};
  print_attr(&b, a, false);
  return finish(&b, out_text, NULL);
}
