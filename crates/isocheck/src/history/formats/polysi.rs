//! PolySI's text format: one micro-op per line, `r(key,value,session,txn)`
//! or `w(key,value,session,txn)`, all non-negative integers.
//!
//! Transaction ids are global; a session's transactions come in the order
//! their ids first appear; every transaction committed; an implicit initial
//! transaction writes 0 to every key. The format cannot say a transaction
//! aborted, and records no timing.

use super::{format_error, NumHash, TxnOps};
use crate::history::error::HistoryError;
use crate::history::jepsen::Ops;
use crate::history::model::MopKind;
use crate::history::span::Span;
use std::collections::{HashMap, HashSet};

const HELP: &str = "PolySI text histories hold one micro-op per line: r(key,value,session,txn) \
                    or w(key,value,session,txn)";

/// One line of the file.
struct Line {
    kind: MopKind,
    key: u64,
    value: u64,
    session: u64,
    txn: u64,
    span: Span,
}

/// Reads every transaction of a PolySI text history.
pub fn read(text: &str) -> Result<Ops, HistoryError> {
    match read_in_order(text) {
        Some(ops) => Ok(ops),
        None => read_grouped(text),
    }
}

/// [`read`] for any history: the lines parsed, then grouped by session
/// and transaction.
fn read_grouped(text: &str) -> Result<Ops, HistoryError> {
    let lines = parse_lines(text)?;
    let txns = group(&lines)?;
    let mut out = TxnOps::new();
    for run in txns.in_session_order() {
        emit(&mut out, &lines, run)?;
    }
    Ok(out.finish_zero_initial())
}

/// The lines of the text with their spans, blank ones included.
fn raw_lines(text: &str) -> impl Iterator<Item = (&str, Span)> {
    // Spans stay offsets into the file: a byte order mark counts.
    let body = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let mut start = text.len() - body.len();
    body.split('\n').map(move |raw| {
        let content = raw.strip_suffix('\r').unwrap_or(raw);
        let span = Span::new(start, start + content.len());
        start += raw.len() + 1;
        (content, span)
    })
}

/// [`read`] in one pass, for a history whose transactions each lie on
/// consecutive lines and whose sessions each hold consecutive
/// transactions, as AWDIT's generator writes them: file order is then
/// session order, and nothing is kept per line to group them by. `None`
/// for any other history, or any line [`quick_line`] does not take, or
/// any error: [`read`] then groups the lines, and explains what is wrong
/// where the whole file says so.
fn read_in_order(text: &str) -> Option<Ops> {
    let mut out = TxnOps::new();
    let mut txns: HashSet<u64, NumHash> = HashSet::default();
    let mut sessions: HashSet<u64, NumHash> = HashSet::default();
    // The transaction being read: its id, session, first micro-op and span.
    let mut current: Option<(u64, u64, usize, Span)> = None;
    for (content, span) in raw_lines(text) {
        let Some((kind, [key, value, session, txn])) = quick_line(content.as_bytes()) else {
            match content.trim().is_empty() {
                true => continue,
                false => return None,
            }
        };
        match &mut current {
            Some((id, s, _, whole)) if *id == txn => {
                if *s != session {
                    return None;
                }
                *whole = whole.to(span);
            }
            _ => {
                let previous = current.take();
                if let Some((_, s, start, whole)) = previous {
                    out.txn(start, s, true, whole).ok()?;
                }
                let next_session = previous.is_none_or(|(_, s, _, _)| s != session);
                if !txns.insert(txn) || (next_session && !sessions.insert(session)) {
                    return None;
                }
                current = Some((txn, session, out.ops.mops.len(), span));
            }
        }
        out.mop(kind, key, Some(value), span);
    }
    if let Some((_, s, start, whole)) = current {
        out.txn(start, s, true, whole).ok()?;
    }
    Some(out.finish_zero_initial())
}

/// The non-blank lines, parsed.
fn parse_lines(text: &str) -> Result<Vec<Line>, HistoryError> {
    let mut lines = Vec::with_capacity(text.len() / 12);
    for (content, span) in raw_lines(text) {
        let parsed = match quick_line(content.as_bytes()) {
            Some(parsed) => parsed,
            None if content.trim().is_empty() => continue,
            None => parse_line(content).map_err(|why| {
                format_error(format!("not a PolySI history line: {why}"), HELP)
                    .at(span, "this line")
            })?,
        };
        let (kind, [key, value, session, txn]) = parsed;
        lines.push(Line {
            kind,
            key,
            value,
            session,
            txn,
            span,
        });
    }
    Ok(lines)
}

/// [`parse_line`] at the speed of the bytes, for a well-formed line;
/// `None` for anything else, which `parse_line` then explains.
fn quick_line(line: &[u8]) -> Option<(MopKind, [u64; 4])> {
    let kind = match line.get(..2)? {
        b"r(" => MopKind::Read,
        b"w(" => MopKind::Write,
        _ => return None,
    };
    let mut rest = line.get(2..)?.iter();
    let mut nums = [0u64; 4];
    for (i, n) in nums.iter_mut().enumerate() {
        let end = if i == 3 { b')' } else { b',' };
        let mut digits = 0;
        loop {
            match *rest.next()? {
                b @ b'0'..=b'9' => {
                    *n = n.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
                    digits += 1;
                }
                b if b == end && digits > 0 => break,
                _ => return None,
            }
        }
    }
    rest.next().is_none().then_some((kind, nums))
}

/// `r(1,2,3,4)` → `(Read, [1, 2, 3, 4])`, or why not.
fn parse_line(line: &str) -> Result<(MopKind, [u64; 4]), &'static str> {
    let (kind, rest) = match (line.strip_prefix("r("), line.strip_prefix("w(")) {
        (Some(rest), _) => (MopKind::Read, rest),
        (_, Some(rest)) => (MopKind::Write, rest),
        _ => return Err("expected `r(` or `w(`"),
    };
    let inner = rest
        .strip_suffix(')')
        .ok_or("expected `)` at the end of the line")?;
    let mut parts = inner.split(',');
    let mut nums = [0; 4];
    for n in &mut nums {
        *n = parse_uint(parts.next().ok_or("expected four numbers")?)?;
    }
    match parts.next() {
        Some(_) => Err("expected four numbers"),
        None => Ok((kind, nums)),
    }
}

fn parse_uint(s: &str) -> Result<u64, &'static str> {
    // `u64::from_str` also takes a leading `+`; the format has digits only.
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err("expected a non-negative integer");
    }
    s.parse().map_err(|_| "number too large for 64 bits")
}

/// The transactions of the lines, numbered in order of first appearance.
struct Txns {
    /// Per transaction, its session's rank (order of first appearance).
    session_rank: Vec<usize>,
    sessions: usize,
    /// Transaction `t`'s lines, in file order, are
    /// `lines[line_start[t]..line_start[t + 1]]`.
    line_start: Vec<usize>,
    lines: Vec<usize>,
}

impl Txns {
    /// Each transaction's lines, session by session, a session's
    /// transactions in the order their ids first appear.
    fn in_session_order(&self) -> impl Iterator<Item = &[usize]> + '_ {
        let (_, by_session) = buckets(&self.session_rank, self.sessions);
        by_session
            .into_iter()
            .map(|t| &self.lines[self.line_start[t]..self.line_start[t + 1]])
    }
}

/// Assigns each line its transaction, refusing a transaction id used by
/// two sessions.
fn group(lines: &[Line]) -> Result<Txns, HistoryError> {
    let mut session_rank: HashMap<u64, usize, NumHash> = HashMap::default();
    let mut txn_of: HashMap<u64, usize, NumHash> = HashMap::default();
    // Per transaction: its first line and its session's rank.
    let mut first_line: Vec<usize> = Vec::new();
    let mut rank_of: Vec<usize> = Vec::new();
    let mut txn_of_line = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        let next_rank = session_rank.len();
        let rank = *session_rank.entry(line.session).or_insert(next_rank);
        let t = *txn_of.entry(line.txn).or_insert_with(|| {
            first_line.push(i);
            rank_of.push(rank);
            first_line.len() - 1
        });
        let first = &lines[first_line[t]];
        if first.session != line.session {
            return Err(two_sessions(first, line));
        }
        txn_of_line.push(t);
    }
    let (line_start, by_txn) = buckets(&txn_of_line, first_line.len());
    Ok(Txns {
        session_rank: rank_of,
        sessions: session_rank.len(),
        line_start,
        lines: by_txn,
    })
}

/// The indices `0..keys.len()` grouped by key (each below `count`), in
/// index order within a group: key `k`'s are `items[start[k]..start[k +
/// 1]]`. `(start, items)`; a counting sort, linear where sorting the lines
/// was a third of reading a history of a million transactions.
fn buckets(keys: &[usize], count: usize) -> (Vec<usize>, Vec<usize>) {
    let mut start = vec![0; count + 1];
    for &k in keys {
        start[k + 1] += 1;
    }
    for k in 0..count {
        start[k + 1] += start[k];
    }
    let mut next = start.clone();
    let mut items = vec![0; keys.len()];
    for (i, &k) in keys.iter().enumerate() {
        items[next[k]] = i;
        next[k] += 1;
    }
    (start, items)
}

fn two_sessions(first: &Line, line: &Line) -> HistoryError {
    format_error(
        format!(
            "transaction {} appears in sessions {} and {}",
            line.txn, first.session, line.session
        ),
        "transaction ids are global: each transaction belongs to one session",
    )
    .at(line.span, format!("in session {}", line.session))
    .at(
        first.span,
        format!("first seen in session {}", first.session),
    )
}

/// One transaction: the lines `run` (indices into `lines`, all of one group).
fn emit(out: &mut TxnOps, lines: &[Line], run: &[usize]) -> Result<(), HistoryError> {
    let start = out.ops.mops.len();
    let mut span: Option<Span> = None;
    for &i in run {
        let line = &lines[i];
        out.mop(line.kind, line.key, Some(line.value), line.span);
        span = Some(span.map_or(line.span, |s| s.to(line.span)));
    }
    let span = span.unwrap_or_default();
    let session = run.first().map_or(0, |&i| lines[i].session);
    out.txn(start, session, true, span)
        .map_err(|e| e.at(span, "this transaction"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::formats::tests::{summary, Mop};

    #[test]
    fn reads_sessions_in_order_and_maps_zero_reads_to_initial() {
        let text = "w(1,5,7,10)\nr(2,0,7,10)\n\nr(1,5,3,11)\r\nw(2,6,7,12)\nr(1,0,3,11)\n";
        let ops = read(text).unwrap();
        assert!(ops.untimed);
        let got = summary(&ops);
        use Mop::{R, W};
        assert_eq!(
            got,
            vec![
                (7, true, vec![W(1, Some(5)), R(2, None)]),
                (7, true, vec![W(2, Some(6))]),
                (3, true, vec![R(1, Some(5)), R(1, None)]),
            ]
        );
        // Spans: a mop is its line without the newline (nor `\r`); an op
        // covers its lines, here non-contiguous ones.
        let span_text = |s: Span| &text[s.start()..s.end()];
        assert_eq!(span_text(ops.mops[3].span), "r(1,5,3,11)");
        assert_eq!(
            span_text(ops.ops[2].span),
            "r(1,5,3,11)\r\nw(2,6,7,12)\nr(1,0,3,11)"
        );
        assert_eq!(span_text(ops.ops[0].span), "w(1,5,7,10)\nr(2,0,7,10)");
        assert_eq!(
            ops.ops.iter().map(|o| o.index).collect::<Vec<_>>(),
            [0, 1, 2]
        );
    }

    #[test]
    fn out_of_order_histories_are_grouped() {
        // A transaction resumed after another, a session after another:
        // grouped, not read in one pass.
        for text in [
            "w(1,5,7,10)\nw(1,6,7,11)\nr(2,0,7,10)\n",
            "w(1,5,7,10)\nw(1,6,3,11)\nw(2,6,7,12)\n",
        ] {
            assert!(read_in_order(text).is_none(), "{text}");
            assert!(read(text).is_ok(), "{text}");
        }
        assert!(read_in_order("w(1,5,7,10)\n\nw(1,6,7,11)\r\nw(2,6,3,12)\n").is_some());
    }

    #[test]
    fn explicit_zero_write_is_read_as_itself() {
        let ops = read("w(1,0,0,0)\nr(1,0,1,1)\nr(2,0,1,1)").unwrap();
        use Mop::{R, W};
        assert_eq!(
            summary(&ops),
            vec![
                (0, true, vec![W(1, Some(0))]),
                (1, true, vec![R(1, Some(0)), R(2, None)])
            ]
        );
    }

    #[test]
    fn bad_lines_are_errors_at_the_line() {
        for (text, bad) in [
            ("w(1,2,3,4)\nx(1,2,3,4)\n", "x(1,2,3,4)"),
            ("w(1,2,3)\n", "w(1,2,3)"),
            ("w(1,2,3,4,5)\n", "w(1,2,3,4,5)"),
            ("w(1,+2,3,4)\n", "w(1,+2,3,4)"),
            ("w(1,-2,3,4)\n", "w(1,-2,3,4)"),
            ("r(1,2,3,4\n", "r(1,2,3,4"),
            (" r(1,2,3,4)\n", " r(1,2,3,4)"),
            (
                "r(1,99999999999999999999,3,4)",
                "r(1,99999999999999999999,3,4)",
            ),
            ("r(é,1,1,1)", "r(é,1,1,1)"),
        ] {
            let e = read(text).unwrap_err();
            let s = e.span().unwrap();
            assert_eq!(&text[s.start()..s.end()], bad, "{text:?}");
        }
    }

    #[test]
    fn session_beyond_i64_is_an_error() {
        assert!(read("w(1,2,9223372036854775808,4)").is_err());
        assert!(read("w(1,2,9223372036854775807,4)").is_ok());
    }

    #[test]
    fn txn_in_two_sessions_is_an_error() {
        let text = "w(1,1,0,5)\nw(2,1,1,5)\n";
        let e = read(text).unwrap_err();
        let spans: Vec<_> = e
            .labels
            .iter()
            .map(|l| &text[l.span.start()..l.span.end()])
            .collect();
        assert_eq!(spans, ["w(2,1,1,5)", "w(1,1,0,5)"]);
    }

    #[test]
    fn empty_text_has_no_ops() {
        assert!(read("").unwrap().ops.is_empty());
        assert!(read("\n\n  \n").unwrap().ops.is_empty());
    }

    #[test]
    fn fixture_builds() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../fixtures/formats/small.polysi.txt"
        );
        let text = std::fs::read_to_string(path).unwrap();
        let ops = read(&text).unwrap();
        assert_eq!(ops.ops.len(), 4);
        crate::history::formats::tests::build_ok("small.polysi.txt", ops);
    }

    proptest::proptest! {
        #[test]
        fn quick_line_is_parse_line(
            line in "[rwx ]?[(]?[0-9]{0,2}[0-9,+]?[0-9]{0,20},[0-9]{1,3},[0-9 ]{0,2}[)]? ?"
        ) {
            proptest::prop_assert_eq!(quick_line(line.as_bytes()), parse_line(&line).ok());
        }

        #[test]
        fn arbitrary_text_never_panics(text in "[rw(),0-9\r\n é]{0,80}") {
            let _ = read(&text);
        }

        /// In-order histories (and some others, as drawn) read in one
        /// pass as they do grouped.
        #[test]
        fn in_order_is_grouped(text in "([rw]\\([0-9],[0-9],[0-1],[0-3]\\)\n){0,12}") {
            if let Some(ops) = read_in_order(&text) {
                let grouped = read_grouped(&text).expect("an in-order history is valid");
                proptest::prop_assert_eq!(summary(&ops), summary(&grouped));
                let spans = |o: &Ops| {
                    let mops: Vec<Span> = o.mops.iter().map(|m| m.span).collect();
                    let ops: Vec<Span> = o.ops.iter().map(|m| m.span).collect();
                    (mops, ops)
                };
                proptest::prop_assert_eq!(spans(&ops), spans(&grouped));
            }
        }

        #[test]
        fn every_line_lands_in_one_op(text in "([rw]\\([0-9],[0-9],[0-3],[0-5]\\)\n){0,20}") {
            if let Ok(ops) = read(&text) {
                let mops: usize = summary(&ops).iter().map(|(_, _, m)| m.len()).sum();
                proptest::prop_assert_eq!(mops, text.lines().count());
            }
        }
    }
}
