//! Helpers shared by the integration tests.

// Each test crate uses some of them.
#![allow(dead_code)]

use std::path::PathBuf;

pub mod run;
pub mod skip;

#[allow(unused_imports)] // not every test crate skips
pub use skip::{corpus_dir, skip, Need};

/// Whether the large runs of the brute-force and property suites are asked
/// for: `ISOCHECK_LARGE_TESTS=1`, which the nightly run
/// (`scripts/nightly.sh`, described in `fuzz/README.md`) sets.
pub fn large_tests() -> bool {
    std::env::var("ISOCHECK_LARGE_TESTS").is_ok_and(|v| v == "1")
}

/// How many cases a brute-force or property suite runs: `ci` in a plain
/// `cargo test` (what CI runs, sized for two cores), `large` under
/// [`large_tests`]; `PROPTEST_CASES`, when set, overrides both.
pub fn cases(ci: u32, large: u32) -> u32 {
    if let Ok(n) = std::env::var("PROPTEST_CASES") {
        return n
            .parse()
            .unwrap_or_else(|_| panic!("PROPTEST_CASES={n}: a number expected"));
    }
    match large_tests() {
        true => large,
        false => ci,
    }
}

/// A tiny deterministic generator (xorshift), so a failing seed replays.
pub struct Rng(pub u64);

impl Rng {
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// A path in the temporary directory, unique to this process and `name`,
/// removed (file or directory) when dropped.
pub struct TempPath(pub PathBuf);

impl TempPath {
    pub fn new(name: &str) -> TempPath {
        let path = std::env::temp_dir().join(format!("isocheck-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        let _ = std::fs::remove_file(&path);
        TempPath(path)
    }
}

impl Drop for TempPath {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
        let _ = std::fs::remove_file(&self.0);
    }
}

impl std::ops::Deref for TempPath {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

/// A list-append history of `n` aborted reads (G1a), each of its own key:
/// for reports that must show many anomalies.
pub fn many_g1a(n: usize) -> String {
    let mut lines = Vec::new();
    for k in 0..n {
        let i = lines.len();
        lines.push(format!(
            "{{:index {i}, :type :fail, :process 0, :f :txn, :value [[:append :k{k} 1]]}}"
        ));
        lines.push(format!(
            "{{:index {}, :type :invoke, :process 1, :f :txn, :value [[:r :k{k} nil]]}}",
            i + 1
        ));
        lines.push(format!(
            "{{:index {}, :type :ok, :process 1, :f :txn, :value [[:r :k{k} [1]]]}}",
            i + 2
        ));
    }
    lines.join("\n") + "\n"
}
