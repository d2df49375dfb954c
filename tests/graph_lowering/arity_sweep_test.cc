// Every op of graph/ir/ops.inc (the list comes from the .inc through
// hlx_opcode_name, so a new op is swept without touching this file) written
// in the generic form with 0..3 operands, 0..2 results and 0..2 regions, on
// five value types: each program either parses, compiles and runs, or fails
// with a status whose message names the op, and exactly the counts outside
// the op's line of ops.inc are refused when parsed. Never a crash: before
// that table 1,797 of these 32,220 programs died in lowering (SIGSEGV in
// chlo.broadcast_*, constant_like, tuple, get_tuple_element, broadcast,
// dynamic_broadcast_in_dim, dynamic_reshape, get_dimension_size, reduce,
// reduce_scatter, dynamic_slice, dynamic_update_slice) and 123 failed with a
// message not naming the op. Run it under --config=asan as well.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <string>
#include <vector>

#include "api/hlx.h"
#include "graph/ir/ir.h"

namespace {

constexpr int kMaxOperands = 3, kMaxResults = 2, kMaxRegions = 2;
// The type of every operand and result: the op's own, a wrong element type,
// a scalar, and the non-tensor kinds.
const char* const kTypes[] = {"tensor<2xf32>", "tensor<2xi32>", "tensor<i1>",
                              "tuple<tensor<2xf32>>", "!stablehlo.token"};

std::string Join(int n, const std::string& item) {
  std::string s;
  for (int i = 0; i < n; i++) s += (i ? ", " : "") + item;
  return s;
}

// A region taking two f32 scalars and returning their sum: a reduction
// body, a comparator's shape, a branch with arguments.
const char kRegion[] =
    "{\n  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
    "    %s = \"stablehlo.add\"(%x, %y) : (tensor<f32>, tensor<f32>) -> "
    "tensor<f32>\n"
    "    \"stablehlo.return\"(%s) : (tensor<f32>) -> ()\n  }";

// `op` with the first `nin` of @main's three arguments, `nout` results (all
// returned, so none is dropped as dead) and `nreg` kRegions, every value of
// type `t`.
std::string Program(const std::string& t, const std::string& op, int nin,
                    int nout, int nreg) {
  static const char* const kArgs[] = {"%a", "%b", "%c"};
  std::string operands, results;
  for (int i = 0; i < nin; i++)
    operands += std::string(i ? ", " : "") + kArgs[i];
  for (int i = 0; i < nout; i++)
    results += (i ? ", " : "") +
               (nout > 1 ? "%r#" + std::to_string(i) : std::string("%r"));
  std::string s = "func.func @main(%a: " + t + ", %b: " + t + ", %c: " + t +
                  ") -> (" + Join(nout, t) + ") {\n  ";
  if (nout == 1) s += "%r = ";
  if (nout > 1) s += "%r:" + std::to_string(nout) + " = ";
  s += "\"" + op + "\"(" + operands + ")";
  if (nreg) s += " (" + Join(nreg, kRegion) + ")";
  s += " : (" + Join(nin, t) + ") -> (" + Join(nout, t) + ")\n";
  s += "  \"func.return\"(" + results + ") : (" + Join(nout, t) + ") -> ()\n}\n";
  return s;
}

// "" when the program ran, else the first error's message.
std::string ParseCompileRun(const std::string& text) {
  hlx_program_t* p = nullptr;
  hlx_executable_t* e = nullptr;
  std::vector<hlx_buffer_t*> in, out;
  hlx_status_t s =
      hlx_program_parse(text.data(), text.size(), "sweep.mlir", 1, &p);
  if (!s) {
    char* printed = nullptr;
    size_t len = 0;
    s = hlx_program_print(p, &printed, &len);
    free(printed);
  }
  hlx_compile_options_t o;
  hlx_compile_options_init(&o);
  o.num_threads = 1;
  if (!s) s = hlx_executable_create(p, &o, &e);
  // Zero-filled inputs (tokens and tuple elements included).
  for (int32_t i = 0; !s && i < hlx_executable_num_params(e); i++) {
    hlx_tensor_desc_t d;
    hlx_buffer_t* b = nullptr;
    s = hlx_executable_param_desc(e, i, &d);
    const std::vector<uint8_t> zeros(64, 0);  // the largest kTypes value
    if (!s) s = hlx_buffer_create(&d, zeros.data(), &b);
    in.push_back(b);
  }
  if (!s) {
    out.assign((size_t)hlx_executable_num_results(e), nullptr);
    s = hlx_executable_run(e, in.data(), (int32_t)in.size(), out.data(),
                           (int32_t)out.size());
  }
  std::string msg = s ? hlx_status_get_message(s) : "";
  if (s && msg.empty()) msg = "(status without a message)";
  hlx_status_release(s);
  for (hlx_buffer_t* b : in) hlx_buffer_destroy(b);
  for (hlx_buffer_t* b : out) hlx_buffer_destroy(b);
  hlx_executable_destroy(e);
  hlx_program_destroy(p);
  return msg;
}

bool InRange(int n, int min, int max) {
  return n >= min && (max < 0 || n <= max);
}

// Every count of operands, results and regions of op `code` on values of
// `type`; adds to *programs and *ran. Counts outside the op's line of
// graph/ir/ops.inc are refused when parsed ("<op> expects ..."); the others
// pass that check and run or fail on a rule of the op.
void SweepOp(hlx_opcode_t code, const std::string& type, int* programs,
             int* ran) {
  const std::string op = hlx_opcode_name(code);
  const hlx_op_arity_t a = hlx_opcode_arity(code);
  for (int nin = 0; nin <= kMaxOperands; nin++)
    for (int nout = 0; nout <= kMaxResults; nout++)
      for (int nreg = 0; nreg <= kMaxRegions; nreg++) {
        std::string text = Program(type, op, nin, nout, nreg);
        std::string msg = ParseCompileRun(text);
        bool fits = InRange(nin, a.min_operands, a.max_operands) &&
                    InRange(nout, a.min_results, a.max_results) &&
                    InRange(nreg, a.min_regions, a.max_regions);
        bool arity_error = msg.find(op + " expects ") != std::string::npos;
        EXPECT_EQ(arity_error, !fits) << msg << "\n" << text;
        ++*programs;
        if (msg.empty()) {
          ++*ran;
          continue;
        }
        EXPECT_NE(msg.find(op), std::string::npos)
            << "the error does not name " << op << ": " << msg << "\n"
            << text;
      }
}

TEST(AritySweep, EveryOpEveryArityRunsOrNamesTheOp) {
  int programs = 0, ran = 0;
  for (int code = 1; code < HLX_OP_COUNT; code++) {
    hlx_opcode_t op = static_cast<hlx_opcode_t>(code);
    // On a crash the log's last line names the op being swept.
    std::fprintf(stderr, "sweeping %s\n", hlx_opcode_name(op));
    for (const char* type : kTypes) SweepOp(op, type, &programs, &ran);
  }
  std::printf("%d programs, %d ran, %d rejected\n", programs, ran,
              programs - ran);
  EXPECT_EQ(programs, (HLX_OP_COUNT - 1) * (int)std::size(kTypes) *
                          (kMaxOperands + 1) * (kMaxResults + 1) *
                          (kMaxRegions + 1));
  EXPECT_GT(ran, 0);  // the harness itself works
}

}  // namespace
