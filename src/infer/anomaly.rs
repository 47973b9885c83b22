//! Non-cycle anomalies, with the fields of Elle's entries.

use crate::history::{TxnId, Val};

/// The expected value of an `:internal` read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expected {
    /// list-append: the list the read should have returned. `prefix_known` is
    /// false when the transaction did not read the key first, so only the
    /// suffix it appended is known (Elle prints `[... 3]`).
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
    /// `element` is the aborted append (list-append only).
    G1a {
        reader: TxnId,
        mop: u32,
        writer: TxnId,
        element: Option<Val>,
    },
    /// `:G1b`: a committed read observed a write its writer later overwrote.
    G1b {
        reader: TxnId,
        mop: u32,
        writer: TxnId,
        element: Option<Val>,
    },
    /// `:internal`: a read that disagrees with its transaction's own earlier
    /// reads and writes of the key.
    Internal {
        txn: TxnId,
        mop: u32,
        expected: Expected,
    },
    /// `:future-read`: a read observed an element its transaction appends later.
    FutureRead { txn: TxnId, mop: u32, element: Val },
    /// `:dirty-update`: an aborted append followed by a committed one in the
    /// version order of `key`. `txns` are the writers of `values`, in order.
    DirtyUpdate {
        key: Val,
        values: Vec<Val>,
        txns: Vec<TxnId>,
    },
    /// `:duplicate-elements`: a read list holds an element more than once.
    DuplicateElements {
        txn: TxnId,
        mop: u32,
        duplicates: Vec<(Val, u32)>,
    },
    /// `:incompatible-order`: two reads of `key` neither of which is a prefix
    /// of the other: two read micro-ops, shorter first.
    IncompatibleOrder { key: Val, reads: [u32; 2] },
    /// `:lost-update`: committed transactions read the same version of `key`
    /// and all wrote it. `read_mop` is the first one's read of that version
    /// (reports print its value as written in the history).
    LostUpdate {
        key: Val,
        read_mop: u32,
        txns: Vec<TxnId>,
    },
    /// `:cyclic-versions` (rw-register): the version graph of `key` has a
    /// cycle through `scc`, given these sources of version order.
    CyclicVersions {
        key: Val,
        scc: Vec<Val>,
        sources: Vec<&'static str>,
    },
    /// `:garbage-read` (isocheck only; Elle does not detect it): a committed
    /// read of a value no transaction wrote.
    GarbageRead { txn: TxnId, mop: u32 },
}

impl Anomaly {
    /// Elle's anomaly type, without the colon.
    pub fn name(&self) -> &'static str {
        match self {
            Anomaly::G1a { .. } => "G1a",
            Anomaly::G1b { .. } => "G1b",
            Anomaly::Internal { .. } => "internal",
            Anomaly::FutureRead { .. } => "future-read",
            Anomaly::DirtyUpdate { .. } => "dirty-update",
            Anomaly::DuplicateElements { .. } => "duplicate-elements",
            Anomaly::IncompatibleOrder { .. } => "incompatible-order",
            Anomaly::LostUpdate { .. } => "lost-update",
            Anomaly::CyclicVersions { .. } => "cyclic-versions",
            Anomaly::GarbageRead { .. } => "garbage-read",
        }
    }
}
