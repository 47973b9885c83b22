//! Axiomatic weak models over session order and reads-from: read atomic
//! and causal consistency as Cerone, Bernardi and Gotsman (CONCUR 2015)
//! define them, read committed as Biswas and Enea (OOPSLA 2019) do, and
//! Terry et al.'s session guarantees (monotonic reads, monotonic writes,
//! writes follow reads; read your writes is read atomic here) and PRAM
//! lifted to transactions in the same framework, all decided by the
//! saturation of Biswas and Enea.
//!
//! A history satisfies a [`Level`] when some total commit order contains
//! session order (`so`) and reads-from (`wr`), and every read returns the
//! commit-latest write of the transactions it sees: for read atomic, those
//! one `so` or `wr` step before it; for causal consistency, every
//! transaction before it in `(so ∪ wr)+`; for the others, as [`Level`]
//! says (read committed's visibility is per read, not per transaction). As in Biswas and Enea's framework the commit order always contains
//! `so`, so Terry et al.'s write-order clauses (monotonic writes orders a
//! session's writes) hold by construction, and a session cannot read its
//! own future under any level. What it sees does not depend on
//! the commit order, so the edges every such order must have can be
//! computed outright (a seen writer of the key commits before the version
//! read) and the history satisfies the level iff they close no cycle with
//! `so`, `wr` and the order list reads show. No version order has to be
//! guessed, so no solver is involved, whatever the history leaves unknown.
//!
//! List-append reads are all the appends the reader sees, in commit order:
//! a seen append missing from the list is a violation by itself.
//!
//! Owns the levels, their anomalies ([`Level::anomaly`]) and their
//! witnesses ([`Violation`]); `facts.rs` reads the history, `saturate.rs`
//! decides, `choices.rs` decides over the writer choices of reads of a
//! value written more than once.

mod choices;
mod clocks;
mod facts;
mod follow;
mod saturate;

pub use choices::{assignments, check_over_choices, MAX_ASSIGNMENTS};

use crate::history::{History, TxnId};
use facts::Facts;

/// An axiomatic level. Each is a rule for which transactions a
/// transaction sees (its visibility); all include the writers it read from
/// (Cerone et al.'s atomic visibility: a transaction's writes are seen
/// whole). The order is a linear extension of [`Level::implies`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// Biswas and Enea's read committed (`wr ; po`): a read sees the
    /// transactions an earlier read of its own transaction read from. It
    /// includes session order as all their levels do, through the commit
    /// order (`so ∪ wr ⊆ co`): a transaction that reads `x` twice cannot
    /// go back to a version its session overwrote, which Adya's read
    /// committed (Elle's `read-committed`) allows. Weaker than read
    /// atomic, which sees the session's past and what every read of the
    /// transaction read from.
    ReadCommitted,
    /// Cerone et al.'s read atomic (Biswas and Enea's RA): a transaction
    /// sees the whole of every transaction one `so` or `wr` step before it.
    /// It is also read your writes (`so ⊆ vis`) in this framework, where
    /// what a transaction read from is always visible.
    ReadAtomic,
    /// Terry et al.'s monotonic reads (Viotti and Vukolić's
    /// `vis ; so ⊆ vis`): a transaction sees what every transaction before
    /// it in its session read from.
    MonotonicReads,
    /// Terry et al.'s monotonic writes: a transaction that sees a write
    /// sees every write before it in the writer's session (`so ; vis ⊆
    /// vis`).
    MonotonicWrites,
    /// Terry et al.'s writes follow reads: when a session has read `T1`'s
    /// write, whoever sees a transaction the session ran since (or the
    /// reading one, whose writes are installed after its reads) sees `T1`
    /// (`wr ; so* ; vis ⊆ vis`; the order half, `T1` committing before
    /// those writes, holds as the commit order contains `so ∪ wr`). The
    /// least such visibility is `wr ; (so* ; wr)*`: paths of session-order
    /// and reads-from steps that begin and end with a reads-from step.
    WritesFollowReads,
    /// Pipelined RAM: read your writes, monotonic reads and monotonic
    /// writes together (`so*; (so ∪ wr); so*`): a session sees its own
    /// past, and every session's writes in their session order up to what
    /// it has read.
    Pram,
    /// Cerone et al.'s causal consistency (Biswas and Enea's CC): it sees
    /// everything before it in `(so ∪ wr)+`.
    Causal,
}

impl Level {
    pub const ALL: [Level; 7] = [
        Level::ReadCommitted,
        Level::ReadAtomic,
        Level::MonotonicReads,
        Level::MonotonicWrites,
        Level::WritesFollowReads,
        Level::Pram,
        Level::Causal,
    ];

    /// Whether a history satisfying this level satisfies `weaker`: what
    /// `weaker` makes visible, this level does too.
    pub fn implies(self, weaker: Level) -> bool {
        use Level::*;
        self == weaker
            || self == Causal
            || (self == Pram
                && matches!(
                    weaker,
                    ReadCommitted | ReadAtomic | MonotonicReads | MonotonicWrites
                ))
            || (self == ReadAtomic && weaker == ReadCommitted)
    }

    /// The anomaly a violation of this level (and of no weaker one) is.
    pub fn anomaly(self) -> &'static str {
        match self {
            Level::ReadCommitted => "read-committed-be-violation",
            Level::ReadAtomic => "fractured-read",
            Level::MonotonicReads => "monotonic-reads-violation",
            Level::MonotonicWrites => "monotonic-writes-violation",
            Level::WritesFollowReads => "writes-follow-reads-violation",
            Level::Pram => "PRAM-violation",
            Level::Causal => "causality-violation",
        }
    }

    /// The definition followed, for the report.
    pub fn definition(self) -> &'static str {
        match self {
            Level::ReadCommitted => {
                "read committed (Biswas and Enea 2019): a read sees all of each transaction \
                 an earlier read of its transaction read from; the commit order contains \
                 session order and reads-from"
            }
            Level::ReadAtomic => {
                "read atomic (Cerone et al. 2015; Biswas and Enea 2019's RA): a transaction \
                 sees all of each transaction one session-order or read-from step before it"
            }
            Level::MonotonicReads => {
                "monotonic reads (Terry et al. 1994, over transactions): a transaction sees \
                 all of each transaction read from by it or by an earlier transaction of its \
                 session"
            }
            Level::MonotonicWrites => {
                "monotonic writes (Terry et al. 1994, over transactions): a transaction sees \
                 all of each transaction it read from and of every transaction before that \
                 one in its session"
            }
            Level::WritesFollowReads => {
                "writes follow reads (Terry et al. 1994, over transactions): a transaction \
                 sees all of each transaction it read from and, transitively, of each \
                 transaction read from by that one or by an earlier transaction of its session"
            }
            Level::Pram => {
                "PRAM (Lipton and Sandberg 1988; read your writes, monotonic reads and \
                 monotonic writes): a transaction sees all of its session's earlier \
                 transactions, of each transaction it or they read from, and of every \
                 transaction before those in their sessions"
            }
            Level::Causal => {
                "causal consistency (Cerone et al. 2015; Biswas and Enea 2019's CC): a \
                 transaction sees all of each transaction before it in session order and \
                 read-from, transitively"
            }
        }
    }
}

/// Why one transaction must commit before another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Why {
    /// The same session ran `from` first.
    #[default]
    Session,
    /// `to`'s read (a micro-op index) observed `from`'s write.
    ReadFrom { mop: u32 },
    /// A list read (micro-op `mop`) shows `from`'s append before `to`'s.
    ListOrder { mop: u32 },
    /// `reader` sees `from`, which writes the key its read `mop` takes from
    /// `to`: the version read must be the later one.
    Sees { reader: TxnId, mop: u32 },
}

/// One edge of a cycle: `from` commits before `to`, because of `why`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    pub from: TxnId,
    pub to: TxnId,
    pub why: Why,
}

/// What rules a level out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    /// `reader` sees `writer` (through the session-order and reads-from
    /// steps `seen`), whose write of the key its read `mop` does not show:
    /// a list without the element, or the initial version.
    Missed {
        reader: TxnId,
        mop: u32,
        writer: TxnId,
        seen: Vec<Step>,
    },
    /// No commit order has all these edges.
    Cycle(Vec<Step>),
    /// `reader`'s read `mop` does not show the reader's own earlier write
    /// of the key (read committed checks this itself, as it allows what
    /// else Elle's `internal` rejects: a read disagreeing with an earlier
    /// one).
    OwnWrite { reader: TxnId, mop: u32 },
}

/// A violation of a level.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub level: Level,
    pub found: Found,
    /// Where some read's writer is a choice ([`check_over_choices`]): the
    /// choice `found` is of, the level being violated under every one.
    pub chosen: Option<Chosen>,
}

/// The writers chosen for the reads of several possible writers, in one of
/// the assignments a violation holds under.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chosen {
    /// How many assignments there were: each violates the level.
    pub assignments: u64,
    /// The `(reader, writer)` of each such read in this one.
    pub reads_from: Vec<(TxnId, TxnId)>,
}

impl Violation {
    pub fn name(&self) -> &'static str {
        self.level.anomaly()
    }
}

/// Checks the levels and returns the violations of the weakest ones
/// violated: a violation of a level violates every level implying it, and
/// is named by the weakest. The strongest are decided first, since when
/// one holds so do the levels it implies (the usual case, in one sweep).
/// The check itself hands inference's sources on ([`check_with_sources`]);
/// tests call this.
#[cfg_attr(not(any(test, feature = "internals")), allow(dead_code))]
pub fn check(history: &History, levels: &[Level]) -> Vec<Violation> {
    check_with_sources(history, levels, &[])
}

/// [`check`], with the writers inference found for every read
/// ([`crate::infer::Inference::read_sources`]; empty: none).
pub fn check_with_sources(
    history: &History,
    levels: &[Level],
    sources: &[TxnId],
) -> Vec<Violation> {
    weakest(violations(history, levels, sources))
}

/// Every level of `levels` that `history` violates, each with its own
/// witness, where [`check_with_sources`] keeps the weakest: a level not
/// among them holds.
fn violations(history: &History, levels: &[Level], sources: &[TxnId]) -> Vec<Violation> {
    let mut levels = levels.to_vec();
    levels.sort_unstable_by(|a, b| b.cmp(a));
    levels.dedup();
    if levels.is_empty() {
        return Vec::new();
    }
    let runs_wanted = levels.iter().any(|&l| l != Level::ReadCommitted);
    let facts = Facts::of(history, sources, runs_wanted);
    let mut held: Vec<Level> = Vec::new();
    let mut violated: Vec<Violation> = Vec::new();
    for level in levels {
        if held.iter().any(|h| h.implies(level)) {
            continue;
        }
        match saturate::decide(&facts, level) {
            None => held.push(level),
            Some(found) => violated.push(Violation {
                level,
                found,
                chosen: None,
            }),
        }
    }
    violated
}

/// The violations of `violated` whose level implies no other's: a
/// violation of a level violates every level implying it, and is named by
/// the weakest.
fn weakest(mut violated: Vec<Violation>) -> Vec<Violation> {
    let levels: Vec<Level> = violated.iter().map(|v| v.level).collect();
    let stronger = |v: &Violation| (levels.iter()).any(|&w| w != v.level && v.level.implies(w));
    violated.retain(|v| !stronger(v));
    violated
}

#[cfg(test)]
mod tests;
