//! The one small interface every database is driven through: a
//! [`Database`] sets up the tables and opens connections; a [`Connection`]
//! runs one whole op at a time (a transaction, or a register op) and says
//! how it ended. The SQL backends and the simulated databases implement
//! [`Statements`] instead (begin, read, write, commit, abort, saying of
//! each error whether the transaction is known not to have committed),
//! which gives them a [`Connection`]; `exec` implements [`Connection`]
//! itself, a whole transaction being one line to its program. A database
//! that exposes its commit order ([`CommitOrder`]) gives each committed
//! writer its position in it, which the history records as the op's
//! `:commit-timestamp`. The server backends give up on a connect or a statement
//! after [`CONNECT_TIMEOUT`] and [`STATEMENT_TIMEOUT`], so that a silent or
//! stopped server cannot hold a client for ever.

use crate::cas;
use crate::predicate::{self, PMop, Pred};
use isocheck_gen::edn::{OpType, Reads};
use isocheck_gen::workload::{Key, Mop, Value};
use std::fmt;
use std::time::Duration;

/// How long connecting (the TCP connect and the server's greeting) may
/// take before the server counts as unreachable.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long one statement may wait for the server's answer; then the
/// connection is given up (its transaction's outcome unknown at commit).
/// The workloads' statements touch one row each: only a server that has
/// stopped answering takes this long.
pub const STATEMENT_TIMEOUT: Duration = Duration::from_secs(5);

/// The SQL isolation levels a run can ask for.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isolation {
    ReadCommitted,
    RepeatableRead,
    Serializable,
}

impl Isolation {
    /// The level as SQL spells it.
    pub fn sql(self) -> &'static str {
        match self {
            Isolation::ReadCommitted => "READ COMMITTED",
            Isolation::RepeatableRead => "REPEATABLE READ",
            Isolation::Serializable => "SERIALIZABLE",
        }
    }

    /// The level as the command line spells it.
    pub fn name(self) -> &'static str {
        match self {
            Isolation::ReadCommitted => "read-committed",
            Isolation::RepeatableRead => "repeatable-read",
            Isolation::Serializable => "serializable",
        }
    }
}

/// Why a database operation did not succeed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DbError {
    /// A keyword name for the history's `:error` (`serialization-failure`,
    /// `connection-lost`, ...).
    pub name: &'static str,
    pub message: String,
    /// At commit: the database said the transaction did not commit. An
    /// error before commit always means it did not.
    pub definite: bool,
    /// The connection is gone: the client opens a new one.
    pub broken: bool,
}

impl DbError {
    /// The database rejected the operation; the transaction did not commit.
    pub fn rejected(name: &'static str, message: impl fmt::Display) -> DbError {
        DbError {
            name,
            message: message.to_string(),
            definite: true,
            broken: false,
        }
    }

    /// The outcome is unknown and the connection is gone.
    pub fn lost(name: &'static str, message: impl fmt::Display) -> DbError {
        DbError {
            name,
            message: message.to_string(),
            definite: false,
            broken: true,
        }
    }

    /// The server did not answer within `limit`: the connection is given
    /// up, the outcome unknown.
    pub fn timeout(limit: Duration) -> DbError {
        let secs = limit.as_secs_f64();
        DbError::lost(
            "timeout",
            format!("the server did not answer within {secs} s"),
        )
    }
}

impl fmt::Display for DbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.name, self.message)
    }
}

/// Whether a run records the database's commit order, learnt by
/// [`Database::setup`]: each `:ok` transaction that wrote gets the
/// database's position for its commit as `:commit-timestamp`, an integer
/// whose order is the order in which writes to one key were installed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommitOrder {
    /// Recorded: what the numbers are.
    Recorded(&'static str),
    /// Not recorded: why not, in one line (with how to turn it on, where
    /// the database can).
    Unavailable(String),
}

impl CommitOrder {
    /// What a server's setup found (`cell`), or that setup has not run.
    pub fn set_up(cell: &std::sync::OnceLock<CommitOrder>) -> CommitOrder {
        cell.get()
            .cloned()
            .unwrap_or_else(|| CommitOrder::Unavailable("the database was not set up".into()))
    }
}

/// A commit's position in the database's commit order, where it reports
/// one ([`CommitOrder`]).
pub type CommitStamp = Option<u64>;

/// A database under test: it creates the workload's tables (dropping
/// earlier runs' ones) and opens connections. Shared by the client threads.
pub trait Database: Send + Sync {
    /// Drops and creates the tables, so the run starts from empty keys.
    fn setup(&self) -> Result<(), DbError>;
    /// A new connection, at the run's isolation level.
    fn connect(&self) -> Result<Box<dyn Connection>, DbError>;
    /// Whether the commits' order is recorded; asked after
    /// [`Database::setup`], which finds out.
    fn commit_order(&self) -> CommitOrder;
    /// Ends the connections of every client but this run's setup: the
    /// `kill` fault. `Ok(false)` when the database has no way to.
    fn kill_connections(&self) -> Result<bool, DbError> {
        Ok(false)
    }
    /// The `:f` the history gives the `kill` fault's ops.
    fn kill_name(&self) -> &'static str {
        "kill-connections"
    }
    /// Called once the run has given up on its clients: ends what would
    /// outlive isocheck (`exec`'s programs still running).
    fn end(&self) {}

    /// Keys no transaction will touch again, which the database may drop
    /// (the simulated one does, so that a long run's memory stays flat).
    fn forget(&self, _keys: &[Key]) {}
    /// Whether [`Database::forget`] drops anything: if not, the clients
    /// do not work out which keys are dead.
    fn forgets(&self) -> bool {
        false
    }
}

/// How an op that did not complete `:ok` ended: `:fail` or `:info`, and
/// why.
pub type Failed = (OpType, DbError);

/// One client's connection, running one op at a time.
pub trait Connection: Send {
    /// Runs a transaction of `gen`'s workloads; its reads go to `reads`
    /// (cleared first), one span per micro-op. Committed: its place in the
    /// commit order, where recorded.
    fn transaction(&mut self, mops: &[Mop], reads: &mut Reads) -> Result<CommitStamp, Failed>;
    /// Runs a register op of the cas-register workload in a transaction of
    /// its own; what a read saw (`None` for nil).
    fn register_op(&mut self, op: cas::Op) -> Result<Option<Value>, Failed>;
    /// Runs a transaction of the closed-predicate workload, filling in
    /// what its reads saw. Only the SQL backends can.
    fn predicate_txn(&mut self, _mops: &mut [PMop]) -> Result<(), Failed> {
        Err((OpType::Fail, unsupported()))
    }
}

impl<S: Statements> Connection for S {
    fn transaction(&mut self, mops: &[Mop], reads: &mut Reads) -> Result<CommitStamp, Failed> {
        crate::client::transact(self, mops, reads)
    }

    fn register_op(&mut self, op: cas::Op) -> Result<Option<Value>, Failed> {
        cas::perform(self, op)
    }

    fn predicate_txn(&mut self, mops: &mut [PMop]) -> Result<(), Failed> {
        predicate::perform(self, mops)
    }
}

/// What a database without closed-predicate statements answers.
fn unsupported() -> DbError {
    DbError::rejected(
        "unsupported",
        "this database runs no closed-predicate transactions (the SQL databases do)",
    )
}

/// A connection driven statement by statement; at most one transaction
/// open on it.
pub trait Statements: Send {
    /// Opens a transaction; `read_only` when the plan writes nothing.
    fn begin(&mut self, read_only: bool) -> Result<(), DbError>;
    /// What a read of `key` sees: the list, or the register's value (empty
    /// for nil), appended to `out`.
    fn read(&mut self, key: Key, out: &mut Vec<Value>) -> Result<(), DbError>;
    /// Appends `value` to the list at `key`, or sets the register.
    fn write(&mut self, key: Key, value: Value) -> Result<(), DbError>;
    /// In a transaction begun to write: sets the register at `key` to
    /// `new` if it holds `expected`, and says whether it did. By default a
    /// read and a write, a compare-and-set only at serializable levels; the
    /// SQL backends run one `UPDATE ... WHERE v = expected` and count the
    /// rows it changed.
    fn cas(&mut self, key: Key, expected: Value, new: Value) -> Result<bool, DbError> {
        let mut seen = Vec::new();
        self.read(key, &mut seen)?;
        if seen != [expected] {
            return Ok(false);
        }
        self.write(key, new).map(|()| true)
    }
    /// Deletes the register at `key` (closed-predicate's `[:delete k]`).
    fn delete(&mut self, _key: Key) -> Result<(), DbError> {
        Err(unsupported())
    }
    /// Appends every register whose value `pred` matches, as (key, value)
    /// (closed-predicate's predicate read).
    fn select(&mut self, _pred: Pred, _out: &mut Vec<(Key, Value)>) -> Result<(), DbError> {
        Err(unsupported())
    }
    /// Commits; the commit's place in the database's commit order where
    /// the run records it ([`CommitOrder`]) and the transaction wrote.
    fn commit(&mut self) -> Result<CommitStamp, DbError>;
    /// Rolls back; errors are ignored (the transaction is over either way).
    fn abort(&mut self);
}

/// A key or value as the SQL backends store it, a `BIGINT` (the
/// workloads' never exceed one).
pub fn to_bigint(n: u64) -> Result<i64, DbError> {
    i64::try_from(n).map_err(|_| DbError::rejected("out-of-range", format!("{n} is not a BIGINT")))
}

/// A register's value as the server returned it; a negative one was not
/// written by this run.
pub fn from_bigint(v: i64) -> Result<Value, DbError> {
    Value::try_from(v).map_err(|_| DbError::rejected("unreadable-value", format!("`{v}`")))
}

/// Parses a list as the SQL backends store it: values separated by spaces.
pub fn parse_list(text: &str, out: &mut Vec<Value>) -> Result<(), DbError> {
    for word in text.split_ascii_whitespace() {
        let v = word
            .parse()
            .map_err(|_| DbError::rejected("unreadable-list", format!("`{text}`")))?;
        out.push(v);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_parse_or_fail() {
        let mut out = Vec::new();
        parse_list("1 2  30", &mut out).unwrap();
        assert_eq!(out, [1, 2, 30]);
        out.clear();
        parse_list("", &mut out).unwrap();
        assert!(out.is_empty());
        assert_eq!(
            parse_list("1 x", &mut out).unwrap_err().name,
            "unreadable-list"
        );
    }
}
