//! The embedded SQLite backend (`rusqlite`, the bundled library): a database
//! file in write-ahead-log mode with `synchronous = NORMAL`, one connection
//! per client. SQLite runs
//! every transaction serializable; a transaction that writes begins
//! `IMMEDIATE` (it takes the write lock first, so it never fails to upgrade
//! a read lock), a read-only one `DEFERRED`.

use super::backend::{
    from_bigint, parse_list, to_bigint, CommitOrder, CommitStamp, Connection, Database, DbError,
    Statements,
};
use crate::predicate::Pred;
use isocheck_gen::workload::{Key, Value};
use rusqlite::types::Value as SqlValue;
use rusqlite::{params, ErrorCode, OptionalExtension};
use std::path::PathBuf;
use std::time::Duration;

/// How long a statement waits for another connection's lock before
/// failing with `SQLITE_BUSY`.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

pub struct Sqlite {
    path: PathBuf,
    list: bool,
}

impl Sqlite {
    /// The database file at `path` (created if missing); `list` for the
    /// list-append table, else registers.
    pub fn new(path: PathBuf, list: bool) -> Sqlite {
        Sqlite { path, list }
    }

    fn open(&self) -> Result<rusqlite::Connection, DbError> {
        let conn = rusqlite::Connection::open(&self.path).map_err(|e| {
            DbError::lost(
                "cannot-open",
                format!("cannot open {}: {e}", self.path.display()),
            )
        })?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(error)?;
        // In WAL mode a commit then survives the process but not the
        // machine; it no longer waits for the disk.
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(error)?;
        Ok(conn)
    }
}

/// The history's name for an SQLite error; every error before commit
/// ends the transaction, and `SQLITE_BUSY` at commit leaves it uncommitted
/// (it is rolled back).
fn error(e: rusqlite::Error) -> DbError {
    let name = match e.sqlite_error_code() {
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => "busy",
        Some(ErrorCode::ReadOnly | ErrorCode::CannotOpen | ErrorCode::PermissionDenied) => {
            "cannot-write"
        }
        Some(_) => "sqlite-error",
        None => "client-error",
    };
    DbError::rejected(name, e)
}

impl Database for Sqlite {
    fn setup(&self) -> Result<(), DbError> {
        let conn = self.open()?;
        let table = if self.list {
            "DROP TABLE IF EXISTS lists; CREATE TABLE lists (k INTEGER PRIMARY KEY, v TEXT NOT NULL);"
        } else {
            "DROP TABLE IF EXISTS registers; \
             CREATE TABLE registers (k INTEGER PRIMARY KEY, v INTEGER NOT NULL);"
        };
        // The journal mode is the file's: set once, every connection has it.
        conn.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))
            .map_err(error)?;
        conn.execute_batch(table).map_err(error)
    }

    fn connect(&self) -> Result<Box<dyn Connection>, DbError> {
        Ok(Box::new(SqliteConnection {
            conn: self.open()?,
            list: self.list,
        }))
    }

    fn commit_order(&self) -> CommitOrder {
        CommitOrder::Unavailable("SQLite reports no commit order".into())
    }
}

struct SqliteConnection {
    conn: rusqlite::Connection,
    list: bool,
}

impl Statements for SqliteConnection {
    fn begin(&mut self, read_only: bool) -> Result<(), DbError> {
        let sql = if read_only {
            "BEGIN DEFERRED"
        } else {
            "BEGIN IMMEDIATE"
        };
        self.conn.execute_batch(sql).map_err(error)
    }

    fn read(&mut self, key: Key, out: &mut Vec<Value>) -> Result<(), DbError> {
        let sql = if self.list {
            "SELECT v FROM lists WHERE k = ?1"
        } else {
            "SELECT v FROM registers WHERE k = ?1"
        };
        let mut stmt = self.conn.prepare_cached(sql).map_err(error)?;
        let v: Option<SqlValue> = stmt
            .query_row(params![to_bigint(key)?], |r| r.get(0))
            .optional()
            .map_err(error)?;
        match v {
            None => Ok(()),
            Some(SqlValue::Text(list)) => parse_list(&list, out),
            Some(SqlValue::Integer(v)) => {
                out.push(from_bigint(v)?);
                Ok(())
            }
            Some(other) => Err(DbError::rejected("unreadable-value", format!("{other:?}"))),
        }
    }

    fn write(&mut self, key: Key, value: Value) -> Result<(), DbError> {
        let sql = if self.list {
            "INSERT INTO lists (k, v) VALUES (?1, ?2) \
             ON CONFLICT (k) DO UPDATE SET v = v || ' ' || excluded.v"
        } else {
            "INSERT INTO registers (k, v) VALUES (?1, ?2) \
             ON CONFLICT (k) DO UPDATE SET v = excluded.v"
        };
        let mut stmt = self.conn.prepare_cached(sql).map_err(error)?;
        let value: SqlValue = if self.list {
            value.to_string().into()
        } else {
            to_bigint(value)?.into()
        };
        stmt.execute(params![to_bigint(key)?, value])
            .map(drop)
            .map_err(error)
    }

    fn cas(&mut self, key: Key, expected: Value, new: Value) -> Result<bool, DbError> {
        let sql = "UPDATE registers SET v = ?3 WHERE k = ?1 AND v = ?2";
        let mut stmt = self.conn.prepare_cached(sql).map_err(error)?;
        let changed = stmt
            .execute(params![
                to_bigint(key)?,
                to_bigint(expected)?,
                to_bigint(new)?
            ])
            .map_err(error)?;
        Ok(changed == 1)
    }

    fn delete(&mut self, key: Key) -> Result<(), DbError> {
        let mut stmt = (self.conn)
            .prepare_cached("DELETE FROM registers WHERE k = ?1")
            .map_err(error)?;
        stmt.execute(params![to_bigint(key)?])
            .map(drop)
            .map_err(error)
    }

    fn select(&mut self, pred: Pred, out: &mut Vec<(Key, Value)>) -> Result<(), DbError> {
        // `?1 IS NOT NULL` keeps the one parameter in every condition.
        let sql = format!(
            "SELECT k, v FROM registers WHERE {} AND ?1 IS NOT NULL",
            pred.sql("?1")
        );
        let mut stmt = self.conn.prepare_cached(&sql).map_err(error)?;
        let rows = stmt
            .query_map(params![to_bigint(pred.param())?], |r| {
                Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?))
            })
            .map_err(error)?;
        for row in rows {
            let (k, v) = row.map_err(error)?;
            out.push((from_bigint(k)?, from_bigint(v)?));
        }
        Ok(())
    }

    fn commit(&mut self) -> Result<CommitStamp, DbError> {
        self.conn
            .execute_batch("COMMIT")
            .map(|()| None)
            .map_err(|e| {
                let mut err = error(e);
                // Only a busy database is known to leave the transaction open
                // (and then rolled back); anything else at commit is unknown.
                err.definite = err.name == "busy";
                err
            })
    }

    fn abort(&mut self) {
        if !self.conn.is_autocommit() {
            let _ = self.conn.execute_batch("ROLLBACK");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("isocheck-sqlite-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("db.sqlite")
    }

    /// A connection driven statement by statement.
    fn statements(db: &Sqlite) -> SqliteConnection {
        SqliteConnection {
            conn: db.open().unwrap(),
            list: db.list,
        }
    }

    #[test]
    fn appends_and_registers_read_back() {
        for list in [true, false] {
            let db = Sqlite::new(scratch(&format!("rw-{list}")), list);
            db.setup().unwrap();
            let mut c = statements(&db);
            c.begin(false).unwrap();
            c.write(1, 5).unwrap();
            c.write(1, 6).unwrap();
            c.commit().unwrap();
            c.begin(true).unwrap();
            let mut out = Vec::new();
            c.read(1, &mut out).unwrap();
            c.read(2, &mut out).unwrap();
            c.commit().unwrap();
            assert_eq!(out, if list { vec![5, 6] } else { vec![6] });
        }
    }

    #[test]
    fn an_aborted_write_is_not_seen() {
        let db = Sqlite::new(scratch("abort"), true);
        db.setup().unwrap();
        let mut c = statements(&db);
        c.begin(false).unwrap();
        c.write(1, 5).unwrap();
        c.abort();
        c.begin(true).unwrap();
        let mut out = Vec::new();
        c.read(1, &mut out).unwrap();
        c.commit().unwrap();
        assert!(out.is_empty());
    }
}
