/* Attributes of the builtin dialect in MLIR bytecode (module attributes,
 * discardable attribute dictionaries, locations, dense and dense_resource
 * elements, dense arrays). Codes are the builtin dialect's attribute
 * encoding order. */
#include <string.h>

#include "graph/stablehlo/bytecode_internal.h"

enum {
  kArray = 0, kDictionary = 1, kString = 2, kStringWithType = 3,
  kFlatSymbolRef = 4, kSymbolRef = 5, kType = 6, kUnit = 7, kInteger = 8,
  kFloat = 9, kCallSiteLoc = 10, kFusedLocWithMetadata = 13, kUnknownLoc = 15,
  kDenseResource = 16, kDenseArray = 17, kDenseElements = 18,
  kDenseStringElements = 19, kSparseElements = 20, kDistinct = 21,
};

static const char* nul_free(hlx_bc_t* bc, hlx_bc_stream_t* s,
                            const hlx_bc_attr_t* a, const char* what) {
  if (a->kind != HLX_BC_ATTR_STRING) {
    hlx_bc_fail(bc, s, "expected a string for %s", what);
    return NULL;
  }
  if (memchr(a->str, 0, a->len)) {
    hlx_bc_unsupported(bc, s, "%s containing a NUL byte", what);
    return NULL;
  }
  return a->str;
}

hlx_bc_attr_t* hlx_bc_decode_dict(hlx_bc_t* bc, hlx_bc_stream_t* s) {
  uint32_t n = 0;
  hlx_bc_attr_t* a = hlx_bc_new_attr(bc, HLX_BC_ATTR_DICT);
  if (!a || !hlx_bc_count(bc, s, 2, "dictionary entry", &n)) return NULL;
  a->items = hlx_bc_scratch(bc, n, sizeof(hlx_bc_attr_t*));
  a->keys = hlx_bc_scratch(bc, n, sizeof(const char*));
  if (!a->items || !a->keys) return NULL;
  for (uint32_t i = 0; i < n; i++) {
    hlx_bc_attr_t* k = hlx_bc_attr_ref(bc, s);
    if (!k || !(a->keys[i] = nul_free(bc, s, k, "an attribute name"))) return NULL;
    if (!(a->items[i] = hlx_bc_attr_ref(bc, s))) return NULL;
    a->tree = a->tree + a->items[i]->tree < a->tree ? UINT64_MAX
                                                    : a->tree + a->items[i]->tree;
  }
  a->n = (int32_t)n;
  return a;
}

static hlx_bc_attr_t* string_attr(hlx_bc_t* bc, hlx_bc_stream_t* s, bool typed) {
  hlx_bc_attr_t* a = hlx_bc_string_attr(bc, s);
  if (a && typed && !hlx_bc_type_ref(bc, s)) return NULL; /* the type is dropped */
  return a;
}

/* @root or @root::@leaf::@leaf2 (the text parser's SYMBOL spelling). */
static hlx_bc_attr_t* symbol_ref(hlx_bc_t* bc, hlx_bc_stream_t* s, bool nested) {
  hlx_bc_attr_t* root = hlx_bc_attr_ref(bc, s);
  if (!root || !nul_free(bc, s, root, "a symbol name")) return NULL;
  hlx_bc_attr_t* a = hlx_bc_new_attr(bc, HLX_BC_ATTR_SYMBOL);
  if (!a) return NULL;
  a->str = root->str;
  if (!nested) return a;
  hlx_bc_attr_t leaves;
  memset(&leaves, 0, sizeof leaves);
  if (!hlx_bc_attr_list(bc, s, &leaves)) return NULL;
  size_t len = strlen(root->str);
  for (int32_t i = 0; i < leaves.n; i++) {
    if (leaves.items[i]->kind != HLX_BC_ATTR_SYMBOL) {
      hlx_bc_fail(bc, s, "expected a symbol reference in a nested symbol");
      return NULL;
    }
    len += 3 + strlen(leaves.items[i]->str);
  }
  char* z = hlx_bc_irmem(bc, len + 1, 1);
  if (!z) return NULL;
  strcpy(z, root->str);
  for (int32_t i = 0; i < leaves.n; i++) {
    strcat(z, "::@");
    strcat(z, leaves.items[i]->str);
  }
  a->str = z;
  return a;
}

static hlx_bc_attr_t* scalar_attr(hlx_bc_t* bc, hlx_bc_stream_t* s, bool is_float) {
  hlx_bc_type_t* t = hlx_bc_type_ref(bc, s);
  if (!t) return NULL;
  hlx_bc_attr_t* a = hlx_bc_new_attr(bc, is_float ? HLX_BC_ATTR_FLOAT : HLX_BC_ATTR_INT);
  if (!a) return NULL;
  a->type = t;
  if (is_float) return hlx_bc_float_value(bc, s, t, &a->f) ? a : NULL;
  if (!hlx_bc_int_value(bc, s, t, a)) return NULL;
  if (t->t->dtype == HLX_DTYPE_PRED && !t->index) { /* BoolAttr */
    a->kind = HLX_BC_ATTR_BOOL;
    a->b = a->i != 0;
  }
  return a;
}

/* array<T: ...>: element type, element count, raw little-endian data. */
static hlx_bc_attr_t* dense_array(hlx_bc_t* bc, hlx_bc_stream_t* s) {
  hlx_bc_type_t* t = hlx_bc_type_ref(bc, s);
  uint64_t count = 0, len = 0;
  const uint8_t* data;
  if (!t || !hlx_bc_varint(bc, s, &count) || !hlx_bc_varint(bc, s, &len) ||
      !hlx_bc_bytes(bc, s, (size_t)len, &data))
    return NULL;
  if (t->kind != HLX_BC_TYPE_SCALAR || !t->t) {
    hlx_bc_unsupported(bc, s, "dense array of '%s'", t->name ? t->name : "?");
    return NULL;
  }
  size_t esz = hlx_dtype_size(t->t->dtype);
  if (count > len || count * esz != len) {
    hlx_bc_fail(bc, s, "dense array of %llu elements has %llu bytes",
                (unsigned long long)count, (unsigned long long)len);
    return NULL;
  }
  hlx_bc_attr_t* a = hlx_bc_new_attr(bc, HLX_BC_ATTR_DENSE_ARRAY);
  if (!a) return NULL;
  a->type = t;
  a->data = data;
  a->nbytes = (size_t)len;
  a->n = (int32_t)count;
  return a;
}

static hlx_bc_attr_t* dense_resource(hlx_bc_t* bc, hlx_bc_stream_t* s) {
  hlx_bc_attr_t* a = hlx_bc_new_attr(bc, HLX_BC_ATTR_RESOURCE);
  hlx_bc_stream_t at;
  if (!a || !(a->type = hlx_bc_type_ref(bc, s))) return NULL;
  at = *s;
  if (!hlx_bc_varint(bc, s, &a->resource)) return NULL;
  if (a->resource >= bc->nresources) {
    hlx_bc_fail(bc, &at, "resource handle %llu out of range (%llu resources)",
                (unsigned long long)a->resource, (unsigned long long)bc->nresources);
    return NULL;
  }
  if (a->type->kind != HLX_BC_TYPE_TENSOR) {
    hlx_bc_fail(bc, s, "expected a tensor type for dense_resource");
    return NULL;
  }
  return a;
}

hlx_bc_attr_t* hlx_bc_decode_builtin_attr(hlx_bc_t* bc, hlx_bc_stream_t* s) {
  uint64_t code = 0;
  if (!hlx_bc_varint(bc, s, &code)) return NULL;
  hlx_bc_attr_t* a;
  switch (code) {
    case kArray:
      a = hlx_bc_new_attr(bc, HLX_BC_ATTR_ARRAY);
      return a && hlx_bc_attr_list(bc, s, a) ? a : NULL;
    case kDictionary: return hlx_bc_decode_dict(bc, s);
    case kString: return string_attr(bc, s, false);
    case kStringWithType: return string_attr(bc, s, true);
    case kFlatSymbolRef: return symbol_ref(bc, s, false);
    case kSymbolRef: return symbol_ref(bc, s, true);
    case kType:
      a = hlx_bc_new_attr(bc, HLX_BC_ATTR_TYPE);
      return a && (a->type = hlx_bc_type_ref(bc, s)) ? a : NULL;
    case kUnit: return hlx_bc_new_attr(bc, HLX_BC_ATTR_UNIT);
    case kInteger: return scalar_attr(bc, s, false);
    case kFloat: return scalar_attr(bc, s, true);
    case kDenseResource: return dense_resource(bc, s);
    case kDenseArray: return dense_array(bc, s);
    case kDenseElements: return hlx_bc_tensor_attr(bc, s);
    case kDenseStringElements:
      hlx_bc_unsupported(bc, s, "dense string elements");
      return NULL;
    case kSparseElements:
      hlx_bc_unsupported(bc, s, "sparse elements");
      return NULL;
    case kDistinct:
      hlx_bc_unsupported(bc, s, "distinct attributes");
      return NULL;
    default:
      if (code >= kCallSiteLoc && code <= kUnknownLoc) { /* locations: unused */
        s->p = s->end;
        return hlx_bc_new_attr(bc, HLX_BC_ATTR_LOCATION);
      }
      hlx_bc_unsupported(bc, s, "builtin attribute code %llu", (unsigned long long)code);
      return NULL;
  }
}
