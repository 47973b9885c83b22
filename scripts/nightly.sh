#!/usr/bin/env bash
# The nightly run: the brute-force and property suites at their large sizes
# (ISOCHECK_LARGE_TESTS=1; `cargo test` and CI run the small ones), the
# oracle from a fresh seed. Hours on two cores. fuzz/README.md says what
# each suite runs at each size, and how to replay a failure.
#   scripts/nightly.sh [CARGO TEST ARGUMENTS ...]
# ORACLE_SEED (default: the time now) and ORACLE_CASES, PROPTEST_CASES
# override the sizes as they do for `cargo test`.
set -euo pipefail
cd "$(dirname "$0")/.."
export ISOCHECK_LARGE_TESTS=1
export ORACLE_SEED="${ORACLE_SEED:-$(date +%s)}"
echo "nightly: ISOCHECK_LARGE_TESTS=1 ORACLE_SEED=$ORACLE_SEED" >&2
exec cargo test --no-fail-fast \
    --test oracle --test uncertain --test weak_models \
    --test gen_properties --test differential "$@"
