//! Every reportable anomaly explained once, as data: [`explain`] gives its
//! entry in Elle's result map, the help text for people and the labels on
//! the history file. The EDN and JSON printers take the entry, the human
//! report lays out the help and the labels; neither knows one anomaly from
//! another. A new anomaly is one arm here; the cas-register check's
//! findings are explained the same way in [`registers`].

pub(crate) mod registers;
mod weak;

use super::explain::{
    clip, elided, explanation, explanation_noted, invocation, list_text, mop_index, mop_text,
    mop_value_text, op_text, predicate_read, read_from_text, scc_indices, txn_index, txn_text,
    value_text, version_edn, version_text, Width,
};
use super::result::{edn, kws, map, R};
use crate::check::{lattice, Analysis, Case, Entry, Forced, FoundCycle};
use crate::graph::{Dep, Rel, Version, NO_MOP};
use crate::history::{History, MopKind, MopValue, Process, Span, Status, TxnId, Val, Workload};
use crate::infer::anomaly::{Anomaly, Expected};
use crate::infer::Constraint;
use std::fmt::Write;

/// How much of a long explanation the help text and labels keep.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Detail {
    /// Which half is wanted: the help text and labels (the report for
    /// people), or else the entry (the result maps). A cycle builds only
    /// the half asked for, since both grow with its length, and leaves the
    /// other empty (`nil` for the entry); the other anomalies are small and
    /// build both.
    pub prose: bool,
    /// Ops in the help text are clipped to this many characters.
    pub op_chars: usize,
    /// Values in labels and prose are clipped to this many characters.
    pub value_chars: usize,
    /// A cycle longer than `2 * ends + 1` shows only its first and last
    /// `ends` transactions and steps.
    pub ends: usize,
}

impl Detail {
    /// How much of each op and value the prose shows.
    pub(crate) fn width(self) -> Width {
        Width {
            op_chars: self.op_chars,
            value_chars: self.value_chars,
        }
    }

    /// The entry for the result map, unclipped.
    pub(crate) const ENTRY: Detail = Detail {
        prose: false,
        op_chars: usize::MAX,
        value_chars: usize::MAX,
        ends: usize::MAX,
    };
}

/// One anomaly, explained.
#[derive(Debug)]
pub(crate) struct Explanation<'a> {
    /// Its entry in the `:anomalies` map of Elle's result map.
    pub entry: R<'a>,
    /// What happened, in Elle's words where Elle has them.
    pub help: String,
    /// Texts on the spans of the history file that make it up, most
    /// telling first.
    pub labels: Vec<(Span, String)>,
    /// It leaves validity unknown rather than ruling a model out.
    pub warning: bool,
}

/// Builds an [`Explanation`]'s labels.
struct Labels<'a> {
    h: &'a History,
    labels: Vec<(Span, String)>,
}

impl<'a> Labels<'a> {
    fn new(h: &'a History) -> Labels<'a> {
        Labels {
            h,
            labels: Vec::new(),
        }
    }

    fn span(&mut self, span: Span, text: String) {
        self.labels.push((span, text));
    }

    fn mop(&mut self, m: u32, text: String) {
        if m != NO_MOP {
            if let Some(mop) = self.h.mops.get(m as usize) {
                self.span(mop.span, text);
            }
        }
    }

    fn op_of(&mut self, t: TxnId, text: String) {
        let span = self.h.op(self.h.txn(t).op()).span;
        self.span(span, text);
    }
}

fn explained<'a>(entry: R<'a>, help: String, labels: Labels<'_>) -> Explanation<'a> {
    Explanation {
        entry,
        help,
        labels: labels.labels,
        warning: false,
    }
}

/// Explains one entry of the verdict.
pub(crate) fn explain<'a>(h: &'a History, a: &Analysis, e: Entry, d: Detail) -> Explanation<'a> {
    match e {
        Entry::Cycle(i) => cycle(h, a, &a.cycles[i], d),
        Entry::Anomaly(i) => anomaly(h, &a.anomalies[i], d),
        Entry::CycleExists(i) => cycle_exists(h, a, i),
        Entry::Forced(i) => forced(h, a, &a.forced[i], d),
        Entry::Stopped(i) => stopped(a, i),
        Entry::NotChecked(model) => not_checked(h, a, model),
        Entry::Weak(i) => weak::violation(h, &a.weak[i]),
        Entry::EmptyGraph => Explanation {
            entry: R::Bool(true),
            help: empty_graph_help(h),
            labels: Vec::new(),
            warning: true,
        },
    }
}

/// Why an empty graph decides nothing: Elle's rule for Jepsen histories, which
/// need not hold every transaction; a complete log without a committed
/// transaction has nothing to check either; and ops without a `:process`
/// (elle's `paper-example.edn`) pair into no transaction at all.
fn empty_graph_help(h: &History) -> String {
    let missing = h
        .ops
        .iter()
        .filter(|o| o.process == Process::Missing)
        .count();
    if h.txns.is_empty() && missing > 0 && missing == h.ops.len() {
        return format!(
            "none of the {missing} ops has a :process, so none pairs with its completion \
             into a transaction: there is nothing to check, and validity is unknown (give \
             each op its client's :process, as Jepsen writes them)"
        );
    }
    let why = if h.complete_log {
        "the log holds no committed transaction, so there is nothing to check: \
         validity is unknown"
    } else {
        "no dependency between transactions could be inferred, so there is nothing \
         to check: validity is unknown (Elle's rule for Jepsen histories, which need \
         not hold every transaction; PolySI, dbcop and Cobra logs do, and are decided)"
    };
    why.to_string()
}

fn stopped(a: &Analysis, i: usize) -> Explanation<'static> {
    let st = &a.stopped[i];
    let entry = map(vec![
        ("type", kws(lattice::CYCLE_SEARCH_TIMEOUT)),
        ("model", kws(lattice::friendly_model(st.model))),
        ("reason", edn(format!("{:?}", st.reason))),
        ("stage", kws(st.stage.name())),
        ("constraints", R::Int(st.constraints as i64)),
    ]);
    let help = format!(
        "the solver stopped ({}) before deciding whether some order of the \
         {} pairs of writes in unknown order makes the history {}: validity is unknown",
        st.reason,
        st.constraints,
        lattice::friendly_model(st.model)
    );
    Explanation {
        entry,
        help,
        labels: Vec::new(),
        warning: true,
    }
}

/// A requested model the check does not decide, and why.
fn not_checked(h: &History, a: &Analysis, model: &'static str) -> Explanation<'static> {
    let reason = match (lattice::definition(model), a.assignments_beyond) {
        (Some(lattice::Definition::NotChecked(reason)), _) => reason.to_string(),
        (Some(lattice::Definition::Axiomatic(_)), _) if h.workload == Workload::ClosedPredicate => {
            "its check knows item reads, not what a predicate read saw".to_string()
        }
        (Some(lattice::Definition::Axiomatic(_)), Some(assignments)) => {
            format!(
            "its check takes one writer per read, and the {} reads here of a value more than one \
             transaction wrote have {}{assignments} choices of writers, more than the {} it tries",
            a.ambiguous,
            if assignments == u64::MAX { "at least " } else { "" },
            crate::check::weak::MAX_ASSIGNMENTS
        )
        }
        _ if a.writers_unchosen => "--certain-only chooses no writer for a read of a value more \
                                    than one transaction wrote"
            .to_string(),
        (Some(lattice::Definition::OrderKnown(definition)), _) => {
            format!(
                "{definition}; this history leaves the order of some writes open, and snapshot \
                 isolation was not found to hold over any"
            )
        }
        _ => "it has no check".to_string(),
    };
    let friendly = lattice::friendly_model(model);
    let entry = map(vec![
        ("type", kws(lattice::MODEL_NOT_CHECKED)),
        ("model", kws(friendly)),
        ("reason", edn(format!("{reason:?}"))),
    ]);
    Explanation {
        entry,
        help: format!("{friendly} is not checked ({reason}): validity is unknown"),
        labels: Vec::new(),
        warning: true,
    }
}

fn cycle_exists<'a>(h: &'a History, a: &Analysis, i: usize) -> Explanation<'a> {
    let c = &a.cycle_exists[i];
    let scc = scc_indices(h, &c.scc);
    let shown: Vec<String> = scc.iter().take(20).map(|i| i.to_string()).collect();
    let more = if scc.len() > 20 { " …" } else { "" };
    let mut help = format!(
        "a cycle exists in the subgraph {} of the {} transactions at indices {}{more}, \
         so the history is not {}",
        c.graph.subgraph(),
        c.scc.len(),
        shown.join(", "),
        lattice::friendly_model(c.graph.model)
    );
    let definition = lattice::characterisation(c.graph.model);
    if let Some(text) = definition {
        help.push_str(&format!(" ({text})"));
    }
    let mut labels = Labels::new(h);
    for &txn in c.scc.iter().take(LABELLED_TXNS) {
        labels.op_of(txn, "in the cycle".to_string());
    }
    let mut fields = vec![
        ("type", kws(c.graph.anomaly())),
        ("not", kws(lattice::friendly_model(c.graph.model))),
        ("subgraph", edn(c.graph.subgraph())),
        ("scc-size", R::Int(c.scc.len() as i64)),
        ("scc", R::Set(scc.into_iter().map(R::Int).collect())),
    ];
    if let Some(text) = definition {
        fields.push(("definition", edn(format!("{text:?}"))));
    }
    explained(map(fields), help, labels)
}

/// How many transactions of a cycle-exists component are labelled.
const LABELLED_TXNS: usize = 10;

fn cycle<'a>(h: &'a History, a: &Analysis, c: &FoundCycle, d: Detail) -> Explanation<'a> {
    let mut labels = Labels::new(h);
    if !d.prose {
        return explained(map(cycle_entry(h, a, c)), String::new(), labels);
    }
    let help = explanation(h, a, c, d.width(), d.ends);
    cycle_labels(&mut labels, a, c, d);
    explained(R::Nil, help, labels)
}

/// A cycle's `:cycle`, `:steps` and `:type`, in the order Elle prints them
/// (its explainer builds `{:cycle .., :steps ..}`, then adds `:type`).
fn cycle_entry<'a>(h: &'a History, a: &Analysis, c: &FoundCycle) -> Vec<(&'static str, R<'a>)> {
    let ops = a
        .cycle_txns(c)
        .into_iter()
        .map(|t| R::Edn(txn_text(h, t)))
        .collect();
    let steps = a.cycle_steps(c).map(|d| step(h, d)).collect();
    vec![
        ("cycle", R::Vec(ops)),
        ("steps", R::Vec(steps)),
        ("type", kws(c.name())),
    ]
}

/// One step of a cycle, as Elle's explainers' `explain-pair-data` builds it.
fn step<'a>(h: &'a History, d: &Dep) -> R<'a> {
    let key = || edn(h.values.display(d.key));
    let a_mop = || index(mop_index(h, d.from, d.a_mop));
    let b_mop = || index(mop_index(h, d.to, d.b_mop));
    match d.rel {
        Rel::Ww | Rel::Rw => map(vec![
            ("type", kws(d.rel.name())),
            ("key", key()),
            ("value", edn(version_edn(h, d.value))),
            ("value'", edn(version_edn(h, d.value2))),
            ("a-mop-index", a_mop()),
            ("b-mop-index", b_mop()),
        ]),
        Rel::Wr => match predicate_read(h, d) {
            Some(m) => map(vec![
                ("type", kws("wrp")),
                ("key", key()),
                ("value", edn(version_edn(h, d.value))),
                ("predicate-read", R::Edn(mop_text(h, m))),
                ("a-mop-index", a_mop()),
                ("b-mop-index", b_mop()),
            ]),
            None => map(vec![
                ("type", kws("wr")),
                ("key", key()),
                ("value", edn(version_edn(h, d.value))),
                ("a-mop-index", a_mop()),
                ("b-mop-index", b_mop()),
            ]),
        },
        Rel::Rwp => map(vec![
            ("type", kws("rwp")),
            ("key", key()),
            ("value", edn(version_edn(h, d.value))),
            ("value'", edn(version_edn(h, d.value2))),
            ("predicate?", R::Bool(true)),
            ("predicate-read", R::Edn(mop_text(h, d.a_mop))),
            ("a-mop-index", a_mop()),
            ("b-mop-index", b_mop()),
        ]),
        Rel::Process => map(vec![
            ("type", kws("process")),
            ("process", R::Int(h.txn(d.from).process)),
        ]),
        Rel::Realtime => map(vec![
            ("type", kws("realtime")),
            ("a'", R::Edn(txn_text(h, d.from))),
            ("b", R::Edn(op_text(h, invocation(h, d.to)))),
        ]),
    }
}

fn index(i: Option<u32>) -> R<'static> {
    i.map_or(R::Nil, |i| R::Int(i64::from(i)))
}

/// Labels on both ends of every step of a cycle the help shows, its
/// transactions named T1, T2, … as there.
fn cycle_labels(labels: &mut Labels<'_>, a: &Analysis, c: &FoundCycle, d: Detail) {
    let n = c.steps.len().max(1);
    let left_out = elided(c.steps.len(), d.ends);
    let name = |i: usize| format!("T{}", i % n + 1);
    for (i, dep) in a.cycle_steps(c).enumerate() {
        if !left_out.contains(&i) {
            step_labels(labels, dep, &name(i), &name(i + 1), d);
        }
    }
}

/// Short labels for the two ends of one step.
fn step_labels(b: &mut Labels<'_>, d: &Dep, an: &str, bn: &str, detail: Detail) {
    let h = b.h;
    let key = value_text(h, d.key, detail.value_chars);
    let v = version_text(h, d.value, detail.value_chars);
    let v2 = version_text(h, d.value2, detail.value_chars);
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
        Rel::Ww | Rel::Rw => {
            let first = match d.rel {
                Rel::Ww => format!("{an} set {key} to {v}"),
                _ => format!("{an} read {key} = {v}"),
            };
            b.mop(d.a_mop, first);
            b.mop(
                d.b_mop,
                format!("{bn} set {key} to {v2}, later in the version order"),
            );
        }
        Rel::Wr if predicate_read(h, d).is_some() => {
            b.mop(d.a_mop, format!("{an} set {key} to {v}"));
            b.mop(
                d.b_mop,
                format!("{bn}'s predicate read selected {key} = {v}"),
            );
        }
        Rel::Wr => {
            b.mop(d.a_mop, format!("{an} wrote {key} = {v}"));
            b.mop(d.b_mop, format!("{bn} read {key} = {v}"));
        }
        Rel::Rwp => {
            b.mop(
                d.a_mop,
                format!("{an}'s predicate read selected {key} = {v}"),
            );
            b.mop(
                d.b_mop,
                format!("{bn} set {key} to {v2}, changing whether the predicate matched"),
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
            b.span(
                inv.span,
                format!("{bn} was invoked afterwards, at index {}", inv.index),
            );
        }
    }
}

/// A cycle that every order of some writes closes: the pairs whose order is
/// unknown, then each order's cycle in Elle's words; the first order's
/// steps are labelled.
fn forced<'a>(h: &'a History, a: &Analysis, f: &Forced, d: Detail) -> Explanation<'a> {
    if !d.prose {
        return explained(forced_entry(h, a, f), String::new(), Labels::new(h));
    }
    let mut help = forced_intro(h, f, d.value_chars);
    for c in &f.cases {
        help.push_str("\n\n");
        help.push_str(&forced_case(h, a, f, c, d));
    }
    let mut labels = Labels::new(h);
    if let Some(c) = f.cases.first() {
        cycle_labels(&mut labels, a, &c.cycle, d);
    } else {
        for p in f.orders() {
            labels.op_of(p.a, "writes in unknown order".to_string());
            labels.op_of(p.b, "writes in unknown order".to_string());
        }
    }
    explained(R::Nil, help, labels)
}

/// The first part of a forced anomaly's help: the model it rules out and
/// the pairs of transactions whose write order is unknown (their keys
/// clipped to `value_chars`).
pub(crate) fn forced_intro(h: &History, f: &Forced, value_chars: usize) -> String {
    let model = lattice::friendly_model(f.model);
    // No pair left open: the order that reads followed by writes imply
    // (which every model forbidding G1c must respect) closes the cycle.
    let mut help = if f.orders().next().is_none() && reads_of_repeats(f).next().is_none() {
        format!(
            "the version order implied by transactions that read a key and then wrote it \
             makes the history not {model}."
        )
    } else if reads_of_repeats(f).next().is_none() {
        format!(
            "whatever order the database installed the writes below in, the history is not \
             {model}."
        )
    } else {
        format!(
            "whatever order the database installed the writes below in, and whichever write of \
             a repeated value each read below returned, the history is not {model}."
        )
    };
    if let Some(text) = lattice::characterisation(f.model) {
        let _ = write!(help, " Checked: {text}.");
    }
    for p in f.orders() {
        let keys: Vec<String> = pair_keys(p)
            .map(|k| value_text(h, k, value_chars))
            .collect();
        let [ia, ib] = [p.a, p.b].map(|t| txn_index(h, t));
        let _ = write!(
            help,
            "\nThe transactions at indices {ia} and {ib} both wrote {}, in an unknown order.",
            keys.join(", ")
        );
    }
    for (reader, writer, d) in reads_of_repeats(f) {
        let [ir, iw] = [reader, writer].map(|t| txn_index(h, t));
        let _ = write!(
            help,
            "\nThe transaction at index {ir} read {} = {}, which the transaction at index {iw} \
             wrote, among others.",
            value_text(h, d.key, value_chars),
            version_text(h, d.value, value_chars),
        );
    }
    let orders: Vec<Constraint> = f.orders().cloned().collect();
    if let Some(line) = mixed_orders_line(h, &orders, value_chars) {
        help.push('\n');
        help.push_str(&line);
    }
    help
}

/// The `:index` of the transaction of each pair whose writes come first in
/// a case, in the order of the pairs.
pub(crate) fn first_writers(h: &History, f: &Forced, c: &Case) -> Vec<String> {
    f.writes_first(c)
        .into_iter()
        .map(|t| txn_index(h, t).to_string())
        .collect()
}

/// One case of a forced anomaly: which writes come first, and the cycle
/// that order closes, in Elle's words.
pub(crate) fn forced_case(h: &History, a: &Analysis, f: &Forced, c: &Case, d: Detail) -> String {
    let first = first_writers(h, f, c);
    let reads: Vec<String> = (f.reads_from(c).into_iter())
        .map(|(r, w)| read_from_text(h, r, w))
        .collect();
    let given = match (first.is_empty(), reads.is_empty()) {
        (true, true) => "In that order".to_string(),
        (false, true) => format!("If the writes of index {} came first", first.join(", ")),
        (true, false) => format!("If {}", reads.join(" and ")),
        (false, false) => format!(
            "If the writes of index {} came first and {}",
            first.join(", "),
            reads.join(" and ")
        ),
    };
    format!(
        "{given}, this {} cycle follows:\n{}",
        c.cycle.name(),
        explanation_noted(h, a, &c.cycle, d.width(), d.ends, |step, later| {
            read_then_write_note(h, step, later, d.value_chars)
        })
    )
}

/// The pairs of transactions whose write order is unknown, and each
/// resolution's cycle, the transactions whose writes come first named by
/// their `:index`.
fn forced_entry<'a>(h: &'a History, a: &Analysis, f: &Forced) -> R<'a> {
    let pairs = f
        .orders()
        .map(|p| {
            map(vec![
                (
                    "txns",
                    R::Vec(vec![R::Edn(txn_text(h, p.a)), R::Edn(txn_text(h, p.b))]),
                ),
                (
                    "keys",
                    R::Vec(pair_keys(p).map(|k| edn(h.values.display(k))).collect()),
                ),
            ])
        })
        .collect();
    let cases = f
        .cases
        .iter()
        .map(|c| {
            // One index per pair, in the order of `:unknown-orders`.
            let first = f
                .writes_first(c)
                .into_iter()
                .map(|t| R::Int(txn_index(h, t)))
                .collect();
            let mut entries = vec![("writes-first", R::Vec(first))];
            let reads = f.reads_from(c);
            if !reads.is_empty() {
                entries.push(("reads-from", reads_from_entry(h, &reads)));
            }
            entries.extend(cycle_entry(h, a, &c.cycle));
            map(entries)
        })
        .collect();
    map(vec![
        ("type", kws(f.name)),
        ("not", kws(lattice::friendly_model(f.model))),
        ("unknown-orders", R::Vec(pairs)),
        ("cases", R::Vec(cases)),
    ])
}

/// `:reads-from`: the reader's and the writer's `:index` of each read of a
/// repeated value, as a case assumes them.
pub(crate) fn reads_from_entry<'a>(h: &History, reads: &[(TxnId, TxnId)]) -> R<'a> {
    let index = |t: TxnId| R::Int(txn_index(h, t));
    let pairs = reads.iter().map(|&(r, w)| R::Vec(vec![index(r), index(w)]));
    R::Vec(pairs.collect())
}

/// A forced anomaly's reads of repeated values: per possible writer in its
/// pairs, (reader, writer, the wr edge).
fn reads_of_repeats(f: &Forced) -> impl Iterator<Item = (TxnId, TxnId, &Dep)> {
    (f.pairs.iter()).filter_map(|p| Some((p.b, p.a, p.read_from()?)))
}

/// Why a pair's writes are taken in one order on all its keys, shown with
/// the first pair whose unknown order spans two keys: on those the pair
/// has a ww edge each way, so a mixed order closes a G0 cycle, which every
/// model the solver decides forbids. `None` when no pair spans two keys.
fn mixed_orders_line(h: &History, pairs: &[Constraint], value_chars: usize) -> Option<String> {
    pairs.iter().find_map(|p| {
        let both_ways = |k: &Val| {
            p.side(1)
                .iter()
                .any(|d| d.rel == Rel::Ww && d.key == *k && d.from == p.b && d.to == p.a)
        };
        let forward = |k: &Val| {
            p.side(0)
                .iter()
                .any(|d| d.rel == Rel::Ww && d.key == *k && d.from == p.a && d.to == p.b)
        };
        let mut keys = pair_keys(p).filter(|k| forward(k) && both_ways(k));
        let (k1, k2) = (keys.next()?, keys.next()?);
        let [ia, ib] = [p.a, p.b].map(|t| txn_index(h, t));
        let [k1, k2] = [k1, k2].map(|k| value_text(h, k, value_chars));
        Some(format!(
            "A pair's writes are taken in one order on all its keys: a mixed order (index {ia}'s \
             writes first on {k1}, index {ib}'s on {k2}) would make each transaction's write \
             precede the other's, a G0 cycle at once, so it needs no case."
        ))
    })
}

/// The reason a step's version order holds in every model the solver
/// decides, when the step's later transaction itself read the earlier
/// version and then wrote the key (the orders rw-register inference
/// returns as implied): installed before that version, its write would
/// close a G1c cycle with the version's writer.
fn read_then_write_note(h: &History, d: &Dep, later: &str, value_chars: usize) -> Option<String> {
    if h.workload != Workload::RwRegister || !matches!(d.rel, Rel::Ww | Rel::Rw) {
        return None;
    }
    let (Version::Val(v), Version::Val(w)) = (d.value, d.value2) else {
        return None;
    };
    let mut on_key = h
        .txn(d.to)
        .mops
        .clone()
        .filter(|&m| h.mops[m as usize].key == d.key);
    let first = &h.mops[on_key.next()? as usize];
    let read_first = first.kind == MopKind::Read && first.value() == MopValue::Val(v);
    if !read_first || !on_key.any(|m| writes(h, m, d.key, w)) {
        return None;
    }
    let [key, v] = [d.key, v].map(|x| value_text(h, x, value_chars));
    Some(format!(
        "{later} read {key} = {v} and then wrote {key}, so its write follows {v} in every model \
         that forbids G1c"
    ))
}

/// The keys a constraint's pair both wrote, in order of first appearance.
fn pair_keys(p: &Constraint) -> impl Iterator<Item = Val> + '_ {
    let mut seen = Vec::new();
    p.side(0)
        .iter()
        .filter(|d| d.rel == Rel::Ww)
        .map(|d| d.key)
        .filter(move |k| {
            let new = !seen.contains(k);
            if new {
                seen.push(*k);
            }
            new
        })
}

fn txn_r(h: &History, t: TxnId) -> R<'_> {
    R::Edn(txn_text(h, t))
}

fn mop_r(h: &History, m: u32) -> R<'_> {
    R::Edn(mop_text(h, m))
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

/// The list a read micro-op returned, in canonical EDN.
fn read_list(h: &History, m: u32) -> String {
    match h.mops[m as usize].value() {
        MopValue::List { start, len } => list_text(h, h.list(start, len)),
        MopValue::Val(v) => h.values.display(v),
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
    d: Detail,
) -> (Val, String, Option<u32>) {
    let key = h.mops[mop as usize].key;
    let value = element.or_else(|| read_value(h, mop));
    let what = value.map_or_else(String::new, |v| {
        format!(" {}", value_text(h, v, d.value_chars))
    });
    let w = value.and_then(|v| find_mop(h, writer, |m| writes(h, m, key, v)));
    (key, what, w)
}

/// A non-cycle anomaly: Elle's entry, with Elle's keys in Elle's order, and
/// what it means.
fn anomaly<'a>(h: &'a History, x: &Anomaly, d: Detail) -> Explanation<'a> {
    let c = Ctx { h, d };
    match x {
        Anomaly::G1a {
            reader,
            mop,
            writer,
            element,
        } => c.dirty_read(false, *reader, *mop, *writer, *element),
        Anomaly::G1b {
            reader,
            mop,
            writer,
            element,
        } => c.dirty_read(true, *reader, *mop, *writer, *element),
        Anomaly::Internal { txn, mop, expected } => c.internal(*txn, *mop, expected, false),
        Anomaly::OwnWriteUnseen { txn, mop, expected } => c.internal(*txn, *mop, expected, true),
        Anomaly::FutureRead { txn, mop, element } => c.future_read(*txn, *mop, *element),
        Anomaly::DirtyUpdate { key, values, txns } => c.dirty_update(*key, values, txns),
        Anomaly::DuplicateElements {
            txn,
            mop,
            duplicates,
        } => c.duplicate_elements(*txn, *mop, duplicates),
        Anomaly::IncompatibleOrder { key, reads } => c.incompatible_order(*key, *reads),
        Anomaly::LostUpdate {
            key,
            read_mop,
            txns,
        } => c.lost_update(*key, *read_mop, txns),
        Anomaly::CyclicVersions { key, scc, sources } => c.cyclic_versions(*key, scc, sources),
        Anomaly::GarbageRead { txn, mop } => c.garbage_read(*txn, *mop),
        Anomaly::PredicateReadMiss {
            txn,
            mop,
            key,
            versions,
        } => c.predicate_read_miss(*txn, *mop, *key, versions),
        Anomaly::TimestampInverted { txn, start, commit } => {
            c.timestamp_inverted(*txn, *start, *commit)
        }
        Anomaly::TimestampRead {
            serial,
            txn,
            mop,
            at,
            writer,
            expected,
        } => c.timestamp_read(*serial, (*txn, *mop, *at), *writer, *expected),
        Anomaly::TimestampLostUpdate { key, first, second } => {
            c.timestamp_lost_update(*key, *first, *second)
        }
    }
}

/// What the explanations of non-cycle anomalies share.
struct Ctx<'a> {
    h: &'a History,
    d: Detail,
}

impl<'a> Ctx<'a> {
    /// A value for prose, clipped.
    fn show(&self, v: Val) -> String {
        value_text(self.h, v, self.d.value_chars)
    }

    /// A value for the entry.
    fn val(&self, v: Val) -> R<'static> {
        edn(self.h.values.display(v))
    }

    /// The past tense and the participle of the workload's write.
    fn write_verb(&self) -> (&'static str, &'static str) {
        match self.h.workload {
            Workload::ListAppend => ("appended", "appended"),
            _ => ("wrote", "written"),
        }
    }

    /// `:G1a` (aborted read) or, `intermediate`, `:G1b`.
    fn dirty_read(
        &self,
        intermediate: bool,
        reader: TxnId,
        mop: u32,
        writer: TxnId,
        element: Option<Val>,
    ) -> Explanation<'a> {
        let h = self.h;
        let (verb, written) = self.write_verb();
        let (key, what, w) = dirty_read(h, mop, element, writer, self.d);
        let mut b = Labels::new(h);
        b.mop(mop, format!("observes{what}"));
        let help = if intermediate {
            format!(
                "intermediate read: a committed transaction observed{what} in {}, which another \
                 transaction {verb} but then overwrote with a later write of its own",
                self.show(key)
            )
        } else {
            format!(
                "aborted read: a committed transaction observed{what} in {}, which a failed \
                 transaction {verb}",
                self.show(key)
            )
        };
        match (w, intermediate) {
            (Some(w), false) => b.mop(w, format!("{written} by a transaction that failed")),
            (None, false) => b.op_of(writer, "this transaction failed".to_string()),
            (Some(w), true) => {
                b.mop(w, "an intermediate write".to_string());
                let later = h
                    .txn(writer)
                    .mops
                    .clone()
                    .rev()
                    .find(|&m| is_write(h, m, key));
                if let Some(l) = later.filter(|&l| l != w) {
                    b.mop(l, "the transaction's final write".to_string());
                }
            }
            (None, true) => b.op_of(writer, "the writer".to_string()),
        }
        let mut e = vec![
            ("op", txn_r(h, reader)),
            ("mop", mop_r(h, mop)),
            ("writer", txn_r(h, writer)),
        ];
        if let Some(el) = element {
            e.push(("element", self.val(el)));
        }
        explained(map(e), help, b)
    }

    /// `:internal`.
    /// `:internal`, or with `own_write` `:own-write-unseen`.
    fn internal(
        &self,
        txn: TxnId,
        mop: u32,
        expected: &Expected,
        own_write: bool,
    ) -> Explanation<'a> {
        let h = self.h;
        let (text, value) = match expected {
            Expected::List {
                prefix_known,
                elems,
            } => {
                let mut s = list_text(h, elems);
                let mut items: Vec<R> = Vec::new();
                if !prefix_known {
                    s.insert_str(1, if elems.is_empty() { "..." } else { "... " });
                    items.push(R::Sym("..."));
                }
                items.extend(elems.iter().map(|&v| self.val(v)));
                (s, R::Vec(items))
            }
            Expected::Value(v) => (self.show(*v), self.val(*v)),
        };
        let text = clip(&text, self.d.op_chars).into_owned();
        let key = self.show(h.mops[mop as usize].key);
        let help = match own_write {
            false => format!(
                "internal inconsistency: this read of {key} disagrees with the transaction's own \
                 earlier reads and writes of {key}, which say it should be {text}"
            ),
            true => format!(
                "own write unseen: this read of {key} does not show the transaction's own \
                 earlier writes of {key} as the latest (it should be {text}); every model \
                 assumes a transaction reads its own writes (isocheck's check; Elle reports it \
                 as internal)"
            ),
        };
        let mut b = Labels::new(h);
        b.mop(mop, format!("expected {}", clip(&text, self.d.value_chars)));
        let entry = map(vec![
            ("op", txn_r(h, txn)),
            ("mop", mop_r(h, mop)),
            ("expected", value),
        ]);
        explained(entry, help, b)
    }

    /// `:future-read`.
    fn future_read(&self, txn: TxnId, mop: u32, element: Val) -> Explanation<'a> {
        let h = self.h;
        let key = h.mops[mop as usize].key;
        let (what, done) = match h.workload {
            Workload::RwRegister => ("a value it only writes", "written only here"),
            _ => ("an element it only appends", "appended only here"),
        };
        let help = format!(
            "future read: the transaction observed {} in {}, {what} later",
            self.show(element),
            self.show(key)
        );
        let mut b = Labels::new(h);
        b.mop(mop, format!("observes {}", self.show(element)));
        if let Some(w) = find_mop(h, txn, |m| writes(h, m, key, element)) {
            b.mop(w, done.to_string());
        }
        let entry = map(vec![
            ("op", txn_r(h, txn)),
            ("mop", mop_r(h, mop)),
            ("element", self.val(element)),
        ]);
        explained(entry, help, b)
    }

    /// `:dirty-update`.
    fn dirty_update(&self, key: Val, values: &[Val], txns: &[TxnId]) -> Explanation<'a> {
        let h = self.h;
        let shown: Vec<String> = values.iter().map(|&v| self.show(v)).collect();
        let help = format!(
            "dirty update: in the version order of {}, [{}], a failed transaction's append \
             is followed by a committed one's: the committed update built on aborted state",
            self.show(key),
            shown.join(" ")
        );
        let mut b = Labels::new(h);
        for (&v, &t) in values.iter().zip(txns) {
            let status = match h.txn(t).status {
                Status::Committed => "committed",
                Status::Aborted => "failed",
                Status::Indeterminate => "indeterminate",
            };
            match find_mop(h, t, |m| writes(h, m, key, v)) {
                Some(m) => b.mop(
                    m,
                    format!("{} appended by a {status} transaction", self.show(v)),
                ),
                None => b.op_of(t, format!("a {status} transaction")),
            }
        }
        // Elle prints the first and last writers: `[t1 '... t2]`.
        let mut ts = Vec::new();
        if let Some(&first) = txns.first() {
            ts.push(txn_r(h, first));
            ts.push(R::Sym("..."));
        }
        if let Some(&last) = txns.last() {
            ts.push(txn_r(h, last));
        }
        let entry = map(vec![
            ("key", self.val(key)),
            (
                "values",
                R::Vec(values.iter().map(|&v| self.val(v)).collect()),
            ),
            ("txns", R::Vec(ts)),
        ]);
        explained(entry, help, b)
    }

    /// `:duplicate-elements`.
    fn duplicate_elements(
        &self,
        txn: TxnId,
        mop: u32,
        duplicates: &[(Val, u32)],
    ) -> Explanation<'a> {
        let h = self.h;
        let dups: Vec<String> = duplicates
            .iter()
            .map(|&(v, n)| format!("{} appears {n} times", self.show(v)))
            .collect();
        let help = format!(
            "duplicate elements: every element is appended once, but this read of {} \
             holds some more than once",
            self.show(h.mops[mop as usize].key)
        );
        let mut b = Labels::new(h);
        b.mop(mop, dups.join(", "));
        let counts = duplicates
            .iter()
            .map(|&(v, n)| (self.val(v), R::Int(i64::from(n))))
            .collect();
        let entry = map(vec![
            ("op", txn_r(h, txn)),
            ("mop", mop_r(h, mop)),
            ("duplicates", R::Map(counts)),
        ]);
        explained(entry, help, b)
    }

    /// `:incompatible-order`.
    fn incompatible_order(&self, key: Val, reads: [u32; 2]) -> Explanation<'a> {
        let h = self.h;
        let help = format!(
            "incompatible order: neither of these reads of {} is a prefix of the other, so \
             no single order of appends explains both",
            self.show(key)
        );
        let mut b = Labels::new(h);
        b.mop(reads[0], "this read".to_string());
        b.mop(reads[1], "disagrees with this one".to_string());
        let entry = map(vec![
            ("key", self.val(key)),
            (
                "values",
                R::Vec(reads.iter().map(|&m| edn(read_list(h, m))).collect()),
            ),
        ]);
        explained(entry, help, b)
    }

    /// `:lost-update`.
    fn lost_update(&self, key: Val, read_mop: u32, txns: &[TxnId]) -> Explanation<'a> {
        let h = self.h;
        let read = mop_value_text(h, read_mop);
        let value = clip(&read, self.d.value_chars).into_owned();
        let help = format!(
            "lost update: {} committed transactions read the same version {value} of {} \
             and each wrote {}: all but one of those updates is lost",
            txns.len(),
            self.show(key),
            self.show(key)
        );
        let mut b = Labels::new(h);
        for &t in txns {
            let r = find_mop(h, t, |m| {
                let mop = &h.mops[m as usize];
                mop.kind == MopKind::Read && mop.key == key
            });
            if let Some(r) = r {
                b.mop(r, format!("read {value}"));
            }
            if let Some(w) = find_mop(h, t, |m| is_write(h, m, key)) {
                b.mop(w, format!("then wrote {}", self.show(key)));
            }
        }
        let entry = map(vec![
            ("key", self.val(key)),
            ("value", edn(read)),
            ("txns", R::Vec(txns.iter().map(|&t| txn_r(h, t)).collect())),
        ]);
        explained(entry, help, b)
    }

    /// `:cyclic-versions`.
    fn cyclic_versions(&self, key: Val, scc: &[Val], sources: &[&'static str]) -> Explanation<'a> {
        let vals: Vec<String> = scc.iter().map(|&v| self.show(v)).collect();
        let srcs: Vec<String> = sources.iter().map(|s| format!(":{s}")).collect();
        let help = format!(
            "cyclic versions: the version order of {} inferred from {} has a cycle through \
             the values {}",
            self.show(key),
            srcs.join(", "),
            vals.join(", ")
        );
        let entry = map(vec![
            ("key", self.val(key)),
            ("scc", R::Set(scc.iter().map(|&v| self.val(v)).collect())),
            ("sources", R::Vec(sources.iter().map(|&s| kws(s)).collect())),
        ]);
        explained(entry, help, Labels::new(self.h))
    }

    /// `:garbage-read` (isocheck's own).
    fn garbage_read(&self, txn: TxnId, mop: u32) -> Explanation<'a> {
        let h = self.h;
        let help = "garbage read: a committed transaction observed a value that no \
                    transaction wrote (isocheck's check; Elle does not report this)"
            .to_string();
        let mut b = Labels::new(h);
        b.mop(
            mop,
            "no transaction wrote what this read observes".to_string(),
        );
        let entry = map(vec![("op", txn_r(h, txn)), ("mop", mop_r(h, mop))]);
        explained(entry, help, b)
    }

    /// `:predicate-read-miss` (closed-predicate): Elle's `:op`, `:mop`,
    /// `:key`, `:versions`.
    fn predicate_read_miss(
        &self,
        txn: TxnId,
        mop: u32,
        key: Val,
        versions: &[Val],
    ) -> Explanation<'a> {
        let h = self.h;
        let shown: Vec<String> = versions.iter().map(|&v| self.show(v)).collect();
        let help = format!(
            "predicate read miss: a committed predicate read did not return key {}, although \
             the predicate matches every version the key ever had ({}): it must have seen one",
            self.show(key),
            shown.join(", ")
        );
        let mut b = Labels::new(h);
        b.mop(mop, format!("does not return {}", self.show(key)));
        let entry = map(vec![
            ("op", txn_r(h, txn)),
            ("mop", mop_r(h, mop)),
            ("key", self.val(key)),
            ("versions", edn(list_text(h, versions))),
        ]);
        explained(entry, help, b)
    }

    /// `:timestamp-inverted`.
    fn timestamp_inverted(&self, txn: TxnId, start: i64, commit: i64) -> Explanation<'a> {
        let h = self.h;
        let help = format!(
            "timestamp inverted: the database reports this transaction starting at {start}, \
             after it committed at {commit} (isocheck's check of reported timestamps)"
        );
        let mut b = Labels::new(h);
        if let Some(m) = find_mop(h, txn, |_| true) {
            b.mop(m, format!("started at {start}, committed at {commit}"));
        }
        let entry = map(vec![
            ("op", txn_r(h, txn)),
            ("start-timestamp", edn(start.to_string())),
            ("commit-timestamp", edn(commit.to_string())),
        ]);
        explained(entry, help, b)
    }

    /// `:timestamp-snapshot-read` and `:timestamp-serial-read`: `read` is
    /// the reader, its micro-op and its read point.
    fn timestamp_read(
        &self,
        serial: bool,
        (txn, mop, at): (TxnId, u32, i64),
        writer: Option<(TxnId, i64)>,
        expected: Option<(TxnId, i64)>,
    ) -> Explanation<'a> {
        let h = self.h;
        let key = h.mops[mop as usize].key;
        let read = mop_value_text(h, mop);
        let (name, point) = match serial {
            true => ("serial read", format!("just before its commit at {at}")),
            false => ("snapshot read", format!("at its start, {at}")),
        };
        let version = |v: Option<(TxnId, i64)>| match v {
            Some((_, c)) => format!("the version committed at {c}"),
            None => "the initial version".to_string(),
        };
        let help = format!(
            "timestamp {name}: by the timestamps the database reports, this transaction read \
             {} {point}, when the latest committed version was {}; it read {} instead \
             (isocheck's check of reported timestamps)",
            self.show(key),
            version(expected),
            version(writer)
        );
        let mut b = Labels::new(h);
        b.mop(
            mop,
            format!(
                "read {}: {}",
                clip(&read, self.d.value_chars),
                version(writer)
            ),
        );
        if let Some((e, c)) = expected {
            if let Some(w) = find_mop(h, e, |m| is_write(h, m, key)) {
                b.mop(w, format!("committed at {c}: the version to read at {at}"));
            }
        }
        let commit =
            |v: Option<(TxnId, i64)>| v.map_or_else(|| edn("nil"), |(_, c)| edn(c.to_string()));
        let op = |v: Option<(TxnId, i64)>| v.map_or_else(|| edn("nil"), |(t, _)| txn_r(h, t));
        let entry = map(vec![
            ("op", txn_r(h, txn)),
            ("mop", mop_r(h, mop)),
            ("read-at", edn(at.to_string())),
            ("writer", op(writer)),
            ("writer-commit", commit(writer)),
            ("expected-writer", op(expected)),
            ("expected-commit", commit(expected)),
        ]);
        explained(entry, help, b)
    }

    /// `:timestamp-lost-update`.
    fn timestamp_lost_update(
        &self,
        key: Val,
        (first, committed): (TxnId, i64),
        (second, start, commit): (TxnId, i64, i64),
    ) -> Explanation<'a> {
        let h = self.h;
        let help = format!(
            "timestamp lost update: both transactions wrote {}; the second took its snapshot at \
             {start}, before the first committed at {committed}, and still committed at \
             {commit}: under snapshot isolation the first committer wins (isocheck's check of \
             reported timestamps)",
            self.show(key)
        );
        let mut b = Labels::new(h);
        if let Some(w) = find_mop(h, first, |m| is_write(h, m, key)) {
            b.mop(w, format!("committed at {committed}"));
        }
        if let Some(w) = find_mop(h, second, |m| is_write(h, m, key)) {
            b.mop(w, format!("snapshot at {start}, committed at {commit}"));
        }
        let entry = map(vec![
            ("key", self.val(key)),
            ("first", txn_r(h, first)),
            ("first-commit", edn(committed.to_string())),
            ("second", txn_r(h, second)),
            ("second-start", edn(start.to_string())),
            ("second-commit", edn(commit.to_string())),
        ]);
        explained(entry, help, b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{self, verdict, CheckOptions};

    const PEOPLE: Detail = Detail {
        prose: true,
        op_chars: 240,
        value_chars: 40,
        ends: 10,
    };

    /// The explanation of the first entry of type `t`, for people or for
    /// the result map.
    fn first_of<'a>(h: &'a History, models: &[&str], t: &str, d: Detail) -> Explanation<'a> {
        let opts = CheckOptions {
            consistency_models: Some(models.iter().map(|m| m.to_string()).collect()),
            ..CheckOptions::default()
        };
        let a = check::analyze(h, &opts).expect("known options");
        let v = verdict::verdict(&a);
        explain(h, &a, v.anomalies[t][0], d)
    }

    fn keys(entry: &R<'_>) -> Vec<String> {
        match entry {
            R::Map(kv) => kv
                .iter()
                .map(|(k, _)| match k {
                    R::Kw(k) => k.to_string(),
                    other => panic!("not a keyword: {other:?}"),
                })
                .collect(),
            other => panic!("not a map: {other:?}"),
        }
    }

    fn label_texts(x: &Explanation<'_>) -> Vec<String> {
        x.labels.iter().map(|(_, t)| t.clone()).collect()
    }

    #[test]
    fn an_aborted_read_names_the_read_and_the_failed_write() {
        let text = "{:index 0, :type :fail, :process 0, :f :txn, :value [[:append :x 1]]}\n\
                    {:index 1, :type :ok, :process 0, :f :txn, :value [[:r :x [1]]]}\n";
        let h = crate::history::parse_edn("g1a.edn", text).expect("history");
        let x = first_of(&h, &["read-committed"], "G1a", PEOPLE);
        assert_eq!(keys(&x.entry), ["op", "mop", "writer", "element"]);
        assert_eq!(
            x.help,
            "aborted read: a committed transaction observed 1 in :x, which a failed \
             transaction appended"
        );
        assert_eq!(
            label_texts(&x),
            ["observes 1", "appended by a transaction that failed"]
        );
        // The labels point at the micro-ops as written.
        let spans: Vec<&str> = x.labels.iter().map(|(s, _)| h.text(*s)).collect();
        assert_eq!(spans, ["[:r :x [1]]", "[:append :x 1]"]);
        assert!(!x.warning);
    }

    #[test]
    fn a_cycle_builds_only_the_half_asked_for() {
        // T1 and T2 each read the other's append: G1c.
        let text = "{:index 0, :type :invoke, :process 0, :f :txn, :value [[:append :x 1] [:r :y nil]]}\n\
                    {:index 1, :type :invoke, :process 1, :f :txn, :value [[:append :y 1] [:r :x nil]]}\n\
                    {:index 2, :type :ok, :process 0, :f :txn, :value [[:append :x 1] [:r :y [1]]]}\n\
                    {:index 3, :type :ok, :process 1, :f :txn, :value [[:append :y 1] [:r :x [1]]]}\n";
        let h = crate::history::parse_edn("g1c.edn", text).expect("history");
        let people = first_of(&h, &["read-committed"], "G1c", PEOPLE);
        assert!(people.help.starts_with("Let:\n  T1 = {:index 2"));
        assert!(people.help.ends_with("a contradiction!"));
        assert_eq!(people.labels.len(), 4);
        assert_eq!(people.entry, R::Nil);
        let data = first_of(&h, &["read-committed"], "G1c", Detail::ENTRY);
        assert_eq!(keys(&data.entry), ["cycle", "steps", "type"]);
        assert!(data.help.is_empty() && data.labels.is_empty());
    }

    #[test]
    fn an_empty_graph_is_a_warning() {
        let text = "{:index 0, :type :ok, :process 0, :f :txn, :value [[:r :x nil]]}\n";
        let h = crate::history::parse_edn("empty.edn", text).expect("history");
        let x = first_of(&h, &["serializable"], "empty-transaction-graph", PEOPLE);
        assert_eq!(x.entry, R::Bool(true));
        assert!(x.warning && x.labels.is_empty());
    }
}
