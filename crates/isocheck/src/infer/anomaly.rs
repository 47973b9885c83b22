//! Non-cycle anomalies, with the fields of Elle's entries.

use crate::history::{TxnId, Val};

/// The expected value of an `:internal` read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expected {
    /// list-append: the list the read should have returned. With
    /// `prefix_known`, the whole list (possibly `[]`: the key was read empty
    /// before); without, the transaction appended to the key before reading
    /// it, so only the suffix it appended is known and Elle prints
    /// `[... 3]` (`'...` then `elems`).
    List { prefix_known: bool, elems: Vec<Val> },
    /// rw-register: the value the read should have returned (`nil` for the
    /// initial state).
    Value(Val),
}

/// One non-cycle anomaly. Micro-ops are indices into `History::mops`;
/// transactions are indices into `History::txns` (reports print their ops).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Anomaly {
    /// `:G1a`: a committed read observed a write of an aborted transaction.
    /// `element` is the aborted append (list-append only: one entry per
    /// aborted element of the read, in list order; rw-register: `None`).
    G1a {
        reader: TxnId,
        mop: u32,
        writer: TxnId,
        element: Option<Val>,
    },
    /// `:G1b`: a committed read observed a write its writer later overwrote
    /// (list-append: the read's last element, `element`, was not the writer's
    /// last append to the key; rw-register: `None`). Any writer counts,
    /// aborted ones included, as in Elle.
    G1b {
        reader: TxnId,
        mop: u32,
        writer: TxnId,
        element: Option<Val>,
    },
    /// `:internal`: a read that disagrees with its transaction's own earlier
    /// reads and writes of the key (the first such read of a transaction).
    Internal {
        txn: TxnId,
        mop: u32,
        expected: Expected,
    },
    /// `:own-write-unseen` (isocheck only): a read after its transaction's
    /// own write of the key that does not show it (the first such read of a
    /// transaction; Elle reports it as `internal`, which only read atomic
    /// and stronger models proscribe). Every model assumes a transaction
    /// reads its own writes (Adya's histories; Cerone et al.'s INT), so
    /// read uncommitted proscribes it, and with it every model.
    OwnWriteUnseen {
        txn: TxnId,
        mop: u32,
        expected: Expected,
    },
    /// `:future-read`: a read (`mop`, the first one showing `element`)
    /// observed an element its transaction appends later.
    FutureRead { txn: TxnId, mop: u32, element: Val },
    /// `:dirty-update`: an aborted append followed by a committed one in the
    /// version order of `key` (possibly through indeterminate ones). `txns`
    /// are the writers of `values`, in order: the first is aborted, the last
    /// committed. Elle prints `:txns [first '... last]`.
    DirtyUpdate {
        key: Val,
        values: Vec<Val>,
        txns: Vec<TxnId>,
    },
    /// `:duplicate-elements`: a read list holds an element more than once:
    /// `(element, count)` for each, sorted by value (Elle's sorted map).
    DuplicateElements {
        txn: TxnId,
        mop: u32,
        duplicates: Vec<(Val, u32)>,
    },
    /// `:incompatible-order`: two reads of `key` neither of which is a prefix
    /// of the other: two read micro-ops, shorter first (Elle's first violation
    /// among the distinct reads sorted by length).
    IncompatibleOrder { key: Val, reads: [u32; 2] },
    /// `:lost-update`: committed transactions read the same version of `key`
    /// and all wrote it. `read_mop` is the first one's read of that version
    /// (reports print its value as written in the history: Elle compares
    /// values literally, so `nil` and `[]` are different). `txns` are in
    /// history (completion) order.
    LostUpdate {
        key: Val,
        read_mop: u32,
        txns: Vec<TxnId>,
    },
    /// `:cyclic-versions` (rw-register): the version graph of `key` has a
    /// cycle through `scc` (sorted; `nil` is the initial version), given
    /// these sources of version order (Elle's names, without the colon).
    CyclicVersions {
        key: Val,
        scc: Vec<Val>,
        sources: Vec<&'static str>,
    },
    /// `:garbage-read` (isocheck only; Elle does not detect it): a committed
    /// read of a value no transaction wrote (rw-register: a non-`nil` value;
    /// list-append: a list with an element nobody appended, or that no
    /// sequence of appends produces: a transaction's appends out of order, or
    /// a later one without the earlier).
    GarbageRead { txn: TxnId, mop: u32 },
    /// `:predicate-read-miss` (closed-predicate): a predicate read (`mop`
    /// of `txn`) did not return `key`, although the predicate matches every
    /// version the key ever had (`versions`, in version order).
    PredicateReadMiss {
        txn: TxnId,
        mop: u32,
        key: Val,
        versions: Vec<Val>,
    },
    /// `:timestamp-inverted` (isocheck, `--check-timestamps`): a committed
    /// transaction whose reported start is after its reported commit.
    TimestampInverted { txn: TxnId, start: i64, commit: i64 },
    /// `:timestamp-snapshot-read` and `:timestamp-serial-read` (isocheck,
    /// `--check-timestamps`): a read of another version than the one the
    /// reader's timestamps say it saw, the last committed at or before its
    /// start (snapshot isolation), or before its commit (`serial`:
    /// serializability in commit-timestamp order). `at` is that point;
    /// `writer` wrote what it read, `expected` the version it should have
    /// read (`None`: the initial one), each with its commit timestamp.
    TimestampRead {
        serial: bool,
        txn: TxnId,
        mop: u32,
        at: i64,
        writer: Option<(TxnId, i64)>,
        expected: Option<(TxnId, i64)>,
    },
    /// `:timestamp-lost-update` (isocheck, `--check-timestamps`): `second`
    /// took its snapshot before `first` committed and committed a write of
    /// `key` after it: snapshot isolation's first committer should have won.
    TimestampLostUpdate {
        key: Val,
        first: (TxnId, i64),
        second: (TxnId, i64, i64),
    },
}

impl Anomaly {
    /// Elle's anomaly type, without the colon.
    pub fn name(&self) -> &'static str {
        match self {
            Anomaly::G1a { .. } => "G1a",
            Anomaly::G1b { .. } => "G1b",
            Anomaly::Internal { .. } => "internal",
            Anomaly::OwnWriteUnseen { .. } => "own-write-unseen",
            Anomaly::FutureRead { .. } => "future-read",
            Anomaly::DirtyUpdate { .. } => "dirty-update",
            Anomaly::DuplicateElements { .. } => "duplicate-elements",
            Anomaly::IncompatibleOrder { .. } => "incompatible-order",
            Anomaly::LostUpdate { .. } => "lost-update",
            Anomaly::CyclicVersions { .. } => "cyclic-versions",
            Anomaly::GarbageRead { .. } => "garbage-read",
            Anomaly::PredicateReadMiss { .. } => "predicate-read-miss",
            Anomaly::TimestampInverted { .. } => "timestamp-inverted",
            Anomaly::TimestampRead { serial: false, .. } => "timestamp-snapshot-read",
            Anomaly::TimestampRead { serial: true, .. } => "timestamp-serial-read",
            Anomaly::TimestampLostUpdate { .. } => "timestamp-lost-update",
        }
    }
}
