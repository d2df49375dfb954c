// The one deep copy (graph/ir/copy.h): a copied module equals its source
// and shares nothing with it (the source is freed before the copy is
// printed; run under --config=asan too), a function copied in its own
// module keeps its ids, and a use of a value defined outside the copied
// IR fails unless the caller maps it.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

extern "C" {
#include "graph/ir/copy.h"
#include "graph/ir/ir_equal.h"
#include "graph/stablehlo/parser.h"
#include "graph/stablehlo/printer.h"
}

namespace {

// Regions, tuples, quantized and dynamic types, dense, dict, enum, struct
// and array attributes, function argument/result attributes, calls.
const char* kProgram = R"(module @m attributes {mhlo.num_replicas = 1 : i32} {
  func.func private @sq(%x: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.multiply %x, %x : tensor<2xf32>
    return %0 : tensor<2xf32>
  }
  func.func public @main(%a: tensor<2xf32> {jax.arg_info = "a"}, %q: tensor<4x!quant.uniform<i8:f32, 0.5:-3>>, %d: tensor<?x3xf32>) -> (tensor<f32> {jax.result_info = "r"}, tuple<tensor<2xf32>, tensor<2xi32>>) {
    %c = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %i = stablehlo.constant dense<[3, 4]> : tensor<2xi32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %s = func.call @sq(%a) : (tensor<2xf32>) -> tensor<2xf32>
    %r = stablehlo.reduce(%s init: %z) applies stablehlo.add across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
    %p = stablehlo.compare GT, %s, %c, FLOAT : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
    %t = stablehlo.tuple %s, %i {mhlo.frontend_attributes = {x = "y"}} : tuple<tensor<2xf32>, tensor<2xi32>>
    %w:2 = stablehlo.while(%k = %i, %v = %s) : tensor<2xi32>, tensor<2xf32>
     cond {
      %e = stablehlo.compare LT, %k, %i : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
      %f = stablehlo.constant dense<false> : tensor<i1>
      stablehlo.return %f : tensor<i1>
    } do {
      %n = stablehlo.add %v, %c : tensor<2xf32>
      stablehlo.return %k, %n : tensor<2xi32>, tensor<2xf32>
    }
    return %r, %t : tensor<f32>, tuple<tensor<2xf32>, tensor<2xi32>>
  }
})";

hlx_module_t* Parse(const char* text) {
  hlx_module_t* m = nullptr;
  hlx_status_t s = hlx_parse_module(text, strlen(text), "t", 1, &m);
  EXPECT_EQ(s, nullptr) << (s ? hlx_status_message(s) : "");
  hlx_status_free(s);
  return m;
}

std::string Print(const hlx_module_t* m) {
  char* text = nullptr;
  size_t len = 0;
  hlx_status_t s = hlx_print_module(m, &text, &len);
  EXPECT_EQ(s, nullptr);
  hlx_status_free(s);
  std::string r = text ? std::string(text, len) : "";
  free(text);
  return r;
}

TEST(IrCopy, ModuleCopyEqualsItsSourceAndOutlivesIt) {
  hlx_module_t* m = Parse(kProgram);
  ASSERT_NE(m, nullptr);
  std::string before = Print(m);
  hlx_module_t* copy = nullptr;
  hlx_status_t s = hlx_module_copy(m, &copy);
  ASSERT_EQ(s, nullptr) << hlx_status_message(s);
  char why[256] = "";
  EXPECT_TRUE(hlx_module_equal(m, copy, why, sizeof why)) << why;
  hlx_module_destroy(m);  // the copy shares nothing with it
  EXPECT_EQ(Print(copy), before);
  hlx_module_destroy(copy);
}

TEST(IrCopy, FunctionCopyInItsModuleKeepsIds) {
  hlx_module_t* m = Parse(kProgram);
  ASSERT_NE(m, nullptr);
  const hlx_func_t* f = hlx_module_find_func(m, "main");
  hlx_func_t* g = nullptr;
  hlx_status_t s = hlx_func_copy(m, f, "main_copy", true, &g);
  ASSERT_EQ(s, nullptr) << hlx_status_message(s);
  EXPECT_STREQ(g->name, "main_copy");
  EXPECT_EQ(g->num_values, f->num_values);
  const hlx_block_t* fb = f->body->blocks[0];
  const hlx_block_t* gb = g->body->blocks[0];
  ASSERT_EQ(gb->num_ops, fb->num_ops);
  for (int32_t i = 0; i < fb->num_ops; i++) {
    EXPECT_NE(gb->ops[i], fb->ops[i]);
    for (int32_t r = 0; r < fb->ops[i]->num_results; r++) {
      EXPECT_EQ(gb->ops[i]->results[r]->id, fb->ops[i]->results[r]->id);
      EXPECT_EQ(gb->ops[i]->results[r]->def, gb->ops[i]);
      // Shared types: refinement replaces them, never edits one.
      EXPECT_EQ(gb->ops[i]->results[r]->type, fb->ops[i]->results[r]->type);
    }
    for (int32_t k = 0; k < fb->ops[i]->num_operands; k++)
      EXPECT_NE(gb->ops[i]->operands[k], fb->ops[i]->operands[k]);
  }
  hlx_module_destroy(m);
}

TEST(IrCopy, UsesOfUnmappedOuterValuesFailMappedOnesFollowTheMap) {
  hlx_module_t* m = Parse(kProgram);
  ASSERT_NE(m, nullptr);
  const hlx_func_t* f = hlx_module_find_func(m, "main");
  const hlx_op_t* loop = nullptr;
  for (int32_t i = 0; i < f->body->blocks[0]->num_ops; i++)
    if (f->body->blocks[0]->ops[i]->code == HLX_OP_WHILE)
      loop = f->body->blocks[0]->ops[i];
  ASSERT_NE(loop, nullptr);
  const hlx_region_t* body = loop->regions[1];  // reads %c from outside
  hlx_ir_copier_t c;
  ASSERT_TRUE(hlx_ir_copier_init(&c, &m->arena, nullptr, f->num_values));
  EXPECT_EQ(hlx_ir_copy_region(&c, body, nullptr), nullptr);
  EXPECT_TRUE(c.failed);
  hlx_ir_copier_release(&c);

  ASSERT_TRUE(hlx_ir_copier_init(&c, &m->arena, nullptr, f->num_values));
  const hlx_value_t* outer_c = f->body->blocks[0]->ops[0]->results[0];
  hlx_value_t stand_in = *outer_c;
  hlx_ir_copier_map(&c, outer_c, &stand_in);
  hlx_region_t* r = hlx_ir_copy_region(&c, body, nullptr);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->blocks[0]->ops[0]->operands[1], &stand_in);
  hlx_ir_copier_release(&c);
  hlx_module_destroy(m);
}

}  // namespace
