// graph/ops on its own: the verifier and result-type inference, linked
// with the IR and the StableHLO parser only (no kernels, no libraries:
// ops_links_alone_test checks the binary).
#include <gtest/gtest.h>

#include <cstring>
#include <string>

extern "C" {
#include "graph/ir/ir.h"
#include "graph/ops/ops.h"
#include "graph/ops/verify.h"
#include "graph/stablehlo/parser.h"
}

namespace {

struct Module {
  hlx_module_t* m = nullptr;
  ~Module() { hlx_module_destroy(m); }
};

std::string Verify(const char* text, Module* mod) {
  hlx_status_t s = hlx_parse_module(text, strlen(text), "t", 1, &mod->m);
  if (!s) s = hlx_verify_module(mod->m);
  std::string msg = s ? hlx_status_message(s) : "";
  hlx_status_free(s);
  return msg;
}

const char* kDot = R"(func.func @main(%a: tensor<4x2x3xf32>, %b: tensor<4x3x5xf32>) -> tensor<4x2x5xf32> {
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>} : (tensor<4x2x3xf32>, tensor<4x3x5xf32>) -> tensor<4x2x5xf32>
  return %0 : tensor<4x2x5xf32>
})";

TEST(OpsRules, VerifierNamesTheRuleWithoutLowering) {
  Module ok;
  EXPECT_EQ(Verify(kDot, &ok), "");
  std::string bad = kDot;
  bad.replace(bad.find("-> tensor<4x2x5xf32>\n"), 21, "-> tensor<4x2x6xf32>\n");
  Module m;
  std::string msg = Verify(bad.c_str(), &m);
  EXPECT_NE(msg.find("stablehlo.dot_general at 2:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(C12)"), std::string::npos) << msg;
}

TEST(OpsRules, InfersDotGeneralResultsWithDynamicDims) {
  Module m;
  ASSERT_EQ(Verify(R"(func.func @main(%a: tensor<?x2x3xf32>, %b: tensor<?x3x5xf32>) -> tensor<?x2x5xf32> {
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>} : (tensor<?x2x3xf32>, tensor<?x3x5xf32>) -> tensor<?x2x5xf32>
  return %0 : tensor<?x2x5xf32>
})",
                   &m),
            "");
  const hlx_op_t* dot = hlx_module_entry(m.m)->body->blocks[0]->ops[0];
  hlx_type_t* t = nullptr;
  bool inferred = false;
  hlx_status_t s = hlx_op_infer(dot, &m.m->arena, &t, &inferred);
  ASSERT_EQ(s, nullptr) << hlx_status_message(s);
  ASSERT_TRUE(inferred);
  EXPECT_TRUE(hlx_type_equal(t, dot->results[0]->type));
  EXPECT_EQ(t->dims[0], HLX_DYNAMIC_DIM);
}

TEST(OpsRules, CountsComeFirst) {
  // A generic op with a missing operand: the counts of ops.inc, before any
  // rule reads the operands.
  Module m;
  std::string msg = Verify(R"(func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "stablehlo.add"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
})",
                           &m);
  EXPECT_NE(msg.find("expects 2 operands, has 1"), std::string::npos) << msg;
}

}  // namespace
