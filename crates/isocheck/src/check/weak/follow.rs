//! What writes follow reads makes visible, as forward clocks.
//!
//! A transaction `c` sees `T` under writes follow reads iff a path of
//! reads-from and session-order steps runs from `T` to `c`, beginning and
//! ending with a reads-from step (`wr ; (so* ; wr)*`). That set is not
//! closed under session order at either end, so the backward bounds of the
//! other levels cannot hold it; but the transactions `T` reaches by
//! `(wr ; so*)+` are, in each session, a suffix (a step `so*` reaches every
//! later transaction). So each transaction keeps, per session, the first
//! position it reaches (its forward clock), computed in one sweep in
//! reverse order of `so ∪ wr`. Then `c` sees `T` iff `T` is a writer `c`
//! read from, or `T` reaches one of them: for that writer's session `τ`,
//! `T`'s clock at `τ` is at most its position. Only `c`'s latest source in
//! each session `τ` matters, since what reaches a transaction reaches every
//! later one of its session.
//!
//! What `c` sees through `τ` grows along `τ`, each transaction entering
//! once, at its clock. So one pass along each session `τ` keeps, per key
//! and writing session, the latest writer entered and how many, and
//! answers every read whose transaction read from `τ` at the position of
//! its latest source there: for a register read, the latest writer seen in
//! each session; for a list read, whether it shows every writer seen.
//! O(n·k + w·k + r·k·t) for `n` transactions, `k` sessions, `w` writes and
//! `r` reads, `t` the sessions a transaction read from.
//!
//! Owns the clocks and the answers ([`Seen`]).

use super::facts::{Facts, Read, NONE};
use crate::history::TxnId;

/// No position reached.
const NEVER: u32 = u32::MAX;

/// What each read sees of the writers of its key through the sessions its
/// transaction read from (the writers it read from themselves aside).
pub(super) struct Seen {
    k: usize,
    /// Per transaction and session, the first position `(wr ; so*)+`
    /// reaches.
    clocks: Vec<u32>,
    /// Registers, per read (its index in `Facts::reads`) and session: the
    /// latest writer of the key seen, as its position plus one (0: none).
    latest: Vec<u32>,
    /// Lists: per read, a writer of the key it sees and does not show.
    missed: Vec<(u32, TxnId)>,
}

impl Seen {
    /// The answers, given the transactions in an order of `so ∪ wr`.
    pub fn of(f: &Facts, swept: &[TxnId]) -> Seen {
        let k = f.sessions.len();
        let clocks = clocks(f, swept, k);
        let mut seen = Seen {
            k,
            clocks: Vec::new(),
            latest: match f.lists {
                true => Vec::new(),
                false => vec![0; f.reads.len() * k],
            },
            missed: Vec::new(),
        };
        let queries = queries(f, k);
        for (tau, asked) in queries.iter().enumerate() {
            let along = Along::new(f, &clocks, tau, k);
            along.answer(f, asked, &mut seen);
        }
        seen.missed.sort_unstable();
        seen.clocks = clocks;
        seen
    }

    /// Whether a path of reads-from and session-order steps beginning with
    /// a reads-from step runs from `a` to `b`: the commit order has `a`
    /// before `b` already.
    pub fn reaches(&self, f: &Facts, a: TxnId, b: TxnId) -> bool {
        let s = f.session[b as usize] as usize;
        self.clocks[a as usize * self.k + s] <= f.pos[b as usize]
    }

    /// The latest writer of `read`'s key `f.sessions[s]` has that the
    /// read's transaction sees, as a position plus one (0: none).
    pub fn latest(&self, read: u32, s: usize) -> u32 {
        self.latest[read as usize * self.k + s]
    }

    /// A writer of a list read's key its transaction sees and the read does
    /// not show.
    pub fn missed(&self, read: u32) -> Option<TxnId> {
        let i = self.missed.partition_point(|&(r, _)| r < read);
        self.missed
            .get(i)
            .filter(|&&(r, _)| r == read)
            .map(|&(_, w)| w)
    }
}

/// Per transaction and session, the first position `(wr ; so*)+` reaches.
fn clocks(f: &Facts, swept: &[TxnId], k: usize) -> Vec<u32> {
    let mut first = vec![NEVER; f.session.len() * k];
    // Per session, what the last of its transactions swept (in reverse)
    // and every later one reach, themselves included: the reverse sweep
    // meets a session's transactions last to first.
    let mut suffix = vec![NEVER; k * k];
    // A leaf (an indeterminate transaction its process went on after) is
    // reached by `so*` from its fork and everything before it, so it joins
    // its fork's session suffix when the sweep meets the fork: the sweep
    // meets the leaf first, and then what it reaches is known.
    let mut leaves: Vec<(TxnId, TxnId)> = (0..f.session.len() as TxnId)
        .filter_map(|t| Some((f.fork.get(t as usize).copied().filter(|&p| p != NONE)?, t)))
        .collect();
    leaves.sort_unstable();
    for &a in swept.iter().rev() {
        let s = f.session[a as usize];
        if s == NONE {
            continue;
        }
        let row = s as usize * k..(s as usize + 1) * k;
        let at = leaves.partition_point(|&(p, _)| p < a);
        let forked = leaves[at..].iter().take_while(|&&(p, _)| p == a);
        for t in std::iter::once(a).chain(forked.map(|&(_, t)| t)) {
            let own = t as usize * k..(t as usize + 1) * k;
            for (g, &c) in suffix[row.clone()].iter_mut().zip(&first[own]) {
                *g = (*g).min(c);
            }
            if t != a {
                let leaf = s as usize * k + f.session[t as usize] as usize;
                suffix[leaf] = suffix[leaf].min(f.pos[t as usize]);
            }
        }
        suffix[s as usize * k + s as usize] = f.pos[a as usize];
        for r in f.reads_of_txn(a) {
            for &w in f.observed_by(r) {
                let at = w as usize * k;
                for (c, &g) in first[at..at + k].iter_mut().zip(&suffix[row.clone()]) {
                    *c = (*c).min(g);
                }
            }
        }
    }
    first
}

/// Per session `τ`: `(position, transaction)` for each transaction whose
/// latest source in `τ` is at that position, by position.
fn queries(f: &Facts, k: usize) -> Vec<Vec<(u32, TxnId)>> {
    let mut asked: Vec<Vec<(u32, TxnId)>> = vec![Vec::new(); k];
    let mut latest = vec![NEVER; k];
    let mut touched: Vec<usize> = Vec::new();
    for c in 0..f.session.len() as TxnId {
        for r in f.reads_of_txn(c) {
            for &w in f.observed_by(r) {
                let tau = f.session[w as usize] as usize;
                let p = f.pos[w as usize];
                if latest[tau] == NEVER {
                    touched.push(tau);
                    latest[tau] = p;
                } else {
                    latest[tau] = latest[tau].max(p);
                }
            }
        }
        for tau in touched.drain(..) {
            asked[tau].push((latest[tau], c));
            latest[tau] = NEVER;
        }
    }
    for a in &mut asked {
        a.sort_unstable();
    }
    asked
}

/// One pass along session `τ`: the transactions entering what its
/// transactions are reached from, by position, and per key and writing
/// session the latest writer entered and the count.
struct Along<'a> {
    clocks: &'a [u32],
    tau: usize,
    k: usize,
    /// Per position of `τ`, the transactions whose clock at `τ` is it.
    entering: Vec<Vec<TxnId>>,
    /// Per key and session: the latest writer entered, position plus one.
    latest: Vec<u32>,
    /// Per key and session: how many writers entered.
    count: Vec<u32>,
    /// Scratch for a list read: per session, how many of the writers it
    /// shows entered; the writers it shows.
    shown: Vec<u32>,
    observed: Vec<TxnId>,
}

impl<'a> Along<'a> {
    fn new(f: &Facts, clocks: &'a [u32], tau: usize, k: usize) -> Along<'a> {
        let mut entering = vec![Vec::new(); f.sessions[tau].len()];
        for t in 0..f.session.len() {
            let p = clocks[t * k + tau];
            if p != NEVER && !f.keys_written(t as TxnId).is_empty() {
                entering[p as usize].push(t as TxnId);
            }
        }
        let cells = f.key_runs.len() * k;
        Along {
            clocks,
            tau,
            k,
            entering,
            latest: vec![0; cells],
            count: vec![0; if f.lists { cells } else { 0 }],
            shown: vec![0; k],
            observed: Vec::new(),
        }
    }

    /// Answers the transactions asking at each position, in order.
    fn answer(mut self, f: &Facts, asked: &[(u32, TxnId)], seen: &mut Seen) {
        let mut entered = 0;
        for &(p, c) in asked {
            while entered <= p as usize {
                self.enter(f, entered);
                entered += 1;
            }
            let first = f.read_start[c as usize];
            for (i, r) in f.reads_of_txn(c).iter().enumerate() {
                let read = first + i as u32;
                match f.lists {
                    true => self.list(f, r, read, p, seen),
                    false => self.register(r, read, seen),
                }
            }
        }
    }

    fn enter(&mut self, f: &Facts, p: usize) {
        for &t in &self.entering[p] {
            let (s, pos) = (f.session[t as usize] as usize, f.pos[t as usize]);
            for &key in f.keys_written(t) {
                let cell = key as usize * self.k + s;
                self.latest[cell] = self.latest[cell].max(pos + 1);
                if f.lists {
                    self.count[cell] += 1;
                }
            }
        }
    }

    fn register(&self, r: &Read, read: u32, seen: &mut Seen) {
        let cells = r.key as usize * self.k..(r.key as usize + 1) * self.k;
        let at = read as usize * self.k;
        for (l, &w) in seen.latest[at..at + self.k]
            .iter_mut()
            .zip(&self.latest[cells])
        {
            *l = (*l).max(w);
        }
    }

    /// Whether the list read shows every writer of its key entered by
    /// position `p`: per session, as many as entered are among those it
    /// shows that entered.
    fn list(&mut self, f: &Facts, r: &Read, read: u32, p: u32, seen: &mut Seen) {
        self.shown.fill(0);
        self.observed.clear();
        self.observed.extend_from_slice(f.observed_by(r));
        self.observed.sort_unstable();
        self.observed.dedup();
        for &w in &self.observed {
            if self.clocks[w as usize * self.k + self.tau] <= p {
                self.shown[f.session[w as usize] as usize] += 1;
            }
        }
        let cells = r.key as usize * self.k..(r.key as usize + 1) * self.k;
        let short = (self.count[cells].iter().zip(&self.shown)).position(|(&e, &n)| e > n);
        if let Some(s) = short {
            seen.missed.push((read, self.unshown(f, r.key, s, p)));
        }
    }

    /// A writer of `key` in session `s` entered by position `p` that the
    /// read (its writers in `observed`) does not show; the counts say
    /// there is one.
    fn unshown(&self, f: &Facts, key: u32, s: usize, p: u32) -> TxnId {
        let members = &f.sessions[s];
        f.writers_of(key)
            .filter(|&(session, _)| session as usize == s)
            .flat_map(|(_, positions)| positions.iter().map(|&q| members[q as usize]))
            .find(|&w| {
                self.clocks[w as usize * self.k + self.tau] <= p
                    && self.observed.binary_search(&w).is_err()
            })
            .expect("more writers entered than the read shows")
    }
}
