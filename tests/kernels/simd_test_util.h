// Shared helpers for the ISA-variant kernel tests (simd_*_test.cc): visible
// skip accounting for variants this CPU cannot run, and float comparisons.
#ifndef HLX_TESTS_KERNELS_SIMD_TEST_UTIL_H_
#define HLX_TESTS_KERNELS_SIMD_TEST_UTIL_H_

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cstdio>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "base/parallel.h"
#include "gtest/gtest.h"
#include "kernels/cpu_features.h"
#include "kernels/simd.h"
#include "tests/kernels/transcendental_exact.h"

namespace hlx_test {

// Counts skipped variants per ISA and prints the totals when the test
// program ends, so a machine without AVX-512 says so in the log.
class SkipCounter : public ::testing::Environment {
 public:
  static SkipCounter* Get() {
    static SkipCounter* c = static_cast<SkipCounter*>(
        ::testing::AddGlobalTestEnvironment(new SkipCounter));
    return c;
  }
  void Count(hlx_isa_t isa) { skipped_[hlx_isa_name(isa)]++; }
  void TearDown() override {
    std::printf("[ SIMD     ] CPU runs up to %s (HLX_MAX_ISA cap: %s)\n",
                hlx_isa_name(hlx_cpu_detected_isa()),
                hlx_isa_name(hlx_cpu_max_isa()));
    if (skipped_.empty())
      std::printf("[ SIMD     ] 0 variants skipped\n");
    for (auto& kv : skipped_)
      std::printf("[ SIMD     ] SKIPPED %d %s variant test(s): CPU lacks %s\n",
                  kv.second, kv.first.c_str(), kv.first.c_str());
  }

 private:
  std::map<std::string, int> skipped_;
};

// Registered before main so the summary prints even with no skips.
inline SkipCounter* const kSkipCounterInit = SkipCounter::Get();

// Skip (visibly) when the CPU cannot run `isa`.
#define HLX_SKIP_IF_UNSUPPORTED(isa)                                       \
  do {                                                                     \
    if (!hlx_cpu_supports_isa(isa)) {                                      \
      hlx_test::SkipCounter::Get()->Count(isa);                            \
      GTEST_SKIP() << "CPU lacks " << hlx_isa_name(isa) << " (detected: "  \
                   << hlx_isa_name(hlx_cpu_detected_isa()) << ")";         \
    }                                                                      \
  } while (0)

// One elementwise ISA variant of kernels/elementwise*.inc, as the tests
// enumerate them.
struct UnaryVariant {
  const char* name;
  hlx_isa_t isa;
  hlx_unary_op_t op;
  hlx_dtype_t dtype;
  hlx_unary_fn fn;
};
struct BinaryVariant {
  const char* name;
  hlx_isa_t isa;
  hlx_binary_op_t op;
  hlx_dtype_t dtype;
  hlx_binary_fn fn;
};
struct CompareVariant {
  const char* name;
  hlx_isa_t isa;
  hlx_dtype_t dtype;
  hlx_compare_fn fn;
};
struct SelectVariant {
  const char* name;
  hlx_isa_t isa;
  size_t elem_size;
  hlx_select_fn fn;
};

inline uint32_t Bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
inline uint64_t Bits(double f) {
  uint64_t u;
  memcpy(&u, &f, 8);
  return u;
}
inline float FromBits(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

// Same value: identical bits, or both NaN (payloads may differ).
template <typename T>
bool SameValue(T a, T b) {
  if (isnan(a) && isnan(b)) return true;
  return Bits(a) == Bits(b);
}

// Distance in f32 units in the last place between two floats (0 if equal
// or both NaN; huge if only one is NaN or signs of zeros/infs differ).
inline double UlpDistance(float a, float b) {
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b) ? 0 : 1e30;
  if (Bits(a) == Bits(b)) return 0;
  if (isinf(a) || isinf(b)) return 1e30;
  auto key = [](float f) {
    int64_t u = Bits(f);
    return (u & 0x80000000) ? -(u & 0x7fffffff) : u;
  };
  return (double)std::llabs(key(a) - key(b));
}

// Error of y against the exact value e in ULPs of f32 at e's magnitude
// (the subnormal ULP 2^-149 below 2^-126).
inline double UlpError(float y, double e) {
  if (isnan(e)) return isnan(y) ? 0 : 1e30;
  if (isnan(y)) return 1e30;
  if (isinf(y) || fabs(e) > 3.4028234663852886e38) {
    float r = (float)e;  // rounded reference decides the overflow cases
    return Bits(r) == Bits(y) ? 0 : 1e30;
  }
  int ex;
  frexp(e, &ex);  // |e| in [2^(ex-1), 2^ex)
  int ulp_exp = ex - 1 - 23;
  if (ulp_exp < -149) ulp_exp = -149;
  return fabs((double)y - e) / ldexp(1.0, ulp_exp);
}

// An hlx_parallel_t on plain threads (kernel tests of thread splits): each
// parallel_for runs its items on `threads` threads at once, the caller
// taking the first share.
struct Threads {
  int threads;
  static int Num(void* ctx) { return static_cast<Threads*>(ctx)->threads; }
  static void For(void* ctx, size_t n, size_t, hlx_parallel_fn fn, void* arg) {
    size_t t = (size_t)static_cast<Threads*>(ctx)->threads;
    std::vector<std::thread> pool;
    for (size_t k = 1; k < t; k++)
      pool.emplace_back([=] { fn(arg, n * k / t, n * (k + 1) / t); });
    fn(arg, 0, n / t);
    for (auto& th : pool) th.join();
  }
  hlx_parallel_t Par() { return {this, Num, For}; }
};

}  // namespace hlx_test

#endif  // HLX_TESTS_KERNELS_SIMD_TEST_UTIL_H_
