//! The MariaDB/MySQL backend (`mysql`, the synchronous client, without
//! TLS): InnoDB tables `isocheck_lists` and `isocheck_registers`, the
//! session's isolation level set once per connection. A server error means
//! the statement failed and the client rolls the transaction back (at
//! commit: it did not commit), except a connection the server killed
//! (1927) or shut down (1053); an I/O error or a lost connection leaves
//! the outcome of a commit unknown. The socket's read and write timeouts
//! ([`STATEMENT_TIMEOUT`], from the server's greeting on) bound every call:
//! a silent server is an I/O error, and the connection is given up.
//!
//! With the binary log on (found out at setup), the commit order is
//! recorded: a transaction that wrote sends `COMMIT; SELECT @@last_gtid`
//! in one round trip, and its GTID's sequence number is its place in the
//! binary log, which InnoDB commits in (two-phase commit with the log).
//! Two writers of one row are logged in the order they installed its
//! versions: the second waits for the first's row lock, released once the
//! first was logged. A session's `@@last_gtid` stays as it was after a
//! transaction that logged nothing: no stamp then. The sequence numbers
//! are one replication domain's (`gtid_domain_id`, the same for every
//! client's session unless one sets its own).

use super::backend::{
    from_bigint, parse_list, to_bigint, CommitOrder, CommitStamp, Connection, Database, DbError,
    Isolation, Statements, CONNECT_TIMEOUT, STATEMENT_TIMEOUT,
};
use super::predicate::{Pred, Predicates};
use isocheck_gen::workload::{Key, Value};
use mysql::prelude::{FromValue, Queryable};
use mysql::{Conn, Opts, OptsBuilder, Row, Statement};
use std::sync::OnceLock;

/// Server error codes: deadlock, lock wait timeout, duplicate key, access
/// denied (table, database, command), killed connection, shutdown.
const DEADLOCK: u16 = 1213;
const LOCK_WAIT_TIMEOUT: u16 = 1205;
const DUPLICATE_KEY: u16 = 1062;
const DENIED: [u16; 3] = [1142, 1044, 1227];
const CONNECTION_KILLED: u16 = 1927;
const SHUTDOWN: u16 = 1053;

pub struct Mysql {
    opts: Opts,
    isolation: Isolation,
    list: bool,
    /// Learnt at setup, from `@@log_bin` and `@@sql_log_bin`.
    commit_order: OnceLock<CommitOrder>,
}

/// What the GTIDs' sequence numbers are, as the run's summary says.
const GTID_ORDER: &str = "the binary log's GTID sequence numbers (@@last_gtid)";

impl Mysql {
    /// The database at `url` (`mysql://user@host:port/db`); an error
    /// (`bad-url`) says what is wrong with the URL.
    pub fn new(url: &str, isolation: Isolation, list: bool) -> Result<Mysql, DbError> {
        let url = url.replacen("mariadb://", "mysql://", 1);
        let opts = Opts::from_url(&url).map_err(|e| DbError {
            name: "bad-url",
            message: format!("`{url}` is not a MySQL URL: {e}"),
            definite: true,
            broken: true,
        })?;
        let opts = OptsBuilder::from_opts(opts)
            .tcp_connect_timeout(Some(CONNECT_TIMEOUT))
            .read_timeout(Some(STATEMENT_TIMEOUT))
            .write_timeout(Some(STATEMENT_TIMEOUT));
        Ok(Mysql {
            opts: opts.into(),
            isolation,
            list,
            commit_order: OnceLock::new(),
        })
    }

    fn conn(&self) -> Result<Conn, DbError> {
        Conn::new(self.opts.clone()).map_err(|e| {
            let mut err = error(e);
            err.name = "cannot-connect";
            err.message = format!("cannot connect: {}", err.message);
            err.broken = true;
            err
        })
    }

    fn table(&self) -> &'static str {
        if self.list {
            "isocheck_lists"
        } else {
            "isocheck_registers"
        }
    }
}

/// The history's name for an error, and what it says of the transaction.
fn error(e: mysql::Error) -> DbError {
    let mysql::Error::MySqlError(server) = &e else {
        if is_timeout(&e) {
            return DbError::timeout(STATEMENT_TIMEOUT);
        }
        return DbError::lost("connection-lost", e);
    };
    let name = match server.code {
        DEADLOCK => "deadlock",
        LOCK_WAIT_TIMEOUT => "lock-wait-timeout",
        DUPLICATE_KEY => "unique-violation",
        c if DENIED.contains(&c) => "cannot-write",
        CONNECTION_KILLED | SHUTDOWN => {
            return DbError::lost("connection-terminated", &server.message)
        }
        _ => "sql-error",
    };
    DbError::rejected(name, &server.message)
}

/// Whether the socket's read or write timed out (an I/O error, bare or
/// inside the packet codec's).
fn is_timeout(e: &mysql::Error) -> bool {
    use std::error::Error;
    use std::io;
    let io = match e {
        mysql::Error::IoError(io) => Some(io),
        mysql::Error::CodecError(c) => c.source().and_then(|s| s.downcast_ref::<io::Error>()),
        _ => None,
    };
    io.is_some_and(|io| {
        matches!(
            io.kind(),
            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
        )
    })
}

/// The first column of `row` as a `T`, or an error naming what the
/// server sent (the client's own conversion panics on a mismatch).
fn column<T: FromValue>(row: Option<Row>) -> Result<Option<T>, DbError> {
    let Some(row) = row else {
        return Ok(None);
    };
    match row.get_opt::<Option<T>, usize>(0) {
        Some(Ok(v)) => Ok(v),
        _ => Err(DbError::rejected("unreadable-value", format!("{row:?}"))),
    }
}

/// The sequence number of a GTID, `domain-server-sequence`; none for
/// anything else (an empty `@@last_gtid`: the session logged nothing yet).
fn sequence_number(gtid: &str) -> Option<u64> {
    match gtid.split('-').collect::<Vec<_>>()[..] {
        [_, _, seq] => seq.parse().ok(),
        _ => None,
    }
}

impl Database for Mysql {
    fn setup(&self) -> Result<(), DbError> {
        let mut conn = self.conn()?;
        let table = self.table();
        let value = if self.list { "TEXT" } else { "BIGINT" };
        conn.query_drop(format!("DROP TABLE IF EXISTS {table}"))
            .map_err(error)?;
        conn.query_drop(format!(
            "CREATE TABLE {table} (k BIGINT PRIMARY KEY, v {value} NOT NULL) ENGINE = InnoDB"
        ))
        .map_err(error)?;
        let logged = conn.query_first("SELECT @@log_bin AND @@sql_log_bin");
        let order = match column::<i64>(logged.map_err(error)?)? {
            Some(1) => CommitOrder::Recorded(GTID_ORDER),
            _ => CommitOrder::Unavailable(
                "the server's binary log is off: start it with --log-bin to record the commit \
                 order"
                    .into(),
            ),
        };
        let _ = self.commit_order.set(order);
        Ok(())
    }

    fn commit_order(&self) -> CommitOrder {
        CommitOrder::set_up(&self.commit_order)
    }

    fn connect(&self) -> Result<Box<dyn Connection>, DbError> {
        let mut conn = self.conn()?;
        let table = self.table();
        let level = self.isolation.sql();
        conn.query_drop(format!("SET SESSION TRANSACTION ISOLATION LEVEL {level}"))
            .map_err(error)?;
        let read = conn
            .prep(format!("SELECT v FROM {table} WHERE k = ?"))
            .map_err(error)?;
        let update = if self.list {
            "CONCAT(v, ' ', VALUES(v))"
        } else {
            "VALUES(v)"
        };
        let write = conn
            .prep(format!(
                "INSERT INTO {table} (k, v) VALUES (?, ?) ON DUPLICATE KEY UPDATE v = {update}"
            ))
            .map_err(error)?;
        let cas = conn
            .prep(format!("UPDATE {table} SET v = ? WHERE k = ? AND v = ?"))
            .map_err(error)?;
        let predicates = match self.list {
            true => None,
            false => Some(predicate_statements(&mut conn, table)?),
        };
        Ok(Box::new(MyConnection {
            conn,
            read,
            write,
            cas,
            predicates,
            list: self.list,
            broken: false,
            stamps: matches!(self.commit_order(), CommitOrder::Recorded(_)),
            wrote: false,
            last_gtid: None,
        }))
    }

    fn kill_connections(&self) -> Result<bool, DbError> {
        let mut conn = self.conn()?;
        let rows: Vec<Row> = conn
            .query(
                "SELECT ID FROM information_schema.PROCESSLIST \
                 WHERE ID <> CONNECTION_ID() AND DB = DATABASE()",
            )
            .map_err(error)?;
        for row in rows {
            let Some(id) = column::<u64>(Some(row))? else {
                continue;
            };
            // A client gone in the meantime is no error.
            let _ = conn.query_drop(format!("KILL CONNECTION {id}"));
        }
        Ok(true)
    }
}

/// Closed-predicate's statements on the registers table.
fn predicate_statements(conn: &mut Conn, table: &str) -> Result<Predicates<Statement>, DbError> {
    let delete = conn
        .prep(format!("DELETE FROM {table} WHERE k = ?"))
        .map_err(error)?;
    Predicates::new(delete, |p: Pred| {
        // Positional parameters cannot repeat: `TRUE` takes its one
        // parameter in a condition that always holds, so that every
        // statement takes one.
        let condition = match p {
            Pred::True => "? IS NOT NULL".to_string(),
            _ => p.sql("?"),
        };
        (conn.prep(format!("SELECT k, v FROM {table} WHERE {condition}"))).map_err(error)
    })
}

struct MyConnection {
    conn: Conn,
    read: Statement,
    write: Statement,
    /// Registers only: `UPDATE ... SET v = new WHERE k = ? AND v = expected`.
    cas: Statement,
    /// Registers only: closed-predicate's statements.
    predicates: Option<Predicates<Statement>>,
    list: bool,
    /// A call failed without the server's answer (timeout, lost socket):
    /// no rollback is sent on this connection.
    broken: bool,
    /// The commit order is recorded.
    stamps: bool,
    /// The open transaction wrote: its commit may be logged.
    wrote: bool,
    /// The session's `@@last_gtid` after its last logged commit.
    last_gtid: Option<String>,
}

impl MyConnection {
    /// The sequence number of `gtid` (`domain-server-sequence`), unless
    /// the session's last GTID did not change: the commit logged nothing.
    fn stamp(&mut self, gtid: Option<String>) -> CommitStamp {
        let gtid = gtid.filter(|g| self.last_gtid.as_ref() != Some(g))?;
        let seq = sequence_number(&gtid);
        self.last_gtid = Some(gtid);
        seq
    }

    /// `result`'s error as the history names it; a connection that lost
    /// its server is marked broken.
    fn seen<T>(&mut self, result: mysql::Result<T>) -> Result<T, DbError> {
        result.map_err(|e| {
            let e = error(e);
            self.broken |= e.broken;
            e
        })
    }
}

impl Statements for MyConnection {
    fn begin(&mut self, _read_only: bool) -> Result<(), DbError> {
        self.wrote = false;
        let result = self.conn.query_drop("START TRANSACTION");
        self.seen(result)
    }

    fn read(&mut self, key: Key, out: &mut Vec<Value>) -> Result<(), DbError> {
        let k = to_bigint(key)?;
        let result = self.conn.exec_first::<Row, _, _>(&self.read, (k,));
        let row = self.seen(result)?;
        if self.list {
            let text = column::<String>(row)?;
            return parse_list(text.as_deref().unwrap_or(""), out);
        }
        if let Some(v) = column::<i64>(row)? {
            out.push(from_bigint(v)?);
        }
        Ok(())
    }

    fn write(&mut self, key: Key, value: Value) -> Result<(), DbError> {
        self.wrote = true;
        let k = to_bigint(key)?;
        let result = if self.list {
            self.conn.exec_drop(&self.write, (k, value.to_string()))
        } else {
            let v = to_bigint(value)?;
            self.conn.exec_drop(&self.write, (k, v))
        };
        self.seen(result)
    }

    fn cas(&mut self, key: Key, expected: Value, new: Value) -> Result<bool, DbError> {
        self.wrote = true;
        let args = (to_bigint(new)?, to_bigint(key)?, to_bigint(expected)?);
        let result = self.conn.exec_drop(&self.cas, args);
        self.seen(result)?;
        // Rows changed, not rows matched: a value is never set to itself.
        Ok(self.conn.affected_rows() == 1)
    }

    fn delete(&mut self, key: Key) -> Result<(), DbError> {
        self.wrote = true;
        let k = to_bigint(key)?;
        let stmt = Predicates::of(&self.predicates)?.delete.clone();
        let result = self.conn.exec_drop(&stmt, (k,));
        self.seen(result)
    }

    fn select(&mut self, pred: Pred, out: &mut Vec<(Key, Value)>) -> Result<(), DbError> {
        let stmt = Predicates::of(&self.predicates)?.select(pred).clone();
        let param = to_bigint(pred.param())?;
        let result = self.conn.exec::<(i64, i64), _, _>(&stmt, (param,));
        for (k, v) in self.seen(result)? {
            out.push((from_bigint(k)?, from_bigint(v)?));
        }
        Ok(())
    }

    fn commit(&mut self) -> Result<CommitStamp, DbError> {
        if !(self.stamps && std::mem::take(&mut self.wrote)) {
            let result = self.conn.query_drop("COMMIT");
            return self.seen(result).map(|()| None);
        }
        // One round trip; the SELECT runs only if the commit succeeded.
        let result = self
            .conn
            .query_iter("COMMIT; SELECT @@last_gtid")
            .and_then(|mut sets| {
                let mut gtid = None;
                while let Some(set) = sets.iter() {
                    for row in set {
                        gtid = gtid.or(column::<String>(Some(row?)).ok().flatten());
                    }
                }
                Ok(gtid)
            });
        let gtid = self.seen(result)?;
        Ok(self.stamp(gtid))
    }

    fn abort(&mut self) {
        if !self.broken {
            let result = self.conn.query_drop("ROLLBACK");
            let _ = self.seen(result);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::sequence_number;

    #[test]
    fn a_gtid_gives_its_sequence_number() {
        assert_eq!(sequence_number("0-1-13166"), Some(13166));
        assert_eq!(sequence_number(""), None);
        assert_eq!(sequence_number("0-1"), None);
        assert_eq!(sequence_number("0-1-x"), None);
    }
}
