// Exhaustive accuracy sweep of the f32 transcendental ISA variants
// (kernels/x86/vmath_f32.h): every one of the 2^32 f32 inputs through each
// variant of kernels/elementwise.inc that the CPU runs, against libm in
// double. Reports the max error in ULPs (normal results, and overall with
// the subnormal ULP below 2^-126) and checks that NaN / Inf / zero results
// equal the reference kernel's. Exit status 1 if any variant is above
// 1 ULP or differs on a special value. Too slow for a unit test (about a
// minute per variant on two threads); the unit test samples every 257th
// pattern (tests/kernels/simd_elementwise_test.cc).
//
//   bazel build //benchmarks:vmath_sweep
//   bazel-bin/benchmarks/vmath_sweep [name-substring] [threads]
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "kernels/dispatch.h"
#include "kernels/simd.h"
#include "tests/kernels/transcendental_exact.h"

namespace {

struct Variant {
  const char* name;
  hlx_isa_t isa;
  hlx_unary_op_t op;
  hlx_dtype_t dtype;
  hlx_unary_fn fn;
};
const Variant kUnary[] = {
#define HLX_EW_UNARY(ISA, OP, DT, fn) \
  {#fn, HLX_ISA_##ISA, HLX_UNARY_##OP, HLX_DTYPE_##DT, fn},
#include "kernels/elementwise.inc"
};

uint32_t Bits(float f) {
  uint32_t b;
  memcpy(&b, &f, 4);
  return b;
}

struct Result {
  double max_normal = 0, max_all = 0;
  float worst = 0;
  uint64_t finite = 0, special_bad = 0;
  float first_bad = 0;
};

// Bit patterns [lo, hi) in chunks: variant, reference kernel, libm.
void Sweep(const Variant& v, hlx_unary_fn ref, uint64_t lo, uint64_t hi,
           Result* res) {
  const size_t kChunk = 1 << 14;
  std::vector<float> x(kChunk), y(kChunk), r(kChunk);
  for (uint64_t b = lo; b < hi; b += kChunk) {
    size_t m = (size_t)std::min<uint64_t>(kChunk, hi - b);
    for (size_t i = 0; i < m; i++) {
      uint32_t u = (uint32_t)(b + i);
      memcpy(&x[i], &u, 4);
    }
    v.fn(x.data(), y.data(), m);
    ref(x.data(), r.data(), m);
    for (size_t i = 0; i < m; i++) {
      double e = hlx_test::ExactF32Op(v.op, x[i]);
      if (isnan(e) || !isfinite(r[i]) || r[i] == 0) {
        bool same = isnan(r[i]) ? isnan(y[i]) : Bits(r[i]) == Bits(y[i]);
        if (!same && res->special_bad++ == 0) res->first_bad = x[i];
        continue;
      }
      if (!isfinite(y[i])) {
        if (res->special_bad++ == 0) res->first_bad = x[i];
        continue;
      }
      int ex;
      frexp(e, &ex);
      double err = fabs((double)y[i] - e) / ldexp(1.0, std::max(ex - 24, -149));
      res->finite++;
      res->max_all = std::max(res->max_all, err);
      if (fabs(e) >= 0x1p-126 && err > res->max_normal) {
        res->max_normal = err;
        res->worst = x[i];
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string filter = argc > 1 ? argv[1] : "";
  unsigned threads = argc > 2 ? (unsigned)atoi(argv[2]) : 2;
  if (threads == 0) threads = 1;
  int status = 0;
  for (const Variant& v : kUnary) {
    if (!hlx_test::Transcendental(v.op) || v.dtype != HLX_DTYPE_F32) continue;
    if (std::string(v.name).find(filter) == std::string::npos) continue;
    if (!hlx_cpu_supports_isa(v.isa)) {
      std::printf("%-40s skipped: CPU lacks %s\n", v.name, hlx_isa_name(v.isa));
      continue;
    }
    hlx_unary_fn ref = hlx_ref_unary_kernel(v.op, v.dtype, nullptr);
    std::vector<Result> part(threads);
    std::vector<std::thread> pool;
    const uint64_t total = (uint64_t)1 << 32, span = total / threads;
    for (unsigned t = 0; t < threads; t++)
      pool.emplace_back(Sweep, std::cref(v), ref, t * span,
                        t + 1 == threads ? total : (t + 1) * span, &part[t]);
    for (auto& th : pool) th.join();
    Result all;
    for (const Result& p : part) {
      if (p.max_normal > all.max_normal) {
        all.max_normal = p.max_normal;
        all.worst = p.worst;
      }
      all.max_all = std::max(all.max_all, p.max_all);
      all.finite += p.finite;
      if (p.special_bad && !all.special_bad) all.first_bad = p.first_bad;
      all.special_bad += p.special_bad;
    }
    bool ok = all.max_normal <= 1.0 && all.max_all <= 1.0 && !all.special_bad;
    std::printf("%-40s %llu finite results: max %.4f ULP normal (x=%.9g), "
                "%.4f overall; %llu special-value mismatches%s\n",
                v.name, (unsigned long long)all.finite, all.max_normal,
                all.worst, all.max_all, (unsigned long long)all.special_bad,
                ok ? "" : "  FAIL");
    if (all.special_bad)
      std::printf("  first special mismatch at x=%a\n", all.first_bad);
    std::fflush(stdout);
    if (!ok) status = 1;
  }
  return status;
}
