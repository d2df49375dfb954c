// Expected-failure lists of the conformance-style suites: one program per
// line, `name  reason` ('#' starts a comment line).
#ifndef HLX_TESTS_EXPECTATIONS_H_
#define HLX_TESTS_EXPECTATIONS_H_

#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace hlx_test {

// name -> reason (leading blanks removed).
inline std::map<std::string, std::string> LoadExpectations(
    const std::string& path) {
  std::map<std::string, std::string> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    std::string name, reason;
    ss >> name;
    std::getline(ss, reason);
    size_t b = reason.find_first_not_of(' ');
    out[name] = b == std::string::npos ? "" : reason.substr(b);
  }
  return out;
}

}  // namespace hlx_test

#endif  // HLX_TESTS_EXPECTATIONS_H_
