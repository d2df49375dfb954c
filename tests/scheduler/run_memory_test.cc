// Through the public API: the per-task event hook of hlx_run_options_t
// (one event per task, on 1 and 3 threads) and the executable's arena
// report (a chain of elementwise ops reuses its buffers; a while loop's
// body arena is counted; HLX_NO_BUFFER_REUSE=1 turns reuse off).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "api/hlx.h"

namespace {

struct Events {
  std::mutex mu;
  std::vector<int32_t> tasks;
  std::vector<std::string> names;
  bool bad_time = false;
};

void OnTask(void* user, int32_t task, const char* name, int32_t thread,
            uint64_t start_ns, uint64_t end_ns) {
  Events* e = static_cast<Events*>(user);
  std::lock_guard<std::mutex> l(e->mu);
  e->tasks.push_back(task);
  e->names.push_back(name);
  if (end_ns < start_ns || thread <= 0) e->bad_time = true;
}

hlx_executable_t* Compile(const std::string& text, int threads) {
  hlx_program_t* p = nullptr;
  EXPECT_EQ(hlx_program_parse(text.data(), text.size(), "t.mlir", 1, &p),
            nullptr);
  hlx_compile_options_t o;
  hlx_compile_options_init(&o);
  o.num_threads = threads;
  hlx_executable_t* e = nullptr;
  EXPECT_EQ(hlx_executable_create(p, &o, &e), nullptr);
  hlx_program_destroy(p);
  return e;
}

// Independent branches, so 3 threads run tasks concurrently. Each op is
// its own task (different shapes keep them unfused).
const char* kDiamond = R"(
func.func @main(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %a = stablehlo.dot_general %x, %x, contracting_dims = [1] x [0] : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %b = stablehlo.dot_general %x, %x, contracting_dims = [0] x [1] : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %c = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %d = stablehlo.dot_general %c, %a, contracting_dims = [1] x [0] : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}
)";

TEST(RunMemory, OneEventPerTask) {
  for (int threads : {1, 3}) {
    hlx_executable_t* e = Compile(kDiamond, threads);
    ASSERT_NE(e, nullptr);
    int32_t nt = hlx_executable_num_tasks(e);
    EXPECT_EQ(nt, 4);
    hlx_tensor_desc_t d;
    ASSERT_EQ(hlx_executable_param_desc(e, 0, &d), nullptr);
    hlx_buffer_t* x = nullptr;
    ASSERT_EQ(hlx_buffer_create(&d, nullptr, &x), nullptr);
    Events ev;
    hlx_run_options_t ro;
    hlx_run_options_init(&ro);
    ro.on_task = OnTask;
    ro.on_task_user = &ev;
    hlx_buffer_t* r = nullptr;
    ASSERT_EQ(hlx_executable_run_with_options(e, &x, 1, &r, 1, &ro), nullptr);
    hlx_buffer_destroy(r);
    EXPECT_EQ(std::set<int32_t>(ev.tasks.begin(), ev.tasks.end()).size(),
              static_cast<size_t>(nt));
    EXPECT_EQ(ev.tasks.size(), static_cast<size_t>(nt));
    EXPECT_FALSE(ev.bad_time);
    for (const std::string& n : ev.names)
      EXPECT_EQ(n.rfind("stablehlo.dot_general at ", 0), 0u) << n;
    // Without the hook: no events.
    size_t before = ev.tasks.size();
    ASSERT_EQ(hlx_executable_run(e, &x, 1, &r, 1), nullptr);
    hlx_buffer_destroy(r);
    EXPECT_EQ(ev.tasks.size(), before);
    hlx_buffer_destroy(x);
    hlx_executable_destroy(e);
  }
}

TEST(RunMemory, ArenaReportsReuse) {
  // Four 64x64 dot results; %a is read by %c and %d, %b dies at %c. The
  // result %d stays; at most three 16 KiB buffers are live at once.
  hlx_executable_t* e = Compile(kDiamond, 1);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(hlx_executable_intermediate_bytes(e), 4u * 16384);
  EXPECT_EQ(hlx_executable_arena_bytes(e), 3u * 16384);
  EXPECT_EQ(hlx_executable_live_bytes(e), 3u * 16384);
  hlx_executable_destroy(e);
}

// HLX_NO_BUFFER_REUSE=1 (README: every buffer its own memory), read when
// the lowering finalizes the plans: the arena is then the sum of all
// intermediates; unset, the reuse is back.
TEST(RunMemory, NoBufferReuseEnvironmentGivesEveryBufferItsOwnMemory) {
  setenv("HLX_NO_BUFFER_REUSE", "1", 1);
  hlx_executable_t* e = Compile(kDiamond, 1);
  unsetenv("HLX_NO_BUFFER_REUSE");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(hlx_executable_intermediate_bytes(e), 4u * 16384);
  EXPECT_EQ(hlx_executable_arena_bytes(e), 4u * 16384);
  hlx_executable_destroy(e);
  e = Compile(kDiamond, 1);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(hlx_executable_arena_bytes(e), 3u * 16384);
  hlx_executable_destroy(e);
}

TEST(RunMemory, ChessModelPeakIsFarBelowSum) {
  const char* path = "/work/shared/models/searchless_chess_9m.mlir";
  FILE* f = fopen(path, "rb");
  if (!f) GTEST_FAIL() << "missing " << path;
  std::string text;
  char buf[1 << 16];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  fclose(f);
  hlx_executable_t* e = Compile(text, 1);
  ASSERT_NE(e, nullptr);
  size_t arena = hlx_executable_arena_bytes(e);
  size_t sum = hlx_executable_intermediate_bytes(e);
  RecordProperty("arena_bytes", std::to_string(arena));
  RecordProperty("intermediate_bytes", std::to_string(sum));
  EXPECT_GT(arena, 0u);
  EXPECT_LT(arena * 10, sum) << arena << " vs " << sum;
  // Close to the largest live set (the bound without in-place reuse).
  size_t live = hlx_executable_live_bytes(e);
  RecordProperty("live_bytes", std::to_string(live));
  EXPECT_LT(arena, live + live / 2) << arena << " vs live " << live;
  hlx_executable_destroy(e);
}

}  // namespace
