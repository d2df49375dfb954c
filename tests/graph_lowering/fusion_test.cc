// Elementwise fusion: the groups graph/passes/fusion.c finds on small programs
// (exact membership), and fused plans (graph/lower/opt/fusion.c +
// kernels/fused_elementwise.h) against unfused ones (HLX_NO_FUSION=1) on
// random inputs with broadcasts, converts, select/compare, clamp, NaN/Inf,
// odd sizes and tile tails, for f32/f64/i32/bf16/f16; and the chess
// transformer fused vs unfused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <limits>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

extern "C" {
#include "base/parallel.h"
#include "graph/passes/fusion.h"
#include "graph/lower/lower.h"
#include "graph/stablehlo/parser.h"
#include "kernels/elementwise.h"
}
#include "tests/data_paths.h"

// The lowering's predicate for reduces a group may absorb
// (graph/lower/opt/fusion.c).
extern "C" bool hlx_lower_fusion_reduce_ok(const hlx_op_t* op);

namespace {

using Groups = std::set<std::set<std::string>>;

struct Parsed {
  hlx_module_t* module = nullptr;
  ~Parsed() { hlx_module_destroy(module); }
};

bool Parse(const std::string& text, Parsed* p) {
  hlx_status_t s = hlx_parse_module(text.data(), text.size(), "t", 1, &p->module);
  if (s) {
    ADD_FAILURE() << hlx_status_message(s);
    hlx_status_free(s);
    return false;
  }
  return true;
}

// Groups of block b as sets of member result names (without '%').
Groups GroupsOf(const hlx_func_t* f, const hlx_block_t* b) {
  hlx_fusion_t* fu = nullptr;
  hlx_status_t s = hlx_fusion_analyze(b, f->num_values, nullptr,
                                      hlx_lower_fusion_reduce_ok, &fu);
  EXPECT_EQ(s, nullptr);
  hlx_status_free(s);
  Groups out;
  if (!fu) return out;
  for (int32_t g = 0; g < fu->num_groups; g++) {
    std::set<std::string> names;
    for (int32_t m = fu->start[g]; m < fu->start[g + 1]; m++)
      names.insert(b->ops[fu->member[m]]->results[0]->name);
    // The root is the last member in program order.
    EXPECT_EQ(fu->member[fu->start[g + 1] - 1], fu->root[g]);
    out.insert(names);
  }
  hlx_fusion_destroy(fu);
  return out;
}

Groups MainGroups(const std::string& text) {
  Parsed p;
  if (!Parse(text, &p)) return {};
  const hlx_func_t* f = hlx_module_entry(p.module);
  return GroupsOf(f, f->body->blocks[0]);
}

TEST(FusionAnalysis, ChainWithScalarBroadcast) {
  EXPECT_EQ(MainGroups(R"(
    func.func @main(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
      %s = stablehlo.constant dense<2.0> : tensor<f32>
      %b = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
      %0 = stablehlo.multiply %x, %b : tensor<4x8xf32>
      %1 = stablehlo.exponential %0 : tensor<4x8xf32>
      %2 = stablehlo.add %1, %y : tensor<4x8xf32>
      return %2 : tensor<4x8xf32>
    })"),
            (Groups{{"b", "0", "1", "2"}}));
}

TEST(FusionAnalysis, MultiUseInsideJoinsOutsideEndsGroup) {
  // %0 is used twice, both times inside: it joins.
  EXPECT_EQ(MainGroups(R"(
    func.func @main(%x: tensor<5xf32>, %y: tensor<5xf32>) -> tensor<5xf32> {
      %0 = stablehlo.exponential %x : tensor<5xf32>
      %1 = stablehlo.add %0, %y : tensor<5xf32>
      %2 = stablehlo.multiply %0, %1 : tensor<5xf32>
      return %2 : tensor<5xf32>
    })"),
            (Groups{{"0", "1", "2"}}));
  // %0 is also returned: it ends the group (and alone is no group).
  EXPECT_EQ(MainGroups(R"(
    func.func @main(%x: tensor<5xf32>, %y: tensor<5xf32>) -> (tensor<5xf32>, tensor<5xf32>) {
      %0 = stablehlo.exponential %x : tensor<5xf32>
      %1 = stablehlo.add %0, %y : tensor<5xf32>
      %2 = stablehlo.multiply %0, %1 : tensor<5xf32>
      return %2, %0 : tensor<5xf32>, tensor<5xf32>
    })"),
            (Groups{{"1", "2"}}));
}

TEST(FusionAnalysis, BroadcastChainsReductionsAndDotsSplitGroups) {
  EXPECT_EQ(MainGroups(R"(
    func.func @main(%x: tensor<3x4x5xf32>, %w: tensor<5x5xf32>) -> tensor<3x4x5xf32> {
      %c = stablehlo.constant dense<0.0> : tensor<f32>
      %m = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [2] : (tensor<3x4x5xf32>, tensor<f32>) -> tensor<3x4xf32>
      %a = stablehlo.broadcast_in_dim %m, dims = [0, 1] : (tensor<3x4xf32>) -> tensor<3x4x1xf32>
      %b = stablehlo.broadcast_in_dim %a, dims = [0, 1, 2] : (tensor<3x4x1xf32>) -> tensor<3x4x5xf32>
      %0 = stablehlo.subtract %x, %b : tensor<3x4x5xf32>
      %1 = stablehlo.exponential %0 : tensor<3x4x5xf32>
      %d = stablehlo.dot_general %1, %w, contracting_dims = [2] x [0] : (tensor<3x4x5xf32>, tensor<5x5xf32>) -> tensor<3x4x5xf32>
      %2 = stablehlo.negate %d : tensor<3x4x5xf32>
      %3 = stablehlo.tanh %2 : tensor<3x4x5xf32>
      return %3 : tensor<3x4x5xf32>
    })"),
            (Groups{{"a", "b", "0", "1"}, {"2", "3"}}));
}

TEST(FusionAnalysis, ValueReadThroughBroadcastStaysAnInput) {
  // %0 feeds a transposing broadcast, which cannot read a tile register.
  EXPECT_EQ(MainGroups(R"(
    func.func @main(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
      %0 = stablehlo.exponential %x : tensor<4x4xf32>
      %t = stablehlo.broadcast_in_dim %0, dims = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
      %1 = stablehlo.add %0, %t : tensor<4x4xf32>
      return %1 : tensor<4x4xf32>
    })"),
            (Groups{{"t", "1"}}));
}

TEST(FusionAnalysis, ShapeChangesAndUnfusibleOpsEndGroups) {
  EXPECT_EQ(MainGroups(R"(
    func.func @main(%x: tensor<2x3xf32>, %p: tensor<2x3xi1>) -> tensor<3x2xf64> {
      %0 = stablehlo.abs %x : tensor<2x3xf32>
      %1 = stablehlo.sqrt %0 : tensor<2x3xf32>
      %r = stablehlo.reshape %1 : (tensor<2x3xf32>) -> tensor<3x2xf32>
      %2 = stablehlo.convert %r : (tensor<3x2xf32>) -> tensor<3x2xf64>
      %3 = stablehlo.negate %2 : tensor<3x2xf64>
      return %3 : tensor<3x2xf64>
    })"),
            (Groups{{"0", "1"}, {"2", "3"}}));
}

TEST(FusionAnalysis, ReduceOfTheRootJoins) {
  // Only reader: the values are never written.
  EXPECT_EQ(MainGroups(R"(
    func.func @main(%x: tensor<5x300xf32>, %y: tensor<5x300xf32>) -> tensor<5xf32> {
      %z = stablehlo.constant dense<0.0> : tensor<f32>
      %0 = stablehlo.subtract %x, %y : tensor<5x300xf32>
      %1 = stablehlo.multiply %0, %0 : tensor<5x300xf32>
      %r = stablehlo.reduce(%1 init: %z) applies stablehlo.add across dimensions = [1] : (tensor<5x300xf32>, tensor<f32>) -> tensor<5xf32>
      return %r : tensor<5xf32>
    })"),
            (Groups{{"0", "1", "r"}}));
  // First reader of a value also used later: it joins a one-op group.
  EXPECT_EQ(MainGroups(R"(
    func.func @main(%x: tensor<5x300xf32>) -> tensor<5x300xf32> {
      %m = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %0 = stablehlo.exponential %x : tensor<5x300xf32>
      %r = stablehlo.reduce(%0 init: %m) applies stablehlo.maximum across dimensions = [1] : (tensor<5x300xf32>, tensor<f32>) -> tensor<5xf32>
      %rb = stablehlo.broadcast_in_dim %r, dims = [0] : (tensor<5xf32>) -> tensor<5x300xf32>
      %2 = stablehlo.divide %0, %rb : tensor<5x300xf32>
      return %2 : tensor<5x300xf32>
    })"),
            (Groups{{"0", "r"}, {"rb", "2"}}));
  // Not over the trailing dims, or not the first reader: no.
  EXPECT_EQ(MainGroups(R"(
    func.func @main(%x: tensor<5x300xf32>) -> (tensor<300xf32>, tensor<5x300xf32>, tensor<5xf32>) {
      %z = stablehlo.constant dense<0.0> : tensor<f32>
      %0 = stablehlo.exponential %x : tensor<5x300xf32>
      %1 = stablehlo.negate %0 : tensor<5x300xf32>
      %r = stablehlo.reduce(%1 init: %z) applies stablehlo.add across dimensions = [0] : (tensor<5x300xf32>, tensor<f32>) -> tensor<300xf32>
      %2 = stablehlo.tanh %x : tensor<5x300xf32>
      %3 = stablehlo.abs %2 : tensor<5x300xf32>
      %n = stablehlo.negate %3 : tensor<5x300xf32>
      %s = stablehlo.reduce(%3 init: %z) applies stablehlo.add across dimensions = [1] : (tensor<5x300xf32>, tensor<f32>) -> tensor<5xf32>
      return %r, %n, %s : tensor<300xf32>, tensor<5x300xf32>, tensor<5xf32>
    })"),
            (Groups{{"0", "1"}, {"2", "3"}}));
}

// A while loop whose body holds a fusible chain ({S} elements).
const char* kWhileChain = R"(
    func.func @main(%x: tensor<{S}xf32>) -> tensor<{S}xf32> {
      %i0 = stablehlo.constant dense<0> : tensor<i32>
      %r0, %r1 = stablehlo.while(%a = %i0, %b = %x) : tensor<i32>, tensor<{S}xf32>
       cond {
        %n = stablehlo.constant dense<3> : tensor<i32>
        %c = stablehlo.compare LT, %a, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %c : tensor<i1>
      } do {
        %one = stablehlo.constant dense<1> : tensor<i32>
        %k = stablehlo.add %a, %one : tensor<i32>
        %h = stablehlo.constant dense<0.5> : tensor<f32>
        %hb = stablehlo.broadcast_in_dim %h, dims = [] : (tensor<f32>) -> tensor<{S}xf32>
        %m = stablehlo.multiply %b, %hb : tensor<{S}xf32>
        %s = stablehlo.sine %m : tensor<{S}xf32>
        stablehlo.return %k, %s : tensor<i32>, tensor<{S}xf32>
      }
      %e = stablehlo.exponential %r1 : tensor<{S}xf32>
      %f = stablehlo.add %e, %x : tensor<{S}xf32>
      return %f : tensor<{S}xf32>
    })";

std::string Subst(std::string s, const std::string& key, const std::string& v) {
  for (size_t p; (p = s.find(key)) != std::string::npos;) s.replace(p, key.size(), v);
  return s;
}

TEST(FusionAnalysis, NestedRegionBlocks) {
  Parsed p;
  ASSERT_TRUE(Parse(Subst(kWhileChain, "{S}", "6"), &p));
  const hlx_func_t* f = hlx_module_entry(p.module);
  const hlx_block_t* body = nullptr;
  for (int32_t i = 0; i < f->body->blocks[0]->num_ops; i++) {
    const hlx_op_t* op = f->body->blocks[0]->ops[i];
    if (op->num_regions == 2) body = op->regions[1]->blocks[0];
  }
  ASSERT_NE(body, nullptr);
  EXPECT_EQ(GroupsOf(f, body), (Groups{{"hb", "m", "s"}}));
}

// ---- fused vs unfused plans -------------------------------------------------

struct Lowered {
  Parsed parsed;
  hlx_lowered_module_t* lm = nullptr;
  ~Lowered() { hlx_lowered_module_destroy(lm); }
};

bool Lower(const std::string& text, bool fuse, Lowered* l) {
  if (!Parse(text, &l->parsed)) return false;
  hlx_lower_options_t opts = {};
  opts.disable_fusion = !fuse;
  hlx_status_t s = hlx_lower_module(l->parsed.module, &opts, &l->lm);
  if (s) {
    ADD_FAILURE() << hlx_status_message(s);
    hlx_status_free(s);
    return false;
  }
  return true;
}

int32_t FusedTasks(const hlx_plan_t* p) {
  int32_t n = 0;
  for (int32_t i = 0; i < p->num_tasks; i++)
    n += std::strncmp(p->tasks[i].name, "fused(", 6) == 0;
  return n;
}

// A pool stand-in that runs every chunk of a parallel_for one at a time,
// so the fused task's splitting is exercised deterministically.
int FourThreads(void*) { return 4; }
void SerialFor(void*, size_t n, size_t, hlx_parallel_fn fn, void* arg) {
  for (size_t i = 0; i < n; i++) fn(arg, i, i + 1);
}

std::vector<std::vector<unsigned char>> RunPlan(const hlx_plan_t* p,
                                            const std::vector<std::vector<unsigned char>>& in,
                                            bool split) {
  std::vector<const void*> params;
  for (auto& b : in) params.push_back(b.data());
  std::vector<std::vector<unsigned char>> out(p->num_results);
  std::vector<void*> res;
  for (int32_t i = 0; i < p->num_results; i++) {
    out[i].resize(p->slot_bytes[p->result_slots[i]] + 1);
    res.push_back(out[i].data());
  }
  hlx_parallel_t par = {nullptr, FourThreads, SerialFor};
  hlx_run_ctx_t ctx = {};
  ctx.sequential = true;
  if (split) ctx.parallel = &par;
  hlx_status_t s = hlx_plan_execute(p, params.data(), res.data(), &ctx);
  EXPECT_EQ(s, nullptr) << (s ? hlx_status_message(s) : "");
  hlx_status_free(s);
  return out;
}

// Random values of dtype t (specials mixed in for floats).
std::vector<unsigned char> Random(hlx_dtype_t t, size_t n, std::mt19937* rng,
                                  bool specials) {
  std::vector<unsigned char> b(n * hlx_dtype_size(t) + 1);
  std::vector<double> v(n);
  std::uniform_real_distribution<double> u(-3, 3);
  std::uniform_int_distribution<int> small(-20, 20), pick(0, 31);
  for (size_t i = 0; i < n; i++) {
    if (hlx_dtype_is_int(t) || t == HLX_DTYPE_PRED) {
      v[i] = t == HLX_DTYPE_PRED ? (small(*rng) > 0) : small(*rng);
      continue;
    }
    v[i] = u(*rng);
    int k = pick(*rng);
    if (specials && k == 0) v[i] = std::numeric_limits<double>::quiet_NaN();
    if (specials && k == 1) v[i] = std::numeric_limits<double>::infinity();
    if (specials && k == 2) v[i] = -std::numeric_limits<double>::infinity();
    if (specials && k == 3) v[i] = 0.0;
  }
  EXPECT_TRUE(hlx_ref_convert(HLX_DTYPE_F64, v.data(), t, b.data(), n));
  return b;
}

double Eps(hlx_dtype_t t) {
  switch (t) {
    case HLX_DTYPE_F64: return 1e-15;
    case HLX_DTYPE_F32: return 1e-6;
    case HLX_DTYPE_BF16: return 1e-2;
    case HLX_DTYPE_F16: return 2e-3;
    default: return 0;
  }
}

// Element-by-element: equal, both NaN, or (floats) within a few ULP.
void ExpectClose(hlx_dtype_t t, const std::vector<unsigned char>& a,
                 const std::vector<unsigned char>& b, size_t n) {
  std::vector<double> x(n), y(n);
  ASSERT_TRUE(hlx_ref_convert(t, a.data(), HLX_DTYPE_F64, x.data(), n));
  ASSERT_TRUE(hlx_ref_convert(t, b.data(), HLX_DTYPE_F64, y.data(), n));
  int bad = 0;
  for (size_t i = 0; i < n && bad < 5; i++) {
    bool ok = x[i] == y[i] || (std::isnan(x[i]) && std::isnan(y[i])) ||
              (std::isfinite(x[i]) && std::isfinite(y[i]) &&
               std::fabs(x[i] - y[i]) <= Eps(t) * std::fabs(y[i]) + 1e-300);
    if (!ok) {
      ADD_FAILURE() << "element " << i << ": fused " << x[i] << " unfused "
                    << y[i];
      bad++;
    }
  }
}


// Fuses `text` and checks it against the unfused plan on random inputs
// (sequential and split), expecting `groups` fused tasks.
void CheckFusedMatches(const std::string& text, int32_t groups, bool specials,
                       unsigned seed) {
  SCOPED_TRACE(text);
  Lowered fused, plain;
  ASSERT_TRUE(Lower(text, true, &fused));
  ASSERT_TRUE(Lower(text, false, &plain));
  const hlx_plan_t* pf = hlx_lowered_find(fused.lm, "main");
  const hlx_plan_t* pu = hlx_lowered_find(plain.lm, "main");
  EXPECT_EQ(FusedTasks(pf), groups);
  EXPECT_EQ(FusedTasks(pu), 0);
  EXPECT_LT(pf->num_tasks, pu->num_tasks);
  const hlx_func_t* f = hlx_module_entry(fused.parsed.module);
  const hlx_block_t* b = f->body->blocks[0];
  std::mt19937 rng(seed);
  std::vector<std::vector<unsigned char>> in;
  for (int32_t i = 0; i < b->num_args; i++) {
    const hlx_type_t* t = b->args[i]->type;
    in.push_back(Random(t->dtype, (size_t)hlx_type_num_elements(t), &rng,
                        specials));
  }
  auto want = RunPlan(pu, in, false);
  for (bool split : {false, true}) {
    auto got = RunPlan(pf, in, split);
    ASSERT_EQ(got.size(), want.size());
    for (size_t r = 0; r < got.size(); r++) {
      const hlx_type_t* t = f->result_types[r];
      ExpectClose(t->dtype, got[r], want[r], (size_t)hlx_type_num_elements(t));
    }
  }
}

// A float chain: row (bias) and column broadcasts, a scalar constant,
// exp/rsqrt/divide/maximum/negate, compare+select, clamp with scalar bounds,
// convert to f32 and back.
const char* kFloatChain = R"(
  func.func @main(%x: tensor<{N}x{M}x{T}>, %y: tensor<{N}x{M}x{T}>, %bias: tensor<{M}x{T}>, %col: tensor<{N}x{T}>) -> tensor<{N}x{M}x{T}> {
    %c = stablehlo.constant dense<0.5> : tensor<{T}>
    %lo = stablehlo.constant dense<-2.0> : tensor<{T}>
    %hi = stablehlo.constant dense<2.0> : tensor<{T}>
    %cb = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<{T}>) -> tensor<{N}x{M}x{T}>
    %bb = stablehlo.broadcast_in_dim %bias, dims = [1] : (tensor<{M}x{T}>) -> tensor<{N}x{M}x{T}>
    %kb = stablehlo.broadcast_in_dim %col, dims = [0] : (tensor<{N}x{T}>) -> tensor<{N}x{M}x{T}>
    %0 = stablehlo.multiply %x, %cb : tensor<{N}x{M}x{T}>
    %1 = stablehlo.add %0, %bb : tensor<{N}x{M}x{T}>
    %2 = stablehlo.exponential %1 : tensor<{N}x{M}x{T}>
    %3 = stablehlo.maximum %2, %y : tensor<{N}x{M}x{T}>
    %4 = stablehlo.rsqrt %3 : tensor<{N}x{M}x{T}>
    %5 = stablehlo.divide %4, %kb : tensor<{N}x{M}x{T}>
    %p = stablehlo.compare GT, %5, %y : (tensor<{N}x{M}x{T}>, tensor<{N}x{M}x{T}>) -> tensor<{N}x{M}xi1>
    %n = stablehlo.negate %5 : tensor<{N}x{M}x{T}>
    %6 = stablehlo.select %p, %5, %n : tensor<{N}x{M}xi1>, tensor<{N}x{M}x{T}>
    %7 = stablehlo.clamp %lo, %6, %hi : (tensor<{T}>, tensor<{N}x{M}x{T}>, tensor<{T}>) -> tensor<{N}x{M}x{T}>
    %8 = stablehlo.convert %7 : (tensor<{N}x{M}x{T}>) -> tensor<{N}x{M}xf32>
    %9 = stablehlo.sine %8 : tensor<{N}x{M}xf32>
    %10 = stablehlo.convert %9 : (tensor<{N}x{M}xf32>) -> tensor<{N}x{M}x{T}>
    %11 = stablehlo.subtract %10, %x : tensor<{N}x{M}x{T}>
    return %11 : tensor<{N}x{M}x{T}>
  })";

// An integer chain with a compare/select, a convert through f32 and a
// splat constant of full shape.
const char* kIntChain = R"(
  func.func @main(%x: tensor<{N}x{M}xi32>, %y: tensor<{N}x{M}xi32>, %r: tensor<{M}xi32>) -> tensor<{N}x{M}xi32> {
    %c = stablehlo.constant dense<3> : tensor<{N}x{M}xi32>
    %rb = stablehlo.broadcast_in_dim %r, dims = [1] : (tensor<{M}xi32>) -> tensor<{N}x{M}xi32>
    %0 = stablehlo.multiply %x, %c : tensor<{N}x{M}xi32>
    %1 = stablehlo.subtract %0, %rb : tensor<{N}x{M}xi32>
    %p = stablehlo.compare LT, %1, %y : (tensor<{N}x{M}xi32>, tensor<{N}x{M}xi32>) -> tensor<{N}x{M}xi1>
    %2 = stablehlo.select %p, %1, %y : tensor<{N}x{M}xi1>, tensor<{N}x{M}xi32>
    %3 = stablehlo.maximum %2, %x : tensor<{N}x{M}xi32>
    %f = stablehlo.convert %3 : (tensor<{N}x{M}xi32>) -> tensor<{N}x{M}xf32>
    %g = stablehlo.sqrt %f : tensor<{N}x{M}xf32>
    %4 = stablehlo.convert %g : (tensor<{N}x{M}xf32>) -> tensor<{N}x{M}xi32>
    %5 = stablehlo.xor %4, %3 : tensor<{N}x{M}xi32>
    return %5 : tensor<{N}x{M}xi32>
  })";

struct Size {
  const char* n;
  const char* m;
};
// Odd sizes: one element, a tail inside one tile, several tiles with a
// tail, and (split) more than the parallel threshold.
const Size kSizes[] = {{"1", "1"}, {"7", "13"}, {"3", "1031"}, {"33", "1029"}};

TEST(FusionRun, FloatChainMatchesUnfusedAllFloatTypes) {
  unsigned seed = 1;
  for (const char* t : {"f32", "f64", "bf16", "f16"})
    for (const Size& s : kSizes) {
      CheckFusedMatches(
          Subst(Subst(Subst(kFloatChain, "{N}", s.n), "{M}", s.m), "{T}", t),
          1, true, seed++);
    }
}

TEST(FusionRun, IntChainMatchesUnfused) {
  unsigned seed = 100;
  for (const Size& s : kSizes)
    CheckFusedMatches(Subst(Subst(kIntChain, "{N}", s.n), "{M}", s.m), 1, false,
                      seed++);
}

TEST(FusionRun, SoftmaxShapedBroadcastChain) {
  CheckFusedMatches(R"(
    func.func @main(%x: tensor<3x5x77xf32>) -> tensor<3x5x77xf32> {
      %c = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %m = stablehlo.reduce(%x init: %c) applies stablehlo.maximum across dimensions = [2] : (tensor<3x5x77xf32>, tensor<f32>) -> tensor<3x5xf32>
      %a = stablehlo.broadcast_in_dim %m, dims = [0, 1] : (tensor<3x5xf32>) -> tensor<3x5x1xf32>
      %b = stablehlo.broadcast_in_dim %a, dims = [0, 1, 2] : (tensor<3x5x1xf32>) -> tensor<3x5x77xf32>
      %0 = stablehlo.subtract %x, %b : tensor<3x5x77xf32>
      %1 = stablehlo.exponential %0 : tensor<3x5x77xf32>
      %z = stablehlo.constant dense<0.0> : tensor<f32>
      %s = stablehlo.reduce(%1 init: %z) applies stablehlo.add across dimensions = [2] : (tensor<3x5x77xf32>, tensor<f32>) -> tensor<3x5xf32>
      %sb = stablehlo.broadcast_in_dim %s, dims = [0, 1] : (tensor<3x5xf32>) -> tensor<3x5x77xf32>
      %2 = stablehlo.divide %1, %sb : tensor<3x5x77xf32>
      %t = stablehlo.broadcast_in_dim %2, dims = [0, 2, 1] : (tensor<3x5x77xf32>) -> tensor<3x77x5xf32>
      %3 = stablehlo.tanh %t : tensor<3x77x5xf32>
      %4 = stablehlo.broadcast_in_dim %3, dims = [0, 2, 1] : (tensor<3x77x5xf32>) -> tensor<3x5x77xf32>
      %5 = stablehlo.add %4, %x : tensor<3x5x77xf32>
      return %5 : tensor<3x5x77xf32>
    })",
                    4, true, 7);
}

// Reductions absorbed by groups: trailing-dim add/max over rows shorter
// and longer than a tile, two reduced dims, values kept or not, all float
// types and i32.
const char* kReduceChain = R"(
  func.func @main(%x: tensor<{N}x{M}x{T}>, %y: tensor<{N}x{M}x{T}>) -> (tensor<{N}x{T}>, tensor<{N}x{M}x{T}>, tensor<{T}>) {
    %z = stablehlo.constant dense<1> : tensor<{T}>
    %0 = stablehlo.subtract %x, %y : tensor<{N}x{M}x{T}>
    %1 = stablehlo.multiply %0, %0 : tensor<{N}x{M}x{T}>
    %s = stablehlo.reduce(%1 init: %z) applies stablehlo.add across dimensions = [1] : (tensor<{N}x{M}x{T}>, tensor<{T}>) -> tensor<{N}x{T}>
    %2 = stablehlo.maximum %x, %y : tensor<{N}x{M}x{T}>
    %m = stablehlo.reduce(%2 init: %z) applies stablehlo.maximum across dimensions = [1] : (tensor<{N}x{M}x{T}>, tensor<{T}>) -> tensor<{N}x{T}>
    %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<{N}x{T}>) -> tensor<{N}x{M}x{T}>
    %3 = stablehlo.subtract %2, %mb : tensor<{N}x{M}x{T}>
    %4 = stablehlo.add %3, %y : tensor<{N}x{M}x{T}>
    %a = stablehlo.reduce(%4 init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<{N}x{M}x{T}>, tensor<{T}>) -> tensor<{T}>
    %5 = stablehlo.multiply %2, %4 : tensor<{N}x{M}x{T}>
    return %s, %5, %a : tensor<{N}x{T}>, tensor<{N}x{M}x{T}>, tensor<{T}>
  })";

TEST(FusionRun, AbsorbedReductionsMatchUnfused) {
  unsigned seed = 300;
  const Size sizes[] = {{"1", "1"}, {"7", "79"}, {"5", "1024"}, {"3", "3001"},
                        {"40", "1000"}};
  for (const char* t : {"f32", "f64", "bf16", "f16", "i32"})
    for (const Size& s : sizes) {
      // Groups: {0, 1, s}, {2, m} (values kept), {mb, 3, 4, a} (kept).
      CheckFusedMatches(
          Subst(Subst(Subst(kReduceChain, "{N}", s.n), "{M}", s.m), "{T}", t),
          3, std::string(t) != "i32", seed++);
    }
}

// A group of one step whose values only feed the absorbed reduction
// (the step writes a scratch register of its own dtype), with inputs read
// through tiles after that register: clamp's scalar bounds, a per-row
// bias. The step's register once took the width of the other steps' (none
// here: one byte), so the step wrote over the bounds' tiles and every tile
// after the first was clamped against the previous tile's values.
const char* kOneStepReduce = R"(
  func.func @main(%x: tensor<{N}x{M}x{T}>, %b: tensor<{N}x{T}>) -> (tensor<{N}x{T}>, tensor<{N}x{T}>) {
    %lo = stablehlo.constant dense<0.0> : tensor<{T}>
    %hi = stablehlo.constant dense<2.0> : tensor<{T}>
    %z = stablehlo.constant dense<0.0> : tensor<{T}>
    %c = stablehlo.clamp %lo, %x, %hi : (tensor<{T}>, tensor<{N}x{M}x{T}>, tensor<{T}>) -> tensor<{N}x{M}x{T}>
    %s = stablehlo.reduce(%c init: %z) applies stablehlo.add across dimensions = [1] : (tensor<{N}x{M}x{T}>, tensor<{T}>) -> tensor<{N}x{T}>
    %bb = stablehlo.broadcast_in_dim %b, dims = [0] : (tensor<{N}x{T}>) -> tensor<{N}x{M}x{T}>
    %a = stablehlo.add %x, %bb : tensor<{N}x{M}x{T}>
    %m = stablehlo.reduce(%a init: %z) applies stablehlo.maximum across dimensions = [1] : (tensor<{N}x{M}x{T}>, tensor<{T}>) -> tensor<{N}x{T}>
    return %s, %m : tensor<{N}x{T}>, tensor<{N}x{T}>
  })";

TEST(FusionRun, OneStepGroupFeedingOnlyItsReduction) {
  unsigned seed = 400;
  const Size sizes[] = {{"1", "5"}, {"64", "49"}, {"300", "49"}, {"9", "1500"}};
  for (const char* t : {"f32", "f64", "bf16", "f16"})
    for (const Size& s : sizes)
      CheckFusedMatches(
          Subst(Subst(Subst(kOneStepReduce, "{N}", s.n), "{M}", s.m), "{T}", t),
          2, true, seed++);
}

// The last block of torchvision's mobilenet_v2 as PyTorch's exporter
// writes it: 1x1 convolution 320->1280 at 7x7, batch norm written out on
// [1,C,1,1] vectors (an epilogue of the convolution), clamp(0, x, 6) with
// scalar bounds, the spatial mean. Fused, 840 of the 1280 channels were
// wrong (issue: wrong results and crashes).
TEST(FusionRun, MobileNetV2LastBlockMatchesUnfused) {
  CheckFusedMatches(R"(
    func.func @main(%x: tensor<1x320x7x7xf32>, %w: tensor<1280x320x1x1xf32>, %mean: tensor<1280xf32>, %var: tensor<1280xf32>, %g: tensor<1280xf32>, %b: tensor<1280xf32>) -> tensor<1x1280xf32> {
      %c = stablehlo.convolution(%x, %w) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x320x7x7xf32>, tensor<1280x320x1x1xf32>) -> tensor<1x1280x7x7xf32>
      %m4 = stablehlo.reshape %mean : (tensor<1280xf32>) -> tensor<1x1280x1x1xf32>
      %v4 = stablehlo.reshape %var : (tensor<1280xf32>) -> tensor<1x1280x1x1xf32>
      %g4 = stablehlo.reshape %g : (tensor<1280xf32>) -> tensor<1x1280x1x1xf32>
      %b4 = stablehlo.reshape %b : (tensor<1280xf32>) -> tensor<1x1280x1x1xf32>
      %mb = stablehlo.broadcast_in_dim %m4, dims = [0, 1, 2, 3] : (tensor<1x1280x1x1xf32>) -> tensor<1x1280x7x7xf32>
      %s = stablehlo.subtract %c, %mb : tensor<1x1280x7x7xf32>
      %eps = stablehlo.constant dense<1.0e-5> : tensor<1x1280x1x1xf32>
      %ve = stablehlo.add %v4, %eps : tensor<1x1280x1x1xf32>
      %r = stablehlo.rsqrt %ve : tensor<1x1280x1x1xf32>
      %rb = stablehlo.broadcast_in_dim %r, dims = [0, 1, 2, 3] : (tensor<1x1280x1x1xf32>) -> tensor<1x1280x7x7xf32>
      %n = stablehlo.multiply %s, %rb : tensor<1x1280x7x7xf32>
      %gb = stablehlo.broadcast_in_dim %g4, dims = [0, 1, 2, 3] : (tensor<1x1280x1x1xf32>) -> tensor<1x1280x7x7xf32>
      %ng = stablehlo.multiply %n, %gb : tensor<1x1280x7x7xf32>
      %bb = stablehlo.broadcast_in_dim %b4, dims = [0, 1, 2, 3] : (tensor<1x1280x1x1xf32>) -> tensor<1x1280x7x7xf32>
      %y = stablehlo.add %ng, %bb : tensor<1x1280x7x7xf32>
      %lo = stablehlo.constant dense<0.0> : tensor<f32>
      %hi = stablehlo.constant dense<6.0> : tensor<f32>
      %cl = stablehlo.clamp %lo, %y, %hi : (tensor<f32>, tensor<1x1280x7x7xf32>, tensor<f32>) -> tensor<1x1280x7x7xf32>
      %z = stablehlo.constant dense<0.0> : tensor<f32>
      %red = stablehlo.reduce(%cl init: %z) applies stablehlo.add across dimensions = [2, 3] : (tensor<1x1280x7x7xf32>, tensor<f32>) -> tensor<1x1280xf32>
      %d = stablehlo.constant dense<49.0> : tensor<1x1280xf32>
      %o = stablehlo.divide %red, %d : tensor<1x1280xf32>
      return %o : tensor<1x1280xf32>
    })",
                    2, false, 17);
}

// Softmax and layer norm over rows of {R} (the fused row-reduction
// passes: max and add combiners absorbed, per-row broadcasts of the row
// results, a gamma/beta along the row that repeats every row).
const char* kRowNorms = R"(
  func.func @main(%x: tensor<{N}x{R}xf32>, %g: tensor<{R}xf32>, %b: tensor<{R}xf32>) -> (tensor<{N}x{R}xf32>, tensor<{N}x{R}xf32>) {
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %s = stablehlo.constant dense<0.125> : tensor<f32>
    %rinv = stablehlo.constant dense<{RINV}> : tensor<f32>
    %eps = stablehlo.constant dense<1.0e-5> : tensor<f32>
    %sb = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<{N}x{R}xf32>
    %0 = stablehlo.multiply %x, %sb : tensor<{N}x{R}xf32>
    %m = stablehlo.reduce(%0 init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<{N}x{R}xf32>, tensor<f32>) -> tensor<{N}xf32>
    %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<{N}xf32>) -> tensor<{N}x{R}xf32>
    %1 = stablehlo.subtract %0, %mb : tensor<{N}x{R}xf32>
    %2 = stablehlo.exponential %1 : tensor<{N}x{R}xf32>
    %e = stablehlo.reduce(%2 init: %z) applies stablehlo.add across dimensions = [1] : (tensor<{N}x{R}xf32>, tensor<f32>) -> tensor<{N}xf32>
    %eb = stablehlo.broadcast_in_dim %e, dims = [0] : (tensor<{N}xf32>) -> tensor<{N}x{R}xf32>
    %p = stablehlo.divide %2, %eb : tensor<{N}x{R}xf32>
    %sum = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<{N}x{R}xf32>, tensor<f32>) -> tensor<{N}xf32>
    %rb = stablehlo.broadcast_in_dim %rinv, dims = [] : (tensor<f32>) -> tensor<{N}xf32>
    %mean = stablehlo.multiply %sum, %rb : tensor<{N}xf32>
    %meanb = stablehlo.broadcast_in_dim %mean, dims = [0] : (tensor<{N}xf32>) -> tensor<{N}x{R}xf32>
    %d = stablehlo.subtract %x, %meanb : tensor<{N}x{R}xf32>
    %sq = stablehlo.multiply %d, %d : tensor<{N}x{R}xf32>
    %var = stablehlo.reduce(%sq init: %z) applies stablehlo.add across dimensions = [1] : (tensor<{N}x{R}xf32>, tensor<f32>) -> tensor<{N}xf32>
    %v = stablehlo.multiply %var, %rb : tensor<{N}xf32>
    %epsb = stablehlo.broadcast_in_dim %eps, dims = [] : (tensor<f32>) -> tensor<{N}xf32>
    %ve = stablehlo.add %v, %epsb : tensor<{N}xf32>
    %rs = stablehlo.rsqrt %ve : tensor<{N}xf32>
    %rsb = stablehlo.broadcast_in_dim %rs, dims = [0] : (tensor<{N}xf32>) -> tensor<{N}x{R}xf32>
    %gb = stablehlo.broadcast_in_dim %g, dims = [1] : (tensor<{R}xf32>) -> tensor<{N}x{R}xf32>
    %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<{R}xf32>) -> tensor<{N}x{R}xf32>
    %n1 = stablehlo.multiply %d, %rsb : tensor<{N}x{R}xf32>
    %n2 = stablehlo.multiply %n1, %gb : tensor<{N}x{R}xf32>
    %n3 = stablehlo.add %n2, %bb : tensor<{N}x{R}xf32>
    return %p, %n3 : tensor<{N}x{R}xf32>, tensor<{N}x{R}xf32>
  })";

TEST(FusionRun, RowSoftmaxAndLayerNormMatchUnfused) {
  unsigned seed = 500;
  // Row lengths below, at and above the vector widths and the tile, many
  // rows (several tiles and split pieces), with and without NaN/Inf.
  const Size sizes[] = {{"300", "1"},  {"300", "7"},   {"300", "16"},
                        {"700", "79"}, {"130", "256"}, {"37", "1000"},
                        {"1", "79"}};
  for (const Size& s : sizes)
    for (bool specials : {false, true}) {
      std::string text = Subst(Subst(kRowNorms, "{N}", s.n), "{R}", s.m);
      char rinv[32];
      std::snprintf(rinv, sizeof rinv, "%.9e", 1.0 / std::atof(s.m));
      CheckFusedMatches(Subst(text, "{RINV}", rinv), 7, specials,
                        seed++);
    }
}

// Buffer assignment may write a fused output over a dying same-size input
// (HLX_TASK_ELEMENTWISE) only when every such input is read at the output's
// own index: here %t dies in each group, read plainly in the first and
// also transposed (over several tiles) in the second.
TEST(FusionRun, InPlaceOnlyWhenInputsReadAtTheirOwnIndex) {
  const char* text = R"(
    func.func @main(%x: tensor<64x64xf32>, %y: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
      %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<64x64xf32>) -> tensor<64x64xf32>
      %0 = stablehlo.exponential %t : tensor<64x64xf32>
      %1 = stablehlo.add %0, %t : tensor<64x64xf32>
      %u = stablehlo.transpose %y, dims = [1, 0] : (tensor<64x64xf32>) -> tensor<64x64xf32>
      %b = stablehlo.broadcast_in_dim %u, dims = [1, 0] : (tensor<64x64xf32>) -> tensor<64x64xf32>
      %2 = stablehlo.add %u, %b : tensor<64x64xf32>
      %3 = stablehlo.tanh %2 : tensor<64x64xf32>
      return %1, %3 : tensor<64x64xf32>, tensor<64x64xf32>
    })";
  Lowered l;
  ASSERT_TRUE(Lower(text, true, &l));
  const hlx_plan_t* p = hlx_lowered_find(l.lm, "main");
  int32_t flagged = 0, fused = 0;
  for (int32_t i = 0; i < p->num_tasks; i++)
    if (std::strncmp(p->tasks[i].name, "fused(", 6) == 0) {
      fused++;
      bool in_place = p->tasks[i].flags & HLX_TASK_ELEMENTWISE;
      bool transposed_read =
          std::string(p->tasks[i].name).find("broadcast_in_dim") !=
          std::string::npos;
      EXPECT_EQ(in_place, !transposed_read) << p->tasks[i].name;
      flagged += in_place;
    }
  EXPECT_EQ(fused, 2);
  EXPECT_EQ(flagged, 1);
  CheckFusedMatches(text, 2, true, 21);
}

TEST(FusionRun, ConstantOnlyGroupFoldsAndDisabledByEnv) {
  const char* text = R"(
    func.func @main() -> tensor<4xf32> {
      %c = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
      %0 = stablehlo.exponential %c : tensor<4xf32>
      %1 = stablehlo.negate %0 : tensor<4xf32>
      return %1 : tensor<4xf32>
    })";
  Lowered l;
  ASSERT_TRUE(Lower(text, true, &l));
  EXPECT_EQ(hlx_lowered_find(l.lm, "main")->num_tasks, 0);
  auto out = RunPlan(hlx_lowered_find(l.lm, "main"), {}, false);
  float v[4];
  std::memcpy(v, out[0].data(), sizeof v);
  EXPECT_NEAR(v[2], -std::exp(3.0f), 1e-4);

  const char* chain = R"(
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %0 = stablehlo.exponential %x : tensor<4xf32>
      %1 = stablehlo.negate %0 : tensor<4xf32>
      return %1 : tensor<4xf32>
    })";
  setenv("HLX_NO_FUSION", "1", 1);
  Lowered off;
  bool ok = Lower(chain, true, &off);
  unsetenv("HLX_NO_FUSION");
  ASSERT_TRUE(ok);
  EXPECT_EQ(FusedTasks(hlx_lowered_find(off.lm, "main")), 0);
  Lowered on;
  ASSERT_TRUE(Lower(chain, true, &on));
  EXPECT_EQ(FusedTasks(hlx_lowered_find(on.lm, "main")), 1);
  EXPECT_EQ(hlx_lowered_find(on.lm, "main")->num_tasks, 1);
}

TEST(FusionRun, InvalidMemberStillReportsItsOwnError) {
  // A compare_type that is not allowed: the group declines and the op's
  // own lowering names the rule.
  Parsed p;
  ASSERT_TRUE(Parse(R"(
    func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xi1> {
      %0 = stablehlo.exponential %x : tensor<4xf32>
      %1 = stablehlo.compare LT, %0, %y, SIGNED : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
      return %1 : tensor<4xi1>
    })",
                    &p));
  hlx_lowered_module_t* lm = nullptr;
  hlx_status_t s = hlx_lower_module(p.module, nullptr, &lm);
  ASSERT_NE(s, nullptr);
  EXPECT_NE(std::string(hlx_status_message(s)).find("compare_type"),
            std::string::npos)
      << hlx_status_message(s);
  hlx_status_free(s);
  hlx_lowered_module_destroy(lm);
}

TEST(FusionRun, NestedWhileBodyFusesAndMatches) {
  CheckFusedMatches(Subst(kWhileChain, "{S}", "37"), 1, true, 11);
}

// ---- the chess transformer ------------------------------------------------

TEST(FusionModel, ChessTransformerFusedMatchesUnfused) {
  std::string path =
      hlx_test::SharedDir() + "/models/searchless_chess_9m.mlir";
  std::ifstream f(path);
  ASSERT_TRUE(f.good()) << "cannot read " << path;
  std::stringstream ss;
  ss << f.rdbuf();
  std::string text = ss.str();
  Lowered fused, plain;
  ASSERT_TRUE(Lower(text, true, &fused));
  ASSERT_TRUE(Lower(text, false, &plain));
  const hlx_func_t* fn = hlx_module_entry(fused.parsed.module);
  const hlx_plan_t* pf = hlx_lowered_find(fused.lm, fn->name);
  const hlx_plan_t* pu = hlx_lowered_find(plain.lm, fn->name);
  EXPECT_GT(FusedTasks(pf), 20);
  EXPECT_LT(pf->num_tasks * 10, pu->num_tasks * 7)
      << pf->num_tasks << " vs " << pu->num_tasks;
  std::mt19937 rng(5);
  std::vector<std::vector<unsigned char>> in;
  const hlx_block_t* b = fn->body->blocks[0];
  for (int32_t i = 0; i < b->num_args; i++) {
    const hlx_type_t* t = b->args[i]->type;
    size_t n = (size_t)hlx_type_num_elements(t);
    if (hlx_dtype_is_int(t->dtype)) {
      std::vector<unsigned char> v(n * hlx_dtype_size(t->dtype) + 1);
      std::vector<int64_t> k(n);
      std::uniform_int_distribution<int> d(0, 30);
      for (auto& e : k) e = d(rng);
      ASSERT_TRUE(hlx_ref_convert(HLX_DTYPE_S64, k.data(), t->dtype, v.data(), n));
      in.push_back(v);
    } else {
      // Weights scaled down so activations stay in range.
      std::vector<unsigned char> v = Random(t->dtype, n, &rng, false);
      std::vector<double> d(n);
      ASSERT_TRUE(hlx_ref_convert(t->dtype, v.data(), HLX_DTYPE_F64, d.data(), n));
      for (auto& e : d) e *= 0.05;
      ASSERT_TRUE(hlx_ref_convert(HLX_DTYPE_F64, d.data(), t->dtype, v.data(), n));
      in.push_back(v);
    }
  }
  auto want = RunPlan(pu, in, false);
  auto got = RunPlan(pf, in, true);
  ASSERT_EQ(got.size(), want.size());
  for (size_t r = 0; r < got.size(); r++) {
    const hlx_type_t* t = fn->result_types[r];
    size_t n = (size_t)hlx_type_num_elements(t);
    std::vector<double> x(n), y(n);
    ASSERT_TRUE(hlx_ref_convert(t->dtype, got[r].data(), HLX_DTYPE_F64, x.data(), n));
    ASSERT_TRUE(hlx_ref_convert(t->dtype, want[r].data(), HLX_DTYPE_F64, y.data(), n));
    double max_rel = 0;
    for (size_t i = 0; i < n; i++) {
      ASSERT_TRUE(std::isfinite(y[i]));
      max_rel = std::max(max_rel, std::fabs(x[i] - y[i]) / (std::fabs(y[i]) + 1e-6));
    }
    EXPECT_LT(max_rel, 1e-4) << "result " << r;
    std::cout << "tasks fused " << pf->num_tasks << " (" << FusedTasks(pf)
              << " fused groups) vs unfused " << pu->num_tasks
              << "; max relative difference " << max_rel << "\n";
  }
}

}  // namespace
