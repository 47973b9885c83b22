//! Never a wrong verdict, never a crash: regression tests that run the built
//! binary on inputs and outputs that once made it panic or misreport.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// `isocheck` run from the crate root, without colour.
fn isocheck() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_isocheck"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1");
    c
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A scratch directory removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("isocheck-robustness-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch directory");
        Scratch(dir)
    }

    /// Writes `text` to `name` in the directory and returns its path.
    fn file(&self, name: &str, text: &str) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, text).expect("write scratch file");
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn assert_no_panic(o: &Output) {
    let err = stderr(o);
    assert!(
        !err.contains("panicked") && o.status.code() != Some(101),
        "status {:?}, stderr:\n{err}",
        o.status.code()
    );
}

/// Output: closed pipes, full disks, unwritable directories.
mod output {
    use super::*;

    const INVALID: &str = "fixtures/check/g1c.edn";
    const VALID: &str = "fixtures/check/valid.edn";

    /// Runs `args` with the chosen stream a pipe whose reader is closed at
    /// once: whatever the command writes there after that meets EPIPE.
    fn with_closed(args: &[&str], stream: &str) -> Output {
        let mut c = isocheck();
        c.args(args).stdin(Stdio::null());
        let (out, err) = match stream {
            "stdout" => (Stdio::piped(), Stdio::piped()),
            _ => (Stdio::null(), Stdio::piped()),
        };
        c.stdout(out).stderr(err);
        let mut child = c.spawn().expect("run isocheck");
        if stream == "stdout" {
            drop(child.stdout.take());
        } else {
            drop(child.stderr.take());
        }
        child.wait_with_output().expect("wait for isocheck")
    }

    fn assert_quiet_end(o: &Output, what: &str) {
        assert_no_panic(o);
        assert!(
            matches!(o.status.code(), Some(0) | Some(141)),
            "{what}: status {:?}, stderr:\n{}",
            o.status.code(),
            stderr(o)
        );
        assert!(
            !stderr(o).contains("error"),
            "{what}: a closed pipe is no error:\n{}",
            stderr(o)
        );
    }

    #[test]
    fn a_closed_stdout_ends_quietly() {
        for args in [
            &["check", "--format", "edn", INVALID][..],
            &["check", "--format", "json", INVALID],
            &["check", "--format", "edn", "fixtures/lwt/valid.edn"],
            &["stats", VALID],
            &["stats", "--format", "json", VALID],
            &["gen", "list-append", "--txns", "100"],
            &["bench", "load", "--file", VALID, "--runs", "1"],
        ] {
            let o = with_closed(args, "stdout");
            assert_quiet_end(&o, &args.join(" "));
        }
    }

    #[test]
    fn a_closed_stderr_ends_the_human_report_quietly() {
        for args in [
            &["check", INVALID][..],
            &["check", "fixtures/malformed/truncated.edn"],
        ] {
            let o = with_closed(args, "stderr");
            assert_no_panic(&o);
            assert!(
                matches!(o.status.code(), Some(0) | Some(141)),
                "{args:?}: status {:?}",
                o.status.code()
            );
        }
    }

    #[test]
    fn a_closed_stderr_keeps_the_status_of_a_one_line_error() {
        for args in [
            &["check", "-m", "no-such-model", INVALID][..],
            &["recheck", "no-such-store"],
            &["bench", "load", "--file", "no-such-file.edn", "--runs", "1"],
        ] {
            let o = with_closed(args, "stderr");
            assert_no_panic(&o);
            assert_eq!(o.status.code(), Some(3), "{args:?}");
        }
    }

    #[test]
    fn a_closed_stdout_ends_recheck_quietly() {
        let store = Scratch::new("closed-recheck");
        let run = store.0.join("test/20240101T000000");
        std::fs::create_dir_all(&run).expect("run directory");
        std::fs::copy(
            Path::new(env!("CARGO_MANIFEST_DIR")).join(VALID),
            run.join("history.edn"),
        )
        .expect("copy history");
        let path = store.0.to_string_lossy().into_owned();
        for format in ["human", "json"] {
            let o = with_closed(&["recheck", &path, "--format", format], "stdout");
            assert_quiet_end(&o, &format!("recheck --format {format}"));
        }
    }

    /// Runs `args` with stdout `/dev/full`, where every write fails with ENOSPC.
    fn to_full_disk(args: &[&str]) -> Option<Output> {
        let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
            eprintln!("skipping: no /dev/full on this system");
            return None;
        };
        let o = isocheck()
            .args(args)
            .stdout(full)
            .output()
            .expect("run isocheck");
        Some(o)
    }

    #[test]
    fn a_full_disk_is_one_line_and_status_3() {
        for args in [
            &["check", "--format", "edn", INVALID][..],
            &["check", "--format", "json", VALID],
            &["stats", VALID],
            &["gen", "rw-register", "--txns", "10"],
            &[
                "bench", "parse", "--file", VALID, "--runs", "1", "--format", "json",
            ],
        ] {
            let Some(o) = to_full_disk(args) else { return };
            assert_no_panic(&o);
            assert_eq!(o.status.code(), Some(3), "{args:?}: {}", stderr(&o));
            let err = stderr(&o);
            assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
            assert!(err.starts_with("error: cannot write"), "{args:?}: {err}");
            assert!(err.contains("No space left on device"), "{args:?}: {err}");
        }
    }

    #[test]
    fn an_unwritable_directory_keeps_the_verdicts_status() {
        let scratch = Scratch::new("unwritable-dir");
        // A directory below a regular file cannot be created.
        let file = scratch.file("not-a-directory", "");
        let dir = file.join("artifacts");
        let dir = dir.to_string_lossy();
        let o = isocheck()
            .args(["check", INVALID, "--directory", &dir])
            .output()
            .expect("run isocheck");
        assert_no_panic(&o);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let err = stderr(&o);
        assert!(err.starts_with("invalid: G1c"), "{err}");
        assert!(
            err.contains(&format!("error: cannot write to {dir}: ")),
            "{err}"
        );
        let o = isocheck()
            .args(["check", VALID, "--directory", &dir])
            .output()
            .expect("run isocheck");
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
}

/// The human report on cycles of thousands of transactions.
mod long_cycles {
    use super::*;

    /// A history whose only anomaly is one G1c cycle through `n`
    /// transactions: each appends to its own key and reads its
    /// predecessor's append; all concurrent, one per process.
    fn cycle(n: usize) -> String {
        let op = |i: usize, ty: &str, read: &str| {
            let index = if ty == "ok" { n + i } else { i };
            let prev = (i + n - 1) % n;
            format!(
                "{{:index {index}, :type :{ty}, :process {i}, :f :txn, \
                 :value [[:append {i} 1] [:r {prev} {read}]]}}\n"
            )
        };
        let invokes = (0..n).map(|i| op(i, "invoke", "nil"));
        invokes.chain((0..n).map(|i| op(i, "ok", "[1]"))).collect()
    }

    #[test]
    fn a_20k_cycle_shows_its_head_and_tail_and_the_directory_all_of_it() {
        let n = 20_000;
        let scratch = Scratch::new("long-cycle");
        let path = scratch.file("cycle.edn", &cycle(n));
        let dir = scratch.0.join("artifacts");
        let o = isocheck()
            .arg("check")
            .arg(&path)
            .arg("--directory")
            .arg(&dir)
            .output()
            .expect("run isocheck");
        assert_no_panic(&o);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let err = stderr(&o);
        assert!(err.starts_with("invalid: G1c\n"), "{err}");
        // Twenty transactions and steps shown, whatever the length: the
        // report is bounded (the quadratic rendering had 40,000 labels).
        assert!(err.len() < 30_000, "{} bytes", err.len());
        assert!(
            err.contains("… 19980 more transactions, T11 to T19990"),
            "{err}"
        );
        assert!(err.contains("- … 19980 more steps …"), "{err}");
        assert!(
            err.contains("T20000 observed T19999's append of 1"),
            "{err}"
        );
        assert!(err.contains("T1 observed T20000's append of 1"), "{err}");
        let txt = std::fs::read_to_string(dir.join("G1c.txt")).expect("G1c.txt");
        assert_eq!(txt.matches(" = {:index").count(), n);
        assert!(txt.contains("T19999 < T20000, because T20000 observed T19999's append"));
    }
}

/// Diagnostics and reports on one-line histories: a window of the line,
/// never the whole of it, and no panic past column 65,535.
mod long_lines {
    use super::*;

    /// `n` committed appends on one line (a form the README accepts).
    fn one_line(n: usize) -> String {
        let ops: Vec<String> = (0..n)
            .flat_map(|i| {
                ["invoke", "ok"].map(|ty| {
                    format!(
                        "{{:index {}, :type :{ty}, :process 0, :f :txn, :value [[:append 1 {i}]]}}",
                        2 * i + usize::from(ty == "ok")
                    )
                })
            })
            .collect();
        ops.join(" ")
    }

    #[test]
    fn a_syntax_error_at_the_end_of_a_long_line() {
        let scratch = Scratch::new("long-line-syntax");
        let text = format!("{} {{:index 1 :type", one_line(3_000));
        assert!(text.len() > 400_000);
        let column = text.rfind(":type").expect("the key") + 1;
        let path = scratch.file("h.edn", &text);
        let o = isocheck().arg("check").arg(&path).output().expect("run");
        assert_no_panic(&o);
        assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
        let err = stderr(&o);
        assert!(err.len() < 1_000, "{} bytes:\n{err}", err.len());
        assert!(err.contains(&format!("h.edn:1:{column}: map has a key without a value")));
        assert!(
            err.contains("…n, :value [[:append 1 2999]]} {:index 1 :type"),
            "{err}"
        );
    }

    #[test]
    fn an_invalid_one_line_history_under_the_human_report() {
        let scratch = Scratch::new("long-line-invalid");
        let g1c = [
            "{:index 6000, :type :invoke, :process 1, :f :txn, :value [[:append 2 1] [:r 3 nil]]}",
            "{:index 6001, :type :invoke, :process 2, :f :txn, :value [[:append 3 1] [:r 2 nil]]}",
            "{:index 6002, :type :ok, :process 1, :f :txn, :value [[:append 2 1] [:r 3 [1]]]}",
            "{:index 6003, :type :ok, :process 2, :f :txn, :value [[:append 3 1] [:r 2 [1]]]}",
        ];
        let text = format!("{} {}\n", one_line(3_000), g1c.join(" "));
        let path = scratch.file("h.edn", &text);
        let o = isocheck().arg("check").arg(&path).output().expect("run");
        assert_no_panic(&o);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let err = stderr(&o);
        assert!(err.starts_with("invalid: G1c\n"), "{err}");
        assert!(err.len() < 4_000, "{} bytes:\n{err}", err.len());
        assert!(err.contains("T2 observed T1's append of 1"), "{err}");
    }
}

/// Control characters from a history are escaped on the terminal.
mod control_characters {
    use super::*;

    const RED: &str = "\u{1b}[31m";

    #[test]
    fn an_ansi_escape_in_a_key_is_escaped_in_the_report() {
        let scratch = Scratch::new("ansi-report");
        let k = format!("\"{RED}red\"");
        let text = [
            format!("{{:index 0, :type :invoke, :process 1, :f :txn, :value [[:append {k} 1] [:r :y nil]]}}"),
            format!("{{:index 1, :type :invoke, :process 2, :f :txn, :value [[:append :y 1] [:r {k} nil]]}}"),
            format!("{{:index 2, :type :ok, :process 1, :f :txn, :value [[:append {k} 1] [:r :y [1]]]}}"),
            format!("{{:index 3, :type :ok, :process 2, :f :txn, :value [[:append :y 1] [:r {k} [1]]]}}"),
        ]
        .join("\n");
        let path = scratch.file("h.edn", &text);
        let o = isocheck().arg("check").arg(&path).output().expect("run");
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let err = stderr(&o);
        assert!(!err.contains('\u{1b}'), "{err:?}");
        // In the source lines and the help's ops.
        assert!(err.contains("[:append \"\\u{1b}[31mred\" 1]"), "{err}");
        assert!(err.contains(":value [[:append :y 1] [:r"), "{err}");
    }

    #[test]
    fn an_ansi_escape_in_a_syntax_error_is_escaped() {
        let scratch = Scratch::new("ansi-syntax");
        let path = scratch.file("h.edn", &format!("{{:index 1 {RED} :type}}\n"));
        let o = isocheck().arg("check").arg(&path).output().expect("run");
        assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
        let err = stderr(&o);
        assert!(!err.contains('\u{1b}'), "{err:?}");
        assert!(err.contains("invalid symbol or keyword `\\u{1b}`"), "{err}");
        assert!(err.contains(" 1 │ {:index 1 \\u{1b}[31m :type}"), "{err}");
    }
}
