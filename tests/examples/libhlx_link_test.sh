#!/usr/bin/env bash
# Installs api/hlx.h (+ public headers) and libhlx.so into a fresh prefix,
# compiles the examples against that prefix ONLY with the system C compiler
# (no Bazel deps, no internal headers), runs them, links mlp_builder.c with
# the static libhlx.a too, and checks that libhlx.so exports exactly the
# functions the public headers declare.
# Args: libhlx.so libhlx.a hlx.lds mlp_classifier.mlir, then the public
# headers (*.h) and example sources (*.c, mlp_builder.c first).
set -uo pipefail
LIB="$1"; ARCHIVE="$2"; LDS="$3"; MLIR="$4"; shift 4
fails=0
fail() { echo "FAILED: $*"; fails=$((fails + 1)); }
PREFIX="${TEST_TMPDIR:-$(mktemp -d)}/prefix"
# A library built with `--config=asan` (or tsan) carries the sanitizer runtimes'
# references: programs linked against it need the same runtimes (as any
# application linking an instrumented library would).
SAN=()
# (grep reads all of nm's output: with pipefail, -q would SIGPIPE nm.)
if [ "$(nm -D "$LIB" 2>/dev/null | grep -c "__asan_init")" -gt 0 ]; then
  SAN=(-fsanitize=address,undefined)
elif [ "$(nm -D "$LIB" 2>/dev/null | grep -c "__tsan_init")" -gt 0 ]; then
  SAN=(-fsanitize=thread)  # --config=tsan
fi
mkdir -p "$PREFIX/include/api" "$PREFIX/lib" "$PREFIX/bin"
SRCS=()
for f in "$@"; do
  case "$f" in
    *.h) cp "$f" "$PREFIX/include/api/" ;;
    *.c) SRCS+=("$f") ;;
  esac
done
cp "$LIB" "$PREFIX/lib/libhlx.so"
SRC="${SRCS[0]}"

# 1. Plain C11 programs build against the installed header and library.
for src in "${SRCS[@]}"; do
  exe="$PREFIX/bin/$(basename "$src" .c)"
  if ! cc "${SAN[@]}" -std=c11 -Wall -Wextra -Werror -I"$PREFIX/include" "$src" \
       -L"$PREFIX/lib" -lhlx -o "$exe" 2>"$PREFIX/cc.log"; then
    fail "cc could not build $src against the installed prefix:"; cat "$PREFIX/cc.log"; exit 1
  fi
  # They must really use the shared library, not carry a copy.
  [ "$(nm "$exe" | grep -c " T hlx_executable_run$")" -eq 0 ] ||
    fail "$exe defines hlx_executable_run itself"
done
run() { LD_LIBRARY_PATH="$PREFIX/lib" "$PREFIX/bin/$@"; }
out=$(run mlp_builder 2>&1) || fail "mlp_builder exit status $?: $out"
grep -qxF "logits: 6.500000 -1.500000 0.500000 2.500000" <<<"$out" || fail "wrong logits: $out"
grep -qxF "probs: 0.999665 0.000335 0.119203 0.880797" <<<"$out" || fail "wrong probs: $out"
out=$(run allreduce_replicas 2>&1) || fail "allreduce_replicas exit status $?: $out"
grep -qxF "all sums correct" <<<"$out" || fail "allreduce_replicas: $out"
out=$(run axpy 2>&1) || fail "axpy exit status $?: $out"
grep -qxF "constants: 13.00 26.00 39.00 52.00" <<<"$out" || fail "axpy: $out"
out=$(run run_mlir "$MLIR" 2>&1) || fail "run_mlir exit status $?: $out"
[ "$(head -1 <<<"$out")" = "result 0: f32[8,10]" ] || fail "run_mlir: $out"

# 2. The same program against the static archive and the system libraries.
if cc "${SAN[@]}" -std=c11 -I"$PREFIX/include" "$SRC" "$ARCHIVE" -ldnnl -lxsmm -llapack -lblas \
     -lfftw3f_threads -lfftw3_threads -lfftw3f -lfftw3 -lhwloc -lgomp -lpthread -lm -lstdc++ \
     -o "$PREFIX/bin/example_static" 2>"$PREFIX/cc_static.log"; then
  out=$("$PREFIX/bin/example_static" 2>&1) || fail "static example exit status $?"
  grep -qxF "logits: 6.500000 -1.500000 0.500000 2.500000" <<<"$out" || fail "static: wrong logits: $out"
else
  fail "cc could not link $SRC with libhlx.a:"; tail -5 "$PREFIX/cc_static.log"
fi

# 3. Exported symbols: all hlx_*, and exactly the declared functions.
nm -D --defined-only "$LIB" | awk '{print $3}' | sort -u >"$PREFIX/exported"
bad=$(grep -v '^hlx_' "$PREFIX/exported")
[ -z "$bad" ] || fail "exported symbols without the hlx_ prefix: $bad"
grep -oE 'hlx_[a-z0-9_]+' "$LDS" | sort -u >"$PREFIX/declared"
missing=$(comm -23 "$PREFIX/declared" "$PREFIX/exported")
[ -z "$missing" ] || fail "declared in the public headers but not exported: $missing"
extra=$(comm -13 "$PREFIX/declared" "$PREFIX/exported")
[ -z "$extra" ] || fail "exported but not declared in the public headers: $extra"
# Internals named hlx_* stay hidden.
grep -qx "hlx_make_status" "$PREFIX/exported" && fail "internal hlx_make_status is exported"
n=$(wc -l <"$PREFIX/exported")
[ "$n" -gt 50 ] || fail "only $n symbols exported"
[ "$fails" -eq 0 ] && echo "PASS ($n exported symbols)" || exit 1
