//! `isocheck run`: drive a database, write the Jepsen store, check the
//! history and write the report beside it (`write_report`). Ctrl-C stops
//! the clients after their current transactions (or 2 s, then those still
//! under way are recorded `:info`); what was recorded is still written and
//! checked. A second Ctrl-C abandons the transactions under way at once,
//! writes the store and exits unchecked; a Ctrl-C once the store is
//! written (while checking) exits at once. Where the database exposes its
//! commit order (`run::CommitOrder`), an rw-register history is checked
//! with it, as `check --transaction-order timestamps` would.

use super::check::{option_help, parse_seconds, ModelArgs};
use super::progress::{CheckFeed, Progress, Status};
use super::stream::Online;
use super::{output, parse_fraction, parse_ops, EXIT_INPUT};
use isocheck::history::commit_order::{self, OrderSource};
use isocheck::history::History;
use isocheck::models::Model;
use isocheck::report::{self, diagnostic};
use isocheck::{Outcome, Validity};
use isocheck_gen::{self as gen, Distribution, Kind};
use isocheck_run::{
    self as run, perf, store, CommitOrder, Ended, Interrupt, Isolation, Recording, Target,
};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Exit status after a second Ctrl-C, as a shell reports SIGINT.
const EXIT_INTERRUPTED: u8 = 130;

#[derive(clap::Args, Debug)]
#[command(mut_arg("consistency_models", |a| a.help(MODELS_HELP).long_help(MODELS_HELP)))]
pub struct RunArgs {
    /// The database: `sqlite:PATH` (embedded; the default is a file in the
    /// run's directory), `postgres://USER@HOST:PORT/DB`,
    /// `mysql://USER@HOST:PORT/DB` (MariaDB too), `exec:PROGRAM [ARGS...]`
    /// (any database, through a client program speaking the exec protocol
    /// on its stdin and stdout, one per client: see the README), or
    /// `sim:LEVEL` (a simulated database, as `gen`'s).
    #[arg(long)]
    pub db: Option<String>,
    /// The isolation level the clients ask for (default: the database's
    /// strongest).
    #[arg(long, value_enum)]
    pub isolation: Option<Isolation>,
    /// What the clients do.
    #[arg(long, value_enum, default_value = "list-append")]
    pub workload: RunWorkload,
    /// Transactions to invoke (default 1000, or unlimited with --time-limit).
    #[arg(long)]
    pub txns: Option<u64>,
    /// Stop invoking after this many seconds (fractions allowed; one past
    /// the clock's range is no limit). The run ends at most 2 s later
    /// whatever the database does: transactions still under way then are
    /// recorded `:info`.
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub time_limit: Option<Duration>,
    /// Offer at most this many transactions a second, in all clients (an
    /// open loop: each is invoked when due, whatever the ones before took;
    /// default: as fast as the database answers).
    #[arg(long, value_name = "TXNS_PER_SECOND", value_parser = parse_rate)]
    pub rate: Option<f64>,
    /// Client threads, each with its own connection (Jepsen processes).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub processes: u64,
    /// Micro-ops per transaction: `N` or `MIN-MAX` (mini-transactions: at
    /// most 4).
    #[arg(long, default_value = "1-4", value_parser = parse_ops)]
    pub ops: (u64, u64),
    /// Keys in use at a time; a key retires after --max-writes-per-key
    /// writes and a fresh one takes its place.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=gen::MAX_KEYS))]
    pub keys: u64,
    /// Writes to a key before it retires (values stay unique per key, and
    /// lists short).
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_writes_per_key: u64,
    /// Fraction of micro-ops that are reads.
    #[arg(long, default_value_t = 0.5, value_parser = parse_fraction)]
    pub read_ratio: f64,
    /// How keys are chosen.
    #[arg(long, value_enum, default_value = "exponential")]
    pub distribution: Distribution,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// The Jepsen store the run is written into.
    #[arg(long, default_value = "store")]
    pub store: PathBuf,
    /// The test's name, its directory in the store (default:
    /// `<db>-<workload>-<isolation>`): one directory, so not `.`, `..` or
    /// `latest`, and without `/`.
    #[arg(long)]
    pub name: Option<String>,
    /// Inject faults while the clients run, in turn: `kill` (the clients'
    /// connections; with `exec:`, the client programs, SIGKILL), `restart`
    /// and `pause` (the server, through --server-ctl); e.g. `--nemesis
    /// kill,restart,pause`.
    #[arg(long, value_enum, value_delimiter = ',')]
    pub nemesis: Vec<run::nemesis::Fault>,
    /// Seconds between faults (a restarted or paused server is brought back
    /// after half of it, and when the clients stop).
    #[arg(long, value_name = "SECONDS", default_value = "2", value_parser = parse_seconds)]
    pub nemesis_interval: Duration,
    /// The shell command that controls the server for `--nemesis restart`
    /// and `pause`, `{}` standing for `kill`, `start`, `pause` or `resume`:
    /// e.g. `'scripts/db.sh {} postgres'`.
    #[arg(long, value_name = "COMMAND")]
    pub server_ctl: Option<String>,
    /// Write no report into the run's directory (by default: `index.html`,
    /// the HTML report; `explanations/`, what `check --directory` writes
    /// beside it; `latency-raw.svg` and `rate.svg`, latency and throughput
    /// over time with the faults shaded).
    #[arg(long)]
    pub no_report: bool,
    /// List-append: check the history as it is recorded, with the
    /// streaming check (`check --stream`'s), printing each anomaly as soon
    /// as it shows, against the first of the models checked that the stream
    /// decides (strict-serializable, strong-session-serializable or
    /// serializable); the whole history is checked at the end as usual.
    #[arg(long)]
    pub online: bool,
    /// What the history is checked for (default: the model the isolation
    /// level promises).
    #[command(flatten)]
    pub model: ModelArgs,
}

/// The workloads of a run: `gen`'s transactions, or single ops on
/// registers.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunWorkload {
    /// `[:append k v]` and `[:r k [..]]`.
    ListAppend,
    /// `[:w k v]` and `[:r k v]`.
    RwRegister,
    /// rw-register transactions of at most four micro-ops.
    MiniTransactions,
    /// Jepsen's cas-register (lwt): a read, a write or a compare-and-set
    /// (`UPDATE ... WHERE v = expected`) per transaction, on --keys
    /// registers; checked for linearizability.
    CasRegister,
    /// Elle's closed-predicate: an :init creating the keys, then reads,
    /// predicate reads (SELECT ... WHERE) and each key's one insert,
    /// overwrite or delete, until every one of --keys is mutated (SQLite
    /// and PostgreSQL only).
    ClosedPredicate,
}

impl RunWorkload {
    /// The kind of `gen`'s transactions (cas-register: the register table).
    fn kind(self) -> Kind {
        match self {
            RunWorkload::ListAppend => Kind::ListAppend,
            RunWorkload::RwRegister | RunWorkload::CasRegister | RunWorkload::ClosedPredicate => {
                Kind::RwRegister
            }
            RunWorkload::MiniTransactions => Kind::MiniTransactions,
        }
    }
}

/// `run -m`'s help: unlike `check`'s, the default is what the isolation
/// level promises.
const MODELS_HELP: &str = "Consistency models the history must satisfy, comma-separated, with \
     Elle's names (`none` for no model). Default: the model the isolation level promises \
     (SERIALIZABLE: serializable; PostgreSQL's REPEATABLE READ: snapshot-isolation; MariaDB's \
     and MySQL's REPEATABLE READ and every READ COMMITTED: read-committed; sim:LEVEL: the \
     level's; --workload cas-register: linearizable). `isocheck check --help` lists the \
     names";

/// Set by Ctrl-C.
static INTERRUPT: Interrupt = Interrupt::new();

/// Ctrl-C: the first stops the clients, the second abandons the
/// transactions under way, the third (or one once the store is written)
/// exits at once.
fn interrupted() {
    let i = &INTERRUPT;
    if i.recorded.load(Ordering::SeqCst)
        || (i.stop.swap(true, Ordering::SeqCst) && i.now.swap(true, Ordering::SeqCst))
    {
        std::process::exit(i32::from(EXIT_INTERRUPTED));
    }
}

pub fn run(a: &RunArgs) -> ExitCode {
    let options = match a.options() {
        Ok(o) => o,
        Err(msg) => {
            output::say(format_args!("error: {msg}"));
            return ExitCode::from(EXIT_INPUT);
        }
    };
    if let Target::Exec(command) = &options.target {
        if let Err(code) = runnable(a, command) {
            return code;
        }
    }
    let online_model = match online_model(a, &options) {
        Ok(m) => m,
        Err(msg) => {
            output::say(format_args!("error: {msg}"));
            return ExitCode::from(EXIT_INPUT);
        }
    };
    let _ = ctrlc::set_handler(interrupted);
    output::say(format_args!("{}", first_line(&options)));
    let counts = Arc::new(Mutex::new(run::Counts::default()));
    let progress = {
        let (counts, started) = (Arc::clone(&counts), Instant::now());
        let (txns, limit) = (options.txns, options.time_limit);
        let counts = move || *counts.lock().unwrap_or_else(|e| e.into_inner());
        Progress::start(move || running(counts(), txns, limit, started.elapsed()))
    };
    let show = |c: run::Counts| *counts.lock().unwrap_or_else(|e| e.into_inner()) = c;
    let online = std::cell::RefCell::new(None);
    let recording = |history: &Path| {
        if let Some(model) = online_model {
            *online.borrow_mut() = Some(Online::start(history.to_path_buf(), model));
        }
    };
    let recorded = run::run(&options, &INTERRUPT, &show, &recording);
    progress.finish();
    let online = online.into_inner();
    match recorded {
        Ok(rec) if rec.ended == Ended::InterruptedAgain => {
            summarise(&rec);
            output::say(format_args!(
                "not checked (Ctrl-C twice): isocheck check {}",
                rec.history.display()
            ));
            ExitCode::from(EXIT_INTERRUPTED)
        }
        Ok(rec) => {
            summarise(&rec);
            if let Some(online) = online {
                let end = online.finish();
                if let Err(code) = output::to_stderr(&end.text) {
                    return code;
                }
                if let Some((valid, edn, retired)) = end.retired {
                    return online_stands(&rec, valid, &edn, retired);
                }
            }
            check_recording(a, &options, &rec)
        }
        Err(e) => {
            output::say(format_args!("error: {e}\n  help: {}", e.help()));
            let interrupted = matches!(e, run::RunError::Interrupted);
            ExitCode::from(if interrupted {
                EXIT_INTERRUPTED
            } else {
                EXIT_INPUT
            })
        }
    }
}

/// The online stream's verdict is the run's when its window retired
/// transactions: a run long enough for that would need, checked whole,
/// the memory the stream did without. It goes into `results.edn`; the
/// history stays in the store for `isocheck check` to take whole.
fn online_stands(rec: &Recording, valid: Validity, edn: &str, retired: u64) -> ExitCode {
    if let Err(code) = write_results(rec, valid, edn) {
        return code;
    }
    output::say(format_args!(
        "the online verdict is the run's: its window retired {retired} transactions \
         (isocheck check {} checks the history whole)",
        rec.history.display()
    ));
    super::check::exit_status(valid)
}

/// The run's `results.edn`: the verdict, the counts, and the result map.
fn write_results(rec: &Recording, valid: Validity, edn: &str) -> Result<(), ExitCode> {
    let c = rec.counts;
    let stats = [
        ("count", c.invoked),
        ("ok-count", c.ok),
        ("fail-count", c.failed),
        ("info-count", c.info),
    ];
    let keyword = match valid {
        Validity::True => "true",
        Validity::False => "false",
        Validity::Unknown => ":unknown",
    };
    let results = store::results_edn(keyword, edn, &stats);
    let path = rec.dir.join("results.edn");
    output::to_file(&path, |w| w.write_all(results.as_bytes()))
}

/// The model `--online` streams for, if asked; why it cannot, if so.
fn online_model(a: &RunArgs, o: &run::Options) -> Result<Option<Model>, String> {
    if !a.online {
        return Ok(None);
    }
    let transactions = [
        RunWorkload::ListAppend,
        RunWorkload::RwRegister,
        RunWorkload::MiniTransactions,
    ];
    if !transactions.contains(&a.workload) {
        return Err("--online checks list-append and rw-register runs only".to_string());
    }
    match super::stream::online_model(&o.models) {
        Some(m) => Ok(Some(m)),
        None => Err(format!(
            "--online streams strict-serializable, strong-session-serializable or \
             serializable, and the run is checked for {}\n  help: add one of them with -m",
            o.models.join(", ")
        )),
    }
}

/// What the run is about to do: the workload, the database at its isolation
/// level (a simulated database's is in its name), the models the history
/// will be checked for, the clients.
fn first_line(o: &run::Options) -> String {
    let level = o
        .isolation
        .map_or(String::new(), |i| format!(" at {}", i.sql()));
    format!(
        "running {} against {}{level}, checked for {}, {} clients; Ctrl-C stops",
        o.workload_name(),
        o.target.label(),
        o.models.join(", "),
        o.processes
    )
}

/// A run's progress: transactions invoked (of `--txns`, when it bounds the
/// run), how they ended, the faults, and the time against `--time-limit`,
/// so that a run past its limit (a fault's restart that hangs) says so.
fn running(c: run::Counts, txns: u64, limit: Option<Duration>, elapsed: Duration) -> Status {
    let total = (txns != u64::MAX).then_some(txns);
    let mut note = format!(
        "{} ok, {} failed, {} unknown, {} nemesis ops",
        c.ok, c.failed, c.info, c.nemesis
    );
    if let Some(limit) = limit {
        let (secs, limit) = (elapsed.as_secs_f64(), limit.as_secs_f64());
        note.push_str(&format!(", {secs:.1} of {limit} s"));
        // Clients finish the transaction under way: a second is no hang.
        if secs > limit + 1.0 {
            note.push_str(": past the time limit, waiting for the clients and the nemesis");
        }
    }
    Status::new("running")
        .counting(c.invoked, total, "transactions")
        .noting(note)
}

impl RunArgs {
    /// The run's options, or one line saying what is wrong with the flags.
    fn options(&self) -> Result<run::Options, String> {
        let target = match &self.db {
            Some(url) => Target::parse(url)?,
            None => Target::Sqlite(None),
        };
        let isolation = target.isolation(self.isolation)?;
        if self.workload == RunWorkload::ClosedPredicate && matches!(target, Target::Exec(_)) {
            return Err(
                "--workload closed-predicate runs on SQLite, PostgreSQL, MariaDB and \
                        the simulated databases (the exec protocol has no predicate reads): \
                        use --db sqlite:PATH, postgres://..., mysql://... or sim:LEVEL"
                    .into(),
            );
        }
        self.model.validate()?;
        timestamps_checkable(&target, self.model.check_timestamps)?;
        let check_options = self.model.options();
        isocheck::anomaly_types(&check_options)
            .map_err(|e| format!("{e} ({})", option_help(&e)))?;
        let cas = self.workload == RunWorkload::CasRegister;
        let promised = match cas {
            true => "linearizable",
            false => target.promised_model(isolation),
        };
        let models = check_options
            .consistency_models
            .unwrap_or_else(|| vec![promised.to_string()]);
        let time_limit = self.time_limit;
        let nemesis = self.nemesis_plan(&target)?;
        let txns = self
            .txns
            .unwrap_or(if time_limit.is_some() { u64::MAX } else { 1000 });
        let shape = gen::Shape {
            kind: self.workload.kind(),
            min_ops: self.ops.0,
            max_ops: self.ops.1,
            read_ratio: self.read_ratio,
            blind_writes: 0.0,
            duplicate_values: 0.0,
            distribution: self.distribution,
            keys: self.keys,
            max_writes_per_key: self.max_writes_per_key,
        };
        gen::Params {
            processes: self.processes,
            shape: shape.clone(),
            ..Default::default()
        }
        .validate()?;
        let mut options = run::Options {
            name: String::new(),
            target,
            isolation,
            shape,
            processes: self.processes,
            txns,
            time_limit,
            rate: self.rate,
            seed: self.seed,
            store: self.store.clone(),
            models,
            nemesis,
            cas: cas.then_some(self.keys),
            predicate: (self.workload == RunWorkload::ClosedPredicate).then_some(self.keys),
        };
        options.name = self.name.clone().unwrap_or_else(|| {
            let level = isolation.map_or("", |i| i.name());
            let name = format!(
                "{}-{}-{level}",
                options.target.label(),
                options.workload_name()
            );
            name.trim_end_matches('-').to_string()
        });
        store::check_name(&options.name)?;
        Ok(options)
    }
}

/// Refuses `--check-timestamps` on PostgreSQL: its commit timestamps are
/// no snapshot (reads have no start timestamp to be judged by), and at
/// SERIALIZABLE its serial order is not the commit order (SSI lets a
/// transaction that read an old version commit after the one that
/// overwrote it), so a serial read would be judged stale wrongly. Its
/// commit order still orders each key's versions, which the run uses.
fn timestamps_checkable(target: &Target, asked: bool) -> Result<(), String> {
    match (target, asked) {
        (Target::Postgres(_), true) => Err("PostgreSQL's commit timestamps are no snapshot, and \
             SERIALIZABLE does not serialize in their order: drop --check-timestamps (the run \
             orders each key's versions by them)"
            .into()),
        _ => Ok(()),
    }
}

/// Refuses, before the run starts, an `exec:` program that cannot be
/// run: a diagnostic pointing at its name in `--db`.
fn runnable(a: &RunArgs, command: &run::exec::Command) -> Result<(), ExitCode> {
    let Err(not) = command.locate() else {
        return Ok(());
    };
    let db = a.db.clone().unwrap_or_default();
    let prefix = db.len().saturating_sub(command.text.len());
    let (at, len) = command.program_span();
    let label = miette::LabeledSpan::at(prefix + at..prefix + at + len, not.why.clone());
    let diagnostic =
        miette::MietteDiagnostic::new(format!("cannot run `{}`: {}", command.program, not.why))
            .with_code("isocheck::run::exec")
            .with_label(label)
            .with_help(not.help);
    let report =
        miette::Report::new(diagnostic).with_source_code(miette::NamedSource::new("--db", db));
    let text = diagnostic::render(report.as_ref(), super::stderr_color());
    Err(output::status(
        output::to_stderr(&text),
        ExitCode::from(EXIT_INPUT),
    ))
}

impl RunArgs {
    /// The faults to inject, or one line saying what they lack.
    fn nemesis_plan(&self, target: &Target) -> Result<Option<run::nemesis::Plan>, String> {
        if self.nemesis.is_empty() {
            return Ok(None);
        }
        if !target.takes_faults() {
            return Err(format!(
                "{} is no server, with no connections to kill nor a process to restart or \
                 pause: drop --nemesis",
                target.label()
            ));
        }
        let server_ctl = self
            .server_ctl
            .as_deref()
            .map(run::nemesis::ServerCtl::parse)
            .transpose()?;
        let needs_ctl = self.nemesis.iter().find(|f| f.needs_server_ctl());
        if let (Some(fault), None) = (needs_ctl, &server_ctl) {
            return Err(format!(
                "--nemesis {} acts on the server process: give the command that controls it, \
                 e.g. --server-ctl 'scripts/db.sh {{}} postgres'",
                fault.name()
            ));
        }
        let interval = self.nemesis_interval;
        if interval.is_zero() {
            return Err("--nemesis-interval must be more than 0 seconds".into());
        }
        Ok(Some(run::nemesis::Plan {
            faults: self.nemesis.clone(),
            interval,
            server_ctl,
        }))
    }
}

fn summarise(rec: &Recording) {
    let c = rec.counts;
    let secs = rec.elapsed.as_secs_f64();
    let rate = if secs > 0.0 {
        (c.ok + c.failed + c.info) as f64 / secs
    } else {
        0.0
    };
    let stopped = match rec.ended {
        Ended::Done => "",
        Ended::TimeLimit => " (time limit)",
        Ended::Interrupted | Ended::InterruptedAgain => " (stopped by Ctrl-C)",
    };
    let abandoned = match c.abandoned {
        0 => String::new(),
        n => format!(" ({n} still under way when the run ended)"),
    };
    output::say(format_args!(
        "recorded {} transactions{stopped} in {secs:.1} s ({rate:.0}/s): {} ok, {} failed, {} \
         unknown{abandoned}; {} nemesis ops\n  commit order: {}\n  store: {}",
        c.invoked,
        c.ok,
        c.failed,
        c.info,
        c.nemesis,
        commit_order_line(rec),
        rec.dir.display()
    ));
}

/// Where the commit order came from and how many ops carry it, or why
/// there is none.
fn commit_order_line(rec: &Recording) -> String {
    match &rec.commit_order {
        CommitOrder::Recorded(what) => format!(
            "{what}, on {} of {} ok transactions (those that wrote)",
            rec.counts.stamped, rec.counts.ok
        ),
        CommitOrder::Unavailable(why) => format!("not recorded: {why}"),
    }
}

/// Gives `history` the commit order its ops carry, for the rw-register
/// inference (`--transaction-order timestamps`), where `run::ordered` says
/// the run is checked with it.
fn with_commit_order(
    history: &mut History,
    o: &run::Options,
    rec: &Recording,
) -> Result<(), ExitCode> {
    if run::ordered(o, &rec.commit_order, rec.counts).is_none() {
        return Ok(());
    }
    commit_order::attach(history, &OrderSource::Timestamps).map_err(|d| {
        let text = diagnostic::render(&d, super::stderr_color());
        output::status(output::to_stderr(&text), ExitCode::from(EXIT_INPUT))
    })?;
    output::say(format_args!(
        "  checked with the commit order (as --transaction-order timestamps)"
    ));
    Ok(())
}

/// Checks the recorded history, prints the report, writes `results.edn`.
fn check_recording(a: &RunArgs, o: &run::Options, rec: &Recording) -> ExitCode {
    let mut opts = a.model.options();
    opts.consistency_models = Some(o.models.clone());
    let mut history = match isocheck::load(&rec.history, &Default::default()) {
        Ok(h) => h,
        Err(d) => {
            let text = diagnostic::render(&d, super::stderr_color());
            return output::status(output::to_stderr(&text), ExitCode::from(EXIT_INPUT));
        }
    };
    if let Err(code) = with_commit_order(&mut history, o, rec) {
        return code;
    }
    // No limit is armed: the run stops only for Ctrl-C.
    let feed = CheckFeed::begin(false);
    let progress = Progress::start(move || feed.status());
    let checked = isocheck::limits::run(None, || isocheck::check(&history, &opts));
    progress.finish();
    let outcome = match checked {
        Ok(Ok(x)) => x,
        Ok(Err(e)) => {
            output::say(format_args!("error: {e}"));
            return ExitCode::from(EXIT_INPUT);
        }
        Err(stop) => {
            let text = isocheck::report::stop::render(&stop, isocheck::report::stop::Format::Human);
            return output::status(
                output::to_stderr(&text),
                ExitCode::from(super::check::EXIT_UNKNOWN),
            );
        }
    };
    if let Err(code) = write_results(rec, outcome.validity(), &outcome.edn(&history)) {
        return code;
    }
    let text = outcome.human(&history, super::stderr_color());
    if let Err(code) = output::to_stderr(&text) {
        return code;
    }
    if !a.no_report {
        if let Err(code) = write_report(&rec.dir, &outcome, &history) {
            return code;
        }
    }
    super::check::exit_status(outcome.validity())
}

/// The run's report, beside its history: the HTML page, the explanations
/// and the plots, then a line saying where. A file that cannot be written
/// is one line of error and exit status 3, as with `check --directory`.
fn write_report(dir: &Path, outcome: &Outcome, history: &History) -> Result<(), ExitCode> {
    let page = outcome.html(history, dir);
    let index = dir.join(report::directory::INDEX);
    output::to_file(&index, |w| w.write_all(page.as_bytes()))?;
    let explanations = dir.join(EXPLANATIONS);
    match outcome.write_explanations(&explanations, history) {
        // A closed or full stderr loses a warning, nothing more.
        Ok(warnings) => warnings
            .iter()
            .for_each(|w| output::say(format_args!("warning: {w}"))),
        Err(e) => return Err(output::file_failed(&e, &explanations)),
    }
    for (name, plot) in [
        (
            "latency-raw.svg",
            perf::latency_raw_svg as fn(&History) -> std::io::Result<String>,
        ),
        ("rate.svg", perf::rate_svg),
    ] {
        let path = dir.join(name);
        let svg = plot(history).map_err(|e| output::file_failed(&e, &path))?;
        output::to_file(&path, |w| w.write_all(svg.as_bytes()))?;
    }
    let more = match explanations.is_dir() {
        true => format!("{EXPLANATIONS}/, "),
        false => String::new(),
    };
    output::say(format_args!(
        "  report: {} ({more}latency-raw.svg, rate.svg beside it)",
        index.display()
    ));
    Ok(())
}

/// The run directory's folder of explanations (`check --directory`'s
/// files but the page).
const EXPLANATIONS: &str = "explanations";

/// `--rate`: a positive, finite number of transactions a second.
fn parse_rate(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(r) if r.is_finite() && r > 0.0 => Ok(r),
        _ => Err(format!(
            "`{s}` is not a positive rate (e.g. `--rate 50000`)"
        )),
    }
}
