//! The axiomatic levels' violations (`check::weak`) explained as data, as
//! [`super`] does for Elle's anomalies: the entry in the result map (the
//! definition checked, the writers chosen where a read's writer is a
//! choice, and the missed write or the cycle of commit-order steps), the
//! help text and the labels on the history file.

use super::super::explain::{clip, mop_text, read_from_text, txn_index, txn_text, PROSE};
use super::super::result::{edn, kws, map, R};
use super::{reads_from_entry, Explanation};
use crate::check::weak::{Chosen, Found, Level, Step, Violation, Why};
use crate::history::{History, TxnId};
use std::fmt::Write;

/// Explains a violation of an axiomatic level.
pub(crate) fn violation<'a>(h: &'a History, v: &Violation) -> Explanation<'a> {
    let (found, mut help, labels) = match &v.found {
        Found::Missed {
            reader,
            mop,
            writer,
            seen,
        } => missed(h, v.level, (*reader, *mop, *writer), seen),
        Found::Cycle(steps) => cycle(h, v.level, steps),
        Found::OwnWrite { reader, mop } => own_write(h, v.level, *reader, *mop),
    };
    let mut entry = vec![
        ("type", kws(v.level.anomaly())),
        ("definition", edn(format!("{:?}", v.level.definition()))),
    ];
    if let Some(chosen) = &v.chosen {
        entry.push(("writer-choices", R::Int(saturating_i64(chosen.assignments))));
        entry.push(("reads-from", reads_from_entry(h, &chosen.reads_from)));
        help = format!("{}\n{help}", whichever(h, v.level, chosen));
    }
    entry.extend(found);
    Explanation {
        entry: map(entry),
        help,
        labels: labels
            .into_iter()
            .map(|(t, text)| (h.op(h.txn(t).op()).span, text))
            .collect(),
        warning: false,
    }
}

/// That the violation holds whatever writer each read of a repeated value
/// had, and which the explanation below assumes.
fn whichever(h: &History, level: Level, chosen: &Chosen) -> String {
    let reads: Vec<String> = (chosen.reads_from.iter())
        .map(|&(r, w)| read_from_text(h, r, w))
        .collect();
    format!(
        "whichever write of a repeated value each read returned ({} choices, each checked), the \
         history is {}. If {}:",
        chosen.assignments,
        not(level),
        reads.join(" and ")
    )
}

fn saturating_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

type Parts<'a> = (Vec<(&'static str, R<'a>)>, String, Vec<(TxnId, String)>);

/// How people name a transaction: by its op's index.
fn name(h: &History, t: TxnId) -> String {
    format!("T{}", txn_index(h, t))
}

/// A micro-op in a sentence, clipped.
fn mop_prose(h: &History, mop: u32) -> String {
    clip(&mop_text(h, mop), PROSE.op_chars).into_owned()
}

/// What the level is called in a sentence.
fn not(level: Level) -> &'static str {
    match level {
        Level::ReadCommitted => "not read committed (Biswas and Enea)",
        Level::ReadAtomic => "not read atomic",
        Level::MonotonicReads => "without monotonic reads",
        Level::MonotonicWrites => "without monotonic writes",
        Level::WritesFollowReads => "without writes follow reads",
        Level::Pram => "not PRAM",
        Level::Causal => "not causally consistent",
    }
}

fn missed<'a>(
    h: &'a History,
    level: Level,
    (reader, mop, writer): (TxnId, u32, TxnId),
    seen: &[Step],
) -> Parts<'a> {
    let (r, w) = (name(h, reader), name(h, writer));
    let mut help = format!(
        "{r} sees {w}, which writes the key of its read {}, yet that read does not \
         show {w}'s write: the history is {}; {r} sees {w} because:",
        mop_prose(h, mop),
        not(level)
    );
    for s in seen {
        let _ = write!(help, "\n  {}", sentence(h, s));
    }
    let entry = vec![
        ("reader", edn(txn_text(h, reader).into_owned())),
        ("read", edn(mop_text(h, mop).into_owned())),
        ("missed", edn(txn_text(h, writer).into_owned())),
        ("seen", R::Vec(seen.iter().map(|s| step(h, s)).collect())),
    ];
    let labels = vec![
        (reader, format!("{r}: its read misses {w}")),
        (writer, format!("{w}: seen by {r}")),
    ];
    (entry, help, labels)
}

fn own_write<'a>(h: &'a History, level: Level, reader: TxnId, mop: u32) -> Parts<'a> {
    let r = name(h, reader);
    let help = format!(
        "{r}'s read {} does not show {r}'s own earlier write of the key: the history \
         is {}",
        mop_prose(h, mop),
        not(level)
    );
    let entry = vec![
        ("reader", edn(txn_text(h, reader).into_owned())),
        ("read", edn(mop_text(h, mop).into_owned())),
    ];
    let labels = vec![(reader, format!("{r}: its read misses its own write"))];
    (entry, help, labels)
}

fn cycle<'a>(h: &'a History, level: Level, steps: &[Step]) -> Parts<'a> {
    let mut help = format!(
        "no commit order satisfies {}; each of these transactions must commit \
         before the next:",
        level.definition()
    );
    for s in steps {
        let _ = write!(help, "\n  {}", sentence(h, s));
    }
    let _ = write!(help, "\nso the history is {}", not(level));
    let entry = vec![
        (
            "cycle",
            R::Vec(
                steps
                    .iter()
                    .map(|s| edn(txn_text(h, s.from).into_owned()))
                    .collect(),
            ),
        ),
        ("steps", R::Vec(steps.iter().map(|s| step(h, s)).collect())),
    ];
    let labels = steps
        .iter()
        .take(10)
        .map(|s| (s.from, format!("{} in the cycle", name(h, s.from))))
        .collect();
    (entry, help, labels)
}

fn sentence(h: &History, s: &Step) -> String {
    let (a, b) = (name(h, s.from), name(h, s.to));
    match s.why {
        Why::Session => format!("{a} < {b}: {a} comes first in their session"),
        Why::ReadFrom { mop } => {
            format!("{a} < {b}: {b} read {a}'s write in {}", mop_prose(h, mop))
        }
        Why::ListOrder { mop } => {
            format!(
                "{a} < {b}: {} lists {a}'s append before {b}'s",
                mop_prose(h, mop)
            )
        }
        Why::Sees { reader, mop } => format!(
            "{a} < {b}: {} sees {a}, which writes the key its read {} took from {b}",
            name(h, reader),
            mop_prose(h, mop)
        ),
    }
}

fn step<'a>(h: &'a History, s: &Step) -> R<'a> {
    let (kind, mop, reader) = match s.why {
        Why::Session => ("so", None, None),
        Why::ReadFrom { mop } => ("wr", Some(mop), None),
        Why::ListOrder { mop } => ("list-order", Some(mop), None),
        Why::Sees { reader, mop } => ("sees", Some(mop), Some(reader)),
    };
    let index = |t: TxnId| R::Int(txn_index(h, t));
    let mut entry = vec![
        ("type", kws(kind)),
        ("from", index(s.from)),
        ("to", index(s.to)),
    ];
    if let Some(m) = mop {
        entry.push(("read", edn(mop_text(h, m).into_owned())));
    }
    if let Some(r) = reader {
        entry.push(("reader", edn(txn_text(h, r).into_owned())));
    }
    map(entry)
}
