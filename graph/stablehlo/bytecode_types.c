/* Types of MLIR bytecode: the builtin dialect's and VHLO's encodings, and
 * the assembly-text fallback for simple types. Tensor, tuple and token
 * types become hlx IR types; element types are rank-0 tensors of their
 * dtype; function types stay in the bytecode model (only func signatures
 * use them). */
#include <stdio.h>
#include <string.h>

#include "graph/stablehlo/bytecode_internal.h"

/* ---- Constructors -------------------------------------------------------------- */
static hlx_bc_type_t* new_type(hlx_bc_t* bc, hlx_bc_type_kind_t kind) {
  hlx_bc_type_t* t = hlx_bc_scratch(bc, 1, sizeof(*t));
  if (t) t->kind = kind;
  return t;
}

static hlx_bc_type_t* unsupported_type(hlx_bc_t* bc, hlx_bc_stream_t* s,
                                       const char* what) {
  hlx_bc_type_t* t = new_type(bc, HLX_BC_TYPE_UNSUPPORTED);
  if (t) t->name = what;
  s->p = s->end; /* its parameters are not needed */
  return t;
}

hlx_bc_type_t* hlx_bc_scalar_type(hlx_bc_t* bc, hlx_dtype_t dt, bool index,
                                  const char* name) {
  hlx_bc_type_t* t = new_type(bc, HLX_BC_TYPE_SCALAR);
  if (!t) return NULL;
  t->index = index;
  t->name = name ? name : hlx_dtype_name(dt);
  if (dt == HLX_DTYPE_INVALID) return t; /* e.g. tf32: a name only */
  t->t = hlx_bc_irmem(bc, 1, sizeof(hlx_type_t));
  if (!t->t) return NULL;
  t->t->kind = HLX_TYPE_TENSOR;
  t->t->dtype = dt;
  t->t->is_index = index;
  return t;
}

static hlx_bc_type_t* ir_type(hlx_bc_t* bc, hlx_bc_type_kind_t kind,
                              hlx_type_kind_t ir_kind) {
  hlx_bc_type_t* t = new_type(bc, kind);
  if (!t) return NULL;
  t->t = hlx_bc_irmem(bc, 1, sizeof(hlx_type_t));
  if (!t->t) return NULL;
  t->t->kind = ir_kind;
  return t;
}

static bool is_element(const hlx_bc_type_t* e) {
  return e->kind == HLX_BC_TYPE_SCALAR && e->t != NULL;
}

static bool check_element(hlx_bc_t* bc, hlx_bc_stream_t* s,
                          const hlx_bc_type_t* e) {
  if (is_element(e)) return true;
  if (e->kind == HLX_BC_TYPE_SCALAR)
    return hlx_bc_unsupported(bc, s, "tensor element type '%s'", e->name);
  if (e->kind == HLX_BC_TYPE_UNSUPPORTED)
    return hlx_bc_unsupported(bc, s, "tensor element type: %s", e->name);
  return hlx_bc_fail(bc, s, "expected an element type for a tensor");
}

hlx_bc_type_t* hlx_bc_tensor_type(hlx_bc_t* bc, hlx_bc_stream_t* s,
                                  const int64_t* dims, uint32_t rank,
                                  hlx_bc_type_t* elem, hlx_bc_attr_t* encoding) {
  if (!check_element(bc, s, elem)) return NULL;
  if (rank > HLX_MAX_RANK) {
    hlx_bc_unsupported(bc, s, "tensor of rank %u (at most %d)", rank, HLX_MAX_RANK);
    return NULL;
  }
  for (uint32_t i = 0; i < rank; i++)
    if (dims[i] < 0 && dims[i] != HLX_DYNAMIC_DIM) {
      hlx_bc_fail(bc, s, "tensor dimension %u is %lld", i, (long long)dims[i]);
      return NULL;
    }
  hlx_bc_type_t* t = ir_type(bc, HLX_BC_TYPE_TENSOR, HLX_TYPE_TENSOR);
  if (!t) return NULL;
  t->index = elem->index;
  t->t->dtype = elem->t->dtype;
  t->t->quant = elem->t->quant;
  t->t->is_index = elem->index;
  t->t->rank = (int32_t)rank;
  if (rank > 0) {
    t->t->dims = hlx_bc_irmem(bc, rank, sizeof(int64_t));
    if (!t->t->dims) return NULL;
    memcpy(t->t->dims, dims, rank * sizeof(int64_t));
  }
  if (!encoding) return t;
  if (encoding->kind != HLX_BC_ATTR_TYPE_EXTENSIONS) {
    hlx_bc_unsupported(bc, s, "tensor encoding other than bounds");
    return NULL;
  }
  if ((uint32_t)encoding->n != rank) {
    hlx_bc_fail(bc, s, "%d bounds for a tensor of rank %u", encoding->n, rank);
    return NULL;
  }
  t->t->bounds = hlx_bc_irmem(bc, rank ? rank : 1, sizeof(int64_t));
  if (!t->t->bounds) return NULL;
  if (rank) memcpy(t->t->bounds, encoding->ints, rank * sizeof(int64_t));
  return t;
}

/* ---- Shared pieces -------------------------------------------------------------- */
bool hlx_bc_svarint_list(hlx_bc_t* bc, hlx_bc_stream_t* s, int64_t** out,
                         int32_t* n) {
  uint32_t count = 0;
  if (!hlx_bc_count(bc, s, 1, "integer list", &count)) return false;
  *out = hlx_bc_scratch(bc, count, sizeof(int64_t));
  if (!*out) return false;
  for (uint32_t i = 0; i < count; i++)
    if (!hlx_bc_svarint(bc, s, &(*out)[i])) return false;
  *n = (int32_t)count;
  return true;
}

static bool type_list(hlx_bc_t* bc, hlx_bc_stream_t* s, hlx_bc_type_t*** out,
                      int32_t* n) {
  uint32_t count = 0;
  if (!hlx_bc_count(bc, s, 1, "type list", &count)) return false;
  *out = hlx_bc_scratch(bc, count, sizeof(hlx_bc_type_t*));
  if (!*out) return false;
  for (uint32_t i = 0; i < count; i++)
    if (!((*out)[i] = hlx_bc_type_ref(bc, s))) return false;
  *n = (int32_t)count;
  return true;
}

static hlx_bc_type_t* function_type(hlx_bc_t* bc, hlx_bc_stream_t* s) {
  hlx_bc_type_t* t = new_type(bc, HLX_BC_TYPE_FUNCTION);
  if (!t || !type_list(bc, s, &t->in, &t->nin) ||
      !type_list(bc, s, &t->out, &t->nout))
    return NULL;
  return t;
}

static hlx_bc_type_t* tuple_type(hlx_bc_t* bc, hlx_bc_stream_t* s) {
  hlx_bc_type_t** elems;
  int32_t n = 0;
  if (!type_list(bc, s, &elems, &n)) return NULL;
  hlx_bc_type_t* t = ir_type(bc, HLX_BC_TYPE_TUPLE, HLX_TYPE_TUPLE);
  if (!t) return NULL;
  t->t->num_elems = n;
  t->t->elems = hlx_bc_irmem(bc, (size_t)n, sizeof(hlx_type_t*));
  if (!t->t->elems) return NULL;
  for (int32_t i = 0; i < n; i++) {
    hlx_bc_type_t* e = elems[i];
    if (!(e->kind == HLX_BC_TYPE_TENSOR || e->kind == HLX_BC_TYPE_TUPLE ||
          e->kind == HLX_BC_TYPE_TOKEN)) {
      hlx_bc_unsupported(bc, s, "tuple element %d is not a tensor, tuple or token", i);
      return NULL;
    }
    t->t->elems[i] = e->t;
  }
  return t;
}

/* shape: svarint list; then the element type. */
static hlx_bc_type_t* ranked_tensor(hlx_bc_t* bc, hlx_bc_stream_t* s,
                                    bool has_encoding) {
  hlx_bc_attr_t* enc = NULL;
  if (has_encoding && !(enc = hlx_bc_attr_ref(bc, s))) return NULL;
  int64_t* dims;
  int32_t rank = 0;
  if (!hlx_bc_svarint_list(bc, s, &dims, &rank)) return NULL;
  hlx_bc_type_t* elem = hlx_bc_type_ref(bc, s);
  if (!elem) return NULL;
  return hlx_bc_tensor_type(bc, s, dims, (uint32_t)rank, elem, enc);
}

static hlx_bc_type_t* complex_type(hlx_bc_t* bc, hlx_bc_stream_t* s) {
  hlx_bc_type_t* part = hlx_bc_type_ref(bc, s);
  if (!part) return NULL;
  if (is_element(part) && part->t->dtype == HLX_DTYPE_F32)
    return hlx_bc_scalar_type(bc, HLX_DTYPE_C64, false, NULL);
  if (is_element(part) && part->t->dtype == HLX_DTYPE_F64)
    return hlx_bc_scalar_type(bc, HLX_DTYPE_C128, false, NULL);
  hlx_bc_unsupported(bc, s, "complex element type '%s'",
                     part->name ? part->name : "?");
  return NULL;
}

/* ---- Quantized types (VHLO) ------------------------------------------------------- */
static bool quant_dtypes(hlx_bc_t* bc, hlx_bc_stream_t* s, uint64_t flags,
                         hlx_quant_t* q) {
  hlx_bc_type_t* st = hlx_bc_type_ref(bc, s);
  hlx_bc_type_t* et = st ? hlx_bc_type_ref(bc, s) : NULL;
  if (!et) return false;
  if (!is_element(st) || !hlx_dtype_is_int(st->t->dtype))
    return hlx_bc_unsupported(bc, s, "quantized storage type '%s'", st->name);
  if (!is_element(et) || !hlx_dtype_is_float(et->t->dtype))
    return hlx_bc_unsupported(bc, s, "quantized expressed type '%s'", et->name);
  int bits = hlx_dtype_bits(st->t->dtype);
  static const hlx_dtype_t kS[] = {HLX_DTYPE_S2, HLX_DTYPE_S4, HLX_DTYPE_S8,
                                   HLX_DTYPE_S16, HLX_DTYPE_S32, HLX_DTYPE_S64};
  static const hlx_dtype_t kU[] = {HLX_DTYPE_U2, HLX_DTYPE_U4, HLX_DTYPE_U8,
                                   HLX_DTYPE_U16, HLX_DTYPE_U32, HLX_DTYPE_U64};
  int k = bits == 2 ? 0 : bits == 4 ? 1 : bits == 8 ? 2 : bits == 16 ? 3
          : bits == 32 ? 4 : 5;
  q->storage = (flags & 1) ? kS[k] : kU[k];
  q->expressed = et->t->dtype;
  return true;
}

/* The text form writes a storage range only when it is not the full one. */
static void quant_range(hlx_quant_t* q, int64_t lo, int64_t hi) {
  int bits = hlx_dtype_bits(q->storage);
  bool sig = hlx_dtype_is_signed_int(q->storage);
  int64_t dlo = sig ? (bits == 64 ? INT64_MIN : -((int64_t)1 << (bits - 1))) : 0;
  int64_t dhi = sig ? (bits == 64 ? INT64_MAX : ((int64_t)1 << (bits - 1)) - 1)
                    : (bits == 64 ? -1 : (int64_t)(((uint64_t)1 << bits) - 1));
  q->storage_min = lo;
  q->storage_max = hi;
  q->has_storage_range = !(lo == dlo && hi == dhi);
}

static bool f64_value(hlx_bc_t* bc, hlx_bc_stream_t* s, double* out) {
  uint64_t bits = 0;
  if (!hlx_bc_apint(bc, s, 64, &bits)) return false;
  memcpy(out, &bits, 8);
  return true;
}

static hlx_bc_type_t* quant_type(hlx_bc_t* bc, hlx_bc_stream_t* s, bool per_axis) {
  hlx_quant_t* q = hlx_bc_irmem(bc, 1, sizeof(*q));
  uint64_t flags, axis = 0;
  int64_t lo, hi, zp = 0;
  if (!q || !hlx_bc_varint(bc, s, &flags) || !quant_dtypes(bc, s, flags, q))
    return NULL;
  q->quantized_dimension = -1;
  if (!per_axis) {
    double scale = 0;
    if (!f64_value(bc, s, &scale) || !hlx_bc_svarint(bc, s, &zp) ||
        !hlx_bc_svarint(bc, s, &lo) || !hlx_bc_svarint(bc, s, &hi))
      return NULL;
    q->num_scales = 1;
    q->scales = hlx_bc_irmem(bc, 1, sizeof(double));
    q->zero_points = hlx_bc_irmem(bc, 1, sizeof(int64_t));
    if (!q->scales || !q->zero_points) return NULL;
    q->scales[0] = scale;
    q->zero_points[0] = zp;
  } else {
    uint32_t ns = 0, nz = 0;
    if (!hlx_bc_varint(bc, s, &axis) || !hlx_bc_svarint(bc, s, &lo) ||
        !hlx_bc_svarint(bc, s, &hi) || !hlx_bc_count(bc, s, 1, "scale", &ns))
      return NULL;
    if (axis >= HLX_MAX_RANK) {
      hlx_bc_fail(bc, s, "quantized dimension %llu", (unsigned long long)axis);
      return NULL;
    }
    q->quantized_dimension = (int32_t)axis;
    q->scales = hlx_bc_irmem(bc, ns, sizeof(double));
    for (uint32_t i = 0; q->scales && i < ns; i++)
      if (!f64_value(bc, s, &q->scales[i])) return NULL;
    if (!q->scales || !hlx_bc_count(bc, s, 1, "zero point", &nz)) return NULL;
    if (nz != ns) {
      hlx_bc_fail(bc, s, "%u scales but %u zero points", ns, nz);
      return NULL;
    }
    q->zero_points = hlx_bc_irmem(bc, nz, sizeof(int64_t));
    for (uint32_t i = 0; q->zero_points && i < nz; i++)
      if (!hlx_bc_svarint(bc, s, &q->zero_points[i])) return NULL;
    if (!q->zero_points) return NULL;
    q->num_scales = (int32_t)ns;
  }
  quant_range(q, lo, hi);
  hlx_bc_type_t* t = hlx_bc_scalar_type(bc, q->storage, false, "!quant.uniform");
  if (t) t->t->quant = q;
  return t;
}

/* ---- VHLO types ---------------------------------------------------------------------- */
/* Element types that carry no parameters, by VHLO type code. */
static bool vhlo_plain_dtype(uint64_t code, hlx_dtype_t* dt) {
  static const struct { uint8_t code; hlx_dtype_t dt; } kMap[] = {
      {0, HLX_DTYPE_PRED},       {2, HLX_DTYPE_BF16},      {3, HLX_DTYPE_F16},
      {4, HLX_DTYPE_F32},        {5, HLX_DTYPE_F64},       {6, HLX_DTYPE_F8E4M3FN},
      {7, HLX_DTYPE_F8E5M2},     {10, HLX_DTYPE_S4},       {11, HLX_DTYPE_S8},
      {12, HLX_DTYPE_S16},       {13, HLX_DTYPE_S32},      {14, HLX_DTYPE_S64},
      {15, HLX_DTYPE_U4},        {16, HLX_DTYPE_U8},       {17, HLX_DTYPE_U16},
      {18, HLX_DTYPE_U32},       {19, HLX_DTYPE_U64},      {27, HLX_DTYPE_F8E4M3FNUZ},
      {28, HLX_DTYPE_F8E5M2FNUZ}, {29, HLX_DTYPE_F8E4M3B11FNUZ}, {31, HLX_DTYPE_S2},
      {32, HLX_DTYPE_U2},        {35, HLX_DTYPE_F8E4M3},   {36, HLX_DTYPE_F8E3M4},
      {37, HLX_DTYPE_F4E2M1FN},  {38, HLX_DTYPE_F6E2M3FN}, {39, HLX_DTYPE_F6E3M2FN},
      {40, HLX_DTYPE_F8E8M0FNU},
  };
  for (size_t i = 0; i < sizeof kMap / sizeof kMap[0]; i++)
    if (kMap[i].code == code) {
      *dt = kMap[i].dt;
      return true;
    }
  return false;
}

hlx_bc_type_t* hlx_bc_decode_vhlo_type(hlx_bc_t* bc, hlx_bc_stream_t* s) {
  uint64_t code = 0;
  if (!hlx_bc_varint(bc, s, &code)) return NULL;
  hlx_dtype_t dt;
  if (vhlo_plain_dtype(code, &dt)) return hlx_bc_scalar_type(bc, dt, false, NULL);
  switch (code) {
    case 1: return complex_type(bc, s);
    case 8: return function_type(bc, s);
    case 9: return hlx_bc_scalar_type(bc, HLX_DTYPE_S64, true, "index");
    case 20: return ranked_tensor(bc, s, false);
    case 21: return ranked_tensor(bc, s, true);
    case 22: return ir_type(bc, HLX_BC_TYPE_TOKEN, HLX_TYPE_TOKEN);
    case 23: return tuple_type(bc, s);
    case 24: return quant_type(bc, s, false);
    case 30: return quant_type(bc, s, true);
    case 33: return new_type(bc, HLX_BC_TYPE_NONE);
    case 34: return hlx_bc_scalar_type(bc, HLX_DTYPE_INVALID, false, "tf32");
    case 25: return unsupported_type(bc, s, "unranked tensor");
    case 26: return unsupported_type(bc, s, "!shape.witness");
    case 41: return unsupported_type(bc, s, "buffer type");
    default:
      hlx_bc_unsupported(bc, s, "VHLO type code %llu (newer than hlx knows)",
                         (unsigned long long)code);
      return NULL;
  }
}

/* ---- Builtin types ----------------------------------------------------------------- */
static hlx_bc_type_t* builtin_integer(hlx_bc_t* bc, hlx_bc_stream_t* s) {
  uint64_t ws = 0;
  if (!hlx_bc_varint(bc, s, &ws)) return NULL;
  uint64_t width = ws >> 2, sign = ws & 3; /* 0 signless, 1 signed, 2 unsigned */
  static const hlx_dtype_t kS[] = {HLX_DTYPE_S2, HLX_DTYPE_S4, HLX_DTYPE_S8,
                                   HLX_DTYPE_S16, HLX_DTYPE_S32, HLX_DTYPE_S64};
  static const hlx_dtype_t kU[] = {HLX_DTYPE_U2, HLX_DTYPE_U4, HLX_DTYPE_U8,
                                   HLX_DTYPE_U16, HLX_DTYPE_U32, HLX_DTYPE_U64};
  static const uint64_t kW[] = {2, 4, 8, 16, 32, 64};
  if (width == 1 && sign != 2) return hlx_bc_scalar_type(bc, HLX_DTYPE_PRED, false, NULL);
  for (int i = 0; i < 6; i++)
    if (kW[i] == width && sign != 3)
      return hlx_bc_scalar_type(bc, sign == 2 ? kU[i] : kS[i], false, NULL);
  hlx_bc_unsupported(bc, s, "integer type of width %llu", (unsigned long long)width);
  return NULL;
}

hlx_bc_type_t* hlx_bc_decode_builtin_type(hlx_bc_t* bc, hlx_bc_stream_t* s) {
  uint64_t code = 0;
  if (!hlx_bc_varint(bc, s, &code)) return NULL;
  switch (code) {
    case 0: return builtin_integer(bc, s);
    case 1: return hlx_bc_scalar_type(bc, HLX_DTYPE_S64, true, "index");
    case 2: return function_type(bc, s);
    case 3: return hlx_bc_scalar_type(bc, HLX_DTYPE_BF16, false, NULL);
    case 4: return hlx_bc_scalar_type(bc, HLX_DTYPE_F16, false, NULL);
    case 5: return hlx_bc_scalar_type(bc, HLX_DTYPE_F32, false, NULL);
    case 6: return hlx_bc_scalar_type(bc, HLX_DTYPE_F64, false, NULL);
    case 7: return unsupported_type(bc, s, "f80");
    case 8: return unsupported_type(bc, s, "f128");
    case 9: return complex_type(bc, s);
    case 10: case 11: case 16: case 17: return unsupported_type(bc, s, "memref");
    case 12: return new_type(bc, HLX_BC_TYPE_NONE);
    case 13: return ranked_tensor(bc, s, false);
    case 14: return ranked_tensor(bc, s, true);
    case 15: return tuple_type(bc, s);
    case 18: return unsupported_type(bc, s, "unranked tensor");
    case 19: case 20: return unsupported_type(bc, s, "vector");
    default:
      hlx_bc_unsupported(bc, s, "builtin type code %llu", (unsigned long long)code);
      return NULL;
  }
}

/* ---- Assembly text ------------------------------------------------------------------- */
static hlx_bc_type_t* element_text(hlx_bc_t* bc, const char* p, size_t n) {
  if (n == 5 && memcmp(p, "index", 5) == 0)
    return hlx_bc_scalar_type(bc, HLX_DTYPE_S64, true, "index");
  if (n == 4 && memcmp(p, "none", 4) == 0) return new_type(bc, HLX_BC_TYPE_NONE);
  if (n == 4 && memcmp(p, "tf32", 4) == 0)
    return hlx_bc_scalar_type(bc, HLX_DTYPE_INVALID, false, "tf32");
  if (n == 16 && memcmp(p, "!stablehlo.token", 16) == 0)
    return ir_type(bc, HLX_BC_TYPE_TOKEN, HLX_TYPE_TOKEN);
  hlx_dtype_t dt = hlx_dtype_from_name(p, n);
  if (dt == HLX_DTYPE_INVALID) return NULL;
  return hlx_bc_scalar_type(bc, dt, false, NULL);
}

/* `tensor<2x?x3xf32>` without an encoding; anything else is unsupported. */
static hlx_bc_type_t* tensor_text(hlx_bc_t* bc, hlx_bc_stream_t* s, const char* p,
                                  size_t n) {
  int64_t dims[HLX_MAX_RANK];
  uint32_t rank = 0;
  size_t i = 7; /* after "tensor<" */
  if (n < 9 || p[n - 1] != '>') return NULL;
  for (;;) {
    size_t j = i;
    int64_t d = 0;
    if (p[j] == '?') {
      d = HLX_DYNAMIC_DIM;
      j++;
    } else {
      while (j < n && p[j] >= '0' && p[j] <= '9' && d < ((int64_t)1 << 50))
        d = d * 10 + (p[j++] - '0');
    }
    if (j == i || j >= n || p[j] != 'x') break; /* the element type starts at i */
    if (rank >= HLX_MAX_RANK) return NULL;
    dims[rank++] = d;
    i = j + 1;
  }
  hlx_bc_type_t* elem = element_text(bc, p + i, n - 1 - i);
  if (!elem) return NULL;
  return hlx_bc_tensor_type(bc, s, dims, rank, elem, NULL);
}

hlx_bc_type_t* hlx_bc_parse_type_text(hlx_bc_t* bc, hlx_bc_stream_t* s,
                                      const char* text) {
  size_t n = strlen(text);
  hlx_bc_type_t* t = NULL;
  if (n > 7 && memcmp(text, "tensor<", 7) == 0) t = tensor_text(bc, s, text, n);
  else if (n == 12 && memcmp(text, "complex<f32>", 12) == 0)
    t = hlx_bc_scalar_type(bc, HLX_DTYPE_C64, false, NULL);
  else if (n == 12 && memcmp(text, "complex<f64>", 12) == 0)
    t = hlx_bc_scalar_type(bc, HLX_DTYPE_C128, false, NULL);
  else t = element_text(bc, text, n);
  if (t || bc->err) return t;
  char* name = hlx_bc_scratch(bc, n + 1, 1);
  if (!name) return NULL;
  memcpy(name, text, n + 1);
  t = new_type(bc, HLX_BC_TYPE_UNSUPPORTED);
  if (t) t->name = name;
  return t;
}
