//! Axiomatic weak models over session order and reads-from: read atomic
//! and causal consistency as Cerone, Bernardi and Gotsman (CONCUR 2015)
//! define them, decided by the saturation of Biswas and Enea (OOPSLA 2019).
//!
//! A history satisfies a [`Level`] when some total commit order contains
//! session order (`so`) and reads-from (`wr`), and every read returns the
//! commit-latest write of the transactions it sees: for read atomic, those
//! one `so` or `wr` step before it; for causal consistency, every
//! transaction before it in `(so ∪ wr)+`. What it sees does not depend on
//! the commit order, so the edges every such order must have can be
//! computed outright (a seen writer of the key commits before the version
//! read) and the history satisfies the level iff they close no cycle with
//! `so`, `wr` and the order list reads show. No version order has to be
//! guessed, so no solver is involved, whatever the history leaves unknown.
//!
//! List-append reads are all the appends the reader sees, in commit order:
//! a seen append missing from the list is a violation by itself.
//!
//! Owns the two levels, their anomalies ([`Level::anomaly`]) and their
//! witnesses ([`Violation`]); `facts.rs` reads the history, `saturate.rs`
//! decides.

mod facts;
mod saturate;

use crate::history::{History, TxnId};
use facts::Facts;

/// An axiomatic level, weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// Cerone et al.'s read atomic (Biswas and Enea's RA): a transaction
    /// sees the whole of every transaction one `so` or `wr` step before it.
    ReadAtomic,
    /// Cerone et al.'s causal consistency (Biswas and Enea's CC): it sees
    /// everything before it in `(so ∪ wr)+`.
    Causal,
}

impl Level {
    pub const ALL: [Level; 2] = [Level::ReadAtomic, Level::Causal];

    /// The anomaly a violation of this level (and of no weaker one) is.
    pub fn anomaly(self) -> &'static str {
        match self {
            Level::ReadAtomic => "fractured-read",
            Level::Causal => "causality-violation",
        }
    }

    /// The definition followed, for the report.
    pub fn definition(self) -> &'static str {
        match self {
            Level::ReadAtomic => {
                "read atomic (Cerone et al. 2015; Biswas and Enea 2019's RA): a transaction \
                 sees all of each transaction one session-order or read-from step before it"
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
}

/// A violation of a level.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub level: Level,
    pub found: Found,
}

impl Violation {
    pub fn name(&self) -> &'static str {
        self.level.anomaly()
    }
}

/// Checks the levels and returns the violation of the weakest one violated:
/// a violation of a weaker level violates the stronger ones too, and is
/// named by the weakest. The strongest is decided first, since when it
/// holds so do the others (the usual case, in half the time).
pub fn check(history: &History, levels: &[Level]) -> Option<Violation> {
    let mut levels = levels.to_vec();
    levels.sort_unstable();
    levels.dedup();
    let (&strongest, weaker) = levels.split_last()?;
    let facts = Facts::of(history);
    let decide = |level| saturate::decide(&facts, level).map(|found| Violation { level, found });
    let violation = decide(strongest)?;
    Some(weaker.iter().find_map(|&l| decide(l)).unwrap_or(violation))
}

#[cfg(test)]
mod tests;
