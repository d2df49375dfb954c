// The legacy ops einsum, unary_einsum and torch_index_select: results
// checked against values worked out by hand (and, for einsum, against
// dot_general + transpose in the same program), and their errors.
#include "tests/graph_lowering/rules_harness.h"
#include "tests/graph_lowering/spec_example_harness.h"

namespace {

using hlx_rules::Case;
using hlx_spec_examples::Example;

const Example kRuns[] = {
    {"einsum_matmul",
     R"(func.func @main() -> (tensor<2x2xf32>, tensor<2x2xf32>) {
       %a = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
       %b = stablehlo.constant dense<[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]> : tensor<3x2xf32>
       %0 = "stablehlo.einsum"(%a, %b) {einsum_config = "ab,bc->ac"} : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
       %e = stablehlo.constant dense<[[4.0, 5.0], [10.0, 11.0]]> : tensor<2x2xf32>
       return %0, %e : tensor<2x2xf32>, tensor<2x2xf32> })"},
    {"einsum_transposed_output",
     R"(func.func @main() -> (tensor<2x2xf32>, tensor<2x2xf32>) {
       %a = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
       %b = stablehlo.constant dense<[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]> : tensor<3x2xf32>
       %0 = "stablehlo.einsum"(%a, %b) {einsum_config = "ab,bc->ca"} : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
       %e = stablehlo.constant dense<[[4.0, 10.0], [5.0, 11.0]]> : tensor<2x2xf32>
       return %0, %e : tensor<2x2xf32>, tensor<2x2xf32> })"},
    {"einsum_batched_vs_dot_general",
     R"(func.func @main() -> (tensor<3x4x2xi32>, tensor<3x4x2xi32>) {
       %a = stablehlo.iota dim = 2 : tensor<2x3x5xi32>
       %b0 = stablehlo.iota dim = 0 : tensor<5x2x4xi32>
       %b1 = stablehlo.iota dim = 2 : tensor<5x2x4xi32>
       %b = stablehlo.subtract %b0, %b1 : tensor<5x2x4xi32>
       %0 = "stablehlo.einsum"(%a, %b) {einsum_config = "bik,kbj->ijb"} : (tensor<2x3x5xi32>, tensor<5x2x4xi32>) -> tensor<3x4x2xi32>
       %d = stablehlo.dot_general %a, %b, batching_dims = [0] x [1], contracting_dims = [2] x [0] : (tensor<2x3x5xi32>, tensor<5x2x4xi32>) -> tensor<2x3x4xi32>
       %t = stablehlo.transpose %d, dims = [1, 2, 0] : (tensor<2x3x4xi32>) -> tensor<3x4x2xi32>
       return %0, %t : tensor<3x4x2xi32>, tensor<3x4x2xi32> })"},
    {"einsum_outer_product",
     R"(func.func @main() -> (tensor<2x3xi64>, tensor<2x3xi64>) {
       %a = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
       %b = stablehlo.constant dense<[3, 4, 5]> : tensor<3xi64>
       %0 = "stablehlo.einsum"(%a, %b) {einsum_config = "a,b->ab"} : (tensor<2xi64>, tensor<3xi64>) -> tensor<2x3xi64>
       %e = stablehlo.constant dense<[[3, 4, 5], [6, 8, 10]]> : tensor<2x3xi64>
       return %0, %e : tensor<2x3xi64>, tensor<2x3xi64> })"},
    {"unary_einsum_transpose",
     R"(func.func @main() -> (tensor<3x2xf64>, tensor<3x2xf64>) {
       %a = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf64>
       %0 = "stablehlo.unary_einsum"(%a) {einsum_config = "ab->ba"} : (tensor<2x3xf64>) -> tensor<3x2xf64>
       %e = stablehlo.constant dense<[[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]> : tensor<3x2xf64>
       return %0, %e : tensor<3x2xf64>, tensor<3x2xf64> })"},
    {"unary_einsum_sum",
     R"(func.func @main() -> (tensor<3xi32>, tensor<3xi32>) {
       %a = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
       %0 = "stablehlo.unary_einsum"(%a) {einsum_config = "ab->b"} : (tensor<2x3xi32>) -> tensor<3xi32>
       %e = stablehlo.constant dense<[5, 7, 9]> : tensor<3xi32>
       return %0, %e : tensor<3xi32>, tensor<3xi32> })"},
    {"torch_index_select_dim1",
     R"(func.func @main() -> (tensor<3x2x2xi32>, tensor<3x2x2xi32>) {
       %x = stablehlo.constant dense<[[[1, 2], [3, 4]], [[5, 6], [7, 8]], [[9, 10], [11, 12]]]> : tensor<3x2x2xi32>
       %i = stablehlo.constant dense<[1, 0]> : tensor<2xi32>
       %0 = "stablehlo.torch_index_select"(%x, %i) {batch_dims = 0 : i64, dim = 1 : i64} : (tensor<3x2x2xi32>, tensor<2xi32>) -> tensor<3x2x2xi32>
       %e = stablehlo.constant dense<[[[3, 4], [1, 2]], [[7, 8], [5, 6]], [[11, 12], [9, 10]]]> : tensor<3x2x2xi32>
       return %0, %e : tensor<3x2x2xi32>, tensor<3x2x2xi32> })"},
    {"torch_index_select_scalar_index",
     R"(func.func @main() -> (tensor<1x3xf32>, tensor<1x3xf32>) {
       %x = stablehlo.constant dense<[[[1.0, 2.0, 3.0]], [[4.0, 5.0, 6.0]]]> : tensor<2x1x3xf32>
       %i = stablehlo.constant dense<1> : tensor<i64>
       %0 = "stablehlo.torch_index_select"(%x, %i) {batch_dims = 0 : i64, dim = 0 : i64} : (tensor<2x1x3xf32>, tensor<i64>) -> tensor<1x3xf32>
       %e = stablehlo.constant dense<[[4.0, 5.0, 6.0]]> : tensor<1x3xf32>
       return %0, %e : tensor<1x3xf32>, tensor<1x3xf32> })"},
    {"torch_index_select_batched_negative_attrs",
     R"(func.func @main() -> (tensor<2x2x2xi32>, tensor<2x2x2xi32>) {
       %x = stablehlo.constant dense<[[[100, 101], [110, 111]], [[200, 201], [210, 211]]]> : tensor<2x2x2xi32>
       %i = stablehlo.constant dense<[[[0, 1], [1, 0]], [[0, 0], [1, 1]]]> : tensor<2x2x2xi32>
       %0 = "stablehlo.torch_index_select"(%x, %i) {batch_dims = -1 : i64, dim = -1 : i64} : (tensor<2x2x2xi32>, tensor<2x2x2xi32>) -> tensor<2x2x2xi32>
       %e = stablehlo.constant dense<[[[100, 101], [111, 110]], [[200, 200], [211, 211]]]> : tensor<2x2x2xi32>
       return %0, %e : tensor<2x2x2xi32>, tensor<2x2x2xi32> })"},
    {"torch_index_select_batch_one",
     R"(func.func @main() -> (tensor<2x2x2x2xi32>, tensor<2x2x2x2xi32>) {
       %x = stablehlo.constant dense<[[6, 7], [8, 9]]> : tensor<2x2xi32>
       %i = stablehlo.constant dense<[[[[0, 1], [1, 0]], [[0, 0], [1, 1]]], [[[1, 1], [0, 0]], [[0, 1], [1, 0]]]]> : tensor<2x2x2x2xi32>
       %0 = "stablehlo.torch_index_select"(%x, %i) {batch_dims = 1 : i64, dim = 1 : i64} : (tensor<2x2xi32>, tensor<2x2x2x2xi32>) -> tensor<2x2x2x2xi32>
       %e = stablehlo.constant dense<[[[[6, 7], [7, 6]], [[6, 6], [7, 7]]], [[[9, 9], [8, 8]], [[8, 9], [9, 8]]]]> : tensor<2x2x2x2xi32>
       return %0, %e : tensor<2x2x2x2xi32>, tensor<2x2x2x2xi32> })"},
};

HLX_SPEC_EXAMPLES_TEST(LegacyRuns, kRuns);

const Case kErrors[] = {
    {"einsum_size_mismatch",
     R"(func.func @main(%a: tensor<2x3xf32>, %b: tensor<4x2xf32>) -> tensor<2x2xf32> {
       %0 = "stablehlo.einsum"(%a, %b) {einsum_config = "ab,bc->ac"} : (tensor<2x3xf32>, tensor<4x2xf32>) -> tensor<2x2xf32>
       return %0 : tensor<2x2xf32> })",
     "stablehlo.einsum", "label 'b' has size 3 in lhs and 4 in rhs"},
    {"einsum_bad_config",
     R"(func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<2x2xf32> {
       %0 = "stablehlo.einsum"(%a, %b) {einsum_config = "ab->ac"} : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
       return %0 : tensor<2x2xf32> })",
     "stablehlo.einsum", "is not 'lhs,rhs->out'"},
    {"torch_index_select_result_shape",
     R"(func.func @main(%x: tensor<3x2xf32>, %i: tensor<4xi32>) -> tensor<3x2xf32> {
       %0 = "stablehlo.torch_index_select"(%x, %i) {batch_dims = 0 : i64, dim = 0 : i64} : (tensor<3x2xf32>, tensor<4xi32>) -> tensor<3x2xf32>
       return %0 : tensor<3x2xf32> })",
     "stablehlo.torch_index_select", "result shape must be operand[:dim]"},
};

HLX_RULES_TEST(LegacyErrors, kErrors);

}  // namespace
