//! `isocheck check`: the verdict on one history, as Elle would give it.

use super::output;
use super::progress::{CheckFeed, Progress};
use super::{InputArgs, EXIT_INPUT};
use clap::ValueEnum;
use isocheck::history;
use isocheck::history::commit_order::OrderSource;
use isocheck::limits;
use isocheck::report::{self, diagnostic};
use isocheck::{
    models, CheckOptions, InferOptions, JepsenOptions, OptionError, SolveOptions, Validity,
};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// Exit status for a valid history.
pub const EXIT_VALID: u8 = 0;
/// Exit status for an invalid history.
pub const EXIT_INVALID: u8 = 1;
/// Exit status when validity is unknown (e.g. no dependency was inferred).
pub const EXIT_UNKNOWN: u8 = 2;

#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// The history file (Jepsen `history.edn`, or PolySI, dbcop, Cobra), or
    /// a Jepsen run directory holding `history.edn`; `-` reads standard
    /// input. Several: one line each on stdout, `FILE<TAB>true|false|unknown`
    /// (`error` when it cannot be read), as elle-cli prints them.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Output: a report for people on stderr, or Elle's result map on stdout.
    #[arg(long, value_enum, default_value = "human")]
    pub format: CheckFormat,
    /// SAT backend for uncertain version orders. Only the one compiled in is
    /// available (CaDiCaL by default; Kissat with `--no-default-features
    /// --features kissat`).
    #[arg(long, value_enum, default_value = isocheck::SAT_BACKEND)]
    pub solver: Solver,
    /// Print each stage on stderr as it begins, with the time since the
    /// start, and per-model solving statistics (construct, prune, encode,
    /// solve) at the end.
    #[arg(long, short = 'v')]
    pub verbose: bool,
    /// Also write Elle-like artifacts here: `<anomaly>.txt` explanations, a
    /// Graphviz `.dot` (and `.svg` when `dot` is installed) per cycle, and
    /// the HTML report as `index.html`.
    #[arg(long)]
    pub directory: Option<PathBuf>,
    /// rw-register: the database's own commit order orders the versions of
    /// each key (Elle's `:transaction-order`). FILE maps each transaction's
    /// completion `:index` to its position (EDN `{0 2, 1 1}` or JSON
    /// `{"0": 2, "1": 1}`); `timestamps` takes the commit timestamps on the
    /// ops (`:commit-timestamp`, or `:txn-info {:commit_ts …}`).
    #[arg(long, value_name = "FILE|timestamps")]
    pub transaction_order: Option<String>,
    /// Also write the report as one self-contained HTML page (cycle plots,
    /// counterexample cases, a timeline, the lattice of models) to this file.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    #[command(flatten)]
    pub stream: super::stream::StreamArgs,
    // Last: the heading it opens holds only its own options.
    #[command(flatten)]
    pub jepsen: JepsenArgs,
}

/// What to check: models, anomalies, inference and solving options, shared
/// by `check` and `recheck`.
#[derive(clap::Args, Debug, Clone)]
pub struct ModelArgs {
    /// Consistency models the history must satisfy, comma-separated, with
    /// Elle's names (`serializable`, `snapshot-isolation`, ...; `none` for no
    /// model). Default: strict-serializable.
    #[arg(long, short = 'm', value_delimiter = ',', long_help = models_help())]
    pub consistency_models: Option<Vec<String>>,
    /// Further anomalies to prohibit, comma-separated, with Elle's names
    /// (`G0`, `G1`, `G-single`, ...); every anomaly that implies one is
    /// prohibited too.
    #[arg(long, short = 'a', value_delimiter = ',')]
    pub anomalies: Vec<String>,
    /// rw-register: process order orders the versions of each key.
    #[arg(long)]
    pub sequential_keys: bool,
    /// rw-register: real-time order orders the versions of each key.
    #[arg(long)]
    pub linearizable_keys: bool,
    /// rw-register: within a transaction, writes follow reads of the same key.
    #[arg(long)]
    pub wfr_keys: bool,
    /// rw-register: also check the reads against the timestamps the ops
    /// carry (`:start-timestamp`/`:commit-timestamp`, or `:txn-info
    /// {:start_ts :commit_ts}`): under snapshot isolation each read sees
    /// the versions committed by its start and the first committer wins;
    /// under serializability, those committed before its commit. What the
    /// timestamps contradict is a `timestamp-*` anomaly.
    #[arg(long)]
    pub check_timestamps: bool,
    /// Decide on the version order inference can see, as Elle does: no
    /// search over writes whose order is unknown.
    #[arg(long, conflicts_with_all = ["no_pruning", "timeout", "every_pair"])]
    pub certain_only: bool,
    /// Elle's rules for Jepsen histories: reads of values nobody wrote
    /// (`garbage-read`, which every model prohibits) are looked for only
    /// with `--anomalies garbage-read`, as Elle does not detect them. The
    /// PolySI, dbcop and Cobra formats log every committed transaction, so
    /// there such a read stays a violation.
    #[arg(long)]
    pub elle_compat: bool,
    /// Take the general path even when every transaction is a
    /// mini-transaction, or the ops' timestamps prove the models (the fast
    /// paths decide those in linear time).
    #[arg(long)]
    pub no_fast_path: bool,
    /// Skip PolySI's pruning and hand every constraint to the solver.
    #[arg(long)]
    pub no_pruning: bool,
    /// Decide every model on every pair of writes in unknown order, not
    /// first on read-modify-write chains (models with rw edges), without
    /// pairs of unread writes (serializability's graph and read committed's),
    /// or, for models without rw edges, along an order of the known edges.
    #[arg(long)]
    pub every_pair: bool,
    /// Give up after this many seconds, counted from the first byte read
    /// to the verdict (`:valid? :unknown` with the stage it stopped in, exit
    /// status 2); fractions allowed, 0 stops at once.
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub timeout: Option<Duration>,
    /// Give up (`:valid? :unknown`, reason `memory-limit`, exit status 2)
    /// once the check has allocated this much: bytes, or with a suffix
    /// (`500M`, `1.5G`, `2GiB`). Default: the memory available (free memory,
    /// the cgroup's limit and the address-space limit, the least of them).
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes)]
    pub max_memory: Option<u64>,
}

/// The options of Jepsen's standard checkers, named as elle-cli names
/// them: only for the commands that check such histories (`check`,
/// `recheck`), under a heading of their own.
#[derive(clap::Args, Debug, Clone, Default)]
#[command(next_help_heading = "Jepsen checker options (bank, long-fork, set-full)")]
pub struct JepsenArgs {
    /// Bank: the total every read must sum to (default: the first read's sum).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub total_amount: Option<i64>,
    /// Bank: the accounts, EDN values separated by commas (or spaces, as in
    /// EDN; a string may hold a comma), e.g. `0,1,2` or `:a,"b,c"`
    /// (default: the first read's).
    #[arg(long, value_name = "ACCOUNTS", value_parser = parse_accounts)]
    pub accounts: Option<Accounts>,
    /// Bank: balances may be negative.
    #[arg(long)]
    pub allow_negative_balances: bool,
    /// Long-fork: keys each read reads (the workload's group size; default 2).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub group_size: Option<u32>,
    /// Set-full: the set is meant to be linearizable, so a stale read (one
    /// that missed an element known to be in the set) makes it invalid.
    #[arg(long)]
    pub linearizable_set: bool,
}

/// `--accounts`: each account's canonical EDN text (`1N` is `1`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Accounts(Vec<String>);

/// The accounts of `--accounts`: one or more EDN values, each once.
/// Anything else is a usage error (it was taken as one account named by
/// the text, which no read has, so every read looked wrong).
fn parse_accounts(s: &str) -> Result<Accounts, String> {
    let values = history::edn::read_all(s)
        .map_err(|e| format!("`{s}` is not EDN values: {} (e.g. `0,1,2`)", e.problem))?;
    if values.is_empty() {
        return Err("no account given (e.g. `--accounts 0,1,2`)".to_string());
    }
    let mut accounts: Vec<String> = Vec::with_capacity(values.len());
    for v in &values {
        let text = v.canonical();
        if accounts.contains(&text) {
            return Err(format!(
                "account {text} is listed twice: name each once, e.g. `0,1,2`"
            ));
        }
        accounts.push(text);
    }
    Ok(Accounts(accounts))
}

impl JepsenArgs {
    pub fn options(&self) -> JepsenOptions {
        JepsenOptions {
            total_amount: self.total_amount,
            accounts: self.accounts.as_ref().map(|a| a.0.clone()),
            negative_balances: self.allow_negative_balances,
            group_size: self.group_size.map(|n| n as usize),
            linearizable: self.linearizable_set,
        }
    }
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Solver {
    Cadical,
    Kissat,
}

/// A finite number of seconds, 0 or more; one too large for a `Duration`
/// is the longest there is (no deadline at all, in effect).
pub(super) fn parse_seconds(s: &str) -> Result<Duration, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => {
            Ok(Duration::try_from_secs_f64(x).unwrap_or(Duration::MAX))
        }
        _ => Err(format!("`{s}` is not a number of seconds (0 or more)")),
    }
}

/// Bytes: a number with an optional unit, decimal (`k`, `M`, `G`, `T`,
/// with or without `B`) or binary (`KiB`, `MiB`, `GiB`, `TiB`).
fn parse_bytes(s: &str) -> Result<u64, String> {
    let bad = || format!("`{s}` is not a size in bytes (e.g. 1000000, 500M, 1.5G, 2GiB)");
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (number, unit) = s.split_at(split);
    let number: f64 = number.parse().map_err(|_| bad())?;
    let unit = unit.trim().to_ascii_lowercase();
    let unit = unit.strip_suffix('b').unwrap_or(&unit);
    let scale: f64 = match unit {
        "" => 1.0,
        "k" => 1e3,
        "m" => 1e6,
        "g" => 1e9,
        "t" => 1e12,
        "ki" => 1024.0,
        "mi" => 1024.0 * 1024.0,
        "gi" => 1024.0 * 1024.0 * 1024.0,
        "ti" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        _ => return Err(bad()),
    };
    let bytes = number * scale;
    // `u64::MAX as f64` rounds up to 2^64, which does not fit.
    if (1.0..u64::MAX as f64).contains(&bytes) {
        Ok(bytes as u64)
    } else {
        Err(format!("`{s}` is not between 1 byte and 2^64 bytes"))
    }
}

/// An error when a comma-separated list of names given to `flag` holds an
/// empty one; `example` shows the list as meant.
pub(super) fn no_empty_name(list: &[String], flag: &str, example: &str) -> Result<(), String> {
    match list.iter().any(|name| clean_name(name).is_empty()) {
        true => Err(format!(
            "{flag} `{}` holds an empty name\n  help: name them separated by commas, e.g. \
             {example}",
            list.join(",")
        )),
        false => Ok(()),
    }
}

/// The model name that asks for no model (anomalies only).
const NO_MODEL: &str = "none";

/// A model or anomaly name as given, without spaces around it or the
/// keyword's colon (`:serializable`).
fn clean_name(s: &str) -> String {
    s.trim().trim_start_matches(':').to_string()
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckFormat {
    Human,
    Edn,
    Json,
}

impl ModelArgs {
    /// Sets the memory budget, `--max-memory` or the memory available.
    pub fn arm_memory(&self, format: report::stop::Format) {
        let budget = self.max_memory.or_else(limits::available_memory);
        super::exhausted::answer_as(format);
        limits::arm_memory(budget.unwrap_or(u64::MAX));
    }

    /// Why the lists of models and anomalies ask for nothing sensible, if
    /// they do not, with the fix: an empty name (`-m ''`, `-m ,`, a
    /// trailing comma) once meant no model at all and answered valid; `none`
    /// says that, and stands alone.
    pub fn validate(&self) -> Result<(), String> {
        let models = self.consistency_models.as_deref().unwrap_or_default();
        no_empty_name(
            models,
            "--consistency-models (-m)",
            "`-m serializable,snapshot-isolation`, or `-m none` for no model",
        )?;
        no_empty_name(&self.anomalies, "--anomalies (-a)", "`-a G1,lost-update`")?;
        let names: Vec<String> = models.iter().map(|m| clean_name(m)).collect();
        if names.len() > 1 && names.iter().any(|m| m == NO_MODEL) {
            return Err(format!(
                "--consistency-models (-m) `{}`: `none` means no model, and cannot be given \
                 with models\n  help: give `-m none` alone, or only the models",
                models.join(",")
            ));
        }
        Ok(())
    }

    /// The options of a check of transactions or registers (no Jepsen
    /// checker's options: see [`ModelArgs::with_jepsen`]).
    pub fn options(&self) -> CheckOptions {
        let models = self.consistency_models.as_ref().map(|ms| {
            ms.iter()
                .map(|m| clean_name(m))
                .filter(|m| m != NO_MODEL)
                .collect()
        });
        CheckOptions {
            consistency_models: models,
            anomalies: self.anomalies.iter().map(|a| clean_name(a)).collect(),
            infer: InferOptions {
                sequential_keys: self.sequential_keys,
                linearizable_keys: self.linearizable_keys,
                wfr_keys: self.wfr_keys,
            },
            solve: SolveOptions {
                enabled: !self.certain_only,
                pruning: !self.no_pruning,
                timeout: self.timeout,
                reduce: !self.every_pair,
                ..SolveOptions::default()
            },
            no_fast_path: self.no_fast_path,
            elle_compat: self.elle_compat,
            check_timestamps: self.check_timestamps,
            jepsen: JepsenOptions::default(),
        }
    }

    /// The options, with those of Jepsen's checkers.
    pub fn with_jepsen(&self, jepsen: &JepsenArgs) -> CheckOptions {
        CheckOptions {
            jepsen: jepsen.options(),
            ..self.options()
        }
    }
}

pub fn run(a: &CheckArgs) -> ExitCode {
    if a.stream.wanted() {
        return super::stream::run(a);
    }
    if let Some(flag) = a.stream.stray() {
        output::say(format_args!(
            "error: {flag} is an option of the streaming check\n  help: add --stream (or \
             --follow), or drop {flag}"
        ));
        return ExitCode::from(EXIT_INPUT);
    }
    match a.files.as_slice() {
        [file] => match history_in(file) {
            Ok(file) => run_one(a, &file),
            Err(msg) => {
                output::say(format_args!("error: {msg}"));
                ExitCode::from(EXIT_INPUT)
            }
        },
        files => run_many(a, files),
    }
}

/// The history a path names: the path itself, or the `history.edn` of a
/// Jepsen run directory; a store (runs below it) is an error saying what
/// to do. Any other directory is left to the readers (Cobra's logs).
pub(super) fn history_in(path: &Path) -> Result<PathBuf, String> {
    if !path.is_dir() {
        return Ok(path.to_path_buf());
    }
    let history = path.join("history.edn");
    if history.is_file() {
        return Ok(history);
    }
    let runs = isocheck::store::find_runs(path).unwrap_or_default();
    let Some(run) = runs.first() else {
        return Ok(path.to_path_buf());
    };
    let dir = path.display();
    Err(format!(
        "{dir} is a Jepsen store, not a history: {} run{} below it hold{} history.edn\n  help: \
         check one run (`isocheck check {}`), or every run beside its recorded verdict \
         (`isocheck recheck {dir}`)",
        runs.len(),
        if runs.len() == 1 { "" } else { "s" },
        if runs.len() == 1 { "s" } else { "" },
        run.history.display()
    ))
}

/// Options that report on one history, refused with several.
fn one_history_only(a: &CheckArgs) -> Option<&'static str> {
    if a.html.is_some() {
        Some("--html")
    } else if a.directory.is_some() {
        Some("--directory")
    } else if a.format != CheckFormat::Human {
        Some("--format edn/json")
    } else if a.verbose {
        Some("--verbose")
    } else if a
        .order_source()
        .is_some_and(|o| o != OrderSource::Timestamps)
    {
        Some("--transaction-order FILE")
    } else {
        None
    }
}

/// The options, or the exit status after saying what is wrong with them.
fn checked_options(a: &CheckArgs) -> Result<CheckOptions, ExitCode> {
    if let Err(msg) = a.model.validate() {
        output::say(format_args!("error: {msg}"));
        return Err(ExitCode::from(EXIT_INPUT));
    }
    let opts = a.model.with_jepsen(&a.jepsen);
    let wanted = a
        .solver
        .to_possible_value()
        .map(|v| v.get_name().to_string());
    if wanted.as_deref() != Some(isocheck::SAT_BACKEND) {
        output::say(format_args!(
            "error: this isocheck was built with the {} SAT backend only\n  help: rebuild with \
             `cargo build --release --no-default-features --features {}`",
            isocheck::SAT_BACKEND,
            wanted.unwrap_or_default()
        ));
        return Err(ExitCode::from(EXIT_INPUT));
    }
    if let Err(e) = isocheck::anomaly_types(&opts) {
        output::say(format_args!("error: {e}\n  help: {}", option_help(&e)));
        return Err(ExitCode::from(EXIT_INPUT));
    }
    Ok(opts)
}

/// `check` of several histories: one line each, `FILE<TAB>verdict`, as
/// each is decided; `--timeout` holds for each. The status is the worst:
/// 1 if any is invalid, else 2 if any is unknown, else 3 if any could not
/// be read, else 0 (as `recheck`'s).
fn run_many(a: &CheckArgs, files: &[PathBuf]) -> ExitCode {
    if let Some(flag) = one_history_only(a) {
        output::say(format_args!(
            "error: {flag} reports on one history, and {} were given\n  help: give one \
             file, or drop {flag} for one line per file",
            files.len()
        ));
        return ExitCode::from(EXIT_INPUT);
    }
    let opts = match checked_options(a) {
        Ok(opts) => opts,
        Err(code) => return code,
    };
    a.model.arm_memory(report::stop::Format::Human);
    let mut answers = Vec::with_capacity(files.len());
    for file in files {
        let answer = verdict_line(a, &opts, file);
        let word = answer.map_or("error", Validity::name);
        let line = format!("{}\t{word}\n", file.display());
        // Paths are the user's: their control characters escaped.
        let line = report::excerpt::escape(&line).into_owned();
        if let Err(code) = output::to_stdout(&line) {
            return code;
        }
        answers.push(answer);
    }
    let any = |v: Option<Validity>| answers.contains(&v);
    ExitCode::from(if any(Some(Validity::False)) {
        EXIT_INVALID
    } else if any(Some(Validity::Unknown)) {
        EXIT_UNKNOWN
    } else if any(None) {
        EXIT_INPUT
    } else {
        EXIT_VALID
    })
}

/// The verdict on one of several histories (`None` when it could not be
/// read or checked, said on stderr); a limit that stops it is unknown.
fn verdict_line(a: &CheckArgs, opts: &CheckOptions, path: &Path) -> Option<Validity> {
    let file = match history_in(path) {
        Ok(file) => file,
        Err(msg) => {
            output::say(format_args!("error: {msg}"));
            return None;
        }
    };
    let feed = CheckFeed::begin(false);
    let progress = Progress::start(move || feed.status());
    let decided = limits::run(a.model.timeout, || {
        let history = match a.load(&file) {
            Ok(h) => h,
            Err(d) => {
                progress.finish();
                let _ = output::to_stderr(&diagnostic::render(&d, super::stderr_color()));
                return None;
            }
        };
        let outcome = isocheck::check(&history, opts);
        progress.finish();
        match outcome {
            Ok(outcome) => Some(outcome.validity()),
            Err(e) => {
                output::say(format_args!("error: {}: {e}", path.display()));
                None
            }
        }
    });
    progress.finish();
    decided.unwrap_or(Some(Validity::Unknown))
}

impl CheckArgs {
    fn order_source(&self) -> Option<OrderSource> {
        self.transaction_order.as_deref().map(OrderSource::parse)
    }

    /// The history `file` holds, with the commit order asked for.
    fn load(&self, file: &Path) -> Result<history::History, history::InputDiagnostic> {
        let mut h = isocheck::load(file, &self.input.load_options())?;
        if self.model.check_timestamps {
            history::commit_order::read_stamps(&mut h, "--check-timestamps")?;
        }
        if let Some(from) = self.order_source() {
            history::commit_order::attach(&mut h, &from)?;
        }
        Ok(h)
    }
}

/// `check` of one history: the report, and the files asked for.
fn run_one(a: &CheckArgs, file: &Path) -> ExitCode {
    let opts = match checked_options(a) {
        Ok(opts) => opts,
        Err(code) => return code,
    };
    if let Some(e) = overwrites_input(a, file) {
        output::say(format_args!("error: {e}"));
        return ExitCode::from(EXIT_INPUT);
    }
    let format = match a.format {
        CheckFormat::Human => report::stop::Format::Human,
        CheckFormat::Edn => report::stop::Format::Edn,
        CheckFormat::Json => report::stop::Format::Json,
    };
    a.model.arm_memory(format);
    let feed = CheckFeed::begin(a.verbose);
    let progress = Progress::start(move || feed.status());
    let outcome = limits::run(a.model.timeout, || check_file(a, file, &opts, &progress));
    progress.finish();
    outcome.unwrap_or_else(|stop| stopped(&stop, format, a))
}

/// Why `--html` or `--directory` would overwrite the history being checked
/// (the same file, or a file named as one of the directory's artifacts),
/// if they would.
fn overwrites_input(a: &CheckArgs, file: &Path) -> Option<String> {
    if file.as_os_str() == "-" {
        return None;
    }
    let help = "  help: write the report elsewhere; the history is left as it is";
    if let Some(html) = a
        .html
        .as_deref()
        .filter(|h| isocheck::files::same_file(h, file))
    {
        let (html, file) = (html.display(), file.display());
        return Some(format!(
            "--html {html} is the history being checked ({file})\n{help}"
        ));
    }
    let dir = a.directory.as_deref()?;
    let (Ok(dir), Ok(file)) = (dir.canonicalize(), file.canonicalize()) else {
        return None;
    };
    report::directory::is_artifact(&dir, &file).then(|| {
        let (dir, file) = (dir.display(), file.display());
        format!(
            "--directory {dir} would replace the history being checked ({file}): it has the name \
             of a file isocheck writes there\n{help}"
        )
    })
}

/// Writes the answer of a check a limit stopped (and, with `--html` and
/// `--directory`, the page that says so, so that the file asked for is
/// there and the directory describes this check, not an earlier one).
fn stopped(stop: &limits::Stop, format: report::stop::Format, a: &CheckArgs) -> ExitCode {
    let text = report::stop::render(stop, format);
    let written = match format {
        report::stop::Format::Human => output::to_stderr(&text),
        _ => output::to_stdout(&text),
    };
    let answer = report::stop::render(stop, report::stop::Format::Human);
    let page = report::html::stopped(&answer);
    if let Some(dir) = &a.directory {
        let index = report::directory::INDEX;
        let remove = report::directory::remove_artifacts;
        let replaced = isocheck::files::replace_dir(dir, remove, |staging| {
            std::fs::write(staging.join(index), &page)
        });
        if let Err(e) = replaced {
            return output::file_failed(&e, dir);
        }
    }
    if let Some(file) = &a.html {
        if let Err(code) = output::to_file(file, |w| w.write_all(page.as_bytes())) {
            return code;
        }
    }
    output::status(written, ExitCode::from(EXIT_UNKNOWN))
}

/// Reads, checks and reports, polling the limits `run` armed: nothing is
/// printed before the report is rendered, so a stop leaves no partial output.
fn check_file(a: &CheckArgs, file: &Path, opts: &CheckOptions, progress: &Progress) -> ExitCode {
    let history = match a.load(file) {
        Ok(h) => h,
        Err(d) => {
            progress.finish();
            let text = diagnostic::render(&d, super::stderr_color());
            return output::status(output::to_stderr(&text), ExitCode::from(EXIT_INPUT));
        }
    };
    let outcome = match isocheck::check(&history, opts) {
        Ok(x) => x,
        Err(e) => {
            progress.finish();
            output::say(format_args!("error: {e}"));
            return ExitCode::from(EXIT_INPUT);
        }
    };
    let text = match a.format {
        CheckFormat::Human => outcome.human(&history, super::stderr_color()),
        CheckFormat::Edn => outcome.edn(&history),
        CheckFormat::Json => outcome.json(&history),
    };
    progress.finish();
    if let (true, Some(stats)) = (a.verbose, outcome.solving_stats()) {
        if let Err(code) = output::to_stderr(&stats) {
            return code;
        }
    }
    if let Err(code) = print_report(a.format, &text) {
        return code;
    }
    // The verdict is out already; a file asked for that cannot be written
    // is one line of error, and the exit status 3 says it is missing.
    if let Some(dir) = &a.directory {
        match outcome.write_directory(dir, &history) {
            // A closed or full stderr loses a warning, nothing more.
            Ok(warnings) => warnings
                .iter()
                .for_each(|w| drop(writeln!(std::io::stderr(), "warning: {w}"))),
            Err(e) => return output::file_failed(&e, dir),
        }
    }
    if let Some(file) = &a.html {
        let page_dir = match file.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => std::path::Path::new("."),
        };
        let page = outcome.html(&history, page_dir);
        if let Err(code) = output::to_file(file, |w| w.write_all(page.as_bytes())) {
            return code;
        }
    }
    super::bench::report_peak_rss();
    let status = exit_status(outcome.validity());
    // The process exits right after this: freeing the parsed history and
    // the outcome (over a GB at 1M transactions, millions of allocations)
    // would only cost time (about 5% of a 1M check), since the operating
    // system takes the memory back at once. The library frees as usual.
    std::mem::forget(outcome);
    std::mem::forget(history);
    status
}

/// The report for people goes to stderr, result maps to stdout, each
/// through the output helper (a closed pipe or a full disk is its status).
fn print_report(format: CheckFormat, text: &str) -> Result<(), ExitCode> {
    match format {
        CheckFormat::Human => output::to_stderr(text),
        _ => output::to_stdout(&format!("{text}\n")),
    }
}

pub(super) fn exit_status(valid: Validity) -> ExitCode {
    ExitCode::from(match valid {
        Validity::True => EXIT_VALID,
        Validity::False => EXIT_INVALID,
        Validity::Unknown => EXIT_UNKNOWN,
    })
}

/// A JSON value, pretty, as one output ending in a newline.
pub(super) fn json_line(v: &impl serde::Serialize) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_default();
    s.push('\n');
    s
}

/// `--consistency-models`' long help: the summary and every model name,
/// from the lattice (the one list `check` accepts).
fn models_help() -> String {
    format!(
        "Consistency models the history must satisfy, comma-separated, with Elle's names \
         (`none` for no model). Default: strict-serializable. Each name's definition is in \
         the README's table.\n\nKnown models: {}",
        models::known_models().join(", ")
    )
}

pub(super) fn option_help(e: &OptionError) -> String {
    match e {
        OptionError::UnknownModel(_) => {
            format!("known models: {}", models::known_models().join(", "))
        }
        OptionError::UnknownAnomaly(_) => {
            format!("known anomalies: {}", models::known_anomalies().join(", "))
        }
        OptionError::TimestampsWithRepeatedWrites => {
            "leave out --check-timestamps, or make the workload write unique values".into()
        }
    }
}
