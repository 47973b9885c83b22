//! Reachability in constant time for pruning: a chain-cover index of an
//! acyclic graph (Jagadish; the vector clocks of Plume and AWDIT).
//!
//! A chain is a sequence of nodes each of which reaches the next. For every
//! node and every chain the index stores the earliest position on that chain
//! the node reaches (itself included), so that `s` reaches a chained `t`
//! exactly when that entry for `t`'s chain is at most `t`'s position. Built
//! in reverse topological order, each node's row the minimum of its
//! successors' rows: O((n + m) · k) for k chains.
//!
//! Chains come first from a hint (the session order, whose consecutive
//! transactions the known graph joins by an edge when the model or the
//! attempt has it), then from a greedy path cover of the rest; the longest
//! are kept within a memory bound. Nodes left
//! unchained (the snapshot-isolation product's "after rw" states, which only
//! rw arcs enter) are answered through their in-neighbours; a query that
//! this cannot answer is left to the caller's search.

use super::reach::Csr;
use super::NONE;

/// At most this many index entries (four bytes each): past it the caller
/// searches instead.
const MAX_CELLS: usize = 1 << 26;

/// At most this many chains: more would make every build round cost more
/// than the searches it saves.
const MAX_CHAINS: usize = 256;

/// Earliest reachable position per node and chain.
pub(super) struct ChainIndex {
    k: usize,
    /// Per node, its chain, or `NONE`.
    chain: Vec<u32>,
    /// Per chained node, its position on its chain.
    pos: Vec<u32>,
    /// `first[v * k + c]`: the earliest position on chain `c` that `v`
    /// reaches, `Cell::NONE` if none.
    first: Table,
    /// Per unchained node, the tails of the arcs into it.
    into_unchained: Csr<u32>,
}

impl ChainIndex {
    /// The index of the acyclic graph `csr` whose topological order is
    /// `order`. `links` are arcs suggested as consecutive chain members
    /// (ignored unless the graph has them); `chainable` says which nodes
    /// the greedy cover may chain. `None` when no chain has two nodes, or
    /// fewer than `min_chained` nodes are on chains (a graph too wide for
    /// a chain cover: its queries would mostly fall back to a search, and
    /// the index cost its build for little).
    pub(super) fn new(
        csr: &Csr<u32>,
        order: &[u32],
        links: impl Iterator<Item = (u32, u32)>,
        chainable: impl Fn(u32) -> bool,
        min_chained: usize,
    ) -> Option<ChainIndex> {
        let n = order.len();
        let next = valid_links(csr, n, links);
        let (chain, pos, k) = cover(csr, order, &next, chainable)?;
        if chain.iter().filter(|&&c| c != NONE).count() < min_chained {
            return None;
        }
        // Two bytes a cell when every position fits: 1M transactions on
        // 20 processes make chains of 50k, and half the table is half the
        // cache misses of building and asking it.
        let longest = pos.iter().max().map_or(0, |&p| p + 1);
        let first = match longest < u32::from(u16::MAX) {
            true => Table::Narrow(rows(csr, order, &chain, &pos, k)),
            false => Table::Wide(rows(csr, order, &chain, &pos, k)),
        };
        let into_unchained = Csr::new(
            n,
            (0..n as u32)
                .flat_map(|v| csr.out(v).iter().map(move |&w| (w, v)))
                .filter(|&(w, _)| chain[w as usize] == NONE),
        );
        Some(ChainIndex {
            k,
            chain,
            pos,
            first,
            into_unchained,
        })
    }

    /// Whether `s` reaches chained `t` (`s == t` included).
    fn chained(&self, s: u32, t: u32) -> bool {
        let c = self.chain[t as usize] as usize;
        let i = s as usize * self.k + c;
        let p = self.pos[t as usize];
        match &self.first {
            Table::Narrow(first) => u32::from(first[i]) <= p,
            Table::Wide(first) => first[i] <= p,
        }
    }

    /// Whether a path leads from `s` to `t` (or `s == t`); `None` when `t`
    /// is unchained and so is one of its in-neighbours.
    pub(super) fn reaches(&self, s: u32, t: u32) -> Option<bool> {
        if s == t {
            return Some(true);
        }
        if self.chain[t as usize] != NONE {
            return Some(self.chained(s, t));
        }
        let mut undecided = false;
        for &u in self.into_unchained.out(t) {
            if u == s || (self.chain[u as usize] != NONE && self.chained(s, u)) {
                return Some(true);
            }
            undecided |= self.chain[u as usize] == NONE;
        }
        (!undecided).then_some(false)
    }

    /// The number of chains.
    #[cfg(test)]
    pub(super) fn chains(&self) -> usize {
        self.k
    }
}

/// Per node, the successor its hinted chain continues with (`NONE`): the
/// links the graph has as arcs, each node taking at most one successor and
/// one predecessor.
fn valid_links(csr: &Csr<u32>, n: usize, links: impl Iterator<Item = (u32, u32)>) -> Vec<u32> {
    let mut next = vec![NONE; n];
    let mut has_prev = vec![false; n];
    for (a, b) in links {
        let (ai, bi) = (a as usize, b as usize);
        if ai < n && bi < n && next[ai] == NONE && !has_prev[bi] && csr.out(a).contains(&b) {
            next[ai] = b;
            has_prev[bi] = true;
        }
    }
    next
}

/// Chains: the hinted ones (from each node no link enters), then a greedy
/// path cover of the chainable nodes left, each chain extended by the
/// earliest free chainable successor in topological order; of those with
/// two nodes or more, the longest within the bounds. Returns each node's
/// chain and position and the number of chains; `None` when there is none.
fn cover(
    csr: &Csr<u32>,
    order: &[u32],
    next: &[u32],
    chainable: impl Fn(u32) -> bool,
) -> Option<(Vec<u32>, Vec<u32>, usize)> {
    let n = order.len();
    let mut chains = candidates(csr, order, next, chainable);
    // Longest first (hinted ones first among equals): they answer the most
    // queries.
    chains.sort_by_key(|c| std::cmp::Reverse(c.len()));
    chains.truncate(MAX_CHAINS.min(MAX_CELLS / n.max(1)));
    let mut chain = vec![NONE; n];
    let mut pos = vec![0u32; n];
    for (c, members) in chains.iter().enumerate() {
        for (i, &m) in members.iter().enumerate() {
            chain[m as usize] = c as u32;
            pos[m as usize] = i as u32;
        }
    }
    (!chains.is_empty()).then_some((chain, pos, chains.len()))
}

/// Every chain of two nodes or more the hints and then the greedy cover
/// make, disjoint, each started in topological order.
fn candidates(
    csr: &Csr<u32>,
    order: &[u32],
    next: &[u32],
    chainable: impl Fn(u32) -> bool,
) -> Vec<Vec<u32>> {
    let n = order.len();
    let mut rank = vec![0u32; n];
    for (r, &v) in order.iter().enumerate() {
        rank[v as usize] = r as u32;
    }
    let mut entered = vec![false; n];
    for &b in next.iter().filter(|&&b| b != NONE) {
        entered[b as usize] = true;
    }
    let mut claimed = vec![false; n];
    let mut chains = Vec::new();
    for hinted in [true, false] {
        for &v in order {
            let start = if hinted {
                !entered[v as usize] && next[v as usize] != NONE
            } else {
                chainable(v)
            };
            if claimed[v as usize] || !start {
                continue;
            }
            let mut members = vec![v];
            let mut x = v;
            loop {
                let step = if hinted {
                    next[x as usize]
                } else {
                    earliest_free(csr, x, &rank, &claimed, &chainable)
                };
                if step == NONE || claimed[step as usize] {
                    break;
                }
                members.push(step);
                x = step;
            }
            if members.len() >= 2 {
                members.iter().for_each(|&m| claimed[m as usize] = true);
                chains.push(members);
            }
        }
    }
    chains
}

/// The chainable successor of `x` earliest in topological order that is on
/// no chain, or `NONE`. (Those on the chain being built are not marked yet,
/// but none follows `x`: they all reach it, and the graph is acyclic.)
fn earliest_free(
    csr: &Csr<u32>,
    x: u32,
    rank: &[u32],
    claimed: &[bool],
    chainable: &impl Fn(u32) -> bool,
) -> u32 {
    csr.out(x)
        .iter()
        .copied()
        .filter(|&w| !claimed[w as usize] && chainable(w))
        .min_by_key(|&w| rank[w as usize])
        .unwrap_or(NONE)
}

/// The index's cells: positions on a chain, `NONE` past every one.
enum Table {
    Narrow(Vec<u16>),
    Wide(Vec<u32>),
}

/// A cell type of [`Table`]: positions below `NONE` convert exactly.
trait Cell: Copy + Ord {
    const NONE: Self;
    /// Position `p` (less than `NONE`).
    fn at(p: u32) -> Self;
}

impl Cell for u16 {
    const NONE: u16 = u16::MAX;
    fn at(p: u32) -> u16 {
        p as u16
    }
}

impl Cell for u32 {
    const NONE: u32 = NONE;
    fn at(p: u32) -> u32 {
        p
    }
}

/// The index rows, filled in reverse topological order: a node's row is the
/// minimum of its successors' rows and its own position. A successor that
/// an already merged one reaches adds nothing and is skipped (merging the
/// chain successor first skips most arcs along the chain).
fn rows<T: Cell>(csr: &Csr<u32>, order: &[u32], chain: &[u32], pos: &[u32], k: usize) -> Vec<T> {
    let mut first = vec![T::NONE; order.len() * k];
    // The row is gathered apart, so that the inner loop reads one slice
    // and writes another (and vectorizes).
    let mut row = vec![T::NONE; k];
    let merge = |row: &mut [T], first: &[T], w: u32| {
        let from = w as usize * k;
        for (r, &f) in row.iter_mut().zip(&first[from..from + k]) {
            *r = (*r).min(f);
        }
    };
    for &v in order.iter().rev() {
        row.fill(T::NONE);
        let own = chain[v as usize];
        let chain_next = |w: &&u32| {
            own != NONE && chain[**w as usize] == own && pos[**w as usize] == pos[v as usize] + 1
        };
        if let Some(&w) = csr.out(v).iter().find(chain_next) {
            merge(&mut row, &first, w);
        }
        for &w in csr.out(v) {
            let c = chain[w as usize];
            if c == NONE || row[c as usize] > T::at(pos[w as usize]) {
                merge(&mut row, &first, w);
            }
        }
        if own != NONE {
            row[own as usize] = T::at(pos[v as usize]);
        }
        first[v as usize * k..(v as usize + 1) * k].copy_from_slice(&row);
    }
    first
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Whether `t` is `s` or a plain breadth-first search reaches it.
    fn bfs(csr: &Csr<u32>, n: usize, s: u32, t: u32) -> bool {
        let mut seen = vec![false; n];
        let mut queue = std::collections::VecDeque::from([s]);
        seen[s as usize] = true;
        while let Some(v) = queue.pop_front() {
            if v == t {
                return true;
            }
            for &w in csr.out(v) {
                if !seen[w as usize] {
                    seen[w as usize] = true;
                    queue.push_back(w);
                }
            }
        }
        false
    }

    /// A graph for the index: arcs, hint links, chainable nodes.
    #[derive(Debug, Clone)]
    struct Dag {
        n: usize,
        arcs: Vec<(u32, u32)>,
        links: Vec<(u32, u32)>,
        chainable: Vec<bool>,
    }

    /// A random DAG on `0..n` (arcs climb a random permutation), random
    /// hint links (arcs and non-arcs alike) and a random chainable set.
    fn arb_dag() -> impl Strategy<Value = Dag> {
        (1usize..40).prop_flat_map(|n| {
            let pair = (0..n as u32, 0..n as u32);
            (
                Just((0..n as u32).collect::<Vec<u32>>()).prop_shuffle(),
                proptest::collection::vec(pair.clone(), 0..3 * n),
                proptest::collection::vec(pair, 0..n),
                proptest::collection::vec(any::<bool>(), n),
            )
                .prop_map(move |(perm, raw, links, chainable)| {
                    // Orient each pair along the permutation: acyclic.
                    let climb = |(a, b): (u32, u32)| {
                        if perm[a as usize] < perm[b as usize] {
                            (a, b)
                        } else {
                            (b, a)
                        }
                    };
                    let arcs = raw
                        .into_iter()
                        .filter(|&(a, b)| a != b)
                        .map(climb)
                        .collect();
                    Dag {
                        n,
                        arcs,
                        links,
                        chainable,
                    }
                })
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Every answer the index gives is a plain search's, it answers
        /// every query to a chained node, and hinted links that are arcs
        /// become chains.
        #[test]
        fn index_answers_as_a_plain_search(dag in arb_dag()) {
            let Dag { n, arcs, links, chainable } = dag;
            let csr = Csr::new(n, arcs.iter().copied());
            let order = crate::graph::topological(n, |v| csr.out(v).iter().copied())
                .expect("acyclic by construction");
            let index = ChainIndex::new(&csr, &order, links.iter().copied(), |v| chainable[v as usize], 0);
            let Some(index) = index else {
                // No chain of two nodes: no hinted link is an arc and the
                // greedy cover found no chainable arc.
                prop_assert!(!links.iter().any(|&(a, b)| arcs.contains(&(a, b))));
                prop_assert!(!arcs.iter().any(|&(a, b)| chainable[a as usize] && chainable[b as usize]));
                return Ok(());
            };
            prop_assert!(index.chains() > 0);
            prop_assert!(matches!(index.first, Table::Narrow(_)));
            // The same answers from four-byte cells, as long chains get.
            let wide = Table::Wide(rows(&csr, &order, &index.chain, &index.pos, index.k));
            let mut index = index;
            for table in [None, Some(wide)] {
                if let Some(table) = table {
                    index.first = table;
                }
                for s in 0..n as u32 {
                    for t in 0..n as u32 {
                        let answer = index.reaches(s, t);
                        if index.chain[t as usize] != NONE {
                            prop_assert!(answer.is_some());
                        }
                        if let Some(answer) = answer {
                            prop_assert_eq!(answer, bfs(&csr, n, s, t), "{} -> {}", s, t);
                        }
                    }
                }
            }
        }
    }
}
