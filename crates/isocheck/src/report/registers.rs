//! Reports of the register check (cas-register and mutex histories): the result
//! map in Elle/Knossos's spirit, as EDN and JSON, and the report for people,
//! both laid out from the findings' explanations
//! (`report::explanation::registers`).
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
//!   ends the longest one found (its last ten ops, in linearization
//!   order), after which the register holds one of `:states`.
//!
//! Entries of `:outside-fragment` (`:valid? :unknown` unless another key is
//! invalid): `{:reason :duplicate-writes, :key, :value, :ops [a b]}` and
//! `{:reason :blind-writes, :key, :count, :writes [... first ten]}`.

use super::diagnostic;
use super::explanation::registers::{undecided, violation};
use super::human::{lay_out, SHOWN_PER_TYPE};
use super::result::{kws, map, verdict, R};
use crate::check::Validity;
use crate::history::{History, Workload};
use crate::registers::{RegisterAnalysis, NONLINEARIZABLE, OUTSIDE_FRAGMENT};
use std::fmt::Write;

/// The result map.
pub(crate) fn result_map<'a>(h: &'a History, a: &RegisterAnalysis) -> R<'a> {
    if a.validity() == Validity::True {
        return map(vec![("valid?", R::Bool(true))]);
    }
    let mut anomalies = Vec::new();
    if !a.violations.is_empty() {
        let entries = a.violations.iter().map(|v| violation(h, v).entry).collect();
        anomalies.push((kws(NONLINEARIZABLE), R::Vec(entries)));
    }
    if !a.undecided.is_empty() {
        let entries = a.undecided.iter().map(|u| undecided(h, u).entry).collect();
        anomalies.push((kws(OUTSIDE_FRAGMENT), R::Vec(entries)));
    }
    map(verdict(a.validity(), a.anomaly_types(), anomalies))
}

/// The report for people into `out`: the verdict line, then each finding, a finding at a time, so that a report a limit
/// cuts keeps what was written before.
pub fn render_into(out: &mut String, h: &History, a: &RegisterAnalysis, color: bool) {
    let paint = |code: &str, word: &str| match color {
        true => format!("\x1b[1;{code}m{word}\x1b[0m"),
        false => word.to_string(),
    };
    let object = match h.workload {
        Workload::Mutex => "mutex",
        _ => "register",
    };
    let keys = match (h.independent_keys, a.keys) {
        (false, _) => format!("one {object}"),
        (true, 1) => "1 key".to_string(),
        (true, n) => format!("{n} keys"),
    };
    let verdict = match a.validity() {
        Validity::True => format!(
            "{}: linearizable ({keys}, {} {object} ops)\n",
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
    out.push_str(&verdict);
    let findings = a
        .violations
        .iter()
        .map(|v| (NONLINEARIZABLE, Ok(v)))
        .chain(a.undecided.iter().map(|u| (OUTSIDE_FRAGMENT, Err(u))));
    let mut shown = [0usize; 2];
    let total = [a.violations.len(), a.undecided.len()];
    for (t, f) in findings {
        crate::limits::tick();
        let slot = usize::from(f.is_err());
        if shown[slot] == SHOWN_PER_TYPE {
            continue;
        }
        let message = format!("{t} #{}", shown[slot]);
        shown[slot] += 1;
        let x = match f {
            Ok(v) => violation(h, v),
            Err(u) => undecided(h, u),
        };
        let finding = lay_out(h, message, x);
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
}
