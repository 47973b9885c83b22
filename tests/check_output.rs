//! The reports of `isocheck check` on the small histories of
//! `fixtures/check/` (Elle's own test cases, `../shared/reference/elle.md`
//! §5.2–5.3): the human report (without colour), Elle's result map as EDN,
//! and the same as JSON, pinned with insta, through the library's facade
//! (`isocheck::check`, `Outcome`'s renderers). A second set renders
//! hand-built analyses (the dependencies Elle's tests assert), so that the
//! renderers are pinned independently of the inference.

use isocheck::history::{self, Format, History, Val};
use isocheck::internals::check::taxonomy::CycleAnomaly;
use isocheck::internals::check::{Analysis, CheckOptions, FoundCycle};
use isocheck::internals::graph::{Dep, Rel, Version, NO_MOP};
use isocheck::internals::infer::{Anomaly, InferOptions};
use isocheck::Outcome;
use std::path::Path;

/// Options of a fixture, with the CLI's meaning: `models: None` is the
/// default (strict-serializable), `Some(&[])` is `-m none`.
struct Case {
    name: &'static str,
    models: Option<&'static [&'static str]>,
    anomalies: &'static [&'static str],
    sequential_keys: bool,
    /// `--elle-compat`: for Elle's cases that read values nobody wrote.
    elle_compat: bool,
}

const fn case(name: &'static str, models: Option<&'static [&'static str]>) -> Case {
    Case {
        name,
        models,
        anomalies: &[],
        sequential_keys: false,
        elle_compat: false,
    }
}

const fn only(name: &'static str, anomalies: &'static [&'static str]) -> Case {
    Case {
        name,
        models: Some(&[]),
        anomalies,
        sequential_keys: false,
        elle_compat: false,
    }
}

const CASES: &[Case] = &[
    only("g0", &["G0"]),
    case("g1a", Some(&["read-committed"])),
    case("g1b", None),
    only("g1c", &["G1"]),
    only("g-single-item", &["G-single"]),
    case("g2-item", Some(&["serializable"])),
    case("g-single-item-realtime", None),
    case(
        "g-nonadjacent-item-process",
        Some(&["strong-session-snapshot-isolation"]),
    ),
    case("lost-update", None),
    only("dirty-update", &["dirty-update"]),
    only("incompatible-order", &["G1"]),
    case("duplicate-elements", Some(&["read-committed"])),
    only("internal", &["internal"]),
    case("future-read", Some(&["read-committed"])),
    case("rw-g1c", Some(&["serializable"])),
    Case {
        name: "rw-cyclic-versions",
        models: None,
        anomalies: &[],
        sequential_keys: true,
        elle_compat: false,
    },
    Case {
        elle_compat: true,
        ..case("rw-lost-update", None)
    },
    case("valid", None),
    case("empty-graph", None),
    // Ops without a :process: no transaction at all (elle's paper example).
    case("no-process", None),
    // Blind writes whose every order closes a cycle (no version order is
    // visible, so Elle would call this valid).
    case("rw-forced", Some(&["serializable"])),
    // A G2-item PostgreSQL's SERIALIZABLE let through (recorded, cut to
    // the cycle's window; see the file's first lines).
    case("postgres-serializable-g2-item", Some(&["serializable"])),
    case("repeated-values-g-single-item", Some(&["serializable"])),
    // A fractured read under either writer of a value written twice.
    case("repeated-values-fractured-read", Some(&["read-atomic"])),
    // A long fork beside a value written twice: not snapshot isolation, and
    // parallel snapshot isolation unchecked for that reason (not for
    // --certain-only's, which was not given).
    case(
        "repeated-values-long-fork",
        Some(&["parallel-snapshot-isolation"]),
    ),
];

fn load(name: &str) -> History {
    let rel = format!("fixtures/check/{name}.edn");
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(&rel))
        .unwrap_or_else(|e| panic!("{rel}: {e}"));
    history::parse_text(Format::Edn, &rel, text, None).unwrap_or_else(|d| panic!("{d}"))
}

fn options(c: &Case) -> CheckOptions {
    CheckOptions {
        consistency_models: c.models.map(|m| m.iter().map(|s| s.to_string()).collect()),
        anomalies: c.anomalies.iter().map(|s| s.to_string()).collect(),
        infer: InferOptions {
            sequential_keys: c.sequential_keys,
            ..InferOptions::default()
        },
        elle_compat: c.elle_compat,
        ..CheckOptions::default()
    }
}

fn reports(h: &History, o: &Outcome) -> (String, String, String) {
    (o.human(h, false), o.edn(h), o.json(h))
}

/// The EDN output is one EDN value, and the JSON says the same `valid?`.
fn well_formed(edn_text: &str, json_text: &str) {
    let forms = isocheck::history::edn::read_all(edn_text)
        .unwrap_or_else(|e| panic!("EDN output does not parse: {e:?}\n{edn_text}"));
    assert_eq!(forms.len(), 1, "{edn_text}");
    let j: serde_json::Value = serde_json::from_str(json_text).expect("JSON parses");
    let valid = forms[0].get("valid?").expect(":valid?").canonical();
    assert_eq!(
        j["valid?"].to_string().trim_matches('"'),
        valid.trim_start_matches(':')
    );
}

#[test]
fn fixtures_render_like_elle() {
    for c in CASES {
        let h = load(c.name);
        let o = isocheck::check(&h, &options(c)).expect("valid options");
        let (human, edn, json) = reports(&h, &o);
        well_formed(&edn, &json);
        insta::assert_snapshot!(format!("{}.human", c.name), human);
        insta::assert_snapshot!(format!("{}.edn", c.name), edn);
        insta::assert_snapshot!(format!("{}.json", c.name), json);
    }
}

// Hand-built analyses: the dependencies and anomalies Elle's tests assert,
// rendered without the inference.

const NO_MODELS: &[&str] = &[];

/// The outcome of an analysis of `h` with these dependencies, cycles (type
/// and the dependencies they follow, by position) and anomalies.
fn analysis(
    h: &History,
    opts: &CheckOptions,
    deps: Vec<Dep>,
    cycles: &[(&'static str, &[usize])],
    anomalies: Vec<Anomaly>,
) -> Outcome {
    let mut a = Analysis::of_deps(h, opts, deps).expect("valid options");
    a.cycles = cycles
        .iter()
        .map(|(name, ds)| FoundCycle {
            anomaly: CycleAnomaly::parse(name).expect("a cycle anomaly"),
            steps: ds.iter().map(|&i| i as u32).collect(),
        })
        .collect();
    a.anomalies = anomalies;
    Outcome::of_analysis(a)
}

fn int(n: u64) -> Val {
    Val::small_int(n).expect("small")
}

fn val(h: &History, canon: &str) -> Val {
    // Keys like `:x` were interned while reading the history.
    h.mops
        .iter()
        .map(|m| m.key)
        .find(|&k| h.values.display(k) == canon)
        .unwrap_or_else(|| panic!("no key {canon}"))
}

#[allow(clippy::too_many_arguments)]
fn dep(
    from: u32,
    to: u32,
    rel: Rel,
    key: Val,
    value: Version,
    value2: Version,
    a_mop: u32,
    b_mop: u32,
) -> Dep {
    Dep {
        from,
        to,
        rel,
        key,
        value,
        value2,
        a_mop,
        b_mop,
    }
}

fn by_hand(name: &str, h: &History, o: &Outcome) {
    let (human, edn, json) = reports(h, o);
    well_formed(&edn, &json);
    insta::assert_snapshot!(format!("by-hand-{name}.human"), human);
    insta::assert_snapshot!(format!("by-hand-{name}.edn"), edn);
    insta::assert_snapshot!(format!("by-hand-{name}.json"), json);
}

/// Elle's G1c case: T2 → T1 (wr y 1, mop 1 → 1), T1 → T2 (ww x 1 → 2).
#[test]
fn g1c_by_hand() {
    let h = load("g1c");
    let (x, y) = (val(&h, ":x"), val(&h, ":y"));
    let m = |t: usize, i: u32| h.txns[t].mops.start + i;
    let deps = vec![
        dep(
            1,
            0,
            Rel::Wr,
            y,
            Version::Val(int(1)),
            Version::Init,
            m(1, 1),
            m(0, 1),
        ),
        dep(
            0,
            1,
            Rel::Ww,
            x,
            Version::Val(int(1)),
            Version::Val(int(2)),
            m(0, 0),
            m(1, 0),
        ),
        dep(
            1,
            2,
            Rel::Wr,
            x,
            Version::Val(int(2)),
            Version::Init,
            m(1, 0),
            m(2, 0),
        ),
        dep(
            1,
            2,
            Rel::Wr,
            y,
            Version::Val(int(1)),
            Version::Init,
            m(1, 1),
            m(2, 1),
        ),
    ];
    let opts = CheckOptions {
        consistency_models: Some(Vec::new()),
        anomalies: vec!["G1".into()],
        ..CheckOptions::default()
    };
    let o = analysis(&h, &opts, deps, &[("G1c", &[0, 1])], Vec::new());
    by_hand("g1c", &h, &o);
    // Elle's explanation, verbatim but for the ops, which keep the file's text.
    let dir = std::env::temp_dir().join(format!("isocheck-check-output-{}", std::process::id()));
    o.write_directory(&dir, &h).expect("directory");
    let txt = std::fs::read_to_string(dir.join("G1c.txt")).expect("G1c.txt");
    assert_eq!(
        txt,
        "G1c #0\nLet:\n  T1 = {:index 1, :time 0, :type :ok, :process 0, :f :txn, :value [[:append :x 2] [:append :y 1]]}\n  T2 = {:index 0, :time 0, :type :ok, :process 0, :f :txn, :value [[:append :x 1] [:r :y [1]]]}\n\nThen:\n  - T1 < T2, because T2 observed T1's append of 1 to key :y.\n  - However, T2 < T1, because T1 appended 2 after T2 appended 1 to :x: a contradiction!"
    );
    let dot = std::fs::read_to_string(dir.join("G1c/0.dot")).expect("G1c/0.dot");
    assert!(dot.contains("T1 -> T2 [label=\"wr :y\""), "{dot}");
    assert!(dot.contains("T2 -> T1 [label=\"ww :x\""), "{dot}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Elle's realtime case: T2 → T1 (rw x 1 → 2), T1 → T2 (realtime).
#[test]
fn realtime_by_hand() {
    let h = load("g-single-item-realtime");
    let x = val(&h, ":x");
    let m = |t: usize, i: u32| h.txns[t].mops.start + i;
    // Transactions: 0 appends 1, 1 appends 2, 2 reads [1], 3 reads [1 2].
    let deps = vec![
        dep(
            2,
            1,
            Rel::Rw,
            x,
            Version::Val(int(1)),
            Version::Val(int(2)),
            m(2, 0),
            m(1, 0),
        ),
        dep(
            1,
            2,
            Rel::Realtime,
            Val::NIL,
            Version::Init,
            Version::Init,
            NO_MOP,
            NO_MOP,
        ),
    ];
    let a = analysis(
        &h,
        &CheckOptions::default(),
        deps,
        &[("G-single-item-realtime", &[0, 1])],
        Vec::new(),
    );
    by_hand("realtime", &h, &a);
}

/// Elle's lost update (list-append), with its G2-item cycle.
#[test]
fn lost_update_by_hand() {
    let h = load("lost-update");
    let x = val(&h, ":x");
    let m = |t: usize, i: u32| h.txns[t].mops.start + i;
    let deps = vec![
        dep(
            1,
            2,
            Rel::Rw,
            x,
            Version::Val(int(0)),
            Version::Val(int(2)),
            m(1, 0),
            m(2, 1),
        ),
        dep(
            2,
            1,
            Rel::Rw,
            x,
            Version::Val(int(0)),
            Version::Val(int(1)),
            m(2, 0),
            m(1, 1),
        ),
    ];
    let lost = Anomaly::LostUpdate {
        key: x,
        read_mop: m(1, 0),
        txns: vec![1, 2],
    };
    let a = analysis(
        &h,
        &CheckOptions::default(),
        deps,
        &[("G2-item", &[0, 1])],
        vec![lost],
    );
    by_hand("lost-update", &h, &a);
}

/// Non-cycle anomalies of every shape, on small histories.
#[test]
fn anomalies_by_hand() {
    use isocheck::internals::infer::anomaly::Expected;
    let none = CheckOptions {
        consistency_models: Some(NO_MODELS.iter().map(|s| s.to_string()).collect()),
        anomalies: vec![
            "G1".into(),
            "internal".into(),
            "dirty-update".into(),
            "incompatible-order".into(),
            "duplicate-elements".into(),
            "future-read".into(),
        ],
        ..CheckOptions::default()
    };
    let h = load("g1a");
    let g1a = Anomaly::G1a {
        reader: 1,
        mop: h.txns[1].mops.start,
        writer: 0,
        element: Some(int(1)),
    };
    by_hand("g1a", &h, &analysis(&h, &none, Vec::new(), &[], vec![g1a]));

    let h = load("internal");
    let internal = Anomaly::Internal {
        txn: 1,
        mop: h.txns[1].mops.start + 1,
        expected: Expected::List {
            prefix_known: false,
            elems: vec![int(3)],
        },
    };
    by_hand(
        "internal",
        &h,
        &analysis(&h, &none, Vec::new(), &[], vec![internal]),
    );

    let h = load("dirty-update");
    let x = val(&h, ":x");
    let dirty = Anomaly::DirtyUpdate {
        key: x,
        values: vec![int(1), int(2)],
        txns: vec![0, 1],
    };
    let dups = Anomaly::DuplicateElements {
        txn: 2,
        mop: h.txns[2].mops.start,
        duplicates: vec![(int(1), 2)],
    };
    let incompatible = Anomaly::IncompatibleOrder {
        key: x,
        reads: [h.txns[2].mops.start, h.txns[2].mops.start],
    };
    let future = Anomaly::FutureRead {
        txn: 2,
        mop: h.txns[2].mops.start,
        element: int(2),
    };
    let a = analysis(
        &h,
        &none,
        Vec::new(),
        &[],
        vec![dirty, dups, incompatible, future],
    );
    by_hand("shapes", &h, &a);

    let h = load("rw-cyclic-versions");
    let x = val(&h, ":x");
    let cyclic = Anomaly::CyclicVersions {
        key: x,
        scc: vec![int(1), int(2)],
        sources: vec!["initial-state", "sequential-keys"],
    };
    let garbage = Anomaly::GarbageRead {
        txn: 2,
        mop: h.txns[2].mops.start,
    };
    let opts = CheckOptions {
        anomalies: vec!["garbage-read".into()],
        ..CheckOptions::default()
    };
    let a = analysis(&h, &opts, Vec::new(), &[], vec![cyclic, garbage]);
    by_hand("register", &h, &a);
}

/// `--directory` writes Elle's explanation: for rw-register G1c, the text of
/// Elle's own test (`rw_register_test.clj`), verbatim, whose ops the fixture
/// writes as Elle prints them.
#[test]
fn directory_holds_elles_explanation() {
    let c = CASES.iter().find(|c| c.name == "rw-g1c").expect("case");
    let h = load(c.name);
    let o = isocheck::check(&h, &options(c)).expect("valid options");
    let dir = std::env::temp_dir().join(format!("isocheck-rw-g1c-{}", std::process::id()));
    o.write_directory(&dir, &h).expect("directory");
    let txt = std::fs::read_to_string(dir.join("G1c.txt")).expect("G1c.txt");
    assert_eq!(
        txt,
        "G1c #0
Let:
  T1 = {:index 0, :time -1, :type :ok, :process 0, :f nil, :value [[:w :x 1] [:r :y 1]]}
  T2 = {:index 1, :time -1, :type :ok, :process 0, :f nil, :value [[:w :y 1] [:r :x 1]]}

Then:
  - T1 < T2, because T1 wrote :x = 1, which was read by T2.
  - However, T2 < T1, because T2 wrote :y = 1, which was read by T1: a contradiction!"
    );
    assert!(dir.join("G1c/0.dot").is_file());
    std::fs::remove_dir_all(&dir).ok();
}

/// A key of 10 MB (issue 32: it made a 21 MB report on the terminal and an
/// 80 MB `--directory`): the reports for people show its start and its
/// length in bytes, and stay small; the result maps keep it whole.
#[test]
fn a_10_mb_key_makes_bounded_reports() {
    let key = format!("\"{}\"", "k".repeat(10_000_000));
    let text = format!(
        "{{:index 0, :type :ok, :process 0, :f :txn, :value [[:append {key} 1] [:r :y [1]]]}}\n\
         {{:index 1, :type :ok, :process 0, :f :txn, :value [[:append {key} 2] [:append :y 1]]}}\n\
         {{:index 2, :type :ok, :process 0, :f :txn, :value [[:r {key} [1 2]] [:r :y [1]]]}}\n"
    );
    let h = history::parse_text(Format::Edn, "big-key.edn", text, None).expect("history");
    let opts = CheckOptions {
        consistency_models: Some(vec!["read-committed".to_string()]),
        ..CheckOptions::default()
    };
    let o = isocheck::check(&h, &opts).expect("options");
    assert_eq!(o.anomaly_types(), ["G1c"]);
    let marker = "k … (10000002 bytes)";
    let human = o.human(&h, false);
    assert!(human.len() < 20_000, "{} bytes", human.len());
    assert!(human.contains(marker), "{human}");
    let html = o.html(&h, Path::new("."));
    assert!(html.len() < 100_000, "{} bytes", html.len());
    assert!(html.contains(marker));
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("big-key");
    let _ = std::fs::remove_dir_all(&dir);
    o.write_directory(&dir, &h).expect("directory written");
    let mut total = 0;
    for name in ["G1c.txt", "G1c/0.dot", "index.html"] {
        let text = std::fs::read_to_string(dir.join(name)).expect(name);
        assert!(text.contains(marker), "{name}");
        total += text.len();
    }
    assert!(total < 200_000, "{total} bytes");
    for result in [o.edn(&h), o.json(&h)] {
        assert!(result.contains(&"k".repeat(10_000_000)));
        assert!(!result.contains("bytes)"));
    }
}
