// Replicas and collectives through the public API: all_reduce/all_gather
// with 2 and 4 replicas, a collective whose peers never arrive (timeout),
// concurrent and async runs of one executable, clients and --threads,
// clients pinned to a cpu list.
#include <gtest/gtest.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "api/hlx.h"

namespace {

struct Compiled {
  hlx_program_t* program = nullptr;
  hlx_executable_t* exe = nullptr;
  ~Compiled() {
    hlx_executable_destroy(exe);
    hlx_program_destroy(program);
  }
};

void Compile(const std::string& text, const hlx_compile_options_t& o,
             Compiled* c) {
  hlx_status_t st = hlx_program_parse(text.data(), text.size(), "test.mlir",
                                      1, &c->program);
  ASSERT_EQ(st, nullptr) << hlx_status_get_message(st);
  st = hlx_executable_create(c->program, &o, &c->exe);
  ASSERT_EQ(st, nullptr) << hlx_status_get_message(st);
}

hlx_buffer_t* I64(std::vector<int64_t> v) {
  hlx_tensor_desc_t d{};
  d.element_type = hlx_element_type_from_name("i64");
  d.rank = 1;
  d.dims[0] = static_cast<int64_t>(v.size());
  hlx_buffer_t* b = nullptr;
  EXPECT_EQ(hlx_buffer_create(&d, v.data(), &b), nullptr);
  return b;
}

std::vector<int64_t> Values(const hlx_buffer_t* b) {
  const int64_t* p = static_cast<const int64_t*>(hlx_buffer_data(b));
  return std::vector<int64_t>(p, p + hlx_buffer_bytes(b) / 8);
}

const char kAllReduce[] = R"(
func.func @main(%x: tensor<4xi64>) -> (tensor<4xi64>, tensor<ui32>) {
  %r = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<i64>, %b: tensor<i64>):
      %s = stablehlo.add %a, %b : tensor<i64>
      stablehlo.return %s : tensor<i64>
  }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>}
     : (tensor<4xi64>) -> tensor<4xi64>
  %id = stablehlo.replica_id : tensor<ui32>
  return %r, %id : tensor<4xi64>, tensor<ui32>
}
)";

class ReplicasTest : public ::testing::TestWithParam<int> {};

TEST_P(ReplicasTest, AllReduceAndAllGather) {
  int n = GetParam();
  std::string groups = "[[";
  for (int i = 0; i < n; i++) groups += (i ? ", " : "") + std::to_string(i);
  groups += "]]";
  std::string text = R"(
func.func @main(%x: tensor<2xi64>) -> (tensor<2xi64>, tensor<)" +
                     std::to_string(2 * n) + R"(xi64>) {
  %r = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<i64>, %b: tensor<i64>):
      %s = stablehlo.maximum %a, %b : tensor<i64>
      stablehlo.return %s : tensor<i64>
  }) {replica_groups = dense<)" + groups +
                     R"(> : tensor<1x)" + std::to_string(n) +
                     R"(xi64>} : (tensor<2xi64>) -> tensor<2xi64>
  %g = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64,
       replica_groups = dense<)" +
                     groups + R"(> : tensor<1x)" + std::to_string(n) +
                     R"(xi64>} : (tensor<2xi64>) -> tensor<)" +
                     std::to_string(2 * n) + R"(xi64>
  return %r, %g : tensor<2xi64>, tensor<)" +
                     std::to_string(2 * n) + R"(xi64>
}
)";
  hlx_compile_options_t o;
  hlx_compile_options_init(&o);
  o.num_replicas = n;
  Compiled c;
  Compile(text, o, &c);
  ASSERT_EQ(hlx_executable_num_processes(c.exe), n);
  std::vector<hlx_buffer_t*> params;
  for (int r = 0; r < n; r++) params.push_back(I64({r * 10, 100 - r}));
  std::vector<hlx_buffer_t*> results(2 * n);
  for (int rep = 0; rep < 10; rep++) {
    hlx_status_t st = hlx_executable_run_replicated(
        c.exe, params.data(), n, results.data(), 2 * n);
    ASSERT_EQ(st, nullptr) << hlx_status_get_message(st);
    std::vector<int64_t> gathered;
    for (int r = 0; r < n; r++) {
      gathered.push_back(r * 10);
      gathered.push_back(100 - r);
    }
    for (int r = 0; r < n; r++) {
      EXPECT_EQ(Values(results[2 * r]),
                (std::vector<int64_t>{(n - 1) * 10, 100}));
      EXPECT_EQ(Values(results[2 * r + 1]), gathered);
    }
    for (auto* b : results) hlx_buffer_destroy(b);
  }
  for (auto* b : params) hlx_buffer_destroy(b);
}

INSTANTIATE_TEST_SUITE_P(TwoAndFour, ReplicasTest, ::testing::Values(2, 4));

TEST(Replicas, SumIsIdenticalOnEveryReplicaAndIdsAreRight) {
  hlx_compile_options_t o;
  hlx_compile_options_init(&o);
  o.num_replicas = 4;
  Compiled c;
  Compile(kAllReduce, o, &c);
  std::vector<hlx_buffer_t*> params;
  for (int r = 0; r < 4; r++) params.push_back(I64({r, 1, -r, 1000}));
  std::vector<hlx_buffer_t*> results(8);
  hlx_status_t st = hlx_executable_run_replicated(c.exe, params.data(), 4,
                                                  results.data(), 8);
  ASSERT_EQ(st, nullptr) << hlx_status_get_message(st);
  for (int r = 0; r < 4; r++) {
    EXPECT_EQ(Values(results[2 * r]),
              (std::vector<int64_t>{6, 4, -6, 4000}));
    uint32_t id;
    std::memcpy(&id, hlx_buffer_data(results[2 * r + 1]), 4);
    EXPECT_EQ(id, static_cast<uint32_t>(r));
  }
  for (auto* b : results) hlx_buffer_destroy(b);
  for (auto* b : params) hlx_buffer_destroy(b);
}

TEST(Replicas, PeersThatNeverArriveTimeOut) {
  // Replica 1 skips the all_reduce (its branch returns the input).
  const char text[] = R"(
func.func @main(%x: tensor<2xi64>) -> tensor<2xi64> {
  %id = stablehlo.replica_id : tensor<ui32>
  %zero = stablehlo.constant dense<0> : tensor<ui32>
  %is0 = stablehlo.compare EQ, %id, %zero : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
  %r = "stablehlo.if"(%is0) ({
    %a = "stablehlo.all_reduce"(%x) ({
      ^bb0(%p: tensor<i64>, %q: tensor<i64>):
        %s = stablehlo.add %p, %q : tensor<i64>
        stablehlo.return %s : tensor<i64>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}
       : (tensor<2xi64>) -> tensor<2xi64>
    stablehlo.return %a : tensor<2xi64>
  }, {
    stablehlo.return %x : tensor<2xi64>
  }) : (tensor<i1>) -> tensor<2xi64>
  return %r : tensor<2xi64>
}
)";
  hlx_compile_options_t o;
  hlx_compile_options_init(&o);
  o.num_replicas = 2;
  o.collective_timeout_ms = 50;
  Compiled c;
  Compile(text, o, &c);
  hlx_buffer_t* x = I64({1, 2});
  hlx_buffer_t* params[] = {x, x};
  hlx_buffer_t* results[2];
  auto t0 = std::chrono::steady_clock::now();
  hlx_status_t st =
      hlx_executable_run_replicated(c.exe, params, 2, results, 2);
  ASSERT_NE(st, nullptr);
  std::string msg = hlx_status_get_message(st);
  EXPECT_EQ(hlx_status_get_code(st), 8 /* DEADLINE_EXCEEDED */) << msg;
  EXPECT_NE(msg.find("stablehlo.all_reduce"), std::string::npos) << msg;
  EXPECT_NE(msg.find("1 of 2 participants"), std::string::npos) << msg;
  EXPECT_NE(msg.find("replica 0"), std::string::npos) << msg;
  EXPECT_EQ(results[0], nullptr);
  // Not a hang: well under the 10 s default.
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  hlx_status_release(st);
  hlx_buffer_destroy(x);
}

// A replica whose input flag is set reduces a tensor<4x4096xf32> where the
// others reduce a tensor<4xf32> (branches of an `if`): every replica gets
// a named error instead of reading past the smaller buffer, and the
// executable still runs once the flags agree.
TEST(Replicas, PeersWithDifferentOperandTypesFailAndTheExecutableStaysUsable) {
  const char text[] = R"(
func.func @main(%big: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = "stablehlo.if"(%big) ({
    %b = stablehlo.broadcast_in_dim %x, dims = [0] : (tensor<4xf32>) -> tensor<4x4096xf32>
    %a = "stablehlo.all_reduce"(%b) ({
      ^bb0(%p: tensor<f32>, %q: tensor<f32>):
        %s = stablehlo.add %p, %q : tensor<f32>
        stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}
       : (tensor<4x4096xf32>) -> tensor<4x4096xf32>
    %c = stablehlo.slice %a [0:4, 0:1] : (tensor<4x4096xf32>) -> tensor<4x1xf32>
    %d = stablehlo.reshape %c : (tensor<4x1xf32>) -> tensor<4xf32>
    stablehlo.return %d : tensor<4xf32>
  }, {
    %a = "stablehlo.all_reduce"(%x) ({
      ^bb0(%p: tensor<f32>, %q: tensor<f32>):
        %s = stablehlo.add %p, %q : tensor<f32>
        stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}
       : (tensor<4xf32>) -> tensor<4xf32>
    stablehlo.return %a : tensor<4xf32>
  }) : (tensor<i1>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
)";
  hlx_compile_options_t o;
  hlx_compile_options_init(&o);
  o.num_replicas = 2;
  Compiled c;
  Compile(text, o, &c);
  hlx_tensor_desc_t pd{}, xd{};
  pd.element_type = hlx_element_type_from_name("i1");
  xd.element_type = hlx_element_type_from_name("f32");
  xd.rank = 1;
  xd.dims[0] = 4;
  bool no = false, yes = true;
  float xs[4] = {1, 2, 3, 4};
  hlx_buffer_t *flag_no = nullptr, *flag_yes = nullptr, *x = nullptr;
  ASSERT_EQ(hlx_buffer_create(&pd, &no, &flag_no), nullptr);
  ASSERT_EQ(hlx_buffer_create(&pd, &yes, &flag_yes), nullptr);
  ASSERT_EQ(hlx_buffer_create(&xd, xs, &x), nullptr);
  hlx_buffer_t* mixed[] = {flag_no, x, flag_yes, x};  // replica 1 goes big
  hlx_buffer_t* same[] = {flag_no, x, flag_no, x};
  hlx_buffer_t* results[2] = {nullptr, nullptr};
  for (int rep = 0; rep < 2; rep++) {
    auto t0 = std::chrono::steady_clock::now();
    hlx_status_t st =
        hlx_executable_run_replicated(c.exe, mixed, 4, results, 2);
    ASSERT_NE(st, nullptr);
    std::string msg = hlx_status_get_message(st);
    EXPECT_EQ(hlx_status_get_code(st), 1 /* INVALID_ARGUMENT */) << msg;
    EXPECT_NE(msg.find("stablehlo.all_reduce"), std::string::npos) << msg;
    EXPECT_NE(msg.find("replica 0 has tensor<4xf32>, replica 1 has "
                       "tensor<4x4096xf32>"),
              std::string::npos)
        << msg;
    EXPECT_EQ(results[0], nullptr);
    // Every replica failed at once: nobody waited for the 10 s timeout.
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
    hlx_status_release(st);
  }
  hlx_status_t st = hlx_executable_run_replicated(c.exe, same, 4, results, 2);
  ASSERT_EQ(st, nullptr) << hlx_status_get_message(st);
  for (hlx_buffer_t* b : results) {
    const float* v = static_cast<const float*>(hlx_buffer_data(b));
    EXPECT_EQ(std::vector<float>(v, v + 4), (std::vector<float>{2, 4, 6, 8}));
    hlx_buffer_destroy(b);
  }
  hlx_buffer_destroy(flag_no);
  hlx_buffer_destroy(flag_yes);
  hlx_buffer_destroy(x);
}

// A 4-replica program as JAX exports it: the module attributes set the
// counts when the compile options leave them at 0, and the options
// override them.
const char kJaxFourReplicas[] = R"(
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 4 : i32} {
  func.func public @main(%x: tensor<2xi64>) -> (tensor<2xi64> {jax.result_info = ""}, tensor<2xi64>, tensor<ui32>) {
    %r = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<i64>, %b: tensor<i64>):
        %s = stablehlo.add %a, %b : tensor<i64>
        stablehlo.return %s : tensor<i64>
    }) : (tensor<2xi64>) -> tensor<2xi64>
    %p = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : (tensor<2xi64>) -> tensor<2xi64>
    %id = stablehlo.replica_id : tensor<ui32>
    return %r, %p, %id : tensor<2xi64>, tensor<2xi64>, tensor<ui32>
  }
}
)";

TEST(Replicas, ModuleAttributesSetTheCountsAndOptionsOverrideThem) {
  for (int override_replicas : {0, 2, 3}) {
    SCOPED_TRACE("num_replicas option " + std::to_string(override_replicas));
    hlx_compile_options_t o;
    hlx_compile_options_init(&o);
    o.num_replicas = override_replicas;
    Compiled c;
    Compile(kJaxFourReplicas, o, &c);
    int n = override_replicas ? override_replicas : 4;
    ASSERT_EQ(hlx_executable_num_processes(c.exe), n);
    EXPECT_EQ(hlx_executable_num_replicas(c.exe), n);
    EXPECT_EQ(hlx_executable_num_partitions(c.exe), 1);
    std::vector<hlx_buffer_t*> params;
    for (int r = 0; r < n; r++) params.push_back(I64({r + 1, 10 * (r + 1)}));
    std::vector<hlx_buffer_t*> results(3 * n);
    hlx_status_t st = hlx_executable_run_replicated(
        c.exe, params.data(), n, results.data(), 3 * n);
    ASSERT_EQ(st, nullptr) << hlx_status_get_message(st);
    int64_t sum = n * (n + 1) / 2;
    for (int r = 0; r < n; r++) {
      EXPECT_EQ(Values(results[3 * r]), (std::vector<int64_t>{sum, 10 * sum}))
          << "replica " << r;
      // 0 and 1 swap; the others are no pair's target: zeros.
      int64_t from = r == 0 ? 2 : r == 1 ? 1 : 0;
      EXPECT_EQ(Values(results[3 * r + 1]),
                (std::vector<int64_t>{from, 10 * from}))
          << "replica " << r;
      uint32_t id;
      std::memcpy(&id, hlx_buffer_data(results[3 * r + 2]), 4);
      EXPECT_EQ(id, static_cast<uint32_t>(r));
    }
    for (auto* b : results) hlx_buffer_destroy(b);
    for (auto* b : params) hlx_buffer_destroy(b);
  }
}

TEST(Replicas, BadModuleCountsAndGroupsOutsideThemAreCompileErrors) {
  struct {
    std::string text, want;
    int replicas;
  } cases[] = {
      {std::string(kJaxFourReplicas).replace(
           std::string(kJaxFourReplicas).find("num_replicas = 4"), 16,
           "num_replicas = 0"),
       "module attribute mhlo.num_replicas must be an integer in [1, 65536]",
       0},
      {std::string(kJaxFourReplicas).replace(
           std::string(kJaxFourReplicas).find("num_partitions = 1 : i32"),
           24, "num_partitions = \"x\""),
       "module attribute mhlo.num_partitions must be an integer", 0},
      // The permute names replica 1: one replica is too few.
      {kJaxFourReplicas,
       "stablehlo.collective_permute at 9:5: (C4) source_target_pairs id 1 "
       "is not below 1, the number of replicas",
       1},
  };
  for (const auto& c : cases) {
    hlx_program_t* p = nullptr;
    hlx_status_t st = hlx_program_parse(c.text.data(), c.text.size(),
                                        "test.mlir", 1, &p);
    ASSERT_EQ(st, nullptr) << hlx_status_get_message(st);
    hlx_compile_options_t o;
    hlx_compile_options_init(&o);
    o.num_replicas = c.replicas;
    hlx_executable_t* e = nullptr;
    st = hlx_executable_create(p, &o, &e);
    ASSERT_NE(st, nullptr) << c.want;
    EXPECT_EQ(e, nullptr);
    std::string msg = hlx_status_get_message(st);
    EXPECT_EQ(hlx_status_get_code(st), 1 /* INVALID_ARGUMENT */) << msg;
    EXPECT_NE(msg.find(c.want), std::string::npos) << msg;
    hlx_status_release(st);
    hlx_program_destroy(p);
  }
}

const char kWide[] = R"(
func.func @main(%x: tensor<64xi64>) -> tensor<64xi64> {
  %a = stablehlo.add %x, %x : tensor<64xi64>
  %b = stablehlo.multiply %x, %x : tensor<64xi64>
  %c = stablehlo.subtract %x, %a : tensor<64xi64>
  %d = stablehlo.multiply %b, %b : tensor<64xi64>
  %e = stablehlo.add %c, %d : tensor<64xi64>
  %f = stablehlo.xor %a, %b : tensor<64xi64>
  %g = stablehlo.add %e, %f : tensor<64xi64>
  return %g : tensor<64xi64>
}
)";

std::vector<int64_t> Expected(const std::vector<int64_t>& x) {
  std::vector<int64_t> r;
  for (int64_t v : x) {
    int64_t a = v + v, b = v * v, c = v - a, d = b * b;
    r.push_back((c + d) + (a ^ b));
  }
  return r;
}

TEST(Clients, ConcurrentAndAsyncRunsMatchSequential) {
  hlx_client_options_t co;
  hlx_client_options_init(&co);
  co.num_threads = 2;
  hlx_client_t* client = nullptr;
  ASSERT_EQ(hlx_client_create(&co, &client), nullptr);
  EXPECT_EQ(hlx_client_num_threads(client), 2);
  EXPECT_NE(hlx_client_warning(client), nullptr);
  hlx_compile_options_t o;
  hlx_compile_options_init(&o);
  o.client = client;
  {
    Compiled c;
    Compile(kWide, o, &c);
    std::vector<std::thread> threads;
    std::atomic<int> bad{0};
    for (int th = 0; th < 4; th++)
      threads.emplace_back([&, th] {
        for (int i = 0; i < 100; i++) {
          std::vector<int64_t> x(64);
          for (int k = 0; k < 64; k++) x[k] = th * 1000 + i * 7 + k;
          hlx_buffer_t* in = I64(x);
          hlx_buffer_t* out = nullptr;
          hlx_status_t st = hlx_executable_run(c.exe, &in, 1, &out, 1);
          if (st || Values(out) != Expected(x)) bad++;
          hlx_status_release(st);
          hlx_buffer_destroy(out);
          hlx_buffer_destroy(in);
        }
      });
    for (auto& t : threads) t.join();
    EXPECT_EQ(bad.load(), 0);

    // Async with a callback.
    std::vector<int64_t> x(64, 3);
    hlx_buffer_t* in = I64(x);
    hlx_buffer_t* out = nullptr;
    std::atomic<int> called{0};
    hlx_run_handle_t* h = nullptr;
    ASSERT_EQ(hlx_executable_run_async(
                  c.exe, &in, 1, &out, 1,
                  [](void* user, hlx_status_t st) {
                    if (!st) static_cast<std::atomic<int>*>(user)->fetch_add(1);
                  },
                  &called, &h),
              nullptr);
    hlx_status_t st = hlx_run_wait(h);
    EXPECT_EQ(st, nullptr) << hlx_status_get_message(st);
    EXPECT_EQ(called.load(), 1);
    EXPECT_EQ(Values(out), Expected(x));
    hlx_buffer_destroy(out);
    hlx_buffer_destroy(in);
  }
  hlx_client_destroy(client);
}

// Runs kWide on x[k] = k * k * scale - 5 and compares with Expected.
void ExpectWideResults(hlx_executable_t* exe, int64_t scale) {
  std::vector<int64_t> x(64);
  for (int k = 0; k < 64; k++) x[k] = k * k * scale - 5;
  hlx_buffer_t* in = I64(x);
  hlx_buffer_t* out = nullptr;
  hlx_status_t st = hlx_executable_run(exe, &in, 1, &out, 1);
  ASSERT_EQ(st, nullptr) << hlx_status_get_message(st);
  EXPECT_EQ(Values(out), Expected(x));
  hlx_buffer_destroy(out);
  hlx_buffer_destroy(in);
}

TEST(Clients, OneThreadAndPrivatePoolGiveTheSameResults) {
  for (int threads : {1, 2, 3}) {
    hlx_compile_options_t o;
    hlx_compile_options_init(&o);
    o.num_threads = threads;
    Compiled c;
    Compile(kWide, o, &c);
    SCOPED_TRACE(std::to_string(threads) + " threads");
    ExpectWideResults(c.exe, 1);
  }
}

TEST(Clients, CpuListPinsTheClientAndBadListsAreErrors) {
  cpu_set_t mine;
  ASSERT_EQ(sched_getaffinity(0, sizeof mine, &mine), 0);
  int cpu = 0;
  while (!CPU_ISSET(cpu, &mine)) cpu++;
  std::string list = std::to_string(cpu);
  hlx_client_options_t co;
  hlx_client_options_init(&co);
  co.num_threads = 2;
  co.cpus = list.c_str();
  hlx_client_t* client = nullptr;
  hlx_status_t st = hlx_client_create(&co, &client);
  ASSERT_EQ(st, nullptr) << hlx_status_get_message(st);
  EXPECT_EQ(hlx_client_num_threads(client), 2);
  std::string topo = hlx_client_topology(client);
  EXPECT_NE(topo.find("pinned to cpus " + list), std::string::npos) << topo;
  EXPECT_NE(topo.find("NUMA node"), std::string::npos) << topo;
  // Runs on the pinned client match a sequential run.
  hlx_compile_options_t o;
  hlx_compile_options_init(&o);
  o.client = client;
  Compiled c;
  Compile(kWide, o, &c);
  ExpectWideResults(c.exe, 3);
  hlx_executable_destroy(c.exe);
  c.exe = nullptr;
  hlx_client_destroy(client);

  for (const char* bad : {"0-", "2,x", "4000"}) {
    co.cpus = bad;
    client = nullptr;
    st = hlx_client_create(&co, &client);
    ASSERT_NE(st, nullptr) << bad;
    EXPECT_EQ(client, nullptr);
    EXPECT_EQ(hlx_status_get_code(st), 1 /* INVALID_ARGUMENT */) << bad;
    std::string msg = hlx_status_get_message(st);
    EXPECT_NE(msg.find("hlx_client_create"), std::string::npos) << msg;
    EXPECT_NE(msg.find(std::string("cpu list \"") + bad), std::string::npos)
        << msg;
    hlx_status_release(st);
  }
}

}  // namespace
