//! What every streaming check shares (see the module above): the
//! dependency graph over live transactions and ticks (`OnlineDag`), the
//! real-time and process orders, the window that retires nodes (bypassing
//! each) and keys, the edges placed across the window, and the findings
//! with the cycles named as Elle names them. The workloads' checks own
//! their keys' state and say which edges their reads give.

use crate::graph::online_dag::{CycleEdge, NodeId, OnlineDag, Refused};
use crate::history::{MicroOp, Op, OpType, Process, Val};
use crate::infer::util::FxMap;
use roaring::RoaringBitmap;
use std::collections::VecDeque;
use std::hash::Hash;
use std::ops::{Deref, DerefMut};

/// Edge labels say what the path an edge stands for is made of, so that
/// the edge a retirement adds in place of two (their composition,
/// [`compose`]) names a cycle through it as the cycle through the retired
/// transaction is named. The two low bits count rw edges (3: two or more).
pub(super) const RW: u32 = 1;
const RW_COUNT: u32 = 3;
pub(super) const WR: u32 = 1 << 2;
pub(super) const WW: u32 = 1 << 3;
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
    /// A register's key (as the history writes it) and the ops (their
    /// `:index`es) a violation of its linearizability names
    /// (`stream::RegisterStream`).
    Key {
        /// The key.
        key: String,
        /// The ops.
        ops: Vec<i64>,
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

/// How a streaming check checks.
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
/// the window had retired (`retired`), or what a stream cannot know
/// (`version-orders`: an rw-register's).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unknown {
    /// Why, in a keyword: `retired` or `version-orders`.
    pub keyword: &'static str,
    /// Why, in a sentence.
    pub reason: String,
    /// The op's `:index` (`i64::MIN`: at the end).
    pub op: i64,
}

/// What a finished stream says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ending {
    /// Every finding, in the order found (those `drain`
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

/// What became of a transaction.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Outcome {
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
pub(super) struct Tx {
    pub node: NodeId,
    pub index: i64,
    pub invoked: u64,
    /// `u64::MAX` until it commits (and for ever if it does not).
    pub completed: u64,
}

/// One transaction's write of a value to a key (list-append's append of an
/// element, rw-register's write), as the reads that show it see it. Each
/// workload's record of a write holds one and derefs to it.
#[derive(Clone, Copy)]
pub(super) struct Write {
    pub tx: Tx,
    /// Its transaction's last write of the key.
    pub last: bool,
    pub outcome: Outcome,
    /// The `:index` of the first committed read that showed it
    /// (`i64::MIN`: none), should the writer abort later.
    pub read_by: i64,
}

impl Write {
    /// `tx`'s write, under way; its last of the key if `last`.
    pub fn new(tx: Tx, last: bool) -> Write {
        Write {
            tx,
            last,
            outcome: Outcome::Pending,
            read_by: i64::MIN,
        }
    }
}

/// Records the outcome of `tx`'s writes `kvs` in `writes`, and when it
/// completed (`u64::MAX`: it did not commit).
pub(super) fn settle<W: DerefMut<Target = Write>>(
    writes: &mut FxMap<(Val, Val), W>,
    kvs: &[(Val, Val)],
    tx: Tx,
    outcome: Outcome,
    completed: u64,
) {
    for kv in kvs {
        if let Some(w) = writes.get_mut(kv).filter(|w| w.tx.node == tx.node) {
            w.outcome = outcome;
            w.tx.completed = completed;
        }
    }
}

/// The first committed read, made while `tx` was under way, of one of its
/// writes `kvs`: once it aborted, that read is `G1a`.
pub(super) fn read_while_under_way<W: Deref<Target = Write>>(
    writes: &FxMap<(Val, Val), W>,
    kvs: &[(Val, Val)],
    tx: Tx,
) -> Option<i64> {
    (kvs.iter())
        .filter_map(|kv| writes.get(kv))
        .filter(|w| w.tx.node == tx.node && w.read_by != i64::MIN)
        .map(|w| w.read_by)
        .next()
}

/// Whether a write of one of `values` to `key` may still abort.
pub(super) fn pending<'a, W: Deref<Target = Write>>(
    writes: &FxMap<(Val, Val), W>,
    key: Val,
    mut values: impl Iterator<Item = &'a Val>,
) -> bool {
    values.any(|&v| {
        writes
            .get(&(key, v))
            .is_some_and(|w| w.outcome == Outcome::Pending)
    })
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

/// The accessors of a streaming check of transactions, by its `core`
/// field: one definition for each workload's check.
macro_rules! core_accessors {
    () => {
        /// The findings made since the last call.
        pub fn drain(&mut self) -> Vec<Finding> {
            self.core.drain()
        }

        /// How many transactions the window retired so far.
        pub fn retired(&self) -> u64 {
            self.core.retired()
        }

        /// The first op that needed something retired, if any yet.
        pub fn unknown(&self) -> Option<&Unknown> {
            self.core.unknown()
        }
    };
}
pub(super) use core_accessors;

/// A workload's streaming check of transactions on a [`Core`]: what it
/// does as a transaction is invoked and ends, and its keys, which retire.
pub(super) trait Keys {
    fn core(&mut self) -> &mut Core;
    /// The keys it holds.
    fn keys_held(&self) -> Vec<Val>;
    /// Process `process` invoked the transaction `txn`, at `:index` `index`.
    fn invoke(&mut self, process: i64, index: i64, txn: &[MicroOp]);
    /// Process `process`'s transaction ended without committing.
    fn end(&mut self, process: i64, outcome: Outcome);
    /// Retires `key`, at the `end` of the stream or as the window does.
    fn retire_key(&mut self, key: Val, end: bool);
}

/// Takes one client op: an invocation, or a completion (`commit` for an
/// `:ok` one, with the process), then retires what left the window.
pub(super) fn take<T: Keys>(
    check: &mut T,
    op: &Op,
    txn: &[MicroOp],
    commit: impl FnOnce(&mut T, i64),
) {
    let Process::Client(process) = op.process else {
        return;
    };
    check.core().begin(op);
    match op.ty {
        OpType::Invoke => check.invoke(process, op.index, txn),
        OpType::Ok => commit(check, process),
        OpType::Fail => check.end(process, Outcome::Aborted),
        OpType::Info => check.end(process, Outcome::Indeterminate),
    }
    retire_old(check);
}

/// After an op: retires what left the window, nodes and keys.
fn retire_old(check: &mut impl Keys) {
    check.core().retire_nodes();
    while let Some(key) = check.core().due_key() {
        check.retire_key(key, false);
    }
}

/// At the end of the stream: every key held retires, in the keys' order.
pub(super) fn retire_all(check: &mut impl Keys) {
    check.core().at = i64::MIN;
    let mut keys = check.keys_held();
    keys.sort_unstable_by_key(|k| k.raw());
    for key in keys {
        check.retire_key(key, true);
    }
}

/// The graph, orders and window of one streaming check.
pub(super) struct Core {
    dag: OnlineDag,
    pub options: Options,
    /// The `:index` of the op being taken, and how many ops were taken.
    pub at: i64,
    pub seq: u64,
    /// Transactions invoked, and retired.
    pub txns: u64,
    retired: u64,
    unknown: Option<Unknown>,
    /// Per process, its last committed transaction.
    last: FxMap<i64, Tx>,
    /// The tick invocations link from, and the one completions since link
    /// into (made at the first).
    tick: Option<NodeId>,
    next_tick: Option<NodeId>,
    /// Per live key, when (in transactions invoked) an op last touched it.
    touched: FxMap<Val, u64>,
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
    pub findings: Vec<Finding>,
}

impl Core {
    pub fn new(options: Options) -> Core {
        Core {
            dag: OnlineDag::new(),
            options,
            at: i64::MIN,
            seq: 0,
            txns: 0,
            retired: 0,
            unknown: None,
            last: FxMap::default(),
            tick: None,
            next_tick: None,
            touched: FxMap::default(),
            retired_keys: RoaringBitmap::new(),
            slots: Vec::new(),
            born: VecDeque::new(),
            now: i64::MIN,
            touches: VecDeque::new(),
            findings: Vec::new(),
        }
    }

    /// Notes the op being taken.
    pub fn begin(&mut self, op: &Op) {
        self.at = op.index;
        self.seq += 1;
        if let Some(t) = op.time() {
            self.now = self.now.max(t);
        }
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

    /// What the stream says, once the workload's end is taken.
    pub fn ending(self) -> Ending {
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

    /// A transaction invoked at `:index` `index`: its node, linked from
    /// the current tick under real time.
    pub fn invoke(&mut self, index: i64) -> Tx {
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
        tx
    }

    /// Process `process` committed `tx`, now: its process edge, and its
    /// link into the next tick under real time. The committed `Tx`.
    pub fn commit(&mut self, process: i64, tx: Tx) -> Tx {
        let tx = Tx {
            completed: self.seq,
            ..tx
        };
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
        tx
    }

    /// Notes that transaction `index` read `version` of a key first and
    /// then wrote the key (`firsts`: the key's, per version, the first
    /// transaction to, `i64::MIN` once reported): the second to do so is a
    /// lost update.
    pub fn read_then_wrote<V: Hash + Eq>(
        &mut self,
        firsts: &mut FxMap<V, i64>,
        version: V,
        index: i64,
    ) {
        let first = firsts.entry(version).or_insert(index);
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

    /// Whether `tx`'s node is still in the window.
    pub fn is_live(&self, tx: Tx) -> bool {
        self.dag.is_live(tx.node)
    }

    /// An aborted transaction takes part in no edge.
    pub fn abort(&mut self, tx: Tx) {
        self.dag.retire(tx.node);
    }

    /// Notes that an op touched `key`; false (and the answer unknown) if
    /// the window retired it.
    pub fn touch(&mut self, key: Val) -> bool {
        if self.retired_keys.contains(key.raw()) {
            let key = match key.as_small_int() {
                Some(k) => format!("key {k}"),
                None => "a key".to_string(),
            };
            self.lost(format!("it touches {key}, which the window retired"));
            return false;
        }
        let touched = self.touched.insert(key, self.txns);
        if self.options.retires() && touched != Some(self.txns) {
            self.touches.push_back((key, self.txns, self.now));
        }
        true
    }

    /// Touches `key` again, now: a key that cannot retire yet waits its
    /// next turn.
    fn retouch(&mut self, key: Val) {
        self.touched.insert(key, self.txns);
        self.touches.push_back((key, self.txns, self.now));
    }

    /// `key`'s state is gone: retired by the window (a later touch makes
    /// the answer unknown), or at the end of the stream.
    fn forget(&mut self, key: Val, retired: bool) {
        self.touched.remove(&key);
        if retired {
            self.retired_keys.insert(key.raw());
        }
    }

    /// Takes `key`'s state out of `keys` to retire it, unless (but at the
    /// `end`) a write of it may still abort (`pending`): then it waits its
    /// next turn.
    pub fn retiring<K>(
        &mut self,
        keys: &mut FxMap<Val, K>,
        key: Val,
        end: bool,
        pending: impl FnOnce(&K) -> bool,
    ) -> Option<K> {
        if pending(keys.get(&key)?) && !end {
            self.retouch(key);
            return None;
        }
        let k = keys.remove(&key)?;
        self.forget(key, !end);
        Some(k)
    }

    /// Retires the nodes that left the window: made over `window`
    /// transactions (or `window_nanos`) ago, but the ticks in use.
    pub fn retire_nodes(&mut self) {
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
    }

    /// The next key not touched in half the window, if one is due.
    pub fn due_key(&mut self) -> Option<Val> {
        while let Some(&(key, touched, time)) = self.touches.front() {
            if !self.aged(touched, time, 2) {
                return None;
            }
            self.touches.pop_front();
            if self.touched.get(&key) == Some(&touched) {
                return Some(key);
            }
        }
        None
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

    pub fn found(&mut self, name: &'static str, op: i64) {
        self.findings.push(Finding {
            name: name.to_string(),
            at: self.at,
            what: About::Read(op),
        });
    }

    /// The answer is unknown, for `reason`, unless something else already
    /// made it so.
    pub fn lost(&mut self, reason: String) {
        if self.unknown.is_none() {
            self.unknown = Some(Unknown {
                keyword: "retired",
                reason,
                op: self.at,
            });
        }
    }

    /// Adds a dependency edge; one that closes a cycle is reported instead.
    pub fn link(&mut self, from: Tx, to: Tx, label: u32) {
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
