// Processes that meet at a collective with operands of different types
// (shape or element type, any operand of a tuple form): every collective
// compares its peers' operand types at the rendezvous and fails with a
// status naming the op, the replicas and both types, instead of reading past
// the smaller buffer. Each case runs @f on replica 0 and @g on replica 1
// through interpreter.run_parallel; the run must fail at once (no peer left
// waiting for the timeout) and the executable must give the same error when
// run again.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <string>

#include "api/hlx.h"

namespace {

// One side of a mismatch: the operand type, the op's result type and the
// op's text ($T = operand type, $R = result type, $E = element type).
struct Side {
  std::string type, result, elem;
};

struct Case {
  const char* name;
  const char* op;  // a template, see Side
  Side a, b;
  const char* want_a;  // "replica 0 has tensor<4xf32>"
  const char* want_b;  // "replica 1 has tensor<4x4096xf32>"
};

std::string Fill(std::string t, const Side& s) {
  for (auto [key, val] : {std::pair<std::string, std::string>{"$T", s.type},
                          {"$R", s.result},
                          {"$E", s.elem}})
    for (size_t at; (at = t.find(key)) != std::string::npos;)
      t.replace(at, key.size(), val);
  return t;
}

std::string Func(const char* name, const char* op, const Side& s) {
  return "func.func @" + std::string(name) + "(%a: " + s.type + ") -> " +
         s.result + " {\n  " + Fill(op, s) + "\n  return %r : " + s.result +
         "\n}\n";
}

// @main runs @f (side a) on replica 0 and @g (side b) on replica 1, or
// @f on replicas 0 and 1 and @g on replica 2 when `three`.
std::string Program(const Case& c, bool three = false) {
  auto splat = [](const Side& s) {
    return std::string("stablehlo.constant dense<") +
           (s.elem[0] == 'f' ? "1.0" : "1") + "> : " + s.type;
  };
  std::string ins = three ? "%x, %x, %y" : "%x, %y";
  std::string in_types = three ? c.a.type + ", " + c.a.type + ", " + c.b.type
                               : c.a.type + ", " + c.b.type;
  std::string outs = three ? c.a.result + ", " + c.a.result + ", " +
                                 c.b.result
                           : c.a.result + ", " + c.b.result;
  return Func("f", c.op, c.a) + Func("g", c.op, c.b) +
         "func.func @main() -> (" + outs + ") {\n" + "  %x = " + splat(c.a) +
         "\n  %y = " + splat(c.b) + "\n  %r:" + (three ? "3" : "2") +
         " = \"interpreter.run_parallel\"(" + ins + ") {programs = " +
         (three ? "[[@f], [@f], [@g]]" : "[[@f], [@g]]") + "} : (" + in_types +
         ") -> (" + outs + ")\n  return " +
         (three ? "%r#0, %r#1, %r#2" : "%r#0, %r#1") + " : " + outs + "\n}\n";
}

#define SUM                                                  \
  "({ ^bb0(%x: tensor<$E>, %y: tensor<$E>):\n"               \
  "     %s = stablehlo.add %x, %y : tensor<$E>\n"            \
  "     stablehlo.return %s : tensor<$E> })"
#define G01 "replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>"

const Side kSmall{"tensor<4xf32>", "tensor<4xf32>", "f32"};
const Side kBig{"tensor<4x4096xf32>", "tensor<4x4096xf32>", "f32"};
const Side kInt{"tensor<4xi32>", "tensor<4xi32>", "i32"};

const Case kCases[] = {
    {"AllReduceShape",
     "%r = \"stablehlo.all_reduce\"(%a) " SUM " {" G01 "} : ($T) -> $R",
     kSmall, kBig, "replica 0 has tensor<4xf32>",
     "replica 1 has tensor<4x4096xf32>"},
    {"AllReduceElementType",
     "%r = \"stablehlo.all_reduce\"(%a) " SUM " {" G01 "} : ($T) -> $R",
     kSmall, kInt, "replica 0 has tensor<4xf32>", "replica 1 has tensor<4xi32>"},
    {"AllGather",
     "%r = \"stablehlo.all_gather\"(%a) {all_gather_dim = 0 : i64, " G01
     "} : ($T) -> $R",
     {"tensor<4xf32>", "tensor<8xf32>", "f32"},
     {"tensor<4x4096xf32>", "tensor<8x4096xf32>", "f32"},
     "replica 0 has tensor<4xf32>", "replica 1 has tensor<4x4096xf32>"},
    {"ReduceScatter",
     "%r = \"stablehlo.reduce_scatter\"(%a) " SUM
     " {scatter_dimension = 0 : i64, " G01 "} : ($T) -> $R",
     {"tensor<4xf32>", "tensor<2xf32>", "f32"},
     {"tensor<4x4096xf32>", "tensor<2x4096xf32>", "f32"},
     "replica 0 has tensor<4xf32>", "replica 1 has tensor<4x4096xf32>"},
    {"AllToAll",
     "%r = \"stablehlo.all_to_all\"(%a) {split_dimension = 0 : i64, "
     "concat_dimension = 0 : i64, split_count = 2 : i64, " G01
     "} : ($T) -> $R",
     kSmall, kBig, "replica 0 has tensor<4xf32>",
     "replica 1 has tensor<4x4096xf32>"},
    {"CollectivePermute",
     "%r = \"stablehlo.collective_permute\"(%a) {source_target_pairs = "
     "dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : ($T) -> $R",
     kSmall, kBig, "replica 0 has tensor<4xf32>",
     "replica 1 has tensor<4x4096xf32>"},
    {"CollectiveBroadcast",
     "%r = \"stablehlo.collective_broadcast\"(%a) {" G01 "} : ($T) -> $R",
     kSmall, kInt, "replica 0 has tensor<4xf32>", "replica 1 has tensor<4xi32>"},
    {"CollectiveReduce",
     "%r = \"stablehlo.collective_reduce\"(%a) " SUM " {" G01
     "} : ($T) -> $R",
     kSmall, kBig, "replica 0 has tensor<4xf32>",
     "replica 1 has tensor<4x4096xf32>"},
    {"CrossReplicaSum",
     "%r = \"stablehlo.cross_replica_sum\"(%a) {" G01 "} : ($T) -> $R",
     kSmall, kBig, "replica 0 has tensor<4xf32>",
     "replica 1 has tensor<4x4096xf32>"},
    // Tuple form: the second operand differs.
    {"AllReduceTupleSecondOperand",
     "%c = stablehlo.constant dense<1.0> : tensor<2xf32>\n"
     "  %r:2 = \"stablehlo.all_reduce\"(%c, %a) " SUM " {" G01
     "} : (tensor<2xf32>, $T) -> (tensor<2xf32>, $R)",
     kSmall, kBig, "replica 0 has tensor<4xf32>",
     "replica 1 has tensor<4x4096xf32>"},
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

std::string Named(const ::testing::TestParamInfo<Case>& i) {
  return i.param.name;
}

// Compiles `text` and runs its parameterless @main (num_results results)
// twice; returns both errors ("" for a run without one).
std::pair<std::string, std::string> RunTwice(const std::string& text,
                                             int num_results) {
  hlx_program_t* p = nullptr;
  hlx_executable_t* e = nullptr;
  hlx_status_t s =
      hlx_program_parse(text.data(), text.size(), "t.mlir", 1, &p);
  if (!s) s = hlx_executable_create(p, nullptr, &e);
  std::string first, second;
  for (std::string* msg : {&first, &second}) {
    hlx_buffer_t* out[3] = {nullptr, nullptr, nullptr};
    if (!s) s = hlx_executable_run(e, nullptr, 0, out, num_results);
    *msg = s ? hlx_status_get_message(s) : "";
    hlx_status_release(s);
    s = nullptr;
    for (hlx_buffer_t* b : out) hlx_buffer_destroy(b);
    if (!e) break;
  }
  hlx_executable_destroy(e);
  hlx_program_destroy(p);
  return {first, second};
}

class CollectivePeers : public ::testing::TestWithParam<Case> {};

TEST_P(CollectivePeers, DifferentOperandTypesAreANamedError) {
  const Case& c = GetParam();
  std::string text = Program(c);
  // Single-operand templates return %r; the tuple form returns %r#0.
  if (text.find("%r:2 = \"stablehlo.all_reduce\"") != std::string::npos)
    for (size_t at; (at = text.find("return %r :")) != std::string::npos;)
      text.replace(at, 11, "return %r#1 :");
  auto t0 = std::chrono::steady_clock::now();
  auto [first, second] = RunTwice(text, 2);
  // Every peer fails at once instead of waiting for the 10 s timeout.
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  std::string op = std::string("stablehlo.") +
                   (strstr(c.op, "\"stablehlo.") + 11);
  op = op.substr(0, op.find('"'));
  EXPECT_NE(first.find(op), std::string::npos) << first;
  EXPECT_NE(first.find(c.want_a), std::string::npos) << first;
  EXPECT_NE(first.find(c.want_b), std::string::npos) << first;
  EXPECT_EQ(first.find("participants arrived"), std::string::npos) << first;
  if (strstr(c.name, "Tuple")) {
    EXPECT_NE(first.find("operand #1"), std::string::npos) << first;
  }
  // The executable is reusable: a second run reports the same.
  EXPECT_EQ(second, first);
}

INSTANTIATE_TEST_SUITE_P(EveryCollective, CollectivePeers,
                         ::testing::ValuesIn(kCases), Named);

// With three replicas the odd one out is named.
TEST(CollectivePeersNamed, TheReplicaThatDiffers) {
  const Case c = {"AllReduceOfThree",
                  "%r = \"stablehlo.all_reduce\"(%a) " SUM
                  " {replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>} "
                  ": ($T) -> $R",
                  kSmall, kBig, "", ""};
  std::string text = Program(c, /*three=*/true);
  auto [first, second] = RunTwice(text, 3);
  EXPECT_NE(first.find("replica 0 has tensor<4xf32>"), std::string::npos)
      << first;
  EXPECT_NE(first.find("replica 2 has tensor<4x4096xf32>"), std::string::npos)
      << first;
  EXPECT_EQ(second, first);
}

// Tuple forms with different operand counts meet too.
TEST(CollectivePeersNamed, OperandCounts) {
  const char text[] = R"(
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r:2 = "stablehlo.all_reduce"(%a, %a) ({ ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %s = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %s : tensor<f32> }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %r#0 : tensor<4xf32>
}
func.func @g(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = "stablehlo.all_reduce"(%a) ({ ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %s = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %s : tensor<f32> }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @main() -> (tensor<4xf32>, tensor<4xf32>) {
  %x = stablehlo.constant dense<1.0> : tensor<4xf32>
  %r:2 = "interpreter.run_parallel"(%x, %x) {programs = [[@f], [@g]]} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
})";
  auto [first, second] = RunTwice(text, 2);
  EXPECT_NE(first.find("stablehlo.all_reduce"), std::string::npos) << first;
  EXPECT_NE(first.find("replica 0 has 2 operands, replica 1 has 1"),
            std::string::npos)
      << first;
  EXPECT_EQ(second, first);
}

// send/recv: the receiver's result types must be the sender's operand
// types.
TEST(CollectivePeersNamed, SendAndRecv) {
  const char text[] = R"(
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %t = "stablehlo.after_all"() : () -> !stablehlo.token
  %s = "stablehlo.send"(%a, %t) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, is_host_transfer = false} : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
  return %a : tensor<4xf32>
}
func.func @g(%a: tensor<4x4096xf32>) -> tensor<4x4096xf32> {
  %t = "stablehlo.after_all"() : () -> !stablehlo.token
  %r:2 = "stablehlo.recv"(%t) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, is_host_transfer = false} : (!stablehlo.token) -> (tensor<4x4096xf32>, !stablehlo.token)
  return %r#0 : tensor<4x4096xf32>
}
func.func @main() -> (tensor<4xf32>, tensor<4x4096xf32>) {
  %x = stablehlo.constant dense<1.0> : tensor<4xf32>
  %y = stablehlo.constant dense<1.0> : tensor<4x4096xf32>
  %r:2 = "interpreter.run_parallel"(%x, %y) {programs = [[@f], [@g]]} : (tensor<4xf32>, tensor<4x4096xf32>) -> (tensor<4xf32>, tensor<4x4096xf32>)
  return %r#0, %r#1 : tensor<4xf32>, tensor<4x4096xf32>
})";
  auto [first, second] = RunTwice(text, 2);
  EXPECT_NE(first.find("stablehlo.send"), std::string::npos) << first;
  EXPECT_NE(first.find("replica 0 sends tensor<4xf32>, replica 1 receives "
                       "tensor<4x4096xf32>"),
            std::string::npos)
      << first;
  EXPECT_EQ(second, first);
}

}  // namespace
