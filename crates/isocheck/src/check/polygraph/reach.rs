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

    /// How many nodes there are.
    pub(super) fn nodes(&self) -> usize {
        self.start.len() - 1
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
    /// More topological ranks, of depth-first orders (none, or
    /// `DEPTH_RANKS`), bounding searches with `rank`: see
    /// [`Reach::with_depth_ranks`]. Per node, its rank in each, together.
    depth_ranks: Vec<[u32; DEPTH_RANKS]>,
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
            depth_ranks: Vec::new(),
            index: None,
        })
    }

    /// With two more topological ranks, the reverse postorders of
    /// depth-first searches (one with roots and arcs in order, one
    /// reversed): a path's inner nodes lie between its ends in every rank,
    /// so a search visits only those. Kahn's order ranks two transactions
    /// by their distance from the graph's sources, nearly by time, and a
    /// search between two unrelated transactions walked every node
    /// reachable from the first up to the second's time (thousands: most of
    /// pruning the pairs of a list-append key's unobserved appends, one
    /// constraint per pair). A depth-first order ranks unrelated nodes by
    /// the search's path instead, often the other way round, and then such
    /// a question is answered at once (GRAIL's several orders: Yildirim,
    /// Chaoji and Zaki, VLDB 2010).
    pub(super) fn with_depth_ranks(mut self) -> Reach {
        let n = self.rank.len();
        let [forward, backward] = [false, true].map(|reversed| depth_rank(&self.csr, n, reversed));
        self.depth_ranks = forward
            .into_iter()
            .zip(backward)
            .map(|(f, b)| [f, b])
            .collect();
        self
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
        // Without depth ranks, every node is within their bounds.
        let depth = |v: u32| self.depth_ranks.get(v as usize).copied();
        let depth_limit = depth(t);
        let within = |v: u32| match (depth(v), depth_limit) {
            (Some(d), Some(l)) => d[0] < l[0] && d[1] < l[1],
            _ => true,
        };
        if !within(s) {
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
                if search.seen[w as usize] != search.stamp
                    && self.rank[w as usize] < limit
                    && within(w)
                {
                    search.seen[w as usize] = search.stamp;
                    search.stack.push(w);
                }
            }
        }
        false
    }
}

/// How many depth-first ranks [`Reach::with_depth_ranks`] adds.
const DEPTH_RANKS: usize = 2;

/// A topological rank of the acyclic graph `csr` of `n` nodes: the reverse
/// postorder of an iterative depth-first search, roots in node order and
/// each node's arcs in their order, or both `reversed`.
fn depth_rank(csr: &Csr<u32>, n: usize, reversed: bool) -> Vec<u32> {
    const UNSEEN: u32 = u32::MAX;
    let mut rank = vec![UNSEEN; n];
    // Counts down once per node, each finishing once: never below 0.
    let mut left = n as u32;
    // Each frame: a node and how many of its arcs were followed.
    let mut stack: Vec<(u32, u32)> = Vec::new();
    let roots = (0..n as u32).map(|v| if reversed { n as u32 - 1 - v } else { v });
    for root in roots {
        if rank[root as usize] != UNSEEN {
            continue;
        }
        // `UNSEEN - 1` marks a node on the stack.
        rank[root as usize] = UNSEEN - 1;
        stack.push((root, 0));
        while let Some((v, i)) = stack.last_mut() {
            let out = csr.out(*v);
            let next = match reversed {
                false => out.get(*i as usize),
                true => out.iter().rev().nth(*i as usize),
            };
            if let Some(&w) = next {
                *i += 1;
                if rank[w as usize] == UNSEEN {
                    rank[w as usize] = UNSEEN - 1;
                    stack.push((w, 0));
                }
            } else {
                left -= 1;
                rank[*v as usize] = left;
                stack.pop();
            }
        }
    }
    rank
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Whether `s` reaches `t` (or is it), by the transitive closure.
    fn closure(n: usize, arcs: &[(u32, u32)], s: u32, t: u32) -> bool {
        let mut seen = vec![false; n];
        let mut stack = vec![s];
        seen[s as usize] = true;
        while let Some(v) = stack.pop() {
            for &(_, w) in arcs.iter().filter(|a| a.0 == v) {
                if !seen[w as usize] {
                    seen[w as usize] = true;
                    stack.push(w);
                }
            }
        }
        seen[t as usize]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]

        /// With the depth-first ranks or without, every answer is the
        /// transitive closure's, and the depth-first ranks are
        /// topological (acyclic graphs: arcs climb a random permutation).
        #[test]
        fn depth_ranks_keep_every_answer(
            perm in Just((0..30u32).collect::<Vec<u32>>()).prop_shuffle(),
            n in 1usize..30,
            raw in proptest::collection::vec((0..30u32, 0..30u32), 0..90),
        ) {
            let perm: Vec<u32> = perm.into_iter().filter(|&v| (v as usize) < n).collect();
            let mut at = vec![0; n];
            for (i, &v) in perm.iter().enumerate() {
                at[v as usize] = i;
            }
            let arcs: Vec<(u32, u32)> = raw
                .into_iter()
                .filter(|&(a, b)| (a as usize) < n && (b as usize) < n && a != b)
                .map(|(a, b)| if at[a as usize] < at[b as usize] { (a, b) } else { (b, a) })
                .collect();
            let plain = Reach::new(n, arcs.iter().copied()).expect("acyclic by construction");
            let ranked = Reach::new(n, arcs.iter().copied())
                .expect("acyclic by construction")
                .with_depth_ranks();
            for &(a, b) in &arcs {
                for d in 0..DEPTH_RANKS {
                    let [ra, rb] = [a, b].map(|v| ranked.depth_ranks[v as usize][d]);
                    prop_assert!(ra < rb, "arc {} -> {} descends depth rank {}", a, b, d);
                }
            }
            let mut search = Search::default();
            for s in 0..n as u32 {
                for t in 0..n as u32 {
                    let truth = closure(n, &arcs, s, t);
                    prop_assert_eq!(plain.reaches(&mut search, s, t), truth, "{} -> {}", s, t);
                    prop_assert_eq!(ranked.reaches(&mut search, s, t), truth, "{} -> {}", s, t);
                }
            }
        }
    }
}
