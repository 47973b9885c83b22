//! What inference cannot decide: pairs of transactions whose writes to some
//! keys were installed in an unknown order (PolySI's generalized constraints,
//! SPEC §2.3), and the edges that hold in every model forbidding G1c; the
//! store they are kept in.

use super::util::csr;
use super::Dep;
use crate::history::TxnId;

/// Two transactions that both wrote some keys in an unknown order. Either
/// `a`'s versions precede `b`'s on every such key (side 0: ww `a → b` and
/// rw from the readers of `a`'s versions to `b`), or the reverse (side 1).
/// Mixing orders across keys would be a ww cycle (G0), which every model
/// forbids, so one choice per pair is exact.
///
/// One constraint on its own, as a forced anomaly's pairs keep it; a
/// history's constraints live in one [`Constraints`] store, read through
/// [`Pair`]s.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Constraint {
    pub a: TxnId,
    pub b: TxnId,
    /// Side 0 then side 1.
    deps: Box<[Dep]>,
    /// Where side 1 starts in `deps`.
    mid: u32,
    /// See [`Pair::unread`].
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
            mid: offset(sides[0].len()),
            unread,
        }
    }

    /// The same constraint, borrowed.
    pub fn pair(&self) -> Pair<'_> {
        Pair {
            a: self.a,
            b: self.b,
            unread: self.unread,
            deps: &self.deps,
            mid: self.mid as usize,
        }
    }

    /// The dependencies of one side (0: `a` first, 1: `b` first).
    pub fn side(&self, s: usize) -> &[Dep] {
        self.pair().side(s)
    }

    /// Both sides.
    pub fn sides(&self) -> [&[Dep]; 2] {
        self.pair().sides()
    }
}

/// One constraint of a [`Constraints`] store (or of a [`Constraint`]),
/// borrowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pair<'c> {
    pub a: TxnId,
    pub b: TxnId,
    /// Every key's pair here is of two versions nobody read (and, chained,
    /// each its own chain): pure ww. Where a model is the plain acyclicity
    /// of its edges, such constraints can be left out: a resolution of the
    /// others orders these writes along a topological order of its graph,
    /// which adds only forward edges (and so it is for any subset).
    pub unread: bool,
    /// Side 0 then side 1.
    deps: &'c [Dep],
    /// Where side 1 starts in `deps`.
    mid: usize,
}

impl<'c> Pair<'c> {
    /// The dependencies of one side (0: `a` first, 1: `b` first).
    pub fn side(&self, s: usize) -> &'c [Dep] {
        match s {
            0 => &self.deps[..self.mid],
            _ => &self.deps[self.mid..],
        }
    }

    /// Both sides.
    pub fn sides(&self) -> [&'c [Dep]; 2] {
        [self.side(0), self.side(1)]
    }

    /// The constraint on its own.
    pub fn to_constraint(&self) -> Constraint {
        Constraint::new(self.a, self.b, self.sides(), self.unread)
    }
}

/// Every constraint of a history, ordered by transaction pair, with all
/// their dependencies in one array. A history of a million transactions
/// has millions of constraints: an allocation each (and the allocator's
/// work to free them) cost more than the dependencies themselves.
#[derive(Clone, Debug, Default)]
pub struct Constraints {
    items: Vec<Item>,
    deps: Vec<Dep>,
}

/// Equal when they hold the same constraints in the same order, wherever
/// their dependencies sit in the array.
impl PartialEq for Constraints {
    fn eq(&self, other: &Constraints) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for Constraints {}

/// Where one constraint's sides are in a store's `deps`: side 0 is
/// `start..mid`, side 1 `mid..end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Item {
    a: TxnId,
    b: TxnId,
    start: u32,
    mid: u32,
    end: u32,
    unread: bool,
}

/// An index into a store's dependencies, or a side's length. 2^32
/// dependencies would take 128 GiB: allocating them fails first.
fn offset(n: usize) -> u32 {
    u32::try_from(n).expect("fewer than 2^32 dependencies")
}

impl Constraints {
    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The `i`th constraint.
    pub fn get(&self, i: usize) -> Pair<'_> {
        let it = self.items[i];
        Pair {
            a: it.a,
            b: it.b,
            unread: it.unread,
            deps: &self.deps[it.start as usize..it.end as usize],
            mid: (it.mid - it.start) as usize,
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = Pair<'_>> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// Each constraint on its own.
    pub fn to_vec(&self) -> Vec<Constraint> {
        self.iter().map(|p| p.to_constraint()).collect()
    }

    /// Appends a constraint (its pair not yet in the store).
    fn push(&mut self, a: TxnId, b: TxnId, sides: [&[Dep]; 2], unread: bool) {
        let item = append(&mut self.deps, (a, b), sides, unread);
        self.items.push(item);
    }
}

/// Appends a constraint's sides to `deps`: the item that finds them there.
fn append(deps: &mut Vec<Dep>, (a, b): (TxnId, TxnId), sides: [&[Dep]; 2], unread: bool) -> Item {
    let start = offset(deps.len());
    deps.extend_from_slice(sides[0]);
    let mid = offset(deps.len());
    deps.extend_from_slice(sides[1]);
    Item {
        a,
        b,
        start,
        mid,
        end: offset(deps.len()),
        unread,
    }
}

/// Collects one constraint per transaction pair: every pair of versions
/// is appended as it comes (one key at a time), then sorted by transaction
/// pair and the keys of a pair joined. Sorting beats looking each pair up
/// in a map: at 1M transactions the map's random accesses were a fifth of
/// the whole run.
#[derive(Default)]
pub(super) struct Coalescer {
    added: Constraints,
}

impl Coalescer {
    /// Adds the edges of "`t1`'s write precedes `t2`'s" (`sides[0]`) and of
    /// the reverse (`sides[1]`) to the pair's constraint; `unread` when they
    /// are of two versions nobody read ([`Pair::unread`]).
    pub fn add(&mut self, t1: TxnId, t2: TxnId, sides: [&[Dep]; 2], unread: bool) {
        let [first, second] = sides;
        match t1 < t2 {
            true => self.added.push(t1, t2, [first, second], unread),
            false => self.added.push(t2, t1, [second, first], unread),
        }
    }

    /// The constraints, ordered by transaction pair; a pair's sides list
    /// its keys in the order they were added. Most pairs share one key:
    /// their sides stay where they were added (copying them all would hold
    /// two copies at once). A pair of several keys gets its sides joined
    /// at the end of the dependencies; the parts it leaves behind are read
    /// no more.
    pub fn finish(self) -> Constraints {
        let Constraints {
            mut items,
            mut deps,
        } = self.added;
        // `start` grows with each addition: ties keep the order of adding.
        items.sort_unstable_by_key(|it| (it.a, it.b, it.start));
        let (mut first, mut second) = (Vec::new(), Vec::new());
        let (mut read, mut write) = (0, 0);
        while read < items.len() {
            let pair = |it: &Item| (it.a, it.b);
            let len = items[read..]
                .iter()
                .take_while(|it| pair(it) == pair(&items[read]))
                .count();
            let group = &items[read..read + len];
            items[write] = match group {
                [one] => *one,
                _ => join(group, &mut deps, [&mut first, &mut second]),
            };
            read += len;
            write += 1;
        }
        items.truncate(write);
        items.shrink_to_fit();
        deps.shrink_to_fit();
        Constraints { items, deps }
    }
}

/// One pair's parts (one per key), joined: every part's side 0, then every
/// part's side 1, appended to `deps` through the two scratch buffers.
fn join(group: &[Item], deps: &mut Vec<Dep>, [first, second]: [&mut Vec<Dep>; 2]) -> Item {
    first.clear();
    second.clear();
    for it in group {
        first.extend_from_slice(&deps[it.start as usize..it.mid as usize]);
        second.extend_from_slice(&deps[it.mid as usize..it.end as usize]);
    }
    let unread = group.iter().all(|it| it.unread);
    append(deps, (group[0].a, group[0].b), [first, second], unread)
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
