//! `--transaction-order`: the database's own commit order as a source of
//! version order (Elle 0.2.7's `:transaction-order`). Elle's two tests of
//! it give Elle's results with the order and stay valid without it; commit
//! timestamps on ops (MongoDB's and TiDB's forms, EDN and JSON) give the
//! same; bad order files are diagnostics (exit 3); the MongoDB histories of
//! the shared corpus keep their recorded verdict, also with their
//! timestamps checked (`--check-timestamps`), which names what timestamps
//! contradict on hand-written histories.

mod common;

use common::run::isocheck;
use common::skip::corpus_dir;
use std::path::PathBuf;

fn fixture(name: &str) -> String {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/transaction-order");
    dir.join(name).display().to_string()
}

/// The EDN result map of `check -m serializable` with `extra` arguments.
fn result(history: &str, extra: &[&str]) -> (Option<i32>, String) {
    let file = fixture(history);
    let mut args = vec!["check", "-m", "serializable", "--format", "edn", &file];
    args.extend(extra);
    let out = isocheck(&args);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// Elle's "G-single transaction-order": T2 committed before T1.
const G_SINGLE: &str = ":anomaly-types [:G-single-item]";
const G_SINGLE_STEPS: &str = ":steps [{:type :rw, :key :x, :value nil, :value' 3, \
     :a-mop-index 0, :b-mop-index 0} {:type :ww, :key :y, :value 4, :value' 2, \
     :a-mop-index 1, :b-mop-index 1}]";
const G_SINGLE_NOT: &str = ":not #{:consistent-view :repeatable-read}";

#[test]
fn without_the_order_elles_cases_are_valid() {
    for h in ["g-single.edn", "g2-item.edn", "g-single-timestamps.edn"] {
        assert_eq!(result(h, &[]), (Some(0), "{:valid? true}\n".into()), "{h}");
    }
}

#[test]
fn g_single_from_the_order_as_elle_finds_it() {
    for order in ["g-single.order.edn", "g-single.order.json"] {
        let (status, out) = result("g-single.edn", &["--transaction-order", &fixture(order)]);
        assert_eq!(status, Some(1), "{order}: {out}");
        for want in [G_SINGLE, G_SINGLE_STEPS, G_SINGLE_NOT] {
            assert!(out.contains(want), "{order}: {want} not in {out}");
        }
    }
}

#[test]
fn g2_item_from_the_order_as_elle_finds_it() {
    let order = fixture("g2-item.order.edn");
    let (status, out) = result("g2-item.edn", &["--transaction-order", &order]);
    assert_eq!(status, Some(1), "{out}");
    let steps = ":steps [{:type :rw, :key :x, :value 1, :value' 4, :a-mop-index 0, \
         :b-mop-index 1} {:type :rw, :key :z, :value 3, :value' 7, :a-mop-index 0, \
         :b-mop-index 0} {:type :ww, :key :y, :value 8, :value' 5, :a-mop-index 1, \
         :b-mop-index 1}]";
    for want in [
        ":anomaly-types [:G2-item]",
        steps,
        ":not #{:repeatable-read}",
    ] {
        assert!(out.contains(want), "{want} not in {out}");
    }
}

#[test]
fn commit_timestamps_on_ops_are_the_order() {
    for h in [
        "g-single-timestamps.edn",
        "g-single-txn-info.edn",
        "g-single-timestamps.json",
    ] {
        let (status, out) = result(h, &["--transaction-order", "timestamps"]);
        assert_eq!(status, Some(1), "{h}: {out}");
        for want in [G_SINGLE, G_SINGLE_NOT] {
            assert!(out.contains(want), "{h}: {want} not in {out}");
        }
    }
}

/// A writer the order does not name, or names at a position it shares,
/// stays unordered (Elle would put an unnamed one first: G1c here).
#[test]
fn writers_the_order_leaves_out_or_ties_stay_unordered() {
    for order in ["unnamed-writer.order.edn", "tied-writers.order.edn"] {
        let order = fixture(order);
        let got = result("unnamed-writer.edn", &["--transaction-order", &order]);
        assert_eq!(got, (Some(0), "{:valid? true}\n".into()), "{order}");
    }
}

/// `--check-timestamps`: what the ops' timestamps contradict, by model.
#[test]
fn check_timestamps_names_what_the_timestamps_contradict() {
    let cases = [
        (
            "g-single-timestamps.edn",
            "snapshot-isolation",
            "[:timestamp-lost-update]",
        ),
        (
            "g-single-txn-info.edn",
            "snapshot-isolation",
            "[:timestamp-lost-update]",
        ),
        (
            "g-single-timestamps.json",
            "snapshot-isolation",
            "[:timestamp-lost-update]",
        ),
        // Serializability reads in commit order; it asks for no snapshot
        // check (a serializable database need not read from its start).
        (
            "g-single-timestamps.edn",
            "serializable",
            "[:timestamp-serial-read]",
        ),
        (
            "g-single-timestamps.edn",
            "strict-serializable",
            "[:timestamp-serial-read]",
        ),
        (
            "timestamps-snapshot-read.edn",
            "snapshot-isolation",
            "[:timestamp-snapshot-read]",
        ),
        (
            "timestamps-snapshot-read.edn",
            "serializable",
            "[:timestamp-serial-read]",
        ),
        (
            "timestamps-snapshot-read.edn",
            "serializable,snapshot-isolation",
            "[:timestamp-serial-read :timestamp-snapshot-read]",
        ),
        (
            "timestamps-inverted.edn",
            "read-committed",
            "[:timestamp-inverted]",
        ),
    ];
    for (history, model, types) in cases {
        let file = fixture(history);
        let args = [
            "check",
            "-m",
            model,
            "--format",
            "edn",
            "--check-timestamps",
            &file,
        ];
        let out = isocheck(&args);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{history} {model}: {stdout}");
        let want = format!(":anomaly-types {types}");
        assert!(
            stdout.contains(&want),
            "{history} {model}: {want} not in {stdout}"
        );
        // Without the flag, the black box alone: these are all valid.
        let plain = isocheck(&["check", "-m", model, "--format", "edn", &file]);
        assert_eq!(
            plain.status.code(),
            Some(0),
            "{history} {model} without the flag"
        );
    }
}

/// Each bad order is a diagnostic naming what is wrong, exit status 3.
#[test]
fn bad_orders_are_diagnostics() {
    let dir = common::run::scratch("transaction-order");
    let cases = [
        ("{0 2, 7 1}", "no transaction of"),
        ("{0 :a}", "a position is an integer"),
        ("[0 1]", "a transaction order is one map"),
        ("{\"0\": 2,", "not valid JSON"),
        ("{0 1", "isocheck::syntax"),
    ];
    for (i, (text, want)) in cases.iter().enumerate() {
        let file = dir.join(format!("order-{i}"));
        std::fs::write(&file, text).expect("write the order");
        let file = file.display().to_string();
        let history = fixture("g-single.edn");
        let out = isocheck(&["check", &history, "--transaction-order", &file]);
        let err = common::run::stderr(&out);
        assert_eq!(out.status.code(), Some(3), "{text}: {err}");
        assert!(err.contains(want), "{text}: {want} not in {err}");
    }
    let history = fixture("g-single.edn");
    let out = isocheck(&["check", &history, "--transaction-order", "timestamps"]);
    assert_eq!(out.status.code(), Some(3));
    assert!(common::run::stderr(&out).contains("no op carries a commit timestamp"));
    let list_append = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/check/valid.edn");
    let out = isocheck(&[
        "check",
        &list_append.display().to_string(),
        "--transaction-order",
        "timestamps",
    ]);
    assert_eq!(out.status.code(), Some(3));
    assert!(common::run::stderr(&out).contains("a list-append history"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// MongoDB's Jepsen histories carry `:start-timestamp` and
/// `:commit-timestamp`; results.edn records them valid, and they stay
/// valid under snapshot isolation with the order they report.
#[test]
fn mongodb_histories_keep_their_verdict_with_their_timestamps() {
    let Some(corpus) = corpus_dir() else { return };
    let data = corpus.join("MongoDB-SI-Checker/src/main/resources/data-1022");
    for run in ["0", "1", "2", "3", "4"] {
        let history = data.join(run).join("history.edn");
        let results = std::fs::read_to_string(data.join(run).join("results.edn"));
        assert!(
            results.is_ok_and(|r| r.trim_end().ends_with(":valid? true}")),
            "{run}: results.edn records valid"
        );
        let history = history.display().to_string();
        let out = isocheck(&[
            "check",
            "-m",
            "snapshot-isolation",
            "--format",
            "edn",
            "--transaction-order",
            "timestamps",
            &history,
        ]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{run}: {stdout}");
        assert_eq!(stdout, "{:valid? true}\n", "{run}");
    }
}
