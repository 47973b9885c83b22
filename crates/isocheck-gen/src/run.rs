//! The discrete-event run: client threads, each with at most one open
//! transaction, advanced one step at a time in an order the seeded RNG
//! picks. A step invokes a transaction, runs one of its micro-ops, or ends
//! it (commit, abort, or a crash reported as `:info`). Every op is written
//! as it happens; nothing of the history is kept.

use super::db::{Conflict, Db, Rules, View};
use super::edn::{HistoryWriter, OpType, Reads};
use super::rng::Rng;
use super::scenario::{self, Lie, Scripted};
use super::workload::{Key, Mop, Workload};
use super::{Level, Params, Summary};
use std::io::{self, Write};

struct Running {
    mops: Vec<Mop>,
    /// Micro-ops run (or, when the level runs transactions at commit, steps taken).
    cursor: usize,
    reads: Reads,
    /// The workload's serial number for the plan (a scripted transaction
    /// takes the next one, which only delays forgetting keys).
    serial: u64,
    /// The snapshot its reads see, if they see one (`--timestamps`).
    snapshot: Option<u64>,
}

struct Thread {
    /// The Jepsen process: a thread whose transaction crashed (`:info`)
    /// continues as a new process, `threads` higher.
    process: u64,
    txn: Option<Running>,
}

pub(super) struct Run<'a, W: Write> {
    p: &'a Params,
    rng: Rng,
    pub(super) db: Db,
    pub(super) workload: Workload,
    out: HistoryWriter<W>,
    threads: Vec<Thread>,
    time: u64,
    invoked: u64,
    open: usize,
    /// The serial numbers of the open transactions, each with how many
    /// hold it: the oldest is the first (a scan of every thread at each
    /// completion was quadratic in processes: 116 s at 100,000).
    open_serials: std::collections::BTreeMap<u64, u32>,
    dead: Vec<Key>,
    /// Outcome counts.
    summary: Summary,
}

/// Runs the simulation and writes its history.
pub(super) fn write<W: Write>(out: W, p: &Params) -> io::Result<Summary> {
    let mut run = Run::new(out, p);
    // Each script at a random point (drawn in this order, so that a run
    // without a timestamp fault draws as it did before there were any).
    let scripts = [
        p.fault.map(Scripted::Anomaly),
        p.timestamp_fault.map(Scripted::Timestamps),
    ];
    let mut pending: Vec<(Scripted, u64)> = scripts
        .into_iter()
        .flatten()
        .map(|s| (s, run.rng.below(p.txns.saturating_add(1))))
        .collect();
    loop {
        let more = run.invoked < p.txns && run.out.bytes() < p.max_bytes;
        let due = pending
            .iter()
            .position(|&(_, at)| !more || run.invoked >= at);
        if let Some(i) = due {
            if run.open == 0 {
                let (scripted, _) = pending.remove(i);
                scenario::force(&mut run, scripted)?;
                continue;
            }
        }
        if !more && run.open == 0 && pending.is_empty() {
            break;
        }
        run.step(more && due.is_none())?;
    }
    let summary = Summary {
        transactions: run.out.ops() / 2,
        ops: run.out.ops(),
        bytes: run.out.bytes(),
        ..run.summary
    };
    run.out.finish()?;
    Ok(summary)
}

impl<'a, W: Write> Run<'a, W> {
    fn new(out: W, p: &'a Params) -> Run<'a, W> {
        let threads = p.processes.max(1);
        let kind = p.shape.kind;
        Run {
            p,
            rng: Rng::new(p.seed),
            db: Db::new(threads as usize, kind.is_list()),
            workload: Workload::new(p.shape.clone()),
            out: HistoryWriter::new(out, kind),
            threads: (0..threads)
                .map(|process| Thread { process, txn: None })
                .collect(),
            time: 0,
            invoked: 0,
            open: 0,
            open_serials: Default::default(),
            dead: Vec::new(),
            summary: Summary::default(),
        }
    }

    /// Lets some time pass.
    pub(super) fn tick(&mut self) {
        self.time += 1 + self.rng.below(1_000_000);
    }

    /// Advances a random thread by one step; an idle one invokes a new
    /// transaction if `invoke`.
    fn step(&mut self, invoke: bool) -> io::Result<()> {
        let t = self.rng.below(self.threads.len() as u64) as usize;
        self.tick();
        let Some(txn) = self.threads[t].txn.as_mut() else {
            if invoke {
                let serial = self.workload.next_serial();
                let mops = self.workload.plan(&mut self.rng);
                let level = self.p.level;
                let view = level.view(self.db.clock());
                self.begin(t, (serial, mops), view, level.rules(self.p.fault))?;
                self.invoked += 1;
            }
            return Ok(());
        };
        if txn.cursor == txn.mops.len() {
            return self.end(t);
        }
        if self.p.level.at_commit() {
            // The micro-ops run at commit; the step only lets time pass.
            txn.cursor += 1;
        } else if self.exec_next(t).is_err() {
            self.complete(t, OpType::Fail)?;
        }
        Ok(())
    }

    /// Ends a transaction whose micro-ops have all run: the client gives up
    /// (`:fail`), crashes (`:info`, committed or not), or commits.
    fn end(&mut self, t: usize) -> io::Result<()> {
        let u = self.rng.unit();
        if u < self.p.fail_rate {
            return self.abort(t);
        }
        let crash = u < self.p.fail_rate + self.p.info_rate;
        if self.p.level.at_commit() {
            let len = match self.threads[t].txn.as_mut() {
                Some(txn) => {
                    txn.cursor = 0;
                    txn.mops.len()
                }
                None => 0,
            };
            for _ in 0..len {
                if self.exec_next(t).is_err() {
                    return self.complete(t, OpType::Fail);
                }
            }
        }
        if !crash {
            return self.commit(t, Lie::default()).map(|_| ());
        }
        let committed = self.rng.chance(0.5) && self.db.commit(t).is_ok();
        self.db.abort(t);
        self.summary.crashed_committed += u64::from(committed);
        self.complete(t, OpType::Info)?;
        self.threads[t].process += self.threads.len() as u64;
        Ok(())
    }

    /// Opens a transaction on an idle thread and writes its invocation;
    /// `plan` is the workload's serial number for the micro-ops and them.
    pub(super) fn begin(
        &mut self,
        t: usize,
        (serial, mops): (u64, Vec<Mop>),
        view: View,
        rules: Rules,
    ) -> io::Result<()> {
        let process = self.threads[t].process;
        self.out
            .op(OpType::Invoke, self.time, process, &mops, None)?;
        self.db.begin(t, view, rules);
        self.threads[t].txn = Some(Running {
            mops,
            cursor: 0,
            reads: Reads::default(),
            serial,
            snapshot: view.snapshot,
        });
        self.open += 1;
        *self.open_serials.entry(serial).or_default() += 1;
        Ok(())
    }

    /// Runs the thread's next micro-op; a conflict has aborted the transaction.
    pub(super) fn exec_next(&mut self, t: usize) -> Result<(), Conflict> {
        let Some(txn) = self.threads[t].txn.as_mut() else {
            return Err(Conflict);
        };
        let i = txn.cursor;
        txn.cursor += 1;
        let start = txn.reads.values.len() as u32;
        txn.reads.spans.truncate(i);
        let result = match txn.mops[i] {
            Mop::Read(k) => {
                self.db.read(t, k, &mut txn.reads.values);
                Ok(())
            }
            Mop::Write(k, v) => self.db.write(t, k, v),
        };
        let end = txn.reads.values.len() as u32;
        txn.reads.spans.push((start, end));
        result
    }

    /// Commits and writes `:ok` (with its timestamps as `lie` tells them),
    /// or `:fail` on a conflict; returns the true commit timestamp.
    pub(super) fn commit(&mut self, t: usize, lie: Lie) -> io::Result<Option<u64>> {
        match self.db.commit(t) {
            Ok(ts) => {
                if self.p.timestamps {
                    let snapshot = self.threads[t].txn.as_ref().and_then(|r| r.snapshot);
                    let (start, commit) = lie.tell(snapshot, ts);
                    self.out.stamp_next(start, commit);
                }
                self.complete(t, OpType::Ok).map(|_| Some(ts))
            }
            Err(Conflict) => self.complete(t, OpType::Fail).map(|_| None),
        }
    }

    /// Aborts and writes `:fail`.
    pub(super) fn abort(&mut self, t: usize) -> io::Result<()> {
        self.db.abort(t);
        self.complete(t, OpType::Fail)
    }

    /// Writes the completion of the thread's transaction (its reads only if
    /// `:ok`) and lets the database forget keys nobody can touch any more.
    fn complete(&mut self, t: usize, ty: OpType) -> io::Result<()> {
        self.db.abort(t);
        let Some(txn) = self.threads[t].txn.take() else {
            return Ok(());
        };
        let reads = (ty == OpType::Ok).then_some(&txn.reads);
        let process = self.threads[t].process;
        self.out.op(ty, self.time, process, &txn.mops, reads)?;
        self.open -= 1;
        match ty {
            OpType::Ok => self.summary.ok += 1,
            OpType::Fail => self.summary.failed += 1,
            _ => self.summary.crashed += 1,
        }
        if let Some(n) = self.open_serials.get_mut(&txn.serial) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                self.open_serials.remove(&txn.serial);
            }
        }
        let oldest = match self.open_serials.first_key_value() {
            Some((&serial, _)) => serial,
            None => self.workload.next_serial(),
        };
        self.workload.take_dead_keys(oldest, &mut self.dead);
        for k in self.dead.drain(..) {
            self.db.forget(k);
        }
        Ok(())
    }
}

impl Level {
    /// The view a transaction of this level starts with.
    pub fn view(self, clock: u64) -> View {
        match self {
            Level::SnapshotIsolation => View {
                snapshot: Some(clock),
                ..View::default()
            },
            Level::ReadUncommitted => View {
                dirty: true,
                ..View::default()
            },
            _ => View::default(),
        }
    }

    pub fn rules(self, fault: Option<super::Fault>) -> Rules {
        match self {
            Level::SnapshotIsolation => Rules {
                first_committer_wins: fault != Some(super::Fault::LostUpdate),
                ..Rules::default()
            },
            Level::ReadCommitted | Level::ReadUncommitted => Rules {
                lock_writes: true,
                ..Rules::default()
            },
            _ => Rules::default(),
        }
    }

    /// Serializable levels run a transaction's micro-ops at its commit, all
    /// at once; the others one step at a time.
    pub fn at_commit(self) -> bool {
        matches!(self, Level::StrictSerializable | Level::Serializable)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{to_string, write, Fault, Kind, Params};
    use super::*;

    fn summary(p: &Params) -> Summary {
        write(io::sink(), p).expect("runs")
    }

    #[test]
    fn crashed_transactions_both_commit_and_do_not() {
        for level in [
            Level::StrictSerializable,
            Level::SnapshotIsolation,
            Level::ReadCommitted,
        ] {
            let p = Params {
                level,
                info_rate: 0.2,
                ..Params::default()
            };
            let s = summary(&p);
            assert_eq!(s.ok + s.failed + s.crashed, p.txns);
            assert!(s.crashed_committed > 20, "{level:?}: {s:?}");
            assert!(s.crashed - s.crashed_committed > 20, "{level:?}: {s:?}");
        }
    }

    #[test]
    fn snapshot_isolation_aborts_write_write_conflicts_unless_the_fault_allows_them() {
        let mut p = Params {
            level: Level::SnapshotIsolation,
            fail_rate: 0.0,
            ..Params::default()
        };
        p.shape.keys = 2;
        assert!(summary(&p).failed > 100);
        p.fault = Some(Fault::LostUpdate);
        assert_eq!(summary(&p).failed, 0);
    }

    #[test]
    fn a_crashed_process_continues_as_a_new_one() {
        let p = Params {
            processes: 3,
            info_rate: 0.5,
            txns: 50,
            ..Params::default()
        };
        let text = to_string(&p).expect("runs");
        assert!(text.contains(":process 3,") || text.contains(":process 4,"));
    }

    #[test]
    fn a_fault_is_forced_even_when_the_size_limit_ends_the_run_first() {
        for fault in [Fault::WriteSkew, Fault::Realtime] {
            let mut p = Params {
                txns: 1000,
                max_bytes: 200,
                fault: Some(fault),
                ..Params::default()
            };
            p.shape.kind = Kind::RwRegister;
            let s = summary(&p);
            assert!(s.transactions < 10, "{s:?}");
            let scripted = to_string(&p).expect("runs");
            assert!(scripted.contains("[:w 10 1]"), "{scripted}");
        }
    }

    #[test]
    fn a_fault_script_runs_with_every_other_client_idle() {
        let mut p = Params {
            fault: Some(Fault::LongFork),
            txns: 200,
            ..Params::default()
        };
        p.shape.kind = Kind::RwRegister;
        let text = to_string(&p).expect("runs");
        let lines: Vec<&str> = text.lines().collect();
        let first = lines
            .iter()
            .position(|l| l.contains("[:r 10 nil]"))
            .expect("the script reads a fresh key");
        let open_before = lines[..first]
            .iter()
            .map(|l| if l.contains(":invoke") { 1i64 } else { -1 })
            .sum::<i64>();
        assert_eq!(open_before, 0);
    }
}
