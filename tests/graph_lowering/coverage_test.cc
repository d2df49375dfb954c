// Every op of graph/ir/ops.inc must have a lowering, except those listed in
// kNotYetLowered below. The list is a ratchet: the test fails when a listed
// op gains a lowering (delete it from the list) or an unlisted op lacks one.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "graph/ir/ir.h"
#include "graph/lower/lower.h"

namespace {

const std::set<std::string> kNotYetLowered = {
#include "tests/graph_lowering/not_yet_lowered.inc"
};

TEST(Coverage, EveryOpHasALoweringOrIsListed) {
  std::vector<std::string> missing, stale;
  int lowered = 0;
  for (int op = 1; op < HLX_OP_COUNT; op++) {
    std::string name = hlx_opcode_name(static_cast<hlx_opcode_t>(op));
    bool has = hlx_lower_supports(static_cast<hlx_opcode_t>(op));
    bool listed = kNotYetLowered.count(name) > 0;
    if (has) lowered++;
    if (!has && !listed) missing.push_back(name);
    if (has && listed) stale.push_back(name);
  }
  std::printf("ops with a lowering: %d of %d\n", lowered, HLX_OP_COUNT - 1);
  for (const auto& m : missing) std::printf("MISSING %s\n", m.c_str());
  for (const auto& s : stale)
    std::printf("NOW LOWERED %s (remove it from not_yet_lowered.inc)\n",
                s.c_str());
  EXPECT_TRUE(missing.empty());
  EXPECT_TRUE(stale.empty());
}

}  // namespace
