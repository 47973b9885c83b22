//! Reachability in the known product graph: compressed adjacency, a
//! topological rank, and the chain-cover index where it pays, with a
//! rank-bounded search for the rest.

use super::chains::ChainIndex;
use super::Problem;

/// Compressed adjacency: per node, its arcs' heads (`u32`), or heads with
/// the side id each arc comes from (`(u32, u32)`) for chosen arcs.
pub(super) struct Csr<T> {
    start: Vec<u32>,
    pub(super) arcs: Vec<T>,
}

impl<T: Copy + Default> Csr<T> {
    /// From `(tail, arc)` pairs, each node's arcs in the order they come.
    pub(super) fn new(n: usize, arcs: impl Iterator<Item = (u32, T)> + Clone) -> Csr<T> {
        let (start, arcs) = crate::graph::csr(n, arcs);
        Csr { start, arcs }
    }

    pub(super) fn out(&self, v: u32) -> &[T] {
        &self.arcs[self.start[v as usize] as usize..self.start[v as usize + 1] as usize]
    }
}

/// Chosen arcs `(tail, head, side id)` as a [`Csr`] of `(head, side id)`.
pub(super) fn chosen_csr(
    n: usize,
    arcs: impl Iterator<Item = (u32, u32, u32)> + Clone,
) -> Csr<(u32, u32)> {
    Csr::new(n, arcs.map(|(a, b, id)| (a, (b, id))))
}

/// Reachability in an acyclic graph: a chain-cover index where one is
/// built, else (and for what it leaves open) a depth-first search that
/// topological ranks bound to the vertices that can lie between the two
/// ends.
pub(super) struct Reach {
    pub(super) csr: Csr<u32>,
    pub(super) rank: Vec<u32>,
    index: Option<ChainIndex>,
}

/// A search's scratch space: one per thread asking the same [`Reach`].
#[derive(Default)]
pub(super) struct Search {
    seen: Vec<u32>,
    stamp: u32,
    stack: Vec<u32>,
}

impl Reach {
    /// `None` when the graph has a cycle.
    pub(super) fn new(n: usize, arcs: impl Iterator<Item = (u32, u32)> + Clone) -> Option<Reach> {
        let csr = Csr::new(n, arcs);
        let order = crate::graph::topological(n, |v| csr.out(v).iter().copied())?;
        let mut rank = vec![0u32; n];
        for (r, &v) in order.iter().enumerate() {
            rank[v as usize] = r as u32;
        }
        Some(Reach {
            csr,
            rank,
            index: None,
        })
    }

    /// With the chain-cover index of `p`'s product graph: chains along
    /// `p.chains` and greedy ones over the "after A" nodes.
    pub(super) fn indexed(mut self, p: &Problem) -> Reach {
        let mut order = vec![0u32; self.rank.len()];
        for (v, &r) in self.rank.iter().enumerate() {
            order[r as usize] = v as u32;
        }
        let links = p.chains.iter().map(|&(a, b)| (p.after_a(a), p.after_a(b)));
        let last = p.states() - 1;
        let chainable = |v: u32| v % p.states() == last;
        // Half the "after A" nodes at least on chains, as the session order
        // gives (without it, on Jepsen-shaped histories, 256 greedy chains
        // held 2% of them, and the index saved nothing).
        let half = self.rank.len() / (2 * p.states() as usize);
        self.index = ChainIndex::new(&self.csr, &order, links, chainable, half);
        self
    }

    /// Whether a non-empty path leads from `s` to `t`, or `s == t`,
    /// searching in `search` (several threads may ask at once, each with
    /// its own).
    pub(super) fn reaches(&self, search: &mut Search, s: u32, t: u32) -> bool {
        if s == t {
            return true;
        }
        let limit = self.rank[t as usize];
        if self.rank[s as usize] > limit {
            return false;
        }
        if let Some(known) = self.index.as_ref().and_then(|i| i.reaches(s, t)) {
            return known;
        }
        if search.seen.len() != self.rank.len() {
            search.seen = vec![0; self.rank.len()];
            search.stamp = 0;
        }
        search.stamp += 1;
        search.stack.clear();
        search.stack.push(s);
        search.seen[s as usize] = search.stamp;
        while let Some(v) = search.stack.pop() {
            for &w in self.csr.out(v) {
                if w == t {
                    return true;
                }
                if search.seen[w as usize] != search.stamp && self.rank[w as usize] < limit {
                    search.seen[w as usize] = search.stamp;
                    search.stack.push(w);
                }
            }
        }
        false
    }
}
