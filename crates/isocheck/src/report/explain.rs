//! What the reports share: ops and micro-ops as the history wrote them, and
//! Elle's wording for each step of a cycle (`render-explanation` of its
//! explainers, `explain-binding`, `explain-cycle-ops`).

use crate::check::{Analysis, FoundCycle};
use crate::graph::{Dep, Rel, Version, NO_MOP};
use crate::history::edn::{self, Kind};
use crate::history::formats::json;
use crate::history::{
    History, MopKind, MopValue, OpId, OpValue, Process, Span, TxnId, Val, Workload,
};
use std::borrow::Cow;
use std::fmt::Write;

/// The EDN text of an op: its source text for Jepsen EDN histories, that
/// text read as EDN for JSON ones, or a map built from the model for formats
/// whose text is not EDN (PolySI, Chronos) or that have no text (dbcop,
/// Cobra).
pub(crate) fn op_text(h: &History, id: OpId) -> Cow<'_, str> {
    let op = h.op(id);
    let text = whole_text(h, op.span);
    if let Some(edn) = json_as_edn(h, text, json::Context::Op) {
        return Cow::Owned(edn);
    }
    if !h.rebuilt_ops && (text.starts_with('{') || text.starts_with('#')) {
        return Cow::Borrowed(text);
    }
    let mut s = format!("{{:index {}, :type :{}", op.index, op.ty.name());
    match op.process {
        Process::Client(p) => {
            let _ = write!(s, ", :process {p}");
        }
        Process::Other(v) => {
            let _ = write!(s, ", :process {}", h.values.display(v));
        }
        Process::Missing => {}
    }
    if let OpValue::Txn { start, len } = op.value {
        s.push_str(", :value [");
        for m in start..start + len {
            if m > start {
                s.push(' ');
            }
            s.push_str(&mop_text(h, m));
        }
        s.push(']');
    }
    s.push('}');
    Cow::Owned(s)
}

/// The text an op or a micro-op was read from, whole: a span longer than
/// 16 MiB is clipped (see [`Span`]), and such a form is read again from its
/// start to find its end, so that EDN and JSON reports quote it whole.
fn whole_text(h: &History, span: Span) -> &str {
    let text = h.source.text();
    if !(h.json && span.is_clipped()) {
        return edn::form_text(text, span);
    }
    let tail = span.text_from(text);
    json::value_end(tail)
        .and_then(|end| tail.get(..end))
        .unwrap_or("")
}

/// The EDN of a JSON history's text, as elle-cli reads it.
fn json_as_edn(h: &History, text: &str, cx: json::Context) -> Option<String> {
    h.json.then(|| json::to_edn(text, cx)).flatten()
}

/// [`json_as_edn`] of a micro-op's text. A closed-predicate `init` entry's
/// text (`"x": 0`) is no JSON value: it is rebuilt from the model.
fn json_mop_as_edn(h: &History, text: &str) -> Option<String> {
    match text.starts_with('[') {
        true => json_as_edn(h, text, json::Context::MicroOp),
        false => None,
    }
}

/// The EDN text of the op standing for a transaction (its completion).
pub(crate) fn txn_text(h: &History, t: TxnId) -> Cow<'_, str> {
    op_text(h, h.txn(t).op())
}

/// The EDN text of a micro-op, as written or rebuilt from the model.
pub(crate) fn mop_text(h: &History, m: u32) -> Cow<'_, str> {
    let mop = &h.mops[m as usize];
    let text = whole_text(h, mop.span);
    if let Some(edn) = json_mop_as_edn(h, text) {
        return Cow::Owned(edn);
    }
    if text.starts_with('[') || text.starts_with('(') {
        return Cow::Borrowed(text);
    }
    Cow::Owned(format!(
        "[:{} {} {}]",
        mop.kind.name(),
        h.values.display(mop.key),
        model_value(h, m)
    ))
}

/// The value of a micro-op as the model holds it, in canonical EDN.
fn model_value(h: &History, m: u32) -> String {
    match h.mops[m as usize].value() {
        MopValue::Val(v) => h.values.display(v),
        MopValue::List { start, len } => list_text(h, h.list(start, len)),
    }
}

/// `[a b c]`
pub(crate) fn list_text(h: &History, elems: &[crate::history::Val]) -> String {
    let mut s = String::from("[");
    for (i, v) in elems.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        h.values.write_canonical(*v, &mut s);
    }
    s.push(']');
    s
}

/// The value slot of a micro-op as the history wrote it (`nil` for a
/// two-element read).
pub(crate) fn mop_value_text(h: &History, m: u32) -> String {
    let mop = &h.mops[m as usize];
    let edn;
    let text = match json_mop_as_edn(h, whole_text(h, mop.span)) {
        Some(converted) => {
            edn = converted;
            edn.as_str()
        }
        None => whole_text(h, mop.span),
    };
    if text.starts_with('[') || text.starts_with('(') {
        if let Ok(nodes) = edn::read_all(text) {
            if let Some(Kind::Vector(items) | Kind::List(items)) = nodes.first().map(|n| &n.kind) {
                return match items.get(2) {
                    Some(v) => edn::form_text(text, v.span).to_string(),
                    None => "nil".to_string(),
                };
            }
        }
    }
    model_value(h, m)
}

/// The `:index` of a transaction's op, by which reports name it.
pub(crate) fn txn_index(h: &History, t: TxnId) -> i64 {
    h.op(h.txn(t).op()).index
}

/// A read's writer as a case of a read of a repeated value assumes it:
/// `index 7 read index 3's write`.
pub(crate) fn read_from_text(h: &History, reader: TxnId, writer: TxnId) -> String {
    format!(
        "index {} read index {}'s write",
        txn_index(h, reader),
        txn_index(h, writer)
    )
}

/// The position of a micro-op within its transaction (Elle's `:a-mop-index`).
pub(crate) fn mop_index(h: &History, t: TxnId, m: u32) -> Option<u32> {
    let range = &h.txn(t).mops;
    // Elle's `write-mop-index` gives a closed-predicate `:init` op's writes
    // index 0: the op is one write of its whole map.
    if h.mops
        .get(m as usize)
        .is_some_and(|x| x.kind == MopKind::Init)
    {
        return Some(0);
    }
    (m != NO_MOP && range.contains(&m)).then(|| m - range.start)
}

/// The predicate read behind a predicate dependency (closed-predicate's
/// `:wrp`, a wr step whose reader is a predicate read, and `:rwp`), as an
/// index into `History::mops`; `None` for an item dependency.
pub(crate) fn predicate_read(h: &History, d: &Dep) -> Option<u32> {
    let m = match d.rel {
        Rel::Wr => d.b_mop,
        Rel::Rwp => d.a_mop,
        _ => return None,
    };
    let kind = h.mops.get(m as usize).map(|x| x.kind);
    (kind == Some(MopKind::PredRead)).then_some(m)
}

/// A step's relation as Elle names it: `wrp` for a predicate write-read.
pub(crate) fn step_name(h: &History, d: &Dep) -> &'static str {
    match (d.rel, predicate_read(h, d)) {
        (Rel::Wr, Some(_)) => "wrp",
        (rel, _) => rel.name(),
    }
}

/// A version as a step map prints it: `:elle.list-append/init` or `nil` for
/// the initial state, else the value.
pub(crate) fn version_edn(h: &History, v: Version) -> String {
    match v {
        Version::Init => match h.workload {
            Workload::ListAppend => ":elle.list-append/init".to_string(),
            _ => "nil".to_string(),
        },
        Version::Val(v) => h.values.display(v),
    }
}

/// The op that stands for `to` in a realtime step: its invocation.
pub(crate) fn invocation(h: &History, t: TxnId) -> OpId {
    let txn = h.txn(t);
    txn.invoke.unwrap_or_else(|| txn.op())
}

/// Elle's sentence for one step `a < b` (its explainers' `render-explanation`),
/// its key and values clipped to `value_chars`.
pub(crate) fn step_sentence(h: &History, d: &Dep, a: &str, b: &str, value_chars: usize) -> String {
    let key = value_text(h, d.key, value_chars);
    let v = version_text(h, d.value, value_chars);
    let v2 = version_text(h, d.value2, value_chars);
    match (h.workload, d.rel) {
        (Workload::ListAppend, Rel::Ww) => {
            format!("{b} appended {v2} after {a} appended {v} to {key}")
        }
        (Workload::ListAppend, Rel::Wr) => {
            format!("{b} observed {a}'s append of {v} to key {key}")
        }
        (Workload::ListAppend, Rel::Rw) => match d.value {
            Version::Init => format!(
                "{a} observed the initial (nil) state of {key}, which {b} created by appending {v2}"
            ),
            Version::Val(_) => format!("{a} did not observe {b}'s append of {v2} to {key}"),
        },
        (_, Rel::Ww) => format!(
            "{a} set key {key} to {v}, and {b} set it to {v2}, which came later in the version order"
        ),
        (_, Rel::Wr) => match predicate_read(h, d) {
            Some(m) => format!(
                "{a} set key {key} to {v}, which was in the version set of {b}'s predicate read {}",
                clip(&mop_text(h, m), value_chars)
            ),
            None => format!("{a} wrote {key} = {v}, which was read by {b}"),
        },
        (_, Rel::Rwp) => format!(
            "{a} performed a predicate read {} whose version set held key {key} = {v}, which {b} \
             overwrote with {v2}, changing whether the predicate matched",
            clip(&mop_text(h, d.a_mop), value_chars)
        ),
        (_, Rel::Rw) => format!(
            "{a} read key {key} = {v}, and {b} set it to {v2}, which came later in the version order"
        ),
        (_, Rel::Process) => format!(
            "process {} executed {a} before {b}",
            h.txn(d.from).process
        ),
        (_, Rel::Realtime) => {
            let a_op = h.op(h.txn(d.from).op());
            let b_op = h.op(invocation(h, d.to));
            format!(
                "{a} completed at index {},{} before the invocation of {b}, at index {}",
                a_op.index,
                realtime_gap(a_op.time(), b_op.time()),
                b_op.index
            )
        }
    }
}

/// `" 0.123 seconds"`, or `" just"` when the clock says no time passed.
/// Missing times count as -1, as `jepsen.history` fills them in.
fn realtime_gap(a: Option<i64>, b: Option<i64>) -> String {
    let dt = b.unwrap_or(-1).saturating_sub(a.unwrap_or(-1));
    if dt > 0 {
        format!(" {:.3} seconds", dt as f64 / 1e9)
    } else {
        " just".to_string()
    }
}

/// `T1`, `T2`, … for the transactions of a cycle (first not repeated).
pub(crate) fn names(n: usize) -> Vec<String> {
    (1..=n).map(|i| format!("T{i}")).collect()
}

/// Elle's explanation of a whole cycle, as `--directory`'s text files hold
/// it: the `Let:` binding of names to ops, then one line per step, the last
/// one "However, …: a contradiction!"; only an op or value longer than
/// any a person reads ([`FILE_OP_CHARS`], [`FILE_VALUE_CHARS`]) is clipped.
pub(crate) fn cycle_explanation(h: &History, a: &Analysis, c: &FoundCycle) -> String {
    let width = Width {
        op_chars: FILE_OP_CHARS,
        value_chars: FILE_VALUE_CHARS,
    };
    explanation(h, a, c, width, usize::MAX)
}

/// What `--directory`'s files (Elle's explanations, the DOT drawings) show
/// of an op and of a value: whole, unless pathological.
pub(crate) const FILE_OP_CHARS: usize = 10_000;
pub(crate) const FILE_VALUE_CHARS: usize = 1_000;

/// What prose without a layout of its own (the register and weak-level
/// explanations, the Jepsen checkers' reports) shows of an op and a value.
pub(crate) const PROSE: Width = Width {
    op_chars: 240,
    value_chars: 60,
};

/// How many characters of each op and each value a text shows.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Width {
    pub op_chars: usize,
    pub value_chars: usize,
}

/// The indices a long list leaves out when only its first and last `ends`
/// items are shown: none when at most one would be left out.
pub(crate) fn elided(n: usize, ends: usize) -> std::ops::Range<usize> {
    match ends.checked_mul(2).and_then(|e| e.checked_add(1)) {
        Some(kept) if n > kept => ends..n - ends,
        _ => 0..0,
    }
}

/// [`cycle_explanation`] with each op and value clipped to `width` and, in
/// a cycle longer than `2 * ends + 1`, only the first and last `ends`
/// transactions and steps, with a count of those left out. Linear in the
/// length of the cycle.
pub(crate) fn explanation(
    h: &History,
    a: &Analysis,
    c: &FoundCycle,
    width: Width,
    ends: usize,
) -> String {
    explanation_noted(h, a, c, width, ends, |_, _| None)
}

/// [`explanation`], with `note(step, later)` appended in parentheses to the
/// steps it has something to say about (`later` names the step's second
/// transaction).
pub(crate) fn explanation_noted(
    h: &History,
    a: &Analysis,
    c: &FoundCycle,
    width: Width,
    ends: usize,
    note: impl Fn(&Dep, &str) -> Option<String>,
) -> String {
    let txns = a.cycle_txns(c);
    let n = txns.len().saturating_sub(1);
    let name = |i: usize| format!("T{}", i % n.max(1) + 1);
    let mut s = String::from("Let:\n");
    push_lines(
        &mut s,
        n,
        ends,
        |gap| {
            format!(
                "  … {} more transactions, {} to {} (--directory writes the whole cycle)",
                gap.len(),
                name(gap.start),
                name(gap.end - 1)
            )
        },
        |i| {
            format!(
                "  {} = {}",
                name(i),
                clip(&txn_text(h, txns[i]), width.op_chars)
            )
        },
    );
    s.push_str("\n\nThen:\n");
    let steps: Vec<&Dep> = a.cycle_steps(c).collect();
    push_lines(
        &mut s,
        steps.len(),
        ends,
        |gap| format!("  - … {} more steps …", gap.len()),
        |i| {
            let (an, bn) = (&name(i), &name(i + 1));
            let mut because = format!(
                "{an} < {bn}, because {}",
                step_sentence(h, steps[i], an, bn, width.value_chars)
            );
            if let Some(n) = note(steps[i], bn) {
                let _ = write!(because, " ({n})");
            }
            if i + 1 == steps.len() {
                format!("  - However, {because}: a contradiction!")
            } else {
                format!("  - {because}.")
            }
        },
    );
    s
}

/// Appends the lines of `n` items, one per line, keeping only the first and
/// last `ends` of a long list: the ones left out are one `gap` line.
fn push_lines(
    s: &mut String,
    n: usize,
    ends: usize,
    gap: impl Fn(std::ops::Range<usize>) -> String,
    line: impl Fn(usize) -> String,
) {
    let left_out = elided(n, ends);
    for i in 0..n {
        if i > 0 && (!left_out.contains(&i) || i == left_out.start) {
            s.push('\n');
        }
        if i == left_out.start && !left_out.is_empty() {
            s.push_str(&gap(left_out.clone()));
        }
        if !left_out.contains(&i) {
            s.push_str(&line(i));
        }
    }
}

/// `s`, or when it is longer its first `n` characters, then ` …` and how
/// long the whole is (`… (10000002 bytes)`): the one way the reports for
/// people (terminal, HTML, `--directory`'s text and DOT) shorten an op or a
/// value, so that a 10 MB key makes a report of kilobytes and says it was
/// cut. The result maps (EDN, JSON) keep everything whole.
pub(crate) fn clip(s: &str, n: usize) -> Cow<'_, str> {
    match s.char_indices().nth(n) {
        Some((i, _)) => Cow::Owned(format!("{} … ({} bytes)", &s[..i], s.len())),
        None => Cow::Borrowed(s),
    }
}

/// A value's canonical text for people, clipped to `n` characters.
pub(crate) fn value_text(h: &History, v: Val, n: usize) -> String {
    clip(&h.values.text(v), n).into_owned()
}

/// A version for people: `nil` for the initial state, else its value
/// clipped to `n` characters.
pub(crate) fn version_text(h: &History, v: Version, n: usize) -> String {
    match v {
        Version::Init => "nil".to_string(),
        Version::Val(v) => value_text(h, v, n),
    }
}

/// The `:index` of each transaction of a component, sorted (Elle's `:scc`).
pub(crate) fn scc_indices(h: &History, scc: &[u32]) -> Vec<i64> {
    let mut idx: Vec<i64> = scc.iter().map(|&t| txn_index(h, t)).collect();
    idx.sort_unstable();
    idx.dedup();
    idx
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clipping_says_how_long_the_whole_is() {
        assert_eq!(clip("abcdef", 6), "abcdef");
        assert_eq!(clip("abcdef", 3), "abc … (6 bytes)");
        assert_eq!(clip("ééé", 1), "é … (6 bytes)");
        assert_eq!(clip("", 0), "");
    }

    #[test]
    fn only_long_lists_are_elided() {
        assert_eq!(elided(21, 10), 0..0);
        assert_eq!(elided(22, 10), 10..12);
        assert_eq!(elided(20_000, 10), 10..19_990);
        assert_eq!(elided(5, usize::MAX), 0..0);
        assert_eq!(elided(3, 0), 0..3);
    }
}
