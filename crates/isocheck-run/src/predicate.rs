//! Elle's closed-predicate workload (`isocheck_gen::predicate`, its
//! micro-ops and planner) on a database, in the registers table: the
//! `:init` transaction runs before any client starts; predicate reads are
//! `SELECT k, v ... WHERE` the predicate. The run ends when every key was
//! mutated (or at the budget), as Elle's generator does.

use super::backend::{Connection, Database, DbError, Failed, Statements};
use super::client::{Budget, Job, NO_CLIENT};
use super::recorder::Recorder;
use isocheck_gen::edn::OpType;
pub use isocheck_gen::predicate::{txn_edn, PMop, Planner, Pred};
use std::io::Write;
use std::sync::{Arc, Mutex};

/// Closed-predicate's prepared statements on an SQL backend's registers
/// table (`S`, the backend's statement): the delete, whose parameter is
/// the key, and a select per kind of predicate, whose one parameter is the
/// predicate's value ([`Pred::param`]).
pub struct Predicates<S> {
    pub delete: S,
    /// `TRUE`, `v = ?`, `v % 2 = ?`.
    select: [S; 3],
}

impl<S> Predicates<S> {
    /// `delete`, with the select `prepare` makes for each kind of
    /// predicate.
    pub fn new<E>(delete: S, mut prepare: impl FnMut(Pred) -> Result<S, E>) -> Result<Self, E> {
        let select = [
            prepare(Pred::True)?,
            prepare(Pred::Eq(0))?,
            prepare(Pred::Mod2(0))?,
        ];
        Ok(Predicates { delete, select })
    }

    /// The select of `p`'s kind.
    pub fn select(&self, p: Pred) -> &S {
        match p {
            Pred::True => &self.select[0],
            Pred::Eq(_) => &self.select[1],
            Pred::Mod2(_) => &self.select[2],
        }
    }

    /// A connection's statements, which only the registers table has.
    pub fn of(statements: &Option<Predicates<S>>) -> Result<&Predicates<S>, DbError> {
        statements.as_ref().ok_or_else(|| {
            DbError::rejected("unsupported", "the lists table has no predicate reads")
        })
    }
}

/// Runs one transaction of micro-ops, filling in what they read; on an
/// error, the completion type it gets and the error.
pub fn perform<S: Statements + ?Sized>(c: &mut S, mops: &mut [PMop]) -> Result<(), Failed> {
    let read_only = mops
        .iter()
        .all(|m| matches!(m, PMop::Read(..) | PMop::PredRead(..)));
    let body = |c: &mut S, mops: &mut [PMop]| {
        c.begin(read_only)?;
        for m in mops.iter_mut() {
            match m {
                PMop::Read(k, v) => {
                    let mut out = Vec::new();
                    c.read(*k, &mut out)?;
                    *v = out.first().copied();
                }
                PMop::PredRead(p, seen) => {
                    seen.clear();
                    c.select(*p, seen)?;
                    seen.sort_unstable();
                }
                PMop::Insert(k, v) | PMop::Write(k, v) => c.write(*k, *v)?,
                PMop::Delete(k) => c.delete(*k)?,
            }
        }
        Ok(())
    };
    if let Err(e) = body(c, mops) {
        c.abort();
        return Err((OpType::Fail, e));
    }
    // Only rw-register runs are checked with the commit order.
    c.commit().map(drop).map_err(|e| {
        c.abort();
        let ty = if e.definite || read_only {
            OpType::Fail
        } else {
            OpType::Info
        };
        (ty, e)
    })
}

/// The job of the clients of a closed-predicate run.
pub struct Txns<W: Write> {
    budget: Budget,
    planner: Mutex<Planner>,
    recorder: Arc<Recorder<W>>,
}

impl<W: Write + Send> Txns<W> {
    /// Runs the `:init` transaction on a connection of its own (process
    /// 0, before any client), recording it; the job that follows.
    pub fn new(
        budget: Budget,
        keys: u64,
        seed: u64,
        recorder: Arc<Recorder<W>>,
        db: &dyn Database,
    ) -> Result<Self, DbError> {
        let (planner, init) = Planner::new(keys, seed);
        let text: Vec<String> = init.iter().map(|(k, v)| format!("{k} {v}")).collect();
        let value = format!("{{{}}}", text.join(", "));
        recorder.register((OpType::Invoke, 0), ("init", &value), None);
        let mut writes: Vec<PMop> = init.iter().map(|&(k, v)| PMop::Write(k, v)).collect();
        let mut c = db.connect()?;
        if let Err((ty, e)) = c.predicate_txn(&mut writes) {
            let error = Some((e.name, e.message.as_str()));
            recorder.register((ty, 0), ("init", &value), error);
            return Err(e);
        }
        recorder.register((OpType::Ok, 0), ("init", &value), None);
        Ok(Txns {
            budget,
            planner: Mutex::new(planner),
            recorder,
        })
    }
}

impl<W: Write + Send> Job for Txns<W> {
    type Op = Vec<PMop>;

    fn budget(&self) -> &Budget {
        &self.budget
    }

    fn next(&self) -> Option<Vec<PMop>> {
        let plan = self
            .planner
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .plan();
        match plan {
            Some(p) if self.budget.claim() => Some(p),
            _ => None,
        }
    }

    fn invoke(&self, process: u64, op: &Vec<PMop>) -> bool {
        let value = txn_edn(op, false);
        self.recorder
            .register((OpType::Invoke, process), ("txn", &value), None)
    }

    fn fail(&self, process: u64, op: &Vec<PMop>, e: &DbError) -> bool {
        let value = txn_edn(op, false);
        let error = Some((NO_CLIENT, e.message.as_str()));
        self.recorder
            .register((OpType::Fail, process), ("txn", &value), error)
    }

    fn perform(
        &self,
        c: &mut dyn Connection,
        process: u64,
        op: &Vec<PMop>,
    ) -> (bool, Option<(OpType, DbError)>) {
        let mut mops = op.clone();
        match c.predicate_txn(&mut mops) {
            Ok(()) => {
                let value = txn_edn(&mops, true);
                let ok = self
                    .recorder
                    .register((OpType::Ok, process), ("txn", &value), None);
                (ok, None)
            }
            Err((ty, e)) => {
                let value = txn_edn(op, false);
                let error = Some((e.name, e.message.as_str()));
                let recorded = self
                    .recorder
                    .register((ty, process), ("txn", &value), error);
                (recorded, Some((ty, e)))
            }
        }
    }
}
