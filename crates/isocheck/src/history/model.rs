//! The history model: ops as they appear in the file, and the transactions
//! that pairing derives from them.
//!
//! Everything sits in flat arenas indexed by `u32` ids, so a history of
//! millions of ops is a handful of large vectors rather than millions of
//! small allocations.

use super::source::SourceFile;
use super::span::Span;
use super::value::{Val, ValueTable};
use std::ops::Range;

/// The most ops, micro-ops, read elements, extra op keys and bank balances
/// a history holds, all together. Every arena is indexed by `u32`, and the
/// stages after reading number what they derive from these (versions, key
/// touches, reads: at most twice as many) by `u32` too; a history this big
/// would be over 50 GB in memory. Checked by `history::build`.
pub const MAX_ITEMS: usize = 1 << 31;

/// Position of an op in [`History::ops`] (file order).
pub type OpId = u32;
/// Position of a transaction in [`History::txns`].
pub type TxnId = u32;

/// `:type` of an op.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OpType {
    /// `:invoke`
    Invoke,
    /// `:ok`
    Ok,
    /// `:fail`
    Fail,
    /// `:info`
    Info,
}

impl OpType {
    /// The type's name, without the colon.
    pub fn name(self) -> &'static str {
        match self {
            OpType::Invoke => "invoke",
            OpType::Ok => "ok",
            OpType::Fail => "fail",
            OpType::Info => "info",
        }
    }
}

/// `:process` of an op. Only integer processes are clients (Jepsen's
/// `client-op?`); the rest (`:nemesis`, a missing key) are kept for display.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Process {
    /// An integer process: a client.
    Client(i64),
    /// Any other process (`:nemesis`).
    Other(Val),
    /// No `:process` key.
    Missing,
}

impl Process {
    /// The client's number, if a client.
    pub fn client(self) -> Option<i64> {
        match self {
            Process::Client(p) => Some(p),
            _ => None,
        }
    }
}

/// `:value` of an op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpValue {
    /// A transaction: `len` micro-ops from `start` in [`History::mops`].
    Txn {
        /// The first micro-op's index.
        start: u32,
        /// How many micro-ops.
        len: u32,
    },
    /// A transaction whose micro-ops were not kept: an invocation its
    /// completion supersedes, or one no client transaction is judged by.
    /// Only the file's text shows them.
    Dropped,
    /// `nil` or a missing `:value`.
    Nil,
    /// Anything else (nemesis values, non-transactional client ops).
    Other(Span),
}

/// One op map of the history.
#[derive(Clone, Debug)]
pub struct Op {
    /// `:index`, or the op's position in the file when the key is absent.
    pub index: i64,
    time: i64,
    /// The whole op map (including a `#jepsen.history.Op` tag).
    pub span: Span,
    /// `:value`, in the shape its workload reads.
    pub value: OpValue,
    /// `:process`
    pub process: Process,
    /// Other keys (`:error` among them): `extras_len` pairs from
    /// `extras_start` in [`History::extras`].
    pub extras_start: u32,
    /// How many extra keys (see `extras_start`).
    pub extras_len: u32,
    /// `:f`; [`Val::NIL`] when absent. Elle ignores it; so do we, but for display.
    pub f: Val,
    /// `:type`
    pub ty: OpType,
}

const NO_TIME: i64 = i64::MIN;

impl Op {
    /// An op with no time, value, process, extras or `:f` yet.
    pub fn new(index: i64, ty: OpType, span: Span) -> Op {
        Op {
            index,
            time: NO_TIME,
            span,
            value: OpValue::Nil,
            process: Process::Missing,
            extras_start: 0,
            extras_len: 0,
            f: Val::NIL,
            ty,
        }
    }

    /// `:time` in nanoseconds, when present. Display only: order comes from the file.
    pub fn time(&self) -> Option<i64> {
        (self.time != NO_TIME).then_some(self.time)
    }

    /// Sets `:time` (nanoseconds).
    pub fn set_time(&mut self, t: i64) {
        self.time = t;
    }

    /// Whether a client process performed it.
    pub fn is_client(&self) -> bool {
        matches!(self.process, Process::Client(_))
    }

    /// The indices of its micro-ops in [`History::mops`], if a transaction.
    pub fn txn_mops(&self) -> Option<Range<u32>> {
        match self.value {
            OpValue::Txn { start, len } => Some(start..start + len),
            _ => None,
        }
    }

    /// The indices of its extra keys in [`History::extras`].
    pub fn extras_range(&self) -> Range<usize> {
        let start = self.extras_start as usize;
        start..start + self.extras_len as usize
    }
}

/// Micro-op function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MopKind {
    /// `[:r k v]`
    Read,
    /// `[:append k v]` (list-append)
    Append,
    /// `[:w k v]` (rw-register, closed-predicate)
    Write,
    /// `[:insert k v]` (closed-predicate): creates key `k` with value `v`.
    Insert,
    /// `[:delete k]` (closed-predicate): the key's version becomes dead.
    Delete,
    /// `[:rp pred {k v, ...}]` (closed-predicate): a predicate read. The
    /// micro-op's key is the predicate; its value the keys and values read,
    /// as a list of `k v` pairs in [`History::elems`], or `nil` unread.
    PredRead,
    /// One entry `k v` of a closed-predicate `:init` op's map: the universe
    /// the history starts from.
    Init,
}

impl MopKind {
    /// The function's name as Jepsen writes it (`r`, `append`, `w`).
    pub fn name(self) -> &'static str {
        match self {
            MopKind::Read => "r",
            MopKind::Append => "append",
            MopKind::Write => "w",
            MopKind::Insert => "insert",
            MopKind::Delete => "delete",
            MopKind::PredRead => "rp",
            MopKind::Init => "init",
        }
    }
}

/// The value slot of a micro-op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MopValue {
    /// A scalar (or opaque collection) value; [`Val::NIL`] for `nil` or a
    /// two-element read `[:r k]`.
    Val(Val),
    /// A read list: `len` elements from `start` in [`History::elems`].
    List {
        /// The first element's index.
        start: u32,
        /// How many elements.
        len: u32,
    },
}

/// One micro-op of a transaction. Packed to 24 bytes: there are millions.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct MicroOp {
    /// The micro-op as written.
    pub span: Span,
    /// The key.
    pub key: Val,
    value: u32,
    list_len: u32,
    /// The function.
    pub kind: MopKind,
}

const SCALAR: u32 = u32::MAX;

impl MicroOp {
    /// A micro-op; a read list longer than the packing allows is cut.
    pub fn new(kind: MopKind, key: Val, value: MopValue, span: Span) -> MicroOp {
        let (value, list_len) = match value {
            MopValue::Val(v) => (v.raw(), SCALAR),
            MopValue::List { start, len } => (start, len.min(SCALAR - 1)),
        };
        MicroOp {
            span,
            key,
            value,
            list_len,
            kind,
        }
    }

    /// The value slot.
    pub fn value(&self) -> MopValue {
        match self.list_len {
            SCALAR => MopValue::Val(Val::from_raw(self.value)),
            len => MopValue::List {
                start: self.value,
                len,
            },
        }
    }
}

impl std::fmt::Debug for MicroOp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "[:{} {:?} {:?}]",
            self.kind.name(),
            self.key,
            self.value()
        )
    }
}

/// What became of a transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// `:ok`
    Committed,
    /// `:fail`
    Aborted,
    /// `:info`, or an invocation that never completed.
    Indeterminate,
}

/// A client transaction: an invocation paired with its completion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Txn {
    /// The client process.
    pub process: i64,
    /// The `:invoke` op, absent in completion-only histories.
    pub invoke: Option<OpId>,
    /// The completion, absent when the process never completed the invocation.
    pub completion: Option<OpId>,
    /// How it completed.
    pub status: Status,
    /// The micro-ops this transaction is judged by: the completion's when it
    /// carries a transaction, else the invocation's.
    pub mops: Range<u32>,
}

impl Txn {
    /// The op that stands for this transaction in reports: the completion when
    /// there is one.
    pub fn op(&self) -> OpId {
        self.completion
            .or(self.invoke)
            .expect("a transaction has at least one op")
    }
}

/// The transactional workload of a history.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Workload {
    /// Elle's list-append: `:append` and reads of lists.
    ListAppend,
    /// Elle's rw-register: `:w` and `:r` of single values.
    RwRegister,
    /// Elle's closed-predicate (`elle.closed-predicate`): an `:init` op
    /// fixing the universe of keys, then transactions of `:insert`,
    /// `:delete`, `:w`, `:r` and predicate reads `:rp`.
    ClosedPredicate,
    /// Not transactions: Jepsen/Knossos register ops (`:read`, `:write`,
    /// `:cas`), on one register or on many keys (`jepsen.independent`), held
    /// in [`History::registers`]. Lightweight transactions.
    CasRegister,
    /// Jepsen's bank test: `:transfer`s, and `:read`s of every balance.
    Bank,
    /// Jepsen's counter: `:add` of a non-negative integer, `:read` of the sum.
    Counter,
    /// Jepsen's set (`checker/set`): `:add`s, then a final `:read`.
    Set,
    /// Jepsen's `checker/set-full`: `:add`s and `:read`s throughout.
    SetFull,
    /// Jepsen's long-fork workload: single-write transactions and reads of
    /// a group of keys (transactions, held in [`History::txns`]).
    LongFork,
    /// Jepsen's `checker/unique-ids`: `:generate` ops.
    UniqueIds,
    /// Jepsen's `checker/total-queue`: `:enqueue`, `:dequeue`, `:drain`.
    TotalQueue,
    /// Not transactions: Knossos's mutex (`:acquire`, `:release`), held in
    /// [`History::registers`] as compare-and-sets between the two states
    /// (see [`RegisterF::Acquire`]).
    Mutex,
}

impl Workload {
    /// The workload's name, as `--workload` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Workload::ListAppend => "list-append",
            Workload::RwRegister => "rw-register",
            Workload::ClosedPredicate => "closed-predicate",
            Workload::CasRegister => "cas-register",
            Workload::Bank => "bank",
            Workload::Counter => "counter",
            Workload::Set => "set",
            Workload::SetFull => "set-full",
            Workload::LongFork => "long-fork",
            Workload::UniqueIds => "unique-ids",
            Workload::TotalQueue => "total-queue",
            Workload::Mutex => "mutex",
        }
    }

    /// Every workload, in the order `--workload` lists them.
    pub const ALL: [Workload; 12] = [
        Workload::ListAppend,
        Workload::RwRegister,
        Workload::ClosedPredicate,
        Workload::CasRegister,
        Workload::Bank,
        Workload::Counter,
        Workload::Set,
        Workload::SetFull,
        Workload::LongFork,
        Workload::UniqueIds,
        Workload::TotalQueue,
        Workload::Mutex,
    ];

    /// The workload named `name` (as [`Workload::name`] spells it).
    pub fn from_name(name: &str) -> Option<Workload> {
        Workload::ALL.into_iter().find(|w| w.name() == name)
    }

    /// What the command line's `--workload` says of it, where the name
    /// alone does not say enough.
    pub fn help(self) -> Option<&'static str> {
        match self {
            Workload::ListAppend | Workload::RwRegister => None,
            Workload::ClosedPredicate => Some(
                "Elle's closed-predicate (:init, :insert, :delete, :w, :r, predicate reads :rp)",
            ),
            Workload::CasRegister => {
                Some("Register ops (:read, :write, :cas), checked for linearizability")
            }
            Workload::Bank => Some("Jepsen's bank checker (:transfer, and :read of every balance)"),
            Workload::Counter => Some("Jepsen's counter checker (:add n, :read)"),
            Workload::Set => Some("Jepsen's set checker (:add, then a final :read)"),
            Workload::SetFull => Some("Jepsen's set-full checker (:add and :read throughout)"),
            Workload::LongFork => {
                Some("Jepsen's long-fork checker (single writes, reads of --group-size keys)")
            }
            Workload::UniqueIds => Some("Jepsen's unique-ids checker (:generate)"),
            Workload::TotalQueue => {
                Some("Jepsen's total-queue checker (:enqueue, :dequeue, :drain)")
            }
            Workload::Mutex => {
                Some("Knossos's mutex (:acquire, :release), checked for linearizability")
            }
        }
    }

    /// The workloads one of Jepsen's standard checkers decides (not Elle's,
    /// not linearizability).
    pub const CHECKERS: [Workload; 7] = [
        Workload::Bank,
        Workload::Counter,
        Workload::Set,
        Workload::SetFull,
        Workload::LongFork,
        Workload::UniqueIds,
        Workload::TotalQueue,
    ];

    /// Whether one of Jepsen's standard checkers decides this workload.
    pub fn is_checker(self) -> bool {
        Workload::CHECKERS.contains(&self)
    }

    /// The workload a Jepsen test map's `:workload` (or a checker's name)
    /// stands for, among [`Workload::CHECKERS`] and the register workload.
    pub fn of_jepsen_name(name: &str) -> Option<Workload> {
        Workload::from_name(name)
            .filter(|&w| w.is_checker() || w == Workload::CasRegister)
            .or(match name {
                "queue" => Some(Workload::TotalQueue),
                _ => None,
            })
    }
}

/// `:f` of an op a Jepsen standard checker reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CheckerF {
    /// `:read`
    Read,
    /// `:add`
    Add,
    /// `:transfer`
    Transfer,
    /// `:enqueue`
    Enqueue,
    /// `:dequeue`
    Dequeue,
    /// `:drain`
    Drain,
    /// `:generate`
    Generate,
    /// Any other `:f`: the checkers ignore it, as Jepsen's do.
    Other,
}

impl CheckerF {
    /// Each named function and its keyword.
    pub const NAMED: [(CheckerF, &'static str); 7] = [
        (CheckerF::Read, ":read"),
        (CheckerF::Add, ":add"),
        (CheckerF::Transfer, ":transfer"),
        (CheckerF::Enqueue, ":enqueue"),
        (CheckerF::Dequeue, ":dequeue"),
        (CheckerF::Drain, ":drain"),
        (CheckerF::Generate, ":generate"),
    ];
}

/// The `:value` of a checker op, in the shape its checker reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckerValue {
    /// `nil`, a missing value, or a value the checker does not read
    /// (a bank `:transfer`'s).
    Nil,
    /// A counter's `:add` or `:read`.
    Int(i64),
    /// One element: a set's `:add`, a queue's `:enqueue`/`:dequeue`, a
    /// generated id.
    Elem(Val),
    /// A collection read whole (a set's `:read`, a queue's `:drain`): `len`
    /// elements from `start` in [`History::elems`], as written.
    Elems {
        /// The first element's index.
        start: u32,
        /// How many elements.
        len: u32,
    },
    /// A bank `:read`: `len` (account, balance) pairs from `start` in
    /// [`History::balances`]; a `nil` balance is `None`.
    Balances {
        /// The first pair's index.
        start: u32,
        /// How many pairs.
        len: u32,
    },
}

/// One account of a bank read: the account and its balance (`None` for `nil`).
pub type Balance = (Val, Option<i64>);

/// An op one of Jepsen's standard checkers reads: an invocation paired with
/// its completion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckerOp {
    /// The `:invoke` op, absent in completion-only histories.
    pub invoke: Option<OpId>,
    /// The completion, absent when the process never completed it.
    pub completion: Option<OpId>,
    /// `:f`
    pub f: CheckerF,
    /// `:ok` committed, `:fail` aborted, `:info` or no completion indeterminate.
    pub status: Status,
    /// The invocation's value.
    pub invoked: CheckerValue,
    /// The completion's value (`Nil` without a completion).
    pub completed: CheckerValue,
}

impl CheckerOp {
    /// The op that stands for it in reports: the completion when there is one.
    pub fn op(&self) -> OpId {
        self.completion
            .or(self.invoke)
            .expect("a checker op has at least one op")
    }
}

/// `:f` of a register op.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RegisterF {
    /// `{:f :read, :value v}`: `v` is what an `:ok` read returned.
    Read,
    /// `{:f :write, :value v}`: a blind write (an insert).
    Write,
    /// `{:f :cas, :value [old new]}`: compare-and-set.
    Cas,
    /// `{:f :acquire}` on a mutex: Knossos's model, which knows whether the
    /// mutex is held but not by whom. Held as a compare-and-set from the
    /// free state to the held one (`value` and `new`), so that the search
    /// and the reports treat it as one.
    Acquire,
    /// `{:f :release}`: a compare-and-set from held to free.
    Release,
}

impl RegisterF {
    /// The function's name, without the colon.
    pub fn name(self) -> &'static str {
        match self {
            RegisterF::Read => "read",
            RegisterF::Write => "write",
            RegisterF::Cas => "cas",
            RegisterF::Acquire => "acquire",
            RegisterF::Release => "release",
        }
    }
}

/// One register op: an invocation paired with its completion, with the
/// values the pair is judged by (the completion's when it carries them, else
/// the invocation's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegisterOp {
    /// The `:invoke` op, absent in completion-only histories.
    pub invoke: Option<OpId>,
    /// The completion, absent when the process never completed it.
    pub completion: Option<OpId>,
    /// The key (`jepsen.independent`), or [`Val::NIL`] for a single register.
    pub key: Val,
    /// Read: the value returned ([`Val::NIL`] for the initial value, or when
    /// the read did not complete with `:ok`). Write: the value written.
    /// Cas: the expected old value.
    pub value: Val,
    /// Cas: the new value. Otherwise [`Val::NIL`].
    pub new: Val,
    /// `:f`
    pub f: RegisterF,
    /// `:ok` committed, `:fail` aborted, `:info` or no completion indeterminate.
    pub status: Status,
}

impl RegisterOp {
    /// The op that stands for it in reports: the completion when there is one.
    pub fn op(&self) -> OpId {
        self.completion
            .or(self.invoke)
            .expect("a register op has at least one op")
    }
}

/// How the workload was decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum WorkloadSource {
    /// Given with `--workload`.
    Flag,
    /// Fixed by the input format (PolySI, dbcop and Cobra histories are registers).
    Format,
    /// From the micro-ops of the history.
    Detected,
    /// Nothing in the history tells (no writes, no non-empty reads); list-append assumed.
    Assumed,
}

/// A whole history: the ops read from the file and the transactions built from them.
#[derive(Debug)]
pub struct History {
    /// The file the history was read from.
    pub source: SourceFile,
    /// Every op, in file order.
    pub ops: Vec<Op>,
    /// The micro-ops transactions are judged by (see [`Txn::mops`]).
    pub mops: Vec<MicroOp>,
    /// Micro-ops read from the file: those of `mops` and those of
    /// [`OpValue::Dropped`] ops.
    pub mops_read: usize,
    /// Elements of read lists.
    pub elems: Vec<Val>,
    /// `(key span, value span)` of extra op keys.
    pub extras: Vec<(Span, Span)>,
    /// The values, interned.
    pub values: ValueTable,
    /// Client transactions, ordered by their first op in the file.
    pub txns: Vec<Txn>,
    /// Client ops whose value is not a transaction (e.g. `:cas` register ops).
    pub other_client_ops: Vec<OpId>,
    /// The register ops of a [`Workload::CasRegister`] or
    /// [`Workload::Mutex`] history, one per
    /// invocation/completion pair, in invocation order; empty otherwise.
    pub registers: Vec<RegisterOp>,
    /// Whether register values are `jepsen.independent` `[key value]` tuples
    /// (many keys) rather than one register's values (key [`Val::NIL`]).
    pub independent_keys: bool,
    /// The ops of a history one of Jepsen's standard checkers decides
    /// ([`Workload::is_checker`], all but long-fork's transactions), one per
    /// invocation/completion pair, in invocation order; empty otherwise.
    pub checker_ops: Vec<CheckerOp>,
    /// Bank reads' (account, balance) pairs, balance `None` for `nil`.
    pub balances: Vec<Balance>,
    /// The workload the history is judged as.
    pub workload: Workload,
    /// How the workload was decided.
    pub workload_source: WorkloadSource,
    /// Whether op positions give real-time order (true for Jepsen EDN; false
    /// for formats that record no timing, where real-time models cannot be checked).
    pub has_realtime: bool,
    /// Whether the file logs every committed transaction of the database
    /// (PolySI, dbcop, Cobra), not only what some clients saw (Jepsen EDN):
    /// a read of a value none of them wrote is then certainly a garbage
    /// read, and reads of the initial state alone are something checked.
    pub complete_log: bool,
    /// Whether the file is JSON (elle-cli's form): op and micro-op spans
    /// point into JSON text, which `formats::json::to_edn` turns into the
    /// EDN that reports print.
    pub json: bool,
    /// Whether an op's text is neither EDN nor elle-cli's JSON (Chronos's
    /// transaction objects): reports print the op rebuilt from the model.
    pub rebuilt_ops: bool,
    /// The commit order the database reported, when the user gave one
    /// ([`commit_order`](super::commit_order)): a position per transaction.
    /// Empty when none was given.
    pub commit_order: super::commit_order::CommitOrder,
    /// The timestamps the ops carry, once read
    /// ([`read_stamps`](super::commit_order::read_stamps)), a slot per
    /// transaction. Empty until then.
    pub stamps: Vec<Option<super::commit_order::Stamp>>,
    /// Whether some value is written to a key more than once (rw-register
    /// only: other workloads refuse such a history). A read of it may have
    /// several writers, and the paths that need each read's writer (the
    /// fast paths, the axiomatic levels) step aside.
    pub repeated_writes: bool,
}

impl History {
    /// The op `id`.
    pub fn op(&self, id: OpId) -> &Op {
        &self.ops[id as usize]
    }

    /// The transaction `id`.
    pub fn txn(&self, id: TxnId) -> &Txn {
        &self.txns[id as usize]
    }

    /// The micro-ops a transaction is judged by.
    pub fn mops_of(&self, t: &Txn) -> &[MicroOp] {
        &self.mops[t.mops.start as usize..t.mops.end as usize]
    }

    /// Elements of a read list.
    pub fn list(&self, start: u32, len: u32) -> &[Val] {
        &self.elems[start as usize..(start + len) as usize]
    }

    /// The text of a span of the source file.
    pub fn text(&self, span: Span) -> &str {
        self.source.slice(span)
    }
}
