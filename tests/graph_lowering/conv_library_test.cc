// convolution's oneDNN path (graph/lower/conv.c) against its reference
// path, through the public API: each program is compiled with
// HLX_CONV_REFERENCE set (reference kernels, f64 accumulation) and without.
//
// Tolerance: oneDNN sums the Ci * prod(K) products of each output in f32, so
// it is within gamma_T * sum|x w| (gamma_T ~ T * 2^-24) of the exact value
// the reference rounds once; sum|x w| comes from a reference run on |x|, |w|.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "api/hlx.h"

namespace {

struct Case {
  const char* name;
  std::vector<int64_t> lhs, rhs, out;
  std::string attrs;  // dim_numbers, window, groups
  int64_t terms;      // products per output
  bool constant_rhs;  // weights as a stablehlo.constant
};

std::string T(const std::vector<int64_t>& d) {
  std::string s = "tensor<";
  for (int64_t x : d) s += std::to_string(x) + "x";
  return s + "f32>";
}

int64_t Count(const std::vector<int64_t>& d) {
  int64_t n = 1;
  for (int64_t x : d) n *= x;
  return n;
}

std::string Dense(const std::vector<float>& v) {
  std::string s = "dense<[";
  char buf[32];
  for (size_t i = 0; i < v.size(); i++) {
    snprintf(buf, sizeof(buf), "%s%.9g", i ? ", " : "", v[i]);
    s += buf;
  }
  return s + "]>";
}

std::string Program(const Case& c, const std::vector<float>& w) {
  std::string conv = "stablehlo.convolution(%a, %w) " + c.attrs + " : (" +
                     T(c.lhs) + ", " + T(c.rhs) + ") -> " + T(c.out);
  if (c.constant_rhs) {
    std::string flat = "tensor<" + std::to_string(w.size()) + "xf32>";
    return "func.func @main(%a: " + T(c.lhs) + ") -> " + T(c.out) +
           " {\n  %f = stablehlo.constant " + Dense(w) + " : " + flat +
           "\n  %w = stablehlo.reshape %f : (" + flat + ") -> " + T(c.rhs) +
           "\n  %0 = " + conv + "\n  return %0 : " + T(c.out) + "\n}\n";
  }
  return "func.func @main(%a: " + T(c.lhs) + ", %w: " + T(c.rhs) + ") -> " +
         T(c.out) + " {\n  %0 = " + conv + "\n  return %0 : " + T(c.out) +
         "\n}\n";
}

std::vector<float> Run(const Case& c, const std::vector<float>& x,
                       const std::vector<float>& w, bool reference) {
  if (reference)
    setenv("HLX_CONV_REFERENCE", "1", 1);
  else
    unsetenv("HLX_CONV_REFERENCE");
  std::string text = Program(c, w);
  hlx_program_t* prog = nullptr;
  hlx_executable_t* exe = nullptr;
  hlx_status_t s =
      hlx_program_parse(text.data(), text.size(), "t.mlir", 1, &prog);
  if (!s) s = hlx_executable_create(prog, nullptr, &exe);
  unsetenv("HLX_CONV_REFERENCE");
  EXPECT_EQ(s, nullptr) << hlx_status_get_message(s) << "\n" << text;
  if (s) {
    hlx_status_release(s);
    hlx_program_destroy(prog);
    return {};
  }
  std::vector<hlx_buffer_t*> in;
  const std::vector<int64_t>* dims[2] = {&c.lhs, &c.rhs};
  const std::vector<float>* vals[2] = {&x, &w};
  for (int i = 0; i < (c.constant_rhs ? 1 : 2); i++) {
    hlx_tensor_desc_t d = {};
    d.element_type = hlx_element_type_from_name("f32");
    d.rank = static_cast<int32_t>(dims[i]->size());
    for (size_t j = 0; j < dims[i]->size(); j++) d.dims[j] = (*dims[i])[j];
    hlx_buffer_t* b = nullptr;
    EXPECT_EQ(hlx_buffer_create(&d, vals[i]->data(), &b), nullptr);
    in.push_back(b);
  }
  hlx_buffer_t* out[1] = {nullptr};
  s = hlx_executable_run(exe, in.data(), static_cast<int32_t>(in.size()), out,
                         1);
  EXPECT_EQ(s, nullptr) << hlx_status_get_message(s);
  std::vector<float> r;
  if (!s) {
    const float* p = static_cast<const float*>(hlx_buffer_data(out[0]));
    r.assign(p, p + Count(c.out));
  }
  hlx_status_release(s);
  if (out[0]) hlx_buffer_destroy(out[0]);
  for (auto* b : in) hlx_buffer_destroy(b);
  hlx_executable_destroy(exe);
  hlx_program_destroy(prog);
  return r;
}

std::vector<float> Data(int64_t n, uint32_t seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

void Check(const Case& c) {
  SCOPED_TRACE(c.name);
  std::vector<float> x = Data(Count(c.lhs), 1), w = Data(Count(c.rhs), 2);
  std::vector<float> lib = Run(c, x, w, false);
  std::vector<float> ref = Run(c, x, w, true);
  for (auto& v : x) v = std::fabs(v);
  for (auto& v : w) v = std::fabs(v);
  std::vector<float> mag = Run(c, x, w, true);
  ASSERT_EQ(lib.size(), static_cast<size_t>(Count(c.out)));
  ASSERT_EQ(ref.size(), lib.size());
  ASSERT_EQ(mag.size(), lib.size());
  for (size_t i = 0; i < lib.size(); i++)
    ASSERT_NEAR(lib[i], ref[i], 2.0 * c.terms * FLT_EPSILON * mag[i] + 1e-30)
        << i;
}

TEST(ConvLibraryPath, MatchesReference) {
  const Case cases[] = {
      {"NCHW/OIHW (JAX) stride 2 pad 3",
       {2, 3, 20, 20},
       {16, 3, 7, 7},
       {2, 16, 10, 10},
       "dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = "
       "{stride = [2, 2], pad = [[3, 3], [3, 3]]} {batch_group_count = 1 : "
       "i64, feature_group_count = 1 : i64}",
       3 * 49, false},
      {"NHWC/HWIO, dilation, asymmetric padding",
       {1, 15, 16, 8},
       {3, 3, 8, 12},
       {1, 13, 7, 12},
       "dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = "
       "{stride = [1, 2], pad = [[1, 1], [2, 1]], rhs_dilate = [2, 3]} "
       "{batch_group_count = 1 : i64, feature_group_count = 1 : i64}",
       8 * 9, false},
      {"feature groups, mixed layouts",
       {2, 8, 9, 9},
       {3, 3, 2, 12},
       {2, 9, 9, 12},
       "dim_numbers = [b, f, 0, 1]x[0, 1, i, o]->[b, 0, 1, f], window = "
       "{pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, "
       "feature_group_count = 4 : i64}",
       2 * 9, false},
      {"1-D, constant weights (packed once)",
       {3, 30, 4},
       {3, 4, 6},
       {3, 14, 6},
       "dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {stride = "
       "[2], pad = [[0, 0]]} {batch_group_count = 1 : i64, "
       "feature_group_count = 1 : i64}",
       12, true},
      {"2-D constant NCHW weights",
       {1, 16, 8, 8},
       {32, 16, 3, 3},
       {1, 32, 8, 8},
       "dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = "
       "{pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, "
       "feature_group_count = 1 : i64}",
       16 * 9, true},
      // A lone NCHW 1x1 layer reads and writes NCHW itself (oneDNN's gemm,
      // kernels/libs/onednn_conv.c); odd feature counts and spatial sizes.
      {"1x1 NCHW, constant weights",
       {2, 17, 13, 11},
       {33, 17, 1, 1},
       {2, 33, 13, 11},
       "dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = "
       "{} {batch_group_count = 1 : i64, feature_group_count = 1 : i64}",
       17, true},
      {"1x1 NCHW, weights as a parameter",
       {1, 40, 12, 15},
       {24, 40, 1, 1},
       {1, 24, 12, 15},
       "dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = "
       "{} {batch_group_count = 1 : i64, feature_group_count = 1 : i64}",
       40, false},
      {"1x1 NCHW at 7x7 (too small: the blocked kernel)",
       {1, 64, 7, 7},
       {48, 64, 1, 1},
       {1, 48, 7, 7},
       "dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = "
       "{} {batch_group_count = 1 : i64, feature_group_count = 1 : i64}",
       64, true},
      {"first layer: NCHW src read as it is, 3 -> 64, odd size",
       {1, 3, 37, 30},
       {64, 3, 7, 7},
       {1, 64, 19, 15},
       "dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = "
       "{stride = [2, 2], pad = [[3, 3], [3, 2]]} {batch_group_count = 1 : "
       "i64, feature_group_count = 1 : i64}",
       3 * 49, true},
  };
  for (const Case& c : cases) Check(c);
}

}  // namespace
