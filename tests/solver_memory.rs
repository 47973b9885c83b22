//! The SAT solver's memory counts against `--max-memory` and the
//! address-space limit: running out inside CaDiCaL ends the model as
//! `:valid? :unknown` with the reason memory-limit (exit status 2), never an
//! abort. Before, CaDiCaL's `std::bad_alloc` crossed into Rust and aborted
//! the process (SIGABRT, status 134 in a shell) under `ulimit -v` 150–200 MB
//! on this history. (Kissat's memory, C, is not counted: CaDiCaL only.)
#![cfg(all(unix, feature = "cadical"))]

mod common;

use common::TempPath;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Output};

fn isocheck() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_isocheck"));
    c.env("ISOCHECK_PROGRESS", "off");
    c.env("NO_COLOR", "1");
    c
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// 3,000 blind-write transactions on 20 keys: without pruning, 300k pairs
/// of writes in unknown order for the solver.
fn blind_writes(name: &str) -> TempPath {
    let path = TempPath::new(&format!("solver-memory-{name}.edn"));
    let out = path.to_string_lossy().into_owned();
    let o = isocheck()
        .args(["gen", "rw-register", "--txns", "3000", "--keys", "20"])
        .args(["--blind-writes", "1.0", "-o", &out])
        .output()
        .expect("run isocheck gen");
    assert!(o.status.success(), "{}", text(&o.stderr));
    path
}

/// `check --no-pruning --every-pair -m serializable --format edn FILE` plus
/// `extra`, under an address-space limit of `kib` KiB when given (set by the
/// shell, which then runs isocheck in its place). Every pair, so that the
/// solver decides: by default the witness order settles the model first.
fn check(file: &Path, kib: Option<u32>, extra: &[&str]) -> Output {
    let file = file.to_string_lossy();
    let mut args = vec![
        "check",
        "--no-pruning",
        "--every-pair",
        "-m",
        "serializable",
    ];
    args.extend_from_slice(&["--format", "edn", &file]);
    args.extend_from_slice(extra);
    let mut command = match kib {
        Some(kib) => {
            let mut sh = Command::new("sh");
            let script = format!("ulimit -v {kib} && exec \"$0\" \"$@\"");
            sh.arg("-c").arg(script).arg(env!("CARGO_BIN_EXE_isocheck"));
            sh.env("NO_COLOR", "1");
            sh
        }
        None => isocheck(),
    };
    command.args(&args).output().expect("run isocheck check")
}

/// The answer is unknown because the solver ran out of memory: the model's
/// `cycle-search-timeout` entry says memory-limit, in the solve stage, or
/// (an allocation refused outside the solver's own calls) the whole check
/// stopped there.
fn assert_solver_memory_limit(o: &Output, what: &str) {
    let out = text(&o.stdout);
    let err = text(&o.stderr);
    assert_eq!(o.status.signal(), None, "{what}: killed by a signal: {err}");
    assert_eq!(o.status.code(), Some(2), "{what}: {err}\n{out}");
    assert!(out.starts_with("{:valid? :unknown,"), "{what}: {out}");
    assert!(
        out.contains(":reason \"memory-limit\", :stage :solve")
            || out.contains(":reason :memory-limit,\n :stage :solve,"),
        "{what}: {out}"
    );
    assert!(!err.contains("bad_alloc"), "{what}: {err}");
}

#[test]
fn the_solver_under_an_address_space_limit_ends_unknown_memory_limit() {
    let file = blind_writes("ulimit");
    // The default budget is what the limit leaves; CaDiCaL's allocations
    // are refused at it. Below about 160 MB the cycle search (before the
    // solver) runs out first: the debug binary's own mapping takes its share
    // of the address space, and grows with the code.
    for kib in [175_000, 200_000] {
        let o = check(&file, Some(kib), &[]);
        assert_solver_memory_limit(&o, &format!("ulimit -v {kib}"));
    }
    // A budget beyond the limit: the system itself refuses CaDiCaL, inside
    // a call that catches it.
    let o = check(&file, Some(200_000), &["--max-memory", "10G"]);
    let what = "ulimit -v 200000, --max-memory 10G";
    assert_eq!(o.status.signal(), None, "{what}: {}", text(&o.stderr));
    assert_eq!(o.status.code(), Some(2), "{what}: {}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.starts_with("{:valid? :unknown,"), "{what}: {out}");
    assert!(out.contains("memory-limit"), "{what}: {out}");
}

#[test]
fn the_solver_keeps_to_max_memory() {
    let file = blind_writes("budget");
    let o = check(&file, None, &["--max-memory", "60M"]);
    assert_solver_memory_limit(&o, "--max-memory 60M");
}
