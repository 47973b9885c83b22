//! The streaming list-append check (issue 37's first slice) against the
//! offline check: on random generated histories, valid and with injected
//! anomalies, both say the same of strict serializability and of
//! serializability.

mod common;

use isocheck::history::jepsen::streaming::OpStream;
use isocheck::history::{parse_edn, History};
use isocheck::internals::check::{self, CheckOptions, Validity};
use isocheck::stream::{Options, StreamCheck};
use isocheck_gen::rng::Rng;
use isocheck_gen::{self as gen, Fault, Kind, Level, Params};
use proptest::prelude::*;

const LEVELS: [Level; 4] = [
    Level::StrictSerializable,
    Level::SnapshotIsolation,
    Level::ReadCommitted,
    Level::ReadUncommitted,
];

const FAULTS: [Option<Fault>; 7] = [
    None,
    Some(Fault::LostUpdate),
    Some(Fault::WriteSkew),
    Some(Fault::LongFork),
    Some(Fault::AbortedRead),
    Some(Fault::StaleSessionRead),
    Some(Fault::Realtime),
];

fn generated(seed: u64) -> (String, History) {
    let mut r = Rng::new(seed);
    let level = LEVELS[r.below(LEVELS.len() as u64) as usize];
    let mut p = Params {
        seed,
        processes: 2 + r.below(5),
        txns: 5 + r.below(60),
        fault: FAULTS[r.below(FAULTS.len() as u64) as usize],
        fail_rate: [0.0, 0.1][r.below(2) as usize],
        // Crashed transactions at read uncommitted make Elle's inference
        // unsound (tests/gen_properties.rs says why).
        info_rate: match level {
            Level::ReadUncommitted => 0.0,
            _ => [0.0, 0.1][r.below(2) as usize],
        },
        level,
        ..Params::default()
    };
    p.shape.kind = Kind::ListAppend;
    p.shape.keys = 1 + r.below(5);
    p.shape.min_ops = 1;
    p.shape.max_ops = 1 + r.below(5);
    let text = gen::to_string(&p).expect("parameters");
    let h = parse_edn("generated.edn", &text).expect("generated history parses");
    (text, h)
}

/// The offline check's validity under `model`, an empty graph counted as
/// valid (nothing to say either way, which the stream says as valid).
fn offline(h: &History, model: &str) -> bool {
    let o = CheckOptions {
        consistency_models: Some(vec![model.to_string()]),
        ..CheckOptions::default()
    };
    let a = check::analyze(h, &o).expect("valid options");
    let v = check::verdict::verdict(&a);
    let types: Vec<&str> = v.anomaly_types().collect();
    match v.valid {
        Validity::True => true,
        Validity::False => false,
        Validity::Unknown => types == ["empty-transaction-graph"],
    }
}

/// What the stream says, fed the history's text op by op (`OpStream`, as
/// `check --stream` reads it): `Some(valid)`, or `None` for unknown, with
/// its findings.
fn streamed(text: &str, realtime: bool, window: (u64, i64)) -> (Option<bool>, Vec<String>) {
    let bytes = text.as_bytes().to_vec();
    let ops = OpStream::new(
        "generated.edn",
        move || Ok(std::io::Cursor::new(bytes)),
        Default::default(),
    );
    let mut s = StreamCheck::new(Options {
        realtime,
        process_order: false,
        window: window.0,
        window_nanos: window.1,
    });
    for op in ops {
        let op = op.expect("generated history reads");
        s.op(&op.op, op.txn(), |m| op.read_list(m));
    }
    let end = s.finish();
    let mut names: Vec<String> = end.findings.iter().map(|f| format!("{f:?}")).collect();
    names.extend(end.unknown.iter().map(|u| format!("{u:?}")));
    let verdict = match (end.findings.is_empty(), end.unknown) {
        (false, _) => Some(false),
        (true, None) => Some(true),
        (true, Some(_)) => None,
    };
    (verdict, names)
}

const MODELS: [(&str, bool); 2] = [("strict-serializable", true), ("serializable", false)];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(2000, 20_000)))]

    #[test]
    fn the_stream_agrees_with_the_offline_check(seed in any::<u64>()) {
        let (text, h) = generated(seed);
        for (model, realtime) in MODELS {
            let expected = offline(&h, model);
            let (ours, found) = streamed(&text, realtime, (u64::MAX, i64::MAX));
            prop_assert_eq!(ours, Some(expected), "{}: {:?}\n{}", model, found, text);
        }
    }
}

/// With a window (of transactions, or of time) that retires transactions
/// and keys on the way, the answer
/// is the offline one or unknown, never the other verdict; and the window
/// does not just make everything unknown: valid and invalid verdicts are
/// still reached.
#[test]
fn a_small_window_answers_right_or_unknown() {
    let mut counts = [0usize; 3]; // valid, invalid, unknown
    for seed in 0..common::cases(2000, 20_000) as u64 {
        let (text, h) = generated(seed);
        // Even seeds: 0 to 11 transactions; odd: 0 to 11 ms of `:time`
        // (gen's ops are about 1 ms apart).
        let window = match seed % 2 {
            0 => (seed / 2 % 12, i64::MAX),
            _ => (u64::MAX, (seed / 2 % 12) as i64 * 1_000_000),
        };
        for (model, realtime) in MODELS {
            let expected = offline(&h, model);
            let (ours, found) = streamed(&text, realtime, window);
            match ours {
                Some(ours) => {
                    assert_eq!(
                        ours, expected,
                        "seed {seed}, {model}, window {window:?}: {found:?}\n{text}"
                    );
                    counts[usize::from(!ours)] += 1;
                }
                None => counts[2] += 1,
            }
        }
    }
    eprintln!("valid, invalid, unknown: {counts:?}");
    assert!(counts.iter().all(|&n| n > 0), "{counts:?}");
}

/// The stream's findings' names on `text`, under strict serializability.
fn names(text: &str) -> Vec<String> {
    let bytes = text.as_bytes().to_vec();
    let ops = OpStream::new(
        "hand.edn",
        move || Ok(std::io::Cursor::new(bytes)),
        Default::default(),
    );
    let mut s = StreamCheck::new(Options::default());
    for op in ops {
        let op = op.expect("the history reads");
        s.op(&op.op, op.txn(), |m| op.read_list(m));
    }
    let mut names: Vec<String> = s.finish().findings.into_iter().map(|f| f.name).collect();
    names.sort();
    names.dedup();
    names
}

/// Elle's future read (a read of the transaction's own later append),
/// duplicate elements (a read showing an element twice, also through a
/// shorter read of a repeating order) and dirty update (a committed append
/// after an aborted one in a key's order), found by the stream as offline.
#[test]
fn future_reads_duplicate_elements_and_dirty_updates() {
    let future =
        "{:index 0, :type :invoke, :process 0, :f :txn, :value [[:r :x nil] [:append :x 1]]}
{:index 1, :type :ok, :process 0, :f :txn, :value [[:r :x [1]] [:append :x 1]]}
";
    let dup =
        "{:index 0, :type :invoke, :process 0, :f :txn, :value [[:append :x 1] [:append :x 2]]}
{:index 1, :type :ok, :process 0, :f :txn, :value [[:append :x 1] [:append :x 2]]}
{:index 2, :type :invoke, :process 1, :f :txn, :value [[:r :x nil]]}
{:index 3, :type :ok, :process 1, :f :txn, :value [[:r :x [1 1 2]]]}
{:index 4, :type :invoke, :process 2, :f :txn, :value [[:r :x nil]]}
{:index 5, :type :ok, :process 2, :f :txn, :value [[:r :x [1 1]]]}
";
    let dirty = "{:index 0, :type :invoke, :process 0, :f :txn, :value [[:append :x 1]]}
{:index 1, :type :fail, :process 0, :f :txn, :value [[:append :x 1]]}
{:index 2, :type :invoke, :process 1, :f :txn, :value [[:append :x 2]]}
{:index 3, :type :ok, :process 1, :f :txn, :value [[:append :x 2]]}
{:index 4, :type :invoke, :process 2, :f :txn, :value [[:r :x nil]]}
{:index 5, :type :ok, :process 2, :f :txn, :value [[:r :x [1 2]]]}
";
    let cases = [
        (future, "future-read"),
        (dup, "duplicate-elements"),
        (dirty, "dirty-update"),
    ];
    for (text, name) in cases {
        let h = parse_edn("hand.edn", text).expect("the history parses");
        let o = CheckOptions {
            consistency_models: Some(vec!["strict-serializable".to_string()]),
            ..CheckOptions::default()
        };
        let a = check::analyze(&h, &o).expect("valid options");
        let v = check::verdict::verdict(&a);
        let offline: Vec<&str> = v.anomaly_types().collect();
        let ours = names(text);
        assert!(offline.contains(&name), "offline: {offline:?}");
        assert!(ours.iter().any(|n| n == name), "stream: {ours:?}");
    }
}
