// The MLIR bytecode reader on JAX's own exported programs
// (../shared/jax_exports: each NAME.mlirbc beside its NAME.mlir text, as
// jax.export serialized them): every .mlirbc parses, round-trips through
// the printer, and is the same IR as its text (locations aside).
#include <gtest/gtest.h>

#include <dirent.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "graph/stablehlo/bytecode.h"
#include "tests/data_paths.h"
#include "tests/graph/test_util.h"

namespace {

std::string ExportsDir() { return hlx_test::SharedDir() + "/jax_exports"; }

std::vector<std::string> BytecodeFiles() {
  std::vector<std::string> out;
  DIR* d = opendir(ExportsDir().c_str());
  if (!d) return out;
  while (struct dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n.size() > 7 && n.compare(n.size() - 7, 7, ".mlirbc") == 0)
      out.push_back(n.substr(0, n.size() - 7));
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

bool ParseBytecode(const std::string& data, const std::string& name,
                   hlx_test::ModulePtr* out, std::string* err) {
  hlx_module_t* m = nullptr;
  hlx_status_t s = hlx_parse_bytecode(data.data(), data.size(), name.c_str(), &m);
  if (s) {
    *err = hlx_status_message(s);
    hlx_status_free(s);
    return false;
  }
  out->m = m;
  return true;
}

TEST(BytecodeJaxExports, ParseRoundTripAndMatchText) {
  std::vector<std::string> names = BytecodeFiles();
  ASSERT_FALSE(names.empty()) << "no .mlirbc files in " << ExportsDir();
  int matched = 0;
  for (const std::string& n : names) {
    std::string bc, text, err;
    ASSERT_TRUE(hlx_test::ReadFile(ExportsDir() + "/" + n + ".mlirbc", &bc));
    hlx_test::ModulePtr from_bc;
    ASSERT_TRUE(ParseBytecode(bc, n + ".mlirbc", &from_bc, &err)) << err;
    EXPECT_EQ(hlx_test::RoundTrip(from_bc.get()), "") << n;
    ASSERT_TRUE(hlx_test::ReadFile(ExportsDir() + "/" + n + ".mlir", &text)) << n;
    hlx_test::ModulePtr from_text;
    if (!hlx_test::Parse(text, &from_text, &err, (n + ".mlir").c_str())) {
      ADD_FAILURE() << n << ".mlir does not parse: " << err;
      continue;
    }
    char why[512] = "";
    if (hlx_module_equal(from_text.get(), from_bc.get(), why, sizeof why))
      matched++;
    else
      ADD_FAILURE() << n << ": " << why << "\n--- bytecode printed:\n"
                    << hlx_test::Print(from_bc.get());
  }
  std::printf("%zu bytecode files, %d equal to their text\n", names.size(), matched);
}

}  // namespace
