// The elementwise ops' type rules: one negative test per op for its
// element-type rule ((I1) "operand: tensor of <these> types"), and one per
// numbered shape / type rule (C1..C3) of its Constraints list.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "api/hlx.h"
#include "tests/graph_lowering/rules_harness.h"

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

// The numbered type and shape rules of the elementwise ops, one test per
// (op, rule): "baseline_type(operand) = baseline_type(result)" and its
// variants, broken once by the shape and once by the element type.
struct TypeRule {
  const char* op;
  int arity;
  const char* in;           // operand element type
  const char* out;          // the result element type the op produces
  const char* shape_rule;   // label of the shape rule, e.g. "C1"
  const char* type_rule;    // label of the result-type rule, "" if none
  const char* operand_rule; // binary: label of lhs/rhs type rule, "" if none
};

const TypeRule kTypeRules[] = {
    {"abs", 1, "f32", "f32", "C1", "C2", ""},
    {"cbrt", 1, "f32", "f32", "C1", "C1", ""},
    {"ceil", 1, "f32", "f32", "C1", "C1", ""},
    {"cosine", 1, "f32", "f32", "C1", "C1", ""},
    {"count_leading_zeros", 1, "i32", "i32", "C1", "C1", ""},
    {"exponential", 1, "f32", "f32", "C1", "C1", ""},
    {"exponential_minus_one", 1, "f32", "f32", "C1", "C1", ""},
    {"floor", 1, "f32", "f32", "C1", "C1", ""},
    {"imag", 1, "complex<f32>", "f32", "C1", "C2", ""},
    {"is_finite", 1, "f32", "i1", "C1", "", ""},
    {"log", 1, "f32", "f32", "C1", "C1", ""},
    {"log_plus_one", 1, "f32", "f32", "C1", "C1", ""},
    {"logistic", 1, "f32", "f32", "C1", "C1", ""},
    {"negate", 1, "i32", "i32", "C1", "C1", ""},
    {"not", 1, "i32", "i32", "C1", "C1", ""},
    {"popcnt", 1, "i32", "i32", "C1", "C1", ""},
    {"real", 1, "complex<f32>", "f32", "C1", "C2", ""},
    {"round_nearest_afz", 1, "f32", "f32", "C1", "C1", ""},
    {"round_nearest_even", 1, "f32", "f32", "C1", "C1", ""},
    {"rsqrt", 1, "f32", "f32", "C1", "C1", ""},
    {"sign", 1, "f32", "f32", "C1", "C1", ""},
    {"sine", 1, "f32", "f32", "C1", "C1", ""},
    {"sqrt", 1, "f32", "f32", "C1", "C1", ""},
    {"tan", 1, "f32", "f32", "C1", "C1", ""},
    {"tanh", 1, "f32", "f32", "C1", "C1", ""},
    {"convert", 1, "f32", "i32", "C1", "", ""},
    {"add", 2, "f32", "f32", "C1", "C1", "C1"},
    {"and", 2, "i32", "i32", "C1", "C1", "C1"},
    {"atan2", 2, "f32", "f32", "C1", "C1", "C1"},
    {"complex", 2, "f32", "complex<f32>", "C2", "C3", "C1"},
    {"compare", 2, "f32", "i1", "C2", "", ""},
    {"divide", 2, "f32", "f32", "C1", "C1", "C1"},
    {"maximum", 2, "f32", "f32", "C1", "C1", "C1"},
    {"minimum", 2, "f32", "f32", "C1", "C1", "C1"},
    {"multiply", 2, "f32", "f32", "C1", "C1", "C1"},
    {"or", 2, "i32", "i32", "C1", "C1", "C1"},
    {"power", 2, "f32", "f32", "C1", "C1", "C1"},
    {"remainder", 2, "f32", "f32", "C1", "C1", "C1"},
    {"shift_left", 2, "i32", "i32", "C1", "C1", "C1"},
    {"shift_right_arithmetic", 2, "i32", "i32", "C1", "C1", "C1"},
    {"shift_right_logical", 2, "i32", "i32", "C1", "C1", "C1"},
    {"subtract", 2, "f32", "f32", "C1", "C1", "C1"},
    {"xor", 2, "i32", "i32", "C1", "C1", "C1"},
};

// An element type other than `t` of the same kind of value.
std::string OtherType(const std::string& t) {
  if (t == "f32") return "f64";
  if (t == "i32") return "i64";
  if (t == "i1") return "i8";
  return "complex<f64>";
}

// `op` on tensor<3x`in`> operands (rhs element type `rhs_t`), result
// tensor<`n`x`out`>.
std::string Program(const TypeRule& r, const std::string& rhs_t,
                    const std::string& out, int n) {
  std::string a = std::string("tensor<3x") + r.in + ">";
  std::string b = "tensor<3x" + rhs_t + ">";
  std::string res = "tensor<" + std::to_string(n) + "x" + out + ">";
  std::string attrs =
      std::string(r.op) == "compare"
          ? " {comparison_direction = #stablehlo<comparison_direction LT>}"
          : "";
  if (r.arity == 1)
    return "func.func @main(%a: " + a + ") -> " + res + " {\n  %0 = \"stablehlo." +
           r.op + "\"(%a)" + attrs + " : (" + a + ") -> " + res +
           "\n  return %0 : " + res + "\n}\n";
  return "func.func @main(%a: " + a + ", %b: " + b + ") -> " + res +
         " {\n  %0 = \"stablehlo." + r.op + "\"(%a, %b)" + attrs + " : (" + a +
         ", " + b + ") -> " + res + "\n  return %0 : " + res + "\n}\n";
}

struct RuleCase {
  std::string name, program, op, rule;
};

std::vector<RuleCase> TypeRuleCases() {
  std::vector<RuleCase> v;
  for (const TypeRule& r : kTypeRules) {
    std::string op = std::string("stablehlo.") + r.op;
    std::string base = r.op;
    base[0] = (char)toupper((unsigned char)base[0]);
    v.push_back({base + "_" + r.shape_rule + "_ResultShape",
                 Program(r, r.in, r.out, 4), op,
                 std::string("(") + r.shape_rule + ")"});
    if (*r.type_rule)
      v.push_back({base + "_" + r.type_rule + "_ResultElementType",
                   Program(r, r.in, OtherType(r.out), 3), op,
                   std::string("(") + r.type_rule + ")"});
    if (*r.operand_rule)
      v.push_back({base + "_" + r.operand_rule + "_OperandElementTypes",
                   Program(r, OtherType(r.in), r.out, 3), op,
                   std::string("(") + r.operand_rule + ")"});
  }
  return v;
}

class ElementwiseTypeRules : public ::testing::TestWithParam<RuleCase> {};

TEST_P(ElementwiseTypeRules, BrokenRuleIsANamedError) {
  const RuleCase& c = GetParam();
  std::string msg = hlx_rules::CompileError(c.program.c_str());
  ASSERT_FALSE(msg.empty()) << c.name << " compiled:\n" << c.program;
  EXPECT_NE(msg.find(c.op), std::string::npos) << msg;
  EXPECT_NE(msg.find(c.rule), std::string::npos) << msg;
}

INSTANTIATE_TEST_SUITE_P(Ops, ElementwiseTypeRules,
                         ::testing::ValuesIn(TypeRuleCases()),
                         [](const ::testing::TestParamInfo<RuleCase>& i) {
                           return i.param.name;
                         });

// select, clamp and reduce_precision: one test per numbered rule.
const hlx_rules::Case kSelectClamp[] = {
    {"Select_C1_PredShape",
     R"(func.func @main(%p: tensor<3xi1>, %a: tensor<2xf32>) -> tensor<2xf32> {
       %0 = "stablehlo.select"(%p, %a, %a) : (tensor<3xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
       return %0 : tensor<2xf32> })",
     "stablehlo.select", "(C1) pred must be a scalar or have the operands' shape"},
    {"Select_C2_OnFalseType",
     R"(func.func @main(%p: tensor<i1>, %a: tensor<2xf32>, %b: tensor<2xf64>) -> tensor<2xf32> {
       %0 = "stablehlo.select"(%p, %a, %b) : (tensor<i1>, tensor<2xf32>, tensor<2xf64>) -> tensor<2xf32>
       return %0 : tensor<2xf32> })",
     "stablehlo.select", "(C2) on_true, on_false and the result"},
    {"Select_C2_ResultType",
     R"(func.func @main(%p: tensor<i1>, %a: tensor<2xf32>) -> tensor<3xf32> {
       %0 = "stablehlo.select"(%p, %a, %a) : (tensor<i1>, tensor<2xf32>, tensor<2xf32>) -> tensor<3xf32>
       return %0 : tensor<3xf32> })",
     "stablehlo.select", "(C2) on_true, on_false and the result"},
    {"Clamp_C1_MinShape",
     R"(func.func @main(%lo: tensor<3xf32>, %a: tensor<2xf32>, %hi: tensor<f32>) -> tensor<2xf32> {
       %0 = "stablehlo.clamp"(%lo, %a, %hi) : (tensor<3xf32>, tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
       return %0 : tensor<2xf32> })",
     "stablehlo.clamp", "(C1) min must be a scalar"},
    {"Clamp_C2_MaxShape",
     R"(func.func @main(%lo: tensor<f32>, %a: tensor<2xf32>, %hi: tensor<3xf32>) -> tensor<2xf32> {
       %0 = "stablehlo.clamp"(%lo, %a, %hi) : (tensor<f32>, tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>
       return %0 : tensor<2xf32> })",
     "stablehlo.clamp", "(C2) max must be a scalar"},
    {"Clamp_C3_MinElementType",
     R"(func.func @main(%lo: tensor<f64>, %a: tensor<2xf32>, %hi: tensor<f32>) -> tensor<2xf32> {
       %0 = "stablehlo.clamp"(%lo, %a, %hi) : (tensor<f64>, tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
       return %0 : tensor<2xf32> })",
     "stablehlo.clamp", "(C3) min has element type f64, operand f32"},
    {"Clamp_C3_MaxElementType",
     R"(func.func @main(%lo: tensor<f32>, %a: tensor<2xf32>, %hi: tensor<2xf64>) -> tensor<2xf32> {
       %0 = "stablehlo.clamp"(%lo, %a, %hi) : (tensor<f32>, tensor<2xf32>, tensor<2xf64>) -> tensor<2xf32>
       return %0 : tensor<2xf32> })",
     "stablehlo.clamp", "(C3) max has element type f64, operand f32"},
    {"Clamp_C4_ResultType",
     R"(func.func @main(%lo: tensor<f32>, %a: tensor<2xf32>) -> tensor<2xf64> {
       %0 = "stablehlo.clamp"(%lo, %a, %lo) : (tensor<f32>, tensor<2xf32>, tensor<f32>) -> tensor<2xf64>
       return %0 : tensor<2xf64> })",
     "stablehlo.clamp", "(C4) operand and result must have the same type"},
    {"ReducePrecision_C1_OutputType",
     R"(func.func @main(%a: tensor<2xf32>) -> tensor<2xf64> {
       %0 = "stablehlo.reduce_precision"(%a) {exponent_bits = 5 : i32, mantissa_bits = 2 : i32} : (tensor<2xf32>) -> tensor<2xf64>
       return %0 : tensor<2xf64> })",
     "stablehlo.reduce_precision", "(C1) operand has element type f32, output f64"},
    {"ReducePrecision_C1_OutputShape",
     R"(func.func @main(%a: tensor<2xf32>) -> tensor<3xf32> {
       %0 = "stablehlo.reduce_precision"(%a) {exponent_bits = 5 : i32, mantissa_bits = 2 : i32} : (tensor<2xf32>) -> tensor<3xf32>
       return %0 : tensor<3xf32> })",
     "stablehlo.reduce_precision", "(C1) operand #0's shape differs"},
    {"ReducePrecision_C2_ExponentBits",
     R"(func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
       %0 = "stablehlo.reduce_precision"(%a) {exponent_bits = 0 : i32, mantissa_bits = 2 : i32} : (tensor<2xf32>) -> tensor<2xf32>
       return %0 : tensor<2xf32> })",
     "stablehlo.reduce_precision", "(C2) exponent_bits must be >= 1 (got 0)"},
    {"ReducePrecision_C3_MantissaBits",
     R"(func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
       %0 = "stablehlo.reduce_precision"(%a) {exponent_bits = 5 : i32, mantissa_bits = -1 : i32} : (tensor<2xf32>) -> tensor<2xf32>
       return %0 : tensor<2xf32> })",
     "stablehlo.reduce_precision", "(C3) mantissa_bits must be >= 0 (got -1)"},
};

HLX_RULES_TEST(SelectClampRules, kSelectClamp);

// add on quantized tensor<2x2x...> values: one test per rule (C2)-(C7);
// the baseline-type rule (C1) of quantized unary ops.
#define QADD(l, r, o)                                                         \
  "func.func @main(%a: tensor<2x2x" l ">, %b: tensor<2x2x" r ">) -> "        \
  "tensor<2x2x" o "> {\n  %0 = \"stablehlo.add\"(%a, %b) : (tensor<2x2x" l   \
  ">, tensor<2x2x" r ">) -> tensor<2x2x" o ">\n  return %0 : tensor<2x2x" o \
  "> }"
#define QT "!quant.uniform<i8:f32, 0.5:0>"
#define QAX(d) "!quant.uniform<i8:f32:" d ", {0.5, 0.5}>"

const hlx_rules::Case kQuantizedAdd[] = {
    {"Add_C2_AllQuantized", QADD(QT, "f32", QT), "stablehlo.add",
     "(C2) rhs is not quantized"},
    {"Add_C3_StorageTypes", QADD(QT, "!quant.uniform<i16:f32, 0.5:0>", QT),
     "stablehlo.add", "(C3) storage types i8, i16 and i8 differ"},
    {"Add_C4_ExpressedTypes", QADD(QT, QT, "!quant.uniform<i8:f16, 0.5:0>"),
     "stablehlo.add", "(C4) expressed types f32, f32 and f16 differ"},
    {"Add_C5_PerAxisResult", QADD(QAX("0"), QT, QT), "stablehlo.add",
     "(C5) the result is per-axis quantized iff lhs or rhs is"},
    {"Add_C6_LhsQuantizationDimension", QADD(QAX("0"), QT, QAX("1")),
     "stablehlo.add", "(C6) quantization_dimension(lhs) = 0, result's = 1"},
    {"Add_C7_RhsQuantizationDimension", QADD(QT, QAX("1"), QAX("0")),
     "stablehlo.add", "(C7) quantization_dimension(rhs) = 1, result's = 0"},
    {"Abs_C1_QuantizedShape",
     "func.func @main(%a: tensor<2x" QT ">) -> tensor<3x" QT "> {\n"
     "  %0 = \"stablehlo.abs\"(%a) : (tensor<2x" QT ">) -> tensor<3x" QT ">\n"
     "  return %0 : tensor<3x" QT "> }",
     "stablehlo.abs", "(C1) operand #0's shape differs from the result's"},
    {"Negate_C1_QuantizedExpressedType",
     "func.func @main(%a: tensor<2x" QT ">) -> tensor<2x!quant.uniform<i8:f16, 0.5:0>> {\n"
     "  %0 = \"stablehlo.negate\"(%a) : (tensor<2x" QT ">) -> "
     "tensor<2x!quant.uniform<i8:f16, 0.5:0>>\n"
     "  return %0 : tensor<2x!quant.uniform<i8:f16, 0.5:0>> }",
     "stablehlo.negate", "(C1) result #0 has (expressed) element type f16, expected f32"},
};

HLX_RULES_TEST(QuantizedAddRules, kQuantizedAdd);

}  // namespace
