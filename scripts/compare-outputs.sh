#!/usr/bin/env bash
# Runs two isocheck binaries over every history under the given roots and
# reports every input, model set and format whose output (stdout, stderr and
# exit status) differs: a refactoring must leave all of them byte-identical.
#
#   scripts/compare-outputs.sh BASE_BIN NEW_BIN [ROOT...]
#
# ROOTs default to ../shared/corpus and fixtures. Inputs are the files ending
# in .edn, .bincode, .txt or .json, and each directory holding Cobra .log
# files. Each input is checked under each configuration of CONFIGS (option
# sets separated by `;`, `default` for none; the default list below), each
# with --format human, edn and json. JOBS (default 2) runs in parallel;
# RUN_TIMEOUT (default 120 s) bounds one run (a run that times out under
# either binary is listed as such, not compared).
set -u
base=$(realpath "$1")
new=$(realpath "$2")
shift 2
roots=("$@")
[ ${#roots[@]} -eq 0 ] && roots=(../shared/corpus fixtures)
jobs=${JOBS:-2}
export RUN_TIMEOUT=${RUN_TIMEOUT:-120}
# Progress lines come from the clock, not the history: a slow run under load
# would differ from a quick one.
export ISOCHECK_PROGRESS=off
out=$(mktemp -d /tmp/compare-outputs.XXXXXX)
export base new out

inputs() {
    find "${roots[@]}" -type f \( -name '*.edn' -o -name '*.bincode' -o -name '*.txt' -o -name '*.json' \) \
        ! -name 'results.edn' ! -name 'test.edn' | sort
    find "${roots[@]}" -type f -name '*.log' -printf '%h\n' | sort -u
}

# One (input, configuration, format) with both binaries; prints one line.
compare() {
    local input=$1 config=$2 format=$3
    local args=(check --format "$format")
    # shellcheck disable=SC2206 # the configuration is split into options
    [ "$config" != default ] && args+=($config)
    local a b
    a=$(timeout "$RUN_TIMEOUT" "$base" "${args[@]}" "$input" 2>&1; echo "status $?")
    b=$(timeout "$RUN_TIMEOUT" "$new" "${args[@]}" "$input" 2>&1; echo "status $?")
    if [[ "$a" == *"status 124" || "$b" == *"status 124" ]]; then
        echo "timeout $format [$config] $input"
    elif [ "$a" == "$b" ]; then
        echo "same $format [$config] $input"
    else
        echo "DIFF $format [$config] $input"
    fi
}
export -f compare

IFS=';' read -r -a configs <<<"${CONFIGS:-default;-m serializable;-m snapshot-isolation;\
-m read-committed;-m strong-session-snapshot-isolation;-m repeatable-read -a garbage-read;\
-m serializable --sequential-keys --linearizable-keys --wfr-keys}"
inputs | while read -r input; do
    for m in "${configs[@]}"; do
        for f in human edn json; do
            printf '%s\0%s\0%s\0' "$input" "$m" "$f"
        done
    done
done | xargs -0 -n 3 -P "$jobs" bash -c 'compare "$0" "$1" "$2"' >"$out/results"

sort "$out/results" -o "$out/results"
echo "inputs: $(inputs | wc -l)"
echo "runs compared: $(grep -c '^same\|^DIFF' "$out/results")"
echo "identical: $(grep -c '^same' "$out/results")"
echo "differing: $(grep -c '^DIFF' "$out/results")"
echo "timed out: $(grep -c '^timeout' "$out/results")"
grep '^DIFF\|^timeout' "$out/results"
echo "full list: $out/results"
! grep -q '^DIFF' "$out/results"
