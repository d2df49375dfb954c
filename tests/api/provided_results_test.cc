// hlx_run_options_t.results_provided: runs write into the caller's result
// buffers (same values as new buffers, any layout), bad buffers are clear
// errors, failed runs leave the buffers the caller's, concurrent runs of one
// executable each into their own buffers, and probes still work now that
// only programs with probe ops get a probe store.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "api/hlx.h"
#include "tests/api/api_testing.h"

namespace {

using hlx_test::Compile;
using hlx_test::Compiled;
using hlx_test::Msg;

hlx_tensor_desc_t Desc(const char* type, std::vector<int64_t> dims) {
  hlx_tensor_desc_t d = {};
  d.element_type = hlx_element_type_from_name(type);
  d.rank = static_cast<int32_t>(dims.size());
  for (size_t i = 0; i < dims.size(); i++) d.dims[i] = dims[i];
  return d;
}

hlx_buffer_t* Make(const char* type, std::vector<int64_t> dims,
                   const void* data) {
  hlx_tensor_desc_t d = Desc(type, dims);
  hlx_buffer_t* b = nullptr;
  EXPECT_EQ(Msg(hlx_buffer_create(&d, data, &b)), "");
  return b;
}

std::vector<float> Iota(size_t n, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; i++)
    v[i] = scale * static_cast<float>((i * 7) % 13) - 3.0f;
  return v;
}

hlx_run_options_t Provided() {
  hlx_run_options_t ro;
  hlx_run_options_init(&ro);
  ro.results_provided = true;
  return ro;
}

// Two results: a 16x16 dot (libxsmm) and an elementwise chain beside it,
// no fusion so the plan has independent tasks for the pool.
const char* kTwoResults = R"(
  func.func @main(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>)
      -> (tensor<16x16xf32>, tensor<16x16xf32>) {
    %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0]
         : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %1 = stablehlo.multiply %a, %b : tensor<16x16xf32>
    %2 = stablehlo.add %0, %1 : tensor<16x16xf32>
    %3 = stablehlo.tanh %1 : tensor<16x16xf32>
    return %2, %3 : tensor<16x16xf32>, tensor<16x16xf32>
  })";

struct TwoResults {
  Compiled c;
  std::vector<float> a = Iota(256, 0.5f), b = Iota(256, 0.25f);
  hlx_buffer_t* in[2] = {nullptr, nullptr};
  std::vector<float> want[2];  // from new buffers
  explicit TwoResults(int32_t threads) {
    hlx_compile_options_t o;
    hlx_compile_options_init(&o);
    o.num_threads = threads;
    o.fuse_elementwise = false;
    EXPECT_EQ(Compile(kTwoResults, &o, &c), "");
    in[0] = Make("f32", {16, 16}, a.data());
    in[1] = Make("f32", {16, 16}, b.data());
    hlx_buffer_t* out[2];
    EXPECT_EQ(Msg(hlx_executable_run(c.exe, in, 2, out, 2)), "");
    for (int i = 0; i < 2; i++) {
      const float* r = static_cast<const float*>(hlx_buffer_data(out[i]));
      want[i].assign(r, r + 256);
      hlx_buffer_destroy(out[i]);
    }
  }
  ~TwoResults() {
    hlx_buffer_destroy(in[0]);
    hlx_buffer_destroy(in[1]);
  }
};

void ExpectBits(const hlx_buffer_t* b, const std::vector<float>& want) {
  ASSERT_EQ(hlx_buffer_bytes(b), want.size() * sizeof(float));
  EXPECT_EQ(std::memcmp(hlx_buffer_data(b), want.data(), hlx_buffer_bytes(b)),
            0);
}

TEST(ProvidedResults, SameBitsAsNewBuffersInTheCallersMemory) {
  for (int32_t threads : {1, 2}) {
    TwoResults t(threads);
    hlx_buffer_t* out[2] = {Make("f32", {16, 16}, nullptr),
                            Make("f32", {16, 16}, nullptr)};
    const void* mem[2] = {hlx_buffer_data(out[0]), hlx_buffer_data(out[1])};
    hlx_run_options_t ro = Provided();
    for (int run = 0; run < 3; run++) {
      ASSERT_EQ(Msg(hlx_executable_run_with_options(t.c.exe, t.in, 2, out, 2,
                                                    &ro)),
                "");
      EXPECT_EQ(hlx_buffer_data(out[0]), mem[0]);  // the same buffers
      EXPECT_EQ(hlx_buffer_data(out[1]), mem[1]);
      ExpectBits(out[0], t.want[0]);
      ExpectBits(out[1], t.want[1]);
    }
    hlx_buffer_destroy(out[0]);
    hlx_buffer_destroy(out[1]);
  }
}

TEST(ProvidedResults, ResultParameterAndEmptyProgram) {
  // A result that is the parameter itself (no task: the run copies it).
  Compiled c;
  ASSERT_EQ(Compile(R"(
    func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
      return %x : tensor<3xf32>
    })", &c), "");
  float v[3] = {1, -2, 3.5f};
  hlx_buffer_t* in = Make("f32", {3}, v);
  hlx_buffer_t* out = Make("f32", {3}, nullptr);
  hlx_run_options_t ro = Provided();
  ASSERT_EQ(Msg(hlx_executable_run_with_options(c.exe, &in, 1, &out, 1, &ro)),
            "");
  EXPECT_EQ(std::memcmp(hlx_buffer_data(out), v, sizeof(v)), 0);
  hlx_buffer_destroy(in);
  hlx_buffer_destroy(out);
}

TEST(ProvidedResults, AnyLayoutOnBothSides) {
  TwoResults t(1);
  // Parameter a column-major (the run makes a row-major copy), result 0
  // column-major (staged and converted), result 1 row-major.
  std::vector<float> at(256);
  for (int i = 0; i < 16; i++)
    for (int j = 0; j < 16; j++) at[j * 16 + i] = t.a[i * 16 + j];
  int32_t col[2] = {0, 1};
  hlx_buffer_options_t bo;
  hlx_buffer_options_init(&bo);
  bo.minor_to_major = col;
  hlx_tensor_desc_t d = Desc("f32", {16, 16});
  hlx_buffer_t* a_col = nullptr;
  hlx_buffer_t* r_col = nullptr;
  ASSERT_EQ(Msg(hlx_buffer_create_with_options(&d, at.data(), &bo, &a_col)),
            "");
  ASSERT_EQ(Msg(hlx_buffer_create_with_options(&d, nullptr, &bo, &r_col)), "");
  hlx_buffer_t* in[2] = {a_col, t.in[1]};
  hlx_buffer_t* out[2] = {r_col, Make("f32", {16, 16}, nullptr)};
  hlx_run_options_t ro = Provided();
  ASSERT_EQ(Msg(hlx_executable_run_with_options(t.c.exe, in, 2, out, 2, &ro)),
            "");
  const float* r = static_cast<const float*>(hlx_buffer_data(r_col));
  for (int i = 0; i < 16; i++)
    for (int j = 0; j < 16; j++)
      ASSERT_EQ(r[j * 16 + i], t.want[0][i * 16 + j]) << i << "," << j;
  ExpectBits(out[1], t.want[1]);
  hlx_buffer_destroy(a_col);
  hlx_buffer_destroy(r_col);
  hlx_buffer_destroy(out[1]);
}

TEST(ProvidedResults, BadBuffersAreClearErrors) {
  TwoResults t(1);
  hlx_run_options_t ro = Provided();
  hlx_buffer_t* good = Make("f32", {16, 16}, nullptr);
  hlx_buffer_t* wrong = Make("f32", {16, 15}, nullptr);
  {
    hlx_buffer_t* out[2] = {good, wrong};
    std::string m =
        Msg(hlx_executable_run_with_options(t.c.exe, t.in, 2, out, 2, &ro));
    EXPECT_NE(m.find("result buffer 1 is NULL or does not match"),
              std::string::npos)
        << m;
    EXPECT_EQ(out[0], good);  // still the caller's, not replaced
    EXPECT_EQ(out[1], wrong);
  }
  {
    hlx_buffer_t* out[2] = {good, nullptr};
    std::string m =
        Msg(hlx_executable_run_with_options(t.c.exe, t.in, 2, out, 2, &ro));
    EXPECT_NE(m.find("result buffer 1 is NULL"), std::string::npos) << m;
  }
  {
    // A parameter's buffer as a result: the kernels would overwrite what
    // they read.
    hlx_buffer_t* out[2] = {good, t.in[1]};
    std::string m =
        Msg(hlx_executable_run_with_options(t.c.exe, t.in, 2, out, 2, &ro));
    EXPECT_NE(m.find("result buffer 1 shares memory with parameter 1"),
              std::string::npos)
        << m;
  }
  {
    // A zero-copy view over part of a parameter's memory.
    std::vector<float> mem(512, 0.0f);
    hlx_tensor_desc_t d = Desc("f32", {16, 16});
    hlx_buffer_t* p0 = nullptr;
    hlx_buffer_t* r0 = nullptr;
    ASSERT_EQ(Msg(hlx_buffer_create_zero_copy(&d, mem.data(), nullptr, nullptr,
                                              nullptr, &p0)),
              "");
    ASSERT_EQ(Msg(hlx_buffer_create_zero_copy(&d, mem.data() + 128, nullptr,
                                              nullptr, nullptr, &r0)),
              "");
    hlx_buffer_t* in[2] = {p0, t.in[1]};
    hlx_buffer_t* out[2] = {r0, good};
    std::string m =
        Msg(hlx_executable_run_with_options(t.c.exe, in, 2, out, 2, &ro));
    EXPECT_NE(m.find("result buffer 0 shares memory with parameter 0"),
              std::string::npos)
        << m;
    hlx_buffer_destroy(p0);
    hlx_buffer_destroy(r0);
  }
  {
    hlx_buffer_t* out[2] = {good, good};
    std::string m =
        Msg(hlx_executable_run_with_options(t.c.exe, t.in, 2, out, 2, &ro));
    EXPECT_NE(m.find("result buffers 0 and 1 share memory"), std::string::npos)
        << m;
  }
  hlx_buffer_destroy(good);
  hlx_buffer_destroy(wrong);
}

TEST(ProvidedResults, FailedRunKeepsTheCallersBuffers) {
  Compiled c;
  ASSERT_EQ(Compile(R"(
    func.func @main(%a: tensor<2xi32>) -> tensor<2xi32> {
      %0 = stablehlo.add %a, %a : tensor<2xi32>
      check.expect_eq_const %0, dense<[0, 0]> : tensor<2xi32>
      return %0 : tensor<2xi32>
    })", &c), "");
  int32_t v[2] = {1, 2};
  hlx_buffer_t* in = Make("i32", {2}, v);
  hlx_buffer_t* out = Make("i32", {2}, nullptr);
  hlx_buffer_t* keep = out;
  hlx_run_options_t ro = Provided();
  hlx_status_t s = hlx_executable_run_with_options(c.exe, &in, 1, &out, 1, &ro);
  ASSERT_NE(s, nullptr);
  EXPECT_TRUE(hlx_status_is_check_failure(s));
  hlx_status_release(s);
  EXPECT_EQ(out, keep);  // neither destroyed nor replaced (ASan: no UAF)
  hlx_buffer_destroy(out);
  hlx_buffer_destroy(in);
}

TEST(ProvidedResults, ConcurrentRunsOfOneExecutable) {
  hlx_client_options_t co;
  hlx_client_options_init(&co);
  co.num_threads = 3;
  hlx_client_t* client = nullptr;
  ASSERT_EQ(Msg(hlx_client_create(&co, &client)), "");
  TwoResults ref(1);
  auto c = std::make_unique<Compiled>();  // destroyed before the client
  hlx_compile_options_t o;
  hlx_compile_options_init(&o);
  o.client = client;
  o.fuse_elementwise = false;
  ASSERT_EQ(Compile(kTwoResults, &o, c.get()), "");
  std::vector<std::thread> threads;
  std::vector<int> bad(4, 0);
  for (int k = 0; k < 4; k++)
    threads.emplace_back([&, k] {
      hlx_buffer_t* out[2] = {Make("f32", {16, 16}, nullptr),
                              Make("f32", {16, 16}, nullptr)};
      hlx_run_options_t ro = Provided();
      for (int run = 0; run < 200; run++) {
        // Alternate with new-buffer runs: both forms share the executable.
        if (run % 5 == 4) {
          hlx_buffer_t* fresh[2];
          hlx_status_t s = hlx_executable_run(c->exe, ref.in, 2, fresh, 2);
          if (s) {
            hlx_status_release(s);
            bad[k]++;
            continue;
          }
          for (int i = 0; i < 2; i++) {
            bad[k] += std::memcmp(hlx_buffer_data(fresh[i]), ref.want[i].data(),
                                  1024) != 0;
            hlx_buffer_destroy(fresh[i]);
          }
          continue;
        }
        std::memset(const_cast<void*>(hlx_buffer_data(out[0])), 0xff, 1024);
        hlx_status_t s =
            hlx_executable_run_with_options(c->exe, ref.in, 2, out, 2, &ro);
        if (s) {
          hlx_status_release(s);
          bad[k]++;
          continue;
        }
        for (int i = 0; i < 2; i++)
          bad[k] += std::memcmp(hlx_buffer_data(out[i]), ref.want[i].data(),
                                1024) != 0;
      }
      hlx_buffer_destroy(out[0]);
      hlx_buffer_destroy(out[1]);
    });
  for (auto& th : threads) th.join();
  for (int k = 0; k < 4; k++) EXPECT_EQ(bad[k], 0) << "thread " << k;
  c.reset();
  hlx_client_destroy(client);
}

TEST(ProvidedResults, ProbesInNestedRegionsStillRecorded) {
  // The probe sits in a while body: the executable must still see that the
  // program uses probes (the store is made only then).
  Compiled c;
  ASSERT_EQ(Compile(R"(
    func.func @main() -> tensor<i64> {
      %0 = stablehlo.constant dense<0> : tensor<i64>
      %1 = stablehlo.constant dense<1> : tensor<i64>
      %2 = stablehlo.constant dense<3> : tensor<i64>
      %r = stablehlo.while(%i = %0) : tensor<i64>
       cond {
        %c = stablehlo.compare LT, %i, %2 : (tensor<i64>, tensor<i64>) -> tensor<i1>
        stablehlo.return %c : tensor<i1>
      } do {
        %p = interpreter.probe %i, probe_id = "i" : tensor<i64>
        %n = stablehlo.add %p, %1 : tensor<i64>
        stablehlo.return %n : tensor<i64>
      }
      %two = stablehlo.constant dense<2> : tensor<i64>
      check.expect_serialized_eq %two, probe_id = "i", iter = 2 : tensor<i64>
      return %r : tensor<i64>
    })", &c), "");
  hlx_buffer_t* out = Make("i64", {}, nullptr);
  hlx_run_options_t ro = Provided();
  ASSERT_EQ(Msg(hlx_executable_run_with_options(c.exe, nullptr, 0, &out, 1,
                                                &ro)),
            "");
  EXPECT_EQ(*static_cast<const int64_t*>(hlx_buffer_data(out)), 3);
  hlx_buffer_destroy(out);
  // And a lookup that nothing probed still fails.
  Compiled bad;
  ASSERT_EQ(Compile(R"(
    func.func @main() {
      %0 = stablehlo.constant dense<7> : tensor<i64>
      %p = interpreter.probe %0, probe_id = "x" : tensor<i64>
      check.expect_serialized_eq %p, probe_id = "x", iter = 1 : tensor<i64>
      func.return
    })", &bad), "");
  std::string m = Msg(hlx_executable_run(bad.exe, nullptr, 0, nullptr, 0));
  EXPECT_NE(m.find("nothing was probed as 'x' (iteration 1)"),
            std::string::npos)
      << m;
}

}  // namespace
