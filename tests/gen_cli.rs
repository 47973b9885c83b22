//! `isocheck gen` on the command line: every workload, level and fault
//! loads and is deterministic; bad combinations are usage errors (exit 3);
//! `bench check --generate` generates then checks.

use std::process::{Command, Output};

fn isocheck(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_isocheck"))
        .env("ISOCHECK_PROGRESS", "off")
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run isocheck")
}

#[test]
fn every_workload_level_and_fault_loads() {
    for workload in ["list-append", "rw-register", "mini-transactions"] {
        for extra in [
            &[
                "--txns",
                "40",
                "--level",
                "read-uncommitted",
                "--info-rate",
                "0.2",
            ][..],
            &[
                "--txns",
                "40",
                "--level",
                "snapshot-isolation",
                "--fault",
                "long-fork",
            ],
            &["--distribution", "zipfian", "--txns-per-process", "10"],
            &[
                "--txns",
                "40",
                "--ops",
                "3",
                "--keys",
                "2",
                "--distribution",
                "hotspot",
            ],
        ] {
            let mut args = vec!["gen", workload, "--seed", "5"];
            args.extend_from_slice(extra);
            let a = isocheck(&args);
            assert!(
                a.status.success(),
                "{args:?}: {}",
                String::from_utf8_lossy(&a.stderr)
            );
            assert_eq!(a.stdout, isocheck(&args).stdout, "{args:?}");
            let text = String::from_utf8_lossy(&a.stdout);
            let h = isocheck::history::parse_edn("gen", &text).expect("loads");
            assert!(h.txns.len() >= 40, "{args:?}");
        }
    }
}

#[test]
fn bad_combinations_are_usage_errors() {
    for args in [
        &[
            "gen",
            "list-append",
            "--fault",
            "realtime",
            "--processes",
            "1",
        ][..],
        &["gen", "list-append", "--read-ratio", "1.5"],
        &["gen", "list-append", "--ops", "5-2"],
        &["gen", "list-append", "--ops", "0"],
        &["gen", "list-append", "--blind-writes", "0.5"],
        &[
            "gen",
            "rw-register",
            "--fail-rate",
            "0.7",
            "--info-rate",
            "0.7",
        ],
        &[
            "gen",
            "rw-register",
            "--txns",
            "5",
            "--txns-per-process",
            "3",
        ],
        &["gen", "rw-register", "--level", "causal"],
        &["gen", "rw-register", "--keys", "0"],
        &["gen", "rw-register", "--max-writes-per-key", "0"],
        // A lie the checks at the level's model cannot see, or a workload
        // whose timestamps are not checked.
        &[
            "gen",
            "rw-register",
            "--timestamp-fault",
            "stale-start",
            "--level",
            "serializable",
        ],
        &[
            "gen",
            "list-append",
            "--timestamp-fault",
            "start-after-commit",
        ],
    ] {
        let o = isocheck(args);
        assert_eq!(o.status.code(), Some(3), "{args:?}");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("error"),
            "{args:?}"
        );
    }
}

/// `gen closed-predicate`: deterministic, detected as Elle's
/// closed-predicate workload, valid at its level's model and serializable
/// not at snapshot isolation; a flag it has no use for is refused with
/// why (exit 3).
#[test]
fn closed_predicate_runs_at_a_level_and_refuses_the_rest() {
    let args = [
        "gen",
        "closed-predicate",
        "--keys",
        "90",
        "--level",
        "snapshot-isolation",
    ];
    let a = isocheck(&args);
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    assert_eq!(a.stdout, isocheck(&args).stdout);
    let text = String::from_utf8_lossy(&a.stdout);
    assert!(text.lines().next().unwrap_or_default().contains(":f :init"));
    let h = isocheck::history::parse_edn("gen", &text).expect("loads");
    assert_eq!(h.workload, isocheck::history::Workload::ClosedPredicate);
    let path = std::env::temp_dir().join(format!("isocheck-gen-cp-{}.edn", std::process::id()));
    std::fs::write(&path, text.as_bytes()).expect("write the history");
    let file = path.to_str().expect("utf-8 path");
    for (model, status) in [("snapshot-isolation", 0), ("serializable", 1)] {
        let out = isocheck(&["check", "-m", model, file]);
        let report = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(status), "{model}: {report}");
    }
    std::fs::remove_file(&path).expect("clean up");
    for (flag, value) in [
        ("--fault", "long-fork"),
        ("--ops", "3"),
        ("--timestamps", ""),
    ] {
        let mut refused = vec!["gen", "closed-predicate", flag];
        if !value.is_empty() {
            refused.push(value);
        }
        let o = isocheck(&refused);
        assert_eq!(o.status.code(), Some(3), "{refused:?}");
        let why = format!("{flag} does not apply to `gen closed-predicate`");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains(&why),
            "{refused:?}"
        );
    }
}

/// Per key, the values `[:w k v]` micro-ops write in a generated history.
fn writes_per_key(history: &[u8]) -> std::collections::BTreeMap<u64, Vec<u64>> {
    let text = String::from_utf8_lossy(history);
    let mut writes: std::collections::BTreeMap<u64, Vec<u64>> = Default::default();
    for line in text.lines().filter(|l| l.contains(":type :invoke")) {
        for mop in line.split("[:w ").skip(1) {
            let mut kv = mop.split([' ', ']']);
            let k = kv.next().and_then(|k| k.parse().ok()).expect("key");
            let v = kv.next().and_then(|v| v.parse().ok()).expect("value");
            writes.entry(k).or_default().push(v);
        }
    }
    writes
}

#[test]
fn rw_register_keys_retire_after_max_writes_per_key() {
    let base = [
        "gen",
        "rw-register",
        "--txns",
        "400",
        "--keys",
        "4",
        "--distribution",
        "exponential",
        "--blind-writes",
        "0.5",
        "--seed",
        "2",
    ];
    let fixed = isocheck(&base);
    assert!(fixed.status.success());
    assert_eq!(writes_per_key(&fixed.stdout).len(), 4);
    let dir = std::env::temp_dir().join(format!("isocheck-gen-retire-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("h.edn");
    let path = file.to_str().expect("utf-8 path");
    let mut args = base.to_vec();
    args.extend(["--max-writes-per-key", "3", "-o", path]);
    let o = isocheck(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let writes = writes_per_key(&std::fs::read(&file).expect("history"));
    // Fresh keys replace retired ones, each written 1, 2, 3 at most.
    assert!(writes.len() > 20, "{}", writes.len());
    for (k, vs) in &writes {
        let mut sorted = vs.clone();
        sorted.sort_unstable();
        assert!(
            sorted.len() <= 3 && sorted.iter().copied().eq(1..=sorted.len() as u64),
            "{k}: {vs:?}"
        );
    }
    let check = isocheck(&["check", "-m", "serializable", path]);
    assert_eq!(
        check.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Of a history's writes, those that repeat a value already written to
/// their key, and all the writes.
fn repeated_writes(history: &[u8]) -> (usize, usize) {
    let writes = writes_per_key(history);
    let all: usize = writes.values().map(Vec::len).sum();
    let distinct: usize = writes
        .values()
        .map(|vs| vs.iter().collect::<std::collections::BTreeSet<_>>().len())
        .sum();
    (all - distinct, all)
}

/// `gen --duplicate-values RATE` (issue 36): at RATE > 0 rw-register and
/// mini-transaction writes repeat values already written to their key,
/// about RATE of them, the same for the same seed; at 0, the default,
/// none do and the history is the one written without the option; a
/// forced fault keeps its script on fresh keys with fresh values; a RATE
/// outside 0..=1, or the option for a workload whose values cannot
/// repeat, is a usage error naming it.
#[test]
fn duplicate_values_repeat_written_values_at_their_rate() {
    for workload in ["rw-register", "mini-transactions"] {
        let base = [
            "gen", workload, "--txns", "600", "--keys", "4", "--seed", "3",
        ];
        let gen = |extra: &[&str]| {
            let o = isocheck(&[&base[..], extra].concat());
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            o.stdout
        };
        let unique = gen(&[]);
        assert_eq!(repeated_writes(&unique).0, 0, "{workload}");
        assert_eq!(gen(&["--duplicate-values", "0"]), unique, "{workload}");
        let repeated = gen(&["--duplicate-values", "0.3"]);
        assert_eq!(gen(&["--duplicate-values", "0.3"]), repeated, "{workload}");
        let (repeats, all) = repeated_writes(&repeated);
        // Each key's first write is fresh: about 30% repeat.
        let share = repeats as f64 / all as f64;
        assert!(
            (0.22..0.38).contains(&share),
            "{workload}: {repeats} of {all}"
        );
        let faulty = gen(&["--duplicate-values", "0.5", "--fault", "write-skew"]);
        let scripted = writes_per_key(&faulty).split_off(&4);
        assert!(!scripted.is_empty(), "{workload}: no fault script");
        for (k, vs) in scripted {
            let fresh: std::collections::BTreeSet<_> = vs.iter().collect();
            assert_eq!(fresh.len(), vs.len(), "{workload}: key {k} {vs:?}");
        }
    }
    for (args, says) in [
        (
            &["gen", "rw-register", "--duplicate-values", "1.5"][..],
            "--duplicate-values",
        ),
        (
            &["gen", "rw-register", "--duplicate-values", "half"],
            "not a number between 0 and 1",
        ),
        (
            &["gen", "list-append", "--duplicate-values", "0.2"],
            "(--duplicate-values) are for rw-register histories",
        ),
        (
            &["gen", "cas-register", "--duplicate-values", "0.2"],
            "--duplicate-values does not apply to `gen cas-register`",
        ),
        (
            &["gen", "closed-predicate", "--duplicate-values", "0.2"],
            "--duplicate-values does not apply to `gen closed-predicate`",
        ),
    ] {
        let o = isocheck(args);
        assert_eq!(o.status.code(), Some(3), "{args:?}");
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}

#[test]
fn a_fault_fails_the_check_from_the_command_line() {
    let dir = std::env::temp_dir().join(format!("isocheck-gen-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("h.edn");
    let file = file.to_str().expect("utf-8 path");
    let gen = [
        "gen",
        "rw-register",
        "--level",
        "snapshot-isolation",
        "-o",
        file,
    ];
    assert!(isocheck(&gen).status.success());
    assert_eq!(
        isocheck(&["check", "-m", "snapshot-isolation", file])
            .status
            .code(),
        Some(0)
    );
    let gen = [&gen[..], &["--fault", "write-skew"]].concat();
    assert!(isocheck(&gen).status.success());
    assert_eq!(
        isocheck(&["check", "-m", "snapshot-isolation", file])
            .status
            .code(),
        Some(0)
    );
    assert_eq!(
        isocheck(&["check", "-m", "serializable", file])
            .status
            .code(),
        Some(1)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A lie in the timestamps passes the black box and fails
/// `--check-timestamps`; `--timestamp-fault` writes the timestamps itself.
#[test]
fn a_timestamp_fault_fails_only_the_timestamp_check() {
    let dir = std::env::temp_dir().join(format!("isocheck-gen-cli-ts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("h.edn");
    let file = file.to_str().expect("utf-8 path");
    let gen = [
        "gen",
        "rw-register",
        "--level",
        "serializable",
        "--timestamp-fault",
        "commit-out-of-order",
        "-o",
        file,
    ];
    assert!(isocheck(&gen).status.success());
    let check = ["check", "-m", "serializable", file];
    assert_eq!(isocheck(&check).status.code(), Some(0));
    let o = isocheck(&[&check[..], &["--check-timestamps"]].concat());
    assert_eq!(o.status.code(), Some(1));
    let said = [o.stdout, o.stderr].concat();
    assert!(String::from_utf8_lossy(&said).contains("timestamp-serial-read"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bench_check_generates_then_checks() {
    let o = isocheck(&[
        "bench",
        "check",
        "--generate",
        "rw-register --txns 200 --level snapshot-isolation",
        "--models",
        "snapshot-isolation",
        "--runs",
        "1",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(v["transactions"], 200);
    assert!(v["generated"]["seconds"].as_f64().is_some());
    assert_eq!(v["runs"][0]["exit_status"], 0);
    let _ = std::fs::remove_file(v["file"].as_str().unwrap_or_default());
    let o = isocheck(&["bench", "check", "--generate", "rw-register --ops 9-1"]);
    assert_eq!(o.status.code(), Some(3));
}

/// `gen lwt --fault` (issue 32: ignored before): the faults a register can
/// show are forced and `check` finds them; the others, and the arguments
/// lwt has no use for, are usage errors naming why; `--read-ratio` is
/// honoured.
#[test]
fn lwt_honours_its_faults_and_refuses_the_rest() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("gen-cli-lwt");
    std::fs::create_dir_all(&dir).expect("scratch directory");
    let file = dir.join("h.edn");
    let file = file.to_str().expect("utf-8 path");
    let gen = [
        "gen",
        "cas-register",
        "--txns",
        "200",
        "--keys",
        "2",
        "-o",
        file,
    ];
    assert!(isocheck(&gen).status.success());
    assert_eq!(isocheck(&["check", file]).status.code(), Some(0));
    for fault in [
        "lost-update",
        "aborted-read",
        "stale-session-read",
        "realtime",
    ] {
        let args = [&gen[..], &["--fault", fault]].concat();
        assert!(isocheck(&args).status.success(), "{fault}");
        let o = isocheck(&["check", file]);
        assert_eq!(o.status.code(), Some(1), "{fault}");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("nonlinearizable"),
            "{fault}"
        );
    }
    let refused = [
        (
            &["--fault", "write-skew"][..],
            "lwt cannot inject write-skew",
        ),
        (&["--fault", "intermediate-read"], "lwt cannot inject"),
        (
            &["--fault", "realtime", "--processes", "1"],
            "at least 2 processes",
        ),
        (&["--level", "read-committed"], "--level does not apply"),
        (&["--ops", "2"], "--ops does not apply"),
        (
            &["--timestamp-fault", "commit-skew"],
            "--timestamp-fault does not apply",
        ),
        (&["--fail-rate", "0.1"], "--fail-rate does not apply"),
        (
            &["--distribution", "zipfian"],
            "--distribution does not apply",
        ),
    ];
    for (extra, says) in refused {
        let o = isocheck(&[&["gen", "lwt"][..], extra].concat());
        assert_eq!(o.status.code(), Some(3), "{extra:?}");
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(stderr.contains(says), "{extra:?}: {stderr}");
    }
    let o = isocheck(&["gen", "list-append", "--values", "3"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--values is for `gen cas-register`"));
    let reads = |ratio: &str| {
        let o = isocheck(&["gen", "lwt", "--txns", "500", "--read-ratio", ratio]);
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .filter(|l| l.contains(":type :invoke") && l.contains(":f :read"))
            .count()
    };
    assert_eq!(reads("0"), 0);
    assert!(reads("1") > 480, "{}", reads("1"));
}
