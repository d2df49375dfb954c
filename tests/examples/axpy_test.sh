#!/usr/bin/env bash
# Runs examples/axpy and checks alpha * x + y by hand: 2*[1,2,3,4] +
# [10,20,30,40], -1*[0.5,0.25,0,-1] + 1, and with constants 3*[1,2,3,4] +
# [10,20,30,40].
set -uo pipefail
out=$("$1" 2>&1) || { echo "FAILED: exit status $?: $out"; exit 1; }
want="parameters, run 1: 12.00 24.00 36.00 48.00
parameters, run 2: 0.50 0.75 1.00 2.00
constants: 13.00 26.00 39.00 52.00"
[ "$out" = "$want" ] || { echo "FAILED: got"; echo "$out"; echo "want"; echo "$want"; exit 1; }
echo PASS
