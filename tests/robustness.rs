//! Regression tests for "never a wrong verdict, never a crash": each
//! `mod` below is one area, run against the built binary.

mod input {
    //! Reading input: keyword fields exactly, a byte order mark, processes
    //! beyond 64 bits, ratios.

    use std::path::PathBuf;
    use std::process::{Command, Output};

    /// A G1a history (exit status 1 under read-committed).
    const G1A: &str = include_str!("../fixtures/check/g1a.edn");

    fn isocheck(args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_isocheck"))
            .args(args)
            .env("NO_COLOR", "1")
            .output()
            .expect("run isocheck")
    }

    /// A file of this test process's own in the temporary directory.
    fn scratch(name: &str, bytes: &[u8]) -> PathBuf {
        let path = std::env::temp_dir().join(format!(
            "isocheck-robustness-input-{}-{name}",
            std::process::id()
        ));
        std::fs::write(&path, bytes).expect("write a scratch file");
        path
    }

    /// Exit status and stderr, the lines miette wraps joined again.
    fn status_and_message(out: &Output) -> (Option<i32>, String) {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let words: Vec<&str> = stderr
            .split(|c: char| c.is_whitespace() || c == '│')
            .filter(|w| !w.is_empty())
            .collect();
        (out.status.code(), words.join(" "))
    }

    /// `isocheck check -m read-committed` of `text`: exit status and stderr.
    fn check_text(name: &str, text: &[u8]) -> (Option<i32>, String) {
        let path = scratch(name, text);
        let out = isocheck(&[
            "check",
            path.to_str().expect("UTF-8 path"),
            "-m",
            "read-committed",
        ]);
        let _ = std::fs::remove_file(&path);
        status_and_message(&out)
    }

    #[test]
    fn g1a_fixture_is_invalid() {
        let (code, stderr) = check_text("g1a.edn", G1A.as_bytes());
        assert_eq!(code, Some(1), "{stderr}");
        assert!(stderr.contains("G1a"), "{stderr}");
    }

    /// `Afail` was read as `:fail` and `"ok"` as `:ok` followed by an
    /// unclosed string: the first byte of the type was never checked.
    #[test]
    fn type_must_be_a_keyword_exactly() {
        let cases = [
            (
                "{:type Afail, :process 0, :value [[:w 1 1]]}",
                "found a symbol Afail",
            ),
            (
                "{:type \"ok\", :process 0, :value [[:w 1 1]]}",
                "found a string \"ok\"",
            ),
            (
                "{:type :ok:, :process 0, :value [[:w 1 1]]}",
                "found a keyword :ok:",
            ),
        ];
        for (i, (text, found)) in cases.into_iter().enumerate() {
            let (code, stderr) = check_text(&format!("type-{i}.edn"), text.as_bytes());
            assert_eq!(code, Some(3), "{text}: {stderr}");
            assert!(
                stderr.contains(":type must be one of :invoke, :ok, :fail, :info"),
                "{text}: {stderr}"
            );
            assert!(stderr.contains(found), "{text}: {stderr}");
        }
    }

    /// A byte order mark before the history is skipped, so the history is
    /// judged (G1a), not refused as a symbol.
    #[test]
    fn a_leading_byte_order_mark_is_skipped() {
        let text = format!("\u{FEFF}{G1A}");
        let (code, stderr) = check_text("bom.edn", text.as_bytes());
        assert_eq!(code, Some(1), "{stderr}");
        assert!(stderr.contains("G1a"), "{stderr}");
    }

    /// An integer process is a client whatever its size (Clojure's
    /// `integer?`); beyond i64 it was silently taken for a nemesis.
    #[test]
    fn a_process_beyond_i64_is_refused() {
        let text =
            format!("{G1A}{{:type :ok, :process 9223372036854775808, :value [[:r :y nil]]}}\n");
        let (code, stderr) = check_text("big-process.edn", text.as_bytes());
        assert_eq!(code, Some(3), "{stderr}");
        assert!(
            stderr.contains(":process must be an integer within 64 bits"),
            "{stderr}"
        );
        assert!(stderr.contains("9223372036854775808"), "{stderr}");
    }

    /// Clojure writes ratios; a nemesis op holding one no longer makes the
    /// whole file a syntax error.
    #[test]
    fn a_ratio_in_a_nemesis_op_is_read() {
        let text = format!(
            "{{:type :info, :process :nemesis, :f :pause, :value 1/2}}\n{G1A}\
             {{:type :info, :process :nemesis, :f :resume, :value {{:rate -6/4}}}}\n"
        );
        let (code, stderr) = check_text("ratio.edn", text.as_bytes());
        assert_eq!(code, Some(1), "{stderr}");
        assert!(stderr.contains("G1a"), "{stderr}");
    }
}
