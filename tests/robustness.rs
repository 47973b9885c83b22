//! Robustness of the command line: never a wrong verdict, never a crash.

/// Limits: `--timeout` and `--max-memory` bound the whole check, and
/// arguments are validated rather than panicking (issue 23, items 5–7).
mod limits {
    use std::path::{Path, PathBuf};
    use std::process::{Command, Output};

    const VALID: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/check/valid.edn");

    fn isocheck(args: &[&str]) -> Output {
        let mut command = Command::new(env!("CARGO_BIN_EXE_isocheck"));
        let run = command.args(args).env("NO_COLOR", "1").output();
        run.expect("run isocheck")
    }

    fn text(bytes: &[u8]) -> String {
        String::from_utf8_lossy(bytes).into_owned()
    }

    /// A history `isocheck gen` wrote, removed when dropped.
    struct Generated(PathBuf);

    impl Drop for Generated {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    impl std::ops::Deref for Generated {
        type Target = Path;
        fn deref(&self) -> &Path {
            &self.0
        }
    }

    /// A list-append history of `txns` transactions for the test `name`.
    fn generated(name: &str, txns: u32) -> Generated {
        let n = txns.to_string();
        generated_with(name, &["list-append", "--txns", &n])
    }

    /// A history `isocheck gen` writes with `args`, for the test `name`.
    fn generated_with(name: &str, args: &[&str]) -> Generated {
        let path =
            std::env::temp_dir().join(format!("isocheck-limits-{}-{name}.edn", std::process::id()));
        let out = path.to_string_lossy().into_owned();
        let mut all = vec!["gen"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["-o", &out]);
        let o = isocheck(&all);
        assert!(o.status.success(), "{}", text(&o.stderr));
        Generated(path)
    }

    fn check(file: &Path, extra: &[&str]) -> Output {
        let file = file.to_string_lossy();
        let mut args = vec!["check", file.as_ref()];
        args.extend_from_slice(extra);
        isocheck(&args)
    }

    #[test]
    fn a_zero_timeout_stops_while_reading() {
        let file = generated("zero-timeout", 2000);
        let o = check(&file, &["--timeout", "0", "--format", "edn"]);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
        assert_eq!(
            text(&o.stdout),
            "{:valid? :unknown,\n :reason :timeout,\n :stage :reading,\n :timeout-seconds 0}\n"
        );
        let o = check(&file, &["--timeout", "0", "--format", "json"]);
        assert_eq!(o.status.code(), Some(2));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
        assert_eq!(
            (&v["reason"], &v["stage"]),
            (&"timeout".into(), &"reading".into())
        );
        let o = check(&file, &["--timeout", "0"]);
        assert_eq!(o.status.code(), Some(2));
        let err = text(&o.stderr);
        assert!(err.starts_with("unknown: timeout\n"), "{err}");
        assert!(
            err.contains("while reading the history (stage reading)"),
            "{err}"
        );
    }

    #[test]
    fn timeouts_too_long_to_represent_are_no_limit() {
        for t in ["1e19", "1e30", "1.7976931348623157e308"] {
            let o = isocheck(&["check", "--timeout", t, VALID]);
            assert_eq!(o.status.code(), Some(0), "{t}: {}", text(&o.stderr));
        }
    }

    #[test]
    fn timeouts_that_are_not_seconds_are_usage_errors() {
        for t in ["-1", "-0.5", "NaN", "inf", "soon", ""] {
            let o = isocheck(&["check", &format!("--timeout={t}"), VALID]);
            assert_eq!(o.status.code(), Some(3), "{t}");
            let err = text(&o.stderr);
            assert!(
                err.contains("is not a number of seconds (0 or more)"),
                "{t}: {err}"
            );
        }
    }

    #[test]
    fn recheck_bounds_each_whole_check() {
        let store =
            std::env::temp_dir().join(format!("isocheck-limits-store-{}", std::process::id()));
        let run = store.join("t").join("20260101T000000.000Z");
        std::fs::create_dir_all(&run).expect("store");
        std::fs::copy(&*generated("recheck", 2000), run.join("history.edn")).expect("copy");
        let dir = store.to_string_lossy().into_owned();
        let o = isocheck(&["recheck", "--timeout", "0", "--format", "json", &dir]);
        let _ = std::fs::remove_dir_all(&store);
        let rows: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
        assert_eq!(rows[0]["ours"]["valid"], "unknown", "{rows}");
        assert_eq!(
            rows[0]["ours"]["anomaly_types"][0], "timeout (reading)",
            "{rows}"
        );
    }

    #[test]
    fn a_tiny_budget_stops_before_reading_the_file() {
        let file = generated("tiny-budget", 2000);
        let o = check(&file, &["--max-memory", "1000", "--format", "edn"]);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
        let out = text(&o.stdout);
        assert!(out.starts_with("{:valid? :unknown,\n :reason :memory-limit,\n :stage :reading,\n :memory-budget 1000,"), "{out}");
        assert!(out.contains(":input-bytes-that-fit "), "{out}");
    }

    #[test]
    fn budgets_that_are_not_sizes_are_usage_errors() {
        for m in ["0", "-5", "1.5X", "lots", "1e3", "20000000000000000000"] {
            let o = isocheck(&["check", &format!("--max-memory={m}"), VALID]);
            assert_eq!(o.status.code(), Some(3), "{m}");
            assert!(text(&o.stderr).contains(&format!("`{m}` is not")), "{m}");
        }
        for m in ["100000000", "500M", "1.5G", "2GiB", "64mib"] {
            let o = isocheck(&["check", "--max-memory", m, VALID]);
            assert_eq!(o.status.code(), Some(0), "{m}: {}", text(&o.stderr));
        }
    }

    /// Each case once panicked, aborted or was silently changed; now each is
    /// a usage error (exit status 3) that names the argument.
    #[test]
    fn generator_arguments_are_validated() {
        let cases: [(&[&str], &str); 12] = [
            (
                &["list-append", "--processes", "18446744073709551615"],
                "--processes",
            ),
            (
                &["list-append", "--processes", "10000000000"],
                "is not in 1..=100000",
            ),
            (&["list-append", "--keys", "18446744073709551615"], "--keys"),
            (
                &["rw-register", "--keys", "18446744073709551614"],
                "is not in 1..=1000000",
            ),
            (
                &["rw-register", "--ops", "18446744073709551615"],
                "numbers from 1 to 10000",
            ),
            (
                &["list-append", "--ops", "1000000000", "--max-mb", "1"],
                "--ops",
            ),
            (&["list-append", "--ops", "3-2"], "`3-2` is an empty range"),
            (
                &["mini-transactions", "--ops", "9"],
                "at most 4 micro-ops, not 9",
            ),
            (&["lwt", "--keys", "0"], "'0' for '--keys"),
            (&["lwt", "--processes", "0"], "'0' for '--processes"),
            (&["lwt", "--keys", "18446744073709551615"], "--keys"),
            (
                &["list-append", "--max-writes-per-key", "0"],
                "--max-writes-per-key",
            ),
        ];
        for (args, message) in cases {
            let mut all = vec!["gen"];
            all.extend_from_slice(args);
            all.extend_from_slice(&["--txns", "3"]);
            let o = isocheck(&all);
            let err = text(&o.stderr);
            assert_eq!(o.status.code(), Some(3), "{args:?}: {err}");
            assert!(err.starts_with("error: "), "{args:?}: {err}");
            assert!(err.contains(message), "{args:?}: {err}");
            assert!(o.stdout.is_empty(), "{args:?}");
        }
    }

    #[test]
    fn the_largest_generator_arguments_run() {
        for workload in ["list-append", "lwt"] {
            let o = isocheck(&[
                "gen",
                workload,
                "--processes",
                "100000",
                "--keys",
                "1000000",
                "--txns",
                "3",
            ]);
            assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        }
    }

    /// `gen lwt` once ignored --txns-per-process and wrote 1,000 ops.
    #[test]
    fn lwt_counts_ops_per_process() {
        let o = isocheck(&["gen", "lwt", "--txns-per-process", "3", "--processes", "2"]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        let invocations = text(&o.stdout).matches(":type :invoke").count();
        assert_eq!(invocations, 6);
    }

    /// The largest transactions are a few hundred kilobytes, so `--max-mb`
    /// stops a run of a billion transactions (once 10 GB) soon after the limit.
    #[test]
    fn max_mb_stops_the_largest_transactions_promptly() {
        let o = isocheck(&[
            "gen",
            "rw-register",
            "--ops",
            "10000",
            "--txns",
            "1000000000",
            "--max-mb",
            "1",
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        let bytes = o.stdout.len();
        // Transactions in flight complete after the limit: ten processes,
        // a few hundred kilobytes each.
        assert!((1_000_000..10_000_000).contains(&bytes), "{bytes} bytes");
    }

    #[test]
    fn bench_sizes_are_validated() {
        let o = isocheck(&["bench", "parse", "--mb", "18446744073709551615"]);
        assert_eq!(o.status.code(), Some(3));
        assert!(text(&o.stderr).contains("is not in 1..=1000000"));
    }

    /// Blind writes to two keys leave some 10^8 pairs of writes unordered:
    /// inference alone needs more than 10 GB. The budget stops it there, at
    /// a poll in the pair loops or before the pairs are allocated.
    #[test]
    fn a_budget_stops_quadratic_inference() {
        let args = [
            "rw-register",
            "--txns",
            "20000",
            "--blind-writes",
            "1",
            "--keys",
            "2",
        ];
        let file = generated_with("blind", &args);
        let o = check(&file, &["--max-memory", "200M", "--format", "edn"]);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
        let out = text(&o.stdout);
        let head = "{:valid? :unknown,\n :reason :memory-limit,\n :stage :inference,\n \
                    :memory-budget 200000000,\n";
        assert!(out.starts_with(head), "{out}");
        assert!(out.contains(":ops-that-fit "), "{out}");
    }

    /// Runs `check` under an address-space limit of `kib` KiB (`ulimit -v`,
    /// so no crate is needed to call setrlimit).
    fn check_under_ulimit(kib: u32, file: &Path, extra: &str) -> Output {
        let script = format!("ulimit -v {kib} && exec \"$0\" check --format edn {extra} \"$1\"",);
        Command::new("sh")
            .arg("-c")
            .arg(script)
            .arg(env!("CARGO_BIN_EXE_isocheck"))
            .arg(file)
            .output()
            .expect("run sh")
    }

    /// 50,000 transactions need about 75 MB; under a 100 MB address space
    /// (a third of it the binary, the ballast and the stacks) the default
    /// budget, derived from the limit, stops the check; with a budget far
    /// above the limit the system's refusal does. Neither aborts.
    #[test]
    fn an_address_space_limit_is_a_memory_limit_answer() {
        let file = generated("ulimit", 50_000);
        for extra in ["", "--max-memory 100G"] {
            let o = check_under_ulimit(100_000, &file, extra);
            let out = text(&o.stdout);
            assert_eq!(
                o.status.code(),
                Some(2),
                "{extra}: {out}{}",
                text(&o.stderr)
            );
            assert!(
                out.starts_with("{:valid? :unknown,\n :reason :memory-limit,\n :stage "),
                "{out}"
            );
            assert!(out.contains("-that-fit "), "{out}");
        }
    }
}
