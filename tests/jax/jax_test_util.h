// Helpers of the JAX custom-call tests: building one-custom_call programs,
// running StableHLO text through the public API (specialising
// shape-polymorphic programs to their inputs), and small dense complex
// matrix algebra to check factorizations by their defining relations.
#ifndef HLX_TESTS_JAX_JAX_TEST_UTIL_H_
#define HLX_TESTS_JAX_JAX_TEST_UTIL_H_

#include <complex>
#include <cstring>
#include <string>
#include <vector>

#include "api/hlx.h"
#include "base/dtype.h"

namespace jaxtest {

using cd = std::complex<double>;

// A tensor: element type, dims, values widened to complex<double> (floats)
// or int64 (integers, bools).
struct Tensor {
  hlx_dtype_t dtype = HLX_DTYPE_F32;
  std::vector<int64_t> dims;
  std::vector<cd> v;       // float / complex elements
  std::vector<int64_t> i;  // integer elements
  int64_t size() const {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
  }
};

inline bool IsFloatLike(hlx_dtype_t t) {
  return hlx_dtype_is_float(t) || hlx_dtype_is_complex(t);
}

inline std::vector<uint8_t> Encode(const Tensor& t) {
  size_t es = hlx_dtype_size(t.dtype);
  int64_t n = t.size();
  std::vector<uint8_t> b((size_t)n * es);
  for (int64_t k = 0; k < n; k++) {
    uint8_t* p = b.data() + (size_t)k * es;
    switch (t.dtype) {
      case HLX_DTYPE_F32: { float f = (float)t.v[k].real(); memcpy(p, &f, 4); break; }
      case HLX_DTYPE_F64: { double f = t.v[k].real(); memcpy(p, &f, 8); break; }
      case HLX_DTYPE_C64: {
        float f[2] = {(float)t.v[k].real(), (float)t.v[k].imag()};
        memcpy(p, f, 8);
        break;
      }
      case HLX_DTYPE_C128: {
        double f[2] = {t.v[k].real(), t.v[k].imag()};
        memcpy(p, f, 16);
        break;
      }
      case HLX_DTYPE_PRED: case HLX_DTYPE_U8: p[0] = (uint8_t)t.i[k]; break;
      case HLX_DTYPE_S32: { int32_t x = (int32_t)t.i[k]; memcpy(p, &x, 4); break; }
      case HLX_DTYPE_U32: { uint32_t x = (uint32_t)t.i[k]; memcpy(p, &x, 4); break; }
      default: { int64_t x = t.i[k]; memcpy(p, &x, 8); break; }
    }
  }
  return b;
}

inline Tensor Decode(hlx_dtype_t dt, const std::vector<int64_t>& dims,
                     const void* data) {
  Tensor t;
  t.dtype = dt;
  t.dims = dims;
  int64_t n = t.size();
  const uint8_t* p = static_cast<const uint8_t*>(data);
  size_t es = hlx_dtype_size(dt);
  for (int64_t k = 0; k < n; k++, p += es) {
    switch (dt) {
      case HLX_DTYPE_F32: { float f; memcpy(&f, p, 4); t.v.push_back(f); break; }
      case HLX_DTYPE_F64: { double f; memcpy(&f, p, 8); t.v.push_back(f); break; }
      case HLX_DTYPE_C64: { float f[2]; memcpy(f, p, 8); t.v.push_back(cd(f[0], f[1])); break; }
      case HLX_DTYPE_C128: { double f[2]; memcpy(f, p, 16); t.v.push_back(cd(f[0], f[1])); break; }
      case HLX_DTYPE_PRED: case HLX_DTYPE_U8: t.i.push_back(p[0]); break;
      case HLX_DTYPE_S32: { int32_t x; memcpy(&x, p, 4); t.i.push_back(x); break; }
      case HLX_DTYPE_U32: { uint32_t x; memcpy(&x, p, 4); t.i.push_back(x); break; }
      default: { int64_t x; memcpy(&x, p, 8); t.i.push_back(x); break; }
    }
  }
  return t;
}

// Parses, specialises when shape-polymorphic, compiles and runs `text` on
// `args`; false with *err on any failure.
inline bool Run(const std::string& text, const std::vector<Tensor>& args,
                std::vector<Tensor>* outs, std::string* err) {
  hlx_program_t* p = nullptr;
  hlx_program_t* sp = nullptr;
  hlx_executable_t* e = nullptr;
  std::vector<hlx_buffer_t*> bufs;
  hlx_status_t s = hlx_program_parse(text.data(), text.size(), "test.mlir", 1, &p);
  for (size_t a = 0; !s && a < args.size(); a++) {
    hlx_tensor_desc_t d = {};
    d.element_type = args[a].dtype;
    d.rank = (int32_t)args[a].dims.size();
    for (int32_t k = 0; k < d.rank; k++) d.dims[k] = args[a].dims[k];
    std::vector<uint8_t> bytes = Encode(args[a]);
    hlx_buffer_t* b = nullptr;
    s = hlx_buffer_create(&d, bytes.data(), &b);
    if (!s) bufs.push_back(b);
  }
  if (!s && hlx_program_function_is_dynamic(p, nullptr)) {
    s = hlx_program_specialize(p, nullptr, bufs.data(), (int32_t)bufs.size(), &sp);
  }
  if (!s) {
    hlx_compile_options_t o;
    hlx_compile_options_init(&o);
    s = hlx_executable_create(sp ? sp : p, &o, &e);
  }
  std::vector<hlx_buffer_t*> res;
  if (!s) {
    res.resize((size_t)hlx_executable_num_results(e));
    s = hlx_executable_run(e, bufs.data(), (int32_t)bufs.size(), res.data(),
                           (int32_t)res.size());
  }
  if (!s) {
    outs->clear();
    for (hlx_buffer_t* r : res) {
      const hlx_tensor_desc_t* d = hlx_buffer_desc(r);
      std::vector<int64_t> dims(d->dims, d->dims + d->rank);
      outs->push_back(Decode((hlx_dtype_t)d->element_type, dims, hlx_buffer_data(r)));
      hlx_buffer_destroy(r);
    }
  }
  bool ok = !s;
  if (s) *err = hlx_status_get_message(s);
  hlx_status_release(s);
  for (hlx_buffer_t* b : bufs) hlx_buffer_destroy(b);
  hlx_executable_destroy(e);
  hlx_program_destroy(sp);
  hlx_program_destroy(p);
  return ok;
}

// ---- Dense matrices (row-major, complex<double>) -------------------------

struct Mat {
  int64_t r = 0, c = 0;
  std::vector<cd> a;
  Mat() = default;
  Mat(int64_t rows, int64_t cols) : r(rows), c(cols), a((size_t)(rows * cols)) {}
  cd& operator()(int64_t i, int64_t j) { return a[(size_t)(i * c + j)]; }
  cd operator()(int64_t i, int64_t j) const { return a[(size_t)(i * c + j)]; }
};

// Matrix b of a tensor whose last two dims are its rows and columns.
inline Mat MatOf(const Tensor& t, int64_t b) {
  size_t k = t.dims.size();
  Mat m(t.dims[k - 2], t.dims[k - 1]);
  for (int64_t x = 0; x < m.r * m.c; x++) m.a[(size_t)x] = t.v[(size_t)(b * m.r * m.c + x)];
  return m;
}

inline Mat Mul(const Mat& x, const Mat& y) {
  Mat z(x.r, y.c);
  for (int64_t i = 0; i < x.r; i++)
    for (int64_t k = 0; k < x.c; k++)
      for (int64_t j = 0; j < y.c; j++) z(i, j) += x(i, k) * y(k, j);
  return z;
}

inline Mat H(const Mat& x) {
  Mat z(x.c, x.r);
  for (int64_t i = 0; i < x.r; i++)
    for (int64_t j = 0; j < x.c; j++) z(j, i) = std::conj(x(i, j));
  return z;
}

inline Mat Eye(int64_t n) {
  Mat z(n, n);
  for (int64_t i = 0; i < n; i++) z(i, i) = 1;
  return z;
}

inline double Norm(const Mat& x) {
  double s = 0;
  for (const cd& v : x.a) s += std::norm(v);
  return std::sqrt(s);
}

// ||x - y|| / max(1, ||y||).
inline double RelDiff(const Mat& x, const Mat& y) {
  Mat d = x;
  for (size_t k = 0; k < d.a.size(); k++) d.a[k] -= y.a[k];
  double n = Norm(y);
  return Norm(d) / (n > 1 ? n : 1);
}

// Tolerance of a relation for an element type.
inline double Tol(hlx_dtype_t t) {
  return t == HLX_DTYPE_F32 || t == HLX_DTYPE_C64 ? 2e-4 : 1e-10;
}

}  // namespace jaxtest

#endif  // HLX_TESTS_JAX_JAX_TEST_UTIL_H_
