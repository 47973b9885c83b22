//! `isocheck check --stream` and `--follow`: a Jepsen EDN history read
//! once, op by op (`OpStream`), through the library's
//! streaming check (`isocheck::stream`), each finding printed as soon as
//! the op that shows it is read, then the verdict. Under `--follow` the file
//! is followed as a writer appends to it, until it has not grown for
//! `--idle` seconds or Ctrl-C or SIGTERM says it is complete.
//!
//! Only what the stream decides is accepted: list-append and rw-register
//! transactions (`--transaction-order timestamps` for rw-register's
//! version orders; without, the verdict is the offline check's on the held
//! input), and the three models it has the orders of (strict-serializable:
//! real time; strong-session-serializable: process order; serializable:
//! neither); cas-register and mutex histories, each key's linearizability
//! (`stream::RegisterStream`, a window of ops per key); and Jepsen's counter, set and bank histories, which it judges as their
//! checkers do (`stream::checkers`), the workload given or learned from
//! the ops. Everything that needs the whole history (other models and
//! workloads, the reports with excerpts, `--html`, `--directory`) is a
//! usage error saying so.

use super::check::{exit_status, CheckArgs, CheckFormat};
use super::output;
use super::EXIT_INPUT;
use isocheck::history::commit_order::{self, OrderSource};
use isocheck::history::jepsen::streaming::{OpStream, StreamOptions, StreamedOp};
use isocheck::history::ValueTable;
use isocheck::history::{
    Format, HistoryError, InputDiagnostic, SourceFile, Span, Workload, STDIN_NAME, STDIN_PATH,
};
use isocheck::limits::{self, Reason, Stop};
use isocheck::models::Model;
use isocheck::report::{self, diagnostic};
use isocheck::stream::{
    About, CheckerEnding, CheckerStream, Ending as StreamEnding, Family, Finding, Held, Options,
    RegisterEnding, RegisterFinding, RegisterStream, RwRegisterCheck, Shape, StreamCheck,
};
use isocheck::JepsenOptions;
use isocheck::Validity;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// `--window`'s default: 100,000 transactions.
pub const DEFAULT_WINDOW: Window = Window {
    txns: 100_000,
    nanos: i64::MAX,
};

/// `--window`: transactions, or nanoseconds of the ops' `:time`, after
/// which the stream retires what it holds (`MAX`: never, that way).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    txns: u64,
    nanos: i64,
}

/// The most input `check --stream` holds for the offline verdict at the
/// end (see [`offline`]): past it, the verdict is the stream's own.
const HOLD: usize = 1 << 30;

/// The reason an rw-register's stream without timestamps gives for not
/// saying `valid`.
const VERSIONS: &str = "version-orders";

/// The most transactions held while none tells the family (reads of `nil`
/// alone): past them, list-append's, as the whole-file reader takes them.
const PENDING: usize = 100_000;

/// Why a checker's stream that never learned its workload cannot judge it.
const UNLEARNED: &str = "the history never showed whether it is a counter's or a set's (an :add, \
     and an :ok read) or a bank's (a :transfer); give --workload";

/// `--idle`'s default: long enough for a Jepsen test's quiet phases (a
/// nemesis heals, clients back off), short enough to end soon after the
/// writer does.
pub const DEFAULT_IDLE: Duration = Duration::from_secs(10);

/// The models the stream decides, by the orders each adds.
const MODELS: [Model; 3] = [
    Model::StrictSerializable,
    Model::StrongSessionSerializable,
    Model::Serializable,
];

/// What `--stream` and `--follow` take, in one line, for each refusal.
const SUPPORTS: &str = "--stream checks Jepsen EDN list-append and rw-register histories in one \
     pass, against strict-serializable (the default), strong-session-serializable or \
     serializable; cas-register and mutex histories for linearizability, per key; and Jepsen's \
     counter, set and bank histories as their checkers do";

/// The options of the streaming check.
#[derive(clap::Args, Debug, Clone, Default)]
#[command(
    next_help_heading = "Streaming (transactions, registers, counter, set, bank; in one pass)"
)]
pub struct StreamArgs {
    /// Check the history in one pass as it is read, printing each anomaly
    /// as soon as the op that shows it is read: Jepsen EDN list-append and
    /// rw-register histories, against strict-serializable (the default),
    /// strong-session-serializable or serializable; cas-register and mutex
    /// histories, for linearizability; and Jepsen's counter, set and bank
    /// histories, as their checkers judge them.
    #[arg(long)]
    pub stream: bool,
    /// Follow FILE as a writer appends to it (implies --stream): the check
    /// ends once the file has not grown for --idle seconds, or at Ctrl-C or
    /// SIGTERM, after reading what is there.
    #[arg(long)]
    pub follow: bool,
    /// --stream: transactions (`N`), or seconds of the ops' `:time`
    /// (`Ns`, fractions allowed), after which a transaction is retired,
    /// and a key untouched for half as long, keeping memory bounded; an op
    /// that needs one retired makes the answer unknown, never wrong.
    /// Registers: ops per key (`N` only). `none`: never retire. Default:
    /// 100000.
    #[arg(long, value_name = "N|Ns|none", value_parser = parse_window)]
    pub window: Option<Window>,
    /// --follow: seconds without the file growing after which the history
    /// is complete (fractions allowed). Default: 10.
    #[arg(long, value_name = "SECONDS", value_parser = super::check::parse_seconds)]
    pub idle: Option<Duration>,
}

impl StreamArgs {
    /// Whether the check streams.
    pub fn wanted(&self) -> bool {
        self.stream || self.follow
    }

    /// The streaming options given without `--stream`, if any.
    pub fn stray(&self) -> Option<&'static str> {
        match (self.window, self.idle) {
            (Some(_), _) => Some("--window"),
            (_, Some(_)) => Some("--idle"),
            _ => None,
        }
    }
}

/// `--window`: a number of transactions (1 or more), seconds (`30s`), or
/// `none`.
fn parse_window(s: &str) -> Result<Window, String> {
    let never = Window {
        txns: u64::MAX,
        nanos: i64::MAX,
    };
    let wrong = || {
        format!("`{s}` is not a number of transactions (1 or more), of seconds (`30s`) or `none`")
    };
    match s.trim() {
        "none" => Ok(never),
        n => match n.strip_suffix('s') {
            Some(secs) => {
                let d = super::check::parse_seconds(secs).map_err(|_| wrong())?;
                let nanos = i64::try_from(d.as_nanos()).unwrap_or(i64::MAX);
                match nanos {
                    0 => Err(wrong()),
                    nanos => Ok(Window { nanos, ..never }),
                }
            }
            None => match n.parse::<u64>() {
                Ok(txns) if txns > 0 => Ok(Window { txns, ..never }),
                _ => Err(wrong()),
            },
        },
    }
}

/// A streaming check as the arguments ask for it.
struct Plan {
    file: PathBuf,
    model: Model,
    options: Options,
    format: CheckFormat,
    /// `--follow`'s idle time (`Duration::MAX` under `run --online`,
    /// where the run says when the history is complete).
    follow: Option<Duration>,
    /// Before each line printed.
    prefix: &'static str,
    /// The most input held for the offline verdict (none under `run
    /// --online`, whose run checks the history afterwards).
    hold: usize,
    /// `--workload`, when given.
    workload: Option<Workload>,
    /// The bank checker's options.
    jepsen: JepsenOptions,
    /// `--transaction-order timestamps`: commit timestamps order an
    /// rw-register's versions.
    stamped: bool,
}

impl Plan {
    /// The input's name in diagnostics and reports.
    fn name(&self) -> String {
        match self.file.as_os_str() == STDIN_PATH {
            true => STDIN_NAME.to_string(),
            false => self.file.display().to_string(),
        }
    }
}

/// `check --stream` (or `--follow`): the findings as they come, then the
/// verdict, with `check`'s exit statuses.
pub fn run(a: &CheckArgs) -> ExitCode {
    let plan = match plan(a) {
        Ok(plan) => plan,
        Err(msg) => {
            output::say(format_args!("error: {msg}\n  help: {SUPPORTS}"));
            return ExitCode::from(EXIT_INPUT);
        }
    };
    a.model.arm_memory(match plan.format {
        CheckFormat::Human => report::stop::Format::Human,
        CheckFormat::Edn => report::stop::Format::Edn,
        CheckFormat::Json => report::stop::Format::Json,
    });
    let done = Arc::new(AtomicBool::new(false));
    if let Some(idle) = plan.follow {
        interrupt_ends(&done);
        watch(plan.file.clone(), idle, Arc::clone(&done));
    }
    let mut streamed = Streamed::new(&plan);
    // The offline verdict of the held input runs under the same limits as
    // the reading: `--timeout` counts from the first byte to the last.
    let ended = limits::run(a.model.timeout, || {
        streamed.read(&plan, &done)?;
        // The watcher, if any, is done with.
        done.store(true, Ordering::Relaxed);
        streamed.end(&plan)
    });
    done.store(true, Ordering::Relaxed);
    let (report, validity) = match ended {
        Ok(Ok(Ending::Offline { report, validity })) => (report, validity),
        Ok(Ok(Ending::Stream(verdict))) => (verdict.render(&plan), verdict.validity()),
        Ok(Err(Halt::Write(code))) => return code,
        Ok(Err(Halt::Input(text))) => {
            return output::status(output::to_stderr(&text), ExitCode::from(EXIT_INPUT))
        }
        Err(stop) => {
            let verdict = streamed.stopped(&stop);
            (verdict.render(&plan), verdict.validity())
        }
    };
    let written = streamed.out.line(&report);
    super::bench::report_peak_rss();
    output::status(written, exit_status(validity))
}

/// How a stream that read its input to the end ends.
enum Ending {
    /// With its own verdict.
    Stream(Verdict),
    /// With the offline check's report on the held input.
    Offline { report: String, validity: Validity },
}

/// The plan, or why the arguments ask for what the stream cannot decide.
fn plan(a: &CheckArgs) -> Result<Plan, String> {
    let file = match a.files.as_slice() {
        [file] => super::check::history_in(file)?,
        files => {
            return Err(format!(
                "--stream checks one history; {} given",
                files.len()
            ))
        }
    };
    if let Some(flag) = whole_history_option(a) {
        return Err(format!(
            "{flag} cannot be used with --stream: it needs the whole history, or a check \
             other than the stream's"
        ));
    }
    if let Some(f) = a.input.input_format.map(Format::from) {
        if f != Format::Edn {
            return Err(format!("--input-format {} is not Jepsen EDN", f.name()));
        }
    }
    let extension = file.extension().and_then(|e| e.to_str());
    let other = matches!(extension, Some("json" | "txt" | "bincode")) || file.is_dir();
    if a.input.input_format.is_none() && other {
        return Err(format!(
            "{} is not a Jepsen EDN history, by its name (give --input-format edn if it is)",
            file.display()
        ));
    }
    if let Some(w) = a.input.workload.filter(|&w| Family::of(w).is_none()) {
        return Err(format!(
            "--workload {} is not list-append, rw-register, cas-register, mutex, counter, set or bank",
            w.name()
        ));
    }
    if a.stream.follow && file.as_os_str() == STDIN_PATH {
        return Err(
            "--follow follows a file, not standard input (`--stream -` reads \
                    standard input to its end)"
                .to_string(),
        );
    }
    let model = model(a)?;
    let options = options(model, a.stream.window.unwrap_or(DEFAULT_WINDOW));
    let follow = a
        .stream
        .follow
        .then(|| a.stream.idle.unwrap_or(DEFAULT_IDLE));
    if a.stream.idle.is_some() && follow.is_none() {
        return Err("--idle is --follow's".to_string());
    }
    Ok(Plan {
        file,
        model,
        options,
        format: a.format,
        follow,
        prefix: "",
        hold: HOLD,
        workload: a.input.workload,
        jepsen: a.jepsen.options(),
        stamped: a.transaction_order.is_some(),
    })
}

/// The stream's options for `model`.
fn options(model: Model, window: Window) -> Options {
    Options {
        realtime: model == Model::StrictSerializable,
        process_order: model == Model::StrongSessionSerializable,
        window: window.txns,
        window_nanos: window.nanos,
    }
}

/// The one model asked for (`check`'s default when none is), if the stream
/// decides it.
fn model(a: &CheckArgs) -> Result<Model, String> {
    let default = [isocheck::models::DEFAULT_MODEL.to_string()];
    let names = a.model.consistency_models.as_deref().unwrap_or(&default);
    let [name] = names else {
        return Err(format!(
            "-m {}: --stream checks one model at a time",
            names.join(",")
        ));
    };
    let clean = name.trim().trim_start_matches(':');
    match Model::parse(clean).filter(|m| MODELS.contains(m)) {
        Some(m) => Ok(m),
        None => Err(format!(
            "-m {clean} is not one of the models --stream decides"
        )),
    }
}

/// The first option given that needs the whole history (or decides what
/// the stream does not), if any.
fn whole_history_option(a: &CheckArgs) -> Option<&'static str> {
    let m = &a.model;
    let j = &a.jepsen;
    let given = [
        (a.html.is_some(), "--html"),
        (a.directory.is_some(), "--directory"),
        (a.verbose, "--verbose"),
        (
            (a.transaction_order.as_deref()).is_some_and(|o| o != "timestamps"),
            "--transaction-order FILE",
        ),
        (!m.anomalies.is_empty(), "--anomalies"),
        (m.sequential_keys, "--sequential-keys"),
        (m.linearizable_keys, "--linearizable-keys"),
        (m.wfr_keys, "--wfr-keys"),
        (m.check_timestamps, "--check-timestamps"),
        (m.certain_only, "--certain-only"),
        (m.elle_compat, "--elle-compat"),
        (m.no_fast_path, "--no-fast-path"),
        (m.no_pruning, "--no-pruning"),
        (m.every_pair, "--every-pair"),
        (j.group_size.is_some(), "--group-size"),
        (j.linearizable_set, "--linearizable-set"),
    ];
    given.iter().find(|(set, _)| *set).map(|&(_, flag)| flag)
}

/// Why the reading stopped before the end.
enum Halt {
    /// The history is malformed, or not list-append's: the diagnostic.
    Input(String),
    /// Writing failed (or the reader closed the pipe): the exit status.
    Write(ExitCode),
}

/// The streaming check of a history's family.
/// Each boxed: both are large, and made once.
enum Check {
    ListAppend(Box<StreamCheck>),
    RwRegister(Box<RwRegisterCheck>),
    /// Counter, set or bank.
    Checker(Box<CheckerStream>),
    /// cas-register or mutex.
    Register(Box<RegisterStream>),
}

impl Check {
    /// The findings made since the last call.
    fn drain(&mut self) -> Vec<Finding> {
        match self {
            Check::ListAppend(check) => check.drain(),
            Check::RwRegister(check) => check.drain(),
            Check::Register(check) => (check.drain().into_iter())
                .map(RegisterFinding::finding)
                .collect(),
            Check::Checker(check) => check.drain(),
        }
    }

    /// Whether the final verdict may still be the offline check's on the
    /// held input: not once the window retired something (the whole
    /// history would need the memory the stream did without), nor for a
    /// checker's stream, whose verdict is the checker's already; but
    /// always for an rw-register's without timestamps (`stamped`), which
    /// cannot say `valid`.
    fn needs_input(&self, stamped: bool) -> bool {
        match self {
            Check::ListAppend(check) => check.retired() == 0,
            Check::RwRegister(check) => !stamped || check.retired() == 0,
            Check::Register(check) => check.retired() == 0,
            Check::Checker(_) => false,
        }
    }
}

/// A stream under way: the check, and what it found so far.
struct Streamed {
    /// The check, once the family is known.
    check: Option<Check>,
    family: Option<Family>,
    /// Transactions that told no family yet (reads of `nil`), for the
    /// check the first that does starts.
    pending: Vec<StreamedOp>,
    options: Options,
    stamped: bool,
    /// How a checker's stream starts, once the ops show it is one.
    workload: Option<Workload>,
    jepsen: JepsenOptions,
    /// The input's name, for a diagnostic at the end.
    name: String,
    /// The input, while the window retired nothing.
    held: Held,
    shape: Shape,
    out: Out,
    /// The names of the findings so far.
    names: BTreeSet<String>,
    /// The `:index` of the last op read (`i64::MIN`: none yet).
    last: i64,
    ops: u64,
}

impl Streamed {
    fn new(plan: &Plan) -> Streamed {
        let family = plan.workload.and_then(Family::of);
        let mut streamed = Streamed {
            check: None,
            family: None,
            pending: Vec::new(),
            options: plan.options,
            stamped: plan.stamped,
            workload: plan.workload,
            jepsen: plan.jepsen.clone(),
            name: plan.name(),
            held: Held::new(plan.hold),
            shape: family.map_or_else(Shape::new, Shape::of),
            out: Out {
                format: plan.format,
                prefix: plan.prefix,
            },
            names: BTreeSet::new(),
            last: i64::MIN,
            ops: 0,
        };
        if let Some(family) = family {
            streamed.start(family);
        }
        streamed
    }

    /// Starts the check of `family` (what of the input it keeps held:
    /// [`Check::needs_input`], after each op fed).
    fn start(&mut self, family: Family) {
        self.family = Some(family);
        self.check = Some(match family {
            Family::ListAppend => Check::ListAppend(Box::new(StreamCheck::new(self.options))),
            Family::RwRegister => {
                let check = RwRegisterCheck::new(self.options, self.stamped);
                Check::RwRegister(Box::new(check))
            }
            Family::Checker => {
                Check::Checker(Box::new(CheckerStream::new(self.workload, &self.jepsen)))
            }
            // A window of ops per key (linearizability is local); one of
            // time does not cut registers.
            Family::Register => Check::Register(Box::new(RegisterStream::new(self.options.window))),
        });
    }

    /// Reads the history to its end (under `--follow`, until `done`),
    /// printing the findings as they come.
    fn read(&mut self, plan: &Plan, done: &Arc<AtomicBool>) -> Result<(), Halt> {
        let name = plan.name();
        let options = StreamOptions {
            follow: plan.follow.map(|_| Arc::clone(done)),
            ..StreamOptions::default()
        };
        let held = self.held.clone();
        let ops = match plan.file.as_os_str() == STDIN_PATH {
            true => OpStream::new(&name, move || Ok(held.reader(std::io::stdin())), options),
            false => {
                let path = plan.file.clone();
                let open = move || Ok(held.reader(std::fs::File::open(path)?));
                OpStream::new(&name, open, options)
            }
        };
        let mut ops = ops;
        while let Some(op) = ops.next() {
            let op = op.map_err(|e| Halt::Input(input_error(e, None, &name)))?;
            self.take(&op, ops.values())
                .map_err(|e| Halt::Input(input_error(e, Some(&op), &name)))?;
            self.print_findings().map_err(Halt::Write)?;
        }
        // Transactions that never told their family: list-append's, as
        // the whole-file reader takes them.
        if let Some(op) = self.pending.first().cloned() {
            let family = self.shape.settle(&op);
            self.begin(family, &op, ops.values())
                .map_err(|e| Halt::Input(input_error(e, Some(&op), &name)))?;
            self.print_findings().map_err(Halt::Write)?;
        }
        Ok(())
    }

    /// Takes one op (`values`: the stream's, its `:f` one of them): to the
    /// family's check once the ops told it, held until then.
    fn take(&mut self, op: &StreamedOp, values: &ValueTable) -> Result<(), HistoryError> {
        self.last = op.op.index;
        self.ops += 1;
        let family = match self.shape.learn(op, values) {
            None if op.op.process.client().is_some() => {
                if self.pending.len() < PENDING {
                    self.pending.push(op.clone());
                    return Ok(());
                }
                Some(self.shape.settle(op))
            }
            family => family,
        };
        if let Some(family) = family.filter(|&f| self.family != Some(f)) {
            self.begin(family, op, values)?;
        }
        self.feed(op, values)
    }

    /// Starts the check of `family`, which `op` told (or the end of the
    /// stream did, with no `op`), and gives it the transactions held.
    fn begin(
        &mut self,
        family: Family,
        op: &StreamedOp,
        values: &ValueTable,
    ) -> Result<(), HistoryError> {
        if self.stamped && family != Family::RwRegister {
            return Err(HistoryError::new(
                isocheck::history::error::ErrorKind::TransactionOrder(
                    "--transaction-order is about rw-register versions".to_string(),
                ),
                "leave out --transaction-order: only an rw-register history's versions need it",
            )
            .at(op.op.span, "not an rw-register history's op"));
        }
        self.start(family);
        for held in std::mem::take(&mut self.pending) {
            self.feed(&held, values)?;
        }
        Ok(())
    }

    /// Gives `op` to the check, once it is known to fit the family.
    fn feed(&mut self, op: &StreamedOp, values: &ValueTable) -> Result<(), HistoryError> {
        match &mut self.check {
            Some(Check::ListAppend(check)) => {
                self.shape.check(op)?;
                check.op(&op.op, op.txn(), |m| op.read_list(m));
            }
            Some(Check::RwRegister(check)) => {
                self.shape.check(op)?;
                let stamp = match self.stamped {
                    true => op.commit_stamp()?,
                    false => None,
                };
                check.op(&op.op, op.txn(), stamp);
            }
            Some(Check::Checker(check)) => check.op(op, values)?,
            Some(Check::Register(check)) => check.op(op, values)?,
            None => {}
        }
        if (self.check.as_ref()).is_some_and(|c| !c.needs_input(self.stamped)) {
            self.held.release();
        }
        Ok(())
    }

    /// Prints the findings the check made since the last call.
    fn print_findings(&mut self) -> Result<(), ExitCode> {
        let found = self.check.as_mut().map(Check::drain);
        for f in found.unwrap_or_default() {
            self.out.line(&self.out.finding(&f))?;
            self.names.insert(f.name);
        }
        Ok(())
    }

    /// The history ended: the check's last findings, and the verdict.
    fn finish(&mut self) -> Result<Verdict, Halt> {
        match self.check.take() {
            None => Ok(self.verdict(None, Counts::Ops(self.ops))),
            Some(Check::ListAppend(check)) => Ok(self.transactions_end(check.finish())),
            Some(Check::RwRegister(check)) => Ok(self.transactions_end(check.finish())),
            Some(Check::Register(check)) => Ok(self.register_end(check.finish())),
            Some(Check::Checker(check)) => {
                let ending = check.finish();
                let ending = ending.map_err(|e| Halt::Input(input_error(e, None, &self.name)))?;
                Ok(self.checker_end(ending))
            }
        }
    }

    /// The findings only the end made certain.
    fn last_findings(&mut self, findings: Vec<Finding>) {
        for f in findings {
            // A closed pipe shows again when the verdict is written.
            let _ = self.out.line(&self.out.finding(&f));
            self.names.insert(f.name);
        }
    }

    /// A checker's stream ended: its verdict, the offline checker's.
    fn checker_end(&mut self, ending: CheckerEnding) -> Verdict {
        self.last_findings(ending.findings);
        let why = |reason, text: &str| Why {
            reason,
            text: text.to_string(),
            op: i64::MIN,
        };
        let why = match (ending.workload, ending.validity) {
            (None, _) => Some(why("workload", UNLEARNED)),
            (Some(_), Validity::Unknown) => Some(why("never-read", "the set was never read :ok")),
            _ => None,
        };
        if ending.validity == Validity::False {
            self.names
                .extend(ending.anomaly_types.iter().map(|n| n.to_string()));
        }
        let mut verdict = self.verdict(why, Counts::Streamed(ending.ops));
        verdict.checker = Some(ending.workload);
        verdict
    }

    /// A register stream ended: its verdict, unknown for the first key the
    /// window left undecided.
    fn register_end(&mut self, ending: RegisterEnding) -> Verdict {
        self.last_findings(
            ending
                .findings
                .into_iter()
                .map(RegisterFinding::finding)
                .collect(),
        );
        let why = ending.unknown.into_iter().next().map(|u| Why {
            reason: u.keyword,
            text: u.reason,
            op: u.op,
        });
        let mut verdict = self.verdict(why, Counts::Streamed(self.ops));
        verdict.checker = Some(Some(Workload::CasRegister));
        verdict
    }

    /// A stream of transactions ended: its verdict.
    fn transactions_end(&mut self, ending: StreamEnding) -> Verdict {
        self.last_findings(ending.findings);
        let why = ending.unknown.map(|u| Why {
            reason: u.keyword,
            text: u.reason,
            op: u.op,
        });
        let counts = Counts::Txns {
            txns: ending.txns,
            retired: ending.retired,
        };
        self.verdict(why, counts)
    }

    /// The input was read to its end: the stream's verdict, or the offline
    /// check's on the held input when the stream's is not `valid` (a
    /// violation, to name as `check` does; or unknown, which the whole
    /// history decides). A limit that stops the offline check leaves the
    /// stream's verdict, saying so.
    fn end(&mut self, plan: &Plan) -> Result<Ending, Halt> {
        let mut verdict = self.finish()?;
        if verdict.validity() == Validity::True {
            return Ok(Ending::Stream(verdict));
        }
        Ok(
            match limits::attempt(|| offline(plan, self.family, &self.held, &verdict)) {
                Ok(Some(ending)) => ending,
                Ok(None) => Ending::Stream(verdict),
                Err(stop) => {
                    verdict.unknown.get_or_insert(Why {
                        reason: stop.reason.name(),
                        text: format!(
                            "{} before the offline check of the held input ended",
                            limit_text(&stop)
                        ),
                        op: i64::MIN,
                    });
                    Ending::Stream(verdict)
                }
            },
        )
    }

    /// A limit stopped the reading: what was found stands, and the rest is
    /// unknown.
    fn stopped(&mut self, stop: &Stop) -> Verdict {
        let why = Why {
            reason: stop.reason.name(),
            text: limit_text(stop),
            op: self.last,
        };
        self.verdict(Some(why), Counts::Ops(self.ops))
    }

    fn verdict(&mut self, unknown: Option<Why>, counts: Counts) -> Verdict {
        Verdict {
            names: std::mem::take(&mut self.names),
            unknown,
            counts,
            checker: None,
        }
    }
}

/// The limit that stopped a check, in a sentence.
fn limit_text(stop: &Stop) -> String {
    match stop.reason {
        Reason::Timeout(t) => format!("the --timeout of {} s passed", t.as_secs_f64()),
        Reason::MemoryLimit { budget, used, .. } => {
            format!("{used} bytes in use went over the memory budget of {budget} bytes")
        }
    }
}

/// When the stream's verdict is not `valid` and its window retired nothing,
/// the whole input is still held: the final verdict is then the offline
/// check's on it, exactly what `check` says (Elle's anomaly types, each
/// explained; or the answer a retired key left unknown), after the findings
/// the stream printed as it went. `None` when the input was not held (or
/// does not read as a whole, which the stream would have said), leaving the
/// stream's own verdict.
fn offline(plan: &Plan, family: Option<Family>, held: &Held, verdict: &Verdict) -> Option<Ending> {
    let workload = match family? {
        Family::ListAppend => Some(Workload::ListAppend),
        Family::RwRegister => Some(Workload::RwRegister),
        // cas-register or mutex: the reader tells which.
        Family::Register => plan.workload,
        Family::Checker => return None,
    };
    let text = String::from_utf8(held.take()?).ok()?;
    let name = plan.name();
    let mut history = isocheck::history::parse_text(Format::Edn, &name, text, workload).ok()?;
    if plan.stamped {
        commit_order::attach(&mut history, &OrderSource::Timestamps).ok()?;
    }
    let opts = isocheck::CheckOptions {
        consistency_models: Some(vec![model_name(plan.model).to_string()]),
        ..isocheck::CheckOptions::default()
    };
    let outcome = isocheck::check(&history, &opts).ok()?;
    let report = match plan.format {
        CheckFormat::Human => {
            let (txns, retired) = match verdict.counts {
                Counts::Txns { txns, retired } => (txns, retired),
                Counts::Ops(_) | Counts::Streamed(_) => (0, 0),
            };
            format!(
                "{txns} transactions streamed, {retired} retired: the input was held whole, \
                 and the verdict is the offline check's\n{}",
                outcome.human(&history, super::stderr_color())
            )
        }
        // One map a line, as the findings before it.
        CheckFormat::Edn => outcome.edn_line(&history),
        CheckFormat::Json => one_line(&outcome.json(&history)),
    };
    Some(Ending::Offline {
        report,
        validity: outcome.validity(),
    })
}

/// JSON text without the whitespace between its tokens: `check`'s map,
/// its keys in their order (a `serde_json::Value` would sort them), on one
/// line.
fn one_line(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let (mut quoted, mut escaped) = (false, false);
    for c in json.chars() {
        if quoted {
            (quoted, escaped) = (escaped || c != '"', !escaped && c == '\\');
        } else if c.is_ascii_whitespace() {
            continue;
        } else {
            quoted = c == '"';
        }
        out.push(c);
    }
    out
}

/// The diagnostic of a history error: with the op's text as its source
/// when the error is about one op (the file itself is not held).
fn input_error(e: HistoryError, op: Option<&StreamedOp>, name: &str) -> String {
    let color = super::stderr_color();
    let Some(op) = op else {
        let at = e
            .span()
            .map(|s| format!("  at byte {} of {name}\n", s.start()));
        let text = diagnostic::render(&InputDiagnostic::new(e, None), color);
        return text + &at.unwrap_or_default();
    };
    let start = op.op.span.start();
    let mut e = e;
    for label in &mut e.labels {
        let (from, to) = (label.span.start(), label.span.end());
        let inside = from.checked_sub(start).zip(to.checked_sub(start));
        label.span = inside.map_or(Span::new(0, 0), |(from, to)| Span::new(from, to));
    }
    let source = SourceFile::new(
        format!("{name} (the op at byte {start})"),
        op.text.to_string(),
    );
    diagnostic::render(&InputDiagnostic::new(e, Some(source)), color)
}

/// Where the lines go: the human lines to stderr, the result maps to
/// stdout, each flushed as it is written.
struct Out {
    format: CheckFormat,
    /// Before each line (`run --online`'s).
    prefix: &'static str,
}

impl Out {
    fn line(&self, text: &str) -> Result<(), ExitCode> {
        let line = format!("{}{text}\n", self.prefix);
        match self.format {
            CheckFormat::Human => output::to_stderr(&line),
            _ => output::to_stdout(&line),
        }
    }

    /// One finding: `G1a (op 40): transaction 38 read an aborted append`,
    /// or a map of one line.
    fn finding(&self, f: &Finding) -> String {
        match self.format {
            CheckFormat::Human => human_finding(f),
            CheckFormat::Edn => edn_finding(f),
            CheckFormat::Json => json_finding(f),
        }
    }
}

fn human_finding(f: &Finding) -> String {
    let at = match f.at {
        i64::MIN => "at the end".to_string(),
        op => format!("op {op}"),
    };
    let what = match &f.what {
        About::Cycle(txns) => {
            let txns: Vec<String> = txns.iter().map(i64::to_string).collect();
            format!("a cycle through transactions {}", txns.join(", "))
        }
        About::Read(txn) => format!("transaction {txn} {}", read_finding(&f.name)),
        About::Txns(txns) => {
            let txns: Vec<String> = txns.iter().map(i64::to_string).collect();
            match f.name.as_str() {
                "dirty-update" => format!(
                    "transaction {} appended after the aborted {}",
                    txns.last().map_or("", String::as_str),
                    txns.first().map_or("", String::as_str),
                ),
                _ => format!(
                    "transactions {} read one version of a key, then appended to it",
                    txns.join(" and ")
                ),
            }
        }
        About::ReadValue { op, detail } => format!("op {op} {detail}"),
        About::Key { key, ops } => {
            let ops: Vec<String> = ops.iter().map(i64::to_string).collect();
            format!("key {key}, ops {}", ops.join(", "))
        }
        About::Elements { read, count, first } => {
            let more = if *count > first.len() { ", …" } else { "" };
            let which = match f.name.as_str() {
                "lost" => "acknowledged, missing from",
                _ => "no add attempted, in",
            };
            format!(
                "{count} {which} the last read (op {read}): {}{more}",
                first.join(", ")
            )
        }
    };
    format!("{} ({at}): {what}", f.name)
}

/// What a read finding says of its transaction.
fn read_finding(name: &str) -> &'static str {
    match name {
        "G1a" => "read an aborted append",
        "G1b" => "read an intermediate append",
        "garbage-read" => "read an element nobody appended",
        "incompatible-order" => "read an order incompatible with an earlier read's",
        "internal" => "read what its own earlier reads and appends contradict",
        _ => "read it",
    }
}

fn edn_finding(f: &Finding) -> String {
    let at = match f.at {
        i64::MIN => ":end".to_string(),
        op => op.to_string(),
    };
    let what = match &f.what {
        About::Cycle(txns) => {
            let txns: Vec<String> = txns.iter().map(i64::to_string).collect();
            format!(":cycle [{}]", txns.join(" "))
        }
        About::Read(txn) => format!(":txn {txn}"),
        About::Txns(txns) => {
            let txns: Vec<String> = txns.iter().map(i64::to_string).collect();
            format!(":txns [{}]", txns.join(" "))
        }
        About::ReadValue { op, detail } => {
            format!(":read {op}, :detail {}", serde_json::json!(detail))
        }
        About::Key { key, ops } => {
            let ops: Vec<String> = ops.iter().map(i64::to_string).collect();
            format!(":key {key}, :ops [{}]", ops.join(" "))
        }
        About::Elements { read, count, first } => {
            format!(
                ":read {read}, :count {count}, :elements [{}]",
                first.join(" ")
            )
        }
    };
    format!("{{:type :{}, :op {at}, {what}}}", f.name)
}

/// A finding as JSON, its fields in the order of the EDN map.
#[derive(serde::Serialize)]
struct JsonFinding<'a> {
    #[serde(rename = "type")]
    name: &'a str,
    op: serde_json::Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    cycle: Option<&'a [i64]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    txn: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    txns: Option<&'a [i64]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    read: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    detail: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    count: Option<usize>,
    /// EDN text, as the EDN line has them.
    #[serde(skip_serializing_if = "Option::is_none")]
    elements: Option<&'a [String]>,
    /// EDN text, as the history writes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    key: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ops: Option<&'a [i64]>,
}

fn json_finding(f: &Finding) -> String {
    let op = match f.at {
        i64::MIN => serde_json::json!("end"),
        op => serde_json::json!(op),
    };
    let mut v = JsonFinding {
        name: &f.name,
        op,
        cycle: None,
        txn: None,
        txns: None,
        read: None,
        detail: None,
        count: None,
        elements: None,
        key: None,
        ops: None,
    };
    match &f.what {
        About::Cycle(txns) => v.cycle = Some(txns),
        About::Read(txn) => v.txn = Some(*txn),
        About::Txns(txns) => v.txns = Some(txns),
        About::ReadValue { op, detail } => (v.read, v.detail) = (Some(*op), Some(detail.as_str())),
        About::Key { key, ops } => (v.key, v.ops) = (Some(key.as_str()), Some(ops.as_slice())),
        About::Elements { read, count, first } => {
            (v.read, v.count, v.elements) = (Some(*read), Some(*count), Some(first.as_slice()));
        }
    }
    serde_json::to_string(&v).unwrap_or_default()
}

/// The verdict as JSON, its fields in the order of the EDN map.
#[derive(serde::Serialize)]
struct JsonVerdict<'a> {
    #[serde(rename = "valid?")]
    valid: serde_json::Value,
    #[serde(rename = "anomaly-types")]
    anomaly_types: &'a BTreeSet<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<&'static str>,
    /// A checker's stream's workload (`null`: never learned).
    #[serde(skip_serializing_if = "Option::is_none")]
    workload: Option<Option<&'static str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'static str>,
    #[serde(rename = "unknown-reason", skip_serializing_if = "Option::is_none")]
    unknown_reason: Option<&'a str>,
    #[serde(rename = "unknown-op", skip_serializing_if = "Option::is_none")]
    unknown_op: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    transactions: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    retired: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ops: Option<u64>,
}

/// Why the answer is unknown.
struct Why {
    /// Its keyword: `retired`, or the limit's.
    reason: &'static str,
    /// In a sentence.
    text: String,
    /// The op it was found at.
    op: i64,
}

/// How much the stream took.
enum Counts {
    /// The whole history: transactions, and those retired.
    Txns { txns: u64, retired: u64 },
    /// Stopped by a limit: the ops read.
    Ops(u64),
    /// A checker's whole history: its ops.
    Streamed(u64),
}

/// What the stream says.
struct Verdict {
    names: BTreeSet<String>,
    unknown: Option<Why>,
    counts: Counts,
    /// A checker's stream (no model): its workload, once learned.
    checker: Option<Option<Workload>>,
}

impl Verdict {
    /// A finding is certain; without one, an unknown reason leaves the
    /// answer unknown.
    fn validity(&self) -> Validity {
        match (self.names.is_empty(), &self.unknown) {
            (false, _) => Validity::False,
            (true, Some(_)) => Validity::Unknown,
            (true, None) => Validity::True,
        }
    }

    fn render(&self, plan: &Plan) -> String {
        match plan.format {
            CheckFormat::Human => self.human(plan.model),
            CheckFormat::Edn => self.edn(plan.model),
            CheckFormat::Json => self.json(plan.model),
        }
    }

    fn human(&self, model: Model) -> String {
        let names: Vec<&str> = self.names.iter().map(String::as_str).collect();
        let names = names.join(", ");
        let model = model_name(model);
        let mut text = match (self.checker, self.validity()) {
            (None, Validity::True) => format!("valid: no anomaly prohibited by {model}"),
            (None, Validity::False) => format!("invalid: {names}\n  not: {model}"),
            (None, Validity::Unknown) => format!("unknown: nothing found against {model}, but"),
            (Some(w), validity) => {
                let checker = w.map_or("counter, set or bank", Workload::name);
                match validity {
                    Validity::True => format!("valid: the {checker} checker found nothing wrong"),
                    Validity::False => format!("invalid: {names}\n  checker: {checker}"),
                    Validity::Unknown => {
                        format!("unknown: the {checker} checker found nothing wrong, but")
                    }
                }
            }
        };
        if let Some(why) = &self.unknown {
            let at = match why.op {
                i64::MIN => String::new(),
                op => format!(" (op {op})"),
            };
            text += &format!("\n  {}: {}{at}", why.reason, why.text);
        }
        text += &match self.counts {
            Counts::Txns { txns, retired } => {
                format!("\n  {txns} transactions streamed, {retired} retired")
            }
            Counts::Ops(ops) => format!("\n  {ops} ops read before the limit"),
            Counts::Streamed(ops) => format!("\n  {ops} ops streamed"),
        };
        text
    }

    fn edn(&self, model: Model) -> String {
        let valid = match self.validity() {
            Validity::True => "true",
            Validity::False => "false",
            Validity::Unknown => ":unknown",
        };
        let names: Vec<String> = self.names.iter().map(|n| format!(":{n}")).collect();
        let mut fields = vec![
            format!(":valid? {valid}"),
            format!(":anomaly-types [{}]", names.join(" ")),
            match self.checker {
                None => format!(":model :{}", model_name(model)),
                Some(w) => format!(
                    ":workload {}",
                    w.map_or("nil".into(), |w| format!(":{}", w.name()))
                ),
            },
        ];
        if let Some(why) = &self.unknown {
            let text = serde_json::json!(why.text);
            fields.push(format!(":reason :{}, :unknown-reason {text}", why.reason));
            if why.op != i64::MIN {
                fields.push(format!(":unknown-op {}", why.op));
            }
        }
        fields.push(match self.counts {
            Counts::Txns { txns, retired } => format!(":transactions {txns}, :retired {retired}"),
            Counts::Ops(ops) | Counts::Streamed(ops) => format!(":ops {ops}"),
        });
        format!("{{{}}}", fields.join(", "))
    }

    fn json(&self, model: Model) -> String {
        let valid = match self.validity() {
            Validity::True => serde_json::json!(true),
            Validity::False => serde_json::json!(false),
            Validity::Unknown => serde_json::json!("unknown"),
        };
        let why = self.unknown.as_ref();
        let (txns, retired, ops) = match self.counts {
            Counts::Txns { txns, retired } => (Some(txns), Some(retired), None),
            Counts::Ops(ops) | Counts::Streamed(ops) => (None, None, Some(ops)),
        };
        let v = JsonVerdict {
            valid,
            anomaly_types: &self.names,
            model: self.checker.is_none().then(|| model_name(model)),
            workload: self.checker.map(|w| w.map(Workload::name)),
            reason: why.map(|w| w.reason),
            unknown_reason: why.map(|w| w.text.as_str()),
            unknown_op: why.map(|w| w.op).filter(|&op| op != i64::MIN),
            transactions: txns,
            retired,
            ops,
        };
        serde_json::to_string(&v).unwrap_or_default()
    }
}

/// The name the stream's models go by in `check`'s help.
fn model_name(model: Model) -> &'static str {
    match model {
        Model::StrictSerializable => "strict-serializable",
        Model::StrongSessionSerializable => "strong-session-serializable",
        _ => "serializable",
    }
}

/// `run --online`: the stream over a history a run is recording, on a
/// thread of its own, its findings printed for people on stderr as they
/// come.
pub struct Online {
    done: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<OnlineEnd>>,
}

/// What `run --online`'s stream said at the end.
#[derive(Default)]
pub struct OnlineEnd {
    /// Its last lines, for people.
    pub text: String,
    /// When its window retired transactions (so that the run's check of
    /// the whole history would need the memory the stream did without):
    /// the verdict, its EDN result map and how many were retired.
    pub retired: Option<(Validity, String, u64)>,
}

/// The model `run --online` streams for: the first of the run's `models`
/// the stream decides.
pub fn online_model(models: &[String]) -> Option<Model> {
    (models.iter())
        .filter_map(|m| Model::parse(m))
        .find(|m| MODELS.contains(m))
}

impl Online {
    /// Follows `history`, being written, against `model`.
    pub fn start(history: PathBuf, model: Model) -> Online {
        let done = Arc::new(AtomicBool::new(false));
        let plan = Plan {
            file: history,
            model,
            options: options(model, DEFAULT_WINDOW),
            format: CheckFormat::Human,
            follow: Some(Duration::MAX),
            prefix: "online: ",
            hold: 0,
            workload: None,
            jepsen: JepsenOptions::default(),
            stamped: false,
        };
        let thread = {
            let done = Arc::clone(&done);
            std::thread::Builder::new()
                .name("isocheck-online".into())
                .spawn(move || {
                    let mut streamed = Streamed::new(&plan);
                    let verdict = streamed.read(&plan, &done).and_then(|()| streamed.finish());
                    let verdict = match verdict {
                        Ok(verdict) => verdict,
                        Err(Halt::Input(text)) => {
                            return OnlineEnd {
                                text,
                                retired: None,
                            }
                        }
                        Err(Halt::Write(_)) => return OnlineEnd::default(),
                    };
                    // An rw-register's versions need the whole history.
                    let open = (verdict.unknown.as_ref()).is_some_and(|w| w.reason == VERSIONS);
                    let retired = match verdict.counts {
                        Counts::Txns { retired, .. } if retired > 0 && !open => {
                            Some((verdict.validity(), verdict.edn(plan.model), retired))
                        }
                        _ => None,
                    };
                    OnlineEnd {
                        text: format!("{}{}\n", plan.prefix, verdict.render(&plan)),
                        retired,
                    }
                })
        };
        if let Err(e) = &thread {
            output::say(format_args!("warning: the online check did not start: {e}"));
        }
        Online {
            done,
            thread: thread.ok(),
        }
    }

    /// The history is complete: what is left of it is read, and the
    /// stream's verdict returned.
    pub fn finish(mut self) -> OnlineEnd {
        self.done.store(true, Ordering::SeqCst);
        let thread = self.thread.take();
        thread.and_then(|t| t.join().ok()).unwrap_or_default()
    }
}

impl Drop for Online {
    /// A run that failed leaves the thread to end with the process.
    fn drop(&mut self) {
        self.done.store(true, Ordering::SeqCst);
    }
}

/// Set by Ctrl-C or SIGTERM under `--follow`.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Ctrl-C and SIGTERM say the followed history is complete: what is there
/// is read and the verdict given. A second Ctrl-C exits at once, as a
/// shell reports SIGINT.
fn interrupt_ends(done: &Arc<AtomicBool>) {
    let done = Arc::clone(done);
    let _ = ctrlc::set_handler(move || {
        if INTERRUPTED.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
        done.store(true, Ordering::SeqCst);
    });
    on_sigterm();
}

#[cfg(unix)]
fn on_sigterm() {
    extern "C" fn terminated(_: libc::c_int) {
        INTERRUPTED.store(true, Ordering::SeqCst);
    }
    // SAFETY: the handler only stores to an atomic, which is
    // async-signal-safe; the watcher thread reads it.
    unsafe {
        libc::signal(libc::SIGTERM, terminated as *const () as libc::sighandler_t);
    }
}

#[cfg(not(unix))]
fn on_sigterm() {}

/// How often the watcher looks at the file.
const WATCH_EVERY: Duration = Duration::from_millis(100);

/// Sets `done` once the file at `path` has not grown for `idle` (or
/// SIGTERM came), on a thread of its own; stops when `done` is set.
fn watch(path: PathBuf, idle: Duration, done: Arc<AtomicBool>) {
    let spawned = std::thread::Builder::new()
        .name("isocheck-follow".into())
        .spawn(move || {
            let mut size = file_size(&path);
            let mut since = Instant::now();
            while !done.load(Ordering::SeqCst) {
                std::thread::sleep(WATCH_EVERY);
                let now = file_size(&path);
                if now != size {
                    (size, since) = (now, Instant::now());
                }
                if since.elapsed() >= idle || INTERRUPTED.load(Ordering::SeqCst) {
                    done.store(true, Ordering::SeqCst);
                }
            }
        });
    // Without the watcher, only Ctrl-C ends the following.
    if let Err(e) = spawned {
        output::say(format_args!("warning: --idle is not watched: {e}"));
    }
}

/// The file's size (0 when it cannot be read: a growing file that is
/// replaced counts as grown).
fn file_size(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

#[cfg(test)]
mod tests {
    use super::one_line;

    #[test]
    fn one_line_keeps_what_strings_hold() {
        let pretty = "{\n  \"a b\": [1, 2],\n  \"c\": \"x \\\" y\\\\\",\n  \"d\": \"\\\\\"\n}";
        let line = one_line(pretty);
        assert_eq!(line, r#"{"a b":[1,2],"c":"x \" y\\","d":"\\"}"#);
        let back: serde_json::Value = serde_json::from_str(&line).expect("JSON");
        let orig: serde_json::Value = serde_json::from_str(pretty).expect("JSON");
        assert_eq!(back, orig);
    }
}
