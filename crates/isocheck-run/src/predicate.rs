//! Elle's closed-predicate workload (`elle.closed-predicate`'s `gen`) on a
//! real database, in the registers table: an `:init` transaction, run
//! before any client starts, creates every key that is to be overwritten
//! or deleted (values 0 or 1); then each transaction holds one to four
//! micro-ops: a read `[:r k v]`, a predicate read `[:rp pred {k v ...}]`
//! (`SELECT k, v ... WHERE` the predicate: `:true`, `[:= 0|1]`,
//! `[:mod 2 0|1]`), or the next key's one mutation (`k mod 3`: 0 inserted,
//! 1 overwritten, 2 deleted) with a fresh value. The run ends when every
//! key was mutated (or at the budget), as Elle's generator does.

use super::backend::{Connection, Database, DbError, Failed, Statements};
use super::client::{Budget, Job, NO_CLIENT};
use super::recorder::Recorder;
use isocheck_gen::edn::OpType;
use isocheck_gen::rng::Rng;
use isocheck_gen::workload::{Key, Value};
use std::io::Write;
use std::sync::{Arc, Mutex};

/// Elle's generator's predicates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pred {
    True,
    Eq(Value),
    /// `[:mod 2 r]`.
    Mod2(Value),
}

impl Pred {
    fn edn(self) -> String {
        match self {
            Pred::True => ":true".into(),
            Pred::Eq(x) => format!("[:= {x}]"),
            Pred::Mod2(r) => format!("[:mod 2 {r}]"),
        }
    }

    /// The SQL condition on `v`, with its one parameter (`$1` or `?`).
    pub fn sql(self, param: &str) -> String {
        match self {
            Pred::True => "TRUE".into(),
            Pred::Eq(_) => format!("v = {param}"),
            Pred::Mod2(_) => format!("v % 2 = {param}"),
        }
    }

    /// Whether a register holding `v` matches.
    pub fn matches(self, v: Value) -> bool {
        match self {
            Pred::True => true,
            Pred::Eq(x) => v == x,
            Pred::Mod2(r) => v % 2 == r,
        }
    }

    /// The condition's parameter (`Pred::True` has none; 0 stands in).
    pub fn param(self) -> Value {
        match self {
            Pred::True => 0,
            Pred::Eq(x) | Pred::Mod2(x) => x,
        }
    }
}

/// A micro-op, with what it read once run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PMop {
    Read(Key, Option<Value>),
    PredRead(Pred, Vec<(Key, Value)>),
    Insert(Key, Value),
    Write(Key, Value),
    Delete(Key),
}

impl PMop {
    fn edn(&self, done: bool) -> String {
        let nil = |v: Option<Value>| v.map_or("nil".into(), |v| v.to_string());
        match self {
            PMop::Read(k, v) if done => format!("[:r {k} {}]", nil(*v)),
            PMop::Read(k, _) => format!("[:r {k} nil]"),
            PMop::PredRead(p, seen) if done => {
                let kv: Vec<String> = seen.iter().map(|(k, v)| format!("{k} {v}")).collect();
                format!("[:rp {} {{{}}}]", p.edn(), kv.join(", "))
            }
            PMop::PredRead(p, _) => format!("[:rp {} nil]", p.edn()),
            PMop::Insert(k, v) => format!("[:insert {k} {v}]"),
            PMop::Write(k, v) => format!("[:w {k} {v}]"),
            PMop::Delete(k) => format!("[:delete {k}]"),
        }
    }
}

fn txn_edn(mops: &[PMop], done: bool) -> String {
    let mops: Vec<String> = mops.iter().map(|m| m.edn(done)).collect();
    format!("[{}]", mops.join(" "))
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

/// Elle's `gen`: keys to mutate, shuffled, and the next value to write.
struct Planner {
    rng: Rng,
    keys: u64,
    mutable: Vec<Key>,
    next: Value,
}

impl Planner {
    fn pred(&mut self) -> Pred {
        match self.rng.below(3) {
            0 => Pred::Eq(self.rng.below(2)),
            1 => Pred::Mod2(self.rng.below(2)),
            _ => Pred::True,
        }
    }

    /// The next transaction; `None` once every key was mutated.
    fn plan(&mut self) -> Option<Vec<PMop>> {
        if self.mutable.is_empty() {
            return None;
        }
        let len = 1 + self.rng.below(4);
        let mut mops = Vec::new();
        for _ in 0..len {
            let m = match self.rng.below(3) {
                0 => PMop::Read(self.rng.below(self.keys), None),
                1 => PMop::PredRead(self.pred(), Vec::new()),
                _ => match self.mutable.pop() {
                    Some(k) => self.mutation(k),
                    None => break,
                },
            };
            mops.push(m);
        }
        if mops.is_empty() {
            mops.push(PMop::Read(self.rng.below(self.keys), None));
        }
        Some(mops)
    }

    fn mutation(&mut self, k: Key) -> PMop {
        self.next += 1;
        match k % 3 {
            0 => PMop::Insert(k, self.next),
            1 => PMop::Write(k, self.next),
            _ => PMop::Delete(k),
        }
    }
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
        let mut rng = Rng::new(seed);
        let keys = keys.max(1);
        let mut mutable: Vec<Key> = (0..keys).collect();
        for i in (1..mutable.len()).rev() {
            mutable.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let init: Vec<(Key, Value)> = (0..keys)
            .filter(|k| k % 3 != 0)
            .map(|k| (k, rng.below(2)))
            .collect();
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
            planner: Mutex::new(Planner {
                rng,
                keys,
                mutable,
                next: 1,
            }),
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
