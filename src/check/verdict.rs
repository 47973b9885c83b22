//! The verdict as Elle's `result-map` computes it: which anomalies are
//! reported, `:valid?`, and the `:not` / `:also-not` boundary.

use super::{lattice, Analysis};
use std::collections::{BTreeMap, BTreeSet};

/// `:valid?`
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Validity {
    True,
    False,
    /// Only `:empty-transaction-graph` (or a stopped search) was reportable.
    Unknown,
}

impl Validity {
    pub fn name(self) -> &'static str {
        match self {
            Validity::True => "true",
            Validity::False => "false",
            Validity::Unknown => "unknown",
        }
    }
}

/// One entry of the `:anomalies` map, pointing into the [`Analysis`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    /// `Analysis::cycles[i]`
    Cycle(usize),
    /// `Analysis::anomalies[i]`
    Anomaly(usize),
    /// `Analysis::cycle_exists[i]`
    CycleExists(usize),
    /// `Analysis::forced[i]`
    Forced(usize),
    /// `Analysis::stopped[i]` (a `:cycle-search-timeout`)
    Stopped(usize),
    /// `:empty-transaction-graph true`
    EmptyGraph,
}

/// Elle's result map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub valid: Validity,
    /// The reportable anomalies by type, sorted by type (`:anomaly-types`).
    pub anomalies: BTreeMap<&'static str, Vec<Entry>>,
    /// Friendly model names; empty when the history is valid.
    pub not: BTreeSet<&'static str>,
    pub also_not: BTreeSet<&'static str>,
}

impl Verdict {
    pub fn anomaly_types(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.anomalies.keys().copied()
    }
}

/// Every anomaly found, by type, reportable or not.
pub(super) fn all_anomalies(a: &Analysis) -> BTreeMap<&'static str, Vec<Entry>> {
    let mut all: BTreeMap<&'static str, Vec<Entry>> = BTreeMap::new();
    for (i, x) in a.anomalies.iter().enumerate() {
        all.entry(x.name()).or_default().push(Entry::Anomaly(i));
    }
    for (i, c) in a.cycles.iter().enumerate() {
        all.entry(c.name()).or_default().push(Entry::Cycle(i));
    }
    for (i, c) in a.cycle_exists.iter().enumerate() {
        let name = lattice::cycle_exists_anomaly(c.model);
        all.entry(name).or_default().push(Entry::CycleExists(i));
    }
    for (i, f) in a.forced.iter().enumerate() {
        all.entry(f.name).or_default().push(Entry::Forced(i));
    }
    for i in 0..a.stopped.len() {
        all.entry(lattice::CYCLE_SEARCH_TIMEOUT)
            .or_default()
            .push(Entry::Stopped(i));
    }
    if a.empty_graph() {
        all.insert("empty-transaction-graph", vec![Entry::EmptyGraph]);
    }
    all
}

/// Computes the verdict (Elle's `result-map`).
pub fn verdict(a: &Analysis) -> Verdict {
    let all = all_anomalies(a);
    let bad = all.keys().any(|t| a.prohibited.contains(t));
    let mut reportable: BTreeMap<&'static str, Vec<Entry>> = all
        .iter()
        .filter(|(t, _)| a.reportable.contains(*t))
        .map(|(t, e)| (*t, e.clone()))
        .collect();
    remove_redundant_cycle_exists(&mut reportable);
    if reportable.is_empty() {
        return Verdict {
            valid: Validity::True,
            anomalies: reportable,
            not: BTreeSet::new(),
            also_not: BTreeSet::new(),
        };
    }
    let boundary = lattice::friendly_boundary(all.keys().copied());
    Verdict {
        valid: if bad {
            Validity::False
        } else {
            Validity::Unknown
        },
        anomalies: reportable,
        not: boundary.not,
        also_not: boundary.also_not,
    }
}

/// A `<model>-cycle-exists` entry says little once a specific anomaly rules
/// the model out (Elle's `remove-redundant-cycle-exists`).
fn remove_redundant_cycle_exists(reportable: &mut BTreeMap<&'static str, Vec<Entry>>) {
    let specific: Vec<&'static str> = reportable
        .keys()
        .copied()
        .filter(|t| !t.ends_with("-cycle-exists"))
        .collect();
    let impossible = lattice::impossible_models(specific);
    reportable.retain(|t, _| match t.strip_suffix("-cycle-exists") {
        Some(model) => !impossible.contains(model),
        None => true,
    });
}
