//! Which streaming check a history is for, and whether its ops fit it.
//! The whole-file reader learns the workload from every op
//! (`history/build.rs`); a stream cannot wait for the end, so it takes
//! `--workload`'s, or learns the [`Family`] from the client ops (an
//! `:add`, `:read` or `:transfer` of a value that is none is one of
//! Jepsen's checkers'; a transaction with an append or a read of a list is
//! list-append's, one with a write or a read of a single value
//! rw-register's; a transaction of reads of `nil` alone tells neither, and
//! its caller holds it until one does), and refuses at the first op that
//! does not fit, with the error the whole-file reader would give where
//! there is one. For transactions that is [`Shape::check`]: its clients'
//! ops are transactions of the family's micro-ops, each process invoking
//! once at a time. The checkers'
//! stream ([`super::CheckerStream`]) judges its own ops, and tells a
//! counter's from a set's or a bank's as it goes.

use crate::history::build::ONE_OP_AT_A_TIME;
use crate::history::checker_ops::checker_f;
use crate::history::error::{ErrorKind, HistoryError};
use crate::history::jepsen::streaming::StreamedOp;
use crate::history::register::register_f;
use crate::history::{
    CheckerF, MicroOp, MopKind, MopValue, OpType, OpValue, Process, RegisterF, ValueTable, Workload,
};
use crate::infer::util::FxMap;

/// The streaming checks, by the histories they take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// List-append transactions: [`super::StreamCheck`].
    ListAppend,
    /// rw-register transactions: [`super::RwRegisterCheck`].
    RwRegister,
    /// Jepsen's counter, set and bank: [`super::CheckerStream`].
    Checker,
    /// cas-register and mutex ops: [`super::RegisterStream`].
    Register,
}

impl Family {
    /// The family of a workload, when the stream checks it.
    pub fn of(w: Workload) -> Option<Family> {
        match w {
            Workload::ListAppend => Some(Family::ListAppend),
            Workload::RwRegister => Some(Family::RwRegister),
            Workload::CasRegister | Workload::Mutex => Some(Family::Register),
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
    /// `:f` a value of it) if not known yet: `None` until a client op
    /// tells it.
    pub fn learn(&mut self, op: &StreamedOp, values: &ValueTable) -> Option<Family> {
        if self.family.is_none() && op.op.process.client().is_some() {
            let f = checker_f(values, op.op.f);
            let checker = matches!(f, CheckerF::Add | CheckerF::Transfer);
            let register = register_f(values, op.op.f).is_some_and(|f| f != RegisterF::Read);
            self.family = match (checker, op.op.value) {
                // A read is a register's or a checker's: the next ops say.
                _ if f == CheckerF::Read && op.txn().is_empty() => None,
                _ if register && op.txn().is_empty() => Some(Family::Register),
                (true, _) if op.txn().is_empty() => Some(Family::Checker),
                (_, OpValue::Txn { .. }) => transaction_family(op),
                // Not a transaction: list-append's check says so.
                _ => Some(Family::ListAppend),
            };
        }
        self.family
    }

    /// Takes the family a stream whose first op `first` never told it
    /// defaults to: list-append's for transactions, as the whole-file
    /// reader's, and the checkers' for reads (a register's needs a write).
    pub fn settle(&mut self, first: &StreamedOp) -> Family {
        let default = match first.op.value {
            OpValue::Txn { .. } => Family::ListAppend,
            _ => Family::Checker,
        };
        *self.family.get_or_insert(default)
    }

    /// `Ok` when `op`, after the ops before it, is a client's of the
    /// transactions' family (or not a client's: a nemesis op, or one
    /// without `:process`, which the check skips); otherwise why not,
    /// spanned in the input as the op's own spans are. Each completion
    /// needs its invocation: without it, a read may show a write the
    /// stream has not seen yet.
    pub fn check(&mut self, op: &StreamedOp) -> Result<(), HistoryError> {
        let Process::Client(process) = op.op.process else {
            return Ok(());
        };
        let register = self.family == Some(Family::RwRegister);
        if let OpValue::Other(span) = op.op.value {
            let what = "a client op whose :value is not a transaction";
            let e = match register {
                true => not_rw_register(what),
                false => not_list_append(what),
            };
            return Err(e.at(span, "not a vector of micro-ops"));
        }
        for m in op.txn() {
            match register {
                true => register_micro_op(m)?,
                false => micro_op(op, m)?,
            }
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

/// The family a transaction's micro-ops tell, if they do.
fn transaction_family(op: &StreamedOp) -> Option<Family> {
    let completed = op.op.ty != OpType::Invoke;
    op.txn().iter().find_map(|m| match (m.kind, m.value()) {
        (MopKind::Append, _) | (MopKind::Read, MopValue::List { .. }) => Some(Family::ListAppend),
        (MopKind::Write, _) => Some(Family::RwRegister),
        (MopKind::Read, MopValue::Val(v)) if completed && !v.is_nil() => Some(Family::RwRegister),
        // Another kind: list-append's check says what it is.
        (MopKind::Read, _) => None,
        _ => Some(Family::ListAppend),
    })
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

/// A micro-op of rw-register's: `[:w k v]`, or `[:r k v]` with `v` a
/// single value.
fn register_micro_op(m: &MicroOp) -> Result<(), HistoryError> {
    match (m.kind, m.value()) {
        (MopKind::Write, MopValue::Val(_)) | (MopKind::Read, MopValue::Val(_)) => Ok(()),
        (MopKind::Read, MopValue::List { .. }) => {
            let e = not_rw_register("a read that returned a list, not a single value");
            Err(e.at(m.span, "a list-append read?"))
        }
        _ => {
            let e = not_rw_register("a micro-op other than :w and :r");
            Err(e.at(m.span, "not rw-register's"))
        }
    }
}

fn not_rw_register(what: &str) -> HistoryError {
    HistoryError::new(
        ErrorKind::NotRwRegister(what.to_string()),
        "the streaming check takes one workload a history; check a history that mixes them whole",
    )
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
