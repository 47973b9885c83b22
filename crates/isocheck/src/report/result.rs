//! Elle's result map as a small tree, shared by the EDN and JSON printers.
//! Each anomaly's entry comes from its [`Explanation`](super::explanation).

use super::explanation::{explain, Detail};
use crate::check::{Analysis, Entry, Validity, Verdict};
use crate::history::History;
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

pub(crate) fn kws(name: &'static str) -> R<'static> {
    R::Kw(Cow::Borrowed(name))
}

pub(crate) fn edn(text: impl Into<Cow<'static, str>>) -> R<'static> {
    R::Edn(text.into())
}

pub(crate) fn map<'a>(entries: Vec<(&'static str, R<'a>)>) -> R<'a> {
    R::Map(entries.into_iter().map(|(k, v)| (kws(k), v)).collect())
}

/// `:valid?`: `true`, `false` or `:unknown`.
pub(crate) fn valid(v: Validity) -> R<'static> {
    match v {
        Validity::True => R::Bool(true),
        Validity::False => R::Bool(false),
        Validity::Unknown => kws("unknown"),
    }
}

/// The whole result map.
pub(crate) fn result_map<'a>(h: &'a History, a: &Analysis, v: &Verdict) -> R<'a> {
    if v.valid == Validity::True {
        return map(vec![("valid?", R::Bool(true))]);
    }
    let anomalies = v
        .anomalies
        .iter()
        .map(|(&t, entries)| {
            let value = match entries.as_slice() {
                [Entry::EmptyGraph] => R::Bool(true),
                _ => R::Vec(
                    entries
                        .iter()
                        .map(|e| {
                            crate::limits::tick();
                            entry(h, a, *e)
                        })
                        .collect(),
                ),
            };
            (kws(t), value)
        })
        .collect();
    let mut entries = verdict(v.valid, v.anomaly_types().collect(), anomalies);
    entries.push(("not", R::Set(v.not.iter().map(|m| kws(m)).collect())));
    let also_not = v.also_not.iter().map(|m| kws(m)).collect();
    entries.push(("also-not", R::Set(also_not)));
    map(entries)
}

/// The head every result map of a failed check starts with: `:valid?`,
/// `:anomaly-types` and `:anomalies`.
pub(crate) fn verdict<'a>(
    valid: Validity,
    types: Vec<&'static str>,
    anomalies: Vec<(R<'a>, R<'a>)>,
) -> Vec<(&'static str, R<'a>)> {
    vec![
        ("valid?", self::valid(valid)),
        (
            "anomaly-types",
            R::Vec(types.into_iter().map(kws).collect()),
        ),
        ("anomalies", R::Map(anomalies)),
    ]
}

/// One entry of the `:anomalies` map.
fn entry<'a>(h: &'a History, a: &Analysis, e: Entry) -> R<'a> {
    explain(h, a, e, Detail::ENTRY).entry
}
