//! `isocheck run` end to end on the databases every machine has: embedded
//! SQLite and the simulated ones. Each run must write a Jepsen store that
//! `recheck` agrees with, complete every invocation, pass the model its
//! level promises, stop cleanly on Ctrl-C (once or twice), give up on a
//! server that never answers, and refuse bad input with exit status 3 and
//! one line of help.

mod common;

use common::run::{
    checks_valid, completions, finishes_within, first_ops, isocheck, read, recheck_agrees,
    report_is_written, run, scratch, silent_listener, spawn_run, stderr,
};
use std::path::PathBuf;
use std::process::Output;
use std::time::{Duration, Instant};

#[test]
fn sqlite_runs_are_serializable_and_recheck_agrees() {
    let store = scratch("sqlite");
    for workload in ["list-append", "rw-register", "mini-transactions"] {
        let (out, dir) = run(
            &store,
            &["--workload", workload, "--txns", "300", "--processes", "4"],
        );
        assert!(out.status.success(), "{workload}: {}", stderr(&out));
        if workload == "list-append" {
            // The isolation level the clients ask for, then the models
            // (issue 34: the models stood where the level was expected).
            let first = stderr(&out).lines().next().unwrap_or_default().to_string();
            insta::assert_snapshot!("run_first_line_sqlite", first);
        }
        let history = read(&dir.join("history.edn"));
        assert_eq!(completions(&history).0, 300, "{workload}");
        assert!(read(&dir.join("results.edn")).starts_with("{:valid? true"));
        report_is_written(&dir.canonicalize().expect("run dir"), 300, false);
        let test = read(&dir.join("test.edn"));
        assert!(
            test.contains(":consistency-models [:serializable]"),
            "{test}"
        );
        assert!(test.contains(&format!(":workload :{workload}")), "{test}");
    }
    recheck_agrees(&store, 3);
    std::fs::remove_dir_all(&store).expect("clean up");
}

/// Elle's closed-predicate workload on SQLite (serializable): the `:init`
/// comes first, the run ends once every key was mutated, the check (the
/// workload detected) finds it valid and recheck agrees; through the exec
/// protocol, which has no predicate reads, the run is refused (status 3).
#[test]
fn sqlite_closed_predicate_is_serializable() {
    let store = scratch("sqlite-closed-predicate");
    let args = [
        "--workload",
        "closed-predicate",
        "--keys",
        "60",
        "--processes",
        "4",
    ];
    let (out, dir) = run(&store, &args);
    assert!(out.status.success(), "{}", stderr(&out));
    let history = read(&dir.join("history.edn"));
    assert!(history.starts_with("{:index 0,"), "{history}");
    assert!(history
        .lines()
        .next()
        .unwrap_or_default()
        .contains(":f :init"));
    assert!(history.contains("[:rp "), "{history}");
    assert!(read(&dir.join("results.edn")).starts_with("{:valid? true"));
    checks_valid(&dir.join("history.edn"), "strict-serializable");
    recheck_agrees(&store, 1);
    let exec = ["--db", "exec:true", "--workload", "closed-predicate"];
    let (out, _) = run(&store, &exec);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("the exec protocol has no predicate reads"),
        "{}",
        stderr(&out)
    );
    std::fs::remove_dir_all(&store).expect("clean up");
}

/// Elle's closed-predicate workload on the simulated databases: at
/// serializable (one transaction at a time) strict-serializable; at
/// snapshot isolation, snapshot isolated, with the write skews Elle reports
/// for it (G2 cycles, through predicate anti-dependencies, or G2-item)
/// within a few runs. The runs' threads interleave as the OS schedules
/// them: measured, 7 of 12 runs of this size showed one.
#[test]
fn sim_closed_predicate_write_skew() {
    let store = scratch("sim-closed-predicate");
    let at = |level: &str, model: &str| {
        let db = format!("sim:{level}");
        let args = [
            "--db",
            &db,
            "-m",
            model,
            "--workload",
            "closed-predicate",
            "--keys",
            "1000",
            "--txns",
            "1500",
            "--processes",
            "16",
        ];
        let (out, dir) = run(&store, &args);
        (out, read(&dir.join("results.edn")), dir.join("history.edn"))
    };
    let (out, results, history) = at("serializable", "strict-serializable");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(results.starts_with("{:valid? true"), "{results}");
    assert!(read(&history).contains("[:rp "));
    let unstamped = "commit order: not recorded: the closed-predicate workload's ops carry no";
    assert!(stderr(&out).contains(unstamped), "{}", stderr(&out));
    let skew = (0..10).find_map(|_| {
        let (_, results, history) = at("snapshot-isolation", "serializable");
        let g2 = [":G2 ", ":G2]", ":G2-item"];
        g2.iter().any(|t| results.contains(t)).then_some(history)
    });
    let history = skew.expect("a G2 or G2-item at snapshot isolation in ten runs");
    checks_valid(&history, "snapshot-isolation");
    std::fs::remove_dir_all(&store).expect("clean up");
}

/// The cas-register workload: a compare-and-set is one `UPDATE` on
/// SQLite, a read and a write in one transaction on the simulated
/// databases, which is atomic at serializable and snapshot isolation (a
/// concurrent write aborts it). Each is linearizable, and recheck agrees.
#[test]
fn cas_registers_are_linearizable() {
    let store = scratch("cas");
    for db in ["sqlite:", "sim:serializable", "sim:snapshot-isolation"] {
        let args = ["--db", db, "--workload", "cas-register", "--txns", "1000"];
        let (out, dir) = run(&store, &args);
        assert!(out.status.success(), "{db}: {}", stderr(&out));
        let history = read(&dir.join("history.edn"));
        assert_eq!(completions(&history).0, 1000, "{db}");
        let cas = history
            .lines()
            .filter(|l| l.contains(":type :ok, :process"));
        assert!(cas.filter(|l| l.contains(":f :cas")).count() > 100, "{db}");
        assert!(read(&dir.join("results.edn")).starts_with("{:valid? true"));
        let test = read(&dir.join("test.edn"));
        assert!(test.contains(":workload :cas-register"), "{test}");
        assert!(test.contains("[:linearizable]"), "{test}");
    }
    recheck_agrees(&store, 3);
    std::fs::remove_dir_all(&store).expect("clean up");
}

#[test]
fn simulated_databases_keep_their_levels_promises() {
    let store = scratch("sim");
    for level in [
        "strict-serializable",
        "serializable",
        "snapshot-isolation",
        "read-committed",
        "read-uncommitted",
    ] {
        for workload in ["list-append", "rw-register"] {
            let db = format!("sim:{level}");
            let (out, dir) = run(
                &store,
                &["--db", &db, "--workload", workload, "--txns", "2000"],
            );
            assert!(out.status.success(), "{level} {workload}: {}", stderr(&out));
            let test = read(&dir.join("test.edn"));
            assert!(test.contains(&format!("[:{level}]")), "{test}");
            completions(&read(&dir.join("history.edn")));
        }
    }
    std::fs::remove_dir_all(&store).expect("clean up");
}

/// The commit order each embedded database gives a run: the simulated
/// ones stamp every committed transaction (their versions are installed in
/// commit-timestamp order), recorded in `test.edn` and used by the check;
/// SQLite reports none, and says so. A PostgreSQL run refuses
/// `--check-timestamps` before it connects.
#[test]
fn sim_records_its_commit_order_and_sqlite_has_none() {
    let store = scratch("commit-order");
    let args = [
        "--db",
        "sim:snapshot-isolation",
        "--workload",
        "rw-register",
    ];
    let (out, dir) = run(&store, &[&args[..], &["--txns", "300"]].concat());
    let said = stderr(&out);
    assert!(out.status.success(), "{said}");
    let source = "commit order: the simulated database's commit timestamps, on ";
    assert!(said.contains(source), "{said}");
    assert!(said.contains("checked with the commit order"), "{said}");
    let history = read(&dir.join("history.edn"));
    let mut oks = history
        .lines()
        .filter(|l| l.contains(":type :ok"))
        .peekable();
    assert!(oks.peek().is_some(), "{history}");
    assert!(oks.all(|l| l.contains(":commit-timestamp ")), "{history}");
    let test = read(&dir.join("test.edn"));
    assert!(test.contains(":commit-order \"the simulated"), "{test}");
    assert!(test.contains(":transaction-order :timestamps"), "{test}");
    let (out, dir) = run(&store, &["--txns", "20"]);
    let none = "commit order: not recorded: SQLite reports no commit order";
    assert!(stderr(&out).contains(none), "{}", stderr(&out));
    let test = read(&dir.join("test.edn"));
    assert!(test.contains(":transaction-order nil"), "{test}");
    recheck_agrees(&store, 2);
    std::fs::remove_dir_all(&store).expect("clean up");
    let pg = [
        "run",
        "--db",
        "postgres://x@127.0.0.1:1/x",
        "--check-timestamps",
    ];
    let out = isocheck(&pg);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("drop --check-timestamps"),
        "{}",
        stderr(&out)
    );
}

/// A run's directory holds its report, with the explanations when the
/// history is invalid (and only then), says where on stderr, and recheck
/// agrees; with `--no-report`, no report. Whether a simulated
/// read-committed database's history is serializable depends on how its
/// clients interleave: runs are repeated until one is not (each about
/// half the time; twenty valid in a row would be one in a million).
#[test]
fn a_run_writes_its_report_beside_the_history() {
    let store = scratch("report");
    let args = [
        "--db",
        "sim:read-committed",
        "-m",
        "serializable",
        "--keys",
        "3",
    ];
    let mut runs = 0;
    let invalid = loop {
        assert!(runs < 20, "20 runs of read committed, all serializable");
        runs += 1;
        let (out, dir) = run(&store, &args);
        let dir = dir.canonicalize().expect("run dir");
        let (invoked, _) = completions(&read(&dir.join("history.edn")));
        let status = out.status.code();
        assert!(matches!(status, Some(0 | 1)), "{}", stderr(&out));
        let invalid = status == Some(1);
        let (latency, rate) = report_is_written(&dir, invoked, invalid);
        assert!(latency.contains("Raw latency") && rate.contains("Throughput"));
        let said = format!("report: {}", dir.join("index.html").display());
        assert!(stderr(&out).contains(&said), "{}", stderr(&out));
        if invalid {
            break dir;
        }
    };
    let explained = read(&invalid.join("index.html"));
    assert!(
        explained.contains("./history.edn#L"),
        "links to the history"
    );
    let mut quiet = args.to_vec();
    quiet.push("--no-report");
    let (out, dir) = run(&store, &quiet);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", stderr(&out));
    for file in ["index.html", "explanations", "latency-raw.svg", "rate.svg"] {
        assert!(!dir.join(file).exists(), "{file} with --no-report");
    }
    assert!(!stderr(&out).contains("report:"), "{}", stderr(&out));
    recheck_agrees(&store, runs + 1);
    std::fs::remove_dir_all(&store).expect("clean up");
}

#[test]
fn models_can_be_given_and_are_recorded() {
    let store = scratch("models");
    let (out, dir) = run(
        &store,
        &[
            "--db",
            "sim:strict-serializable",
            "-m",
            "strict-serializable",
            "--txns",
            "200",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let first = stderr(&out).lines().next().unwrap_or_default().to_string();
    insta::assert_snapshot!("run_first_line_sim", first);
    assert!(read(&dir.join("test.edn")).contains("[:strict-serializable]"));
    std::fs::remove_dir_all(&store).expect("clean up");
}

/// A run on SQLite with no limit but Ctrl-C, pressed `presses` times once
/// it has recorded ops, which leaves a complete history that checks: the
/// run's output, the history and the store.
#[cfg(unix)]
fn interrupted(name: &str, presses: usize) -> (Output, PathBuf, PathBuf) {
    let store = scratch(name);
    let s = store.to_str().expect("utf-8 path");
    let child = spawn_run(&["--time-limit", "600", "--processes", "4", "--store", s]);
    let history = first_ops(&store);
    for _ in 0..presses {
        common::run::interrupt(&child);
    }
    let (out, took) = finishes_within(child, Duration::from_secs(120));
    eprintln!("{presses} Ctrl-C: the run ended {took:?} after it");
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
    assert!(completions(&read(&history)).0 > 0);
    let dir = history.parent().expect("run directory");
    assert!(read(&dir.join("test.edn")).contains(":interrupted? true"));
    checks_valid(&history, "serializable");
    (out, history, store)
}

#[cfg(unix)]
#[test]
fn ctrl_c_stops_the_clients_and_still_writes_and_checks() {
    let (out, history, store) = interrupted("interrupt", 1);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("stopped by Ctrl-C"),
        "{}",
        stderr(&out)
    );
    let dir = history.parent().expect("run directory");
    assert!(read(&dir.join("results.edn")).starts_with("{:valid? true"));
    std::fs::remove_dir_all(&store).expect("clean up");
}

/// A second Ctrl-C exits (130) without checking, but only once the store
/// holds the whole history (every invocation completed) and `test.edn`.
#[cfg(unix)]
#[test]
fn a_second_ctrl_c_exits_and_leaves_a_checkable_store() {
    let (out, _, store) = interrupted("interrupt-twice", 2);
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    std::fs::remove_dir_all(&store).expect("clean up");
}

/// A server that accepts connections and never answers (as a MySQL URL
/// on PostgreSQL's port is): the setup gives up after the connect timeout,
/// with exit status 3, and leaves no run behind.
#[test]
fn a_silent_server_is_given_up_in_bounded_time() {
    let port = silent_listener(0, None);
    let store = scratch("silent");
    let s = store.to_str().expect("utf-8 path");
    for scheme in ["postgres", "mysql"] {
        let url = format!("{scheme}://isocheck@127.0.0.1:{port}/isocheck");
        for limit in [&["--time-limit", "2"][..], &[]] {
            let mut args = vec!["--db", &url, "--store", s];
            args.extend_from_slice(limit);
            let (out, took) = finishes_within(spawn_run(&args), Duration::from_secs(60));
            eprintln!("{scheme} {limit:?}: gave up after {took:?}");
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(3), "{scheme}: {err}");
            assert!(err.contains("cannot connect"), "{scheme}: {err}");
            assert!(err.contains("did not answer within"), "{scheme}: {err}");
            assert!(took < Duration::from_secs(30), "{scheme}: {took:?}");
        }
    }
    let runs = std::fs::read_dir(&store).expect("store").count();
    assert_eq!(runs, 0, "a run was left in {}", store.display());
    std::fs::remove_dir_all(&store).expect("clean up");
}

/// Durations past what the clock can add (`1e19` s and more) are no limit
/// at all, as `check --timeout` takes them: the run ends by its `--txns`,
/// without a panic.
#[test]
fn huge_durations_are_no_limit() {
    let store = scratch("huge");
    for limit in ["1e19", "1e300", "18446744073709551615"] {
        let (out, dir) = run(&store, &["--time-limit", limit, "--txns", "50"]);
        assert!(out.status.success(), "{limit}: {}", stderr(&out));
        assert_eq!(completions(&read(&dir.join("history.edn"))).0, 50);
        assert!(
            read(&dir.join("test.edn")).contains(":time-limit 1"),
            "{limit}"
        );
    }
    // The nemesis needs a server: none answers on port 1, so the run gets
    // as far as connecting (the interval parsed) and fails there.
    let args = [
        "--db",
        PG,
        "--nemesis",
        "kill",
        "--nemesis-interval",
        "1e300",
    ];
    let (out, _) = run(&store, &args);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("cannot connect"), "{}", stderr(&out));
    for bad in ["-1", "nan", "inf", "1s"] {
        for flag in ["--time-limit", "--nemesis-interval"] {
            let (out, _) = run(&store, &[&format!("{flag}={bad}")]);
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(3), "{flag} {bad}: {err}");
            assert!(
                err.contains("not a number of seconds"),
                "{flag} {bad}: {err}"
            );
        }
    }
    std::fs::remove_dir_all(&store).expect("clean up");
}

/// `--name` is one directory inside the store: `..`, an absolute path or
/// a `/` would write outside it (or over its `latest` link).
#[test]
fn names_that_leave_the_store_are_refused() {
    let store = scratch("names");
    let outside = scratch("names-outside").join("x");
    let absolute = outside.to_str().expect("utf-8 path");
    for name in ["../x", "..", absolute, "a/b", "latest", ""] {
        let (out, _) = run(&store, &["--name", name, "--txns", "10"]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(3), "{name:?}: {err}");
        assert!(
            err.contains("one directory inside the store"),
            "{name:?}: {err}"
        );
    }
    assert!(!outside.exists(), "{} was written", outside.display());
    assert!(!store.join("../x").exists());
    assert_eq!(std::fs::read_dir(&store).expect("store").count(), 0);
    let (out, dir) = run(&store, &["--name", "a..b", "--txns", "10"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(dir.join("history.edn").is_file());
    std::fs::remove_dir_all(&store).expect("clean up");
    std::fs::remove_dir_all(outside.parent().expect("scratch")).expect("clean up");
}

/// A server no test reaches: the nemesis options are refused before it is.
const PG: &str = "postgres://isocheck@127.0.0.1:1/isocheck";

#[test]
fn bad_input_is_one_line_and_status_3() {
    let store = scratch("bad");
    let cases: &[(&[&str], &str)] = &[
        (&["--db", "oracle://x"], "use sqlite:PATH, postgres:"),
        (&["--db", "sim:eventual"], "LEVEL is one of"),
        (&["--isolation", "read-committed"], "drop --isolation"),
        (&["--db", "sqlite:/proc/no/such/dir/db.sqlite"], "help: "),
        (&["-m", "bogus"], "known models"),
        (
            &["--workload", "mini-transactions", "--ops", "6"],
            "at most 4",
        ),
        (&["--nemesis", "kill"], "drop --nemesis"),
        (&["--db", PG, "--nemesis", "kill,restart"], "--server-ctl '"),
        (
            &[
                "--db",
                PG,
                "--nemesis",
                "pause",
                "--server-ctl",
                "db.sh pause pg",
            ],
            "no `{}`",
        ),
        (
            &["--db", PG, "--nemesis", "kill", "--nemesis-interval", "0"],
            "more than 0",
        ),
    ];
    for (args, expected) in cases {
        let (out, _) = run(&store, args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(3), "{args:?}: {err}");
        assert!(err.contains(expected), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    let out = isocheck(&["run", "--store", "/proc/isocheck-store"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("--store"), "{}", stderr(&out));
    std::fs::remove_dir_all(&store).expect("clean up");
}

/// `--rate` paces the invocations: 60 transactions at 200 a second take
/// about 0.3 s (at least 0.29 s: the 60th is due at 59/200 s), where the
/// simulated database alone answers them in milliseconds; and a rate that
/// is not a positive number is refused.
#[test]
fn rate_paces_the_invocations() {
    let store = scratch("rate");
    let started = Instant::now();
    let (out, dir) = run(
        &store,
        &["--db", "sim:serializable", "--txns", "60", "--rate", "200"],
    );
    let took = started.elapsed();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(completions(&read(&dir.join("history.edn"))).0, 60);
    assert!(took >= Duration::from_millis(290), "{took:?}");
    for rate in ["0", "-5", "inf", "fast"] {
        let arg = format!("--rate={rate}");
        let (out, _) = run(&store, &["--db", "sim:serializable", &arg]);
        assert_eq!(out.status.code(), Some(3), "--rate {rate}");
        assert!(stderr(&out).contains("positive rate"), "--rate {rate}");
    }
    std::fs::remove_dir_all(&store).expect("clean up");
}
