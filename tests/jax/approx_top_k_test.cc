// ApproxTopK and stablehlo.dynamic_approx_top_k (JAX's approx_max_k /
// approx_min_k): the shape-polymorphic form with result-shape operands is
// refined and runs; static calls along any dimension, min-k, a comparator
// that is not a key chain (run as a plan per comparison), results wider
// than k (aggregate_to_topk = false) and than the input (initial values);
// errors naming the target. ../shared/jax_exports has no such program.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/jax/jax_test_util.h"

namespace {

using jaxtest::cd;
using jaxtest::Tensor;

std::vector<Tensor> MustRun(const std::string& text,
                            const std::vector<Tensor>& in) {
  std::vector<Tensor> out;
  std::string err;
  EXPECT_TRUE(jaxtest::Run(text, in, &out, &err)) << err << "\n" << text;
  return out;
}

std::string RunError(const std::string& text, const std::vector<Tensor>& in) {
  std::vector<Tensor> out;
  std::string err;
  EXPECT_FALSE(jaxtest::Run(text, in, &out, &err)) << text;
  return err;
}

Tensor F32(std::vector<int64_t> dims, std::vector<double> v) {
  Tensor t;
  t.dtype = HLX_DTYPE_F32;
  t.dims = std::move(dims);
  for (double x : v) t.v.push_back(x);
  return t;
}

std::vector<double> Real(const Tensor& t) {
  std::vector<double> r;
  for (cd x : t.v) r.push_back(x.real());
  return r;
}

// A comparator of (value, index) pairs: `dir` on the values.
std::string Comparator(const std::string& name, const std::string& dir) {
  return "func.func private @" + name +
         "(%a: tensor<f32>, %b: tensor<f32>, %i: tensor<i32>, %j: tensor<i32>)"
         " -> tensor<i1> {\n"
         "  %0 = stablehlo.compare " + dir +
         ", %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
         "  return %0 : tensor<i1>\n}\n";
}

// approx_max_k(x, k = b) of a shape-polymorphic export: x has b + 4
// elements, the result shapes come from shape operands.
TEST(ApproxTopK, ShapePolymorphicExportIsRefinedAndExact) {
  std::string p =
      "func.func @main(%b: tensor<i64>, %x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xi32>) {\n"
      "  %c4 = stablehlo.constant dense<4> : tensor<i64>\n"
      "  %n = stablehlo.add %b, %c4 : tensor<i64>\n"
      "  %n32 = stablehlo.convert %n : (tensor<i64>) -> tensor<i32>\n"
      "  %nshape = stablehlo.reshape %n32 : (tensor<i32>) -> tensor<1xi32>\n"
      "  %iota = stablehlo.dynamic_iota %nshape, dim = 0 : (tensor<1xi32>) -> tensor<?xi32>\n"
      "  %init_i = stablehlo.constant dense<-1> : tensor<i32>\n"
      "  %init_v = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
      "  %k = stablehlo.convert %b : (tensor<i64>) -> tensor<i32>\n"
      "  %kshape = stablehlo.reshape %k : (tensor<i32>) -> tensor<1xi32>\n"
      "  %r:2 = stablehlo.custom_call @stablehlo.dynamic_approx_top_k(%x, %iota, %init_v, %init_i, %k, %kshape, %kshape) {\n"
      "    called_computations = [@gt], indices_of_shape_operands = dense<[5, 6]> : tensor<2xi64>,\n"
      "    mhlo.backend_config = {aggregate_to_topk = true, is_fallback = true, recall_target = 0.949999988 : f32,\n"
      "      reduction_dim = 0 : i64, reduction_input_size_override = -1 : i64}}\n"
      "    : (tensor<?xf32>, tensor<?xi32>, tensor<f32>, tensor<i32>, tensor<i32>, tensor<1xi32>, tensor<1xi32>)\n"
      "    -> (tensor<?xf32>, tensor<?xi32>)\n"
      "  return %r#0, %r#1 : tensor<?xf32>, tensor<?xi32>\n}\n" +
      Comparator("gt", "GT");
  Tensor b;
  b.dtype = HLX_DTYPE_S64;
  b.i = {20};
  std::vector<double> xs;
  for (int i = 0; i < 24; i++) xs.push_back((i * 7) % 24);  // a permutation
  std::vector<Tensor> o = MustRun(p, {b, F32({24}, xs)});
  ASSERT_EQ(o.size(), 2u);
  EXPECT_EQ(o[0].dims, (std::vector<int64_t>{20}));
  std::vector<double> want_v;
  std::vector<int64_t> want_i;
  for (int v = 23; v >= 4; v--) {
    want_v.push_back(v);
    for (int i = 0; i < 24; i++)
      if (xs[i] == v) want_i.push_back(i);
  }
  EXPECT_EQ(Real(o[0]), want_v);
  EXPECT_EQ(o[1].i, want_i);
}

// Without shape operands the results take k along reduction_dim.
TEST(ApproxTopK, DynamicFormWithoutShapeOperandsTakesK) {
  std::string p =
      "func.func @main(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xi32>) {\n"
      "  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?xf32>) -> tensor<i32>\n"
      "  %nshape = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>\n"
      "  %iota = stablehlo.dynamic_iota %nshape, dim = 0 : (tensor<1xi32>) -> tensor<?xi32>\n"
      "  %init_i = stablehlo.constant dense<-1> : tensor<i32>\n"
      "  %init_v = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
      "  %k = stablehlo.constant dense<3> : tensor<i32>\n"
      "  %r:2 = stablehlo.custom_call @stablehlo.dynamic_approx_top_k(%x, %iota, %init_v, %init_i, %k) {\n"
      "    called_computations = [@gt], mhlo.backend_config = {reduction_dim = 0 : i64}}\n"
      "    : (tensor<?xf32>, tensor<?xi32>, tensor<f32>, tensor<i32>, tensor<i32>) -> (tensor<?xf32>, tensor<?xi32>)\n"
      "  return %r#0, %r#1 : tensor<?xf32>, tensor<?xi32>\n}\n" +
      Comparator("gt", "GT");
  std::vector<Tensor> o = MustRun(p, {F32({6}, {4, 8, 1, 8, 0, 5})});
  ASSERT_EQ(o.size(), 2u);
  EXPECT_EQ(Real(o[0]), (std::vector<double>{8, 8, 5}));
  EXPECT_EQ(o[1].i, (std::vector<int64_t>{1, 3, 5}));
}

// The static form: min-k along dimension 0 of a matrix; ties keep the
// lower index first.
TEST(ApproxTopK, StaticMinKAlongTheFirstDimension) {
  std::string p =
      "func.func @main(%x: tensor<4x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>) {\n"
      "  %iota = stablehlo.iota dim = 0 : tensor<4x3xi32>\n"
      "  %init_v = stablehlo.constant dense<0x7F800000> : tensor<f32>\n"
      "  %init_i = stablehlo.constant dense<-1> : tensor<i32>\n"
      "  %r:2 = stablehlo.custom_call @ApproxTopK(%x, %iota, %init_v, %init_i) {\n"
      "    called_computations = [@lt],\n"
      "    mhlo.backend_config = {aggregate_to_topk = true, is_fallback = true, recall_target = 0.95 : f32,\n"
      "      reduction_dim = 0 : i64, reduction_input_size_override = -1 : i64, top_k = 2 : i64}}\n"
      "    : (tensor<4x3xf32>, tensor<4x3xi32>, tensor<f32>, tensor<i32>) -> (tensor<2x3xf32>, tensor<2x3xi32>)\n"
      "  return %r#0, %r#1 : tensor<2x3xf32>, tensor<2x3xi32>\n}\n" +
      Comparator("lt", "LT");
  std::vector<Tensor> o = MustRun(p, {F32({4, 3}, {5, 1, 7,  //
                                                   2, 1, 8,  //
                                                   9, 0, 6,  //
                                                   3, 4, 7})});
  ASSERT_EQ(o.size(), 2u);
  EXPECT_EQ(Real(o[0]), (std::vector<double>{2, 0, 6, 3, 1, 7}));
  EXPECT_EQ(o[1].i, (std::vector<int64_t>{1, 2, 2, 3, 0, 0}));
}

// A comparator on |x| is no key chain: it runs as the function's plan. The
// results are wider than k (aggregate_to_topk = false) or than the input
// (filled with the initial values).
TEST(ApproxTopK, GeneralComparatorAndWideResults) {
  auto program = [](int out) {
    std::string o = std::to_string(out);
    return "func.func @main(%x: tensor<5xf32>) -> (tensor<" + o + "xf32>, tensor<" + o + "xi32>) {\n"
           "  %iota = stablehlo.iota dim = 0 : tensor<5xi32>\n"
           "  %init_v = stablehlo.constant dense<-1.0> : tensor<f32>\n"
           "  %init_i = stablehlo.constant dense<-1> : tensor<i32>\n"
           "  %r:2 = stablehlo.custom_call @ApproxTopK(%x, %iota, %init_v, %init_i) {\n"
           "    called_computations = [@abs_gt],\n"
           "    mhlo.backend_config = {aggregate_to_topk = false, reduction_dim = 0 : i64, top_k = 2 : i64}}\n"
           "    : (tensor<5xf32>, tensor<5xi32>, tensor<f32>, tensor<i32>) -> (tensor<" + o + "xf32>, tensor<" + o + "xi32>)\n"
           "  return %r#0, %r#1 : tensor<" + o + "xf32>, tensor<" + o + "xi32>\n}\n"
           "func.func private @abs_gt(%a: tensor<f32>, %b: tensor<f32>, %i: tensor<i32>, %j: tensor<i32>) -> tensor<i1> {\n"
           "  %0 = stablehlo.abs %a : tensor<f32>\n"
           "  %1 = stablehlo.abs %b : tensor<f32>\n"
           "  %2 = stablehlo.compare GT, %0, %1 : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
           "  return %2 : tensor<i1>\n}\n";
  };
  Tensor x = F32({5}, {1, -7, 3, -2, 5});
  std::vector<Tensor> o = MustRun(program(3), {x});
  ASSERT_EQ(o.size(), 2u);
  EXPECT_EQ(Real(o[0]), (std::vector<double>{-7, 5, 3}));
  EXPECT_EQ(o[1].i, (std::vector<int64_t>{1, 4, 2}));
  o = MustRun(program(7), {x});
  ASSERT_EQ(o.size(), 2u);
  EXPECT_EQ(Real(o[0]), (std::vector<double>{-7, 5, 3, -2, 1, -1, -1}));
  EXPECT_EQ(o[1].i, (std::vector<int64_t>{1, 4, 2, 3, 0, -1, -1}));
}

TEST(ApproxTopK, ErrorsNameTheTarget) {
  std::string base =
      "func.func @main(%x: tensor<5xf32>) -> tensor<RESxf32> {\n"
      "  %init = stablehlo.constant dense<0.0> : tensor<f32>\n"
      "  %r = stablehlo.custom_call @ApproxTopK(%x, %init) {called_computations = [CMP],\n"
      "    mhlo.backend_config = {CFG}} : (tensor<5xf32>, tensor<f32>) -> tensor<RESxf32>\n"
      "  return %r : tensor<RESxf32>\n}\n"
      "func.func private @gt(%a: tensor<f32>, %b: tensor<f32>) -> tensor<i1> {\n"
      "  %0 = stablehlo.compare GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
      "  return %0 : tensor<i1>\n}\n";
  auto with = [&](std::string res, std::string cmp, std::string cfg) {
    std::string s = base;
    for (auto [key, val] : {std::pair<std::string, std::string>{"RES", res},
                            {"CMP", cmp}, {"CFG", cfg}})
      for (size_t at; (at = s.find(key)) != std::string::npos;)
        s.replace(at, key.size(), val);
    return s;
  };
  Tensor x = F32({5}, {1, 2, 3, 4, 5});
  EXPECT_EQ(Real(MustRun(with("2", "@gt", "reduction_dim = 0, top_k = 2"), {x})[0]),
            (std::vector<double>{5, 4}));
  std::string err = RunError(with("2", "@gt", "top_k = 2"), {x});
  EXPECT_NE(err.find("ApproxTopK: needs k >= 0 (mhlo.backend_config's top_k) "
                     "and mhlo.backend_config's reduction_dim"),
            std::string::npos)
      << err;
  err = RunError(with("3", "@gt", "reduction_dim = 0, top_k = 2"), {x});
  EXPECT_NE(err.find("ApproxTopK: the results must have k = 2 elements"),
            std::string::npos)
      << err;
  err = RunError(with("2", "@missing", "reduction_dim = 0, top_k = 2"), {x});
  EXPECT_NE(err.find("ApproxTopK: comparator @missing must be a function of "
                     "2 scalars"),
            std::string::npos)
      << err;
}

}  // namespace
