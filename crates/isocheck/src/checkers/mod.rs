//! Jepsen's standard checkers, one file each, with the semantics of
//! `jepsen.checker` (counter, set, set-full, unique-ids, total-queue),
//! `jepsen.tests.bank` (as elle-cli runs it: accounts and total from the
//! first read unless given) and `jepsen.tests.long-fork`. Each returns its
//! findings as data, ops by id; `report::jepsen` lays them out as the result
//! map Jepsen writes in `results.edn` (the same keys), and for people.
//!
//! These checkers decide no consistency model: a history is valid or not
//! by the checker's own rule, and the lattice is not involved.

pub mod bank;
pub mod counter;
pub mod long_fork;
pub mod set;
pub mod set_full;
pub mod total_queue;
pub mod unique_ids;

use crate::history::edn::{self, Kind, Node};
use crate::history::{CheckerOp, CheckerValue, History, OpId, Val, Workload};
use crate::validity::Validity;
use std::cmp::Ordering;

/// The checkers' options, as Jepsen's test map and elle-cli name them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JepsenOptions {
    /// Bank: the total every read must sum to (`:total-amount`); by default
    /// the first read's sum.
    pub total_amount: Option<i64>,
    /// Bank: the accounts, as EDN (`:accounts`); by default the first
    /// read's.
    pub accounts: Option<Vec<String>>,
    /// Bank: balances may be negative (`:negative-balances?`).
    pub negative_balances: bool,
    /// Long-fork: keys per read group (the workload's `n`); default 2.
    pub group_size: Option<usize>,
    /// Set-full: a stale read makes the history invalid (`:linearizable?`).
    pub linearizable: bool,
}

/// What one of the checkers found.
#[derive(Debug)]
pub enum JepsenResult {
    /// `jepsen.tests.bank`'s checker.
    Bank(bank::BankResult),
    /// `checker/counter`.
    Counter(counter::CounterResult),
    /// `checker/set`.
    Set(set::SetResult),
    /// `checker/set-full`.
    SetFull(set_full::SetFullResult),
    /// `jepsen.tests.long-fork`'s checker.
    LongFork(long_fork::LongForkResult),
    /// `checker/unique-ids`.
    UniqueIds(unique_ids::UniqueIdsResult),
    /// `checker/total-queue`.
    TotalQueue(total_queue::TotalQueueResult),
}

/// One of Jepsen's checkers: the workload it decides, how it runs, and the
/// keys that find its result map among a `results.edn`'s (checkers compose
/// at any depth, and such a map has no `:anomaly-types`). The table below
/// is the one list of them; `each_result!` is the one list of their results.
struct Checker {
    workload: Workload,
    run: fn(&History, &JepsenOptions) -> JepsenResult,
    /// Keys its result map has…
    has: &'static [&'static str],
    /// …and keys it lacks (telling it from a checker with the same ones).
    lacks: &'static [&'static str],
}

const CHECKERS: [Checker; 7] = [
    Checker {
        workload: Workload::Bank,
        run: |h, o| JepsenResult::Bank(bank::check(h, o)),
        has: &["read-count", "error-count"],
        lacks: &[],
    },
    Checker {
        workload: Workload::Counter,
        run: |h, _| JepsenResult::Counter(counter::check(h)),
        has: &["reads", "errors"],
        lacks: &["read-count"],
    },
    Checker {
        workload: Workload::Set,
        run: |h, _| JepsenResult::Set(set::check(h)),
        has: &["attempt-count", "ok-count"],
        lacks: &["duplicated-count"],
    },
    Checker {
        workload: Workload::SetFull,
        run: |h, o| JepsenResult::SetFull(set_full::check(h, o.linearizable)),
        has: &["stable-count"],
        lacks: &[],
    },
    Checker {
        workload: Workload::LongFork,
        run: |h, o| JepsenResult::LongFork(long_fork::check(h, o.group_size.unwrap_or(2))),
        has: &["early-read-count"],
        lacks: &[],
    },
    Checker {
        workload: Workload::UniqueIds,
        run: |h, _| JepsenResult::UniqueIds(unique_ids::check(h)),
        has: &["attempted-count"],
        lacks: &[],
    },
    Checker {
        workload: Workload::TotalQueue,
        run: |h, _| JepsenResult::TotalQueue(total_queue::check(h)),
        has: &["attempt-count", "duplicated-count"],
        lacks: &[],
    },
];

fn checker(w: Workload) -> Option<&'static Checker> {
    CHECKERS.iter().find(|c| c.workload == w)
}

/// Runs the checker of the history's workload (one of
/// [`Workload::CHECKERS`]).
pub fn check(h: &History, options: &JepsenOptions) -> JepsenResult {
    match checker(h.workload) {
        Some(c) => (c.run)(h, options),
        None => unreachable!(
            "{} is not one of Jepsen's checkers' workloads",
            h.workload.name()
        ),
    }
}

/// The keys that tell workload `w`'s checker's result map: those it has and
/// those it lacks (none for a workload no checker decides).
pub fn result_keys(w: Workload) -> (&'static [&'static str], &'static [&'static str]) {
    checker(w).map_or((&[], &[]), |c| (c.has, c.lacks))
}

/// `$body` with `$r` bound to the checker's own result inside
/// `$result` (a `JepsenResult`), whichever checker's it is.
macro_rules! each_result {
    ($result:expr, $r:ident => $body:expr) => {
        match $result {
            JepsenResult::Bank($r) => $body,
            JepsenResult::Counter($r) => $body,
            JepsenResult::Set($r) => $body,
            JepsenResult::SetFull($r) => $body,
            JepsenResult::LongFork($r) => $body,
            JepsenResult::UniqueIds($r) => $body,
            JepsenResult::TotalQueue($r) => $body,
        }
    };
}
pub(crate) use each_result;

impl JepsenResult {
    /// `:valid?`
    pub fn validity(&self) -> Validity {
        each_result!(self, r => r.validity())
    }

    /// What went wrong, by name (the recheck table's column; Jepsen's
    /// checkers have no `:anomaly-types`): the kinds of errors found, or why
    /// validity is unknown.
    pub fn anomaly_types(&self) -> Vec<&'static str> {
        each_result!(self, r => r.anomaly_types())
    }
}

/// `true`, else `false` — a checker's `(empty? errors)`.
pub(crate) fn valid_if(ok: bool) -> Validity {
    if ok {
        Validity::True
    } else {
        Validity::False
    }
}

/// The names whose condition holds, in order.
pub(crate) fn named(found: &[(bool, &'static str)]) -> Vec<&'static str> {
    found.iter().filter(|f| f.0).map(|f| f.1).collect()
}

/// A value as an integer, when it is one.
pub fn integer(h: &History, v: Val) -> Option<i64> {
    match v.as_small_int() {
        Some(n) => Some(i64::from(n)),
        None => h.values.display(v).parse().ok(),
    }
}

/// Clojure's `compare` on the values the checkers sort: numbers by value,
/// vectors by length and then element by element, strings and keywords by
/// text. Values of different kinds (which Clojure refuses to compare) go
/// by kind: integers first, then other numbers, text, vectors and the rest.
pub fn value_order(h: &History, a: Val, b: Val) -> Ordering {
    if let (Some(x), Some(y)) = (integer(h, a), integer(h, b)) {
        return x.cmp(&y);
    }
    let (ta, tb) = (h.values.display(a), h.values.display(b));
    match (edn::read_all(&ta).as_deref(), edn::read_all(&tb).as_deref()) {
        (Ok([x]), Ok([y])) => node_order(x, y),
        _ => ta.cmp(&tb),
    }
}

fn node_order(a: &Node<'_>, b: &Node<'_>) -> Ordering {
    let rank = |n: &Node<'_>| match &n.kind {
        _ if n.integer().is_some() => 0,
        Kind::Float(_) | Kind::BigDec(_) | Kind::Ratio(_) => 1,
        Kind::Str(_) | Kind::Keyword(_) | Kind::Symbol(_) | Kind::Char(_) => 2,
        Kind::Vector(_) | Kind::List(_) => 3,
        _ => 4,
    };
    match (&a.kind, &b.kind) {
        _ if rank(a) != rank(b) => rank(a).cmp(&rank(b)),
        (Kind::Vector(x) | Kind::List(x), Kind::Vector(y) | Kind::List(y)) => {
            x.len().cmp(&y.len()).then_with(|| {
                x.iter()
                    .zip(y)
                    .map(|(p, q)| node_order(p, q))
                    .find(|o| o.is_ne())
                    .unwrap_or(Ordering::Equal)
            })
        }
        _ => match (a.integer().flatten(), b.integer().flatten()) {
            (Some(x), Some(y)) => x.cmp(&y),
            _ => a.canonical().cmp(&b.canonical()),
        },
    }
}

/// The elements of a collection value, or one element's, or none.
pub fn elements<'h>(h: &'h History, v: &CheckerValue) -> &'h [Val] {
    match *v {
        CheckerValue::Elems { start, len } => h.list(start, len),
        _ => &[],
    }
}

/// The one element of a value (`Elem`), else `None`.
pub fn element(v: &CheckerValue) -> Option<Val> {
    match *v {
        CheckerValue::Elem(x) => Some(x),
        _ => None,
    }
}

/// Ops in the order Jepsen's folds see them: each invocation and each
/// completion at its place in the file, as (op id, checker op, is it the
/// invocation).
fn events(ops: &[CheckerOp]) -> Vec<(OpId, usize, bool)> {
    let mut events: Vec<(OpId, usize, bool)> = ops
        .iter()
        .enumerate()
        .flat_map(|(i, o)| {
            let inv = o.invoke.map(|id| (id, i, true));
            let comp = o.completion.map(|id| (id, i, false));
            inv.into_iter().chain(comp)
        })
        .collect();
    events.sort_unstable_by_key(|e| e.0);
    events
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table holds one checker for each workload the history calls a
    /// checker's, in the same order.
    #[test]
    fn one_checker_per_checker_workload() {
        let table: Vec<Workload> = CHECKERS.iter().map(|c| c.workload).collect();
        assert_eq!(table, Workload::CHECKERS);
    }
}
