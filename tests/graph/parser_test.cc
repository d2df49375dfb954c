// Unit tests of the StableHLO text parser / printer / IR equality: literal
// encodings, types, pretty forms and their generic attribute names, errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "base/float_formats.h"
#include "tests/graph/test_util.h"

namespace {

using hlx_test::ModulePtr;

// Parses (must succeed), checks the round trip, and returns the module.
void MustParse(const std::string& text, ModulePtr* m) {
  std::string err;
  ASSERT_TRUE(hlx_test::Parse(text, m, &err)) << err << "\n" << text;
  EXPECT_EQ(hlx_test::RoundTrip(m->get()), "") << hlx_test::Print(m->get());
}

std::string ParseError(const std::string& text) {
  ModulePtr m;
  std::string err;
  EXPECT_FALSE(hlx_test::Parse(text, &m, &err)) << text;
  return err;
}

const hlx_block_t* Body(const hlx_module_t* m, int f = 0) {
  return m->funcs[f]->body->blocks[0];
}

const hlx_op_t* Op(const hlx_module_t* m, int i, int f = 0) {
  return Body(m, f)->ops[i];
}

// The DENSE value of a one-constant program `dense<lit> : type`.
std::vector<uint8_t> DenseBytes(const std::string& lit, const std::string& type) {
  ModulePtr m;
  std::string text = "func.func @f() {\n  %0 = stablehlo.constant dense<" + lit +
                     "> : " + type + "\n  func.return\n}\n";
  MustParse(text, &m);
  if (!m.get()) return {};
  const hlx_attr_t* v = hlx_op_attr(Op(m.get(), 0), "value");
  EXPECT_NE(v, nullptr);
  if (!v) return {};
  EXPECT_EQ(v->kind, HLX_ATTR_DENSE);
  const uint8_t* d = static_cast<const uint8_t*>(v->dense);
  return std::vector<uint8_t>(d, d + v->dense_bytes);
}

template <typename T>
std::vector<T> DenseAs(const std::string& lit, const std::string& type) {
  std::vector<uint8_t> b = DenseBytes(lit, type);
  std::vector<T> out(b.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), b.data(), out.size() * sizeof(T));
  return out;
}

TEST(Split, SeparatorLines) {
  std::string text = "a\n// -----\nb\nc\n// -----\n// ----- x\nd";
  auto ch = hlx_test::SplitPrograms(text);
  ASSERT_EQ(ch.size(), 3u);
  EXPECT_EQ(std::string(ch[0].text, ch[0].len), "a\n");
  EXPECT_EQ(ch[0].first_line, 1);
  EXPECT_EQ(std::string(ch[1].text, ch[1].len), "b\nc\n");
  EXPECT_EQ(ch[1].first_line, 3);
  EXPECT_EQ(std::string(ch[2].text, ch[2].len), "// ----- x\nd");
  EXPECT_EQ(ch[2].first_line, 6);
  EXPECT_EQ(hlx_split_programs("x", 1, nullptr, 0), 1);
}

TEST(Literals, Integers) {
  EXPECT_EQ(DenseAs<int64_t>("-9223372036854775808", "tensor<i64>"),
            std::vector<int64_t>{INT64_MIN});
  EXPECT_EQ(DenseAs<uint64_t>("18446744073709551615", "tensor<ui64>"),
            std::vector<uint64_t>{UINT64_MAX});
  EXPECT_EQ(DenseAs<int8_t>("[1, 0, -1, -2]", "tensor<4xi2>"),
            (std::vector<int8_t>{1, 0, -1, -2}));
  EXPECT_EQ(DenseAs<int8_t>("[-8, 7]", "tensor<2xi4>"), (std::vector<int8_t>{-8, 7}));
  EXPECT_EQ(DenseAs<uint8_t>("[15, 3]", "tensor<2xui4>"), (std::vector<uint8_t>{15, 3}));
  EXPECT_EQ(DenseAs<uint8_t>("[true, false, 1]", "tensor<3xi1>"),
            (std::vector<uint8_t>{1, 0, 1}));
  EXPECT_EQ(DenseAs<int16_t>("7", "tensor<3xi16>"), (std::vector<int16_t>{7, 7, 7}));
  EXPECT_EQ(DenseAs<int32_t>("[[1, 2], [3, 4]]", "tensor<2x2xi32>"),
            (std::vector<int32_t>{1, 2, 3, 4}));
  EXPECT_NE(ParseError("func.func @f() {\n  %0 = stablehlo.constant dense<16> : tensor<i4>\n}"),
            "");
  EXPECT_NE(ParseError("func.func @f() {\n  %0 = stablehlo.constant dense<-1> : tensor<ui64>\n}"),
            "");
  // Nested lists must match the shape.
  EXPECT_NE(ParseError("func.func @f() {\n  %0 = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> "
                       ": tensor<3x2xi32>\n}"),
            "");
  EXPECT_NE(ParseError("func.func @f() {\n  %0 = stablehlo.constant dense<[[1, 2], [3]]> "
                       ": tensor<2x2xi32>\n}"),
            "");
  EXPECT_NE(ParseError("func.func @f() {\n  %0 = stablehlo.constant dense<[1, 2]> : tensor<3xi32>\n}"),
            "");
  EXPECT_EQ(DenseAs<int8_t>("[[], []]", "tensor<2x0xi8>").size(), 0u);
}

TEST(Literals, Floats) {
  EXPECT_EQ(DenseAs<uint16_t>("[1.0, -2.0, 0.5]", "tensor<3xf16>"),
            (std::vector<uint16_t>{0x3C00, 0xC000, 0x3800}));
  EXPECT_EQ(DenseAs<uint16_t>("[1.0, 3.140625]", "tensor<2xbf16>"),
            (std::vector<uint16_t>{0x3F80, 0x4049}));
  auto f = DenseAs<float>("[0x7FC00000, inf, -inf, 9.99999974E-6, -0.0]", "tensor<5xf32>");
  ASSERT_EQ(f.size(), 5u);
  EXPECT_TRUE(std::isnan(f[0]));
  EXPECT_EQ(f[1], INFINITY);
  EXPECT_EQ(f[2], -INFINITY);
  EXPECT_EQ(f[3], 9.99999974E-6f);
  EXPECT_TRUE(std::signbit(f[4]));
  auto d = DenseAs<double>("[0.1, 0x7FF0000000000000, nan]", "tensor<3xf64>");
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0], 0.1);
  EXPECT_EQ(d[1], INFINITY);
  EXPECT_TRUE(std::isnan(d[2]));
  auto f8 = DenseBytes("[1.0, -3.0]", "tensor<2xf8E4M3FN>");
  ASSERT_EQ(f8.size(), 2u);
  EXPECT_EQ(f8[0], hlx_f64_to_small_float(HLX_DTYPE_F8E4M3FN, 1.0));
  EXPECT_EQ(f8[1], hlx_f64_to_small_float(HLX_DTYPE_F8E4M3FN, -3.0));
}

TEST(Literals, ComplexAndBlobs) {
  EXPECT_EQ(DenseAs<float>("[(1.0, 2.0), (-3.0, 4.5)]", "tensor<2xcomplex<f32>>"),
            (std::vector<float>{1, 2, -3, 4.5}));
  EXPECT_EQ(DenseAs<double>("(1.5, -1.0)", "tensor<2xcomplex<f64>>"),
            (std::vector<double>{1.5, -1, 1.5, -1}));
  EXPECT_EQ(DenseAs<int32_t>("\"0x0100000002000000\"", "tensor<2xi32>"),
            (std::vector<int32_t>{1, 2}));
  // A blob of exactly one element is a splat.
  EXPECT_EQ(DenseAs<int32_t>("\"0x05000000\"", "tensor<3xi32>"),
            (std::vector<int32_t>{5, 5, 5}));
  EXPECT_EQ(DenseAs<uint8_t>("\"0x010001\"", "tensor<3xi1>"),
            (std::vector<uint8_t>{1, 0, 1}));
  EXPECT_EQ(DenseBytes("", "tensor<0xf32>").size(), 0u);
  EXPECT_NE(ParseError("func.func @f() {\n  %0 = stablehlo.constant dense<1.0> : "
                       "tensor<1000000x1000000xf32>\n}"),
            "");
}

TEST(Types, QuantBoundsTupleToken) {
  ModulePtr m;
  MustParse(
      "func.func @f(%a: tensor<2x!quant.uniform<i8:f32, 0.1:-5>>,\n"
      "             %b: tensor<2x3x!quant.uniform<i8<-127:127>:f32:1, {0.1:-5,0.2:3,3.0e-2}>>,\n"
      "             %c: tensor<?x4xf32, #stablehlo.bounds<8, ?>>,\n"
      "             %d: tuple<tensor<f32>, tuple<>>, %e: !stablehlo.token,\n"
      "             %g: tensor<4xui4>, %h: tensor<complex<f64>>) {\n"
      "  func.return\n}\n",
      &m);
  ASSERT_NE(m.get(), nullptr);
  hlx_value_t** args = Body(m.get())->args;
  const hlx_type_t* a = args[0]->type;
  ASSERT_NE(a->quant, nullptr);
  EXPECT_EQ(a->dtype, HLX_DTYPE_S8);
  EXPECT_EQ(a->quant->expressed, HLX_DTYPE_F32);
  EXPECT_EQ(a->quant->quantized_dimension, -1);
  EXPECT_EQ(a->quant->num_scales, 1);
  EXPECT_EQ(a->quant->scales[0], 0.1);
  EXPECT_EQ(a->quant->zero_points[0], -5);
  const hlx_quant_t* q = args[1]->type->quant;
  ASSERT_NE(q, nullptr);
  EXPECT_TRUE(q->has_storage_range);
  EXPECT_EQ(q->storage_min, -127);
  EXPECT_EQ(q->quantized_dimension, 1);
  ASSERT_EQ(q->num_scales, 3);
  EXPECT_EQ(q->zero_points[1], 3);
  EXPECT_EQ(q->zero_points[2], 0);
  EXPECT_EQ(q->scales[2], 3.0e-2);
  const hlx_type_t* c = args[2]->type;
  EXPECT_EQ(c->dims[0], HLX_DYNAMIC_DIM);
  ASSERT_NE(c->bounds, nullptr);
  EXPECT_EQ(c->bounds[0], 8);
  EXPECT_EQ(c->bounds[1], HLX_DYNAMIC_DIM);
  EXPECT_EQ(args[3]->type->kind, HLX_TYPE_TUPLE);
  EXPECT_EQ(args[3]->type->elems[1]->num_elems, 0);
  EXPECT_EQ(args[4]->type->kind, HLX_TYPE_TOKEN);
  EXPECT_EQ(args[5]->type->dtype, HLX_DTYPE_U4);
  EXPECT_EQ(args[6]->type->dtype, HLX_DTYPE_C128);
}

TEST(Pretty, CommonOps) {
  ModulePtr m;
  MustParse(R"(
module @jit_f attributes {mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32> {mhlo.sharding = ""}) -> (tensor<3x2xf32> {jax.result_info = ""}) {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1] : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %1 = stablehlo.compare  LT, %0, %arg0,  FLOAT : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    %2 = stablehlo.select %1, %0, %arg0 : tensor<2x3xi1>, tensor<2x3xf32>
    %3 = stablehlo.transpose %2, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %4 = stablehlo.slice %3 [0:3, 0:2:2] : (tensor<3x2xf32>) -> tensor<3x1xf32>
    %5 = stablehlo.concatenate %4, %4, dim = 1 : (tensor<3x1xf32>, tensor<3x1xf32>) -> tensor<3x2xf32>
    %6 = stablehlo.iota dim = 0 : tensor<3x2xf32>
    %7 = stablehlo.add %5, %6 : tensor<3x2xf32>
    %8 = stablehlo.reduce_precision %7, format = e5m10 : tensor<3x2xf32>
    %9 = stablehlo.convert %8 : (tensor<3x2xf32>) -> tensor<3x2xf16>
    stablehlo.custom_call @check.expect_close(%7, %8) {has_side_effect = true} : (tensor<3x2xf32>, tensor<3x2xf32>) -> ()
    %10 = stablehlo.pad %7, %6, low = [0, 1], high = [1, -1], interior = [0, 0] : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
    return %8 : tensor<3x2xf32>
  }
}
)",
            &m);
  ASSERT_NE(m.get(), nullptr);
  EXPECT_STREQ(m.get()->name, "jit_f");
  const hlx_func_t* f = m.get()->funcs[0];
  EXPECT_TRUE(f->is_public);
  EXPECT_EQ(f->num_arg_attrs[0], 1);
  EXPECT_STREQ(f->result_attrs[0][0].name, "jax.result_info");
  const hlx_attr_t* a = hlx_op_attr(Op(m.get(), 0), "broadcast_dimensions");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->kind, HLX_ATTR_I64_ARRAY);
  EXPECT_EQ(a->count, 2);
  EXPECT_EQ(a->ints[1], 1);
  const hlx_op_t* cmp = Op(m.get(), 1);
  EXPECT_EQ(cmp->code, HLX_OP_COMPARE);
  const hlx_attr_t* dir = hlx_op_attr(cmp, "comparison_direction");
  ASSERT_NE(dir, nullptr);
  EXPECT_EQ(dir->kind, HLX_ATTR_ENUM);
  EXPECT_STREQ(dir->str, "comparison_direction");
  EXPECT_STREQ(dir->enum_value, "LT");
  EXPECT_STREQ(hlx_op_attr(cmp, "compare_type")->str, "comparison_type");
  EXPECT_STREQ(hlx_op_attr(cmp, "compare_type")->enum_value, "FLOAT");
  EXPECT_EQ(cmp->results[0]->type->dtype, HLX_DTYPE_PRED);
  EXPECT_EQ(Op(m.get(), 2)->results[0]->type->dtype, HLX_DTYPE_F32);
  EXPECT_NE(hlx_op_attr(Op(m.get(), 3), "permutation"), nullptr);
  const hlx_op_t* sl = Op(m.get(), 4);
  EXPECT_EQ(hlx_op_attr(sl, "strides")->ints[1], 2);
  EXPECT_EQ(hlx_op_attr(sl, "limit_indices")->ints[0], 3);
  EXPECT_EQ(hlx_op_attr(Op(m.get(), 5), "dimension")->i, 1);
  EXPECT_EQ(hlx_op_attr(Op(m.get(), 6), "iota_dimension")->i, 0);
  EXPECT_EQ(Op(m.get(), 7)->results[0]->type->rank, 2);
  EXPECT_EQ(hlx_op_attr(Op(m.get(), 8), "exponent_bits")->i, 5);
  EXPECT_EQ(hlx_op_attr(Op(m.get(), 8), "mantissa_bits")->i, 10);
  EXPECT_EQ(Op(m.get(), 9)->results[0]->type->dtype, HLX_DTYPE_F16);
  const hlx_op_t* cc = Op(m.get(), 10);
  EXPECT_EQ(cc->num_results, 0);
  EXPECT_EQ(hlx_op_attr(cc, "call_target_name")->kind, HLX_ATTR_STRING);
  EXPECT_STREQ(hlx_op_attr(cc, "call_target_name")->str, "check.expect_close");
  EXPECT_TRUE(hlx_op_attr(cc, "has_side_effect")->b);
  const hlx_op_t* pad = Op(m.get(), 11);
  EXPECT_EQ(hlx_op_attr(pad, "edge_padding_high")->ints[1], -1);
  EXPECT_EQ(Op(m.get(), 12)->code, HLX_OP_FUNC_RETURN);
  EXPECT_EQ(f->num_values, 12);
}

TEST(Pretty, DotGeneralConvolution) {
  ModulePtr m;
  MustParse(R"(
func.func @f(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>, %x: tensor<1x8x8x3xf32>, %k: tensor<3x3x3x4xf32>) {
  %0 = stablehlo.dot_general %a, %b,
      batching_dims = [0] x [0],
      contracting_dims = [2] x [1],
      precision = [DEFAULT, HIGHEST],
      algorithm = <lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false>
      : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  %1 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 1], pad = [[1, 1], [0, 2]], lhs_dilate = [1, 1], rhs_dilate = [2, 2], reverse = [false, true]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x2x3x4xf32>
  %2 = "stablehlo.convolution"(%x, %k) {dimension_numbers = #stablehlo.conv<[b, f, 1, 0]x[o, i, 0, 1]->[f, b, 0, 1]>, window_strides = array<i64: 1, 1>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x2x3x4xf32>
  func.return
}
)",
            &m);
  ASSERT_NE(m.get(), nullptr);
  const hlx_op_t* dot = Op(m.get(), 0);
  const hlx_attr_t* dn = hlx_op_attr(dot, "dot_dimension_numbers");
  ASSERT_NE(dn, nullptr);
  EXPECT_EQ(dn->kind, HLX_ATTR_STRUCT);
  EXPECT_STREQ(dn->str, "stablehlo.dot");
  EXPECT_EQ(hlx_attr_dict_get(dn, "lhs_contracting_dimensions")->ints[0], 2);
  EXPECT_EQ(hlx_attr_dict_get(dn, "rhs_contracting_dimensions")->ints[0], 1);
  EXPECT_EQ(hlx_attr_dict_get(dn, "lhs_batching_dimensions")->count, 1);
  const hlx_attr_t* pc = hlx_op_attr(dot, "precision_config");
  ASSERT_EQ(pc->kind, HLX_ATTR_ARRAY);
  EXPECT_STREQ(pc->items[1]->enum_value, "HIGHEST");
  EXPECT_STREQ(pc->items[1]->str, "precision");
  const hlx_attr_t* alg = hlx_op_attr(dot, "algorithm");
  ASSERT_NE(alg, nullptr);
  EXPECT_STREQ(alg->str, "stablehlo.dot_algorithm");
  EXPECT_STREQ(hlx_attr_dict_get(alg, "accumulation_type")->str, "f32");
  const hlx_op_t* conv = Op(m.get(), 1);
  const hlx_attr_t* cd = hlx_op_attr(conv, "dimension_numbers");
  ASSERT_NE(cd, nullptr);
  EXPECT_STREQ(cd->str, "stablehlo.conv");
  EXPECT_EQ(hlx_attr_dict_get(cd, "input_feature_dimension")->i, 3);
  EXPECT_EQ(hlx_attr_dict_get(cd, "kernel_output_feature_dimension")->i, 3);
  EXPECT_EQ(hlx_attr_dict_get(cd, "output_spatial_dimensions")->ints[1], 2);
  const hlx_attr_t* pad = hlx_op_attr(conv, "padding");
  ASSERT_EQ(pad->kind, HLX_ATTR_DENSE);
  EXPECT_EQ(pad->type->dims[0], 2);
  EXPECT_EQ(static_cast<const int64_t*>(pad->dense)[3], 2);
  EXPECT_EQ(hlx_op_attr(conv, "window_strides")->ints[0], 2);
  EXPECT_EQ(hlx_op_attr(conv, "rhs_dilation")->ints[0], 2);
  const hlx_attr_t* rev = hlx_op_attr(conv, "window_reversal");
  ASSERT_NE(rev, nullptr);
  EXPECT_EQ(rev->ints[1], 1);
  ASSERT_NE(rev->type, nullptr);
  EXPECT_EQ(rev->type->dtype, HLX_DTYPE_PRED);
  EXPECT_EQ(hlx_op_attr(conv, "feature_group_count")->i, 1);
  const hlx_attr_t* cd2 = hlx_op_attr(Op(m.get(), 2), "dimension_numbers");
  EXPECT_EQ(hlx_attr_dict_get(cd2, "input_feature_dimension")->i, 1);
  EXPECT_EQ(hlx_attr_dict_get(cd2, "input_spatial_dimensions")->ints[0], 3);
  EXPECT_EQ(hlx_attr_dict_get(cd2, "kernel_output_feature_dimension")->i, 0);
  EXPECT_EQ(hlx_attr_dict_get(cd2, "output_batch_dimension")->i, 1);
}

TEST(Pretty, ReduceWhileTuples) {
  ModulePtr m;
  MustParse(R"(
func.func @f(%x: tensor<4x5xf32>, %y: tensor<4x5xi32>) -> (tensor<4xf32>, tensor<i64>) {
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %i = stablehlo.constant dense<0> : tensor<i32>
  %0 = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [1] : (tensor<4x5xf32>, tensor<f32>) -> tensor<4xf32>
  %1:2 = stablehlo.reduce(%x init: %c), (%y init: %i) across dimensions = [1] : (tensor<4x5xf32>, tensor<4x5xi32>, tensor<f32>, tensor<i32>) -> (tensor<4xf32>, tensor<4xi32>)
   reducer(%a: tensor<f32>, %b: tensor<f32>) (%p: tensor<i32>, %q: tensor<i32>)  {
    %s = stablehlo.add %a, %b : tensor<f32>
    %t = stablehlo.add %p, %q : tensor<i32>
    stablehlo.return %s, %t : tensor<f32>, tensor<i32>
  }
  %n = stablehlo.constant dense<0> : tensor<i64>
  %w0, %w1 = stablehlo.while(%iterArg = %n, %iterArg_1 = %1#1) : tensor<i64>, tensor<4xi32>
   cond {
    %k = stablehlo.constant dense<3> : tensor<i64>
    %lt = stablehlo.compare  LT, %iterArg, %k,  SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %k = stablehlo.constant dense<1> : tensor<i64>
    %s = stablehlo.add %iterArg, %k : tensor<i64>
    stablehlo.return %s, %iterArg_1 : tensor<i64>, tensor<4xi32>
  }
  %t = stablehlo.tuple %w0, %0 : tuple<tensor<i64>, tensor<4xf32>>
  %g = stablehlo.get_tuple_element %t[1] : (tuple<tensor<i64>, tensor<4xf32>>) -> tensor<4xf32>
  %r0, %r1 = stablehlo.optimization_barrier %g, %w0 : tensor<4xf32>, tensor<i64>
  func.return %r0, %r1 : tensor<4xf32>, tensor<i64>
}
)",
            &m);
  ASSERT_NE(m.get(), nullptr);
  const hlx_op_t* r = Op(m.get(), 2);
  EXPECT_EQ(r->code, HLX_OP_REDUCE);
  EXPECT_EQ(r->num_operands, 2);
  EXPECT_EQ(hlx_op_attr(r, "dimensions")->ints[0], 1);
  ASSERT_EQ(r->num_regions, 1);
  const hlx_block_t* rb = r->regions[0]->blocks[0];
  ASSERT_EQ(rb->num_args, 2);
  EXPECT_EQ(rb->args[0]->type->rank, 0);
  EXPECT_EQ(rb->args[0]->type->dtype, HLX_DTYPE_F32);
  ASSERT_EQ(rb->num_ops, 2);
  EXPECT_EQ(rb->ops[0]->code, HLX_OP_ADD);
  EXPECT_EQ(rb->ops[0]->operands[1], rb->args[1]);
  EXPECT_EQ(rb->ops[1]->code, HLX_OP_RETURN);
  const hlx_op_t* r2 = Op(m.get(), 3);
  EXPECT_EQ(r2->num_operands, 4);
  EXPECT_EQ(r2->operands[1]->name, std::string("y"));
  EXPECT_EQ(r2->operands[2]->name, std::string("c"));
  const hlx_block_t* rb2 = r2->regions[0]->blocks[0];
  ASSERT_EQ(rb2->num_args, 4);
  // reducer(%a, %b) (%p, %q): block args are (a, p, b, q).
  EXPECT_STREQ(rb2->args[0]->name, "a");
  EXPECT_STREQ(rb2->args[1]->name, "p");
  EXPECT_STREQ(rb2->args[2]->name, "b");
  EXPECT_STREQ(rb2->args[3]->name, "q");
  const hlx_op_t* w = Op(m.get(), 5);
  EXPECT_EQ(w->code, HLX_OP_WHILE);
  EXPECT_EQ(w->num_results, 2);
  EXPECT_EQ(w->operands[1], r2->results[1]);
  ASSERT_EQ(w->num_regions, 2);
  EXPECT_EQ(w->regions[0]->blocks[0]->num_args, 2);
  EXPECT_EQ(w->regions[1]->blocks[0]->args[1]->type->dims[0], 4);
  const hlx_op_t* gte = Op(m.get(), 7);
  EXPECT_EQ(hlx_op_attr(gte, "index")->i, 1);
  EXPECT_EQ(Op(m.get(), 8)->num_results, 2);
  // Value ids are unique per function and dense.
  const hlx_func_t* f = m.get()->funcs[0];
  std::vector<int> seen(f->num_values, 0);
  std::function<void(const hlx_block_t*)> walk = [&](const hlx_block_t* b) {
    for (int i = 0; i < b->num_args; i++) seen.at(b->args[i]->id)++;
    for (int i = 0; i < b->num_ops; i++) {
      const hlx_op_t* op = b->ops[i];
      for (int k = 0; k < op->num_results; k++) seen.at(op->results[k]->id)++;
      for (int k = 0; k < op->num_regions; k++) walk(op->regions[k]->blocks[0]);
    }
  };
  walk(Body(m.get()));
  for (int i = 0; i < f->num_values; i++) EXPECT_EQ(seen[i], 1) << "value id " << i;
}

TEST(Generic, UnknownOpsStructsAliases) {
  ModulePtr m;
  MustParse(R"(
!t = tensor<2xf32>
#g = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>
func.func private @f(%a: !t loc("x.py":1:2), %i: tensor<2x1xi32>) -> !t attributes {foo.bar = unit} {
  %0 = "my.op"(%a) <{p = array<i64: 1, 2>, q = array<i1: true, false>}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    "my.yield"(%x) : (tensor<f32>) -> ()
  }) {s = "a\"b\0A", d = {k = 1.5 : f32, u}, e = #foo<bar baz>, o = affine_map<(d0) -> (d0)>, v = -3 : i8, z = 0x7FC00000 : f32} : (tensor<2xf32>) -> tensor<2xf32> loc(#loc1)
  %1 = "stablehlo.gather"(%0, %i) <{dimension_numbers = #g, slice_sizes = array<i64: 1>, indices_are_sorted = false}> : (tensor<2xf32>, tensor<2x1xi32>) -> tensor<2xf32>
  %2 = "stablehlo.all_reduce"(%1) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %s = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>} : (tensor<2xf32>) -> tensor<2xf32>
  %3 = "stablehlo.dynamic_conv"(%2, %2, %i) {dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 0, input_spatial_dimensions = [], kernel_input_feature_dimension = 0, kernel_output_feature_dimension = 0, kernel_spatial_dimensions = [], output_batch_dimension = 0, output_feature_dimension = 0, output_spatial_dimensions = []>} : (tensor<2xf32>, tensor<2xf32>, tensor<2x1xi32>) -> tensor<2xf32>
  func.return %3 : tensor<2xf32>
}
#loc1 = loc("y.py":3:4)
)",
            &m);
  ASSERT_NE(m.get(), nullptr);
  const hlx_func_t* f = m.get()->funcs[0];
  EXPECT_FALSE(f->is_public);
  EXPECT_EQ(f->attrs[0].value->kind, HLX_ATTR_UNIT);
  EXPECT_EQ(f->result_types[0]->dims[0], 2);
  const hlx_op_t* op = Op(m.get(), 0);
  EXPECT_EQ(op->code, HLX_OP_UNKNOWN);
  EXPECT_STREQ(op->name, "my.op");
  EXPECT_EQ(hlx_op_attr(op, "p")->kind, HLX_ATTR_I64_ARRAY);
  EXPECT_EQ(hlx_op_attr(op, "q")->type->dtype, HLX_DTYPE_PRED);
  const hlx_attr_t* s = hlx_op_attr(op, "s");
  EXPECT_EQ(std::string(s->str, s->len), "a\"b\n");
  EXPECT_EQ(hlx_attr_dict_get(hlx_op_attr(op, "d"), "k")->f, 1.5);
  EXPECT_EQ(hlx_attr_dict_get(hlx_op_attr(op, "d"), "u")->kind, HLX_ATTR_UNIT);
  EXPECT_STREQ(hlx_op_attr(op, "e")->str, "foo.bar");
  EXPECT_EQ(hlx_op_attr(op, "o")->kind, HLX_ATTR_OPAQUE);
  EXPECT_EQ(hlx_op_attr(op, "v")->i, -3);
  EXPECT_TRUE(std::isnan(hlx_op_attr(op, "z")->f));
  const hlx_attr_t* g = hlx_op_attr(Op(m.get(), 1), "dimension_numbers");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->kind, HLX_ATTR_STRUCT);
  EXPECT_STREQ(g->str, "stablehlo.gather");
  EXPECT_EQ(hlx_attr_dict_get(g, "offset_dims")->kind, HLX_ATTR_I64_ARRAY);
  EXPECT_EQ(hlx_attr_dict_get(g, "index_vector_dim")->i, 1);
  const hlx_attr_t* ch = hlx_op_attr(Op(m.get(), 2), "channel_handle");
  EXPECT_EQ(hlx_attr_dict_get(ch, "handle")->i, 1);
  EXPECT_EQ(Op(m.get(), 2)->regions[0]->blocks[0]->num_args, 2);
}

TEST(Pretty, CheckAndInterpreterOps) {
  ModulePtr m;
  MustParse(R"(
func.func @f(%a: tensor<2xf64>) {
  check.expect_eq_const %a, dense<[1.0, 2.0]> : tensor<2xf64>
  check.expect_almost_eq_const %a, dense<5.1> : tensor<2xf64> {tolerance = 0.1 : f64}
  check.expect_almost_eq %a, %a, tolerance = 0.25 : tensor<2xf64>
  check.expect_close %a, %a, max_ulp_difference = 3 : tensor<2xf64>, tensor<2xf64>
  %p = interpreter.probe %a, probe_id = "pr" : tensor<2xf64>
  check.expect_serialized_eq %p, probe_id = "pr", iter = 1 : tensor<2xf64>
  %0 = call @g(%a) : (tensor<2xf64>) -> tensor<2xf64>
  %1:2 = "interpreter.run_parallel"(%a, %0) {programs = [[@g], [@g]]} : (tensor<2xf64>, tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>)
  check.expect_eq %1#0, %1#1 : tensor<2xf64>
  func.return
}
func.func @g(%a: tensor<2xf64>) -> tensor<2xf64> {
  return %a : tensor<2xf64>
}
)",
            &m);
  ASSERT_NE(m.get(), nullptr);
  EXPECT_EQ(Op(m.get(), 0)->code, HLX_OP_CHECK_EXPECT_EQ_CONST);
  EXPECT_EQ(hlx_op_attr(Op(m.get(), 0), "value")->kind, HLX_ATTR_DENSE);
  EXPECT_EQ(hlx_op_attr(Op(m.get(), 1), "tolerance")->f, 0.1);
  EXPECT_EQ(hlx_op_attr(Op(m.get(), 2), "tolerance")->f, 0.25);
  EXPECT_EQ(Op(m.get(), 2)->num_operands, 2);
  EXPECT_EQ(hlx_op_attr(Op(m.get(), 3), "max_ulp_difference")->i, 3);
  EXPECT_STREQ(hlx_op_attr(Op(m.get(), 4), "probe_id")->str, "pr");
  EXPECT_EQ(Op(m.get(), 4)->num_results, 1);
  EXPECT_EQ(hlx_op_attr(Op(m.get(), 5), "iter")->i, 1);
  const hlx_op_t* call = Op(m.get(), 6);
  EXPECT_EQ(call->code, HLX_OP_FUNC_CALL);
  EXPECT_STREQ(call->name, "func.call");
  EXPECT_EQ(hlx_op_attr(call, "callee")->kind, HLX_ATTR_SYMBOL);
  EXPECT_STREQ(hlx_op_attr(call, "callee")->str, "g");
  EXPECT_EQ(Op(m.get(), 7)->code, HLX_OP_INTERPRETER_RUN_PARALLEL);
  EXPECT_EQ(Op(m.get(), 8)->operands[1], Op(m.get(), 7)->results[1]);
  EXPECT_EQ(Op(m.get(), 0, 1)->code, HLX_OP_FUNC_RETURN);
}

TEST(Generic, QuotedSymbols) {
  ModulePtr m;
  MustParse("module @\"2 mod\" {\n  func.func @\"f g\"() {\n    func.return\n  }\n}\n", &m);
  ASSERT_NE(m.get(), nullptr);
  EXPECT_STREQ(m.get()->name, "2 mod");
  EXPECT_STREQ(m.get()->funcs[0]->name, "f g");
}

TEST(Errors, Messages) {
  std::string e = ParseError("func.func @f() {\n  %0 = stablehlo.add %x, %y : tensor<f32>\n}\n");
  EXPECT_NE(e.find("test.mlir:2:"), std::string::npos) << e;
  EXPECT_NE(e.find("undefined value '%x'"), std::string::npos) << e;
  e = ParseError("func.func @f() {\n  %0 = stablehlo.constant dense<1> : tensor<4xqq>\n}\n");
  EXPECT_NE(e.find("unsupported"), std::string::npos) << e;
  e = ParseError("func.func @f() {\n  func.return\n");
  EXPECT_NE(e.find("expected"), std::string::npos) << e;
  e = ParseError("func.func @f() {\n  %0 = \"a.b\"() : () -> (tensor<f32>, tensor<f32>)\n}\n");
  EXPECT_NE(e.find("result"), std::string::npos) << e;
  e = ParseError("func.func @f(%a: tensor<f32>, %a: tensor<f32>) {\n}\n");
  EXPECT_NE(e.find("redefinition"), std::string::npos) << e;
  // first_line offsets line numbers.
  ModulePtr m;
  std::string err;
  EXPECT_FALSE(hlx_test::Parse("func.func @f() {\n  bogus\n}", &m, &err, "x.mlir", 10));
  EXPECT_NE(err.find("x.mlir:11:3"), std::string::npos) << err;
}

TEST(Equality, DetectsDifferences) {
  ModulePtr a, b;
  MustParse("func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
            "  %0 = stablehlo.add %a, %a : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}",
            &a);
  MustParse("func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
            "  %0 = stablehlo.multiply %a, %a : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}",
            &b);
  char why[256];
  EXPECT_TRUE(hlx_module_equal(a.get(), a.get(), why, sizeof why));
  EXPECT_FALSE(hlx_module_equal(a.get(), b.get(), why, sizeof why));
  EXPECT_NE(std::string(why).find("stablehlo.add"), std::string::npos) << why;
  ModulePtr c;
  MustParse("func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
            "  %c = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>\n"
            "  %0 = stablehlo.add %a, %c : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}",
            &c);
  ModulePtr d;
  MustParse("func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
            "  %c = stablehlo.constant dense<[1.0, 3.0]> : tensor<2xf32>\n"
            "  %0 = stablehlo.add %a, %c : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}",
            &d);
  EXPECT_FALSE(hlx_module_equal(c.get(), d.get(), why, sizeof why));
  ModulePtr e;
  MustParse("func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
            "  %c = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>\n"
            "  %0 = stablehlo.add %c, %a : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}",
            &e);
  EXPECT_FALSE(hlx_module_equal(c.get(), e.get(), why, sizeof why));
  EXPECT_NE(std::string(why).find("operand 0"), std::string::npos) << why;
}

}  // namespace

// The attributes JAX and PyTorch/XLA write on their exports: `index`-typed
// layouts, output/operand aliases, backend_config dictionaries, frontend
// attributes, shardings, result info. Each parses, is kept on its op and
// prints back (MustParse checks print -> parse -> print).
TEST(Generic, JaxAndTorchExportAttributes) {
  ModulePtr m;
  MustParse(R"(
module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x3xf32> {jax.arg_info = "x", mhlo.sharding = "{replicated}", mhlo.layout_mode = "default"} loc("x")) -> (tensor<3x3xf32> {jax.result_info = "[0]", mhlo.layout_mode = "default"}, tensor<i32> {jax.result_info = "[1]"}) {
    %0:2 = stablehlo.custom_call @lapack_spotrf_ffi(%arg0) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i, j], []) {i=3, j=3}, custom>} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<i32>)
    %1 = stablehlo.custom_call @Sharding(%0#0) {api_version = 2 : i32, backend_config = "", has_side_effect = true, mhlo.sharding = "{replicated}", xla_shape = "f32[3,3]{1,0}"} : (tensor<3x3xf32>) -> tensor<3x3xf32>
    %2 = stablehlo.transpose %1, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[3,3]{0,1}"} : (tensor<3x3xf32>) -> tensor<3x3xf32>
    %3 = "stablehlo.custom_call"(%2) <{call_target_name = "foo", api_version = 4 : i32, backend_config = {k = 5 : index, s = "v"}}> {operand_layouts = [dense<[1, 0]> : tensor<2xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>]} : (tensor<3x3xf32>) -> tensor<3x3xf32>
    return %3, %0#1 : tensor<3x3xf32>, tensor<i32>
  }
}
)",
            &m);
  ASSERT_NE(m.get(), nullptr);
  const hlx_func_t* f = m.get()->funcs[0];
  EXPECT_STREQ(hlx_named_attrs_get(f->arg_attrs[0], f->num_arg_attrs[0], "mhlo.sharding")->str,
               "{replicated}");
  EXPECT_STREQ(hlx_named_attrs_get(f->result_attrs[0], f->num_result_attrs[0], "jax.result_info")->str,
               "[0]");
  const hlx_op_t* cc = Op(m.get(), 0);
  const hlx_attr_t* ol = hlx_op_attr(cc, "operand_layouts");
  ASSERT_NE(ol, nullptr);
  ASSERT_EQ(ol->kind, HLX_ATTR_ARRAY);
  ASSERT_EQ(ol->count, 1);
  const hlx_attr_t* l0 = ol->items[0];
  ASSERT_EQ(l0->kind, HLX_ATTR_DENSE);
  EXPECT_TRUE(l0->type->is_index);
  EXPECT_EQ(l0->type->dtype, HLX_DTYPE_S64);
  ASSERT_EQ(l0->dense_bytes, 16u);
  EXPECT_EQ(static_cast<const int64_t*>(l0->dense)[0], 0);
  EXPECT_EQ(static_cast<const int64_t*>(l0->dense)[1], 1);
  const hlx_attr_t* rl = hlx_op_attr(cc, "result_layouts");
  ASSERT_EQ(rl->count, 2);
  EXPECT_EQ(rl->items[1]->dense_bytes, 0u);
  EXPECT_EQ(rl->items[1]->type->rank, 1);
  const hlx_attr_t* al = hlx_op_attr(cc, "output_operand_aliases");
  ASSERT_EQ(al->kind, HLX_ATTR_ARRAY);
  const hlx_attr_t* a0 = al->items[0];
  EXPECT_EQ(a0->kind, HLX_ATTR_STRUCT);
  EXPECT_STREQ(a0->str, "stablehlo.output_operand_alias");
  EXPECT_EQ(hlx_attr_dict_get(a0, "operand_index")->i, 0);
  EXPECT_EQ(hlx_attr_dict_get(a0, "output_tuple_indices")->count, 1);
  EXPECT_EQ(hlx_attr_dict_get(a0, "operand_tuple_indices")->count, 0);
  const hlx_attr_t* bc = hlx_op_attr(cc, "mhlo.backend_config");
  ASSERT_EQ(bc->kind, HLX_ATTR_DICT);
  EXPECT_EQ(hlx_attr_dict_get(bc, "uplo")->i, 76);
  EXPECT_EQ(hlx_attr_dict_get(bc, "uplo")->type->dtype, HLX_DTYPE_U8);
  EXPECT_STREQ(hlx_attr_dict_get(hlx_op_attr(cc, "mhlo.frontend_attributes"), "num_batch_dims")->str,
               "0");
  EXPECT_EQ(hlx_op_attr(cc, "sdy.sharding_rule")->kind, HLX_ATTR_OPAQUE);
  const hlx_op_t* sh = Op(m.get(), 1);
  EXPECT_STREQ(hlx_op_attr(sh, "call_target_name")->str, "Sharding");
  EXPECT_EQ(hlx_op_attr(sh, "api_version")->i, 2);
  EXPECT_TRUE(hlx_op_attr(sh, "has_side_effect")->b);
  EXPECT_STREQ(hlx_op_attr(sh, "xla_shape")->str, "f32[3,3]{1,0}");
  const hlx_op_t* tr = Op(m.get(), 2);
  EXPECT_EQ(tr->code, HLX_OP_TRANSPOSE);
  EXPECT_TRUE(hlx_op_attr(tr, "result_layout")->type->is_index);
  const hlx_attr_t* k = hlx_attr_dict_get(hlx_op_attr(Op(m.get(), 3), "backend_config"), "k");
  ASSERT_EQ(k->kind, HLX_ATTR_INT);
  EXPECT_EQ(k->i, 5);
  EXPECT_TRUE(k->type->is_index);
  std::string printed = hlx_test::Print(m.get());
  EXPECT_NE(printed.find(": tensor<2xindex>"), std::string::npos);
  EXPECT_NE(printed.find("dense<> : tensor<0xindex>"), std::string::npos);
  EXPECT_NE(printed.find("5 : index"), std::string::npos);
  // `index` is an attribute type only: values and constants may not use it.
  std::string e = ParseError("func.func @f(%a: tensor<2xindex>) {\n  func.return\n}\n");
  EXPECT_NE(e.find("element type 'index'"), std::string::npos) << e;
  // Types differing only in index-ness are different.
  ModulePtr a, b;
  MustParse("func.func @f() {\n  \"x.y\"() {l = dense<0> : tensor<1xindex>} : () -> ()\n  func.return\n}\n", &a);
  MustParse("func.func @f() {\n  \"x.y\"() {l = dense<0> : tensor<1xi64>} : () -> ()\n  func.return\n}\n", &b);
  char why[256];
  EXPECT_FALSE(hlx_module_equal(a.get(), b.get(), why, sizeof why));
}
