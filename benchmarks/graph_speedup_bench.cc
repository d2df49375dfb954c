// 1 -> 2 thread speed-up of whole programs with independent work, through
// the public API (parse, compile once, hlx_executable_run per iteration):
//
//  - two independent 1024^3 f32 matmuls in one program. They are oneDNN
//    tasks (HLX_TASK_WIDE): the plan runs them one after the other on the
//    caller, each with oneDNN's OpenMP team sized to the thread count.
//    Compared with one matmul run twice (two runs per iteration).
//  - two independent elementwise chains (8 transcendental ops each):
//    unfused 64K-element tensors (each op one task, below the size that
//    splits an op with parallel_for, so only the task graph can use the
//    second thread), and fused 1M-element tensors (one fused task per
//    chain, split with parallel_for).
//
// Arg: threads (compile option num_threads: 1 = the caller only, 2 = a
// private pool of 2). Results and the command: benchmarks/RESULTS.md.
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "api/hlx.h"

namespace {

std::string Tensor(const std::vector<int64_t>& d) {
  std::string s = "tensor<";
  for (int64_t x : d) s += std::to_string(x) + "x";
  return s + "f32>";
}

std::string TwoMatmuls(int64_t n) {
  std::string t = Tensor({n, n});
  std::string dot = " : (" + t + ", " + t + ") -> " + t + "\n";
  return "func.func @main(%a: " + t + ", %b: " + t + ", %c: " + t +
         ", %d: " + t + ") -> (" + t + ", " + t + ") {\n" +
         "  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0]" +
         dot + "  %1 = stablehlo.dot_general %c, %d, contracting_dims = [1] x [0]" +
         dot + "  return %0, %1 : " + t + ", " + t + "\n}\n";
}

std::string OneMatmul(int64_t n) {
  std::string t = Tensor({n, n});
  return "func.func @main(%a: " + t + ", %b: " + t + ") -> " + t + " {\n" +
         "  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0]" +
         " : (" + t + ", " + t + ") -> " + t + "\n  return %0 : " + t +
         "\n}\n";
}

// Two chains x -> exp -> tanh -> sine -> cosine -> ... (8 ops each).
std::string TwoChains(int64_t n) {
  static const char* kOps[] = {"exponential", "tanh",   "sine",
                               "cosine",      "logistic", "sine",
                               "tanh",        "cosine"};
  std::string t = Tensor({n});
  std::string s = "func.func @main(%x: " + t + ", %y: " + t + ") -> (" + t +
                  ", " + t + ") {\n";
  std::string px = "%x", py = "%y";
  for (int i = 0; i < 8; i++) {
    std::string vx = "%x" + std::to_string(i), vy = "%y" + std::to_string(i);
    s += "  " + vx + " = stablehlo." + kOps[i] + " " + px + " : " + t + "\n";
    s += "  " + vy + " = stablehlo." + kOps[i] + " " + py + " : " + t + "\n";
    px = vx;
    py = vy;
  }
  return s + "  return " + px + ", " + py + " : " + t + ", " + t + "\n}\n";
}

struct Compiled {
  hlx_program_t* prog = nullptr;
  hlx_executable_t* exe = nullptr;
  std::vector<hlx_buffer_t*> in;
  std::vector<hlx_buffer_t*> out;
  ~Compiled() {
    for (hlx_buffer_t* b : in) hlx_buffer_destroy(b);
    hlx_executable_destroy(exe);
    hlx_program_destroy(prog);
  }
};

// Parses and compiles text with `threads`, with random inputs.
bool Compile(benchmark::State& st, const std::string& text, int threads,
             bool fuse, Compiled* c) {
  hlx_status_t err =
      hlx_program_parse(text.data(), text.size(), "bench", 1, &c->prog);
  hlx_compile_options_t o;
  hlx_compile_options_init(&o);
  o.num_threads = threads;
  o.fuse_elementwise = fuse;
  if (!err) err = hlx_executable_create(c->prog, &o, &c->exe);
  std::mt19937 g(42);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (int32_t i = 0; !err && i < hlx_executable_num_params(c->exe); i++) {
    hlx_tensor_desc_t d;
    err = hlx_executable_param_desc(c->exe, i, &d);
    size_t n = 1;
    for (int32_t k = 0; k < d.rank; k++) n *= static_cast<size_t>(d.dims[k]);
    std::vector<float> v(n);
    for (float& x : v) x = dist(g);
    hlx_buffer_t* b = nullptr;
    if (!err) err = hlx_buffer_create(&d, v.data(), &b);
    if (b) c->in.push_back(b);
  }
  if (!err) c->out.resize(static_cast<size_t>(hlx_executable_num_results(c->exe)));
  if (err) {
    st.SkipWithError(hlx_status_get_message(err));
    hlx_status_release(err);
    return false;
  }
  return true;
}

bool RunOnce(benchmark::State& st, Compiled* c) {
  hlx_status_t e = hlx_executable_run(c->exe, c->in.data(),
                                      static_cast<int32_t>(c->in.size()),
                                      c->out.data(),
                                      static_cast<int32_t>(c->out.size()));
  if (e) {
    st.SkipWithError(hlx_status_get_message(e));
    hlx_status_release(e);
    return false;
  }
  for (hlx_buffer_t* b : c->out) hlx_buffer_destroy(b);
  return true;
}

// `runs` runs of the program per iteration.
void Bench(benchmark::State& st, const std::string& text, bool fuse,
           int runs) {
  Compiled c;
  if (!Compile(st, text, static_cast<int>(st.range(0)), fuse, &c)) return;
  for (auto _ : st)
    for (int r = 0; r < runs; r++)
      if (!RunOnce(st, &c)) return;
  st.counters["tasks"] = hlx_executable_num_tasks(c.exe);
}

void BM_TwoMatmuls(benchmark::State& st) {
  Bench(st, TwoMatmuls(1024), true, 1);
}
void BM_OneMatmulTwice(benchmark::State& st) {
  Bench(st, OneMatmul(1024), true, 2);
}
void BM_TwoChainsUnfused(benchmark::State& st) {
  Bench(st, TwoChains(64 * 1024), false, 1);
}
void BM_TwoChainsFused(benchmark::State& st) {
  Bench(st, TwoChains(1024 * 1024), true, 1);
}

BENCHMARK(BM_TwoMatmuls)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OneMatmulTwice)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TwoChainsUnfused)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TwoChainsFused)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
