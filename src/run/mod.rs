//! `isocheck run`: drives a real database (or a simulated one) with the
//! workloads of `gen` from concurrent clients, records what they saw as a
//! Jepsen history and writes it into a Jepsen store for checking.
//!
//! `backend.rs` is the interface every database is driven through;
//! `sqlite.rs` (embedded, the default), `postgres.rs`, `mysql.rs` (MariaDB
//! too) and `sim.rs` (`gen`'s simulated databases) implement it;
//! `client.rs` is a client thread, `recorder.rs` the shared history writer,
//! `nemesis.rs` the faults, `store.rs` the run directory and its files.
//! This module parses `--db`, runs the clients, the nemesis and the
//! progress, and writes the store;
//! the command line (`cli/run.rs`) checks the history afterwards.

pub mod backend;
mod cas;
mod client;
mod mysql;
pub mod nemesis;
mod postgres;
mod recorder;
mod sim;
mod sqlite;
pub mod store;

pub use backend::{DbError, Isolation};
pub use recorder::Counts;

use crate::gen::rng::Rng;
use crate::gen::workload::{Shape, Workload};
use crate::gen::Level;
use backend::Database;
use clap::ValueEnum;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The database a run drives, from `--db`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// `sqlite:PATH`; `None` (no `--db`): a file in the run directory.
    Sqlite(Option<PathBuf>),
    /// `sim:<level>`: `gen`'s simulated database.
    Sim(Level),
    /// `postgres://...` (or `postgresql://`), as libpq takes it.
    Postgres(String),
    /// `mysql://...` or `mariadb://...`.
    Mysql(String),
}

impl Target {
    /// Parses `--db`; the error is one line saying what is accepted.
    pub fn parse(s: &str) -> Result<Target, String> {
        if let Some(path) = s.strip_prefix("sqlite:") {
            let path = path.trim_start_matches("//");
            return match path {
                "" => Ok(Target::Sqlite(None)),
                p => Ok(Target::Sqlite(Some(PathBuf::from(p)))),
            };
        }
        if let Some(level) = s.strip_prefix("sim:") {
            return Level::from_str(level, false)
                .map(Target::Sim)
                .map_err(|_| format!("`{level}` is not a simulated level: {}", sim_levels()));
        }
        if s.starts_with("postgres://") || s.starts_with("postgresql://") {
            return Ok(Target::Postgres(s.to_string()));
        }
        if s.starts_with("mysql://") || s.starts_with("mariadb://") {
            return Ok(Target::Mysql(s.to_string()));
        }
        Err(format!(
            "`{s}` is not a database URL: use sqlite:PATH, postgres://USER@HOST:PORT/DB, \
             mysql://USER@HOST:PORT/DB or sim:LEVEL ({})",
            sim_levels()
        ))
    }

    /// A short name for the test's name and `test.edn`.
    pub fn label(&self) -> String {
        match self {
            Target::Sqlite(_) => "sqlite".into(),
            Target::Sim(level) => format!("sim-{}", level_name(*level)),
            Target::Postgres(_) => "postgres".into(),
            Target::Mysql(_) => "mysql".into(),
        }
    }

    /// Whether the database is a server, whose clients' connections can
    /// be ended and whose process can be restarted or paused (`--nemesis`).
    pub fn is_server(&self) -> bool {
        matches!(self, Target::Postgres(_) | Target::Mysql(_))
    }

    /// The isolation level a run of this database has: `--isolation`, or
    /// the database's only or default level; an error for a level it does
    /// not offer.
    pub fn isolation(&self, asked: Option<Isolation>) -> Result<Option<Isolation>, String> {
        match (self, asked) {
            (Target::Sqlite(_), None | Some(Isolation::Serializable)) => {
                Ok(Some(Isolation::Serializable))
            }
            (Target::Sqlite(_), Some(i)) => Err(format!(
                "SQLite runs every transaction serializable, not {}: drop --isolation",
                i.name()
            )),
            (Target::Sim(_), None) => Ok(None),
            (Target::Sim(_), Some(_)) => Err(
                "a simulated database's level is in its URL (sim:LEVEL): drop --isolation".into(),
            ),
            (Target::Postgres(_) | Target::Mysql(_), asked) => {
                Ok(Some(asked.unwrap_or(Isolation::Serializable)))
            }
        }
    }

    /// The Elle model the database documents for its level. MySQL's
    /// and MariaDB's repeatable read is not snapshot isolation (reads
    /// after a write see other transactions' later commits): it promises
    /// read committed.
    pub fn promised_model(&self, isolation: Option<Isolation>) -> &'static str {
        match (self, isolation) {
            (Target::Sim(level), _) => level.models().1,
            (_, Some(Isolation::ReadCommitted)) => "read-committed",
            (Target::Mysql(_), Some(Isolation::RepeatableRead)) => "read-committed",
            (_, Some(Isolation::RepeatableRead)) => "snapshot-isolation",
            (_, _) => "serializable",
        }
    }
}

fn level_name(level: Level) -> String {
    level
        .to_possible_value()
        .map(|v| v.get_name().to_string())
        .unwrap_or_default()
}

fn sim_levels() -> String {
    let names: Vec<String> = Level::value_variants()
        .iter()
        .map(|l| level_name(*l))
        .collect();
    format!("LEVEL is one of {}", names.join(", "))
}

/// Everything a run needs.
#[derive(Clone, Debug)]
pub struct Options {
    pub target: Target,
    pub isolation: Option<Isolation>,
    pub shape: Shape,
    pub processes: u64,
    /// Transactions to invoke (`u64::MAX`: until the time limit).
    pub txns: u64,
    pub time_limit: Option<Duration>,
    pub seed: u64,
    pub store: PathBuf,
    /// The test's name (its directory in the store).
    pub name: String,
    /// The models the history is checked against, for `test.edn`.
    pub models: Vec<String>,
    /// Faults to inject, and how often.
    pub nemesis: Option<nemesis::Plan>,
    /// The cas-register workload on this many registers, in place of
    /// `shape`'s transactions (whose register table it uses).
    pub cas: Option<u64>,
}

impl Options {
    /// The workload's name, as `--workload` spells it.
    pub fn workload_name(&self) -> String {
        if self.cas.is_some() {
            return "cas-register".into();
        }
        self.shape
            .kind
            .to_possible_value()
            .map(|v| v.get_name().to_string())
            .unwrap_or_default()
    }
}

/// What a run recorded, and where.
#[derive(Debug)]
pub struct Recording {
    pub dir: PathBuf,
    pub history: PathBuf,
    pub counts: Counts,
    pub elapsed: Duration,
}

/// Why a run could not start or record.
#[derive(Debug)]
pub enum RunError {
    /// The store (or the SQLite file's directory) cannot be written.
    Store(PathBuf, io::Error),
    /// The database cannot be reached or set up.
    Database(DbError),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Store(path, e) => write!(f, "cannot write {}: {e}", path.display()),
            RunError::Database(e) => write!(f, "{}", e.message),
        }
    }
}

impl RunError {
    /// One line saying what to do.
    pub fn help(&self) -> &'static str {
        match self {
            RunError::Store(..) => "pass --store with a directory you can write",
            RunError::Database(e) if e.name == "bad-url" => {
                "give --db a URL such as postgres://USER@127.0.0.1:5432/DB or \
                 mysql://USER@127.0.0.1:3306/DB"
            }
            RunError::Database(e) if e.name == "cannot-open" => {
                "give --db sqlite:PATH a file in a directory you can write"
            }
            RunError::Database(e) if e.name == "cannot-write" => {
                "use a database where this user may create tables, or another --db"
            }
            RunError::Database(_) => {
                "check that the database is running and --db names it \
                 (scripts/db.sh start postgres|mariadb starts one)"
            }
        }
    }
}

/// How often a run reports its counts to its progress callback.
const PROGRESS_EVERY: Duration = Duration::from_millis(250);

/// Runs the workload against the database until `o.txns` transactions
/// were invoked, the time limit passed or `stop` was set, and writes the
/// history and `test.edn` into a fresh run directory of the store.
/// `progress` gets the counts so far a few times a second.
pub fn run(
    o: &Options,
    stop: &AtomicBool,
    progress: &(dyn Fn(Counts) + Sync),
) -> Result<Recording, RunError> {
    let dir = store::create_run_dir(&o.store, &o.name)
        .map_err(|e| RunError::Store(o.store.clone(), e))?;
    let db = open(o, &dir)?;
    if let Err(e) = db.setup() {
        // Nothing was recorded: leave no empty run behind.
        let _ = std::fs::remove_dir_all(&dir);
        return Err(RunError::Database(e));
    }
    let history = dir.join("history.edn");
    let file = std::fs::File::create(&history).map_err(|e| RunError::Store(history.clone(), e))?;
    let recorder = recorder::Recorder::new(file, o.shape.kind);
    let start = Instant::now();
    let budget = || client::Budget {
        left: AtomicU64::new(o.txns),
        // A limit past the clock's range is no limit.
        deadline: o.time_limit.and_then(|t| start.checked_add(t)),
        stop,
    };
    let clients_done = AtomicBool::new(false);
    std::thread::scope(|s| {
        let clients = match o.cas {
            Some(keys) => {
                let job = cas::Registers::new(budget(), keys, o.seed, &recorder);
                spawn_clients(s, o.processes, &*db, job)
            }
            None => {
                let job = client::Txns {
                    budget: budget(),
                    workload: Mutex::new((Workload::new(o.shape.clone()), Rng::new(o.seed))),
                    recorder: &recorder,
                };
                spawn_clients(s, o.processes, &*db, job)
            }
        };
        if let Some(plan) = &o.nemesis {
            let (db, recorder, done) = (&*db, &recorder, &clients_done);
            s.spawn(move || nemesis::run(plan, db, recorder, done));
        }
        let (recorder, done) = (&recorder, &clients_done);
        s.spawn(move || every(PROGRESS_EVERY, done, || progress(recorder.counts())));
        let _ = clients.join();
        clients_done.store(true, Ordering::Relaxed);
    });
    let elapsed = start.elapsed();
    let counts = recorder
        .finish()
        .map_err(|e| RunError::Store(history.clone(), e))?;
    let test = test_edn(o, elapsed);
    let test_path = dir.join("test.edn");
    std::fs::write(&test_path, test).map_err(|e| RunError::Store(test_path, e))?;
    store::link_latest(&o.store, &dir).map_err(|e| RunError::Store(o.store.clone(), e))?;
    Ok(Recording {
        dir,
        history,
        counts,
        elapsed,
    })
}

/// Runs `processes` clients doing `job` on `db`, in a thread that ends
/// when they do.
fn spawn_clients<'scope, J: client::Job + Send + 'scope>(
    s: &'scope std::thread::Scope<'scope, '_>,
    processes: u64,
    db: &'scope dyn Database,
    job: J,
) -> std::thread::ScopedJoinHandle<'scope, ()> {
    s.spawn(move || {
        std::thread::scope(|inner| {
            for index in 0..processes {
                let job = &job;
                inner.spawn(move || client::run(index, processes, db, job));
            }
        })
    })
}

/// Calls `f` every `period` until `done` is set.
fn every(period: Duration, done: &AtomicBool, mut f: impl FnMut()) {
    while nemesis::wait(period, done) {
        f();
    }
}

/// The database the options name, its files (SQLite's) in `dir`.
fn open(o: &Options, dir: &Path) -> Result<Box<dyn Database>, RunError> {
    let list = o.shape.kind.is_list();
    Ok(match &o.target {
        Target::Sqlite(path) => {
            let path = path.clone().unwrap_or_else(|| dir.join("db.sqlite"));
            Box::new(sqlite::Sqlite::new(path, list))
        }
        Target::Sim(level) => Box::new(sim::Sim::new(*level, o.processes as usize, list)),
        Target::Postgres(url) => {
            let isolation = o.isolation.unwrap_or(Isolation::Serializable);
            let db = postgres::Postgres::new(url, isolation, list).map_err(RunError::Database)?;
            Box::new(db)
        }
        Target::Mysql(url) => {
            let isolation = o.isolation.unwrap_or(Isolation::Serializable);
            Box::new(mysql::Mysql::new(url, isolation, list).map_err(RunError::Database)?)
        }
    })
}

fn test_edn(o: &Options, elapsed: Duration) -> String {
    use store::Field;
    let models: Vec<&str> = o.models.iter().map(String::as_str).collect();
    let faults: Vec<&str> = o
        .nemesis
        .iter()
        .flat_map(|p| &p.faults)
        .map(|f| f.name())
        .collect();
    let kind = o.workload_name();
    let txns = match o.txns {
        u64::MAX => Field::Nil,
        n => Field::Int(n),
    };
    store::test_edn(&[
        ("name", Field::Str(&o.name)),
        ("db", Field::Str(&o.target.label())),
        (
            "isolation",
            o.isolation.map_or(Field::Nil, |i| Field::Keyword(i.name())),
        ),
        ("workload", Field::Keyword(&kind)),
        ("consistency-models", Field::Keywords(&models)),
        ("concurrency", Field::Int(o.processes)),
        ("txns", txns),
        (
            "time-limit",
            o.time_limit
                .map_or(Field::Nil, |t| Field::Float(t.as_secs_f64())),
        ),
        ("key-count", Field::Int(o.shape.keys)),
        ("max-writes-per-key", Field::Int(o.shape.max_writes_per_key)),
        ("seed", Field::Int(o.seed)),
        (
            "nemesis",
            o.nemesis
                .as_ref()
                .map_or(Field::Nil, |_| Field::Keywords(&faults)),
        ),
        (
            "nemesis-interval",
            o.nemesis
                .as_ref()
                .map_or(Field::Nil, |p| Field::Float(p.interval.as_secs_f64())),
        ),
        ("elapsed", Field::Float(elapsed.as_secs_f64())),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_parse_or_say_what_is_accepted() {
        assert_eq!(Target::parse("sqlite:"), Ok(Target::Sqlite(None)));
        assert_eq!(
            Target::parse("sqlite:///tmp/x.db"),
            Ok(Target::Sqlite(Some("/tmp/x.db".into())))
        );
        assert_eq!(
            Target::parse("sim:snapshot-isolation"),
            Ok(Target::Sim(Level::SnapshotIsolation))
        );
        let e = Target::parse("sim:bogus").unwrap_err();
        assert!(e.contains("read-committed"), "{e}");
        assert!(Target::parse("oracle://x")
            .unwrap_err()
            .contains("sqlite:PATH"));
    }

    #[test]
    fn sqlite_has_one_level() {
        let t = Target::Sqlite(None);
        assert_eq!(t.isolation(None), Ok(Some(Isolation::Serializable)));
        assert!(t.isolation(Some(Isolation::ReadCommitted)).is_err());
        assert_eq!(
            t.promised_model(Some(Isolation::Serializable)),
            "serializable"
        );
    }
}
