// Runs the reference elementwise kernels on every StableHLO conformance
// program (testdata/*.mlir) whose @main applies one elementwise op directly
// to the @inputs constants, and checks the result against @expected with the
// program's own check (expect_eq / expect_close = 3 ULP / expect_almost_eq).
#include <dirent.h>
#include <math.h>
#include <stdio.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/elementwise.h"
#include "tests/data_paths.h"
#include "tests/kernels/mlir_constants.h"

namespace {

using hlx_test::Tensor;

struct Program {
  std::string op;     // "sine", "lgamma", "convert", ...
  int arity = 0;      // 1 or 2
  std::string check;  // expect_eq, expect_close, expect_almost_eq
  std::vector<Tensor> inputs;
  Tensor expected;
};

// Recognises: %0 = call @inputs / %1 = call @expected /
// %2 = <dialect>.<op> %0 (or %0#0, %0#1) / check(%2, %1).
bool ParseProgram(const std::string& src, Program* p) {
  size_t m = src.find("func.func public @main");
  if (m == std::string::npos) return false;
  size_t e = src.find("\n  }", m);
  std::string body = src.substr(m, e - m);
  std::vector<std::string> lines;
  size_t pos = 0;
  while (pos < body.size()) {
    size_t nl = body.find('\n', pos);
    if (nl == std::string::npos) nl = body.size();
    std::string l = body.substr(pos, nl - pos);
    l.erase(0, l.find_first_not_of(' '));
    if (!l.empty()) lines.push_back(l);
    pos = nl + 1;
  }
  // main header, inputs, expected, op, check, return
  if (lines.size() != 6) return false;
  bool two = lines[1].rfind("%0:2 = call @inputs", 0) == 0;
  if (!two && lines[1].rfind("%0 = call @inputs", 0) != 0) return false;
  if (lines[2].rfind("%1 = call @expected", 0) != 0) return false;
  const std::string& op = lines[3];
  if (op.rfind("%2 = ", 0) != 0) return false;
  size_t dot = op.find('.');
  size_t sp = op.find(' ', dot);
  if (dot == std::string::npos || sp == std::string::npos) return false;
  p->op = op.substr(dot + 1, sp - dot - 1);
  std::string args = op.substr(sp + 1, op.find(" :") - sp - 1);
  if (two ? args != "%0#0, %0#1" : args != "%0") return false;
  p->arity = two ? 2 : 1;
  size_t c = lines[4].find("@check.");
  if (c == std::string::npos || lines[4].find("(%2, %1)") == std::string::npos)
    return false;
  p->check = lines[4].substr(c + 7, lines[4].find('(', c) - c - 7);
  p->inputs = hlx_test::FunctionConstants(src, "inputs");
  std::vector<Tensor> ex = hlx_test::FunctionConstants(src, "expected");
  if ((int)p->inputs.size() != p->arity || ex.size() != 1) return false;
  p->expected = ex[0];
  return true;
}

double ComponentValue(hlx_dtype_t t, const uint8_t* p) {
  double d;
  hlx_ref_convert(t, p, HLX_DTYPE_F64, &d, 1);
  return d;
}

// Compares one real component (float dtype `t`).
bool FloatMatches(const std::string& check, hlx_dtype_t t, const uint8_t* got,
                  const uint8_t* want, std::string* why) {
  double g = ComponentValue(t, got), w = ComponentValue(t, want);
  if (isnan(g) && isnan(w)) return true;
  uint64_t gb = 0, wb = 0;
  memcpy(&gb, got, hlx_dtype_size(t));
  memcpy(&wb, want, hlx_dtype_size(t));
  char buf[160];
  snprintf(buf, sizeof buf, "got %.17g want %.17g", g, w);
  *why = buf;
  if (check == "expect_eq") return gb == wb || g == w;
  if (check == "expect_close") {
    if (!isfinite(g) || !isfinite(w)) return gb == wb;
    return hlx_test::UlpDistance(hlx_dtype_bits(t), gb, wb) <= 3;
  }
  // expect_almost_eq
  if (!isfinite(g) || !isfinite(w)) return g == w;
  return fabs(g - w) <= 1e-3 * std::max(1.0, fabs(w));
}

bool Matches(const std::string& check, const Tensor& got, const Tensor& want,
             std::string* why) {
  hlx_dtype_t t = want.dtype;
  size_t es = hlx_dtype_size(t);
  for (size_t i = 0; i < want.n; i++) {
    const uint8_t* g = &got.bytes[i * es];
    const uint8_t* w = &want.bytes[i * es];
    bool ok;
    if (hlx_dtype_is_complex(t)) {
      hlx_dtype_t c = hlx_dtype_complex_part(t);
      size_t cs = es / 2;
      ok = FloatMatches(check, c, g, w, why) &&
           FloatMatches(check, c, g + cs, w + cs, why);
    } else if (hlx_dtype_is_float(t)) {
      ok = FloatMatches(check, t, g, w, why);
    } else {
      ok = memcmp(g, w, es) == 0;
      *why = "integer mismatch";
    }
    if (!ok) {
      *why = "element " + std::to_string(i) + ": " + *why;
      return false;
    }
  }
  return true;
}

bool LookupUnary(const std::string& name, hlx_unary_op_t* op) {
  for (int i = 0; i < HLX_UNARY_COUNT; i++)
    if (name == hlx_unary_op_name((hlx_unary_op_t)i)) {
      *op = (hlx_unary_op_t)i;
      return true;
    }
  return false;
}
bool LookupBinary(const std::string& name, hlx_binary_op_t* op) {
  for (int i = 0; i < HLX_BINARY_COUNT; i++)
    if (name == hlx_binary_op_name((hlx_binary_op_t)i)) {
      *op = (hlx_binary_op_t)i;
      return true;
    }
  return false;
}

TEST(ElementwiseConformance, SingleOpPrograms) {
  std::string dir = hlx_test::ConformanceDir() + "/testdata";
  DIR* d = opendir(dir.c_str());
  if (!d) GTEST_SKIP() << "no conformance data at " << dir;
  std::vector<std::string> files;
  while (dirent* ent = readdir(d)) {
    std::string f = ent->d_name;
    if (f.size() > 5 && f.substr(f.size() - 5) == ".mlir") files.push_back(f);
  }
  closedir(d);
  std::sort(files.begin(), files.end());
  std::map<std::string, int> checked;
  int total = 0;
  for (const std::string& f : files) {
    std::string src = hlx_test::ReadFile(dir + "/" + f);
    if (src.find("dense_resource") != std::string::npos) continue;
    Program p;
    if (!ParseProgram(src, &p)) continue;
    hlx_dtype_t in = p.inputs[0].dtype;
    Tensor got;
    got.dtype = p.expected.dtype;
    got.n = p.expected.n;
    got.bytes.assign(p.expected.bytes.size(), 0);
    hlx_unary_op_t uop;
    hlx_binary_op_t bop;
    hlx_dtype_t out = HLX_DTYPE_INVALID;
    if (p.arity == 1 && p.op == "convert") {
      ASSERT_TRUE(hlx_ref_convert(in, p.inputs[0].bytes.data(), got.dtype,
                                  got.bytes.data(), got.n))
          << f;
    } else if (p.arity == 1 && LookupUnary(p.op, &uop)) {
      hlx_unary_fn fn = hlx_ref_unary_kernel(uop, in, &out);
      ASSERT_NE(fn, nullptr) << f << ": no kernel for " << p.op;
      ASSERT_EQ(out, got.dtype) << f;
      fn(p.inputs[0].bytes.data(), got.bytes.data(), got.n);
    } else if (p.arity == 2 && LookupBinary(p.op, &bop) &&
               p.inputs[1].n == p.inputs[0].n) {
      hlx_binary_fn fn = hlx_ref_binary_kernel(bop, in, &out);
      ASSERT_NE(fn, nullptr) << f << ": no kernel for " << p.op;
      ASSERT_EQ(out, got.dtype) << f;
      fn(p.inputs[0].bytes.data(), p.inputs[1].bytes.data(), got.bytes.data(),
         got.n);
    } else {
      continue;
    }
    std::string why;
    EXPECT_TRUE(Matches(p.check, got, p.expected, &why))
        << f << " (" << p.op << ", " << p.check << "): " << why;
    checked[p.op]++;
    total++;
  }
  std::string summary;
  for (auto& kv : checked)
    summary += kv.first + ":" + std::to_string(kv.second) + " ";
  printf("checked %d programs: %s\n", total, summary.c_str());
  EXPECT_GE(total, 100);
}

}  // namespace
