#!/usr/bin/env bash
# Regenerates crates/isocheck-cadical/src/bindings.rs, the Rust bindings to
# the bundled CaDiCaL's C API, after its sources (crates/isocheck-cadical/
# cppsrc, cpp-extension) change, e.g. for a new CaDiCaL release. The only
# step of the project that needs libclang (Debian: libclang-dev); the build
# itself reads the checked-in file. `--check` regenerates into a temporary
# file and fails if it differs from the checked-in one.
set -euo pipefail
cd "$(dirname "$0")/.."
crate=crates/isocheck-cadical
out=$PWD/$crate/src/bindings.rs
if [ "${1:-}" = --check ]; then
    out=$(mktemp)
    trap 'rm -f "$out"' EXIT
fi
cargo run --quiet --release --manifest-path scripts/cadical-bindings/Cargo.toml -- "$crate" "$out"
if [ "${1:-}" = --check ]; then
    diff -u "$crate/src/bindings.rs" "$out" && echo "$crate/src/bindings.rs is up to date"
else
    echo "wrote $out"
fi
