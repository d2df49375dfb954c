// A lone NCHW convolution's boundary reorders done by hlx's transpose
// (kernels/libs/onednn_conv.c channel_block: nchw <-> channels last, or
// nChw16c/8c band by band for a first layer) against a direct f64
// convolution: odd sizes whose thread ranges end mid-line, batches,
// strides, asymmetric padding, post-ops, one and two threads, and the A/B
// switches HLX_CONV_ONEDNN_REORDER=1 and HLX_CONV_NO_BANDS=1.
//
// Tolerance as in onednn_test.cc: both sides within K * u * sum|a b| of the
// exact sum, so within 2 K u sum|a b| (+ the bias/post-op roundings).
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "kernels/libs/onednn.h"
#include "tests/kernels/random_floats.h"

namespace {

using hlx_test::RandomFloats;

struct Case {
  const char* what;
  int64_t n, c, o, h, w, k, stride, pad_t, pad_l, pad_b, pad_r;
  bool post;        // bias + relu
  int32_t threads;  // 0: oneDNN's default
  // expected hlx_onednn_conv_transposed_reorders on AVX-512 (-1: any)
  int32_t transposed;
  // expected hlx_onednn_conv_bands on AVX-512 (-1: any)
  int64_t bands = -1;
};

int64_t OutSize(int64_t in, int64_t k, int64_t s, int64_t lo, int64_t hi) {
  return (in + lo + hi - k) / s + 1;
}

void Check(const Case& cc) {
  SCOPED_TRACE(cc.what);
  const int64_t oh = OutSize(cc.h, cc.k, cc.stride, cc.pad_t, cc.pad_b),
                ow = OutSize(cc.w, cc.k, cc.stride, cc.pad_l, cc.pad_r);
  ASSERT_GT(oh, 0);
  ASSERT_GT(ow, 0);
  std::vector<float> x = RandomFloats(cc.n * cc.c * cc.h * cc.w, 31),
                     wt = RandomFloats(cc.o * cc.c * cc.k * cc.k, 32),
                     bias = RandomFloats(cc.o, 33);
  // f64 NCHW / OIHW reference and the magnitudes for the bound
  std::vector<double> ref(cc.n * cc.o * oh * ow), mag(ref.size());
  for (int64_t b = 0; b < cc.n; b++)
    for (int64_t o = 0; o < cc.o; o++)
      for (int64_t y = 0; y < oh; y++)
        for (int64_t z = 0; z < ow; z++) {
          double s = 0, m = 0;
          for (int64_t c = 0; c < cc.c; c++)
            for (int64_t i = 0; i < cc.k; i++)
              for (int64_t j = 0; j < cc.k; j++) {
                int64_t iy = y * cc.stride - cc.pad_t + i,
                        ix = z * cc.stride - cc.pad_l + j;
                if (iy < 0 || iy >= cc.h || ix < 0 || ix >= cc.w) continue;
                double p = static_cast<double>(
                               x[((b * cc.c + c) * cc.h + iy) * cc.w + ix]) *
                           wt[((o * cc.c + c) * cc.k + i) * cc.k + j];
                s += p;
                m += std::fabs(p);
              }
          size_t at = ((b * cc.o + o) * oh + y) * ow + z;
          if (cc.post) {
            s += bias[o];
            m += std::fabs(bias[o]);
            s = s > 0 ? s : 0;
          }
          ref[at] = s;
          mag[at] = m;
        }

  hlx_onednn_conv_desc_t d;
  hlx_onednn_conv_desc_zero(&d);
  d.threads = cc.threads;
  d.num_spatial = 2;
  d.batch = cc.n;
  d.in_features = cc.c;
  d.out_features = cc.o;
  d.groups = 1;
  const int64_t in_sp[2] = {cc.h, cc.w}, out_sp[2] = {oh, ow},
                pad_lo[2] = {cc.pad_t, cc.pad_l};
  for (int i = 0; i < 2; i++) {
    d.in_spatial[i] = in_sp[i];
    d.kernel_spatial[i] = cc.k;
    d.out_spatial[i] = out_sp[i];
    d.stride[i] = cc.stride;
    d.pad_lo[i] = pad_lo[i];
    d.dilation[i] = 1;
  }
  // NCHW src and dst, OIHW weights (dims in oneDNN's order)
  d.src_strides[0] = cc.c * cc.h * cc.w, d.src_strides[1] = cc.h * cc.w;
  d.src_strides[2] = cc.w, d.src_strides[3] = 1;
  d.dst_strides[0] = cc.o * oh * ow, d.dst_strides[1] = oh * ow;
  d.dst_strides[2] = ow, d.dst_strides[3] = 1;
  d.wei_strides[0] = cc.c * cc.k * cc.k, d.wei_strides[1] = cc.k * cc.k;
  d.wei_strides[2] = cc.k, d.wei_strides[3] = 1;
  if (cc.post) {
    d.has_bias = 1;
    d.post_ops[d.num_post_ops++] = {HLX_ONEDNN_POST_RELU,
                                    HLX_ONEDNN_OPERAND_NONE};
  }
  hlx_onednn_conv_t* cv = nullptr;
  hlx_status_t st = hlx_onednn_conv_create(&d, &cv);
  ASSERT_EQ(st, nullptr) << hlx_status_message(st);
  if (cc.transposed >= 0 && hlx_onednn_act_block() == 16)
    EXPECT_EQ(hlx_onednn_conv_transposed_reorders(cv), cc.transposed)
        << "impl " << hlx_onednn_conv_impl(cv);
  if (cc.bands >= 0 && hlx_onednn_act_block() == 16)
    EXPECT_EQ(hlx_onednn_conv_bands(cv), cc.bands);
  // the transposes never take a reorder the primitive does not need
  EXPECT_EQ(hlx_onednn_conv_transposed_reorders(cv) &
                ~hlx_onednn_conv_reorders(cv),
            0);
  const void* post_args[HLX_ONEDNN_MAX_POST_OPS] = {};
  for (int rep = 0; rep < 2; rep++) {  // the second run reuses the workspace
    std::vector<float> out(ref.size(), NAN);
    ASSERT_EQ(hlx_onednn_conv_run_ex(cv, x.data(), wt.data(), nullptr,
                                     cc.post ? bias.data() : nullptr,
                                     post_args, out.data()),
              nullptr);
    double terms = static_cast<double>(cc.c * cc.k * cc.k + 2);
    for (size_t i = 0; i < out.size(); i++)
      ASSERT_NEAR(out[i], ref[i], 2.0 * terms * FLT_EPSILON * mag[i] + 1e-30)
          << "element " << i << " of " << out.size() << " impl "
          << hlx_onednn_conv_impl(cv);
  }
  hlx_onednn_conv_release(cv);
}

const int32_t kSrc = HLX_ONEDNN_REORDER_SRC, kDst = HLX_ONEDNN_REORDER_DST;

TEST(OnednnConvBoundary, TransposedReordersMatchTheReference) {
  const Case cases[] = {
      // both sides (channels last or 16-channel blocks); the 2-thread
      // ranges of 13 * 11 = 143 positions end mid-line
      {"3x3 64->64 at 13x11", 1, 64, 64, 13, 11, 3, 1, 1, 1, 1, 1, false, 1,
       kSrc | kDst},
      {"3x3 64->64 at 13x11, 2 threads", 1, 64, 64, 13, 11, 3, 1, 1, 1, 1, 1,
       false, 2, kSrc | kDst},
      {"3x3 32->48, 2 images, bias + relu, 2 threads", 2, 32, 48, 17, 9, 3, 1,
       1, 1, 1, 1, true, 2, kSrc | kDst},
      {"3x3/2 16->32, asymmetric padding", 3, 16, 32, 15, 14, 3, 2, 1, 0, 0, 1,
       true, 0, -1},
      {"5x5 48->16 unpadded, fewer positions than threads' lines", 1, 48, 16,
       6, 7, 5, 1, 0, 0, 0, 0, false, 2, -1},
      // first layer: nchw src read as it is, blocked dst transposed back,
      // in bands of output rows (512 KB of dst each, a multiple of the
      // threads; the first and last bands padded, the last one shorter)
      {"7x7/2 3->64 at 45x38, 2 images, 2 threads: one band each", 2, 3, 64,
       45, 38, 7, 2, 3, 3, 2, 3, false, 2, kDst, 2},
      {"7x7/2 3->64 at 45x38 one thread, bias + relu: whole, oneDNN's "
       "reorder",
       1, 3, 64, 45, 38, 7, 2, 3, 3, 2, 3, true, 1, 0, 0},
      {"7x7/2 3->64 at 230x227: 17-row bands, the last 13", 1, 3, 64, 230, 227,
       7, 2, 3, 3, 3, 3, false, 1, kDst, 7},
      {"7x7/2 3->64 at 230x227 bias + relu, 2 threads", 1, 3, 64, 230, 227, 7,
       2, 3, 3, 3, 3, true, 2, kDst, 8},
      {"3x3/2 4->32 at 201x160, unpadded top, 2 images", 2, 4, 32, 201, 160, 3,
       2, 0, 1, 1, 0, true, 2, kDst, -1},
      // channels no multiple of the block: channels last or oneDNN's reorder
      {"3x3 20->24", 2, 20, 24, 11, 12, 3, 1, 1, 1, 1, 1, true, 2, -1},
  };
  for (const Case& c : cases) Check(c);
}

// HLX_CONV_ONEDNN_REORDER=1 (read when a primitive is built; a shape no
// other case builds, the cache being keyed by the descriptor): oneDNN's
// reorders, same results.
TEST(OnednnConvBoundary, SwitchBackToOnednnReorders) {
  setenv("HLX_CONV_ONEDNN_REORDER", "1", 1);
  Check({"3x3 64->64 at 9x10, oneDNN reorders", 1, 64, 64, 9, 10, 3, 1, 1, 1,
         1, 1, true, 2, 0});
  unsetenv("HLX_CONV_ONEDNN_REORDER");
  setenv("HLX_CONV_NO_BANDS", "1", 1);
  Check({"7x7/2 3->64 at 230x225, no bands", 1, 3, 64, 230, 225, 7, 2, 3, 3,
         3, 3, false, 1, 0, 0});
  unsetenv("HLX_CONV_NO_BANDS");
}

// Convolutions are reference-counted in oneDNN's primitive cache
// (hlx_dnnl_obtain): an equal descriptor shares the object, a released one
// goes idle and is freed beyond the idle capacity (with its band
// primitives: ASan sees them).
TEST(OnednnConvBoundary, ReferenceCountedInTheCache) {
  hlx_onednn_conv_desc_t d;
  hlx_onednn_conv_desc_zero(&d);
  d.threads = 2, d.num_spatial = 2, d.batch = 1, d.in_features = 3;
  d.out_features = 32, d.groups = 1;
  const int64_t in[2] = {97, 61};  // a shape no other test builds
  for (int i = 0; i < 2; i++) {
    d.in_spatial[i] = in[i], d.kernel_spatial[i] = 7, d.stride[i] = 2;
    d.pad_lo[i] = 3, d.dilation[i] = 1;
    d.out_spatial[i] = (in[i] + 6 - 7) / 2 + 1;
  }
  d.src_strides[0] = 3 * 97 * 61, d.src_strides[1] = 97 * 61;
  d.src_strides[2] = 61, d.src_strides[3] = 1;
  int64_t oh = d.out_spatial[0], ow = d.out_spatial[1];
  d.dst_strides[0] = 32 * oh * ow, d.dst_strides[1] = oh * ow;
  d.dst_strides[2] = ow, d.dst_strides[3] = 1;
  d.wei_strides[0] = 3 * 49, d.wei_strides[1] = 49, d.wei_strides[2] = 7;
  d.wei_strides[3] = 1;
  hlx_onednn_cache_stats_t s0, s1, s2, s3;
  hlx_onednn_cache_stats(&s0);
  hlx_onednn_conv_t *a = nullptr, *b = nullptr;
  ASSERT_EQ(hlx_onednn_conv_create(&d, &a), nullptr);
  ASSERT_EQ(hlx_onednn_conv_create(&d, &b), nullptr);
  EXPECT_EQ(a, b);
  hlx_onednn_cache_stats(&s1);
  EXPECT_EQ(s1.builds, s0.builds + 1);
  EXPECT_EQ(s1.live, s0.live + 1);
  hlx_onednn_conv_release(a);
  hlx_onednn_cache_stats(&s2);
  EXPECT_EQ(s2.idle, s0.idle);  // b still holds it
  hlx_onednn_conv_release(b);
  int32_t cap = hlx_onednn_cache_set_idle_capacity(0);
  hlx_onednn_cache_stats(&s3);
  hlx_onednn_cache_set_idle_capacity(cap);
  EXPECT_EQ(s3.live, s0.live - s0.idle);
  EXPECT_EQ(s3.idle, 0);
}

}  // namespace
