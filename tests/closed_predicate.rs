//! Elle's closed-predicate workload: every case of Elle's
//! `test/elle/closed_predicate_test.clj` (jepsen-io/elle), one fixture each
//! in `fixtures/closed-predicate/`, checked with Elle's defaults and
//! expected to give Elle's `:valid?`, `:anomaly-types` and `:not`, and,
//! where Elle's test spells out the whole result map, each step of its
//! cycle (isocheck starts a cycle at its earliest transaction, so the steps
//! are compared as a rotation). Two cases' reports are snapshots in every
//! format; the reader's diagnostics are checked at the end.

use isocheck::history::{self, Format, History, Workload};
use isocheck::CheckOptions;
use std::path::Path;

struct Case {
    name: &'static str,
    types: &'static [&'static str],
    not: &'static [&'static str],
    /// Elle's `:steps` of the one cycle, in Elle's order, as EDN (empty
    /// where Elle's test asserts no steps).
    steps: &'static [&'static str],
}

const CASES: &[Case] = &[
    Case {
        name: "g1c-predicate-read-seen",
        types: &["G1c"],
        not: &["read-committed"],
        steps: &[],
    },
    Case {
        name: "g2-predicate-read-unseen",
        types: &["G2", "strong-snapshot-isolation-cycle-exists"],
        not: &["serializable", "strong-snapshot-isolation"],
        steps: &[],
    },
    Case {
        name: "g1c-predicate-read-unseen-universe-delete",
        types: &["G1c"],
        not: &["read-committed"],
        steps: &[],
    },
    Case {
        name: "g1c-predicate-read-unseen-universe-write",
        types: &["G1c"],
        not: &["read-committed"],
        steps: &[],
    },
    Case {
        name: "g2-predicate-read-unseen-universe-write",
        types: &["G2", "strong-snapshot-isolation-cycle-exists"],
        not: &["serializable", "strong-snapshot-isolation"],
        steps: &[],
    },
    Case {
        name: "wr-g1c-item",
        types: &["G1c"],
        not: &["read-committed"],
        steps: &[
            "{:type :wr, :key :y, :value 2, :a-mop-index 1, :b-mop-index 0}",
            "{:type :wr, :key :z, :value 3, :a-mop-index 1, :b-mop-index 0}",
            "{:type :wr, :key :x, :value :elle/dead, :a-mop-index 1, :b-mop-index 0}",
        ],
    },
    Case {
        name: "ww-wr-rw-item",
        types: &["G-single-item"],
        not: &["consistent-view", "repeatable-read"],
        steps: &[
            "{:type :rw, :key :z, :value :elle/unborn, :value' 0, :a-mop-index 1, :b-mop-index 0}",
            "{:type :ww, :key :x, :value 0, :value' :elle/dead, :a-mop-index 0, :b-mop-index 0}",
            "{:type :wr, :key :y, :value 1, :a-mop-index 1, :b-mop-index 0}",
        ],
    },
    Case {
        name: "failure-to-observe",
        types: &["predicate-read-miss"],
        not: &["serializable"],
        steps: &[],
    },
    Case {
        name: "init-g-single-pred",
        types: &["G-single-item"],
        not: &["consistent-view", "repeatable-read"],
        steps: &[
            "{:type :rw, :key 7, :value :elle/unborn, :value' 1, :a-mop-index 1, :b-mop-index 0}",
            "{:type :wrp, :key 7, :value 1, :predicate-read [:rp [:mod 2 0] {}], \
             :a-mop-index 0, :b-mop-index 0}",
        ],
    },
    Case {
        name: "g1c-multi-key-delete",
        types: &["G-single"],
        not: &["consistent-view"],
        steps: &[
            "{:type :rwp, :key 38, :value 0, :value' :elle/dead, :predicate? true, \
             :predicate-read [:rp :true {31 0, 38 0}], :a-mop-index 0, :b-mop-index 0}",
            "{:type :wrp, :key 26, :value :elle/dead, :predicate-read [:rp :true {31 0, 38 0}], \
             :a-mop-index 2, :b-mop-index 0}",
        ],
    },
];

fn text(name: &str) -> String {
    let rel = format!("fixtures/closed-predicate/{name}.edn");
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(&rel))
        .unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn load(name: &str) -> History {
    let h = history::parse_text(Format::Edn, name, text(name), None)
        .unwrap_or_else(|d| panic!("{name}: {d}"));
    assert_eq!(h.workload, Workload::ClosedPredicate, "{name}: detected");
    h
}

/// The EDN text of each step of the result map's one cycle.
fn steps(edn: &str) -> Vec<String> {
    let forms = history::edn::read_all(edn).expect("EDN output parses");
    let anomalies = forms[0].get("anomalies").expect(":anomalies");
    let history::edn::Kind::Map(entries) = &anomalies.kind else {
        panic!("anomalies is a map: {edn}")
    };
    let (_, cycles) = &entries[0];
    let history::edn::Kind::Vector(cycles) = &cycles.kind else {
        panic!("a vector of cycles")
    };
    let steps = cycles[0].get("steps").expect(":steps");
    match &steps.kind {
        history::edn::Kind::Vector(s) => s.iter().map(|n| n.canonical()).collect(),
        _ => panic!("steps are a vector"),
    }
}

/// Whether `got` is `want` rotated.
fn is_rotation(got: &[String], want: &[String]) -> bool {
    got.len() == want.len()
        && (0..want.len().max(1))
            .any(|r| (0..want.len()).all(|i| got[i] == want[(i + r) % want.len()]))
}

fn canonical(edn: &str) -> String {
    history::edn::read_first(edn)
        .expect("expected step parses")
        .canonical()
}

#[test]
fn elles_closed_predicate_cases() {
    for c in CASES {
        let h = load(c.name);
        let o = isocheck::check(&h, &CheckOptions::default()).expect("default options");
        assert_eq!(
            o.validity(),
            isocheck::Validity::False,
            "{}: :valid?",
            c.name
        );
        assert_eq!(o.anomaly_types(), c.types, "{}: :anomaly-types", c.name);
        assert_eq!(o.not(), c.not, "{}: :not", c.name);
        if !c.steps.is_empty() {
            let want: Vec<String> = c.steps.iter().map(|s| canonical(s)).collect();
            let got = steps(&o.edn(&h));
            assert!(
                is_rotation(&got, &want),
                "{}: steps\n{got:#?}\nElle's\n{want:#?}",
                c.name
            );
        }
    }
}

/// Elle's `failure-to-observe-test` spells out the miss entries.
#[test]
fn predicate_read_misses_are_elles_entries() {
    let h = load("failure-to-observe");
    let o = isocheck::check(&h, &CheckOptions::default()).expect("default options");
    let edn = o.edn(&h);
    for entry in [
        ":mop [:rp [:mod 2 1] {}], :key 5, :versions [3]}",
        ":mop [:rp [:= 3] {}], :key 5, :versions [3]}",
    ] {
        assert!(edn.contains(entry), "{entry} in\n{edn}");
    }
}

#[test]
fn reports_explain_predicate_steps() {
    for name in ["g1c-multi-key-delete", "failure-to-observe"] {
        let h = load(name);
        let o = isocheck::check(&h, &CheckOptions::default()).expect("default options");
        insta::assert_snapshot!(format!("{name}.human"), o.human(&h, false));
        insta::assert_snapshot!(format!("{name}.edn"), o.edn(&h));
        insta::assert_snapshot!(format!("{name}.json"), o.json(&h));
    }
}

/// Two sessions of PostgreSQL, each a predicate read then a write, as
/// `fixtures/closed-predicate/record-postgres.sh` recorded them: at
/// repeatable read both commit, a G2 of predicate anti-dependencies (a
/// phantom) that repeatable read allows and serializability does not; at
/// serializable the second fails to commit, and the history is valid.
#[test]
fn postgres_phantoms() {
    let check = |name: &str, model: &str| {
        let h = load(name);
        let opts = CheckOptions {
            consistency_models: Some(vec![model.to_string()]),
            ..CheckOptions::default()
        };
        let o = isocheck::check(&h, &opts).expect("valid options");
        (o.validity(), o.anomaly_types())
    };
    let g2 = (isocheck::Validity::False, vec!["G2"]);
    let valid = (isocheck::Validity::True, vec![]);
    let rr = "postgres-repeatable-read";
    assert_eq!(check(rr, "strict-serializable"), g2);
    assert_eq!(check(rr, "serializable"), g2);
    assert_eq!(check(rr, "repeatable-read"), valid);
    assert_eq!(check("postgres-serializable", "strict-serializable"), valid);
}

/// A serializable history of the workload: no anomaly, every model of the
/// default decided.
#[test]
fn a_serial_history_is_valid() {
    let text = "\
{:type :invoke, :process 0, :f :init, :value {:x 0, :y 1}}
{:type :ok, :process 0, :f :init, :value {:x 0, :y 1}}
{:type :invoke, :process 0, :f :txn, :value [[:rp [:= 0] nil] [:w :y 2] [:insert :z 3]]}
{:type :ok, :process 0, :f :txn, :value [[:rp [:= 0] {:x 0}] [:w :y 2] [:insert :z 3]]}
{:type :invoke, :process 1, :f :txn, :value [[:rp :true nil] [:delete :x] [:r :z nil]]}
{:type :ok, :process 1, :f :txn, :value [[:rp :true {:x 0, :y 2, :z 3}] [:delete :x] [:r :z 3]]}
{:type :invoke, :process 0, :f :txn, :value [[:rp [:mod 2 1] nil] [:r :x nil]]}
{:type :ok, :process 0, :f :txn, :value [[:rp [:mod 2 1] {:z 3}] [:r :x nil]]}
";
    let h = history::parse_text(Format::Edn, "serial", text.to_string(), None)
        .unwrap_or_else(|d| panic!("{d}"));
    let o = isocheck::check(&h, &CheckOptions::default()).expect("default options");
    assert_eq!(o.validity(), isocheck::Validity::True, "{}", o.edn(&h));
}

/// What the reader refuses, with the line it names.
#[test]
fn malformed_ops_are_diagnostics() {
    let cases = [
        (
            "{:type :ok, :process 0, :f :txn, :value [[:rp [:lt 2] {}]]}",
            "not a predicate Elle evaluates",
        ),
        (
            "{:type :ok, :process 0, :f :txn, :value [[:rp :true [1 2]]]}",
            "a predicate read returns a map",
        ),
        (
            "{:type :ok, :process 0, :f :txn, :value [[:insert :x 1] [:frob :x]]}",
            "this is not a closed-predicate micro-op",
        ),
        (
            "{:type :ok, :process 0, :f :init, :value [1 2]}",
            "an :init op's value must be a map",
        ),
        (
            "{:type :ok, :process 0, :f :txn, :value [[:delete :x]]}\n\
             {:type :ok, :process 1, :f :txn, :value [[:delete :x]]}",
            "write of :elle/dead to key :x appears twice",
        ),
        (
            "{:type :ok, :process 0, :f :init, :value {:x 0}}\n\
             {:type :ok, :process 0, :f :txn, :value [[:append :x 1]]}",
            "mixes :append and :w",
        ),
    ];
    for (text, problem) in cases {
        let e = history::parse_text(Format::Edn, "bad", text.to_string(), None)
            .err()
            .unwrap_or_else(|| panic!("refused: {text}"));
        let shown = format!("{e}");
        assert!(shown.contains(problem), "{problem} in {shown:?} for {text}");
    }
}
