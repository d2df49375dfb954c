// Blocked activations across convolutions (graph/lower/opt/conv_layout.c):
// chains of convolutions (with relu / batch-norm epilogues, residual sums,
// values that also leave the chain) are lowered three ways, by default
// (blocked layout between oneDNN convolutions), with HLX_NO_CONV_BLOCKED=1
// and with HLX_CONV_REFERENCE=1 (the reference kernel, f64), and must
// agree on random inputs (with 16 channels nChw16c is NHWC's byte order,
// so the cases use more). Each case also states whether the default plan
// has blocked convolutions (task names say "(blocked ...)"), so a silent
// fallback to the plain plan fails the test.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

extern "C" {
#include "kernels/libs/onednn.h"
}
#include "tests/epilogue/plan_harness.h"

namespace {

struct Val {
  std::string name;
  std::vector<int64_t> dims;  // logical tensor dims
};

std::string T(const std::vector<int64_t>& d) { return TensorType(d); }

// Builds @main: parameters are the input and every convolution's weights
// (scaled so values stay O(1) through the chain).
class Prog {
 public:
  // layout: "nhwc", "nchw", or "nhwc_swapped" (spatial dims read in the
  // other order: same tensor, a different logical order for oneDNN).
  Prog(std::vector<int64_t> x_dims, std::string layout)
      : layout_(std::move(layout)) {
    params_.push_back(x_dims);
    x_ = {"%x", x_dims};
  }
  Val x() const { return x_; }
  bool nchw() const { return layout_ == "nchw"; }
  int64_t C(const Val& v) const { return v.dims[nchw() ? 1 : 3]; }

  Val Conv(const Val& in, int64_t co, int64_t k, int64_t stride,
           bool swapped = false) {
    int64_t ci = C(in), pad = k / 2;
    int64_t h = in.dims[nchw() ? 2 : 1], w = in.dims[nchw() ? 3 : 2];
    int64_t oh = (h + 2 * pad - k) / stride + 1;
    int64_t ow = (w + 2 * pad - k) / stride + 1;
    std::vector<int64_t> wd = nchw() ? std::vector<int64_t>{co, ci, k, k}
                                     : std::vector<int64_t>{k, k, ci, co};
    std::vector<int64_t> od = nchw() ? std::vector<int64_t>{in.dims[0], co, oh, ow}
                                     : std::vector<int64_t>{in.dims[0], oh, ow, co};
    std::string wn = "%w" + std::to_string(params_.size());
    params_.push_back(wd);
    scales_.push_back(1.0 / std::sqrt((double)(ci * k * k)));
    std::string dn =
        nchw()    ? "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]"
        : swapped ? "[b, 1, 0, f]x[1, 0, i, o]->[b, 1, 0, f]"
                  : "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]";
    std::string s = std::to_string(stride), p = std::to_string(pad);
    Val out{Next(), od};
    body_ += "  " + out.name + " = stablehlo.convolution(" + in.name + ", " +
             wn + ") dim_numbers = " + dn + ", window = {stride = [" + s +
             ", " + s + "], pad = [[" + p + ", " + p + "], [" + p + ", " + p +
             "]]} {batch_group_count = 1 : i64, feature_group_count = 1 : "
             "i64} : (" + T(in.dims) + ", " + T(wd) + ") -> " + T(od) + "\n";
    return out;
  }
  Val Relu(const Val& v) {
    std::string z = Next(), zb = Next();
    Val out{Next(), v.dims};
    body_ += "  " + z + " = stablehlo.constant dense<0.0> : tensor<f32>\n";
    body_ += "  " + zb + " = stablehlo.broadcast_in_dim " + z +
             ", dims = [] : (tensor<f32>) -> " + T(v.dims) + "\n";
    body_ += "  " + out.name + " = stablehlo.maximum " + v.name + ", " + zb +
             " : " + T(v.dims) + "\n";
    return out;
  }
  // v * s + b per channel with constant vectors (batch norm).
  Val Affine(const Val& v) {
    int64_t c = C(v);
    std::string cs, cb;
    for (int64_t i = 0; i < c; i++) {
      cs += (i ? ", " : "") + std::to_string(0.5 + 0.05 * (double)(i % 11));
      cb += (i ? ", " : "") + std::to_string(0.1 * (double)(i % 5) - 0.2);
    }
    std::string V = "tensor<" + std::to_string(c) + "xf32>";
    std::string fd = nchw() ? "1" : "3";
    std::string s = Next(), sb = Next(), b = Next(), bb = Next(), m = Next();
    Val out{Next(), v.dims};
    body_ += "  " + s + " = stablehlo.constant dense<[" + cs + "]> : " + V + "\n";
    body_ += "  " + sb + " = stablehlo.broadcast_in_dim " + s + ", dims = [" +
             fd + "] : (" + V + ") -> " + T(v.dims) + "\n";
    body_ += "  " + b + " = stablehlo.constant dense<[" + cb + "]> : " + V + "\n";
    body_ += "  " + bb + " = stablehlo.broadcast_in_dim " + b + ", dims = [" +
             fd + "] : (" + V + ") -> " + T(v.dims) + "\n";
    body_ += "  " + m + " = stablehlo.multiply " + v.name + ", " + sb + " : " +
             T(v.dims) + "\n";
    body_ += "  " + out.name + " = stablehlo.add " + m + ", " + bb + " : " +
             T(v.dims) + "\n";
    return out;
  }
  Val Add(const Val& a, const Val& b) {
    Val out{Next(), a.dims};
    body_ += "  " + out.name + " = stablehlo.add " + a.name + ", " + b.name +
             " : " + T(a.dims) + "\n";
    return out;
  }
  Val Negate(const Val& v) {
    Val out{Next(), v.dims};
    body_ += "  " + out.name + " = stablehlo.negate " + v.name + " : " +
             T(v.dims) + "\n";
    return out;
  }
  std::string Text(const std::vector<Val>& results) const {
    std::string p = "func.func @main(";
    for (size_t i = 0; i < params_.size(); i++)
      p += (i ? ", " : "") + std::string(i ? "%w" + std::to_string(i) : "%x") +
           ": " + T(params_[i]);
    p += ") -> (";
    for (size_t i = 0; i < results.size(); i++)
      p += (i ? ", " : "") + T(results[i].dims);
    p += ") {\n" + body_ + "  return ";
    for (size_t i = 0; i < results.size(); i++)
      p += (i ? ", " : "") + results[i].name;
    p += " : ";
    for (size_t i = 0; i < results.size(); i++)
      p += (i ? ", " : "") + T(results[i].dims);
    return p + "\n}\n";
  }
  std::vector<std::vector<float>> Inputs(uint32_t seed) const {
    std::mt19937 g(seed);
    std::uniform_real_distribution<float> u(-1, 1);
    std::vector<std::vector<float>> in;
    for (size_t i = 0; i < params_.size(); i++) {
      std::vector<float> v(ElementCount(params_[i]));
      float s = i ? (float)scales_[i - 1] * 1.7f : 1.0f;
      for (auto& x : v) x = u(g) * s;
      in.push_back(v);
    }
    return in;
  }

 private:
  std::string Next() { return "%v" + std::to_string(k_++); }
  std::string layout_;
  Val x_;
  std::vector<std::vector<int64_t>> params_;
  std::vector<double> scales_;
  std::string body_;
  int k_ = 0;
};

int BlockedTasks(const hlx_plan_t* p) {
  int n = 0;
  for (int32_t i = 0; i < p->num_tasks; i++)
    n += std::strstr(p->tasks[i].name, "(blocked ") != nullptr;
  return n;
}

void Compare(const std::vector<std::vector<float>>& a,
             const std::vector<std::vector<float>>& b, double tol,
             const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t r = 0; r < a.size(); r++) {
    ASSERT_EQ(a[r].size(), b[r].size()) << what;
    double big = 0;
    for (float y : b[r]) big = std::fmax(big, std::fabs(y));
    ASSERT_GT(big, 0) << what;
    int bad = 0;
    for (size_t i = 0; i < a[r].size() && bad < 5; i++)
      if (!(std::fabs(a[r][i] - b[r][i]) <= tol * big)) {
        ADD_FAILURE() << what << ": result " << r << " element " << i << ": "
                      << a[r][i] << " vs " << b[r][i];
        bad++;
      }
  }
}

// expect_blocked: > 0 the default plan has blocked convolutions, 0 none.
void Check(const Prog& p, const std::vector<Val>& results,
           bool expect_blocked) {
  std::string text = p.Text(results);
  SCOPED_TRACE(text);
  Lowered on, off, ref;
  const hlx_plan_t* pb = LowerMain(text, nullptr, &on);
  const hlx_plan_t* pp = LowerMain(text, "HLX_NO_CONV_BLOCKED", &off);
  const hlx_plan_t* pr = LowerMain(text, "HLX_CONV_REFERENCE", &ref);
  ASSERT_NE(pb, nullptr);
  ASSERT_NE(pp, nullptr);
  ASSERT_NE(pr, nullptr);
  if (hlx_onednn_act_block() > 0) {
    EXPECT_EQ(BlockedTasks(pb) > 0, expect_blocked);
  }
  EXPECT_EQ(BlockedTasks(pp), 0);
  for (uint32_t seed = 1; seed <= 2; seed++) {
    auto in = p.Inputs(seed);
    auto a = RunPlan(pb, in), b = RunPlan(pp, in), c = RunPlan(pr, in);
    Compare(a, b, 2e-5, "blocked vs plain");
    Compare(a, c, 1e-4, "blocked vs reference");
  }
}

TEST(ConvLayout, ConvConv) {
  Prog p({1, 8, 8, 16}, "nhwc");
  Val a = p.Conv(p.x(), 32, 3, 1);
  Val b = p.Conv(a, 16, 3, 1);
  Check(p, {b}, true);
}

TEST(ConvLayout, ConvReluConvWithBatchNorm) {
  Prog p({1, 10, 10, 16}, "nhwc");
  Val a = p.Relu(p.Affine(p.Conv(p.x(), 32, 3, 1)));
  Val b = p.Relu(p.Conv(a, 32, 1, 1));
  Val c = p.Conv(b, 16, 3, 2);
  Check(p, {c}, true);
}

TEST(ConvLayout, ResidualBlocks) {
  // Two bottleneck-like blocks: the block input is a conv unit's output,
  // read by the next convolution and by the block's residual sum.
  Prog p({2, 8, 8, 16}, "nhwc");
  Val x0 = p.Relu(p.Conv(p.x(), 32, 3, 1));
  Val cur = x0;
  for (int blk = 0; blk < 2; blk++) {
    Val a = p.Relu(p.Affine(p.Conv(cur, 16, 1, 1)));
    Val b = p.Relu(p.Conv(a, 16, 3, 1));
    Val c = p.Affine(p.Conv(b, 32, 1, 1));
    cur = p.Relu(p.Add(c, cur));
  }
  Val out = p.Conv(cur, 16, 1, 1);
  Check(p, {out}, true);
}

TEST(ConvLayout, ResidualLeavesTheChain) {
  // The last block's output is a program result: its sum operand and it
  // are logical, earlier values blocked.
  Prog p({1, 8, 8, 16}, "nhwc");
  Val x0 = p.Relu(p.Conv(p.x(), 32, 3, 1));
  Val a = p.Relu(p.Conv(x0, 32, 3, 1));
  Val b = p.Relu(p.Add(p.Conv(a, 32, 3, 1), x0));
  Check(p, {b}, true);
}

TEST(ConvLayout, MiddleValueIsAResult) {
  Prog p({1, 8, 8, 16}, "nhwc");
  Val a = p.Relu(p.Conv(p.x(), 32, 3, 1));
  Val b = p.Conv(a, 16, 3, 1);
  Check(p, {b, a}, true);
}

TEST(ConvLayout, NonConvolutionUser) {
  Prog p({1, 8, 8, 16}, "nhwc");
  Val a = p.Conv(p.x(), 48, 3, 1);
  Val b = p.Conv(a, 16, 1, 1);
  Val n = p.Negate(a);
  Val c = p.Conv(n, 16, 1, 1);  // reads the logical copy's negation
  Check(p, {b, c}, true);
}

// The middle value is blocked only when its channels fit the block: 20
// never does, 24 does with AVX2's 8 channels and not with AVX-512's 16.
TEST(ConvLayout, ChannelsNotAMultipleOfTheBlock) {
  for (int64_t mid : {20, 24}) {
    Prog p({1, 8, 8, 12}, "nhwc");
    Val a = p.Conv(p.x(), mid, 3, 1);
    Val b = p.Conv(a, 12, 3, 1);
    Check(p, {b}, hlx_onednn_act_block() > 0 && mid % hlx_onednn_act_block() == 0);
  }
}

TEST(ConvLayout, OneByOneStridedBatch) {
  Prog p({3, 12, 12, 32}, "nhwc");
  Val a = p.Relu(p.Conv(p.x(), 64, 1, 1));
  Val b = p.Relu(p.Conv(a, 64, 3, 2));
  Val c = p.Conv(b, 32, 1, 2);
  Check(p, {c}, true);
}

TEST(ConvLayout, Nchw) {
  Prog p({2, 16, 9, 9}, "nchw");
  Val a = p.Relu(p.Affine(p.Conv(p.x(), 32, 3, 1)));
  Val b = p.Relu(p.Conv(a, 16, 1, 1));
  Val c = p.Conv(b, 16, 3, 2);
  Check(p, {c}, true);
}

TEST(ConvLayout, SpatialOrderDiffers) {
  // The consumer reads the tensor's spatial dims in the other order: its
  // logical [N, C, S...] is not the producer's, so it must read a logical
  // copy (square spatial dims keep the shapes valid).
  Prog p({1, 8, 8, 16}, "nhwc");
  Val a = p.Conv(p.x(), 32, 3, 1);
  Val b = p.Conv(a, 16, 3, 1, /*swapped=*/true);
  Check(p, {b}, false);
}

int WinogradTasks(const hlx_plan_t* p) {
  int wino = 0;
  for (int32_t i = 0; i < p->num_tasks; i++)
    wino += std::strstr(p->tasks[i].name, "(winograd)") != nullptr;
  return wino;
}

// The conv_winograd option (hlx_compile_options_t.conv_winograd) or
// HLX_CONV_WINOGRAD=1: 3x3 stride-1 convolutions between blocked
// activations on oneDNN's Winograd kernels; F(2x2|4x4, 3x3) transforms
// round differently, hence the looser tolerance against the reference.
// Without either, no convolution uses Winograd.
TEST(ConvLayout, Winograd) {
  Prog p({1, 28, 28, 16}, "nhwc");
  Val a = p.Relu(p.Conv(p.x(), 128, 1, 1));
  Val b = p.Relu(p.Affine(p.Conv(a, 128, 3, 1)));
  Val c = p.Relu(p.Add(p.Conv(b, 128, 3, 1), a));
  Val d = p.Conv(c, 32, 1, 1);
  std::string text = p.Text({d});
  Lowered by_env, by_option, plain, ref;
  const hlx_plan_t* pe = LowerMain(text, "HLX_CONV_WINOGRAD", &by_env);
  const hlx_plan_t* po = LowerMain(text, nullptr, &by_option, true);
  const hlx_plan_t* pp = LowerMain(text, nullptr, &plain);
  const hlx_plan_t* pr = LowerMain(text, "HLX_CONV_REFERENCE", &ref);
  ASSERT_NE(pe, nullptr);
  ASSERT_NE(po, nullptr);
  ASSERT_NE(pp, nullptr);
  ASSERT_NE(pr, nullptr);
  if (hlx_onednn_act_block() == 16) {
    EXPECT_GE(WinogradTasks(pe), 1);
    EXPECT_GE(WinogradTasks(po), 1);
  }
  EXPECT_EQ(WinogradTasks(pp), 0);
  auto in = p.Inputs(3);
  auto want = RunPlan(pr, in);
  Compare(RunPlan(pe, in), want, 1e-3, "winograd (env) vs reference");
  Compare(RunPlan(po, in), want, 1e-3, "winograd (option) vs reference");
}

}  // namespace
