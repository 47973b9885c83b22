//! Why pruning found a violation: what forced each constraint (a cycle
//! through earlier forcings, or a clause), and, walking back from the
//! conflict, the few constraints it follows from.
//!
//! Why: a violation's core is sought among its suspects by a solver without
//! pruning. Given every forced constraint (300k on one of VeriStrong's
//! histories) it re-solved the whole problem, blocking 128k cycles in 46 s
//! where pruning had taken 0.2 s; the constraints the conflict follows from
//! are a handful.

use super::{Problem, NONE};
use crate::check::polygraph::reach::Csr;
use crate::infer::util::FxMap;
use crate::limits;
use std::collections::VecDeque;

/// What pruning forced, and in what order.
pub(super) struct Trace {
    /// Per constraint, when it was forced (`NONE`: open). The forcings of
    /// one round share a stamp: each was judged against the graph of those
    /// before it.
    stamp: Vec<u32>,
    /// The constraints a clause forced, with that clause.
    by_clause: FxMap<u32, u32>,
    /// Per forced arc (in the order they were appended), its constraint.
    owner: Vec<u32>,
    /// The next stamp; 0 is the known arcs'.
    next: u32,
}

/// How pruning ended in a violation.
#[derive(Clone, Copy, Debug)]
pub(super) enum Conflict {
    /// Both sides of this open constraint close a cycle.
    BothSides(usize),
    /// Every literal of this clause is false.
    Clause(usize),
    /// The known arcs with the forced ones close a cycle.
    Cycle,
}

/// An arc of the stamped graph: its head, and the constraint that forced it
/// (`NONE`: known) with when.
#[derive(Clone, Copy, Default)]
struct Arc {
    head: u32,
    owner: u32,
    stamp: u32,
}

impl Trace {
    pub(super) fn new(constraints: usize) -> Trace {
        Trace {
            stamp: vec![NONE; constraints],
            by_clause: FxMap::default(),
            owner: Vec::new(),
            next: 1,
        }
    }

    /// Records that the round under way forced constraint `c`.
    pub(super) fn force(&mut self, c: usize) {
        self.stamp[c] = self.next;
    }

    /// Ends a round, recording the arcs appended for its forcings (their
    /// constraints, in order).
    pub(super) fn end_round(&mut self, owners: &[u32]) {
        self.owner.extend_from_slice(owners);
        self.next += 1;
    }

    /// Records that clause `clause` forced constraint `c`, and appended
    /// `arcs` of its arcs.
    pub(super) fn clause(&mut self, c: usize, clause: usize, arcs: usize) {
        self.stamp[c] = self.next;
        self.by_clause.insert(c as u32, clause as u32);
        self.owner.extend(std::iter::repeat_n(c as u32, arcs));
        self.next += 1;
    }

    /// The constraints `conflict` follows from (a core lies among them),
    /// sorted; every forced constraint when a step cannot be traced.
    pub(super) fn suspects(
        &self,
        p: &Problem,
        forced_arcs: &[(u32, u32)],
        forced: &[Option<usize>],
        conflict: Conflict,
    ) -> Vec<usize> {
        let every = || (0..forced.len()).filter(|&c| forced[c].is_some()).collect();
        let g = self.graph(p, forced_arcs);
        let mut seen = vec![false; forced.len()];
        let mut todo: Vec<usize> = Vec::new();
        let mut add = |c: usize, todo: &mut Vec<usize>| {
            if !seen[c] {
                seen[c] = true;
                todo.push(c);
            }
        };
        let start = match conflict {
            Conflict::BothSides(c) => {
                add(c, &mut todo);
                let both = [0, 1].map(|s| self.side_cycle(p, &g, c, s, self.next));
                both.into_iter()
                    .collect::<Option<Vec<_>>>()
                    .map(|v| v.concat())
            }
            Conflict::Clause(i) => Some(constraints_of(p, i)),
            Conflict::Cycle => self.any_cycle(&g),
        };
        let Some(start) = start else {
            return every();
        };
        start.into_iter().for_each(|c| add(c as usize, &mut todo));
        while let Some(c) = todo.pop() {
            limits::tick();
            let Some(s) = forced[c] else { continue };
            let why = match self.by_clause.get(&(c as u32)) {
                Some(&i) => Some(constraints_of(p, i as usize)),
                None => self.side_cycle(p, &g, c, 1 - s, self.stamp[c]),
            };
            let Some(why) = why else {
                return every();
            };
            why.into_iter().for_each(|d| add(d as usize, &mut todo));
        }
        (0..seen.len()).filter(|&c| seen[c]).collect()
    }

    /// The known and forced arcs, each with its owner and stamp.
    fn graph(&self, p: &Problem, forced_arcs: &[(u32, u32)]) -> Csr<Arc> {
        let known = p.known_arcs(&[]).map(|(a, head)| {
            let arc = Arc {
                head,
                owner: NONE,
                stamp: 0,
            };
            (a, arc)
        });
        let forced = forced_arcs
            .iter()
            .zip(&self.owner)
            .map(|(&(a, head), &owner)| {
                let stamp = self.stamp[owner as usize];
                (a, Arc { head, owner, stamp })
            });
        Csr::new(p.nodes(), known.chain(forced))
    }

    /// The constraints owning the arcs of a cycle that side `s` of
    /// constraint `c` closes with the arcs stamped before `before`.
    fn side_cycle(
        &self,
        p: &Problem,
        g: &Csr<Arc>,
        c: usize,
        s: usize,
        before: u32,
    ) -> Option<Vec<u32>> {
        let mut found = None;
        for &e in p.side(c, s) {
            p.arcs(e, |a, b| {
                // An arc from a node to itself is a cycle alone.
                if found.is_none() {
                    found = if a == b {
                        Some(Vec::new())
                    } else {
                        path(g, b, a, before)
                    };
                }
            });
        }
        found
    }

    /// The constraints owning the arcs of some cycle of the whole graph.
    fn any_cycle(&self, g: &Csr<Arc>) -> Option<Vec<u32>> {
        let n = g.nodes();
        let (comp, count) = crate::graph::tarjan(n, |v, out| {
            out.extend(g.out(v).iter().map(|a| a.head));
        });
        let mut size = vec![0u32; count as usize];
        comp.iter().for_each(|&k| size[k as usize] += 1);
        let on_cycle = (0..n as u32).find(|&v| {
            size[comp[v as usize] as usize] > 1 || g.out(v).iter().any(|a| a.head == v)
        })?;
        path(g, on_cycle, on_cycle, NONE)
    }
}

/// The constraints of clause `i`.
fn constraints_of(p: &Problem, i: usize) -> Vec<u32> {
    p.clauses.get(i).iter().map(|&(c, _)| c).collect()
}

/// The owners of the arcs of a shortest non-empty path from `from` to `to`
/// over arcs stamped before `before` (known arcs own nothing).
fn path(g: &Csr<Arc>, from: u32, to: u32, before: u32) -> Option<Vec<u32>> {
    // Per node reached, the arc (tail, arc) it was reached by.
    let mut via: FxMap<u32, (u32, Arc)> = FxMap::default();
    let mut queue = VecDeque::from([from]);
    while let Some(v) = queue.pop_front() {
        for &arc in g.out(v).iter().filter(|a| a.stamp < before) {
            if via.contains_key(&arc.head) || (arc.head == from && from != to) {
                continue;
            }
            via.insert(arc.head, (v, arc));
            if arc.head == to {
                return Some(owners(&via, from, to));
            }
            queue.push_back(arc.head);
        }
    }
    None
}

/// The owners along the path `via` records from `from` to `to`.
fn owners(via: &FxMap<u32, (u32, Arc)>, from: u32, to: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let mut v = to;
    while let Some(&(tail, arc)) = via.get(&v) {
        if arc.owner != NONE {
            out.push(arc.owner);
        }
        v = tail;
        if v == from {
            break;
        }
    }
    out
}
