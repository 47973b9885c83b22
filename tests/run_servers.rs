//! `isocheck run` against real PostgreSQL and MariaDB servers, started by
//! `scripts/db.sh`: each level keeps what the documentation promises while
//! a nemesis kills the clients' connections (PostgreSQL: SERIALIZABLE is
//! strict-serializable, REPEATABLE READ snapshot isolation, READ COMMITTED
//! read committed; MariaDB: SERIALIZABLE is serializable, and its
//! REPEATABLE READ and READ COMMITTED are read committed); killing the
//! server mid-run leaves no invocation without a completion, and so does a
//! nemesis restarting and pausing it, under which the strongest level
//! still keeps its promise; bad URLs,
//! unreachable servers and users who may not create tables get exit status
//! 3 and one line of help.
//!
//! Without a server (no package and no way to install it) the tests say
//! why and pass, unless `ISOCHECK_REQUIRE_DB=1` (CI sets it) makes that a
//! failure. The tests of one server share its database, so they take turns.

mod common;

use common::run::{completions, isocheck, read, scratch, stderr};
use std::process::{Command, Output};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

/// Each server's tables are shared: one test at a time per server.
static POSTGRES: Mutex<()> = Mutex::new(());
static MARIADB: Mutex<()> = Mutex::new(());

fn db_sh(action: &str, server: &str) -> Output {
    Command::new(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/db.sh"))
        .args([action, server])
        .output()
        .expect("run scripts/db.sh")
}

/// The server's URL and the turn to use it, or `None` (after saying why)
/// when it cannot start here and CI does not require it.
fn server(name: &str) -> Option<(String, MutexGuard<'static, ()>)> {
    let lock = if name == "postgres" {
        &POSTGRES
    } else {
        &MARIADB
    };
    let turn = lock.lock().unwrap_or_else(|e| e.into_inner());
    let out = db_sh("start", name);
    if out.status.success() {
        let url = String::from_utf8_lossy(&out.stdout).trim().to_string();
        return Some((url, turn));
    }
    let why = String::from_utf8_lossy(&out.stderr).into_owned();
    if std::env::var("ISOCHECK_REQUIRE_DB").is_ok_and(|v| v == "1") {
        panic!("ISOCHECK_REQUIRE_DB=1 but {name} did not start: {why}");
    }
    eprintln!("skipped: {name} did not start ({why})");
    None
}

/// Three seconds with a nemesis killing connections every half second (a
/// time limit, not a count: the nemesis acts however fast the database).
const KILL_CONNECTIONS: [&str; 6] = [
    "--time-limit",
    "3",
    "--nemesis",
    "kill",
    "--nemesis-interval",
    "0.5",
];

/// Runs `isocheck run` on the server with `args`; asserts every invocation
/// has its completion, the nemesis acted and the check passed, and returns
/// the history.
fn passes(url: &str, name: &str, args: &[&str]) -> String {
    let store = scratch(name);
    let mut all = vec!["run", "--db", url, "--store"];
    all.push(store.to_str().expect("utf-8 path"));
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

/// Runs `--isolation level -m model` with each workload on the server.
fn level_keeps_its_promise(server_name: &str, level: &str, model: &str) {
    let Some((url, _turn)) = server(server_name) else {
        return;
    };
    for workload in ["list-append", "rw-register"] {
        let mut args = vec!["--isolation", level, "-m", model, "--workload", workload];
        args.extend_from_slice(&KILL_CONNECTIONS);
        passes(&url, &format!("{server_name}-{level}-{workload}"), &args);
    }
}

/// The cas-register workload at the weakest level, connections killed
/// every half second: a compare-and-set is one `UPDATE ... WHERE v =
/// expected`, atomic at every level, so each register is linearizable.
fn cas_registers_are_linearizable(server_name: &str) {
    let Some((url, _turn)) = server(server_name) else {
        return;
    };
    let mut args = vec![
        "--isolation",
        "read-committed",
        "--workload",
        "cas-register",
    ];
    args.extend_from_slice(&KILL_CONNECTIONS);
    let history = passes(&url, &format!("cas-{server_name}"), &args);
    let ok_cas = history
        .lines()
        .filter(|l| l.contains(":type :ok") && l.contains(":f :cas"));
    assert!(ok_cas.count() > 0, "{server_name}: no cas took");
}

#[test]
fn postgres_cas_registers_are_linearizable() {
    cas_registers_are_linearizable("postgres");
}

#[test]
fn mariadb_cas_registers_are_linearizable() {
    cas_registers_are_linearizable("mariadb");
}

/// Eight seconds of `--isolation level` under a nemesis that restarts and
/// pauses the server in turn, every second, through `scripts/db.sh`: each
/// fault is recorded begun and done (none failed), every invocation has its
/// completion, and `model` holds.
fn restarts_and_pauses_keep_the_promise(server_name: &str, level: &str, model: &str) {
    let Some((url, _turn)) = server(server_name) else {
        return;
    };
    let ctl = format!(
        "{}/scripts/db.sh {{}} {server_name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let args = [
        "--isolation",
        level,
        "-m",
        model,
        "--time-limit",
        "8",
        "--nemesis",
        "restart,pause",
        "--nemesis-interval",
        "1",
        "--server-ctl",
        &ctl,
    ];
    let history = passes(&url, &format!("faults-{server_name}"), &args);
    for f in ["kill", "start", "pause", "resume"] {
        let begun = format!(":f :{f}, :value nil}}");
        let done = format!(":f :{f}, :value \"done\"}}");
        assert!(history.contains(&begun), "{server_name}: no {f} began");
        assert!(
            history.contains(&done),
            "{server_name}: {f} did not succeed"
        );
    }
    let nemesis: Vec<&str> = history.lines().filter(|l| l.contains(":nemesis")).collect();
    let ended = |l: &&str| l.ends_with(":value nil}") || l.ends_with(":value \"done\"}");
    assert!(nemesis.iter().all(ended), "{server_name}: a fault failed");
    // Each fault is begun, done, undone and done again before the next.
    assert_eq!(nemesis.len() % 4, 0, "{server_name}: a fault left in place");
}

#[test]
fn postgres_serializable_survives_restarts_and_pauses() {
    restarts_and_pauses_keep_the_promise("postgres", "serializable", "strict-serializable");
}

#[test]
fn mariadb_serializable_survives_restarts_and_pauses() {
    restarts_and_pauses_keep_the_promise("mariadb", "serializable", "serializable");
}

#[test]
fn postgres_serializable_is_strict_serializable() {
    level_keeps_its_promise("postgres", "serializable", "strict-serializable");
}

#[test]
fn postgres_repeatable_read_is_snapshot_isolation() {
    level_keeps_its_promise("postgres", "repeatable-read", "snapshot-isolation");
}

#[test]
fn postgres_read_committed_is_read_committed() {
    level_keeps_its_promise("postgres", "read-committed", "read-committed");
}

#[test]
fn mariadb_serializable_is_serializable() {
    level_keeps_its_promise("mariadb", "serializable", "serializable");
}

#[test]
fn mariadb_repeatable_read_is_read_committed() {
    level_keeps_its_promise("mariadb", "repeatable-read", "read-committed");
}

#[test]
fn mariadb_read_committed_is_read_committed() {
    level_keeps_its_promise("mariadb", "read-committed", "read-committed");
}

/// Kills the server three seconds into an eight-second run and starts it
/// again a second later: every invocation still has its completion.
fn killing_the_server_leaves_no_invocation_open(server_name: &str) {
    let Some((url, _turn)) = server(server_name) else {
        return;
    };
    let store = scratch(&format!("crash-{server_name}"));
    let child = Command::new(env!("CARGO_BIN_EXE_isocheck"))
        .args(["run", "--db", &url, "--time-limit", "8", "--store"])
        .arg(&store)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start isocheck run");
    std::thread::sleep(Duration::from_secs(3));
    assert!(db_sh("kill", server_name).status.success());
    std::thread::sleep(Duration::from_secs(1));
    let restarted = db_sh("start", server_name);
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
fn killing_postgres_leaves_no_invocation_open() {
    killing_the_server_leaves_no_invocation_open("postgres");
}

#[test]
fn killing_mariadb_leaves_no_invocation_open() {
    killing_the_server_leaves_no_invocation_open("mariadb");
}

/// An unreachable server, a malformed URL and a user who may not create
/// tables: exit status 3 and what to do.
fn bad_input_is_status_3(server_name: &str, scheme: &str) {
    let Some((url, _turn)) = server(server_name) else {
        return;
    };
    let reader = url.replace("//isocheck@", "//isocheck_reader@");
    let store = scratch(&format!("bad-{server_name}"));
    let s = store.to_str().expect("utf-8 path");
    let unreachable = format!("{scheme}://isocheck@127.0.0.1:1/isocheck");
    let malformed = format!("{scheme}://isocheck@127.0.0.1:notaport/x");
    let cases = [
        (unreachable.as_str(), "cannot connect"),
        (malformed.as_str(), "URL"),
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

#[test]
fn postgres_bad_input_is_status_3() {
    bad_input_is_status_3("postgres", "postgres");
}

#[test]
fn mariadb_bad_input_is_status_3() {
    bad_input_is_status_3("mariadb", "mysql");
}
