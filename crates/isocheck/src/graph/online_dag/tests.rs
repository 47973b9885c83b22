//! `OnlineDag` against a brute-force oracle that shares none of its code:
//! an edge list, searched depth first for acceptance and breadth first for
//! the shortest cycle's length.

use super::*;
use proptest::prelude::*;
use std::collections::HashMap;

/// The graph as plain data: nodes by creation number (never reused), live
/// or retired, and every live edge.
#[derive(Default)]
struct Oracle {
    live: Vec<bool>,
    edges: Vec<(usize, usize, u32)>,
}

impl Oracle {
    /// Whether a path leads from `a` to `b` (`a` reaches itself).
    fn reaches(&self, a: usize, b: usize) -> bool {
        let mut seen = vec![false; self.live.len()];
        let mut stack = vec![a];
        while let Some(v) = stack.pop() {
            if v == b {
                return true;
            }
            if !std::mem::replace(&mut seen[v], true) {
                stack.extend(self.edges.iter().filter(|e| e.0 == v).map(|e| e.1));
            }
        }
        false
    }

    /// The fewest edges on a path from `a` to `b`.
    fn distance(&self, a: usize, b: usize) -> Option<usize> {
        let mut dist = vec![None; self.live.len()];
        dist[a] = Some(0);
        let mut queue = std::collections::VecDeque::from([a]);
        while let Some(v) = queue.pop_front() {
            let d = dist[v]?;
            if v == b {
                return Some(d);
            }
            for e in self.edges.iter().filter(|e| e.0 == v) {
                if dist[e.1].is_none() {
                    dist[e.1] = Some(d + 1);
                    queue.push_back(e.1);
                }
            }
        }
        None
    }

    fn retire(&mut self, v: usize) {
        self.live[v] = false;
        self.edges.retain(|e| e.0 != v && e.1 != v);
    }

    /// `v`'s edges as (other end, label), sorted: out-edges, or in-edges
    /// when `incoming`.
    fn neighbours(&self, v: usize, incoming: bool) -> Vec<(usize, u32)> {
        let mut s: Vec<_> = self
            .edges
            .iter()
            .filter(|e| if incoming { e.1 == v } else { e.0 == v })
            .map(|e| if incoming { (e.0, e.2) } else { (e.1, e.2) })
            .collect();
        s.sort_unstable();
        s
    }
}

/// The module and the oracle side by side, with each creation's id.
struct Pair {
    dag: OnlineDag,
    oracle: Oracle,
    ids: Vec<NodeId>,
    number: HashMap<NodeId, usize>,
}

impl Pair {
    fn new(near_limits: bool) -> Pair {
        let mut dag = OnlineDag::new();
        if near_limits {
            // A few steps from the rank counter's and the epoch's ends, so
            // `renumber` and the mark reset run within the property.
            dag.next_rank = u64::MAX - 4;
            dag.epoch = u32::MAX - 6;
        }
        Pair {
            dag,
            oracle: Oracle::default(),
            ids: Vec::new(),
            number: HashMap::new(),
        }
    }

    fn add_node(&mut self) {
        let id = self.dag.add_node();
        self.number.insert(id, self.ids.len());
        self.ids.push(id);
        self.oracle.live.push(true);
    }

    fn add_edge(&mut self, a: usize, b: usize, label: u32) -> Result<(), TestCaseError> {
        let got = self.dag.add_edge(self.ids[a], self.ids[b], label);
        if !self.oracle.live[a] || !self.oracle.live[b] {
            let stale = if self.oracle.live[a] { b } else { a };
            prop_assert_eq!(got, Err(Refused::Retired(self.ids[stale])));
        } else if self.oracle.reaches(b, a) {
            let Err(Refused::Cycle(cycle)) = got else {
                return Err(TestCaseError::fail(format!(
                    "{a}→{b} closes a cycle: {got:?}"
                )));
            };
            self.check_cycle(&cycle, a, b, label)?;
        } else {
            prop_assert_eq!(got, Ok(()));
            self.oracle.edges.push((a, b, label));
        }
        Ok(())
    }

    /// A real cycle: the path's edges exist with their labels, chained from
    /// `b` to `a`, the new edge last, and no shorter one exists.
    fn check_cycle(
        &self,
        cycle: &[CycleEdge],
        a: usize,
        b: usize,
        label: u32,
    ) -> Result<(), TestCaseError> {
        let new = CycleEdge {
            from: self.ids[a],
            to: self.ids[b],
            label,
        };
        prop_assert_eq!(cycle.last(), Some(&new));
        prop_assert_eq!(cycle[0].from, self.ids[b]);
        for pair in cycle.windows(2) {
            prop_assert_eq!(pair[0].to, pair[1].from);
        }
        for e in &cycle[..cycle.len() - 1] {
            let edge = (self.number[&e.from], self.number[&e.to], e.label);
            prop_assert!(self.oracle.edges.contains(&edge), "{:?} is no edge", edge);
        }
        prop_assert_eq!(Some(cycle.len() - 1), self.oracle.distance(b, a));
        Ok(())
    }

    fn retire(&mut self, v: usize) -> Result<(), TestCaseError> {
        prop_assert_eq!(self.dag.retire(self.ids[v]), self.oracle.live[v]);
        self.oracle.retire(v);
        Ok(())
    }

    fn reaches(&mut self, a: usize, b: usize) -> Result<(), TestCaseError> {
        let want = (self.oracle.live[a] && self.oracle.live[b]).then(|| self.oracle.reaches(a, b));
        prop_assert_eq!(self.dag.reaches(self.ids[a], self.ids[b]), want);
        Ok(())
    }

    /// The module's edge list in creation numbers, sorted.
    fn numbered(&self, edges: Option<impl Iterator<Item = (NodeId, u32)>>) -> Vec<(usize, u32)> {
        let mut got: Vec<_> = edges
            .into_iter()
            .flatten()
            .map(|(other, l)| (self.number[&other], l))
            .collect();
        got.sort_unstable();
        got
    }

    /// After every step: the same nodes and edges, and ranks that are
    /// distinct and a topological order of the live graph.
    fn check_state(&self) -> Result<(), TestCaseError> {
        let live = self.oracle.live.iter().filter(|&&l| l).count();
        prop_assert_eq!(self.dag.len(), live);
        prop_assert_eq!(self.dag.edge_count(), self.oracle.edges.len());
        let mut ranks = Vec::new();
        for (v, &id) in self.ids.iter().enumerate() {
            prop_assert_eq!(self.dag.is_live(id), self.oracle.live[v]);
            let Some(rank) = self.dag.rank(id) else {
                continue;
            };
            ranks.push(rank);
            prop_assert_eq!(
                self.numbered(self.dag.successors(id)),
                self.oracle.neighbours(v, false)
            );
            prop_assert_eq!(
                self.numbered(self.dag.predecessors(id)),
                self.oracle.neighbours(v, true)
            );
        }
        ranks.sort_unstable();
        ranks.dedup();
        prop_assert_eq!(ranks.len(), live, "ranks are distinct");
        for &(a, b, _) in &self.oracle.edges {
            prop_assert!(self.dag.rank(self.ids[a]) < self.dag.rank(self.ids[b]));
        }
        Ok(())
    }
}

/// Runs `steps`: `(kind, a, b, label)`, where `kind` picks an operation
/// (mostly edges) and `a`, `b` pick among the nodes created so far, live
/// or retired.
fn run(near_limits: bool, steps: &[(u8, u16, u16, u32)]) -> Result<(), TestCaseError> {
    let mut pair = Pair::new(near_limits);
    for &(kind, a, b, label) in steps {
        let n = pair.ids.len();
        let (a, b) = (a as usize % n.max(1), b as usize % n.max(1));
        match kind {
            _ if n == 0 || kind < 3 => pair.add_node(),
            3..=11 => pair.add_edge(a, b, label)?,
            12 | 13 => pair.retire(a)?,
            _ => pair.reaches(a, b)?,
        }
        pair.check_state()?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]
    #[test]
    fn agrees_with_a_brute_force_oracle(
        near_limits in any::<bool>(),
        steps in proptest::collection::vec((0u8..16, any::<u16>(), any::<u16>(), 0u32..3), 0..160),
    ) {
        run(near_limits, &steps)?;
    }
}

fn cycle_of(path: &[(NodeId, NodeId, u32)]) -> Refused {
    Refused::Cycle(
        path.iter()
            .map(|&(from, to, label)| CycleEdge { from, to, label })
            .collect(),
    )
}

#[test]
fn a_backward_edge_reorders_and_the_closing_edge_is_refused_with_its_cycle() {
    let mut dag = OnlineDag::new();
    let [a, b, c] = [dag.add_node(), dag.add_node(), dag.add_node()];
    assert_eq!(dag.add_edge(c, a, 7), Ok(()));
    assert_eq!(dag.add_edge(b, c, 8), Ok(()));
    assert!(dag.rank(b) < dag.rank(c) && dag.rank(c) < dag.rank(a));
    assert_eq!(
        dag.add_edge(a, b, 9),
        Err(cycle_of(&[(b, c, 8), (c, a, 7), (a, b, 9)]))
    );
    assert_eq!(dag.edge_count(), 2);
    assert_eq!(dag.reaches(b, a), Some(true));
    assert_eq!(dag.reaches(a, b), Some(false));
}

#[test]
fn the_cycle_returned_is_a_shortest_one() {
    let mut dag = OnlineDag::new();
    let n: Vec<NodeId> = (0..5).map(|_| dag.add_node()).collect();
    // A long way 0 → 1 → 2 → 3 → 4 and a short cut 0 → 4.
    for (i, w) in n.windows(2).enumerate() {
        assert_eq!(dag.add_edge(w[0], w[1], i as u32), Ok(()));
    }
    assert_eq!(dag.add_edge(n[0], n[4], 10), Ok(()));
    assert_eq!(
        dag.add_edge(n[4], n[0], 11),
        Err(cycle_of(&[(n[0], n[4], 10), (n[4], n[0], 11)]))
    );
}

#[test]
fn a_self_loop_is_a_cycle_of_one_edge() {
    let mut dag = OnlineDag::new();
    let a = dag.add_node();
    assert_eq!(dag.add_edge(a, a, 3), Err(cycle_of(&[(a, a, 3)])));
}

#[test]
fn a_retired_slot_is_reused_under_a_new_generation() {
    let mut dag = OnlineDag::new();
    let [a, b] = [dag.add_node(), dag.add_node()];
    assert_eq!(dag.add_edge(a, b, 0), Ok(()));
    assert_eq!(dag.add_edge(a, b, 1), Ok(()));
    assert!(dag.retire(a));
    assert!(!dag.retire(a));
    assert_eq!(dag.edge_count(), 0);
    let c = dag.add_node();
    assert_eq!((c.slot(), c.generation()), (a.slot(), a.generation() + 1));
    assert_ne!(c, a);
    assert!(!dag.is_live(a) && dag.is_live(c));
    assert_eq!(dag.add_edge(a, b, 0), Err(Refused::Retired(a)));
    assert_eq!(dag.add_edge(b, a, 0), Err(Refused::Retired(a)));
    assert_eq!(dag.reaches(a, b), None);
    assert!(dag.rank(b) < dag.rank(c), "a new node comes last");
    assert!(dag.retire(b) && dag.retire(c) && dag.is_empty());
}

#[test]
fn ranks_running_out_renumber_the_live_nodes_in_their_order() {
    let mut dag = OnlineDag::new();
    dag.next_rank = u64::MAX - 2;
    let [a, b] = [dag.add_node(), dag.add_node()];
    assert_eq!(dag.add_edge(b, a, 0), Ok(()));
    let c = dag.add_node();
    assert_eq!(
        [dag.rank(b), dag.rank(a), dag.rank(c)],
        [Some(0), Some(1), Some(2)]
    );
}
