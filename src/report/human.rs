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
use super::explain::{
    clip, cycle_exists_subgraph, elided, explanation, invocation, list_text, mop_value_text,
    scc_indices,
};
use super::result::pair_keys;
use crate::check::polygraph::Decision;
use crate::check::{lattice, Analysis, Entry, FoundCycle, Path, Validity, Verdict};
use crate::history::{History, MopKind, MopValue, SourceFile, Span, TxnId, Val, Workload};
use crate::infer::anomaly::{Anomaly, Expected};
use crate::infer::{Dep, Rel, Version, NO_MOP};
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

pub fn render(history: &History, analysis: &Analysis, verdict: &Verdict, color: bool) -> String {
    let mut out = header(analysis, verdict, color);
    for t in ordered(verdict) {
        let entries = &verdict.anomalies[t];
        for (i, e) in entries.iter().take(SHOWN_PER_TYPE).enumerate() {
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
    out
}

/// The reported anomaly types, most severe first (Elle's depth order), the
/// ones without a depth (`empty-transaction-graph`) last.
fn ordered(v: &Verdict) -> Vec<&'static str> {
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
    s
}

/// Which path decided, for mini-transaction histories (SPEC §2.4).
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
fn models_prohibiting(prohibited: &BTreeSet<&'static str>) -> Vec<&'static str> {
    let models: BTreeSet<&'static str> = lattice::known_models()
        .into_iter()
        .filter_map(lattice::canonical_model)
        .collect();
    let covered: Vec<(&'static str, BTreeSet<&'static str>)> = models
        .into_iter()
        .map(|m| (m, lattice::anomalies_prohibited_by([m])))
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

    fn mop(&mut self, m: u32, text: String) {
        if m != NO_MOP {
            if let Some(mop) = self.h.mops.get(m as usize) {
                self.label(mop.span, text);
            }
        }
    }

    fn op_of(&mut self, t: TxnId, text: String) {
        let span = self.h.op(self.h.txn(t).op()).span;
        self.label(span, text);
    }

    pub(super) fn done(self) -> Finding<'a> {
        self.f
    }
}

fn finding<'a>(h: &'a History, a: &Analysis, t: &str, i: usize, e: Entry) -> Finding<'a> {
    let message = format!("{t} #{i}");
    match e {
        Entry::Cycle(c) => cycle(h, a, message, c),
        Entry::Anomaly(x) => anomaly(h, message, &a.anomalies[x]),
        Entry::CycleExists(c) => {
            let c = &a.cycle_exists[c];
            let scc = scc_indices(h, &c.scc);
            let shown: Vec<String> = scc.iter().take(20).map(|i| i.to_string()).collect();
            let more = if scc.len() > 20 { " …" } else { "" };
            let help = format!(
                "a cycle exists in the subgraph {} of the {} transactions at indices {}{more}, \
                 so the history is not {}",
                cycle_exists_subgraph(c.model),
                c.scc.len(),
                shown.join(", "),
                lattice::friendly_model(c.model)
            );
            let mut b = Builder::new(h, message, help);
            for &txn in c.scc.iter().take(SHOWN_PER_TYPE) {
                b.op_of(txn, "in the cycle".to_string());
            }
            b.done()
        }
        Entry::Forced(f) => forced(h, a, message, f),
        Entry::Stopped(i) => {
            let st = &a.stopped[i];
            let mut b = Builder::new(
                h,
                message,
                format!(
                    "the solver stopped ({}) before deciding whether some order of the \
                     {} pairs of writes in unknown order makes the history {}: validity is unknown",
                    st.reason,
                    st.constraints,
                    lattice::friendly_model(st.model)
                ),
            );
            b.f.severity = Severity::Warning;
            b.done()
        }
        Entry::EmptyGraph => {
            let mut b = Builder::new(
                h,
                "empty-transaction-graph".to_string(),
                "no dependency between transactions could be inferred, so there is nothing \
                 to check: validity is unknown"
                    .to_string(),
            );
            b.f.severity = Severity::Warning;
            b.done()
        }
    }
}

fn cycle<'a>(h: &'a History, a: &Analysis, message: String, c: usize) -> Finding<'a> {
    let c = &a.cycles[c];
    let help = explanation(h, a, c, OP_CHARS, CYCLE_ENDS);
    let mut b = Builder::new(h, message, help);
    cycle_labels(&mut b, a, c);
    b.done()
}

/// Labels on both ends of every step of a cycle the explanation shows, its
/// transactions named T1, T2, … as there.
fn cycle_labels(b: &mut Builder<'_>, a: &Analysis, c: &FoundCycle) {
    let n = c.steps.len().max(1);
    let left_out = elided(c.steps.len(), CYCLE_ENDS);
    let name = |i: usize| format!("T{}", i % n + 1);
    for (i, d) in a.cycle_steps(c).enumerate() {
        if !left_out.contains(&i) {
            step_labels(b, d, &name(i), &name(i + 1));
        }
    }
}

/// A cycle that every order of some writes closes: the pairs whose order is
/// unknown, then each order's cycle in Elle's words; the first order's
/// steps are labelled in the source.
fn forced<'a>(h: &'a History, a: &Analysis, message: String, i: usize) -> Finding<'a> {
    let f = &a.forced[i];
    let model = lattice::friendly_model(f.model);
    // No pair left open: the order that reads followed by writes imply
    // (which every model forbidding G1c must respect) closes the cycle.
    let mut help = if f.pairs.is_empty() {
        format!(
            "the version order implied by transactions that read a key and then wrote it \
             makes the history not {model}."
        )
    } else {
        format!(
            "whatever order the database installed the writes below in, the history is not \
             {model}."
        )
    };
    for p in &f.pairs {
        let keys: Vec<String> = pair_keys(p).map(|k| h.values.display(k)).collect();
        let [ia, ib] = [p.a, p.b].map(|t| h.op(h.txn(t).op()).index);
        let _ = write!(
            help,
            "\nThe transactions at indices {ia} and {ib} both wrote {}, in an unknown order.",
            keys.join(", ")
        );
    }
    for c in &f.cases {
        let first: Vec<String> = f
            .writes_first(c)
            .into_iter()
            .map(|t| h.op(h.txn(t).op()).index.to_string())
            .collect();
        let given = match first.is_empty() {
            true => "\n\nIn that order".to_string(),
            false => format!("\n\nIf the writes of index {} came first", first.join(", ")),
        };
        let _ = write!(
            help,
            "{given}, this {} cycle follows:\n{}",
            c.cycle.name,
            explanation(h, a, &c.cycle, OP_CHARS, CYCLE_ENDS)
        );
    }
    let mut b = Builder::new(h, message, help);
    if let Some(c) = f.cases.first() {
        cycle_labels(&mut b, a, &c.cycle);
    } else {
        for p in &f.pairs {
            b.op_of(p.a, "writes in unknown order".to_string());
            b.op_of(p.b, "writes in unknown order".to_string());
        }
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
        let decision = format!("{outcome}{attempt}");
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

/// Short labels for the two ends of one step.
fn step_labels(b: &mut Builder<'_>, d: &Dep, an: &str, bn: &str) {
    let h = b.h;
    let key = h.values.display(d.key);
    let v = version_pr(h, d.value);
    let v2 = version_pr(h, d.value2);
    let la = h.workload == Workload::ListAppend;
    match d.rel {
        Rel::Ww if la => {
            b.mop(d.a_mop, format!("{an} appended {v} to {key}"));
            b.mop(
                d.b_mop,
                format!("{bn} appended {v2} to {key}, after {an}'s {v}"),
            );
        }
        Rel::Wr if la => {
            b.mop(d.a_mop, format!("{an} appended {v} to {key}"));
            b.mop(d.b_mop, format!("{bn} observed {an}'s append of {v}"));
        }
        Rel::Rw if la => {
            let read = match d.value {
                Version::Init => format!("{an} observed the initial (nil) state of {key}"),
                Version::Val(_) => format!("{an} did not observe {bn}'s append of {v2}"),
            };
            b.mop(d.a_mop, read);
            b.mop(d.b_mop, format!("{bn} appended {v2} to {key}"));
        }
        Rel::Ww => {
            b.mop(d.a_mop, format!("{an} set {key} to {v}"));
            b.mop(
                d.b_mop,
                format!("{bn} set {key} to {v2}, later in the version order"),
            );
        }
        Rel::Wr => {
            b.mop(d.a_mop, format!("{an} wrote {key} = {v}"));
            b.mop(d.b_mop, format!("{bn} read {key} = {v}"));
        }
        Rel::Rw => {
            b.mop(d.a_mop, format!("{an} read {key} = {v}"));
            b.mop(
                d.b_mop,
                format!("{bn} set {key} to {v2}, later in the version order"),
            );
        }
        Rel::Process => {
            let p = h.txn(d.from).process;
            b.op_of(d.from, format!("process {p} executed {an} before {bn}"));
            b.op_of(d.to, format!("then {bn} on process {p}"));
        }
        Rel::Realtime => {
            let a_op = h.op(h.txn(d.from).op());
            b.op_of(d.from, format!("{an} completed at index {}", a_op.index));
            let inv = h.op(invocation(h, d.to));
            b.label(
                inv.span,
                format!("{bn} was invoked afterwards, at index {}", inv.index),
            );
        }
    }
}

fn version_pr(h: &History, v: Version) -> String {
    match v {
        Version::Init => "nil".to_string(),
        Version::Val(v) => clip(&h.values.display(v), VALUE_CHARS).into_owned(),
    }
}

/// The first micro-op of `t` that satisfies `pred`.
fn find_mop(h: &History, t: TxnId, pred: impl Fn(u32) -> bool) -> Option<u32> {
    h.txn(t).mops.clone().find(|&m| pred(m))
}

/// Does micro-op `m` write `value` to `key` (append or register write)?
fn writes(h: &History, m: u32, key: Val, value: Val) -> bool {
    let mop = &h.mops[m as usize];
    mop.kind != MopKind::Read && mop.key == key && mop.value() == MopValue::Val(value)
}

fn is_write(h: &History, m: u32, key: Val) -> bool {
    let mop = &h.mops[m as usize];
    mop.kind != MopKind::Read && mop.key == key
}

/// The value a read observed as a register value, or the last element of
/// the list it read.
fn read_value(h: &History, m: u32) -> Option<Val> {
    match h.mops[m as usize].value() {
        MopValue::Val(v) => Some(v),
        MopValue::List { start, len } => h.list(start, len).last().copied(),
    }
}

/// What a G1a or G1b read observed: the key, the value as text for a label
/// (` 1`, or nothing when the read shows no value), and the writer's
/// micro-op that wrote it, when it can be found.
fn dirty_read(
    h: &History,
    mop: u32,
    element: Option<Val>,
    writer: TxnId,
) -> (Val, String, Option<u32>) {
    let key = h.mops[mop as usize].key;
    let value = element.or_else(|| read_value(h, mop));
    let what = value.map_or_else(String::new, |v| {
        format!(" {}", clip(&h.values.display(v), VALUE_CHARS))
    });
    let w = value.and_then(|v| find_mop(h, writer, |m| writes(h, m, key, v)));
    (key, what, w)
}

fn anomaly<'a>(h: &'a History, message: String, x: &Anomaly) -> Finding<'a> {
    let show = |v: Val| clip(&h.values.display(v), VALUE_CHARS).into_owned();
    // The past tense and the participle of the workload's write.
    let (verb, written) = match h.workload {
        Workload::ListAppend => ("appended", "appended"),
        Workload::RwRegister | Workload::CasRegister => ("wrote", "written"),
    };
    match x {
        Anomaly::G1a {
            reader: _,
            mop,
            writer,
            element,
        } => {
            let (key, what, w) = dirty_read(h, *mop, *element, *writer);
            let help = format!(
                "aborted read: a committed transaction observed{what} in {}, which a failed \
                 transaction {verb}",
                show(key)
            );
            let mut b = Builder::new(h, message, help);
            b.mop(*mop, format!("observes{what}"));
            if let Some(w) = w {
                b.mop(w, format!("{written} by a transaction that failed"));
            } else {
                b.op_of(*writer, "this transaction failed".to_string());
            }
            b.done()
        }
        Anomaly::G1b {
            reader: _,
            mop,
            writer,
            element,
        } => {
            let (key, what, w) = dirty_read(h, *mop, *element, *writer);
            let help = format!(
                "intermediate read: a committed transaction observed{what} in {}, which another \
                 transaction {verb} but then overwrote with a later write of its own",
                show(key)
            );
            let mut b = Builder::new(h, message, help);
            b.mop(*mop, format!("observes{what}"));
            if let Some(w) = w {
                b.mop(w, "an intermediate write".to_string());
                let later = h
                    .txn(*writer)
                    .mops
                    .clone()
                    .rev()
                    .find(|&m| is_write(h, m, key));
                if let Some(l) = later.filter(|&l| l != w) {
                    b.mop(l, "the transaction's final write".to_string());
                }
            } else {
                b.op_of(*writer, "the writer".to_string());
            }
            b.done()
        }
        Anomaly::Internal { mop, expected, .. } => {
            let expected = match expected {
                Expected::List {
                    prefix_known: true,
                    elems,
                } => list_text(h, elems),
                Expected::List {
                    prefix_known: false,
                    elems,
                } => {
                    let mut s = list_text(h, elems);
                    s.insert_str(1, if elems.is_empty() { "..." } else { "... " });
                    s
                }
                Expected::Value(v) => show(*v),
            };
            let expected = clip(&expected, OP_CHARS).into_owned();
            let key = show(h.mops[*mop as usize].key);
            let help = format!(
                "internal inconsistency: this read of {key} disagrees with the transaction's own \
                 earlier reads and writes of {key}, which say it should be {expected}"
            );
            let mut b = Builder::new(h, message, help);
            b.mop(*mop, format!("expected {}", clip(&expected, VALUE_CHARS)));
            b.done()
        }
        Anomaly::FutureRead { txn, mop, element } => {
            let key = h.mops[*mop as usize].key;
            let help = format!(
                "future read: the transaction observed {} in {}, an element it only appends later",
                show(*element),
                show(key)
            );
            let mut b = Builder::new(h, message, help);
            b.mop(*mop, format!("observes {}", show(*element)));
            if let Some(w) = find_mop(h, *txn, |m| writes(h, m, key, *element)) {
                b.mop(w, "appended only here".to_string());
            }
            b.done()
        }
        Anomaly::DirtyUpdate { key, values, txns } => {
            let shown: Vec<String> = values.iter().map(|&v| show(v)).collect();
            let help = format!(
                "dirty update: in the version order of {}, [{}], a failed transaction's append \
                 is followed by a committed one's: the committed update built on aborted state",
                show(*key),
                shown.join(" ")
            );
            let mut b = Builder::new(h, message, help);
            for (&v, &t) in values.iter().zip(txns) {
                let status = match h.txn(t).status {
                    crate::history::Status::Committed => "committed",
                    crate::history::Status::Aborted => "failed",
                    crate::history::Status::Indeterminate => "indeterminate",
                };
                match find_mop(h, t, |m| writes(h, m, *key, v)) {
                    Some(m) => b.mop(m, format!("{} appended by a {status} transaction", show(v))),
                    None => b.op_of(t, format!("a {status} transaction")),
                }
            }
            b.done()
        }
        Anomaly::DuplicateElements {
            mop, duplicates, ..
        } => {
            let dups: Vec<String> = duplicates
                .iter()
                .map(|&(v, n)| format!("{} appears {n} times", show(v)))
                .collect();
            let help = format!(
                "duplicate elements: every element is appended once, but this read of {} \
                 holds some more than once",
                show(h.mops[*mop as usize].key)
            );
            let mut b = Builder::new(h, message, help);
            b.mop(*mop, dups.join(", "));
            b.done()
        }
        Anomaly::IncompatibleOrder { key, reads } => {
            let help = format!(
                "incompatible order: neither of these reads of {} is a prefix of the other, so \
                 no single order of appends explains both",
                show(*key)
            );
            let mut b = Builder::new(h, message, help);
            b.mop(reads[0], "this read".to_string());
            b.mop(reads[1], "disagrees with this one".to_string());
            b.done()
        }
        Anomaly::LostUpdate {
            key,
            read_mop,
            txns,
        } => {
            let value = clip(&mop_value_text(h, *read_mop), VALUE_CHARS).into_owned();
            let help = format!(
                "lost update: {} committed transactions read the same version {value} of {} \
                 and each wrote {}: all but one of those updates is lost",
                txns.len(),
                show(*key),
                show(*key)
            );
            let mut b = Builder::new(h, message, help);
            for &t in txns {
                let r = find_mop(h, t, |m| {
                    let mop = &h.mops[m as usize];
                    mop.kind == MopKind::Read && mop.key == *key
                });
                if let Some(r) = r {
                    b.mop(r, format!("read {value}"));
                }
                if let Some(w) = find_mop(h, t, |m| is_write(h, m, *key)) {
                    b.mop(w, format!("then wrote {}", show(*key)));
                }
            }
            b.done()
        }
        Anomaly::CyclicVersions { key, scc, sources } => {
            let vals: Vec<String> = scc.iter().map(|&v| show(v)).collect();
            let srcs: Vec<String> = sources.iter().map(|s| format!(":{s}")).collect();
            let help = format!(
                "cyclic versions: the version order of {} inferred from {} has a cycle through \
                 the values {}",
                show(*key),
                srcs.join(", "),
                vals.join(", ")
            );
            Builder::new(h, message, help).done()
        }
        Anomaly::GarbageRead { mop, .. } => {
            let help = "garbage read: a committed transaction observed a value that no \
                        transaction wrote (isocheck's check; Elle does not report this)"
                .to_string();
            let mut b = Builder::new(h, message, help);
            b.mop(
                *mop,
                "no transaction wrote what this read observes".to_string(),
            );
            b.done()
        }
    }
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
