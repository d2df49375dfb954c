// JAX's own exported CPU programs (../shared/jax_exports: the back-compat
// test data of jax-ml/jax, with recorded inputs and outputs) run through
// hlx and compared as a JAX user would accept them: deterministic results
// elementwise (2e-3 x max(1, max|expected|) for 32-bit types, 1e-9 for
// 64-bit, integers exactly); eigendecompositions and SVDs by their defining
// relations (eigen/singular values as sets, A V = V diag(w),
// U diag(s) V^H = A, orthonormality), since their vectors are unique only
// up to phase and order.
#include <dirent.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "tests/data_paths.h"
#include "tests/jax/jax_test_util.h"
#include "tools/npy.h"

namespace {

using jaxtest::cd;
using jaxtest::Mat;
using jaxtest::Tensor;

std::string Dir() { return hlx_test::SharedDir() + "/jax_exports"; }

bool ReadText(const std::string& path, std::string* out) {
  FILE* f = fopen(path.c_str(), "rb");
  if (!f) return false;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) out->append(buf, n);
  fclose(f);
  return true;
}

// NAME.<kind>K.npy for K = 0, 1, ... while they exist.
std::vector<Tensor> ReadNpys(const std::string& base, const char* kind) {
  std::vector<Tensor> v;
  for (int k = 0;; k++) {
    std::string path = base + "." + kind + std::to_string(k) + ".npy";
    hlx_npy_array_t a;
    hlx_status_t s = hlx_npy_read(path.c_str(), HLX_DTYPE_INVALID, &a);
    if (s) {
      hlx_status_free(s);
      break;
    }
    std::vector<int64_t> dims(a.dims, a.dims + a.rank);
    v.push_back(jaxtest::Decode(a.dtype, dims, a.data));
    hlx_npy_free(&a);
  }
  return v;
}

double Tol(hlx_dtype_t t) {
  return t == HLX_DTYPE_F32 || t == HLX_DTYPE_C64 ? 2e-3 : 1e-9;
}

double MaxAbs(const Tensor& t) {
  double m = 0;
  for (const cd& x : t.v) m = std::max(m, std::abs(x));
  return m;
}

// Elementwise comparison; "" when close.
std::string CompareElementwise(const Tensor& got, const Tensor& want) {
  if (got.dims != want.dims || got.dtype != want.dtype) return "shape or type differs";
  if (!jaxtest::IsFloatLike(want.dtype))
    return got.i == want.i ? "" : "integer values differ";
  double scale = std::max(1.0, MaxAbs(want)), err = 0;
  for (size_t k = 0; k < want.v.size(); k++) {
    double d = std::abs(got.v[k] - want.v[k]);
    if (std::isnan(d)) d = std::isnan(std::abs(want.v[k])) ? 0 : 1e300;
    err = std::max(err, d);
  }
  if (err <= Tol(want.dtype) * scale) return "";
  return "max abs err " + std::to_string(err) + " (scale " + std::to_string(scale) + ")";
}

int64_t Batch(const Tensor& t) {
  int64_t b = 1;
  for (size_t d = 0; d + 2 < t.dims.size(); d++) b *= t.dims[d];
  return b;
}

bool SameSet(std::vector<double> a, std::vector<double> b, double tol) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  for (size_t k = 0; k < a.size(); k++)
    if (!(std::abs(a[k] - b[k]) <= tol)) return false;
  return a.size() == b.size();
}

// eigh: outputs (v, w); A = ve diag(we) ve^H from the expected ones.
std::string CheckEigh(const std::vector<Tensor>& out, const std::vector<Tensor>& exp) {
  double t = Tol(exp[0].dtype) * 5;
  const Tensor &v = out[0], &w = out[1], &ve = exp[0], &we = exp[1];
  int64_t n = v.dims.back();
  for (int64_t b = 0; b < Batch(v); b++) {
    Mat vm = jaxtest::MatOf(v, b), vem = jaxtest::MatOf(ve, b), d(n, n);
    std::vector<double> got, want;
    for (int64_t j = 0; j < n; j++) {
      got.push_back(w.v[(size_t)(b * n + j)].real());
      want.push_back(we.v[(size_t)(b * n + j)].real());
      d(j, j) = want.back();
    }
    if (!SameSet(got, want, t * std::max(1.0, MaxAbs(we)))) return "eigenvalues differ";
    Mat a = jaxtest::Mul(jaxtest::Mul(vem, d), jaxtest::H(vem)), vw = vm;
    for (int64_t i = 0; i < n; i++)
      for (int64_t j = 0; j < n; j++) vw(i, j) *= got[(size_t)j];
    Mat r = jaxtest::Mul(a, vm);
    for (size_t k = 0; k < r.a.size(); k++) r.a[k] -= vw.a[k];
    double res = jaxtest::Norm(r) / std::max(1e-30, jaxtest::Norm(a));
    double orth = jaxtest::RelDiff(jaxtest::Mul(jaxtest::H(vm), vm), jaxtest::Eye(n));
    if (!(res < t) || !(orth < t))
      return "residual " + std::to_string(res) + ", orthonormality " + std::to_string(orth);
  }
  return "";
}

// svd: outputs (u, s, vt) against the input and expected s.
std::string CheckSvd(const std::vector<Tensor>& in, const std::vector<Tensor>& out,
                     const std::vector<Tensor>& exp) {
  double t = Tol(exp[0].dtype) * 5;
  const Tensor &u = out[0], &s = out[1], &vt = out[2];
  /* singular values are ordered (descending): compared elementwise */
  if (!CompareElementwise(s, exp[1]).empty()) return "singular values differ";
  int64_t k = s.dims.back();
  for (int64_t b = 0; b < Batch(u); b++) {
    Mat um = jaxtest::MatOf(u, b), vm = jaxtest::MatOf(vt, b), a = jaxtest::MatOf(in[0], b);
    Mat us(um.r, vm.r);
    for (int64_t i = 0; i < um.r; i++)
      for (int64_t j = 0; j < k; j++) us(i, j) = um(i, j) * s.v[(size_t)(b * k + j)].real();
    Mat rec = jaxtest::Mul(us, vm);
    for (size_t x = 0; x < rec.a.size(); x++) rec.a[x] -= a.a[x];
    double r = jaxtest::Norm(rec) / std::max(1e-30, jaxtest::Norm(a));
    double o = jaxtest::RelDiff(jaxtest::Mul(jaxtest::H(um), um), jaxtest::Eye(um.c));
    if (!(r < t) || !(o < t))
      return "reconstruction " + std::to_string(r) + ", orthonormality " + std::to_string(o);
  }
  return "";
}

TEST(JaxExports, RunAndCompare) {
  std::string dir = Dir();
  ASSERT_TRUE(hlx_test::IsDir(dir)) << "JAX exports not found at " << dir
                                    << " (put ../shared beside the checkout)";
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  ASSERT_NE(d, nullptr);
  while (struct dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n.size() > 5 && n.compare(n.size() - 5, 5, ".mlir") == 0)
      names.push_back(n.substr(0, n.size() - 5));
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  int passed = 0;
  for (const std::string& name : names) {
    std::string base = dir + "/" + name, text, err;
    ASSERT_TRUE(ReadText(base + ".mlir", &text)) << name;
    std::vector<Tensor> in = ReadNpys(base, "in"), exp = ReadNpys(base, "out"), out;
    if (!jaxtest::Run(text, in, &out, &err)) {
      ADD_FAILURE() << "ERROR " << name << ": " << err;
      continue;
    }
    if (out.size() != exp.size()) {
      ADD_FAILURE() << "FAIL " << name << ": " << out.size() << " results, expected " << exp.size();
      continue;
    }
    std::string why;
    if (name.find("_eigh_lapack_syev") != std::string::npos) {
      why = CheckEigh(out, exp);
    } else if (name.find("_svd_lapack_gesdd") != std::string::npos) {
      why = CheckSvd(in, out, exp);
    } else {
      for (size_t k = 0; k < exp.size() && why.empty(); k++) {
        why = CompareElementwise(out[k], exp[k]);
        if (!why.empty()) why = "result " + std::to_string(k) + ": " + why;
      }
    }
    if (why.empty()) passed++;
    else ADD_FAILURE() << "FAIL " << name << ": " << why;
  }
  std::printf("jax_exports: %d passed, %d failed\n", passed, (int)names.size() - passed);
  EXPECT_GE(names.size(), 26u);
}

}  // namespace
