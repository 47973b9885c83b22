//! Checking: the table of cycle anomalies, the table of consistency models
//! and Elle's lattice derived from it, the dependency graph of a history,
//! the search for cycles, and the verdict as Elle's result map computes it.

pub mod cycles;
pub mod lattice;
pub mod mini;
pub mod model_graphs;
pub mod models;
pub mod polygraph;
pub mod sat;
pub mod stamped;
pub mod taxonomy;
pub mod timestamps;
pub mod uncertain;
pub mod verdict;
pub mod weak;

use cycles::SccFindings;
pub use cycles::{CycleExists, FoundCycle};
pub use mini::Path;
pub use uncertain::{Case, Forced, SolveOptions, Solved, Stopped};
pub use verdict::{Entry, Validity, Verdict};

use crate::graph::{
    nontrivial, order, tarjan, topological, Dep, Graph, Rel, RelSet, Version, NO_MOP,
};
use crate::history::{History, Status, TxnId, Val, Workload};
use crate::infer::{self, Anomaly, InferOptions, Inference};
use crate::limits::{self, Stage};
use crate::progress::Unit;
use model_graphs::MODEL_GRAPHS;
use models::Model;
use std::collections::BTreeSet;
use taxonomy::Variant;

/// What to check, with Elle's option names and defaults.
#[derive(Clone, Debug, Default)]
pub struct CheckOptions {
    /// `:consistency-models`; `None` means Elle's default, strict-serializable.
    pub consistency_models: Option<Vec<String>>,
    /// `:anomalies`: specific anomalies to prohibit in addition.
    pub anomalies: Vec<String>,
    /// Inference: which keys Elle's assumptions apply to.
    pub infer: InferOptions,
    /// The search over unknown version orders.
    pub solve: SolveOptions,
    /// Take the general path even for mini-transaction histories.
    pub no_fast_path: bool,
    /// Elle's rules for Jepsen histories (`--elle-compat`): Elle does not
    /// detect garbage reads, and several of its own tests read values nobody
    /// wrote, so they are looked for only when `anomalies` names
    /// `garbage-read`. Formats that log every committed transaction keep
    /// the check.
    pub elle_compat: bool,
    /// The options of Jepsen's standard checkers (bank, long-fork, set-full).
    pub jepsen: crate::checkers::JepsenOptions,
    /// Also check the reads against the timestamps the ops carry
    /// (`check::timestamps`): `History::stamps`, or read from the ops when
    /// the caller left it empty.
    pub check_timestamps: bool,
}

/// Options that name no model or anomaly Elle knows.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OptionError {
    /// A `:consistency-models` entry no model has as its name.
    #[error("unknown consistency model `{0}`")]
    UnknownModel(String),
    /// An `:anomalies` entry that names no anomaly.
    #[error("unknown anomaly `{0}`")]
    UnknownAnomaly(String),
    /// `--check-timestamps` on a history that writes a value to a key more
    /// than once: the checks find a read's writer by its value.
    #[error(
        "checking timestamps needs each value written to a key once; this history repeats one"
    )]
    TimestampsWithRepeatedWrites,
}

/// Everything the check derived from a history.
#[derive(Debug)]
pub struct Analysis {
    /// The non-cycle anomalies inference found.
    pub anomalies: Vec<Anomaly>,
    /// The inferred dependencies followed by the session or real-time order
    /// edges the requested anomalies need; `Graph` edges index into it.
    pub deps: Vec<Dep>,
    /// The dependency graph the cycle search ran on.
    pub graph: Graph,
    /// Which order edges the graph has (Elle builds one kind at most).
    pub order: Option<Rel>,
    /// Cycles found, SCC by SCC.
    pub cycles: Vec<FoundCycle>,
    /// Models whose subgraph has a cycle, per SCC.
    pub cycle_exists: Vec<CycleExists>,
    /// The axiomatic levels decided (`weak`), weakest first.
    pub levels: Vec<weak::Level>,
    /// The models decided through a dependency-graph characterisation
    /// (`lattice::characterisation`), canonical names.
    pub characterised: Vec<&'static str>,
    /// What rules out the axiomatic levels asked for (`weak`).
    pub weak: Vec<weak::Violation>,
    /// Cycles that every version order the history allows closes.
    pub forced: Vec<Forced>,
    /// Models the solver could not decide.
    pub stopped: Vec<Stopped>,
    /// How each model with uncertain orders was decided.
    pub solved: Vec<Solved>,
    /// Anomaly types that make the history invalid.
    pub prohibited: BTreeSet<&'static str>,
    /// Anomaly types worth reporting.
    pub reportable: BTreeSet<&'static str>,
    /// The requested models the check does not decide (canonical names):
    /// without a violation, validity is unknown, never true.
    pub unchecked: Vec<&'static str>,
    /// Reads of a value written more than once that more than one write
    /// could have given (`Inference::ambiguous`): their writers were chosen
    /// with the version order.
    pub ambiguous: usize,
    /// How many assignments of a writer to each of those reads there were
    /// (at most `u64::MAX`), when more than `weak::MAX_ASSIGNMENTS` left
    /// the axiomatic levels unchecked.
    pub assignments_beyond: Option<u64>,
    /// `--certain-only` left some read's writer unchosen: the requested
    /// models are unchecked for that reason.
    pub writers_unchosen: bool,
    /// Which path decided.
    pub path: Path,
    /// Whether a graph without dependencies says nothing (Elle's
    /// `:empty-transaction-graph`): true for Jepsen histories, which may
    /// leave out what other clients did, and for logs without a committed
    /// transaction. A complete log's committed transactions that only read
    /// the initial state were checked: nothing else could have been read.
    pub elle_empty_graph: bool,
}

/// Whether no dependency at all leaves `history` undecided, Elle's
/// `:empty-transaction-graph`: a Jepsen history may leave out what other
/// clients did, and a log without a committed transaction holds nothing to
/// check; a complete log's committed transactions that only read the
/// initial state were checked, as nothing else could have been read.
pub(crate) fn elle_empty_graph(history: &History) -> bool {
    !history.complete_log || !history.txns.iter().any(|t| t.status == Status::Committed)
}

impl Analysis {
    /// An analysis of `history` with these dependencies (and their graph)
    /// and nothing found yet.
    fn new(
        history: &History,
        deps: Vec<Dep>,
        order: Option<Rel>,
        (prohibited, reportable): (BTreeSet<&'static str>, BTreeSet<&'static str>),
        path: Path,
    ) -> Analysis {
        Analysis {
            anomalies: Vec::new(),
            graph: Graph::new(history.txns.len(), &deps),
            deps,
            order,
            cycles: Vec::new(),
            cycle_exists: Vec::new(),
            levels: Vec::new(),
            characterised: Vec::new(),
            weak: Vec::new(),
            forced: Vec::new(),
            stopped: Vec::new(),
            solved: Vec::new(),
            prohibited,
            reportable,
            unchecked: Vec::new(),
            ambiguous: 0,
            assignments_beyond: None,
            writers_unchosen: false,
            path,
            elle_empty_graph: elle_empty_graph(history),
        }
    }

    /// An analysis of `history` under `opts` whose dependencies are `deps`
    /// (no order edges) and nothing found yet: the report tests add the
    /// cycles and anomalies Elle's tests assert, and render them without the
    /// inference.
    pub fn of_deps(
        history: &History,
        opts: &CheckOptions,
        deps: Vec<Dep>,
    ) -> Result<Analysis, OptionError> {
        let types = anomaly_types(opts)?;
        let mut analysis = Analysis::new(history, deps, None, types, Path::General);
        analysis.unchecked = lattice::unchecked_models(requested_models(opts)?.as_deref());
        Ok(analysis)
    }

    /// No dependency of any kind was inferred (Elle's
    /// `:empty-transaction-graph`) and no write order had to be decided:
    /// writes in an unknown order that the solver found a valid order for
    /// are something checked.
    pub fn empty_graph(&self) -> bool {
        self.elle_empty_graph
            && self.deps.is_empty()
            && self.solved.is_empty()
            && !matches!(self.path, Path::Mini { .. } | Path::Timestamps { .. })
    }

    /// The transactions of a cycle, in order, with the first repeated at the end.
    pub fn cycle_txns(&self, c: &FoundCycle) -> Vec<TxnId> {
        let mut txns: Vec<TxnId> = self.cycle_steps(c).map(|d| d.from).collect();
        txns.extend(txns.first().copied());
        txns
    }

    /// The dependency behind each step of a cycle.
    pub fn cycle_steps<'a>(&'a self, c: &'a FoundCycle) -> impl Iterator<Item = &'a Dep> + 'a {
        c.steps.iter().map(move |&i| &self.deps[i as usize])
    }
}

/// The anomaly types the options prohibit, and those worth reporting.
pub fn anomaly_types(
    opts: &CheckOptions,
) -> Result<(BTreeSet<&'static str>, BTreeSet<&'static str>), OptionError> {
    let models = requested_models(opts)?;
    let anomalies = opts
        .anomalies
        .iter()
        .map(|a| lattice::anomaly(a).ok_or_else(|| OptionError::UnknownAnomaly(a.clone())))
        .collect::<Result<Vec<_>, _>>()?;
    let mut prohibited = lattice::prohibited_anomalies(models.as_deref(), &[]);
    lattice::drop_covered_characterisations(&mut prohibited, models.as_deref());
    // Anomalies asked for by name are prohibited whatever the models.
    prohibited.extend(lattice::prohibited_anomalies(Some(&[]), &anomalies));
    let reportable = lattice::reportable_anomalies(&prohibited);
    Ok((prohibited, reportable))
}

/// The requested models as canonical names; `None` for Elle's default.
fn requested_models(opts: &CheckOptions) -> Result<Option<Vec<&'static str>>, OptionError> {
    let Some(ms) = &opts.consistency_models else {
        return Ok(None);
    };
    ms.iter()
        .map(|m| lattice::canonical_model(m).ok_or_else(|| OptionError::UnknownModel(m.clone())))
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// Checks a history: inference, graph, cycle search.
///
/// When no cycle the verdict of a valid history needs has an rw edge and
/// no model asked for is decided over open orders (the axiomatic levels),
/// the graph is first built without rw edges, which are quadratic on hot
/// keys with blind writes;
/// should the verdict report anything, the check runs again, for `:not`,
/// `:also-not` and the explanations of cycles.
pub fn analyze(history: &History, opts: &CheckOptions) -> Result<Analysis, OptionError> {
    let (analysis, rw_wanted) = analyze_with(history, opts, None)?;
    if rw_wanted || verdict::verdict(&analysis).anomalies.is_empty() {
        return Ok(analysis);
    }
    let again = Again {
        ruled_out: verdict::ruled_out(&analysis),
        weak: analysis.weak,
    };
    analyze_with(history, opts, Some(again)).map(|(analysis, _)| analysis)
}

/// What a first pass that reported something hands the second.
struct Again {
    /// The axiomatic levels' violations, decided already.
    weak: Vec<weak::Violation>,
    /// The models what the first pass found rules out.
    ruled_out: BTreeSet<&'static str>,
}

/// [`analyze`]'s first pass (`again` is `None`), with the edges the cycles
/// it searches for may use, and whether the graph has every rw edge; or
/// its second. The second searches only for the cycles that could rule
/// out more models than the first found ruled out (all of them without
/// `SolveOptions::reduce`), and has every rw edge where a cycle reported
/// (and explained) or searched for may use one, orders are open, or
/// Elle's empty graph is to be told.
fn analyze_with(
    history: &History,
    opts: &CheckOptions,
    again: Option<Again>,
) -> Result<(Analysis, bool), OptionError> {
    let (mut prohibited, mut reportable) = anomaly_types(opts)?;
    if opts.check_timestamps && history.repeated_writes {
        return Err(OptionError::TimestampsWithRepeatedWrites);
    }
    let garbage_unasked = elle_compat_without_garbage_reads(history, opts);
    if garbage_unasked {
        for a in [lattice::GARBAGE_READ, lattice::OWN_WRITE_UNSEEN] {
            prohibited.remove(a);
            reportable.remove(a);
        }
    }
    let order = order_needed(history, &reportable);
    let models = requested_models(opts)?;
    let mut levels = lattice::axiomatic_levels(models.as_deref());
    // Where a read has several possible writers, the axiomatic levels may
    // be left unchecked (beyond `weak::MAX_ASSIGNMENTS`), which is known
    // only after inference: what rules them out is searched for and
    // reported all the same.
    if history.repeated_writes {
        let models = levels.iter().filter_map(|&l| lattice::axiomatic_model(l));
        let ruling_out: Vec<&str> = models.flat_map(lattice::anomalies_ruling_out).collect();
        prohibited.extend(&ruling_out);
        reportable.extend(&ruling_out);
    }
    limits::stage(Stage::FastPath);
    // The fast path knows cycles only: an axiomatic level takes the general one.
    // Nor does it know a read's several possible writers.
    let fast = !opts.no_fast_path && !opts.check_timestamps && !history.repeated_writes;
    let path = match opts.solve.enabled && fast && levels.is_empty() {
        true => mini::decide(history, &opts.infer, order, &prohibited),
        false => Path::General,
    };
    let path = match path {
        // The second pass follows a general first pass.
        Path::General if !opts.no_fast_path && !history.repeated_writes && again.is_none() => {
            timestamp_path(history, opts, models.as_deref())
        }
        path => path,
    };
    let mut analysis = Analysis::new(history, Vec::new(), order, (prohibited, reportable), path);
    analysis.unchecked = lattice::unchecked_models(models.as_deref());
    analysis.characterised = lattice::characterised_models(models.as_deref());
    // The axiomatic levels' facts know item reads, not what a predicate
    // read saw: in a closed-predicate history they are not decided.
    if history.workload == Workload::ClosedPredicate {
        let names = levels.drain(..).filter_map(lattice::axiomatic_model);
        analysis.unchecked.extend(names);
    }
    if let Path::Mini { .. } | Path::Timestamps { .. } = path {
        return Ok((analysis, true));
    }
    limits::stage(Stage::Inference);
    let open_wanted = open_orders_wanted(&analysis, models.as_deref());
    let (mut reported, unreported) =
        cycles::Wanted::split(order, |a| analysis.reportable.contains(a));
    reported.by_definition = by_definition(&analysis.characterised, &reported.specs);
    let second = again.is_some();
    let unreported = match &again {
        Some(again) if opts.solve.reduce => unreported.unsettled(&again.ruled_out),
        _ => unreported,
    };
    // A second pass explains its reported cycles and tells Elle's empty
    // graph (which counts rw edges) on every edge; without the reductions
    // it has every edge.
    let second_needs_rw = second
        && (!opts.solve.reduce
            || !reported.is_empty()
            || analysis.elle_empty_graph
            || unreported.relations().contains(Rel::Rw));
    let rw_wanted = open_wanted || reported.relations().contains(Rel::Rw) || second_needs_rw;
    // Without a cycle to search for, open orders, or Elle's empty graph to
    // tell, nothing reads the graph of a first pass: a verdict that
    // reports something is found again.
    let graph_wanted = rw_wanted
        || !reported.is_empty()
        || analysis.elle_empty_graph
        || (second && !unreported.is_empty());
    let edges = match (graph_wanted, rw_wanted) {
        (false, _) => infer::Edges::None,
        (true, false) => infer::Edges::WithoutRw,
        (true, true) => infer::Edges::All,
    };
    let (
        Inference {
            mut deps,
            anomalies,
            implied,
            constraints,
            chained,
            open: any_open,
            mut read_sources,
            ambiguous,
            ..
        },
        pending,
    ) = infer::infer_deferred(
        history,
        &opts.infer,
        opts.solve.reduce,
        open_wanted,
        edges,
        !second && !levels.is_empty(),
    );
    let (components, found_in) = match graph_wanted {
        true => {
            limits::stage(Stage::Order);
            deps.extend(order_deps(history, order));
            limits::stage(Stage::Graph);
            analysis.graph = Graph::new(history.txns.len(), &deps);
            search_reported(&mut analysis, &reported)
        }
        false => (Vec::new(), Vec::new()),
    };
    analysis.ambiguous = ambiguous.len();
    // Without the solver no read's writer is chosen: what the ambiguous
    // reads would show is not checked (Elle refuses such a history).
    if !ambiguous.is_empty() && !opts.solve.enabled {
        analysis.writers_unchosen = true;
        let requested = models.as_deref().unwrap_or(&[lattice::DEFAULT_MODEL]);
        analysis.unchecked.extend(requested.iter().copied());
    }
    // The axiomatic levels take one writer per read: they are decided once
    // per assignment of writers to the ambiguous reads, up to a bound
    // (`--certain-only` chooses none).
    let assignments = weak::assignments(&ambiguous);
    if opts.solve.enabled && assignments > weak::MAX_ASSIGNMENTS && !levels.is_empty() {
        analysis.assignments_beyond = Some(assignments);
    }
    if !ambiguous.is_empty() && (!opts.solve.enabled || assignments > weak::MAX_ASSIGNMENTS) {
        let names = levels.drain(..).filter_map(lattice::axiomatic_model);
        analysis.unchecked.extend(names);
    }
    if !second && !levels.is_empty() {
        limits::stage(Stage::Saturation);
    }
    analysis.weak = match again {
        Some(again) => again.weak,
        None if ambiguous.is_empty() => weak::check_with_sources(history, &levels, &read_sources),
        None => weak::check_over_choices(history, &levels, &mut read_sources, &ambiguous),
    };
    drop(read_sources);
    analysis.levels = levels;
    analysis.anomalies = anomalies;
    if opts.check_timestamps {
        let checks = timestamps::Checks::for_models(models.as_deref());
        let found = timestamps::check(history, &stamps_of(history), checks);
        analysis.anomalies.extend(found);
    }
    if garbage_unasked {
        analysis.anomalies.retain(|x| {
            !matches!(
                x,
                Anomaly::GarbageRead { .. } | Anomaly::OwnWriteUnseen { .. }
            )
        });
    }
    analysis.deps = deps;
    let unchained = || infer::unchained_constraints(history, &opts.infer);
    let found = uncertain::Found::new(constraints, any_open, pending);
    let completion = (history.txns.iter())
        .map(|t| t.completion.unwrap_or(u32::MAX))
        .collect();
    let open = uncertain::Open::new(
        found,
        completion,
        chained,
        &unchained,
        !ambiguous.is_empty(),
    );
    let order_open = !(!any_open && implied.is_empty() && !chained);
    let session = if order_open {
        limits::stage(Stage::Order);
        order::process_edges(history)
    } else {
        Vec::new()
    };
    let mut undecided = match order_open {
        true => lattice::order_known_models(models.as_deref()),
        false => Vec::new(),
    };
    // Snapshot isolation (Cerone et al.'s: strong session snapshot
    // isolation's graph) implies parallel snapshot isolation and prefix
    // consistency: where its graph holds over some version order, the
    // solver need not decide theirs (for parallel snapshot isolation, which
    // it cannot decide, the cycle search and the weak check decide the
    // rest). Its graph prunes more pairs than prefix consistency's, so it
    // is also the quicker way to prefix consistency's `Holds`.
    let si = Model::StrongSessionSnapshotIsolation.name();
    if order_open
        && !analysis.characterised.is_empty()
        && uncertain::holds(&mut analysis, si, &implied, &open, &session, &opts.solve)
    {
        undecided.retain(|&m| m != Model::ParallelSnapshotIsolation.name());
    }
    uncertain::decide_all(&mut analysis, &implied, &open, &session, &opts.solve);
    analysis.unchecked.extend(undecided);
    verdict::name_proven_models(&mut analysis);
    // Without rw edges, a verdict that reports something is found again.
    if rw_wanted || second {
        search_unreported(&mut analysis, &components, &found_in, &unreported);
    }
    Ok((analysis, rw_wanted))
}

/// The cycle types among `specs` searched by a model's definition rather
/// than by Elle's count of their steps (`cycles::Wanted::by_definition`):
/// those parallel snapshot isolation prohibits, where it is decided as a
/// model of its own.
fn by_definition(characterised: &[&str], specs: &[cycles::Spec]) -> Vec<cycles::Spec> {
    let psi = Model::ParallelSnapshotIsolation;
    if !characterised.contains(&psi.name()) {
        return Vec::new();
    }
    let prohibited = psi.row().also_prohibits;
    (specs.iter().copied())
        .filter(|s| prohibited.contains(&s.name()))
        .collect()
}

/// `Path::Timestamps` when the timestamps `history`'s ops carry prove
/// every model asked for (`stamped`), else `Path::General`. Options that
/// add to what the general path knows (named anomalies, version-order
/// assumptions, a solver turned off) leave the decision to it.
fn timestamp_path(history: &History, opts: &CheckOptions, models: Option<&[&'static str]>) -> Path {
    let plain = opts.anomalies.is_empty()
        && opts.solve.enabled
        && opts.infer == infer::InferOptions::default()
        && history.workload == crate::history::Workload::RwRegister;
    if !plain {
        return Path::General;
    }
    let default = [lattice::DEFAULT_MODEL];
    let models = models.unwrap_or(&default);
    let stamps = stamps_of(history);
    if stamps.iter().all(Option::is_none) {
        return Path::General;
    }
    limits::stage(Stage::Timestamps);
    match stamped::proves(history, &stamps, models) {
        Some(txns) => Path::Timestamps { txns },
        None => Path::General,
    }
}

/// The timestamps `history`'s ops carry: those the caller read
/// (`commit_order::read_stamps`, which says what is wrong with them), or
/// read here, where timestamps that do not read as integers are none.
fn stamps_of(
    history: &History,
) -> std::borrow::Cow<'_, [Option<crate::history::commit_order::Stamp>]> {
    match history.stamps.is_empty() {
        false => std::borrow::Cow::Borrowed(&history.stamps),
        true => {
            let read = crate::history::commit_order::stamps(history).unwrap_or_default();
            std::borrow::Cow::Owned(read)
        }
    }
}

/// Searches each component of the graph for the cycle types and model
/// graphs a report needs; the components, and what each had.
fn search_reported(
    analysis: &mut Analysis,
    reported: &cycles::Wanted,
) -> (Vec<Vec<u32>>, Vec<SccFindings>) {
    limits::stage(Stage::Cycles);
    let components = sccs(&analysis.graph);
    let mut found_in = Vec::with_capacity(components.len());
    for (i, scc) in components.iter().enumerate() {
        limits::at(i, components.len(), Unit::Components);
        let found = cycles::search_scc(&analysis.graph, scc, reported, &SccFindings::default());
        analysis.keep(&found);
        found_in.push(found);
    }
    (components, found_in)
}

/// Searches the components for the cycle types and model graphs nothing
/// reports, which only `:not` and `:also-not` use (Elle draws the boundary
/// from every anomaly found): so only when the verdict reports something.
/// A valid history is spared the search, which can cost far more than the
/// rest of the check (a giant component where no cycle of a type exists is
/// searched once from every anchor edge). Searching these apart changes
/// nothing else: a type reported is prohibited, so is every type implying
/// it and every model implied, so what is not reported never makes a
/// reported type redundant, nor rules out a model whose graph is decided
/// (`lattice`'s `unprohibited_cycle_types_touch_nothing_prohibited`).
fn search_unreported(
    analysis: &mut Analysis,
    components: &[Vec<u32>],
    found_in: &[SccFindings],
    unreported: &cycles::Wanted,
) {
    if unreported.is_empty() || verdict::verdict(analysis).anomalies.is_empty() {
        return;
    }
    limits::stage(Stage::Cycles);
    for (i, (scc, earlier)) in components.iter().zip(found_in).enumerate() {
        limits::at(i, components.len(), Unit::Components);
        let found = cycles::search_scc(&analysis.graph, scc, unreported, earlier);
        analysis.keep(&found);
    }
}

impl Analysis {
    /// Keeps what the search found in a component; a characterised model's
    /// graph is reported, and rules models out, only when asked for: other
    /// models' reports stay Elle's.
    fn keep(&mut self, found: &SccFindings) {
        self.cycles.extend(found.cycles.iter().cloned());
        let reportable = &self.reportable;
        let kept = found.cycle_exists.iter().filter(|c| {
            lattice::characterisation(c.graph.model).is_none()
                || reportable.contains(c.graph.anomaly())
        });
        self.cycle_exists.extend(kept.cloned());
    }
}

/// Whether inference is to look for the orders the history leaves open:
/// not when no model asked for is decided over them (each is decided by
/// saturation, or its graph is not reported), since finding them can cost
/// more than the rest of the check.
fn open_orders_wanted(a: &Analysis, models: Option<&[&str]>) -> bool {
    !a.characterised.is_empty()
        || !lattice::order_known_models(models).is_empty()
        || MODEL_GRAPHS
            .iter()
            .any(|mg| mg.base.contains(Rel::Wr) && a.reportable.contains(mg.anomaly()))
}

/// Whether garbage reads are left out, as Elle leaves them out: asked for
/// Elle's rules (`--elle-compat`), on a Jepsen history, without
/// `--anomalies garbage-read`. Unseen own writes go with them (Elle reports
/// them as `internal`, which stays).
fn elle_compat_without_garbage_reads(history: &History, opts: &CheckOptions) -> bool {
    let asked = opts
        .anomalies
        .iter()
        .any(|a| lattice::anomaly(a) == Some(lattice::GARBAGE_READ));
    opts.elle_compat && !history.complete_log && !asked
}

/// Elle builds the real-time graph when a reportable anomaly needs it, else
/// the process graph when one needs that, else neither. Histories without
/// timing (PolySI, dbcop, Cobra) only have sessions.
fn order_needed(history: &History, reportable: &BTreeSet<&'static str>) -> Option<Rel> {
    let wants = |v: Variant| reportable.iter().any(|a| Variant::of_name(a) == v);
    // Prefix consistency's graph has session order without a `-process`
    // anomaly of its own.
    let session_graph = reportable
        .iter()
        .filter_map(|a| model_graphs::ModelGraph::of_anomaly(a))
        .any(|m| m.base.contains(Rel::Process));
    if wants(Variant::Realtime) && history.has_realtime {
        Some(Rel::Realtime)
    } else if wants(Variant::Process) || wants(Variant::Realtime) || session_graph {
        Some(Rel::Process)
    } else {
        None
    }
}

fn order_deps(history: &History, order: Option<Rel>) -> Vec<Dep> {
    let (rel, edges) = match order {
        Some(Rel::Realtime) => (Rel::Realtime, order::realtime_edges(history)),
        Some(Rel::Process) => (Rel::Process, order::process_edges(history)),
        _ => return Vec::new(),
    };
    edges
        .into_iter()
        .map(|(from, to)| Dep {
            from,
            to,
            rel,
            key: Val::NIL,
            value: Version::Init,
            value2: Version::Init,
            a_mop: NO_MOP,
            b_mop: NO_MOP,
        })
        .collect()
}

/// The non-trivial strongly connected components of the whole graph.
fn sccs(g: &Graph) -> Vec<Vec<u32>> {
    let all = RelSet::of(&Rel::ALL);
    // Most graphs are acyclic, and a topological sort shows it for less
    // than Tarjan's search costs.
    if topological(g.vertex_count(), |v| g.out(v, all).map(|(_, w)| w)).is_some() {
        return Vec::new();
    }
    let (comp, count) = tarjan(g.vertex_count(), |v, out| {
        out.extend(g.out(v, all).map(|(_, w)| w))
    });
    nontrivial(&comp, count)
}
