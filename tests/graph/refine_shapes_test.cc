// Shape refinement (graph/passes/refine_shapes.c) through hlx_program_specialize:
// small shape-polymorphic programs specialised, compiled and run, with
// expected values computed by hand; and the errors for inconsistent
// dimension values and shapes that cannot be computed.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "api/hlx.h"
#include "gtest/gtest.h"

namespace {

struct Arg {
  hlx_element_type_t type;
  std::vector<int64_t> dims;
  std::vector<uint8_t> bytes;
};

template <typename T>
Arg MakeArg(hlx_element_type_t t, std::vector<int64_t> dims,
            std::vector<T> v) {
  Arg a{t, dims, {}};
  a.bytes.resize(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(a.bytes.data(), v.data(), a.bytes.size());
  return a;
}

const hlx_element_type_t kF32 = hlx_element_type_from_name("f32");
const hlx_element_type_t kI64 = hlx_element_type_from_name("i64");
const hlx_element_type_t kI32 = hlx_element_type_from_name("i32");

Arg Dim(int64_t v) { return MakeArg<int64_t>(kI64, {}, {v}); }

// Specialises `text` to `args`; on success runs it and returns result 0.
std::string Specialize(const std::string& text, const std::vector<Arg>& args,
                std::vector<int64_t>* dims, std::vector<uint8_t>* out) {
  hlx_program_t* p = nullptr;
  hlx_status_t st = hlx_program_parse(text.data(), text.size(), "t", 1, &p);
  if (st) {
    std::string m = hlx_status_get_message(st);
    hlx_status_release(st);
    return "parse: " + m;
  }
  EXPECT_TRUE(hlx_program_function_is_dynamic(p, nullptr));
  std::vector<hlx_buffer_t*> bufs;
  for (const Arg& a : args) {
    hlx_tensor_desc_t d{};
    d.element_type = a.type;
    d.rank = (int32_t)a.dims.size();
    for (size_t i = 0; i < a.dims.size(); i++) d.dims[i] = a.dims[i];
    hlx_buffer_t* b = nullptr;
    EXPECT_EQ(hlx_buffer_create(&d, a.bytes.data(), &b), nullptr);
    bufs.push_back(b);
  }
  hlx_program_t* q = nullptr;
  st = hlx_program_specialize(p, nullptr, bufs.data(), (int32_t)bufs.size(),
                              &q);
  std::string err;
  if (!st) {
    EXPECT_FALSE(hlx_program_function_is_dynamic(q, nullptr));
    hlx_compile_options_t o;
    hlx_compile_options_init(&o);
    o.num_threads = 1;
    hlx_executable_t* e = nullptr;
    st = hlx_executable_create(q, &o, &e);
    hlx_buffer_t* r = nullptr;
    if (!st) st = hlx_executable_run(e, bufs.data(), (int32_t)bufs.size(), &r, 1);
    if (!st) {
      const hlx_tensor_desc_t* d = hlx_buffer_desc(r);
      dims->assign(d->dims, d->dims + d->rank);
      const uint8_t* data = (const uint8_t*)hlx_buffer_data(r);
      out->assign(data, data + hlx_buffer_bytes(r));
    }
    hlx_buffer_destroy(r);
    hlx_executable_destroy(e);
  }
  if (st) {
    err = hlx_status_get_message(st);
    hlx_status_release(st);
  }
  for (hlx_buffer_t* b : bufs) hlx_buffer_destroy(b);
  hlx_program_destroy(q);
  hlx_program_destroy(p);
  return err;
}

// The error of specialising (and running) `text` on `args`.
std::string Error(const std::string& text, const std::vector<Arg>& args) {
  std::vector<int64_t> dims;
  std::vector<uint8_t> out;
  return Specialize(text, args, &dims, &out);
}

template <typename T>
std::vector<T> As(const std::vector<uint8_t>& b) {
  std::vector<T> v(b.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), b.data(), b.size());
  return v;
}

TEST(RefineShapes, DynamicBroadcastInDimFromDimensionVariable) {
  // JAX's pattern: the shape [2, b] is built from the dimension variable.
  const char* text = R"(
func.func @main(%arg0: tensor<i64>, %arg1: tensor<?xf32>) -> tensor<2x?xf32> {
  %0 = stablehlo.constant dense<2> : tensor<1xi32>
  %1 = stablehlo.convert %arg0 : (tensor<i64>) -> tensor<i32>
  %2 = stablehlo.reshape %1 : (tensor<i32>) -> tensor<1xi32>
  %3 = stablehlo.concatenate %0, %2, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %4 = stablehlo.dynamic_broadcast_in_dim %arg1, %3, dims = [1] : (tensor<?xf32>, tensor<2xi32>) -> tensor<2x?xf32>
  %5 = stablehlo.add %4, %4 : tensor<2x?xf32>
  return %5 : tensor<2x?xf32>
})";
  std::vector<int64_t> dims;
  std::vector<uint8_t> out;
  ASSERT_EQ(Specialize(text, {Dim(3), MakeArg<float>(kF32, {3}, {1, 2, 3})}, &dims,
                &out),
            "");
  EXPECT_EQ(dims, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(As<float>(out), (std::vector<float>{2, 4, 6, 2, 4, 6}));
}

TEST(RefineShapes, DynamicIotaAndGetDimensionSize) {
  const char* text = R"(
func.func @main(%arg0: tensor<?x2xf32>) -> tensor<?xi32> {
  %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x2xf32>) -> tensor<i32>
  %1 = stablehlo.constant dense<2> : tensor<i32>
  %2 = stablehlo.multiply %0, %1 : tensor<i32>
  %3 = stablehlo.reshape %2 : (tensor<i32>) -> tensor<1xi32>
  %4 = stablehlo.dynamic_iota %3, dim = 0 : (tensor<1xi32>) -> tensor<?xi32>
  return %4 : tensor<?xi32>
})";
  std::vector<int64_t> dims;
  std::vector<uint8_t> out;
  ASSERT_EQ(Specialize(text, {MakeArg<float>(kF32, {3, 2}, {0, 0, 0, 0, 0, 0})},
                &dims, &out),
            "");
  EXPECT_EQ(dims, (std::vector<int64_t>{6}));
  EXPECT_EQ(As<int32_t>(out), (std::vector<int32_t>{0, 1, 2, 3, 4, 5}));
}

TEST(RefineShapes, GetDimensionSizeBecomesAConstant) {
  const char* text = R"(
func.func @main(%arg0: tensor<?x2xf32>) -> tensor<i32> {
  %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x2xf32>) -> tensor<i32>
  return %0 : tensor<i32>
})";
  std::vector<int64_t> dims;
  std::vector<uint8_t> out;
  ASSERT_EQ(Specialize(text, {MakeArg<float>(kF32, {5, 2}, std::vector<float>(10))},
                &dims, &out),
            "");
  EXPECT_EQ(dims, (std::vector<int64_t>{}));
  EXPECT_EQ(As<int32_t>(out), (std::vector<int32_t>{5}));
}

TEST(RefineShapes, DynamicReshape) {
  const char* text = R"(
func.func @main(%arg0: tensor<i64>, %arg1: tensor<?x2xi32>) -> tensor<2x?xi32> {
  %0 = stablehlo.constant dense<2> : tensor<1xi64>
  %1 = stablehlo.reshape %arg0 : (tensor<i64>) -> tensor<1xi64>
  %2 = stablehlo.concatenate %0, %1, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %3 = stablehlo.dynamic_reshape %arg1, %2 : (tensor<?x2xi32>, tensor<2xi64>) -> tensor<2x?xi32>
  return %3 : tensor<2x?xi32>
})";
  std::vector<int64_t> dims;
  std::vector<uint8_t> out;
  ASSERT_EQ(Specialize(text, {Dim(3), MakeArg<int32_t>(kI32, {3, 2}, {1, 2, 3, 4, 5, 6})},
                &dims, &out),
            "");
  EXPECT_EQ(dims, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(As<int32_t>(out), (std::vector<int32_t>{1, 2, 3, 4, 5, 6}));
}

TEST(RefineShapes, RealDynamicSlice) {
  // x[1:b:2] for b = 5 on [10, 11, 12, 13, 14]: elements 1 and 3.
  const char* text = R"(
func.func @main(%arg0: tensor<i64>, %arg1: tensor<?xi32>) -> tensor<?xi32> {
  %0 = stablehlo.constant dense<1> : tensor<1xi64>
  %1 = stablehlo.reshape %arg0 : (tensor<i64>) -> tensor<1xi64>
  %2 = stablehlo.constant dense<2> : tensor<1xi64>
  %3 = stablehlo.real_dynamic_slice %arg1, %0, %1, %2 : (tensor<?xi32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xi32>
  return %3 : tensor<?xi32>
})";
  std::vector<int64_t> dims;
  std::vector<uint8_t> out;
  ASSERT_EQ(Specialize(text, {Dim(5), MakeArg<int32_t>(kI32, {5}, {10, 11, 12, 13, 14})},
                &dims, &out),
            "");
  EXPECT_EQ(dims, (std::vector<int64_t>{2}));
  EXPECT_EQ(As<int32_t>(out), (std::vector<int32_t>{11, 13}));
}

TEST(RefineShapes, RealDynamicSliceFromIntegerData) {
  // JAX's dynamic_slice with a symbolic size: start from data (1), limit =
  // start + b - 1 with b = 3: elements 1 and 2 of [10, 11, 12, 13].
  const char* text = R"(
func.func @main(%arg0: tensor<i64>, %arg1: tensor<?xi32>, %arg2: tensor<1xi64>) -> tensor<?xi32> {
  %0 = stablehlo.reshape %arg0 : (tensor<i64>) -> tensor<1xi64>
  %1 = stablehlo.constant dense<1> : tensor<1xi64>
  %2 = stablehlo.add %arg2, %0 : tensor<1xi64>
  %3 = stablehlo.subtract %2, %1 : tensor<1xi64>
  %4 = stablehlo.real_dynamic_slice %arg1, %arg2, %3, %1 : (tensor<?xi32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xi32>
  return %4 : tensor<?xi32>
})";
  std::vector<int64_t> dims;
  std::vector<uint8_t> out;
  ASSERT_EQ(Specialize(text,
                       {Dim(3), MakeArg<int32_t>(kI32, {4}, {10, 11, 12, 13}),
                        MakeArg<int64_t>(kI64, {1}, {1})},
                       &dims, &out),
            "");
  EXPECT_EQ(dims, (std::vector<int64_t>{2}));
  EXPECT_EQ(As<int32_t>(out), (std::vector<int32_t>{11, 12}));
}

TEST(RefineShapes, DynamicPad) {
  // [1, 2, 3], low 1, high b-1 = 1, interior 1, pad value 0.
  const char* text = R"(
func.func @main(%arg0: tensor<i64>, %arg1: tensor<?xi32>) -> tensor<?xi32> {
  %0 = stablehlo.constant dense<0> : tensor<i32>
  %1 = stablehlo.constant dense<1> : tensor<1xi64>
  %2 = stablehlo.reshape %arg0 : (tensor<i64>) -> tensor<1xi64>
  %3 = stablehlo.subtract %2, %1 : tensor<1xi64>
  %4 = stablehlo.dynamic_pad %arg1, %0, %1, %3, %1 : (tensor<?xi32>, tensor<i32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xi32>
  return %4 : tensor<?xi32>
})";
  std::vector<int64_t> dims;
  std::vector<uint8_t> out;
  ASSERT_EQ(Specialize(text, {Dim(2), MakeArg<int32_t>(kI32, {3}, {1, 2, 3})}, &dims,
                &out),
            "");
  EXPECT_EQ(dims, (std::vector<int64_t>{7}));
  EXPECT_EQ(As<int32_t>(out), (std::vector<int32_t>{0, 1, 0, 2, 0, 3, 0}));
}

TEST(RefineShapes, DynamicGather) {
  // Rows [2, 0] of a ?x2 operand, slice_sizes [1, b] with b = 2.
  const char* text = R"(
func.func @main(%arg0: tensor<i64>, %arg1: tensor<?x?xi32>, %arg2: tensor<2x1xi32>) -> tensor<2x?xi32> {
  %0 = stablehlo.constant dense<1> : tensor<1xi64>
  %1 = stablehlo.reshape %arg0 : (tensor<i64>) -> tensor<1xi64>
  %2 = stablehlo.concatenate %0, %1, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %3 = "stablehlo.dynamic_gather"(%arg1, %arg2, %2) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>} : (tensor<?x?xi32>, tensor<2x1xi32>, tensor<2xi64>) -> tensor<2x?xi32>
  return %3 : tensor<2x?xi32>
})";
  std::vector<int64_t> dims;
  std::vector<uint8_t> out;
  ASSERT_EQ(Specialize(text,
                {Dim(2), MakeArg<int32_t>(kI32, {3, 2}, {1, 2, 3, 4, 5, 6}),
                 MakeArg<int32_t>(kI32, {2, 1}, {2, 0})},
                &dims, &out),
            "");
  EXPECT_EQ(dims, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(As<int32_t>(out), (std::vector<int32_t>{5, 6, 1, 2}));
}

TEST(RefineShapes, DynamicConvWithComputedPadding) {
  // [1, 2, 3, 4] (?= 4) with a [1, 1] window, padding b - 3 = 1 each side:
  // [0+1, 1+2, 2+3, 3+4, 4+0].
  const char* text = R"(
func.func @main(%arg0: tensor<i64>, %arg1: tensor<1x?x1xf32>, %arg2: tensor<2x1x1xf32>) -> tensor<1x?x1xf32> {
  %0 = stablehlo.constant dense<3> : tensor<i64>
  %1 = stablehlo.subtract %arg0, %0 : tensor<i64>
  %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<i64>) -> tensor<1x2xi64>
  %3 = "stablehlo.dynamic_conv"(%arg1, %arg2, %2) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, feature_group_count = 1 : i64, window_strides = array<i64: 1>} : (tensor<1x?x1xf32>, tensor<2x1x1xf32>, tensor<1x2xi64>) -> tensor<1x?x1xf32>
  return %3 : tensor<1x?x1xf32>
})";
  std::vector<int64_t> dims;
  std::vector<uint8_t> out;
  ASSERT_EQ(Specialize(text,
                       {Dim(4), MakeArg<float>(kF32, {1, 4, 1}, {1, 2, 3, 4}),
                        MakeArg<float>(kF32, {2, 1, 1}, {1, 1})},
                       &dims, &out),
            "");
  EXPECT_EQ(dims, (std::vector<int64_t>{1, 5, 1}));
  EXPECT_EQ(As<float>(out), (std::vector<float>{1, 3, 5, 7, 4}));
}

TEST(RefineShapes, GatherWithDefaultIndexVectorDim) {
  // index_vector_dim defaults to 0: one start [1] picks row 1 of a ?x2.
  const char* text = R"(
func.func @main(%arg0: tensor<?x2xi32>, %arg1: tensor<1xi32>) -> tensor<?x?xi32> {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %1 = "stablehlo.dynamic_gather"(%arg0, %arg1, %0) {dimension_numbers = #stablehlo.gather<offset_dims = [0, 1], start_index_map = [0]>} : (tensor<?x2xi32>, tensor<1xi32>, tensor<2xi32>) -> tensor<?x?xi32>
  return %1 : tensor<?x?xi32>
})";
  std::vector<int64_t> dims;
  std::vector<uint8_t> out;
  ASSERT_EQ(Specialize(text,
                       {MakeArg<int32_t>(kI32, {3, 2}, {1, 2, 3, 4, 5, 6}),
                        MakeArg<int32_t>(kI32, {1}, {1})},
                       &dims, &out),
            "");
  EXPECT_EQ(dims, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(As<int32_t>(out), (std::vector<int32_t>{3, 4}));
}

TEST(RefineShapes, ThroughACall) {
  const char* text = R"(
func.func @main(%arg0: tensor<i64>, %arg1: tensor<?xf32>) -> tensor<?xf32> {
  %0 = call @f(%arg0, %arg1) : (tensor<i64>, tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
func.func private @f(%arg0: tensor<i64>, %arg1: tensor<?xf32>) -> tensor<?xf32> {
  %0 = stablehlo.convert %arg0 : (tensor<i64>) -> tensor<f32>
  %1 = stablehlo.reshape %arg0 : (tensor<i64>) -> tensor<1xi64>
  %2 = stablehlo.dynamic_broadcast_in_dim %0, %1, dims = [] : (tensor<f32>, tensor<1xi64>) -> tensor<?xf32>
  %3 = stablehlo.multiply %arg1, %2 : tensor<?xf32>
  return %3 : tensor<?xf32>
})";
  std::vector<int64_t> dims;
  std::vector<uint8_t> out;
  ASSERT_EQ(Specialize(text, {Dim(3), MakeArg<float>(kF32, {3}, {1, 2, 3})}, &dims,
                &out),
            "");
  EXPECT_EQ(dims, (std::vector<int64_t>{3}));
  EXPECT_EQ(As<float>(out), (std::vector<float>{3, 6, 9}));
}

TEST(RefineShapes, ACalleeCalledWithTwoShapesIsSpecialisedTwice) {
  // @sum reduces a ?-vector; called on x (b = 3) and on concat(x, x) (6).
  const char* text = R"(
func.func @main(%arg0: tensor<i64>, %arg1: tensor<?xf32>) -> tensor<2xf32> {
  %0 = call @sum(%arg1) : (tensor<?xf32>) -> tensor<f32>
  %1 = stablehlo.concatenate %arg1, %arg1, dim = 0 : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %2 = call @sum(%1) : (tensor<?xf32>) -> tensor<f32>
  %3 = stablehlo.reshape %0 : (tensor<f32>) -> tensor<1xf32>
  %4 = stablehlo.reshape %2 : (tensor<f32>) -> tensor<1xf32>
  %5 = stablehlo.concatenate %3, %4, dim = 0 : (tensor<1xf32>, tensor<1xf32>) -> tensor<2xf32>
  return %5 : tensor<2xf32>
}
func.func private @sum(%arg0: tensor<?xf32>) -> tensor<f32> {
  %0 = stablehlo.constant dense<0.0> : tensor<f32>
  %1 = stablehlo.abs %arg0 : tensor<?xf32>
  %2 = stablehlo.reduce(%1 init: %0) applies stablehlo.add across dimensions = [0] : (tensor<?xf32>, tensor<f32>) -> tensor<f32>
  return %2 : tensor<f32>
})";
  std::vector<int64_t> dims;
  std::vector<uint8_t> out;
  ASSERT_EQ(Specialize(text, {Dim(3), MakeArg<float>(kF32, {3}, {1, -2, 3})},
                       &dims, &out),
            "");
  EXPECT_EQ(dims, (std::vector<int64_t>{2}));
  EXPECT_EQ(As<float>(out), (std::vector<float>{6, 12}));
}

TEST(RefineShapes, MismatchedDimensionVariableIsAnError) {
  // b = 4 but the input has 3 elements: the broadcast cannot hold.
  const char* text = R"(
func.func @main(%arg0: tensor<i64>, %arg1: tensor<?xf32>) -> tensor<?xf32> {
  %0 = stablehlo.reshape %arg0 : (tensor<i64>) -> tensor<1xi64>
  %1 = stablehlo.dynamic_broadcast_in_dim %arg1, %0, dims = [0] : (tensor<?xf32>, tensor<1xi64>) -> tensor<?xf32>
  return %1 : tensor<?xf32>
})";
  std::string e = Error(text, {Dim(4), MakeArg<float>(kF32, {3}, {1, 2, 3})});
  EXPECT_NE(e.find("stablehlo.dynamic_broadcast_in_dim"), std::string::npos) << e;
  EXPECT_NE(e.find("(C5)"), std::string::npos) << e;
}

TEST(RefineShapes, ElementwiseShapeDisagreementIsAnError) {
  // b = 4 fixes the broadcast to 4 elements; adding the 3-element input fails.
  const char* text = R"(
func.func @main(%arg0: tensor<i64>, %arg1: tensor<?xf32>) -> tensor<?xf32> {
  %0 = stablehlo.constant dense<1.0> : tensor<f32>
  %1 = stablehlo.reshape %arg0 : (tensor<i64>) -> tensor<1xi64>
  %2 = stablehlo.dynamic_broadcast_in_dim %0, %1, dims = [] : (tensor<f32>, tensor<1xi64>) -> tensor<?xf32>
  %3 = stablehlo.add %2, %arg1 : tensor<?xf32>
  return %3 : tensor<?xf32>
})";
  std::string e = Error(text, {Dim(4), MakeArg<float>(kF32, {3}, {1, 2, 3})});
  EXPECT_NE(e.find("stablehlo.add"), std::string::npos) << e;
  EXPECT_NE(e.find("one shape"), std::string::npos) << e;
}

TEST(RefineShapes, ShapeOperandNotComputableIsAnError) {
  // The shape is computed from float data, which refinement does not fold.
  const char* text = R"(
func.func @main(%arg0: tensor<1xf32>, %arg1: tensor<?xf32>) -> tensor<?xf32> {
  %0 = stablehlo.convert %arg0 : (tensor<1xf32>) -> tensor<1xi64>
  %1 = stablehlo.dynamic_broadcast_in_dim %arg1, %0, dims = [0] : (tensor<?xf32>, tensor<1xi64>) -> tensor<?xf32>
  return %1 : tensor<?xf32>
})";
  std::string e = Error(text, {MakeArg<float>(kF32, {1}, {3}),
                               MakeArg<float>(kF32, {3}, {1, 2, 3})});
  EXPECT_NE(e.find("stablehlo.dynamic_broadcast_in_dim"), std::string::npos) << e;
  EXPECT_NE(e.find("not computable"), std::string::npos) << e;
}

TEST(RefineShapes, MalformedDynamicOpIsAnError) {
  // dynamic_broadcast_in_dim without its shape operand.
  const char* text = R"(
func.func @main(%arg0: tensor<?xf32>) -> tensor<?xf32> {
  %0 = "stablehlo.dynamic_broadcast_in_dim"(%arg0) {broadcast_dimensions = array<i64: 0>} : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
})";
  std::string e = Error(text, {MakeArg<float>(kF32, {3}, {1, 2, 3})});
  // Rejected when parsed (graph/ir/ops.inc's arity), before refinement.
  EXPECT_NE(e.find("stablehlo.dynamic_broadcast_in_dim expects 2 operands, "
                   "has 1"),
            std::string::npos)
      << e;
}

TEST(RefineShapes, StaticDeclaredDimThatDisagreesIsAnError) {
  const char* text = R"(
func.func @main(%arg0: tensor<?x2xf32>) -> tensor<?x2xf32> {
  %0 = stablehlo.abs %arg0 : tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
})";
  std::string e = Error(text, {MakeArg<float>(kF32, {1, 3}, {1, 2, 3})});
  EXPECT_NE(e.find("argument 0 dim 1 is 2, given 3"), std::string::npos) << e;
}

}  // namespace
