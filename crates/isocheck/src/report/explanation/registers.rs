//! The cas-register check's findings explained as data, as [`super`] does
//! for transactional anomalies: each [`Violation`] (under
//! `:nonlinearizable`) and [`Undecided`] key (under `:outside-fragment`, a
//! warning) gives an [`Explanation`] — its entry in the result map, the help
//! text and the labels on the history file. `report::registers` only lays them
//! out. A new kind of finding is one arm here.

use super::super::explain::{op_text, value_text, PROSE};
use super::super::human::SHOWN_PER_TYPE;
use super::super::result::{edn, kws, map, R};
use super::Explanation;
use crate::history::{History, RegisterF, RegisterOp, Val, Workload};
use crate::registers::{chain_value, is_read, written, RegId, Undecided, Violation, MAX_PERMUTED};
use std::fmt::Write;

/// How many ops an entry lists: the blind writes of an `:outside-fragment`
/// entry, the last ops of a `:no-linearization` prefix.
const LISTED: usize = 10;

/// Explains a key that is not linearizable.
pub(crate) fn violation<'a>(h: &'a History, v: &Violation) -> Explanation<'a> {
    let (help, labels) = violation_prose(h, v);
    explained(h, violation_entry(h, v), help, labels, false)
}

/// Explains a key the check leaves undecided.
pub(crate) fn undecided<'a>(h: &'a History, u: &Undecided) -> Explanation<'a> {
    let (help, labels) = undecided_prose(h, u);
    explained(h, undecided_entry(h, u), help, labels, true)
}

/// The explanation, its labels on the spans of the ops they name.
fn explained<'a>(
    h: &History,
    entry: R<'a>,
    help: String,
    labels: Vec<(u32, String)>,
    warning: bool,
) -> Explanation<'a> {
    Explanation {
        entry,
        help,
        labels: labels
            .into_iter()
            .map(|(id, text)| (h.op(id).span, text))
            .collect(),
        warning,
    }
}

fn reg(h: &History, r: RegId) -> &RegisterOp {
    &h.registers[r as usize]
}

fn op_r(h: &History, r: RegId) -> R<'_> {
    R::Edn(op_text(h, reg(h, r).op()))
}

fn ops_r<'a>(h: &'a History, rs: &[RegId]) -> R<'a> {
    R::Vec(rs.iter().map(|&r| op_r(h, r)).collect())
}

fn val(h: &History, v: Val) -> R<'static> {
    edn(h.values.display(v))
}

/// `[("key", k)]` for independent histories.
fn key_entry(h: &History, key: Val) -> Vec<(&'static str, R<'static>)> {
    match h.independent_keys {
        true => vec![("key", val(h, key))],
        false => Vec::new(),
    }
}

fn violation_entry<'a>(h: &'a History, v: &Violation) -> R<'a> {
    let mut e = vec![("type", kws(v.name()))];
    e.extend(key_entry(h, v.key()));
    match v {
        Violation::Realtime { op, preceding, .. } => {
            let y = reg(h, *preceding);
            e.push(("op", op_r(h, *op)));
            e.push(("value", val(h, chain_value(reg(h, *op)))));
            e.push(("preceding", R::Edn(op_text(h, y.invoke.unwrap_or(y.op())))));
            e.push(("preceding-value", val(h, chain_value(y))));
        }
        Violation::Fork { value, ops, .. } => {
            e.push(("value", val(h, *value)));
            e.push(("ops", ops_r(h, ops)));
        }
        Violation::Unwritten {
            value,
            op,
            failed_writer,
            ..
        } => {
            e.push(("value", val(h, *value)));
            e.push(("op", op_r(h, *op)));
            if let Some(f) = failed_writer {
                e.push(("failed-writer", op_r(h, *f)));
            }
        }
        Violation::Cycle { ops, .. } => e.push(("ops", ops_r(h, ops))),
        Violation::NoOrder { writes, .. } => e.push(("writes", ops_r(h, writes))),
        Violation::NoLinearization {
            prefix, op, states, ..
        } => {
            e.push(("op", op_r(h, *op)));
            e.push((
                "states",
                R::Vec(states.iter().map(|&v| val(h, v)).collect()),
            ));
            e.push(("prefix-length", R::Int(prefix.len() as i64)));
            let mut listed = Vec::new();
            if prefix.len() > LISTED {
                listed.push(R::Sym("..."));
            }
            let tail = &prefix[prefix.len().saturating_sub(LISTED)..];
            listed.extend(tail.iter().map(|&r| op_r(h, r)));
            e.push(("prefix", R::Vec(listed)));
        }
    }
    map(e)
}

fn undecided_entry<'a>(h: &'a History, u: &Undecided) -> R<'a> {
    let mut e = vec![("reason", kws(u.name()))];
    e.extend(key_entry(h, u.key()));
    match u {
        Undecided::DuplicateWrites { value, ops, .. } => {
            e.push(("value", val(h, *value)));
            let ops: &[RegId] = if ops[0] == ops[1] { &ops[..1] } else { ops };
            e.push(("ops", ops_r(h, ops)));
        }
        Undecided::BlindWrites { writes, .. } => {
            e.push(("count", R::Int(writes.len() as i64)));
            let mut listed: Vec<R> = writes.iter().take(LISTED).map(|&r| op_r(h, r)).collect();
            if writes.len() > LISTED {
                listed.push(R::Sym("..."));
            }
            e.push(("writes", R::Vec(listed)));
        }
    }
    map(e)
}

/// `key 3`, or `the register` (`the mutex`).
fn key_name(h: &History, key: Val) -> String {
    match (h.independent_keys, h.workload) {
        (true, _) => format!("key {}", shown(h, key)),
        (false, Workload::Mutex) => "the mutex".to_string(),
        (false, _) => "the register".to_string(),
    }
}

/// A value in prose, clipped.
fn shown(h: &History, v: Val) -> String {
    value_text(h, v, PROSE.value_chars)
}

fn index(h: &History, id: Option<u32>) -> i64 {
    id.map_or(-1, |i| h.op(i).index)
}

/// `write 1`, `cas 1 → 2`, `read 2`, `acquire`.
fn describe(h: &History, o: &RegisterOp) -> String {
    let d = |v| shown(h, v);
    match o.f {
        RegisterF::Cas => format!("cas {} → {}", d(o.value), d(o.new)),
        RegisterF::Acquire | RegisterF::Release => o.f.name().to_string(),
        f => format!("{} {}", f.name(), d(o.value)),
    }
}

/// A label on each of these ops saying what it did.
fn described<'r>(h: &History, ops: impl Iterator<Item = &'r RegId>) -> Vec<(u32, String)> {
    ops.map(|&r| (reg(h, r).op(), describe(h, reg(h, r))))
        .collect()
}

/// The help and labels (on ops) of a violation.
fn violation_prose(h: &History, v: &Violation) -> (String, Vec<(u32, String)>) {
    let key = key_name(h, v.key());
    let at = |r: RegId| index(h, Some(reg(h, r).op()));
    let d = |v: Val| shown(h, v);
    match v {
        Violation::Realtime { op, preceding, .. } => {
            let (x, y) = (reg(h, *op), reg(h, *preceding));
            let (xi, yi) = (index(h, x.completion), index(h, y.invoke));
            let why = if is_read(x) && written(y) == Some(x.value) {
                format!("it read {}, which index {yi} wrote", d(x.value))
            } else if x.f == RegisterF::Cas && written(y) == Some(x.value) {
                format!("it expects {}, which index {yi} wrote", d(x.value))
            } else if is_read(y) && x.f == RegisterF::Cas && x.value == y.value {
                format!("index {yi} read {}, which this cas overwrote", d(y.value))
            } else {
                let verb = if written(y).is_some() {
                    "wrote"
                } else {
                    "read"
                };
                format!(
                    "index {yi} {verb} {}, which comes before {} in {key}'s chain of values",
                    d(chain_value(y)),
                    d(chain_value(x))
                )
            };
            let help = format!(
                "the op at index {xi} ({}) completed before the op at index {yi} ({}) was \
                 invoked, yet it must come after it: {why}. No order of {key}'s ops \
                 consistent with real time explains the values, so {key} is not linearizable.",
                describe(h, x),
                describe(h, y),
            );
            let labels = vec![
                (
                    x.completion.unwrap_or(x.op()),
                    format!("{} completed here", describe(h, x)),
                ),
                (
                    y.invoke.unwrap_or(y.op()),
                    format!("{} invoked here, later", describe(h, y)),
                ),
            ];
            (help, labels)
        }
        Violation::Fork { value, ops, .. } => {
            let help = format!(
                "the compare-and-sets at indices {} and {} both took effect and both changed \
                 {key} from {}; a value is overwritten once in a chain of compare-and-sets, \
                 so {key} is not linearizable.",
                at(ops[0]),
                at(ops[1]),
                d(*value)
            );
            let labels = described(h, ops.iter());
            (help, labels)
        }
        Violation::Unwritten {
            value,
            op,
            failed_writer,
            ..
        } => {
            let o = reg(h, *op);
            let verb = if o.f == RegisterF::Read {
                "read"
            } else {
                "expects"
            };
            let mut help = format!(
                "the op at index {} {verb} {} in {key}, but no op that may have taken effect \
                 wrote it",
                at(*op),
                d(*value)
            );
            let mut labels = vec![(o.op(), format!("{verb} {}", d(*value)))];
            if let Some(f) = failed_writer {
                let _ = write!(help, " (the op at index {} wrote it, and failed)", at(*f));
                labels.push((reg(h, *f).op(), "failed".to_string()));
            }
            help.push_str(&format!(", so {key} is not linearizable."));
            (help, labels)
        }
        Violation::Cycle { ops, .. } => {
            let mut values: Vec<String> = ops.iter().map(|&r| d(reg(h, r).value)).collect();
            values.extend(values.first().cloned());
            let indices: Vec<String> = ops.iter().map(|&r| at(r).to_string()).collect();
            let help = format!(
                "the compare-and-sets at indices {} change {key} around a cycle of values \
                 ({}) that no write starts, so {key} is not linearizable.",
                indices.join(", "),
                values.join(" → ")
            );
            let labels = described(h, ops.iter().take(SHOWN_PER_TYPE));
            (help, labels)
        }
        Violation::NoOrder { writes, .. } => {
            let indices: Vec<String> = writes.iter().map(|&r| at(r).to_string()).collect();
            let help = format!(
                "{key} has {} blind writes (at indices {}); none of their orders, each write \
                 followed by the compare-and-sets from its value and the reads of them, is \
                 consistent with real time, so {key} is not linearizable.",
                writes.len(),
                indices.join(", ")
            );
            let labels = described(h, writes.iter());
            (help, labels)
        }
        Violation::NoLinearization {
            prefix, op, states, ..
        } => no_linearization(h, &key, prefix, *op, states),
    }
}

/// The help and labels of the search's counterexample: the op, the states
/// and the last ops of the longest linearizable prefix.
fn no_linearization(
    h: &History,
    key: &str,
    prefix: &[RegId],
    op: RegId,
    states: &[Val],
) -> (String, Vec<(u32, String)>) {
    let x = reg(h, op);
    let d = |v: Val| shown(h, v);
    let holds: Vec<String> = states.iter().map(|&v| d(v)).collect();
    let holds = match (h.workload, holds.as_slice()) {
        (Workload::Mutex, [one]) => one.trim_start_matches(':').to_string(),
        (Workload::Mutex, _) => "free or held".to_string(),
        (_, [one]) => format!("holding {one}"),
        _ => format!("holding one of {}", holds.join(", ")),
    };
    let last: Vec<String> = prefix
        .iter()
        .rev()
        .take(3)
        .rev()
        .map(|&r| {
            format!(
                "{} ({})",
                index(h, Some(reg(h, r).op())),
                describe(h, reg(h, r))
            )
        })
        .collect();
    let ending = match last.is_empty() {
        true => "no ops".to_string(),
        false => format!(
            "{} ops, ending with indices {}",
            prefix.len(),
            last.join(", ")
        ),
    };
    let (so, what) = match h.workload {
        Workload::Mutex => (format!("the {} is allowed", x.f.name()), "outcomes"),
        _ => ("it holds".to_string(), "values"),
    };
    let help = format!(
        "the op at index {} ({}) cannot be linearized: the longest linearizable prefix of \
         {key}'s ops ({ending}) leaves {key} {holds}, and no op still open can take \
         effect before this op completes so that {so}. No order of {key}'s ops consistent \
         with real time explains the {what}, so {key} is not linearizable.",
        index(h, x.completion),
        describe(h, x),
    );
    let mut labels = vec![(x.op(), format!("{} cannot be linearized", describe(h, x)))];
    for (n, &r) in prefix.iter().enumerate().rev().take(3) {
        let text = format!("linearized #{}: {}", n + 1, describe(h, reg(h, r)));
        labels.push((reg(h, r).op(), text));
    }
    (help, labels)
}

/// The help and labels (on ops) of an undecided key.
fn undecided_prose(h: &History, u: &Undecided) -> (String, Vec<(u32, String)>) {
    let key = key_name(h, u.key());
    let at = |r: RegId| index(h, Some(reg(h, r).op()));
    match u {
        Undecided::DuplicateWrites { value, ops, .. } => {
            let v = shown(h, *value);
            let what = if ops[0] == ops[1] {
                format!(
                    "the op at index {} writes nil, the initial value of {key}",
                    at(ops[0])
                )
            } else {
                format!(
                    "the ops at indices {} and {} both write {v} to {key}",
                    at(ops[0]),
                    at(ops[1])
                )
            };
            let help = format!(
                "{what}; the check tells writes apart by their values, so {key} is outside \
                 the fragment it decides and its linearizability is unknown."
            );
            let labels = ops
                .iter()
                .map(|&r| (reg(h, r).op(), format!("writes {v}")))
                .collect();
            (help, labels)
        }
        Undecided::BlindWrites { writes, .. } => {
            let help = format!(
                "{key} has {} blind writes (:write); the check tries every order of at most {} \
                 of them, so {key} is outside the fragment it decides and its linearizability \
                 is unknown.",
                writes.len(),
                MAX_PERMUTED
            );
            let labels = writes
                .iter()
                .take(3)
                .map(|&r| (reg(h, r).op(), "blind write".to_string()))
                .collect();
            (help, labels)
        }
    }
}
