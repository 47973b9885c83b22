//! The streaming rw-register check against the offline check, on random
//! generated histories (valid, with injected anomalies, aborted and crashed
//! transactions, values written twice). Every finding of the stream is one
//! the offline check makes too: a verdict `false` only where the offline
//! one is, a non-cycle anomaly only where it names it, and never `true`
//! (the stream cannot know the version orders). With commit timestamps as
//! the version orders, the stream decides as offline does. And the stream
//! does find something: most injected anomalies are found as they happen.
//! Where a value is written twice the two may differ: the stream takes a
//! read of it from the one writer invoked before the read completed, the
//! offline check from any writer of it.

mod common;

use isocheck::history::commit_order::{self, OrderSource};
use isocheck::history::jepsen::streaming::OpStream;
use isocheck::history::{parse_text, Format, History, Workload};
use isocheck::internals::check::{self, CheckOptions, Validity};
use isocheck::stream::{Ending, Options, RwRegisterCheck};
use isocheck_gen::rng::Rng;
use isocheck_gen::{self as gen, Fault, Kind, Level, Params};

const LEVELS: [Level; 4] = [
    Level::StrictSerializable,
    Level::SnapshotIsolation,
    Level::ReadCommitted,
    Level::ReadUncommitted,
];

const FAULTS: [Option<Fault>; 9] = [
    None,
    Some(Fault::LostUpdate),
    Some(Fault::WriteSkew),
    Some(Fault::LongFork),
    Some(Fault::Causality),
    Some(Fault::AbortedRead),
    Some(Fault::IntermediateRead),
    Some(Fault::StaleSessionRead),
    Some(Fault::Realtime),
];

/// A generated history's text, the history, and whether values repeat.
fn generated(seed: u64) -> (String, History, bool) {
    generated_with(seed, false)
}

/// [`generated`], with commit timestamps on `:ok` ops if `stamped`.
fn generated_with(seed: u64, stamped: bool) -> (String, History, bool) {
    generated_sized(seed, stamped, 5 + Rng::new(seed ^ 1).below(60), 5)
}

/// [`generated_with`], of `txns` transactions over at most `keys` keys.
fn generated_sized(seed: u64, stamped: bool, txns: u64, keys: u64) -> (String, History, bool) {
    let mut r = Rng::new(seed);
    let level = LEVELS[r.below(LEVELS.len() as u64) as usize];
    let mut p = Params {
        seed,
        processes: 2 + r.below(5),
        txns,
        fault: FAULTS[r.below(FAULTS.len() as u64) as usize],
        fail_rate: [0.0, 0.1][r.below(2) as usize],
        info_rate: match level {
            Level::ReadUncommitted => 0.0,
            _ => [0.0, 0.1][r.below(2) as usize],
        },
        level,
        timestamps: stamped,
        ..Params::default()
    };
    p.shape.kind = Kind::RwRegister;
    p.shape.keys = 1 + r.below(keys);
    p.shape.min_ops = 1;
    p.shape.max_ops = 1 + r.below(5);
    p.shape.duplicate_values = [0.0, 0.0, 0.3][r.below(3) as usize];
    let text = gen::to_string(&p).expect("parameters");
    // A history of reads of nil alone would read as list-append's.
    let rw = Some(Workload::RwRegister);
    let h = parse_text(Format::Edn, "generated.edn", text.clone(), rw).expect("parses");
    (text, h, p.shape.duplicate_values > 0.0)
}

/// The offline check's validity under `model`, and its anomaly types.
fn offline(h: &History, model: &str) -> (Validity, Vec<String>) {
    let o = CheckOptions {
        consistency_models: Some(vec![model.to_string()]),
        ..CheckOptions::default()
    };
    let a = check::analyze(h, &o).expect("valid options");
    let v = check::verdict::verdict(&a);
    let types = v.anomaly_types().map(str::to_string).collect();
    (v.valid, types)
}

/// [`offline`], an empty graph counted as valid: nothing to say either
/// way, which a stream that decides says as valid.
fn offline_decided(h: &History, model: &str) -> (Validity, Vec<String>) {
    let (valid, types) = offline(h, model);
    match types == ["empty-transaction-graph"] {
        true => (Validity::True, types),
        false => (valid, types),
    }
}

/// The stream's ending on `text`, fed op by op as `check --stream` reads
/// it.
fn streamed(text: &str, realtime: bool, window: u64) -> Ending {
    streamed_with(text, realtime, window, false)
}

/// [`streamed`], with the commit timestamps as the version orders if
/// `stamped`.
fn streamed_with(text: &str, realtime: bool, window: u64, stamped: bool) -> Ending {
    let bytes = text.as_bytes().to_vec();
    let ops = OpStream::new(
        "generated.edn",
        move || Ok(std::io::Cursor::new(bytes)),
        Default::default(),
    );
    let options = Options {
        realtime,
        process_order: false,
        window,
        window_nanos: i64::MAX,
    };
    let mut s = RwRegisterCheck::new(options, stamped);
    for op in ops {
        let op = op.expect("generated history reads");
        let stamp = op.commit_stamp().expect("a timestamp, if any, is one");
        s.op(&op.op, op.txn(), stamp);
    }
    s.finish()
}

/// The anomalies the stream names that are not cycles.
const NOT_CYCLES: [&str; 6] = [
    "G1a",
    "G1b",
    "internal",
    "future-read",
    "garbage-read",
    "lost-update",
];

const MODELS: [(&str, bool); 2] = [("strict-serializable", true), ("serializable", false)];

/// Over many histories and windows, the stream's findings are the offline
/// check's; counts how many invalid histories it found at all.
#[test]
fn every_finding_is_the_offline_checks() {
    let (mut invalid, mut found) = (0usize, 0usize);
    for seed in 0..common::cases(2000, 20_000) as u64 {
        let (text, h, repeats) = generated(seed);
        // Every third: a window of 1 to 12 transactions.
        let window = match seed % 3 {
            0 => 1 + seed / 3 % 12,
            _ => u64::MAX,
        };
        for (model, realtime) in MODELS {
            let (valid, types) = offline(&h, model);
            let end = streamed(&text, realtime, window);
            let names: Vec<&str> = end.findings.iter().map(|f| f.name.as_str()).collect();
            let context = || {
                format!(
                    "seed {seed}, {model}, window {window}: {names:?}, offline {types:?}\n{text}"
                )
            };
            assert!(
                !end.findings.is_empty() || end.unknown.is_some(),
                "{}",
                context()
            );
            // A value written twice: the stream takes a read of it from
            // the one writer invoked before the read completed, the
            // offline check from any writer of it (the definition's
            // reads-from knows no time), so they may differ.
            if repeats {
                continue;
            }
            assert!(
                end.findings.is_empty() || valid == Validity::False,
                "{}",
                context()
            );
            for name in names.iter().filter(|n| NOT_CYCLES.contains(n)) {
                assert!(types.iter().any(|t| t == name), "{}", context());
            }
            invalid += usize::from(valid == Validity::False);
            found += usize::from(!end.findings.is_empty());
        }
    }
    eprintln!("offline invalid: {invalid}, found by the stream: {found}");
    assert!(found * 3 > invalid, "{found} of {invalid}");
}

/// With commit timestamps as the version orders (`--transaction-order
/// timestamps` offline), the stream decides: its verdict is the offline
/// one, or unknown with a reason (a value written twice, a crashed
/// transaction's write read, a window too small), never the other.
#[test]
fn with_commit_timestamps_the_stream_decides() {
    let mut counts = [0usize; 3]; // valid, invalid, unknown
    let order = OrderSource::parse("timestamps");
    for seed in 0..common::cases(2000, 20_000) as u64 {
        let (text, mut h, repeats) = generated_with(seed, true);
        commit_order::attach(&mut h, &order).expect("generated timestamps");
        let window = match seed % 3 {
            0 => 1 + seed / 3 % 12,
            _ => u64::MAX,
        };
        for (model, realtime) in MODELS {
            let (valid, types) = offline_decided(&h, model);
            let end = streamed_with(&text, realtime, window, true);
            let names: Vec<&str> = end.findings.iter().map(|f| f.name.as_str()).collect();
            let ours = match (names.is_empty(), &end.unknown) {
                (false, _) => Validity::False,
                (true, None) => Validity::True,
                (true, Some(_)) => Validity::Unknown,
            };
            let context = || {
                format!("seed {seed}, {model}, window {window}: {names:?} {:?}, offline {types:?}\n{text}", end.unknown)
            };
            // (Repeated values: see above.)
            if ours != Validity::Unknown && !repeats {
                assert_eq!(ours, valid, "{}", context());
            }
            counts[match ours {
                Validity::True => 0,
                Validity::False => 1,
                Validity::Unknown => 2,
            }] += 1;
        }
    }
    eprintln!("valid, invalid, unknown: {counts:?}");
    assert!(counts.iter().all(|&n| n > 0), "{counts:?}");
    assert!(
        counts[2] < counts[0] + counts[1],
        "mostly decided: {counts:?}"
    );
}

/// Long histories on one or two keys, which never go quiet: the window
/// prunes their old versions, and an op that needs one makes the answer
/// unknown, never the other verdict; most are still decided.
#[test]
fn keys_in_use_prune_old_versions_right_or_unknown() {
    let mut counts = [0usize; 3]; // valid, invalid, unknown
    let order = OrderSource::parse("timestamps");
    for seed in 0..common::cases(60, 600) as u64 {
        let (text, mut h, repeats) = generated_sized(seed, true, 400 + seed % 7 * 50, 2);
        if repeats {
            continue;
        }
        commit_order::attach(&mut h, &order).expect("generated timestamps");
        let window = 10 + seed % 5 * 15;
        for (model, realtime) in MODELS {
            let (valid, types) = offline_decided(&h, model);
            let end = streamed_with(&text, realtime, window, true);
            let ours = match (end.findings.is_empty(), &end.unknown) {
                (false, _) => Validity::False,
                (true, None) => Validity::True,
                (true, Some(_)) => Validity::Unknown,
            };
            if ours != Validity::Unknown {
                let names: Vec<&str> = end.findings.iter().map(|f| f.name.as_str()).collect();
                assert_eq!(
                    ours, valid,
                    "seed {seed}, {model}, window {window}: {names:?}, offline {types:?}"
                );
            }
            counts[match ours {
                Validity::True => 0,
                Validity::False => 1,
                Validity::Unknown => 2,
            }] += 1;
        }
    }
    eprintln!("valid, invalid, unknown: {counts:?}");
    assert!(
        counts[0] + counts[1] > counts[2],
        "mostly decided: {counts:?}"
    );
}

/// The stream's findings' names on a hand-written history, under strict
/// serializability.
fn names(text: &str) -> Vec<String> {
    let mut names: Vec<String> = streamed(text, true, u64::MAX)
        .findings
        .into_iter()
        .map(|f| f.name)
        .collect();
    names.sort();
    names.dedup();
    names
}

fn txn(index: usize, ty: &str, process: u32, value: &str) -> String {
    format!("{{:index {index}, :type :{ty}, :process {process}, :f :txn, :value {value}}}\n")
}

/// Each anomaly the reads show, found as the op that shows it is read.
#[test]
fn reads_show_what_offline_names() {
    // T1 writes x and y; T0 reads x = nil and T1's y: T1 wr T0 (y), and
    // T0 rw T1 (x), as x's initial version precedes T1's (G-single).
    let g_single = [
        txn(0, "invoke", 1, "[[:w :x 2] [:w :y 5]]"),
        txn(1, "invoke", 0, "[[:r :x nil] [:r :y nil]]"),
        txn(2, "ok", 0, "[[:r :x nil] [:r :y 5]]"),
        txn(3, "ok", 1, "[[:w :x 2] [:w :y 5]]"),
    ]
    .concat();
    assert_eq!(names(&g_single), ["G-single-item"]);
    // A read of an aborted write, seen before the abort.
    let g1a = [
        txn(0, "invoke", 0, "[[:w :x 1]]"),
        txn(1, "invoke", 1, "[[:r :x nil]]"),
        txn(2, "ok", 1, "[[:r :x 1]]"),
        txn(3, "fail", 0, "[[:w :x 1]]"),
    ]
    .concat();
    assert_eq!(names(&g1a), ["G1a"]);
    // An intermediate write read; a value nobody wrote; two read-then-write
    // of one version; a read that disagrees with the transaction's write.
    let rest = [
        txn(0, "invoke", 0, "[[:w :x 1] [:w :x 2]]"),
        txn(1, "ok", 0, "[[:w :x 1] [:w :x 2]]"),
        txn(2, "invoke", 1, "[[:r :x nil] [:r :y nil]]"),
        txn(3, "ok", 1, "[[:r :x 1] [:r :y 9]]"),
        txn(4, "invoke", 2, "[[:r :z nil] [:w :z 1]]"),
        txn(5, "ok", 2, "[[:r :z nil] [:w :z 1]]"),
        txn(6, "invoke", 3, "[[:r :z nil] [:w :z 2]]"),
        txn(7, "ok", 3, "[[:r :z nil] [:w :z 2]]"),
        txn(8, "invoke", 4, "[[:w :u 1] [:r :u nil]]"),
        txn(9, "ok", 4, "[[:w :u 1] [:r :u 3]]"),
    ]
    .concat();
    let found = names(&rest);
    for name in ["G1b", "garbage-read", "lost-update", "internal"] {
        assert!(found.iter().any(|n| n == name), "{name}: {found:?}");
    }
    // Real time: T1 began after T0 completed, yet read x = nil, which T0
    // wrote over.
    let stale = [
        txn(0, "invoke", 0, "[[:w :x 1]]"),
        txn(1, "ok", 0, "[[:w :x 1]]"),
        txn(2, "invoke", 1, "[[:r :x nil]]"),
        txn(3, "ok", 1, "[[:r :x nil]]"),
    ]
    .concat();
    assert_eq!(names(&stale), ["G-single-item-realtime"]);
    // A valid history is not found valid: the version orders are open.
    let end = streamed(&txn(0, "invoke", 0, "[[:w :x 1]]"), true, u64::MAX);
    assert!(end.findings.is_empty());
    assert_eq!(end.unknown.map(|u| u.keyword), Some("version-orders"));
}

/// Commit timestamps at the ends of their range are timestamps like any
/// other: a read of the version committed last finds no later one.
#[test]
fn extreme_commit_timestamps() {
    let stamped = |index: usize, ty: &str, process: u32, value: &str, ts: i64| {
        let op = txn(index, ty, process, value);
        match ty {
            "ok" => op.replace("}\n", &format!(", :commit-timestamp {ts}}}\n")),
            _ => op,
        }
    };
    let text = [
        stamped(0, "invoke", 0, "[[:w :x 1]]", 0),
        stamped(1, "ok", 0, "[[:w :x 1]]", i64::MIN),
        stamped(2, "invoke", 1, "[[:r :x nil] [:w :x 2]]", 0),
        stamped(3, "ok", 1, "[[:r :x 1] [:w :x 2]]", i64::MAX),
        stamped(4, "invoke", 2, "[[:r :x nil]]", 0),
        stamped(5, "ok", 2, "[[:r :x 2]]", i64::MAX - 1),
    ]
    .concat();
    // Versions at MIN and MAX, a read of the one at MAX (by a transaction
    // stamped before it: the order is the versions', not the readers').
    let end = streamed_with(&text, false, u64::MAX, true);
    assert!(end.unknown.is_none(), "{:?}", end.unknown);
    assert!(end.findings.is_empty(), "{:?}", end.findings);
    let rw = Some(Workload::RwRegister);
    let mut h = parse_text(Format::Edn, "extreme.edn", text, rw).expect("parses");
    commit_order::attach(&mut h, &OrderSource::parse("timestamps")).expect("timestamps");
    assert_eq!(offline_decided(&h, "serializable").0, Validity::True);
}
