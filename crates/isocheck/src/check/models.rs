//! The consistency models as one table: a [`ModelRow`] per canonical model
//! of Elle's lattice (`elle.consistency-model`), with isocheck's additions
//! and changes. A row holds everything isocheck knows of its model: its
//! names, the definition it is checked by, the subgraph it must keep
//! acyclic (Elle's `cycle-exists-specs`), the anomalies it proscribes
//! (`direct-proscribed-anomalies`) and prohibits besides, whether it allows
//! incompatible list orders, and the models it implies (`models`).
//!
//! Everything else is derived from the rows: the lattice's graphs and
//! closures (`lattice.rs`), the subgraphs the cycle search and the solver
//! decide (`model_graphs::MODEL_GRAPHS`), `--help`'s list of names and the HTML
//! report's drawing of the lattice. `tests/models.rs` checks those two and
//! the README's table of models against the rows.
//!
//! A model is named by [`Model`], so a misspelled name does not compile;
//! its strings (`"PL-3"`, `"serializable"`) are spelled once, in its row.
//! A new model is a variant of [`Model`] and its row of [`ROWS`], plus the
//! function that decides it when that is neither Adya's cycle search nor
//! an existing saturation, and its line in the README's table (the test
//! fails until it has one).

use super::taxonomy::{Subgraph, P, RT, WW, WWR, WWRRW};
use super::weak::Level;
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// A canonical model of the lattice: the index of its row in `ROWS`.
///
/// The models with a subgraph come first, in Elle's `cycle-exists-specs`
/// order, which the cycle search and the reports follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Model {
    /// The model named `read-uncommitted` (see its row for its aliases and definition).
    ReadUncommitted,
    /// The model named `read-committed` (see its row for its aliases and definition).
    ReadCommitted,
    /// The model named `snapshot-isolation` (see its row for its aliases and definition).
    SnapshotIsolation,
    /// The model named `repeatable-read` (see its row for its aliases and definition).
    RepeatableRead,
    /// The model named `serializable` (see its row for its aliases and definition).
    Serializable,
    /// The model named `strong-session-read-uncommitted` (see its row for its aliases and definition).
    StrongSessionReadUncommitted,
    /// The model named `strong-session-read-committed` (see its row for its aliases and definition).
    StrongSessionReadCommitted,
    /// The model named `strong-session-snapshot-isolation` (see its row for its aliases and definition).
    StrongSessionSnapshotIsolation,
    /// The model named `prefix` (see its row for its aliases and definition).
    Prefix,
    /// The model named `strong-session-serializable` (see its row for its aliases and definition).
    StrongSessionSerializable,
    /// The model named `strong-read-uncommitted` (see its row for its aliases and definition).
    StrongReadUncommitted,
    /// The model named `strong-read-committed` (see its row for its aliases and definition).
    StrongReadCommitted,
    /// The model named `strong-snapshot-isolation` (see its row for its aliases and definition).
    StrongSnapshotIsolation,
    /// The model named `strict-serializable` (see its row for its aliases and definition).
    StrictSerializable,
    /// The model named `consistent-view` (see its row for its aliases and definition).
    ConsistentView,
    /// The model named `cursor-stability` (see its row for its aliases and definition).
    CursorStability,
    /// The model named `forward-consistent-view` (see its row for its aliases and definition).
    ForwardConsistentView,
    /// The model named `monotonic-snapshot-read` (see its row for its aliases and definition).
    MonotonicSnapshotRead,
    /// The model named `monotonic-view` (see its row for its aliases and definition).
    MonotonicView,
    /// The model named `update-serializable` (see its row for its aliases and definition).
    UpdateSerializable,
    /// The model named `view-serializable` (see its row for its aliases and definition).
    ViewSerializable,
    /// The model named `1SR` (see its row for its aliases and definition).
    OneCopySerializable,
    /// The model named `session-serializable` (see its row for its aliases and definition).
    SessionSerializable,
    /// The model named `linearizable` (see its row for its aliases and definition).
    Linearizable,
    /// The model named `sequential` (see its row for its aliases and definition).
    Sequential,
    /// The model named `causal` (see its row for its aliases and definition).
    Causal,
    /// The model named `causal-cerone` (see its row for its aliases and definition).
    CausalCerone,
    /// The model named `parallel-snapshot-isolation` (see its row for its aliases and definition).
    ParallelSnapshotIsolation,
    /// The model named `update-atomic` (see its row for its aliases and definition).
    UpdateAtomic,
    /// The model named `read-atomic` (see its row for its aliases and definition).
    ReadAtomic,
    /// The model named `monotonic-atomic-view` (see its row for its aliases and definition).
    MonotonicAtomicView,
    /// The model named `PRAM` (see its row for its aliases and definition).
    Pram,
    /// The model named `read-your-writes` (see its row for its aliases and definition).
    ReadYourWrites,
    /// The model named `monotonic-reads` (see its row for its aliases and definition).
    MonotonicReads,
    /// The model named `monotonic-writes` (see its row for its aliases and definition).
    MonotonicWrites,
    /// The model named `writes-follow-reads` (see its row for its aliases and definition).
    WritesFollowReads,
    /// The model named `read-committed-be` (see its row for its aliases and definition).
    ReadCommittedBe,
}

/// What the check of a model follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Definition {
    /// Adya's definition as Elle decides it: the anomalies the model
    /// proscribes and its `<model>-cycle-exists` graph, decided over every
    /// write order the history allows.
    Adya,
    /// Cerone et al.'s axioms over session order and reads-from, decided
    /// by `check::weak` (Biswas and Enea's saturation).
    Axiomatic(Level),
    /// Cerone et al.'s axioms decided by the dependency-graph
    /// characterisation this text cites: the model's `<model>-cycle-exists`
    /// graph over every write order the history allows, besides the
    /// axiomatic levels it implies.
    Characterised(&'static str),
    /// Cerone et al.'s axioms decided by the dependency-graph
    /// characterisation this text cites where the history fixes every
    /// version order (the cycles it forbids are found among the certain
    /// dependencies); where it leaves one open, a history without a
    /// violation is `:valid? :unknown`.
    OrderKnown(&'static str),
    /// Not decided: a history without a violation is `:valid? :unknown`,
    /// with this reason.
    NotChecked(&'static str),
}

/// One model: everything isocheck knows of it.
#[derive(Clone, Copy, Debug)]
pub struct ModelRow {
    pub model: Model,
    /// Elle's canonical name, the lattice's vertex (`PL-3`).
    pub name: &'static str,
    /// The other names it is known by (Elle's `canonical-model-names`),
    /// the first the one Elle prints (`friendly-model-names`).
    pub aliases: &'static [&'static str],
    pub definition: Definition,
    /// The subgraph it must keep acyclic; its `<name>-cycle-exists`
    /// anomaly is proscribed with [`ModelRow::proscribes`].
    pub graph: Option<Subgraph>,
    /// The anomalies it proscribes besides those of the models it implies
    /// (Elle's `direct-proscribed-anomalies`): finding one rules it out.
    pub proscribes: &'static [&'static str],
    /// isocheck's: anomalies it prohibits (reported, and the verdict
    /// false) without proscribing them in the lattice, so that finding one
    /// rules out the same models as in Elle.
    pub also_prohibits: &'static [&'static str],
    /// isocheck's: whether it allows `incompatible-order` (two reads of a
    /// list, neither a prefix of the other), which Elle takes for a G1a
    /// (see `lattice::anomalies_prohibited_by`).
    pub incompatible_orders: bool,
    /// The models it implies directly (Elle's `models`): a history
    /// satisfying it satisfies them.
    pub implies: &'static [Model],
}

impl Model {
    /// Its row of `ROWS`.
    pub const fn row(self) -> &'static ModelRow {
        &ROWS[self as usize]
    }

    /// Its canonical name.
    pub const fn name(self) -> &'static str {
        self.row().name
    }

    /// The name Elle prints for it (`PL-3 → serializable`).
    pub fn friendly(self) -> &'static str {
        self.row().aliases.first().copied().unwrap_or(self.name())
    }

    /// Every model, in `ROWS` order.
    pub fn all() -> impl Iterator<Item = Model> {
        ROWS.iter().map(|r| r.model)
    }

    /// The model of a canonical name or an alias; `None` for any other
    /// name (Elle throws "Unknown consistency model").
    pub fn parse(name: &str) -> Option<Model> {
        // The lattice's functions parse names on every call.
        static BY_NAME: OnceLock<BTreeMap<&'static str, Model>> = OnceLock::new();
        let by_name = BY_NAME.get_or_init(|| {
            Model::all()
                .flat_map(|m| m.names().map(move |n| (n, m)))
                .collect()
        });
        by_name.get(name).copied()
    }

    /// Every name it is known by: its canonical name and its aliases.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        std::iter::once(self.name()).chain(self.row().aliases.iter().copied())
    }
}

/// A row with nothing known but its model and name; each row of [`ROWS`]
/// fills in the rest.
const fn row(model: Model, name: &'static str) -> ModelRow {
    ModelRow {
        model,
        name,
        aliases: &[],
        definition: Definition::Adya,
        graph: None,
        proscribes: &[],
        also_prohibits: &[],
        incompatible_orders: false,
        implies: &[],
    }
}

/// A model not decided, for this reason.
const fn unchecked(model: Model, name: &'static str, reason: &'static str) -> ModelRow {
    ModelRow {
        definition: Definition::NotChecked(reason),
        ..row(model, name)
    }
}

/// A model of Cerone et al.'s framework decided by its axiomatic level,
/// which allows incompatible list orders (see [`ModelRow::incompatible_orders`]).
const fn axiomatic(model: Model, name: &'static str, level: Level) -> ModelRow {
    ModelRow {
        definition: Definition::Axiomatic(level),
        incompatible_orders: true,
        ..row(model, name)
    }
}

/// isocheck's: the anomalies the session guarantees (read your writes,
/// monotonic reads and writes, writes follow reads, so PRAM) and Biswas and
/// Enea's read committed prohibit besides their own. Their check
/// (`check::weak`) leaves to inference every read that is not of another
/// committed transaction's final write, which no abstract execution has;
/// read atomic prohibits these through Adya's read committed, but these
/// models imply no Adya level above read uncommitted. They are prohibited
/// but not proscribed, so that finding one rules out the same models as in
/// Elle, whose lattice proscribes nothing for the session guarantees: the
/// `:not` boundary of a G1a stays `read-committed` alone.
const SESSION_BASE: &[&str] = &[
    "internal",
    "G1a",
    "G1b",
    "future-read",
    "duplicate-elements",
    "garbage-read",
    "own-write-unseen",
];

/// [`SESSION_BASE`] but `internal`, for Biswas and Enea's read committed:
/// it lets a read disagree with an earlier read of the key in its
/// transaction (a non-repeatable read), which Elle's `internal` rejects;
/// its check finds a read missing the transaction's own write itself
/// (`check::weak::Found::OwnWrite`).
const SESSION_BASE_BUT_INTERNAL: &[&str] = match SESSION_BASE.split_first() {
    Some((_internal, rest)) => rest,
    None => &[],
};

/// isocheck's: the cycles parallel snapshot isolation prohibits besides
/// those it proscribes. Cerone and Gotsman's (PODC 2016) characterisation
/// forbids every cycle of ww, wr and session order with at most one rw
/// edge: Elle's `G1c-process` and `G-single-item-process` (with what
/// implies them), and over unknown write orders strong-session-PL-2's
/// graph. As with [`SESSION_BASE`], they are prohibited but not proscribed,
/// so that finding one rules out the same models as in Elle (whose `:not`
/// for a G-single-item stays consistent-view and repeatable-read); every
/// model implying parallel snapshot isolation prohibits them already.
const PSI_CYCLES: &[&str] = &[
    "G1c-process",
    "G-single-item-process",
    "strong-session-PL-2-cycle-exists",
];

const NO_CURSORS: &str = "Adya's G-cursor needs cursor reads, which histories do not record";
const SINGLE_UNDECIDED: &str = "G-single is searched among the certain dependencies only; \
     orders of writes the history leaves open are not decided for it";

use Model::*;

/// The model table, one row per [`Model`] in its order: the one list of
/// the models, their names, and how each is decided. Every model of the
/// lattice has a row.
pub const ROWS: [ModelRow; 37] = [
    ModelRow {
        aliases: &["read-uncommitted"],
        graph: Some(Subgraph::of(WW)),
        proscribes: &[
            "G0",
            "duplicate-elements",
            "cyclic-versions",
            // isocheck's additions (see lattice::GARBAGE_READ,
            // lattice::OWN_WRITE_UNSEEN).
            "garbage-read",
            "own-write-unseen",
            "future-read",
            // A committed transaction's appends are never undone: two reads
            // neither a prefix of the other saw versions of two chains.
            "incompatible-order",
            // isocheck's, with `--check-timestamps` (check::timestamps): a
            // transaction reported to start after it committed.
            "timestamp-inverted",
        ],
        ..row(ReadUncommitted, "PL-1")
    },
    ModelRow {
        aliases: &["read-committed"],
        graph: Some(Subgraph::of(WWR)),
        proscribes: &["G1"],
        implies: &[ReadUncommitted],
        ..row(ReadCommitted, "PL-2")
    },
    ModelRow {
        aliases: &["snapshot-isolation"],
        graph: Some(Subgraph::extended(WWR)),
        // isocheck's, with `--check-timestamps`: reads of the snapshot the
        // start timestamp names, the first committer wins.
        proscribes: &[
            "internal",
            "G1",
            "G-SI",
            "G-nonadjacent",
            "timestamp-snapshot-read",
            "timestamp-lost-update",
        ],
        // isocheck's: Elle's snapshot-isolation → parallel-snapshot-isolation,
        // prefix moves to strong-session-snapshot-isolation. Cerone et al.'s
        // models include session order and Adya's snapshot isolation does
        // not: one session writing x=2, then x=3, then reading x=2 is
        // snapshot isolated (and serializable) without sessions, yet not
        // read atomic.
        implies: &[
            ForwardConsistentView,
            MonotonicAtomicView,
            MonotonicSnapshotRead,
        ],
        ..row(SnapshotIsolation, "PL-SI")
    },
    ModelRow {
        aliases: &["repeatable-read"],
        graph: Some(Subgraph::of(WWRRW).without_predicate_rw()),
        proscribes: &["G1", "G2-item", "lost-update"],
        implies: &[CursorStability, MonotonicAtomicView],
        ..row(RepeatableRead, "PL-2.99")
    },
    ModelRow {
        aliases: &["serializable", "conflict-serializable"],
        graph: Some(Subgraph::of(WWRRW)),
        // isocheck's, with `--check-timestamps`: each transaction reads
        // what committed before it, in commit-timestamp order.
        proscribes: &[
            "G1",
            "G2",
            "predicate-read-miss",
            "internal",
            "timestamp-serial-read",
        ],
        implies: &[
            RepeatableRead,
            UpdateSerializable,
            SnapshotIsolation,
            ViewSerializable,
        ],
        ..row(Serializable, "PL-3")
    },
    ModelRow {
        aliases: &["strong-session-read-uncommitted"],
        graph: Some(Subgraph::of(WW.union(P))),
        proscribes: &["G0-process"],
        implies: &[ReadUncommitted],
        ..row(StrongSessionReadUncommitted, "strong-session-PL-1")
    },
    ModelRow {
        aliases: &["strong-session-read-committed"],
        graph: Some(Subgraph::of(WWR.union(P))),
        proscribes: &["G1c-process"],
        implies: &[ReadCommitted, StrongSessionReadUncommitted],
        ..row(StrongSessionReadCommitted, "strong-session-PL-2")
    },
    ModelRow {
        graph: Some(Subgraph::extended(WWR.union(P))),
        proscribes: &["internal", "G1-process", "G-nonadjacent-process"],
        implies: &[
            SnapshotIsolation,
            StrongSessionReadCommitted,
            ParallelSnapshotIsolation,
            Prefix,
        ],
        ..row(
            StrongSessionSnapshotIsolation,
            "strong-session-snapshot-isolation",
        )
    },
    // isocheck's: prefix consistency's graph, after Elle's rows it was
    // derived from, so that their cycle-exists reports stay Elle's.
    ModelRow {
        definition: Definition::Characterised(
            "prefix consistency (Cerone et al. 2015: causal consistency and co ; vis ⊆ vis), \
             as Cerone, Gotsman and Yang (CONCUR 2017) characterise it: some version order \
             leaves ((session ∪ wr) ; rw?) ∪ ww acyclic",
        ),
        graph: Some(Subgraph::extended(WWR.union(P)).with_plain_ww()),
        proscribes: &["internal", "G1a"],
        implies: &[CausalCerone],
        ..row(Prefix, "prefix")
    },
    ModelRow {
        graph: Some(Subgraph::of(WWRRW.union(P))),
        proscribes: &["G1-process", "G2-process"],
        implies: &[Serializable, StrongSessionSnapshotIsolation],
        ..row(StrongSessionSerializable, "strong-session-serializable")
    },
    ModelRow {
        aliases: &["strong-read-uncommitted"],
        graph: Some(Subgraph::of(WW.union(RT))),
        proscribes: &["G0-realtime"],
        implies: &[StrongSessionReadUncommitted],
        ..row(StrongReadUncommitted, "strong-PL-1")
    },
    ModelRow {
        aliases: &["strong-read-committed"],
        graph: Some(Subgraph::of(WWR.union(RT))),
        proscribes: &["G1c-realtime"],
        implies: &[StrongSessionReadCommitted, StrongReadUncommitted],
        ..row(StrongReadCommitted, "strong-PL-2")
    },
    ModelRow {
        graph: Some(Subgraph::extended(WWR.union(RT))),
        proscribes: &["internal", "G1-realtime", "G-nonadjacent-realtime"],
        implies: &[StrongSessionSnapshotIsolation, StrongReadCommitted],
        ..row(StrongSnapshotIsolation, "strong-snapshot-isolation")
    },
    ModelRow {
        aliases: &["strong-serializable", "strict-serializable"],
        graph: Some(Subgraph::of(WWRRW.union(RT))),
        proscribes: &["G1", "G1c-realtime", "G2-realtime"],
        implies: &[
            Serializable,
            SnapshotIsolation,
            Linearizable,
            SessionSerializable,
            StrongSessionSerializable,
            StrongSnapshotIsolation,
        ],
        ..row(StrictSerializable, "PL-SS")
    },
    ModelRow {
        aliases: &["consistent-view"],
        proscribes: &["G1", "G-single"],
        implies: &[CursorStability, MonotonicView],
        ..unchecked(ConsistentView, "PL-2+", SINGLE_UNDECIDED)
    },
    ModelRow {
        aliases: &["cursor-stability"],
        proscribes: &["G1", "G-cursor", "lost-update"],
        implies: &[ReadCommitted],
        ..unchecked(CursorStability, "PL-CS", NO_CURSORS)
    },
    ModelRow {
        aliases: &["forward-consistent-view"],
        proscribes: &["G1", "G-SIb"],
        implies: &[ConsistentView],
        ..unchecked(
            ForwardConsistentView,
            "PL-FCV",
            "Adya's G-SIb is not searched",
        )
    },
    ModelRow {
        aliases: &["monotonic-snapshot-read"],
        proscribes: &["G1", "G-MSR"],
        implies: &[ReadCommitted],
        ..unchecked(
            MonotonicSnapshotRead,
            "PL-MSR",
            "Adya's G-MSR is not searched",
        )
    },
    ModelRow {
        aliases: &["monotonic-view"],
        proscribes: &["G1", "G-monotonic"],
        implies: &[ReadCommitted],
        ..unchecked(MonotonicView, "PL-2L", "Adya's G-monotonic is not searched")
    },
    ModelRow {
        aliases: &["update-serializable"],
        proscribes: &["G1", "G-update"],
        implies: &[ForwardConsistentView],
        ..unchecked(
            UpdateSerializable,
            "PL-3U",
            "Adya's G-update is not searched",
        )
    },
    unchecked(
        ViewSerializable,
        "view-serializable",
        "view serializability is not checked",
    ),
    unchecked(
        OneCopySerializable,
        "1SR",
        "one-copy serializability is not checked",
    ),
    ModelRow {
        implies: &[OneCopySerializable],
        ..unchecked(
            SessionSerializable,
            "session-serializable",
            "session serializability is not checked",
        )
    },
    ModelRow {
        implies: &[Sequential],
        ..unchecked(
            Linearizable,
            "linearizable",
            "transactional histories are not checked for linearizability",
        )
    },
    ModelRow {
        implies: &[Causal],
        ..unchecked(
            Sequential,
            "sequential",
            "transactional histories are not checked for sequential consistency",
        )
    },
    // isocheck's: causal is checked as causal-cerone's definition.
    ModelRow {
        implies: &[WritesFollowReads, Pram, CausalCerone],
        ..axiomatic(Causal, "causal", Level::Causal)
    },
    ModelRow {
        proscribes: &["internal", "G1a", "causality-violation"],
        implies: &[ReadAtomic],
        ..axiomatic(CausalCerone, "causal-cerone", Level::Causal)
    },
    ModelRow {
        definition: Definition::OrderKnown(
            "parallel snapshot isolation (Cerone et al. 2015: causal consistency and no \
             concurrent writers of a key), as Cerone and Gotsman (PODC 2016) characterise it: \
             no cycle of ww, wr and session order with at most one rw edge; decided where \
             the history fixes every version order, or where some order satisfies snapshot \
             isolation, which implies it",
        ),
        proscribes: &["internal", "G1a"],
        also_prohibits: PSI_CYCLES,
        implies: &[CausalCerone, UpdateAtomic],
        ..row(ParallelSnapshotIsolation, "parallel-snapshot-isolation")
    },
    ModelRow {
        proscribes: &["lost-update"],
        implies: &[ReadAtomic],
        ..unchecked(
            UpdateAtomic,
            "update-atomic",
            "update atomic (Cerone et al. 2015) is not checked",
        )
    },
    // isocheck's: read atomic implies Biswas and Enea's read committed
    // (see `lattice::axiomatic_levels` for why its check is not run for it).
    ModelRow {
        proscribes: &["internal", "G1a", "future-read", "fractured-read"],
        implies: &[MonotonicAtomicView, ReadCommittedBe],
        ..axiomatic(ReadAtomic, "read-atomic", Level::ReadAtomic)
    },
    // Monotonic atomic view is read atomic's visibility without its session
    // order (Bailis et al.): read atomic implies it, and it allows
    // incompatible orders as read atomic does, though Elle's lattice puts
    // read committed under it.
    ModelRow {
        incompatible_orders: true,
        implies: &[ReadCommitted],
        ..unchecked(
            MonotonicAtomicView,
            "monotonic-atomic-view",
            "monotonic atomic view (Bailis et al. 2013) is not checked",
        )
    },
    ModelRow {
        proscribes: &["PRAM-violation"],
        implies: &[MonotonicReads, MonotonicWrites, ReadYourWrites],
        ..axiomatic(Pram, "PRAM", Level::Pram)
    },
    // The session guarantees (`check::weak`). Read your writes (`so ⊆
    // vis`) is read atomic in Cerone et al.'s framework, where what a
    // transaction read from is visible whole.
    ModelRow {
        proscribes: &["fractured-read"],
        also_prohibits: SESSION_BASE,
        implies: &[ReadCommittedBe],
        ..axiomatic(ReadYourWrites, "read-your-writes", Level::ReadAtomic)
    },
    ModelRow {
        proscribes: &["monotonic-reads-violation"],
        also_prohibits: SESSION_BASE,
        ..axiomatic(MonotonicReads, "monotonic-reads", Level::MonotonicReads)
    },
    ModelRow {
        proscribes: &["monotonic-writes-violation"],
        also_prohibits: SESSION_BASE,
        ..axiomatic(MonotonicWrites, "monotonic-writes", Level::MonotonicWrites)
    },
    ModelRow {
        proscribes: &["writes-follow-reads-violation"],
        also_prohibits: SESSION_BASE,
        ..axiomatic(
            WritesFollowReads,
            "writes-follow-reads",
            Level::WritesFollowReads,
        )
    },
    ModelRow {
        proscribes: &["read-committed-be-violation"],
        also_prohibits: SESSION_BASE_BUT_INTERNAL,
        ..axiomatic(ReadCommittedBe, "read-committed-be", Level::ReadCommitted)
    },
];

/// How many rows have a subgraph: the length of `model_graphs::MODEL_GRAPHS`.
pub const GRAPH_COUNT: usize = {
    let mut n = 0;
    let mut i = 0;
    while i < ROWS.len() {
        if ROWS[i].graph.is_some() {
            n += 1;
        }
        i += 1;
    }
    n
};

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn rows_are_in_model_order() {
        for (i, r) in ROWS.iter().enumerate() {
            assert_eq!(r.model as usize, i, "{}", r.name);
        }
        // The models with a subgraph come first.
        assert!(ROWS[..GRAPH_COUNT].iter().all(|r| r.graph.is_some()));
        assert!(ROWS[GRAPH_COUNT..].iter().all(|r| r.graph.is_none()));
    }

    #[test]
    fn every_name_is_one_model() {
        let names: Vec<&str> = Model::all().flat_map(Model::names).collect();
        let distinct: BTreeSet<&str> = names.iter().copied().collect();
        assert_eq!(names.len(), distinct.len(), "a name names two models");
        for m in Model::all() {
            for name in m.names() {
                assert_eq!(Model::parse(name), Some(m), "{name}");
            }
        }
        assert_eq!(Model::parse("bogus"), None);
        assert_eq!(Serializable.friendly(), "serializable");
        assert_eq!(StrictSerializable.friendly(), "strong-serializable");
        assert_eq!(Prefix.friendly(), "prefix");
    }

    #[test]
    fn a_model_is_decided_by_its_graph_or_its_definition() {
        for r in &ROWS {
            let graph = matches!(
                r.definition,
                Definition::Adya | Definition::Characterised(_)
            );
            assert_eq!(r.graph.is_some(), graph, "{}", r.name);
            // An axiomatic model allows incompatible list orders.
            if let Definition::Axiomatic(_) = r.definition {
                assert!(r.incompatible_orders, "{}", r.name);
            }
            assert!(!r.implies.contains(&r.model), "{}", r.name);
        }
        assert_eq!(
            SESSION_BASE_BUT_INTERNAL,
            &SESSION_BASE[1..],
            "only internal is left out"
        );
    }
}
