// oneDNN matmul with b packed into the primitive's own layout
// (desc.b_packed, hlx_onednn_matmul_pack_b) against the same product with
// plain b, for row- and column-major b, with a post-op and on two threads.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <vector>

#include "kernels/libs/onednn.h"
#include "tests/kernels/random_floats.h"

namespace {

using hlx_test::RandomFloats;

struct Case {
  int64_t m, n, k;
  bool b_trans;  // b stored as [n, k]
  int32_t threads;
  bool relu;
};

std::vector<float> Multiply(const Case& c, bool packed, const std::vector<float>& a,
                       const std::vector<float>& b) {
  hlx_onednn_matmul_desc_t d;
  hlx_onednn_matmul_desc_init(&d, HLX_DTYPE_F32, HLX_DTYPE_F32, HLX_DTYPE_F32,
                              1, c.m, c.n, c.k);
  d.threads = c.threads;
  if (c.b_trans) d.b_strides[1] = 1, d.b_strides[2] = c.k;
  if (c.relu) {
    d.num_post_ops = 1;
    d.post_ops[0] = {HLX_ONEDNN_POST_RELU, HLX_ONEDNN_OPERAND_NONE};
  }
  d.b_packed = packed;
  hlx_onednn_matmul_t* mm = nullptr;
  hlx_status_t st = hlx_onednn_matmul_create(&d, &mm);
  EXPECT_EQ(st, nullptr) << hlx_status_message(st);
  if (st) {
    hlx_status_free(st);
    return {};
  }
  std::vector<float> out(c.m * c.n, NAN);
  void* pb = nullptr;
  const void* bp = b.data();
  if (packed) {
    size_t bytes = hlx_onednn_matmul_packed_b_bytes(mm);
    EXPECT_GE(bytes, b.size() * sizeof(float));
    pb = aligned_alloc(64, (bytes + 63) / 64 * 64);
    EXPECT_EQ(hlx_onednn_matmul_pack_b(mm, b.data(), pb), nullptr);
    bp = pb;
  }
  EXPECT_EQ(hlx_onednn_matmul_run(mm, a.data(), bp, out.data()), nullptr);
  free(pb);
  hlx_onednn_matmul_release(mm);
  return out;
}

TEST(OnednnMatmulPacked, MatchesPlainWeights) {
  const Case cases[] = {
      {257, 256, 256, false, 1, false}, {200, 1024, 256, false, 2, true},
      {130, 256, 1024, false, 1, true}, {97, 80, 72, true, 1, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::Message() << c.m << "x" << c.n << "x" << c.k
                                    << (c.b_trans ? " b^T" : ""));
    std::vector<float> a = RandomFloats(c.m * c.k, 1),
                       b = RandomFloats(c.k * c.n, 2);
    std::vector<float> plain = Multiply(c, false, a, b),
                       packed = Multiply(c, true, a, b);
    ASSERT_EQ(plain.size(), static_cast<size_t>(c.m * c.n));
    ASSERT_EQ(packed.size(), plain.size());
    // Both sum k products in f32, maybe in different orders: within
    // 2 * k * eps * sum|a b| <= 2 * k * eps * k (|a|, |b| < 1).
    float tol = 2.0f * c.k * c.k * 1.2e-7f;
    for (size_t i = 0; i < plain.size(); i++)
      ASSERT_NEAR(packed[i], plain[i], tol) << i;
  }
}

TEST(OnednnMatmulPacked, PackingAnUnpackedMatmulIsAnError) {
  hlx_onednn_matmul_desc_t d;
  hlx_onednn_matmul_desc_init(&d, HLX_DTYPE_F32, HLX_DTYPE_F32, HLX_DTYPE_F32,
                              1, 130, 20, 24);
  hlx_onednn_matmul_t* mm = nullptr;
  ASSERT_EQ(hlx_onednn_matmul_create(&d, &mm), nullptr);
  std::vector<float> b(24 * 20), out(24 * 20);
  hlx_status_t st = hlx_onednn_matmul_pack_b(mm, b.data(), out.data());
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(hlx_status_code(st), HLX_STATUS_INVALID_ARGUMENT);
  hlx_status_free(st);
  hlx_onednn_matmul_release(mm);
}

}  // namespace
