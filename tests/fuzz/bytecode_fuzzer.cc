// libFuzzer target for the MLIR bytecode reader: parse -> verify/lower ->
// print -> parse the text, and the two modules must agree. Any crash, leak
// or sanitizer report is a bug.
//   bazel build --config=fuzz //tests/fuzz:bytecode_fuzzer
//   mkdir -p /tmp/hlx-bc && cp ../shared/jax_exports/*.mlirbc /tmp/hlx-bc/
//   bazel-bin/tests/fuzz/bytecode_fuzzer -max_total_time=60 /tmp/hlx-bc
// tests/fuzz/replay_test.cc runs the same entry point over those files and
// truncated/byte-flipped variants in every ordinary `bazel test`.
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  hlx_fuzz_bytecode_one_input(data, size);
  return 0;
}
