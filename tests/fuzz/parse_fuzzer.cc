// libFuzzer target: parse -> verify/lower -> print -> parse again, and the
// two parses must agree. Any crash, leak or sanitizer report is a bug.
//   bazel build --config=fuzz //tests/fuzz:parse_fuzzer
//   bazel-bin/tests/fuzz/parse_fuzzer -max_total_time=60 CORPUS_DIR
// tests/fuzz/replay_test.cc runs the same entry point over a seed corpus
// built from the conformance files in every ordinary `bazel test`.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  hlx_fuzz_one_input(data, size);
  return 0;
}
