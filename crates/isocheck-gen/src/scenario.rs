//! The forced faults: for each [`Fault`] and [`TimestampFault`], a short
//! script of transactions on fresh keys, run once with every other client
//! idle, that makes the anomaly certain whatever the random rest of the
//! history does.
//!
//! Scripts use two client threads and two keys (`X`, `Y`); every write is
//! preceded by a read of its key, so they fit every workload, mini-transactions
//! included. For a [`Fault`] the database's views do the misbehaving: a
//! snapshot taken before a commit the reader should see, a snapshot that
//! leaves one commit out, or a dirty read of another transaction's
//! uncommitted writes. For a [`TimestampFault`] the isolation is right and
//! the reported timestamps lie ([`Lie`]).

use super::db::{Rules, View};
use super::run::Run;
use super::workload::{Key, Mop};
use super::Level;
use std::io::{self, Write};

/// An injected anomaly.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Two concurrent read-modify-writes of a key both commit: snapshot
    /// isolation without its write-write conflict check (also turned off for
    /// the whole run at `--level snapshot-isolation`).
    LostUpdate,
    /// Two concurrent transactions read two keys and each writes one: what a
    /// correct snapshot-isolated database allows and serializability forbids.
    WriteSkew,
    /// Two readers see two independent writes in opposite orders.
    LongFork,
    /// A reader sees a transaction but not one it read from.
    Causality,
    /// A read of a write whose transaction aborts (G1a).
    AbortedRead,
    /// A read of a write its transaction later overwrites (G1b).
    IntermediateRead,
    /// A process reads from a snapshot older than its own previous commit.
    StaleSessionRead,
    /// A transaction's snapshot misses one that completed before it began.
    Realtime,
}

/// A lie about the timestamps the database reports (`gen --timestamps`);
/// what the transactions read is right. Each shows, whatever the rest of
/// the history, as the timestamp anomaly `check --check-timestamps` names
/// at the levels [`TimestampFault::levels`] lists.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimestampFault {
    /// A transaction reports a start timestamp after its commit timestamp
    /// (`timestamp-inverted`; every level).
    StartAfterCommit,
    /// A transaction reports a snapshot older than the commit it read
    /// (`timestamp-snapshot-read`; snapshot-isolation).
    StaleStart,
    /// A writer reports its commit after the commit of a transaction that
    /// read its write (`timestamp-serial-read` at the serializable levels,
    /// `timestamp-snapshot-read` at snapshot-isolation).
    CommitSkew,
    /// Two writers of a key, the second having read the first, report each
    /// other's commit timestamps: the versions were installed in the other
    /// order (`timestamp-serial-read` at the serializable levels,
    /// `timestamp-lost-update` and `timestamp-snapshot-read` at
    /// snapshot-isolation).
    CommitOutOfOrder,
}

impl TimestampFault {
    /// The levels whose checks show the lie: `check --check-timestamps` at
    /// the level's model judges reads by the start timestamp only under
    /// snapshot isolation, by the commit timestamp only under
    /// serializability, and a start after a commit under every model.
    pub fn levels(self) -> &'static [Level] {
        const SERIAL_OR_SNAPSHOT: &[Level] = &[
            Level::StrictSerializable,
            Level::Serializable,
            Level::SnapshotIsolation,
        ];
        match self {
            TimestampFault::StartAfterCommit => &[
                Level::StrictSerializable,
                Level::Serializable,
                Level::SnapshotIsolation,
                Level::ReadCommitted,
                Level::ReadUncommitted,
            ],
            TimestampFault::StaleStart => &[Level::SnapshotIsolation],
            TimestampFault::CommitSkew | TimestampFault::CommitOutOfOrder => SERIAL_OR_SNAPSHOT,
        }
    }
}

/// How far the timestamps a transaction reports are from the true ones: its
/// snapshot and its commit, each moved by so many ticks of the commit clock.
/// A script runs alone, so each of its commits takes the next tick: a lie of
/// `+1` names the script's next commit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Lie {
    pub start: i64,
    pub commit: i64,
}

impl Lie {
    /// The timestamps reported for a transaction whose snapshot and commit
    /// were `start` and `commit`.
    pub fn tell(self, start: Option<u64>, commit: u64) -> (Option<u64>, u64) {
        let start = start.map(|s| s.saturating_add_signed(self.start));
        (start, commit.saturating_add_signed(self.commit))
    }
}

/// What a script forces: an anomaly, or a lie in the timestamps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scripted {
    Anomaly(Fault),
    Timestamps(TimestampFault),
}

/// Which snapshot a scripted transaction reads.
#[derive(Clone, Copy, Debug)]
enum Sees {
    /// Everything committed when it begins.
    Now,
    /// Everything committed before script transaction `n` committed.
    Before(usize),
    /// Everything committed when it begins, except script transaction `n`.
    Hiding(usize),
    /// The latest writes, committed or not.
    Dirty,
}

/// One step of a script; transactions and keys are numbered from 0.
#[derive(Clone, Copy, Debug)]
enum Step {
    /// Transaction, thread, snapshot.
    Begin(usize, usize, Sees),
    Read(usize, usize),
    Write(usize, usize),
    Commit(usize),
    /// Commits, reporting timestamps off by the lie.
    CommitAs(usize, Lie),
    Abort(usize),
}

const X: usize = 0;
const Y: usize = 1;

use Sees::*;
use Step::*;

fn script(scripted: Scripted) -> &'static [Step] {
    match scripted {
        Scripted::Anomaly(fault) => anomaly(fault),
        Scripted::Timestamps(lie) => lie_script(lie),
    }
}

/// Each script runs alone, so transaction 0 begins at clock `c`, commits at
/// `c + 1`, and transaction 1 begins at `c + 1` and commits at `c + 2`.
fn lie_script(fault: TimestampFault) -> &'static [Step] {
    match fault {
        // Reported start c + 2, commit c + 1.
        TimestampFault::StartAfterCommit => &[
            Begin(0, 0, Now),
            Read(0, X),
            Write(0, X),
            CommitAs(
                0,
                Lie {
                    start: 2,
                    commit: 0,
                },
            ),
        ],
        // Transaction 1 read transaction 0's write (commit c + 1) and
        // reports its snapshot as c.
        TimestampFault::StaleStart => &[
            Begin(0, 0, Now),
            Read(0, X),
            Write(0, X),
            Commit(0),
            Begin(1, 1, Now),
            Read(1, X),
            CommitAs(
                1,
                Lie {
                    start: -1,
                    commit: 0,
                },
            ),
        ],
        // Transaction 0 reports its commit as c + 3, after transaction 1
        // (snapshot c + 1, commit c + 2) read its write.
        TimestampFault::CommitSkew => &[
            Begin(0, 0, Now),
            Read(0, X),
            Write(0, X),
            CommitAs(
                0,
                Lie {
                    start: 0,
                    commit: 2,
                },
            ),
            Begin(1, 1, Now),
            Read(1, X),
            Commit(1),
        ],
        // Transaction 0 reports c + 2, transaction 1 (which read and
        // overwrote its write) c + 1.
        TimestampFault::CommitOutOfOrder => &[
            Begin(0, 0, Now),
            Read(0, X),
            Write(0, X),
            CommitAs(
                0,
                Lie {
                    start: 0,
                    commit: 1,
                },
            ),
            Begin(1, 1, Now),
            Read(1, X),
            Write(1, X),
            CommitAs(
                1,
                Lie {
                    start: 0,
                    commit: -1,
                },
            ),
        ],
    }
}

fn anomaly(fault: Fault) -> &'static [Step] {
    match fault {
        Fault::LostUpdate => &[
            Begin(0, 0, Now),
            Begin(1, 1, Now),
            Read(0, X),
            Read(1, X),
            Write(0, X),
            Write(1, X),
            Commit(0),
            Commit(1),
            Begin(2, 0, Now),
            Read(2, X),
            Commit(2),
        ],
        Fault::WriteSkew => &[
            Begin(0, 0, Now),
            Begin(1, 1, Now),
            Read(0, X),
            Read(0, Y),
            Read(1, X),
            Read(1, Y),
            Write(0, X),
            Write(1, Y),
            Commit(0),
            Commit(1),
        ],
        Fault::LongFork => &[
            Begin(0, 0, Now),
            Read(0, X),
            Write(0, X),
            Commit(0),
            Begin(1, 1, Now),
            Read(1, Y),
            Write(1, Y),
            Commit(1),
            Begin(2, 0, Hiding(1)),
            Read(2, X),
            Read(2, Y),
            Commit(2),
            Begin(3, 1, Hiding(0)),
            Read(3, X),
            Read(3, Y),
            Commit(3),
        ],
        Fault::Causality => &[
            Begin(0, 0, Now),
            Read(0, X),
            Write(0, X),
            Commit(0),
            Begin(1, 1, Now),
            Read(1, X),
            Read(1, Y),
            Write(1, Y),
            Commit(1),
            Begin(2, 1, Hiding(0)),
            Read(2, Y),
            Read(2, X),
            Commit(2),
        ],
        Fault::AbortedRead => &[
            Begin(0, 0, Now),
            Read(0, X),
            Write(0, X),
            Begin(1, 1, Dirty),
            Read(1, X),
            Abort(0),
            Commit(1),
        ],
        Fault::IntermediateRead => &[
            Begin(0, 0, Now),
            Read(0, X),
            Write(0, X),
            Begin(1, 1, Dirty),
            Read(1, X),
            Write(0, X),
            Commit(0),
            Commit(1),
        ],
        Fault::StaleSessionRead => &[
            Begin(0, 0, Now),
            Read(0, X),
            Write(0, X),
            Commit(0),
            Begin(1, 0, Before(0)),
            Read(1, X),
            Commit(1),
        ],
        Fault::Realtime => &[
            Begin(0, 0, Now),
            Read(0, X),
            Write(0, X),
            Commit(0),
            Begin(1, 1, Before(0)),
            Read(1, X),
            Commit(1),
        ],
    }
}

/// Client threads a script needs.
pub const THREADS: u64 = 2;

/// Runs a script; every thread must be idle.
pub(super) fn force<W: Write>(run: &mut Run<W>, scripted: Scripted) -> io::Result<()> {
    let steps = script(scripted);
    let keys: Vec<Key> = (0..2).map(|_| run.workload.fresh_key()).collect();
    let txns = 1 + steps
        .iter()
        .filter_map(|s| match *s {
            Begin(t, ..) => Some(t),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    let mut plans: Vec<Vec<Mop>> = vec![Vec::new(); txns];
    for s in steps {
        match *s {
            Read(t, k) => plans[t].push(Mop::Read(keys[k])),
            Write(t, k) => {
                let v = run.workload.next_value(keys[k]);
                plans[t].push(Mop::Write(keys[k], v));
            }
            _ => {}
        }
    }
    let mut thread = vec![0; txns];
    let mut commits = vec![0; txns];
    let mut told = 0;
    for s in steps {
        run.tick();
        match *s {
            Begin(t, th, sees) => {
                thread[t] = th;
                let view = view(run.db.clock(), sees, &commits);
                let plan = (run.workload.next_serial(), std::mem::take(&mut plans[t]));
                run.begin(th, plan, view, Rules::default())?;
            }
            Read(t, _) | Write(t, _) => {
                // Scripts take no locks and no write-write check: no conflict.
                let _ = run.exec_next(thread[t]);
            }
            Commit(t) => commits[t] = run.commit(thread[t], Lie::default())?.unwrap_or(0),
            CommitAs(t, lie) => {
                commits[t] = run.commit(thread[t], lie)?.unwrap_or(0);
                told = told.max(lie.tell(None, commits[t]).1);
            }
            Abort(t) => run.abort(thread[t])?,
        }
    }
    // No later commit takes a timestamp a lie reported (the script's own
    // commits must take theirs, so only once it is over).
    run.db.skip_to(told);
    keys.iter().for_each(|&k| run.db.forget(k));
    Ok(())
}

fn view(clock: u64, sees: Sees, commits: &[u64]) -> View {
    let now = View {
        snapshot: Some(clock),
        ..View::default()
    };
    match sees {
        Now => now,
        Before(t) => View {
            snapshot: Some(commits[t].saturating_sub(1)),
            ..now
        },
        Hiding(t) => View {
            hide: Some(commits[t]),
            ..now
        },
        Dirty => View {
            dirty: true,
            ..View::default()
        },
    }
}
