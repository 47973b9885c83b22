//! The commit order a database reports for its transactions, read in one
//! of two forms: Elle's `:transaction-order` (a map from the `:index` of
//! each transaction's completion op to its position in a total order, as
//! EDN `{0 2, 1 1}` or JSON `{"0": 2, "1": 1}`), or the commit timestamps
//! ops carry (MongoDB's `:commit-timestamp`, TiDB's `:txn-info {:commit_ts
//! …}`). Owns only the reading: what the order means for the version order
//! is the rw-register inference's (`:transaction-order-keys`).

use super::edn::{self, Kind, Node};
use super::error::ErrorKind;
use super::formats::json;
use super::{History, HistoryError, InputDiagnostic, SourceFile, Span, Status, TxnId, Workload};
use std::collections::HashMap;
use std::path::PathBuf;

/// Each transaction's position in the reported order, by [`TxnId`];
/// `None` for a transaction the order does not name.
pub type CommitOrder = Vec<Option<i64>>;

/// The op keys that carry a commit or start timestamp, as EDN and JSON
/// name them.
const COMMIT_KEYS: [&str; 2] = [":commit-timestamp", "\"commit-timestamp\""];
const START_KEYS: [&str; 2] = [":start-timestamp", "\"start-timestamp\""];
/// The op keys of a map holding them under `START_TS` and `COMMIT_TS`.
const INFO_KEYS: [&str; 2] = [":txn-info", "\"txn-info\""];
const START_TS: &str = "start_ts";
const COMMIT_TS: &str = "commit_ts";

/// Where a commit order comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OrderSource {
    /// A file holding Elle's `:transaction-order` map.
    File(PathBuf),
    /// The commit timestamps on the history's ops.
    Timestamps,
}

impl OrderSource {
    /// `timestamps`, or else a file's path (`./timestamps` names a file of
    /// that name).
    pub fn parse(arg: &str) -> OrderSource {
        match arg {
            "timestamps" => OrderSource::Timestamps,
            path => OrderSource::File(PathBuf::from(path)),
        }
    }
}

/// Reads the order `from` names and gives it to `h`
/// ([`History::commit_order`]). Only rw-register histories take one: a
/// list-append history's reads show its version order.
pub fn attach(h: &mut History, from: &OrderSource) -> Result<(), InputDiagnostic> {
    const FLAG: &str = "--transaction-order";
    h.commit_order = match from {
        OrderSource::Timestamps => {
            read_stamps(h, FLAG)?;
            commits(&h.stamps)
        }
        OrderSource::File(path) => {
            rw_register_only(h, FLAG)?;
            let text = std::fs::read_to_string(path)
                .map_err(|e| InputDiagnostic::new(HistoryError::io(path, &e), None))?;
            from_file(h, &path.display().to_string(), text)?
        }
    };
    Ok(())
}

/// Reads the timestamps `h`'s ops carry into [`History::stamps`], once,
/// for `flag` (`--check-timestamps`, `--transaction-order timestamps`):
/// an rw-register history some of whose ops carry them.
pub fn read_stamps(h: &mut History, flag: &str) -> Result<(), InputDiagnostic> {
    rw_register_only(h, flag)?;
    if h.stamps.is_empty() {
        h.stamps = some_stamps(h)?;
    }
    Ok(())
}

fn rw_register_only(h: &History, flag: &str) -> Result<(), InputDiagnostic> {
    if h.workload == Workload::RwRegister {
        return Ok(());
    }
    let e = HistoryError::new(
        ErrorKind::TransactionOrder(format!(
            "{flag} is about rw-register versions, but this is a {} history",
            h.workload.name()
        )),
        format!("leave out {flag}: a list-append history's reads show its version order"),
    );
    Err(InputDiagnostic::new(e, None))
}

/// The order an order file (`name`, holding `text`) gives `h`'s
/// transactions. Errors point into the order file.
pub fn from_file(h: &History, name: &str, text: String) -> Result<CommitOrder, InputDiagnostic> {
    let source = SourceFile::new(name, text);
    let text = source.text();
    let within = |e: HistoryError| InputDiagnostic::new(e, Some(source.clone()));
    let entries = if json::looks_like_json(text.as_bytes()) {
        json::with_node(text, json::Context::Op, entries_of).unwrap_or_else(|| Err(not_json(text)))
    } else {
        match edn::read_all(text) {
            Ok(forms) => match forms.as_slice() {
                [map] => entries_of(map),
                _ => Err(not_a_map(Span::new(0, text.len()), "one map is expected")),
            },
            Err(e) => Err(HistoryError::from(e)),
        }
    }
    .map_err(within)?;
    place(h, &entries).map_err(within)
}

/// The timestamps a database reported for one transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    /// When its snapshot was taken, if reported.
    pub start: Option<i64>,
    /// When it committed.
    pub commit: i64,
}

/// The order the commit timestamps on `h`'s completion ops give. A history
/// with none is an error: the user asked for an order that is not there.
pub fn from_timestamps(h: &History) -> Result<CommitOrder, InputDiagnostic> {
    some_stamps(h).map(|stamps| commits(&stamps))
}

fn commits(stamps: &[Option<Stamp>]) -> CommitOrder {
    stamps.iter().map(|s| s.map(|s| s.commit)).collect()
}

/// [`stamps`], where some op carries a commit timestamp.
fn some_stamps(h: &History) -> Result<Vec<Option<Stamp>>, InputDiagnostic> {
    let stamps = stamps(h)?;
    if stamps.iter().all(Option::is_none) {
        let e = HistoryError::new(
            ErrorKind::TransactionOrder("no op carries a commit timestamp".into()),
            "timestamps are read from :commit-timestamp or :txn-info {:commit_ts …} on completion \
             ops; give the order as a file instead (--transaction-order FILE)",
        );
        return Err(InputDiagnostic::new(e, None));
    }
    Ok(stamps)
}

/// Each transaction's timestamps, from its completion op: MongoDB's
/// `:start-timestamp` and `:commit-timestamp`, or TiDB's `:txn-info
/// {:start_ts … :commit_ts …}` (in JSON, the same names as strings).
/// `None` for a transaction with no commit timestamp.
pub fn stamps(h: &History) -> Result<Vec<Option<Stamp>>, InputDiagnostic> {
    let text = h.source.text();
    let mut out = vec![None; h.txns.len()];
    for (t, txn) in h.txns.iter().enumerate() {
        crate::limits::tick();
        let Some(op) = txn.completion.map(|c| h.op(c)) else {
            continue;
        };
        let extras = (h.extras[op.extras_range()].iter())
            .map(|&(key, value)| (key.text_from(text), value.text_from(text)));
        out[t] = stamp_of(extras, h.json).map_err(|key| bad_timestamp(h, key, op.span))?;
    }
    Ok(out)
}

/// The timestamps among one op's `extras` (its keys and values, as text),
/// if it carries a commit timestamp; the key whose value is no timestamp
/// if one is not.
pub fn stamp_of<'a>(
    extras: impl Iterator<Item = (&'a str, &'a str)>,
    is_json: bool,
) -> Result<Option<Stamp>, &'a str> {
    let (mut start, mut commit) = (None, None);
    for (key, value) in extras {
        if START_KEYS.contains(&key) {
            start = Some(integer_in(value, is_json).ok_or(key)?);
        } else if COMMIT_KEYS.contains(&key) {
            commit = Some(integer_in(value, is_json).ok_or(key)?);
        } else if INFO_KEYS.contains(&key) {
            let (s, c) = info_stamps(value, is_json);
            start = start.or(s);
            commit = Some(c.ok_or(key)?);
        }
    }
    Ok(commit.map(|commit| Stamp { start, commit }))
}

fn bad_timestamp(h: &History, key: &str, op: Span) -> InputDiagnostic {
    InputDiagnostic::new(timestamp_error(key, op), Some(h.source.clone()))
}

/// The error of an op at `op` whose `key` holds no timestamp.
pub fn timestamp_error(key: &str, op: Span) -> HistoryError {
    HistoryError::new(
        ErrorKind::TransactionOrder(format!("{key} holds no integer timestamp")),
        "a timestamp is an integer (under :commit_ts and :start_ts in :txn-info)",
    )
    .at(op, "this op")
}

/// The value `text` as an integer, read as the history's format reads it.
fn integer_in(text: &str, is_json: bool) -> Option<i64> {
    // Plain digits, the usual case, without a reader (a million ops).
    if let Ok(i) = text.parse() {
        return Some(i);
    }
    read_value(text, is_json, |n| match n.kind {
        Kind::Int(i) => Some(i),
        _ => None,
    })
}

/// `:start_ts` and `:commit_ts` (or the same as strings) of the map `text`.
fn info_stamps(text: &str, is_json: bool) -> (Option<i64>, Option<i64>) {
    let field = |name: &str| {
        read_value(text, is_json, |n| match &n.kind {
            Kind::Map(entries) => entries.iter().find_map(|(k, v)| match (&k.kind, &v.kind) {
                (Kind::Keyword(k), Kind::Int(i)) if *k == name => Some(*i),
                (Kind::Str(s), Kind::Int(i)) if s == name => Some(*i),
                _ => None,
            }),
            _ => None,
        })
    };
    (field(START_TS), field(COMMIT_TS))
}

fn read_value(text: &str, is_json: bool, f: impl Fn(&Node<'_>) -> Option<i64>) -> Option<i64> {
    match is_json {
        true => json::with_node(text, json::Context::Op, |n| f(n)).flatten(),
        false => edn::read_first(text).ok().and_then(|n| f(&n)),
    }
}

/// One entry of an order file: the completion op's `:index`, the position,
/// and where the entry's key is.
struct Entry {
    index: i64,
    position: i64,
    at: Span,
}

fn entries_of(map: &Node<'_>) -> Result<Vec<Entry>, HistoryError> {
    let Kind::Map(pairs) = &map.kind else {
        return Err(not_a_map(map.span, "this is not a map"));
    };
    let mut out = Vec::with_capacity(pairs.len());
    for (k, v) in pairs {
        crate::limits::tick();
        let index = match &k.kind {
            Kind::Int(i) => Some(*i),
            Kind::Str(s) => s.parse().ok(),
            _ => None,
        };
        let Some(index) = index else {
            return Err(entry_error(
                k.span,
                "a key is the :index of a completion op",
            ));
        };
        let Kind::Int(position) = v.kind else {
            return Err(entry_error(v.span, "a position is an integer"));
        };
        out.push(Entry {
            index,
            position,
            at: k.span,
        });
    }
    Ok(out)
}

fn not_a_map(at: Span, label: &str) -> HistoryError {
    HistoryError::new(
        ErrorKind::TransactionOrder("a transaction order is one map".into()),
        "write a map from each transaction's completion :index to its position: {0 2, 1 1} \
         (EDN) or {\"0\": 2, \"1\": 1} (JSON)",
    )
    .at(at, label)
}

fn not_json(text: &str) -> HistoryError {
    HistoryError::new(
        ErrorKind::TransactionOrder("the transaction order is not valid JSON".into()),
        "write one JSON object from each completion :index to its position: {\"0\": 2, \"1\": 1}",
    )
    .at(
        Span::new(0, text.len().min(1)),
        "this object does not end well",
    )
}

fn entry_error(at: Span, what: &'static str) -> HistoryError {
    HistoryError::new(
        ErrorKind::TransactionOrder(what.to_string()),
        "write a map from each transaction's completion :index to its position: {0 2, 1 1}",
    )
    .at(at, "here")
}

/// The positions of `entries` by transaction. An entry naming no
/// transaction's completion is an error (a wrong file, or indices of
/// another history); one naming a failed transaction is left out, as Elle
/// leaves out `:fail` ops: it wrote nothing.
fn place(h: &History, entries: &[Entry]) -> Result<CommitOrder, HistoryError> {
    let mut by_index: HashMap<i64, TxnId> = HashMap::with_capacity(h.txns.len());
    for (t, txn) in h.txns.iter().enumerate() {
        if let Some(c) = txn.completion {
            by_index.insert(h.op(c).index, t as TxnId);
        }
    }
    let mut order = vec![None; h.txns.len()];
    for e in entries {
        let Some(&t) = by_index.get(&e.index) else {
            let e = HistoryError::new(
                ErrorKind::TransactionOrder(format!(
                    "no transaction of {} completes at :index {}",
                    h.source.name(),
                    e.index
                )),
                "the keys are the :index of each transaction's completion (:ok or :info) op",
            )
            .at(e.at, "this index");
            return Err(e);
        };
        if h.txns[t as usize].status != Status::Aborted {
            order[t as usize] = Some(e.position);
        }
    }
    Ok(order)
}
