// Stress: several client threads each compile and run many small random
// programs (different task graphs: elementwise ops, transposes, dots and
// reductions over 8x8 tensors) on one shared 3-thread client, and every
// result must be bit-identical to the same program compiled for one
// thread and run sequentially. 4 threads x 300 programs = 1200 graphs.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "api/hlx.h"
#include "tests/api/api_testing.h"

namespace {

const char* kT = "tensor<8x8xf32>";

// A random program of 6-24 ops; each op reads earlier values (or the two
// parameters), the last two values are the results. Fusion groups, library
// dots and reductions all appear, so plans have real concurrency.
std::string RandomProgram(std::mt19937* rng) {
  std::string body;
  std::vector<std::string> vals = {"%a", "%b"};
  int n = 6 + static_cast<int>((*rng)() % 19);
  auto pick = [&] { return vals[(*rng)() % vals.size()]; };
  for (int i = 0; i < n; i++) {
    std::string v = "%v" + std::to_string(i), x = pick(), y = pick();
    std::string line;
    switch ((*rng)() % 8) {
      case 0: line = v + " = stablehlo.add " + x + ", " + y + " : " + kT; break;
      case 1: line = v + " = stablehlo.multiply " + x + ", " + y + " : " + kT; break;
      case 2: line = v + " = stablehlo.subtract " + x + ", " + y + " : " + kT; break;
      case 3: line = v + " = stablehlo.maximum " + x + ", " + y + " : " + kT; break;
      case 4: line = v + " = stablehlo.tanh " + x + " : " + kT; break;
      case 5:
        line = v + " = stablehlo.transpose " + x + ", dims = [1, 0] : (" + kT +
               ") -> " + kT;
        break;
      case 6:
        line = v + " = stablehlo.dot_general " + x + ", " + y +
               ", contracting_dims = [1] x [0] : (" + kT + ", " + kT + ") -> " + kT;
        break;
      default: {  // row sums broadcast back: a reduce feeding elementwise
        std::string r = v + "r", z = v + "z";
        line = z + " = stablehlo.constant dense<0.0> : tensor<f32>\n  " + r +
               " = stablehlo.reduce(" + x + " init: " + z +
               ") applies stablehlo.add across dimensions = [1] : (" + kT +
               ", tensor<f32>) -> tensor<8xf32>\n  " + v +
               " = stablehlo.broadcast_in_dim " + r +
               ", dims = [0] : (tensor<8xf32>) -> " + kT;
      }
    }
    body += "  " + line + "\n";
    vals.push_back(v);
  }
  std::string r0 = vals[vals.size() - 1], r1 = vals[vals.size() - 2];
  return std::string("func.func @main(%a: ") + kT + ", %b: " + kT + ") -> (" +
         kT + ", " + kT + ") {\n" + body + "  return " + r0 + ", " + r1 +
         " : " + kT + ", " + kT + "\n}\n";
}

// Runs c's executable on a, b; the two results' bytes.
std::vector<float> RunBoth(const hlx_test::Compiled& c, hlx_buffer_t* const* in) {
  hlx_buffer_t* out[2] = {nullptr, nullptr};
  std::vector<float> r;
  if (hlx_test::Msg(hlx_executable_run(c.exe, in, 2, out, 2)) != "") return r;
  for (hlx_buffer_t* b : out) {
    const float* p = static_cast<const float*>(hlx_buffer_data(b));
    r.insert(r.end(), p, p + 64);
    hlx_buffer_destroy(b);
  }
  return r;
}

TEST(Stress, ThousandsOfRandomGraphsFromSeveralThreadsMatchSequential) {
  hlx_client_options_t co;
  hlx_client_options_init(&co);
  co.num_threads = 3;
  hlx_client_t* client = nullptr;
  ASSERT_EQ(hlx_test::Msg(hlx_client_create(&co, &client)), "");
  hlx_tensor_desc_t d = {};
  d.element_type = hlx_element_type_from_name("f32");
  d.rank = 2;
  d.dims[0] = d.dims[1] = 8;
  std::vector<float> av(64), bv(64);
  for (int i = 0; i < 64; i++) {
    av[i] = 0.01f * static_cast<float>(i % 13) - 0.05f;
    bv[i] = 0.02f * static_cast<float>(i % 7) - 0.06f;
  }
  hlx_buffer_t* in[2] = {nullptr, nullptr};
  ASSERT_EQ(hlx_test::Msg(hlx_buffer_create(&d, av.data(), &in[0])), "");
  ASSERT_EQ(hlx_test::Msg(hlx_buffer_create(&d, bv.data(), &in[1])), "");

  constexpr int kThreads = 4, kPrograms = 300;
  std::atomic<int> mismatches{0}, failures{0}, compared{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++)
    threads.emplace_back([&, t] {
      std::mt19937 rng(1000u + static_cast<unsigned>(t));
      for (int k = 0; k < kPrograms; k++) {
        std::string text = RandomProgram(&rng);
        hlx_compile_options_t seq, par;
        hlx_compile_options_init(&seq);
        seq.num_threads = 1;
        hlx_compile_options_init(&par);
        par.client = client;
        hlx_test::Compiled cs, cp;
        if (hlx_test::Compile(text, &seq, &cs) != "" ||
            hlx_test::Compile(text, &par, &cp) != "") {
          failures++;
          continue;
        }
        std::vector<float> want = RunBoth(cs, in);
        // Twice on the pool: a second run reuses the executable's blocks.
        for (int rep = 0; rep < 2; rep++) {
          std::vector<float> got = RunBoth(cp, in);
          if (want.empty() || got.size() != want.size()) {
            failures++;
          } else {
            compared++;
            if (std::memcmp(got.data(), want.data(), want.size() * 4) != 0)
              mismatches++;
          }
        }
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(compared.load(), kThreads * kPrograms * 2);
  hlx_buffer_destroy(in[0]);
  hlx_buffer_destroy(in[1]);
  hlx_client_destroy(client);
}

}  // namespace
