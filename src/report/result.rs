//! Elle's result map as a small tree, shared by the EDN and JSON printers.

use super::explain::{
    cycle_exists_subgraph, invocation, list_text, mop_index, mop_text, mop_value_text, op_text,
    scc_indices, txn_text, version_edn,
};
use crate::check::{lattice, Analysis, Entry, Forced, FoundCycle, Validity, Verdict};
use crate::history::{History, TxnId, Val};
use crate::infer::anomaly::{Anomaly, Expected};
use crate::infer::{Constraint, Dep, Rel};
use std::borrow::Cow;

/// An EDN value of the result map.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum R<'a> {
    Nil,
    Bool(bool),
    Int(i64),
    /// A keyword, by name (without the colon).
    Kw(Cow<'a, str>),
    /// A symbol (Elle's `'...` elision).
    Sym(&'static str),
    /// EDN text taken from the history or the value table, printed as is.
    Edn(Cow<'a, str>),
    Vec(Vec<R<'a>>),
    Set(Vec<R<'a>>),
    Map(Vec<(R<'a>, R<'a>)>),
}

fn kw(name: &str) -> R<'_> {
    R::Kw(Cow::Borrowed(name))
}

pub(super) fn kws(name: &'static str) -> R<'static> {
    R::Kw(Cow::Borrowed(name))
}

pub(super) fn edn(text: impl Into<Cow<'static, str>>) -> R<'static> {
    R::Edn(text.into())
}

pub(super) fn map<'a>(entries: Vec<(&'static str, R<'a>)>) -> R<'a> {
    R::Map(entries.into_iter().map(|(k, v)| (kws(k), v)).collect())
}

fn index(i: Option<u32>) -> R<'static> {
    i.map_or(R::Nil, |i| R::Int(i64::from(i)))
}

/// The whole result map.
pub(crate) fn result_map<'a>(h: &'a History, a: &Analysis, v: &Verdict) -> R<'a> {
    if v.valid == Validity::True {
        return map(vec![("valid?", R::Bool(true))]);
    }
    let valid = match v.valid {
        Validity::False => R::Bool(false),
        _ => kws("unknown"),
    };
    let types = v.anomaly_types().map(kws).collect();
    let anomalies = v
        .anomalies
        .iter()
        .map(|(&t, entries)| {
            let value = match entries.as_slice() {
                [Entry::EmptyGraph] => R::Bool(true),
                _ => R::Vec(entries.iter().map(|e| entry(h, a, *e)).collect()),
            };
            (kws(t), value)
        })
        .collect();
    map(vec![
        ("valid?", valid),
        ("anomaly-types", R::Vec(types)),
        ("anomalies", R::Map(anomalies)),
        ("not", R::Set(v.not.iter().map(|m| kws(m)).collect())),
        (
            "also-not",
            R::Set(v.also_not.iter().map(|m| kws(m)).collect()),
        ),
    ])
}

/// One entry of the `:anomalies` map.
pub(crate) fn entry<'a>(h: &'a History, a: &Analysis, e: Entry) -> R<'a> {
    match e {
        Entry::Cycle(i) => map(cycle(h, a, &a.cycles[i])),
        Entry::Forced(i) => forced(h, a, &a.forced[i]),
        Entry::Stopped(i) => {
            let s = &a.stopped[i];
            map(vec![
                ("type", kws(lattice::CYCLE_SEARCH_TIMEOUT)),
                ("model", kw(lattice::friendly_model(s.model))),
                ("reason", edn(format!("{:?}", s.reason))),
                ("stage", kws(s.stage.name())),
                ("constraints", R::Int(s.constraints as i64)),
            ])
        }
        Entry::Anomaly(i) => anomaly(h, &a.anomalies[i]),
        Entry::CycleExists(i) => {
            let c = &a.cycle_exists[i];
            let scc = scc_indices(h, &c.scc);
            map(vec![
                ("type", kws(lattice::cycle_exists_anomaly(c.model))),
                ("not", kw(lattice::friendly_model(c.model))),
                ("subgraph", edn(cycle_exists_subgraph(c.model))),
                ("scc-size", R::Int(c.scc.len() as i64)),
                ("scc", R::Set(scc.into_iter().map(R::Int).collect())),
            ])
        }
        Entry::EmptyGraph => R::Bool(true),
    }
}

/// A cycle's `:cycle`, `:steps` and `:type`, in the order Elle prints them
/// (its explainer builds `{:cycle .., :steps ..}`, then adds `:type`).
fn cycle<'a>(h: &'a History, a: &Analysis, c: &FoundCycle) -> Vec<(&'static str, R<'a>)> {
    let ops = a
        .cycle_txns(c)
        .into_iter()
        .map(|t| R::Edn(txn_text(h, t)))
        .collect();
    let steps = a.cycle_steps(c).map(|d| step(h, d)).collect();
    vec![
        ("cycle", R::Vec(ops)),
        ("steps", R::Vec(steps)),
        ("type", kws(c.name)),
    ]
}

/// A cycle every version order closes: the pairs of transactions whose
/// write order is unknown, and each resolution's cycle, the transactions
/// whose writes come first named by their `:index`.
fn forced<'a>(h: &'a History, a: &Analysis, f: &Forced) -> R<'a> {
    let pairs = f
        .pairs
        .iter()
        .map(|p| {
            map(vec![
                (
                    "txns",
                    R::Vec(vec![R::Edn(txn_text(h, p.a)), R::Edn(txn_text(h, p.b))]),
                ),
                (
                    "keys",
                    R::Vec(pair_keys(p).map(|k| edn(h.values.display(k))).collect()),
                ),
            ])
        })
        .collect();
    let cases = f
        .cases
        .iter()
        .map(|c| {
            // One index per pair, in the order of `:unknown-orders`.
            let first = f
                .writes_first(c)
                .into_iter()
                .map(|t| R::Int(h.op(h.txn(t).op()).index))
                .collect();
            let mut entries = vec![("writes-first", R::Vec(first))];
            entries.extend(cycle(h, a, &c.cycle));
            map(entries)
        })
        .collect();
    map(vec![
        ("type", kws(f.name)),
        ("not", kw(lattice::friendly_model(f.model))),
        ("unknown-orders", R::Vec(pairs)),
        ("cases", R::Vec(cases)),
    ])
}

/// The keys a constraint's pair both wrote, in order of first appearance.
pub(crate) fn pair_keys(p: &Constraint) -> impl Iterator<Item = Val> + '_ {
    let mut seen = Vec::new();
    p.sides[0]
        .iter()
        .filter(|d| d.rel == Rel::Ww)
        .map(|d| d.key)
        .filter(move |k| {
            let new = !seen.contains(k);
            if new {
                seen.push(*k);
            }
            new
        })
}

/// One step of a cycle, as Elle's explainers' `explain-pair-data` builds it.
pub(crate) fn step<'a>(h: &'a History, d: &Dep) -> R<'a> {
    let key = || edn(h.values.display(d.key));
    let a_mop = || index(mop_index(h, d.from, d.a_mop));
    let b_mop = || index(mop_index(h, d.to, d.b_mop));
    match d.rel {
        Rel::Ww | Rel::Rw => map(vec![
            ("type", kws(d.rel.name())),
            ("key", key()),
            ("value", edn(version_edn(h, d.value))),
            ("value'", edn(version_edn(h, d.value2))),
            ("a-mop-index", a_mop()),
            ("b-mop-index", b_mop()),
        ]),
        Rel::Wr => map(vec![
            ("type", kws("wr")),
            ("key", key()),
            ("value", edn(version_edn(h, d.value))),
            ("a-mop-index", a_mop()),
            ("b-mop-index", b_mop()),
        ]),
        Rel::Process => map(vec![
            ("type", kws("process")),
            ("process", R::Int(h.txn(d.from).process)),
        ]),
        Rel::Realtime => map(vec![
            ("type", kws("realtime")),
            ("a'", R::Edn(txn_text(h, d.from))),
            ("b", R::Edn(op_text(h, invocation(h, d.to)))),
        ]),
    }
}

fn txn_r(h: &History, t: TxnId) -> R<'_> {
    R::Edn(txn_text(h, t))
}

fn mop_r(h: &History, m: u32) -> R<'_> {
    R::Edn(mop_text(h, m))
}

/// A non-cycle anomaly entry, with Elle's keys in Elle's order.
pub(crate) fn anomaly<'a>(h: &'a History, x: &Anomaly) -> R<'a> {
    let val = |v| edn(h.values.display(v));
    match x {
        Anomaly::G1a {
            reader,
            mop,
            writer,
            element,
        }
        | Anomaly::G1b {
            reader,
            mop,
            writer,
            element,
        } => {
            let mut e = vec![
                ("op", txn_r(h, *reader)),
                ("mop", mop_r(h, *mop)),
                ("writer", txn_r(h, *writer)),
            ];
            if let Some(el) = element {
                e.push(("element", val(*el)));
            }
            map(e)
        }
        Anomaly::Internal { txn, mop, expected } => {
            let expected = match expected {
                Expected::List {
                    prefix_known,
                    elems,
                } => {
                    let mut items: Vec<R> = Vec::new();
                    if !prefix_known {
                        items.push(R::Sym("..."));
                    }
                    items.extend(elems.iter().map(|&v| val(v)));
                    R::Vec(items)
                }
                Expected::Value(v) => val(*v),
            };
            map(vec![
                ("op", txn_r(h, *txn)),
                ("mop", mop_r(h, *mop)),
                ("expected", expected),
            ])
        }
        Anomaly::FutureRead { txn, mop, element } => map(vec![
            ("op", txn_r(h, *txn)),
            ("mop", mop_r(h, *mop)),
            ("element", val(*element)),
        ]),
        Anomaly::DirtyUpdate { key, values, txns } => {
            let mut ts = Vec::new();
            if let Some(&first) = txns.first() {
                ts.push(txn_r(h, first));
                ts.push(R::Sym("..."));
            }
            if let Some(&last) = txns.last() {
                ts.push(txn_r(h, last));
            }
            map(vec![
                ("key", val(*key)),
                ("values", R::Vec(values.iter().map(|&v| val(v)).collect())),
                ("txns", R::Vec(ts)),
            ])
        }
        Anomaly::DuplicateElements {
            txn,
            mop,
            duplicates,
        } => map(vec![
            ("op", txn_r(h, *txn)),
            ("mop", mop_r(h, *mop)),
            (
                "duplicates",
                R::Map(
                    duplicates
                        .iter()
                        .map(|&(v, n)| (val(v), R::Int(i64::from(n))))
                        .collect(),
                ),
            ),
        ]),
        Anomaly::IncompatibleOrder { key, reads } => map(vec![
            ("key", val(*key)),
            (
                "values",
                R::Vec(reads.iter().map(|&m| edn(read_list(h, m))).collect()),
            ),
        ]),
        Anomaly::LostUpdate {
            key,
            read_mop,
            txns,
        } => map(vec![
            ("key", val(*key)),
            ("value", edn(mop_value_text(h, *read_mop))),
            ("txns", R::Vec(txns.iter().map(|&t| txn_r(h, t)).collect())),
        ]),
        Anomaly::CyclicVersions { key, scc, sources } => map(vec![
            ("key", val(*key)),
            ("scc", R::Set(scc.iter().map(|&v| val(v)).collect())),
            ("sources", R::Vec(sources.iter().map(|&s| kws(s)).collect())),
        ]),
        Anomaly::GarbageRead { txn, mop } => {
            map(vec![("op", txn_r(h, *txn)), ("mop", mop_r(h, *mop))])
        }
    }
}

/// The list a read micro-op returned, in canonical EDN.
fn read_list(h: &History, m: u32) -> String {
    match h.mops[m as usize].value() {
        crate::history::MopValue::List { start, len } => list_text(h, h.list(start, len)),
        crate::history::MopValue::Val(v) => h.values.display(v),
    }
}
