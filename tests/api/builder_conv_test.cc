// Builder convolution (api/hlx_builder_ops.h): Conv, ConvWithGeneralPadding
// and ConvGeneralDilated built, run and checked against a direct loop; one
// error test per shape rule.
#include <memory>

#include "tests/api/builder_testing.h"

namespace {
using namespace hlx_test;

// Direct NCHW x OIHW convolution with strides, padding, lhs/rhs dilation
// and feature groups (the definition in XLA's operation semantics).
std::vector<float> RefConv(const std::vector<float>& x, int64_t N, int64_t C,
                           int64_t H, int64_t W, const std::vector<float>& k,
                           int64_t O, int64_t KH, int64_t KW, const int64_t* s,
                           const int64_t* pad, const int64_t* ld,
                           const int64_t* rd, int64_t G, int64_t* OH,
                           int64_t* OW) {
  int64_t dh = (H - 1) * ld[0] + 1 + pad[0] + pad[1];
  int64_t dw = (W - 1) * ld[1] + 1 + pad[2] + pad[3];
  int64_t sh = (KH - 1) * rd[0] + 1, sw = (KW - 1) * rd[1] + 1;
  *OH = dh < sh ? 0 : (dh - sh) / s[0] + 1;
  *OW = dw < sw ? 0 : (dw - sw) / s[1] + 1;
  int64_t CG = C / G, OG = O / G;
  std::vector<float> y((size_t)(N * O * *OH * *OW), 0.f);
  for (int64_t n = 0; n < N; n++)
    for (int64_t o = 0; o < O; o++)
      for (int64_t i = 0; i < *OH; i++)
        for (int64_t j = 0; j < *OW; j++) {
          float acc = 0;
          for (int64_t c = 0; c < CG; c++)
            for (int64_t a = 0; a < KH; a++)
              for (int64_t bb = 0; bb < KW; bb++) {
                int64_t ph = i * s[0] + a * rd[0] - pad[0];
                int64_t pw = j * s[1] + bb * rd[1] - pad[2];
                if (ph < 0 || pw < 0 || ph % ld[0] || pw % ld[1]) continue;
                ph /= ld[0];
                pw /= ld[1];
                if (ph >= H || pw >= W) continue;
                int64_t ci = (o / OG) * CG + c;
                acc += x[(size_t)(((n * C + ci) * H + ph) * W + pw)] *
                       k[(size_t)(((o * CG + c) * KH + a) * KW + bb)];
              }
          y[(size_t)(((n * O + o) * *OH + i) * *OW + j)] = acc;
        }
  return y;
}

std::vector<float> Ramp(size_t n, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; i++) v[i] = (float)((i * 5 + 3) % 11) * scale - 2;
  return v;
}

TEST(BuilderConv, ValidAndSamePaddingMatchDirectLoop) {
  for (hlx_padding_t pad : {HLX_PADDING_VALID, HLX_PADDING_SAME}) {
    Builder bb;
    std::vector<float> x = Ramp(2 * 3 * 5 * 4, 0.5f), k = Ramp(4 * 3 * 3 * 2, 0.25f);
    uint32_t lhs = bb.F({2, 3, 5, 4}, x), rhs = bb.F({4, 3, 3, 2}, k);
    int64_t s[2] = {2, 1};
    uint32_t r;
    BOK(hlx_builder_conv(bb.b, lhs, rhs, s, pad, &r));
    int64_t p[4] = {0, 0, 0, 0};
    if (pad == HLX_PADDING_SAME) {  // ceil(5/2)=3: total 2 -> (1,1); 4: 1 -> (0,1)
      p[0] = 1; p[1] = 1; p[2] = 0; p[3] = 1;
    }
    int64_t one[2] = {1, 1}, oh, ow;
    std::vector<float> want =
        RefConv(x, 2, 3, 5, 4, k, 4, 3, 2, s, p, one, one, 1, &oh, &ow);
    EXPECT_EQ(Dims(bb.b, r), (std::vector<int64_t>{2, 4, oh, ow}));
    hlx_program_t* prog = bb.Program({r});
    ExpectPrintParses(prog);
    EXPECT_EQ(RunOne<float>(prog), want);
  }
}

TEST(BuilderConv, WithGeneralPadding) {
  Builder bb;
  std::vector<float> x = Ramp(1 * 2 * 4 * 4, 1.f), k = Ramp(3 * 2 * 2 * 2, 1.f);
  uint32_t lhs = bb.F({1, 2, 4, 4}, x), rhs = bb.F({3, 2, 2, 2}, k);
  int64_t s[2] = {1, 2}, pad[4] = {2, 1, 1, 0}, one[2] = {1, 1}, oh, ow;
  uint32_t r;
  BOK(hlx_builder_conv_with_general_padding(bb.b, lhs, rhs, s, pad, &r));
  std::vector<float> want =
      RefConv(x, 1, 2, 4, 4, k, 3, 2, 2, s, pad, one, one, 1, &oh, &ow);
  EXPECT_EQ(Dims(bb.b, r), (std::vector<int64_t>{1, 3, oh, ow}));
  EXPECT_EQ(RunOne<float>(bb.Program({r})), want);
}

TEST(BuilderConv, GeneralDilatedWithGroupsAndDilations) {
  Builder bb;
  std::vector<float> x = Ramp(1 * 4 * 5 * 5, 1.f), k = Ramp(6 * 2 * 2 * 2, 1.f);
  uint32_t lhs = bb.F({1, 4, 5, 5}, x), rhs = bb.F({6, 2, 2, 2}, k);
  int64_t s[2] = {1, 2}, pad[4] = {1, 0, 0, 1}, ld[2] = {2, 1}, rd[2] = {1, 2};
  hlx_conv_dimension_numbers_t dn;
  hlx_conv_dimension_numbers_default(2, &dn);
  uint32_t r;
  BOK(hlx_builder_conv_general_dilated(bb.b, lhs, rhs, s, pad, ld, rd, &dn, 2,
                                       1, &r));
  int64_t oh, ow;
  std::vector<float> want = RefConv(x, 1, 4, 5, 5, k, 6, 2, 2, s, pad, ld, rd,
                                    2, &oh, &ow);
  EXPECT_EQ(Dims(bb.b, r), (std::vector<int64_t>{1, 6, oh, ow}));
  hlx_program_t* prog = bb.Program({r});
  ExpectPrintParses(prog);
  EXPECT_EQ(RunOne<float>(prog), want);
}

// NHWC input, HWIO kernel, NHWC output: the same numbers as NCHW/OIHW.
TEST(BuilderConv, NonDefaultDimensionNumbers) {
  Builder bb;
  std::vector<float> x = Ramp(1 * 2 * 3 * 3, 1.f), k = Ramp(2 * 2 * 2 * 2, 1.f);
  // x is NCHW [1,2,3,3]; build NHWC and HWIO copies.
  std::vector<float> xn(x.size()), kh(k.size());
  for (int c = 0; c < 2; c++)
    for (int h = 0; h < 3; h++)
      for (int w = 0; w < 3; w++) xn[(h * 3 + w) * 2 + c] = x[(c * 3 + h) * 3 + w];
  for (int o = 0; o < 2; o++)
    for (int i = 0; i < 2; i++)
      for (int h = 0; h < 2; h++)
        for (int w = 0; w < 2; w++)
          kh[((h * 2 + w) * 2 + i) * 2 + o] = k[((o * 2 + i) * 2 + h) * 2 + w];
  uint32_t lhs = bb.F({1, 3, 3, 2}, xn), rhs = bb.F({2, 2, 2, 2}, kh);
  hlx_conv_dimension_numbers_t dn = {};
  dn.num_spatial_dims = 2;
  dn.input_batch_dimension = 0;
  dn.input_feature_dimension = 3;
  dn.input_spatial_dimensions[0] = 1;
  dn.input_spatial_dimensions[1] = 2;
  dn.kernel_input_feature_dimension = 2;
  dn.kernel_output_feature_dimension = 3;
  dn.kernel_spatial_dimensions[0] = 0;
  dn.kernel_spatial_dimensions[1] = 1;
  dn.output_batch_dimension = 0;
  dn.output_feature_dimension = 3;
  dn.output_spatial_dimensions[0] = 1;
  dn.output_spatial_dimensions[1] = 2;
  uint32_t r;
  BOK(hlx_builder_conv_general_dilated(bb.b, lhs, rhs, nullptr, nullptr,
                                       nullptr, nullptr, &dn, 1, 1, &r));
  int64_t one[2] = {1, 1}, zero[4] = {0, 0, 0, 0}, oh, ow;
  std::vector<float> want =
      RefConv(x, 1, 2, 3, 3, k, 2, 2, 2, one, zero, one, one, 1, &oh, &ow);
  std::vector<float> got = RunOne<float>(bb.Program({r}));
  ASSERT_EQ(got.size(), want.size());
  for (int o = 0; o < 2; o++)
    for (int i = 0; i < oh; i++)
      for (int j = 0; j < ow; j++)
        EXPECT_EQ(got[(size_t)((i * ow + j) * 2 + o)],
                  want[(size_t)((o * oh + i) * ow + j)]);
}

// batch_group_count 2: the batch splits in 2 groups; output feature o
// uses group o / (O / 2) and the output batch is N / 2.
TEST(BuilderConv, BatchGroupCount) {
  Builder bb;
  std::vector<float> x = Ramp(4 * 2 * 3 * 3, 1.f), k = Ramp(4 * 2 * 2 * 2, 1.f);
  uint32_t lhs = bb.F({4, 2, 3, 3}, x), rhs = bb.F({4, 2, 2, 2}, k);
  hlx_conv_dimension_numbers_t dn;
  hlx_conv_dimension_numbers_default(2, &dn);
  uint32_t r;
  BOK(hlx_builder_conv_general_dilated(bb.b, lhs, rhs, nullptr, nullptr,
                                       nullptr, nullptr, &dn, 1, 2, &r));
  EXPECT_EQ(Dims(bb.b, r), (std::vector<int64_t>{2, 4, 2, 2}));
  std::vector<float> want(2 * 4 * 2 * 2, 0.f);
  for (int n = 0; n < 2; n++)
    for (int o = 0; o < 4; o++)
      for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
          int g = o / 2;
          float acc = 0;
          for (int c = 0; c < 2; c++)
            for (int a = 0; a < 2; a++)
              for (int e = 0; e < 2; e++)
                acc += x[(((g * 2 + n) * 2 + c) * 3 + i + a) * 3 + j + e] *
                       k[((o * 2 + c) * 2 + a) * 2 + e];
          want[((n * 4 + o) * 2 + i) * 2 + j] = acc;
        }
  EXPECT_EQ(RunOne<float>(bb.Program({r})), want);
}

TEST(BuilderConvErrors, EachRuleIsLatched) {
  hlx_conv_dimension_numbers_t dn;
  hlx_conv_dimension_numbers_default(2, &dn);
  uint32_t r;
  struct Case {
    std::vector<int64_t> x, k;
    int64_t g, bg;
    const char* want;
  } cases[] = {
      {{1, 2, 3}, {1, 2, 3}, 1, 1, "lhs has rank 3, but 2 spatial dimensions need rank 4"},
      {{1, 2, 3, 3}, {1, 2, 3}, 1, 1, "rhs has rank 3, lhs 4"},
      {{1, 3, 3, 3}, {2, 3, 1, 1}, 2, 1, "input feature size 3 is not a multiple of feature_group_count 2"},
      {{3, 2, 3, 3}, {2, 2, 1, 1}, 1, 2, "input batch size 3 is not a multiple of batch_group_count 2"},
      {{1, 4, 3, 3}, {2, 4, 1, 1}, 2, 1, "kernel input feature size 4 must be input feature size / feature_group_count = 2"},
      {{2, 2, 3, 3}, {3, 2, 1, 1}, 1, 2, "kernel output feature size 3 must be a multiple"},
      {{2, 2, 3, 3}, {2, 2, 1, 1}, 2, 2, "feature_group_count and batch_group_count cannot both exceed 1"},
      {{2, 2, 3, 3}, {2, 2, 1, 1}, 0, 1, "feature_group_count 0 and batch_group_count 1 must be >= 1"},
  };
  for (const Case& c : cases) {
    Builder bb;
    uint32_t x = bb.Param(0, F32(), c.x), k = bb.Param(1, F32(), c.k);
    ExpectLatched(bb, hlx_builder_conv_general_dilated(bb.b, x, k, nullptr,
                                                       nullptr, nullptr, nullptr,
                                                       &dn, c.g, c.bg, &r),
                  std::string("convolution: ") + c.want);
  }
  {
    Builder bb;
    uint32_t x = bb.Param(0, F32(), {1, 2, 3, 3}), k = bb.Param(1, I32(), {1, 2, 1, 1});
    ExpectLatched(bb, hlx_builder_conv_general_dilated(bb.b, x, k, nullptr, nullptr,
                                                       nullptr, nullptr, &dn, 1, 1, &r),
                  "convolution: element types differ: lhs f32, rhs i32");
  }
  {
    Builder bb;
    hlx_conv_dimension_numbers_t bad = dn;
    bad.input_spatial_dimensions[1] = 1;  // repeats the feature dimension
    uint32_t x = bb.Param(0, F32(), {1, 2, 3, 3}), k = bb.Param(1, F32(), {1, 2, 1, 1});
    ExpectLatched(bb, hlx_builder_conv_general_dilated(bb.b, x, k, nullptr, nullptr,
                                                       nullptr, nullptr, &bad, 1, 1, &r),
                  "convolution: input dimension numbers repeat dimension 1");
  }
  {
    Builder bb;
    hlx_conv_dimension_numbers_t bad = dn;
    bad.output_feature_dimension = 4;
    uint32_t x = bb.Param(0, F32(), {1, 2, 3, 3}), k = bb.Param(1, F32(), {1, 2, 1, 1});
    ExpectLatched(bb, hlx_builder_conv_general_dilated(bb.b, x, k, nullptr, nullptr,
                                                       nullptr, nullptr, &bad, 1, 1, &r),
                  "convolution: output dimension 4 is out of range for rank 4");
  }
  {
    Builder bb;
    int64_t s[2] = {1, 0};
    uint32_t x = bb.Param(0, F32(), {1, 2, 3, 3}), k = bb.Param(1, F32(), {1, 2, 1, 1});
    ExpectLatched(bb, hlx_builder_conv(bb.b, x, k, s, HLX_PADDING_VALID, &r),
                  "convolution: spatial dimension 1: stride 0");
  }
}

}  // namespace
