// Test helper: reads the dense constants of StableHLO conformance programs
// (testdata/*.mlir) into raw little-endian element buffers, and compares
// results the way the StableHLO interpreter's check ops do.
#ifndef HLX_TESTS_KERNELS_MLIR_CONSTANTS_H_
#define HLX_TESTS_KERNELS_MLIR_CONSTANTS_H_

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "base/dtype.h"
#include "kernels/elementwise.h"

namespace hlx_test {

struct Tensor {
  hlx_dtype_t dtype = HLX_DTYPE_INVALID;
  size_t n = 0;
  std::vector<uint8_t> bytes;
};

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// "tensor<20x20xf32>" -> dtype F32, n = 400.
inline bool ParseTensorType(const std::string& s, hlx_dtype_t* t, size_t* n) {
  size_t b = s.find("tensor<");
  if (b == std::string::npos) return false;
  b += 7;
  size_t e = s.find('>', b);
  if (s.compare(b, 8, "complex<") == 0 || s.find("xcomplex<", b) != std::string::npos)
    e = s.find(">>", b) + 1;
  std::string body = s.substr(b, e - b);
  *n = 1;
  size_t pos = 0;
  while (true) {
    size_t x = body.find('x', pos);
    if (x == std::string::npos || !isdigit((unsigned char)body[pos])) break;
    *n *= strtoull(body.c_str() + pos, nullptr, 10);
    pos = x + 1;
  }
  std::string ty = body.substr(pos);
  *t = hlx_dtype_from_name(ty.c_str(), ty.size());
  return *t != HLX_DTYPE_INVALID;
}

inline void PutValue(hlx_dtype_t t, double re, double im, uint64_t bits,
                     bool is_bits, bool is_int, int64_t iv, uint8_t* out) {
  size_t es = hlx_dtype_size(t);
  if (is_bits && !hlx_dtype_is_complex(t)) {
    memcpy(out, &bits, es);
    return;
  }
  if (hlx_dtype_is_int(t) || hlx_dtype_is_pred(t)) {
    int64_t v = is_int ? iv : (int64_t)re;
    memcpy(out, &v, es);
    return;
  }
  if (hlx_dtype_is_complex(t)) {
    if (t == HLX_DTYPE_C64) {
      float f[2] = {(float)re, (float)im};
      memcpy(out, f, 8);
    } else {
      double d[2] = {re, im};
      memcpy(out, d, 16);
    }
    return;
  }
  if (t == HLX_DTYPE_F32) {
    float f = (float)re;
    memcpy(out, &f, 4);
    return;
  }
  hlx_ref_convert(HLX_DTYPE_F64, &re, t, out, 1);
}

// A complex component given as a bit pattern (f32 for C64, else f64).
inline double BitsToDouble(hlx_dtype_t complex_type, uint64_t bits) {
  if (complex_type == HLX_DTYPE_C64) {
    uint32_t u = (uint32_t)bits;
    float f;
    memcpy(&f, &u, 4);
    return f;
  }
  double d;
  memcpy(&d, &bits, 8);
  return d;
}

// Parses the element list of dense<...> (hex blob, nested list or splat).
inline bool ParseDense(const std::string& text, hlx_dtype_t t, size_t n,
                       Tensor* out) {
  out->dtype = t;
  out->n = n;
  size_t es = hlx_dtype_size(t);
  out->bytes.assign(n * es, 0);
  if (text.size() > 2 && text[0] == '"') {
    std::string hex = text.substr(3, text.find('"', 1) - 3);
    std::vector<uint8_t> raw(hex.size() / 2);
    for (size_t i = 0; i < raw.size(); i++)
      raw[i] = (uint8_t)strtoul(hex.substr(2 * i, 2).c_str(), nullptr, 16);
    if (raw.size() == n * es) {
      out->bytes = raw;
    } else if (raw.size() == es) {  // splat
      for (size_t i = 0; i < n; i++) memcpy(&out->bytes[i * es], raw.data(), es);
    } else {
      return false;
    }
    return true;
  }
  std::vector<std::vector<uint8_t>> vals;
  const char* p = text.c_str();
  auto number = [&](const char*& q, double* d, uint64_t* bits, bool* is_bits,
                    int64_t* iv, bool* is_int) {
    while (*q == ' ' || *q == '[' || *q == ',') q++;
    *is_bits = false;
    *is_int = false;
    if (strncmp(q, "true", 4) == 0) { *d = 1; *iv = 1; *is_int = true; q += 4; return; }
    if (strncmp(q, "false", 5) == 0) { *d = 0; *iv = 0; *is_int = true; q += 5; return; }
    if (q[0] == '0' && (q[1] == 'x' || q[1] == 'X')) {
      char* e;
      *bits = strtoull(q, &e, 16);
      *is_bits = true;
      *iv = (int64_t)*bits;
      q = e;
      return;
    }
    char* e;
    *iv = *q == '-' ? strtoll(q, &e, 10) : (int64_t)strtoull(q, &e, 10);
    const char* ie = e;
    *d = strtod(q, &e);
    *is_int = (ie == e);
    q = e;
  };
  while (*p && *p != '>') {
    while (*p == ' ' || *p == '[' || *p == ']' || *p == ',' || *p == '\n') p++;
    if (!*p || *p == '>') break;
    std::vector<uint8_t> v(es);
    double re = 0, im = 0;
    uint64_t bits = 0;
    bool is_bits, is_int;
    int64_t iv = 0;
    if (*p == '(') {
      p++;
      uint64_t b2;
      bool ib2, ii2;
      int64_t iv2;
      number(p, &re, &bits, &is_bits, &iv, &is_int);
      if (is_bits) re = BitsToDouble(t, bits);
      number(p, &im, &b2, &ib2, &iv2, &ii2);
      if (ib2) im = BitsToDouble(t, b2);
      while (*p && *p != ')') p++;
      if (*p) p++;
      PutValue(t, re, im, 0, false, false, 0, v.data());
    } else {
      number(p, &re, &bits, &is_bits, &iv, &is_int);
      PutValue(t, re, im, bits, is_bits, is_int, iv, v.data());
    }
    vals.push_back(v);
  }
  if (vals.size() == 1) {
    for (size_t i = 0; i < n; i++) memcpy(&out->bytes[i * es], vals[0].data(), es);
    return true;
  }
  if (vals.size() != n) return false;
  for (size_t i = 0; i < n; i++) memcpy(&out->bytes[i * es], vals[i].data(), es);
  return true;
}

// Every `stablehlo.constant dense<...> : tensor<...>` in the body of
// `func.func private @<name>`, in order.
inline std::vector<Tensor> FunctionConstants(const std::string& src,
                                             const std::string& name) {
  std::vector<Tensor> out;
  size_t b = src.find("func.func private @" + name + "(");
  if (b == std::string::npos) return out;
  size_t e = src.find("\n  }", b);
  size_t p = b;
  while (true) {
    p = src.find("stablehlo.constant dense<", p);
    if (p == std::string::npos || p > e) break;
    p += 25;
    size_t colon = src.find(" : tensor<", p);
    size_t eol = src.find('\n', colon);
    hlx_dtype_t t;
    size_t n;
    Tensor tensor;
    if (!ParseTensorType(src.substr(colon, eol - colon), &t, &n) ||
        !ParseDense(src.substr(p, colon - p), t, n, &tensor))
      return {};
    out.push_back(tensor);
  }
  return out;
}

// Distance in ULPs between two values of a float dtype given as bits.
inline uint64_t UlpDistance(int bits, uint64_t a, uint64_t b) {
  auto key = [&](uint64_t v) -> int64_t {
    uint64_t sign = (v >> (bits - 1)) & 1;
    int64_t mag = (int64_t)(v & ((bits == 64 ? 0 : ((uint64_t)1 << (bits - 1))) - 1));
    if (bits == 64) mag = (int64_t)(v & 0x7fffffffffffffffull);
    return sign ? -mag : mag;
  };
  int64_t d = key(a) - key(b);
  return (uint64_t)(d < 0 ? -d : d);
}

}  // namespace hlx_test

#endif  // HLX_TESTS_KERNELS_MLIR_CONSTANTS_H_
