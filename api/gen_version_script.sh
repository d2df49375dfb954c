#!/usr/bin/env bash
# Prints a GNU ld version script exporting the functions declared in the
# given public headers (every "hlx_name(" outside comments) and nothing else;
# with --dynamic-list first, the same functions as an ld --dynamic-list.
set -euo pipefail
dynamic=false
if [ "${1:-}" = "--dynamic-list" ]; then dynamic=true; shift; fi
# Strip /* */ comments, then take identifiers followed by "(" that are not
# function-pointer typedefs ("(*hlx_fn)") or types ("hlx_status_t (*fn)").
symbols() {
  sed -e ':a' -e 's@/\*[^*]*\*\+\([^/*][^*]*\*\+\)*/@@g' -e '/\/\*/{N;ba' -e '}' "$@" |
    grep -oE '(^|[^*A-Za-z0-9_])hlx_[a-z0-9_]+[[:space:]]*\(' |
    grep -oE 'hlx_[a-z0-9_]+' | grep -v '_t$' | sort -u | sed 's/.*/    &;/'
}
echo "{"
if $dynamic; then
  symbols "$@"
else
  echo "  global:"
  symbols "$@"
  echo "  local: *;"
fi
echo "};"
