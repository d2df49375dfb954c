// One home per rule (graph/ops/): a program that breaks a spec rule gets
// the same message whether it is parsed (hlx_program_parse refuses it, no
// compile needed) or built op by op (the builder latches it). One case per
// rule family; each op family of graph/ops/ adds its own.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "tests/api/builder_testing.h"

namespace {

using hlx_test::Builder;
using hlx_test::Msg;

// The rule's text: from the op name on, without " at L:C" and without the
// parser's "file:line:col: " or "in function @f" annotations.
std::string RuleText(const std::string& m) {
  size_t op = m.find("stablehlo.");
  if (op == std::string::npos) op = m.find("chlo.");
  if (op == std::string::npos) return m;
  std::string s = m.substr(op);
  size_t at = s.find(" at ");
  size_t colon = s.find(": ");
  if (at != std::string::npos && colon != std::string::npos && at < colon)
    s.erase(at, colon - at);
  size_t in = s.find("\nin function");
  if (in == std::string::npos) in = s.find(": in function");
  if (in != std::string::npos) s.erase(in);
  return s;
}

struct Case {
  const char* name;
  const char* rule;     // the "(Cn)" label the message must carry
  const char* program;  // the violation, parsed
  // The same violation, built: params from the program's signature.
  std::function<hlx_status_t(hlx_builder_t*, const std::vector<uint32_t>&,
                             uint32_t*)>
      build;
  std::vector<std::vector<int64_t>> params;  // f32 parameters
};

const int64_t k0[] = {0}, k1[] = {1};

const Case kCases[] = {
    {"DotGeneralBatchingSizes", "(C9)",
     R"(func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) -> tensor<2xf32> {
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
})",
     [](hlx_builder_t* b, const std::vector<uint32_t>& p, uint32_t* o) {
       return hlx_builder_dot_general(b, p[0], p[1], k0, k0, 1, k1, k1, 1, o);
     },
     {{2, 3}, {3, 3}}},
};

class RulesParity : public ::testing::TestWithParam<Case> {};

TEST_P(RulesParity, ParsedAndBuiltProgramsGiveTheSameMessage) {
  const Case& c = GetParam();
  hlx_program_t* p = nullptr;
  std::string parsed =
      Msg(hlx_program_parse(c.program, strlen(c.program), "t.mlir", 1, &p));
  hlx_program_destroy(p);
  ASSERT_NE(parsed, "") << "hlx_program_parse accepted the violation";
  EXPECT_NE(parsed.find(c.rule), std::string::npos) << parsed;

  Builder bl;
  std::vector<uint32_t> params;
  for (size_t i = 0; i < c.params.size(); i++)
    params.push_back(bl.Param((int32_t)i, hlx_test::F32(), c.params[i]));
  uint32_t out = HLX_BUILDER_NO_VALUE;
  std::string built = Msg(c.build(bl.b, params, &out));
  EXPECT_EQ(out, HLX_BUILDER_NO_VALUE);
  EXPECT_EQ(RuleText(built), RuleText(parsed))
      << "built: " << built << "\nparsed: " << parsed;
}

INSTANTIATE_TEST_SUITE_P(Rules, RulesParity, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& i) {
                           return std::string(i.param.name);
                         });

}  // namespace
