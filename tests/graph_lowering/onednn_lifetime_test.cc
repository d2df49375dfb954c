// oneDNN primitives' lifetime through the API: an executable holds a
// reference to each matmul its dots use and drops it when destroyed
// (graph/lower/dot.c's plan cleanup); unused primitives stay cached up to
// the idle capacity (shrunk here to 3) and are freed past it; results stay
// exact when primitives are reused, evicted and rebuilt, or shared by two
// executables. Under --config=asan LeakSanitizer checks nothing is lost.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/hlx.h"
#include "kernels/libs/onednn.h"

namespace {

constexpr int64_t kK = 72, kN = 96;

// Rows > 128: past libxsmm's small sizes, so the dot runs on oneDNN.
int64_t Rows(int i) { return 130 + i; }

std::string Program(int64_t m) {
  std::string a = "tensor<" + std::to_string(m) + "x72xf32>";
  std::string b = "tensor<72x96xf32>";
  std::string o = "tensor<" + std::to_string(m) + "x96xf32>";
  return "func.func @main(%a: " + a + ", %b: " + b + ") -> " + o +
         " {\n  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x "
         "[0] : (" + a + ", " + b + ") -> " + o + "\n  return %0 : " + o +
         "\n}\n";
}

struct Exe {
  hlx_program_t* prog = nullptr;
  hlx_executable_t* exe = nullptr;
  int64_t m = 0;
  explicit Exe(int64_t rows) : m(rows) {
    std::string t = Program(m);
    hlx_status_t s = hlx_program_parse(t.data(), t.size(), "t.mlir", 1, &prog);
    if (!s) s = hlx_executable_create(prog, nullptr, &exe);
    EXPECT_EQ(s, nullptr) << hlx_status_get_message(s);
    hlx_status_release(s);
  }
  ~Exe() {
    hlx_executable_destroy(exe);
    hlx_program_destroy(prog);
  }
};

// Quarter-integers: every product and sum is exact in f32, whatever
// order oneDNN adds them in, so the result must match bitwise.
float Val(int64_t i, int salt) {
  return static_cast<float>((i * 7 + salt * 13) % 17 - 8) / 4.0f;
}

// Runs e and compares with the exact product.
void RunAndCheck(const Exe& e) {
  ASSERT_NE(e.exe, nullptr);
  std::vector<float> a(e.m * kK), b(kK * kN);
  for (size_t i = 0; i < a.size(); i++) a[i] = Val(i, 1);
  for (size_t i = 0; i < b.size(); i++) b[i] = Val(i, 2);
  hlx_tensor_desc_t da = {}, db = {};
  da.element_type = db.element_type = hlx_element_type_from_name("f32");
  da.rank = db.rank = 2;
  da.dims[0] = e.m, da.dims[1] = kK;
  db.dims[0] = kK, db.dims[1] = kN;
  hlx_buffer_t* in[2] = {nullptr, nullptr};
  ASSERT_EQ(hlx_buffer_create(&da, a.data(), &in[0]), nullptr);
  ASSERT_EQ(hlx_buffer_create(&db, b.data(), &in[1]), nullptr);
  hlx_buffer_t* out[1] = {nullptr};
  hlx_status_t s = hlx_executable_run(e.exe, in, 2, out, 1);
  EXPECT_EQ(s, nullptr) << hlx_status_get_message(s);
  hlx_status_release(s);
  if (out[0]) {
    const float* c = static_cast<const float*>(hlx_buffer_data(out[0]));
    int bad = 0;
    for (int64_t i = 0; i < e.m && bad < 5; i++)
      for (int64_t j = 0; j < kN && bad < 5; j++) {
        float want = 0;
        for (int64_t k = 0; k < kK; k++) want += a[i * kK + k] * b[k * kN + j];
        if (c[i * kN + j] != want) {
          ADD_FAILURE() << "m=" << e.m << " at " << i << "," << j << ": "
                        << c[i * kN + j] << " != " << want;
          bad++;
        }
      }
    hlx_buffer_destroy(out[0]);
  }
  hlx_buffer_destroy(in[0]);
  hlx_buffer_destroy(in[1]);
}

hlx_onednn_cache_stats_t Stats() {
  hlx_onednn_cache_stats_t s;
  hlx_onednn_cache_stats(&s);
  return s;
}

class OnednnLifetime : public testing::Test {
 protected:
  void SetUp() override { prev_ = hlx_onednn_cache_set_idle_capacity(3); }
  void TearDown() override { hlx_onednn_cache_set_idle_capacity(prev_); }
  int32_t prev_ = 0;
};

TEST_F(OnednnLifetime, DestroyedExecutablesFreeTheirPrimitivesPastCapacity) {
  const int kShapes = 24;
  hlx_onednn_cache_stats_t s0 = Stats();
  for (int i = 0; i < kShapes; i++) {
    {
      Exe e(Rows(i));
      hlx_onednn_cache_stats_t s = Stats();
      EXPECT_GT(s.builds, s0.builds + i) << "shape " << i << " built nothing";
      EXPECT_GE(s.live - s.idle, s0.live - s0.idle + 1) << "not in use";
      RunAndCheck(e);
    }
    hlx_onednn_cache_stats_t s = Stats();
    EXPECT_EQ(s.live - s.idle, s0.live - s0.idle) << "still in use: " << i;
    EXPECT_LE(s.idle, 3);
  }
  hlx_onednn_cache_stats_t s1 = Stats();
  EXPECT_EQ(s1.idle, 3);
  EXPECT_EQ(s1.live, s0.live - s0.idle + 3);

  // The newest idle primitive is reused: nothing is built.
  {
    Exe e(Rows(kShapes - 1));
    EXPECT_EQ(Stats().builds, s1.builds);
    EXPECT_EQ(Stats().idle, 2);
    RunAndCheck(e);
  }
  // The first one was evicted: built again, and right.
  {
    Exe e(Rows(0));
    EXPECT_GT(Stats().builds, s1.builds);
    RunAndCheck(e);
  }
  EXPECT_LE(Stats().idle, 3);
}

TEST_F(OnednnLifetime, SharedPrimitiveOutlivesTheFirstExecutable) {
  hlx_onednn_cache_set_idle_capacity(0);  // unused ones are freed at once
  hlx_onednn_cache_stats_t s0 = Stats();
  Exe* a = new Exe(Rows(100));
  hlx_onednn_cache_stats_t s1 = Stats();
  EXPECT_GT(s1.builds, s0.builds);
  Exe* b = new Exe(Rows(100));
  EXPECT_EQ(Stats().builds, s1.builds);  // the same primitive
  RunAndCheck(*a);
  delete a;
  EXPECT_EQ(Stats().live, s1.live);  // b still uses it
  RunAndCheck(*b);
  delete b;
  EXPECT_EQ(Stats().live, s0.live);
  EXPECT_EQ(Stats().idle, 0);
}

}  // namespace
