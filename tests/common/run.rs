//! What the tests of `isocheck run` share: running the binary, scratch
//! stores, and the check that every invocation has its completion.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn isocheck(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_isocheck"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run isocheck")
}

/// A fresh scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("isocheck-run-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Per process, each invocation is completed before the process invokes
/// again, and none is left open. Returns (client invocations, nemesis ops).
pub fn completions(history: &str) -> (usize, usize) {
    let mut open = std::collections::HashMap::new();
    let (mut invocations, mut nemesis) = (0, 0);
    for line in history.lines() {
        let field = |key: &str| {
            let at = line.find(key).expect(key) + key.len();
            line[at..].split([',', '}']).next().expect("value").trim()
        };
        let process = field(":process ");
        if process == ":nemesis" {
            nemesis += 1;
            continue;
        }
        let invoke = field(":type ") == ":invoke";
        let was_open = open.insert(process.to_string(), invoke).unwrap_or(false);
        assert_ne!(invoke, was_open, "process {process} at {line}");
        invocations += usize::from(invoke);
    }
    assert!(open.values().all(|&o| !o), "an invocation never completed");
    (invocations, nemesis)
}
