// Spec examples of gather, dynamic_gather and scatter.
// Each program is the spec's "Example" for the op, transcribed from
// reference/stablehlo_spec.md (inputs as constants, expected values as the
// second half of the results); see spec_example_harness.h.
#include "tests/graph_lowering/spec_example_harness.h"

namespace {

const hlx_spec_examples::Example kExamples[] = {
    {"gather_0",
     R"(func.func @main() -> (tensor<2x2x3x2x2xi32>, tensor<2x2x3x2x2xi32>) {
  %operand = stablehlo.constant dense<[ [ [[1, 2], [3, 4], [5, 6], [7, 8]], [[9, 10],[11, 12], [13, 14], [15, 16]], [[17, 18], [19, 20], [21, 22], [23, 24]] ], [ [[25, 26], [27, 28], [29, 30], [31, 32]], [[33, 34], [35, 36], [37, 38], [39, 40]], [[41, 42], [43, 44], [45, 46], [47, 48]] ] ]> : tensor<2x3x4x2xi32>
  %start_indices = stablehlo.constant dense<[ [ [[0, 0], [1, 0], [2, 1]], [[0, 1], [1, 1], [0, 9]] ], [ [[0, 0], [2, 1], [2, 2]], [[1, 2], [0, 1], [1, 0]] ] ]> : tensor<2x2x3x2xi64>
  %result = "stablehlo.gather"(%operand, %start_indices) {
    dimension_numbers = #stablehlo.gather<
      offset_dims = [3, 4],
      collapsed_slice_dims = [1],
      operand_batching_dims = [0],
      start_indices_batching_dims = [1],
      start_index_map = [2, 1],
      index_vector_dim = 3>,
    slice_sizes = array<i64: 1, 1, 2, 2>,
    indices_are_sorted = false
  } : (tensor<2x3x4x2xi32>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32>
  %expected0 = stablehlo.constant dense<[ [ [ [[1, 2], [3, 4]], [[3, 4], [5, 6]], [[13, 14], [15, 16]] ], [ [[33, 34], [35, 36]], [[35, 36], [37, 38]], [[41, 42], [43, 44]] ] ], [ [ [[1, 2], [3, 4]], [[13, 14], [15, 16]], [[21, 22], [23, 24]] ], [ [[43, 44], [45, 46]], [[33, 34], [35, 36]], [[27, 28], [29, 30]] ] ] ]> : tensor<2x2x3x2x2xi32>
  return %result, %expected0 : tensor<2x2x3x2x2xi32>, tensor<2x2x3x2x2xi32>
})"},
    {"dynamic_gather_0",
     R"(func.func @main() -> (tensor<2x3x2x2xi64>, tensor<2x3x2x2xi64>) {
  %operand = stablehlo.constant dense<[ [[1, 2], [3, 4], [5, 6], [7, 8]], [[9, 10],[11, 12], [13, 14], [15, 16]], [[17, 18], [19, 20], [21, 22], [23, 24]] ]> : tensor<3x4x2xi64>
  %start_indices = stablehlo.constant dense<[ [[0, 0], [1, 0], [2, 1]], [[0, 1], [1, 1], [0, 2]] ]> : tensor<2x3x2xi64>
  %slize_sizes = stablehlo.constant dense<[1, 2, 2]> : tensor<3xi64>
  %result = "stablehlo.dynamic_gather"(%operand, %start_indices, %slize_sizes) {
    dimension_numbers = #stablehlo.gather<
      offset_dims = [2, 3],
      collapsed_slice_dims = [0],
      start_index_map = [1, 0],
      index_vector_dim = 2>,
    indices_are_sorted = false
  } : (tensor<3x4x2xi64>, tensor<2x3x2xi64>, tensor<3xi64>) -> tensor<2x3x2x2xi64>
  %expected0 = stablehlo.constant dense<[ [ [[1, 2], [3, 4]], [[3, 4], [5, 6]], [[13, 14], [15, 16]] ], [ [[9, 10], [11, 12]], [[11, 12], [13, 14]], [[17, 18], [19, 20]] ] ]> : tensor<2x3x2x2xi64>
  return %result, %expected0 : tensor<2x3x2x2xi64>, tensor<2x3x2x2xi64>
})"},
    {"scatter_0",
     R"(func.func @main() -> (tensor<2x3x4x2xi64>, tensor<2x3x4x2xi64>) {
  %input = stablehlo.constant dense<[ [ [[1, 2], [3, 4], [5, 6], [7, 8]], [[9, 10],[11, 12], [13, 14], [15, 16]], [[17, 18], [19, 20], [21, 22], [23, 24]] ], [ [[25, 26], [27, 28], [29, 30], [31, 32]], [[33, 34], [35, 36], [37, 38], [39, 40]], [[41, 42], [43, 44], [45, 46], [47, 48]] ] ]> : tensor<2x3x4x2xi64>
  %scatter_indices = stablehlo.constant dense<[ [ [[0, 0], [1, 0], [2, 1]], [[0, 1], [1, 1], [0, 9]] ], [ [[0, 0], [2, 1], [2, 2]], [[1, 2], [0, 1], [1, 0]] ] ]> : tensor<2x2x3x2xi64>
  %update = stablehlo.constant dense<[ [ [[[1, 1], [1, 1]], [[1, 1], [1, 1]], [[1, 1], [1, 1]]], [[[1, 1], [1, 1]], [[1, 1], [1, 1]], [[1, 1], [1, 1]]] ], [ [[[1, 1], [1, 1]], [[1, 1], [1, 1]], [[1, 1], [1, 1]]], [[[1, 1], [1, 1]], [[1, 1], [1, 1]], [[1, 1], [1, 1]]] ] ]> : tensor<2x2x3x2x2xi64>
  %result = "stablehlo.scatter"(%input, %scatter_indices, %update) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %0 = "stablehlo.add"(%arg0, %arg1) : (tensor<i64>, tensor<i64>) -> tensor<i64>
      "stablehlo.return"(%0) : (tensor<i64>) -> ()
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<
      update_window_dims = [3, 4],
      inserted_window_dims = [1],
      input_batching_dims = [0],
      scatter_indices_batching_dims = [1],
      scatter_dims_to_operand_dims = [2, 1],
      index_vector_dim = 3>,
    indices_are_sorted = false,
    unique_indices = false
  } : (tensor<2x3x4x2xi64>, tensor<2x2x3x2xi64>, tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64>
  %expected0 = stablehlo.constant dense<[ [ [[3, 4], [6, 7], [6, 7], [7, 8]], [[9, 10],[11, 12], [15, 16], [17, 18]], [[17, 18], [19, 20], [22, 23], [24, 25]] ], [ [[25, 26], [28, 29], [30, 31], [31, 32]], [[35, 36], [38, 39], [38, 39], [39, 40]], [[41, 42], [44, 45], [46, 47], [47, 48]] ] ]> : tensor<2x3x4x2xi64>
  return %result, %expected0 : tensor<2x3x4x2xi64>, tensor<2x3x4x2xi64>
})"},
};

HLX_SPEC_EXAMPLES_TEST(GatherScatterExamples, kExamples);

}  // namespace
