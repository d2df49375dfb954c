"""Shared compiler flags for hlx's own code."""

# Library code is strict C11 (DESIGN.md).
HLX_COPTS = [
    "-std=c11",
    "-Wall",
    "-Wextra",
    "-Werror",
    "-D_GNU_SOURCE",
    "-fno-strict-aliasing",
]

# C++ tests and benchmarks.
HLX_TEST_COPTS = [
    "-std=c++17",
    "-Wall",
    "-Wno-sign-compare",
]
