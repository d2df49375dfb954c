// Replays the fuzz target over a seed corpus: every program of a sample of
// conformance files, plus truncated and byte-flipped variants of each. The
// entry point must never crash (run under --config=asan too) and valid
// programs must round-trip.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/data_paths.h"
#include "tests/fuzz/fuzz_target.h"

namespace {

std::vector<std::string> SeedFiles() {
  std::string c = hlx_test::ConformanceDir();
  return {c + "/interpret/add.mlir",       c + "/interpret/while.mlir",
          c + "/interpret/scatter.mlir",   c + "/interpret/convolution.mlir",
          c + "/interpret/sort.mlir",      c + "/interpret/quantized_ops.mlir",
          c + "/testdata/abs_float32_20_20.mlir",
          hlx_test::ModelsDir() + "/searchless_chess_9m.mlir"};
}

std::string Read(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(FuzzReplay, SeedsRoundTripAndMutantsDoNotCrash) {
  int seeds = 0, mutants = 0;
  for (const std::string& path : SeedFiles()) {
    std::string text = Read(path);
    ASSERT_FALSE(text.empty()) << "missing seed " << path;
    std::vector<hlx_text_chunk_t> chunks(
        hlx_split_programs(text.data(), text.size(), nullptr, 0));
    hlx_split_programs(text.data(), text.size(), chunks.data(),
                       (int)chunks.size());
    for (const hlx_text_chunk_t& c : chunks) {
      std::string prog(c.text, c.len);
      EXPECT_EQ(hlx_fuzz_one_input(
                    reinterpret_cast<const uint8_t*>(prog.data()), prog.size()),
                "")
          << path << ":" << c.first_line;
      seeds++;
      // Truncations at 16 cut points and 16 single-byte corruptions.
      for (int k = 1; k <= 16; k++) {
        std::string cut = prog.substr(0, prog.size() * k / 17);
        hlx_fuzz_one_input(reinterpret_cast<const uint8_t*>(cut.data()),
                           cut.size());
        std::string bad = prog;
        size_t at = (prog.size() * (size_t)k * 7919u / 17u) % (prog.size() + 1);
        if (at < bad.size()) bad[at] = "{}()<>:%@\"x0,-]"[k % 15];
        hlx_fuzz_one_input(reinterpret_cast<const uint8_t*>(bad.data()),
                           bad.size());
        mutants += 2;
      }
    }
  }
  EXPECT_GT(seeds, 20);
  std::printf("fuzz replay: %d seeds, %d mutants\n", seeds, mutants);
}

}  // namespace
