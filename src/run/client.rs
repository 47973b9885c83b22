//! A client thread: Jepsen's process. It takes the next planned
//! transaction, records its invocation, runs it on its own connection and
//! records the completion: `:ok` with the reads, `:fail` when the
//! transaction is known not to have committed (any error before commit, or
//! a commit the database refused), `:info` when the outcome is unknown. A
//! client whose transaction ended `:info` continues as a new process (its
//! old one may still be running, as far as anyone knows), and one whose
//! connection broke opens a new one.

use super::backend::{Connection, Database, DbError};
use super::recorder::Recorder;
use crate::gen::edn::{OpType, Reads};
use crate::gen::rng::Rng;
use crate::gen::workload::{Mop, Workload};
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a client waits before trying to connect again.
const RECONNECT_PAUSE: Duration = Duration::from_millis(100);

/// What the clients share: the plans, and when to stop.
pub struct Plans<'a> {
    pub workload: Mutex<(Workload, Rng)>,
    /// Transactions left to invoke.
    pub left: AtomicU64,
    pub deadline: Option<Instant>,
    /// Set by Ctrl-C (or a failed write of the history).
    pub stop: &'a AtomicBool,
}

impl Plans<'_> {
    /// The next transaction's micro-ops, or `None` when the run is over.
    fn next(&self) -> Option<Vec<Mop>> {
        let claimed = !self.over()
            && self
                .left
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
                .is_ok();
        if !claimed {
            return None;
        }
        let mut guard = self.workload.lock().unwrap_or_else(|e| e.into_inner());
        let (workload, rng) = &mut *guard;
        Some(workload.plan(rng))
    }

    /// Whether no transaction is left to invoke.
    fn over(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
            || self.deadline.is_some_and(|d| Instant::now() >= d)
            || self.left.load(Ordering::Relaxed) == 0
    }
}

/// Runs client `index` of `processes` until the plans run out.
pub fn run<W: Write>(
    index: u64,
    processes: u64,
    db: &dyn Database,
    plans: &Plans,
    recorder: &Recorder<W>,
) {
    let mut process = index;
    let mut conn: Option<Box<dyn Connection>> = None;
    let mut reads = Reads::default();
    loop {
        let c = match conn.as_mut() {
            Some(c) => c,
            None => match db.connect() {
                Ok(c) => conn.insert(c),
                Err(_) if plans.over() => return,
                Err(_) => {
                    std::thread::sleep(RECONNECT_PAUSE);
                    continue;
                }
            },
        };
        let Some(mops) = plans.next() else {
            return;
        };
        if !recorder.invoke(process, &mops) {
            plans.stop.store(true, Ordering::Relaxed);
            return;
        }
        let recorded = match transact(c.as_mut(), &mops, &mut reads) {
            Ok(()) => recorder.ok(process, &mops, &reads),
            Err((ty, e)) => {
                let written = recorder.failed(process, &mops, (ty, e.name, &e.message));
                if ty == OpType::Info {
                    process += processes;
                }
                if e.broken {
                    conn = None;
                }
                written
            }
        };
        if !recorded {
            plans.stop.store(true, Ordering::Relaxed);
            return;
        }
    }
}

/// Runs one transaction; on an error, the completion type it gets and the
/// error. The transaction is over either way.
pub fn transact(
    c: &mut dyn Connection,
    mops: &[Mop],
    reads: &mut Reads,
) -> Result<(), (OpType, DbError)> {
    reads.clear();
    let read_only = mops.iter().all(|m| matches!(m, Mop::Read(_)));
    let body = |c: &mut dyn Connection, reads: &mut Reads| {
        c.begin(read_only)?;
        for &m in mops {
            let start = reads.values.len() as u32;
            match m {
                Mop::Read(k) => c.read(k, &mut reads.values)?,
                Mop::Write(k, v) => c.write(k, v)?,
            }
            reads.spans.push((start, reads.values.len() as u32));
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

#[cfg(test)]
mod tests {
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

    impl Connection for Scripted {
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
        fn commit(&mut self) -> Result<(), DbError> {
            self.step("commit")
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
        transact(&mut c, &[Mop::Write(1, 2), Mop::Read(1)], &mut reads).unwrap();
        assert_eq!(reads.values, [7]);
        assert_eq!(reads.spans, [(0, 0), (0, 1)]);
        assert_eq!(c.log, ["begin", "write", "read", "commit"]);
    }
}
