// oneDNN matmul and convolution wrappers against the reference kernels
// (kernels/ref/dot.c, kernels/ref/conv.c) on random data.
//
// Tolerances: a sum of K products computed in f32 in any order differs from
// the exact sum by at most gamma_K * sum_k |a_k b_k| with gamma_K ~ K * u
// (u = 2^-24); both the reference and oneDNN are within that bound, so they
// are within 2 * K * u * sum|a b| of each other. Integer products are exact.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "base/float_formats.h"
#include "kernels/conv.h"
#include "kernels/dot.h"
#include "kernels/libs/onednn.h"
#include "tests/kernels/random_floats.h"

namespace {

using hlx_test::RandomFloats;

struct MatCase {
  int64_t B, M, N, K;
  bool a_trans, b_trans;  // stored as [B, K, M] / [B, N, K]
  int64_t pad;            // extra leading-dimension padding
};

// Runs one f32 matmul through oneDNN with the given layouts and checks it
// against the reference on contiguous copies.
void CheckF32(const MatCase& c, int32_t threads) {
  int64_t lda = (c.a_trans ? c.M : c.K) + c.pad;
  int64_t ldb = (c.b_trans ? c.K : c.N) + c.pad;
  int64_t a_rows = c.a_trans ? c.K : c.M, b_rows = c.b_trans ? c.N : c.K;
  std::vector<float> a = RandomFloats(c.B * a_rows * lda, 1 + c.M);
  std::vector<float> b = RandomFloats(c.B * b_rows * ldb, 2 + c.N);
  hlx_onednn_matmul_desc_t d;
  hlx_onednn_matmul_desc_init(&d, HLX_DTYPE_F32, HLX_DTYPE_F32, HLX_DTYPE_F32,
                              c.B, c.M, c.N, c.K);
  d.threads = threads;
  d.a_strides[0] = a_rows * lda;
  d.a_strides[1] = c.a_trans ? 1 : lda;
  d.a_strides[2] = c.a_trans ? lda : 1;
  d.b_strides[0] = b_rows * ldb;
  d.b_strides[1] = c.b_trans ? 1 : ldb;
  d.b_strides[2] = c.b_trans ? ldb : 1;
  hlx_onednn_matmul_t* mm = nullptr;
  hlx_status_t st = hlx_onednn_matmul_create(&d, &mm);
  ASSERT_EQ(st, nullptr) << hlx_status_message(st);
  std::vector<float> out(c.B * c.M * c.N, NAN);
  ASSERT_EQ(hlx_onednn_matmul_run(mm, a.data(), b.data(), out.data()),
            nullptr);
  // Canonical copies for the reference, plus |a|, |b| for the bound.
  std::vector<float> ca(c.B * c.M * c.K), cb(c.B * c.K * c.N);
  std::vector<float> aa(ca.size()), ab(cb.size());
  for (int64_t bb = 0; bb < c.B; bb++)
    for (int64_t m = 0; m < c.M; m++)
      for (int64_t k = 0; k < c.K; k++) {
        float v = a[bb * d.a_strides[0] + m * d.a_strides[1] +
                    k * d.a_strides[2]];
        ca[(bb * c.M + m) * c.K + k] = v;
        aa[(bb * c.M + m) * c.K + k] = std::fabs(v);
      }
  for (int64_t bb = 0; bb < c.B; bb++)
    for (int64_t k = 0; k < c.K; k++)
      for (int64_t n = 0; n < c.N; n++) {
        float v = b[bb * d.b_strides[0] + k * d.b_strides[1] +
                    n * d.b_strides[2]];
        cb[(bb * c.K + k) * c.N + n] = v;
        ab[(bb * c.K + k) * c.N + n] = std::fabs(v);
      }
  std::vector<float> ref(out.size()), mag(out.size());
  hlx_ref_batch_matmul_f32(c.B, c.M, c.N, c.K, ca.data(), cb.data(),
                           ref.data());
  hlx_ref_batch_matmul_f32(c.B, c.M, c.N, c.K, aa.data(), ab.data(),
                           mag.data());
  for (size_t i = 0; i < out.size(); i++) {
    double tol = 2.0 * c.K * FLT_EPSILON * mag[i] + 1e-30;
    ASSERT_NEAR(out[i], ref[i], tol)
        << "element " << i << " of B=" << c.B << " M=" << c.M << " N=" << c.N
        << " K=" << c.K << " impl " << hlx_onednn_matmul_impl(mm);
  }
}

TEST(OnednnMatmul, F32ShapesAndLayouts) {
  const MatCase cases[] = {
      {1, 1, 1, 1, false, false, 0},    {1, 3, 5, 7, false, false, 0},
      {1, 17, 33, 65, false, false, 0}, {1, 100, 70, 130, false, false, 0},
      {1, 64, 64, 64, true, false, 0},  {1, 31, 29, 37, false, true, 0},
      {1, 31, 29, 37, true, true, 0},   {3, 9, 11, 13, false, false, 0},
      {4, 33, 17, 40, true, false, 0},  {2, 20, 30, 40, false, true, 0},
      {1, 40, 30, 20, false, false, 5}, {2, 12, 16, 24, true, true, 3},
      {1, 257, 129, 300, false, false, 0},
  };
  for (const MatCase& c : cases) {
    SCOPED_TRACE(testing::Message() << c.B << "x" << c.M << "x" << c.N << "x"
                                    << c.K);
    CheckF32(c, 0);
    CheckF32(c, 1);
  }
}

TEST(OnednnMatmul, CacheReturnsOneObjectAcrossThreads) {
  hlx_onednn_matmul_desc_t d;
  hlx_onednn_matmul_desc_init(&d, HLX_DTYPE_F32, HLX_DTYPE_F32, HLX_DTYPE_F32,
                              2, 19, 23, 29);
  d.threads = 1;
  hlx_onednn_matmul_t* got[4] = {};
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; t++)
    ts.emplace_back([&, t] {
      hlx_status_t st = hlx_onednn_matmul_create(&d, &got[t]);
      if (st) hlx_status_free(st);
    });
  for (auto& t : ts) t.join();
  ASSERT_NE(got[0], nullptr);
  for (int t = 1; t < 4; t++) EXPECT_EQ(got[t], got[0]);
  // Concurrent runs of the one primitive agree bitwise.
  std::vector<float> a = RandomFloats(2 * 19 * 29, 7),
                     b = RandomFloats(2 * 29 * 23, 8);
  std::vector<std::vector<float>> outs(4, std::vector<float>(2 * 19 * 23));
  ts.clear();
  for (int t = 0; t < 4; t++)
    ts.emplace_back([&, t] {
      hlx_status_t st =
          hlx_onednn_matmul_run(got[0], a.data(), b.data(), outs[t].data());
      if (st) hlx_status_free(st);
    });
  for (auto& t : ts) t.join();
  for (int t = 1; t < 4; t++) EXPECT_EQ(outs[t], outs[0]);
  hlx_onednn_matmul_t* again = nullptr;
  ASSERT_EQ(hlx_onednn_matmul_create(&d, &again), nullptr);
  EXPECT_EQ(again, got[0]);
}

TEST(OnednnMatmul, Bf16WithF32Accumulation) {
  const int64_t B = 2, M = 37, N = 45, K = 70;
  std::vector<float> fa = RandomFloats(B * M * K, 11),
                     fb = RandomFloats(B * K * N, 12);
  std::vector<uint16_t> ha(fa.size()), hb(fb.size());
  for (size_t i = 0; i < fa.size(); i++) {
    ha[i] = hlx_f32_to_bf16(fa[i]);
    fa[i] = hlx_bf16_to_f32(ha[i]);
  }
  for (size_t i = 0; i < fb.size(); i++) {
    hb[i] = hlx_f32_to_bf16(fb[i]);
    fb[i] = hlx_bf16_to_f32(hb[i]);
  }
  hlx_onednn_matmul_desc_t d;
  hlx_onednn_matmul_desc_init(&d, HLX_DTYPE_BF16, HLX_DTYPE_BF16,
                              HLX_DTYPE_F32, B, M, N, K);
  hlx_onednn_matmul_t* mm = nullptr;
  hlx_status_t st = hlx_onednn_matmul_create(&d, &mm);
  if (st && hlx_status_code(st) == HLX_STATUS_UNIMPLEMENTED) {
    hlx_status_free(st);
    GTEST_SKIP() << "no bf16 matmul on this CPU";
  }
  ASSERT_EQ(st, nullptr) << hlx_status_message(st);
  std::vector<float> out(B * M * N), ref(out.size()), mag(out.size());
  ASSERT_EQ(hlx_onednn_matmul_run(mm, ha.data(), hb.data(), out.data()),
            nullptr);
  hlx_ref_batch_matmul_f32(B, M, N, K, fa.data(), fb.data(), ref.data());
  for (auto& x : fa) x = std::fabs(x);
  for (auto& x : fb) x = std::fabs(x);
  hlx_ref_batch_matmul_f32(B, M, N, K, fa.data(), fb.data(), mag.data());
  for (size_t i = 0; i < out.size(); i++)
    ASSERT_NEAR(out[i], ref[i], 2.0 * K * FLT_EPSILON * mag[i] + 1e-30) << i;
}

template <typename A>
void CheckInt8(hlx_dtype_t at, int64_t B, int64_t M, int64_t N, int64_t K) {
  std::mt19937 g(static_cast<uint32_t>(M * 131 + N));
  std::vector<A> a(B * M * K);
  std::vector<int8_t> b(B * K * N);
  std::vector<int64_t> wa(a.size()), wb(b.size());
  for (size_t i = 0; i < a.size(); i++) {
    a[i] = static_cast<A>(g());
    wa[i] = a[i];
  }
  for (size_t i = 0; i < b.size(); i++) {
    b[i] = static_cast<int8_t>(g());
    wb[i] = b[i];
  }
  hlx_onednn_matmul_desc_t d;
  hlx_onednn_matmul_desc_init(&d, at, HLX_DTYPE_S8, HLX_DTYPE_S32, B, M, N, K);
  hlx_onednn_matmul_t* mm = nullptr;
  hlx_status_t st = hlx_onednn_matmul_create(&d, &mm);
  if (!hlx_onednn_int8_exact()) {  // saturating kernels: must decline
    ASSERT_NE(st, nullptr);
    EXPECT_EQ(hlx_status_code(st), HLX_STATUS_UNIMPLEMENTED);
    hlx_status_free(st);
    return;
  }
  ASSERT_EQ(st, nullptr) << hlx_status_message(st);
  std::vector<int32_t> out(B * M * N);
  ASSERT_EQ(hlx_onednn_matmul_run(mm, a.data(), b.data(), out.data()),
            nullptr);
  std::vector<int64_t> ref(out.size());
  hlx_ref_batch_matmul_s64(B, M, N, K, wa.data(), wb.data(), ref.data());
  for (size_t i = 0; i < out.size(); i++) ASSERT_EQ(out[i], ref[i]) << i;
}

TEST(OnednnMatmul, Int8ExactWithS32Accumulation) {
  CheckInt8<uint8_t>(HLX_DTYPE_U8, 1, 33, 47, 129);
  CheckInt8<int8_t>(HLX_DTYPE_S8, 3, 17, 16, 64);
  CheckInt8<uint8_t>(HLX_DTYPE_U8, 2, 5, 3, 1000);
}

TEST(OnednnMatmul, RejectsUnsupportedTypes) {
  hlx_onednn_matmul_desc_t d;
  hlx_onednn_matmul_desc_init(&d, HLX_DTYPE_F64, HLX_DTYPE_F64, HLX_DTYPE_F64,
                              1, 4, 4, 4);
  hlx_onednn_matmul_t* mm = nullptr;
  hlx_status_t st = hlx_onednn_matmul_create(&d, &mm);
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(hlx_status_code(st), HLX_STATUS_UNIMPLEMENTED);
  EXPECT_EQ(mm, nullptr);
  hlx_status_free(st);
}

// A run without the operands its post-ops read is an error, not a crash;
// post-ops that read nothing need none.
TEST(OnednnMatmul, RunWithoutPostOpOperandsIsAnError) {
  hlx_onednn_matmul_desc_t d;
  hlx_onednn_matmul_desc_init(&d, HLX_DTYPE_F32, HLX_DTYPE_F32, HLX_DTYPE_F32,
                              1, 5, 7, 3);
  d.num_post_ops = 2;
  d.post_ops[0] = {HLX_ONEDNN_POST_RELU, HLX_ONEDNN_OPERAND_NONE};
  d.post_ops[1] = {HLX_ONEDNN_POST_ADD, HLX_ONEDNN_OPERAND_PER_FEATURE};
  hlx_onednn_matmul_t* mm = nullptr;
  ASSERT_EQ(hlx_onednn_matmul_create(&d, &mm), nullptr);
  std::vector<float> a = RandomFloats(5 * 3, 1), b = RandomFloats(3 * 7, 2),
                     c(5 * 7);
  hlx_status_t st = hlx_onednn_matmul_run(mm, a.data(), b.data(), c.data());
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(hlx_status_code(st), HLX_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(hlx_status_message(st)).find("post-op"),
            std::string::npos);
  hlx_status_free(st);
  hlx_onednn_matmul_release(mm);

  d.num_post_ops = 1;  // relu alone reads nothing
  ASSERT_EQ(hlx_onednn_matmul_create(&d, &mm), nullptr);
  st = hlx_onednn_matmul_run(mm, a.data(), b.data(), c.data());
  EXPECT_EQ(st, nullptr) << hlx_status_message(st);
  for (float v : c) EXPECT_GE(v, 0.0f);
  hlx_onednn_matmul_release(mm);
}

// ---- convolution ----

struct ConvCase {
  int32_t ns;
  int64_t n, c, o, g;
  int64_t s[3], k[3], stride[3], pad_lo[3], pad_hi[3], dil[3];
  bool nchw;  // JAX layouts (NCHW / OIHW) instead of NHWC / HWIO
  bool nchw_dst = false;  // result NCHW too (else NHWC)
  // post-ops after a per-feature bias: a per-feature add (or with `sum`, a
  // whole-tensor add, as a residual connection), then relu
  bool post = false, sum = false;
  // expected HLX_ONEDNN_REORDER_* bits when the CPU has blocked kernels,
  // -1: any
  int32_t reorders = -1;
};

void CheckConv(const ConvCase& cc) {
  hlx_conv_params_t p;
  std::memset(&p, 0, sizeof(p));
  p.num_spatial = cc.ns;
  p.batch = cc.n;
  p.in_features = cc.c;
  p.out_features = cc.o;
  p.kernel_in_features = cc.c / cc.g;
  p.feature_group_count = cc.g;
  p.batch_group_count = 1;
  int64_t in_sz = 1, k_sz = 1, out_sz = 1;
  for (int i = 0; i < cc.ns; i++) {
    p.in_spatial[i] = cc.s[i];
    p.kernel_spatial[i] = cc.k[i];
    p.stride[i] = cc.stride[i];
    p.pad_lo[i] = cc.pad_lo[i];
    p.lhs_dilation[i] = 1;
    p.rhs_dilation[i] = cc.dil[i];
    p.out_spatial[i] = hlx_conv_num_windows(cc.s[i], cc.k[i], cc.stride[i],
                                            cc.pad_lo[i], cc.pad_hi[i], 1,
                                            cc.dil[i]);
    ASSERT_GT(p.out_spatial[i], 0);
    in_sz *= cc.s[i];
    k_sz *= cc.k[i];
    out_sz *= p.out_spatial[i];
  }
  int64_t ci = cc.c / cc.g;
  // Canonical data: lhs [N, S..., C], rhs [K..., Ci, O], out [N, P..., O].
  std::vector<float> lhs = RandomFloats(cc.n * in_sz * cc.c, 21);
  std::vector<float> rhs = RandomFloats(k_sz * ci * cc.o, 22);
  std::vector<double> dl(lhs.begin(), lhs.end()), dr(rhs.begin(), rhs.end());
  std::vector<double> ref(cc.n * out_sz * cc.o), mag(ref.size());
  ASSERT_TRUE(hlx_ref_conv_f64(&p, dl.data(), dr.data(), ref.data()));
  for (auto& x : dl) x = std::fabs(x);
  for (auto& x : dr) x = std::fabs(x);
  ASSERT_TRUE(hlx_ref_conv_f64(&p, dl.data(), dr.data(), mag.data()));

  hlx_onednn_conv_desc_t d;
  hlx_onednn_conv_desc_zero(&d);
  d.num_spatial = cc.ns;
  d.batch = cc.n;
  d.in_features = cc.c;
  d.out_features = cc.o;
  d.groups = cc.g;
  for (int i = 0; i < cc.ns; i++) {
    d.in_spatial[i] = cc.s[i];
    d.kernel_spatial[i] = cc.k[i];
    d.out_spatial[i] = p.out_spatial[i];
    d.stride[i] = cc.stride[i];
    d.pad_lo[i] = cc.pad_lo[i];
    d.dilation[i] = cc.dil[i];
  }
  // Row-major strides of the canonical arrays, in oneDNN's logical order.
  std::vector<float> src = lhs, wei = rhs;
  {
    int64_t st = cc.c;  // spatial strides of lhs (innermost last)
    for (int i = cc.ns - 1; i >= 0; i--) {
      d.src_strides[2 + i] = st;
      st *= cc.s[i];
    }
    d.src_strides[1] = 1;
    d.src_strides[0] = st;
    st = cc.o;
    for (int i = cc.ns - 1; i >= 0; i--) {
      d.dst_strides[2 + i] = st;
      st *= p.out_spatial[i];
    }
    d.dst_strides[1] = 1;
    d.dst_strides[0] = st;
    st = ci * cc.o;
    for (int i = cc.ns - 1; i >= 0; i--) {
      d.wei_strides[2 + i] = st;
      st *= cc.k[i];
    }
    d.wei_strides[0] = 1;
    d.wei_strides[1] = cc.o;
  }
  if (cc.nchw) {
    // Physically transpose src to [N, C, S...] and weights to [O, Ci, K...].
    for (int64_t b = 0; b < cc.n; b++)
      for (int64_t f = 0; f < cc.c; f++)
        for (int64_t s = 0; s < in_sz; s++)
          src[(b * cc.c + f) * in_sz + s] = lhs[(b * in_sz + s) * cc.c + f];
    for (int64_t o = 0; o < cc.o; o++)
      for (int64_t i = 0; i < ci; i++)
        for (int64_t s = 0; s < k_sz; s++)
          wei[(o * ci + i) * k_sz + s] = rhs[(s * ci + i) * cc.o + o];
    int64_t st = 1;
    for (int i = cc.ns - 1; i >= 0; i--) {
      d.src_strides[2 + i] = st;
      st *= cc.s[i];
    }
    d.src_strides[1] = in_sz;
    d.src_strides[0] = in_sz * cc.c;
    st = 1;
    for (int i = cc.ns - 1; i >= 0; i--) {
      d.wei_strides[2 + i] = st;
      st *= cc.k[i];
    }
    d.wei_strides[1] = k_sz;
    d.wei_strides[0] = k_sz * ci;
  }
  // out[i] of the canonical [N, P..., O] result sits at dst[at(i)]
  auto at = [&](size_t i) -> size_t {
    if (!cc.nchw_dst) return i;
    size_t o = i % cc.o, s = i / cc.o % out_sz, b = i / cc.o / out_sz;
    return (b * cc.o + o) * out_sz + s;
  };
  if (cc.nchw_dst) {
    int64_t st = 1;
    for (int i = cc.ns - 1; i >= 0; i--) {
      d.dst_strides[2 + i] = st;
      st *= p.out_spatial[i];
    }
    d.dst_strides[1] = out_sz;
    d.dst_strides[0] = out_sz * cc.o;
  }
  // Post-ops, applied to ref in f64; each f32 step rounds once more, by
  // at most FLT_EPSILON of the magnitudes it adds (bound).
  std::vector<float> bias = RandomFloats(cc.o, 23),
                     feat = RandomFloats(cc.o, 24);
  std::vector<float> whole = RandomFloats(ref.size(), 25), summed(ref.size());
  std::vector<double> bound(ref.size(), 0.0);
  const void* post_args[HLX_ONEDNN_MAX_POST_OPS] = {};
  if (cc.post) {
    d.has_bias = 1;
    d.post_ops[d.num_post_ops++] = {
        HLX_ONEDNN_POST_ADD, cc.sum ? HLX_ONEDNN_OPERAND_FULL
                                    : HLX_ONEDNN_OPERAND_PER_FEATURE};
    d.post_ops[d.num_post_ops++] = {HLX_ONEDNN_POST_RELU,
                                    HLX_ONEDNN_OPERAND_NONE};
    post_args[0] = cc.sum ? summed.data() : feat.data();
    for (size_t i = 0; i < ref.size(); i++) {
      size_t o = i % cc.o;
      double add = cc.sum ? whole[i] : feat[o];
      if (cc.sum) summed[at(i)] = whole[i];
      double v = ref[i] + bias[o] + add;
      bound[i] = 4.0 * FLT_EPSILON *
                 (std::fabs(ref[i]) + std::fabs(bias[o]) + std::fabs(add));
      ref[i] = v > 0 ? v : 0;
    }
  }
  hlx_onednn_conv_t* cv = nullptr;
  hlx_status_t st = hlx_onednn_conv_create(&d, &cv);
  ASSERT_EQ(st, nullptr) << hlx_status_message(st);
  if (cc.reorders >= 0 && hlx_onednn_act_block() > 0)
    EXPECT_EQ(hlx_onednn_conv_reorders(cv), cc.reorders)
        << "impl " << hlx_onednn_conv_impl(cv);
  std::vector<float> out(ref.size(), NAN);
  ASSERT_EQ(hlx_onednn_conv_run_ex(cv, src.data(), wei.data(), nullptr,
                                   cc.post ? bias.data() : nullptr, post_args,
                                   out.data()),
            nullptr);
  double k_terms = static_cast<double>(ci * k_sz);
  for (size_t i = 0; i < out.size(); i++)
    ASSERT_NEAR(out[at(i)], ref[i],
                2.0 * k_terms * FLT_EPSILON * mag[i] + bound[i] + 1e-30)
        << "element " << i << " impl " << hlx_onednn_conv_impl(cv);
  // Pre-packed weights give the same bits.
  size_t pb = hlx_onednn_conv_packed_weights_bytes(cv);
  ASSERT_GT(pb, 0u);
  void* packed = aligned_alloc(64, (pb + 63) / 64 * 64);
  ASSERT_EQ(hlx_onednn_conv_pack_weights(cv, wei.data(), packed), nullptr);
  std::vector<float> out2(ref.size(), NAN);
  ASSERT_EQ(hlx_onednn_conv_run_ex(cv, src.data(), nullptr, packed,
                                   cc.post ? bias.data() : nullptr, post_args,
                                   out2.data()),
            nullptr);
  free(packed);
  EXPECT_EQ(0, std::memcmp(out.data(), out2.data(),
                           out.size() * sizeof(float)));
}

TEST(OnednnConv, MatchesReference) {
  const ConvCase cases[] = {
      // 2-D, NHWC/HWIO, no padding
      {2, 2, 3, 8, 1, {9, 10}, {3, 3}, {1, 1}, {0, 0}, {0, 0}, {1, 1}, false},
      // strides, asymmetric padding, NCHW
      {2, 1, 5, 7, 1, {13, 11}, {3, 2}, {2, 3}, {1, 0}, {2, 1}, {1, 1}, true},
      // dilation
      {2, 2, 4, 6, 1, {16, 15}, {3, 3}, {1, 2}, {2, 2}, {2, 2}, {2, 3}, false},
      // groups (depthwise-like and 2 groups)
      {2, 1, 8, 8, 8, {12, 12}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, true},
      {2, 2, 6, 4, 2, {7, 9}, {2, 3}, {1, 2}, {0, 1}, {1, 0}, {1, 1}, false},
      // 1-D and 3-D
      {1, 3, 4, 5, 1, {28}, {3}, {2}, {1}, {1}, {2}, false},
      {3, 1, 3, 4, 1, {6, 7, 5}, {2, 3, 2}, {1, 2, 1}, {1, 0, 1}, {0, 1, 1},
       {1, 1, 2}, true},
      // ResNet stem shape, shrunk: 7x7 stride 2, 3 -> 16 channels
      {2, 1, 3, 16, 1, {32, 32}, {7, 7}, {2, 2}, {3, 3}, {2, 2}, {1, 1}, true},
      // bigger channels (blocked layouts)
      {2, 2, 32, 48, 1, {10, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, false},
  };
  int idx = 0;
  for (const ConvCase& c : cases) {
    SCOPED_TRACE(testing::Message() << "case " << idx++);
    CheckConv(c);
  }
}

// A lone layer in NCHW: 1x1 stride-1 unpadded convolutions with 128 or more
// outputs per image read and write the caller's layouts (oneDNN's gemm, no
// reorder); smaller, strided or padded ones and a first layer with few input
// features keep the other routes. Odd sizes, with and without post-ops.
TEST(OnednnConv, PlainLayoutsOfALoneLayer) {
  const int32_t none = 0, src = HLX_ONEDNN_REORDER_SRC,
                dst = HLX_ONEDNN_REORDER_DST, any = -1;
  struct Named {
    const char* what;
    ConvCase c;
  };
  const Named cases[] = {
      {"1x1 17->33 at 13x11, batch 2",
       {2, 2, 17, 33, 1, {13, 11}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, {1, 1},
        true, true, false, false, none}},
      {"1x1 with bias, per-feature add, relu",
       {2, 1, 19, 32, 1, {12, 13}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, {1, 1},
        true, true, true, false, none}},
      {"1x1 with bias, a whole-tensor add and relu",
       {2, 3, 16, 7, 1, {9, 15}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, {1, 1},
        true, true, true, true, none}},
      {"1x1 1-D and 3-D",
       {1, 2, 5, 9, 1, {200}, {1}, {1}, {0}, {0}, {1}, true, true, false,
        false, none}},
      {"1x1 3-D",
       {3, 1, 6, 10, 1, {5, 6, 7}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, {0, 0, 0},
        {1, 1, 1}, true, true, true, false, none}},
      // fallbacks: too few outputs, strided, padded, grouped, NHWC result
      {"1x1 at 7x7 (blocked kernel, reorders)",
       {2, 1, 64, 48, 1, {7, 7}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, {1, 1}, true,
        true, true, false, any}},
      {"1x1 stride 2",
       {2, 2, 32, 16, 1, {23, 24}, {1, 1}, {2, 2}, {0, 0}, {0, 0}, {1, 1},
        true, true, true, false, any}},
      {"1x1 padded",
       {2, 1, 16, 16, 1, {12, 12}, {1, 1}, {1, 1}, {1, 0}, {0, 1}, {1, 1},
        true, true, false, false, any}},
      {"1x1 grouped",
       {2, 1, 16, 32, 4, {12, 12}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, {1, 1},
        true, true, false, false, any}},
      {"1x1 NCHW in, NHWC out",
       {2, 1, 24, 40, 1, {16, 12}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, {1, 1},
        true, false, true, false, any}},
      // the first layer: nchw src read as it is, dst blocked
      {"7x7/2 3->64 at 45x38",
       {2, 1, 3, 64, 1, {45, 38}, {7, 7}, {2, 2}, {3, 3}, {2, 3}, {1, 1},
        true, true, false, false, dst}},
      {"7x7/2 3->64 with post-ops",
       {2, 2, 3, 64, 1, {30, 29}, {7, 7}, {2, 2}, {3, 3}, {3, 2}, {1, 1},
        true, true, true, false, dst}},
      {"3x3 4->16, 2 images",
       {2, 2, 4, 16, 1, {17, 19}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1},
        true, true, true, false, dst}},
      // more input features: blocked kernel and both reorders
      {"3x3 16->16",
       {2, 1, 16, 16, 1, {14, 14}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1},
        true, true, true, false, src | dst}},
  };
  for (const Named& n : cases) {
    SCOPED_TRACE(n.what);
    CheckConv(n.c);
  }
  // The A/B switch HLX_CONV_NO_PLAIN=1 (a shape no other case builds: the
  // primitive cache is keyed by the descriptor): blocked kernel, reorders.
  setenv("HLX_CONV_NO_PLAIN", "1", 1);
  CheckConv({2, 1, 21, 35, 1, {16, 17}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, {1, 1},
             true, true, true, false, src | dst});
  unsetenv("HLX_CONV_NO_PLAIN");
}

// The per-thread workspace: convolutions of different sizes (it grows)
// alternating on two threads at once give the bits of a lone run.
TEST(OnednnConv, WorkspaceSharedByConvolutionsAndThreads) {
  struct Layer {
    int64_t c, o, s, k, stride, pad;
  };
  const Layer layers[] = {{16, 16, 14, 3, 1, 1}, {32, 48, 40, 3, 2, 1},
                          {64, 16, 28, 1, 2, 0}};
  const int kLayers = 3;
  hlx_onednn_conv_t* cv[kLayers];
  std::vector<float> src[kLayers], wei[kLayers], want[kLayers];
  size_t out_n[kLayers];
  for (int l = 0; l < kLayers; l++) {
    const Layer& y = layers[l];
    int64_t os = (y.s + 2 * y.pad - y.k) / y.stride + 1;
    hlx_onednn_conv_desc_t d;
    hlx_onednn_conv_desc_zero(&d);
    d.num_spatial = 2;
    d.threads = 1;
    d.batch = 1, d.in_features = y.c, d.out_features = y.o, d.groups = 1;
    for (int i = 0; i < 2; i++) {
      d.in_spatial[i] = y.s, d.kernel_spatial[i] = y.k, d.out_spatial[i] = os;
      d.stride[i] = y.stride, d.pad_lo[i] = y.pad, d.dilation[i] = 1;
    }
    // NCHW / OIHW / NCHW
    d.src_strides[0] = y.c * y.s * y.s, d.src_strides[1] = y.s * y.s;
    d.src_strides[2] = y.s, d.src_strides[3] = 1;
    d.wei_strides[0] = y.c * y.k * y.k, d.wei_strides[1] = y.k * y.k;
    d.wei_strides[2] = y.k, d.wei_strides[3] = 1;
    d.dst_strides[0] = y.o * os * os, d.dst_strides[1] = os * os;
    d.dst_strides[2] = os, d.dst_strides[3] = 1;
    ASSERT_EQ(hlx_onednn_conv_create(&d, &cv[l]), nullptr);
    src[l] = RandomFloats(y.c * y.s * y.s, 31 + l);
    wei[l] = RandomFloats(y.o * y.c * y.k * y.k, 41 + l);
    out_n[l] = static_cast<size_t>(y.o * os * os);
    want[l].assign(out_n[l], NAN);
    ASSERT_EQ(hlx_onednn_conv_run(cv[l], src[l].data(), wei[l].data(), nullptr,
                                  want[l].data()),
              nullptr);
  }
  bool ok[2] = {true, true};
  auto worker = [&](int t) {
    std::vector<float> out;
    for (int it = 0; it < 20; it++) {
      int l = (it + t) % kLayers;
      out.assign(out_n[l], NAN);
      if (hlx_onednn_conv_run(cv[l], src[l].data(), wei[l].data(), nullptr,
                              out.data()) != nullptr ||
          std::memcmp(out.data(), want[l].data(), out_n[l] * sizeof(float)))
        ok[t] = false;
    }
  };
  std::thread a(worker, 0), b(worker, 1);
  a.join();
  b.join();
  EXPECT_TRUE(ok[0]);
  EXPECT_TRUE(ok[1]);
}

}  // namespace

// A convolution created with a bias or post-op operands and run without
// them is an error naming the op, not a crash.
TEST(OnednnConv, RunWithoutBiasOrPostOpOperandsIsAnError) {
  hlx_onednn_conv_desc_t d;
  hlx_onednn_conv_desc_zero(&d);
  d.num_spatial = 2;
  d.batch = 1, d.in_features = 3, d.out_features = 4, d.groups = 1;
  for (int i = 0; i < 2; i++) {
    d.in_spatial[i] = 6, d.kernel_spatial[i] = 3, d.out_spatial[i] = 4;
    d.stride[i] = 1, d.dilation[i] = 1;
  }
  // NHWC src/dst, HWIO weights
  d.src_strides[0] = 6 * 6 * 3, d.src_strides[1] = 1;
  d.src_strides[2] = 6 * 3, d.src_strides[3] = 3;
  d.dst_strides[0] = 4 * 4 * 4, d.dst_strides[1] = 1;
  d.dst_strides[2] = 4 * 4, d.dst_strides[3] = 4;
  d.wei_strides[0] = 1, d.wei_strides[1] = 4;
  d.wei_strides[2] = 3 * 3 * 4, d.wei_strides[3] = 3 * 4;
  d.has_bias = 1;
  std::vector<float> src = RandomFloats(6 * 6 * 3, 1),
                     wei = RandomFloats(3 * 3 * 12, 2);
  std::vector<float> dst(4 * 4 * 4), bias = RandomFloats(4, 3);
  hlx_onednn_conv_t* cv = nullptr;
  ASSERT_EQ(hlx_onednn_conv_create(&d, &cv), nullptr);
  hlx_status_t st =
      hlx_onednn_conv_run(cv, src.data(), wei.data(), nullptr, dst.data());
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(hlx_status_code(st), HLX_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(hlx_status_message(st)).find("convolution"),
            std::string::npos);
  hlx_status_free(st);
  EXPECT_EQ(hlx_onednn_conv_run_ex(cv, src.data(), wei.data(), nullptr,
                                   bias.data(), nullptr, dst.data()),
            nullptr);
  hlx_onednn_conv_release(cv);

  d.num_post_ops = 1;
  d.post_ops[0] = {HLX_ONEDNN_POST_ADD, HLX_ONEDNN_OPERAND_PER_FEATURE};
  ASSERT_EQ(hlx_onednn_conv_create(&d, &cv), nullptr);
  st = hlx_onednn_conv_run_ex(cv, src.data(), wei.data(), nullptr, bias.data(),
                              nullptr, dst.data());
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(hlx_status_code(st), HLX_STATUS_INVALID_ARGUMENT);
  hlx_status_free(st);
  hlx_onednn_conv_release(cv);
}
