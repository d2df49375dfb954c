// dot_general's library path (libxsmm for small shapes, oneDNN otherwise;
// graph/lower/dot.c) against its reference path, through the public API:
// each program is compiled twice, once with HLX_DOT_REFERENCE set (which
// keeps every dot_general on the reference kernels) and once without.
//
// f32 tolerance: both paths sum K products in f32, each within
// gamma_K * sum|a b| (gamma_K ~ K * 2^-24) of the exact value, so they agree
// within 2 * K * eps * sum|a b|; sum|a b| comes from a reference run on
// |a|, |b|. bf16/f16/int8 cases use small quarter-integers whose products
// and sums are exact in f32/s32, so those must agree bitwise.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "api/hlx.h"

namespace {

struct Case {
  const char* name;
  std::vector<int64_t> a_dims, b_dims, out_dims;
  const char* a_type;
  const char* b_type;
  const char* out_type;
  const char* dims;  // dot_general dimension clause
  int64_t k;         // contracted size (for the tolerance)
};

std::string TensorType(const std::vector<int64_t>& d, const char* t) {
  std::ostringstream s;
  s << "tensor<";
  for (int64_t x : d) s << x << "x";
  s << t << ">";
  return s.str();
}

std::string Program(const Case& c) {
  std::string a = TensorType(c.a_dims, c.a_type);
  std::string b = TensorType(c.b_dims, c.b_type);
  std::string o = TensorType(c.out_dims, c.out_type);
  return "func.func @main(%a: " + a + ", %b: " + b + ") -> " + o +
         " {\n  %0 = stablehlo.dot_general %a, %b, " + c.dims + " : (" + a +
         ", " + b + ") -> " + o + "\n  return %0 : " + o + "\n}\n";
}

int64_t Count(const std::vector<int64_t>& d) {
  int64_t n = 1;
  for (int64_t x : d) n *= x;
  return n;
}

uint16_t HalfBits(double v) {  // exact for the quarter-integers used here
  if (v == 0) return 0;
  uint16_t sign = v < 0 ? 0x8000 : 0;
  int e;
  double m = std::frexp(std::fabs(v), &e);  // v = m * 2^e, m in [0.5, 1)
  int exp = e - 1 + 15;
  uint16_t mant = static_cast<uint16_t>((m * 2 - 1) * 1024);
  return sign | static_cast<uint16_t>(exp << 10) | mant;
}

// Encodes doubles as `type` elements.
std::vector<unsigned char> Encode(const std::vector<double>& v,
                                  const std::string& type) {
  std::vector<unsigned char> out;
  auto put = [&](const void* p, size_t n) {
    const unsigned char* b = static_cast<const unsigned char*>(p);
    out.insert(out.end(), b, b + n);
  };
  for (double x : v) {
    if (type == "f32") {
      float f = static_cast<float>(x);
      put(&f, 4);
    } else if (type == "f64") {
      put(&x, 8);
    } else if (type == "bf16") {
      float f = static_cast<float>(x);
      uint32_t u;
      std::memcpy(&u, &f, 4);
      uint16_t h = static_cast<uint16_t>(u >> 16);
      put(&h, 2);
    } else if (type == "f16") {
      uint16_t h = HalfBits(x);
      put(&h, 2);
    } else if (type == "i8") {
      int8_t i = static_cast<int8_t>(x);
      put(&i, 1);
    } else if (type == "ui8") {
      uint8_t i = static_cast<uint8_t>(x);
      put(&i, 1);
    }
  }
  return out;
}

std::vector<double> Decode(const hlx_buffer_t* b, const std::string& type,
                           int64_t n) {
  std::vector<double> r(n);
  const unsigned char* p = static_cast<const unsigned char*>(hlx_buffer_data(b));
  for (int64_t i = 0; i < n; i++) {
    if (type == "f32") {
      float f;
      std::memcpy(&f, p + 4 * i, 4);
      r[i] = f;
    } else if (type == "f64") {
      std::memcpy(&r[i], p + 8 * i, 8);
    } else if (type == "i32") {
      int32_t v;
      std::memcpy(&v, p + 4 * i, 4);
      r[i] = v;
    }
  }
  return r;
}

// Compiles and runs the case on (a, b) on an executable of `threads`
// threads (0: the default pool); returns the result as doubles.
std::vector<double> Run(const Case& c, const std::vector<double>& a,
                        const std::vector<double>& b, bool reference,
                        int32_t threads = 0) {
  if (reference)
    setenv("HLX_DOT_REFERENCE", "1", 1);
  else
    unsetenv("HLX_DOT_REFERENCE");
  std::string text = Program(c);
  hlx_program_t* prog = nullptr;
  hlx_executable_t* exe = nullptr;
  hlx_status_t s = hlx_program_parse(text.data(), text.size(), "t.mlir", 1,
                                     &prog);
  hlx_compile_options_t co;
  hlx_compile_options_init(&co);
  co.num_threads = threads;
  if (!s) s = hlx_executable_create(prog, &co, &exe);
  unsetenv("HLX_DOT_REFERENCE");
  EXPECT_EQ(s, nullptr) << hlx_status_get_message(s) << "\n" << text;
  if (s) {
    hlx_status_release(s);
    hlx_program_destroy(prog);
    return {};
  }
  const std::vector<int64_t>* dims[2] = {&c.a_dims, &c.b_dims};
  const char* types[2] = {c.a_type, c.b_type};
  const std::vector<double>* vals[2] = {&a, &b};
  hlx_buffer_t* in[2];
  for (int i = 0; i < 2; i++) {
    hlx_tensor_desc_t d = {};
    d.element_type = hlx_element_type_from_name(types[i]);
    d.rank = static_cast<int32_t>(dims[i]->size());
    for (size_t j = 0; j < dims[i]->size(); j++) d.dims[j] = (*dims[i])[j];
    std::vector<unsigned char> bytes = Encode(*vals[i], types[i]);
    EXPECT_EQ(hlx_buffer_create(&d, bytes.data(), &in[i]), nullptr);
  }
  hlx_buffer_t* out[1] = {nullptr};
  s = hlx_executable_run(exe, in, 2, out, 1);
  EXPECT_EQ(s, nullptr) << hlx_status_get_message(s);
  std::vector<double> r;
  if (!s) r = Decode(out[0], c.out_type, Count(c.out_dims));
  hlx_status_release(s);
  if (out[0]) hlx_buffer_destroy(out[0]);
  hlx_buffer_destroy(in[0]);
  hlx_buffer_destroy(in[1]);
  hlx_executable_destroy(exe);
  hlx_program_destroy(prog);
  return r;
}

std::vector<double> Data(int64_t n, uint32_t seed, bool quarters) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> d(-1, 1);
  std::uniform_int_distribution<int> q(-8, 8);
  std::vector<double> v(n);
  for (auto& x : v) x = quarters ? q(g) / 4.0 : static_cast<float>(d(g));
  return v;
}

// The library path (on `threads` threads) against the reference; returns
// the library's result.
std::vector<double> Check(const Case& c, int32_t threads = 0) {
  SCOPED_TRACE(c.name);
  std::string at = c.a_type;
  bool exact = at != "f32" && at != "f64";
  bool ints = at == "i8" || at == "ui8";
  std::vector<double> a = Data(Count(c.a_dims), 1, exact);
  std::vector<double> b = Data(Count(c.b_dims), 2, exact);
  if (ints) {
    for (auto& x : a) x = std::round(x * 4 * 15) + (at == "ui8" ? 128 : 0);
    for (auto& x : b) x = std::round(x * 4 * 15);
  }
  std::vector<double> lib = Run(c, a, b, false, threads);
  std::vector<double> ref = Run(c, a, b, true);
  EXPECT_EQ(lib.size(), static_cast<size_t>(Count(c.out_dims)));
  EXPECT_EQ(ref.size(), lib.size());
  if (lib.size() != ref.size()) return lib;
  if (exact) {
    for (size_t i = 0; i < lib.size(); i++) {
      EXPECT_EQ(lib[i], ref[i]) << i;
      if (lib[i] != ref[i]) break;
    }
    return lib;
  }
  for (auto& x : a) x = std::fabs(x);
  for (auto& x : b) x = std::fabs(x);
  std::vector<double> mag = Run(c, a, b, true);
  double eps = std::string(c.out_type) == "f64" ? DBL_EPSILON : FLT_EPSILON;
  for (size_t i = 0; i < lib.size(); i++) {
    double tol = 2.0 * c.k * eps * mag[i] + 1e-300;
    EXPECT_NEAR(lib[i], ref[i], tol) << i;
    if (!(std::fabs(lib[i] - ref[i]) <= tol)) break;
  }
  return lib;
}

TEST(DotLibraryPath, F32LayoutsMatchReference) {
  const Case cases[] = {
      {"small plain (libxsmm)", {4, 3}, {3, 6}, {4, 6}, "f32", "f32", "f32",
       "contracting_dims = [1] x [0]", 3},
      {"small rhs transposed (libxsmm, one copy)", {5, 7}, {9, 7}, {5, 9},
       "f32", "f32", "f32", "contracting_dims = [1] x [1]", 7},
      {"small batched", {6, 8, 16}, {6, 16, 8}, {6, 8, 8}, "f32", "f32",
       "f32", "batching_dims = [0] x [0], contracting_dims = [2] x [1]", 16},
      {"large lhs transposed (oneDNN strides)", {200, 80}, {200, 90},
       {80, 90}, "f32", "f32", "f32", "contracting_dims = [0] x [0]", 200},
      {"large batched", {3, 70, 70}, {3, 70, 70}, {3, 70, 70}, "f32", "f32",
       "f32", "batching_dims = [0] x [0], contracting_dims = [2] x [1]", 70},
      {"batch dim in the middle", {65, 2, 33}, {33, 2, 70}, {2, 65, 70},
       "f32", "f32", "f32",
       "batching_dims = [1] x [1], contracting_dims = [2] x [0]", 33},
      {"two contracting dims, rhs not collapsible", {40, 9, 11}, {11, 9, 70},
       {40, 70}, "f32", "f32", "f32", "contracting_dims = [1, 2] x [1, 0]",
       99},
      {"two free dims each side", {5, 13, 40}, {40, 6, 11}, {5, 13, 6, 11},
       "f32", "f32", "f32", "contracting_dims = [2] x [0]", 40},
      {"vector x matrix", {300}, {300, 100}, {100}, "f32", "f32", "f32",
       "contracting_dims = [0] x [0]", 300},
      {"matrix x vector", {100, 300}, {300}, {100}, "f32", "f32", "f32",
       "contracting_dims = [1] x [0]", 300},
      {"f64 small (libxsmm)", {5, 9}, {7, 9}, {5, 7}, "f64", "f64", "f64",
       "contracting_dims = [1] x [1]", 9},
      // Attention with the heads interleaved with the tokens: the batch
      // dims [batch, head] do not collapse, so they split into an outer and
      // an inner batch read in place (no copy). Scores Q K^T, then P V.
      {"attention scores, two batch dims (oneDNN, 4-d strides)",
       {6, 79, 8, 32}, {6, 79, 8, 32}, {6, 8, 79, 79}, "f32", "f32", "f32",
       "batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3]", 32},
      {"attention values, two batch dims (oneDNN, column-major both)",
       {6, 79, 8, 32}, {6, 8, 79, 79}, {6, 8, 32, 79}, "f32", "f32", "f32",
       "batching_dims = [0, 2] x [0, 1], contracting_dims = [1] x [3]", 79},
      {"attention scores, small (libxsmm, outer batch loop, rhs copied)",
       {3, 9, 4, 8}, {3, 9, 4, 8}, {3, 4, 9, 9}, "f32", "f32", "f32",
       "batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3]", 8},
      {"split batch, both read in place (libxsmm)", {4, 7, 3, 6},
       {3, 4, 6, 5}, {4, 3, 7, 5}, "f32", "f32", "f32",
       "batching_dims = [0, 2] x [1, 0], contracting_dims = [3] x [2]", 6},
      {"split batch, large (oneDNN)", {4, 70, 3, 66}, {3, 4, 66, 65},
       {4, 3, 70, 65}, "f32", "f32", "f32",
       "batching_dims = [0, 2] x [1, 0], contracting_dims = [3] x [2]", 66},
  };
  for (const Case& c : cases) Check(c);
}

TEST(DotLibraryPath, NarrowTypesMatchReferenceExactly) {
  const Case cases[] = {
      {"bf16 -> f32 (oneDNN bf16)", {70, 90}, {90, 80}, {70, 80}, "bf16",
       "bf16", "f32", "contracting_dims = [1] x [0]", 90},
      {"bf16 -> f32 transposed", {90, 70}, {80, 90}, {70, 80}, "bf16", "bf16",
       "f32", "contracting_dims = [0] x [1]", 90},
      {"f16 -> f32 small (converted, libxsmm)", {4, 3}, {3, 6}, {4, 6}, "f16",
       "f16", "f32", "contracting_dims = [1] x [0]", 3},
      {"f16 -> f32 large (converted, oneDNN)", {2, 66, 70}, {2, 70, 68},
       {2, 66, 68}, "f16", "f16", "f32",
       "batching_dims = [0] x [0], contracting_dims = [2] x [1]", 70},
      {"i8 x i8 -> i32 (oneDNN int8)", {70, 90}, {90, 80}, {70, 80}, "i8",
       "i8", "i32", "contracting_dims = [1] x [0]", 90},
      {"ui8 x i8 -> i32 batched", {2, 65, 70}, {2, 70, 66}, {2, 65, 66},
       "ui8", "i8", "i32",
       "batching_dims = [0] x [0], contracting_dims = [2] x [1]", 70},
  };
  for (const Case& c : cases) Check(c);
}

// libxsmm work above graph/lower/dot.c's split threshold (B*M*N*K >= 2^16) runs
// on a 2-thread executable split over both threads: a batch by whole
// products (batches not divisible by 2, one with an outer x inner split),
// each product by the same kernel as on one thread, so the 2-thread result
// must equal the 1-thread (unsplit) one bit for bit; one product in row
// blocks (odd M: the last block is a shorter tail) by kernels of another
// height, whose register blocking libxsmm picks by height (f64 at M = 45,
// 23 + 22 rows: 17 of 1800 results differ from the whole kernel's in the
// last ulp): those are checked against the reference, and since the cut
// does not depend on the thread count, the 1- and 2-thread results must
// also agree bit for bit.
TEST(DotLibraryPath, LibxsmmSplitOverThreadsMatchesReference) {
  const Case cases[] = {
      // One product in row blocks.
      {"f32 one product, M = 63 (row blocks 32 + 31)", {63, 64}, {64, 64},
       {63, 64}, "f32", "f32", "f32", "contracting_dims = [1] x [0]", 64},
      {"f32 one product, rhs transposed (copied), M = 63", {63, 64},
       {50, 64}, {63, 50}, "f32", "f32", "f32",
       "contracting_dims = [1] x [1]", 64},
      {"f64 one product, M = 45 (row blocks 23 + 22)", {45, 48}, {48, 40},
       {45, 40}, "f64", "f64", "f64", "contracting_dims = [1] x [0]", 48},
      // Batches by whole products.
      {"f32 batch of 5", {5, 32, 32}, {5, 32, 32}, {5, 32, 32}, "f32", "f32",
       "f32", "batching_dims = [0] x [0], contracting_dims = [2] x [1]", 32},
      {"f64 batch of 7", {7, 24, 28}, {7, 28, 20}, {7, 24, 20}, "f64", "f64",
       "f64", "batching_dims = [0] x [0], contracting_dims = [2] x [1]", 28},
      {"f32 outer x inner batch 5 x 3, read in place", {5, 33, 3, 30},
       {3, 5, 30, 29}, {5, 3, 33, 29}, "f32", "f32", "f32",
       "batching_dims = [0, 2] x [1, 0], contracting_dims = [3] x [2]", 30},
  };
  for (const Case& c : cases) {
    std::vector<double> two = Check(c, 2);
    std::vector<double> one = Check(c, 1);
    SCOPED_TRACE(c.name);
    ASSERT_EQ(two.size(), one.size());
    ASSERT_FALSE(one.empty());
    EXPECT_EQ(std::memcmp(two.data(), one.data(), one.size() * sizeof(double)),
              0);
  }
}

}  // namespace
