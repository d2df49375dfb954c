#include "tests/graph_lowering/fusion_fuzz_api.h"

extern "C" {
#include "api/hlx.h"
}

namespace fnet {

std::vector<std::vector<unsigned char>> RunApi(
    const std::string& text, const std::vector<std::vector<unsigned char>>& in,
    std::string* err) {
  hlx_program_t* prog = nullptr;
  hlx_status_t s = hlx_program_parse(text.data(), text.size(), "net", 1, &prog);
  hlx_executable_t* e = nullptr;
  if (!s) {
    hlx_compile_options_t o;
    hlx_compile_options_init(&o);
    o.num_threads = 2;
    s = hlx_executable_create(prog, &o, &e);
  }
  std::vector<std::vector<unsigned char>> out;
  std::vector<hlx_buffer_t*> args;
  for (size_t i = 0; !s && i < in.size(); i++) {
    hlx_tensor_desc_t d;
    s = hlx_executable_param_desc(e, (int32_t)i, &d);
    hlx_buffer_t* b = nullptr;
    if (!s) s = hlx_buffer_create(&d, in[i].data(), &b);
    args.push_back(b);
  }
  std::vector<hlx_buffer_t*> res(
      e && !s ? (size_t)hlx_executable_num_results(e) : 0);
  if (!s)
    s = hlx_executable_run(e, args.data(), (int32_t)args.size(), res.data(),
                           (int32_t)res.size());
  if (s) {
    *err = std::string("API: ") + hlx_status_get_message(s);
    hlx_status_release(s);
    res.assign(res.size(), nullptr);
  } else {
    for (hlx_buffer_t* b : res) {
      const auto* d = static_cast<const unsigned char*>(hlx_buffer_data(b));
      out.emplace_back(d, d + hlx_buffer_bytes(b));
    }
  }
  for (hlx_buffer_t* b : res) hlx_buffer_destroy(b);
  for (hlx_buffer_t* b : args) hlx_buffer_destroy(b);
  hlx_executable_destroy(e);
  hlx_program_destroy(prog);
  return out;
}

}  // namespace fnet
