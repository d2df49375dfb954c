#!/usr/bin/env bash
# End-to-end test of the `hlx` tool: run (random inputs, .npy inputs,
# --output-dir, --json, --iterations, replicated programs), check (PASS,
# FAIL, ERROR lines and the summary), print (round trip), XLA HLO text
# and usage errors.
set -uo pipefail
HLX="$1"
EXAMPLE="$2"
source "$(dirname "$0")/expect.sh"

out=$("$HLX" run "$EXAMPLE" --iterations 3 --output-dir "$tmp" 2>&1)
expect "run prints the result" "$out" '^result 0: f32\[8,10\] first=\['
expect "run prints the time" "$out" '^time: median [0-9.]+ ms'
[ -f "$tmp/out0.npy" ] || { echo "FAILED: no out0.npy"; fails=$((fails + 1)); }
expect "out0.npy is an npy file" "$(head -c 6 "$tmp/out0.npy" | tail -c 5)" 'NUMPY'

out=$("$HLX" run "$EXAMPLE" --json 2>&1)
expect "json output" "$out" '^\{"file": .*"results": \[\{"dtype": ?"f32"'

cat > "$tmp/twice.mlir" <<'MLIR'
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = stablehlo.add %x, %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
MLIR
# out0.npy of a first run is the input of a second: results must be doubled.
"$HLX" run "$tmp/twice.mlir" --output-dir "$tmp" >/dev/null 2>&1
cp "$tmp/out0.npy" "$tmp/in.npy"
first=$("$HLX" run "$tmp/twice.mlir" --input "$tmp/in.npy" 2>&1)
expect "npy input accepted" "$first" '^result 0: f32\[2,3\]'
out=$("$HLX" run "$tmp/twice.mlir" --input "$tmp/missing.npy" 2>&1)
expect "missing input is a clear error" "$out" 'missing.npy'

cat > "$tmp/checks.mlir" <<'MLIR'
func.func @good() {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  check.expect_eq_const %0, dense<[1, 2]> : tensor<2xi32>
  func.return
}

// -----

func.func @bad() {
  %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  check.expect_eq_const %0, dense<[1.0, 2.5]> : tensor<2xf32>
  func.return
}

// -----

func.func @broken() {
  %0 = stablehlo.bogus_syntax %%
}
MLIR
out=$("$HLX" check "$tmp/checks.mlir" 2>&1); rc=$?
expect "check PASS line" "$out" '^PASS .*checks.mlir#1$'
expect "check FAIL line with index and values" "$out" '^FAIL .*checks.mlir#2: .*element \[1\]: got 2, expected 2.5'
expect "check ERROR line with position" "$out" '^ERROR .*checks.mlir#3: .*checks.mlir:18:[0-9]+: '
expect "check summary" "$out" '^1 passed, 2 failed$'
[ "$rc" -ne 0 ] || { echo "FAILED: check exit status should be non-zero"; fails=$((fails + 1)); }

# FileCheck-verified programs: printed output is compared with the
# program's own CHECK lines (matching and mismatching).
cat > "$tmp/printed_ok.mlir" <<'MLIR'
// RUN: stablehlo-translate --interpret %s | FileCheck %s
func.func @f() -> tensor<2xi8> {
  // CHECK:      tensor<2xi8> {
  // CHECK-NEXT:   [1, -2]
  // CHECK-NEXT: }
  %0 = stablehlo.constant dense<[1, -2]> : tensor<2xi8>
  func.return %0 : tensor<2xi8>
}
MLIR
sed 's/\[1, -2\]$/[1, 2]/' "$tmp/printed_ok.mlir" > "$tmp/printed_bad.mlir"
out=$("$HLX" check "$tmp/printed_ok.mlir" "$tmp/printed_bad.mlir" 2>&1)
expect "FileCheck match passes" "$out" '^PASS .*printed_ok.mlir$'
expect "FileCheck mismatch fails" "$out" "^FAIL .*printed_bad.mlir: CHECK-NEXT .*'\\[1, 2\\]'"

out=$("$HLX" print "$tmp/twice.mlir" 2>&1)
expect "print prints generic form" "$out" '"stablehlo.add"'
echo "$out" > "$tmp/printed.mlir"
out=$("$HLX" run "$tmp/printed.mlir" 2>&1)
expect "printed program runs" "$out" '^result 0: f32\[2,3\]'

# --profile: a valid Chrome trace with one complete event per task of the
# last run; --stats: op kinds with times and shares, the task count per run
# (which the trace must match) and the peak arena against the sum.
out=$("$HLX" run "$EXAMPLE" --iterations 2 --threads 2 --stats \
      --profile "$tmp/trace.json" 2>&1)
expect "stats header" "$out" '^op kind +ms/run +% +count$'
expect "stats rows" "$out" '^stablehlo\.[a-z_]+ +[0-9.]+ +[0-9.]+% +[0-9]+$'
expect "stats memory" "$out" '^memory: peak arena [0-9]+ bytes .* largest live set [0-9]+ bytes .* sum of intermediates [0-9]+ bytes'
expect "stats threads" "$out" '^threads: 2 threads, .*NUMA node'
tasks=$(sed -n 's/^total (tasks) .* \([0-9][0-9]*\)$/\1/p' <<<"$out")
events=$(/usr/bin/python3 - "$tmp/trace.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
for e in ev:
    assert e["ph"] == "X" and e["name"] and e["dur"] >= 0 and e["ts"] >= 0, e
    assert isinstance(e["tid"], int) and e["tid"] > 0, e
assert len({e["args"]["task"] for e in ev}) == len(ev), "a task twice"
print(len(ev))
PY
)
[ -n "$tasks" ] && [ "$events" = "$tasks" ] || {
  echo "FAILED: trace has '$events' events, stats count '$tasks' tasks"
  fails=$((fails + 1)); }
out=$("$HLX" run "$EXAMPLE" --profile /nonexistent/dir/t.json 2>&1)
expect "unwritable trace is a clear error" "$out" 'cannot write /nonexistent'

# --cpus pins the pool (one cpu here: any machine has cpu 0 in its set
# unless a cpuset forbids it, so the check reads the allowed list first).
first=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*\([0-9]*\).*/\1/p' /proc/self/status)
out=$("$HLX" run "$EXAMPLE" --cpus "$first" --stats 2>&1)
expect "--cpus pins" "$out" "^threads: 1 threads, pinned to cpus $first "
out=$("$HLX" run "$EXAMPLE" --cpus 4095 2>&1)
expect "--cpus outside the set is a clear error" "$out" "cpu 4095 is not in this process"

# --reusable-params: same results; a bad list is a clear error.
plain=$("$HLX" run "$EXAMPLE" 2>&1 | grep '^result 0')
out=$("$HLX" run "$EXAMPLE" --reusable-params all --iterations 2 2>&1)
got=$(grep '^result 0' <<<"$out")
[ -n "$plain" ] && [ "$got" = "$plain" ] || {
  echo "FAILED: --reusable-params changed the result: '$got' vs '$plain'"
  fails=$((fails + 1)); }
out=$("$HLX" run "$EXAMPLE" --reusable-params 3-1 2>&1)
expect "--reusable-params bad list" "$out" 'expected "all" or indices/ranges of @main'

# --winograd (the conv_winograd compile option) is accepted; the example
# has no convolutions, so its result stays the same.
out=$("$HLX" run "$EXAMPLE" --winograd 2>&1)
got=$(grep '^result 0' <<<"$out")
[ "$got" = "$plain" ] || {
  echo "FAILED: --winograd changed a program without convolutions: '$got'"
  fails=$((fails + 1)); }

# --fast-compile (the fast_compile compile option): FFT plans are
# estimated, so no FFTW wisdom file is written; without it they are measured
# and the wisdom is kept in HLX_FFTW_WISDOM.
cat > "$tmp/fft.mlir" <<'MLIR'
func.func @main(%a: tensor<2x64xcomplex<f32>>) -> tensor<2x64xcomplex<f32>> {
  %0 = stablehlo.fft %a, type = FFT, length = [64] : (tensor<2x64xcomplex<f32>>) -> tensor<2x64xcomplex<f32>>
  return %0 : tensor<2x64xcomplex<f32>>
}
MLIR
out=$(HLX_FFTW_WISDOM="$tmp/wisdom" "$HLX" run "$tmp/fft.mlir" --fast-compile 2>&1)
expect "--fast-compile runs the fft" "$out" '^result 0: complex<f32>\[2,64\]'
[ ! -e "$tmp/wisdom" ] || {
  echo "FAILED: --fast-compile measured FFT plans (a wisdom file appeared)"
  fails=$((fails + 1)); }
HLX_FFTW_WISDOM="$tmp/wisdom" "$HLX" run "$tmp/fft.mlir" >/dev/null 2>&1
[ -s "$tmp/wisdom" ] || {
  echo "FAILED: a measured FFT plan left no wisdom file"
  fails=$((fails + 1)); }

# A shape-polymorphic program (a dimension variable and a `?` dim, as JAX
# exports them) runs specialised to its .npy inputs; a dimension variable
# that disagrees with the input's shape is a clear error.
cat > "$tmp/gen.mlir" <<'MLIR'
func.func @main() -> (tensor<i64>, tensor<i64>, tensor<3x4xf32>) {
  %0 = stablehlo.constant dense<3> : tensor<i64>
  %1 = stablehlo.constant dense<5> : tensor<i64>
  %2 = stablehlo.iota dim = 0 : tensor<3x4xf32>
  return %0, %1, %2 : tensor<i64>, tensor<i64>, tensor<3x4xf32>
}
MLIR
cat > "$tmp/poly.mlir" <<'MLIR'
func.func @main(%n: tensor<i64>, %x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = stablehlo.convert %n : (tensor<i64>) -> tensor<i32>
  %1 = stablehlo.reshape %0 : (tensor<i32>) -> tensor<1xi32>
  %2 = stablehlo.constant dense<4> : tensor<1xi32>
  %3 = stablehlo.concatenate %1, %2, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %4 = stablehlo.dynamic_broadcast_in_dim %x, %3, dims = [0, 1] : (tensor<?x4xf32>, tensor<2xi32>) -> tensor<?x4xf32>
  %5 = stablehlo.add %4, %4 : tensor<?x4xf32>
  return %5 : tensor<?x4xf32>
}
MLIR
mkdir -p "$tmp/gen"
"$HLX" run "$tmp/gen.mlir" --output-dir "$tmp/gen" >/dev/null 2>&1
out=$("$HLX" run "$tmp/poly.mlir" --input "$tmp/gen/out0.npy" \
      --input "$tmp/gen/out2.npy" 2>&1)
expect "a dynamic program runs on its inputs' shapes" "$out" \
  '^result 0: f32\[3,4\] first=\[0, 0, 0, 0, 2, 2, 2, 2'
out=$("$HLX" run "$tmp/poly.mlir" --input "$tmp/gen/out1.npy" \
      --input "$tmp/gen/out2.npy" 2>&1)
expect "a dimension variable that disagrees is a clear error" "$out" \
  'dynamic_broadcast_in_dim.*operand dim 0 is 3'

# A replicated JAX export runs on the module's mhlo.num_replicas (4):
# every replica prints and writes its results; the all_reduce sums the
# replicas' inputs, the permute ring moves them. --replicas overrides the
# attribute, and a count the replica groups do not fit is a compile error
# naming the op and the rule.
cat > "$tmp/pmap.mlir" <<'MLIR'
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 4 : i32} {
  func.func public @main(%x: tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>) {
    %id = stablehlo.replica_id : tensor<ui32>
    %i = stablehlo.convert %id : (tensor<ui32>) -> tensor<i32>
    %b = stablehlo.broadcast_in_dim %i, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %v = stablehlo.add %x, %b : tensor<2xi32>
    %s = "stablehlo.all_reduce"(%v) ({
    ^bb0(%a: tensor<i32>, %c: tensor<i32>):
      %t = stablehlo.add %a, %c : tensor<i32>
      stablehlo.return %t : tensor<i32>
    }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<2xi32>) -> tensor<2xi32>
    %p = "stablehlo.collective_permute"(%v) {source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>} : (tensor<2xi32>) -> tensor<2xi32>
    return %s, %p : tensor<2xi32>, tensor<2xi32>
  }
}
MLIR
cat > "$tmp/ones.mlir" <<'MLIR'
func.func @main() -> tensor<2xi32> {
  %0 = stablehlo.constant dense<[1, 10]> : tensor<2xi32>
  return %0 : tensor<2xi32>
}
MLIR
mkdir -p "$tmp/ones" "$tmp/rep"
"$HLX" run "$tmp/ones.mlir" --output-dir "$tmp/ones" >/dev/null 2>&1
out=$("$HLX" run "$tmp/pmap.mlir" --input "$tmp/ones/out0.npy" \
      --output-dir "$tmp/rep" 2>&1)
# Replica r adds r: the sum over 4 replicas is [4+6, 40+6].
for r in 0 1 2 3; do
  expect "replica $r's sum" "$out" "^replica $r result 0: i32\[2\] first=\[10, 46\]"
done
expect "replica 2 receives replica 1's values" "$out" \
  '^replica 2 result 1: i32\[2\] first=\[2, 11\]'
expect "replica 0 receives replica 3's values" "$out" \
  '^replica 0 result 1: i32\[2\] first=\[4, 13\]'
for f in replica0_out0 replica3_out0 replica3_out1; do
  [ -f "$tmp/rep/$f.npy" ] || { echo "FAILED: no $f.npy"; fails=$((fails + 1)); }
done
[ ! -e "$tmp/rep/out0.npy" ] || { echo "FAILED: out0.npy for a replicated run"; fails=$((fails + 1)); }
out=$("$HLX" run "$tmp/pmap.mlir" --input "$tmp/ones/out0.npy" --json 2>&1)
expect "json lists every replica" "$out" \
  '"replicas": 4, "partitions": 1, "processes": \[\{"replica": 0, "partition": 0, "results": \[\{"dtype":"i32"'
expect "json has replica 3" "$out" '\{"replica": 3, "partition": 0, "results"'
out=$("$HLX" run "$tmp/pmap.mlir" --replicas 2 2>&1); rc=$?
expect "--replicas overrides the module" "$out" \
  'stablehlo.all_reduce at 7:5: \(C3\) replica_groups id 2 is not below 2, the number of replicas'
[ "$rc" -eq 1 ] || { echo "FAILED: a bad replica count exits $rc"; fails=$((fails + 1)); }
out=$("$HLX" run "$tmp/pmap.mlir" --replicas 0 2>&1)
expect "--replicas range" "$out" '--replicas must be in \[1, 65536\]'
out=$("$HLX" run "$tmp/pmap.mlir" --input "$tmp/ones/out0.npy" \
      --input "$tmp/ones/out0.npy" 2>&1)
expect "inputs per process" "$out" 'give 1 \(the same for every process\) or 4'

# MLIR bytecode (a StableHLO portable artifact, as jax.export writes it):
# `module @m { func @main(%a: tensor<2xf32>) { add %a, %a } }` in bytecode
# version 6, made by tests/graph/bytecode_writer.h. print and run read it;
# other formats given as a program get one line saying what they are.
printf '%b' \
  '\115\114\357\122\015\164\145\163\164\000\000\177\023\025\017\021\017\005\003\013\013\021\142\165\151\154\164\151\156\000\166\150\154\157\000\155\141\151\156\000\000\155\000\155\157\144\165\154\145\000\146\165\156\143\137\166\061\000\141\144'\
  '\144\137\166\061\000\162\145\164\165\162\156\137\166\061\000\001\041\005\001\005\011\001\003\027\003\003\033\003\003\037\003\003\043\002\053\037\003\001\043\005\035\005\035\007\005\011\011\051\003\011\001\021\003\003\003\003\003\073\015\007'\
  '\001\003\007\003\003\013\003\003\013\003\003\013\003\003\013\001\003\013\003\003\007\003\003\023\003\003\027\004\113\005\001\120\001\001\007\004\073\003\001\005\003\120\001\003\007\004\047\003\005\013\003\005\000\005\006\001\003\003\005\001'\
  '\001\007\004\001\003\003\010\025\005\005\027\001\013\003\005\003\007\011'\
  > "$tmp/add.mlirbc"
out=$("$HLX" print "$tmp/add.mlirbc" 2>&1)
expect "print reads bytecode" "$out" '"stablehlo.add"\(%0, %0\)'
mkdir -p "$tmp/bc"
"$HLX" run "$tmp/add.mlirbc" --output-dir "$tmp/bc" >/dev/null 2>&1
out=$("$HLX" run "$tmp/add.mlirbc" --input "$tmp/bc/out0.npy" 2>&1)
expect "run reads bytecode" "$out" '^result 0: f32\[2\] first='
out=$("$HLX" run "$tmp/bc/out0.npy" 2>&1)
expect "an .npy file as the program is explained" "$out" 'a NumPy .npy array, not a program'
printf '%s\n' 'func.func @main(%a: tensor<f32>) -> tensor<f32> {' \
  '  %0 = mhlo.add %a, %a : tensor<f32>' '  return %0 : tensor<f32>' '}' > "$tmp/m.mlir"
out=$("$HLX" print "$tmp/m.mlir" 2>&1)
expect "MHLO text is explained" "$out" 'MHLO text .*hlo-legalize-to-stablehlo'
# XLA HLO text: run, print as StableHLO and as HLO, check (round trip and
# reference build), errors with file:line:col. The file name does not
# matter: HLO is detected by its content.
cat > "$tmp/scaled.txt" <<'HLO'
HloModule scaled, entry_computation_layout={(f32[2,3]{1,0})->f32[3,2]{1,0}}

%sum (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}

ENTRY %main (x: f32[2,3]) -> f32[3,2] {
  %x = f32[2,3]{1,0} parameter(0)
  %w = f32[2,3]{1,0} constant({...})
  %m = f32[2,3]{1,0} multiply(%x, %w), metadata={op_name="scale"}
  %z = f32[] constant(0)
  %r = f32[2]{0} reduce(%m, %z), dimensions={1}, to_apply=%sum
  %b = f32[3,2]{1,0} broadcast(%r), dimensions={1}
  ROOT %t = f32[3,2]{0,1} transpose(%m), dimensions={1,0}
}
HLO
out=$("$HLX" run "$tmp/scaled.txt" --fill-elided 2>&1)
expect "HLO text runs" "$out" '^result 0: f32\[3,2\] first=\['
out=$("$HLX" run "$tmp/scaled.txt" 2>&1)
expect "elided HLO constants need --fill-elided" "$out" 'fill-elided'
out=$("$HLX" print "$tmp/scaled.txt" --format=stablehlo 2>&1)
expect "HLO prints as StableHLO" "$out" '"stablehlo.reduce"'
out=$("$HLX" print "$tmp/scaled.txt" --format=hlo 2>&1)
expect "HLO prints as HLO" "$out" '^ENTRY %main \{$'
expect "elided constants print elided" "$out" 'constant\(\{\.\.\.\}\)'
echo "$out" > "$tmp/printed.hlo"
out=$("$HLX" print "$EXAMPLE" --format=hlo 2>&1)
expect "StableHLO prints as HLO" "$out" '^HloModule '
out=$("$HLX" check "$tmp/scaled.txt" "$tmp/printed.hlo" 2>&1)
expect "HLO check passes" "$out" '^2 passed, 0 failed$'
sed 's/dimensions={1,0}/dimensions={1,2}/' "$tmp/scaled.txt" > "$tmp/bad.hlo"
out=$("$HLX" check "$tmp/bad.hlo" 2>&1)
expect "an invalid HLO op is an ERROR with its position" "$out" \
  '^ERROR .*bad.hlo: .*stablehlo.transpose at 16:8: .*permutation'
sed 's/%m = f32/%m f32/' "$tmp/scaled.txt" > "$tmp/broken.hlo"
out=$("$HLX" print "$tmp/broken.hlo" 2>&1); rc=$?
expect "malformed HLO names file:line:col and the token" "$out" \
  "broken.hlo:12:6: expected '=' after the instruction name, got 'f32'"
[ "$rc" -eq 1 ] || { echo "FAILED: malformed HLO exit status $rc"; fails=$((fails + 1)); }

out=$("$HLX" frobnicate 2>&1); rc=$?
expect "unknown command" "$out" "unknown command"
[ "$rc" -eq 2 ] || { echo "FAILED: usage error exit status $rc"; fails=$((fails + 1)); }

echo "cli_test: $fails failures"
[ "$fails" -eq 0 ]
