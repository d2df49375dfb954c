// Conv+BN folding with the weights and batch-norm parameters as reusable
// parameters (graph/lower/opt/conv_fold.c, run_conv_cached in
// graph/lower/conv.c): the convolution's subtract-mean / multiply by
// rsqrt(var + eps) * gamma / add-beta steps fold into the packed weights
// and a bias per set of buffers, so only relu (and a residual sum) stay
// post-ops. The folded plan must equal the plan lowered with
// HLX_NO_CONV_FOLD=1 (same reusable parameters, the steps as oneDNN
// post-ops) within the constant-folding tolerance, on the first run, on a
// run with the same buffers (the cache), after a batch-norm parameter is
// replaced by a new buffer, and after new weights. The folded values are
// keyed by content, so a batch-norm buffer rewritten in place is seen too;
// a weights buffer rewritten in place is not (the reusable-parameter
// promise, hlx_compile_options_t.reusable_params), which shows the packed
// weights are kept.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "tests/epilogue/plan_harness.h"

extern "C" {
#include "kernels/libs/onednn.h"
}

namespace {

struct Shape {
  int64_t hw, ci, co, k;
  bool residual;
  bool oihw = false;  // weights [o, i, 0, 1]: the output feature outermost
  bool reverse = false;  // window reversal: weights flipped before packing
  int64_t groups = 1;    // feature_group_count
  int gamma_chain = 0;   // > 0: gamma doubled that many times (q = q + q)
  int64_t wcount() const { return k * k * (ci / groups) * co; }
};

// JAX's export of conv + batch norm (+ residual) + relu, NHWC / HWIO, with
// x, w, mean, var, gamma, beta (, res) as parameters.
std::string Program(const Shape& s) {
  std::string x = TensorType({1, s.hw, s.hw, s.ci});
  int64_t wi = s.ci / s.groups;
  std::string w = s.oihw ? TensorType({s.co, wi, s.k, s.k})
                         : TensorType({s.k, s.k, wi, s.co});
  std::string y = TensorType({1, s.hw, s.hw, s.co});
  std::string v = TensorType({s.co});
  std::string c1 = TensorType({1, 1, 1, s.co});
  int64_t p = s.k / 2;
  std::string pad = std::to_string(p);
  std::string t = "func.func @main(%x: " + x + ", %w: " + w + ", %mean: " + v +
                  ", %var: " + v + ", %gamma: " + v + ", %beta: " + v +
                  (s.residual ? ", %res: " + y : "") + ") -> " + y + " {\n";
  t += "  %c = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x" +
       std::string(s.oihw ? "[o, i, 0, 1]" : "[0, 1, i, o]") +
       "->[b, 0, 1, f], window = {pad = [[" + pad + ", " + pad +
       "], [" + pad + ", " + pad + "]]" +
       (s.reverse ? ", reverse = [true, true]" : "") +
       "} {batch_group_count = 1 : i64, feature_group_count = " +
       std::to_string(s.groups) + " : i64} : (" + x + ", " + w + ") -> " + y +
       "\n";
  t += "  %eps = stablehlo.constant dense<9.99999974E-6> : tensor<f32>\n";
  t += "  %m1 = stablehlo.broadcast_in_dim %mean, dims = [3] : (" + v +
       ") -> " + c1 + "\n";
  t += "  %m2 = stablehlo.broadcast_in_dim %m1, dims = [0, 1, 2, 3] : (" +
       c1 + ") -> " + y + "\n";
  t += "  %s0 = stablehlo.subtract %c, %m2 : " + y + "\n";
  t += "  %v1 = stablehlo.broadcast_in_dim %var, dims = [3] : (" + v +
       ") -> " + c1 + "\n";
  t += "  %e1 = stablehlo.broadcast_in_dim %eps, dims = [] : (tensor<f32>) "
       "-> " + c1 + "\n";
  t += "  %v2 = stablehlo.add %v1, %e1 : " + c1 + "\n";
  t += "  %r = stablehlo.rsqrt %v2 : " + c1 + "\n";
  std::string gamma = "%gamma";
  for (int i = 0; i < s.gamma_chain; i++) {
    std::string q = "%q" + std::to_string(i);
    t += "  " + q + " = stablehlo.add " + gamma + ", " + gamma + " : " + v +
         "\n";
    gamma = q;
  }
  t += "  %g = stablehlo.reshape " + gamma + " : (" + v + ") -> " + c1 + "\n";
  t += "  %sc = stablehlo.multiply %r, %g : " + c1 + "\n";
  t += "  %sc2 = stablehlo.broadcast_in_dim %sc, dims = [0, 1, 2, 3] : (" +
       c1 + ") -> " + y + "\n";
  t += "  %s1 = stablehlo.multiply %s0, %sc2 : " + y + "\n";
  t += "  %b = stablehlo.reshape %beta : (" + v + ") -> " + c1 + "\n";
  t += "  %b2 = stablehlo.broadcast_in_dim %b, dims = [0, 1, 2, 3] : (" + c1 +
       ") -> " + y + "\n";
  t += "  %s2 = stablehlo.add %s1, %b2 : " + y + "\n";
  std::string last = "%s2";
  if (s.residual) {
    t += "  %s3 = stablehlo.add %s2, %res : " + y + "\n";
    last = "%s3";
  }
  t += "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n";
  t += "  %zb = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<f32>) -> " +
       y + "\n";
  t += "  %out = stablehlo.maximum " + last + ", %zb : " + y + "\n";
  t += "  return %out : " + y + "\n}\n";
  return t;
}

// @main lowered with reusable[i] telling which of its n parameters are
// reusable, `env` set while lowering.
const hlx_plan_t* LowerWith(const std::string& text, const char* env,
                            const bool* reusable, int32_t n, bool wino,
                            Lowered* l) {
  hlx_lower_options_t o = {};
  o.library_threads = 1;
  o.conv_winograd = wino;
  o.reusable_entry = "main";
  o.reusable_params = reusable;
  o.num_reusable_params = n;
  if (!plan_run::LowerOptions(text, env, o, l)) return nullptr;
  return hlx_lowered_find(l->lm, "main");
}

// @main lowered with every parameter but x (and res) reusable.
const hlx_plan_t* Lower(const std::string& text, const char* env, bool wino,
                        bool residual, Lowered* l) {
  static const bool kReusable[] = {false, true, true, true,
                                   true,  true, false};
  return LowerWith(text, env, kReusable, residual ? 7 : 6, wino, l);
}

std::vector<unsigned char> Random(int64_t n, uint32_t seed, double lo,
                                  double hi) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> u(static_cast<float>(lo),
                                          static_cast<float>(hi));
  std::vector<unsigned char> b(static_cast<size_t>(n) * sizeof(float) + 1);
  for (int64_t i = 0; i < n; i++) {
    float x = u(g);
    std::memcpy(b.data() + i * sizeof(float), &x, sizeof x);
  }
  return b;
}

std::vector<float> Floats(const plan_run::Buffers& r) {
  std::vector<float> v((r.at(0).size() - 1) / sizeof(float));
  std::memcpy(v.data(), r[0].data(), v.size() * sizeof(float));
  return v;
}

// |a - b| <= tol * max|b| everywhere.
void Near(const std::vector<float>& a, const std::vector<float>& b,
          double tol, const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  double big = 0;
  for (float y : b) big = std::fmax(big, std::fabs(y));
  ASSERT_GT(big, 0) << what;
  int bad = 0;
  for (size_t i = 0; i < a.size() && bad < 5; i++)
    if (!(std::fabs(a[i] - b[i]) <= tol * big)) {
      ADD_FAILURE() << what << ": element " << i << ": " << a[i] << " vs "
                    << b[i];
      bad++;
    }
}

bool Differ(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() != b.size() ||
         std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) != 0;
}

void Check(const Shape& s, bool wino, double tol) {
  std::string text = Program(s);
  Lowered folded_l, plain_l;
  const hlx_plan_t* pf = Lower(text, nullptr, wino, s.residual, &folded_l);
  const hlx_plan_t* pu =
      Lower(text, "HLX_NO_CONV_FOLD", false, s.residual, &plain_l);
  ASSERT_NE(pf, nullptr);
  ASSERT_NE(pu, nullptr);
  // mean, scale and beta fold; relu (and the residual) stay.
  EXPECT_EQ(TasksNamed(pf, "+epilogue[3 folded]"), 1) << text;
  EXPECT_EQ(TasksNamed(pu, "folded"), 0);
  if (wino && hlx_onednn_act_block() == 16)
    EXPECT_EQ(TasksNamed(pf, "(winograd)"), 1);

  int64_t co = s.co, out = s.hw * s.hw * s.co;
  plan_run::Buffers in = {
      Random(s.hw * s.hw * s.ci, 1, -1, 1),
      Random(s.wcount(), 2, -0.5, 0.5),
      Random(co, 3, -0.5, 0.5),   // mean
      Random(co, 4, 0.1, 2),      // var
      Random(co, 5, 0.5, 1.5),    // gamma
      Random(co, 6, -1, 1),       // beta
  };
  if (s.residual) in.push_back(Random(out, 7, -1, 1));
  plan_run::Buffers old;  // replaced buffers stay allocated: new addresses

  auto first = Floats(plan_run::RunPlan(pf, in));
  Near(first, Floats(plan_run::RunPlan(pu, in)), tol, "first run");
  auto again = Floats(plan_run::RunPlan(pf, in));
  EXPECT_FALSE(Differ(first, again)) << "same buffers, another result";

  // A new gamma buffer.
  old.push_back(in[4]);
  in[4] = Random(co, 8, -1.5, -0.5);
  auto g = Floats(plan_run::RunPlan(pf, in));
  EXPECT_TRUE(Differ(g, first));
  Near(g, Floats(plan_run::RunPlan(pu, in)), tol, "new gamma buffer");

  // The mean and var rewritten in place: compared by content, refolded.
  std::memcpy(in[2].data(), Random(co, 9, -0.5, 0.5).data(),
              co * sizeof(float));
  std::memcpy(in[3].data(), Random(co, 10, 0.1, 2).data(), co * sizeof(float));
  auto mv = Floats(plan_run::RunPlan(pf, in));
  EXPECT_TRUE(Differ(mv, g));
  Near(mv, Floats(plan_run::RunPlan(pu, in)), tol, "mean/var in place");

  // New weights buffer.
  old.push_back(in[1]);
  in[1] = Random(s.wcount(), 11, -0.5, 0.5);
  auto nw = Floats(plan_run::RunPlan(pf, in));
  EXPECT_TRUE(Differ(nw, mv));
  auto want = Floats(plan_run::RunPlan(pu, in));
  Near(nw, want, tol, "new weights buffer");

  // The weights rewritten in place break the reusable-parameter promise:
  // the kept packed copy is used (the unfolded plan keeps its own copy
  // too), so both still give the old weights' result.
  std::vector<unsigned char> fresh = Random(s.wcount(), 12, -1, 1);
  std::memcpy(in[1].data(), fresh.data(), fresh.size() - 1);
  EXPECT_FALSE(Differ(Floats(plan_run::RunPlan(pf, in)), nw));
}

TEST(ConvFoldReusable, Conv3x3Relu) { Check({14, 16, 32, 3, false}, false, 1e-5); }

// The weights' output feature outermost: each feature's scale multiplies
// a contiguous block of weights.
TEST(ConvFoldReusable, OihwWeights) {
  Check({14, 16, 32, 3, false, true}, false, 1e-5);
}

// Window reversal: the scaled weights are reversed before packing.
// (Transposed convolutions take no epilogue: graph/lower/opt/epilogue.c.)
TEST(ConvFoldReusable, ReversedWindow) {
  Shape s{14, 16, 32, 3, false};
  s.reverse = true;
  Check(s, false, 1e-5);
}

TEST(ConvFoldReusable, GroupedConv) {
  Shape s{14, 16, 32, 3, false};
  s.groups = 2;
  Check(s, false, 1e-5);
}

// A scale computed by a long expression in which each value is reached
// along two paths (q + q): each value is looked at once, so it folds
// (before: 2^depth walks, and none past depth 24).
TEST(ConvFoldReusable, SharedSubexpressionsFold) {
  Shape s{14, 16, 32, 3, false};
  s.gamma_chain = 30;
  Check(s, false, 1e-5);
}

TEST(ConvFoldReusable, Conv1x1ResidualRelu) {
  Check({14, 32, 64, 1, true}, false, 1e-5);
}

// Folding leaves relu, which oneDNN's Winograd kernel takes (not the
// binary post-ops of the unfolded steps); its transforms
// round differently, hence the looser tolerance.
TEST(ConvFoldReusable, WinogradRelu) {
  Check({28, 32, 64, 3, false}, true, 1e-4);
}

// Steps whose operand may vary per run (gamma is not a reusable
// parameter here, so neither is the scale) stay post-ops, after the
// folded subtract; the result still equals the unfolded plan's, also
// after gamma and the mean change in place.
TEST(ConvFoldReusable, NonReusableScaleStays) {
  Shape s{14, 16, 32, 3, false};
  std::string text = Program(s);
  static const bool kSomeReusable[] = {false, true, true, true, false, true};
  Lowered l, plain_l;  // gamma is not reusable
  const hlx_plan_t* p = LowerWith(text, nullptr, kSomeReusable, 6, false, &l);
  const hlx_plan_t* pu =
      LowerWith(text, "HLX_NO_CONV_FOLD", kSomeReusable, 6, false, &plain_l);
  ASSERT_NE(p, nullptr);
  ASSERT_NE(pu, nullptr);
  // Only the subtract (mean is reusable) folds.
  EXPECT_EQ(TasksNamed(p, "+epilogue[1 folded]"), 1);
  int64_t co = s.co;
  plan_run::Buffers in = {
      Random(s.hw * s.hw * s.ci, 1, -1, 1), Random(s.wcount(), 2, -0.5, 0.5),
      Random(co, 3, -0.5, 0.5), Random(co, 4, 0.1, 2),
      Random(co, 5, 0.5, 1.5),  Random(co, 6, -1, 1)};
  auto first = Floats(plan_run::RunPlan(p, in));
  Near(first, Floats(plan_run::RunPlan(pu, in)), 1e-5, "first run");
  std::memcpy(in[4].data(), Random(co, 7, -1.5, -0.5).data(),
              co * sizeof(float));
  std::memcpy(in[2].data(), Random(co, 8, -0.5, 0.5).data(),
              co * sizeof(float));
  auto changed = Floats(plan_run::RunPlan(p, in));
  EXPECT_TRUE(Differ(changed, first));
  Near(changed, Floats(plan_run::RunPlan(pu, in)), 1e-5, "changed in place");
}

// A step by a single value (a scalar parameter): one float of the key.
TEST(ConvFoldReusable, ScalarScale) {
  const char* kText = R"(
func.func @main(%x: tensor<1x8x8x16xf32>, %w: tensor<3x3x16x32xf32>, %k: tensor<f32>, %beta: tensor<32xf32>) -> tensor<1x8x8x32xf32> {
  %c = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x16xf32>, tensor<3x3x16x32xf32>) -> tensor<1x8x8x32xf32>
  %kb = stablehlo.broadcast_in_dim %k, dims = [] : (tensor<f32>) -> tensor<1x8x8x32xf32>
  %m = stablehlo.multiply %c, %kb : tensor<1x8x8x32xf32>
  %bb = stablehlo.broadcast_in_dim %beta, dims = [3] : (tensor<32xf32>) -> tensor<1x8x8x32xf32>
  %a = stablehlo.add %m, %bb : tensor<1x8x8x32xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %zb = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<f32>) -> tensor<1x8x8x32xf32>
  %o = stablehlo.maximum %a, %zb : tensor<1x8x8x32xf32>
  return %o : tensor<1x8x8x32xf32>
}
)";
  static const bool kReusable[] = {false, true, true, true};
  Lowered l, plain_l;
  const hlx_plan_t* p = LowerWith(kText, nullptr, kReusable, 4, false, &l);
  const hlx_plan_t* pu =
      LowerWith(kText, "HLX_NO_CONV_FOLD", kReusable, 4, false, &plain_l);
  ASSERT_NE(p, nullptr);
  ASSERT_NE(pu, nullptr);
  EXPECT_EQ(TasksNamed(p, "+epilogue[2 folded]"), 1);
  plan_run::Buffers in = {Random(8 * 8 * 16, 1, -1, 1),
                          Random(3 * 3 * 16 * 32, 2, -0.5, 0.5),
                          Random(1, 3, 0.5, 1.5), Random(32, 4, -1, 1)};
  auto first = Floats(plan_run::RunPlan(p, in));
  Near(first, Floats(plan_run::RunPlan(pu, in)), 1e-5, "first run");
  std::memcpy(in[2].data(), Random(1, 5, -1.5, -0.5).data(), sizeof(float));
  auto changed = Floats(plan_run::RunPlan(p, in));
  EXPECT_TRUE(Differ(changed, first));
  Near(changed, Floats(plan_run::RunPlan(pu, in)), 1e-5, "new scale");
}

// ResNet's last block: a convolution reading a blocked activation with a
// residual sum whose result is returned (logical). oneDNN would write a
// blocked dst for the blocked src, which the sum cannot take, so the
// convolution reads a logical copy and keeps its epilogue; the result
// matches the reference kernel.
TEST(ConvFoldReusable, SumIntoReturnedResult) {
  const char* kText = R"(
func.func @main(%x: tensor<1x7x7x64xf32>, %w1: tensor<1x1x64x64xf32>, %w2: tensor<1x1x64x64xf32>) -> tensor<1x7x7x64xf32> {
  %a = stablehlo.convolution(%x, %w1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x7x7x64xf32>, tensor<1x1x64x64xf32>) -> tensor<1x7x7x64xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %zb = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<f32>) -> tensor<1x7x7x64xf32>
  %r = stablehlo.maximum %a, %zb : tensor<1x7x7x64xf32>
  %c = stablehlo.convolution(%r, %w2) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x7x7x64xf32>, tensor<1x1x64x64xf32>) -> tensor<1x7x7x64xf32>
  %s = stablehlo.add %c, %r : tensor<1x7x7x64xf32>
  %o = stablehlo.maximum %s, %zb : tensor<1x7x7x64xf32>
  return %o : tensor<1x7x7x64xf32>
}
)";
  Lowered fused_l, ref_l;
  const hlx_plan_t* pf = LowerMain(kText, nullptr, &fused_l);
  const hlx_plan_t* pr = LowerMain(kText, "HLX_CONV_REFERENCE", &ref_l);
  ASSERT_NE(pf, nullptr);
  ASSERT_NE(pr, nullptr);
  EXPECT_EQ(TasksNamed(pf, "+epilogue(add,relu)"), 1);
  plan_run::Buffers in = {Random(7 * 7 * 64, 1, -1, 1),
                          Random(64 * 64, 2, -0.3, 0.3),
                          Random(64 * 64, 3, -0.3, 0.3)};
  Near(Floats(plan_run::RunPlan(pf, in)), Floats(plan_run::RunPlan(pr, in)),
       1e-5, "vs reference");
}

// Concurrent runs alternating two gamma buffers: each sees the folded
// weights of its own buffers (a refold happens under the write lock, so a
// copy is never replaced while another run uses it).
TEST(ConvFoldReusable, ConcurrentRunsSeeTheirOwnFold) {
  Shape s{14, 16, 32, 3, false};
  Lowered l;
  const hlx_plan_t* p = Lower(Program(s), nullptr, false, false, &l);
  ASSERT_NE(p, nullptr);
  int64_t co = s.co;
  plan_run::Buffers a = {
      Random(s.hw * s.hw * s.ci, 1, -1, 1),
      Random(s.k * s.k * s.ci * s.co, 2, -0.5, 0.5),
      Random(co, 3, -0.5, 0.5), Random(co, 4, 0.1, 2),
      Random(co, 5, 0.5, 1.5),  Random(co, 6, -1, 1)};
  plan_run::Buffers b = a;  // its own buffers; another gamma
  b[4] = Random(co, 7, -1.5, -0.5);
  auto want_a = Floats(plan_run::RunPlan(p, a));
  auto want_b = Floats(plan_run::RunPlan(p, b));
  ASSERT_TRUE(Differ(want_a, want_b));
  std::atomic<int> wrong{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < 3; t++)
    ts.emplace_back([&, t] {
      for (int i = 0; i < 20; i++) {
        bool one = (i + t) % 2 == 0;
        auto got = Floats(plan_run::RunPlan(p, one ? a : b));
        if (Differ(got, one ? want_a : want_b)) wrong++;
      }
    });
  for (auto& th : ts) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
