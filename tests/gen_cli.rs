//! `isocheck gen` on the command line: every workload, level and fault
//! loads and is deterministic; bad combinations are usage errors (exit 3);
//! `bench check --generate` generates then checks.

use std::process::{Command, Output};

fn isocheck(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_isocheck"))
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
    ] {
        let o = isocheck(args);
        assert_eq!(o.status.code(), Some(3), "{args:?}");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("error"),
            "{args:?}"
        );
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
