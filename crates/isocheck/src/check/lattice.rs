//! Elle's consistency-model lattice (`elle.consistency-model`, Elle 0.2.x).
//!
//! The static tables below mirror the Clojure maps verbatim: the anomaly
//! implication DAG (`implied-anomalies`), the search-order DAG
//! (`anomaly-severity-graph`), the model-name aliases
//! (`canonical-model-names`), the model implication DAG (`models`) and the
//! anomalies each model directly proscribes (`direct-proscribed-anomalies`),
//! with isocheck's additions: read-uncommitted proscribes
//! [`GARBAGE_READ`], [`OWN_WRITE_UNSEEN`] and `future-read`, which no
//! execution produces at any level.
//! The graphs and closures over them are built once, on first use.
//!
//! Names are plain strings without Clojure's leading colon (`"G-single-item"`,
//! `"PL-SI"`, `"strong-session-snapshot-isolation"`).
//!
//! As in Elle, the vertices of `models` and the keys of
//! `direct-proscribed-anomalies` are canonicalised, so `serializable`,
//! `conflict-serializable` and `PL-3` are one vertex whose edges (and
//! proscribed-anomaly lists) are merged.
//!
//! All closures are reachability sets that include their start vertices
//! (Bifurcan's `Graphs/bfsVertices`). A name that is not a vertex of a graph
//! simply has no edges there, as with Elle's `g/in`/`g/out`.

use super::weak::Level;
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

/// An adjacency table: each vertex with its successors, as in Elle's
/// `{:a [:b :c]}` maps.
type Table = &'static [(&'static str, &'static [&'static str])];

/// `implied-anomalies`: `a → b` means an `a` anomaly is also a `b` anomaly.
const IMPLIED_ANOMALIES: Table = &[
    ("G0", &["G1c", "G0-process"]),
    ("G0-process", &["G1c-process", "G0-realtime"]),
    ("G0-realtime", &["G1c-realtime"]),
    ("G1a", &["G1"]),
    ("G1b", &["G1"]),
    ("G1c", &["G1", "G1c-process"]),
    ("G1c-process", &["G1c-realtime", "G1-process"]),
    ("G1c-realtime", &["G1-realtime"]),
    ("G1", &["G1-process"]),
    ("G1-process", &["G1-realtime"]),
    (
        "G-single-item",
        &["G-single", "G-single-item-process", "G-nonadjacent-item"],
    ),
    (
        "G-single-item-process",
        &[
            "G-single-process",
            "G-single-item-realtime",
            "G-nonadjacent-item-process",
        ],
    ),
    (
        "G-single-item-realtime",
        &["G-single-realtime", "G-nonadjacent-item-realtime"],
    ),
    ("G-single", &["G-nonadjacent", "GSIb", "G-single-process"]),
    (
        "G-single-process",
        &["G-nonadjacent-process", "G-single-realtime"],
    ),
    ("G-single-realtime", &["G-nonadjacent-realtime"]),
    (
        "G-nonadjacent-item",
        &["G-nonadjacent", "G2-item", "G-nonadjacent-item-process"],
    ),
    (
        "G-nonadjacent-item-process",
        &[
            "G-nonadjacent-process",
            "G2-item-process",
            "G-nonadjacent-item-realtime",
        ],
    ),
    (
        "G-nonadjacent-item-realtime",
        &["G2-item-realtime", "G-nonadjacent-realtime"],
    ),
    ("G-nonadjacent", &["G2", "G-nonadjacent-process"]),
    (
        "G-nonadjacent-process",
        &["G2-process", "G-nonadjacent-realtime"],
    ),
    ("G-nonadjacent-realtime", &["G2-realtime"]),
    ("G2", &["G2-process"]),
    ("G2-item", &["G2", "G2-item-process"]),
    ("G2-item-process", &["G2-process", "G2-item-realtime"]),
    ("G2-item-realtime", &["G2-realtime"]),
    ("G2-process", &["G2-realtime"]),
    ("GSIa", &["GSI"]),
    ("GSIb", &["GSI"]),
    ("incompatible-order", &["G1a"]),
    ("future-read", &["G1c"]),
    ("dirty-update", &["G1a"]),
    ("lost-update", &["write-skew", "G2-item"]),
    ("write-skew", &["G2"]),
    // isocheck's: the axiomatic levels' anomalies (`check::weak`). Read
    // atomic (= read your writes), monotonic reads and monotonic writes
    // each see less than PRAM, which sees less than causal consistency;
    // Biswas and Enea's read committed sees less than read atomic, writes
    // follow reads less than causal consistency.
    ("read-committed-be-violation", &["fractured-read"]),
    ("writes-follow-reads-violation", &["causality-violation"]),
    ("fractured-read", &["PRAM-violation"]),
    ("monotonic-reads-violation", &["PRAM-violation"]),
    ("monotonic-writes-violation", &["PRAM-violation"]),
    ("PRAM-violation", &["causality-violation"]),
];

/// `anomaly-severity-graph`: extra "is worse than" edges used only to order
/// the cycle search (see [`anomaly_depth`]).
const ANOMALY_SEVERITY: Table = &[
    ("G0", &["G1c"]),
    ("G0-process", &["G1c-process"]),
    ("G0-realtime", &["G1c-realtime"]),
    ("G1c", &["G-single", "G2-item"]),
    ("G1c-process", &["G-single-process", "G2-item-process"]),
    ("G1c-realtime", &["G-single-realtime", "G2-item-realtime"]),
    ("G2", &["G0-process"]),
    ("G2-process", &["G0-realtime"]),
];

/// `canonical-model-names`: friendly name → canonical name.
const CANONICAL_MODEL_NAMES: &[(&str, &str)] = &[
    ("consistent-view", "PL-2+"),
    ("conflict-serializable", "PL-3"),
    ("cursor-stability", "PL-CS"),
    ("forward-consistent-view", "PL-FCV"),
    ("monotonic-snapshot-read", "PL-MSR"),
    ("monotonic-view", "PL-2L"),
    ("read-committed", "PL-2"),
    ("read-uncommitted", "PL-1"),
    ("repeatable-read", "PL-2.99"),
    ("serializable", "PL-3"),
    ("snapshot-isolation", "PL-SI"),
    ("strict-serializable", "PL-SS"),
    ("strong-serializable", "PL-SS"),
    ("update-serializable", "PL-3U"),
    ("strong-session-read-uncommitted", "strong-session-PL-1"),
    ("strong-session-read-committed", "strong-session-PL-2"),
    ("strong-read-uncommitted", "strong-PL-1"),
    ("strong-read-committed", "strong-PL-2"),
];

/// `friendly-model-names`: the inverse of [`CANONICAL_MODEL_NAMES`], with
/// `PL-3 → serializable` forced and `PL-SS → strong-serializable` (what Elle
/// prints).
const FRIENDLY_MODEL_NAMES: &[(&str, &str)] = &[
    ("PL-2+", "consistent-view"),
    ("PL-3", "serializable"),
    ("PL-CS", "cursor-stability"),
    ("PL-FCV", "forward-consistent-view"),
    ("PL-MSR", "monotonic-snapshot-read"),
    ("PL-2L", "monotonic-view"),
    ("PL-2", "read-committed"),
    ("PL-1", "read-uncommitted"),
    ("PL-2.99", "repeatable-read"),
    ("PL-SI", "snapshot-isolation"),
    ("PL-SS", "strong-serializable"),
    ("PL-3U", "update-serializable"),
    ("strong-session-PL-1", "strong-session-read-uncommitted"),
    ("strong-session-PL-2", "strong-session-read-committed"),
    ("strong-PL-1", "strong-read-uncommitted"),
    ("strong-PL-2", "strong-read-committed"),
];

/// `models`: `a → b` means a history satisfying `a` also satisfies `b`.
/// Names as written in Elle; vertices are canonicalised when built.
const MODELS: Table = &[
    ("causal-cerone", &["read-atomic"]),
    ("consistent-view", &["cursor-stability", "monotonic-view"]),
    ("conflict-serializable", &["view-serializable"]),
    ("cursor-stability", &["read-committed", "PL-2"]),
    ("forward-consistent-view", &["consistent-view"]),
    ("PL-2", &["PL-1"]),
    ("PL-3", &["repeatable-read", "update-serializable"]),
    ("update-serializable", &["forward-consistent-view"]),
    ("monotonic-atomic-view", &["read-committed"]),
    ("monotonic-view", &["PL-2"]),
    ("monotonic-snapshot-read", &["PL-2"]),
    (
        "parallel-snapshot-isolation",
        &["causal-cerone", "update-atomic"],
    ),
    ("prefix", &["causal-cerone"]),
    // isocheck's: read atomic implies Biswas and Enea's read committed
    // (see `axiomatic_levels` for why its check is not run for it).
    (
        "read-atomic",
        &["monotonic-atomic-view", "read-committed-be"],
    ),
    ("read-committed", &["read-uncommitted"]),
    (
        "repeatable-read",
        &["cursor-stability", "monotonic-atomic-view"],
    ),
    ("update-atomic", &["read-atomic"]),
    (
        "serializable",
        &["repeatable-read", "snapshot-isolation", "view-serializable"],
    ),
    ("session-serializable", &["1SR"]),
    // isocheck's: Elle's snapshot-isolation → parallel-snapshot-isolation,
    // prefix moves to strong-session-snapshot-isolation. Cerone et al.'s
    // models include session order and Adya's snapshot isolation does not:
    // one session writing x=2, then x=3, then reading x=2 is snapshot
    // isolated (and serializable) without sessions, yet not read atomic.
    (
        "snapshot-isolation",
        &[
            "forward-consistent-view",
            "monotonic-atomic-view",
            "monotonic-snapshot-read",
        ],
    ),
    (
        "strict-serializable",
        &[
            "PL-3",
            "serializable",
            "linearizable",
            "snapshot-isolation",
            "strong-snapshot-isolation",
            "strong-session-serializable",
        ],
    ),
    ("strong-session-PL-1", &["PL-1"]),
    ("strong-session-PL-2", &["PL-2", "strong-session-PL-1"]),
    ("strong-PL-1", &["strong-session-PL-1"]),
    ("strong-PL-2", &["strong-session-PL-2", "strong-PL-1"]),
    (
        "strong-session-serializable",
        &["serializable", "strong-session-snapshot-isolation"],
    ),
    (
        "strong-session-snapshot-isolation",
        &[
            "snapshot-isolation",
            "strong-session-PL-2",
            "parallel-snapshot-isolation",
            "prefix",
        ],
    ),
    ("strong-serializable", &["session-serializable"]),
    (
        "strong-snapshot-isolation",
        &["strong-session-snapshot-isolation", "strong-PL-2"],
    ),
    ("linearizable", &["sequential"]),
    ("sequential", &["causal"]),
    // isocheck's: causal is checked as causal-cerone's definition.
    ("causal", &["writes-follow-reads", "PRAM", "causal-cerone"]),
    (
        "PRAM",
        &["monotonic-reads", "monotonic-writes", "read-your-writes"],
    ),
    // Read your writes is decided as read atomic (see DEFINITIONS).
    ("read-your-writes", &["read-committed-be"]),
];

/// `direct-proscribed-anomalies`: model → anomalies it forbids on top of the
/// models it implies. Keys as written in Elle; canonicalised when built
/// (`serializable` and `PL-3` merge).
const DIRECT_PROSCRIBED: Table = &[
    ("causal-cerone", &["internal", "G1a", "causality-violation"]),
    ("cursor-stability", &["G1", "G-cursor", "lost-update"]),
    ("monotonic-view", &["G1", "G-monotonic"]),
    ("monotonic-snapshot-read", &["G1", "G-MSR"]),
    ("consistent-view", &["G1", "G-single"]),
    ("forward-consistent-view", &["G1", "G-SIb"]),
    ("parallel-snapshot-isolation", &["internal", "G1a"]),
    (
        "PL-3",
        &["G1", "G2", "predicate-read-miss", "PL-3-cycle-exists"],
    ),
    ("PL-2", &["G1", "PL-2-cycle-exists"]),
    (
        "PL-1",
        &[
            "G0",
            "duplicate-elements",
            "cyclic-versions",
            "PL-1-cycle-exists",
            // isocheck's additions (see GARBAGE_READ, OWN_WRITE_UNSEEN).
            "garbage-read",
            "own-write-unseen",
            "future-read",
            // A committed transaction's appends are never undone: two reads
            // neither a prefix of the other saw versions of two chains.
            "incompatible-order",
        ],
    ),
    // isocheck's: prefix consistency's graph (`taxonomy::MODEL_GRAPHS`).
    ("prefix", &["internal", "G1a", "prefix-cycle-exists"]),
    ("serializable", &["internal"]),
    (
        "snapshot-isolation",
        &[
            "internal",
            "G1",
            "G-SI",
            "G-nonadjacent",
            "PL-SI-cycle-exists",
        ],
    ),
    (
        "read-atomic",
        &["internal", "G1a", "future-read", "fractured-read"],
    ),
    (
        "repeatable-read",
        &["G1", "G2-item", "PL-2.99-cycle-exists", "lost-update"],
    ),
    ("update-atomic", &["lost-update"]),
    (
        "strict-serializable",
        &["G1", "G1c-realtime", "G2-realtime", "PL-SS-cycle-exists"],
    ),
    (
        "strong-session-PL-1",
        &["strong-session-PL-1-cycle-exists", "G0-process"],
    ),
    (
        "strong-session-PL-2",
        &["strong-session-PL-2-cycle-exists", "G1c-process"],
    ),
    ("strong-PL-1", &["strong-PL-1-cycle-exists", "G0-realtime"]),
    ("strong-PL-2", &["strong-PL-2-cycle-exists", "G1c-realtime"]),
    (
        "strong-session-snapshot-isolation",
        &[
            "internal",
            "G1-process",
            "G-nonadjacent-process",
            "strong-session-snapshot-isolation-cycle-exists",
        ],
    ),
    (
        "strong-snapshot-isolation",
        &[
            "internal",
            "G1-realtime",
            "G-nonadjacent-realtime",
            "strong-snapshot-isolation-cycle-exists",
        ],
    ),
    (
        "strong-session-serializable",
        &[
            "G1-process",
            "G2-process",
            "strong-session-serializable-cycle-exists",
        ],
    ),
    ("update-serializable", &["G1", "G-update"]),
    // isocheck's: the session guarantees (`check::weak`); see also
    // SESSION_BASE.
    ("read-your-writes", &["fractured-read"]),
    ("monotonic-reads", &["monotonic-reads-violation"]),
    ("monotonic-writes", &["monotonic-writes-violation"]),
    ("PRAM", &["PRAM-violation"]),
    ("writes-follow-reads", &["writes-follow-reads-violation"]),
    ("read-committed-be", &["read-committed-be-violation"]),
];

/// isocheck's: the anomalies the session guarantees (read your writes,
/// monotonic reads and writes, writes follow reads, so PRAM) and Biswas and
/// Enea's read committed prohibit besides their own. Their check
/// (`check::weak`) leaves to inference every read that is not of another
/// committed transaction's final write, which no abstract execution has;
/// read atomic prohibits these through Adya's read committed, but these
/// models imply no Adya level above read uncommitted. They are prohibited (reported, and the
/// verdict false) but not in [`DIRECT_PROSCRIBED`], so that finding one
/// rules out the same models as in Elle, whose lattice proscribes nothing
/// for the session guarantees: the `:not` boundary of a G1a stays
/// `read-committed` alone.
const SESSION_BASE: &[&str] = &[
    "internal",
    "G1a",
    "G1b",
    "future-read",
    "duplicate-elements",
    "garbage-read",
    "own-write-unseen",
];

/// The models [`SESSION_BASE`] applies to.
const SESSION_MODELS: &[&str] = &[
    "read-your-writes",
    "monotonic-reads",
    "monotonic-writes",
    "writes-follow-reads",
    "read-committed-be",
];

/// The one model [`SESSION_BASE`]'s `internal` does not apply to: Biswas
/// and Enea's read committed lets a read disagree with an earlier read of
/// the key in its transaction (a non-repeatable read), which Elle's
/// `internal` rejects; its check finds a read missing the transaction's
/// own write itself (`check::weak::Found::OwnWrite`).
const REPEATABLE_READS_NOT_REQUIRED: &str = "read-committed-be";

/// isocheck's: two reads of a list, neither a prefix of the other. Elle
/// takes it for a G1a (`implied-anomalies`): under one version order per
/// key, one of the reads saw a version that never existed. In Cerone et
/// al.'s and Biswas and Enea's framework a read shows the appends it sees,
/// in commit order, and two transactions may see different sets (appends
/// 1, 2, 3 in that order; one reader sees 1 and 2, another 1 and 3), so the
/// models below allow it: it is not prohibited when they are all that is
/// asked for, and finding one rules none of them out (Cerone et al.'s
/// update atomic and parallel snapshot isolation allow it too; they are
/// not decided yet). Prefix consistency,
/// where what a transaction sees is a prefix of the commit order, and the
/// models of one order (sequential, snapshot isolation, serializability)
/// still prohibit it.
const INCOMPATIBLE_ORDER: &str = "incompatible-order";

/// The models (canonical names) that allow [`INCOMPATIBLE_ORDER`].
const INCOMPATIBLE_ORDERS_ALLOWED: &[&str] = &[
    // Monotonic atomic view is read atomic's visibility without its session
    // order (Bailis et al.): read atomic implies it.
    "monotonic-atomic-view",
    "read-committed-be",
    "read-atomic",
    "read-your-writes",
    "monotonic-reads",
    "monotonic-writes",
    "writes-follow-reads",
    "PRAM",
    "causal-cerone",
    "causal",
];

/// isocheck's: the cycles parallel snapshot isolation prohibits besides
/// those of its lattice entry. Cerone and Gotsman's (PODC 2016)
/// characterisation forbids every cycle of ww, wr and session order with at
/// most one rw edge: Elle's `G1c-process` and `G-single-item-process` (with
/// what implies them), and over unknown write orders strong-session-PL-2's
/// graph. As with [`SESSION_BASE`], they are prohibited but not in
/// [`DIRECT_PROSCRIBED`], so that finding one rules out the same models as
/// in Elle (whose `:not` for a G-single-item stays consistent-view and
/// repeatable-read); every model implying parallel snapshot isolation
/// prohibits them already.
const PSI_CYCLES: &[&str] = &[
    "G1c-process",
    "G-single-item-process",
    "strong-session-PL-2-cycle-exists",
];

/// isocheck's addition: a committed read of a value no transaction wrote.
/// No database can produce one, so read-uncommitted proscribes it and with
/// it every model implying read-uncommitted. Elle does not detect garbage
/// reads (its own tests read unwritten values): under `--elle-compat`,
/// `check::analyze` leaves them out of Jepsen histories unless asked for.
pub const GARBAGE_READ: &str = "garbage-read";

/// isocheck's addition: a read after its transaction's own write of the
/// key that does not show it. Every model assumes a transaction reads its
/// own writes (Adya's histories; Cerone et al.'s INT axiom), so
/// read-uncommitted proscribes it, as it does `future-read` (a read of what
/// the transaction writes only later), which Elle files under G1c. Elle
/// reports the first as `internal`, which only read atomic and stronger
/// models proscribe: under `--elle-compat` it is left out.
pub const OWN_WRITE_UNSEEN: &str = "own-write-unseen";

/// Anomalies Elle reports that appear in none of the tables above. They are
/// always reportable but prohibited by no model.
pub const EMPTY_TRANSACTION_GRAPH: &str = "empty-transaction-graph";
/// See [`EMPTY_TRANSACTION_GRAPH`].
pub const CYCLE_SEARCH_TIMEOUT: &str = "cycle-search-timeout";

/// isocheck's: a requested model that the check does not decide (see
/// [`definition`]). Like [`CYCLE_SEARCH_TIMEOUT`], it is always reportable
/// and prohibited by no model, so validity stays unknown rather than true.
pub const MODEL_NOT_CHECKED: &str = "model-not-checked";

/// What the check of a model name follows.
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

const NO_CURSORS: &str = "Adya's G-cursor needs cursor reads, which histories do not record";
const SINGLE_UNDECIDED: &str = "G-single is searched among the certain dependencies only; \
     orders of writes the history leaves open are not decided for it";

/// The definition each canonical model name is checked by: the one list of
/// which names the check decides. Every model of the lattice has a row.
const DEFINITIONS: &[(&str, Definition)] = &[
    (
        "1SR",
        Definition::NotChecked("one-copy serializability is not checked"),
    ),
    ("PL-1", Definition::Adya),
    ("PL-2", Definition::Adya),
    ("PL-2+", Definition::NotChecked(SINGLE_UNDECIDED)),
    ("PL-2.99", Definition::Adya),
    (
        "PL-2L",
        Definition::NotChecked("Adya's G-monotonic is not searched"),
    ),
    ("PL-3", Definition::Adya),
    (
        "PL-3U",
        Definition::NotChecked("Adya's G-update is not searched"),
    ),
    ("PL-CS", Definition::NotChecked(NO_CURSORS)),
    (
        "PL-FCV",
        Definition::NotChecked("Adya's G-SIb is not searched"),
    ),
    (
        "PL-MSR",
        Definition::NotChecked("Adya's G-MSR is not searched"),
    ),
    ("PL-SI", Definition::Adya),
    ("PL-SS", Definition::Adya),
    ("PRAM", Definition::Axiomatic(Level::Pram)),
    ("causal", Definition::Axiomatic(Level::Causal)),
    ("causal-cerone", Definition::Axiomatic(Level::Causal)),
    (
        "linearizable",
        Definition::NotChecked("transactional histories are not checked for linearizability"),
    ),
    (
        "monotonic-atomic-view",
        Definition::NotChecked("monotonic atomic view (Bailis et al. 2013) is not checked"),
    ),
    (
        "monotonic-reads",
        Definition::Axiomatic(Level::MonotonicReads),
    ),
    (
        "monotonic-writes",
        Definition::Axiomatic(Level::MonotonicWrites),
    ),
    (
        "parallel-snapshot-isolation",
        Definition::OrderKnown(
            "parallel snapshot isolation (Cerone et al. 2015: causal consistency and no \
             concurrent writers of a key), as Cerone and Gotsman (PODC 2016) characterise it: \
             no cycle of ww, wr and session order with at most one rw edge; decided where \
             the history fixes every version order, or where some order satisfies snapshot \
             isolation, which implies it",
        ),
    ),
    (
        "prefix",
        Definition::Characterised(
            "prefix consistency (Cerone et al. 2015: causal consistency and co ; vis ⊆ vis), \
             as Cerone, Gotsman and Yang (CONCUR 2017) characterise it: some version order \
             leaves ((session ∪ wr) ; rw?) ∪ ww acyclic",
        ),
    ),
    ("read-atomic", Definition::Axiomatic(Level::ReadAtomic)),
    (
        "read-committed-be",
        Definition::Axiomatic(Level::ReadCommitted),
    ),
    // Read your writes (`so ⊆ vis`) is read atomic in Cerone et al.'s
    // framework, where what a transaction read from is visible whole.
    ("read-your-writes", Definition::Axiomatic(Level::ReadAtomic)),
    (
        "sequential",
        Definition::NotChecked(
            "transactional histories are not checked for sequential consistency",
        ),
    ),
    (
        "session-serializable",
        Definition::NotChecked("session serializability is not checked"),
    ),
    ("strong-PL-1", Definition::Adya),
    ("strong-PL-2", Definition::Adya),
    ("strong-session-PL-1", Definition::Adya),
    ("strong-session-PL-2", Definition::Adya),
    ("strong-session-serializable", Definition::Adya),
    ("strong-session-snapshot-isolation", Definition::Adya),
    ("strong-snapshot-isolation", Definition::Adya),
    (
        "update-atomic",
        Definition::NotChecked("update atomic (Cerone et al. 2015) is not checked"),
    ),
    (
        "view-serializable",
        Definition::NotChecked("view serializability is not checked"),
    ),
    (
        "writes-follow-reads",
        Definition::Axiomatic(Level::WritesFollowReads),
    ),
];

/// The definition a model name is checked by; `None` for a name the lattice
/// does not know.
pub fn definition(model: &str) -> Option<Definition> {
    let canonical = canonical_model(model)?;
    DEFINITIONS
        .iter()
        .find(|&&(m, _)| m == canonical)
        .map(|&(_, d)| d)
}

/// The requested models (Elle's default when `None`) that the check does
/// not decide, as canonical names.
pub fn unchecked_models(models: Option<&[&str]>) -> Vec<&'static str> {
    models
        .unwrap_or(&[DEFAULT_MODEL])
        .iter()
        .filter_map(|&m| match definition(m)? {
            Definition::NotChecked(_) => canonical_model(m),
            _ => None,
        })
        .collect()
}

/// The axiomatic levels to decide for the requested models: those of every
/// model a requested one implies, unless the requested one is decided as
/// Adya's (whose cycle search covers them).
///
/// Read committed (Biswas and Enea's) is decided only when asked for by
/// name: every other level implies it, and would name a fractured read
/// (of x from a transaction, then of y before it) by it, the weakest
/// level violated; its violations are theirs too
/// (`read-committed-be-violation` implies `fractured-read`).
pub fn axiomatic_levels(models: Option<&[&str]>) -> Vec<Level> {
    let asked = |level: Level| {
        models
            .unwrap_or(&[DEFAULT_MODEL])
            .iter()
            .any(|&m| definition(m) == Some(Definition::Axiomatic(level)))
    };
    let mut levels: Vec<Level> = implied_beyond_adya(models)
        .into_iter()
        .filter_map(|m| match definition(m)? {
            Definition::Axiomatic(level) => Some(level),
            _ => None,
        })
        .filter(|&level| level != Level::ReadCommitted || asked(level))
        .collect();
    levels.sort_unstable();
    levels.dedup();
    levels
}

/// The models the requested ones (Elle's default when `None`) imply,
/// except through a requested model decided as Adya's, whose cycle search
/// covers them.
fn implied_beyond_adya<'a>(models: Option<&[&'a str]>) -> BTreeSet<&'a str> {
    models
        .unwrap_or(&[DEFAULT_MODEL])
        .iter()
        .filter(|&&m| definition(m) != Some(Definition::Adya))
        .flat_map(|&m| all_implied_models([m]))
        .collect()
}

/// The models among the requested ones (and those they imply beyond an
/// Adya model) that are decided only where the history fixes every version
/// order (`Definition::OrderKnown`).
pub fn order_known_models(models: Option<&[&str]>) -> Vec<&'static str> {
    characterised_models(models)
        .into_iter()
        .filter(|&m| matches!(definition(m), Some(Definition::OrderKnown(_))))
        .collect()
}

/// The models among the requested ones (and those they imply beyond an
/// Adya model) decided through a dependency-graph characterisation
/// (`Definition::Characterised` or `Definition::OrderKnown`).
pub fn characterised_models(models: Option<&[&str]>) -> Vec<&'static str> {
    implied_beyond_adya(models)
        .into_iter()
        .filter(|&m| characterisation(m).is_some())
        .filter_map(canonical_model)
        .collect()
}

/// The characterisation a model is decided by, as the report states it.
pub fn characterisation(model: &str) -> Option<&'static str> {
    match definition(model)? {
        Definition::Characterised(text) | Definition::OrderKnown(text) => Some(text),
        _ => None,
    }
}

/// Leaves out of `prohibited` the cycle-exists anomalies of the
/// characterised models (`Definition::Characterised`) that no requested
/// model asks for beyond an Adya model: a model decided as Adya's has a
/// graph containing theirs (strong session snapshot isolation's holds
/// every cycle of prefix consistency's), so they would only decide again
/// what it decides, under another name.
pub fn drop_covered_characterisations(prohibited: &mut BTreeSet<&str>, models: Option<&[&str]>) {
    let wanted = implied_beyond_adya(models);
    prohibited.retain(|a| {
        let Some(m) = super::taxonomy::ModelGraph::of_anomaly(a) else {
            return true;
        };
        !matches!(definition(m.model), Some(Definition::Characterised(_)))
            || wanted.contains(m.model)
    });
}

/// The model assumed when the checker is given no `:consistency-models` key.
pub const DEFAULT_MODEL: &str = "strict-serializable";

/// A directed graph over static names, with both adjacency directions.
#[derive(Default)]
struct Graph {
    out: BTreeMap<&'static str, BTreeSet<&'static str>>,
    inn: BTreeMap<&'static str, BTreeSet<&'static str>>,
}

impl Graph {
    /// Builds the graph of `table`, mapping every vertex through `f` (Elle's
    /// `g/map-vertices`); parallel edges merge.
    fn build(table: Table, f: impl Fn(&'static str) -> &'static str) -> Graph {
        let mut g = Graph::default();
        for &(from, tos) in table {
            for &to in tos {
                g.link(f(from), f(to));
            }
        }
        g
    }

    fn link(&mut self, a: &'static str, b: &'static str) {
        self.out.entry(a).or_default().insert(b);
        self.inn.entry(b).or_default().insert(a);
        self.out.entry(b).or_default();
        self.inn.entry(a).or_default();
    }

    fn vertices(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.out.keys().copied()
    }

    fn out(&self, v: &str) -> impl Iterator<Item = &'static str> + '_ {
        self.out.get(v).into_iter().flatten().copied()
    }

    fn inn(&self, v: &str) -> impl Iterator<Item = &'static str> + '_ {
        self.inn.get(v).into_iter().flatten().copied()
    }

    /// Every vertex reachable from `start` (start included) along `out`
    /// edges, or along `in` edges when `forward` is false.
    fn reach<'a>(
        &self,
        start: impl IntoIterator<Item = &'a str>,
        forward: bool,
    ) -> BTreeSet<&'a str> {
        let mut seen: BTreeSet<&'a str> = BTreeSet::new();
        let mut stack: Vec<&'a str> = Vec::new();
        for v in start {
            if seen.insert(v) {
                stack.push(v);
            }
        }
        while let Some(v) = stack.pop() {
            let next = if forward {
                self.out.get(v)
            } else {
                self.inn.get(v)
            };
            for &w in next.into_iter().flatten() {
                if seen.insert(w) {
                    stack.push(w);
                }
            }
        }
        seen
    }

    /// Elle's `g/topo-depths`: repeatedly peel off the vertices with no
    /// in-edges left; the k-th layer gets depth k. Equivalently, depth is the
    /// length of the longest path from a source. Vertices on a cycle (none in
    /// Elle's DAGs) get no depth.
    fn topo_depths(&self) -> BTreeMap<&'static str, u32> {
        let mut indegree: BTreeMap<&'static str, usize> =
            self.inn.iter().map(|(&v, ins)| (v, ins.len())).collect();
        let mut layer: Vec<&'static str> = indegree
            .iter()
            .filter(|&(_, &d)| d == 0)
            .map(|(&v, _)| v)
            .collect();
        let mut depths = BTreeMap::new();
        let mut depth = 0;
        while !layer.is_empty() {
            let mut next = Vec::new();
            for &v in &layer {
                depths.insert(v, depth);
                for w in self.out(v) {
                    let d = indegree.get_mut(w).expect("vertex");
                    *d -= 1;
                    if *d == 0 {
                        next.push(w);
                    }
                }
            }
            layer = next;
            depth += 1;
        }
        depths
    }
}

/// The lattice, built once.
struct Lattice {
    /// `implied-anomalies`.
    implied: Graph,
    /// `models`, with canonical vertices.
    models: Graph,
    /// `direct-proscribed-anomalies`: canonical model → anomaly.
    proscribed: Graph,
    /// `anomaly-depths`.
    depths: BTreeMap<&'static str, u32>,
    /// `all-models`.
    all_models: BTreeSet<&'static str>,
    /// Every anomaly named anywhere, plus the two data-less ones.
    anomalies: BTreeSet<&'static str>,
}

fn lattice() -> &'static Lattice {
    static LATTICE: OnceLock<Lattice> = OnceLock::new();
    LATTICE.get_or_init(|| {
        let canon = |m: &'static str| canonical_of(m).unwrap_or(m);
        let implied = Graph::build(IMPLIED_ANOMALIES, |a| a);
        let models = Graph::build(MODELS, canon);
        let mut proscribed = Graph::default();
        for &(model, anomalies) in DIRECT_PROSCRIBED {
            for &a in anomalies {
                proscribed.link(canon(model), a);
            }
        }

        // anomaly-depths: topological depths over implied ∪ severity,
        // merged (max) with depth 0 for every directly proscribed anomaly.
        let mut merged = Graph::build(IMPLIED_ANOMALIES, |a| a);
        for &(from, tos) in ANOMALY_SEVERITY {
            for &to in tos {
                merged.link(from, to);
            }
        }
        let mut depths = merged.topo_depths();
        for &(_, anomalies) in DIRECT_PROSCRIBED {
            for &a in anomalies {
                depths.entry(a).or_insert(0);
            }
        }

        let all_models = models
            .vertices()
            .chain(CANONICAL_MODEL_NAMES.iter().flat_map(|&(f, c)| [f, c]))
            .collect();
        let anomalies = merged
            .vertices()
            .chain(
                DIRECT_PROSCRIBED
                    .iter()
                    .flat_map(|&(_, a)| a.iter().copied()),
            )
            .chain([
                EMPTY_TRANSACTION_GRAPH,
                CYCLE_SEARCH_TIMEOUT,
                MODEL_NOT_CHECKED,
                GARBAGE_READ,
            ])
            .collect();
        Lattice {
            implied,
            models,
            proscribed,
            depths,
            all_models,
            anomalies,
        }
    })
}

/// `canonical-model-names` lookup: the canonical name of a friendly alias.
fn canonical_of(name: &str) -> Option<&'static str> {
    CANONICAL_MODEL_NAMES
        .iter()
        .find(|&&(f, _)| f == name)
        .map(|&(_, c)| c)
}

/// Elle's `canonical-model-name` without validation: the canonical name of a
/// known model, or the name itself.
fn canonical_or_self(name: &str) -> &str {
    canonical_of(name).unwrap_or(name)
}

/// Validates a model name (any of [`known_models`]) and returns its canonical
/// name (`serializable → PL-3`, `read-atomic → read-atomic`); `None` if the
/// model is unknown (Elle throws "Unknown consistency model").
pub fn canonical_model(name: &str) -> Option<&'static str> {
    let l = lattice();
    let known = l.all_models.get(name)?;
    Some(canonical_of(known).unwrap_or(known))
}

/// Elle's `friendly-model-name`: the friendly name of a canonical model
/// (`PL-3 → serializable`, `PL-SS → strong-serializable`); any other name is
/// returned unchanged.
pub fn friendly_model(canonical: &str) -> &str {
    FRIENDLY_MODEL_NAMES
        .iter()
        .find(|&&(c, _)| c == canonical)
        .map_or(canonical, |&(_, f)| f)
}

/// Elle's `all-models`, sorted: every model vertex plus every friendly and
/// canonical alias. For "known models are: …" error messages.
pub fn known_models() -> Vec<&'static str> {
    lattice().all_models.iter().copied().collect()
}

/// Is this an anomaly name that appears anywhere in the lattice (or is
/// `empty-transaction-graph` / `cycle-search-timeout`)?
pub fn is_known_anomaly(name: &str) -> bool {
    lattice().anomalies.contains(name)
}

/// The static name of a known anomaly (see [`is_known_anomaly`]), `None` if
/// unknown. (Elle itself does not validate `:anomalies`.)
pub fn anomaly(name: &str) -> Option<&'static str> {
    lattice().anomalies.get(name).copied()
}

/// Every anomaly that appears in the lattice data, plus
/// `empty-transaction-graph` and `cycle-search-timeout`, sorted by name.
pub fn known_anomalies() -> Vec<&'static str> {
    lattice().anomalies.iter().copied().collect()
}

/// Elle's `all-anomalies-implying`: the given anomalies plus every anomaly
/// that implies one of them (in-edges of `implied-anomalies`).
pub fn all_anomalies_implying<'a>(
    anomalies: impl IntoIterator<Item = &'a str>,
) -> BTreeSet<&'a str> {
    lattice().implied.reach(anomalies, false)
}

/// Elle's `all-implied-anomalies`: the given anomalies plus every anomaly
/// they imply (out-edges of `implied-anomalies`).
pub fn all_implied_anomalies<'a>(
    anomalies: impl IntoIterator<Item = &'a str>,
) -> BTreeSet<&'a str> {
    lattice().implied.reach(anomalies, true)
}

/// Elle's `all-implied-models`: the given models (canonicalised) plus every
/// model they imply. Unknown names stay as themselves with no edges (Elle
/// throws; validate with [`canonical_model`] first).
pub fn all_implied_models<'a>(models: impl IntoIterator<Item = &'a str>) -> BTreeSet<&'a str> {
    lattice()
        .models
        .reach(models.into_iter().map(canonical_or_self), true)
}

/// Elle's `anomalies-prohibited-by`: the anomalies that cannot occur if all
/// the given models (friendly or canonical names) hold. Closes the models
/// downward through `models`, takes their directly proscribed anomalies, and
/// closes those upward through `implied-anomalies`. Unknown models proscribe
/// nothing.
///
/// isocheck's: a model decided axiomatically (`check::weak`) prohibits
/// what its own level and the axiomatic levels it implies proscribe, and
/// the reads no abstract execution has ([`SESSION_BASE`]), not the Adya
/// models Elle's lattice places under it: their cycles are over the write
/// order Elle infers from one chain per key (a list's unobserved appends
/// after its longest read), which these models do not have. The cycles of
/// the orders they do have (session order, reads-from, each list read's
/// order) are their check's. Nor does it prohibit
/// [`INCOMPATIBLE_ORDER`].
pub fn anomalies_prohibited_by<'a>(
    models: impl IntoIterator<Item = &'a str>,
) -> BTreeSet<&'static str> {
    let (axiomatic, others): (Vec<&str>, Vec<&str>) = models
        .into_iter()
        .map(canonical_or_self)
        .partition(|m| matches!(definition(m), Some(Definition::Axiomatic(_))));
    // Monotonic atomic view allows incompatible orders as read atomic does,
    // though Elle's lattice puts read committed under it.
    let (lenient, others): (Vec<&str>, Vec<&str>) = others
        .into_iter()
        .partition(|m| INCOMPATIBLE_ORDERS_ALLOWED.contains(m));
    let mut prohibited = closed_prohibitions(all_implied_models(others));
    let mut by_lenient = closed_prohibitions(all_implied_models(lenient));
    by_lenient.remove(INCOMPATIBLE_ORDER);
    prohibited.extend(by_lenient);
    let levels = all_implied_models(axiomatic)
        .into_iter()
        .filter(|m| matches!(definition(m), Some(Definition::Axiomatic(_))));
    let mut by_levels = closed_prohibitions(levels.collect());
    by_levels.remove(INCOMPATIBLE_ORDER);
    prohibited.extend(by_levels);
    prohibited
}

/// What these models (closed under implication) proscribe, with
/// [`SESSION_BASE`] for the session models among them, and every anomaly
/// implying one of those.
fn closed_prohibitions(implied: BTreeSet<&str>) -> BTreeSet<&'static str> {
    let l = lattice();
    let session: Vec<&str> = SESSION_MODELS
        .iter()
        .copied()
        .filter(|m| implied.contains(m))
        .collect();
    let internal = session.iter().any(|&m| m != REPEATABLE_READS_NOT_REQUIRED);
    let psi = implied.contains("parallel-snapshot-isolation");
    let base = SESSION_BASE
        .iter()
        .copied()
        .filter(|&a| !session.is_empty() && (a != "internal" || internal));
    let direct: Vec<&'static str> = implied
        .iter()
        .flat_map(|m| l.proscribed.out(m))
        .chain(base)
        .chain(PSI_CYCLES.iter().copied().filter(|_| psi))
        .collect();
    l.implied.reach(direct, false)
}

/// Elle's `elle.txn/prohibited-anomaly-types`:
/// `all-anomalies-implying(anomalies) ∪ anomalies-prohibited-by(models)`.
///
/// `models` is `None` when the `:consistency-models` option is absent, which
/// means `[strict-serializable]`; `Some(&[])` (Elle's explicit `nil`) means
/// no models at all.
pub fn prohibited_anomalies<'a>(
    models: Option<&[&str]>,
    anomalies: &[&'a str],
) -> BTreeSet<&'a str> {
    let mut set = all_anomalies_implying(anomalies.iter().copied());
    let models = models.unwrap_or(&[DEFAULT_MODEL]);
    set.extend(anomalies_prohibited_by(models.iter().copied()));
    set
}

/// Elle's `reportable-anomaly-types`: the prohibited anomalies (from
/// [`prohibited_anomalies`]) plus `empty-transaction-graph` and
/// `cycle-search-timeout`, and isocheck's [`MODEL_NOT_CHECKED`].
pub fn reportable_anomalies<'a>(prohibited: &BTreeSet<&'a str>) -> BTreeSet<&'a str> {
    let mut set = prohibited.clone();
    set.extend([
        EMPTY_TRANSACTION_GRAPH,
        CYCLE_SEARCH_TIMEOUT,
        MODEL_NOT_CHECKED,
    ]);
    set
}

/// Elle's `all-impossible-models`: the given impossible models
/// (canonicalised) plus every model that implies one of them, as canonical
/// names. Unknown names are dropped (Elle throws).
pub fn all_impossible_models<'a>(
    models: impl IntoIterator<Item = &'a str>,
) -> BTreeSet<&'static str> {
    lattice()
        .models
        .reach(models.into_iter().filter_map(canonical_model), false)
}

/// Elle's `anomalies->impossible-models`: the canonical models ruled out by
/// finding these anomalies. Closes the anomalies downward through
/// `implied-anomalies`, maps each to the models directly proscribing it, and
/// closes those upward through `models`.
pub fn impossible_models<'a>(found: impl IntoIterator<Item = &'a str>) -> BTreeSet<&'static str> {
    let (incompatible, others): (Vec<&str>, Vec<&str>) =
        found.into_iter().partition(|&a| a == INCOMPATIBLE_ORDER);
    let mut ruled_out = ruled_out_by(others);
    ruled_out.extend(
        ruled_out_by(incompatible)
            .into_iter()
            .filter(|m| !INCOMPATIBLE_ORDERS_ALLOWED.contains(m)),
    );
    ruled_out
}

/// Elle's `anomalies->impossible-models` itself.
fn ruled_out_by<'a>(found: impl IntoIterator<Item = &'a str>) -> BTreeSet<&'static str> {
    let l = lattice();
    let direct: Vec<&'static str> = all_implied_anomalies(found)
        .into_iter()
        .flat_map(|a| l.proscribed.inn(a))
        .collect();
    l.models.reach(direct, false)
}

/// Elle's `weakest-models` (`most-models g/out`): canonicalises the names and
/// keeps those from which no other member of the set is reachable in
/// `models`, i.e. the minimal elements. (Elle's reduce removes members one at
/// a time; on a DAG that always leaves exactly the minimal elements.)
pub fn weakest_models<'a>(models: impl IntoIterator<Item = &'a str>) -> BTreeSet<&'a str> {
    let l = lattice();
    let set: BTreeSet<&'a str> = models.into_iter().map(canonical_or_self).collect();
    set.iter()
        .copied()
        .filter(|&m| {
            !l.models
                .reach([m], true)
                .iter()
                .any(|&r| r != m && set.contains(r))
        })
        .collect()
}

/// Elle's `friendly-boundary`: the weakest models a set of found anomalies
/// rules out (`not`), and the other ruled-out models (`also_not`), both as
/// sorted friendly names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Boundary {
    /// The weakest models ruled out.
    pub not: BTreeSet<&'static str>,
    /// Every other (stronger) model ruled out.
    pub also_not: BTreeSet<&'static str>,
}

/// Elle's `friendly-boundary`: see [`Boundary`].
pub fn friendly_boundary<'a>(found: impl IntoIterator<Item = &'a str>) -> Boundary {
    let impossible = impossible_models(found);
    let not = weakest_models(impossible.iter().copied());
    Boundary {
        also_not: impossible
            .iter()
            .filter(|m| !not.contains(*m))
            .map(|&m| friendly_model(m))
            .collect(),
        not: not.into_iter().map(friendly_model).collect(),
    }
}

/// Elle's `anomaly-depths`: the topological depth of an anomaly over
/// `implied-anomalies` merged with `anomaly-severity-graph` (0 for vertices
/// with no in-edges, else 1 + the maximum depth of its predecessors, i.e. the
/// longest path from a source, as `g/topo-depths` peels layers), with depth 0
/// for every directly proscribed anomaly not in that graph. `None` for
/// anomalies Elle has no depth for (e.g. `empty-transaction-graph`).
pub fn anomaly_depth(name: &str) -> Option<u32> {
    lattice().depths.get(name).copied()
}

/// Elle's `anomaly-depth-compare`: by depth (names without a depth first,
/// like Clojure's `nil`), then by name.
pub fn depth_order(a: &str, b: &str) -> Ordering {
    anomaly_depth(a)
        .cmp(&anomaly_depth(b))
        .then_with(|| a.cmp(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::taxonomy::{CycleAnomaly, ModelGraph, MODEL_GRAPHS};

    /// The 24 cycle anomaly names, base-major.
    fn cycle_anomalies() -> Vec<&'static str> {
        CycleAnomaly::all().map(CycleAnomaly::name).collect()
    }

    fn is_cycle_anomaly(name: &str) -> bool {
        CycleAnomaly::parse(name).is_ok()
    }

    /// A set of whitespace-separated names, as elle.md lists them.
    fn words(names: &'static str) -> BTreeSet<&'static str> {
        names.split_whitespace().collect()
    }

    /// `base` plus the whitespace-separated `extra` names.
    fn plus(base: &BTreeSet<&'static str>, extra: &'static str) -> BTreeSet<&'static str> {
        base.iter()
            .copied()
            .chain(extra.split_whitespace())
            .collect()
    }

    fn prohibited(model: &str) -> BTreeSet<&'static str> {
        anomalies_prohibited_by([model])
    }

    fn not(found: &str) -> BTreeSet<&'static str> {
        friendly_boundary([found]).not
    }

    fn also_not(found: &str) -> BTreeSet<&'static str> {
        friendly_boundary([found]).also_not
    }

    // elle.md's lists, plus isocheck's garbage-read, which read-uncommitted
    // proscribes.
    const RU: &str = "G0 PL-1-cycle-exists cyclic-versions duplicate-elements garbage-read
        own-write-unseen future-read incompatible-order";
    const RC_EXTRA: &str = "G1 G1a G1b G1c PL-2-cycle-exists dirty-update";
    const SI: &str = "G0 G1 G1a G1b G1c internal future-read dirty-update incompatible-order
        duplicate-elements cyclic-versions lost-update G-single G-single-item G-nonadjacent
        G-nonadjacent-item G-SI G-SIb G-cursor G-monotonic G-MSR PL-1-cycle-exists
        PL-2-cycle-exists PL-SI-cycle-exists garbage-read own-write-unseen";

    #[test]
    fn tables_are_well_formed() {
        let l = lattice();
        for g in [&l.implied, &l.models, &l.proscribed] {
            for (v, outs) in &g.out {
                assert!(!outs.contains(v), "self-loop at {v}");
            }
        }
        for t in [
            IMPLIED_ANOMALIES,
            ANOMALY_SEVERITY,
            MODELS,
            DIRECT_PROSCRIBED,
        ] {
            let keys: BTreeSet<_> = t.iter().map(|&(k, _)| k).collect();
            assert_eq!(keys.len(), t.len());
        }
        // Every friendly name maps back to its canonical name.
        for &(f, c) in CANONICAL_MODEL_NAMES {
            assert_eq!(canonical_of(friendly_model(c)), Some(c), "{f}");
        }
    }

    #[test]
    fn every_model_has_one_definition() {
        let canonical: BTreeSet<&str> = known_models()
            .into_iter()
            .filter_map(canonical_model)
            .collect();
        let rows: Vec<&str> = DEFINITIONS.iter().map(|&(m, _)| m).collect();
        assert_eq!(rows.iter().copied().collect::<BTreeSet<_>>(), canonical);
        assert_eq!(rows.len(), canonical.len(), "a model has two rows");
        // Every model with a cycle-exists graph is decided as Adya's, or
        // by the characterisation of Cerone et al.'s model.
        for g in &MODEL_GRAPHS {
            let d = definition(g.model);
            let graph = matches!(d, Some(Definition::Adya | Definition::Characterised(_)));
            assert!(graph, "{}", g.model);
        }
        assert_eq!(unchecked_models(None), Vec::<&str>::new());
        assert_eq!(
            unchecked_models(Some(&["serializable", "causal", "update-atomic"])),
            vec!["update-atomic"]
        );
        for (model, level) in [
            ("read-committed-be", Level::ReadCommitted),
            ("writes-follow-reads", Level::WritesFollowReads),
            ("read-atomic", Level::ReadAtomic),
            ("read-your-writes", Level::ReadAtomic),
            ("monotonic-reads", Level::MonotonicReads),
            ("monotonic-writes", Level::MonotonicWrites),
            ("PRAM", Level::Pram),
            ("causal-cerone", Level::Causal),
            ("causal", Level::Causal),
        ] {
            assert_eq!(definition(model), Some(Definition::Axiomatic(level)));
        }
        assert_eq!(axiomatic_levels(None), vec![]);
        assert_eq!(axiomatic_levels(Some(&["serializable"])), vec![]);
        assert_eq!(
            axiomatic_levels(Some(&["prefix"])),
            vec![Level::ReadAtomic, Level::Causal]
        );
        assert_eq!(
            axiomatic_levels(Some(&["read-atomic"])),
            vec![Level::ReadAtomic]
        );
        // Read committed (Biswas and Enea) is checked only when asked for.
        assert_eq!(axiomatic_levels(Some(&["causal"])), Level::ALL[1..]);
        assert_eq!(
            axiomatic_levels(Some(&["read-committed-be"])),
            vec![Level::ReadCommitted]
        );
        assert_eq!(
            axiomatic_levels(Some(&["PRAM"])),
            vec![
                Level::ReadAtomic,
                Level::MonotonicReads,
                Level::MonotonicWrites,
                Level::Pram
            ]
        );
    }

    /// Each axiomatic level's anomaly rules out exactly the models whose
    /// level implies it (and the models above those), and a level's
    /// implications agree with the model lattice.
    #[test]
    fn axiomatic_anomalies_follow_the_levels() {
        let model_of = |level: Level| match level {
            Level::ReadCommitted => "read-committed-be",
            Level::ReadAtomic => "read-your-writes",
            Level::WritesFollowReads => "writes-follow-reads",
            Level::MonotonicReads => "monotonic-reads",
            Level::MonotonicWrites => "monotonic-writes",
            Level::Pram => "PRAM",
            Level::Causal => "causal",
        };
        for weaker in Level::ALL {
            let ruled_out = impossible_models([weaker.anomaly()]);
            for stronger in Level::ALL {
                let m = model_of(stronger);
                assert_eq!(
                    ruled_out.contains(m),
                    stronger.implies(weaker),
                    "{weaker:?} {stronger:?}"
                );
                assert_eq!(
                    all_implied_models([m]).contains(model_of(weaker)),
                    stronger.implies(weaker),
                    "{weaker:?} {stronger:?}"
                );
            }
        }
        // G1a rules out what it does in Elle; the session guarantees still
        // prohibit it.
        assert!(!impossible_models(["G1a"]).contains("monotonic-reads"));
        for m in SESSION_MODELS.iter().chain(&["PRAM"]) {
            let prohibited = anomalies_prohibited_by([*m]);
            for a in SESSION_BASE {
                let allowed = *m == REPEATABLE_READS_NOT_REQUIRED && *a == "internal";
                assert_eq!(prohibited.contains(a), !allowed, "{m} {a}");
            }
        }
    }

    #[test]
    fn model_names() {
        for (name, canonical) in [
            ("serializable", "PL-3"),
            ("conflict-serializable", "PL-3"),
            ("PL-3", "PL-3"),
            ("strict-serializable", "PL-SS"),
            ("strong-serializable", "PL-SS"),
            ("consistent-view", "PL-2+"),
            ("read-atomic", "read-atomic"),
            ("view-serializable", "view-serializable"),
            ("1SR", "1SR"),
            ("strong-session-read-committed", "strong-session-PL-2"),
        ] {
            assert_eq!(canonical_model(name), Some(canonical), "{name}");
        }
        for name in ["bogus", ":serializable", "", "Serializable"] {
            assert_eq!(canonical_model(name), None, "{name}");
        }

        assert_eq!(friendly_model("PL-3"), "serializable");
        assert_eq!(friendly_model("PL-SS"), "strong-serializable");
        assert_eq!(friendly_model("PL-2+"), "consistent-view");
        assert_eq!(friendly_model("strong-PL-2"), "strong-read-committed");
        assert_eq!(friendly_model("read-atomic"), "read-atomic");

        let known = known_models();
        assert!(known.windows(2).all(|w| w[0] < w[1]));
        // 37 canonical vertices plus the 18 friendly aliases.
        assert_eq!(known.len(), 37 + 18);
        for m in words(
            "serializable PL-3 strict-serializable strong-serializable PL-SS read-atomic
             strong-snapshot-isolation read-your-writes 1SR view-serializable strong-PL-1
             strong-read-uncommitted",
        ) {
            assert!(known.contains(&m), "{m}");
        }
        assert!(known.iter().all(|m| canonical_model(m).is_some()));
    }

    #[test]
    fn models_graph_is_canonicalised() {
        let l = lattice();
        let out = |m: &str| l.models.out(m).collect::<BTreeSet<_>>();
        // serializable, conflict-serializable and PL-3 are one vertex.
        assert_eq!(out("PL-3"), words("PL-2.99 PL-3U PL-SI view-serializable"));
        assert_eq!(out("PL-CS"), words("PL-2"));
        assert_eq!(
            out("PL-SS"),
            words(
                "PL-3 PL-SI linearizable session-serializable strong-session-serializable
                 strong-snapshot-isolation"
            )
        );
        assert!(!l.models.out.contains_key("serializable"));
        let direct = |m: &str| l.proscribed.out(m).collect::<BTreeSet<_>>();
        assert_eq!(
            direct("PL-3"),
            words("G1 G2 PL-3-cycle-exists internal predicate-read-miss")
        );
    }

    #[test]
    fn anomaly_names() {
        let known = words(
            "G1a G1b internal lost-update cyclic-versions duplicate-elements incompatible-order
             future-read dirty-update predicate-read-miss G1 G1-process G1-realtime GSI GSIa
             GSIb G-SI G-SIb G-cursor G-monotonic G-MSR G-update write-skew
             empty-transaction-graph cycle-search-timeout garbage-read own-write-unseen
             model-not-checked
             fractured-read causality-violation monotonic-reads-violation
             monotonic-writes-violation PRAM-violation read-committed-be-violation
             writes-follow-reads-violation",
        );
        for a in known.iter().chain(&cycle_anomalies()) {
            assert!(is_known_anomaly(a), "{a}");
        }
        for a in ["garbage-versions", "G2-item ", ":G0", "serializable"] {
            assert!(!is_known_anomaly(a), "{a}");
        }
        let all = known_anomalies();
        assert!(all.windows(2).all(|w| w[0] < w[1]));
        let cycle_exists: BTreeSet<_> = all
            .iter()
            .filter_map(|a| a.strip_suffix("-cycle-exists"))
            .collect();
        // One per cycle-exists spec (elle.md §2.1).
        let models: BTreeSet<_> = MODEL_GRAPHS.iter().map(|m| m.model).collect();
        assert_eq!(cycle_exists, models);
        assert!(cycle_exists.iter().all(|m| canonical_model(m) == Some(m)));
        // Besides the cycle anomalies and the cycle-exists names, exactly:
        let others: BTreeSet<_> = all
            .iter()
            .copied()
            .filter(|a| !is_cycle_anomaly(a) && ModelGraph::of_anomaly(a).is_none())
            .collect();
        assert_eq!(others, known);
        assert_eq!(all.len(), 24 + 14 + 35);
    }

    #[test]
    fn cycle_anomaly_names() {
        // Elle's names, every base with every suffix, base-major.
        let mut expected = Vec::new();
        for base in
            "G0 G1c G-single-item G-single G-nonadjacent-item G-nonadjacent G2-item G2".split(' ')
        {
            for suffix in ["", "-process", "-realtime"] {
                expected.push(format!("{base}{suffix}"));
            }
        }
        assert_eq!(cycle_anomalies(), expected);
        assert!(!is_cycle_anomaly("G1a") && !is_cycle_anomaly("PL-1-cycle-exists"));
        for m in &MODEL_GRAPHS {
            let a = m.anomaly();
            assert_eq!(a, format!("{}-cycle-exists", m.model));
            assert_eq!(ModelGraph::of_anomaly(a).map(|r| r.model), Some(m.model));
            assert!(prohibited(m.model).contains(a), "{}", m.model);
            assert_eq!(anomaly(a), Some(a));
        }
        assert_eq!(anomaly("G2"), Some("G2"));
        assert_eq!(anomaly("G9"), None);
    }

    #[test]
    fn implication_closures() {
        assert_eq!(
            all_implied_anomalies(["G1a"]),
            words("G1a G1 G1-process G1-realtime")
        );
        assert_eq!(
            all_implied_anomalies(["lost-update"]),
            words(
                "lost-update write-skew G2-item G2 G2-item-process G2-process G2-item-realtime
                 G2-realtime"
            )
        );
        assert_eq!(all_implied_anomalies(["internal"]), words("internal"));
        assert_eq!(all_implied_anomalies([]), words(""));
        assert_eq!(
            all_anomalies_implying(["G1"]),
            words("G1 G1a G1b G1c G0 incompatible-order dirty-update future-read")
        );
        assert_eq!(
            all_anomalies_implying(["G2"]),
            words(
                "G2 G2-item G-nonadjacent G-nonadjacent-item G-single G-single-item lost-update
                 write-skew"
            )
        );
        // Unknown names are kept, as Elle's bfs keeps its start vertices.
        assert_eq!(all_anomalies_implying(["foo"]), words("foo"));
        assert_eq!(
            all_implied_models(["serializable"]),
            words(
                "PL-3 PL-2.99 PL-3U PL-SI view-serializable PL-FCV PL-2+ PL-CS PL-2L PL-2 PL-1
                 PL-MSR monotonic-atomic-view"
            )
        );
    }

    #[test]
    fn incompatible_orders_rule_out_no_axiomatic_model() {
        let b = friendly_boundary([INCOMPATIBLE_ORDER]);
        assert_eq!(b.not, words("read-uncommitted"));
        for m in INCOMPATIBLE_ORDERS_ALLOWED {
            assert!(!b.also_not.contains(m), "{m}");
        }
        for m in ["prefix", "sequential", "snapshot-isolation", "serializable"] {
            assert!(b.also_not.contains(m), "{m}");
        }
        // With another anomaly that rules them out, they are.
        let with_g1c = impossible_models([INCOMPATIBLE_ORDER, "G1c"]);
        assert!(with_g1c.contains("read-atomic") && with_g1c.contains("causal"));
        assert!(!impossible_models([INCOMPATIBLE_ORDER]).contains("read-atomic"));
    }

    #[test]
    fn prohibited_by_each_model() {
        let ru = words(RU);
        let rc = plus(&ru, RC_EXTRA);
        assert_eq!(prohibited("read-uncommitted"), ru);
        assert_eq!(prohibited("PL-1"), ru);
        assert_eq!(prohibited("read-committed"), rc);
        // Read atomic's visibility: incompatible orders allowed.
        let mut mav = rc.clone();
        mav.remove(INCOMPATIBLE_ORDER);
        assert_eq!(prohibited("monotonic-atomic-view"), mav);

        // The axiomatic models: their levels' anomalies and the reads no
        // abstract execution has; not the Adya cycles under them in Elle's
        // lattice, nor incompatible list orders (see INCOMPATIBLE_ORDER).
        let base = "internal G1a G1b future-read duplicate-elements garbage-read \
             own-write-unseen dirty-update";
        let ra = plus(&words(base), "fractured-read read-committed-be-violation");
        assert_eq!(prohibited("read-atomic"), ra);
        let session = "causality-violation PRAM-violation monotonic-reads-violation \
             monotonic-writes-violation writes-follow-reads-violation";
        let cc = plus(&ra, session);
        for m in ["causal-cerone", "causal"] {
            assert_eq!(prohibited(m), cc, "{m}");
        }
        // Prefix consistency keeps Elle's chain through read committed (its
        // commit order is one version chain per key, so those cycles are
        // violations), and adds its own graph.
        let chain = plus(&plus(&rc, "internal"), session);
        let chain = plus(&chain, "fractured-read read-committed-be-violation");
        let prefix = plus(&chain, "prefix-cycle-exists");
        assert_eq!(prohibited("prefix"), prefix);
        assert_eq!(anomalies_prohibited_by(["causal", "prefix"]), prefix);
        assert_eq!(
            anomalies_prohibited_by(["read-atomic", "read-committed"]),
            plus(&rc, "internal fractured-read read-committed-be-violation")
        );
        assert_eq!(
            prohibited("monotonic-reads"),
            words(base)
                .union(&words("monotonic-reads-violation"))
                .copied()
                .collect()
        );
        assert_eq!(
            prohibited("PRAM"),
            words(base)
                .union(&words(
                    "fractured-read PRAM-violation monotonic-reads-violation \
                     monotonic-writes-violation read-committed-be-violation"
                ))
                .copied()
                .collect()
        );
        let ua = plus(
            &plus(&rc, "internal fractured-read read-committed-be-violation"),
            "lost-update",
        );
        assert_eq!(prohibited("update-atomic"), ua);
        let cycles = "G0-process G1c-process G-single-item G-single-item-process \
             strong-session-PL-2-cycle-exists";
        assert_eq!(
            prohibited("parallel-snapshot-isolation"),
            plus(&plus(&ua, session), cycles)
        );
        let cs = plus(&rc, "G-cursor lost-update");
        assert_eq!(prohibited("cursor-stability"), cs);
        assert_eq!(
            prohibited("consistent-view"),
            plus(&cs, "G-monotonic G-single G-single-item")
        );
        let rr = plus(
            &cs,
            "G2-item G-single-item G-nonadjacent-item PL-2.99-cycle-exists",
        );
        assert_eq!(prohibited("repeatable-read"), rr);

        let si = words(SI);
        assert_eq!(prohibited("snapshot-isolation"), si);
        assert_eq!(prohibited("PL-SI"), si);
        // Write skew is allowed under SI.
        for a in ["G2-item", "G2", "write-skew"] {
            assert!(!si.contains(a), "{a}");
        }

        let sssi = plus(
            &si,
            "G0-process G1c-process G1-process G-single-process G-single-item-process
             G-nonadjacent-process G-nonadjacent-item-process strong-session-PL-1-cycle-exists
             strong-session-PL-2-cycle-exists strong-session-snapshot-isolation-cycle-exists
             fractured-read causality-violation monotonic-reads-violation
             monotonic-writes-violation PRAM-violation read-committed-be-violation
             writes-follow-reads-violation prefix-cycle-exists",
        );
        assert_eq!(prohibited("strong-session-snapshot-isolation"), sssi);
        // The check leaves prefix consistency's graph to a request of it:
        // strong session snapshot isolation's own graph holds its cycles.
        let mut checked = sssi.clone();
        drop_covered_characterisations(&mut checked, Some(&["strong-session-snapshot-isolation"]));
        assert!(!checked.contains("prefix-cycle-exists"));
        let mut asked = prohibited("prefix");
        drop_covered_characterisations(&mut asked, Some(&["prefix"]));
        assert!(asked.contains("prefix-cycle-exists"));

        // Strong SI: the set above plus the -realtime counterpart of every
        // -process anomaly in it.
        let mut ssi = plus(
            &sssi,
            "strong-PL-1-cycle-exists strong-PL-2-cycle-exists
             strong-snapshot-isolation-cycle-exists",
        );
        for base in sssi.iter().filter_map(|a| a.strip_suffix("-process")) {
            let realtime = format!("{base}-realtime");
            ssi.insert(anomaly(&realtime).unwrap_or("G1-realtime"));
        }
        assert!(ssi.contains("G1-realtime") && ssi.contains("G-nonadjacent-item-realtime"));
        assert_eq!(prohibited("strong-snapshot-isolation"), ssi);

        let ser = plus(
            &si,
            "G2 G2-item G-update write-skew predicate-read-miss PL-2.99-cycle-exists
             PL-3-cycle-exists",
        );
        for m in ["serializable", "PL-3", "conflict-serializable"] {
            assert_eq!(prohibited(m), ser, "{m}");
        }
        let sss: BTreeSet<_> = ser.union(&sssi).copied().collect();
        let sss = plus(
            &sss,
            "G2-process G2-item-process strong-session-serializable-cycle-exists",
        );
        assert_eq!(prohibited("strong-session-serializable"), sss);

        let strict = prohibited("strict-serializable");
        assert_eq!(prohibited("strong-serializable"), strict);
        assert_eq!(prohibited("PL-SS"), strict);
        for a in cycle_anomalies() {
            assert!(strict.contains(a), "{a}");
        }
        // Everything but the SI aggregates nothing proscribes and the three
        // data-less anomalies.
        let missing: BTreeSet<&str> = known_anomalies()
            .into_iter()
            .filter(|a| !strict.contains(a))
            .collect();
        assert_eq!(
            missing,
            words("GSI GSIa GSIb empty-transaction-graph cycle-search-timeout model-not-checked")
        );
        // Garbage reads: every model implying read-uncommitted.
        for m in [
            "read-uncommitted",
            "read-committed",
            "serializable",
            "strict-serializable",
        ] {
            assert!(prohibited(m).contains(GARBAGE_READ), "{m}");
        }

        assert_eq!(
            prohibited("writes-follow-reads"),
            words(base)
                .union(&words("writes-follow-reads-violation"))
                .copied()
                .collect()
        );
        // Read committed (Biswas and Enea): its own anomaly and the reads
        // it leaves to inference but `internal` (it allows a non-repeatable
        // read).
        let rc_be = plus(&words(base), "read-committed-be-violation");
        assert_eq!(
            prohibited("read-committed-be"),
            rc_be.iter().copied().filter(|&a| a != "internal").collect()
        );
        assert!(
            anomalies_prohibited_by(["read-committed-be", "monotonic-reads"]).contains("internal")
        );
        // isocheck's causal → causal-cerone.
        for m in ["linearizable", "sequential"] {
            assert_eq!(prohibited(m), chain, "{m}");
        }
        assert_eq!(anomalies_prohibited_by([]), words(""));
        assert_eq!(anomalies_prohibited_by(["bogus"]), words(""));
        assert_eq!(
            anomalies_prohibited_by(["snapshot-isolation", "repeatable-read"]),
            plus(&si, "G2-item PL-2.99-cycle-exists")
        );
    }

    #[test]
    fn checker_option_semantics() {
        // {:anomalies [:G2]} without :consistency-models: strict-serializable.
        let strict = prohibited("strict-serializable");
        assert_eq!(prohibited_anomalies(None, &["G2"]), strict);
        assert_eq!(prohibited_anomalies(None, &[]), strict);
        // {:consistency-models nil, :anomalies [:G2]}: G2 and what implies it.
        let g2 = prohibited_anomalies(Some(&[]), &["G2"]);
        assert_eq!(g2, all_anomalies_implying(["G2"]));
        assert!(!g2.contains("G0") && !g2.contains("G2-process"));
        assert_eq!(prohibited_anomalies(Some(&[]), &[]), words(""));
        assert_eq!(
            prohibited_anomalies(Some(&["snapshot-isolation"]), &["G1"]),
            words(SI)
        );

        assert_eq!(
            reportable_anomalies(&prohibited_anomalies(Some(&[]), &[])),
            words("empty-transaction-graph cycle-search-timeout model-not-checked")
        );
        assert_eq!(
            reportable_anomalies(&prohibited_anomalies(Some(&["read-committed"]), &[])),
            plus(
                &plus(&words(RU), RC_EXTRA),
                "empty-transaction-graph cycle-search-timeout model-not-checked"
            )
        );
    }

    #[test]
    fn impossible_and_weakest_models() {
        assert_eq!(
            all_impossible_models(["read-committed"]),
            impossible_models(["G1a"])
        );
        assert_eq!(
            all_impossible_models(["strong-serializable"]),
            words("PL-SS")
        );
        assert_eq!(
            all_impossible_models(["strong-snapshot-isolation"]),
            words("strong-snapshot-isolation PL-SS")
        );
        assert_eq!(impossible_models([]), words(""));
        assert_eq!(impossible_models(["empty-transaction-graph"]), words(""));
        assert_eq!(impossible_models(["GSI"]), words(""));
        assert_eq!(
            weakest_models(["strict-serializable", "serializable"]),
            words("PL-3")
        );
        assert_eq!(
            weakest_models(["snapshot-isolation", "repeatable-read", "PL-SS"]),
            words("PL-2.99 PL-SI")
        );
        assert_eq!(weakest_models([]), words(""));
        assert_eq!(weakest_models(["bogus"]), words("bogus"));
    }

    #[test]
    fn boundaries_for_single_anomalies() {
        // (found anomalies, each alone gives this :not), elle.md §2.4 and more.
        let cases = [
            (
                "G0 duplicate-elements cyclic-versions PL-1-cycle-exists garbage-read \
                 own-write-unseen future-read incompatible-order",
                "read-uncommitted",
            ),
            (
                "G1a G1b G1c dirty-update G1 PL-2-cycle-exists",
                "read-committed",
            ),
            ("internal", "read-atomic snapshot-isolation"),
            ("lost-update", "cursor-stability update-atomic"),
            ("G-single", "consistent-view"),
            ("G-single-item", "consistent-view repeatable-read"),
            ("G-nonadjacent-item", "repeatable-read snapshot-isolation"),
            ("G-nonadjacent PL-SI-cycle-exists", "snapshot-isolation"),
            ("G2-item PL-2.99-cycle-exists", "repeatable-read"),
            (
                "G2 write-skew PL-3-cycle-exists predicate-read-miss",
                "serializable",
            ),
            (
                "G-single-item-process G-nonadjacent-item-process G-single-process
                 G-nonadjacent-process G1-process",
                "strong-session-snapshot-isolation",
            ),
            ("G0-process", "strong-session-read-uncommitted"),
            ("G1c-process", "strong-session-read-committed"),
            ("G0-realtime", "strong-read-uncommitted"),
            ("G1c-realtime", "strong-read-committed"),
            (
                "G-single-realtime G-single-item-realtime G-nonadjacent-item-realtime
                 G-nonadjacent-realtime G1-realtime",
                "strong-snapshot-isolation",
            ),
            ("G2-item-process G2-process", "strong-session-serializable"),
            (
                "G2-item-realtime G2-realtime PL-SS-cycle-exists",
                "strong-serializable",
            ),
            ("G-cursor", "cursor-stability"),
            ("G-SIb", "forward-consistent-view"),
            ("G-update", "update-serializable"),
            ("G-MSR", "monotonic-snapshot-read"),
            ("G-monotonic", "monotonic-view"),
            ("empty-transaction-graph cycle-search-timeout GSIb GSI", ""),
        ];
        for (found, expected) in cases {
            for a in found.split_whitespace() {
                assert_eq!(not(a), words(expected), "{a}");
            }
        }
        assert_eq!(
            also_not("G2-item"),
            words("serializable strong-serializable strong-session-serializable")
        );
        assert_eq!(also_not("G2-realtime"), words(""));
        assert_eq!(
            friendly_boundary(["empty-transaction-graph"]),
            Boundary::default()
        );
        assert_eq!(friendly_boundary([]), Boundary::default());
        // Several anomalies: the weakest models of the union.
        assert_eq!(
            friendly_boundary(["G1c", "G2-item"]).not,
            words("read-committed")
        );
        assert_eq!(
            friendly_boundary(["internal", "lost-update"]).not,
            words("cursor-stability read-atomic")
        );
    }

    #[test]
    fn lone_g1c_also_not() {
        // elle.md "Not verified / open": the derived :also-not for a lone G1c.
        assert_eq!(not("G1c"), words("read-committed"));
        assert_eq!(
            also_not("G1c"),
            words(
                "causal causal-cerone consistent-view cursor-stability forward-consistent-view
                 linearizable sequential
                 monotonic-atomic-view monotonic-snapshot-read monotonic-view
                 parallel-snapshot-isolation prefix read-atomic repeatable-read serializable
                 snapshot-isolation strong-read-committed strong-serializable
                 strong-session-read-committed strong-session-serializable
                 strong-session-snapshot-isolation strong-snapshot-isolation update-atomic
                 update-serializable"
            )
        );
    }

    #[test]
    fn depths() {
        let mut order = cycle_anomalies();
        order.sort_by(|a, b| depth_order(a, b));
        let got: Vec<(&str, u32)> = order
            .iter()
            .map(|&a| (a, anomaly_depth(a).unwrap()))
            .collect();
        let expected = [
            ("G-single-item", 0),
            ("G0", 0),
            ("G-nonadjacent-item", 1),
            ("G-single-item-process", 1),
            ("G1c", 1),
            ("G-nonadjacent-item-process", 2),
            ("G-single", 2),
            ("G-single-item-realtime", 2),
            ("G2-item", 2),
            ("G-nonadjacent", 3),
            ("G-nonadjacent-item-realtime", 3),
            ("G2", 4),
            ("G0-process", 5),
            ("G1c-process", 6),
            ("G-single-process", 7),
            ("G2-item-process", 7),
            ("G-nonadjacent-process", 8),
            ("G2-process", 9),
            ("G0-realtime", 10),
            ("G1c-realtime", 11),
            ("G-single-realtime", 12),
            ("G2-item-realtime", 12),
            ("G-nonadjacent-realtime", 13),
            ("G2-realtime", 14),
        ];
        assert_eq!(got, expected);
        // Sources of the merged graph and proscribed-only anomalies are 0.
        let sources = "G1b lost-update future-read GSIa internal G-cursor PL-SS-cycle-exists
                       garbage-read";
        for a in words(sources) {
            assert_eq!(anomaly_depth(a), Some(0), "{a}");
        }
        assert_eq!(anomaly_depth("G1a"), Some(1));
        assert_eq!(anomaly_depth("write-skew"), Some(1));
        assert_eq!(anomaly_depth("G1"), Some(2));
        assert_eq!(anomaly_depth("G1-process"), Some(7));
        assert_eq!(anomaly_depth("G1-realtime"), Some(12));
        // Elle has no depth for these (nil sorts first).
        assert_eq!(anomaly_depth("empty-transaction-graph"), None);
        assert_eq!(depth_order("cycle-search-timeout", "G0"), Ordering::Less);
        assert_eq!(depth_order("G0", "G0"), Ordering::Equal);
        assert_eq!(depth_order("G2", "G0-process"), Ordering::Less);
        for a in known_anomalies() {
            let expect = ![
                EMPTY_TRANSACTION_GRAPH,
                CYCLE_SEARCH_TIMEOUT,
                MODEL_NOT_CHECKED,
            ]
            .contains(&a);
            assert_eq!(anomaly_depth(a).is_some(), expect, "{a}");
        }
    }
}
