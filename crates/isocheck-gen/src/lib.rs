//! Generating histories: a simulated database at a chosen isolation level,
//! optionally with one fault forced into it, runs a workload from many client
//! processes and writes the Jepsen history it observed.
//!
//! `workload.rs` plans transactions, `db.rs` is the multi-version store,
//! `run.rs` interleaves the clients, `scenario.rs` forces faults, `edn.rs`
//! writes the lines, `rng.rs` makes it all reproducible from a seed.

pub mod db;
pub mod edn;
pub mod lwt;
pub mod predicate;
pub mod rng;
mod run;
pub mod scenario;
pub mod workload;

pub use scenario::{Fault, TimestampFault};
pub use workload::{Distribution, Kind, Shape};

use std::io::{self, Write};

/// At most this many client processes: each has its own state, allocated
/// up front.
pub const MAX_PROCESSES: u64 = 100_000;
/// At most this many keys (list-append: in use at a time; lwt: registers),
/// allocated up front.
pub const MAX_KEYS: u64 = 1_000_000;
/// At most this many micro-ops per transaction, so that `--max-mb` is
/// checked after every few hundred kilobytes.
pub const MAX_OPS: u64 = 10_000;

/// The isolation level the simulated database provides.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Each transaction takes effect at one instant between its invocation
    /// and its completion.
    StrictSerializable,
    /// The same database as strict-serializable (it is strict too).
    Serializable,
    /// Snapshot at the first step, reads see it and the transaction's own
    /// writes, first committer wins on a write-write conflict.
    SnapshotIsolation,
    /// Reads see the latest committed value; writes take long locks and are
    /// applied at commit.
    ReadCommitted,
    /// Like read-committed, but reads also see the lock holder's
    /// uncommitted writes, which may abort.
    ReadUncommitted,
}

impl Level {
    /// Elle's name for the strongest model the level's database satisfies
    /// (each commits at one instant before its completion, so realtime
    /// holds too), and for the model the level names.
    pub fn models(self) -> (&'static str, &'static str) {
        match self {
            Level::StrictSerializable => ("strict-serializable", "strict-serializable"),
            Level::Serializable => ("strict-serializable", "serializable"),
            Level::SnapshotIsolation => ("strong-snapshot-isolation", "snapshot-isolation"),
            Level::ReadCommitted => ("strong-read-committed", "read-committed"),
            Level::ReadUncommitted => ("strong-read-uncommitted", "read-uncommitted"),
        }
    }
}

/// Everything a run needs.
#[derive(Clone, Debug)]
pub struct Params {
    pub seed: u64,
    /// Concurrent client threads (Jepsen processes; sessions).
    pub processes: u64,
    /// Stop invoking after this many transactions (not counting a fault's
    /// scripted ones)...
    pub txns: u64,
    /// ...or once this many bytes are written, whichever comes first.
    pub max_bytes: u64,
    pub shape: Shape,
    pub level: Level,
    pub fault: Option<Fault>,
    /// Transactions the client aborts (`:fail`).
    pub fail_rate: f64,
    /// Transactions whose client crashes (`:info`); half of them commit.
    pub info_rate: f64,
    /// `:ok` transactions carry the database's `:commit-timestamp` (and
    /// `:start-timestamp` where they read from a snapshot).
    pub timestamps: bool,
    /// A lie forced into the reported timestamps (needs `timestamps`).
    pub timestamp_fault: Option<TimestampFault>,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            seed: 0,
            processes: 10,
            txns: 1000,
            max_bytes: u64::MAX,
            shape: Shape {
                kind: Kind::ListAppend,
                min_ops: 1,
                max_ops: 4,
                read_ratio: 0.5,
                blind_writes: 0.0,
                duplicate_values: 0.0,
                distribution: Distribution::Uniform,
                keys: 10,
                max_writes_per_key: 32,
            },
            level: Level::StrictSerializable,
            fault: None,
            fail_rate: 0.03,
            info_rate: 0.0,
            timestamps: false,
            timestamp_fault: None,
        }
    }
}

impl Params {
    /// Why these parameters make no run, if they do not.
    pub fn validate(&self) -> Result<(), String> {
        let s = &self.shape;
        let fractions = [
            ("read ratio", s.read_ratio),
            ("blind-write ratio", s.blind_writes),
            ("rate of repeated values", s.duplicate_values),
            ("fail rate", self.fail_rate),
            ("info rate", self.info_rate),
        ];
        if let Some((name, _)) = fractions.iter().find(|(_, f)| !(0.0..=1.0).contains(f)) {
            return Err(format!("the {name} must be between 0 and 1"));
        }
        if self.fail_rate + self.info_rate > 1.0 {
            return Err("the fail and info rates add up to more than 1".into());
        }
        if self.processes == 0 || s.keys == 0 || s.min_ops == 0 || s.max_writes_per_key == 0 {
            return Err("processes, keys, micro-ops and writes per key must be at least 1".into());
        }
        if s.kind == Kind::MiniTransactions && s.max_ops > 4 {
            return Err(format!(
                "mini-transactions have at most 4 micro-ops, not {}",
                s.max_ops
            ));
        }
        if self.processes > MAX_PROCESSES || s.keys > MAX_KEYS || s.max_ops > MAX_OPS {
            return Err(format!(
                "at most {MAX_PROCESSES} processes, {MAX_KEYS} keys and {MAX_OPS} micro-ops \
                 per transaction"
            ));
        }
        if s.min_ops > s.max_ops {
            return Err(format!(
                "the micro-op range {}-{} is empty",
                s.min_ops, s.max_ops
            ));
        }
        if s.blind_writes > 0.0 && s.kind != Kind::RwRegister {
            return Err("blind writes are for the rw-register workload".into());
        }
        if s.duplicate_values > 0.0 && s.kind.is_list() {
            return Err(
                "repeated values (--duplicate-values) are for rw-register histories \
                 (rw-register and mini-transactions): a list-append read shows every append, \
                 so appends stay unique"
                    .into(),
            );
        }
        let scripted = self.fault.is_some() || self.timestamp_fault.is_some();
        if scripted && self.processes < scenario::THREADS {
            return Err(format!(
                "a fault needs at least {} processes",
                scenario::THREADS
            ));
        }
        match self.timestamp_fault {
            Some(f) => self.validate_timestamp_fault(f),
            None => Ok(()),
        }
    }

    /// Why `f` would not show in this run's timestamps, if it would not.
    fn validate_timestamp_fault(&self, f: TimestampFault) -> Result<(), String> {
        if !self.timestamps {
            return Err("a timestamp fault lies in the timestamps: it needs them written".into());
        }
        if self.shape.kind == Kind::ListAppend {
            return Err(
                "a timestamp fault is for rw-register and mini-transactions: a \
                 list-append history's reads show its version order, and its timestamps \
                 are not checked"
                    .into(),
            );
        }
        if !f.levels().contains(&self.level) {
            let levels: Vec<String> = f.levels().iter().map(|l| level_name(*l)).collect();
            return Err(format!(
                "this timestamp fault shows only at --level {}: at {} the timestamps checked \
                 at the level's model cannot contradict it",
                levels.join(" or "),
                level_name(self.level)
            ));
        }
        Ok(())
    }
}

/// The level's name on the command line.
fn level_name(level: Level) -> String {
    use clap::ValueEnum;
    level
        .to_possible_value()
        .map_or_else(String::new, |v| v.get_name().to_string())
}

/// What a run wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub transactions: u64,
    pub ops: u64,
    pub bytes: u64,
    /// Completions by type.
    pub ok: u64,
    pub failed: u64,
    pub crashed: u64,
    /// `:info` transactions that did commit.
    pub crashed_committed: u64,
}

/// Runs the simulated database and writes the history to `out`, line by
/// line; invalid parameters are an `InvalidInput` error.
pub fn write<W: Write>(out: W, p: &Params) -> io::Result<Summary> {
    p.validate()
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    run::write(out, p)
}

/// A whole history as a string (for tests and small runs).
pub fn to_string(p: &Params) -> io::Result<String> {
    let mut buf = Vec::new();
    write(&mut buf, p)?;
    String::from_utf8(buf).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}
