//! The PostgreSQL backend (`postgres`, the synchronous client): tables
//! `isocheck_lists` and `isocheck_registers`, each transaction begun at the
//! run's isolation level. An error with an SQLSTATE means the server ended
//! the transaction (at commit: it did not commit), except those of a
//! connection ended by an operator (class 57, `pg_terminate_backend`) or
//! broken (class 08), whose outcome at commit is unknown; so is any error
//! without one (the socket closed).

use super::backend::{parse_list, Connection, Database, DbError, Isolation};
use crate::gen::workload::{Key, Value};
use postgres::error::SqlState;
use postgres::{Client, Config, NoTls, Statement};
use std::time::Duration;

/// The `application_name` of the clients' connections, so the `kill`
/// fault ends only theirs.
const CLIENT_NAME: &str = "isocheck-client";
/// How long connecting may take before the server counts as unreachable.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

pub struct Postgres {
    config: Config,
    isolation: Isolation,
    list: bool,
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
        })
    }

    fn client(&self, name: &str) -> Result<Client, DbError> {
        let mut config = self.config.clone();
        config.application_name(name);
        config.connect(NoTls).map_err(|e| {
            let mut err = error(e);
            if err.name != "cannot-write" {
                err.name = "cannot-connect";
                err.message = format!("cannot connect: {}", err.message);
            }
            err.broken = true;
            err
        })
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
fn error(e: postgres::Error) -> DbError {
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
    match &code.code()[..2] {
        "57" => DbError::lost("connection-terminated", message),
        "08" => DbError::lost("connection-lost", message),
        _ => DbError::rejected(name, message),
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
        let mut client = self.client("isocheck-setup")?;
        let (table, value) = self.tables();
        client
            .batch_execute(&format!(
                "DROP TABLE IF EXISTS {table}; \
                 CREATE TABLE {table} (k BIGINT PRIMARY KEY, {value});"
            ))
            .map_err(error)
    }

    fn connect(&self) -> Result<Box<dyn Connection>, DbError> {
        let (table, _) = self.tables();
        let mut client = self.client(CLIENT_NAME)?;
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
        let read = client
            .prepare(&format!("SELECT v FROM {table} WHERE k = $1"))
            .map_err(error)?;
        let write = client.prepare(&write).map_err(error)?;
        let cas = client
            .prepare(&format!(
                "UPDATE {table} SET v = $3 WHERE k = $1 AND v = $2"
            ))
            .map_err(error)?;
        Ok(Box::new(PgConnection {
            client,
            begin: format!("BEGIN ISOLATION LEVEL {}", self.isolation.sql()),
            read,
            write,
            cas,
            list: self.list,
        }))
    }

    fn kill_connections(&self) -> Result<bool, DbError> {
        let mut client = self.client("isocheck-nemesis")?;
        client
            .execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
                 WHERE application_name = $1 AND pid <> pg_backend_pid()",
                &[&CLIENT_NAME],
            )
            .map(|_| true)
            .map_err(error)
    }
}

struct PgConnection {
    client: Client,
    begin: String,
    read: Statement,
    write: Statement,
    /// Registers only: `UPDATE ... WHERE k = $1 AND v = $2` to `$3`.
    cas: Statement,
    list: bool,
}

impl Connection for PgConnection {
    fn begin(&mut self, _read_only: bool) -> Result<(), DbError> {
        self.client.batch_execute(&self.begin).map_err(error)
    }

    fn read(&mut self, key: Key, out: &mut Vec<Value>) -> Result<(), DbError> {
        let row = self
            .client
            .query_opt(&self.read, &[&(key as i64)])
            .map_err(error)?;
        let Some(row) = row else {
            return Ok(());
        };
        if self.list {
            let text: String = row.try_get(0).map_err(error)?;
            return parse_list(&text, out);
        }
        let v: i64 = row.try_get(0).map_err(error)?;
        out.push(v as Value);
        Ok(())
    }

    fn write(&mut self, key: Key, value: Value) -> Result<(), DbError> {
        let k = key as i64;
        let result = if self.list {
            let v = value.to_string();
            self.client.execute(&self.write, &[&k, &v])
        } else {
            self.client.execute(&self.write, &[&k, &(value as i64)])
        };
        result.map(drop).map_err(error)
    }

    fn cas(&mut self, key: Key, expected: Value, new: Value) -> Result<bool, DbError> {
        let args = [key as i64, expected as i64, new as i64];
        let changed = self
            .client
            .execute(&self.cas, &[&args[0], &args[1], &args[2]])
            .map_err(error)?;
        Ok(changed == 1)
    }

    fn commit(&mut self) -> Result<(), DbError> {
        self.client.batch_execute("COMMIT").map_err(error)
    }

    fn abort(&mut self) {
        if !self.client.is_closed() {
            let _ = self.client.batch_execute("ROLLBACK");
        }
    }
}
