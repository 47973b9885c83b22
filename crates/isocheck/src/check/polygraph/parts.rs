//! Independent parts of the open constraints, decided apart and on every
//! core.
//!
//! A resolution's graph is part of the graph of the known arcs and both
//! sides' arcs of every open constraint, so each of its cycles lies within
//! one strongly connected component of that graph. An arc between two
//! components lies on no cycle and is dropped; a constraint with arcs in
//! several components joins them (one choice decides them together). The
//! joined components share no constraint and no cycle: each is a small
//! problem of its own, and the problem holds exactly when every part does.
//!
//! Why: each cycle the solver blocks makes it undo and redo decisions, so
//! on one problem its work grows with the number of blocked cycles times
//! the number of open constraints. On Jepsen-shaped histories the parts are
//! the windows of time in which writers of the same keys overlap (100k
//! wr-txns transactions: 131,532 open constraints in 200 parts of at most
//! 3,156), so the work grows linearly instead.

use super::engine::Engine;
use super::reach::{Csr, Reach};
use super::{Clause, Clauses, Edge, Problem, Settings, Stats, NONE};
use crate::check::sat::Outcome;
use crate::graph::tarjan;
use crate::limits;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

/// Parts are gathered into batches of at least this many constraints,
/// decided by one solver each: a solver per handful of constraints would
/// cost more in setting up than the split saves.
pub const MIN_BATCH: usize = 1024;

/// The open constraints grouped into batches of parts, and what building
/// each batch's problem needs.
pub(super) struct Split<'a> {
    p: &'a Problem,
    known: &'a Csr<u32>,
    open: &'a [usize],
    /// Per product node, its strongly connected component.
    comp: Vec<u32>,
    /// Per batch, its product nodes and its open constraints (positions in
    /// `open`).
    nodes: Vec<Vec<u32>>,
    members: Vec<Vec<usize>>,
    /// Per batch, its clauses over its members (by index in `members`).
    clauses: Vec<Clauses>,
}

impl<'a> Split<'a> {
    /// Splits the `open` constraints of `p`, whose known graph (with what
    /// pruning forced) is `known`, into batches of parts of at least
    /// `min_batch` constraints (but the last). The `clauses` (over open
    /// constraints) join their constraints' parts.
    pub(super) fn new(
        p: &'a Problem,
        known: &'a Csr<u32>,
        open: &'a [usize],
        clauses: &Clauses,
        min_batch: usize,
    ) -> Split<'a> {
        let (comp, count) = components(p, known, open);
        let clauses = p.by_position(clauses, open);
        let (root_of, mut joined) = join(p, &comp, count, open, &clauses);
        let batch_of = batches(&root_of, &mut joined, count, min_batch);
        let count = batch_of
            .iter()
            .filter(|&&b| b != NONE)
            .max()
            .map_or(0, |&b| b + 1);
        let mut nodes = vec![Vec::new(); count as usize];
        for (v, &c) in comp.iter().enumerate() {
            let b = batch_of[c as usize];
            if b != NONE {
                nodes[b as usize].push(v as u32);
            }
        }
        let mut members = vec![Vec::new(); count as usize];
        // Per open constraint (by position), its index in its batch.
        let mut index = vec![NONE; open.len()];
        for (i, &root) in root_of.iter().enumerate() {
            if root != NONE {
                let batch = &mut members[batch_of[root as usize] as usize];
                index[i] = batch.len() as u32;
                batch.push(i);
            }
        }
        let mut batch_clauses = vec![Clauses::default(); count as usize];
        for clause in clauses.iter() {
            let b = batch_of[root_of[clause[0].0 as usize] as usize] as usize;
            let local: Clause = clause
                .iter()
                .map(|&(i, s)| (index[i as usize], s))
                .collect();
            batch_clauses[b].push(&local);
        }
        Split {
            p,
            known,
            open,
            comp,
            nodes,
            members,
            clauses: batch_clauses,
        }
    }

    /// The number of batches.
    pub(super) fn len(&self) -> usize {
        self.members.len()
    }

    /// Batch `b`'s problem: its nodes numbered from 0 in order, the known
    /// arcs within a component, and per member its sides' arcs within a
    /// component, all as plain edges (the product is already taken).
    fn problem(&self, b: usize, local: &mut [u32]) -> Problem {
        let nodes = &self.nodes[b];
        for (i, &v) in nodes.iter().enumerate() {
            local[v as usize] = i as u32;
        }
        let inner = |x: u32, y: u32| self.comp[x as usize] == self.comp[y as usize];
        let edge = |x: u32, y: u32| Edge {
            from: local[x as usize],
            to: local[y as usize],
            ..Edge::default()
        };
        let mut known = Vec::new();
        for &v in nodes {
            let out = self.known.out(v).iter().filter(|&&w| inner(v, w));
            known.extend(out.map(|&w| edge(v, w)));
        }
        let mut arcs = Vec::new();
        let mut side = |edges: &[Edge]| {
            arcs.clear();
            self.p.push_arcs(edges, &mut arcs);
            let kept = arcs.iter().filter(|&&(x, y)| inner(x, y));
            kept.map(|&(x, y)| edge(x, y)).collect::<Vec<Edge>>()
        };
        let mut problem = Problem::new(nodes.len() as u32, false, known);
        for &i in &self.members[b] {
            let [s0, s1] = self.p.sides(self.open[i]);
            let (s0, s1) = (side(s0), side(s1));
            problem.push([&s0, &s1]);
        }
        problem.clauses = self.clauses[b].clone();
        problem
    }

    /// About the bytes batch `b`'s problem and its solver's theory take
    /// (each holds every arc once; per constraint and per node a few
    /// words), asked before building them: the memory budget is checked
    /// before, not after.
    fn batch_bytes(&self, b: usize) -> u64 {
        let members = &self.members[b];
        let arcs = members
            .iter()
            .map(|&i| self.p.arcs_bound(self.open[i]) as u64)
            .fold(0u64, u64::saturating_add);
        let per_arc = (std::mem::size_of::<Edge>() + std::mem::size_of::<(u32, u32)>()) as u64;
        let per_member = 32u64.saturating_mul(members.len() as u64);
        let per_node = 64u64.saturating_mul(self.nodes[b].len() as u64);
        arcs.saturating_mul(per_arc)
            .saturating_add(per_member)
            .saturating_add(per_node)
    }

    /// Decides every batch, on as many threads as there are cores, each
    /// constraint's solver phase from `first` (by position in `open`):
    /// `Unsat` if some batch is, else `Stopped` if one stopped, else `Sat`.
    /// The solving figures of every batch are added to `stats`.
    pub(super) fn solve(&self, first: &[bool], settings: &Settings, stats: &mut Stats) -> Outcome {
        let next = AtomicUsize::new(0);
        let done = AtomicBool::new(false);
        let results: Mutex<Vec<(Outcome, Stats)>> = Mutex::new(Vec::new());
        let worker = || {
            let mut local = vec![NONE; self.p.nodes()];
            loop {
                let b = next.fetch_add(1, Ordering::Relaxed);
                if b >= self.len() || done.load(Ordering::Relaxed) {
                    break;
                }
                let (outcome, figures) = self.solve_batch(b, first, settings, &mut local);
                // A batch without a resolution, or a stop, ends the others.
                if outcome != Outcome::Sat {
                    done.store(true, Ordering::Relaxed);
                }
                // A poisoned lock still holds every result pushed before.
                let mut r = results.lock().unwrap_or_else(|e| e.into_inner());
                r.push((outcome, figures));
            }
        };
        let threads = crate::limits::cores();
        std::thread::scope(|s| {
            let handles: Vec<_> = (1..threads.min(self.len()))
                .map(|_| s.spawn(worker))
                .collect();
            worker();
            for h in handles {
                if let Err(panic) = h.join() {
                    std::panic::resume_unwind(panic);
                }
            }
        });
        let results = results.into_inner().unwrap_or_else(|e| e.into_inner());
        combine(results, stats)
    }

    /// Decides batch `b` (`local` is scratch space, one entry per node).
    fn solve_batch(
        &self,
        b: usize,
        first: &[bool],
        settings: &Settings,
        local: &mut [u32],
    ) -> (Outcome, Stats) {
        let mut figures = Stats::default();
        if !limits::room_for(self.batch_bytes(b)) {
            return (Outcome::Stopped(limits::MEMORY_LIMIT.into()), figures);
        }
        let problem = self.problem(b, local);
        // Part of the acyclic known graph: always acyclic.
        let Some(reach) = Reach::new(problem.nodes(), problem.known_arcs(&[])) else {
            let why = "a part of the known graph has a cycle".to_string();
            return (Outcome::Stopped(why), figures);
        };
        let all: Vec<usize> = (0..problem.constraints()).collect();
        let mut engine = Engine::new(&problem, reach, &all, false, settings);
        for (j, &i) in self.members[b].iter().enumerate() {
            let lit = engine.lit(j);
            engine.prefer(if first[i] { lit } else { !lit });
        }
        let outcome = engine.solve(&[]);
        engine.record(&mut figures);
        (outcome, figures)
    }
}

/// The outcome of all batches (`Unsat` first, then `Stopped`), their
/// figures added to `stats`.
fn combine(results: Vec<(Outcome, Stats)>, stats: &mut Stats) -> Outcome {
    let mut outcome = Outcome::Sat;
    for (o, figures) in results {
        stats.solver_calls += figures.solver_calls;
        stats.clauses += figures.clauses;
        stats.cycles += figures.cycles;
        outcome = match (outcome, o) {
            (Outcome::Unsat, _) | (_, Outcome::Unsat) => Outcome::Unsat,
            (Outcome::Stopped(why), _) | (_, Outcome::Stopped(why)) => Outcome::Stopped(why),
            _ => Outcome::Sat,
        };
    }
    outcome
}

/// Per product node, its strongly connected component in the graph of the
/// known arcs and both sides of every open constraint; and their number.
fn components(p: &Problem, known: &Csr<u32>, open: &[usize]) -> (Vec<u32>, usize) {
    let mut arcs = Vec::new();
    for &c in open {
        for side in p.sides(c) {
            p.push_arcs(side, &mut arcs);
        }
    }
    let n = p.nodes();
    let sides = Csr::new(n, arcs.into_iter());
    let (comp, count) = tarjan(n, |v, out| {
        out.extend_from_slice(known.out(v));
        out.extend_from_slice(sides.out(v));
    });
    (comp, count as usize)
}

/// Components joined by the constraints whose arcs lie in more than one,
/// and by the clauses: per open constraint (by position) its joined
/// component (`NONE` when it closes no cycle and is in no clause), and the
/// union-find of the joining. A constraint that closes no cycle still
/// takes one side for all its clauses: it joins its clauses' part (any
/// part, when none of them has arcs).
fn join(
    p: &Problem,
    comp: &[u32],
    count: usize,
    open: &[usize],
    clauses: &Clauses,
) -> (Vec<u32>, UnionFind) {
    let mut joined = UnionFind::new(count);
    let mut arcs = Vec::new();
    let mut at = vec![NONE; open.len()];
    for (i, &c) in open.iter().enumerate() {
        arcs.clear();
        for side in p.sides(c) {
            p.push_arcs(side, &mut arcs);
        }
        for &(x, y) in &arcs {
            let (cx, cy) = (comp[x as usize], comp[y as usize]);
            if cx != cy {
                continue;
            }
            if at[i] == NONE {
                at[i] = cx;
            } else {
                joined.union(at[i], cx);
            }
        }
    }
    for clause in clauses.iter() {
        let placed = clause
            .iter()
            .map(|&(i, _)| at[i as usize])
            .find(|&c| c != NONE);
        // A count of 0 means no node, and so no constraint either.
        let first = placed.unwrap_or(0);
        for &(i, _) in clause {
            match at[i as usize] {
                NONE => at[i as usize] = first,
                c => joined.union(first, c),
            }
        }
    }
    let root_of = at
        .iter()
        .map(|&c| if c == NONE { NONE } else { joined.find(c) })
        .collect();
    (root_of, joined)
}

/// Per component id (of `count`), its batch, or `NONE` for the components
/// no constraint needs: joined components in the order their first
/// constraint comes, gathered until a batch has `min_batch` constraints.
fn batches(root_of: &[u32], joined: &mut UnionFind, count: usize, min_batch: usize) -> Vec<u32> {
    let mut size = vec![0usize; count];
    for &r in root_of.iter().filter(|&&r| r != NONE) {
        size[r as usize] += 1;
    }
    let mut batch_of = vec![NONE; count];
    let (mut batch, mut filled) = (0u32, 0usize);
    for &r in root_of.iter().filter(|&&r| r != NONE) {
        if batch_of[r as usize] != NONE {
            continue;
        }
        if filled >= min_batch {
            batch += 1;
            filled = 0;
        }
        batch_of[r as usize] = batch;
        filled += size[r as usize];
    }
    // Every component of a joined one takes its root's batch.
    for c in 0..count as u32 {
        let r = joined.find(c);
        batch_of[c as usize] = batch_of[r as usize];
    }
    batch_of
}

/// Union-find over component ids, with path halving.
struct UnionFind {
    parent: Vec<u32>,
}

impl UnionFind {
    fn new(n: usize) -> UnionFind {
        UnionFind {
            parent: (0..n as u32).collect(),
        }
    }

    fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let up = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = up;
            x = up;
        }
        x
    }

    fn union(&mut self, a: u32, b: u32) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.parent[rb as usize] = ra;
        }
    }
}
