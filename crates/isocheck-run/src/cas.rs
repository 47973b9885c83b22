//! The cas-register workload (Jepsen's, the "lwt" of `gen lwt`) on a real
//! database: single ops on registers, each in its own transaction. As
//! `gen lwt` does, each register is written once, first, then read or
//! compare-and-set from the value last seen to a fresh one (`Connection::cas`: `UPDATE ... WHERE v = expected`, the
//! rows it changed saying whether it took). Values are unique per key, so
//! the linearizability check (`registers`, per key) stays cheap: a
//! register's only blind write is its first (many would leave the check a
//! search over their orders). Ops are
//! recorded as Jepsen's `jepsen.independent` cas-register ops:
//! `:f :read/:write/:cas`, `:value [key value]` or `[key [old new]]`.
//!
//! A cas that found another value is `:fail`; an op whose commit was not
//! answered is `:info` (a read's is `:fail`: it changed nothing).

use super::backend::{Connection, DbError, Failed, Statements};
use super::client::{Budget, Job, NO_CLIENT};
use super::recorder::Recorder;
use isocheck_gen::edn::OpType;
use isocheck_gen::rng::Rng;
use isocheck_gen::workload::{Key, Value};
use std::io::Write;
use std::sync::{Arc, Mutex};

/// One op on a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Read(Key),
    Write(Key, Value),
    /// From the expected value to a new one.
    Cas(Key, Value, Value),
}

/// The chance of a read of a register with a value; the rest are cas.
const READS: f64 = 0.3;

/// Chooses the ops: per key, the last value handed out (in order, so it is
/// the count: 0 before the first write) and the last value an op saw there.
struct Planner {
    rng: Rng,
    written: Vec<Value>,
    seen: Vec<Option<Value>>,
}

impl Planner {
    fn plan(&mut self) -> Op {
        let key = self.rng.below(self.written.len() as u64);
        let k = key as usize;
        match (self.written[k], self.seen[k]) {
            (0, _) => Op::Write(key, self.fresh(k)),
            // Written, but no op has seen a value yet.
            (_, None) => Op::Read(key),
            (_, Some(_)) if self.rng.chance(READS) => Op::Read(key),
            (_, Some(old)) => Op::Cas(key, old, self.fresh(k)),
        }
    }

    fn fresh(&mut self, k: usize) -> Value {
        self.written[k] += 1;
        self.written[k]
    }
}

/// The job of the clients of a cas-register run.
pub struct Registers<W: Write> {
    budget: Budget,
    planner: Mutex<Planner>,
    recorder: Arc<Recorder<W>>,
}

impl<W: Write> Registers<W> {
    pub fn new(budget: Budget, keys: u64, seed: u64, recorder: Arc<Recorder<W>>) -> Self {
        let keys = keys.max(1) as usize;
        Registers {
            budget,
            planner: Mutex::new(Planner {
                rng: Rng::new(seed),
                written: vec![0; keys],
                seen: vec![None; keys],
            }),
            recorder,
        }
    }

    fn saw(&self, key: Key, value: Value) {
        let mut planner = self.planner.lock().unwrap_or_else(|e| e.into_inner());
        planner.seen[key as usize] = Some(value);
    }
}

/// The op's `:f` and its invocation's `:value`.
fn invocation(op: Op) -> (&'static str, String) {
    match op {
        Op::Read(k) => ("read", format!("[{k} nil]")),
        Op::Write(k, v) => ("write", format!("[{k} {v}]")),
        Op::Cas(k, old, new) => ("cas", format!("[{k} [{old} {new}]]")),
    }
}

/// Runs `op` in a transaction of its own; what a read saw (`None` for
/// nil), or the completion type and error it ended with.
pub fn perform<S: Statements + ?Sized>(c: &mut S, op: Op) -> Result<Option<Value>, Failed> {
    let fail = |c: &mut S, e| {
        c.abort();
        (OpType::Fail, e)
    };
    if let Err(e) = c.begin(matches!(op, Op::Read(_))) {
        return Err(fail(c, e));
    }
    let mut seen = Vec::new();
    let done = match op {
        Op::Read(k) => c.read(k, &mut seen).map(|()| true),
        Op::Write(k, v) => c.write(k, v).map(|()| true),
        Op::Cas(k, old, new) => c.cas(k, old, new),
    };
    match done {
        Err(e) => return Err(fail(c, e)),
        Ok(false) => {
            let e = DbError::rejected("mismatch", "the register held another value");
            return Err(fail(c, e));
        }
        Ok(true) => {}
    }
    // A register op's history has no use for commit timestamps.
    c.commit().map_err(|e| {
        c.abort();
        let unknown = !e.definite && !matches!(op, Op::Read(_));
        (if unknown { OpType::Info } else { OpType::Fail }, e)
    })?;
    Ok(seen.first().copied())
}

impl<W: Write + Send> Job for Registers<W> {
    type Op = Op;

    fn budget(&self) -> &Budget {
        &self.budget
    }

    fn next(&self) -> Option<Op> {
        if !self.budget.claim() {
            return None;
        }
        Some(
            self.planner
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .plan(),
        )
    }

    fn invoke(&self, process: u64, op: &Op) -> bool {
        let (f, value) = invocation(*op);
        self.recorder
            .register((OpType::Invoke, process), (f, &value), None)
    }

    fn fail(&self, process: u64, op: &Op, e: &DbError) -> bool {
        let (f, value) = invocation(*op);
        let error = Some((NO_CLIENT, e.message.as_str()));
        self.recorder
            .register((OpType::Fail, process), (f, &value), error)
    }

    fn perform(
        &self,
        c: &mut dyn Connection,
        process: u64,
        op: &Op,
    ) -> (bool, Option<(OpType, DbError)>) {
        let (f, value) = invocation(*op);
        match c.register_op(*op) {
            Ok(read) => {
                let value = match (*op, read) {
                    (Op::Read(k), Some(v)) => format!("[{k} {v}]"),
                    _ => value,
                };
                match *op {
                    Op::Read(k) => read.into_iter().for_each(|v| self.saw(k, v)),
                    Op::Write(k, v) | Op::Cas(k, _, v) => self.saw(k, v),
                }
                let recorded = self
                    .recorder
                    .register((OpType::Ok, process), (f, &value), None);
                (recorded, None)
            }
            Err((ty, e)) => {
                let error = Some((e.name, e.message.as_str()));
                let recorded = self.recorder.register((ty, process), (f, &value), error);
                (recorded, Some((ty, e)))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::CommitStamp;

    /// A register per key in memory, its cas the default read and write.
    #[derive(Default)]
    struct Memory {
        values: std::collections::HashMap<Key, Value>,
        commit_fails: bool,
    }

    impl Statements for Memory {
        fn begin(&mut self, _: bool) -> Result<(), DbError> {
            Ok(())
        }
        fn read(&mut self, key: Key, out: &mut Vec<Value>) -> Result<(), DbError> {
            out.extend(self.values.get(&key));
            Ok(())
        }
        fn write(&mut self, key: Key, value: Value) -> Result<(), DbError> {
            self.values.insert(key, value);
            Ok(())
        }
        fn commit(&mut self) -> Result<CommitStamp, DbError> {
            match self.commit_fails {
                true => Err(DbError::lost("connection-lost", "gone")),
                false => Ok(None),
            }
        }
        fn abort(&mut self) {}
    }

    #[test]
    fn a_cas_takes_only_from_the_expected_value() {
        let mut m = Memory::default();
        assert_eq!(perform(&mut m, Op::Write(1, 1)), Ok(None));
        assert_eq!(perform(&mut m, Op::Cas(1, 1, 2)), Ok(None));
        let (ty, e) = perform(&mut m, Op::Cas(1, 1, 3)).unwrap_err();
        assert_eq!((ty, e.name), (OpType::Fail, "mismatch"));
        assert_eq!(perform(&mut m, Op::Read(1)), Ok(Some(2)));
        assert_eq!(perform(&mut m, Op::Read(2)), Ok(None));
    }

    #[test]
    fn an_unanswered_commit_is_info_except_for_reads() {
        let mut m = Memory {
            commit_fails: true,
            ..Memory::default()
        };
        assert_eq!(
            perform(&mut m, Op::Write(1, 1)).unwrap_err().0,
            OpType::Info
        );
        assert_eq!(perform(&mut m, Op::Read(1)).unwrap_err().0, OpType::Fail);
    }

    #[test]
    fn registers_are_written_once_first_and_values_are_fresh() {
        let mut p = Planner {
            rng: Rng::new(3),
            written: vec![0; 4],
            seen: vec![None; 4],
        };
        let mut last = [0; 4];
        for _ in 0..1000 {
            let op = p.plan();
            let (k, new) = match op {
                Op::Read(k) => (k, None),
                Op::Write(k, v) => {
                    assert_eq!(v, 1, "only the first write is blind: {op:?}");
                    (k, Some(v))
                }
                Op::Cas(k, old, v) => {
                    assert_eq!(p.seen[k as usize], Some(old));
                    (k, Some(v))
                }
            };
            if let Some(v) = new {
                assert!(v > last[k as usize], "{op:?}");
                last[k as usize] = v;
                p.seen[k as usize] = Some(v);
            } else {
                assert!(last[k as usize] > 0, "a read before the write: {op:?}");
            }
        }
    }
}
