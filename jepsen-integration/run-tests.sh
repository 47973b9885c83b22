#!/usr/bin/env bash
# Tests of the Jepsen integration against a real isocheck binary, with
# Debian's `clojure` package (plain clojure.main + clojure.test, no Leiningen:
# Clojars is not reachable).
#   jepsen-integration/run-tests.sh [ISOCHECK_BINARY]
# ISOCHECK_BINARY defaults to target/debug/isocheck of this checkout (what
# `cargo test` builds); a relative path is taken from the current directory.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"

bin="${1:-$repo/target/debug/isocheck}"
if [ ! -x "$bin" ]; then
    echo "run-tests.sh: no isocheck binary at $bin: build it (cargo build) or pass its path" >&2
    exit 1
fi
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"

jar=""
for j in /usr/share/java/clojure.jar /usr/share/java/clojure-1.11.jar; do
    [ -f "$j" ] && { jar="$j"; break; }
done
if [ -z "$jar" ] || ! command -v java >/dev/null 2>&1; then
    echo "run-tests.sh: Clojure not found: apt-get install clojure (or ./dev.sh test)" >&2
    exit 1
fi

export ISOCHECK_TEST_BINARY="$bin" ISOCHECK_REPO="$repo"
cd "$here"
# Without Jepsen (src only), then the suite (with the stand-in jepsen.* in test/).
status=0
java -cp "$jar:src" clojure.main test/no_jepsen_smoke.clj || status=1
java -cp "$jar:src:test" clojure.main -m isocheck.test-runner || status=1
exit "$status"
