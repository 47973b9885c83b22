//! A directed acyclic graph kept in a topological order while nodes and
//! edges arrive and old nodes retire: the structure an online checker
//! (issue 37) reports a cycle with the moment the edge closing it arrives.
//!
//! Owns the live nodes, their labelled edges and their order; knows nothing
//! of transactions, relations or anomalies (an edge's `u32` label is the
//! caller's).
//!
//! # Algorithm
//!
//! Pearce and Kelly's dynamic topological sort ("A dynamic topological sort
//! algorithm for directed acyclic graphs", JEA 11, 2006). Every live node
//! has a rank, and every edge goes from a lower rank to a higher one. An
//! edge `from → to` that already agrees with the ranks costs nothing. One
//! that does not can only close a cycle through nodes ranked between its
//! ends (the affected region), so only they are searched: forward from `to`
//! over nodes ranked below `from` (reaching `from` is a cycle), backward
//! from `from` over nodes ranked above `to`; the two sets then swap places
//! within the ranks they already hold: the backward set takes the lowest of
//! them, each set keeping its own order. In a checker's graph most edges go
//! forward in time and a new node is ranked last, so most edges need no
//! search, and a backward (rw, ww) edge searches only the transactions
//! concurrent with its ends.
//!
//! The forward search is breadth first, so the cycle [`OnlineDag::add_edge`]
//! returns is a shortest one through the new edge: every path from `to` to
//! `from` lies in the region.
//!
//! # Ranks
//!
//! Ranks are `u64`. A new node takes the next rank of a counter, so it
//! comes last; a reorder only permutes ranks its nodes already hold, so no
//! insertion ever renumbers, and retiring a node just leaves a gap. The
//! counter is the only thing that grows: one per node ever added, which at
//! a million nodes a second lasts 584,000 years. Should it still reach
//! `u64::MAX`, the live nodes are renumbered `0..n` in their order once
//! (`renumber`), and counting goes on from `n`.
//!
//! # Node ids
//!
//! A [`NodeId`] is a slot and the slot's generation. Retiring a node frees
//! its slot and bumps its generation, so a slot is reused by a later
//! [`OnlineDag::add_node`] under a new id, and every call given a retired
//! id says so ([`Refused::Retired`], `None`, `false`) rather than touch the
//! node now in the slot. Generations are `u32` and wrap: an id is told
//! apart from its slot's later ones for 2^32 reuses of that slot.
//!
//! # Edges
//!
//! A node keeps its out-edges (target, label) and its in-edges (source,
//! label), each record holding its twin's position in the other node's
//! list, so
//! [`OnlineDag::retire`] unlinks an edge in O(1) (a swap-remove and one
//! twin fixed): retiring is O(degree). Parallel edges with different (or
//! equal) labels are kept apart. A freed slot's lists keep room for its
//! next node (up to `KEPT_CAPACITY` edges each way), so a sliding window
//! of live nodes seldom allocates once warm.
//!
//! # Why not the `incremental-topo` crate
//!
//! `incremental-topo` 0.3.1 (Pearce–Kelly too, MIT/Apache-2.0) was run on
//! the load of `examples/online_dag_load.rs` (20 processes, transactions
//! appended as they end, each with a process, a real-time and 2–4
//! dependency edges, about 10% of those backward; transactions older than
//! a window retired), from a copy of that example outside the repository
//! calling `add_node`, `add_dependency` and `delete_node`. It does not
//! serve:
//!
//! - retiring is O(n): `delete_node` walks every node to close the gap in
//!   its ranks (a `TODO` in its source). At a 100k window it took 112 µs
//!   of CPU per retirement: 9,000 transactions a second, where issue 37
//!   needs 50,000;
//! - a cycle is only `Error::CycleDetected`, without the path the checker
//!   must report;
//! - its edges have no labels, and a pair has at most one edge.
//!
//! # Measured
//!
//! `scripts/timed.sh -n 3 -- target/release/examples/online_dag_load N
//! WINDOW` (medians; the copy for the crate likewise), seed 1, on this
//! project's 2-core machine shared with other builds (load average 5–8,
//! so wall times ran at twice the CPU times: CPU seconds are the figures):
//!
//! | transactions, edges, window | here: user+sys s, peak RSS | `incremental-topo` |
//! |---|---|---|
//! | 200k, 1.0M, 100k | 0.10 s, 34 MB | 11.2 s, 32 MB |
//! | 1M, 5.0M, none retired | 0.46 s, 268 MB | 0.65 s, 277 MB |
//! | 10M, 50.0M (3.1M backward), 100k | 5.2 s, 51 MB | about 18 min by the rate above (not run) |
//! | 30M, 150.0M, 100k (one run) | 15.9 s, 53 MB | |
//! | 10M as above, and every 1,000th transaction an edge 200 back (9,935 cycles refused, 7.9 edges each) | 5.1 s, 51 MB | |
//!
//! The generator alone takes 0.9 s of the 10M run, so the graph's share
//! is about 11M edges (2.3M transactions) per CPU second. The peak RSS
//! creeps up (41 MB at 1M, 47 MB at 3M, 51 MB at 10M, 53 MB at 30M) as
//! each slot's lists grow to the room a freed slot keeps
//! (`KEPT_CAPACITY`, 8 records each way, 100k slots: at most 19 MB), where
//! it levels off; keeping room for 4 held it flat (31 MB at 1M, 32 MB at
//! 10M, before in-edges carried labels) at the cost of more reallocation.

use std::fmt;

/// The most edges a freed slot's lists keep room for.
const KEPT_CAPACITY: usize = 8;

/// A node of an [`OnlineDag`]: its slot and the slot's generation (see the
/// module's doc: a retired node's slot is reused under a new generation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId {
    slot: u32,
    generation: u32,
}

impl NodeId {
    /// The slot: below the most nodes ever live at once, shared over time
    /// by the nodes of different generations.
    pub fn slot(self) -> u32 {
        self.slot
    }

    /// How many nodes held the slot before this one (wrapping).
    pub fn generation(self) -> u32 {
        self.generation
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.slot, self.generation)
    }
}

/// An edge of a cycle [`OnlineDag::add_edge`] refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CycleEdge {
    /// Where the edge starts.
    pub from: NodeId,
    /// Where it ends.
    pub to: NodeId,
    /// The label it was added with.
    pub label: u32,
}

/// Why [`OnlineDag::add_edge`] did not insert an edge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refused {
    /// The edge would close this cycle: a shortest path of existing edges
    /// from the new edge's `to` to its `from`, then the new edge itself
    /// (alone for a self-loop).
    Cycle(Vec<CycleEdge>),
    /// This end of the edge was retired.
    Retired(NodeId),
}

/// One end's record of an edge: the node at the other end, the label, and
/// the position of the other end's record in that node's list.
#[derive(Clone, Copy, Debug)]
struct Half {
    node: u32,
    label: u32,
    twin: u32,
}

/// Which of a slot's `lists` holds an edge: the out-edges (records of
/// targets) or the in-edges (records of sources).
const OUT: usize = 0;
const IN: usize = 1;

#[derive(Debug, Default)]
struct Slot {
    generation: u32,
    live: bool,
    rank: u64,
    /// The search that last reached the node (see `OnlineDag::epoch`).
    mark: u32,
    /// The out-edges and in-edges (`OUT`, `IN`).
    lists: [Vec<Half>; 2],
}

/// A node a forward search reached, with the step it was reached from and
/// the label of the edge it came by: the path back to the search's start.
#[derive(Clone, Copy, Debug)]
struct Step {
    node: u32,
    parent: u32,
    label: u32,
}

/// A directed acyclic graph in a maintained topological order, with node
/// retirement (see the module's doc).
#[derive(Debug, Default)]
pub struct OnlineDag {
    slots: Vec<Slot>,
    /// Slots of retired nodes, reused first.
    free: Vec<u32>,
    next_rank: u64,
    /// Bumped per search; a node whose `mark` equals it was reached by the
    /// current one, so no visited set is cleared between searches.
    epoch: u32,
    live: usize,
    edges: usize,
    /// The forward search's steps (its queue), kept to reuse the allocation.
    forward: Vec<Step>,
    /// The backward search's nodes (its queue).
    backward: Vec<u32>,
    /// The ranks a reorder hands out.
    ranks: Vec<u64>,
}

impl OnlineDag {
    /// An empty graph.
    pub fn new() -> OnlineDag {
        OnlineDag::default()
    }

    /// Adds a node with no edges, last in the order.
    pub fn add_node(&mut self) -> NodeId {
        let rank = self.fresh_rank();
        let slot = match self.free.pop() {
            Some(slot) => slot,
            None => {
                // 2^32 live nodes would take over 300 GB (docs/panics.md).
                let slot = u32::try_from(self.slots.len()).expect("fewer than 2^32 live nodes");
                self.slots.push(Slot::default());
                slot
            }
        };
        let s = &mut self.slots[slot as usize];
        s.live = true;
        s.rank = rank;
        self.live += 1;
        NodeId {
            slot,
            generation: s.generation,
        }
    }

    /// Inserts the edge `from → to` with `label` if the graph stays acyclic,
    /// reordering the nodes between its ends if they disagree with it;
    /// otherwise inserts nothing and returns the cycle it would close.
    pub fn add_edge(&mut self, from: NodeId, to: NodeId, label: u32) -> Result<(), Refused> {
        let x = self.live_slot(from).ok_or(Refused::Retired(from))?;
        let y = self.live_slot(to).ok_or(Refused::Retired(to))?;
        if x == y {
            return Err(Refused::Cycle(vec![CycleEdge { from, to, label }]));
        }
        if self.slots[x as usize].rank > self.slots[y as usize].rank {
            if let Some(last) = self.search_forward(y, x) {
                return Err(Refused::Cycle(self.cycle(last, from, to, label)));
            }
            self.search_backward(x, self.slots[y as usize].rank);
            self.swap_regions();
        }
        self.link(x, y, label);
        Ok(())
    }

    /// Removes `node` and its edges, in O(its degree); false if it was
    /// already retired. Its slot is reused by a later node, under a new id.
    pub fn retire(&mut self, node: NodeId) -> bool {
        let Some(x) = self.live_slot(node) else {
            return false;
        };
        for side in [OUT, IN] {
            while let Some(half) = self.slots[x as usize].lists[side].pop() {
                self.unlink(half.node, 1 - side, half.twin);
                self.edges -= 1;
            }
        }
        let s = &mut self.slots[x as usize];
        // A slot keeps its lists' allocations for its next node, but not
        // a rare large one: otherwise each slot would ratchet up to the
        // largest degree any of its nodes ever had.
        for list in &mut s.lists {
            list.shrink_to(KEPT_CAPACITY);
        }
        s.live = false;
        s.generation = s.generation.wrapping_add(1);
        self.free.push(x);
        self.live -= 1;
        true
    }

    /// Whether a path leads from `a` to `b` (`a` reaches itself); `None` if
    /// either was retired. Free when `b` is ranked before `a`; otherwise a
    /// search of the nodes ranked between them.
    pub fn reaches(&mut self, a: NodeId, b: NodeId) -> Option<bool> {
        let x = self.live_slot(a)?;
        let y = self.live_slot(b)?;
        if x == y {
            return Some(true);
        }
        if self.slots[x as usize].rank > self.slots[y as usize].rank {
            return Some(false);
        }
        Some(self.search_forward(x, y).is_some())
    }

    /// The node's place in the order: every edge goes from a lower rank to
    /// a higher one, and ranks of live nodes are distinct. `None` once
    /// retired. A rank changes when an edge reorders its node.
    pub fn rank(&self, node: NodeId) -> Option<u64> {
        self.live_slot(node).map(|x| self.slots[x as usize].rank)
    }

    /// Whether `node` is live (added and not retired).
    pub fn is_live(&self, node: NodeId) -> bool {
        self.live_slot(node).is_some()
    }

    /// The out-edges of `node`, as (target, label), in no set order; `None`
    /// once retired.
    pub fn successors(&self, node: NodeId) -> Option<impl Iterator<Item = (NodeId, u32)> + '_> {
        self.neighbours(node, OUT)
    }

    /// The in-edges of `node`, as (source, label), in no set order; `None`
    /// once retired.
    pub fn predecessors(&self, node: NodeId) -> Option<impl Iterator<Item = (NodeId, u32)> + '_> {
        self.neighbours(node, IN)
    }

    fn neighbours(
        &self,
        node: NodeId,
        side: usize,
    ) -> Option<impl Iterator<Item = (NodeId, u32)> + '_> {
        let x = self.live_slot(node)?;
        Some(
            self.slots[x as usize].lists[side]
                .iter()
                .map(|h| (self.id(h.node), h.label)),
        )
    }

    /// How many nodes are live.
    pub fn len(&self) -> usize {
        self.live
    }

    /// Whether no node is live.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// How many edges the live nodes have.
    pub fn edge_count(&self) -> usize {
        self.edges
    }

    fn live_slot(&self, node: NodeId) -> Option<u32> {
        let s = self.slots.get(node.slot as usize)?;
        (s.live && s.generation == node.generation).then_some(node.slot)
    }

    fn id(&self, slot: u32) -> NodeId {
        NodeId {
            slot,
            generation: self.slots[slot as usize].generation,
        }
    }

    fn fresh_rank(&mut self) -> u64 {
        if self.next_rank == u64::MAX {
            self.renumber();
        }
        let rank = self.next_rank;
        self.next_rank += 1;
        rank
    }

    /// Ranks the live nodes `0..n` in their order, and counts on from `n`.
    fn renumber(&mut self) {
        let mut live: Vec<u32> = (0..self.slots.len() as u32)
            .filter(|&x| self.slots[x as usize].live)
            .collect();
        live.sort_unstable_by_key(|&x| self.slots[x as usize].rank);
        for (rank, &x) in (0u64..).zip(&live) {
            self.slots[x as usize].rank = rank;
        }
        self.next_rank = live.len() as u64;
    }

    /// Starts a search: a new epoch, so no node counts as reached.
    fn begin_search(&mut self) {
        if self.epoch == u32::MAX {
            // Every 2^32 searches: forget the old marks so none can equal
            // a new epoch.
            for s in &mut self.slots {
                s.mark = 0;
            }
            self.epoch = 0;
        }
        self.epoch += 1;
    }

    /// Breadth-first search from `start` for `goal` over the nodes ranked
    /// below `goal` (the only ones a path to it can pass, the order being
    /// topological). Returns the step reaching `goal`, or `None` when there
    /// is no path, `forward` then holding every node reached.
    fn search_forward(&mut self, start: u32, goal: u32) -> Option<u32> {
        self.begin_search();
        let bound = self.slots[goal as usize].rank;
        self.forward.clear();
        self.forward.push(Step {
            node: start,
            parent: u32::MAX,
            label: 0,
        });
        self.slots[start as usize].mark = self.epoch;
        let mut i = 0;
        while let Some(&Step { node, .. }) = self.forward.get(i) {
            for k in 0..self.slots[node as usize].lists[OUT].len() {
                let Half {
                    node: to, label, ..
                } = self.slots[node as usize].lists[OUT][k];
                let step = Step {
                    node: to,
                    parent: i as u32,
                    label,
                };
                if to == goal {
                    self.forward.push(step);
                    return Some(self.forward.len() as u32 - 1);
                }
                let t = &mut self.slots[to as usize];
                if t.rank < bound && t.mark != self.epoch {
                    t.mark = self.epoch;
                    self.forward.push(step);
                }
            }
            i += 1;
        }
        None
    }

    /// Collects in `backward` the nodes reaching `start` ranked above
    /// `bound`, `start` among them, skipping any the forward search marked
    /// (none, when it found no path: such a node would lie on one).
    fn search_backward(&mut self, start: u32, bound: u64) {
        self.backward.clear();
        self.backward.push(start);
        self.slots[start as usize].mark = self.epoch;
        let mut i = 0;
        while let Some(&node) = self.backward.get(i) {
            for k in 0..self.slots[node as usize].lists[IN].len() {
                let from = self.slots[node as usize].lists[IN][k].node;
                let f = &mut self.slots[from as usize];
                if f.rank > bound && f.mark != self.epoch {
                    f.mark = self.epoch;
                    self.backward.push(from);
                }
            }
            i += 1;
        }
    }

    /// Pearce and Kelly's reorder: the ranks the two searched sets hold,
    /// lowest first to the backward set's nodes, then to the forward set's,
    /// each set in its current order.
    fn swap_regions(&mut self) {
        let slots = &mut self.slots;
        self.backward
            .sort_unstable_by_key(|&x| slots[x as usize].rank);
        self.forward
            .sort_unstable_by_key(|s| slots[s.node as usize].rank);
        self.ranks.clear();
        self.ranks
            .extend(self.backward.iter().map(|&x| slots[x as usize].rank));
        self.ranks
            .extend(self.forward.iter().map(|s| slots[s.node as usize].rank));
        self.ranks.sort_unstable();
        let nodes = self
            .backward
            .iter()
            .copied()
            .chain(self.forward.iter().map(|s| s.node));
        for (x, &rank) in nodes.zip(&self.ranks) {
            slots[x as usize].rank = rank;
        }
    }

    /// The cycle the forward search found: the path of steps back from
    /// `last` (which reached `from`) to its start `to`, in path order, then
    /// the new edge.
    fn cycle(&self, last: u32, from: NodeId, to: NodeId, label: u32) -> Vec<CycleEdge> {
        let mut path = vec![CycleEdge { from, to, label }];
        let mut step = self.forward[last as usize];
        while step.parent != u32::MAX {
            let parent = self.forward[step.parent as usize];
            path.push(CycleEdge {
                from: self.id(parent.node),
                to: self.id(step.node),
                label: step.label,
            });
            step = parent;
        }
        // Built backwards from the new edge: the path first, the new edge last.
        path.reverse();
        path
    }

    fn link(&mut self, x: u32, y: u32, label: u32) {
        // A node's degree is below 2^32: its edges would take 96 GB.
        let out_at = self.slots[x as usize].lists[OUT].len() as u32;
        let in_at = self.slots[y as usize].lists[IN].len() as u32;
        self.slots[x as usize].lists[OUT].push(Half {
            node: y,
            label,
            twin: in_at,
        });
        self.slots[y as usize].lists[IN].push(Half {
            node: x,
            label,
            twin: out_at,
        });
        self.edges += 1;
    }

    /// Removes record `at` of `node`'s `side` list (the other end's record
    /// is being removed by the caller); the record swapped into its place
    /// has its twin told the new position.
    fn unlink(&mut self, node: u32, side: usize, at: u32) {
        let list = &mut self.slots[node as usize].lists[side];
        list.swap_remove(at as usize);
        if let Some(&moved) = list.get(at as usize) {
            self.slots[moved.node as usize].lists[1 - side][moved.twin as usize].twin = at;
        }
    }
}

#[cfg(test)]
mod tests;
