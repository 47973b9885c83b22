//! The transaction dependency graph: its edges (`dep.rs`), a compact CSR
//! over transaction ids with typed edges, strongly connected components, and
//! the session and real-time orders. Knows nothing of inference, models or
//! anomaly names.

mod dep;
// Issue 37's online checker will build on it; until then only tests and
// `examples/online_dag_load.rs` (through `internals`) use it.
#[cfg_attr(not(any(test, feature = "internals")), allow(dead_code))]
pub mod online_dag;
pub mod order;

pub use dep::{Dep, Rel, RelSet, Version, NO_MOP};

/// A directed multigraph over `0..n` in compressed sparse row form. Edge `e`
/// of vertex `v` (for `e` in `edges(v)`) goes to `target(e)`, has relation
/// `rel(e)`, and is explained by dependency `dep(e)` of the table it was built
/// from.
#[derive(Debug, Default)]
pub struct Graph {
    offsets: Vec<u32>,
    targets: Vec<u32>,
    rels: Vec<Rel>,
    deps: Vec<u32>,
    /// Whether each edge is the one that explains its pair.
    primary: Vec<bool>,
}

impl Graph {
    /// Builds the graph of `deps` over `n` vertices (self-edges are dropped).
    pub fn new(n: usize, deps: &[Dep]) -> Graph {
        let mut offsets = vec![0u32; n + 1];
        for d in deps.iter().filter(|d| d.from != d.to) {
            offsets[d.from as usize + 1] += 1;
        }
        for v in 0..n {
            offsets[v + 1] += offsets[v];
        }
        let m = offsets[n] as usize;
        let mut next = offsets.clone();
        let mut targets = vec![0; m];
        let mut rels = vec![Rel::Ww; m];
        let mut dep_ids = vec![0; m];
        for (i, d) in deps.iter().enumerate().filter(|(_, d)| d.from != d.to) {
            let slot = next[d.from as usize] as usize;
            next[d.from as usize] += 1;
            targets[slot] = d.to;
            rels[slot] = d.rel;
            dep_ids[slot] = i as u32;
        }
        let mut g = Graph {
            offsets,
            targets,
            rels,
            deps: dep_ids,
            primary: Vec::new(),
        };
        g.order_by_target();
        g
    }

    /// Sorts each vertex's edges by (target, relation) and marks the first
    /// edge of each target: the one that explains the pair (see [`explain`]).
    ///
    /// [`explain`]: Graph::explain
    fn order_by_target(&mut self) {
        let n = self.vertex_count();
        let mut slot: Vec<(u32, Rel, u32)> = Vec::new();
        self.primary = vec![false; self.targets.len()];
        for v in 0..n {
            let r = self.offsets[v] as usize..self.offsets[v + 1] as usize;
            slot.clear();
            slot.extend(
                r.clone()
                    .map(|e| (self.targets[e], self.rels[e], self.deps[e])),
            );
            slot.sort_unstable();
            for (i, &(t, rel, d)) in slot.iter().enumerate() {
                let e = r.start + i;
                self.targets[e] = t;
                self.rels[e] = rel;
                self.deps[e] = d;
                self.primary[e] = i == 0 || slot[i - 1].0 != t;
            }
        }
    }

    pub fn vertex_count(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    pub fn edge_count(&self) -> usize {
        self.targets.len()
    }

    /// The edge ids leaving `v`.
    pub fn edges(&self, v: u32) -> std::ops::Range<usize> {
        self.offsets[v as usize] as usize..self.offsets[v as usize + 1] as usize
    }

    pub fn target(&self, e: usize) -> u32 {
        self.targets[e]
    }

    pub fn rel(&self, e: usize) -> Rel {
        self.rels[e]
    }

    pub fn dep(&self, e: usize) -> u32 {
        self.deps[e]
    }

    /// The edge from `u` to `v` that explains their order the way Elle's
    /// explainers do: a data dependency before session or real-time order,
    /// ww before wr before rw.
    pub fn explain(&self, u: u32, v: u32) -> Option<usize> {
        let r = self.edges(u);
        let i = self.targets[r.clone()].partition_point(|&t| t < v);
        let e = r.start + i;
        (e < r.end && self.targets[e] == v).then_some(e)
    }

    /// Whether edge `e` explains its pair (see [`Graph::explain`]).
    pub fn is_primary(&self, e: usize) -> bool {
        self.primary[e]
    }

    /// The edges leaving `v` whose relation is in `mask`, as `(edge, target)`.
    pub fn out(&self, v: u32, mask: RelSet) -> impl Iterator<Item = (usize, u32)> + '_ {
        self.edges(v)
            .filter(move |&e| mask.contains(self.rels[e]))
            .map(move |e| (e, self.targets[e]))
    }
}

/// Successor lists of the edges `(from, to)` over `0..n` in compressed
/// form: the successors of `v` are `succ[start[v]..start[v + 1]]`, in the
/// order the edges come. Two passes over `edges`, so nothing else is stored.
/// `to` may carry more than the head (a tag per edge).
pub fn csr<T: Copy + Default>(
    n: usize,
    edges: impl Iterator<Item = (u32, T)> + Clone,
) -> (Vec<u32>, Vec<T>) {
    // `for_each` rather than `for`: a chain or flattening of iterators (the
    // known arcs and the forced ones) then runs as plain loops, not through
    // `next` on every arc (at 1M transactions that was 7% of a check).
    let mut start = vec![0u32; n + 1];
    edges.clone().for_each(|(a, _)| start[a as usize + 1] += 1);
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut succ = vec![T::default(); start[n] as usize];
    edges.for_each(|(a, b)| {
        succ[fill[a as usize] as usize] = b;
        fill[a as usize] += 1;
    });
    (start, succ)
}

/// A topological order of `0..n` (Kahn's algorithm), or `None` when the
/// graph has a cycle. `out(v)` gives the successors of `v`.
pub fn topological<I>(n: usize, out: impl Fn(u32) -> I) -> Option<Vec<u32>>
where
    I: IntoIterator<Item = u32>,
{
    let mut indeg = vec![0u32; n];
    for v in 0..n as u32 {
        for s in out(v) {
            indeg[s as usize] += 1;
        }
    }
    let mut order: Vec<u32> = (0..n as u32).filter(|&v| indeg[v as usize] == 0).collect();
    let mut i = 0;
    while i < order.len() {
        let v = order[i];
        i += 1;
        for s in out(v) {
            indeg[s as usize] -= 1;
            if indeg[s as usize] == 0 {
                order.push(s);
            }
        }
    }
    (order.len() == n).then_some(order)
}

/// Strongly connected components of a graph given by a successor function
/// over `0..n` (`succ(v, out)` appends the successors of `v` to `out`).
/// Returns the component id of every vertex (numbered in reverse topological
/// order, as Tarjan finds them) and the number of components. Iterative:
/// histories have millions of vertices.
pub fn tarjan<F>(n: usize, mut succ: F) -> (Vec<u32>, u32)
where
    F: FnMut(u32, &mut Vec<u32>),
{
    const UNSEEN: u32 = u32::MAX;
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0u32; n];
    let mut comp = vec![UNSEEN; n];
    let mut stack: Vec<u32> = Vec::new();
    // Successors still to visit, for every frame; a frame is its vertex and
    // where its successors start in `pending`.
    let mut pending: Vec<u32> = Vec::new();
    let mut frames: Vec<(u32, usize)> = Vec::new();
    let mut next_index = 0u32;
    let mut count = 0u32;
    for root in 0..n as u32 {
        if index[root as usize] != UNSEEN {
            continue;
        }
        let mut entering = Some(root);
        loop {
            if let Some(v) = entering.take() {
                index[v as usize] = next_index;
                low[v as usize] = next_index;
                next_index += 1;
                stack.push(v);
                frames.push((v, pending.len()));
                succ(v, &mut pending);
            }
            let Some(&(v, base)) = frames.last() else {
                break;
            };
            if pending.len() > base {
                let w = pending.pop().unwrap_or(v);
                if index[w as usize] == UNSEEN {
                    entering = Some(w);
                } else if comp[w as usize] == UNSEEN {
                    low[v as usize] = low[v as usize].min(index[w as usize]);
                }
                continue;
            }
            frames.pop();
            if let Some(&(parent, _)) = frames.last() {
                let p = parent as usize;
                low[p] = low[p].min(low[v as usize]);
            }
            if low[v as usize] == index[v as usize] {
                while let Some(w) = stack.pop() {
                    comp[w as usize] = count;
                    if w == v {
                        break;
                    }
                }
                count += 1;
            }
        }
    }
    (comp, count)
}

/// The components of `comp` with more than one vertex, each sorted.
pub fn nontrivial(comp: &[u32], count: u32) -> Vec<Vec<u32>> {
    // Sizes first, so that only components of two or more get a list:
    // an acyclic graph of a million vertices has a million components, and
    // a list each cost more than the search that found them.
    let mut size = vec![0u32; count as usize];
    for &c in comp {
        size[c as usize] += 1;
    }
    // Per component, its list's position among the kept ones (or NONE).
    let mut slot = vec![u32::MAX; count as usize];
    let mut members: Vec<Vec<u32>> = Vec::new();
    for (c, &n) in size.iter().enumerate() {
        if n > 1 {
            slot[c] = members.len() as u32;
            members.push(Vec::with_capacity(n as usize));
        }
    }
    for (v, &c) in comp.iter().enumerate() {
        if let Some(list) = members.get_mut(slot[c as usize] as usize) {
            list.push(v as u32);
        }
    }
    members
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sccs(n: usize, edges: &[(u32, u32)]) -> Vec<Vec<u32>> {
        let (comp, count) = tarjan(n, |v, out| {
            out.extend(edges.iter().filter(|e| e.0 == v).map(|e| e.1))
        });
        let mut out = nontrivial(&comp, count);
        out.sort();
        out
    }

    #[test]
    fn finds_components() {
        let e = [(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 3), (5, 5)];
        assert_eq!(sccs(6, &e), vec![vec![0, 1, 2], vec![3, 4]]);
        assert!(sccs(3, &[(0, 1), (1, 2)]).is_empty());
    }

    #[test]
    fn deep_chain_does_not_overflow() {
        let n = 200_000u32;
        let mut e: Vec<(u32, u32)> = (0..n - 1).map(|i| (i, i + 1)).collect();
        e.push((n - 1, 0));
        let (comp, count) = tarjan(n as usize, |v, out| out.push((v + 1) % n));
        assert_eq!(count, 1);
        assert!(comp.iter().all(|&c| c == 0));
    }
}
