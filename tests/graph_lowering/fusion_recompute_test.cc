// Recomputing cheap producers in fusion (graph/passes/fusion.c): a reduce group's
// cheap elementwise chain read by one later group is recomputed there, so
// the reduce group writes only its reduction. Exact group membership on
// small programs (and the cases that must keep the value), and fused plans
// against unfused ones and against HLX_NO_FUSION_RECOMPUTE=1 on random
// inputs with NaN/Inf, odd sizes and broadcasts.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

extern "C" {
#include "graph/passes/fusion.h"
}
#include "tests/graph_lowering/plan_run.h"

extern "C" bool hlx_lower_fusion_reduce_ok(const hlx_op_t* op);

namespace {

using namespace plan_run;

std::string Subst(std::string s, const std::string& key, const std::string& v) {
  for (size_t p; (p = s.find(key)) != std::string::npos;)
    s.replace(p, key.size(), v);
  return s;
}

struct Group {
  std::set<std::string> members;
  bool keeps_value;
  bool operator<(const Group& o) const {
    return members != o.members ? members < o.members
                                : keeps_value < o.keeps_value;
  }
  bool operator==(const Group& o) const {
    return members == o.members && keeps_value == o.keeps_value;
  }
};

// Groups of @main's body (member result names, whether the elementwise
// value is written), with HLX_NO_FUSION_RECOMPUTE set when !recompute.
std::set<Group> GroupsOf(const std::string& text, bool recompute) {
  hlx_module_t* m = nullptr;
  hlx_status_t s = hlx_parse_module(text.data(), text.size(), "t", 1, &m);
  EXPECT_EQ(s, nullptr) << (s ? hlx_status_message(s) : "");
  hlx_status_free(s);
  std::set<Group> out;
  if (!m) return out;
  const hlx_func_t* f = hlx_module_entry(m);
  const hlx_block_t* b = f->body->blocks[0];
  if (!recompute) setenv("HLX_NO_FUSION_RECOMPUTE", "1", 1);
  hlx_fusion_t* fu = nullptr;
  s = hlx_fusion_analyze(b, f->num_values, nullptr, hlx_lower_fusion_reduce_ok,
                         &fu);
  unsetenv("HLX_NO_FUSION_RECOMPUTE");
  EXPECT_EQ(s, nullptr);
  hlx_status_free(s);
  for (int32_t g = 0; fu && g < fu->num_groups; g++) {
    Group gr;
    for (int32_t k = fu->start[g]; k < fu->start[g + 1]; k++)
      gr.members.insert(b->ops[fu->member[k]]->results[0]->name);
    EXPECT_EQ(fu->member[fu->start[g + 1] - 1], fu->root[g]);
    gr.keeps_value = fu->keeps_value[g];
    out.insert(gr);
  }
  hlx_fusion_destroy(fu);
  hlx_module_destroy(m);
  return out;
}

// Softmax as jax writes it: s = x * scale; max; exp(s - max); sum; divide.
// {N}x{M} rows; a per-column bias makes the chain two broadcasts long.
const char* kSoftmax = R"(
  func.func @main(%x: tensor<{N}x{M}xf32>, %bias: tensor<{M}xf32>) -> tensor<{N}x{M}xf32> {
    %c = stablehlo.constant dense<0.125> : tensor<f32>
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %cb = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<{N}x{M}xf32>
    %bb = stablehlo.broadcast_in_dim %bias, dims = [1] : (tensor<{M}xf32>) -> tensor<{N}x{M}xf32>
    %m0 = stablehlo.multiply %x, %cb : tensor<{N}x{M}xf32>
    %s = stablehlo.add %m0, %bb : tensor<{N}x{M}xf32>
    %mx = stablehlo.reduce(%s init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<{N}x{M}xf32>, tensor<f32>) -> tensor<{N}xf32>
    %mb = stablehlo.broadcast_in_dim %mx, dims = [0] : (tensor<{N}xf32>) -> tensor<{N}x{M}xf32>
    %d = stablehlo.subtract %s, %mb : tensor<{N}x{M}xf32>
    %e = stablehlo.exponential %d : tensor<{N}x{M}xf32>
    %sum = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<{N}x{M}xf32>, tensor<f32>) -> tensor<{N}xf32>
    %sb = stablehlo.broadcast_in_dim %sum, dims = [0] : (tensor<{N}xf32>) -> tensor<{N}x{M}xf32>
    %y = stablehlo.divide %e, %sb : tensor<{N}x{M}xf32>
    return %y : tensor<{N}x{M}xf32>
  })";

std::string Softmax(const char* n, const char* m) {
  return Subst(Subst(kSoftmax, "{N}", n), "{M}", m);
}

TEST(FusionRecompute, SoftmaxChainJoinsItsReader) {
  std::string t = Softmax("4", "6");
  // The exp group recomputes %s; the max group writes only the max; the
  // exp value (not cheap) is still written for the divide.
  EXPECT_EQ(GroupsOf(t, true),
            (std::set<Group>{{{"cb", "bb", "m0", "s", "mx"}, false},
                             {{"cb", "bb", "m0", "s", "mb", "d", "e", "sum"},
                              true},
                             {{"sb", "y"}, true}}));
  EXPECT_EQ(GroupsOf(t, false),
            (std::set<Group>{{{"cb", "bb", "m0", "s", "mx"}, true},
                             {{"mb", "d", "e", "sum"}, true},
                             {{"sb", "y"}, true}}));
}

TEST(FusionRecompute, ValueKeptWhenNotCheapOrReadElsewhere) {
  // exp in the chain: not cheap.
  std::string t = Subst(Softmax("4", "6"),
                        "%s = stablehlo.add %m0, %bb",
                        "%s0 = stablehlo.add %m0, %bb : tensor<4x6xf32>\n"
                        "    %s = stablehlo.exponential %s0");
  int found = 0;
  for (const Group& g : GroupsOf(t, true))
    if (g.members.count("mx")) {
      found++;
      EXPECT_TRUE(g.keeps_value);
      EXPECT_EQ(g.members.count("d"), 0u);
    }
  EXPECT_EQ(found, 1);
  // %s also returned: the value must be written anyway.
  std::string r = Subst(Subst(Softmax("4", "6"), "return %y : tensor<4x6xf32>",
                              "return %y, %s : tensor<4x6xf32>, tensor<4x6xf32>"),
                        "-> tensor<4x6xf32> {", "-> (tensor<4x6xf32>, tensor<4x6xf32>) {");
  EXPECT_EQ(GroupsOf(r, true), GroupsOf(r, false));
  // %s read by two groups (a second exp chain feeding another sum).
  std::string two = Subst(
      Softmax("4", "6"), "    return %y",
      "    %d2 = stablehlo.subtract %mb, %s : tensor<4x6xf32>\n"
      "    %e2 = stablehlo.exponential %d2 : tensor<4x6xf32>\n"
      "    %z = stablehlo.add %y, %e2 : tensor<4x6xf32>\n"
      "    return %z");
  EXPECT_EQ(GroupsOf(two, true), GroupsOf(two, false));
}

// Fused with recomputation vs fused without it (bit-identical: same
// kernels on the same inputs) and vs unfused (within float rounding of
// the reduction order).
void CheckMatches(const std::string& text, unsigned seed) {
  SCOPED_TRACE(text);
  Lowered rc, norc, plain;
  ASSERT_TRUE(LowerWith(text, nullptr, true, &rc));
  ASSERT_TRUE(LowerWith(text, "HLX_NO_FUSION_RECOMPUTE", true, &norc));
  ASSERT_TRUE(LowerWith(text, nullptr, false, &plain));
  EXPECT_EQ(Tasks(rc.main()), Tasks(norc.main()));
  const hlx_func_t* f = hlx_module_entry(rc.module);
  Buffers in = RandomArgs(f, seed, 1);
  Buffers a = RunPlan(rc.main(), in), b = RunPlan(norc.main(), in),
          c = RunPlan(plain.main(), in);
  size_t n = (size_t)hlx_type_num_elements(f->result_types[0]);
  EXPECT_EQ(MaxRel(HLX_DTYPE_F32, a[0], b[0], n), 0);
  EXPECT_LE(MaxRel(HLX_DTYPE_F32, a[0], c[0], n), 1e-5);
}

// Two rounds of reduce-and-combine over cheap ops: the first group's chain
// (%0) could be recomputed by the second group, whose own chain (%2, %3,
// reading %0) could be recomputed by the third. Both at once left %0
// written by nobody (the first group gave it up to the second) yet read
// by the third: "value %0 is used before it is defined" (found by the
// fusion net, fusion_fuzz_test). Now a group either recomputes another's
// chain or gives its own away: the third group recomputes %2 and %3 and
// reads %0, which the first group writes.
const char* kTwoRounds = R"(
  func.func @main(%p: tensor<{N}x{M}xf32>) -> tensor<{N}x{M}xf32> {
    %0 = stablehlo.multiply %p, %p : tensor<{N}x{M}xf32>
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %ninf) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<{N}x{M}xf32>, tensor<f32>) -> tensor<f32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<{N}x{M}xf32>
    %3 = stablehlo.maximum %0, %2 : tensor<{N}x{M}xf32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %4 = stablehlo.reduce(%3 init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<{N}x{M}xf32>, tensor<f32>) -> tensor<f32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [] : (tensor<f32>) -> tensor<{N}x{M}xf32>
    %6 = stablehlo.add %3, %5 : tensor<{N}x{M}xf32>
    return %6 : tensor<{N}x{M}xf32>
  })";

TEST(FusionRecompute, NoRecomputeOfARecomputingGroup) {
  std::string t = Subst(Subst(kTwoRounds, "{N}", "4"), "{M}", "6");
  EXPECT_EQ(GroupsOf(t, true),
            (std::set<Group>{{{"0", "1"}, true},
                             {{"2", "3", "4"}, false},
                             {{"2", "3", "5", "6"}, true}}));
  const char* sizes[][2] = {{"1", "1"}, {"129", "64"}};
  unsigned seed = 40;
  for (auto& s : sizes)
    CheckMatches(Subst(Subst(kTwoRounds, "{N}", s[0]), "{M}", s[1]), seed++);
}

TEST(FusionRecompute, SoftmaxMatchesAtOddSizes) {
  // One element, a tail inside one tile, rows longer than a tile, the
  // chess attention row (79) over several tiles.
  const char* sizes[][2] = {{"1", "1"}, {"7", "13"}, {"3", "1031"},
                            {"264", "79"}};
  unsigned seed = 1;
  for (auto& s : sizes) CheckMatches(Softmax(s[0], s[1]), seed++);
}

}  // namespace
