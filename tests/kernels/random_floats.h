// Reproducible random f32 test data for the library-kernel tests.
#ifndef HLX_TESTS_KERNELS_RANDOM_FLOATS_H_
#define HLX_TESTS_KERNELS_RANDOM_FLOATS_H_

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace hlx_test {

// n floats uniform in [-scale, scale) from a generator seeded with seed.
inline std::vector<float> RandomFloats(size_t n, uint32_t seed,
                                       float scale = 1.0f) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(-scale, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

}  // namespace hlx_test

#endif  // HLX_TESTS_KERNELS_RANDOM_FLOATS_H_
