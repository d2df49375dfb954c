// gather, dynamic_gather and scatter through the public API: one error per
// spec constraint (the message names the op and the rule) and runs of the
// kernel and region paths (custom regions in row-major update order,
// variadic scatter, promoted region types, run-time slice sizes).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "api/hlx.h"

namespace {

struct Case {
  const char* name;
  std::string program;
  const char* op;
  const char* rule;
};

std::string CompileError(const std::string& text) {
  hlx_program_t* p = nullptr;
  hlx_executable_t* e = nullptr;
  hlx_status_t s = hlx_program_parse(text.c_str(), text.size(), "t.mlir", 1, &p);
  if (!s) s = hlx_executable_create(p, nullptr, &e);
  std::string msg = s ? hlx_status_get_message(s) : "";
  hlx_status_release(s);
  hlx_executable_destroy(e);
  hlx_program_destroy(p);
  return msg;
}

// gather of interpret/gather.mlir's first program with parts replaced.
std::string Gather(const std::string& dn, const std::string& sizes,
                   const std::string& operand = "tensor<3x4x2xi32>",
                   const std::string& indices = "tensor<2x3x2xi32>",
                   const std::string& result = "tensor<2x3x2x2xi32>") {
  return "func.func @main(%a: " + operand + ", %i: " + indices + ") -> " +
         result + " {\n  %0 = \"stablehlo.gather\"(%a, %i) {\n" +
         "    dimension_numbers = #stablehlo.gather<" + dn + ">,\n" +
         "    slice_sizes = array<i64: " + sizes + ">,\n" +
         "    indices_are_sorted = false\n  } : (" + operand + ", " + indices +
         ") -> " + result + "\n  return %0 : " + result + " }";
}

const char* kDn =
    "offset_dims = [2, 3], collapsed_slice_dims = [0], start_index_map = [1, "
    "0], index_vector_dim = 2";

// The spec's batching example.
std::string BatchGather(const std::string& dn,
                        const std::string& sizes = "1, 1, 2, 2",
                        const std::string& indices = "tensor<2x2x3x2xi32>") {
  return Gather(dn, sizes, "tensor<2x3x4x2xi32>", indices,
                "tensor<2x2x3x2x2xi32>");
}

std::string BDn(const std::string& obd, const std::string& sibd,
                const std::string& sim = "[2, 1]",
                const std::string& collapsed = "[1]") {
  return "offset_dims = [3, 4], collapsed_slice_dims = " + collapsed +
         ", operand_batching_dims = " + obd +
         ", start_indices_batching_dims = " + sibd +
         ", start_index_map = " + sim + ", index_vector_dim = 3";
}

// scatter of interpret/scatter.mlir's first program with parts replaced.
std::string Scatter(const std::string& dn,
                    const std::string& input = "tensor<3x4x2xi32>",
                    const std::string& indices = "tensor<2x3x2xi32>",
                    const std::string& updates = "tensor<2x3x2x2xi32>",
                    const std::string& result = "tensor<3x4x2xi32>",
                    const std::string& elem = "i32") {
  return "func.func @main(%a: " + input + ", %i: " + indices + ", %u: " +
         updates + ") -> " + result +
         " {\n  %0 = \"stablehlo.scatter\"(%a, %i, %u) ({\n" +
         "  ^bb0(%x: tensor<" + elem + ">, %y: tensor<" + elem + ">):\n" +
         "    %s = stablehlo.add %x, %y : tensor<" + elem + ">\n" +
         "    stablehlo.return %s : tensor<" + elem + ">\n  }) {\n" +
         "    scatter_dimension_numbers = #stablehlo.scatter<" + dn + ">,\n" +
         "    indices_are_sorted = false, unique_indices = false\n  } : (" +
         input + ", " + indices + ", " + updates + ") -> " + result +
         "\n  return %0 : " + result + " }";
}

// A scatter of two tensor<3xi32> inputs with the given updates (%u:
// tensor<1xi32>, %v: tensor<2xi32>).
std::string TwoInputScatter(const std::string& updates,
                            const std::string& update_types) {
  return "func.func @main(%a: tensor<3xi32>, %i: tensor<1x1xi32>, %u: "
         "tensor<1xi32>, %v: tensor<2xi32>) -> tensor<3xi32> {\n"
         "  %0:2 = \"stablehlo.scatter\"(%a, %a, %i, " + updates + ") ({\n"
         "  ^bb0(%x: tensor<i32>, %y: tensor<i32>, %z: tensor<i32>, %w: "
         "tensor<i32>):\n"
         "    stablehlo.return %z, %w : tensor<i32>, tensor<i32>\n  }) {\n"
         "    scatter_dimension_numbers = #stablehlo.scatter<"
         "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], "
         "index_vector_dim = 1>\n  } : (tensor<3xi32>, tensor<3xi32>, "
         "tensor<1x1xi32>, " + update_types + ") -> (tensor<3xi32>, "
         "tensor<3xi32>)\n  return %0#0 : tensor<3xi32> }";
}

const char* kSDn =
    "update_window_dims = [2, 3], inserted_window_dims = [0], "
    "scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2";

std::string BatchScatter(const std::string& ibd, const std::string& sibd,
                         const std::string& sdod = "[2, 1]") {
  return Scatter("update_window_dims = [3, 4], inserted_window_dims = [1], "
                 "input_batching_dims = " + ibd +
                     ", scatter_indices_batching_dims = " + sibd +
                     ", scatter_dims_to_operand_dims = " + sdod +
                     ", index_vector_dim = 3",
                 "tensor<2x3x4x2xi32>", "tensor<2x2x3x2xi32>",
                 "tensor<2x2x3x2x2xi32>", "tensor<2x3x4x2xi32>");
}

std::string DynGather(const std::string& sizes_decl, const std::string& sizes_type,
                      const std::string& result = "tensor<2x3x2x2xi32>") {
  return "func.func @main(%a: tensor<3x4x2xi32>, %i: tensor<2x3x2xi32>) -> " +
         result + " {\n  " + sizes_decl +
         "\n  %0 = \"stablehlo.dynamic_gather\"(%a, %i, %s) {\n" +
         "    dimension_numbers = #stablehlo.gather<" + kDn + ">,\n" +
         "    indices_are_sorted = false\n  } : (tensor<3x4x2xi32>, "
         "tensor<2x3x2xi32>, " + sizes_type + ") -> " + result +
         "\n  return %0 : " + result + " }";
}

// dynamic_gather of tensor<3x4x2xi32> by tensor<2x3x2xi32> with dimension
// numbers `dn` and constant slice sizes `sizes` (3 entries).
std::string DynGatherDn(const std::string& dn, const std::string& sizes,
                        const std::string& result = "tensor<2x3x2x2xi32>") {
  return "func.func @main(%a: tensor<3x4x2xi32>, %i: tensor<2x3x2xi32>) -> " +
         result + " {\n  %s = stablehlo.constant dense<[" + sizes +
         "]> : tensor<3xi64>\n  %0 = \"stablehlo.dynamic_gather\"(%a, %i, %s) "
         "{\n    dimension_numbers = #stablehlo.gather<" + dn +
         ">,\n    indices_are_sorted = false\n  } : (tensor<3x4x2xi32>, "
         "tensor<2x3x2xi32>, tensor<3xi64>) -> " + result +
         "\n  return %0 : " + result + " }";
}

const char* G = "stablehlo.gather";
const char* S = "stablehlo.scatter";
const char* DG = "stablehlo.dynamic_gather";

std::vector<Case> Cases() {
  return {
      {"Gather_C1_Rule", Gather("offset_dims = [2, 3], start_index_map = [1, 0], "
                           "index_vector_dim = 2",
                           "1, 2, 2"),
       G, "(C1) operand rank 3"},
      {"Gather_C2_Rule", Gather("offset_dims = [2, 3], collapsed_slice_dims = [0], "
                           "start_index_map = [1, 0], index_vector_dim = 4",
                           "1, 2, 2"),
       G, "(C2) index_vector_dim 4"},
      {"Gather_C3_Rule", Gather("offset_dims = [2, 3], collapsed_slice_dims = [0], "
                           "start_index_map = [1], index_vector_dim = 2",
                           "1, 2, 2"),
       G, "(C3) size(start_index_map) 1"},
      {"Gather_C4_Rule", Gather("offset_dims = [3, 2], collapsed_slice_dims = [0], "
                           "start_index_map = [1, 0], index_vector_dim = 2",
                           "1, 2, 2"),
       G, "(C4) offset_dims is not sorted"},
      {"Gather_C5_Rule", Gather("offset_dims = [2, 4], collapsed_slice_dims = [0], "
                           "start_index_map = [1, 0], index_vector_dim = 2",
                           "1, 2, 2"),
       G, "(C5) offset_dims[1] = 4"},
      {"Gather_C6_Rule", BatchGather(BDn("[0]", "[0]", "[2, 1]", "[0]")), G,
       "(C6) dim 0 is in both collapsed_slice_dims and operand_batching_dims"},
      {"Gather_C8_Rule",
       Gather("offset_dims = [2, 3], collapsed_slice_dims = [3], "
              "start_index_map = [1, 0], index_vector_dim = 2",
              "1, 2, 2"),
       G, "(C8) collapsed_slice_dims[0] = 3"},
      {"Gather_C9_Rule", Gather(kDn, "2, 2, 2", "tensor<3x4x2xi32>",
                           "tensor<2x3x2xi32>", "tensor<2x3x2x2xi32>"),
       G, "(C9) slice_sizes[0] = 2 of a collapsed dim"},
      {"Gather_C11_Rule", BatchGather(BDn("[4]", "[1]", "[2, 1]", "[1]")), G,
       "(C11) operand_batching_dims[0] = 4"},
      {"Gather_C12_Rule", BatchGather(BDn("[0]", "[1]"), "2, 1, 2, 2"), G,
       "(C12) slice_sizes[0] = 2 of an operand batching dim"},
      {"Gather_C14_Rule", BatchGather(BDn("[0]", "[5]")), G,
       "(C14) start_indices_batching_dims[0] = 5"},
      {"Gather_C15_Rule", BatchGather(BDn("[0]", "[3]")), G,
       "(C15) index_vector_dim 3 is in start_indices_batching_dims"},
      {"Gather_C17_Rule", BatchGather(BDn("[0]", "[2]")), G,
       "(C17) operand batching dim 0 has size 2, start_indices batching dim "
       "2 has 3"},
      {"Gather_C18_Rule", BatchGather(BDn("[0]", "[1]", "[2, 0]")), G,
       "(C18) dim 0 is in both start_index_map and operand_batching_dims"},
      {"Gather_C19_Rule", Gather("offset_dims = [2, 3], collapsed_slice_dims = [0], "
                            "start_index_map = [1, 3], index_vector_dim = 2",
                            "1, 2, 2"),
       G, "(C19) start_index_map[1] = 3"},
      {"Gather_C20_Rule", Gather(kDn, "1, 2"), G, "(C20) size(slice_sizes) 2"},
      {"Gather_C21_Rule", Gather(kDn, "1, 5, 2"), G, "(C21) slice_sizes[1] = 5"},
      {"Gather_C22_Rule", Gather(kDn, "1, 3, 2"), G,
       "(C22) result shape 2x3x2x2, expected 2x3x3x2"},
      {"Gather_C23_Rule", Gather(kDn, "1, 2, 2", "tensor<3x4x2xi32>",
                            "tensor<2x3x2xi32>", "tensor<2x3x2x2xi64>"),
       G, "(C23) result element type"},
      {"gather_index_type", Gather(kDn, "1, 2, 2", "tensor<3x4x2xi32>",
                                   "tensor<2x3x2xf32>"),
       G, "start_indices must be a tensor of integer type"},
      {"DynamicGather_C8_Rule",
       DynGather("%s = stablehlo.constant dense<[2, 2, 2]> : tensor<3xi64>",
                 "tensor<3xi64>"),
       DG, "(C8) slice_sizes[0] = 2 of a collapsed dim"},
      {"DynamicGather_C11_Rule",
       DynGather("%s = stablehlo.constant dense<[1, 2]> : tensor<2xi64>",
                 "tensor<2xi64>"),
       DG, "(C11) size(slice_sizes) 2"},
      {"DynamicGather_C13_Rule",
       DynGather("%s = stablehlo.constant dense<[1, 1, 2]> : tensor<3xi64>",
                 "tensor<3xi64>"),
       DG, "(C13) result shape 2x3x2x2, expected 2x3x1x2"},
      {"Scatter_C1_Rule",
       "func.func @main(%a: tensor<3xi32>, %b: tensor<4xi32>, %i: "
       "tensor<1x1xi32>, %u: tensor<1xi32>) -> tensor<3xi32> {\n"
       "  %0:2 = \"stablehlo.scatter\"(%a, %b, %i, %u, %u) ({\n"
       "  ^bb0(%x: tensor<i32>, %y: tensor<i32>, %z: tensor<i32>, %w: "
       "tensor<i32>):\n"
       "    stablehlo.return %z, %w : tensor<i32>, tensor<i32>\n  }) {\n"
       "    scatter_dimension_numbers = #stablehlo.scatter<"
       "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], "
       "index_vector_dim = 1>\n  } : (tensor<3xi32>, tensor<4xi32>, "
       "tensor<1x1xi32>, tensor<1xi32>, tensor<1xi32>) -> (tensor<3xi32>, "
       "tensor<4xi32>)\n  return %0#0 : tensor<3xi32> }",
       S, "(C1) inputs #0 and #1 have different shapes"},
      {"Scatter_C2_Rule", Scatter("update_window_dims = [2, 3], "
                             "scatter_dims_to_operand_dims = [1, 0], "
                             "index_vector_dim = 2"),
       S, "(C2) input rank 3"},
      {"Scatter_C4_Window", Scatter(kSDn, "tensor<3x4x2xi32>",
                                    "tensor<2x3x2xi32>",
                                    "tensor<2x3x2x5xi32>"),
       S, "(C4) updates window dim 3 has size 5, more than input dim 2's 2"},
      {"Scatter_C4_ScatterDim", Scatter(kSDn, "tensor<3x4x2xi32>",
                                     "tensor<2x3x2xi32>",
                                     "tensor<2x4x2x2xi32>"),
       S, "(C4) updates scatter dim 1 has size 4, scatter_indices dim 1 has 3"},
      {"Scatter_C6_Rule", Scatter(kSDn, "tensor<3x4x2xi32>", "tensor<2x3x2xi32>",
                             "tensor<2x3x2x2xi16>"),
       S, "(C6) updates #0 has element type i16"},
      {"Scatter_C7_Rule", Scatter("update_window_dims = [3, 2], "
                             "inserted_window_dims = [0], "
                             "scatter_dims_to_operand_dims = [1, 0], "
                             "index_vector_dim = 2"),
       S, "(C7) update_window_dims is not sorted"},
      {"Scatter_C9_Rule", BatchScatter("[1]", "[1]", "[2, 0]"), S,
       "(C9) dim 1 is in both inserted_window_dims and input_batching_dims"},
      {"Scatter_C10_Rule",
       Scatter("update_window_dims = [1], inserted_window_dims = [1, 0], "
               "scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 1",
               "tensor<3x4x2xi32>", "tensor<5x2xi32>", "tensor<5x2xi32>"),
       S, "(C10) inserted_window_dims is not sorted"},
      {"Scatter_C16_Rule", BatchScatter("[0]", "[3]"), S,
       "(C16) index_vector_dim 3 is in scatter_indices_batching_dims"},
      {"Scatter_C17_Rule", BatchScatter("[0]", "[1, 2]"), S,
       "(C17) size(input_batching_dims) 1 != "
       "size(scatter_indices_batching_dims) 2"},
      {"Scatter_C18_Rule", BatchScatter("[0]", "[2]"), S,
       "(C18) input batching dim 0 has size 2, scatter_indices batching dim "
       "2 has 3"},
      {"Scatter_C19_Rule", Scatter("update_window_dims = [2, 3], "
                              "inserted_window_dims = [0], "
                              "scatter_dims_to_operand_dims = [1], "
                              "index_vector_dim = 2"),
       S, "(C19) size(scatter_dims_to_operand_dims) 1 != 2"},
      {"Scatter_C20_Rule", Scatter("update_window_dims = [2, 3], "
                              "inserted_window_dims = [0], "
                              "scatter_dims_to_operand_dims = [1, 1], "
                              "index_vector_dim = 2"),
       S, "(C20) scatter_dims_to_operand_dims has repeated entry 1"},
      {"Scatter_C21_Rule", Scatter("update_window_dims = [2, 3], "
                              "inserted_window_dims = [0], "
                              "scatter_dims_to_operand_dims = [1, 3], "
                              "index_vector_dim = 2"),
       S, "(C21) scatter_dims_to_operand_dims[1] = 3"},
      {"Scatter_C22_Rule", Scatter("update_window_dims = [2, 3], "
                              "inserted_window_dims = [0], "
                              "scatter_dims_to_operand_dims = [1, 0], "
                              "index_vector_dim = 4"),
       S, "(C22) index_vector_dim 4"},
      {"Scatter_C23_Rule", Scatter(kSDn, "tensor<3x4x2xi32>", "tensor<2x3x2xi32>",
                              "tensor<2x3x2x2xi32>", "tensor<3x4x2xf32>",
                              "f32"),
       S, "(C23) input #0's element type i32 is not promotable"},
      {"Scatter_C24_Rule", Scatter(kSDn, "tensor<3x4x2xi32>", "tensor<2x3x2xi32>",
                              "tensor<2x3x2x2xi32>", "tensor<3x4x3xi32>"),
       S, "(C24) result #0's shape"},
      {"Scatter_C25_Rule", Scatter(kSDn, "tensor<3x4x2xi32>", "tensor<2x3x2xi32>",
                              "tensor<2x3x2x2xi32>", "tensor<3x4x2xi64>"),
       S, "(C25) result #0 has element type i64"},
      {"scatter_index_type", Scatter(kSDn, "tensor<3x4x2xi32>",
                                     "tensor<2x3x2xf32>"),
       S, "scatter_indices must be a tensor of integer type"},
      {"Gather_C7_CollapsedSorted",
       Gather("offset_dims = [2], collapsed_slice_dims = [1, 0], "
              "start_index_map = [1, 0], index_vector_dim = 2",
              "1, 1, 2", "tensor<3x4x2xi32>", "tensor<2x3x2xi32>",
              "tensor<2x3x2xi32>"),
       G, "(C7) collapsed_slice_dims is not sorted"},
      {"Gather_C10_OperandBatchingSorted",
       BatchGather("offset_dims = [3, 4], collapsed_slice_dims = [], "
                   "operand_batching_dims = [1, 0], "
                   "start_indices_batching_dims = [0, 1], start_index_map = "
                   "[2, 1], index_vector_dim = 3"),
       G, "(C10) operand_batching_dims is not sorted"},
      {"Gather_C13_StartIndicesBatchingUnique",
       BatchGather(BDn("[0]", "[1, 1]")), G,
       "(C13) start_indices_batching_dims has repeated entry 1"},
      {"Gather_C16_BatchingSizes", BatchGather(BDn("[0]", "[]")), G,
       "(C16) size(operand_batching_dims) 1 != "
       "size(start_indices_batching_dims) 0"},
      {"DynamicGather_C1_OperandRank",
       DynGatherDn("offset_dims = [2, 3], start_index_map = [1, 0], "
                   "index_vector_dim = 2",
                   "1, 2, 2"),
       DG, "(C1) operand rank 3"},
      {"DynamicGather_C2_IndexVectorDim",
       DynGatherDn("offset_dims = [2, 3], collapsed_slice_dims = [0], "
                   "start_index_map = [1, 0], index_vector_dim = 4",
                   "1, 2, 2"),
       DG, "(C2) index_vector_dim 4"},
      {"DynamicGather_C3_StartIndexMapSize",
       DynGatherDn("offset_dims = [2, 3], collapsed_slice_dims = [0], "
                   "start_index_map = [1], index_vector_dim = 2",
                   "1, 2, 2"),
       DG, "(C3) size(start_index_map) 1"},
      {"DynamicGather_C4_OffsetDimsSorted",
       DynGatherDn("offset_dims = [3, 2], collapsed_slice_dims = [0], "
                   "start_index_map = [1, 0], index_vector_dim = 2",
                   "1, 2, 2"),
       DG, "(C4) offset_dims is not sorted"},
      {"DynamicGather_C5_OffsetDimsRange",
       DynGatherDn("offset_dims = [2, 4], collapsed_slice_dims = [0], "
                   "start_index_map = [1, 0], index_vector_dim = 2",
                   "1, 2, 2"),
       DG, "(C5) offset_dims[1] = 4"},
      {"DynamicGather_C6_CollapsedSorted",
       DynGatherDn("offset_dims = [2], collapsed_slice_dims = [1, 0], "
                   "start_index_map = [1, 0], index_vector_dim = 2",
                   "1, 1, 2", "tensor<2x3x2xi32>"),
       DG, "(C6) collapsed_slice_dims is not sorted"},
      {"DynamicGather_C7_CollapsedRange",
       DynGatherDn("offset_dims = [2, 3], collapsed_slice_dims = [3], "
                   "start_index_map = [1, 0], index_vector_dim = 2",
                   "1, 2, 2"),
       DG, "(C7) collapsed_slice_dims[0] = 3"},
      {"DynamicGather_C9_StartIndexMapUnique",
       DynGatherDn("offset_dims = [2, 3], collapsed_slice_dims = [0], "
                   "start_index_map = [1, 1], index_vector_dim = 2",
                   "1, 2, 2"),
       DG, "(C9) start_index_map has repeated entry 1"},
      {"DynamicGather_C10_StartIndexMapRange",
       DynGatherDn("offset_dims = [2, 3], collapsed_slice_dims = [0], "
                   "start_index_map = [1, 3], index_vector_dim = 2",
                   "1, 2, 2"),
       DG, "(C10) start_index_map[1] = 3"},
      {"DynamicGather_C12_SliceSizesRange", DynGatherDn(kDn, "1, 5, 2"), DG,
       "(C12) slice_sizes[1] = 5"},
      {"DynamicGather_C14_ResultElementType",
       DynGatherDn(kDn, "1, 2, 2", "tensor<2x3x2x2xi64>"), DG,
       "(C14) result element type"},
      {"Scatter_C3_UpdatesShapes",
       TwoInputScatter("%u, %v", "tensor<1xi32>, tensor<2xi32>"), S,
       "(C3) updates #0 and #1 have different shapes"},
      {"Scatter_C5_InputUpdateCounts", TwoInputScatter("%u", "tensor<1xi32>"),
       S, "(C5) needs N inputs"},
      {"Scatter_C11_InsertedWindowDimsRange",
       Scatter("update_window_dims = [2, 3], inserted_window_dims = [3], "
               "scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2"),
       S, "(C11) inserted_window_dims[0] = 3"},
      {"Scatter_C12_InputBatchingSorted",
       Scatter("update_window_dims = [3, 4], inserted_window_dims = [], "
               "input_batching_dims = [2, 0], scatter_indices_batching_dims "
               "= [0, 1], scatter_dims_to_operand_dims = [3, 1], "
               "index_vector_dim = 3",
               "tensor<2x3x4x2xi32>", "tensor<2x2x3x2xi32>",
               "tensor<2x2x3x2x2xi32>", "tensor<2x3x4x2xi32>"),
       S, "(C12) input_batching_dims is not sorted"},
      {"Scatter_C14_ScatterIndicesBatchingUnique",
       BatchScatter("[0]", "[1, 1]"), S,
       "(C14) scatter_indices_batching_dims has repeated entry 1"},
      {"Scatter_C15_ScatterIndicesBatchingRange", BatchScatter("[0]", "[7]"),
       S, "(C15) scatter_indices_batching_dims[0] = 7"},
  };
}

class Rules : public ::testing::TestWithParam<Case> {};

TEST_P(Rules, ErrorNamesOpAndRule) {
  const Case& c = GetParam();
  std::string msg = CompileError(c.program);
  ASSERT_FALSE(msg.empty()) << c.name << " compiled:\n" << c.program;
  EXPECT_NE(msg.find(c.op), std::string::npos) << msg;
  EXPECT_NE(msg.find(c.rule), std::string::npos) << msg;
}

INSTANTIATE_TEST_SUITE_P(GatherScatter, Rules, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& i) {
                           return std::string(i.param.name);
                         });

TEST(Rules, ValidProgramsCompile) {
  EXPECT_EQ(CompileError(Gather(kDn, "1, 2, 2")), "");
  EXPECT_EQ(CompileError(BatchGather(BDn("[0]", "[1]"))), "");
  EXPECT_EQ(CompileError(Scatter(kSDn)), "");
  EXPECT_EQ(CompileError(BatchScatter("[0]", "[1]")), "");
}

// Compiles `text`, runs it on 1-D i32 inputs, returns the i32 results (or
// the run's error message in *error).
std::vector<std::vector<int32_t>> RunProgram(const std::string& text,
                                      const std::vector<std::vector<int32_t>>& in,
                                      int num_results,
                                      std::string* error = nullptr) {
  std::vector<std::vector<int32_t>> res;
  hlx_program_t* p = nullptr;
  hlx_executable_t* e = nullptr;
  hlx_status_t s =
      hlx_program_parse(text.c_str(), text.size(), "t.mlir", 1, &p);
  if (!s) s = hlx_executable_create(p, nullptr, &e);
  EXPECT_EQ(s, nullptr) << hlx_status_get_message(s);
  std::vector<hlx_buffer_t*> bufs(in.size(), nullptr);
  for (size_t k = 0; k < in.size() && !s; k++) {
    hlx_tensor_desc_t d = {};
    d.element_type = hlx_element_type_from_name("i32");
    d.rank = 1;
    d.dims[0] = (int64_t)in[k].size();
    s = hlx_buffer_create(&d, in[k].data(), &bufs[k]);
  }
  std::vector<hlx_buffer_t*> out((size_t)num_results, nullptr);
  if (!s)
    s = hlx_executable_run(e, bufs.data(), (int32_t)bufs.size(), out.data(),
                           num_results);
  if (error) {
    *error = s ? hlx_status_get_message(s) : "";
  } else {
    EXPECT_EQ(s, nullptr) << hlx_status_get_message(s);
  }
  if (!s) {
    for (auto* o : out) {
      const int32_t* d = static_cast<const int32_t*>(hlx_buffer_data(o));
      res.emplace_back(d, d + hlx_buffer_bytes(o) / 4);
      hlx_buffer_destroy(o);
    }
  }
  hlx_status_release(s);
  for (auto* b : bufs) hlx_buffer_destroy(b);
  hlx_executable_destroy(e);
  hlx_program_destroy(p);
  return res;
}

// A non-combiner region runs per element in row-major update order:
// subtracting three updates from one element is order-sensitive only in
// that it must see every one; index 7 is out of bounds and skipped.
TEST(ScatterRun, RegionPathInRowMajorOrder) {
  auto r = RunProgram(
      "func.func @main(%a: tensor<3xi32>, %i: tensor<5xi32>, %u: "
      "tensor<5xi32>) -> tensor<3xi32> {\n"
      "  %ii = stablehlo.reshape %i : (tensor<5xi32>) -> tensor<5x1xi32>\n"
      "  %0 = \"stablehlo.scatter\"(%a, %ii, %u) ({\n"
      "  ^bb0(%x: tensor<i32>, %y: tensor<i32>):\n"
      "    %two = stablehlo.constant dense<2> : tensor<i32>\n"
      "    %m = stablehlo.multiply %x, %two : tensor<i32>\n"
      "    %s = stablehlo.subtract %m, %y : tensor<i32>\n"
      "    stablehlo.return %s : tensor<i32>\n"
      "  }) {scatter_dimension_numbers = #stablehlo.scatter<"
      "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], "
      "index_vector_dim = 1>, indices_are_sorted = true, unique_indices = "
      "true} : (tensor<3xi32>, tensor<5x1xi32>, tensor<5xi32>) -> "
      "tensor<3xi32>\n"
      "  return %0 : tensor<3xi32> }",
      {{10, 20, 30}, {0, 2, 0, 7, 0}, {1, 2, 3, 4, 5}}, 1);
  ASSERT_EQ(r.size(), 1u);
  // element 0: ((10*2-1)*2-3)*2-5 = 65; element 2: 30*2-2 = 58.
  // The (false) sortedness / uniqueness hints change nothing.
  EXPECT_EQ(r[0], (std::vector<int32_t>{65, 20, 58}));
}

// Variadic scatter (argmax-style region): both results follow the
// region; the second input is read as the current index.
TEST(ScatterRun, VariadicRegion) {
  auto r = RunProgram(
      "func.func @main(%v: tensor<2xi32>, %i: tensor<4xi32>, %u: "
      "tensor<4xi32>) -> (tensor<2xi32>, tensor<2xi32>) {\n"
      "  %k = stablehlo.constant dense<[-1, -1]> : tensor<2xi32>\n"
      "  %pos = stablehlo.iota dim = 0 : tensor<4xi32>\n"
      "  %ii = stablehlo.reshape %i : (tensor<4xi32>) -> tensor<4x1xi32>\n"
      "  %0:2 = \"stablehlo.scatter\"(%v, %k, %ii, %u, %pos) ({\n"
      "  ^bb0(%a: tensor<i32>, %ai: tensor<i32>, %b: tensor<i32>, %bi: "
      "tensor<i32>):\n"
      "    %gt = stablehlo.compare GT, %b, %a : (tensor<i32>, tensor<i32>) "
      "-> tensor<i1>\n"
      "    %m = stablehlo.select %gt, %b, %a : tensor<i1>, tensor<i32>\n"
      "    %mi = stablehlo.select %gt, %bi, %ai : tensor<i1>, tensor<i32>\n"
      "    stablehlo.return %m, %mi : tensor<i32>, tensor<i32>\n"
      "  }) {scatter_dimension_numbers = #stablehlo.scatter<"
      "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], "
      "index_vector_dim = 1>} : (tensor<2xi32>, tensor<2xi32>, "
      "tensor<4x1xi32>, tensor<4xi32>, tensor<4xi32>) -> (tensor<2xi32>, "
      "tensor<2xi32>)\n"
      "  return %0#0, %0#1 : tensor<2xi32>, tensor<2xi32> }",
      {{0, 100}, {0, 1, 0, 0}, {5, 7, 9, 3}}, 2);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0], (std::vector<int32_t>{9, 100}));
  EXPECT_EQ(r[1], (std::vector<int32_t>{2, -1}));
}

// Variadic plain replacement (kernel path): the last update wins.
TEST(ScatterRun, VariadicReplace) {
  auto r = RunProgram(
      "func.func @main(%v: tensor<3xi32>, %i: tensor<3xi32>, %u: "
      "tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi32>) {\n"
      "  %n = stablehlo.negate %u : tensor<3xi32>\n"
      "  %ii = stablehlo.reshape %i : (tensor<3xi32>) -> tensor<3x1xi32>\n"
      "  %0:2 = \"stablehlo.scatter\"(%v, %v, %ii, %u, %n) ({\n"
      "  ^bb0(%a: tensor<i32>, %b: tensor<i32>, %c: tensor<i32>, %d: "
      "tensor<i32>):\n"
      "    stablehlo.return %c, %d : tensor<i32>, tensor<i32>\n"
      "  }) {scatter_dimension_numbers = #stablehlo.scatter<"
      "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], "
      "index_vector_dim = 1>} : (tensor<3xi32>, tensor<3xi32>, "
      "tensor<3x1xi32>, tensor<3xi32>, tensor<3xi32>) -> (tensor<3xi32>, "
      "tensor<3xi32>)\n"
      "  return %0#0, %0#1 : tensor<3xi32>, tensor<3xi32> }",
      {{1, 2, 3}, {2, 2, -1}, {10, 20, 30}}, 2);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0], (std::vector<int32_t>{1, 2, 20}));
  EXPECT_EQ(r[1], (std::vector<int32_t>{1, 2, -20}));
}

// i8 inputs and updates with an i32 region (is_promotable): the result is
// i32 and the sum does not wrap at 8 bits.
TEST(ScatterRun, PromotedRegionType) {
  auto r = RunProgram(
      "func.func @main(%v: tensor<2xi32>, %i: tensor<3xi32>, %u: "
      "tensor<3xi32>) -> tensor<2xi32> {\n"
      "  %v8 = stablehlo.convert %v : (tensor<2xi32>) -> tensor<2xi8>\n"
      "  %u8 = stablehlo.convert %u : (tensor<3xi32>) -> tensor<3xi8>\n"
      "  %ii = stablehlo.reshape %i : (tensor<3xi32>) -> tensor<3x1xi32>\n"
      "  %0 = \"stablehlo.scatter\"(%v8, %ii, %u8) ({\n"
      "  ^bb0(%a: tensor<i32>, %b: tensor<i32>):\n"
      "    %s = stablehlo.add %a, %b : tensor<i32>\n"
      "    stablehlo.return %s : tensor<i32>\n"
      "  }) {scatter_dimension_numbers = #stablehlo.scatter<"
      "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], "
      "index_vector_dim = 1>} : (tensor<2xi8>, tensor<3x1xi32>, "
      "tensor<3xi8>) -> tensor<2xi32>\n"
      "  return %0 : tensor<2xi32> }",
      {{100, -5}, {0, 0, 1}, {100, 100, -128}}, 1);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0], (std::vector<int32_t>{300, -133}));
}

// The update_computation may use values defined outside it (captures).
TEST(ScatterRun, RegionCapturesOuterValue) {
  auto r = RunProgram(
      "func.func @main(%k: tensor<1xi32>) -> tensor<3xi32> {\n"
      "  %a = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>\n"
      "  %i = stablehlo.constant dense<[[0], [2], [0]]> : tensor<3x1xi64>\n"
      "  %u = stablehlo.constant dense<[10, 20, 30]> : tensor<3xi32>\n"
      "  %ks = stablehlo.reshape %k : (tensor<1xi32>) -> tensor<i32>\n"
      "  %0 = \"stablehlo.scatter\"(%a, %i, %u) ({\n"
      "  ^bb0(%x: tensor<i32>, %y: tensor<i32>):\n"
      "    %s = stablehlo.add %x, %y : tensor<i32>\n"
      "    %t = stablehlo.add %s, %ks : tensor<i32>\n"
      "    stablehlo.return %t : tensor<i32>\n"
      "  }) {scatter_dimension_numbers = #stablehlo.scatter<"
      "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], "
      "index_vector_dim = 1>} : (tensor<3xi32>, tensor<3x1xi64>, "
      "tensor<3xi32>) -> tensor<3xi32>\n"
      "  return %0 : tensor<3xi32> }",
      {{100}}, 1);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0], (std::vector<int32_t>{241, 2, 123}));
}

// dynamic_gather with slice sizes known only at run time: checked then.
TEST(DynamicGatherRun, RunTimeSliceSizes) {
  const std::string prog =
      "func.func @main(%a: tensor<6xi32>, %i: tensor<2xi32>, %s: "
      "tensor<2xi32>) -> tensor<2x2xi32> {\n"
      "  %a2 = stablehlo.reshape %a : (tensor<6xi32>) -> tensor<3x2xi32>\n"
      "  %0 = \"stablehlo.dynamic_gather\"(%a2, %i, %s) {\n"
      "    dimension_numbers = #stablehlo.gather<offset_dims = [1], "
      "collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim "
      "= 1>\n  } : (tensor<3x2xi32>, tensor<2xi32>, tensor<2xi32>) -> "
      "tensor<2x2xi32>\n"
      "  return %0 : tensor<2x2xi32> }";
  auto r = RunProgram(prog, {{1, 2, 3, 4, 5, 6}, {2, 9}, {1, 2}}, 1);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0], (std::vector<int32_t>{5, 6, 5, 6}));
  std::string err;
  r = RunProgram(prog, {{1, 2, 3, 4, 5, 6}, {2, 9}, {1, 1}}, 1, &err);
  EXPECT_TRUE(r.empty());
  EXPECT_NE(err.find("dynamic_gather"), std::string::npos) << err;
  EXPECT_NE(err.find("(C13)"), std::string::npos) << err;
  r = RunProgram(prog, {{1, 2, 3, 4, 5, 6}, {2, 9}, {2, 2}}, 1, &err);
  EXPECT_NE(err.find("(C8)"), std::string::npos) << err;
}

// Gather with the start indices from a parameter (take with clamping).
TEST(GatherRun, TakeClampsIndices) {
  auto r = RunProgram(
      "func.func @main(%a: tensor<4xi32>, %i: tensor<3xi32>) -> "
      "tensor<3xi32> {\n"
      "  %0 = \"stablehlo.gather\"(%a, %i) {dimension_numbers = "
      "#stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], "
      "index_vector_dim = 1>, slice_sizes = array<i64: 1>} : "
      "(tensor<4xi32>, tensor<3xi32>) -> tensor<3xi32>\n"
      "  return %0 : tensor<3xi32> }",
      {{10, 11, 12, 13}, {2, -4, 99}}, 1);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0], (std::vector<int32_t>{12, 10, 13}));
}

}  // namespace
