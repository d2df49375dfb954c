#!/usr/bin/env bash
# Installs every Debian package hlx's build, tests and benchmarks need.
# Safe to run again: it installs only what is missing, and runs
# `apt-get update` only when something is.
set -euo pipefail

PACKAGES=(
  build-essential      # gcc, g++, make
  clang                # libFuzzer target
  bazel-bootstrap      # Bazel 4.2.3
  bazel-rules-java     # /usr/share/bazel/rules/java (WORKSPACE points here)
  libdnnl-dev          # oneDNN: dot, convolution
  libxsmm-dev          # libxsmm: small matmuls
  libblas-dev          # libxsmm's BLAS fallback symbols
  libfftw3-dev         # FFTW3: fft
  liblapack-dev        # LAPACK: JAX's lapack_* custom-call targets
  libhwloc-dev         # hwloc: topology, thread pinning
  libgtest-dev         # GoogleTest
  libbenchmark-dev     # Google Benchmark
)
# The NEON kernels are cross-compiled and run under qemu-user on x86-64
# hosts (tests/kernels:neon_cross_test).
if [ "$(uname -m)" = x86_64 ]; then
  PACKAGES+=(
    g++-aarch64-linux-gnu  # AArch64 cross compiler + libc
    qemu-user              # runs the AArch64 test binaries
  )
fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages are installed"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
