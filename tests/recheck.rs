//! `isocheck recheck` on stores built from fixtures, and on the Jepsen runs
//! of the shared corpus against the verdicts they recorded.

mod common;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn recheck(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_isocheck"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("recheck")
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run isocheck")
}

fn json_rows(o: &Output) -> Vec<Value> {
    let text = String::from_utf8_lossy(&o.stdout);
    match serde_json::from_str(&text) {
        Ok(Value::Array(rows)) => rows,
        _ => panic!(
            "not a JSON array: {text}\nstderr: {}",
            String::from_utf8_lossy(&o.stderr)
        ),
    }
}

/// `(run, recorded valid?, our valid?, agreement)` per row.
fn summary(rows: &[Value]) -> Vec<(String, String, String, String)> {
    let s = |v: &Value| v.as_str().unwrap_or("-").to_string();
    rows.iter()
        .map(|r| {
            (
                s(&r["run"]),
                s(&r["recorded"]["valid"]),
                s(&r["ours"]["valid"]),
                s(&r["agreement"]),
            )
        })
        .collect()
}

/// A scratch store, removed when dropped.
struct Store(PathBuf);

impl Store {
    fn new(name: &str) -> Store {
        let dir =
            std::env::temp_dir().join(format!("isocheck-recheck-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        Store(dir)
    }

    /// A run directory with `history.edn` copied from a fixture and the
    /// given `results.edn` / `test.edn` texts.
    fn run(&self, name: &str, fixture: &str, results: Option<&str>, test: Option<&str>) -> PathBuf {
        let dir = self.0.join(name);
        std::fs::create_dir_all(&dir).expect("run dir");
        let from = Path::new(env!("CARGO_MANIFEST_DIR")).join(fixture);
        std::fs::copy(from, dir.join("history.edn")).expect("copy fixture");
        for (file, text) in [("results.edn", results), ("test.edn", test)] {
            if let Some(text) = text {
                std::fs::write(dir.join(file), text).expect("write");
            }
        }
        dir
    }

    fn path(&self) -> &str {
        self.0.to_str().expect("utf-8 temp dir")
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const VALID: &str = "{:perf {:valid? true} :workload {:valid? true} :valid? true}";

#[test]
fn agreement_disagreement_and_recorded_options() {
    let store = Store::new("mixed");
    let valid = store.run("t/valid", "fixtures/check/valid.edn", Some(VALID), None);
    store.run(
        "t/g2-claimed-valid",
        "fixtures/check/g2-item.edn",
        Some(VALID),
        None,
    );
    // The same history, checked under the model its test recorded: valid.
    store.run(
        "t/g2-under-si",
        "fixtures/check/g2-item.edn",
        Some(VALID),
        Some("{:name \"t\" :workload :append :consistency-models [:snapshot-isolation]}"),
    );
    store.run("t/no-results", "fixtures/check/g0.edn", None, None);
    #[cfg(unix)]
    std::os::unix::fs::symlink(&valid, store.0.join("latest")).expect("symlink");

    let o = recheck(&["--format", "json", store.path()]);
    assert_eq!(o.status.code(), Some(1), "a disagreement exits 1");
    let rows = json_rows(&o);
    let want = [
        ("t/g2-claimed-valid", "true", "false", "no"),
        ("t/g2-under-si", "true", "true", "yes"),
        ("t/no-results", "-", "false", "not-compared"),
        ("t/valid", "true", "true", "yes"),
    ];
    let want: Vec<_> = want
        .iter()
        .map(|(a, b, c, d)| (a.to_string(), b.to_string(), c.to_string(), d.to_string()))
        .collect();
    assert_eq!(summary(&rows), want);
    assert_eq!(rows[0]["ours"]["anomaly_types"][0], "G2-item");
    assert_eq!(rows[1]["workload"], "append");
    assert_eq!(rows[1]["consistency_models"][0], "snapshot-isolation");
    assert_eq!(rows[0]["consistency_models"][0], "strict-serializable");
}

#[test]
fn flags_apply_where_the_run_recorded_nothing() {
    let store = Store::new("flags");
    store.run("r", "fixtures/check/g2-item.edn", Some(VALID), None);
    let o = recheck(&["-m", "snapshot-isolation", store.path()]);
    assert_eq!(o.status.code(), Some(0));
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(table.starts_with("run "), "{table}");
    assert!(
        table.contains("1 runs, 1 with a recorded verdict: 1 agree, 0 disagree"),
        "{table}"
    );
}

#[test]
fn unreadable_files_are_reported_per_run() {
    let store = Store::new("broken");
    let dir = store.run("bad-history", "fixtures/check/valid.edn", Some(VALID), None);
    std::fs::write(dir.join("history.edn"), "{:type :ok, :f :txn").expect("write");
    store.run(
        "bad-results",
        "fixtures/check/valid.edn",
        Some("{:valid? "),
        None,
    );
    store.run(
        "bad-test",
        "fixtures/check/valid.edn",
        Some(VALID),
        Some("{:consistency-models [:nonsense]}"),
    );
    let o = recheck(&[store.path()]);
    let table = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(3), "{table}");
    assert!(table.contains("note: bad-history: "), "{table}");
    assert!(
        table.contains("note: bad-results: ") && table.contains("results.edn is not EDN"),
        "{table}"
    );
    assert!(
        table.contains("unknown consistency model `nonsense` (recorded in test.edn)"),
        "{table}"
    );
    assert!(table.contains("2 not checked"), "{table}");
}

#[test]
fn an_empty_store_is_a_usage_error() {
    let store = Store::new("empty");
    let o = recheck(&[store.path()]);
    assert_eq!(o.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no history.edn under"));
    let o = recheck(&["/nonexistent/isocheck-store"]);
    assert_eq!(o.status.code(), Some(3));
}

/// GRAIL's ArangoDB runs: Elle's recorded verdicts, which isocheck matches
/// on the version orders Elle sees, and the seven rw-register runs where
/// the solver finds that no version order avoids a G2-item cycle.
#[test]
fn grail_runs_against_their_recorded_verdicts() {
    let Some(corpus) = common::corpus_dir() else {
        return;
    };
    let dir = corpus.join("GRAIL-artifact");
    let dir = dir.to_str().expect("utf-8 path");
    let o = recheck(&["--certain-only", "--format", "json", dir]);
    let rows = json_rows(&o);
    assert_eq!(rows.len(), 40);
    assert_eq!(o.status.code(), Some(0), "{:?}", summary(&rows));
    assert!(rows.iter().all(|r| r["agreement"] == "yes"));

    let o = recheck(&["--format", "json", dir]);
    let rows = json_rows(&o);
    assert_eq!(o.status.code(), Some(1));
    let disagree: Vec<String> = summary(&rows)
        .into_iter()
        .filter(|r| r.3 != "yes")
        .map(|r| format!("{} {} {} {}", r.0, r.1, r.2, r.3))
        .collect();
    let stamps = [
        "124640.891",
        "124905.164",
        "125013.203",
        "125131.506",
        "125300.089",
        "131658.520",
        "132725.317",
    ];
    let want: Vec<String> = stamps
        .iter()
        .map(|s| format!("example-histories/rw-register/20230411T{s}+0200 true false no"))
        .collect();
    assert_eq!(disagree, want);
    for r in rows.iter().filter(|r| r["agreement"] == "no") {
        assert_eq!(r["ours"]["anomaly_types"], serde_json::json!(["G2-item"]));
    }
}

/// Register histories are checked for linearizability, beside Knossos's
/// recorded `:linear` result.
#[test]
fn register_runs_against_knossos_results() {
    let store = Store::new("lwt");
    let linear = |valid: bool| format!("{{:linear {{:valid? {valid}}} :valid? {valid}}}");
    store.run("valid", "fixtures/lwt/valid.edn", Some(&linear(true)), None);
    store.run(
        "realtime",
        "fixtures/lwt/realtime.edn",
        Some(&linear(true)),
        None,
    );
    let o = recheck(&["--format", "json", store.path()]);
    let rows = json_rows(&o);
    let want = [
        ("realtime", "true", "false", "no"),
        ("valid", "true", "true", "yes"),
    ];
    let want: Vec<_> = want
        .iter()
        .map(|(a, b, c, d)| (a.to_string(), b.to_string(), c.to_string(), d.to_string()))
        .collect();
    assert_eq!(summary(&rows), want);
    assert_eq!(rows[0]["workload"], "cas-register");
    assert_eq!(rows[0]["ours"]["anomaly_types"][0], "nonlinearizable");
}
