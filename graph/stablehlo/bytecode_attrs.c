/* Attribute and type entries of MLIR bytecode: references by index are
 * decoded on first use and memoized (a reference cycle or nesting deeper
 * than HLX_BC_MAX_DEPTH is an error), dispatched to the owning dialect's
 * decoder or the assembly-text fallback. Also the value helpers the
 * dialect decoders share: APInt/APFloat values and tensor element data. */
#include <stdio.h>
#include <string.h>

#include "base/float_formats.h"
#include "graph/stablehlo/bytecode_internal.h"

/* ---- Entries -------------------------------------------------------------------- */
/* Assembly text kept verbatim must at least look like assembly: printable,
 * strings closed, brackets balanced (`->` aside). */
static bool well_formed_text(const char* t, size_t n) {
  int depth[4] = {0, 0, 0, 0};
  static const char kOpen[] = "([{<", kClose[] = ")]}>";
  bool in_str = false;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)t[i];
    if (c < 0x20 || c == 0x7f) return false;
    if (in_str) {
      if (c == '\\' && i + 1 < n) i++;
      else if (c == '"') in_str = false;
      continue;
    }
    if (c == '"') {
      in_str = true;
      continue;
    }
    for (int k = 0; k < 4; k++) {
      if (c == (unsigned char)kOpen[k]) depth[k]++;
      if (c == (unsigned char)kClose[k] && !(k == 3 && i > 0 && t[i - 1] == '-') &&
          --depth[k] < 0)
        return false;
    }
  }
  return !in_str && !depth[0] && !depth[1] && !depth[2] && !depth[3];
}

static void* decode_entry(hlx_bc_t* bc, bool is_type, hlx_bc_entry_t* e,
                          hlx_bc_stream_t* s) {
  hlx_bc_dialect_kind_t d = bc->dialects[e->dialect].kind;
  if (!e->custom) { /* the MLIR assembly form, NUL-terminated */
    const char* text;
    size_t len = 0;
    if (!hlx_bc_cstring(bc, s, &text, &len)) return NULL;
    if (!well_formed_text(text, len)) {
      hlx_bc_fail(bc, s, "expected %s in assembly form, got malformed text",
                  is_type ? "a type" : "an attribute");
      return NULL;
    }
    if (is_type) return hlx_bc_parse_type_text(bc, s, text);
    hlx_bc_attr_t* a = hlx_bc_new_attr(bc, HLX_BC_ATTR_TEXT);
    if (!a) return NULL;
    a->str = hlx_arena_strndup(&bc->m->arena, text, len);
    a->len = len;
    if (!a->str) hlx_bc_oom(bc);
    return a->str ? a : NULL;
  }
  if (d == HLX_BC_DIALECT_BUILTIN)
    return is_type ? (void*)hlx_bc_decode_builtin_type(bc, s)
                   : (void*)hlx_bc_decode_builtin_attr(bc, s);
  if (d == HLX_BC_DIALECT_VHLO)
    return is_type ? (void*)hlx_bc_decode_vhlo_type(bc, s)
                   : (void*)hlx_bc_decode_vhlo_attr(bc, s);
  if (d == HLX_BC_DIALECT_SDY && !is_type) return hlx_bc_decode_sdy_attr(bc, s);
  const hlx_bc_str_t* name = bc->dialects[e->dialect].name;
  hlx_bc_unsupported(bc, s, "%s of dialect '%.*s' in that dialect's own bytecode "
                     "encoding", is_type ? "type" : "attribute", (int)name->n, name->p);
  return NULL;
}

static void* resolve(hlx_bc_t* bc, const hlx_bc_stream_t* s, bool is_type,
                     uint64_t index) {
  if (bc->err) return NULL;
  uint64_t n = is_type ? bc->ntypes : bc->nattrs;
  const char* kind = is_type ? "type" : "attribute";
  if (index >= n) {
    hlx_bc_fail(bc, s, "%s index %llu out of range (%llu %ss)", kind,
                (unsigned long long)index, (unsigned long long)n, kind);
    return NULL;
  }
  hlx_bc_entry_t* e = is_type ? &bc->types[index] : &bc->attrs[index];
  if (e->state == 2) return e->value;
  if (e->state == 1) {
    hlx_bc_fail(bc, s, "%s #%llu refers to itself", kind, (unsigned long long)index);
    return NULL;
  }
  if (bc->depth >= HLX_BC_MAX_DEPTH) {
    hlx_bc_unsupported(bc, s, "attributes and types nested deeper than %d",
                       HLX_BC_MAX_DEPTH);
    return NULL;
  }
  char* what = hlx_bc_scratch(bc, 48, 1);
  if (!what) return NULL;
  snprintf(what, 48, "%s #%llu", kind, (unsigned long long)index);
  hlx_bc_stream_t es = hlx_bc_stream(e->p, e->n, what);
  e->state = 1;
  bc->depth++;
  void* v = decode_entry(bc, is_type, e, &es);
  bc->depth--;
  if (!v || !hlx_bc_expect_end(bc, &es)) return NULL;
  e->state = 2;
  e->value = v;
  return v;
}

hlx_bc_attr_t* hlx_bc_attr_at(hlx_bc_t* bc, const hlx_bc_stream_t* s,
                              uint64_t index) {
  return resolve(bc, s, false, index);
}

hlx_bc_type_t* hlx_bc_type_at(hlx_bc_t* bc, const hlx_bc_stream_t* s,
                              uint64_t index) {
  return resolve(bc, s, true, index);
}

hlx_bc_attr_t* hlx_bc_attr_ref(hlx_bc_t* bc, hlx_bc_stream_t* s) {
  hlx_bc_stream_t at = *s;
  uint64_t i = 0;
  if (!hlx_bc_varint(bc, s, &i)) return NULL;
  return hlx_bc_attr_at(bc, &at, i);
}

hlx_bc_type_t* hlx_bc_type_ref(hlx_bc_t* bc, hlx_bc_stream_t* s) {
  hlx_bc_stream_t at = *s;
  uint64_t i = 0;
  if (!hlx_bc_varint(bc, s, &i)) return NULL;
  return hlx_bc_type_at(bc, &at, i);
}

bool hlx_bc_skip_attr_ref(hlx_bc_t* bc, hlx_bc_stream_t* s) {
  hlx_bc_stream_t at = *s;
  uint64_t i = 0;
  if (!hlx_bc_varint(bc, s, &i)) return false;
  if (i >= bc->nattrs)
    return hlx_bc_fail(bc, &at, "attribute index %llu out of range (%llu attributes)",
                       (unsigned long long)i, (unsigned long long)bc->nattrs);
  return true;
}

/* ---- Shared decoding helpers ----------------------------------------------------------- */
hlx_bc_attr_t* hlx_bc_new_attr(hlx_bc_t* bc, hlx_bc_attr_kind_t kind) {
  hlx_bc_attr_t* a = hlx_bc_scratch(bc, 1, sizeof(*a));
  if (!a) return NULL;
  a->kind = kind;
  a->tree = 1;
  return a;
}

static uint64_t add_sat(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

bool hlx_bc_attr_list(hlx_bc_t* bc, hlx_bc_stream_t* s, hlx_bc_attr_t* a) {
  uint32_t n = 0;
  if (!hlx_bc_count(bc, s, 1, "attribute list", &n)) return false;
  a->items = hlx_bc_scratch(bc, n, sizeof(hlx_bc_attr_t*));
  if (!a->items) return false;
  for (uint32_t i = 0; i < n; i++) {
    if (!(a->items[i] = hlx_bc_attr_ref(bc, s))) return false;
    a->tree = add_sat(a->tree, a->items[i]->tree);
  }
  a->n = (int32_t)n;
  return true;
}

bool hlx_bc_apint(hlx_bc_t* bc, hlx_bc_stream_t* s, int bits, uint64_t* out) {
  if (bits <= 8) {
    uint8_t b = 0;
    if (!hlx_bc_byte(bc, s, &b)) return false;
    *out = b;
    return true;
  }
  if (bits > 64) return hlx_bc_unsupported(bc, s, "integers wider than 64 bits");
  int64_t v = 0;
  if (!hlx_bc_svarint(bc, s, &v)) return false;
  *out = (uint64_t)v;
  return true;
}

static bool scalar_of(hlx_bc_t* bc, hlx_bc_stream_t* s, const hlx_bc_type_t* t,
                      const char* what) {
  if (t->kind == HLX_BC_TYPE_SCALAR && t->t) return true;
  return hlx_bc_fail(bc, s, "expected a scalar type for %s, got %s", what,
                     t->name ? t->name : "a shaped type");
}

bool hlx_bc_int_value(hlx_bc_t* bc, hlx_bc_stream_t* s, const hlx_bc_type_t* t,
                      hlx_bc_attr_t* a) {
  if (!scalar_of(bc, s, t, "an integer")) return false;
  hlx_dtype_t dt = t->t->dtype;
  if (!hlx_dtype_is_int(dt) && dt != HLX_DTYPE_PRED)
    return hlx_bc_fail(bc, s, "expected an integer type, got %s", t->name);
  int bits = t->index ? 64 : hlx_dtype_bits(dt);
  uint64_t v = 0;
  if (!hlx_bc_apint(bc, s, bits, &v)) return false;
  if (bits < 64) {
    uint64_t mask = ((uint64_t)1 << bits) - 1;
    v &= mask;
    if (hlx_dtype_is_signed_int(dt) && (v >> (bits - 1)) & 1) v |= ~mask;
  }
  a->i = (int64_t)v;
  return true;
}

bool hlx_bc_float_value(hlx_bc_t* bc, hlx_bc_stream_t* s,
                        const hlx_bc_type_t* t, double* out) {
  if (!scalar_of(bc, s, t, "a float")) return false;
  hlx_dtype_t dt = t->t->dtype;
  if (!hlx_dtype_is_float(dt))
    return hlx_bc_fail(bc, s, "expected a float type, got %s", t->name);
  uint64_t bits = 0;
  if (!hlx_bc_apint(bc, s, hlx_dtype_bits(dt), &bits)) return false;
  if (dt == HLX_DTYPE_F64) {
    memcpy(out, &bits, 8);
  } else if (dt == HLX_DTYPE_F32) {
    uint32_t b = (uint32_t)bits;
    float f;
    memcpy(&f, &b, 4);
    *out = f;
  } else {
    *out = hlx_small_float_to_f64(dt, (uint32_t)bits);
  }
  return true;
}

/* Element data of a tensor attribute: checks the size against the type
 * (whole tensor or one splat element), unpacking bit-packed i1 data. */
static bool tensor_data(hlx_bc_t* bc, hlx_bc_stream_t* s, hlx_bc_attr_t* a,
                        const uint8_t* blob, size_t n) {
  const hlx_bc_type_t* t = a->type;
  if (t->kind != HLX_BC_TYPE_TENSOR)
    return hlx_bc_fail(bc, s, "expected a tensor type for dense data");
  int64_t count = hlx_type_num_elements(t->t);
  if (count < 0)
    return hlx_bc_unsupported(bc, s, "dense data of a dynamic or huge shape");
  size_t esz = hlx_dtype_size(t->t->dtype);
  if ((uint64_t)count > ((uint64_t)1 << 30) / esz)
    return hlx_bc_unsupported(bc, s, "dense data of %lld elements (over 1 GiB)",
                              (long long)count);
  size_t full = (size_t)count * esz;
  if (t->t->dtype == HLX_DTYPE_PRED && n == ((size_t)count + 7) / 8 &&
      n != (size_t)count) { /* bit-packed booleans */
    uint8_t* u = hlx_bc_scratch(bc, (size_t)count, 1);
    if (!u) return false;
    for (int64_t i = 0; i < count; i++) u[i] = (blob[i / 8] >> (i % 8)) & 1;
    blob = u;
    n = (size_t)count;
  }
  if (!(n == full || (n == esz && count > 0)))
    return hlx_bc_fail(bc, s, "dense data has %zu bytes, the type needs %zu "
                       "(or %zu for a splat)", n, full, esz);
  a->data = blob;
  a->nbytes = n;
  return true;
}

hlx_bc_attr_t* hlx_bc_tensor_attr(hlx_bc_t* bc, hlx_bc_stream_t* s) {
  hlx_bc_attr_t* a = hlx_bc_new_attr(bc, HLX_BC_ATTR_TENSOR);
  uint64_t len = 0;
  const uint8_t* blob;
  if (!a || !(a->type = hlx_bc_type_ref(bc, s)) || !hlx_bc_varint(bc, s, &len) ||
      !hlx_bc_bytes(bc, s, (size_t)len, &blob))
    return NULL;
  return tensor_data(bc, s, a, blob, (size_t)len) ? a : NULL;
}

hlx_bc_attr_t* hlx_bc_string_attr(hlx_bc_t* bc, hlx_bc_stream_t* s) {
  const hlx_bc_str_t* str;
  hlx_bc_attr_t* a = hlx_bc_new_attr(bc, HLX_BC_ATTR_STRING);
  if (!a || !hlx_bc_string_ref(bc, s, &str)) return NULL;
  char* copy = hlx_bc_irmem(bc, str->n + 1, 1);
  if (!copy) return NULL;
  memcpy(copy, str->p, str->n);
  a->str = copy;
  a->len = str->n;
  return a;
}
