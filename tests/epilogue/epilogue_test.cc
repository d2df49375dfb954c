// Post-op epilogues (graph/lower/opt/epilogue.c): programs of a convolution or
// dot_general followed by batch-norm-like chains (subtract a per-channel
// mean, multiply by a per-channel or scalar scale, add a bias, add a
// residual, relu as maximum with zero or as a call, logistic, tanh) are
// lowered with
// epilogues and with HLX_NO_EPILOGUE=1; the plans must agree on random
// inputs (both run the same oneDNN convolution, and the post-ops are the
// graph's f32 ops in the graph's order, so the tolerance is tight), and the
// epilogue must be used exactly where it is allowed: not when an
// intermediate has a second user, a "per-channel" vector is broadcast along
// another dimension, or the chain value is subtracted from something.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <vector>

extern "C" {
#include "kernels/libs/onednn.h"
}
#include "tests/epilogue/plan_harness.h"

namespace {

struct Case {
  const char* name;
  bool dot = false;  // dot_general [2, h, ci] x [ci, co] instead of a conv
  int act = 0;       // after relu: 1 logistic, 2 tanh
  bool nchw = false;
  int64_t n = 1, h = 8, w = 8, ci = 8, co = 16, k = 3, stride = 1, pad = 1;
  bool sub = true;         // subtract a per-channel mean
  int mul = 1;             // 0 none, 1 per-channel (reshape + broadcast), 2 scalar
  bool bias = true;        // add a per-channel constant
  bool residual = false;   // add a whole tensor (parameter)
  int relu = 1;            // 0 none, 1 maximum with zero, 2 call @relu
  int second_user = 0;  // also returned: 1 the convolution's result, 2 the
                        // first chain value
  bool bad_broadcast = false;  // the mean is broadcast along a spatial dim
  bool reversed_sub = false;   // mean - conv
  int expect_steps = -1;       // post-ops in the epilogue task (0: none)
  // The residual (a sum post-op) follows binary post-ops: oneDNN 2.6 has
  // only its reference kernel for that below AVX-512 (16-channel block),
  // so there the epilogue is declined and the chain runs unfused.
  bool sum_after_binary = false;
  // Weights, mean and scale as constants: the leading affine steps fold
  // into the weights and a bias (rounding differs, hence the tolerance).
  bool constants = false;
  // NaN and Inf in the input and the residual; the fused plan must give
  // NaN exactly where the unfused one does.
  bool specials = false;
  double tol = 1e-6;
};

// A flat constant of n pseudo-random values in [lo, hi], reshaped to t.
std::string Constant(const std::string& name, int64_t n, const std::string& t,
                     uint32_t seed, double lo, double hi) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::string vals;
  for (int64_t i = 0; i < n; i++)
    vals += (i ? ", " : "") + std::to_string(u(g));
  std::string flat = "tensor<" + std::to_string(n) + "xf32>";
  return "  " + name + "f = stablehlo.constant dense<[" + vals + "]> : " +
         flat + "\n  " + name + " = stablehlo.reshape " + name + "f : (" +
         flat + ") -> " + t + "\n";
}

// "tensor<2x3xf32>" (dims of d).
std::string T(const std::vector<int64_t>& d) {
  std::string dims;
  for (int64_t x : d) dims += std::to_string(x) + "x";
  return "tensor<" + dims + "f32>";
}

int64_t Count(const std::vector<int64_t>& d) {
  return std::accumulate(d.begin(), d.end(), int64_t{1},
                         std::multiplies<int64_t>());
}

struct Shapes {
  std::vector<int64_t> x, w, out;
  int fdim;  // output feature dim
};

Shapes ShapesOf(const Case& c) {
  if (c.dot) return {{2, c.h, c.ci}, {c.ci, c.co}, {2, c.h, c.co}, 2};
  int64_t oh = (c.h + 2 * c.pad - c.k) / c.stride + 1;
  int64_t ow = (c.w + 2 * c.pad - c.k) / c.stride + 1;
  if (c.nchw)
    return {{c.n, c.ci, c.h, c.w}, {c.co, c.ci, c.k, c.k},
            {c.n, c.co, oh, ow}, 1};
  return {{c.n, c.h, c.w, c.ci}, {c.k, c.k, c.ci, c.co}, {c.n, oh, ow, c.co},
          3};
}

std::string Program(const Case& c, std::vector<std::vector<int64_t>>* params) {
  Shapes s = ShapesOf(c);
  std::string O = T(s.out), V = "tensor<" + std::to_string(c.co) + "xf32>";
  std::string fd = std::to_string(s.fdim);
  *params = {s.x, s.w, {c.co}, {c.co}, {}, s.out};
  std::string p = "func.func @main(%x: " + T(s.x) + ", %w: " + T(s.w) +
                  ", %m: " + V + ", %s: " + V + ", %t: tensor<f32>, %r: " + O +
                  ") -> (" + O + (c.second_user ? ", " + O : "") + ") {\n";
  std::string pad = std::to_string(c.pad), st = std::to_string(c.stride);
  std::string w = "%w", m = "%m", sc = "%s";
  if (c.constants) {
    w = "%wc", m = "%mc", sc = "%sc";
    p += Constant(w, Count(s.w), T(s.w), 7, -0.5, 0.5);
    p += Constant(m, c.co, V, 8, -0.2, 0.2);
    p += Constant(sc, c.co, V, 9, 0.5, 1.5);
  }
  if (c.dot)
    p += "  %0 = stablehlo.dot_general %x, " + w +
         ", contracting_dims = [2] x [0] : (" + T(s.x) + ", " + T(s.w) +
         ") -> " + O + "\n";
  else
  p += "  %0 = stablehlo.convolution(%x, " + w + ") dim_numbers = " +
       std::string(c.nchw ? "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]"
                          : "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]") +
       ", window = {stride = [" + st + ", " + st + "], pad = [[" + pad + ", " +
       pad + "], [" + pad + ", " + pad +
       "]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (" +
       T(s.x) + ", " + T(s.w) + ") -> " + O + "\n";
  std::string cur = "%0", extra = c.second_user == 1 ? "%0" : "";
  int k = 1;
  auto next = [&]() { return "%v" + std::to_string(k++); };
  if (c.sub) {
    // bad_broadcast: the vector lands on a spatial dim (sizes made equal).
    std::string dim = c.bad_broadcast ? (c.nchw || c.dot ? "1" : "2") : fd;
    if (c.bad_broadcast && c.nchw) dim = "2";
    std::string mb = next(), r = next();
    p += "  " + mb + " = stablehlo.broadcast_in_dim " + m + ", dims = [" + dim +
         "] : (" + V + ") -> " + O + "\n";
    p += "  " + r + " = stablehlo.subtract " +
         (c.reversed_sub ? mb + ", " + cur : cur + ", " + mb) + " : " + O +
         "\n";
    cur = r;
    if (c.second_user == 2) extra = r;
  }
  if (c.mul == 1) {
    std::vector<int64_t> one(s.out.size(), 1);
    one[s.fdim] = c.co;
    std::string r4 = next(), sb = next(), r = next();
    std::string all;
    for (size_t i = 0; i < one.size(); i++)
      all += (i ? ", " : "") + std::to_string(i);
    p += "  " + r4 + " = stablehlo.reshape " + sc + " : (" + V + ") -> " +
         T(one) +
         "\n";
    p += "  " + sb + " = stablehlo.broadcast_in_dim " + r4 + ", dims = [" +
         all + "] : (" + T(one) + ") -> " + O + "\n";
    p += "  " + r + " = stablehlo.multiply " + sb + ", " + cur + " : " + O +
         "\n";
    cur = r;
  } else if (c.mul == 2) {
    std::string sb = next(), r = next();
    p += "  " + sb + " = stablehlo.broadcast_in_dim %t, dims = [] : " +
         "(tensor<f32>) -> " + O + "\n";
    p += "  " + r + " = stablehlo.multiply " + cur + ", " + sb + " : " + O +
         "\n";
    cur = r;
  }
  if (c.bias) {
    std::string cst = next(), bb = next(), r = next();
    std::string vals;
    for (int64_t i = 0; i < c.co; i++)
      vals += (i ? ", " : "") + std::to_string(0.125 * (double)(i % 7) - 0.3);
    p += "  " + cst + " = stablehlo.constant dense<[" + vals + "]> : " + V +
         "\n";
    p += "  " + bb + " = stablehlo.broadcast_in_dim " + cst + ", dims = [" +
         fd + "] : (" + V + ") -> " + O + "\n";
    p += "  " + r + " = stablehlo.add " + cur + ", " + bb + " : " + O + "\n";
    cur = r;
  }
  if (c.residual) {
    std::string r = next();
    p += "  " + r + " = stablehlo.add %r, " + cur + " : " + O + "\n";
    cur = r;
  }
  if (c.relu == 1) {
    std::string z = next(), zb = next(), r = next();
    p += "  " + z + " = stablehlo.constant dense<0.000000e+00> : tensor<f32>\n";
    p += "  " + zb + " = stablehlo.broadcast_in_dim " + z +
         ", dims = [] : (tensor<f32>) -> " + O + "\n";
    p += "  " + r + " = stablehlo.maximum " + cur + ", " + zb + " : " + O +
         "\n";
    cur = r;
  } else if (c.relu == 2) {
    std::string r = next();
    p += "  " + r + " = call @relu(" + cur + ") : (" + O + ") -> " + O + "\n";
    cur = r;
  }
  if (c.act) {
    std::string r = next();
    p += "  " + r + " = stablehlo." + (c.act == 1 ? "logistic " : "tanh ") +
         cur + " : " + O + "\n";
    cur = r;
  }
  p += "  return " + cur + (extra.empty() ? "" : ", " + extra) + " : " + O +
       (extra.empty() ? "" : ", " + O) + "\n}\n";
  p += "func.func private @relu(%a: " + O + ") -> " + O + " {\n" +
       "  %z = stablehlo.constant dense<0.000000e+00> : tensor<f32>\n" +
       "  %zb = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<f32>) -> " +
       O + "\n  %y = stablehlo.maximum %a, %zb : " + O + "\n  return %y : " +
       O + "\n}\n";
  return p;
}

// Post-ops of the epilogue task of @main ("...+epilogue(a,b,c) at .." or
// "+epilogue[2 folded](a,b,c)": the first two went into the weights and a
// bias): -1 when there is none.
int EpilogueSteps(const hlx_plan_t* p) {
  int found = -1;
  for (int32_t i = 0; i < p->num_tasks; i++) {
    const char* e = std::strstr(p->tasks[i].name, "+epilogue");
    if (!e) continue;
    EXPECT_EQ(found, -1) << "two epilogue tasks";
    int folded = 0;
    if (e[9] == '[') folded = std::atoi(e + 10);
    found = 1 - folded;
    for (const char* q = std::strchr(e, '('); q && *q && *q != ')'; q++)
      found += *q == ',';
    if (found == 0) found = -1;  // all folded: a plain convolution
  }
  return found;
}

void Check(const Case& c) {
  SCOPED_TRACE(c.name);
  std::vector<std::vector<int64_t>> shapes;
  std::string text = Program(c, &shapes);
  Lowered on, off;
  const hlx_plan_t* pe = LowerMain(text, nullptr, &on);
  const hlx_plan_t* pu = LowerMain(text, "HLX_NO_EPILOGUE", &off);
  ASSERT_NE(pe, nullptr);
  ASSERT_NE(pu, nullptr);
  bool fused = c.expect_steps > 0 &&
               !(c.sum_after_binary && hlx_onednn_act_block() != 16);
  EXPECT_EQ(EpilogueSteps(pe), fused ? c.expect_steps : -1) << text;
  EXPECT_EQ(EpilogueSteps(pu), -1);
  std::mt19937 rng(1234);
  std::uniform_real_distribution<float> u(-1, 1);
  for (int trial = 0; trial < 2; trial++) {
    std::vector<std::vector<float>> in;
    for (size_t k = 0; k < shapes.size(); k++) {
      std::vector<float> v(Count(shapes[k]));
      for (auto& x : v) x = u(rng);
      if (c.specials && k == 0) v[3] = NAN, v[7] = INFINITY;  // x
      if (c.specials && k == 5)  // the residual
        for (size_t i = 0; i < v.size(); i += 5)
          v[i] = i % 3 == 0 ? NAN : i % 3 == 1 ? -INFINITY : INFINITY;
      in.push_back(v);
    }
    auto a = RunPlan(pe, in), b = RunPlan(pu, in);
    ASSERT_EQ(a.size(), b.size());
    for (size_t r = 0; r < a.size(); r++) {
      double big = 0;
      for (float y : b[r])
        if (std::isfinite(y)) big = std::fmax(big, std::fabs(y));
      ASSERT_GT(big, 0);
      int bad = 0, nan = 0;
      for (size_t i = 0; i < a[r].size() && bad < 5; i++) {
        nan += std::isnan(b[r][i]);
        bool ok = std::isnan(b[r][i])
                      ? std::isnan(a[r][i])
                      : a[r][i] == b[r][i] ||
                            std::fabs(a[r][i] - b[r][i]) <= c.tol * big;
        if (!ok) {
          ADD_FAILURE() << "result " << r << " element " << i << ": "
                        << a[r][i] << " vs " << b[r][i];
          bad++;
        }
      }
      if (c.specials) EXPECT_GT(nan, 0);
    }
  }
}

TEST(ConvEpilogue, BatchNormRelu) {
  Case c{"bn relu"};
  c.expect_steps = 4;
  Check(c);
}

TEST(ConvEpilogue, Shapes) {
  Case a{"1x1 stride 2, odd channels"};
  a.k = 1, a.pad = 0, a.stride = 2, a.ci = 5, a.co = 24, a.h = 9, a.w = 7;
  a.expect_steps = 4;
  Check(a);
  // The last window ends before the input does (oneDNN's high padding is
  // negative): ResNet's 1x1 stride-2 projections.
  Case e{"1x1 stride 2, even size"};
  e.k = 1, e.pad = 0, e.stride = 2, e.h = 8, e.w = 8, e.expect_steps = 4;
  Check(e);
  Case b{"nchw 3x3 batch 2"};
  b.nchw = true, b.n = 2, b.ci = 3, b.co = 17, b.h = 11, b.w = 6;
  b.expect_steps = 4;
  Check(b);
  Case d{"7x7 stride 2 pad 3"};
  d.k = 7, d.stride = 2, d.pad = 3, d.ci = 3, d.co = 32, d.h = 20, d.w = 20;
  d.expect_steps = 4;
  Check(d);
}

TEST(ConvEpilogue, SubsetsOfTheChain) {
  for (int mask = 0; mask < 16; mask++) {
    Case c{"subset"};
    c.sub = mask & 1;
    c.mul = (mask & 2) ? 1 : 0;
    c.bias = mask & 4;
    c.relu = (mask & 8) ? 1 : 0;
    c.expect_steps = c.sub + (c.mul != 0) + c.bias + (c.relu != 0);
    std::string name = "subset " + std::to_string(mask);
    c.name = name.c_str();
    Check(c);
  }
}

TEST(ConvEpilogue, ScalarScaleResidualAndCalledRelu) {
  Case c{"scalar scale, residual, call @relu"};
  c.mul = 2, c.residual = true, c.relu = 2, c.expect_steps = 5;
  c.sum_after_binary = true;
  Check(c);
  // NCHW: oneDNN writes a blocked layout, so the residual add (which goes
  // through dst) stays outside the epilogue.
  Case n{"nchw residual"};
  n.nchw = true, n.residual = true, n.co = 20, n.expect_steps = 3;
  Check(n);
}

TEST(ConvEpilogue, NotApplied) {
  Case two{"conv result has two users"};
  two.second_user = 1, two.expect_steps = 0;
  Check(two);
  Case bad{"mean broadcast along a spatial dim"};
  bad.bad_broadcast = true, bad.h = 16, bad.w = 16, bad.co = 16;
  bad.expect_steps = 0;  // the chain starts with the subtract
  Check(bad);
  Case rev{"mean - conv"};
  rev.reversed_sub = true, rev.expect_steps = 0;
  Check(rev);
  Case late{"chain stops at a value with a second user"};
  late.second_user = 2, late.expect_steps = 1;
  Check(late);
}

}  // namespace

namespace {

// Constant weights, mean and scale: subtract, multiply and the bias add
// fold (conv+BN folding); only relu (and the residual) stay post-ops.
TEST(ConvEpilogue, ConstantsFold) {
  Case c{"constants fold"};
  c.constants = true, c.co = 24, c.expect_steps = 1, c.tol = 1e-5;
  Check(c);
  Case r{"constants fold, residual stays"};
  r.constants = true, r.residual = true, r.mul = 2, r.k = 1, r.pad = 0;
  // The scale is a parameter: only the subtract folds, 4 of 5 steps stay.
  r.expect_steps = 4, r.tol = 1e-5, r.sum_after_binary = true;
  Check(r);
  Case n{"nchw constants, no relu"};
  n.constants = true, n.nchw = true, n.relu = 0, n.tol = 1e-5;
  n.expect_steps = 0;  // everything folds into weights and bias
  Check(n);
  // The same with folding off: the steps stay post-ops.
  setenv("HLX_NO_CONV_FOLD", "1", 1);
  Case off{"constants, folding off"};
  off.constants = true, off.expect_steps = 4;
  Check(off);
  unsetenv("HLX_NO_CONV_FOLD");
}

TEST(DotEpilogue, BiasAndActivations) {
  for (int act = 0; act < 3; act++) {
    Case c{"dot bias relu act"};
    c.dot = true, c.h = 70, c.ci = 96, c.co = 80, c.sub = false, c.mul = 0;
    c.act = act;
    c.expect_steps = 2 + (act != 0);
    Check(c);
  }
}

TEST(DotEpilogue, FullChainAndResidual) {
  Case c{"dot bn residual relu"};
  c.dot = true, c.h = 65, c.ci = 128, c.co = 72, c.residual = true;
  c.expect_steps = 5, c.sum_after_binary = true;
  Check(c);
}

// maximum(x, 0) of a NaN is NaN (StableHLO's maximum propagates NaN, as
// the unfused kernel does) and of -Inf is 0. oneDNN's relu post-op
// computes vmaxps(x, 0), which gives 0 for a NaN, so a NaN reaching a
// fused relu vanished (found by the fusion net, fusion_fuzz_test: a
// residual or bias holding a NaN).
TEST(Epilogue, ReluKeepsNaN) {
  for (int kind = 0; kind < 3; kind++) {  // conv NHWC, conv NCHW, dot
    Case c{kind == 0   ? "nhwc relu of NaN"
           : kind == 1 ? "nchw relu of NaN"
                       : "dot relu of NaN"};
    c.dot = kind == 2, c.nchw = kind == 1, c.sub = false, c.mul = 0;
    c.specials = true, c.expect_steps = 2;
    // The residual adds NaN/Inf after the product (NCHW: not a post-op,
    // the NaN come through the input). No bias with it: a sum after a
    // binary post-op has only oneDNN's reference kernel below AVX-512.
    c.residual = !c.nchw, c.bias = c.nchw;
    if (c.dot) c.h = 70, c.ci = 96, c.co = 80;
    Check(c);
  }
}

TEST(DotEpilogue, NotApplied) {
  Case small{"libxsmm-sized product"};
  small.dot = true, small.h = 8, small.ci = 8, small.co = 8;
  small.expect_steps = 0;
  Check(small);
  Case two{"dot result has two users"};
  two.dot = true, two.h = 70, two.ci = 96, two.co = 80, two.second_user = 1;
  two.expect_steps = 0;
  Check(two);
  Case bad{"vector broadcast along the rows"};
  bad.dot = true, bad.h = 80, bad.ci = 96, bad.co = 80, bad.bad_broadcast = true;
  bad.expect_steps = 0;
  Check(bad);
}

}  // namespace
