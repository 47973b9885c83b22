//! `isocheck check --stream` and `--follow` (issue 37) from the command
//! line: the stream's verdict against the offline check's on fixtures and
//! generated histories, its output in each format (snapshotted), standard
//! input, the usage errors, a history that is not list-append's, the limits,
//! and a followed file that a writer appends to in pieces.

mod common;

use common::TempPath;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const MODELS: [&str; 3] = [
    "strict-serializable",
    "strong-session-serializable",
    "serializable",
];

fn command(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_isocheck"));
    c.env("ISOCHECK_PROGRESS", "off")
        .env("NO_COLOR", "1")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args);
    c
}

fn isocheck(args: &[&str]) -> Output {
    command(args).output().expect("run isocheck")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The `:anomaly-types` of an EDN result map's text (its first
/// occurrence), as written (empty when it has none).
fn types_of(edn: &str) -> &str {
    let rest = edn.split(":anomaly-types ").nth(1).unwrap_or_default();
    let types = rest.split(']').next().unwrap_or_default();
    types.trim_start_matches('[')
}

/// The `:valid?` of an EDN result map's text (its first occurrence).
fn valid_of(edn: &str) -> &str {
    let rest = edn
        .split(":valid? ")
        .nth(1)
        .unwrap_or_else(|| panic!("no :valid? in {edn:?}"));
    rest.split([',', '}', '\n']).next().unwrap_or_default()
}

/// The offline verdict and the stream's on `file` under `model`: the
/// `:valid?`, the anomaly types and the exit status, which must all agree
/// (the window holds these histories whole).
type Said = (String, String, Option<i32>);

fn both(file: &str, model: &str) -> (Said, Said) {
    let offline = isocheck(&["check", "-m", model, "--format", "edn", file]);
    let streamed = isocheck(&["check", "--stream", "-m", model, "--format", "edn", file]);
    let said = |map: &str, o: &Output| {
        let (valid, types) = (valid_of(map), types_of(map));
        (valid.to_string(), types.to_string(), o.status.code())
    };
    let last = stdout(&streamed);
    let last = last.lines().last().unwrap_or_default().to_string();
    (said(&stdout(&offline), &offline), said(&last, &streamed))
}

/// Fixtures with invocations whose offline verdict the stream must give
/// (completion-only histories, Elle's test cases, are refused: see
/// `completions_only_are_refused`).
const FIXTURES: [&str; 5] = [
    "fixtures/check/valid.edn",
    "fixtures/check/g1b.edn",
    "fixtures/check/lost-update.edn",
    "fixtures/check/g-single-item-realtime.edn",
    "fixtures/histories/list-append-200.edn",
];

#[test]
fn the_stream_agrees_with_the_offline_check_on_fixtures() {
    let mut verdicts = Vec::new();
    for file in FIXTURES {
        for model in MODELS {
            let (offline, streamed) = both(file, model);
            assert_eq!(offline, streamed, "{file} under {model}");
            verdicts.push(streamed.0);
        }
    }
    // Both answers occur: the fixtures are not all alike.
    assert!(verdicts.iter().any(|v| v == "true"));
    assert!(verdicts.iter().any(|v| v == "false"));
}

#[test]
fn the_stream_agrees_with_the_offline_check_on_generated_histories() {
    let faults = [
        None,
        Some("lost-update"),
        Some("write-skew"),
        Some("aborted-read"),
        Some("realtime"),
        Some("stale-session-read"),
        Some("long-fork"),
    ];
    // Four seeds a fault, and two levels: the types of every violation
    // found, not only the verdict, are the offline check's.
    for seed in 0..4 * faults.len() {
        let fault = &faults[seed % faults.len()];
        let level = ["strict-serializable", "read-committed"][seed / faults.len() % 2];
        let file = TempPath::new(&format!("stream-gen-{seed}.edn"));
        let path = file.0.to_str().expect("a UTF-8 temporary path");
        let seed = seed.to_string();
        let mut args = vec!["gen", "list-append", "--txns", "80", "--processes", "4"];
        args.extend(["--seed", &seed, "--level", level, "-o", path]);
        if let Some(f) = fault {
            args.extend(["--fault", f]);
        }
        assert!(isocheck(&args).status.success());
        for model in MODELS {
            let (offline, streamed) = both(path, model);
            assert_eq!(offline, streamed, "{level}, fault {fault:?}, under {model}");
        }
    }
}

/// What `check --stream` says of `path` in each format (for a snapshot),
/// once each is found well formed and all three exit alike.
fn in_each_format(path: &str) -> String {
    let human = isocheck(&["check", "--stream", path]);
    let edn = isocheck(&["check", "--stream", "--format", "edn", path]);
    let json = isocheck(&["check", "--stream", "--format", "json", path]);
    // People read stderr; the maps go to stdout, one a line.
    assert!(stdout(&human).is_empty());
    assert!(stderr(&edn).is_empty() && stderr(&json).is_empty());
    for line in stdout(&json).lines() {
        serde_json::from_str::<serde_json::Value>(line).expect("one JSON object a line");
    }
    assert_eq!(human.status.code(), edn.status.code());
    assert_eq!(human.status.code(), json.status.code());
    format!(
        "human (stderr):\n{}\nedn:\n{}\njson:\n{}\nexit: {:?}",
        stderr(&human),
        stdout(&edn),
        stdout(&json),
        human.status.code()
    )
}

#[test]
fn findings_and_verdict_in_each_format() {
    for file in ["g1b", "valid", "g-single-item-realtime"] {
        let all = in_each_format(&format!("fixtures/check/{file}.edn"));
        insta::assert_snapshot!(format!("stream_{file}"), all);
    }
}

/// Jepsen's counter, set and bank histories (and the value variants of
/// `fixtures/values/`), with the options given to `check`.
const CHECKER_FIXTURES: [(&str, &[&str]); 20] = [
    ("fixtures/jepsen/counter-valid.edn", &[]),
    ("fixtures/jepsen/counter-invalid.edn", &[]),
    ("fixtures/jepsen/set-valid.edn", &[]),
    ("fixtures/jepsen/set-invalid.edn", &[]),
    (
        "fixtures/jepsen/set-full-invalid.edn",
        &["--workload", "set"],
    ),
    ("fixtures/jepsen/bank-valid.edn", &[]),
    ("fixtures/jepsen/bank-invalid.edn", &[]),
    (
        "fixtures/jepsen/bank-invalid.edn",
        &["--allow-negative-balances"],
    ),
    ("fixtures/jepsen/bank-missing-account.edn", &[]),
    (
        "fixtures/jepsen/bank-missing-account.edn",
        &["--total-amount", "24", "--accounts", "0,1,2"],
    ),
    ("fixtures/recheck/bank-comma-accounts/history.edn", &[]),
    ("fixtures/json/bank.edn", &[]),
    ("fixtures/values/integer-float.bank.edn", &[]),
    ("fixtures/values/negative-zero.bank.edn", &[]),
    ("fixtures/values/uuid-case.bank.edn", &[]),
    ("fixtures/values/decimal-scale.bank.edn", &[]),
    ("fixtures/values/integer-float.set.edn", &[]),
    ("fixtures/values/negative-zero.set.edn", &[]),
    ("fixtures/values/uuid-case.set.edn", &[]),
    ("fixtures/values/inst-offset.set.edn", &[]),
];

/// `check`'s verdict for people (its first line): `valid` or `invalid`,
/// and the anomaly types, sorted.
fn offline_checker(o: &Output) -> (String, Vec<String>) {
    let err = stderr(o);
    let first = err.lines().next().unwrap_or_default();
    let (valid, rest) = first.split_once(':').unwrap_or_default();
    let types = rest.split(" (").next().unwrap_or_default();
    let mut types: Vec<String> = match valid {
        "invalid" => types.split(", ").map(|t| t.trim().to_string()).collect(),
        _ => Vec::new(),
    };
    types.sort();
    (valid.to_string(), types)
}

#[test]
fn the_stream_agrees_with_the_offline_checkers_on_fixtures() {
    let mut verdicts = Vec::new();
    for (file, options) in CHECKER_FIXTURES {
        let offline = isocheck(&[&["check", file], options].concat());
        let args = [&["check", "--stream", "--format", "edn", file], options].concat();
        let streamed = isocheck(&args);
        let (valid, types) = offline_checker(&offline);
        let out = stdout(&streamed);
        let last = out.lines().last().unwrap_or_default();
        let ours: Vec<String> = types_of(last)
            .split_whitespace()
            .map(|t| t.trim_start_matches(':').to_string())
            .collect();
        let context = format!("{file} {options:?}: {}\n{out}", stderr(&offline));
        assert_eq!(valid_of(last), (valid == "valid").to_string(), "{context}");
        assert_eq!(ours, types, "{context}");
        assert_eq!(streamed.status.code(), offline.status.code(), "{context}");
        // One finding a line before the verdict, of the verdict's types.
        for line in out.lines().filter(|l| *l != last) {
            assert!(ours
                .iter()
                .any(|t| line.starts_with(&format!("{{:type :{t},"))));
        }
        verdicts.push(valid);
    }
    assert!(verdicts.iter().any(|v| v == "valid"));
    assert!(verdicts.iter().any(|v| v == "invalid"));
}

#[test]
fn checker_findings_and_verdict_in_each_format() {
    for file in [
        "counter-invalid",
        "set-invalid",
        "bank-invalid",
        "bank-valid",
    ] {
        let all = in_each_format(&format!("fixtures/jepsen/{file}.edn"));
        insta::assert_snapshot!(format!("stream_jepsen_{file}"), all);
    }
}

/// What the stream cannot take of a checker's history: a set read more
/// than once (set-full's, as `check` decides), a transaction in a
/// counter's, adds and transfers together, a value that does not read.
#[test]
fn checker_histories_the_stream_refuses() {
    let mixed = TempPath::new("stream-mixed.edn");
    let text = "{:index 0, :type :invoke, :process 0, :f :add, :value 1}
{:index 1, :type :ok, :process 0, :f :add, :value 1}
{:index 2, :type :invoke, :process 0, :f :transfer, :value {:from 0, :to 1, :amount 1}}
";
    std::fs::write(&mixed.0, text).expect("a temporary file");
    let mixed = mixed.0.to_str().expect("a UTF-8 temporary path");
    // Each refusal, and whether `check` refuses the history too (it
    // checks set-full's, and takes adds with transfers for no checker's).
    let cases: [(&[&str], &str, bool); 3] = [
        (
            &["fixtures/jepsen/set-full-valid.edn"],
            "a set read :ok more than once",
            false,
        ),
        (
            &["--workload", "counter", "fixtures/check/valid.edn"],
            "a transaction of micro-ops in a counter",
            true,
        ),
        (&[mixed], "not both", false),
    ];
    for (args, what, refused) in cases {
        let o = isocheck(&[&["check", "--stream"], args].concat());
        assert_eq!(o.status.code(), Some(3), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(what), "{args:?}: {}", stderr(&o));
        let whole = isocheck(&[&["check"], args].concat());
        assert_eq!(whole.status.code() == Some(3), refused, "{args:?}");
    }
    // Values that do not read: the stream refuses them as `check` does,
    // with its diagnostic's code.
    for name in [
        "bank-balance-not-a-number",
        "bank-read-not-a-map",
        "counter-negative-add",
        "counter-read-not-a-number",
        "set-add-changed",
        "set-read-not-a-collection",
    ] {
        let file = format!("fixtures/jepsen/malformed/{name}.edn");
        let (o, whole) = (
            isocheck(&["check", "--stream", &file]),
            isocheck(&["check", &file]),
        );
        assert_eq!(o.status.code(), Some(3), "{name}: {}", stderr(&o));
        assert_eq!(whole.status.code(), Some(3), "{name}");
        let code = |o: &Output| stderr(o).lines().next().unwrap_or_default().to_string();
        assert_eq!(code(&o), code(&whole), "{name}: {}", stderr(&o));
    }
}

#[test]
fn standard_input_streams_as_a_file_does() {
    let path = "fixtures/check/g-single-item-realtime.edn";
    let text = std::fs::read(path).expect("fixture");
    let mut child = command(&["check", "--stream", "--format", "edn", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run isocheck");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(&text).expect("write the history");
    drop(stdin);
    let piped = child.wait_with_output().expect("isocheck ends");
    let from_file = isocheck(&["check", "--stream", "--format", "edn", path]);
    assert_eq!(piped.status.code(), Some(1));
    assert_eq!(stdout(&piped), stdout(&from_file));
}

#[test]
fn usage_errors_name_what_stream_supports() {
    let valid = "fixtures/check/valid.edn";
    let cases: [&[&str]; 13] = [
        &["check", "--stream", "-m", "snapshot-isolation", valid],
        &[
            "check",
            "--stream",
            "-m",
            "serializable,strict-serializable",
            valid,
        ],
        &["check", "--stream", "-a", "G1", valid],
        &[
            "check",
            "--stream",
            "--html",
            "/nonexistent/report.html",
            valid,
        ],
        &[
            "check",
            "--stream",
            "--directory",
            "/nonexistent/dir",
            valid,
        ],
        &["check", "--stream", "-v", valid],
        &["check", "--stream", "--input-format", "json", valid],
        &["check", "--stream", "fixtures/json/list-append.json"],
        &["check", "--stream", "--workload", "closed-predicate", valid],
        &[
            "check",
            "--stream",
            "--transaction-order",
            "/nonexistent/order.edn",
            valid,
        ],
        &["check", "--stream", valid, valid],
        &["check", "--follow", "-"],
        &["check", "--stream", "--idle", "2", valid],
    ];
    let mut all = String::new();
    for args in cases {
        let o = isocheck(args);
        assert_eq!(o.status.code(), Some(3), "{args:?}");
        assert!(stdout(&o).is_empty(), "{args:?}");
        all += &format!("$ isocheck {}\n{}\n", args.join(" "), stderr(&o));
    }
    insta::assert_snapshot!("stream_usage_errors", all);
}

#[test]
fn window_takes_a_count_or_none_and_only_with_stream() {
    let valid = "fixtures/check/valid.edn";
    // A window of one retires a key before the next transaction reads it:
    // the answer is unknown, never another verdict.
    let windows = [
        ("1", &[0, 2][..]),
        ("0.000001s", &[0, 2]),
        ("100000", &[0]),
        ("3600s", &[0]),
        ("none", &[0]),
    ];
    for (window, statuses) in windows {
        let o = isocheck(&["check", "--stream", "--window", window, valid]);
        let status = o.status.code().unwrap_or(-1);
        assert!(
            statuses.contains(&status),
            "--window {window}: {status}, {}",
            stderr(&o)
        );
    }
    for window in ["0", "many", "", "0s", "-1s", "s", "1m"] {
        let arg = format!("--window={window}");
        let o = isocheck(&["check", "--stream", &arg, valid]);
        assert_eq!(o.status.code(), Some(3), "--window {window}");
        assert!(stderr(&o).contains("or `none`"), "{}", stderr(&o));
    }
    let o = isocheck(&["check", "--window", "5", valid]);
    assert_eq!(o.status.code(), Some(3));
    assert!(stderr(&o).contains("--window is an option of the streaming check"));
}

/// A key the window retired, touched again before any transaction was
/// retired: the stream cannot say, but the input is still held whole, and
/// the offline check can.
#[test]
fn an_unknown_answer_goes_to_the_offline_check_while_the_input_is_held() {
    let file = TempPath::new("stream-retired-key.edn");
    let mut ops = Vec::new();
    let mut txn = |process: u32, invoked: &str, completed: &str| {
        for (ty, value) in [("invoke", invoked), ("ok", completed)] {
            let index = ops.len();
            ops.push(format!(
                "{{:index {index}, :type :{ty}, :process {process}, :f :txn, :value {value}}}"
            ));
        }
    };
    txn(0, "[[:append :x 1]]", "[[:append :x 1]]");
    for v in 1..4 {
        let append = format!("[[:append :y {v}]]");
        txn(0, &append, &append);
    }
    txn(1, "[[:r :x nil]]", "[[:r :x [1]]]");
    std::fs::write(&file.0, ops.join("\n")).expect("a temporary file");
    let path = file.0.to_str().expect("a UTF-8 temporary path");
    // Key :x retires after three quiet transactions; transactions after six.
    let o = isocheck(&["check", "--stream", "--window", "6", path]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("the verdict is the offline check's"));
    // Past the held input (a transaction retired too), it stays unknown.
    let o = isocheck(&["check", "--stream", "--window", "4", path]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("which the window retired"));
}

#[test]
fn a_workload_other_than_the_first_ops_stops_at_its_first_op() {
    let file = TempPath::new("stream-rw-register.edn");
    let path = file.0.to_str().expect("a UTF-8 temporary path");
    let args = [
        "gen",
        "rw-register",
        "--txns",
        "20",
        "--seed",
        "1",
        "-o",
        path,
    ];
    assert!(isocheck(&args).status.success());
    let valid = "fixtures/check/valid.edn";
    let cases = [
        (
            path,
            "list-append",
            "not a list-append history",
            ":append and :r",
        ),
        (
            valid,
            "rw-register",
            "not an rw-register history",
            ":w and :r",
        ),
        (
            "fixtures/lwt/cycle.edn",
            "list-append",
            "not a list-append",
            "not a transaction",
        ),
    ];
    for (history, workload, kind, what) in cases {
        let o = isocheck(&["check", "--stream", "--workload", workload, history]);
        assert_eq!(o.status.code(), Some(3), "{history}");
        let err = stderr(&o);
        assert!(err.contains(kind), "{err}");
        assert!(err.contains(what), "{err}");
        assert!(err.contains("the op at byte"), "the first client op: {err}");
    }
}

/// rw-register histories stream: the findings as they come, and the final
/// verdict the offline check's (on the held input without timestamps; the
/// stream's own with `--transaction-order timestamps`, which decides).
#[test]
fn rw_register_histories_stream_to_the_offline_verdict() {
    let levels = [
        "strict-serializable",
        "read-committed",
        "snapshot-isolation",
    ];
    for (i, level) in levels.iter().enumerate() {
        for stamped in [false, true] {
            let file = TempPath::new(&format!("stream-rw-{i}-{stamped}.edn"));
            let path = file.0.to_str().expect("a UTF-8 temporary path");
            let mut args = vec!["gen", "rw-register", "--txns", "300", "--level", level];
            args.extend(["--seed", "7", "-o", path]);
            if stamped {
                args.push("--timestamps");
            }
            assert!(isocheck(&args).status.success());
            let order: &[&str] = match stamped {
                true => &["--transaction-order", "timestamps"],
                false => &[],
            };
            for model in ["strict-serializable", "serializable"] {
                let mut common = vec!["check", "-m", model, "--format", "edn"];
                common.extend(order);
                let whole = isocheck(&[&common[..], &[path]].concat());
                let streamed = isocheck(&[&common[..], &["--stream", path]].concat());
                let (w, s) = (stdout(&whole), stdout(&streamed));
                let last = s.lines().last().unwrap_or_default();
                let at = format!("{level} {model} stamped {stamped}: {s}");
                assert_eq!(streamed.status.code(), whole.status.code(), "{at}");
                assert_eq!(valid_of(last), valid_of(&w), "{at}");
                if !stamped {
                    assert_eq!(types_of(last), types_of(&w), "{at}");
                }
            }
        }
    }
}

#[test]
fn completions_only_are_refused() {
    // Elle's test cases have no invocations: a read could show an append
    // whose op comes later, which the stream has not seen.
    let o = isocheck(&["check", "--stream", "fixtures/check/g1a.edn"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(stderr(&o).contains("process 0 completes an op it did not invoke"));
}

#[test]
fn a_limit_answers_unknown_unless_a_finding_stands() {
    let valid = "fixtures/histories/list-append-200.edn";
    let o = isocheck(&[
        "check",
        "--stream",
        "--timeout",
        "0",
        "--format",
        "edn",
        valid,
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(valid_of(&out), ":unknown");
    assert!(out.contains(":reason :timeout"), "{out}");
    let o = isocheck(&[
        "check",
        "--stream",
        "--max-memory",
        "1",
        "--format",
        "json",
        valid,
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("a JSON verdict");
    assert_eq!(v["valid?"], "unknown");
    assert_eq!(v["reason"], "memory-limit");
}

/// The history a writer appends to the followed file: a real-time
/// violation (found at its 8th op), then more transactions.
fn followed_history() -> (String, String) {
    let first =
        std::fs::read_to_string("fixtures/check/g-single-item-realtime.edn").expect("fixture");
    let more = (0..5)
        .map(|i| {
            let (inv, ok) = (8 + 2 * i, 9 + 2 * i);
            format!(
                "{{:index {inv}, :type :invoke, :process 0, :f :txn, :value [[:append :y {i}]]}}\n\
                 {{:index {ok}, :type :ok, :process 0, :f :txn, :value [[:append :y {i}]]}}\n"
            )
        })
        .collect();
    (first, more)
}

#[test]
fn follow_prints_a_finding_while_the_file_grows_and_ends_when_idle() {
    let file = TempPath::new("stream-follow.edn");
    std::fs::write(&file.0, "").expect("create the followed file");
    let (first, more) = followed_history();
    let mut child = command(&["check", "--follow", "--idle", "2"])
        .arg(&file.0)
        .stderr(Stdio::piped())
        .spawn()
        .expect("run isocheck");
    let written = Arc::new(AtomicBool::new(false));
    let writer = {
        let (path, written) = (file.0.clone(), Arc::clone(&written));
        std::thread::spawn(move || {
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .open(path)
                .expect("open the followed file");
            // The middle cuts an op in two: it is read once its rest comes.
            let (one, two) = more.as_bytes().split_at(more.len() / 2);
            for piece in [first.as_bytes(), one] {
                f.write_all(piece).expect("append");
                // Shorter than --idle: the check goes on.
                std::thread::sleep(Duration::from_millis(800));
            }
            f.write_all(two).expect("append");
            written.store(true, Ordering::SeqCst);
            Instant::now()
        })
    };
    let mut finding_while_growing = false;
    let mut lines = Vec::new();
    for line in BufReader::new(child.stderr.take().expect("stderr")).lines() {
        let line = line.expect("a line of the report");
        if line.starts_with("G-single-item-realtime (op 7)") {
            finding_while_growing = !written.load(Ordering::SeqCst);
        }
        lines.push(line);
    }
    let status = child.wait().expect("isocheck ends");
    let ended = Instant::now();
    let last_write = writer.join().expect("the writer");
    assert!(finding_while_growing, "the finding came late: {lines:?}");
    assert_eq!(status.code(), Some(1), "{lines:?}");
    // Every transaction was read (4 of the fixture, 5 more), and the check
    // waited for --idle after the last piece.
    assert!(
        lines.iter().any(|l| l.contains("9 transactions streamed")),
        "{lines:?}"
    );
    assert!(ended - last_write >= Duration::from_secs(2), "{lines:?}");
}

#[test]
fn follow_ends_at_ctrl_c_or_sigterm_with_the_verdict() {
    for signal in ["INT", "TERM"] {
        let file = TempPath::new(&format!("stream-follow-{signal}.edn"));
        let (first, _) = followed_history();
        std::fs::write(&file.0, first).expect("write the followed file");
        let mut child = command(&["check", "--follow", "--idle", "60"])
            .arg(&file.0)
            .stderr(Stdio::piped())
            .spawn()
            .expect("run isocheck");
        let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
        let finding = lines.next().and_then(Result::ok).unwrap_or_default();
        assert!(finding.starts_with("G-single-item-realtime"), "{finding}");
        let started = Instant::now();
        let pid = child.id().to_string();
        let killed = Command::new("kill")
            .args([&format!("-{signal}"), &pid])
            .status();
        assert!(killed.is_ok_and(|s| s.success()), "kill -{signal}");
        let rest: Vec<String> = lines.map_while(Result::ok).collect();
        let status = child.wait().expect("isocheck ends");
        assert_eq!(status.code(), Some(1), "SIG{signal}: {rest:?}");
        assert!(
            rest.iter().any(|l| l.contains("4 transactions streamed")),
            "{rest:?}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "SIG{signal} did not end it"
        );
    }
}

#[test]
fn run_online_streams_the_history_as_it_is_recorded() {
    let store = TempPath::new("stream-online-store");
    let store_arg = store.0.to_str().expect("a UTF-8 temporary path");
    let run = |level: &str| {
        isocheck(&[
            "run",
            "--db",
            level,
            "--online",
            "-m",
            "serializable",
            "--txns",
            "20000",
            "--store",
            store_arg,
            "--no-report",
        ])
    };
    // Read committed lets cycles through; serializable does not.
    for (level, status) in [("sim:read-committed", 1), ("sim:serializable", 0)] {
        let o = run(level);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(status), "{err}");
        let verdict = match status {
            0 => "online: valid: no anomaly prohibited by serializable",
            _ => "online: invalid: ",
        };
        assert!(err.contains(verdict), "{err}");
        // The stream's verdict comes before the whole history's.
        let whole = match status {
            0 => "\nvalid: ",
            _ => "\ninvalid: ",
        };
        assert!(err.find(verdict) < err.find(whole), "{err}");
        let findings = err.lines().filter(|l| l.contains(" (op ")).count();
        assert_eq!(findings > 0, status == 1, "{err}");
    }
    // An rw-register run's stream finds what it can as it goes, and leaves
    // the verdict to the whole history's check.
    let rw = |level: &str| {
        let args = ["run", "--db", level, "--online", "-m", "serializable"];
        let more = ["--workload", "rw-register", "--txns", "5000"];
        isocheck(&[&args[..], &more, &["--store", store_arg, "--no-report"]].concat())
    };
    for (level, status) in [("sim:read-committed", 1), ("sim:serializable", 0)] {
        let o = rw(level);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(status), "{err}");
        assert!(err.contains("online: "), "{err}");
        assert!(!err.contains("the online verdict is the run's"), "{err}");
    }
    let o = isocheck(&[
        "run",
        "--db",
        "sim:serializable",
        "--online",
        "--workload",
        "cas-register",
    ]);
    assert_eq!(o.status.code(), Some(3));
    let err = stderr(&o);
    assert!(
        err.contains("--online checks list-append and rw-register runs only"),
        "{err}"
    );
    let o = isocheck(&[
        "run",
        "--db",
        "sim:snapshot-isolation",
        "--online",
        "--store",
        store_arg,
    ]);
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stderr(&o).contains("add one of them with -m"),
        "{}",
        stderr(&o)
    );
}

/// cas-register and mutex histories stream, learned from their ops: the
/// findings as they come, and the final verdict and exit status the
/// offline check's (on the held input, when the stream's is not valid).
#[test]
fn register_histories_stream_to_the_offline_verdict() {
    let mut files: Vec<String> = std::fs::read_dir("fixtures/lwt")
        .expect("fixtures/lwt")
        .filter_map(|e| e.ok().map(|e| e.path().display().to_string()))
        .filter(|p| p.ends_with(".edn"))
        .collect();
    files.sort();
    let mut generated = Vec::new();
    for (i, fault) in ["none", "realtime", "lost-update", "aborted-read"]
        .iter()
        .enumerate()
    {
        let file = TempPath::new(&format!("stream-cas-{i}.edn"));
        let path = file.0.to_str().expect("a UTF-8 temporary path").to_string();
        let mut args = vec!["gen", "cas-register", "--txns", "2000", "--seed", "3"];
        if *fault != "none" {
            args.extend(["--fault", fault]);
        }
        args.extend(["-o", &path]);
        assert!(isocheck(&args).status.success(), "{fault}");
        files.push(path);
        generated.push(file);
    }
    for file in &files {
        let whole = isocheck(&["check", "--format", "edn", file]);
        let streamed = isocheck(&["check", "--stream", "--format", "edn", file]);
        let (w, s) = (stdout(&whole), stdout(&streamed));
        let last = s.lines().last().unwrap_or_default();
        let at = format!("{file}: {s}\n{}", stderr(&streamed));
        assert_eq!(streamed.status.code(), whole.status.code(), "{at}");
        assert_eq!(valid_of(last), valid_of(&w), "{at}");
        assert_eq!(types_of(last), types_of(&w), "{at}");
    }
}
