//! The Fressian reader and the `test.jepsen` reader on files the JVM
//! wrote (`fixtures/fressian/`, by `scripts/fressian-fixtures.clj` with
//! Debian's clojure, data.fressian and fressian): every value decodes to
//! what was written, and the test maps give the options recheck uses.

use isocheck::store::fressian::{self, decimal, Limits, Value};
use isocheck::store::{jepsen_file, read_options, TestFile};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/fressian")
        .join(name)
}

/// A string as the script's `describe-string`: long ones by length and
/// Java's `String.hashCode`, short ones quoted with every UTF-16 unit
/// outside printable ASCII as `\uXXXX`.
fn describe_string(s: &str) -> String {
    let units: Vec<u16> = s.encode_utf16().collect();
    if units.len() > 100 {
        let hash = units
            .iter()
            .fold(0i32, |h, &u| h.wrapping_mul(31).wrapping_add(i32::from(u)));
        return format!("str#{}#{hash}", units.len());
    }
    let mut out = String::from("\"");
    for u in units {
        match u {
            0x20..=0x7E if u != u16::from(b'"') && u != u16::from(b'\\') => {
                out.push(char::from(u as u8))
            }
            _ => out.push_str(&format!("\\u{u:04X}")),
        }
    }
    out.push('"');
    out
}

fn named(ns: &Option<String>, name: &str) -> String {
    match ns {
        Some(ns) => format!("{ns}/{name}"),
        None => name.to_string(),
    }
}

fn seq<'a>(open: &str, xs: impl Iterator<Item = &'a Value>, close: &str) -> String {
    let items: Vec<String> = xs.map(describe).collect();
    format!("{open}{}{close}", items.join(" "))
}

/// The script's `describe`, of the value read back.
fn describe(v: &Value) -> String {
    match v {
        Value::Nil => "nil".into(),
        Value::Bool(b) => b.to_string(),
        Value::Int(n) => n.to_string(),
        Value::Double(d) => format!("d:{:x}", d.to_bits()),
        Value::Str(s) => describe_string(s),
        Value::Keyword { ns, name } => format!(":{}", named(ns, name)),
        Value::Symbol { ns, name } => format!("sym:{}", named(ns, name)),
        Value::Char(c) => format!("char:{c}"),
        Value::Bytes(b) if b.len() > 100 => {
            let hash = b.iter().fold(1i32, |h, &x| {
                h.wrapping_mul(31).wrapping_add(i32::from(x as i8))
            });
            format!("bytes#{}#{hash}", b.len())
        }
        Value::Bytes(b) => format!(
            "bytes:{}",
            b.iter().map(|x| format!("{x:02x}")).collect::<String>()
        ),
        Value::Inst(ms) => format!("inst:{ms}"),
        Value::Uuid(_) => {
            let edn = v.to_edn();
            format!(
                "uuid:{}",
                edn.trim_start_matches("#uuid \"").trim_end_matches('"')
            )
        }
        Value::BigInt(b) => format!("bigint:{}", decimal(b)),
        Value::BigDec { unscaled, scale } => format!("bigdec:{}:{scale}", decimal(unscaled)),
        Value::Ratio(n, d) => format!("ratio:{}/{}", describe(n), describe(d)),
        Value::Regex(s) => format!("regex:{}", describe_string(s)),
        Value::Uri(s) => format!("uri:{}", describe_string(s)),
        Value::Record(name, map) => {
            let name = match &**name {
                Value::Symbol { ns, name } => named(ns, name),
                other => describe(other),
            };
            format!("record:{name} {}", describe(map))
        }
        Value::Tagged { tag, fields } => format!("tagged:{tag}{}", seq("[", fields.iter(), "]")),
        Value::List(xs) => seq("[", xs.iter(), "]"),
        Value::Set(xs) => seq("#{", xs.iter(), "}"),
        Value::Map(kvs) => seq("{", kvs.iter().flat_map(|(k, v)| [k, v]), "}"),
        Value::Skipped => "skipped".into(),
    }
}

/// Every value the JVM wrote (every int width, strings packed, counted
/// and chunked with a surrogate pair across chunks, every extension type,
/// the priority cache past 32 entries, struct types past 16, unknown
/// tags, Jepsen's tags, a footer) reads back as written.
#[test]
fn values_written_by_the_jvm_read_back() {
    let tsv = std::fs::read_to_string(fixture("values.tsv")).expect("values.tsv");
    let mut checked = 0;
    for line in tsv.lines().filter(|l| !l.starts_with('#')) {
        let (name, want) = line.split_once('\t').expect("name<TAB>description");
        let bytes = std::fs::read(fixture(&format!("values/{name}.fressian"))).expect(name);
        let v =
            fressian::decode(&bytes, Limits::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(describe(&v), want, "{name}");
        // Whatever it holds, its EDN reads back.
        let edn = v.to_edn();
        assert!(
            isocheck::history::edn::read_all(&edn).is_ok(),
            "{name}: {}",
            &edn[..edn.len().min(300)]
        );
        checked += 1;
    }
    assert!(checked >= 50, "{checked} values");
}

fn options(kind: TestFile, file: &str) -> isocheck::store::RunOptions {
    read_options(kind, &fixture(file)).unwrap_or_else(|e| panic!("{e}"))
}

/// An old store's `test.fressian` (history and results inline, Jepsen's
/// handlers): the options, the name and the start time.
#[test]
fn test_fressian_gives_its_options() {
    let o = options(TestFile::Fressian, "test.fressian");
    assert_eq!(
        o.consistency_models,
        Some(vec!["snapshot-isolation".into()])
    );
    assert_eq!(o.anomalies, Some(vec!["G1".into()]));
    assert_eq!(o.workload.as_deref(), Some("append"));
    assert_eq!(o.name.as_deref(), Some("append-si"));
    assert_eq!(o.start_time.as_deref(), Some("20240101T000000.000Z"));
    // The whole file decodes too: 200 ops in the history.
    let bytes = std::fs::read(fixture("test.fressian")).expect("read");
    let Value::Map(kvs) = fressian::decode(&bytes, Limits::default()).expect("decode") else {
        panic!("not a map")
    };
    let history = kvs
        .iter()
        .find(|(k, _)| jepsen_file::key_name(k) == Some("history"));
    assert!(matches!(history, Some((_, Value::List(ops))) if ops.len() == 200));
}

/// `test.jepsen`: the root the last index names (not the stale test map
/// in the first block), with its history and results left unread.
#[test]
fn test_jepsen_gives_its_root_test_maps_options() {
    let o = options(TestFile::Jepsen, "test.jepsen");
    assert_eq!(
        o.consistency_models,
        Some(vec!["snapshot-isolation".into()])
    );
    assert_eq!(o.anomalies, Some(vec!["G1".into()]));
    assert_eq!(o.name.as_deref(), Some("append-si"));
    assert_eq!(o.start_time.as_deref(), Some("20240101T000000.000Z"));
    let mut file = std::fs::File::open(fixture("test.jepsen")).expect("open");
    let Value::Map(kvs) = jepsen_file::read_test_map(&mut file, &["history"]).expect("read") else {
        panic!("not a map")
    };
    let history = kvs
        .iter()
        .find(|(k, _)| jepsen_file::key_name(k) == Some("history"));
    let want = Value::Tagged {
        tag: "block-ref".into(),
        fields: vec![Value::Int(4)],
    };
    assert_eq!(history.map(|(_, v)| v), Some(&want));
}

/// A root partial map: keys in the head win, the rest block is read for
/// the ones it lacks.
#[test]
fn a_partial_map_root_is_followed_to_its_rest() {
    let o = options(TestFile::Jepsen, "partial-root.jepsen");
    assert_eq!(o.name.as_deref(), Some("partial-root"));
    assert_eq!(o.consistency_models, Some(vec!["serializable".into()]));
}

/// Every truncation of the JVM's files: an error with a place (for a
/// Fressian file, inside what is left; for a `test.jepsen`, the offset
/// that points past the end, or the damaged block), never a panic.
#[test]
fn truncated_files_are_errors_with_a_place() {
    for (name, jepsen) in [
        ("test.jepsen", true),
        ("partial-root.jepsen", true),
        ("test.fressian", false),
    ] {
        let bytes = std::fs::read(fixture(name)).expect(name);
        for end in (0..bytes.len()).step_by(7) {
            let cut = &bytes[..end];
            if jepsen {
                let r = jepsen_file::read_test_map(&mut std::io::Cursor::new(cut), &["name"]);
                match r {
                    Err(jepsen_file::Error::Format { .. }) => {}
                    other => panic!("{name} cut at {end}: {other:?}"),
                }
            } else {
                let e = fressian::decode(cut, Limits::default()).expect_err("truncated");
                assert!(e.at <= end, "{name} {end}: {e}");
            }
        }
    }
}
