// ResNet-50 convolution layers through hlx vs oneDNN called directly.
//
// hlx: a program built with the C API builder (input NCHW as a parameter,
// OIHW weights as a constant, so the executable reorders them once at
// compile time), compiled once, then hlx_executable_run per iteration with
// a fresh result buffer — what an engine linking libhlx pays per call.
// "hlx_wparam" passes the weights as a second parameter instead (nothing
// can be prepared ahead for them); "hlx_wreusable" marks that parameter
// reusable (packed on the first run and kept while runs pass that buffer);
// "hlx_provided" writes into a result buffer made once.
// oneDNN: the forward-inference convolution primitive created once with
// every memory format left to oneDNN (format_any: its preferred blocked
// layouts), inputs reordered into them once outside the timed loop — the
// fastest oneDNN can do and the reference point.
// "pair*" run hlx and oneDNN alternately in one loop (for a loaded machine;
// see RunPair).
// Rates are GFLOP/s (2 * N * O * OH * OW * I * KH * KW per run).
#include <benchmark/benchmark.h>
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "api/hlx.h"
#include "api/hlx_builder_ops.h"

namespace {

struct Layer {
  const char* name;
  int64_t c, h, w, o, k, stride, pad;
  int64_t oh() const { return (h + 2 * pad - k) / stride + 1; }
  int64_t ow() const { return (w + 2 * pad - k) / stride + 1; }
  double flops() const { return 2.0 * o * oh() * ow() * c * k * k; }
};

const Layer kLayers[] = {
    {"conv1_7x7s2_3to64_224", 3, 224, 224, 64, 7, 2, 3},
    {"3x3_64to64_56", 64, 56, 56, 64, 3, 1, 1},
    {"1x1_256to64_56", 256, 56, 56, 64, 1, 1, 0},
    {"3x3_512to512_7", 512, 7, 7, 512, 3, 1, 1},
};

std::vector<float> Random(size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

hlx_tensor_desc_t Desc(std::vector<int64_t> dims) {
  hlx_tensor_desc_t d = {};
  d.element_type = hlx_element_type_from_name("f32");
  d.rank = static_cast<int32_t>(dims.size());
  for (size_t i = 0; i < dims.size(); i++) d.dims[i] = dims[i];
  return d;
}

void SetRate(benchmark::State& st, const Layer& l) {
  st.counters["GFLOPs"] = benchmark::Counter(l.flops() * st.iterations() / 1e9,
                                             benchmark::Counter::kIsRate);
}

// ---- hlx ----

// How the weights reach the program: a constant (packed at compile time),
// a parameter (reordered every run), or a parameter marked reusable
// (hlx_compile_options_t.reusable_params: packed on the first run, kept).
enum Weights { kConstant, kParam, kReusable };

// One layer compiled into an executable; Run() is one hlx_executable_run
// with a fresh result buffer, or (provided) one run writing into a result
// buffer made once (hlx_run_options_t.results_provided: no allocation per
// run, the library alone).
class HlxConv {
 public:
  HlxConv(const Layer& l, Weights wk, bool provided = false)
      : wparam_(wk != kConstant), provided_(provided) {
    hlx_tensor_desc_t xd = Desc({1, l.c, l.h, l.w}), wd = Desc({l.o, l.c, l.k, l.k});
    std::vector<float> x = Random(l.c * l.h * l.w, 1), w = Random(l.o * l.c * l.k * l.k, 2);
    uint32_t xv, wv, y;
    hlx_conv_dimension_numbers_t dn;
    hlx_conv_dimension_numbers_default(2, &dn);
    const int64_t strides[2] = {l.stride, l.stride};
    const int64_t pads[4] = {l.pad, l.pad, l.pad, l.pad};
    err_ = hlx_builder_create("conv", &b_);
    if (!err_) err_ = hlx_builder_parameter(b_, 0, &xd, "x", &xv);
    if (!err_)
      err_ = wparam_ ? hlx_builder_parameter(b_, 1, &wd, "w", &wv)
                     : hlx_builder_constant(b_, &wd, w.data(), &wv);
    if (!err_)
      err_ = hlx_builder_conv_general_dilated(b_, xv, wv, strides, pads, nullptr,
                                              nullptr, &dn, 1, 1, &y);
    if (!err_) err_ = hlx_builder_build(b_, &y, 1, &prog_);
    hlx_compile_options_t opts;
    hlx_compile_options_init(&opts);
    const int32_t reusable[1] = {1};
    if (wk == kReusable) opts.reusable_params = reusable, opts.num_reusable_params = 1;
    if (!err_) err_ = hlx_executable_create(prog_, &opts, &exe_);
    if (!err_) err_ = hlx_buffer_create(&xd, x.data(), &in_[0]);
    if (!err_ && wparam_) err_ = hlx_buffer_create(&wd, w.data(), &in_[1]);
    hlx_tensor_desc_t yd = Desc({1, l.o, l.oh(), l.ow()});
    if (!err_ && provided_) err_ = hlx_buffer_create(&yd, nullptr, &out_);
    hlx_run_options_init(&run_);
    run_.results_provided = provided_;
  }
  ~HlxConv() {
    hlx_buffer_destroy(in_[0]);
    hlx_buffer_destroy(in_[1]);
    hlx_buffer_destroy(out_);
    hlx_executable_destroy(exe_);
    hlx_program_destroy(prog_);
    hlx_builder_destroy(b_);
  }
  // NULL or the message of the first failure (setup or run).
  const char* Error() const { return err_ ? hlx_status_get_message(err_) : nullptr; }
  bool Run() {
    hlx_buffer_t* out[1] = {out_};
    err_ = hlx_executable_run_with_options(exe_, in_, wparam_ ? 2 : 1, out, 1, &run_);
    if (err_) return false;
    if (!provided_) hlx_buffer_destroy(out[0]);
    return true;
  }

 private:
  bool wparam_, provided_;
  hlx_run_options_t run_;
  hlx_buffer_t* out_ = nullptr;
  hlx_status_t err_ = nullptr;
  hlx_builder_t* b_ = nullptr;
  hlx_program_t* prog_ = nullptr;
  hlx_executable_t* exe_ = nullptr;
  hlx_buffer_t* in_[2] = {nullptr, nullptr};
};

void RunHlx(benchmark::State& st, const Layer& l, Weights wk, bool provided) {
  HlxConv h(l, wk, provided);
  if (h.Error()) {
    st.SkipWithError(h.Error());
    return;
  }
  for (auto _ : st)
    if (!h.Run()) {
      st.SkipWithError(h.Error());
      break;
    }
  SetRate(st, l);
}

// ---- oneDNN directly, preferred layouts ----

// A memory of the primitive's chosen format filled from plain data.
dnnl_memory_t Prepared(dnnl_engine_t eng, dnnl_stream_t s,
                       const dnnl_memory_desc_t* plain_md,
                       const dnnl_memory_desc_t* want_md, float* plain) {
  dnnl_memory_t src, dst;
  dnnl_memory_create(&src, plain_md, eng, plain);
  dnnl_memory_create(&dst, want_md, eng, DNNL_MEMORY_ALLOCATE);
  dnnl_primitive_desc_t rpd;
  dnnl_reorder_primitive_desc_create(&rpd, plain_md, eng, want_md, eng, nullptr);
  dnnl_primitive_t r;
  dnnl_primitive_create(&r, rpd);
  dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}};
  dnnl_primitive_execute(r, s, 2, args);
  dnnl_stream_wait(s);
  dnnl_primitive_destroy(r);
  dnnl_primitive_desc_destroy(rpd);
  dnnl_memory_destroy(src);
  return dst;
}

// The primitive with its inputs already in its layouts; Run() executes it.
class OnednnConv {
 public:
  explicit OnednnConv(const Layer& l) {
    dnnl_engine_create(&eng_, dnnl_cpu, 0);
    dnnl_stream_create(&s_, eng_, dnnl_stream_default_flags);
    dnnl_dims_t xd = {1, l.c, l.h, l.w}, wd = {l.o, l.c, l.k, l.k},
                yd = {1, l.o, l.oh(), l.ow()};
    dnnl_dims_t strides = {l.stride, l.stride}, pad = {l.pad, l.pad};
    dnnl_memory_desc_t xany, wany, yany, xplain, wplain;
    dnnl_memory_desc_init_by_tag(&xany, 4, xd, dnnl_f32, dnnl_format_tag_any);
    dnnl_memory_desc_init_by_tag(&wany, 4, wd, dnnl_f32, dnnl_format_tag_any);
    dnnl_memory_desc_init_by_tag(&yany, 4, yd, dnnl_f32, dnnl_format_tag_any);
    dnnl_memory_desc_init_by_tag(&xplain, 4, xd, dnnl_f32, dnnl_nchw);
    dnnl_memory_desc_init_by_tag(&wplain, 4, wd, dnnl_f32, dnnl_oihw);
    dnnl_convolution_desc_t cd;
    dnnl_convolution_forward_desc_init(&cd, dnnl_forward_inference,
                                       dnnl_convolution_direct, &xany, &wany,
                                       nullptr, &yany, strides, pad, pad);
    if (dnnl_primitive_desc_create(&pd_, &cd, nullptr, eng_, nullptr) != dnnl_success) {
      pd_ = nullptr;
      return;
    }
    dnnl_primitive_create(&prim_, pd_);
    std::vector<float> x = Random(l.c * l.h * l.w, 1), w = Random(l.o * l.c * l.k * l.k, 2);
    xm_ = Prepared(eng_, s_, &xplain, dnnl_primitive_desc_query_md(pd_, dnnl_query_src_md, 0),
                   x.data());
    wm_ = Prepared(eng_, s_, &wplain,
                   dnnl_primitive_desc_query_md(pd_, dnnl_query_weights_md, 0), w.data());
    dnnl_memory_create(&ym_, dnnl_primitive_desc_query_md(pd_, dnnl_query_dst_md, 0), eng_,
                       DNNL_MEMORY_ALLOCATE);
  }
  ~OnednnConv() {
    if (pd_) {
      dnnl_memory_destroy(xm_);
      dnnl_memory_destroy(wm_);
      dnnl_memory_destroy(ym_);
      dnnl_primitive_destroy(prim_);
      dnnl_primitive_desc_destroy(pd_);
    }
    dnnl_stream_destroy(s_);
    dnnl_engine_destroy(eng_);
  }
  bool Ok() const { return pd_ != nullptr; }
  void Run() {
    dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, xm_}, {DNNL_ARG_WEIGHTS, wm_}, {DNNL_ARG_DST, ym_}};
    dnnl_primitive_execute(prim_, s_, 3, args);
    dnnl_stream_wait(s_);
  }

 private:
  dnnl_engine_t eng_;
  dnnl_stream_t s_;
  dnnl_primitive_desc_t pd_ = nullptr;
  dnnl_primitive_t prim_ = nullptr;
  dnnl_memory_t xm_ = nullptr, wm_ = nullptr, ym_ = nullptr;
};

void RunOnednn(benchmark::State& st, const Layer& l) {
  OnednnConv c(l);
  if (!c.Ok()) {
    st.SkipWithError("no convolution primitive");
    return;
  }
  for (auto _ : st) c.Run();
  SetRate(st, l);
}

// ---- both in one loop ----

// hlx and oneDNN alternate run by run (which goes first alternates too), each
// run timed alone; the counters are the medians' rates and their ratio. On a
// shared machine whose load changes from second to second, the separate rows
// above compare different moments; these compare neighbouring runs.
double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

void RunPair(benchmark::State& st, const Layer& l, Weights wk, bool provided) {
  HlxConv h(l, wk, provided);
  OnednnConv o(l);
  if (h.Error() || !o.Ok()) {
    st.SkipWithError(h.Error() ? h.Error() : "no convolution primitive");
    return;
  }
  std::vector<double> th, to;
  using Clock = std::chrono::steady_clock;
  bool hlx_first = true;
  for (auto _ : st) {
    for (int k = 0; k < 2; k++) {
      auto t0 = Clock::now();
      if (hlx_first == (k == 0)) {
        if (!h.Run()) {
          st.SkipWithError(h.Error());
          return;
        }
        th.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
      } else {
        o.Run();
        to.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
      }
    }
    hlx_first = !hlx_first;
  }
  double mh = Median(th), mo = Median(to);
  st.counters["hlx_GFLOPs"] = l.flops() / mh / 1e9;
  st.counters["onednn_GFLOPs"] = l.flops() / mo / 1e9;
  st.counters["hlx/onednn"] = mo / mh;
}

int Register() {
  const struct {
    const char* name;
    Weights wk;
    bool provided;
  } kinds[] = {{"", kConstant, false},
               {"_wparam", kParam, false},
               {"_wreusable", kReusable, false},
               {"_provided", kConstant, true}};
  for (const Layer& l : kLayers) {
    std::string n = l.name;
    for (const auto& k : kinds) {
      Weights wk = k.wk;
      bool pr = k.provided;
      benchmark::RegisterBenchmark(("hlx" + std::string(k.name) + "/" + n).c_str(),
                                   [&l, wk, pr](benchmark::State& st) { RunHlx(st, l, wk, pr); })
          ->UseRealTime();
    }
    benchmark::RegisterBenchmark(("onednn_direct/" + n).c_str(),
                                 [&l](benchmark::State& st) { RunOnednn(st, l); })
        ->UseRealTime();
    for (const auto& k : kinds) {
      Weights wk = k.wk;
      bool pr = k.provided;
      benchmark::RegisterBenchmark(("pair" + std::string(k.name) + "/" + n).c_str(),
                                   [&l, wk, pr](benchmark::State& st) { RunPair(st, l, wk, pr); })
          ->UseRealTime();
    }
  }
  return 0;
}
const int kRegistered = Register();

}  // namespace
