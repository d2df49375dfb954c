// Every transpose ISA variant of kernels/data_movement.inc (1-, 2-, 4-
// and 8-byte elements) against a scalar transpose (odd sizes, padded
// strides), and the dispatched
// hlx_copy_strided() against hlx_ref_copy_strided on permutations.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/dispatch.h"
#include "kernels/simd.h"
#include "tests/kernels/simd_test_util.h"

namespace {

struct TransposeVariant {
  const char* name;
  hlx_isa_t isa;
  size_t elem_size;
  size_t tile;
  hlx_transpose_fn fn;
};
const TransposeVariant kTranspose[] = {
#define HLX_TRANSPOSE_KERNEL(ISA, ES, TILE, fn) {#fn, HLX_ISA_##ISA, ES, TILE, fn},
#include "kernels/data_movement.inc"
};

class SimdTranspose : public ::testing::TestWithParam<TransposeVariant> {};

// Element e of a buffer of es-byte elements, as a number (tests compare
// whole elements).
uint64_t Get(const std::vector<uint8_t>& b, size_t es, size_t e) {
  uint64_t v = 0;
  memcpy(&v, b.data() + e * es, es);
  return v;
}

// A patterned buffer of n elements whose bytes all differ nearby.
std::vector<uint8_t> Pattern(size_t n, size_t es) {
  std::vector<uint8_t> b(n * es);
  for (size_t i = 0; i < b.size(); i++)
    b[i] = (uint8_t)((i * 2654435761u) >> 13);
  return b;
}

TEST_P(SimdTranspose, MatchesScalar) {
  const TransposeVariant& v = GetParam();
  HLX_SKIP_IF_UNSUPPORTED(v.isa);
  const size_t es = v.elem_size;
  std::vector<size_t> sizes;
  for (size_t s = 0; s <= 2 * v.tile + 1; s += (v.tile > 16 ? 3 : 1))
    sizes.push_back(s);
  sizes.push_back(v.tile - 1);
  sizes.push_back(2 * v.tile);
  sizes.push_back(100);
  for (size_t rows : sizes)
    for (size_t cols : sizes) {
      int64_t is = (int64_t)cols + 3, os = (int64_t)rows + 5;
      std::vector<uint8_t> in = Pattern((size_t)is * rows + 1, es);
      std::vector<uint8_t> out(((size_t)os * cols + 1) * es, 0xa5);
      std::vector<uint8_t> want = out;
      for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++)
          memcpy(&want[(c * os + r) * es], &in[(r * is + c) * es], es);
      v.fn(in.data(), is, out.data(), os, rows, cols);
      ASSERT_EQ(want, out) << v.name << " rows=" << rows << " cols=" << cols;
    }
}

// Several blocks with partial tiles at both edges; the large cases cross
// the streaming-store threshold (16 MiB of output) with the output 64-byte
// aligned (streamed) and one element off (regular stores).
TEST_P(SimdTranspose, BlockedAndStreamedMatchScalar) {
  const TransposeVariant& v = GetParam();
  HLX_SKIP_IF_UNSUPPORTED(v.isa);
  const size_t es = v.elem_size;
  struct Case {
    size_t rows, cols;
    int64_t is, os;
    size_t out_offset;
  };
  // Large enough in bytes to stream at every element size.
  size_t big = es == 1 ? 4099 : es == 2 ? 2947 : es == 4 ? 2051 : 1451;
  int64_t bs = (int64_t)((big + 64) / 64 * 64);
  const Case cases[] = {{257, 515, 518, 261, 0},
                        {big, big + 10, bs, bs, 0},
                        {big, big + 10, bs, bs, 1}};
  for (const Case& k : cases) {
    std::vector<uint8_t> in = Pattern((size_t)k.is * k.rows, es);
    size_t out_n = (size_t)k.os * k.cols + k.out_offset;
    uint8_t* block = static_cast<uint8_t*>(
        aligned_alloc(64, (out_n * es + 63) / 64 * 64));
    ASSERT_NE(block, nullptr);
    uint8_t* out = block + k.out_offset * es;
    memset(block, 0xa5, out_n * es);
    v.fn(in.data(), k.is, out, k.os, k.rows, k.cols);
    size_t bad = 0;
    uint64_t pad = 0;
    memset(&pad, 0xa5, es);
    for (size_t c = 0; c < k.cols; c++)
      for (int64_t r = 0; r < k.os; r++) {
        uint64_t want = (size_t)r < k.rows ? Get(in, es, (size_t)r * k.is + c) : pad;
        uint64_t got = 0;
        memcpy(&got, out + (c * k.os + r) * es, es);
        bad += got != want;
      }
    free(block);
    EXPECT_EQ(bad, 0u) << v.name << " " << k.rows << "x" << k.cols
                       << " offset " << k.out_offset;
  }
}

std::string Name(const ::testing::TestParamInfo<TransposeVariant>& i) {
  return i.param.name;
}
INSTANTIATE_TEST_SUITE_P(Variants, SimdTranspose,
                         ::testing::ValuesIn(kTranspose), Name);

// transpose(in, perm) as a strided copy: output dims, the input's strides
// in output order, the output's strides.
struct Permuted {
  int32_t rank;
  std::vector<int64_t> out_dims, src_str, out_str;
  Permuted(const std::vector<int64_t>& in_dims, const std::vector<int>& perm)
      : rank((int32_t)in_dims.size()), out_dims(rank), src_str(rank), out_str(rank) {
    std::vector<int64_t> in_str(rank);
    hlx_row_major_strides(rank, in_dims.data(), in_str.data());
    for (int d = 0; d < rank; d++) out_dims[d] = in_dims[perm[d]];
    hlx_row_major_strides(rank, out_dims.data(), out_str.data());
    for (int d = 0; d < rank; d++) src_str[d] = in_str[perm[d]];
  }
};

// out = transpose(in, perm) as a strided copy, through both paths (and
// split across `threads` threads when above 1).
void CheckPermutation(std::vector<int64_t> in_dims, std::vector<int> perm,
                      size_t es, int threads = 1) {
  Permuted t(in_dims, perm);
  size_t n = 1;
  for (auto d : in_dims) n *= (size_t)d;
  std::vector<uint8_t> in(n * es), want(n * es + 4, 1), got(n * es + 4, 1);
  for (size_t i = 0; i < in.size(); i++) in[i] = (uint8_t)(i * 7 + i / 251);
  hlx_ref_copy_strided(es, t.rank, t.out_dims.data(), in.data(), t.src_str.data(),
                       want.data(), t.out_str.data());
  hlx_test::Threads th{threads};
  hlx_parallel_t par = th.Par();
  if (threads > 1)
    hlx_copy_strided_par(es, t.rank, t.out_dims.data(), in.data(),
                         t.src_str.data(), got.data(), t.out_str.data(), &par);
  else
    hlx_copy_strided(es, t.rank, t.out_dims.data(), in.data(), t.src_str.data(),
                     got.data(), t.out_str.data());
  ASSERT_EQ(want, got);
}

TEST(SimdCopyStrided, PermutationsMatchReferenceAtEveryLevel) {
  for (int lv = HLX_ISA_REFERENCE; lv < HLX_ISA_COUNT; lv++) {
    if (!hlx_cpu_supports_isa((hlx_isa_t)lv)) {
      hlx_test::SkipCounter::Get()->Count((hlx_isa_t)lv);
      continue;
    }
    hlx_cpu_set_max_isa((hlx_isa_t)lv);
    for (size_t es : {1, 2, 4, 8}) {
      SCOPED_TRACE("elem_size " + std::to_string(es) + " level " +
                   hlx_isa_name((hlx_isa_t)lv));
      CheckPermutation({37, 45}, {1, 0}, es);
      CheckPermutation({64, 128}, {1, 0}, es);
      CheckPermutation({67, 131}, {1, 0}, es);
      CheckPermutation({3, 20, 33}, {0, 2, 1}, es);
      CheckPermutation({20, 3, 33}, {2, 1, 0}, es);
      CheckPermutation({5, 17, 19, 2}, {3, 2, 0, 1}, es);
      CheckPermutation({2, 19, 7, 9}, {0, 2, 3, 1}, es);   // NCHW -> NHWC
      CheckPermutation({2, 7, 9, 19}, {0, 3, 1, 2}, es);   // NHWC -> NCHW
      CheckPermutation({2, 3, 40, 33, 2}, {0, 3, 2, 1, 4}, es);  // rank 5
      CheckPermutation({3, 2, 40, 33, 5}, {4, 3, 0, 1, 2}, es);
      CheckPermutation({2, 3, 10, 33, 12}, {0, 1, 4, 3, 2}, es);
      CheckPermutation({3, 40, 33, 2}, {0, 2, 1, 3}, es);
      CheckPermutation({40, 33, 2}, {1, 0, 2}, es);  // pairs move together
      CheckPermutation({40, 33, 4}, {1, 0, 2}, es);
      CheckPermutation({4, 40}, {1, 0}, es);    // a dim below the tile minimum
      CheckPermutation({0, 40}, {1, 0}, es);    // empty
      CheckPermutation({1, 1, 40}, {2, 1, 0}, es);  // unit dims only
    }
    CheckPermutation({16, 16}, {1, 0}, 3);  // no 3-byte kernel: reference
    hlx_cpu_set_max_isa(HLX_ISA_COUNT);
  }
}

// Tiled copies of 4 MiB or more split across threads: the same bytes as
// the reference, for every element size, several slices, ragged pieces.
TEST(SimdCopyStrided, ThreadSplitMatchesReference) {
  for (int threads : {2, 3}) {
    for (size_t es : {1, 2, 4, 8}) {
      SCOPED_TRACE("elem_size " + std::to_string(es) + " threads " +
                   std::to_string(threads));
      int64_t m = es == 1 ? 1500 : es == 2 ? 1100 : es == 4 ? 777 : 555;
      CheckPermutation({3, m, m + 37}, {0, 2, 1}, es, threads);
      CheckPermutation({2 * m, 2 * m + 5}, {1, 0}, es, threads);
    }
  }
}

// Whether transpose(in_dims, perm) of es-byte elements takes the tiled path.
bool Tiled(std::vector<int64_t> in_dims, std::vector<int> perm, size_t es) {
  Permuted t(in_dims, perm);
  alignas(64) static uint8_t buf[64];
  return hlx_copy_strided_is_tiled(es, t.rank, t.out_dims.data(), buf,
                                   t.src_str.data(), buf, t.out_str.data());
}

// NCHW <-> NHWC (H and W merge into one dim), rank 5 and pairs moving
// together go through the tile kernels at every element size; what has no
// kernel does not.
TEST(SimdCopyStrided, PermutationsTakeTheTilePath) {
  if (hlx_cpu_detected_isa() == HLX_ISA_REFERENCE) {
    hlx_test::SkipCounter::Get()->Count(HLX_ISA_REFERENCE);
    GTEST_SKIP() << "no transpose kernels at the reference level";
  }
  ASSERT_NE(hlx_transpose_kernel(4), nullptr);  // every ISA has 4-byte tiles
  auto has = [](size_t es) { return hlx_transpose_kernel(es) != nullptr; };
  for (size_t es : {1, 2, 4, 8}) {
    if (!has(es)) continue;  // NEON: 4-byte tiles only
    EXPECT_TRUE(Tiled({1, 64, 56, 56}, {0, 2, 3, 1}, es)) << es;
    EXPECT_TRUE(Tiled({8, 56, 7, 9}, {0, 3, 1, 2}, es)) << es;
    EXPECT_TRUE(Tiled({2, 3, 10, 33, 12}, {0, 1, 4, 3, 2}, es)) << es;
    // The contiguous-out dim (3) is below the minimum once the pairs merge.
    EXPECT_FALSE(Tiled({2, 3, 40, 33, 2}, {0, 3, 2, 1, 4}, es)) << es;
    if (has(2 * es)) {
      EXPECT_TRUE(Tiled({3, 40, 33, 2}, {0, 2, 1, 3}, es)) << es;
    }
    EXPECT_TRUE(Tiled({1, 40, 1, 33}, {3, 2, 1, 0}, es)) << es;
    EXPECT_FALSE(Tiled({40, 33}, {0, 1}, es)) << es;  // a plain copy
    EXPECT_FALSE(Tiled({4, 40}, {1, 0}, es)) << es;   // below the minimum
  }
  EXPECT_EQ(Tiled({40, 33, 2}, {1, 0, 2}, 2), has(4));  // i16 pairs as 4 bytes
  EXPECT_EQ(Tiled({40, 33, 4}, {1, 0, 2}, 2), has(8));  // quads as 8 bytes
  EXPECT_FALSE(Tiled({40, 33, 3}, {1, 0, 2}, 2));  // 6 bytes: no kernel
  EXPECT_FALSE(Tiled({40, 33}, {1, 0}, 3));
  hlx_cpu_set_max_isa(HLX_ISA_REFERENCE);
  EXPECT_FALSE(Tiled({64, 64}, {1, 0}, 4));
  hlx_cpu_set_max_isa(HLX_ISA_COUNT);
}

}  // namespace
