// The fusion net: seeded random StableHLO programs, each lowered with every
// fusion on (default options) and with every fusion off (disable_fusion and
// the HLX_NO_* switches), run on the same random inputs and compared.
//
// A program is a random DAG of 5-30 ops (sometimes one chain of 60-90)
// over one "main" shape S (rank 1-4, odd sizes, sometimes past the fused
// tile of 1024 elements or the parallel split threshold of 32768, rarely
// with no elements): unary and binary ops, compare + select, clamp with
// scalar and full-shape bounds, converts between f32, f16, bf16, f64 and
// i32, operands broadcast from scalars, per-dim vectors, keep-dims
// vectors ([1,C,1,1]), transposed tensors and chains of broadcasts, splat
// constants, transpose/reshape round trips, reductions (add/max/min over
// trailing and other dims, of a value or of a chain only they read,
// broadcast back or not, in rounds), softmax / log-softmax / layer norm
// over the last dim, calls of small functions, values used by several ops
// and several results. Library programs start with a convolution (1x1 or
// 3x3, NCHW or NHWC, sometimes a second one), a dot_general (sometimes
// transposed after) or an attention block, and an epilogue-able chain:
// bias on [1,C,1,1] or [C], batch norm written out, relu as maximum(x, 0)
// or a call, clamp(0, x, 6), swish, residual add, logistic / tanh; then
// the generic ops.
//
// Each fused plan runs sequentially and split (the stand-in pool of
// plan_run.h: four threads' chunks run one by one); every third program
// is also lowered with row fusion off, every fourth also runs through the
// public API on 2 threads. Results must match the unfused plan:
//  - bit for bit (NaN matching any NaN) unless they depend on a
//    convolution or dot_general: fused and unfused plans run the same
//    elementwise and reduce kernels over the same values;
//  - otherwise within tol * max(1, max|unfused result|) per element
//    (Program::tol, set in Gen::Make with the reasons). The generator
//    keeps those values away from ops that turn a rounding difference into
//    a different value (compare, floor, converts to int, exp, divide).
//
// Coverage: each test counts the programs whose fused plan has a fused
// elementwise task, an absorbed reduction (and one whose values are not
// written), a row-fused task, an epilogue, fused attention, and asserts
// floors, so the net cannot stop testing fusion unnoticed.
//
// Reproduce a failure: FNET_SEED=<seed> runs that seed only (and prints
// its program); FNET_FILE=<path> checks a program from a file (for
// minimising); FNET_PROGRAMS=<n> runs n programs per test (a longer
// soak); FNET_VERBOSE=1 prints each fused plan's tasks.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

extern "C" {
#include "base/parallel.h"
#include "graph/lower/lower.h"
#include "graph/stablehlo/parser.h"
#include "kernels/elementwise.h"
}
#include "tests/graph_lowering/fusion_fuzz_api.h"
#include "tests/graph_lowering/plan_run.h"

namespace {

struct Parsed {
  hlx_module_t* module = nullptr;
  ~Parsed() { hlx_module_destroy(module); }
};

// ---- a deterministic random source -----------------------------------------
// std:: distributions differ between standard libraries; these do not, so
// a seed names the same program everywhere.
class Rng {
 public:
  // The state starts at a mix of the seed: consecutive seeds must not
  // start one step apart on splitmix's sequence (shifted copies of one
  // stream, hence near-identical programs).
  explicit Rng(uint64_t seed) : s_(seed) { s_ = Next(); }
  uint64_t Next() {  // splitmix64
    uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  int Int(int lo, int hi) {  // [lo, hi]
    return lo + (int)(Next() % (uint64_t)(hi - lo + 1));
  }
  double Unit() { return (double)(Next() >> 11) * 0x1.0p-53; }
  bool Coin(double p) { return Unit() < p; }
  template <class T>
  const T& Pick(const std::vector<T>& v) {
    return v[(size_t)Int(0, (int)v.size() - 1)];
  }

 private:
  uint64_t s_;
};

// ---- types and values -------------------------------------------------------

enum Dt { kF32, kF16, kBF16, kF64, kI32, kPred };
const char* const kDtName[] = {"f32", "f16", "bf16", "f64", "i32", "i1"};
bool IsFloat(Dt t) { return t <= kF64; }

using Dims = std::vector<int64_t>;

struct Ty {
  Dims d;
  Dt t;
};

std::string TS(const Dims& d, Dt t) {
  std::string s = "tensor<";
  for (int64_t x : d) s += std::to_string(x) + "x";
  return s + kDtName[t] + ">";
}
std::string TS(const Ty& ty) { return TS(ty.d, ty.t); }

int64_t Elems(const Dims& d) {
  int64_t n = 1;
  for (int64_t x : d) n *= x;
  return n;
}

std::string List(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); i++)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

std::vector<int64_t> Iota(int64_t n, int64_t from = 0) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < n; i++) v.push_back(from + i);
  return v;
}

struct Val {
  std::string n;  // "%v3"
  Ty ty;
  // Depends on a convolution or dot_general result (compared with a
  // tolerance, kept away from ops that amplify rounding differences).
  bool inexact = false;
  bool hidden = false;  // read by one op only (not picked again)
};

// A scalar literal of dtype t: decimal, or the bit pattern of +-Inf.
std::string Literal(Dt t, double x) {
  char b[64];
  if (t == kPred) return x != 0 ? "true" : "false";
  if (t == kI32) {
    std::snprintf(b, sizeof b, "%lld", (long long)x);
    return b;
  }
  if (std::isinf(x)) {
    static const char* const kPos[] = {"0x7F800000", "0x7C00", "0x7F80",
                                       "0x7FF0000000000000"};
    static const char* const kNeg[] = {"0xFF800000", "0xFC00", "0xFF80",
                                       "0xFFF0000000000000"};
    return x > 0 ? kPos[t] : kNeg[t];
  }
  std::snprintf(b, sizeof b, "%.9e", x);
  return b;
}

// ---- programs ----------------------------------------------------------------

enum Family { kGeneric, kLibrary };

struct Program {
  uint64_t seed = 0;
  std::string text;
  std::vector<bool> plain_param;  // never NaN/Inf/0 (library operands)
  std::vector<bool> reusable;     // hlx_lower_options_t.reusable_params
  bool specials = false;          // NaN/Inf/0 in the other float inputs
  std::vector<bool> inexact;      // per result
  // Inexact results: |fused - unfused| <= tol * max(1, max|unfused|).
  double tol = 0;
};

class Gen {
 public:
  explicit Gen(uint64_t seed) : r_(seed) { p_.seed = seed; }
  Program Make(Family f);

 private:
  // -- emission --
  std::string Fresh() { return "%v" + std::to_string(next_++); }
  Val Emit(const std::string& rhs, const Ty& ty, bool inexact) {
    Val v{Fresh(), ty, inexact};
    body_ += "    " + v.n + " = " + rhs + "\n";
    pool_.push_back(v);
    return v;
  }
  Val Param(const Ty& ty, bool plain = false) {
    Val v{"%a" + std::to_string(params_.size()), ty, false};
    params_.push_back(v);
    pool_.push_back(v);
    p_.plain_param.push_back(plain);
    p_.reusable.push_back(false);
    return v;
  }
  Val Const(const Dims& d, Dt t, double x) {
    return Emit("stablehlo.constant dense<" + Literal(t, x) + "> : " + TS(d, t),
                {d, t}, false);
  }
  // A constant of random values in [lo, hi] (a flat list, reshaped).
  Val DenseConst(const Dims& d, double lo, double hi) {
    int64_t n = Elems(d);
    std::string vals;
    for (int64_t i = 0; i < n; i++)
      vals += (i ? ", " : "") + Literal(kF32, lo + (hi - lo) * r_.Unit());
    Val flat = Emit("stablehlo.constant dense<[" + vals + "]> : " +
                        TS({n}, kF32),
                    {{n}, kF32}, false);
    return Reshape(flat, d);
  }
  Val Unary(const std::string& op, const Val& x) {
    return Emit("stablehlo." + op + " " + x.n + " : " + TS(x.ty), x.ty,
                x.inexact);
  }
  Val Binary(const std::string& op, const Val& a, const Val& b) {
    return Emit("stablehlo." + op + " " + a.n + ", " + b.n + " : " + TS(a.ty),
                a.ty, a.inexact || b.inexact);
  }
  Val Broadcast(const Val& x, const std::vector<int64_t>& dims,
                const Dims& to) {
    return Emit("stablehlo.broadcast_in_dim " + x.n + ", dims = " + List(dims) +
                    " : (" + TS(x.ty) + ") -> " + TS(to, x.ty.t),
                {to, x.ty.t}, x.inexact);
  }
  Val Reshape(const Val& x, const Dims& to) {
    return Emit("stablehlo.reshape " + x.n + " : (" + TS(x.ty) + ") -> " +
                    TS(to, x.ty.t),
                {to, x.ty.t}, x.inexact);
  }
  Val Transpose(const Val& x, const std::vector<int64_t>& perm) {
    Dims to;
    for (int64_t p : perm) to.push_back(x.ty.d[(size_t)p]);
    return Emit("stablehlo.transpose " + x.n + ", dims = " + List(perm) +
                    " : (" + TS(x.ty) + ") -> " + TS(to, x.ty.t),
                {to, x.ty.t}, x.inexact);
  }
  Val Convert(const Val& x, Dt t) {
    return Emit("stablehlo.convert " + x.n + " : (" + TS(x.ty) + ") -> " +
                    TS(x.ty.d, t),
                {x.ty.d, t}, x.inexact);
  }
  Val Compare(const std::string& dir, const Val& a, const Val& b) {
    std::string type;
    if (r_.Coin(0.2)) type = IsFloat(a.ty.t) ? ", FLOAT" : ", SIGNED";
    return Emit("stablehlo.compare " + dir + ", " + a.n + ", " + b.n + type +
                    " : (" + TS(a.ty) + ", " + TS(b.ty) + ") -> " +
                    TS(a.ty.d, kPred),
                {a.ty.d, kPred}, a.inexact || b.inexact);
  }
  Val Select(const Val& p, const Val& a, const Val& b) {
    return Emit("\"stablehlo.select\"(" + p.n + ", " + a.n + ", " + b.n +
                    ") : (" + TS(p.ty) + ", " + TS(a.ty) + ", " + TS(b.ty) +
                    ") -> " + TS(a.ty),
                a.ty, p.inexact || a.inexact || b.inexact);
  }
  Val Clamp(const Val& lo, const Val& x, const Val& hi) {
    return Emit("stablehlo.clamp " + lo.n + ", " + x.n + ", " + hi.n + " : (" +
                    TS(lo.ty) + ", " + TS(x.ty) + ", " + TS(hi.ty) + ") -> " +
                    TS(x.ty),
                x.ty, lo.inexact || x.inexact || hi.inexact);
  }
  // An f32 dot_general contracting dim ca of a with cb of b (after a
  // leading batch dim when batch).
  Val DotGeneral(const Val& a, const Val& b, bool batch, int64_t ca,
                 int64_t cb, const Dims& out) {
    return Emit("stablehlo.dot_general " + a.n + ", " + b.n + ", " +
                    (batch ? "batching_dims = [0] x [0], " : "") +
                    "contracting_dims = [" + std::to_string(ca) + "] x [" +
                    std::to_string(cb) + "] : (" + TS(a.ty) + ", " +
                    TS(b.ty) + ") -> " + TS(out, kF32),
                {out, kF32}, true);
  }
  Val Reduce(const Val& x, const std::string& op, const Val& init,
             const std::vector<int64_t>& dims) {
    Dims to;
    for (size_t d = 0; d < x.ty.d.size(); d++) {
      bool gone = false;
      for (int64_t k : dims) gone = gone || k == (int64_t)d;
      if (!gone) to.push_back(x.ty.d[d]);
    }
    return Emit("stablehlo.reduce(" + x.n + " init: " + init.n +
                    ") applies stablehlo." + op + " across dimensions = " +
                    List(dims) + " : (" + TS(x.ty) + ", " + TS(init.ty) +
                    ") -> " + TS(to, x.ty.t),
                {to, x.ty.t}, x.inexact);
  }

  // -- shapes and operands --
  Dims RandomShape();
  bool IsS(const Val& v) const { return v.ty.d == s_; }
  const Val* Existing(Dt t, bool allow_inexact);
  Val Cur();
  Val Operand(Dt t, bool allow_inexact);
  Val Scalar(Dt t, double lo, double hi);

  // -- program parts --
  void Step();
  Val UnaryStep(const Val& x);
  Val BinaryStep(const Val& x);
  Val CompareSelectStep(const Val& x);
  Val ClampStep(const Val& x);
  Val ConvertStep(const Val& x);
  Val PrivateStep(const Val& x);
  Val ReduceStep(const Val& x);
  Val RoundsStep(const Val& x);
  Val RowStep(const Val& x);
  Val RoundTripStep(const Val& x);
  Val CallStep(const Val& x);
  Val Convolution(const Val* input);
  Val Dot();
  Val Attention();
  Val Epilogue(Val c, int64_t feature);
  Val PerFeature(const Dims& fd, int64_t feature, Dt t, bool constant);

  Rng r_;
  Program p_;
  std::vector<Val> params_, pool_;
  std::string body_, funcs_;
  int next_ = 0;
  Dims s_;
  Dt main_ = kF32;
  bool has_relu_fn_ = false, has_silu_fn_ = false, fold_ = false;
  bool folded_constants_ = false;
  bool nchw_ = true;  // the convolutions' layout
  int num_funcs_ = 0;
  bool long_chain_ = false;
};

// Sizes: one element, tails inside a tile, several tiles, and (split)
// more than the parallel threshold, from odd dims.
Dims Gen::RandomShape() {
  static const std::vector<int64_t> kDims = {1,  2,  3,  5,   7,   13,
                                             16, 49, 64, 129, 256, 1031};
  static const int64_t kLo[] = {1, 65, 1025, 32769};
  static const int64_t kHi[] = {64, 1023, 32767, 110000};
  int c = r_.Coin(0.12) ? 0 : r_.Coin(0.25) ? 1 : r_.Coin(0.7) ? 2 : 3;
  int rank = r_.Int(1, 4);
  for (int attempt = 0; attempt < 64; attempt++) {
    Dims d;
    int64_t n = 1;
    for (int i = 0; i < rank - 1; i++) {
      d.push_back(r_.Coin(0.25) ? r_.Int(1, 40) : r_.Pick(kDims));
      n *= d.back();
    }
    int64_t lo = (kLo[c] + n - 1) / n, hi = kHi[c] / n;
    if (lo > hi || hi < 1) continue;
    int64_t last = lo + (int64_t)(r_.Next() % (uint64_t)(hi - lo + 1));
    for (int64_t k : kDims)
      if (k >= lo && k <= hi && r_.Coin(0.5)) last = k;
    if (last > 1 && last % 2 == 0 && last + 1 <= hi) last++;  // odd
    d.push_back(last);
    // The long dim is not always the last one.
    if (r_.Coin(0.35)) std::swap(d[0], d[(size_t)r_.Int(0, rank - 1)]);
    if (r_.Coin(0.02)) d[(size_t)r_.Int(0, rank - 1)] = 0;  // no elements
    return d;
  }
  return {kLo[c]};
}

// An S-shaped value of dtype t from the pool, recent ones preferred.
const Val* Gen::Existing(Dt t, bool allow_inexact) {
  std::vector<const Val*> c;
  for (const Val& v : pool_)
    if (IsS(v) && !v.hidden && v.ty.t == t && (allow_inexact || !v.inexact))
      c.push_back(&v);
  if (c.empty()) return nullptr;
  if (r_.Coin(0.5)) return c.back();
  return c[(size_t)r_.Int(0, (int)c.size() - 1)];
}

// The value the next op reads: mostly the newest S-shaped one (chains),
// sometimes an older one (a value used by several ops).
Val Gen::Cur() {
  std::vector<const Val*> c;
  for (const Val& v : pool_)
    if (IsS(v) && !v.hidden && v.ty.t != kPred) c.push_back(&v);
  if (c.empty()) return Param({s_, main_});
  if (r_.Coin(long_chain_ ? 0.97 : 0.65)) return *c.back();
  return *c[(size_t)r_.Int(0, (int)c.size() - 1)];
}

Val Gen::Scalar(Dt t, double lo, double hi) {
  if (r_.Coin(0.3)) return Param({{}, t});
  double x = lo + (hi - lo) * r_.Unit();
  if (!IsFloat(t)) x = std::floor(x);
  if (r_.Coin(0.2)) x = 0;
  return Const({}, t, x);
}

// An S-shaped operand of dtype t: a value of the program, a parameter, a
// splat constant, or a broadcast (scalar, per-dim vector, keep-dims
// vector, some dims, transposed, a chain of two).
Val Gen::Operand(Dt t, bool allow_inexact) {
  int rank = (int)s_.size();
  switch (r_.Int(0, 9)) {
    case 0:
    case 1:
      if (const Val* v = Existing(t, allow_inexact)) return *v;
      return Param({s_, t});
    case 2:
      return Param({s_, t});
    case 3:
      return Broadcast(Scalar(t, -2, 2), {}, s_);
    case 4: {  // per-dim vector
      int64_t d = r_.Int(0, rank - 1);
      return Broadcast(Param({{s_[(size_t)d]}, t}), {d}, s_);
    }
    case 5: {  // keep-dims vector: [1, C, 1, 1]
      Dims k(s_.size(), 1);
      size_t d = (size_t)r_.Int(0, rank - 1);
      k[d] = s_[d];
      return Broadcast(Param({k, t}), Iota(rank), s_);
    }
    case 6: {  // some dims, in order
      std::vector<int64_t> dims;
      Dims k;
      for (int d = 0; d < rank; d++)
        if (r_.Coin(0.5)) {
          dims.push_back(d);
          k.push_back(s_[(size_t)d]);
        }
      return Broadcast(Param({k, t}), dims, s_);
    }
    case 7: {  // transposed: operand dim i lands on result dim perm[i]
      std::vector<int64_t> perm = Iota(rank);
      for (int i = rank - 1; i > 0; i--)
        std::swap(perm[(size_t)i], perm[(size_t)r_.Int(0, i)]);
      Dims k;
      for (int64_t p : perm) k.push_back(s_[(size_t)p]);
      const Val* src = nullptr;
      for (const Val& v : pool_)
        if (v.ty.d == k && v.ty.t == t && !v.inexact && r_.Coin(0.5)) src = &v;
      return Broadcast(src ? *src : Param({k, t}), perm, s_);
    }
    case 8: {  // a chain: [C] -> [1, C, 1] -> S
      int64_t d = r_.Int(0, rank - 1);
      Dims k(s_.size(), 1);
      k[(size_t)d] = s_[(size_t)d];
      Val mid = Broadcast(Param({{s_[(size_t)d]}, t}), {d}, k);
      return Broadcast(mid, Iota(rank), s_);
    }
    default:
      return Const(s_, t, IsFloat(t) ? 0.25 * r_.Int(-8, 8) : r_.Int(-4, 4));
  }
}

// ---- ops ---------------------------------------------------------------------
// Each returns the S-shaped value it ends in.

Val Gen::UnaryStep(const Val& x) {
  static const std::vector<std::string> kFloat = {
      "exponential", "tanh", "negate", "abs", "logistic", "sine", "cosine",
      "floor", "ceil", "round_nearest_even", "round_nearest_afz", "sign",
      "exponential_minus_one", "cbrt", "sqrt", "rsqrt", "log", "log_plus_one",
      "is_finite"};
  // Library values may go through these: the error stays within the
  // value's scale (not sine: a relative error of a large argument is a
  // large absolute one).
  static const std::vector<std::string> kSmooth = {"negate", "abs", "logistic",
                                                   "tanh"};
  static const std::vector<std::string> kInt = {"negate", "abs", "not", "sign"};
  if (!IsFloat(x.ty.t)) return Unary(r_.Pick(kInt), x);
  const std::string& op = x.inexact ? r_.Pick(kSmooth) : r_.Pick(kFloat);
  if (op == "sqrt" || op == "rsqrt" || op == "log_plus_one")
    return Unary(op, Unary("abs", x));
  if (op == "log") {  // log(|x| + 1)
    Val one = Broadcast(Const({}, x.ty.t, 1), {}, s_);
    return Unary(op, Binary("add", Unary("abs", x), one));
  }
  if (op == "is_finite") {
    Val p = Emit("stablehlo.is_finite " + x.n + " : (" + TS(x.ty) + ") -> " +
                     TS(x.ty.d, kPred),
                 {x.ty.d, kPred}, false);
    return Select(p, x, Operand(x.ty.t, false));
  }
  return Unary(op, x);
}

Val Gen::BinaryStep(const Val& x) {
  static const std::vector<std::string> kFloat = {
      "add", "subtract", "multiply", "divide", "maximum", "minimum",
      "add", "multiply", "power", "remainder", "atan2"};
  static const std::vector<std::string> kSmooth = {"add", "subtract",
                                                   "multiply", "maximum",
                                                   "minimum"};
  static const std::vector<std::string> kInt = {
      "add", "subtract", "multiply", "maximum", "minimum", "and",
      "or",  "xor",      "divide",   "remainder"};
  const std::string& op = !IsFloat(x.ty.t) ? r_.Pick(kInt)
                          : x.inexact      ? r_.Pick(kSmooth)
                                           : r_.Pick(kFloat);
  bool smooth = op == "add" || op == "subtract" || op == "multiply" ||
                op == "maximum" || op == "minimum";
  Val y = r_.Coin(0.1) ? x : Operand(x.ty.t, smooth);
  return r_.Coin(0.5) ? Binary(op, x, y) : Binary(op, y, x);
}

Val Gen::CompareSelectStep(const Val& x0) {
  static const std::vector<std::string> kDirs = {"EQ", "NE", "GE",
                                                 "GT", "LE", "LT"};
  // The predicate from exact values only (a flipped comparison is not a
  // rounding difference).
  Val a = r_.Coin(0.5) && !x0.inexact ? x0 : Cur();
  if (a.inexact) a = Operand(main_, false);
  Val p = r_.Coin(0.1) ? Param({s_, kPred})
                       : Compare(r_.Pick(kDirs), a, Operand(a.ty.t, false));
  if (r_.Coin(0.1)) p = Param({{}, kPred});  // a scalar predicate
  Val x = x0;
  Val y = Operand(x.ty.t, true);
  if (r_.Coin(0.5)) std::swap(x, y);
  Val r = Select(p, x, y);
  // A mask used as numbers.
  if (r_.Coin(0.2) && p.ty.d == s_ && IsFloat(r.ty.t))
    r = Binary("multiply", Convert(p, r.ty.t), r);
  return r;
}

Val Gen::ClampStep(const Val& x) {
  Dt t = x.ty.t;
  auto bound = [&](double v) -> Val {
    switch (r_.Int(0, 4)) {
      case 0:
        return Param({{}, t});
      case 1:
        return Operand(t, false);  // full shape
      default:
        return Const({}, t, v);
    }
  };
  static const double kPairs[][2] = {{0, 6}, {-1, 1}, {-2, 0.5}, {-3, 2},
                                     {0, 0}};
  const double* b = kPairs[r_.Coin(0.05) ? 4 : r_.Int(0, 3)];
  return Clamp(bound(b[0]), x, bound(b[1]));
}

Val Gen::ConvertStep(const Val& x) {
  std::vector<Dt> to;
  if (x.inexact) {
    to = {kF64};  // exact widening only
  } else {
    for (Dt t : {kF32, kF16, kBF16, kF64, kI32})
      if (t != x.ty.t) to.push_back(t);
  }
  Val y = Convert(x, r_.Pick(to));
  // And back, or on in the new type.
  if (r_.Coin(0.5) && !y.inexact && y.ty.t != main_) y = Convert(y, main_);
  return y;
}

// An op on x whose value only the caller reads: one of the elementwise
// steps, hidden from the ops that follow.
Val Gen::PrivateStep(const Val& x) {
  size_t mark = pool_.size();
  static const std::vector<Dt> kVia = {kF16, kF64, kI32, kBF16};
  int k = r_.Int(0, 4);
  Val y = k == 0   ? UnaryStep(x)
          : k == 1 ? BinaryStep(x)
          : k == 2 ? ClampStep(x)
          : k == 3 ? CompareSelectStep(x)
          : x.inexact
              ? UnaryStep(x)
              // through another dtype and back: registers of two widths
              : Convert(Convert(x, r_.Pick(kVia)), x.ty.t);
  for (size_t i = mark; i < pool_.size(); i++) pool_[i].hidden = true;
  return y;
}

// A reduction of x over some dims: trailing ones (which a group absorbs)
// or others, of x or of a short chain only the reduction reads; its
// result broadcast back and combined, or left as a result.
Val Gen::ReduceStep(const Val& x) {
  int rank = (int)x.ty.d.size();
  std::vector<int64_t> dims;
  if (r_.Coin(0.65)) {
    dims = Iota(r_.Int(1, rank), 0);
    for (auto& d : dims) d += rank - (int64_t)dims.size();
  } else {
    for (int d = 0; d < rank; d++)
      if (r_.Coin(0.5)) dims.push_back(d);
    if (dims.empty()) dims.push_back(r_.Int(0, rank - 1));
  }
  // Of a fresh operand sometimes: a group of one op and the reduction.
  Val src = r_.Coin(0.4) && !x.inexact ? Operand(x.ty.t, false) : x;
  if (r_.Coin(0.7))
    for (int k = r_.Coin(0.7) ? 1 : r_.Int(2, 3); k > 0; k--)
      src = PrivateStep(src);
  if (src.ty.t == kPred) src = x;
  Dt t = src.ty.t;
  static const std::vector<std::string> kOps = {"add", "maximum", "minimum",
                                                "add"};
  std::string op = r_.Pick(kOps);
  double init = op == "add" ? 0 : op == "maximum" ? -INFINITY : INFINITY;
  if (!IsFloat(t) && op != "add")
    init = op == "maximum" ? -2147483648.0 : 2147483647.0;
  if (r_.Coin(0.15)) init = 1;  // not the identity: applied once per output
  Val red = Reduce(src, op, Const({}, t, init), dims);
  if (red.ty.d.size() == 1 && r_.Coin(0.3)) {  // a mean-like scaling
    Val k = Broadcast(Const({}, t, IsFloat(t) ? 0.125 : 3), {}, red.ty.d);
    red = Binary("multiply", red, k);
  }
  if (!r_.Coin(0.6)) return x;
  std::vector<int64_t> kept;
  for (int d = 0; d < rank; d++) {
    bool gone = false;
    for (int64_t k : dims) gone = gone || k == d;
    if (!gone) kept.push_back(d);
  }
  Val back = red;
  if (r_.Coin(0.3)) {  // PyTorch's keepdims: reshape, then broadcast
    Dims k = x.ty.d;
    for (int64_t d : dims) k[(size_t)d] = 1;
    back = Broadcast(Reshape(red, k), Iota(rank), s_);
  } else {
    back = Broadcast(red, kept, s_);
  }
  static const std::vector<std::string> kCombine = {"subtract", "add",
                                                    "multiply", "maximum"};
  std::string c = r_.Pick(kCombine);
  if (IsFloat(t) && !src.inexact && r_.Coin(0.25)) c = "divide";
  Val other = src.ty.t == t && r_.Coin(0.5) ? src : x;
  if (other.ty.t != t) other = Operand(t, true);
  return Binary(c, other, back);
}

// Rounds of reduce-and-combine over cheap ops (add, subtract, multiply,
// maximum, minimum, negate), as normalisations repeat them: each round's
// chain is what fusion may recompute in the next round's group instead
// of writing it.
Val Gen::RoundsStep(const Val& x) {
  static const std::vector<std::string> kCheap = {"add", "subtract",
                                                  "multiply", "maximum",
                                                  "minimum"};
  Dt t = x.ty.t;
  Val v = x;
  if (r_.Coin(0.6))
    v = Binary(r_.Pick(kCheap), r_.Coin(0.5) ? x : Operand(t, false),
               Operand(t, false));
  int rank = (int)s_.size();
  for (int round = r_.Int(2, 3); round > 0; round--) {
    int nd = r_.Coin(0.8) ? r_.Int(1, rank) : rank;  // trailing dims
    std::vector<int64_t> dims = Iota(nd, rank - nd), kept = Iota(rank - nd);
    std::string op = r_.Pick(std::vector<std::string>{"add", "maximum",
                                                      "minimum"});
    double init = op == "add" ? 0 : op == "maximum" ? -INFINITY : INFINITY;
    if (!IsFloat(t) && op != "add")
      init = op == "maximum" ? -2147483648.0 : 2147483647.0;
    Val red = Reduce(v, op, Const({}, t, init), dims);
    if (r_.Coin(0.5)) red = Unary("negate", red);
    v = Binary(r_.Pick(kCheap), v, Broadcast(red, kept, s_));
    if (r_.Coin(0.3)) v = Unary("negate", v);
  }
  return v;
}

// Softmax, log-softmax or layer norm over the last dim (row fusion's
// shapes), as JAX (broadcast of the per-row value) or PyTorch (reshape to
// keep-dims, then broadcast) writes them.
Val Gen::RowStep(const Val& x0) {
  int rank = (int)s_.size();
  Dt t = x0.ty.t;
  Val x = x0;
  int64_t len = s_.back();
  std::vector<int64_t> last = {rank - 1};
  bool torch = r_.Coin(0.4);
  auto back = [&](const Val& row) {
    if (!torch) return Broadcast(row, Iota(rank - 1), s_);
    Dims k = s_;
    k.back() = 1;
    return Broadcast(Reshape(row, k), Iota(rank), s_);
  };
  int kind = r_.Int(0, 2);
  if (kind < 2) {  // softmax / log-softmax
    if (r_.Coin(0.5))  // scaled logits
      x = Binary("multiply", x, Broadcast(Const({}, t, 0.125), {}, s_));
    Val m = Reduce(x, "maximum", Const({}, t, -INFINITY), last);
    Val sh = Binary("subtract", x, back(m));
    Val e = Unary("exponential", sh);
    Val sum = Reduce(e, "add", Const({}, t, 0), last);
    if (kind == 0) return Binary("divide", e, back(sum));
    return Binary("subtract", sh, back(Unary("log", sum)));
  }
  Dims rows(s_.begin(), s_.end() - 1);
  Val inv = Broadcast(Const({}, t, 1.0 / (double)len), {}, rows);
  Val mean = Binary("multiply", Reduce(x, "add", Const({}, t, 0), last), inv);
  Val d = Binary("subtract", x, back(mean));
  Val var = Binary("multiply", Reduce(Binary("multiply", d, d), "add",
                                      Const({}, t, 0), last),
                   inv);
  Val eps = Broadcast(Const({}, t, 1e-5), {}, rows);
  Val n = Binary("multiply", d, back(Unary("rsqrt", Binary("add", var, eps))));
  if (r_.Coin(0.6)) {
    n = Binary("multiply", n, Broadcast(Param({{len}, t}), last, s_));
    n = Binary("add", n, Broadcast(Param({{len}, t}), last, s_));
  }
  return n;
}

std::string Replace(std::string s, const std::string& key,
                    const std::string& v) {
  for (size_t p; (p = s.find(key)) != std::string::npos;)
    s.replace(p, key.size(), v);
  return s;
}

// A call of a private function of x (and a vector along the last dim):
// softmax or layer norm over the last dim, relu, silu, or a short
// elementwise chain with splat constants. Calls are inlined; row fusion
// also takes a call whose callee it can build as one member.
Val Gen::CallStep(const Val& x) {
  static const char* const kBodies[] = {
      // softmax
      R"(    %ninf = stablehlo.constant dense<{NINF}> : tensor<{E}>
    %z = stablehlo.constant dense<0.0> : tensor<{E}>
    %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [{L}] : ({T}, tensor<{E}>) -> {R}
    %mb = stablehlo.broadcast_in_dim %m, dims = {RD} : ({R}) -> {T}
    %d = stablehlo.subtract %x, %mb : {T}
    %e = stablehlo.exponential %d : {T}
    %s = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [{L}] : ({T}, tensor<{E}>) -> {R}
    %sb = stablehlo.broadcast_in_dim %s, dims = {RD} : ({R}) -> {T}
    %r = stablehlo.divide %e, %sb : {T}
)",
      // layer norm (the mean by a divide), times the vector
      R"(    %z = stablehlo.constant dense<0.0> : tensor<{E}>
    %n = stablehlo.constant dense<{LEN}> : {R}
    %eps = stablehlo.constant dense<1.0e-5> : {R}
    %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [{L}] : ({T}, tensor<{E}>) -> {R}
    %mean = stablehlo.divide %s, %n : {R}
    %mb = stablehlo.broadcast_in_dim %mean, dims = {RD} : ({R}) -> {T}
    %d = stablehlo.subtract %x, %mb : {T}
    %sq = stablehlo.multiply %d, %d : {T}
    %v = stablehlo.reduce(%sq init: %z) applies stablehlo.add across dimensions = [{L}] : ({T}, tensor<{E}>) -> {R}
    %var = stablehlo.divide %v, %n : {R}
    %ve = stablehlo.add %var, %eps : {R}
    %rs = stablehlo.rsqrt %ve : {R}
    %rb = stablehlo.broadcast_in_dim %rs, dims = {RD} : ({R}) -> {T}
    %y = stablehlo.multiply %d, %rb : {T}
    %gb = stablehlo.broadcast_in_dim %g, dims = [{L}] : ({V}) -> {T}
    %r = stablehlo.multiply %y, %gb : {T}
)",
      // relu
      R"(    %z = stablehlo.constant dense<0.0> : tensor<{E}>
    %zb = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<{E}>) -> {T}
    %r = stablehlo.maximum %x, %zb : {T}
)",
      // silu
      R"(    %l = stablehlo.logistic %x : {T}
    %r = stablehlo.multiply %x, %l : {T}
)",
      // a chain with a splat constant and the vector
      R"(    %c = stablehlo.constant dense<0.5> : {T}
    %a = stablehlo.multiply %x, %c : {T}
    %gb = stablehlo.broadcast_in_dim %g, dims = [{L}] : ({V}) -> {T}
    %b = stablehlo.add %a, %gb : {T}
    %r = stablehlo.tanh %b : {T}
)"};
  Dt t = x.ty.t;
  int rank = (int)s_.size();
  int k = r_.Int(0, 4);
  if (k == 0 || k == 1) {  // row ops: not for library values (exp, rsqrt)
    if (x.inexact || s_.back() < 2) k = 2;
  }
  Dims rows(s_.begin(), s_.end() - 1);
  int64_t len = s_.back();
  std::string body = kBodies[k];
  body = Replace(body, "{R}", TS(rows, t));
  body = Replace(body, "{RD}", List(Iota(rank - 1)));
  body = Replace(body, "{T}", TS(s_, t));
  body = Replace(body, "{V}", TS({len}, t));
  body = Replace(body, "{E}", kDtName[t]);
  body = Replace(body, "{L}", std::to_string(rank - 1));
  body = Replace(body, "{LEN}", Literal(t, (double)len));
  body = Replace(body, "{NINF}", Literal(t, -INFINITY));
  bool vec = body.find("%g") != std::string::npos;
  std::string name = "@f" + std::to_string(num_funcs_++);
  std::string sig = "(" + TS(s_, t) + (vec ? ", " + TS({len}, t) : "") + ")";
  funcs_ += "  func.func private " + name + "(%x: " + TS(s_, t) +
            (vec ? ", %g: " + TS({len}, t) : "") + ") -> " + TS(s_, t) +
            " {\n" + body + "    return %r : " + TS(s_, t) + "\n  }\n";
  Val g = vec ? Param({{len}, t}) : x;
  Val y = x;
  // Called once or twice (the second time on the first call's result).
  for (int n = r_.Coin(0.3) ? 2 : 1; n > 0; n--)
    y = Emit("func.call " + name + "(" + y.n + (vec ? ", " + g.n : "") +
                 ") : " + sig + " -> " + TS(s_, t),
             {s_, t}, x.inexact);
  return y;
}

// Out of S and back: a transpose (back by transpose or by a transposing
// broadcast) or a reshape, with an op in between.
Val Gen::RoundTripStep(const Val& x) {
  int rank = (int)s_.size();
  Val mid = x;
  if (rank >= 2 && r_.Coin(0.6)) {
    std::vector<int64_t> perm = Iota(rank);
    while (perm == Iota(rank))
      for (int i = rank - 1; i > 0; i--)
        std::swap(perm[(size_t)i], perm[(size_t)r_.Int(0, i)]);
    mid = Transpose(x, perm);
    if (r_.Coin(0.7))
      mid = Unary(x.inexact || !IsFloat(x.ty.t) ? "negate" : "exponential", mid);
    if (r_.Coin(0.4)) mid = Binary("add", mid, Param(mid.ty));
    std::vector<int64_t> inv((size_t)rank);
    for (int i = 0; i < rank; i++) inv[(size_t)perm[(size_t)i]] = i;
    if (r_.Coin(0.5)) return Transpose(mid, inv);
    return Broadcast(mid, perm, s_);  // operand dim i is result dim perm[i]
  }
  Dims flat = {Elems(s_)};
  if (rank >= 2 && r_.Coin(0.5)) {  // merge the first two dims
    flat = {s_[0] * s_[1]};
    for (int d = 2; d < rank; d++) flat.push_back(s_[(size_t)d]);
  }
  mid = Reshape(x, flat);
  mid = r_.Coin(0.5) ? Unary("negate", mid) : Binary("multiply", mid, mid);
  return Reshape(mid, s_);
}

void Gen::Step() {
  Val x = Cur();
  int k = r_.Int(0, long_chain_ ? 60 : 99);
  if (k < 20) return (void)UnaryStep(x);
  if (k < 44) return (void)BinaryStep(x);
  if (k < 52) return (void)CompareSelectStep(x);
  if (k < 61) return (void)ClampStep(x);
  if (k < 67) return (void)ConvertStep(x);
  if (k < 80) return (void)ReduceStep(x);
  // Rounds only of exact values: sums of sums of library values cancel.
  if (k < 84) return (void)(x.inexact ? ReduceStep(x) : RoundsStep(x));
  bool rows = s_.size() >= 1 && s_.back() > 1 && Elems(s_) / s_.back() > 1;
  if (k < 90 && rows && IsFloat(x.ty.t) && !x.inexact) return (void)RowStep(x);
  if (k < 95 && IsFloat(x.ty.t) && s_.size() >= 1) return (void)CallStep(x);
  RoundTripStep(x);
}

// ---- library heads -----------------------------------------------------------

// A [C] value for per-feature use on dims fd: a param (reusable when the
// batch norm is to fold into the weights), or a constant. Folding is exact
// only up to rounding for finite scales (conv(x, w) * inf is not
// conv(x, w * inf)), so folded vectors get no NaN/Inf.
Val Gen::PerFeature(const Dims& fd, int64_t feature, Dt t, bool constant) {
  int64_t c = fd[(size_t)feature];
  if (constant) return DenseConst({c}, -1, 1);
  Val v = Param({{c}, t}, fold_);
  p_.reusable.back() = fold_;
  return v;
}

// A convolution of a new input (or of `input`), NCHW or NHWC, 1x1 or 3x3.
Val Gen::Convolution(const Val* input) {
  static const std::vector<int64_t> kC = {1, 3, 4, 8, 16, 16, 32, 33};
  static const std::vector<int64_t> kHW = {1, 3, 5, 7, 7, 14};
  bool nchw = r_.Coin(0.5);
  int64_t n = r_.Coin(0.7) ? 1 : 2, k = r_.Coin(0.5) ? 1 : 3;
  int64_t stride = r_.Coin(0.75) ? 1 : 2, pad = k == 3 && r_.Coin(0.7) ? 1 : 0;
  int64_t co = r_.Pick(kC), ci, h, w;
  if (input) {
    nchw = nchw_;  // the previous convolution's layout
    n = input->ty.d[0];
    ci = nchw ? input->ty.d[1] : input->ty.d[3];
    h = nchw ? input->ty.d[2] : input->ty.d[1];
    w = nchw ? input->ty.d[3] : input->ty.d[2];
  } else {
    ci = r_.Pick(kC), h = r_.Pick(kHW), w = r_.Pick(kHW);
  }
  if (h + 2 * pad < k || w + 2 * pad < k) k = 1, pad = 0;
  int64_t oh = (h + 2 * pad - k) / stride + 1, ow = (w + 2 * pad - k) / stride + 1;
  Dims xd = nchw ? Dims{n, ci, h, w} : Dims{n, h, w, ci};
  Dims wd = nchw ? Dims{co, ci, k, k} : Dims{k, k, ci, co};
  Dims od = nchw ? Dims{n, co, oh, ow} : Dims{n, oh, ow, co};
  Val x = input ? *input : Param({xd, kF32}, true);
  Val wt = folded_constants_ && Elems(wd) <= 4096 ? DenseConst(wd, -0.5, 0.5)
                                                 : Param({wd, kF32}, true);
  if (fold_ && wt.n[1] == 'a') p_.reusable[params_.size() - 1] = true;
  std::string ps = std::to_string(pad), ss = std::to_string(stride);
  Val c = Emit("stablehlo.convolution(" + x.n + ", " + wt.n +
                   ") dim_numbers = " +
                   (nchw ? "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]"
                         : "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]") +
                   ", window = {stride = [" + ss + ", " + ss + "], pad = [[" +
                   ps + ", " + ps + "], [" + ps + ", " + ps +
                   "]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, "
                   "feature_group_count = 1 : i64} : (" +
                   TS(xd, kF32) + ", " + TS(wd, kF32) + ") -> " + TS(od, kF32),
               {od, kF32}, true);
  s_ = od;
  nchw_ = nchw;
  return Epilogue(c, nchw ? 1 : 3);
}

// A dot_general [M,K]x[K,N] or [B,M,K]x[B,K,N], sometimes large enough for
// oneDNN (which takes the epilogue), sometimes transposed after.
Val Gen::Dot() {
  static const std::vector<int64_t> kM = {1, 7, 49, 129, 200};
  static const std::vector<int64_t> kK = {3, 16, 64, 129};
  static const std::vector<int64_t> kN = {1, 5, 33, 64, 129};
  int64_t m = r_.Pick(kM), k = r_.Pick(kK), n = r_.Pick(kN);
  bool batch = r_.Coin(0.3);
  int64_t b = r_.Int(2, 3);
  Dims ad = batch ? Dims{b, m, k} : Dims{m, k};
  Dims bd = batch ? Dims{b, k, n} : Dims{k, n};
  Dims od = batch ? Dims{b, m, n} : Dims{m, n};
  Val a = Param({ad, kF32}, true), w = Param({bd, kF32}, true);
  Val c = DotGeneral(a, w, batch, batch ? 2 : 1, batch ? 1 : 0, od);
  s_ = od;
  if (r_.Coin(0.15)) {  // dot + transpose: one task writing it transposed
    std::vector<int64_t> perm = batch ? std::vector<int64_t>{0, 2, 1}
                                      : std::vector<int64_t>{1, 0};
    c = Transpose(c, perm);
    s_ = c.ty.d;
    return c;
  }
  return Epilogue(c, (int64_t)od.size() - 1);
}

// Attention as JAX exports it: softmax(Q K^T * c) V over [B, L, D]
// (graph/lower/opt/attention.c fuses the whole chain), the max floored at
// -Inf or not, the product with V either way round.
Val Gen::Attention() {
  static const std::vector<int64_t> kL = {1, 5, 7, 16, 79};
  static const std::vector<int64_t> kD = {4, 8, 16};
  int64_t b = r_.Int(1, 3), lq = r_.Pick(kL), lk = r_.Pick(kL);
  int64_t d = r_.Pick(kD), dv = r_.Pick(kD);
  bool plain = r_.Coin(0.7);  // else NaN/Inf in Q, K, V too
  Val q = Param({{b, lq, d}, kF32}, plain);
  Val k = Param({{b, lk, d}, kF32}, plain);
  Val v = Param({{b, lk, dv}, kF32}, plain);
  Dims sd = {b, lq, lk};
  Val sc = DotGeneral(q, k, true, 2, 2, sd);
  s_ = sd;
  sc = Binary("multiply", sc, Broadcast(Const({}, kF32, 0.25), {}, sd));
  Dims rows = {b, lq};
  Val m = Reduce(sc, "maximum", Const({}, kF32, -INFINITY), {2});
  if (r_.Coin(0.5))
    m = Binary("maximum", Broadcast(Const({}, kF32, -INFINITY), {}, rows), m);
  Val e = Unary("exponential",
                Binary("subtract", sc, Broadcast(m, {0, 1}, sd)));
  Val l = Reduce(e, "add", Const({}, kF32, 0), {2});
  Val p = Binary("divide", e, Broadcast(l, {0, 1}, sd));
  Dims od = {b, lq, dv};
  s_ = od;
  if (r_.Coin(0.5)) return DotGeneral(p, v, true, 2, 1, od);
  // V first, then back to [B, Lq, Dv]
  return Transpose(DotGeneral(v, p, true, 1, 2, {b, dv, lq}), {0, 2, 1});
}

// An epilogue-able chain after library result c (feature dim `feature`).
Val Gen::Epilogue(Val c, int64_t feature) {
  int rank = (int)s_.size();
  Dims one(s_.size(), 1);
  one[(size_t)feature] = s_[(size_t)feature];
  // A [C] vector broadcast along the feature dim, directly or through
  // the keep-dims shape ([1, C, 1, 1], as PyTorch exports).
  auto along = [&](const Val& v) {
    if (r_.Coin(0.5)) return Broadcast(v, {feature}, s_);
    return Broadcast(Reshape(v, one), Iota(rank), s_);
  };
  bool constant = folded_constants_;
  if (r_.Coin(0.4)) {  // batch norm written out
    Val mean = PerFeature(s_, feature, kF32, constant);
    Val var = PerFeature(s_, feature, kF32, constant);
    Val gamma = PerFeature(s_, feature, kF32, constant);
    Val beta = PerFeature(s_, feature, kF32, constant);
    Dims cd = {s_[(size_t)feature]};
    Val eps = Broadcast(Const({}, kF32, 1e-5), {}, cd);
    Val rs = Unary("rsqrt", Binary("add", Unary("abs", var), eps));
    c = Binary("subtract", c, along(mean));
    if (r_.Coin(0.5)) {
      c = Binary("multiply", c, along(rs));
      c = Binary("multiply", c, along(gamma));
    } else {  // scale folded in the vector domain first
      c = Binary("multiply", c, along(Binary("multiply", rs, gamma)));
    }
    c = Binary("add", c, along(beta));
  } else if (r_.Coin(0.6)) {  // bias
    c = Binary("add", c, along(PerFeature(s_, feature, kF32, constant)));
  }
  if (r_.Coin(0.15))  // a scalar scale
    c = Binary("multiply", c, Broadcast(Param({{}, kF32}), {}, s_));
  if (r_.Coin(0.3))  // residual
    c = Binary("add", c, r_.Coin(0.7) ? Param({s_, kF32}) : Operand(kF32, false));
  std::string fn_t = TS(s_, kF32);
  switch (r_.Int(0, 9)) {
    case 0:
    case 1:  // relu as maximum(x, 0)
      c = Binary("maximum", c,
                 r_.Coin(0.7) ? Broadcast(Const({}, kF32, 0), {}, s_)
                              : Const(s_, kF32, 0));
      break;
    case 2:  // relu6
      c = Clamp(Const({}, kF32, 0), c, Const({}, kF32, 6));
      break;
    case 3:  // swish inline
      c = Binary("multiply", c, Unary("logistic", c));
      break;
    case 4:
      c = Unary(r_.Coin(0.5) ? "logistic" : "tanh", c);
      break;
    case 5: {  // relu / silu as a call
      bool silu = r_.Coin(0.5);
      std::string name = silu ? "@silu" : "@relu";
      std::string sig = "(" + fn_t + ") -> " + fn_t;
      if (!(silu ? has_silu_fn_ : has_relu_fn_)) {
        (silu ? has_silu_fn_ : has_relu_fn_) = true;
        funcs_ += "  func.func private " + name + "(%x: " + fn_t + ") -> " +
                  fn_t + " {\n";
        if (silu)
          funcs_ += "    %0 = stablehlo.logistic %x : " + fn_t +
                    "\n    %1 = stablehlo.multiply %x, %0 : " + fn_t +
                    "\n    return %1 : " + fn_t + "\n  }\n";
        else
          funcs_ += "    %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
                    "    %0 = stablehlo.broadcast_in_dim %z, dims = [] : "
                    "(tensor<f32>) -> " + fn_t +
                    "\n    %1 = stablehlo.maximum %x, %0 : " + fn_t +
                    "\n    return %1 : " + fn_t + "\n  }\n";
      } else if (funcs_.find(name + "(%x: " + fn_t + ")") == std::string::npos) {
        break;  // defined for another shape
      }
      c = Emit("func.call " + name + "(" + c.n + ") : " + sig, c.ty, true);
      break;
    }
    default:
      break;
  }
  return c;
}

Program Gen::Make(Family f) {
  // Sometimes one long chain of elementwise ops: groups at the 64-member
  // and 64-input limits.
  long_chain_ = f == kGeneric && r_.Coin(0.06);
  int ops = long_chain_ ? r_.Int(60, 90) : r_.Int(5, 30);
  main_ = kF32;
  p_.specials = r_.Coin(0.6);
  if (f == kLibrary) {
    fold_ = r_.Coin(0.25);
    folded_constants_ = !fold_ && r_.Coin(0.15);
    int head = r_.Int(0, 9);
    Val c = head < 6 ? Convolution(nullptr) : head < 9 ? Dot() : Attention();
    if (s_.size() == 4 && r_.Coin(0.2)) c = Convolution(&c);  // conv -> conv
    if (s_.size() == 4 && r_.Coin(0.3)) {  // the spatial mean
      std::vector<int64_t> sp = nchw_ ? std::vector<int64_t>{2, 3}
                                     : std::vector<int64_t>{1, 2};
      Val red = Reduce(c, "add", Const({}, kF32, 0), sp);
      double area = (double)(s_[(size_t)sp[0]] * s_[(size_t)sp[1]]);
      Binary("divide", red, Const(red.ty.d, kF32, area));
    }
    ops = r_.Int(0, 8);
  } else {
    static const std::vector<Dt> kMain = {kF32, kF32, kF32, kF32, kF16,
                                          kBF16, kF64, kI32};
    main_ = r_.Pick(kMain);
    s_ = RandomShape();
    Param({s_, main_});
  }
  for (int i = 0; i < ops; i++) Step();
  // Results: the newest value and a few others (intermediates, reduced
  // values, other dtypes), each once.
  std::vector<Val> res = {pool_.back()};
  int extra = r_.Int(0, 3);
  for (int i = 0; i < extra; i++) {
    const Val& v = pool_[(size_t)r_.Int(0, (int)pool_.size() - 1)];
    bool dup = v.hidden || v.n.rfind("%a", 0) == 0;
    for (const Val& q : res) dup = dup || q.n == v.n;
    // Constants fold away; their results say nothing about fusion.
    dup = dup || body_.find(v.n + " = stablehlo.constant") != std::string::npos;
    if (!dup) res.push_back(v);
  }
  std::string sig, ret, types;
  for (size_t i = 0; i < params_.size(); i++)
    sig += (i ? ", " : "") + params_[i].n + ": " + TS(params_[i].ty);
  for (size_t i = 0; i < res.size(); i++) {
    ret += (i ? ", " : "") + res[i].n;
    types += (i ? ", " : "") + TS(res[i].ty);
    p_.inexact.push_back(res[i].inexact);
  }
  p_.text = "module {\n  func.func @main(" + sig + ") -> (" + types +
            ") {\n" + body_ + "    return " + ret + " : " + types + "\n  }\n" +
            funcs_ + "}\n";
  // Library results, in units of the result's scale (Diff): oneDNN's own
  // logistic / tanh / swish post-ops differ from hlx's kernels by an ULP
  // or two, which a second convolution sums over up to 33 * 9 inputs
  // (largest seen in 10000 programs: 6.6e-6); batch norm folded into the
  // weights rounds scale and shift once more (8.2e-6). 2e-5 / 5e-5 is
  // ~170 / 420 f32 ULP; a wrong element is off by O(1), a lost NaN fails
  // whatever the tolerance.
  p_.tol = fold_ || folded_constants_ ? 5e-5 : 2e-5;
  return p_;
}

// ---- running and comparing -----------------------------------------------------

// Inputs of @main: floats in [-3, 3] with NaN/Inf/0 mixed in (unless the
// parameter is a library operand), ints in [-20, 20], random preds.
plan_run::Buffers Inputs(const Program& p, const hlx_func_t* f) {
  Rng r(p.seed ^ 0x5bd1e995u);
  plan_run::Buffers in;
  const hlx_block_t* b = f->body->blocks[0];
  for (int32_t i = 0; i < b->num_args; i++) {
    const hlx_type_t* t = b->args[i]->type;
    size_t n = (size_t)hlx_type_num_elements(t);
    std::vector<double> v(n);
    bool specials = p.specials && !p.plain_param[(size_t)i];
    for (auto& e : v) {
      if (t->dtype == HLX_DTYPE_PRED) {
        e = (double)(r.Next() & 1);
      } else if (hlx_dtype_is_int(t->dtype)) {
        e = r.Int(-20, 20);
      } else {
        e = -3 + 6 * r.Unit();
        int k = specials ? r.Int(0, 31) : 31;
        if (k == 0) e = NAN;
        if (k == 1) e = INFINITY;
        if (k == 2) e = -INFINITY;
        if (k == 3) e = 0;
      }
    }
    std::vector<unsigned char> buf(n * hlx_dtype_size(t->dtype) + 1);
    // (no elements: v.data() may be null, which memmove must not see)
    if (n) {
      EXPECT_TRUE(
          hlx_ref_convert(HLX_DTYPE_F64, v.data(), t->dtype, buf.data(), n));
    }
    in.push_back(buf);
  }
  return in;
}

// "" when got matches want (see the file comment), else what differs.
// *worst: the largest finite difference of an inexact result, in units
// of its scale.
std::string Diff(hlx_dtype_t t, const unsigned char* got,
                 const unsigned char* want, size_t n, bool inexact,
                 double tol, double* worst) {
  if (n == 0) return "";
  std::vector<double> x(n), y(n);
  if (!hlx_ref_convert(t, got, HLX_DTYPE_F64, x.data(), n) ||
      !hlx_ref_convert(t, want, HLX_DTYPE_F64, y.data(), n))
    return "cannot convert results";
  size_t es = hlx_dtype_size(t);
  // At least 1: the inputs are O(1), so a result whose values are all far
  // smaller (a logistic's tail) went through cancellation or saturation
  // that turns the library's rounding into large relative differences.
  double scale = 1;
  for (double e : y)
    if (std::isfinite(e)) scale = std::max(scale, std::fabs(e));
  std::string out;
  int bad = 0;
  for (size_t i = 0; i < n; i++) {
    bool nan = std::isnan(x[i]) && std::isnan(y[i]);
    bool ok = nan || (!inexact && !std::memcmp(got + i * es, want + i * es, es));
    bool finite = std::isfinite(x[i]) && std::isfinite(y[i]);
    double d = finite ? std::fabs(x[i] - y[i]) / scale : 0;
    if (inexact) *worst = std::max(*worst, d);
    if (!ok && inexact) ok = x[i] == y[i] || (finite && d <= tol);
    if (ok) continue;
    if (bad++ < 5) {
      char b[160];
      std::snprintf(b, sizeof b, "  element %zu: fused %.9g unfused %.9g\n", i,
                    x[i], y[i]);
      out += b;
    }
  }
  if (bad) {
    char b[120];
    std::snprintf(b, sizeof b, "  %d of %zu elements differ (%s, scale %g)\n",
                  bad, n, inexact ? "tolerance" : "bitwise", scale);
    out = b + out;
  }
  return out;
}

struct Coverage {
  int programs = 0, elementwise = 0, absorbed = 0, row = 0, epilogue = 0;
  int reduce_only = 0;  // an absorbed reduction whose values are not written
  int attention = 0;
  int no_row = 0, api = 0;
  double worst = 0;  // largest library difference (Diff)
  uint64_t worst_seed = 0;
};

void CountKinds(const hlx_plan_t* p, Coverage* c) {
  bool ew = false, red = false, row = false, ep = false, only = false;
  bool att = false;
  for (int32_t i = 0; i < p->num_tasks; i++) {
    const char* n = p->tasks[i].name;
    bool fused = std::strncmp(n, "fused(", 6) == 0;
    ew = ew || fused;
    bool r = fused && std::strstr(n, ",reduce");
    red = red || r;
    only = only || (r && p->tasks[i].num_out == 1);
    row = row || std::strncmp(n, "rowfused(", 9) == 0;
    ep = ep || std::strstr(n, "+epilogue") != nullptr;
    att = att || std::strncmp(n, "hlx.attention(", 14) == 0;
  }
  c->programs++;
  c->elementwise += ew;
  c->absorbed += red;
  c->row += row;
  c->epilogue += ep;
  c->reduce_only += only;
  c->attention += att;
}

std::string TaskNames(const hlx_plan_t* p) {
  std::string s;
  for (int32_t i = 0; i < p->num_tasks; i++)
    s += std::string("    ") + p->tasks[i].name + "\n";
  return s;
}

// Every switch that turns a fusion off, set while the reference lowers.
const char* const kOffSwitches[] = {
    "HLX_NO_FUSION",          "HLX_NO_ROW_FUSION",    "HLX_NO_EPILOGUE",
    "HLX_NO_FUSION_RECOMPUTE", "HLX_NO_ATTENTION_FUSION", "HLX_NO_DOT_TRANSPOSE",
    "HLX_NO_SUM_IN_PLACE",    "HLX_NO_SWISH_POST_OP", "HLX_NO_CONV_FOLD"};

// Lowers p with fusion on or off and the given switches set meanwhile.
bool Lower(const Program& p, bool fuse, const std::vector<const char*>& env,
           plan_run::Lowered* l, std::string* err) {
  hlx_status_t s =
      hlx_parse_module(p.text.data(), p.text.size(), "net", 1, &l->module);
  if (!s) {
    hlx_lower_options_t o = {};
    o.disable_fusion = !fuse;
    std::unique_ptr<bool[]> reusable(new bool[p.reusable.size() + 1]);
    for (size_t i = 0; i < p.reusable.size(); i++) reusable[i] = p.reusable[i];
    o.reusable_entry = "main";
    o.reusable_params = reusable.get();
    o.num_reusable_params = (int32_t)p.reusable.size();
    for (const char* e : env) setenv(e, "1", 1);
    s = hlx_lower_module(l->module, &o, &l->lm);
    for (const char* e : env) unsetenv(e);
  }
  if (s) {
    *err = std::string(fuse ? "fused" : "unfused") + " lowering failed: " +
           hlx_status_message(s);
    hlx_status_free(s);
    return false;
  }
  return true;
}

int EnvInt(const char* name, int dflt) {
  const char* e = std::getenv(name);
  return e && *e ? std::atoi(e) : dflt;
}

// Checks one program; failures name the seed and print the program.
// Every third program is also lowered with row fusion off, so its softmax
// and layer norm chains go through elementwise groups (absorbed
// reductions, recomputed producers) instead.
void Check(const Program& p, bool api, Coverage* cov) {
  auto fail = [&](const std::string& what) {
    ADD_FAILURE() << "fusion net seed " << p.seed << " (rerun: FNET_SEED="
                  << p.seed << "): " << what << "\nprogram:\n"
                  << p.text;
  };
  std::vector<const char*> off(std::begin(kOffSwitches), std::end(kOffSwitches));
  plan_run::Lowered fused, plain, no_row;
  std::string err;
  bool row_off = p.seed % 3 == 1;
  if (!Lower(p, false, off, &plain, &err) || !Lower(p, true, {}, &fused, &err) ||
      (row_off && !Lower(p, true, {"HLX_NO_ROW_FUSION"}, &no_row, &err)))
    return fail(err);
  const hlx_plan_t* pu = plain.main();
  const hlx_plan_t* pf = fused.main();
  CountKinds(pf, cov);
  if (EnvInt("FNET_VERBOSE", 0))
    std::cout << "seed " << p.seed << ":\n" << TaskNames(pf);
  const hlx_func_t* f = hlx_module_entry(fused.module);
  plan_run::Buffers in = Inputs(p, f);
  plan_run::Buffers want = plan_run::RunPlan(pu, in, false);
  struct Run {
    const char* name;
    const hlx_plan_t* plan;
    plan_run::Buffers got;
  };
  std::vector<Run> runs = {
      {"fused, sequential", pf, plan_run::RunPlan(pf, in, false)},
      {"fused, split", pf, plan_run::RunPlan(pf, in, true)}};
  if (row_off) {
    cov->no_row++;
    const hlx_plan_t* pn = no_row.main();
    runs.push_back({"fused without row fusion, sequential", pn,
                    plan_run::RunPlan(pn, in, false)});
    runs.push_back({"fused without row fusion, split", pn,
                    plan_run::RunPlan(pn, in, true)});
  }
  if (api) {
    cov->api++;
    runs.push_back({"API, 2 threads", pf, fnet::RunApi(p.text, in, &err)});
    if (runs.back().got.empty()) return fail(err);
  }
  for (const Run& run : runs) {
    std::string diff;
    for (int32_t r = 0; r < f->num_results && r < (int32_t)run.got.size(); r++) {
      const hlx_type_t* t = f->result_types[r];
      double worst = 0;
      std::string d = Diff(t->dtype, run.got[(size_t)r].data(),
                           want[(size_t)r].data(),
                           (size_t)hlx_type_num_elements(t),
                           p.inexact[(size_t)r], p.tol, &worst);
      if (worst > cov->worst) cov->worst = worst, cov->worst_seed = p.seed;
      if (worst > 0 && EnvInt("FNET_VERBOSE", 0))
        std::printf("seed %llu tol %g worst %.3g\n",
                    (unsigned long long)p.seed, p.tol, worst);
      if (!d.empty()) diff += "result " + std::to_string(r) + ":\n" + d;
    }
    if ((int32_t)run.got.size() != f->num_results) diff += "result count\n";
    if (!diff.empty())
      return fail(std::string(run.name) + " differs from unfused:\n" + diff +
                  "its plan:\n" + TaskNames(run.plan));
  }
}

// Runs `count` programs of family f from seed `first` (or FNET_SEED alone
// when it falls in this family's range) and returns the coverage.
Coverage RunFamily(Family f, uint64_t first, int count) {
  Coverage cov;
  const char* one = std::getenv("FNET_SEED");
  count = EnvInt("FNET_PROGRAMS", count);
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < count; i++) {
    uint64_t seed = first + (uint64_t)i;
    if (one && *one) {
      seed = std::strtoull(one, nullptr, 10);
      if (seed < first || seed >= first + 1000000) return cov;
      i = count;
    }
    Program p = Gen(seed).Make(f);
    if (one && *one) std::cout << p.text;
    if (::testing::Test::HasFatalFailure()) break;
    Check(p, seed % 4 == 0, &cov);
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
                 .count();
  std::printf(
      "%d programs in %.1f s: with a fused elementwise task %d, an absorbed "
      "reduction %d (values not written: %d), a row-fused task %d, an "
      "epilogue %d, attention %d; %d also without row fusion, %d through "
      "the API\n",
      cov.programs, s, cov.elementwise, cov.absorbed, cov.reduce_only, cov.row,
      cov.epilogue, cov.attention, cov.no_row, cov.api);
  if (cov.worst > 0)
    std::printf("largest library difference %.3g of the result's scale "
                "(seed %llu)\n",
                cov.worst, (unsigned long long)cov.worst_seed);
  return cov;
}

bool OneSeed() {
  const char* one = std::getenv("FNET_SEED");
  return one && *one;
}

// FNET_FILE=<path>: checks that program instead (minimising a failure by
// hand). Its results are compared as library results when it has a
// convolution or dot_general; FNET_SPECIALS=1 puts NaN/Inf in its inputs.
TEST(FusionNet, ProgramFromFile) {
  const char* path = std::getenv("FNET_FILE");
  if (!path || !*path) GTEST_SKIP() << "FNET_FILE not set";
  std::ifstream f(path);
  ASSERT_TRUE(f.good()) << path;
  std::stringstream ss;
  ss << f.rdbuf();
  Program p;
  p.text = ss.str();
  p.specials = EnvInt("FNET_SPECIALS", 0) != 0;
  bool library = p.text.find("convolution") != std::string::npos ||
                 p.text.find("dot_general") != std::string::npos;
  p.tol = 2e-5;
  Parsed parsed;
  hlx_status_t st = hlx_parse_module(p.text.data(), p.text.size(), "net", 1,
                                     &parsed.module);
  ASSERT_EQ(st, nullptr) << hlx_status_message(st);
  const hlx_func_t* fn = hlx_module_entry(parsed.module);
  p.plain_param.assign((size_t)fn->body->blocks[0]->num_args, false);
  p.reusable = p.plain_param;
  p.inexact.assign((size_t)fn->num_results, library);
  Coverage cov;
  Check(p, true, &cov);
}

// Programs per test: 15-30 s in opt mode together; a sixth under the
// sanitizers (dbg builds, ~30x slower per program: ~100 s).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr int kScale = 6;
#else
constexpr int kScale = 1;
#endif

// Coverage floors as shares of the programs run, about 0.7 of what the
// generator gives: the net fails if it stops producing fused tasks.
void ExpectShare(int got, int programs, double share, const char* what) {
  EXPECT_GE(got, (int)(share * programs))
      << what << ": " << got << " of " << programs << " programs";
}

// Elementwise DAGs, broadcasts, reductions, rows over odd shapes and
// every dtype.
TEST(FusionNet, GeneratedPrograms) {
  Coverage c = RunFamily(kGeneric, 1, 900 / kScale);
  if (OneSeed() || EnvInt("FNET_PROGRAMS", 0)) return;
  ExpectShare(c.elementwise, c.programs, 0.8, "a fused elementwise task");
  ExpectShare(c.absorbed, c.programs, 0.4, "an absorbed reduction");
  ExpectShare(c.reduce_only, c.programs, 0.28,
              "an absorbed reduction whose values are not written");
  ExpectShare(c.row, c.programs, 0.25, "a row-fused task");
  ExpectShare(c.no_row, c.programs, 0.3, "also lowered without row fusion");
  ExpectShare(c.api, c.programs, 0.2, "also run through the API");
}

// Convolution, dot_general and attention heads with epilogue-able
// chains, then the generic ops.
TEST(FusionNet, GeneratedLibraryPrograms) {
  Coverage c = RunFamily(kLibrary, 1000000, 300 / kScale);
  if (OneSeed() || EnvInt("FNET_PROGRAMS", 0)) return;
  ExpectShare(c.epilogue, c.programs, 0.25, "an epilogue");
  ExpectShare(c.attention, c.programs, 0.01, "fused attention");
  ExpectShare(c.elementwise, c.programs, 0.6, "a fused elementwise task");
  ExpectShare(c.absorbed, c.programs, 0.1, "an absorbed reduction");
}

}  // namespace
