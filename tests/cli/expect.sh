# Shared by the tests/cli scripts (sourced): a scratch directory $tmp
# removed on exit, and expect(), which counts failures in $fails.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
expect() { # description, command output, grep pattern
  if ! grep -qE -- "$3" <<<"$2"; then
    echo "FAILED: $1: output lacks /$3/:"; echo "$2" | head -20
    fails=$((fails + 1))
  fi
}
