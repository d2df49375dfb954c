// Linear-time scans (kernels/scan.h) against the reference reduce_window on
// the same cumulative windows: every dtype and combiner, both directions,
// every axis, odd sizes, NaN/Inf, inits other than the identity, a split
// across a fake pool, and the window shapes that are (not) scans.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "kernels/dispatch.h" /* hlx_scan */
#include "kernels/scan.h"
#include "kernels/window.h"

namespace {

// A cumulative window along `axis` of `dims` (padding (W-1, 0) forward,
// (0, W-1) reverse), W = dims[axis] + extra.
hlx_window_t ScanWindow(const std::vector<int64_t>& dims, int axis,
                        bool reverse, int64_t extra = 0) {
  hlx_window_t w;
  memset(&w, 0, sizeof w);
  w.rank = (int32_t)dims.size();
  for (int32_t d = 0; d < w.rank; d++) {
    w.in_dims[d] = w.out_dims[d] = dims[d];
    w.window[d] = d == axis ? dims[d] + extra : 1;
    w.stride[d] = w.base_dilation[d] = w.window_dilation[d] = 1;
    w.pad_lo[d] = d == axis && !reverse ? w.window[d] - 1 : 0;
  }
  return w;
}

int64_t Count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// Random element bytes for t; floats get NaN/Inf sprinkled when asked.
std::vector<unsigned char> Random(hlx_dtype_t t, int64_t n, hlx_reduce_op_t op,
                                  bool specials, std::mt19937_64& rng) {
  size_t es = hlx_dtype_size(t);
  std::vector<unsigned char> v((size_t)n * es);
  std::uniform_real_distribution<double> u(-2.0, 2.0), pos(0.9, 1.1);
  for (int64_t i = 0; i < n; i++) {
    unsigned char* p = v.data() + (size_t)i * es;
    if (t == HLX_DTYPE_F32 || t == HLX_DTYPE_F64) {
      double x = op == HLX_REDUCE_MUL ? pos(rng) : u(rng);
      if (specials && rng() % 50 == 0) {
        static const double kSpecial[] = {
            std::numeric_limits<double>::quiet_NaN(), INFINITY, -INFINITY,
            -0.0, 0.0};
        x = kSpecial[rng() % 5];
      }
      if (t == HLX_DTYPE_F32) {
        float f = (float)x;
        memcpy(p, &f, 4);
      } else {
        memcpy(p, &x, 8);
      }
    } else if (t == HLX_DTYPE_PRED) {
      *p = rng() % 3 == 0;
    } else {
      uint64_t r = rng();
      memcpy(p, &r, es);
    }
  }
  return v;
}

double AsDouble(hlx_dtype_t t, const unsigned char* p) {
  if (t == HLX_DTYPE_F32) {
    float f;
    memcpy(&f, p, 4);
    return f;
  }
  double d;
  memcpy(&d, p, 8);
  return d;
}

// Runs hlx_scan and the reference on one window and compares: bitwise
// (NaN as NaN) unless the reverse float add/mul tolerance applies.
void Check(hlx_reduce_op_t op, hlx_dtype_t t, const std::vector<int64_t>& dims,
           int axis, bool reverse, const void* init, bool specials,
           std::mt19937_64& rng, int64_t extra = 0,
           const hlx_parallel_t* par = nullptr) {
  SCOPED_TRACE(testing::Message()
               << hlx_dtype_name(t) << " op " << (int)op << " axis " << axis
               << (reverse ? " reverse" : " forward"));
  hlx_window_t w = ScanWindow(dims, axis, reverse, extra);
  hlx_scan_t s;
  ASSERT_TRUE(hlx_window_as_scan(&w, &s));
  EXPECT_EQ(s.reverse, reverse);
  int64_t n = Count(dims);
  size_t es = hlx_dtype_size(t);
  std::vector<unsigned char> x = Random(t, n, op, specials, rng);
  std::vector<unsigned char> want((size_t)n * es), got((size_t)n * es, 0xAB);
  ASSERT_TRUE(hlx_ref_reduce_window(op, t, &w, x.data(), init, want.data()));
  ASSERT_TRUE(hlx_scan(op, t, &s, x.data(), init, got.data(), par));
  bool is_float = t == HLX_DTYPE_F32 || t == HLX_DTYPE_F64;
  // Reordered: reverse float add/mul, f32 add along the innermost axis.
  bool tolerant =
      is_float && (reverse ? op == HLX_REDUCE_ADD || op == HLX_REDUCE_MUL
                           : op == HLX_REDUCE_ADD && t == HLX_DTYPE_F32 &&
                                 axis == (int)dims.size() - 1);
  double eps = t == HLX_DTYPE_F32 ? 0x1p-24 : 0x1p-53;
  int bad = 0;
  for (int64_t i = 0; i < n && bad < 5; i++) {
    const unsigned char* a = want.data() + (size_t)i * es;
    const unsigned char* b = got.data() + (size_t)i * es;
    if (is_float) {
      double wa = AsDouble(t, a), gb = AsDouble(t, b);
      if (std::isnan(wa) || std::isnan(gb)) {
        EXPECT_TRUE(std::isnan(wa) && std::isnan(gb)) << i << ": " << wa
                                                      << " vs " << gb;
        bad += !(std::isnan(wa) && std::isnan(gb));
        continue;
      }
      if (tolerant && std::isfinite(wa)) {
        // gamma(len) * sum |x| bound, twice (both orders), len <= axis size;
        // for products relative to the result.
        double len = (double)dims[axis];
        double scale = op == HLX_REDUCE_ADD ? 2.0 * len : std::fabs(wa);
        double tol = 2.0 * len * eps * scale + 1e-300;
        EXPECT_NEAR(gb, wa, tol) << i;
        bad += !(std::fabs(gb - wa) <= tol);
        continue;
      }
    }
    bool same = memcmp(a, b, es) == 0;
    EXPECT_TRUE(same) << "element " << i;
    bad += !same;
  }
}

template <typename T>
std::vector<unsigned char> Bytes(T v) {
  std::vector<unsigned char> b(sizeof v);
  memcpy(b.data(), &v, sizeof v);
  return b;
}

// The identity init of (op, t) as element bytes.
std::vector<unsigned char> Identity(hlx_reduce_op_t op, hlx_dtype_t t) {
  size_t es = hlx_dtype_size(t);
  std::vector<unsigned char> b(es, 0);
  bool sgn = t == HLX_DTYPE_S8 || t == HLX_DTYPE_S16 || t == HLX_DTYPE_S32 ||
             t == HLX_DTYPE_S64;
  switch (op) {
    case HLX_REDUCE_ADD:
    case HLX_REDUCE_OR:
    case HLX_REDUCE_XOR:
      break;
    case HLX_REDUCE_MUL:
      if (t == HLX_DTYPE_F32) return Bytes(1.0f);
      if (t == HLX_DTYPE_F64) return Bytes(1.0);
      b[0] = 1;
      break;
    case HLX_REDUCE_AND:
      if (t == HLX_DTYPE_PRED) b[0] = 1;
      else std::fill(b.begin(), b.end(), 0xff);
      break;
    case HLX_REDUCE_MAX:
      if (t == HLX_DTYPE_F32) return Bytes(-INFINITY);
      if (t == HLX_DTYPE_F64) return Bytes(-(double)INFINITY);
      if (sgn) b[es - 1] = 0x80;  // most negative
      break;
    case HLX_REDUCE_MIN:
      if (t == HLX_DTYPE_F32) return Bytes(INFINITY);
      if (t == HLX_DTYPE_F64) return Bytes((double)INFINITY);
      if (t == HLX_DTYPE_PRED) b[0] = 1;
      else std::fill(b.begin(), b.end(), 0xff);
      if (sgn) b[es - 1] = 0x7f;
      break;
    default:
      break;
  }
  return b;
}

const hlx_dtype_t kTypes[] = {HLX_DTYPE_F32, HLX_DTYPE_F64, HLX_DTYPE_S8,
                              HLX_DTYPE_S16, HLX_DTYPE_S32, HLX_DTYPE_S64,
                              HLX_DTYPE_U8,  HLX_DTYPE_U16, HLX_DTYPE_U32,
                              HLX_DTYPE_U64, HLX_DTYPE_PRED};
const hlx_reduce_op_t kOps[] = {HLX_REDUCE_ADD, HLX_REDUCE_MUL,
                                HLX_REDUCE_MAX, HLX_REDUCE_MIN,
                                HLX_REDUCE_AND, HLX_REDUCE_OR, HLX_REDUCE_XOR};

TEST(Scan, EveryDtypeOpAxisDirectionMatchesReference) {
  std::mt19937_64 rng(1);
  // Odd sizes; the innermost axis has > 8 lines (interleaved groups plus a
  // remainder), the others column blocks.
  const std::vector<int64_t> dims = {3, 37, 19};
  for (hlx_dtype_t t : kTypes)
    for (hlx_reduce_op_t op : kOps) {
      bool is_float = t == HLX_DTYPE_F32 || t == HLX_DTYPE_F64;
      if (is_float && op >= HLX_REDUCE_AND) {
        EXPECT_FALSE(hlx_scan_supported(op, t));
        continue;
      }
      ASSERT_TRUE(hlx_scan_supported(op, t));
      std::vector<unsigned char> init = Identity(op, t);
      for (int axis = 0; axis < 3; axis++)
        for (bool rev : {false, true})
          Check(op, t, dims, axis, rev, init.data(), false, rng);
      // Lines long enough for the skewed 8-line path (> 7 cache lines).
      for (bool rev : {false, true})
        Check(op, t, {9, 500}, 1, rev, init.data(), false, rng);
    }
}

TEST(Scan, LongLinesWideRowsAndOneDim) {
  std::mt19937_64 rng(2);
  float zero = 0.0f;
  int32_t izero = 0;
  for (bool rev : {false, true}) {
    Check(HLX_REDUCE_ADD, HLX_DTYPE_F32, {1001}, 0, rev, &zero, false, rng);
    Check(HLX_REDUCE_ADD, HLX_DTYPE_S32, {1001}, 0, rev, &izero, false, rng);
    // Rows wider than one column block (2048) with a partial block.
    Check(HLX_REDUCE_ADD, HLX_DTYPE_F32, {9, 2100}, 0, rev, &zero, false, rng);
    Check(HLX_REDUCE_ADD, HLX_DTYPE_F32, {17, 300}, 1, rev, &zero, false, rng);
    // Windows larger than the axis are scans too.
    Check(HLX_REDUCE_ADD, HLX_DTYPE_S32, {5, 7}, 1, rev, &izero, false, rng,
          3);
  }
}

TEST(Scan, NanInfAndSignedZeros) {
  std::mt19937_64 rng(3);
  const std::vector<int64_t> dims = {13, 11, 9};
  for (hlx_dtype_t t : {HLX_DTYPE_F32, HLX_DTYPE_F64})
    for (hlx_reduce_op_t op : {HLX_REDUCE_ADD, HLX_REDUCE_MUL, HLX_REDUCE_MAX,
                               HLX_REDUCE_MIN}) {
      std::vector<unsigned char> init = Identity(op, t);
      for (int axis = 0; axis < 3; axis++)
        for (bool rev : {false, true})
          Check(op, t, dims, axis, rev, init.data(), true, rng);
    }
  // JAX's cumsum init is +0: -0 inputs become +0 exactly as the reference.
  float pz = 0.0f, nz = -0.0f;
  for (bool rev : {false, true}) {
    Check(HLX_REDUCE_ADD, HLX_DTYPE_F32, dims, 2, rev, &pz, true, rng);
    Check(HLX_REDUCE_ADD, HLX_DTYPE_F32, dims, 0, rev, &nz, true, rng);
  }
}

TEST(Scan, IdempotentNonIdentityInitsMatchOthersDecline) {
  std::mt19937_64 rng(4);
  const std::vector<int64_t> dims = {6, 21};
  // max/min fold any init exactly once in effect: 5 is not the identity.
  int32_t five = 5;
  float half = 0.5f;
  for (int axis = 0; axis < 2; axis++)
    for (bool rev : {false, true}) {
      Check(HLX_REDUCE_MAX, HLX_DTYPE_S32, dims, axis, rev, &five, false, rng);
      Check(HLX_REDUCE_MIN, HLX_DTYPE_S32, dims, axis, rev, &five, false, rng);
      Check(HLX_REDUCE_MAX, HLX_DTYPE_F32, dims, axis, rev, &half, true, rng);
      Check(HLX_REDUCE_AND, HLX_DTYPE_S32, dims, axis, rev, &five, false, rng);
    }
  // add with init 3 folds 3 once per hole: not a scan; nothing is written.
  hlx_window_t w = ScanWindow(dims, 1, false);
  hlx_scan_t s;
  ASSERT_TRUE(hlx_window_as_scan(&w, &s));
  std::vector<int32_t> x(6 * 21, 1), out(6 * 21, -7);
  int32_t three = 3;
  float fone = 1.0f;
  EXPECT_FALSE(hlx_scan(HLX_REDUCE_ADD, HLX_DTYPE_S32, &s, x.data(), &three,
                        out.data(), nullptr));
  EXPECT_FALSE(hlx_scan(HLX_REDUCE_ADD, HLX_DTYPE_F32, &s, x.data(), &fone,
                        out.data(), nullptr));
  EXPECT_FALSE(hlx_scan(HLX_REDUCE_XOR, HLX_DTYPE_S32, &s, x.data(), &three,
                        out.data(), nullptr));
  for (int32_t v : out) ASSERT_EQ(v, -7);
  EXPECT_FALSE(hlx_scan(HLX_REDUCE_ADD, HLX_DTYPE_F16, &s, x.data(), &three,
                        out.data(), nullptr));
}

// f32 sums over more than 32 MiB take the non-temporal store path: a
// forward output depends only on x[0..i] (blocks start at the line's
// start), a reverse one only on x[i..n), so a short prefix / suffix scanned
// with regular stores must match bit-for-bit; aligned and misaligned out.
TEST(Scan, LargeF32SumsStreamTheSameBits) {
  const int64_t n = (8 << 20) + 5, m = 100003;
  std::vector<float> x((size_t)n + 1), y((size_t)n + 1), z((size_t)m);
  std::mt19937 rng(6);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (auto& v : x) v = u(rng);
  float zero = 0.0f;
  for (int off : {0, 1})
    for (bool rev : {false, true}) {
      SCOPED_TRACE(testing::Message() << "offset " << off << " rev " << rev);
      hlx_scan_t all = {1, n, 1, rev}, part = {1, m, 1, rev};
      ASSERT_TRUE(hlx_scan(HLX_REDUCE_ADD, HLX_DTYPE_F32, &all, x.data(),
                           &zero, y.data() + off, nullptr));
      const float* xs = rev ? x.data() + (n - m) : x.data();
      ASSERT_TRUE(hlx_scan(HLX_REDUCE_ADD, HLX_DTYPE_F32, &part, xs, &zero,
                           z.data(), nullptr));
      const float* ys = y.data() + off + (rev ? n - m : 0);
      ASSERT_EQ(0, memcmp(ys, z.data(), (size_t)m * 4));
      // And the running total is a sum: last output near the exact one.
      double exact = 0;
      for (int64_t i = 0; i < n; i++) exact += x[i];
      EXPECT_NEAR(y[off + (rev ? 0 : n - 1)], exact, 1.0);
    }
}

// Runs the chunks of every parallel_for one after another, last first,
// in pieces of `grain`: disjoint ranges must cover the work exactly once.
struct FakePool {
  int calls = 0;
};
int FakeThreads(void*) { return 4; }
void FakeFor(void* ctx, size_t n, size_t grain, hlx_parallel_fn fn,
             void* arg) {
  static_cast<FakePool*>(ctx)->calls++;
  if (grain == 0) grain = 1;
  size_t chunks = (n + grain - 1) / grain;
  for (size_t c = chunks; c-- > 0;)
    fn(arg, c * grain, (c + 1) * grain < n ? (c + 1) * grain : n);
}

TEST(Scan, SplitAcrossPoolMatches) {
  std::mt19937_64 rng(5);
  FakePool pool;
  hlx_parallel_t par = {&pool, FakeThreads, FakeFor};
  float zero = 0.0f;
  int64_t izero = 0;
  for (bool rev : {false, true}) {
    Check(HLX_REDUCE_ADD, HLX_DTYPE_F32, {64, 1200}, 1, rev, &zero, false,
          rng, 0, &par);
    Check(HLX_REDUCE_ADD, HLX_DTYPE_S64, {130, 2100}, 0, rev, &izero, false,
          rng, 0, &par);
  }
  EXPECT_EQ(pool.calls, 4);
}

TEST(Scan, WindowShapes) {
  hlx_scan_t s;
  hlx_window_t w = ScanWindow({4, 6, 5}, 1, false);
  ASSERT_TRUE(hlx_window_as_scan(&w, &s));
  EXPECT_EQ(s.outer, 4);
  EXPECT_EQ(s.n, 6);
  EXPECT_EQ(s.inner, 5);
  EXPECT_FALSE(s.reverse);
  // A sliding window (W < N) is no scan.
  w.window[1] = 3;
  w.pad_lo[1] = 2;
  EXPECT_FALSE(hlx_window_as_scan(&w, &s));
  // Padding split both sides is no scan.
  w = ScanWindow({4, 6, 5}, 1, false);
  w.pad_lo[1] = 2;
  EXPECT_FALSE(hlx_window_as_scan(&w, &s));
  // Two scanned dims, strides, dilations: no.
  w = ScanWindow({4, 6, 5}, 1, false);
  w.window[2] = 5;
  w.pad_lo[2] = 4;
  EXPECT_FALSE(hlx_window_as_scan(&w, &s));
  w = ScanWindow({4, 6, 5}, 1, false);
  w.stride[0] = 2;
  EXPECT_FALSE(hlx_window_as_scan(&w, &s));
  w = ScanWindow({4, 6, 5}, 1, false);
  w.window_dilation[1] = 2;
  EXPECT_FALSE(hlx_window_as_scan(&w, &s));
  // All dims untouched: no scan axis.
  w = ScanWindow({4, 1, 5}, 1, false);
  EXPECT_FALSE(hlx_window_as_scan(&w, &s));
}

}  // namespace
