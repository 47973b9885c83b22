//! The report as one self-contained HTML page (`check --html`, and
//! `index.html` in `--directory`): inline CSS and SVG, no network, one small
//! inline script for the case tabs. It owns the page's layout and nothing
//! else: like every renderer it lays out the `Explanation`s of
//! `report/explanation.rs` (and `explanation::registers` for cas-register
//! outcomes).
//!
//! The page, top to bottom: the verdict (with `:not` and `:also-not`), a
//! line of links to the anomalies, then each anomaly — a cycle drawn as a
//! graph beside its Let/Then explanation (one tab per case when the write
//! order is unknown), any other anomaly with its ops, each with the lines
//! of the history file it rests on and a timeline of the transactions
//! involved and the nemesis's faults — and last the lattice of models,
//! marked. The first [`SHOWN_PER_TYPE`] anomalies of a type are drawn, as
//! in the report on the terminal; every other one is on the page too, in
//! brief and collapsed.

mod lattice;
mod nemesis;
mod plot;
mod timeline;

use super::excerpt::{needs_escape, push_escaped};
use super::explain::{clip, mop_text, step_name, txn_index, value_text, version_text};
use super::explanation::registers::{undecided, violation};
use super::explanation::{explain, first_writers, forced_case, forced_intro, Detail, Explanation};
use super::human::{models_prohibiting, ordered, SHOWN_PER_TYPE};
use crate::check::{Analysis, Entry, FoundCycle, Validity, Verdict};
use crate::checkers::JepsenResult;
use crate::graph::{Dep, Rel, Version};
use crate::history::{History, OpId, Span, Status, TxnId};
use crate::registers::{RegisterAnalysis, NONLINEARIZABLE, OUTSIDE_FRAGMENT};
use percent_encoding::{percent_encode, AsciiSet, NON_ALPHANUMERIC};
use plot::{Edge, Node, Plot};
use std::borrow::Cow;
use std::collections::BTreeSet;
use std::fmt::Write;
use std::path::{Component, Path, PathBuf};

pub use plot::MAX_PLOT_BYTES;

/// How much of an explanation the page shows: more than a terminal.
const DETAIL: Detail = Detail {
    prose: true,
    op_chars: 400,
    value_chars: 60,
    ends: 10,
};

/// How much of an anomaly past the first [`SHOWN_PER_TYPE`] of its type
/// the page shows (collapsed, see [`brief_entry`]).
const BRIEF: Detail = Detail {
    prose: true,
    op_chars: 160,
    value_chars: 24,
    ends: 3,
};

/// A cycle's node shows every micro-op of its transaction, each wrapped at
/// this many characters (a long read over several lines): nothing is cut,
/// and [`MAX_PLOT_BYTES`] bounds the drawing as a whole.
const MOP_COLUMNS: usize = 56;
/// Characters of a value on an edge's label.
const EDGE_VALUE_CHARS: usize = 16;

/// `s` with the characters HTML gives a meaning escaped, and the control
/// characters and bidirectional overrides written as visible `\u{..}`
/// escapes, as the terminal report writes them (`excerpt::escape`): a
/// U+202E in a key must not reorder the text around it on the page.
pub(crate) fn esc(s: &str) -> Cow<'_, str> {
    let special = |c: char| matches!(c, '&' | '<' | '>' | '"' | '\'') || needs_escape(c);
    if !s.contains(special) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => push_escaped(&mut out, c),
        }
    }
    Cow::Owned(out)
}

/// The history a page is about, and the address of its file from the
/// page, when it has one (lines link to it).
struct Doc<'a> {
    h: &'a History,
    href: Option<&'a str>,
    /// The clock and the faults every timeline of the page shares.
    run: timeline::Run,
}

/// The address of the history file `source` (as named on the command
/// line) from a page in `page_dir`: always relative (so that a store
/// directory can move, and so that no file name can be read as a scheme
/// such as `javascript:`), or `None` when either is not a file there is
/// (standard input): the page then names the lines without linking them.
pub fn href(page_dir: &Path, source: &str) -> Option<String> {
    let dir = page_dir.canonicalize().ok()?;
    let file = Path::new(source).canonicalize().ok()?;
    let common = dir
        .components()
        .zip(file.components())
        .take_while(|(a, b)| a == b)
        .count();
    let mut rel = PathBuf::new();
    for _ in dir.components().skip(common) {
        rel.push("..");
    }
    rel.extend(file.components().skip(common));
    Some(link(&rel))
}

/// Bytes of a file name left as they are in a link: the unreserved
/// characters of RFC 3986. Everything else is percent-encoded, so that a
/// name's `:`, `#`, `?`, `%`, quotes, spaces and non-ASCII bytes are part
/// of the path and nothing more.
const NAME_BYTES: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// A relative path as the address of a link from the page's directory:
/// each component percent-encoded (its bytes as they are on disk), joined
/// with `/`, and starting with `./` or `../`, so that its first segment is
/// never read as a scheme.
pub fn link(rel: &Path) -> String {
    let mut out = String::new();
    for c in rel.components() {
        let part: Cow<'_, str> = match c {
            Component::ParentDir => "..".into(),
            Component::CurDir => continue,
            c => percent_encode(c.as_os_str().as_encoded_bytes(), NAME_BYTES).into(),
        };
        if !out.is_empty() {
            out.push('/');
        }
        out.push_str(&part);
    }
    match out == ".." || out.starts_with("../") {
        true => out,
        false => format!("./{out}"),
    }
}

/// The page of a transactional check; `href` is the history file's address
/// from the page.
pub fn transactional(h: &History, a: &Analysis, v: &Verdict, href: Option<&str>) -> String {
    let d = &Doc {
        h,
        href,
        run: timeline::Run::of(h),
    };
    let types = ordered(v);
    let checked = models_prohibiting(&a.prohibited);
    let mut header = verdict_header(v.valid, &types);
    if v.valid == Validity::True {
        let what = match checked.is_empty() {
            true => "none of the prohibited anomalies found".to_string(),
            false => format!("no anomaly prohibited by {}", checked.join(", ")),
        };
        let _ = write!(header, "<p class=\"types\">{}</p>", esc(&what));
    }
    if !v.not.is_empty() {
        let _ = write!(header, "<p class=\"not\">not: {}</p>", names(&v.not));
    }
    if !v.also_not.is_empty() {
        let _ = write!(
            header,
            "<p class=\"also-not\">also not: {}</p>",
            names(&v.also_not)
        );
    }
    let _ = write!(
        header,
        "<p class=\"meta\">{} · {} · {} transactions · checked: {}</p>",
        esc(h.source.name()),
        h.workload.name(),
        h.txns.len(),
        if checked.is_empty() {
            "the anomalies asked for".into()
        } else {
            esc(&checked.join(", ")).into_owned()
        }
    );
    let mut nav = Vec::new();
    let mut body = String::new();
    for t in &types {
        let entries = &v.anomalies[t];
        let mut brief = String::new();
        for (i, e) in entries.iter().enumerate() {
            crate::limits::tick();
            let id = format!("{t}-{i}");
            let heading = match e {
                Entry::EmptyGraph => t.to_string(),
                _ => format!("{t} #{i}"),
            };
            if i < SHOWN_PER_TYPE {
                body.push_str(&entry_section(d, a, *e, &id, &heading));
                nav.push((id, heading));
            } else {
                brief.push_str(&brief_entry(d, &id, &heading, &explain(h, a, *e, BRIEF)));
            }
        }
        if let Some(link) = more(&mut body, t, entries.len(), &brief) {
            nav.push(link);
        }
    }
    body.push_str(&lattice_section(v, &checked));
    nav.push(("models".to_string(), "models".to_string()));
    page(&title(v.valid, &types), &header, &nav, &body)
}

/// The page of a cas-register check: each finding explained, with the
/// timeline of the register ops it names; `href` as for [`transactional`].
pub fn register(h: &History, a: &RegisterAnalysis, href: Option<&str>) -> String {
    let d = &Doc {
        h,
        href,
        run: timeline::Run::of(h),
    };
    let types = a.anomaly_types();
    let mut header = verdict_header(a.validity(), &types);
    if a.validity() == Validity::False {
        header.push_str("<p class=\"not\">not: linearizable</p>");
    }
    let _ = write!(
        header,
        "<p class=\"meta\">{} · cas-register · {} keys · {} register ops · checked: linearizable</p>",
        esc(h.source.name()),
        a.keys,
        h.registers.len()
    );
    let mut nav = Vec::new();
    let mut body = String::new();
    let kinds = [
        (NONLINEARIZABLE, a.violations.len()),
        (OUTSIDE_FRAGMENT, a.undecided.len()),
    ];
    for (t, count) in kinds {
        let mut brief = String::new();
        for i in 0..count {
            crate::limits::tick();
            let x = match t == NONLINEARIZABLE {
                true => violation(h, &a.violations[i]),
                false => undecided(h, &a.undecided[i]),
            };
            let (id, heading) = (format!("{t}-{i}"), format!("{t} #{i}"));
            if i < SHOWN_PER_TYPE {
                body.push_str(&section(&id, &heading, x.warning, &plain(d, &x, &id)));
                nav.push((id, heading));
            } else {
                brief.push_str(&brief_entry(d, &id, &heading, &x));
            }
        }
        if let Some(link) = more(&mut body, t, count, &brief) {
            nav.push(link);
        }
    }
    page(&title(a.validity(), &types), &header, &nav, &body)
}

/// The page of one of Jepsen's standard checkers (bank, set, ...): the
/// verdict, then the terminal report's findings as text, which quote the
/// ops they rest on; `href` as for [`transactional`].
pub fn jepsen(h: &History, r: &JepsenResult, href: Option<&str>) -> String {
    let types = r.anomaly_types();
    let mut header = verdict_header(r.validity(), &types);
    let _ = write!(
        header,
        "<p class=\"meta\">{} · {} checker</p>",
        linked(href, "", &esc(h.source.name())),
        esc(h.workload.name())
    );
    let body = format!(
        "<section class=\"anomaly\" id=\"findings\"><pre class=\"explanation\">{}</pre></section>\n",
        esc(&super::jepsen::render(h, r, false))
    );
    page(&title(r.validity(), &types), &header, &[], &body)
}

/// The page of a check a limit stopped: unknown, with the answer the
/// terminal gets (the reason, the stage, what to change).
pub fn stopped(answer: &str) -> String {
    let header = verdict_header(Validity::Unknown, &[]);
    let body = format!(
        "<section class=\"anomaly warning\" id=\"stopped\"><pre class=\"explanation\">{}</pre></section>\n",
        esc(answer)
    );
    page("isocheck: unknown", &header, &[], &body)
}

/// The page of a report a limit cut after the verdict: the verdict, and
/// `text` (what the terminal report says of the cut).
pub fn cut(valid: Validity, types: &[&str], text: &str) -> String {
    let header = verdict_header(valid, types);
    let body = format!(
        "<section class=\"anomaly warning\" id=\"report-cut\"><pre class=\"explanation\">{}</pre></section>\n",
        esc(text)
    );
    page(
        &format!("isocheck: {}", validity_word(valid)),
        &header,
        &[],
        &body,
    )
}

/// A row of a [`table`] page: its cells, the address its first cell
/// links to (a [`link`]), and a class (the agreement of a `recheck` row).
pub struct TableRow {
    /// The row's cells, as HTML.
    pub cells: Vec<String>,
    /// Where the row links to (its report page), if anywhere.
    pub link: Option<String>,
    /// The row's CSS class (its verdict's colour).
    pub class: &'static str,
}

/// A page holding one table (`recheck --html`: a row per run, linking to
/// the run's report): `summary` and a filter on top, then the table, then
/// `notes` as they are. The filter ("disagreements only") is a checkbox
/// the stylesheet reads (`page.css`), so it needs no script: it hides the
/// rows of class `agree` and `not-compared`.
pub fn table(
    title: &str,
    summary: &str,
    header: &[&str],
    rows: &[TableRow],
    notes: &str,
) -> String {
    let mut body = format!(
        "<p class=\"summary\">{}</p>\n<input type=\"checkbox\" id=\"disagreements-only\">\
         <label for=\"disagreements-only\">show disagreements only</label>\n\
         <table class=\"runs\"><thead><tr>",
        esc(summary.trim_end())
    );
    for h in header {
        let _ = write!(body, "<th class=\"{0}\">{0}</th>", esc(h));
    }
    body.push_str("</tr></thead><tbody>\n");
    for r in rows {
        let _ = write!(body, "<tr class=\"{}\">", esc(r.class));
        for (i, (cell, h)) in r.cells.iter().zip(header).enumerate() {
            let text = match (&r.link, i) {
                (Some(link), 0) => linked(Some(link), "", &esc(cell)),
                _ => esc(cell).into_owned(),
            };
            let _ = write!(body, "<td class=\"{}\">{text}</td>", esc(h));
        }
        body.push_str("</tr>\n");
    }
    body.push_str("</tbody></table>\n");
    if !notes.is_empty() {
        let _ = writeln!(body, "<pre class=\"notes\">{}</pre>", esc(notes));
    }
    let header = format!("<h1>{}</h1>", esc(title));
    page(title, &header, &[], &body)
}

fn names(set: &BTreeSet<&str>) -> String {
    let v: Vec<&str> = set.iter().copied().collect();
    esc(&v.join(", ")).into_owned()
}

/// `valid`, `invalid` or `unknown`.
pub(crate) fn validity_word(v: Validity) -> &'static str {
    match v {
        Validity::True => "valid",
        Validity::False => "invalid",
        Validity::Unknown => "unknown",
    }
}

fn title(v: Validity, types: &[&str]) -> String {
    match types.is_empty() {
        true => format!("isocheck: {}", validity_word(v)),
        false => format!("isocheck: {} — {}", validity_word(v), types.join(", ")),
    }
}

fn verdict_header(v: Validity, types: &[&str]) -> String {
    let word = validity_word(v);
    let mut s = format!("<h1 class=\"verdict {word}\" data-valid=\"{word}\">{word}</h1>");
    if !types.is_empty() {
        let _ = write!(s, "<p class=\"types\">{}</p>", esc(&types.join(", ")));
    }
    s
}

/// One anomaly's section.
fn entry_section(d: &Doc, a: &Analysis, e: Entry, id: &str, heading: &str) -> String {
    let h = d.h;
    let x = explain(h, a, e, DETAIL);
    let inner = match e {
        Entry::Cycle(c) => cycle_panel(d, a, &a.cycles[c], &x.help, &x.labels, id),
        Entry::Forced(f) => forced_panels(d, a, f, id),
        _ => plain(d, &x, id),
    };
    section(id, heading, x.warning, &inner)
}

fn section(id: &str, heading: &str, warning: bool, inner: &str) -> String {
    let class = if warning {
        "anomaly warning"
    } else {
        "anomaly"
    };
    format!(
        "<section class=\"{class}\" id=\"{}\"><h2>{}</h2>\n{inner}</section>\n",
        esc(id),
        esc(heading)
    )
}

/// An anomaly that is not a cycle: its explanation, the lines it rests on
/// and the timeline of their ops (`id` is its section's).
fn plain(d: &Doc, x: &Explanation, id: &str) -> String {
    let h = d.h;
    let mut s = format!("<pre class=\"explanation\">{}</pre>\n", esc(&x.help));
    s.push_str(&where_list(d, &x.labels));
    let involved: Vec<(OpId, String)> = x
        .labels
        .iter()
        .filter_map(|(span, _)| {
            let op = timeline::op_at(h, span.start())?;
            Some((op, format!("#{}", h.op(op).index)))
        })
        .collect();
    s.push_str(&timeline::render(h, &d.run, &involved, id).unwrap_or_default());
    s
}

/// An anomaly past the first [`SHOWN_PER_TYPE`] of its type, collapsed:
/// its explanation in brief and the lines it rests on, no drawing, so that
/// thousands of them keep the page to megabytes.
fn brief_entry(d: &Doc, id: &str, heading: &str, x: &Explanation) -> String {
    format!(
        "<details class=\"brief\" id=\"{}\"><summary>{}</summary>\n\
         <pre class=\"explanation\">{}</pre>\n{}</details>\n",
        esc(id),
        esc(heading),
        esc(&x.help),
        where_list(d, &x.labels)
    )
}

/// After the first [`SHOWN_PER_TYPE`] anomalies of type `t` (of `count`),
/// the rest (`brief`, their [`brief_entry`]s) in one collapsed block; the
/// block's link for the page's navigation, when there is one.
fn more(body: &mut String, t: &str, count: usize, brief: &str) -> Option<(String, String)> {
    let rest = count.checked_sub(SHOWN_PER_TYPE).filter(|&n| n > 0)?;
    let id = format!("{t}-more");
    let _ = write!(
        body,
        "<details class=\"more\" id=\"{}\"><summary>… and {rest} more {}, \
         #{SHOWN_PER_TYPE} to #{}, each in brief</summary>\n{brief}</details>\n",
        esc(&id),
        esc(t),
        count.saturating_sub(1)
    );
    Some((id, format!("{t}: {rest} more")))
}

/// A cycle: its graph beside its explanation, the lines it rests on, and
/// the timeline of its transactions (`id` is its section's or case's).
fn cycle_panel(
    d: &Doc,
    a: &Analysis,
    c: &FoundCycle,
    text: &str,
    labels: &[(Span, String)],
    id: &str,
) -> String {
    let h = d.h;
    let txns = a.cycle_txns(c);
    let n = txns.len().saturating_sub(1);
    let plot = match cycle_plot(h, a, c).svg("cycle", true) {
        Ok(svg) => format!("<div class=\"plot\">{svg}</div>"),
        Err(bytes) => format!(
            "<p class=\"note skipped\">The plot of this cycle was skipped: its {n} transactions \
             take {bytes} bytes to describe, over the cap of {MAX_PLOT_BYTES} (Elle's \
             :max-plot-bytes). The explanation lists every step.</p>"
        ),
    };
    let mut s = format!(
        "<div class=\"cols\">{plot}\n<div class=\"text\"><pre class=\"explanation\">{}</pre>\n{}</div></div>\n",
        esc(text),
        where_list(d, labels)
    );
    let involved: Vec<(OpId, String)> = txns[..n]
        .iter()
        .enumerate()
        .take(40)
        .map(|(i, &t)| (h.txn(t).op(), format!("T{}", i + 1)))
        .collect();
    s.push_str(&timeline::render(h, &d.run, &involved, id).unwrap_or_default());
    s
}

/// A forced anomaly: the pairs of unknown order, then one tab per case.
/// Cases are numbered from 1 in their labels and in their ids alike
/// (`#G2-item-0-case-1` is "Case 1").
fn forced_panels(d: &Doc, a: &Analysis, i: usize, id: &str) -> String {
    let h = d.h;
    let f = &a.forced[i];
    let mut s = format!(
        "<pre class=\"explanation\">{}</pre>",
        esc(&forced_intro(h, f, DETAIL.value_chars))
    );
    let id = esc(id);
    s.push_str("<div class=\"cases\"><div class=\"tabs\" role=\"tablist\">");
    for (k, c) in f.cases.iter().enumerate() {
        let first = first_writers(h, f, c);
        let what = match first.is_empty() {
            true => String::new(),
            false => format!(": index {} first", esc(&first.join(", "))),
        };
        let _ = write!(
            s,
            "<button role=\"tab\" data-case=\"{id}-case-{0}\" aria-selected=\"{1}\">Case {0}{what} \
             ({2})</button>",
            k + 1,
            k == 0,
            esc(c.cycle.name())
        );
        s.push('\n');
    }
    s.push_str("</div>\n");
    for (k, c) in f.cases.iter().enumerate() {
        let text = forced_case(h, a, f, c, DETAIL);
        let labels = txn_labels(h, a, &c.cycle);
        let hidden = if k == 0 { "" } else { " hidden" };
        let case = format!("{id}-case-{}", k + 1);
        let _ = write!(
            s,
            "<div class=\"case\" role=\"tabpanel\" id=\"{case}\"{hidden}>\n{}</div>\n",
            cycle_panel(d, a, &c.cycle, &text, &labels, &case)
        );
    }
    s.push_str("</div>\n");
    s
}

/// A label on the op of each transaction of a cycle, named as in its
/// explanation.
fn txn_labels(h: &History, a: &Analysis, c: &FoundCycle) -> Vec<(Span, String)> {
    let txns = a.cycle_txns(c);
    let n = txns.len().saturating_sub(1);
    txns[..n]
        .iter()
        .enumerate()
        .take(2 * DETAIL.ends)
        .map(|(i, &t)| (h.op(h.txn(t).op()).span, format!("T{}", i + 1)))
        .collect()
}

/// The lines of the history file an explanation labels, each linked to
/// the file, with the text there.
fn where_list(d: &Doc, labels: &[(Span, String)]) -> String {
    let h = d.h;
    let text = h.source.text();
    let mut s = String::new();
    for (span, label) in labels {
        if span.is_empty() || span.end() > text.len() {
            continue;
        }
        let line = h.source.line(span.start());
        let _ = write!(
            s,
            "<li>{} {} <code>{}</code></li>",
            linked(d.href, &format!("#L{line}"), &format!("line {line}")),
            esc(label),
            esc(&clip(h.text(*span), 160))
        );
        s.push('\n');
    }
    match s.is_empty() {
        true => s,
        false => format!("<ul class=\"where\">\n{s}</ul>\n"),
    }
}

/// `text` (HTML already) as a link to `href` (a [`link`]) and `fragment`,
/// or as it is when there is no address.
fn linked(href: Option<&str>, fragment: &str, text: &str) -> String {
    match href {
        Some(href) => format!("<a href=\"{}{}\">{text}</a>", esc(href), esc(fragment)),
        None => text.to_string(),
    }
}

/// A cycle as a graph: its transactions with their micro-ops, its steps as
/// labelled edges.
fn cycle_plot(h: &History, a: &Analysis, c: &FoundCycle) -> Plot {
    let txns = a.cycle_txns(c);
    let n = txns.len().saturating_sub(1).max(1);
    let nodes = txns[..txns.len().saturating_sub(1)]
        .iter()
        .enumerate()
        .map(|(i, &t)| Node {
            text: node_text(h, t, i),
            attrs: format!(
                "class=\"node txn {}\" data-name=\"T{}\" data-index=\"{}\" data-process=\"{}\"",
                status_class(h.txn(t).status),
                i + 1,
                txn_index(h, t),
                h.txn(t).process
            ),
        })
        .collect();
    let edges = a
        .cycle_steps(c)
        .enumerate()
        .map(|(i, d)| Edge {
            from: i % n,
            to: (i + 1) % n,
            label: edge_label(h, d),
            attrs: format!("class=\"dep {0}\" data-rel=\"{0}\"", d.rel.name()),
        })
        .collect();
    Plot { nodes, edges }
}

fn status_class(s: Status) -> &'static str {
    match s {
        Status::Committed => "ok",
        Status::Aborted => "fail",
        Status::Indeterminate => "info",
    }
}

/// `T1 · index 12 · process 3`, then every micro-op, wrapped.
fn node_text(h: &History, t: TxnId, i: usize) -> String {
    let txn = h.txn(t);
    let mut s = format!(
        "T{} · index {} · process {}",
        i + 1,
        h.op(txn.op()).index,
        txn.process
    );
    for m in txn.mops.clone() {
        crate::limits::tick();
        wrap_into(&mut s, &mop_text(h, m));
    }
    s
}

/// `text` on lines of at most [`MOP_COLUMNS`] characters, appended to `s`
/// (a line each), its whitespace (a pretty-printed file's line breaks)
/// made single spaces; the lines after the first are indented.
fn wrap_into(s: &mut String, text: &str) {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let options = textwrap::Options::new(MOP_COLUMNS).subsequent_indent("  ");
    for line in textwrap::wrap(&flat, options) {
        s.push('\n');
        s.push_str(&line);
    }
}

/// `ww :x 1→2`, `wr :x 1`, `rw :x nil→2`, `process 3`, `realtime`.
fn edge_label(h: &History, d: &Dep) -> String {
    let v = |x: Version| version_text(h, x, EDGE_VALUE_CHARS);
    let key = value_text(h, d.key, EDGE_VALUE_CHARS);
    match d.rel {
        Rel::Ww | Rel::Rw | Rel::Rwp => {
            format!("{} {key} {}→{}", d.rel.name(), v(d.value), v(d.value2))
        }
        Rel::Wr => format!("{} {key} {}", step_name(h, d), v(d.value)),
        Rel::Process => format!("process {}", h.txn(d.from).process),
        Rel::Realtime => "realtime".to_string(),
    }
}

/// The lattice of models, marked, with a legend.
fn lattice_section(v: &Verdict, checked: &[&str]) -> String {
    let holds = match v.valid {
        Validity::True => lattice::holding(checked),
        _ => BTreeSet::new(),
    };
    let mark = lattice::marks(&v.not, &v.also_not, &holds);
    let svg = lattice::plot(mark).svg("lattice", true).unwrap_or_default();
    format!(
        "<section class=\"models\" id=\"models\"><h2>Models</h2><p class=\"legend\">\
         <span class=\"key not\">not</span> ruled out by an anomaly found · \
         <span class=\"key also-not\">also not</span> implies one of those · \
         <span class=\"key holds\">holds</span> · <span class=\"key undecided\">not \
         decided by this check</span>; an arrow points from a model to one it implies.</p>\
         <div class=\"plot\">{svg}</div></section>\n"
    )
}

/// The page around the header, the links to the anomalies and the body.
fn page(title: &str, header: &str, nav: &[(String, String)], body: &str) -> String {
    let mut links = String::new();
    for (id, name) in nav {
        let _ = write!(links, "<a href=\"#{}\">{}</a> ", esc(id), esc(name));
    }
    if !links.is_empty() {
        links = format!("<nav>{links}</nav>");
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{}</title>\n<style>\n{CSS}</style></head>\n<body>{DEFS}\n<header>{header}</header>\n\
         {links}\n<main>\n{body}</main>\n<script>\n{SCRIPT}</script></body></html>\n",
        esc(title)
    )
}

/// The arrow head every drawing's edges use.
const DEFS: &str = "<svg width=\"0\" height=\"0\" style=\"position:absolute\"><defs>\
<marker id=\"arrow\" markerWidth=\"10\" markerHeight=\"7\" refX=\"10\" refY=\"3.5\" \
orient=\"auto-start-reverse\"><polygon points=\"0 0, 10 3.5, 0 7\" fill=\"#555\"/></marker></defs></svg>";

const CSS: &str = include_str!("page.css");

/// The case tabs: a click shows its case and puts it in the address, so a
/// case can be linked to (`report.html#G2-item-0-case-1`); an address
/// naming a case or a collapsed anomaly opens it.
const SCRIPT: &str = include_str!("tabs.js");
