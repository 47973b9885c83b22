//! `isocheck run`: drives a real database (or a simulated one) with the
//! workloads of `gen` from concurrent clients, records what they saw as a
//! Jepsen history and writes it into a Jepsen store for checking.
//!
//! `backend.rs` is the interface every database is driven through;
//! `sqlite.rs` (embedded, the default), `postgres.rs`, `mysql.rs` (MariaDB
//! too), `sim.rs` (`gen`'s simulated databases) and `exec/` (any database,
//! through a client program of the user's) implement it;
//! `client.rs` is a client thread, `recorder.rs` the shared history writer,
//! `nemesis.rs` the faults, `store.rs` the run directory and its files,
//! `perf.rs` the run's latency and throughput plots.
//! This module parses `--db`, runs the clients, the nemesis and the
//! progress, and writes the store;
//! the command line (`cli/run.rs`) checks the history afterwards.
//!
//! A run ends by its time limit (or at a Ctrl-C) whatever the database
//! does: the clients and the nemesis run on threads of their own, watched
//! by the calling thread, which gives the ops under way [`GRACE`] to
//! complete once the clients must stop, then abandons the threads still
//! waiting (each backend's calls have timeouts too, but a watchdog needs
//! none): their ops are recorded `:info`, the history is closed and
//! flushed, and the store is written.

pub mod backend;
mod cas;
mod client;
pub mod exec;
#[cfg(feature = "mysql")]
mod mysql;
pub mod nemesis;
pub mod perf;
#[cfg(feature = "postgres")]
mod postgres;
mod predicate;
mod recorder;
mod sim;
#[cfg(feature = "sqlite")]
mod sqlite;
pub mod store;

pub use backend::{CommitOrder, DbError, Isolation};
pub use recorder::Counts;

use backend::Database;
use clap::ValueEnum;
use isocheck_gen::rng::Rng;
use isocheck_gen::workload::{Shape, Workload};
use isocheck_gen::Level;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::thread::JoinHandle;
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
    /// `exec:PROGRAM [ARGS...]`: a client program speaking the exec
    /// protocol, one per client.
    Exec(exec::Command),
}

impl Target {
    /// Parses `--db`; the error is one line saying what is accepted, or
    /// that this build has no client for the database.
    pub fn parse(s: &str) -> Result<Target, String> {
        let target = Target::named(s)?;
        target.client_built()?;
        Ok(target)
    }

    fn named(s: &str) -> Result<Target, String> {
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
        if let Some(command) = s.strip_prefix("exec:") {
            return exec::Command::parse(command).map(Target::Exec);
        }
        Err(format!(
            "`{s}` is not a database URL: use sqlite:PATH, postgres://USER@HOST:PORT/DB, \
             mysql://USER@HOST:PORT/DB, exec:PROGRAM [ARGS...] or sim:LEVEL ({})",
            sim_levels()
        ))
    }

    /// Whether this build has the database's client (each is a cargo
    /// feature of the database's name); the error says how to build one
    /// that does.
    fn client_built(&self) -> Result<(), String> {
        let (feature, built) = match self {
            Target::Sim(_) | Target::Exec(_) => return Ok(()),
            Target::Sqlite(_) => ("sqlite", cfg!(feature = "sqlite")),
            Target::Postgres(_) => ("postgres", cfg!(feature = "postgres")),
            Target::Mysql(_) => ("mysql", cfg!(feature = "mysql")),
        };
        match built {
            true => Ok(()),
            false => Err(format!(
                "this isocheck was built without the `{feature}` feature: \
                 rebuild it with `cargo build --release --features {feature}`"
            )),
        }
    }

    /// A short name for the test's name and `test.edn`.
    pub fn label(&self) -> String {
        match self {
            Target::Sqlite(_) => "sqlite".into(),
            Target::Sim(level) => format!("sim-{}", level_name(*level)),
            Target::Postgres(_) => "postgres".into(),
            Target::Mysql(_) => "mysql".into(),
            Target::Exec(_) => "exec".into(),
        }
    }

    /// Whether the database is a server, whose clients' connections can
    /// be ended and whose process can be restarted or paused (`--nemesis`).
    pub fn is_server(&self) -> bool {
        matches!(self, Target::Postgres(_) | Target::Mysql(_))
    }

    /// Whether `--nemesis` can act on the database: a server's, or the
    /// client programs of `exec:` (whose database may be a server too,
    /// for `--server-ctl`).
    pub fn takes_faults(&self) -> bool {
        self.is_server() || matches!(self, Target::Exec(_))
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
            // The program is told the level asked, if any (`hello`).
            (Target::Exec(_), asked) => Ok(asked),
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
    /// Transactions offered a second, in all (`None`: as fast as the
    /// database answers).
    pub rate: Option<f64>,
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
    /// Elle's closed-predicate workload on this many keys, in place of
    /// `shape`'s transactions (whose register table it uses).
    pub predicate: Option<u64>,
}

impl Options {
    /// The workload's name, as `--workload` spells it.
    pub fn workload_name(&self) -> String {
        if self.cas.is_some() {
            return "cas-register".into();
        }
        if self.predicate.is_some() {
            return "closed-predicate".into();
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
    pub ended: Ended,
    /// Whether the ops carry the database's commit order, and from what.
    pub commit_order: CommitOrder,
}

/// Why a run's clients stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// Every op of `--txns` was invoked (or the history could not be
    /// written).
    Done,
    /// The time limit passed.
    TimeLimit,
    /// Ctrl-C ([`Interrupt::stop`]).
    Interrupted,
    /// A second Ctrl-C ([`Interrupt::now`]): the ops under way were
    /// abandoned at once.
    InterruptedAgain,
}

/// How a run is asked, from another thread (the command line's Ctrl-C
/// handler), to end early.
#[derive(Debug, Default)]
pub struct Interrupt {
    /// The clients stop invoking; the ops under way get [`GRACE`].
    pub stop: AtomicBool,
    /// The ops under way are abandoned at once.
    pub now: AtomicBool,
    /// Set by [`run`] once the store holds the whole history and
    /// `test.edn`: from then on exiting loses nothing recorded.
    pub recorded: AtomicBool,
}

impl Interrupt {
    pub const fn new() -> Interrupt {
        Interrupt {
            stop: AtomicBool::new(false),
            now: AtomicBool::new(false),
            recorded: AtomicBool::new(false),
        }
    }
}

/// Why a run could not start or record.
#[derive(Debug)]
pub enum RunError {
    /// The store (or the SQLite file's directory) cannot be written.
    Store(PathBuf, io::Error),
    /// The database cannot be reached or set up.
    Database(DbError),
    /// The client threads cannot be started.
    Threads(io::Error),
    /// Ctrl-C before the clients started: nothing was recorded.
    Interrupted,
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Store(path, e) => write!(f, "cannot write {}: {e}", path.display()),
            RunError::Database(e) => write!(f, "{}", e.message),
            RunError::Threads(e) => write!(f, "cannot start the client threads: {e}"),
            RunError::Interrupted => write!(f, "interrupted while setting up the database"),
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
            RunError::Database(e) if e.name == "exec-setup" => {
                "run the program by hand and answer its hello: it must speak the exec \
                 protocol (README, `--db exec:`) and write nothing else on stdout"
            }
            RunError::Database(_) => {
                "check that the database is running and --db names it \
                 (scripts/db.sh start postgres|mariadb starts one)"
            }
            RunError::Threads(_) => "use fewer --processes",
            RunError::Interrupted => "nothing was recorded",
        }
    }
}

/// How often a run reports its counts to its progress callback (and
/// flushes the history, so the file is never far behind).
const PROGRESS_EVERY: Duration = Duration::from_millis(250);
/// How long the ops under way when the clients must stop (time limit,
/// Ctrl-C) get to complete before they are abandoned as `:info`.
pub const GRACE: Duration = Duration::from_secs(2);
/// How long the nemesis gets, once the clients stopped, to undo its fault
/// (a restarted server can take seconds to start).
const NEMESIS_GRACE: Duration = Duration::from_secs(30);
/// How often the watching thread looks at the clients.
const TICK: Duration = Duration::from_millis(20);

/// The `:error` of the ops a run abandons, by why it ended: a keyword name
/// and a message.
fn abandoned(ended: Ended) -> (&'static str, String) {
    let grace = GRACE.as_secs_f64();
    match ended {
        Ended::InterruptedAgain => ("interrupted", "still under way at the second Ctrl-C".into()),
        Ended::Interrupted => (
            "interrupted",
            format!("still under way {grace} s after Ctrl-C"),
        ),
        Ended::TimeLimit | Ended::Done => (
            "timeout",
            format!("still under way {grace} s after the run's time limit: outcome unknown"),
        ),
    }
}

/// Runs the workload against the database until `o.txns` transactions
/// were invoked, the time limit passed or `interrupt` says to stop, and
/// writes the history and `test.edn` into a fresh run directory of the
/// store. `progress` gets the counts so far a few times a second;
/// `recording` the history's path once it is created, before any op is
/// written to it (the history is flushed with each `progress`, so a reader
/// can follow it: `run --online`).
pub fn run(
    o: &Options,
    interrupt: &'static Interrupt,
    progress: &dyn Fn(Counts),
    recording: &dyn Fn(&Path),
) -> Result<Recording, RunError> {
    let dir = store::create_run_dir(&o.store, &o.name)
        .map_err(|e| RunError::Store(o.store.clone(), e))?;
    let db: Arc<dyn Database> = match open(o, &dir).and_then(|db| set_up(db, interrupt)) {
        Ok(db) => db,
        Err(e) => {
            // Nothing was recorded: leave no empty run behind.
            store::remove_run_dir(&dir);
            return Err(e);
        }
    };
    let commit_order = workload_commit_order(o, db.commit_order());
    let history = dir.join("history.edn");
    let file = std::fs::File::create(&history).map_err(|e| RunError::Store(history.clone(), e))?;
    recording(&history);
    let recorder = Arc::new(recorder::Recorder::new(file, o.shape.kind));
    let start = Instant::now();
    let crew = match Crew::start(o, start, interrupt, &db, &recorder) {
        Ok(crew) => crew,
        Err(e) => {
            store::remove_run_dir(&dir);
            return Err(e);
        }
    };
    let ended = crew.watch(interrupt, &recorder, progress);
    db.end();
    let elapsed = start.elapsed();
    let (name, message) = abandoned(ended);
    let counts = recorder
        .close((name, &message))
        .map_err(|e| RunError::Store(history.clone(), e))?;
    let test_path = dir.join("test.edn");
    let checked_with = ordered(o, &commit_order, counts);
    isocheck::files::write(&test_path, test_edn(o, (elapsed, ended), checked_with))
        .map_err(|e| RunError::Store(test_path, e))?;
    store::link_latest(&o.store, &dir).map_err(|e| RunError::Store(o.store.clone(), e))?;
    interrupt.recorded.store(true, Ordering::SeqCst);
    Ok(Recording {
        dir,
        history,
        counts,
        elapsed,
        ended,
        commit_order,
    })
}

/// The commit order the run records: the database's, for `gen`'s
/// workloads; the cas-register and closed-predicate ops carry none.
fn workload_commit_order(o: &Options, db: CommitOrder) -> CommitOrder {
    let workload = match (o.cas, o.predicate) {
        (Some(_), _) => "cas-register",
        (None, Some(_)) => "closed-predicate",
        (None, None) => return db,
    };
    match db {
        CommitOrder::Recorded(_) => CommitOrder::Unavailable(format!(
            "the {workload} workload's ops carry no commit stamp"
        )),
        unavailable => unavailable,
    }
}

/// Sets up the database's tables on a thread of its own, which is given
/// up at Ctrl-C (a server that stopped answering holds it until the
/// backend's timeouts).
fn set_up(
    db: Box<dyn Database>,
    interrupt: &'static Interrupt,
) -> Result<Arc<dyn Database>, RunError> {
    let db: Arc<dyn Database> = Arc::from(db);
    let (tx, rx) = mpsc::channel();
    let setup = Arc::clone(&db);
    std::thread::Builder::new()
        .name("isocheck-setup".into())
        .spawn(move || tx.send(setup.setup()))
        .map_err(RunError::Threads)?;
    loop {
        match rx.recv_timeout(TICK) {
            Ok(Ok(())) => return Ok(db),
            Ok(Err(e)) => return Err(RunError::Database(e)),
            Err(mpsc::RecvTimeoutError::Timeout) if interrupt.stop.load(Ordering::SeqCst) => {
                return Err(RunError::Interrupted)
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                let e = DbError::lost("setup", "the setup ended without an answer");
                return Err(RunError::Database(e));
            }
        }
    }
}

/// The threads of a run: the clients and the nemesis, started together
/// behind a [`Gate`] (all of them, or none does anything).
struct Crew {
    clients: Vec<JoinHandle<()>>,
    nemesis: Option<JoinHandle<()>>,
    /// Tells the nemesis to undo its fault and stop.
    nemesis_done: Arc<AtomicBool>,
    deadline: Option<Instant>,
}

impl Crew {
    fn start<W: io::Write + Send + 'static>(
        o: &Options,
        start: Instant,
        interrupt: &'static Interrupt,
        db: &Arc<dyn Database>,
        recorder: &Arc<recorder::Recorder<W>>,
    ) -> Result<Crew, RunError> {
        // A limit past the clock's range is no limit.
        let deadline = o.time_limit.and_then(|t| start.checked_add(t));
        let mut budget = client::Budget::new(o.txns, deadline, interrupt);
        if let Some(rate) = o.rate {
            budget = budget.paced(start, rate);
        }
        let gate = Arc::new(Gate::default());
        let clients = match (o.cas, o.predicate) {
            (Some(keys), _) => {
                let job = cas::Registers::new(budget, keys, o.seed, Arc::clone(recorder));
                spawn_clients(o.processes, db, Arc::new(job), &gate)
            }
            (None, Some(keys)) => {
                let job = predicate::Txns::new(budget, keys, o.seed, Arc::clone(recorder), &**db)
                    .map_err(RunError::Database)?;
                spawn_clients(o.processes, db, Arc::new(job), &gate)
            }
            (None, None) => {
                let workload = Workload::new(o.shape.clone());
                let recorder = Arc::clone(recorder);
                let rng = Rng::new(o.seed);
                let job = client::Txns::new(budget, workload, rng, recorder, db.forgets());
                spawn_clients(o.processes, db, Arc::new(job), &gate)
            }
        };
        let nemesis_done = Arc::new(AtomicBool::new(false));
        let nemesis = clients.and_then(|clients| {
            let nemesis = o.nemesis.clone().map(|plan| {
                let (db, recorder) = (Arc::clone(db), Arc::clone(recorder));
                let done = Arc::clone(&nemesis_done);
                std::thread::Builder::new()
                    .name("isocheck-nemesis".into())
                    .spawn(move || nemesis::run(&plan, &*db, &recorder, &done))
            });
            Ok((clients, nemesis.transpose()?))
        });
        gate.open(nemesis.is_ok());
        let (clients, nemesis) = nemesis.map_err(RunError::Threads)?;
        Ok(Crew {
            clients,
            nemesis,
            nemesis_done,
            deadline,
        })
    }

    /// Watches the clients until they are done, or until [`GRACE`] after
    /// the time limit or Ctrl-C, reporting progress and flushing the
    /// history; then lets the nemesis undo its fault (for at most
    /// [`NEMESIS_GRACE`]). Threads still running are abandoned.
    fn watch<W: io::Write>(
        self,
        interrupt: &Interrupt,
        recorder: &recorder::Recorder<W>,
        progress: &dyn Fn(Counts),
    ) -> Ended {
        let ended = self.watch_clients(interrupt, recorder, progress);
        self.nemesis_done.store(true, Ordering::SeqCst);
        if let Some(nemesis) = &self.nemesis {
            let give_up = Instant::now() + NEMESIS_GRACE;
            while !nemesis.is_finished()
                && Instant::now() < give_up
                && !interrupt.now.load(Ordering::SeqCst)
            {
                std::thread::sleep(TICK);
            }
        }
        match interrupt.now.load(Ordering::SeqCst) {
            true => Ended::InterruptedAgain,
            false => ended,
        }
    }

    fn watch_clients<W: io::Write>(
        &self,
        interrupt: &Interrupt,
        recorder: &recorder::Recorder<W>,
        progress: &dyn Fn(Counts),
    ) -> Ended {
        let mut reported = Instant::now();
        // Why the clients must stop, and when their ops are abandoned.
        let mut ending: Option<(Ended, Instant)> = None;
        loop {
            let now = Instant::now();
            if self.clients.iter().all(JoinHandle::is_finished) {
                // They may have stopped for a reason not seen yet.
                let why = ending.map(|(why, _)| why);
                return why
                    .or(self.must_stop(interrupt, now))
                    .unwrap_or(Ended::Done);
            }
            if interrupt.now.load(Ordering::SeqCst) {
                return Ended::InterruptedAgain;
            }
            if ending.is_none() {
                ending = self.must_stop(interrupt, now).map(|why| (why, now + GRACE));
                if ending.is_some() {
                    // A paused or killed server is brought back now, so the
                    // ops under way can complete.
                    self.nemesis_done.store(true, Ordering::SeqCst);
                }
            }
            if let Some((why, give_up)) = ending {
                if now >= give_up {
                    return why;
                }
            }
            if now.duration_since(reported) >= PROGRESS_EVERY {
                progress(recorder.counts());
                recorder.flush();
                reported = now;
            }
            std::thread::sleep(TICK);
        }
    }

    /// Why the clients must stop now, if they must.
    fn must_stop(&self, interrupt: &Interrupt, now: Instant) -> Option<Ended> {
        if interrupt.stop.load(Ordering::SeqCst) {
            return Some(Ended::Interrupted);
        }
        self.deadline
            .filter(|d| now >= *d)
            .map(|_| Ended::TimeLimit)
    }
}

/// Holds the clients back until every thread of the run has started: then
/// they go (`open(true)`), or return at once (`open(false)`).
#[derive(Default)]
struct Gate {
    go: Mutex<Option<bool>>,
    opened: Condvar,
}

impl Gate {
    fn open(&self, go: bool) {
        *self.go.lock().unwrap_or_else(|e| e.into_inner()) = Some(go);
        self.opened.notify_all();
    }

    fn wait(&self) -> bool {
        let mut go = self.go.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            match *go {
                Some(go) => return go,
                None => go = self.opened.wait(go).unwrap_or_else(|e| e.into_inner()),
            }
        }
    }
}

/// Starts `processes` clients doing `job` on `db` once `gate` opens; an
/// error if a thread cannot be started.
fn spawn_clients<J: client::Job + 'static>(
    processes: u64,
    db: &Arc<dyn Database>,
    job: Arc<J>,
    gate: &Arc<Gate>,
) -> io::Result<Vec<JoinHandle<()>>> {
    (0..processes)
        .map(|index| {
            let (db, job, gate) = (Arc::clone(db), Arc::clone(&job), Arc::clone(gate));
            std::thread::Builder::new()
                .name(format!("isocheck-client-{index}"))
                .spawn(move || {
                    if gate.wait() {
                        client::run(index, processes, &*db, &*job);
                    }
                })
        })
        .collect()
}

/// The database the options name, its files (SQLite's) in `dir`.
fn open(o: &Options, dir: &Path) -> Result<Box<dyn Database>, RunError> {
    let no_client = |e| RunError::Database(DbError::rejected("not-built", e));
    // The default target (no `--db`) is not parsed: asked here.
    o.target.client_built().map_err(no_client)?;
    let list = o.shape.kind.is_list();
    Ok(match &o.target {
        Target::Sim(level) => Box::new(sim::Sim::new(*level, o.processes as usize, list)),
        #[cfg(feature = "sqlite")]
        Target::Sqlite(path) => {
            let path = path.clone().unwrap_or_else(|| dir.join("db.sqlite"));
            Box::new(sqlite::Sqlite::new(path, list))
        }
        #[cfg(feature = "postgres")]
        Target::Postgres(url) => {
            let isolation = o.isolation.unwrap_or(Isolation::Serializable);
            let db = postgres::Postgres::new(url, isolation, list).map_err(RunError::Database)?;
            Box::new(db)
        }
        #[cfg(feature = "mysql")]
        Target::Mysql(url) => {
            let isolation = o.isolation.unwrap_or(Isolation::Serializable);
            Box::new(mysql::Mysql::new(url, isolation, list).map_err(RunError::Database)?)
        }
        Target::Exec(command) => {
            let workload = o.workload_name();
            let isolation = o.isolation.map(Isolation::name);
            let db = exec::Exec::new(command.clone(), (&workload, list), isolation, dir)
                .map_err(|e| RunError::Store(dir.join(exec::LOG), e))?;
            Box::new(db)
        }
        // A database without its client in this build: refused above.
        #[allow(unreachable_patterns)]
        _ => return Err(no_client(String::from("no client for this database"))),
    })
}

/// What the run's history is checked with, as `test.edn` records it
/// (`:commit-order`, and Elle's `:transaction-order :timestamps` for
/// `recheck`): the commit order, where recorded on some op of an
/// rw-register history (a list-append history's reads show its version
/// order).
pub fn ordered(o: &Options, order: &CommitOrder, counts: Counts) -> Option<&'static str> {
    match order {
        CommitOrder::Recorded(what)
            if counts.stamped > 0 && o.cas.is_none() && !o.shape.kind.is_list() =>
        {
            Some(what)
        }
        _ => None,
    }
}

fn test_edn(o: &Options, (elapsed, ended): (Duration, Ended), order: Option<&str>) -> String {
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
        ("commit-order", order.map_or(Field::Nil, Field::Str)),
        (
            "transaction-order",
            order.map_or(Field::Nil, |_| Field::Keyword("timestamps")),
        ),
        ("elapsed", Field::Float(elapsed.as_secs_f64())),
        (
            "interrupted?",
            Field::Bool(matches!(
                ended,
                Ended::Interrupted | Ended::InterruptedAgain
            )),
        ),
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
        let Ok(Target::Exec(c)) = Target::parse("exec:python3 'a b.py' -v") else {
            panic!("exec: is a target");
        };
        assert_eq!(
            (c.program.as_str(), c.args.as_slice()),
            ("python3", &["a b.py".to_string(), "-v".into()][..])
        );
        assert!(Target::parse("exec:")
            .unwrap_err()
            .contains("needs a program"));
    }

    #[test]
    fn exec_passes_the_level_on_and_takes_faults() {
        let t = Target::parse("exec:client").unwrap();
        assert_eq!(t.isolation(None), Ok(None));
        let rc = Some(Isolation::ReadCommitted);
        assert_eq!(t.isolation(rc), Ok(rc));
        assert_eq!(t.promised_model(None), "serializable");
        assert_eq!(t.promised_model(rc), "read-committed");
        assert!(t.takes_faults() && !t.is_server());
        assert!(!Target::Sqlite(None).takes_faults());
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
