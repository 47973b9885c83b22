//! Elle's closed-predicate workload (`elle.closed-predicate`'s `gen`): its
//! micro-ops and planner, shared with `isocheck run`, and a run of it on
//! the simulated database ([`write`]). An `:init` transaction creates every
//! key that is to be overwritten or deleted (values 0 or 1); then each
//! transaction holds one to four micro-ops: a read `[:r k v]`, a predicate
//! read `[:rp pred {k v ...}]` (`:true`, `[:= 0|1]`, `[:mod 2 0|1]`), or
//! the next key's one mutation (`k mod 3`: 0 inserted, 1 overwritten, 2
//! deleted) with a fresh value. A run ends when every key was mutated (or
//! at `txns`), as Elle's generator does.

use super::db::{Conflict, Db, Rules, View};
use super::rng::Rng;
use super::workload::{Key, Value};
use super::{Level, Summary};
use std::io::{self, Write};

/// Elle's generator's predicates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pred {
    True,
    Eq(Value),
    /// `[:mod 2 r]`.
    Mod2(Value),
}

impl Pred {
    /// As Elle writes it in a predicate read.
    pub fn edn(self) -> String {
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
    /// As the history writes it: what it read once `done`.
    pub fn edn(&self, done: bool) -> String {
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

/// A transaction's micro-ops as the history writes them.
pub fn txn_edn(mops: &[PMop], done: bool) -> String {
    let mops: Vec<String> = mops.iter().map(|m| m.edn(done)).collect();
    format!("[{}]", mops.join(" "))
}

/// Elle's `gen`: keys to mutate, shuffled, and the next value to write.
pub struct Planner {
    rng: Rng,
    keys: u64,
    mutable: Vec<Key>,
    next: Value,
}

impl Planner {
    /// The planner of a run on `keys` keys (at least one) seeded by
    /// `seed`, and the `:init` transaction's writes: every key to be
    /// overwritten or deleted, with 0 or 1.
    pub fn new(keys: u64, seed: u64) -> (Planner, Vec<(Key, Value)>) {
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
        let planner = Planner {
            rng,
            keys,
            mutable,
            next: 1,
        };
        (planner, init)
    }

    fn pred(&mut self) -> Pred {
        match self.rng.below(3) {
            0 => Pred::Eq(self.rng.below(2)),
            1 => Pred::Mod2(self.rng.below(2)),
            _ => Pred::True,
        }
    }

    /// The next transaction; `None` once every key was mutated.
    pub fn plan(&mut self) -> Option<Vec<PMop>> {
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

/// What a closed-predicate run needs.
#[derive(Clone, Debug)]
pub struct Params {
    pub seed: u64,
    /// Concurrent client threads (Jepsen processes).
    pub processes: u64,
    /// Keys; the run ends once each was mutated...
    pub keys: u64,
    /// ...or after this many transactions.
    pub txns: u64,
    pub level: Level,
    /// Transactions the client aborts (`:fail`).
    pub fail_rate: f64,
    /// Transactions whose client crashes (`:info`); half of them commit.
    pub info_rate: f64,
}

impl Params {
    /// Why these parameters make no run, if they do not.
    pub fn validate(&self) -> Result<(), String> {
        let rates = [("fail rate", self.fail_rate), ("info rate", self.info_rate)];
        if let Some((name, _)) = rates.iter().find(|(_, f)| !(0.0..=1.0).contains(f)) {
            return Err(format!("the {name} must be between 0 and 1"));
        }
        if self.fail_rate + self.info_rate > 1.0 {
            return Err("the fail and info rates add up to more than 1".into());
        }
        if self.processes == 0 || self.keys == 0 {
            return Err("processes and keys must be at least 1".into());
        }
        if self.processes > super::MAX_PROCESSES || self.keys > super::MAX_KEYS {
            return Err(format!(
                "at most {} processes and {} keys",
                super::MAX_PROCESSES,
                super::MAX_KEYS
            ));
        }
        Ok(())
    }
}

/// A client thread's open transaction.
struct Running {
    mops: Vec<PMop>,
    /// Micro-ops run (or, where the level runs transactions at commit,
    /// steps taken).
    cursor: usize,
}

/// The discrete-event run: as `gen`'s (`run.rs`), client threads advanced
/// one step at a time in an order the seeded RNG picks, on the simulated
/// database at the level; every op written as it happens.
struct Run<'a, W: Write> {
    p: &'a Params,
    rng: Rng,
    db: Db,
    planner: Planner,
    out: W,
    /// Per thread: its Jepsen process (a crash moves it on) and its open
    /// transaction.
    threads: Vec<(u64, Option<Running>)>,
    time: u64,
    index: u64,
    invoked: u64,
    summary: Summary,
}

/// Runs the closed-predicate workload on the simulated database and writes
/// its history to `out`; invalid parameters are an `InvalidInput` error.
pub fn write<W: Write>(out: W, p: &Params) -> io::Result<Summary> {
    p.validate()
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    let threads = p.processes as usize;
    let (planner, init) = Planner::new(p.keys, p.seed);
    let mut run = Run {
        p,
        // Apart from the planner's, so that plans do not depend on the
        // schedule.
        rng: Rng::new(p.seed ^ 0x9e37_79b9_7f4a_7c15),
        db: Db::new(threads, false),
        planner,
        out,
        threads: (0..p.processes).map(|process| (process, None)).collect(),
        time: 0,
        index: 0,
        invoked: 0,
        summary: Summary::default(),
    };
    run.init(&init)?;
    while run.step()? {}
    run.out.flush()?;
    Ok(Summary {
        transactions: run.index / 2,
        ops: run.index,
        ..run.summary
    })
}

impl<W: Write> Run<'_, W> {
    /// The `:init` transaction, on thread 0 before any client starts.
    fn init(&mut self, init: &[(Key, Value)]) -> io::Result<()> {
        let text: Vec<String> = init.iter().map(|(k, v)| format!("{k} {v}")).collect();
        let value = format!("{{{}}}", text.join(", "));
        self.line("invoke", 0, "init", &value)?;
        self.db.begin(0, View::default(), Rules::default());
        for &(k, v) in init {
            // Nothing else is open: no conflict.
            let _ = self.db.write(0, k, v);
        }
        let committed = self.db.commit(0).is_ok();
        self.summary.ok += u64::from(committed);
        self.line("ok", 0, "init", &value)
    }

    /// Advances a random thread by one step; false once every key was
    /// mutated (or `txns` invoked) and every transaction has ended.
    fn step(&mut self) -> io::Result<bool> {
        let t = self.rng.below(self.threads.len() as u64) as usize;
        self.time += 1 + self.rng.below(1_000_000);
        let Some(txn) = self.threads[t].1.as_mut() else {
            if self.invoked < self.p.txns {
                if let Some(mops) = self.planner.plan() {
                    self.begin(t, mops)?;
                    return Ok(true);
                }
            }
            return Ok(self.threads.iter().any(|(_, open)| open.is_some()));
        };
        let cursor = txn.cursor;
        if cursor == txn.mops.len() {
            self.end(t)?;
        } else if self.p.level.at_commit() {
            // The micro-ops run at commit; the step only lets time pass.
            txn.cursor += 1;
        } else if self.exec(t, cursor).is_err() {
            self.complete(t, "fail")?;
        }
        Ok(true)
    }

    fn begin(&mut self, t: usize, mops: Vec<PMop>) -> io::Result<()> {
        let process = self.threads[t].0;
        self.line("invoke", process, "txn", &txn_edn(&mops, false))?;
        let level = self.p.level;
        self.db
            .begin(t, level.view(self.db.clock()), level.rules(None));
        self.threads[t].1 = Some(Running { mops, cursor: 0 });
        self.invoked += 1;
        Ok(())
    }

    /// Runs micro-op `i` of the thread's transaction, filling in what it
    /// read; a conflict has aborted the transaction.
    fn exec(&mut self, t: usize, i: usize) -> Result<(), Conflict> {
        let Some(txn) = self.threads[t].1.as_mut() else {
            return Err(Conflict);
        };
        txn.cursor = i + 1;
        match &mut txn.mops[i] {
            PMop::Read(k, v) => {
                let mut out = Vec::new();
                self.db.read(t, *k, &mut out);
                *v = out.first().copied();
                Ok(())
            }
            PMop::PredRead(p, seen) => {
                seen.clear();
                let p = *p;
                self.db.select(t, |v| p.matches(v), seen);
                Ok(())
            }
            PMop::Insert(k, v) | PMop::Write(k, v) => self.db.write(t, *k, *v),
            PMop::Delete(k) => self.db.delete(t, *k),
        }
    }

    /// Ends a transaction whose micro-ops have all run: the client gives up
    /// (`:fail`), crashes (`:info`, committed or not), or commits.
    fn end(&mut self, t: usize) -> io::Result<()> {
        let u = self.rng.unit();
        if u < self.p.fail_rate {
            self.db.abort(t);
            return self.complete(t, "fail");
        }
        if self.p.level.at_commit() {
            let len = self.threads[t].1.as_ref().map_or(0, |r| r.mops.len());
            for i in 0..len {
                if self.exec(t, i).is_err() {
                    return self.complete(t, "fail");
                }
            }
        }
        if u < self.p.fail_rate + self.p.info_rate {
            let committed = self.rng.chance(0.5) && self.db.commit(t).is_ok();
            self.db.abort(t);
            self.summary.crashed_committed += u64::from(committed);
            self.complete(t, "info")?;
            self.threads[t].0 += self.threads.len() as u64;
            return Ok(());
        }
        match self.db.commit(t) {
            Ok(_) => self.complete(t, "ok"),
            Err(Conflict) => self.complete(t, "fail"),
        }
    }

    /// Writes the completion of the thread's transaction (what it read
    /// only if `:ok`).
    fn complete(&mut self, t: usize, ty: &str) -> io::Result<()> {
        self.db.abort(t);
        let Some(txn) = self.threads[t].1.take() else {
            return Ok(());
        };
        match ty {
            "ok" => self.summary.ok += 1,
            "info" => self.summary.crashed += 1,
            _ => self.summary.failed += 1,
        }
        let process = self.threads[t].0;
        self.line(ty, process, "txn", &txn_edn(&txn.mops, ty == "ok"))
    }

    /// One op of the history.
    fn line(&mut self, ty: &str, process: u64, f: &str, value: &str) -> io::Result<()> {
        let index = self.index;
        self.index += 1;
        writeln!(
            self.out,
            "{{:index {index}, :time {}, :type :{ty}, :process {process}, :f :{f}, :value {value}}}",
            self.time
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(level: Level) -> Params {
        Params {
            seed: 3,
            processes: 6,
            keys: 60,
            txns: u64::MAX,
            level,
            fail_rate: 0.05,
            info_rate: 0.05,
        }
    }

    fn history(p: &Params) -> String {
        let mut out = Vec::new();
        write(&mut out, p).expect("a run");
        String::from_utf8(out).expect("utf-8")
    }

    #[test]
    fn a_run_begins_with_init_and_ends_once_every_key_was_mutated() {
        let h = history(&params(Level::SnapshotIsolation));
        let lines: Vec<&str> = h.lines().collect();
        assert!(lines[0].contains(":f :init") && lines[1].contains(":type :ok"));
        for k in 0..60 {
            let mutation = [
                format!("[:insert {k} "),
                format!("[:w {k} "),
                format!("[:delete {k}]"),
            ];
            assert!(mutation.iter().any(|m| h.contains(m.as_str())), "{k}");
        }
        let invokes = h.matches(":type :invoke").count();
        let completions = lines.len() - invokes;
        assert_eq!(invokes, completions);
        assert!(h.contains(":type :info") && h.contains(":type :fail"));
        assert!(h.contains("[:rp [:mod 2 "));
    }

    #[test]
    fn runs_are_determined_by_their_seed() {
        let p = params(Level::ReadCommitted);
        assert_eq!(history(&p), history(&p));
        let other = Params {
            seed: 4,
            ..p.clone()
        };
        assert_ne!(history(&p), history(&other));
    }
}
