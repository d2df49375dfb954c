#include "base/dtype.h"

#include <string.h>

static const struct {
  const char* name;
  unsigned char bytes;
  unsigned char bits;
} kInfo[HLX_DTYPE_COUNT] = {
#define HLX_DTYPE_INFO(n, text, bytes, bits) {text, bytes, bits},
    HLX_DTYPE_LIST(HLX_DTYPE_INFO)
#undef HLX_DTYPE_INFO
};

static bool valid(hlx_dtype_t t) { return t > 0 && t < HLX_DTYPE_COUNT; }

size_t hlx_dtype_size(hlx_dtype_t t) { return valid(t) ? kInfo[t].bytes : 0; }
int hlx_dtype_bits(hlx_dtype_t t) { return valid(t) ? kInfo[t].bits : 0; }
const char* hlx_dtype_name(hlx_dtype_t t) {
  return valid(t) ? kInfo[t].name : "invalid";
}

hlx_dtype_t hlx_dtype_from_name(const char* s, size_t len) {
  /* "si8" is the explicit spelling of "i8". */
  if (len > 2 && s[0] == 's' && s[1] == 'i') {
    s++;
    len--;
  }
  for (int t = 1; t < HLX_DTYPE_COUNT; t++) {
    if (strlen(kInfo[t].name) == len && memcmp(kInfo[t].name, s, len) == 0)
      return (hlx_dtype_t)t;
  }
  return HLX_DTYPE_INVALID;
}

bool hlx_dtype_is_pred(hlx_dtype_t t) { return t == HLX_DTYPE_PRED; }
bool hlx_dtype_is_signed_int(hlx_dtype_t t) {
  return t >= HLX_DTYPE_S2 && t <= HLX_DTYPE_S64;
}
bool hlx_dtype_is_unsigned_int(hlx_dtype_t t) {
  return t >= HLX_DTYPE_U2 && t <= HLX_DTYPE_U64;
}
bool hlx_dtype_is_int(hlx_dtype_t t) {
  return hlx_dtype_is_signed_int(t) || hlx_dtype_is_unsigned_int(t);
}
bool hlx_dtype_is_small_float(hlx_dtype_t t) {
  return t >= HLX_DTYPE_F4E2M1FN && t <= HLX_DTYPE_F8E8M0FNU;
}
bool hlx_dtype_is_float(hlx_dtype_t t) {
  return t >= HLX_DTYPE_F4E2M1FN && t <= HLX_DTYPE_F64;
}
bool hlx_dtype_is_complex(hlx_dtype_t t) {
  return t == HLX_DTYPE_C64 || t == HLX_DTYPE_C128;
}
hlx_dtype_t hlx_dtype_complex_part(hlx_dtype_t t) {
  if (t == HLX_DTYPE_C64) return HLX_DTYPE_F32;
  if (t == HLX_DTYPE_C128) return HLX_DTYPE_F64;
  return t;
}

void hlx_dtype_canonicalize_elem(hlx_dtype_t t, uint8_t* e) {
  int bits = hlx_dtype_bits(t);
  if (t == HLX_DTYPE_PRED) {
    e[0] = e[0] ? 1 : 0;
  } else if (hlx_dtype_size(t) == 1 && bits < 8) {
    uint8_t mask = (uint8_t)((1u << bits) - 1);
    uint8_t v = e[0] & mask;
    if (hlx_dtype_is_signed_int(t) && (v & (1u << (bits - 1)))) v |= (uint8_t)~mask;
    e[0] = v;
  }
}

bool hlx_dtype_read_int(hlx_dtype_t t, const void* data, size_t i,
                        int64_t* out) {
  bool is_signed = hlx_dtype_is_signed_int(t);
  if (!is_signed && !hlx_dtype_is_unsigned_int(t) && !hlx_dtype_is_pred(t))
    return false;
  const unsigned char* e = (const unsigned char*)data + i * hlx_dtype_size(t);
  switch (hlx_dtype_size(t)) {
    case 1: {
      uint8_t v = e[0];
      *out = is_signed ? (int64_t)(int8_t)v : (int64_t)v;
      return true;
    }
    case 2: {
      uint16_t v;
      memcpy(&v, e, 2);
      *out = is_signed ? (int64_t)(int16_t)v : (int64_t)v;
      return true;
    }
    case 4: {
      uint32_t v;
      memcpy(&v, e, 4);
      *out = is_signed ? (int64_t)(int32_t)v : (int64_t)v;
      return true;
    }
    case 8: {
      uint64_t v;
      memcpy(&v, e, 8);
      *out = (int64_t)v;
      return true;
    }
    default:
      return false;
  }
}
