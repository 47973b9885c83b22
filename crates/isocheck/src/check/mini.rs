//! The mini-transaction fast path (SPEC §2.4): when every transaction is a
//! mini-transaction, the dependency graph is known without a solver, and an
//! acyclic graph (with the session or real-time order the models need)
//! settles every model in linear time. Anything else — a cycle, a
//! non-cycle anomaly, a lost update — goes to the general path, which names
//! and explains it; so the two paths cannot disagree.

use super::taxonomy::{Antidependency, CycleAnomaly};
use crate::graph::{self, order, Rel};
use crate::history::{History, TxnId};
use crate::infer::{self, mini};
use std::collections::BTreeSet;

/// How a check was decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    /// Inference, graph and cycle search (and the solver where write orders
    /// are unknown).
    General,
    /// Every transaction is a mini-transaction and the fast path found the
    /// graph of this many edges acyclic.
    Mini { edges: usize },
    /// Every transaction is a mini-transaction, but the fast path found
    /// something to explain and handed over to the general path.
    MiniHandedOver,
    /// The database's timestamps order this many committed transactions
    /// into an execution every read agrees with (`stamped`).
    Timestamps { txns: usize },
}

/// The fast path's verdict: `Path::Mini` if the history is valid under every
/// model `prohibited` stands for, `Path::MiniHandedOver` if the general path
/// must look, and `Path::General` if the history is not made of
/// mini-transactions.
pub fn decide(
    h: &History,
    infer: &infer::InferOptions,
    order: Option<Rel>,
    prohibited: &BTreeSet<&str>,
) -> Path {
    // Version-order options and a reported commit order add constraints
    // the chain does not see.
    let knowledge = *infer != infer::InferOptions::default() || !h.commit_order.is_empty();
    // Closed-predicate's predicate edges are the general path's.
    let predicates = h.workload == crate::history::Workload::ClosedPredicate;
    if h.txns.is_empty() || mini::shape(h).is_err() || knowledge || predicates {
        return Path::General;
    }
    let Some(mut edges) = mini::edges(h) else {
        return Path::MiniHandedOver;
    };
    // Elle's empty-transaction-graph is the general path's to report.
    if edges.is_empty() && super::elle_empty_graph(h) {
        return Path::MiniHandedOver;
    }
    let order_edges = match order {
        Some(Rel::Realtime) => order::realtime_edges(h),
        Some(Rel::Process) => order::process_edges(h),
        _ => Vec::new(),
    };
    edges.extend(order_edges.into_iter().map(|(a, b)| (a, b, false)));
    let n = h.txns.len();
    let plain: Vec<(TxnId, TxnId)> = edges.iter().map(|&(a, b, _)| (a, b)).collect();
    // Without a prohibited G2 cycle, only cycles in which an rw edge follows
    // another rw edge are allowed (snapshot isolation's `(ww ∪ wr) ; rw?`):
    // the product graph with a state for "just took an rw edge" has exactly
    // the other cycles.
    let g2 = prohibited
        .iter()
        .any(|a| CycleAnomaly::parse(a).is_ok_and(|c| c.spec().rw == Antidependency::Adjacent));
    let holds = acyclic(n, &plain) || (!g2 && acyclic(2 * n, &product(n, &edges)));
    match holds {
        true => Path::Mini { edges: edges.len() },
        false => Path::MiniHandedOver,
    }
}

/// Vertex `v` is "arrived by a non-rw edge", `v + n` "arrived by an rw
/// edge"; an rw edge may only leave the former.
fn product(n: usize, edges: &[mini::Edge]) -> Vec<(TxnId, TxnId)> {
    let n = n as TxnId;
    let mut out = Vec::with_capacity(edges.len() * 2);
    for &(a, b, rw) in edges {
        if rw {
            out.push((a, b + n));
        } else {
            out.push((a, b));
            out.push((a + n, b));
        }
    }
    out
}

fn acyclic(n: usize, edges: &[(TxnId, TxnId)]) -> bool {
    let (start, succ) = graph::csr(n, edges.iter().copied());
    let out = |v: u32| {
        succ[start[v as usize] as usize..start[v as usize + 1] as usize]
            .iter()
            .copied()
    };
    graph::topological(n, out).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adjacent_rw_edges_are_allowed_in_the_product_only() {
        // 0 -rw-> 1 -rw-> 0: write skew, allowed by snapshot isolation.
        let skew = [(0, 1, true), (1, 0, true)];
        assert!(acyclic(4, &product(2, &skew)));
        // 0 -ww-> 1 -rw-> 0: G-single, forbidden.
        let single = [(0, 1, false), (1, 0, true)];
        assert!(!acyclic(4, &product(2, &single)));
    }

    #[test]
    fn kahn() {
        assert!(acyclic(3, &[(0, 1), (1, 2), (0, 2)]));
        assert!(!acyclic(3, &[(0, 1), (1, 2), (2, 0)]));
        assert!(acyclic(2, &[]));
        assert!(!acyclic(1, &[(0, 0)]));
    }
}
