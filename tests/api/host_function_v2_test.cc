// Version-2 host functions: a JAX-style FFI custom call written against
// the public API (descriptions, declared layouts, typed attributes), the
// older string backend_config, version-1 functions beside them, the
// registry, and errors as statuses naming the target.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "api/hlx.h"
#include "tests/api/api_testing.h"

namespace {

using hlx_test::Compile;
using hlx_test::Compiled;
using hlx_test::F32Desc;
using hlx_test::Msg;

// What the host function saw, checked by the tests after the run.
struct Seen {
  std::string target;
  std::vector<hlx_host_buffer_t> operands, results;
  std::vector<float> a_as_passed;  // operand 0's bytes in its layout
  std::string error;               // the first attribute read that failed
  std::vector<std::string> names;  // the FFI attributes' names
  std::vector<hlx_attrs_type_t> types;
  int64_t mode = 0, uplo = 0, count = 0, depth = 0;
  hlx_element_type_t mode_type = 0, alpha_type = 0;
  double alpha = 0, beta = 0;
  bool flag = false;
  std::string name;
  std::vector<int64_t> dims, list;
  std::vector<double> weights, table;
  std::vector<std::string> strings;
  int64_t api_version = 0;
  bool side_effect = true;
};

void Note(Seen* s, hlx_status_t st) {
  if (st && s->error.empty()) s->error = hlx_status_get_message(st);
  hlx_status_release(st);
}

// The call of kFfiProgram: r = alpha * a + b (broadcast over rows) with a
// and r column-major as operand_layouts / result_layouts declare, and
// info = mode * 1000 + uplo. Records every description and attribute.
hlx_status_t ColMajorScale(void* user, const hlx_host_call_t* call) {
  Seen* s = static_cast<Seen*>(user);
  s->target = hlx_host_call_target(call);
  for (int32_t i = 0; i < hlx_host_call_num_operands(call); i++) {
    hlx_host_buffer_t b;
    Note(s, hlx_host_call_operand(call, i, &b));
    s->operands.push_back(b);
  }
  for (int32_t i = 0; i < hlx_host_call_num_results(call); i++) {
    hlx_host_buffer_t b;
    Note(s, hlx_host_call_result(call, i, &b));
    s->results.push_back(b);
  }
  const hlx_attrs_t* at = hlx_host_call_attrs(call);
  for (int32_t i = 0; i < hlx_attrs_count(at); i++) {
    s->names.push_back(hlx_attrs_name_at(at, i));
    s->types.push_back(hlx_attrs_type(at, hlx_attrs_name_at(at, i)));
  }
  Note(s, hlx_attrs_get_int(at, "mode", &s->mode));
  Note(s, hlx_attrs_get_int(at, "uplo", &s->uplo));
  Note(s, hlx_attrs_get_int(at, "count", &s->count));
  s->mode_type = hlx_attrs_element_type(at, "mode");
  s->alpha_type = hlx_attrs_element_type(at, "alpha");
  Note(s, hlx_attrs_get_float(at, "alpha", &s->alpha));
  Note(s, hlx_attrs_get_float(at, "beta", &s->beta));
  Note(s, hlx_attrs_get_bool(at, "flag", &s->flag));
  const char* str = nullptr;
  size_t len = 0;
  Note(s, hlx_attrs_get_string(at, "name", &str, &len));
  if (str) s->name.assign(str, len);
  const int64_t* iv = nullptr;
  const double* fv = nullptr;
  const char* const* sv = nullptr;
  int64_t n = 0;
  Note(s, hlx_attrs_get_int_array(at, "dims", &iv, &n));
  s->dims.assign(iv, iv + n);
  Note(s, hlx_attrs_get_int_array(at, "list", &iv, &n));
  s->list.assign(iv, iv + n);
  Note(s, hlx_attrs_get_float_array(at, "weights", &fv, &n));
  s->weights.assign(fv, fv + n);
  Note(s, hlx_attrs_get_float_array(at, "table", &fv, &n));
  s->table.assign(fv, fv + n);
  Note(s, hlx_attrs_get_string_array(at, "names", &sv, &n));
  for (int64_t k = 0; k < n; k++) s->strings.push_back(sv[k]);
  const hlx_attrs_t* nested = nullptr;
  Note(s, hlx_attrs_get_dict(at, "nested", &nested));
  Note(s, hlx_attrs_get_int(nested, "depth", &s->depth));
  const hlx_attrs_t* op = hlx_host_call_op_attrs(call);
  Note(s, hlx_attrs_get_int(op, "api_version", &s->api_version));
  Note(s, hlx_attrs_get_bool(op, "has_side_effect", &s->side_effect));
  if (!s->error.empty()) return hlx_status_create(1, s->error.c_str());

  hlx_host_buffer_t a, b, r, info;
  hlx_host_call_operand(call, 0, &a);
  hlx_host_call_operand(call, 1, &b);
  hlx_host_call_result(call, 0, &r);
  hlx_host_call_result(call, 1, &info);
  const float* ad = static_cast<const float*>(a.data);
  s->a_as_passed.assign(ad, ad + 6);
  const float* bd = static_cast<const float*>(b.data);
  float* rd = static_cast<float*>(r.data);
  int64_t rows = a.desc.dims[0], cols = a.desc.dims[1];
  for (int64_t j = 0; j < cols; j++)  // column-major: element (i, j) at j*rows+i
    for (int64_t i = 0; i < rows; i++)
      rd[j * rows + i] = static_cast<float>(s->alpha) * ad[j * rows + i] + bd[j];
  *static_cast<int32_t*>(info.data) = static_cast<int32_t>(s->mode * 1000 + s->uplo);
  return nullptr;
}

const char kFfiProgram[] = R"(
  func.func @main(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<i32>) {
    %0:2 = stablehlo.custom_call @my.colmajor_scale(%a, %b) {
      api_version = 4 : i32,
      mhlo.backend_config = {alpha = 2.5 : f32, beta = 0.5 : f64, count = -7 : i64,
        dims = array<i64: 2, 3>, flag = true, list = [1, 2, 3], mode = 86 : ui8,
        name = "scale", names = ["x", "y"], nested = {depth = 3 : i32},
        table = dense<[1.0, 2.0]> : tensor<2xf64>, uplo = 76 : ui8,
        weights = array<f32: 0.5, 1.5>},
      operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>],
      result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]
    } : (tensor<2x3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<i32>)
    return %0#0, %0#1 : tensor<2x3xf32>, tensor<i32>
  })";

// Compiles text with fns (version 2) on the calling thread.
std::string CompileV2(const char* text, const hlx_host_function_v2_t* fns,
                      int32_t n, Compiled* c) {
  hlx_compile_options_t o;
  hlx_compile_options_init(&o);
  o.num_threads = 1;
  o.host_functions_v2 = fns;
  o.num_host_functions_v2 = n;
  return Compile(text, &o, c);
}

// Runs c on row-major f32 parameters; fills the result buffers.
std::string RunF32(const Compiled& c, const std::vector<std::vector<float>>& in,
                const std::vector<hlx_tensor_desc_t>& descs,
                std::vector<hlx_buffer_t*>* out) {
  std::vector<hlx_buffer_t*> params;
  for (size_t i = 0; i < in.size(); i++) {
    hlx_buffer_t* b = nullptr;
    EXPECT_EQ(Msg(hlx_buffer_create(&descs[i], in[i].data(), &b)), "");
    params.push_back(b);
  }
  out->assign(hlx_executable_num_results(c.exe), nullptr);
  std::string err = Msg(hlx_executable_run(c.exe, params.data(),
                                           static_cast<int32_t>(params.size()),
                                           out->data(),
                                           static_cast<int32_t>(out->size())));
  for (hlx_buffer_t* b : params) hlx_buffer_destroy(b);
  return err;
}

void Destroy(std::vector<hlx_buffer_t*>* bufs) {
  for (hlx_buffer_t* b : *bufs) hlx_buffer_destroy(b);
  bufs->clear();
}

TEST(HostFunctionV2, JaxStyleFfiCallSeesDescriptionsLayoutsAndAttributes) {
  Seen seen;
  hlx_host_function_v2_t fn = {"my.colmajor_scale", ColMajorScale, &seen};
  Compiled c;
  ASSERT_EQ(CompileV2(kFfiProgram, &fn, 1, &c), "");
  std::vector<hlx_buffer_t*> out;
  ASSERT_EQ(RunF32(c, {{1, 2, 3, 4, 5, 6}, {10, 20, 30}},
                {F32Desc({2, 3}), F32Desc({3})}, &out),
            "");
  EXPECT_EQ(seen.error, "");
  EXPECT_EQ(seen.target, "my.colmajor_scale");
  // Descriptions: element types, ranks, dims, layouts, sizes.
  ASSERT_EQ(seen.operands.size(), 2u);
  ASSERT_EQ(seen.results.size(), 2u);
  const hlx_host_buffer_t& a = seen.operands[0];
  EXPECT_EQ(a.desc.element_type, hlx_element_type_from_name("f32"));
  EXPECT_EQ(a.desc.rank, 2);
  EXPECT_EQ(a.desc.dims[0], 2);
  EXPECT_EQ(a.desc.dims[1], 3);
  EXPECT_EQ(a.minor_to_major[0], 0);  // column-major, as declared
  EXPECT_EQ(a.minor_to_major[1], 1);
  EXPECT_EQ(a.bytes, 24u);
  EXPECT_EQ(seen.operands[1].desc.rank, 1);
  EXPECT_EQ(seen.operands[1].minor_to_major[0], 0);
  EXPECT_EQ(seen.results[0].minor_to_major[0], 0);
  EXPECT_EQ(seen.results[0].minor_to_major[1], 1);
  EXPECT_EQ(seen.results[1].desc.element_type, hlx_element_type_from_name("i32"));
  EXPECT_EQ(seen.results[1].desc.rank, 0);
  EXPECT_EQ(seen.results[1].bytes, 4u);
  // The row-major parameter [[1,2,3],[4,5,6]] arrived column-major.
  EXPECT_EQ(seen.a_as_passed, (std::vector<float>{1, 4, 2, 5, 3, 6}));
  // Attributes of every type.
  EXPECT_EQ(seen.names.size(), 13u);
  EXPECT_EQ(seen.names[0], "alpha");
  EXPECT_EQ(seen.types[0], HLX_ATTRS_FLOAT);
  EXPECT_EQ(seen.mode, 86);
  EXPECT_EQ(seen.uplo, 76);
  EXPECT_EQ(seen.mode_type, hlx_element_type_from_name("ui8"));
  EXPECT_EQ(seen.count, -7);
  EXPECT_EQ(seen.alpha, 2.5);
  EXPECT_EQ(seen.alpha_type, hlx_element_type_from_name("f32"));
  EXPECT_EQ(seen.beta, 0.5);
  EXPECT_TRUE(seen.flag);
  EXPECT_EQ(seen.name, "scale");
  EXPECT_EQ(seen.dims, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(seen.list, (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(seen.weights, (std::vector<double>{0.5, 1.5}));
  EXPECT_EQ(seen.table, (std::vector<double>{1.0, 2.0}));
  EXPECT_EQ(seen.strings, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(seen.depth, 3);
  EXPECT_EQ(seen.api_version, 4);
  EXPECT_FALSE(seen.side_effect);  // the default
  // The column-major result came back row-major.
  ASSERT_EQ(out.size(), 2u);
  const float* r = static_cast<const float*>(hlx_buffer_data(out[0]));
  EXPECT_EQ(std::vector<float>(r, r + 6),
            (std::vector<float>{12.5, 25, 37.5, 20, 32.5, 45}));
  EXPECT_EQ(*static_cast<const int32_t*>(hlx_buffer_data(out[1])), 86076);
  Destroy(&out);
}

// An older call: string backend_config, called_computations,
// has_side_effect; no layouts (row-major); no FFI attributes.
hlx_status_t LegacyCall(void* user, const hlx_host_call_t* call) {
  std::string* log = static_cast<std::string*>(user);
  const hlx_attrs_t* op = hlx_host_call_op_attrs(call);
  const char* cfg = nullptr;
  size_t len = 0;
  if (hlx_status_t s = hlx_attrs_get_string(op, "backend_config", &cfg, &len))
    return s;
  const char* const* called = nullptr;
  int64_t n = 0;
  if (hlx_status_t s = hlx_attrs_get_string_array(op, "called_computations",
                                                  &called, &n))
    return s;
  bool side = false;
  if (hlx_status_t s = hlx_attrs_get_bool(op, "has_side_effect", &side))
    return s;
  int64_t api = 0;
  if (hlx_status_t s = hlx_attrs_get_int(op, "api_version", &api)) return s;
  const char* target = nullptr;
  if (hlx_status_t s = hlx_attrs_get_string(op, "call_target_name", &target,
                                            nullptr))
    return s;
  *log = std::string(cfg, len) + "|" + (n ? called[0] : "") + "|" +
         (side ? "side" : "pure") + "|" + std::to_string(api) + "|" +
         std::to_string(hlx_attrs_count(hlx_host_call_attrs(call))) + "|" +
         target;
  hlx_host_buffer_t x, y;
  hlx_host_call_operand(call, 0, &x);
  hlx_host_call_result(call, 0, &y);
  if (x.minor_to_major[0] != 1 || x.minor_to_major[1] != 0)
    return hlx_status_create(1, "legacy: expected row-major");
  std::memcpy(y.data, x.data, x.bytes);
  static_cast<float*>(y.data)[0] += 100;
  return nullptr;
}

TEST(HostFunctionV2, OlderCallsGetTheirStringConfigAndOpAttributes) {
  std::string log;
  hlx_host_function_v2_t fn = {"legacy", LegacyCall, &log};
  Compiled c;
  ASSERT_EQ(CompileV2(R"(
    func.func private @helper(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
      return %x : tensor<2x2xf32>
    }
    func.func @main(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
      %0 = stablehlo.custom_call @legacy(%x) {backend_config = "opaque\00bytes",
        called_computations = [@helper], has_side_effect = true, api_version = 2 : i32}
        : (tensor<2x2xf32>) -> tensor<2x2xf32>
      return %0 : tensor<2x2xf32>
    })", &fn, 1, &c), "");
  std::vector<hlx_buffer_t*> out;
  ASSERT_EQ(RunF32(c, {{1, 2, 3, 4}}, {F32Desc({2, 2})}, &out), "");
  EXPECT_EQ(log, std::string("opaque\0bytes", 12) + "|helper|side|2|0|legacy");
  const float* y = static_cast<const float*>(hlx_buffer_data(out[0]));
  EXPECT_EQ(std::vector<float>(y, y + 4), (std::vector<float>{101, 2, 3, 4}));
  Destroy(&out);
}

// Version 1 beside version 2 in one executable.
hlx_status_t AddOneV1(void*, const void* const* in, int32_t, void* const* out,
                      int32_t, const char*) {
  for (int i = 0; i < 2; i++)
    static_cast<float*>(out[0])[i] = static_cast<const float*>(in[0])[i] + 1;
  return nullptr;
}

hlx_status_t DoubleV2(void*, const hlx_host_call_t* call) {
  hlx_host_buffer_t x, y;
  if (hlx_status_t s = hlx_host_call_operand(call, 0, &x)) return s;
  if (hlx_status_t s = hlx_host_call_result(call, 0, &y)) return s;
  for (int i = 0; i < 2; i++)
    static_cast<float*>(y.data)[i] = 2 * static_cast<const float*>(x.data)[i];
  return nullptr;
}

const char kBothProgram[] = R"(
  func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.custom_call @add_one(%x) : (tensor<2xf32>) -> tensor<2xf32>
    %1 = stablehlo.custom_call @double(%0) : (tensor<2xf32>) -> tensor<2xf32>
    return %1 : tensor<2xf32>
  })";

// Compiles kBothProgram with one function of each version.
std::string CompileBoth(const char* v1_name, const char* v2_name,
                        Compiled* c) {
  hlx_host_function_t v1 = {v1_name, AddOneV1, nullptr};
  hlx_host_function_v2_t v2 = {v2_name, DoubleV2, nullptr};
  hlx_compile_options_t o;
  hlx_compile_options_init(&o);
  o.host_functions = &v1;
  o.num_host_functions = 1;
  o.host_functions_v2 = &v2;
  o.num_host_functions_v2 = 1;
  return Compile(kBothProgram, &o, c);
}

TEST(HostFunctionV2, VersionOneFunctionsAreStillServed) {
  Compiled c;
  ASSERT_EQ(CompileBoth("add_one", "double", &c), "");
  std::vector<hlx_buffer_t*> out;
  ASSERT_EQ(RunF32(c, {{1, 2}}, {F32Desc({2})}, &out), "");
  const float* y = static_cast<const float*>(hlx_buffer_data(out[0]));
  EXPECT_EQ(y[0], 4);
  EXPECT_EQ(y[1], 6);
  Destroy(&out);
}

// Tuples are flattened into their leaves; a token is an empty pred[0].
hlx_status_t Flat(void* user, const hlx_host_call_t* call) {
  std::string* log = static_cast<std::string*>(user);
  for (int32_t i = 0; i < hlx_host_call_num_operands(call); i++) {
    hlx_host_buffer_t b;
    if (hlx_status_t s = hlx_host_call_operand(call, i, &b)) return s;
    *log += std::string(hlx_element_type_name(b.desc.element_type)) + "[" +
            std::to_string(b.desc.dims[0]) + "]" + (b.data ? "+" : "-") + " ";
  }
  *log += "->";
  hlx_host_buffer_t r0, r1;
  if (hlx_status_t s = hlx_host_call_result(call, 0, &r0)) return s;
  if (hlx_status_t s = hlx_host_call_result(call, 1, &r1)) return s;
  *log += " " + std::to_string(hlx_host_call_num_results(call)) + " " +
          hlx_element_type_name(r1.desc.element_type);
  hlx_host_buffer_t x;
  if (hlx_status_t s = hlx_host_call_operand(call, 0, &x)) return s;
  std::memcpy(r0.data, x.data, r0.bytes);
  *static_cast<int32_t*>(r1.data) = 7;
  return nullptr;
}

TEST(HostFunctionV2, TuplesAreFlattenedAndTokensAreEmpty) {
  std::string log;
  hlx_host_function_v2_t fn = {"flat", Flat, &log};
  Compiled c;
  ASSERT_EQ(CompileV2(R"(
    func.func @main(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<i32>) {
      %t = stablehlo.after_all : !stablehlo.token
      %0 = stablehlo.custom_call @flat(%x, %t) {has_side_effect = true}
        : (tensor<2xf32>, !stablehlo.token) -> tuple<tensor<2xf32>, tensor<i32>>
      %1 = stablehlo.get_tuple_element %0[0] : (tuple<tensor<2xf32>, tensor<i32>>) -> tensor<2xf32>
      %2 = stablehlo.get_tuple_element %0[1] : (tuple<tensor<2xf32>, tensor<i32>>) -> tensor<i32>
      return %1, %2 : tensor<2xf32>, tensor<i32>
    })", &fn, 1, &c), "");
  std::vector<hlx_buffer_t*> out;
  ASSERT_EQ(RunF32(c, {{3, 4}}, {F32Desc({2})}, &out), "");
  EXPECT_EQ(log, "f32[2]+ i1[0]- -> 2 i32");
  EXPECT_EQ(static_cast<const float*>(hlx_buffer_data(out[0]))[1], 4);
  EXPECT_EQ(*static_cast<const int32_t*>(hlx_buffer_data(out[1])), 7);
  Destroy(&out);
}

TEST(HostFunctionV2, ANameInBothListsIsAnError) {
  Compiled c;
  EXPECT_NE(CompileBoth("double", "double", &c)
                .find("'double' is registered twice"),
            std::string::npos);
}

// Reads one attribute the call does not have in the requested form.
hlx_status_t ReadsBadly(void* user, const hlx_host_call_t* call) {
  const std::string& what = *static_cast<std::string*>(user);
  const hlx_attrs_t* at = hlx_host_call_attrs(call);
  int64_t i;
  double f;
  const hlx_attrs_t* d;
  if (what == "missing") return hlx_attrs_get_int(at, "lower", &i);
  if (what == "wrong type") return hlx_attrs_get_int(at, "name", &i);
  if (what == "int as float") return hlx_attrs_get_float(at, "mode", &f);
  if (what == "nested") {
    if (hlx_status_t s = hlx_attrs_get_dict(at, "nested", &d)) return s;
    return hlx_attrs_get_float(d, "depth", &f);
  }
  if (what == "operand") {
    hlx_host_buffer_t b;
    return hlx_host_call_operand(call, 5, &b);
  }
  return hlx_attrs_get_int(nullptr, "mode", &i);
}

TEST(HostFunctionV2, AttributeErrorsAreStatusesNamingTheTarget) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"missing",
       "my.colmajor_scale: mhlo.backend_config has no attribute 'lower' "
       "(it has: alpha, beta, count,"},
      {"wrong type",
       "my.colmajor_scale: attribute 'name' of mhlo.backend_config is a "
       "string, not an integer"},
      {"int as float",
       "attribute 'mode' of mhlo.backend_config is an integer, not a float"},
      {"nested",
       "attribute 'depth' of mhlo.backend_config.nested is an integer"},
      {"operand",
       "my.colmajor_scale: hlx_host_call_operand: no operand #5 (the call "
       "has 2)"},
      {"null", "hlx_attrs_get_int: attrs, name or the output is NULL"},
  };
  for (const auto& [what, want] : cases) {
    std::string mode = what;
    hlx_host_function_v2_t fn = {"my.colmajor_scale", ReadsBadly, &mode};
    Compiled c;
    ASSERT_EQ(CompileV2(kFfiProgram, &fn, 1, &c), "");
    std::vector<hlx_buffer_t*> out;
    std::string err = RunF32(c, {{1, 2, 3, 4, 5, 6}, {1, 2, 3}},
                          {F32Desc({2, 3}), F32Desc({3})}, &out);
    EXPECT_NE(err.find(want), std::string::npos) << what << ": " << err;
    EXPECT_NE(err.find("stablehlo.custom_call"), std::string::npos) << err;
    Destroy(&out);
  }
}

TEST(HostFunctionV2, BadLayoutsFailTheCompileNamingTheTarget) {
  Seen seen;
  hlx_host_function_v2_t fn = {"my.colmajor_scale", ColMajorScale, &seen};
  std::string text = kFfiProgram;
  text.replace(text.find("dense<[0, 1]>"), 13, "dense<[0, 0]>");
  Compiled c;
  std::string err = CompileV2(text.c_str(), &fn, 1, &c);
  EXPECT_NE(err.find("my.colmajor_scale: operand_layouts entry #0 is not a "
                     "permutation"),
            std::string::npos)
      << err;
}

TEST(HostFunctionRegistry, AddsListsAndRejectsDuplicates) {
  hlx_host_function_registry_t* r = nullptr;
  ASSERT_EQ(Msg(hlx_host_function_registry_create(&r)), "");
  hlx_host_function_v2_t a = {"a", DoubleV2, nullptr};
  hlx_host_function_v2_t b = {"b", DoubleV2, &a};
  EXPECT_EQ(Msg(hlx_host_function_registry_add(r, &a)), "");
  EXPECT_EQ(Msg(hlx_host_function_registry_add(r, &b)), "");
  EXPECT_NE(Msg(hlx_host_function_registry_add(r, &a)).find("'a' is registered "
                                                          "already"),
            std::string::npos);
  hlx_host_function_v2_t none = {"c", nullptr, nullptr};
  EXPECT_NE(Msg(hlx_host_function_registry_add(r, &none)), "");
  int32_t n = 0;
  const hlx_host_function_v2_t* fns = hlx_host_function_registry_functions(r, &n);
  ASSERT_EQ(n, 2);
  EXPECT_STREQ(fns[0].name, "a");
  EXPECT_STREQ(fns[1].name, "b");
  EXPECT_EQ(fns[1].user, &a);
  hlx_host_function_registry_destroy(r);
  EXPECT_NE(Msg(hlx_host_function_registry_create(nullptr)), "");
}

}  // namespace
