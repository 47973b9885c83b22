//! Jepsen's counter, set and bank checkers (`checkers::{counter, set,
//! bank}`) over a stream: a history's ops taken once, in order, each
//! violation reported as soon as it is certain, and at the end the verdict
//! the offline checker gives (`:valid?` and anomaly types).
//!
//! [`CheckerStream`] pairs each client's invocation with its completion,
//! reads their values as `history::checker_ops` does for the whole file
//! (the same shapes, errors and spans), and hands each pair to the check
//! of its workload: `counter`, `set`, `bank`. Memory: the counter
//! holds one entry per process and the reads whose upper bound still
//! waits on an add under way; the bank its accounts (and, until the first
//! read is known, the reads completed before it); the set the elements
//! added and its latest read.
//!
//! # Which workload
//!
//! `--workload` decides at once. Otherwise the stream learns it as
//! `history/build.rs` does from the whole file: a `:transfer` makes it a
//! bank's; an `:add` a counter's or a set's, told by the first `:ok` read
//! (the first invoked: a read invoked earlier and still under way may yet
//! be it): an integer is a counter's, anything else a set's. Until it
//! knows, it runs every check still possible side by side (each in
//! bounded memory), holding their findings and value errors back; when it
//! knows, it keeps that one, gives what it held, and drops the rest. A
//! set history read `:ok` more than once is set-full's (as the whole-file
//! reader decides), which the stream does not check: it says so at the
//! second read, unless `--workload set` was given.

mod bank;
mod counter;
mod set;

use super::{About, Finding};
use crate::checkers::JepsenOptions;
use crate::history::checker_ops::{self, check_same_value, Sink};
use crate::history::error::{ErrorKind, HistoryError};
use crate::history::jepsen::streaming::StreamedOp;
use crate::history::jepsen::Ops;
use crate::history::{
    Balance, CheckerF, CheckerValue, OpType, OpValue, Process, Span, Status, Val, ValueTable,
    Workload,
};
use crate::infer::util::FxMap;
use crate::validity::Validity;

/// The workloads a [`CheckerStream`] checks.
pub const STREAMED: [Workload; 3] = [Workload::Counter, Workload::Set, Workload::Bank];

/// One pair of ops (an invocation and its completion) as a check reads it,
/// its values read in the shapes of the check's workload.
pub(super) struct Pair<'a> {
    pub process: i64,
    pub f: CheckerF,
    pub status: Status,
    /// Where the pair begins among the ops taken (its invocation, or its
    /// completion when it has none): the order of Jepsen's pairs.
    pub opening: u64,
    /// The completion's `:index`.
    pub index: i64,
    pub invoked: CheckerValue,
    pub completed: CheckerValue,
    /// The completion's `:value` is `nil`.
    pub nil: bool,
    /// What `completed` points into.
    pub elems: &'a [Val],
    pub balances: &'a [Balance],
    pub values: &'a ValueTable,
}

/// A client's op: its process, `:f`, and place among the ops taken.
#[derive(Clone, Copy)]
struct Client {
    process: i64,
    f: CheckerF,
    position: u64,
}

/// An invocation under way.
struct Open {
    f: CheckerF,
    opening: u64,
    span: Span,
    /// Its value in each candidate check's shape (see [`Candidates`]).
    invoked: [CheckerValue; 3],
}

/// The checks still possible, in [`STREAMED`]'s order, with the first
/// error reading a value in each one's shapes (which is the history's
/// error if that check is the one).
#[derive(Default)]
struct Candidates {
    counter: Option<counter::Counter>,
    set: Option<set::SetCheck>,
    bank: Option<bank::BankCheck>,
    errors: [Option<HistoryError>; 3],
}

/// The first `:ok` read in Jepsen's pair order (by where the pair begins),
/// and the reads under way that began before it (one of which may yet be
/// it).
#[derive(Default)]
struct FirstRead {
    /// Where each read under way began, by process.
    under_way: FxMap<i64, u64>,
    /// The earliest `:ok` read so far: where it began, and whether it read
    /// an integer.
    earliest: Option<(u64, bool)>,
    /// `:ok` reads so far, and the second one's span.
    ok: u64,
    second: Option<Span>,
}

impl FirstRead {
    /// The first read, once no read under way began before it.
    fn known(&self) -> Option<(u64, bool)> {
        let (at, integer) = self.earliest?;
        let earlier = self.under_way.values().any(|&b| b < at);
        (!earlier).then_some((at, integer))
    }
}

/// A streaming check of a counter, set or bank history; see the module's
/// doc.
pub struct CheckerStream {
    /// The workload, once given or learned.
    workload: Option<Workload>,
    given: bool,
    candidates: Candidates,
    first: FirstRead,
    /// Seen so far: an `:add`, a `:transfer`.
    adds: bool,
    transfers: bool,
    open: FxMap<i64, Open>,
    /// The values read (the elements and accounts the checks hold), and
    /// one op's elements; one op's balances.
    scratch: Ops,
    balances: Vec<Balance>,
    /// `:f` of the stream's values, by value.
    fs: FxMap<Val, CheckerF>,
    ops: u64,
    findings: Vec<Finding>,
}

/// What a finished [`CheckerStream`] says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckerEnding {
    /// The workload checked; `None` when the history never showed it.
    pub workload: Option<Workload>,
    /// The offline checker's `:valid?`…
    pub validity: Validity,
    /// …and its anomaly types (a set never read: `never-read`).
    pub anomaly_types: Vec<&'static str>,
    /// The findings [`CheckerStream::drain`] did not take: those only the
    /// end makes certain.
    pub findings: Vec<Finding>,
    /// Ops taken.
    pub ops: u64,
}

impl CheckerStream {
    /// A stream of `workload`'s history (one of [`STREAMED`]), or of one
    /// whose workload it learns (`None`), checked with `options` (the
    /// bank's).
    pub fn new(workload: Option<Workload>, options: &JepsenOptions) -> CheckerStream {
        let wants = |w: Workload| workload.is_none_or(|x| x == w);
        let candidates = Candidates {
            counter: wants(Workload::Counter).then(counter::Counter::default),
            set: wants(Workload::Set).then(set::SetCheck::default),
            bank: wants(Workload::Bank).then(|| bank::BankCheck::new(options)),
            errors: Default::default(),
        };
        CheckerStream {
            workload,
            given: workload.is_some(),
            candidates,
            first: FirstRead::default(),
            adds: false,
            transfers: false,
            open: FxMap::default(),
            scratch: Ops::default(),
            balances: Vec::new(),
            fs: FxMap::default(),
            ops: 0,
            findings: Vec::new(),
        }
    }

    /// The workload, once given or learned.
    pub fn workload(&self) -> Option<Workload> {
        self.workload
    }

    /// Takes the next op; `values` is the stream's table (the one its
    /// `:f` is a value of). An error when the op is malformed for the
    /// workload (as the whole-file reader says it), or shows the history
    /// is not one the stream checks.
    pub fn op(&mut self, op: &StreamedOp, values: &ValueTable) -> Result<(), HistoryError> {
        let position = self.ops;
        self.ops += 1;
        let Process::Client(process) = op.op.process else {
            return Ok(());
        };
        if !op.txn().is_empty() {
            return Err(not_ours(op.op.span, "a transaction of micro-ops"));
        }
        let f = self.f(op.op.f, values);
        self.learn(f, op)?;
        let client = Client {
            process,
            f,
            position,
        };
        let result = match op.op.ty {
            OpType::Invoke => self.invoke(client, op),
            _ => self.complete(client, op),
        };
        self.scratch.elems.clear();
        self.balances.clear();
        result?;
        self.decide()
    }

    /// The findings made since the last call, once the workload is known.
    pub fn drain(&mut self) -> Vec<Finding> {
        if self.workload.is_some() {
            self.candidates.take_findings(&mut self.findings);
        }
        std::mem::take(&mut self.findings)
    }

    /// The stream ended: ops under way never completed (indeterminate, as
    /// the offline checkers count them), and the verdict.
    pub fn finish(mut self) -> Result<CheckerEnding, HistoryError> {
        self.first.under_way.clear();
        self.decide()?;
        let ops = self.ops;
        let c = &mut self.candidates;
        let (validity, anomaly_types) = match self.workload {
            Some(Workload::Counter) => c.counter.as_mut().map(counter::Counter::finish),
            Some(Workload::Set) => c.set.as_mut().map(|s| s.finish(&self.scratch.values)),
            Some(Workload::Bank) => c.bank.as_mut().map(bank::BankCheck::finish),
            _ => None,
        }
        .unwrap_or((Validity::Unknown, vec![]));
        let mut findings = std::mem::take(&mut self.findings);
        if self.workload.is_some() {
            c.take_findings(&mut findings);
        }
        Ok(CheckerEnding {
            workload: self.workload,
            validity,
            anomaly_types,
            findings,
            ops,
        })
    }

    fn f(&mut self, f: Val, values: &ValueTable) -> CheckerF {
        *self
            .fs
            .entry(f)
            .or_insert_with(|| checker_ops::checker_f(values, f))
    }

    /// What the op's `:f` says of the workload: an error when it is
    /// another checker's, or mixes a counter's or set's adds with a bank's
    /// transfers.
    fn learn(&mut self, f: CheckerF, op: &StreamedOp) -> Result<(), HistoryError> {
        if self.given {
            return Ok(());
        }
        match f {
            CheckerF::Add => self.adds = true,
            CheckerF::Transfer => self.transfers = true,
            CheckerF::Read | CheckerF::Other => return Ok(()),
            _ => return Err(not_ours(op.op.span, "another checker's op")),
        }
        if self.adds && self.transfers {
            return Err(mixed(op.op.span));
        }
        let c = &mut self.candidates;
        if self.transfers {
            (c.counter, c.set) = (None, None);
            self.workload = Some(Workload::Bank);
        } else {
            c.bank = None;
        }
        Ok(())
    }

    fn invoke(&mut self, client: Client, op: &StreamedOp) -> Result<(), HistoryError> {
        let Client {
            process,
            f,
            position,
        } = client;
        if self.open.contains_key(&process) {
            return Err(super::workload::double_invoke(process, op));
        }
        let mut invoked = [CheckerValue::Nil; 3];
        let at = Some((op.op.span, op.op.value));
        for (i, w) in STREAMED.into_iter().enumerate() {
            if self.candidates.live(i) {
                let read = self.sink(op).invoked(w, f, at);
                invoked[i] = self.candidates.value(i, read);
            }
        }
        if f == CheckerF::Read {
            self.first.under_way.insert(process, position);
        }
        let c = &mut self.candidates;
        if let Some(counter) = &mut c.counter {
            counter.invoke(process, f, invoked[0]);
        }
        if let Some(set) = &mut c.set {
            set.invoke(f, invoked[1]);
        }
        self.open.insert(
            process,
            Open {
                f,
                opening: position,
                span: op.op.span,
                invoked,
            },
        );
        Ok(())
    }

    fn complete(&mut self, client: Client, op: &StreamedOp) -> Result<(), HistoryError> {
        let Client {
            process,
            f,
            position,
        } = client;
        let open = self.open.remove(&process);
        if let Some(o) = open.as_ref().filter(|o| o.f != f) {
            return Err(changed_f(o.span, op.op.span));
        }
        let status = checker_ops::status(Some(op.op.ty));
        let opening = open.as_ref().map_or(position, |o| o.opening);
        if f == CheckerF::Read {
            self.first.under_way.remove(&process);
            if status == Status::Committed {
                self.first_read(opening, op);
            }
        }
        let at = (op.op.span, op.op.value);
        for (i, w) in STREAMED.into_iter().enumerate() {
            if !self.candidates.live(i) {
                continue;
            }
            let invoked = open.as_ref().map_or(CheckerValue::Nil, |o| o.invoked[i]);
            let read = self.sink(op).completed(w, f, status, Some(at));
            let read = read.and_then(|completed| {
                let spans = (open.as_ref().map(|o| o.span), Some(op.op.span));
                check_same_value(spans, invoked, completed).map(|()| completed)
            });
            let completed = self.candidates.value(i, read);
            let pair = Pair {
                process,
                f,
                status,
                opening,
                index: op.op.index,
                invoked,
                completed,
                nil: op.op.value == OpValue::Nil,
                elems: &self.scratch.elems,
                balances: &self.balances,
                values: &self.scratch.values,
            };
            self.candidates.complete(i, &pair);
        }
        Ok(())
    }

    /// An `:ok` read that began at `opening`: the first so far?
    fn first_read(&mut self, opening: u64, op: &StreamedOp) {
        self.first.ok += 1;
        if self.first.ok == 2 {
            self.first.second = Some(op.op.span);
        }
        if self.first.earliest.is_some_and(|(at, _)| at < opening) {
            return;
        }
        let base = op.op.span.start();
        let integer = checker_ops::reads_integer(op.op.value, &op.text, base, false);
        self.first.earliest = Some((opening, integer));
    }

    /// A reader of `op`'s values into the stream's arenas.
    fn sink<'s>(&'s mut self, op: &'s StreamedOp) -> SinkGuard<'s> {
        let balances = std::mem::take(&mut self.balances);
        SinkGuard {
            sink: Sink {
                ops: &mut self.scratch,
                text: &op.text,
                base: op.op.span.start(),
                balances,
            },
            home: &mut self.balances,
        }
    }

    /// After an op: what the first read decides, now that it is known;
    /// an error when the history turns out set-full's.
    fn decide(&mut self) -> Result<(), HistoryError> {
        self.bank_first_read();
        if self.workload.is_none() {
            self.settle()?;
        }
        if let Some(w) = self.workload {
            self.candidates.error(w)?;
        }
        match self.first.second {
            Some(span) if self.workload == Some(Workload::Set) && !self.given => {
                Err(set_full(span))
            }
            _ => Ok(()),
        }
    }

    /// The bank's first read, once known.
    fn bank_first_read(&mut self) {
        if let (Some(bank), Some((at, _))) = (&mut self.candidates.bank, self.first.known()) {
            bank.first_read(at, &self.scratch.values);
        }
    }

    /// A counter's or set's adds, once the first read tells which: keeps
    /// that check and drops the other. Its held error, if any, is the
    /// history's.
    fn settle(&mut self) -> Result<(), HistoryError> {
        if !self.adds {
            return Ok(());
        }
        let Some((_, integer)) = self.first.known() else {
            return Ok(());
        };
        let c = &mut self.candidates;
        let w = match integer {
            true => {
                c.set = None;
                Workload::Counter
            }
            false => {
                c.counter = None;
                Workload::Set
            }
        };
        self.workload = Some(w);
        c.error(w)
    }
}

/// A [`Sink`] that gives the balances it read back to the stream when
/// dropped (they are read in the op's completion and used at once).
struct SinkGuard<'s> {
    sink: Sink<'s>,
    home: &'s mut Vec<Balance>,
}

impl<'s> std::ops::Deref for SinkGuard<'s> {
    type Target = Sink<'s>;
    fn deref(&self) -> &Sink<'s> {
        &self.sink
    }
}

impl std::ops::DerefMut for SinkGuard<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.sink
    }
}

impl Drop for SinkGuard<'_> {
    fn drop(&mut self) {
        *self.home = std::mem::take(&mut self.sink.balances);
    }
}

impl Candidates {
    /// Whether check `i` (in [`STREAMED`]'s order) is still possible.
    fn live(&self, i: usize) -> bool {
        match i {
            0 => self.counter.is_some(),
            1 => self.set.is_some(),
            _ => self.bank.is_some(),
        }
    }

    /// A value read for check `i`, its first error held (`nil` then).
    fn value(&mut self, i: usize, read: Result<CheckerValue, HistoryError>) -> CheckerValue {
        read.unwrap_or_else(|e| {
            self.errors[i].get_or_insert(e);
            CheckerValue::Nil
        })
    }

    fn complete(&mut self, i: usize, pair: &Pair<'_>) {
        match i {
            0 => self.counter.as_mut().map(|c| c.complete(pair)),
            1 => self.set.as_mut().map(|s| s.complete(pair)),
            _ => self.bank.as_mut().map(|b| b.complete(pair)),
        };
    }

    /// The error held for `w`'s check, which is now the history's.
    fn error(&mut self, w: Workload) -> Result<(), HistoryError> {
        let i = STREAMED.iter().position(|&x| x == w).unwrap_or(0);
        self.errors[i].take().map_or(Ok(()), Err)
    }

    /// The findings of the one check left.
    fn take_findings(&mut self, out: &mut Vec<Finding>) {
        let found = [
            self.counter.as_mut().map(|c| &mut c.found),
            self.set.as_mut().map(|s| &mut s.found),
            self.bank.as_mut().map(|b| &mut b.found),
        ];
        for f in found.into_iter().flatten() {
            out.append(f);
        }
    }
}

/// A read's finding: `name` at op `at`, about the read completed at
/// `read`, in words.
pub(super) fn finding(name: &str, at: i64, read: i64, detail: String) -> Finding {
    Finding {
        name: name.to_string(),
        at,
        what: About::ReadValue { op: read, detail },
    }
}

const STREAMS: &str = "the streaming check takes Jepsen's counter, set and bank histories (and \
     list-append's); check other workloads whole";

fn not_ours(span: Span, what: &str) -> HistoryError {
    HistoryError::new(
        ErrorKind::CheckerOp(format!("{what} in a counter, set or bank history")),
        STREAMS,
    )
    .at(span, "this op")
}

fn mixed(span: Span) -> HistoryError {
    HistoryError::new(
        ErrorKind::MixedWorkload,
        "a history is a counter's or set's (:add) or a bank's (:transfer), not both",
    )
    .at(
        span,
        "a :transfer after an :add, or an :add after a :transfer",
    )
}

fn changed_f(invoke: Span, completion: Span) -> HistoryError {
    HistoryError::new(
        ErrorKind::CheckerOp("a completion whose :f is not its invocation's".into()),
        "the streaming check reads a pair by its invocation's :f; check this history whole",
    )
    .at(completion, "completed as this")
    .at(invoke, "invoked as this")
}

fn set_full(span: Span) -> HistoryError {
    HistoryError::new(
        ErrorKind::CheckerOp("a set read :ok more than once: a set-full history".into()),
        "Jepsen's set workload reads once, at the end; the stream does not check set-full \
         histories: check it whole, or give --workload set to judge the last read",
    )
    .at(span, "the second :ok read")
}
