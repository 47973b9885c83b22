//! The database's timestamps as a proof: when an rw-register history's
//! commit (and start) timestamps describe an execution that every read
//! agrees with, that execution is a witness, and the models it satisfies
//! hold with no dependency graph and no search over version orders
//! (Chronos's sweep, ICDE 2025). Commit timestamps order the transactions
//! serially; with start timestamps, each transaction reads the snapshot
//! at its start and the first committer wins. Whether the database's
//! timestamps are true does not matter: an execution the reads agree with
//! proves the model, whoever wrote the numbers down.
//!
//! Anything the witness cannot speak for hands the history to the general
//! path, which decides it as ever: an indeterminate transaction, a
//! transaction without timestamps, two with one commit timestamp, a read
//! whose writer is unknown, a read within a transaction that contradicts
//! the transaction's own earlier micro-ops, a model beyond serializability
//! and snapshot isolation (and their session and real-time variants), and
//! any timestamp anomaly.

use super::models::Model;
use super::timestamps::{self, Checks};
use crate::graph::order;
use crate::history::commit_order::Stamp;
use crate::history::{History, MopKind, Status, TxnId, Val, Workload};
use crate::infer::util::{scalar, FxMap};

/// What a witness must also respect besides the reads, per model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Needs {
    /// Reads see their start's snapshot and the first committer wins.
    snapshot: bool,
    /// Reads see what committed before their commit.
    serial: bool,
    /// A process's next transaction sees its previous one.
    session: bool,
    /// A transaction sees every one that completed before it was invoked.
    realtime: bool,
}

impl Needs {
    /// What proving `models` (canonical names) takes; `None` when one of
    /// them is beyond what timestamps can prove here.
    fn of(models: &[&str]) -> Option<Needs> {
        let mut needs = Needs::default();
        for m in models {
            match Model::parse(m)? {
                Model::Serializable => needs.serial = true,
                Model::StrongSessionSerializable => {
                    needs.serial = true;
                    needs.session = true;
                }
                Model::StrictSerializable => {
                    needs.serial = true;
                    needs.realtime = true;
                }
                Model::SnapshotIsolation => needs.snapshot = true,
                Model::StrongSessionSnapshotIsolation => {
                    needs.snapshot = true;
                    needs.session = true;
                }
                Model::StrongSnapshotIsolation => {
                    needs.snapshot = true;
                    needs.realtime = true;
                }
                _ => return None,
            }
        }
        Some(needs)
    }
}

/// Whether `h`'s timestamps prove every one of `models` (canonical names):
/// the number of committed transactions they order, or `None` when the
/// general path must decide.
pub fn proves(h: &History, stamps: &[Option<Stamp>], models: &[&str]) -> Option<usize> {
    let needs = Needs::of(models)?;
    if h.workload != Workload::RwRegister || models.is_empty() || stamps.len() != h.txns.len() {
        return None;
    }
    let committed = every_committed_stamped(h, stamps, needs.snapshot)?;
    if !(commits_distinct(h, stamps) && internally_consistent(h) && agrees_with_order(h, stamps)) {
        return None;
    }
    let checks = Checks {
        snapshot: needs.snapshot,
        serial: needs.serial,
    };
    let judged = timestamps::judge_all(h, stamps, checks);
    // Without a read of another's write, Elle's empty transaction graph is
    // the general path's to report.
    if judged.undecided || !judged.anomalies.is_empty() || !judged.observed {
        return None;
    }
    // Whether `after` sees `before`'s commit: at its start (snapshots),
    // else by committing after it.
    let sees = |before: Stamp, after: Stamp| match needs.snapshot {
        true => before.commit <= after.start.unwrap_or(after.commit),
        false => before.commit < after.commit,
    };
    if needs.session && !sessions_seen(h, stamps, &sees) {
        return None;
    }
    if needs.realtime && !realtime_seen(h, stamps, &sees) {
        return None;
    }
    Some(committed)
}

/// The number of committed transactions, when none is indeterminate and
/// every committed one has a commit timestamp (and a start timestamp no
/// later than it, where snapshots are judged).
fn every_committed_stamped(h: &History, stamps: &[Option<Stamp>], snapshot: bool) -> Option<usize> {
    let mut committed = 0;
    for (txn, stamp) in h.txns.iter().zip(stamps) {
        crate::limits::tick();
        match txn.status {
            // It may have committed, at a time no timestamp says.
            Status::Indeterminate => return None,
            Status::Aborted => continue,
            Status::Committed => committed += 1,
        }
        let s = (*stamp)?;
        if snapshot && s.start.is_none_or(|start| start > s.commit) {
            return None;
        }
    }
    Some(committed)
}

/// No two committed transactions share a commit timestamp: the serial
/// order and each key's version order are total.
fn commits_distinct(h: &History, stamps: &[Option<Stamp>]) -> bool {
    let mut commits: Vec<i64> = (h.txns.iter().zip(stamps))
        .filter(|(t, _)| t.status == Status::Committed)
        .filter_map(|(_, s)| s.map(|s| s.commit))
        .collect();
    commits.sort_unstable();
    commits.windows(2).all(|w| w[0] < w[1])
}

/// Every read after a transaction's first micro-op on the key returns what
/// the transaction last read or wrote there (the witness judges only the
/// first, external, reads).
fn internally_consistent(h: &History) -> bool {
    let mut last: FxMap<u32, Val> = FxMap::default();
    for txn in h.txns.iter().filter(|t| t.status == Status::Committed) {
        crate::limits::tick();
        last.clear();
        for m in h.mops_of(txn) {
            let value = scalar(m);
            match last.insert(m.key.raw(), value) {
                Some(before) if m.kind == MopKind::Read && before != value => return false,
                _ => {}
            }
        }
    }
    true
}

/// A commit order given besides the timestamps (`--transaction-order
/// FILE`) orders each pair of transactions as their commit timestamps do,
/// or names one of them not at all: the general path takes it as the
/// version order.
fn agrees_with_order(h: &History, stamps: &[Option<Stamp>]) -> bool {
    if h.commit_order.is_empty() {
        return true;
    }
    let mut named: Vec<(i64, i64)> = (h.commit_order.iter().zip(stamps))
        .filter_map(|(position, s)| Some(((*s)?.commit, (*position)?)))
        .collect();
    named.sort_unstable();
    named.windows(2).all(|w| w[0].1 < w[1].1)
}

/// Each process's committed transaction `sees` the one before it.
fn sessions_seen(
    h: &History,
    stamps: &[Option<Stamp>],
    sees: &impl Fn(Stamp, Stamp) -> bool,
) -> bool {
    let stamp = |t: TxnId| stamps[t as usize];
    order::committed_process_edges(h)
        .into_iter()
        .all(|(a, b)| matches!((stamp(a), stamp(b)), (Some(x), Some(y)) if sees(x, y)))
}

/// Each committed transaction `sees` every committed transaction that
/// completed before it was invoked (the latest commit of those).
fn realtime_seen(
    h: &History,
    stamps: &[Option<Stamp>],
    sees: &impl Fn(Stamp, Stamp) -> bool,
) -> bool {
    let mut latest: Option<Stamp> = None;
    for (_, t, is_invoke) in order::realtime_events(h) {
        crate::limits::tick();
        let Some(s) = stamps[t as usize].filter(|_| h.txn(t).status == Status::Committed) else {
            continue;
        };
        match is_invoke {
            false => latest = Some(latest.filter(|l| l.commit > s.commit).unwrap_or(s)),
            true => {
                if latest.is_some_and(|l| !sees(l, s)) {
                    return false;
                }
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::commit_order;

    /// Two processes: p0 writes x, then p1 reads it, each stamped `[start
    /// commit]`; `tail` adds ops.
    fn history(first: [i64; 2], second: [i64; 2], read: &str, tail: &str) -> History {
        let text = format!(
            "{{:index 0, :type :invoke, :process 0, :f :txn, :value [[:w :x 1]]}}
{{:index 1, :type :ok, :process 0, :f :txn, :value [[:w :x 1]], :start-timestamp {}, :commit-timestamp {}}}
{{:index 2, :type :invoke, :process 1, :f :txn, :value [[:r :x nil] [:w :y 2]]}}
{{:index 3, :type :ok, :process 1, :f :txn, :value [[:r :x {read}] [:w :y 2]], :start-timestamp {}, :commit-timestamp {}}}
{tail}",
            first[0], first[1], second[0], second[1]
        );
        crate::history::parse_edn("t.edn", &text).unwrap()
    }

    fn proves_models(h: &History, models: &[&str]) -> Option<usize> {
        let stamps = commit_order::stamps(h).unwrap();
        proves(h, &stamps, models)
    }

    const SI: &str = "snapshot-isolation";
    const SER: &str = "PL-3";
    const STRICT: &str = "PL-SS";

    #[test]
    fn a_read_of_the_version_the_timestamps_say_proves_every_model() {
        let h = history([1, 2], [3, 4], "1", "");
        for m in [
            SI,
            SER,
            STRICT,
            "strong-snapshot-isolation",
            "strong-session-snapshot-isolation",
        ] {
            assert_eq!(proves_models(&h, &[m]), Some(2), "{m}");
        }
    }

    #[test]
    fn a_read_the_timestamps_contradict_hands_over() {
        // The read of x = 1 started before x = 1 committed.
        let h = history([1, 5], [3, 6], "1", "");
        assert_eq!(proves_models(&h, &[SI]), None);
        // Serially, after the commit at 5, the read at 6 sees it.
        assert_eq!(proves_models(&h, &[SER]), Some(2));
        // A read of nil after the write committed: stale for every model.
        let h = history([1, 2], [3, 4], "nil", "");
        assert_eq!(proves_models(&h, &[SI]), None);
        assert_eq!(proves_models(&h, &[SER]), None);
    }

    #[test]
    fn real_time_and_sessions_need_their_own_orders() {
        // p1 is invoked after p0 completed, but its commit timestamp is
        // earlier, and it reads nil: serializable by the timestamps, and
        // nothing the timestamps can say about strict serializability.
        let reader = "{:index 4, :type :invoke, :process 2, :f :txn, :value [[:r :y nil]]}
{:index 5, :type :ok, :process 2, :f :txn, :value [[:r :y 2]], :start-timestamp 10, :commit-timestamp 11}";
        let h = history([1, 9], [3, 4], "nil", reader);
        assert_eq!(proves_models(&h, &[SER]), Some(3));
        assert_eq!(proves_models(&h, &[STRICT]), None);
        assert_eq!(proves_models(&h, &["strong-snapshot-isolation"]), None);
        assert_eq!(proves_models(&h, &[SI]), Some(3));
        // The same process later starts before its previous commit.
        let tail = "{:index 4, :type :invoke, :process 0, :f :txn, :value [[:r :y nil]]}
{:index 5, :type :ok, :process 0, :f :txn, :value [[:r :y nil]], :start-timestamp 1, :commit-timestamp 10}";
        let h = history([1, 2], [5, 6], "1", tail);
        assert_eq!(proves_models(&h, &[SI]), Some(3));
        assert_eq!(
            proves_models(&h, &["strong-session-snapshot-isolation"]),
            None
        );
    }

    #[test]
    fn what_the_timestamps_cannot_speak_for_hands_over() {
        // One commit timestamp for two transactions.
        assert_eq!(
            proves_models(&history([1, 4], [3, 4], "1", ""), &[SER]),
            None
        );
        // A start after its commit.
        assert_eq!(
            proves_models(&history([3, 2], [4, 5], "1", ""), &[SI]),
            None
        );
        // An indeterminate transaction.
        let tail = "{:index 4, :type :invoke, :process 2, :f :txn, :value [[:w :z 1]]}";
        assert_eq!(
            proves_models(&history([1, 2], [3, 4], "1", tail), &[SER]),
            None
        );
        // A read within the transaction that contradicts its own write.
        let tail = "{:index 4, :type :invoke, :process 2, :f :txn, :value [[:w :z 1] [:r :z nil]]}
{:index 5, :type :ok, :process 2, :f :txn, :value [[:w :z 1] [:r :z 3]], :start-timestamp 7, :commit-timestamp 8}";
        assert_eq!(
            proves_models(&history([1, 2], [3, 4], "1", tail), &[SER]),
            None
        );
        // A model beyond the timestamps.
        assert_eq!(
            proves_models(&history([1, 2], [3, 4], "1", ""), &["causal"]),
            None
        );
        // No read of another's write: Elle's empty transaction graph.
        assert_eq!(
            proves_models(&history([1, 2], [3, 4], "nil", ""), &[SI]),
            None
        );
    }
}
