//! The acyclicity theory for CaDiCaL's external propagator. The candidate
//! graph (known arcs plus the arcs of every assigned side) is kept across
//! assignments, with a topological order maintained as arcs arrive (Pearce
//! and Kelly's algorithm), so that the arc closing a cycle is refused the
//! moment its side is assigned and the cycle becomes the solver's clause.
//! Backtracking removes arcs in the order they came, which never
//! invalidates the order. A complete model is checked again from scratch
//! before it is accepted, so `Holds` never rests on this bookkeeping alone.

use super::engine::{path_ids, Lazy};
use super::reach::{Csr, Reach};
use super::{Problem, NONE};
use crate::check::sat::external::{Propagating, Theory};
use crate::check::sat::Lit;
use std::time::{Duration, Instant};

/// Not yet assigned, in `choice` and `selected`.
const UNSET: u8 = 2;

/// The solver, with the theory connected, for `open` constraints: one
/// literal each, and with `select` a selector literal each.
pub(super) fn engine<'p>(
    p: &'p Problem,
    reach: Reach,
    open: &[usize],
    select: bool,
    deadline: Option<Instant>,
) -> Propagating<Acyclic<'p>> {
    let theory = Acyclic::new(Lazy::new(p, reach, open, Vec::new()));
    let mut solver = Propagating::new(theory, deadline);
    let lits: Vec<Lit> = open.iter().map(|_| solver.var(true)).collect();
    let selectors: Option<Vec<Lit>> =
        select.then(|| open.iter().map(|_| solver.var(true)).collect());
    let theory = solver.theory();
    if selectors.is_none() {
        theory.selected.fill(1);
    }
    theory.lazy.lits = lits;
    theory.lazy.select = selectors;
    solver
}

/// The candidate graph, its order, and the trail that undoes it.
pub(super) struct Acyclic<'p> {
    pub(super) lazy: Lazy<'p>,
    /// The known arcs, reversed.
    known_in: Csr<u32>,
    /// Per side id (`2 × open index + side`), its product arcs.
    arcs: Vec<(u32, u32)>,
    start: Vec<u32>,
    /// Per open constraint: the side its literal chose, or `UNSET`.
    choice: Vec<u8>,
    /// Per open constraint: whether its selector is true (1), false (0),
    /// or `UNSET`; all 1 without selectors.
    selected: Vec<u8>,
    /// Arcs of assigned sides, out of and into each node, tagged with the
    /// side id: stacks, because arcs leave in the reverse order of arrival.
    out: Vec<Vec<(u32, u32)>>,
    inn: Vec<Vec<(u32, u32)>>,
    /// A topological position per node of the current graph.
    ord: Vec<u32>,
    /// Per notified literal, its variable and the arcs it added.
    trail: Vec<(u32, u32)>,
    /// The arcs added, in order.
    added: Vec<(u32, u32)>,
    /// The trail's length when each decision level opened.
    levels: Vec<usize>,
    /// Clauses waiting for the solver.
    pending: Vec<Vec<Lit>>,
    search: Search,
    /// Open constraints in the order decisions take them, each one's place
    /// in it, and the place before which every constraint is assigned.
    order: Vec<u32>,
    place: Vec<u32>,
    cursor: usize,
    /// Clauses given to the solver.
    pub(super) clauses: usize,
    /// Time spent in the theory.
    pub(super) time: Duration,
}

impl<'p> Acyclic<'p> {
    fn new(lazy: Lazy<'p>) -> Acyclic<'p> {
        let p = lazy.p;
        let n = p.nodes();
        let known_in = Csr::new(
            n,
            (0..n as u32).flat_map(|v| lazy.known.out(v).iter().map(move |&w| (w, v))),
        );
        let mut arcs = Vec::new();
        let mut start = vec![0u32];
        for &c in &lazy.open {
            for side in p.sides(c) {
                p.push_arcs(side, &mut arcs);
                start.push(arcs.len() as u32);
            }
        }
        let open = lazy.open.len();
        // Earliest pairs first, by the known graph's ranks.
        let key = |i: usize| {
            let (a, b) = p.end_ranks(lazy.open[i], &lazy.rank);
            a.min(b)
        };
        let mut order: Vec<u32> = (0..open as u32).collect();
        order.sort_by_key(|&i| key(i as usize));
        let mut place = vec![0u32; open];
        for (k, &i) in order.iter().enumerate() {
            place[i as usize] = k as u32;
        }
        Acyclic {
            order,
            place,
            cursor: 0,
            ord: lazy.rank.clone(),
            lazy,
            known_in,
            arcs,
            start,
            choice: vec![UNSET; open],
            selected: vec![UNSET; open],
            out: vec![Vec::new(); n],
            inn: vec![Vec::new(); n],
            trail: Vec::new(),
            added: Vec::new(),
            levels: Vec::new(),
            pending: Vec::new(),
            search: Search::new(n),
            clauses: 0,
            time: Duration::ZERO,
        }
    }

    /// Records one literal, adding its constraint's side when this
    /// completes it; returns the arcs added.
    fn assign_one(&mut self, lit: Lit) -> Option<u32> {
        let (i, selector) = self.slot(lit.var())?;
        if !selector {
            if self.choice[i] != UNSET {
                return None;
            }
            self.choice[i] = if lit == self.lazy.lits[i] { 0 } else { 1 };
        } else {
            if self.selected[i] != UNSET {
                return None;
            }
            self.selected[i] = u8::from(self.lazy.select.as_ref().is_some_and(|s| s[i] == lit));
        }
        if self.choice[i] == UNSET || self.selected[i] != 1 {
            return Some(0);
        }
        Some(self.add_side(2 * i as u32 + self.choice[i] as u32))
    }

    /// Adds a side's arcs until one would close a cycle, whose clause then
    /// waits for the solver; returns the arcs added.
    fn add_side(&mut self, id: u32) -> u32 {
        let range = self.start[id as usize] as usize..self.start[id as usize + 1] as usize;
        let mut added = 0;
        for k in range {
            let (a, b) = self.arcs[k];
            match self.insert(a, b, id) {
                Ok(()) => added += 1,
                Err(mut ids) => {
                    ids.push(id);
                    ids.sort_unstable();
                    ids.dedup();
                    self.pending.push(self.lazy.clause_lits(&ids));
                    self.clauses += 1;
                    blocked(self.clauses);
                    break;
                }
            }
        }
        added
    }

    /// The arcs of a side that descend the current order.
    fn descents(&self, id: usize) -> usize {
        let arcs = &self.arcs[self.start[id] as usize..self.start[id + 1] as usize];
        let ord = &self.ord;
        arcs.iter()
            .filter(|&&(a, b)| ord[a as usize] > ord[b as usize])
            .count()
    }

    /// Adds the arc `x → y`, reordering what lies between its ends, or
    /// returns the side ids on the path from `y` back to `x`.
    fn insert(&mut self, x: u32, y: u32, id: u32) -> Result<(), Vec<u32>> {
        if x == y {
            return Err(Vec::new());
        }
        let (lower, upper) = (self.ord[y as usize], self.ord[x as usize]);
        if lower > upper {
            self.push(x, y, id);
            return Ok(());
        }
        let s = &mut self.search;
        if let Some(path) = s.forward(y, x, upper, &self.ord, &self.lazy.known, &self.out) {
            return Err(path);
        }
        s.backward(x, lower, &self.ord, &self.known_in, &self.inn);
        s.reorder(&mut self.ord);
        self.push(x, y, id);
        Ok(())
    }

    fn push(&mut self, x: u32, y: u32, id: u32) {
        self.out[x as usize].push((y, id));
        self.inn[y as usize].push((x, id));
        self.added.push((x, y));
    }

    /// The open constraint a variable belongs to, and whether it is that
    /// constraint's selector rather than its choice: choices are variables
    /// `0..open`, selectors the next `open` (see `engine`).
    fn slot(&self, var: u32) -> Option<(usize, bool)> {
        let (v, open) = (var as usize, self.lazy.open.len());
        if v < open {
            Some((v, false))
        } else if v < 2 * open && self.lazy.select.is_some() {
            Some((v - open, true))
        } else {
            None
        }
    }

    /// Undoes the trail down to `len` entries.
    fn undo(&mut self, len: usize) {
        while self.trail.len() > len {
            let Some((v, count)) = self.trail.pop() else {
                break;
            };
            for _ in 0..count {
                if let Some((x, y)) = self.added.pop() {
                    self.out[x as usize].pop();
                    self.inn[y as usize].pop();
                }
            }
            match self.slot(v) {
                Some((i, false)) => {
                    self.choice[i] = UNSET;
                    self.cursor = self.cursor.min(self.place[i] as usize);
                }
                Some((i, true)) => self.selected[i] = UNSET,
                None => {}
            }
        }
    }
}

impl Theory for Acyclic<'_> {
    fn assign(&mut self, lits: &[Lit]) {
        let t = Instant::now();
        for &lit in lits {
            if let Some(count) = self.assign_one(lit) {
                self.trail.push((lit.var(), count));
            }
        }
        self.time += t.elapsed();
    }

    fn new_level(&mut self) {
        self.levels.push(self.trail.len());
    }

    fn backtrack(&mut self, level: usize) {
        let t = Instant::now();
        if let Some(&len) = self.levels.get(level) {
            self.undo(len);
        }
        self.levels.truncate(level);
        self.time += t.elapsed();
    }

    fn accept(&mut self, model: &[Lit]) -> bool {
        let t = Instant::now();
        let vars = 2 * self.lazy.open.len();
        let mut value = vec![false; vars];
        for &l in model {
            if let Some(slot) = value.get_mut(l.var() as usize) {
                *slot = l.is_positive();
            }
        }
        let truth = |l: Lit| value.get(l.var() as usize).copied() == Some(l.is_positive());
        let found = self.lazy.cycles(truth);
        for ids in &found {
            self.pending.push(self.lazy.clause_lits(ids));
        }
        self.clauses += found.len();
        blocked(self.clauses);
        self.time += t.elapsed();
        found.is_empty()
    }

    fn next_clause(&mut self) -> Option<Vec<Lit>> {
        self.pending.pop()
    }

    /// The next constraint in order, on a side that climbs the current
    /// topological order if it has one: such a side never closes a cycle
    /// and costs no reordering, so only what clauses force can conflict.
    fn decide(&mut self) -> Option<Lit> {
        while let Some(&i) = self.order.get(self.cursor) {
            let i = i as usize;
            if self.choice[i] == UNSET {
                let side = usize::from(self.descents(2 * i + 1) < self.descents(2 * i));
                return Some(self.lazy.side(i, side));
            }
            self.cursor += 1;
        }
        None
    }
}

/// Scratch space for the searches of one insertion.
struct Search {
    seen: Vec<u32>,
    stamp: u32,
    parent: Vec<(u32, u32)>,
    queue: std::collections::VecDeque<u32>,
    forward: Vec<u32>,
    backward: Vec<u32>,
    pool: Vec<u32>,
}

impl Search {
    fn new(n: usize) -> Search {
        Search {
            seen: vec![0; n],
            stamp: 0,
            parent: vec![(NONE, NONE); n],
            queue: Default::default(),
            forward: Vec::new(),
            backward: Vec::new(),
            pool: Vec::new(),
        }
    }

    fn next_stamp(&mut self) -> u32 {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.fill(0);
            self.stamp = 1;
        }
        self.stamp
    }

    /// Breadth-first from `y` over nodes placed before `upper`: the side
    /// ids of a shortest path to `x` if there is one, else the nodes
    /// reached are left in `forward`.
    fn forward(
        &mut self,
        y: u32,
        x: u32,
        upper: u32,
        ord: &[u32],
        known: &Csr<u32>,
        out: &[Vec<(u32, u32)>],
    ) -> Option<Vec<u32>> {
        let stamp = self.next_stamp();
        self.forward.clear();
        self.queue.clear();
        self.queue.push_back(y);
        self.seen[y as usize] = stamp;
        while let Some(v) = self.queue.pop_front() {
            self.forward.push(v);
            let known_arcs = known.out(v).iter().map(|&w| (w, NONE));
            for (w, id) in known_arcs.chain(out[v as usize].iter().copied()) {
                if w == x {
                    return Some(self.path(y, v, id));
                }
                if self.seen[w as usize] != stamp && ord[w as usize] < upper {
                    self.seen[w as usize] = stamp;
                    self.parent[w as usize] = (v, id);
                    self.queue.push_back(w);
                }
            }
        }
        None
    }

    /// The side ids from `y` to `v`, then `last`'s.
    fn path(&self, y: u32, v: u32, last: u32) -> Vec<u32> {
        let mut ids: Vec<u32> = Vec::new();
        if last != NONE {
            ids.push(last);
        }
        path_ids(&self.parent, y, v, &mut ids);
        ids
    }

    /// Depth-first backwards from `x` over nodes placed after `lower`,
    /// into `backward`.
    fn backward(
        &mut self,
        x: u32,
        lower: u32,
        ord: &[u32],
        known_in: &Csr<u32>,
        inn: &[Vec<(u32, u32)>],
    ) {
        let stamp = self.next_stamp();
        self.backward.clear();
        let mut stack = vec![x];
        self.seen[x as usize] = stamp;
        while let Some(v) = stack.pop() {
            self.backward.push(v);
            let tails = known_in.out(v).iter().copied();
            for w in tails.chain(inn[v as usize].iter().map(|&(w, _)| w)) {
                if self.seen[w as usize] != stamp && ord[w as usize] > lower {
                    self.seen[w as usize] = stamp;
                    stack.push(w);
                }
            }
        }
    }

    /// Gives the nodes that reach the new arc's tail the positions before
    /// those its head reaches, from the positions they held together.
    fn reorder(&mut self, ord: &mut [u32]) {
        self.backward.sort_unstable_by_key(|&v| ord[v as usize]);
        self.forward.sort_unstable_by_key(|&v| ord[v as usize]);
        self.pool.clear();
        self.pool.extend(
            self.backward
                .iter()
                .chain(&self.forward)
                .map(|&v| ord[v as usize]),
        );
        self.pool.sort_unstable();
        for (k, &v) in self.backward.iter().chain(&self.forward).enumerate() {
            ord[v as usize] = self.pool[k];
        }
    }
}

/// Tells the progress listener how many cycles the solver blocked (called
/// from the solver's callbacks, so it must not poll the limits).
fn blocked(cycles: usize) {
    use crate::progress::{report, Count, Unit};
    report(Count::of(cycles, 0, Unit::Cycles));
}
