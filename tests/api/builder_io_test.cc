// Builder tokens and side effects (api/hlx_builder_ops.h): AfterAll,
// Infeed/Outfeed through run-option callbacks, Send/Recv between two
// replicas, CustomCall to a registered host function; error rules.
#include <cstring>
#include <functional>
#include <memory>
#include <string>

#include "tests/api/builder_testing.h"

namespace {
using namespace hlx_test;
using Comp = std::unique_ptr<hlx_computation_t, ComputationDeleter>;

struct Feeds {
  std::string in_config, out_config;
  std::vector<float> outfed;
};

hlx_status_t Infeed(void* user, const char* config, void* const* buffers,
                    const size_t* bytes, int32_t n) {
  Feeds* f = static_cast<Feeds*>(user);
  f->in_config = config;
  if (n != 1 || bytes[0] != 3 * sizeof(float))
    return hlx_status_create(3, "unexpected infeed buffers");
  const float v[3] = {1.5f, -2, 4};
  std::memcpy(buffers[0], v, sizeof v);
  return nullptr;
}

hlx_status_t Outfeed(void* user, const char* config, const void* const* buffers,
                     const size_t* bytes, int32_t n) {
  Feeds* f = static_cast<Feeds*>(user);
  f->out_config = config;
  for (int32_t i = 0; i < n; i++) {
    const float* p = static_cast<const float*>(buffers[i]);
    f->outfed.insert(f->outfed.end(), p, p + bytes[i] / sizeof(float));
  }
  return nullptr;
}

// Compiles p and runs it once with the feeds; returns the f32 result.
std::vector<float> RunWithFeeds(hlx_program_t* p, Feeds* feeds) {
  hlx_executable_t* e = nullptr;
  EXPECT_EQ(Msg(hlx_executable_create(p, nullptr, &e)), "");
  std::vector<float> v;
  if (e) {
    hlx_run_options_t o;
    hlx_run_options_init(&o);
    o.infeed = Infeed;
    o.outfeed = Outfeed;
    o.user = feeds;
    hlx_buffer_t* out = nullptr;
    EXPECT_EQ(Msg(hlx_executable_run_with_options(e, nullptr, 0, &out, 1, &o)), "");
    v = Values<float>(out);
    hlx_executable_destroy(e);
  }
  hlx_program_destroy(p);
  return v;
}

TEST(BuilderIo, InfeedOutfeedOrderedByTokens) {
  Builder bb;
  uint32_t t0, t1, in, data, tok, out_tok, joined;
  BOK(hlx_builder_after_all(bb.b, nullptr, 0, &t0));
  hlx_tensor_desc_t d = Desc(F32(), {3});
  BOK(hlx_builder_infeed(bb.b, t0, &d, "in-cfg", &in));
  data = bb.Gte(in, 0);
  tok = bb.Gte(in, 1);
  uint32_t twice = bb.Bin(HLX_BINARY_ADD, data, data);
  BOK(hlx_builder_outfeed(bb.b, twice, tok, "out-cfg", &out_tok));
  uint32_t toks[2] = {tok, out_tok};
  BOK(hlx_builder_after_all(bb.b, toks, 2, &t1));
  (void)joined;
  hlx_program_t* p = bb.Program({data});
  ExpectPrintParses(p);
  Feeds f;
  EXPECT_EQ(RunWithFeeds(p, &f), (std::vector<float>{1.5f, -2, 4}));
  EXPECT_EQ(f.in_config, "in-cfg");
  EXPECT_EQ(f.out_config, "out-cfg");
  EXPECT_EQ(f.outfed, (std::vector<float>{3, -4, 8}));
}

// Replica 0 sends x on channel 7, replica 1 receives it (a case on the
// replica id picks the side); both return what they hold.
TEST(BuilderIo, SendRecvBetweenReplicas) {
  Comp sender, receiver;
  {
    Builder sb("send");
    uint32_t x = sb.Param(0, F32(), {2}), t, done;
    BOK(hlx_builder_after_all(sb.b, nullptr, 0, &t));
    BOK(hlx_builder_send(sb.b, x, t, 7, &done));
    sender.reset(sb.Computation({x}));
  }
  {
    Builder sb("recv");
    sb.Param(0, F32(), {2});
    uint32_t t, r;
    BOK(hlx_builder_after_all(sb.b, nullptr, 0, &t));
    hlx_tensor_desc_t d = Desc(F32(), {2});
    BOK(hlx_builder_recv(sb.b, t, &d, 7, &r));
    receiver.reset(sb.Computation({sb.Gte(r, 0)}));
  }
  Builder bb;
  uint32_t x = bb.Param(0, F32(), {2}), id, idx, r;
  BOK(hlx_builder_replica_id(bb.b, &id));
  BOK(hlx_builder_convert(bb.b, id, I32(), &idx));
  const hlx_computation_t* br[2] = {sender.get(), receiver.get()};
  uint32_t ops[2] = {x, x};
  BOK(hlx_builder_case(bb.b, idx, br, ops, 2, &r));
  hlx_program_t* p = bb.Program({r});
  ExpectPrintParses(p);
  float a[2] = {1, 2}, c[2] = {30, 40};
  std::vector<hlx_buffer_t*> out =
      RunAll(p, {Buf(F32(), {2}, a), Buf(F32(), {2}, c)}, 2);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{1, 2}));
  EXPECT_EQ(Values<float>(out[1]), (std::vector<float>{1, 2}));
}

hlx_status_t AxpyHost(void* user, const void* const* in, int32_t n_in,
                      void* const* out, int32_t n_out, const char* config) {
  std::string* seen = static_cast<std::string*>(user);
  *seen = config;
  if (n_in != 2 || n_out != 2) return hlx_status_create(3, "arity");
  const float* x = static_cast<const float*>(in[0]);
  const float* y = static_cast<const float*>(in[1]);
  float* r = static_cast<float*>(out[0]);
  int32_t* cnt = static_cast<int32_t*>(out[1]);
  for (int i = 0; i < 3; i++) r[i] = 2 * x[i] + y[i];
  *cnt = 3;
  return nullptr;
}

TEST(BuilderIo, CustomCallRunsTheHostFunction) {
  Builder bb;
  uint32_t ops[2] = {bb.F({3}, {1, 2, 3}), bb.F({3}, {10, 20, 30})}, t;
  hlx_tensor_desc_t rd[2] = {Desc(F32(), {3}), Desc(I32(), {})};
  BOK(hlx_builder_custom_call(bb.b, "my.axpy", ops, 2, rd, 2, "alpha=2", false, &t));
  hlx_program_t* p = bb.Program({bb.Gte(t, 0), bb.Gte(t, 1)});
  ExpectPrintParses(p);
  std::string seen;
  hlx_host_function_t hf = {"my.axpy", AxpyHost, &seen};
  hlx_compile_options_t o;
  hlx_compile_options_init(&o);
  o.host_functions = &hf;
  o.num_host_functions = 1;
  hlx_executable_t* e = nullptr;
  ASSERT_EQ(Msg(hlx_executable_create(p, &o, &e)), "");
  hlx_buffer_t* out[2] = {nullptr, nullptr};
  EXPECT_EQ(Msg(hlx_executable_run(e, nullptr, 0, out, 2)), "");
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{12, 24, 36}));
  EXPECT_EQ(Values<int32_t>(out[1]), (std::vector<int32_t>{3}));
  EXPECT_EQ(seen, "alpha=2");
  hlx_executable_destroy(e);
  hlx_program_destroy(p);
}

TEST(BuilderIoErrors, EachRuleIsLatched) {
  const auto check = ExpectOpError;
  check([](Builder& bb, uint32_t* o) {
    uint32_t x = bb.F({1}, {1});
    return hlx_builder_after_all(bb.b, &x, 1, o);
  }, "after_all: token must be a token value");
  check([](Builder& bb, uint32_t* o) {
    uint32_t x = bb.F({1}, {1});
    hlx_tensor_desc_t d = Desc(F32(), {1});
    return hlx_builder_infeed(bb.b, x, &d, nullptr, o);
  }, "infeed: token must be a token value");
  check([](Builder& bb, uint32_t* o) {
    uint32_t t;
    BOK(hlx_builder_after_all(bb.b, nullptr, 0, &t));
    hlx_tensor_desc_t d = Desc(F32(), {-1});
    return hlx_builder_infeed(bb.b, t, &d, nullptr, o);
  }, "infeed: dimension 0 has negative size");
  check([](Builder& bb, uint32_t* o) {
    uint32_t t;
    BOK(hlx_builder_after_all(bb.b, nullptr, 0, &t));
    return hlx_builder_outfeed(bb.b, t, t, nullptr, o);
  }, "outfeed: operand must be a tensor, not a tuple or token");
  check([](Builder& bb, uint32_t* o) {
    uint32_t t, x = bb.F({1}, {1});
    BOK(hlx_builder_after_all(bb.b, nullptr, 0, &t));
    return hlx_builder_send(bb.b, x, t, 0, o);
  }, "send: channel_id 0 must be > 0");
  check([](Builder& bb, uint32_t* o) {
    uint32_t t;
    BOK(hlx_builder_after_all(bb.b, nullptr, 0, &t));
    hlx_tensor_desc_t d = Desc(F32(), {1});
    return hlx_builder_recv(bb.b, t, &d, -3, o);
  }, "recv: channel_id -3 must be > 0");
  check([](Builder& bb, uint32_t* o) {
    hlx_tensor_desc_t d = Desc(F32(), {1});
    return hlx_builder_custom_call(bb.b, "", nullptr, 0, &d, 1, nullptr, false, o);
  }, "custom_call: target_name must be a non-empty string");
  check([](Builder& bb, uint32_t* o) {
    return hlx_builder_custom_call(bb.b, "t", nullptr, 0, nullptr, 0, nullptr, false, o);
  }, "custom_call: needs 1 to 64 result shapes, got 0");
}

}  // namespace
