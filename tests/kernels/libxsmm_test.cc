// libxsmm small-GEMM wrappers against the reference batched matmul.
//
// Tolerance: both sides sum K products in their own precision (libxsmm with
// FMA, the reference without), each within gamma_K * sum|a b| of the exact
// sum (gamma_K ~ K * u), so they agree within 2 * K * u * sum|a b|.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <random>
#include <vector>

#include "kernels/dot.h"
#include "kernels/libs/libxsmm.h"

namespace {

template <typename T>
std::vector<T> Random(size_t n, uint32_t seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<T> d(-1, 1);
  std::vector<T> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

void RefF64(int64_t B, int64_t M, int64_t N, int64_t K, const double* a,
            const double* b, double* c) {
  hlx_ref_batch_matmul_f64(B, M, N, K, a, b, c);
}
void RefF64(int64_t B, int64_t M, int64_t N, int64_t K, const float* a,
            const float* b, float* c) {
  hlx_ref_batch_matmul_f32(B, M, N, K, a, b, c);
}

template <typename T>
void Check(hlx_dtype_t t, int64_t B, int64_t M, int64_t N, int64_t K,
           int64_t pad) {
  int64_t lda = K + pad, ldb = N + pad, ldc = N + pad;
  std::vector<T> a = Random<T>(B * M * lda, 3 + M), b = Random<T>(B * K * ldb, 5 + N);
  std::vector<T> c(B * M * ldc, -7);  // padding must stay untouched
  hlx_xsmm_gemm_t g;
  ASSERT_TRUE(hlx_xsmm_gemm_init(&g, t, M, N, K, lda, ldb, ldc));
  hlx_xsmm_gemm_run(&g, B, a.data(), M * lda, b.data(), K * ldb, c.data(),
                    M * ldc);
  std::vector<T> ca(B * M * K), cb(B * K * N), aa(ca.size()), ab(cb.size());
  for (int64_t i = 0; i < B * M; i++)
    for (int64_t k = 0; k < K; k++) {
      ca[i * K + k] = a[i * lda + k];
      aa[i * K + k] = std::fabs(a[i * lda + k]);
    }
  for (int64_t i = 0; i < B * K; i++)
    for (int64_t n = 0; n < N; n++) {
      cb[i * N + n] = b[i * ldb + n];
      ab[i * N + n] = std::fabs(b[i * ldb + n]);
    }
  std::vector<T> ref(B * M * N), mag(ref.size());
  RefF64(B, M, N, K, ca.data(), cb.data(), ref.data());
  RefF64(B, M, N, K, aa.data(), ab.data(), mag.data());
  double u = sizeof(T) == 4 ? FLT_EPSILON : DBL_EPSILON;
  for (int64_t i = 0; i < B * M; i++)
    for (int64_t n = 0; n < ldc; n++) {
      if (n >= N) {
        ASSERT_EQ(c[i * ldc + n], T(-7)) << "padding written";
        continue;
      }
      ASSERT_NEAR(c[i * ldc + n], ref[i * N + n],
                  2.0 * K * u * mag[i * N + n] + 1e-300)
          << "B=" << B << " M=" << M << " N=" << N << " K=" << K;
    }
}

TEST(Libxsmm, F32SmallShapes) {
  const int64_t shapes[][4] = {{1, 1, 1, 1},  {1, 4, 6, 3},    {1, 3, 5, 7},
                               {1, 8, 8, 8},  {5, 16, 16, 16}, {3, 17, 31, 9},
                               {2, 32, 32, 32}, {1, 64, 64, 64}, {4, 1, 64, 13}};
  for (auto& s : shapes) {
    Check<float>(HLX_DTYPE_F32, s[0], s[1], s[2], s[3], 0);
    Check<float>(HLX_DTYPE_F32, s[0], s[1], s[2], s[3], 3);
  }
}

TEST(Libxsmm, F64SmallShapes) {
  const int64_t shapes[][4] = {{1, 1, 1, 1}, {1, 4, 6, 3}, {2, 13, 7, 29},
                               {3, 32, 32, 32}, {1, 50, 40, 60}};
  for (auto& s : shapes) {
    Check<double>(HLX_DTYPE_F64, s[0], s[1], s[2], s[3], 0);
    Check<double>(HLX_DTYPE_F64, s[0], s[1], s[2], s[3], 2);
  }
}

TEST(Libxsmm, SmallShapePredicateAndRejections) {
  EXPECT_TRUE(hlx_xsmm_is_small(64, 64, 64));
  EXPECT_TRUE(hlx_xsmm_is_small(4, 3, 6));
  EXPECT_FALSE(hlx_xsmm_is_small(65, 64, 64));
  EXPECT_FALSE(hlx_xsmm_is_small(0, 4, 4));
  EXPECT_FALSE(hlx_xsmm_is_small(1, 1, 1000));
  hlx_xsmm_gemm_t g;
  EXPECT_FALSE(hlx_xsmm_gemm_init(&g, HLX_DTYPE_S32, 4, 4, 4, 4, 4, 4));
  EXPECT_FALSE(hlx_xsmm_gemm_init(&g, HLX_DTYPE_F32, 4, 4, 4, 3, 4, 4));
  // The same shape twice gives the same (registry-cached) kernel.
  hlx_xsmm_gemm_t g1, g2;
  ASSERT_TRUE(hlx_xsmm_gemm_init(&g1, HLX_DTYPE_F32, 12, 10, 14, 14, 10, 10));
  ASSERT_TRUE(hlx_xsmm_gemm_init(&g2, HLX_DTYPE_F32, 12, 10, 14, 14, 10, 10));
  EXPECT_EQ(g1.fn, g2.fn);
}

}  // namespace
