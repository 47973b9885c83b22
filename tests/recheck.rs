//! `isocheck recheck` on stores built from fixtures, and on the Jepsen runs
//! of the shared corpus against the verdicts they recorded.

mod common;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn recheck(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_isocheck"))
        .env("ISOCHECK_PROGRESS", "off")
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

/// `(run, recorded valid?, our valid?, agreement)` per row; `:valid?` is
/// a boolean, or `"unknown"`, as in `check --format json`.
fn summary(rows: &[Value]) -> Vec<(String, String, String, String)> {
    let s = |v: &Value| match v {
        Value::Bool(b) => b.to_string(),
        Value::String(x) if x != "true" && x != "false" => x.clone(),
        Value::Null => "-".to_string(),
        other => panic!("not a boolean nor \"unknown\": {other}"),
    };
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
    // Checked for the default model, as its run recorded none.
    assert_eq!(
        rows[0]["reason"],
        "options differ: the run did not record its :consistency-models, and was checked \
         here for strict-serializable; give the run's models with -m"
    );
    assert!(rows
        .iter()
        .all(|r| r["agreement"] == "no" || r["reason"].is_null()));
    assert_eq!(rows[1]["workload"], "append");
    assert_eq!(rows[1]["consistency_models"][0], "snapshot-isolation");
    assert_eq!(rows[0]["consistency_models"][0], "strict-serializable");
}

/// `--html`: the table as a page, each checked run linking to its own
/// report, a disagreement marked; the JSON rows are the same as without it.
#[test]
fn the_table_as_a_page_links_each_run_to_its_report() {
    let store = Store::new("html");
    store.run("t/valid", "fixtures/check/valid.edn", Some(VALID), None);
    store.run("t/g2", "fixtures/check/g2-item.edn", Some(VALID), None);
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("recheck-html");
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).expect("scratch directory");
    let page = out.join("table.html");
    let o = recheck(&[
        "--format",
        "json",
        "--html",
        page.to_str().unwrap(),
        store.path(),
    ]);
    assert_eq!(o.status.code(), Some(1), "a disagreement exits 1");
    assert_eq!(json_rows(&o).len(), 2);
    let html = std::fs::read_to_string(&page).expect("the table's page");
    assert_eq!(html.matches("<tr class=").count(), 2, "{html}");
    assert!(
        html.contains("<tr class=\"disagree\"><td class=\"run\"><a href=\"./table-runs/"),
        "{html}"
    );
    assert!(
        html.contains("<tr class=\"agree\"><td class=\"run\"><a href=\"./table-runs/"),
        "{html}"
    );
    assert!(html.contains("2 runs, 2 with a recorded verdict"), "{html}");
    // The summary and the filter come before the table.
    let at = |s: &str| html.find(s).unwrap_or_else(|| panic!("no {s} in {html}"));
    assert!(at("<p class=\"summary\">2 runs, 2 with") < at("<table class=\"runs\">"));
    assert!(at("id=\"disagreements-only\"") < at("<table class=\"runs\">"));
    assert!(
        html.contains("<td class=\"reason\">options differ: "),
        "{html}"
    );
    let reports: Vec<String> = html
        .split("<a href=\"")
        .skip(1)
        .map(|s| s.split('"').next().unwrap().to_string())
        .collect();
    assert_eq!(reports.len(), 2, "{html}");
    let pages: Vec<String> = reports
        .iter()
        .map(|r| std::fs::read_to_string(out.join(r)).expect("a run's report"))
        .collect();
    assert!(pages
        .iter()
        .any(|p| p.contains("data-valid=\"invalid\"") && p.contains("G2-item #0")));
    assert!(pages.iter().any(|p| p.contains("data-valid=\"valid\"")));
    // A page named like a script URL links its runs by relative, encoded
    // addresses all the same (issue 32).
    let hostile = out.join("javascript:alert(1).html");
    recheck(&[
        "--format",
        "json",
        "--html",
        hostile.to_str().unwrap(),
        store.path(),
    ]);
    let html = std::fs::read_to_string(&hostile).expect("the table's page");
    assert_eq!(
        html.matches("<a href=\"./javascript%3Aalert%281%29-runs/")
            .count(),
        2,
        "{html}"
    );
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

/// Issue 34: every difference from the recorded verdict has a reason,
/// found by checking again with one of Elle's limits put back, or read
/// from the options; the anomaly types count as well as `:valid?`.
#[test]
fn each_difference_has_its_reason() {
    let store = Store::new("reasons");
    let si = Some("{:consistency-models [:serializable]}");
    // A cycle only some order of blind writes closes (Elle's view: valid).
    store.run("forced", "fixtures/check/rw-forced.edn", Some(VALID), si);
    // A read of a value nobody wrote, which Elle does not look for.
    store.run(
        "garbage",
        "fixtures/verdicts/garbage-read.edn",
        Some(VALID),
        Some("{:consistency-models [:strict-serializable]}"),
    );
    // Recorded invalid for an anomaly the recorded models allow here.
    let g2 = "{:workload {:valid? false :anomaly-types [:G2-item] :not #{:serializable}} \
              :valid? false}";
    store.run(
        "other-models",
        "fixtures/check/valid.edn",
        Some(g2),
        Some("{:consistency-models [:snapshot-isolation]}"),
    );
    // Invalid on both sides, for other anomalies.
    let g0 = "{:workload {:valid? false :anomaly-types [:G0] :not #{:read-uncommitted}} \
              :valid? false}";
    store.run("types", "fixtures/check/g2-item.edn", Some(g0), si);
    // The same verdict with the same options: no reason.
    store.run("same", "fixtures/check/g2-item.edn", Some(g2), si);
    // A model isocheck decides by its axioms and Elle's lattice does not.
    store.run(
        "axioms",
        "fixtures/check/g1c.edn",
        Some(VALID),
        Some("{:consistency-models [:causal-cerone]}"),
    );
    let o = recheck(&["--format", "json", store.path()]);
    assert_eq!(o.status.code(), Some(1), "a disagreement exits 1");
    let rows = json_rows(&o);
    let seen: Vec<String> = rows
        .iter()
        .map(|r| {
            let valid = |v: &Value| v.to_string();
            format!(
                "{} {} {} {}: {}",
                r["run"].as_str().unwrap_or("?"),
                valid(&r["recorded"]["valid"]),
                valid(&r["ours"]["valid"]),
                r["agreement"].as_str().unwrap_or("?"),
                r["reason"].as_str().unwrap_or("-")
            )
        })
        .collect();
    insta::assert_snapshot!("recheck_reasons", seen.join("\n"));
    // Rows are JSON booleans, not strings, as `check --format json`.
    assert_eq!(rows[0]["recorded"]["valid"], Value::Bool(true), "{rows:?}");
    // The table for people has the reason as its last column.
    let o = recheck(&["-j", "1", store.path()]);
    let table = String::from_utf8_lossy(&o.stdout);
    let header = table.lines().next().unwrap_or_default();
    assert!(header.ends_with("  time  reason"), "{table}");
    let garbage = table
        .lines()
        .find(|l| l.starts_with("garbage "))
        .unwrap_or_default();
    assert!(
        garbage.ends_with("(isocheck --elle-compat agrees)"),
        "{table}"
    );
    assert!(
        table.contains("1 agree, 4 disagree, 0 undecided, 1 with other anomaly types;"),
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
        assert_eq!(
            r["reason"],
            "unknown write orders: isocheck's G2-item exists only over orders of writes the \
             history leaves open, which Elle does not search (isocheck --certain-only agrees)"
        );
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

/// Issue 23 item 11: a walk error or a check that dies is one row; the
/// other rows are still printed.
#[cfg(unix)]
mod resilience {
    use super::*;

    /// A name of 100 bytes: 45 of them nested pass PATH_MAX (4096).
    const LONG: &str =
        "d123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789";

    /// Builds `dir/LONG/LONG/.../history.edn`, 45 deep, one relative `cd` at a
    /// time (no single path given to the kernel is longer than PATH_MAX).
    fn nest_past_path_max(dir: &Path) {
        let script = format!(
            "for i in $(seq 45); do mkdir {LONG} && cd -P {LONG} || exit 1; done; \
             echo '{{:type :invoke, :f :txn, :value [[:r 1 nil]], :process 0}}' > history.edn"
        );
        let status = Command::new("sh")
            .arg("-c")
            .arg(script)
            .current_dir(dir)
            .status()
            .expect("run sh");
        assert!(status.success());
    }

    #[test]
    fn a_directory_past_path_max_is_a_row_and_the_walk_goes_on() {
        let store = Store::new("path-max");
        store.run("a-good", "fixtures/check/valid.edn", Some(VALID), None);
        std::fs::create_dir_all(store.0.join("deep")).expect("mkdir");
        nest_past_path_max(&store.0.join("deep"));
        store.run("z-good", "fixtures/check/g0.edn", None, None);

        let o = recheck(&["--format", "json", store.path()]);
        assert_eq!(o.status.code(), Some(3), "a run not checked exits 3");
        let rows = json_rows(&o);
        let names: Vec<&str> = rows.iter().filter_map(|r| r["run"].as_str()).collect();
        assert_eq!(names.len(), 3, "{names:?}");
        let deep = names[0];
        assert!(deep.starts_with(&format!("deep/{LONG}/")), "{deep}");
        assert!(deep.len() > 4096 - store.path().len() - 1, "{}", deep.len());
        assert_eq!(
            rows[0]["notes"][0],
            "cannot read this directory: File name too long (os error 36)"
        );
        assert_eq!(rows[0]["ours"], Value::Null);
        assert_eq!(&names[1..], ["a-good", "z-good"]);
        assert_eq!(rows[1]["agreement"], "yes");
        assert_eq!(rows[2]["ours"]["valid"], false);

        let o = recheck(&[store.path()]);
        let table = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(3), "{table}");
        assert!(
            table.contains(&format!("note: {deep}: cannot read this directory")),
            "{table}"
        );
        assert!(
            table.contains("3 runs, 1 with a recorded verdict: 1 agree"),
            "{table}"
        );
    }

    /// A history whose check needs far more memory than its size: one
    /// 12 MB vector of zeros in a nemesis op's `:value`.
    fn memory_hungry_history(path: &Path) {
        let mut text = String::from("{:type :invoke, :f :start, :process :nemesis, :value [");
        text.push_str(&"0 ".repeat(6_000_000));
        text.push_str("]}\n");
        std::fs::write(path, text).expect("write history");
    }

    /// `recheck` on `store` under the shell limit `ulimit` (inherited by the
    /// child checks), as a human table: the exit status and each row's words.
    fn recheck_limited(ulimit: &str, store: &Store) -> (Option<i32>, String) {
        let o = Command::new("sh")
            .arg("-c")
            .arg(format!(
                "ulimit {ulimit} && exec \"$0\" recheck -j 2 \"$1\""
            ))
            .arg(env!("CARGO_BIN_EXE_isocheck"))
            .arg(store.path())
            .env("NO_COLOR", "1")
            .output()
            .expect("run isocheck");
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
        )
    }

    /// The words of `run`'s row of `table`.
    fn row<'t>(table: &'t str, run: &str) -> Vec<&'t str> {
        table
            .lines()
            .find(|l| l.starts_with(&format!("{run} ")))
            .unwrap_or_else(|| panic!("no row for {run}:\n{table}"))
            .split_whitespace()
            .collect()
    }

    /// Under a 200 MB address-space limit the hungry history's check runs
    /// out of memory: its row is unknown with the reason and the stage, and
    /// the small runs before and after it are still checked and printed.
    #[test]
    fn a_check_out_of_memory_is_an_unknown_row_and_the_other_rows_remain() {
        let store = Store::new("oom");
        store.run("a-good", "fixtures/check/valid.edn", Some(VALID), None);
        let hungry = store.run("m-hungry", "fixtures/check/valid.edn", Some(VALID), None);
        memory_hungry_history(&hungry.join("history.edn"));
        store.run("z-good", "fixtures/check/g0.edn", None, None);

        let (code, table) = recheck_limited("-v 200000", &store);
        assert_eq!(code, Some(2), "an undecided comparison exits 2:\n{table}");
        assert_eq!(
            row(&table, "a-good")[1..6],
            ["list-append", "flags", "true", "true", "yes"]
        );
        assert_eq!(
            row(&table, "m-hungry")[1..6],
            ["-", "flags", "true", "unknown", "memory-limit"]
        );
        assert_eq!(
            row(&table, "z-good")[1..5],
            ["list-append", "flags", "-", "false"]
        );
        assert!(
            table.contains("3 runs, 2 with a recorded verdict: 1 agree, 0 disagree, 1 undecided"),
            "{table}"
        );
    }

    /// A check killed by the system (here its one second of CPU, `ulimit
    /// -t`, ends a check of a history far too big for it) is a row whose
    /// note says how; the other rows are still checked and printed.
    #[test]
    fn a_check_that_is_killed_is_a_row_and_the_other_rows_remain() {
        let store = Store::new("killed");
        store.run("a-good", "fixtures/check/valid.edn", Some(VALID), None);
        let big = store.run("m-big", "fixtures/check/valid.edn", Some(VALID), None);
        let gen = Command::new(env!("CARGO_BIN_EXE_isocheck"))
            .env("ISOCHECK_PROGRESS", "off")
            .args([
                "gen",
                "list-append",
                "--txns",
                "200000",
                "--seed",
                "1",
                "-o",
            ])
            .arg(big.join("history.edn"))
            .output()
            .expect("run isocheck gen");
        assert!(
            gen.status.success(),
            "{}",
            String::from_utf8_lossy(&gen.stderr)
        );
        store.run("z-good", "fixtures/check/g0.edn", None, None);

        let (code, table) = recheck_limited("-t 1", &store);
        assert_eq!(code, Some(3), "a run not checked exits 3:\n{table}");
        assert_eq!(
            row(&table, "a-good")[1..6],
            ["list-append", "flags", "true", "true", "yes"]
        );
        assert_eq!(
            row(&table, "m-big")[1..6],
            ["-", "flags", "true", "error", "-"]
        );
        assert_eq!(
            row(&table, "z-good")[1..5],
            ["list-append", "flags", "-", "false"]
        );
        for want in [
            "note: m-big: the check of this history was killed",
            "3 runs, 1 with a recorded verdict: 1 agree",
            "; 1 not checked",
        ] {
            assert!(table.contains(want), "{want} not in\n{table}");
        }
    }

    /// Rows come out as they finish, before the notes and the summary: the
    /// header first, then one line per run, then the notes.
    #[test]
    fn the_table_is_header_rows_then_notes_and_summary() {
        let store = Store::new("stream");
        store.run("a", "fixtures/check/valid.edn", Some("{:valid? "), None);
        store.run("b", "fixtures/check/g0.edn", None, None);
        let o = recheck(&["-j", "1", store.path()]);
        let table = String::from_utf8_lossy(&o.stdout);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 5, "{table}");
        assert!(lines[0].starts_with("run  "), "{table}");
        assert!(lines[1].starts_with("a    list-append"), "{table}");
        assert!(lines[2].starts_with("b    list-append"), "{table}");
        assert!(lines[3].starts_with("note: a: "), "{table}");
        assert!(
            lines[4].starts_with("2 runs, 0 with a recorded verdict"),
            "{table}"
        );
    }
}

/// Runs of Jepsen's standard checkers: the workload named in `test.edn`
/// decides the check (long-fork's history would otherwise be read as
/// rw-register transactions), the test's `:total-amount` holds, and the
/// checker's own result map in `results.edn` is what we compare with.
#[test]
fn checker_runs_against_their_recorded_results() {
    let store = Store::new("checkers");
    let bank = |valid: bool, errors: usize| {
        format!(
            "{{:perf {{:valid? true}} :workload {{:SI {{:valid? {valid} :read-count 6 \
             :error-count {errors} :first-error nil :errors {{}}}} :plot {{:valid? true}} \
             :valid? {valid}}} :valid? {valid}}}"
        )
    };
    let bank_test = "{:name \"bank\" :workload :bank :total-amount 30 :accounts [0 1 2]}";
    store.run(
        "bank/invalid",
        "fixtures/jepsen/bank-invalid.edn",
        Some(&bank(false, 5)),
        Some(bank_test),
    );
    store.run(
        "bank/claimed-valid",
        "fixtures/jepsen/bank-invalid.edn",
        Some(&bank(true, 0)),
        Some(bank_test),
    );
    // Held to the test's total (29), the valid history's reads are wrong.
    store.run(
        "bank/other-total",
        "fixtures/jepsen/bank-valid.edn",
        Some(&bank(false, 3)),
        Some("{:workload :bank :total-amount 29}"),
    );
    store.run(
        "long-fork/invalid",
        "fixtures/jepsen/long-fork-invalid.edn",
        Some(
            "{:workload {:reads-count 3 :early-read-count 0 :late-read-count 1 \
             :valid? false :forks []} :valid? false}",
        ),
        Some("{:workload :long-fork}"),
    );
    store.run(
        "set-full/invalid",
        "fixtures/jepsen/set-full-invalid.edn",
        Some("{:workload {:valid? false :attempt-count 4 :stable-count 2 :lost-count 1}}"),
        Some("{:workload :set-full}"),
    );
    let o = recheck(&["--format", "json", store.path()]);
    let rows = json_rows(&o);
    let want = [
        ("bank/claimed-valid", "true", "false", "no"),
        ("bank/invalid", "false", "false", "yes"),
        ("bank/other-total", "false", "false", "yes"),
        ("long-fork/invalid", "false", "false", "yes"),
        ("set-full/invalid", "false", "false", "yes"),
    ];
    let want: Vec<_> = want
        .iter()
        .map(|(a, b, c, d)| (a.to_string(), b.to_string(), c.to_string(), d.to_string()))
        .collect();
    assert_eq!(summary(&rows), want, "{rows:?}");
    assert_eq!(o.status.code(), Some(1), "a disagreement exits 1");
    assert_eq!(rows[3]["ours"]["anomaly_types"][0], "long-fork");
    assert_eq!(rows[2]["ours"]["anomaly_types"][0], "wrong-total");
}

/// Issue 32: a bank run whose accounts have commas in their names
/// (`"a,b"`, `"c, d"`), recorded valid, with `:accounts` in its `test.edn`.
/// The child check got the accounts as one comma-separated flag, which cut
/// them at the commas: `unexpected-key`, and a disagreement. They now go
/// whole, in the JSON of `recheck-history --options`.
#[test]
fn bank_accounts_with_commas_reach_the_check_whole() {
    let o = recheck(&["--format", "json", "fixtures/recheck"]);
    let rows = json_rows(&o);
    let want = vec![(
        "bank-comma-accounts".to_string(),
        "true".to_string(),
        "true".to_string(),
        "yes".to_string(),
    )];
    assert_eq!(summary(&rows), want, "{rows:?}");
    assert_eq!(rows[0]["workload"], "bank");
    assert_eq!(o.status.code(), Some(0));
}

/// Runs whose test map is in the files Jepsen writes (`test.jepsen`,
/// `test.fressian`, from `fixtures/fressian/`, both recording
/// `:consistency-models [:snapshot-isolation]`): the G2-item history is
/// valid under that model, as recorded, where the default
/// strict-serializable would say NO. `test.edn` wins over both; a damaged
/// `test.jepsen` is a note with its place, and the next file (or the
/// flags, marked in the row) is used.
#[test]
fn options_come_from_test_jepsen_and_test_fressian() {
    let store = Store::new("jepsen-files");
    let fressian = |name: &str| {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/fressian")
            .join(name)
    };
    let copy = |dir: &Path, name: &str| {
        std::fs::copy(fressian(name), dir.join(name)).expect("copy fixture");
    };
    let g2 = "fixtures/check/g2-item.edn";
    let run = |name: &str, test_edn: Option<&str>| store.run(name, g2, Some(VALID), test_edn);
    copy(&run("a-jepsen/20240101T000000.000Z", None), "test.jepsen");
    copy(
        &run("b-fressian/20240101T000000.000Z", None),
        "test.fressian",
    );
    let both = run("c-edn-wins", Some("{:consistency-models [:serializable]}"));
    copy(&both, "test.jepsen");
    let damaged = run("d-damaged-then-fressian", None);
    copy(&damaged, "test.fressian");
    let jepsen = std::fs::read(fressian("test.jepsen")).expect("read");
    std::fs::write(damaged.join("test.jepsen"), &jepsen[..jepsen.len() - 9]).expect("write");
    let only_damaged = run("e-damaged-only", None);
    let mut flipped = jepsen.clone();
    // A byte of the root test map's block (before the two index blocks,
    // 244 bytes): its checksum fails.
    let at = flipped.len() - 300;
    flipped[at] ^= 0x55;
    std::fs::write(only_damaged.join("test.jepsen"), &flipped).expect("write");

    let o = recheck(&["--format", "json", store.path()]);
    let rows = json_rows(&o);
    let row = |run: &str| -> &Value {
        rows.iter()
            .find(|r| r["run"].as_str().is_some_and(|n| n.starts_with(run)))
            .unwrap_or_else(|| panic!("no row {run}: {rows:?}"))
    };
    let models = |r: &Value| r["consistency_models"].to_string();
    for run in ["a-jepsen", "b-fressian"] {
        let r = row(run);
        assert_eq!(models(r), "[\"snapshot-isolation\"]", "{r}");
        assert_eq!(r["agreement"], "yes", "{r}");
        assert_eq!(r["test_name"], "append-si", "{r}");
        assert_eq!(r["start_time"], "20240101T000000.000Z", "{r}");
    }
    assert_eq!(row("a-jepsen")["options_from"], "test.jepsen");
    assert_eq!(row("b-fressian")["options_from"], "test.fressian");
    let r = row("c-edn-wins");
    assert_eq!(
        (r["options_from"].as_str(), models(r).as_str()),
        (Some("test.edn"), "[\"serializable\"]")
    );
    assert_eq!(r["agreement"], "no", "{r}");
    let r = row("d-damaged-then-fressian");
    assert_eq!(r["options_from"], "test.fressian", "{r}");
    assert_eq!(
        r["options_unreadable"].to_string(),
        "[\"test.jepsen\"]",
        "{r}"
    );
    assert_eq!(r["agreement"], "yes", "{r}");
    let note = r["notes"][0].as_str().unwrap_or_default();
    assert!(
        note.contains("test.jepsen: ")
            && note.contains("at byte")
            && note.ends_with("using the options of test.fressian"),
        "{note}"
    );
    // Nothing readable: the flags, never silently.
    let r = row("e-damaged-only");
    assert_eq!(r["options_from"], "flags", "{r}");
    assert_eq!(models(r), "[\"strict-serializable\"]", "{r}");
    let note = r["notes"][0].as_str().unwrap_or_default();
    assert!(
        note.contains("checksum") && note.ends_with("using the command line's options"),
        "{note}"
    );

    // The table names the source of each run's options.
    let o = recheck(&["-j", "1", store.path()]);
    let table = String::from_utf8_lossy(&o.stdout);
    let line = |run: &str| {
        table
            .lines()
            .find(|l| l.starts_with(run))
            .unwrap_or_default()
            .to_string()
    };
    assert!(
        table.lines().next().is_some_and(|h| h.contains("options")),
        "{table}"
    );
    assert!(line("a-jepsen").contains("test.jepsen"), "{table}");
    assert!(
        line("e-damaged-only").contains("flags (test.jepsen unreadable)"),
        "{table}"
    );
    assert!(table.contains("note: e-damaged-only: "), "{table}");
}
