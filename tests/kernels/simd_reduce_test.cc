// Every reduce ISA variant of kernels/reduce.inc against hlx_ref_reduce:
// [outer, reduced, inner] shapes around the vector widths and the column
// block, empty and unit dims, NaN/-0/Inf, and the dispatched hlx_reduce()
// on masks it collapses and masks it leaves to the reference.
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/dispatch.h"
#include "kernels/simd.h"
#include "tests/kernels/simd_test_util.h"

namespace {

using hlx_test::Bits;
using hlx_test::SameValue;

struct ReduceVariant {
  const char* name;
  hlx_isa_t isa;
  hlx_reduce_op_t op;
  hlx_dtype_t dtype;
  hlx_reduce3_fn fn;
};
const ReduceVariant kReduce[] = {
#define HLX_REDUCE_KERNEL(ISA, OP, DT, fn) \
  {#fn, HLX_ISA_##ISA, HLX_REDUCE_##OP, HLX_DTYPE_##DT, fn},
#include "kernels/reduce.inc"
};

std::vector<float> Data(size_t n, uint32_t seed, bool specials) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  if (specials && n > 0) {
    // -0/+0 ties and a NaN in one output's slice for max/min semantics.
    for (size_t i = 0; i < n; i += 7) v[i] = (i / 7) % 2 ? 0.0f : -0.0f;
    v[rng() % n] = NAN;
  }
  return v;
}

// Checks kernel(outer, red, inner) against the reference on dims
// {outer, red, inner} with mask {1}.
void Check(const ReduceVariant& v, size_t outer, size_t red, size_t inner,
           bool specials, float init) {
  std::vector<float> x = Data(outer * red * inner, (uint32_t)(outer * 131 + red * 17 + inner), specials);
  size_t n_out = outer * inner;
  std::vector<float> want(n_out), got(n_out + 1, 555.0f);
  int64_t dims[3] = {(int64_t)outer, (int64_t)red, (int64_t)inner};
  ASSERT_TRUE(hlx_ref_reduce(v.op, v.dtype, 3, dims, 0x2, x.data(), &init,
                             want.data()));
  v.fn(x.data(), outer, red, inner, &init, got.data());
  ASSERT_EQ(got[n_out], 555.0f) << "wrote past the end";
  for (size_t i = 0; i < n_out; i++) {
    if (v.op == HLX_REDUCE_ADD) {
      // Same double accumulation in another order: at most one f32 ULP
      // apart, or within 2^-40 of sum|x| under cancellation.
      double abs_sum = fabs(init);
      size_t o = i / inner, c = i % inner;
      for (size_t r = 0; r < red; r++) abs_sum += fabs(x[(o * red + r) * inner + c]);
      double tol = fmax(hlx_test::UlpError(want[i], want[i]) + fabs(nextafterf(want[i], INFINITY) - want[i]),
                        ldexp(abs_sum, -40));
      if (isnan(want[i]) || isinf(want[i]))
        ASSERT_TRUE(SameValue(want[i], got[i])) << v.name << " i=" << i;
      else
        ASSERT_LE(fabs((double)got[i] - want[i]), tol)
            << v.name << " [" << outer << "," << red << "," << inner << "] i=" << i
            << " want=" << want[i] << " got=" << got[i];
    } else {
      ASSERT_EQ(Bits(want[i]), Bits(got[i]))
          << v.name << " [" << outer << "," << red << "," << inner << "] i=" << i
          << " want=" << want[i] << " got=" << got[i];
    }
  }
}

class SimdReduce : public ::testing::TestWithParam<ReduceVariant> {};

TEST_P(SimdReduce, InnermostDim) {
  const ReduceVariant& v = GetParam();
  HLX_SKIP_IF_UNSUPPORTED(v.isa);
  for (size_t red = 0; red <= 4 * 16 + 1; red++) {
    Check(v, 3, red, 1, false, v.op == HLX_REDUCE_ADD ? 0.5f : -INFINITY);
    if (HasFatalFailure()) return;
  }
  for (size_t red : {1000, 4097, 100003}) Check(v, 2, red, 1, false, 0.0f);
  Check(v, 5, 333, 1, true, 0.0f);
  // Many short rows with -0/+0 ties and a NaN: the in-register lane fold.
  for (size_t red : {1, 7, 16, 79, 256}) Check(v, 41, red, 1, true, -INFINITY);
}

TEST_P(SimdReduce, OuterDims) {
  const ReduceVariant& v = GetParam();
  HLX_SKIP_IF_UNSUPPORTED(v.isa);
  for (size_t inner = 2; inner <= 2 * 16 + 1; inner++)
    for (size_t red : {0, 1, 3, 4, 9}) {
      Check(v, 2, red, inner, false, 0.25f);
      if (HasFatalFailure()) return;
    }
  // Wider than one column block (1024), rows in groups of 4 plus a rest.
  Check(v, 1, 7, 1500, false, 0.0f);
  Check(v, 3, 130, 2049, true, 0.0f);
  Check(v, 2, 6, 37, true, -0.0f);
}

TEST_P(SimdReduce, SpecialValues) {
  const ReduceVariant& v = GetParam();
  HLX_SKIP_IF_UNSUPPORTED(v.isa);
  const float inf = INFINITY;
  struct Case {
    std::vector<float> x;
  } cases[] = {{{-0.0f, 0.0f, -0.0f}}, {{0.0f, -0.0f}}, {{-0.0f, -0.0f}},
               {{1, NAN, 2}},          {{inf, -inf}},    {{inf, 1e38f, 1e38f}},
               {{-inf, -inf}},         {{1e-45f, 1e-45f}}};
  for (auto& c : cases) {
    for (size_t inner : {1, 3}) {
      // Broadcast each value along `inner` columns.
      std::vector<float> x;
      for (float e : c.x)
        for (size_t j = 0; j < inner; j++) x.push_back(e);
      float init = v.op == HLX_REDUCE_ADD ? -0.0f
                   : v.op == HLX_REDUCE_MAX ? -inf : inf;
      int64_t dims[2] = {(int64_t)c.x.size(), (int64_t)inner};
      std::vector<float> want(inner), got(inner);
      ASSERT_TRUE(hlx_ref_reduce(v.op, v.dtype, 2, dims, 0x1, x.data(), &init,
                                 want.data()));
      v.fn(x.data(), 1, c.x.size(), inner, &init, got.data());
      for (size_t j = 0; j < inner; j++)
        EXPECT_EQ(Bits(want[j]), Bits(got[j]))
            << v.name << " inner=" << inner << " want=" << want[j]
            << " got=" << got[j];
    }
  }
}

// Rows whose max (min) is a zero, with -0 and +0 ties anywhere, and rows
// with one NaN in the unrolled loop, the single-vector loop or the tail:
// the raw-op fast path must hand these to its exact handling.
TEST_P(SimdReduce, ZeroTiesAndNaNPositionsInRows) {
  const ReduceVariant& v = GetParam();
  HLX_SKIP_IF_UNSUPPORTED(v.isa);
  if (v.op == HLX_REDUCE_ADD) return;  // exact-bits cases of max/min only
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(0.5f, 2.0f);
  for (size_t red : {1, 7, 16, 79, 256}) {
    const size_t rows = 3 * red + 6;
    std::vector<float> x(rows * red);
    for (size_t r = 0; r < rows; r++)
      for (size_t i = 0; i < red; i++) {
        float mag = u(rng);
        x[r * red + i] = v.op == HLX_REDUCE_MAX ? -mag : mag;
      }
    for (size_t r = 0; r < 2 * red; r++) {  // zero ties
      x[r * red + r % red] = r & 1 ? -0.0f : 0.0f;
      x[r * red + (r * 7 + 3) % red] = r & 2 ? 0.0f : -0.0f;
    }
    for (size_t r = 2 * red; r < 3 * red; r++)  // one NaN, every position
      x[r * red + r % red] = NAN;
    float init = v.op == HLX_REDUCE_MAX ? -INFINITY : INFINITY;
    int64_t dims[2] = {(int64_t)rows, (int64_t)red};
    std::vector<float> want(rows), got(rows);
    ASSERT_TRUE(hlx_ref_reduce(v.op, v.dtype, 2, dims, 0x2, x.data(), &init,
                               want.data()));
    v.fn(x.data(), rows, red, 1, &init, got.data());
    for (size_t r = 0; r < rows; r++)
      ASSERT_EQ(Bits(want[r]), Bits(got[r]))
          << v.name << " red=" << red << " row=" << r << " want=" << want[r]
          << " got=" << got[r];
  }
}

std::string Name(const ::testing::TestParamInfo<ReduceVariant>& i) {
  return i.param.name;
}
INSTANTIATE_TEST_SUITE_P(Variants, SimdReduce, ::testing::ValuesIn(kReduce),
                         Name);

TEST(SimdReduceDispatch, CollapsesMasksAndFallsBack) {
  // dims {2, 1, 3, 4, 5}: masks with one reduced group use a kernel; the
  // split mask {0, 3} goes to the reference. Results match either way.
  int64_t dims[5] = {2, 1, 3, 4, 5};
  std::vector<float> x = Data(2 * 3 * 4 * 5, 9, false);
  for (uint32_t mask : {0x0u, 0x1u, 0x2u, 0x4u, 0x8u, 0x10u, 0xCu, 0x18u, 0x1Fu,
                        0x9u, 0x15u}) {
    for (hlx_reduce_op_t op : {HLX_REDUCE_ADD, HLX_REDUCE_MAX, HLX_REDUCE_MIN}) {
      size_t n_out = 1;
      for (int d = 0; d < 5; d++)
        if (!((mask >> d) & 1)) n_out *= (size_t)dims[d];
      std::vector<float> want(n_out), got(n_out);
      float init = op == HLX_REDUCE_ADD ? 0.0f : op == HLX_REDUCE_MAX ? -INFINITY : INFINITY;
      ASSERT_TRUE(hlx_ref_reduce(op, HLX_DTYPE_F32, 5, dims, mask, x.data(), &init, want.data()));
      ASSERT_TRUE(hlx_reduce(op, HLX_DTYPE_F32, 5, dims, mask, x.data(), &init, got.data()));
      for (size_t i = 0; i < n_out; i++)
        EXPECT_NEAR(want[i], got[i], 1e-6) << "mask=" << mask << " op=" << op << " i=" << i;
    }
  }
  // Other dtypes and empty dims go to the reference.
  int64_t e[2] = {0, 3};
  float init = 2.0f, out[3] = {0, 0, 0};
  ASSERT_TRUE(hlx_reduce(HLX_REDUCE_ADD, HLX_DTYPE_F32, 2, e, 0x1, nullptr, &init, out));
  EXPECT_EQ(out[0], 2.0f);
  int32_t xi[4] = {1, 2, 3, 4}, ii = 0, oi = 0;
  int64_t d1[1] = {4};
  ASSERT_TRUE(hlx_reduce(HLX_REDUCE_ADD, HLX_DTYPE_S32, 1, d1, 0x1, xi, &ii, &oi));
  EXPECT_EQ(oi, 10);
}

}  // namespace
