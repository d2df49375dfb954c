#!/usr/bin/env bash
# Installs what is missing, builds the `hlx` tool and runs the example model
# shipped in examples/: prints what it computed and how fast.
set -euo pipefail
cd "$(dirname "$0")"
./scripts/setup.sh
bazel build //tools:hlx
./bazel-bin/tools/hlx run examples/mlp_classifier.mlir --iterations 50 "$@"
