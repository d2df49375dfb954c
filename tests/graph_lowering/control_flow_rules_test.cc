// One negative test per constraint of while / if / case / tuple /
// get_tuple_element that core_rules_test does not already cover: each
// program breaks exactly one rule of the spec's Constraints list.
#include "tests/graph_lowering/rules_harness.h"

namespace {

using hlx_rules::Case;

#define SLICE_ATTRS                                                         \
  "{start_indices = array<i64: 1, 1>, limit_indices = array<i64: 2, 4>, "  \
  "strides = array<i64: 1, 2>}"

// async_start(`args`: `arg_types`) with `body` (the ops and return),
// a future of `fut`, awaited into `res`.
#define ASYNC(body, args, arg_types, fut, res)                               \
  "func.func @main(%x: tensor<2x4xf32>) -> " res " {\n"                      \
  "  %0 = \"stablehlo.async_start\"(" args ") ({\n    " body "\n"            \
  "  }) : (" arg_types ") -> !stablehlo.future<" fut ">\n"                   \
  "  %9 = \"stablehlo.async_done\"(%0) : (!stablehlo.future<" fut ">) -> "   \
  res "\n  return %9 : " res " }"

const Case kCases[] = {
    {"While_C3_ResultTypes",
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
    {"If_C1_BranchArguments",
     R"(func.func @main(%p: tensor<i1>, %a: tensor<f32>) -> tensor<f32> {
       %0 = "stablehlo.if"(%p) ({
         ^bb0(%x: tensor<f32>):
           stablehlo.return %x : tensor<f32>
       }, { stablehlo.return %a : tensor<f32> }) : (tensor<i1>) -> tensor<f32>
       return %0 : tensor<f32> })",
     "stablehlo.if", "(C1) branch 0 takes 1 arguments, must take 0"},
    {"If_C3_ResultTypes",
     R"(func.func @main(%p: tensor<i1>, %b: tensor<i32>) -> tensor<f32> {
       %0 = "stablehlo.if"(%p) ({ stablehlo.return %b : tensor<i32> }, { stablehlo.return %b : tensor<i32> }) : (tensor<i1>) -> tensor<f32>
       return %0 : tensor<f32> })",
     "stablehlo.if", "(C3) branch 0 result #0 has the wrong type"},
    {"Case_C1_NoBranches",
     R"(func.func @main(%i: tensor<i32>) -> () {
       "stablehlo.case"(%i) : (tensor<i32>) -> ()
       return })",
     "stablehlo.case", "expects at least 1 region, has 0"},
    {"Case_C3_BranchOutputsDiffer",
     R"(func.func @main(%i: tensor<i32>, %a: tensor<f32>, %b: tensor<i32>) -> tensor<f32> {
       %0 = "stablehlo.case"(%i) ({ stablehlo.return %a : tensor<f32> }, { stablehlo.return %b : tensor<i32> }) : (tensor<i32>) -> tensor<f32>
       return %0 : tensor<f32> })",
     "stablehlo.case", "(C3) branch 1 result #0 has the wrong type"},
    {"Case_C4_ResultTypes",
     R"(func.func @main(%i: tensor<i32>, %b: tensor<i32>) -> tensor<f32> {
       %0 = "stablehlo.case"(%i) ({ stablehlo.return %b : tensor<i32> }) : (tensor<i32>) -> tensor<f32>
       return %0 : tensor<f32> })",
     "stablehlo.case", "(C4) branch 0 result #0 has the wrong type"},
    {"Case_C4_ResultCount",
     R"(func.func @main(%i: tensor<i32>, %b: tensor<f32>) -> tensor<f32> {
       %0 = "stablehlo.case"(%i) ({ stablehlo.return %b, %b : tensor<f32>, tensor<f32> }) : (tensor<i32>) -> tensor<f32>
       return %0 : tensor<f32> })",
     "stablehlo.case", "(C4) branch 0 returns 2 values, must return 1"},
    {"Tuple_C1_ResultType",
     R"(func.func @main(%a: tensor<f32>) -> tuple<tensor<i32>> {
       %0 = "stablehlo.tuple"(%a) : (tensor<f32>) -> tuple<tensor<i32>>
       return %0 : tuple<tensor<i32>> })",
     "stablehlo.tuple", "(C1) result element #0's type differs"},
    {"GetTupleElement_C2_ResultType",
     R"(func.func @main(%a: tensor<f32>) -> tensor<i32> {
       %t = stablehlo.tuple %a : tuple<tensor<f32>>
       %0 = "stablehlo.get_tuple_element"(%t) {index = 0 : i32} : (tuple<tensor<f32>>) -> tensor<i32>
       return %0 : tensor<i32> })",
     "stablehlo.get_tuple_element", "(C2) result type differs from tuple element #0"},
    {"AsyncStart_C1_SingleOperation",
     ASYNC("%1 = \"stablehlo.slice\"(%x) " SLICE_ATTRS " : (tensor<2x4xf32>) -> tensor<1x2xf32>\n"
           "    %2 = stablehlo.negate %1 : tensor<1x2xf32>\n"
           "    \"stablehlo.return\"(%2) : (tensor<1x2xf32>) -> ()",
           "%x", "tensor<2x4xf32>", "tensor<1x2xf32>", "tensor<1x2xf32>"),
     "stablehlo.async_start", "(C1) body must contain a single operation"},
    {"AsyncStart_C2_CollectiveOrSlice",
     ASYNC("%1 = stablehlo.negate %x : tensor<2x4xf32>\n"
           "    \"stablehlo.return\"(%1) : (tensor<2x4xf32>) -> ()",
           "%x", "tensor<2x4xf32>", "tensor<2x4xf32>", "tensor<2x4xf32>"),
     "stablehlo.async_start", "(C2) the body's op must be a collective or a slice"},
    {"AsyncStart_C3_Arguments",
     ASYNC("%1 = \"stablehlo.slice\"(%x) " SLICE_ATTRS " : (tensor<2x4xf32>) -> tensor<1x2xf32>\n"
           "    \"stablehlo.return\"(%1) : (tensor<1x2xf32>) -> ()",
           "%x, %x", "tensor<2x4xf32>, tensor<2x4xf32>", "tensor<1x2xf32>",
           "tensor<1x2xf32>"),
     "stablehlo.async_start", "(C3) the body's op must take async_start's operands"},
    {"AsyncStart_C4_FutureType",
     ASYNC("%1 = \"stablehlo.slice\"(%x) " SLICE_ATTRS " : (tensor<2x4xf32>) -> tensor<1x2xf32>\n"
           "    \"stablehlo.return\"(%1) : (tensor<1x2xf32>) -> ()",
           "%x", "tensor<2x4xf32>", "tensor<1x2xf64>", "tensor<1x2xf64>"),
     "stablehlo.async_start", "(C4) the future's types differ"},
    {"AsyncDone_C1_ResultType",
     "func.func @main(%x: tensor<2x4xf32>) -> tensor<1x2xf64> {\n"
     "  %0 = \"stablehlo.async_start\"(%x) ({\n"
     "    %1 = \"stablehlo.slice\"(%x) " SLICE_ATTRS " : (tensor<2x4xf32>) -> tensor<1x2xf32>\n"
     "    \"stablehlo.return\"(%1) : (tensor<1x2xf32>) -> ()\n"
     "  }) : (tensor<2x4xf32>) -> !stablehlo.future<tensor<1x2xf32>>\n"
     "  %2 = \"stablehlo.async_done\"(%0) : (!stablehlo.future<tensor<1x2xf32>>) -> tensor<1x2xf64>\n"
     "  return %2 : tensor<1x2xf64> }",
     "stablehlo.async_done", "(C1) result #0's type differs from the future's"},
};

HLX_RULES_TEST(ControlFlow, kCases);

}  // namespace
