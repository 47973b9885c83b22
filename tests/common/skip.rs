// Skipping a test whose resource this machine lacks, the one way every test
// does it. (Plain comments, not `//!`: the library's unit tests include this
// file with `include!`, where an inner doc comment is not allowed.)
//
// A skip prints `skipped: <test>: <reason>` on stderr and the test passes,
// unless the resource is required here: under `CI=true` every one is (CI has
// the corpus beside the checkout and starts the servers and installs
// Chromium), and each kind has its own switch too, `ISOCHECK_REQUIRE_DB=1`
// for the database servers and `ISOCHECK_BROWSER_TEST=required` for
// Chromium. A required resource that is missing fails the test instead.
// Only opt-in data (`Need::OptIn`) is never required: CI does not have it.

use std::path::{Path, PathBuf};

/// What a test needs that a machine may not have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// The shared corpus beside the checkout ([`corpus_root`]).
    Corpus,
    /// A PostgreSQL or MariaDB server (`scripts/db.sh start`).
    Server,
    /// Chromium, for the HTML report's browser test.
    Browser,
    /// A device of the system, such as `/dev/full`.
    Device,
    /// `python3` with its `sqlite3` module, for the exec protocol's example
    /// client (`examples/exec-sqlite.py`).
    Python,
    /// Other projects' data that a user names with an environment variable
    /// to opt in (tests/public_registers.rs): never required, CI has none.
    OptIn,
}

impl Need {
    /// The setting that makes this resource required, if one is set.
    fn required_by(self) -> Option<&'static str> {
        let is = |var: &str, value: &str| std::env::var(var).is_ok_and(|v| v == value);
        match self {
            Need::OptIn => None,
            _ if is("CI", "true") => Some("CI=true"),
            Need::Server if is("ISOCHECK_REQUIRE_DB", "1") => Some("ISOCHECK_REQUIRE_DB=1"),
            Need::Browser if is("ISOCHECK_BROWSER_TEST", "required") => {
                Some("ISOCHECK_BROWSER_TEST=required")
            }
            _ => None,
        }
    }
}

/// Says why the running test is skipped; panics instead when `need` is
/// required here. The caller returns after it.
pub fn skip(need: Need, reason: &str) {
    // libtest names each test's thread after the test.
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a test");
    if let Some(switch) = need.required_by() {
        panic!("{test} may not be skipped under {switch}, but {reason}");
    }
    eprintln!("skipped: {test}: {reason}");
}

/// The shared corpus: `ISOCHECK_CORPUS` when set, else `../shared/corpus`
/// beside the checkout (whose root holds the workspace's `Cargo.lock`; this
/// file is also included by the library crate's unit tests, two levels
/// down).
pub fn corpus_root() -> PathBuf {
    if let Some(dir) = std::env::var_os("ISOCHECK_CORPUS") {
        return PathBuf::from(dir);
    }
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = manifest
        .ancestors()
        .find(|d| d.join("Cargo.lock").is_file())
        .unwrap_or(manifest);
    root.join("../shared/corpus")
}

/// [`corpus_root`], or `None` after [`skip`] when it is not there.
pub fn corpus_dir() -> Option<PathBuf> {
    let dir = corpus_root();
    if dir.is_dir() {
        return Some(dir);
    }
    let whence = match std::env::var_os("ISOCHECK_CORPUS") {
        Some(_) => "ISOCHECK_CORPUS names it",
        None => "the shared corpus sits beside the project checkout",
    };
    let reason = format!("{} not found ({whence})", dir.display());
    skip(Need::Corpus, &reason);
    None
}
