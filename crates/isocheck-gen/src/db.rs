//! The simulated database: a multi-version store whose transactions read
//! through a [`View`] and commit under [`Rules`], which together make the
//! isolation levels and the faults.
//!
//! Committed writes are versions stamped with a commit timestamp from one
//! clock, kept per key in commit order, so a snapshot is a timestamp. A
//! list-append read returns every visible version of the key (the list); a
//! register read returns the last. Uncommitted writes stay with their
//! transaction until it commits; a dirty view also sees another open
//! transaction's uncommitted writes. Transactions are indexed by the client
//! thread running them: each thread has at most one open.
//!
//! Keys are held in a map, not a vector indexed by key id: the workloads
//! move on to fresh keys for ever, and a forgotten key leaves nothing
//! behind, so a long run's store holds only the keys still in use.

use super::workload::{Key, KeyMap, Value};

/// What a transaction's reads see, besides its own writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct View {
    /// Versions committed at or before this timestamp; `None`: the latest
    /// committed at the time of each read.
    pub snapshot: Option<u64>,
    /// A commit (by timestamp) the view leaves out: a forked snapshot.
    pub hide: Option<u64>,
    /// Also other open transactions' uncommitted writes.
    pub dirty: bool,
}

/// How a transaction's writes are admitted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rules {
    /// Writes take the key's lock until commit or abort; a write to a key
    /// another transaction holds aborts (no waiting, so no deadlock).
    pub lock_writes: bool,
    /// Commit aborts if a written key has a version newer than the snapshot.
    pub first_committer_wins: bool,
}

/// The transaction was aborted by the database.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conflict;

#[derive(Default)]
struct KeyState {
    /// (commit timestamp, value), in commit order.
    versions: Vec<(u64, Value)>,
    /// The thread whose transaction holds the write lock.
    lock: Option<u32>,
}

struct Open {
    view: View,
    rules: Rules,
    /// Uncommitted writes, in order.
    writes: Vec<(Key, Value)>,
    locks: Vec<Key>,
}

/// The version a register's delete installs: a read of it sees nil, and
/// a predicate read leaves the key out. No workload writes it.
pub const DELETED: Value = Value::MAX;

/// Register keys keep at least this many versions before old ones are pruned.
const PRUNE_AT: usize = 64;

pub struct Db {
    list: bool,
    /// The keys with versions or a lock (or both).
    keys: KeyMap<KeyState>,
    clock: u64,
    open: Vec<Option<Open>>,
}

impl Db {
    /// A database for `threads` clients; `list` if reads return whole lists.
    pub fn new(threads: usize, list: bool) -> Db {
        Db {
            list,
            keys: KeyMap::default(),
            clock: 0,
            open: (0..threads).map(|_| None).collect(),
        }
    }

    /// The timestamp of the latest commit.
    pub fn clock(&self) -> u64 {
        self.clock
    }

    /// Moves the clock on to `ts` if it is behind: no later commit takes
    /// a timestamp already reported (a [`Lie`](super::scenario::Lie)).
    pub fn skip_to(&mut self, ts: u64) {
        self.clock = self.clock.max(ts);
    }

    pub fn begin(&mut self, thread: usize, view: View, rules: Rules) {
        self.open[thread] = Some(Open {
            view,
            rules,
            writes: Vec::new(),
            locks: Vec::new(),
        });
    }

    /// Appends what a read of `key` sees to `out`: the list, or the
    /// register's value (nothing for nil).
    pub fn read(&self, thread: usize, key: Key, out: &mut Vec<Value>) {
        let Some(txn) = &self.open[thread] else {
            return;
        };
        let start = out.len();
        self.committed(key, txn.view, out);
        if txn.view.dirty {
            if let Some(other) = self.dirty_writer(thread, key) {
                pending(other, key, out);
            }
        }
        pending(txn, key, out);
        if !self.list && out.len() > start + 1 {
            let last = out[out.len() - 1];
            out.truncate(start);
            out.push(last);
        }
        if !self.list && out.len() > start && out[start] == DELETED {
            out.truncate(start);
        }
    }

    /// Deletes a register: buffers a write of [`DELETED`].
    pub fn delete(&mut self, thread: usize, key: Key) -> Result<(), Conflict> {
        self.write(thread, key, DELETED)
    }

    /// Appends every register whose value the transaction on `thread`
    /// sees matches `pred`, as (key, value) in key order: the reads of
    /// every key any version or open write has, in one view.
    pub fn select(&self, thread: usize, pred: impl Fn(Value) -> bool, out: &mut Vec<(Key, Value)>) {
        let pending = self.open.iter().flatten().flat_map(|o| &o.writes);
        let mut keys: Vec<Key> = pending.map(|&(k, _)| k).collect();
        keys.extend(self.keys.keys());
        keys.sort_unstable();
        keys.dedup();
        let mut seen = Vec::new();
        for key in keys {
            seen.clear();
            self.read(thread, key, &mut seen);
            out.extend(seen.iter().filter(|&&v| pred(v)).map(|&v| (key, v)));
        }
    }

    /// The versions of `key` a view sees (all of them; a register read keeps
    /// the last).
    fn committed(&self, key: Key, view: View, out: &mut Vec<Value>) {
        let Some(state) = self.keys.get(&key) else {
            return;
        };
        let at = view.snapshot.unwrap_or(self.clock);
        let end = state.versions.partition_point(|&(ts, _)| ts <= at);
        let mut visible = state.versions[..end]
            .iter()
            .filter(|&&(ts, _)| Some(ts) != view.hide);
        if self.list {
            out.extend(visible.map(|&(_, v)| v));
        } else {
            out.extend(visible.next_back().map(|&(_, v)| v));
        }
    }

    /// Another open transaction with uncommitted writes to `key`: the lock
    /// holder, or else any.
    fn dirty_writer(&self, thread: usize, key: Key) -> Option<&Open> {
        let holder = self.keys.get(&key).and_then(|s| s.lock);
        match holder {
            Some(t) if t as usize != thread => self.open[t as usize].as_ref(),
            Some(_) => None,
            None => self
                .open
                .iter()
                .enumerate()
                .filter(|&(t, _)| t != thread)
                .filter_map(|(_, o)| o.as_ref())
                .find(|o| o.writes.iter().any(|&(k, _)| k == key)),
        }
    }

    /// Buffers a write; under `lock_writes` a key locked by another
    /// transaction aborts this one.
    pub fn write(&mut self, thread: usize, key: Key, value: Value) -> Result<(), Conflict> {
        let Some(txn) = self.open[thread].as_ref() else {
            return Err(Conflict);
        };
        if txn.rules.lock_writes && !self.lock(thread, key) {
            self.abort(thread);
            return Err(Conflict);
        }
        if let Some(txn) = self.open[thread].as_mut() {
            txn.writes.push((key, value));
        }
        Ok(())
    }

    /// Takes (or already holds) the write lock of `key`; false if another
    /// transaction holds it.
    fn lock(&mut self, thread: usize, key: Key) -> bool {
        let state = self.keys.entry(key).or_default();
        match state.lock {
            Some(t) => t as usize == thread,
            None => {
                state.lock = Some(thread as u32);
                if let Some(txn) = self.open[thread].as_mut() {
                    txn.locks.push(key);
                }
                true
            }
        }
    }

    /// Commits; returns the commit timestamp, or aborts on a write-write
    /// conflict under `first_committer_wins`.
    pub fn commit(&mut self, thread: usize) -> Result<u64, Conflict> {
        let Some(txn) = self.open[thread].take() else {
            return Err(Conflict);
        };
        self.release(&txn);
        if txn.rules.first_committer_wins && self.conflicts(&txn) {
            return Err(Conflict);
        }
        self.clock += 1;
        let ts = self.clock;
        for (i, &(key, value)) in txn.writes.iter().enumerate() {
            // A register keeps only a transaction's last write to a key.
            let overwritten = !self.list && txn.writes[i + 1..].iter().any(|&(k, _)| k == key);
            if !overwritten {
                self.install(key, ts, value);
            }
        }
        Ok(ts)
    }

    pub fn abort(&mut self, thread: usize) {
        if let Some(txn) = self.open[thread].take() {
            self.release(&txn);
        }
    }

    /// Forgets a key no transaction will touch again.
    pub fn forget(&mut self, key: Key) {
        self.keys.remove(&key);
    }

    fn release(&mut self, txn: &Open) {
        for k in &txn.locks {
            if let Some(state) = self.keys.get_mut(k) {
                state.lock = None;
            }
        }
    }

    fn conflicts(&self, txn: &Open) -> bool {
        let Some(snapshot) = txn.view.snapshot else {
            return false;
        };
        txn.writes.iter().any(|&(k, _)| {
            self.keys
                .get(&k)
                .and_then(|s| s.versions.last())
                .is_some_and(|&(ts, _)| ts > snapshot)
        })
    }

    fn install(&mut self, key: Key, ts: u64, value: Value) {
        let versions = &mut self.keys.entry(key).or_default().versions;
        versions.push((ts, value));
        if self.list || versions.len() < 2 * PRUNE_AT {
            return;
        }
        let horizon = self.horizon();
        if let Some(state) = self.keys.get_mut(&key) {
            prune(&mut state.versions, horizon);
        }
    }

    /// The oldest timestamp an open or future view can read at.
    fn horizon(&self) -> u64 {
        self.open
            .iter()
            .flatten()
            .filter_map(|o| o.view.snapshot)
            .min()
            .unwrap_or(self.clock)
    }
}

/// Drops register versions no open or future view can see: those older
/// than the last version at or before `horizon`.
fn prune(versions: &mut Vec<(u64, Value)>, horizon: u64) {
    let keep_from = versions
        .partition_point(|&(ts, _)| ts <= horizon)
        .saturating_sub(1)
        .min(versions.len().saturating_sub(PRUNE_AT));
    versions.drain(..keep_from);
}

/// Appends a transaction's uncommitted writes to `key`.
fn pending(txn: &Open, key: Key, out: &mut Vec<Value>) {
    out.extend(
        txn.writes
            .iter()
            .filter(|&&(k, _)| k == key)
            .map(|&(_, v)| v),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    const SI: Rules = Rules {
        lock_writes: false,
        first_committer_wins: true,
    };
    const LOCKS: Rules = Rules {
        lock_writes: true,
        first_committer_wins: false,
    };

    fn snapshot(db: &Db) -> View {
        View {
            snapshot: Some(db.clock()),
            ..View::default()
        }
    }

    fn read(db: &Db, thread: usize, key: Key) -> Vec<Value> {
        let mut out = Vec::new();
        db.read(thread, key, &mut out);
        out
    }

    #[test]
    fn snapshot_reads_ignore_later_commits_and_see_own_writes() {
        let mut db = Db::new(2, true);
        db.begin(0, snapshot(&db), SI);
        db.begin(1, snapshot(&db), SI);
        db.write(1, 7, 1).unwrap();
        db.commit(1).unwrap();
        assert_eq!(read(&db, 0, 7), Vec::<u64>::new());
        db.write(0, 8, 1).unwrap();
        db.write(0, 8, 2).unwrap();
        assert_eq!(read(&db, 0, 8), [1, 2]);
    }

    #[test]
    fn first_committer_wins() {
        let mut db = Db::new(2, false);
        db.begin(0, snapshot(&db), SI);
        db.begin(1, snapshot(&db), SI);
        db.write(0, 1, 1).unwrap();
        db.write(1, 1, 2).unwrap();
        assert!(db.commit(0).is_ok());
        assert_eq!(db.commit(1), Err(Conflict));
        db.begin(0, View::default(), Rules::default());
        assert_eq!(read(&db, 0, 1), [1]);
    }

    #[test]
    fn without_the_check_both_commit_and_the_second_wins() {
        let mut db = Db::new(2, false);
        db.begin(0, snapshot(&db), Rules::default());
        db.begin(1, snapshot(&db), Rules::default());
        db.write(0, 1, 1).unwrap();
        db.write(1, 1, 2).unwrap();
        assert!(db.commit(0).is_ok() && db.commit(1).is_ok());
        db.begin(0, View::default(), Rules::default());
        assert_eq!(read(&db, 0, 1), [2]);
    }

    #[test]
    fn locks_abort_the_second_writer_and_dirty_views_see_the_first() {
        let mut db = Db::new(3, true);
        db.begin(0, View::default(), LOCKS);
        db.begin(1, View::default(), LOCKS);
        let dirty = View {
            dirty: true,
            ..View::default()
        };
        db.begin(2, dirty, Rules::default());
        db.write(0, 4, 1).unwrap();
        assert_eq!(db.write(1, 4, 2), Err(Conflict));
        assert_eq!(read(&db, 2, 4), [1]);
        db.abort(0);
        assert_eq!(read(&db, 2, 4), Vec::<u64>::new());
        db.begin(1, View::default(), LOCKS);
        assert!(db.write(1, 4, 3).is_ok());
    }

    #[test]
    fn deleted_registers_read_nil_and_predicates_skip_them() {
        let mut db = Db::new(2, false);
        db.begin(0, View::default(), Rules::default());
        for (k, v) in [(0, 4), (1, 5), (2, 6)] {
            db.write(0, k, v).unwrap();
        }
        db.commit(0).unwrap();
        db.begin(0, snapshot(&db), SI);
        db.begin(1, View::default(), Rules::default());
        db.delete(1, 1).unwrap();
        db.write(1, 3, 8).unwrap();
        let mut seen = Vec::new();
        db.select(1, |v| v % 2 == 0, &mut seen);
        assert_eq!(seen, [(0, 4), (2, 6), (3, 8)]);
        assert_eq!(read(&db, 1, 1), Vec::<u64>::new());
        db.commit(1).unwrap();
        // The snapshot began before the delete.
        seen.clear();
        db.select(0, |_| true, &mut seen);
        assert_eq!(seen, [(0, 4), (1, 5), (2, 6)]);
    }

    #[test]
    fn a_hidden_commit_is_left_out() {
        let mut db = Db::new(1, true);
        for v in 1..=3 {
            db.begin(0, View::default(), Rules::default());
            db.write(0, 0, v).unwrap();
            db.commit(0).unwrap();
        }
        let forked = View {
            snapshot: Some(db.clock()),
            hide: Some(2),
            dirty: false,
        };
        db.begin(0, forked, Rules::default());
        assert_eq!(read(&db, 0, 0), [1, 3]);
    }

    #[test]
    fn forgotten_keys_leave_nothing_behind() {
        let mut db = Db::new(2, true);
        db.begin(1, View::default(), LOCKS);
        db.write(1, 1_000_000, 1).unwrap();
        for key in 0..1000 {
            db.begin(0, View::default(), LOCKS);
            db.write(0, key, 1).unwrap();
            db.commit(0).unwrap();
            db.forget(key);
        }
        // Only the key the open transaction holds locked is left.
        assert_eq!(db.keys.keys().collect::<Vec<_>>(), [&1_000_000]);
        db.begin(0, View::default(), Rules::default());
        assert_eq!(read(&db, 0, 999), Vec::<u64>::new());
        db.commit(1).unwrap();
        assert_eq!(read(&db, 0, 1_000_000), [1]);
    }

    #[test]
    fn register_versions_are_pruned_behind_the_oldest_snapshot() {
        let mut db = Db::new(2, false);
        let commit = |db: &mut Db, v: Value| {
            db.begin(0, View::default(), Rules::default());
            db.write(0, 0, v).unwrap();
            db.commit(0).unwrap();
        };
        (1..=500).for_each(|v| commit(&mut db, v));
        db.begin(1, snapshot(&db), SI);
        (501..=1000).for_each(|v| commit(&mut db, v));
        assert!(db.keys[&0].versions.len() <= 502);
        assert_eq!(read(&db, 1, 0), [500]);
        db.abort(1);
        (1001..=1200).for_each(|v| commit(&mut db, v));
        assert!(db.keys[&0].versions.len() < 2 * PRUNE_AT);
    }
}
