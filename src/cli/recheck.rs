//! `isocheck recheck`: every run of a Jepsen store checked again, in
//! parallel, beside the verdict the run recorded.
//!
//! Each history is checked in a child process (this binary again, with the
//! hidden `recheck-history` subcommand), so that one that aborts or runs out
//! of memory becomes a row with a note instead of the loss of the table; the
//! human table prints each row as it finishes. The child gets its run's
//! options as one JSON argument ([`ChildOptions`]), never as comma-separated
//! flags, which would split a bank account named `"a,b"` in two.

mod reason;

use super::check::{option_help, JepsenArgs, ModelArgs};
use super::progress::{suspended, Progress, Status};
use super::{output, OutputFormat, EXIT_INPUT};
use isocheck::history::LoadOptions;
use isocheck::limits;
use isocheck::report::html::{self, TableRow};
use isocheck::store::{self, Agreement, Recorded, Run, RunOptions, TestFile};
use isocheck::{CheckOptions, Validity};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

/// Solving time per history when `--timeout` is not given: a store can hold
/// a history the solver cannot settle quickly, and the table should still come.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// `recheck --timeout`'s help, which says the default ([`DEFAULT_TIMEOUT`]).
const TIMEOUT_HELP: &str = "Give up on a history after this many seconds, counted from the \
     first byte read to the verdict (its row is then `unknown`, `undecided` beside the recorded \
     verdict); fractions allowed. Default: 60 s per history";

#[derive(clap::Args, Debug)]
#[command(mut_arg("timeout", |a| a.help(TIMEOUT_HELP)))]
pub struct RecheckArgs {
    /// A Jepsen store directory (or any directory holding `**/history.edn`).
    pub store: PathBuf,
    /// Options for runs whose test map does not record them (a run's
    /// recorded `:consistency-models`, `:anomalies` and `:*-keys?` win;
    /// the test map is read from `test.edn`, else `test.jepsen`, else
    /// `test.fressian`). Without `--timeout`, solving stops after 60 s per
    /// history.
    #[command(flatten)]
    pub model: ModelArgs,
    /// Histories checked at once (default: every core).
    #[arg(long, short = 'j', value_parser = clap::value_parser!(u64).range(1..))]
    pub jobs: Option<u64>,
    #[arg(long, value_enum, default_value = "human")]
    pub format: OutputFormat,
    /// Also write the table as an HTML page to this file, each run linking
    /// to its own report, written in `<FILE without .html>-runs/`.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    // Last: the heading it opens holds only its own options.
    #[command(flatten)]
    pub jepsen: JepsenArgs,
}

/// `isocheck recheck-history`: the check of one history for `recheck`, in a
/// process of its own. Prints one JSON object: the workload and our verdict,
/// or the error that stopped the check.
#[derive(clap::Args, Debug)]
pub struct HistoryArgs {
    pub file: PathBuf,
    #[command(flatten)]
    pub input: super::InputArgs,
    /// Options for a check started by hand; `recheck` gives `--options`.
    #[command(flatten)]
    pub model: ModelArgs,
    /// The options of the check as JSON (what `recheck` passes): they take
    /// the place of the model flags, `--max-memory` aside.
    #[arg(long, value_name = "JSON")]
    pub options: Option<String>,
    /// Also write the run's HTML report to this file.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// The file the options came from, named in an error they cause.
    #[arg(long, value_name = "FILE", hide = true)]
    pub recorded_in: Option<String>,
    /// The run recorded `:transaction-order :timestamps`: check with the
    /// commit order the ops carry, as `check --transaction-order
    /// timestamps`.
    #[arg(long, hide = true)]
    pub commit_timestamps: bool,
    // Last: the heading it opens holds only its own options.
    #[command(flatten)]
    pub jepsen: JepsenArgs,
}

/// Our verdict on one run.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Ours {
    pub valid: Validity,
    pub anomaly_types: Vec<String>,
    pub not: Vec<String>,
}

/// One line of the table.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Row {
    pub run: String,
    pub workload: String,
    pub consistency_models: Vec<String>,
    /// The file the run's options came from (`test.edn`, `test.jepsen`,
    /// `test.fressian`), or `flags` (the command line's).
    pub options_from: String,
    /// Test files that could not be read (a note says why): the options
    /// came from the next one, or the flags.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub options_unreadable: Vec<String>,
    /// The test's `:name` and `:start-time`, when its test map has them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub test_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_time: Option<String>,
    pub recorded: Option<Recorded>,
    pub ours: Option<Ours>,
    pub agreement: Agreement,
    /// Why our verdict differs from the recorded one, when it does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub seconds: f64,
    /// Why something could not be read or checked.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The run's HTML report (`--html`), from the table's page.
    #[serde(skip)]
    pub report: Option<String>,
}

pub fn run(a: &RecheckArgs) -> ExitCode {
    if let Err(msg) = a.model.validate() {
        output::say(format_args!("error: {msg}"));
        return ExitCode::from(EXIT_INPUT);
    }
    let base = a.model.with_jepsen(&a.jepsen);
    if let Err(e) = isocheck::anomaly_types(&base) {
        output::say(format_args!("error: {e}\n  help: {}", option_help(&e)));
        return ExitCode::from(EXIT_INPUT);
    }
    let store = match store::walk_store(&a.store) {
        Ok(store) if !store.runs.is_empty() || !store.unreadable.is_empty() => store,
        Ok(_) => {
            output::say(format_args!(
                "error: no history.edn under {}\n  help: give a Jepsen store directory (e.g. `store/`)",
                a.store.display()
            ));
            return ExitCode::from(EXIT_INPUT);
        }
        Err(e) => {
            output::say(format_args!(
                "error: cannot read {}: {e}",
                a.store.display()
            ));
            return ExitCode::from(EXIT_INPUT);
        }
    };
    let jobs = a.jobs.map_or_else(isocheck::limits::cores, |j| {
        usize::try_from(j).unwrap_or(usize::MAX)
    });
    let human = a.format == OutputFormat::Human;
    let table = Table::new(&store.runs);
    if human {
        table.header();
    }
    let mut rows: Vec<Row> = store.unreadable.iter().map(unreadable_row).collect();
    for row in &rows {
        table.line(row, human);
    }
    // The children take the budget the user gave (by default, each its own
    // share of what is available when it starts).
    let child_flags: Vec<String> = a
        .model
        .max_memory
        .iter()
        .map(|m| format!("--max-memory={m}"))
        .collect();
    let pages = a.html.as_deref().map(Pages::beside);
    if let Some(Err(code)) = pages.as_ref().map(Pages::create) {
        return code;
    }
    let children = Children {
        base: &base,
        flags: &child_flags,
        pages: pages.as_ref(),
    };
    rows.extend(check_all(&store.runs, &children, jobs.max(1), |row| {
        table.line(row, human);
        // A reader that closed the table's pipe (`recheck | head`) wants
        // no more rows: the runs left are not checked.
        table.failed.get().is_none()
    }));
    let text = match a.format {
        // Notes quote histories and stores: their control characters escaped.
        OutputFormat::Human => {
            isocheck::report::excerpt::escape(&notes_and_summary(&rows)).into_owned()
        }
        OutputFormat::Json => super::check::json_line(&rows),
    };
    if let Some(code) = table.failed.get() {
        return code;
    }
    if let Some(file) = &a.html {
        let page = table_page(&a.store, &rows);
        if let Err(code) = output::to_file(file, |w| w.write_all(page.as_bytes())) {
            return code;
        }
    }
    output::status(output::to_stdout(&text), exit_status(&rows))
}

/// `isocheck recheck-history`: our verdict on one history as JSON on stdout.
pub fn run_history(a: &HistoryArgs) -> ExitCode {
    let mut workload = None;
    let opts = match a.options.as_deref() {
        Some(json) => ChildOptions::parse(json),
        None => Ok(a.model.with_jepsen(&a.jepsen)),
    };
    let result = opts.and_then(|opts| {
        a.model.arm_memory(isocheck::report::stop::Format::Json);
        // Also with --certain-only, which takes no --timeout.
        let timeout = opts.solve.timeout.or(Some(DEFAULT_TIMEOUT));
        let load = a.input.load_options();
        let html = a.html.as_deref();
        let from = a.recorded_in.as_deref();
        let source = HistoryFile {
            file: &a.file,
            load: &load,
            commit_timestamps: a.commit_timestamps,
        };
        limits::run(timeout, || {
            verdict(&source, &opts, (html, from), &mut workload)
        })
        .unwrap_or_else(|stop| Ok(stopped(&stop)))
    });
    let out = match result {
        Ok(ours) => serde_json::json!({ "workload": workload, "ours": ours }),
        Err(error) => serde_json::json!({ "workload": workload, "error": error }),
    };
    output::status(output::to_stdout(&format!("{out}\n")), ExitCode::SUCCESS)
}

/// A row for a path below the store root that could not be read.
fn unreadable_row(u: &store::Unreadable) -> Row {
    Row {
        run: u.name.display().to_string(),
        workload: "-".into(),
        consistency_models: Vec::new(),
        options_from: "-".into(),
        options_unreadable: Vec::new(),
        test_name: None,
        start_time: None,
        recorded: None,
        ours: None,
        agreement: Agreement::NotCompared,
        reason: None,
        seconds: 0.0,
        report: None,
        notes: vec![format!("cannot read this directory: {}", u.error)],
    }
}

/// 1 when any run disagrees (on `:valid?` or the anomaly types), 2 when
/// some comparison is undecided, 3 when a run could not be checked, else 0.
fn exit_status(rows: &[Row]) -> ExitCode {
    let any = |a: Agreement| rows.iter().any(|r| r.agreement == a);
    ExitCode::from(if any(Agreement::No) || any(Agreement::TypesDiffer) {
        1
    } else if any(Agreement::Undecided) {
        2
    } else if rows.iter().any(|r| r.ours.is_none()) {
        EXIT_INPUT
    } else {
        0
    })
}

/// Checks the runs on `jobs` threads, each history in a child process;
/// `finished` sees each row as it comes, and the rows come back in `runs`
/// order. When `finished` says to go no further, the checks under way are
/// ended and no other starts: the rows so far come back.
/// What every child check is given: the options of runs that record none,
/// the flags passed on, and where the runs' reports go.
struct Children<'a> {
    base: &'a CheckOptions,
    flags: &'a [String],
    pages: Option<&'a Pages>,
}

/// The runs' HTML reports: `<i>.html` in a directory beside the table's
/// page, `<page without .html>-runs/`.
struct Pages {
    dir: PathBuf,
    /// The directory's name, as the table's links start.
    name: String,
}

impl Pages {
    fn beside(page: &Path) -> Pages {
        let stem = page
            .file_stem()
            .map_or("recheck".into(), |s| s.to_string_lossy());
        let name = format!("{stem}-runs");
        Pages {
            dir: page.with_file_name(&name),
            name,
        }
    }

    /// Creates the directory, without the pages an earlier recheck left
    /// there (`<i>.html`; other files stay).
    fn create(&self) -> Result<(), ExitCode> {
        let failed = |e: std::io::Error| output::file_failed(&e, &self.dir);
        std::fs::create_dir_all(&self.dir).map_err(failed)?;
        for entry in std::fs::read_dir(&self.dir).map_err(failed)? {
            let path = entry.map_err(failed)?.path();
            let stem = path.file_stem().map(|s| s.to_string_lossy());
            let numbered =
                stem.is_some_and(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()));
            if numbered && path.extension().is_some_and(|e| e == "html") && path.is_file() {
                std::fs::remove_file(&path).map_err(failed)?;
            }
        }
        Ok(())
    }

    fn file(&self, i: usize) -> PathBuf {
        self.dir.join(format!("{i}.html"))
    }

    /// The run's report from the table's page: relative and encoded, as
    /// every link of a page (the name comes from `--html`).
    fn link(&self, i: usize) -> String {
        html::link(&Path::new(&self.name).join(format!("{i}.html")))
    }
}

fn check_all(
    runs: &[Run],
    children: &Children,
    jobs: usize,
    mut finished: impl FnMut(&Row) -> bool,
) -> Vec<Row> {
    let next = AtomicUsize::new(0);
    let stop = &AtomicBool::new(false);
    let (send, receive) = mpsc::channel();
    let mut rows: Vec<Option<Row>> = vec![None; runs.len()];
    let (total, mut done) = (runs.len(), 0);
    let status = Arc::new(Mutex::new(rechecked(0, total, "")));
    let progress = {
        let status = Arc::clone(&status);
        Progress::start(move || lock(&status).clone())
    };
    let exe =
        std::env::current_exe().map_err(|e| format!("cannot find isocheck's own binary: {e}"));
    let exe = exe.as_ref();
    std::thread::scope(|s| {
        for _ in 0..jobs.min(runs.len()) {
            let send = send.clone();
            let next = &next;
            s.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(run) = runs.get(i).filter(|_| !stop.load(Ordering::Relaxed)) else {
                    break;
                };
                let row = check_run(run, i, children, exe, stop);
                if send.send((i, row)).is_err() {
                    break;
                }
            });
        }
        drop(send);
        for (i, row) in receive {
            done += 1;
            *lock(&status) = rechecked(done, total, &row.run);
            // The row's line goes out under the bar, not through it.
            if !suspended(|| finished(&row)) {
                stop.store(true, Ordering::Relaxed);
                break;
            }
            rows[i] = Some(row);
        }
    });
    progress.finish();
    rows.into_iter().flatten().collect()
}

/// A recheck's progress: `done` of `total` histories, the last one `run`.
fn rechecked(done: usize, total: usize, run: &str) -> Status {
    Status::new("rechecking")
        .counting(done as u64, Some(total as u64), "histories")
        .noting(run)
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn check_run(
    run: &Run,
    i: usize,
    children: &Children,
    exe: Result<&PathBuf, &String>,
    stop: &AtomicBool,
) -> Row {
    let start = Instant::now();
    let mut notes = Vec::new();
    let source = run_options(run, &mut notes);
    let options = source.options;
    // A run of one of Jepsen's standard checkers is checked as its
    // workload, and compared with that checker's recorded result.
    let checker = options.checker_workload();
    let recorded = run.results.as_deref().and_then(|p| {
        let parsed = match checker {
            Some(w) => read_with(p, |t| store::recorded_checker_verdict(t, w)),
            None => read_with(p, store::recorded_verdict),
        };
        parsed.map_err(|e| notes.push(e)).ok()
    });
    let opts = options.apply(children.base);
    // The workload the child finds in the history.
    let mut detected = None;
    let page = children.pages.map(|p| p.file(i));
    let mut flags: Vec<OsString> = checker
        .map(|w| format!("--workload={}", w.name()).into())
        .into_iter()
        .collect();
    flags.extend(children.flags.iter().map(OsString::from));
    flags.extend(
        source
            .from
            .map(|f| OsString::from(format!("--recorded-in={}", f.name()))),
    );
    if options.commit_timestamps {
        flags.push("--commit-timestamps".into());
    }
    let check = |opts: &CheckOptions, flags: &[OsString], workload: &mut Option<String>| {
        let exe = exe.map_err(String::clone)?;
        let child = Child { exe, flags, stop };
        isolated_verdict(&child, &run.history, opts, workload)
    };
    // The path as it is, not as displayed: `display` would replace bytes
    // that are not UTF-8, and the child would write another file.
    let mut with_page = flags.clone();
    with_page.extend(page.iter().map(|p| {
        let mut flag = OsString::from("--html=");
        flag.push(p);
        flag
    }));
    let ours = check(&opts, &with_page, &mut detected)
        .map_err(|e| notes.push(e))
        .ok();
    let agreement = Agreement::of(
        recorded
            .as_ref()
            .map(|r| (r.valid, r.anomaly_types.as_slice())),
        ours.as_ref().map(|o| (o.valid, o.anomaly_types.as_slice())),
    );
    // The checks again for the reason write no page: the run's stays.
    let reason = recorded.as_ref().zip(ours.as_ref()).and_then(|(r, o)| {
        let case = reason::Case {
            recorded: r,
            ours: o,
            opts: &opts,
            models_recorded: options.consistency_models.is_some(),
            transactional: checker.is_none()
                && matches!(detected.as_deref(), Some("list-append" | "rw-register")),
        };
        reason::reason(&case, agreement, |again| {
            check(again, &flags, &mut None).ok()
        })
    });
    // A check that died or was stopped wrote no report.
    let report = children
        .pages
        .filter(|p| p.file(i).is_file())
        .map(|p| p.link(i));
    Row {
        run: run.name.display().to_string(),
        workload: options.workload.or(detected).unwrap_or_else(|| "-".into()),
        consistency_models: opts
            .consistency_models
            .clone()
            .unwrap_or_else(|| vec!["strict-serializable".into()]),
        agreement,
        reason,
        options_from: source.from.map_or("flags", TestFile::name).into(),
        options_unreadable: source.unreadable.iter().map(|f| f.name().into()).collect(),
        test_name: options.name.clone(),
        start_time: options.start_time.clone(),
        recorded,
        ours,
        seconds: start.elapsed().as_secs_f64(),
        notes,
        report,
    }
}

/// Where a run's options came from.
struct Source {
    options: RunOptions,
    /// The file they came from; `None` for the command line's.
    from: Option<TestFile>,
    /// Files tried before it that could not be read.
    unreadable: Vec<TestFile>,
}

/// The options of the first of the run's test files that can be read
/// (`test.edn`, `test.jepsen`, `test.fressian`); each one that cannot is
/// a note naming it and where it is damaged, and the next is tried. None
/// left: the command line's options, and the row says so.
fn run_options(run: &Run, notes: &mut Vec<String>) -> Source {
    let mut unreadable = Vec::new();
    let mut errors = Vec::new();
    let mut found = None;
    for (kind, path) in &run.tests {
        match store::read_options(*kind, path) {
            Ok(options) => {
                found = Some((*kind, options));
                break;
            }
            Err(e) => {
                unreadable.push(*kind);
                errors.push(e);
            }
        }
    }
    let instead = found
        .as_ref()
        .map_or("the command line's options".into(), |(k, _)| {
            format!("the options of {}", k.name())
        });
    notes.extend(errors.into_iter().map(|e| format!("{e}; using {instead}")));
    let (from, options) = match found {
        Some((kind, options)) => (Some(kind), options),
        None => (None, RunOptions::default()),
    };
    Source {
        options,
        from,
        unreadable,
    }
}

/// [`verdict`] in a child process (`exe recheck-history`); a child that
/// dies (an abort, running out of memory, a signal) is an error naming how.
fn isolated_verdict(
    child: &Child,
    history: &Path,
    opts: &CheckOptions,
    workload: &mut Option<String>,
) -> Result<Ours, String> {
    let mut command = Command::new(child.exe);
    command
        .arg("recheck-history")
        .arg(format!("--options={}", ChildOptions::json(opts)))
        .args(child.flags)
        .arg("--")
        .arg(history);
    let out = output_unless(&mut command, child.stop)
        .map_err(|e| format!("cannot start a check: {e}"))?
        .ok_or("not checked: the table's reader had gone")?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        // A child whose memory ran out before it could answer as usual
        // still says so, as a stop answer (exit status 2).
        return stop_answer(&text).ok_or_else(|| died(out.status, &out.stderr));
    }
    let reply: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| format!("the check's answer is not JSON ({e}): {text}"))?;
    if workload.is_none() {
        *workload = reply["workload"].as_str().map(String::from);
    }
    if let Some(error) = reply["error"].as_str() {
        return Err(error.to_string());
    }
    ours_of(&reply["ours"]).ok_or_else(|| format!("the check's answer lacks a verdict: {text}"))
}

/// How one child check is run: the binary, the flags for it, and the
/// flag that ends it early.
struct Child<'a> {
    exe: &'a Path,
    flags: &'a [OsString],
    stop: &'a AtomicBool,
}

/// How often, at the least, a waiting thread looks at the stop flag.
const STOP_POLL: Duration = Duration::from_millis(10);

/// `command`'s output, as `Command::output` gives it, unless `stop` is set
/// before it ends: then it is killed and `None`.
fn output_unless(
    command: &mut Command,
    stop: &AtomicBool,
) -> std::io::Result<Option<std::process::Output>> {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let (stdout, stderr) = (child.stdout.take(), child.stderr.take());
    std::thread::scope(|s| {
        let read = |pipe: Option<Box<dyn std::io::Read + Send>>| {
            s.spawn(move || {
                let mut bytes = Vec::new();
                if let Some(mut pipe) = pipe {
                    let _ = pipe.read_to_end(&mut bytes);
                }
                bytes
            })
        };
        let stdout = read(stdout.map(|p| Box::new(p) as _));
        let stderr = read(stderr.map(|p| Box::new(p) as _));
        // Short waits first: most checks of a store take milliseconds.
        let mut wait = Duration::from_millis(1);
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break Ok(Some(status)),
                Ok(None) if !stop.load(Ordering::Relaxed) => {}
                ended => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break ended.map(|_| None);
                }
            }
            std::thread::sleep(wait);
            wait = (wait * 2).min(STOP_POLL);
        };
        let (stdout, stderr) = (stdout.join(), stderr.join());
        Ok(status?.map(|status| std::process::Output {
            status,
            stdout: stdout.unwrap_or_default(),
            stderr: stderr.unwrap_or_default(),
        }))
    })
}

/// The verdict in a child's stop answer (`report::stop`'s JSON map: unknown,
/// with the reason and the stage), written when even the reserve of memory
/// was gone.
fn stop_answer(text: &str) -> Option<Ours> {
    let v: serde_json::Value = serde_json::from_str(text).ok()?;
    (v["valid?"].as_str()? == "unknown").then_some(())?;
    let (reason, stage) = (v["reason"].as_str()?, v["stage"].as_str()?);
    Some(Ours {
        valid: Validity::Unknown,
        anomaly_types: vec![format!("{reason} ({stage})")],
        not: Vec::new(),
    })
}

/// How a child check ended without an answer, with what it said on stderr
/// (e.g. Rust's `memory allocation of N bytes failed`, or a panic's place
/// and message), its `note:` and backtrace lines left out.
fn died(status: std::process::ExitStatus, stderr: &[u8]) -> String {
    #[cfg(unix)]
    let how = match std::os::unix::process::ExitStatusExt::signal(&status) {
        Some(6) => "aborted (SIGABRT)".to_string(),
        Some(9) => "was killed (SIGKILL, e.g. out of memory)".to_string(),
        Some(n) => format!("was killed by signal {n}"),
        None => format!("ended without an answer ({status})"),
    };
    #[cfg(not(unix))]
    let how = format!("ended without an answer ({status})");
    let stderr = String::from_utf8_lossy(stderr);
    let said: Vec<&str> = stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("note:"))
        .take_while(|l| !l.starts_with("stack backtrace:"))
        .take(2)
        .collect();
    match said.as_slice() {
        [] => format!("the check of this history {how}"),
        lines => format!("the check of this history {how}: {}", lines.join(" ")),
    }
}

fn ours_of(v: &serde_json::Value) -> Option<Ours> {
    let valid = match &v["valid"] {
        serde_json::Value::Bool(true) => Validity::True,
        serde_json::Value::Bool(false) => Validity::False,
        serde_json::Value::String(s) if s == "unknown" => Validity::Unknown,
        _ => return None,
    };
    let names = |key: &str| -> Option<Vec<String>> {
        v[key]
            .as_array()?
            .iter()
            .map(|x| x.as_str().map(String::from))
            .collect()
    };
    Some(Ours {
        valid,
        anomaly_types: names("anomaly_types")?,
        not: names("not")?,
    })
}

/// The options a child check is given, in one JSON argument: every list
/// item whole (a bank account `"a,b"`, a model name) and every number
/// exact, where comma-separated flags would re-split the lists. These are
/// the [`CheckOptions`] a user can set.
#[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
struct ChildOptions {
    consistency_models: Option<Vec<String>>,
    anomalies: Vec<String>,
    sequential_keys: bool,
    linearizable_keys: bool,
    wfr_keys: bool,
    no_fast_path: bool,
    elle_compat: bool,
    check_timestamps: bool,
    solve: bool,
    pruning: bool,
    reduce: bool,
    timeout: Option<Duration>,
    total_amount: Option<i64>,
    accounts: Option<Vec<String>>,
    negative_balances: bool,
    group_size: Option<usize>,
    linearizable_set: bool,
}

impl ChildOptions {
    /// `opts` as the JSON of a child's `--options`.
    fn json(opts: &CheckOptions) -> String {
        let j = &opts.jepsen;
        let child = ChildOptions {
            consistency_models: opts.consistency_models.clone(),
            anomalies: opts.anomalies.clone(),
            sequential_keys: opts.infer.sequential_keys,
            linearizable_keys: opts.infer.linearizable_keys,
            wfr_keys: opts.infer.wfr_keys,
            no_fast_path: opts.no_fast_path,
            elle_compat: opts.elle_compat,
            check_timestamps: opts.check_timestamps,
            solve: opts.solve.enabled,
            pruning: opts.solve.pruning,
            reduce: opts.solve.reduce,
            timeout: opts.solve.timeout,
            total_amount: j.total_amount,
            accounts: j.accounts.clone(),
            negative_balances: j.negative_balances,
            group_size: j.group_size,
            linearizable_set: j.linearizable,
        };
        // Strings, numbers, booleans and durations: nothing that fails.
        serde_json::to_string(&child).unwrap_or_default()
    }

    /// The options a child's `--options` JSON gives.
    fn parse(text: &str) -> Result<CheckOptions, String> {
        let c: ChildOptions =
            serde_json::from_str(text).map_err(|e| format!("recheck-history --options: {e}"))?;
        Ok(CheckOptions {
            consistency_models: c.consistency_models,
            anomalies: c.anomalies,
            infer: isocheck::InferOptions {
                sequential_keys: c.sequential_keys,
                linearizable_keys: c.linearizable_keys,
                wfr_keys: c.wfr_keys,
            },
            solve: isocheck::SolveOptions {
                enabled: c.solve,
                pruning: c.pruning,
                reduce: c.reduce,
                timeout: c.timeout,
                ..isocheck::SolveOptions::default()
            },
            no_fast_path: c.no_fast_path,
            elle_compat: c.elle_compat,
            check_timestamps: c.check_timestamps,
            jepsen: isocheck::JepsenOptions {
                total_amount: c.total_amount,
                accounts: c.accounts,
                negative_balances: c.negative_balances,
                group_size: c.group_size,
                linearizable: c.linearizable_set,
            },
        })
    }
}

/// Reads a file of a run and parses it, with the file named in any error.
fn read_with<T, E: std::fmt::Display>(
    path: &Path,
    parse: impl FnOnce(&str) -> Result<T, E>,
) -> Result<T, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// A check a limit stopped: unknown, with the reason and the stage as its
/// one anomaly type.
fn stopped(stop: &limits::Stop) -> Ours {
    Ours {
        valid: Validity::Unknown,
        anomaly_types: vec![format!("{} ({})", stop.reason.name(), stop.stage.name())],
        not: Vec::new(),
    }
}

/// A history to check, and how to read it.
struct HistoryFile<'a> {
    file: &'a Path,
    load: &'a LoadOptions,
    /// With the commit order its ops carry.
    commit_timestamps: bool,
}

/// Our verdict; fills in the workload from the history when the run did
/// not name one. `html` is where its report goes, `from` the file the
/// options came from (an error they cause names it).
fn verdict(
    source: &HistoryFile,
    opts: &CheckOptions,
    (html, from): (Option<&Path>, Option<&str>),
    workload: &mut Option<String>,
) -> Result<Ours, String> {
    let mut h = isocheck::load(source.file, source.load).map_err(|d| d.to_string())?;
    if source.commit_timestamps {
        let order = isocheck::history::commit_order::OrderSource::Timestamps;
        isocheck::history::commit_order::attach(&mut h, &order).map_err(|d| d.to_string())?;
    }
    workload.get_or_insert_with(|| h.workload.name().to_string());
    let outcome = isocheck::check(&h, opts).map_err(|e| match from {
        Some(file) => format!("{e} (recorded in {file})"),
        None => e.to_string(),
    })?;
    if let Some(file) = html {
        // No page is no link in the table; the verdict stands.
        let dir = file.parent().unwrap_or(Path::new("."));
        let _ = isocheck::files::write(file, outcome.html(&h, dir));
    }
    let strings = |names: Vec<&str>| names.into_iter().map(String::from).collect();
    Ok(Ours {
        valid: outcome.validity(),
        anomaly_types: strings(outcome.anomaly_types()),
        not: strings(outcome.not()),
    })
}

/// The columns of the table for people, in order.
const COLUMNS: [&str; 8] = [
    "run", "workload", "options", "recorded", "isocheck", "agree", "time", "reason",
];

/// The table for people, printed a line at a time as rows finish: the run
/// column as wide as the longest run name, the others fixed (a longer cell
/// pushes the rest of its line along), the reason last.
struct Table {
    widths: [usize; 7],
    /// The status of the first failed write; nothing is written after it.
    failed: std::cell::Cell<Option<ExitCode>>,
}

impl Table {
    fn new(runs: &[Run]) -> Table {
        let run = runs
            .iter()
            .map(|r| r.name.display().to_string().chars().count())
            .max()
            .unwrap_or(0)
            .max(3);
        Table {
            widths: [run, 12, 13, 20, 20, 9, 8],
            failed: std::cell::Cell::new(None),
        }
    }

    fn header(&self) {
        self.print(&COLUMNS.map(String::from));
    }

    fn line(&self, row: &Row, human: bool) {
        if human {
            self.print(&cells(row));
        }
    }

    /// One line, its control characters escaped; after a failed write
    /// (a closed pipe, a full disk: said once) nothing more is written.
    fn print(&self, cells: &[String; 8]) {
        if self.failed.get().is_some() {
            return;
        }
        let mut text = String::new();
        for (i, (cell, w)) in cells.iter().zip(self.widths).enumerate() {
            // The time column is right-aligned.
            match i {
                6 => text.push_str(&format!("{cell:>w$}  ")),
                _ => text.push_str(&format!("{cell:<w$}  ")),
            }
        }
        text.push_str(&cells[7]);
        let line = isocheck::report::excerpt::escape(text.trim_end()).into_owned() + "\n";
        self.failed.set(output::to_stdout(&line).err());
    }
}

/// The table as a page: the summary and a filter on top, then a row per
/// run, linked to its report (the agreement second, so that it stays in
/// sight beside the run), then the notes.
fn table_page(store: &Path, rows: &[Row]) -> String {
    let header = [
        "run", "agree", "recorded", "isocheck", "reason", "workload", "options", "time",
    ];
    let table: Vec<TableRow> = rows
        .iter()
        .map(|r| {
            let [run, workload, options, recorded, ours, agree, time, reason] = cells(r);
            TableRow {
                cells: vec![run, agree, recorded, ours, reason, workload, options, time],
                link: r.report.clone(),
                class: match r.agreement {
                    Agreement::Yes => "agree",
                    Agreement::TypesDiffer => "types-differ",
                    Agreement::No => "disagree",
                    Agreement::Undecided => "undecided",
                    Agreement::NotCompared => "not-compared",
                },
            }
        })
        .collect();
    let title = format!("isocheck recheck {}", store.display());
    html::table(&title, &summary(rows), &header, &table, &notes(rows))
}

/// What follows the table: the notes of every row and a summary.
fn notes_and_summary(rows: &[Row]) -> String {
    notes(rows) + &summary(rows)
}

/// The notes of every row, a line each.
fn notes(rows: &[Row]) -> String {
    let mut out = String::new();
    for r in rows {
        for n in &r.notes {
            out.push_str(&format!("note: {}: {n}\n", r.run));
        }
    }
    out
}

fn cells(r: &Row) -> [String; 8] {
    let verdict = |valid: Validity, types: &[String]| match types {
        [] => valid.name().to_string(),
        [t] => format!("{} {t}", valid.name()),
        [t, rest @ ..] => format!("{} {t} +{}", valid.name(), rest.len()),
    };
    [
        r.run.clone(),
        r.workload.clone(),
        match r.options_unreadable.as_slice() {
            [] => r.options_from.clone(),
            bad => format!("{} ({} unreadable)", r.options_from, bad.join(", ")),
        },
        r.recorded
            .as_ref()
            .map_or("-".into(), |x| verdict(x.valid, &x.anomaly_types)),
        r.ours
            .as_ref()
            .map_or("error".into(), |x| verdict(x.valid, &x.anomaly_types)),
        r.agreement.name().into(),
        format!("{:.2}s", r.seconds),
        r.reason.clone().unwrap_or_default(),
    ]
}

fn summary(rows: &[Row]) -> String {
    let count = |a: Agreement| rows.iter().filter(|r| r.agreement == a).count();
    let compared = rows.len() - count(Agreement::NotCompared);
    let unrecorded = rows.iter().filter(|r| r.recorded.is_none()).count();
    let errors = rows.iter().filter(|r| r.ours.is_none()).count();
    format!(
        "{} runs, {compared} with a recorded verdict: {} agree, {} disagree, {} undecided, {} \
         with other anomaly types; {unrecorded} without a recorded verdict; {errors} not \
         checked\n",
        rows.len(),
        count(Agreement::Yes),
        count(Agreement::No),
        count(Agreement::Undecided),
        count(Agreement::TypesDiffer),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use isocheck::InferOptions;
    use isocheck::SolveOptions;

    fn round_trip(opts: &CheckOptions) -> CheckOptions {
        ChildOptions::parse(&ChildOptions::json(opts)).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A child check gets exactly the options of its run, lists whose
    /// items hold commas included (a bank account `"a,b"`, which the
    /// comma-separated `--accounts` split in two).
    #[test]
    fn child_options_give_the_options_back() {
        let cases = [
            CheckOptions::default(),
            CheckOptions {
                consistency_models: Some(vec![]),
                anomalies: vec!["G1c".into(), "internal".into()],
                infer: InferOptions {
                    sequential_keys: true,
                    linearizable_keys: true,
                    wfr_keys: true,
                },
                solve: SolveOptions {
                    enabled: true,
                    pruning: false,
                    timeout: Some(Duration::from_millis(2500)),
                    reduce: false,
                    ..SolveOptions::default()
                },
                no_fast_path: true,
                elle_compat: true,
                check_timestamps: true,
                jepsen: isocheck::JepsenOptions {
                    total_amount: Some(-5),
                    accounts: Some(vec!["0".into(), ":a".into()]),
                    negative_balances: true,
                    group_size: Some(3),
                    linearizable: true,
                },
            },
            CheckOptions {
                consistency_models: Some(vec!["snapshot-isolation".into(), "serializable".into()]),
                solve: SolveOptions {
                    enabled: false,
                    ..SolveOptions::default()
                },
                ..CheckOptions::default()
            },
            CheckOptions {
                consistency_models: Some(vec!["serializable,read-committed".into()]),
                anomalies: vec!["G1c, internal".into()],
                solve: SolveOptions {
                    timeout: Some(Duration::new(1, 123_456_789)),
                    ..SolveOptions::default()
                },
                jepsen: isocheck::JepsenOptions {
                    accounts: Some(vec!["\"a,b\"".into(), "\"c, d\"".into(), ":e".into()]),
                    ..Default::default()
                },
                ..CheckOptions::default()
            },
        ];
        for opts in &cases {
            assert_eq!(format!("{:?}", round_trip(opts)), format!("{opts:?}"));
        }
    }

    /// A child given options that are not the JSON `recheck` writes says
    /// so (as its answer's error), without a panic.
    #[test]
    fn bad_child_options_are_an_error() {
        for bad in ["", "{", "[]", "{\"anomalies\": 5}", "{\"unknown\": true}"] {
            let e = ChildOptions::parse(bad).expect_err(bad);
            assert!(e.starts_with("recheck-history --options: "), "{e}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_dead_check_is_named_with_what_it_said() {
        use std::os::unix::process::ExitStatusExt;
        let stderr = b"memory allocation of 1024 bytes failed\nnote: run with `RUST_BACKTRACE=1`\n";
        assert_eq!(
            died(std::process::ExitStatus::from_raw(6), stderr),
            "the check of this history aborted (SIGABRT): memory allocation of 1024 bytes failed"
        );
        let panic = b"\nthread 'main' panicked at src/x.rs:1:2:\nboom\nnote: run with\nstack backtrace:\n  0: x\n";
        assert_eq!(
            died(std::process::ExitStatus::from_raw(101 << 8), panic),
            "the check of this history ended without an answer (exit status: 101): \
             thread 'main' panicked at src/x.rs:1:2: boom"
        );
    }
}
