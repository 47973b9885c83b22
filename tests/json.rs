//! JSON histories (elle-cli's form) against their EDN twins in
//! `fixtures/json/`: one per workload, each written both ways, must give the
//! same verdict and byte for byte the same EDN and JSON reports (the ops a
//! report quotes are the JSON read as EDN). The human report of the JSON
//! one, which quotes the JSON file, is pinned with insta. Standard input is
//! detected as JSON by its content. Every fixture of Jepsen's checkers
//! (`fixtures/jepsen/`) has a JSON twin held to the same reports. Elle's
//! closed-predicate fixtures (`fixtures/closed-predicate/`) are written as
//! JSON here, in the test, and held to their EDN's verdicts and result maps;
//! the JSON shapes of its maps, and `--workload closed-predicate` on JSON,
//! are checked beside them.

use isocheck::history::edn::{Kind, Node};
use isocheck::history::{self, Format, History, LoadOptions, Workload};
use isocheck::CheckOptions;
use std::collections::BTreeSet;
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

/// A closed-predicate EDN history (`fixtures/closed-predicate/`) as Jepsen's
/// JSON encoding writes it: keywords as their names (`:rp` is `"rp"`,
/// `[:mod 2 0]` is `["mod", 2, 0]`), `nil` as `null`, maps as objects whose
/// keys are written as text (`{7 1}` is `{"7": 1}`, `{:x 0}` is `{"x": 0}`);
/// one object a line. Also the names of the keywords the history uses as
/// keys (`:x`), which JSON can only say as strings.
struct ClosedPredicateJson {
    text: String,
    keyword_keys: BTreeSet<String>,
}

impl ClosedPredicateJson {
    fn of(edn: &str) -> Self {
        let mut c = ClosedPredicateJson {
            text: String::new(),
            keyword_keys: BTreeSet::new(),
        };
        for op in history::edn::read_all(edn).expect("the fixture is EDN") {
            let Kind::Map(fields) = &op.kind else {
                panic!("an op map: {}", op.canonical())
            };
            let fields: Vec<String> = fields
                .iter()
                .map(|(k, v)| format!("{}: {}", c.key(k), c.value(v)))
                .collect();
            c.text.push_str(&format!("{{{}}}\n", fields.join(", ")));
        }
        c
    }

    /// A map's key as JSON text; a keyword in a value's map is a key of
    /// the history.
    fn key(&mut self, k: &Node<'_>) -> String {
        match &k.kind {
            Kind::Keyword(name) => serde_json::json!(name).to_string(),
            Kind::Int(i) => serde_json::json!(i.to_string()).to_string(),
            Kind::Str(s) => serde_json::json!(s).to_string(),
            other => panic!("a key the fixtures do not use: {other:?}"),
        }
    }

    fn value(&mut self, v: &Node<'_>) -> String {
        match &v.kind {
            Kind::Nil => "null".to_string(),
            Kind::Bool(b) => b.to_string(),
            Kind::Int(i) => i.to_string(),
            Kind::Str(s) => serde_json::json!(s).to_string(),
            Kind::Keyword(name) => serde_json::json!(name).to_string(),
            Kind::Vector(items) | Kind::List(items) => {
                if let [first, key, ..] = &items[..] {
                    let written =
                        matches!(first.kind, Kind::Keyword("r" | "w" | "insert" | "delete"));
                    if let (true, Kind::Keyword(name)) = (written, &key.kind) {
                        self.keyword_keys.insert(name.to_string());
                    }
                }
                let items: Vec<String> = items.iter().map(|x| self.value(x)).collect();
                format!("[{}]", items.join(", "))
            }
            Kind::Map(entries) => {
                let entries: Vec<String> = entries
                    .iter()
                    .map(|(k, x)| {
                        if let Kind::Keyword(name) = &k.kind {
                            self.keyword_keys.insert(name.to_string());
                        }
                        format!("{}: {}", self.key(k), self.value(x))
                    })
                    .collect();
                format!("{{{}}}", entries.join(", "))
            }
            other => panic!("a value the fixtures do not use: {other:?}"),
        }
    }

    /// `edn` (a report) with each keyword key of the history written as
    /// the string JSON says for it (`:x` as `"x"`), in canonical EDN.
    fn as_json_says(&self, edn: &str) -> String {
        let mut out = String::with_capacity(edn.len());
        let mut rest = edn;
        let delimiter = |c: char| c.is_whitespace() || ",[](){}".contains(c);
        while let Some(colon) = rest.find(':') {
            let (before, at) = rest.split_at(colon);
            out.push_str(before);
            let end = at[1..].find(delimiter).map_or(at.len(), |e| e + 1);
            let starts_token = out.chars().next_back().is_none_or(delimiter);
            match starts_token && self.keyword_keys.contains(&at[1..end]) {
                true => out.push_str(&serde_json::json!(&at[1..end]).to_string()),
                false => out.push_str(&at[..end]),
            }
            rest = &at[end..];
        }
        out.push_str(rest);
        canonical_report(&out)
    }
}

fn canonical_report(edn: &str) -> String {
    let forms = history::edn::read_all(edn).unwrap_or_else(|e| panic!("{e:?}: {edn}"));
    forms[0].canonical()
}

/// Every closed-predicate fixture, Elle's cases and the PostgreSQL runs,
/// written as JSON in the test: detected as the workload, with the same
/// verdict and the same result map as its EDN (keyword keys, which JSON
/// writes as strings, apart), in EDN and JSON.
#[test]
fn closed_predicate_fixtures_as_json_report_as_their_edn() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/closed-predicate");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("fixtures/closed-predicate")
        .filter_map(|e| {
            let name = e.expect("a directory entry").file_name();
            name.to_str()?.strip_suffix(".edn").map(str::to_string)
        })
        .collect();
    names.sort();
    assert!(names.len() >= 12, "{names:?}");
    let mut keyword_keyed = 0;
    for name in names {
        let edn_text = std::fs::read_to_string(dir.join(format!("{name}.edn"))).expect("fixture");
        let json = ClosedPredicateJson::of(&edn_text);
        let parse = |format, text: &str| {
            history::parse_text(format, &name, text.to_string(), None)
                .unwrap_or_else(|d| panic!("{name}: {d}"))
        };
        let (e, j) = (
            parse(Format::Edn, &edn_text),
            parse(Format::Json, &json.text),
        );
        assert_eq!(
            (e.workload, j.workload),
            (Workload::ClosedPredicate, Workload::ClosedPredicate),
            "{name}"
        );
        let run = |h: &History| isocheck::check(h, &CheckOptions::default()).expect("options");
        let (eo, jo) = (run(&e), run(&j));
        assert_eq!(eo.validity(), jo.validity(), "{name}");
        assert_eq!(eo.anomaly_types(), jo.anomaly_types(), "{name}");
        assert_eq!(eo.not(), jo.not(), "{name}");
        assert_eq!(
            json.as_json_says(&eo.edn(&e)),
            canonical_report(&jo.edn(&j)),
            "{name}\n{}",
            json.text
        );
        let value = |s: String| serde_json::from_str::<serde_json::Value>(&s).expect("JSON");
        assert_eq!(value(eo.json(&e)), value(jo.json(&j)), "{name}");
        keyword_keyed += usize::from(!json.keyword_keys.is_empty());
    }
    assert!(keyword_keyed > 0, "some fixtures have keyword keys");
}

/// A predicate read that misses key `1` (always 0) under `[:= 0]`, with a
/// string key `"x"` beside it, in EDN; in JSON its maps as objects (`"1"`
/// spells the integer) and as `[key, value]` pairs give the same report,
/// and pairs that make `"1"` a string name another key.
#[test]
fn closed_predicate_maps_in_json_name_the_keys_micro_ops_name() {
    let edn = r#"{:type :invoke, :process 0, :f :init, :value {1 0, "x" 0}}
{:type :ok, :process 0, :f :init, :value {1 0, "x" 0}}
{:type :invoke, :process 1, :f :txn, :value [[:rp [:= 0] nil] [:w "x" 1]]}
{:type :ok, :process 1, :f :txn, :value [[:rp [:= 0] {"x" 0}] [:w "x" 1]]}
"#;
    let json = |init: &str, rows: &str| {
        format!(
            r#"{{"type": "invoke", "process": 0, "f": "init", "value": {init}}}
{{"type": "ok", "process": 0, "f": "init", "value": {init}}}
{{"type": "invoke", "process": 1, "f": "txn", "value": [["rp", ["=", 0], null], ["w", "x", 1]]}}
{{"type": "ok", "process": 1, "f": "txn", "value": [["rp", ["=", 0], {rows}], ["w", "x", 1]]}}
"#
        )
    };
    let report = |format, text: String| {
        let h = history::parse_text(format, "t", text, None).unwrap_or_else(|d| panic!("{d}"));
        assert_eq!(h.workload, Workload::ClosedPredicate);
        let o = isocheck::check(&h, &CheckOptions::default()).expect("options");
        canonical_report(&o.edn(&h))
    };
    let want = report(Format::Edn, edn.to_string());
    assert!(
        want.contains(":predicate-read-miss") && want.contains(":key 1 "),
        "{want}"
    );
    let objects = json(r#"{"1": 0, "x": 0}"#, r#"{"x": 0}"#);
    let pairs = json(r#"[[1, 0], ["x", 0]]"#, r#"[["x", 0]]"#);
    assert_eq!(report(Format::Json, objects), want);
    assert_eq!(report(Format::Json, pairs), want);
    let string_one = report(Format::Json, json(r#"[["1", 0], ["x", 0]]"#, "[]"));
    assert!(string_one.contains(r#":key "1" "#), "{string_one}");
}

/// `--workload closed-predicate` reads a JSON history of reads and writes
/// only (which detection takes for rw-register) as the workload, on the
/// command line too.
#[test]
fn workload_closed_predicate_reads_json() {
    let text = r#"{"type": "ok", "process": 0, "f": "txn", "value": [["w", 1, 1], ["r", 2, null]]}
{"type": "ok", "process": 1, "f": "txn", "value": [["r", 1, 1], ["w", 2, 1]]}
"#;
    let read = |workload| {
        let h = history::parse_text(Format::Json, "t", text.to_string(), workload)
            .unwrap_or_else(|d| panic!("{d}"));
        h.workload
    };
    assert_eq!(read(None), Workload::RwRegister);
    let flagged = Some(Workload::ClosedPredicate);
    assert_eq!(read(flagged), Workload::ClosedPredicate);
    let args = ["--workload", "closed-predicate", "-"];
    let (status, out) = check_edn(&args, Some(text.as_bytes()));
    assert_eq!((status, out.trim()), (Some(0), "{:valid? true}"));
}
