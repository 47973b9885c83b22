//! The report for people: the verdict, then each anomaly with miette labels.
//!
//! Each reportable anomaly becomes a miette diagnostic whose message names
//! it (`G1c #0`), whose help is Elle's explanation, and whose labels point at
//! the micro-ops (or ops) of the history file that make it up. At most
//! [`SHOWN_PER_TYPE`] anomalies of each type are rendered, and of a long
//! cycle its first and last `CYCLE_ENDS` steps; the EDN and JSON results
//! and `--directory` hold them all.

use super::diagnostic;
use super::excerpt::escape;
use super::explanation::{explain, Detail, Explanation};
use crate::check::polygraph::Decision;
use crate::check::weak::Level;
use crate::check::{lattice, Analysis, Entry, Path, Validity, Verdict};
use crate::history::{History, SourceFile, Span};
use miette::{Diagnostic, LabeledSpan, Severity, SourceCode};
use std::collections::BTreeSet;
use std::fmt::{self, Write};

/// How many anomalies of one type the report renders.
pub const SHOWN_PER_TYPE: usize = 10;

/// Ops in explanations, and values in labels, are clipped to this many
/// characters (a final read can hold thousands of elements).
const OP_CHARS: usize = 240;
const VALUE_CHARS: usize = 40;

/// A cycle longer than twice this (plus one) shows only its first and last
/// this many transactions and steps, with a count of the rest: miette's
/// rendering grows with the square of the labels, and nobody reads 20,000
/// steps on a terminal (`--directory` and the result maps have them all).
const CYCLE_ENDS: usize = 10;

/// Help lines are wrapped here, below miette's own wrapping width (98 less
/// the 8 columns of `  help: `), so that continuation lines keep an indent.
const HELP_WIDTH: usize = 88;

/// The report for people of a transactional check: the verdict line, then
/// each anomaly as a diagnostic with labels into the file; `color` for a
/// terminal.
pub fn render(history: &History, analysis: &Analysis, verdict: &Verdict, color: bool) -> String {
    let mut out = String::new();
    render_into(&mut out, history, analysis, verdict, color);
    out
}

/// [`render`] into `out`, a finding at a time, so that a report a limit
/// cuts keeps what was written before.
pub fn render_into(
    out: &mut String,
    history: &History,
    analysis: &Analysis,
    verdict: &Verdict,
    color: bool,
) {
    out.push_str(&header(analysis, verdict, color));
    for t in ordered(verdict) {
        let entries = &verdict.anomalies[t];
        for (i, e) in entries.iter().take(SHOWN_PER_TYPE).enumerate() {
            crate::limits::tick();
            let f = finding(history, analysis, t, i, *e);
            out.push('\n');
            out.push_str(&diagnostic::render(&f, color));
        }
        if entries.len() > SHOWN_PER_TYPE {
            let _ = writeln!(
                out,
                "\n… and {} more {t} (--format edn or json lists them all)",
                entries.len() - SHOWN_PER_TYPE
            );
        }
    }
}

/// The reported anomaly types, most severe first (Elle's depth order), the
/// ones without a depth (`empty-transaction-graph`) last.
pub(super) fn ordered(v: &Verdict) -> Vec<&'static str> {
    let mut types: Vec<&'static str> = v.anomaly_types().collect();
    types.sort_by(|a, b| {
        let none = |t: &str| lattice::anomaly_depth(t).is_none();
        none(a)
            .cmp(&none(b))
            .then_with(|| lattice::depth_order(a, b))
    });
    types
}

/// The verdict line, with the models ruled out.
fn header(a: &Analysis, v: &Verdict, color: bool) -> String {
    let paint = |code: &str, word: &str| {
        if color {
            format!("\x1b[1;{code}m{word}\x1b[0m")
        } else {
            word.to_string()
        }
    };
    let types = ordered(v);
    let mut s = match v.valid {
        Validity::True => {
            let models = models_prohibiting(&a.prohibited);
            let what = if a.prohibited.is_empty() {
                "no anomaly was prohibited".to_string()
            } else if models.is_empty() {
                let mut p: Vec<&str> = a.prohibited.iter().copied().collect();
                p.sort_by(|a, b| lattice::depth_order(a, b));
                if p.len() <= 8 {
                    format!("none of the prohibited anomalies found ({})", p.join(", "))
                } else {
                    format!("none of the {} prohibited anomalies found", p.len())
                }
            } else {
                format!("no anomaly prohibited by {}", models.join(", "))
            };
            format!("{}: {what}\n", paint("32", "valid"))
        }
        Validity::False => format!("{}: {}\n", paint("31", "invalid"), types.join(", ")),
        Validity::Unknown => format!("{}: {}\n", paint("33", "unknown"), types.join(", ")),
    };
    if !v.not.is_empty() {
        s.push_str(&list_line("  not: ", &v.not));
    }
    if !v.also_not.is_empty() {
        s.push_str(&list_line("  also not: ", &v.also_not));
    }
    s.push_str(path_line(a.path));
    // The strongest levels checked: each implies the others' definitions.
    let implied = |l: &Level| a.levels.iter().any(|m| m != l && m.implies(*l));
    for level in a.levels.iter().filter(|l| !implied(l)) {
        s.push_str(&wrap_line("  checked: ", level.definition()));
    }
    for text in a
        .characterised
        .iter()
        .filter_map(|m| lattice::characterisation(m))
    {
        s.push_str(&wrap_line("  checked: ", text));
    }
    s
}

/// `prefix` then `text`, wrapped under its first word.
fn wrap_line(prefix: &str, text: &str) -> String {
    let mut out = String::from(prefix);
    push_wrapped(&mut out, text.split(' '), prefix.len(), prefix.len(), 100);
    out.push('\n');
    out
}

/// Which path decided, where a fast one did or handed over (SPEC §2.4).
fn path_line(p: Path) -> &'static str {
    match p {
        Path::General => "",
        Path::Mini { .. } => {
            "  decided by the mini-transaction fast path (linear, no solver)
"
        }
        Path::MiniHandedOver => {
            "  mini-transactions: the fast path handed over to the general path, which explains \
             what it found\n"
        }
        Path::Timestamps { .. } => {
            "  decided by the database's timestamps: an execution every read agrees with (no \
             dependency graph)\n"
        }
    }
}

/// `prefix` then the names, comma-separated, wrapped under the first name.
fn list_line(prefix: &str, names: &BTreeSet<&str>) -> String {
    let mut out = String::from(prefix);
    let last = names.len().saturating_sub(1);
    let words: Vec<String> = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            if i < last {
                format!("{n},")
            } else {
                n.to_string()
            }
        })
        .collect();
    push_wrapped(
        &mut out,
        words.iter().map(String::as_str),
        prefix.len(),
        prefix.len(),
        100,
    );
    out.push('\n');
    out
}

/// Wraps long lines of a help text at [`HELP_WIDTH`], continuation lines
/// indented four more than the line they continue.
fn wrap_help(text: &str) -> String {
    let mut out = String::new();
    for (n, line) in text.split('\n').enumerate() {
        if n > 0 {
            out.push('\n');
        }
        let body = line.trim_start_matches(' ');
        let lead = line.len() - body.len();
        // Prose continues under miette's own indent; indented lines (the
        // `Let:` bindings, the steps) continue four columns further in.
        let indent = if lead > 0 { lead + 4 } else { 0 };
        out.push_str(&line[..lead]);
        push_wrapped(&mut out, body.split(' '), lead, indent, HELP_WIDTH);
    }
    out
}

/// Appends `words` to `out` (now at column `col`), separated by spaces,
/// starting a new line indented by `indent` before a word that would end
/// past `width`.
fn push_wrapped<'w>(
    out: &mut String,
    words: impl Iterator<Item = &'w str>,
    mut col: usize,
    indent: usize,
    width: usize,
) {
    for (i, word) in words.enumerate() {
        let w = word.chars().count();
        if i > 0 {
            if col + 1 + w > width && col > indent + 1 {
                out.push('\n');
                out.push_str(&" ".repeat(indent));
                col = indent;
            } else {
                out.push(' ');
                col += 1;
            }
        }
        out.push_str(word);
        col += w;
    }
}

/// The models the check held the history to, as friendly names, recovered
/// from the prohibited anomalies: the models whose prohibited anomalies are
/// all prohibited here, keeping those that prohibit the most (by inclusion),
/// and of models prohibiting exactly the same, the weakest.
pub(super) fn models_prohibiting(prohibited: &BTreeSet<&'static str>) -> Vec<&'static str> {
    let models: BTreeSet<&'static str> = lattice::known_models()
        .into_iter()
        .filter_map(lattice::canonical_model)
        .collect();
    let covered: Vec<(&'static str, BTreeSet<&'static str>)> = models
        .into_iter()
        .map(|m| {
            let mut p = lattice::anomalies_prohibited_by([m]);
            lattice::drop_covered_characterisations(&mut p, Some(&[m]));
            (m, p)
        })
        .filter(|(_, p)| !p.is_empty() && p.is_subset(prohibited))
        .collect();
    let kept: BTreeSet<&'static str> = covered
        .iter()
        .filter(|(m, p)| {
            covered.iter().all(|(c, q)| {
                let bigger = q.is_superset(p) && q.len() > p.len();
                let weaker_twin = c != m && q == p && lattice::all_implied_models([*m]).contains(c);
                !bigger && !weaker_twin
            })
        })
        // The CLI's default is spelled strict-serializable; Elle's friendly
        // name for PL-SS is strong-serializable.
        .map(|(m, _)| match *m {
            "PL-SS" => "strict-serializable",
            m => lattice::friendly_model(m),
        })
        .collect();
    kept.into_iter().collect()
}

/// One anomaly as a miette diagnostic.
#[derive(Debug)]
pub(super) struct Finding<'a> {
    message: String,
    help: String,
    pub(super) severity: Severity,
    source: Option<&'a SourceFile>,
    labels: Vec<(Span, String)>,
}

impl fmt::Display for Finding<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Finding<'_> {}

impl Diagnostic for Finding<'_> {
    fn severity(&self) -> Option<Severity> {
        Some(self.severity)
    }

    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        (!self.help.is_empty()).then(|| Box::new(&self.help) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.source
            .filter(|_| !self.labels.is_empty())
            .map(|s| s as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.source.as_ref()?;
        let labels = self.labels.iter().enumerate().map(|(i, (span, text))| {
            let span: miette::SourceSpan = (*span).into();
            match i {
                0 => LabeledSpan::new_primary_with_span(Some(text.clone()), span),
                _ => LabeledSpan::new_with_span(Some(text.clone()), span),
            }
        });
        Some(Box::new(labels))
    }
}

/// Builds a [`Finding`]: labels on one span are merged, repeated text dropped.
pub(super) struct Builder<'a> {
    h: &'a History,
    pub(super) f: Finding<'a>,
}

impl<'a> Builder<'a> {
    pub(super) fn new(h: &'a History, message: String, help: String) -> Self {
        let source = (!h.source.text().is_empty()).then_some(&h.source);
        Builder {
            h,
            f: Finding {
                message,
                // Escaped before wrapping, so that the lines keep their width.
                help: wrap_help(&escape(&help)),
                severity: Severity::Error,
                source,
                labels: Vec::new(),
            },
        }
    }

    pub(super) fn label(&mut self, span: Span, text: String) {
        if self.f.source.is_none() || span.is_empty() || span.end() > self.h.source.text().len() {
            return;
        }
        match self.f.labels.iter_mut().find(|(s, _)| *s == span) {
            // A micro-op in two steps: keep the most telling text of each
            // (`T2 appended 2 to :x, after T1's 1` says `T2 appended 2 to :x`).
            Some((_, existing)) => {
                let mut parts: Vec<String> = existing.split("; ").map(String::from).collect();
                if parts.iter().any(|p| p.starts_with(&text)) {
                    return;
                }
                match parts.iter_mut().find(|p| text.starts_with(p.as_str())) {
                    Some(p) => *p = text,
                    None => parts.push(text),
                }
                *existing = parts.join("; ");
            }
            None => self.f.labels.push((span, text)),
        }
    }

    pub(super) fn done(self) -> Finding<'a> {
        self.f
    }
}

/// How much of a long anomaly the report shows.
const DETAIL: Detail = Detail {
    prose: true,
    op_chars: OP_CHARS,
    value_chars: VALUE_CHARS,
    ends: CYCLE_ENDS,
};

/// One anomaly's explanation laid out as a diagnostic named `<type> #<i>`
/// (`empty-transaction-graph` alone).
fn finding<'a>(h: &'a History, a: &Analysis, t: &str, i: usize, e: Entry) -> Finding<'a> {
    let message = match e {
        Entry::EmptyGraph => t.to_string(),
        _ => format!("{t} #{i}"),
    };
    lay_out(h, message, explain(h, a, e, DETAIL))
}

/// An explanation laid out as a diagnostic named `message`.
pub(super) fn lay_out<'a>(h: &'a History, message: String, x: Explanation) -> Finding<'a> {
    let mut b = Builder::new(h, message, x.help);
    for (span, text) in x.labels {
        b.label(span, text);
    }
    if x.warning {
        b.f.severity = Severity::Warning;
    }
    b.done()
}

/// `-v`: how each model with uncertain version orders was decided, with
/// PolySI's stages.
pub fn solving_stats(a: &Analysis) -> String {
    let mut s = String::new();
    if let Path::Mini { edges } = a.path {
        let _ = writeln!(
            s,
            "mini-transactions: {edges} dependency and order edges, acyclic: every model holds"
        );
    }
    if let Path::Timestamps { txns } = a.path {
        let _ = writeln!(
            s,
            "timestamps: {txns} committed transactions in commit-timestamp order, every read \
             seeing the version they say: every model holds"
        );
    }
    if a.ambiguous > 0 {
        let _ = writeln!(
            s,
            "repeated values: {} reads of a value written more than once could have returned more \
             than one write; each one's writer was chosen with the version order (Elle's \
             inference needs a read's writer known)",
            a.ambiguous
        );
    }
    for x in &a.solved {
        let st = &x.stats;
        let outcome = match &x.decision {
            Decision::Holds => "holds".to_string(),
            Decision::Violated => "violated".to_string(),
            Decision::Stopped(why) => format!("stopped ({why})"),
        };
        let attempt = match (x.with_session, &x.decision) {
            (false, _) => "",
            (true, Decision::Holds) => " with the session order added",
            (true, _) => " with the session order added, so decided without",
        };
        let attempt = match (x.serially, &x.decision) {
            (false, _) => attempt.to_string(),
            (true, Decision::Holds) => format!("{attempt}, as serializability's graph"),
            (true, _) => " with the session order added, as serializability's graph".to_string(),
        };
        let chains = [
            (x.chained, ", on read-modify-write chains"),
            (x.without_unread, ", without pairs of unread writes"),
            (
                x.along_known,
                ", along an order of the known edges (no rw edges)",
            ),
            (
                x.witness,
                ", by the version order of completions along the known edges",
            ),
            (
                x.witness && a.ambiguous > 0,
                ", each read of a repeated value reading the last write of it ranked before it",
            ),
        ];
        let reduced: String = chains.iter().filter(|c| c.0).map(|c| c.1).collect();
        let decision = format!("{outcome}{attempt}{reduced}");
        let _ = writeln!(
            s,
            "{}: {decision}; {} constraints, {} pruned in {} rounds, {} solver calls, \
             {} cycles blocked; construct {:.3}s, prune {:.3}s, encode {:.3}s, solve {:.3}s (cycles {:.3}s)",
            lattice::friendly_model(x.model),
            st.constraints,
            st.pruned,
            st.prune_rounds,
            st.solver_calls,
            st.clauses,
            x.construct.as_secs_f64(),
            st.prune.as_secs_f64(),
            st.encode.as_secs_f64(),
            st.solve.as_secs_f64(),
            st.cycles.as_secs_f64(),
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{self, CheckOptions};

    fn models_for(models: Option<&[&str]>, anomalies: &[&str]) -> Vec<&'static str> {
        let opts = CheckOptions {
            consistency_models: models.map(|m| m.iter().map(|s| s.to_string()).collect()),
            anomalies: anomalies.iter().map(|s| s.to_string()).collect(),
            ..CheckOptions::default()
        };
        let (prohibited, _) = check::anomaly_types(&opts).expect("known options");
        models_prohibiting(&prohibited)
    }

    #[test]
    fn the_valid_line_names_the_models_checked() {
        for (m, want) in [
            (None, vec!["strict-serializable"]),
            (Some(&["serializable"][..]), vec!["serializable"]),
            (
                Some(&["snapshot-isolation"][..]),
                vec!["snapshot-isolation"],
            ),
            (Some(&["read-committed"][..]), vec!["read-committed"]),
            (Some(&["repeatable-read"][..]), vec!["repeatable-read"]),
            (
                Some(&["strong-session-snapshot-isolation"][..]),
                vec!["strong-session-snapshot-isolation"],
            ),
        ] {
            assert_eq!(models_for(m, &[]), want, "{m:?}");
        }
        // Anomalies alone may match no model: the line lists them instead.
        assert!(models_for(Some(&[]), &["G0"]).is_empty());
    }

    /// A G1c cycle through `n` transactions: each appends to its own key
    /// and reads its predecessor's append; all concurrent, one per process.
    fn long_cycle(n: usize) -> String {
        let op = |i: usize, ty: &str, read: &str| {
            format!(
                "{{:index {}, :type :{ty}, :process {i}, :f :txn, :value [[:append {i} 1] [:r {} {read}]]}}\n",
                if ty == "ok" { n + i } else { i },
                (i + n - 1) % n
            )
        };
        let invokes = (0..n).map(|i| op(i, "invoke", "nil"));
        invokes.chain((0..n).map(|i| op(i, "ok", "[1]"))).collect()
    }

    #[test]
    fn a_long_cycle_shows_its_ends_with_a_bounded_number_of_labels() {
        let n = 500;
        let h = crate::history::parse_edn("cycle.edn", &long_cycle(n)).expect("history");
        let a = check::analyze(&h, &CheckOptions::default()).expect("options");
        let v = check::verdict::verdict(&a);
        let e = v.anomalies["G1c"][0];
        let f = finding(&h, &a, "G1c", 0, e);
        // Two labels per shown step, whatever the cycle's length: miette's
        // rendering, quadratic in the labels, is then bounded.
        assert_eq!(f.labels.len(), 4 * CYCLE_ENDS);
        let left = n - 2 * CYCLE_ENDS;
        assert!(f
            .help
            .contains(&format!("… {left} more transactions, T11 to T490")));
        assert!(f.help.contains(&format!("- … {left} more steps …")));
        assert!(f
            .help
            .contains("T500 < T1, because T1 observed T500's append"));
        assert_eq!(f.help.matches(" = {:index").count(), 2 * CYCLE_ENDS);
    }

    #[test]
    fn help_lines_wrap_with_an_indent() {
        let line = format!("  - {}", "word ".repeat(30).trim_end());
        let wrapped = wrap_help(&format!("Then:\n{line}"));
        let lines: Vec<&str> = wrapped.lines().collect();
        assert_eq!(lines[0], "Then:");
        assert!(lines[1].starts_with("  - word") && lines[1].len() <= HELP_WIDTH);
        assert!(lines[2].starts_with("      word"), "{wrapped}");
        assert_eq!(wrapped.replace("\n      ", " "), format!("Then:\n{line}"));
    }
}
