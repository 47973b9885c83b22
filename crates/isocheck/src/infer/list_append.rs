//! list-append inference (SPEC §2.2).
//!
//! Per key, the version order is the longest committed read with repeated
//! elements dropped (or `[v]` when the key has exactly one append outside
//! aborted transactions, as Elle does). Every dependency follows from it:
//! wr from the appender of a read's last element, ww between the appenders of
//! consecutive elements, rw from the readers of a version to the appender of
//! the next; appends no committed read shows come after the last element
//! shown, unordered among themselves.
//!
//! The work is linear: one pass indexes appends, one compares each committed
//! read with the longest read of its key (a slice comparison), one emits the
//! edges transaction by transaction.

use super::anomaly::{Anomaly, Expected};
use super::uncertain::{Coalescer, Constraints, Versions, Writer};
use super::util::{pack, scalar, FxMap, KeyIds, OpKind, TxnKeys};
use super::{Dep, Inference, Rel, Version};
use crate::history::{History, MicroOp, MopKind, MopValue, OpId, Status, TxnId, Val};
use crate::progress::Unit;
use std::collections::hash_map::Entry;

const NONE: u32 = u32::MAX;
/// Lost-update class of a `nil` read (a read of `[]` is class 0).
const NIL_READ: u64 = u64::MAX;
/// Lost-update classes of reads that are not a prefix of the longest read.
const ODD_READ: u64 = 1 << 40;

/// An append.
#[derive(Clone, Copy)]
struct Append {
    txn: TxnId,
    mop: u32,
    kid: u32,
    /// Position of the element in its key's version order (`NONE`: unobserved).
    pos: u32,
    /// The transaction's last append to the key (else an intermediate one).
    last: bool,
    /// Its place among the transaction's appends to the key, from 0: a
    /// read shows a transaction's appends from its first, in order.
    nth: u32,
    /// Some committed read contains the element.
    observed: bool,
    /// The element and the transaction's status, kept here: the passes
    /// over reads would otherwise look each up at random in the history.
    elem: Val,
    status: Status,
}

/// What we know of one key.
#[derive(Clone, Copy)]
struct KeyInfo {
    /// The first longest non-empty committed read, its length, and where
    /// its list starts (read there: reads of the key look at it at random).
    longest: u32,
    longest_len: u32,
    longest_start: u32,
    /// The transaction of that read.
    longest_txn: TxnId,
    /// The same over the reads of every transaction (Elle's dirty-update
    /// order includes aborted and indeterminate reads).
    longest_any: u32,
    longest_any_len: u32,
    /// Appends of committed and indeterminate transactions; `single` is the
    /// last one seen.
    live_appends: u32,
    single: Val,
    aborted_appends: u32,
    /// Some committed read is not a prefix of the longest one.
    incompatible: bool,
    /// The version order: `order[order_start..order_start + order_len]`.
    order_start: u32,
    order_len: u32,
    /// The first position of the longest read repeating an earlier element.
    first_dup: u32,
    /// The first position of the longest read holding a transaction's
    /// append that is not its last to the key, followed by another
    /// transaction's element: a state on top of an intermediate one.
    first_cut: u32,
    /// Positions of the longest read whose element an aborted transaction
    /// appended, or nobody did: `bad[bad_start..bad_start + bad_len]`.
    bad_start: u32,
    bad_len: u32,
}

impl KeyInfo {
    fn new() -> KeyInfo {
        KeyInfo {
            longest: NONE,
            longest_len: 0,
            longest_start: 0,
            longest_txn: NONE,
            longest_any: NONE,
            longest_any_len: 0,
            live_appends: 0,
            single: Val::NIL,
            aborted_appends: 0,
            incompatible: false,
            order_start: 0,
            order_len: 0,
            first_dup: NONE,
            first_cut: NONE,
            bad_start: 0,
            bad_len: 0,
        }
    }

    /// Elle infers `[v]` for a key with a single append, whatever was read.
    fn single_append(&self) -> bool {
        self.live_appends == 1
    }
}

/// A read micro-op's list; `None` for `nil` (and `[:r k]`).
fn read_list<'h>(h: &'h History, m: &MicroOp) -> Option<&'h [Val]> {
    match m.value() {
        MopValue::List { start, len } => Some(h.list(start, len)),
        MopValue::Val(_) => None,
    }
}

/// The first longest committed read of a key (empty if none).
fn longest_read<'h>(h: &'h History, info: &KeyInfo) -> &'h [Val] {
    match info.longest {
        NONE => &[],
        _ => h.list(info.longest_start, info.longest_len),
    }
}

/// The state of a key inside one transaction, for `:internal` (Elle's
/// expected list: unknown, `nil`, a known list, or a known suffix).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Int {
    Absent,
    /// The list is the read at this micro-op (a read of `nil` is the empty
    /// list, as Elle 0.2.7 reads it: "Detect internal anomalies like [:r
    /// nil] [:r 1]") followed by the transaction's appends since `since`.
    Known(u32),
    /// Only the appends since `since` are known.
    Suffix,
}

struct KeyState {
    kid: u32,
    int: Int,
    /// Position in the transaction from which appends extend the expected list.
    since: u32,
    read_seen: bool,
    /// First read of the key: lost-update class and micro-op.
    lu_read: Option<(u64, u32)>,
    lu_written: bool,
}

/// A committed read of a version of a key (numbered as [`La::readers`]
/// says).
#[derive(Clone, Copy)]
struct VersionRead {
    version: u32,
    reader: TxnId,
    mop: u32,
}

/// A wr dependency in 12 bytes: the reader, its read micro-op and the id of
/// the append it read last.
#[derive(Clone, Copy)]
struct WrRead {
    reader: TxnId,
    mop: u32,
    append: u32,
}

/// A committed transaction that read a version of a key first and then
/// appended to it: two of the same key and read class are a lost update.
/// Sorted by its fields in order, which groups them by (key, class).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct ReadThenAppend {
    kid: u32,
    /// The lost-update class of the first read (see [`NIL_READ`], [`ODD_READ`]).
    class: u64,
    /// The transaction's op, which orders a group as the file does.
    op: OpId,
    txn: TxnId,
    /// The first read of the key (a global micro-op index).
    read_mop: u32,
}

struct La<'h> {
    h: &'h History,
    keys: KeyIds,
    info: Vec<KeyInfo>,
    appends: Vec<Append>,
    /// Appends by key and element.
    append_id: FxMap<u64, u32>,
    /// Per micro-op of a transaction: its append's id for an append, its
    /// key's id for a read.
    mop_ref: Vec<u32>,
    /// Version orders of all keys, concatenated, with the append of each
    /// element (`NONE` for an element nobody appended).
    order: Vec<Val>,
    order_append: Vec<u32>,
    /// Per position of `order`: the nearest position at or before it whose
    /// element a transaction in the graph appended (`NONE`: none).
    installed: Vec<u32>,
    /// Positions in the order of elements nobody appended.
    garbage_pos: FxMap<u64, u32>,
    /// (position in the longest read, aborted appender or `NONE` for nobody).
    bad: Vec<(u32, TxnId)>,
    in_graph: Vec<bool>,
    /// Key `k`'s versions are numbered from `order_start + k`: its initial
    /// state, then the one each element of its order creates.
    readers: Vec<VersionRead>,
    /// The readers of each version: `reader_list[reader_start[v]..reader_start[v + 1]]`.
    reader_start: Vec<u32>,
    reader_list: Vec<(TxnId, u32)>,
    /// wr dependencies, grouped by reader in transaction order: 12 bytes
    /// each rather than a [`Dep`]'s 32 until [`La::wr_dep`] rebuilds them.
    wr: Vec<WrRead>,
    lost: Vec<ReadThenAppend>,
    odd_classes: FxMap<(u32, Vec<Val>), u64>,
    g1a: Vec<Anomaly>,
    g1b: Vec<Anomaly>,
    internal: Vec<Anomaly>,
    own_unseen: Vec<Anomaly>,
    future: Vec<Anomaly>,
    duplicates: Vec<Anomaly>,
    garbage: Vec<Anomaly>,
}

/// Infers the dependencies, anomalies and constraints of a list-append
/// history.
pub fn infer(h: &History) -> Inference {
    let (mut inference, pending) = infer_deferred(h);
    inference.constraints = pending.constraints();
    inference
}

/// As [`infer`], but the constraints are left to the [`Pending`], which
/// builds them when a model needs them ([`Inference::open`] says whether
/// there are any): a model shown to hold by one version order
/// (`check::uncertain`'s witness) never needs them.
pub fn infer_deferred(h: &History) -> (Inference, Pending) {
    let mut la = La {
        h,
        keys: KeyIds::default(),
        info: Vec::new(),
        appends: Vec::new(),
        append_id: FxMap::default(),
        mop_ref: vec![NONE; h.mops.len()],
        order: Vec::new(),
        order_append: Vec::new(),
        installed: Vec::new(),
        garbage_pos: FxMap::default(),
        bad: Vec::new(),
        in_graph: vec![false; h.txns.len()],
        readers: Vec::new(),
        reader_start: Vec::new(),
        reader_list: Vec::new(),
        wr: Vec::new(),
        lost: Vec::new(),
        odd_classes: FxMap::default(),
        g1a: Vec::new(),
        g1b: Vec::new(),
        internal: Vec::new(),
        own_unseen: Vec::new(),
        future: Vec::new(),
        duplicates: Vec::new(),
        garbage: Vec::new(),
    };
    la.index();
    la.orders();
    la.reads();
    la.mark_in_graph();
    la.mark_installed();
    let deps = la.deps();
    let incompatible = la.incompatible_orders();
    let dirty = la.dirty_updates();
    let lost = la.lost_updates();
    let by_mop = |v: &mut Vec<Anomaly>| v.sort_by_key(position);
    by_mop(&mut la.g1a);
    by_mop(&mut la.g1b);
    by_mop(&mut la.internal);
    by_mop(&mut la.own_unseen);
    by_mop(&mut la.future);
    by_mop(&mut la.duplicates);
    by_mop(&mut la.garbage);
    let mut anomalies = Vec::new();
    anomalies.append(&mut la.g1a);
    anomalies.append(&mut la.g1b);
    anomalies.append(&mut la.internal);
    anomalies.append(&mut la.own_unseen);
    anomalies.append(&mut la.future);
    anomalies.extend(dirty);
    anomalies.append(&mut la.duplicates);
    anomalies.extend(incompatible);
    anomalies.extend(lost);
    anomalies.append(&mut la.garbage);
    la.release_lookups();
    let pending = la.pending();
    let inference = Inference {
        deps,
        anomalies,
        in_graph: la.in_graph,
        implied: Vec::new(),
        open: pending.open(),
        constraints: Constraints::default(),
        chained: false,
        read_sources: Vec::new(),
        ambiguous: Vec::new(),
    };
    (inference, pending)
}

/// A list-append history's constraints before they are built: the
/// versions of its unobserved appends, by key. Nobody read them, and every
/// one already follows its key's last observed element (ww from its
/// appender, rw from its readers: [`La::append_deps`]), so their order
/// among themselves gives ww edges between them and nothing else.
pub struct Pending {
    versions: Versions,
    /// Each unobserved append's transaction and version, grouped by key,
    /// by transaction within a key.
    unobserved: Vec<(TxnId, u32)>,
    /// Group `g` (one key's) is `unobserved[groups[g]..groups[g + 1]]`.
    groups: Vec<u32>,
}

impl Pending {
    fn groups(&self) -> impl Iterator<Item = &[(TxnId, u32)]> {
        (self.groups.windows(2)).map(|g| &self.unobserved[g[0] as usize..g[1] as usize])
    }

    /// Whether some key has two unobserved appends, in an order nothing
    /// shows.
    fn open(&self) -> bool {
        self.groups().any(|g| g.len() > 1)
    }

    /// One pure-ww constraint per pair of a key's unobserved appends.
    pub fn constraints(self) -> Constraints {
        let mut co = Coalescer::default();
        for group in self.groups() {
            for (i, &(tx, nx)) in group.iter().enumerate() {
                for &(ty, ny) in &group[i + 1..] {
                    co.add(tx, ty, [(nx, nx), (ny, ny)], true);
                }
            }
        }
        co.finish(self.versions)
    }

    /// The ww edges of the version order that puts every key's unobserved
    /// appends in the order of their transactions' `rank`, each preceding
    /// the next. A pair's side in that order is a ww edge from the earlier
    /// to the later, a path of these: the graph of the known edges and
    /// these holds every edge of that resolution as a path of non-rw edges.
    pub fn adjacent_edges(&self, rank: &[u32]) -> Vec<Dep> {
        let mut out = Vec::new();
        let mut ordered: Vec<(u32, u32)> = Vec::new();
        for group in self.groups().filter(|g| g.len() > 1) {
            ordered.clear();
            ordered.extend(group.iter().map(|&(t, v)| (rank[t as usize], v)));
            ordered.sort_unstable();
            for w in ordered.windows(2) {
                crate::limits::tick();
                out.extend(
                    self.versions
                        .overwrites_keyed(w[0].1, w[1].1)
                        .map(|(_, d)| d),
                );
            }
        }
        out
    }
}

/// The micro-op an anomaly about one read sorts by.
fn position(a: &Anomaly) -> u32 {
    match a {
        Anomaly::G1a { mop, .. }
        | Anomaly::G1b { mop, .. }
        | Anomaly::Internal { mop, .. }
        | Anomaly::OwnWriteUnseen { mop, .. }
        | Anomaly::FutureRead { mop, .. }
        | Anomaly::DuplicateElements { mop, .. }
        | Anomaly::GarbageRead { mop, .. } => *mop,
        _ => 0,
    }
}

impl La<'_> {
    fn key_id(&mut self, key: Val) -> usize {
        let kid = self.keys.id(key) as usize;
        if kid == self.info.len() {
            self.info.push(KeyInfo::new());
        }
        kid
    }

    /// Indexes every append, and finds each key's longest reads.
    fn index(&mut self) {
        let h = self.h;
        let mut seen: TxnKeys<()> = TxnKeys::default();
        let mut count: TxnKeys<u32> = TxnKeys::default();
        let mut last = Vec::new();
        // Sized once: growing a map of millions of appends rehashes it
        // repeatedly, each time out of cache.
        let appends = h.mops.iter().filter(|m| m.kind == MopKind::Append).count();
        self.append_id.reserve(appends);
        self.appends.reserve(appends);
        for (t, txn) in h.txns.iter().enumerate() {
            crate::limits::tick_of(t, h.txns.len(), Unit::Transactions);
            let mops = h.mops_of(txn);
            // Which appends are the last of their key in the transaction.
            seen.clear();
            count.clear();
            last.clear();
            last.resize(mops.len(), false);
            for (j, m) in mops.iter().enumerate().rev() {
                if m.kind == MopKind::Append && seen.find(m.key).is_none() {
                    seen.slot(m.key, || ());
                    last[j] = true;
                }
            }
            for (j, m) in mops.iter().enumerate() {
                let i = txn.mops.start + j as u32;
                let kid = self.key_id(m.key);
                let info = &mut self.info[kid];
                match m.kind {
                    MopKind::Append => {
                        let e = scalar(m);
                        if txn.status == Status::Aborted {
                            info.aborted_appends += 1;
                        } else {
                            info.live_appends += 1;
                            info.single = e;
                        }
                        self.mop_ref[i as usize] = self.appends.len() as u32;
                        self.append_id
                            .insert(pack(m.key, e), self.appends.len() as u32);
                        let nth = count.slot(m.key, || 0);
                        self.appends.push(Append {
                            txn: t as TxnId,
                            mop: i,
                            kid: kid as u32,
                            pos: NONE,
                            last: last[j],
                            nth: *nth,
                            observed: false,
                            elem: e,
                            status: txn.status,
                        });
                        *nth += 1;
                    }
                    MopKind::Read => {
                        self.mop_ref[i as usize] = kid as u32;
                        let MopValue::List { start, len } = m.value() else {
                            continue;
                        };
                        if len == 0 {
                            continue;
                        }
                        if info.longest_any == NONE || len > info.longest_any_len {
                            info.longest_any = i;
                            info.longest_any_len = len;
                        }
                        if txn.status == Status::Committed
                            && (info.longest == NONE || len > info.longest_len)
                        {
                            info.longest = i;
                            info.longest_txn = t as TxnId;
                            info.longest_len = len;
                            info.longest_start = start;
                        }
                    }
                    // List-append histories have neither; the reader refuses
                    // closed-predicate's micro-ops in them.
                    MopKind::Write
                    | MopKind::Insert
                    | MopKind::Delete
                    | MopKind::PredRead
                    | MopKind::Init => self.mop_ref[i as usize] = kid as u32,
                }
            }
        }
    }

    /// The key id of micro-op `i`.
    fn kid_of(&self, i: u32, m: &MicroOp) -> u32 {
        match m.kind {
            MopKind::Append => self.appends[self.mop_ref[i as usize] as usize].kid,
            _ => self.mop_ref[i as usize],
        }
    }

    /// The append of element `e` to `key`, if any.
    fn append_of(&self, key: Val, e: Val) -> Option<Append> {
        let id = *self.append_id.get(&pack(key, e))?;
        Some(self.appends[id as usize])
    }

    /// Builds each key's version order from its longest read; marks the
    /// appends that read shows as observed.
    fn orders(&mut self) {
        let h = self.h;
        let mut distinct: FxMap<Val, ()> = FxMap::default();
        let mut shape = Shape::default();
        // The append id of each element of the longest read.
        let mut ids: Vec<Option<u32>> = Vec::new();
        for kid in 0..self.keys.len() {
            let k = self.keys.keys[kid];
            let longest = longest_read(h, &self.info[kid]);
            let single = self.info[kid].single_append();
            let order_start = self.order.len() as u32;
            let bad_start = self.bad.len() as u32;
            let mut first_dup = NONE;
            distinct.clear();
            shape.clear();
            ids.clear();
            for (j, &e) in longest.iter().enumerate() {
                let id = self.append_id.get(&pack(k, e)).copied();
                ids.push(id);
                match id {
                    Some(id) => {
                        let a = &mut self.appends[id as usize];
                        a.observed = true;
                        if a.status == Status::Aborted {
                            self.bad.push((j as u32, a.txn));
                        }
                        // A repeated element is Elle's duplicate-elements;
                        // an aborted append, G1a.
                        // The reader's own appends are internal's.
                        let live =
                            a.status != Status::Aborted && a.txn != self.info[kid].longest_txn;
                        if !single && live && a.pos == NONE && !shape.follows(a) {
                            self.bad.push((j as u32, NONE));
                        }
                    }
                    None => self.bad.push((j as u32, NONE)),
                }
                let p = self.order.len() as u32 - order_start;
                let fresh = if single {
                    distinct.insert(e, ()).is_none()
                } else if let Some(id) = id {
                    let a = &mut self.appends[id as usize];
                    let fresh = a.pos == NONE;
                    if fresh {
                        a.pos = p;
                    }
                    fresh
                } else {
                    match self.garbage_pos.entry(pack(k, e)) {
                        Entry::Vacant(v) => {
                            v.insert(p);
                            true
                        }
                        Entry::Occupied(_) => false,
                    }
                };
                if !single && fresh {
                    self.order.push(e);
                    self.order_append.push(id.unwrap_or(NONE));
                }
                if !fresh && first_dup == NONE {
                    first_dup = j as u32;
                }
            }
            if single {
                let e = self.info[kid].single;
                let id = self.append_id[&pack(k, e)];
                self.appends[id as usize].pos = 0;
                self.order.push(e);
                self.order_append.push(id);
            }
            let first_cut = self.first_cut(ids.iter().copied());
            let info = &mut self.info[kid];
            info.order_start = order_start;
            info.order_len = self.order.len() as u32 - order_start;
            info.first_dup = first_dup;
            info.first_cut = first_cut;
            info.bad_start = bad_start;
            info.bad_len = self.bad.len() as u32 - bad_start;
        }
    }

    /// One pass over the committed transactions: the anomalies of each read,
    /// wr edges, readers of each version, and the per-transaction checks
    /// (internal, future read, the reads and writes lost update needs).
    fn reads(&mut self) {
        let h = self.h;
        let mut ks: TxnKeys<KeyState> = TxnKeys::default();
        for (t, txn) in h.txns.iter().enumerate() {
            crate::limits::tick_of(t, h.txns.len(), Unit::Transactions);
            if txn.status != Status::Committed {
                continue;
            }
            let t = t as TxnId;
            let mops = h.mops_of(txn);
            ks.clear();
            let (mut internal_found, mut own_found) = (false, false);
            let mut future_found = false;
            for (j, m) in mops.iter().enumerate() {
                let i = txn.mops.start + j as u32;
                let kid = self.kid_of(i, m);
                let st = ks.slot(m.key, || KeyState {
                    kid,
                    int: Int::Absent,
                    since: 0,
                    read_seen: false,
                    lu_read: None,
                    lu_written: false,
                });
                match m.kind {
                    MopKind::Read => {
                        let l = read_list(h, m);
                        let class = self.read(t, i, kid as usize, m.key, l);
                        if !(internal_found && own_found) {
                            if let Some(expected) = internal(h, mops, j, &*st, m.key, l) {
                                if !own_found && own_unseen(mops, j, m.key, l) {
                                    own_found = true;
                                    self.own_unseen.push(Anomaly::OwnWriteUnseen {
                                        txn: t,
                                        mop: i,
                                        expected: expected.clone(),
                                    });
                                }
                                if !internal_found {
                                    internal_found = true;
                                    self.internal.push(Anomaly::Internal {
                                        txn: t,
                                        mop: i,
                                        expected,
                                    });
                                }
                            }
                        }
                        st.int = Int::Known(i);
                        st.since = j as u32 + 1;
                        st.read_seen = true;
                        st.lu_read.get_or_insert((class, i));
                    }
                    MopKind::Append => {
                        let e = scalar(m);
                        st.int = match st.int {
                            Int::Absent => {
                                st.since = j as u32;
                                Int::Suffix
                            }
                            other => other,
                        };
                        if !future_found && st.read_seen {
                            if let Some(r) = future_read(h, mops, j, m.key, e) {
                                future_found = true;
                                self.future.push(Anomaly::FutureRead {
                                    txn: t,
                                    mop: txn.mops.start + r as u32,
                                    element: e,
                                });
                            }
                        }
                        if !st.lu_written {
                            if let Some((class, r)) = st.lu_read {
                                st.lu_written = true;
                                self.lost.push(ReadThenAppend {
                                    kid: st.kid,
                                    class,
                                    op: txn.op(),
                                    txn: t,
                                    read_mop: r,
                                });
                            }
                        }
                    }
                    MopKind::Write
                    | MopKind::Insert
                    | MopKind::Delete
                    | MopKind::PredRead
                    | MopKind::Init => {}
                }
            }
        }
    }

    /// The anomalies, wr edge and reader entry of committed read `i` of
    /// transaction `t`; returns the read's lost-update class.
    fn read(&mut self, t: TxnId, i: u32, kid: usize, key: Val, l: Option<&[Val]>) -> u64 {
        let Some(l) = l.filter(|l| !l.is_empty()) else {
            let v = self.info[kid].order_start + kid as u32;
            self.readers.push(VersionRead {
                version: v,
                reader: t,
                mop: i,
            });
            return if l.is_none() { NIL_READ } else { 0 };
        };
        let info = self.info[kid];
        let longest = longest_read(self.h, &info);
        let prefix = l.len() <= longest.len() && *l == longest[..l.len()];
        let mut garbage = false;
        let class;
        if prefix {
            class = l.len() as u64;
            for b in info.bad_start..info.bad_start + info.bad_len {
                let (p, w) = self.bad[b as usize];
                if p as usize >= l.len() {
                    break;
                }
                match w {
                    NONE => garbage = true,
                    w => self.g1a.push(Anomaly::G1a {
                        reader: t,
                        mop: i,
                        writer: w,
                        element: Some(longest[p as usize]),
                    }),
                }
            }
        } else {
            if !info.single_append() {
                self.info[kid].incompatible = true;
            }
            let next = ODD_READ + self.odd_classes.len() as u64;
            class = *self
                .odd_classes
                .entry((kid as u32, l.to_vec()))
                .or_insert(next);
            let mut shape = Shape::default();
            let mut shown: FxMap<Val, ()> = FxMap::default();
            for &e in l {
                match self.append_id.get(&pack(key, e)) {
                    None => garbage = true,
                    Some(&id) => {
                        let a = &mut self.appends[id as usize];
                        a.observed = true;
                        let first = shown.insert(e, ()).is_none();
                        let live = a.status != Status::Aborted;
                        garbage |= first && live && a.txn != t && !shape.follows(a);
                        if a.status == Status::Aborted {
                            self.g1a.push(Anomaly::G1a {
                                reader: t,
                                mop: i,
                                writer: a.txn,
                                element: Some(e),
                            });
                        }
                    }
                }
            }
        }
        if garbage {
            self.garbage.push(Anomaly::GarbageRead { txn: t, mop: i });
        }
        let dup = if prefix {
            info.first_dup != NONE && l.len() > info.first_dup as usize
        } else {
            has_duplicates(l)
        };
        if dup {
            self.duplicates.push(Anomaly::DuplicateElements {
                txn: t,
                mop: i,
                duplicates: duplicates(l),
            });
        }
        let e = *l.last().expect("non-empty read");
        let id = self.id_at(&info, key, l, l.len() - 1, prefix);
        let append = id.map(|id| self.appends[id as usize]);
        self.intermediate(t, i, (&info, key), l, prefix);
        if let (Some(id), Some(a)) = (id, append) {
            if a.txn != t && a.status != Status::Aborted {
                self.wr.push(WrRead {
                    reader: t,
                    mop: i,
                    append: id,
                });
            }
        }
        let pos = match append {
            Some(a) => (a.pos != NONE).then_some(a.pos),
            None => self.garbage_pos.get(&pack(key, e)).copied(),
        };
        if let Some(p) = pos {
            let v = self.info[kid].order_start + kid as u32 + p + 1;
            self.readers.push(VersionRead {
                version: v,
                reader: t,
                mop: i,
            });
        }
        class
    }

    /// The first position of a list of a key, given its elements' append
    /// ids, whose element is not its transaction's last append to the key
    /// while the next element is another's.
    fn first_cut(&self, ids: impl Iterator<Item = Option<u32>>) -> u32 {
        let mut prev: Option<Append> = None;
        for (p, id) in ids.enumerate() {
            let b = id.map(|id| self.appends[id as usize]);
            if prev.is_some_and(|a| !a.last && b.is_none_or(|b| b.txn != a.txn)) {
                return p as u32 - 1;
            }
            prev = b;
        }
        NONE
    }

    /// The append id of element `j` of read `l` of `key`: a `prefix` of
    /// the longest read that repeats no element up to `j` has it at
    /// position `j` of the key's order (see [`La::orders`]), read there
    /// rather than looked up at random.
    fn id_at(&self, info: &KeyInfo, key: Val, l: &[Val], j: usize, prefix: bool) -> Option<u32> {
        if prefix && !info.single_append() && (j as u64) < u64::from(info.first_dup) {
            let id = self.order_append[info.order_start as usize + j];
            return (id != NONE).then_some(id);
        }
        self.append_id.get(&pack(key, l[j])).copied()
    }

    /// G1b: read `l` shows another transaction's appends up to one that is
    /// not its last to the key — followed by another transaction's element
    /// (the first such position, known for a `prefix` of the longest read),
    /// or at the end of the list before the reader's own appends (those are
    /// the reader's state, not the version it read).
    fn intermediate(&mut self, t: TxnId, i: u32, at: (&KeyInfo, Val), l: &[Val], prefix: bool) {
        let (info, key) = at;
        let cut = match prefix {
            true => info.first_cut,
            false => {
                let ids = l
                    .iter()
                    .map(|&e| self.append_id.get(&pack(key, e)).copied());
                self.first_cut(ids)
            }
        };
        let append = |j: usize| {
            let id = self.id_at(info, key, l, j, prefix);
            id.map(|id| self.appends[id as usize])
        };
        let inside = (cut as usize) < l.len().saturating_sub(1);
        let shown = match inside {
            true => Some((l[cut as usize], append(cut as usize))),
            false => (0..l.len()).rev().find_map(|j| match append(j) {
                Some(a) if a.txn == t => None,
                a => Some((l[j], a)),
            }),
        };
        if let Some((e, Some(a))) = shown {
            if !a.last && a.txn != t {
                self.g1b.push(Anomaly::G1b {
                    reader: t,
                    mop: i,
                    writer: a.txn,
                    element: Some(e),
                });
            }
        }
    }

    /// [`La::installed`], once the graph's transactions are known.
    fn mark_installed(&mut self) {
        let mut last = NONE;
        self.installed = (0..self.order.len())
            .map(|p| {
                let w = self.order_append[p];
                if self
                    .appends
                    .get(w as usize)
                    .is_some_and(|a| self.in_graph[a.txn as usize])
                {
                    last = p as u32;
                }
                last
            })
            .collect();
    }

    /// Committed transactions, and indeterminate ones a committed read observed.
    fn mark_in_graph(&mut self) {
        for (t, txn) in self.h.txns.iter().enumerate() {
            self.in_graph[t] = txn.status == Status::Committed;
        }
        for a in &self.appends {
            if a.observed && a.status == Status::Indeterminate {
                self.in_graph[a.txn as usize] = true;
            }
        }
    }

    /// All dependencies, transaction by transaction (each one's incoming
    /// edges together, so duplicates are dropped locally).
    fn deps(&mut self) -> Vec<Dep> {
        let h = self.h;
        self.group_readers();
        let mut deps = Vec::with_capacity(self.wr.len() * 3);
        let mut scratch: Vec<Dep> = Vec::new();
        let mut next_wr = 0;
        for (t, txn) in h.txns.iter().enumerate() {
            crate::limits::tick_of(t, h.txns.len(), Unit::Transactions);
            let t = t as TxnId;
            scratch.clear();
            while next_wr < self.wr.len() && self.wr[next_wr].reader == t {
                scratch.push(self.wr_dep(self.wr[next_wr]));
                next_wr += 1;
            }
            if self.in_graph[t as usize] {
                for (j, m) in h.mops_of(txn).iter().enumerate() {
                    if m.kind == MopKind::Append {
                        self.append_deps(t, txn.mops.start + j as u32, &mut scratch);
                    }
                }
            }
            if scratch.len() > 1 {
                // Elle explains an edge by the first micro-op of its target.
                scratch.sort_unstable_by_key(|d| (d.from, d.rel, d.b_mop));
                scratch.dedup_by_key(|d| (d.from, d.rel));
            }
            deps.extend_from_slice(&scratch);
        }
        // Only the anomalies and the constraints are left to find, and
        // neither needs the edges' indexes.
        self.wr = Vec::new();
        self.reader_start = Vec::new();
        self.reader_list = Vec::new();
        deps.shrink_to_fit();
        deps
    }

    /// The wr dependency of a committed read of an append's element.
    fn wr_dep(
        &self,
        WrRead {
            reader: t,
            mop: i,
            append,
        }: WrRead,
    ) -> Dep {
        let a = self.appends[append as usize];
        let e = Version::Val(a.elem);
        Dep {
            from: a.txn,
            to: t,
            rel: Rel::Wr,
            key: self.h.mops[i as usize].key,
            value: e,
            value2: e,
            a_mop: a.mop,
            b_mop: i,
        }
    }

    /// Groups the readers by version: successor lists (`graph::csr`) keep
    /// each version's reads in the order they came, so a reader's reads of a
    /// version sit together, first one first.
    fn group_readers(&mut self) {
        let versions = self.order.len() + self.keys.len();
        let reads = self.readers.iter().map(|r| (r.version, (r.reader, r.mop)));
        let (start, list) = crate::graph::csr(versions, reads);
        self.readers = Vec::new();
        self.reader_start = start;
        self.reader_list = list;
    }

    /// ww and rw edges into the appender `t` of micro-op `i`.
    fn append_deps(&self, t: TxnId, i: u32, out: &mut Vec<Dep>) {
        let a = self.appends[self.mop_ref[i as usize] as usize];
        let kid = a.kid as usize;
        let (k, e) = (self.keys.keys[kid], scalar(&self.h.mops[i as usize]));
        let info = &self.info[kid];
        // The version this append follows: its predecessor in the order, or
        // the last element shown when no read shows it.
        let prev = match a.pos {
            NONE => info.order_len,
            p => p,
        };
        let prev_version = match prev {
            0 => Version::Init,
            p => Version::Val(self.order[(info.order_start + p - 1) as usize]),
        };
        if let Some(w) = self.installed_before(info, prev) {
            if w.txn != t {
                let value = Version::Val(self.order[(info.order_start + w.pos) as usize]);
                out.push(Dep {
                    from: w.txn,
                    to: t,
                    rel: Rel::Ww,
                    key: k,
                    value,
                    value2: Version::Val(e),
                    a_mop: w.mop,
                    b_mop: i,
                });
            }
        }
        let v = (info.order_start + kid as u32 + prev) as usize;
        let readers =
            &self.reader_list[self.reader_start[v] as usize..self.reader_start[v + 1] as usize];
        let mut last_reader = NONE;
        for &(r, rm) in readers {
            // A reader's reads of one version sit together: keep its first.
            if r == last_reader {
                continue;
            }
            last_reader = r;
            if r != t {
                out.push(Dep {
                    from: r,
                    to: t,
                    rel: Rel::Rw,
                    key: k,
                    value: prev_version,
                    value2: Version::Val(e),
                    a_mop: rm,
                    b_mop: i,
                });
            }
        }
    }

    /// The append of the graph's last version before position `prev` of the
    /// key's order: aborted appends and elements nobody appended are no
    /// versions of the committed order (Elle links neighbours only, so an
    /// aborted element between two appends hides their ww edge).
    fn installed_before(&self, info: &KeyInfo, prev: u32) -> Option<Append> {
        let p = prev.checked_sub(1)?;
        let at = self.installed[(info.order_start + p) as usize];
        let installed_in_key = at != NONE && at >= info.order_start;
        installed_in_key.then(|| self.appends[self.order_append[at as usize] as usize])
    }

    /// Frees the lookups only the edges and the anomalies need, before the
    /// constraints (which need the appends) are built.
    fn release_lookups(&mut self) {
        self.append_id = FxMap::default();
        self.mop_ref = Vec::new();
        self.order = Vec::new();
        self.order_append = Vec::new();
        self.garbage_pos = FxMap::default();
        self.lost = Vec::new();
        self.odd_classes = FxMap::default();
    }

    /// The unobserved appends of a key all follow its last observed element
    /// (see [`La::append_deps`]), in an order nothing shows: the
    /// [`Pending`] that builds their constraints, one pure-ww constraint
    /// per pair of their transactions. Nobody read them, so no rw edge
    /// depends on their order.
    fn pending(&self) -> Pending {
        let mut unobserved: Vec<&Append> = self
            .appends
            .iter()
            .filter(|a| a.pos == NONE && a.last && self.in_graph[a.txn as usize])
            .collect();
        unobserved.sort_unstable_by_key(|a| (a.kid, a.txn));
        let mut versions = Versions::default();
        let mut nodes = Vec::with_capacity(unobserved.len());
        let mut groups = vec![0];
        for group in unobserved.chunk_by(|a, b| a.kid == b.kid) {
            for a in group {
                let key = self.keys.keys[a.kid as usize];
                let value = Version::Val(a.elem);
                let writer = Writer {
                    txn: a.txn,
                    mop: a.mop,
                    first: a.mop,
                };
                nodes.push((a.txn, versions.push(key, value, writer, std::iter::empty())));
            }
            groups.push(nodes.len() as u32);
        }
        Pending {
            versions,
            unobserved: nodes,
            groups,
        }
    }

    /// Elle's first violation per key: distinct committed reads sorted by
    /// length (ties by first appearance), each a prefix of the next, over
    /// the elements of appends that did not abort.
    fn incompatible_orders(&self) -> Vec<Anomaly> {
        let h = self.h;
        let bad: Vec<bool> = self.info.iter().map(|i| i.incompatible).collect();
        if !bad.contains(&true) {
            return Vec::new();
        }
        // Aborted elements are G1a's: dirty reads of appends that were
        // undone need not agree. Committed appends are never undone, so
        // reads must agree on them (read uncommitted included).
        let live = |m: &MicroOp| -> Vec<Val> {
            let l = read_list(h, m).unwrap_or(&[]);
            l.iter()
                .copied()
                .filter(|&e| {
                    self.append_of(m.key, e)
                        .is_none_or(|a| a.status != Status::Aborted)
                })
                .collect()
        };
        // (key id, the read's live elements, mop), by key and length.
        let mut reads: Vec<(u32, Vec<Val>, u32)> = Vec::new();
        for txn in h.txns.iter().filter(|t| t.status == Status::Committed) {
            for (j, m) in h.mops_of(txn).iter().enumerate() {
                let i = txn.mops.start + j as u32;
                if m.kind != MopKind::Read || !bad[self.mop_ref[i as usize] as usize] {
                    continue;
                }
                let l = live(m);
                if !l.is_empty() {
                    reads.push((self.mop_ref[i as usize], l, i));
                }
            }
        }
        reads.sort_by_key(|r| (r.0, r.1.len(), r.2));
        let mut out = Vec::new();
        for group in reads.chunk_by(|a, b| a.0 == b.0) {
            // Distinct values, in order.
            let mut values: Vec<&(u32, Vec<Val>, u32)> = Vec::new();
            for r in group {
                let seen = values
                    .iter()
                    .rev()
                    .take_while(|v| v.1.len() == r.1.len())
                    .any(|v| v.1 == r.1);
                if !seen {
                    values.push(r);
                }
            }
            if let Some(w) = values.windows(2).find(|w| !w[1].1.starts_with(&w[0].1)) {
                out.push(Anomaly::IncompatibleOrder {
                    key: self.keys.keys[group[0].0 as usize],
                    reads: [w[0].2, w[1].2],
                });
            }
        }
        out
    }

    /// Elle's dirty-update walk over each key's order, the longest read of
    /// any transaction (aborted ones included).
    fn dirty_updates(&self) -> Vec<Anomaly> {
        let h = self.h;
        let mut out = Vec::new();
        let mut distinct: FxMap<Val, ()> = FxMap::default();
        // The walk finds an update only after an aborted append it shows:
        // a key whose list shows none is passed over with a lookup per
        // element in this small set, rather than two in the history's.
        let aborted: FxMap<u64, ()> = (self.appends.iter())
            .filter(|a| a.status == Status::Aborted)
            .map(|a| (pack(self.keys.keys[a.kid as usize], a.elem), ()))
            .collect();
        for (kid, info) in self.info.iter().enumerate() {
            if info.aborted_appends == 0 || info.longest_any == NONE {
                continue;
            }
            let k = self.keys.keys[kid];
            let l = read_list(h, &h.mops[info.longest_any as usize]).unwrap_or(&[]);
            if !l.iter().any(|&e| aborted.contains_key(&pack(k, e))) {
                continue;
            }
            distinct.clear();
            // The initial state counts as committed. `values` runs from the
            // last committed or aborted append (`kind`) on; `writers` are
            // their appenders.
            let mut kind = OpKind::Ok;
            let (mut values, mut writers): (Vec<Val>, Vec<TxnId>) = (Vec::new(), Vec::new());
            for &e in l {
                if distinct.insert(e, ()).is_some() {
                    continue;
                }
                // Elle fails on an element nobody appended; we skip it.
                let Some(a) = self.append_of(k, e) else {
                    continue;
                };
                let next = OpKind::from(a.status);
                values.push(e);
                writers.push(a.txn);
                match (kind, next) {
                    (_, OpKind::Info) | (OpKind::Fail, OpKind::Fail) => continue,
                    (OpKind::Fail, OpKind::Ok) => out.push(Anomaly::DirtyUpdate {
                        key: k,
                        values: std::mem::take(&mut values),
                        txns: std::mem::take(&mut writers),
                    }),
                    _ => {}
                }
                kind = next;
                values = vec![e];
                writers = vec![a.txn];
            }
        }
        out
    }

    /// Committed transactions that read the same value of a key first, and
    /// then appended to it.
    fn lost_updates(&mut self) -> Vec<Anomaly> {
        self.lost.sort_unstable();
        let mut out = Vec::new();
        for group in self
            .lost
            .chunk_by(|a, b| (a.kid, a.class) == (b.kid, b.class))
        {
            if group.len() > 1 {
                out.push(Anomaly::LostUpdate {
                    key: self.keys.keys[group[0].kid as usize],
                    read_mop: group[0].read_mop,
                    txns: group.iter().map(|g| g.txn).collect(),
                });
            }
        }
        out.sort_by_key(|a| match a {
            Anomaly::LostUpdate { read_mop, .. } => *read_mop,
            _ => 0,
        });
        out
    }
}

/// Elle's `:internal` check of the read at position `j` of a transaction's
/// micro-ops, given the key's state before it.
/// Whether a list shows each transaction's appends from its first, in
/// order: no database state holds a later append of a transaction without
/// its earlier ones, or holds them out of order (a garbage read).
#[derive(Default)]
struct Shape {
    /// Per transaction, how many of its appends the list showed so far.
    next: FxMap<TxnId, u32>,
}

impl Shape {
    fn clear(&mut self) {
        self.next.clear();
    }

    /// Records append `a`, the next element of the list: whether it is the
    /// one its transaction appended next.
    fn follows(&mut self, a: &Append) -> bool {
        let next = self.next.entry(a.txn).or_insert(0);
        let ok = *next == a.nth;
        *next = a.nth + 1;
        ok
    }
}

fn internal(
    h: &History,
    mops: &[MicroOp],
    j: usize,
    st: &KeyState,
    key: Val,
    read: Option<&[Val]>,
) -> Option<Expected> {
    let appended = || {
        mops[st.since as usize..j]
            .iter()
            .filter(move |m| m.kind == MopKind::Append && m.key == key)
            .map(scalar)
    };
    match st.int {
        Int::Absent => None,
        Int::Known(base) => {
            let base = read_list(h, &h.mops[base as usize]).unwrap_or(&[]);
            let l = read.unwrap_or(&[]);
            let ok = l.len() == base.len() + appended().count()
                && l[..base.len()] == *base
                && l[base.len()..].iter().copied().eq(appended());
            (!ok).then(|| Expected::List {
                prefix_known: true,
                elems: base.iter().copied().chain(appended()).collect(),
            })
        }
        Int::Suffix => {
            let n = appended().count();
            let l = read.unwrap_or(&[]);
            let ok = l.len() >= n && l[l.len() - n..].iter().copied().eq(appended());
            (!ok).then(|| Expected::List {
                prefix_known: false,
                elems: appended().collect(),
            })
        }
    }
}

/// Whether read `l` (at position `j`) misses the transaction's own appends
/// to `key` before it: they must end the list, in order.
fn own_unseen(mops: &[MicroOp], j: usize, key: Val, l: Option<&[Val]>) -> bool {
    let own: Vec<Val> = mops[..j]
        .iter()
        .filter(|m| m.kind == MopKind::Append && m.key == key)
        .map(scalar)
        .collect();
    let l = l.unwrap_or(&[]);
    !own.is_empty() && !l.ends_with(&own)
}

/// The first read before position `j` of the transaction that shows the
/// element `e` it appends at `j`.
fn future_read(h: &History, mops: &[MicroOp], j: usize, key: Val, e: Val) -> Option<usize> {
    mops[..j].iter().position(|m| {
        m.kind == MopKind::Read && m.key == key && read_list(h, m).is_some_and(|l| l.contains(&e))
    })
}

fn has_duplicates(l: &[Val]) -> bool {
    let mut seen: FxMap<Val, ()> = FxMap::default();
    l.iter().any(|&e| seen.insert(e, ()).is_some())
}

/// Elements read more than once, with their counts, sorted.
fn duplicates(l: &[Val]) -> Vec<(Val, u32)> {
    let mut sorted = l.to_vec();
    sorted.sort_unstable();
    sorted
        .chunk_by(|a, b| a == b)
        .filter(|c| c.len() > 1)
        .map(|c| (c[0], c.len() as u32))
        .collect()
}
