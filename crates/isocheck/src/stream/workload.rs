//! Which streaming check a history is for, and whether its ops fit it.
//! The whole-file reader learns the workload from every op
//! (`history/build.rs`); a stream cannot wait for the end, so it takes
//! `--workload`'s, or learns the [`Family`] from the first client op (a
//! transaction of micro-ops is list-append's; an `:add`, `:read` or
//! `:transfer` of a value that is none is one of Jepsen's checkers'), and
//! refuses at the first op that does not fit, with the error the
//! whole-file reader would give where there is one. For list-append that
//! is [`Shape::check`]: its clients' ops are transactions of appends and
//! reads of lists, each process invoking once at a time. The checkers'
//! stream ([`super::CheckerStream`]) judges its own ops, and tells a
//! counter's from a set's or a bank's as it goes.

use crate::history::build::ONE_OP_AT_A_TIME;
use crate::history::checker_ops::checker_f;
use crate::history::error::{ErrorKind, HistoryError};
use crate::history::jepsen::streaming::StreamedOp;
use crate::history::{
    CheckerF, MicroOp, MopKind, MopValue, OpType, OpValue, Process, ValueTable, Workload,
};
use crate::infer::util::FxMap;

/// The streaming checks, by the histories they take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// List-append transactions: [`super::StreamCheck`].
    ListAppend,
    /// Jepsen's counter, set and bank: [`super::CheckerStream`].
    Checker,
}

impl Family {
    /// The family of a workload, when the stream checks it.
    pub fn of(w: Workload) -> Option<Family> {
        match w {
            Workload::ListAppend => Some(Family::ListAppend),
            w if super::checkers::STREAMED.contains(&w) => Some(Family::Checker),
            _ => None,
        }
    }
}

/// What the ops so far say of the history's shape: its family, once
/// given or told, and the processes with an invocation under way. One per
/// process, so its size is the clients'.
#[derive(Default)]
pub struct Shape {
    family: Option<Family>,
    under_way: FxMap<i64, ()>,
}

impl Shape {
    /// No op seen yet, the family to be learned.
    pub fn new() -> Shape {
        Shape::default()
    }

    /// No op seen yet, of `family` (`--workload`'s).
    pub fn of(family: Family) -> Shape {
        Shape {
            family: Some(family),
            ..Shape::default()
        }
    }

    /// The family, learned from `op` (`values` is the stream's table, its
    /// `:f` a value of it) if not known yet: `None` until a client op.
    pub fn learn(&mut self, op: &StreamedOp, values: &ValueTable) -> Option<Family> {
        if self.family.is_none() && op.op.process.client().is_some() {
            let f = checker_f(values, op.op.f);
            let checker = matches!(f, CheckerF::Add | CheckerF::Read | CheckerF::Transfer);
            self.family = match checker && op.txn().is_empty() {
                true => Some(Family::Checker),
                false => Some(Family::ListAppend),
            };
        }
        self.family
    }

    /// `Ok` when `op`, after the ops before it, is a list-append client's
    /// (or not a client's: a nemesis op, or one without `:process`, which
    /// the check skips); otherwise why not, spanned in the input as the
    /// op's own spans are. Each completion needs its invocation: without
    /// it, a read may show an append the stream has not seen yet.
    pub fn check(&mut self, op: &StreamedOp) -> Result<(), HistoryError> {
        let Process::Client(process) = op.op.process else {
            return Ok(());
        };
        if let OpValue::Other(span) = op.op.value {
            let e = not_list_append("a client op whose :value is not a transaction");
            return Err(e.at(span, "not a vector of micro-ops"));
        }
        for m in op.txn() {
            micro_op(op, m)?;
        }
        match (op.op.ty, self.under_way.insert(process, ())) {
            (OpType::Invoke, None) => Ok(()),
            (OpType::Invoke, Some(())) => Err(double_invoke(process, op)),
            (_, under_way) => {
                self.under_way.remove(&process);
                under_way.ok_or_else(|| uninvoked(process, op))
            }
        }
    }
}

/// A micro-op of list-append's: `[:append k v]`, or `[:r k l]` with `l` a
/// list (or `nil`: not read yet, or read empty).
fn micro_op(op: &StreamedOp, m: &MicroOp) -> Result<(), HistoryError> {
    match (m.kind, m.value()) {
        (MopKind::Append, _) | (MopKind::Read, MopValue::List { .. }) => Ok(()),
        (MopKind::Read, MopValue::Val(v)) if v.is_nil() || op.op.ty == OpType::Invoke => Ok(()),
        (MopKind::Read, MopValue::Val(_)) => {
            let e = not_list_append("a read that returned a single value, not a list");
            Err(e.at(m.span, "a register's read?"))
        }
        _ => {
            let e = not_list_append("a micro-op other than :append and :r");
            Err(e.at(m.span, "not list-append's"))
        }
    }
}

fn not_list_append(what: &str) -> HistoryError {
    HistoryError::new(
        ErrorKind::NotListAppend(what.to_string()),
        "the streaming check takes list-append histories ([:append k v] and [:r k list] \
         micro-ops) and Jepsen's counter, set and bank; check other workloads whole",
    )
}

fn uninvoked(process: i64, op: &StreamedOp) -> HistoryError {
    HistoryError::new(
        ErrorKind::Uninvoked { process },
        "the streaming check needs each transaction's invocation; check a history of \
         completions only (as Elle's tests write them) whole",
    )
    .at(op.op.span, "no :invoke before this")
}

pub(super) fn double_invoke(process: i64, op: &StreamedOp) -> HistoryError {
    HistoryError::new(ErrorKind::DoubleInvoke { process }, ONE_OP_AT_A_TIME)
        .at(op.op.span, "second invocation")
}
