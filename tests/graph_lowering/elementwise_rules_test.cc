// One negative test per elementwise op for its element-type rule (the
// spec's (I1)/(C1) "operand: tensor of <these> types"): an element type
// outside the allowed set is an error naming the op and the type.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "api/hlx.h"

namespace {

struct Case {
  const char* op;    // stablehlo op name
  const char* type;  // an element type the spec does not allow
  int arity;         // 1 or 2
};

const Case kCases[] = {
    {"abs", "i1", 1},          {"negate", "i1", 1},
    {"sign", "ui32", 1},       {"sqrt", "i32", 1},
    {"rsqrt", "i32", 1},       {"cbrt", "i32", 1},
    {"exponential", "i32", 1}, {"exponential_minus_one", "i32", 1},
    {"log", "i32", 1},         {"log_plus_one", "i32", 1},
    {"logistic", "i32", 1},    {"sine", "i32", 1},
    {"cosine", "i32", 1},      {"tan", "i32", 1},
    {"tanh", "i32", 1},        {"floor", "i32", 1},
    {"ceil", "i32", 1},        {"round_nearest_afz", "i32", 1},
    {"round_nearest_even", "i32", 1},
    {"not", "f32", 1},         {"popcnt", "f32", 1},
    {"count_leading_zeros", "f32", 1},
    {"subtract", "i1", 2},     {"divide", "i1", 2},
    {"remainder", "complex<f32>", 2},
    {"power", "i1", 2},        {"and", "f32", 2},
    {"or", "f32", 2},          {"xor", "f32", 2},
    {"shift_left", "f32", 2},  {"shift_right_arithmetic", "f32", 2},
    {"shift_right_logical", "f32", 2},
    {"atan2", "i32", 2},
};

class ElementwiseRules : public ::testing::TestWithParam<Case> {};

TEST_P(ElementwiseRules, DisallowedElementTypeIsNamed) {
  const Case& c = GetParam();
  std::string t = std::string("tensor<3x") + c.type + ">";
  std::string text = "func.func @main(%a: " + t + ") -> " + t + " {\n  %0 = \"stablehlo." +
                     c.op + "\"(%a" + (c.arity == 2 ? ", %a" : "") + ") : (" + t +
                     (c.arity == 2 ? ", " + t : "") + ") -> " + t +
                     "\n  return %0 : " + t + "\n}\n";
  hlx_program_t* p = nullptr;
  hlx_executable_t* e = nullptr;
  hlx_status_t s = hlx_program_parse(text.data(), text.size(), "t", 1, &p);
  ASSERT_EQ(s, nullptr) << hlx_status_get_message(s) << "\n" << text;
  s = hlx_executable_create(p, nullptr, &e);
  ASSERT_NE(s, nullptr) << c.op << " on " << c.type << " was accepted";
  std::string msg = hlx_status_get_message(s);
  EXPECT_NE(msg.find(std::string("stablehlo.") + c.op), std::string::npos)
      << msg;
  EXPECT_NE(msg.find(std::string("element type ") + c.type + " is not allowed"),
            std::string::npos)
      << msg;
  hlx_status_release(s);
  hlx_executable_destroy(e);
  hlx_program_destroy(p);
}

INSTANTIATE_TEST_SUITE_P(Ops, ElementwiseRules, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& i) {
                           std::string n = std::string(i.param.op) + "_" +
                                           i.param.type;
                           for (char& ch : n)
                             if (!isalnum((unsigned char)ch)) ch = '_';
                           return n;
                         });

}  // namespace
