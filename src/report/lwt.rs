//! Reports of the lightweight-transaction (cas-register) check: the result
//! map in Elle/Knossos's spirit, as EDN and JSON, and the report for people.
//!
//! ```clojure
//! {:valid? false,
//!  :anomaly-types [:nonlinearizable],
//!  :anomalies
//!  {:nonlinearizable
//!   [{:type :realtime, :key 3, :op {...}, :value 2, :preceding {...}, :preceding-value 1}]}}
//! ```
//!
//! Entries of `:nonlinearizable` (`:key` only for `jepsen.independent` histories):
//! - `{:type :realtime, :key, :op, :value, :preceding, :preceding-value}`:
//!   `:op` (its completion) completed before `:preceding` (its invocation)
//!   was invoked, though `:preceding` comes first in the key's value chain;
//!   `:value` and `:preceding-value` are the values each wrote or read.
//! - `{:type :fork, :key, :value, :ops [a b]}`: two compare-and-sets from `:value`.
//! - `{:type :unwritten, :key, :value, :op}` (and `:failed-writer` when a
//!   `:fail` op wrote it): `:op` read or expected a value nobody wrote.
//! - `{:type :cycle, :key, :ops [...]}`: compare-and-sets in a cycle of values.
//! - `{:type :no-order, :key, :writes [...]}`: no order of the blind writes works.
//! - `{:type :no-linearization, :key, :op, :states [...], :prefix-length, :prefix [...]}`:
//!   the general search's counterexample, as Knossos and Porcupine give it:
//!   no linearizable prefix extends past `:op` (its completion); `:prefix`
//!   ends the longest one found (its last [`LISTED`] ops, in linearization
//!   order), after which the register holds one of `:states`.
//!
//! Entries of `:outside-fragment` (`:valid? :unknown` unless another key is
//! invalid): `{:reason :duplicate-writes, :key, :value, :ops [a b]}` and
//! `{:reason :blind-writes, :key, :count, :writes [... first ten]}`.

use super::diagnostic;
use super::explain::op_text;
use super::human::{Builder, Finding, SHOWN_PER_TYPE};
use super::result::{edn, kws, map, R};
use crate::check::lwt::{
    chain_value, is_read, written, LwtAnalysis, RegId, Undecided, Violation, NONLINEARIZABLE,
    OUTSIDE_FRAGMENT,
};
use crate::check::Validity;
use crate::history::{History, RegisterF, RegisterOp, Val};
use miette::Severity;
use std::fmt::Write;

/// How many blind writes an `:outside-fragment` entry lists.
const LISTED: usize = 10;

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

fn violation<'a>(h: &'a History, v: &Violation) -> R<'a> {
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

fn undecided<'a>(h: &'a History, u: &Undecided) -> R<'a> {
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

/// The result map.
fn result_map<'a>(h: &'a History, a: &LwtAnalysis) -> R<'a> {
    let valid = match a.validity() {
        Validity::True => return map(vec![("valid?", R::Bool(true))]),
        Validity::False => R::Bool(false),
        Validity::Unknown => kws("unknown"),
    };
    let mut anomalies = Vec::new();
    if !a.violations.is_empty() {
        let entries = a.violations.iter().map(|v| violation(h, v)).collect();
        anomalies.push((kws(NONLINEARIZABLE), R::Vec(entries)));
    }
    if !a.undecided.is_empty() {
        let entries = a.undecided.iter().map(|u| undecided(h, u)).collect();
        anomalies.push((kws(OUTSIDE_FRAGMENT), R::Vec(entries)));
    }
    let types = a.anomaly_types().into_iter().map(kws).collect();
    map(vec![
        ("valid?", valid),
        ("anomaly-types", R::Vec(types)),
        ("anomalies", R::Map(anomalies)),
    ])
}

/// The result map as EDN.
pub fn edn_result(h: &History, a: &LwtAnalysis) -> String {
    super::edn::print(&result_map(h, a))
}

/// The result map as JSON.
pub fn json_result(h: &History, a: &LwtAnalysis) -> serde_json::Value {
    super::json::to_json(&result_map(h, a))
}

/// `key 3`, or `the register`.
fn key_name(h: &History, key: Val) -> String {
    match h.independent_keys {
        true => format!("key {}", h.values.display(key)),
        false => "the register".to_string(),
    }
}

fn index(h: &History, id: Option<u32>) -> i64 {
    id.map_or(-1, |i| h.op(i).index)
}

/// `write 1`, `cas 1 → 2`, `read 2`.
fn describe(h: &History, o: &RegisterOp) -> String {
    let d = |v| h.values.display(v);
    match o.f {
        RegisterF::Cas => format!("cas {} → {}", d(o.value), d(o.new)),
        f => format!("{} {}", f.name(), d(o.value)),
    }
}

/// The report for people: the verdict line, then each finding.
pub fn render(h: &History, a: &LwtAnalysis, color: bool) -> String {
    let paint = |code: &str, word: &str| match color {
        true => format!("\x1b[1;{code}m{word}\x1b[0m"),
        false => word.to_string(),
    };
    let keys = match (h.independent_keys, a.keys) {
        (false, _) => "one register".to_string(),
        (true, 1) => "1 key".to_string(),
        (true, n) => format!("{n} keys"),
    };
    let mut out = match a.validity() {
        Validity::True => format!(
            "{}: linearizable ({keys}, {} register ops)\n",
            paint("32", "valid"),
            h.registers.len()
        ),
        Validity::False => format!(
            "{}: {}\n  not: linearizable\n",
            paint("31", "invalid"),
            a.anomaly_types().join(", ")
        ),
        Validity::Unknown => format!(
            "{}: {}\n",
            paint("33", "unknown"),
            a.anomaly_types().join(", ")
        ),
    };
    let findings = a
        .violations
        .iter()
        .map(|v| (NONLINEARIZABLE, Ok(v)))
        .chain(a.undecided.iter().map(|u| (OUTSIDE_FRAGMENT, Err(u))));
    let mut shown = [0usize; 2];
    let total = [a.violations.len(), a.undecided.len()];
    for (t, f) in findings {
        let slot = usize::from(f.is_err());
        if shown[slot] == SHOWN_PER_TYPE {
            continue;
        }
        let message = format!("{t} #{}", shown[slot]);
        shown[slot] += 1;
        let finding = match f {
            Ok(v) => violation_finding(h, message, v),
            Err(u) => undecided_finding(h, message, u),
        };
        out.push('\n');
        out.push_str(&diagnostic::render(&finding, color));
    }
    for (slot, t) in [NONLINEARIZABLE, OUTSIDE_FRAGMENT].into_iter().enumerate() {
        if total[slot] > SHOWN_PER_TYPE {
            let _ = writeln!(
                out,
                "\n… and {} more {t} (--format edn or json lists them all)",
                total[slot] - SHOWN_PER_TYPE
            );
        }
    }
    out
}

fn violation_finding<'a>(h: &'a History, message: String, v: &Violation) -> Finding<'a> {
    let key = key_name(h, v.key());
    let at = |r: RegId| index(h, Some(reg(h, r).op()));
    let d = |v: Val| h.values.display(v);
    let (help, labels): (String, Vec<(u32, String)>) = match v {
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
            let labels = ops
                .iter()
                .map(|&r| (reg(h, r).op(), describe(h, reg(h, r))))
                .collect();
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
            let labels = ops
                .iter()
                .take(SHOWN_PER_TYPE)
                .map(|&r| (reg(h, r).op(), describe(h, reg(h, r))))
                .collect();
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
            let labels = writes
                .iter()
                .map(|&r| (reg(h, r).op(), describe(h, reg(h, r))))
                .collect();
            (help, labels)
        }
        Violation::NoLinearization {
            prefix, op, states, ..
        } => no_linearization(h, &key, prefix, *op, states),
    };
    finding(h, message, help, labels, Severity::Error)
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
    let d = |v: Val| h.values.display(v);
    let holds: Vec<String> = states.iter().map(|&v| d(v)).collect();
    let holds = match holds.as_slice() {
        [one] => one.clone(),
        _ => format!("one of {}", holds.join(", ")),
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
    let help = format!(
        "the op at index {} ({}) cannot be linearized: the longest linearizable prefix of \
         {key}'s ops ({ending}) leaves {key} holding {holds}, and no op still open can take \
         effect before this op completes so that it holds. No order of {key}'s ops consistent \
         with real time explains the values, so {key} is not linearizable.",
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

fn undecided_finding<'a>(h: &'a History, message: String, u: &Undecided) -> Finding<'a> {
    let key = key_name(h, u.key());
    let at = |r: RegId| index(h, Some(reg(h, r).op()));
    let (help, labels): (String, Vec<(u32, String)>) = match u {
        Undecided::DuplicateWrites { value, ops, .. } => {
            let v = h.values.display(*value);
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
                crate::check::lwt::MAX_PERMUTED
            );
            let labels = writes
                .iter()
                .take(3)
                .map(|&r| (reg(h, r).op(), "blind write".to_string()))
                .collect();
            (help, labels)
        }
    };
    finding(h, message, help, labels, Severity::Warning)
}

fn finding<'a>(
    h: &'a History,
    message: String,
    help: String,
    labels: Vec<(u32, String)>,
    severity: Severity,
) -> Finding<'a> {
    let mut b = Builder::new(h, message, help);
    for (id, text) in labels {
        b.label(h.op(id).span, text);
    }
    b.f.severity = severity;
    b.done()
}
