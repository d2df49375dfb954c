/* Attributes of the VHLO dialect in MLIR bytecode (StableHLO portable
 * artifacts). Codes are VHLO's attribute encoding numbers, which never
 * change between versions; enums become the StableHLO enum spelling the
 * text parser produces (#stablehlo<comparison_direction EQ>). */
#include <string.h>

#include "graph/stablehlo/bytecode_internal.h"

enum {
  kArray = 1, kBoolean = 2, kComparisonDirection = 3, kComparisonType = 4,
  kCustomCallApiVersion = 5, kDictionary = 6, kFftType = 7, kFloat = 8,
  kInteger = 9, kOutputOperandAlias = 10, kPrecision = 11, kRngAlgorithm = 12,
  kRngDistribution = 13, kString = 14, kTensor = 15, kTranspose = 16,
  kType = 17, kTypeExtensions = 18, kResultAccuracyMode = 19,
  kResultAccuracy = 20,
};

typedef struct enum_desc_t {
  int code;
  const char* kind;
  const char* const* values; /* NULL entries are invalid values */
  int count;
} enum_desc_t;

static const char* const kDirections[] = {"EQ", "NE", "GE", "GT", "LE", "LT"};
static const char* const kCompareTypes[] = {"NOTYPE", "FLOAT", "TOTALORDER",
                                            "SIGNED", "UNSIGNED"};
static const char* const kFftTypes[] = {"FFT", "IFFT", "RFFT", "IRFFT"};
static const char* const kPrecisions[] = {"DEFAULT", "HIGH", "HIGHEST"};
static const char* const kRngAlgorithms[] = {"DEFAULT", "THREE_FRY", "PHILOX"};
static const char* const kRngDistributions[] = {NULL, "UNIFORM", "NORMAL"};
static const char* const kTransposes[] = {"TRANSPOSE_INVALID", "NO_TRANSPOSE",
                                          "TRANSPOSE", "ADJOINT"};
static const char* const kAccuracyModes[] = {"DEFAULT", "HIGHEST", "TOLERANCE"};

#define ENUM(c, k, v) {c, k, v, (int)(sizeof v / sizeof v[0])}
static const enum_desc_t kEnums[] = {
    ENUM(kComparisonDirection, "comparison_direction", kDirections),
    ENUM(kComparisonType, "comparison_type", kCompareTypes),
    ENUM(kFftType, "fft_type", kFftTypes),
    ENUM(kPrecision, "precision", kPrecisions),
    ENUM(kRngAlgorithm, "rng_algorithm", kRngAlgorithms),
    ENUM(kRngDistribution, "rng_distribution", kRngDistributions),
    ENUM(kTranspose, "transpose", kTransposes),
    ENUM(kResultAccuracyMode, "result_accuracy_mode", kAccuracyModes),
};
#undef ENUM

static hlx_bc_attr_t* enum_attr(hlx_bc_t* bc, hlx_bc_stream_t* s,
                                const enum_desc_t* e) {
  uint64_t v = 0;
  if (!hlx_bc_varint(bc, s, &v)) return NULL;
  if (v >= (uint64_t)e->count || !e->values[v]) {
    hlx_bc_fail(bc, s, "%llu is not a %s value", (unsigned long long)v, e->kind);
    return NULL;
  }
  hlx_bc_attr_t* a = hlx_bc_new_attr(bc, HLX_BC_ATTR_ENUM);
  if (!a) return NULL;
  a->str = e->kind;
  a->enum_value = e->values[v];
  a->i = (int64_t)v;
  return a;
}

/* CustomCallApiVersion is an i32 in StableHLO (`api_version = 2 : i32`). */
static hlx_bc_attr_t* api_version(hlx_bc_t* bc, hlx_bc_stream_t* s) {
  uint64_t v = 0;
  if (!hlx_bc_varint(bc, s, &v)) return NULL;
  if (v > 4) {
    hlx_bc_fail(bc, s, "%llu is not a custom call API version", (unsigned long long)v);
    return NULL;
  }
  hlx_bc_attr_t* a = hlx_bc_new_attr(bc, HLX_BC_ATTR_INT);
  if (!a || !(a->type = hlx_bc_scalar_type(bc, HLX_DTYPE_S32, false, NULL)))
    return NULL;
  a->i = (int64_t)v;
  return a;
}

static hlx_bc_attr_t* scalar(hlx_bc_t* bc, hlx_bc_stream_t* s, bool is_float) {
  hlx_bc_attr_t* a = hlx_bc_new_attr(bc, is_float ? HLX_BC_ATTR_FLOAT : HLX_BC_ATTR_INT);
  if (!a || !(a->type = hlx_bc_type_ref(bc, s))) return NULL;
  if (is_float) return hlx_bc_float_value(bc, s, a->type, &a->f) ? a : NULL;
  return hlx_bc_int_value(bc, s, a->type, a) ? a : NULL;
}

static hlx_bc_attr_t* output_alias(hlx_bc_t* bc, hlx_bc_stream_t* s) {
  int64_t *out_idx, *operand_idx, operand;
  int32_t nout = 0, nop = 0;
  if (!hlx_bc_svarint_list(bc, s, &out_idx, &nout) ||
      !hlx_bc_svarint(bc, s, &operand) ||
      !hlx_bc_svarint_list(bc, s, &operand_idx, &nop))
    return NULL;
  hlx_bc_attr_t* a = hlx_bc_new_attr(bc, HLX_BC_ATTR_OUTPUT_ALIAS);
  if (!a || !(a->ints = hlx_bc_scratch(bc, (size_t)(nout + nop), sizeof(int64_t))))
    return NULL;
  if (nout) memcpy(a->ints, out_idx, (size_t)nout * sizeof(int64_t));
  if (nop) memcpy(a->ints + nout, operand_idx, (size_t)nop * sizeof(int64_t));
  a->n0 = nout;
  a->n = nout + nop;
  a->i = operand;
  return a;
}

static hlx_bc_attr_t* result_accuracy(hlx_bc_t* bc, hlx_bc_stream_t* s) {
  hlx_bc_attr_t* a = hlx_bc_new_attr(bc, HLX_BC_ATTR_RESULT_ACCURACY);
  uint64_t atol = 0, rtol = 0;
  if (!a || !hlx_bc_apint(bc, s, 64, &atol) || !hlx_bc_apint(bc, s, 64, &rtol) ||
      !hlx_bc_svarint(bc, s, &a->i))
    return NULL;
  hlx_bc_attr_t* mode = hlx_bc_attr_ref(bc, s);
  if (!mode) return NULL;
  if (mode->kind != HLX_BC_ATTR_ENUM || strcmp(mode->str, "result_accuracy_mode") != 0) {
    hlx_bc_fail(bc, s, "expected a result accuracy mode");
    return NULL;
  }
  a->items = hlx_bc_scratch(bc, 1, sizeof(hlx_bc_attr_t*));
  if (!a->items) return NULL;
  a->items[0] = mode;
  a->n = 1;
  memcpy(&a->f, &atol, 8);
  memcpy(&a->f2, &rtol, 8);
  return a;
}

hlx_bc_attr_t* hlx_bc_decode_vhlo_attr(hlx_bc_t* bc, hlx_bc_stream_t* s) {
  uint64_t code = 0;
  if (!hlx_bc_varint(bc, s, &code)) return NULL;
  for (size_t i = 0; i < sizeof kEnums / sizeof kEnums[0]; i++)
    if ((uint64_t)kEnums[i].code == code) return enum_attr(bc, s, &kEnums[i]);
  hlx_bc_attr_t* a;
  uint64_t v = 0;
  switch (code) {
    case kArray:
      a = hlx_bc_new_attr(bc, HLX_BC_ATTR_ARRAY);
      return a && hlx_bc_attr_list(bc, s, a) ? a : NULL;
    case kBoolean:
      if (!hlx_bc_varint(bc, s, &v)) return NULL;
      if (v > 1) {
        hlx_bc_fail(bc, s, "boolean value %llu", (unsigned long long)v);
        return NULL;
      }
      a = hlx_bc_new_attr(bc, HLX_BC_ATTR_BOOL);
      if (a) a->b = v == 1;
      return a;
    case kCustomCallApiVersion: return api_version(bc, s);
    case kDictionary: return hlx_bc_decode_dict(bc, s);
    case kFloat: return scalar(bc, s, true);
    case kInteger: return scalar(bc, s, false);
    case kOutputOperandAlias: return output_alias(bc, s);
    case kString: return hlx_bc_string_attr(bc, s);
    case kTensor: return hlx_bc_tensor_attr(bc, s);
    case kType:
      a = hlx_bc_new_attr(bc, HLX_BC_ATTR_TYPE);
      return a && (a->type = hlx_bc_type_ref(bc, s)) ? a : NULL;
    case kTypeExtensions:
      a = hlx_bc_new_attr(bc, HLX_BC_ATTR_TYPE_EXTENSIONS);
      return a && hlx_bc_svarint_list(bc, s, &a->ints, &a->n) ? a : NULL;
    case kResultAccuracy: return result_accuracy(bc, s);
    default:
      hlx_bc_unsupported(bc, s, "VHLO attribute code %llu (newer than hlx knows)",
                         (unsigned long long)code);
      return NULL;
  }
}
