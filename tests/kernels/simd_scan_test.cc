// f32 cumulative-sum variants (kernels/scan_kernels.inc) against the scalar
// reference scan hlx_ref_scan (itself checked against reduce_window in
// scan_test.cc): every line length 1..80 and some long ones (tails of
// every size, both vector blocks of a step), 1..9 lines, both directions,
// inits +0 / -0 / 3, random data with and without NaN / +-Inf / -0, in and
// out pointers off vector alignment, regular and non-temporal stores. The
// sums round in another order: each output must be within the error bound
// of kernels/scan.h (twice gamma(k) * sum |x|, k the terms summed), NaN
// exactly where the reference has NaN, infinities identical. hlx_scan at
// every ISA cap runs the variant of that level, bit for bit, on 1 and 2
// threads.
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/dispatch.h"
#include "tests/kernels/simd_test_util.h"

namespace {

std::vector<float> Data(size_t n, bool specials, uint32_t seed) {
  const float sp[] = {NAN, INFINITY, -INFINITY, -0.0f};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  std::vector<float> v(n);
  for (auto& x : v) {
    x = u(rng);
    if (specials && rng() % 40 == 0) x = sp[rng() % 4];
  }
  return v;
}

// got vs the sequential reference want for `lines` lines of n at x.
void ExpectWithinBound(const float* x, const float* want, const float* got,
                       int64_t lines, int64_t n, float init, bool rev,
                       const std::string& what) {
  const double eps = 0x1p-24;
  int bad = 0;
  for (int64_t l = 0; l < lines && bad < 5; l++) {
    double abs_sum = fabs((double)init);
    for (int64_t k = 0; k < n && bad < 5; k++) {
      int64_t i = l * n + (rev ? n - 1 - k : k);
      abs_sum += fabs((double)x[i]);
      float w = want[i], g = got[i];
      bool ok;
      // Zeros: a sum is -0 only when every term is -0, in any order.
      if (isnan(w) || isnan(g) || isinf(w) || isinf(g) || (w == 0 && g == 0))
        ok = hlx_test::SameValue(w, g);
      else  // k + 2 terms (init included): gamma(k + 1) each, both orders
        ok = fabs((double)g - (double)w) <=
             2.0 * (double)(k + 1) * eps * abs_sum * (1 + 1e-6);
      if (!ok) {
        ADD_FAILURE() << what << " line " << l << " i " << i << ": want " << w
                      << " got " << g;
        bad++;
      }
    }
  }
}

// 64-byte aligned start inside v (which has 32 spare floats), one float in.
float* Aligned(std::vector<float>& v) {
  uintptr_t p = (uintptr_t)(v.data() + 1);
  return (float*)((p + 63) & ~(uintptr_t)63);
}

class SimdScan : public ::testing::TestWithParam<hlx_isa_t> {};

TEST_P(SimdScan, AddF32MatchesReference) {
  hlx_isa_t isa = GetParam();
  HLX_SKIP_IF_UNSUPPORTED(isa);
  hlx_scan_add_f32_fn fn = hlx_scan_add_f32_kernel(isa);
  ASSERT_NE(fn, nullptr);
  std::vector<int64_t> lens;
  for (int64_t n = 1; n <= 80; n++) lens.push_back(n);
  for (int64_t n : {127, 128, 129, 1000, 4097}) lens.push_back(n);
  uint32_t seed = 1;
  for (int64_t n : lens)
    for (int64_t lines : {1, 3, 9})
      for (bool rev : {false, true})
        for (bool specials : {false, true})
          for (float init : {0.0f, -0.0f, 3.0f})
            for (int off : {0, 1}) {
              if (n > 80 && (off || init == -0.0f)) continue;  // keep it short
              std::string what = std::string(hlx_isa_name(isa)) + " n " +
                                 std::to_string(n) + " lines " +
                                 std::to_string(lines) + (rev ? " rev" : " fwd") +
                                 (specials ? " specials" : "") + " init " +
                                 std::to_string(init) + " off " + std::to_string(off);
              size_t total = (size_t)(lines * n);
              std::vector<float> xs = Data(total + 1, specials, seed++);
              const float* x = xs.data() + off;
              std::vector<float> want(total);
              // Outputs 64-byte aligned + off, so the streaming path runs
              // (aligned lines) or falls back (misaligned ones).
              std::vector<float> gbuf(total + 32, 7.0f), sbuf(total + 32, 7.0f);
              float* got = Aligned(gbuf) + off;
              float* streamed = Aligned(sbuf) + off;
              if (init == 3.0f) {
                // init (+) init != init: the reference scan declines such
                // an init; the kernel folds it in once, as this loop does.
                for (int64_t l = 0; l < lines; l++) {
                  float a = init;
                  for (int64_t k = 0; k < n; k++) {
                    int64_t i = l * n + (rev ? n - 1 - k : k);
                    want[i] = a = rev ? x[i] + a : a + x[i];
                  }
                }
              } else {
                hlx_scan_t s = {lines, n, 1, rev};
                ASSERT_TRUE(hlx_ref_scan(HLX_REDUCE_ADD, HLX_DTYPE_F32, &s, x,
                                         &init, want.data(), nullptr));
              }
              fn(x, got, lines, n, init, rev, false);
              fn(x, streamed, lines, n, init, rev, true);
              ASSERT_EQ(got[total], 7.0f) << what << ": wrote past the end";
              ASSERT_EQ(got[-1], 7.0f) << what << ": wrote before the start";
              ExpectWithinBound(x, want.data(), got, lines, n, init, rev, what);
              ASSERT_EQ(0, memcmp(got, streamed, total * 4))
                  << what << ": streaming stores changed the result";
              if (::testing::Test::HasFailure()) return;
            }
}

// Partial sums that overflow: FLT_MAX, FLT_MAX, -FLT_MAX, -FLT_MAX is Inf
// from its second element on in the sequential order, and stays Inf; block
// prefixes would give FLT_MAX, NaN and then finite values again (the
// kernel redoes such lines sequentially). The run at every position of
// lines of 4..70 (tails and both blocks of a step), both directions,
// regular and streamed stores: the reference's infinities, the bound before.
TEST_P(SimdScan, AddF32OverflowKeepsReferenceInfinities) {
  hlx_isa_t isa = GetParam();
  HLX_SKIP_IF_UNSUPPORTED(isa);
  hlx_scan_add_f32_fn fn = hlx_scan_add_f32_kernel(isa);
  ASSERT_NE(fn, nullptr);
  const float m = FLT_MAX, run[4] = {m, m, -m, -m};
  for (int64_t n = 4; n <= 70; n++)
    for (int64_t p = 0; p + 4 <= n; p++)
      for (bool rev : {false, true})
        for (bool stream : {false, true}) {
          std::vector<float> x = Data((size_t)n, false, (uint32_t)(n * 71 + p));
          for (int64_t k = 0; k < 4; k++)
            x[(size_t)(rev ? n - 1 - p - k : p + k)] = run[k];
          std::vector<float> want((size_t)n), buf((size_t)n + 32, 7.0f);
          float* got = Aligned(buf);
          float zero = 0.0f;
          hlx_scan_t s = {1, n, 1, rev};
          ASSERT_TRUE(hlx_ref_scan(HLX_REDUCE_ADD, HLX_DTYPE_F32, &s, x.data(),
                                   &zero, want.data(), nullptr));
          ASSERT_TRUE(isinf(want[(size_t)(rev ? 0 : n - 1)]));
          fn(x.data(), got, 1, n, 0.0f, rev, stream);
          ExpectWithinBound(x.data(), want.data(), got, 1, n, 0.0f, rev,
                            std::string(hlx_isa_name(isa)) + " n " +
                                std::to_string(n) + " run at " +
                                std::to_string(p) + (rev ? " rev" : " fwd") +
                                (stream ? " streamed" : ""));
          if (::testing::Test::HasFailure()) return;
        }
}

INSTANTIATE_TEST_SUITE_P(Isa, SimdScan,
                         ::testing::Values(HLX_ISA_AVX2, HLX_ISA_AVX512),
                         [](const auto& i) { return std::string(hlx_isa_name(i.param)); });

// hlx_scan at every cap: f32 sums along the innermost axis are the cap's
// variant bit for bit (the scalar reference's at the reference level), on
// 1 and 2 threads; other axes and ops stay the reference's bit for bit.
TEST(SimdScanDispatch, EveryCapRunsItsVariant) {
  const int64_t lines = 37, n = 3001;  // several 8-line units, odd tails
  std::vector<float> x = Data((size_t)(lines * n), true, 99);
  float zero = 0.0f;
  for (int lv = HLX_ISA_REFERENCE; lv < HLX_ISA_COUNT; lv++) {
    if (!hlx_cpu_supports_isa((hlx_isa_t)lv)) {
      hlx_test::SkipCounter::Get()->Count((hlx_isa_t)lv);
      continue;
    }
    hlx_scan_add_f32_fn fn = hlx_scan_add_f32_kernel((hlx_isa_t)lv);
    ASSERT_EQ(lv == HLX_ISA_REFERENCE, fn == nullptr) << hlx_isa_name((hlx_isa_t)lv);
    for (bool rev : {false, true}) {
      hlx_scan_t s = {lines, n, 1, rev};
      std::vector<float> want((size_t)(lines * n));
      if (fn)
        fn(x.data(), want.data(), lines, n, 0.0f, rev, false);
      else
        ASSERT_TRUE(hlx_ref_scan(HLX_REDUCE_ADD, HLX_DTYPE_F32, &s, x.data(),
                                 &zero, want.data(), nullptr));
      for (int t : {1, 2}) {
        hlx_test::Threads th{t};
        hlx_parallel_t par = th.Par();
        std::vector<float> got(want.size(), 5.0f);
        hlx_cpu_set_max_isa((hlx_isa_t)lv);
        ASSERT_TRUE(hlx_scan(HLX_REDUCE_ADD, HLX_DTYPE_F32, &s, x.data(), &zero,
                             got.data(), &par));
        hlx_cpu_set_max_isa(HLX_ISA_COUNT);
        for (size_t i = 0; i < want.size(); i++)
          ASSERT_TRUE(hlx_test::SameValue(want[i], got[i]))
              << hlx_isa_name((hlx_isa_t)lv) << " rev " << rev << " threads "
              << t << " i " << i;
      }
      // Along the outer axis (inner > 1) and for max: the reference's bits.
      hlx_scan_t cols = {1, lines, n, rev};
      for (hlx_reduce_op_t op : {HLX_REDUCE_ADD, HLX_REDUCE_MAX}) {
        float init = op == HLX_REDUCE_ADD ? 0.0f : -INFINITY;
        hlx_scan_t& g = op == HLX_REDUCE_ADD ? cols : s;
        std::vector<float> w(want.size()), got(want.size());
        ASSERT_TRUE(hlx_ref_scan(op, HLX_DTYPE_F32, &g, x.data(), &init,
                                 w.data(), nullptr));
        hlx_cpu_set_max_isa((hlx_isa_t)lv);
        ASSERT_TRUE(hlx_scan(op, HLX_DTYPE_F32, &g, x.data(), &init, got.data(),
                             nullptr));
        hlx_cpu_set_max_isa(HLX_ISA_COUNT);
        ASSERT_EQ(0, memcmp(w.data(), got.data(), w.size() * 4))
            << hlx_isa_name((hlx_isa_t)lv) << " op " << (int)op;
      }
    }
  }
}

}  // namespace
