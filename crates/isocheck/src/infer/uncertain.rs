//! What inference cannot decide: pairs of transactions whose writes to some
//! keys were installed in an unknown order (PolySI's generalized constraints,
//! SPEC §2.3), and the edges that hold in every model forbidding G1c; the
//! store they are kept in.

use super::util::{csr, FxMap};
use super::{Dep, Rel, Version};
use crate::history::{TxnId, Val};

/// What a constraint chooses between.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Kind {
    /// Two transactions' writes in an unknown order (side 0: `a`'s first).
    #[default]
    Order,
    /// Whether `b` read `a`'s write of a value other transactions wrote
    /// too (side 0: the wr edge, and rw edges to the versions known to
    /// follow it that an edge leads to), or another writer's (side 1:
    /// nothing).
    ReadFrom,
    /// An anti-dependency from the reader `a` of a repeated value to the
    /// writer `b` (side 0), which a clause makes hold when the reader chose
    /// a writer whose version `b`'s precedes; side 1 is nothing.
    Guard,
}

pub use crate::clauses::{Clause, Clauses};

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
    mid: usize,
    /// See [`Pair::unread`].
    pub unread: bool,
    pub kind: Kind,
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
            mid: sides[0].len(),
            unread,
            kind: Kind::Order,
        }
    }

    /// The dependencies of one side (0: `a` first, 1: `b` first).
    pub fn side(&self, s: usize) -> &[Dep] {
        match s {
            0 => &self.deps[..self.mid],
            _ => &self.deps[self.mid..],
        }
    }

    /// A writer choice's (`Kind::ReadFrom`) wr edge: the read it is of.
    pub fn read_from(&self) -> Option<&Dep> {
        let wr = self.side(0).iter().find(|d| d.rel == Rel::Wr);
        wr.filter(|_| self.kind == Kind::ReadFrom)
    }

    /// Both sides.
    pub fn sides(&self) -> [&[Dep]; 2] {
        [self.side(0), self.side(1)]
    }
}

/// The versions constraints order, with what a dependency between two of
/// them needs: key, value, writer and readers. A constraint names versions
/// and its dependencies are made when read: a side's rw dependencies repeat
/// the key, both values and the later writer per reader, and at a million
/// transactions storing them (32 bytes each) was most of the peak memory.
#[derive(Clone, Debug, Default)]
pub struct Versions {
    /// One record a version: a side reads its fields together, at random
    /// (one cache line rather than one per field).
    nodes: Vec<Node>,
    readers: Vec<Reader>,
}

#[derive(Clone, Copy, Debug)]
struct Node {
    key: Val,
    value: Version,
    writer: Writer,
    /// The version's readers are `readers[readers_start..readers_end]`.
    readers_start: u32,
    readers_end: u32,
}

/// The edge from `from` (its micro-op `a_mop`) to the writer of version
/// `b`, witnessed by version `a` of the same key preceding `b`.
fn edge(a: Node, b: Node, from: TxnId, a_mop: u32, rel: Rel) -> Dep {
    Dep {
        from,
        to: b.writer.txn,
        rel,
        key: a.key,
        value: a.value,
        value2: b.value,
        a_mop,
        b_mop: b.writer.mop,
    }
}

/// The write that installed a version: its transaction (`NO_TXN` for
/// none), the micro-op dependencies name, and the transaction's first
/// write of the key (what dependencies are sorted by).
#[derive(Clone, Copy, Debug)]
pub(super) struct Writer {
    pub txn: TxnId,
    pub mop: u32,
    pub first: u32,
}

const NO_TXN: TxnId = TxnId::MAX;

impl Writer {
    pub const NONE: Writer = Writer {
        txn: NO_TXN,
        mop: 0,
        first: 0,
    };
}

/// A transaction that read a version, and its reading micro-op.
#[derive(Clone, Copy, Debug)]
pub(super) struct Reader {
    pub txn: TxnId,
    pub mop: u32,
}

impl Versions {
    /// Adds a version (`Writer::NONE`: nobody in the graph wrote it); its
    /// id is the count before.
    pub(super) fn push(
        &mut self,
        key: Val,
        value: Version,
        writer: Writer,
        readers: impl Iterator<Item = Reader>,
    ) -> u32 {
        let readers_start = offset(self.readers.len());
        self.readers.extend(readers);
        self.nodes.push(Node {
            key,
            value,
            writer,
            readers_start,
            readers_end: offset(self.readers.len()),
        });
        offset(self.nodes.len() - 1)
    }

    pub(super) fn read(&self, v: u32) -> bool {
        let node = &self.nodes[v as usize];
        node.readers_start < node.readers_end
    }

    /// The edges of "version `a` precedes version `b`" (of one key): ww
    /// from `a`'s writer and rw from `a`'s readers to `b`'s writer, each
    /// with the micro-op Elle's explainer orders it by, and with what
    /// inference sorts them by (the writer's first write of the key, the
    /// reading micro-op). None when nobody wrote `b`.
    pub(super) fn precedes_keyed(&self, a: u32, b: u32) -> impl Iterator<Item = (u32, Dep)> + '_ {
        let (na, nb) = (self.nodes[a as usize], self.nodes[b as usize]);
        let w2 = nb.writer;
        let range = match w2.txn != NO_TXN {
            true => na.readers_start as usize..na.readers_end as usize,
            false => 0..0,
        };
        let rw = self.readers[range]
            .iter()
            .filter(move |r| r.txn != w2.txn)
            .map(move |r| (r.mop, edge(na, nb, r.txn, r.mop, Rel::Rw)));
        self.overwrites_keyed(a, b).into_iter().chain(rw)
    }

    /// The ww edge of [`Versions::precedes_keyed`] alone.
    pub(super) fn overwrites_keyed(&self, a: u32, b: u32) -> Option<(u32, Dep)> {
        let (na, nb) = (self.nodes[a as usize], self.nodes[b as usize]);
        let (w1, w2) = (na.writer, nb.writer);
        let ww = w2.txn != NO_TXN && w1.txn != NO_TXN && w1.txn != w2.txn;
        ww.then(|| (w1.first, edge(na, nb, w1.txn, w1.mop, Rel::Ww)))
    }

    /// [`Versions::precedes_keyed`]'s edges alone.
    fn precedes(&self, a: u32, b: u32) -> impl Iterator<Item = Dep> + '_ {
        self.precedes_keyed(a, b).map(|(_, d)| d)
    }
}

/// One constraint of a [`Constraints`] store, borrowed.
#[derive(Clone, Copy)]
pub struct Pair<'c> {
    pub a: TxnId,
    pub b: TxnId,
    /// Every key's pair here is of two versions nobody read (and, chained,
    /// each its own chain): pure ww. Where a model is the plain acyclicity
    /// of its edges, such constraints can be left out: a resolution of the
    /// others orders these writes along a topological order of its graph,
    /// which adds only forward edges (and so it is for any subset).
    pub unread: bool,
    pub kind: Kind,
    /// One part per key: `a`'s run of versions, then `b`'s.
    parts: &'c [Part],
    versions: &'c Versions,
    /// A writer choice's side 0 (no parts then).
    chosen: &'c [Dep],
}

impl<'c> Pair<'c> {
    /// The dependencies of one side (0: `a` first, 1: `b` first): on each
    /// key, the edges of the last version of the run that goes first
    /// preceding the first of the other.
    pub fn side(&self, s: usize) -> impl Iterator<Item = Dep> + 'c {
        let versions = self.versions;
        let chosen = match s {
            0 => self.chosen,
            _ => &[],
        };
        let orders = self.parts.iter().flat_map(move |p| match s {
            0 => versions.precedes(p.a_last, p.b_first),
            _ => versions.precedes(p.b_last, p.a_first),
        });
        orders.chain(chosen.iter().copied())
    }

    /// The constraint on its own.
    pub fn to_constraint(self) -> Constraint {
        let [first, second]: [Vec<Dep>; 2] = [0, 1].map(|s| self.side(s).collect());
        Constraint {
            kind: self.kind,
            ..Constraint::new(self.a, self.b, [&first, &second], self.unread)
        }
    }
}

impl PartialEq for Pair<'_> {
    fn eq(&self, other: &Pair) -> bool {
        (self.a, self.b, self.unread, self.kind) == (other.a, other.b, other.unread, other.kind)
            && (0..2).all(|s| self.side(s).eq(other.side(s)))
    }
}

impl std::fmt::Debug for Pair<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.to_constraint().fmt(f)
    }
}

/// A pair's versions on one key: `a`'s run (one version, or a
/// read-modify-write chain) and `b`'s.
#[derive(Clone, Copy, Debug)]
struct Part {
    a_first: u32,
    a_last: u32,
    b_first: u32,
    b_last: u32,
}

/// Every constraint of a history, in the order inference first met each
/// transaction pair (key by key): per pair,
/// the versions each key orders (`Part`s, 16 bytes a key), in one array,
/// and the versions' table. A history of a million transactions has tens
/// of millions of constraints' dependencies: an allocation per constraint,
/// or the dependencies themselves, cost gigabytes.
#[derive(Clone, Debug, Default)]
pub struct Constraints {
    items: Vec<Item>,
    parts: Vec<Part>,
    versions: Versions,
    /// The writer choices of reads of repeated values, after the orders;
    /// their dependencies are `choice_deps[start..end]`, one array for all
    /// (a million choices on VeriStrong's HD-10k: an allocation each was
    /// as much work to free as to build).
    choices: Vec<ChoiceItem>,
    choice_deps: Vec<Dep>,
    /// Clauses over all of them (by index: orders first).
    /// (see `check::polygraph::Problem::clauses`).
    pub clauses: Clauses,
}

/// A constraint of a read of a repeated value: its side 0 (side 1 has
/// nothing).
#[derive(Clone, Debug)]
pub struct Choice {
    pub a: TxnId,
    pub b: TxnId,
    pub kind: Kind,
    pub deps: Vec<Dep>,
}

/// Equal when they hold the same constraints in the same order, however
/// they are stored.
impl PartialEq for Constraints {
    fn eq(&self, other: &Constraints) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for Constraints {}

/// One constraint: its parts are `parts[start..end]`.
#[derive(Clone, Copy, Debug)]
struct Item {
    a: TxnId,
    b: TxnId,
    start: u32,
    end: u32,
    unread: bool,
}

/// One writer choice: its dependencies are `choice_deps[start..end]`.
#[derive(Clone, Copy, Debug)]
struct ChoiceItem {
    a: TxnId,
    b: TxnId,
    kind: Kind,
    start: u32,
    end: u32,
}

/// An index into a store's array, or a count. 2^32 of them would take
/// 64 GiB or more: allocating them fails first.
fn offset(n: usize) -> u32 {
    u32::try_from(n).expect("fewer than 2^32 parts")
}

impl Constraints {
    pub fn len(&self) -> usize {
        self.items.len() + self.choices.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `i`th constraint.
    pub fn get(&self, i: usize) -> Pair<'_> {
        let Some(it) = self.items.get(i) else {
            let c = &self.choices[i - self.items.len()];
            return Pair {
                a: c.a,
                b: c.b,
                unread: false,
                kind: c.kind,
                parts: &[],
                versions: &self.versions,
                chosen: &self.choice_deps[c.start as usize..c.end as usize],
            };
        };
        Pair {
            a: it.a,
            b: it.b,
            unread: it.unread,
            kind: Kind::Order,
            parts: &self.parts[it.start as usize..it.end as usize],
            versions: &self.versions,
            chosen: &[],
        }
    }

    /// The order constraints by their transactions `(a, b)`, `a < b`.
    pub(super) fn orders(&self) -> FxMap<(TxnId, TxnId), u32> {
        (self.items.iter().enumerate())
            .map(|(i, it)| ((it.a, it.b), i as u32))
            .collect()
    }

    /// Adds a writer choice's constraint; its index.
    pub(super) fn push_choice(&mut self, choice: Choice) -> u32 {
        let start = offset(self.choice_deps.len());
        self.choice_deps.extend_from_slice(&choice.deps);
        self.choices.push(ChoiceItem {
            a: choice.a,
            b: choice.b,
            kind: choice.kind,
            start,
            end: offset(self.choice_deps.len()),
        });
        offset(self.len() - 1)
    }

    pub fn iter(&self) -> impl Iterator<Item = Pair<'_>> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// Each constraint on its own.
    #[cfg(test)]
    pub fn to_vec(&self) -> Vec<Constraint> {
        self.iter().map(|p| p.to_constraint()).collect()
    }
}

/// Collects one constraint per transaction pair: every pair of runs is
/// appended as it comes (one key at a time), then the additions of the same
/// transaction pair are found by sorting and joined. Sorting beats looking
/// each pair up in a map: at 1M transactions the map's random accesses were
/// a fifth of the whole run.
#[derive(Default)]
pub(super) struct Coalescer {
    items: Vec<Item>,
    parts: Vec<Part>,
}

impl Coalescer {
    /// Adds a key's pair of runs of versions, `runs[0]` written by `t1`
    /// and `runs[1]` by `t2` (each as first and last version), to the
    /// pair's constraint; `unread` when they are two versions nobody read
    /// ([`Pair::unread`]).
    pub fn add(&mut self, t1: TxnId, t2: TxnId, runs: [(u32, u32); 2], unread: bool) {
        let [x, y] = runs;
        let ((a, b), (ra, rb)) = match t1 < t2 {
            true => ((t1, t2), (x, y)),
            false => ((t2, t1), (y, x)),
        };
        let start = offset(self.parts.len());
        self.parts.push(Part {
            a_first: ra.0,
            a_last: ra.1,
            b_first: rb.0,
            b_last: rb.1,
        });
        self.items.push(Item {
            a,
            b,
            start,
            end: start + 1,
            unread,
        });
    }

    /// The constraints over `versions`, in the order each transaction pair
    /// was first added; a pair's parts list its keys in the order they
    /// were added. Pairs are added one key after another, so that reading
    /// the constraints in this order reads the versions (stored key by
    /// key) and the parts one after the other: in the order of transaction
    /// pairs, each was a cache miss, and at 1M transactions those misses
    /// made building and reading the constraints grow 20-fold from 100k.
    pub fn finish(self, versions: Versions) -> Constraints {
        self.finish_with(versions, PARALLEL_SORT)
    }

    /// [`Coalescer::finish`], sorting on every core from `parallel_from`
    /// pairs of runs on.
    fn finish_with(self, versions: Versions, parallel_from: usize) -> Constraints {
        let Coalescer { mut items, parts } = self;
        let (next, joined) = same_pairs(&items, parallel_from);
        let mut sorted = Vec::with_capacity(parts.len());
        let mut write = 0;
        // Each addition's item and part are at its position in `items` and
        // `parts`; a pair's later additions follow `next` from its first.
        // Items are compacted in place: a read is never behind a write.
        for first in 0..items.len() {
            if joined[first] {
                continue;
            }
            let start = offset(sorted.len());
            let mut unread = true;
            let mut at = first as u32;
            while at != NONE {
                sorted.push(parts[at as usize]);
                unread &= items[at as usize].unread;
                at = next[at as usize];
            }
            items[write] = Item {
                start,
                end: offset(sorted.len()),
                unread,
                ..items[first]
            };
            write += 1;
        }
        items.truncate(write);
        items.shrink_to_fit();
        Constraints {
            items,
            parts: sorted,
            versions,
            choices: Vec::new(),
            choice_deps: Vec::new(),
            clauses: Clauses::default(),
        }
    }
}

const NONE: u32 = u32::MAX;

/// From this many pairs of runs on, [`Coalescer::finish`] sorts them on two
/// threads (below, a thread costs more than it saves).
const PARALLEL_SORT: usize = 1 << 18;

/// Which additions are of the same transaction pair: per addition, the
/// pair's next addition (`NONE` after its last), and whether it is a later
/// one. Found by sorting `(a, b, addition)` triples.
fn same_pairs(items: &[Item], parallel_from: usize) -> (Vec<u32>, Vec<bool>) {
    let mut keys: Vec<(TxnId, TxnId, u32)> = (0..offset(items.len()))
        .zip(items)
        .map(|(i, it)| (it.a, it.b, i))
        .collect();
    // The triples are unique: one order however it is reached.
    crate::limits::sort_unstable_on_cores(&mut keys, parallel_from);
    let mut next = vec![NONE; items.len()];
    let mut joined = vec![false; items.len()];
    for w in keys.windows(2) {
        if (w[0].0, w[0].1) == (w[1].0, w[1].1) {
            next[w[0].2 as usize] = w[1].2;
            joined[w[1].2 as usize] = true;
        }
    }
    (next, joined)
}

/// Which pairs of runs of `n` versions of one key a partial order leaves
/// unordered. `edges` are the order's edges between local version ids
/// `0..n`; `runs` the (first, last) versions of the runs we need pairs of
/// (a single version is a run from itself to itself): run `i` precedes `j`
/// when `j`'s first version is after `i`'s last. Returns pairs of indices
/// into `runs`, or `None` when the edges have a cycle. With `first_only`,
/// the first such pair alone: whether there is any.
pub(super) fn unordered_pairs(
    n: usize,
    edges: &[(u32, u32)],
    runs: &[(u32, u32)],
    first_only: bool,
) -> Option<Vec<(u32, u32)>> {
    let mut pairs = Vec::new();
    if edges.is_empty() && first_only {
        pairs.extend((runs.len() > 1).then_some((0, 1)));
        return Some(pairs);
    }
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
                if first_only {
                    return Some(pairs);
                }
            }
        }
    }
    Some(pairs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// Coalescing sorted on two threads gives the serial constraints,
        /// byte for byte (pairs of few transactions, so that many repeat).
        #[test]
        fn parallel_sort_coalesces_as_serial(
            adds in prop::collection::vec((0u32..40, 0u32..40, 0u32..1000, any::<bool>()), 0..600),
        ) {
            let coalesce = |parallel_from: usize| {
                let mut co = Coalescer::default();
                for (i, &(t1, t2, v, unread)) in adds.iter().enumerate() {
                    let runs = [(v, v + i as u32), (v + 1, v + 2)];
                    co.add(t1, t2, runs, unread);
                }
                format!("{:?}", co.finish_with(Versions::default(), parallel_from))
            };
            prop_assert_eq!(coalesce(usize::MAX), coalesce(0));
        }
    }

    #[test]
    fn unordered_pairs_follow_the_transitive_order() {
        let single = |vs: &[u32]| vs.iter().map(|&v| (v, v)).collect::<Vec<_>>();
        // 0 < 1 < 2, 3 alone.
        let pairs = unordered_pairs(4, &[(0, 1), (1, 2)], &single(&[0, 1, 2, 3]), false).unwrap();
        assert_eq!(pairs, vec![(0, 3), (1, 3), (2, 3)]);
        assert_eq!(
            unordered_pairs(3, &[], &single(&[0, 1, 2]), false).unwrap(),
            vec![(0, 1), (0, 2), (1, 2)]
        );
        assert!(unordered_pairs(2, &[(0, 1), (1, 0)], &single(&[0, 1]), false).is_none());
    }

    #[test]
    fn runs_are_ordered_by_their_ends() {
        // Runs 0..1 and 2..3 with 0 < 3 only: unordered (2..3 may still go
        // first as a whole, or wholly after 1). With 1 < 2 they are ordered.
        let runs = [(0, 1), (2, 3)];
        assert_eq!(
            unordered_pairs(4, &[(0, 1), (2, 3), (0, 3)], &runs, false).unwrap(),
            vec![(0, 1)]
        );
        assert!(unordered_pairs(4, &[(0, 1), (2, 3), (1, 2)], &runs, false)
            .unwrap()
            .is_empty());
    }
}
