// Common-subexpression elimination (graph/lower/opt/cse.c): how many tasks a
// plan loses with it (exact counts against HLX_NO_CSE=1 plans of the same
// program), what must not merge (an attribute or a constant byte apart,
// rng, different reduce combiners, values of different regions), and
// results equal to the plan without CSE on random inputs with NaN/Inf.
// CseModel.*: the model files, tasks removed and (chess) results.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tests/data_paths.h"
#include "tests/graph_lowering/plan_run.h"

namespace {

using namespace plan_run;

// Lowers text with CSE on or off (HLX_NO_CSE) and fusion on or off.
bool Lower(const std::string& text, bool cse, bool fuse, Lowered* l) {
  return LowerWith(text, cse ? nullptr : "HLX_NO_CSE", fuse, l);
}

// Lowers text with and without CSE (fusion as given): the CSE plan has
// `removed` fewer tasks (sub-plans included) and bit-identical results.
void CheckRemoves(const std::string& text, int32_t removed, bool fuse) {
  SCOPED_TRACE(text);
  Lowered on, off;
  ASSERT_TRUE(Lower(text, true, fuse, &on));
  ASSERT_TRUE(Lower(text, false, fuse, &off));
  EXPECT_EQ(Tasks(off.main()) - Tasks(on.main()), removed)
      << Tasks(on.main()) << " tasks with CSE, " << Tasks(off.main())
      << " without";
  const hlx_func_t* f = hlx_module_entry(on.module);
  for (unsigned seed : {1u, 2u}) {
    Buffers in = RandomArgs(f, seed, 1);
    Buffers want = RunPlan(off.main(), in), got = RunPlan(on.main(), in);
    ASSERT_EQ(got.size(), want.size());
    for (size_t r = 0; r < got.size(); r++) {
      const hlx_type_t* t = f->result_types[r];
      EXPECT_EQ(MaxRel(t->dtype, got[r], want[r],
                       (size_t)hlx_type_num_elements(t)),
                0)
          << "result " << r;
    }
  }
}

TEST(Cse, DuplicateChainMergesOpByOp) {
  // %c/%d repeat %a/%b; %e = %a * %a after merging.
  CheckRemoves(R"(
    func.func @main(%x: tensor<7x13xf32>, %y: tensor<7x13xf32>) -> tensor<7x13xf32> {
      %a = stablehlo.add %x, %y : tensor<7x13xf32>
      %b = stablehlo.exponential %a : tensor<7x13xf32>
      %c = stablehlo.add %x, %y : tensor<7x13xf32>
      %d = stablehlo.exponential %c : tensor<7x13xf32>
      %e = stablehlo.multiply %b, %d : tensor<7x13xf32>
      %f = stablehlo.add %x, %x : tensor<7x13xf32>
      %g = stablehlo.add %e, %f : tensor<7x13xf32>
      return %g : tensor<7x13xf32>
    })", 2, false);
}

TEST(Cse, OperandOrderAndOneAttributeApartDoNotMerge) {
  // add %y, %x is not matched with add %x, %y (no commutativity assumed);
  // compare GT vs GE, broadcast dims [0] vs [1], slice limits differ.
  CheckRemoves(R"(
    func.func @main(%x: tensor<5x5xf32>, %y: tensor<5x5xf32>, %v: tensor<5xf32>) -> (tensor<5x5xf32>, tensor<5x5xi1>, tensor<5x5xi1>, tensor<5x5xf32>, tensor<5x5xf32>, tensor<2x5xf32>, tensor<3x5xf32>) {
      %a = stablehlo.add %x, %y : tensor<5x5xf32>
      %b = stablehlo.add %y, %x : tensor<5x5xf32>
      %s = stablehlo.add %a, %b : tensor<5x5xf32>
      %p = stablehlo.compare GT, %x, %y : (tensor<5x5xf32>, tensor<5x5xf32>) -> tensor<5x5xi1>
      %q = stablehlo.compare GE, %x, %y : (tensor<5x5xf32>, tensor<5x5xf32>) -> tensor<5x5xi1>
      %r0 = stablehlo.broadcast_in_dim %v, dims = [0] : (tensor<5xf32>) -> tensor<5x5xf32>
      %r1 = stablehlo.broadcast_in_dim %v, dims = [1] : (tensor<5xf32>) -> tensor<5x5xf32>
      %l0 = stablehlo.slice %x [0:2, 0:5] : (tensor<5x5xf32>) -> tensor<2x5xf32>
      %l1 = stablehlo.slice %x [0:3, 0:5] : (tensor<5x5xf32>) -> tensor<3x5xf32>
      return %s, %p, %q, %r0, %r1, %l0, %l1 : tensor<5x5xf32>, tensor<5x5xi1>, tensor<5x5xi1>, tensor<5x5xf32>, tensor<5x5xf32>, tensor<2x5xf32>, tensor<3x5xf32>
    })", 0, false);
}

TEST(Cse, EqualConstantsMergeOneByteApartDoNot) {
  // %c1 == %c2 makes %b a copy of %a; %c3 differs in its last element.
  CheckRemoves(R"(
    func.func @main(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
      %c1 = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
      %c2 = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
      %c3 = stablehlo.constant dense<[1.0, 2.0, 3.5]> : tensor<3xf32>
      %a = stablehlo.add %x, %c1 : tensor<3xf32>
      %b = stablehlo.add %x, %c2 : tensor<3xf32>
      %c = stablehlo.add %x, %c3 : tensor<3xf32>
      %m = stablehlo.multiply %a, %b : tensor<3xf32>
      return %m, %c : tensor<3xf32>, tensor<3xf32>
    })", 1, false);
  // Same bytes, different element type: not equal constants.
  CheckRemoves(R"(
    func.func @main(%x: tensor<2xi32>, %y: tensor<2xui32>) -> (tensor<2xi32>, tensor<2xui32>) {
      %c1 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
      %c2 = stablehlo.constant dense<[1, 2]> : tensor<2xui32>
      %a = stablehlo.add %x, %c1 : tensor<2xi32>
      %b = stablehlo.add %y, %c2 : tensor<2xui32>
      return %a, %b : tensor<2xi32>, tensor<2xui32>
    })", 0, false);
}

TEST(Cse, RngOpsNeverMerge) {
  Lowered on, off;
  const char* text = R"(
    func.func @main(%a: tensor<f32>, %b: tensor<f32>) -> (tensor<64xf32>, tensor<64xf32>) {
      %s = stablehlo.constant dense<[64]> : tensor<1xi64>
      %0 = "stablehlo.rng"(%a, %b, %s) {rng_distribution = #stablehlo<rng_distribution UNIFORM>} : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<64xf32>
      %1 = "stablehlo.rng"(%a, %b, %s) {rng_distribution = #stablehlo<rng_distribution UNIFORM>} : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<64xf32>
      return %0, %1 : tensor<64xf32>, tensor<64xf32>
    })";
  ASSERT_TRUE(Lower(text, true, false, &on));
  ASSERT_TRUE(Lower(text, false, false, &off));
  EXPECT_EQ(Tasks(on.main()), Tasks(off.main()));
  EXPECT_NE(on.main()->result_slots[0], on.main()->result_slots[1]);
}

TEST(Cse, ElidedConstantsNeverMerge) {
  // Each elided constant is filled with its own data (fill_elided).
  CheckRemoves(R"(
    func.func @main(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
      %c1 = stablehlo.constant dense_resource<__elided__> : tensor<8xf32>
      %c2 = stablehlo.constant dense_resource<__elided__> : tensor<8xf32>
      %a = stablehlo.add %x, %c1 : tensor<8xf32>
      %b = stablehlo.add %x, %c2 : tensor<8xf32>
      return %a, %b : tensor<8xf32>, tensor<8xf32>
    })", 0, false);
}

// mean(x) in the caller and again inside an inlined callee (jax's _var),
// plus a reduce with another combiner that must stay.
const char* kInlinedMean = R"(
  func.func @main(%x: tensor<9x37xf32>, %y: tensor<9x37xf32>) -> (tensor<9xf32>, tensor<9xf32>, tensor<9xf32>) {
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %t = stablehlo.add %x, %y : tensor<9x37xf32>
    %s = stablehlo.reduce(%t init: %z) applies stablehlo.add across dimensions = [1] : (tensor<9x37xf32>, tensor<f32>) -> tensor<9xf32>
    %m = stablehlo.reduce(%t init: %z) applies stablehlo.maximum across dimensions = [1] : (tensor<9x37xf32>, tensor<f32>) -> tensor<9xf32>
    %v = call @var(%t) : (tensor<9x37xf32>) -> tensor<9xf32>
    return %s, %m, %v : tensor<9xf32>, tensor<9xf32>, tensor<9xf32>
  }
  func.func private @var(%a: tensor<9x37xf32>) -> tensor<9xf32> {
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %n = stablehlo.constant dense<37.0> : tensor<9xf32>
    %s = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [1] : (tensor<9x37xf32>, tensor<f32>) -> tensor<9xf32>
    %mean = stablehlo.divide %s, %n : tensor<9xf32>
    %b = stablehlo.broadcast_in_dim %mean, dims = [0] : (tensor<9xf32>) -> tensor<9x37xf32>
    %d = stablehlo.subtract %a, %b : tensor<9x37xf32>
    %q = stablehlo.multiply %d, %d : tensor<9x37xf32>
    %r = stablehlo.reduce(%q init: %z) applies stablehlo.add across dimensions = [1] : (tensor<9x37xf32>, tensor<f32>) -> tensor<9xf32>
    %v = stablehlo.divide %r, %n : tensor<9xf32>
    return %v : tensor<9xf32>
  })";

TEST(Cse, ReduceRepeatedInsideInlinedCallMerges) {
  CheckRemoves(kInlinedMean, 1, false);
  // Fused: the caller's add+sum group is reused by the callee's sum.
  CheckRemoves(kInlinedMean, 1, true);
}

// The same multiply outside a while loop, twice in its body, and in its
// condition: merged inside the body only.
const char* kWhile = R"(
  func.func @main(%x: tensor<17xf32>) -> (tensor<17xf32>, tensor<17xf32>) {
    %i0 = stablehlo.constant dense<0> : tensor<i32>
    %o = stablehlo.multiply %x, %x : tensor<17xf32>
    %r0, %r1 = stablehlo.while(%a = %i0, %b = %x) : tensor<i32>, tensor<17xf32>
     cond {
      %n = stablehlo.constant dense<3> : tensor<i32>
      %c = stablehlo.compare LT, %a, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %k = stablehlo.add %a, %one : tensor<i32>
      %m1 = stablehlo.multiply %x, %x : tensor<17xf32>
      %m2 = stablehlo.multiply %x, %x : tensor<17xf32>
      %s1 = stablehlo.sine %b : tensor<17xf32>
      %s2 = stablehlo.sine %b : tensor<17xf32>
      %p = stablehlo.add %s1, %m1 : tensor<17xf32>
      %q = stablehlo.add %s2, %m2 : tensor<17xf32>
      %w = stablehlo.subtract %p, %q : tensor<17xf32>
      %u = stablehlo.add %w, %b : tensor<17xf32>
      stablehlo.return %k, %u : tensor<i32>, tensor<17xf32>
    }
    %e = stablehlo.multiply %x, %x : tensor<17xf32>
    %f = stablehlo.add %e, %r1 : tensor<17xf32>
    return %f, %o : tensor<17xf32>, tensor<17xf32>
  })";

TEST(Cse, ScopedToEachRegion) {
  // Body: m2, s2, q go (3); main: %e is %o (1). The body's m1 stays, as
  // the region does not reuse the enclosing block's %o.
  CheckRemoves(kWhile, 4, false);
  Lowered on;
  ASSERT_TRUE(Lower(kWhile, true, false, &on));
  int32_t body_muls = 0;
  for (int32_t c = 0; c < on.main()->num_children; c++) {
    const hlx_plan_t* p = on.main()->children[c];
    for (int32_t i = 0; i < p->num_tasks; i++)
      body_muls += std::strstr(p->tasks[i].name, "multiply") != nullptr;
  }
  EXPECT_EQ(body_muls, 1);
}

TEST(Cse, FusedGroupsRepeatedAreEmittedOnce) {
  // Two equal softmax-like chains: fused, the second group is not emitted.
  CheckRemoves(R"(
    func.func @main(%x: tensor<33x79xf32>, %y: tensor<79xf32>) -> (tensor<33x33xf32>, tensor<33x33xf32>) {
      %yb = stablehlo.broadcast_in_dim %y, dims = [1] : (tensor<79xf32>) -> tensor<33x79xf32>
      %a = stablehlo.subtract %x, %yb : tensor<33x79xf32>
      %b = stablehlo.exponential %a : tensor<33x79xf32>
      %yb2 = stablehlo.broadcast_in_dim %y, dims = [1] : (tensor<79xf32>) -> tensor<33x79xf32>
      %a2 = stablehlo.subtract %x, %yb2 : tensor<33x79xf32>
      %b2 = stablehlo.exponential %a2 : tensor<33x79xf32>
      %c = stablehlo.dot_general %b, %b2, contracting_dims = [1] x [1] : (tensor<33x79xf32>, tensor<33x79xf32>) -> tensor<33x33xf32>
      %d = stablehlo.dot_general %b, %b2, contracting_dims = [1] x [1] : (tensor<33x79xf32>, tensor<33x79xf32>) -> tensor<33x33xf32>
      return %c, %d : tensor<33x33xf32>, tensor<33x33xf32>
    })", 2, true);
}

TEST(Cse, DisabledByEnv) {
  const char* text = R"(
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %a = stablehlo.sine %x : tensor<4xf32>
      %b = stablehlo.sine %x : tensor<4xf32>
      %c = stablehlo.add %a, %b : tensor<4xf32>
      return %c : tensor<4xf32>
    })";
  Lowered on, off;
  ASSERT_TRUE(Lower(text, true, false, &on));
  ASSERT_TRUE(Lower(text, false, false, &off));
  EXPECT_EQ(Tasks(on.main()), 2);
  EXPECT_EQ(Tasks(off.main()), 3);
}

// ---- the model files -----------------------------------------------------

std::string ReadModel(const char* name) {
  std::ifstream f(hlx_test::SharedDir() + "/models/" + name);
  EXPECT_TRUE(f.good()) << "cannot read " << name;
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(CseModel, TasksRemovedFromEachModel) {
  for (const char* name : {"searchless_chess_9m.mlir", "jax_resnet_50.mlir",
                           "jax_resnet_50_weights_as_args.mlir"}) {
    std::string text = ReadModel(name);
    for (bool fuse : {false, true}) {
      Lowered on, off;
      ASSERT_TRUE(Lower(text, true, fuse, &on)) << name;
      ASSERT_TRUE(Lower(text, false, fuse, &off)) << name;
      int32_t a = Tasks(on.main()), b = Tasks(off.main());
      EXPECT_LE(a, b) << name;
      std::cout << name << (fuse ? " fused" : " unfused") << ": " << b
                << " tasks without CSE, " << a << " with (" << b - a
                << " removed)\n";
    }
  }
}

TEST(CseModel, ChessTransformerMatchesWithoutCse) {
  std::string text = ReadModel("searchless_chess_9m.mlir");
  Lowered on, off;
  ASSERT_TRUE(Lower(text, true, true, &on));
  ASSERT_TRUE(Lower(text, false, true, &off));
  EXPECT_LT(Tasks(on.main()), Tasks(off.main()));
  const hlx_func_t* f = hlx_module_entry(on.module);
  Buffers in = RandomArgs(f, 5, 0.05);
  Buffers want = RunPlan(off.main(), in), got = RunPlan(on.main(), in);
  ASSERT_EQ(got.size(), want.size());
  for (size_t r = 0; r < got.size(); r++) {
    const hlx_type_t* t = f->result_types[r];
    double rel =
        MaxRel(t->dtype, got[r], want[r], (size_t)hlx_type_num_elements(t));
    // Same kernels on the same values: expected bit-identical.
    EXPECT_EQ(rel, 0) << "result " << r;
  }
}

}  // namespace
