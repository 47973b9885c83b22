//! The database's own timestamps, distrusted (`--check-timestamps`): every
//! committed transaction's external reads are checked against the version
//! its timestamps say it saw, and snapshot isolation's first-committer-wins
//! against writers whose timestamps overlap. Chronos's idea (ICDE 2025):
//! sort each key's writers by commit timestamp and look each read up, in
//! O(n log n), with no dependency graph. rw-register only: a register's
//! version is one writer's value.
//!
//! A read is judged only where the timestamps decide it: its value's
//! writer has timestamps (an `:info` transaction's may not), and no two
//! writers of the key share a commit timestamp around it. A writer without
//! timestamps never excuses a read: the version the reader saw was
//! committed after its read point, or overwritten before it, whatever that
//! writer did.

use super::lattice;
use crate::history::commit_order::Stamp;
use crate::history::{History, Status, Txn, TxnId, Val, Workload};
use crate::infer::util::{scalar, Ext, FxMap, TxnKeys};
use crate::infer::Anomaly;

/// A stamped committed writer of a key: its commit timestamp and who it
/// is.
#[derive(Clone, Copy)]
struct Version {
    commit: i64,
    txn: TxnId,
    start: Option<i64>,
}

/// One external read: the transaction's first micro-op on the key.
struct Read {
    txn: TxnId,
    mop: u32,
    key: Val,
    value: Val,
}

/// Which reads the requested models judge by the timestamps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Checks {
    /// Reads see their start's snapshot, and the first committer wins: a
    /// requested model is defined by snapshots (snapshot isolation, its
    /// strong and strong-session variants).
    pub snapshot: bool,
    /// Reads see what committed before their commit: a requested model
    /// implies serializability. Elle's lattice has serializability imply
    /// snapshot isolation, but a serializable database need not read from
    /// its start timestamp, so that implication asks for no snapshot check.
    pub serial: bool,
}

impl Checks {
    /// The checks `models` call for (`None`: strict-serializable).
    pub fn for_models(models: Option<&[&'static str]>) -> Checks {
        let canonical = |names: &[&str]| -> Vec<&'static str> {
            names
                .iter()
                .filter_map(|m| lattice::canonical_model(m))
                .collect()
        };
        // Requested models are canonical already.
        let models = match models {
            Some(ms) => ms.to_vec(),
            None => canonical(&["strict-serializable"]),
        };
        let snapshots = canonical(&[
            "snapshot-isolation",
            "strong-session-snapshot-isolation",
            "strong-snapshot-isolation",
        ]);
        let implied = lattice::all_implied_models(models.iter().copied());
        Checks {
            snapshot: models.iter().any(|m| snapshots.contains(m)),
            serial: canonical(&["serializable"])
                .iter()
                .any(|s| implied.contains(s)),
        }
    }
}

/// Every timestamp anomaly of `h` the `checks` look for, given each
/// transaction's stamps. A start after its commit is one whatever the
/// model; reads are judged in rw-register histories only, where a version
/// is one writer's value (list-append's reads show the order).
pub fn check(h: &History, stamps: &[Option<Stamp>], checks: Checks) -> Vec<Anomaly> {
    let stamp = |t: TxnId| stamps.get(t as usize).copied().flatten();
    let mut out = inverted(h, stamps);
    if !(checks.snapshot || checks.serial) || h.workload == Workload::ListAppend {
        return out;
    }
    // Keyed by the values' raw ids, whose order is deterministic.
    let mut versions: FxMap<u32, Vec<Version>> = FxMap::default();
    let mut writer_of: FxMap<(u32, u32), TxnId> = FxMap::default();
    let mut reads = Vec::new();
    let mut ks: TxnKeys<Ext> = TxnKeys::default();
    for (t, txn) in h.txns.iter().enumerate() {
        crate::limits::tick();
        let t = t as TxnId;
        if txn.status == Status::Aborted {
            continue;
        }
        externals(h, txn, &mut ks);
        let value = |m: u32| scalar(&h.mops[m as usize]);
        for &(key, ext) in &ks.slots {
            if let Some(w) = ext.write {
                writer_of.insert((key.raw(), value(w).raw()), t);
            }
        }
        let Some(s) = stamp(t).filter(|_| txn.status == Status::Committed) else {
            continue;
        };
        for &(key, ext) in &ks.slots {
            if ext.write.is_some() {
                let v = Version {
                    commit: s.commit,
                    txn: t,
                    start: s.start,
                };
                versions.entry(key.raw()).or_default().push(v);
            }
            if let Some(mop) = ext.read {
                reads.push(Read {
                    txn: t,
                    mop,
                    key,
                    value: value(mop),
                });
            }
        }
    }
    for list in versions.values_mut() {
        list.sort_unstable_by_key(|v| (v.commit, v.txn));
    }
    for r in &reads {
        crate::limits::tick();
        let Some(s) = stamp(r.txn) else { continue };
        let list = versions.get(&r.key.raw()).map_or(&[][..], Vec::as_slice);
        let writer = match r.value.is_nil() {
            true => None,
            false => match writer_of.get(&(r.key.raw(), r.value.raw())) {
                Some(&w) => Some(w),
                // Garbage or aborted: inference names those.
                None => continue,
            },
        };
        let observed = match writer {
            None => None,
            Some(w) => match stamp(w).filter(|_| h.txns[w as usize].status == Status::Committed) {
                Some(ws) => Some((w, ws.commit)),
                None => continue,
            },
        };
        if let (true, Some(start)) = (checks.snapshot, s.start) {
            let seen = list.partition_point(|v| v.commit <= start);
            out.extend(judge(r, list, seen, start, observed, false));
        }
        if checks.serial {
            let seen = list.partition_point(|v| v.commit < s.commit);
            out.extend(judge(r, list, seen, s.commit, observed, true));
        }
    }
    let mut keys: Vec<u32> = versions.keys().copied().collect();
    keys.sort_unstable();
    for key in keys.into_iter().filter(|_| checks.snapshot) {
        out.extend(lost_updates(Val::from_raw(key), &versions[&key]));
    }
    // Stable: a transaction's lost updates stay in key order.
    out.sort_by_key(order_key);
    out
}

/// The committed transactions reported to start after they committed.
fn inverted(h: &History, stamps: &[Option<Stamp>]) -> Vec<Anomaly> {
    let committed = |(t, s): (usize, &Option<Stamp>)| {
        let s = s.filter(|_| h.txns.get(t).is_some_and(|x| x.status == Status::Committed))?;
        let start = s.start.filter(|&start| start > s.commit)?;
        Some(Anomaly::TimestampInverted {
            txn: t as TxnId,
            start,
            commit: s.commit,
        })
    };
    stamps.iter().enumerate().filter_map(committed).collect()
}

/// The anomaly of read `r` if the version it saw is not the last of the
/// first `seen` of the key's versions (those committed by its read point
/// `at`); `None` when it is, or when a tie of commit timestamps at the end
/// leaves the last version undecided.
fn judge(
    r: &Read,
    list: &[Version],
    seen: usize,
    at: i64,
    observed: Option<(TxnId, i64)>,
    serial: bool,
) -> Option<Anomaly> {
    // Its own write is not a version it reads (a register's first
    // micro-op on the key is the read).
    let expected = (list[..seen].iter().rev())
        .find(|v| v.txn != r.txn)
        .map(|v| (v.txn, v.commit));
    if expected.map(|e| e.0) == observed.map(|o| o.0) {
        return None;
    }
    let tied = |c: i64| {
        let from = list.partition_point(|v| v.commit < c);
        list[from..].iter().take_while(|v| v.commit == c).count() > 1
    };
    if expected.is_some_and(|e| tied(e.1)) || observed.is_some_and(|o| tied(o.1)) {
        return None;
    }
    Some(Anomaly::TimestampRead {
        serial,
        txn: r.txn,
        mop: r.mop,
        at,
        writer: observed,
        expected,
    })
}

/// Snapshot isolation's first committer wins: of two writers of the key,
/// the later committer took its snapshot after the earlier committed.
/// Consecutive writers suffice: a later snapshot before an earlier commit
/// is also before the commit in between.
fn lost_updates(key: Val, list: &[Version]) -> impl Iterator<Item = Anomaly> + '_ {
    list.windows(2).filter_map(move |pair| {
        let (first, second) = (pair[0], pair[1]);
        let start = second.start?;
        (start < first.commit && first.commit < second.commit).then_some(
            Anomaly::TimestampLostUpdate {
                key,
                first: (first.txn, first.commit),
                second: (second.txn, start, second.commit),
            },
        )
    })
}

/// Reports list anomalies by the transaction they are about, in history
/// order.
fn order_key(a: &Anomaly) -> (u32, u32) {
    match a {
        Anomaly::TimestampInverted { txn, .. } => (*txn, 0),
        Anomaly::TimestampRead { txn, mop, .. } => (*txn, *mop),
        Anomaly::TimestampLostUpdate { second, .. } => (second.0, u32::MAX),
        _ => (u32::MAX, u32::MAX),
    }
}

/// A transaction's external reads and writes (Jepsen's `ext-reads` and
/// `ext-writes`), per key, as inference records them.
fn externals(h: &History, txn: &Txn, ks: &mut TxnKeys<Ext>) {
    ks.clear();
    for (j, m) in h.mops_of(txn).iter().enumerate() {
        let first = ks.find(m.key).is_none();
        ks.slot(m.key, Ext::new)
            .add(txn.mops.start + j as u32, m, first);
    }
}
