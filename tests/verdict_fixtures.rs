//! The histories of `fixtures/verdicts/`, whose answers Elle does not give:
//! garbage reads (a violation of every model, left out of Jepsen histories
//! under `--elle-compat`, kept in the complete logs of PolySI, dbcop and
//! Cobra), rw-register future reads, read-only histories (decided in the
//! complete logs, Elle's `:empty-transaction-graph` in Jepsen EDN), and
//! which model a forced anomaly's headline names.

use isocheck::history::{self, History, LoadOptions};
use isocheck::internals::check::{self, CheckOptions, Validity};
use isocheck::report::human;
use std::path::{Path, PathBuf};
use std::process::Command;

fn path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/verdicts")
        .join(name)
}

fn load(name: &str) -> History {
    history::load(&path(name), &LoadOptions::default()).unwrap_or_else(|e| panic!("{name}: {e:?}"))
}

/// `:valid?` and `:anomaly-types` under serializable.
fn verdict(name: &str, elle_compat: bool) -> (Validity, Vec<String>) {
    let opts = CheckOptions {
        consistency_models: Some(vec!["serializable".into()]),
        elle_compat,
        ..CheckOptions::default()
    };
    let a = check::analyze(&load(name), &opts).expect("valid options");
    let v = check::verdict::verdict(&a);
    (v.valid, v.anomaly_types().map(String::from).collect())
}

#[track_caller]
fn expect(name: &str, elle_compat: bool, valid: Validity, types: &[&str]) {
    let want = (valid, types.iter().map(|t| t.to_string()).collect());
    assert_eq!(
        verdict(name, elle_compat),
        want,
        "{name}, --elle-compat {elle_compat}"
    );
}

const EMPTY: &str = "empty-transaction-graph";

#[test]
fn garbage_reads_in_jepsen_histories_unless_elle_compat() {
    for name in ["garbage-read.edn", "garbage-read-list.edn"] {
        // No dependency either: the garbage read alone makes it invalid.
        expect(name, false, Validity::False, &[EMPTY, "garbage-read"]);
        expect(name, true, Validity::Unknown, &[EMPTY]);
    }
}

#[test]
fn garbage_reads_in_complete_logs_whatever_the_switch() {
    for name in [
        "garbage-read.polysi.txt",
        "garbage-read.bincode",
        "garbage-read-cobra",
    ] {
        assert!(load(name).complete_log, "{name}");
        for compat in [false, true] {
            expect(name, compat, Validity::False, &["garbage-read"]);
        }
    }
}

#[test]
fn a_garbage_read_rules_out_every_model() {
    let opts = CheckOptions::default();
    let a = check::analyze(&load("garbage-read.polysi.txt"), &opts).expect("valid options");
    let v = check::verdict::verdict(&a);
    assert_eq!(
        v.not.iter().copied().collect::<Vec<_>>(),
        ["read-uncommitted"]
    );
}

#[test]
fn rw_register_future_read() {
    for compat in [false, true] {
        expect(
            "future-read.edn",
            compat,
            Validity::False,
            &[EMPTY, "future-read"],
        );
    }
}

#[test]
fn read_only_histories() {
    for name in [
        "read-only.polysi.txt",
        "read-only.bincode",
        "read-only-cobra",
    ] {
        for compat in [false, true] {
            expect(name, compat, Validity::True, &[]);
        }
        // Mini-transactions: the fast path decides, and so would the
        // general one.
        let a = check::analyze(&load(name), &CheckOptions::default()).expect("options");
        assert!(
            matches!(a.path, check::Path::Mini { .. }),
            "{name}: {:?}",
            a.path
        );
        let general = CheckOptions {
            no_fast_path: true,
            ..CheckOptions::default()
        };
        let a = check::analyze(&load(name), &general).expect("options");
        assert_eq!(check::verdict::verdict(&a).valid, Validity::True, "{name}");
    }
    for compat in [false, true] {
        expect("read-only.edn", compat, Validity::Unknown, &[EMPTY]);
    }
}

/// The forced anomaly names the model its cases prove violated: a cycle
/// closed without real-time edges rules out serializable, not only
/// strict-serializable; one that needs them, strict-serializable only.
#[test]
fn forced_anomalies_name_the_model_their_cases_prove() {
    let forced_model = |h: &History| {
        let a = check::analyze(h, &CheckOptions::default()).expect("valid options");
        assert_eq!(a.forced.len(), 1);
        a.forced[0].model
    };
    let headline = |h: &History| {
        let a = check::analyze(h, &CheckOptions::default()).expect("valid options");
        let v = check::verdict::verdict(&a);
        let text = human::render(h, &a, &v, false);
        let words: Vec<&str> = text.split_whitespace().collect();
        let i = words
            .iter()
            .position(|&w| w == "whatever")
            .expect("a forced anomaly");
        words[i..i + 14].join(" ")
    };
    let rw_forced = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/check/rw-forced.edn");
    let h = history::load(&rw_forced, &LoadOptions::default()).expect("loads");
    assert_eq!(forced_model(&h), "PL-3");
    assert_eq!(
        headline(&h),
        "whatever order the database installed the writes below in, the history is not serializable."
    );
    // Decided without order edges, a model keeps its name.
    let opts = CheckOptions {
        consistency_models: Some(vec!["repeatable-read".into()]),
        ..CheckOptions::default()
    };
    let a = check::analyze(&h, &opts).expect("valid options");
    assert_eq!(
        a.forced.iter().map(|f| f.model).collect::<Vec<_>>(),
        ["PL-2.99"]
    );
    let h = load("forced-realtime.edn");
    assert_eq!(forced_model(&h), "PL-SS");
    assert!(headline(&h).ends_with("is not strong-serializable."));
    expect("forced-realtime.edn", false, Validity::True, &[]);
}

/// The command line's `--elle-compat`, end to end.
#[test]
fn the_elle_compat_switch() {
    let run = |args: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_isocheck"))
            .env("ISOCHECK_PROGRESS", "off")
            .args(["check", "-m", "serializable"])
            .args(args)
            .arg(path("garbage-read.edn"))
            .output()
            .expect("runs");
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
        )
    };
    let (status, out) = run(&["--format", "edn"]);
    assert_eq!(status, Some(1), "{out}");
    assert!(out.contains(":garbage-read"), "{out}");
    let (status, out) = run(&["--format", "edn", "--elle-compat"]);
    assert_eq!(status, Some(2), "{out}");
    assert!(!out.contains(":garbage-read"), "{out}");
    let (status, _) = run(&["--elle-compat", "-a", "garbage-read"]);
    assert_eq!(status, Some(1));
}

/// A cycle type a model prohibits is found whichever model graphs the
/// report needs: the search decides the graphs it is not asked for later,
/// and must not take them for acyclic meanwhile (a G-single-item was once
/// skipped as impossible under snapshot isolation, whose report needs
/// PL-SI's graph but not repeatable read's).
#[test]
fn prohibited_cycle_types_are_found_under_every_model() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/check/g-single-item.edn");
    let h = history::load(&file, &LoadOptions::default()).expect("fixture loads");
    for model in [
        "snapshot-isolation",
        "strong-session-snapshot-isolation",
        "parallel-snapshot-isolation",
        "repeatable-read",
        "serializable",
    ] {
        let opts = CheckOptions {
            consistency_models: Some(vec![model.into()]),
            ..CheckOptions::default()
        };
        let a = check::analyze(&h, &opts).expect("valid options");
        let v = check::verdict::verdict(&a);
        assert_eq!(v.valid, Validity::False, "{model}");
        assert!(
            v.anomaly_types().any(|t| t == "G-single-item"),
            "{model}: {:?}",
            v.anomaly_types().collect::<Vec<_>>()
        );
    }
}
