//! Linearizability of registers (cas-register and mutex histories: what the MTC paper calls lightweight transactions): per-key compare-and-set
//! registers, after the MTC paper (Wei et al., "Boosting End-to-End Database
//! Isolation Checking via Mini-Transactions", §LWT).
//!
//! A history of register ops ([`History::registers`]: `:read`, `:write`,
//! `:cas`) is linearizable iff every key's ops are (linearizability is
//! local), and with unique written values a key's ops that took effect form
//! a *value chain*: the initial `nil`, then `cas(nil→v1)`, `cas(v1→v2)`, …,
//! each write found from the value it expects through a hash map. The chain
//! is the only order the values allow, so the key is linearizable iff the
//! chain, with every read placed right after the op that wrote its value, is
//! consistent with real time: no element may complete before an earlier
//! element of the chain is invoked. One pass keeping the latest invocation
//! seen decides it.
//!
//! Semantics, per key (real time is the order of lines in the file; an op
//! without invocation line was invoked at the start of the history):
//! - `:ok` write or cas: took effect within its interval. An `:ok` cas whose
//!   old and new values are equal changes nothing: it is a read of that value.
//! - `:fail` (any op): took no effect and is not checked: Jepsen clients
//!   report `:fail` for any definite failure (a failed precondition, but also
//!   "not leader", a rejected request), and Knossos likewise drops failed
//!   ops. So a failed `cas(old, new)` is *not* required to have seen a value
//!   other than `old`. Dropping constraints only admits more histories:
//!   `:valid? false` is a proof under either reading; `:valid? true` means
//!   linearizable when failed ops are no-ops.
//! - `:info` (or no completion): may or may not have taken effect. It is in
//!   the chain iff its written value is observed by an `:ok` read or by the
//!   expected value of a cas in the chain (transitively), and then it
//!   completes at +∞. An unobserved one is left out: including it could only
//!   add constraints, as nothing depends on its value.
//! - `:ok` read of `v`: between the op that wrote `v` and the next op of the
//!   chain (`nil`: before the first). `:info` and `:fail` reads are ignored.
//! - Blind writes (`:write`): the first op of a *block*, the cas ops
//!   following its value. The block of `nil` comes first; with one blind
//!   write the chain is that block then the write's. With several, the order
//!   of the blocks is open: up to [`MAX_PERMUTED`] blind writes every order
//!   is tried (exact); beyond, the key is `:outside-fragment` (unknown).
//! - Not linearizable: two chain cas expecting the same value (a fork); a
//!   cas expecting, or a read returning, a value no op that may have taken
//!   effect wrote; cas ops whose values form a cycle; a real-time violation.
//! - Undecided here: a value written twice to a key (or `nil` written),
//!   where values no longer identify writes, or more blind writes than
//!   [`MAX_PERMUTED`]. `registers::linearizable` then decides the key by search
//!   ([`Violation::NoLinearization`] when it is not linearizable); only a
//!   `--timeout` or `--max-memory` stop leaves it unknown.

pub mod linearizable;

use crate::history::{History, RegisterF, RegisterOp, Status, Val, Workload};
use crate::validity::Validity;
use std::collections::HashMap;

/// Position of an op in [`History::registers`].
pub type RegId = u32;

/// Most blind writes to one key whose every order is tried.
pub const MAX_PERMUTED: usize = 6;

/// Work bound for trying orders of blind writes: orders × ops of the key.
const PERMUTATION_BUDGET: u64 = 20_000_000;

/// Why a key is not linearizable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Violation {
    /// `op` completed before `preceding`, which comes before it in the
    /// key's value chain, was invoked.
    Realtime {
        key: Val,
        op: RegId,
        preceding: RegId,
    },
    /// Two cas in the chain expect the same value: both cannot follow its write.
    Fork {
        key: Val,
        value: Val,
        ops: [RegId; 2],
    },
    /// A cas expects, or a read returns, a value that no op which may have
    /// taken effect wrote (`failed_writer`: a `:fail` op wrote it).
    Unwritten {
        key: Val,
        value: Val,
        op: RegId,
        failed_writer: Option<RegId>,
    },
    /// Cas ops whose values form a cycle, unreachable from any write.
    Cycle { key: Val, ops: Vec<RegId> },
    /// No order of the blind writes (and the cas ops following each) is
    /// consistent with real time.
    NoOrder { key: Val, writes: Vec<RegId> },
    /// Found by the general search (`registers::linearizable`) on a key this
    /// check leaves undecided: no linearizable prefix extends past `op`.
    NoLinearization {
        key: Val,
        /// The longest linearizable prefix, in linearization order.
        prefix: Vec<RegId>,
        op: RegId,
        /// The values the register can hold after such prefixes.
        states: Vec<Val>,
    },
}

impl Violation {
    pub fn key(&self) -> Val {
        match self {
            Violation::Realtime { key, .. }
            | Violation::Fork { key, .. }
            | Violation::Unwritten { key, .. }
            | Violation::Cycle { key, .. }
            | Violation::NoOrder { key, .. }
            | Violation::NoLinearization { key, .. } => *key,
        }
    }

    /// The `:type` of the entry.
    pub fn name(&self) -> &'static str {
        match self {
            Violation::Realtime { .. } => "realtime",
            Violation::Fork { .. } => "fork",
            Violation::Unwritten { .. } => "unwritten",
            Violation::Cycle { .. } => "cycle",
            Violation::NoOrder { .. } => "no-order",
            Violation::NoLinearization { .. } => "no-linearization",
        }
    }
}

/// Why a key could not be decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Undecided {
    /// Two ops that may have taken effect write the same value (`ops[0]`
    /// equal to `ops[1]` when the value is `nil`, the initial value).
    DuplicateWrites {
        key: Val,
        value: Val,
        ops: [RegId; 2],
    },
    /// More blind writes than orders the check tries.
    BlindWrites { key: Val, writes: Vec<RegId> },
}

impl Undecided {
    pub fn key(&self) -> Val {
        match self {
            Undecided::DuplicateWrites { key, .. } | Undecided::BlindWrites { key, .. } => *key,
        }
    }

    /// The `:reason` of the entry.
    pub fn name(&self) -> &'static str {
        match self {
            Undecided::DuplicateWrites { .. } => "duplicate-writes",
            Undecided::BlindWrites { .. } => "blind-writes",
        }
    }
}

/// The anomaly type of [`Violation`]s.
pub const NONLINEARIZABLE: &str = "nonlinearizable";
/// The anomaly type of [`Undecided`] keys.
pub const OUTSIDE_FRAGMENT: &str = "outside-fragment";

/// What the check found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RegisterAnalysis {
    /// Keys checked (1 for a single register).
    pub keys: usize,
    /// At most one violation per key, except forks, unwritten values and
    /// cycles, which are all listed. In order of the keys' first ops.
    pub violations: Vec<Violation>,
    /// Keys the check could not decide (outside the fragment it decides).
    pub undecided: Vec<Undecided>,
}

impl RegisterAnalysis {
    /// `:valid?`: false on any violation, unknown when a key was undecided,
    /// else true.
    pub fn validity(&self) -> Validity {
        if !self.violations.is_empty() {
            Validity::False
        } else if !self.undecided.is_empty() {
            Validity::Unknown
        } else {
            Validity::True
        }
    }

    /// `:anomaly-types`, sorted.
    pub fn anomaly_types(&self) -> Vec<&'static str> {
        let mut t = Vec::new();
        if !self.violations.is_empty() {
            t.push(NONLINEARIZABLE);
        }
        if !self.undecided.is_empty() {
            t.push(OUTSIDE_FRAGMENT);
        }
        t
    }
}

/// The value an op writes if it takes effect: a write's, a cas's new value
/// (unless it equals the old one, which changes nothing); a mutex op's new
/// state.
pub fn written(o: &RegisterOp) -> Option<Val> {
    match o.f {
        RegisterF::Write => Some(o.value),
        RegisterF::Read => None,
        _ => (o.value != o.new).then_some(o.new),
    }
}

/// The value an `:ok` op observed: a read's result, a cas's expected value
/// (a mutex op's expected state).
pub fn observed(o: &RegisterOp) -> Option<Val> {
    match (o.status, o.f) {
        (Status::Committed, RegisterF::Write) => None,
        (Status::Committed, _) => Some(o.value),
        _ => None,
    }
}

/// Whether the op is, for the chain, a read: an `:ok` read, or an `:ok` cas
/// that sets the value it expects.
pub fn is_read(o: &RegisterOp) -> bool {
    o.status == Status::Committed && observed(o).is_some() && written(o).is_none()
}

/// The value of the chain an op stands at: the one it wrote, or read.
pub fn chain_value(o: &RegisterOp) -> Val {
    written(o).unwrap_or(o.value)
}

/// Position of the invocation (-1 when there is none: the start of time).
pub(crate) fn inv(o: &RegisterOp) -> i64 {
    o.invoke.map_or(-1, i64::from)
}

/// Position of the completion, +∞ unless `:ok`.
fn comp(o: &RegisterOp) -> i64 {
    match (o.status, o.completion) {
        (Status::Committed, Some(c)) => i64::from(c),
        _ => i64::MAX,
    }
}

/// Checks every key of a cas-register history: the value chain, then the
/// general search for the keys the chain leaves undecided. A mutex writes
/// its two states over and over, which the chain cannot tell apart, so its
/// keys go to the search at once.
pub fn check(h: &History) -> RegisterAnalysis {
    check_ops(h.workload, &h.registers)
}

/// [`check`] of the ops of a `workload` history (the streaming check's
/// held ops of one key, `stream::register`).
pub(crate) fn check_ops(workload: Workload, regs: &[RegisterOp]) -> RegisterAnalysis {
    if workload == Workload::Mutex {
        return linearizable::search_every_key(regs);
    }
    let mut out = check_chains_of(regs);
    linearizable::settle(regs, &mut out);
    out
}

/// The value-chain check alone: keys it cannot decide are left in
/// [`RegisterAnalysis::undecided`]. (Its own tests' and the `internals`
/// feature's: the checks call [`check_chains_of`].)
#[cfg_attr(not(any(test, feature = "internals")), allow(dead_code))]
pub fn check_chains(h: &History) -> RegisterAnalysis {
    check_chains_of(&h.registers)
}

/// [`check_chains`] of a history's register ops.
pub(crate) fn check_chains_of(regs: &[RegisterOp]) -> RegisterAnalysis {
    let mut index: HashMap<Val, usize> = HashMap::new();
    let mut groups: Vec<(Val, Vec<RegId>)> = Vec::new();
    for (i, o) in regs.iter().enumerate() {
        // Reads that did not complete with :ok carry nothing.
        if o.f == RegisterF::Read && o.status != Status::Committed {
            continue;
        }
        let g = *index.entry(o.key).or_insert_with(|| {
            groups.push((o.key, Vec::new()));
            groups.len() - 1
        });
        groups[g].1.push(i as RegId);
    }
    let mut out = RegisterAnalysis {
        keys: groups.len(),
        ..RegisterAnalysis::default()
    };
    let mut included = vec![false; regs.len()];
    for (key, ids) in &groups {
        check_key(regs, *key, ids, &mut included, &mut out);
    }
    out
}

/// One key's ops (in invocation order): the value chain's phases in turn —
/// the writer of each value, the ops in the chain, its structure (forks,
/// unwritten values), its blocks (cycles), then real time over the orders
/// of the blocks.
fn check_key(
    regs: &[RegisterOp],
    key: Val,
    ids: &[RegId],
    included: &mut [bool],
    out: &mut RegisterAnalysis,
) {
    let k = KeyOps { regs, key, ids };
    let writers = match k.writers() {
        Ok(w) => w,
        Err(duplicate) => {
            out.undecided.push(duplicate);
            return;
        }
    };
    k.mark_chain(&writers, included);
    let broken = out.violations.len();
    let structure = k.structure(&writers, included, &mut out.violations);
    if out.violations.len() > broken {
        return;
    }
    let blocks = k.blocks(&structure);
    if blocks.reached() < structure.cas_count {
        k.report_cycles(&blocks, &structure.succ, included, out);
        return;
    }
    k.order_blocks(&blocks, structure, out);
}

/// Where one key's value chain ends, when the chain alone decides that its
/// ops (none of them pending) are linearizable and leaves one order: the
/// op whose value the register holds after them all (`None`: the initial
/// `nil`), and the `:info` ops left out of the chain (no op observed them:
/// they may still take effect later). `None` when the chain
/// does not decide the key (a violation, a value written twice, more than
/// one blind write, a cycle). The streaming check
/// (`stream::register`) starts a key afresh from that value.
pub(crate) fn chain_end(regs: &[RegisterOp]) -> Option<(Option<RegId>, Vec<RegId>)> {
    let ids: Vec<RegId> = (0..regs.len() as RegId)
        .filter(|&i| {
            regs[i as usize].f != RegisterF::Read || regs[i as usize].status == Status::Committed
        })
        .collect();
    let k = KeyOps {
        regs,
        key: regs.first()?.key,
        ids: &ids,
    };
    let writers = k.writers().ok()?;
    let mut included = vec![false; regs.len()];
    k.mark_chain(&writers, &mut included);
    let mut violations = Vec::new();
    let s = k.structure(&writers, &included, &mut violations);
    let blocks = k.blocks(&s);
    if !violations.is_empty() || blocks.reached() < s.cas_count || blocks.rest.len() > 1 {
        return None;
    }
    let last = blocks.rest.first().unwrap_or(&blocks.first).last().copied();
    let left_out = ids
        .iter()
        .copied()
        .filter(|&i| {
            let o = k.op(i);
            o.status == Status::Indeterminate && written(o).is_some() && !included[i as usize]
        })
        .collect();
    Some((last, left_out))
}

/// One key's ops, as [`check_key`]'s phases read them.
struct KeyOps<'a> {
    regs: &'a [RegisterOp],
    key: Val,
    /// The key's ops, in invocation order.
    ids: &'a [RegId],
}

/// The ops that write each value.
struct Writers {
    /// Among ops that may have taken effect: the one writer of each value.
    by_value: HashMap<Val, RegId>,
    /// Among `:fail` ops: the first writer of each value.
    failed: HashMap<Val, RegId>,
}

/// The value chain's shape: each value's one successor, the reads and the
/// blind writes.
struct Structure {
    /// The chain cas expecting each value.
    succ: HashMap<Val, RegId>,
    /// The `:ok` reads (of ops outside the chain) of each value.
    reads: HashMap<Val, Vec<RegId>>,
    /// The blind writes in the chain, in invocation order.
    blind: Vec<RegId>,
    /// How many cas ops are in the chain.
    cas_count: usize,
}

/// The chain cut at its blind writes.
struct Blocks {
    /// The path of cas from the initial `nil`.
    first: Vec<RegId>,
    /// Per blind write (in [`Structure::blind`]'s order): the write, then
    /// the path of cas from its value.
    rest: Vec<Vec<RegId>>,
}

impl Blocks {
    /// How many cas ops the blocks reach.
    fn reached(&self) -> usize {
        self.first.len() + self.rest.iter().map(|b| b.len() - 1).sum::<usize>()
    }
}

impl KeyOps<'_> {
    fn op(&self, i: RegId) -> &RegisterOp {
        &self.regs[i as usize]
    }

    /// The writer of each value, or the duplicate write that leaves the key
    /// undecided here (values no longer identify writes).
    fn writers(&self) -> Result<Writers, Undecided> {
        let mut by_value: HashMap<Val, RegId> = HashMap::with_capacity(self.ids.len());
        let mut failed: HashMap<Val, RegId> = HashMap::new();
        for &i in self.ids {
            let Some(v) = written(self.op(i)) else {
                continue;
            };
            if self.op(i).status == Status::Aborted {
                failed.entry(v).or_insert(i);
                continue;
            }
            let first = if v.is_nil() {
                Some(i)
            } else {
                by_value.insert(v, i)
            };
            if let Some(j) = first {
                return Err(Undecided::DuplicateWrites {
                    key: self.key,
                    value: v,
                    ops: [j, i],
                });
            }
        }
        Ok(Writers { by_value, failed })
    }

    /// Marks the ops in the chain: `:ok` writes, and `:info` ones whose
    /// value is observed (transitively, through the cas they are).
    fn mark_chain(&self, writers: &Writers, included: &mut [bool]) {
        let mut stack: Vec<Val> = Vec::new();
        for &i in self.ids {
            let o = self.op(i);
            if o.status != Status::Committed {
                continue;
            }
            included[i as usize] = written(o).is_some();
            stack.extend(observed(o));
        }
        while let Some(v) = stack.pop() {
            if let Some(&w) = writers.by_value.get(&v) {
                if !included[w as usize] {
                    included[w as usize] = true;
                    if self.op(w).f == RegisterF::Cas {
                        stack.push(self.op(w).value);
                    }
                }
            }
        }
    }

    /// The chain's structure; a fork (two cas expecting one value) or an
    /// observed value no op wrote is a violation, pushed as found.
    fn structure(
        &self,
        writers: &Writers,
        included: &[bool],
        violations: &mut Vec<Violation>,
    ) -> Structure {
        let key = self.key;
        let mut s = Structure {
            succ: HashMap::with_capacity(self.ids.len()),
            reads: HashMap::new(),
            blind: Vec::new(),
            cas_count: 0,
        };
        for &i in self.ids {
            let o = self.op(i);
            let in_chain = included[i as usize];
            let observes = if in_chain && o.f == RegisterF::Cas {
                s.cas_count += 1;
                if let Some(&j) = s.succ.get(&o.value) {
                    violations.push(Violation::Fork {
                        key,
                        value: o.value,
                        ops: [j, i],
                    });
                } else {
                    s.succ.insert(o.value, i);
                }
                Some(o.value)
            } else if in_chain {
                s.blind.push(i);
                None
            } else if is_read(o) {
                s.reads.entry(o.value).or_default().push(i);
                Some(o.value)
            } else {
                None
            };
            if let Some(v) = observes {
                if !v.is_nil() && !writers.by_value.contains_key(&v) {
                    violations.push(Violation::Unwritten {
                        key,
                        value: v,
                        op: i,
                        failed_writer: writers.failed.get(&v).copied(),
                    });
                }
            }
        }
        s
    }

    /// The blocks: the path of cas from `nil`, then from each blind write.
    fn blocks(&self, s: &Structure) -> Blocks {
        let walk = |head: Option<RegId>, start: Val| {
            let mut path: Vec<RegId> = head.into_iter().collect();
            let mut v = start;
            while let Some(&c) = s.succ.get(&v) {
                path.push(c);
                v = self.op(c).new;
                if path.len() > self.ids.len() {
                    break;
                }
            }
            path
        };
        Blocks {
            first: walk(None, Val::NIL),
            rest: s
                .blind
                .iter()
                .map(|&b| walk(Some(b), self.op(b).value))
                .collect(),
        }
    }

    /// The cas ops no path from a write reaches: each on a cycle of values
    /// (no forks and every expected value written, so following writers
    /// back from one must loop).
    fn report_cycles(
        &self,
        blocks: &Blocks,
        succ: &HashMap<Val, RegId>,
        included: &[bool],
        out: &mut RegisterAnalysis,
    ) {
        let mut seen: std::collections::HashSet<RegId> = blocks.first.iter().copied().collect();
        seen.extend(blocks.rest.iter().flatten().copied());
        for &i in self.ids {
            let o = self.op(i);
            if !included[i as usize] || o.f != RegisterF::Cas || seen.contains(&i) {
                continue;
            }
            let mut cycle = vec![i];
            seen.insert(i);
            let mut v = o.new;
            while let Some(&c) = succ.get(&v) {
                if !seen.insert(c) {
                    break;
                }
                cycle.push(c);
                v = self.op(c).new;
            }
            out.violations.push(Violation::Cycle {
                key: self.key,
                ops: cycle,
            });
        }
    }

    /// Real time over the chain: with one block at most its one order,
    /// else every order of the blocks (up to [`MAX_PERMUTED`] and the work
    /// bound; beyond, the key is undecided).
    fn order_blocks(&self, blocks: &Blocks, s: Structure, out: &mut RegisterAnalysis) {
        let key = self.key;
        let scan_order = |order: &[usize]| {
            let chain = std::iter::once((None, Val::NIL))
                .chain(blocks.first.iter().map(|&c| (Some(c), self.op(c).new)))
                .chain(order.iter().flat_map(|&b| {
                    blocks.rest[b]
                        .iter()
                        .map(|&c| (Some(c), chain_value(self.op(c))))
                }));
            scan(self.regs, chain, &s.reads)
        };
        let n = blocks.rest.len();
        if n <= 1 {
            if let Some((x, y)) = scan_order(&[0][..n]) {
                out.violations.push(Violation::Realtime {
                    key,
                    op: x,
                    preceding: y,
                });
            }
            return;
        }
        // Saturating: with more than 20 blocks `n!` overflows a u64 (and the
        // count only matters up to the budget).
        let orders = (1..=n as u64).fold(1u64, u64::saturating_mul);
        if n > MAX_PERMUTED || orders.saturating_mul(self.ids.len() as u64) > PERMUTATION_BUDGET {
            out.undecided.push(Undecided::BlindWrites {
                key,
                writes: s.blind,
            });
            return;
        }
        let mut order: Vec<usize> = (0..n).collect();
        loop {
            if scan_order(&order).is_none() {
                return;
            }
            if !next_permutation(&mut order) {
                break;
            }
        }
        out.violations.push(Violation::NoOrder {
            key,
            writes: s.blind,
        });
    }
}

/// The greedy real-time check of one chain order: each element (an op and
/// the value it wrote, the initial value first) followed by the reads of
/// its value. An element may not complete before any element placed earlier
/// was invoked; reads of one value may take any order among themselves.
/// Returns the first violation: (the op that completed, the earlier one
/// invoked after).
fn scan(
    regs: &[RegisterOp],
    chain: impl Iterator<Item = (Option<RegId>, Val)>,
    reads: &HashMap<Val, Vec<RegId>>,
) -> Option<(RegId, RegId)> {
    let op = |i: RegId| &regs[i as usize];
    // The latest invocation among the elements placed so far, and whose.
    let mut latest: (i64, RegId) = (-1, 0);
    for (w, v) in chain {
        if let Some(w) = w {
            if comp(op(w)) < latest.0 {
                return Some((w, latest.1));
            }
            if inv(op(w)) > latest.0 {
                latest = (inv(op(w)), w);
            }
        }
        let Some(rs) = reads.get(&v) else { continue };
        for &r in rs {
            if comp(op(r)) < latest.0 {
                return Some((r, latest.1));
            }
        }
        for &r in rs {
            if inv(op(r)) > latest.0 {
                latest = (inv(op(r)), r);
            }
        }
    }
    None
}

/// The next permutation in lexicographic order; false after the last.
fn next_permutation(p: &mut [usize]) -> bool {
    let Some(i) = (1..p.len()).rev().find(|&i| p[i - 1] < p[i]) else {
        return false;
    };
    let j = (i..p.len()).rev().find(|&j| p[j] > p[i - 1]).unwrap_or(i);
    p.swap(i - 1, j);
    p[i..].reverse();
    true
}

#[cfg(test)]
mod tests;
