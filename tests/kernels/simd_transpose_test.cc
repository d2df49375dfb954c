// Every transpose ISA variant of kernels/data_movement.inc against a
// scalar transpose (odd sizes, padded strides), and the dispatched
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

TEST_P(SimdTranspose, MatchesScalar) {
  const TransposeVariant& v = GetParam();
  HLX_SKIP_IF_UNSUPPORTED(v.isa);
  std::vector<size_t> sizes;
  for (size_t s = 0; s <= 2 * v.tile + 1; s++) sizes.push_back(s);
  sizes.push_back(100);
  for (size_t rows : sizes)
    for (size_t cols : sizes) {
      int64_t is = (int64_t)cols + 3, os = (int64_t)rows + 5;
      std::vector<uint32_t> in((size_t)is * rows + 1), out((size_t)os * cols + 1, 0xdeadbeef);
      std::iota(in.begin(), in.end(), 1u);
      std::vector<uint32_t> want = out;
      for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++) want[c * os + r] = in[r * is + c];
      v.fn(in.data(), is, out.data(), os, rows, cols);
      ASSERT_EQ(want, out) << v.name << " rows=" << rows << " cols=" << cols;
    }
}

// Several 256x256 blocks with partial tiles at both edges; the large cases
// cross the streaming-store threshold (16 MiB of output) with the output
// 64-byte aligned (streamed) and one element off (regular stores).
TEST_P(SimdTranspose, BlockedAndStreamedMatchScalar) {
  const TransposeVariant& v = GetParam();
  HLX_SKIP_IF_UNSUPPORTED(v.isa);
  struct Case {
    size_t rows, cols;
    int64_t is, os;
    size_t out_offset;
  };
  const Case cases[] = {{257, 515, 518, 261, 0},
                        {2051, 2061, 2064, 2064, 0},
                        {2051, 2061, 2064, 2064, 1}};
  for (const Case& k : cases) {
    std::vector<uint32_t> in((size_t)k.is * k.rows);
    for (size_t i = 0; i < in.size(); i++) in[i] = (uint32_t)(i * 2654435761u);
    size_t out_n = (size_t)k.os * k.cols + k.out_offset;
    uint32_t* block = static_cast<uint32_t*>(
        aligned_alloc(64, (out_n * 4 + 63) / 64 * 64));
    ASSERT_NE(block, nullptr);
    uint32_t* out = block + k.out_offset;
    std::fill(block, block + out_n, 0xdeadbeefu);
    v.fn(in.data(), k.is, out, k.os, k.rows, k.cols);
    size_t bad = 0;
    for (size_t c = 0; c < k.cols; c++)
      for (int64_t r = 0; r < k.os; r++) {
        uint32_t want = (size_t)r < k.rows ? in[(size_t)r * k.is + c] : 0xdeadbeefu;
        bad += out[c * k.os + r] != want;
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

// out = transpose(in, perm) as a strided copy, through both paths.
void CheckPermutation(std::vector<int64_t> in_dims, std::vector<int> perm,
                      size_t es) {
  int32_t rank = (int32_t)in_dims.size();
  std::vector<int64_t> in_str(rank), out_dims(rank), out_str(rank), src_str(rank);
  hlx_row_major_strides(rank, in_dims.data(), in_str.data());
  for (int d = 0; d < rank; d++) out_dims[d] = in_dims[perm[d]];
  hlx_row_major_strides(rank, out_dims.data(), out_str.data());
  for (int d = 0; d < rank; d++) src_str[d] = in_str[perm[d]];
  size_t n = 1;
  for (auto d : in_dims) n *= (size_t)d;
  std::vector<uint8_t> in(n * es), want(n * es + 4, 1), got(n * es + 4, 1);
  for (size_t i = 0; i < in.size(); i++) in[i] = (uint8_t)(i * 7 + i / 251);
  hlx_ref_copy_strided(es, rank, out_dims.data(), in.data(), src_str.data(),
                       want.data(), out_str.data());
  hlx_copy_strided(es, rank, out_dims.data(), in.data(), src_str.data(),
                   got.data(), out_str.data());
  ASSERT_EQ(want, got);
}

TEST(SimdCopyStrided, PermutationsMatchReferenceAtEveryLevel) {
  for (int lv = HLX_ISA_REFERENCE; lv < HLX_ISA_COUNT; lv++) {
    if (!hlx_cpu_supports_isa((hlx_isa_t)lv)) {
      hlx_test::SkipCounter::Get()->Count((hlx_isa_t)lv);
      continue;
    }
    hlx_cpu_set_max_isa((hlx_isa_t)lv);
    CheckPermutation({37, 45}, {1, 0}, 4);
    CheckPermutation({64, 128}, {1, 0}, 4);
    CheckPermutation({3, 20, 33}, {0, 2, 1}, 4);
    CheckPermutation({20, 3, 33}, {2, 1, 0}, 4);
    CheckPermutation({5, 17, 19, 2}, {3, 2, 0, 1}, 4);
    CheckPermutation({16, 16}, {1, 0}, 8);   // no 8-byte kernel: reference
    CheckPermutation({4, 40}, {1, 0}, 4);    // a dim below the tile minimum
    CheckPermutation({0, 40}, {1, 0}, 4);    // empty
    hlx_cpu_set_max_isa(HLX_ISA_COUNT);
  }
}

}  // namespace
