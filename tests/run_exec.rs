//! `isocheck run --db exec:PROGRAM` end to end, with the README's example
//! client (`examples/exec-sqlite.py`, SQLite through Python's `sqlite3`):
//! every workload records a complete history that checks valid and that
//! `recheck` agrees with; the nemesis's SIGKILLs leave `:info` ops, a
//! complete store and a valid history; a program that cannot be run is a
//! diagnostic before the run starts; the README shows the example whole.

mod common;

use common::run::{completions, read, recheck_agrees, report_is_written, run, scratch, stderr};
use common::{skip, Need};
use std::path::Path;

const CLIENT: &str = "exec:examples/exec-sqlite.py";

/// Held by the tests that run Python clients, one at a time: each starts
/// many Pythons, and on a loaded machine two tests' worth would leave the
/// nemesis little to kill but programs starting.
static PYTHONS: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Whether `python3` with `sqlite3` runs here; skips (saying why) if not.
fn have_python() -> bool {
    let ok = std::process::Command::new("python3")
        .args(["-c", "import sqlite3, json"])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        skip(
            Need::Python,
            "python3 with its sqlite3 module is not installed",
        );
    }
    ok
}

#[test]
fn the_example_client_runs_every_workload_valid() {
    if !have_python() {
        return;
    }
    let _one_at_a_time = PYTHONS.lock().unwrap_or_else(|e| e.into_inner());
    let store = scratch("exec");
    let cases = [
        ("list-append", "2000"),
        ("rw-register", "300"),
        ("mini-transactions", "300"),
        ("cas-register", "300"),
    ];
    for (workload, txns) in cases {
        let args = ["--db", CLIENT, "--workload", workload, "--txns", txns];
        let (out, dir) = run(&store, &args);
        assert!(out.status.success(), "{workload}: {}", stderr(&out));
        let history = read(&dir.join("history.edn"));
        let invoked = completions(&history).0;
        assert_eq!(invoked.to_string(), txns, "{workload}");
        assert!(!history.contains(":type :info"), "{workload}: {history}");
        let results = read(&dir.join("results.edn"));
        assert!(
            results.starts_with("{:valid? true"),
            "{workload}: {results}"
        );
        let test = read(&dir.join("test.edn"));
        assert!(test.contains(":db \"exec\""), "{test}");
        let log = read(&dir.join("exec.log"));
        assert!(log.contains("program 0: started"), "{log}");
    }
    recheck_agrees(&store, cases.len());
    std::fs::remove_dir_all(&store).expect("clean up");
}

#[test]
fn programs_killed_by_the_nemesis_leave_info_ops_and_a_valid_store() {
    if !have_python() {
        return;
    }
    let _one_at_a_time = PYTHONS.lock().unwrap_or_else(|e| e.into_inner());
    let store = scratch("exec-kill");
    let args = [
        "--db",
        CLIENT,
        "--nemesis",
        "kill",
        "--nemesis-interval",
        "2",
        "--time-limit",
        "5",
        // Each kill starts as many Pythons again: few, for a loaded machine.
        "--processes",
        "3",
    ];
    let (out, dir) = run(&store, &args);
    assert!(out.status.success(), "{}", stderr(&out));
    let history = read(&dir.join("history.edn"));
    let (invoked, nemesis) = completions(&history);
    assert!(invoked > 0);
    // Each kill is a pair of nemesis ops, as Jepsen records them.
    let kills = history.lines().filter(|l| l.contains(":f :kill,")).count();
    assert!(
        kills >= 4 && kills == nemesis,
        "{kills} of {nemesis}: {history}"
    );
    let killed = history
        .lines()
        .filter(|l| l.contains(":type :info") && l.contains(":error [:program-exited"))
        .count();
    assert!(
        killed > 0,
        "no transaction was under way at a kill: {history}"
    );
    assert!(read(&dir.join("results.edn")).starts_with("{:valid? true"));
    // The plots shade each kill, named in their legends.
    let (latency, rate) = report_is_written(&dir.canonicalize().expect("run"), invoked, false);
    for svg in [latency, rate] {
        assert!(svg.contains("\nkill\n</text>"), "no kill in the legend");
        let shaded = svg.matches("fill=\"#E9A4A0\"").count();
        assert!(shaded > kills / 2, "{shaded} of {} kills shaded", kills / 2);
    }
    let log = read(&dir.join("exec.log"));
    assert!(log.contains("killed by the nemesis"), "{log}");
    recheck_agrees(&store, 1);
    std::fs::remove_dir_all(&store).expect("clean up");
}

#[test]
fn a_program_that_cannot_run_is_a_diagnostic_before_the_run() {
    let store = scratch("exec-bad");
    let (out, _) = run(&store, &["--db", "exec:examples/no-such-client.py --flag"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    insta::assert_snapshot!("run_exec_missing_program", stderr(&out));
    let plain = store.join("client.py");
    std::fs::write(&plain, "print()\n").expect("write a client");
    let db = format!("exec:{}", plain.display());
    let (out, _) = run(&store, &["--db", &db]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("not executable"), "{}", stderr(&out));
    assert!(stderr(&out).contains("chmod +x"), "{}", stderr(&out));
    // Nothing was started, nothing recorded.
    assert!(!store.join("latest").exists());
    std::fs::remove_dir_all(&store).expect("clean up");
}

#[test]
fn a_program_that_breaks_the_protocol_at_setup_is_refused() {
    let store = scratch("exec-garbage");
    let (out, _) = run(
        &store,
        &["--db", "exec:sh -c 'read hello; echo hello there'"],
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("line 1 of the program's stdout `hello there`: expected one JSON object"),
        "{err}"
    );
    assert!(err.contains("help: run the program by hand"), "{err}");
    std::fs::remove_dir_all(&store).expect("clean up");
}

/// The README's example client is the checked-in one, whole.
#[test]
fn the_readme_shows_the_example_client() {
    let readme = read(Path::new("README.md"));
    let client = read(Path::new("examples/exec-sqlite.py"));
    let block = format!("```python\n{client}```\n");
    assert!(
        readme.contains(&block),
        "README.md lacks examples/exec-sqlite.py as it is"
    );
}
