//! Jepsen's long-fork checker (`jepsen.tests.long-fork`): transactions
//! that each write one fresh key once, and reads of a group of `n` keys.
//! Values only go from `nil` to written, so of two reads of one group one
//! must have seen everything the other did; two reads that each saw a write
//! the other did not are a long fork (prohibited by snapshot isolation,
//! allowed by parallel snapshot isolation). A key written twice leaves the
//! result unknown, as do reads of the wrong number of keys and two
//! different values read for one key (Jepsen's checker throws on those,
//! and elle-cli reports them as `:valid? :unknown`).

use super::named;
use crate::history::{History, MopKind, MopValue, Status, TxnId, Val};
use crate::validity::Validity;

#[derive(Debug)]
pub enum Finding {
    /// Every read of each group is comparable.
    NoFork,
    /// `[:multiple-writes k]`: the first key written twice.
    MultipleWrites(Val),
    /// Pairs of incomparable reads, within their groups in history order.
    Forks(Vec<(TxnId, TxnId)>),
    /// A history the checker cannot judge: why, and the reads concerned.
    Illegal { message: String, reads: Vec<TxnId> },
}

#[derive(Debug)]
pub struct LongForkResult {
    pub reads_count: usize,
    pub early_read_count: usize,
    pub late_read_count: usize,
    pub group_size: usize,
    pub finding: Finding,
}

impl LongForkResult {
    pub fn validity(&self) -> Validity {
        match self.finding {
            Finding::NoFork => Validity::True,
            Finding::Forks(_) => Validity::False,
            Finding::MultipleWrites(_) | Finding::Illegal { .. } => Validity::Unknown,
        }
    }

    pub fn anomaly_types(&self) -> Vec<&'static str> {
        named(&[
            (matches!(self.finding, Finding::Forks(_)), "long-fork"),
            (
                matches!(self.finding, Finding::MultipleWrites(_)),
                "multiple-writes",
            ),
            (
                matches!(self.finding, Finding::Illegal { .. }),
                "illegal-history",
            ),
        ])
    }
}

/// A read's (key, value) pairs, sorted by key, the last read of a key kept.
type ReadMap = Vec<(Val, Val)>;

fn read_map(h: &History, t: TxnId) -> ReadMap {
    let mut m: ReadMap = Vec::new();
    for mop in h.mops_of(h.txn(t)) {
        let v = match mop.value() {
            MopValue::Val(v) => v,
            MopValue::List { .. } => Val::NIL,
        };
        match m.iter_mut().find(|e| e.0 == mop.key) {
            Some(e) => e.1 = v,
            None => m.push((mop.key, v)),
        }
    }
    m.sort_unstable_by_key(|e| e.0);
    m
}

pub fn check(h: &History, n: usize) -> LongForkResult {
    let reads: Vec<TxnId> = (0..h.txns.len() as TxnId)
        .filter(|&t| h.txn(t).status == Status::Committed)
        .filter(|&t| h.mops_of(h.txn(t)).iter().all(|m| m.kind == MopKind::Read))
        .collect();
    let maps: Vec<ReadMap> = reads.iter().map(|&t| read_map(h, t)).collect();
    let early_read_count = maps
        .iter()
        .filter(|m| m.iter().all(|e| e.1.is_nil()))
        .count();
    let late_read_count = maps
        .iter()
        .filter(|m| m.iter().all(|e| !e.1.is_nil()))
        .count();
    let finding = match multiple_writes(h) {
        Some(k) => Finding::MultipleWrites(k),
        None => forks(h, n, &reads, &maps),
    };
    LongForkResult {
        reads_count: reads.len(),
        early_read_count,
        late_read_count,
        group_size: n,
        finding,
    }
}

/// The first key two invoked single-write transactions write.
fn multiple_writes(h: &History) -> Option<Val> {
    let mut written = std::collections::HashSet::new();
    h.txns
        .iter()
        .filter(|t| t.invoke.is_some())
        .filter_map(|t| match h.mops_of(t) {
            [m] if m.kind == MopKind::Write => Some(m.key),
            _ => None,
        })
        .find(|&k| !written.insert(k))
}

/// The incomparable pairs of each group of reads (reads of the same keys).
fn forks(h: &History, n: usize, reads: &[TxnId], maps: &[ReadMap]) -> Finding {
    // Grouped by their keys through a map (a search of the groups for
    // each read was quadratic in the groups), in the order they first come.
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut group_of: std::collections::HashMap<Vec<Val>, usize> = Default::default();
    for (i, m) in maps.iter().enumerate() {
        crate::limits::tick();
        let keys: Vec<Val> = m.iter().map(|e| e.0).collect();
        let g = *group_of.entry(keys).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[g].push(i);
    }
    if let Some(g) = groups.iter().find(|g| maps[g[0]].len() != n) {
        let keys: Vec<String> = maps[g[0]].iter().map(|e| h.values.display(e.0)).collect();
        return Finding::Illegal {
            message: format!(
                "Every read in this history should have observed exactly {n} keys, but this read observed {} instead: #{{{}}}",
                keys.len(),
                keys.join(" ")
            ),
            reads: vec![reads[g[0]]],
        };
    }
    let mut found = Vec::new();
    for g in &groups {
        for (x, &a) in g.iter().enumerate() {
            for &b in &g[x + 1..] {
                match compare(&maps[a], &maps[b]) {
                    Ok(Some(_)) => {}
                    Ok(None) => found.push((reads[a], reads[b])),
                    Err(k) => {
                        return Finding::Illegal {
                            message: format!(
                                "These two read states contain distinct values for the same key ({}); this checker assumes only one write occurs per key.",
                                h.values.display(k)
                            ),
                            reads: vec![reads[a], reads[b]],
                        }
                    }
                }
            }
        }
    }
    match found.is_empty() {
        true => Finding::NoFork,
        false => Finding::Forks(found),
    }
}

/// Jepsen's `read-compare` of two reads of the same keys: `Some(-1)` when
/// `a` saw more, `Some(1)` when `b` did, `Some(0)` when equal, `None` when
/// each saw a write the other did not; `Err(key)` for two values of a key.
fn compare(a: &ReadMap, b: &ReadMap) -> Result<Option<i8>, Val> {
    let mut res = 0i8;
    for (&(k, va), &(_, vb)) in a.iter().zip(b) {
        if va == vb {
            continue;
        }
        let step = match (va.is_nil(), vb.is_nil()) {
            (false, true) => -1,
            (true, false) => 1,
            _ => return Err(k),
        };
        if res == -step {
            return Ok(None);
        }
        res = step;
    }
    Ok(Some(res))
}
