// The oneDNN primitive cache under concurrency (kernels/libs/onednn_common.c):
// threads create, run and release matmuls of a few descriptors while the
// idle capacity (1) keeps evicting the unused ones; every result must be
// exact and, when all are released, no object is left in use. Run under
// --config=tsan and --config=asan too.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "kernels/libs/onednn.h"

namespace {

// Quarter-integers: exact sums in f32 in any order.
float Val(int64_t i, int salt) {
  return static_cast<float>((i * 7 + salt * 13) % 17 - 8) / 4.0f;
}

TEST(OnednnCache, ConcurrentCreateReleaseWithEviction) {
  int32_t prev = hlx_onednn_cache_set_idle_capacity(1);
  hlx_onednn_cache_stats_t s0;
  hlx_onednn_cache_stats(&s0);
  const int64_t K = 24, N = 20;
  std::atomic<int> bad{0}, errors{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; t++)
    ts.emplace_back([&, t] {
      for (int it = 0; it < 40; it++) {
        int64_t M = 3 + (it + t) % 4;  // 4 descriptors shared by threads
        hlx_onednn_matmul_desc_t d;
        hlx_onednn_matmul_desc_init(&d, HLX_DTYPE_F32, HLX_DTYPE_F32,
                                    HLX_DTYPE_F32, 1, M, N, K);
        d.threads = 1;
        hlx_onednn_matmul_t* mm = nullptr;
        hlx_status_t st = hlx_onednn_matmul_create(&d, &mm);
        if (st) {
          hlx_status_free(st);
          errors++;
          continue;
        }
        std::vector<float> a(M * K), b(K * N), c(M * N);
        for (int64_t i = 0; i < M * K; i++) a[i] = Val(i, t);
        for (int64_t i = 0; i < K * N; i++) b[i] = Val(i, it);
        st = hlx_onednn_matmul_run(mm, a.data(), b.data(), c.data());
        if (st) {
          hlx_status_free(st);
          errors++;
        }
        hlx_onednn_matmul_release(mm);
        for (int64_t i = 0; i < M; i++)
          for (int64_t j = 0; j < N; j++) {
            float want = 0;
            for (int64_t k = 0; k < K; k++) want += a[i * K + k] * b[k * N + j];
            if (c[i * N + j] != want) bad++;
          }
      }
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(bad.load(), 0);
  hlx_onednn_cache_stats_t s1;
  hlx_onednn_cache_stats(&s1);
  EXPECT_EQ(s1.live - s1.idle, s0.live - s0.idle);  // none left in use
  EXPECT_LE(s1.idle, 1);
  EXPECT_GE(s1.builds, s0.builds + 4);
  hlx_onednn_cache_set_idle_capacity(prev);
}

}  // namespace
