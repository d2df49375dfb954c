// Buffer layouts (minor_to_major and padded dimensions) at the executable
// boundary: parameters and results in any permutation of ranks 0-4, padded
// or not, give the same logical values as row-major ones; bad layouts are
// clear errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "api/hlx.h"
#include "tests/api/builder_testing.h"

namespace {

using hlx_test::Msg;

// Physical element offset of a logical (row-major numbered) element in
// layout m2m with dimension widths ext (empty: dims): the test's own model
// of XLA's minor_to_major and padded_dimensions.
int64_t Offset(const std::vector<int64_t>& dims, const std::vector<int32_t>& m2m,
               int64_t logical, const std::vector<int64_t>& ext = {}) {
  int r = (int)dims.size();
  std::vector<int64_t> idx(r);
  for (int d = r - 1; d >= 0; d--) {
    idx[d] = logical % dims[d];
    logical /= dims[d];
  }
  int64_t off = 0, stride = 1;
  for (int k = 0; k < r; k++) {
    off += idx[m2m[k]] * stride;
    stride *= ext.empty() ? dims[m2m[k]] : ext[m2m[k]];
  }
  return off;
}

std::string TensorType(const std::vector<int64_t>& dims, const char* t) {
  std::string s = "tensor<";
  for (int64_t d : dims) s += std::to_string(d) + "x";
  return s + t + ">";
}

using Exe = hlx_test::Compiled;

int64_t Count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// y = x * 10 + x's logical index order check: param x in layout `in`
// padded to in_pad (empty: none), result in layout `out` padded to
// out_pad; every element checked by logical position, the result's
// padding must be zeros and the param's padding (a sentinel) unread.
void CheckScale(const std::vector<int64_t>& dims, const std::vector<int32_t>& in,
                const std::vector<int32_t>& out,
                const std::vector<int64_t>& in_pad = {},
                const std::vector<int64_t>& out_pad = {}) {
  SCOPED_TRACE("rank " + std::to_string(dims.size()));
  std::string t = TensorType(dims, "f32");
  std::string text = "func.func @main(%x: " + t + ") -> " + t +
                     " {\n  %c = stablehlo.constant dense<10.0> : " + t +
                     "\n  %0 = stablehlo.multiply %x, %c : " + t +
                     "\n  return %0 : " + t + "\n}";
  hlx_compile_options_t co;
  hlx_compile_options_init(&co);
  const int32_t* layouts[1] = {out.data()};
  co.result_layouts = layouts;
  co.num_result_layouts = 1;
  const int64_t* pads[1] = {out_pad.empty() ? nullptr : out_pad.data()};
  if (!out_pad.empty()) {
    co.result_padded_dimensions = pads;
    co.num_result_padded_dimensions = 1;
  }
  Exe x;
  ASSERT_EQ(hlx_test::Compile(text, &co, &x), "");
  int64_t n = Count(dims);
  // Logical element i has value i + 1; stored at its offset in `in`.
  std::vector<float> src(Count(in_pad.empty() ? dims : in_pad), -7777.0f);
  for (int64_t i = 0; i < n; i++)
    src[Offset(dims, in, i, in_pad)] = (float)(i + 1);
  hlx_tensor_desc_t d = hlx_test::Desc(hlx_element_type_from_name("f32"), dims);
  hlx_buffer_options_t bo;
  hlx_buffer_options_init(&bo);
  bo.minor_to_major = in.data();
  bo.padded_dimensions = in_pad.empty() ? nullptr : in_pad.data();
  hlx_buffer_t* param = nullptr;
  ASSERT_EQ(Msg(hlx_buffer_create_with_options(&d, src.data(), &bo, &param)),
            "");
  EXPECT_EQ(hlx_buffer_bytes(param), src.size() * sizeof(float));
  hlx_buffer_t* res = nullptr;
  ASSERT_EQ(Msg(hlx_executable_run(x.exe, &param, 1, &res, 1)), "");
  std::vector<int32_t> got(dims.size());
  hlx_buffer_minor_to_major(res, got.data());
  EXPECT_EQ(got, out);
  std::vector<int64_t> got_pad(dims.size());
  hlx_buffer_padded_dimensions(res, got_pad.data());
  EXPECT_EQ(got_pad, out_pad.empty() ? dims : out_pad);
  size_t rn = hlx_buffer_bytes(res) / sizeof(float);
  ASSERT_EQ((int64_t)rn, Count(out_pad.empty() ? dims : out_pad));
  const float* r = static_cast<const float*>(hlx_buffer_data(res));
  std::vector<bool> logical(rn, false);
  for (int64_t i = 0; i < n; i++) {
    int64_t o = Offset(dims, out, i, out_pad);
    logical[o] = true;
    ASSERT_EQ(r[o], 10.0f * (float)(i + 1)) << "element " << i;
  }
  for (size_t k = 0; k < rn; k++)
    if (!logical[k]) ASSERT_EQ(r[k], 0.0f) << "padding at " << k;
  hlx_buffer_destroy(res);
  hlx_buffer_destroy(param);
}

TEST(Layout, EveryPermutationOfRanks0To4ForParamsAndResults) {
  const std::vector<std::vector<int64_t>> shapes = {
      {}, {5}, {3, 4}, {2, 3, 5}, {2, 3, 4, 5}};
  for (const auto& dims : shapes) {
    std::vector<int32_t> p(dims.size());
    std::iota(p.begin(), p.end(), 0);
    std::vector<int32_t> row_major(p.rbegin(), p.rend());
    do {
      CheckScale(dims, p, row_major);  // transposed param in
      CheckScale(dims, row_major, p);  // transposed result out
    } while (std::next_permutation(p.begin(), p.end()));
  }
  // Both at once, different permutations.
  CheckScale({2, 3, 4, 5}, {1, 3, 0, 2}, {2, 0, 3, 1});
  CheckScale({3, 4}, {0, 1}, {0, 1});
}

// x: f32[2,3] and a constant f32[3] as two results.
const char* const kTwoResults = R"(
    func.func @main(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>) {
      %c = stablehlo.constant dense<1.0> : tensor<3xf32>
      return %x, %c : tensor<2x3xf32>, tensor<3xf32>
    })";

// Runs kTwoResults compiled with co on x = [[1,2,3],[4,5,6]] and returns
// result 0's memory (hlx_buffer_bytes of it).
std::vector<float> FirstResultMemory(const hlx_compile_options_t* co) {
  Exe x;
  std::string m = hlx_test::Compile(kTwoResults, co, &x);
  EXPECT_EQ(m, "");
  if (!m.empty()) return {};
  hlx_tensor_desc_t d = hlx_test::Desc(hlx_element_type_from_name("f32"), {2, 3});
  float v[6] = {1, 2, 3, 4, 5, 6};
  hlx_buffer_t* in = nullptr;
  EXPECT_EQ(Msg(hlx_buffer_create(&d, v, &in)), "");
  hlx_buffer_t* out[2] = {};
  EXPECT_EQ(Msg(hlx_executable_run(x.exe, &in, 1, out, 2)), "");
  std::vector<float> r;
  if (out[0]) {
    const float* p = static_cast<const float*>(hlx_buffer_data(out[0]));
    r.assign(p, p + hlx_buffer_bytes(out[0]) / sizeof(float));
  }
  hlx_buffer_destroy(in);
  hlx_buffer_destroy(out[0]);
  hlx_buffer_destroy(out[1]);
  return r;
}

// Padded dimensions for parameters and results: every permutation of
// ranks 1-3, padding on one or all dimensions, in and out.
TEST(Layout, PaddedDimensionsInEveryPermutation) {
  const std::vector<std::vector<int64_t>> shapes = {{5}, {3, 4}, {2, 3, 5}};
  for (const auto& dims : shapes) {
    std::vector<int32_t> p(dims.size());
    std::iota(p.begin(), p.end(), 0);
    std::vector<int32_t> row_major(p.rbegin(), p.rend());
    std::vector<int64_t> all = dims, last = dims;
    for (size_t i = 0; i < dims.size(); i++) all[i] += (int64_t)i + 1;
    last.back() += 3;
    do {
      CheckScale(dims, p, row_major, all, {});  // padded param in
      CheckScale(dims, row_major, p, {}, last); // padded result out
      CheckScale(dims, p, p, last, all);        // both; same permutation
    } while (std::next_permutation(p.begin(), p.end()));
  }
  // Padding equal to the dims is no padding; rank 0 has none.
  CheckScale({3, 4}, {1, 0}, {0, 1}, {3, 4}, {3, 4});
  CheckScale({}, {}, {}, {}, {});
}

// The XLA overview's example: [[a,b,c],[d,e,f]] (f32[2,3]) with
// minor_to_major {0,1} padded to {3,5} is a d 0 b e 0 c f 0 0 0 0 0 0 0
// in memory, as a parameter (zero-copy, padding never read) and as a
// result.
TEST(Layout, PaddedDimensionsOverviewExample) {
  const char* text = R"(
    func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
      %0 = stablehlo.add %x, %x : tensor<2x3xf32>
      return %0 : tensor<2x3xf32>
    })";
  int32_t cm[2] = {0, 1};
  int64_t pad[2] = {3, 5};
  hlx_compile_options_t co;
  hlx_compile_options_init(&co);
  const int32_t* layouts[1] = {cm};
  const int64_t* pads[1] = {pad};
  co.result_layouts = layouts;
  co.num_result_layouts = 1;
  co.result_padded_dimensions = pads;
  co.num_result_padded_dimensions = 1;
  Exe x;
  ASSERT_EQ(hlx_test::Compile(text, &co, &x), "");
  const float P = -1.0f;  // padding the library must not read
  float mem[15] = {1, 4, P, 2, 5, P, 3, 6, P, P, P, P, P, P, P};
  hlx_buffer_options_t bo;
  hlx_buffer_options_init(&bo);
  bo.minor_to_major = cm;
  bo.padded_dimensions = pad;
  hlx_tensor_desc_t d = hlx_test::Desc(hlx_element_type_from_name("f32"), {2, 3});
  hlx_buffer_t* in = nullptr;
  ASSERT_EQ(Msg(hlx_buffer_create_zero_copy(&d, mem, nullptr, nullptr, &bo, &in)),
            "");
  EXPECT_EQ(hlx_buffer_bytes(in), sizeof mem);
  hlx_buffer_t* out = nullptr;
  ASSERT_EQ(Msg(hlx_executable_run(x.exe, &in, 1, &out, 1)), "");
  ASSERT_EQ(hlx_buffer_bytes(out), sizeof mem);
  const float* r = static_cast<const float*>(hlx_buffer_data(out));
  EXPECT_EQ(std::vector<float>(r, r + 15),
            (std::vector<float>{2, 8, 0, 4, 10, 0, 6, 12, 0, 0, 0, 0, 0, 0, 0}));
  hlx_buffer_destroy(out);
  hlx_buffer_destroy(in);
}

TEST(Layout, BadPaddingIsAnError) {
  hlx_tensor_desc_t d = hlx_test::Desc(hlx_element_type_from_name("f32"), {2, 3});
  hlx_buffer_options_t bo;
  hlx_buffer_options_init(&bo);
  hlx_buffer_t* b = nullptr;
  int64_t small[2] = {2, 2};
  bo.padded_dimensions = small;
  EXPECT_EQ(Msg(hlx_buffer_create_with_options(&d, nullptr, &bo, &b)),
            "hlx_buffer_create: padded_dimensions[1] = 2 is smaller than "
            "dimension 1's size 3");
  float data[6] = {};
  EXPECT_EQ(Msg(hlx_buffer_create_zero_copy(&d, data, nullptr, nullptr, &bo, &b)),
            "hlx_buffer_create_zero_copy: padded_dimensions[1] = 2 is smaller "
            "than dimension 1's size 3");
  int64_t huge[2] = {INT64_C(1) << 40, INT64_C(1) << 40};
  bo.padded_dimensions = huge;
  EXPECT_EQ(Msg(hlx_buffer_create_with_options(&d, nullptr, &bo, &b)),
            "hlx_buffer_create: the padded size overflows");
  EXPECT_EQ(b, nullptr);

  const char* text = kTwoResults;
  hlx_compile_options_t co;
  hlx_compile_options_init(&co);
  int64_t ok[2] = {4, 4}, bad[1] = {1};
  const int64_t* pads[2] = {ok, bad};
  co.result_padded_dimensions = pads;
  co.num_result_padded_dimensions = 2;
  {
    Exe x;
    std::string m = hlx_test::Compile(text, &co, &x);
    EXPECT_NE(m.find("padded_dimensions[0] = 1 is smaller than dimension 0's "
                     "size 3"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("result 1"), std::string::npos) << m;
  }
  co.num_result_padded_dimensions = 1;
  {
    Exe x;
    std::string m = hlx_test::Compile(text, &co, &x);
    EXPECT_NE(m.find("result_padded_dimensions has 1 entries for 2 results"),
              std::string::npos)
        << m;
  }
  // NULL entries are unpadded; padding alone (row-major) works too.
  const int64_t* some[2] = {ok, nullptr};
  co.result_padded_dimensions = some;
  co.num_result_padded_dimensions = 2;
  EXPECT_EQ(FirstResultMemory(&co),
            (std::vector<float>{1, 2, 3, 0, 4, 5, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
}

TEST(Layout, KernelsSeeRowMajor) {
  // A column-major 2x3 parameter into dot_general: the product must be
  // that of the logical matrices, not of the raw memory.
  const char* text = R"(
    func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<2x2xf32> {
      %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
      return %0 : tensor<2x2xf32>
    })";
  Exe x;
  ASSERT_EQ(hlx_test::Compile(text, nullptr, &x), "");
  // a = [[1,2,3],[4,5,6]] column-major: 1 4 2 5 3 6.
  float a_cm[6] = {1, 4, 2, 5, 3, 6};
  float b[6] = {1, 0, 0, 1, 1, 1};  // [[1,0],[0,1],[1,1]] row-major
  int32_t cm[2] = {0, 1};
  hlx_buffer_options_t bo;
  hlx_buffer_options_init(&bo);
  bo.minor_to_major = cm;
  hlx_tensor_desc_t da = hlx_test::Desc(hlx_element_type_from_name("f32"), {2, 3});
  hlx_tensor_desc_t db = hlx_test::Desc(hlx_element_type_from_name("f32"), {3, 2});
  hlx_buffer_t* in[2] = {};
  ASSERT_EQ(Msg(hlx_buffer_create_zero_copy(&da, a_cm, nullptr, nullptr, &bo,
                                            &in[0])),
            "");
  ASSERT_EQ(Msg(hlx_buffer_create(&db, b, &in[1])), "");
  hlx_buffer_t* out = nullptr;
  ASSERT_EQ(Msg(hlx_executable_run(x.exe, in, 2, &out, 1)), "");
  const float* r = static_cast<const float*>(hlx_buffer_data(out));
  // [[1+3, 2+3], [4+6, 5+6]]
  EXPECT_EQ(r[0], 4.0f);
  EXPECT_EQ(r[1], 5.0f);
  EXPECT_EQ(r[2], 10.0f);
  EXPECT_EQ(r[3], 11.0f);
  EXPECT_EQ(a_cm[1], 4.0f);  // the zero-copy parameter is not converted in place
  hlx_buffer_destroy(out);
  hlx_buffer_destroy(in[0]);
  hlx_buffer_destroy(in[1]);
}

TEST(Layout, ReplicatedRunsConvertEveryProcess) {
  const char* text = R"(
    func.func @main(%x: tensor<2x2xi32>) -> tensor<2x2xi32> {
      %0 = stablehlo.add %x, %x : tensor<2x2xi32>
      return %0 : tensor<2x2xi32>
    })";
  hlx_compile_options_t co;
  hlx_compile_options_init(&co);
  co.num_replicas = 2;
  int32_t cm[2] = {0, 1};
  const int32_t* layouts[1] = {cm};
  co.result_layouts = layouts;
  co.num_result_layouts = 1;
  Exe x;
  ASSERT_EQ(hlx_test::Compile(text, &co, &x), "");
  hlx_tensor_desc_t d = hlx_test::Desc(hlx_element_type_from_name("i32"), {2, 2});
  int32_t v0[4] = {1, 2, 3, 4}, v1[4] = {10, 20, 30, 40};  // row-major
  hlx_buffer_t* in[2] = {};
  ASSERT_EQ(Msg(hlx_buffer_create(&d, v0, &in[0])), "");
  hlx_buffer_options_t bo;
  hlx_buffer_options_init(&bo);
  bo.minor_to_major = cm;  // replica 1's parameter is column-major
  ASSERT_EQ(Msg(hlx_buffer_create_with_options(&d, v1, &bo, &in[1])), "");
  hlx_buffer_t* out[2] = {};
  ASSERT_EQ(Msg(hlx_executable_run_replicated(x.exe, in, 2, out, 2)), "");
  const int32_t* r0 = static_cast<const int32_t*>(hlx_buffer_data(out[0]));
  const int32_t* r1 = static_cast<const int32_t*>(hlx_buffer_data(out[1]));
  // Results column-major: logical [[2,4],[6,8]] -> 2 6 4 8.
  EXPECT_EQ(std::vector<int32_t>(r0, r0 + 4), (std::vector<int32_t>{2, 6, 4, 8}));
  // v1 read column-major is [[10,30],[20,40]]; doubled, stored column-major.
  EXPECT_EQ(std::vector<int32_t>(r1, r1 + 4),
            (std::vector<int32_t>{20, 40, 60, 80}));
  for (auto* b : in) hlx_buffer_destroy(b);
  for (auto* b : out) hlx_buffer_destroy(b);
}

TEST(Layout, BadLayoutsAreErrors) {
  hlx_tensor_desc_t d = hlx_test::Desc(hlx_element_type_from_name("f32"), {2, 3});
  hlx_buffer_options_t bo;
  hlx_buffer_options_init(&bo);
  hlx_buffer_t* b = nullptr;
  int32_t dup[2] = {0, 0}, out_of_range[2] = {2, 0}, neg[2] = {-1, 1};
  bo.minor_to_major = dup;
  std::string m = Msg(hlx_buffer_create_with_options(&d, nullptr, &bo, &b));
  EXPECT_EQ(m, "hlx_buffer_create: minor_to_major is not a permutation of "
               "0..1 (entry 1 is 0)");
  bo.minor_to_major = out_of_range;
  m = Msg(hlx_buffer_create_with_options(&d, nullptr, &bo, &b));
  EXPECT_NE(m.find("entry 0 is 2"), std::string::npos) << m;
  bo.minor_to_major = neg;
  float data[6] = {};
  m = Msg(hlx_buffer_create_zero_copy(&d, data, nullptr, nullptr, &bo, &b));
  EXPECT_NE(m.find("hlx_buffer_create_zero_copy: minor_to_major is not a "
                   "permutation"),
            std::string::npos)
      << m;
  EXPECT_EQ(b, nullptr);

  const char* text = kTwoResults;
  hlx_compile_options_t co;
  hlx_compile_options_init(&co);
  int32_t ok2[2] = {0, 1}, bad1[1] = {1};
  const int32_t* layouts[2] = {ok2, bad1};
  co.result_layouts = layouts;
  co.num_result_layouts = 2;
  {
    Exe x;
    m = hlx_test::Compile(text, &co, &x);
    EXPECT_NE(m.find("minor_to_major is not a permutation of 0..0 (entry 0 "
                     "is 1)"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("result 1"), std::string::npos) << m;
  }
  co.num_result_layouts = 1;
  {
    Exe x;
    m = hlx_test::Compile(text, &co, &x);
    EXPECT_NE(m.find("result_layouts has 1 entries for 2 results"),
              std::string::npos)
        << m;
  }
  // NULL entries are row-major.
  const int32_t* some[2] = {ok2, nullptr};
  co.result_layouts = some;
  co.num_result_layouts = 2;
  EXPECT_EQ(FirstResultMemory(&co), (std::vector<float>{1, 4, 2, 5, 3, 6}));
}

}  // namespace
