//! Value equality is Clojure's `=` (what Elle and Jepsen's checkers use):
//! isocheck's canonical text of a value, which decides which keys, values,
//! list elements, set elements and accounts are the same, held to what real
//! Clojure answered, and the histories of `fixtures/values/` checked with
//! the verdicts their equality implies.
//!
//! The answers are in `tests/data/clojure-values.tsv`, written by
//! `scripts/clojure-values.clj` (Clojure 1.11.1 on OpenJDK 17, every value
//! read with `clojure.edn/read-string`). Among them, as Clojure printed them:
//!
//! - `(= 10M 1E1M)` true, `(= 1.50M 1.5M)` true, `(= 0M 0E5M)` true:
//!   BigDecimals are equal whatever their scale; `1E2147483648M` is an error
//!   ("Exponent overflow."), `1E-2147483648M` too ("Scale out of range.").
//! - `(= 0.0 -0.0)` true, and their hashes are equal (`#{0.0 -0.0}` is
//!   "Duplicate key: -0.0"); `(= 1e400 ##Inf)` true.
//! - `(= 1 1N)` true, `(= 1 1.0)` false, `(= 1 1M)` false, `(= 1.0 1.0M)`
//!   false, `(= 1/2 0.5)` false, `(= 0.5 0.5M)` false: integers, floats,
//!   decimals and ratios are four categories; `(= 2/4 1/2)` true,
//!   `(= 4/2 2)` true (a ratio that divides reads as an integer),
//!   `(= 017 15)` true (octal).
//! - `(= #inst "2020-01-01T00:00:00Z" #inst "2020-01-01T01:00:00+01:00")`
//!   true, `(= #inst "2020" #inst "2020-01-01T00:00:00Z")` true,
//!   `(= #inst "2020-01-01T00:00:00.000Z" #inst "2020-01-01T00:00:00.0009Z")`
//!   true (a `java.util.Date` holds milliseconds); `.0009Z` and `.001Z` are
//!   not equal; `#inst "1582-10-05"` is `#inst "1582-10-15"` (the Julian
//!   calendar before the Gregorian one); `#inst "2020-13-01"` is an error.
//! - `(= #uuid "6ba7b810-…" #uuid "6BA7B810-…")` true; a `#uuid` is not `=`
//!   to its string; `#uuid "1-2-3-4-5"` reads as
//!   `00000001-0002-0003-0004-000000000005` and `#uuid "123456789-1-1-1-1"`
//!   as `23456789-…` (Java 17 drops a digit), which isocheck refuses.
//! - `(= "a" :a)`, `(= :a 'a)`, `(= \a "a")` false; `(= \a \u0061)` true;
//!   `(= "\uD83D\uDE00" "😀")` true (Java strings are UTF-16).
//! - `##NaN`: two read from one text are `=` (the reader hands out one
//!   object), a fresh `(Double/valueOf "NaN")` is not, `(get {nan 1} nan)`
//!   is nil and `(contains? #{nan} nan)` true: isocheck refuses NaN.

use isocheck::history::edn::read_all;
use isocheck::history::model::MopValue;
use isocheck::history::{load, LoadOptions};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(name)
}

/// The canonical text of the one value `text` holds, or `None` when the
/// reader refuses it.
fn canonical(text: &str) -> Option<String> {
    match read_all(text).ok()?.as_slice() {
        [n] => Some(n.canonical()),
        _ => None,
    }
}

/// The lines of the Clojure answers, split at tabs.
fn clojure_lines() -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(data("tests/data/clojure-values.tsv"))
        .unwrap_or_else(|e| panic!("tests/data/clojure-values.tsv: {e}"));
    text.lines()
        .map(|l| l.split('\t').map(String::from).collect())
        .collect()
}

/// Which UUID texts isocheck refuses though Java reads them: all but the
/// 8-4-4-4-12 hex form.
fn canonical_uuid_form(text: &str) -> bool {
    let inner = text
        .strip_prefix("#uuid \"")
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or("");
    inner.len() == 36
        && inner.char_indices().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// For each kind of scalar, Clojure's key of each value (its millisecond,
/// its stripped unscaled value and scale, its bits) and isocheck's canonical
/// text must match one to one: equal keys, equal texts; different keys,
/// different texts. Where Clojure refuses a text, isocheck does too.
#[test]
fn scalars_are_equal_when_clojure_says_so() {
    let mut checked = HashMap::<&str, usize>::new();
    let mut by_key: HashMap<(String, String), String> = HashMap::new();
    let mut by_canon: HashMap<String, String> = HashMap::new();
    let lines = clojure_lines();
    for l in lines.iter().filter(|l| l[0] != "pair") {
        let [kind, text, key] = [&l[0], &l[1], &l[2]];
        let ours = canonical(text);
        match (key.as_str(), ours) {
            ("error", None) => {}
            ("error", Some(c)) => panic!("{kind} {text}: Clojure refuses it, isocheck reads {c}"),
            (_, None) if kind == "uuid" && !canonical_uuid_form(text) => {}
            (_, None) => panic!("{kind} {text}: Clojure reads it ({key}), isocheck refuses it"),
            (_, Some(c)) => {
                let seen = by_key
                    .entry((kind.clone(), key.clone()))
                    .or_insert(c.clone());
                assert_eq!(*seen, c, "{kind} {text}: Clojure's {key} is also {seen}");
                let seen = by_canon.entry(c.clone()).or_insert(key.clone());
                assert_eq!(*seen, *key, "{kind} {text}: {c} is also Clojure's {seen}");
            }
        }
        *checked.entry(kind.as_str()).or_default() += 1;
    }
    for (kind, at_least) in [
        ("inst", 3000),
        ("uuid", 900),
        ("decimal", 1500),
        ("float", 20),
    ] {
        assert!(
            checked.get(kind).copied().unwrap_or(0) >= at_least,
            "{kind}: {checked:?}"
        );
    }
}

/// `=` on pairs across categories and in collections: isocheck's canonical
/// texts are equal exactly when Clojure's `=` says true.
#[test]
fn pairs_are_equal_when_clojure_says_so() {
    let mut pairs = 0;
    for l in clojure_lines().iter().filter(|l| l[0] == "pair") {
        let [a, b, answer] = [&l[1], &l[2], &l[3]];
        let (x, y) = (canonical(a), canonical(b));
        let (Some(x), Some(y)) = (&x, &y) else {
            panic!("{a} / {b}: isocheck refuses one ({x:?}, {y:?})");
        };
        assert_eq!((x == y).to_string(), *answer, "(= {a} {b}): {x} / {y}");
        pairs += 1;
    }
    assert!(pairs > 4000, "{pairs} pairs");
}

/// One line of `fixtures/values/expected.tsv`.
struct Expected {
    file: String,
    /// `true`, `false` or `refused`.
    verdict: String,
    /// An anomaly type the verdict names, or the words of the refusal.
    detail: String,
}

fn expected() -> Vec<Expected> {
    let text = std::fs::read_to_string(data("fixtures/values/expected.tsv"))
        .unwrap_or_else(|e| panic!("fixtures/values/expected.tsv: {e}"));
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let cells: Vec<&str> = l.split('\t').collect();
            let cell = |i: usize| cells.get(i).map_or("", |c| c.trim()).to_string();
            Expected {
                file: cell(0),
                verdict: cell(1),
                detail: cell(2),
            }
        })
        .collect()
}

/// `isocheck check` on a fixture: exit status, stdout and stderr.
fn check(file: &Path) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_isocheck"))
        .env("ISOCHECK_PROGRESS", "off")
        .args(["check", "--format", "edn"])
        .arg(file)
        .output()
        .expect("run isocheck");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

/// Every history of `fixtures/values/` gets the verdict its values'
/// equality implies: valid when the read value is `=` to the written one,
/// a violation when it is not, exit status 3 (with the place) for values
/// isocheck refuses to compare.
#[test]
fn fixtures_get_the_verdicts_equality_implies() {
    let all = expected();
    assert!(all.len() >= 60, "{} fixtures", all.len());
    let dir = data("fixtures/values");
    for e in &all {
        let path = dir.join(&e.file);
        let (code, out, err) = check(&path);
        match e.verdict.as_str() {
            "refused" => {
                assert_eq!(code, Some(3), "{}: {out}{err}", e.file);
                assert!(err.contains(&e.detail), "{}: {err}", e.file);
                let place = format!("{}:", e.file);
                assert!(err.contains(&place), "{}: no place in {err}", e.file);
            }
            valid => {
                assert!(
                    out.contains(&format!(":valid? {valid}")),
                    "{}: expected :valid? {valid}, got {out}{err}",
                    e.file
                );
                assert!(
                    out.contains(&e.detail),
                    "{}: no {} in {out}",
                    e.file,
                    e.detail
                );
            }
        }
    }
    // Every history in the directory has an expected verdict.
    let listed: Vec<&str> = all.iter().map(|e| e.file.as_str()).collect();
    for entry in std::fs::read_dir(&dir).expect("fixtures/values") {
        let name = entry
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        if name.ends_with(".edn") || name.ends_with(".json") {
            assert!(
                listed.contains(&name.as_str()),
                "{name} has no line in expected.tsv"
            );
        }
    }
}

/// The EDN and JSON of one history read to the same values (the keys
/// differ: elle-cli reads JSON's `"x"` as a string).
#[test]
fn json_twins_read_as_their_edn() {
    let dir = data("fixtures/values");
    for name in ["negative-zero.register", "integer-float.register"] {
        let read = |ext: &str| {
            let h = load(&dir.join(format!("{name}.{ext}")), &LoadOptions::default())
                .unwrap_or_else(|e| panic!("{name}.{ext}: {e:?}"));
            let text = |v| h.values.display(v);
            h.mops
                .iter()
                .map(|m| match m.value() {
                    MopValue::Val(v) => text(v),
                    MopValue::List { start, len } => {
                        let list = &h.elems[start as usize..(start + len) as usize];
                        let items: Vec<String> = list.iter().map(|&v| text(v)).collect();
                        items.join(" ")
                    }
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(read("edn"), read("json"), "{name}");
    }
}
