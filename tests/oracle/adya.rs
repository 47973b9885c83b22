//! Adya's (1999) graph definitions over every version order: for each key
//! a total order of the committed transactions writing it (after the
//! initial version), the direct serialization graph of the committed
//! transactions (ww between writers in version order; wr from the writer
//! of the version an external read returned, the witness's chosen one
//! when the value was written twice; rw from a reader to the
//! writer of the next version after the one it read), plus the session or
//! real-time order of the strong variants; a model holds when some version
//! order leaves its graph without the cycles it proscribes.
//!
//! Every external read (not only a transaction's first of a key) reads a
//! version. A list's version is its whole content, so a read pins the
//! order (traceability): it must be exactly the appends of the first few
//! writers in version order. A transaction reads its own version after
//! writing (Adya's histories), whose content is its predecessor's and its
//! own appends: a list read after the transaction's own appends pins its
//! own place, right after the version whose content the read shows before
//! them (such a read makes no wr or rw edge; the ww edges order it).
//! PL-2 and up proscribe G1a and G1b: a read returns a committed
//! transaction's final write (a list read ends at a writer's last append).
//! PL-1 (read uncommitted) allows both: a read may return a write of a
//! transaction that aborted (or is taken as aborted) or a transaction's
//! intermediate state, so a register read says nothing about the order,
//! and only a list read's committed elements must be a prefix of the
//! committed appends in version order, cut anywhere (after the reader's
//! own appends: exactly the committed appends before its own).

use super::history::Kind;
use super::reads::{ExtRead, Facts};
use super::serial::Order;

/// What a model's cycles may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Graph {
    /// wr edges (PL-2 and up); without them, reads of aborted and
    /// intermediate versions are allowed (PL-1).
    pub wr: bool,
    /// rw edges (PL-2.99 and up).
    pub rw: bool,
    pub order: Order,
    /// Only cycles without two adjacent rw edges count (G-SI, snapshot
    /// isolation as Elle checks it).
    pub snapshot: bool,
}

/// How many version-order combinations one history may need; beyond, the
/// model is left undecided (`None`). Histories that large are rare.
const COMBINATIONS: usize = 20_000;

/// Whether some version order keeps `g` free of proscribed cycles; `None`
/// if there are too many orders to try.
pub fn holds(f: &Facts, g: Graph) -> Option<bool> {
    if g.wr && intermediate_read(f) {
        return Some(false);
    }
    let orders: Vec<Vec<Vec<usize>>> = (0..f.h.keys).map(|k| orders(f, k, g.wr)).collect();
    if orders.iter().map(Vec::len).product::<usize>() > COMBINATIONS {
        return None;
    }
    if orders.iter().any(Vec::is_empty) {
        return Some(false);
    }
    Some(some_acyclic(f, g, &orders, &mut Vec::new()))
}

/// Whether some choice of one order per key, extending `chosen` (the
/// orders of the first keys), leaves the graph without proscribed cycles.
fn some_acyclic<'o>(
    f: &Facts,
    g: Graph,
    orders: &'o [Vec<Vec<usize>>],
    chosen: &mut Vec<&'o [usize]>,
) -> bool {
    let Some(candidates) = orders.get(chosen.len()) else {
        return acyclic(f, chosen, g);
    };
    candidates.iter().any(|order| {
        chosen.push(order);
        let found = some_acyclic(f, g, orders, chosen);
        chosen.pop();
        found
    })
}

/// A register read of a value its chosen writer overwrote later in the
/// same transaction (G1b); a list read is checked against the versions.
fn intermediate_read(f: &Facts) -> bool {
    f.h.kind == Kind::Register
        && f.reads.iter().flatten().any(|r| {
            (r.seen.iter().zip(&r.from)).any(|(&v, &w)| f.writes(w, r.key).last() != Some(&v))
        })
}

/// The version orders of `key` the list reads allow: permutations of its
/// committed writers. With `exact` (no dirty reads), each read is the
/// appends of a prefix of writers; otherwise each read's committed
/// elements are a prefix of the committed appends.
fn orders(f: &Facts, key: usize, exact: bool) -> Vec<Vec<usize>> {
    let writers: Vec<usize> = f
        .members()
        .into_iter()
        .filter(|&t| f.writes_key(t, key))
        .collect();
    let mut all = permutations(&writers);
    if f.h.kind == Kind::List {
        all.retain(|order| {
            f.reads.iter().enumerate().all(|(t, reads)| {
                reads
                    .iter()
                    .filter(|r| r.key == key)
                    .all(|r| traceable(f, order, key, t, r, exact))
            })
        });
    }
    all
}

/// Whether list read `r` of transaction `t` shows a version of `order`:
/// exactly (`exact`), or its committed elements a prefix; after `t`'s own
/// appends, the one right before `t`'s.
fn traceable(f: &Facts, order: &[usize], key: usize, t: usize, r: &ExtRead, exact: bool) -> bool {
    let seen: Vec<u32> = if exact {
        r.seen.clone()
    } else {
        (r.seen.iter().zip(&r.from))
            .filter(|&(_, &w)| f.committed[w])
            .map(|(&v, _)| v)
            .collect()
    };
    if r.own {
        let Some(at) = order.iter().position(|&w| w == t) else {
            return false;
        };
        return f.state(&order[..at], key) == seen;
    }
    if exact {
        version(f, order, key, r).is_some()
    } else {
        f.state(order, key).starts_with(&seen)
    }
}

/// Which version of `key` (0: the initial one, `i`: the one `order[i-1]`
/// installed) external read `r` read, if any: a register's, its chosen
/// writer's; a list's, the one whose content it shows.
fn version(f: &Facts, order: &[usize], key: usize, r: &ExtRead) -> Option<usize> {
    match f.h.kind {
        Kind::Register => match r.from.first() {
            None => Some(0),
            Some(&from) => order.iter().position(|&w| w == from).map(|i| i + 1),
        },
        Kind::List => (0..=order.len()).find(|&i| f.state(&order[..i], key) == r.seen),
    }
}

/// Every order of `xs`.
fn permutations(xs: &[usize]) -> Vec<Vec<usize>> {
    let mut all = Vec::new();
    arrange(xs, &mut vec![false; xs.len()], &mut Vec::new(), &mut all);
    all
}

/// Appends to `all` every completion of `order` by the elements of `xs`
/// not `used` yet.
fn arrange(xs: &[usize], used: &mut [bool], order: &mut Vec<usize>, all: &mut Vec<Vec<usize>>) {
    if order.len() == xs.len() {
        all.push(order.clone());
        return;
    }
    for i in 0..xs.len() {
        if !used[i] {
            used[i] = true;
            order.push(xs[i]);
            arrange(xs, used, order, all);
            order.pop();
            used[i] = false;
        }
    }
}

/// A dependency edge: from, to, and whether it is an anti-dependency.
type Edge = (usize, usize, bool);

/// Whether the graph under one version order per key has none of the
/// cycles `g` proscribes.
fn acyclic(f: &Facts, orders: &[&[usize]], g: Graph) -> bool {
    let mut edges: Vec<Edge> = Vec::new();
    for (key, order) in orders.iter().enumerate() {
        // ww between consecutive versions: the rest follow by transitivity.
        edges.extend(order.windows(2).map(|p| (p[0], p[1], false)));
        if g.wr && !dependencies(f, key, order, g, &mut edges) {
            return false;
        }
    }
    let members = f.members();
    for &a in &members {
        edges.extend(
            members
                .iter()
                .filter(|&&b| g.order.holds(f, a, b))
                .map(|&b| (a, b, false)),
        );
    }
    !cyclic(f.committed.len(), &edges, g.snapshot)
}

/// Adds the wr (and, for `g.rw`, rw) edges of the reads of `key` under
/// version order `order`; `false` if a read shows no version of it.
fn dependencies(f: &Facts, key: usize, order: &[usize], g: Graph, edges: &mut Vec<Edge>) -> bool {
    for (t, reads) in f.reads.iter().enumerate() {
        for r in reads.iter().filter(|r| r.key == key && !r.own) {
            let Some(at) = version(f, order, key, r) else {
                return false;
            };
            if at > 0 && order[at - 1] != t {
                edges.push((order[at - 1], t, false));
            }
            match order.get(at) {
                Some(&next) if g.rw && next != t => edges.push((t, next, true)),
                _ => {}
            }
        }
    }
    true
}

/// Whether a proscribed cycle exists among `n` transactions: any cycle,
/// or for snapshot isolation one without two adjacent anti-dependencies,
/// that is a cycle of steps each made of a non-rw edge optionally followed
/// by one rw edge.
fn cyclic(n: usize, edges: &[Edge], snapshot: bool) -> bool {
    let mut step = vec![vec![false; n]; n];
    for &(a, b, anti) in edges {
        if !(snapshot && anti) {
            step[a][b] = true;
        }
        if snapshot && !anti {
            for &(c, d, next_anti) in edges {
                if c == b && next_anti {
                    step[a][d] = true;
                }
            }
        }
    }
    // Depth-first search: 0 unseen, 1 on the current path, 2 finished.
    fn visit(a: usize, step: &[Vec<bool>], state: &mut [u8]) -> bool {
        state[a] = 1;
        for b in 0..step.len() {
            if step[a][b] && (state[b] == 1 || (state[b] == 0 && visit(b, step, state))) {
                return true;
            }
        }
        state[a] = 2;
        false
    }
    let mut state = vec![0u8; n];
    (0..n).any(|a| state[a] == 0 && visit(a, &step, &mut state))
}
