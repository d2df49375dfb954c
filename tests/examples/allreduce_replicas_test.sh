#!/usr/bin/env bash
# Runs examples/allreduce_replicas (4 replicas, two all_reduces with
# different replica groups); the example checks every sum itself and the
# expected lines are checked here too.
set -uo pipefail
out=$("$1" 2>&1) || { echo "FAILED: exit status $?: $out"; exit 1; }
fails=0
for line in \
  "replica 0: all = 60 64 68 72 76 80  pair = 10 12 14 16 18 20" \
  "replica 3: all = 60 64 68 72 76 80  pair = 50 52 54 56 58 60" \
  "all sums correct"; do
  grep -qxF -- "$line" <<<"$out" || { echo "FAILED: no line '$line' in: $out"; fails=1; }
done
[ "$fails" -eq 0 ] && echo PASS || exit 1
