//! Models decided over every version order the history allows (SPEC §3).
//! For each model whose graph the certain edges leave acyclic, the polygraph
//! decides whether some resolution of the constraints keeps it acyclic. When
//! none does, a minimal set of constraints becomes an anomaly like any other:
//! named with Elle's taxonomy from the cycle each of its resolutions closes.

use super::cycles::{self, FoundCycle, ModelGraph, MODEL_GRAPHS};
use super::polygraph::{self, Decided, Decision, Edge, Problem, Settings, Stats};
use super::{lattice, verdict, Analysis};
use crate::graph::{csr, nontrivial, tarjan, topological, Dep, Graph, Rel, RelSet};
use crate::history::TxnId;
use crate::infer::{Clause, Clauses, Constraint, Constraints, Kind, Pair, Pending};
use crate::limits::{self, Stage};
use crate::progress::Unit;
use std::cell::{OnceCell, RefCell};
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};
use std::time::{Duration, Instant};

/// How uncertain version orders are decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SolveOptions {
    /// Search over unknown write orders at all; off, the check sees only
    /// the version order inference sees, as Elle does.
    pub enabled: bool,
    /// PolySI's pruning before the solver (on by default).
    pub pruning: bool,
    /// Give up (`:valid? :unknown`) after this long.
    pub timeout: Option<Duration>,
    /// Decide models on reduced constraints first (on by default): models
    /// whose graph has rw edges on read-modify-write chains
    /// (`Inference::chained`), plain-acyclicity ones without pairs of unread
    /// writes (`Constraint::unread`), and models without rw edges on no
    /// constraint at all where the known edges are acyclic
    /// (`Decider::along_known`); and a violation placed in the lattice by
    /// searching only for the cycles that could rule out more models
    /// (`cycles::Wanted::unsettled`).
    pub reduce: bool,
    /// The fewest open constraints one solver decides
    /// (`polygraph::Settings::min_batch`); tests make it 1, so that small
    /// histories are split into parts as large ones are.
    pub min_batch: usize,
}

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions {
            enabled: true,
            pruning: true,
            timeout: None,
            reduce: true,
            min_batch: polygraph::MIN_BATCH,
        }
    }
}

/// A cycle no version order avoids.
#[derive(Clone, Debug)]
pub struct Forced {
    /// An anomaly type every resolution has one of (up to implication), or
    /// the model's `<model>-cycle-exists`.
    pub name: &'static str,
    /// The canonical model whose graph has a cycle in every resolution.
    pub model: &'static str,
    /// A minimal set of transaction pairs whose write order is unknown.
    pub pairs: Vec<Constraint>,
    /// The cycle of each resolution of the pairs (none when there are too
    /// many resolutions to list).
    pub cases: Vec<Case>,
}

impl Forced {
    /// The transaction of each order pair (`Kind::Order`) whose writes come
    /// first in a case, in the order of `pairs`.
    pub fn writes_first(&self, case: &Case) -> Vec<TxnId> {
        self.pairs
            .iter()
            .zip(&case.choice)
            .filter(|(p, _)| p.kind == Kind::Order)
            .map(|(p, &s)| if s == 0 { p.a } else { p.b })
            .collect()
    }

    /// The writer choices a case makes: (reader, writer) per read of a
    /// repeated value, in the order of `pairs`.
    pub fn reads_from(&self, case: &Case) -> Vec<(TxnId, TxnId)> {
        (self.pairs.iter().zip(&case.choice))
            .filter(|(p, &s)| p.kind == Kind::ReadFrom && s == 0)
            .map(|(p, _)| (p.b, p.a))
            .collect()
    }

    /// The pairs of unknown write order (`Kind::Order`).
    pub fn orders(&self) -> impl Iterator<Item = &Constraint> {
        self.pairs.iter().filter(|p| p.kind == Kind::Order)
    }
}

/// One resolution of a forced anomaly's pairs and the cycle it closes.
#[derive(Clone, Debug)]
pub struct Case {
    /// The side taken of each pair: 0 when its first transaction's writes
    /// come first.
    pub choice: Vec<u8>,
    pub cycle: FoundCycle,
}

/// A model the solver did not decide.
#[derive(Clone, Debug)]
pub struct Stopped {
    pub model: &'static str,
    pub reason: String,
    pub constraints: usize,
    /// Construct, or solve (pruning included).
    pub stage: Stage,
}

/// How one model was decided, for `-v`.
#[derive(Clone, Debug)]
pub struct Solved {
    pub model: &'static str,
    pub decision: Decision,
    /// An attempt with the session order added, which settles the model
    /// only if it holds.
    pub with_session: bool,
    /// A snapshot-isolation model decided without the extension: every
    /// cycle of `A ∪ rw` forbidden, which only `Holds` can settle.
    pub serially: bool,
    /// Decided on read-modify-write chains (`Inference::chained`), which
    /// only `Holds` settles.
    pub chained: bool,
    /// Decided without the pairs of unread writes (`Constraint::unread`),
    /// which only `Holds` settles.
    pub without_unread: bool,
    /// A model without rw edges found to hold because its known edges are
    /// acyclic (`Decider::along_known`): no constraint was built.
    pub along_known: bool,
    /// A model with rw edges found to hold by one version order chosen
    /// without the solver (`Decider::witness`): no constraint was built.
    pub witness: bool,
    pub construct: Duration,
    pub stats: Stats,
}

/// How a model was shown to hold without the solver.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Unsolved {
    /// [`Solved::along_known`].
    AlongKnown,
    /// [`Solved::witness`].
    Witness,
}

impl Solved {
    /// A model that holds, shown without building a constraint.
    fn unsolved(model: &'static str, started: Instant, how: Unsolved) -> Solved {
        Solved {
            model,
            decision: Decision::Holds,
            with_session: false,
            serially: false,
            chained: false,
            without_unread: false,
            along_known: how == Unsolved::AlongKnown,
            witness: how == Unsolved::Witness,
            construct: started.elapsed(),
            stats: Stats::default(),
        }
    }
}

/// At most `2^MAX_CASE_PAIRS` resolutions are listed.
const MAX_CASE_PAIRS: usize = 8;

/// The constraints inference found (`infer::infer_deferred`): built there,
/// or built when a model first needs them.
pub struct Found<'h> {
    cell: OnceCell<Constraints>,
    any: bool,
    pending: RefCell<Option<Pending<'h>>>,
}

impl<'h> Found<'h> {
    /// `built` are the constraints inference built; when it deferred them
    /// (none built, though `any`), `pending` builds them, once.
    pub fn new(built: Constraints, any: bool, pending: Pending<'h>) -> Found<'h> {
        let cell = OnceCell::new();
        if !built.is_empty() || !any {
            let _ = cell.set(built);
        }
        Found {
            cell,
            any,
            pending: RefCell::new(Some(pending)),
        }
    }

    /// The constraints, built on the first call if deferred: a limit
    /// reached building them stops the whole check in the inference stage,
    /// as it did when inference built them.
    fn get(&self) -> &Constraints {
        self.cell.get_or_init(|| {
            limits::stage(Stage::Inference);
            let pending = self.pending.borrow_mut().take();
            pending.map(Pending::constraints).unwrap_or_default()
        })
    }

    /// The edges of one version order (`Pending::adjacent_edges`), while
    /// the constraints are still deferred.
    fn adjacent_edges(&self, rank: &[u32]) -> Option<Vec<Dep>> {
        if self.cell.get().is_some() {
            return None;
        }
        self.pending.borrow().as_ref()?.adjacent_edges(rank)
    }
}

/// The constraints models are decided on: inference's, and when those are
/// chained (`Inference::chained`), the unchained ones, inferred once when a
/// model or an explanation first needs them.
pub struct Open<'c> {
    found: Found<'c>,
    /// Each transaction's completion (`OpId::MAX` for none): the order a
    /// database that installs writes at commit most likely installed them.
    completion: Vec<u32>,
    pub chained: bool,
    unchained: &'c dyn Fn() -> Constraints,
    cache: OnceCell<Constraints>,
    /// Some read's writer is a choice (`Inference::ambiguous`): the
    /// shortcuts that take every wr edge as known step aside.
    choices: bool,
}

impl<'c> Open<'c> {
    /// `unchained` infers the constraints without chains collapsed; it is
    /// called at most once, and only when `chained`. `completion`: see
    /// `Open::completion`. `choices`: some read's writer is a choice.
    pub fn new(
        found: Found<'c>,
        completion: Vec<u32>,
        chained: bool,
        unchained: &'c dyn Fn() -> Constraints,
        choices: bool,
    ) -> Open<'c> {
        Open {
            found,
            completion,
            chained,
            unchained,
            cache: OnceCell::new(),
            choices,
        }
    }

    fn is_empty(&self) -> bool {
        !self.found.any && !self.chained
    }

    /// Inference's constraints, built if they were deferred.
    fn found(&self) -> &Constraints {
        self.found.get()
    }

    /// How a model may be decided on `found` before every pair, if it may.
    /// Chains hold only where the graph has rw edges; unread pairs may be
    /// left out where it is plain acyclicity (serializability's graph is
    /// tried first for snapshot isolation too).
    fn reduced(&self, mg: ModelGraph, found: &Constraints) -> Option<Reduced> {
        if self.chained && !in_model(mg, Rel::Rw) {
            return None;
        }
        let unread = found.iter().any(|c| c.unread);
        (self.chained || unread).then_some(Reduced {
            chained: self.chained,
            unread,
        })
    }

    /// The constraints every model may be decided and explained on.
    fn unchained(&self) -> &Constraints {
        match self.chained {
            false => self.found(),
            true => self.cache.get_or_init(self.unchained),
        }
    }
}

/// Decides every model the options ask about that the certain graph leaves
/// open, recording forced anomalies, undecided models and statistics.
pub fn decide_all(
    a: &mut Analysis,
    implied: &[Dep],
    open: &Open,
    session: &[(u32, u32)],
    opts: &SolveOptions,
) {
    if (open.is_empty() && implied.is_empty()) || !opts.enabled {
        return;
    }
    let mut d = Decider::new(a, implied, session, opts);
    // Models already found to hold (`holds`) settle those they cover too.
    let order = d.a.order;
    let mut holding: Vec<ModelGraph> = (d.a.solved.iter())
        .filter(|s| s.decision == Decision::Holds)
        .filter_map(|s| ModelGraph::of(s.model))
        .map(|&mg| effective(mg, order))
        .collect();
    // Strongest first: a model that holds settles every model whose graph
    // is part of its own.
    for mg in MODEL_GRAPHS.into_iter().rev() {
        let mg = effective(mg, d.a.order);
        // Models without wr (PL-1 and its session and real-time variants)
        // forbid ww cycles only, and ordering every key's versions along a
        // topological order of the certain graph never closes one.
        if !mg.base.contains(Rel::Wr)
            || d.impossible.contains(mg.model)
            || holding.iter().any(|&h| covers(h, mg))
            || !d.a.reportable.contains(mg.anomaly())
        {
            continue;
        }
        match d.decide(mg, open, opts.reduce) {
            Flow::Held => holding.push(mg),
            Flow::Violated | Flow::Unsettled => {}
            Flow::Stopped => break,
        }
    }
}

/// What a decision leaves out of the constraints; only `Holds` counts when
/// anything is.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Reduced {
    /// The constraints are of read-modify-write chains.
    chained: bool,
    /// Those with `Constraint::unread` are left out where the decision is
    /// plain acyclicity.
    unread: bool,
}

impl Reduced {
    const NONE: Reduced = Reduced {
        chained: false,
        unread: false,
    };
}

/// How deciding one model ended.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Flow {
    Held,
    /// Violated: a forced anomaly is recorded.
    Violated,
    /// Violated on reduced constraints, which settle nothing but `Held`.
    Unsettled,
    /// Stopped by a limit: weaker models are not tried.
    Stopped,
}

/// What deciding the models of one analysis shares.
struct Decider<'a, 'i> {
    a: &'a mut Analysis,
    known: Known<'i>,
    impossible: BTreeSet<&'static str>,
    session: &'i [(u32, u32)],
    deadline: Option<Instant>,
    pruning: bool,
    min_batch: usize,
    /// Explain a violation as a forced anomaly (not when only `Holds`
    /// matters).
    explain: bool,
}

impl<'a, 'i> Decider<'a, 'i> {
    fn new(
        a: &'a mut Analysis,
        implied: &'i [Dep],
        session: &'i [(u32, u32)],
        opts: &SolveOptions,
    ) -> Decider<'a, 'i> {
        // Inside a limited check the deadline was set before reading began.
        let deadline =
            limits::deadline().or_else(|| opts.timeout.and_then(|t| Instant::now().checked_add(t)));
        Decider {
            known: Known {
                certain: a.deps.len(),
                implied,
            },
            impossible: lattice::impossible_models(verdict::all_anomalies(a).into_keys()),
            session,
            deadline,
            pruning: opts.pruning,
            min_batch: opts.min_batch,
            explain: true,
            a,
        }
    }

    /// Decides one model: on reduced constraints first, which settle a
    /// model that holds; anything else is decided again on every pair,
    /// which also explains a violation.
    fn decide(&mut self, mg: ModelGraph, open: &Open, reduce: bool) -> Flow {
        // Without a read's writer, the known edges are not a resolution;
        // the witness chooses one (`Pending::adjacent_edges`).
        if reduce && ((!open.choices && self.along_known(mg)) || self.witness(mg, open)) {
            return Flow::Held;
        }
        let found = open.found();
        let mut flow = Flow::Unsettled;
        if let Some(reduced) = reduce.then(|| open.reduced(mg, found)).flatten() {
            flow = self.model(mg, found, reduced);
        }
        if flow == Flow::Unsettled {
            // A limit reached inferring them stops this model only.
            flow = match limits::attempt(|| {
                limits::stage_of(Stage::Construct, mg.model);
                open.unchained()
            }) {
                Ok(constraints) => self.model(mg, constraints, Reduced::NONE),
                Err(stop) => self.stopped(mg, stop, found.len()),
            };
        }
        flow
    }
}

/// A topological order of `0..n` along `edges` (each vertex's position),
/// taking among the vertices free to come next the one that completed
/// first; `None` when the edges have a cycle.
fn completion_rank(
    n: usize,
    edges: impl Iterator<Item = (u32, u32)> + Clone,
    completion: &[u32],
) -> Option<Vec<u32>> {
    let (start, succ) = csr(n, edges);
    let mut indeg = vec![0u32; n];
    for &s in &succ {
        indeg[s as usize] += 1;
    }
    let key = |v: u32| Reverse((completion.get(v as usize).copied().unwrap_or(u32::MAX), v));
    let mut free: BinaryHeap<_> = (0..n as u32)
        .filter(|&v| indeg[v as usize] == 0)
        .map(key)
        .collect();
    let mut rank = vec![0u32; n];
    let mut next = 0u32;
    while let Some(Reverse((_, v))) = free.pop() {
        limits::tick();
        rank[v as usize] = next;
        next += 1;
        for &s in &succ[start[v as usize] as usize..start[v as usize + 1] as usize] {
            indeg[s as usize] -= 1;
            if indeg[s as usize] == 0 {
                free.push(key(s));
            }
        }
    }
    (next as usize == n).then_some(rank)
}

/// Whether the graph of `model` (a row of `MODEL_GRAPHS`) is acyclic in
/// some resolution, asked before `decide_all` (the dependencies must be the
/// certain ones): a sufficient condition for weaker models (snapshot
/// isolation's, for parallel snapshot isolation, which the solver does not
/// decide, and prefix consistency). Only how it was decided is kept
/// (`Solved`): a violation or a stop says nothing of the weaker models, so
/// a violation is not explained.
pub fn holds(
    a: &mut Analysis,
    model: &str,
    implied: &[Dep],
    open: &Open,
    session: &[(u32, u32)],
    opts: &SolveOptions,
) -> bool {
    let Some(&mg) = ModelGraph::of(model) else {
        return false;
    };
    if !opts.enabled {
        return false;
    }
    let stopped = a.stopped.len();
    let mg = effective(mg, a.order);
    let mut d = Decider::new(a, implied, session, opts);
    // A cycle among the certain dependencies already rules it out.
    if d.impossible.contains(mg.model) {
        return false;
    }
    d.explain = false;
    let held = d.decide(mg, open, opts.reduce) == Flow::Held;
    a.stopped.truncate(stopped);
    held
}

impl Decider<'_, '_> {
    /// Whether a model whose graph has no rw edges holds because its known
    /// edges are acyclic, recorded as `Solved` when it does. There a
    /// constraint's two sides differ only in ww edges: sides are made of ww
    /// and rw edges alone (`Versions::precedes_keyed`), and every wr edge is
    /// known. Ordering every key's writes along a topological order of the
    /// known edges takes, of each pair, the side whose ww edge goes forward,
    /// so that resolution is acyclic. The converse holds too (known edges
    /// are in every resolution), but a cycle among them is left to the
    /// solver, which explains it as a forced anomaly: `false`.
    fn along_known(&mut self, mg: ModelGraph) -> bool {
        if in_model(mg, Rel::Rw) {
            return false;
        }
        let started = Instant::now();
        let n = self.a.graph.vertex_count();
        let ends = (self.known.of(&self.a.deps, mg)).map(|d| (d.from, d.to));
        let (start, succ) = csr(n, ends);
        let out = |v: u32| &succ[start[v as usize] as usize..start[v as usize + 1] as usize];
        if topological(n, |v| out(v).iter().copied()).is_none() {
            return false;
        }
        self.a
            .solved
            .push(Solved::unsolved(mg.model, started, Unsolved::AlongKnown));
        true
    }

    /// Whether one version order, chosen without the solver, shows that a
    /// model with rw edges holds: every key's writes in a topological order
    /// of the known edges but rw ones, ties broken by completion (where a
    /// database that installs writes at commit put them), while the
    /// constraints are deferred. The graph of its known edges and of the
    /// edges between consecutive versions holds every edge the sides of
    /// that resolution give as a path: ww to a later version is ww along
    /// the versions between, and rw to a later version is rw to the next
    /// followed by ww, which under the extension arrives after A, where
    /// every edge may follow. So where that graph is acyclic in the model,
    /// so is the resolution, and the model holds; anything else settles
    /// nothing.
    fn witness(&mut self, mg: ModelGraph, open: &Open) -> bool {
        if !in_model(mg, Rel::Rw) {
            return false;
        }
        let started = Instant::now();
        let n = self.a.graph.vertex_count();
        let ordering = (self.known.of(&self.a.deps, mg))
            .filter(|d| d.rel != Rel::Rw)
            .map(|d| (d.from, d.to));
        let Some(rank) = completion_rank(n, ordering, &open.completion) else {
            return false;
        };
        let Some(adjacent) = open.found.adjacent_edges(&rank) else {
            return false;
        };
        let known = (self.known.of(&self.a.deps, mg))
            .chain(&adjacent)
            .filter_map(|d| edge(mg, d))
            .collect();
        drop(adjacent);
        let problem = Problem::new(n as u32, mg.extension, known);
        if !polygraph::known_acyclic(&problem) {
            return false;
        }
        self.a
            .solved
            .push(Solved::unsolved(mg.model, started, Unsolved::Witness));
        true
    }

    /// Records a limit reached before solving.
    fn stopped(&mut self, mg: ModelGraph, stop: limits::Stop, constraints: usize) -> Flow {
        self.a.stopped.push(Stopped {
            model: mg.model,
            reason: stop.reason.name().to_string(),
            constraints,
            stage: stop.stage,
        });
        Flow::Stopped
    }

    /// Decides one model on `constraints` (`reduced`: only `Held` counts),
    /// recording what it found.
    fn model(&mut self, mg: ModelGraph, constraints: &Constraints, reduced: Reduced) -> Flow {
        let started = Instant::now();
        // Unread pairs are left out of serializability's graph only, which
        // snapshot isolation tries first with the session order.
        let mut without_unread = reduced.unread;
        let mut problem = match self.problem(mg, constraints, without_unread) {
            Ok(problem) => problem,
            Err(stop) => return self.stopped(mg, stop, constraints.len()),
        };
        let construct = started.elapsed();
        let settings = Settings {
            pruning: self.pruning,
            deadline: self.deadline,
            propagate: true,
            solve_for: None,
            min_batch: self.min_batch,
        };
        let solved = |decision, with_session, serially, without_unread, stats| Solved {
            model: mg.model,
            decision,
            with_session,
            serially,
            chained: reduced.chained,
            without_unread,
            along_known: false,
            witness: false,
            construct,
            stats,
        };
        // Without constraints there is no order to choose: the session
        // order could only add cycles.
        if !mg.base.contains(Rel::Process) && !self.session.is_empty() && problem.constraints() > 0
        {
            // Snapshot isolation's extension first as plain acyclicity of
            // the same edges (serializability's graph): its solver has half
            // the nodes and no rw-hop states, and every cycle of `A ; rw?`
            // is one of `A ∪ rw`, so holding there settles the model.
            let extensions: &[bool] = if mg.extension {
                &[false, true]
            } else {
                &[false]
            };
            for &extension in extensions {
                if extension && without_unread {
                    without_unread = false;
                    problem = match self.problem(mg, constraints, false) {
                        Ok(problem) => problem,
                        Err(stop) => return self.stopped(mg, stop, constraints.len()),
                    };
                }
                problem.extension = extension;
                let (decision, stats) = with_session(&mut problem, self.session, settings);
                problem.extension = mg.extension;
                let held = decision == Decision::Holds;
                let serially = mg.extension && !extension;
                self.a
                    .solved
                    .push(solved(decision, true, serially, without_unread, stats));
                if held {
                    return Flow::Held;
                }
            }
        }
        if mg.extension && without_unread {
            without_unread = false;
            problem = match self.problem(mg, constraints, false) {
                Ok(problem) => problem,
                Err(stop) => return self.stopped(mg, stop, constraints.len()),
            };
        }
        let Decided {
            decision,
            stats,
            suspects,
        } = polygraph::decide(&problem, settings);
        let flow = match &decision {
            Decision::Holds => Flow::Held,
            Decision::Violated if reduced.chained || without_unread => Flow::Unsettled,
            Decision::Violated if !self.explain => Flow::Violated,
            Decision::Violated => {
                let f = explain(
                    self.a,
                    mg,
                    &problem,
                    &suspects,
                    self.known,
                    constraints,
                    self.deadline,
                );
                self.impossible.extend(lattice::impossible_models([f.name]));
                self.a.forced.push(f);
                Flow::Violated
            }
            Decision::Stopped(reason) => {
                self.a.stopped.push(Stopped {
                    model: mg.model,
                    reason: reason.clone(),
                    constraints: constraints.len(),
                    stage: Stage::Solve,
                });
                Flow::Stopped
            }
        };
        self.a
            .solved
            .push(solved(decision, false, false, without_unread, stats));
        flow
    }

    /// The model's problem, with the session order as the chain hint; a
    /// limit reached building it stops this model only, as the solver's
    /// deadline does: what stronger models found is kept.
    fn problem(
        &self,
        mg: ModelGraph,
        constraints: &Constraints,
        without_unread: bool,
    ) -> Result<Problem, limits::Stop> {
        let txns = self.a.graph.vertex_count() as u32;
        let mut problem = limits::attempt(|| {
            limits::stage_of(Stage::Construct, mg.model);
            let kept = constraints.iter().filter(|c| !(without_unread && c.unread));
            let known = self.known.of(&self.a.deps, mg);
            let mut problem = problem(txns, mg, known, kept, constraints.len());
            // A store with clauses has no unread pairs (`Kind::ReadFrom`
            // makes every version possibly read): nothing is left out.
            problem.clauses = constraints.clauses.clone();
            limits::stage_of(Stage::Solve, mg.model);
            problem
        })?;
        problem.chains = self.session.to_vec();
        Ok(problem)
    }
}

/// At most this long, or a quarter of what remains before the deadline, is
/// spent solving a model with the session order added (pruning, which is
/// polynomial, is not limited). Elle's wr-txns shape at 100k transactions
/// needs 7 CPU seconds of it, which 10 s of wall clock cut short on a
/// loaded machine, and the attempt without the session order does not
/// finish there at all.
const SESSION_BUDGET: Duration = Duration::from_secs(30);

/// Decides a model with the session order's edges added to the known ones,
/// as PolySI checks snapshot isolation: they order most pairs of writes
/// before the solver starts, and a resolution acyclic with them is acyclic
/// without, so `Holds` settles the model. Anything else settles nothing and
/// the model is decided as it is; `problem` is left as it was.
fn with_session(
    problem: &mut Problem,
    session: &[(u32, u32)],
    mut settings: Settings,
) -> (Decision, Stats) {
    let now = Instant::now();
    let budget = match settings.deadline {
        Some(d) => d.saturating_duration_since(now) / 4,
        None => SESSION_BUDGET,
    };
    settings.solve_for = Some(budget.min(SESSION_BUDGET));
    let known = problem.known.len();
    problem.known.extend(session.iter().map(|&(from, to)| Edge {
        from,
        to,
        ..Edge::default()
    }));
    let Decided {
        decision, stats, ..
    } = polygraph::decide(problem, settings);
    problem.known.truncate(known);
    (decision, stats)
}

/// The model's graph as the analysis has it: Elle builds one kind of order
/// edge at most, so a model asking for the other kind gets none.
fn effective(mut mg: ModelGraph, order: Option<Rel>) -> ModelGraph {
    for rel in [Rel::Process, Rel::Realtime] {
        if order != Some(rel) && mg.base.contains(rel) {
            mg.base = RelSet(mg.base.0 & !rel.bit().0);
        }
    }
    mg
}

/// Whether every cycle of `small`'s graph is also a cycle of `big`'s, so
/// that `big` holding means `small` does.
fn covers(big: ModelGraph, small: ModelGraph) -> bool {
    let rels_ok = rels(small).0 & !rels(big).0 == 0;
    // A cycle of `A ; rw?` is a cycle of `A ∪ rw`, not the other way round;
    // nor is it one of `((A \ ww) ; rw?) ∪ ww`.
    let rw_ok = !in_model(small, Rel::Rw)
        || match (big.extension, big.plain_ww) {
            (false, _) => true,
            (true, false) => small.extension,
            (true, true) => small.extension && small.plain_ww,
        };
    rels_ok && rw_ok
}

/// The relations whose edges a model's graph has.
fn rels(mg: ModelGraph) -> RelSet {
    if mg.extension {
        mg.base.union(Rel::Rw.bit())
    } else {
        mg.base
    }
}

/// Whether a model's graph has edges of this relation.
fn in_model(mg: ModelGraph, rel: Rel) -> bool {
    rels(mg).contains(rel)
}

fn edge(mg: ModelGraph, d: &Dep) -> Option<Edge> {
    in_model(mg, d.rel).then_some(Edge {
        from: d.from,
        to: d.to,
        rw: mg.extension && d.rel == Rel::Rw,
        bars_rw: mg.extension && mg.plain_ww && d.rel == Rel::Ww,
    })
}

/// The edges every resolution has: the analysis's first `certain`
/// dependencies and the implied ones. Read in place, never copied: on a
/// million transactions they take gigabytes.
#[derive(Clone, Copy)]
struct Known<'i> {
    certain: usize,
    implied: &'i [Dep],
}

impl<'i> Known<'i> {
    /// The known dependencies in a model's graph, certain ones first.
    fn of<'a>(self, deps: &'a [Dep], mg: ModelGraph) -> impl Iterator<Item = &'a Dep> + Clone
    where
        'i: 'a,
    {
        deps[..self.certain]
            .iter()
            .chain(self.implied)
            .filter(move |d| in_model(mg, d.rel))
    }
}

fn problem<'a>(
    txns: u32,
    mg: ModelGraph,
    known: impl Iterator<Item = &'a Dep>,
    constraints: impl Iterator<Item = Pair<'a>>,
    total: usize,
) -> Problem {
    let known = known.filter_map(|d| edge(mg, d)).collect();
    let mut p = Problem::new(txns, mg.extension, known);
    let (mut first, mut second) = (Vec::new(), Vec::new());
    for (i, c) in constraints.enumerate() {
        limits::tick_of(i, total, Unit::Constraints);
        side_edges(mg, c.side(0), &mut first);
        side_edges(mg, c.side(1), &mut second);
        p.push([&first, &second]);
    }
    p
}

/// A side's edges in the model's graph, in `out`. The side's dependencies
/// are made from the versions as they are read: `for_each` runs those
/// iterators as plain loops, where pulling them one item at a time took a
/// tenth of the whole check at 1M transactions.
fn side_edges(mg: ModelGraph, deps: impl Iterator<Item = Dep>, out: &mut Vec<Edge>) {
    out.clear();
    deps.for_each(|d| out.extend(edge(mg, &d)));
}

/// A violated model's forced anomaly: a minimal core, the cycle of each of
/// its resolutions, and the name they all share.
fn explain(
    a: &mut Analysis,
    mg: ModelGraph,
    problem: &Problem,
    suspects: &[usize],
    known: Known,
    constraints: &Constraints,
    deadline: Option<Instant>,
) -> Forced {
    let fallback = mg.anomaly();
    // Cores come from the lazy loop: deletion from its first core gave
    // smaller cores than the propagator's on the PolySI violations (4 pairs
    // instead of 5 on Yugabyte's), hence simpler explanations.
    let settings = Settings {
        pruning: false,
        deadline,
        propagate: false,
        solve_for: None,
        min_batch: polygraph::MIN_BATCH,
    };
    let Some(core) = polygraph::core(problem, suspects, settings) else {
        return Forced {
            name: fallback,
            model: mg.model,
            pairs: Vec::new(),
            cases: Vec::new(),
        };
    };
    let pairs: Vec<Constraint> = core
        .iter()
        .map(|&c| constraints.get(c).to_constraint())
        .collect();
    let chosen = pairs.iter().filter(|p| p.kind != Kind::Guard).count();
    if chosen > MAX_CASE_PAIRS {
        return Forced {
            name: fallback,
            model: mg.model,
            pairs,
            cases: Vec::new(),
        };
    }
    let region = Region::new(a.graph.vertex_count(), mg, known.of(&a.deps, mg), &pairs);
    let specs: Vec<cycles::Spec> = cycles::specs(a.order)
        .into_iter()
        .filter(|s| lattice::impossible_models([s.name()]).contains(mg.model))
        .collect();
    let binding = binding_clauses(&constraints.clauses, &core);
    let choices: Vec<Vec<u8>> = (0..1u32 << chosen)
        .filter_map(|bits| resolution(&pairs, &binding, bits))
        .collect();
    // Each resolution's graph is built once: its cycles name the anomaly,
    // then its shortest proving cycle is the case's.
    let graphs: Vec<(Graph, Vec<Dep>)> = choices
        .iter()
        .map(|choice| region.graph(mg, &pairs, choice))
        .collect();
    let found: Vec<Vec<FoundCycle>> = graphs
        .iter()
        .map(|(g, _)| found_cycles(g, &specs))
        .collect();
    let name = shared_name(mg.model, found.iter().map(Vec::as_slice));
    let name = name.unwrap_or(fallback);
    // Each case shows its shortest cycle of any type that rules out what
    // the name does: a 3-transaction G1c rather than a 5-transaction
    // G-single-item, when a case has both.
    let wanted = lattice::impossible_models([name]);
    let qualifying: Vec<cycles::Spec> = specs
        .into_iter()
        .filter(|s| wanted.is_subset(&lattice::impossible_models([s.name()])))
        .collect();
    let mut cases = Vec::new();
    for (choice, (g, deps)) in choices.into_iter().zip(graphs) {
        let Some(c) = cycles::shortest(&g, &qualifying) else {
            continue;
        };
        let steps = c
            .steps
            .iter()
            .map(|&i| {
                a.deps.push(deps[i as usize]);
                (a.deps.len() - 1) as u32
            })
            .collect();
        cases.push(Case {
            choice,
            cycle: FoundCycle {
                anomaly: c.anomaly,
                steps,
            },
        });
    }
    Forced {
        name,
        model: mg.model,
        pairs,
        cases,
    }
}

/// The clauses among a core's constraints (by position in `core`): one
/// with a constraint outside it is satisfied by that one.
fn binding_clauses(clauses: &Clauses, core: &[usize]) -> Vec<Clause> {
    let at = |c: u32| core.iter().position(|&k| k == c as usize);
    (clauses.iter())
        .filter_map(|cl| cl.iter().map(|&(c, s)| Some((at(c)? as u32, s))).collect())
        .collect()
}

/// The resolution of `pairs` whose chosen constraints (all but guards, in
/// order) take the sides `bits` gives, each guard holding only where a
/// clause makes it; `None` when a clause is left unsatisfied (a read with
/// no writer).
fn resolution(pairs: &[Constraint], binding: &[Clause], bits: u32) -> Option<Vec<u8>> {
    let mut next = 0;
    let mut choice: Vec<u8> = (pairs.iter())
        .map(|p| match p.kind {
            // Side 1, nothing, unless a clause needs the edge.
            Kind::Guard => 1,
            _ => {
                next += 1;
                (bits >> (next - 1) & 1) as u8
            }
        })
        .collect();
    let holds = |choice: &[u8], cl: &Clause| cl.iter().any(|&(c, s)| choice[c as usize] == s);
    for cl in binding {
        let guard = cl
            .iter()
            .find(|&&(c, _)| pairs[c as usize].kind == Kind::Guard);
        if let (false, Some(&(g, s))) = (holds(&choice, cl), guard) {
            choice[g as usize] = s;
        }
    }
    // A read returned one write: a case where it read two has only more
    // edges than either alone, so it is left out.
    let mut reads: Vec<u32> = (pairs.iter().zip(&choice))
        .filter(|&(_, &s)| s == 0)
        .filter_map(|(p, _)| p.read_from().map(|d| d.b_mop))
        .collect();
    reads.sort_unstable();
    let one_each = reads.windows(2).all(|w| w[0] != w[1]);
    (one_each && binding.iter().all(|cl| holds(&choice, cl))).then_some(choice)
}

/// The most specific anomaly type `T` such that every resolution has a
/// cycle of a type ruling out at least the models `T` rules out, `model`
/// among them. Reporting `T` is then sound for Elle's `:not`.
fn shared_name<'c>(
    model: &str,
    per_case: impl Iterator<Item = &'c [FoundCycle]> + Clone,
) -> Option<&'static str> {
    let candidates: BTreeSet<&'static str> = per_case.clone().flatten().map(|c| c.name()).collect();
    candidates
        .into_iter()
        .map(|t| (t, lattice::impossible_models([t])))
        .filter(|(_, models)| models.contains(model))
        .filter(|(_, models)| {
            per_case.clone().all(|cs| {
                cs.iter()
                    .any(|c| models.is_subset(&lattice::impossible_models([c.name()])))
            })
        })
        .max_by(|(t1, m1), (t2, m2)| {
            m1.len()
                .cmp(&m2.len())
                .then_with(|| lattice::depth_order(t2, t1))
        })
        .map(|(t, _)| t)
}

/// The cycles of one resolution's graph the search finds, one per type
/// and component (as [`cycles::search_scc`] finds them).
fn found_cycles(g: &Graph, specs: &[cycles::Spec]) -> Vec<FoundCycle> {
    let wanted = cycles::Wanted::types(specs);
    let none = cycles::SccFindings::default();
    super::sccs(g)
        .iter()
        .flat_map(|scc| cycles::search_scc(g, scc, &wanted, &none).cycles)
        .collect()
}

/// The transactions a forced cycle can pass through: the strongly
/// connected components of the known graph plus every side of the pairs
/// that contain a side's edge. Every resolution's cycles lie there.
struct Region {
    local: Vec<u32>,
    count: usize,
    comp: Vec<u32>,
    known: Vec<Dep>,
}

const OUTSIDE: u32 = u32::MAX;

impl Region {
    fn new<'a>(
        n: usize,
        mg: ModelGraph,
        known: impl Iterator<Item = &'a Dep> + Clone,
        pairs: &[Constraint],
    ) -> Region {
        let sides: Vec<Dep> = pairs
            .iter()
            .flat_map(|p| p.sides().into_iter().flatten())
            .filter(|d| in_model(mg, d.rel))
            .copied()
            .collect();
        // Only the components matter here: plain successor lists, not a
        // `Graph` (nor a copy of the dependencies) of every known edge.
        let ends = |d: &Dep| (d.from, d.to);
        let (start, succ) = csr(n, known.clone().map(ends).chain(sides.iter().map(ends)));
        let (comp, count) = tarjan(n, |v, out| {
            out.extend_from_slice(&succ[start[v as usize] as usize..start[v as usize + 1] as usize])
        });
        drop((start, succ));
        // Without pairs, the known edges cycle alone: every component of
        // the known graph's cycles is of interest.
        let hot: BTreeSet<u32> = if pairs.is_empty() {
            nontrivial(&comp, count)
                .iter()
                .map(|c| comp[c[0] as usize])
                .collect()
        } else {
            sides
                .iter()
                .filter(|d| comp[d.from as usize] == comp[d.to as usize])
                .map(|d| comp[d.from as usize])
                .collect()
        };
        let mut local = vec![OUTSIDE; n];
        let mut count = 0;
        for v in 0..n {
            if hot.contains(&comp[v]) {
                local[v] = count as u32;
                count += 1;
            }
        }
        let mut r = Region {
            local,
            count,
            comp,
            known: Vec::new(),
        };
        r.known = known.filter(|d| r.inside(d)).copied().collect();
        r
    }

    fn inside(&self, d: &Dep) -> bool {
        self.local[d.from as usize] != OUTSIDE
            && self.comp[d.from as usize] == self.comp[d.to as usize]
    }

    /// The graph of one resolution over the region's local ids, with the
    /// dependencies (global ids) its edges' `dep` indices name.
    fn graph(&self, mg: ModelGraph, pairs: &[Constraint], choice: &[u8]) -> (Graph, Vec<Dep>) {
        let mut deps = self.known.clone();
        for (p, &s) in pairs.iter().zip(choice) {
            deps.extend(
                p.side(s as usize)
                    .iter()
                    .filter(|d| in_model(mg, d.rel) && self.inside(d)),
            );
        }
        let mapped: Vec<Dep> = deps
            .iter()
            .map(|d| Dep {
                from: self.local[d.from as usize],
                to: self.local[d.to as usize],
                ..*d
            })
            .collect();
        (Graph::new(self.count, &mapped), deps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(model: &str) -> ModelGraph {
        *ModelGraph::of(model).expect("a row")
    }

    /// A model holding settles another only when every cycle of the other's
    /// graph is one of its own: prefix consistency's graph lies inside
    /// strong session snapshot isolation's, not the other way round, and
    /// holds no cycle snapshot isolation's allows.
    #[test]
    fn covering_graphs() {
        let (prefix, sssi) = (row("prefix"), row("strong-session-snapshot-isolation"));
        assert!(covers(sssi, prefix));
        assert!(!covers(prefix, sssi));
        assert!(!covers(prefix, row("PL-SI")));
        assert!(covers(prefix, row("strong-session-PL-2")));
        assert!(covers(row("strong-session-serializable"), prefix));
        assert!(!covers(prefix, row("strong-session-serializable")));
    }
}
