//! A client thread: Jepsen's process, doing a [`Job`] (this module's
//! [`Txns`], or `cas.rs`'s register ops) within a shared [`Budget`]. It
//! takes the next planned op, records its invocation, runs it on its own
//! connection and records the completion: `:ok` with the reads, `:fail` when the
//! transaction is known not to have committed (any error before commit, or
//! a commit the database refused), `:info` when the outcome is unknown. A
//! client whose transaction ended `:info` continues as a new process (its
//! old one may still be running, as far as anyone knows). As Jepsen's
//! workers do, a client opens its connection after invoking the op, and
//! an op whose connection cannot be opened fails (`:no-client`): a server
//! that cannot be reached uses up the budget, so a run of `--txns` ends.

use super::backend::{CommitStamp, Connection, Database, DbError, Failed, Statements};
use super::recorder::Recorder;
use super::sim::lock;
use super::Interrupt;
use isocheck_gen::edn::{OpType, Reads};
use isocheck_gen::rng::Rng;
use isocheck_gen::workload::{Mop, Workload};
use std::collections::BTreeSet;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a client waits before trying to connect again.
const RECONNECT_PAUSE: Duration = Duration::from_millis(100);

/// How many ops the clients may invoke, and when they must stop.
pub struct Budget {
    /// Ops left to invoke.
    left: AtomicU64,
    deadline: Option<Instant>,
    /// Set by Ctrl-C.
    interrupt: &'static Interrupt,
    /// Set when the history cannot be written (or the clients could not
    /// all be started).
    halted: AtomicBool,
    /// `--rate`: when the first op was claimed, and the time between two
    /// invocations; the `k`th op claimed waits until `start + k * every`.
    pace: Option<(Instant, Duration)>,
    claimed: AtomicU64,
}

impl Budget {
    pub fn new(ops: u64, deadline: Option<Instant>, interrupt: &'static Interrupt) -> Budget {
        Budget {
            left: AtomicU64::new(ops),
            deadline,
            interrupt,
            halted: AtomicBool::new(false),
            pace: None,
            claimed: AtomicU64::new(0),
        }
    }

    /// Offers at most `rate` ops a second from `start` on, in all (an
    /// open-loop rate: a client whose op is due invokes it however long the
    /// ones before took).
    pub fn paced(mut self, start: Instant, rate: f64) -> Budget {
        self.pace = Some((start, Duration::from_secs_f64(1.0 / rate)));
        self
    }

    /// Takes one op from the budget, once it is due; false when the run is
    /// over.
    pub fn claim(&self) -> bool {
        let claimed = !self.over()
            && self
                .left
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
                .is_ok();
        let (true, Some((start, every))) = (claimed, self.pace) else {
            return claimed;
        };
        let k = self.claimed.fetch_add(1, Ordering::Relaxed);
        let due = u32::try_from(k)
            .ok()
            .and_then(|k| every.checked_mul(k))
            .and_then(|d| start.checked_add(d));
        if let Some(wait) = due.and_then(|due| due.checked_duration_since(Instant::now())) {
            std::thread::sleep(wait);
        }
        // The time limit or Ctrl-C may have come while it waited.
        !self.stopped()
    }

    /// Whether the run must stop, whatever is left to invoke.
    fn stopped(&self) -> bool {
        self.halted.load(Ordering::Relaxed)
            || self.interrupt.stop.load(Ordering::Relaxed)
            || self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Whether no op is left to invoke.
    pub fn over(&self) -> bool {
        self.stopped() || self.left.load(Ordering::Relaxed) == 0
    }

    /// Ends the run: no client invokes again.
    pub fn halt(&self) {
        self.halted.store(true, Ordering::Relaxed);
    }
}

/// What the clients do, one op at a time: the transactions of `gen`'s
/// workloads ([`Txns`]) or the cas-register's single ops.
pub trait Job: Send + Sync {
    type Op;
    fn budget(&self) -> &Budget;
    /// The next op, or `None` when the run is over.
    fn next(&self) -> Option<Self::Op>;
    /// Records the invocation; false once the history cannot be written.
    fn invoke(&self, process: u64, op: &Self::Op) -> bool;
    /// Records that the op failed before it reached the database (no
    /// connection); false once the history cannot be written.
    fn fail(&self, process: u64, op: &Self::Op, e: &DbError) -> bool;
    /// The op is over (performed, or failed without a connection):
    /// what only it held may go.
    fn done(&self, _op: &Self::Op, _db: &dyn Database) {}
    /// Runs the op on `c` and records its completion: whether that was
    /// recorded, and the error it ended with, if any.
    fn perform(
        &self,
        c: &mut dyn Connection,
        process: u64,
        op: &Self::Op,
    ) -> (bool, Option<(OpType, DbError)>);
}

/// The transactions of `gen`'s workloads.
pub struct Txns<W: Write> {
    pub budget: Budget,
    pub workload: Mutex<(Workload, Rng)>,
    pub recorder: Arc<Recorder<W>>,
    /// The serial numbers of the plans under way: keys the workload retired
    /// before the oldest of them are dead, and the database forgets them.
    pub open: Mutex<BTreeSet<u64>>,
    /// Whether the database forgets dead keys ([`Database::forgets`]):
    /// if not, no plan is kept in `open` and no key is found dead, so a
    /// finished transaction takes no lock.
    forgets: bool,
}

impl<W: Write> Txns<W> {
    /// The transactions of `workload` on a database that forgets dead keys
    /// or not (`forgets`).
    pub fn new(
        budget: Budget,
        workload: Workload,
        rng: Rng,
        recorder: Arc<Recorder<W>>,
        forgets: bool,
    ) -> Self {
        let workload = if forgets {
            workload
        } else {
            workload.without_dead_keys()
        };
        Txns {
            budget,
            workload: Mutex::new((workload, rng)),
            recorder,
            open: Mutex::new(BTreeSet::new()),
            forgets,
        }
    }
}

/// A planned transaction, with its serial number.
pub struct Plan {
    serial: u64,
    mops: Vec<Mop>,
}

impl<W: Write + Send> Job for Txns<W> {
    type Op = Plan;

    fn budget(&self) -> &Budget {
        &self.budget
    }

    fn next(&self) -> Option<Plan> {
        if !self.budget.claim() {
            return None;
        }
        // The plan is open before the workload is free again, so that no
        // key it touches is taken for dead meanwhile.
        let mut guard = lock(&self.workload);
        let (workload, rng) = &mut *guard;
        let serial = workload.next_serial();
        let mops = workload.plan(rng);
        if self.forgets {
            lock(&self.open).insert(serial);
        }
        Some(Plan { serial, mops })
    }

    fn invoke(&self, process: u64, plan: &Plan) -> bool {
        self.recorder.invoke(process, &plan.mops)
    }

    fn fail(&self, process: u64, plan: &Plan, e: &DbError) -> bool {
        let failure = (OpType::Fail, NO_CLIENT, e.message.as_str());
        self.recorder.failed(process, &plan.mops, failure)
    }

    fn done(&self, plan: &Plan, db: &dyn Database) {
        if !self.forgets {
            return;
        }
        let mut dead = Vec::new();
        {
            // The workload first, as `next` takes them.
            let mut guard = lock(&self.workload);
            let (workload, _) = &mut *guard;
            let mut open = lock(&self.open);
            open.remove(&plan.serial);
            let oldest = open.first().copied().unwrap_or(workload.next_serial());
            workload.take_dead_keys(oldest, &mut dead);
        }
        if !dead.is_empty() {
            db.forget(&dead);
        }
    }

    fn perform(
        &self,
        c: &mut dyn Connection,
        process: u64,
        plan: &Plan,
    ) -> (bool, Option<(OpType, DbError)>) {
        let mops = &plan.mops;
        let mut reads = Reads::default();
        match c.transaction(mops, &mut reads) {
            Ok(stamp) => (self.recorder.ok(process, mops, &reads, stamp), None),
            Err((ty, e)) => {
                let failure = (ty, e.name, e.message.as_str());
                (self.recorder.failed(process, mops, failure), Some((ty, e)))
            }
        }
    }
}

/// The `:error` of an op whose connection could not be opened, as
/// Jepsen's workers name it.
pub const NO_CLIENT: &str = "no-client";

/// Runs client `index` of `processes` until the job's budget runs out.
pub fn run<J: Job>(index: u64, processes: u64, db: &dyn Database, job: &J) {
    let mut process = index;
    let mut conn: Option<Box<dyn Connection>> = None;
    let halt = || job.budget().halt();
    while let Some(op) = job.next() {
        if !job.invoke(process, &op) {
            return halt();
        }
        let c = match conn.as_mut() {
            Some(c) => c,
            None => match db.connect() {
                Ok(c) => conn.insert(c),
                Err(e) => {
                    if !job.fail(process, &op, &e) {
                        return halt();
                    }
                    job.done(&op, db);
                    std::thread::sleep(RECONNECT_PAUSE);
                    continue;
                }
            },
        };
        let (recorded, error) = job.perform(c.as_mut(), process, &op);
        job.done(&op, db);
        if let Some((ty, e)) = error {
            if ty == OpType::Info {
                // One step per `:info` op: u64 does not run out.
                process = process.saturating_add(processes);
            }
            if e.broken {
                conn = None;
            }
        }
        if !recorded {
            return halt();
        }
    }
}

/// Runs one transaction: its commit's place in the commit order, where
/// recorded; on an error, the completion type it gets and the error. The
/// transaction is over either way.
pub fn transact<S: Statements + ?Sized>(
    c: &mut S,
    mops: &[Mop],
    reads: &mut Reads,
) -> Result<CommitStamp, Failed> {
    reads.clear();
    let read_only = mops.iter().all(|m| matches!(m, Mop::Read(_)));
    let body = |c: &mut S, reads: &mut Reads| {
        c.begin(read_only)?;
        for &m in mops {
            let start = reads.values.len();
            match m {
                Mop::Read(k) => c.read(k, &mut reads.values)?,
                Mop::Write(k, v) => c.write(k, v)?,
            }
            reads
                .spans
                .push((offset(start)?, offset(reads.values.len())?));
        }
        Ok(())
    };
    if let Err(e) = body(c, reads) {
        c.abort();
        return Err((OpType::Fail, e));
    }
    c.commit().map_err(|e| {
        c.abort();
        let ty = if e.definite {
            OpType::Fail
        } else {
            OpType::Info
        };
        (ty, e)
    })
}

/// A position in a transaction's read values: the server's lists are
/// short, but nothing it sends may overflow one.
fn offset(n: usize) -> Result<u32, DbError> {
    u32::try_from(n).map_err(|_| DbError::rejected("unreadable-list", "more than 2^32 values"))
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A connection that answers from a script, failing where told.
    struct Scripted {
        fail_at: Option<(&'static str, DbError)>,
        log: Vec<&'static str>,
    }

    impl Scripted {
        fn step(&mut self, what: &'static str) -> Result<(), DbError> {
            self.log.push(what);
            match &self.fail_at {
                Some((at, e)) if *at == what => Err(e.clone()),
                _ => Ok(()),
            }
        }
    }

    impl Statements for Scripted {
        fn begin(&mut self, _: bool) -> Result<(), DbError> {
            self.step("begin")
        }
        fn read(&mut self, _: u64, out: &mut Vec<u64>) -> Result<(), DbError> {
            out.push(7);
            self.step("read")
        }
        fn write(&mut self, _: u64, _: u64) -> Result<(), DbError> {
            self.step("write")
        }
        fn commit(&mut self) -> Result<CommitStamp, DbError> {
            self.step("commit").map(|()| Some(9))
        }
        fn abort(&mut self) {
            self.log.push("abort");
        }
    }

    fn outcome(at: &'static str, e: DbError) -> (Option<OpType>, Vec<&'static str>) {
        let mut c = Scripted {
            fail_at: Some((at, e)),
            log: Vec::new(),
        };
        let mut reads = Reads::default();
        let r = transact(&mut c, &[Mop::Read(1), Mop::Write(1, 2)], &mut reads);
        (r.err().map(|(ty, _)| ty), c.log)
    }

    #[test]
    fn errors_before_commit_fail_and_abort() {
        let lost = DbError::lost("connection-lost", "gone");
        for at in ["begin", "read", "write"] {
            let (ty, log) = outcome(at, lost.clone());
            assert_eq!(ty, Some(OpType::Fail), "{at}");
            assert_eq!(log.last(), Some(&"abort"));
            assert!(!log.contains(&"commit"));
        }
    }

    #[test]
    fn a_commit_error_is_info_unless_definite() {
        let (ty, _) = outcome("commit", DbError::lost("connection-lost", "gone"));
        assert_eq!(ty, Some(OpType::Info));
        let (ty, _) = outcome("commit", DbError::rejected("serialization-failure", "no"));
        assert_eq!(ty, Some(OpType::Fail));
    }

    #[test]
    fn reads_are_kept_per_micro_op() {
        let mut c = Scripted {
            fail_at: None,
            log: Vec::new(),
        };
        let mut reads = Reads::default();
        let stamp = transact(&mut c, &[Mop::Write(1, 2), Mop::Read(1)], &mut reads).unwrap();
        assert_eq!(stamp, Some(9), "the commit's stamp is passed on");
        assert_eq!(reads.values, [7]);
        assert_eq!(reads.spans, [(0, 0), (0, 1)]);
        assert_eq!(c.log, ["begin", "write", "read", "commit"]);
    }

    /// A database no client can connect to.
    pub struct Unreachable;

    impl Database for Unreachable {
        fn setup(&self) -> Result<(), DbError> {
            Ok(())
        }
        fn connect(&self) -> Result<Box<dyn Connection>, DbError> {
            Err(DbError::lost("cannot-connect", "refused"))
        }
        fn commit_order(&self) -> crate::backend::CommitOrder {
            crate::backend::CommitOrder::Unavailable("unreachable".into())
        }
    }

    #[test]
    fn an_op_without_a_connection_fails_and_uses_up_the_budget() {
        static NEVER: Interrupt = Interrupt::new();
        let mut out = Vec::new();
        let recorder = Arc::new(Recorder::new(&mut out, isocheck_gen::Kind::ListAppend));
        let job = Txns::new(
            Budget::new(3, None, &NEVER),
            Workload::new(isocheck_gen::Params::default().shape),
            Rng::new(1),
            Arc::clone(&recorder),
            Unreachable.forgets(),
        );
        run(0, 1, &Unreachable, &job);
        let counts = recorder.counts();
        assert_eq!((counts.invoked, counts.failed), (3, 3));
        drop((job, recorder));
        let history = String::from_utf8(out).unwrap();
        let failed = history.lines().filter(|l| l.contains(":type :fail"));
        assert!(failed
            .clone()
            .all(|l| l.contains(":error [:no-client \"refused\"]")));
        assert_eq!(failed.count(), 3, "{history}");
    }
}
