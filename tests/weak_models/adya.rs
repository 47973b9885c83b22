//! Adya's definitions as Elle decides them, by brute force for register
//! histories: some version order of each key (every permutation of its
//! writers, after the initial version) under which the model's dependency
//! graph has none of the cycles it proscribes. Every read depends on the
//! version it shows (Elle takes dependencies from a transaction's first
//! read of each key only; a later read that disagrees is also Elle's
//! `internal`, found by inference).

use super::{Mop, Rel, Txn};

/// What a model's cycles may use: the item dependencies (`ww` always;
/// `wr`, `rw` if it proscribes cycles through them), an order between
/// transactions (session or real time), and whether only cycles with
/// adjacent anti-dependencies count (snapshot isolation's G-SI: a cycle
/// is proscribed unless two `rw` edges are adjacent in it).
#[derive(Clone, Copy)]
pub struct Graph {
    pub wr: bool,
    pub rw: bool,
    pub order: Order,
    pub snapshot: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Order {
    None,
    Session,
    Realtime,
}

/// The graph each Adya model (canonical name) keeps acyclic: Adya's
/// PL-1 (G0), PL-2 (G1c), PL-2.99 and PL-3 (every cycle: without predicate
/// reads G2-item is G2), PL-SI (G-SI), and their session and real-time
/// variants.
pub fn graph(model: &str) -> Option<Graph> {
    let g = |wr, rw, order, snapshot| Graph {
        wr,
        rw,
        order,
        snapshot,
    };
    use Order::*;
    Some(match model {
        "PL-1" => g(false, false, None, false),
        "PL-2" => g(true, false, None, false),
        "PL-2.99" | "PL-3" => g(true, true, None, false),
        "PL-SI" => g(true, true, None, true),
        "PL-SS" => g(true, true, Realtime, false),
        "strong-session-PL-1" => g(false, false, Session, false),
        "strong-session-PL-2" => g(true, false, Session, false),
        "strong-session-serializable" => g(true, true, Session, false),
        "strong-session-snapshot-isolation" => g(true, true, Session, true),
        "strong-PL-1" => g(false, false, Realtime, false),
        "strong-PL-2" => g(true, false, Realtime, false),
        "strong-snapshot-isolation" => g(true, true, Realtime, true),
        _ => return Option::None,
    })
}

/// Whether some version order keeps `g` free of proscribed cycles.
/// Transactions are in file order, each completing before the next starts.
pub fn holds(txns: &[Txn], g: Graph) -> bool {
    let writers: Vec<Vec<usize>> = (0..super::KEYS)
        .map(|k| (0..txns.len()).filter(|&t| writes(&txns[t], k)).collect())
        .collect();
    let orders: Vec<Vec<Vec<usize>>> = writers.iter().map(|w| permutations(w)).collect();
    let mut choice = vec![0; orders.len()];
    loop {
        let chosen: Vec<&[usize]> = (0..orders.len())
            .map(|k| &orders[k][choice[k]][..])
            .collect();
        if acyclic(txns, &chosen, g) {
            return true;
        }
        let Some(k) = (0..orders.len()).find(|&k| choice[k] + 1 < orders[k].len()) else {
            return false;
        };
        choice[k] += 1;
        choice[..k].fill(0);
    }
}

fn writes(t: &Txn, k: u64) -> bool {
    t.mops
        .iter()
        .any(|m| matches!(m, Mop::Write(j, _) if *j == k))
}

fn permutations(xs: &[usize]) -> Vec<Vec<usize>> {
    if xs.is_empty() {
        return vec![Vec::new()];
    }
    let mut all = Vec::new();
    for (i, &x) in xs.iter().enumerate() {
        let mut rest = xs.to_vec();
        rest.remove(i);
        for mut p in permutations(&rest) {
            p.insert(0, x);
            all.push(p);
        }
    }
    all
}

/// The dependency graph under one version order per key, as two
/// relations: anti-dependencies and everything else.
fn acyclic(txns: &[Txn], orders: &[&[usize]], g: Graph) -> bool {
    let n = txns.len();
    let mut other: Rel = vec![vec![false; n]; n];
    let mut rw: Rel = vec![vec![false; n]; n];
    for (k, order) in orders.iter().enumerate() {
        for (i, &a) in order.iter().enumerate() {
            for &b in &order[i + 1..] {
                other[a][b] = true;
            }
        }
        for (t, txn) in txns.iter().enumerate() {
            // Every read depends on the version it shows: the histories
            // read a key before writing it, so no read shows its own
            // transaction's write.
            for m in &txn.mops {
                let Mop::Read(j, vs) = m else { continue };
                if *j != k as u64 {
                    continue;
                }
                // The version read: its place in the order (0: initial).
                let at = vs.first().map_or(0, |&v| {
                    1 + order
                        .iter()
                        .position(|&w| w + 1 == v as usize)
                        .expect("a writer of the key")
                });
                if at > 0 && order[at - 1] != t {
                    other[order[at - 1]][t] |= g.wr;
                }
                for &w in &order[at..] {
                    if w != t {
                        rw[t][w] |= g.rw;
                    }
                }
            }
        }
    }
    for b in 1..n {
        for a in 0..b {
            let ordered = match g.order {
                Order::None => false,
                Order::Session => txns[a].session == txns[b].session,
                Order::Realtime => true,
            };
            other[a][b] |= ordered;
        }
    }
    !cyclic(&other, &rw, g.snapshot)
}

/// Whether a proscribed cycle exists: any cycle, or for snapshot isolation
/// one without two adjacent anti-dependencies (a cycle of `other ; rw?`
/// steps).
fn cyclic(other: &Rel, rw: &Rel, snapshot: bool) -> bool {
    let n = other.len();
    let step: Rel = (0..n)
        .map(|a| {
            (0..n)
                .map(|b| {
                    if snapshot {
                        other[a][b] || (0..n).any(|c| other[a][c] && rw[c][b])
                    } else {
                        other[a][b] || rw[a][b]
                    }
                })
                .collect()
        })
        .collect();
    // Transitive closure; a cycle is a vertex reaching itself.
    let mut reach = step;
    for c in 0..n {
        let through = reach[c].clone();
        for row in reach.iter_mut().filter(|row| row[c]) {
            for (r, &t) in row.iter_mut().zip(&through) {
                *r |= t;
            }
        }
    }
    (0..n).any(|a| reach[a][a])
}
