//! Every model name `isocheck check --help` lists, with the definition the
//! oracle decides it by (from README.md's model table and the literature,
//! not from the checker's tables), and the implications between models
//! the lattice property holds the checker to.

use super::adya::{self, Graph};
use super::axiomatic::{self, Level};
use super::history::{History, Kind};
use super::reads::{witnesses, Reading, Search};
use super::serial::{self, Order, Serial};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Def {
    Serial(Serial),
    Adya(Graph),
    Axiomatic(Level),
    /// isocheck does not decide it (`model-not-checked`): it may never
    /// answer `:valid? true`, and `false` only if a weaker model fails.
    Unchecked,
}

/// The definition of each model name.
pub fn definition(name: &str) -> Option<Def> {
    use Order::*;
    let serial = |snapshot, order| Def::Serial(Serial { snapshot, order });
    let adya = |wr, rw, order| {
        Def::Adya(Graph {
            wr,
            rw,
            order,
            snapshot: false,
        })
    };
    Some(match name {
        "read-uncommitted" | "PL-1" => adya(false, false, None),
        "strong-session-read-uncommitted" | "strong-session-PL-1" => adya(false, false, Session),
        "strong-read-uncommitted" | "strong-PL-1" => adya(false, false, Realtime),
        "read-committed" | "PL-2" => adya(true, false, None),
        "strong-session-read-committed" | "strong-session-PL-2" => adya(true, false, Session),
        "strong-read-committed" | "strong-PL-2" => adya(true, false, Realtime),
        // G2-item is G2 without predicate reads.
        "repeatable-read" | "PL-2.99" => adya(true, true, None),
        "serializable" | "PL-3" | "conflict-serializable" => serial(false, None),
        "strong-session-serializable" => serial(false, Session),
        "strict-serializable" | "strong-serializable" | "PL-SS" => serial(false, Realtime),
        "snapshot-isolation" | "PL-SI" => serial(true, None),
        "strong-session-snapshot-isolation" => serial(true, Session),
        "strong-snapshot-isolation" => serial(true, Realtime),
        "read-committed-be" => Def::Axiomatic(Level::ReadCommitted),
        "read-atomic" | "read-your-writes" => Def::Axiomatic(Level::ReadAtomic),
        "causal-cerone" | "causal" => Def::Axiomatic(Level::Causal),
        "monotonic-reads" => Def::Axiomatic(Level::MonotonicReads),
        "monotonic-writes" => Def::Axiomatic(Level::MonotonicWrites),
        "PRAM" => Def::Axiomatic(Level::Pram),
        "writes-follow-reads" => Def::Axiomatic(Level::WritesFollowReads),
        "prefix" => Def::Axiomatic(Level::Prefix),
        "parallel-snapshot-isolation" => Def::Axiomatic(Level::ParallelSnapshotIsolation),
        "update-atomic"
        | "monotonic-atomic-view"
        | "consistent-view"
        | "PL-2+"
        | "cursor-stability"
        | "PL-CS"
        | "monotonic-view"
        | "PL-2L"
        | "monotonic-snapshot-read"
        | "PL-MSR"
        | "forward-consistent-view"
        | "PL-FCV"
        | "update-serializable"
        | "PL-3U"
        | "view-serializable"
        | "1SR"
        | "session-serializable"
        | "linearizable"
        | "sequential" => Def::Unchecked,
        _ => return Option::None,
    })
}

/// The oracle's answer for a definition (`None`: not defined here, or too
/// many writer choices or version orders to try).
pub fn decide(h: &History, def: Def) -> Option<bool> {
    decide_by(h, def, Search::Choices)
}

/// The answer over the witnesses `search` tries (the self-checks compare
/// them).
pub fn decide_by(h: &History, def: Def, search: Search) -> Option<bool> {
    let reading = match def {
        Def::Adya(g) if !g.wr => Reading::Dirty,
        _ => Reading::Committed,
    };
    decide_reading(h, def, reading, search)
}

/// Whether some witness of `reading` satisfies `def`.
fn decide_reading(h: &History, def: Def, reading: Reading, search: Search) -> Option<bool> {
    let mut undecided = false;
    // Serial executions compare values: one witness per committed set.
    let mut tried = std::collections::BTreeSet::new();
    for f in witnesses(h, reading, search)? {
        if matches!(def, Def::Serial(_)) && !tried.insert(f.committed.clone()) {
            continue;
        }
        let holds = match def {
            Def::Serial(m) => Some(serial::holds(&f, m)),
            Def::Adya(g) => adya::holds(&f, g),
            Def::Axiomatic(l) => Some(axiomatic::holds(&f, l)),
            Def::Unchecked => return Option::None,
        };
        match holds {
            Some(true) => return Some(true),
            Some(false) => {}
            Option::None => undecided = true,
        }
    }
    (!undecided).then_some(false)
}

/// Read uncommitted's family decided as isocheck (and Elle) read the
/// history: an indeterminate transaction some `:ok` read observed (its
/// writer as chosen) is committed. The definition lets it abort (a dirty
/// read); [`decide`] does.
pub fn decide_observed_committed(h: &History, def: Def) -> Option<bool> {
    match def {
        Def::Adya(_) => decide_reading(h, def, Reading::DirtyObserved, Search::Choices),
        _ => Option::None,
    }
}

/// `(stronger, weaker)`: a history valid under the first is valid under
/// the second. From Elle's lattice (Adya; Cerone et al.; Biswas and Enea;
/// Terry et al.), with isocheck's documented changes (README: `causal` is
/// checked as `causal-cerone`; `strong-session-snapshot-isolation`, not
/// `snapshot-isolation`, implies `prefix` and parallel snapshot
/// isolation, as Cerone et al.'s snapshot isolation includes sessions).
pub const IMPLIES: &[(&str, &str)] = &[
    ("strict-serializable", "serializable"),
    ("strict-serializable", "strong-session-serializable"),
    ("strict-serializable", "strong-snapshot-isolation"),
    ("strict-serializable", "session-serializable"),
    ("strict-serializable", "linearizable"),
    ("strong-session-serializable", "serializable"),
    (
        "strong-session-serializable",
        "strong-session-snapshot-isolation",
    ),
    ("serializable", "snapshot-isolation"),
    ("serializable", "repeatable-read"),
    ("serializable", "view-serializable"),
    ("serializable", "update-serializable"),
    ("update-serializable", "forward-consistent-view"),
    ("forward-consistent-view", "consistent-view"),
    ("consistent-view", "cursor-stability"),
    ("consistent-view", "monotonic-view"),
    ("monotonic-view", "read-committed"),
    ("cursor-stability", "read-committed"),
    ("repeatable-read", "cursor-stability"),
    ("repeatable-read", "monotonic-atomic-view"),
    ("snapshot-isolation", "forward-consistent-view"),
    ("snapshot-isolation", "monotonic-atomic-view"),
    ("snapshot-isolation", "monotonic-snapshot-read"),
    ("monotonic-snapshot-read", "read-committed"),
    ("read-committed", "read-uncommitted"),
    (
        "strong-snapshot-isolation",
        "strong-session-snapshot-isolation",
    ),
    ("strong-snapshot-isolation", "strong-read-committed"),
    ("strong-session-snapshot-isolation", "snapshot-isolation"),
    (
        "strong-session-snapshot-isolation",
        "strong-session-read-committed",
    ),
    ("strong-session-snapshot-isolation", "prefix"),
    (
        "strong-session-snapshot-isolation",
        "parallel-snapshot-isolation",
    ),
    ("strong-read-committed", "strong-session-read-committed"),
    ("strong-read-committed", "strong-read-uncommitted"),
    ("strong-session-read-committed", "read-committed"),
    (
        "strong-session-read-committed",
        "strong-session-read-uncommitted",
    ),
    ("strong-read-uncommitted", "strong-session-read-uncommitted"),
    ("strong-session-read-uncommitted", "read-uncommitted"),
    ("prefix", "causal-cerone"),
    ("parallel-snapshot-isolation", "causal-cerone"),
    ("parallel-snapshot-isolation", "update-atomic"),
    ("update-atomic", "read-atomic"),
    ("causal", "causal-cerone"),
    ("causal-cerone", "causal"),
    ("causal-cerone", "read-atomic"),
    ("causal", "PRAM"),
    ("causal", "writes-follow-reads"),
    ("PRAM", "monotonic-reads"),
    ("PRAM", "monotonic-writes"),
    ("PRAM", "read-your-writes"),
    ("read-atomic", "read-your-writes"),
    ("read-atomic", "monotonic-atomic-view"),
    ("linearizable", "sequential"),
    ("sequential", "causal"),
    ("session-serializable", "1SR"),
    // Biswas and Enea: read atomic implies read committed. So does every
    // level whose visibility is whole transactions and contains read-from
    // (a read sees at least what read committed shows it, and EXT over a
    // larger set of writers is stronger).
    ("read-atomic", "read-committed-be"),
    ("monotonic-reads", "read-committed-be"),
    ("monotonic-writes", "read-committed-be"),
    ("writes-follow-reads", "read-committed-be"),
];

/// Implications for registers only: an axiomatic witness's commit order
/// contains session order and read-from, and taken as the version order
/// it leaves Adya's read committed graph with session order acyclic, with
/// no aborted or intermediate read. For lists a version is a whole list,
/// and two readers may see different sets of appends (README), which no
/// one version order shows.
pub const IMPLIES_FOR_REGISTERS: &[(&str, &str)] = &[
    ("read-committed-be", "strong-session-read-committed"),
    // Elle's lattice; for lists it would make read atomic imply Adya's
    // read committed through it.
    ("monotonic-atomic-view", "read-committed"),
];

/// Every `(stronger, weaker)` pair of the transitive closure for `kind`.
pub fn implications(kind: Kind) -> Vec<(&'static str, &'static str)> {
    let mut pairs: Vec<(&str, &str)> = IMPLIES.to_vec();
    if kind == Kind::Register {
        pairs.extend_from_slice(IMPLIES_FOR_REGISTERS);
    }
    loop {
        let mut more = Vec::new();
        for &(a, b) in &pairs {
            for &(c, d) in &pairs {
                if b == c && a != d && !pairs.contains(&(a, d)) && !more.contains(&(a, d)) {
                    more.push((a, d));
                }
            }
        }
        if more.is_empty() {
            return pairs;
        }
        pairs.extend(more);
    }
}
