/* Attribute dictionaries of version-2 host calls (graph/lower/host_call.h): a
 * custom_call's attributes become typed entries once, when the op is
 * lowered, and the hlx_attrs_* getters (api/host_call.c) read them. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/float_formats.h"
#include "graph/lower/host_call.h"
#include "graph/lower/ctx.h"

const hlx_host_attr_t* hlx_host_attrs_find(const hlx_attrs_t* a,
                                           const char* name) {
  for (int32_t i = 0; i < a->count; i++)
    if (strcmp(a->entries[i].name, name) == 0) return &a->entries[i];
  return NULL;
}

/* ---- Element values ---------------------------------------------------- */

/* Integer (or i1) element at p, widened. */
static int64_t elem_int(hlx_dtype_t t, const void* p) {
  bool s = hlx_dtype_is_signed_int(t);
  switch (hlx_dtype_size(t)) {
    case 1: return s ? *(const int8_t*)p : *(const uint8_t*)p;
    case 2: return s ? *(const int16_t*)p : *(const uint16_t*)p;
    case 4: return s ? *(const int32_t*)p : (int64_t) * (const uint32_t*)p;
    default: {
      int64_t v;
      memcpy(&v, p, sizeof v);
      return v;
    }
  }
}

/* A float of type t from its bit pattern. */
static double float_from_bits(hlx_dtype_t t, uint64_t bits) {
  if (t == HLX_DTYPE_F64) {
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
  }
  if (t == HLX_DTYPE_F32) {
    uint32_t b = (uint32_t)bits;
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
  }
  return hlx_small_float_to_f64(t, (uint32_t)bits);
}

/* Float element at p. */
static double elem_float(hlx_dtype_t t, const void* p) {
  uint64_t bits = 0;
  memcpy(&bits, p, hlx_dtype_size(t)); /* little-endian hosts */
  return float_from_bits(t, bits);
}

/* ---- Conversion -------------------------------------------------------- */

/* How errors name the op's own dictionary. */
static const char kOpWhat[] = "the op";

typedef struct conv_t {
  hlx_lower_ctx_t* c;
  const char* target;
} conv_t;

static hlx_status_t convert_dict(conv_t* v, const char* what,
                                 const hlx_named_attr_t* items, int32_t n,
                                 int32_t extra, hlx_attrs_t** out);

static void* conv_alloc(conv_t* v, size_t n, size_t size) {
  return hlx_lower_alloc(v->c, (n ? n : 1) * size);
}

/* INT_ARRAY / FLOAT_ARRAY of n elements of dt at data (size-strided). */
static hlx_status_t numbers(conv_t* v, hlx_dtype_t dt, const void* data,
                            int64_t n, hlx_host_attr_t* e) {
  e->dtype = dt;
  e->count = n;
  size_t es = hlx_dtype_size(dt);
  if (hlx_dtype_is_float(dt)) {
    double* f = conv_alloc(v, (size_t)n, sizeof(double));
    if (!f) return hlx_status_oom();
    for (int64_t k = 0; k < n; k++)
      f[k] = elem_float(dt, (const char*)data + (size_t)k * es);
    e->type = HLX_HOST_ATTR_FLOAT_ARRAY;
    e->floats = f;
    return NULL;
  }
  if (!hlx_dtype_is_int(dt) && !hlx_dtype_is_pred(dt)) {
    e->type = HLX_HOST_ATTR_OTHER; /* complex */
    return NULL;
  }
  int64_t* i = conv_alloc(v, (size_t)n, sizeof(int64_t));
  if (!i) return hlx_status_oom();
  for (int64_t k = 0; k < n; k++)
    i[k] = elem_int(dt, (const char*)data + (size_t)k * es);
  e->type = HLX_HOST_ATTR_INT_ARRAY;
  e->ints = i;
  return NULL;
}

/* One number of an `array<T: ...>` text into *bits (the value's bytes as
 * T stores them); false when s does not start with one. */
static bool parse_number(hlx_dtype_t dt, const char** s, uint64_t* bits) {
  const char* p = *s;
  while (isspace((unsigned char)*p)) p++;
  char* end;
  errno = 0;
  if (hlx_dtype_is_float(dt) && strncmp(p, "0x", 2) != 0) {
    double d = strtod(p, &end);
    float f = (float)d;
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    if (dt == HLX_DTYPE_F64) memcpy(bits, &d, sizeof d);
    else if (dt == HLX_DTYPE_F32) *bits = b;
    else *bits = hlx_f64_to_small_float(dt, d);
  } else if (hlx_dtype_is_signed_int(dt)) {
    *bits = (uint64_t)strtoll(p, &end, 0);
  } else {
    *bits = strtoull(p, &end, 0); /* unsigned, or a float's hex bits */
  }
  *s = end;
  return end != p && errno == 0;
}

/* `array<T: v, ...>` kept as text by the parser (T other than i1..i64):
 * the numbers of T, else OTHER. */
static hlx_status_t array_text(conv_t* v, const char* s, hlx_host_attr_t* e) {
  e->type = HLX_HOST_ATTR_OTHER;
  if (strncmp(s, "array<", 6) != 0) return NULL;
  s += 6;
  size_t n = strcspn(s, ":>");
  size_t name_len = n;
  while (name_len && isspace((unsigned char)s[name_len - 1])) name_len--;
  hlx_dtype_t dt = hlx_dtype_from_name(s, name_len);
  if (dt == HLX_DTYPE_INVALID || hlx_dtype_is_complex(dt)) return NULL;
  s += n;
  size_t cap = strlen(s) / 2 + 1;
  uint64_t* bits = malloc(cap * sizeof(uint64_t));
  if (!bits) return hlx_status_oom();
  int64_t count = 0;
  bool ok = true;
  if (*s == ':') {
    s++;
    do {
      ok = (size_t)count < cap && parse_number(dt, &s, &bits[count++]);
      while (ok && isspace((unsigned char)*s)) s++;
    } while (ok && *s++ == ',');
    ok = ok && s[-1] == '>' && *s == '\0';
  } else {
    ok = strcmp(s, ">") == 0;
  }
  /* Re-read the stored values at their own width (little-endian). */
  size_t es = hlx_dtype_size(dt);
  for (int64_t k = 0; ok && k < count; k++)
    memmove((char*)bits + k * es, &bits[k], es);
  hlx_status_t st = ok ? numbers(v, dt, bits, count, e) : NULL;
  free(bits);
  return st;
}

/* [a, b, ...]: ints, floats or strings when every item is one, else
 * OTHER. */
static hlx_status_t convert_array(conv_t* v, const hlx_attr_t* a,
                                  hlx_host_attr_t* e) {
  hlx_attr_kind_t k0 = a->count ? a->items[0]->kind : HLX_ATTR_INT;
  bool ints = true, floats = true, strs = true;
  for (int32_t i = 0; i < a->count; i++) {
    hlx_attr_kind_t k = a->items[i]->kind;
    ints = ints && (k == HLX_ATTR_INT || k == HLX_ATTR_BOOL) && k == k0;
    floats = floats && k == HLX_ATTR_FLOAT;
    strs = strs && (k == HLX_ATTR_STRING || k == HLX_ATTR_SYMBOL);
  }
  e->count = a->count;
  const hlx_type_t* t0 = a->count ? a->items[0]->type : NULL;
  if (ints || floats) {
    e->dtype = k0 == HLX_ATTR_BOOL ? HLX_DTYPE_PRED
               : t0               ? t0->dtype
               : floats           ? HLX_DTYPE_F64
                                  : HLX_DTYPE_S64;
    size_t n = (size_t)a->count;
    int64_t* iv = ints ? conv_alloc(v, n, sizeof(int64_t)) : NULL;
    double* fv = ints ? NULL : conv_alloc(v, n, sizeof(double));
    if (!iv && !fv) return hlx_status_oom();
    for (int32_t i = 0; i < a->count; i++) {
      const hlx_attr_t* x = a->items[i];
      if (iv) iv[i] = x->kind == HLX_ATTR_BOOL ? x->b : x->i;
      else fv[i] = x->f;
    }
    e->type = ints ? HLX_HOST_ATTR_INT_ARRAY : HLX_HOST_ATTR_FLOAT_ARRAY;
    e->ints = iv;
    e->floats = fv;
    return NULL;
  }
  if (!strs) {
    e->type = HLX_HOST_ATTR_OTHER;
    return NULL;
  }
  const char** sv = conv_alloc(v, (size_t)a->count, sizeof(char*));
  if (!sv) return hlx_status_oom();
  for (int32_t i = 0; i < a->count; i++) sv[i] = a->items[i]->str;
  e->type = HLX_HOST_ATTR_STRING_ARRAY;
  e->strs = sv;
  return NULL;
}

static hlx_status_t convert(conv_t* v, const char* what, const char* name,
                            const hlx_attr_t* a, hlx_host_attr_t* e) {
  memset(e, 0, sizeof *e);
  e->name = name;
  const hlx_type_t* t = a->type;
  switch (a->kind) {
    case HLX_ATTR_UNIT:
    case HLX_ATTR_BOOL:
      e->type = HLX_HOST_ATTR_BOOL;
      e->dtype = HLX_DTYPE_PRED;
      e->b = a->kind == HLX_ATTR_UNIT || a->b;
      return NULL;
    case HLX_ATTR_INT:
      e->type = HLX_HOST_ATTR_INT;
      e->dtype = t && !t->is_index ? t->dtype : HLX_DTYPE_S64;
      e->i = a->i;
      return NULL;
    case HLX_ATTR_FLOAT:
      e->type = HLX_HOST_ATTR_FLOAT;
      e->dtype = t ? t->dtype : HLX_DTYPE_F64;
      e->f = a->f;
      return NULL;
    case HLX_ATTR_STRING:
    case HLX_ATTR_SYMBOL:
      e->type = HLX_HOST_ATTR_STRING;
      e->str = a->str;
      e->len = a->kind == HLX_ATTR_STRING ? a->len : strlen(a->str);
      return NULL;
    case HLX_ATTR_I64_ARRAY:
      e->type = HLX_HOST_ATTR_INT_ARRAY;
      e->dtype = t ? t->dtype : HLX_DTYPE_S64;
      e->count = a->count;
      e->ints = a->ints;
      return NULL;
    case HLX_ATTR_DENSE:
      return numbers(v, t->is_index ? HLX_DTYPE_S64 : t->dtype, a->dense,
                     hlx_type_num_elements(t), e);
    case HLX_ATTR_ARRAY:
      return convert_array(v, a, e);
    case HLX_ATTR_OPAQUE:
      return array_text(v, a->str, e);
    case HLX_ATTR_DICT: {
      /* The op's own attributes are named alone: mhlo.backend_config,
       * then mhlo.backend_config.x for a dictionary inside it. */
      bool top = strcmp(what, kOpWhat) == 0;
      char* sub = conv_alloc(v, strlen(what) + strlen(name) + 2, 1);
      if (!sub) return hlx_status_oom();
      sprintf(sub, "%s%s%s", top ? "" : what, top ? "" : ".", name);
      hlx_attrs_t* d;
      HLX_RETURN_IF_ERROR(convert_dict(v, sub, a->dict, a->count, 0, &d));
      e->type = HLX_HOST_ATTR_DICT;
      e->dict = d;
      return NULL;
    }
    default:
      e->type = HLX_HOST_ATTR_OTHER;
      return NULL;
  }
}

/* A dictionary of items[0..n), with room for `extra` more entries. */
static hlx_status_t convert_dict(conv_t* v, const char* what,
                                 const hlx_named_attr_t* items, int32_t n,
                                 int32_t extra, hlx_attrs_t** out) {
  hlx_attrs_t* d = conv_alloc(v, 1, sizeof *d);
  hlx_host_attr_t* es = conv_alloc(v, (size_t)(n + extra), sizeof *es);
  if (!d || !es) return hlx_status_oom();
  for (int32_t i = 0; i < n; i++)
    HLX_RETURN_IF_ERROR(
        convert(v, what, items[i].name, items[i].value, &es[i]));
  d->target = v->target;
  d->what = what;
  d->count = n;
  d->entries = es;
  *out = d;
  return NULL;
}

/* Appends e to d (which has room) unless d has an entry of its name. */
static void add_default(hlx_attrs_t* d, hlx_host_attr_t e) {
  if (hlx_host_attrs_find(d, e.name)) return;
  ((hlx_host_attr_t*)d->entries)[d->count++] = e;
}

hlx_status_t hlx_host_attrs_build(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                  const char* target,
                                  const hlx_attrs_t** ffi,
                                  const hlx_attrs_t** all) {
  conv_t v = {c, target};
  hlx_attrs_t* d;
  HLX_RETURN_IF_ERROR(
      convert_dict(&v, kOpWhat, op->attrs, op->num_attrs, 4, &d));
  add_default(d, (hlx_host_attr_t){.name = "backend_config",
                                   .type = HLX_HOST_ATTR_STRING,
                                   .str = ""});
  add_default(d, (hlx_host_attr_t){.name = "api_version",
                                   .type = HLX_HOST_ATTR_INT,
                                   .dtype = HLX_DTYPE_S32, .i = 1});
  add_default(d, (hlx_host_attr_t){.name = "has_side_effect",
                                   .type = HLX_HOST_ATTR_BOOL,
                                   .dtype = HLX_DTYPE_PRED});
  add_default(d, (hlx_host_attr_t){.name = "called_computations",
                                   .type = HLX_HOST_ATTR_STRING_ARRAY});
  *all = d;
  const hlx_host_attr_t* cfg = hlx_host_attrs_find(d, "mhlo.backend_config");
  if (!cfg || cfg->type != HLX_HOST_ATTR_DICT)
    cfg = hlx_host_attrs_find(d, "backend_config");
  if (cfg->type == HLX_HOST_ATTR_DICT) {
    *ffi = cfg->dict;
    return NULL;
  }
  hlx_attrs_t* none; /* a string backend_config: no FFI attributes */
  HLX_RETURN_IF_ERROR(convert_dict(&v, "backend_config", NULL, 0, 0, &none));
  *ffi = none;
  return NULL;
}
