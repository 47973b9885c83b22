//! What writes follow reads makes visible, as forward clocks.
//!
//! A transaction `c` sees `T` under writes follow reads iff a path of
//! reads-from and session-order steps runs from `T` to `c`, beginning and
//! ending with a reads-from step (`wr ; (so* ; wr)*`). That set is not
//! closed under session order at either end, so the backward bounds of the
//! other levels cannot hold it; but the transactions `T` reaches by
//! `(wr ; so*)+` are, in each session, a suffix (a step `so*` reaches every
//! later transaction). So each transaction keeps, per session, the first
//! position it reaches ([`Reach::first`]), computed in one sweep in reverse
//! order of `so ∪ wr` (O(n·k) for `n` transactions and `k` sessions). Then
//! `c` sees `T` iff `T` is a writer `c` read from, or `T` reaches one of
//! them: for that writer's session `τ`, `first(T)[τ]` is at most its
//! position. Only `c`'s latest source in each session matters, since what
//! reaches a transaction reaches every later one of its session.
//!
//! Owns the clocks and, per session writing a key and per session `τ`, the
//! key's writers sorted by their `τ` clock, so that those `c` sees through
//! `τ` are a prefix (found by binary search), built when a read first asks.

use super::facts::{pair, Facts, NONE};
use crate::history::TxnId;
use crate::infer::util::FxMap;

/// No position reached.
const NEVER: u32 = u32::MAX;

/// One writer of a session's run of a key, for one session `τ`.
#[derive(Clone, Copy)]
pub(super) struct Entry {
    /// The first position in `τ` the writer reaches.
    pub first: u32,
    /// The writer's position in its own session.
    pub pos: u32,
    /// The greatest `pos` of this entry and those before it.
    pub latest: u32,
}

pub(super) struct Reach {
    k: usize,
    /// Per transaction and session, the first position reached by
    /// `(wr ; so*)+`, [`NEVER`] when none.
    first: Vec<u32>,
    /// `(run, τ)` → the run's writers that reach `τ`, by `first` ascending.
    sorted: FxMap<u64, Vec<Entry>>,
}

impl Reach {
    /// The clocks, given the transactions in an order of `so ∪ wr`.
    pub fn of(f: &Facts, swept: &[TxnId]) -> Reach {
        let k = f.sessions.len();
        let mut first = vec![NEVER; f.session.len() * k];
        // Per session, what the last transaction of it swept (in reverse)
        // and every later one reach, themselves included: the sweep meets
        // a session's transactions last to first.
        let mut suffix = vec![NEVER; k * k];
        for &a in swept.iter().rev() {
            let s = f.session[a as usize];
            if s == NONE {
                continue;
            }
            let row = s as usize * k..(s as usize + 1) * k;
            let own = a as usize * k..(a as usize + 1) * k;
            for (g, &c) in suffix[row.clone()].iter_mut().zip(&first[own]) {
                *g = (*g).min(c);
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
        Reach {
            k,
            first,
            sorted: FxMap::default(),
        }
    }

    /// The writers of `f.runs[run]` that reach session `tau`, by the first
    /// position they reach there.
    pub fn writers(&mut self, f: &Facts, run: u32, tau: u32) -> &[Entry] {
        let (first, k) = (&self.first, self.k);
        self.sorted.entry(pair(run, tau)).or_insert_with(|| {
            let (s, range) = &f.runs[run as usize];
            let members = &f.sessions[*s as usize];
            let positions = &f.positions[range.start as usize..range.end as usize];
            let mut entries: Vec<Entry> = positions
                .iter()
                .map(|&pos| Entry {
                    first: first[members[pos as usize] as usize * k + tau as usize],
                    pos,
                    latest: pos,
                })
                .filter(|e| e.first != NEVER)
                .collect();
            entries.sort_unstable_by_key(|e| e.first);
            let mut latest = 0;
            for e in &mut entries {
                latest = latest.max(e.pos);
                e.latest = latest;
            }
            entries
        })
    }
}

/// The entries reaching a position before `bound` (a position plus one).
pub(super) fn seen(entries: &[Entry], bound: u32) -> &[Entry] {
    &entries[..entries.partition_point(|e| e.first < bound)]
}
