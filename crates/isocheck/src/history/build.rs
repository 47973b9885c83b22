//! From ops to transactions: pairing invocations with completions per
//! process, deciding the workload, and the checks every later stage relies
//! on (reads have the workload's shape; writes are unique per key).

use super::checker_ops;
use super::commit_order::Stamp;
use super::error::{ErrorKind, HistoryError};
use super::formats::format_error;
use super::jepsen::Ops;
use super::model::{
    History, MicroOp, MopKind, MopValue, Op, OpId, OpType, OpValue, Process, Status, Txn, TxnId,
    Workload, WorkloadSource, MAX_ITEMS,
};
use super::predicate;
use super::register::{self, Pair};
use super::source::SourceFile;
use super::span::Span;
use super::value::{Val, ValueTable};
use std::collections::HashMap;

/// From this many items on, the build's sorts run on two threads (below,
/// a thread costs more than it saves).
const PARALLEL_SORT: usize = 1 << 18;

/// Builds the history from the ops of a file.
pub fn build(
    source: SourceFile,
    ops: Ops,
    workload: Option<Workload>,
) -> Result<History, HistoryError> {
    build_within(source, ops, workload, MAX_ITEMS)
}

/// [`build`], refusing a history of more than `max_items` items (see
/// [`MAX_ITEMS`]).
pub(super) fn build_within(
    source: SourceFile,
    mut ops: Ops,
    workload: Option<Workload>,
    max_items: usize,
) -> Result<History, HistoryError> {
    crate::limits::stage(crate::limits::Stage::Pairing);
    fits(ops.items(), &ops.values, max_items)?;
    // Register values and the checkers' elements and balances are read
    // while judging, and count too. Once the value table is full, values
    // read since stand for `nil`: what was decided on them, an error among
    // them, is not to be trusted, so the limit is the answer.
    match judge(source, &mut ops, workload) {
        Ok(h) => {
            let items = h.ops.len() + h.mops_read + h.elems.len() + h.extras.len();
            fits(items + h.balances.len(), &h.values, max_items)?;
            Ok(h)
        }
        Err(e) => {
            fits(ops.items(), &ops.values, max_items)?;
            Err(e)
        }
    }
}

/// Refuses a history past what isocheck holds: more than `max_items` ops,
/// micro-ops, read elements, extra keys and bank balances, or more
/// distinct values than the value table numbers.
fn fits(items: usize, values: &ValueTable, max_items: usize) -> Result<(), HistoryError> {
    if items > max_items {
        return Err(format_error(
            format!(
                "the history holds {items} ops, micro-ops and read elements; \
                 isocheck holds at most {max_items}"
            ),
            "split the history, e.g. by keys or by time",
        ));
    }
    if values.overflowed() {
        return Err(format_error(
            "the history holds more than 2^31 - 1 distinct values \
             (small non-negative integers apart); isocheck holds no more",
            "split the history, e.g. by keys or by time",
        ));
    }
    Ok(())
}

/// Pairs the ops, decides the workload, reads register and checker ops,
/// checks reads and writes, and moves the arenas into the history.
fn judge(
    source: SourceFile,
    ops: &mut Ops,
    workload: Option<Workload>,
) -> Result<History, HistoryError> {
    let closed = match workload {
        None | Some(Workload::ClosedPredicate) => {
            let flagged = workload.is_some();
            predicate::read(ops, source.text(), flagged)?
        }
        Some(_) => false,
    };
    let txn_f = ops.values.intern_canonical(":txn");
    let (mut txns, others) = pair(ops, txn_f)?;
    let other_client_ops = others.iter().filter_map(|&(i, c)| c.or(i)).collect();
    let (mut registers, mut independent_keys) = (Vec::new(), false);
    let (mut checker_ops, mut balances) = (Vec::new(), Vec::new());
    let detected = match (workload, txns.is_empty()) {
        (None, true) => register::detect(ops, &others),
        _ => None,
    };
    let (workload, workload_source) = match (workload, detected) {
        _ if closed => closed_predicate(ops, &txns, workload.is_some())?,
        (Some(w @ (Workload::CasRegister | Workload::Mutex)), _) => {
            if let Some(t) = txns.first() {
                return Err(transactions_in_registers(ops, t, w));
            }
            (w, WorkloadSource::Flag)
        }
        (Some(w), _) if w.is_checker() && w != Workload::LongFork => {
            if let Some(t) = txns.iter().find(|t| !t.mops.is_empty()) {
                return Err(transactions_in_registers(ops, t, w));
            }
            (w, WorkloadSource::Flag)
        }
        (None, Some(w)) => (w, WorkloadSource::Detected),
        (None, None) if txns.iter().all(|t| t.mops.is_empty()) => {
            let pairs = checker_pairs(&txns, &others);
            match checker_ops::detect(ops, source.text(), &pairs) {
                Some(w) => (w, WorkloadSource::Detected),
                None => decide_workload(ops, &txns, None)?,
            }
        }
        (flag, _) => decide_workload(ops, &txns, flag)?,
    };
    if matches!(workload, Workload::CasRegister | Workload::Mutex) {
        (registers, independent_keys) = register::read(ops, source.text(), &others, workload)?;
    }
    if workload.is_checker() && workload != Workload::LongFork {
        // Empty reads (`[]`) were read as empty transactions.
        let pairs = checker_pairs(&txns, &others);
        (checker_ops, balances) = checker_ops::read(ops, source.text(), &pairs, workload)?;
        txns.clear();
    }
    shape_reads(ops, &txns, workload)?;
    // Long-fork writes every key once, but Jepsen's checker reports a
    // second write as an unknown result rather than refusing the history.
    // An rw-register read of a value written more than once has several
    // possible writers, which the check chooses among.
    let repeated_writes = match workload {
        Workload::LongFork => false,
        Workload::ClosedPredicate => {
            predicate::check_unique_writes(ops, &txns)?;
            false
        }
        Workload::RwRegister => repeated_write(ops, &txns).is_some(),
        _ => {
            check_unique_writes(ops, &txns)?;
            false
        }
    };
    let mops_read = ops.mops.len();
    keep_judged_mops(ops, &mut txns);
    let stamps = stamps_by_txn(&ops.stamps, &txns);
    Ok(History {
        source,
        ops: std::mem::take(&mut ops.ops),
        mops: std::mem::take(&mut ops.mops),
        mops_read,
        elems: std::mem::take(&mut ops.elems),
        extras: std::mem::take(&mut ops.extras),
        values: std::mem::take(&mut ops.values),
        txns,
        other_client_ops,
        registers,
        independent_keys,
        checker_ops,
        balances,
        workload,
        workload_source,
        has_realtime: !ops.untimed,
        complete_log: ops.complete_log,
        json: ops.json,
        rebuilt_ops: ops.rebuilt_ops,
        commit_order: Vec::new(),
        stamps,
        repeated_writes,
    })
}

/// Each transaction's timestamps, from its completion op's (`by_op`, empty
/// when the format carries none beside the ops).
fn stamps_by_txn(by_op: &[Option<Stamp>], txns: &[Txn]) -> Vec<Option<Stamp>> {
    if by_op.is_empty() {
        return Vec::new();
    }
    let of = |t: &Txn| {
        t.completion
            .and_then(|c| by_op.get(c as usize).copied().flatten())
    };
    txns.iter().map(of).collect()
}

/// Pairs each client invocation with its process's next completion: the
/// transactions, and the other pairs (register ops among them).
fn pair(ops: &Ops, txn_f: Val) -> Result<(Vec<Txn>, Vec<Pair>), HistoryError> {
    // Each process's open invocation, as its slot in `pairs`: slots are taken
    // as invocations appear, so transactions stay in invocation order.
    let mut pending = Pending::default();
    let mut pairs: Vec<(Option<OpId>, Option<OpId>)> = Vec::with_capacity(ops.ops.len() / 2);
    for (id, op) in ops.ops.iter().enumerate() {
        crate::limits::tick_of(id, ops.ops.len(), crate::progress::Unit::Ops);
        let id = id as OpId;
        let Process::Client(p) = op.process else {
            continue;
        };
        let open = pending.of(p);
        if op.ty == OpType::Invoke {
            if let Some(slot) = open.replace(pairs.len()) {
                let first = pairs[slot].0.unwrap_or(id);
                return Err(double_invoke(ops, p, first, id));
            }
            pairs.push((Some(id), None));
        } else {
            match open.take() {
                Some(slot) => pairs[slot].1 = Some(id),
                None => pairs.push((None, Some(id))),
            }
        }
    }
    let mut txns = Vec::new();
    let mut others = Vec::new();
    for (invoke, completion) in pairs {
        match transaction(ops, txn_f, invoke, completion)? {
            Some(t) => txns.push(t),
            None => others.push((invoke, completion)),
        }
    }
    Ok((txns, others))
}

/// Each process's open invocation (its slot in the pairs), if any: by
/// array for the small non-negative numbers Jepsen gives its processes
/// (no hash per op), by hash for any other.
#[derive(Default)]
struct Pending {
    small: Vec<Option<usize>>,
    other: HashMap<i64, Option<usize>>,
}

/// Process numbers below this are kept by array.
const SMALL_PROCESSES: usize = 1 << 16;

impl Pending {
    fn of(&mut self, process: i64) -> &mut Option<usize> {
        match usize::try_from(process) {
            Ok(p) if p < SMALL_PROCESSES => {
                if p >= self.small.len() {
                    self.small.resize(p + 1, None);
                }
                &mut self.small[p]
            }
            _ => self.other.entry(process).or_default(),
        }
    }
}

/// Every client pair of a history without micro-ops (its transactions are
/// empty reads), in invocation order.
fn checker_pairs(txns: &[Txn], others: &[Pair]) -> Vec<Pair> {
    let mut pairs: Vec<Pair> = txns
        .iter()
        .map(|t| (t.invoke, t.completion))
        .chain(others.iter().copied())
        .collect();
    pairs.sort_unstable_by_key(|&(i, c)| i.or(c));
    pairs
}

fn transactions_in_registers(ops: &Ops, t: &Txn, w: Workload) -> HistoryError {
    let id = t.op();
    let help = format!(
        "--workload {} was given, but the history has transactions; drop the flag to detect the workload",
        w.name()
    );
    HistoryError::new(ErrorKind::MixedWorkload, help).at(ops.ops[id as usize].span, "a transaction")
}

/// The help of a process that invokes twice.
pub(crate) const ONE_OP_AT_A_TIME: &str = "a Jepsen process runs one op at a time: each :invoke \
     needs a completion (:ok, :fail or :info) before the next";

fn double_invoke(ops: &Ops, process: i64, first: OpId, second: OpId) -> HistoryError {
    let span = |id: OpId| ops.ops[id as usize].span;
    HistoryError::new(ErrorKind::DoubleInvoke { process }, ONE_OP_AT_A_TIME)
        .at(span(second), "second invocation")
        .at(span(first), "first invocation, never completed")
}

/// The transaction a pair stands for, or `None` for a non-transactional op.
fn transaction(
    ops: &Ops,
    txn_f: Val,
    invoke: Option<OpId>,
    completion: Option<OpId>,
) -> Result<Option<Txn>, HistoryError> {
    let op = |id: Option<OpId>| id.map(|i| &ops.ops[i as usize]);
    let (inv, comp) = (op(invoke), op(completion));
    let is_txn = [inv, comp]
        .into_iter()
        .flatten()
        .any(|o| matches!(o.value, OpValue::Txn { .. }) || o.f == txn_f);
    if !is_txn {
        return Ok(None);
    }
    for o in [inv, comp].into_iter().flatten() {
        if let OpValue::Other(span) = o.value {
            return Err(not_a_transaction(span));
        }
    }
    let mops = comp
        .and_then(Op::txn_mops)
        .or_else(|| inv.and_then(Op::txn_mops))
        .unwrap_or(0..0);
    let status = match comp.map(|c| c.ty) {
        Some(OpType::Ok) => Status::Committed,
        Some(OpType::Fail) => Status::Aborted,
        _ => Status::Indeterminate,
    };
    let process = [inv, comp]
        .into_iter()
        .flatten()
        .find_map(|o| o.process.client())
        .unwrap_or(0);
    Ok(Some(Txn {
        process,
        invoke,
        completion,
        status,
        mops,
    }))
}

fn not_a_transaction(span: Span) -> HistoryError {
    HistoryError::new(
        ErrorKind::NotATransaction,
        "a transaction is a vector of micro-ops [:r k v], [:append k v] or [:w k v]",
    )
    .at(span, "this value")
}

fn judged_mops<'o>(ops: &'o Ops, txns: &'o [Txn]) -> impl Iterator<Item = &'o MicroOp> + 'o {
    txns.iter()
        .flat_map(|t| &ops.mops[t.mops.start as usize..t.mops.end as usize])
}

fn decide_workload(
    ops: &Ops,
    txns: &[Txn],
    flag: Option<Workload>,
) -> Result<(Workload, WorkloadSource), HistoryError> {
    let first = |kind| {
        judged_mops(ops, txns)
            .find(|m| m.kind == kind)
            .map(|m| m.span)
    };
    let (append, write) = (first(MopKind::Append), first(MopKind::Write));
    let mixed = |a: Span, w: Span, help: &str| {
        HistoryError::new(ErrorKind::MixedWorkload, help)
            .at(a, "an append")
            .at(w, "a write")
    };
    match (flag, append, write) {
        (_, Some(a), Some(w)) => Err(mixed(
            a,
            w,
            "a history is either list-append (:append) or rw-register (:w)",
        )),
        (Some(Workload::ListAppend), None, Some(w)) => Err(wrong_flag(w, "list-append", ":w")),
        (Some(Workload::RwRegister), Some(a), None) => Err(wrong_flag(a, "rw-register", ":append")),
        (Some(Workload::LongFork), Some(a), None) => Err(wrong_flag(a, "long-fork", ":append")),
        (Some(w), _, _) => Ok((w, WorkloadSource::Flag)),
        (None, Some(_), None) => Ok((Workload::ListAppend, WorkloadSource::Detected)),
        (None, None, Some(_)) => Ok((Workload::RwRegister, WorkloadSource::Detected)),
        (None, None, None) => Ok(match ops.format_workload {
            Some(w) => (w, WorkloadSource::Format),
            None => workload_from_reads(ops, txns),
        }),
    }
}

/// A closed-predicate history's workload, refusing list-append's appends.
fn closed_predicate(
    ops: &Ops,
    txns: &[Txn],
    flagged: bool,
) -> Result<(Workload, WorkloadSource), HistoryError> {
    if let Some(a) = judged_mops(ops, txns).find(|m| m.kind == MopKind::Append) {
        return Err(HistoryError::new(
            ErrorKind::MixedWorkload,
            "a closed-predicate history has no :append micro-ops (it has :init, :insert, :delete, :w, :r and :rp)",
        )
        .at(a.span, "an append"));
    }
    let source = match flagged {
        true => WorkloadSource::Flag,
        false => WorkloadSource::Detected,
    };
    Ok((Workload::ClosedPredicate, source))
}

fn wrong_flag(span: Span, flag: &str, mop: &str) -> HistoryError {
    HistoryError::new(
        ErrorKind::MixedWorkload,
        format!("--workload {flag} was given, but the history has {mop} micro-ops; drop the flag to detect the workload"),
    )
    .at(span, format!("{mop} micro-op"))
}

/// With no writes at all, the reads may still tell: a list or a scalar.
fn workload_from_reads(ops: &Ops, txns: &[Txn]) -> (Workload, WorkloadSource) {
    for m in judged_mops(ops, txns).filter(|m| m.kind == MopKind::Read) {
        match m.value() {
            MopValue::List { len, .. } if len > 0 => {
                return (Workload::ListAppend, WorkloadSource::Detected)
            }
            MopValue::Val(v) if !v.is_nil() => {
                return (Workload::RwRegister, WorkloadSource::Detected)
            }
            _ => {}
        }
    }
    (Workload::ListAppend, WorkloadSource::Assumed)
}

/// Keeps only the micro-ops transactions are judged by, in their order:
/// an invocation's are superseded by its completion's, and on a large
/// history they are a fifth of the memory. Ops that lose theirs become
/// [`OpValue::Dropped`]; transactions and judged ops point to the new places.
fn keep_judged_mops(ops: &mut Ops, txns: &mut [Txn]) {
    let judged = |t: &Txn| {
        [t.completion, t.invoke]
            .into_iter()
            .flatten()
            .find(|&id| ops.ops[id as usize].txn_mops().is_some())
    };
    // (old start, transaction, judged op), in arena order.
    let mut kept: Vec<(u32, TxnId, OpId)> = txns
        .iter()
        .enumerate()
        .filter_map(|(t, txn)| Some((txn.mops.start, t as TxnId, judged(txn)?)))
        .collect();
    // Unique by transaction: one order however it is reached.
    crate::limits::sort_unstable_on_cores(&mut kept, PARALLEL_SORT);
    for op in &mut ops.ops {
        if let OpValue::Txn { .. } = op.value {
            op.value = OpValue::Dropped;
        }
    }
    let mut next = 0u32;
    for (_, t, id) in kept {
        let txn = &mut txns[t as usize];
        let len = txn.mops.end - txn.mops.start;
        // Ranges are disjoint and ascending: copying down never overwrites
        // a range still to come.
        ops.mops.copy_within(
            txn.mops.start as usize..txn.mops.end as usize,
            next as usize,
        );
        txn.mops = next..next + len;
        ops.ops[id as usize].value = OpValue::Txn { start: next, len };
        next += len;
    }
    ops.mops.truncate(next as usize);
    ops.mops.shrink_to_fit();
}

/// List-append reads must be lists (or nil); a register read of a list is
/// an opaque value like any other.
fn shape_reads(ops: &mut Ops, txns: &[Txn], workload: Workload) -> Result<(), HistoryError> {
    for t in txns {
        for m in &mut ops.mops[t.mops.start as usize..t.mops.end as usize] {
            if m.kind != MopKind::Read {
                continue;
            }
            match (workload, m.value()) {
                (Workload::ListAppend, MopValue::Val(v)) if !v.is_nil() => {
                    let key = ops.values.display(m.key);
                    return Err(HistoryError::new(
                        ErrorKind::ReadNotAList { key },
                        "list-append reads return the whole list, e.g. [:r 5 [1 2 3]], or nil",
                    )
                    .at(m.span, "this read"));
                }
                (
                    Workload::RwRegister | Workload::LongFork | Workload::ClosedPredicate,
                    MopValue::List { start, len },
                ) => {
                    let items = &ops.elems[start as usize..(start + len) as usize];
                    let v = ops.values.list(items);
                    *m = MicroOp::new(m.kind, m.key, MopValue::Val(v), m.span);
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// Elle relies on every (key, value) being written at most once, by one
/// micro-op of one transaction; outside rw-register a repeat makes the
/// history unreadable.
fn check_unique_writes(ops: &Ops, txns: &[Txn]) -> Result<(), HistoryError> {
    let Some((a, b)) = repeated_write(ops, txns) else {
        return Ok(());
    };
    let (a, b) = (&ops.mops[a as usize], &ops.mops[b as usize]);
    let kind = if a.kind == MopKind::Append {
        "append of"
    } else {
        "write of"
    };
    let value = match a.value() {
        MopValue::Val(v) => ops.values.display(v),
        MopValue::List { .. } => String::new(),
    };
    Err(HistoryError::new(
        ErrorKind::DuplicateWrite { kind, key: ops.values.display(a.key), value },
        "isolation checking infers versions from values, so each value may be written to a key once; make the workload generate unique values",
    )
    .at(b.span, "written again here")
    .at(a.span, "first written here"))
}

/// The first two micro-ops (in the order of their key and value) that
/// write the same value to the same key, if any.
fn repeated_write(ops: &Ops, txns: &[Txn]) -> Option<(u32, u32)> {
    let mut writes: Vec<(u64, u32)> = Vec::new();
    for t in txns {
        for i in t.mops.clone() {
            let m = &ops.mops[i as usize];
            if let (MopKind::Append | MopKind::Write, MopValue::Val(v)) = (m.kind, m.value()) {
                writes.push(((m.key.raw() as u64) << 32 | v.raw() as u64, i));
            }
        }
    }
    // Unique by micro-op: one order however it is reached.
    crate::limits::sort_unstable_on_cores(&mut writes, PARALLEL_SORT);
    let w = writes.windows(2).find(|w| w[0].0 == w[1].0)?;
    Some((w[0].1, w[1].1))
}
