// Truncated, corrupted and adversarial HLO text gives a status naming
// file:line:col, never a crash (run under --config=asan too); what still
// parses round-trips through the HLO printer.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "tests/hlo/hlo_test_util.h"

namespace {

using hlx_test::Module;

// Seeds covering the syntax: header, computations used as regions and
// called, tuples, layouts, literals, windows, dim labels, conditionals.
const char* kSeeds[] = {
    R"(HloModule seed, entry_computation_layout={(f32[4,4]{1,0}, s32[])->(f32[2,2]{1,0}, s32[])}

%max (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %m = f32[] maximum(f32[] %a, f32[] %b)
}

%cond {
  %s = (s32[], f32[4,4]) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %n = s32[] constant(3)
  ROOT %lt = pred[] compare(%i, %n), direction=LT, type=SIGNED
}

%body {
  %s = (s32[], f32[4,4]) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %v = f32[4,4]{1,0} get-tuple-element(%s), index=1
  %one = s32[] constant(1)
  %j = s32[] add(%i, %one)
  %w = f32[4,4] multiply(%v, %v)
  ROOT %t = (s32[], f32[4,4]) tuple(%j, %w)
}

ENTRY %main (x: f32[4,4], k: s32[]) -> (f32[2,2], s32[]) {
  %x = f32[4,4]{1,0} parameter(0), metadata={op_name="x"}
  %k = s32[] parameter(1)
  %c = f32[4,4]{1,0} constant({{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}, {-inf, nan, 0.5, -0}})
  %s = f32[4,4] add(%x, %c)
  %t = (s32[], f32[4,4]) tuple(%k, %s)
  %l = (s32[], f32[4,4]) while(%t), condition=%cond, body=%body
  %v = f32[4,4] get-tuple-element(%l), index=1
  %lo = f32[] constant(-inf)
  %r = f32[2,2] reduce-window(%v, %lo), window={size=2x2 stride=2x2 pad=0_0x0_0}, to_apply=%max
  ROOT %out = (f32[2,2], s32[]) tuple(%r, %k)
})",
    R"(add {
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  ROOT r = f32[] add(p, q)
}
neg {
  p = f32[1,3,3,2] parameter(0)
  ROOT n = f32[1,3,3,2] negate(p)
}
ENTRY e {
  x = f32[1,4,4,2] parameter(0)
  k = f32[2,2,2,2] parameter(1)
  p = pred[] parameter(2)
  c = f32[1,3,3,2] convolution(x, k), window={size=2x2}, dim_labels=b01f_01io->b01f, operand_precision={high,default}
  i = s32[3,1] constant({{0}, {2}, {1}})
  g = f32[3,3,2] gather(c, i), offset_dims={1,2}, collapsed_slice_dims={0}, start_index_map={1}, index_vector_dim=1, slice_sizes={1,1,3,2}
  z = f32[] constant(0)
  s = f32[3] reduce(g, z), dimensions={1,2}, to_apply=add
  d = f32[1,3,3,2] conditional(p, c, c), true_computation=neg, false_computation=neg
  ROOT t = (f32[3], f32[1,3,3,2], u4[2], bf16[2]) tuple(s, d, u4[2] constant({1, 15}), bf16[2] constant({1.5, -2}))
})",
};

bool HasPosition(const std::string& msg) {
  static const std::regex kPos("test\\.hlo:[0-9]+:[0-9]+: ");
  return std::regex_search(msg, kPos) || msg.find("out of memory") != std::string::npos;
}

void Check(const std::string& text, int* parsed, int* rejected) {
  Module m;
  std::string err = hlx_test::ParseHlo(text, &m);
  if (err.empty()) {
    (*parsed)++;
    EXPECT_EQ(hlx_test::HloRoundTrip(m.get()), "") << text;
  } else {
    (*rejected)++;
    EXPECT_TRUE(HasPosition(err)) << err << "\ninput:\n" << text;
  }
}

TEST(HloRobustness, TruncatedAndCorruptedSeeds) {
  int parsed = 0, rejected = 0;
  for (const char* seed : kSeeds) {
    std::string s = seed;
    Module m;
    ASSERT_EQ(hlx_test::ParseHlo(s, &m), "");
    ASSERT_EQ(hlx_test::HloRoundTrip(m.get()), "");
    for (size_t cut = 0; cut < s.size(); cut += 7) Check(s.substr(0, cut), &parsed, &rejected);
    const char kBad[] = "{}()[],=:%x0-_.\"/*<>?\n";
    for (size_t at = 3, k = 0; at < s.size(); at += 13, k++) {
      std::string bad = s;
      bad[at] = kBad[k % (sizeof kBad - 1)];
      Check(bad, &parsed, &rejected);
      std::string dropped = s;
      dropped.erase(at, 1 + k % 5);
      Check(dropped, &parsed, &rejected);
    }
  }
  EXPECT_GT(rejected, 200);
  EXPECT_GT(parsed, 0);
}

TEST(HloRobustness, AdversarialInputs) {
  std::string deep_tuple = "ENTRY e {\n  ROOT x = ";
  for (int i = 0; i < 5000; i++) deep_tuple += "(";
  std::string deep_attr = "ENTRY e {\n  x = f32[] parameter(0), metadata=";
  for (int i = 0; i < 5000; i++) deep_attr += "{";
  std::string long_name = "ENTRY e {\n  " + std::string(100000, 'a') +
                          " = f32[] parameter(0)\n}\n";
  std::string nul = std::string("ENTRY e {\n  x = f32[] parameter(0)\0\n}\n", 35);
  const std::string inputs[] = {
      deep_tuple,
      deep_attr,
      long_name,
      nul,
      "ENTRY e {\n  ROOT c = f32[1000000000,1000000000,1000] constant({...})\n}",
      "ENTRY e {\n  ROOT c = f32[99999999999999999999] parameter(0)\n}",
      "ENTRY e {\n  ROOT c = f32[2] constant({1, 2, 3})\n}",
      "ENTRY e {\n  ROOT c = f32[] constant({...})\n}",
      "ENTRY e {\n  ROOT c = f32[] constant(nan(0x0))\n}",
      "ENTRY e {\n  ROOT c = s4[] constant(8)\n}",
      "ENTRY e {\n  ROOT c = (f32[], s32[]) constant((1, 2))\n}",
      "ENTRY e {\n  ROOT p = f32[] parameter(-1)\n}",
      "ENTRY e {\n  p = f32[] parameter(0)\n  ROOT q = f32[] parameter(0)\n}",
      "c {\n  p = f32[] parameter(0)\n  ROOT r = f32[] reduce(p, p), dimensions={}, to_apply=c\n}",
      "ENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=e\n}",
      "ENTRY e {\n  p = f32[4] parameter(0)\n  ROOT b = f32[5] bitcast(p)\n}",
      "ENTRY e {\n  p = f32[4] parameter(0)\n  ROOT r = f32[4] all-reduce(p), replica_groups=[2,3]<=[4], to_apply=x\n}",
      "ENTRY e {\n  p = f32[4] parameter(0)\n  ROOT r = f32[4] all-gather(p), replica_groups=[2,2]<=[2,2]T(0,0), dimensions={0}\n}",
      "ENTRY e {\n  p = f32[4,4] parameter(0)\n  ROOT c = f32[4,4] convolution(p, p), window={size=1x1 stride=1x1x1}, dim_labels=bf_io->bf\n}",
      "ENTRY e {\n  p = f32[4] parameter(0)\n  ROOT s = f32[2] slice(p), slice={[0:2:1:1]}\n}",
      "ENTRY e {\n  p = f32[4] parameter(0)\n  z = f32[] constant(0)\n  ROOT s = f32[6] pad(p, z), padding=1_1_1_1\n}",
      "ENTRY e {\n  p = f32[4] parameter(0)\n  ROOT s = f32[4] add(p, p), metadata={op_name=\"unterminated\n}",
      "ENTRY e {\n  p = pred[] parameter(0)\n  ROOT c = f32[] conditional(p, p), branch_computations={}\n}",
      "HloModule m, entry_computation_layout={(f32[2]{0})->f32[2]{0}\nENTRY e {\n  ROOT p = f32[2] parameter(0)\n}",
      "ENTRY e {\n  ROOT t = token[2] after-all()\n}",
      "ENTRY e {\n  ROOT p = opaque[] parameter(0)\n}",
  };
  for (const std::string& in : inputs) {
    Module m;
    std::string err = hlx_test::ParseHlo(in, &m);
    if (err.empty()) {
      EXPECT_EQ(hlx_test::HloRoundTrip(m.get()), "") << in.substr(0, 200);
    } else {
      EXPECT_TRUE(HasPosition(err)) << err << "\ninput: " << in.substr(0, 200);
    }
  }
}

// Operand counts the op's StableHLO form does not take stop at parse,
// with the instruction's position, as in the StableHLO parser.
TEST(HloRobustness, WrongOperandCountsAreRefusedAtParse) {
  const char* inputs[] = {
      "ENTRY e {\n  p = f32[4] parameter(0)\n  ROOT s = f32[4] add(p)\n}",
      "ENTRY e {\n  p = f32[4] parameter(0)\n  ROOT s = f32[4] negate(p, p)\n}",
      "ENTRY e {\n  p = pred[4] parameter(0)\n  ROOT s = pred[4] select(p, p)\n}",
  };
  for (const char* in : inputs) {
    Module m;
    std::string err = hlx_test::ParseHlo(in, &m);
    EXPECT_NE(err.find(":3:"), std::string::npos) << err << "\ninput: " << in;
    EXPECT_NE(err.find("expects"), std::string::npos) << err;
  }
}

}  // namespace
