//! Deciding one model when the version order is uncertain (PolySI, SPEC §3):
//! a known graph, one constraint per transaction pair with two sides, PolySI's
//! pruning, and a lazy SAT loop that blocks the cycles of each
//! candidate resolution until one is acyclic or none can be.
//!
//! A model is the acyclicity of its edges; snapshot-isolation models use the
//! extension `A ; rw?` of their non-rw edges `A`. Both are decided on a
//! *product graph*: with the extension every transaction has two states
//! (arrived by an rw hop or not), an A edge leads into the "after A" state
//! from either state and an rw edge only leaves it, so that a cycle of the
//! product is exactly a cycle of `A ∪ A;rw`. Without it, one state.

mod chains;
#[cfg(feature = "cadical")]
mod propagate;

#[cfg(feature = "cadical")]
use super::sat::external::Propagating;
use super::sat::{Lit, Outcome, Sat};
use crate::graph::tarjan;
use chains::ChainIndex;
use std::collections::HashSet;
use std::time::{Duration, Instant};

const NONE: u32 = u32::MAX;

/// An edge of a model's graph between transactions; `rw` marks the
/// anti-dependency hops the snapshot-isolation extension treats specially.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    pub from: u32,
    pub to: u32,
    pub rw: bool,
}

/// One model's decision problem.
#[derive(Clone, Debug, Default)]
pub struct Problem {
    /// Transactions are `0..txns`.
    pub txns: u32,
    /// The model is the acyclicity of `A ; rw?` rather than of all edges.
    pub extension: bool,
    /// Edges every resolution has.
    pub known: Vec<Edge>,
    /// Per constraint, the edges of each of its sides.
    pub sides: Vec<[Vec<Edge>; 2]>,
    /// Transaction pairs that are likely consecutive on a chain of known
    /// non-rw edges (the session order): a hint for pruning's reachability
    /// index, which ignores pairs the known graph lacks.
    pub chains: Vec<(u32, u32)>,
}

/// How a decision is made.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    pub pruning: bool,
    pub deadline: Option<Instant>,
    /// Decide with the incremental acyclicity propagator where the build
    /// has one (CaDiCaL), rather than the lazy loop.
    pub propagate: bool,
    /// Stop the solver after this long (the deadline still applies).
    pub solve_for: Option<Duration>,
}

/// What was decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Some resolution of every constraint is acyclic.
    Holds,
    /// Every resolution has a cycle.
    Violated,
    /// Undecided: a timeout or a solver failure.
    Stopped(String),
}

/// Time and work per stage, as PolySI reports them.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    pub constraints: usize,
    pub pruned: usize,
    pub prune_rounds: u32,
    pub solver_calls: u32,
    pub clauses: usize,
    pub prune: Duration,
    pub encode: Duration,
    pub solve: Duration,
    /// Of `solve`, the time spent finding cycles in candidate models.
    pub cycles: Duration,
}

impl Problem {
    fn states(&self) -> u32 {
        if self.extension {
            2
        } else {
            1
        }
    }

    fn nodes(&self) -> usize {
        (self.txns * self.states()) as usize
    }

    /// The transactions of a constraint whose order side 0 puts first and
    /// second: the ends of its first ww edge.
    fn ends(&self, c: usize) -> (u32, u32) {
        let e = self.sides[c][0]
            .iter()
            .find(|e| !e.rw)
            .or(self.sides[c][0].first());
        e.map_or((0, 0), |e| (e.from, e.to))
    }

    /// Appends the product arcs of `edges` to `out`.
    fn push_arcs(&self, edges: &[Edge], out: &mut Vec<(u32, u32)>) {
        for &e in edges {
            self.arcs(e, |a, b| out.push((a, b)));
        }
    }

    /// The product arcs of the known edges followed by `extra`, read in
    /// place: the known edges' arcs are never stored apart from the graph
    /// built of them.
    fn known_arcs<'a>(
        &'a self,
        extra: &'a [(u32, u32)],
    ) -> impl Iterator<Item = (u32, u32)> + Clone + 'a {
        let arcs = move |&e: &Edge| {
            let mut two = [None, None];
            let mut i = 0;
            self.arcs(e, |a, b| {
                two[i] = Some((a, b));
                i += 1;
            });
            two.into_iter().flatten()
        };
        self.known
            .iter()
            .flat_map(arcs)
            .chain(extra.iter().copied())
    }

    /// The ranks of a constraint's two ends (`ends`), each taken at its
    /// "after A" node, the one every edge into the transaction reaches.
    fn end_ranks(&self, c: usize, rank: &[u32]) -> (u32, u32) {
        let (a, b) = self.ends(c);
        let at = |t: u32| rank[self.after_a(t) as usize];
        (at(a), at(b))
    }

    /// The product node of a transaction that every edge into it reaches
    /// (its "after A" state).
    fn after_a(&self, t: u32) -> u32 {
        t * self.states() + self.states() - 1
    }

    /// The product arcs of an edge.
    fn arcs(&self, e: Edge, mut f: impl FnMut(u32, u32)) {
        if !self.extension {
            f(e.from, e.to);
        } else if e.rw {
            f(2 * e.from + 1, 2 * e.to);
        } else {
            f(2 * e.from, 2 * e.to + 1);
            f(2 * e.from + 1, 2 * e.to + 1);
        }
    }
}

/// Decides the problem. A violation comes with the constraints it was found
/// with (every constraint when the solver found it; those pruning forced
/// when pruning did): a core lies among them.
pub fn decide(p: &Problem, settings: Settings) -> (Decision, Stats, Vec<usize>) {
    let mut stats = Stats {
        constraints: p.sides.len(),
        ..Stats::default()
    };
    let started = Instant::now();
    // The arcs of the sides pruning forces, after the known edges' arcs.
    let mut forced_arcs: Vec<(u32, u32)> = Vec::new();
    let mut forced: Vec<Option<usize>> = vec![None; p.sides.len()];
    if settings.pruning {
        match prune(
            p,
            &mut forced_arcs,
            &mut forced,
            settings.deadline,
            &mut stats,
        ) {
            Ok(None) => {}
            Ok(Some(suspects)) => {
                stats.prune = started.elapsed();
                return (Decision::Violated, stats, suspects);
            }
            Err(stop) => {
                stats.prune = started.elapsed();
                return (Decision::Stopped(stop), stats, Vec::new());
            }
        }
    }
    stats.prune = started.elapsed();
    stats.pruned = forced.iter().filter(|f| f.is_some()).count();
    let open: Vec<usize> = (0..p.sides.len())
        .filter(|&c| forced[c].is_none())
        .collect();
    let encoding = Instant::now();
    // The loop only looks for cycles through open constraints' edges, so
    // the known graph (with what pruning forced) must be acyclic itself.
    let Some(reach) = Reach::new(p.nodes(), p.known_arcs(&forced_arcs)) else {
        let suspects = (0..p.sides.len())
            .filter(|&c| forced[c].is_some())
            .collect();
        return (Decision::Violated, stats, suspects);
    };
    // Hint each constraint toward a topological order of the known graph:
    // an order the database may well have used, so that the first model
    // is often nearly acyclic.
    let first: Vec<bool> = open
        .iter()
        .map(|&c| {
            let (a, b) = p.end_ranks(c, &reach.rank);
            a < b
        })
        .collect();
    let mut settings = settings;
    if let Some(budget) = settings.solve_for {
        let end = Instant::now() + budget;
        settings.deadline = Some(settings.deadline.map_or(end, |d| d.min(end)));
    }
    let mut engine = Engine::new(p, reach, &open, false, &settings);
    for (i, first) in first.into_iter().enumerate() {
        let lit = engine.lit(i);
        engine.prefer(if first { lit } else { !lit });
    }
    stats.encode = encoding.elapsed();
    let solving = Instant::now();
    let outcome = engine.solve(&[]);
    stats.solve = solving.elapsed();
    engine.record(&mut stats);
    let decision = match outcome {
        Outcome::Sat => Decision::Holds,
        Outcome::Unsat => Decision::Violated,
        Outcome::Stopped(why) => Decision::Stopped(why),
    };
    (decision, stats, (0..p.sides.len()).collect())
}

/// A smallest set of constraints among `suspects` (no member can be
/// dropped) that no resolution satisfies together with the known edges:
/// empty when the known edges cycle alone. `None` if the suspects are
/// satisfiable or the deadline passed.
pub fn core(p: &Problem, suspects: &[usize], settings: Settings) -> Option<Vec<usize>> {
    let Some(reach) = Reach::new(p.nodes(), p.known_arcs(&[])) else {
        return Some(Vec::new());
    };
    let all: Vec<usize> = suspects.to_vec();
    let mut engine = Engine::new(p, reach, &all, true, &settings);
    for i in 0..all.len() {
        let lit = engine.lit(i);
        engine.prefer(lit);
    }
    let select = engine.select().to_vec();
    let by_var: std::collections::HashMap<u32, usize> = select
        .iter()
        .enumerate()
        .map(|(c, s)| (s.var(), c))
        .collect();
    let unsat_core = |engine: &mut Engine, set: &[usize]| -> Option<Option<Vec<usize>>> {
        let assumptions: Vec<Lit> = set.iter().map(|&c| select[c]).collect();
        match engine.solve(&assumptions) {
            Outcome::Unsat => {
                let mut core: Vec<usize> = engine
                    .core_vars()
                    .iter()
                    .filter_map(|v| by_var.get(v).copied())
                    .collect();
                core.sort_unstable();
                Some(Some(core))
            }
            Outcome::Sat => Some(None),
            Outcome::Stopped(_) => None,
        }
    };
    let positions: Vec<usize> = (0..all.len()).collect();
    let mut set = unsat_core(&mut engine, &positions)??;
    let mut i = 0;
    while i < set.len() {
        let without: Vec<usize> = set.iter().copied().filter(|&c| c != set[i]).collect();
        match unsat_core(&mut engine, &without)? {
            Some(smaller) => set = smaller,
            None => i += 1,
        }
    }
    Some(set.into_iter().map(|i| all[i]).collect())
}

/// PolySI's pruning: a side whose edge closes a cycle with the known graph
/// is impossible, so the other side is forced and joins the known graph.
/// Rounds repeat until one forces almost nothing; forced sides' arcs are
/// appended to `forced_arcs`. Returns the constraints behind a violation when
/// some constraint has both sides impossible or a round's forced edges close
/// a cycle (the caller checks the last round's).
fn prune(
    p: &Problem,
    forced_arcs: &mut Vec<(u32, u32)>,
    forced: &mut [Option<usize>],
    deadline: Option<Instant>,
    stats: &mut Stats,
) -> Result<Option<Vec<usize>>, String> {
    let total = p.sides.len();
    let suspects = |forced: &[Option<usize>], extra: Option<usize>| {
        let mut v: Vec<usize> = (0..forced.len()).filter(|&c| forced[c].is_some()).collect();
        v.extend(extra);
        v
    };
    // The index costs O((n + m) · k) a round; with few constraints per node
    // the bounded searches cost less (1M list-append transactions, 59k
    // constraints: pruning 2.0–2.4 s with them, 3.0–4.7 s with the index).
    let indexed = p.sides.len() * 8 >= p.nodes();
    loop {
        stats.prune_rounds += 1;
        let Some(reach) = Reach::new(p.nodes(), p.known_arcs(forced_arcs)) else {
            return Ok(Some(suspects(forced, None)));
        };
        let mut reach = if indexed { reach.indexed(p) } else { reach };
        let mut newly = 0;
        for c in 0..total {
            if forced[c].is_some() {
                continue;
            }
            if c % 1024 == 0 && deadline.is_some_and(|d| Instant::now() >= d) {
                return Err("timeout".into());
            }
            let bad = |s: usize, reach: &mut Reach| {
                p.sides[c][s].iter().any(|&e| {
                    let mut hit = false;
                    p.arcs(e, |a, b| hit = hit || reach.reaches(b, a));
                    hit
                })
            };
            match (bad(0, &mut reach), bad(1, &mut reach)) {
                (true, true) => return Ok(Some(suspects(forced, Some(c)))),
                (true, false) => forced[c] = Some(1),
                (false, true) => forced[c] = Some(0),
                (false, false) => continue,
            }
            newly += 1;
            let s = forced[c].unwrap_or(0);
            p.push_arcs(&p.sides[c][s], forced_arcs);
        }
        // PolySI stops once a round forces at most 1% of the constraints:
        // past that, rounds cost more than the solver needs for the rest.
        if newly == 0 || newly * 100 <= total {
            return Ok(None);
        }
    }
}

/// Compressed adjacency: per node, its arcs' heads (`u32`), or heads with
/// the side id each arc comes from (`(u32, u32)`) for chosen arcs.
struct Csr<T> {
    start: Vec<u32>,
    arcs: Vec<T>,
}

impl<T: Copy + Default> Csr<T> {
    /// From `(tail, arc)` pairs, each node's arcs in the order they come.
    fn new(n: usize, arcs: impl Iterator<Item = (u32, T)> + Clone) -> Csr<T> {
        let (start, arcs) = crate::graph::csr(n, arcs);
        Csr { start, arcs }
    }

    fn out(&self, v: u32) -> &[T] {
        &self.arcs[self.start[v as usize] as usize..self.start[v as usize + 1] as usize]
    }
}

/// Chosen arcs `(tail, head, side id)` as a [`Csr`] of `(head, side id)`.
fn chosen_csr(n: usize, arcs: impl Iterator<Item = (u32, u32, u32)> + Clone) -> Csr<(u32, u32)> {
    Csr::new(n, arcs.map(|(a, b, id)| (a, (b, id))))
}

/// Reachability in an acyclic graph: a chain-cover index where one is
/// built, else (and for what it leaves open) a depth-first search that
/// topological ranks bound to the vertices that can lie between the two
/// ends.
struct Reach {
    csr: Csr<u32>,
    rank: Vec<u32>,
    index: Option<ChainIndex>,
    seen: Vec<u32>,
    stamp: u32,
    stack: Vec<u32>,
}

impl Reach {
    /// `None` when the graph has a cycle.
    fn new(n: usize, arcs: impl Iterator<Item = (u32, u32)> + Clone) -> Option<Reach> {
        let csr = Csr::new(n, arcs);
        let order = crate::graph::topological(n, |v| csr.out(v).iter().copied())?;
        let mut rank = vec![0u32; n];
        for (r, &v) in order.iter().enumerate() {
            rank[v as usize] = r as u32;
        }
        Some(Reach {
            csr,
            rank,
            index: None,
            seen: vec![0; n],
            stamp: 0,
            stack: Vec::new(),
        })
    }

    /// With the chain-cover index of `p`'s product graph: chains along
    /// `p.chains` and greedy ones over the "after A" nodes.
    fn indexed(mut self, p: &Problem) -> Reach {
        let mut order = vec![0u32; self.rank.len()];
        for (v, &r) in self.rank.iter().enumerate() {
            order[r as usize] = v as u32;
        }
        let links = p.chains.iter().map(|&(a, b)| (p.after_a(a), p.after_a(b)));
        let last = p.states() - 1;
        let chainable = |v: u32| v % p.states() == last;
        // Half the "after A" nodes at least on chains, as the session order
        // gives (without it, on Jepsen-shaped histories, 256 greedy chains
        // held 2% of them, and the index saved nothing).
        let half = self.rank.len() / (2 * p.states() as usize);
        self.index = ChainIndex::new(&self.csr, &order, links, chainable, half);
        self
    }

    /// Whether a non-empty path leads from `s` to `t`, or `s == t`.
    fn reaches(&mut self, s: u32, t: u32) -> bool {
        if s == t {
            return true;
        }
        let limit = self.rank[t as usize];
        if self.rank[s as usize] > limit {
            return false;
        }
        if let Some(known) = self.index.as_ref().and_then(|i| i.reaches(s, t)) {
            return known;
        }
        self.stamp += 1;
        self.stack.clear();
        self.stack.push(s);
        self.seen[s as usize] = self.stamp;
        while let Some(v) = self.stack.pop() {
            for &w in self.csr.out(v) {
                if w == t {
                    return true;
                }
                if self.seen[w as usize] != self.stamp && self.rank[w as usize] < limit {
                    self.seen[w as usize] = self.stamp;
                    self.stack.push(w);
                }
            }
        }
        false
    }
}

/// What decides the open constraints: CaDiCaL with the acyclicity
/// propagator, or the lazy loop over any backend.
enum Engine<'p> {
    Loop {
        sat: Sat,
        lazy: Box<Lazy<'p>>,
    },
    #[cfg(feature = "cadical")]
    Propagate(Propagating<propagate::Acyclic<'p>>),
}

impl<'p> Engine<'p> {
    /// An engine for the open constraints, one literal each, and with
    /// `select` a selector literal each too (see `Lazy::select`).
    fn new(
        p: &'p Problem,
        reach: Reach,
        open: &[usize],
        select: bool,
        settings: &Settings,
    ) -> Engine<'p> {
        #[cfg(feature = "cadical")]
        if settings.propagate {
            return Engine::Propagate(propagate::engine(p, reach, open, select, settings.deadline));
        }
        let mut sat = Sat::new(settings.deadline);
        let lits = open.iter().map(|_| sat.var()).collect();
        let mut lazy = Lazy::new(p, reach, open, lits);
        if select {
            lazy.select = Some(open.iter().map(|_| sat.var()).collect());
        }
        Engine::Loop {
            sat,
            lazy: Box::new(lazy),
        }
    }

    fn lazy(&self) -> &Lazy<'p> {
        match self {
            Engine::Loop { lazy, .. } => lazy,
            #[cfg(feature = "cadical")]
            Engine::Propagate(s) => &s.theory_ref().lazy,
        }
    }

    /// The literal taking open constraint `i`'s first side.
    fn lit(&self, i: usize) -> Lit {
        self.lazy().lits[i]
    }

    /// The selector literals (empty without selectors).
    fn select(&self) -> &[Lit] {
        self.lazy().select.as_deref().unwrap_or(&[])
    }

    fn prefer(&mut self, lit: Lit) {
        match self {
            Engine::Loop { sat, .. } => sat.prefer(lit),
            #[cfg(feature = "cadical")]
            Engine::Propagate(s) => s.prefer(lit),
        }
    }

    fn solve(&mut self, assumptions: &[Lit]) -> Outcome {
        match self {
            Engine::Loop { sat, lazy } => lazy.run(sat, assumptions),
            #[cfg(feature = "cadical")]
            Engine::Propagate(s) => s.solve(assumptions),
        }
    }

    fn core_vars(&mut self) -> Vec<u32> {
        match self {
            Engine::Loop { sat, .. } => sat.core_vars(),
            #[cfg(feature = "cadical")]
            Engine::Propagate(s) => s.core_vars(),
        }
    }

    /// Adds the solving figures to `stats`.
    fn record(&self, stats: &mut Stats) {
        match self {
            Engine::Loop { sat, lazy } => {
                stats.solver_calls = sat.calls;
                stats.clauses = lazy.blocked.len();
                stats.cycles = lazy.graph_time;
            }
            #[cfg(feature = "cadical")]
            Engine::Propagate(s) => {
                let t = s.theory_ref();
                stats.solver_calls = s.calls;
                stats.clauses = t.clauses;
                stats.cycles = t.time;
            }
        }
    }
}

/// The lazy acyclicity loop over a set of open constraints.
struct Lazy<'p> {
    p: &'p Problem,
    known: Csr<u32>,
    /// A topological rank of the known graph's nodes: known arcs climb it.
    rank: Vec<u32>,
    /// The constraints of the problem this loop decides.
    open: Vec<usize>,
    /// Per open constraint, the literal that takes its first side (its
    /// negation takes the second).
    lits: Vec<Lit>,
    /// Per open constraint, a literal without which it imposes neither side
    /// (for cores); `None`: every constraint holds.
    select: Option<Vec<Lit>>,
    /// Blocking clauses added so far, as sorted side ids (`2 × open index + side`).
    blocked: HashSet<Vec<u32>>,
    /// Time spent finding cycles.
    graph_time: Duration,
}

/// At most this many cycles are blocked per strongly connected component
/// and round: enough to stop the solver from returning nearly the same
/// model again, few enough to keep a round cheap.
const CYCLES_PER_SCC: usize = 2048;

/// At most this many cycles are blocked per round.
const MAX_CLAUSES: usize = 1 << 14;

/// Arcs one bounded search may scan.
const BFS_ARCS: u64 = 1 << 16;

impl<'p> Lazy<'p> {
    /// A loop over the known graph, acyclic as `Reach` proves.
    fn new(p: &'p Problem, known: Reach, open: &[usize], lits: Vec<Lit>) -> Lazy<'p> {
        Lazy {
            p,
            known: known.csr,
            rank: known.rank,
            open: open.to_vec(),
            lits,
            select: None,
            blocked: HashSet::new(),
            graph_time: Duration::ZERO,
        }
    }

    /// The literal that makes side `s` of open constraint `i` present.
    fn side(&self, i: usize, s: usize) -> Lit {
        if s == 0 {
            self.lits[i]
        } else {
            !self.lits[i]
        }
    }

    /// Solves under the assumptions, blocking cycles until a model is
    /// acyclic (`Sat`) or none is (`Unsat`).
    fn run(&mut self, sat: &mut Sat, assumptions: &[Lit]) -> Outcome {
        loop {
            match sat.solve(assumptions) {
                Outcome::Sat => {}
                other => return other,
            }
            let t = Instant::now();
            let clauses = self.cycles(|l| sat.value(l));
            self.graph_time += t.elapsed();
            if clauses.is_empty() {
                return Outcome::Sat;
            }
            for clause in clauses {
                if let Err(e) = sat.clause(&self.clause_lits(&clause)) {
                    return Outcome::Stopped(e);
                }
                self.blocked.insert(clause);
            }
        }
    }

    /// The clause forbidding a set of sides (by id) together.
    fn clause_lits(&self, ids: &[u32]) -> Vec<Lit> {
        let mut lits: Vec<Lit> = Vec::with_capacity(ids.len() * 2);
        for &id in ids {
            let (i, s) = (id as usize / 2, id as usize % 2);
            lits.push(!self.side(i, s));
            if let Some(select) = &self.select {
                lits.push(!select[i]);
            }
        }
        lits
    }

    /// The blocking clauses of the cycles in a model's graph, the model
    /// given by the value of each literal.
    fn cycles(&self, value: impl Fn(Lit) -> bool) -> Vec<Vec<u32>> {
        let p = self.p;
        let mut chosen: Vec<(u32, u32, u32)> = Vec::new();
        for (i, &c) in self.open.iter().enumerate() {
            if self.select.as_ref().is_some_and(|sel| !value(sel[i])) {
                continue;
            }
            let s = if value(self.lits[i]) { 0 } else { 1 };
            let id = (2 * i + s) as u32;
            for &e in &p.sides[c][s] {
                p.arcs(e, |a, b| chosen.push((a, b, id)));
            }
        }
        let clauses = self.back_arc_cycles(&chosen);
        if !clauses.is_empty() {
            return clauses;
        }
        self.scc_cycles(&chosen)
    }

    /// Every cycle has an arc that descends the known graph's ranks. For
    /// each chosen descending arc `a → b`, the shortest climb from `b` back
    /// to `a` over known and ascending arcs, which stays between the two
    /// ranks: cheap when the solver's mistakes are local, as they are.
    fn back_arc_cycles(&self, chosen: &[(u32, u32, u32)]) -> Vec<Vec<u32>> {
        let n = self.p.nodes();
        let rank = &self.rank;
        let climbs = |&&(a, b, _): &&(u32, u32, u32)| rank[a as usize] < rank[b as usize];
        let ascending = chosen_csr(n, chosen.iter().filter(climbs).copied());
        let mut bfs = Bfs::new(n);
        let mut clauses = Vec::new();
        let mut fresh: HashSet<Vec<u32>> = HashSet::new();
        let mut covered: HashSet<u32> = HashSet::new();
        let mut budget = 8 * (self.known.arcs.len() + chosen.len() + n) as u64;
        for &(a, b, id) in chosen {
            if climbs(&&(a, b, id)) || covered.contains(&id) {
                continue;
            }
            if budget == 0 || clauses.len() >= MAX_CLAUSES {
                break;
            }
            let top = rank[a as usize];
            let keep = |w: u32| rank[w as usize] <= top;
            let (found, used) = bfs.path(b, a, keep, &self.known, &ascending, budget);
            budget = budget.saturating_sub(used);
            if let Some(clause) = self.clause(found, id, &mut fresh) {
                covered.extend(clause.iter().copied());
                clauses.push(clause);
            }
        }
        clauses
    }

    /// A new blocking clause from a path's side ids and the closing arc's.
    fn clause(
        &self,
        path: Option<Vec<u32>>,
        id: u32,
        fresh: &mut HashSet<Vec<u32>>,
    ) -> Option<Vec<u32>> {
        let mut clause = path?;
        clause.push(id);
        clause.sort_unstable();
        clause.dedup();
        if self.blocked.contains(&clause) || !fresh.insert(clause.clone()) {
            return None;
        }
        Some(clause)
    }

    /// Cycles through any chosen arc, searched within strongly connected
    /// components: the fallback when no cycle has a single descending arc.
    fn scc_cycles(&self, chosen: &[(u32, u32, u32)]) -> Vec<Vec<u32>> {
        let n = self.p.nodes();
        let chosen_csr = chosen_csr(n, chosen.iter().copied());
        let (comp, _) = tarjan(n, |v, out| {
            out.extend_from_slice(self.known.out(v));
            out.extend(chosen_csr.out(v).iter().map(|&(w, _)| w));
        });
        let mut per_comp: std::collections::HashMap<u32, usize> = Default::default();
        let mut bfs = Bfs::new(n);
        let mut clauses: Vec<Vec<u32>> = Vec::new();
        let mut fresh: HashSet<Vec<u32>> = HashSet::new();
        let mut covered: HashSet<u32> = HashSet::new();
        // Short cycles make strong clauses and are cheap to find: searches
        // are bounded, and the round's work is bounded by a multiple of the
        // graph's size, except for each component's first cycle.
        let mut budget = 8 * (self.known.arcs.len() + chosen.len() + n) as u64;
        for &(a, b, id) in chosen {
            let c = comp[a as usize];
            if c != comp[b as usize] || covered.contains(&id) {
                continue;
            }
            let count = per_comp.entry(c).or_insert(0);
            if *count >= CYCLES_PER_SCC || (*count > 0 && budget == 0) {
                continue;
            }
            let limit = if *count == 0 {
                u64::MAX
            } else {
                budget.min(BFS_ARCS)
            };
            let keep = |w: u32| comp[w as usize] == c;
            let (found, used) = bfs.path(b, a, keep, &self.known, &chosen_csr, limit);
            budget = budget.saturating_sub(used);
            let Some(clause) = self.clause(found, id, &mut fresh) else {
                continue;
            };
            *count += 1;
            covered.extend(clause.iter().copied());
            clauses.push(clause);
        }
        clauses
    }
}

/// Appends the side ids on the search tree's path from `s` down to `t`,
/// `t`'s end first (`parent` holds each node's predecessor and arc id).
fn path_ids(parent: &[(u32, u32)], s: u32, t: u32, ids: &mut Vec<u32>) {
    let mut x = t;
    while x != s {
        let (prev, id) = parent[x as usize];
        if id != NONE {
            ids.push(id);
        }
        x = prev;
    }
}

/// Breadth-first search for the shortest path closing a cycle.
struct Bfs {
    parent: Vec<(u32, u32)>,
    seen: Vec<u32>,
    stamp: u32,
    queue: std::collections::VecDeque<u32>,
}

impl Bfs {
    fn new(n: usize) -> Bfs {
        Bfs {
            parent: vec![(NONE, NONE); n],
            seen: vec![0; n],
            stamp: 0,
            queue: Default::default(),
        }
    }

    /// The side ids on a shortest path from `s` to `t` through nodes
    /// `keep` accepts, unless that takes scanning more than `limit` arcs;
    /// and the arcs scanned.
    fn path(
        &mut self,
        s: u32,
        t: u32,
        keep: impl Fn(u32) -> bool,
        known: &Csr<u32>,
        chosen: &Csr<(u32, u32)>,
        limit: u64,
    ) -> (Option<Vec<u32>>, u64) {
        let mut used = 0u64;
        self.stamp += 1;
        self.queue.clear();
        self.queue.push_back(s);
        self.seen[s as usize] = self.stamp;
        while let Some(v) = self.queue.pop_front() {
            if v == t {
                let mut ids = Vec::new();
                path_ids(&self.parent, s, t, &mut ids);
                return (Some(ids), used);
            }
            if used > limit {
                return (None, used);
            }
            used += (known.out(v).len() + chosen.out(v).len()) as u64;
            let known_out = known.out(v).iter().map(|&w| (w, NONE));
            for (w, id) in known_out.chain(chosen.out(v).iter().copied()) {
                if self.seen[w as usize] != self.stamp && keep(w) {
                    self.seen[w as usize] = self.stamp;
                    self.parent[w as usize] = (v, id);
                    self.queue.push_back(w);
                }
            }
        }
        (None, used)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(from: u32, to: u32) -> Edge {
        Edge {
            from,
            to,
            rw: false,
        }
    }

    fn rw(from: u32, to: u32) -> Edge {
        Edge { from, to, rw: true }
    }

    fn settings(pruning: bool, propagate: bool) -> Settings {
        Settings {
            pruning,
            deadline: None,
            propagate,
            solve_for: None,
        }
    }

    /// The decision, the same with the propagator and the lazy loop.
    fn run(p: &Problem, pruning: bool) -> Decision {
        let with = decide(p, settings(pruning, true)).0;
        assert_eq!(with, decide(p, settings(pruning, false)).0);
        with
    }

    /// The core, the same with the propagator and the lazy loop.
    fn core_of(p: &Problem, suspects: &[usize]) -> Option<Vec<usize>> {
        let with = core(p, suspects, settings(false, true));
        assert_eq!(with, core(p, suspects, settings(false, false)));
        with
    }

    #[test]
    fn pruning_forces_the_side_that_keeps_the_graph_acyclic() {
        // 0 → 1 known; constraint {1 → 0} or {0 → 2}.
        let p = Problem {
            txns: 3,
            extension: false,
            known: vec![e(0, 1)],
            sides: vec![[vec![e(1, 0)], vec![e(0, 2)]]],
            chains: Vec::new(),
        };
        let (d, stats, _) = decide(&p, settings(true, true));
        assert_eq!(d, Decision::Holds);
        assert_eq!(stats.pruned, 1);
        assert_eq!(run(&p, false), Decision::Holds);
    }

    #[test]
    fn both_sides_impossible_is_a_violation() {
        let p = Problem {
            txns: 3,
            extension: false,
            known: vec![e(0, 1), e(1, 2)],
            sides: vec![[vec![e(2, 0)], vec![e(1, 0)]]],
            chains: Vec::new(),
        };
        assert_eq!(run(&p, true), Decision::Violated);
        assert_eq!(run(&p, false), Decision::Violated);
        assert_eq!(core_of(&p, &[0]), Some(vec![0]));
    }

    #[test]
    fn the_solver_finds_the_one_acyclic_combination() {
        // Two constraints, each of whose sides is fine alone; only one
        // combination of the four (the second side, then the first) avoids
        // a cycle, and it is not the one the phases suggest.
        let p = Problem {
            txns: 4,
            extension: false,
            known: vec![e(0, 1), e(2, 3)],
            sides: vec![
                [vec![e(1, 2)], vec![e(3, 0)]],
                [vec![e(3, 0)], vec![e(1, 2)]],
            ],
            chains: Vec::new(),
        };
        assert_eq!(run(&p, false), Decision::Holds);
        // Each side of this second constraint is acyclic alone but cycles
        // with either side of the first: every combination does.
        let mut q = p.clone();
        q.sides[1] = [vec![e(2, 0), e(1, 3)], vec![e(3, 1), e(0, 2)]];
        assert_eq!(run(&q, false), Decision::Violated);
        assert_eq!(run(&q, true), Decision::Violated);
        assert_eq!(core_of(&q, &[0, 1]), Some(vec![0, 1]));
    }

    #[test]
    fn two_adjacent_rw_hops_are_allowed_by_the_extension() {
        // Write skew: 0 -rw-> 1 -rw-> 0 is no cycle of A;rw?.
        let p = Problem {
            txns: 2,
            extension: true,
            known: vec![],
            sides: vec![[vec![rw(0, 1), rw(1, 0)], vec![e(0, 1)]]],
            chains: Vec::new(),
        };
        assert_eq!(run(&p, false), Decision::Holds);
        // An A hop between them makes it one: 0 -ww-> 1 -rw-> 0.
        let q = Problem {
            txns: 2,
            extension: true,
            known: vec![e(0, 1)],
            sides: vec![[vec![rw(1, 0)], vec![rw(1, 0), e(1, 0)]]],
            chains: Vec::new(),
        };
        assert_eq!(run(&q, true), Decision::Violated);
        assert_eq!(run(&q, false), Decision::Violated);
    }

    /// Whether some resolution of every constraint leaves the product
    /// graph acyclic, trying all of them.
    fn brute_force(p: &Problem) -> bool {
        (0..1u32 << p.sides.len()).any(|bits| {
            let mut arcs = Vec::new();
            p.push_arcs(&p.known, &mut arcs);
            for (c, sides) in p.sides.iter().enumerate() {
                p.push_arcs(&sides[(bits >> c & 1) as usize], &mut arcs);
            }
            Reach::new(p.nodes(), arcs.iter().copied()).is_some()
        })
    }

    fn arb_edge(txns: u32) -> impl Strategy<Value = Edge> {
        (0..txns, 0..txns, any::<bool>()).prop_map(|(from, to, rw)| Edge { from, to, rw })
    }

    fn arb_problem() -> impl Strategy<Value = Problem> {
        (2u32..7, any::<bool>()).prop_flat_map(|(txns, extension)| {
            let side = || proptest::collection::vec(arb_edge(txns), 0..4);
            (
                proptest::collection::vec(arb_edge(txns), 0..6),
                proptest::collection::vec((side(), side()).prop_map(|(a, b)| [a, b]), 0..8),
                proptest::collection::vec((0..txns, 0..txns), 0..txns as usize),
            )
                .prop_map(move |(known, sides, chains)| Problem {
                    txns,
                    extension,
                    known,
                    sides,
                    chains,
                })
        })
    }

    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// The propagator, the lazy loop (each with and without pruning)
        /// and brute force agree, and a violation's core is violated alone.
        #[test]
        fn engines_agree_with_brute_force(p in arb_problem()) {
            let expected = if brute_force(&p) { Decision::Holds } else { Decision::Violated };
            for pruning in [false, true] {
                prop_assert_eq!(run(&p, pruning), expected.clone());
            }
            if expected == Decision::Violated {
                let all: Vec<usize> = (0..p.sides.len()).collect();
                let core = core(&p, &all, settings(false, false)).expect("no deadline");
                let mut q = p.clone();
                q.sides = core.iter().map(|&c| p.sides[c].clone()).collect();
                prop_assert!(!brute_force(&q));
            }
        }
    }
}
