// Builder RngUniform, RngNormal, RngBitGenerator (api/hlx_builder_ops.h):
// shapes, ranges, determinism of the bit generator; error rules.
#include <cmath>
#include <functional>

#include "tests/api/builder_testing.h"

namespace {
using namespace hlx_test;

hlx_element_type_t U64() { return hlx_element_type_from_name("ui64"); }
hlx_element_type_t U32() { return hlx_element_type_from_name("ui32"); }

TEST(BuilderRng, UniformInRangeNormalMoments) {
  Builder bb;
  hlx_tensor_desc_t d = Desc(F32(), {64, 64});
  uint32_t u, n;
  BOK(hlx_builder_rng_uniform(bb.b, bb.Scalar(F32(), -2), bb.Scalar(F32(), 3), &d, &u));
  BOK(hlx_builder_rng_normal(bb.b, bb.Scalar(F32(), 10), bb.Scalar(F32(), 2), &d, &n));
  EXPECT_EQ(Dims(bb.b, u), (std::vector<int64_t>{64, 64}));
  hlx_program_t* p = bb.Program({u, n});
  ExpectPrintParses(p);
  std::vector<hlx_buffer_t*> out = RunAll(p);
  ASSERT_EQ(out.size(), 2u);
  std::vector<float> uv = Values<float>(out[0]), nv = Values<float>(out[1]);
  ASSERT_EQ(uv.size(), 4096u);
  double um = 0, nm = 0, nvar = 0;
  for (float v : uv) {
    EXPECT_GE(v, -2.f);
    EXPECT_LT(v, 3.f);
    um += v;
  }
  for (float v : nv) nm += v;
  nm /= 4096;
  for (float v : nv) nvar += (v - nm) * (v - nm);
  nvar /= 4096;
  EXPECT_NEAR(um / 4096, 0.5, 0.15);
  EXPECT_NEAR(nm, 10, 0.2);
  EXPECT_NEAR(std::sqrt(nvar), 2, 0.2);
}

TEST(BuilderRng, BitGeneratorIsAFunctionOfTheState) {
  for (hlx_rng_algorithm_t alg : {HLX_RNG_THREE_FRY, HLX_RNG_PHILOX, HLX_RNG_DEFAULT}) {
    Builder bb;
    uint32_t s0 = bb.Const(U64(), {2}, std::vector<uint64_t>{1, 2});
    hlx_tensor_desc_t d = Desc(U32(), {3, 5});
    uint32_t t1, t2, t3;
    BOK(hlx_builder_rng_bit_generator(bb.b, alg, s0, &d, &t1));
    BOK(hlx_builder_rng_bit_generator(bb.b, alg, s0, &d, &t2));
    BOK(hlx_builder_rng_bit_generator(bb.b, alg, bb.Gte(t1, 0), &d, &t3));
    hlx_program_t* p = bb.Program({bb.Gte(t1, 1), bb.Gte(t2, 1), bb.Gte(t3, 1),
                                   bb.Gte(t1, 0)});
    ExpectPrintParses(p);
    std::vector<hlx_buffer_t*> out = RunAll(p);
    ASSERT_EQ(out.size(), 4u);
    std::vector<uint32_t> a = Values<uint32_t>(out[0]), b = Values<uint32_t>(out[1]);
    std::vector<uint32_t> c = Values<uint32_t>(out[2]);
    std::vector<uint64_t> st = Values<uint64_t>(out[3]);
    EXPECT_EQ(a.size(), 15u);
    EXPECT_EQ(a, b);  // same state, same bits
    EXPECT_NE(a, c);  // the new state gives new bits
    EXPECT_NE(st, (std::vector<uint64_t>{1, 2}));
  }
}

TEST(BuilderRngErrors, EachRuleIsLatched) {
  const auto check = ExpectOpError;
  check([](Builder& bb, uint32_t* o) {
    hlx_tensor_desc_t d = Desc(F32(), {2});
    return hlx_builder_rng_uniform(bb.b, bb.Scalar(F32(), 0), bb.Scalar(I32(), 1), &d, o);
  }, "rng_uniform: both parameters must be rank-0 f32 (the shape's element type)");
  check([](Builder& bb, uint32_t* o) {
    hlx_tensor_desc_t d = Desc(I32(), {2});
    return hlx_builder_rng_normal(bb.b, bb.Scalar(I32(), 0), bb.Scalar(I32(), 1), &d, o);
  }, "rng_normal: element type i32 is not supported");
  check([](Builder& bb, uint32_t* o) {
    hlx_tensor_desc_t d = Desc(U32(), {2});
    uint32_t s = bb.Const(U64(), {3}, std::vector<uint64_t>{1, 2, 3});
    return hlx_builder_rng_bit_generator(bb.b, HLX_RNG_THREE_FRY, s, &d, o);
  }, "rng_bit_generator: THREE_FRY needs a state of 2 u64 values, not 3");
  check([](Builder& bb, uint32_t* o) {
    hlx_tensor_desc_t d = Desc(U32(), {2});
    return hlx_builder_rng_bit_generator(bb.b, HLX_RNG_PHILOX, bb.I({2}, {1, 2}), &d, o);
  }, "rng_bit_generator: initial_state must be a rank-1 u64 tensor");
  check([](Builder& bb, uint32_t* o) {
    hlx_tensor_desc_t d = Desc(Pred(), {2});
    uint32_t s = bb.Const(U64(), {2}, std::vector<uint64_t>{1, 2});
    return hlx_builder_rng_bit_generator(bb.b, HLX_RNG_PHILOX, s, &d, o);
  }, "rng_bit_generator: output element type i1 is not an integer or float type");
}

}  // namespace
