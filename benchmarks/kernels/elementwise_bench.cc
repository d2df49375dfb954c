// Elementwise, reduce and transpose kernels: the reference and every ISA
// variant of kernels/elementwise.inc / reduce.inc / data_movement.inc in one
// run, next to STREAM-like copy/triad loops that give this machine's
// bandwidth limit in the same process (DESIGN: ratios, not absolute times).
//
//   bazel run -c opt //benchmarks:elementwise_bench -- \
//       --benchmark_counters_tabular=true
//
// Buffers are 2 MiB-aligned with MADV_HUGEPAGE (what the executor's arena is
// meant to do for large tensors). Counters: bytes_per_second counts the
// bytes the op must move (inputs read + output written); items_per_second
// counts elements. Variants the CPU cannot run are not registered and are
// listed on stderr.
#include <benchmark/benchmark.h>
#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <cstdio>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "kernels/dispatch.h"
#include "kernels/simd.h"

namespace {

constexpr size_t kBig = (size_t)16 << 20;  // 16M elements = 64 MiB of f32
constexpr size_t kSmall = (size_t)16 << 10;  // 16K elements: in L1/L2

struct Buffer {
  explicit Buffer(size_t bytes) : size(bytes) {
    size_t align = (size_t)2 << 20;
    size_t rounded = (bytes + align - 1) / align * align;
    if (posix_memalign(&p, align, rounded) != 0) abort();
    madvise(p, rounded, MADV_HUGEPAGE);
    memset(p, 0, rounded);
  }
  ~Buffer() { free(p); }
  float* f() { return static_cast<float*>(p); }
  void* p = nullptr;
  size_t size;
};

// Shared inputs: a, b in [0.5, 2) (valid for every op incl. log/sqrt),
// y output.
struct Data {
  Buffer a{kBig * 8}, b{kBig * 8}, y{kBig * 8};
  Data() {
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> u(0.5f, 2.0f);
    for (size_t i = 0; i < kBig; i++) {
      a.f()[i] = u(rng);
      b.f()[i] = u(rng);
    }
  }
};
Data& D() {
  static Data* d = new Data;
  return *d;
}

// ---- bandwidth limit: STREAM-like loops, AVX-512 when available ----

__attribute__((target("avx512f"))) void TriadNt512(const float* b,
                                                    const float* c, float* a,
                                                    size_t n, float s) {
  __m512 vs = _mm512_set1_ps(s);
  for (size_t i = 0; i < n; i += 16)
    _mm512_stream_ps(a + i, _mm512_fmadd_ps(vs, _mm512_load_ps(c + i),
                                            _mm512_load_ps(b + i)));
  _mm_sfence();
}
__attribute__((target("avx512f"))) void Triad512(const float* b,
                                                  const float* c, float* a,
                                                  size_t n, float s) {
  __m512 vs = _mm512_set1_ps(s);
  for (size_t i = 0; i < n; i += 16)
    _mm512_store_ps(a + i, _mm512_fmadd_ps(vs, _mm512_load_ps(c + i),
                                           _mm512_load_ps(b + i)));
}
__attribute__((target("avx512f"))) void CopyNt512(const float* b, float* a,
                                                   size_t n) {
  for (size_t i = 0; i < n; i += 16)
    _mm512_stream_ps(a + i, _mm512_load_ps(b + i));
  _mm_sfence();
}
__attribute__((target("avx512f"))) float Read512(const float* b, size_t n) {
  __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
  for (size_t i = 0; i < n; i += 64) {
    s0 = _mm512_add_ps(s0, _mm512_load_ps(b + i));
    s1 = _mm512_add_ps(s1, _mm512_load_ps(b + i + 16));
    s2 = _mm512_add_ps(s2, _mm512_load_ps(b + i + 32));
    s3 = _mm512_add_ps(s3, _mm512_load_ps(b + i + 48));
  }
  return _mm512_reduce_add_ps(
      _mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3)));
}

void BM_StreamTriadNt(benchmark::State& st) {
  size_t n = (size_t)st.range(0);
  for (auto _ : st) TriadNt512(D().a.f(), D().b.f(), D().y.f(), n, 3.0f);
  st.SetBytesProcessed((int64_t)st.iterations() * (int64_t)(3 * n * 4));
  st.SetItemsProcessed((int64_t)st.iterations() * (int64_t)n);
}
void BM_StreamTriad(benchmark::State& st) {
  size_t n = (size_t)st.range(0);
  for (auto _ : st) Triad512(D().a.f(), D().b.f(), D().y.f(), n, 3.0f);
  st.SetBytesProcessed((int64_t)st.iterations() * (int64_t)(3 * n * 4));
  st.SetItemsProcessed((int64_t)st.iterations() * (int64_t)n);
}
void BM_StreamCopyNt(benchmark::State& st) {
  size_t n = (size_t)st.range(0);
  for (auto _ : st) CopyNt512(D().a.f(), D().y.f(), n);
  st.SetBytesProcessed((int64_t)st.iterations() * (int64_t)(2 * n * 4));
  st.SetItemsProcessed((int64_t)st.iterations() * (int64_t)n);
}
void BM_StreamRead(benchmark::State& st) {
  size_t n = (size_t)st.range(0);
  for (auto _ : st) benchmark::DoNotOptimize(Read512(D().a.f(), n));
  st.SetBytesProcessed((int64_t)st.iterations() * (int64_t)(n * 4));
  st.SetItemsProcessed((int64_t)st.iterations() * (int64_t)n);
}

// ---- variants ----

void RunBinary(benchmark::State& st, hlx_binary_fn fn, size_t es) {
  size_t n = (size_t)st.range(0);
  for (auto _ : st) fn(D().a.p, D().b.p, D().y.p, n);
  st.SetBytesProcessed((int64_t)st.iterations() * (int64_t)(3 * n * es));
  st.SetItemsProcessed((int64_t)st.iterations() * (int64_t)n);
}
void RunUnary(benchmark::State& st, hlx_unary_fn fn, size_t es) {
  size_t n = (size_t)st.range(0);
  for (auto _ : st) fn(D().a.p, D().y.p, n);
  st.SetBytesProcessed((int64_t)st.iterations() * (int64_t)(2 * n * es));
  st.SetItemsProcessed((int64_t)st.iterations() * (int64_t)n);
}
// 4096 x 4096 f32 reduce: axis 1 (innermost) or axis 0.
void RunReduce(benchmark::State& st, hlx_reduce_op_t op, hlx_reduce3_fn fn,
               int axis) {
  const int64_t dims[2] = {4096, 4096};
  float init = op == HLX_REDUCE_ADD ? 0.0f : -INFINITY;
  for (auto _ : st) {
    if (fn == nullptr)
      hlx_ref_reduce(op, HLX_DTYPE_F32, 2, dims, 1u << axis, D().a.p, &init,
                     D().y.p);
    else if (axis == 1)
      fn(D().a.p, 4096, 4096, 1, &init, D().y.p);
    else
      fn(D().a.p, 1, 4096, 4096, &init, D().y.p);
  }
  st.SetBytesProcessed((int64_t)st.iterations() * 4096 * 4096 * 4);
  st.SetItemsProcessed((int64_t)st.iterations() * 4096 * 4096);
}
// Square transpose of 64 MiB: 4096^2 f32; 8192^2 bytes, 5792^2 2-byte and
// 2896^2 8-byte elements for the other sizes.
int64_t TransposeEdge(size_t es) {
  return es == 1 ? 8192 : es == 2 ? 5792 : es == 4 ? 4096 : 2896;
}
void RunTranspose(benchmark::State& st, hlx_transpose_fn fn, size_t es) {
  const int64_t n = TransposeEdge(es);
  for (auto _ : st) {
    if (fn == nullptr) {
      int64_t dims[2] = {n, n}, is[2] = {1, n}, os[2] = {n, 1};
      hlx_ref_copy_strided(es, 2, dims, D().a.p, is, D().y.p, os);
    } else {
      fn(D().a.p, n, D().y.p, n, (size_t)n, (size_t)n);
    }
  }
  st.SetBytesProcessed((int64_t)st.iterations() * n * n * 2 * (int64_t)es);
  st.SetItemsProcessed((int64_t)st.iterations() * n * n);
}

// ---- two threads: the kernel on two halves at once (what the executor's
// parallel_for does for large tensors); "mt2/" rows. Splits are 64-byte
// aligned; thread start-up (~50 us) is inside the timed region.

template <typename F>
void OnTwoThreads(size_t n, size_t align, F f) {
  size_t mid = n / 2 / align * align;
  std::thread t([&] { f(0, mid); });
  f(mid, n);
  t.join();
}
void RunBinary2(benchmark::State& st, hlx_binary_fn fn, size_t es) {
  size_t n = (size_t)st.range(0);
  char *a = (char*)D().a.p, *b = (char*)D().b.p, *y = (char*)D().y.p;
  for (auto _ : st)
    OnTwoThreads(n, 16, [&](size_t lo, size_t hi) {
      fn(a + lo * es, b + lo * es, y + lo * es, hi - lo);
    });
  st.SetBytesProcessed((int64_t)st.iterations() * (int64_t)(3 * n * es));
  st.SetItemsProcessed((int64_t)st.iterations() * (int64_t)n);
}
void RunUnary2(benchmark::State& st, hlx_unary_fn fn, size_t es) {
  size_t n = (size_t)st.range(0);
  char *x = (char*)D().a.p, *y = (char*)D().y.p;
  for (auto _ : st)
    OnTwoThreads(n, 16, [&](size_t lo, size_t hi) {
      fn(x + lo * es, y + lo * es, hi - lo);
    });
  st.SetBytesProcessed((int64_t)st.iterations() * (int64_t)(2 * n * es));
  st.SetItemsProcessed((int64_t)st.iterations() * (int64_t)n);
}
// 4096 x 4096 f32 sum over axis 1, rows split between the threads.
void RunReduceRows2(benchmark::State& st, hlx_reduce3_fn fn) {
  const size_t n = 4096;
  float init = 0.0f;
  for (auto _ : st)
    OnTwoThreads(n, 16, [&](size_t lo, size_t hi) {
      fn(D().a.f() + lo * n, hi - lo, n, 1, &init, D().y.f() + lo);
    });
  st.SetBytesProcessed((int64_t)st.iterations() * 4096 * 4096 * 4);
  st.SetItemsProcessed((int64_t)st.iterations() * 4096 * 4096);
}
// 4096 x 4096 transpose, input rows (= output columns) split.
void RunTranspose2(benchmark::State& st, hlx_transpose_fn fn) {
  const int64_t n = 4096;
  for (auto _ : st)
    OnTwoThreads((size_t)n, 16, [&](size_t lo, size_t hi) {
      fn(D().a.f() + lo * n, n, D().y.f() + lo, n, hi - lo, (size_t)n);
    });
  st.SetBytesProcessed((int64_t)st.iterations() * n * n * 8);
  st.SetItemsProcessed((int64_t)st.iterations() * n * n);
}

// ---- pooling, integer and bf16 ops (issue 5; gather / scatter-add:
// gather_scatter_bench.cc) ----

// ResNet-50's max pool: 3x3 stride 2 pad 1 over 64 x 112 x 112 f32.
void RunPool(benchmark::State& st, bool nhwc, bool fast) {
  hlx_window_t w;
  memset(&w, 0, sizeof w);
  w.rank = 4;
  const int64_t in[4] = {1, 64, 112, 112}, in_nhwc[4] = {1, 112, 112, 64};
  for (int d = 0; d < 4; d++) {
    bool sp = nhwc ? (d == 1 || d == 2) : d >= 2;
    w.in_dims[d] = nhwc ? in_nhwc[d] : in[d];
    w.window[d] = sp ? 3 : 1;
    w.stride[d] = sp ? 2 : 1;
    w.pad_lo[d] = sp ? 1 : 0;
    w.base_dilation[d] = w.window_dilation[d] = 1;
    w.out_dims[d] = sp ? 56 : w.in_dims[d];
  }
  float init = -INFINITY;
  hlx_cpu_set_max_isa(fast ? HLX_ISA_COUNT : HLX_ISA_REFERENCE);
  for (auto _ : st)
    hlx_reduce_window(HLX_REDUCE_MAX, HLX_DTYPE_F32, &w, D().a.p, &init, D().y.p);
  hlx_cpu_set_max_isa(HLX_ISA_COUNT);
  st.SetBytesProcessed((int64_t)st.iterations() * (64 * 112 * 112 + 64 * 56 * 56) * 4);
}

void RegisterIssue5Extras() {
  for (bool nhwc : {false, true})
    for (bool fast : {false, true})
      benchmark::RegisterBenchmark(
          (std::string("maxpool3x3s2/") + (fast ? "hlx_reduce_window" : "ref") +
           (nhwc ? "_nhwc" : "_nchw") + "_64x112x112").c_str(),
          [nhwc, fast](benchmark::State& st) { RunPool(st, nhwc, fast); });
  // Integer and bf16 elementwise (kernels/elementwise_ext.inc), 16M.
  for (hlx_dtype_t dt : {HLX_DTYPE_S32, HLX_DTYPE_S8, HLX_DTYPE_BF16})
    for (hlx_isa_t isa : {HLX_ISA_REFERENCE, HLX_ISA_AVX512}) {
      hlx_binary_fn fn = hlx_binary_kernel_for_isa(HLX_BINARY_ADD, dt, isa);
      if (!fn) continue;
      size_t es = hlx_dtype_size(dt);
      benchmark::RegisterBenchmark(
          (std::string(isa == HLX_ISA_REFERENCE ? "ref" : "avx512") + "/" +
           hlx_dtype_name(dt) + "_add")
              .c_str(),
          [fn, es](benchmark::State& st) { RunBinary(st, fn, es); })
          ->Arg((int64_t)kBig);
    }
}

bool Wanted(const char* name) {
  // Keep the run short: the memory-bound binaries, the transcendentals and
  // a few cheap unaries; the tests cover every variant.
  static const char* const kOps[] = {"_add_", "_multiply_", "_maximum_",
                                     "_exponential_", "_log_", "_tanh_",
                                     "_logistic_", "_sine_", "_cosine_",
                                     "_erf_", "_erfc_",
                                     "_sqrt_", "_rsqrt_"};
  std::string s = std::string("_") + name + "_";
  if (s.find("f64") != std::string::npos) return s.find("_add_") != std::string::npos;
  for (const char* op : kOps)
    if (s.find(op) != std::string::npos) return true;
  return false;
}

void RegisterAll() {
  const int64_t sizes[] = {(int64_t)kSmall, (int64_t)kBig};
  benchmark::RegisterBenchmark("stream/read_f32", BM_StreamRead)->Arg(kBig);
  benchmark::RegisterBenchmark("stream/copy_nt_f32", BM_StreamCopyNt)->Arg(kBig);
  benchmark::RegisterBenchmark("stream/triad_f32", BM_StreamTriad)->Arg(kBig);
  benchmark::RegisterBenchmark("stream/triad_nt_f32", BM_StreamTriadNt)->Arg(kBig);

  struct B {
    const char* name;
    hlx_isa_t isa;
    hlx_binary_op_t op;
    hlx_dtype_t dt;
  };
  std::vector<B> bins;
#define HLX_EW_BINARY(ISA, OP, DT, fn) \
  bins.push_back({#fn, HLX_ISA_##ISA, HLX_BINARY_##OP, HLX_DTYPE_##DT});
#include "kernels/elementwise.inc"
  struct U {
    const char* name;
    hlx_isa_t isa;
    hlx_unary_op_t op;
    hlx_dtype_t dt;
  };
  std::vector<U> uns;
#define HLX_EW_UNARY(ISA, OP, DT, fn) \
  uns.push_back({#fn, HLX_ISA_##ISA, HLX_UNARY_##OP, HLX_DTYPE_##DT});
#include "kernels/elementwise.inc"

  auto reg_bin = [&](const std::string& name, hlx_binary_fn fn, size_t es) {
    auto* b = benchmark::RegisterBenchmark(
        name.c_str(), [fn, es](benchmark::State& st) { RunBinary(st, fn, es); });
    for (int64_t s : sizes) b->Arg(s);
  };
  auto reg_un = [&](const std::string& name, hlx_unary_fn fn, size_t es) {
    auto* b = benchmark::RegisterBenchmark(
        name.c_str(), [fn, es](benchmark::State& st) { RunUnary(st, fn, es); });
    for (int64_t s : sizes) b->Arg(s);
  };
  // Reference first, then each variant, per op.
  for (const B& v : bins) {
    if (!Wanted(v.name)) continue;
    if (v.isa == HLX_ISA_AVX512)  // once per (op, dtype)
      reg_bin(std::string("ref/") + hlx_dtype_name(v.dt) + "_" +
                  hlx_binary_op_name(v.op),
              hlx_ref_binary_kernel(v.op, v.dt, nullptr),
              hlx_dtype_size(v.dt));
    hlx_binary_fn fn = hlx_binary_kernel_for_isa(v.op, v.dt, v.isa);
    if (!fn) {
      std::fprintf(stderr, "skipped %s: CPU lacks %s\n", v.name, hlx_isa_name(v.isa));
      continue;
    }
    reg_bin(v.name, fn, hlx_dtype_size(v.dt));
    if (v.isa == HLX_ISA_AVX512 && v.dt == HLX_DTYPE_F32) {
      size_t es = hlx_dtype_size(v.dt);
      benchmark::RegisterBenchmark(
          (std::string("mt2/") + v.name).c_str(),
          [fn, es](benchmark::State& st) { RunBinary2(st, fn, es); })
          ->Arg((int64_t)kBig)
          ->UseRealTime();
    }
  }
  for (const U& v : uns) {
    if (!Wanted(v.name)) continue;
    if (v.isa == HLX_ISA_AVX512)
      reg_un(std::string("ref/") + hlx_dtype_name(v.dt) + "_" +
                 hlx_unary_op_name(v.op),
             hlx_ref_unary_kernel(v.op, v.dt, nullptr), hlx_dtype_size(v.dt));
    hlx_unary_fn fn = hlx_unary_kernel_for_isa(v.op, v.dt, v.isa);
    if (!fn) {
      std::fprintf(stderr, "skipped %s: CPU lacks %s\n", v.name, hlx_isa_name(v.isa));
      continue;
    }
    reg_un(v.name, fn, hlx_dtype_size(v.dt));
    if (v.isa == HLX_ISA_AVX512 && v.dt == HLX_DTYPE_F32) {
      size_t es = hlx_dtype_size(v.dt);
      benchmark::RegisterBenchmark(
          (std::string("mt2/") + v.name).c_str(),
          [fn, es](benchmark::State& st) { RunUnary2(st, fn, es); })
          ->Arg((int64_t)kBig)
          ->UseRealTime();
    }
  }

  for (int axis : {1, 0}) {
    for (hlx_reduce_op_t op : {HLX_REDUCE_ADD, HLX_REDUCE_MAX}) {
      std::string suffix = std::string(op == HLX_REDUCE_ADD ? "sum" : "max") +
                           "_4096x4096_axis" + std::to_string(axis);
      benchmark::RegisterBenchmark(("ref/reduce_" + suffix).c_str(),
                                   [op, axis](benchmark::State& st) {
                                     RunReduce(st, op, nullptr, axis);
                                   });
#define HLX_REDUCE_KERNEL(ISA, OP, DT, fn)                                   \
  if (HLX_REDUCE_##OP == op) {                                               \
    if (hlx_cpu_supports_isa(HLX_ISA_##ISA))                                 \
      benchmark::RegisterBenchmark((std::string(#fn) + "/" + suffix).c_str(), \
                                   [op, axis](benchmark::State& st) {        \
                                     RunReduce(st, op, fn, axis);            \
                                   });                                       \
    else                                                                     \
      std::fprintf(stderr, "skipped %s\n", #fn);                             \
  }
#include "kernels/reduce.inc"
    }
  }
  if (hlx_cpu_supports_isa(HLX_ISA_AVX512)) {
    benchmark::RegisterBenchmark("mt2/hlx_f32_reduce_add__avx512/sum_4096x4096_axis1",
                                 [](benchmark::State& st) {
                                   RunReduceRows2(st, hlx_f32_reduce_add__avx512);
                                 })
        ->UseRealTime();
    benchmark::RegisterBenchmark("mt2/hlx_x32_transpose__avx512/4096x4096",
                                 [](benchmark::State& st) {
                                   RunTranspose2(st, hlx_x32_transpose__avx512);
                                 })
        ->UseRealTime();
  }
  for (size_t es : {1, 2, 4, 8}) {
    std::string e = std::to_string(TransposeEdge(es));
    benchmark::RegisterBenchmark(
        ("ref/transpose_x" + std::to_string(8 * es) + "_" + e + "x" + e).c_str(),
        [es](benchmark::State& st) { RunTranspose(st, nullptr, es); });
  }
#define HLX_TRANSPOSE_KERNEL(ISA, ES, TILE, fn)                            \
  if (hlx_cpu_supports_isa(HLX_ISA_##ISA)) {                               \
    std::string e = std::to_string(TransposeEdge(ES));                     \
    benchmark::RegisterBenchmark((#fn "/" + e + "x" + e).c_str(),          \
                                 [](benchmark::State& st) {                \
                                   RunTranspose(st, fn, ES);               \
                                 });                                       \
  }
#include "kernels/data_movement.inc"
}

}  // namespace

int main(int argc, char** argv) {
  (void)D();  // allocate and fill the buffers outside any timed loop
  RegisterAll();
  RegisterIssue5Extras();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
