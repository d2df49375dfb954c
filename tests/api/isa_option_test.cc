// hlx_compile_options_t.max_isa: an executable's kernels stay at or below
// its cap, at lowering (exp picks its kernel then) and at run time (reduce
// picks its kernel when it runs), in nested plans, on pool workers, and
// beside an executable with another cap running at the same time.
//
// The SIMD exp and reduce kernels differ from the reference ones in some
// last bits (checked below, so the comparisons can fail). On a CPU without
// AVX2/NEON (or under HLX_MAX_ISA=reference) every level is the reference:
// the tests then check only that, and say so.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "api/hlx.h"
#include "base/status.h"
#include "kernels/cpu_features.h"
#include "scheduler/pool.h"
#include "tests/api/api_testing.h"
#include "tests/api/isa_kernels_testing.h"

namespace {

using hlx_test::Compiled;

constexpr int64_t kN = 1 << 16;
const std::string kT = "tensor<65536xf32>";

// exp over [-87, 88]: the whole f32 range where exp is finite and normal.
std::vector<float> ExpInput() {
  std::vector<float> x((size_t)kN);
  for (int64_t i = 0; i < kN; i++)
    x[(size_t)i] = -87.0f + 175.0f * (float)i / (float)kN + 1e-3f * (i % 7);
  return x;
}

// The bits of what the exp kernel of exactly `isa` gives for x.
std::vector<uint32_t> ExpKernel(hlx_isa_t isa, const std::vector<float>& x) {
  std::vector<uint32_t> y(x.size());
  EXPECT_TRUE(hlx_test::ExpF32AtIsa(isa, x.data(),
                                    reinterpret_cast<float*>(y.data()),
                                    x.size()))
      << "no " << hlx_isa_name(isa) << " exp";
  return y;
}

size_t Differing(const std::vector<uint32_t>& a,
                 const std::vector<uint32_t>& b) {
  size_t n = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); i++) n += a[i] != b[i];
  return n + (a.size() > b.size() ? a.size() - b.size() : b.size() - a.size());
}

// Compiles text with max_isa (NULL: no cap) and fusion on or off.
std::string CompileCapped(const std::string& text, const char* max_isa,
                          Compiled* c, bool fuse = true,
                          hlx_client_t* client = nullptr) {
  hlx_compile_options_t o;
  hlx_compile_options_init(&o);
  o.max_isa = max_isa;
  o.fuse_elementwise = fuse;
  o.client = client;
  return hlx_test::Compile(text, &o, c);
}

enum class How { kRun, kReplicated, kAsync };

// Runs e on f32 inputs (param i % num_params; kReplicated: one set per
// process) and returns the bits of every result, in order.
std::vector<uint32_t> RunBits(const hlx_executable_t* e,
                              const std::vector<std::vector<float>>& inputs,
                              How how = How::kRun) {
  int32_t np = hlx_executable_num_params(e);
  std::vector<hlx_buffer_t*> in;
  for (size_t i = 0; i < inputs.size(); i++) {
    hlx_tensor_desc_t d;
    EXPECT_EQ(hlx_executable_param_desc(e, (int32_t)i % np, &d), nullptr);
    hlx_buffer_t* b = nullptr;
    EXPECT_EQ(hlx_test::Msg(hlx_buffer_create(&d, inputs[i].data(), &b)), "");
    in.push_back(b);
  }
  int32_t ni = (int32_t)in.size();
  int32_t nr = hlx_executable_num_results(e) * (ni / np);
  std::vector<hlx_buffer_t*> out((size_t)nr);
  hlx_status_t s = nullptr;
  hlx_run_handle_t* h = nullptr;
  switch (how) {
    case How::kRun:
      s = hlx_executable_run(e, in.data(), ni, out.data(), nr);
      break;
    case How::kReplicated:
      s = hlx_executable_run_replicated(e, in.data(), ni, out.data(), nr);
      break;
    case How::kAsync:
      s = hlx_executable_run_async(e, in.data(), ni, out.data(), nr, nullptr,
                                   nullptr, &h);
      if (!s) s = hlx_run_wait(h);
      break;
  }
  EXPECT_EQ(hlx_test::Msg(s), "");
  std::vector<uint32_t> bits;
  for (hlx_buffer_t* b : out) {
    if (!b) continue;
    const auto* p = static_cast<const uint32_t*>(hlx_buffer_data(b));
    bits.insert(bits.end(), p, p + hlx_buffer_bytes(b) / 4);
    hlx_buffer_destroy(b);
  }
  for (hlx_buffer_t* b : in) hlx_buffer_destroy(b);
  return bits;
}

std::string ExpProgram() {
  return "func.func @main(%x: " + kT + ") -> " + kT + " {\n" +
         "  %y = stablehlo.exponential %x : " + kT + "\n" +
         "  return %y : " + kT + "\n}\n";
}

// Two exps and two row sums, independent: a concurrent plan of four tasks,
// the sums' kernels looked up on whichever thread runs them.
const char* kMixedProgram = R"(
func.func @main(%a: tensor<65536xf32>, %b: tensor<65536xf32>, %c: tensor<64x1024xf32>, %d: tensor<64x1024xf32>) -> (tensor<65536xf32>, tensor<65536xf32>, tensor<64xf32>, tensor<64xf32>) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %ea = stablehlo.exponential %a : tensor<65536xf32>
  %eb = stablehlo.exponential %b : tensor<65536xf32>
  %sc = stablehlo.reduce(%c init: %z) applies stablehlo.add across dimensions = [1] : (tensor<64x1024xf32>, tensor<f32>) -> tensor<64xf32>
  %sd = stablehlo.reduce(%d init: %z) applies stablehlo.add across dimensions = [1] : (tensor<64x1024xf32>, tensor<f32>) -> tensor<64xf32>
  return %ea, %eb, %sc, %sd : tensor<65536xf32>, tensor<65536xf32>, tensor<64xf32>, tensor<64xf32>
})";

// exp (kernel picked at lowering) and a row sum (picked when it runs)
// inside a while body: a nested plan, which has no cap of its own.
const char* kWhileProgram = R"(
func.func @main(%x: tensor<65536xf32>, %c: tensor<64x1024xf32>) -> (tensor<65536xf32>, tensor<64xf32>) {
  %0 = stablehlo.constant dense<0> : tensor<i32>
  %1 = stablehlo.constant dense<1> : tensor<i32>
  %s0 = stablehlo.constant dense<0.0> : tensor<64xf32>
  %r:4 = stablehlo.while(%i = %0, %v = %x, %w = %c, %s = %s0) : tensor<i32>, tensor<65536xf32>, tensor<64x1024xf32>, tensor<64xf32>
   cond {
    %lt = stablehlo.compare LT, %i, %1 : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %n = stablehlo.add %i, %1 : tensor<i32>
    %e = stablehlo.exponential %v : tensor<65536xf32>
    %t = stablehlo.reduce(%w init: %z) applies stablehlo.add across dimensions = [1] : (tensor<64x1024xf32>, tensor<f32>) -> tensor<64xf32>
    stablehlo.return %n, %e, %w, %t : tensor<i32>, tensor<65536xf32>, tensor<64x1024xf32>, tensor<64xf32>
  }
  return %r#1, %r#3 : tensor<65536xf32>, tensor<64xf32>
})";

// Row sums: the reduce kernel is looked up when the task runs.
const char* kReduceProgram = R"(
func.func @main(%x: tensor<64x1024xf32>) -> tensor<64xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<64x1024xf32>, tensor<f32>) -> tensor<64xf32>
  return %r : tensor<64xf32>
})";

// Rows of small values with 2^60 at 0 and -2^60 at 32: summed in row order
// (the reference) the values between them vanish beside 2^60 even in
// double; the SIMD kernels sum interleaved lanes, 0 and 32 in one lane.
std::vector<float> ReduceInput() {
  std::vector<float> x(64 * 1024);
  uint32_t s = 2463534242u;
  for (float& f : x) {
    s ^= s << 13, s ^= s >> 17, s ^= s << 5;
    f = (float)(s >> 8) / 16777216.0f * 2.0f - 1.0f;
  }
  for (size_t r = 0; r < 64; r++) {
    x[r * 1024] = 0x1p60f;
    x[r * 1024 + 32] = -0x1p60f;
  }
  return x;
}

// What a run of an uncapped executable gives with the process capped at
// `isa` (hlx_cpu_set_max_isa, the mechanism the tests of kernels use).
std::vector<uint32_t> ProcessCappedRun(const std::string& text, hlx_isa_t isa,
                                       const std::vector<float>& x) {
  hlx_cpu_set_max_isa(isa);
  Compiled c;
  std::vector<uint32_t> r;
  EXPECT_EQ(CompileCapped(text, nullptr, &c), "");
  if (c.exe) r = RunBits(c.exe, {x});
  hlx_cpu_set_max_isa(HLX_ISA_COUNT);
  return r;
}

// The process level (detected, capped by HLX_MAX_ISA); tells when it is the
// reference, where the SIMD halves of the tests cannot differ.
hlx_isa_t ProcessLevel() {
  hlx_isa_t lv = hlx_cpu_max_isa();
  if (lv == HLX_ISA_REFERENCE)
    std::printf("[   NOTE   ] process ISA level is the reference (CPU without "
                "AVX2/NEON or HLX_MAX_ISA): only the reference half is "
                "checked\n");
  return lv;
}

TEST(IsaOption, ExpUnderEachCapIsThatLevelsKernel) {
  hlx_isa_t level = ProcessLevel();
  std::vector<float> x = ExpInput();
  std::vector<uint32_t> ref = ExpKernel(HLX_ISA_REFERENCE, x);
  if (level > HLX_ISA_REFERENCE) {  // else the comparisons can't fail
    ASSERT_GT(Differing(ref, ExpKernel(level, x)), 0u)
        << "the " << hlx_isa_name(level)
        << " exp equals the reference: pick another op";
  }
  for (bool fuse : {true, false}) {
    for (const char* name : {"reference", "avx2", "avx512"}) {
      hlx_isa_t cap;
      ASSERT_TRUE(hlx_isa_parse(name, &cap));
      hlx_isa_t want = std::min(cap, level);
      Compiled c;
      ASSERT_EQ(CompileCapped(ExpProgram(), name, &c, fuse), "");
      EXPECT_EQ(Differing(RunBits(c.exe, {x}), ExpKernel(want, x)), 0u)
          << "cap " << name << " should run the " << hlx_isa_name(want)
          << " exp (fusion " << fuse << ")";
    }
    Compiled uncapped;
    ASSERT_EQ(CompileCapped(ExpProgram(), nullptr, &uncapped, fuse), "");
    EXPECT_EQ(Differing(RunBits(uncapped.exe, {x}), ExpKernel(level, x)), 0u)
        << "no cap should run the " << hlx_isa_name(level) << " exp";
  }
}

TEST(IsaOption, RunTimeLookupsObeyTheCap) {
  hlx_isa_t level = ProcessLevel();
  std::vector<float> x = ReduceInput();
  std::vector<uint32_t> ref =
      ProcessCappedRun(kReduceProgram, HLX_ISA_REFERENCE, x);
  std::vector<uint32_t> simd = ProcessCappedRun(kReduceProgram, level, x);
  ASSERT_EQ(ref.size(), 64u);
  if (level > HLX_ISA_REFERENCE) {
    ASSERT_GT(Differing(ref, simd), 0u)
        << "the " << hlx_isa_name(level)
        << " row sum equals the reference: pick another op";
  }
  Compiled capped, uncapped;
  ASSERT_EQ(CompileCapped(kReduceProgram, "reference", &capped), "");
  ASSERT_EQ(CompileCapped(kReduceProgram, nullptr, &uncapped), "");
  EXPECT_EQ(Differing(RunBits(capped.exe, {x}), ref), 0u);
  EXPECT_EQ(Differing(RunBits(uncapped.exe, {x}), simd), 0u);
  // The cap does not stay on the calling thread after create or run.
  EXPECT_EQ(hlx_cpu_max_isa(), level);
}

void Append(std::vector<uint32_t>* to, const std::vector<uint32_t>& v) {
  to->insert(to->end(), v.begin(), v.end());
}

TEST(IsaOption, NestedPlansRunUnderTheCap) {
  hlx_isa_t level = ProcessLevel();
  std::vector<float> x = ExpInput(), c = ReduceInput();
  std::vector<uint32_t> want_ref = ExpKernel(HLX_ISA_REFERENCE, x);
  std::vector<uint32_t> want_simd = ExpKernel(level, x);
  Append(&want_ref, ProcessCappedRun(kReduceProgram, HLX_ISA_REFERENCE, c));
  Append(&want_simd, ProcessCappedRun(kReduceProgram, level, c));
  Compiled capped, uncapped;
  ASSERT_EQ(CompileCapped(kWhileProgram, "reference", &capped), "");
  ASSERT_EQ(CompileCapped(kWhileProgram, nullptr, &uncapped), "");
  EXPECT_EQ(Differing(RunBits(capped.exe, {x, c}), want_ref), 0u);
  EXPECT_EQ(Differing(RunBits(uncapped.exe, {x, c}), want_simd), 0u);
}

// Two executables of kMixedProgram on one pool, one capped, each run from
// its own thread many times: every run gives its own executable's kernels'
// results, though the pool's threads run tasks of both in turn.
TEST(IsaOption, ConcurrentExecutablesKeepTheirCaps) {
  hlx_isa_t level = ProcessLevel();
  hlx_client_options_t co;
  hlx_client_options_init(&co);
  co.num_threads = 3;
  co.pin_threads = false;
  hlx_client_t* client = nullptr;
  ASSERT_EQ(hlx_test::Msg(hlx_client_create(&co, &client)), "");
  std::vector<std::vector<float>> in = {ExpInput(), ExpInput(), ReduceInput(),
                                        ReduceInput()};
  for (float& f : in[1]) f -= 1.0f;
  for (float& f : in[3]) f *= 0.5f;
  std::vector<uint32_t> want_ref, want_simd;
  for (int k = 0; k < 2; k++) {
    Append(&want_ref, ExpKernel(HLX_ISA_REFERENCE, in[(size_t)k]));
    Append(&want_simd, ExpKernel(level, in[(size_t)k]));
  }
  for (int k = 2; k < 4; k++) {
    Append(&want_ref, ProcessCappedRun(kReduceProgram, HLX_ISA_REFERENCE,
                                       in[(size_t)k]));
    Append(&want_simd, ProcessCappedRun(kReduceProgram, level, in[(size_t)k]));
  }
  {
    Compiled capped, uncapped;
    ASSERT_EQ(CompileCapped(kMixedProgram, "reference", &capped, true, client),
              "");
    ASSERT_EQ(CompileCapped(kMixedProgram, nullptr, &uncapped, true, client),
              "");
    EXPECT_GE(hlx_executable_num_tasks(capped.exe), 4);
    constexpr int kRuns = 16;
    size_t bad[2] = {0, 0};
    auto loop = [&](int who) {
      const Compiled& e = who ? uncapped : capped;
      for (int i = 0; i < kRuns; i++)
        bad[who] += Differing(RunBits(e.exe, in), who ? want_simd : want_ref);
    };
    std::thread t0(loop, 0), t1(loop, 1);
    t0.join();
    t1.join();
    EXPECT_EQ(bad[0], 0u) << "capped executable: elements off its kernels";
    EXPECT_EQ(bad[1], 0u) << "uncapped executable: elements off its kernels";
  }
  hlx_client_destroy(client);
}

// Replica runs (one thread per process) and async runs (a thread of
// their own) run under the cap too.
TEST(IsaOption, ReplicaAndAsyncRunsUseTheCap) {
  hlx_isa_t level = ProcessLevel();
  std::vector<float> x = ReduceInput();
  std::vector<uint32_t> ref =
      ProcessCappedRun(kReduceProgram, HLX_ISA_REFERENCE, x);
  std::vector<uint32_t> simd = ProcessCappedRun(kReduceProgram, level, x);
  for (const char* cap : {"reference", static_cast<const char*>(nullptr)}) {
    const std::vector<uint32_t>& want = cap ? ref : simd;
    hlx_compile_options_t o;
    hlx_compile_options_init(&o);
    o.max_isa = cap;
    o.num_replicas = 2;
    Compiled replicas, single;
    ASSERT_EQ(hlx_test::Compile(kReduceProgram, &o, &replicas), "");
    o.num_replicas = 1;
    ASSERT_EQ(hlx_test::Compile(kReduceProgram, &o, &single), "");
    std::vector<uint32_t> want2 = want;
    want2.insert(want2.end(), want.begin(), want.end());
    EXPECT_EQ(Differing(RunBits(replicas.exe, {x, x}, How::kReplicated), want2),
              0u)
        << "replicas, cap " << (cap ? cap : "none");
    EXPECT_EQ(Differing(RunBits(single.exe, {x}, How::kAsync), want), 0u)
        << "async, cap " << (cap ? cap : "none");
  }
}

TEST(IsaOption, UnknownNameIsAClearError) {
  Compiled c;
  hlx_compile_options_t o;
  hlx_compile_options_init(&o);
  o.max_isa = "sse9";
  hlx_program_t* p = nullptr;
  std::string text = ExpProgram();
  ASSERT_EQ(hlx_test::Msg(hlx_program_parse(text.data(), text.size(), "t",
                                            1, &p)),
            "");
  hlx_executable_t* e = nullptr;
  hlx_status_t s = hlx_executable_create(p, &o, &e);
  EXPECT_EQ(e, nullptr);
  EXPECT_EQ(hlx_status_get_code(s), HLX_STATUS_INVALID_ARGUMENT);
  std::string m = hlx_test::Msg(s);
  EXPECT_NE(m.find("max_isa"), std::string::npos) << m;
  EXPECT_NE(m.find("sse9"), std::string::npos) << m;
  hlx_program_destroy(p);
  // "" is no cap, like NULL.
  EXPECT_EQ(CompileCapped(text, "", &c), "");
}

// A caller built against the options before max_isa (smaller struct_size)
// gets no cap, whatever follows its struct in memory.
TEST(IsaOption, OlderStructSizeMeansNoCap) {
  hlx_isa_t level = ProcessLevel();
  hlx_compile_options_t o;
  hlx_compile_options_init(&o);
  o.struct_size = offsetof(hlx_compile_options_t, max_isa);
  o.max_isa = "not an isa";
  Compiled c;
  ASSERT_EQ(hlx_test::Compile(ExpProgram(), &o, &c), "");
  std::vector<float> x = ExpInput();
  EXPECT_EQ(Differing(RunBits(c.exe, {x}), ExpKernel(level, x)), 0u);
}

// Kernels that look up their variant inside parallel_for chunks (fused
// compare/select/convert steps) see the cap of the thread that split the
// work, on every pool thread (scheduler/pool.c). Their outputs are the same
// at every level, so this checks the level the chunks see directly.
struct ChunkLevels {
  std::vector<std::atomic<int>> level;
  std::atomic<int> off_caller{0};
  std::thread::id caller;
  explicit ChunkLevels(size_t n) : level(n) {}
};

void RecordLevel(void* arg, size_t begin, size_t end) {
  auto* c = static_cast<ChunkLevels*>(arg);
  if (std::this_thread::get_id() != c->caller) c->off_caller++;
  // Slow chunks, so the other threads take some.
  std::this_thread::sleep_for(std::chrono::microseconds(200));
  for (size_t i = begin; i < end; i++) c->level[i] = (int)hlx_cpu_max_isa();
}

TEST(IsaCapScheduler, ParallelForChunksSeeTheCallersCap) {
  hlx_isa_t level = ProcessLevel();
  hlx_pool_options_t po;
  hlx_pool_options_init(&po);
  po.num_threads = 3;
  po.pin_threads = false;
  hlx_pool_t* pool = nullptr;
  ASSERT_EQ(hlx_test::Msg(hlx_pool_create(&po, &pool)), "");
  int off_caller = 0;
  // Rounds until a worker took a chunk (a loaded machine may be slow to
  // wake one).
  for (int round = 0; round < 20 && off_caller == 0; round++)
  for (hlx_isa_t cap : {HLX_ISA_REFERENCE, HLX_ISA_COUNT, HLX_ISA_AVX2}) {
    hlx_isa_t want = std::min(cap, level);
    ChunkLevels c(64);
    c.caller = std::this_thread::get_id();
    hlx_isa_t prev = hlx_cpu_thread_isa_cap_swap(cap);
    hlx_pool_parallel_for(pool, 64, 1, RecordLevel, &c);
    EXPECT_EQ(hlx_cpu_thread_isa_cap_swap(prev), cap);
    for (size_t i = 0; i < c.level.size(); i++)
      ASSERT_EQ(c.level[i], (int)want) << "item " << i << ", cap " << cap;
    off_caller += c.off_caller;
  }
  // The workers are back to no cap of their own.
  EXPECT_EQ(hlx_cpu_max_isa(), level);
  std::printf("[   NOTE   ] %d chunks of the last round ran on pool workers\n",
              off_caller);
  EXPECT_GT(off_caller, 0) << "no chunk ran off the calling thread";
  hlx_pool_destroy(pool);
}

}  // namespace
