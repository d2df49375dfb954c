// Spec examples of the floating-point elementwise ops whose printed results
// are rounded (sine, logistic, ...): the op's example with the spec's inputs,
// compared with the printed values to 1e-5 relative + 1e-6 absolute (the
// spec prints 6-9 digits; values the spec prints as 0.0 are within 1e-7 of
// it). Where the spec's comment names exact values ([0, pi/2, pi, 3pi/2])
// the inputs are those values as f64 (hex), since the printed decimals
// are not them. See spec_example_harness.h.
#include "tests/graph_lowering/spec_example_harness.h"

namespace {

// `op` on one operand of type `t` with `values`, against `expected`.
#define UNARY(op, t, values, expected)                                       \
  "func.func @main() -> (" t ", " t ") {\n"                                  \
  "  %operand = stablehlo.constant dense<" values "> : " t "\n"              \
  "  %result = \"stablehlo." op "\"(%operand) : (" t ") -> " t "\n"          \
  "  %expected = stablehlo.constant dense<" expected "> : " t "\n"           \
  "  return %result, %expected : " t ", " t "\n}"

#define BINARY(op, t, lhs, rhs, expected)                                    \
  "func.func @main() -> (" t ", " t ") {\n"                                  \
  "  %lhs = stablehlo.constant dense<" lhs "> : " t "\n"                     \
  "  %rhs = stablehlo.constant dense<" rhs "> : " t "\n"                     \
  "  %result = \"stablehlo." op "\"(%lhs, %rhs) : (" t ", " t ") -> " t "\n" \
  "  %expected = stablehlo.constant dense<" expected "> : " t "\n"           \
  "  return %result, %expected : " t ", " t "\n}"

// [[0, pi/2], [pi, 3pi/2]] as f64.
#define QUARTER_TURNS_F64 \
  "[[0.0, 0x3FF921FB54442D18], [0x400921FB54442D18, 0x4012D97C7F3321D2]]"

const hlx_spec_examples::Example kExamples[] = {
    {"atan2_0",
     BINARY("atan2", "tensor<3xf64>", "[0.0, 1.0, -1.0]", "[0.0, 0.0, 0.0]",
            "[0.0, 1.57079637, -1.57079637]")},
    {"cosine_0",
     UNARY("cosine", "tensor<2x2xf32>",
           "[[0.0, 1.57079632], [3.14159265, 4.71238898]]",
           "[[1.0, 0.0], [-1.0, 0.0]]")},
    // The spec prints lhs [17.1, ...] but results of 17/3 (5.66666651 is
    // f32(17/3); 17.1/3 = 5.7): run 17.0, the lhs its results are of.
    {"divide_0",
     BINARY("divide", "tensor<4xf32>", "[17.0, -17.0, 17.0, -17.0]",
            "[3.0, 3.0, -3.0, -3.0]",
            "[5.66666651, -5.66666651, -5.66666651, 5.66666651]")},
    {"exponential_minus_one_0",
     UNARY("exponential_minus_one", "tensor<2xf64>", "[0.0, 1.0]",
           "[0.0, 1.71828187]")},
    {"log_plus_one_0",
     UNARY("log_plus_one", "tensor<5xf64>",
           "[0.0, -0.999, 7.0, 6.38905621, 15.0]",
           "[0.0, -6.90776825, 2.07944155, 2.0, 2.77258873]")},
    {"logistic_0",
     UNARY("logistic", "tensor<2x2xf64>", "[[0.0, 1.0], [2.0, 3.0]]",
           "[[0.5, 0.73105858], [0.88079708, 0.95257413]]")},
    // The spec declares f64 but prints f32 results (10000^10 = inf,
    // 0.333333343): run it in f32, where those are the values.
    {"power_0",
     BINARY("power", "tensor<6xf32>", "[-2.0, -0.0, -36.0, 5.0, 3.0, 10000.0]",
            "[2.0, 2.0, 1.1, 2.0, -1.0, 10.0]",
            "[4.0, 0.0, 0x7FC00000, 25.0, 0.333333343, 0x7F800000]")},
    {"rsqrt_0",
     UNARY("rsqrt", "tensor<2x2xf32>", "[[1.0, 4.0], [9.0, 25.0]]",
           "[[1.0, 0.5], [0.33333343, 0.2]]")},
    {"sine_0",
     UNARY("sine", "tensor<2x2xf32>",
           "[[0.0, 1.57079632], [3.14159265, 4.71238898]]",
           "[[0.0, 1.0], [0.0, -1.0]]")},
    {"tan_0",
     UNARY("tan", "tensor<2x2xf64>", QUARTER_TURNS_F64,
           "[[0.0, 1.63312e+16], [0.0, 5.44375e+15]]")},
};

class FloatExamples
    : public ::testing::TestWithParam<hlx_spec_examples::Example> {};

TEST_P(FloatExamples, MatchesTheSpecsPrintedValues) {
  EXPECT_EQ(hlx_spec_examples::RunExampleClose(GetParam().program, 1e-5, 1e-6),
            "")
      << GetParam().program;
}

INSTANTIATE_TEST_SUITE_P(Spec, FloatExamples, ::testing::ValuesIn(kExamples),
                         hlx_spec_examples::ExampleName);

}  // namespace
