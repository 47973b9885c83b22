//! The axiomatic models of Cerone, Bernardi and Gotsman (CONCUR 2015) and
//! Biswas and Enea (OOPSLA 2019) over the committed set: some total commit
//! order `co` containing session order and read-from (`so ∪ wr ⊆ co`) and
//! a visibility `vis ⊆ co` satisfying the model's axioms such that every
//! external read returns what the transactions it sees wrote (EXT): a
//! register the `co`-latest write among them (none: `nil`), a list all
//! their appends in `co` order. A transaction's effect is its final write
//! of each key, so a read of an overwritten write fails EXT. Read-from
//! (`wr`) is the witness's choice of writers, and the `co`-latest visible
//! writer must be the chosen one (Biswas and Enea's EXT; for Cerone et
//! al.'s value-based EXT, choosing the writer a witness's read sees is
//! the same).
//!
//! The least visibility satisfying the axioms is enough (a larger one only
//! shows more writers to each read). Every axiom derives edges into a
//! transaction from edges among the transactions before it in `co`, so the
//! commit order is built by a depth-first search one transaction at a
//! time, its visibility computed and its reads checked when it is placed.
//!
//! - read committed (`read-committed-be`, Biswas and Enea): visibility per
//!   read, the transactions an earlier read of the same transaction read
//!   from (`wr ; po`), besides the read's own writers;
//! - read atomic (`read-atomic`; `read-your-writes` is the same axiom
//!   here, `so ⊆ vis` with whole transactions visible): `so ∪ wr ⊆ vis`;
//! - monotonic reads: `wr ⊆ vis`, `vis ; so ⊆ vis`;
//! - monotonic writes: `wr ⊆ vis`, `so ; vis ⊆ vis`;
//! - PRAM: `so ∪ wr ⊆ vis` and both rules above;
//! - writes follow reads: `wr ⊆ vis`, `wr ; so* ; vis ⊆ vis`;
//! - causal (`causal-cerone`, `causal`): `so ∪ wr ⊆ vis`, transitive;
//! - prefix: causal and `co ; vis ⊆ vis`;
//! - parallel snapshot isolation: causal and NOCONFLICT (of two writers
//!   of a key, the `co`-earlier is visible to the later);
//! - snapshot isolation (Cerone et al.'s, which includes sessions: Elle's
//!   strong-session-snapshot-isolation): prefix and NOCONFLICT.

use super::reads::{ExtRead, Facts};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    ReadCommitted,
    ReadAtomic,
    MonotonicReads,
    MonotonicWrites,
    Pram,
    WritesFollowReads,
    Causal,
    Prefix,
    ParallelSnapshotIsolation,
    SnapshotIsolation,
}

impl Level {
    /// Decided by the checker through a graph characterisation and the
    /// solver, not by its axiomatic check.
    pub fn by_graph(self) -> bool {
        matches!(
            self,
            Level::Prefix | Level::ParallelSnapshotIsolation | Level::SnapshotIsolation
        )
    }

    fn session(self) -> bool {
        !matches!(
            self,
            Level::ReadCommitted
                | Level::MonotonicReads
                | Level::MonotonicWrites
                | Level::WritesFollowReads
        )
    }

    fn transitive(self) -> bool {
        matches!(
            self,
            Level::Causal
                | Level::Prefix
                | Level::ParallelSnapshotIsolation
                | Level::SnapshotIsolation
        )
    }

    fn prefix(self) -> bool {
        matches!(self, Level::Prefix | Level::SnapshotIsolation)
    }

    fn noconflict(self) -> bool {
        matches!(
            self,
            Level::ParallelSnapshotIsolation | Level::SnapshotIsolation
        )
    }
}

type Rel = Vec<Vec<bool>>;

struct Search<'f, 'h> {
    f: &'f Facts<'h>,
    level: Level,
    members: Vec<usize>,
    so: Rel,
    wr: Rel,
    vis: Rel,
    pos: Vec<Option<usize>>,
    placed: Vec<usize>,
}

/// Whether some commit order and visibility witness `level`.
pub fn holds(f: &Facts, level: Level) -> bool {
    let n = f.committed.len();
    let members = f.members();
    let rel = |r: &dyn Fn(usize, usize) -> bool| -> Rel {
        (0..n)
            .map(|a| {
                (0..n)
                    .map(|b| f.committed[a] && f.committed[b] && r(a, b))
                    .collect()
            })
            .collect()
    };
    let so = rel(&|a, b| f.h.session(a, b));
    let wr = rel(&|a, b| a != b && f.reads_from(a, b));
    let mut s = Search {
        f,
        level,
        members,
        so,
        wr,
        vis: vec![vec![false; n]; n],
        pos: vec![None; n],
        placed: Vec::new(),
    };
    s.extend()
}

impl Search<'_, '_> {
    fn extend(&mut self) -> bool {
        if self.placed.len() == self.members.len() {
            return true;
        }
        for i in 0..self.members.len() {
            let t = self.members[i];
            let waiting = self
                .members
                .iter()
                .any(|&a| self.pos[a].is_none() && (self.so[a][t] || self.wr[a][t]));
            if self.pos[t].is_some() || waiting {
                continue;
            }
            self.pos[t] = Some(self.placed.len());
            self.placed.push(t);
            self.see(t);
            if self.reads_agree(t) && self.extend() {
                return true;
            }
            self.placed.pop();
            self.pos[t] = None;
        }
        false
    }

    /// Computes the least visibility into `t`, just placed, from the
    /// transactions before it.
    fn see(&mut self, t: usize) {
        let l = self.level;
        let before: Vec<usize> = self.placed[..self.placed.len() - 1].to_vec();
        for &a in &before {
            self.vis[a][t] = self.wr[a][t]
                || (l.session() && self.so[a][t])
                || (l.noconflict() && self.f.conflict(a, t));
        }
        loop {
            let mut changed = false;
            for &a in &before {
                if self.vis[a][t] {
                    continue;
                }
                let through = |c: usize| self.derives(a, c, t);
                if before.iter().any(|&c| through(c)) {
                    self.vis[a][t] = true;
                    changed = true;
                }
            }
            if !changed {
                return;
            }
        }
    }

    /// Whether `a` is visible to `t` through `c` (both before `t`) by one
    /// of the level's rules.
    fn derives(&self, a: usize, c: usize, t: usize) -> bool {
        let (vis, so, wr) = (&self.vis, &self.so, &self.wr);
        let l = self.level;
        let reads = matches!(l, Level::MonotonicReads | Level::Pram);
        let writes = matches!(l, Level::MonotonicWrites | Level::Pram);
        let before = |x: usize, y: usize| self.pos[x] < self.pos[y];
        (l.transitive() && vis[a][c] && vis[c][t])
            || (l.prefix() && before(a, c) && vis[c][t])
            || (reads && vis[a][c] && so[c][t])
            || (writes && so[a][c] && vis[c][t])
            || (l == Level::WritesFollowReads
                && wr[a][c]
                && self
                    .placed
                    .iter()
                    .any(|&d| d != t && (d == c || so[c][d]) && vis[d][t]))
    }

    /// EXT for `t`'s external reads.
    fn reads_agree(&self, t: usize) -> bool {
        self.f.reads[t].iter().all(|r| {
            let sees = |w: usize| {
                if self.level == Level::ReadCommitted {
                    self.read_committed_sees(t, r, w)
                } else {
                    self.vis[w][t]
                }
            };
            let mut seen: Vec<usize> = self.placed[..self.placed.len() - 1]
                .iter()
                .copied()
                .filter(|&w| sees(w) && self.f.writes_key(w, r.key))
                .collect();
            seen.sort_by_key(|&w| self.pos[w]);
            // A register's read must come from the co-latest visible
            // writer, its final write, and that writer is the one chosen
            // (with a value written twice, another writer of it visible
            // later in co is not the one read); a list's shows them all in
            // co order.
            let latest = r.from.last().is_none_or(|w| seen.last() == Some(w));
            latest && self.f.state(&seen, r.key) == r.seen
        })
    }

    /// Biswas and Enea's read committed: read `r` of `t` sees its own
    /// writers and those of `t`'s earlier reads.
    fn read_committed_sees(&self, t: usize, r: &ExtRead, w: usize) -> bool {
        self.f.reads[t]
            .iter()
            .any(|e| e.op <= r.op && e.from.contains(&w))
    }
}
