//! The decision problem of one model: transactions, known edges, the two
//! sides of each constraint, and the product graph they are decided on
//! (one node per transaction, two under snapshot isolation's extension).
//! Also what a decision takes (`Settings`) and gives (`Decision`, `Stats`).

use super::NONE;
pub use crate::clauses::{Clause, Clauses};
use std::time::{Duration, Instant};

/// An edge of a model's graph between transactions; `rw` marks the
/// anti-dependency hops the snapshot-isolation extension treats specially,
/// and `bars_rw` the edges no rw hop may follow there (prefix
/// consistency's ww edges, outside its extension).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Edge {
    pub from: u32,
    pub to: u32,
    pub rw: bool,
    pub bars_rw: bool,
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
    /// The edges of every constraint's sides, side by side: millions of
    /// constraints at a million transactions, so one array rather than two
    /// vectors each (`side` reads them).
    side_edges: Vec<Edge>,
    /// Where side `s` of constraint `c` starts in `side_edges`: entry
    /// `2c + s`, followed by the end of the last side (empty when there are
    /// no constraints). Four bytes each: at 1M transactions there are ten
    /// million.
    side_starts: Vec<u32>,
    /// Transaction pairs that are likely consecutive on a chain of known
    /// non-rw edges (the session order): a hint for pruning's reachability
    /// index, which ignores pairs the known graph lacks.
    pub chains: Vec<(u32, u32)>,
    /// Clauses over the constraints' sides, each satisfied when one of its
    /// constraints takes the side it names: a read of a repeated value has
    /// a writer among its candidates, and an anti-dependency that needs a
    /// writer choice and a version order holds when both do. A constraint
    /// a decision leaves out (it closes no cycle) satisfies any clause it
    /// is in.
    pub clauses: Clauses,
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
    /// The fewest open constraints one solver decides: smaller independent
    /// parts are gathered up to it (`MIN_BATCH` by default).
    pub min_batch: usize,
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
    /// A problem with no constraints yet.
    pub fn new(txns: u32, extension: bool, known: Vec<Edge>) -> Problem {
        Problem {
            txns,
            extension,
            known,
            ..Problem::default()
        }
    }

    /// Adds a constraint with these two sides; its index is the count of
    /// those before it.
    pub fn push(&mut self, sides: [&[Edge]; 2]) {
        if self.side_starts.is_empty() {
            self.side_starts.push(0);
        }
        for side in sides {
            self.side_edges.extend_from_slice(side);
            // 2^32 edges would take 48 GiB: allocating them fails first.
            let end = u32::try_from(self.side_edges.len()).expect("fewer than 2^32 side edges");
            self.side_starts.push(end);
        }
    }

    /// `clauses` (over this problem's constraints) with each constraint
    /// named by its position in `open` instead (`NONE` for one not there).
    pub(super) fn by_position(&self, clauses: &Clauses, open: &[usize]) -> Clauses {
        if clauses.is_empty() {
            return Clauses::default();
        }
        let mut position = vec![NONE; self.constraints()];
        for (i, &c) in open.iter().enumerate() {
            position[c] = i as u32;
        }
        (clauses.iter())
            .map(|cl| {
                cl.iter()
                    .map(|&(c, s)| (position[c as usize], s))
                    .collect::<Clause>()
            })
            .collect()
    }

    /// How many constraints there are.
    pub fn constraints(&self) -> usize {
        self.side_starts.len().saturating_sub(1) / 2
    }

    /// The edges of side `s` (0 or 1) of constraint `c`.
    pub fn side(&self, c: usize, s: usize) -> &[Edge] {
        let i = 2 * c + s;
        &self.side_edges[self.side_starts[i] as usize..self.side_starts[i + 1] as usize]
    }

    /// At most how many arcs the sides of constraint `c` make.
    pub(super) fn arcs_bound(&self, c: usize) -> usize {
        let [s0, s1] = self.sides(c);
        (s0.len() + s1.len()) * self.states() as usize
    }

    /// Both sides of constraint `c`.
    pub fn sides(&self, c: usize) -> [&[Edge]; 2] {
        [self.side(c, 0), self.side(c, 1)]
    }

    pub(super) fn states(&self) -> u32 {
        if self.extension {
            2
        } else {
            1
        }
    }

    pub(super) fn nodes(&self) -> usize {
        (self.txns * self.states()) as usize
    }

    /// The transactions of a constraint whose order side 0 puts first and
    /// second: the ends of its first ww edge.
    pub(super) fn ends(&self, c: usize) -> (u32, u32) {
        let side = self.side(c, 0);
        let e = side.iter().find(|e| !e.rw).or(side.first());
        e.map_or((0, 0), |e| (e.from, e.to))
    }

    /// Appends the product arcs of `edges` to `out`.
    pub(super) fn push_arcs(&self, edges: &[Edge], out: &mut Vec<(u32, u32)>) {
        for &e in edges {
            self.arcs(e, |a, b| out.push((a, b)));
        }
    }

    /// The product arcs of the known edges followed by `extra`, read in
    /// place: the known edges' arcs are never stored apart from the graph
    /// built of them.
    pub(super) fn known_arcs<'a>(
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
    /// "after A" node (a hint: see `after_a`).
    pub(super) fn end_ranks(&self, c: usize, rank: &[u32]) -> (u32, u32) {
        let (a, b) = self.ends(c);
        let at = |t: u32| rank[self.after_a(t) as usize];
        (at(a), at(b))
    }

    /// The product node of a transaction that every edge into it reaches
    /// (its "after A" state), but rw hops and edges barring them; ranks and
    /// chains taken there are hints only.
    pub(super) fn after_a(&self, t: u32) -> u32 {
        t * self.states() + self.states() - 1
    }

    /// The product arcs of an edge: with the extension, state 1 ("after
    /// A") may take an rw hop, which leads to state 0, as does an edge
    /// barring one.
    pub(super) fn arcs(&self, e: Edge, mut f: impl FnMut(u32, u32)) {
        if !self.extension {
            f(e.from, e.to);
        } else if e.rw {
            f(2 * e.from + 1, 2 * e.to);
        } else if e.bars_rw {
            f(2 * e.from, 2 * e.to);
            f(2 * e.from + 1, 2 * e.to);
        } else {
            f(2 * e.from, 2 * e.to + 1);
            f(2 * e.from + 1, 2 * e.to + 1);
        }
    }
}
