#!/usr/bin/env bash
# The NEON kernels (kernels/arm/neon/) against the reference kernels on
# AArch64: cross-compiles the kernel layer (reference, dispatch, NEON
# variants, base) and the same SIMD test files the x86 build runs
# (tests/kernels/simd_*_test.cc, which expand every variant of the
# kernels/*.inc lists) with Debian's aarch64-linux-gnu toolchain, links them
# with GoogleTest built from /usr/src/googletest, and runs them under
# qemu-user. scripts/setup.sh installs the toolchain and qemu on x86-64;
# a missing tool is a failure, not a skip.
#   args: the source files (kernels, base, tests, GoogleTest are found via
#   their paths relative to the workspace root)
set -euo pipefail
ROOT="${TEST_SRCDIR:-$PWD}/${TEST_WORKSPACE:-hlx}"
[ -d "$ROOT/kernels" ] || ROOT="$PWD"
WORK="${TEST_TMPDIR:-$(mktemp -d)}/neon"
mkdir -p "$WORK"
CC=aarch64-linux-gnu-gcc
CXX=aarch64-linux-gnu-g++
QEMU=qemu-aarch64
GTEST=/usr/src/googletest/googletest
for tool in "$CC" "$CXX" "$QEMU"; do
  command -v "$tool" >/dev/null || {
    echo "FAILED: $tool not found (scripts/setup.sh installs g++-aarch64-linux-gnu and qemu-user)"
    exit 1
  }
done
[ -f "$GTEST/src/gtest-all.cc" ] || { echo "FAILED: $GTEST missing (libgtest-dev)"; exit 1; }

CFLAGS=(-O2 -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -fno-strict-aliasing -I"$ROOT")
CXXFLAGS=(-O2 -std=c++17 -Wall -Wno-sign-compare -I"$ROOT" -I"$GTEST/include")

# Compile jobs in parallel, two at a time (the machine's core count).
objs=()
pids=()
compile() { # compiler flags... -- src obj
  "$@" || { echo "FAILED: $*"; return 1; }
}
for src in "$ROOT"/kernels/ref/*.c "$ROOT"/kernels/cpu_features.c \
           "$ROOT"/kernels/dispatch/*.c "$ROOT"/kernels/arm/neon/*.c \
           "$ROOT"/base/*.c; do
  obj="$WORK/$(basename "$(dirname "$src")")_$(basename "$src" .c).o"
  objs+=("$obj")
  compile "$CC" "${CFLAGS[@]}" -c "$src" -o "$obj" &
  pids+=($!)
  if [ ${#pids[@]} -ge 2 ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
for p in "${pids[@]}"; do wait "$p"; done
"$CXX" -O1 -std=c++17 -I"$GTEST/include" -I"$GTEST" -c "$GTEST/src/gtest-all.cc" -o "$WORK/gtest-all.o"
"$CXX" -O1 -std=c++17 -I"$GTEST/include" -c "$GTEST/src/gtest_main.cc" -o "$WORK/gtest_main.o"

# Each test must have run at least one NEON case: the variant lists really
# hold NEON entries on AArch64.
fails=0
for family in elementwise elementwise_ext reduce transpose window gather_scatter scan; do
  bin="$WORK/simd_${family}_test"
  "$CXX" "${CXXFLAGS[@]}" "$ROOT/tests/kernels/simd_${family}_test.cc" \
    "${objs[@]}" "$WORK/gtest-all.o" "$WORK/gtest_main.o" -o "$bin" -lpthread -lm
  log="$WORK/simd_${family}_test.log"
  if "$QEMU" -L /usr/aarch64-linux-gnu "$bin" >"$log" 2>&1; then
    neon_ok=$(grep -c '^\[       OK \] .*neon' "$log" || true)
    if [ "$neon_ok" -gt 0 ]; then
      echo "ok: simd_${family}_test on aarch64 ($neon_ok NEON cases passed, $(grep -c '^\[       OK \]' "$log") in all)"
    else
      echo "FAILED: simd_${family}_test ran no NEON case"; fails=$((fails + 1))
    fi
  else
    echo "FAILED: simd_${family}_test on aarch64:"; grep -E "FAILED|Failure|error" "$log" | head -30
    fails=$((fails + 1))
  fi
done
exit $fails
