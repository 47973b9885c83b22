//! The streaming list-append check: see the module above.

use crate::graph::online_dag::{CycleEdge, NodeId, OnlineDag, Refused};
use crate::history::{MicroOp, MopKind, MopValue, Op, OpType, Process, Val};
use crate::infer::util::FxMap;

/// Edge labels.
const WW: u32 = 0;
const WR: u32 = 1;
const RW: u32 = 2;
const PROCESS: u32 = 3;
const REALTIME: u32 = 4;

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
    /// A read (the `:index` of its transaction's completion) of an element
    /// an aborted transaction appended (`G1a`), of one a transaction
    /// appended before its last append to the key (`G1b`), of an element
    /// nobody appended (`garbage-read`), not a prefix of the key's longest
    /// read nor extending it (`incompatible-order`), or a transaction whose
    /// reads disagree with its own earlier reads and appends (`internal`).
    Read(i64),
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
    /// a wrong verdict. `u64::MAX`: nothing is retired.
    pub window: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            realtime: true,
            process_order: false,
            window: u64::MAX,
        }
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

/// The appender of one element of one key.
#[derive(Clone, Copy)]
struct Appender {
    node: NodeId,
    /// Its transaction's last append to the key.
    last: bool,
    outcome: Outcome,
    /// Some read showed the element.
    observed: bool,
    /// The `:index` of the first committed read that showed it
    /// (`i64::MIN`: none), should the appender abort later.
    read_by: i64,
}

/// One key's version order so far, and who waits for its next element.
#[derive(Default)]
struct Key {
    order: Vec<Val>,
    /// Committed transactions that read all of `order`: each has an rw edge
    /// to the appender of the element that comes next.
    waiting: Vec<NodeId>,
}

/// A transaction invoked and not yet completed.
struct Invoked {
    node: NodeId,
    index: i64,
    /// Its appends, `(key, element)`.
    appends: Vec<(Val, Val)>,
}

/// The streaming check of one list-append history.
pub struct StreamCheck {
    dag: OnlineDag,
    options: Options,
    /// The `:index` of the op being taken.
    at: i64,
    txns: u64,
    retired: u64,
    unknown: Option<Unknown>,
    invoked: FxMap<i64, Invoked>,
    /// Per process, its last committed transaction.
    last: FxMap<i64, NodeId>,
    /// The tick invocations link from, and the one completions since link
    /// into (made at the first).
    tick: Option<NodeId>,
    next_tick: Option<NodeId>,
    appenders: FxMap<(Val, Val), Appender>,
    keys: FxMap<Val, Key>,
    /// Per node slot, the `:index` of its transaction's invocation
    /// (`i64::MIN` for a tick).
    index: Vec<i64>,
    findings: Vec<Finding>,
}

impl StreamCheck {
    /// A check under `options`.
    pub fn new(options: Options) -> StreamCheck {
        StreamCheck {
            dag: OnlineDag::new(),
            options,
            at: i64::MIN,
            txns: 0,
            retired: 0,
            unknown: None,
            invoked: FxMap::default(),
            last: FxMap::default(),
            tick: None,
            next_tick: None,
            appenders: FxMap::default(),
            keys: FxMap::default(),
            index: Vec::new(),
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
        match op.ty {
            OpType::Invoke => self.invoke(process, op.index, txn),
            OpType::Ok => self.commit(process, txn, read),
            OpType::Fail => self.end(process, Outcome::Aborted),
            OpType::Info => self.end(process, Outcome::Indeterminate),
        }
    }

    /// The findings made since the last call.
    pub fn drain(&mut self) -> Vec<Finding> {
        std::mem::take(&mut self.findings)
    }

    /// The first op that needed something retired, if any yet.
    pub fn unknown(&self) -> Option<&Unknown> {
        self.unknown.as_ref()
    }

    /// Ends the stream: appends no read showed follow the last element
    /// shown. What the stream says.
    pub fn finish(mut self) -> Ending {
        self.at = i64::MIN;
        let mut unobserved: Vec<(Val, NodeId)> = (self.appenders.iter())
            .filter(|(_, a)| !a.observed && a.outcome != Outcome::Aborted)
            .map(|(&(key, _), a)| (key, a.node))
            .collect();
        unobserved.sort_unstable_by_key(|&(k, n)| (k, n.slot(), n.generation()));
        unobserved.dedup();
        let keys = std::mem::take(&mut self.keys);
        for (key, node) in unobserved {
            let Some(k) = keys.get(&key) else { continue };
            let last = k.order.last().and_then(|&e| self.appenders.get(&(key, e)));
            if let Some(prev) = last.map(|a| a.node) {
                self.link(prev, node, WW);
            }
            for &r in &k.waiting {
                self.link(r, node, RW);
            }
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
        if self.index.len() <= slot {
            self.index.resize(slot + 1, i64::MIN);
        }
        self.index[slot] = index;
        node
    }

    fn invoke(&mut self, process: i64, index: i64, txn: &[MicroOp]) {
        let node = self.node(index);
        self.txns += 1;
        if self.options.realtime {
            if let Some(t) = self.next_tick.take() {
                self.tick = Some(t);
            }
            if let Some(t) = self.tick {
                self.link(t, node, REALTIME);
            }
        }
        let mut appends = Vec::new();
        for (i, m) in txn.iter().enumerate() {
            let (MopKind::Append, MopValue::Val(e)) = (m.kind, m.value()) else {
                continue;
            };
            let later = txn[i + 1..]
                .iter()
                .any(|n| n.kind == MopKind::Append && n.key == m.key);
            let appender = Appender {
                node,
                last: !later,
                outcome: Outcome::Pending,
                observed: false,
                read_by: i64::MIN,
            };
            self.appenders.entry((m.key, e)).or_insert(appender);
            appends.push((m.key, e));
        }
        self.invoked.insert(
            process,
            Invoked {
                node,
                index,
                appends,
            },
        );
    }

    /// An aborted or indeterminate completion.
    fn end(&mut self, process: i64, outcome: Outcome) {
        let Some(t) = self.invoked.remove(&process) else {
            return;
        };
        self.settle(&t, outcome);
        if outcome == Outcome::Aborted {
            // A read of one of its appends, made while it was under way.
            let read = (t.appends.iter())
                .filter_map(|kv| self.appenders.get(kv))
                .filter(|a| a.node == t.node && a.read_by != i64::MIN)
                .map(|a| a.read_by)
                .next();
            if let Some(op) = read {
                self.found("G1a", op);
            }
            self.dag.retire(t.node);
        }
    }

    /// Records the outcome of the appends of `t`.
    fn settle(&mut self, t: &Invoked, outcome: Outcome) {
        for kv in &t.appends {
            if let Some(a) = self.appenders.get_mut(kv) {
                if a.node == t.node {
                    a.outcome = outcome;
                }
            }
        }
    }

    fn commit<'a>(&mut self, process: i64, txn: &[MicroOp], read: impl Fn(&MicroOp) -> &'a [Val]) {
        let Some(t) = self.invoked.remove(&process) else {
            return;
        };
        self.settle(&t, Outcome::Committed);
        if self.options.process_order {
            if let Some(prev) = self.last.insert(process, t.node) {
                self.link(prev, t.node, PROCESS);
            }
        }
        if self.options.realtime {
            let tick = match self.next_tick {
                Some(tick) => tick,
                None => {
                    let tick = self.node(i64::MIN);
                    if let Some(now) = self.tick {
                        self.link(now, tick, REALTIME);
                    }
                    self.next_tick = Some(tick);
                    tick
                }
            };
            self.link(t.node, tick, REALTIME);
        }
        if !internally_consistent(txn, &read) {
            self.found("internal", t.index);
        }
        for (i, m) in txn.iter().enumerate() {
            // Reads before the transaction's own appends to the key see
            // others' state.
            let own_before = txn[..i]
                .iter()
                .any(|n| n.key == m.key && n.kind == MopKind::Append);
            if m.kind == MopKind::Read {
                self.read(t.node, t.index, m.key, read(m), !own_before);
            }
        }
    }

    /// A committed transaction `node`'s read of `key`, the list `l`:
    /// `external` when before its own appends to the key (a read after them
    /// shows the order, but says nothing of what others' state it saw).
    fn read(&mut self, node: NodeId, index: i64, key: Val, l: &[Val], external: bool) {
        if let Some(&e) = l.last().filter(|_| external) {
            match self.appenders.get(&(key, e)).copied() {
                None => self.found("garbage-read", index),
                Some(a) if a.outcome == Outcome::Aborted => {}
                Some(a) => {
                    if !a.last && a.node != node {
                        self.found("G1b", index);
                    }
                    self.link(a.node, node, WR);
                }
            }
        }
        let mut aborted = false;
        for e in l {
            if let Some(a) = self.appenders.get_mut(&(key, *e)) {
                a.observed = true;
                aborted |= a.outcome == Outcome::Aborted;
                if external && a.read_by == i64::MIN {
                    a.read_by = index;
                }
            }
        }
        if aborted && external {
            self.found("G1a", index);
        }
        let k = self.keys.entry(key).or_default();
        let n = k.order.len().min(l.len());
        if k.order[..n] != l[..n] {
            self.found("incompatible-order", index);
            return;
        }
        if l.len() < k.order.len() {
            let next = k.order[l.len()];
            if let Some(a) = self
                .appenders
                .get(&(key, next))
                .copied()
                .filter(|_| external)
            {
                self.link(node, a.node, RW);
            }
            return;
        }
        let old = k.order.len();
        k.order.extend_from_slice(&l[old..]);
        // Those who read all of the order before wait no longer: the
        // element after theirs is known.
        let now: Vec<NodeId> = external.then_some(node).into_iter().collect();
        let waiting = match l.len() > old {
            true => std::mem::replace(&mut k.waiting, now),
            false => {
                k.waiting.extend(now);
                Vec::new()
            }
        };
        for i in old..l.len() {
            let Some(a) = self.appenders.get(&(key, l[i])).copied() else {
                continue;
            };
            if i > 0 {
                if let Some(p) = self.appenders.get(&(key, l[i - 1])).copied() {
                    self.link(p.node, a.node, WW);
                }
            }
            if i == old {
                for &r in &waiting {
                    self.link(r, a.node, RW);
                }
            }
        }
    }

    fn found(&mut self, name: &'static str, op: i64) {
        self.findings.push(Finding {
            name: name.to_string(),
            at: self.at,
            what: About::Read(op),
        });
    }

    /// Adds an edge; one that closes a cycle is reported instead.
    fn link(&mut self, from: NodeId, to: NodeId, label: u32) {
        if from == to {
            return;
        }
        if let Err(Refused::Cycle(cycle)) = self.dag.add_edge(from, to, label) {
            let finding = self.cycle(&cycle);
            self.findings.push(finding);
        }
    }

    /// A refused edge's cycle, named by its edges as Elle names cycles.
    fn cycle(&self, edges: &[CycleEdge]) -> Finding {
        let labels: Vec<u32> = edges.iter().map(|e| e.label).collect();
        let rw = labels.iter().filter(|&&l| l == RW).count();
        let only_ww = labels.iter().all(|&l| l != WR && l != RW);
        let base = match rw {
            0 if only_ww => "G0",
            0 => "G1c",
            1 => "G-single-item",
            _ => "G2-item",
        };
        let suffix = if labels.contains(&REALTIME) {
            "-realtime"
        } else if labels.contains(&PROCESS) {
            "-process"
        } else {
            ""
        };
        let txns = (edges.iter())
            .map(|e| self.index[e.from.slot() as usize])
            .filter(|&i| i != i64::MIN)
            .collect();
        Finding {
            name: format!("{base}{suffix}"),
            at: self.at,
            what: About::Cycle(txns),
        }
    }
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
