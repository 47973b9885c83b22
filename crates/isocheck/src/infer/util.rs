//! Small tools shared by the two inferences: a fast hash map for interned
//! values, dense key ids, per-transaction key slots, strongly connected
//! components (the graph's Tarjan over successor lists) and the
//! deduplication of dependencies.

use super::Dep;
use crate::history::{MicroOp, MopKind, MopValue, Status, Val};
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// A multiplicative hasher for the integers we key maps with (interned values
/// and pairs of them). Not resistant to adversarial keys, which a history is
/// not in a position to choose usefully.
#[derive(Default, Clone, Copy)]
pub struct FxHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl Hasher for FxHasher {
    /// A word at a time: the linearizability search's memo keys are long
    /// `[u32]` slices, which arrive here as one run of bytes.
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            let mut word = [0; 8];
            word.copy_from_slice(w);
            self.write_u64(u64::from_le_bytes(word));
        }
        for &b in words.remainder() {
            self.write_u64(b as u64);
        }
    }
    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.write_u64(n as u64);
    }
    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(SEED);
    }
    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
    /// The high bits of a product depend on every bit of the input; the
    /// table indexes buckets by the low bits, so bring them down.
    #[inline]
    fn finish(&self) -> u64 {
        self.0.rotate_left(26)
    }
}

pub type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;
pub type FxSet<K> = HashSet<K, BuildHasherDefault<FxHasher>>;

/// A key and a value packed into one map key.
#[inline]
pub fn pack(key: Val, value: Val) -> u64 {
    (key.raw() as u64) << 32 | value.raw() as u64
}

/// Dense ids for the keys of a history, in order of first appearance.
#[derive(Default)]
pub struct KeyIds {
    ids: FxMap<Val, u32>,
    pub keys: Vec<Val>,
}

impl KeyIds {
    #[inline]
    pub fn id(&mut self, key: Val) -> u32 {
        let next = self.keys.len() as u32;
        let id = *self.ids.entry(key).or_insert(next);
        if id == next {
            self.keys.push(key);
        }
        id
    }

    #[inline]
    pub fn get(&self, key: Val) -> Option<u32> {
        self.ids.get(&key).copied()
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }
}

/// The keys one transaction touches, each with a slot for per-key state:
/// linear search for the usual handful of keys, a map for big transactions.
pub struct TxnKeys<S> {
    pub slots: Vec<(Val, S)>,
    index: FxMap<Val, usize>,
}

const LINEAR: usize = 16;

impl<S> Default for TxnKeys<S> {
    fn default() -> Self {
        TxnKeys {
            slots: Vec::new(),
            index: FxMap::default(),
        }
    }
}

impl<S> TxnKeys<S> {
    pub fn clear(&mut self) {
        self.slots.clear();
        self.index.clear();
    }

    /// The slot of `key`, created with `init` when new.
    #[inline]
    pub fn slot(&mut self, key: Val, init: impl FnOnce() -> S) -> &mut S {
        let i = self.find(key).unwrap_or_else(|| {
            let i = self.slots.len();
            self.slots.push((key, init()));
            if i >= LINEAR {
                if i == LINEAR {
                    for (j, (k, _)) in self.slots.iter().enumerate() {
                        self.index.insert(*k, j);
                    }
                } else {
                    self.index.insert(key, i);
                }
            }
            i
        });
        &mut self.slots[i].1
    }

    #[inline]
    pub fn find(&self, key: Val) -> Option<usize> {
        if self.slots.len() > LINEAR {
            self.index.get(&key).copied()
        } else {
            self.slots.iter().position(|(k, _)| *k == key)
        }
    }
}

/// A transaction's external reads and writes of one key (Jepsen's
/// `ext-reads` / `ext-writes`): the first micro-op on the key if it is a
/// read, and the last write. Micro-op indices are global.
#[derive(Clone, Copy, Debug)]
pub struct Ext {
    /// The external read: the first micro-op on the key, if a read.
    pub read: Option<u32>,
    /// The last write of the key.
    pub write: Option<u32>,
    /// The first write of the key (Elle lists a transaction's external
    /// writes in this order).
    pub first_write: Option<u32>,
}

impl Ext {
    pub fn new() -> Ext {
        Ext {
            read: None,
            write: None,
            first_write: None,
        }
    }

    /// Records micro-op `m` (global index `i`), the next one on this key.
    pub fn add(&mut self, i: u32, m: &MicroOp, first_on_key: bool) {
        match m.kind {
            MopKind::Read if first_on_key => self.read = Some(i),
            MopKind::Read => {}
            // Closed-predicate's own micro-ops: its inference keeps its own books.
            MopKind::PredRead | MopKind::Insert | MopKind::Delete | MopKind::Init => {}
            MopKind::Write | MopKind::Append => {
                self.write = Some(i);
                self.first_write.get_or_insert(i);
            }
        }
    }
}

/// The scalar value of a micro-op (`nil` for a list, which only list-append
/// reads have).
#[inline]
pub fn scalar(m: &MicroOp) -> Val {
    match m.value() {
        MopValue::Val(v) => v,
        MopValue::List { .. } => Val::NIL,
    }
}

/// Elle's op type of a transaction, as the dirty-update and version-order
/// rules see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpKind {
    Ok,
    Info,
    Fail,
}

impl From<Status> for OpKind {
    fn from(s: Status) -> OpKind {
        match s {
            Status::Committed => OpKind::Ok,
            Status::Aborted => OpKind::Fail,
            Status::Indeterminate => OpKind::Info,
        }
    }
}

/// Strongly connected components of the graph `0..n` with successors
/// `succ[start[v]..start[v + 1]]`, as lists of vertices (only components of
/// two or more vertices), through the graph's Tarjan.
pub fn sccs(n: usize, start: &[u32], succ: &[u32]) -> Vec<Vec<u32>> {
    let (comp, count) = crate::graph::tarjan(n, |v, out| {
        out.extend_from_slice(&succ[start[v as usize] as usize..start[v as usize + 1] as usize])
    });
    crate::graph::nontrivial(&comp, count)
}

/// Compressed adjacency of `edges` over `0..n`: `(start, succ)`.
pub fn csr(n: usize, edges: &[(u32, u32)]) -> (Vec<u32>, Vec<u32>) {
    crate::graph::csr(n, edges.iter().copied())
}

/// Sorts `deps` and keeps one dependency per `(from, to, rel)`: the one of
/// least `prio`, which is the witness Elle's explainers pick first.
pub fn dedupe(deps: &mut Vec<(u32, Dep)>) {
    deps.sort_unstable_by_key(|(p, d)| (d.from, d.to, d.rel, *p));
    deps.dedup_by_key(|(_, d)| (d.from, d.to, d.rel));
}
