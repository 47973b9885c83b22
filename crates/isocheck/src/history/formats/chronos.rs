//! Chronos's JSON histories (Chronos and Aion, ICDE 2025; the TimeKiller
//! artifact): one array of committed transactions, each an object with
//! `tid` (its id), `sid` (its session), `sts` and `cts` (start and commit
//! timestamps, hybrid logical clocks `{"p": physical, "l": logical}`) and
//! `ops`, micro-ops `{"t": "w"|"r"|"write"|"read", "k": key, "v": value}`
//! on integer keys and values (`null` or absent: the initial version). In
//! its list format, `{"t": "a"|"append", "k": key, "v": element}` and reads
//! of lists (`null` or absent: the empty list) make a list-append history.
//!
//! Each transaction becomes a completion-only `:ok` op of its session's
//! process, in file order (a session's order, as Chronos reads it), and
//! its timestamps its [`Stamp`], so `--check-timestamps` and
//! `--transaction-order timestamps` take them. Clocks compare as `(p, l)`;
//! when every `l` is 0 a timestamp is its `p`, otherwise the clocks are
//! numbered in that order from 1. A read of 0 nobody writes is of the
//! initial version, as with Chronos's `--initial_value 0`.

use super::json::{for_each_element, J};
use super::{format_error, TxnOps};
use crate::history::commit_order::Stamp;
use crate::history::error::HistoryError;
use crate::history::jepsen::Ops;
use crate::history::model::{MicroOp, MopKind, MopValue, Process, Workload};
use crate::history::span::Span;
use std::collections::HashMap;

const HELP: &str = "a Chronos history is one JSON array of transactions: {\"tid\": 1, \"sid\": 0, \
                    \"sts\": {\"p\": 1, \"l\": 0}, \"cts\": {\"p\": 2, \"l\": 0}, \"ops\": \
                    [{\"t\": \"w\", \"k\": 1, \"v\": 1}]}";

/// The keys of a Chronos transaction; a JSON array whose first object
/// starts with one of them is a Chronos history (Jepsen's ops have none).
const TXN_KEYS: [&str; 5] = ["tid", "sid", "sts", "cts", "ops"];

/// Whether the first bytes of a JSON file are a Chronos history's: an
/// array whose first object's first key is a transaction's.
pub fn looks_like_chronos(head: &[u8]) -> bool {
    let text = String::from_utf8_lossy(head);
    let rest = text.trim_start_matches('\u{FEFF}').trim_start();
    let Some(rest) = rest.strip_prefix('[') else {
        return false;
    };
    let Some(rest) = rest.trim_start().strip_prefix('{') else {
        return false;
    };
    let Some(rest) = rest.trim_start().strip_prefix('"') else {
        return false;
    };
    TXN_KEYS
        .iter()
        .any(|k| rest.strip_prefix(k).is_some_and(|r| r.starts_with('"')))
}

/// A hybrid logical clock: `(physical, logical)`.
type Clock = (i64, i64);

/// What the reader learns across transactions.
#[derive(Default)]
struct State {
    /// Session ids as written, numbered in order of first appearance.
    named: HashMap<String, i64>,
    /// Whether some session id is not a non-negative integer.
    any_named: bool,
    /// Each op's session, numbered (`named`'s number).
    of_op: Vec<i64>,
    /// Whether an append or a list read shows the list format.
    list: bool,
    /// The micro-ops that read `null`: the initial version, or in the list
    /// format the empty list.
    nil_reads: Vec<usize>,
}

/// Reads every transaction of a Chronos history, with its timestamps.
pub fn read(text: &str) -> Result<Ops, HistoryError> {
    let mut out = TxnOps::new();
    let mut clocks: Vec<(Clock, Clock)> = Vec::new();
    let mut state = State::default();
    for_each_element(text, HELP, |j| {
        let (start, commit) = txn(&mut out, &mut state, &j)?;
        clocks.push((start, commit));
        crate::limits::tick_read(clocks.len(), j.span().end());
        Ok(())
    })?;
    let mut ops = out.finish_zero_initial();
    if state.any_named {
        for (op, &s) in ops.ops.iter_mut().zip(&state.of_op) {
            op.process = Process::Client(s);
        }
    }
    if state.list {
        ops.format_workload = Some(Workload::ListAppend);
        let empty = MopValue::List { start: 0, len: 0 };
        for &i in &state.nil_reads {
            let m = ops.mops[i];
            ops.mops[i] = MicroOp::new(MopKind::Read, m.key, empty, m.span);
        }
    }
    ops.stamps = stamps(&clocks);
    ops.rebuilt_ops = true;
    Ok(ops)
}

/// Reads one transaction into `out`; its start and commit clocks.
fn txn(out: &mut TxnOps, state: &mut State, j: &J<'_>) -> Result<(Clock, Clock), HistoryError> {
    let Some(members) = j.members() else {
        let e = format_error(format!("not a transaction: {}", j.describe()), HELP);
        return Err(e.at(j.span(), "not a transaction object"));
    };
    let field = |name: &'static str| {
        let found = members.iter().find(|(k, _)| k.str() == Some(name));
        found.map(|(_, v)| v).ok_or_else(|| {
            let head = Span::new(j.span().start(), j.span().start() + 1);
            format_error(format!("a transaction without \"{name}\""), HELP)
                .at(head, "this transaction")
        })
    };
    let start = clock(field("sts")?, "sts")?;
    let commit = clock(field("cts")?, "cts")?;
    let session = session(state, field("sid")?)?;
    let ops = field("ops")?;
    let Some(items) = ops.items() else {
        let e = format_error(format!("\"ops\" is not an array: {}", ops.describe()), HELP);
        return Err(e.at(ops.span(), "here"));
    };
    let first = out.ops.mops.len();
    for m in items {
        mop(out, state, m)?;
    }
    out.txn(first, session, true, j.span())?;
    Ok((start, commit))
}

/// The session's number: the integer it is, or (when some id is not one)
/// its number in order of first appearance.
fn session(sessions: &mut State, j: &J<'_>) -> Result<u64, HistoryError> {
    let Some(text) = j.num_or_str() else {
        let e = format_error(
            format!("\"sid\" is {}", j.describe()),
            "a session id is an integer or a string",
        );
        return Err(e.at(j.span(), "this session id"));
    };
    let next = sessions.named.len() as i64;
    let numbered = *sessions.named.entry(text.to_string()).or_insert(next);
    sessions.of_op.push(numbered);
    match text.parse::<u64>() {
        Ok(n) if n < 1 << 63 => Ok(n),
        _ => {
            sessions.any_named = true;
            Ok(numbered as u64)
        }
    }
}

/// `{"p": physical, "l": logical}`, each a non-negative integer or a
/// string of digits (Chronos reads both).
fn clock(j: &J<'_>, name: &str) -> Result<Clock, HistoryError> {
    let bad = |why: String| {
        format_error(
            format!("\"{name}\" {why}"),
            "a timestamp is a hybrid logical clock: {\"p\": 1691420095436341, \"l\": 0}, \
             integers below 2^63",
        )
        .at(j.span(), "this timestamp")
    };
    let Some(members) = j.members() else {
        return Err(bad(format!("is {}", j.describe())));
    };
    let part = |key: &str| {
        let v = members
            .iter()
            .find(|(k, _)| k.str() == Some(key))
            .map(|(_, v)| v);
        match v.and_then(J::num_or_str).map(str::parse::<i64>) {
            Some(Ok(n)) if n >= 0 => Ok(n),
            Some(_) => Err(bad(format!(
                "has a \"{key}\" that is not an integer below 2^63"
            ))),
            None => Err(bad(format!("has no \"{key}\""))),
        }
    };
    Ok((part("p")?, part("l")?))
}

/// One micro-op: `{"t": "w", "k": 1, "v": 2}`, or in the list format
/// `{"t": "a", "k": 1, "v": 2}` and `{"t": "r", "k": 1, "v": [2]}`.
fn mop(out: &mut TxnOps, state: &mut State, j: &J<'_>) -> Result<(), HistoryError> {
    let Some(members) = j.members() else {
        return Err(bad_mop(
            format!("not a micro-op: {}", j.describe()),
            j.span(),
        ));
    };
    let get = |key: &str| {
        members
            .iter()
            .find(|(k, _)| k.str() == Some(key))
            .map(|(_, v)| v)
    };
    let t = get("t").and_then(J::str).map(str::to_ascii_lowercase);
    let kind = match t.as_deref() {
        Some("w" | "write") => MopKind::Write,
        Some("a" | "append") => MopKind::Append,
        Some("r" | "read") => MopKind::Read,
        _ => {
            let at = get("t").map_or(j.span(), J::span);
            let why =
                "a micro-op's \"t\" is \"w\", \"write\", \"a\", \"append\", \"r\" or \"read\"";
            return Err(bad_mop(why.into(), at));
        }
    };
    let Some(key) = get("k").and_then(integer) else {
        let at = get("k").map_or(j.span(), J::span);
        return Err(bad_mop(
            "a micro-op's \"k\" is a non-negative integer".into(),
            at,
        ));
    };
    let v = get("v").filter(|v| !v.is_null());
    if let (MopKind::Read, Some(list)) = (kind, v.and_then(J::items)) {
        let values = list
            .iter()
            .map(|e| integer(e).ok_or(e.span()))
            .collect::<Result<Vec<u64>, Span>>();
        let values =
            values.map_err(|at| bad_mop("a list holds non-negative integers".into(), at))?;
        state.list = true;
        out.read_list(key, &values, j.span());
        return Ok(());
    }
    let value = match v {
        None if kind == MopKind::Read => None,
        None => {
            return Err(bad_mop(
                "a write's \"v\" is a non-negative integer".into(),
                j.span(),
            ))
        }
        Some(v) => match integer(v) {
            Some(n) => Some(n),
            None => {
                return Err(bad_mop(
                    "a micro-op's \"v\" is a non-negative integer or null".into(),
                    v.span(),
                ))
            }
        },
    };
    if value.is_none() {
        state.nil_reads.push(out.ops.mops.len());
    }
    state.list |= kind == MopKind::Append;
    out.mop(kind, key, value, j.span());
    Ok(())
}

/// A non-negative integer, or a string of its digits.
fn integer(v: &J<'_>) -> Option<u64> {
    v.num_or_str().and_then(|t| t.parse::<u64>().ok())
}

fn bad_mop(what: String, at: Span) -> HistoryError {
    const HELP_OP: &str = "a micro-op is {\"t\": \"w\" or \"r\", \"k\": an integer key, \"v\": an \
                           integer value (null: the initial one)}, or in the list format \
                           {\"t\": \"a\", \"k\": 1, \"v\": 2} and {\"t\": \"r\", \"k\": 1, \"v\": [2]}";
    format_error(what, HELP_OP).at(at, "here")
}

/// Each transaction's stamp from its clocks: `p` when every `l` is 0,
/// else the clocks' ranks in `(p, l)` order, from 1.
fn stamps(clocks: &[(Clock, Clock)]) -> Vec<Option<Stamp>> {
    let stamp = |start: i64, commit: i64| {
        Some(Stamp {
            start: Some(start),
            commit,
        })
    };
    if clocks.iter().all(|((_, a), (_, b))| *a == 0 && *b == 0) {
        return clocks.iter().map(|&((s, _), (c, _))| stamp(s, c)).collect();
    }
    let mut all: Vec<Clock> = clocks.iter().flat_map(|&(s, c)| [s, c]).collect();
    all.sort_unstable();
    all.dedup();
    // Ranks fit: there are fewer clocks than ops.
    let rank = |c: Clock| all.partition_point(|&x| x < c) as i64 + 1;
    clocks
        .iter()
        .map(|&(s, c)| stamp(rank(s), rank(c)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_array_of_transaction_objects_looks_like_chronos() {
        assert!(looks_like_chronos(b"[\n  {\"tid\": 1, \"sid\": 0}]"));
        assert!(looks_like_chronos(b"[{\"cts\": {\"l\": 0"));
        assert!(!looks_like_chronos(b"[{\"type\": \"ok\"}]"));
        assert!(!looks_like_chronos(b"{\"tid\": 1}"));
        assert!(!looks_like_chronos(b"[{\"tidy\": 1}]"));
    }

    #[test]
    fn logical_parts_order_clocks_with_equal_physical_parts() {
        let clocks = [((5, 2), (5, 9)), ((5, 0), (7, 0))];
        let s = stamps(&clocks);
        assert_eq!(
            s[0],
            Some(Stamp {
                start: Some(2),
                commit: 3
            })
        );
        assert_eq!(
            s[1],
            Some(Stamp {
                start: Some(1),
                commit: 4
            })
        );
        let plain = stamps(&[((3, 0), (8, 0))]);
        assert_eq!(
            plain[0],
            Some(Stamp {
                start: Some(3),
                commit: 8
            })
        );
    }
}
