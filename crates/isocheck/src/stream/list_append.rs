//! The streaming list-append check: see the module above.

use crate::graph::online_dag::{CycleEdge, NodeId, OnlineDag, Refused};
use crate::history::{MicroOp, MopKind, MopValue, Op, OpType, Process, Val};
use crate::infer::util::FxMap;
use roaring::RoaringBitmap;
use std::collections::VecDeque;

/// Edge labels say what the path an edge stands for is made of, so that
/// the edge a retirement adds in place of two (their composition,
/// [`compose`]) names a cycle through it as the cycle through the retired
/// transaction is named. The two low bits count rw edges (3: two or more).
const RW: u32 = 1;
const RW_COUNT: u32 = 3;
const WR: u32 = 1 << 2;
const WW: u32 = 1 << 3;
const REALTIME: u32 = 1 << 4;
const PROCESS: u32 = 1 << 5;

/// The label of a path made of paths labelled `a` and `b`.
fn compose(a: u32, b: u32) -> u32 {
    ((a & RW_COUNT) + (b & RW_COUNT)).min(2) | ((a | b) & !RW_COUNT)
}

/// Elle's name of a cycle whose edges compose to `label`; `nonadjacent`
/// when no two of its rw edges are next to each other.
fn cycle_name(label: u32, nonadjacent: bool) -> String {
    let base = match label & RW_COUNT {
        0 if label & WR == 0 => "G0",
        0 => "G1c",
        1 => "G-single-item",
        _ if nonadjacent => "G-nonadjacent-item",
        _ => "G2-item",
    };
    let suffix = if label & REALTIME != 0 {
        "-realtime"
    } else if label & PROCESS != 0 {
        "-process"
    } else {
        ""
    };
    format!("{base}{suffix}")
}

/// Something the stream showed that the model forbids, found while the op
/// with `:index` `at` was taken (`at` is `i64::MIN` for a finding made at
/// the end of the stream, from appends no read showed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// What it is, as Elle names it.
    pub name: String,
    /// The op that showed it.
    pub at: i64,
    /// What it is about.
    pub what: About,
}

/// What a [`Finding`] is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum About {
    /// A dependency cycle through these transactions' `:index`es (their
    /// invocations'), in the cycle's order.
    Cycle(Vec<i64>),
    /// Transactions (their invocations' `:index`es) that together show it:
    /// a lost update's two that read one version of a key and appended to
    /// it; a dirty update's appenders, from the aborted one to the
    /// committed one after it.
    Txns(Vec<i64>),
    /// A read (the `:index` of its transaction's invocation) of an element
    /// an aborted transaction appended (`G1a`), of one a transaction
    /// appended before its last append to the key (`G1b`), of an element
    /// nobody appended (`garbage-read`), not a prefix of the key's longest
    /// read nor extending it (`incompatible-order`), or a transaction whose
    /// reads disagree with its own earlier reads and appends (`internal`).
    Read(i64),
    /// A Jepsen checker's read (the `:index` of its completion), with
    /// what is wrong with it in words: a counter's read out of bounds, a
    /// bank's read breaking a rule (`stream::checkers`).
    ReadValue {
        /// The read's completion's `:index`.
        op: i64,
        /// What is wrong, in words.
        detail: String,
    },
    /// Elements a set's last read lost or showed unexpected.
    Elements {
        /// The read's completion's `:index`.
        read: i64,
        /// How many.
        count: usize,
        /// The first few, as EDN text, sorted.
        first: Vec<String>,
    },
}

/// How a [`StreamCheck`] checks.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Real-time order: strict serializability.
    pub realtime: bool,
    /// Process order: strong session serializability (real time implies
    /// it, and takes no process edges).
    pub process_order: bool,
    /// Transactions (counted by invocation) after which a transaction is
    /// retired, and a key untouched for as long. A later op that would
    /// need what was retired makes the answer unknown ([`Unknown`]), never
    /// a wrong verdict. `u64::MAX`: nothing is retired by count.
    pub window: u64,
    /// The same window in time: nanoseconds of ops' `:time` after which a
    /// transaction is retired (whichever of the two comes first).
    /// `i64::MAX`: nothing is retired by time.
    pub window_nanos: i64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            realtime: true,
            process_order: false,
            window: u64::MAX,
            window_nanos: i64::MAX,
        }
    }
}

impl Options {
    /// Whether anything is ever retired.
    fn retires(&self) -> bool {
        self.window != u64::MAX || self.window_nanos != i64::MAX
    }
}

/// Why a stream's answer is unknown: the first op that needed something
/// the window had retired.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unknown {
    /// Why, in a sentence.
    pub reason: String,
    /// The op's `:index`.
    pub op: i64,
}

/// What a finished stream says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ending {
    /// Every finding, in the order found (those [`StreamCheck::drain`]
    /// took not included).
    pub findings: Vec<Finding>,
    /// Set when a later op needed something retired: with no finding, the
    /// answer is unknown rather than valid.
    pub unknown: Option<Unknown>,
    /// Transactions taken.
    pub txns: u64,
    /// Transactions retired on the way.
    pub retired: u64,
}

/// What became of an appending transaction.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Pending,
    Committed,
    Aborted,
    Indeterminate,
}

/// A transaction as the edges it takes part in see it: its node, its
/// invocation's `:index`, and when (in ops taken) it was invoked and
/// completed, so that an edge to a retired transaction can still be
/// placed in real time.
#[derive(Clone, Copy)]
struct Tx {
    node: NodeId,
    index: i64,
    invoked: u64,
    /// `u64::MAX` until it commits (and for ever if it does not).
    completed: u64,
}

/// The appender of one element of one key.
#[derive(Clone, Copy)]
struct Appender {
    tx: Tx,
    /// Its transaction's last append to the key.
    last: bool,
    outcome: Outcome,
    /// Some read showed the element.
    observed: bool,
    /// The element has its place in the key's order.
    placed: bool,
    /// The `:index` of the first committed read that showed it
    /// (`i64::MIN`: none), should the appender abort later.
    read_by: i64,
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
    /// When (in transactions invoked) an op last touched it.
    touched: u64,
    /// Where the order first repeats an element, if it does.
    first_dup: Option<usize>,
}

/// What a node stands for: a transaction's invocation `:index` and when
/// (in ops taken) it was invoked and completed, or a tick.
#[derive(Clone, Copy)]
struct Slot {
    index: i64,
    invoked: u64,
    completed: u64,
}

impl Slot {
    const TICK: Slot = Slot {
        index: i64::MIN,
        invoked: 0,
        completed: u64::MAX,
    };
}

/// A transaction invoked and not yet completed.
struct Invoked {
    tx: Tx,
    /// Its appends, `(key, element)`.
    appends: Vec<(Val, Val)>,
}

/// The streaming check of one list-append history.
pub struct StreamCheck {
    dag: OnlineDag,
    options: Options,
    /// The `:index` of the op being taken, and how many ops were taken.
    at: i64,
    seq: u64,
    /// Transactions invoked, and retired.
    txns: u64,
    retired: u64,
    unknown: Option<Unknown>,
    invoked: FxMap<i64, Invoked>,
    /// Per process, its last committed transaction.
    last: FxMap<i64, Tx>,
    /// The tick invocations link from, and the one completions since link
    /// into (made at the first).
    tick: Option<NodeId>,
    next_tick: Option<NodeId>,
    appenders: FxMap<(Val, Val), Appender>,
    keys: FxMap<Val, Key>,
    /// Keys the window retired (by [`Val::raw`]).
    retired_keys: RoaringBitmap,
    /// Per node slot, what the live node in it stands for.
    slots: Vec<Slot>,
    /// Nodes (transactions and ticks) in the order made, with the
    /// transaction count and the latest `:time` then: the window retires
    /// them from the front.
    born: VecDeque<(NodeId, u64, i64)>,
    /// The latest `:time` of an op so far (nanoseconds).
    now: i64,
    /// Keys in the order touched, with the transaction count then: a key
    /// whose last touch leaves the window's half is retired.
    touches: VecDeque<(Val, u64, i64)>,
    findings: Vec<Finding>,
}

impl StreamCheck {
    /// A check under `options`.
    pub fn new(options: Options) -> StreamCheck {
        StreamCheck {
            dag: OnlineDag::new(),
            options,
            at: i64::MIN,
            seq: 0,
            txns: 0,
            retired: 0,
            unknown: None,
            invoked: FxMap::default(),
            last: FxMap::default(),
            tick: None,
            next_tick: None,
            appenders: FxMap::default(),
            keys: FxMap::default(),
            retired_keys: RoaringBitmap::new(),
            slots: Vec::new(),
            born: VecDeque::new(),
            now: i64::MIN,
            touches: VecDeque::new(),
            findings: Vec::new(),
        }
    }

    /// Takes one op, with its micro-ops and `read(mop)`, the elements a
    /// read returned.
    pub fn op<'a>(&mut self, op: &Op, txn: &[MicroOp], read: impl Fn(&MicroOp) -> &'a [Val]) {
        let Process::Client(process) = op.process else {
            return;
        };
        self.at = op.index;
        self.seq += 1;
        if let Some(t) = op.time() {
            self.now = self.now.max(t);
        }
        match op.ty {
            OpType::Invoke => self.invoke(process, op.index, txn),
            OpType::Ok => self.commit(process, txn, read),
            OpType::Fail => self.end(process, Outcome::Aborted),
            OpType::Info => self.end(process, Outcome::Indeterminate),
        }
        self.retire_old();
    }

    /// The findings made since the last call.
    pub fn drain(&mut self) -> Vec<Finding> {
        std::mem::take(&mut self.findings)
    }

    /// How many transactions the window retired so far.
    pub fn retired(&self) -> u64 {
        self.retired
    }

    /// The first op that needed something retired, if any yet.
    pub fn unknown(&self) -> Option<&Unknown> {
        self.unknown.as_ref()
    }

    /// Ends the stream: appends no read showed follow the last element
    /// shown. What the stream says.
    pub fn finish(mut self) -> Ending {
        self.at = i64::MIN;
        let mut keys: Vec<Val> = self.keys.keys().copied().collect();
        keys.sort_unstable_by_key(|k| k.raw());
        for key in keys {
            self.retire_key(key, true);
        }
        Ending {
            findings: self.findings,
            unknown: self.unknown,
            txns: self.txns,
            retired: self.retired,
        }
    }

    fn node(&mut self, index: i64) -> NodeId {
        let node = self.dag.add_node();
        let slot = node.slot() as usize;
        if self.slots.len() <= slot {
            self.slots.resize(slot + 1, Slot::TICK);
        }
        self.slots[slot] = Slot {
            index,
            invoked: self.seq,
            completed: u64::MAX,
        };
        if self.options.retires() {
            self.born.push_back((node, self.txns, self.now));
        }
        node
    }

    fn invoke(&mut self, process: i64, index: i64, txn: &[MicroOp]) {
        let node = self.node(index);
        self.txns += 1;
        let tx = Tx {
            node,
            index,
            invoked: self.seq,
            completed: u64::MAX,
        };
        if self.options.realtime {
            if let Some(t) = self.next_tick.take() {
                self.tick = Some(t);
            }
            if let Some(t) = self.tick {
                self.link_nodes(t, node, REALTIME);
            }
        }
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
                tx,
                last: !later,
                outcome: Outcome::Pending,
                observed: false,
                placed: false,
                read_by: i64::MIN,
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

    /// Notes that an op touched `key`; false (and the answer unknown) if
    /// the window retired it.
    fn touch(&mut self, key: Val) -> bool {
        if self.retired_keys.contains(key.raw()) {
            let key = match key.as_small_int() {
                Some(k) => format!("key {k}"),
                None => "a key".to_string(),
            };
            self.lost(format!("it touches {key}, which the window retired"));
            return false;
        }
        let k = self.keys.entry(key).or_default();
        if self.options.retires() && k.touched != self.txns {
            self.touches.push_back((key, self.txns, self.now));
        }
        k.touched = self.txns;
        true
    }

    /// An aborted or indeterminate completion.
    fn end(&mut self, process: i64, outcome: Outcome) {
        let Some(t) = self.invoked.remove(&process) else {
            return;
        };
        self.settle(&t, outcome, u64::MAX);
        if outcome == Outcome::Aborted {
            // A read of one of its appends, made while it was under way.
            let read = (t.appends.iter())
                .filter_map(|kv| self.appenders.get(kv))
                .filter(|a| a.tx.node == t.tx.node && a.read_by != i64::MIN)
                .map(|a| a.read_by)
                .next();
            if let Some(op) = read {
                self.found("G1a", op);
            }
            self.dag.retire(t.tx.node);
        }
    }

    /// Records the outcome of the appends of `t`, and when it completed.
    fn settle(&mut self, t: &Invoked, outcome: Outcome, completed: u64) {
        for kv in &t.appends {
            if let Some(a) = self.appenders.get_mut(kv) {
                if a.tx.node == t.tx.node {
                    a.outcome = outcome;
                    a.tx.completed = completed;
                }
            }
        }
    }

    fn commit<'a>(&mut self, process: i64, txn: &[MicroOp], read: impl Fn(&MicroOp) -> &'a [Val]) {
        let Some(t) = self.invoked.remove(&process) else {
            return;
        };
        let tx = Tx {
            completed: self.seq,
            ..t.tx
        };
        self.settle(&t, Outcome::Committed, self.seq);
        if self.dag.is_live(tx.node) {
            self.slots[tx.node.slot() as usize].completed = self.seq;
        }
        if self.options.process_order {
            if let Some(prev) = self.last.insert(process, tx) {
                self.link(prev, tx, PROCESS);
            }
        }
        if self.options.realtime {
            let tick = match self.next_tick {
                Some(tick) => tick,
                None => {
                    let tick = self.node(i64::MIN);
                    if let Some(now) = self.tick {
                        self.link_nodes(now, tick, REALTIME);
                    }
                    self.next_tick = Some(tick);
                    tick
                }
            };
            self.link_nodes(tx.node, tick, REALTIME);
        }
        if !internally_consistent(txn, &read) {
            self.found("internal", tx.index);
        }
        if future_read(txn, &read) {
            self.found("future-read", tx.index);
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
        let Some(k) = self.keys.get_mut(&key) else {
            return;
        };
        let first = k.lost.entry(version).or_insert(index);
        if *first == index || *first == i64::MIN {
            return;
        }
        let txns = vec![*first, index];
        *first = i64::MIN;
        self.findings.push(Finding {
            name: "lost-update".to_string(),
            at: self.at,
            what: About::Txns(txns),
        });
    }

    /// A committed transaction `tx`'s read of `key`, the list `l`:
    /// `external` when before its own appends to the key (a read after them
    /// shows the order, but says nothing of what others' state it saw).
    /// Whether the read fits the key's order.
    fn read(&mut self, tx: Tx, key: Val, l: &[Val], external: bool) -> bool {
        if let Some(&e) = l.last().filter(|_| external) {
            match self.appenders.get(&(key, e)).copied() {
                None => self.found("garbage-read", tx.index),
                Some(a) if a.outcome == Outcome::Aborted => {}
                Some(a) => {
                    if !a.last && a.tx.node != tx.node {
                        self.found("G1b", tx.index);
                    }
                    self.link(a.tx, tx, WR);
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
            self.found("G1a", tx.index);
        }
        let k = self.keys.entry(key).or_default();
        let n = k.order.len().min(l.len());
        if k.order[..n] != l[..n] {
            self.found("incompatible-order", tx.index);
            return false;
        }
        // A read that fits the order repeats an element if that part of
        // the order does.
        let mut dup = k.first_dup.is_some_and(|d| d < l.len());
        if l.len() < k.order.len() {
            let next = k.order[l.len()];
            if dup {
                self.found("duplicate-elements", tx.index);
            }
            if let Some(a) = (self.appenders.get(&(key, next)).copied()).filter(|_| external) {
                self.link(tx, a.tx, RW);
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
                    self.link(p.tx, a.tx, WW);
                }
            }
            if i == old {
                for &r in &waiting {
                    self.link(r, a.tx, RW);
                }
            }
        }
        if dup {
            self.found("duplicate-elements", tx.index);
        }
        true
    }

    /// Retires what left the window: nodes made over `window` transactions
    /// (or `window_nanos`) ago, but the ticks in use, and keys not touched
    /// in half as long.
    fn retire_old(&mut self) {
        while let Some(&(node, born, time)) = self.born.front() {
            if !self.aged(born, time, 1) {
                break;
            }
            self.born.pop_front();
            if Some(node) == self.tick || Some(node) == self.next_tick {
                self.born.push_back((node, self.txns, self.now));
                continue;
            }
            self.retire_node(node);
        }
        while let Some(&(key, touched, time)) = self.touches.front() {
            if !self.aged(touched, time, 2) {
                break;
            }
            self.touches.pop_front();
            if self.keys.get(&key).is_some_and(|k| k.touched == touched) {
                self.retire_key(key, false);
            }
        }
    }

    /// Whether what was made when `txns` transactions had been invoked and
    /// the latest `:time` was `time` has left the window, divided by `part`.
    fn aged(&self, txns: u64, time: i64, part: u64) -> bool {
        let o = &self.options;
        let by_count = self.txns - txns > o.window / part;
        let span = i128::from(self.now) - i128::from(time);
        let timed = time != i64::MIN && o.window_nanos != i64::MAX;
        let by_time = timed && span > i128::from(o.window_nanos) / i128::from(part);
        by_count || by_time
    }

    /// Retires `node`, first linking each of its predecessors to each of
    /// its successors, so that what reached what among the live nodes
    /// still does. Nodes retire oldest first, and edges mostly go forward
    /// in time, so few predecessors are still live.
    fn retire_node(&mut self, node: NodeId) {
        let (Some(preds), Some(succs)) = (self.dag.predecessors(node), self.dag.successors(node))
        else {
            return;
        };
        let (preds, succs): (Vec<_>, Vec<_>) = (preds.collect(), succs.collect());
        for &(p, a) in &preds {
            for &(s, b) in &succs {
                if p == s || self.bypassed(p, s) {
                    continue;
                }
                // p reaches s through node, so the edge closes no cycle.
                if self.dag.add_edge(p, s, compose(a, b)).is_err() {
                    debug_assert!(false, "a bypass closed a cycle");
                }
            }
        }
        if self.slots[node.slot() as usize].index != i64::MIN {
            self.retired += 1;
        }
        self.dag.retire(node);
    }

    /// Whether `p` reaches `s` without the retiring node: by an edge of its
    /// own, or, under real time, because `p` completed before `s` began
    /// (the ticks between them stay linked as they retire).
    fn bypassed(&self, p: NodeId, s: NodeId) -> bool {
        let (pi, si) = (p.slot() as usize, s.slot() as usize);
        let (ps, ss) = (self.slots[pi], self.slots[si]);
        if self.options.realtime
            && ps.index != i64::MIN
            && ss.index != i64::MIN
            && ps.completed < ss.invoked
        {
            return true;
        }
        self.dag
            .successors(p)
            .is_some_and(|mut out| out.any(|(x, _)| x == s))
    }

    /// Retires `key`: appends no read showed follow the last element shown
    /// (they get a ww edge from its appender and an rw edge from its
    /// readers), and the key's state goes. Not (but at the `end`) while
    /// one of those appends may still abort: it waits its next turn.
    fn retire_key(&mut self, key: Val, end: bool) {
        let Some(k) = self.keys.get_mut(&key) else {
            return;
        };
        let pending = (k.appended.iter())
            .filter_map(|&e| self.appenders.get(&(key, e)))
            .any(|a| a.outcome == Outcome::Pending);
        if pending && !end {
            k.touched = self.txns;
            self.touches.push_back((key, self.txns, self.now));
            return;
        }
        let Some(k) = self.keys.remove(&key) else {
            return;
        };
        if !end {
            self.retired_keys.insert(key.raw());
        }
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
                self.link(p, a.tx, WW);
            }
            for &r in &k.waiting {
                self.link(r, a.tx, RW);
            }
        }
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
                (Outcome::Aborted, Outcome::Committed) => self.findings.push(Finding {
                    name: "dirty-update".to_string(),
                    at: self.at,
                    what: About::Txns(std::mem::take(&mut writers)),
                }),
                _ => {}
            }
            kind = next;
            writers = vec![a.tx.index];
        }
    }

    fn found(&mut self, name: &'static str, op: i64) {
        self.findings.push(Finding {
            name: name.to_string(),
            at: self.at,
            what: About::Read(op),
        });
    }

    /// The answer is unknown, for `reason`, unless something else already
    /// made it so.
    fn lost(&mut self, reason: String) {
        if self.unknown.is_none() {
            self.unknown = Some(Unknown {
                reason,
                op: self.at,
            });
        }
    }

    /// Adds a dependency edge; one that closes a cycle is reported instead.
    fn link(&mut self, from: Tx, to: Tx, label: u32) {
        if from.node == to.node {
            return;
        }
        match self.dag.add_edge(from.node, to.node, label) {
            Ok(()) => {}
            Err(Refused::Cycle(cycle)) => self.cycle(&cycle),
            Err(Refused::Retired(_)) => self.across_window(from, to, label),
        }
    }

    /// An edge to or from a transaction the window retired. Under real
    /// time, one to a transaction that completed before `from` began
    /// closes a cycle with real time; one from a transaction that completed
    /// before a live `to` began adds no path real time does not already
    /// have (every path into `from` reached its completion's tick when it
    /// retired). Anything else needs the graph that is gone.
    fn across_window(&mut self, from: Tx, to: Tx, label: u32) {
        let realtime = self.options.realtime;
        if realtime && to.completed < from.invoked {
            self.findings.push(Finding {
                name: cycle_name(compose(label, REALTIME), false),
                at: self.at,
                what: About::Cycle(vec![from.index, to.index]),
            });
        } else if !(realtime && from.completed < to.invoked && self.dag.is_live(to.node)) {
            self.lost(format!(
                "it orders transactions {} and {}, and the window retired {}",
                from.index,
                to.index,
                match self.dag.is_live(from.node) {
                    true => to.index,
                    false => from.index,
                }
            ));
        }
    }

    /// Adds a real-time edge through a tick.
    fn link_nodes(&mut self, from: NodeId, to: NodeId, label: u32) {
        match self.dag.add_edge(from, to, label) {
            Ok(()) => {}
            Err(Refused::Cycle(cycle)) => self.cycle(&cycle),
            Err(Refused::Retired(_)) => {
                self.lost("it completes a transaction the window retired".to_string())
            }
        }
    }

    /// Reports a refused edge's cycle, named by its edges as Elle names
    /// cycles.
    fn cycle(&mut self, edges: &[CycleEdge]) {
        let label = edges.iter().fold(0, |l, e| compose(l, e.label));
        // A bypass's rw edges may sit anywhere in the path it stands for.
        let plain = (edges.iter()).all(|e| e.label & RW_COUNT == 0 || e.label == RW);
        let rw = |i: usize| edges[i % edges.len()].label == RW;
        let adjacent = (0..edges.len()).any(|i| rw(i) && rw(i + 1));
        let nonadjacent = plain && !adjacent;
        let txns = (edges.iter())
            .map(|e| self.slots[e.from.slot() as usize].index)
            .filter(|&i| i != i64::MIN)
            .collect();
        self.findings.push(Finding {
            name: cycle_name(label, nonadjacent),
            at: self.at,
            what: About::Cycle(txns),
        });
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
