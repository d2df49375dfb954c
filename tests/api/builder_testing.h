// Helpers shared by the builder op-family tests (tests/api/builder_*_test.cc):
// a builder wrapper, computations, running a built program, buffers.
#ifndef HLX_TESTS_API_BUILDER_TESTING_H_
#define HLX_TESTS_API_BUILDER_TESTING_H_

#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "api/hlx.h"
#include "api/internal.h"  // hlx_program_t::module, for hlx_module_equal
#include "tests/api/api_testing.h"
#include "graph/ir/ir_equal.h"

namespace hlx_test {

inline hlx_element_type_t F32() { return hlx_element_type_from_name("f32"); }
inline hlx_element_type_t I32() { return hlx_element_type_from_name("i32"); }
inline hlx_element_type_t Pred() { return hlx_element_type_from_name("i1"); }

inline hlx_tensor_desc_t Desc(hlx_element_type_t t, std::vector<int64_t> dims) {
  hlx_tensor_desc_t d = {};
  d.element_type = t;
  d.rank = (int32_t)dims.size();
  for (size_t i = 0; i < dims.size(); i++) d.dims[i] = dims[i];
  return d;
}

#define BOK(call) EXPECT_EQ(::hlx_test::Msg(call), "")

struct Builder {
  hlx_builder_t* b = nullptr;
  explicit Builder(const char* name = "main") {
    EXPECT_EQ(Msg(hlx_builder_create(name, &b)), "");
  }
  ~Builder() { hlx_builder_destroy(b); }
  template <typename T>
  uint32_t Const(hlx_element_type_t t, std::vector<int64_t> dims,
                 const std::vector<T>& v) {
    hlx_tensor_desc_t d = Desc(t, dims);
    uint32_t id = HLX_BUILDER_NO_VALUE;
    BOK(hlx_builder_constant(b, &d, v.data(), &id));
    return id;
  }
  uint32_t F(std::vector<int64_t> dims, const std::vector<float>& v) {
    return Const(F32(), dims, v);
  }
  uint32_t I(std::vector<int64_t> dims, const std::vector<int32_t>& v) {
    return Const(I32(), dims, v);
  }
  uint32_t Scalar(hlx_element_type_t t, double v) {
    uint32_t id = HLX_BUILDER_NO_VALUE;
    BOK(hlx_builder_constant_scalar(b, t, v, &id));
    return id;
  }
  uint32_t Param(int32_t i, hlx_element_type_t t, std::vector<int64_t> dims,
                 const char* name = nullptr) {
    hlx_tensor_desc_t d = Desc(t, dims);
    uint32_t id = HLX_BUILDER_NO_VALUE;
    BOK(hlx_builder_parameter(b, i, &d, name, &id));
    return id;
  }
  // bd: XLA broadcast_dimensions (empty: none).
  uint32_t Bin(hlx_binary_op_t op, uint32_t l, uint32_t r,
               std::vector<int64_t> bd = {}) {
    uint32_t id = HLX_BUILDER_NO_VALUE;
    BOK(hlx_builder_binary(b, op, l, r, bd.data(), (int32_t)bd.size(), &id));
    return id;
  }
  uint32_t Cmp(hlx_comparison_direction_t d, uint32_t l, uint32_t r) {
    uint32_t id = HLX_BUILDER_NO_VALUE;
    BOK(hlx_builder_compare(b, d, l, r, nullptr, 0, &id));
    return id;
  }
  uint32_t Gte(uint32_t t, int32_t i) {
    uint32_t id = HLX_BUILDER_NO_VALUE;
    BOK(hlx_builder_get_tuple_element(b, t, i, &id));
    return id;
  }
  hlx_computation_t* Computation(std::vector<uint32_t> roots) {
    hlx_computation_t* c = nullptr;
    BOK(hlx_builder_build_computation(b, roots.data(), (int32_t)roots.size(),
                                      &c));
    return c;
  }
  hlx_program_t* Program(std::vector<uint32_t> roots) {
    hlx_program_t* p = nullptr;
    BOK(hlx_builder_build(b, roots.data(), (int32_t)roots.size(), &p));
    return p;
  }
};

// (x, y) -> x op y over rank-0 t.
inline hlx_computation_t* BinaryComputation(hlx_binary_op_t op,
                                            hlx_element_type_t t) {
  Builder sb("binary");
  uint32_t x = sb.Param(0, t, {}), y = sb.Param(1, t, {});
  return sb.Computation({sb.Bin(op, x, y)});
}

// (x, y) -> x dir y over rank-0 t.
inline hlx_computation_t* CompareComputation(hlx_comparison_direction_t dir,
                                             hlx_element_type_t t) {
  Builder sb("compare");
  uint32_t x = sb.Param(0, t, {}), y = sb.Param(1, t, {});
  return sb.Computation({sb.Cmp(dir, x, y)});
}

struct ComputationDeleter {
  void operator()(hlx_computation_t* c) const { hlx_computation_destroy(c); }
};

inline hlx_buffer_t* Buf(hlx_element_type_t t, std::vector<int64_t> dims,
                         const void* data) {
  hlx_tensor_desc_t d = Desc(t, dims);
  hlx_buffer_t* b = nullptr;
  EXPECT_EQ(Msg(hlx_buffer_create(&d, data, &b)), "");
  return b;
}

inline hlx_buffer_t* BufF(std::vector<int64_t> dims,
                          const std::vector<float>& v) {
  return Buf(F32(), dims, v.data());
}

// Compiles (num_replicas processes) and runs p; takes the params (not the
// program); returns the result buffers (caller destroys; empty on error).
inline std::vector<hlx_buffer_t*> RunKeep(
    const hlx_program_t* p, std::vector<hlx_buffer_t*> params = {},
    int32_t num_replicas = 1) {
  std::vector<hlx_buffer_t*> out;
  if (!p) return out;
  hlx_compile_options_t o;
  hlx_compile_options_init(&o);
  o.num_replicas = num_replicas;
  hlx_executable_t* e = nullptr;
  std::string m = Msg(hlx_executable_create(p, &o, &e));
  EXPECT_EQ(m, "");
  if (e) {
    int32_t np = hlx_executable_num_processes(e);
    out.assign((size_t)(hlx_executable_num_results(e) * np), nullptr);
    if (num_replicas > 1)
      EXPECT_EQ(Msg(hlx_executable_run_replicated(
                    e, params.data(), (int32_t)params.size(), out.data(),
                    (int32_t)out.size())),
                "");
    else
      EXPECT_EQ(Msg(hlx_executable_run(e, params.data(),
                                       (int32_t)params.size(), out.data(),
                                       (int32_t)out.size())),
                "");
    hlx_executable_destroy(e);
  }
  for (hlx_buffer_t* b : params) hlx_buffer_destroy(b);
  return out;
}

// RunKeep, then destroys the program too.
inline std::vector<hlx_buffer_t*> RunAll(hlx_program_t* p,
                                         std::vector<hlx_buffer_t*> params = {},
                                         int32_t num_replicas = 1) {
  std::vector<hlx_buffer_t*> out = RunKeep(p, params, num_replicas);
  hlx_program_destroy(p);
  return out;
}

// The buffer's elements as T; destroys the buffer.
template <typename T>
std::vector<T> Values(hlx_buffer_t* b) {
  if (!b) return {};
  const T* p = static_cast<const T*>(hlx_buffer_data(b));
  std::vector<T> v(p, p + hlx_buffer_bytes(b) / sizeof(T));
  hlx_buffer_destroy(b);
  return v;
}

template <typename T>
std::vector<T> RunOne(hlx_program_t* p, std::vector<hlx_buffer_t*> params = {}) {
  std::vector<hlx_buffer_t*> out = RunAll(p, params);
  if (out.size() != 1) {
    ADD_FAILURE() << "expected one result, got " << out.size();
    for (hlx_buffer_t* b : out) hlx_buffer_destroy(b);
    return {};
  }
  return Values<T>(out[0]);
}

// Printing p and parsing the text back gives an equal module (the same
// ops, attributes and types as the builder made) and the same text.
inline void ExpectPrintParses(const hlx_program_t* p) {
  char* text = nullptr;
  size_t len = 0;
  ASSERT_EQ(Msg(hlx_program_print(p, &text, &len)), "");
  hlx_program_t* q = nullptr;
  ASSERT_EQ(Msg(hlx_program_parse(text, len, "built.mlir", 1, &q)), "") << text;
  char why[256] = "";
  EXPECT_TRUE(hlx_module_equal(p->module, q->module, why, sizeof why))
      << why << "\n" << text;
  char* text2 = nullptr;
  ASSERT_EQ(Msg(hlx_program_print(q, &text2, nullptr)), "");
  EXPECT_STREQ(text, text2);
  free(text);
  free(text2);
  hlx_program_destroy(q);
}

// The shape of value v.
inline std::vector<int64_t> Dims(hlx_builder_t* b, uint32_t v) {
  hlx_tensor_desc_t d;
  if (Msg(hlx_builder_get_desc(b, v, &d)) != "") return {-1};
  return std::vector<int64_t>(d.dims, d.dims + d.rank);
}

// Expects the call failed with a message containing `part`, that the
// error is latched (a later op returns it) and that build returns it.
inline void ExpectLatched(Builder& bb, hlx_status_t s, const std::string& part) {
  std::string m = Msg(s);
  EXPECT_NE(m.find(part), std::string::npos) << m;
  uint32_t id = 0;
  EXPECT_EQ(Msg(hlx_builder_constant_scalar(bb.b, F32(), 1.0, &id)), m);
  EXPECT_EQ(id, HLX_BUILDER_NO_VALUE);
  hlx_program_t* p = nullptr;
  EXPECT_EQ(Msg(hlx_builder_build(bb.b, &id, 1, &p)), m);
  EXPECT_EQ(p, nullptr);
}

// Runs f on a fresh builder; expects it to fail with `want` latched.
inline void ExpectOpError(
    const std::function<hlx_status_t(Builder&, uint32_t*)>& f,
    const std::string& want) {
  Builder bb;
  uint32_t r;
  ExpectLatched(bb, f(bb, &r), want);
}

}  // namespace hlx_test

#endif  // HLX_TESTS_API_BUILDER_TESTING_H_
