// One negative test per constraint of while / if / case / tuple /
// get_tuple_element that core_rules_test does not already cover: each
// program breaks exactly one rule of the spec's Constraints list.
#include "tests/graph_lowering/rules_harness.h"

namespace {

using hlx_rules::Case;

const Case kCases[] = {
    {"while_result_types",
     R"(func.func @main(%a: tensor<i32>, %p: tensor<i1>) -> tensor<f32> {
       %0 = "stablehlo.while"(%a) ({
         ^bb0(%x: tensor<i32>):
           stablehlo.return %p : tensor<i1>
       }, {
         ^bb0(%x: tensor<i32>):
           stablehlo.return %x : tensor<i32>
       }) : (tensor<i32>) -> tensor<f32>
       return %0 : tensor<f32> })",
     "stablehlo.while", "(C3) result #0's type differs from operand #0's"},
    {"if_branch_arguments",
     R"(func.func @main(%p: tensor<i1>, %a: tensor<f32>) -> tensor<f32> {
       %0 = "stablehlo.if"(%p) ({
         ^bb0(%x: tensor<f32>):
           stablehlo.return %x : tensor<f32>
       }, { stablehlo.return %a : tensor<f32> }) : (tensor<i1>) -> tensor<f32>
       return %0 : tensor<f32> })",
     "stablehlo.if", "(C1) branch 0 takes 1 arguments, must take 0"},
    {"if_result_types",
     R"(func.func @main(%p: tensor<i1>, %b: tensor<i32>) -> tensor<f32> {
       %0 = "stablehlo.if"(%p) ({ stablehlo.return %b : tensor<i32> }, { stablehlo.return %b : tensor<i32> }) : (tensor<i1>) -> tensor<f32>
       return %0 : tensor<f32> })",
     "stablehlo.if", "(C3) branch 0 result #0 has the wrong type"},
    {"case_no_branches",
     R"(func.func @main(%i: tensor<i32>) -> () {
       "stablehlo.case"(%i) : (tensor<i32>) -> ()
       return })",
     "stablehlo.case", "(C1) needs at least one branch"},
    {"case_branch_outputs_differ",
     R"(func.func @main(%i: tensor<i32>, %a: tensor<f32>, %b: tensor<i32>) -> tensor<f32> {
       %0 = "stablehlo.case"(%i) ({ stablehlo.return %a : tensor<f32> }, { stablehlo.return %b : tensor<i32> }) : (tensor<i32>) -> tensor<f32>
       return %0 : tensor<f32> })",
     "stablehlo.case", "(C3) branch 1 result #0 has the wrong type"},
    {"case_result_types",
     R"(func.func @main(%i: tensor<i32>, %b: tensor<i32>) -> tensor<f32> {
       %0 = "stablehlo.case"(%i) ({ stablehlo.return %b : tensor<i32> }) : (tensor<i32>) -> tensor<f32>
       return %0 : tensor<f32> })",
     "stablehlo.case", "(C4) branch 0 result #0 has the wrong type"},
    {"case_result_count",
     R"(func.func @main(%i: tensor<i32>, %b: tensor<f32>) -> tensor<f32> {
       %0 = "stablehlo.case"(%i) ({ stablehlo.return %b, %b : tensor<f32>, tensor<f32> }) : (tensor<i32>) -> tensor<f32>
       return %0 : tensor<f32> })",
     "stablehlo.case", "(C4) branch 0 returns 2 values, must return 1"},
    {"tuple_result_type",
     R"(func.func @main(%a: tensor<f32>) -> tuple<tensor<i32>> {
       %0 = "stablehlo.tuple"(%a) : (tensor<f32>) -> tuple<tensor<i32>>
       return %0 : tuple<tensor<i32>> })",
     "stablehlo.tuple", "(C1) result element #0's type differs"},
    {"get_tuple_element_result_type",
     R"(func.func @main(%a: tensor<f32>) -> tensor<i32> {
       %t = stablehlo.tuple %a : tuple<tensor<f32>>
       %0 = "stablehlo.get_tuple_element"(%t) {index = 0 : i32} : (tuple<tensor<f32>>) -> tensor<i32>
       return %0 : tensor<i32> })",
     "stablehlo.get_tuple_element", "(C2) result type differs from tuple element #0"},
};

HLX_RULES_TEST(ControlFlow, kCases);

}  // namespace
