// Fused attention (kernels/libs/attention_f32.h) against the reference
// kernel (kernels/ref/attention.c) on random data: odd sizes, every
// operand layout the lowering produces (heads interleaved with rows,
// transposed, padded rows), each scale kind, the floor step, non-default
// reduce inits, NaN/Inf/denormal inputs, each row-pass ISA level the CPU
// has (at AVX-512 both the register path and the libxsmm blocks), on one
// thread and split over three.
//
// Tolerance: S differs by the summation order of D products (each side
// within ~D * u * sum|q k| of the exact value, u = 2^-24) and P inherits
// that as a relative error (d exp(x) = exp(x) dx); O = sum_j P V adds
// ~Lk * u. With |q|, |k|, |v| <= 1 and scale 1/sqrt(D), 4 * (D + Lk) * u
// covers both with margin; a wrong row or column is off by ~0.1.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <thread>
#include <vector>

extern "C" {
#include "kernels/attention.h"
#include "kernels/cpu_features.h"
#include "kernels/dispatch.h"
#include "kernels/libs/attention_f32.h"
}
#include "tests/kernels/random_floats.h"

namespace {

constexpr int64_t kB1 = 2, kB2 = 3, kBatch = kB1 * kB2;
constexpr float kSentinel = -7.0f;

// How one operand [batch, rows, cols] is laid out.
enum Layout {
  kDense,        // [B1, B2, rows, cols]
  kInterleaved,  // [B1, rows, B2, cols] (heads between rows, as JAX does)
  kTransposed,   // [B1, B2, cols, rows]
  kPadded,       // [B1, B2, rows, cols + 3]
};

struct Operand {
  std::vector<float> data;
  std::vector<int64_t> off;
  int64_t s_row = 0, s_col = 0;
};

Operand Make(Layout l, int64_t rows, int64_t cols, uint32_t seed,
             float scale) {
  Operand o;
  int64_t wide = l == kPadded ? cols + 3 : cols;
  o.data = hlx_test::RandomFloats(kBatch * rows * wide, seed, scale);
  for (int64_t b1 = 0; b1 < kB1; b1++)
    for (int64_t b2 = 0; b2 < kB2; b2++) {
      int64_t b = b1 * kB2 + b2;
      o.off.push_back(l == kInterleaved ? b1 * rows * kB2 * cols + b2 * cols
                                        : b * rows * wide);
    }
  o.s_row = l == kInterleaved ? kB2 * cols : l == kTransposed ? 1 : wide;
  o.s_col = l == kTransposed ? rows : 1;
  return o;
}

struct Case {
  int64_t lq, lk, d, dv;
  Layout q = kInterleaved, k = kInterleaved, v = kInterleaved,
         o = kInterleaved;
  hlx_attention_scale_t scale = HLX_ATTENTION_SCALE_MULTIPLY;
  bool floor = true;
  float max_init = -std::numeric_limits<float>::infinity(), sum_init = 0;
  bool specials = false;
};

// Splits [0, n) into three chunks on three threads.
void ThreeThreads(void*, size_t n, size_t, hlx_parallel_fn fn, void* arg) {
  std::vector<std::thread> t;
  for (size_t i = 0; i < 3; i++)
    t.emplace_back(fn, arg, n * i / 3, n * (i + 1) / 3);
  for (auto& x : t) x.join();
}
int Three(void*) { return 3; }

// A row-pass ISA level and, at AVX-512, which path.
struct Path {
  int simd;
  bool xsmm_blocks;
};

void Check(const Case& c, Path path, bool threads) {
  SCOPED_TRACE(::testing::Message()
               << "lq " << c.lq << " lk " << c.lk << " d " << c.d << " dv "
               << c.dv << " layouts " << c.q << c.k << c.v << c.o << " scale "
               << c.scale << " floor " << c.floor << " simd " << path.simd
               << " xsmm blocks " << path.xsmm_blocks << " threads "
               << threads << " specials " << c.specials);
  Operand q = Make(c.q, c.lq, c.d, 1 + c.lq, 1.0f);
  Operand k = Make(c.k, c.lk, c.d, 2 + c.lk, 1.0f);
  Operand v = Make(c.v, c.lk, c.dv, 3 + c.dv, 1.0f);
  Operand o = Make(c.o, c.lq, c.dv, 4, 1.0f);
  const float inf = std::numeric_limits<float>::infinity();
  if (c.specials) {
    // problem 0: a NaN in query row 1 makes that output row NaN.
    q.data[q.off[0] + 1 * q.s_row] = NAN;
    // problem 1: key row 0 = +inf at depth 0 and 0 elsewhere: S[i, 0] is
    // +-inf by the sign of q[i, 0] (+inf rows turn NaN, -inf ones get 0).
    for (int64_t d = 0; d < c.d; d++)
      k.data[k.off[1] + d * k.s_col] = d == 0 ? inf : 0.0f;
    // problem 2: denormal queries and values.
    q.data[q.off[2]] = 1e-39f;
    v.data[v.off[2] + v.s_row] = 1e-40f;
  }
  std::vector<float> ref(o.data.size(), kSentinel),
      got(o.data.size(), kSentinel);
  hlx_attention_params_t p = {};
  p.batch = kBatch;
  p.lq = c.lq, p.lk = c.lk, p.d = c.d, p.dv = c.dv;
  p.q_si = q.s_row, p.q_sd = q.s_col, p.k_sj = k.s_row, p.k_sd = k.s_col;
  p.v_sj = v.s_row, p.v_se = v.s_col, p.o_si = o.s_row, p.o_se = o.s_col;
  p.q_off = q.off.data(), p.k_off = k.off.data(), p.v_off = v.off.data(),
  p.o_off = o.off.data();
  p.scale_kind = c.scale;
  p.scale = c.scale == HLX_ATTENTION_SCALE_DIVIDE ? std::sqrt((float)c.d)
                                                  : 1 / std::sqrt((float)c.d);
  p.max_init = c.max_init;
  p.has_floor = c.floor;
  p.max_floor = c.floor ? -inf : 0;
  p.sum_init = c.sum_init;
  ASSERT_TRUE(hlx_ref_attention_f32(&p, q.data.data(), k.data.data(),
                                    v.data.data(), ref.data(), 0, kBatch));
  hlx_attention_f32_t a;
  hlx_attention_f32_init(&a, &p);
  hlx_dtype_t ot;
  hlx_attention_f32_ops_t ops = {
      hlx_unary_kernel(HLX_UNARY_EXP, HLX_DTYPE_F32, &ot),
      hlx_transpose_kernel(sizeof(float)), path.simd, path.xsmm_blocks};
  hlx_parallel_t par = {nullptr, Three, ThreeThreads};
  ASSERT_TRUE(hlx_attention_f32_run(&a, q.data.data(), k.data.data(),
                                    v.data.data(), got.data(), &ops,
                                    threads ? &par : nullptr));
  double tol = 4.0 * (c.d + c.lk) * 0x1p-24;
  int64_t nan_rows = 0, bad = 0;
  for (size_t i = 0; i < ref.size() && bad < 5; i++) {
    if (std::isnan(ref[i])) {
      nan_rows++;
      if (!std::isnan(got[i])) bad++, ADD_FAILURE() << i << ": " << got[i];
    } else if (!(std::fabs(got[i] - ref[i]) <= tol) &&
               !(std::isinf(ref[i]) && got[i] == ref[i])) {
      bad++;
      ADD_FAILURE() << "element " << i << ": " << got[i] << " vs " << ref[i];
    }
  }
  int64_t pad = 0;  // untouched: the pad columns of padded output rows
  for (float x : got) pad += x == kSentinel;
  EXPECT_EQ(pad, c.o == kPadded ? kBatch * c.lq * 3 : 0);
  if (c.specials) EXPECT_GT(nan_rows, 0);
}

std::vector<Path> Levels() {
  std::vector<Path> l = {{0, false}};
  if (hlx_cpu_supports_isa(HLX_ISA_AVX2)) l.push_back({1, false});
  if (hlx_cpu_supports_isa(HLX_ISA_AVX512)) {
    l.push_back({2, true});
    l.push_back({2, false});  // last: the path the lowering runs
  }
  return l;
}

// Each {lq, lk, d, dv} on every path, on one thread and on three.
template <size_t N>
void CheckSizes(const int64_t (&sizes)[N][4]) {
  for (auto& s : sizes)
    for (Path path : Levels())
      for (bool threads : {false, true}) {
        Case c{s[0], s[1], s[2], s[3]};
        Check(c, path, threads);
      }
}

TEST(AttentionF32, OddSizesAgainstReference) {
  const int64_t sizes[][4] = {{79, 79, 32, 32}, {5, 100, 17, 33},
                              {100, 1, 1, 5},   {3, 79, 33, 1},
                              {17, 100, 5, 17}, {1, 1, 1, 1}};
  CheckSizes(sizes);
}

// The register path's edges: Lk at whole vectors and one past (16, 17),
// its limit 96 and 97 (libxsmm blocks), query rows not a multiple of its
// 4-row groups, V/O wider than its 64-column chunks (65, 130).
TEST(AttentionF32, RegisterPathEdges) {
  const int64_t sizes[][4] = {{6, 96, 7, 65}, {2, 97, 3, 130},
                              {3, 16, 1, 64}, {5, 17, 40, 16},
                              {4, 33, 64, 48}, {7, 80, 32, 129}};
  CheckSizes(sizes);
}

TEST(AttentionF32, Layouts) {
  const Layout all[] = {kDense, kInterleaved, kTransposed, kPadded};
  for (Layout l : all)
    for (int which = 0; which < 4; which++) {
      Case c{7, 19, 5, 6};
      (which == 0 ? c.q : which == 1 ? c.k : which == 2 ? c.v : c.o) = l;
      for (Path path : Levels()) Check(c, path, false);
    }
}

TEST(AttentionF32, ScaleFloorAndInits) {
  for (auto s : {HLX_ATTENTION_SCALE_NONE, HLX_ATTENTION_SCALE_MULTIPLY,
                 HLX_ATTENTION_SCALE_DIVIDE})
    for (bool floor : {false, true}) {
      Case c{9, 23, 17, 4};
      c.scale = s;
      c.floor = floor;
      for (Path path : Levels()) {
        Case d = c;
        Check(d, path, true);
        d.max_init = 0.5f;  // a finite init takes part in the max
        d.sum_init = 0.25f;
        Check(d, path, false);
      }
    }
}

TEST(AttentionF32, NanInfDenormal) {
  for (Path path : Levels())
    for (Layout l : {kInterleaved, kTransposed}) {
      Case c{13, 79, 32, 32, l, l, l, l};
      c.specials = true;
      Check(c, path, true);
    }
}

}  // namespace
