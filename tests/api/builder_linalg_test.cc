// Builder Cholesky, TriangularSolve, BatchNorm* and Fft
// (api/hlx_builder_ops.h): built, run, values checked against hand
// results / direct formulas; one error test per shape rule.
#include <cmath>
#include <complex>
#include <functional>

#include "tests/api/builder_testing.h"

namespace {
using namespace hlx_test;

hlx_element_type_t C64() { return hlx_element_type_from_name("complex<f32>"); }

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want,
                float tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); i++)
    EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

TEST(BuilderCholesky, LowerFactor) {
  Builder bb;
  uint32_t a = bb.F({3, 3}, {4, 12, -16, 12, 37, -43, -16, -43, 98}), r;
  BOK(hlx_builder_cholesky(bb.b, a, true, &r));
  hlx_program_t* p = bb.Program({r});
  ExpectPrintParses(p);
  std::vector<float> got = RunOne<float>(p);
  ASSERT_EQ(got.size(), 9u);
  float want[9] = {2, 0, 0, 6, 1, 0, -8, 5, 3};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j <= i; j++) EXPECT_NEAR(got[i * 3 + j], want[i * 3 + j], 1e-5);
}

TEST(BuilderTriangularSolve, LeftLowerAndTransposed) {
  Builder bb;
  uint32_t a = bb.F({2, 2}, {2, 0, 3, 4});
  uint32_t b1 = bb.F({2, 1}, {2, 11}), b2 = bb.F({2, 1}, {8, 8});
  uint32_t b3 = bb.F({1, 2}, {8, 8});
  uint32_t x1, x2, x3;
  BOK(hlx_builder_triangular_solve(bb.b, a, b1, true, true, false,
                                   HLX_TRIANGULAR_NO_TRANSPOSE, &x1));
  BOK(hlx_builder_triangular_solve(bb.b, a, b2, true, true, false,
                                   HLX_TRIANGULAR_TRANSPOSE, &x2));
  // x a = b (right side): [x0, x1] [[2,0],[3,4]] = [8, 8] -> x1 = 2, x0 = 1.
  BOK(hlx_builder_triangular_solve(bb.b, a, b3, false, true, false,
                                   HLX_TRIANGULAR_NO_TRANSPOSE, &x3));
  hlx_program_t* p = bb.Program({x1, x2, x3});
  ExpectPrintParses(p);
  std::vector<hlx_buffer_t*> out = RunAll(p);
  ASSERT_EQ(out.size(), 3u);
  ExpectNear(Values<float>(out[0]), {1, 2}, 1e-6f);
  ExpectNear(Values<float>(out[1]), {1, 2}, 1e-6f);
  ExpectNear(Values<float>(out[2]), {1, 2}, 1e-6f);
}

// x [2, 3] with features on dim 1.
const std::vector<float> kX = {1, 2, 3, 5, 8, 13};

TEST(BuilderBatchNorm, InferenceTrainingGradMatchFormulas) {
  const float eps = 0.001f;
  std::vector<float> scale = {1, 2, 0.5f}, offset = {0, 1, -1};
  Builder bb;
  uint32_t x = bb.F({2, 3}, kX), sc = bb.F({3}, scale), of = bb.F({3}, offset);
  uint32_t mean = bb.F({3}, {3, 5, 8}), var = bb.F({3}, {4, 9, 25});
  uint32_t go = bb.F({2, 3}, {1, -1, 2, 0.5f, 3, -2});
  uint32_t inf, tr, gr;
  BOK(hlx_builder_batch_norm_inference(bb.b, x, sc, of, mean, var, eps, 1, &inf));
  BOK(hlx_builder_batch_norm_training(bb.b, x, sc, of, eps, 1, &tr));
  BOK(hlx_builder_batch_norm_grad(bb.b, x, sc, mean, var, go, eps, 1, &gr));
  hlx_program_t* p = bb.Program({inf, bb.Gte(tr, 0), bb.Gte(tr, 1), bb.Gte(tr, 2),
                                 bb.Gte(gr, 0), bb.Gte(gr, 1), bb.Gte(gr, 2)});
  ExpectPrintParses(p);
  std::vector<hlx_buffer_t*> out = RunAll(p);
  ASSERT_EQ(out.size(), 7u);
  std::vector<float> m = {3, 5, 8}, v = {4, 9, 25}, gov = {1, -1, 2, 0.5f, 3, -2};
  std::vector<float> want_inf(6), bm(3), bv(3), want_tr(6);
  for (int f = 0; f < 3; f++) {
    bm[f] = (kX[f] + kX[3 + f]) / 2;
    bv[f] = ((kX[f] - bm[f]) * (kX[f] - bm[f]) + (kX[3 + f] - bm[f]) * (kX[3 + f] - bm[f])) / 2;
    for (int n = 0; n < 2; n++) {
      float xv = kX[n * 3 + f];
      want_inf[n * 3 + f] = (xv - m[f]) / std::sqrt(v[f] + eps) * scale[f] + offset[f];
      want_tr[n * 3 + f] = (xv - bm[f]) / std::sqrt(bv[f] + eps) * scale[f] + offset[f];
    }
  }
  ExpectNear(Values<float>(out[0]), want_inf, 1e-5f);
  ExpectNear(Values<float>(out[1]), want_tr, 1e-5f);
  ExpectNear(Values<float>(out[2]), bm, 1e-5f);
  ExpectNear(Values<float>(out[3]), bv, 1e-5f);
  // XLA BatchNormGrad formulas, with the given mean and variance.
  std::vector<float> g_op(6), g_sc(3), g_of(3);
  for (int f = 0; f < 3; f++) {
    float rs = 1.0f / std::sqrt(v[f] + eps), sum_g = 0, sum_gx = 0;
    for (int n = 0; n < 2; n++) {
      sum_g += gov[n * 3 + f];
      sum_gx += gov[n * 3 + f] * (kX[n * 3 + f] - m[f]);
    }
    g_sc[f] = sum_gx * rs;
    g_of[f] = sum_g;
    for (int n = 0; n < 2; n++)
      g_op[n * 3 + f] = scale[f] * rs *
                        (gov[n * 3 + f] - sum_g / 2 -
                         (kX[n * 3 + f] - m[f]) * (sum_gx / 2) / (v[f] + eps));
  }
  ExpectNear(Values<float>(out[4]), g_op, 1e-4f);
  ExpectNear(Values<float>(out[5]), g_sc, 1e-4f);
  ExpectNear(Values<float>(out[6]), g_of, 1e-5f);
}

TEST(BuilderFft, RfftIrfftAndComplexFft) {
  Builder bb;
  uint32_t x = bb.F({4}, {1, 2, 3, 4}), rf, back, cf;
  int64_t len = 4;
  BOK(hlx_builder_fft(bb.b, x, HLX_FFT_RFFT, &len, 1, &rf));
  EXPECT_EQ(Dims(bb.b, rf), (std::vector<int64_t>{3}));
  BOK(hlx_builder_fft(bb.b, rf, HLX_FFT_IRFFT, &len, 1, &back));
  std::vector<float> c = {1, 0, 0, 1, -1, 0, 0, -1};  // 1, i, -1, -i
  uint32_t cx = bb.Const(C64(), {4}, c);
  BOK(hlx_builder_fft(bb.b, cx, HLX_FFT_FFT, &len, 1, &cf));
  hlx_program_t* p = bb.Program({rf, back, cf});
  ExpectPrintParses(p);
  std::vector<hlx_buffer_t*> out = RunAll(p);
  ASSERT_EQ(out.size(), 3u);
  ExpectNear(Values<float>(out[0]), {10, 0, -2, 2, -2, 0}, 1e-5f);
  ExpectNear(Values<float>(out[1]), {1, 2, 3, 4}, 1e-5f);
  // sum_k e^{i pi k / 2} e^{-2 pi i j k / 4}: 4 at j = 1, else 0.
  ExpectNear(Values<float>(out[2]), {0, 0, 4, 0, 0, 0, 0, 0}, 1e-5f);
}

TEST(BuilderLinalgErrors, EachRuleIsLatched) {
  const auto check = ExpectOpError;
  check([](Builder& bb, uint32_t* o) {
    return hlx_builder_cholesky(bb.b, bb.F({2, 3}, {1, 2, 3, 4, 5, 6}), true, o);
  }, "cholesky: a must have rank >= 2 and square innermost dimensions");
  check([](Builder& bb, uint32_t* o) {
    return hlx_builder_cholesky(bb.b, bb.I({1, 1}, {1}), true, o);
  }, "cholesky: a must be floating point or complex, not i32");
  check([](Builder& bb, uint32_t* o) {
    return hlx_builder_triangular_solve(bb.b, bb.F({2, 2}, {1, 0, 0, 1}),
                                        bb.F({3, 1}, {1, 2, 3}), true, true,
                                        false, HLX_TRIANGULAR_NO_TRANSPOSE, o);
  }, "triangular_solve: a is 2x2, but b has 3 rows");
  check([](Builder& bb, uint32_t* o) {
    return hlx_builder_triangular_solve(bb.b, bb.F({2, 2, 2}, std::vector<float>(8, 1)),
                                        bb.F({3, 2, 1}, std::vector<float>(6, 1)),
                                        true, true, false,
                                        HLX_TRIANGULAR_NO_TRANSPOSE, o);
  }, "triangular_solve: batch dimension 0 differs: a 2, b 3");
  check([](Builder& bb, uint32_t* o) {
    return hlx_builder_triangular_solve(bb.b, bb.F({2, 2}, {1, 0, 0, 1}),
                                        bb.F({2}, {1, 2}), true, true, false,
                                        HLX_TRIANGULAR_NO_TRANSPOSE, o);
  }, "triangular_solve: b must have a's element type and rank");
  check([](Builder& bb, uint32_t* o) {
    uint32_t x = bb.F({2, 3}, kX), v = bb.F({3}, {1, 1, 1});
    return hlx_builder_batch_norm_inference(bb.b, x, v, v, v, v, 0.1f, 2, o);
  }, "batch_norm_inference: feature_index 2 is out of range for rank 2");
  check([](Builder& bb, uint32_t* o) {
    uint32_t x = bb.F({2, 3}, kX), v = bb.F({3}, {1, 1, 1}), w = bb.F({2}, {1, 1});
    return hlx_builder_batch_norm_inference(bb.b, x, v, v, w, v, 0.1f, 1, o);
  }, "batch_norm_inference: mean must have shape [3] (the feature dimension's size)");
  check([](Builder& bb, uint32_t* o) {
    uint32_t x = bb.I({2}, {1, 2}), v = bb.I({2}, {1, 1});
    return hlx_builder_batch_norm_training(bb.b, x, v, v, 0.1f, 0, o);
  }, "batch_norm_training: operand must be floating point, not i32");
  check([](Builder& bb, uint32_t* o) {
    uint32_t x = bb.F({2, 3}, kX), v = bb.F({3}, {1, 1, 1}), g = bb.F({3}, {1, 1, 1});
    return hlx_builder_batch_norm_grad(bb.b, x, v, v, v, g, 0.1f, 1, o);
  }, "batch_norm_grad: grad_output must have the operand's shape");
  check([](Builder& bb, uint32_t* o) {
    int64_t len = 4;
    return hlx_builder_fft(bb.b, bb.F({4}, {1, 2, 3, 4}), HLX_FFT_FFT, &len, 1, o);
  }, "fft: FFT needs a complex operand, not f32");
  check([](Builder& bb, uint32_t* o) {
    int64_t len = 8;
    return hlx_builder_fft(bb.b, bb.F({4}, {1, 2, 3, 4}), HLX_FFT_RFFT, &len, 1, o);
  }, "fft: operand dimension 0 has size 4, but fft_length needs 8");
  check([](Builder& bb, uint32_t* o) {
    int64_t len[4] = {1, 1, 1, 4};
    return hlx_builder_fft(bb.b, bb.F({4}, {1, 2, 3, 4}), HLX_FFT_RFFT, len, 4, o);
  }, "fft: fft_length must have 1 to 3 entries");
}

}  // namespace
