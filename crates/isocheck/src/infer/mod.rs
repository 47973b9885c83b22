//! Inference: what a history says about the database's version order.
//!
//! Owns finding the dependency edges (ww, wr, rw, and closed-predicate's
//! predicate edges) each workload lets us infer
//! with certainty, the witness behind every edge (key, values, micro-ops; the
//! edge type, [`Dep`], is the graph's) so that a cycle can be explained step
//! by step, and the non-cycle anomalies found on the way (G1a, G1b, internal,
//! ...). Knows nothing of cycles or models.

pub mod anomaly;
mod closed_predicate;
mod list_append;
pub mod mini;
mod rw_register;
#[cfg(test)]
mod tests;
mod uncertain;
pub(crate) mod util;

pub use anomaly::Anomaly;
pub use uncertain::{Clause, Clauses, Constraint, Constraints, Kind, Pair};

use crate::graph::{Dep, Rel, Version};
use crate::history::{History, TxnId, Workload};

/// Options of the inference, with Elle's names (`rw-register` only).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InferOptions {
    /// Process order orders the versions of each key (`:sequential-keys?`).
    pub sequential_keys: bool,
    /// Real-time order orders the versions of each key (`:linearizable-keys?`).
    pub linearizable_keys: bool,
    /// Within a transaction, writes follow reads (`:wfr-keys?`).
    pub wfr_keys: bool,
}

/// What inference found: the data dependencies and the non-cycle anomalies.
#[derive(Debug, Default)]
pub struct Inference {
    /// ww, wr and rw edges, each with its witness. No self-edges. The same
    /// `(from, to, rel)` may appear once only.
    pub deps: Vec<Dep>,
    /// Non-cycle anomalies, in a deterministic order (by kind, then by
    /// position in the history).
    pub anomalies: Vec<Anomaly>,
    /// Transactions that take part in the dependency graph: committed ones,
    /// and indeterminate ones whose writes were observed (SPEC §2.1). The
    /// graph is built from the edges; the unit tests hold inference to this.
    #[cfg_attr(not(test), allow(dead_code))]
    pub in_graph: Vec<bool>,
    /// Edges that hold in every model forbidding G1c, on top of `deps`.
    pub implied: Vec<Dep>,
    /// What the version order leaves open, one constraint per pair of
    /// transactions (per pair of read-modify-write chains when `chained`).
    pub constraints: Constraints,
    /// Whether `constraints` treat read-modify-write chains as contiguous,
    /// which only models whose graph has rw edges may assume (a write inside
    /// a chain is a G-single). Decided there they are exact; other models,
    /// and explanations, take [`unchained_constraints`].
    pub chained: bool,
    /// Whether the version order leaves some pair open: `constraints` is
    /// not empty, or would not be had [`infer_deferred`] built them.
    pub open: bool,
    /// Per micro-op of an rw-register history, when [`infer_deferred`] was
    /// asked for them (else empty): for a committed transaction's read,
    /// the transaction whose last write of the key it returns, when that
    /// one did not abort; `u32::MAX` otherwise. The axiomatic levels read
    /// them (`check::weak`) rather than find every write again.
    pub read_sources: Vec<TxnId>,
    /// Reads of a value written more than once that more than one writer
    /// could have given: their writer is a choice the constraints make
    /// (`Kind::ReadFrom`), and the shortcuts that take every read's writer
    /// as known do not apply. An rw-register history's, in the order of
    /// the history; none elsewhere.
    pub ambiguous: Vec<AmbiguousRead>,
}

/// A read of a value written more than once that more than one write could
/// have given ([`Inference::ambiguous`]): what a check taking one writer
/// per read (`check::weak`) ranges over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AmbiguousRead {
    /// The reading transaction, a committed one.
    pub txn: TxnId,
    /// The read, an index into `History::mops`.
    pub mop: u32,
    /// The transaction's later reads of the key that return what this one
    /// did before any write of its own to it: they read the version it
    /// had, so they share this read's writer and are no choice of their
    /// own (the constraints give them none either).
    pub rereads: Vec<u32>,
    /// The transactions whose write of the value it may have returned, in
    /// the order of the history: the writer of each `Kind::ReadFrom`
    /// constraint of the read (a transaction other than the reader, that
    /// did not abort, whose last write of the key it is).
    pub writers: Vec<TxnId>,
}

/// Which dependency edges [`infer_deferred`] builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edges {
    /// None, only the anomalies: no cycle is searched for, nothing drawn
    /// from the graph (the axiomatic levels alone, on a complete log).
    None,
    /// wr and ww edges: no cycle searched for has an rw edge.
    WithoutRw,
    /// Every edge.
    All,
}

/// What building deferred constraints takes ([`infer_deferred`]).
pub enum Pending<'h> {
    /// Built already, or not wanted.
    Built,
    RwRegister(Box<rw_register::Pending<'h>>),
    ListAppend(Box<list_append::Pending>),
}

impl Pending<'_> {
    /// The ww and rw edges of one version order, while the constraints are
    /// not built: every key's written versions after its initial one in
    /// the order of their writers' `rank`, the edges of each version
    /// preceding the next. `None` for constraints built already.
    pub fn adjacent_edges(&self, rank: &[u32]) -> Option<Vec<Dep>> {
        match self {
            Pending::Built => None,
            Pending::RwRegister(p) => Some(p.adjacent_edges(rank)),
            Pending::ListAppend(p) => Some(p.adjacent_edges(rank)),
        }
    }

    /// The constraints left out of the inference; none when they were
    /// built there.
    pub fn constraints(self) -> Constraints {
        match self {
            Pending::Built => Constraints::default(),
            Pending::RwRegister(p) => p.constraints(),
            Pending::ListAppend(p) => p.constraints(),
        }
    }
}

/// Infers dependencies and non-cycle anomalies for the history's workload.
pub fn infer(history: &History, opts: &InferOptions) -> Inference {
    infer_with(history, opts, false)
}

/// As [`infer`], with the constraints of read-modify-write chains collapsed
/// where the history has them (see [`Inference::chained`]). The check
/// takes them deferred ([`infer_deferred`]).
#[cfg(test)]
pub fn infer_chained(history: &History, opts: &InferOptions) -> Inference {
    infer_with(history, opts, true)
}

/// As [`infer_chained`] (or [`infer`], without `chains`), but an
/// rw-register or list-append history's constraints are left to the
/// [`Pending`], which
/// builds them when a model needs them; [`Inference::open`] says whether
/// there are any. A violation whose weaker models are all decided without
/// them (read committed along the known edges) never builds them: at hot
/// keys they are quadratic in the writes per key. Without `open_wanted`
/// (no model asked for is decided over open orders) an rw-register
/// history's open orders are not looked for at all. With
/// [`Edges::WithoutRw`] (no cycle searched for has an rw edge) `deps` has
/// no rw edge: an rw-register history's, from every reader of a version to
/// the writer of each version after it, are quadratic on hot keys with
/// blind writes. With [`Edges::None`] it has none at all, and an
/// rw-register history's are not built (a third of its inference). With
/// `sources_wanted`, an rw-register history's
/// [`Inference::read_sources`] are given.
pub fn infer_deferred<'h>(
    history: &'h History,
    opts: &InferOptions,
    chains: bool,
    open_wanted: bool,
    edges: Edges,
    sources_wanted: bool,
) -> (Inference, Pending<'h>) {
    match history.workload {
        Workload::ListAppend => {
            let (mut inference, pending) = list_append::infer_deferred(history);
            match edges {
                Edges::None => inference.deps.clear(),
                Edges::WithoutRw => inference.deps.retain(|d| d.rel != Rel::Rw),
                Edges::All => {}
            }
            (inference, Pending::ListAppend(Box::new(pending)))
        }
        Workload::ClosedPredicate => {
            let mut inference = closed_predicate::infer(history);
            if edges == Edges::None {
                inference.deps.clear();
            }
            (inference, Pending::Built)
        }
        _ => {
            let (inference, pending) = rw_register::infer_deferred(
                history,
                opts,
                chains,
                open_wanted,
                edges,
                sources_wanted,
            );
            // Nothing will be built: the inference's state goes now.
            let pending = match open_wanted {
                true => Pending::RwRegister(Box::new(pending)),
                false => Pending::Built,
            };
            (inference, pending)
        }
    }
}

/// The constraints [`infer`] finds, one per pair of transactions: what a
/// model without rw edges is decided on when [`infer_chained`]'s are
/// chained. Infers again rather than keeping them all along, as they are
/// quadratic in the writes per key and rarely needed.
pub fn unchained_constraints(history: &History, opts: &InferOptions) -> Constraints {
    infer(history, opts).constraints
}

fn infer_with(history: &History, opts: &InferOptions, chains: bool) -> Inference {
    match history.workload {
        Workload::ListAppend => list_append::infer(history),
        Workload::ClosedPredicate => closed_predicate::infer(history),
        // A cas-register history and the checkers' (but long-fork's, whose
        // transactions are register reads and writes) have no transactions.
        _ => rw_register::infer(history, opts, chains),
    }
}
