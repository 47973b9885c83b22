//! `isocheck recheck`: every run of a Jepsen store checked again, in
//! parallel, beside the verdict the run recorded.
//!
//! Each history is checked in a child process (this binary again, with the
//! hidden `recheck-history` subcommand), so that one that aborts or runs out
//! of memory becomes a row with a note instead of the loss of the table; the
//! human table prints each row as it finishes.

use super::check::{option_help, ModelArgs};
use super::{output, OutputFormat, EXIT_INPUT};
use crate::check::Validity;
use crate::check::{self, CheckOptions};
use crate::history::LoadOptions;
use crate::limits;
use crate::report::html::{self, TableRow};
use crate::report::progress::Progress;
use crate::store::{self, Agreement, Recorded, Run, RunOptions};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Solving time per history when `--timeout` is not given: a store can hold
/// a history the solver cannot settle quickly, and the table should still come.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

#[derive(clap::Args, Debug)]
pub struct RecheckArgs {
    /// A Jepsen store directory (or any directory holding `**/history.edn`).
    pub store: PathBuf,
    /// Options for runs whose `test.edn` does not record them (a run's
    /// recorded `:consistency-models`, `:anomalies` and `:*-keys?` win).
    /// Without `--timeout`, solving stops after 60 s per history.
    #[command(flatten)]
    pub model: ModelArgs,
    /// Histories checked at once (default: every core).
    #[arg(long, short = 'j')]
    pub jobs: Option<usize>,
    #[arg(long, value_enum, default_value = "human")]
    pub format: OutputFormat,
    /// Also write the table as an HTML page to this file, each run linking
    /// to its own report, written in `<FILE without .html>-runs/`.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

/// `isocheck recheck-history`: the check of one history for `recheck`, in a
/// process of its own. Prints one JSON object: the workload and our verdict,
/// or the error that stopped the check.
#[derive(clap::Args, Debug)]
pub struct HistoryArgs {
    pub file: PathBuf,
    #[command(flatten)]
    pub input: super::InputArgs,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Also write the run's HTML report to this file.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
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
    pub recorded: Option<Recorded>,
    pub ours: Option<Ours>,
    pub agreement: Agreement,
    pub seconds: f64,
    /// Why something could not be read or checked.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The run's HTML report (`--html`), from the table's page.
    #[serde(skip)]
    pub report: Option<String>,
}

pub fn run(a: &RecheckArgs) -> ExitCode {
    let base = a.model.options();
    if let Err(e) = check::anomaly_types(&base) {
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
    let jobs = a.jobs.unwrap_or_else(crate::limits::cores);
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
        table.line(row, human)
    }));
    let text = match a.format {
        // Notes quote histories and stores: their control characters escaped.
        OutputFormat::Human => {
            crate::report::excerpt::escape(&notes_and_summary(&rows)).into_owned()
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
    let opts = a.model.options();
    a.model.arm_memory(crate::report::stop::Format::Json);
    // Also with --certain-only, which takes no --timeout.
    let timeout = opts.solve.timeout.or(Some(DEFAULT_TIMEOUT));
    let load = a.input.load_options();
    let html = a.html.as_deref();
    let result = limits::run(timeout, || {
        verdict(&a.file, &load, &opts, html, &mut workload)
    })
    .unwrap_or_else(|stop| Ok(stopped(&stop)));
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
        recorded: None,
        ours: None,
        agreement: Agreement::NotCompared,
        seconds: 0.0,
        report: None,
        notes: vec![format!("cannot read this directory: {}", u.error)],
    }
}

/// 1 when any run disagrees, 2 when some comparison is undecided, 3 when a
/// run could not be checked, else 0.
fn exit_status(rows: &[Row]) -> ExitCode {
    let any = |a: Agreement| rows.iter().any(|r| r.agreement == a);
    ExitCode::from(if any(Agreement::No) {
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
/// order.
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

    fn link(&self, i: usize) -> String {
        format!("{}/{i}.html", self.name)
    }
}

fn check_all(
    runs: &[Run],
    children: &Children,
    jobs: usize,
    mut finished: impl FnMut(&Row),
) -> Vec<Row> {
    let next = AtomicUsize::new(0);
    let (send, receive) = mpsc::channel();
    let mut rows: Vec<Option<Row>> = vec![None; runs.len()];
    let progress = Progress::on_terminal();
    let (total, mut done) = (runs.len(), 0);
    let width = total.to_string().len();
    let exe =
        std::env::current_exe().map_err(|e| format!("cannot find isocheck's own binary: {e}"));
    let exe = exe.as_ref();
    std::thread::scope(|s| {
        for _ in 0..jobs.min(runs.len()) {
            let send = send.clone();
            let next = &next;
            s.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(run) = runs.get(i) else { break };
                if send.send((i, check_run(run, i, children, exe))).is_err() {
                    break;
                }
            });
        }
        drop(send);
        for (i, row) in receive {
            done += 1;
            progress.done();
            finished(&row);
            progress.phase(&format!("[{done:>width$}/{total}] {}", row.run));
            rows[i] = Some(row);
        }
    });
    progress.done();
    rows.into_iter().flatten().collect()
}

fn check_run(run: &Run, i: usize, children: &Children, exe: Result<&PathBuf, &String>) -> Row {
    let start = Instant::now();
    let mut notes = Vec::new();
    let options = run.test.as_deref().map_or(Ok(RunOptions::default()), |p| {
        read_with(p, store::recorded_options)
    });
    let options = options.unwrap_or_else(|e| {
        notes.push(format!("{e}; using the command line's options"));
        RunOptions::default()
    });
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
    let mut workload = options.workload.clone();
    let page = children.pages.map(|p| p.file(i));
    let mut flags: Vec<String> = checker
        .map(|w| format!("--workload={}", w.name()))
        .into_iter()
        .collect();
    flags.extend_from_slice(children.flags);
    flags.extend(page.iter().map(|p| format!("--html={}", p.display())));
    let ours = exe
        .map_err(String::clone)
        .and_then(|exe| isolated_verdict(exe, &run.history, &opts, &flags, &mut workload))
        .map_err(|e| notes.push(e))
        .ok();
    // A check that died or was stopped wrote no report.
    let report = children
        .pages
        .filter(|p| p.file(i).is_file())
        .map(|p| p.link(i));
    Row {
        run: run.name.display().to_string(),
        workload: workload.unwrap_or_else(|| "-".into()),
        consistency_models: opts
            .consistency_models
            .clone()
            .unwrap_or_else(|| vec!["strict-serializable".into()]),
        agreement: Agreement::of(
            recorded.as_ref().map(|r| r.valid),
            ours.as_ref().map(|o| o.valid),
        ),
        recorded,
        ours,
        seconds: start.elapsed().as_secs_f64(),
        notes,
        report,
    }
}

/// [`verdict`] in a child process (`exe recheck-history`); a child that
/// dies (an abort, running out of memory, a signal) is an error naming how.
fn isolated_verdict(
    exe: &Path,
    history: &Path,
    opts: &CheckOptions,
    child_flags: &[String],
    workload: &mut Option<String>,
) -> Result<Ours, String> {
    let out = Command::new(exe)
        .arg("recheck-history")
        .args(model_flags(opts))
        .args(child_flags)
        .arg("--")
        .arg(history)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot start a check: {e}"))?;
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
    let valid = match v["valid"].as_str()? {
        "true" => Validity::True,
        "false" => Validity::False,
        "unknown" => Validity::Unknown,
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

/// The `check` flags that give `opts` back through [`ModelArgs::options`]:
/// how a child check gets the options of its run.
fn model_flags(opts: &CheckOptions) -> Vec<String> {
    let mut flags = Vec::new();
    if let Some(models) = &opts.consistency_models {
        let models = if models.is_empty() {
            "none".to_string()
        } else {
            models.join(",")
        };
        flags.push(format!("--consistency-models={models}"));
    }
    if !opts.anomalies.is_empty() {
        flags.push(format!("--anomalies={}", opts.anomalies.join(",")));
    }
    let switches = [
        (opts.infer.sequential_keys, "--sequential-keys"),
        (opts.infer.linearizable_keys, "--linearizable-keys"),
        (opts.infer.wfr_keys, "--wfr-keys"),
        (opts.no_fast_path, "--no-fast-path"),
        (opts.elle_compat, "--elle-compat"),
        (!opts.solve.enabled, "--certain-only"),
        (opts.solve.enabled && !opts.solve.pruning, "--no-pruning"),
        (opts.solve.enabled && !opts.solve.reduce, "--every-pair"),
    ];
    flags.extend(switches.iter().filter(|s| s.0).map(|s| s.1.to_string()));
    if let (true, Some(t)) = (opts.solve.enabled, opts.solve.timeout) {
        flags.push(format!("--timeout={}", t.as_secs_f64()));
    }
    flags.extend(jepsen_flags(&opts.jepsen));
    flags
}

/// The flags that give the checkers' options back.
fn jepsen_flags(j: &crate::check::jepsen::JepsenOptions) -> Vec<String> {
    let mut flags = Vec::new();
    if let Some(t) = j.total_amount {
        flags.push(format!("--total-amount={t}"));
    }
    if let Some(a) = &j.accounts {
        flags.push(format!("--accounts={}", a.join(",")));
    }
    if let Some(n) = j.group_size {
        flags.push(format!("--group-size={n}"));
    }
    let switches = [
        (j.negative_balances, "--allow-negative-balances"),
        (j.linearizable, "--linearizable-set"),
    ];
    flags.extend(switches.iter().filter(|s| s.0).map(|s| s.1.to_string()));
    flags
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

/// Our verdict; fills in the workload from the history when the run did
/// not name one.
fn verdict(
    path: &Path,
    load: &LoadOptions,
    opts: &CheckOptions,
    html: Option<&Path>,
    workload: &mut Option<String>,
) -> Result<Ours, String> {
    let h = crate::load(path, load).map_err(|d| d.to_string())?;
    workload.get_or_insert_with(|| h.workload.name().to_string());
    let outcome = crate::check(&h, opts).map_err(|e| format!("{e} (recorded in test.edn)"))?;
    if let Some(file) = html {
        // No page is no link in the table; the verdict stands.
        let dir = file.parent().unwrap_or(Path::new("."));
        let _ = crate::files::write(file, outcome.html(&h, dir));
    }
    let strings = |names: Vec<&str>| names.into_iter().map(String::from).collect();
    Ok(Ours {
        valid: outcome.validity(),
        anomaly_types: strings(outcome.anomaly_types()),
        not: strings(outcome.not()),
    })
}

/// The table for people, printed a line at a time as rows finish: the run
/// column as wide as the longest run name, the others fixed (a longer cell
/// pushes the rest of its line along).
struct Table {
    widths: [usize; 6],
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
            widths: [run, 12, 20, 20, 9, 8],
            failed: std::cell::Cell::new(None),
        }
    }

    fn header(&self) {
        self.print(&["run", "workload", "recorded", "isocheck", "agree", "time"].map(String::from));
    }

    fn line(&self, row: &Row, human: bool) {
        if human {
            self.print(&cells(row));
        }
    }

    /// One line, its control characters escaped; after a failed write
    /// (a closed pipe, a full disk: said once) nothing more is written.
    fn print(&self, cells: &[String; 6]) {
        if self.failed.get().is_some() {
            return;
        }
        let mut text = String::new();
        for (i, (cell, w)) in cells.iter().zip(self.widths).enumerate() {
            // The time column is right-aligned; the last column pads nothing.
            match i {
                5 => text.push_str(&format!("{cell:>w$}")),
                _ => text.push_str(&format!("{cell:<w$}  ")),
            }
        }
        let line = crate::report::excerpt::escape(text.trim_end()).into_owned() + "\n";
        self.failed.set(output::to_stdout(&line).err());
    }
}

/// The table as a page: a row per run, linked to its report, then the
/// notes and the summary.
fn table_page(store: &Path, rows: &[Row]) -> String {
    let header = ["run", "workload", "recorded", "isocheck", "agree", "time"];
    let table: Vec<TableRow> = rows
        .iter()
        .map(|r| TableRow {
            cells: cells(r).to_vec(),
            link: r.report.clone(),
            class: match r.agreement {
                Agreement::Yes => "agree",
                Agreement::No => "disagree",
                Agreement::Undecided => "undecided",
                Agreement::NotCompared => "not-compared",
            },
        })
        .collect();
    let title = format!("isocheck recheck {}", store.display());
    html::table(&title, &header, &table, &notes_and_summary(rows))
}

/// What follows the table: the notes of every row and a summary.
fn notes_and_summary(rows: &[Row]) -> String {
    let mut out = String::new();
    for r in rows {
        for n in &r.notes {
            out.push_str(&format!("note: {}: {n}\n", r.run));
        }
    }
    out.push_str(&summary(rows));
    out
}

fn cells(r: &Row) -> [String; 6] {
    let verdict = |valid: Validity, types: &[String]| match types {
        [] => valid.name().to_string(),
        [t] => format!("{} {t}", valid.name()),
        [t, rest @ ..] => format!("{} {t} +{}", valid.name(), rest.len()),
    };
    [
        r.run.clone(),
        r.workload.clone(),
        r.recorded
            .as_ref()
            .map_or("-".into(), |x| verdict(x.valid, &x.anomaly_types)),
        r.ours
            .as_ref()
            .map_or("error".into(), |x| verdict(x.valid, &x.anomaly_types)),
        r.agreement.name().into(),
        format!("{:.2}s", r.seconds),
    ]
}

fn summary(rows: &[Row]) -> String {
    let count = |a: Agreement| rows.iter().filter(|r| r.agreement == a).count();
    let compared = rows.len() - count(Agreement::NotCompared);
    let unrecorded = rows.iter().filter(|r| r.recorded.is_none()).count();
    let errors = rows.iter().filter(|r| r.ours.is_none()).count();
    format!(
        "{} runs, {compared} with a recorded verdict: {} agree, {} disagree, {} undecided; \
         {unrecorded} without a recorded verdict; {errors} not checked\n",
        rows.len(),
        count(Agreement::Yes),
        count(Agreement::No),
        count(Agreement::Undecided),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::SolveOptions;
    use crate::infer::InferOptions;
    use clap::Parser;

    #[derive(Parser)]
    struct Flags {
        #[command(flatten)]
        model: ModelArgs,
    }

    fn round_trip(opts: &CheckOptions) -> CheckOptions {
        let flags = model_flags(opts);
        let parsed = Flags::try_parse_from(std::iter::once("isocheck".to_string()).chain(flags))
            .unwrap_or_else(|e| panic!("{e}"));
        parsed.model.options()
    }

    /// A child check gets exactly the options of its run.
    #[test]
    fn model_flags_give_the_options_back() {
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
                jepsen: crate::check::jepsen::JepsenOptions {
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
        ];
        for opts in &cases {
            assert_eq!(format!("{:?}", round_trip(opts)), format!("{opts:?}"));
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
