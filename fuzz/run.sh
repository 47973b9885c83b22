#!/usr/bin/env bash
# Builds the fuzz targets with the nightly toolchain and runs each one for a
# bounded time. No cargo-fuzz needed: this is the build `cargo fuzz build`
# does (libFuzzer's coverage instrumentation, debug assertions, overflow
# checks), without AddressSanitizer, which only adds checks of unsafe code.
#   fuzz/run.sh [SECONDS_PER_TARGET] [TARGET...]   (default: 30 s, every target)
# FUZZ_SEED=N fixes libFuzzer's random seed (default 0: a new one each run).
# Skips with a printed reason, status 0, when no nightly toolchain is installed.
set -euo pipefail
cd "$(dirname "$0")"

seconds="${1:-30}"
shift || true
targets=("$@")
((${#targets[@]})) || targets=(check_history history_edn edn_values polysi_text chronos_json dbcop_bincode cobra_log fressian)

if ! command -v rustup >/dev/null 2>&1 || ! rustup run nightly rustc --version >/dev/null 2>&1; then
    echo "fuzz: skipped: no nightly toolchain (rustup toolchain install nightly)"
    exit 0
fi

triple="$(rustc -vV | sed -n 's/^host: //p')"
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions -Coverflow-checks"
# --target keeps RUSTFLAGS off build scripts and proc macros.
cargo +nightly build --release --target "$triple" --bins
bin="target/$triple/release"

# The inputs each target may grow to: wide enough for lines past column 65,536.
max_len=200000
for t in "${targets[@]}"; do
    mkdir -p "corpus/$t" "artifacts/$t"
    echo "fuzz: $t for ${seconds}s"
    log="artifacts/$t.log"
    status=0
    "$bin/$t" "corpus/$t" "seeds/$t" -artifact_prefix="artifacts/$t/" -dict=edn.dict \
        -max_total_time="$seconds" -seed="${FUZZ_SEED:-0}" -rss_limit_mb=2048 -max_len="$max_len" -timeout=20 \
        -print_final_stats=1 >"$log" 2>&1 || status=$?
    grep -E '^(#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss_mb)' "$log" || true
    if [ "$status" -ne 0 ]; then
        tail -n 40 "$log"
        echo "fuzz: $t failed (status $status); the input is in fuzz/artifacts/$t/"
        exit 1
    fi
done
