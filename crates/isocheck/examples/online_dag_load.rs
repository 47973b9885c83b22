//! The online checker's load on `graph::online_dag` (issue 37): 20
//! processes append transactions in the order they end, each with its
//! process-order edge, a real-time edge from the last transaction that
//! ended before it began, and 2–4 dependency edges to transactions among
//! the last 1,000, about 10% of them backward (to an older transaction
//! that committed after it); transactions older than a window are retired.
//!
//! Every edge agrees with a hidden commit order (each transaction commits
//! at a random point between its start and end), so the graph stays
//! acyclic and every edge must be accepted.
//!
//! ```sh
//! cargo build --release -p isocheck --features internals --example online_dag_load
//! /usr/bin/time -f "%e s %M KB" target/release/examples/online_dag_load 10000000 100000
//! ```
//!
//! A third argument `generate` runs the generator alone, for the time the
//! graph does not account for; `cycles` adds, every 1,000th transaction,
//! an edge from it back to the transaction 200 before it (almost always
//! an ancestor, so the edge closes a cycle), for the cost of finding and
//! reporting cycles.

use isocheck::internals::graph::online_dag::{NodeId, OnlineDag, Refused};
use isocheck_gen::rng::Rng;
use std::collections::VecDeque;
use std::time::Instant;

const PROCESSES: usize = 20;
/// How far back a dependency reaches, in transactions.
const RECENT: usize = 1000;
/// How often a dependency looks for a backward target first: with the
/// random ones that happen to be backward, about 10% of them are.
const BACKWARD: f64 = 0.15;
const PROCESS: u32 = 0;
const REALTIME: u32 = 1;
const WR: u32 = 2;
const WW: u32 = 3;
const RW: u32 = 4;
/// The edges `cycles` adds to close a cycle.
const CLOSING: u32 = 5;

/// A transaction as the generator keeps it: its sequence number and its
/// times (`commit` unique: ticks times 32 plus the process).
#[derive(Clone, Copy)]
struct Txn {
    seq: u64,
    start: u64,
    end: u64,
    commit: u64,
}

/// The simulated run: each process's transaction in flight, and the last
/// `RECENT` that ended.
struct Load {
    rng: Rng,
    running: Vec<Txn>,
    previous: Vec<Option<u64>>,
    recent: VecDeque<Txn>,
    next_seq: u64,
}

impl Load {
    fn new(seed: u64) -> Load {
        let mut load = Load {
            rng: Rng::new(seed),
            running: Vec::new(),
            previous: vec![None; PROCESSES],
            recent: VecDeque::new(),
            next_seq: 0,
        };
        for p in 0..PROCESSES {
            let txn = load.begin(p, 0);
            load.running.push(txn);
        }
        load
    }

    /// A transaction of process `p` starting after `after`: 1–1,000 ticks
    /// long, committing at a random tick within.
    fn begin(&mut self, p: usize, after: u64) -> Txn {
        let start = after + 1 + self.rng.below(50);
        let length = 1 + self.rng.below(1000);
        Txn {
            seq: 0,
            start: start * 32,
            end: (start + length) * 32,
            commit: (start + self.rng.below(length)) * 32 + p as u64,
        }
    }

    /// The next transaction to end, with its edges as (from, to, label)
    /// over sequence numbers in `edges`.
    fn next(&mut self, edges: &mut Vec<(u64, u64, u32)>) -> u64 {
        edges.clear();
        let p = (0..PROCESSES)
            .min_by_key(|&p| self.running[p].end)
            .unwrap_or(0);
        let mut txn = self.running[p];
        txn.seq = self.next_seq;
        self.next_seq += 1;
        if let Some(prev) = self.previous[p] {
            edges.push((prev, txn.seq, PROCESS));
        }
        if let Some(z) = self.recent.iter().rev().find(|z| z.end < txn.start) {
            edges.push((z.seq, txn.seq, REALTIME));
        }
        for _ in 0..2 + self.rng.below(3) {
            if let Some(edge) = self.dependency(&txn) {
                edges.push(edge);
            }
        }
        self.previous[p] = Some(txn.seq);
        self.recent.push_back(txn);
        if self.recent.len() > RECENT {
            self.recent.pop_front();
        }
        self.running[p] = self.begin(p, txn.end / 32);
        txn.seq
    }

    /// A dependency edge between `txn` and a recent transaction, directed
    /// by their commits: one time in ten to one that committed after it
    /// (an rw edge backward), when there is one.
    fn dependency(&mut self, txn: &Txn) -> Option<(u64, u64, u32)> {
        if self.recent.is_empty() {
            return None;
        }
        if self.rng.chance(BACKWARD) {
            let later: Vec<u64> = (self.recent.iter().rev().take(64))
                .filter(|y| y.commit > txn.commit)
                .map(|y| y.seq)
                .collect();
            if !later.is_empty() {
                let y = later[self.rng.below(later.len() as u64) as usize];
                return Some((txn.seq, y, RW));
            }
        }
        let i = self.rng.below(self.recent.len() as u64) as usize;
        let y = self.recent[i];
        Some(if y.commit < txn.commit {
            (y.seq, txn.seq, if self.rng.chance(0.5) { WR } else { WW })
        } else {
            (txn.seq, y.seq, RW)
        })
    }
}

#[derive(Default, Debug)]
struct Counts {
    edges: u64,
    dependencies: u64,
    backward: u64,
    cycles: u64,
    /// The edges on the refused edges' cycles, all told.
    cycle_edges: u64,
    retired: u64,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |i: usize, default: u64| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(default);
    let transactions = arg(1, 10_000_000);
    let window = arg(2, 100_000).max(RECENT as u64 + 1);
    let mode = args.get(3).map_or("", String::as_str);
    let generate_only = mode == "generate";
    let began = Instant::now();
    let counts = if generate_only {
        generate(transactions)
    } else {
        drive(transactions, window, mode == "cycles")
    };
    let secs = began.elapsed().as_secs_f64();
    println!(
        "{transactions} transactions, window {window}{}: {counts:?}; {secs:.2} s, {:.0} edges/s, {:.0} transactions/s",
        if generate_only { " (generator alone)" } else { "" },
        counts.edges as f64 / secs,
        transactions as f64 / secs,
    );
}

fn generate(transactions: u64) -> Counts {
    let mut load = Load::new(1);
    let mut edges = Vec::new();
    let mut counts = Counts::default();
    for _ in 0..transactions {
        let t = load.next(&mut edges);
        counts.edges += edges.len() as u64;
        counts.dependencies += edges.iter().filter(|e| (WR..=RW).contains(&e.2)).count() as u64;
        counts.backward += edges.iter().filter(|e| e.0 == t).count() as u64;
    }
    counts
}

fn drive(transactions: u64, window: u64, cycles: bool) -> Counts {
    let mut load = Load::new(1);
    let mut dag = OnlineDag::new();
    let mut live: VecDeque<NodeId> = VecDeque::new();
    let mut oldest = 0u64;
    let mut edges = Vec::new();
    let mut counts = Counts::default();
    for _ in 0..transactions {
        let t = load.next(&mut edges);
        live.push_back(dag.add_node());
        if cycles && t % 1000 == 999 {
            edges.push((t, t - 200, CLOSING));
        }
        for &(a, b, label) in &edges {
            let id = |seq: u64| live[(seq - oldest) as usize];
            counts.edges += 1;
            counts.dependencies += u64::from((WR..=RW).contains(&label));
            counts.backward += u64::from(a == t);
            match dag.add_edge(id(a), id(b), label) {
                Ok(()) => {}
                Err(Refused::Cycle(cycle)) => {
                    counts.cycles += 1;
                    counts.cycle_edges += cycle.len() as u64;
                }
                Err(Refused::Retired(_)) => counts.retired += 1,
            }
        }
        if live.len() as u64 > window {
            if let Some(old) = live.pop_front() {
                dag.retire(old);
                oldest += 1;
            }
        }
    }
    counts
}
