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

// interpret/*.mlir: functions of the form
//   %a = stablehlo.constant dense<...> : tensor<...>   (one or two)
//   %r = stablehlo.<op> %a[, %b] : ...
//   check.expect_<kind>_const %r, dense<...> : tensor<...>
TEST(ElementwiseConformance, InterpretFunctions) {
  std::string dir = hlx_test::ConformanceDir() + "/interpret";
  DIR* d = opendir(dir.c_str());
  if (!d) GTEST_SKIP() << "no conformance data at " << dir;
  std::vector<std::string> files;
  while (dirent* ent = readdir(d)) {
    std::string f = ent->d_name;
    if (f.size() > 5 && f.substr(f.size() - 5) == ".mlir") files.push_back(f);
  }
  closedir(d);
  std::sort(files.begin(), files.end());
  int total = 0;
  std::map<std::string, int> checked;
  for (const std::string& f : files) {
    std::string src = hlx_test::ReadFile(dir + "/" + f);
    size_t pos = 0;
    while ((pos = src.find("func.func @", pos)) != std::string::npos) {
      size_t end = src.find("func.return", pos);
      if (end == std::string::npos) break;
      std::string fn_name = src.substr(pos + 11, src.find('(', pos) - pos - 11);
      std::vector<std::string> lines;
      size_t p = src.find('\n', pos) + 1;
      while (p < end) {
        size_t nl = src.find('\n', p);
        std::string l = src.substr(p, nl - p);
        l.erase(0, l.find_first_not_of(' '));
        if (l.rfind("func.return", 0) == 0) break;
        if (!l.empty()) lines.push_back(l);
        p = nl + 1;
      }
      pos = end;
      if (lines.size() < 3 || lines.size() > 4) continue;
      size_t nconst = lines.size() - 2;
      std::vector<std::string> names;
      std::vector<Tensor> inputs;
      bool ok = true;
      for (size_t i = 0; i < nconst && ok; i++) {
        const std::string& l = lines[i];
        size_t dn = l.find(" = stablehlo.constant dense<");
        size_t ty = l.rfind(" : tensor<");
        hlx_dtype_t t;
        size_t n;
        Tensor tensor;
        ok = dn != std::string::npos && ty != std::string::npos &&
             hlx_test::ParseTensorType(l.substr(ty), &t, &n) &&
             hlx_test::ParseDense(l.substr(dn + 28, ty - dn - 28), t, n,
                                  &tensor);
        if (ok) {
          names.push_back(l.substr(0, dn));
          inputs.push_back(tensor);
        }
      }
      if (!ok) continue;
      const std::string& opl = lines[nconst];
      const std::string& chk = lines[nconst + 1];
      size_t eq = opl.find(" = stablehlo.");
      if (eq == std::string::npos) continue;
      std::string result = opl.substr(0, eq);
      size_t sp = opl.find(' ', eq + 13);
      std::string op = opl.substr(eq + 13, sp - eq - 13);
      std::string args = opl.substr(sp + 1, opl.find(" :") - sp - 1);
      std::string want_args = names[0] + (nconst == 2 ? ", " + names[1] : "");
      if (args != want_args) continue;
      if (chk.rfind("check.expect_", 0) != 0) continue;
      std::string kind = chk.substr(6, chk.find("_const") - 6);
      if (chk.find(" " + result + ",") == std::string::npos) continue;
      size_t dn = chk.find("dense<");
      size_t ty = chk.rfind(" : tensor<");
      hlx_dtype_t t;
      size_t n;
      Tensor want;
      if (dn == std::string::npos || ty == std::string::npos ||
          !hlx_test::ParseTensorType(chk.substr(ty), &t, &n) ||
          !hlx_test::ParseDense(chk.substr(dn + 6, ty - dn - 6), t, n, &want))
        continue;
      Tensor got = want;
      std::fill(got.bytes.begin(), got.bytes.end(), 0);
      hlx_dtype_t in = inputs[0].dtype, out = HLX_DTYPE_INVALID;
      hlx_unary_op_t uop;
      hlx_binary_op_t bop;
      std::string where = f + ":" + fn_name;
      if (nconst == 1 && op == "convert") {
        ASSERT_TRUE(hlx_ref_convert(in, inputs[0].bytes.data(), t,
                                    got.bytes.data(), n))
            << where;
      } else if (nconst == 1 && LookupUnary(op, &uop)) {
        hlx_unary_fn fn = hlx_ref_unary_kernel(uop, in, &out);
        ASSERT_NE(fn, nullptr) << where;
        ASSERT_EQ(out, t) << where;
        fn(inputs[0].bytes.data(), got.bytes.data(), n);
      } else if (nconst == 2 && LookupBinary(op, &bop) &&
                 inputs[1].n == inputs[0].n) {
        hlx_binary_fn fn = hlx_ref_binary_kernel(bop, in, &out);
        if (!fn && op == "remainder" && hlx_dtype_is_complex(in)) continue;
        ASSERT_NE(fn, nullptr) << where;
        ASSERT_EQ(out, t) << where;
        fn(inputs[0].bytes.data(), inputs[1].bytes.data(), got.bytes.data(),
           n);
      } else {
        continue;
      }
      std::string why;
      EXPECT_TRUE(Matches(kind, got, want, &why))
          << where << " (" << op << ", " << kind << "): " << why;
      checked[op]++;
      total++;
    }
  }
  std::string summary;
  for (auto& kv : checked)
    summary += kv.first + ":" + std::to_string(kv.second) + " ";
  printf("checked %d functions: %s\n", total, summary.c_str());
  EXPECT_GE(total, 100);
}

}  // namespace
