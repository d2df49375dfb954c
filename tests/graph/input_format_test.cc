// hlx_input_detect: what a file given as a program is, with a one-line hint
// for everything hlx does not read, and no false alarms on StableHLO text
// that carries mhlo.* attributes.
#include <gtest/gtest.h>

#include <string>

extern "C" {
#include "graph/stablehlo/input_format.h"
}

namespace {

hlx_input_kind_t Detect(const std::string& s, std::string* hint = nullptr) {
  const char* h = nullptr;
  hlx_input_kind_t k = hlx_input_detect(s.data(), s.size(), &h);
  if (hint) *hint = h ? h : "";
  return k;
}

TEST(InputFormat, StableHloTextAndBytecode) {
  std::string hint = "x";
  EXPECT_EQ(Detect(R"(module @m attributes {mhlo.num_partitions = 1 : i32} {
  func.func @main(%a: tensor<f32> {mhlo.sharding = "{replicated}"}) -> tensor<f32> {
    %0 = stablehlo.custom_call @f(%a) {mhlo.backend_config = {},
      mhlo.frontend_attributes = {x = "mhlo.add"}} : (tensor<f32>) -> tensor<f32>
    return %0 : tensor<f32> loc("mhlo.op")
  }
})", &hint), HLX_INPUT_STABLEHLO_TEXT);
  EXPECT_EQ(hint, "");
  EXPECT_EQ(Detect(std::string("ML\xefR\x0d", 5), &hint), HLX_INPUT_MLIR_BYTECODE);
  EXPECT_EQ(hint, "");
  EXPECT_EQ(Detect(""), HLX_INPUT_STABLEHLO_TEXT);
}

TEST(InputFormat, OtherDialectsAndHlo) {
  std::string hint;
  EXPECT_EQ(Detect("func.func @main(%a: tensor<f32>) -> tensor<f32> {\n"
                   "  %0 = mhlo.add %a, %a : tensor<f32>\n  return %0 : tensor<f32>\n}",
                   &hint),
            HLX_INPUT_MHLO_TEXT);
  EXPECT_NE(hint.find("hlo-legalize-to-stablehlo"), std::string::npos) << hint;
  EXPECT_EQ(Detect("%0 = \"mhlo.add\"(%a, %a) : (tensor<f32>, tensor<f32>) -> tensor<f32>"),
            HLX_INPUT_MHLO_TEXT);
  EXPECT_EQ(Detect("  \"mhlo.return\"(%0) : (tensor<f32>) -> ()"), HLX_INPUT_MHLO_TEXT);
  EXPECT_EQ(Detect("vhlo.func_v1 @main(%arg0: !vhlo.tensor_v1<!vhlo.f32_v1>) {\n"
                   "  %0 = \"vhlo.add_v1\"(%arg0, %arg0) : (...) -> ...\n}", &hint),
            HLX_INPUT_VHLO_TEXT);
  EXPECT_NE(hint.find("vhlo-legalize-to-stablehlo"), std::string::npos) << hint;
  EXPECT_EQ(Detect("\n  HloModule jit_f, entry_computation_layout={()->f32[]}\n", &hint),
            HLX_INPUT_HLO_TEXT);
  // HLO text is read (graph/hlo), so it gets no conversion hint.
  EXPECT_EQ(hint, "") << hint;
}

TEST(InputFormat, BinaryFormats) {
  std::string hint;
  EXPECT_EQ(Detect(std::string("\x93NUMPY\x01\x00v\x00{'descr'", 18), &hint), HLX_INPUT_NPY);
  EXPECT_NE(hint.find("--input"), std::string::npos) << hint;
  EXPECT_EQ(Detect(std::string("PK\x03\x04\x14\x00", 6)), HLX_INPUT_ARCHIVE);
  EXPECT_EQ(Detect(std::string("\x1f\x8b\x08\x00", 4)), HLX_INPUT_ARCHIVE);
  // ONNX: ir_version = 8, producer_name = "pytorch"
  EXPECT_EQ(Detect(std::string("\x08\x08\x12\x07pytorch", 11), &hint), HLX_INPUT_ONNX);
  EXPECT_NE(hint.find("ONNX"), std::string::npos) << hint;
  // A flatbuffer with the bytecode as a byte vector (length, then bytes).
  std::string fb("\x10\x00\x00\x00\x0c\x00\x10\x00", 8);
  std::string module("ML\xefR\x0dStableHLO\x00", 15);
  uint32_t n = (uint32_t)module.size();
  fb += std::string(reinterpret_cast<const char*>(&n), 4) + module;
  EXPECT_EQ(Detect(fb, &hint), HLX_INPUT_JAX_EXPORTED);
  EXPECT_NE(hint.find("mlir_module_serialized"), std::string::npos) << hint;
  EXPECT_EQ(Detect(std::string("\x7f" "ELF\x02\x01", 6), &hint), HLX_INPUT_BINARY);
  EXPECT_NE(hint.find("MLIR bytecode"), std::string::npos) << hint;
}

}  // namespace
