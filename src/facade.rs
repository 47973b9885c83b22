//! The library's one way in: a history read ([`load`]), checked
//! ([`check()`]: the workload decides which check) and rendered in each
//! output format ([`Outcome::human`], [`Outcome::edn`], [`Outcome::json`],
//! [`Outcome::write_directory`]). The command line's `check` and
//! `recheck-history`, the fuzz target and the report tests go through here.
//!
//! `--timeout` and `--max-memory` wrap the whole of it: the caller runs
//! [`load`], [`check()`] and the rendering inside [`limits::run`], and these
//! poll the limits at each stage (outside `run` the polls do nothing).

use crate::check::lwt::{self, LwtAnalysis};
use crate::check::{self, Analysis, CheckOptions, OptionError, Validity, Verdict};
use crate::history::{self, History, InputDiagnostic, LoadOptions, Workload};
use crate::limits::{self, Stage};
use crate::report;
use std::path::Path;

/// What the check of one history found.
#[derive(Debug)]
pub enum Outcome {
    /// Transactions, judged by Elle's consistency models.
    Transactional {
        analysis: Box<Analysis>,
        verdict: Verdict,
    },
    /// Register or mutex ops (`Workload::CasRegister`, `Workload::Mutex`):
    /// per-key linearizability; consistency-model options do not apply.
    Register(LwtAnalysis),
}

/// Reads a history, polling the limits: the text is read whole, so the
/// budget is checked before, not after, it is read.
pub fn load(path: &Path, options: &LoadOptions) -> Result<History, InputDiagnostic> {
    limits::read_whole(history::input_size(path));
    limits::stage(Stage::Reading);
    let history = history::load(path, options)?;
    limits::ops_read(history.ops.len());
    Ok(history)
}

/// Checks a history: the cycle search and verdict for transactions, the
/// linearizability check for registers. Ends in the report stage.
pub fn check(history: &History, options: &CheckOptions) -> Result<Outcome, OptionError> {
    let outcome = if matches!(history.workload, Workload::CasRegister | Workload::Mutex) {
        limits::stage(Stage::Lwt);
        Outcome::Register(lwt::check(history))
    } else {
        Outcome::of_analysis(check::analyze(history, options)?)
    };
    outcome.enter_report();
    Ok(outcome)
}

impl Outcome {
    /// The outcome of an analysis of transactions, with its verdict (the
    /// report tests build analyses by hand).
    pub fn of_analysis(analysis: Analysis) -> Outcome {
        let verdict = check::verdict::verdict(&analysis);
        let analysis = Box::new(analysis);
        Outcome::Transactional { analysis, verdict }
    }

    /// Marks the report stage, polling the limits: rendering counts against
    /// them too. After the solver stopped for a limit the verdict is already
    /// unknown, with what was found before: the report is not discarded for
    /// it, so there is no poll.
    pub fn enter_report(&self) {
        match self {
            Outcome::Transactional { analysis, .. } if !analysis.stopped.is_empty() => {
                limits::enter(Stage::Report)
            }
            _ => limits::stage(Stage::Report),
        }
    }

    pub fn validity(&self) -> Validity {
        match self {
            Outcome::Transactional { verdict, .. } => verdict.valid,
            Outcome::Register(a) => a.validity(),
        }
    }

    /// Elle's `:anomaly-types`.
    pub fn anomaly_types(&self) -> Vec<&'static str> {
        match self {
            Outcome::Transactional { verdict, .. } => verdict.anomaly_types().collect(),
            Outcome::Register(a) => a.anomaly_types(),
        }
    }

    /// Elle's `:not`: the models the history is known not to satisfy.
    pub fn not(&self) -> Vec<&'static str> {
        match self {
            Outcome::Transactional { verdict, .. } => verdict.not.iter().copied().collect(),
            Outcome::Register(_) => Vec::new(),
        }
    }

    /// The report for people, with labels into the file; `color` for a
    /// terminal.
    pub fn human(&self, history: &History, color: bool) -> String {
        match self {
            Outcome::Transactional { analysis, verdict } => {
                report::human::render(history, analysis, verdict, color)
            }
            Outcome::Register(a) => report::lwt::render(history, a, color),
        }
    }

    /// Elle's result map as EDN.
    pub fn edn(&self, history: &History) -> String {
        match self {
            Outcome::Transactional { analysis, verdict } => {
                report::edn::result_map(history, analysis, verdict)
            }
            Outcome::Register(a) => report::lwt::edn_result(history, a),
        }
    }

    /// Elle's result map as JSON, pretty-printed.
    pub fn json(&self, history: &History) -> String {
        let value = match self {
            Outcome::Transactional { analysis, verdict } => {
                report::json::result_map(history, analysis, verdict)
            }
            Outcome::Register(a) => report::lwt::json_result(history, a),
        };
        serde_json::to_string_pretty(&value).unwrap_or_default()
    }

    /// Elle's artifacts in `dir`: `<anomaly>.txt` explanations and a
    /// Graphviz `.dot` (and `.svg` when `dot` is installed) per cycle.
    /// `Ok(false)` when the outcome has none to write (registers).
    pub fn write_directory(&self, dir: &Path, history: &History) -> std::io::Result<bool> {
        match self {
            Outcome::Transactional { analysis, verdict } => {
                report::directory::write(dir, history, analysis, verdict).map(|()| true)
            }
            Outcome::Register(_) => Ok(false),
        }
    }

    /// Per-model solving statistics (construct, prune, encode, solve), for
    /// transactions.
    pub fn solving_stats(&self) -> Option<String> {
        match self {
            Outcome::Transactional { analysis, .. } => Some(report::human::solving_stats(analysis)),
            Outcome::Register(_) => None,
        }
    }
}
