// Transposed convolution (lhs_dilation > 1) on oneDNN's deconvolution
// (graph/lower/conv.c) against the reference kernel (HLX_CONV_REFERENCE=1,
// f64 accumulation) on random data: 1-2 spatial dims, dilations 2-3,
// kernels 1-4, the paddings jax.lax.conv_transpose produces and others,
// rhs dilation, feature groups, window reversal, NCHW/NHWC, constant and
// parameter weights; and forward convolutions with window reversal. Also checks the oneDNN task is used (it is the only
// task flagged HLX_TASK_WIDE) where the rules allow it, and not for a
// strided transposed convolution or padding beyond the kernel.
//
// Tolerance: oneDNN sums T = Ci/G * prod(K) products of values in [-1, 1]
// in f32; the reference rounds the exact sum once.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "tests/epilogue/plan_harness.h"

namespace {

struct Case {
  std::string name;
  int ns = 2;                  // spatial dims
  bool nchw = false;
  int64_t n = 1, in = 7, ci = 4, co = 6, k = 3, ld = 2, rd = 1, groups = 1;
  int64_t lo = 2, hi = 2, stride = 1;
  bool reverse = false, constant = false;
  bool expect_library = true;
};

std::string T(const std::vector<int64_t>& d) {
  std::string dims;
  for (int64_t x : d) dims += std::to_string(x) + "x";
  return "tensor<" + dims + "f32>";
}

int64_t Product(const std::vector<int64_t>& d) {
  int64_t p = 1;
  for (int64_t x : d) p *= x;
  return p;
}

std::string List(int ns, const std::string& v) {
  std::string s;
  for (int i = 0; i < ns; i++) s += (i ? ", " : "") + v;
  return "[" + s + "]";
}

struct Shapes {
  std::vector<int64_t> x, w, out;
};

Shapes ShapesOf(const Case& c) {
  int64_t dil_in = (c.in - 1) * c.ld + 1, reach = (c.k - 1) * c.rd + 1;
  int64_t o = (dil_in + c.lo + c.hi - reach) / c.stride + 1;
  Shapes s;
  s.x = {c.n}, s.w = {}, s.out = {c.n};
  if (c.nchw) {
    s.x.push_back(c.ci), s.out.push_back(c.co);
    s.w = {c.co, c.ci / c.groups};
  }
  for (int i = 0; i < c.ns; i++) {
    s.x.push_back(c.in), s.out.push_back(o);
    if (!c.nchw) s.w.push_back(c.k);
  }
  if (c.nchw)
    for (int i = 0; i < c.ns; i++) s.w.push_back(c.k);
  else
    s.x.push_back(c.ci), s.out.push_back(c.co),
        s.w.push_back(c.ci / c.groups), s.w.push_back(c.co);
  return s;
}

std::string Program(const Case& c, const std::vector<float>& w) {
  Shapes s = ShapesOf(c);
  std::string sp = c.ns == 1 ? "0" : "0, 1";
  std::string dn = c.nchw ? "[b, f, " + sp + "]x[o, i, " + sp + "]->[b, f, " +
                                sp + "]"
                          : "[b, " + sp + ", f]x[" + sp + ", i, o]->[b, " +
                                sp + ", f]";
  std::string pad;
  for (int i = 0; i < c.ns; i++)
    pad += std::string(i ? ", " : "") + "[" + std::to_string(c.lo) + ", " +
           std::to_string(c.hi) + "]";
  std::string p = "func.func @main(%x: " + T(s.x) +
                  (c.constant ? "" : ", %w: " + T(s.w)) + ") -> " + T(s.out) +
                  " {\n";
  if (c.constant) {
    std::string vals, flat = "tensor<" + std::to_string(w.size()) + "xf32>";
    char buf[32];
    for (size_t i = 0; i < w.size(); i++) {
      snprintf(buf, sizeof buf, "%s%.9g", i ? ", " : "", w[i]);
      vals += buf;
    }
    p += "  %f = stablehlo.constant dense<[" + vals + "]> : " + flat + "\n";
    p += "  %w = stablehlo.reshape %f : (" + flat + ") -> " + T(s.w) + "\n";
  }
  p += "  %0 = stablehlo.convolution(%x, %w) dim_numbers = " + dn +
       ", window = {stride = " + List(c.ns, std::to_string(c.stride)) +
       ", pad = [" + pad + "], lhs_dilate = " +
       List(c.ns, std::to_string(c.ld)) +
       ", rhs_dilate = " + List(c.ns, std::to_string(c.rd)) +
       ", reverse = " + List(c.ns, c.reverse ? "true" : "false") +
       "} {batch_group_count = 1 : i64, feature_group_count = " +
       std::to_string(c.groups) + " : i64} : (" + T(s.x) + ", " + T(s.w) +
       ") -> " + T(s.out) + "\n  return %0 : " + T(s.out) + "\n}\n";
  return p;
}

bool UsesLibrary(const hlx_plan_t* p) {
  for (int32_t i = 0; i < p->num_tasks; i++)
    if (p->tasks[i].flags & HLX_TASK_WIDE) return true;
  return false;
}

void Check(const Case& c) {
  SCOPED_TRACE(c.name);
  Shapes s = ShapesOf(c);
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> x(Product(s.x)), w(Product(s.w));
  for (auto& v : x) v = u(rng);
  for (auto& v : w) v = u(rng);
  std::string text = Program(c, w);
  Lowered lib, ref;
  const hlx_plan_t* pl = LowerMain(text, nullptr, &lib);
  const hlx_plan_t* pr = LowerMain(text, "HLX_CONV_REFERENCE", &ref);
  ASSERT_NE(pl, nullptr);
  ASSERT_NE(pr, nullptr);
  EXPECT_EQ(UsesLibrary(pl), c.expect_library) << text;
  EXPECT_FALSE(UsesLibrary(pr));
  std::vector<std::vector<float>> in = {x};
  if (!c.constant) in.push_back(w);
  std::vector<float> a = RunPlan(pl, in)[0], b = RunPlan(pr, in)[0];
  ASSERT_EQ(a.size(), b.size());
  ASSERT_EQ((int64_t)a.size(), Product(s.out));
  double terms = (double)(c.ci / c.groups) * std::pow((double)c.k, c.ns);
  double tol = 1e-6 * terms;
  int bad = 0;
  for (size_t i = 0; i < a.size() && bad < 5; i++)
    if (!(std::fabs(a[i] - b[i]) <= tol)) {
      ADD_FAILURE() << "element " << i << ": " << a[i] << " vs " << b[i]
                    << "\n" << text;
      bad++;
    }
}

TEST(Deconv, JaxConvTransposeShapes) {
  // jax.lax.conv_transpose(stride s, kernel k, "SAME"/"VALID") lowers to
  // lhs_dilation s, unit strides, padding around k - 1.
  for (int64_t s : {2, 3})
    for (int64_t k : {1, 2, 3, 4}) {
      Case c;
      c.ld = s, c.k = k, c.lo = k - 1, c.hi = k - 1;
      c.name = "valid s" + std::to_string(s) + " k" + std::to_string(k);
      Check(c);
      Case same = c;
      same.lo = (k + s - 1) / 2 > k - 1 ? k - 1 : (k + s - 1) / 2;
      same.hi = k - 1 - (k - 1) / 2;
      same.name = "other padding " + c.name;
      Check(same);
    }
}

TEST(Deconv, LayoutsGroupsDilationReversal) {
  Case nchw;
  nchw.name = "nchw batch 2", nchw.nchw = true, nchw.n = 2, nchw.ci = 5;
  nchw.co = 3, nchw.in = 6;
  Check(nchw);
  Case g;
  g.name = "2 groups", g.groups = 2, g.ci = 6, g.co = 4;
  Check(g);
  Case rd;
  rd.name = "rhs dilation 2", rd.rd = 2, rd.lo = 4, rd.hi = 3;
  Check(rd);
  Case rev;
  rev.name = "window reversal", rev.reverse = true;
  Check(rev);
  Case one;
  one.name = "1-D", one.ns = 1, one.in = 13, one.ci = 16, one.co = 32;
  one.k = 4, one.lo = 3, one.hi = 2;
  Check(one);
  Case cst;
  cst.name = "constant weights", cst.constant = true, cst.ci = 8, cst.co = 16;
  Check(cst);
  Case big;
  big.name = "larger", big.in = 14, big.ci = 32, big.co = 64, big.k = 4;
  big.lo = 2, big.hi = 2;
  Check(big);
}

// window_reversal without lhs dilation: a forward convolution with the
// kernel reversed first (once for constants, per run for parameters).
TEST(Deconv, ForwardConvolutionWithWindowReversal) {
  Case c;
  c.ld = 1, c.reverse = true, c.lo = 1, c.hi = 1;
  c.name = "reversed 3x3";
  Check(c);
  Case cst = c;
  cst.name = "reversed, constant weights", cst.constant = true;
  cst.ci = 8, cst.co = 16;
  Check(cst);
  Case st = c;
  st.name = "reversed, stride 2, nchw, batch 2", st.stride = 2;
  st.nchw = true, st.n = 2, st.in = 9;
  Check(st);
  Case one = c;
  one.name = "reversed 1-D, rhs dilation 2", one.ns = 1, one.in = 13;
  one.rd = 2, one.k = 4, one.lo = 3, one.hi = 2;
  Check(one);
}

TEST(Deconv, ReferenceWhenTheRulesSayNo) {
  Case strided;
  strided.name = "window stride 2", strided.stride = 2;
  strided.expect_library = false;
  Check(strided);
  Case far;
  far.name = "low padding beyond the kernel", far.lo = 3, far.hi = 1;
  far.expect_library = false;
  Check(far);
}

}  // namespace
