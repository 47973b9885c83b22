//! Replays fuzz inputs through the fuzz targets' own code paths, in a plain
//! `cargo test`: every file of `fixtures/fuzz-regressions/` (inputs that
//! once crashed a target, named `<target>-<short-name>`) and every seed of
//! `fuzz/seeds/<target>/` (inputs that never crashed). None may panic.
//!
//! The targets live in `fuzz/src/lib.rs`, included here as a module, so the
//! replay is exactly what `cargo fuzz run <target>` executes.

#[path = "../fuzz/src/lib.rs"]
#[allow(dead_code)]
mod targets;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

type Target = fn(&[u8]);

/// The fuzz targets by name, longest first so that prefix matching picks
/// the most specific one.
const TARGETS: &[(&str, Target)] = &[
    ("dbcop_bincode", targets::dbcop_bincode),
    ("check_history", targets::check_history),
    ("chronos_json", targets::chronos_json),
    ("history_edn", targets::history_edn),
    ("polysi_text", targets::polysi_text),
    ("edn_values", targets::edn_values),
    ("cobra_log", targets::cobra_log),
    ("fressian", targets::fressian),
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The files of `dir`, sorted. Both directories are part of the
/// repository: one that cannot be read fails the test rather than leaving
/// it nothing to replay.
fn files_in(dir: &Path) -> Vec<PathBuf> {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n != "README.md" && n != ".gitkeep")
        })
        .collect();
    files.sort();
    files
}

/// The target a regression file's name starts with.
fn target_of(path: &Path) -> Option<(&'static str, Target)> {
    let name = path.file_name()?.to_str()?;
    TARGETS
        .iter()
        .find(|(t, _)| {
            name.strip_prefix(t)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(['-', '_', '.']))
        })
        .copied()
}

/// Runs every `(target, file)` case on a thread with the main thread's
/// 8 MiB stack (the CLI's and libFuzzer's), and returns the failures.
fn replay(cases: Vec<(&'static str, Target, PathBuf)>) -> Vec<String> {
    let run = move || {
        let mut failures = Vec::new();
        for (name, target, path) in &cases {
            let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let outcome = catch_unwind(AssertUnwindSafe(|| target(&data)));
            if let Err(payload) = outcome {
                let msg = payload
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "(non-string panic)".into());
                failures.push(format!("{name} on {}: {msg}", path.display()));
            }
        }
        targets::cobra_cleanup();
        failures
    };
    std::thread::Builder::new()
        .name("fuzz-replay".into())
        .stack_size(8 << 20)
        .spawn(run)
        .expect("spawn the replay thread")
        .join()
        .expect("the replay thread itself failed")
}

fn assert_no_failures(failures: Vec<String>, ran: usize) {
    assert!(
        failures.is_empty(),
        "{} of {ran} fuzz inputs panicked:\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
}

/// Inputs that once crashed a target.
#[test]
fn crash_inputs_no_longer_panic() {
    let dir = root().join("fixtures/fuzz-regressions");
    let mut cases = Vec::new();
    for path in files_in(&dir) {
        let (name, target) = target_of(&path).unwrap_or_else(|| {
            panic!(
                "{}: a regression file's name must start with a target name ({})",
                path.display(),
                TARGETS.iter().map(|t| t.0).collect::<Vec<_>>().join(", ")
            )
        });
        cases.push((name, target, path));
    }
    let ran = cases.len();
    assert_no_failures(replay(cases), ran);
}

/// The seed corpora: never crashed, and they keep this test running
/// something (and every target's code path compiling and working) even
/// when no crash has been recorded.
#[test]
fn seeds_do_not_panic() {
    let mut cases = Vec::new();
    for &(name, target) in TARGETS {
        let seeds = files_in(&root().join("fuzz/seeds").join(name));
        assert!(!seeds.is_empty(), "fuzz/seeds/{name} holds no seeds");
        cases.extend(seeds.into_iter().map(|p| (name, target, p)));
    }
    let ran = cases.len();
    assert_no_failures(replay(cases), ran);
}

#[test]
fn regression_files_name_their_target() {
    assert_eq!(
        target_of(Path::new("history_edn-deep-tag")).map(|t| t.0),
        Some("history_edn")
    );
    assert_eq!(
        target_of(Path::new("dbcop_bincode-oom")).map(|t| t.0),
        Some("dbcop_bincode")
    );
    assert!(target_of(Path::new("history_ednx")).is_none());
    assert!(target_of(Path::new("other-thing")).is_none());
}
