#!/usr/bin/env bash
# Times a command as a whole process with GNU time (Debian's `time`
# package): RUNS runs after one uncounted warm-up, then the median, minimum
# and maximum of wall, user and system seconds and of the peak resident set.
# The command's own output is thrown away. BENCHMARKS.md's figures are of
# this kind.
#   scripts/timed.sh [-n RUNS] [--warmup N] -- COMMAND [ARG ...]
set -euo pipefail
runs=5 warmup=1
while (($#)); do
    case "$1" in
        -n) runs=$2; shift 2 ;;
        --warmup) warmup=$2; shift 2 ;;
        --) shift; break ;;
        *) break ;;
    esac
done
(($#)) || { sed -n '2,7p' "$0" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "needs GNU time: apt-get install time" >&2; exit 2; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for ((i = 0; i < warmup + runs; i++)); do
    /usr/bin/time -f '%e %U %S %M' -o "$out.run" "$@" >/dev/null 2>&1 || true
    ((i < warmup)) || tail -n 1 "$out.run" >>"$out"
done
rm -f "$out.run"
for col in 1 2 3 4; do
    name=$(echo "wall_s user_s sys_s peak_KiB" | cut -d' ' -f$col)
    sort -g -k$col,$col "$out" | awk -v c=$col -v n="$name" '
        { v[NR] = $c }
        END { printf "%-9s median %s  min %s  max %s\n", n, v[int((NR + 1) / 2)], v[1], v[NR] }'
done
