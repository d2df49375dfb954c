// Shared by the *_rules_test.cc files: a table of tiny programs that each
// break one spec constraint, and the check that compiling one gives a status
// naming the op and the rule ("(C3)").
#ifndef HLX_TESTS_GRAPH_LOWERING_RULES_HARNESS_H_
#define HLX_TESTS_GRAPH_LOWERING_RULES_HARNESS_H_

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "api/hlx.h"

namespace hlx_rules {

struct Case {
  const char* name;
  const char* program;
  const char* op;    // must appear in the message
  const char* rule;  // must appear in the message, e.g. "(C3) ..."
};

// Parses and compiles `text`; returns the error message ("" when it compiles).
inline std::string CompileError(const char* text) {
  hlx_program_t* p = nullptr;
  hlx_executable_t* e = nullptr;
  hlx_status_t s = hlx_program_parse(text, strlen(text), "t.mlir", 1, &p);
  if (!s) s = hlx_executable_create(p, nullptr, &e);
  std::string msg = s ? hlx_status_get_message(s) : "";
  hlx_status_release(s);
  hlx_executable_destroy(e);
  hlx_program_destroy(p);
  return msg;
}

inline std::string CaseName(const ::testing::TestParamInfo<Case>& i) {
  return i.param.name;
}

// The dynamic_conv twin of a generic-form convolution program over %a, %k
// with one spatial dimension: the padding becomes a tensor<1x2xi64>
// argument %p. dynamic_conv's Constraints are convolution's, number for
// number. "" when the program is not of that form or has a padding
// attribute.
inline std::string AsDynamicConv(const std::string& p) {
  const std::string conv = "\"stablehlo.convolution\"(%a, %k)";
  size_t at = p.find(conv);
  if (at == std::string::npos || p.find("padding =") != std::string::npos)
    return "";
  size_t colon = p.find("} : (", at);
  size_t arrow = colon == std::string::npos ? colon : p.find(") -> ", colon);
  size_t sig = p.find(") -> ");
  if (arrow == std::string::npos || sig > at) return "";
  std::string s = p;
  s.insert(arrow, ", tensor<1x2xi64>");
  s.replace(at, conv.size(), "\"stablehlo.dynamic_conv\"(%a, %k, %p)");
  s.insert(sig, ", %p: tensor<1x2xi64>");
  return s;
}

}  // namespace hlx_rules

// Defines the parameterised test over `cases` (an array of hlx_rules::Case).
#define HLX_RULES_TEST(suite, cases)                                  \
  class suite : public ::testing::TestWithParam<hlx_rules::Case> {};  \
  TEST_P(suite, BrokenRuleIsANamedError) {                            \
    const hlx_rules::Case& c = GetParam();                            \
    std::string msg = hlx_rules::CompileError(c.program);             \
    ASSERT_FALSE(msg.empty()) << c.name << " compiled without error"; \
    EXPECT_NE(msg.find(c.op), std::string::npos) << msg;              \
    EXPECT_NE(msg.find(c.rule), std::string::npos) << msg;            \
  }                                                                   \
  INSTANTIATE_TEST_SUITE_P(Rules, suite,                              \
                           ::testing::ValuesIn(cases), hlx_rules::CaseName)

#endif  // HLX_TESTS_GRAPH_LOWERING_RULES_HARNESS_H_
