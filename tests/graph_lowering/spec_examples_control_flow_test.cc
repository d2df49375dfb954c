// Spec examples of case / if / optimization_barrier (the while example's
// expected sum, 10, is off by one in the spec: the loop runs 9 times).
// Each program is the spec's "Example" for the op, transcribed from
// reference/stablehlo_spec.md (inputs as constants, expected values as the
// second half of the results); see spec_example_harness.h.
#include "tests/graph_lowering/spec_example_harness.h"

namespace {

const hlx_spec_examples::Example kExamples[] = {
    {"case_0",
     R"(func.func @main() -> (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) {
  %index = stablehlo.constant dense<-1> : tensor<i32>
  %result_branch0 = stablehlo.constant dense<[0, 0]> : tensor<2xi64>
  %result_branch1 = stablehlo.constant dense<[1, 1]> : tensor<2xi64>
  %result0, %result1 = "stablehlo.case"(%index) ({
    "stablehlo.return"(%result_branch0, %result_branch0) : (tensor<2xi64>, tensor<2xi64>) -> ()
  }, {
    "stablehlo.return"(%result_branch1, %result_branch1) : (tensor<2xi64>, tensor<2xi64>) -> ()
  }) : (tensor<i32>) -> (tensor<2xi64>, tensor<2xi64>)
  %expected0 = stablehlo.constant dense<[1, 1]> : tensor<2xi64>
  %expected1 = stablehlo.constant dense<[1, 1]> : tensor<2xi64>
  return %result0, %result1, %expected0, %expected1 : tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>
})"},
    {"if_0",
     R"(func.func @main() -> (tensor<i32>, tensor<i32>) {
  %result_true_branch = stablehlo.constant dense<10> : tensor<i32>
  %result_false_branch = stablehlo.constant dense<11> : tensor<i32>
  %pred = stablehlo.constant dense<true> : tensor<i1>
  %result = "stablehlo.if"(%pred) ({
    "stablehlo.return"(%result_true_branch) : (tensor<i32>) -> ()
  }, {
    "stablehlo.return"(%result_false_branch) : (tensor<i32>) -> ()
  }) : (tensor<i1>) -> tensor<i32>
  %expected0 = stablehlo.constant dense<10> : tensor<i32>
  return %result, %expected0 : tensor<i32>, tensor<i32>
})"},
    {"optimization_barrier_0",
     R"(func.func @main() -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) {
  %operand0 = stablehlo.constant dense<0.0> : tensor<f32>
  %operand1 = stablehlo.constant dense<1.0> : tensor<f32>
  %result0, %result1 = "stablehlo.optimization_barrier"(%operand0, %operand1) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  %expected0 = stablehlo.constant dense<0.0> : tensor<f32>
  %expected1 = stablehlo.constant dense<1.0> : tensor<f32>
  return %result0, %result1, %expected0, %expected1 : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
})"},
    // The spec prints %init_i: 1 but results (10, 10), which counting from
    // 1 gives (10, 9): start at 0, where the printed results hold.
    {"while_0",
     R"(func.func @main() -> (tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>) {
  %init_i = stablehlo.constant dense<0> : tensor<i64>
  %init_sum = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %ten = stablehlo.constant dense<10> : tensor<i64>
  %results0, %results1 = "stablehlo.while"(%init_i, %init_sum) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %cond = "stablehlo.compare"(%arg0, %ten) {
        comparison_direction = #stablehlo<comparison_direction LT>
      } : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %cond : tensor<i1>
    }, {
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %new_sum = stablehlo.add %arg1, %one : tensor<i64>
      %new_i = stablehlo.add %arg0, %one : tensor<i64>
      stablehlo.return %new_i, %new_sum : tensor<i64>, tensor<i64>
  }) : (tensor<i64>, tensor<i64>) -> (tensor<i64>, tensor<i64>)
  %expected0 = stablehlo.constant dense<10> : tensor<i64>
  %expected1 = stablehlo.constant dense<10> : tensor<i64>
  return %results0, %results1, %expected0, %expected1 : tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>
})"},
    // The spec's operand is the tuple ([1.0, 2.0], (3)).
    {"get_tuple_element_0",
     R"(func.func @main() -> (tensor<2xf64>, tensor<2xf64>) {
  %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf64>
  %b = stablehlo.constant dense<3> : tensor<i64>
  %inner = "stablehlo.tuple"(%b) : (tensor<i64>) -> tuple<tensor<i64>>
  %operand = "stablehlo.tuple"(%a, %inner) : (tensor<2xf64>, tuple<tensor<i64>>) -> tuple<tensor<2xf64>, tuple<tensor<i64>>>
  %result = "stablehlo.get_tuple_element"(%operand) {index = 0 : i32} : (tuple<tensor<2xf64>, tuple<tensor<i64>>>) -> tensor<2xf64>
  %expected0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf64>
  return %result, %expected0 : tensor<2xf64>, tensor<2xf64>
})"},
    // The spec writes memref<2xf32>; tensors are what the op takes here.
    // The tuple is compared leaf by leaf.
    {"tuple_0",
     R"(func.func @main() -> (tensor<2xf32>, tensor<i32>, tensor<2xf32>, tensor<i32>) {
  %val0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %three = stablehlo.constant dense<3> : tensor<i32>
  %val1 = "stablehlo.tuple"(%three) : (tensor<i32>) -> tuple<tensor<i32>>
  %result = "stablehlo.tuple"(%val0, %val1) : (tensor<2xf32>, tuple<tensor<i32>>) -> tuple<tensor<2xf32>, tuple<tensor<i32>>>
  %r0 = "stablehlo.get_tuple_element"(%result) {index = 0 : i32} : (tuple<tensor<2xf32>, tuple<tensor<i32>>>) -> tensor<2xf32>
  %r1t = "stablehlo.get_tuple_element"(%result) {index = 1 : i32} : (tuple<tensor<2xf32>, tuple<tensor<i32>>>) -> tuple<tensor<i32>>
  %r1 = "stablehlo.get_tuple_element"(%r1t) {index = 0 : i32} : (tuple<tensor<i32>>) -> tensor<i32>
  %expected0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %expected1 = stablehlo.constant dense<3> : tensor<i32>
  return %r0, %r1, %expected0, %expected1 : tensor<2xf32>, tensor<i32>, tensor<2xf32>, tensor<i32>
})"},
    // The spec's composite example leaves @my_op and the inputs open: here
    // @my_op adds, and the result is its value.
    {"composite_0",
     R"(func.func @main() -> (tensor<f32>, tensor<f32>) {
  %input0 = stablehlo.constant dense<1.5> : tensor<f32>
  %input1 = stablehlo.constant dense<2.0> : tensor<f32>
  %results = "stablehlo.composite"(%input0, %input1) {
    name = "my_namespace.my_op",
    composite_attributes = {
      my_attribute = "my_value"
    },
    decomposition = @my_op,
    version = 1 : i32
  } : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %expected0 = stablehlo.constant dense<3.5> : tensor<f32>
  return %results, %expected0 : tensor<f32>, tensor<f32>
}
func.func private @my_op(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.add %a, %b : tensor<f32>
  return %0 : tensor<f32>
})"},
};

HLX_SPEC_EXAMPLES_TEST(ControlFlowExamples, kExamples);

}  // namespace
