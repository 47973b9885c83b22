#!/usr/bin/env bash
# Set-up and everyday commands for a fresh Debian/Ubuntu machine with rustup.
#   ./dev.sh run    build, then check the bundled history
#   ./dev.sh test   the whole test suite
#   ./dev.sh ci     formatting, lints, the whole test suite and 15 s of
#                   fuzzing per target with nightly (what CI runs)
set -euo pipefail
cd "$(dirname "$0")"

# System packages the build needs: a C/C++ toolchain for the bundled SAT
# solver (CaDiCaL, whose Rust bindings are checked in: no libclang; only the
# Kissat build, which nothing here runs, needs libclang-dev); for
# `test` and `ci`, Clojure (with a JRE) for the tests of jepsen-integration/,
# Chromium for the HTML report's browser test (tests/browser.rs) and Python 3
# for the exec protocol's example client (tests/run_exec.rs).
need_packages() {
    local missing=()
    command -v cc >/dev/null 2>&1 || missing+=(build-essential)
    command -v c++ >/dev/null 2>&1 || missing+=(g++)
    [ "$1" = run ] || command -v clojure >/dev/null 2>&1 || missing+=(clojure)
    [ "$1" = run ] || command -v chromium >/dev/null 2>&1 || missing+=(chromium)
    [ "$1" = run ] || command -v python3 >/dev/null 2>&1 || missing+=(python3)
    if ((${#missing[@]})); then
        echo "installing: ${missing[*]}" >&2
        local sudo=""
        [ "$(id -u)" -eq 0 ] || sudo="sudo"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
}

need_rust() {
    command -v cargo >/dev/null 2>&1 || { echo "cargo not found: install rustup first (https://rustup.rs)" >&2; exit 1; }
    rustup component list --installed 2>/dev/null | grep -q '^clippy' || rustup component add clippy rustfmt >/dev/null 2>&1 || true
}

cmd_run() {
    cargo build --release
    ./target/release/isocheck stats fixtures/histories/list-append-200.edn
    ./target/release/isocheck check fixtures/histories/list-append-200.edn
}

cmd_test() {
    cargo test
    jepsen-integration/run-tests.sh target/debug/isocheck
}

cmd_ci() {
    # A test that needs the corpus (../shared, beside a CI clone), a database
    # server (started below) or Chromium (installed above) skips, saying why,
    # on a developer's machine; under CI=true every such skip is a failure
    # (tests/common/skip.rs). ISOCHECK_BROWSER_TEST=required and
    # ISOCHECK_REQUIRE_DB=1 say the same of Chromium and of the servers alone.
    export CI=true ISOCHECK_BROWSER_TEST=required
    cargo fmt --check
    cargo clippy --all-targets -- -D warnings
    # The library as a program using it builds it, without the tests'
    # `internals` feature: there `deny(missing_docs)` holds every public item.
    cargo clippy -p isocheck --lib -- -D warnings
    RUSTDOCFLAGS="-D warnings" cargo doc -p isocheck --no-deps
    # `isocheck run`'s tests against PostgreSQL and MariaDB: the servers are
    # started here, one after the other (scripts/db.sh installs what is
    # missing), and in CI a server that cannot start fails the tests instead
    # of skipping them.
    export ISOCHECK_REQUIRE_DB=1
    trap 'scripts/db.sh stop postgres >/dev/null 2>&1 || true; scripts/db.sh stop mariadb >/dev/null 2>&1 || true' EXIT
    scripts/db.sh start postgres
    scripts/db.sh start mariadb
    cmd_test
    # The default build needs a C/C++ compiler and no libclang: shown by
    # building the crates with C/C++ steps from their packages with every
    # libclang hidden (scripts/build-without-libclang.sh, docs/tests.md).
    scripts/build-without-libclang.sh
    # A short bounded fuzz run of every target (skips, saying why, without
    # a nightly toolchain): catches a target that no longer builds or that
    # crashes on its seeds or soon after. A fixed seed, so that CI's inputs
    # do not depend on luck; longer runs (fuzz/README.md) use fresh ones.
    FUZZ_SEED=1 fuzz/run.sh 15
}

case "${1:-}" in
    run | test | ci)
        need_packages "$1"
        need_rust
        "cmd_$1"
        ;;
    *)
        sed -n '2,5p' "$0" >&2
        exit 2
        ;;
esac
