// JAX's CPU custom-call targets, built in (graph/lower_jax_*.c): each
// LAPACK target for f32/f64/c64/c128, batched and unbatched, with JAX's
// column-major operand/result layouts, checked by its defining relation;
// info outputs for singular / non-positive-definite inputs; the legacy
// non-FFI forms; dynamic_ducc_fft; shape_assertion; the identities; and
// target-specific errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <sstream>

#include "tests/jax/jax_test_util.h"

namespace {

using jaxtest::cd;
using jaxtest::Mat;
using jaxtest::Tensor;

const hlx_dtype_t kTypes[4] = {HLX_DTYPE_F32, HLX_DTYPE_F64, HLX_DTYPE_C64,
                               HLX_DTYPE_C128};
const char kLetters[] = "sdcz";

hlx_dtype_t Real(hlx_dtype_t t) { return hlx_dtype_complex_part(t); }
bool Cplx(hlx_dtype_t t) { return hlx_dtype_is_complex(t); }

// A value of the program: type, and whether its layout is JAX's
// column-major one ({r-2, r-1, batch...}) or row-major; `constant` makes
// it a stablehlo.constant (legacy scalar operands) instead of an argument.
struct Val {
  hlx_dtype_t dt;
  std::vector<int64_t> dims;
  bool matrix = false;
  std::string constant;
};

std::string TypeStr(const Val& v) {
  std::ostringstream s;
  s << "tensor<";
  for (int64_t d : v.dims) s << d << "x";
  s << hlx_dtype_name(v.dt) << ">";
  return s.str();
}

std::string LayoutStr(const Val& v) {
  int64_t r = (int64_t)v.dims.size();
  std::vector<int64_t> l;
  if (v.matrix) {
    l = {r - 2, r - 1};
    for (int64_t d = r - 3; d >= 0; d--) l.push_back(d);
  } else {
    for (int64_t d = r - 1; d >= 0; d--) l.push_back(d);
  }
  std::ostringstream s;
  s << "dense<";
  if (r > 0) s << "[";
  for (size_t i = 0; i < l.size(); i++) s << (i ? ", " : "") << l[i];
  if (r > 0) s << "]";
  s << "> : tensor<" << r << "xindex>";
  return s.str();
}

// One custom_call of `target` on `ins` returning `outs`.
std::string Program(const std::string& target, const std::string& cfg,
                    const std::vector<Val>& ins, const std::vector<Val>& outs) {
  std::ostringstream s, body, types_in, types_out, lin, lout, args;
  int na = 0, nc = 0;
  for (size_t i = 0; i < ins.size(); i++) {
    types_in << (i ? ", " : "") << TypeStr(ins[i]);
    lin << (i ? ", " : "") << LayoutStr(ins[i]);
    if (!ins[i].constant.empty()) {
      body << "    %c" << nc << " = stablehlo.constant " << ins[i].constant << "\n";
      args << (i ? ", " : "") << "%c" << nc++;
    } else {
      args << (i ? ", " : "") << "%a" << na++;
    }
  }
  for (size_t i = 0; i < outs.size(); i++) {
    types_out << (i ? ", " : "") << TypeStr(outs[i]);
    lout << (i ? ", " : "") << LayoutStr(outs[i]);
  }
  /* legacy (non-FFI) calls are api_version 2, FFI ones carry a dictionary */
  bool legacy = target.find("_ffi") == std::string::npos && cfg.empty();
  std::string config =
      legacy ? "api_version = 2 : i32" : "mhlo.backend_config = {" + cfg + "}";
  s << "func.func @main(";
  na = 0;
  for (const Val& v : ins) {
    if (!v.constant.empty()) continue;
    s << (na ? ", " : "") << "%a" << na << ": " << TypeStr(v);
    na++;
  }
  s << ") -> (" << types_out.str() << ") {\n" << body.str();
  s << "    %r" << (outs.size() > 1 ? ":" + std::to_string(outs.size()) : "")
    << " = stablehlo.custom_call @" << target << "(" << args.str()
    << ") {" << config << ", operand_layouts = ["
    << lin.str() << "], result_layouts = [" << lout.str() << "]} : ("
    << types_in.str() << ") -> ";
  s << (outs.size() == 1 ? types_out.str() : "(" + types_out.str() + ")") << "\n";
  s << "    return ";
  for (size_t i = 0; i < outs.size(); i++)
    s << (i ? ", " : "") << "%r" << (outs.size() > 1 ? "#" + std::to_string(i) : "");
  s << " : " << types_out.str() << "\n}\n";
  return s.str();
}

std::vector<int64_t> Dims(const std::vector<int64_t>& batch,
                          std::initializer_list<int64_t> tail) {
  std::vector<int64_t> d = batch;
  d.insert(d.end(), tail);
  return d;
}

Tensor Random(hlx_dtype_t t, const std::vector<int64_t>& dims, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  Tensor x;
  x.dtype = t;
  x.dims = dims;
  for (int64_t k = 0; k < x.size(); k++)
    x.v.push_back(Cplx(t) ? cd(u(g), u(g)) : cd(u(g), 0));
  return x;
}

Tensor FromMats(hlx_dtype_t t, const std::vector<int64_t>& dims,
                const std::vector<Mat>& ms) {
  Tensor x;
  x.dtype = t;
  x.dims = dims;
  for (const Mat& m : ms) x.v.insert(x.v.end(), m.a.begin(), m.a.end());
  return x;
}

int64_t BatchOf(const std::vector<int64_t>& b) {
  int64_t n = 1;
  for (int64_t d : b) n *= d;
  return n;
}

// Hermitian positive definite matrices M M^H + n I.
Tensor Spd(hlx_dtype_t t, const std::vector<int64_t>& batch, int64_t n) {
  Tensor r = Random(t, Dims(batch, {n, n}), 7);
  std::vector<Mat> ms;
  for (int64_t b = 0; b < BatchOf(batch); b++) {
    Mat m = jaxtest::MatOf(r, b);
    Mat s = jaxtest::Mul(m, jaxtest::H(m));
    for (int64_t i = 0; i < n; i++) s(i, i) += (double)n;
    ms.push_back(s);
  }
  return FromMats(t, Dims(batch, {n, n}), ms);
}

std::vector<Tensor> MustRun(const std::string& text, const std::vector<Tensor>& in) {
  std::vector<Tensor> out;
  std::string err;
  EXPECT_TRUE(jaxtest::Run(text, in, &out, &err)) << err << "\n" << text;
  return out;
}

struct Case {
  int t;                      // index into kTypes
  std::vector<int64_t> batch;
};

std::vector<Case> AllCases() {
  std::vector<Case> c;
  for (int t = 0; t < 4; t++) {
    c.push_back({t, {}});
    c.push_back({t, {2}});
  }
  return c;
}

std::string Name(const char* routine, int t, bool ffi = true) {
  return std::string("lapack_") + kLetters[t] + routine + (ffi ? "_ffi" : "");
}

Val M(hlx_dtype_t t, const std::vector<int64_t>& b, int64_t r, int64_t c) {
  return {t, Dims(b, {r, c}), true, ""};
}
Val V(hlx_dtype_t t, const std::vector<int64_t>& b, std::initializer_list<int64_t> tail) {
  return {t, Dims(b, tail), false, ""};
}

// ---- getrf ------------------------------------------------------------------

// P A = L U with LAPACK's 1-based row swaps.
void CheckLu(const Mat& a, const Mat& lu, const std::vector<int64_t>& piv,
             double tol) {
  int64_t m = a.r, n = a.c, k = std::min(m, n);
  Mat pa = a;
  for (int64_t i = 0; i < k; i++) {
    int64_t p = piv[(size_t)i] - 1;
    ASSERT_GE(p, i);
    ASSERT_LT(p, m);
    for (int64_t j = 0; j < n; j++) std::swap(pa(i, j), pa(p, j));
  }
  Mat l(m, k), u(k, n);
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < k; j++) l(i, j) = i == j ? 1 : i > j ? lu(i, j) : 0;
  for (int64_t i = 0; i < k; i++)
    for (int64_t j = 0; j < n; j++) u(i, j) = j >= i ? lu(i, j) : 0;
  EXPECT_LT(jaxtest::RelDiff(jaxtest::Mul(l, u), pa), tol);
}

TEST(LapackTargets, Getrf) {
  for (const Case& c : AllCases()) {
    hlx_dtype_t t = kTypes[c.t];
    int64_t m = 4, n = 3, k = 3, nb = BatchOf(c.batch);
    std::string p = Program(Name("getrf", c.t), "", {M(t, c.batch, m, n)},
                            {M(t, c.batch, m, n), V(HLX_DTYPE_S32, c.batch, {k}),
                             V(HLX_DTYPE_S32, c.batch, {})});
    Tensor a = Random(t, Dims(c.batch, {m, n}), 1);
    std::vector<Tensor> o = MustRun(p, {a});
    ASSERT_EQ(o.size(), 3u);
    for (int64_t b = 0; b < nb; b++) {
      EXPECT_EQ(o[2].i[(size_t)b], 0);
      std::vector<int64_t> piv(o[1].i.begin() + b * k, o[1].i.begin() + (b + 1) * k);
      CheckLu(jaxtest::MatOf(a, b), jaxtest::MatOf(o[0], b), piv, jaxtest::Tol(t));
    }
  }
}

TEST(LapackTargets, GetrfSingularInfo) {
  for (int ti = 0; ti < 4; ti++) {
    hlx_dtype_t t = kTypes[ti];
    Tensor a = Random(t, {3, 3}, 2);
    for (int64_t i = 0; i < 3; i++) a.v[(size_t)(i * 3 + 1)] = 0; /* column 2 zero */
    for (int64_t i = 0; i < 3; i++) a.v[(size_t)(i * 3 + 2)] = a.v[(size_t)(i * 3)];
    std::string p = Program(Name("getrf", ti), "", {M(t, {}, 3, 3)},
                            {M(t, {}, 3, 3), V(HLX_DTYPE_S32, {}, {3}),
                             V(HLX_DTYPE_S32, {}, {})});
    std::vector<Tensor> o = MustRun(p, {a});
    ASSERT_EQ(o.size(), 3u);
    EXPECT_GT(o[2].i[0], 0) << "singular matrix: LAPACK's info is the zero pivot";
  }
}

// ---- potrf ------------------------------------------------------------------

TEST(LapackTargets, Potrf) {
  for (const Case& c : AllCases()) {
    for (char uplo : {'L', 'U'}) {
      hlx_dtype_t t = kTypes[c.t];
      int64_t n = 4;
      std::string cfg = "uplo = " + std::to_string((int)uplo) + " : ui8";
      std::string p = Program(Name("potrf", c.t), cfg, {M(t, c.batch, n, n)},
                              {M(t, c.batch, n, n), V(HLX_DTYPE_S32, c.batch, {})});
      Tensor a = Spd(t, c.batch, n);
      std::vector<Tensor> o = MustRun(p, {a});
      ASSERT_EQ(o.size(), 2u);
      for (int64_t b = 0; b < BatchOf(c.batch); b++) {
        EXPECT_EQ(o[1].i[(size_t)b], 0);
        Mat f = jaxtest::MatOf(o[0], b);
        for (int64_t i = 0; i < n; i++)
          for (int64_t j = 0; j < n; j++)
            if (uplo == 'L' ? j > i : j < i) f(i, j) = 0; /* other triangle: input */
        Mat r = uplo == 'L' ? jaxtest::Mul(f, jaxtest::H(f)) : jaxtest::Mul(jaxtest::H(f), f);
        EXPECT_LT(jaxtest::RelDiff(r, jaxtest::MatOf(a, b)), jaxtest::Tol(t));
      }
    }
  }
}

TEST(LapackTargets, PotrfNotPositiveDefiniteInfo) {
  for (int ti = 0; ti < 4; ti++) {
    hlx_dtype_t t = kTypes[ti];
    Tensor a = Spd(t, {2}, 3);
    a.v[(size_t)(9 + 4)] = -100.0; /* batch 1: a(1,1) < 0 */
    std::string p = Program(Name("potrf", ti), "uplo = 76 : ui8", {M(t, {2}, 3, 3)},
                            {M(t, {2}, 3, 3), V(HLX_DTYPE_S32, {2}, {})});
    std::vector<Tensor> o = MustRun(p, {a});
    ASSERT_EQ(o.size(), 2u);
    EXPECT_EQ(o[1].i[0], 0);
    EXPECT_EQ(o[1].i[1], 2) << "the leading minor of order 2 is not positive";
  }
}

// ---- geqrf, orgqr / ungqr, geqp3 ---------------------------------------------

TEST(LapackTargets, GeqrfOrgqr) {
  for (const Case& c : AllCases()) {
    hlx_dtype_t t = kTypes[c.t];
    int64_t m = 5, n = 3;
    Tensor a = Random(t, Dims(c.batch, {m, n}), 3);
    std::vector<Tensor> qr = MustRun(
        Program(Name("geqrf", c.t), "", {M(t, c.batch, m, n)},
                {M(t, c.batch, m, n), V(t, c.batch, {n})}),
        {a});
    ASSERT_EQ(qr.size(), 2u);
    const char* org = Cplx(t) ? "ungqr" : "orgqr";
    std::vector<Tensor> q = MustRun(
        Program(Name(org, c.t), "", {M(t, c.batch, m, n), V(t, c.batch, {n})},
                {M(t, c.batch, m, n)}),
        {qr[0], qr[1]});
    ASSERT_EQ(q.size(), 1u);
    for (int64_t b = 0; b < BatchOf(c.batch); b++) {
      Mat qm = jaxtest::MatOf(q[0], b), f = jaxtest::MatOf(qr[0], b);
      Mat r(n, n);
      for (int64_t i = 0; i < n; i++)
        for (int64_t j = i; j < n; j++) r(i, j) = f(i, j);
      EXPECT_LT(jaxtest::RelDiff(jaxtest::Mul(qm, r), jaxtest::MatOf(a, b)), jaxtest::Tol(t));
      EXPECT_LT(jaxtest::RelDiff(jaxtest::Mul(jaxtest::H(qm), qm), jaxtest::Eye(n)),
                jaxtest::Tol(t));
    }
  }
}

TEST(LapackTargets, Geqp3) {
  for (const Case& c : AllCases()) {
    hlx_dtype_t t = kTypes[c.t];
    int64_t m = 4, n = 4, nb = BatchOf(c.batch);
    Tensor a = Random(t, Dims(c.batch, {m, n}), 4);
    Tensor jp;
    jp.dtype = HLX_DTYPE_S32;
    jp.dims = Dims(c.batch, {n});
    jp.i.assign((size_t)(nb * n), 0);
    std::vector<Tensor> o = MustRun(
        Program(Name("geqp3", c.t), "", {M(t, c.batch, m, n), V(HLX_DTYPE_S32, c.batch, {n})},
                {M(t, c.batch, m, n), V(HLX_DTYPE_S32, c.batch, {n}), V(t, c.batch, {n})}),
        {a, jp});
    ASSERT_EQ(o.size(), 3u);
    for (int64_t b = 0; b < nb; b++) {
      std::vector<int64_t> p(o[1].i.begin() + b * n, o[1].i.begin() + (b + 1) * n);
      std::sort(p.begin(), p.end());
      for (int64_t j = 0; j < n; j++) EXPECT_EQ(p[(size_t)j], j + 1);
      Mat f = jaxtest::MatOf(o[0], b), r(m, n);
      for (int64_t i = 0; i < m; i++)
        for (int64_t j = i; j < n; j++) r(i, j) = f(i, j);
      /* ||R|| = ||A P|| = ||A||; |r11| >= |r22| (pivoting) */
      EXPECT_NEAR(jaxtest::Norm(r), jaxtest::Norm(jaxtest::MatOf(a, b)), 1e-3);
      EXPECT_GE(std::abs(f(0, 0)) + 1e-6, std::abs(f(1, 1)));
    }
  }
}

// ---- syevd / heevd ----------------------------------------------------------

TEST(LapackTargets, SyevdHeevd) {
  for (const Case& c : AllCases()) {
    hlx_dtype_t t = kTypes[c.t];
    int64_t n = 5;
    Tensor a = Spd(t, c.batch, n);
    for (cd& x : a.v) x -= cd(3.0, 0); /* indefinite too */
    std::string name = Name(Cplx(t) ? "heevd" : "syevd", c.t);
    std::vector<Tensor> o = MustRun(
        Program(name, "mode = 86 : ui8, uplo = 76 : ui8", {M(t, c.batch, n, n)},
                {M(t, c.batch, n, n), V(Real(t), c.batch, {n}), V(HLX_DTYPE_S32, c.batch, {})}),
        {a});
    ASSERT_EQ(o.size(), 3u);
    for (int64_t b = 0; b < BatchOf(c.batch); b++) {
      EXPECT_EQ(o[2].i[(size_t)b], 0);
      Mat v = jaxtest::MatOf(o[0], b), am = jaxtest::MatOf(a, b), vw = v;
      for (int64_t j = 0; j < n; j++) {
        double w = o[1].v[(size_t)(b * n + j)].real();
        if (j) {
          EXPECT_LE(o[1].v[(size_t)(b * n + j - 1)].real(), w + 1e-6);
        }
        for (int64_t i = 0; i < n; i++) vw(i, j) *= w;
      }
      EXPECT_LT(jaxtest::RelDiff(jaxtest::Mul(am, v), vw), jaxtest::Tol(t) * 10);
      EXPECT_LT(jaxtest::RelDiff(jaxtest::Mul(jaxtest::H(v), v), jaxtest::Eye(n)),
                jaxtest::Tol(t));
    }
  }
}

// ---- geev -------------------------------------------------------------------

TEST(LapackTargets, Geev) {
  for (const Case& c : AllCases()) {
    hlx_dtype_t t = kTypes[c.t];
    hlx_dtype_t ct = Cplx(t) ? t : (t == HLX_DTYPE_F32 ? HLX_DTYPE_C64 : HLX_DTYPE_C128);
    int64_t n = 4;
    Tensor a = Random(t, Dims(c.batch, {n, n}), 5);
    std::vector<Val> outs;
    if (Cplx(t)) outs.push_back(V(t, c.batch, {n}));
    else outs = {V(t, c.batch, {n}), V(t, c.batch, {n})};
    outs.push_back(M(ct, c.batch, n, n));
    outs.push_back(M(ct, c.batch, n, n));
    outs.push_back(V(HLX_DTYPE_S32, c.batch, {}));
    std::vector<Tensor> o = MustRun(
        Program(Name("geev", c.t), "compute_left = 86 : ui8, compute_right = 86 : ui8",
                {M(t, c.batch, n, n)}, outs),
        {a});
    ASSERT_EQ(o.size(), outs.size());
    size_t iv = Cplx(t) ? 1 : 2;
    for (int64_t b = 0; b < BatchOf(c.batch); b++) {
      EXPECT_EQ(o[iv + 2].i[(size_t)b], 0);
      std::vector<cd> w((size_t)n);
      for (int64_t j = 0; j < n; j++)
        w[(size_t)j] = Cplx(t) ? o[0].v[(size_t)(b * n + j)]
                               : cd(o[0].v[(size_t)(b * n + j)].real(),
                                    o[1].v[(size_t)(b * n + j)].real());
      Mat am = jaxtest::MatOf(a, b), vl = jaxtest::MatOf(o[iv], b),
          vr = jaxtest::MatOf(o[iv + 1], b), vrw = vr, wvl = jaxtest::H(vl);
      for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) {
          vrw(i, j) *= w[(size_t)j];
          wvl(i, j) *= w[(size_t)i];
        }
      EXPECT_LT(jaxtest::RelDiff(jaxtest::Mul(am, vr), vrw), jaxtest::Tol(t) * 10);
      EXPECT_LT(jaxtest::RelDiff(jaxtest::Mul(jaxtest::H(vl), am), wvl), jaxtest::Tol(t) * 10);
    }
  }
}

// ---- gesdd / gesvd ----------------------------------------------------------

TEST(LapackTargets, GesddGesvd) {
  for (const char* routine : {"gesdd", "gesvd"})
    for (const Case& c : AllCases())
      for (char mode : {'A', 'S'}) {
        hlx_dtype_t t = kTypes[c.t];
        int64_t m = 5, n = 3, k = 3;
        int64_t uc = mode == 'A' ? m : k, vr = mode == 'A' ? n : k;
        Tensor a = Random(t, Dims(c.batch, {m, n}), 6);
        std::vector<Tensor> o = MustRun(
            Program(Name(routine, c.t), "mode = " + std::to_string((int)mode) + " : ui8",
                    {M(t, c.batch, m, n)},
                    {M(t, c.batch, m, n), V(Real(t), c.batch, {k}), M(t, c.batch, m, uc),
                     M(t, c.batch, vr, n), V(HLX_DTYPE_S32, c.batch, {})}),
            {a});
        ASSERT_EQ(o.size(), 5u);
        for (int64_t b = 0; b < BatchOf(c.batch); b++) {
          EXPECT_EQ(o[4].i[(size_t)b], 0);
          Mat u = jaxtest::MatOf(o[2], b), vt = jaxtest::MatOf(o[3], b), us(m, n);
          for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < k; j++) us(i, j) = u(i, j) * o[1].v[(size_t)(b * k + j)].real();
          Mat vtk(n, n);
          for (int64_t i = 0; i < k; i++)
            for (int64_t j = 0; j < n; j++) vtk(i, j) = vt(i, j);
          EXPECT_LT(jaxtest::RelDiff(jaxtest::Mul(us, vtk), jaxtest::MatOf(a, b)),
                    jaxtest::Tol(t) * 10)
              << routine << " " << mode;
          EXPECT_LT(jaxtest::RelDiff(jaxtest::Mul(jaxtest::H(u), u), jaxtest::Eye(uc)),
                    jaxtest::Tol(t) * 10);
        }
      }
}

// ---- gees -------------------------------------------------------------------

TEST(LapackTargets, Gees) {
  for (const Case& c : AllCases()) {
    hlx_dtype_t t = kTypes[c.t];
    int64_t n = 4;
    Tensor a = Random(t, Dims(c.batch, {n, n}), 8);
    std::vector<Val> outs = {M(t, c.batch, n, n), M(t, c.batch, n, n), V(t, c.batch, {n})};
    if (!Cplx(t)) outs.push_back(V(t, c.batch, {n}));
    outs.push_back(V(HLX_DTYPE_S32, c.batch, {}));
    outs.push_back(V(HLX_DTYPE_S32, c.batch, {}));
    std::vector<Tensor> o = MustRun(
        Program(Name("gees", c.t), "mode = 86 : ui8, sort = 78 : ui8", {M(t, c.batch, n, n)},
                outs),
        {a});
    ASSERT_EQ(o.size(), outs.size());
    for (int64_t b = 0; b < BatchOf(c.batch); b++) {
      EXPECT_EQ(o.back().i[(size_t)b], 0);
      Mat tm = jaxtest::MatOf(o[0], b), q = jaxtest::MatOf(o[1], b);
      EXPECT_LT(jaxtest::RelDiff(jaxtest::Mul(jaxtest::Mul(q, tm), jaxtest::H(q)),
                                 jaxtest::MatOf(a, b)),
                jaxtest::Tol(t) * 10);
      for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j + (Cplx(t) ? 1 : 2) <= i; j++)
          EXPECT_EQ(std::abs(tm(i, j)), 0.0) << "not (quasi) upper triangular";
    }
  }
}

// ---- gehrd, sytrd / hetrd: unitary similarities keep norm and trace ---------

TEST(LapackTargets, GehrdSytrd) {
  for (const Case& c : AllCases()) {
    hlx_dtype_t t = kTypes[c.t];
    int64_t n = 5, nb = BatchOf(c.batch);
    Tensor a = Random(t, Dims(c.batch, {n, n}), 9);
    std::vector<Tensor> h = MustRun(
        Program(Name("gehrd", c.t), "low = 1 : i32, high = 5 : i32", {M(t, c.batch, n, n)},
                {M(t, c.batch, n, n), V(t, c.batch, {n - 1}), V(HLX_DTYPE_S32, c.batch, {})}),
        {a});
    ASSERT_EQ(h.size(), 3u);
    Tensor s = Spd(t, c.batch, n);
    std::vector<Tensor> d = MustRun(
        Program(Name(Cplx(t) ? "hetrd" : "sytrd", c.t), "uplo = 76 : ui8",
                {M(t, c.batch, n, n)},
                {M(t, c.batch, n, n), V(Real(t), c.batch, {n}), V(Real(t), c.batch, {n - 1}),
                 V(t, c.batch, {n - 1}), V(HLX_DTYPE_S32, c.batch, {})}),
        {s});
    ASSERT_EQ(d.size(), 5u);
    for (int64_t b = 0; b < nb; b++) {
      EXPECT_EQ(h[2].i[(size_t)b], 0);
      EXPECT_EQ(d[4].i[(size_t)b], 0);
      Mat hm = jaxtest::MatOf(h[0], b), am = jaxtest::MatOf(a, b), sm = jaxtest::MatOf(s, b);
      Mat hh(n, n), tri(n, n);
      cd tr_h = 0, tr_a = 0, tr_t = 0, tr_s = 0;
      for (int64_t i = 0; i < n; i++) {
        for (int64_t j = std::max<int64_t>(0, i - 1); j < n; j++) hh(i, j) = hm(i, j);
        tr_h += hm(i, i);
        tr_a += am(i, i);
        tr_s += sm(i, i);
        tri(i, i) = d[1].v[(size_t)(b * n + i)];
        tr_t += tri(i, i);
        if (i + 1 < n) tri(i, i + 1) = tri(i + 1, i) = d[2].v[(size_t)(b * (n - 1) + i)];
      }
      double tol = jaxtest::Tol(t) * 10;
      EXPECT_NEAR(jaxtest::Norm(hh), jaxtest::Norm(am), tol * jaxtest::Norm(am));
      EXPECT_NEAR(std::abs(tr_h - tr_a), 0.0, tol * jaxtest::Norm(am));
      EXPECT_NEAR(jaxtest::Norm(tri), jaxtest::Norm(sm), tol * jaxtest::Norm(sm));
      EXPECT_NEAR(std::abs(tr_t - tr_s), 0.0, tol * jaxtest::Norm(sm));
    }
  }
}

// ---- trsm (2- and 3-operand FFI forms) ----------------------------------------

TEST(LapackTargets, Trsm) {
  for (const Case& c : AllCases())
    for (int form = 0; form < 2; form++) {
      hlx_dtype_t t = kTypes[c.t];
      int64_t m = 4, n = 3;
      bool left = form == 0; /* form 0: left, lower, N; form 1: right, upper, C, alpha 2 */
      int64_t k = left ? m : n;
      Tensor a = Random(t, Dims(c.batch, {k, k}), 10), bm = Random(t, Dims(c.batch, {m, n}), 11);
      for (int64_t b = 0; b < BatchOf(c.batch); b++)
        for (int64_t i = 0; i < k; i++) a.v[(size_t)(b * k * k + i * k + i)] += 4.0;
      std::string cfg = left ? "diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8"
                             : "diag = 78 : ui8, side = 82 : ui8, trans_x = 67 : ui8, uplo = 85 : ui8";
      std::vector<Val> ins = {M(t, c.batch, k, k), M(t, c.batch, m, n)};
      std::vector<Tensor> args = {a, bm};
      if (!left) {
        ins.push_back(Val{t, {}, false, ""});
        Tensor al;
        al.dtype = t;
        al.v = {2.0};
        args.push_back(al);
      }
      std::vector<Tensor> o =
          MustRun(Program(Name("trsm", c.t), cfg, ins, {M(t, c.batch, m, n)}), args);
      ASSERT_EQ(o.size(), 1u);
      for (int64_t b = 0; b < BatchOf(c.batch); b++) {
        Mat am = jaxtest::MatOf(a, b), x = jaxtest::MatOf(o[0], b), rhs = jaxtest::MatOf(bm, b);
        for (int64_t i = 0; i < k; i++)
          for (int64_t j = 0; j < k; j++)
            if (left ? j > i : j < i) am(i, j) = 0;
        Mat lhs = left ? jaxtest::Mul(am, x) : jaxtest::Mul(x, jaxtest::H(am));
        if (!left)
          for (cd& v : rhs.a) v *= 2.0;
        EXPECT_LT(jaxtest::RelDiff(lhs, rhs), jaxtest::Tol(t) * 10);
      }
    }
}

// ---- gtsv ---------------------------------------------------------------------

TEST(LapackTargets, Gtsv) {
  for (const Case& c : AllCases()) {
    hlx_dtype_t t = kTypes[c.t];
    int64_t m = 5, n = 2, nb = BatchOf(c.batch);
    Tensor dl = Random(t, Dims(c.batch, {m}), 12), d = Random(t, Dims(c.batch, {m}), 13),
           du = Random(t, Dims(c.batch, {m}), 14), rhs = Random(t, Dims(c.batch, {m, n}), 15);
    for (cd& v : d.v) v += 4.0;
    std::vector<Val> vs = {V(t, c.batch, {m}), V(t, c.batch, {m}), V(t, c.batch, {m}),
                           M(t, c.batch, m, n)};
    std::vector<Val> outs = vs;
    outs.push_back(V(HLX_DTYPE_S32, c.batch, {}));
    std::vector<Tensor> o = MustRun(Program(Name("gtsv", c.t), "", vs, outs), {dl, d, du, rhs});
    ASSERT_EQ(o.size(), 5u);
    for (int64_t b = 0; b < nb; b++) {
      EXPECT_EQ(o[4].i[(size_t)b], 0);
      Mat tri(m, m);
      for (int64_t i = 0; i < m; i++) {
        tri(i, i) = d.v[(size_t)(b * m + i)];
        if (i > 0) tri(i, i - 1) = dl.v[(size_t)(b * m + i)];
        if (i + 1 < m) tri(i, i + 1) = du.v[(size_t)(b * m + i)];
      }
      EXPECT_LT(jaxtest::RelDiff(jaxtest::Mul(tri, jaxtest::MatOf(o[3], b)), jaxtest::MatOf(rhs, b)),
                jaxtest::Tol(t) * 10);
    }
  }
}

// ---- Legacy (non-FFI) forms ---------------------------------------------------

Val I32(int64_t v) { return {HLX_DTYPE_S32, {}, false, "dense<" + std::to_string(v) + "> : tensor<i32>"}; }

TEST(LapackTargets, LegacyGetrfPotrfTrsm) {
  for (int ti = 0; ti < 4; ti++) {
    hlx_dtype_t t = kTypes[ti];
    int64_t n = 3;
    Tensor a = Spd(t, {2}, n);
    std::vector<Tensor> lu = MustRun(
        Program(Name("getrf", ti, false), "", {I32(2), I32(n), I32(n), M(t, {2}, n, n)},
                {M(t, {2}, n, n), V(HLX_DTYPE_S32, {2}, {n}), V(HLX_DTYPE_S32, {2}, {})}),
        {a});
    ASSERT_EQ(lu.size(), 3u);
    for (int64_t b = 0; b < 2; b++) {
      std::vector<int64_t> piv(lu[1].i.begin() + b * n, lu[1].i.begin() + (b + 1) * n);
      CheckLu(jaxtest::MatOf(a, b), jaxtest::MatOf(lu[0], b), piv, jaxtest::Tol(t));
    }
    std::vector<Tensor> ch = MustRun(
        Program(Name("potrf", ti, false), "", {I32(1), I32(2), I32(n), M(t, {2}, n, n)},
                {M(t, {2}, n, n), V(HLX_DTYPE_S32, {2}, {})}),
        {a});
    ASSERT_EQ(ch.size(), 2u);
    EXPECT_EQ(ch[1].i[0], 0);
    Mat l = jaxtest::MatOf(ch[0], 0);
    for (int64_t i = 0; i < n; i++)
      for (int64_t j = i + 1; j < n; j++) l(i, j) = 0;
    EXPECT_LT(jaxtest::RelDiff(jaxtest::Mul(l, jaxtest::H(l)), jaxtest::MatOf(a, 0)), jaxtest::Tol(t));
    std::string blas = std::string("blas_") + kLetters[ti] + "trsm";
    Val alpha{t, {}, false, Cplx(t) ? "dense<(1.0, 0.0)> : " + TypeStr(Val{t, {}, false, ""})
                                    : "dense<1.0> : " + TypeStr(Val{t, {}, false, ""})};
    Tensor rhs = Random(t, {2, n, 2}, 16);
    std::vector<Tensor> x = MustRun(
        Program(blas, "", {I32(1), I32(1), I32(0), I32(0), I32(n), I32(2), I32(2), alpha,
                           M(t, {2}, n, n), M(t, {2}, n, 2)},
                {M(t, {2}, n, 2)}),
        {ch[0], rhs});
    ASSERT_EQ(x.size(), 1u);
    EXPECT_LT(jaxtest::RelDiff(jaxtest::Mul(l, jaxtest::MatOf(x[0], 0)), jaxtest::MatOf(rhs, 0)),
              jaxtest::Tol(t) * 10);
  }
}

// ---- dynamic_ducc_fft ---------------------------------------------------------

// JAX's DynamicDuccFftDescriptor for a 2-d C2C transform of axis 1 (as in
// its 2023 export); `forward` is byte 27.
std::string DuccProgram(bool forward, double scale) {
  std::string desc = std::string("[20, 0, 0, 0, 0, 0, 14, 0, 16, 0, 8, 0, 0, 0, 0, 0, 12, 0, 7, 0, 14, 0, 0, 0, 0, 0, 0, ") +
                     (forward ? "1" : "0") + ", 2, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]";
  char sc[64];
  snprintf(sc, sizeof sc, "%.17g", scale);
  return "func.func @main(%x: tensor<3x4xcomplex<f32>>) -> tensor<3x4xcomplex<f32>> {\n"
         "  %d = stablehlo.constant dense<" + desc + "> : tensor<44xui8>\n"
         "  %s = stablehlo.constant dense<[3, 4]> : tensor<2xi32>\n"
         "  %st = stablehlo.constant dense<[4, 1]> : tensor<2xi32>\n"
         "  %sc = stablehlo.constant dense<" + std::string(sc) + "> : tensor<1xf64>\n"
         "  %r = stablehlo.custom_call @dynamic_ducc_fft(%d, %x, %s, %st, %st, %sc, %s) {api_version = 2 : i32, indices_of_shape_operands = dense<6> : tensor<1xi64>} : (tensor<44xui8>, tensor<3x4xcomplex<f32>>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<1xf64>, tensor<2xi32>) -> tensor<3x4xcomplex<f32>>\n"
         "  return %r : tensor<3x4xcomplex<f32>>\n}\n";
}

TEST(JaxTargets, DynamicDuccFft) {
  Tensor x = Random(HLX_DTYPE_C64, {3, 4}, 17);
  for (int fwd = 0; fwd < 2; fwd++) {
    double scale = fwd ? 1.0 : 0.25;
    std::vector<Tensor> o = MustRun(DuccProgram(fwd, scale), {x});
    ASSERT_EQ(o.size(), 1u);
    for (int r = 0; r < 3; r++)
      for (int k = 0; k < 4; k++) {
        cd want = 0;
        for (int j = 0; j < 4; j++)
          want += x.v[(size_t)(r * 4 + j)] * std::polar(1.0, (fwd ? -2 : 2) * M_PI * j * k / 4);
        want *= scale;
        EXPECT_NEAR(std::abs(o[0].v[(size_t)(r * 4 + k)] - want), 0.0, 1e-5);
      }
  }
}

// ---- shape_assertion, identities, errors ---------------------------------------

TEST(JaxTargets, ShapeAssertion) {
  std::string p =
      "func.func @main(%n: tensor<i64>) -> tensor<i64> {\n"
      "  %c = stablehlo.constant dense<3> : tensor<i64>\n"
      "  %ok = stablehlo.compare EQ, %n, %c, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>\n"
      "  stablehlo.custom_call @shape_assertion(%ok, %n, %c) {api_version = 2 : i32, "
      "error_message = \"Input shapes do not match: n = {0}, expected {1}\", has_side_effect = true} : "
      "(tensor<i1>, tensor<i64>, tensor<i64>) -> ()\n"
      "  return %n : tensor<i64>\n}\n";
  Tensor n;
  n.dtype = HLX_DTYPE_S64;
  n.i = {3};
  std::vector<Tensor> o = MustRun(p, {n});
  ASSERT_EQ(o.size(), 1u);
  n.i = {5};
  std::string err;
  EXPECT_FALSE(jaxtest::Run(p, {n}, &o, &err));
  EXPECT_NE(err.find("Input shapes do not match: n = 5, expected 3"), std::string::npos) << err;
}

TEST(JaxTargets, ShardingIdentities) {
  for (const char* tg : {"Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape",
                         "annotate_device_placement"}) {
    std::string p = std::string("func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {\n") +
                    "  %r = stablehlo.custom_call @" + tg +
                    "(%x) {mhlo.sharding = \"{replicated}\", backend_config = \"\"} : "
                    "(tensor<2x3xf32>) -> tensor<2x3xf32>\n  return %r : tensor<2x3xf32>\n}\n";
    Tensor x = Random(HLX_DTYPE_F32, {2, 3}, 18);
    std::vector<Tensor> o = MustRun(p, {x});
    ASSERT_EQ(o.size(), 1u);
    for (size_t k = 0; k < 6; k++) EXPECT_EQ(o[0].v[k], cd((float)x.v[k].real(), 0)) << tg;
  }
}

TEST(JaxTargets, ErrorsNameTheTarget) {
  std::string err;
  std::vector<Tensor> o;
  Tensor a = Random(HLX_DTYPE_F32, {3, 3}, 19);
  /* ipiv of the wrong length */
  std::string p = Program("lapack_sgetrf_ffi", "", {M(HLX_DTYPE_F32, {}, 3, 3)},
                          {M(HLX_DTYPE_F32, {}, 3, 3), V(HLX_DTYPE_S32, {}, {2}),
                           V(HLX_DTYPE_S32, {}, {})});
  EXPECT_FALSE(jaxtest::Run(p, {a}, &o, &err));
  EXPECT_NE(err.find("lapack_sgetrf_ffi: result #1 must be tensor<3xi32>"), std::string::npos) << err;
  /* element type differs from the target's letter */
  p = Program("lapack_dpotrf_ffi", "uplo = 76 : ui8", {M(HLX_DTYPE_F32, {}, 3, 3)},
              {M(HLX_DTYPE_F32, {}, 3, 3), V(HLX_DTYPE_S32, {}, {})});
  EXPECT_FALSE(jaxtest::Run(p, {a}, &o, &err));
  EXPECT_NE(err.find("lapack_dpotrf_ffi: operand #0 must be a static f64"), std::string::npos) << err;
  /* a bad letter */
  p = Program("lapack_spotrf_ffi", "uplo = 88 : ui8", {M(HLX_DTYPE_F32, {}, 3, 3)},
              {M(HLX_DTYPE_F32, {}, 3, 3), V(HLX_DTYPE_S32, {}, {})});
  EXPECT_FALSE(jaxtest::Run(p, {a}, &o, &err));
  EXPECT_NE(err.find("uplo must be 'L' or 'U'"), std::string::npos) << err;
}

}  // namespace

namespace {

// ---- Shape-polymorphic custom calls (graph/passes/refine_shapes.c) ------------------

TEST(JaxTargets, DynamicTopKIsRefined) {
  std::string p =
      "func.func @main(%x: tensor<2x?xf32>) -> (tensor<2x?xf32>, tensor<2x?xi32>) {\n"
      "  %k = stablehlo.constant dense<2> : tensor<i32>\n"
      "  %r:2 = stablehlo.custom_call @stablehlo.dynamic_top_k(%x, %k) {api_version = 2 : i32} : "
      "(tensor<2x?xf32>, tensor<i32>) -> (tensor<2x?xf32>, tensor<2x?xi32>)\n"
      "  return %r#0, %r#1 : tensor<2x?xf32>, tensor<2x?xi32>\n}\n";
  Tensor x;
  x.dtype = HLX_DTYPE_F32;
  x.dims = {2, 5};
  x.v = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3};
  std::vector<Tensor> o = MustRun(p, {x});
  ASSERT_EQ(o.size(), 2u);
  EXPECT_EQ(o[0].dims, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(o[0].v, (std::vector<cd>{5, 4, 9, 6}));
  EXPECT_EQ(o[1].i, (std::vector<int64_t>{4, 2, 0, 2}));
}

TEST(JaxTargets, DynamicRngBitGeneratorIsRefined) {
  std::string dyn =
      "func.func @main(%n: tensor<i64>, %s: tensor<2xui64>) -> (tensor<2xui64>, tensor<?xui32>) {\n"
      "  %shape = stablehlo.reshape %n : (tensor<i64>) -> tensor<1xi64>\n"
      "  %r:2 = stablehlo.custom_call @stablehlo.dynamic_rng_bit_generator(%s, %shape) "
      "{rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xui64>, tensor<1xi64>) "
      "-> (tensor<2xui64>, tensor<?xui32>)\n"
      "  return %r#0, %r#1 : tensor<2xui64>, tensor<?xui32>\n}\n";
  std::string fixed =
      "func.func @main(%s: tensor<2xui64>) -> (tensor<2xui64>, tensor<5xui32>) {\n"
      "  %r:2 = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xui64>) "
      "-> (tensor<2xui64>, tensor<5xui32>)\n"
      "  return %r#0, %r#1 : tensor<2xui64>, tensor<5xui32>\n}\n";
  Tensor n, s;
  n.dtype = HLX_DTYPE_S64;
  n.i = {5};
  s.dtype = HLX_DTYPE_U64;
  s.dims = {2};
  s.i = {42, 7};
  std::vector<Tensor> a = MustRun(dyn, {n, s}), b = MustRun(fixed, {s});
  ASSERT_EQ(a.size(), 2u);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(a[1].dims, (std::vector<int64_t>{5}));
  EXPECT_EQ(a[1].i, b[1].i);
  EXPECT_EQ(a[0].i, b[0].i);
}

}  // namespace

namespace {

// Some exports call the legacy name with the typed-FFI operands
// (api_version 4: `mhlo.backend_config = {}`): those are FFI calls.
TEST(LapackTargets, LegacyNameWithFfiOperands) {
  Tensor a = Random(HLX_DTYPE_F32, {3, 3}, 20);
  std::vector<Tensor> o = MustRun(
      Program("lapack_sgetrf", " ", {M(HLX_DTYPE_F32, {}, 3, 3)},
              {M(HLX_DTYPE_F32, {}, 3, 3), V(HLX_DTYPE_S32, {}, {3}), V(HLX_DTYPE_S32, {}, {})}),
      {a});
  ASSERT_EQ(o.size(), 3u);
  EXPECT_EQ(o[2].i[0], 0);
  CheckLu(jaxtest::MatOf(a, 0), jaxtest::MatOf(o[0], 0), o[1].i, jaxtest::Tol(HLX_DTYPE_F32));
}

}  // namespace

namespace {

// A batch large enough to be split over the executable's pool (several
// chunks, each with its own workspace), two batch dims.
TEST(LapackTargets, LargeBatchSplitOverThePool) {
  std::vector<int64_t> batch = {4, 16};
  int64_t n = 24;
  Tensor a = Spd(HLX_DTYPE_F64, batch, n);
  std::vector<Tensor> o = MustRun(
      Program("lapack_dsyevd_ffi", "mode = 86 : ui8, uplo = 76 : ui8", {M(HLX_DTYPE_F64, batch, n, n)},
              {M(HLX_DTYPE_F64, batch, n, n), V(HLX_DTYPE_F64, batch, {n}),
               V(HLX_DTYPE_S32, batch, {})}),
      {a});
  ASSERT_EQ(o.size(), 3u);
  for (int64_t b = 0; b < 64; b++) {
    EXPECT_EQ(o[2].i[(size_t)b], 0);
    Mat v = jaxtest::MatOf(o[0], b), vw = v;
    for (int64_t i = 0; i < n; i++)
      for (int64_t j = 0; j < n; j++) vw(i, j) *= o[1].v[(size_t)(b * n + j)].real();
    EXPECT_LT(jaxtest::RelDiff(jaxtest::Mul(jaxtest::MatOf(a, b), v), vw), 1e-9) << b;
  }
}

}  // namespace
