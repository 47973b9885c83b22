#!/usr/bin/env bash
# Shows that isocheck builds with a C/C++ compiler alone, without libclang
# (issue 34): what `cargo install --path .`, and `cargo install isocheck`
# once published, need. Run by `./dev.sh ci`. Two checks:
#  1. the default build's dependency graph holds no bindgen or clang-sys
#     (the only crates that load libclang);
#  2. the crates with C/C++ build steps of their own, the CaDiCaL fork
#     (crates/isocheck-cadical) and the library (crates/isocheck: the
#     propagator), packed by `cargo package` as crates.io would get them and
#     built from scratch from those packages, in a mount namespace where every
#     libclang on the machine reads as an empty file. A file the build needs
#     but the package leaves out fails here too.
# `--install ROOT` does, in place of 2, the user's `cargo install --path .
# --root ROOT` (a release build of the whole binary: minutes; not in CI).
# Needs `unshare` (util-linux) and root, or unprivileged user namespaces.
set -euo pipefail
cd "$(dirname "$0")/.."

# The directories a libclang is looked for in (clang-sys's search: the
# library path, ldconfig's, LLVM's own installs).
LIB_DIRS=(/usr/lib /usr/lib64 /usr/local/lib /lib /lib64 /opt)

if [ "${1:-}" = --inside ]; then
    install_root=${2:-}
    hidden=0
    while IFS= read -r -d '' lib; do
        mount --bind /dev/null "$lib"
        hidden=$((hidden + 1))
    done < <(find "${LIB_DIRS[@]}" -name 'libclang*.so*' -type f -print0 2>/dev/null)
    # Every libclang now reads as empty: none can be loaded.
    while IFS= read -r -d '' lib; do
        if [ -s "$lib" ]; then
            echo "build-without-libclang: $lib is still readable" >&2
            exit 1
        fi
    done < <(find -L "${LIB_DIRS[@]}" -name 'libclang*.so*' -print0 2>/dev/null)
    echo "build-without-libclang: $hidden libclang files hidden"
    # A target directory of its own, emptied first: every build script runs.
    export CARGO_TARGET_DIR=target/no-libclang${install_root:+-install}
    rm -rf "$CARGO_TARGET_DIR"
    # Only whether it builds matters: no debug info, no incremental state
    # (less CPU time and disk).
    export CARGO_PROFILE_DEV_DEBUG=false CARGO_INCREMENTAL=0
    if [ -n "$install_root" ]; then
        cargo install --locked --path . --root "$install_root"
        exit 0
    fi
    cargo package --locked --allow-dirty --quiet -p isocheck-cadical -p isocheck
    echo "build-without-libclang: isocheck-cadical and isocheck built from their packages without libclang"
    exit 0
fi

graph=$(cargo tree --locked -e normal,build --prefix none --format '{p}')
if grep -E '^(bindgen|clang-sys) ' <<<"$graph"; then
    echo "build-without-libclang: the default build needs libclang (above)" >&2
    exit 1
fi
echo "build-without-libclang: no bindgen or clang-sys in the default build"

install_root=""
if [ "${1:-}" = --install ]; then
    install_root=$(realpath -m "${2:?--install needs a directory}")
fi
if [ "$(id -u)" -eq 0 ]; then
    exec unshare --mount --propagation private "$0" --inside "$install_root"
else
    exec unshare --map-root-user --mount --propagation private "$0" --inside "$install_root"
fi
