#!/usr/bin/env bash
# hlx run / hlx check --custom-call-lib: a shared library of host
# functions (host_functions_lib.c) serves a JAX-style FFI custom call on
# column-major matrices; loading errors are clear messages.
set -uo pipefail
HLX="$PWD/$1"
LIB="$PWD/$2"
NO_ENTRY="$PWD/$3"
source "$(dirname "$0")/expect.sh"

call() { # the custom_call on %a with the given backend_config
  echo "stablehlo.custom_call @cli.scale(%a) {api_version = 4 : i32," \
    "mhlo.backend_config = {$1}," \
    "operand_layouts = [dense<[0, 1]> : tensor<2xindex>]," \
    "result_layouts = [dense<[0, 1]> : tensor<2xindex>]}" \
    ": (tensor<2x3xf32>) -> tensor<2x3xf32>"
}
cat > "$tmp/scale.mlir" <<MLIR
func.func @main(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = $(call "alpha = 2.0 : f32, shift = 100 : i64")
  return %0 : tensor<2x3xf32>
}
MLIR
cat > "$tmp/input.mlir" <<'MLIR'
func.func @main() -> tensor<2x3xf32> {
  %0 = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
MLIR
"$HLX" run "$tmp/input.mlir" --output-dir "$tmp" >/dev/null 2>&1
out=$("$HLX" run "$tmp/scale.mlir" --input "$tmp/out0.npy" \
      --custom-call-lib "$LIB" 2>&1)
expect "run serves the call from the library" "$out" \
  '^result 0: f32\[2,3\] first=\[2, 4, 6, 108, 110, 112\]'

# A relative path names a file in the current directory.
cp "$LIB" "$tmp/libscale.so"
out=$(cd "$tmp" && "$HLX" run scale.mlir --input out0.npy \
      --custom-call-lib libscale.so --custom-call-lib "$NO_ENTRY" 2>&1)
expect "the first library loads, the second has no entry point" "$out" \
  "--custom-call-lib .*no_entry_point_lib.so: the library does not export hlx_register_host_functions"

cat > "$tmp/check.mlir" <<MLIR
func.func @main() {
  %a = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %0 = $(call "alpha = -1.0 : f32, shift = 10 : i64")
  check.expect_eq_const %0, dense<[[-1.0, -2.0, -3.0], [6.0, 5.0, 4.0]]> : tensor<2x3xf32>
  func.return
}
MLIR
out=$("$HLX" check "$tmp/check.mlir" --custom-call-lib "$LIB" 2>&1)
expect "check serves the call" "$out" '^PASS .*check.mlir$'
expect "check summary" "$out" '^1 passed, 0 failed$'
out=$("$HLX" check "$tmp/check.mlir" 2>&1)
expect "without the library the target is unknown" "$out" \
  "^ERROR .*unknown custom_call target 'cli.scale'"

# Errors: a missing file, a file that is no library, a missing attribute.
out=$("$HLX" run "$tmp/scale.mlir" --custom-call-lib "$tmp/missing.so" 2>&1)
expect "missing library" "$out" \
  '^hlx run: --custom-call-lib .*missing.so: cannot load it: '
out=$("$HLX" check "$tmp/check.mlir" --custom-call-lib "$tmp/check.mlir" 2>&1)
expect "not a library" "$out" \
  '^hlx check: --custom-call-lib .*check.mlir: cannot load it: '
sed -i 's/, shift = 100 : i64//' "$tmp/scale.mlir"
out=$("$HLX" run "$tmp/scale.mlir" --custom-call-lib "$LIB" 2>&1)
expect "missing attribute names the target" "$out" \
  "cli.scale: mhlo.backend_config has no attribute 'shift' \(it has: alpha\)"

echo "custom_call_lib_test: $fails failures"
[ "$fails" -eq 0 ]
