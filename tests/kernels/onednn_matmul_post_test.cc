// oneDNN matmul post-ops added for the transformer MLP (kernels/libs):
// swish (x * logistic(x)) and a multiply by a whole tensor laid out like
// the result, against a double-precision reference of the product. Also
// the outer batch (outer_batch / outer_strides) on interleaved heads.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kernels/libs/onednn.h"
#include "tests/kernels/random_floats.h"

namespace {

using hlx_test::RandomFloats;

// c[m, n] = sum_k a[m, k] b[k, n] in double, row-major.
std::vector<double> Product(const std::vector<float>& a,
                            const std::vector<float>& b, int64_t M, int64_t N,
                            int64_t K) {
  std::vector<double> c(M * N, 0.0);
  for (int64_t m = 0; m < M; m++)
    for (int64_t k = 0; k < K; k++)
      for (int64_t n = 0; n < N; n++)
        c[m * N + n] += double(a[m * K + k]) * b[k * N + n];
  return c;
}

hlx_onednn_matmul_t* Create(const hlx_onednn_matmul_desc_t& d) {
  hlx_onednn_matmul_t* mm = nullptr;
  hlx_status_t s = hlx_onednn_matmul_create(&d, &mm);
  EXPECT_EQ(s, nullptr) << (s ? hlx_status_message(s) : "");
  hlx_status_free(s);
  return mm;
}

constexpr int64_t M = 80, N = 96, K = 64;
// |error| of an f32 product of K terms in [-1, 1]: K * 2^-24 * K, plus a
// few ULP for oneDNN's swish (its own exp).
constexpr double kTol = 1e-4;

TEST(OnednnMatmulPost, Swish) {
  std::vector<float> a = RandomFloats(M * K, 1), b = RandomFloats(K * N, 2),
                     c(M * N);
  hlx_onednn_matmul_desc_t d;
  hlx_onednn_matmul_desc_init(&d, HLX_DTYPE_F32, HLX_DTYPE_F32, HLX_DTYPE_F32,
                              1, M, N, K);
  d.num_post_ops = 1;
  d.post_ops[0] = {HLX_ONEDNN_POST_SWISH, HLX_ONEDNN_OPERAND_NONE};
  hlx_onednn_matmul_t* mm = Create(d);
  ASSERT_NE(mm, nullptr);
  const void* post[1] = {nullptr};
  hlx_status_t s = hlx_onednn_matmul_run_ex(mm, a.data(), b.data(), post,
                                            c.data());
  ASSERT_EQ(s, nullptr) << hlx_status_message(s);
  std::vector<double> want = Product(a, b, M, N, K);
  for (int64_t i = 0; i < M * N; i++) {
    double x = want[i];
    ASSERT_NEAR(c[i], x / (1 + std::exp(-x)), kTol) << i;
  }
  hlx_onednn_matmul_release(mm);
}

TEST(OnednnMatmulPost, SwishThenWholeTensorMultiply) {
  std::vector<float> a = RandomFloats(M * K, 3), b = RandomFloats(K * N, 4),
                     c(M * N);
  std::vector<float> g = RandomFloats(M * N, 5);
  hlx_onednn_matmul_desc_t d;
  hlx_onednn_matmul_desc_init(&d, HLX_DTYPE_F32, HLX_DTYPE_F32, HLX_DTYPE_F32,
                              1, M, N, K);
  d.num_post_ops = 2;
  d.post_ops[0] = {HLX_ONEDNN_POST_SWISH, HLX_ONEDNN_OPERAND_NONE};
  d.post_ops[1] = {HLX_ONEDNN_POST_MUL, HLX_ONEDNN_OPERAND_FULL};
  hlx_onednn_matmul_t* mm = Create(d);
  ASSERT_NE(mm, nullptr);
  const void* post[2] = {nullptr, g.data()};
  hlx_status_t s = hlx_onednn_matmul_run_ex(mm, a.data(), b.data(), post,
                                            c.data());
  ASSERT_EQ(s, nullptr) << hlx_status_message(s);
  std::vector<double> want = Product(a, b, M, N, K);
  for (int64_t i = 0; i < M * N; i++) {
    double x = want[i];
    ASSERT_NEAR(c[i], x / (1 + std::exp(-x)) * g[i], kTol) << i;
  }
  hlx_onednn_matmul_release(mm);
}

TEST(OnednnMatmulPost, OuterBatchOverInterleavedHeads) {
  // a: [2 outer, 40 rows, 3 heads, 32 k] read as [outer, head] batches.
  const int64_t O = 2, H = 3, R = 40, KK = 32, NN = 70;
  std::vector<float> a = RandomFloats(O * R * H * KK, 6);
  std::vector<float> b = RandomFloats(O * H * KK * NN, 7);
  std::vector<float> c(O * H * R * NN);
  hlx_onednn_matmul_desc_t d;
  hlx_onednn_matmul_desc_init(&d, HLX_DTYPE_F32, HLX_DTYPE_F32, HLX_DTYPE_F32,
                              H, R, NN, KK);
  d.a_strides[0] = KK, d.a_strides[1] = H * KK, d.a_strides[2] = 1;
  d.outer_batch = O;
  d.outer_strides[0] = R * H * KK;
  d.outer_strides[1] = H * KK * NN;
  d.outer_strides[2] = H * R * NN;
  hlx_onednn_matmul_t* mm = Create(d);
  ASSERT_NE(mm, nullptr);
  ASSERT_EQ(hlx_onednn_matmul_run(mm, a.data(), b.data(), c.data()), nullptr);
  for (int64_t o = 0; o < O; o++)
    for (int64_t h = 0; h < H; h++)
      for (int64_t r = 0; r < R; r++)
        for (int64_t n = 0; n < NN; n++) {
          double want = 0;
          for (int64_t k = 0; k < KK; k++)
            want += double(a[o * R * H * KK + r * H * KK + h * KK + k]) *
                    b[(o * H + h) * KK * NN + k * NN + n];
          ASSERT_NEAR(c[((o * H + h) * R + r) * NN + n], want, kTol);
        }
  hlx_onednn_matmul_release(mm);
}

}  // namespace
