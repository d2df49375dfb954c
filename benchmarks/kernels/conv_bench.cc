// ResNet-50 convolution layers through hlx vs oneDNN called directly.
//
// hlx: a program built with the C API builder (input NCHW as a parameter,
// OIHW weights as a constant, so the executable reorders them once at
// compile time), compiled once, then hlx_executable_run per iteration with
// a fresh result buffer — what an engine linking libhlx pays per call.
// "hlx_wparam" passes the weights as a second parameter instead (nothing
// can be prepared ahead for them).
// oneDNN: the forward-inference convolution primitive created once with
// every memory format left to oneDNN (format_any: its preferred blocked
// layouts), inputs reordered into them once outside the timed loop — the
// fastest oneDNN can do and the reference point.
// Rates are GFLOP/s (2 * N * O * OH * OW * I * KH * KW per run).
#include <benchmark/benchmark.h>
#include <oneapi/dnnl/dnnl.h>

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

void RunHlx(benchmark::State& st, const Layer& l, bool weights_as_param) {
  hlx_tensor_desc_t xd = Desc({1, l.c, l.h, l.w}), wd = Desc({l.o, l.c, l.k, l.k});
  std::vector<float> x = Random(l.c * l.h * l.w, 1), w = Random(l.o * l.c * l.k * l.k, 2);
  hlx_builder_t* b = nullptr;
  hlx_program_t* prog = nullptr;
  hlx_executable_t* exe = nullptr;
  uint32_t xv, wv, y;
  hlx_conv_dimension_numbers_t dn;
  hlx_conv_dimension_numbers_default(2, &dn);
  const int64_t strides[2] = {l.stride, l.stride};
  const int64_t pads[4] = {l.pad, l.pad, l.pad, l.pad};
  hlx_status_t err = hlx_builder_create("conv", &b);
  if (!err) err = hlx_builder_parameter(b, 0, &xd, "x", &xv);
  if (!err)
    err = weights_as_param ? hlx_builder_parameter(b, 1, &wd, "w", &wv)
                           : hlx_builder_constant(b, &wd, w.data(), &wv);
  if (!err)
    err = hlx_builder_conv_general_dilated(b, xv, wv, strides, pads, nullptr,
                                           nullptr, &dn, 1, 1, &y);
  if (!err) err = hlx_builder_build(b, &y, 1, &prog);
  if (!err) err = hlx_executable_create(prog, nullptr, &exe);
  hlx_buffer_t* in[2] = {nullptr, nullptr};
  if (!err) err = hlx_buffer_create(&xd, x.data(), &in[0]);
  if (!err && weights_as_param) err = hlx_buffer_create(&wd, w.data(), &in[1]);
  if (err) {
    st.SkipWithError(hlx_status_get_message(err));
  } else {
    for (auto _ : st) {
      hlx_buffer_t* out[1];
      hlx_status_t e = hlx_executable_run(exe, in, weights_as_param ? 2 : 1, out, 1);
      if (e) {
        st.SkipWithError(hlx_status_get_message(e));
        break;
      }
      hlx_buffer_destroy(out[0]);
    }
    SetRate(st, l);
  }
  hlx_buffer_destroy(in[0]);
  hlx_buffer_destroy(in[1]);
  hlx_executable_destroy(exe);
  hlx_program_destroy(prog);
  hlx_builder_destroy(b);
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

void RunOnednn(benchmark::State& st, const Layer& l) {
  dnnl_engine_t eng;
  dnnl_stream_t s;
  dnnl_engine_create(&eng, dnnl_cpu, 0);
  dnnl_stream_create(&s, eng, dnnl_stream_default_flags);
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
  dnnl_primitive_desc_t pd;
  if (dnnl_primitive_desc_create(&pd, &cd, nullptr, eng, nullptr) != dnnl_success) {
    st.SkipWithError("no convolution primitive");
    return;
  }
  dnnl_primitive_t prim;
  dnnl_primitive_create(&prim, pd);
  std::vector<float> x = Random(l.c * l.h * l.w, 1), w = Random(l.o * l.c * l.k * l.k, 2);
  dnnl_memory_t xm = Prepared(eng, s, &xplain,
                              dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0), x.data());
  dnnl_memory_t wm = Prepared(eng, s, &wplain,
                              dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0), w.data());
  dnnl_memory_t ym;
  dnnl_memory_create(&ym, dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0), eng,
                     DNNL_MEMORY_ALLOCATE);
  dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, xm}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DST, ym}};
  for (auto _ : st) {
    dnnl_primitive_execute(prim, s, 3, args);
    dnnl_stream_wait(s);
  }
  SetRate(st, l);
  dnnl_memory_destroy(xm);
  dnnl_memory_destroy(wm);
  dnnl_memory_destroy(ym);
  dnnl_primitive_destroy(prim);
  dnnl_primitive_desc_destroy(pd);
  dnnl_stream_destroy(s);
  dnnl_engine_destroy(eng);
}

int Register() {
  for (const Layer& l : kLayers) {
    std::string n = l.name;
    benchmark::RegisterBenchmark(("hlx/" + n).c_str(), [&l](benchmark::State& st) {
      RunHlx(st, l, false);
    })->UseRealTime();
    benchmark::RegisterBenchmark(("hlx_wparam/" + n).c_str(),
                                 [&l](benchmark::State& st) { RunHlx(st, l, true); })
        ->UseRealTime();
    benchmark::RegisterBenchmark(("onednn_direct/" + n).c_str(),
                                 [&l](benchmark::State& st) { RunOnednn(st, l); })
        ->UseRealTime();
  }
  return 0;
}
const int kRegistered = Register();

}  // namespace
