//! `isocheck recheck`: every run of a Jepsen store checked again, in
//! parallel, beside the verdict the run recorded.

use super::check::{option_help, ModelArgs};
use super::{OutputFormat, EXIT_INPUT};
use crate::check::Validity;
use crate::check::{self, CheckOptions};
use crate::history::{self, LoadOptions, Workload};
use crate::limits::{self, Stage};
use crate::recheck::{self, Agreement, Recorded, Run, RunOptions};
use crate::report::progress::Progress;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Time per history, reading to verdict, when `--timeout` is not given: a
/// store can hold a history the solver cannot settle quickly, and the table
/// should still come.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

#[derive(clap::Args, Debug)]
pub struct RecheckArgs {
    /// A Jepsen store directory (or any directory holding `**/history.edn`).
    pub store: PathBuf,
    /// Options for runs whose `test.edn` does not record them (a run's
    /// recorded `:consistency-models`, `:anomalies` and `:*-keys?` win).
    /// Without `--timeout`, each history's check stops after 60 s.
    #[command(flatten)]
    pub model: ModelArgs,
    /// Histories checked at once (default: every core).
    #[arg(long, short = 'j')]
    pub jobs: Option<usize>,
    #[arg(long, value_enum, default_value = "human")]
    pub format: OutputFormat,
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
}

pub fn run(a: &RecheckArgs) -> ExitCode {
    let base = a.model.options();
    if let Err(e) = check::anomaly_types(&base) {
        eprintln!("error: {e}\n  help: {}", option_help(&e));
        return ExitCode::from(EXIT_INPUT);
    }
    a.model.arm_memory(crate::report::stop::Format::Human);
    let runs = match recheck::find_runs(&a.store) {
        Ok(runs) if !runs.is_empty() => runs,
        Ok(_) => {
            eprintln!(
                "error: no history.edn under {}\n  help: give a Jepsen store directory (e.g. `store/`)",
                a.store.display()
            );
            return ExitCode::from(EXIT_INPUT);
        }
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", a.store.display());
            return ExitCode::from(EXIT_INPUT);
        }
    };
    let jobs = a.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let rows = check_all(&runs, &base, jobs.max(1));
    match a.format {
        OutputFormat::Human => print!("{}", table(&rows)),
        OutputFormat::Json => println!(
            "{}",
            serde_json::to_string_pretty(&rows).unwrap_or_default()
        ),
    }
    exit_status(&rows)
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

/// Checks the runs on `jobs` threads; rows come back in `runs` order.
fn check_all(runs: &[Run], base: &CheckOptions, jobs: usize) -> Vec<Row> {
    let next = AtomicUsize::new(0);
    let (send, receive) = mpsc::channel();
    let mut rows: Vec<Option<Row>> = vec![None; runs.len()];
    let progress = Progress::on_terminal();
    let (total, mut done) = (runs.len(), 0);
    let width = total.to_string().len();
    std::thread::scope(|s| {
        for _ in 0..jobs.min(runs.len()) {
            let send = send.clone();
            let next = &next;
            s.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(run) = runs.get(i) else { break };
                if send.send((i, check_run(run, base))).is_err() {
                    break;
                }
            });
        }
        drop(send);
        for (i, row) in receive {
            done += 1;
            progress.phase(&format!("[{done:>width$}/{total}] {}", row.run));
            rows[i] = Some(row);
        }
    });
    progress.done();
    rows.into_iter().flatten().collect()
}

fn check_run(run: &Run, base: &CheckOptions) -> Row {
    let start = Instant::now();
    let mut notes = Vec::new();
    let recorded = run.results.as_deref().and_then(|p| {
        read_with(p, recheck::recorded_verdict)
            .map_err(|e| notes.push(e))
            .ok()
    });
    let options = run.test.as_deref().map_or(Ok(RunOptions::default()), |p| {
        read_with(p, recheck::recorded_options)
    });
    let options = options.unwrap_or_else(|e| {
        notes.push(format!("{e}; using the command line's options"));
        RunOptions::default()
    });
    let opts = options.apply(base);
    let mut workload = options.workload.clone();
    // Also with --certain-only, which takes no --timeout.
    let timeout = opts.solve.timeout.or(Some(DEFAULT_TIMEOUT));
    let limited = limits::run(timeout, || verdict(&run.history, &opts, &mut workload));
    let ours = limited
        .unwrap_or_else(|stop| Ok(stopped(&stop)))
        .map_err(|e| notes.push(e));
    let ours = ours.ok();
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

/// Our verdict; fills in the workload from the history when the run did
/// not name one.
fn verdict(
    path: &Path,
    opts: &CheckOptions,
    workload: &mut Option<String>,
) -> Result<Ours, String> {
    limits::read_whole(super::input_size(path));
    let h = history::load(path, &LoadOptions::default()).map_err(|d| d.to_string())?;
    limits::ops_read(h.ops.len());
    workload.get_or_insert_with(|| h.workload.name().to_string());
    if h.workload == Workload::CasRegister {
        limits::stage(Stage::Lwt);
        let a = check::lwt::check(&h);
        return Ok(Ours {
            valid: a.validity(),
            anomaly_types: a.anomaly_types().into_iter().map(String::from).collect(),
            not: Vec::new(),
        });
    }
    let analysis = check::analyze(&h, opts).map_err(|e| format!("{e} (recorded in test.edn)"))?;
    let v = check::verdict::verdict(&analysis);
    Ok(Ours {
        valid: v.valid,
        anomaly_types: v.anomaly_types().map(String::from).collect(),
        not: v.not.iter().map(|s| s.to_string()).collect(),
    })
}

/// The table for people: one line per run, then the notes and a summary.
pub fn table(rows: &[Row]) -> String {
    let cells: Vec<[String; 6]> = rows.iter().map(cells).collect();
    let header = ["run", "workload", "recorded", "isocheck", "agree", "time"].map(String::from);
    let mut widths = header.clone().map(|h| h.len());
    for c in &cells {
        for (w, cell) in widths.iter_mut().zip(c) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for line in std::iter::once(&header).chain(&cells) {
        let mut text = String::new();
        for (i, (cell, w)) in line.iter().zip(widths).enumerate() {
            // The time column is right-aligned; the last column pads nothing.
            match i {
                5 => text.push_str(&format!("{cell:>w$}")),
                _ => text.push_str(&format!("{cell:<w$}  ")),
            }
        }
        out.push_str(text.trim_end());
        out.push('\n');
    }
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
