#!/usr/bin/env bash
# Installs what is missing, builds everything and runs every test
# (unit tests and the StableHLO conformance suite), then prints the
# conformance summary line.
set -uo pipefail
cd "$(dirname "$0")"
./scripts/setup.sh || exit 1

stamp=$(mktemp)
status=0
bazel test //... "$@" || status=$?

# Only a log written by this run counts (Bazel keeps the previous one).
log=bazel-testlogs/tests/conformance/conformance_test/test.log
if [ -f "$log" ] && [ "$log" -nt "$stamp" ]; then
  grep -E "^conformance " "$log" | sed 's/^/  /'
  summary=$(grep -E "^conformance: [0-9]+ passed, [0-9]+ failed" "$log" | tail -1)
  if [ -n "$summary" ]; then
    # The closing line: conformance programs passed and failed (failures
    # include those listed in tests/conformance/expected_failures.txt).
    echo "${summary#conformance: }" | sed -E 's/ \(.*//'
  fi
else
  echo "the conformance suite did not run (see the build errors above)"
fi
rm -f "$stamp"
exit $status
