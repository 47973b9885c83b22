//! What inference cannot decide: pairs of transactions whose writes to some
//! keys were installed in an unknown order (PolySI's generalized constraints,
//! SPEC §2.3), and the edges that hold in every model forbidding G1c.

use super::util::{csr, FxMap};
use super::Dep;
use crate::history::TxnId;

/// Two transactions that both wrote some keys in an unknown order. Either
/// `a`'s versions precede `b`'s on every such key (side 0: ww `a → b` and
/// rw from the readers of `a`'s versions to `b`), or the reverse (side 1).
/// Mixing orders across keys would be a ww cycle (G0), which every model
/// forbids, so one choice per pair is exact.
///
/// Both sides live in one exact-size allocation: a history of a million
/// transactions has millions of constraints, and two growable vectors each
/// cost about twice the dependencies they hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Constraint {
    pub a: TxnId,
    pub b: TxnId,
    /// Side 0 then side 1.
    deps: Box<[Dep]>,
    /// Where side 1 starts in `deps`. A `u32`: 2^32 dependencies (128 GiB)
    /// fail to allocate long before.
    mid: u32,
    /// Every key's pair here is of two versions nobody read (and, chained,
    /// each its own chain): pure ww. Where a model is the plain acyclicity
    /// of its edges, such constraints can be left out: a resolution of the
    /// others orders these writes along a topological order of its graph,
    /// which adds only forward edges (and so it is for any subset).
    pub unread: bool,
}

impl Constraint {
    /// The constraint "`a`'s writes precede `b`'s (`sides[0]`) or follow
    /// them (`sides[1]`)".
    pub fn new(a: TxnId, b: TxnId, sides: [&[Dep]; 2], unread: bool) -> Constraint {
        let deps: Box<[Dep]> = sides[0].iter().chain(sides[1]).copied().collect();
        Constraint {
            a,
            b,
            deps,
            mid: sides[0].len() as u32,
            unread,
        }
    }

    /// The dependencies of one side (0: `a` first, 1: `b` first).
    pub fn side(&self, s: usize) -> &[Dep] {
        let mid = self.mid as usize;
        if s == 0 {
            &self.deps[..mid]
        } else {
            &self.deps[mid..]
        }
    }

    /// Both sides.
    pub fn sides(&self) -> [&[Dep]; 2] {
        [self.side(0), self.side(1)]
    }

    /// Adds more of both sides (another key of the same pair).
    fn extend(&mut self, more: [&[Dep]; 2], unread: bool) {
        let [first, second] = self.sides();
        let joined = [
            &[first, more[0]].concat()[..],
            &[second, more[1]].concat()[..],
        ];
        *self = Constraint::new(self.a, self.b, joined, self.unread && unread);
    }
}

/// Collects one constraint per transaction pair.
#[derive(Default)]
pub(super) struct Coalescer {
    index: FxMap<u64, u32>,
    out: Vec<Constraint>,
}

impl Coalescer {
    /// Adds the edges of "`t1`'s write precedes `t2`'s" (`sides[0]`) and of
    /// the reverse (`sides[1]`) to the pair's constraint; `unread` when they
    /// are of two versions nobody read ([`Constraint::unread`]).
    pub fn add(&mut self, t1: TxnId, t2: TxnId, sides: [&[Dep]; 2], unread: bool) {
        let [first, second] = sides;
        let (a, b, fwd, back) = if t1 < t2 {
            (t1, t2, first, second)
        } else {
            (t2, t1, second, first)
        };
        let key = (a as u64) << 32 | b as u64;
        let next = self.out.len() as u32;
        let i = *self.index.entry(key).or_insert(next) as usize;
        if i == self.out.len() {
            self.out.push(Constraint::new(a, b, [fwd, back], unread));
        } else {
            self.out[i].extend([fwd, back], unread);
        }
    }

    /// The constraints, ordered by transaction pair.
    pub fn finish(mut self) -> Vec<Constraint> {
        drop(self.index);
        self.out.sort_unstable_by_key(|c| (c.a, c.b));
        self.out.shrink_to_fit();
        self.out
    }
}

/// Which pairs of runs of `n` versions of one key a partial order leaves
/// unordered. `edges` are the order's edges between local version ids
/// `0..n`; `runs` the (first, last) versions of the runs we need pairs of
/// (a single version is a run from itself to itself): run `i` precedes `j`
/// when `j`'s first version is after `i`'s last. Returns pairs of indices
/// into `runs`, or `None` when the edges have a cycle.
pub(super) fn unordered_pairs(
    n: usize,
    edges: &[(u32, u32)],
    runs: &[(u32, u32)],
) -> Option<Vec<(u32, u32)>> {
    let mut pairs = Vec::new();
    if edges.is_empty() {
        // Every pair: quadratic, so known in advance to fit or not.
        let w = runs.len() as u64;
        let bytes = w.saturating_mul(w.saturating_sub(1)) / 2 * 8;
        crate::limits::will_allocate(bytes);
        let w = runs.len() as u32;
        for i in 0..w {
            pairs.extend((i + 1..w).map(|j| (i, j)));
        }
        return Some(pairs);
    }
    let (start, succ) = csr(n, edges);
    let out = |v: u32| &succ[start[v as usize] as usize..start[v as usize + 1] as usize];
    let topo = crate::graph::topological(n, |v| out(v).iter().copied())?;
    let words = runs.len().div_ceil(64);
    let mut bit_of = vec![u32::MAX; n];
    for (i, &(first, _)) in runs.iter().enumerate() {
        bit_of[first as usize] = i as u32;
    }
    // reach[v]: the runs whose first version is strictly after v.
    crate::limits::will_allocate((n * words * 8) as u64);
    let mut reach = vec![0u64; n * words];
    for &v in topo.iter().rev() {
        for &s in out(v) {
            let (vs, ss) = (v as usize * words, s as usize * words);
            for k in 0..words {
                reach[vs + k] |= reach[ss + k];
            }
            if bit_of[s as usize] != u32::MAX {
                let b = bit_of[s as usize] as usize;
                reach[vs + b / 64] |= 1 << (b % 64);
            }
        }
    }
    let has = |v: u32, b: usize| reach[v as usize * words + b / 64] & (1 << (b % 64)) != 0;
    for (i, &(_, last_x)) in runs.iter().enumerate() {
        for (j, &(_, last_y)) in runs.iter().enumerate().skip(i + 1) {
            if !has(last_x, j) && !has(last_y, i) {
                crate::limits::tick();
                pairs.push((i as u32, j as u32));
            }
        }
    }
    Some(pairs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unordered_pairs_follow_the_transitive_order() {
        let single = |vs: &[u32]| vs.iter().map(|&v| (v, v)).collect::<Vec<_>>();
        // 0 < 1 < 2, 3 alone.
        let pairs = unordered_pairs(4, &[(0, 1), (1, 2)], &single(&[0, 1, 2, 3])).unwrap();
        assert_eq!(pairs, vec![(0, 3), (1, 3), (2, 3)]);
        assert_eq!(
            unordered_pairs(3, &[], &single(&[0, 1, 2])).unwrap(),
            vec![(0, 1), (0, 2), (1, 2)]
        );
        assert!(unordered_pairs(2, &[(0, 1), (1, 0)], &single(&[0, 1])).is_none());
    }

    #[test]
    fn runs_are_ordered_by_their_ends() {
        // Runs 0..1 and 2..3 with 0 < 3 only: unordered (2..3 may still go
        // first as a whole, or wholly after 1). With 1 < 2 they are ordered.
        let runs = [(0, 1), (2, 3)];
        assert_eq!(
            unordered_pairs(4, &[(0, 1), (2, 3), (0, 3)], &runs).unwrap(),
            vec![(0, 1)]
        );
        assert!(unordered_pairs(4, &[(0, 1), (2, 3), (1, 2)], &runs)
            .unwrap()
            .is_empty());
    }
}
