//! The search for cycles in the dependency graph, per strongly connected
//! component, the way Elle names them.
//!
//! For each SCC we decide which models' subgraphs have a cycle there (Elle's
//! `cycle-exists` pass, exact: strongly connected components of the
//! subgraph, or of the product graph that tracks the last edge for the
//! snapshot-isolation extension `(ww ∪ wr) ; rw?`), then look for one cycle of
//! each anomaly type in Elle's depth order, skipping types already implied by
//! a cycle found in this SCC and types no cycle here can have.
//!
//! A search is anchored on an edge `u → v` that the type requires (an rw edge,
//! a realtime edge, ...) and runs a breadth-first search from `v` back to `u`
//! over `(vertex, state)` pairs, where the state records what the path has
//! used so far (rw edges, adjacency, wr, process/realtime). The shortest
//! closed walk found is split at repeated vertices until a simple cycle of
//! the wanted type remains. Nothing is time-limited.

use super::lattice;
pub use super::model_graphs::{ModelGraph, MODEL_GRAPHS};
use super::taxonomy::{Antidependency, CycleAnomaly, Variant};
use crate::graph::{nontrivial, tarjan, Graph, Rel, RelSet};
use crate::limits;
use std::collections::BTreeSet;

/// A cycle anomaly type the search looks for.
pub type Spec = CycleAnomaly;

/// Every cycle type that can occur given which order edges the graph has
/// (plain and with `extra`; the predicate ones need predicate
/// anti-dependencies, which only closed-predicate histories have), in
/// Elle's search order (anomaly depth, then name).
pub fn specs(extra: Option<Rel>) -> Vec<Spec> {
    let wanted = |v: Variant| v == Variant::Plain || (extra.is_some() && v.rel() == extra);
    let mut out: Vec<Spec> = CycleAnomaly::all().filter(|c| wanted(c.variant)).collect();
    out.sort_by(|a, b| lattice::depth_order(a.name(), b.name()));
    out
}

/// A model whose subgraph has a cycle in some SCC (Elle's
/// `<model>-cycle-exists`), with the smallest such component.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CycleExists {
    /// The model's row (its canonical name, e.g. `PL-SI`, is
    /// `graph.model`).
    pub graph: &'static ModelGraph,
    /// Transactions of the component of the model's subgraph.
    pub scc: Vec<u32>,
}

/// A cycle found: its type and its steps, in order, as indices of the
/// dependencies the [`Graph`] was built from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoundCycle {
    pub anomaly: CycleAnomaly,
    pub steps: Vec<u32>,
}

impl FoundCycle {
    /// The cycle's anomaly type, by name.
    pub fn name(&self) -> &'static str {
        self.anomaly.name()
    }
}

/// What the search found in one SCC.
#[derive(Debug, Default)]
pub struct SccFindings {
    pub cycles: Vec<FoundCycle>,
    pub cycle_exists: Vec<CycleExists>,
    /// The model graphs decided here, with a cycle or without.
    pub graphs: Vec<&'static ModelGraph>,
}

/// What a search looks for: cycle types, and the models whose graphs'
/// cycles it decides (Elle's cycle-exists pass).
#[derive(Debug, Default)]
pub struct Wanted {
    pub specs: Vec<Spec>,
    pub graphs: Vec<&'static ModelGraph>,
    /// The types among `specs` looked for again along any edge where none
    /// has the type as Elle counts it (see [`find`]): those of a model
    /// decided by its definition rather than by Elle's rules.
    pub by_definition: Vec<Spec>,
}

impl Wanted {
    /// Every cycle type of [`specs`] and every model graph, split into
    /// what a report needs and the rest: the types and graphs `reported`
    /// keeps, and the graphs whose cycle rules out one of those (a weaker
    /// model's, which the cycle-exists pass decides first and which spares
    /// the stronger one's search).
    pub fn split(order: Option<Rel>, reported: impl Fn(&str) -> bool) -> (Wanted, Wanted) {
        let (specs, other_specs) = specs(order).into_iter().partition(|s| reported(s.name()));
        let reported_models: Vec<&str> = (MODEL_GRAPHS.iter())
            .filter(|m| reported(m.anomaly()))
            .map(|m| m.model)
            .collect();
        let (graphs, other_graphs) = MODEL_GRAPHS.iter().partition(|m| {
            let rules_out = lattice::all_impossible_models([m.model]);
            reported_models.iter().any(|r| rules_out.contains(r))
        });
        (
            Wanted {
                specs,
                graphs,
                by_definition: Vec::new(),
            },
            Wanted {
                specs: other_specs,
                graphs: other_graphs,
                by_definition: Vec::new(),
            },
        )
    }

    /// The cycle types `specs`, with every model graph: their cycles rule
    /// types out before they are searched.
    pub fn types(specs: &[Spec]) -> Wanted {
        Wanted {
            specs: specs.to_vec(),
            graphs: MODEL_GRAPHS.iter().collect(),
            by_definition: Vec::new(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.specs.is_empty() && self.graphs.is_empty()
    }

    /// Only the types and graphs whose cycle would rule out a model not
    /// in `ruled_out` already: finding the others changes neither `:not`
    /// nor `:also-not` (the models an anomaly rules out are a union over
    /// what it implies), and they are never reported.
    pub fn unsettled(mut self, ruled_out: &BTreeSet<&'static str>) -> Wanted {
        let settles = |name: &str| lattice::impossible_models([name]).is_subset(ruled_out);
        self.specs.retain(|s| !settles(s.name()));
        self.graphs.retain(|g| !settles(g.anomaly()));
        self
    }

    /// Every relation a cycle searched for may use: a graph without the
    /// others' edges has the same cycles of these types.
    pub fn relations(&self) -> RelSet {
        let specs = self.specs.iter().map(|s| s.allowed());
        let graphs = self.graphs.iter().map(|g| match g.extension {
            true => g.rels().union(g.antidependencies()),
            false => g.rels(),
        });
        specs.chain(graphs).fold(RelSet::EMPTY, RelSet::union)
    }
}

/// Searches one strongly connected component (vertices sorted) for what is
/// `wanted`. `earlier` is what an earlier search of this component found:
/// models its graphs rule out, and types its cycles imply, are not searched
/// again, as if the two searches had been one.
pub fn search_scc(g: &Graph, scc: &[u32], wanted: &Wanted, earlier: &SccFindings) -> SccFindings {
    let sub = Sub::new(g, scc);
    let cycle_exists = cycle_exists(&sub, &wanted.graphs, &earlier.cycle_exists);
    let mut graphs = earlier.graphs.clone();
    graphs.extend(&wanted.graphs);
    let impossible = impossible_types(earlier.cycle_exists.iter().chain(&cycle_exists), &graphs);
    let mut redundant = lattice::all_implied_anomalies(earlier.cycles.iter().map(FoundCycle::name));
    let mut cycles = Vec::new();
    for &spec in &wanted.specs {
        if redundant.contains(spec.name()) || impossible.contains(&spec) {
            continue;
        }
        let steps = match wanted.by_definition.contains(&spec) {
            true => Steps::Any,
            false => Steps::Explained,
        };
        if let Some(edges) = find(&sub, spec, steps) {
            redundant.extend(lattice::all_implied_anomalies([spec.name()]));
            cycles.push(FoundCycle {
                anomaly: spec,
                steps: from_earliest(g, edges)
                    .into_iter()
                    .map(|e| g.dep(e))
                    .collect(),
            });
        }
    }
    SccFindings {
        cycles,
        cycle_exists,
        graphs,
    }
}

/// A cycle rotated to start at its earliest transaction, so that reports
/// do not depend on where the search happened to close it.
fn from_earliest(g: &Graph, mut edges: Vec<usize>) -> Vec<usize> {
    let n = edges.len();
    let source = |i: usize| g.target(edges[(i + n - 1) % n]);
    if let Some(first) = (0..n).min_by_key(|&i| source(i)) {
        edges.rotate_left(first);
    }
    edges
}

/// The cycle types no cycle in this SCC can have: those prohibited by every
/// model whose subgraph is acyclic here, of the `decided` graphs (those not
/// decided may have cycles).
fn impossible_types<'a>(
    found: impl Iterator<Item = &'a CycleExists>,
    decided: &[&'static ModelGraph],
) -> BTreeSet<CycleAnomaly> {
    let impossible = lattice::all_impossible_models(found.map(|c| c.graph.model));
    let acyclic: Vec<&'static str> = decided
        .iter()
        .map(|m| m.model)
        .filter(|m| !impossible.contains(m))
        .collect();
    lattice::anomalies_prohibited_by(acyclic)
        .into_iter()
        .filter_map(|a| CycleAnomaly::parse(a).ok())
        .collect()
}

/// One SCC as a graph over local ids `0..len`.
struct Sub<'g> {
    g: &'g Graph,
    vertices: &'g [u32],
    /// Each global vertex's local id (`NOT_LOCAL` outside), for a component
    /// holding a good part of the graph: every edge followed is mapped, and
    /// a binary search per edge cost a giant component more than the
    /// search itself. Small components keep the binary search, so that many
    /// of them cost no more than their size.
    local: Vec<u32>,
}

const NOT_LOCAL: u32 = u32::MAX;

impl<'g> Sub<'g> {
    fn new(g: &'g Graph, vertices: &'g [u32]) -> Sub<'g> {
        let mut local = Vec::new();
        if vertices.len().saturating_mul(16) >= g.vertex_count() {
            local = vec![NOT_LOCAL; g.vertex_count()];
            for (i, &v) in vertices.iter().enumerate() {
                local[v as usize] = i as u32;
            }
        }
        Sub { g, vertices, local }
    }

    fn len(&self) -> usize {
        self.vertices.len()
    }

    fn local(&self, v: u32) -> Option<u32> {
        match self.local.get(v as usize) {
            Some(&l) => (l != NOT_LOCAL).then_some(l),
            None if self.local.is_empty() => self.vertices.binary_search(&v).ok().map(|i| i as u32),
            None => None,
        }
    }

    /// Edges of local vertex `v` inside the SCC with a relation in `mask`, as
    /// `(edge id, local target)`.
    fn out(&self, v: u32, mask: RelSet) -> impl Iterator<Item = (usize, u32)> + '_ {
        self.g
            .out(self.vertices[v as usize], mask)
            .filter_map(move |(e, w)| self.local(w).map(|l| (e, l)))
    }

    /// Like [`Sub::out`], but only the edge that explains each pair: the
    /// searches follow pairs as Elle's explainer will name them, so a cycle
    /// found has the type its steps were counted as.
    fn out_primary(&self, v: u32, mask: RelSet) -> impl Iterator<Item = (usize, u32)> + '_ {
        self.out_by(v, mask, Steps::Explained)
    }

    /// The `mask` edges leaving `v` that a search following `steps` takes.
    fn out_by(
        &self,
        v: u32,
        mask: RelSet,
        steps: Steps,
    ) -> impl Iterator<Item = (usize, u32)> + '_ {
        (self.out(v, mask)).filter(move |&(e, _)| steps == Steps::Any || self.g.is_primary(e))
    }

    /// Component ids of the subgraph of the `mask` edges `steps` follows.
    fn components(&self, mask: RelSet, steps: Steps) -> Vec<u32> {
        tarjan(self.len(), |v, out| {
            out.extend(self.out_by(v, mask, steps).map(|(_, w)| w))
        })
        .0
    }
}

/// Elle's cycle-exists pass over one SCC, for the `graphs` (in
/// [`MODEL_GRAPHS`]' order): a model is skipped once a weaker model's cycle,
/// found here or `earlier`, already rules it out.
fn cycle_exists(
    sub: &Sub,
    graphs: &[&'static ModelGraph],
    earlier: &[CycleExists],
) -> Vec<CycleExists> {
    let mut found = Vec::new();
    let mut ruled_out = lattice::all_impossible_models(earlier.iter().map(|c| c.graph.model));
    for &m in graphs {
        if ruled_out.contains(m.model) {
            continue;
        }
        if let Some(scc) = smallest_cycle_component(sub, *m) {
            ruled_out.extend(lattice::all_impossible_models([m.model]));
            found.push(CycleExists { graph: m, scc });
        }
    }
    found
}

/// The smallest non-trivial component of a model's subgraph, as global ids.
fn smallest_cycle_component(sub: &Sub, m: ModelGraph) -> Option<Vec<u32>> {
    let n = sub.len();
    let rw = m.antidependencies();
    let (comp, count) = if m.extension {
        // Vertex 2v + b: at v, having arrived by an edge no rw edge may
        // follow (an rw edge, or a ww edge outside the extension) iff b = 1.
        tarjan(2 * n, |x, out| {
            let (v, after_rw) = (x / 2, x % 2 == 1);
            for (e, w) in sub.out(v, m.base.union(rw)) {
                match sub.g.rel(e) {
                    r if r.is_rw() && !after_rw => out.push(2 * w + 1),
                    r if r.is_rw() => {}
                    Rel::Ww if m.plain_ww => out.push(2 * w + 1),
                    _ => out.push(2 * w),
                }
            }
        })
    } else {
        tarjan(n, |v, out| out.extend(sub.out(v, m.rels()).map(|(_, w)| w)))
    };
    let to_vertex = |x: u32| if m.extension { x / 2 } else { x };
    nontrivial(&comp, count)
        .into_iter()
        .map(|c| {
            let mut vs: Vec<u32> = c
                .into_iter()
                .map(|x| sub.vertices[to_vertex(x) as usize])
                .collect();
            vs.sort_unstable();
            vs.dedup();
            vs
        })
        .min_by_key(|c| c.len())
}

/// Path state bits.
const LAST_RW: u8 = 1;
const RW_ONE: u8 = 2;
const RW_MANY: u8 = 4;
/// The path used the relation the type requires ([`required`]).
const SEEN_REQUIRED: u8 = 8;
const SEEN_EXTRA: u8 = 16;
const STATES: usize = 32;

/// The one relation beyond anti-dependencies and order a cycle of the type
/// must use, which the path state tracks: wr for G1c, a predicate
/// anti-dependency for the predicate types (Elle's explainer names a cycle
/// without one an `-item` cycle). No row has both.
fn required(spec: Spec) -> Option<Rel> {
    let row = spec.spec();
    match row.predicate {
        true => Some(Rel::Rwp),
        false => row.required,
    }
}

fn step(spec: Spec, state: u8, rel: Rel) -> Option<u8> {
    if !spec.allowed().contains(rel) {
        return None;
    }
    let seen = match Some(rel) == required(spec) {
        true => SEEN_REQUIRED,
        false => 0,
    };
    if rel.is_rw() {
        let rws = state & (RW_ONE | RW_MANY);
        match spec.spec().rw {
            Antidependency::Single if rws != 0 => return None,
            Antidependency::Nonadjacent if state & LAST_RW != 0 => return None,
            _ => {}
        }
        let rws = if rws == 0 { RW_ONE } else { RW_MANY };
        return Some((state & (SEEN_REQUIRED | SEEN_EXTRA)) | rws | LAST_RW | seen);
    }
    let mut s = (state & !LAST_RW) | seen;
    if Some(rel) == spec.variant.rel() {
        s |= SEEN_EXTRA;
    }
    Some(s)
}

/// Whether a closed walk whose first edge has relation `first` and whose
/// state at the end is `state` has the spec's shape.
fn accepts(spec: Spec, state: u8, first: Rel) -> bool {
    if spec.variant.rel().is_some() && state & SEEN_EXTRA == 0 {
        return false;
    }
    if required(spec).is_some() && state & SEEN_REQUIRED == 0 {
        return false;
    }
    let row = spec.spec();
    let closing_adjacent = state & LAST_RW != 0 && first.is_rw();
    match row.rw {
        Antidependency::Never => true,
        Antidependency::Single => state & RW_ONE != 0,
        Antidependency::Nonadjacent => state & RW_MANY != 0 && !closing_adjacent,
        Antidependency::Adjacent => state & RW_MANY != 0 && closing_adjacent,
    }
}

/// The relation an anchor edge must have for a spec: the rarest thing the
/// type requires (a predicate anti-dependency, else an rw edge, else the
/// variant's order edge, else the required relation, else ww).
fn anchor_rel(spec: Spec) -> Rel {
    let row = spec.spec();
    match (row.rw, spec.variant.rel(), row.required) {
        _ if row.predicate => Rel::Rwp,
        (Antidependency::Never, Some(x), _) => x,
        (Antidependency::Never, None, Some(r)) => r,
        (Antidependency::Never, None, None) => Rel::Ww,
        _ => Rel::Rw,
    }
}

/// Which of the edges between two transactions a search may step along.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Steps {
    /// Only the one Elle's explainer names the pair by ([`Graph::explain`]),
    /// so that a cycle found has the type Elle counts it as.
    Explained,
    /// Any of them, as the models' definitions do: a session step that is
    /// also an rw step counts as either.
    Any,
}

/// Finds a simple cycle of exactly the spec's type in the SCC, as Elle
/// counts its steps, or where none has and `steps` is [`Steps::Any`], along
/// any edge.
///
/// Every anchor edge inside a component of the spec's subgraph is tried, so
/// the search is exhaustive; anchors that point furthest back in history
/// order go first, since the rest of a cycle tends to run forward in time
/// (real-time and session edges always do).
///
/// Elle's explainer names a pair ordered by rw and by session order an rw
/// step, so a session cycle through such a pair can have more rw steps in
/// Elle's count than in a definition: Cerone and Gotsman's parallel
/// snapshot isolation forbids every cycle of ww, wr and session order with
/// one rw edge, whichever relation names a pair. Elle's own models decide
/// such cycles by their cycle-exists graphs, which follow every edge;
/// parallel snapshot isolation has none, and its types are looked for
/// along any edge. The first search stays Elle's so that a cycle it finds
/// is the one Elle shows.
fn find(sub: &Sub, spec: Spec, steps: Steps) -> Option<Vec<usize>> {
    let elle = anchored(sub, spec, Steps::Explained).next();
    match steps {
        Steps::Explained => elle,
        Steps::Any => elle.or_else(|| anchored(sub, spec, Steps::Any).next()),
    }
}

/// The simple cycles of the spec's type that [`find`] tries in turn: for
/// each anchor edge, in [`find`]'s order, the piece of its shortest closed
/// walk that has the type, when one does.
fn anchored<'s>(sub: &'s Sub, spec: Spec, steps: Steps) -> impl Iterator<Item = Vec<usize>> + 's {
    let mut anchors: Vec<(i64, u32, usize, u32)> = Vec::new();
    for u in 0..sub.len() as u32 {
        for (e, v) in sub.out_by(u, anchor_rel(spec).bit(), steps) {
            anchors.push((v as i64 - u as i64, u, e, v));
        }
    }
    // Without an anchor (no predicate anti-dependency, outside
    // closed-predicate histories) the components are not needed.
    let comp = match anchors.is_empty() {
        true => Vec::new(),
        false => sub.components(spec.allowed(), steps),
    };
    anchors.retain(|&(_, u, _, v)| comp[u as usize] == comp[v as usize]);
    anchors.sort_unstable();
    let mut bfs = Bfs::new(sub.len());
    anchors.into_iter().filter_map(move |(_, u, e, v)| {
        let walk = bfs.closed_walk(sub, spec, &comp, steps, (u, e, v))?;
        simple_cycle_of(sub.g, spec, walk, steps)
    })
}

/// How many edges the exhaustive part of [`shortest`] may follow per
/// component before it settles for the best cycle found so far.
const SHORTEST_BUDGET: usize = 200_000;

/// The shortest simple cycle of the graph whose type is one of `specs`, ties
/// going to the type listed first; `None` when no cycle has such a type.
///
/// Each type's anchored search gives a first bound (its shortest closed
/// walks need not be simple, so it can miss the shortest cycle); a
/// depth-first search over simple paths shorter than the bound then makes
/// the answer exact, unless it follows more than `SHORTEST_BUDGET` edges
/// in a component, when the shortest cycle found so far is the answer.
/// Meant for the small graphs of a forced anomaly's cases.
pub fn shortest(g: &Graph, specs: &[Spec]) -> Option<FoundCycle> {
    let mut best: Option<Ranked> = None;
    for scc in super::sccs(g) {
        let sub = Sub::new(g, &scc);
        for (rank, &spec) in specs.iter().enumerate() {
            for edges in anchored(&sub, spec, Steps::Explained) {
                Ranked::keep(&mut best, Ranked { rank, edges });
            }
        }
        Dfs::new(&sub, specs).run(&mut best);
    }
    best.map(|b| FoundCycle {
        anomaly: specs[b.rank],
        steps: from_earliest(g, b.edges)
            .into_iter()
            .map(|e| g.dep(e))
            .collect(),
    })
}

/// A cycle of `specs[rank]`'s type, as edge ids; shorter is better, then
/// a lower rank.
struct Ranked {
    rank: usize,
    edges: Vec<usize>,
}

impl Ranked {
    fn key(&self) -> (usize, usize) {
        (self.edges.len(), self.rank)
    }

    fn keep(best: &mut Option<Ranked>, c: Ranked) {
        if best.as_ref().is_none_or(|b| c.key() < b.key()) {
            *best = Some(c);
        }
    }
}

/// The exhaustive part of [`shortest`]: every simple cycle, enumerated from
/// its lowest vertex over explaining edges, as long as it can still beat the
/// best one.
struct Dfs<'s, 'g> {
    sub: &'s Sub<'g>,
    specs: &'s [Spec],
    mask: RelSet,
    on_path: Vec<bool>,
    path: Vec<usize>,
    budget: usize,
}

impl<'s, 'g> Dfs<'s, 'g> {
    fn new(sub: &'s Sub<'g>, specs: &'s [Spec]) -> Self {
        let allowed: Vec<Rel> = Rel::ALL
            .into_iter()
            .filter(|&r| specs.iter().any(|s| s.allowed().contains(r)))
            .collect();
        Dfs {
            sub,
            specs,
            mask: RelSet::of(&allowed),
            on_path: vec![false; sub.len()],
            path: Vec::new(),
            budget: SHORTEST_BUDGET,
        }
    }

    fn run(mut self, best: &mut Option<Ranked>) {
        for start in 0..self.sub.len() as u32 {
            self.extend(start, start, best);
        }
    }

    /// Extends the path (from `start`, now at `v`) by every edge that
    /// closes it or leads to a higher vertex not on it.
    fn extend(&mut self, start: u32, v: u32, best: &mut Option<Ranked>) {
        // A longer path, once closed, has at least two more edges.
        let bound = best.as_ref().map_or(usize::MAX, |b| b.edges.len());
        for (e, w) in self.sub.out_primary(v, self.mask) {
            if self.budget == 0 {
                return;
            }
            self.budget -= 1;
            limits::tick();
            if w == start {
                self.path.push(e);
                self.close(best);
                self.path.pop();
            } else if w > start && !self.on_path[w as usize] && self.path.len() + 2 <= bound {
                self.on_path[w as usize] = true;
                self.path.push(e);
                self.extend(start, w, best);
                self.path.pop();
                self.on_path[w as usize] = false;
            }
        }
    }

    fn close(&self, best: &mut Option<Ranked>) {
        let rels: Vec<Rel> = self.path.iter().map(|&e| self.sub.g.rel(e)).collect();
        let anomaly = CycleAnomaly::classify(&rels);
        if let Some(rank) = self.specs.iter().position(|&s| s == anomaly) {
            Ranked::keep(
                best,
                Ranked {
                    rank,
                    edges: self.path.clone(),
                },
            );
        }
    }
}

/// Breadth-first search over `(vertex, state)` pairs, reused across anchors.
struct Bfs {
    /// For each pair, the edge it was reached by (`usize::MAX` when unseen)
    /// and the state before that edge.
    parent: Vec<(usize, u8)>,
    touched: Vec<usize>,
}

const UNSEEN: usize = usize::MAX;
const START: usize = usize::MAX - 1;

impl Bfs {
    fn new(n: usize) -> Bfs {
        Bfs {
            parent: vec![(UNSEEN, 0); n * STATES],
            touched: Vec::new(),
        }
    }

    /// The shortest closed walk `u → v ⇝ u` starting with anchor edge `e`
    /// (`anchor` is `(u, e, v)`) along `steps`, whose shape the spec
    /// accepts, as edge ids.
    fn closed_walk(
        &mut self,
        sub: &Sub,
        spec: Spec,
        comp: &[u32],
        steps: Steps,
        (u, e, v): (u32, usize, u32),
    ) -> Option<Vec<usize>> {
        for &i in &self.touched {
            self.parent[i] = (UNSEEN, 0);
        }
        self.touched.clear();
        let first = sub.g.rel(e);
        let s0 = step(spec, 0, first)?;
        let slot = |v: u32, s: u8| v as usize * STATES + s as usize;
        let mut queue = std::collections::VecDeque::new();
        self.parent[slot(v, s0)] = (START, 0);
        self.touched.push(slot(v, s0));
        queue.push_back((v, s0));
        let allowed = spec.allowed();
        let c = comp[u as usize];
        while let Some((x, s)) = queue.pop_front() {
            limits::tick();
            for (edge, y) in sub.out_by(x, allowed, steps) {
                if comp[y as usize] != c {
                    continue;
                }
                let Some(s2) = step(spec, s, sub.g.rel(edge)) else {
                    continue;
                };
                let i = slot(y, s2);
                if self.parent[i].0 != UNSEEN {
                    continue;
                }
                self.parent[i] = (edge, s);
                self.touched.push(i);
                if y == u && accepts(spec, s2, first) {
                    return Some(self.walk_to(sub, e, y, s2));
                }
                if y != u {
                    queue.push_back((y, s2));
                }
            }
        }
        None
    }

    fn walk_to(&self, sub: &Sub, anchor: usize, mut v: u32, mut s: u8) -> Vec<usize> {
        let mut edges = Vec::new();
        loop {
            let (edge, prev) = self.parent[v as usize * STATES + s as usize];
            if edge == START {
                break;
            }
            edges.push(edge);
            // The source of `edge`, as a local id.
            v = source_local(sub, edge);
            s = prev;
        }
        edges.push(anchor);
        edges.reverse();
        edges
    }
}

fn source_local(sub: &Sub, edge: usize) -> u32 {
    // Edges are stored by source in CSR order: find the vertex whose range
    // holds this edge.
    let i = sub
        .vertices
        .partition_point(|&w| sub.g.edges(w).end <= edge);
    i as u32
}

/// A simple cycle of the spec's type inside a closed walk: the walk itself
/// when it repeats no vertex, else the first such piece after splitting at
/// repeated vertices. Along [`Steps::Explained`], each step is re-explained
/// the way Elle explains it (a pair ordered by both rw and real time is an
/// rw step), and the cycle must be of the spec's type under that
/// explanation, as in Elle; along [`Steps::Any`], by the edges it took.
fn simple_cycle_of(g: &Graph, spec: Spec, walk: Vec<usize>, steps: Steps) -> Option<Vec<usize>> {
    let mut pieces = vec![walk];
    while let Some(w) = pieces.pop() {
        match repeat(g, &w) {
            None => {
                let explained = match steps {
                    Steps::Explained => explained(g, &w)?,
                    Steps::Any => w,
                };
                let rels: Vec<Rel> = explained.iter().map(|&e| g.rel(e)).collect();
                if CycleAnomaly::classify(&rels) == spec {
                    return Some(explained);
                }
            }
            Some((i, j)) => {
                let inner = w[i..j].to_vec();
                let mut outer = w[..i].to_vec();
                outer.extend_from_slice(&w[j..]);
                pieces.push(outer);
                pieces.push(inner);
            }
        }
    }
    None
}

/// The explaining edge of every step of a cycle.
fn explained(g: &Graph, cycle: &[usize]) -> Option<Vec<usize>> {
    let n = cycle.len();
    (0..n)
        .map(|i| {
            let from = g.target(cycle[(i + n - 1) % n]);
            g.explain(from, g.target(cycle[i]))
        })
        .collect()
}

/// Positions `i < j` of two edges of a closed walk leaving the same vertex.
fn repeat(g: &Graph, walk: &[usize]) -> Option<(usize, usize)> {
    let mut seen = std::collections::HashMap::new();
    for j in 0..walk.len() {
        // The vertex an edge leaves is the target of the edge before it.
        let prev = walk[(j + walk.len() - 1) % walk.len()];
        if let Some(i) = seen.insert(g.target(prev), j) {
            return Some((i, j));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{Dep, Version, NO_MOP};
    use crate::history::Val;
    use proptest::prelude::*;

    fn dep(from: u32, to: u32, rel: Rel) -> Dep {
        Dep {
            from,
            to,
            rel,
            key: Val::small_int(0).expect("small"),
            value: Version::Init,
            value2: Version::Init,
            a_mop: NO_MOP,
            b_mop: NO_MOP,
        }
    }

    /// The length and rank of the shortest simple cycle of a listed type,
    /// by trying every sequence of distinct vertices.
    fn brute_force(g: &Graph, specs: &[Spec]) -> Option<(usize, usize)> {
        fn walk(g: &Graph, specs: &[Spec], path: &mut Vec<u32>, best: &mut Option<(usize, usize)>) {
            let (first, last) = (path[0], path[path.len() - 1]);
            if path.len() > 1 {
                let closed: Vec<u32> = path.iter().chain([&first]).copied().collect();
                let rels: Option<Vec<Rel>> = closed
                    .windows(2)
                    .map(|w| g.explain(w[0], w[1]).map(|e| g.rel(e)))
                    .collect();
                if let Some(rels) = rels {
                    let t = CycleAnomaly::classify(&rels);
                    if let Some(rank) = specs.iter().position(|&s| s == t) {
                        let key = (rels.len(), rank);
                        if best.is_none_or(|b| key < b) {
                            *best = Some(key);
                        }
                    }
                }
            }
            for w in 0..g.vertex_count() as u32 {
                if !path.contains(&w) && g.explain(last, w).is_some() {
                    path.push(w);
                    walk(g, specs, path, best);
                    path.pop();
                }
            }
        }
        let mut best = None;
        for s in 0..g.vertex_count() as u32 {
            walk(g, specs, &mut vec![s], &mut best);
        }
        best
    }

    /// A graph of data dependencies plus at most one order relation (as a
    /// check's graph has), and some of the cycle types it can have, in any
    /// order.
    fn arb_case() -> impl Strategy<Value = (usize, Vec<Dep>, Vec<Spec>)> {
        let extra = prop::sample::select(vec![None, Some(Rel::Process), Some(Rel::Realtime)]);
        (2usize..9, extra).prop_flat_map(|(n, extra)| {
            let rels: Vec<Rel> = [Rel::Ww, Rel::Wr, Rel::Rw]
                .into_iter()
                .chain(extra)
                .collect();
            let rel = prop::sample::select(rels);
            let edge = (0..n as u32, 0..n as u32, rel).prop_map(|(a, b, r)| dep(a, b, r));
            let kinds = specs(extra);
            let most = kinds.len().min(6);
            (
                Just(n),
                prop::collection::vec(edge, 0..30),
                prop::sample::subsequence(kinds, 1..=most).prop_shuffle(),
            )
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(5000))]

        /// `shortest` finds the shortest cycle of a listed type (ties to the
        /// type listed first), and the cycle it gives has that type and
        /// length and closes.
        #[test]
        fn shortest_is_shortest((n, deps, specs) in arb_case()) {
            let g = Graph::new(n, &deps);
            let found = shortest(&g, &specs);
            let expected = brute_force(&g, &specs);
            prop_assert_eq!(
                found.as_ref().map(|c| (c.steps.len(), specs.iter().position(|&s| s == c.anomaly).unwrap_or(usize::MAX))),
                expected
            );
            if let Some(c) = found {
                let steps: Vec<&Dep> = c.steps.iter().map(|&i| &deps[i as usize]).collect();
                for i in 0..steps.len() {
                    prop_assert_eq!(steps[i].to, steps[(i + 1) % steps.len()].from);
                }
                let rels: Vec<Rel> = steps.iter().map(|d| d.rel).collect();
                prop_assert_eq!(CycleAnomaly::classify(&rels), c.anomaly);
            }
        }
    }
}
