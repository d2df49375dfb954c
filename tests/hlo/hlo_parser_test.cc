// The HLO text front end: each HLO program imports to exactly the IR the
// StableHLO parser gives its StableHLO equivalent (same ops, attribute
// names and representations), round-trips through the HLO printer, and
// malformed text gives line:col errors naming the token.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "tests/hlo/hlo_test_util.h"

namespace {

using hlx_test::Module;

struct Pair {
  const char* name;
  const char* hlo;
  const char* stablehlo;
};

// HLO programs and their StableHLO equivalents (generic form where the
// attribute representation matters).
const Pair kPairs[] = {
    {"elementwise", R"(
HloModule m
ENTRY e {
  a = f32[2,3]{1,0} parameter(0)
  b = f32[2,3] parameter(1)
  s = f32[2,3] add(a, b)
  n = f32[2,3] negate(s)
  ROOT c = pred[2,3] compare(n, a), direction=LT
})",
     R"(
module @m {
  func.func public @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xi1> {
    %s = stablehlo.add %a, %b : tensor<2x3xf32>
    %n = stablehlo.negate %s : tensor<2x3xf32>
    %c = stablehlo.compare LT, %n, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    func.return %c : tensor<2x3xi1>
  }
})"},
    {"data_movement", R"(
HloModule dm
ENTRY e {
  x = f32[2,3] parameter(0)
  i = s32[] parameter(1)
  b = f32[4,2,3] broadcast(x), dimensions={1,2}
  t = f32[3,2] transpose(x), dimensions={1,0}
  r = f32[6] reshape(x)
  s = f32[1,2]{1,0} slice(x), slice={[1:2], [0:3:2]}
  z = f32[] constant(0)
  p = f32[4,8] pad(x, z), padding=1_1x2_1_1
  c = f32[4,3] concatenate(x, x), dimensions={0}
  io = s32[5] iota(), iota_dimension=0
  rv = f32[2,3] reverse(x), dimensions={0}
  cv = f16[2,3] convert(x)
  ds = f32[1,2] dynamic-slice(x, i, i), dynamic_slice_sizes={1,2}
  du = f32[2,3] dynamic-update-slice(x, ds, i, i)
  tu = (f32[4,2,3], f32[3,2]) tuple(b, t)
  ROOT g = f32[3,2] get-tuple-element(tu), index=1
})",
     R"(
module @dm {
  func.func public @main(%x: tensor<2x3xf32>, %i: tensor<i32>) -> tensor<3x2xf32> {
    %b = stablehlo.broadcast_in_dim %x, dims = [1, 2] : (tensor<2x3xf32>) -> tensor<4x2x3xf32>
    %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %r = stablehlo.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>
    %s = stablehlo.slice %x [1:2, 0:3:2] : (tensor<2x3xf32>) -> tensor<1x2xf32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %p = stablehlo.pad %x, %z, low = [1, 2], high = [1, 1], interior = [0, 1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<4x8xf32>
    %c = stablehlo.concatenate %x, %x, dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
    %io = stablehlo.iota dim = 0 : tensor<5xi32>
    %rv = stablehlo.reverse %x, dims = [0] : tensor<2x3xf32>
    %cv = stablehlo.convert %x : (tensor<2x3xf32>) -> tensor<2x3xf16>
    %ds = stablehlo.dynamic_slice %x, %i, %i, sizes = [1, 2] : (tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x2xf32>
    %du = stablehlo.dynamic_update_slice %x, %ds, %i, %i : (tensor<2x3xf32>, tensor<1x2xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
    %tu = stablehlo.tuple %b, %t : tuple<tensor<4x2x3xf32>, tensor<3x2xf32>>
    %g = stablehlo.get_tuple_element %tu[1] : (tuple<tensor<4x2x3xf32>, tensor<3x2xf32>>) -> tensor<3x2xf32>
    func.return %g : tensor<3x2xf32>
  }
})"},
    {"dot_conv", R"(
HloModule dc
ENTRY e {
  a = f32[2,3,4] parameter(0)
  b = f32[2,4,5] parameter(1)
  d = f32[2,3,5] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}, operand_precision={high,default}
  x = f32[1,5,5,3] parameter(2)
  k = f32[2,2,3,4] parameter(3)
  ROOT c = f32[1,3,5,4] convolution(x, k), window={size=2x2 stride=2x1 pad=0_1x1_0}, dim_labels=b01f_01io->b01f
})",
     R"(
module @dc {
  func.func public @main(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>, %x: tensor<1x5x5x3xf32>, %k: tensor<2x2x3x4xf32>) -> tensor<1x3x5x4xf32> {
    %d = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision HIGH>, #stablehlo<precision DEFAULT>]} : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
    %c = "stablehlo.convolution"(%x, %k) {dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, window_strides = array<i64: 2, 1>, padding = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x5x5x3xf32>, tensor<2x2x3x4xf32>) -> tensor<1x3x5x4xf32>
    func.return %c : tensor<1x3x5x4xf32>
  }
})"},
    {"gather_scatter", R"(
HloModule gs
add {
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  ROOT r = f32[] add(p, q)
}
ENTRY e {
  x = f32[5,3] parameter(0)
  i = s32[2,1] parameter(1)
  g = f32[2,3] gather(x, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}
  ROOT s = f32[5,3] scatter(x, i, g), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
})",
     R"(
module @gs {
  func.func public @main(%x: tensor<5x3xf32>, %i: tensor<2x1xi32>) -> tensor<5x3xf32> {
    %g = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], operand_batching_dims = [], start_indices_batching_dims = [], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 3>, indices_are_sorted = false} : (tensor<5x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
    %s = "stablehlo.scatter"(%x, %i, %g) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %r = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %r : tensor<f32>
    }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], input_batching_dims = [], scatter_indices_batching_dims = [], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, indices_are_sorted = false, unique_indices = false} : (tensor<5x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<5x3xf32>
    func.return %s : tensor<5x3xf32>
  }
})"},
    {"variadic_reduce_and_windows", R"(
HloModule rw
argmax {
  m = f32[] parameter(0)
  i = s32[] parameter(1)
  v = f32[] parameter(2)
  k = s32[] parameter(3)
  ge = pred[] compare(v, m), direction=GE
  mv = f32[] select(ge, v, m)
  mk = s32[] select(ge, k, i)
  ROOT t = (f32[], s32[]) tuple(mv, mk)
}
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] maximum(a, b)
}
ENTRY e {
  x = f32[4,6] parameter(0)
  ix = s32[4,6] iota(), iota_dimension=1
  lo = f32[] constant(-inf)
  z = s32[] constant(0)
  r = (f32[4], s32[4]) reduce(x, ix, lo, z), dimensions={1}, to_apply=argmax
  w = f32[2,3] reduce-window(x, lo), window={size=2x2 stride=2x2}, to_apply=max
  ROOT g = f32[4] get-tuple-element(r), index=0
})",
     R"(
module @rw {
  func.func public @main(%x: tensor<4x6xf32>) -> tensor<4xf32> {
    %ix = stablehlo.iota dim = 1 : tensor<4x6xi32>
    %lo = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %z = stablehlo.constant dense<0> : tensor<i32>
    %r:2 = "stablehlo.reduce"(%x, %ix, %lo, %z) ({
    ^bb0(%m: tensor<f32>, %i: tensor<i32>, %v: tensor<f32>, %k: tensor<i32>):
      %ge = stablehlo.compare GE, %v, %m : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %mv = stablehlo.select %ge, %v, %m : tensor<i1>, tensor<f32>
      %mk = stablehlo.select %ge, %k, %i : tensor<i1>, tensor<i32>
      stablehlo.return %mv, %mk : tensor<f32>, tensor<i32>
    }) {dimensions = array<i64: 1>} : (tensor<4x6xf32>, tensor<4x6xi32>, tensor<f32>, tensor<i32>) -> (tensor<4xf32>, tensor<4xi32>)
    %rt = stablehlo.tuple %r#0, %r#1 : tuple<tensor<4xf32>, tensor<4xi32>>
    %w = "stablehlo.reduce_window"(%x, %lo) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %c = stablehlo.maximum %a, %b : tensor<f32>
      stablehlo.return %c : tensor<f32>
    }) {window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>, padding = dense<0> : tensor<2x2xi64>, base_dilations = array<i64: 1, 1>, window_dilations = array<i64: 1, 1>} : (tensor<4x6xf32>, tensor<f32>) -> tensor<2x3xf32>
    %g = stablehlo.get_tuple_element %rt[0] : (tuple<tensor<4xf32>, tensor<4xi32>>) -> tensor<4xf32>
    func.return %g : tensor<4xf32>
  }
})"},
    {"control_flow", R"(
HloModule cf
cond {
  s = (s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[3] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  w = f32[3] add(v, v)
  ROOT t = (s32[], f32[3]) tuple(j, w)
}
neg {
  p = f32[3] parameter(0)
  ROOT n = f32[3] negate(p)
}
ident {
  p = f32[3] parameter(0)
  ROOT q = f32[3] copy(p)
}
ENTRY e {
  x = f32[3] parameter(0)
  b = pred[] parameter(1)
  z = s32[] constant(0)
  t = (s32[], f32[3]) tuple(z, x)
  l = (s32[], f32[3]) while(t), condition=cond, body=body
  y = f32[3] get-tuple-element(l), index=1
  c = f32[3] conditional(b, y, x), true_computation=neg, false_computation=ident
  ROOT f = f32[3] call(c), to_apply=neg
})",
     R"(
module @cf {
  func.func public @main(%x: tensor<3xf32>, %b: tensor<i1>) -> tensor<3xf32> {
    %z = stablehlo.constant dense<0> : tensor<i32>
    %t = stablehlo.tuple %z, %x : tuple<tensor<i32>, tensor<3xf32>>
    %l = "stablehlo.while"(%t) ({
    ^bb0(%s: tuple<tensor<i32>, tensor<3xf32>>):
      %i = stablehlo.get_tuple_element %s[0] : (tuple<tensor<i32>, tensor<3xf32>>) -> tensor<i32>
      %n = stablehlo.constant dense<4> : tensor<i32>
      %lt = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }, {
    ^bb0(%s: tuple<tensor<i32>, tensor<3xf32>>):
      %i = stablehlo.get_tuple_element %s[0] : (tuple<tensor<i32>, tensor<3xf32>>) -> tensor<i32>
      %v = stablehlo.get_tuple_element %s[1] : (tuple<tensor<i32>, tensor<3xf32>>) -> tensor<3xf32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %j = stablehlo.add %i, %one : tensor<i32>
      %w = stablehlo.add %v, %v : tensor<3xf32>
      %tt = stablehlo.tuple %j, %w : tuple<tensor<i32>, tensor<3xf32>>
      stablehlo.return %tt : tuple<tensor<i32>, tensor<3xf32>>
    }) : (tuple<tensor<i32>, tensor<3xf32>>) -> tuple<tensor<i32>, tensor<3xf32>>
    %y = stablehlo.get_tuple_element %l[1] : (tuple<tensor<i32>, tensor<3xf32>>) -> tensor<3xf32>
    %c = "stablehlo.if"(%b) ({
      %n = stablehlo.negate %y : tensor<3xf32>
      stablehlo.return %n : tensor<3xf32>
    }, {
      stablehlo.return %x : tensor<3xf32>
    }) : (tensor<i1>) -> tensor<3xf32>
    %f = func.call @neg(%c) : (tensor<3xf32>) -> tensor<3xf32>
    func.return %f : tensor<3xf32>
  }
  func.func private @neg(%p: tensor<3xf32>) -> tensor<3xf32> {
    %n = stablehlo.negate %p : tensor<3xf32>
    func.return %n : tensor<3xf32>
  }
})"},
    {"misc", R"(
HloModule misc
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
ENTRY e {
  x = f32[4,4] parameter(0)
  k = u64[2] parameter(1)
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  u = f32[2,3] rng(lo, hi), distribution=rng_uniform
  g = (u64[2], u32[2,2]) rng-bit-generator(k), algorithm=rng_three_fry
  ch = f32[4,4] cholesky(x), lower=true
  ts = f32[4,4] triangular-solve(x, ch), left_side=true, lower=true, transpose_a=TRANSPOSE
  rp = f32[4,4] reduce-precision(ts), exponent_bits=5, mantissa_bits=10
  cc = f32[4,4] custom-call(rp), custom_call_target="my_fn", backend_config="cfg", custom_call_has_side_effect=true
  ar = f32[4,4] all-reduce(cc), replica_groups={{0,1}}, channel_id=3, use_global_device_ids=true, to_apply=sum
  ROOT cp = f32[4,4] collective-permute(ar), source_target_pairs={{0,1},{1,0}}
})",
     R"(
module @misc {
  func.func public @main(%x: tensor<4x4xf32>, %k: tensor<2xui64>) -> tensor<4x4xf32> {
    %lo = stablehlo.constant dense<0.0> : tensor<f32>
    %hi = stablehlo.constant dense<1.0> : tensor<f32>
    %sh = stablehlo.constant dense<[2, 3]> : tensor<2xi64>
    %u = stablehlo.rng %lo, %hi, %sh, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<2x3xf32>
    %g:2 = stablehlo.rng_bit_generator %k, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x2xui32>)
    %gt = stablehlo.tuple %g#0, %g#1 : tuple<tensor<2xui64>, tensor<2x2xui32>>
    %ch = "stablehlo.cholesky"(%x) {lower = true} : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %ts = "stablehlo.triangular_solve"(%x, %ch) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose TRANSPOSE>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %rp = stablehlo.reduce_precision %ts, format = e5m10 : tensor<4x4xf32>
    %cc = "stablehlo.custom_call"(%rp) {call_target_name = "my_fn", backend_config = "cfg", has_side_effect = true} : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %ar = "stablehlo.all_reduce"(%cc) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %c = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %c : tensor<f32>
    }) {channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids} : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %cp = "stablehlo.collective_permute"(%ar) {source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
    func.return %cp : tensor<4x4xf32>
  }
})"},
};

TEST(HloImport, MatchesStableHloEquivalents) {
  // The comparison is real: a program differs from another's equivalent.
  Module h0, s1;
  ASSERT_EQ(hlx_test::ParseHlo(kPairs[0].hlo, &h0), "");
  ASSERT_EQ(hlx_test::ParseStableHlo(kPairs[1].stablehlo, &s1), "");
  EXPECT_NE(hlx_test::Diff(h0.get(), s1.get()), "");
  for (const Pair& p : kPairs) {
    Module h, s;
    ASSERT_EQ(hlx_test::ParseHlo(p.hlo, &h), "") << p.name;
    ASSERT_EQ(hlx_test::ParseStableHlo(p.stablehlo, &s), "") << p.name;
    EXPECT_EQ(hlx_test::Diff(h.get(), s.get()), "")
        << p.name << "\nHLO imported as:\n"
        << hlx_test::PrintStableHlo(h.get());
    EXPECT_EQ(hlx_test::HloRoundTrip(h.get()), "") << p.name;
  }
}

// Text HLO writers produce: no header, `%` sigils, signatures, comments,
// layouts with tiles, spaces in shapes, attributes hlx drops.
TEST(HloSyntax, FormsOfTheSameProgram) {
  const char* forms[] = {
      R"(HloModule m
ENTRY main {
  x = f32[2,3] parameter(0)
  ROOT y = f32[2,3] exponential(x)
})",
      R"(// RUN: some-tool %s | FileCheck %s
/* a block
   comment */
HloModule m, is_scheduled=true, entry_computation_layout={(f32[2,3]{1,0})->f32[2,3]{1,0}}

ENTRY %main.7 (x.1: f32[2,3]) -> f32[2,3] {
  %x.1 = f32[2, 3]{1,0:T(2,128)} parameter(0), sharding={replicated}, metadata={op_name="x" source_file="a.py" source_line=3}
  ROOT %y.2 = f32[2,3]{1,0} exponential(f32[2,3]{1,0} %x.1), frontend_attributes={k="v"}, backend_config={"a":[1,{"b":"}"}]}
}, execution_thread="main"
// CHECK: done
)",
  };
  Module first;
  ASSERT_EQ(hlx_test::ParseHlo(forms[0], &first), "");
  EXPECT_STREQ(first.get()->name, "m");
  ASSERT_EQ(first.get()->num_funcs, 1);
  EXPECT_STREQ(first.get()->funcs[0]->name, "main");
  for (const char* f : forms) {
    Module m;
    ASSERT_EQ(hlx_test::ParseHlo(f, &m), "") << f;
    EXPECT_EQ(hlx_test::Diff(first.get(), m.get()), "") << f;
  }
  // Without a header the module is named after the entry; without ENTRY
  // the last computation is the entry.
  Module bare;
  ASSERT_EQ(hlx_test::ParseHlo(R"(
unused {
  p = f32[] parameter(0)
  ROOT q = f32[] negate(p)
}
fusion {
  p = s32[4] parameter(0)
  ROOT q = s32[4] add(p, p)
})", &bare), "");
  EXPECT_STREQ(bare.get()->name, "module_fusion");
  ASSERT_EQ(bare.get()->num_funcs, 1);  // unreferenced computations go
  EXPECT_EQ(bare.get()->funcs[0]->body->blocks[0]->args[0]->type->dtype,
            HLX_DTYPE_S32);
}

// Tuples as wide as real models return (hundreds of outputs).
TEST(HloSyntax, WideTuples) {
  std::string text = "ENTRY e {\n", shape = "(", ops;
  for (int i = 0; i < 600; i++) {
    text += "  p" + std::to_string(i) + " = f32[2] parameter(" + std::to_string(i) + ")\n";
    shape += std::string(i ? ", " : "") + "f32[2]";
    ops += std::string(i ? ", " : "") + "p" + std::to_string(i);
  }
  text += "  t = " + shape + ") tuple(" + ops + ")\n";
  text += "  ROOT o = token[] outfeed(t, token[] after-all())\n}\n";
  Module m;
  ASSERT_EQ(hlx_test::ParseHlo(text, &m), "");
  EXPECT_EQ(hlx_test::HloRoundTrip(m.get()), "");
}

TEST(HloSyntax, DetectsHloText) {
  EXPECT_TRUE(hlx_text_is_hlo("HloModule m\n", 12));
  std::string entry = "// c\nfoo {\n}\nENTRY main {\n}\n";
  EXPECT_TRUE(hlx_text_is_hlo(entry.data(), entry.size()));
  std::string comp = "/* x */ fusion {\n  p = f32[] parameter(0)\n}";
  EXPECT_TRUE(hlx_text_is_hlo(comp.data(), comp.size()));
  std::string comp2 = "%region_0 (a: f32[]) -> f32[] {";
  EXPECT_TRUE(hlx_text_is_hlo(comp2.data(), comp2.size()));
  for (const char* mlir : {"module {\n}", "func.func @main() {\n}",
                           "#map = affine_map<() -> ()>\nmodule {}",
                           "\"builtin.module\"() ({})", ""}) {
    EXPECT_FALSE(hlx_text_is_hlo(mlir, strlen(mlir))) << mlir;
  }
}

// The bytes of the single constant of `shape constant(literal)`.
std::vector<uint8_t> LiteralBytes(const std::string& shape,
                                  const std::string& literal) {
  Module m;
  std::string text = "ENTRY e {\n  ROOT c = " + shape + " constant(" + literal +
                     ")\n}\n";
  std::string err = hlx_test::ParseHlo(text, &m);
  EXPECT_EQ(err, "") << text;
  if (!err.empty()) return {};
  EXPECT_EQ(hlx_test::HloRoundTrip(m.get()), "") << text;
  const hlx_attr_t* v = hlx_op_attr(m.get()->funcs[0]->body->blocks[0]->ops[0], "value");
  if (!v || v->kind != HLX_ATTR_DENSE) return {};
  const uint8_t* d = static_cast<const uint8_t*>(v->dense);
  return std::vector<uint8_t>(d, d + v->dense_bytes);
}

TEST(HloLiterals, EveryElementType) {
  using B = std::vector<uint8_t>;
  EXPECT_EQ(LiteralBytes("pred[3]", "{true, false, 1}"), (B{1, 0, 1}));
  EXPECT_EQ(LiteralBytes("s4[3]", "{-8, 7, -1}"), (B{0xf8, 7, 0xff}));
  EXPECT_EQ(LiteralBytes("u4[2]", "{15, 0}"), (B{15, 0}));
  EXPECT_EQ(LiteralBytes("s8[2,2]", "{{1, -2}, {3, -128}}"), (B{1, 0xfe, 3, 0x80}));
  EXPECT_EQ(LiteralBytes("u64[]", "18446744073709551615"), B(8, 0xff));
  EXPECT_EQ(LiteralBytes("bf16[2]", "{1, -2.5}"), (B{0x80, 0x3f, 0x20, 0xc0}));
  EXPECT_EQ(LiteralBytes("f16[3]", "{1, inf, -0}"), (B{0, 0x3c, 0, 0x7c, 0, 0x80}));
  EXPECT_EQ(LiteralBytes("f8e4m3fn[2]", "{1, -0.5}"), (B{0x38, 0xb0}));
  EXPECT_EQ(LiteralBytes("f8e5m2[1]", "{nan(0x1)}"), (B{0x7d}));
  EXPECT_EQ(LiteralBytes("f32[]", "-nan(0x3)"), (B{3, 0, 0x80, 0xff}));
  EXPECT_EQ(LiteralBytes("c64[]", "(1, -1)"), (B{0, 0, 0x80, 0x3f, 0, 0, 0x80, 0xbf}));
  EXPECT_EQ(LiteralBytes("s32[0]", "{}"), B());
  EXPECT_EQ(LiteralBytes("f64[]", "0.1"),
            (B{0x9a, 0x99, 0x99, 0x99, 0x99, 0x99, 0xb9, 0x3f}));
  // Values with many digits and odd bits survive printing and parsing.
  EXPECT_EQ(LiteralBytes("f32[3]", "{0.1, 3.40282347e+38, 1.4e-45}"),
            LiteralBytes("f32[3]", "{0.100000001, 3.4028234663852886e+38, 1.40129846e-45}"));
}

TEST(HloLiterals, ElidedConstantsBecomeElidedValues) {
  Module m;
  ASSERT_EQ(hlx_test::ParseHlo(R"(
ENTRY e {
  w = bf16[4,3]{1,0} constant({...}), metadata={op_name="w"}
  ROOT r = bf16[3,4] transpose(w), dimensions={1,0}
})", &m), "");
  const hlx_attr_t* v = hlx_op_attr(m.get()->funcs[0]->body->blocks[0]->ops[0], "value");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->kind, HLX_ATTR_ELIDED);
  EXPECT_STREQ(v->str, "__elided__");
  EXPECT_EQ(hlx_test::HloRoundTrip(m.get()), "");
  EXPECT_NE(hlx_test::PrintHlo(m.get()).find("constant({...})"), std::string::npos);
}

// bitcast reinterprets the bytes in the layouts' physical order.
TEST(HloBitcast, FollowsLayouts) {
  struct Case {
    const char* hlo;
    const char* stablehlo;
  } cases[] = {
      {R"(ENTRY e {
  x = f32[768] parameter(0)
  ROOT y = f32[1,12,64] bitcast(x)
})",
       R"(func.func public @main(%x: tensor<768xf32>) -> tensor<1x12x64xf32> {
  %y = stablehlo.reshape %x : (tensor<768xf32>) -> tensor<1x12x64xf32>
  func.return %y : tensor<1x12x64xf32>
})"},
      // Column-major [2,3] to row-major [3,2]: the same bytes, a transpose.
      {R"(ENTRY e {
  x = f32[2,3]{0,1} parameter(0)
  ROOT y = f32[3,2]{1,0} bitcast(x)
})",
       R"(func.func public @main(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %y = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return %y : tensor<3x2xf32>
})"},
      // Physical order of x, reshape, back to y's logical order.
      {R"(ENTRY e {
  x = f32[2,3,4]{1,2,0} parameter(0)
  ROOT y = f32[8,3]{0,1} bitcast(x)
})",
       R"(func.func public @main(%x: tensor<2x3x4xf32>) -> tensor<8x3xf32> {
  %t = stablehlo.transpose %x, dims = [0, 2, 1] : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  %r = stablehlo.reshape %t : (tensor<2x4x3xf32>) -> tensor<3x8xf32>
  %y = stablehlo.transpose %r, dims = [1, 0] : (tensor<3x8xf32>) -> tensor<8x3xf32>
  func.return %y : tensor<8x3xf32>
})"},
  };
  for (const Case& c : cases) {
    Module h, s;
    ASSERT_EQ(hlx_test::ParseHlo(c.hlo, &h), "") << c.hlo;
    ASSERT_EQ(hlx_test::ParseStableHlo(c.stablehlo, &s), "");
    h.get()->name = nullptr;
    EXPECT_EQ(hlx_test::Diff(h.get(), s.get()), "") << c.hlo << "\n"
                                                    << hlx_test::PrintStableHlo(h.get());
  }
}

// Malformed text: a status naming file:line:col and the token, no crash.
TEST(HloErrors, NameLineColumnAndToken) {
  struct Case {
    const char* text;
    const char* message;
  } cases[] = {
      {"ENTRY e {\n  x = f32[2] parameter(0)\n  y f32[2] negate(x)\n}",
       "test.hlo:3:5: expected '=' after the instruction name, got 'f32'"},
      {"ENTRY e {\n  ROOT y = f32[2] negate(x)\n}",
       "test.hlo:2:26: use of undefined instruction 'x'"},
      {"ENTRY e {\n  x = f32[2] parameter(0)\n  ROOT y = f32[2] frobnicate(x)\n}",
       "test.hlo:3:19: unsupported: HLO opcode 'frobnicate'"},
      {"ENTRY e {\n  ROOT c = s32[3] constant({1, 2})\n}",
       "test.hlo:2:28: dimension 0 of the literal has 2 elements, the shape says 3"},
      {"ENTRY e {\n  ROOT c = s8[] constant(300)\n}",
       "test.hlo:2:26: 300 is out of range for s8"},
      {"/* never closed\nENTRY e {", "test.hlo:1:1: expected 'HloModule' or a computation, got '/*' (unterminated comment)"},
      {"ENTRY e {\n  x = f32[2] parameter(0)\n  ROOT y = f32[2] reduce(x, x), dimensions={0}, to_apply=nope\n}",
       "test.hlo:3:58: unknown computation 'nope'"},
      {"ENTRY e {\n  x = f32[1,2,2,1] parameter(0)\n  ROOT c = f32[1,1,1,1] convolution(x, x), dim_labels=b01f_01io>b01f\n}",
       "test.hlo:3:"},
      {"ENTRY e {\n  x = f32[2] parameter(0)\n  ROOT y = f32[2] negate(x), shape_index=7\n}",
       "test.hlo:3:30: unsupported: attribute 'shape_index' of negate"},
      {"ENTRY e {\n  x = f32[2] parameter(1)\n  ROOT y = f32[2] negate(x)\n}",
       "test.hlo:2:24: parameter number 1 out of range"},
      {"ENTRY e {\n  x = f32[2]{0,1} parameter(0)\n}",
       "test.hlo:2:13: layout lists 2 dimensions for a rank-1 shape"},
      {"ENTRY e {\n  x = f32[2] parameter(0)\n  ROOT y = f32[2] transpose(x)\n}",
       "test.hlo:3:8: transpose 'y' needs attribute dimensions="},
      {"HloModule m\nENTRY e {\n  ROOT x = f32[2] parameter(0)\n}\nHloModule n\n",
       "test.hlo:5:1: unsupported: a second HloModule"},
      {"ENTRY e {\n  x = f32[2] parameter(0)\n  ROOT y = f32[2] negate(x)\n", "test.hlo:4:1: expected '}' closing the computation, got end of input"},
      {"", "test.hlo:1:1: expected a computation, got end of input"},
      {"ENTRY e {\n  x = f32[4] parameter(0)\n  ROOT t = (f32[2], s32[2]) top-k(x), k=2, largest=false\n}",
       "test.hlo:3:44: unsupported: top-k with largest=false"},
      {"ENTRY e {\n  x = f32[4] parameter(0)\n  ROOT t = f32[4] send(x), channel_id=1\n}",
       "test.hlo:3:19: unsupported: HLO opcode 'send'"},
  };
  for (const Case& c : cases) {
    Module m;
    std::string err = hlx_test::ParseHlo(c.text, &m);
    EXPECT_NE(err.find(c.message), std::string::npos)
        << "input:\n" << c.text << "\nmessage: " << err;
  }
}

}  // namespace
