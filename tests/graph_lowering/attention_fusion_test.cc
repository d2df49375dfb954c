// Fused attention (graph/lower/opt/attention.c): small StableHLO programs with
// the softmax(Q K^T * c) V chain JAX exports, in its variants (scale by
// multiply either way round, by divide or none; with or without the
// maximum-with--inf step; either operand order of the second dot; with or
// without the final transpose; 0, 1 or 2 batch dims), lowered with and
// without HLX_NO_ATTENTION_FUSION=1 and run on the same random inputs
// (NaN/Inf mixed in for some seeds); chains that must not fuse (a second
// user of an intermediate, a non-scalar scale, f64) give one plan either
// way. The chess transformer (CHESS test, tagged external) matches its
// unfused plan within 1e-5 relative.
//
// Tolerance: the fused kernel sums the same products in another order
// (libxsmm, FMA) than the unfused dots, and the softmax's exp, sum and
// divide see inputs that differ by that rounding: with |q|, |k| <= 3 and
// D <= 8, a few hundred ulps of the values' scale (1e-5 relative with a
// floor of 1e-5 absolute) covers it; a wrong row or column is off by O(1).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/data_paths.h"
#include "tests/epilogue/plan_harness.h"

namespace {

using plan_run::Buffers;
using plan_run::Lowered;

struct Variant {
  int batch_dims = 2;       // 2: Q [B, L, H, D] as JAX; 1: [B, L, D]; 0: [L, D]
  const char* scale = "mul";  // mul, mul_rev, div, none, vector
  bool floor = true;
  bool v_first = true;        // dot_general(V, P) (JAX) or (P, V)
  bool transpose = true;
  bool second_user = false;   // the scaled logits also returned
  const char* type = "f32";
};

std::string T(const std::string& dims, const char* et) {
  return "tensor<" + dims + et + ">";
}

// The program for v: Lq = 5, Lk = 6, D = 4, Dv = 7, B = 2, H = 3.
std::string Program(const Variant& v) {
  const char* e = v.type;
  std::string b, bh, bhx;  // batch prefixes of Q/K/V and of S
  std::string qd, kd, vd, sb, bdn, pvb, mdims, sdims, lb3, tperm, odims;
  if (v.batch_dims == 2) {
    qd = "2x5x3x4x", kd = "2x6x3x4x", vd = "2x6x3x7x", sb = "2x3x";
    bdn = "batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3]";
  } else if (v.batch_dims == 1) {
    qd = "2x5x4x", kd = "2x6x4x", vd = "2x6x7x", sb = "2x";
    bdn = "batching_dims = [0] x [0], contracting_dims = [2] x [2]";
  } else {
    qd = "5x4x", kd = "6x4x", vd = "6x7x", sb = "";
    bdn = "contracting_dims = [1] x [1]";
  }
  int nb = v.batch_dims, r = nb + 2;
  std::string S = T(sb + "5x6x", e), M = T(sb + "5x", e);
  std::string M1 = T(sb + "5x1x", e);
  auto iota = [](int n) {
    std::string s = "[";
    for (int i = 0; i < n; i++) s += (i ? ", " : "") + std::to_string(i);
    return s + "]";
  };
  std::string vt = T(vd, e), qt = T(qd, e), kt = T(kd, e);
  // The second dot: O = [batch.., Dv, Lq] (V first) or [batch.., Lq, Dv].
  std::string pv, O, F, tr;
  std::string vbat = nb == 2 ? "[0, 2]" : nb == 1 ? "[0]" : "[]";
  std::string pbat = iota(nb);
  std::string bat = nb ? "batching_dims = " : "";
  if (v.v_first) {
    O = T(sb + "7x5x", e);
    pv = "stablehlo.dot_general %v, %p, " +
         (nb ? bat + vbat + " x " + pbat + ", " : std::string()) +
         "contracting_dims = [" + std::to_string(nb == 2 ? 1 : nb) + "] x [" +
         std::to_string(r - 1) + "] : (" + vt + ", " + S + ") -> " + O;
  } else {
    O = T(sb + "5x7x", e);
    pv = "stablehlo.dot_general %p, %v, " +
         (nb ? bat + pbat + " x " + vbat + ", " : std::string()) +
         "contracting_dims = [" + std::to_string(r - 1) + "] x [" +
         std::to_string(nb == 2 ? 1 : nb) + "] : (" + S + ", " + vt +
         ") -> " + O;
  }
  // The transpose back to [B, Lq, (H,) Dv].
  std::string perm;
  if (nb == 2) perm = v.v_first ? "[0, 3, 1, 2]" : "[0, 2, 1, 3]";
  if (nb == 1) perm = v.v_first ? "[0, 2, 1]" : "[0, 1, 2]";
  if (nb == 0) perm = v.v_first ? "[1, 0]" : "[0, 1]";
  std::string Ft = nb == 2 ? T("2x5x3x7x", e) : nb == 1 ? T("2x5x7x", e)
                                                        : T("5x7x", e);
  F = v.transpose ? Ft : O;
  std::string ret = v.second_user ? "(" + F + ", " + S + ")" : F;
  std::string s;
  s += "func.func @main(%q: " + qt + ", %k: " + kt + ", %v: " + vt +
       ") -> " + ret + " {\n";
  std::string one = std::string("tensor<") + e + ">";
  bool f64 = std::string(e) == "f64";
  s += std::string("  %ninf = stablehlo.constant dense<") +
       (f64 ? "0xFFF0000000000000" : "0xFF800000") + "> : " + one + "\n";
  std::string ninf = "%ninf";
  s += "  %zero = stablehlo.constant dense<0.0> : " + one + "\n";
  s += "  %c = stablehlo.constant dense<0.5> : " + one + "\n";
  s += "  %cv = stablehlo.constant dense<[0.5, 0.25, 1.0, 2.0, 0.5, 1.5]> : " +
       T("6x", e) + "\n";
  s += "  %s = stablehlo.dot_general %q, %k, " + bdn + " : (" + qt + ", " +
       kt + ") -> " + S + "\n";
  std::string sc = v.scale;
  if (sc == "none") {
    // the logits go to the softmax as they are
  } else if (sc == "vector") {
    s += "  %cb = stablehlo.broadcast_in_dim %cv, dims = [" +
         std::to_string(r - 1) + "] : (" + T("6x", e) + ") -> " + S + "\n";
    s += "  %s2 = stablehlo.multiply %s, %cb : " + S + "\n";
  } else {
    s += "  %cb = stablehlo.broadcast_in_dim %c, dims = [] : (" + one +
         ") -> " + S + "\n";
    if (sc == "mul") s += "  %s2 = stablehlo.multiply %s, %cb : " + S + "\n";
    if (sc == "mul_rev")
      s += "  %s2 = stablehlo.multiply %cb, %s : " + S + "\n";
    if (sc == "div") s += "  %s2 = stablehlo.divide %s, %cb : " + S + "\n";
  }
  std::string s2 = sc == "none" ? "%s" : "%s2";
  s += "  %m = stablehlo.reduce(" + s2 + " init: " + ninf +
       ") applies stablehlo.maximum across dimensions = [" +
       std::to_string(r - 1) + "] : (" + S + ", " + one + ") -> " + M + "\n";
  std::string m2 = "%m";
  if (v.floor) {
    s += "  %fb = stablehlo.broadcast_in_dim " + ninf + ", dims = [] : (" +
         one + ") -> " + M + "\n";
    s += "  %m2 = stablehlo.maximum %fb, %m : " + M + "\n";
    m2 = "%m2";
  }
  // Two-step broadcast (JAX's [.., 1] then [.., Lk]) for the max, one
  // step for the sum.
  s += "  %mb1 = stablehlo.broadcast_in_dim " + m2 + ", dims = " +
       iota(r - 1) + " : (" + M + ") -> " + M1 + "\n";
  s += "  %mb = stablehlo.broadcast_in_dim %mb1, dims = " + iota(r) + " : (" +
       M1 + ") -> " + S + "\n";
  s += "  %x = stablehlo.subtract " + s2 + ", %mb : " + S + "\n";
  s += "  %ex = stablehlo.exponential %x : " + S + "\n";
  s += "  %l = stablehlo.reduce(%ex init: %zero) applies stablehlo.add "
       "across dimensions = [" +
       std::to_string(r - 1) + "] : (" + S + ", " + one + ") -> " + M + "\n";
  s += "  %lb = stablehlo.broadcast_in_dim %l, dims = " + iota(r - 1) +
       " : (" + M + ") -> " + S + "\n";
  s += "  %p = stablehlo.divide %ex, %lb : " + S + "\n";
  s += "  %o = " + pv + "\n";
  std::string res = "%o";
  if (v.transpose) {
    s += "  %t = stablehlo.transpose %o, dims = " + perm + " : (" + O +
         ") -> " + Ft + "\n";
    res = "%t";
  }
  if (v.second_user)
    s += "  return " + res + ", " + s2 + " : " + F + ", " + S + "\n}\n";
  else
    s += "  return " + res + " : " + F + "\n}\n";
  return s;
}

// text lowered for one thread with attention fusion (on) and with
// HLX_NO_ATTENTION_FUSION=1 (off, which must have no attention task).
void LowerBoth(const std::string& text, Lowered* on, Lowered* off) {
  ASSERT_TRUE(LowerMain(text, nullptr, on));
  ASSERT_TRUE(LowerMain(text, "HLX_NO_ATTENTION_FUSION", off));
  EXPECT_EQ(TasksNamed(off->main(), "hlx.attention"), 0);
}

// Every result of the fused plan on `in` within tol of the unfused one,
// relative with a floor of 1 (NaN meets NaN, an infinity the same one).
void ExpectMatch(const Lowered& on, const Lowered& off, const Buffers& in,
                 double tol) {
  const hlx_func_t* f = hlx_module_entry(on.module);
  Buffers want = plan_run::RunPlan(off.main(), in);
  Buffers got = plan_run::RunPlan(on.main(), in);
  ASSERT_EQ(got.size(), want.size());
  for (size_t r = 0; r < got.size(); r++) {
    const hlx_type_t* t = f->result_types[r];
    EXPECT_LE(plan_run::MaxRel(t->dtype, got[r], want[r],
                               (size_t)hlx_type_num_elements(t), 1.0),
              tol)
        << "result " << r;
  }
}

// Lowers v fused and unfused, checks the fused plan has `want` attention
// tasks (the unfused none), and compares results on random inputs.
void Check(const Variant& v, int want) {
  std::string text = Program(v);
  SCOPED_TRACE(text);
  Lowered on, off;
  LowerBoth(text, &on, &off);
  ASSERT_TRUE(on.lm && off.lm);
  EXPECT_EQ(TasksNamed(on.main(), "hlx.attention"), want);
  const hlx_func_t* f = hlx_module_entry(on.module);
  for (unsigned seed : {1u, 2u, 3u})
    for (double scale : {1.0, 0.7}) {  // 1.0: NaN/Inf mixed in
      SCOPED_TRACE(::testing::Message() << "seed " << seed << " scale "
                                        << scale);
      ExpectMatch(on, off, plan_run::RandomArgs(f, seed, scale), 1e-5);
    }
}

TEST(AttentionFusion, JaxChainFuses) { Check(Variant{}, 1); }

TEST(AttentionFusion, ScaleVariants) {
  for (const char* s : {"mul_rev", "div", "none"}) {
    Variant v;
    v.scale = s;
    Check(v, 1);
  }
}

TEST(AttentionFusion, WithoutFloorStep) {
  Variant v;
  v.floor = false;
  Check(v, 1);
}

TEST(AttentionFusion, OperandOrderAndTranspose) {
  for (bool v_first : {true, false})
    for (bool transpose : {true, false}) {
      Variant v;
      v.v_first = v_first;
      v.transpose = transpose;
      Check(v, 1);
    }
}

TEST(AttentionFusion, BatchDims) {
  for (int nb : {0, 1})
    for (bool v_first : {true, false}) {
      Variant v;
      v.batch_dims = nb;
      v.v_first = v_first;
      Check(v, 1);
    }
}

TEST(AttentionFusion, SecondUserDoesNotFuse) {
  Variant v;
  v.second_user = true;
  Check(v, 0);
}

TEST(AttentionFusion, VectorScaleDoesNotFuse) {
  Variant v;
  v.scale = "vector";
  Check(v, 0);
}

TEST(AttentionFusion, F64DoesNotFuse) {
  Variant v;
  v.type = "f64";
  Check(v, 0);
}

// ---- the chess transformer ------------------------------------------------

TEST(AttentionFusionModel, ChessMatchesUnfused) {
  std::ifstream file(hlx_test::SharedDir() +
                     "/models/searchless_chess_9m.mlir");
  ASSERT_TRUE(file.good());
  std::stringstream ss;
  ss << file.rdbuf();
  Lowered on, off;
  LowerBoth(ss.str(), &on, &off);
  ASSERT_TRUE(on.lm && off.lm);
  EXPECT_EQ(TasksNamed(on.main(), "hlx.attention"), 8);  // one per layer
  // Outputs reach ~5 in magnitude: 1e-5 relative with a floor of 1 is
  // within 1e-5 of the largest.
  const hlx_func_t* f = hlx_module_entry(on.module);
  ExpectMatch(on, off, plan_run::RandomArgs(f, 5, 0.05), 1e-5);
}

}  // namespace
