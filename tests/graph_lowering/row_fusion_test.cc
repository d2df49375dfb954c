// Row-local fusion (graph/lower/opt/row_fusion.c, kernels/row_fused.h): layer
// norm (JAX's, with its @_var and @_where calls), log_softmax and softmax
// become one "rowfused(" task each; their results equal those of the plan
// without row fusion (HLX_NO_ROW_FUSION=1) and without any fusion, bit for
// bit (the same kernels run on the same values), for odd row counts and
// row lengths, NaN/Inf rows, f32/f64/bf16, run whole and split in pieces.
// Ops that read other rows (a reduce over dim 0, a transpose) stay out.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/data_paths.h"
#include "tests/epilogue/plan_harness.h"
#include "tests/graph_lowering/plan_run.h"

namespace {

using plan_run::Buffers;

std::string Subst(std::string s, const std::string& key,
                  const std::string& v) {
  for (size_t p; (p = s.find(key)) != std::string::npos;)
    s.replace(p, key.size(), v);
  return s;
}

int32_t RowTasks(const hlx_plan_t* p) {
  return TasksNamed(p, "rowfused(");
}

Buffers RunSplit(const hlx_plan_t* p, const Buffers& in) {
  return plan_run::RunPlan(p, in, true);
}

// Lowers text with row fusion, without it and without fusion; expects
// `row_tasks` row-fused tasks and equal results on random inputs.
void CheckRowFusion(const std::string& text, int32_t row_tasks,
                    unsigned seed) {
  SCOPED_TRACE(text);
  Lowered row, plain, unfused;
  ASSERT_TRUE(plan_run::LowerWith(text, nullptr, true, &row));
  ASSERT_TRUE(plan_run::LowerWith(text, "HLX_NO_ROW_FUSION", true, &plain));
  ASSERT_TRUE(plan_run::LowerWith(text, nullptr, false, &unfused));
  EXPECT_EQ(RowTasks(row.main()), row_tasks);
  EXPECT_EQ(RowTasks(plain.main()), 0);
  EXPECT_EQ(RowTasks(unfused.main()), 0);
  const hlx_func_t* f = hlx_module_entry(row.module);
  for (double scale : {1.0, 0.5}) {  // 1: NaN/Inf mixed in
    Buffers in = plan_run::RandomArgs(f, seed++, scale);
    Buffers want = plan_run::RunPlan(unfused.main(), in);
    Buffers other = plan_run::RunPlan(plain.main(), in);
    Buffers whole = plan_run::RunPlan(row.main(), in);
    Buffers split = RunSplit(row.main(), in);
    for (size_t r = 0; r < want.size(); r++) {
      const hlx_type_t* t = f->result_types[r];
      size_t n = (size_t)hlx_type_num_elements(t);
      EXPECT_EQ(plan_run::MaxRel(t->dtype, whole[r], want[r], n), 0.0)
          << "result " << r << " whole vs unfused";
      EXPECT_EQ(plan_run::MaxRel(t->dtype, split[r], want[r], n), 0.0)
          << "result " << r << " split vs unfused";
      EXPECT_EQ(plan_run::MaxRel(t->dtype, other[r], want[r], n), 0.0)
          << "result " << r << " no row fusion vs unfused";
    }
  }
}

// JAX's layer norm over the last dim, as searchless_chess_9m.mlir writes
// it: the mean, a @_var call (its own mean, a FLOAT compare of the ddof,
// a @_where call), rsqrt, gamma and beta along the row.
const char* kLayerNorm = R"(
  func.func @main(%x: tensor<{A}x{B}x{L}x{T}>, %g: tensor<{L}x{T}>, %b: tensor<{L}x{T}>) -> tensor<{A}x{B}x{L}x{T}> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %z = stablehlo.constant dense<0.0> : tensor<{T}>
    %n = stablehlo.constant dense<{L}.0> : tensor<{T}>
    %eps = stablehlo.constant dense<1.0e-5> : tensor<{T}>
    %0 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [2] : (tensor<{A}x{B}x{L}x{T}>, tensor<{T}>) -> tensor<{A}x{B}x{T}>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<{A}x{B}x{T}>) -> tensor<{A}x{B}x1x{T}>
    %2 = stablehlo.broadcast_in_dim %n, dims = [] : (tensor<{T}>) -> tensor<{A}x{B}x1x{T}>
    %3 = stablehlo.divide %1, %2 : tensor<{A}x{B}x1x{T}>
    %4 = call @_var(%x, %c) : (tensor<{A}x{B}x{L}x{T}>, tensor<i32>) -> tensor<{A}x{B}x1x{T}>
    %5 = stablehlo.broadcast_in_dim %eps, dims = [] : (tensor<{T}>) -> tensor<{A}x{B}x1x{T}>
    %6 = stablehlo.add %4, %5 : tensor<{A}x{B}x1x{T}>
    %7 = stablehlo.rsqrt %6 : tensor<{A}x{B}x1x{T}>
    %8 = stablehlo.broadcast_in_dim %g, dims = [2] : (tensor<{L}x{T}>) -> tensor<1x1x{L}x{T}>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2] : (tensor<1x1x{L}x{T}>) -> tensor<{A}x{B}x{L}x{T}>
    %10 = stablehlo.broadcast_in_dim %7, dims = [0, 1, 2] : (tensor<{A}x{B}x1x{T}>) -> tensor<{A}x{B}x{L}x{T}>
    %11 = stablehlo.multiply %9, %10 : tensor<{A}x{B}x{L}x{T}>
    %12 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2] : (tensor<{A}x{B}x1x{T}>) -> tensor<{A}x{B}x{L}x{T}>
    %13 = stablehlo.subtract %x, %12 : tensor<{A}x{B}x{L}x{T}>
    %14 = stablehlo.multiply %11, %13 : tensor<{A}x{B}x{L}x{T}>
    %15 = stablehlo.broadcast_in_dim %b, dims = [2] : (tensor<{L}x{T}>) -> tensor<{A}x{B}x{L}x{T}>
    %16 = stablehlo.add %14, %15 : tensor<{A}x{B}x{L}x{T}>
    return %16 : tensor<{A}x{B}x{L}x{T}>
  }
  func.func private @_var(%arg0: tensor<{A}x{B}x{L}x{T}>, %arg1: tensor<i32>) -> tensor<{A}x{B}x1x{T}> {
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %nan = stablehlo.convert %cst : (tensor<f32>) -> tensor<{T}>
    %cst_0 = stablehlo.constant dense<{L}.0> : tensor<{T}>
    %cst_1 = stablehlo.constant dense<0.0> : tensor<{T}>
    %0 = stablehlo.reduce(%arg0 init: %cst_1) applies stablehlo.add across dimensions = [2] : (tensor<{A}x{B}x{L}x{T}>, tensor<{T}>) -> tensor<{A}x{B}x{T}>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<{A}x{B}x{T}>) -> tensor<{A}x{B}x1x{T}>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<{T}>) -> tensor<{A}x{B}x1x{T}>
    %3 = stablehlo.divide %1, %2 : tensor<{A}x{B}x1x{T}>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2] : (tensor<{A}x{B}x1x{T}>) -> tensor<{A}x{B}x{L}x{T}>
    %5 = stablehlo.subtract %arg0, %4 : tensor<{A}x{B}x{L}x{T}>
    %6 = stablehlo.multiply %5, %5 : tensor<{A}x{B}x{L}x{T}>
    %7 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<{T}>
    %8 = stablehlo.subtract %cst_0, %7 : tensor<{T}>
    %9 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [2] : (tensor<{A}x{B}x{L}x{T}>, tensor<{T}>) -> tensor<{A}x{B}x{T}>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1] : (tensor<{A}x{B}x{T}>) -> tensor<{A}x{B}x1x{T}>
    %11 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<{T}>) -> tensor<{A}x{B}x1x{T}>
    %12 = stablehlo.divide %10, %11 : tensor<{A}x{B}x1x{T}>
    %13 = stablehlo.compare  GT, %8, %cst_1,  FLOAT : (tensor<{T}>, tensor<{T}>) -> tensor<i1>
    %14 = call @_where(%13, %12, %nan) : (tensor<i1>, tensor<{A}x{B}x1x{T}>, tensor<{T}>) -> tensor<{A}x{B}x1x{T}>
    return %14 : tensor<{A}x{B}x1x{T}>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<{A}x{B}x1x{T}>, %arg2: tensor<{T}>) -> tensor<{A}x{B}x1x{T}> {
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<{T}>) -> tensor<{A}x{B}x1x{T}>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<i1>, tensor<{A}x{B}x1x{T}>
    return %2 : tensor<{A}x{B}x1x{T}>
  }
)";

std::string Shape(const char* text, const char* a, const char* b,
                  const char* l, const char* t) {
  return Subst(Subst(Subst(Subst(text, "{A}", a), "{B}", b), "{L}", l), "{T}",
               t);
}

struct Dims {
  const char *a, *b, *l;
};
// Odd row counts (one row block, several, a tail) and row lengths below,
// at and above the vector widths and the block.
const Dims kDims[] = {{"3", "7", "5"},    {"1", "13", "79"}, {"5", "9", "256"},
                      {"2", "3", "1000"}, {"33", "7", "16"}, {"1", "2", "4097"}};

TEST(RowFusionRun, LayerNormWithCallsIsOneTask) {
  unsigned seed = 1;
  for (const char* t : {"f32", "f64", "bf16"})
    for (const Dims& d : kDims) CheckRowFusion(Shape(kLayerNorm, d.a, d.b, d.l, t), 1, seed += 2);
}

// The per-row values reshaped (not broadcast) to their x1 shapes, as
// other exporters write them.
TEST(RowFusionRun, LayerNormWithReshapes) {
  std::string text = kLayerNorm;
  text = Subst(text,
               "%1 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : "
               "(tensor<{A}x{B}x{T}>) -> tensor<{A}x{B}x1x{T}>",
               "%1 = stablehlo.reshape %0 : (tensor<{A}x{B}x{T}>) -> "
               "tensor<{A}x{B}x1x{T}>");
  text = Subst(text,
               "%10 = stablehlo.broadcast_in_dim %9, dims = [0, 1] : "
               "(tensor<{A}x{B}x{T}>) -> tensor<{A}x{B}x1x{T}>",
               "%10 = stablehlo.reshape %9 : (tensor<{A}x{B}x{T}>) -> "
               "tensor<{A}x{B}x1x{T}>");
  ASSERT_NE(text.find("%10 = stablehlo.reshape"), std::string::npos);
  unsigned seed = 700;
  for (const Dims& d : kDims)
    CheckRowFusion(Shape(text.c_str(), d.a, d.b, d.l, "f32"), 1, seed += 2);
}

// A row length of 1 has no row to fuse over.
TEST(RowFusionRun, RowsOfOneStayUnfused) {
  CheckRowFusion(Shape(kLayerNorm, "3", "5", "1", "f32"), 0, 3);
}

// log_softmax as a call (the chess model's last op) and a plain softmax.
const char* kSoftmaxes = R"(
  func.func @main(%x: tensor<{A}x{B}x{L}x{T}>, %bias: tensor<{L}x{T}>) -> (tensor<{A}x{B}x{L}x{T}>, tensor<{A}x{B}x{L}x{T}>) {
    %bb = stablehlo.broadcast_in_dim %bias, dims = [2] : (tensor<{L}x{T}>) -> tensor<{A}x{B}x{L}x{T}>
    %y = stablehlo.add %x, %bb : tensor<{A}x{B}x{L}x{T}>
    %ls = call @log_softmax(%y) : (tensor<{A}x{B}x{L}x{T}>) -> tensor<{A}x{B}x{L}x{T}>
    %z = stablehlo.constant dense<0.0> : tensor<{T}>
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %ni = stablehlo.convert %ninf : (tensor<f32>) -> tensor<{T}>
    %m = stablehlo.reduce(%x init: %ni) applies stablehlo.maximum across dimensions = [2] : (tensor<{A}x{B}x{L}x{T}>, tensor<{T}>) -> tensor<{A}x{B}x{T}>
    %mb = stablehlo.broadcast_in_dim %m, dims = [0, 1] : (tensor<{A}x{B}x{T}>) -> tensor<{A}x{B}x{L}x{T}>
    %d = stablehlo.subtract %x, %mb : tensor<{A}x{B}x{L}x{T}>
    %e = stablehlo.exponential %d : tensor<{A}x{B}x{L}x{T}>
    %s = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [2] : (tensor<{A}x{B}x{L}x{T}>, tensor<{T}>) -> tensor<{A}x{B}x{T}>
    %sb = stablehlo.broadcast_in_dim %s, dims = [0, 1] : (tensor<{A}x{B}x{T}>) -> tensor<{A}x{B}x{L}x{T}>
    %p = stablehlo.divide %e, %sb : tensor<{A}x{B}x{L}x{T}>
    return %ls, %p : tensor<{A}x{B}x{L}x{T}>, tensor<{A}x{B}x{L}x{T}>
  }
  func.func private @log_softmax(%arg0: tensor<{A}x{B}x{L}x{T}>) -> tensor<{A}x{B}x{L}x{T}> {
    %cst = stablehlo.constant dense<0.0> : tensor<{T}>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %c0 = stablehlo.convert %cst_0 : (tensor<f32>) -> tensor<{T}>
    %0 = stablehlo.reduce(%arg0 init: %c0) applies stablehlo.maximum across dimensions = [2] : (tensor<{A}x{B}x{L}x{T}>, tensor<{T}>) -> tensor<{A}x{B}x{T}>
    %1 = stablehlo.broadcast_in_dim %c0, dims = [] : (tensor<{T}>) -> tensor<{A}x{B}x{T}>
    %2 = stablehlo.maximum %1, %0 : tensor<{A}x{B}x{T}>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0, 1] : (tensor<{A}x{B}x{T}>) -> tensor<{A}x{B}x1x{T}>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2] : (tensor<{A}x{B}x1x{T}>) -> tensor<{A}x{B}x{L}x{T}>
    %5 = stablehlo.subtract %arg0, %4 : tensor<{A}x{B}x{L}x{T}>
    %6 = stablehlo.exponential %5 : tensor<{A}x{B}x{L}x{T}>
    %7 = stablehlo.reduce(%6 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<{A}x{B}x{L}x{T}>, tensor<{T}>) -> tensor<{A}x{B}x{T}>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<{A}x{B}x{T}>) -> tensor<{A}x{B}x1x{T}>
    %9 = stablehlo.log %8 : tensor<{A}x{B}x1x{T}>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1, 2] : (tensor<{A}x{B}x1x{T}>) -> tensor<{A}x{B}x{L}x{T}>
    %11 = stablehlo.subtract %5, %10 : tensor<{A}x{B}x{L}x{T}>
    return %11 : tensor<{A}x{B}x{L}x{T}>
  }
)";

TEST(RowFusionRun, LogSoftmaxCallAndSoftmaxAreOneTaskEach) {
  unsigned seed = 100;
  for (const char* t : {"f32", "f64", "bf16"})
    for (const Dims& d : kDims)
      CheckRowFusion(Shape(kSoftmaxes, d.a, d.b, d.l, t), 2, seed += 2);
}

// A per-row root: the variance alone, mean and squares read in one pass.
TEST(RowFusionRun, VarianceEndsInAPerRowValue) {
  const char* text = R"(
    func.func @main(%x: tensor<{A}x{B}x{L}x{T}>) -> tensor<{A}x{B}x1x{T}> {
      %c = stablehlo.constant dense<1> : tensor<i32>
      %v = call @_var(%x, %c) : (tensor<{A}x{B}x{L}x{T}>, tensor<i32>) -> tensor<{A}x{B}x1x{T}>
      return %v : tensor<{A}x{B}x1x{T}>
    })";
  std::string var = kLayerNorm;
  var = var.substr(var.find("  func.func private @_var"));
  unsigned seed = 200;
  for (const char* t : {"f32", "f64"})
    for (const Dims& d : kDims)
      CheckRowFusion(Shape((std::string(text) + var).c_str(), d.a, d.b, d.l, t),
                     1, seed += 2);
}

// Integer rows (exact: wrapping arithmetic), size-1 dims among the row
// dims, a per-row value broadcast from a rank-1 tensor, a reduce with a
// non-zero init, and a call that returns a view of its argument.
TEST(RowFusionRun, IntRowsAndSizeOneDims) {
  const char* text = R"(
    func.func @main(%x: tensor<1x7x1x{L}xi32>, %w: tensor<7xi32>) -> tensor<1x7x1x{L}xi32> {
      %lo = stablehlo.constant dense<-2147483648> : tensor<i32>
      %one = stablehlo.constant dense<3> : tensor<i32>
      %m = stablehlo.reduce(%x init: %lo) applies stablehlo.maximum across dimensions = [3] : (tensor<1x7x1x{L}xi32>, tensor<i32>) -> tensor<1x7x1xi32>
      %mb = stablehlo.broadcast_in_dim %m, dims = [0, 1, 2] : (tensor<1x7x1xi32>) -> tensor<1x7x1x{L}xi32>
      %y = stablehlo.subtract %x, %mb : tensor<1x7x1x{L}xi32>
      %s = stablehlo.reduce(%y init: %one) applies stablehlo.add across dimensions = [3] : (tensor<1x7x1x{L}xi32>, tensor<i32>) -> tensor<1x7x1xi32>
      %wb = stablehlo.broadcast_in_dim %w, dims = [1] : (tensor<7xi32>) -> tensor<1x7x1xi32>
      %t = stablehlo.multiply %s, %wb : tensor<1x7x1xi32>
      %v = call @view(%t) : (tensor<1x7x1xi32>) -> tensor<1x7x1x{L}xi32>
      %z = stablehlo.multiply %y, %v : tensor<1x7x1x{L}xi32>
      return %z : tensor<1x7x1x{L}xi32>
    }
    func.func private @view(%a: tensor<1x7x1xi32>) -> tensor<1x7x1x{L}xi32> {
      %b = stablehlo.broadcast_in_dim %a, dims = [0, 1, 2] : (tensor<1x7x1xi32>) -> tensor<1x7x1x{L}xi32>
      return %b : tensor<1x7x1x{L}xi32>
    })";
  unsigned seed = 500;
  for (const char* l : {"2", "9", "300"})
    CheckRowFusion(Subst(text, "{L}", l), 1, seed += 2);
}

// A call whose returned value ignores its row work (and the exponential
// feeding it): the group keeps only the broadcast of the constant it
// returns, copied out.
TEST(RowFusionRun, RootThatIsAViewOfAConstant) {
  const char* text = R"(
    func.func @main(%x: tensor<6x11xf32>) -> tensor<6x11xf32> {
      %e = stablehlo.exponential %x : tensor<6x11xf32>
      %r = call @f(%e) : (tensor<6x11xf32>) -> tensor<6x11xf32>
      return %r : tensor<6x11xf32>
    }
    func.func private @f(%x: tensor<6x11xf32>) -> tensor<6x11xf32> {
      %z = stablehlo.constant dense<0.0> : tensor<f32>
      %c = stablehlo.constant dense<2.5> : tensor<f32>
      %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<6x11xf32>, tensor<f32>) -> tensor<6xf32>
      %sb = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<6xf32>) -> tensor<6x11xf32>
      %d = stablehlo.subtract %x, %sb : tensor<6x11xf32>
      %cb = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<6x11xf32>
      return %cb : tensor<6x11xf32>
    })";
  CheckRowFusion(text, 1, 600);
}

// Reads of other rows stay out of the group: a mean over dim 0 broadcast
// back, and a transpose of the normalized rows (its own task).
TEST(RowFusionRun, OpsReadingOtherRowsStayOut) {
  const char* text = R"(
    func.func @main(%x: tensor<12x9xf32>) -> (tensor<12x9xf32>, tensor<9x12xf32>) {
      %z = stablehlo.constant dense<0.0> : tensor<f32>
      %c0 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<12x9xf32>, tensor<f32>) -> tensor<9xf32>
      %cb = stablehlo.broadcast_in_dim %c0, dims = [1] : (tensor<9xf32>) -> tensor<12x9xf32>
      %y = stablehlo.subtract %x, %cb : tensor<12x9xf32>
      %s = stablehlo.reduce(%y init: %z) applies stablehlo.add across dimensions = [1] : (tensor<12x9xf32>, tensor<f32>) -> tensor<12xf32>
      %sb = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<12xf32>) -> tensor<12x9xf32>
      %n = stablehlo.divide %y, %sb : tensor<12x9xf32>
      %t = stablehlo.transpose %n, dims = [1, 0] : (tensor<12x9xf32>) -> tensor<9x12xf32>
      %u = stablehlo.exponential %t : tensor<9x12xf32>
      %r = stablehlo.reduce(%u init: %z) applies stablehlo.add across dimensions = [1] : (tensor<9x12xf32>, tensor<f32>) -> tensor<9xf32>
      %rb = stablehlo.broadcast_in_dim %r, dims = [0] : (tensor<9xf32>) -> tensor<9x12xf32>
      %w = stablehlo.divide %u, %rb : tensor<9x12xf32>
      %n2 = stablehlo.add %n, %n : tensor<12x9xf32>
      return %n2, %w : tensor<12x9xf32>, tensor<9x12xf32>
    })";
  CheckRowFusion(text, 2, 300);
  Lowered l;
  ASSERT_TRUE(plan_run::LowerWith(text, nullptr, true, &l));
  EXPECT_EQ(TasksNamed(l.main(), "stablehlo.transpose"), 1);
  // The column sum over dim 0 is its own task, not a member.
  bool column_sum = false;
  for (int32_t i = 0; i < l.main()->num_tasks; i++) {
    const char* name = l.main()->tasks[i].name;
    EXPECT_EQ(std::strstr(name, "transpose,"), nullptr) << name;
    column_sum = column_sum || std::strncmp(name, "stablehlo.reduce", 16) == 0 ||
                 std::strncmp(name, "fused(reduce", 12) == 0;
  }
  EXPECT_TRUE(column_sum);
}

// A value used outside the group ends it: %d is returned as well, so the
// normalization group starts after it and %d is an input.
TEST(RowFusionRun, ValueUsedOutsideIsAnInput) {
  const char* text = R"(
    func.func @main(%x: tensor<6x5x33xf32>) -> (tensor<6x5x33xf32>, tensor<6x5x33xf32>) {
      %z = stablehlo.constant dense<0.0> : tensor<f32>
      %d = stablehlo.exponential %x : tensor<6x5x33xf32>
      %s = stablehlo.reduce(%d init: %z) applies stablehlo.add across dimensions = [2] : (tensor<6x5x33xf32>, tensor<f32>) -> tensor<6x5xf32>
      %sb = stablehlo.broadcast_in_dim %s, dims = [0, 1] : (tensor<6x5xf32>) -> tensor<6x5x33xf32>
      %p = stablehlo.divide %d, %sb : tensor<6x5x33xf32>
      return %p, %d : tensor<6x5x33xf32>, tensor<6x5x33xf32>
    })";
  CheckRowFusion(text, 1, 400);
  Lowered l;
  ASSERT_TRUE(plan_run::LowerWith(text, nullptr, true, &l));
  for (int32_t i = 0; i < l.main()->num_tasks; i++)
    if (std::strncmp(l.main()->tasks[i].name, "rowfused(", 9) == 0)
      EXPECT_EQ(std::strstr(l.main()->tasks[i].name, "exponential"), nullptr);
}


// Shapes where a per-row value and a row vector look alike (rows equal to
// the row length, size-1 dims, equal leading dims): broadcasts that read
// across rows (along the row, transposed, on a middle dim) stay out, the
// rest fuse, and every result is the unfused plan's.
TEST(RowFusionRun, LookalikeRowAndColumnShapes) {
  const char* cases[] = {
  // A: rows == len, per-row sum broadcast along the row dim (a column read)
  R"(func.func @main(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
      %z = stablehlo.constant dense<0.0> : tensor<f32>
      %m = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
      %e = stablehlo.exponential %m : tensor<4xf32>
      %y = stablehlo.broadcast_in_dim %e, dims = [1] : (tensor<4xf32>) -> tensor<4x4xf32>
      %w = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<4xf32>) -> tensor<4x4xf32>
      %a = stablehlo.subtract %x, %y : tensor<4x4xf32>
      %b = stablehlo.subtract %a, %w : tensor<4x4xf32>
      return %b : tensor<4x4xf32>
    })",
  // B: rows == len, per-row sum reshaped to a row vector, broadcast
  R"(func.func @main(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
      %z = stablehlo.constant dense<0.0> : tensor<f32>
      %m = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
      %r = stablehlo.reshape %m : (tensor<4xf32>) -> tensor<1x4xf32>
      %y = stablehlo.broadcast_in_dim %r, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<4x4xf32>
      %w = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<4xf32>) -> tensor<4x4xf32>
      %a = stablehlo.subtract %x, %y : tensor<4x4xf32>
      %b = stablehlo.subtract %a, %w : tensor<4x4xf32>
      return %b : tensor<4x4xf32>
    })",
  // C: rows == len, one vector read along the row and per row
  R"(func.func @main(%x: tensor<4x4xf32>, %g: tensor<4xf32>) -> tensor<4x4xf32> {
      %z = stablehlo.constant dense<0.0> : tensor<f32>
      %m = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
      %gr = stablehlo.broadcast_in_dim %g, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
      %ge = stablehlo.exponential %gr : tensor<1x4xf32>
      %gv = stablehlo.broadcast_in_dim %ge, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<4x4xf32>
      %gc = stablehlo.broadcast_in_dim %g, dims = [0] : (tensor<4xf32>) -> tensor<4x4xf32>
      %w = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<4xf32>) -> tensor<4x4xf32>
      %a = stablehlo.multiply %x, %gv : tensor<4x4xf32>
      %a2 = stablehlo.add %a, %gc : tensor<4x4xf32>
      %b = stablehlo.subtract %a2, %w : tensor<4x4xf32>
      return %b : tensor<4x4xf32>
    })",
  // D: per-row values transposed by a broadcast ([2,2] rows, dims [1,0])
  R"(func.func @main(%x: tensor<2x2x8xf32>) -> tensor<2x2x8xf32> {
      %z = stablehlo.constant dense<0.0> : tensor<f32>
      %m = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [2] : (tensor<2x2x8xf32>, tensor<f32>) -> tensor<2x2xf32>
      %y = stablehlo.broadcast_in_dim %m, dims = [1, 0] : (tensor<2x2xf32>) -> tensor<2x2x8xf32>
      %b = stablehlo.subtract %x, %y : tensor<2x2x8xf32>
      return %b : tensor<2x2x8xf32>
    })",
  // E: a middle-dim broadcast of a row-length vector ([4] on dim 1 of 2x4x4)
  R"(func.func @main(%x: tensor<2x4x4xf32>, %g: tensor<4xf32>) -> tensor<2x4x4xf32> {
      %z = stablehlo.constant dense<0.0> : tensor<f32>
      %m = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [2] : (tensor<2x4x4xf32>, tensor<f32>) -> tensor<2x4xf32>
      %w = stablehlo.broadcast_in_dim %m, dims = [0, 1] : (tensor<2x4xf32>) -> tensor<2x4x4xf32>
      %gv = stablehlo.broadcast_in_dim %g, dims = [1] : (tensor<4xf32>) -> tensor<2x4x4xf32>
      %a = stablehlo.multiply %x, %gv : tensor<2x4x4xf32>
      %b = stablehlo.subtract %a, %w : tensor<2x4x4xf32>
      return %b : tensor<2x4x4xf32>
    })",
  // F: rows 8, len 4: a [4] broadcast on dim 1 of a [2,4] per-row value
  R"(func.func @main(%x: tensor<2x4x4xf32>, %g: tensor<4xf32>) -> tensor<2x4x4xf32> {
      %z = stablehlo.constant dense<0.0> : tensor<f32>
      %m = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [2] : (tensor<2x4x4xf32>, tensor<f32>) -> tensor<2x4xf32>
      %gr = stablehlo.broadcast_in_dim %g, dims = [1] : (tensor<4xf32>) -> tensor<2x4xf32>
      %s = stablehlo.add %m, %gr : tensor<2x4xf32>
      %w = stablehlo.broadcast_in_dim %s, dims = [0, 1] : (tensor<2x4xf32>) -> tensor<2x4x4xf32>
      %b = stablehlo.subtract %x, %w : tensor<2x4x4xf32>
      return %b : tensor<2x4x4xf32>
    })",
  // G: select with a scalar pred, clamp with scalar bounds, arg init, max reduce
  R"(func.func @main(%x: tensor<5x7xf32>, %p: tensor<i1>, %lo: tensor<f32>, %i: tensor<f32>) -> tensor<5x7xf32> {
      %m = stablehlo.reduce(%x init: %i) applies stablehlo.maximum across dimensions = [1] : (tensor<5x7xf32>, tensor<f32>) -> tensor<5xf32>
      %w = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<5xf32>) -> tensor<5x7xf32>
      %a = stablehlo.subtract %x, %w : tensor<5x7xf32>
      %hi = stablehlo.constant dense<0.5> : tensor<f32>
      %c = stablehlo.clamp %lo, %a, %hi : (tensor<f32>, tensor<5x7xf32>, tensor<f32>) -> tensor<5x7xf32>
      %s = stablehlo.select %p, %c, %x : (tensor<i1>, tensor<5x7xf32>, tensor<5x7xf32>) -> tensor<5x7xf32>
      return %s : tensor<5x7xf32>
    })",
  // H: a reduce over dims [1, 2] of 4x1x8 (a size-1 dim among the row's)
  R"(func.func @main(%x: tensor<4x1x8xf32>) -> tensor<4x1x8xf32> {
      %z = stablehlo.constant dense<0.0> : tensor<f32>
      %m = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1, 2] : (tensor<4x1x8xf32>, tensor<f32>) -> tensor<4xf32>
      %w = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<4xf32>) -> tensor<4x1x8xf32>
      %b = stablehlo.subtract %x, %w : tensor<4x1x8xf32>
      return %b : tensor<4x1x8xf32>
    })",
  // I: rows == len, a [1,4] made from a [4] holds it in row order: per row
  R"(func.func @main(%x: tensor<4x4xf32>, %g: tensor<4xf32>) -> tensor<4x4xf32> {
      %z = stablehlo.constant dense<0.0> : tensor<f32>
      %m = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
      %r = stablehlo.reshape %m : (tensor<4xf32>) -> tensor<4x1xf32>
      %gr = stablehlo.broadcast_in_dim %g, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
      %q = stablehlo.reshape %gr : (tensor<1x4xf32>) -> tensor<4x1xf32>
      %s = stablehlo.add %r, %q : tensor<4x1xf32>
      %w = stablehlo.broadcast_in_dim %s, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x4xf32>
      %b = stablehlo.subtract %x, %w : tensor<4x4xf32>
      return %b : tensor<4x4xf32>
    })",
  // J: rows == len, a per-row sum broadcast along dim 1 feeds a per-row root
  R"(func.func @main(%x: tensor<4x4xf32>, %y: tensor<4x4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
      %z = stablehlo.constant dense<0.0> : tensor<f32>
      %e = stablehlo.exponential %x : tensor<4x4xf32>
      %m = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
      %w = stablehlo.broadcast_in_dim %m, dims = [1] : (tensor<4xf32>) -> tensor<4x4xf32>
      %d = stablehlo.divide %e, %w : tensor<4x4xf32>
      %n = stablehlo.reduce(%d init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
      return %n, %m : tensor<4xf32>, tensor<4xf32>
    })",
  };
  const int32_t row_tasks[] = {0, 0, 0, 0, 1, 1, 1, 1, 1, 0};
  static_assert(sizeof cases / sizeof *cases == 10, "one count per case");
  for (int i = 0; i < 10; i++)
    CheckRowFusion(cases[i], row_tasks[i], 900 + 10 * (unsigned)i);
}

// The chess transformer: its 17 layer norms (each with a @_var call) and
// the final log_softmax are one task each, and the whole model's output
// is that of the plan without row fusion, bit for bit.
TEST(RowFusionModel, ChessTransformerMatchesWithoutRowFusion) {
  std::ifstream f(hlx_test::ModelsDir() + "/searchless_chess_9m.mlir");
  ASSERT_TRUE(f.good());
  std::string text((std::istreambuf_iterator<char>(f)),
                   std::istreambuf_iterator<char>());
  Lowered row, plain;
  ASSERT_TRUE(plan_run::LowerWith(text, nullptr, true, &row));
  ASSERT_TRUE(plan_run::LowerWith(text, "HLX_NO_ROW_FUSION", true, &plain));
  EXPECT_EQ(RowTasks(row.main()), 18);
  EXPECT_LT(row.main()->num_tasks, plain.main()->num_tasks);
  const hlx_func_t* fn = hlx_module_entry(row.module);
  Buffers in = plan_run::RandomArgs(fn, 5, 0.05);  // activations in range
  Buffers want = plan_run::RunPlan(plain.main(), in);
  Buffers got = RunSplit(row.main(), in);
  const hlx_type_t* t = fn->result_types[0];
  size_t n = (size_t)hlx_type_num_elements(t);
  double rel = plan_run::MaxRel(t->dtype, got[0], want[0], n);
  std::cout << "tasks " << row.main()->num_tasks << " vs "
            << plain.main()->num_tasks << " without row fusion; max relative "
            << "difference " << rel << "\n";
  EXPECT_EQ(rel, 0.0);
}

}  // namespace
