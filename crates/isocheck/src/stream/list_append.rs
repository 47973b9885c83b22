//! The streaming list-append check: see the module above.

use super::core::{
    core_accessors, pending, read_while_under_way, retire_all, settle, take, About, Core, Ending,
    Finding, Keys, Options, Outcome, Tx, Unknown, Write, RW, WR, WW,
};
use crate::history::{MicroOp, MopKind, MopValue, Op, Val};
use crate::infer::util::FxMap;
use std::ops::{Deref, DerefMut};

/// The appender of one element of one key.
#[derive(Clone, Copy)]
struct Appender {
    write: Write,
    /// Some read showed the element.
    observed: bool,
    /// The element has its place in the key's order.
    placed: bool,
}

impl Deref for Appender {
    type Target = Write;
    fn deref(&self) -> &Write {
        &self.write
    }
}

impl DerefMut for Appender {
    fn deref_mut(&mut self) -> &mut Write {
        &mut self.write
    }
}

/// One key's version order so far, who waits for its next element, and
/// what was appended to it.
#[derive(Default)]
struct Key {
    order: Vec<Val>,
    /// Committed transactions that read all of `order`: each has an rw edge
    /// to the appender of the element that comes next.
    waiting: Vec<Tx>,
    /// Every element appended to it, in the order of invocation.
    appended: Vec<Val>,
    /// Per version read (its length, `u64::MAX` for `nil`), the first
    /// committed transaction that read it first and then appended to the
    /// key (`i64::MIN` once a second did: lost update, reported).
    lost: FxMap<u64, i64>,
    /// Where the order first repeats an element, if it does.
    first_dup: Option<usize>,
}

/// A transaction invoked and not yet completed.
struct Invoked {
    tx: Tx,
    /// Its appends, `(key, element)`.
    appends: Vec<(Val, Val)>,
}

/// The streaming check of one list-append history.
pub struct StreamCheck {
    core: Core,
    invoked: FxMap<i64, Invoked>,
    appenders: FxMap<(Val, Val), Appender>,
    keys: FxMap<Val, Key>,
}

impl StreamCheck {
    /// A check under `options`.
    pub fn new(options: Options) -> StreamCheck {
        StreamCheck {
            core: Core::new(options),
            invoked: FxMap::default(),
            appenders: FxMap::default(),
            keys: FxMap::default(),
        }
    }

    /// Takes one op, with its micro-ops and `read(mop)`, the elements a
    /// read returned.
    pub fn op<'a>(&mut self, op: &Op, txn: &[MicroOp], read: impl Fn(&MicroOp) -> &'a [Val]) {
        take(self, op, txn, |check, process| {
            check.commit(process, txn, read)
        });
    }

    core_accessors!();

    /// Ends the stream: appends no read showed follow the last element
    /// shown. What the stream says.
    pub fn finish(mut self) -> Ending {
        retire_all(&mut self);
        self.core.ending()
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

    fn commit<'a>(&mut self, process: i64, txn: &[MicroOp], read: impl Fn(&MicroOp) -> &'a [Val]) {
        let Some(t) = self.invoked.remove(&process) else {
            return;
        };
        settle(
            &mut self.appenders,
            &t.appends,
            t.tx,
            Outcome::Committed,
            self.core.seq,
        );
        let tx = self.core.commit(process, t.tx);
        if !internally_consistent(txn, &read) {
            self.core.found("internal", tx.index);
        }
        if future_read(txn, &read) {
            self.core.found("future-read", tx.index);
        }
        for (i, m) in txn.iter().enumerate() {
            // Reads before the transaction's own appends to the key see
            // others' state.
            let own_before = txn[..i]
                .iter()
                .any(|n| n.key == m.key && n.kind == MopKind::Append);
            if m.kind == MopKind::Read && self.touch(m.key) {
                let fits = self.read(tx, m.key, read(m), !own_before);
                if fits && read_then_append(txn, i) {
                    let version = match m.value() {
                        MopValue::List { len, .. } => u64::from(len),
                        MopValue::Val(_) => u64::MAX,
                    };
                    self.read_then_appended(tx.index, m.key, version);
                }
            }
        }
    }

    /// Notes that transaction `index` read `version` of `key` first and
    /// then appended to it: the second to do so is a lost update.
    fn read_then_appended(&mut self, index: i64, key: Val, version: u64) {
        if let Some(k) = self.keys.get_mut(&key) {
            self.core.read_then_wrote(&mut k.lost, version, index);
        }
    }

    /// A committed transaction `tx`'s read of `key`, the list `l`:
    /// `external` when before its own appends to the key (a read after them
    /// shows the order, but says nothing of what others' state it saw).
    /// Whether the read fits the key's order.
    fn read(&mut self, tx: Tx, key: Val, l: &[Val], external: bool) -> bool {
        if let Some(&e) = l.last().filter(|_| external) {
            match self.appenders.get(&(key, e)).copied() {
                None => self.core.found("garbage-read", tx.index),
                Some(a) if a.outcome == Outcome::Aborted => {}
                Some(a) => {
                    if !a.last && a.tx.node != tx.node {
                        self.core.found("G1b", tx.index);
                    }
                    self.core.link(a.tx, tx, WR);
                }
            }
        }
        let mut aborted = false;
        for e in l {
            if let Some(a) = self.appenders.get_mut(&(key, *e)) {
                a.observed = true;
                aborted |= a.outcome == Outcome::Aborted;
                if external && a.read_by == i64::MIN {
                    a.read_by = tx.index;
                }
            }
        }
        if aborted && external {
            self.core.found("G1a", tx.index);
        }
        let k = self.keys.entry(key).or_default();
        let n = k.order.len().min(l.len());
        if k.order[..n] != l[..n] {
            self.core.found("incompatible-order", tx.index);
            return false;
        }
        // A read that fits the order repeats an element if that part of
        // the order does.
        let mut dup = k.first_dup.is_some_and(|d| d < l.len());
        if l.len() < k.order.len() {
            let next = k.order[l.len()];
            if dup {
                self.core.found("duplicate-elements", tx.index);
            }
            if let Some(a) = (self.appenders.get(&(key, next)).copied()).filter(|_| external) {
                self.core.link(tx, a.tx, RW);
            }
            return true;
        }
        let old = k.order.len();
        k.order.extend_from_slice(&l[old..]);
        // Those who read all of the order before wait no longer: the
        // element after theirs is known.
        let now: Vec<Tx> = external.then_some(tx).into_iter().collect();
        let waiting = match l.len() > old {
            true => std::mem::replace(&mut k.waiting, now),
            false => {
                k.waiting.extend(now);
                Vec::new()
            }
        };
        for i in old..l.len() {
            let Some(a) = self.appenders.get_mut(&(key, l[i])) else {
                continue;
            };
            if std::mem::replace(&mut a.placed, true) {
                dup = true;
                if let Some(k) = self.keys.get_mut(&key) {
                    k.first_dup.get_or_insert(i);
                }
            }
            let a = *a;
            if i > 0 {
                if let Some(p) = self.appenders.get(&(key, l[i - 1])).copied() {
                    self.core.link(p.tx, a.tx, WW);
                }
            }
            if i == old {
                for &r in &waiting {
                    self.core.link(r, a.tx, RW);
                }
            }
        }
        if dup {
            self.core.found("duplicate-elements", tx.index);
        }
        true
    }

    /// Elle's dirty updates in a retiring key's `order` (every outcome
    /// known by then): an aborted append followed, past indeterminate ones,
    /// by a committed one. The initial state counts as committed.
    fn dirty_updates(&mut self, key: Val, order: &[Val]) {
        let mut seen: FxMap<Val, ()> = FxMap::default();
        let mut kind = Outcome::Committed;
        let mut writers: Vec<i64> = Vec::new();
        for &e in order {
            let Some(a) = self.appenders.get(&(key, e)).copied() else {
                continue;
            };
            if seen.insert(e, ()).is_some() {
                continue;
            }
            let next = match a.outcome {
                Outcome::Pending => Outcome::Indeterminate,
                o => o,
            };
            writers.push(a.tx.index);
            match (kind, next) {
                (_, Outcome::Indeterminate) | (Outcome::Aborted, Outcome::Aborted) => continue,
                (Outcome::Aborted, Outcome::Committed) => self.core.findings.push(Finding {
                    name: "dirty-update".to_string(),
                    at: self.core.at,
                    what: About::Txns(std::mem::take(&mut writers)),
                }),
                _ => {}
            }
            kind = next;
            writers = vec![a.tx.index];
        }
    }
}

/// Whether the read at `i` is the transaction's first of its key, and an
/// append to the key follows it (Elle's lost update is two such of one
/// version).
fn read_then_append(txn: &[MicroOp], i: usize) -> bool {
    let key = txn[i].key;
    let first = !(txn[..i].iter()).any(|m| m.key == key && m.kind == MopKind::Read);
    first && (txn[i + 1..].iter()).any(|m| m.key == key && m.kind == MopKind::Append)
}

/// Whether a read of the transaction shows an element that the
/// transaction appends only later (Elle's future read).
fn future_read<'a>(txn: &[MicroOp], read: &impl Fn(&MicroOp) -> &'a [Val]) -> bool {
    txn.iter().enumerate().any(|(j, m)| {
        let (MopKind::Append, MopValue::Val(e)) = (m.kind, m.value()) else {
            return false;
        };
        (txn[..j].iter()).any(|r| r.kind == MopKind::Read && r.key == m.key && read(r).contains(&e))
    })
}

/// Whether each read of a transaction shows what the transaction's
/// earlier reads and appends of the key say it must: the list the last
/// read returned with the appends since at its end (when nothing was read
/// before, the appends since the start end it).
fn internally_consistent<'a>(txn: &[MicroOp], read: &impl Fn(&MicroOp) -> &'a [Val]) -> bool {
    // Per key, the last read's list (if any) and the appends since.
    let mut seen: FxMap<Val, (Option<&'a [Val]>, Vec<Val>)> = FxMap::default();
    for m in txn {
        let (last, since) = seen.entry(m.key).or_default();
        match (m.kind, m.value()) {
            (MopKind::Append, MopValue::Val(e)) => since.push(e),
            (MopKind::Read, _) => {
                let l = read(m);
                let fits = match last {
                    Some(prev) => l.len() == prev.len() + since.len() && l.starts_with(prev),
                    None => true,
                };
                if !fits || !l.ends_with(since) {
                    return false;
                }
                *last = Some(l);
                since.clear();
            }
            _ => {}
        }
    }
    true
}

impl Keys for StreamCheck {
    fn core(&mut self) -> &mut Core {
        &mut self.core
    }

    fn keys_held(&self) -> Vec<Val> {
        self.keys.keys().copied().collect()
    }

    fn invoke(&mut self, process: i64, index: i64, txn: &[MicroOp]) {
        let tx = self.core.invoke(index);
        let mut appends = Vec::new();
        for (i, m) in txn.iter().enumerate() {
            let (MopKind::Append, MopValue::Val(e)) = (m.kind, m.value()) else {
                continue;
            };
            if !self.touch(m.key) {
                continue;
            }
            let later = txn[i + 1..]
                .iter()
                .any(|n| n.kind == MopKind::Append && n.key == m.key);
            let appender = Appender {
                write: Write::new(tx, !later),
                observed: false,
                placed: false,
            };
            if let std::collections::hash_map::Entry::Vacant(v) = self.appenders.entry((m.key, e)) {
                v.insert(appender);
                if let Some(k) = self.keys.get_mut(&m.key) {
                    k.appended.push(e);
                }
            }
            appends.push((m.key, e));
        }
        self.invoked.insert(process, Invoked { tx, appends });
    }

    /// An aborted or indeterminate completion.
    fn end(&mut self, process: i64, outcome: Outcome) {
        let Some(t) = self.invoked.remove(&process) else {
            return;
        };
        settle(&mut self.appenders, &t.appends, t.tx, outcome, u64::MAX);
        if outcome == Outcome::Aborted {
            // A read of one of its appends, made while it was under way.
            if let Some(op) = read_while_under_way(&self.appenders, &t.appends, t.tx) {
                self.core.found("G1a", op);
            }
            self.core.abort(t.tx);
        }
    }

    /// Retires `key`: appends no read showed follow the last element shown
    /// (they get a ww edge from its appender and an rw edge from its
    /// readers), and the key's state goes. Not (but at the `end`) while
    /// one of those appends may still abort: it waits its next turn.
    fn retire_key(&mut self, key: Val, end: bool) {
        let appenders = &self.appenders;
        let pending = |k: &Key| pending(appenders, key, k.appended.iter());
        let Some(k) = self.core.retiring(&mut self.keys, key, end, pending) else {
            return;
        };
        self.dirty_updates(key, &k.order);
        let last = k.order.last().and_then(|&e| self.appenders.get(&(key, e)));
        let last = last.map(|a| a.tx);
        for e in &k.appended {
            let Some(a) = self.appenders.remove(&(key, *e)) else {
                continue;
            };
            if a.observed || a.outcome == Outcome::Aborted {
                continue;
            }
            if let Some(p) = last {
                self.core.link(p, a.tx, WW);
            }
            for &r in &k.waiting {
                self.core.link(r, a.tx, RW);
            }
        }
    }
}
