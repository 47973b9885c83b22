//! The command line: argument parsing and the subcommands.

mod bench;
mod check;
pub mod exhausted;
mod output;
mod progress;
mod recheck;
mod run;
mod stream;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::parser::ValueSource;
use clap::{ArgMatches, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use isocheck::history::{self, Format, LoadOptions, Workload};
use isocheck::report::diagnostic;
use isocheck::stats::{self, Stats};
use isocheck_gen as gen;
use progress::{Progress, Status};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Exit status when the input could not be read or checked.
pub const EXIT_INPUT: u8 = 3;

#[derive(Parser, Debug)]
#[command(
    name = "isocheck",
    version,
    about = "Checks database isolation in Jepsen histories"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Check a history against Elle's consistency models.
    Check(check::CheckArgs),
    /// Summarise histories: sessions, transactions, micro-ops, keys, parse speed.
    Stats(StatsArgs),
    /// Generate a history from a simulated database.
    Gen(GenArgs),
    /// Check every run of a Jepsen store again, beside the verdict it recorded.
    Recheck(recheck::RecheckArgs),
    /// Measure parse throughput, check time and peak memory.
    Bench(bench::BenchArgs),
    /// Test a database: run a workload from concurrent clients, write a
    /// Jepsen store and check the history.
    Run(run::RunArgs),
    /// One history of a `recheck`, in a process of its own (internal).
    #[command(hide = true)]
    RecheckHistory(recheck::HistoryArgs),
}

/// Options shared by the commands that read histories.
#[derive(clap::Args, Debug, Clone)]
pub struct InputArgs {
    /// Input format (detected from the path and content by default).
    #[arg(long, value_enum)]
    pub input_format: Option<FormatArg>,
    /// Workload (detected from the micro-ops, or for Jepsen's checkers from
    /// the ops' :f, by default).
    #[arg(long, value_parser = workload_parser())]
    pub workload: Option<Workload>,
}

impl InputArgs {
    pub fn load_options(&self) -> LoadOptions {
        LoadOptions {
            format: self.input_format.map(Into::into),
            workload: self.workload,
        }
    }
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum FormatArg {
    Edn,
    /// Jepsen ops as JSON (elle-cli's form).
    Json,
    /// Chronos's JSON array of transactions, with their timestamps.
    Chronos,
    Polysi,
    Dbcop,
    Cobra,
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Format {
        match f {
            FormatArg::Edn => Format::Edn,
            FormatArg::Json => Format::Json,
            FormatArg::Chronos => Format::Chronos,
            FormatArg::Polysi => Format::Polysi,
            FormatArg::Dbcop => Format::Dbcop,
            FormatArg::Cobra => Format::Cobra,
        }
    }
}

/// `--workload`'s values: the library's workloads ([`Workload::ALL`]),
/// each with its help, so that a new workload needs no line here.
fn workload_parser() -> impl TypedValueParser<Value = Workload> {
    let values = Workload::ALL.map(|w| match w.help() {
        Some(help) => PossibleValue::new(w.name()).help(help),
        None => PossibleValue::new(w.name()),
    });
    PossibleValuesParser::new(values)
        .try_map(|name| Workload::from_name(&name).ok_or("not a workload"))
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputFormat {
    Human,
    Json,
}

#[derive(clap::Args, Debug)]
pub struct StatsArgs {
    /// History files (or Cobra log directories); `-` reads standard input.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub input: InputArgs,
    #[arg(long, value_enum, default_value = "human")]
    pub format: OutputFormat,
}

#[derive(clap::Args, Debug, Clone)]
pub struct GenArgs {
    /// Workload to generate.
    #[arg(value_enum)]
    pub workload: GenWorkload,
    /// Isolation level of the simulated database.
    #[arg(long, value_enum, default_value = "strict-serializable")]
    pub level: gen::Level,
    /// Force one anomaly into the history (a short script on fresh keys, at
    /// a random point); `lost-update` also turns off snapshot isolation's
    /// write-write check for the whole run. lwt: `lost-update`,
    /// `aborted-read`, `stale-session-read` or `realtime`, on one register
    /// with fresh values (the others need transactions).
    #[arg(long, value_enum)]
    pub fault: Option<gen::Fault>,
    /// Transactions to invoke (a fault adds its own few).
    #[arg(long, default_value_t = 1000)]
    pub txns: u64,
    /// Transactions per process instead of in all (PolySI's parameter).
    #[arg(long, conflicts_with = "txns")]
    pub txns_per_process: Option<u64>,
    /// Stop once the output reaches this many megabytes (10^6 bytes).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_mb: Option<u64>,
    /// Concurrent client processes (sessions).
    #[arg(long, visible_alias = "sessions", default_value_t = 10,
          value_parser = clap::value_parser!(u64).range(1..=gen::MAX_PROCESSES))]
    pub processes: u64,
    /// Micro-ops per transaction: `N`, or `MIN-MAX` drawn uniformly
    /// (mini-transactions: at most 4).
    #[arg(long, default_value = "1-4", value_parser = parse_ops)]
    pub ops: (u64, u64),
    /// Keys (list-append, or any workload with --max-writes-per-key: keys in
    /// use at a time; a key retires after --max-writes-per-key writes and a
    /// fresh one takes its place; lwt: registers, written as
    /// jepsen.independent `[k v]` tuples when more than one).
    #[arg(long, default_value_t = 10,
          value_parser = clap::value_parser!(u64).range(1..=gen::MAX_KEYS))]
    pub keys: u64,
    /// Writes to a key before it retires (default: 32 for list-append, as
    /// Elle's generators; never for rw-register and mini-transactions).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_writes_per_key: Option<u64>,
    /// Fraction of micro-ops that are reads (lwt: of ops, 0.4 unless given).
    #[arg(long, default_value_t = 0.5, value_parser = parse_fraction)]
    pub read_ratio: f64,
    /// rw-register: fraction of writes not preceded by a read of their key
    /// (their order is unknown to the checker, which then searches for one).
    #[arg(long, default_value_t = 0.0, value_parser = parse_fraction)]
    pub blind_writes: f64,
    /// rw-register and mini-transactions: the probability that a write
    /// repeats a value already written to its key in the run (one of them,
    /// uniformly, the current one included, like `UPDATE t SET v = v`)
    /// instead of a fresh one, so that a read of it has several possible
    /// writers. The database still runs at its level. Default 0: values
    /// are unique.
    #[arg(long, value_name = "RATE", default_value_t = 0.0, value_parser = parse_fraction)]
    pub duplicate_values: f64,
    /// How keys are chosen.
    #[arg(long, value_enum, default_value = "uniform")]
    pub distribution: gen::Distribution,
    /// Fraction of transactions the client aborts (`:fail`).
    #[arg(long, default_value_t = 0.03, value_parser = parse_fraction)]
    pub fail_rate: f64,
    /// Fraction of transactions that crash (`:info`; half of them commit).
    /// Default 0 (lwt: 0.01).
    #[arg(long, value_parser = parse_fraction)]
    pub info_rate: Option<f64>,
    /// `:ok` transactions carry the simulated database's
    /// `:commit-timestamp` (and `:start-timestamp` where they read from a
    /// snapshot), as MongoDB's Jepsen tests record them; `check
    /// --transaction-order timestamps` takes them.
    #[arg(long)]
    pub timestamps: bool,
    /// Force one lie into the reported timestamps (implies --timestamps),
    /// with the database's isolation right: what `check
    /// --check-timestamps` must catch. rw-register and mini-transactions;
    /// `start-after-commit` at any level, `stale-start` at
    /// snapshot-isolation, the others at snapshot-isolation and the
    /// serializable levels.
    #[arg(long, value_enum)]
    pub timestamp_fault: Option<gen::TimestampFault>,
    /// lwt: draw written and expected values from 0..N, so that values
    /// repeat (Jepsen's etcd cas-register test uses 5); reads, writes and
    /// compare-and-sets as Jepsen's mix.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=gen::lwt::MAX_VALUES))]
    pub values: Option<u64>,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Output file (stdout by default).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

/// What `gen` writes: transactions from the simulated database, or
/// lightweight-transaction register ops.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum GenWorkload {
    /// `[:append k v]` and `[:r k [..]]`.
    ListAppend,
    /// `[:w k v]` and `[:r k v]`.
    RwRegister,
    /// rw-register transactions of at most four micro-ops, at most two reads
    /// and two writes, each write preceded by a read of its key.
    MiniTransactions,
    /// Jepsen's cas-register (lightweight transactions): `:write`, `:read`
    /// and `:cas` ops on linearizable registers (--txns ops, --keys
    /// registers). `lwt`, its name before, still works.
    #[value(name = "cas-register", alias = "lwt")]
    Lwt,
    /// Elle's closed-predicate: an `:init`, then reads, predicate reads
    /// `[:rp pred {k v ...}]` and each key's one insert, write or delete
    /// (--keys keys; the history ends once each was mutated, or at --txns).
    ClosedPredicate,
}

impl GenWorkload {
    /// The transactional workload, or `None` for register ops.
    pub fn kind(self) -> Option<gen::Kind> {
        match self {
            GenWorkload::ListAppend => Some(gen::Kind::ListAppend),
            GenWorkload::RwRegister => Some(gen::Kind::RwRegister),
            GenWorkload::MiniTransactions => Some(gen::Kind::MiniTransactions),
            GenWorkload::Lwt | GenWorkload::ClosedPredicate => None,
        }
    }
}

impl GenArgs {
    /// `--txns`, or `--txns-per-process` times the processes (lwt: ops).
    fn txns(&self) -> u64 {
        self.txns_per_process
            .map_or(self.txns, |n| n.saturating_mul(self.processes))
    }

    fn max_bytes(&self) -> u64 {
        self.max_mb
            .map_or(u64::MAX, |m| m.saturating_mul(1_000_000))
    }

    pub fn params(&self, kind: gen::Kind) -> gen::Params {
        gen::Params {
            seed: self.seed,
            processes: self.processes,
            txns: self.txns(),
            max_bytes: self.max_bytes(),
            shape: gen::Shape {
                kind,
                min_ops: self.ops.0,
                max_ops: self.ops.1,
                read_ratio: self.read_ratio,
                blind_writes: self.blind_writes,
                duplicate_values: self.duplicate_values,
                distribution: self.distribution,
                keys: self.keys,
                max_writes_per_key: self.max_writes_per_key.unwrap_or(match kind {
                    gen::Kind::ListAppend => 32,
                    _ => u64::MAX,
                }),
            },
            level: self.level,
            fault: self.fault,
            fail_rate: self.fail_rate,
            info_rate: self.info_rate.unwrap_or(0.0),
            timestamps: self.timestamps || self.timestamp_fault.is_some(),
            timestamp_fault: self.timestamp_fault,
        }
    }
}

/// `N` or `MIN-MAX`, between 1 and [`gen::MAX_OPS`].
fn parse_ops(s: &str) -> Result<(u64, u64), String> {
    let num = |t: &str| match t.trim().parse::<u64>() {
        Ok(n) if (1..=gen::MAX_OPS).contains(&n) => Ok(n),
        _ => Err(format!(
            "`{s}` is not N or MIN-MAX with numbers from 1 to {}",
            gen::MAX_OPS
        )),
    };
    let (min, max) = match s.split_once('-') {
        Some((a, b)) => (num(a)?, num(b)?),
        None => num(s).map(|n| (n, n))?,
    };
    match min <= max {
        true => Ok((min, max)),
        false => Err(format!("`{s}` is an empty range")),
    }
}

fn parse_fraction(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(f) if (0.0..=1.0).contains(&f) => Ok(f),
        _ => Err(format!("`{s}` is not a number between 0 and 1")),
    }
}

/// A usage error for arguments clap accepted one by one but not together.
fn usage_error(msg: &str) -> ExitCode {
    let e = Cli::command().error(clap::error::ErrorKind::ArgumentConflict, msg);
    let _ = e.print();
    ExitCode::from(EXIT_INPUT)
}

/// Runs the command line and returns the process exit status.
pub fn main() -> ExitCode {
    // Usage errors exit with EXIT_INPUT rather than clap's 2, which `check`
    // reserves for an unknown verdict.
    let parsed = Cli::command()
        .try_get_matches()
        .and_then(|m| match Cli::from_arg_matches(&m) {
            Ok(cli) => Ok((cli, m)),
            Err(e) => Err(e.format(&mut Cli::command())),
        });
    let (cli, matches) = match parsed {
        Ok(parsed) => parsed,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_INPUT } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match cli.command {
        Command::Check(a) => check::run(&a),
        Command::Stats(a) => stats_cmd(&a),
        Command::Gen(a) => gen_cmd(&a, &given(matches.subcommand_matches("gen"))),
        Command::Bench(a) => bench::run(&a),
        Command::Run(a) => run::run(&a),
        Command::Recheck(a) => recheck::run(&a),
        Command::RecheckHistory(a) => recheck::run_history(&a),
    }
}

fn stats_cmd(a: &StatsArgs) -> ExitCode {
    let opts = a.input.load_options();
    let mut all = Vec::new();
    let mut failed = false;
    for path in &a.files {
        let start = Instant::now();
        let loaded = history::Input::read(path, opts.format).and_then(|input| {
            let (format, size) = (input.format, input.size());
            input.parse(opts.workload).map(|h| (h, format, size))
        });
        match loaded {
            Ok((h, format, size)) => {
                let secs = start.elapsed().as_secs_f64();
                all.push(Stats::of(&h, format, size, secs));
            }
            Err(d) => {
                let text = diagnostic::render(&d, stderr_color());
                if let Err(code) = output::to_stderr(&text) {
                    return code;
                }
                failed = true;
            }
        }
    }
    let text = match a.format {
        OutputFormat::Human => {
            let tables: Vec<String> = all.iter().map(stats::render).collect();
            tables.join("\n")
        }
        OutputFormat::Json if all.len() == 1 => check::json_line(&all[0]),
        OutputFormat::Json => check::json_line(&all),
    };
    let code = if failed {
        ExitCode::from(EXIT_INPUT)
    } else {
        ExitCode::SUCCESS
    };
    output::status(output::to_stdout(&text), code)
}

/// The ids of the arguments given on the command line (not defaulted).
fn given(m: Option<&ArgMatches>) -> Vec<String> {
    let Some(m) = m else {
        return Vec::new();
    };
    m.ids()
        .filter(|id| m.value_source(id.as_str()) == Some(ValueSource::CommandLine))
        .map(|id| id.to_string())
        .collect()
}

/// `gen` arguments for lwt's single register ops, and why each means
/// nothing there.
const TXN_ONLY: [(&str, &str); 9] = [
    (
        "level",
        "its registers are linearizable; --fault injects a violation",
    ),
    ("ops", "an lwt op is one read, write or compare-and-set"),
    (
        "blind_writes",
        "an lwt op is one read, write or compare-and-set",
    ),
    ("distribution", "registers are drawn uniformly"),
    (
        "fail_rate",
        "a compare-and-set fails when its expected value is not current",
    ),
    ("max_writes_per_key", "registers are never retired"),
    (
        "duplicate_values",
        "--values N draws values from 0..N, so that they repeat",
    ),
    ("timestamps", "its registers are not transactions"),
    ("timestamp_fault", "its registers are not transactions"),
];

/// `gen` arguments the closed-predicate workload has no use for, and why.
const NOT_PREDICATE: [(&str, &str); 11] = [
    (
        "ops",
        "a transaction holds one to four micro-ops, as Elle's generator's",
    ),
    (
        "read_ratio",
        "reads, predicate reads and mutations are drawn as Elle's generator draws them",
    ),
    ("blind_writes", "every mutation is blind"),
    ("distribution", "keys are drawn uniformly"),
    ("max_writes_per_key", "each key is mutated once"),
    ("fault", "no fault is scripted for it"),
    ("timestamps", "its timestamps are not written"),
    ("timestamp_fault", "its timestamps are not written"),
    ("values", "values are fresh"),
    ("duplicate_values", "values are fresh"),
    ("max_mb", "the run ends once every key was mutated"),
];

/// Why `gen` refuses an argument `given` for `a`'s workload, if it does:
/// one that would be ignored (issue 32: `gen lwt --fault X` was).
fn inapplicable(a: &GenArgs, given: &[String]) -> Option<String> {
    let is_given = |id: &str| given.iter().any(|g| g == id);
    let flag = |id: &str| format!("--{}", id.replace('_', "-"));
    let refused = |workload: &str, table: &[(&str, &str)]| {
        (table.iter().find(|(id, _)| is_given(id)))
            .map(|(id, why)| format!("{} does not apply to `gen {workload}`: {why}", flag(id)))
    };
    match a.workload {
        GenWorkload::Lwt => refused("cas-register", &TXN_ONLY),
        GenWorkload::ClosedPredicate => refused("closed-predicate", &NOT_PREDICATE),
        _ => is_given("values").then(|| {
            "--values is for `gen cas-register` (registers whose values repeat)".to_string()
        }),
    }
}

fn gen_cmd(a: &GenArgs, given: &[String]) -> ExitCode {
    if let Some(msg) = inapplicable(a, given) {
        return usage_error(&msg);
    }
    if a.workload == GenWorkload::ClosedPredicate {
        return gen_closed_predicate(a);
    }
    let Some(kind) = a.workload.kind() else {
        let read_ratio = given
            .iter()
            .any(|g| g == "read_ratio")
            .then_some(a.read_ratio);
        return gen_lwt(a, read_ratio);
    };
    let params = a.params(kind);
    if let Err(msg) = params.validate() {
        return usage_error(&msg);
    }
    write_output(a, |w| gen::write(w, &params).map(drop))
}

/// `gen lwt`; `read_ratio` when given (lwt's own default otherwise).
fn gen_lwt(a: &GenArgs, read_ratio: Option<f64>) -> ExitCode {
    let defaults = gen::lwt::Params::default();
    let params = gen::lwt::Params {
        seed: a.seed,
        processes: a.processes,
        keys: a.keys,
        ops: a.txns(),
        max_bytes: a.max_bytes(),
        read_ratio: read_ratio.unwrap_or(defaults.read_ratio),
        info_rate: a.info_rate.unwrap_or(defaults.info_rate),
        values: a.values,
        fault: a.fault,
    };
    if let Err(msg) = params.validate() {
        return usage_error(&msg);
    }
    write_output(a, |w| gen::lwt::write(w, &params).map(drop))
}

/// `gen closed-predicate`.
fn gen_closed_predicate(a: &GenArgs) -> ExitCode {
    let params = gen::predicate::Params {
        seed: a.seed,
        processes: a.processes,
        keys: a.keys,
        txns: a.txns(),
        level: a.level,
        fail_rate: a.fail_rate,
        info_rate: a.info_rate.unwrap_or(0.0),
    };
    if let Err(msg) = params.validate() {
        return usage_error(&msg);
    }
    write_output(a, |w| gen::predicate::write(w, &params).map(drop))
}

/// Writes a generated history to `--output` or stdout, showing how many
/// transactions (lwt: ops) are written.
fn write_output(
    a: &GenArgs,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> ExitCode {
    let lines = Arc::new(AtomicU64::new(0));
    let progress = {
        let (lines, total) = (Arc::clone(&lines), a.txns());
        let unit = match a.workload {
            GenWorkload::Lwt => "ops",
            _ => "transactions",
        };
        // Each one is two lines, its invocation and its completion.
        Progress::start(move || {
            let written = lines.load(Ordering::Relaxed) / 2;
            Status::new("generating").counting(written, Some(total), unit)
        })
    };
    let counted = |w: &mut dyn std::io::Write| {
        write(&mut Lines {
            inner: w,
            lines: &lines,
        })
    };
    let result = match &a.output {
        Some(path) => output::to_file(path, counted),
        None => output::write_with(&mut std::io::stdout().lock(), "the history", |w| counted(w)),
    };
    progress.finish();
    output::status(result, ExitCode::SUCCESS)
}

/// A writer that counts the lines written through it (a history has one
/// op a line), for `gen`'s progress.
struct Lines<'a> {
    inner: &'a mut dyn std::io::Write,
    lines: &'a AtomicU64,
}

impl std::io::Write for Lines<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        let newlines = buf[..n].iter().filter(|&&b| b == b'\n').count();
        self.lines.fetch_add(newlines as u64, Ordering::Relaxed);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Whether stderr wants colour: a terminal, and `NO_COLOR` unset.
fn stderr_color() -> bool {
    use std::io::IsTerminal;
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}
