// dot_general through hlx (public API on a parsed program: parse once,
// compile once, then one hlx_executable_run_with_options per iteration
// writing into a result buffer made once, results_provided; the
// *Fresh rows take a new result buffer per run instead) vs oneDNN's matmul primitive called directly (created once,
// memory objects created once) vs libxsmm called directly (small shapes) vs
// the machine's f32 FMA peak, measured here with an AVX-512 FMA loop on 1
// and 2 threads. All rates are GFLOP/s (2*B*M*N*K per run); RESULTS.md has
// the ratios from one run.
#include <benchmark/benchmark.h>
#include <immintrin.h>
#include <oneapi/dnnl/dnnl.h>
#include <libxsmm.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "api/hlx.h"
#include "benchmarks/fma_peak.h"

namespace {

struct Shape {
  int64_t b, m, n, k;
};

double Flops(const Shape& s) { return 2.0 * s.b * s.m * s.n * s.k; }

std::vector<float> Random(size_t n) {
  std::mt19937 g(42);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

Shape ShapeOf(const benchmark::State& st) {
  return {st.range(0), st.range(1), st.range(2), st.range(3)};
}

// ---- FMA peak ----

BENCHMARK(hlx_bench::BM_FmaPeak)->Arg(1)->Arg(2)->UseRealTime();


// ---- hlx ----

std::string TensorType(std::vector<int64_t> d) {
  std::string s = "tensor<";
  for (int64_t x : d) s += std::to_string(x) + "x";
  return s + "f32>";
}

// provided: results_provided with one result buffer made before the loop;
// else a new result buffer per run (destroyed in the loop).
void RunHlx(benchmark::State& st, bool provided) {
  Shape s = ShapeOf(st);
  std::vector<int64_t> ad = {s.m, s.k}, bd = {s.k, s.n}, od = {s.m, s.n};
  std::string dims = "contracting_dims = [1] x [0]";
  if (s.b > 1) {
    ad.insert(ad.begin(), s.b);
    bd.insert(bd.begin(), s.b);
    od.insert(od.begin(), s.b);
    dims = "batching_dims = [0] x [0], contracting_dims = [2] x [1]";
  }
  std::string a = TensorType(ad), b = TensorType(bd), o = TensorType(od);
  std::string text = "func.func @main(%a: " + a + ", %b: " + b + ") -> " + o +
                     " {\n %0 = stablehlo.dot_general %a, %b, " + dims +
                     " : (" + a + ", " + b + ") -> " + o +
                     "\n return %0 : " + o + "\n}\n";
  hlx_program_t* prog = nullptr;
  hlx_executable_t* exe = nullptr;
  hlx_status_t err =
      hlx_program_parse(text.data(), text.size(), "bench", 1, &prog);
  if (!err) err = hlx_executable_create(prog, nullptr, &exe);
  if (err) {
    st.SkipWithError(hlx_status_get_message(err));
    return;
  }
  hlx_buffer_t* in[2];
  std::vector<int64_t>* dd[2] = {&ad, &bd};
  for (int i = 0; i < 2; i++) {
    hlx_tensor_desc_t d = {};
    d.element_type = hlx_element_type_from_name("f32");
    d.rank = static_cast<int32_t>(dd[i]->size());
    for (size_t j = 0; j < dd[i]->size(); j++) d.dims[j] = (*dd[i])[j];
    size_t n = 1;
    for (int64_t x : *dd[i]) n *= x;
    std::vector<float> v = Random(n);
    (void)hlx_buffer_create(&d, v.data(), &in[i]);
  }
  hlx_run_options_t ro;
  hlx_run_options_init(&ro);
  ro.results_provided = provided;
  hlx_buffer_t* out[1] = {nullptr};
  if (provided) {
    hlx_tensor_desc_t d;
    (void)hlx_executable_result_desc(exe, 0, &d);
    (void)hlx_buffer_create(&d, nullptr, &out[0]);
  }
  for (auto _ : st) {
    hlx_status_t e = hlx_executable_run_with_options(exe, in, 2, out, 1, &ro);
    if (e) {
      st.SkipWithError(hlx_status_get_message(e));
      break;
    }
    if (!provided) hlx_buffer_destroy(out[0]);
  }
  st.counters["GFLOPs"] = benchmark::Counter(Flops(s) * st.iterations() / 1e9,
                                             benchmark::Counter::kIsRate);
  if (provided) hlx_buffer_destroy(out[0]);
  hlx_buffer_destroy(in[0]);
  hlx_buffer_destroy(in[1]);
  hlx_executable_destroy(exe);
  hlx_program_destroy(prog);
}

void BM_Hlx(benchmark::State& st) { RunHlx(st, true); }
void BM_HlxFresh(benchmark::State& st) { RunHlx(st, false); }

// The fixed cost of one hlx_executable_run: arg 0 = 0 runs an empty
// program (returns its f32[1] parameter: no task, the result copied), 1 a
// one-op program (negate of f32[1]); arg 1 = 1 with results_provided, 0
// with a new result buffer per run. One thread (no pool).
void BM_HlxRunOverhead(benchmark::State& st) {
  const char* text =
      st.range(0) == 0
          ? "func.func @main(%x: tensor<1xf32>) -> tensor<1xf32> {\n"
            "  return %x : tensor<1xf32>\n}\n"
          : "func.func @main(%x: tensor<1xf32>) -> tensor<1xf32> {\n"
            "  %0 = stablehlo.negate %x : tensor<1xf32>\n"
            "  return %0 : tensor<1xf32>\n}\n";
  bool provided = st.range(1) != 0;
  hlx_program_t* prog = nullptr;
  hlx_executable_t* exe = nullptr;
  hlx_compile_options_t co;
  hlx_compile_options_init(&co);
  co.num_threads = 1;
  hlx_status_t err =
      hlx_program_parse(text, std::strlen(text), "overhead", 1, &prog);
  if (!err) err = hlx_executable_create(prog, &co, &exe);
  if (err) {
    st.SkipWithError(hlx_status_get_message(err));
    return;
  }
  hlx_tensor_desc_t d;
  (void)hlx_executable_param_desc(exe, 0, &d);
  float one = 1;
  hlx_buffer_t* in = nullptr;
  hlx_buffer_t* out = nullptr;
  (void)hlx_buffer_create(&d, &one, &in);
  if (provided) (void)hlx_buffer_create(&d, nullptr, &out);
  hlx_run_options_t ro;
  hlx_run_options_init(&ro);
  ro.results_provided = provided;
  for (auto _ : st) {
    hlx_status_t e = hlx_executable_run_with_options(exe, &in, 1, &out, 1, &ro);
    if (e) {
      st.SkipWithError(hlx_status_get_message(e));
      break;
    }
    if (!provided) hlx_buffer_destroy(out);
  }
  if (provided) hlx_buffer_destroy(out);
  hlx_buffer_destroy(in);
  hlx_executable_destroy(exe);
  hlx_program_destroy(prog);
}

// ---- oneDNN directly ----

void BM_Onednn(benchmark::State& st) {
  Shape s = ShapeOf(st);
  dnnl_engine_t eng;
  dnnl_stream_t stream;
  dnnl_engine_create(&eng, dnnl_cpu, 0);
  dnnl_stream_create(&stream, eng, dnnl_stream_default_flags);
  dnnl_memory_desc_t amd, bmd, cmd;
  if (s.b > 1) {
    dnnl_dims_t a = {s.b, s.m, s.k}, b = {s.b, s.k, s.n}, c = {s.b, s.m, s.n};
    dnnl_memory_desc_init_by_tag(&amd, 3, a, dnnl_f32, dnnl_abc);
    dnnl_memory_desc_init_by_tag(&bmd, 3, b, dnnl_f32, dnnl_abc);
    dnnl_memory_desc_init_by_tag(&cmd, 3, c, dnnl_f32, dnnl_abc);
  } else {
    dnnl_dims_t a = {s.m, s.k}, b = {s.k, s.n}, c = {s.m, s.n};
    dnnl_memory_desc_init_by_tag(&amd, 2, a, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_init_by_tag(&bmd, 2, b, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_init_by_tag(&cmd, 2, c, dnnl_f32, dnnl_ab);
  }
  dnnl_matmul_desc_t md;
  dnnl_matmul_desc_init(&md, &amd, &bmd, nullptr, &cmd);
  dnnl_primitive_desc_t pd;
  dnnl_primitive_t prim;
  if (dnnl_primitive_desc_create(&pd, &md, nullptr, eng, nullptr) !=
      dnnl_success) {
    st.SkipWithError("no matmul");
    return;
  }
  dnnl_primitive_create(&prim, pd);
  std::vector<float> a = Random(s.b * s.m * s.k), b = Random(s.b * s.k * s.n);
  std::vector<float> c(s.b * s.m * s.n);
  dnnl_memory_t am, bm, cm;
  dnnl_memory_create(&am, &amd, eng, a.data());
  dnnl_memory_create(&bm, &bmd, eng, b.data());
  dnnl_memory_create(&cm, &cmd, eng, c.data());
  dnnl_exec_arg_t args[3] = {
      {DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}};
  for (auto _ : st) {
    dnnl_primitive_execute(prim, stream, 3, args);
    dnnl_stream_wait(stream);
  }
  st.counters["GFLOPs"] = benchmark::Counter(Flops(s) * st.iterations() / 1e9,
                                             benchmark::Counter::kIsRate);
  dnnl_memory_destroy(am);
  dnnl_memory_destroy(bm);
  dnnl_memory_destroy(cm);
  dnnl_primitive_destroy(prim);
  dnnl_primitive_desc_destroy(pd);
  dnnl_stream_destroy(stream);
  dnnl_engine_destroy(eng);
}

// ---- libxsmm directly (one thread, a loop over the batch) ----

void BM_Libxsmm(benchmark::State& st) {
  Shape s = ShapeOf(st);
  libxsmm_init();
  float alpha = 1, beta = 0;
  int flags = LIBXSMM_GEMM_FLAG_NONE, prefetch = LIBXSMM_GEMM_PREFETCH_NONE;
  libxsmm_smmfunction f = libxsmm_smmdispatch(
      (libxsmm_blasint)s.n, (libxsmm_blasint)s.m, (libxsmm_blasint)s.k,
      nullptr, nullptr, nullptr, &alpha, &beta, &flags, &prefetch);
  if (!f) {
    st.SkipWithError("no libxsmm kernel");
    return;
  }
  std::vector<float> a = Random(s.b * s.m * s.k), b = Random(s.b * s.k * s.n);
  std::vector<float> c(s.b * s.m * s.n);
  for (auto _ : st) {
    for (int64_t i = 0; i < s.b; i++)
      f(b.data() + i * s.k * s.n, a.data() + i * s.m * s.k,
        c.data() + i * s.m * s.n);
    benchmark::DoNotOptimize(c.data());
  }
  st.counters["GFLOPs"] = benchmark::Counter(Flops(s) * st.iterations() / 1e9,
                                             benchmark::Counter::kIsRate);
}

// Args: B, M, N, K.
void Shapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"B", "M", "N", "K"});
  b->Args({1, 64, 64, 64});
  b->Args({1, 256, 256, 256});
  b->Args({1, 1024, 1024, 1024});
  b->Args({1, 2048, 2048, 2048});
  b->Args({16, 128, 128, 128});
  b->Args({1, 512, 768, 768});
  // The chess transformer's feed-forward projections (2607 tokens,
  // model width 256, hidden 1024), both directions.
  b->Args({1, 2607, 1024, 256});
  b->Args({1, 2607, 256, 1024});
  b->UseRealTime();
}

void SmallShapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"B", "M", "N", "K"});
  b->Args({1, 8, 8, 8});
  b->Args({256, 8, 8, 8});
  b->Args({64, 16, 16, 16});
  b->Args({32, 32, 32, 32});
  // Near hlx's threshold for splitting libxsmm work over two threads.
  b->Args({8, 16, 16, 16});
  b->Args({1, 32, 32, 32});
  b->Args({1, 48, 48, 48});
  b->Args({1, 64, 64, 64});
  b->UseRealTime();
}

BENCHMARK(BM_Hlx)->Apply(Shapes);
BENCHMARK(BM_Onednn)->Apply(Shapes);
BENCHMARK(BM_Hlx)->Name("BM_HlxSmall")->Apply(SmallShapes);
BENCHMARK(BM_HlxFresh)->Name("BM_HlxSmallFresh")->Apply(SmallShapes);
BENCHMARK(BM_Libxsmm)->Apply(SmallShapes);
BENCHMARK(BM_HlxRunOverhead)
    ->ArgNames({"one_op", "provided"})
    ->ArgsProduct({{0, 1}, {0, 1}});

}  // namespace
