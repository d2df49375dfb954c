// Helpers for tests of the public C API (api/hlx.h only): status messages
// and a parsed + compiled program that cleans up after itself.
#ifndef HLX_TESTS_API_API_TESTING_H_
#define HLX_TESTS_API_API_TESTING_H_

#include <string>
#include <vector>

#include "api/hlx.h"

namespace hlx_test {

// The message of s ("" for ok); releases s.
inline std::string Msg(hlx_status_t s) {
  std::string m = s ? hlx_status_get_message(s) : "";
  hlx_status_release(s);
  return m;
}

// Owns the handles of one parsed + compiled program.
struct Compiled {
  hlx_program_t* program = nullptr;
  hlx_executable_t* exe = nullptr;
  ~Compiled() {
    hlx_executable_destroy(exe);
    hlx_program_destroy(program);
  }
};

// Parses text into c and compiles it with o (NULL = defaults); returns ""
// or the first error's message.
inline std::string Compile(const std::string& text,
                           const hlx_compile_options_t* o, Compiled* c) {
  hlx_status_t s =
      hlx_program_parse(text.data(), text.size(), "test.mlir", 1, &c->program);
  if (!s) s = hlx_executable_create(c->program, o, &c->exe);
  return Msg(s);
}
inline std::string Compile(const std::string& text, Compiled* c) {
  return Compile(text, nullptr, c);
}

// Compiles text twice with `threads`: `plain` as it is and `cached` with
// parameter `reusable` marked reusable (its packed form kept across runs).
inline std::string CompilePlainAndReusable(const std::string& text, int threads,
                                           int32_t reusable, Compiled* plain,
                                           Compiled* cached) {
  hlx_compile_options_t o;
  hlx_compile_options_init(&o);
  o.num_threads = threads;
  std::string err = Compile(text, &o, plain);
  if (!err.empty()) return err;
  o.reusable_params = &reusable;
  o.num_reusable_params = 1;
  return Compile(text, &o, cached);
}

// An f32 tensor description of dims.
inline hlx_tensor_desc_t F32Desc(const std::vector<int64_t>& dims) {
  hlx_tensor_desc_t d = {};
  d.element_type = hlx_element_type_from_name("f32");
  d.rank = static_cast<int32_t>(dims.size());
  for (size_t i = 0; i < dims.size(); i++) d.dims[i] = dims[i];
  return d;
}

}  // namespace hlx_test

#endif  // HLX_TESTS_API_API_TESTING_H_
