//! rw-register inference (SPEC §2.3).
//!
//! wr edges come from unique written values. The version order of a key is
//! a graph: the initial version (`nil`) precedes every other, and the
//! optional sources Elle knows (writes follow reads, process order, real-time
//! order) add edges, each source merged only while every key's graph stays
//! acyclic. Every version edge v1 → v2 gives ww from v1's writer and rw from
//! v1's readers to v2's writer. Reads and writes are the external ones
//! (Jepsen's `ext-reads`: a key's first micro-op when it is a read;
//! `ext-writes`: a key's last write), and also every later read that shows
//! another version than the transaction's own state of the key (Elle's
//! `internal`, a read of `nil` included): it read that version all the
//! same, and models that allow `internal` see its edges.
//!
//! Non-cycle anomalies: G1a, G1b, internal, future-read (a read of the value
//! its own transaction writes only later; Elle finds it in list-append
//! only), lost-update, cyclic-versions and garbage-read.
//!
//! A value written to a key more than once is a version per writer. A read
//! of it that more than one of them (committed or indeterminate, external,
//! not its own transaction's) could have given is *ambiguous*: it gives no
//! certain edge, and its writer is a choice the constraints make
//! (`Kind::ReadFrom`, with `Kind::Guard`s and clauses for the
//! anti-dependencies that also need a version order), as VeriStrong's
//! hyper-polygraphs do. A read only one of them could have given is
//! certain; one none could is judged by the most telling of them (an
//! intermediate write's G1b, then an aborted one's G1a).

use super::anomaly::{Anomaly, Expected};
use super::uncertain::{
    unordered_pairs, Choice, Clause, Coalescer, Constraints, Kind, Reader, Versions, Writer,
};
use super::util::{csr, dedupe, pack, scalar, sccs, Ext, FxMap, FxSet, KeyIds, TxnKeys};
use super::{AmbiguousRead, Dep, Edges, InferOptions, Inference, Rel, Version};
use crate::graph::order;
use crate::history::{History, MopKind, Status, TxnId, Val};
use crate::progress::Unit;
use std::collections::hash_map::Entry;

const NONE: u32 = u32::MAX;

/// A write micro-op, found by key and value.
#[derive(Clone, Copy)]
struct Write {
    txn: TxnId,
    mop: u32,
    /// The transaction's last write of the key (an external write).
    ext: bool,
    /// The transaction's first write of the key.
    first: u32,
}

/// A committed read that is not its transaction's external read of the key
/// and shows another version than the one the transaction had.
#[derive(Clone, Copy)]
struct LaterRead {
    txn: TxnId,
    kid: u32,
    mop: u32,
    writer: Option<Write>,
    /// More than one write could have given it.
    ambiguous: bool,
}

/// A read of a repeated value with several possible writers.
struct Ambiguous {
    txn: TxnId,
    kid: u32,
    mop: u32,
    /// The writers it may have read ([`Rr::candidates`]).
    writers: Vec<TxnId>,
    /// See [`AmbiguousRead::rereads`].
    rereads: Vec<u32>,
}

impl Ambiguous {
    fn read(&self) -> AmbiguousRead {
        AmbiguousRead {
            txn: self.txn,
            mop: self.mop,
            rereads: self.rereads.clone(),
            writers: self.writers.clone(),
        }
    }
}

/// One transaction's external access to one key.
#[derive(Clone, Copy)]
struct Touch {
    txn: TxnId,
    kid: u32,
    ext: Ext,
}

struct Rr<'h> {
    h: &'h History,
    keys: KeyIds,
    /// Each (key, value)'s first write.
    writes: FxMap<u64, Write>,
    /// Every write of each (key, value) written more than once.
    repeats: FxMap<u64, Vec<Write>>,
    ambiguous: Vec<Ambiguous>,
    /// Every transaction's touches, transaction by transaction.
    touches: Vec<Touch>,
    touch_start: Vec<u32>,
    /// Per touch of a committed transaction, the write its external read
    /// read, as `reads` found it: wr edges need it again, and a second
    /// lookup in `writes` was a cache miss per read at 1M transactions.
    read_writer: Vec<Option<Write>>,
    /// The reads after a transaction's first micro-op on a key that show
    /// another version than the transaction's own state of it (Elle's
    /// `internal`): each still read that version, so by Adya's definition
    /// it depends on its writer and anti-depends on the next one. Elle
    /// takes edges from external reads only and misses them in the models
    /// that allow `internal` (read committed, repeatable read, …).
    later_reads: Vec<LaterRead>,
    in_graph: Vec<bool>,
    /// Every transaction's status, a byte each: reads ask for their
    /// writers' at random, and a transaction's whole record (40 bytes) is
    /// a cache miss at 1M transactions.
    status: Vec<Status>,
    /// [`Inference::read_sources`], when wanted (else empty).
    read_sources: Vec<TxnId>,
    /// Version nodes: key `k`'s are `key_start[k]..key_start[k + 1]`, the
    /// first being its initial version, the others its values, sorted.
    node_val: Vec<Val>,
    node_key: Vec<u32>,
    /// The writer a version of a repeated value is of (else `NONE`).
    node_txn: Vec<TxnId>,
    key_start: Vec<u32>,
    /// Each version node's writer in the graph ([`Rr::writer`]), looked up
    /// once: the constraints ask for it several times per pair of versions,
    /// and a hash lookup per question was a tenth of inference at 1M.
    node_writer: Vec<Option<Write>>,
}

/// The inference; with `chains`, the constraints of read-modify-write
/// chains collapsed (see [`Inference::chained`]).
pub fn infer(h: &History, opts: &InferOptions, chains: bool) -> Inference {
    let (mut inference, pending) = infer_deferred(h, opts, chains, true, Edges::All, false);
    inference.constraints = pending.constraints();
    inference
}

/// The inference without its constraints, which the [`Pending`] builds
/// when asked; [`Inference::open`] says whether there are any. Without
/// `open_wanted`, nothing of the open orders is looked for (no constraints,
/// no implied edges, `open` false). `wanted` says which edges the version
/// graph gives ([`Edges`]); with none and no open order, the versions'
/// readers are not gathered either, nor (with no source of version order
/// but the initial state) the version nodes. With `sources_wanted`,
/// [`Inference::read_sources`] is filled.
pub fn infer_deferred<'h>(
    h: &'h History,
    opts: &InferOptions,
    chains: bool,
    open_wanted: bool,
    wanted: Edges,
    sources_wanted: bool,
) -> (Inference, Pending<'h>) {
    let mut rr = Rr {
        h,
        keys: KeyIds::default(),
        writes: FxMap::default(),
        repeats: FxMap::default(),
        ambiguous: Vec::new(),
        touches: Vec::new(),
        touch_start: Vec::with_capacity(h.txns.len() + 1),
        read_writer: Vec::new(),
        later_reads: Vec::new(),
        in_graph: vec![false; h.txns.len()],
        status: h.txns.iter().map(|t| t.status).collect(),
        read_sources: match sources_wanted {
            true => vec![NONE; h.mops.len()],
            false => Vec::new(),
        },
        node_val: Vec::new(),
        node_key: Vec::new(),
        node_txn: Vec::new(),
        key_start: Vec::new(),
        node_writer: Vec::new(),
    };
    rr.index();
    let (mut anomalies, garbage) = rr.reads();
    let versions_wanted = wanted != Edges::None || open_wanted;
    // Without them, the version graph's only use is the anomalies of the
    // sources merged into it: with none but the initial state, it has none.
    let (edges, cyclic) = match versions_wanted || rr.order_sources(opts) {
        true => {
            rr.nodes();
            rr.version_graph(opts)
        }
        false => (Vec::new(), Vec::new()),
    };
    anomalies.extend(cyclic);
    anomalies.extend(garbage);
    let versions = match versions_wanted {
        false => Versions::default(),
        true => rr.versions(),
    };
    let mut deps = Vec::new();
    if wanted != Edges::None {
        deps = rr.wr_deps();
        version_deps(&edges, &versions, &mut deps, wanted == Edges::All);
        dedupe(&mut deps);
    }
    // Chains assume each version's readers known.
    let chains = chains && rr.ambiguous.is_empty();
    let (implied, chained, open) = match open_wanted {
        true => rr.uncertainty(&edges, &versions, chains, None),
        false => (Vec::new(), false, false),
    };
    let inference = Inference {
        deps: deps.into_iter().map(|(_, d)| d).collect(),
        anomalies,
        in_graph: rr.in_graph.clone(),
        implied,
        constraints: Constraints::default(),
        chained,
        open,
        read_sources: std::mem::take(&mut rr.read_sources),
        ambiguous: rr.ambiguous.iter().map(Ambiguous::read).collect(),
    };
    let pending = Pending {
        rr,
        edges,
        versions,
        chains,
    };
    (inference, pending)
}

/// What building the constraints of an [`infer_deferred`] takes.
pub struct Pending<'h> {
    rr: Rr<'h>,
    edges: Vec<(u32, u32)>,
    versions: Versions,
    chains: bool,
}

impl Pending<'_> {
    /// The ww and rw edges of the version order that puts every key's
    /// written versions after its initial one in the order of their
    /// writers' `rank`: those of each version preceding the next. Each
    /// ambiguous read takes a writer too (see [`Rr::witness_choice`]), with
    /// its wr edge and the rw edge to the next version: one resolution of
    /// every constraint, writer choices included.
    pub fn adjacent_edges(&self, rank: &[u32]) -> Vec<Dep> {
        let rr = &self.rr;
        let mut out = Vec::new();
        let mut written: Vec<(u32, u32)> = Vec::new();
        let mut ambiguous: Vec<&Ambiguous> = rr.ambiguous.iter().collect();
        ambiguous.sort_by_key(|a| a.kid);
        let mut reads = ambiguous.as_slice();
        for kid in 0..rr.keys.len() {
            let (lo, hi) = (rr.key_start[kid], rr.key_start[kid + 1]);
            written.clear();
            written.extend((lo..hi).filter_map(|v| Some((rank[rr.writer(v)?.txn as usize], v))));
            written.sort_unstable();
            // The key's first node is its initial version.
            let mut prev = lo;
            for &(_, v) in &written {
                crate::limits::tick();
                out.extend(self.versions.precedes_keyed(prev, v).map(|(_, d)| d));
                prev = v;
            }
            let here = reads.partition_point(|a| a.kid as usize == kid);
            for amb in &reads[..here] {
                out.extend(rr.witness_choice(amb, &written, rank));
            }
            reads = &reads[here..];
        }
        out
    }

    /// The constraints [`infer`] finds.
    pub fn constraints(self) -> Constraints {
        let mut co = Coalescer::default();
        let rr = &self.rr;
        rr.uncertainty(&self.edges, &self.versions, self.chains, Some(&mut co));
        let mut constraints = co.finish(self.versions);
        rr.choices(&self.edges, &mut constraints);
        constraints
    }
}

impl Rr<'_> {
    fn status(&self, t: TxnId) -> Status {
        self.status[t as usize]
    }

    fn val(&self, mop: u32) -> Val {
        scalar(&self.h.mops[mop as usize])
    }

    /// The write committed transaction `t`'s read of (key, value) `kv`
    /// read, and whether more than one could have given it (then `None`).
    /// Of a repeated value, a write could if it is external, not aborted
    /// and not `t`'s own; when none could, the most telling one is taken:
    /// another's intermediate write, then an aborted one, then `t`'s own.
    fn writer_of(&self, kv: u64, t: TxnId) -> (Option<Write>, bool) {
        let Some(all) = self.repeats_of(kv) else {
            return (self.writes.get(&kv).copied(), false);
        };
        let mut possible = self.candidates(all, t);
        match (possible.next(), possible.next()) {
            (Some(_), Some(_)) => (None, true),
            (Some(&w), None) => (Some(w), false),
            _ => {
                let other = |w: &&Write| w.txn != t;
                let unaborted = |w: &&Write| self.status(w.txn) != Status::Aborted;
                let telling = (all.iter().filter(other).find(unaborted))
                    .or_else(|| all.iter().find(other))
                    .or(all.first());
                (telling.copied(), false)
            }
        }
    }

    /// Transaction `t`'s last write of (key, value) `kv` before micro-op
    /// `before`.
    fn own_write(&self, kv: u64, t: TxnId, before: u32) -> Option<Write> {
        match self.repeats_of(kv) {
            Some(all) => all
                .iter()
                .rev()
                .find(|w| w.txn == t && w.mop < before)
                .copied(),
            None => self.writes.get(&kv).copied(),
        }
    }

    /// Of `all`, the writes of a repeated value, those that could have
    /// given committed transaction `t`'s read of it: each transaction's
    /// last write of the key, outside `t` and the aborted ones. More than
    /// one make the read ambiguous; they are then the writers of its
    /// `Kind::ReadFrom` constraints (the version nodes of the same writes,
    /// [`Rr::read_choices`]) and of its [`AmbiguousRead`].
    fn candidates<'a>(&'a self, all: &'a [Write], t: TxnId) -> impl Iterator<Item = &'a Write> {
        let could = move |w: &&Write| w.ext && w.txn != t && self.status(w.txn) != Status::Aborted;
        all.iter().filter(could)
    }

    /// Records committed transaction `t`'s read `mop` of (key, value) `kv`
    /// as ambiguous, and brings into the graph the indeterminate
    /// transactions it may have read from. Its index among the ambiguous
    /// reads.
    fn record_ambiguous(&mut self, kv: u64, t: TxnId, kid: u32, mop: u32) -> usize {
        let all = self.repeats_of(kv).map_or(&[][..], Vec::as_slice);
        let writers: Vec<TxnId> = self.candidates(all, t).map(|w| w.txn).collect();
        for &w in &writers {
            if self.status(w) == Status::Indeterminate {
                self.in_graph[w as usize] = true;
            }
        }
        self.ambiguous.push(Ambiguous {
            txn: t,
            kid,
            mop,
            writers,
            rereads: Vec::new(),
        });
        self.ambiguous.len() - 1
    }

    /// Every write of (key, value) `kv`, if it was written more than once.
    /// Asked of every read and version: a history without repeats does
    /// not hash for it.
    fn repeats_of(&self, kv: u64) -> Option<&Vec<Write>> {
        match self.repeats.is_empty() {
            true => None,
            false => self.repeats.get(&kv),
        }
    }

    /// Whether value `v` of key `kid` was written more than once.
    fn repeated(&self, kid: u32, v: Val) -> bool {
        (self.repeats_of(pack(self.keys.keys[kid as usize], v))).is_some()
    }

    fn touches_of(&self, t: TxnId) -> &[Touch] {
        &self.touches
            [self.touch_start[t as usize] as usize..self.touch_start[t as usize + 1] as usize]
    }

    /// Indexes writes and every transaction's external reads and writes.
    fn index(&mut self) {
        let h = self.h;
        let mut ks: TxnKeys<Ext> = TxnKeys::default();
        // Sized once: growing a map of a million writes rehashes it
        // repeatedly, each time out of cache.
        let writes = h.mops.iter().filter(|m| m.kind != MopKind::Read).count();
        self.writes.reserve(writes);
        for (t, txn) in h.txns.iter().enumerate() {
            crate::limits::tick_of(t, h.txns.len(), Unit::Transactions);
            self.touch_start.push(self.touches.len() as u32);
            ks.clear();
            for (j, m) in h.mops_of(txn).iter().enumerate() {
                let i = txn.mops.start + j as u32;
                self.keys.id(m.key);
                let first = ks.find(m.key).is_none();
                ks.slot(m.key, Ext::new).add(i, m, first);
            }
            for &(key, ext) in &ks.slots {
                let kid = self.keys.get(key).expect("indexed key");
                self.touches.push(Touch {
                    txn: t as TxnId,
                    kid,
                    ext,
                });
            }
            for (j, m) in h.mops_of(txn).iter().enumerate() {
                if m.kind == MopKind::Read {
                    continue;
                }
                let i = txn.mops.start + j as u32;
                let ext = ks.slots[ks.find(m.key).expect("touched key")].1;
                let w = Write {
                    txn: t as TxnId,
                    mop: i,
                    ext: ext.write == Some(i),
                    first: ext.first_write.unwrap_or(i),
                };
                // One lookup: at 1M transactions each is a cache miss.
                match self.writes.entry(pack(m.key, scalar(m))) {
                    Entry::Vacant(slot) => drop(slot.insert(w)),
                    // A read of nil reads the initial state, whoever wrote nil.
                    Entry::Occupied(mut slot) if scalar(m).is_nil() => drop(slot.insert(w)),
                    Entry::Occupied(slot) => {
                        let first = *slot.get();
                        self.repeats
                            .entry(*slot.key())
                            .or_insert(vec![first])
                            .push(w)
                    }
                }
            }
        }
        self.touch_start.push(self.touches.len() as u32);
    }

    /// The anomalies of committed reads (garbage reads apart), and which
    /// indeterminate transactions they observed.
    fn reads(&mut self) -> (Vec<Anomaly>, Vec<Anomaly>) {
        let h = self.h;
        let (mut g1a, mut g1b, mut internal, mut future, mut garbage) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut own_unseen = Vec::new();
        // (key id, value of the first read, completion, txn, read mop)
        let mut lost: Vec<(u32, u32, u32, TxnId, u32)> = Vec::new();
        // Per key: Elle's expected value, and lost update's first read.
        struct St {
            state: Option<Val>,
            /// The state is the transaction's own write.
            own: bool,
            first_read: Option<(Val, u32)>,
            written: bool,
            /// A future read of the key was found (one per key, as
            /// list-append reports one per element).
            future: bool,
            /// The index among the ambiguous reads of the read the state
            /// is from, if it is one.
            ambiguous: Option<usize>,
        }
        let mut ks: TxnKeys<St> = TxnKeys::default();
        for (t, txn) in h.txns.iter().enumerate() {
            self.in_graph[t] = txn.status == Status::Committed;
        }
        let mut read_writer = vec![None; self.touches.len()];
        for (t, txn) in h.txns.iter().enumerate() {
            let t = t as TxnId;
            if txn.status != Status::Committed {
                continue;
            }
            ks.clear();
            let (mut internal_found, mut own_found) = (false, false);
            for (j, m) in h.mops_of(txn).iter().enumerate() {
                let i = txn.mops.start + j as u32;
                let v = scalar(m);
                let external = m.kind == MopKind::Read && ks.find(m.key).is_none();
                let st = ks.slot(m.key, || St {
                    state: None,
                    own: false,
                    first_read: None,
                    written: false,
                    future: false,
                    ambiguous: None,
                });
                if m.kind != MopKind::Read {
                    st.state = Some(v);
                    st.own = true;
                    if !st.written {
                        if let Some((r, rm)) = st.first_read {
                            st.written = true;
                            let kid = self.keys.get(m.key).expect("indexed key");
                            // Two reads of a repeated value may be of two
                            // versions.
                            if self.repeats_of(pack(m.key, r)).is_none() {
                                lost.push((kid, r.raw(), txn.op(), t, rm));
                            }
                        }
                    }
                    continue;
                }
                // A read of `nil` is a definite read of the initial state
                // (Elle 0.2.7: "Detect internal anomalies like [:r nil]
                // [:r 1]"), so a later read of anything else disagrees.
                // A later read that agrees read what the transaction had:
                // its own write, or the version it read before.
                let agrees = !external && st.state == Some(v);
                let (found, ambiguous) = match agrees && st.own {
                    true => (self.own_write(pack(m.key, v), t, i), false),
                    false => self.writer_of(pack(m.key, v), t),
                };
                match (ambiguous, agrees, st.ambiguous) {
                    (true, false, _) => {
                        let kid = self.keys.get(m.key).expect("indexed key");
                        let at = self.record_ambiguous(pack(m.key, v), t, kid, i);
                        // The external read is the one the state is from.
                        if external {
                            st.ambiguous = Some(at);
                        }
                    }
                    // The version the transaction had: its writer's.
                    (true, true, Some(at)) => self.ambiguous[at].rereads.push(i),
                    _ => {}
                }
                match st.state {
                    Some(s) if s != v => {
                        if !internal_found {
                            internal_found = true;
                            internal.push(Anomaly::Internal {
                                txn: t,
                                mop: i,
                                expected: Expected::Value(s),
                            });
                        }
                        if st.own && !own_found {
                            own_found = true;
                            own_unseen.push(Anomaly::OwnWriteUnseen {
                                txn: t,
                                mop: i,
                                expected: Expected::Value(s),
                            });
                        }
                        let kid = self.keys.get(m.key).expect("indexed key");
                        self.later_reads.push(LaterRead {
                            txn: t,
                            kid,
                            mop: i,
                            writer: found,
                            ambiguous,
                        });
                    }
                    _ => st.state = Some(v),
                }
                st.first_read.get_or_insert((v, i));
                if external {
                    let touches = self.touch_start[t as usize]..self.touch_start[t as usize + 1];
                    if let Some(k) = touches
                        .into_iter()
                        .find(|&k| self.touches[k as usize].ext.read == Some(i))
                    {
                        read_writer[k as usize] = found;
                    }
                }
                if let (Some(w), Some(source)) = (found, self.read_sources.get_mut(i as usize)) {
                    if w.ext && self.status[w.txn as usize] != Status::Aborted {
                        *source = w.txn;
                    }
                }
                match found {
                    None if ambiguous => {}
                    None if !v.is_nil() => garbage.push(Anomaly::GarbageRead { txn: t, mop: i }),
                    None => {}
                    Some(w) => {
                        match self.status(w.txn) {
                            Status::Aborted => g1a.push(Anomaly::G1a {
                                reader: t,
                                mop: i,
                                writer: w.txn,
                                element: None,
                            }),
                            Status::Indeterminate if !v.is_nil() => {
                                self.in_graph[w.txn as usize] = true;
                            }
                            _ => {}
                        }
                        // The transaction writes the value it read only
                        // later: list-append's future read.
                        if w.txn == t && w.mop > i && !st.future {
                            st.future = true;
                            future.push(Anomaly::FutureRead {
                                txn: t,
                                mop: i,
                                element: v,
                            });
                        }
                        if !w.ext && w.txn != t {
                            g1b.push(Anomaly::G1b {
                                reader: t,
                                mop: i,
                                writer: w.txn,
                                element: None,
                            });
                        }
                    }
                }
            }
        }
        self.read_writer = read_writer;
        lost.sort_unstable();
        let mut lost_updates: Vec<Anomaly> = lost
            .chunk_by(|a, b| (a.0, a.1) == (b.0, b.1))
            .filter(|g| g.len() > 1)
            .map(|g| Anomaly::LostUpdate {
                key: self.keys.keys[g[0].0 as usize],
                read_mop: g[0].4,
                txns: g.iter().map(|x| x.3).collect(),
            })
            .collect();
        lost_updates.sort_by_key(|a| match a {
            Anomaly::LostUpdate { read_mop, .. } => *read_mop,
            _ => 0,
        });
        let mut out = g1a;
        out.append(&mut g1b);
        out.append(&mut internal);
        out.append(&mut own_unseen);
        out.append(&mut future);
        out.append(&mut lost_updates);
        (out, garbage)
    }

    /// The value of an external read, if the touch has one.
    fn read_val(&self, x: &Ext) -> Option<Val> {
        x.read.map(|i| self.val(i))
    }

    fn write_val(&self, x: &Ext) -> Option<Val> {
        x.write.map(|i| self.val(i))
    }

    /// Builds the version nodes: each key's initial version, then the values
    /// its external writes (outside aborted transactions) and committed
    /// reads (external, and later ones that disagree) hold.
    fn nodes(&mut self) {
        // (key, value) of the values written at most once; apart, (key,
        // value, writer) of each write of a repeated value, its versions
        // (reads give it none of their own): the common case sorts 8-byte
        // pairs, as before repeats were read.
        let mut vals: Vec<(u32, Val)> = Vec::new();
        let mut repeated: Vec<(u32, Val, TxnId)> = Vec::new();
        for touch in &self.touches {
            match self.status(touch.txn) {
                Status::Aborted => continue,
                Status::Committed => vals.extend(self.read_val(&touch.ext).map(|v| (touch.kid, v))),
                Status::Indeterminate => {}
            }
            if let Some(v) = self.write_val(&touch.ext) {
                match self.repeated(touch.kid, v) {
                    true => repeated.push((touch.kid, v, touch.txn)),
                    false => vals.push((touch.kid, v)),
                }
            }
        }
        vals.extend(self.later_reads.iter().map(|r| (r.kid, self.val(r.mop))));
        vals.retain(|&(kid, v)| !v.is_nil() && !self.repeated(kid, v));
        vals.sort_unstable();
        vals.dedup();
        repeated.sort_unstable();
        let mut once = vals.iter().peekable();
        let mut twice = repeated.iter().peekable();
        for kid in 0..self.keys.len() as u32 {
            self.key_start.push(self.node_val.len() as u32);
            self.node_val.push(Val::NIL);
            self.node_key.push(kid);
            self.node_txn.push(NONE);
            // The key's values in order, the two lists merged.
            loop {
                let a = once.peek().filter(|x| x.0 == kid).map(|x| (x.1, NONE));
                let b = twice.peek().filter(|x| x.0 == kid).map(|x| (x.1, x.2));
                let (v, txn) = match (a, b) {
                    (None, None) => break,
                    (Some(a), Some(b)) if a < b => {
                        once.next();
                        a
                    }
                    (Some(a), None) => {
                        once.next();
                        a
                    }
                    (_, Some(b)) => {
                        twice.next();
                        b
                    }
                };
                self.node_val.push(v);
                self.node_key.push(kid);
                self.node_txn.push(txn);
            }
        }
        self.key_start.push(self.node_val.len() as u32);
        self.node_writer = (0..self.node_val.len() as u32)
            .map(|v| self.lookup_writer(v))
            .collect();
    }

    /// The version transaction `txn` wrote of value `v` of key `kid`.
    fn write_node(&self, kid: u32, v: Val, txn: TxnId) -> u32 {
        if v.is_nil() || !self.repeated(kid, v) {
            return self.node(kid, v);
        }
        let (lo, hi) = (
            self.key_start[kid as usize],
            self.key_start[kid as usize + 1],
        );
        let vals = &self.node_val[lo as usize + 1..hi as usize];
        let start = lo + 1 + vals.partition_point(|&x| x < v) as u32;
        (start..hi)
            .find(|&n| self.node_txn[n as usize] == txn)
            .expect("a version per write of a repeated value")
    }

    /// The version a committed read of value `v` of key `kid` read, given
    /// the write it read (`None` for an ambiguous read).
    fn read_node(&self, kid: u32, v: Val, writer: Option<Write>) -> Option<u32> {
        if v.is_nil() || !self.repeated(kid, v) {
            return Some(self.node(kid, v));
        }
        let w = writer.filter(|w| w.ext && self.status(w.txn) != Status::Aborted)?;
        Some(self.write_node(kid, v, w.txn))
    }

    /// The version a touch's external read of value `r` read.
    fn ext_read_node(&self, t: &Touch, r: Val) -> Option<u32> {
        if r.is_nil() || !self.repeated(t.kid, r) {
            return Some(self.node(t.kid, r));
        }
        let base = self.touch_start[t.txn as usize] as usize;
        let at = self.touches_of(t.txn).iter().position(|x| x.kid == t.kid)?;
        let writer = self.read_writer.get(base + at).copied().flatten();
        self.read_node(t.kid, r, writer)
    }

    /// The node of value `v` of key `kid` (`nil`: the initial version), of
    /// a value written at most once.
    fn node(&self, kid: u32, v: Val) -> u32 {
        let start = self.key_start[kid as usize];
        if v.is_nil() {
            return start;
        }
        let vals = &self.node_val[start as usize + 1..self.key_start[kid as usize + 1] as usize];
        let i = vals.binary_search(&v).expect("version node");
        start + 1 + i as u32
    }

    /// The version a touch leaves the key at, when a later transaction
    /// follows it (Elle: an `:ok` transaction's external write, else its
    /// external read; an `:info` one's external write).
    fn final_version(&self, t: &Touch) -> Option<u32> {
        let (r, w) = (self.read_val(&t.ext), self.write_val(&t.ext));
        match (self.status(t.txn), w.filter(|v| !v.is_nil()), r) {
            (Status::Committed, Some(w), _) => Some(self.write_node(t.kid, w, t.txn)),
            (Status::Committed, None, Some(r)) => self.ext_read_node(t, r),
            (Status::Committed, None, None) => Some(self.node(t.kid, Val::NIL)),
            (Status::Indeterminate, _, _) => Some(self.write_node(t.kid, w?, t.txn)),
            (Status::Aborted, _, _) => None,
        }
    }

    /// The version a touch first sees (Elle: an `:ok` transaction's external
    /// read, else its external write; an `:info` one's external write).
    fn first_version(&self, t: &Touch) -> Option<u32> {
        let (r, w) = (self.read_val(&t.ext), self.write_val(&t.ext));
        match (self.status(t.txn), r.filter(|v| !v.is_nil()), w) {
            (Status::Committed, Some(r), _) => self.ext_read_node(t, r),
            (Status::Committed, None, Some(w)) => Some(self.write_node(t.kid, w, t.txn)),
            (Status::Committed, None, None) => Some(self.node(t.kid, Val::NIL)),
            (Status::Indeterminate, _, _) => Some(self.write_node(t.kid, w?, t.txn)),
            (Status::Aborted, _, _) => None,
        }
    }

    /// Whether a source of version order besides the initial state is
    /// merged into the version graph ([`Rr::version_graph`]).
    fn order_sources(&self, opts: &InferOptions) -> bool {
        !self.h.commit_order.is_empty()
            || opts.wfr_keys
            || opts.sequential_keys
            || opts.linearizable_keys
    }

    /// Merges the sources of version order in Elle's order; returns the
    /// edges of the merged graph and the `:cyclic-versions` anomalies of the
    /// sources that were left out.
    fn version_graph(&self, opts: &InferOptions) -> (Vec<(u32, u32)>, Vec<Anomaly>) {
        let n = self.node_val.len();
        // :initial-state: nil precedes every value.
        let mut edges: Vec<(u32, u32)> = (0..n as u32)
            .filter(|&v| self.node_val[v as usize] != Val::NIL)
            .map(|v| (self.key_start[self.node_key[v as usize] as usize], v))
            .collect();
        let mut sources = vec!["initial-state"];
        let mut cyclic = Vec::new();
        let mut candidates: Vec<(&'static str, Vec<(u32, u32)>)> = Vec::new();
        if !self.h.commit_order.is_empty() {
            candidates.push(("transaction-order-keys", self.commit_order_edges()));
        }
        if opts.wfr_keys {
            candidates.push(("wfr-keys", self.wfr_edges()));
        }
        if opts.sequential_keys {
            candidates.push(("sequential-keys", self.process_edges()));
        }
        if opts.linearizable_keys {
            candidates.push(("linearizable-keys", self.realtime_edges()));
        }
        for (name, extra) in candidates {
            let mut merged = edges.clone();
            merged.extend(extra);
            merged.sort_unstable();
            merged.dedup();
            let (start, succ) = csr(n, &merged);
            let mut comps = sccs(n, &start, &succ);
            if comps.is_empty() {
                edges = merged;
                sources.push(name);
                continue;
            }
            let mut names = sources.clone();
            names.push(name);
            for c in &mut comps {
                c.sort_unstable_by_key(|&v| self.node_val[v as usize]);
            }
            comps.sort_by_key(|c| (self.node_key[c[0] as usize], self.node_val[c[0] as usize]));
            for c in comps {
                cyclic.push(Anomaly::CyclicVersions {
                    key: self.keys.keys[self.node_key[c[0] as usize] as usize],
                    scc: c.iter().map(|&v| self.node_val[v as usize]).collect(),
                    sources: names.clone(),
                });
            }
        }
        (edges, cyclic)
    }

    /// `:transaction-order-keys` (Elle 0.2.7's `:transaction-order`): each
    /// key's versions in the order the database reports committing their
    /// writers, committed or indeterminate. Writers the order does not name
    /// stay unordered (Elle sorts them first, in file order, which no
    /// database reported), and so do writers it gives one position.
    fn commit_order_edges(&self) -> Vec<(u32, u32)> {
        let order = &self.h.commit_order;
        let mut placed: Vec<(u32, i64, u32)> = Vec::new();
        for t in &self.touches {
            if self.status(t.txn) == Status::Aborted {
                continue;
            }
            if let (Some(&Some(at)), Some(w)) = (order.get(t.txn as usize), self.write_val(&t.ext))
            {
                placed.push((t.kid, at, self.write_node(t.kid, w, t.txn)));
            }
        }
        placed.sort_unstable();
        let mut out = Vec::new();
        for key in placed.chunk_by(|a, b| a.0 == b.0) {
            let groups: Vec<_> = key.chunk_by(|a, b| a.1 == b.1).collect();
            for pair in groups.windows(2) {
                for &(_, _, v1) in pair[0] {
                    crate::limits::tick();
                    out.extend(pair[1].iter().filter(|b| b.2 != v1).map(|b| (v1, b.2)));
                }
            }
        }
        out
    }

    /// `:wfr-keys`: in a committed transaction, the version it read precedes
    /// the one it wrote.
    fn wfr_edges(&self) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        for t in &self.touches {
            if self.status(t.txn) != Status::Committed {
                continue;
            }
            if let (Some(r), Some(w)) = (self.read_val(&t.ext), self.write_val(&t.ext)) {
                if let Some(a) = self.ext_read_node(t, r).filter(|_| !r.is_nil() && r != w) {
                    out.push((a, self.write_node(t.kid, w, t.txn)));
                }
            }
        }
        out
    }

    /// `:sequential-keys`: along each process's chain of committed
    /// transactions, the version one leaves a key at precedes the version the
    /// next one touching the key first sees.
    fn process_edges(&self) -> Vec<(u32, u32)> {
        let pairs = order::committed_process_edges(self.h);
        let mut next = vec![NONE; self.h.txns.len()];
        let mut has_pred = vec![false; self.h.txns.len()];
        for &(a, b) in &pairs {
            next[a as usize] = b;
            has_pred[b as usize] = true;
        }
        let mut out = Vec::new();
        let mut last: FxMap<u32, u32> = FxMap::default();
        for &(head, _) in &pairs {
            if has_pred[head as usize] {
                continue;
            }
            has_pred[head as usize] = true; // each chain once
            last.clear();
            let mut t = head;
            while t != NONE {
                for touch in self.touches_of(t) {
                    if let Some(v2) = self.first_version(touch) {
                        if let Some(&v1) = last.get(&touch.kid) {
                            if v1 != v2 {
                                out.push((v1, v2));
                            }
                        }
                    }
                    if let Some(v1) = self.final_version(touch) {
                        last.insert(touch.kid, v1);
                    }
                }
                t = next[t as usize];
            }
        }
        out
    }

    /// `:linearizable-keys`: the same along real-time order, a DAG. From each
    /// transaction touching a key, every path is followed to the first
    /// transactions touching the key again.
    fn realtime_edges(&self) -> Vec<(u32, u32)> {
        let h = self.h;
        let n = h.txns.len();
        let (start, succ) = csr(n, &order::realtime_edges(h));
        // Touches grouped by key.
        let mut by_key: Vec<u32> = (0..self.touches.len() as u32)
            .filter(|&i| self.status(self.touches[i as usize].txn) != Status::Aborted)
            .collect();
        by_key.sort_by_key(|&i| (self.touches[i as usize].kid, i));
        let invoke = |t: u32| {
            let txn = &h.txns[t as usize];
            txn.invoke.or(txn.completion).unwrap_or(0)
        };
        let complete = |t: u32| {
            let txn = &h.txns[t as usize];
            txn.completion.unwrap_or(u32::MAX)
        };
        // mark[t] == key id + 1 when t touches the key being processed,
        // with its touch in touch_of[t].
        let mut mark = vec![0u32; n];
        let mut touch_of = vec![0u32; n];
        let mut seen = vec![0u32; n];
        let mut stamp = 0u32;
        let mut stack = Vec::new();
        let mut out = Vec::new();
        for group in
            by_key.chunk_by(|&a, &b| self.touches[a as usize].kid == self.touches[b as usize].kid)
        {
            let kid = self.touches[group[0] as usize].kid;
            let mut horizon = 0;
            for &i in group {
                let t = self.touches[i as usize].txn;
                if self.first_version(&self.touches[i as usize]).is_some() {
                    mark[t as usize] = kid + 1;
                    touch_of[t as usize] = i;
                    horizon = horizon.max(invoke(t));
                }
            }
            for &i in group {
                let a = &self.touches[i as usize];
                let Some(v1) = self.final_version(a) else {
                    continue;
                };
                stamp += 1;
                stack.clear();
                stack.push(a.txn);
                while let Some(x) = stack.pop() {
                    for &y in &succ[start[x as usize] as usize..start[x as usize + 1] as usize] {
                        if seen[y as usize] == stamp {
                            continue;
                        }
                        seen[y as usize] = stamp;
                        if mark[y as usize] == kid + 1 {
                            let b = &self.touches[touch_of[y as usize] as usize];
                            if let Some(v2) = self.first_version(b) {
                                if v2 != v1 {
                                    out.push((v1, v2));
                                }
                            }
                        } else if complete(y) < horizon {
                            // Only a transaction completing before some
                            // toucher's invocation can lead to one.
                            stack.push(y);
                        }
                    }
                }
            }
        }
        out
    }

    /// wr edges: a committed transaction's external read (or later read
    /// that disagrees) of a value another transaction in the graph wrote
    /// externally.
    fn wr_deps(&self) -> Vec<(u32, Dep)> {
        let mut deps = Vec::new();
        for (t, txn) in self.h.txns.iter().enumerate() {
            if txn.status != Status::Committed {
                continue;
            }
            let touches = self.touch_start[t] as usize..self.touch_start[t + 1] as usize;
            for (touch, found) in self.touches[touches.clone()]
                .iter()
                .zip(&self.read_writer[touches])
            {
                let Some(r) = touch.ext.read else { continue };
                deps.extend(self.wr_dep(t as TxnId, touch.kid, r, *found));
            }
        }
        for r in &self.later_reads {
            deps.extend(self.wr_dep(r.txn, r.kid, r.mop, r.writer));
        }
        deps
    }

    /// The wr edge of read `r` (of key `kid`, by committed `t`) whose value
    /// `found` wrote, if another transaction in the graph wrote it
    /// externally.
    fn wr_dep(&self, t: TxnId, kid: u32, r: u32, found: Option<Write>) -> Option<(u32, Dep)> {
        let v = self.val(r);
        let w = found.filter(|w| !v.is_nil() && w.ext && w.txn != t)?;
        self.in_graph[w.txn as usize].then(|| {
            let dep = Dep {
                from: w.txn,
                to: t,
                rel: Rel::Wr,
                key: self.keys.keys[kid as usize],
                value: Version::Val(v),
                value2: Version::Val(v),
                a_mop: w.mop,
                b_mop: r,
            };
            (w.first, dep)
        })
    }

    /// The version nodes with their writers and committed readers
    /// (external reads and later ones that disagree), as the constraints
    /// keep them.
    fn versions(&self) -> Versions {
        // (node, read): reads numbered touches first, then later reads.
        let mut reads: Vec<(u32, u32)> = Vec::new();
        for (i, t) in self.touches.iter().enumerate() {
            if self.status(t.txn) == Status::Committed {
                let writer = self.read_writer[i];
                if let Some(v) = self.read_val(&t.ext) {
                    reads.extend(self.read_node(t.kid, v, writer).map(|n| (n, i as u32)));
                }
            }
        }
        let later = self.touches.len() as u32;
        for (i, r) in self.later_reads.iter().enumerate() {
            let node = self.read_node(r.kid, self.val(r.mop), r.writer);
            reads.extend(node.filter(|_| !r.ambiguous).map(|n| (n, later + i as u32)));
        }
        let (start, touches) = csr(self.node_val.len(), &reads);
        drop(reads);
        let reader = |ri: &u32| match ri.checked_sub(later) {
            Some(i) => {
                let r = &self.later_reads[i as usize];
                Reader {
                    txn: r.txn,
                    mop: r.mop,
                }
            }
            None => {
                let touch = &self.touches[*ri as usize];
                let mop = touch.ext.read.expect("external read");
                Reader {
                    txn: touch.txn,
                    mop,
                }
            }
        };
        let mut versions = Versions::default();
        for v in 0..self.node_val.len() {
            let writer = self.writer(v as u32).map_or(Writer::NONE, |w| Writer {
                txn: w.txn,
                mop: w.mop,
                first: w.first,
            });
            let key = self.keys.keys[self.node_key[v] as usize];
            let range = start[v] as usize..start[v + 1] as usize;
            versions.push(
                key,
                self.version(v as u32),
                writer,
                touches[range].iter().map(reader),
            );
        }
        versions
    }

    /// The external write in the graph that produced a version node.
    fn writer(&self, node: u32) -> Option<Write> {
        self.node_writer[node as usize]
    }

    fn lookup_writer(&self, node: u32) -> Option<Write> {
        let v = self.node_val[node as usize];
        if v.is_nil() {
            return None;
        }
        let key = self.keys.keys[self.node_key[node as usize] as usize];
        let txn = self.node_txn[node as usize];
        let w = match txn {
            NONE => *self.writes.get(&pack(key, v))?,
            _ => *self
                .repeats_of(pack(key, v))?
                .iter()
                .find(|w| w.txn == txn && w.ext)?,
        };
        (w.ext && self.in_graph[w.txn as usize]).then_some(w)
    }

    fn version(&self, node: u32) -> Version {
        match self.node_val[node as usize] {
            v if v.is_nil() => Version::Init,
            v => Version::Val(v),
        }
    }

    /// What the version graph leaves open. In every model that forbids G1c,
    /// a committed transaction that read version `a` of a key and wrote `b`
    /// installed `b` after `a` (else `b`'s ww edge closes a cycle with the
    /// wr edge of `a`): those edges are returned as implied. Pairs of
    /// written versions that the version graph and the implied edges leave
    /// unordered become constraints, added to `co` (without it, only
    /// whether there is one is found); with `chains`, pairs of
    /// read-modify-write chains ([`Links`]). Also whether any chain was
    /// longer than one version, and whether there is a constraint.
    fn uncertainty(
        &self,
        edges: &[(u32, u32)],
        versions: &Versions,
        chains: bool,
        mut co: Option<&mut Coalescer>,
    ) -> (Vec<Dep>, bool, bool) {
        let known: FxSet<(u32, u32)> = edges.iter().copied().collect();
        let mut by_key = self.version_edges_by_key(edges);
        let mut implied = Vec::new();
        let mut links = Links::new(if chains { self.node_val.len() } else { 0 });
        for t in &self.touches {
            let Some((a, b)) = self.read_then_write(t) else {
                continue;
            };
            by_key[t.kid as usize].push((a, b));
            if !known.contains(&(a, b)) {
                implied.extend(versions.precedes_keyed(a, b));
            }
            if chains && self.writer(b).is_some_and(|x| x.txn == t.txn) {
                links.add(a, b);
            }
        }
        let (mut chained, mut open) = (false, false);
        for (kid, key_edges) in by_key.iter_mut().enumerate() {
            let (c, o) = self.key_constraints(kid, key_edges, versions, &links, co.as_deref_mut());
            chained |= c;
            open |= o;
        }
        dedupe(&mut implied);
        let implied = implied.into_iter().map(|(_, d)| d).collect();
        // An ambiguous read's writer is open too.
        (implied, chained, open || !self.ambiguous.is_empty())
    }

    /// Per key, the edges between its written versions that every model
    /// forbidding G1c has: the version graph's, and from the version a
    /// committed transaction read to the one it then wrote.
    fn key_edges(&self, edges: &[(u32, u32)]) -> Vec<Vec<(u32, u32)>> {
        let mut by_key = self.version_edges_by_key(edges);
        for t in &self.touches {
            if let Some((a, b)) = self.read_then_write(t) {
                by_key[t.kid as usize].push((a, b));
            }
        }
        by_key
    }

    /// Per key, the version graph's edges between its written versions.
    fn version_edges_by_key(&self, edges: &[(u32, u32)]) -> Vec<Vec<(u32, u32)>> {
        let mut by_key: Vec<Vec<(u32, u32)>> = vec![Vec::new(); self.keys.len()];
        for &(a, b) in edges {
            if !self.node_val[a as usize].is_nil() {
                by_key[self.node_key[a as usize] as usize].push((a, b));
            }
        }
        by_key
    }

    /// A committed touch's external read's version and the version it then
    /// wrote, when it read one someone in the graph wrote and wrote another.
    fn read_then_write(&self, t: &Touch) -> Option<(u32, u32)> {
        if self.status(t.txn) != Status::Committed {
            return None;
        }
        let (r, w) = (self.read_val(&t.ext)?, self.write_val(&t.ext)?);
        if r.is_nil() {
            return None;
        }
        let a = self.ext_read_node(t, r)?;
        let b = self.write_node(t.kid, w, t.txn);
        (a != b && self.writer(a).is_some()).then_some((a, b))
    }

    /// The writer choices of the ambiguous reads, added to `constraints`
    /// (whose order constraints are built) with their clauses. Per read:
    /// one `Kind::ReadFrom` per possible writer (its wr edge, and rw to the
    /// writers of the versions known to follow that an edge leads to: the
    /// next version, when known to follow, is one of them, and the rest
    /// follow it by ww), one of which holds; and per version of unknown
    /// order relative to a possible writer's (it may be the next one), a
    /// `Kind::Guard` for the rw edge to its writer, made to hold (a clause
    /// per such writer) when the reader chose that writer and its version
    /// comes first. A direct rw edge to a later version closes no cycle
    /// that the path through the next one does not.
    fn choices(&self, edges: &[(u32, u32)], constraints: &mut Constraints) {
        if self.ambiguous.is_empty() {
            return;
        }
        let orders = constraints.orders();
        let mut reach = KeyReach::default();
        // Key by key, so that each key's reachability is built once.
        let mut by_key: Vec<&Ambiguous> = self.ambiguous.iter().collect();
        by_key.sort_by_key(|a| (a.kid, a.mop));
        let key_edges = self.key_edges(edges);
        for amb in by_key {
            crate::limits::tick();
            let kid = amb.kid as usize;
            let (lo, hi) = (self.key_start[kid], self.key_start[kid + 1]);
            reach.key(amb.kid, lo, hi, &key_edges[kid]);
            let one_of = self.read_choices(amb, &mut reach, &orders, constraints);
            constraints.clauses.push(&one_of);
        }
    }

    /// One ambiguous read's constraints (see [`Rr::choices`]), added to
    /// `constraints` with the guards' clauses; the clause that one of its
    /// writers is the one it read.
    fn read_choices(
        &self,
        amb: &Ambiguous,
        reach: &mut KeyReach,
        orders: &FxMap<(TxnId, TxnId), u32>,
        constraints: &mut Constraints,
    ) -> Clause {
        let v = self.val(amb.mop);
        let kid = amb.kid as usize;
        let (lo, hi) = (self.key_start[kid], self.key_start[kid + 1]);
        let writers = |n: u32| self.other_writer(n, amb).map(|w| (n, w));
        let candidates = (lo..hi).filter(|&n| self.node_val[n as usize] == v);
        let mut one_of = Vec::new();
        // Per version, the guard of the rw edge to its writer: one per
        // read, whichever candidate's version it follows.
        let mut guards: FxMap<u32, u32> = FxMap::default();
        for (a, wa) in candidates.filter_map(writers) {
            let mut deps = vec![self.choice_dep(amb, a, a, wa.mop, wa.txn, Rel::Wr)];
            let mut guarded = Vec::new();
            for (b, wb) in (lo..hi).filter(|&b| b != a).filter_map(writers) {
                let rw = self.choice_dep(amb, a, b, wb.mop, wb.txn, Rel::Rw);
                if reach.reaches(a, b) {
                    // The next version, when known to follow, is one an
                    // edge leads to straight; the rest follow it by ww.
                    if reach.direct(a, b) {
                        deps.push(rw);
                    }
                } else if !reach.reaches(b, a) {
                    let pair = (wa.txn.min(wb.txn), wa.txn.max(wb.txn));
                    // None: the key's versions closed a cycle, a G1c found
                    // without them.
                    if let Some(&order) = orders.get(&pair) {
                        guarded.push((order, u8::from(wa.txn != pair.0), b, rw));
                    }
                }
            }
            let (a, b, kind) = (wa.txn, amb.txn, Kind::ReadFrom);
            let x = constraints.push_choice(Choice { a, b, kind, deps });
            one_of.push((x, 0));
            for (order, a_first, b, rw) in guarded {
                let g = *guards.entry(b).or_insert_with(|| {
                    let (a, b, kind) = (amb.txn, rw.to, Kind::Guard);
                    constraints.push_choice(Choice {
                        a,
                        b,
                        kind,
                        deps: vec![rw],
                    })
                });
                constraints
                    .clauses
                    .push(&[(x, 1), (order, 1 - a_first), (g, 0)]);
            }
        }
        one_of
    }

    /// The writer an ambiguous read takes in the version order `written`
    /// (its key's written versions by their writers' `rank`): the last
    /// possible writer ranked before the reader, as a database reading its
    /// latest committed version would, else the first one. Its wr edge,
    /// and the rw edge to the next version's writer (none when that is the
    /// reader itself, whose own write follows what it read).
    fn witness_choice(&self, amb: &Ambiguous, written: &[(u32, u32)], rank: &[u32]) -> Vec<Dep> {
        let v = self.val(amb.mop);
        let writer = |n: u32| self.other_writer(n, amb);
        let possible = |&(_, n): &(u32, u32)| self.node_val[n as usize] == v && writer(n).is_some();
        let before = written.partition_point(|&(r, _)| r < rank[amb.txn as usize]);
        let chosen = (written[..before].iter().rposition(possible))
            .or_else(|| written.iter().position(possible));
        let Some(i) = chosen else {
            return Vec::new();
        };
        let a = written[i].1;
        let Some(wa) = writer(a) else {
            return Vec::new();
        };
        let mut deps = vec![self.choice_dep(amb, a, a, wa.mop, wa.txn, Rel::Wr)];
        if let Some(&(_, b)) = written.get(i + 1) {
            if let Some(wb) = writer(b) {
                deps.push(self.choice_dep(amb, a, b, wb.mop, wb.txn, Rel::Rw));
            }
        }
        deps
    }

    /// The writer of version node `n`, unless it is the ambiguous read's
    /// own transaction (which cannot be what it read, nor follow it).
    fn other_writer(&self, n: u32, amb: &Ambiguous) -> Option<Write> {
        self.writer(n).filter(|w| w.txn != amb.txn)
    }

    /// An edge of an ambiguous read's choice of version `a`: wr from its
    /// writer (`to` is `a` then), or rw to the writer of version `to`.
    fn choice_dep(&self, amb: &Ambiguous, a: u32, to: u32, mop: u32, txn: TxnId, rel: Rel) -> Dep {
        let (reader, writer) = (amb.txn, txn);
        let (from, to_txn, a_mop, b_mop) = match rel {
            Rel::Wr => (writer, reader, mop, amb.mop),
            _ => (reader, writer, amb.mop, mop),
        };
        Dep {
            from,
            to: to_txn,
            rel,
            key: self.keys.keys[amb.kid as usize],
            value: self.version(a),
            value2: self.version(to),
            a_mop,
            b_mop,
        }
    }

    /// The constraints of one key's unordered pairs of written versions, or
    /// of its read-modify-write chains when `links` has them, added to `co`
    /// (without it, only whether there is one is found): whether some chain
    /// had more than one version, and whether there is a constraint.
    fn key_constraints(
        &self,
        kid: usize,
        edges: &mut [(u32, u32)],
        versions: &Versions,
        links: &Links,
        co: Option<&mut Coalescer>,
    ) -> (bool, bool) {
        let (lo, hi) = (self.key_start[kid], self.key_start[kid + 1]);
        let writers: Vec<u32> = (lo..hi).filter(|&v| self.writer(v).is_some()).collect();
        let chains = links.chains(&writers);
        let chained = chains.len() < writers.len();
        if chains.len() < 2 {
            return (chained, false);
        }
        for e in edges.iter_mut() {
            *e = (e.0 - lo, e.1 - lo);
        }
        let local: Vec<(u32, u32)> = chains.iter().map(|&(f, l)| (f - lo, l - lo)).collect();
        // A cycle here is a wr cycle, a G1c the cycle search reports: no
        // model that needs these constraints can hold.
        let first_only = co.is_none();
        let Some(pairs) = unordered_pairs((hi - lo) as usize, edges, &local, first_only) else {
            return (false, false);
        };
        let Some(co) = co else {
            return (chained, !pairs.is_empty());
        };
        // A version an ambiguous read may have read is not unread.
        let unread = |(first, last): (u32, u32)| {
            self.ambiguous.is_empty() && first == last && !versions.read(first)
        };
        for (i, j) in pairs {
            crate::limits::tick();
            let (x, y) = (chains[i as usize], chains[j as usize]);
            if let (Some(tx), Some(ty)) = (self.writer(x.0), self.writer(y.0)) {
                co.add(tx.txn, ty.txn, [x, y], unread(x) && unread(y));
            }
        }
        (chained, true)
    }
}

/// Read-modify-write links between version nodes: `a → b` when the
/// transaction that installed `b` read `a`, and no other transaction that
/// read `a` wrote the key. In every model whose graph has rw edges `b`
/// directly follows `a` in the version order: a write `x` between them
/// would close `T →rw x →ww T` (G-single) with `b`'s writer `T`. A chain of
/// links is then contiguous, and the order of two chains is that of their
/// ends: one constraint per pair of chains replaces one per pair of
/// versions (exact in those models only; read committed gets none).
struct Links {
    next: Vec<u32>,
    prev: Vec<u32>,
}

/// A version with links to (or from) more than one other.
const MANY: u32 = NONE - 1;

impl Links {
    /// No links among `nodes` version nodes (none at all: chains off).
    fn new(nodes: usize) -> Links {
        Links {
            next: vec![NONE; nodes],
            prev: vec![NONE; nodes],
        }
    }

    fn add(&mut self, a: u32, b: u32) {
        let mark = |slot: &mut u32, v: u32| *slot = if *slot == NONE { v } else { MANY };
        mark(&mut self.next[a as usize], b);
        mark(&mut self.prev[b as usize], a);
    }

    /// The version `a` links to, if the link is unique both ways.
    fn after(&self, a: u32) -> Option<u32> {
        let b = *self.next.get(a as usize)?;
        (b < MANY && self.prev[b as usize] == a).then_some(b)
    }

    /// The chains `writers` (version nodes of one key, each written by a
    /// transaction in the graph) form, as (first, last) versions: one per
    /// writer no unique link leads to. A link always joins two writers.
    fn chains(&self, writers: &[u32]) -> Vec<(u32, u32)> {
        let linked_to = |v: u32| {
            let p = self.prev.get(v as usize).copied().unwrap_or(NONE);
            p < MANY && self.after(p) == Some(v)
        };
        writers
            .iter()
            .filter(|&&v| !linked_to(v))
            .map(|&first| {
                let mut last = first;
                while let Some(b) = self.after(last) {
                    last = b;
                }
                (first, last)
            })
            .collect()
    }
}

/// Which of one key's versions reach which along its certain edges, asked
/// of the key whose ambiguous reads are being made choices of: one search
/// per version asked about.
#[derive(Default)]
struct KeyReach {
    kid: u32,
    lo: u32,
    start: Vec<u32>,
    succ: Vec<u32>,
    /// Per version of the key (from `lo`), the versions it reaches, once
    /// asked.
    from: FxMap<u32, Vec<bool>>,
}

impl KeyReach {
    /// Makes key `kid` (versions `lo..hi`, `edges` between them) current.
    fn key(&mut self, kid: u32, lo: u32, hi: u32, edges: &[(u32, u32)]) {
        if !self.start.is_empty() && self.kid == kid {
            return;
        }
        let local: Vec<(u32, u32)> = edges.iter().map(|&(a, b)| (a - lo, b - lo)).collect();
        (self.start, self.succ) = csr((hi - lo) as usize, &local);
        (self.kid, self.lo) = (kid, lo);
        self.from.clear();
    }

    /// Whether an edge leads from version `a` to version `b` (both of the
    /// current key).
    fn direct(&self, a: u32, b: u32) -> bool {
        let x = (a - self.lo) as usize;
        self.succ[self.start[x] as usize..self.start[x + 1] as usize].contains(&(b - self.lo))
    }

    /// Whether version `a` reaches version `b` (both of the current key).
    fn reaches(&mut self, a: u32, b: u32) -> bool {
        let (start, succ, lo) = (&self.start, &self.succ, self.lo);
        let seen = self.from.entry(a).or_insert_with(|| {
            let n = start.len() - 1;
            let mut seen = vec![false; n];
            let mut stack = vec![a - lo];
            while let Some(x) = stack.pop() {
                for &y in &succ[start[x as usize] as usize..start[x as usize + 1] as usize] {
                    if !seen[y as usize] {
                        seen[y as usize] = true;
                        stack.push(y);
                    }
                }
            }
            seen
        });
        seen[(b - lo) as usize]
    }
}

/// ww and rw edges (ww alone without `rw`) for every edge v1 → v2 of the
/// version graph.
fn version_deps(edges: &[(u32, u32)], versions: &Versions, deps: &mut Vec<(u32, Dep)>, rw: bool) {
    for &(a, b) in edges {
        match rw {
            true => deps.extend(versions.precedes_keyed(a, b)),
            false => deps.extend(versions.overwrites_keyed(a, b)),
        }
    }
}
