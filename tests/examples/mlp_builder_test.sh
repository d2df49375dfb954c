#!/usr/bin/env bash
# Runs examples/mlp_builder and checks its output against hand-computed
# values: h = relu([[4.5,4,1,-1.5],[0.5,0,1,-0.5]]), logits = h W2 + b2 =
# [[6.5,-1.5],[0.5,2.5]], probs = softmax per row = [1/(1+e^-8), e^-8/(1+e^-8)]
# and [e^-2/(1+e^-2), 1/(1+e^-2)].
set -uo pipefail
BIN="$1"
fails=0
expect() { # description, output, exact line
  if ! grep -qxF -- "$3" <<<"$2"; then
    echo "FAILED: $1: output lacks the line '$3':"; echo "$2" | head -40
    fails=$((fails + 1))
  fi
}
out=$("$BIN" 2>&1) || { echo "FAILED: exit status $?: $out"; exit 1; }
expect "logits" "$out" "logits: 6.500000 -1.500000 0.500000 2.500000"
expect "probs" "$out" "probs: 0.999665 0.000335 0.119203 0.880797"

out=$("$BIN" --print 2>&1) || { echo "FAILED: --print exit status $?"; exit 1; }
for op in stablehlo.dot_general stablehlo.broadcast_in_dim stablehlo.reduce \
          stablehlo.exponential stablehlo.divide func.return; do
  grep -qF "\"$op\"" <<<"$out" || { echo "FAILED: --print lacks $op"; fails=$((fails + 1)); }
done
expect "--print still runs" "$out" "logits: 6.500000 -1.500000 0.500000 2.500000"
[ "$fails" -eq 0 ] && echo "PASS" || exit 1
