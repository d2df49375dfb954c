// The cumsum / cumprod / cummax reduce_window pattern and JAX's sort /
// argsort comparators through the public API (the lowering's fast paths,
// 1 and 2 threads) against brute-force models of the spec's definitions
// (the kernel headers clash with api/hlx.h, so no kernel is called here).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "api/hlx.h"

namespace {

// Compiles and runs `text` on one input of `type` / dims; returns results'
// bytes.
std::vector<std::vector<unsigned char>> RunProgram(const std::string& text,
                                            const char* type,
                                            const std::vector<int64_t>& dims,
                                            const void* data, int nres,
                                            int threads) {
  std::vector<std::vector<unsigned char>> res;
  hlx_program_t* p = nullptr;
  hlx_executable_t* e = nullptr;
  hlx_compile_options_t o;
  hlx_compile_options_init(&o);
  o.num_threads = threads;
  hlx_status_t s = hlx_program_parse(text.data(), text.size(), "t.mlir", 1, &p);
  if (!s) s = hlx_executable_create(p, &o, &e);
  EXPECT_EQ(s, nullptr) << hlx_status_get_message(s);
  hlx_buffer_t* b = nullptr;
  if (!s) {
    hlx_tensor_desc_t d = {};
    d.element_type = hlx_element_type_from_name(type);
    d.rank = (int32_t)dims.size();
    for (size_t i = 0; i < dims.size(); i++) d.dims[i] = dims[i];
    s = hlx_buffer_create(&d, data, &b);
  }
  std::vector<hlx_buffer_t*> out((size_t)nres, nullptr);
  if (!s) s = hlx_executable_run(e, &b, 1, out.data(), nres);
  EXPECT_EQ(s, nullptr) << hlx_status_get_message(s);
  if (!s)
    for (auto* r : out) {
      const unsigned char* d =
          static_cast<const unsigned char*>(hlx_buffer_data(r));
      res.emplace_back(d, d + hlx_buffer_bytes(r));
      hlx_buffer_destroy(r);
    }
  hlx_status_release(s);
  hlx_buffer_destroy(b);
  hlx_executable_destroy(e);
  hlx_program_destroy(p);
  return res;
}

std::string Shape(const std::vector<int64_t>& dims, const char* t) {
  std::string s = "tensor<";
  for (int64_t d : dims) s += std::to_string(d) + "x";
  return s + t + ">";
}

// jnp.cumsum-style program: reduce_window along `axis`, as JAX exports it.
std::string CumProgram(const std::vector<int64_t>& dims, int axis,
                       bool reverse, const char* t, const char* body,
                       const char* init) {
  std::string win, pad;
  for (size_t d = 0; d < dims.size(); d++) {
    bool a = (int)d == axis;
    win += (d ? ", " : "") + std::to_string(a ? dims[d] : 1);
    int64_t lo = a && !reverse ? dims[d] - 1 : 0;
    int64_t hi = a && reverse ? dims[d] - 1 : 0;
    pad += std::string(d ? ", " : "") + "[" + std::to_string(lo) + ", " +
           std::to_string(hi) + "]";
  }
  std::string ty = Shape(dims, t), st = std::string("tensor<") + t + ">";
  return "func.func @main(%a: " + ty + ") -> " + ty + " {\n" +
         "  %0 = stablehlo.constant dense<" + init + "> : " + st + "\n" +
         "  %1 = \"stablehlo.reduce_window\"(%a, %0) <{padding = dense<[" +
         pad + "]> : tensor<" + std::to_string(dims.size()) +
         "x2xi64>, window_dimensions = array<i64: " + win + ">}> ({\n" +
         "  ^bb0(%x: " + st + ", %y: " + st + "):\n" + "    %2 = stablehlo." +
         body + " %x, %y : " + st + "\n" + "    stablehlo.return %2 : " + st +
         "\n  }) : (" + ty + ", " + st + ") -> " + ty + "\n  return %1 : " +
         ty + "\n}\n";
}

// The spec's reduce_window on a cumulative window of a [R, C] input: each
// output starts from init, folds init per hole and the inputs in window
// order (forward: holes then x[0..i]; reverse: x[i..n) then holes).
template <typename T, typename F>
std::vector<T> CumModel(const T* x, const std::vector<int64_t>& dims,
                        int axis, bool rev, T init, F f) {
  int64_t R = dims[0], C = dims[1], n = dims[axis];
  std::vector<T> out((size_t)(R * C));
  for (int64_t r = 0; r < R; r++)
    for (int64_t c = 0; c < C; c++) {
      int64_t i = axis == 0 ? r : c;
      auto at = [&](int64_t k) { return axis == 0 ? x[k * C + c] : x[r * C + k]; };
      T acc = init;
      if (!rev) {
        for (int64_t h = 0; h < n - 1 - i; h++) acc = f(acc, init);
        for (int64_t k = 0; k <= i; k++) acc = f(acc, at(k));
      } else {
        for (int64_t k = i; k < n; k++) acc = f(acc, at(k));
        for (int64_t h = 0; h < i; h++) acc = f(acc, init);
      }
      out[(size_t)(r * C + c)] = acc;
    }
  return out;
}

int32_t WrapAdd(int32_t a, int32_t b) {
  return (int32_t)((uint32_t)a + (uint32_t)b);
}
int32_t WrapMul(int32_t a, int32_t b) {
  return (int32_t)((uint32_t)a * (uint32_t)b);
}

TEST(ScanLowering, CumulativeWindowsMatchTheSpec) {
  std::mt19937 rng(1);
  const std::vector<int64_t> dims = {37, 300};
  std::vector<float> xf(37 * 300);
  std::vector<int32_t> xi(37 * 300);
  for (auto& v : xf) v = (float)(rng() % 2001) / 1000.0f - 1.0f;
  for (auto& v : xi) v = (int32_t)rng();
  for (int axis = 0; axis < 2; axis++)
    for (bool rev : {false, true})
      for (int threads : {1, 2}) {
        SCOPED_TRACE(testing::Message() << "axis " << axis << " rev " << rev
                                        << " threads " << threads);
        auto fsum = RunProgram(CumProgram(dims, axis, rev, "f32", "add",
                                          "0.000000e+00"),
                               "f32", dims, xf.data(), 1, threads);
        auto fmax = RunProgram(
            CumProgram(dims, axis, rev, "f32", "maximum", "0xFF800000"), "f32",
            dims, xf.data(), 1, threads);
        auto isum = RunProgram(CumProgram(dims, axis, rev, "i32", "add", "0"),
                               "i32", dims, xi.data(), 1, threads);
        auto iprod = RunProgram(
            CumProgram(dims, axis, rev, "i32", "multiply", "1"), "i32", dims,
            xi.data(), 1, threads);
        auto imin = RunProgram(
            CumProgram(dims, axis, rev, "i32", "minimum", "2147483647"), "i32",
            dims, xi.data(), 1, threads);
        // init 3 is folded once per hole: the run-time fallback.
        auto isum3 = RunProgram(CumProgram(dims, axis, rev, "i32", "add", "3"),
                                "i32", dims, xi.data(), 1, threads);
        for (auto* r : {&fsum, &fmax, &isum, &iprod, &imin, &isum3})
          ASSERT_EQ(r->size(), 1u);
        auto wsum = CumModel<float>(xf.data(), dims, axis, rev, 0.0f,
                                    [](float a, float b) { return a + b; });
        auto wmax = CumModel<float>(
            xf.data(), dims, axis, rev, -INFINITY,
            [](float a, float b) { return a > b ? a : b; });
        auto wisum = CumModel<int32_t>(xi.data(), dims, axis, rev, 0, WrapAdd);
        auto wiprod = CumModel<int32_t>(xi.data(), dims, axis, rev, 1, WrapMul);
        auto wimin = CumModel<int32_t>(
            xi.data(), dims, axis, rev, INT32_MAX,
            [](int32_t a, int32_t b) { return a < b ? a : b; });
        auto wisum3 = CumModel<int32_t>(xi.data(), dims, axis, rev, 3, WrapAdd);
        const float* g = reinterpret_cast<const float*>(fsum[0].data());
        for (size_t i = 0; i < wsum.size(); i++) {
          if (rev || axis == 1)  // reordered sums: 2 * gamma(300) * sum |x|
            ASSERT_NEAR(g[i], wsum[i], 2 * 300 * 300 * 0x1p-24) << i;
          else
            ASSERT_EQ(g[i], wsum[i]) << i;
        }
        EXPECT_EQ(0, memcmp(fmax[0].data(), wmax.data(), wmax.size() * 4));
        EXPECT_EQ(0, memcmp(isum[0].data(), wisum.data(), wisum.size() * 4));
        EXPECT_EQ(0, memcmp(iprod[0].data(), wiprod.data(), wiprod.size() * 4));
        EXPECT_EQ(0, memcmp(imin[0].data(), wimin.data(), wimin.size() * 4));
        EXPECT_EQ(0, memcmp(isum3[0].data(), wisum3.data(), wisum3.size() * 4));
      }
}

// argsort as JAX exports it: TOTALORDER on canonicalised keys, i32 iota
// payload; and a descending i32 sort of two operands.
TEST(SortLowering, JaxArgsortAndDescendingMatchTheReference) {
  std::mt19937 rng(2);
  const int64_t n = 1001;
  std::vector<float> x(n);
  for (auto& v : x) v = (float)(rng() % 200) - 100.0f;
  x[5] = NAN;
  x[17] = -0.0f;
  x[18] = INFINITY;
  std::string ty = "tensor<1001xf32>", it = "tensor<1001xi32>";
  auto canon_of = [](const char* a) {
    std::string s(a);
    return "    %z" + s + " = stablehlo.constant dense<0.0> : tensor<f32>\n" +
           "    %e" + s + " = stablehlo.compare EQ, %" + s + ", %z" + s +
           ", FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n" + "    %s" +
           s + " = stablehlo.select %e" + s + ", %z" + s + ", %" + s +
           " : tensor<i1>, tensor<f32>\n" + "    %q" + s +
           " = stablehlo.compare NE, %" + s + ", %" + s +
           ", FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n" + "    %n" +
           s + " = stablehlo.constant dense<0x7FC00000> : tensor<f32>\n" +
           "    %c" + s + " = stablehlo.select %q" + s + ", %n" + s + ", %s" +
           s + " : tensor<i1>, tensor<f32>\n";
  };
  std::string canon = canon_of("p") + canon_of("q");
  std::string text =
      "func.func @main(%a: " + ty + ") -> (" + ty + ", " + it + ") {\n" +
      "  %i = stablehlo.iota dim = 0 : " + it + "\n" +
      "  %r:2 = \"stablehlo.sort\"(%a, %i) <{dimension = 0 : i64, is_stable "
      "= true}> ({\n" +
      "  ^bb0(%p: tensor<f32>, %q: tensor<f32>, %u: tensor<i32>, %v: "
      "tensor<i32>):\n" +
      canon +
      "    %lt = stablehlo.compare LT, %cp, %cq, TOTALORDER : (tensor<f32>, "
      "tensor<f32>) -> tensor<i1>\n" +
      "    stablehlo.return %lt : tensor<i1>\n" + "  }) : (" + ty + ", " + it +
      ") -> (" + ty + ", " + it + ")\n" + "  return %r#0, %r#1 : " + ty +
      ", " + it + "\n}\n";
  auto got = RunProgram(text, "f32", {n}, x.data(), 2, 1);
  ASSERT_EQ(got.size(), 2u);
  // Stable sort by totalOrder of the canonicalised keys (NaN -> +NaN,
  // -0 -> +0), as the comparator defines it.
  auto tkey = [](float f) {
    if (std::isnan(f)) f = NAN;
    if (f == 0.0f) f = 0.0f;
    uint32_t b;
    memcpy(&b, &f, 4);
    return (b >> 31) ? ~b : b | 0x80000000u;
  };
  std::vector<int32_t> wi(n);
  for (int i = 0; i < n; i++) wi[i] = i;
  std::stable_sort(wi.begin(), wi.end(), [&](int32_t p, int32_t q) {
    return tkey(x[p]) < tkey(x[q]);
  });
  std::vector<float> wv(n);
  for (int i = 0; i < n; i++) wv[i] = x[wi[i]];
  EXPECT_EQ(0, memcmp(got[0].data(), wv.data(), n * 4));
  EXPECT_EQ(0, memcmp(got[1].data(), wi.data(), n * 4));
  // The NaN sorts last, -0 and +0 keep their order (canonicalised equal).
  EXPECT_EQ(reinterpret_cast<const int32_t*>(got[1].data())[n - 1], 5);

  // i32 descending (GT), 2-D along dim 1, 2 threads.
  std::vector<int32_t> xi(3 * 700);
  for (auto& v : xi) v = (int32_t)(rng() % 1000) - 500;
  std::string t2 = "tensor<3x700xi32>";
  std::string text2 =
      "func.func @main(%a: " + t2 + ") -> " + t2 + " {\n" +
      "  %r = \"stablehlo.sort\"(%a) <{dimension = 1 : i64}> ({\n" +
      "  ^bb0(%p: tensor<i32>, %q: tensor<i32>):\n" +
      "    %gt = stablehlo.compare GT, %p, %q, SIGNED : (tensor<i32>, "
      "tensor<i32>) -> tensor<i1>\n" +
      "    stablehlo.return %gt : tensor<i1>\n" + "  }) : (" + t2 + ") -> " +
      t2 + "\n  return %r : " + t2 + "\n}\n";
  auto got2 = RunProgram(text2, "i32", {3, 700}, xi.data(), 1, 2);
  ASSERT_EQ(got2.size(), 1u);
  std::vector<int32_t> w2(xi);
  for (int r = 0; r < 3; r++)
    std::stable_sort(w2.begin() + r * 700, w2.begin() + (r + 1) * 700,
                     [](int32_t p, int32_t q) { return p > q; });
  EXPECT_EQ(0, memcmp(got2[0].data(), w2.data(), w2.size() * 4));
}

}  // namespace
