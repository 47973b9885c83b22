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
    Bank(bank::BankResult),
    Counter(counter::CounterResult),
    Set(set::SetResult),
    SetFull(set_full::SetFullResult),
    LongFork(long_fork::LongForkResult),
    UniqueIds(unique_ids::UniqueIdsResult),
    TotalQueue(total_queue::TotalQueueResult),
}

/// Runs the checker of the history's workload (one of
/// [`Workload::CHECKERS`]).
pub fn check(h: &History, options: &JepsenOptions) -> JepsenResult {
    match h.workload {
        Workload::Bank => JepsenResult::Bank(bank::check(h, options)),
        Workload::Counter => JepsenResult::Counter(counter::check(h)),
        Workload::Set => JepsenResult::Set(set::check(h)),
        Workload::SetFull => JepsenResult::SetFull(set_full::check(h, options.linearizable)),
        Workload::LongFork => {
            JepsenResult::LongFork(long_fork::check(h, options.group_size.unwrap_or(2)))
        }
        Workload::UniqueIds => JepsenResult::UniqueIds(unique_ids::check(h)),
        Workload::TotalQueue => JepsenResult::TotalQueue(total_queue::check(h)),
        w => unreachable!("{} is not one of Jepsen's checkers' workloads", w.name()),
    }
}

impl JepsenResult {
    pub fn validity(&self) -> Validity {
        match self {
            JepsenResult::Bank(r) => r.validity(),
            JepsenResult::Counter(r) => r.validity(),
            JepsenResult::Set(r) => r.validity(),
            JepsenResult::SetFull(r) => r.validity(),
            JepsenResult::LongFork(r) => r.validity(),
            JepsenResult::UniqueIds(r) => r.validity(),
            JepsenResult::TotalQueue(r) => r.validity(),
        }
    }

    /// What went wrong, by name (the recheck table's column; Jepsen's
    /// checkers have no `:anomaly-types`): the kinds of errors found, or why
    /// validity is unknown.
    pub fn anomaly_types(&self) -> Vec<&'static str> {
        match self {
            JepsenResult::Bank(r) => r.error_types(),
            JepsenResult::Counter(r) => r.anomaly_types(),
            JepsenResult::Set(r) => r.anomaly_types(),
            JepsenResult::SetFull(r) => r.anomaly_types(),
            JepsenResult::LongFork(r) => r.anomaly_types(),
            JepsenResult::UniqueIds(r) => r.anomaly_types(),
            JepsenResult::TotalQueue(r) => r.anomaly_types(),
        }
    }
}

/// `true`, else `false` — a checker's `(empty? errors)`.
fn valid_if(ok: bool) -> Validity {
    if ok {
        Validity::True
    } else {
        Validity::False
    }
}

/// The names whose condition holds, in order.
fn named(found: &[(bool, &'static str)]) -> Vec<&'static str> {
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
