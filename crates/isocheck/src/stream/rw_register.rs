//! The streaming rw-register check: an rw-register history's ops taken
//! once, in order, on the graph, orders and window of [`Core`], with the
//! edges a stream knows for certain.
//!
//! A register's version order is not shown by its reads, as a list's is:
//! only the initial version (`nil`) is known to precede every write. So
//! the stream has the wr edges (a read of `v` from the one transaction
//! that wrote it), the rw edges of reads of `nil` (to every transaction
//! that wrote the key, before or after), and the process and real-time
//! orders, and finds every cycle they close as it closes, with `G1a`,
//! `G1b`, `internal`, `future-read`, `garbage-read` and `lost-update` as
//! their reads show them. Every finding is certain: no version order
//! removes it. What it cannot do is say `valid`: the ww and rw edges of
//! the other versions depend on an order only the whole history can
//! settle (the offline check searches every order it allows). So with no
//! finding its answer is unknown, `version-orders`, and the caller that
//! held the input checks it whole.
//!
//! With commit timestamps (`--transaction-order timestamps`), each key's
//! version order is its committed writers' in timestamp order, as the
//! offline check takes it: a version placed gets ww edges to and from its
//! neighbours and rw edges from the readers of the one before, so the
//! stream decides, and says `valid`, unless a version it needs has no
//! place (a crashed writer read, a committed writer with no timestamp, two
//! writes at one timestamp, a value written twice, `nil` written): then
//! unknown, `version-orders`.
//!
//! A value written to a key by two transactions names neither: its later
//! reads give no edge. A read made before the second writer was invoked is
//! taken from the first: a read cannot return a value not yet written.
//! The offline check takes it from either (the definition's reads-from
//! knows no time), so there the two may differ. A key to which `nil` is written keeps the reads of `nil`
//! made before that write as reads of the initial version, and takes no
//! later ones. Reads after the transaction's own first micro-op of the key
//! give no edge (an `internal` one is found as such).
//!
//! A key keeps its writers and its readers of `nil` until it retires (no op
//! touched it for half the window), so memory grows with the writes to a
//! key that is never quiet.

use super::core::{
    core_accessors, pending, read_while_under_way, retire_all, settle, take, Core, Ending, Finding,
    Keys, Options, Outcome, Tx, Unknown, Write, RW, WR, WW,
};
use crate::history::{MicroOp, MopKind, MopValue, Op, Val};
use crate::infer::util::FxMap;
use std::collections::{BTreeMap, VecDeque};
use std::ops::{Bound, Deref, DerefMut};

/// The versions of a key in use kept however old (see
/// [`RwRegisterCheck::prune`]): enough that a read of a recent one finds
/// its writer after the window retired it.
const KEPT: usize = 64;

/// A key as a reason names it.
fn name(key: Val) -> String {
    match key.as_small_int() {
        Some(k) => format!("key {k}"),
        None => "a key".to_string(),
    }
}

/// The transaction that wrote one value of one key.
#[derive(Clone, Copy)]
struct Writer {
    write: Write,
    /// Another transaction wrote the value too: reads of it name neither.
    twice: bool,
    /// Its commit timestamp, once placed in the key's version order.
    placed: Option<i64>,
}

impl Deref for Writer {
    type Target = Write;
    fn deref(&self) -> &Write {
        &self.write
    }
}

impl DerefMut for Writer {
    fn deref_mut(&mut self) -> &mut Write {
        &mut self.write
    }
}

/// One key: who wrote it, who read its initial version.
#[derive(Default)]
struct Key {
    /// The values written to it, in the order of invocation.
    values: VecDeque<Val>,
    /// The transactions that wrote it and did not abort.
    writers: VecDeque<Tx>,
    /// Old versions the window retired from a key still in use: a read of
    /// one, or of `nil`, or a version placed before them, needs what is
    /// gone.
    pruned: bool,
    /// With commit timestamps, the latest timestamp pruned.
    pruned_stamp: i64,
    /// Committed transactions that read its initial version: each has an
    /// rw edge to every writer.
    nil_readers: Vec<Tx>,
    /// `nil` was written to it: a later read of `nil` may be of that write.
    nil_written: bool,
    /// Per version read (its value), the first committed transaction that
    /// read it first and then wrote the key (`i64::MIN` once a second did:
    /// lost update, reported).
    lost: FxMap<Val, i64>,
    /// With commit timestamps: the versions placed, by timestamp.
    order: BTreeMap<i64, (Val, Tx)>,
    /// With commit timestamps: the committed readers of each version
    /// (but the initial one's, `nil_readers`).
    readers: FxMap<Val, Vec<Tx>>,
}

/// A transaction invoked and not yet completed.
struct Invoked {
    tx: Tx,
    /// Its writes, `(key, value)`, but of `nil`.
    writes: Vec<(Val, Val)>,
}

/// The streaming check of one rw-register history.
pub struct RwRegisterCheck {
    core: Core,
    /// Commit timestamps give each key's version order.
    stamped: bool,
    /// With commit timestamps, the first version the stream could not
    /// place, and why: the answer cannot be `valid` then.
    unplaced: Option<Unknown>,
    invoked: FxMap<i64, Invoked>,
    writers: FxMap<(Val, Val), Writer>,
    keys: FxMap<Val, Key>,
}

impl RwRegisterCheck {
    /// A check under `options`; `stamped` when each committed
    /// transaction's commit timestamp gives its writes' place in their
    /// keys' version orders (as `--transaction-order timestamps` does for
    /// the offline check).
    pub fn new(options: Options, stamped: bool) -> RwRegisterCheck {
        RwRegisterCheck {
            core: Core::new(options),
            stamped,
            unplaced: None,
            invoked: FxMap::default(),
            writers: FxMap::default(),
            keys: FxMap::default(),
        }
    }

    /// Takes one op, with its micro-ops (a read's value is its scalar)
    /// and the commit timestamp its completion carries, if any.
    pub fn op(&mut self, op: &Op, txn: &[MicroOp], stamp: Option<i64>) {
        take(self, op, txn, |check, process| {
            check.commit(process, txn, stamp)
        });
    }

    core_accessors!();

    /// Ends the stream. With no finding, the answer is unknown: the
    /// version orders are open, but with commit timestamps that placed
    /// every version read or written.
    pub fn finish(mut self) -> Ending {
        retire_all(&mut self);
        let open = match self.stamped {
            true => self.unplaced.take(),
            false => Some(Unknown {
                keyword: "version-orders",
                reason: "a register's reads do not show its version order, which only the \
                         whole history settles"
                    .to_string(),
                op: i64::MIN,
            }),
        };
        let mut ending = self.core.ending();
        ending.unknown = ending.unknown.or(open);
        ending
    }

    /// Notes that `tx` wrote `v` to `key`, its last write of the key if
    /// `last`.
    fn wrote(&mut self, tx: Tx, key: Val, v: Val, last: bool) {
        use std::collections::hash_map::Entry;
        match self.writers.entry((key, v)) {
            Entry::Vacant(e) => {
                e.insert(Writer {
                    write: Write::new(tx, last),
                    twice: false,
                    placed: None,
                });
                self.key(key).values.push_back(v);
            }
            Entry::Occupied(mut e) => {
                let w = e.get_mut();
                match w.tx.node == tx.node {
                    true => w.last = last,
                    false => w.twice = true,
                }
                self.unplace(format!("two transactions write one value to {}", name(key)));
            }
        }
    }

    /// Notes that an op touched `key`; false (and the answer unknown) if
    /// the window retired it.
    fn touch(&mut self, key: Val) -> bool {
        if !self.core.touch(key) {
            return false;
        }
        self.keys.entry(key).or_default();
        true
    }

    /// `key`'s state (made by [`Self::touch`] if not yet).
    fn key(&mut self, key: Val) -> &mut Key {
        self.keys.entry(key).or_default()
    }

    fn commit(&mut self, process: i64, txn: &[MicroOp], stamp: Option<i64>) {
        let Some(t) = self.invoked.remove(&process) else {
            return;
        };
        settle(
            &mut self.writers,
            &t.writes,
            t.tx,
            Outcome::Committed,
            self.core.seq,
        );
        let tx = self.core.commit(process, t.tx);
        if self.stamped {
            self.place_writes(tx, txn, stamp);
        }
        for &(key, _) in &t.writes {
            self.prune(key);
        }
        if !internally_consistent(txn) {
            self.core.found("internal", tx.index);
        }
        if self.future_read(tx, txn) {
            self.core.found("future-read", tx.index);
        }
        for (i, m) in txn.iter().enumerate() {
            let (MopKind::Read, MopValue::Val(v)) = (m.kind, m.value()) else {
                continue;
            };
            // Only a key's first micro-op reads others' state for certain.
            let first = !txn[..i].iter().any(|n| n.key == m.key);
            if !first || !self.touch(m.key) {
                continue;
            }
            let certain = self.read(tx, m.key, v);
            let writes = (txn[i + 1..].iter()).any(|n| n.kind == MopKind::Write && n.key == m.key);
            if certain && writes {
                self.read_then_wrote(tx.index, m.key, v);
            }
        }
    }

    /// A committed transaction `tx`'s read of `v` from `key`, the key's
    /// first micro-op in it. Whether the read names the version it read.
    fn read(&mut self, tx: Tx, key: Val, v: Val) -> bool {
        if v.is_nil() {
            let k = self.key(key);
            if k.nil_written {
                return false;
            }
            if k.pruned {
                let why = format!(
                    "it reads nil from {}, whose old writers the window retired",
                    name(key)
                );
                self.core.lost(why);
                return false;
            }
            k.nil_readers.push(tx);
            let writers = k.writers.clone();
            // (Every writer of the key follows the initial version, in
            // any order.)
            for w in writers {
                self.core.link(tx, w, RW);
            }
            return true;
        }
        let Some(w) = self.writers.get_mut(&(key, v)) else {
            match self.keys.get(&key).is_some_and(|k| k.pruned) {
                true => self.core.lost(format!(
                    "it reads a version of {} the window retired",
                    name(key)
                )),
                false => self.core.found("garbage-read", tx.index),
            }
            return false;
        };
        if w.twice || w.tx.node == tx.node {
            return false;
        }
        if w.read_by == i64::MIN {
            w.read_by = tx.index;
        }
        let w = *w;
        match w.outcome {
            Outcome::Aborted => self.core.found("G1a", tx.index),
            _ if !w.last => self.core.found("G1b", tx.index),
            _ => {}
        }
        if w.outcome != Outcome::Aborted {
            self.core.link(w.tx, tx, WR);
        }
        if self.stamped {
            // A crashed writer's version has no place; a pending one gets
            // it if it commits (and, read, is unplaced if it crashes).
            if w.placed.is_none() && w.outcome == Outcome::Indeterminate {
                self.unplace("a crashed transaction's write was read".to_string());
            }
            self.read_placed(tx, key, v, w.placed);
        }
        true
    }

    /// With commit timestamps: places each key's last write of committed
    /// `tx` at `stamp` in the key's version order.
    fn place_writes(&mut self, tx: Tx, txn: &[MicroOp], stamp: Option<i64>) {
        for (i, m) in txn.iter().enumerate() {
            let (MopKind::Write, MopValue::Val(v)) = (m.kind, m.value()) else {
                continue;
            };
            let later = (txn[i + 1..].iter()).any(|n| n.kind == MopKind::Write && n.key == m.key);
            let ours = (self.writers.get(&(m.key, v))).is_some_and(|w| w.tx.node == tx.node);
            if later || !ours {
                continue;
            }
            match stamp {
                Some(stamp) => self.place(m.key, v, tx, stamp),
                None => {
                    let why = format!("transaction {} commits with no timestamp", tx.index);
                    self.unplace(why);
                }
            }
        }
    }

    /// Places version `v` of `key`, written by `tx`, at commit timestamp
    /// `stamp`, between the versions before and after it: ww edges to and
    /// from their writers, rw edges from the readers of the version before
    /// and from its own readers to the writer of the one after. Edges a
    /// version placed later between two would replace stay: the path
    /// through it has them already.
    fn place(&mut self, key: Val, v: Val, tx: Tx, stamp: i64) {
        if self.writers.get(&(key, v)).is_some_and(|w| w.twice) {
            return;
        }
        let k = self.key(key);
        if k.pruned && stamp <= k.pruned_stamp {
            let why = format!(
                "it commits a write to {} before versions the window retired",
                name(key)
            );
            self.core.lost(why);
            return;
        }
        if k.order.contains_key(&stamp) {
            let why = format!("two writes to {} commit at timestamp {stamp}", name(key));
            self.unplace(why);
            return;
        }
        let before = k.order.range(..stamp).next_back().map(|(_, &p)| p);
        let after = k.order.range(stamp..).next().map(|(_, &p)| p);
        k.order.insert(stamp, (v, tx));
        let before_readers = match before {
            Some((pv, _)) => k.readers.get(&pv).cloned().unwrap_or_default(),
            None => k.nil_readers.clone(),
        };
        let own_readers = k.readers.get(&v).cloned().unwrap_or_default();
        if let Some(w) = self.writers.get_mut(&(key, v)) {
            w.placed = Some(stamp);
        }
        if let Some((_, p)) = before {
            self.core.link(p, tx, WW);
        }
        for r in before_readers {
            self.core.link(r, tx, RW);
        }
        if let Some((_, n)) = after {
            self.core.link(tx, n, WW);
            for r in own_readers {
                self.core.link(r, n, RW);
            }
        }
    }

    /// With commit timestamps: `tx` read version `v` of `key`, placed at
    /// `placed` if it is: an rw edge to the writer of the version after.
    fn read_placed(&mut self, tx: Tx, key: Val, v: Val, placed: Option<i64>) {
        let k = self.key(key);
        k.readers.entry(v).or_default().push(tx);
        let after = |at| (Bound::Excluded(at), Bound::Unbounded);
        let next = placed.and_then(|at| k.order.range(after(at)).next().map(|(_, &(_, n))| n));
        if let Some(n) = next {
            self.core.link(tx, n, RW);
        }
    }

    /// Whether a committed transaction read the value `(key, v)`.
    fn was_read(&self, (key, v): (Val, Val)) -> bool {
        let w = self.writers.get(&(key, v));
        w.is_some_and(|w| w.read_by != i64::MIN)
    }

    /// With commit timestamps, a version the stream cannot place: the
    /// answer cannot be `valid`.
    fn unplace(&mut self, reason: String) {
        if self.stamped && self.unplaced.is_none() {
            self.unplaced = Some(Unknown {
                keyword: "version-orders",
                reason,
                op: self.core.at,
            });
        }
    }

    /// Whether a read of `tx` shows a value that `tx` writes to the key
    /// only later, and no other transaction wrote (Elle's future read).
    fn future_read(&self, tx: Tx, txn: &[MicroOp]) -> bool {
        txn.iter().enumerate().any(|(i, r)| {
            let (MopKind::Read, MopValue::Val(v)) = (r.kind, r.value()) else {
                return false;
            };
            let writes =
                |m: &MicroOp| m.kind == MopKind::Write && m.key == r.key && m.value() == r.value();
            let ours =
                (self.writers.get(&(r.key, v))).is_some_and(|w| w.tx.node == tx.node && !w.twice);
            ours && !txn[..i].iter().any(writes) && txn[i + 1..].iter().any(writes)
        })
    }

    /// Notes that transaction `index` read version `v` of `key` first and
    /// then wrote it: the second to do so is a lost update.
    fn read_then_wrote(&mut self, index: i64, key: Val, v: Val) {
        if let Some(k) = self.keys.get_mut(&key) {
            self.core.read_then_wrote(&mut k.lost, v, index);
        }
    }

    /// Drops the oldest versions of a key in use whose writers the window
    /// retired (committed or crashed), once it holds more than [`KEPT`]:
    /// a key written all the time never goes quiet, and its state would
    /// grow with the history. What needed them later makes the answer
    /// unknown (see `pruned`). Readers of `nil` go too, under real time,
    /// once retired: a later writer began after they completed, so their
    /// edge to it is real time's.
    fn prune(&mut self, key: Val) {
        let Some(k) = self.keys.get(&key) else {
            return;
        };
        if k.values.len() <= KEPT {
            return;
        }
        let gone = |w: &Writer| w.outcome != Outcome::Pending && !self.core.is_live(w.tx);
        let mut dropped = Vec::new();
        for &v in k.values.iter().take(k.values.len() - KEPT) {
            match self.writers.get(&(key, v)) {
                Some(w) if !gone(w) => break,
                w => dropped.push((v, w.and_then(|w| w.placed))),
            }
        }
        let realtime = self.core.options.realtime;
        let live = |t: &Tx| self.core.is_live(*t);
        let keep_writers = k.writers.iter().position(&live).unwrap_or(k.writers.len());
        let keep_readers: Vec<Tx> = match realtime {
            true => k.nil_readers.iter().copied().filter(live).collect(),
            false => k.nil_readers.clone(),
        };
        if dropped.is_empty() {
            return;
        }
        let Some(k) = self.keys.get_mut(&key) else {
            return;
        };
        k.pruned = true;
        k.nil_readers = keep_readers;
        k.writers.drain(..keep_writers);
        for (v, placed) in dropped {
            k.values.pop_front();
            k.readers.remove(&v);
            k.lost.remove(&v);
            if let Some(at) = placed {
                k.order.remove(&at);
                k.pruned_stamp = k.pruned_stamp.max(at);
            }
            self.writers.remove(&(key, v));
        }
    }
}

/// Whether each read of a transaction shows what its earlier micro-ops of
/// the key say it must: the value it last wrote or read.
fn internally_consistent(txn: &[MicroOp]) -> bool {
    let mut state: FxMap<Val, Val> = FxMap::default();
    for m in txn {
        let MopValue::Val(v) = m.value() else {
            continue;
        };
        match m.kind {
            MopKind::Write => drop(state.insert(m.key, v)),
            MopKind::Read => match state.insert(m.key, v) {
                Some(was) if was != v => return false,
                _ => {}
            },
            _ => {}
        }
    }
    true
}

impl Keys for RwRegisterCheck {
    fn core(&mut self) -> &mut Core {
        &mut self.core
    }

    fn keys_held(&self) -> Vec<Val> {
        self.keys.keys().copied().collect()
    }

    fn invoke(&mut self, process: i64, index: i64, txn: &[MicroOp]) {
        let tx = self.core.invoke(index);
        let mut writes = Vec::new();
        for (i, m) in txn.iter().enumerate() {
            let (MopKind::Write, MopValue::Val(v)) = (m.kind, m.value()) else {
                continue;
            };
            if !self.touch(m.key) {
                continue;
            }
            if v.is_nil() {
                self.key(m.key).nil_written = true;
                self.unplace(format!("nil is written to {}", name(m.key)));
                continue;
            }
            let last = !(txn[i + 1..].iter()).any(|n| n.kind == MopKind::Write && n.key == m.key);
            self.wrote(tx, m.key, v, last);
            writes.push((m.key, v));
        }
        // Each key once, however often it wrote it.
        let mut keys: Vec<Val> = writes.iter().map(|&(k, _)| k).collect();
        keys.sort_unstable_by_key(|k| k.raw());
        keys.dedup();
        for key in keys {
            let k = self.key(key);
            k.writers.push_back(tx);
            let readers = k.nil_readers.clone();
            for r in readers {
                self.core.link(r, tx, RW);
            }
        }
        self.invoked.insert(process, Invoked { tx, writes });
    }

    /// An aborted or indeterminate completion.
    fn end(&mut self, process: i64, outcome: Outcome) {
        let Some(t) = self.invoked.remove(&process) else {
            return;
        };
        settle(&mut self.writers, &t.writes, t.tx, outcome, u64::MAX);
        if outcome != Outcome::Aborted {
            // Unread, it can go last in each key's order, where it closes
            // no cycle: it has no edge out.
            let read = (t.writes.iter()).any(|kv| self.was_read(*kv));
            if read {
                self.unplace("a crashed transaction's write was read".to_string());
            }
            return;
        }
        if let Some(op) = read_while_under_way(&self.writers, &t.writes, t.tx) {
            self.core.found("G1a", op);
        }
        for &(key, _) in &t.writes {
            if let Some(k) = self.keys.get_mut(&key) {
                k.writers.retain(|w| w.node != t.tx.node);
            }
        }
        self.core.abort(t.tx);
    }

    /// Retires `key`: its state goes. Not (but at the end) while one of its
    /// writers may still abort, which a read of it would make `G1a`: it
    /// waits its next turn.
    fn retire_key(&mut self, key: Val, end: bool) {
        let writers = &self.writers;
        let pending = |k: &Key| pending(writers, key, k.values.iter());
        let Some(k) = self.core.retiring(&mut self.keys, key, end, pending) else {
            return;
        };
        for v in k.values {
            self.writers.remove(&(key, v));
        }
    }
}
