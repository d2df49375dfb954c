// The builder's variadic entry points with a count of 0, -1 or 65 values:
// each call either fails with a status naming the call, or makes an op
// whose program compiles and runs (the verifier's arity table of
// graph/ir/ops.inc accepts what the builder emits). Never a crash; run it
// under --config=asan as well. The text-form twin is
// tests/graph_lowering/arity_sweep_test.cc.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tests/api/builder_testing.h"

namespace {
using namespace hlx_test;
using Comp = std::unique_ptr<hlx_computation_t, ComputationDeleter>;

constexpr int32_t kValues = 65;  // one past the builder's 64-value limit

// kValues f32[2] vectors, kValues f32[] scalars, kValues s32[] indices and
// kValues tokens, all made by one builder.
struct Pool {
  std::vector<uint32_t> vec, scalar, index, token;
  explicit Pool(Builder& bb) {
    for (int32_t i = 0; i < kValues; i++) {
      vec.push_back(bb.F({2}, {1, 2}));
      scalar.push_back(bb.Scalar(F32(), 0));
      index.push_back(bb.Scalar(I32(), 0));
      uint32_t t = HLX_BUILDER_NO_VALUE;
      BOK(hlx_builder_after_all(bb.b, nullptr, 0, &t));
      token.push_back(t);
    }
  }
};

struct Call {
  const char* name;  // how the builder's errors start: "<name>: ..."
  std::function<hlx_status_t(Builder&, const Pool&, hlx_computation_t*,
                             int32_t n, uint32_t*)>
      fn;
};

const std::vector<Call>& Calls() {
  static const std::vector<Call> calls = {
      {"concatenate",
       [](Builder& bb, const Pool& v, hlx_computation_t*, int32_t n,
          uint32_t* o) {
         return hlx_builder_concatenate(bb.b, v.vec.data(), n, 0, o);
       }},
      {"tuple",
       [](Builder& bb, const Pool& v, hlx_computation_t*, int32_t n,
          uint32_t* o) { return hlx_builder_tuple(bb.b, v.vec.data(), n, o); }},
      {"map",
       [](Builder& bb, const Pool& v, hlx_computation_t* c, int32_t n,
          uint32_t* o) {
         return hlx_builder_map(bb.b, v.vec.data(), n, c, nullptr, 0, o);
       }},
      {"sort",
       [](Builder& bb, const Pool& v, hlx_computation_t* c, int32_t n,
          uint32_t* o) {
         return hlx_builder_sort(bb.b, v.vec.data(), n, c, 0, false, o);
       }},
      {"reduce",
       [](Builder& bb, const Pool& v, hlx_computation_t* c, int32_t n,
          uint32_t* o) {
         const int64_t dims[1] = {0};
         return hlx_builder_reduce_variadic(bb.b, v.vec.data(),
                                            v.scalar.data(), n, c, dims, 1, o);
       }},
      {"reduce_window",
       [](Builder& bb, const Pool& v, hlx_computation_t* c, int32_t n,
          uint32_t* o) {
         const int64_t window[1] = {1};
         return hlx_builder_reduce_window_variadic(
             bb.b, v.vec.data(), v.scalar.data(), n, c, window, nullptr,
             nullptr, nullptr, nullptr, o);
       }},
      {"while",
       [](Builder& bb, const Pool& v, hlx_computation_t* c, int32_t n,
          uint32_t* o) {
         return hlx_builder_while(bb.b, c, c, v.vec.data(), n, o);
       }},
      {"case",
       [](Builder& bb, const Pool& v, hlx_computation_t* c, int32_t n,
          uint32_t* o) {
         std::vector<const hlx_computation_t*> branches(kValues, c);
         return hlx_builder_case(bb.b, v.index[0], branches.data(),
                                 v.vec.data(), n, o);
       }},
      {"call",
       [](Builder& bb, const Pool& v, hlx_computation_t* c, int32_t n,
          uint32_t* o) {
         return hlx_builder_call(bb.b, c, v.vec.data(), n, o);
       }},
      {"dynamic_slice",
       [](Builder& bb, const Pool& v, hlx_computation_t*, int32_t n,
          uint32_t* o) {
         const std::vector<int64_t> sizes(kValues, 1);
         return hlx_builder_dynamic_slice(bb.b, v.vec[0], v.index.data(),
                                          sizes.data(), n, o);
       }},
      {"dynamic_update_slice",
       [](Builder& bb, const Pool& v, hlx_computation_t*, int32_t n,
          uint32_t* o) {
         return hlx_builder_dynamic_update_slice(bb.b, v.vec[0], v.vec[1],
                                                 v.index.data(), n, o);
       }},
      {"optimization_barrier",
       [](Builder& bb, const Pool& v, hlx_computation_t*, int32_t n,
          uint32_t* o) {
         return hlx_builder_optimization_barrier(bb.b, v.vec.data(), n, o);
       }},
      {"all_reduce",
       [](Builder& bb, const Pool& v, hlx_computation_t* c, int32_t n,
          uint32_t* o) {
         return hlx_builder_all_reduce_variadic(bb.b, v.vec.data(), n, c,
                                                nullptr, 0, 0, 0, o);
       }},
      {"all_gather",
       [](Builder& bb, const Pool& v, hlx_computation_t*, int32_t n,
          uint32_t* o) {
         return hlx_builder_all_gather_variadic(bb.b, v.vec.data(), n, 0, 1,
                                                nullptr, 0, 0, 0, o);
       }},
      {"reduce_scatter",
       [](Builder& bb, const Pool& v, hlx_computation_t* c, int32_t n,
          uint32_t* o) {
         return hlx_builder_reduce_scatter_variadic(bb.b, v.vec.data(), n, c,
                                                    0, 1, nullptr, 0, 0, 0, o);
       }},
      {"all_to_all",
       [](Builder& bb, const Pool& v, hlx_computation_t*, int32_t n,
          uint32_t* o) {
         return hlx_builder_all_to_all_variadic(bb.b, v.vec.data(), n, 0, 0,
                                                1, nullptr, 0, 0, o);
       }},
      {"after_all",
       [](Builder& bb, const Pool& v, hlx_computation_t*, int32_t n,
          uint32_t* o) {
         return hlx_builder_after_all(bb.b, v.token.data(), n, o);
       }},
      {"custom_call",  // n operands
       [](Builder& bb, const Pool& v, hlx_computation_t*, int32_t n,
          uint32_t* o) {
         hlx_tensor_desc_t d = Desc(F32(), {2});
         return hlx_builder_custom_call(bb.b, "f", v.vec.data(), n, &d, 1,
                                        nullptr, false, o);
       }},
      {"custom_call",  // n results
       [](Builder& bb, const Pool& v, hlx_computation_t*, int32_t n,
          uint32_t* o) {
         std::vector<hlx_tensor_desc_t> d(kValues, Desc(F32(), {2}));
         return hlx_builder_custom_call(bb.b, "f", v.vec.data(), 1, d.data(),
                                        n, nullptr, false, o);
       }},
  };
  return calls;
}

TEST(BuilderArity, VariadicCallsFailNamingTheCallOrCompile) {
  // (x, y) -> x + y over f32[]: the right shape for some calls at some n,
  // the wrong one for the rest, which must say so.
  Comp add(BinaryComputation(HLX_BINARY_ADD, F32()));
  for (const Call& call : Calls())
    for (int32_t n : {0, -1, kValues}) {
      SCOPED_TRACE(std::string(call.name) + " with " + std::to_string(n));
      Builder bb;
      Pool v(bb);
      uint32_t r = HLX_BUILDER_NO_VALUE;
      std::string m = Msg(call.fn(bb, v, add.get(), n, &r));
      if (!m.empty()) {
        EXPECT_EQ(m.rfind(std::string(call.name) + ": ", 0), 0u) << m;
        EXPECT_EQ(r, HLX_BUILDER_NO_VALUE);
        continue;
      }
      hlx_program_t* p = nullptr;
      ASSERT_EQ(Msg(hlx_builder_build(bb.b, &r, 1, &p)), "");
      // The verifier accepts the op's counts; compiling may still fail on
      // a lowering's own limit (concatenate of 65) or, for the custom
      // call, for want of a host function "f", naming the op.
      hlx_executable_t* e = nullptr;
      m = Msg(hlx_executable_create(p, nullptr, &e));
      EXPECT_EQ(m.find(" expects "), std::string::npos) << m;
      if (!m.empty())
        EXPECT_NE(m.find("stablehlo."), std::string::npos) << m;
      hlx_executable_destroy(e);
      hlx_program_destroy(p);
    }
}

// build / build_computation with no, a negative or too many roots.
TEST(BuilderArity, BuildWithWrongRootCountsFails) {
  for (int32_t n : {0, -1}) {
    SCOPED_TRACE(n);
    Builder bb;
    uint32_t x = bb.F({2}, {1, 2});
    hlx_program_t* p = nullptr;
    std::string m = Msg(hlx_builder_build(bb.b, &x, n, &p));
    EXPECT_EQ(m.rfind("build: ", 0), 0u) << m;
    EXPECT_EQ(p, nullptr);
    hlx_computation_t* c = nullptr;
    m = Msg(hlx_builder_build_computation(bb.b, &x, n, &c));
    EXPECT_NE(m, "");
    EXPECT_EQ(c, nullptr);
  }
}

}  // namespace
