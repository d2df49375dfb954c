// Runs on a multi-threaded pool give bit-identical results to one-thread
// runs: calls are inlined into the caller's task graph, so their ops run
// concurrently with the caller's, and library kernels (oneDNN matmuls with
// their scratchpads) executing at the same time must not share state.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "api/hlx.h"
#include "tests/api/api_testing.h"

namespace {

using Exe = hlx_test::Compiled;

// Compiles text for runs on `threads` threads.
std::string CompileThreads(const std::string& text, int32_t threads, Exe* e) {
  hlx_compile_options_t o;
  hlx_compile_options_init(&o);
  o.num_threads = threads;
  return hlx_test::Compile(text, &o, e);
}

// Deterministic pseudo-random f32 parameters for every input of `e`.
std::vector<hlx_buffer_t*> Inputs(hlx_executable_t* e) {
  std::vector<hlx_buffer_t*> in;
  uint32_t x = 12345;
  for (int32_t i = 0; i < hlx_executable_num_params(e); i++) {
    hlx_tensor_desc_t d;
    EXPECT_EQ(hlx_executable_param_desc(e, i, &d), nullptr);
    int64_t n = 1;
    for (int32_t k = 0; k < d.rank; k++) n *= d.dims[k];
    std::vector<float> v((size_t)n);
    for (auto& f : v) {
      x = x * 1664525u + 1013904223u;
      f = (float)((x >> 8) & 0xffff) / 65536.0f - 0.5f;
    }
    hlx_buffer_t* b = nullptr;
    EXPECT_EQ(hlx_buffer_create(&d, v.data(), &b), nullptr);
    in.push_back(b);
  }
  return in;
}

// Runs `e` and returns the bytes of every result.
std::vector<std::string> RunAll(hlx_executable_t* e,
                             const std::vector<hlx_buffer_t*>& in) {
  int32_t nr = hlx_executable_num_results(e);
  std::vector<hlx_buffer_t*> out((size_t)nr);
  hlx_status_t s = hlx_executable_run(e, in.data(), (int32_t)in.size(),
                                      out.data(), nr);
  EXPECT_EQ(s, nullptr) << (s ? hlx_status_get_message(s) : "");
  hlx_status_release(s);
  std::vector<std::string> r;
  for (auto* b : out) {
    if (!b) continue;
    r.emplace_back(static_cast<const char*>(hlx_buffer_data(b)),
                   hlx_buffer_bytes(b));
    hlx_buffer_destroy(b);
  }
  return r;
}

void ExpectSameOnOneAndTwoThreads(const std::string& text, int repeats) {
  Exe one, two;
  ASSERT_EQ(CompileThreads(text, 1, &one), "");
  ASSERT_EQ(CompileThreads(text, 2, &two), "");
  std::vector<hlx_buffer_t*> in = Inputs(one.exe);
  std::vector<std::string> want = RunAll(one.exe, in);
  ASSERT_FALSE(want.empty());
  for (int r = 0; r < repeats; r++) ASSERT_EQ(RunAll(two.exe, in), want) << r;
  for (auto* b : in) hlx_buffer_destroy(b);
}

// Two independent matmuls of different shapes (both routed to oneDNN) in
// one program: a plan with oneDNN tasks runs them from the calling thread,
// so this checks that order and pool splits do not change results.
TEST(Concurrency, IndependentLibraryMatmulsMatchOneThread) {
  ExpectSameOnOneAndTwoThreads(R"(
    func.func @main(%a: tensor<192x256xf32>, %b: tensor<256x160xf32>,
                    %c: tensor<200x328xf32>, %d: tensor<328x136xf32>)
        -> (tensor<192x160xf32>, tensor<200x136xf32>) {
      %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0]
          : (tensor<192x256xf32>, tensor<256x160xf32>) -> tensor<192x160xf32>
      %1 = stablehlo.dot_general %c, %d, contracting_dims = [1] x [0]
          : (tensor<200x328xf32>, tensor<328x136xf32>) -> tensor<200x136xf32>
      %2 = stablehlo.exponential %0 : tensor<192x160xf32>
      %3 = stablehlo.tanh %1 : tensor<200x136xf32>
      return %2, %3 : tensor<192x160xf32>, tensor<200x136xf32>
    })", 20);
}

// One oneDNN primitive (cached per shape, so shared by every matmul of
// that shape) executing on two client threads at once: each execution must
// get its own scratch memory, or the two overwrite each other's packed
// operands (oneDNN's default scratchpad belongs to the primitive).
TEST(Concurrency, OneLibraryMatmulOnTwoClientThreadsMatchesSequential) {
  const char* text = R"(
    func.func @main(%a: tensor<33x79x256xf32>, %b: tensor<256x1024xf32>) -> tensor<33x79x1024xf32> {
      %0 = stablehlo.dot_general %a, %b, contracting_dims = [2] x [0]
          : (tensor<33x79x256xf32>, tensor<256x1024xf32>) -> tensor<33x79x1024xf32>
      return %0 : tensor<33x79x1024xf32>
    })";
  Exe e;
  ASSERT_EQ(CompileThreads(text, 1, &e), "");
  std::vector<hlx_buffer_t*> in = Inputs(e.exe);
  std::vector<std::string> want = RunAll(e.exe, in);
  std::vector<std::string> got[2][10];
  std::thread workers[2];
  for (int i = 0; i < 2; i++)
    workers[i] = std::thread([&, i] {
      for (int r = 0; r < 10; r++) got[i][r] = RunAll(e.exe, in);
    });
  for (auto& w : workers) w.join();
  for (int i = 0; i < 2; i++)
    for (int r = 0; r < 10; r++) EXPECT_EQ(got[i][r], want) << i << " " << r;
  for (auto* b : in) hlx_buffer_destroy(b);
}

// A called function is inlined: its ops run beside the caller's (here two
// calls of one function that are independent of each other).
TEST(Concurrency, InlinedCallsMatchOneThread) {
  ExpectSameOnOneAndTwoThreads(R"(
    func.func @main(%a: tensor<64x300xf32>, %b: tensor<300x96xf32>,
                    %c: tensor<64x300xf32>) -> (tensor<64x96xf32>, tensor<64x96xf32>) {
      %0 = call @layer(%a, %b) : (tensor<64x300xf32>, tensor<300x96xf32>) -> tensor<64x96xf32>
      %1 = call @layer(%c, %b) : (tensor<64x300xf32>, tensor<300x96xf32>) -> tensor<64x96xf32>
      return %0, %1 : tensor<64x96xf32>, tensor<64x96xf32>
    }
    func.func private @layer(%x: tensor<64x300xf32>, %w: tensor<300x96xf32>) -> tensor<64x96xf32> {
      %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0]
          : (tensor<64x300xf32>, tensor<300x96xf32>) -> tensor<64x96xf32>
      %1 = call @act(%0) : (tensor<64x96xf32>) -> tensor<64x96xf32>
      return %1 : tensor<64x96xf32>
    }
    func.func private @act(%x: tensor<64x96xf32>) -> tensor<64x96xf32> {
      %0 = stablehlo.logistic %x : tensor<64x96xf32>
      %1 = stablehlo.multiply %x, %0 : tensor<64x96xf32>
      return %1 : tensor<64x96xf32>
    })", 20);
}

// A callee that returns its argument unchanged: the call's result is the
// operand itself, no task at all.
TEST(Concurrency, InlinedIdentityCallReturnsItsOperand) {
  Exe e;
  ASSERT_EQ(CompileThreads(R"(
    func.func @main(%a: tensor<5xf32>) -> (tensor<5xf32>, tensor<5xf32>) {
      %0 = call @id(%a) : (tensor<5xf32>) -> tensor<5xf32>
      %1 = stablehlo.add %0, %a : tensor<5xf32>
      return %0, %1 : tensor<5xf32>, tensor<5xf32>
    }
    func.func private @id(%x: tensor<5xf32>) -> tensor<5xf32> {
      return %x : tensor<5xf32>
    })", 2, &e), "");
  std::vector<hlx_buffer_t*> in = Inputs(e.exe);
  std::vector<std::string> r = RunAll(e.exe, in);
  ASSERT_EQ(r.size(), 2u);
  const float* x = static_cast<const float*>(hlx_buffer_data(in[0]));
  const float* r0 = reinterpret_cast<const float*>(r[0].data());
  const float* r1 = reinterpret_cast<const float*>(r[1].data());
  for (int i = 0; i < 5; i++) {
    EXPECT_EQ(r0[i], x[i]);
    EXPECT_EQ(r1[i], x[i] + x[i]);
  }
  hlx_buffer_destroy(in[0]);
}

// Recursion is not inlined forever: the recursive call stays a call task
// and the run ends with a clear error at the nesting limit.
TEST(Concurrency, RecursiveCallIsAnErrorNotAHang) {
  Exe e;
  ASSERT_EQ(CompileThreads(R"(
    func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
      %0 = call @f(%a) : (tensor<2xf32>) -> tensor<2xf32>
      return %0 : tensor<2xf32>
    }
    func.func private @f(%x: tensor<2xf32>) -> tensor<2xf32> {
      %0 = call @f(%x) : (tensor<2xf32>) -> tensor<2xf32>
      %1 = call @f(%0) : (tensor<2xf32>) -> tensor<2xf32>
      return %1 : tensor<2xf32>
    })", 1, &e), "");
  std::vector<hlx_buffer_t*> in = Inputs(e.exe);
  hlx_buffer_t* out = nullptr;
  hlx_status_t s = hlx_executable_run(e.exe, in.data(), 1, &out, 1);
  ASSERT_NE(s, nullptr);
  EXPECT_NE(std::string(hlx_status_get_message(s)).find("nested deeper"),
            std::string::npos)
      << hlx_status_get_message(s);
  hlx_status_release(s);
  hlx_buffer_destroy(out);
  hlx_buffer_destroy(in[0]);
}

}  // namespace
