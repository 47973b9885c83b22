//! JSON histories (elle-cli's form) against their EDN twins in
//! `fixtures/json/`: one per workload, each written both ways, must give the
//! same verdict and byte for byte the same EDN and JSON reports (the ops a
//! report quotes are the JSON read as EDN). The human report of the JSON
//! one, which quotes the JSON file, is pinned with insta. Standard input is
//! detected as JSON by its content. Every fixture of Jepsen's checkers
//! (`fixtures/jepsen/`) has a JSON twin held to the same reports.

use isocheck::history::{self, Format, History, LoadOptions, Workload};
use isocheck::CheckOptions;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// Each fixture, its workload and whether it is valid.
const FIXTURES: &[(&str, Workload, bool)] = &[
    ("list-append", Workload::ListAppend, false),
    ("rw-register", Workload::RwRegister, false),
    ("cas-register", Workload::CasRegister, false),
    ("cas-register-independent", Workload::CasRegister, true),
    ("mutex", Workload::Mutex, true),
    ("bank", Workload::Bank, false),
];

fn load(rel: &str) -> History {
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).expect("cd to the crate");
    history::load(Path::new(rel), &LoadOptions::default()).unwrap_or_else(|d| panic!("{d}"))
}

#[test]
fn json_fixtures_report_as_their_edn_twins() {
    for &(name, workload, valid) in FIXTURES {
        let edn = load(&format!("fixtures/json/{name}.edn"));
        let json = load(&format!("fixtures/json/{name}.json"));
        assert!(json.json && !edn.json, "{name}");
        assert_eq!(
            (edn.workload, json.workload),
            (workload, workload),
            "{name}"
        );
        let opts = CheckOptions::default();
        let run = |h: &History| isocheck::check(h, &opts).expect("valid options");
        let (e, j) = (run(&edn), run(&json));
        let expected = if valid { "True" } else { "False" };
        assert_eq!(format!("{:?}", j.validity()), expected, "{name}");
        assert_eq!(e.edn(&edn), j.edn(&json), "{name}");
        assert_eq!(e.json(&edn), j.json(&json), "{name}");
        insta::assert_snapshot!(format!("json_{name}"), j.human(&json, false));
    }
}

#[test]
fn both_framings_read_alike() {
    // list-append.json is one array; rw-register.json one object a line.
    let array = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/json/list-append.json"),
    )
    .expect("fixture");
    assert!(array.starts_with('['));
    let lines = array
        .trim()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .replace("},\n {", "}\n{");
    let parse = |text: &str| {
        history::parse_text(Format::Json, "t", text.to_string(), None)
            .unwrap_or_else(|d| panic!("{d}"))
    };
    let report = |h: &History| {
        let o = isocheck::check(h, &CheckOptions::default()).expect("valid options");
        o.edn(h)
    };
    let (a, l) = (parse(&array), parse(&lines));
    assert_eq!(a.ops.len(), 10);
    assert_eq!(report(&a), report(&l));
}

/// `isocheck check --format edn` of `path`, or of `stdin` piped to `-`.
fn check_edn(args: &[&str], stdin: Option<&[u8]>) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_isocheck"))
        .env("ISOCHECK_PROGRESS", "off")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["check", "--format", "edn"])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run isocheck");
    let mut pipe = child.stdin.take().expect("stdin");
    pipe.write_all(stdin.unwrap_or_default())
        .expect("write stdin");
    drop(pipe);
    let o = child.wait_with_output().expect("isocheck ends");
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
    )
}

#[test]
fn a_pipe_is_detected_as_json_by_its_content() {
    let rel = "fixtures/json/rw-register.json";
    let bytes = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).expect("fixture");
    let from_file = check_edn(&[rel], None);
    let from_pipe = check_edn(&["-"], Some(&bytes));
    assert_eq!(from_file.0, Some(1), "{}", from_file.1);
    assert_eq!(from_file, from_pipe);
    assert!(from_pipe.1.contains(":G1c"), "{}", from_pipe.1);
}

#[test]
fn input_format_json_reads_a_file_of_any_name() {
    let rel = "fixtures/json/cas-register-independent.json";
    let dir = std::env::temp_dir().join(format!("isocheck-json-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let renamed = dir.join("history.txt");
    std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel), &renamed).expect("copy");
    let path = renamed.display().to_string();
    let (status, out) = check_edn(&["--input-format", "json", &path], None);
    assert_eq!((status, out.trim()), (Some(0), "{:valid? true}"));
    std::fs::remove_dir_all(&dir).expect("clean up");
}

/// Every fixture of Jepsen's checkers (`fixtures/jepsen/NAME.edn`) beside its
/// JSON twin (`NAME.json`, written by `scripts/edn-history-to-json.py`): the
/// same verdict, and byte for byte the same EDN and JSON reports. Bank's
/// account keys are the one exception JSON forces: an object's keys are
/// strings, so the twin's reads hold `"0"` where the EDN holds `0`; for bank
/// a quoted integer in either report is read as the integer.
#[test]
fn jepsen_checker_fixtures_report_as_their_json_twins() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/jepsen");
    let stems = |ext: &str| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .expect("fixtures/jepsen")
            .filter_map(|e| {
                let path = e.expect("a directory entry").path();
                let stem = path.file_stem()?.to_str()?.to_string();
                (path.extension()? == ext).then_some(stem)
            })
            .collect();
        names.sort();
        names
    };
    let names = stems("json");
    assert_eq!(names, stems("edn"), "every EDN fixture has a JSON twin");
    for name in names {
        let workload = name.starts_with("long-fork").then_some(Workload::LongFork);
        let read = |ext: &str, format: Format| {
            let path = dir.join(format!("{name}.{ext}"));
            let text = std::fs::read_to_string(&path).expect("fixture");
            history::parse_text(format, &name, text, workload).unwrap_or_else(|d| panic!("{d}"))
        };
        let (edn, json) = (read("edn", Format::Edn), read("json", Format::Json));
        assert!(json.json && !edn.json, "{name}");
        let run =
            |h: &History| isocheck::check(h, &CheckOptions::default()).expect("valid options");
        let (e, j) = (run(&edn), run(&json));
        assert_eq!(e.validity(), j.validity(), "{name}");
        let keys = |report: String| match name.starts_with("bank") {
            true => unquote_integers(&report),
            false => report,
        };
        assert_eq!(keys(e.edn(&edn)), keys(j.edn(&json)), "{name}");
        assert_eq!(keys(e.json(&edn)), keys(j.json(&json)), "{name}");
    }
}

/// `s` with every string literal that holds just an integer (`"12"`, `"-3"`)
/// written as the integer; other strings, escapes and all, are left alone.
fn unquote_integers(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(open) = rest.find('"') {
        out.push_str(&rest[..open]);
        let body = &rest[open + 1..];
        let close = string_end(body);
        let inner = &body[..close];
        let digits = inner.strip_prefix('-').unwrap_or(inner);
        match !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            true => out.push_str(inner),
            false => out.push_str(&rest[open..(open + close + 2).min(rest.len())]),
        }
        rest = &body[(close + 1).min(body.len())..];
    }
    out.push_str(rest);
    out
}

/// Where the string literal whose body starts `body` closes: the index of
/// its unescaped closing quote, or the end.
fn string_end(body: &str) -> usize {
    let mut escaped = false;
    for (i, b) in body.bytes().enumerate() {
        match b {
            _ if escaped => escaped = false,
            b'\\' => escaped = true,
            b'"' => return i,
            _ => {}
        }
    }
    body.len()
}

#[test]
fn unquote_integers_touches_integer_strings_alone() {
    assert_eq!(
        unquote_integers(r#"{"0" 10, "a\"1" [-2 "-3"], "" "x"#),
        r#"{0 10, "a\"1" [-2 -3], "" "x"#
    );
}
