// Replays the fuzz target over a seed corpus: every program of a sample of
// conformance files and XLA HLO files (../shared/hlo), plus truncated and
// byte-flipped variants of each. The
// entry point must never crash (run under --config=asan too) and valid
// programs must round-trip.
#include <gtest/gtest.h>

#include <dirent.h>

#include <algorithm>
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
          hlx_test::ModelsDir() + "/searchless_chess_9m.mlir",
          hlx_test::SharedDir() + "/hlo/graphsage_tf.hlo",
          hlx_test::SharedDir() + "/hlo/translate__fusion.hlo",
          hlx_test::SharedDir() + "/hlo/transforms__rng_expander.hlo"};
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

// JAX's exported bytecode (../shared/jax_exports/*.mlirbc): every file
// round-trips through the fuzz entry point, and truncations at 64 points
// and 256 single-byte corruptions of each are rejected cleanly or parse to
// a module that still round-trips.
TEST(FuzzReplay, BytecodeSeedsAndMutants) {
  std::string dir = hlx_test::SharedDir() + "/jax_exports";
  std::vector<std::string> files;
  if (DIR* d = opendir(dir.c_str())) {
    while (struct dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n.size() > 7 && n.compare(n.size() - 7, 7, ".mlirbc") == 0)
        files.push_back(dir + "/" + n);
    }
    closedir(d);
  }
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty()) << "no .mlirbc files in " << dir;
  int mutants = 0;
  for (const std::string& path : files) {
    std::string data = Read(path);
    auto run = [](const std::string& b) {
      return hlx_fuzz_bytecode_one_input(reinterpret_cast<const uint8_t*>(b.data()),
                                         b.size());
    };
    EXPECT_EQ(run(data), "") << path;
    for (int k = 0; k < 64; k++) {
      EXPECT_EQ(run(data.substr(0, data.size() * (size_t)k / 64)), "") << path;
      mutants++;
    }
    for (int k = 0; k < 256; k++) {
      std::string bad = data;
      size_t at = ((size_t)k * 7919u + 13u) % bad.size();
      bad[at] = static_cast<char>(bad[at] ^ "\x01\x80\xff\x10"[k % 4]);
      EXPECT_EQ(run(bad), "") << path << " flip at " << at;
      mutants++;
    }
  }
  std::printf("bytecode replay: %zu files, %d mutants\n", files.size(), mutants);
}

}  // namespace
