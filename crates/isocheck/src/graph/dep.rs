//! The edges of the dependency graph: their relations (`Rel`, `RelSet`)
//! and `Dep`, one edge with the witness that explains it. Inference
//! produces them, the graph is built from them and reports explain them.

use crate::history::{TxnId, Val};

/// The kind of a dependency edge between two transactions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Rel {
    /// Write-write: `to` overwrote the version `from` wrote.
    Ww = 0,
    /// Write-read: `to` read the version `from` wrote.
    Wr = 1,
    /// Read-write (anti-dependency): `from` read a version that `to` overwrote.
    Rw = 2,
    /// Predicate read-write (Adya's predicate anti-dependency, Elle's
    /// `:rwp`): a predicate read of `from` selected a version that `to`
    /// overwrote with one that changes whether the predicate matches. Only
    /// closed-predicate histories have them. Its predicate write-read twin
    /// (`:wrp`) is a [`Rel::Wr`] whose reading micro-op is a predicate read:
    /// no cycle anomaly tells the two apart.
    Rwp = 3,
    /// Session order: the same process ran `from` then `to`.
    Process = 4,
    /// Real-time order: `from` completed before `to` was invoked.
    Realtime = 5,
}

impl Rel {
    /// In the order Elle's explainers try them for a pair: data
    /// dependencies (item before predicate) before session and real time.
    pub const ALL: [Rel; 6] = [
        Rel::Ww,
        Rel::Wr,
        Rel::Rw,
        Rel::Rwp,
        Rel::Process,
        Rel::Realtime,
    ];

    /// Whether it is an anti-dependency, item or predicate.
    pub const fn is_rw(self) -> bool {
        matches!(self, Rel::Rw | Rel::Rwp)
    }

    /// The relation as a one-bit mask (see [`RelSet`]).
    pub const fn bit(self) -> RelSet {
        RelSet(1 << self as u8)
    }

    /// Elle's keyword name, without the colon.
    pub fn name(self) -> &'static str {
        match self {
            Rel::Ww => "ww",
            Rel::Wr => "wr",
            Rel::Rw => "rw",
            Rel::Rwp => "rwp",
            Rel::Process => "process",
            Rel::Realtime => "realtime",
        }
    }
}

/// A set of relations, as a bit mask.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct RelSet(pub u8);

impl RelSet {
    pub const EMPTY: RelSet = RelSet(0);

    pub const fn of(rels: &[Rel]) -> RelSet {
        let mut bits = 0;
        let mut i = 0;
        while i < rels.len() {
            bits |= 1 << rels[i] as u8;
            i += 1;
        }
        RelSet(bits)
    }

    pub const fn contains(self, r: Rel) -> bool {
        self.0 & (1 << r as u8) != 0
    }

    pub const fn union(self, other: RelSet) -> RelSet {
        RelSet(self.0 | other.0)
    }
}

/// A version of a key as a step of an explanation names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Version {
    /// The initial state: `:elle.list-append/init` in list-append, `nil` in
    /// rw-register.
    Init,
    /// The version a write of this value (the appended element, the register
    /// value) produced.
    Val(Val),
}

/// One inferred dependency `from → to`, with the witness that explains it.
///
/// The witness fields follow Elle's step maps:
/// - ww: `key`, `value` = `from`'s write, `value2` = `to`'s write;
/// - wr: `key`, `value` = the version written by `from` and read by `to`;
/// - rw: `key`, `value` = the version `from` read, `value2` = `to`'s write;
/// - process: `key`/`value` unused;
/// - realtime: unused.
///
/// `a_mop` / `b_mop` are indices into [`History::mops`] of the micro-ops of
/// `from` and `to` that cause the edge (`u32::MAX` when there is none).
///
/// [`History::mops`]: crate::history::History::mops
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dep {
    pub from: TxnId,
    pub to: TxnId,
    pub rel: Rel,
    pub key: Val,
    pub value: Version,
    pub value2: Version,
    pub a_mop: u32,
    pub b_mop: u32,
}

/// Sentinel for "no micro-op" in [`Dep::a_mop`] / [`Dep::b_mop`].
pub const NO_MOP: u32 = u32::MAX;
