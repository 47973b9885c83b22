//! The verdict as Elle's `result-map` computes it: which anomalies are
//! reported, `:valid?`, and the `:not` / `:also-not` boundary; and which
//! model a forced anomaly's cases prove violated.

use super::cycles::{ModelGraph, MODEL_GRAPHS};
use super::{lattice, Analysis, Forced};
use crate::graph::{Rel, RelSet};
use std::collections::{BTreeMap, BTreeSet};

pub use crate::validity::Validity;

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
    /// `Analysis::weak[i]`
    Weak(usize),
    /// `:empty-transaction-graph true`
    EmptyGraph,
    /// A requested model the check does not decide (`:model-not-checked`),
    /// by canonical name.
    NotChecked(&'static str),
}

/// Elle's result map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// `:valid?`
    pub valid: Validity,
    /// The reportable anomalies by type, sorted by type (`:anomaly-types`).
    pub anomalies: BTreeMap<&'static str, Vec<Entry>>,
    /// Friendly model names; empty when the history is valid.
    pub not: BTreeSet<&'static str>,
    /// `:also-not`: models implied to fail by those in `not`.
    pub also_not: BTreeSet<&'static str>,
}

impl Verdict {
    /// Elle's `:anomaly-types`: the names of the anomalies found, sorted.
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
        all.entry(c.graph.anomaly())
            .or_default()
            .push(Entry::CycleExists(i));
    }
    for (i, f) in a.forced.iter().enumerate() {
        all.entry(f.name).or_default().push(Entry::Forced(i));
    }
    for (i, w) in a.weak.iter().enumerate() {
        all.entry(w.name()).or_default().push(Entry::Weak(i));
    }
    for i in 0..a.stopped.len() {
        all.entry(lattice::CYCLE_SEARCH_TIMEOUT)
            .or_default()
            .push(Entry::Stopped(i));
    }
    if a.empty_graph() {
        all.insert("empty-transaction-graph", vec![Entry::EmptyGraph]);
    }
    let ruled_out = lattice::impossible_models(all.keys().copied());
    let not_checked: Vec<Entry> = a
        .unchecked
        .iter()
        .filter(|m| !ruled_out.contains(*m))
        .map(|&m| Entry::NotChecked(m))
        .collect();
    if !not_checked.is_empty() {
        all.insert(lattice::MODEL_NOT_CHECKED, not_checked);
    }
    all
}

/// The models what the analysis found rules out (`:not` and `:also-not`
/// together, by canonical name).
pub(super) fn ruled_out(a: &Analysis) -> BTreeSet<&'static str> {
    lattice::impossible_models(all_anomalies(a).keys().copied())
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
        .filter(|t| ModelGraph::of_anomaly(t).is_none())
        .collect();
    let impossible = lattice::impossible_models(specific);
    reportable.retain(|t, _| match ModelGraph::of_anomaly(t) {
        Some(m) => !impossible.contains(m.model),
        None => true,
    });
}

/// Names each forced anomaly's model by what its cases prove. A model is
/// decided with the order edges its graph has (strict-serializable with real
/// time); when every resolution's cycle closes without them, the model
/// without them is violated too, and that is the one to name
/// (serializable, not strict-serializable).
pub(super) fn name_proven_models(a: &mut Analysis) {
    let proven: Vec<&'static str> = a.forced.iter().map(|f| proven_model(a, f)).collect();
    for (f, model) in a.forced.iter_mut().zip(proven) {
        f.model = model;
    }
}

/// The decided model without the order relations no case's cycle uses
/// (strict-serializable without real time is serializable); the decided
/// model itself when the cycles use all it has, or when some resolution
/// has no cycle listed.
fn proven_model(a: &Analysis, f: &Forced) -> &'static str {
    let every_case = f.pairs.len() < usize::BITS as usize && f.cases.len() == 1 << f.pairs.len();
    let Some(decided) = MODEL_GRAPHS.iter().find(|m| m.model == f.model) else {
        return f.model;
    };
    let order = RelSet::of(&[Rel::Process, Rel::Realtime]);
    let used = f
        .cases
        .iter()
        .flat_map(|c| &c.cycle.steps)
        .map(|&i| a.deps[i as usize].rel)
        .filter(|&r| order.contains(r))
        .fold(RelSet::EMPTY, |s, r| s.union(r.bit()));
    let base = RelSet(decided.base.0 & !order.0).union(used);
    if !every_case || base == decided.base {
        return f.model;
    }
    // Of the models with that graph (repeatable-read's and serializable's),
    // the one the decided model strengthens: the strongest, which comes
    // last.
    MODEL_GRAPHS
        .iter()
        .rev()
        .find(|m| {
            m.base == base && m.extension == decided.extension && m.plain_ww == decided.plain_ww
        })
        .map_or(f.model, |m| m.model)
}
