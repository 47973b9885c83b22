//! The PostgreSQL backend (`tokio-postgres`, each connection driven by a
//! one-thread runtime of its own, every call bounded by the timeouts of
//! `backend.rs`): tables `isocheck_lists` and `isocheck_registers`, each
//! transaction begun at the run's isolation level. An error with an
//! SQLSTATE means the server ended the transaction (at commit: it did not
//! commit), except those of a connection ended by an operator (class 57,
//! `pg_terminate_backend`) or broken (class 08), whose outcome at commit is
//! unknown; so is any error without one (the socket closed) and a call the
//! server did not answer in time (the connection is then given up).
//!
//! With `track_commit_timestamp = on` (found out at setup), the commit
//! order is recorded: a transaction's first write returns its xid
//! (`RETURNING pg_current_xact_id()`, no extra round trip), and its
//! `COMMIT` is sent with `pg_xact_commit_timestamp(xid)` in one query
//! string, microseconds since 1970. Two writers of one row commit in the
//! order they installed its versions: the second waits for the first's row
//! lock, released after the first's commit timestamp was taken (or, at
//! REPEATABLE READ and SERIALIZABLE, fails). The timestamps are the
//! server's wall clock: a clock set back while the run goes on would break
//! that order.

use super::backend::{
    from_bigint, parse_list, to_bigint, CommitOrder, CommitStamp, Connection, Database, DbError,
    Isolation, Statements, CONNECT_TIMEOUT, STATEMENT_TIMEOUT,
};
use crate::predicate::{Pred, Predicates};
use isocheck_gen::workload::{Key, Value};
use std::future::Future;
use std::sync::OnceLock;
use std::time::Duration;
use tokio::runtime::Runtime;
use tokio_postgres::error::SqlState;
use tokio_postgres::types::ToSql;
use tokio_postgres::{Client, Config, NoTls, SimpleQueryMessage, Statement};

/// The `application_name` of the clients' connections, so the `kill`
/// fault ends only theirs.
const CLIENT_NAME: &str = "isocheck-client";

pub struct Postgres {
    config: Config,
    isolation: Isolation,
    list: bool,
    /// Learnt at setup, from `track_commit_timestamp`.
    commit_order: OnceLock<CommitOrder>,
}

/// What the commit timestamps are, as the run's summary says.
const COMMIT_TIMESTAMPS: &str =
    "PostgreSQL's commit timestamps (track_commit_timestamp), microseconds";

/// The clause the writes end with when the commit order is recorded:
/// the transaction's xid, assigned by its first write.
const RETURNING_XID: &str = " RETURNING pg_current_xact_id()::text";

/// A connection: the client and the runtime that drives its socket (a
/// spawned task, run whenever a call is waited for).
struct Session {
    runtime: Runtime,
    client: Client,
}

impl Session {
    /// Waits for one statement's answer, at most [`STATEMENT_TIMEOUT`].
    fn call<T>(
        &self,
        call: impl Future<Output = Result<T, tokio_postgres::Error>>,
    ) -> Result<T, DbError> {
        within(&self.runtime, STATEMENT_TIMEOUT, call)?.map_err(error)
    }
}

/// Runs `call` on `runtime`, giving up after `limit`.
fn within<T>(
    runtime: &Runtime,
    limit: Duration,
    call: impl Future<Output = T>,
) -> Result<T, DbError> {
    runtime
        .block_on(async { tokio::time::timeout(limit, call).await })
        .map_err(|_| DbError::timeout(limit))
}

impl Postgres {
    /// The database at `url` (`postgres://user@host:port/db`); an error
    /// (`bad-url`) says what is wrong with the URL.
    pub fn new(url: &str, isolation: Isolation, list: bool) -> Result<Postgres, DbError> {
        let mut config: Config = url.parse().map_err(|e| DbError {
            name: "bad-url",
            message: format!("`{url}` is not a PostgreSQL URL: {e}"),
            definite: true,
            broken: true,
        })?;
        config.connect_timeout(CONNECT_TIMEOUT);
        Ok(Postgres {
            config,
            isolation,
            list,
            commit_order: OnceLock::new(),
        })
    }

    fn session(&self, name: &str) -> Result<Session, DbError> {
        let cannot_connect = |mut err: DbError| {
            if err.name != "cannot-write" {
                err.name = "cannot-connect";
                err.message = format!("cannot connect: {}", err.message);
            }
            err.broken = true;
            err
        };
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| cannot_connect(DbError::lost("runtime", e)))?;
        let mut config = self.config.clone();
        config.application_name(name);
        let (client, connection) = within(&runtime, CONNECT_TIMEOUT, config.connect(NoTls))
            .and_then(|r| r.map_err(error))
            .map_err(cannot_connect)?;
        // The socket is read and written by this task, which runs while a
        // call is waited for; it ends when the client is dropped.
        runtime.spawn(connection);
        Ok(Session { runtime, client })
    }

    fn tables(&self) -> (&'static str, &'static str) {
        if self.list {
            ("isocheck_lists", "v TEXT NOT NULL")
        } else {
            ("isocheck_registers", "v BIGINT NOT NULL")
        }
    }
}

/// The history's name for an error, and what it says of the transaction.
fn error(e: tokio_postgres::Error) -> DbError {
    let message = match e.as_db_error() {
        Some(d) => d.message().to_string(),
        None => chain(&e),
    };
    let Some(code) = e.code() else {
        return DbError::lost("connection-lost", message);
    };
    let name = match code {
        c if *c == SqlState::T_R_SERIALIZATION_FAILURE => "serialization-failure",
        c if *c == SqlState::T_R_DEADLOCK_DETECTED => "deadlock",
        c if *c == SqlState::UNIQUE_VIOLATION => "unique-violation",
        c if *c == SqlState::INSUFFICIENT_PRIVILEGE => "cannot-write",
        c if *c == SqlState::INVALID_PASSWORD
            || *c == SqlState::INVALID_AUTHORIZATION_SPECIFICATION =>
        {
            "cannot-connect"
        }
        _ => "sql-error",
    };
    // The class is the code's first two characters (the server sends the
    // code: it may be shorter than SQL's five).
    match code.code().get(..2) {
        Some("57") => DbError::lost("connection-terminated", message),
        Some("08") => DbError::lost("connection-lost", message),
        _ => DbError::rejected(name, message),
    }
}

/// The commit timestamp a row of the commit's lookup holds: none when
/// the server had none (NULL) or sent something else; the transaction
/// committed either way.
fn stamp_in(message: &SimpleQueryMessage) -> Option<u64> {
    match message {
        SimpleQueryMessage::Row(row) => row.get(0).and_then(|text| text.parse().ok()),
        _ => None,
    }
}

/// An error and its sources, `: `-separated (the client's own message
/// for a refused connection is only "error connecting to server").
fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(&format!(": {s}"));
        source = s.source();
    }
    text
}

impl Database for Postgres {
    fn setup(&self) -> Result<(), DbError> {
        let session = self.session("isocheck-setup")?;
        let (table, value) = self.tables();
        let sql = format!(
            "DROP TABLE IF EXISTS {table}; CREATE TABLE {table} (k BIGINT PRIMARY KEY, {value});"
        );
        session.call(session.client.batch_execute(&sql))?;
        let tracked = session.call(session.client.query_one("SHOW track_commit_timestamp", &[]))?;
        let order = match tracked.try_get::<_, String>(0).map_err(error)?.as_str() {
            "on" => CommitOrder::Recorded(COMMIT_TIMESTAMPS),
            _ => CommitOrder::Unavailable(
                "the server's track_commit_timestamp is off: set it on and restart the server \
                 to record the commit order"
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
        let (table, _) = self.tables();
        let session = self.session(CLIENT_NAME)?;
        let write = if self.list {
            format!(
                "INSERT INTO {table} (k, v) VALUES ($1, $2) \
                 ON CONFLICT (k) DO UPDATE SET v = {table}.v || ' ' || excluded.v"
            )
        } else {
            format!(
                "INSERT INTO {table} (k, v) VALUES ($1, $2) \
                 ON CONFLICT (k) DO UPDATE SET v = excluded.v"
            )
        };
        let stamps = matches!(self.commit_order(), CommitOrder::Recorded(_));
        let returning = if stamps { RETURNING_XID } else { "" };
        let prepare = |sql: &str| session.call(session.client.prepare(sql));
        let read = prepare(&format!("SELECT v FROM {table} WHERE k = $1"))?;
        let write = prepare(&format!("{write}{returning}"))?;
        let cas = prepare(&format!(
            "UPDATE {table} SET v = $3 WHERE k = $1 AND v = $2{returning}"
        ))?;
        // Lists have no predicate reads: a text value has no `v % 2`.
        let predicates = match self.list {
            true => None,
            false => Some(predicate_statements(table, &prepare)?),
        };
        Ok(Box::new(PgConnection {
            session,
            begin: format!("BEGIN ISOLATION LEVEL {}", self.isolation.sql()),
            read,
            write,
            cas,
            predicates,
            list: self.list,
            broken: false,
            stamps,
            xid: None,
        }))
    }

    fn kill_connections(&self) -> Result<bool, DbError> {
        let session = self.session("isocheck-nemesis")?;
        let sql = "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
                   WHERE application_name = $1 AND pid <> pg_backend_pid()";
        session
            .call(session.client.execute(sql, &[&CLIENT_NAME]))
            .map(|_| true)
    }
}

/// Closed-predicate's statements on the registers table.
fn predicate_statements(
    table: &str,
    prepare: &dyn Fn(&str) -> Result<Statement, DbError>,
) -> Result<Predicates<Statement>, DbError> {
    let delete = prepare(&format!("DELETE FROM {table} WHERE k = $1"))?;
    Predicates::new(delete, |p: Pred| {
        let sql = format!("SELECT k, v FROM {table} WHERE {}", p.sql("$1"));
        // `TRUE` takes no parameter: one never used would have no type the
        // server can infer.
        let sql = match p {
            Pred::True => format!("{sql} AND $1::BIGINT IS NOT NULL"),
            _ => sql,
        };
        prepare(&sql)
    })
}

struct PgConnection {
    session: Session,
    begin: String,
    read: Statement,
    write: Statement,
    /// Registers only: `UPDATE ... WHERE k = $1 AND v = $2` to `$3`.
    cas: Statement,
    /// Registers only: closed-predicate's statements.
    predicates: Option<Predicates<Statement>>,
    list: bool,
    /// A call failed without the server's answer (timeout, lost socket):
    /// nothing more is sent on this connection, not even a rollback.
    broken: bool,
    /// The commit order is recorded: the writes return the xid.
    stamps: bool,
    /// The open transaction's xid, once a write assigned it.
    xid: Option<u64>,
}

impl PgConnection {
    /// Runs a write (`execute` when no xid comes back); with `stamps`,
    /// keeps the xid its `RETURNING` gives. How many rows it changed.
    fn written(
        &mut self,
        statement: Statement,
        args: &[&(dyn ToSql + Sync)],
    ) -> Result<u64, DbError> {
        let s = &self.session;
        if !self.stamps {
            let result = s.call(s.client.execute(&statement, args));
            return self.seen(result);
        }
        let result = s.call(s.client.query_opt(&statement, args));
        let Some(row) = self.seen(result)? else {
            return Ok(0);
        };
        let xid: String = row.try_get(0).map_err(error)?;
        let xid = xid
            .parse()
            .map_err(|_| DbError::rejected("unreadable-xid", format!("`{xid}`")))?;
        self.xid = Some(xid);
        Ok(1)
    }

    /// Passes `result` on, marking the connection broken when the server
    /// did not answer.
    fn seen<T>(&mut self, result: Result<T, DbError>) -> Result<T, DbError> {
        if let Err(e) = &result {
            self.broken |= e.broken;
        }
        result
    }
}

impl Statements for PgConnection {
    fn begin(&mut self, _read_only: bool) -> Result<(), DbError> {
        self.xid = None;
        let s = &self.session;
        let result = s.call(s.client.batch_execute(&self.begin));
        self.seen(result)
    }

    fn read(&mut self, key: Key, out: &mut Vec<Value>) -> Result<(), DbError> {
        let k = to_bigint(key)?;
        let s = &self.session;
        let result = s.call(s.client.query_opt(&self.read, &[&k]));
        let Some(row) = self.seen(result)? else {
            return Ok(());
        };
        if self.list {
            let text: String = row.try_get(0).map_err(error)?;
            return parse_list(&text, out);
        }
        let v: i64 = row.try_get(0).map_err(error)?;
        out.push(from_bigint(v)?);
        Ok(())
    }

    fn write(&mut self, key: Key, value: Value) -> Result<(), DbError> {
        let k = to_bigint(key)?;
        let write = self.write.clone();
        if self.list {
            let v = value.to_string();
            self.written(write, &[&k, &v]).map(drop)
        } else {
            let v = to_bigint(value)?;
            self.written(write, &[&k, &v]).map(drop)
        }
    }

    fn cas(&mut self, key: Key, expected: Value, new: Value) -> Result<bool, DbError> {
        let args = [to_bigint(key)?, to_bigint(expected)?, to_bigint(new)?];
        let cas = self.cas.clone();
        Ok(self.written(cas, &[&args[0], &args[1], &args[2]])? == 1)
    }

    fn delete(&mut self, key: Key) -> Result<(), DbError> {
        let k = to_bigint(key)?;
        let stmt = &Predicates::of(&self.predicates)?.delete;
        let s = &self.session;
        let result = s.call(s.client.execute(stmt, &[&k]));
        self.seen(result).map(drop)
    }

    fn select(&mut self, pred: Pred, out: &mut Vec<(Key, Value)>) -> Result<(), DbError> {
        let stmt = Predicates::of(&self.predicates)?.select(pred);
        let param = to_bigint(pred.param())?;
        let s = &self.session;
        let result = s.call(s.client.query(stmt, &[&param]));
        for row in self.seen(result)? {
            let k: i64 = row.try_get(0).map_err(error)?;
            let v: i64 = row.try_get(1).map_err(error)?;
            out.push((from_bigint(k)?, from_bigint(v)?));
        }
        Ok(())
    }

    fn commit(&mut self) -> Result<CommitStamp, DbError> {
        let s = &self.session;
        let Some(xid) = self.xid.take() else {
            let result = s.call(s.client.batch_execute("COMMIT"));
            return self.seen(result).map(|()| None);
        };
        // One round trip: the lookup runs only if the commit succeeded, and
        // cannot fail itself (the setting is read before the timestamp).
        let sql = format!(
            "COMMIT; SELECT CASE WHEN current_setting('track_commit_timestamp')::bool THEN \
             (extract(epoch FROM pg_xact_commit_timestamp(xid('{xid}'::xid8))) * 1000000)::bigint \
             END"
        );
        let result = s.call(s.client.simple_query(&sql));
        Ok(self.seen(result)?.iter().find_map(stamp_in))
    }

    fn abort(&mut self) {
        if !self.broken && !self.session.client.is_closed() {
            let s = &self.session;
            let result = s.call(s.client.batch_execute("ROLLBACK"));
            let _ = self.seen(result);
        }
    }
}
