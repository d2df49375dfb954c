#!/usr/bin/env bash
# Fails when the ops_rules_test binary (graph/ops + the IR + the parser)
# needs a kernel library: shared-library dependencies or symbols of
# oneDNN, FFTW, libxsmm, LAPACK or hlx's kernels.
set -uo pipefail
bin="$1"
libs=$(ldd "$bin" 2>&1)
if echo "$libs" | grep -Eq 'dnnl|fftw|xsmm|lapack|blas|gomp'; then
  echo "FAILED: graph/ops links a kernel library:"; echo "$libs"; exit 1
fi
syms=$(nm -C "$bin" 2>&1 | grep -E ' [TtDdBb] (dnnl_|fftw|libxsmm|hlx_ref_|hlx_dnnl|hlx_plan_)' | head -5)
if [ -n "$syms" ]; then
  echo "FAILED: graph/ops pulls in kernel or plan code:"; echo "$syms"; exit 1
fi
echo "PASS: graph/ops links alone"
