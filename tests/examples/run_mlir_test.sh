#!/usr/bin/env bash
# Runs examples/run_mlir on examples/mlp_classifier.mlir and compares every
# printed probability with an independent pure-Python evaluation of the
# same MLP (weights decoded from the file's hex constants, inputs from the
# example's documented formula), then checks a bad path fails cleanly.
set -uo pipefail
BIN="$1"; MLIR="$2"
out=$("$BIN" "$MLIR" 2>&1) || { echo "FAILED: exit status $?: $out"; exit 1; }
OUT="${TEST_TMPDIR:-/tmp}/run_mlir.out"; printf '%s\n' "$out" >"$OUT"
python3 - "$MLIR" "$OUT" <<'PY' || exit 1
import math, re, struct, sys
text = open(sys.argv[1]).read()
consts = {}
for name, hexs, dims in re.findall(
        r'%(\w+) = stablehlo.constant dense<"0x([0-9A-F]+)"> : tensor<([0-9x]+)xf32>', text):
    raw = bytes.fromhex(hexs)
    consts[name] = (struct.unpack('<%df' % (len(raw) // 4), raw),
                    [int(d) for d in dims.split('x')])
w1, (k, h) = consts['w1']; b1 = consts['b1'][0]
w2, (_, c) = consts['w2']; b2 = consts['b2'][0]
rows = 8
x = [((37 * i + 0) % 29 - 14) / 16 for i in range(rows * k)]
want = []
for r in range(rows):
    hid = [max(0.0, sum(x[r * k + i] * w1[i * h + j] for i in range(k)) + b1[j]) for j in range(h)]
    lo = [sum(hid[i] * w2[i * c + j] for i in range(h)) + b2[j] for j in range(c)]
    m = max(lo); e = [math.exp(v - m) for v in lo]; s = sum(e)
    want += [v / s for v in e]
lines = open(sys.argv[2]).read().splitlines()
if lines[0] != 'result 0: f32[8,10]':
    sys.exit('FAILED: header %r' % lines[0])
got = [float(v) for line in lines[1:] for v in line.split()]
if len(got) != len(want):
    sys.exit('FAILED: %d values, want %d' % (len(got), len(want)))
worst = max(abs(g - w) for g, w in zip(got, want))
if worst > 2e-6:
    sys.exit('FAILED: max |hlx - python| = %g' % worst)
print('probabilities match the Python reference (max diff %.2g)' % worst)
PY
if "$BIN" /nonexistent.mlir >/dev/null 2>&1; then echo "FAILED: missing file accepted"; exit 1; fi
bad=$(mktemp); echo 'func.func @main(%x: tensor<2xf32>) -> tensor<3xf32> { return %x : tensor<2xf32> }' >"$bad"
err=$("$BIN" "$bad" 2>&1) && { echo "FAILED: bad program accepted"; exit 1; }
grep -q "^error: " <<<"$err" || { echo "FAILED: no error message: $err"; exit 1; }
echo PASS
