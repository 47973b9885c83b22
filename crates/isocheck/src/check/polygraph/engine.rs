//! The engines that decide the constraints pruning leaves open: CaDiCaL
//! with the acyclicity propagator, or the lazy loop (solve, block the
//! model's cycles, solve again) over any backend; and the breadth-first
//! search both use to name a cycle's sides.

#[cfg(feature = "cadical")]
use super::propagate;
use super::reach::{chosen_csr, Csr, Reach};
use super::{Problem, Settings, Stats, NONE};
#[cfg(feature = "cadical")]
use crate::check::sat::external::Propagating;
use crate::check::sat::{Lit, Outcome, Sat};
use crate::graph::tarjan;
use crate::progress::{self, Count, Unit};
use std::collections::HashSet;
use std::time::{Duration, Instant};

/// What decides the open constraints: CaDiCaL with the acyclicity
/// propagator, or the lazy loop over any backend.
pub(super) enum Engine<'p> {
    Loop {
        sat: Sat,
        lazy: Box<Lazy<'p>>,
    },
    #[cfg(feature = "cadical")]
    Propagate(Propagating<propagate::Acyclic<'p>>),
}

impl<'p> Engine<'p> {
    /// An engine for the open constraints, one literal each, and with
    /// `select` a selector literal each too (see `Lazy::select`), bound by
    /// the problem's clauses over them (a clause with a constraint not open
    /// is satisfied by it; with selectors, a clause binds only while all
    /// its constraints are selected).
    pub(super) fn new(
        p: &'p Problem,
        reach: Reach,
        open: &[usize],
        select: bool,
        settings: &Settings,
    ) -> Engine<'p> {
        #[cfg(feature = "cadical")]
        let mut engine = match settings.propagate {
            true => Engine::Propagate(propagate::engine(p, reach, open, select, settings.deadline)),
            false => Engine::lazy_loop(p, reach, open, select, settings),
        };
        #[cfg(not(feature = "cadical"))]
        let mut engine = Engine::lazy_loop(p, reach, open, select, settings);
        engine.bind(open);
        engine
    }

    fn lazy_loop(
        p: &'p Problem,
        reach: Reach,
        open: &[usize],
        select: bool,
        settings: &Settings,
    ) -> Engine<'p> {
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

    /// Gives the solver the problem's clauses over the `open` constraints.
    fn bind(&mut self, open: &[usize]) {
        let p = self.lazy().p;
        for clause in p.by_position(&p.clauses, open).iter() {
            if clause.iter().any(|&(i, _)| i == NONE) {
                continue;
            }
            let lazy = self.lazy();
            let mut lits = Vec::with_capacity(clause.len() * 2);
            for &(i, s) in clause {
                let i = i as usize;
                lits.push(lazy.side(i, s as usize));
                if let Some(select) = &lazy.select {
                    lits.push(!select[i]);
                }
            }
            self.clause(&lits);
        }
    }

    /// Adds a clause; a solver that fails doing so says so when it solves.
    fn clause(&mut self, lits: &[Lit]) {
        match self {
            Engine::Loop { sat, lazy } => {
                if let Err(why) = sat.clause(lits) {
                    lazy.failed.get_or_insert(why);
                }
            }
            #[cfg(feature = "cadical")]
            Engine::Propagate(s) => s.clause(lits),
        }
    }

    pub(super) fn lazy(&self) -> &Lazy<'p> {
        match self {
            Engine::Loop { lazy, .. } => lazy,
            #[cfg(feature = "cadical")]
            Engine::Propagate(s) => &s.theory_ref().lazy,
        }
    }

    /// The literal taking open constraint `i`'s first side.
    pub(super) fn lit(&self, i: usize) -> Lit {
        self.lazy().lits[i]
    }

    /// The selector literals (empty without selectors).
    pub(super) fn select(&self) -> &[Lit] {
        self.lazy().select.as_deref().unwrap_or(&[])
    }

    pub(super) fn prefer(&mut self, lit: Lit) {
        match self {
            Engine::Loop { sat, .. } => sat.prefer(lit),
            #[cfg(feature = "cadical")]
            Engine::Propagate(s) => s.prefer(lit),
        }
    }

    pub(super) fn solve(&mut self, assumptions: &[Lit]) -> Outcome {
        match self {
            Engine::Loop { sat, lazy } => match lazy.failed.clone() {
                Some(why) => Outcome::Stopped(why),
                None => lazy.run(sat, assumptions),
            },
            #[cfg(feature = "cadical")]
            Engine::Propagate(s) => s.solve(assumptions),
        }
    }

    /// The variables of the last `Unsat`'s core; `None` when the solver
    /// failed finding them.
    pub(super) fn core_vars(&mut self) -> Option<Vec<u32>> {
        match self {
            Engine::Loop { sat, .. } => sat.core_vars(),
            #[cfg(feature = "cadical")]
            Engine::Propagate(s) => s.core_vars(),
        }
    }

    /// Adds the solving figures to `stats`.
    pub(super) fn record(&self, stats: &mut Stats) {
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
pub(super) struct Lazy<'p> {
    pub(super) p: &'p Problem,
    pub(super) known: Csr<u32>,
    /// A topological rank of the known graph's nodes: known arcs climb it.
    pub(super) rank: Vec<u32>,
    /// The constraints of the problem this loop decides.
    pub(super) open: Vec<usize>,
    /// Per open constraint, the literal that takes its first side (its
    /// negation takes the second).
    pub(super) lits: Vec<Lit>,
    /// Per open constraint, a literal without which it imposes neither side
    /// (for cores); `None`: every constraint holds.
    pub(super) select: Option<Vec<Lit>>,
    /// Blocking clauses added so far, as sorted side ids (`2 × open index + side`).
    pub(super) blocked: HashSet<Vec<u32>>,
    /// Time spent finding cycles.
    pub(super) graph_time: Duration,
    /// Why adding a clause failed (the memory limit), if it did.
    pub(super) failed: Option<String>,
}

/// At most this many cycles are blocked per strongly connected component
/// and round: enough to stop the solver from returning nearly the same
/// model again, few enough to keep a round cheap.
pub(super) const CYCLES_PER_SCC: usize = 2048;

/// At most this many cycles are blocked per round.
pub(super) const MAX_CLAUSES: usize = 1 << 14;

/// Arcs one bounded search may scan.
pub(super) const BFS_ARCS: u64 = 1 << 16;

impl<'p> Lazy<'p> {
    /// A loop over the known graph, acyclic as `Reach` proves.
    pub(super) fn new(p: &'p Problem, known: Reach, open: &[usize], lits: Vec<Lit>) -> Lazy<'p> {
        Lazy {
            p,
            known: known.csr,
            rank: known.rank,
            open: open.to_vec(),
            lits,
            select: None,
            blocked: HashSet::new(),
            graph_time: Duration::ZERO,
            failed: None,
        }
    }

    /// The literal that makes side `s` of open constraint `i` present.
    pub(super) fn side(&self, i: usize, s: usize) -> Lit {
        if s == 0 {
            self.lits[i]
        } else {
            !self.lits[i]
        }
    }

    /// Solves under the assumptions, blocking cycles until a model is
    /// acyclic (`Sat`) or none is (`Unsat`).
    pub(super) fn run(&mut self, sat: &mut Sat, assumptions: &[Lit]) -> Outcome {
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
            // The solver's rounds do not poll the limits: it keeps its own.
            progress::report(Count::of(self.blocked.len(), 0, Unit::Cycles));
        }
    }

    /// The clause forbidding a set of sides (by id) together.
    pub(super) fn clause_lits(&self, ids: &[u32]) -> Vec<Lit> {
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
    pub(super) fn cycles(&self, value: impl Fn(Lit) -> bool) -> Vec<Vec<u32>> {
        let p = self.p;
        let mut chosen: Vec<(u32, u32, u32)> = Vec::new();
        for (i, &c) in self.open.iter().enumerate() {
            if self.select.as_ref().is_some_and(|sel| !value(sel[i])) {
                continue;
            }
            let s = if value(self.lits[i]) { 0 } else { 1 };
            let id = (2 * i + s) as u32;
            for &e in p.side(c, s) {
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
    pub(super) fn back_arc_cycles(&self, chosen: &[(u32, u32, u32)]) -> Vec<Vec<u32>> {
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
    pub(super) fn clause(
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
    pub(super) fn scc_cycles(&self, chosen: &[(u32, u32, u32)]) -> Vec<Vec<u32>> {
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
pub(super) fn path_ids(parent: &[(u32, u32)], s: u32, t: u32, ids: &mut Vec<u32>) {
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
pub(super) struct Bfs {
    parent: Vec<(u32, u32)>,
    seen: Vec<u32>,
    stamp: u32,
    queue: std::collections::VecDeque<u32>,
}

impl Bfs {
    pub(super) fn new(n: usize) -> Bfs {
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
    pub(super) fn path(
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
