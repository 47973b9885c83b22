//! Elle's consistency-model lattice (`elle.consistency-model`, Elle 0.2.x).
//!
//! The anomaly tables below mirror the Clojure maps verbatim: the anomaly
//! implication DAG (`implied-anomalies`) and the search-order DAG
//! (`anomaly-severity-graph`). What Elle's maps say of models
//! (`canonical-model-names`, `models`, `direct-proscribed-anomalies`) is
//! the model table's (`models::ROWS`), with isocheck's additions and
//! exceptions; this module derives from the rows the graphs and the
//! closures over them, built once, on first use, and answers every
//! question of the lattice by name.
//!
//! Names are plain strings without Clojure's leading colon (`"G-single-item"`,
//! `"PL-SI"`, `"strong-session-snapshot-isolation"`).
//!
//! As in Elle, the vertices of `models` and the keys of
//! `direct-proscribed-anomalies` are canonical names, so `serializable`,
//! `conflict-serializable` and `PL-3` are one vertex (one row).
//!
//! All closures are reachability sets that include their start vertices
//! (Bifurcan's `Graphs/bfsVertices`). A name that is not a vertex of a graph
//! simply has no edges there, as with Elle's `g/in`/`g/out`.

use super::model_graphs::ModelGraph;
pub use super::models::Definition;
use super::models::Model;
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

/// isocheck's: two reads of a list, neither a prefix of the other. Elle
/// takes it for a G1a (`implied-anomalies`): under one version order per
/// key, one of the reads saw a version that never existed. In Cerone et
/// al.'s and Biswas and Enea's framework a read shows the appends it sees,
/// in commit order, and two transactions may see different sets (appends
/// 1, 2, 3 in that order; one reader sees 1 and 2, another 1 and 3), so the
/// models whose row says so (`models::ModelRow::incompatible_orders`: the
/// axiomatic ones and monotonic atomic view) allow it: it is not prohibited
/// when they are all that is asked for, and finding one rules none of them
/// out (Cerone et al.'s update atomic and parallel snapshot isolation allow
/// it too; they are not decided yet). Prefix consistency, where what a
/// transaction sees is a prefix of the commit order, and the models of one
/// order (sequential, snapshot isolation, serializability) still prohibit
/// it.
const INCOMPATIBLE_ORDER: &str = "incompatible-order";

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

/// The definition a model name is checked by; `None` for a name the lattice
/// does not know.
pub fn definition(model: &str) -> Option<Definition> {
    Model::parse(model).map(|m| m.row().definition)
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

/// The canonical name of the model an axiomatic level decides.
pub fn axiomatic_model(level: Level) -> Option<&'static str> {
    super::models::ROWS
        .iter()
        .find(|r| r.definition == Definition::Axiomatic(level))
        .map(|r| r.name)
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
        let Some(m) = ModelGraph::of_anomaly(a) else {
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
    /// Builds the graph of `table`.
    fn build(table: Table) -> Graph {
        let mut g = Graph::default();
        for &(from, tos) in table {
            for &to in tos {
                g.link(from, to);
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
    /// `models`: the model table's implications, by canonical name.
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
        let implied = Graph::build(IMPLIED_ANOMALIES);
        let mut models = Graph::default();
        let mut proscribed = Graph::default();
        for m in Model::all() {
            for &n in m.row().implies {
                models.link(m.name(), n.name());
            }
            for a in direct_proscribed(m) {
                proscribed.link(m.name(), a);
            }
        }

        // anomaly-depths: topological depths over implied ∪ severity,
        // merged (max) with depth 0 for every directly proscribed anomaly.
        let mut merged = Graph::build(IMPLIED_ANOMALIES);
        for &(from, tos) in ANOMALY_SEVERITY {
            for &to in tos {
                merged.link(from, to);
            }
        }
        let mut depths = merged.topo_depths();
        for a in Model::all().flat_map(direct_proscribed) {
            depths.entry(a).or_insert(0);
        }

        let all_models = Model::all().flat_map(Model::names).collect();
        let anomalies = merged
            .vertices()
            .chain(Model::all().flat_map(direct_proscribed))
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

/// What a model proscribes directly: its row's anomalies and its
/// subgraph's `<model>-cycle-exists`.
fn direct_proscribed(m: Model) -> impl Iterator<Item = &'static str> {
    let cycle_exists = ModelGraph::of(m.name()).map(ModelGraph::anomaly);
    m.row().proscribes.iter().copied().chain(cycle_exists)
}

/// Elle's `canonical-model-name` without validation: the canonical name of a
/// known model, or the name itself.
fn canonical_or_self(name: &str) -> &str {
    Model::parse(name).map_or(name, |m| m.name())
}

/// Validates a model name (any of [`known_models`]) and returns its canonical
/// name (`serializable → PL-3`, `read-atomic → read-atomic`); `None` if the
/// model is unknown (Elle throws "Unknown consistency model").
pub fn canonical_model(name: &str) -> Option<&'static str> {
    Model::parse(name).map(Model::name)
}

/// Elle's `friendly-model-name`: the friendly name of a canonical model
/// (`PL-3 → serializable`, `PL-SS → strong-serializable`); any other name is
/// returned unchanged.
pub fn friendly_model(canonical: &str) -> &str {
    Model::parse(canonical)
        .filter(|m| m.name() == canonical)
        .map_or(canonical, |m| m.friendly())
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
/// the reads no abstract execution has (their rows' `also_prohibits`), not the Adya
/// models Elle's lattice places under it: their cycles are over the write
/// order Elle infers from one chain per key (a list's unobserved appends
/// after its longest read), which these models do not have. The cycles of
/// the orders they do have (session order, reads-from, each list read's
/// order) are their check's. Nor does it prohibit
/// `incompatible-order`.
pub fn anomalies_prohibited_by<'a>(
    models: impl IntoIterator<Item = &'a str>,
) -> BTreeSet<&'static str> {
    let (axiomatic, others): (Vec<&str>, Vec<&str>) = models
        .into_iter()
        .map(canonical_or_self)
        .partition(|m| matches!(definition(m), Some(Definition::Axiomatic(_))));
    // Monotonic atomic view allows incompatible orders as read atomic does,
    // though Elle's lattice puts read committed under it (see its row).
    let (lenient, others): (Vec<&str>, Vec<&str>) = others
        .into_iter()
        .partition(|&m| allows_incompatible_orders(m));
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

/// What these models (closed under implication) proscribe and prohibit
/// besides (`models::ModelRow::also_prohibits`), and every anomaly implying
/// one of those.
fn closed_prohibitions(implied: BTreeSet<&str>) -> BTreeSet<&'static str> {
    let l = lattice();
    let direct: Vec<&'static str> = implied
        .iter()
        .flat_map(|m| l.proscribed.out(m))
        .chain(implied.iter().flat_map(|&m| also_prohibited(m)).copied())
        .collect();
    l.implied.reach(direct, false)
}

/// What a model (canonical name) prohibits outside the proscription table.
fn also_prohibited(model: &str) -> &'static [&'static str] {
    Model::parse(model).map_or(&[], |m| m.row().also_prohibits)
}

/// Whether a model (canonical name) allows [`INCOMPATIBLE_ORDER`].
fn allows_incompatible_orders(model: &str) -> bool {
    Model::parse(model).is_some_and(|m| m.row().incompatible_orders)
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
/// Every anomaly type that rules out `model` (a canonical name): what the
/// cycle search looks for where a level's own check cannot run.
pub fn anomalies_ruling_out(model: &str) -> Vec<&'static str> {
    (lattice().anomalies.iter().copied())
        .filter(|&a| impossible_models([a]).contains(model))
        .collect()
}

pub fn impossible_models<'a>(found: impl IntoIterator<Item = &'a str>) -> BTreeSet<&'static str> {
    let (incompatible, others): (Vec<&str>, Vec<&str>) =
        found.into_iter().partition(|&a| a == INCOMPATIBLE_ORDER);
    let mut ruled_out = ruled_out_by(others);
    ruled_out.extend(
        ruled_out_by(incompatible)
            .into_iter()
            .filter(|&m| !allows_incompatible_orders(m)),
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
    use crate::check::model_graphs::{ModelGraph, MODEL_GRAPHS};
    use crate::check::taxonomy::CycleAnomaly;

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
        own-write-unseen future-read incompatible-order timestamp-inverted";
    const RC_EXTRA: &str = "G1 G1a G1b G1c PL-2-cycle-exists dirty-update";
    const SI: &str = "G0 G1 G1a G1b G1c internal future-read dirty-update incompatible-order
        duplicate-elements cyclic-versions lost-update G-single G-single-item G-nonadjacent
        G-nonadjacent-item G-SI G-SIb G-cursor G-monotonic G-MSR PL-1-cycle-exists
        PL-2-cycle-exists PL-SI-cycle-exists garbage-read own-write-unseen timestamp-inverted
        timestamp-lost-update timestamp-snapshot-read";

    #[test]
    fn tables_are_well_formed() {
        let l = lattice();
        for g in [&l.implied, &l.models, &l.proscribed] {
            for (v, outs) in &g.out {
                assert!(!outs.contains(v), "self-loop at {v}");
            }
        }
        for t in [IMPLIED_ANOMALIES, ANOMALY_SEVERITY] {
            let keys: BTreeSet<_> = t.iter().map(|&(k, _)| k).collect();
            assert_eq!(keys.len(), t.len());
        }
        // Every friendly name maps back to its canonical name.
        for m in Model::all() {
            assert_eq!(canonical_model(friendly_model(m.name())), Some(m.name()));
        }
    }

    #[test]
    fn every_model_has_one_definition() {
        let canonical: BTreeSet<&str> = known_models()
            .into_iter()
            .filter_map(canonical_model)
            .collect();
        let rows: Vec<&str> = Model::all().map(Model::name).collect();
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
        let session = words(
            "read-your-writes monotonic-reads monotonic-writes writes-follow-reads \
             read-committed-be PRAM",
        );
        let base =
            words("internal G1a G1b future-read duplicate-elements garbage-read own-write-unseen");
        for m in session {
            let prohibited = anomalies_prohibited_by([m]);
            for a in &base {
                // Biswas and Enea's read committed allows a non-repeatable read.
                let allowed = m == "read-committed-be" && *a == "internal";
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
            words("G1 G2 PL-3-cycle-exists internal predicate-read-miss timestamp-serial-read")
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
             writes-follow-reads-violation timestamp-inverted timestamp-lost-update
             timestamp-serial-read timestamp-snapshot-read",
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
        assert_eq!(all.len(), 24 + 14 + 35 + 4);
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
        let allowed: Vec<Model> = Model::all()
            .filter(|m| m.row().incompatible_orders)
            .collect();
        assert_eq!(allowed.len(), 10);
        for m in allowed {
            assert!(!b.also_not.contains(m.friendly()), "{m:?}");
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
             PL-3-cycle-exists timestamp-serial-read",
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

    /// `check::analyze` searches the cycle types and model graphs no
    /// requested model prohibits apart (`cycles::Wanted::split`), and only
    /// when the verdict reports something. That changes nothing else only
    /// if none of them implies a prohibited type (it would make that type's
    /// search redundant) or rules out a model whose graph is prohibited
    /// (the cycle-exists pass and the solver would skip it).
    #[test]
    fn unreported_searches_touch_nothing_reported() {
        use crate::check::cycles::Wanted;
        use crate::graph::Rel;
        for m in known_models() {
            let mut prohibited = prohibited_anomalies(Some(&[m]), &[]);
            drop_covered_characterisations(&mut prohibited, Some(&[m]));
            for order in [None, Some(Rel::Process), Some(Rel::Realtime)] {
                let (first, later) = Wanted::split(order, |a| prohibited.contains(a));
                let reported_graphs: Vec<&str> = first
                    .graphs
                    .iter()
                    .filter(|g| prohibited.contains(g.anomaly()))
                    .map(|g| g.model)
                    .collect();
                let types = later.specs.iter().map(|s| s.name());
                for x in types.chain(later.graphs.iter().map(|g| g.anomaly())) {
                    assert!(!prohibited.contains(x), "{m}: {x} searched later");
                    for y in all_implied_anomalies([x]) {
                        assert!(!prohibited.contains(y), "{m}: {x} implies prohibited {y}");
                    }
                    let ruled_out = impossible_models([x]);
                    for g in &reported_graphs {
                        assert!(!ruled_out.contains(g), "{m}: {x} rules out {g}");
                    }
                }
            }
        }
    }
}
