//! `isocheck run` against a real PostgreSQL, started by `scripts/db.sh`:
//! each level keeps what the documentation promises (SERIALIZABLE is
//! strict-serializable, REPEATABLE READ snapshot isolation, READ COMMITTED
//! read committed) while a nemesis kills the clients' connections; killing
//! the server mid-run leaves no invocation without a completion; bad URLs,
//! unreachable servers and users who may not create tables get exit status
//! 3 and one line of help.
//!
//! Without a server (no PostgreSQL and no way to install it) the tests say
//! why and pass, unless `ISOCHECK_REQUIRE_DB=1` (CI sets it) makes that a
//! failure. The tests share one database, so they take turns.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

/// The database's tables are shared: one test at a time.
static SERVER: Mutex<()> = Mutex::new(());

fn db_sh(action: &str) -> Output {
    Command::new(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/db.sh"))
        .args([action, "postgres"])
        .output()
        .expect("run scripts/db.sh")
}

/// The server's URL and the turn to use it, or `None` (after saying why)
/// when it cannot start here and CI does not require it.
fn server() -> Option<(String, MutexGuard<'static, ()>)> {
    let turn = SERVER.lock().unwrap_or_else(|e| e.into_inner());
    let out = db_sh("start");
    if out.status.success() {
        let url = String::from_utf8_lossy(&out.stdout).trim().to_string();
        return Some((url, turn));
    }
    let why = String::from_utf8_lossy(&out.stderr).into_owned();
    if std::env::var("ISOCHECK_REQUIRE_DB").is_ok_and(|v| v == "1") {
        panic!("ISOCHECK_REQUIRE_DB=1 but PostgreSQL did not start: {why}");
    }
    eprintln!("skipped: PostgreSQL did not start ({why})");
    None
}

fn isocheck(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_isocheck"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run isocheck")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("isocheck-pg-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Per process, each invocation is completed before the next; none is
/// left open. Returns (invocations, nemesis ops).
fn completions(history: &str) -> (usize, usize) {
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

/// Runs `isocheck run` on the server with `args` and a nemesis killing
/// connections every second; asserts the check passed and returns the
/// history.
fn passes(url: &str, name: &str, args: &[&str]) -> String {
    let store = scratch(name);
    let mut all = vec!["run", "--db", url, "--store"];
    all.push(store.to_str().expect("utf-8 path"));
    all.extend_from_slice(&["--nemesis", "kill", "--nemesis-interval", "1"]);
    all.extend_from_slice(args);
    let out = isocheck(&all);
    assert!(out.status.success(), "{name}: {}", stderr(&out));
    let history = read(&store.join("latest/history.edn"));
    let (invocations, nemesis) = completions(&history);
    assert!(
        invocations > 0 && nemesis > 0,
        "{name}: {invocations} {nemesis}"
    );
    assert!(read(&store.join("latest/results.edn")).starts_with("{:valid? true"));
    std::fs::remove_dir_all(&store).expect("clean up");
    history
}

#[test]
fn serializable_is_strict_serializable() {
    let Some((url, _turn)) = server() else { return };
    for workload in ["list-append", "rw-register"] {
        let args = [
            "--isolation",
            "serializable",
            "-m",
            "strict-serializable",
            "--workload",
            workload,
            "--txns",
            "2000",
        ];
        passes(&url, &format!("ser-{workload}"), &args);
    }
}

#[test]
fn repeatable_read_is_snapshot_isolation() {
    let Some((url, _turn)) = server() else { return };
    let args = [
        "--isolation",
        "repeatable-read",
        "-m",
        "snapshot-isolation",
        "--txns",
        "2000",
    ];
    passes(&url, "rr", &args);
}

#[test]
fn read_committed_is_read_committed() {
    let Some((url, _turn)) = server() else { return };
    let args = [
        "--isolation",
        "read-committed",
        "-m",
        "read-committed",
        "--workload",
        "rw-register",
        "--txns",
        "1000",
    ];
    passes(&url, "rc", &args);
}

#[test]
fn killing_the_server_leaves_no_invocation_open() {
    let Some((url, _turn)) = server() else { return };
    let store = scratch("crash");
    let mut child = Command::new(env!("CARGO_BIN_EXE_isocheck"))
        .args(["run", "--db", &url, "--time-limit", "8", "--store"])
        .arg(&store)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start isocheck run");
    std::thread::sleep(Duration::from_secs(3));
    assert!(db_sh("kill").status.success());
    std::thread::sleep(Duration::from_secs(1));
    let restarted = db_sh("start");
    let out = child.wait_with_output().expect("isocheck run ends");
    assert!(restarted.status.success(), "{}", stderr(&restarted));
    assert!(out.status.success(), "{}", stderr(&out));
    let history = read(&store.join("latest/history.edn"));
    let (invocations, _) = completions(&history);
    assert!(invocations > 0);
    let lost = history.contains(":error [:connection-lost")
        || history.contains(":error [:connection-terminated");
    assert!(lost, "no client saw the server go");
    std::fs::remove_dir_all(&store).expect("clean up");
}

#[test]
fn bad_urls_unreachable_servers_and_readers_are_status_3() {
    let Some((url, _turn)) = server() else { return };
    let reader = url.replace("//isocheck@", "//isocheck_reader@");
    let store = scratch("bad");
    let s = store.to_str().expect("utf-8 path");
    let cases = [
        ("postgres://isocheck@127.0.0.1:1/isocheck", "cannot"),
        (
            "postgres://isocheck@127.0.0.1:notaport/x",
            "not a PostgreSQL URL",
        ),
        (reader.as_str(), "create tables"),
    ];
    for (db, expected) in cases {
        let out = isocheck(&["run", "--db", db, "--store", s, "--txns", "10"]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(3), "{db}: {err}");
        assert!(err.contains(expected), "{db}: {err}");
        assert!(!err.contains("panicked"), "{db}: {err}");
    }
    std::fs::remove_dir_all(&store).expect("clean up");
}
