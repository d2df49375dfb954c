#!/usr/bin/env bash
# Rewrites expected_failures.txt from what `hlx check` reports now: every
# program that does not pass, with the first line of its reason. Review the
# diff: the list may only shrink unless a new data directory adds programs.
set -euo pipefail
cd "$(dirname "$0")/../.."
dir="${HLX_CONFORMANCE_DIR:-$(pwd)/../shared/conformance}"
bazel build //tools:hlx >/dev/null 2>&1
out=tests/conformance/expected_failures.txt
{
  head -4 "$out"
  echo "#   tests/conformance/update_expectations.sh"
  (cd "$dir" && "$OLDPWD/bazel-bin/tools/hlx" check interpret testdata || true) |
    grep -E '^(FAIL|ERROR) ' |
    sed -E 's/^(FAIL|ERROR) ([^:]+): (in function @[A-Za-z0-9_]+: )?/\2  \1: /' |
    cut -c1-220
} > "$out.new"
mv "$out.new" "$out"
echo "$(grep -vc '^#' "$out") programs listed in $out"
