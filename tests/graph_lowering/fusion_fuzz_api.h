// The fusion net's run through the public API, in its own translation
// unit: api/hlx.h and the internal kernel headers both name the op enums.
#ifndef HLX_TESTS_GRAPH_LOWERING_FUSION_FUZZ_API_H_
#define HLX_TESTS_GRAPH_LOWERING_FUSION_FUZZ_API_H_

#include <string>
#include <vector>

namespace fnet {

// The results of @main of `text` on `in` (one byte vector per parameter,
// row-major) compiled with default options (every fusion on) on a private
// pool of 2 threads; empty when any step fails, with *err saying why.
std::vector<std::vector<unsigned char>> RunApi(
    const std::string& text, const std::vector<std::vector<unsigned char>>& in,
    std::string* err);

}  // namespace fnet

#endif  // HLX_TESTS_GRAPH_LOWERING_FUSION_FUZZ_API_H_
