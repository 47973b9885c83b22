//! The saturation of Biswas and Enea (2019): the commit-order edges every
//! order satisfying a level must have, found in one sweep of the
//! transactions in an order of `so ∪ wr`, and a cycle among them if there
//! is one.
//!
//! What a transaction sees is kept per session as a bound: the writers of
//! a key in a session it sees are a prefix of that session's writers, so
//! only the latest matters (the earlier ones precede it in session order).
//! For causal consistency the bounds are vector clocks over `(so ∪ wr)+`,
//! as in AWDIT (Møldrup and Pavlogiannis 2025): O(n·k) for `n` transactions
//! and `k` sessions, plus a binary search per read and session.

use super::facts::{Facts, Read, NONE};
use super::{Found, Level, Step, Why};
use crate::graph::{csr, nontrivial, tarjan, topological};
use crate::history::TxnId;
use crate::limits;
use std::collections::VecDeque;

/// Decides `level`: `None` when it holds.
pub(super) fn decide(f: &Facts, level: Level) -> Option<Found> {
    let n = f.session.len();
    let mut edges = base_edges(f);
    let seen_by = |s: &&Step| matches!(s.why, Why::Session | Why::ReadFrom { .. });
    let Some(swept) = order(n, edges.iter().filter(seen_by)) else {
        return cycle(n, &edges);
    };
    let mut sweep = Sweep::new(f, level);
    for t in swept {
        limits::tick();
        if f.session[t as usize] == NONE {
            continue;
        }
        if let Some(found) = sweep.txn(t, &mut edges) {
            return Some(with_path_seen(n, &edges, found));
        }
    }
    // Most histories hold: a topological order is cheaper than the
    // components a cycle is looked for in.
    match order(n, edges.iter()) {
        Some(_) => None,
        None => cycle(n, &edges),
    }
}

/// A topological order of the transactions under `edges`, if acyclic.
fn order<'e>(n: usize, edges: impl Iterator<Item = &'e Step> + Clone) -> Option<Vec<u32>> {
    let (start, succ) = csr(n, edges.map(|s| (s.from, s.to)));
    topological(n, |v: u32| {
        succ[start[v as usize] as usize..start[v as usize + 1] as usize]
            .iter()
            .copied()
    })
}

/// Session order, reads-from, and the order list reads show.
fn base_edges(f: &Facts) -> Vec<Step> {
    let mut edges = Vec::new();
    for members in &f.sessions {
        for w in members.windows(2) {
            edges.push(Step {
                from: w[0],
                to: w[1],
                why: Why::Session,
            });
        }
    }
    for t in 0..f.session.len() as TxnId {
        for r in f.reads_of_txn(t) {
            let observed = f.observed_by(r);
            for &w in observed {
                let why = Why::ReadFrom { mop: r.mop };
                edges.push(Step {
                    from: w,
                    to: t,
                    why,
                });
            }
            for pair in observed.windows(2) {
                let why = Why::ListOrder { mop: r.mop };
                edges.push(Step {
                    from: pair[0],
                    to: pair[1],
                    why,
                });
            }
        }
    }
    edges
}

/// The sweep's state: for causal consistency, each swept transaction's
/// vector clock (per session, how many of its transactions it sees,
/// itself included).
struct Sweep<'a> {
    f: &'a Facts,
    level: Level,
    k: usize,
    clocks: Vec<u32>,
    /// What the current transaction sees, per session.
    bound: Vec<u32>,
    /// Per session, how many distinct writers the current read observed.
    counts: Vec<u32>,
    /// Per transaction, the last read (numbered by `stamp`) that observed it.
    mark: Vec<u32>,
    stamp: u32,
}

impl<'a> Sweep<'a> {
    fn new(f: &'a Facts, level: Level) -> Sweep<'a> {
        let k = f.sessions.len();
        let clocks = match level {
            Level::Causal => vec![0; f.session.len() * k],
            Level::ReadAtomic => Vec::new(),
        };
        Sweep {
            f,
            level,
            k,
            clocks,
            bound: vec![0; k],
            counts: vec![0; k],
            mark: vec![0; f.session.len()],
            stamp: 0,
        }
    }

    fn clock(&self, t: TxnId) -> &[u32] {
        &self.clocks[t as usize * self.k..(t as usize + 1) * self.k]
    }

    /// Checks `t`'s reads against what it sees, adding the edges they force.
    fn txn(&mut self, t: TxnId, edges: &mut Vec<Step>) -> Option<Found> {
        let f = self.f;
        let (s, pos) = (f.session[t as usize], f.pos[t as usize]);
        self.bound.fill(0);
        self.bound[s as usize] = pos;
        if self.level == Level::Causal {
            self.see_clocks(t);
        }
        for r in f.reads_of_txn(t) {
            self.count_observed(r);
            let found = self.read(t, r, edges);
            self.uncount_observed(r);
            if found.is_some() {
                return found;
            }
        }
        if self.level == Level::Causal {
            let row = t as usize * self.k;
            self.clocks[row..row + self.k].copy_from_slice(&self.bound);
            self.clocks[row + s as usize] = pos + 1;
        }
        None
    }

    /// Joins the clocks of `t`'s session predecessor and of every writer it
    /// read from into the bounds.
    fn see_clocks(&mut self, t: TxnId) {
        let f = self.f;
        let (s, pos) = (f.session[t as usize], f.pos[t as usize]);
        let before = (pos > 0).then(|| f.sessions[s as usize][pos as usize - 1]);
        let sources = f.reads_of_txn(t).iter().flat_map(|r| f.observed_by(r));
        for w in before.into_iter().chain(sources.copied()) {
            let row = w as usize * self.k;
            for (b, &c) in self.bound.iter_mut().zip(&self.clocks[row..row + self.k]) {
                *b = (*b).max(c);
            }
        }
    }

    /// Marks the writers `r` observed and counts them per session.
    fn count_observed(&mut self, r: &Read) {
        let f = self.f;
        self.stamp += 1;
        for &w in f.observed_by(r) {
            if self.mark[w as usize] != self.stamp {
                self.mark[w as usize] = self.stamp;
                self.counts[f.session[w as usize] as usize] += 1;
            }
        }
    }

    /// Whether the read being checked observed `w`.
    fn observed(&self, w: TxnId) -> bool {
        self.mark[w as usize] == self.stamp
    }

    fn uncount_observed(&mut self, r: &Read) {
        for &w in self.f.observed_by(r) {
            self.counts[self.f.session[w as usize] as usize] = 0;
        }
    }

    /// The writers of the key `t` sees, session by session, against what
    /// its read `r` shows; then, for read atomic, the writers `t` read from.
    fn read(&self, t: TxnId, r: &Read, edges: &mut Vec<Step>) -> Option<Found> {
        let f = self.f;
        for (s, writers) in f.writers_of(r.key) {
            let s = s as usize;
            let bound = self.bound[s];
            if bound == 0 {
                continue;
            }
            let seen = writers.partition_point(|&p| p < bound);
            if seen == 0 {
                continue;
            }
            let members = &f.sessions[s];
            let found = if f.lists {
                (seen as u32 > self.counts[s])
                    .then(|| {
                        writers[..seen]
                            .iter()
                            .map(|&p| members[p as usize])
                            .find(|&w| !self.observed(w))
                    })
                    .flatten()
                    .map(|w| missed(t, r, w))
            } else {
                self.seen_writer(t, r, members[writers[seen - 1] as usize], edges)
            };
            if found.is_some() {
                return found;
            }
        }
        if self.level == Level::ReadAtomic {
            return self.sources_seen(t, r, edges);
        }
        None
    }

    /// Read atomic: each writer `t` read from, if it writes `r`'s key, must
    /// be in what `r` shows or commit before its source.
    fn sources_seen(&self, t: TxnId, r: &Read, edges: &mut Vec<Step>) -> Option<Found> {
        let f = self.f;
        let sources = f.reads_of_txn(t).iter().flat_map(|x| f.observed_by(x));
        for &w in sources {
            if !f.writes(w, r.key) || self.observed(w) {
                continue;
            }
            if f.lists {
                return Some(missed(t, r, w));
            }
            if let Some(found) = self.seen_writer(t, r, w, edges) {
                return Some(found);
            }
        }
        None
    }

    /// A register read that sees writer `w` of its key: `w` is the source,
    /// or commits before it; reading the initial version, it is missed.
    fn seen_writer(&self, t: TxnId, r: &Read, w: TxnId, edges: &mut Vec<Step>) -> Option<Found> {
        let Some(source) = r.source else {
            return Some(missed(t, r, w));
        };
        if w != source && !self.precedes(w, source) {
            let why = Why::Sees {
                reader: t,
                mop: r.mop,
            };
            edges.push(Step {
                from: w,
                to: source,
                why,
            });
        }
        None
    }

    /// Whether the edges already order `a` before `b`: session order, or
    /// for causal consistency `(so ∪ wr)+` (`b` was swept before `t`).
    fn precedes(&self, a: TxnId, b: TxnId) -> bool {
        let f = self.f;
        let (sa, pa) = (f.session[a as usize], f.pos[a as usize]);
        if sa == f.session[b as usize] && pa < f.pos[b as usize] {
            return true;
        }
        self.level == Level::Causal && pa < self.clock(b)[sa as usize]
    }
}

fn missed(reader: TxnId, r: &Read, writer: TxnId) -> Found {
    Found::Missed {
        reader,
        mop: r.mop,
        writer,
        seen: Vec::new(),
    }
}

/// A missed write with the shortest chain of session-order and reads-from
/// steps by which its reader sees it.
fn with_path_seen(n: usize, edges: &[Step], found: Found) -> Found {
    let Found::Missed {
        reader,
        mop,
        writer,
        ..
    } = found
    else {
        return found;
    };
    let seen_by = |s: &Step| matches!(s.why, Why::Session | Why::ReadFrom { .. });
    Found::Missed {
        reader,
        mop,
        writer,
        seen: shortest(n, edges, writer, reader, seen_by).unwrap_or_default(),
    }
}

/// A shortest cycle through one vertex of a strongly connected component,
/// if the edges have one.
fn cycle(n: usize, edges: &[Step]) -> Option<Found> {
    let (start, succ) = csr(n, edges.iter().map(|s| (s.from, s.to)));
    let (comp, count) = tarjan(n, |v, next| {
        next.extend(&succ[start[v as usize] as usize..start[v as usize + 1] as usize])
    });
    let first = *nontrivial(&comp, count).first()?.first()?;
    let c = comp[first as usize];
    let inside = |s: &Step| comp[s.from as usize] == c && comp[s.to as usize] == c;
    shortest(n, edges, first, first, inside).map(Found::Cycle)
}

/// A shortest path from `from` to `to` (a cycle when they are the same)
/// along the edges `keep` accepts.
fn shortest(
    n: usize,
    edges: &[Step],
    from: TxnId,
    to: TxnId,
    keep: impl Fn(&Step) -> bool,
) -> Option<Vec<Step>> {
    let kept = edges.iter().enumerate().filter(|(_, s)| keep(s));
    let (start, succ) = csr(n, kept.map(|(i, s)| (s.from, i as u32)));
    let mut parent = vec![u32::MAX; n];
    let mut queue = VecDeque::from([from]);
    while let Some(v) = queue.pop_front() {
        for &e in &succ[start[v as usize] as usize..start[v as usize + 1] as usize] {
            let next = edges[e as usize].to;
            if next == to {
                return Some(path(edges, &parent, e, from));
            }
            if next != from && parent[next as usize] == u32::MAX {
                parent[next as usize] = e;
                queue.push_back(next);
            }
        }
    }
    None
}

/// The steps from `first` to the edge `last` that ends the path.
fn path(edges: &[Step], parent: &[u32], last: u32, first: TxnId) -> Vec<Step> {
    let mut steps = vec![edges[last as usize]];
    let mut v = edges[last as usize].from;
    while v != first {
        let e = edges[parent[v as usize] as usize];
        steps.push(e);
        v = e.from;
    }
    steps.reverse();
    steps
}
