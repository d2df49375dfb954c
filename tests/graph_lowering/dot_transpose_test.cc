// A dot_general whose result's one use is a transpose writes its product in
// the transposed order (one task "stablehlo.dot_general+transpose", oneDNN
// with result strides; graph/passes/fusion.c pairs them, graph/lower/dot.c writes
// the layout). Each program is lowered three ways and run on the same
// random inputs: the pair (default), the two ops apart
// (HLX_NO_DOT_TRANSPOSE) and the reference dot (HLX_DOT_REFERENCE). Each
// library result must be within f32 rounding of the reference: the
// largest difference at most 1e-5 of the largest magnitude (K <= 79
// products of values <= 1.5; a wrong layout is off by O(1)).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "tests/graph_lowering/plan_run.h"

namespace {

using plan_run::Buffers;
using plan_run::Lowered;

struct Case {
  const char* name;
  const char* text;
  bool fused;  // whether the pair becomes one task
};

int32_t PairTasks(const hlx_plan_t* p) {
  int32_t n = 0;
  for (int32_t i = 0; i < p->num_tasks; i++)
    n += std::strstr(p->tasks[i].name, "+transpose") != nullptr;
  return n;
}

// max |x - y| / max |y| over n floats.
double Spread(const std::vector<unsigned char>& x,
              const std::vector<unsigned char>& y, size_t n) {
  const float* a = reinterpret_cast<const float*>(x.data());
  const float* b = reinterpret_cast<const float*>(y.data());
  double d = 0, m = 0;
  for (size_t i = 0; i < n; i++) {
    d = std::max(d, std::fabs(double(a[i]) - b[i]));
    m = std::max(m, std::fabs(double(b[i])));
  }
  return m > 0 ? d / m : d;
}

void Check(const Case& c) {
  SCOPED_TRACE(c.name);
  Lowered pair, apart, ref;
  ASSERT_TRUE(plan_run::LowerWith(c.text, nullptr, true, &pair));
  ASSERT_TRUE(plan_run::LowerWith(c.text, "HLX_NO_DOT_TRANSPOSE", true, &apart));
  ASSERT_TRUE(plan_run::LowerWith(c.text, "HLX_DOT_REFERENCE", true, &ref));
  EXPECT_EQ(PairTasks(pair.main()), c.fused ? 1 : 0);
  EXPECT_EQ(PairTasks(apart.main()), 0);
  if (c.fused) {
    EXPECT_EQ(plan_run::Tasks(pair.main()) + 1, plan_run::Tasks(apart.main()));
  }
  const hlx_func_t* f = hlx_module_entry(pair.module);
  Buffers in = plan_run::RandomArgs(f, 7, 0.5);
  Buffers a = plan_run::RunPlan(pair.main(), in);
  Buffers b = plan_run::RunPlan(apart.main(), in);
  Buffers r = plan_run::RunPlan(ref.main(), in);
  ASSERT_EQ(a.size(), 1u);
  size_t n = (r[0].size() - 1) / sizeof(float);
  EXPECT_LT(Spread(a[0], r[0], n), 1e-5);
  EXPECT_LT(Spread(b[0], r[0], n), 1e-5);
}

TEST(DotTranspose, AttentionValuesInTokenOrder) {
  // softmax(Q K^T) V as the chess transformer exports it: [b, h, d, q]
  // transposed to [b, q, h, d] (a column-major product: oneDNN computes
  // the transposed product P V into rows of stride h * d).
  Check({"attention P V", R"(
func.func @main(%v: tensor<3x79x4x32xf32>, %p: tensor<3x4x79x79xf32>) -> tensor<3x79x4x32xf32> {
  %0 = stablehlo.dot_general %v, %p, batching_dims = [0, 2] x [0, 1], contracting_dims = [1] x [3] : (tensor<3x79x4x32xf32>, tensor<3x4x79x79xf32>) -> tensor<3x4x32x79xf32>
  %1 = stablehlo.transpose %0, dims = [0, 3, 1, 2] : (tensor<3x4x32x79xf32>) -> tensor<3x79x4x32xf32>
  return %1 : tensor<3x79x4x32xf32>
})", true});
}

TEST(DotTranspose, RowMajorResultWithLeadingDim) {
  // [m, b, n] from a batched [b, m, n] product: rows of stride b * n.
  Check({"batch to the middle", R"(
func.func @main(%a: tensor<5x70x66xf32>, %b: tensor<5x66x68xf32>) -> tensor<70x5x68xf32> {
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<5x70x66xf32>, tensor<5x66x68xf32>) -> tensor<5x70x68xf32>
  %1 = stablehlo.transpose %0, dims = [1, 0, 2] : (tensor<5x70x68xf32>) -> tensor<70x5x68xf32>
  return %1 : tensor<70x5x68xf32>
})", true});
  Check({"plain matrix transposed", R"(
func.func @main(%a: tensor<90x70xf32>, %b: tensor<70x80xf32>) -> tensor<80x90xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<90x70xf32>, tensor<70x80xf32>) -> tensor<90x80xf32>
  %1 = stablehlo.transpose %0, dims = [1, 0] : (tensor<90x80xf32>) -> tensor<80x90xf32>
  return %1 : tensor<80x90xf32>
})", true});
}

TEST(DotTranspose, LayoutsOneDnnCannotWriteStayApart) {
  // The free dims of one side split around the other's: neither rows nor
  // columns of the written matrix have a unit stride.
  Check({"free dims interleaved", R"(
func.func @main(%a: tensor<6x7x50xf32>, %b: tensor<50x9xf32>) -> tensor<6x9x7xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [2] x [0] : (tensor<6x7x50xf32>, tensor<50x9xf32>) -> tensor<6x7x9xf32>
  %1 = stablehlo.transpose %0, dims = [0, 2, 1] : (tensor<6x7x9xf32>) -> tensor<6x9x7xf32>
  return %1 : tensor<6x9x7xf32>
})", false});
  // The product has another use: it is written once, transposed apart.
  Check({"result used twice", R"(
func.func @main(%a: tensor<90x70xf32>, %b: tensor<70x80xf32>) -> tensor<80x90xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<90x70xf32>, tensor<70x80xf32>) -> tensor<90x80xf32>
  %1 = stablehlo.add %0, %0 : tensor<90x80xf32>
  %2 = stablehlo.transpose %1, dims = [1, 0] : (tensor<90x80xf32>) -> tensor<80x90xf32>
  return %2 : tensor<80x90xf32>
})", false});
}

}  // namespace
