//! Whether a streamed history is one [`super::StreamCheck`] decides: its
//! clients' ops are list-append transactions (appends, and reads of
//! lists), each process invoking once at a time. The whole-file reader
//! learns the workload from every op (`history/build.rs`); a stream cannot
//! wait for the end, so it refuses at the first op that is not
//! list-append's, with the error the whole-file reader would give where
//! there is one.

use crate::history::build::ONE_OP_AT_A_TIME;
use crate::history::error::{ErrorKind, HistoryError};
use crate::history::jepsen::streaming::StreamedOp;
use crate::history::{MicroOp, MopKind, MopValue, OpType, OpValue, Process};
use crate::infer::util::FxMap;

/// What the ops so far say of the history's shape: the processes with an
/// invocation under way. One per process, so its size is the clients'.
#[derive(Default)]
pub struct Shape {
    under_way: FxMap<i64, ()>,
}

impl Shape {
    /// No op seen yet.
    pub fn new() -> Shape {
        Shape::default()
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
        "the streaming check takes list-append histories only ([:append k v] and [:r k list] \
         micro-ops); check other workloads whole",
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
