//! Chronos's JSON histories (`fixtures/chronos/`): detected from their
//! content, read with each transaction's start and commit timestamps, which
//! `--check-timestamps` and `--transaction-order timestamps` take as they
//! take MongoDB's; the black box reads the same transactions.

mod common;

use common::run::isocheck;
use isocheck::history::{self, commit_order::Stamp, Format, LoadOptions, MopKind, MopValue};
use std::path::PathBuf;

fn fixture(name: &str) -> String {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/chronos");
    dir.join(name).display().to_string()
}

/// Exit status and EDN result map of `check` on a fixture with `args`.
fn check(name: &str, args: &[&str]) -> (Option<i32>, String) {
    let file = fixture(name);
    let all = [&["check", "--format", "edn"][..], args, &[file.as_str()]].concat();
    let o = isocheck(&all);
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
    )
}

#[test]
fn a_chronos_history_is_read_with_its_sessions_and_timestamps() {
    let path = PathBuf::from(fixture("valid.json"));
    let input = history::Input::read(&path, None).expect("reads");
    assert_eq!(input.format, Format::Chronos);
    let h = input.parse(None).expect("parses");
    assert_eq!(h.txns.len(), 3);
    assert_eq!(h.workload, history::Workload::RwRegister);
    let stamp = |start, commit| {
        Some(Stamp {
            start: Some(start),
            commit,
        })
    };
    assert_eq!(h.stamps, [stamp(1, 2), stamp(2, 3), stamp(3, 4)]);
    // Transactions 1 and 3 are session 0's, in file order.
    let process = |t: usize| h.op(h.txns[t].op()).process;
    assert_eq!(process(0), process(2));
    assert_ne!(process(0), process(1));
    let o = isocheck(&["stats", &fixture("valid.json")]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("chronos"));
}

#[test]
fn a_correct_history_s_timestamps_contradict_nothing() {
    for args in [
        &[][..],
        &["--check-timestamps", "-m", "snapshot-isolation"],
        &["--check-timestamps", "-m", "serializable"],
        &["--transaction-order", "timestamps", "-m", "serializable"],
    ] {
        assert_eq!(
            check("valid.json", args),
            (Some(0), "{:valid? true}\n".into()),
            "{args:?}"
        );
    }
}

/// Elle's "G-single transaction-order", with Chronos's string ids.
#[test]
fn the_timestamps_order_what_the_reads_leave_open() {
    assert_eq!(
        check("g-single.json", &[]),
        (Some(0), "{:valid? true}\n".into())
    );
    let (status, out) = check("g-single.json", &["--transaction-order", "timestamps"]);
    assert_eq!(status, Some(1), "{out}");
    assert!(out.contains(":anomaly-types [:G-single-item]"), "{out}");
    let (status, out) = check(
        "g-single.json",
        &["--check-timestamps", "-m", "snapshot-isolation"],
    );
    assert_eq!(status, Some(1), "{out}");
    assert!(
        out.contains(":anomaly-types [:timestamp-lost-update]"),
        "{out}"
    );
    // The ops print as EDN rebuilt from the transactions, not as JSON.
    assert!(
        out.contains(":first {:index 1, :type :ok, :process 1,"),
        "{out}"
    );
}

/// Start `(5, 1)` before the commit `(5, 2)` it read: only the logical
/// parts of the clocks say so.
#[test]
fn logical_clock_parts_order_the_timestamps() {
    assert_eq!(
        check("stale-start-hlc.json", &[]),
        (Some(0), "{:valid? true}\n".into())
    );
    let (status, out) = check(
        "stale-start-hlc.json",
        &["--check-timestamps", "-m", "snapshot-isolation"],
    );
    assert_eq!(status, Some(1), "{out}");
    assert!(
        out.contains(":anomaly-types [:timestamp-snapshot-read]"),
        "{out}"
    );
}

#[test]
fn the_format_can_be_named_and_other_json_is_not_taken_for_it() {
    let o = isocheck(&["stats", "--input-format", "chronos", &fixture("valid.json")]);
    assert_eq!(o.status.code(), Some(0));
    let text =
        "[{\"type\": \"ok\", \"process\": 0, \"f\": \"txn\", \"value\": [[\"r\", 1, null]]}]";
    let dir = common::run::scratch("chronos-elle-cli");
    let path = dir.join("h.json");
    std::fs::write(&path, text).expect("write");
    let h = history::load(&path, &LoadOptions::default());
    assert!(h.is_ok_and(|h| h.stamps.is_empty()));
    let o = isocheck(&[
        "stats",
        "--input-format",
        "chronos",
        path.to_str().expect("utf-8"),
    ]);
    assert_eq!(o.status.code(), Some(3));
    let _ = std::fs::remove_dir_all(dir);
}

/// The list format: appends and list reads, `null` and no `v` the empty
/// list.
#[test]
fn the_list_format_is_a_list_append_history() {
    let h = history::load(
        &PathBuf::from(fixture("list.json")),
        &LoadOptions::default(),
    )
    .expect("reads");
    assert_eq!(h.workload, history::Workload::ListAppend);
    let read_lengths: Vec<u32> = (h.mops.iter())
        .filter(|m| m.kind == MopKind::Read)
        .map(|m| match m.value() {
            MopValue::List { len, .. } => len,
            MopValue::Val(_) => u32::MAX,
        })
        .collect();
    assert_eq!(read_lengths, [0, 1, 0, 2]);
    assert_eq!(
        check("list.json", &[]),
        (Some(0), "{:valid? true}\n".into())
    );
}
