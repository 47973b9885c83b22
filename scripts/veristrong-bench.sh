#!/usr/bin/env bash
# VeriStrong (VLDB 2026, github.com/CzxingcHen/VeriStrong) beside isocheck on
# VeriStrong's own benchmark histories, for serializability and snapshot
# isolation, the two levels VeriStrong checks. For BENCHMARKS.md.
#   scripts/veristrong-bench.sh DATA_DIR [HISTORY ...]
# DATA_DIR holds the artifact's history sets (its history/ directory: fig5,
# fig10, fig12, fig13-14-15-table1); HISTORY ... narrows the run to these
# histories or the ones below these directories (default: every one under
# DATA_DIR, as scripts/veristrong-histories.py lists them). Prints a
# Markdown table, one row per history and level: its transactions, how many
# writes repeat a value already written to their key, then for each checker
# the verdict and wall / user / peak memory.
# VeriStrong runs as the artifact's reproduce/ scripts run it (`--pruning
# fast`, its acyclic MiniSat solver, `--history-type cobra` for Cobra log
# directories) and prints `accept: true|false`; isocheck runs as `check
# --input-format dbcop|cobra -m serializable|snapshot-isolation`. A history
# isocheck refuses shows as `refused (CODE)` with its diagnostic's code:
# today, every one that repeats a written value (`duplicate_write`).
# Each cell's first run gives the verdict (and warms the file cache), then
# scripts/timed.sh times RUNS more and the medians are printed (RUNS=0:
# the times of that first run).
# Environment: ISOCHECK (default target/release/isocheck), VERISTRONG
# (default /tmp/veristrong-build/checker, from scripts/veristrong-build.sh),
# LEVELS (default "ser si"), RUNS (default 1), TIMEOUT (seconds a run may
# take, default 300).
set -euo pipefail
data=${1:?a directory of VeriStrong histories}
shift
here=$(dirname "$0")
isocheck=${ISOCHECK:-target/release/isocheck}
veristrong=${VERISTRONG:-/tmp/veristrong-build/checker}
limit=${TIMEOUT:-300}
for tool in "$isocheck" "$veristrong"; do
    [ -x "$tool" ] || { echo "$tool is not an executable" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Runs a command once under the time limit, leaving its exit status in
# $status, its output in $tmp/out and $tmp/err, and its times in
# $tmp/time, in timed.sh's form.
run_once() {
    status=0
    /usr/bin/time -f $'wall_s - %e\nuser_s - %U\npeak_KiB - %M' -o "$tmp/time" \
        timeout "$limit" "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
}

# "wall / user / peak" of RUNS further runs of a command, as timed.sh
# measures them (medians), peak in MiB; with RUNS=0, of the run just made.
times_of() {
    if [ "${RUNS:-1}" = 0 ]; then
        cat "$tmp/time"
    else
        "$here/timed.sh" -n "${RUNS:-1}" --warmup 0 -- timeout "$limit" "$@"
    fi |
        awk '{ v[$1] = $3 }
             END { printf "%.2f s / %.2f s / %.0f MiB", v["wall_s"], v["user_s"], v["peak_KiB"] / 1024 }'
}

# VeriStrong's verdict from its last run.
veristrong_verdict() {
    case "$status:$(tail -n 1 "$tmp/out")" in
    "0:accept: true") echo accept ;;
    "0:accept: false") echo reject ;;
    124:*) echo "timeout (> $limit s)" ;;
    *) echo "error (exit $status)" ;;
    esac
}

# isocheck's verdict from its last run; a refusal names the diagnostic.
isocheck_verdict() {
    case "$status" in
    0) echo valid ;;
    1) echo invalid ;;
    2) echo unknown ;;
    3) echo "refused ($(grep -o -m 1 'isocheck::[a-z_]*' "$tmp/err" | sed 's/isocheck:://'))" ;;
    124) echo "timeout (> $limit s)" ;;
    *) echo "error (exit $status)" ;;
    esac
}

# "verdict | times" of one checker on one history: times only when it
# decided within the limit (a refusal is timed too: it is what runs today).
cell() {
    local verdict=$1
    shift
    run_once "$@"
    verdict=$($verdict)
    case "$verdict" in
    timeout* | error*) echo "$verdict | —" ;;
    *) echo "$verdict | $(times_of "$@")" ;;
    esac
}

echo "| history | txns | repeated writes | level | VeriStrong | wall / user / peak | isocheck | wall / user / peak |"
echo "|---|---|---|---|---|---|---|---|"
# The list comes in on descriptor 3, so that the checkers cannot read it.
while IFS=$'\t' read -r path format _ _ txns _ repeated <&3; do
    vs_type=()
    if [ "$format" = cobra ]; then vs_type=(--history-type cobra); fi
    for level in ${LEVELS:-ser si}; do
        model=serializable
        if [ "$level" = si ]; then model=snapshot-isolation; fi
        vs=$(cell veristrong_verdict "$veristrong" "$path" --pruning fast \
            --solver acyclic-minisat --isolation-level "$level" "${vs_type[@]}")
        iso=$(cell isocheck_verdict "$isocheck" check --input-format "$format" \
            -m "$model" "$path")
        name=${path#"$data"/}
        echo "| ${name%/history.bincode} | $txns | $repeated | $level | $vs | $iso |"
    done
done 3< <("$here/veristrong-histories.py" "${@:-$data}")
