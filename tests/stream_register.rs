//! The streaming register check (`isocheck::stream::RegisterStream`)
//! against the offline check (`isocheck::check`): on random generated
//! cas-register histories (every fault `gen cas-register` injects, crashed
//! and failed ops, one key or several, unique or repeating values) and on
//! hand-made ones. With an unbounded window the stream gives the offline
//! verdict and violations; with a small one, the offline verdict or
//! unknown, never the other verdict.

mod common;

use isocheck::history::jepsen::streaming::OpStream;
use isocheck::history::{parse_edn, History, Workload};
use isocheck::stream::{RegisterEnding, RegisterStream};
use isocheck::{Outcome, Validity};
use isocheck_gen::lwt::{self, Params, LWT_FAULTS};
use isocheck_gen::rng::Rng;
use proptest::prelude::*;
use std::collections::BTreeSet;

/// A random cas-register history (and its whole-file reading) from `seed`.
fn generated(seed: u64) -> (String, History) {
    let mut r = Rng::new(seed);
    let faults = LWT_FAULTS.len() as u64;
    let p = Params {
        seed,
        processes: 2 + r.below(6),
        keys: 1 + r.below(4),
        ops: 5 + r.below(200),
        read_ratio: [0.2, 0.4, 0.7][r.below(3) as usize],
        info_rate: [0.0, 0.05, 0.2][r.below(3) as usize],
        // Repeating values send keys to the offline search.
        values: [None, None, None, Some(3 + r.below(4))][r.below(4) as usize],
        fault: match r.below(faults + 2) {
            i if i < faults => Some(LWT_FAULTS[i as usize]),
            _ => None,
        },
        ..Params::default()
    };
    let mut out = Vec::new();
    lwt::write(&mut out, &p).expect("valid parameters");
    let text = String::from_utf8(out).expect("UTF-8");
    let mut h = parse_edn("generated.edn", &text).expect("generated history parses");
    if h.workload != Workload::CasRegister {
        // Reads only (a short run): nothing for either check to decide;
        // a last write, in the history's form, makes it a register history.
        let value = match text.contains(":value [") {
            true => "[0 0]",
            false => "0",
        };
        let text = format!(
            "{text}{{:type :invoke, :process 99, :f :write, :value {value}}}\n\
             {{:type :ok, :process 99, :f :write, :value {value}}}\n"
        );
        h = parse_edn("generated.edn", &text).expect("generated history parses");
        return (text, h);
    }
    (text, h)
}

/// A verdict: `Some(valid)`, or `None` for unknown, with the violations
/// as (name, key), sorted.
type Verdict = (Option<bool>, Vec<(String, String)>);

fn offline(h: &History) -> Verdict {
    let Ok(Outcome::Register(a)) = isocheck::check(h, &Default::default()) else {
        panic!("a register history");
    };
    let valid = match a.validity() {
        Validity::True => Some(true),
        Validity::False => Some(false),
        Validity::Unknown => None,
    };
    let mut found: Vec<(String, String)> = a
        .violations
        .iter()
        .map(|v| (v.name().to_string(), h.values.display(v.key())))
        .collect();
    found.sort();
    (valid, found)
}

/// What the stream says of `text` with `window` ops per key.
fn streamed(text: &str, window: u64) -> (Verdict, RegisterEnding) {
    let bytes = text.as_bytes().to_vec();
    let mut ops = OpStream::new(
        "generated.edn",
        move || Ok(std::io::Cursor::new(bytes)),
        Default::default(),
    );
    let mut s = RegisterStream::new(window);
    let mut found = Vec::new();
    while let Some(op) = ops.next() {
        let op = op.expect("the history reads");
        s.op(&op, ops.values()).expect("a register op");
        found.extend(s.drain());
    }
    let mut end = s.finish();
    found.append(&mut end.findings);
    let mut names: Vec<(String, String)> = found
        .iter()
        .map(|f| (f.name.to_string(), f.key.clone()))
        .collect();
    names.sort();
    let valid = match (names.is_empty(), end.unknown.is_empty()) {
        (false, _) => Some(false),
        (true, true) => Some(true),
        (true, false) => None,
    };
    end.findings = found;
    ((valid, names), end)
}

/// The stream agrees with the offline check on `h`: the same validity, the
/// same keys found not linearizable, and on each key decided at the end
/// (held whole) the same violations; a violation found at the op that
/// showed it is named as the ops so far show it (a read of a value no op
/// invoked so far writes is `unwritten`, where a later writer makes the
/// offline chain say `realtime`).
fn assert_agrees(h: &History, ours: &Verdict, end: &RegisterEnding, text: &str) {
    let (valid, found) = offline(h);
    assert_eq!(ours.0, valid, "{end:?}\n{text}");
    let keys = |v: &[(String, String)]| v.iter().map(|(_, k)| k.clone()).collect::<BTreeSet<_>>();
    assert_eq!(keys(&ours.1), keys(&found), "{end:?}\n{text}");
    let early: BTreeSet<&str> = end
        .findings
        .iter()
        .filter(|f| f.at.is_some())
        .map(|f| f.key.as_str())
        .collect();
    let at_end = |v: &[(String, String)]| {
        let v = v.iter().filter(|(_, k)| !early.contains(k.as_str()));
        v.cloned().collect::<Vec<_>>()
    };
    assert_eq!(at_end(&ours.1), at_end(&found), "{end:?}\n{text}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(1000, 20_000)))]

    /// Unbounded, the stream holds every key whole: the offline verdict and
    /// violations.
    #[test]
    fn unbounded_the_stream_is_the_offline_check(seed in any::<u64>()) {
        let (text, h) = generated(seed);
        let (ours, end) = streamed(&text, u64::MAX);
        assert_agrees(&h, &ours, &end, &text);
        prop_assert_eq!(end.retired, 0);
    }
}

/// With a window of 1 to 20 ops per key, the answer is the offline one or
/// unknown (each finding's kind one the offline check finds too), and the
/// window does not make everything unknown: valid and invalid verdicts are
/// still reached, with keys cut on the way.
#[test]
fn a_small_window_answers_right_or_unknown() {
    let mut counts = [0usize; 3]; // valid, invalid, unknown
    let mut unbounded = [0usize; 3]; // the offline verdicts, the same
    let mut cut = 0;
    for seed in 0..u64::from(common::cases(1000, 20_000)) {
        let (text, h) = generated(seed);
        let window = 1 + seed % 20;
        let (expected, kinds) = offline(&h);
        unbounded[expected.map_or(2, |v| usize::from(!v))] += 1;
        let ((ours, _), end) = streamed(&text, window);
        match ours {
            Some(ours) => {
                assert_eq!(
                    Some(ours),
                    expected,
                    "seed {seed}, window {window}: {end:?}\n{text}"
                );
                counts[usize::from(!ours)] += 1;
            }
            None => counts[2] += 1,
        }
        if ours == Some(false) {
            assert!(!kinds.is_empty(), "seed {seed}: {end:?}");
        }
        cut += usize::from(end.retired > 0 && ours.is_some());
    }
    eprintln!(
        "valid, invalid, unknown: {counts:?} (offline: {unbounded:?}); \
         decided with keys retired: {cut}"
    );
    assert!(counts.iter().all(|&n| n > 0), "{counts:?}");
    assert!(cut > 0);
}

/// The stream's verdict on a hand-made history, with `window`.
fn verdict(text: &str, window: u64) -> Verdict {
    let h = parse_edn("hand.edn", text).expect("the history parses");
    let (ours, end) = streamed(text, window);
    if window == u64::MAX {
        assert_agrees(&h, &ours, &end, text);
    }
    ours
}

fn ops(lines: &[&str]) -> String {
    lines
        .iter()
        .enumerate()
        .map(|(i, l)| format!("{{:index {i}, {l}}}\n"))
        .collect()
}

/// Key 1's value chain: a blind write of 1, then cas 1→2, 2→3.
const CHAIN: [&str; 6] = [
    ":type :invoke, :f :write, :process 0, :value [1 1]",
    ":type :ok, :f :write, :process 0, :value [1 1]",
    ":type :invoke, :f :cas, :process 0, :value [1 [1 2]]",
    ":type :ok, :f :cas, :process 0, :value [1 [1 2]]",
    ":type :invoke, :f :cas, :process 0, :value [1 [2 3]]",
    ":type :ok, :f :cas, :process 0, :value [1 [2 3]]",
];

fn with(tail: &[&str]) -> String {
    ops(&[&CHAIN[..], tail].concat())
}

#[test]
fn a_cut_key_continues_from_its_value() {
    // A read of 3 after the cut is right; of 1 (overwritten) it is not.
    let right = with(&[
        ":type :invoke, :f :read, :process 1, :value [1 nil]",
        ":type :ok, :f :read, :process 1, :value [1 3]",
    ]);
    let stale = with(&[
        ":type :invoke, :f :read, :process 1, :value [1 nil]",
        ":type :ok, :f :read, :process 1, :value [1 1]",
    ]);
    for window in [u64::MAX, 2, 3] {
        assert_eq!(verdict(&right, window), (Some(true), vec![]));
        assert_eq!(verdict(&stale, window).0, Some(false), "window {window}");
    }
    assert_eq!(
        verdict(&stale, u64::MAX).1,
        vec![("realtime".to_string(), "1".to_string())]
    );
}

#[test]
fn a_failed_write_is_never_read() {
    let text = with(&[
        ":type :invoke, :f :write, :process 1, :value [1 9]",
        ":type :fail, :f :write, :process 1, :value [1 9]",
        ":type :invoke, :f :read, :process 1, :value [1 nil]",
        ":type :ok, :f :read, :process 1, :value [1 9]",
    ]);
    for window in [u64::MAX, 2, 4] {
        assert_eq!(verdict(&text, window).0, Some(false), "window {window}");
    }
    assert_eq!(
        verdict(&text, u64::MAX).1,
        vec![("unwritten".to_string(), "1".to_string())]
    );
}

/// `:info` ops left out of the chain when their key is cut (no op
/// observed them yet), observed later. A cas from the value left at the
/// cut is carried over: valid, as held whole. A blind write may have taken
/// effect at any time after the cut, which the window let go: unknown,
/// with the op that observed it, never a violation.
#[test]
fn an_info_op_observed_after_its_cut() {
    let observed = |info: &str| {
        with(&[
            &format!(":type :invoke, :f {info}, :process 1"),
            &format!(":type :info, :f {info}, :process 1"),
            ":type :invoke, :f :read, :process 2, :value [1 nil]",
            ":type :ok, :f :read, :process 2, :value [1 3]",
            ":type :invoke, :f :read, :process 2, :value [1 nil]",
            ":type :ok, :f :read, :process 2, :value [1 4]",
        ])
    };
    let cas = observed(":cas, :value [1 [3 4]]");
    let write = observed(":write, :value [1 4]");
    for window in [u64::MAX, 1, 2, 4, 8] {
        assert_eq!(
            verdict(&cas, window),
            (Some(true), vec![]),
            "window {window}"
        );
    }
    assert_eq!(verdict(&write, u64::MAX), (Some(true), vec![]));
    let (ours, end) = streamed(&write, 4);
    assert_eq!(ours.0, None, "{end:?}");
    assert_eq!(end.unknown[0].op, 11, "{end:?}");
    assert!(end.unknown[0].reason.contains(":info"), "{end:?}");
    // Never observed, it is rightly dropped: valid with any window.
    let unobserved = with(&[
        ":type :invoke, :f :write, :process 1, :value [1 4]",
        ":type :info, :f :write, :process 1, :value [1 4]",
        ":type :invoke, :f :read, :process 2, :value [1 nil]",
        ":type :ok, :f :read, :process 2, :value [1 3]",
    ]);
    for window in [u64::MAX, 1, 2, 4, 8] {
        assert_eq!(
            verdict(&unobserved, window),
            (Some(true), vec![]),
            "window {window}"
        );
    }
}

/// A key untouched for the window is cut, and carries on from its value;
/// one the chain cannot cut (a value written twice) retires whole, and
/// touched again by an `:ok` op is unknown; by a failed one, still valid.
#[test]
fn a_retired_key_touched_again() {
    let other = [
        ":type :invoke, :f :write, :process 3, :value [2 1]",
        ":type :ok, :f :write, :process 3, :value [2 1]",
    ];
    let twice = [
        ":type :invoke, :f :write, :process 0, :value [1 3]",
        ":type :ok, :f :write, :process 0, :value [1 3]",
    ];
    let stale = [
        ":type :invoke, :f :read, :process 1, :value [1 nil]",
        ":type :ok, :f :read, :process 1, :value [1 2]",
    ];
    let cut = ops(&[&CHAIN[..], &other[..], &other[..], &other[..], &stale[..]].concat());
    let (ours, end) = streamed(&cut, 4);
    assert_eq!(
        ours,
        (
            Some(false),
            vec![("unwritten".to_string(), "1".to_string())]
        )
    );
    assert!(end.unknown.is_empty() && end.retired > 0, "{end:?}");
    let touch = |ty: &str| {
        let again = format!(":type {ty}, :f :cas, :process 1, :value [1 [3 5]]");
        let lines: Vec<&str> = [&CHAIN[..], &twice[..], &other[..], &other[..], &other[..]]
            .concat()
            .into_iter()
            .chain([
                ":type :invoke, :f :cas, :process 1, :value [1 [3 5]]",
                again.as_str(),
            ])
            .collect();
        ops(&lines)
    };
    let (ok, end) = streamed(&touch(":ok"), 5);
    assert_eq!(ok.0, None, "{end:?}");
    assert!(end.unknown[0].reason.contains("retired"), "{end:?}");
    assert_eq!(verdict(&touch(":ok"), u64::MAX).0, Some(true));
    assert_eq!(verdict(&touch(":fail"), 5), (Some(true), vec![]));
}

/// A violation the ops so far show is drained at the op that shows it,
/// held whole or not: a second cas from a value written once (a fork), a
/// read of a value only a failed write wrote.
#[test]
fn a_violation_is_drained_at_the_op_that_shows_it() {
    let drained = |text: String, window: u64| {
        let bytes = text.into_bytes();
        let mut ops = OpStream::new(
            "hand.edn",
            move || Ok(std::io::Cursor::new(bytes)),
            Default::default(),
        );
        let mut s = RegisterStream::new(window);
        let mut drained = Vec::new();
        while let Some(op) = ops.next() {
            let op = op.expect("reads");
            s.op(&op, ops.values()).expect("a register op");
            drained.extend(s.drain().into_iter().map(|f| (f.name, f.ops, f.at)));
        }
        assert!(s.finish().findings.is_empty());
        drained
    };
    let fork = || {
        with(&[
            ":type :invoke, :f :cas, :process 1, :value [1 [2 7]]",
            ":type :ok, :f :cas, :process 1, :value [1 [2 7]]",
            ":type :invoke, :f :read, :process 1, :value [1 nil]",
            ":type :ok, :f :read, :process 1, :value [1 7]",
        ])
    };
    let failed = || {
        with(&[
            ":type :invoke, :f :write, :process 1, :value [1 9]",
            ":type :fail, :f :write, :process 1, :value [1 9]",
            ":type :invoke, :f :read, :process 2, :value [1 nil]",
            ":type :ok, :f :read, :process 2, :value [1 9]",
            ":type :invoke, :f :read, :process 2, :value [1 nil]",
            ":type :ok, :f :read, :process 2, :value [1 3]",
        ])
    };
    for window in [u64::MAX, 4] {
        // cas 2→7 forks from cas 2→3 (ops 5 and 7).
        assert_eq!(drained(fork(), window), vec![("fork", vec![5, 7], Some(7))]);
        assert_eq!(
            drained(failed(), window),
            vec![("unwritten", vec![9], Some(9))]
        );
    }
}

/// A mutex's states repeat, so its keys go to the offline search: held
/// whole they are decided as offline; a window they outgrow leaves them
/// unknown, never the other verdict.
#[test]
fn mutex_histories() {
    let step = |p: u32, f: &str| {
        [
            format!(":type :invoke, :f :{f}, :process {p}, :value nil"),
            format!(":type :ok, :f :{f}, :process {p}, :value nil"),
        ]
    };
    let history = |steps: &[(u32, &str)]| {
        let lines: Vec<String> = steps.iter().flat_map(|&(p, f)| step(p, f)).collect();
        ops(&lines.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let valid = history(&[
        (0, "acquire"),
        (0, "release"),
        (1, "acquire"),
        (1, "release"),
    ]);
    let twice = history(&[
        (0, "acquire"),
        (0, "release"),
        (1, "acquire"),
        (2, "acquire"),
    ]);
    assert_eq!(verdict(&valid, u64::MAX), (Some(true), vec![]));
    assert_eq!(
        verdict(&twice, u64::MAX),
        (
            Some(false),
            vec![("no-linearization".to_string(), "nil".to_string())]
        )
    );
    for window in [1, 2, 3] {
        assert_ne!(verdict(&valid, window).0, Some(false), "window {window}");
        assert_ne!(verdict(&twice, window).0, Some(true), "window {window}");
    }
    let (_, end) = streamed(&valid, 2);
    assert!(end.unknown[0].reason.contains("window"), "{end:?}");
}

/// A completion without invocation was invoked at the start of time (as
/// the whole-file reader has it): held whole it is placed so; after its
/// key was cut it may have run among the ops let go, so unknown.
#[test]
fn a_completion_without_invocation() {
    let late = with(&[":type :ok, :f :cas, :process 1, :value [1 [1 9]]"]);
    assert_eq!(verdict(&late, u64::MAX).0, Some(false));
    let (ours, end) = streamed(&late, 2);
    assert_eq!(ours.0, None, "{end:?}");
    assert_eq!(end.unknown[0].op, 6, "{end:?}");
    let first = ops(&[
        ":type :ok, :f :write, :process 1, :value [1 1]",
        ":type :invoke, :f :read, :process 0, :value [1 nil]",
        ":type :ok, :f :read, :process 0, :value [1 1]",
    ]);
    assert_eq!(verdict(&first, u64::MAX), (Some(true), vec![]));
}
