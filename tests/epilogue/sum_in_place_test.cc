// Residual sums in place (graph/lower/opt/epilogue.c, HLX_TASK_OUT0_OVER_IN): a
// dot or convolution whose epilogue adds a whole tensor (a oneDNN sum
// post-op) writes its result over that tensor's slot when the tensor dies
// there, so oneDNN reads dst in place instead of a copy. The results must
// equal, bit for bit, the plan lowered with HLX_NO_SUM_IN_PLACE=1 (which
// copies) and, to float rounding, the unfused plan (HLX_NO_EPILOGUE=1);
// the slots must alias exactly when the residual dies at the task: not
// when it is read later, returned, or a parameter. SumInPlaceModel.* (its
// own target, it reads ../shared): the chess transformer and ResNet-50.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" {
#include "scheduler/buffer_assign.h"
}
#include "tests/data_paths.h"
#include "tests/epilogue/plan_harness.h"

namespace {

enum Residual { kDies, kLaterUser, kReturned, kParam };

// @main(%x, %w, %y): r = tanh(y) (or y itself for kParam), the dot
// [2, 64, 96] x [96, 80] or the NHWC convolution 1x8x8x16 * 3x3x16x16
// (pad 1), plus r; kLaterUser multiplies the sum by r afterwards,
// kReturned also returns r.
std::string Program(bool dot, Residual res,
                    std::vector<std::vector<int64_t>>* shapes) {
  std::vector<int64_t> x = dot ? std::vector<int64_t>{2, 64, 96}
                               : std::vector<int64_t>{1, 8, 8, 16};
  std::vector<int64_t> w = dot ? std::vector<int64_t>{96, 80}
                               : std::vector<int64_t>{3, 3, 16, 16};
  std::vector<int64_t> o = dot ? std::vector<int64_t>{2, 64, 80}
                               : std::vector<int64_t>{1, 8, 8, 16};
  *shapes = {x, w, o};
  std::string O = TensorType(o);
  std::string p = "func.func @main(%x: " + TensorType(x) +
                  ", %w: " + TensorType(w) + ", %y: " + O + ") -> (" + O +
                  (res == kReturned ? ", " + O : "") + ") {\n";
  std::string r = "%y";
  if (res != kParam) {
    p += "  %r = stablehlo.tanh %y : " + O + "\n";
    r = "%r";
  }
  if (dot)
    p += "  %0 = stablehlo.dot_general %x, %w, contracting_dims = [2] x [0] "
         ": (" + TensorType(x) + ", " + TensorType(w) + ") -> " + O + "\n";
  else
    p += "  %0 = stablehlo.convolution(%x, %w) dim_numbers = "
         "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, "
         "1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, "
         "feature_group_count = 1 : i64} : (" + TensorType(x) + ", " +
         TensorType(w) + ") -> " + O + "\n";
  p += "  %1 = stablehlo.add %0, " + r + " : " + O + "\n";
  std::string ret = "%1";
  if (res == kLaterUser) {
    p += "  %2 = stablehlo.multiply %1, " + r + " : " + O + "\n";
    ret = "%2";
  }
  if (res == kReturned) ret += ", " + r;
  p += "  return " + ret + " : " + O + (res == kReturned ? ", " + O : "") +
       "\n}\n";
  return p;
}

// The epilogue task of p (its index), or -1.
int32_t EpilogueTask(const hlx_plan_t* p) {
  for (int32_t i = 0; i < p->num_tasks; i++)
    if (std::strstr(p->tasks[i].name, "+epilogue(add)")) return i;
  return -1;
}

// Each slot's arena offset as the executor assigns it (SIZE_MAX: not
// run-owned).
std::vector<size_t> Offsets(const hlx_plan_t* p) {
  size_t ns = static_cast<size_t>(p->num_slots);
  std::vector<unsigned char> owned(ns);
  for (size_t s = 0; s < ns; s++)
    owned[s] = !p->slot_data[s] && p->slot_bytes[s] > 0;
  for (int32_t i = 0; i < p->num_params; i++)
    owned[static_cast<size_t>(p->param_slots[i])] = 0;
  std::vector<int32_t> producer(ns, -1), from, to;
  for (int32_t k = 0; k < p->num_tasks; k++) {
    for (int32_t i = 0; i < p->tasks[k].num_in; i++) {
      int32_t pr = producer[static_cast<size_t>(p->tasks[k].in[i])];
      if (pr >= 0) from.push_back(pr), to.push_back(k);
    }
    for (int32_t i = 0; i < p->tasks[k].num_out; i++)
      producer[static_cast<size_t>(p->tasks[k].out[i])] = k;
  }
  hlx_buffer_assignment_t ba;
  hlx_status_t st = hlx_buffer_assign(p, owned.data(), from.data(), to.data(),
                                      from.size(), true, &ba);
  EXPECT_EQ(st, nullptr);
  hlx_status_free(st);
  if (st) return std::vector<size_t>(ns, SIZE_MAX);
  std::vector<size_t> off(ba.slot_off, ba.slot_off + ns);
  hlx_buffer_assignment_free(&ba);
  return off;
}

// Whether task t's output 0 is at the slot of its flagged input.
bool Aliased(const hlx_plan_t* p, const std::vector<size_t>& off, int32_t t) {
  const hlx_task_t& task = p->tasks[t];
  if (!(task.flags & HLX_TASK_OUT0_OVER_IN_SET)) return false;
  int32_t k = HLX_TASK_OUT0_OVER_IN_INDEX(task.flags);
  size_t a = off[static_cast<size_t>(task.out[0])];
  return a != SIZE_MAX && a == off[static_cast<size_t>(task.in[k])];
}

void Check(bool dot, Residual res) {
  SCOPED_TRACE(std::string(dot ? "dot" : "conv") + " residual " +
               std::to_string(res));
  std::vector<std::vector<int64_t>> shapes;
  std::string text = Program(dot, res, &shapes);
  Lowered on, copy, off;
  const hlx_plan_t* pi = LowerMain(text, nullptr, &on);
  const hlx_plan_t* pc = LowerMain(text, "HLX_NO_SUM_IN_PLACE", &copy);
  const hlx_plan_t* pu = LowerMain(text, "HLX_NO_EPILOGUE", &off);
  ASSERT_TRUE(pi && pc && pu);
  int32_t ti = EpilogueTask(pi), tc = EpilogueTask(pc);
  ASSERT_GE(ti, 0) << text;
  ASSERT_GE(tc, 0);
  EXPECT_EQ(EpilogueTask(pu), -1);
  EXPECT_TRUE(pi->tasks[ti].flags & HLX_TASK_OUT0_OVER_IN_SET);
  EXPECT_FALSE(pc->tasks[tc].flags & HLX_TASK_OUT0_OVER_IN_SET);
  EXPECT_EQ(Aliased(pi, Offsets(pi), ti), res == kDies);
  std::mt19937 rng(99);
  std::uniform_real_distribution<float> u(-1, 1);
  for (int trial = 0; trial < 2; trial++) {
    std::vector<std::vector<float>> in;
    for (auto& d : shapes) {
      in.emplace_back(ElementCount(d));
      for (auto& v : in.back()) v = u(rng);
    }
    // Twice on the same plan: the second run sees the first's arena.
    for (int run = 0; run < 2; run++) {
      auto a = RunPlan(pi, in), b = RunPlan(pc, in), c = RunPlan(pu, in);
      ASSERT_EQ(a.size(), c.size());
      ASSERT_EQ(a, b) << "in place differs from the copy";
      for (size_t r = 0; r < a.size(); r++) {
        double big = 0;
        for (float v : c[r]) big = std::fmax(big, std::fabs(v));
        ASSERT_GT(big, 0);
        for (size_t i = 0; i < a[r].size(); i++)
          ASSERT_NEAR(a[r][i], c[r][i], 1e-5 * big) << r << " " << i;
      }
    }
  }
}

TEST(SumInPlace, Dot) {
  for (Residual r : {kDies, kLaterUser, kReturned, kParam}) Check(true, r);
}

TEST(SumInPlace, Convolution) {
  for (Residual r : {kDies, kLaterUser, kReturned, kParam}) Check(false, r);
}

// The model files: tasks flagged and summing in place, and results bit
// for bit those of the plan lowered with HLX_NO_SUM_IN_PLACE=1.
void CheckModel(const char* name, int want_aliased) {
  SCOPED_TRACE(name);
  std::ifstream f(hlx_test::ModelsDir() + "/" + name);
  ASSERT_TRUE(f.good()) << "cannot read " << name;
  std::string text((std::istreambuf_iterator<char>(f)),
                   std::istreambuf_iterator<char>());
  plan_run::Lowered on, copy;
  ASSERT_TRUE(plan_run::LowerWith(text, nullptr, true, &on));
  ASSERT_TRUE(plan_run::LowerWith(text, "HLX_NO_SUM_IN_PLACE", true, &copy));
  const hlx_plan_t* p = on.main();
  std::vector<size_t> off = Offsets(p);
  int flagged = 0, aliased = 0;
  for (int32_t t = 0; t < p->num_tasks; t++) {
    flagged += (p->tasks[t].flags & HLX_TASK_OUT0_OVER_IN_SET) != 0;
    aliased += Aliased(p, off, t);
  }
  std::cout << name << ": " << flagged << " residual sums, " << aliased
            << " in place\n";
  EXPECT_EQ(aliased, want_aliased);
  EXPECT_LE(hlx_plan_arena_bytes(p), hlx_plan_arena_bytes(copy.main()));
  plan_run::Buffers in =
      plan_run::RandomArgs(hlx_module_entry(on.module), 5, 1);
  EXPECT_EQ(plan_run::RunPlan(p, in), plan_run::RunPlan(copy.main(), in));
}

TEST(SumInPlaceModel, ChessTransformer) {
  // 8 layers x (attention out-projection, MLP down-projection).
  CheckModel("searchless_chess_9m.mlir", 16);
}

TEST(SumInPlaceModel, ResNet50) {
  // 12 of the 16 blocks; in the other 4 the last convolution runs without
  // its epilogue (batch norm, add and relu as separate tasks).
  CheckModel("jax_resnet_50_weights_as_args.mlir", 12);
}

}  // namespace
