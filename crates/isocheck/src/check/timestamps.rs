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
use crate::infer::util::{scalar, Ext, TxnKeys};
use crate::infer::Anomaly;

/// A stamped committed writer of a key: its commit timestamp and who it
/// is.
#[derive(Clone, Copy)]
struct Version {
    key: u32,
    commit: i64,
    txn: TxnId,
    start: Option<i64>,
}

/// A writer of a key's value (its last write of the key), with its commit
/// timestamp if it committed and has one.
#[derive(Clone, Copy)]
struct Writer {
    key: u32,
    value: u32,
    txn: TxnId,
    commit: Option<i64>,
}

/// One external read of a committed, stamped transaction: its first
/// micro-op on the key.
struct Read {
    txn: TxnId,
    mop: u32,
    key: u32,
    value: Val,
    stamp: Stamp,
}

/// The reads, writers and versions of every key, each sorted by key (by
/// the values' raw ids, whose order is deterministic): a key's are looked
/// at together, while they are in cache, rather than through a map per
/// read (a million reads over 10,000 keys spent most of their time in
/// cache misses that way).
struct Keyed {
    reads: Vec<Read>,
    /// By key, then value.
    writers: Vec<Writer>,
    /// By key, then commit timestamp.
    versions: Vec<Version>,
}

impl Keyed {
    fn of(h: &History, stamps: &[Option<Stamp>]) -> Keyed {
        let stamp = |t: TxnId| stamps.get(t as usize).copied().flatten();
        let mut keyed = Keyed {
            reads: Vec::new(),
            writers: Vec::new(),
            versions: Vec::new(),
        };
        let mut ks: TxnKeys<Ext> = TxnKeys::default();
        for (t, txn) in h.txns.iter().enumerate() {
            crate::limits::tick();
            let t = t as TxnId;
            if txn.status == Status::Aborted {
                continue;
            }
            externals(h, txn, &mut ks);
            let value = |m: u32| scalar(&h.mops[m as usize]);
            let s = stamp(t).filter(|_| txn.status == Status::Committed);
            for &(key, ext) in &ks.slots {
                let key = key.raw();
                if let Some(w) = ext.write {
                    let (value, commit) = (value(w).raw(), s.map(|s| s.commit));
                    keyed.writers.push(Writer {
                        key,
                        value,
                        txn: t,
                        commit,
                    });
                }
                let Some(s) = s else { continue };
                if ext.write.is_some() {
                    let (commit, start) = (s.commit, s.start);
                    keyed.versions.push(Version {
                        key,
                        commit,
                        txn: t,
                        start,
                    });
                }
                if let Some(mop) = ext.read {
                    let value = value(mop);
                    keyed.reads.push(Read {
                        txn: t,
                        mop,
                        key,
                        value,
                        stamp: s,
                    });
                }
            }
        }
        keyed.reads.sort_unstable_by_key(|r| r.key);
        keyed.writers.sort_unstable_by_key(|w| (w.key, w.value));
        keyed
            .versions
            .sort_unstable_by_key(|v| (v.key, v.commit, v.txn));
        keyed
    }

    /// Each key with its reads, writers and versions, in key order.
    fn groups(&self) -> impl Iterator<Item = (u32, &[Read], &[Writer], &[Version])> {
        let (mut r, mut w, mut v) = (&self.reads[..], &self.writers[..], &self.versions[..]);
        std::iter::from_fn(move || {
            let key = [
                r.first().map(|x| x.key),
                w.first().map(|x| x.key),
                v.first().map(|x| x.key),
            ]
            .into_iter()
            .flatten()
            .min()?;
            let reads = split_key(&mut r, key, |x| x.key);
            let writers = split_key(&mut w, key, |x| x.key);
            let versions = split_key(&mut v, key, |x| x.key);
            Some((key, reads, writers, versions))
        })
    }
}

/// The leading run of `items` whose key is `key`, taken off `items`.
fn split_key<'a, T>(items: &mut &'a [T], key: u32, key_of: impl Fn(&T) -> u32) -> &'a [T] {
    let n = items.iter().take_while(|x| key_of(x) == key).count();
    let (run, rest) = items.split_at(n);
    *items = rest;
    run
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
    judge_all(h, stamps, checks).anomalies
}

/// What the timestamps say of a history's reads.
pub(crate) struct Judged {
    /// The timestamp anomalies, in history order.
    pub anomalies: Vec<Anomaly>,
    /// Some read the checks look at was left unjudged: its value's writer
    /// is unknown, aborted or unstamped, or a tie of commit timestamps
    /// leaves the version it should have seen undecided.
    pub undecided: bool,
    /// Some read saw another transaction's write.
    pub observed: bool,
}

/// [`check`], also saying whether every read was judged.
pub(crate) fn judge_all(h: &History, stamps: &[Option<Stamp>], checks: Checks) -> Judged {
    let mut out = inverted(h, stamps);
    let mut undecided = false;
    let mut any_observed = false;
    if !(checks.snapshot || checks.serial) || h.workload == Workload::ListAppend {
        return Judged {
            anomalies: out,
            undecided: true,
            observed: false,
        };
    }
    for (key, reads, writers, versions) in Keyed::of(h, stamps).groups() {
        for r in reads {
            crate::limits::tick();
            match judge_read(r, writers, versions, checks, &mut out) {
                None => undecided = true,
                Some(seen_another) => any_observed |= seen_another,
            }
        }
        if checks.snapshot {
            out.extend(lost_updates(Val::from_raw(key), versions));
        }
    }
    // Stable: a transaction's lost updates stay in key order.
    out.sort_by_key(order_key);
    Judged {
        anomalies: out,
        undecided,
        observed: any_observed,
    }
}

/// Judges read `r` of a key with these `writers` and `versions`, adding
/// its anomalies to `out`: whether it saw another transaction's write, or
/// `None` when the timestamps leave it undecided.
fn judge_read(
    r: &Read,
    writers: &[Writer],
    versions: &[Version],
    checks: Checks,
    out: &mut Vec<Anomaly>,
) -> Option<bool> {
    let observed = match r.value.is_nil() {
        true => None,
        // Garbage, aborted or unstamped: inference names the first two.
        false => {
            let i = (writers.binary_search_by_key(&r.value.raw(), |w| w.value)).ok()?;
            Some((writers[i].txn, writers[i].commit?))
        }
    };
    let mut decided = true;
    let mut take = |j: Judgement| match j {
        Judgement::Saw => {}
        Judgement::Tied => decided = false,
        Judgement::Wrong(a) => out.push(a),
    };
    if let (true, Some(start)) = (checks.snapshot, r.stamp.start) {
        let seen = versions.partition_point(|v| v.commit <= start);
        take(judge(r, versions, seen, start, observed, false));
    }
    if checks.serial {
        let commit = r.stamp.commit;
        let seen = versions.partition_point(|v| v.commit < commit);
        take(judge(r, versions, seen, commit, observed, true));
    }
    decided.then_some(observed.is_some_and(|(w, _)| w != r.txn))
}

/// What a read saw, by the timestamps.
enum Judgement {
    /// The version they say it should.
    Saw,
    /// A tie of commit timestamps leaves the version undecided.
    Tied,
    /// Another version.
    Wrong(Anomaly),
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

/// Whether read `r` saw the last of the first `seen` of the key's versions
/// (those committed by its read point `at`), or a tie of commit timestamps
/// at the end leaves the last version undecided, or its anomaly.
fn judge(
    r: &Read,
    list: &[Version],
    seen: usize,
    at: i64,
    observed: Option<(TxnId, i64)>,
    serial: bool,
) -> Judgement {
    // Its own write is not a version it reads (a register's first
    // micro-op on the key is the read).
    let expected = (list[..seen].iter().rev())
        .find(|v| v.txn != r.txn)
        .map(|v| (v.txn, v.commit));
    if expected.map(|e| e.0) == observed.map(|o| o.0) {
        return Judgement::Saw;
    }
    let tied = |c: i64| {
        let from = list.partition_point(|v| v.commit < c);
        list[from..].iter().take_while(|v| v.commit == c).count() > 1
    };
    if expected.is_some_and(|e| tied(e.1)) || observed.is_some_and(|o| tied(o.1)) {
        return Judgement::Tied;
    }
    Judgement::Wrong(Anomaly::TimestampRead {
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
