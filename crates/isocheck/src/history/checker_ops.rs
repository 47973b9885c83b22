//! The ops of Jepsen's standard checkers (bank, counter, set, set-full,
//! unique-ids, total-queue): which checker a history is for, told from its
//! `:f`s, and each op's `:value` read in the shape that checker needs.
//! Reading only: what the values mean is `checkers`'s business.
//!
//! Long-fork histories are transactions and are read as such (`build`).

use super::edn::{self, Kind, Node};
use super::error::{ErrorKind, HistoryError};
use super::formats::json;
use super::jepsen::Ops;
use super::model::{
    Balance, CheckerF, CheckerOp, CheckerValue, OpId, OpType, OpValue, Status, Workload,
};
use super::register::Pair;
use super::span::Span;
use super::value::Val;

/// The interned `:f` keywords of checker ops.
struct Fs([Val; 7]);

impl Fs {
    fn new(ops: &mut Ops) -> Fs {
        Fs(CheckerF::NAMED.map(|(_, k)| ops.values.intern_canonical(k)))
    }

    fn of(&self, f: Val) -> CheckerF {
        match self.0.iter().position(|&x| x == f) {
            Some(i) => CheckerF::NAMED[i].0,
            None => CheckerF::Other,
        }
    }
}

/// The checker function `f` (a value of `values`) names: what [`Fs::of`]
/// says, for a table the keywords may not be interned in yet (a stream's).
pub(crate) fn checker_f(values: &super::value::ValueTable, f: Val) -> CheckerF {
    let named = CheckerF::NAMED
        .iter()
        .find(|(_, k)| values.lookup(k) == Some(f));
    named.map_or(CheckerF::Other, |&(f, _)| f)
}

/// The `:f` of a pair: the completion's, else the invocation's.
fn f_of(ops: &Ops, fs: &Fs, (inv, comp): Pair) -> CheckerF {
    comp.or(inv)
        .map_or(CheckerF::Other, |id| fs.of(ops.ops[id as usize].f))
}

/// The checker a history of client pairs (no transactions with micro-ops)
/// is for, when its `:f`s tell unambiguously: `:transfer` is bank's,
/// `:generate` unique-ids', `:enqueue`/`:dequeue`/`:drain` total-queue's,
/// and `:add` a counter's when an `:ok` read returned an integer, else a
/// set's (`set` with one `:ok` read, the final read of Jepsen's set
/// workload; `set-full` with more). `None` when no family's `:f` appears,
/// when two families' do, or for adds never read.
pub(super) fn detect(ops: &mut Ops, text: &str, pairs: &[Pair]) -> Option<Workload> {
    let fs = Fs::new(ops);
    let mut seen = [false; 4];
    for &p in pairs {
        match f_of(ops, &fs, p) {
            CheckerF::Transfer => seen[0] = true,
            CheckerF::Generate => seen[1] = true,
            CheckerF::Enqueue | CheckerF::Dequeue | CheckerF::Drain => seen[2] = true,
            CheckerF::Add => seen[3] = true,
            CheckerF::Read | CheckerF::Other => {}
        }
    }
    match seen {
        [true, false, false, false] => Some(Workload::Bank),
        [false, true, false, false] => Some(Workload::UniqueIds),
        [false, false, true, false] => Some(Workload::TotalQueue),
        [false, false, false, true] => adds_workload(ops, &fs, text, pairs),
        _ => None,
    }
}

/// Counter, set or set-full, from the `:ok` reads of a history with adds.
fn adds_workload(ops: &Ops, fs: &Fs, text: &str, pairs: &[Pair]) -> Option<Workload> {
    let reads: Vec<OpId> = pairs
        .iter()
        .filter(|&&p| f_of(ops, fs, p) == CheckerF::Read)
        .filter_map(|&(_, comp)| comp)
        .filter(|&c| ops.ops[c as usize].ty == OpType::Ok)
        .collect();
    let first = *reads.first()?;
    let integer = reads_integer(ops.ops[first as usize].value, text, 0, ops.json);
    Some(match (integer, reads.len()) {
        (true, _) => Workload::Counter,
        (false, 1) => Workload::Set,
        (false, _) => Workload::SetFull,
    })
}

/// Whether an `:ok` read's value (in `text`, which starts `base` bytes
/// into the input) is an integer: a counter's read, not a set's.
pub(crate) fn reads_integer(value: OpValue, text: &str, base: usize, json: bool) -> bool {
    match value {
        OpValue::Other(span) => {
            let text = span.text_in(text, base);
            with_value(text, json, |n| n.integer().is_some()).unwrap_or(false)
        }
        _ => false,
    }
}

/// `f` of the value at the front of `text` (see [`Span::text_from`]),
/// `None` when there is none: EDN, or JSON read as elle-cli reads it
/// (`json`).
fn with_value<R>(text: &str, json: bool, f: impl FnOnce(&Node<'_>) -> R) -> Option<R> {
    if json {
        return json::with_node(text, json::Context::Value, f);
    }
    edn::read_first(text).ok().map(|node| f(&node))
}

/// What a checker reads of an op's value.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// Nothing: the value is not read.
    Ignored,
    /// A non-negative integer (a counter's add).
    Count,
    /// An integer (a counter's read).
    Int,
    /// Any one value.
    Elem,
    /// A collection of values (`nil` for none).
    Elems,
    /// A map of account to balance (`nil` for none).
    Balances,
}

impl Shape {
    fn expected(self) -> &'static str {
        match self {
            Shape::Ignored | Shape::Elem => "a value",
            Shape::Count => "a non-negative integer",
            Shape::Int => "an integer",
            Shape::Elems => "a collection of elements, e.g. [1 2 3]",
            Shape::Balances => "a map of account to balance, e.g. {0 10, 1 90}",
        }
    }
}

/// The shapes of an op's invocation and completion values, by workload
/// and `:f`; a completion's value is read only when it is `:ok`.
fn shapes(workload: Workload, f: CheckerF) -> (Shape, Shape) {
    use Shape::*;
    match (workload, f) {
        (Workload::Bank, CheckerF::Read) => (Ignored, Balances),
        (Workload::Counter, CheckerF::Add) => (Count, Count),
        (Workload::Counter, CheckerF::Read) => (Ignored, Int),
        (Workload::Set | Workload::SetFull, CheckerF::Add) => (Elem, Elem),
        (Workload::Set | Workload::SetFull, CheckerF::Read) => (Ignored, Elems),
        (Workload::UniqueIds, CheckerF::Generate) => (Ignored, Elem),
        (Workload::TotalQueue, CheckerF::Enqueue) => (Elem, Elem),
        (Workload::TotalQueue, CheckerF::Dequeue) => (Ignored, Elem),
        (Workload::TotalQueue, CheckerF::Drain) => (Ignored, Elems),
        _ => (Ignored, Ignored),
    }
}

/// Where read values go: the arenas of a history (or of a stream), and the
/// text the ops' spans point into, which starts `base` bytes into the
/// input (0 for a whole file; an op's own offset for a streamed op).
pub(crate) struct Sink<'o> {
    pub(crate) ops: &'o mut Ops,
    pub(crate) text: &'o str,
    pub(crate) base: usize,
    pub(crate) balances: Vec<Balance>,
}

/// A pair's status, from its completion's type (`None`: never completed).
pub(crate) fn status(completion: Option<OpType>) -> Status {
    match completion {
        Some(OpType::Ok) => Status::Committed,
        Some(OpType::Fail) => Status::Aborted,
        _ => Status::Indeterminate,
    }
}

/// Reads the checker ops of `pairs` for `workload` (one of
/// [`Workload::CHECKERS`] but long-fork): the ops, in `pairs` order, and the
/// bank reads' balances.
pub(super) fn read(
    ops: &mut Ops,
    text: &str,
    pairs: &[Pair],
    workload: Workload,
) -> Result<(Vec<CheckerOp>, Vec<Balance>), HistoryError> {
    let fs = Fs::new(ops);
    let mut sink = Sink {
        ops,
        text,
        base: 0,
        balances: Vec::new(),
    };
    let mut out = Vec::with_capacity(pairs.len());
    for &(invoke, completion) in pairs {
        let f = f_of(sink.ops, &fs, (invoke, completion));
        let status = status(completion.map(|c| sink.ops.ops[c as usize].ty));
        let info = |c: OpId| sink.ops.ops[c as usize].ty == OpType::Info;
        if let Some(c) = completion.filter(|&c| info(c)) {
            if (workload, f) == (Workload::TotalQueue, CheckerF::Drain) {
                return Err(crashed_drain(sink.ops, c));
            }
        }
        let (inv, comp) = (
            span_value(sink.ops, invoke),
            span_value(sink.ops, completion),
        );
        let invoked = sink.invoked(workload, f, inv)?;
        let completed = sink.completed(workload, f, status, comp)?;
        check_same_value((inv.map(|o| o.0), comp.map(|o| o.0)), invoked, completed)?;
        out.push(CheckerOp {
            invoke,
            completion,
            f,
            status,
            invoked,
            completed,
        });
    }
    Ok((out, sink.balances))
}

/// Op `id`'s span and value, if there is one.
fn span_value(ops: &Ops, id: Option<OpId>) -> Option<(Span, OpValue)> {
    id.map(|i| (ops.ops[i as usize].span, ops.ops[i as usize].value))
}

impl Sink<'_> {
    /// What `workload`'s checker reads of the invocation (its span and
    /// value) of a pair whose `:f` is `f`: `nil` when there is none.
    pub(crate) fn invoked(
        &mut self,
        workload: Workload,
        f: CheckerF,
        invoke: Option<(Span, OpValue)>,
    ) -> Result<CheckerValue, HistoryError> {
        match invoke {
            Some(op) => self.value(op, shapes(workload, f).0),
            None => Ok(CheckerValue::Nil),
        }
    }

    /// What `workload`'s checker reads of the completion of a pair whose
    /// `:f` is `f` and status `status`.
    pub(crate) fn completed(
        &mut self,
        workload: Workload,
        f: CheckerF,
        status: Status,
        completion: Option<(Span, OpValue)>,
    ) -> Result<CheckerValue, HistoryError> {
        let (si, sc) = shapes(workload, f);
        // A completion repeats its invocation's value (adds, enqueues) or
        // carries what was read; it may leave the value out unless it is a
        // read's that completed `:ok`.
        let repeats = si != Shape::Ignored;
        match completion {
            Some((_, OpValue::Nil)) if repeats || status != Status::Committed => {
                Ok(CheckerValue::Nil)
            }
            Some(op) if repeats || status == Status::Committed => self.value(op, sc),
            _ => Ok(CheckerValue::Nil),
        }
    }

    /// The value of an op (its span and value) in `shape`.
    fn value(
        &mut self,
        (span, whole): (Span, OpValue),
        shape: Shape,
    ) -> Result<CheckerValue, HistoryError> {
        let node_span = match whole {
            _ if shape == Shape::Ignored => return Ok(CheckerValue::Nil),
            OpValue::Nil => return self.nil(shape, span),
            // An empty vector reads as an empty transaction.
            OpValue::Txn { len: 0, .. } | OpValue::Dropped if shape == Shape::Elems => {
                return Ok(self.elems(&[]))
            }
            OpValue::Other(s) => s,
            _ => return Err(bad_value(span, shape)),
        };
        // The value is read from its front: a clipped span would cut it short.
        let text = node_span.text_in(self.text, self.base);
        if self.ops.json {
            return json::with_node(text, json::Context::Value, |node| {
                self.shaped(node, shape, span, node_span)
            })
            .unwrap_or_else(|| Err(bad_value(span, shape)));
        }
        let node = edn::read_first(text).map_err(|e| e.shifted(node_span.start()))?;
        self.shaped(&node, shape, span, node_span)
    }

    /// `node`, the value of the op at `span` (the value itself at
    /// `node_span`), in `shape`. A tagged collection is read as its
    /// collection; one value keeps its tag (`#inst "…"` is no string).
    fn shaped(
        &mut self,
        tagged: &Node<'_>,
        shape: Shape,
        span: Span,
        node_span: Span,
    ) -> Result<CheckerValue, HistoryError> {
        let node = tagged.untagged();
        let integer = || node.integer().flatten();
        match (shape, &node.kind) {
            (Shape::Count, _) => match integer() {
                Some(n) if n >= 0 => Ok(CheckerValue::Int(n)),
                _ => Err(bad_value(span, shape)),
            },
            (Shape::Int, _) => integer()
                .map(CheckerValue::Int)
                .ok_or_else(|| bad_value(span, shape)),
            (Shape::Elem, _) => Ok(CheckerValue::Elem(self.intern(tagged, node_span)?)),
            (Shape::Elems, Kind::Vector(items) | Kind::List(items) | Kind::Set(items)) => {
                let items = items
                    .iter()
                    .map(|n| self.intern(n, node_span))
                    .collect::<Result<Vec<Val>, _>>()?;
                Ok(self.elems(&items))
            }
            (Shape::Balances, Kind::Map(entries)) => self.balances(entries, node_span.start()),
            _ => Err(bad_value(span, shape)),
        }
    }

    /// The value of `node`, read from the text at `node_span`.
    fn intern(&mut self, node: &Node<'_>, node_span: Span) -> Result<Val, HistoryError> {
        let v = self.ops.values.node(node);
        v.map_err(|e| e.shifted(node_span.start()).into())
    }

    /// A `nil` value: an empty collection where one is read (Jepsen's
    /// checkers read `nil` as one), else not a value of the shape.
    fn nil(&mut self, shape: Shape, span: Span) -> Result<CheckerValue, HistoryError> {
        match shape {
            Shape::Elems => Ok(self.elems(&[])),
            Shape::Balances => Ok(CheckerValue::Balances {
                start: self.balances.len() as u32,
                len: 0,
            }),
            Shape::Elem => Ok(CheckerValue::Elem(Val::NIL)),
            _ => Err(bad_value(span, shape)),
        }
    }

    /// Past `u32`, `history::build` refuses the history.
    fn elems(&mut self, items: &[Val]) -> CheckerValue {
        let start = self.ops.elems.len() as u32;
        self.ops.elems.extend_from_slice(items);
        CheckerValue::Elems {
            start,
            len: items.len() as u32,
        }
    }

    fn balances(
        &mut self,
        entries: &[(Node<'_>, Node<'_>)],
        base: usize,
    ) -> Result<CheckerValue, HistoryError> {
        let start = self.balances.len();
        for (account, balance) in entries {
            let balance = match &balance.untagged().kind {
                Kind::Nil => None,
                _ => Some(balance.integer().flatten().ok_or_else(|| {
                    HistoryError::new(
                        ErrorKind::CheckerOp("a bank balance must be an integer or nil".into()),
                        "a bank :read returns a map of account to balance, e.g. {0 10, 1 90}",
                    )
                    .at(
                        Span::new(base + balance.span.start(), base + balance.span.end()),
                        "this balance",
                    )
                })?),
            };
            let account = self.ops.values.node(account).map_err(|e| e.shifted(base))?;
            self.balances.push((account, balance));
        }
        // Past `u32`, `history::build` refuses the history.
        Ok(CheckerValue::Balances {
            start: start as u32,
            len: (self.balances.len() - start) as u32,
        })
    }
}

/// An `:add` or `:enqueue` whose completion carries another value than its
/// invocation: which of them was added is unknowable. The spans are the
/// pair's ops'.
pub(crate) fn check_same_value(
    (invoke, completion): (Option<Span>, Option<Span>),
    invoked: CheckerValue,
    completed: CheckerValue,
) -> Result<(), HistoryError> {
    let (Some(i), Some(c)) = (invoke, completion) else {
        return Ok(());
    };
    let both = !matches!(invoked, CheckerValue::Nil) && !matches!(completed, CheckerValue::Nil);
    if !both || invoked == completed {
        return Ok(());
    }
    Err(HistoryError::new(
        ErrorKind::CheckerOp("a completion carries another value than its invocation".into()),
        "an op's completion repeats its invocation's value (or has none)",
    )
    .at(c, "completed with this value")
    .at(i, "invoked with this one"))
}

fn bad_value(span: Span, shape: Shape) -> HistoryError {
    HistoryError::new(
        ErrorKind::CheckerOp(format!("this op's value must be {}", shape.expected())),
        format!("the checker reads this op's :value as {}", shape.expected()),
    )
    .at(span, "this op")
}

fn crashed_drain(ops: &Ops, id: OpId) -> HistoryError {
    HistoryError::new(
        ErrorKind::CheckerOp("a :drain that did not complete".into()),
        "total-queue cannot tell what an indeterminate :drain took from the queue \
         (Jepsen's checker refuses it too); drains must complete :ok or :fail",
    )
    .at(ops.ops[id as usize].span, "this drain")
}
