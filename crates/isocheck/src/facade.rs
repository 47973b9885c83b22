//! The library's one way in: a history read ([`load`]), checked
//! ([`check()`]: the workload decides which check) and rendered in each
//! output format ([`Outcome::human`], [`Outcome::edn`], [`Outcome::json`],
//! [`Outcome::html`], [`Outcome::write_directory`]). The command line's `check` and
//! `recheck-history`, the fuzz target and the report tests go through here.
//!
//! `--timeout` and `--max-memory` wrap the whole of it: the caller runs
//! [`load`], [`check()`] and the rendering inside [`limits::run`], and these
//! poll the limits at each stage (outside `run` the polls do nothing).

use crate::check::{self, Analysis, CheckOptions, OptionError, Validity, Verdict};
use crate::checkers::{self, JepsenResult};
use crate::history::{self, History, InputDiagnostic, LoadOptions, Workload};
use crate::limits::{self, Stage};
use crate::registers::{self, RegisterAnalysis};
use crate::report;
use std::path::Path;

/// What the check of one history found.
#[derive(Debug)]
pub enum Outcome {
    /// Transactions, judged by Elle's consistency models.
    Transactional {
        /// What the checks found, with the graph they searched.
        analysis: Box<Analysis>,
        /// The verdict Elle's result map gives of it.
        verdict: Verdict,
    },
    /// Register or mutex ops (`Workload::CasRegister`, `Workload::Mutex`):
    /// per-key linearizability; consistency-model options do not apply.
    Register(RegisterAnalysis),
    /// One of Jepsen's standard checkers (bank, counter, set, set-full,
    /// long-fork, unique-ids, total-queue), with its own result map.
    Jepsen(JepsenResult),
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
        limits::stage(Stage::Registers);
        Outcome::Register(registers::check(history))
    } else if history.workload.is_checker() {
        limits::stage(Stage::Checker);
        Outcome::Jepsen(checkers::check(history, &options.jepsen))
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

    /// Marks the report stage. The verdict is computed: from here a limit
    /// cuts the report, never the verdict (each render below goes through
    /// [`limits::rendering`]). After the solver stopped for a limit the
    /// verdict is already unknown, with what was found before, and that
    /// report is written whole: the polls are lifted.
    pub fn enter_report(&self) {
        limits::enter(Stage::Report);
        if let Outcome::Transactional { analysis, .. } = self {
            if !analysis.stopped.is_empty() {
                limits::lift();
            }
        }
    }

    /// `:valid?`
    pub fn validity(&self) -> Validity {
        match self {
            Outcome::Transactional { verdict, .. } => verdict.valid,
            Outcome::Register(a) => a.validity(),
            Outcome::Jepsen(r) => r.validity(),
        }
    }

    /// Elle's `:anomaly-types`.
    pub fn anomaly_types(&self) -> Vec<&'static str> {
        match self {
            Outcome::Transactional { verdict, .. } => verdict.anomaly_types().collect(),
            Outcome::Register(a) => a.anomaly_types(),
            Outcome::Jepsen(r) => r.anomaly_types(),
        }
    }

    /// Elle's `:not`: the models the history is known not to satisfy.
    pub fn not(&self) -> Vec<&'static str> {
        match self {
            Outcome::Transactional { verdict, .. } => verdict.not.iter().copied().collect(),
            Outcome::Register(_) | Outcome::Jepsen(_) => Vec::new(),
        }
    }

    /// The report for people, with labels into the file; `color` for a
    /// terminal. A limit that fires while it is written cuts it where it
    /// is, with a note saying so.
    pub fn human(&self, history: &History, color: bool) -> String {
        let mut out = String::new();
        let rendered = limits::rendering(|| match self {
            Outcome::Transactional { analysis, verdict } => {
                report::human::render_into(&mut out, history, analysis, verdict, color)
            }
            Outcome::Register(a) => report::registers::render_into(&mut out, history, a, color),
            Outcome::Jepsen(r) => report::jepsen::render_into(&mut out, history, r, color),
        });
        if let Err(stop) = rendered {
            if out.is_empty() {
                out = report::cut::header(self.validity(), &self.anomaly_types());
            }
            out.push_str(&report::cut::note(&stop));
        }
        out
    }

    /// Elle's result map as EDN (cut to the verdict and `:report-cut` when
    /// a limit fires while it is written).
    pub fn edn(&self, history: &History) -> String {
        let rendered = limits::rendering(|| report::edn::print(&self.result_map(history)));
        rendered.unwrap_or_else(|stop| {
            report::cut::edn(self.validity(), &self.anomaly_types(), &self.not(), &stop)
        })
    }

    /// [`Outcome::edn`]'s map on one line (ops as the history wrote them,
    /// so a line break inside one stays): the last line of a stream of
    /// one-line maps (`check --stream --format edn`).
    pub fn edn_line(&self, history: &History) -> String {
        let rendered = limits::rendering(|| {
            let mut out = String::new();
            report::edn::write(&self.result_map(history), &mut out);
            out
        });
        rendered.unwrap_or_else(|stop| {
            report::cut::edn(self.validity(), &self.anomaly_types(), &self.not(), &stop)
        })
    }

    /// Elle's result map, the one tree both [`Outcome::edn`] and
    /// [`Outcome::json`] print: each kind of check builds its entries.
    fn result_map<'a>(&self, history: &'a History) -> report::result::R<'a> {
        match self {
            Outcome::Transactional { analysis, verdict } => {
                report::result::result_map(history, analysis, verdict)
            }
            Outcome::Register(a) => report::registers::result_map(history, a),
            Outcome::Jepsen(r) => report::jepsen::result_map(history, r),
        }
    }

    /// Elle's result map as JSON, pretty-printed (cut as [`Outcome::edn`]).
    pub fn json(&self, history: &History) -> String {
        let rendered = limits::rendering(|| report::json::to_json(&self.result_map(history)));
        let value = rendered.unwrap_or_else(|stop| {
            report::cut::json(self.validity(), &self.anomaly_types(), &self.not(), &stop)
        });
        serde_json::to_string_pretty(&value).unwrap_or_default()
    }

    /// The report as one self-contained HTML page, to be written into
    /// `page_dir` (its lines link to the history file from there); a
    /// limit that fires while it is written makes it the verdict and the
    /// note of the cut.
    pub fn html(&self, history: &History, page_dir: &Path) -> String {
        let href = report::html::href(page_dir, history.source.name());
        let rendered = limits::rendering(|| match self {
            Outcome::Transactional { analysis, verdict } => {
                report::html::transactional(history, analysis, verdict, href.as_deref())
            }
            Outcome::Register(a) => report::html::register(history, a, href.as_deref()),
            Outcome::Jepsen(r) => report::html::jepsen(history, r, href.as_deref()),
        });
        rendered.unwrap_or_else(|stop| self.cut_page(&stop))
    }

    /// The page of a report a limit cut: the verdict and the note.
    fn cut_page(&self, stop: &limits::Stop) -> String {
        let types = self.anomaly_types();
        let text = report::cut::header(self.validity(), &types) + &report::cut::note(stop);
        report::html::cut(self.validity(), &types, &text)
    }

    /// Elle's artifacts in `dir`: `<anomaly>.txt` explanations and a
    /// Graphviz `.dot` (and `.svg` when `dot` is installed) per cycle, and
    /// the HTML report as `index.html` (the only one for registers). They
    /// replace those of an earlier run, and only those: the directory
    /// describes this run, and keeps files of other names
    /// (`files::replace_dir`). A limit that fires on the way leaves the
    /// files written so far and an `index.html` that says the report was
    /// cut. Returns the warnings of drawings Graphviz could not render.
    pub fn write_directory(&self, dir: &Path, history: &History) -> std::io::Result<Vec<String>> {
        // The page links to the history relative to `dir`, which must
        // exist for the link to be found.
        std::fs::create_dir_all(dir)?;
        self.replace_artifacts(dir, history, true)
    }

    /// `write_directory` without `index.html`: the explanations and cycle
    /// drawings only, for a caller that puts the page elsewhere (`isocheck
    /// run`'s run directory). Nothing to explain leaves no directory.
    pub fn write_explanations(
        &self,
        dir: &Path,
        history: &History,
    ) -> std::io::Result<Vec<String>> {
        let warnings = self.replace_artifacts(dir, history, false)?;
        // Fails, as it should, unless the directory is empty.
        let _ = std::fs::remove_dir(dir);
        Ok(warnings)
    }

    /// Replaces the artifacts in `dir` (see `write_directory`), with the
    /// page or without.
    fn replace_artifacts(
        &self,
        dir: &Path,
        history: &History,
        page: bool,
    ) -> std::io::Result<Vec<String>> {
        let mut warnings = Vec::new();
        crate::files::replace_dir(dir, report::directory::remove_artifacts, |staging| {
            if let Outcome::Transactional { analysis, verdict } = self {
                let written = limits::rendering(|| {
                    report::directory::write(staging, history, analysis, verdict)
                });
                match written {
                    Ok(Err(e)) => return Err(e),
                    Ok(Ok(w)) => warnings = w,
                    Err(_) => {}
                }
            }
            if !page {
                return Ok(());
            }
            // After a cut, the page is the verdict and the note of the cut.
            let page = self.html(history, dir);
            std::fs::write(staging.join(report::directory::INDEX), page)
        })?;
        Ok(warnings)
    }

    /// Per-model solving statistics (construct, prune, encode, solve), for
    /// transactions.
    pub fn solving_stats(&self) -> Option<String> {
        match self {
            Outcome::Transactional { analysis, .. } => Some(report::human::solving_stats(analysis)),
            Outcome::Register(_) | Outcome::Jepsen(_) => None,
        }
    }
}
