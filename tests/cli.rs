//! The command line: `stats` output (snapshotted), `gen` determinism, usage errors.

use std::path::Path;
use std::process::{Command, Output};

fn isocheck(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_isocheck"))
        .env("ISOCHECK_PROGRESS", "off")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run isocheck")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Parse timings vary run to run; everything else is pinned.
fn without_timing(table: &str) -> String {
    table
        .lines()
        .map(|l| {
            if l.starts_with("parse ") {
                "parse  [timing]"
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

const BUNDLED: &str = "fixtures/histories/list-append-200.edn";

#[test]
fn stats_human_table() {
    let o = isocheck(&["stats", BUNDLED]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    insta::assert_snapshot!("stats_human", without_timing(&stdout(&o)));
}

#[test]
fn stats_json() {
    let o = isocheck(&["stats", "--format", "json", BUNDLED]);
    assert!(o.status.success());
    let mut v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert!(v["parse_seconds"].as_f64().is_some_and(|s| s >= 0.0));
    v["parse_seconds"] = 0.into();
    v["mb_per_second"] = 0.into();
    insta::assert_json_snapshot!("stats_json", v);
}

#[test]
fn stats_of_several_files_is_a_json_array() {
    let o = isocheck(&["stats", "--format", "json", BUNDLED, BUNDLED]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(v.as_array().map(Vec::len), Some(2));
}

#[test]
fn stats_goes_on_after_a_bad_file_and_exits_3() {
    let o = isocheck(&["stats", "fixtures/malformed/odd-map.edn", BUNDLED]);
    assert_eq!(o.status.code(), Some(3));
    assert!(stdout(&o).contains("list-append-200.edn"));
    let o = isocheck(&["stats", "no/such/file.edn"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot read no/such/file.edn"));
}

#[test]
fn gen_is_deterministic_and_its_output_loads() {
    let a = isocheck(&["gen", "list-append", "--txns", "50", "--seed", "3"]);
    let b = isocheck(&["gen", "list-append", "--txns", "50", "--seed", "3"]);
    let c = isocheck(&["gen", "list-append", "--txns", "50", "--seed", "4"]);
    assert!(a.status.success());
    assert_eq!(a.stdout, b.stdout);
    assert_ne!(a.stdout, c.stdout);
    let text = stdout(&a);
    let h = isocheck::history::parse_edn("gen", &text).expect("generated history loads");
    assert_eq!(h.txns.len(), 50);
    assert!(h
        .txns
        .iter()
        .all(|t| t.invoke.is_some() && t.completion.is_some()));
}

#[test]
fn usage_errors_exit_3() {
    assert_eq!(isocheck(&["stats"]).status.code(), Some(3));
    assert_eq!(
        isocheck(&["stats", "--workload", "bank", BUNDLED])
            .status
            .code(),
        Some(3)
    );
    assert_eq!(isocheck(&["--help"]).status.code(), Some(0));
}

fn check_status(args: &[&str]) -> Option<i32> {
    let mut all = vec!["check"];
    all.extend_from_slice(args);
    isocheck(&all).status.code()
}

#[test]
fn check_exit_status_is_the_verdict() {
    assert_eq!(check_status(&["fixtures/check/valid.edn"]), Some(0));
    assert_eq!(check_status(&["fixtures/check/g2-item.edn"]), Some(1));
    assert_eq!(check_status(&["fixtures/check/empty-graph.edn"]), Some(2));
    assert_eq!(check_status(&["fixtures/malformed/bad-char.edn"]), Some(3));
    assert_eq!(
        check_status(&["-m", "snapshot", "fixtures/check/valid.edn"]),
        Some(3)
    );
    assert_eq!(
        check_status(&["-a", "G9", "fixtures/check/valid.edn"]),
        Some(3)
    );
    // Write skew is allowed under snapshot isolation.
    let si = ["-m", "snapshot-isolation", "fixtures/check/g2-item.edn"];
    assert_eq!(check_status(&si), Some(0));
}

#[test]
fn check_prints_elles_result_map() {
    let o = isocheck(&["check", "--format", "edn", "fixtures/check/g2-item.edn"]);
    let edn = stdout(&o);
    assert!(edn.starts_with("{:valid? false,"), "{edn}");
    assert!(edn.contains(":anomaly-types [:G2-item]"), "{edn}");
    assert!(edn.contains(":not #{:repeatable-read}"), "{edn}");
    let o = isocheck(&["check", "--format", "json", "fixtures/check/g2-item.edn"]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(json["valid?"], serde_json::json!(false));
    assert_eq!(json["anomaly-types"], serde_json::json!(["G2-item"]));
}

#[test]
fn check_writes_a_directory() {
    let dir = std::env::temp_dir().join(format!("isocheck-dir-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_string_lossy().to_string();
    let args = ["check", "--directory", &d, "fixtures/check/g2-item.edn"];
    assert_eq!(isocheck(&args).status.code(), Some(1));
    let txt = std::fs::read_to_string(dir.join("G2-item.txt")).expect("G2-item.txt");
    assert!(txt.starts_with("G2-item #0\nLet:\n"), "{txt}");
    assert!(dir.join("G2-item/0.dot").is_file());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bench_load_reports_json_figures() {
    let o = isocheck(&[
        "bench", "load", "--file", BUNDLED, "--runs", "1", "--format", "json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(v["transactions"], 200);
    assert_eq!(v["format"], "edn");
    assert!(v["load_seconds_best"].as_f64().is_some_and(|s| s > 0.0));
    assert!(v["peak_rss_bytes"].as_u64().is_some_and(|b| b > 0));
}

/// `bench parse` times the whole load (read, parse, pair) as well as the
/// reader alone, and says what they hold.
#[test]
fn bench_parse_reports_the_whole_load() {
    let o = isocheck(&[
        "bench", "parse", "--file", BUNDLED, "--runs", "2", "--format", "json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(v["transactions"], 200);
    for key in [
        "parse_seconds_best",
        "load_seconds_best",
        "load_mb_per_second",
    ] {
        assert!(v[key].as_f64().is_some_and(|s| s > 0.0), "{key}: {v}");
    }
    assert!(v["peak_rss_bytes"].as_u64().is_some_and(|b| b > 0));
}

const FORCED: &str = "fixtures/check/rw-forced.edn";

#[test]
fn unknown_write_orders_are_searched_unless_certain_only() {
    let o = isocheck(&["check", "-m", "serializable", "--format", "edn", FORCED]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stdout(&o).contains(":cases"));
    for extra in [&["--no-pruning"][..], &["--timeout", "30"], &["-v"]] {
        let mut args = vec!["check", "-m", "serializable", FORCED];
        args.extend_from_slice(extra);
        assert_eq!(isocheck(&args).status.code(), Some(1), "{extra:?}");
    }
    let o = isocheck(&["check", "-m", "serializable", "--certain-only", FORCED]);
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn solver_options_are_checked() {
    let other = if cfg!(feature = "kissat") {
        "cadical"
    } else {
        "kissat"
    };
    let o = isocheck(&["check", "--solver", other, FORCED]);
    assert_eq!(o.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--features"));
    for bad in ["-1", "soon"] {
        assert_eq!(
            isocheck(&["check", "--timeout", bad, FORCED]).status.code(),
            Some(3)
        );
    }
}

/// Exit status 3 and a message holding `says` and a fix (`help:`).
fn usage_error(args: &[&str], says: &str) {
    let o = isocheck(args);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{args:?}: {stderr}");
    assert!(stderr.contains(says), "{args:?}: {stderr}");
    assert!(
        stderr.contains("help:") || stderr.contains("e.g."),
        "{args:?}: {stderr}"
    );
}

/// An empty name in `-m` or `-a` (issue 32: `-m ''` and `-m ,` meant no
/// model and answered valid) is a usage error in every command taking
/// them; `none` is how to ask for no model, alone.
#[test]
fn empty_model_and_anomaly_names_are_usage_errors() {
    let g2 = "fixtures/check/g2-item.edn";
    for m in ["", ",", "serializable,", ",serializable", " , "] {
        usage_error(&["check", "-m", m, g2], "holds an empty name");
    }
    for a in ["", ",", "G1,"] {
        usage_error(&["check", "-a", a, g2], "holds an empty name");
    }
    usage_error(
        &["check", "-m", "none,serializable", g2],
        "`none` means no model",
    );
    usage_error(
        &["recheck", "-m", ",", "no-such-store"],
        "holds an empty name",
    );
    usage_error(
        &[
            "run",
            "--db",
            "sim:serializable",
            "-m",
            "",
            "--store",
            "no-such-store",
        ],
        "holds an empty name",
    );
    assert!(!std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("no-such-store")
        .exists());
    // Asked for properly, the same history is checked (and G2-item found).
    assert_eq!(check_status(&["-m", "serializable", g2]), Some(1));
    assert_eq!(check_status(&["-m", " :serializable ", g2]), Some(1));
    assert_eq!(check_status(&["-m", "none", g2]), Some(0));
    assert_eq!(check_status(&["-m", "none", "-a", "G2-item", g2]), Some(1));
}

/// `--accounts` takes EDN values, each once (issue 32: it took any text
/// as one account); a string may hold a comma.
#[test]
fn accounts_are_edn_values() {
    let bank = "fixtures/jepsen/bank-valid.edn";
    usage_error(&["check", "--accounts", "", bank], "no account given");
    usage_error(&["check", "--accounts", ",", bank], "no account given");
    usage_error(&["check", "--accounts", "[1", bank], "is not EDN values");
    usage_error(&["check", "--accounts", "0,1,0", bank], "listed twice");
    usage_error(&["check", "--accounts", "1,1N", bank], "listed twice");
    assert_eq!(check_status(&["--accounts", "0,1,2", bank]), Some(0));
    assert_eq!(check_status(&["--accounts", "0 1 2N", bank]), Some(0));
    assert_eq!(check_status(&["--accounts", "0,1", bank]), Some(1));
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli-accounts");
    std::fs::create_dir_all(&dir).expect("scratch directory");
    let comma = dir.join("bank.edn");
    std::fs::write(
        &comma,
        "{:type :invoke, :f :read, :process 0, :index 0}\n\
         {:type :ok, :f :read, :value {\"a,b\" 5, \"c\" 5}, :process 0, :index 1}\n\
         {:type :invoke, :f :transfer, :value {:from \"a,b\", :to \"c\", :amount 1}, :process 0, :index 2}\n\
         {:type :ok, :f :transfer, :value {:from \"a,b\", :to \"c\", :amount 1}, :process 0, :index 3}\n\
         {:type :invoke, :f :read, :process 0, :index 4}\n\
         {:type :ok, :f :read, :value {\"a,b\" 4, \"c\" 6}, :process 0, :index 5}\n",
    )
    .expect("history written");
    let comma = comma.to_str().expect("a UTF-8 path");
    assert_eq!(
        check_status(&["--accounts", "\"a,b\",\"c\"", comma]),
        Some(0)
    );
    assert_eq!(
        check_status(&["--accounts", "\"a\",\"b\",\"c\"", comma]),
        Some(1)
    );
}

/// Arguments that were taken silently when zero or empty, or could
/// overflow, are usage errors (exit 3, saying what is allowed), and a
/// negative number is a number (issue 32's audit of the command line).
#[test]
fn zero_empty_and_huge_arguments_are_usage_errors() {
    let bank = "fixtures/jepsen/bank-valid.edn";
    for (args, says) in [
        (
            &["gen", "lwt", "--values", "4294967296"][..],
            "not in 1..=4294967295",
        ),
        (&["gen", "list-append", "--max-mb", "0"], "0 is not in 1.."),
        (
            &["bench", "load", "--runs", "0", "--file", bank],
            "0 is not in 1..",
        ),
        (&["recheck", "-j", "0", "fixtures"], "0 is not in 1.."),
        (
            &[
                "bench",
                "check",
                "--file",
                bank,
                "--models",
                "serializable,",
            ],
            "holds an empty name",
        ),
    ] {
        let o = isocheck(args);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(3), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
    // The largest --values leaves room for a fault's values above it (this
    // overflowed in a debug build).
    let o = isocheck(&[
        "gen",
        "lwt",
        "--values",
        "4294967295",
        "--fault",
        "realtime",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(stdout(&o).contains(" 4294967297]"), "{}", stdout(&o));
    // `--total-amount -5` is a total, not a flag `-5`.
    let o = isocheck(&["check", "--total-amount", "-5", bank]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("wrong-total"));
}

/// A file name's control characters and bidirectional overrides reach the
/// terminal as visible escapes, as the history's own text does: in the
/// report's excerpt header and in `stats`.
#[test]
fn file_names_are_escaped_on_the_terminal() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli-names");
    std::fs::create_dir_all(&dir).expect("scratch directory");
    let file = dir.join("x\u{1b}[31mred\u{202e}.edn");
    std::fs::copy(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/check/g1c.edn"),
        &file,
    )
    .expect("history copied");
    let file = file.to_str().expect("a UTF-8 path");
    let report = isocheck(&["check", "-m", "none", "-a", "G1", file]);
    let stats = isocheck(&["stats", file]);
    for text in [
        String::from_utf8_lossy(&report.stderr),
        String::from_utf8_lossy(&stats.stdout),
    ] {
        assert!(text.contains("x\\u{1b}[31mred\\u{202e}.edn"), "{text}");
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{202e}'),
            "{text}"
        );
    }
}

/// Issue 34: each command's help says what it does. `run -m` defaults to
/// what the isolation level promises, not strict-serializable; `recheck`
/// stops a history after 60 s; the options of Jepsen's bank, long-fork and
/// set-full checkers are listed, under their own heading, only by the
/// commands that check such histories.
#[test]
fn help_tells_each_command_s_own_defaults_and_options() {
    let help = |cmd: &str| stdout(&isocheck(&[cmd, "--help"]));
    let run = help("run");
    assert!(
        run.contains("Default: the model the isolation level promises"),
        "{run}"
    );
    assert!(!run.contains("Default: strict-serializable"), "{run}");
    let recheck = help("recheck");
    assert!(recheck.contains("Default: 60 s per history"), "{recheck}");
    let jepsen = ["--total-amount", "--accounts", "--allow-negative-balances"];
    let more = ["--group-size", "--linearizable-set"];
    for flag in jepsen.iter().chain(&more) {
        assert!(!run.contains(flag), "run lists {flag}:\n{run}");
        for cmd in ["check", "recheck"] {
            let text = help(cmd);
            let heading = text
                .find("Jepsen checker options (bank, long-fork, set-full):")
                .unwrap_or_else(|| panic!("no heading in {cmd} --help:\n{text}"));
            // The option's own line, not a mention in another's help.
            let line = format!("\n      {flag}");
            let at = text
                .find(&line)
                .unwrap_or_else(|| panic!("{cmd}: no {flag}"));
            assert!(at > heading, "{cmd}: {flag} before its heading:\n{text}");
        }
    }
    // The heading holds only those options: nothing follows them.
    let check = help("check");
    let tail = &check[check.find("--linearizable-set").unwrap_or(0)..];
    assert!(!tail.contains("\n      --"), "{tail}");
}

/// Issue 34: `check` takes several histories, as elle-cli does: one line
/// each on stdout, `FILE<TAB>verdict`, a Jepsen run directory standing for
/// its `history.edn`; the status is the worst (1 invalid, 2 unknown, 3
/// unreadable). A store is no history: one line saying what to do.
#[test]
fn several_files_give_one_line_each() {
    let dir = std::env::temp_dir().join(format!("isocheck-several-{}", std::process::id()));
    let run = dir.join("store/test/20260101T000000.000Z");
    std::fs::create_dir_all(&run).expect("run directory");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(root.join("fixtures/check/g0.edn"), run.join("history.edn")).expect("copy");
    let run_dir = run.to_str().expect("utf-8");
    let o = isocheck(&[
        "check",
        "fixtures/check/valid.edn",
        "fixtures/check/empty-graph.edn",
        run_dir,
        "fixtures/check/no-such-file.edn",
    ]);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let out = stdout(&o).replace(run_dir, "RUN");
    insta::assert_snapshot!("check_several_files", out);
    assert!(String::from_utf8_lossy(&o.stderr).contains("no-such-file.edn"));
    let statuses = [
        (
            vec!["fixtures/check/valid.edn", "fixtures/check/valid.edn"],
            0,
        ),
        (
            vec!["fixtures/check/valid.edn", "fixtures/check/empty-graph.edn"],
            2,
        ),
        (
            vec![
                "fixtures/check/valid.edn",
                "fixtures/check/no-such-file.edn",
            ],
            3,
        ),
    ];
    for (files, code) in statuses {
        let mut args = vec!["check"];
        args.extend(files);
        assert_eq!(isocheck(&args).status.code(), Some(code), "{args:?}");
    }
    // One run directory alone: its history's report, as for the file.
    let alone = isocheck(&["check", run_dir]);
    let file = isocheck(&["check", &format!("{run_dir}/history.edn")]);
    assert_eq!(alone.status.code(), Some(1));
    assert_eq!(alone.stderr, file.stderr);
    // The store: what it is and what to do, no word of Cobra.
    let store = dir.join("store");
    let o = isocheck(&["check", store.to_str().expect("utf-8")]);
    assert_eq!(o.status.code(), Some(3));
    let said = String::from_utf8_lossy(&o.stderr).replace(store.to_str().unwrap_or(""), "STORE");
    insta::assert_snapshot!("check_a_store", said);
    // Options that report on one history are refused with several.
    for flag in [["--html", "x.html"], ["--format", "json"]] {
        let o = isocheck(&["check", flag[0], flag[1], "fixtures/check/g0.edn", run_dir]);
        assert_eq!(o.status.code(), Some(3), "{flag:?}");
        assert!(String::from_utf8_lossy(&o.stderr).contains("reports on one history"));
    }
    let _ = std::fs::remove_dir_all(&dir);
}
