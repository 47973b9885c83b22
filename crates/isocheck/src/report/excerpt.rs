//! What miette is shown of a diagnostic: its text with control characters
//! escaped and clipped (`explain::clip`), and of its source only the lines
//! around its labels, a long line cut to windows around the labels on it.
//!
//! Text from a history reaches the terminal through here, so an ANSI escape
//! in a key or a string prints as `\u{1b}`, never as a command to the
//! terminal; and a one-line history of megabytes shows a few hundred
//! characters around each label (miette would echo the whole line, and
//! panics on labels past column 65,535).

use super::explain::clip;
use miette::{
    Diagnostic, LabeledSpan, MietteError, MietteSpanContents, Severity, SourceCode, SourceSpan,
    SpanContents,
};
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fmt;

/// A line longer than this many bytes is shown as windows around its labels.
const LONG_LINE: usize = 400;
/// Bytes shown either side of a label in a long line.
const PAD: usize = 40;
/// Bytes of a label shown in a long line (the label is cut after them).
const SPAN_SHOWN: usize = 120;
/// Bytes shown of a long line with no label on it (a context line).
const CONTEXT_SHOWN: usize = 2 * PAD;
/// Labels shown of one diagnostic, the primary first (the help says the
/// rest): miette's rendering grows with the square of their number, and
/// their windows on one line must stay under its limit of 65,535 columns.
const MAX_LABELS: usize = 40;

/// Characters of a diagnostic's message and of each label shown: a
/// message may quote a value of the history (a duplicated map key of
/// megabytes), which is clipped like every value in a report.
const TEXT_CHARS: usize = 1_000;
/// Characters of a help shown: an anomaly's explanation clips its own ops
/// and values, so only a help quoting a huge value reaches this.
const HELP_CHARS: usize = 20_000;

/// Text for the terminal: clipped to `n` characters, then escaped.
fn shown(s: &str, n: usize) -> String {
    escape(&clip(s, n)).into_owned()
}

/// `s` with every control character but newline and tab written as
/// `\u{..}`, and the Unicode controls that reorder text (bidirectional
/// overrides and isolates) too.
pub fn escape(s: &str) -> Cow<'_, str> {
    if !s.chars().any(needs_escape) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        push_escaped(&mut out, c);
    }
    Cow::Owned(out)
}

pub(crate) fn needs_escape(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

pub(crate) fn push_escaped(out: &mut String, c: char) {
    if needs_escape(c) {
        out.push_str(&format!("\\u{{{:x}}}", c as u32));
    } else {
        out.push(c);
    }
}

/// A diagnostic as miette should render it: escaped text, excerpted source.
pub struct Excerpted<'d> {
    inner: &'d dyn Diagnostic,
    message: String,
    help: Option<String>,
    excerpt: Option<Excerpt>,
    labels: Vec<LabeledSpan>,
}

impl<'d> Excerpted<'d> {
    /// Wraps a diagnostic so that its labels are rendered with their excerpts.
    pub fn new(inner: &'d dyn Diagnostic) -> Self {
        let mut labels: Vec<LabeledSpan> =
            inner.labels().map(Iterator::collect).unwrap_or_default();
        if labels.len() > MAX_LABELS {
            // Stable: the primary first, the others in their order.
            labels.sort_by_key(|l| !l.primary());
            labels.truncate(MAX_LABELS);
        }
        let (excerpt, labels) = match inner.source_code() {
            Some(source) if !labels.is_empty() => {
                let (e, l) = Excerpt::build(source, &labels);
                (Some(e), l)
            }
            _ => (None, Vec::new()),
        };
        Excerpted {
            inner,
            message: shown(&inner.to_string(), TEXT_CHARS),
            help: inner.help().map(|h| shown(&h.to_string(), HELP_CHARS)),
            excerpt,
            labels,
        }
    }
}

impl fmt::Debug for Excerpted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Display for Excerpted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Excerpted<'_> {}

impl Diagnostic for Excerpted<'_> {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.inner.code()
    }

    fn severity(&self) -> Option<Severity> {
        self.inner.severity()
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn url<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.inner.url()
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.excerpt.as_ref().map(|e| e as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.excerpt.as_ref()?;
        Some(Box::new(self.labels.iter().cloned()))
    }
}

/// One line of the source, as read around a label.
struct SourceLine<'s> {
    /// Its zero-based number in the file.
    number: usize,
    /// The text, without its line break.
    text: &'s str,
    /// The offset just past its line break.
    next: usize,
}

/// One line of the excerpt.
struct ExLine {
    /// Byte range in the excerpt's text, without the newline.
    start: usize,
    end: usize,
    /// Zero-based line number in the file.
    number: usize,
    /// Lines of one group are consecutive in the file.
    group: usize,
}

/// The lines around a diagnostic's labels, clipped and escaped, with
/// their numbers in the file: a `SourceCode` holding only what is shown.
pub struct Excerpt {
    name: Option<String>,
    text: String,
    lines: Vec<ExLine>,
    /// Column (bytes from its line's start, as miette counts) in the file
    /// of each label start, by its offset in the excerpt.
    columns: HashMap<usize, usize>,
}

impl Excerpt {
    /// The excerpt of `source` that shows `labels`, and the labels moved to it.
    fn build(source: &dyn SourceCode, labels: &[LabeledSpan]) -> (Excerpt, Vec<LabeledSpan>) {
        let mut name = None;
        let mut lines: BTreeMap<usize, SourceLine<'_>> = BTreeMap::new();
        let mut readable = Vec::new();
        // Whether the lines read for a label were text, by their byte
        // range: the labels on one line of a one-line history all read
        // that whole line, which is split and checked once.
        let mut added: HashMap<(usize, usize), bool> = HashMap::new();
        for l in labels {
            crate::limits::tick();
            // One line of context either side, as miette reads by default.
            let Ok(contents) = source.read_span(l.inner(), 1, 1) else {
                continue;
            };
            name = name.or_else(|| contents.name().map(|n| escape(n).into_owned()));
            let range = (contents.span().offset(), contents.span().len());
            let text = match added.get(&range) {
                // A label just past the final line break needs its own line.
                Some(&text) if l.offset() < range.0 + range.1 => text,
                _ => add_lines(&mut lines, contents.as_ref(), l.offset()),
            };
            added.insert(range, text);
            if text {
                readable.push(l);
            }
        }
        let wanted = Wanted::of(&lines, &readable);
        let mut ex = Excerpt {
            name,
            text: String::new(),
            lines: Vec::new(),
            columns: HashMap::new(),
        };
        let mut at = HashMap::new();
        let mut prev_next = None;
        for (&start, line) in &lines {
            let group = match prev_next {
                Some(p) if p == start => ex.lines.last().map_or(0, |l| l.group),
                _ => ex.lines.last().map_or(0, |l| l.group + 1),
            };
            prev_next = Some(line.next);
            let (points, windows) = wanted.on(start, line.text.len());
            let from = ex.text.len();
            push_line(&mut ex.text, line.text, start, &windows, &points, &mut at);
            ex.lines.push(ExLine {
                start: from,
                end: ex.text.len(),
                number: line.number,
                group,
            });
            ex.text.push('\n');
        }
        let moved = readable
            .iter()
            .filter_map(|l| {
                let (s, e) = wanted.shown_ends(l);
                let (&s_ex, &e_ex) = (at.get(&s)?, at.get(&e)?);
                let start_line = lines.range(..=l.offset()).next_back()?;
                ex.columns.insert(s_ex, l.offset() - start_line.0);
                let span = SourceSpan::new(s_ex.into(), e_ex.saturating_sub(s_ex));
                let label = l.label().map(|t| shown(t, TEXT_CHARS));
                Some(if l.primary() {
                    LabeledSpan::new_primary_with_span(label, span)
                } else {
                    LabeledSpan::new_with_span(label, span)
                })
            })
            .collect();
        (ex, moved)
    }

    /// The excerpt line holding byte `offset` of the excerpt.
    fn line_at(&self, offset: usize) -> usize {
        self.lines
            .partition_point(|l| l.start <= offset)
            .saturating_sub(1)
    }
}

/// Adds the lines of `contents` (whole lines, as read with context) to
/// `lines`; false when they are not text.
fn add_lines<'s>(
    lines: &mut BTreeMap<usize, SourceLine<'s>>,
    contents: &(dyn SpanContents<'s> + 's),
    label_at: usize,
) -> bool {
    let Ok(data) = std::str::from_utf8(contents.data()) else {
        return false;
    };
    let mut offset = contents.span().offset();
    let mut number = contents.line();
    for raw in data.split_inclusive('\n') {
        let text = raw.strip_suffix('\n').unwrap_or(raw);
        let text = text.strip_suffix('\r').unwrap_or(text);
        lines.entry(offset).or_insert(SourceLine {
            number,
            text,
            next: offset + raw.len(),
        });
        offset += raw.len();
        number += 1;
    }
    // A label just past the final line break (the end of the file) sits
    // on an empty line of its own.
    if (data.is_empty() || data.ends_with('\n')) && label_at == offset {
        lines.entry(offset).or_insert(SourceLine {
            number,
            text: "",
            next: offset,
        });
    }
    true
}

/// Where the labels start and end, and what each line must show.
struct Wanted {
    /// (file offset of a label start, its shown end), one per label.
    ends: HashMap<(usize, usize), (usize, usize)>,
    /// Offsets that must map into the excerpt, by line start.
    points: BTreeMap<usize, Vec<usize>>,
    /// Windows around them, by line start.
    windows: BTreeMap<usize, Vec<(usize, usize)>>,
}

impl Wanted {
    fn of(lines: &BTreeMap<usize, SourceLine<'_>>, labels: &[&LabeledSpan]) -> Wanted {
        let mut w = Wanted {
            ends: HashMap::new(),
            points: BTreeMap::new(),
            windows: BTreeMap::new(),
        };
        let line_of = |offset: usize| {
            lines
                .range(..=offset)
                .next_back()
                .map(|(&s, l)| (s, s + l.text.len()))
        };
        for l in labels {
            let (s, e) = (l.offset(), l.offset() + l.len());
            let Some((s_line, s_line_end)) = line_of(s) else {
                continue;
            };
            let Some((e_line, e_line_end)) = line_of(e.saturating_sub(1).max(s)) else {
                continue;
            };
            // A label is shown from its start for SPAN_SHOWN bytes at most;
            // one that goes on to a later line ends where it ends there.
            let long = s_line_end - s_line > LONG_LINE;
            let (shown_end, end_line) = if e_line == s_line {
                let cut = if long { s + SPAN_SHOWN } else { e };
                (e.min(s_line_end).min(cut), s_line)
            } else {
                let cut = e.min(e_line_end);
                w.window(e_line, cut.saturating_sub(PAD), cut + PAD);
                (cut, e_line)
            };
            let start_window_end = if end_line == s_line {
                shown_end
            } else {
                s + SPAN_SHOWN
            };
            w.window(s_line, s.saturating_sub(PAD), start_window_end + PAD);
            w.points.entry(s_line).or_default().push(s);
            w.points.entry(end_line).or_default().push(shown_end);
            w.ends.insert((s, e), (s, shown_end));
        }
        w
    }

    fn window(&mut self, line: usize, from: usize, to: usize) {
        self.windows.entry(line).or_default().push((from, to));
    }

    /// The points to map on the line starting at `start`, and the byte
    /// ranges of the line (relative to its start) to show, in order,
    /// merged; the whole line when it is short.
    fn on(&self, start: usize, len: usize) -> (Vec<usize>, Vec<(usize, usize)>) {
        let points = self.points.get(&start).cloned().unwrap_or_default();
        if len <= LONG_LINE {
            return (points, vec![(0, len)]);
        }
        let mut ranges: Vec<(usize, usize)> = self
            .windows
            .get(&start)
            .map(|w| {
                w.iter()
                    .map(|&(a, b)| (a.saturating_sub(start).min(len), (b - start).min(len)))
                    .collect()
            })
            .unwrap_or_else(|| vec![(0, CONTEXT_SHOWN.min(len))]);
        ranges.sort_unstable();
        let mut merged: Vec<(usize, usize)> = Vec::with_capacity(ranges.len());
        for (a, b) in ranges {
            match merged.last_mut() {
                // Windows a few bytes apart are one: ` … ` would hide nothing.
                Some(last) if a <= last.1 + 8 => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        (points, merged)
    }

    /// A label's start and shown end, in the file.
    fn shown_ends(&self, l: &LabeledSpan) -> (usize, usize) {
        let key = (l.offset(), l.offset() + l.len());
        self.ends.get(&key).copied().unwrap_or(key)
    }
}

/// Appends the `windows` of `text` (the line at file offset `start`),
/// escaped, with `…` where something is left out, recording in `at` the
/// excerpt offset of each of `points` (file offsets on this line).
fn push_line(
    out: &mut String,
    text: &str,
    start: usize,
    windows: &[(usize, usize)],
    points: &[usize],
    at: &mut HashMap<usize, usize>,
) {
    let mut points: Vec<usize> = points.to_vec();
    points.sort_unstable();
    let mut next = points.iter().peekable();
    let mut mark = |upto: usize, out: &String, at: &mut HashMap<usize, usize>| {
        while let Some(&&p) = next.peek().filter(|&&&p| p <= upto) {
            at.insert(p, out.len());
            next.next();
        }
    };
    for (i, &(a, b)) in windows.iter().enumerate() {
        let (a, b) = (floor_boundary(text, a), ceil_boundary(text, b));
        if i == 0 && a > 0 || i > 0 {
            out.push_str(if i == 0 { "…" } else { " … " });
        }
        for (j, c) in text[a..b].char_indices() {
            mark(start + a + j, out, at);
            push_escaped(out, c);
        }
        mark(start + b, out, at);
    }
    if windows.last().is_some_and(|&(_, b)| b < text.len()) {
        out.push('…');
    }
    // Points past the line's text (its line break) sit at its end.
    mark(usize::MAX, out, at);
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

impl SourceCode for Excerpt {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let (start, len) = (span.offset(), span.len());
        if start + len > self.text.len() || self.lines.is_empty() {
            return Err(MietteError::OutOfBounds);
        }
        let i = self.line_at(start);
        let j = self.line_at((start + len).saturating_sub(1).max(start));
        // Context stops at the ends of a group: the next excerpt line is
        // not the next line of the file.
        let mut first = i.saturating_sub(before);
        while self.lines[first].group != self.lines[i].group {
            first += 1;
        }
        let mut last = (j + after).min(self.lines.len() - 1);
        while self.lines[last].group != self.lines[j].group {
            last -= 1;
        }
        // As miette's own sources do: without lines before, the contents
        // start at the span, and say its column.
        let (from, column) = match before {
            0 => (start, self.columns.get(&start).copied().unwrap_or(0)),
            _ => (self.lines[first].start, 0),
        };
        let to = (self.lines[last].end + 1).min(self.text.len());
        let data = &self.text.as_bytes()[from..to];
        let span = SourceSpan::new(from.into(), to - from);
        let line = self.lines[if before == 0 { i } else { first }].number;
        let count = last + 1 - first;
        Ok(Box::new(match &self.name {
            Some(name) => {
                MietteSpanContents::new_named(name.clone(), data, span, line, column, count)
            }
            None => MietteSpanContents::new(data, span, line, column, count),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::error::{ErrorKind, HistoryError, InputDiagnostic};
    use crate::history::{SourceFile, Span};
    use crate::report::diagnostic::render;

    #[test]
    fn control_characters_are_escaped_but_newlines_and_tabs_kept() {
        assert_eq!(escape("plain"), Cow::Borrowed("plain"));
        assert_eq!(
            escape("a\u{1b}[31mb\n\tc\u{202e}d\u{7f}\r"),
            "a\\u{1b}[31mb\n\tc\\u{202e}d\\u{7f}\\u{d}"
        );
    }

    fn diagnostic(text: String, at: usize, len: usize) -> InputDiagnostic {
        let e = HistoryError::new(ErrorKind::MissingType, "add a :type")
            .at(Span::new(at, at + len), "here");
        InputDiagnostic::new(e, Some(SourceFile::new("h.edn", text)))
    }

    #[test]
    fn a_label_far_into_a_long_line_shows_a_window_around_it() {
        let mut text = "x".repeat(100_000);
        text.replace_range(90_000..90_004, "HERE");
        let out = render(&diagnostic(text, 90_000, 4), false);
        assert!(out.len() < 1_000, "{out}");
        assert!(out.contains("[h.edn:1:90001]"), "{out}");
        let line = out.lines().find(|l| l.contains("HERE")).expect("the line");
        assert!(
            line.starts_with(" 1 │ …x") && line.ends_with("x…"),
            "{line}"
        );
        // The underline sits under the label's text.
        let under = out.lines().find(|l| l.contains('┬')).expect("underline");
        let col = |s: &str, pat: char| s.chars().position(|c| c == pat);
        assert_eq!(col(line, 'H'), col(under, '─'));
    }

    #[test]
    fn a_label_longer_than_a_window_is_cut() {
        let text = format!("{{:a {}}}\n", "[1] ".repeat(50_000));
        let out = render(&diagnostic(text, 0, 200_000), false);
        assert!(out.len() < 1_500, "{}", out.len());
        assert!(out.contains("[h.edn:1:1]"), "{out}");
    }

    #[test]
    fn many_labels_on_one_line_are_bounded() {
        // Labels every 1,000 bytes of a line of control characters, which
        // escaping widens eightfold: miette's columns must stay < 65,536.
        let text = "\u{202e}".repeat(100_000);
        let mut e = HistoryError::new(ErrorKind::MissingType, "help");
        for i in 0..100 {
            e = e.at(Span::new(i * 3_000, i * 3_000 + 300), format!("label {i}"));
        }
        let d = InputDiagnostic::new(e, Some(SourceFile::new("h.edn", text)));
        let out = render(&d, false);
        assert_eq!(out.matches("── label ").count(), MAX_LABELS, "{out}");
        assert!(out.contains("── label 0\n") && !out.contains("── label 40\n"));
    }

    #[test]
    fn short_lines_are_shown_whole_with_their_neighbours() {
        let text = "{:a 1}\n{:b \u{1b}[2J}\n{:c 3}\n".to_string();
        let out = render(&diagnostic(text, 11, 4), false);
        assert!(out.contains(" 1 │ {:a 1}\n"), "{out}");
        assert!(out.contains(" 2 │ {:b \\u{1b}[2J}\n"), "{out}");
        assert!(out.contains(" 3 │ {:c 3}\n"), "{out}");
        assert!(!out.contains('\u{1b}'), "{out}");
    }
}
