#!/usr/bin/env bash
# AWDIT (PLDI 2025, github.com/lassemoldrup/AWDIT) beside isocheck on the
# histories AWDIT's own generator writes (PolySI text, which AWDIT calls
# "plume"), for BENCHMARKS.md's weak-model tables.
#   scripts/awdit-bench.sh AWDIT_CHECKOUT build            # once: builds AWDIT
#   scripts/awdit-bench.sh AWDIT_CHECKOUT run EVENTS...    # e.g. 200000 1000000
# `build` leaves out AWDIT's optional dbcop reader, whose crate is a git
# submodule a plain checkout lacks. `run` generates, for each size, AWDIT's
# causal history (`-i causal -l 10000`, its defaults otherwise) into
# $OUT (default /tmp/awdit-bench), then times both checkers with
# scripts/timed.sh for read committed (AWDIT's is Biswas and Enea's,
# isocheck's `read-committed-be`), read atomic and causal consistency.
# ISOCHECK (default target/release/isocheck) is the binary measured.
set -euo pipefail
dir=${1:?an AWDIT checkout}
what=${2:-}
here=$(dirname "$0")
awdit=$dir/target/release/awdit
case "$what" in
build)
    sed -i -e '/^dbcop = \["dep:dbcop"/d' -e '/^dbcop = { path = "tools\/dbcop"/d' "$dir/Cargo.toml"
    (cd "$dir" && cargo build --release)
    ;;
run)
    shift 2
    out=${OUT:-/tmp/awdit-bench}
    isocheck=${ISOCHECK:-target/release/isocheck}
    mkdir -p "$out"
    for events in "$@"; do
        file=$out/causal-$events.plume
        [ -f "$file" ] || "$awdit" generate -i causal -l 10000 -e "$events" "$file" >/dev/null
        for level in read-committed:read-committed-be read-atomic:read-atomic causal:causal; do
            echo "== $events events, ${level%%:*}: AWDIT, then isocheck"
            "$here/timed.sh" -n "${RUNS:-3}" -- "$awdit" check -i "${level%%:*}" "$file"
            "$here/timed.sh" -n "${RUNS:-3}" -- "$isocheck" check --input-format polysi \
                -m "${level##*:}" "$file"
        done
    done
    ;;
*)
    sed -n '2,13p' "$0" >&2
    exit 2
    ;;
esac
