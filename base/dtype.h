/* Element types shared by every layer (kernels, scheduler, graph, api).
 * base/ is the bottom layer: it depends on nothing else in hlx. */
#ifndef HLX_BASE_DTYPE_H_
#define HLX_BASE_DTYPE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One enumerator per element type StableHLO can name. Sub-byte integers and
 * the 4/6/8-bit floats are stored one element per byte (the low bits). */
#define HLX_DTYPE_LIST(X)               \
  X(INVALID, "invalid", 0, 0)           \
  X(PRED, "i1", 1, 1)                   \
  X(S2, "i2", 1, 2)                     \
  X(S4, "i4", 1, 4)                     \
  X(S8, "i8", 1, 8)                     \
  X(S16, "i16", 2, 16)                  \
  X(S32, "i32", 4, 32)                  \
  X(S64, "i64", 8, 64)                  \
  X(U2, "ui2", 1, 2)                    \
  X(U4, "ui4", 1, 4)                    \
  X(U8, "ui8", 1, 8)                    \
  X(U16, "ui16", 2, 16)                 \
  X(U32, "ui32", 4, 32)                 \
  X(U64, "ui64", 8, 64)                 \
  X(F4E2M1FN, "f4E2M1FN", 1, 4)         \
  X(F6E2M3FN, "f6E2M3FN", 1, 6)         \
  X(F6E3M2FN, "f6E3M2FN", 1, 6)         \
  X(F8E3M4, "f8E3M4", 1, 8)             \
  X(F8E4M3, "f8E4M3", 1, 8)             \
  X(F8E4M3FN, "f8E4M3FN", 1, 8)         \
  X(F8E4M3FNUZ, "f8E4M3FNUZ", 1, 8)     \
  X(F8E4M3B11FNUZ, "f8E4M3B11FNUZ", 1, 8) \
  X(F8E5M2, "f8E5M2", 1, 8)             \
  X(F8E5M2FNUZ, "f8E5M2FNUZ", 1, 8)     \
  X(F8E8M0FNU, "f8E8M0FNU", 1, 8)       \
  X(F16, "f16", 2, 16)                  \
  X(BF16, "bf16", 2, 16)                \
  X(F32, "f32", 4, 32)                  \
  X(F64, "f64", 8, 64)                  \
  X(C64, "complex<f32>", 8, 64)         \
  X(C128, "complex<f64>", 16, 128)

typedef enum hlx_dtype_t {
#define HLX_DTYPE_ENUM(name, text, bytes, bits) HLX_DTYPE_##name,
  HLX_DTYPE_LIST(HLX_DTYPE_ENUM)
#undef HLX_DTYPE_ENUM
  HLX_DTYPE_COUNT
} hlx_dtype_t;

/* Bytes one element occupies in memory (0 for INVALID). */
size_t hlx_dtype_size(hlx_dtype_t t);
/* Bits of the value (i4 -> 4, complex<f32> -> 64). */
int hlx_dtype_bits(hlx_dtype_t t);
/* MLIR spelling: "f32", "ui8", "complex<f64>", "i1". */
const char* hlx_dtype_name(hlx_dtype_t t);
/* Parses the MLIR spelling (also "si8" style); INVALID when unknown. */
hlx_dtype_t hlx_dtype_from_name(const char* s, size_t len);

bool hlx_dtype_is_pred(hlx_dtype_t t);
bool hlx_dtype_is_signed_int(hlx_dtype_t t);   /* S2..S64 */
bool hlx_dtype_is_unsigned_int(hlx_dtype_t t); /* U2..U64 */
bool hlx_dtype_is_int(hlx_dtype_t t);          /* signed or unsigned, not pred */
bool hlx_dtype_is_float(hlx_dtype_t t);        /* every real float incl. f8 */
bool hlx_dtype_is_small_float(hlx_dtype_t t);  /* the 4/6/8-bit floats */
bool hlx_dtype_is_complex(hlx_dtype_t t);
/* Component type of a complex type (C64 -> F32), else t itself. */
hlx_dtype_t hlx_dtype_complex_part(hlx_dtype_t t);
/* Canonical bytes of one element in place, as literals are stored: i1 as
 * 0/1, sub-byte integers masked to their bits (sign-extended when signed);
 * other types are left alone. */
void hlx_dtype_canonicalize_elem(hlx_dtype_t t, uint8_t* e);
/* Element i of canonical data of integer or i1 type t as int64 (unsigned
 * 64-bit values above INT64_MAX wrap); false for other types. */
bool hlx_dtype_read_int(hlx_dtype_t t, const void* data, size_t i,
                        int64_t* out);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* HLX_BASE_DTYPE_H_ */
