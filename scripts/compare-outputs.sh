#!/usr/bin/env bash
# Compares what two isocheck binaries say about the same histories: for
# every history under the given roots (default: ../shared/corpus and
# fixtures/), `isocheck check` in each output format (human, edn, json),
# with stdout, stderr and the exit status compared byte for byte. The proof
# that a refactoring changed no behaviour:
#
#   scripts/compare-outputs.sh BEFORE_BIN AFTER_BIN [ROOT...]
#
# A history is an `.edn` file other than a store's `results.edn`/`test.edn`,
# a PolySI `.txt`, a dbcop `.bincode`, or a Cobra directory of `T*.log`;
# malformed ones are compared too (their diagnostics and status 3).
# MODELS="serializable snapshot-isolation" adds a pass per model set
# (`-m`) after the default one. Prints one line per difference and a
# summary; exits 1 when anything differs.
set -euo pipefail

if [ $# -lt 2 ]; then
    echo "usage: $0 BEFORE_BIN AFTER_BIN [ROOT...]" >&2
    exit 3
fi
before=$1
after=$2
shift 2
here=$(cd "$(dirname "$0")/.." && pwd)
roots=("$@")
if [ ${#roots[@]} -eq 0 ]; then
    roots=("$here/fixtures")
    if [ -d "$here/../shared/corpus" ]; then
        roots=("$here/../shared/corpus" "${roots[@]}")
    fi
fi

histories() {
    find "${roots[@]}" \( -name .git -prune \) -o -type f \
        \( \( -name '*.edn' ! -name results.edn ! -name test.edn \) \
        -o -name '*.txt' -o -name '*.bincode' \) -print
    find "${roots[@]}" -type f -name 'T*.log' -printf '%h\n' | sort -u
}

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# Runs one binary on one history; its stdout, stderr and status in files
# named by $2.
run() {
    local bin=$1 out=$2
    shift 2
    set +e
    "$bin" check "$@" >"$out.stdout" 2>"$out.stderr"
    echo $? >"$out.status"
    set -e
}

mapfile -t files < <(histories | sort)
passes=("")
for m in ${MODELS:-}; do
    passes+=("$m")
done
checks=0
differ=0
for pass in "${passes[@]}"; do
    model_args=()
    [ -n "$pass" ] && model_args=(--consistency-models "$pass")
    for f in "${files[@]}"; do
        for format in human edn json; do
            run "$before" "$scratch/before" --format "$format" "${model_args[@]}" "$f"
            run "$after" "$scratch/after" --format "$format" "${model_args[@]}" "$f"
            checks=$((checks + 1))
            for stream in stdout stderr status; do
                if ! cmp -s "$scratch/before.$stream" "$scratch/after.$stream"; then
                    differ=$((differ + 1))
                    echo "DIFFERS: ${pass:-default} $format $stream $f"
                fi
            done
        done
    done
done
echo "${#files[@]} histories, ${#passes[@]} model set(s), $checks checks (each: stdout, stderr, exit status), $differ differences"
[ "$differ" -eq 0 ]
