//! What writes follow reads makes visible, from causal clocks and each
//! writer's readers.
//!
//! A transaction `c` sees `T` under writes follow reads iff a path of
//! reads-from and session-order steps runs from `T` to `c`, beginning and
//! ending with a reads-from step (`wr ; (so* ; wr)*`): `T` is a writer `c`
//! read from, or `T` reaches one of them, `w`, by `(wr ; so*)+`. That is
//! `wr ; (so ∪ wr)*` (a path of both steps is `so* ; (wr ; so*)*`): some
//! reader of `T` is in `w`'s causal past, itself included, which `w`'s
//! vector clock over `(so ∪ wr)*` holds. So the sweep keeps causal clocks
//! (as for causal consistency, each while a later transaction reads it,
//! `clocks.rs`) and per writer its readers: `T` is seen through clock `C`
//! iff a reader of `T` is below `C` in its session. The set is not closed
//! under session order, so no clock holds it itself; but every writer seen
//! is in the causal past `C` covers, so a read looks, per session writing
//! its key, from the last writer below `C` back to the first one seen.
//! O(n·k) for the clocks, plus per read and session writing its key the
//! readers of the writers passed over (only writers someone read from are
//! passed over); memory: the live clocks and two words per writer and
//! session reading from it.
//!
//! Owns the readers and the answers ([`Followed`]).

use super::facts::{Facts, Read, NONE};
use crate::history::TxnId;
use std::ops::Range;

/// Per writer, the transactions that read from it.
pub(super) struct Followed {
    /// Per transaction `T`, its readers are `readers[start[T]..start[T + 1]]`,
    /// as `(session, position)`, the first in each session only: a reader
    /// is in a causal past iff its session's first one is.
    start: Vec<u32>,
    readers: Vec<(u32, u32)>,
    /// Per run of [`Facts::runs`] (a key and a session writing it), the
    /// positions of its writers that someone read from, a range of
    /// `read_positions`: only those can be seen, and blind writes to hot
    /// keys would otherwise be walked past read after read.
    read_runs: Vec<Range<u32>>,
    read_positions: Vec<u32>,
}

impl Followed {
    pub fn of(f: &Facts) -> Followed {
        let n = f.session.len();
        let mut pairs: Vec<(TxnId, u32, u32)> = Vec::new();
        for c in 0..n as TxnId {
            let (s, p) = (f.session[c as usize], f.pos[c as usize]);
            for r in f.reads_of_txn(c) {
                pairs.extend(f.observed_by(r).iter().map(|&w| (w, s, p)));
            }
        }
        pairs.sort_unstable();
        pairs.dedup_by(|b, a| (a.0, a.1) == (b.0, b.1));
        let mut start = vec![0u32; n + 1];
        for &(w, _, _) in &pairs {
            start[w as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut followed = Followed {
            start,
            readers: pairs.into_iter().map(|(_, s, p)| (s, p)).collect(),
            read_runs: Vec::with_capacity(f.runs.len()),
            read_positions: Vec::new(),
        };
        for (s, range) in &f.runs {
            let members = &f.sessions[*s as usize];
            let from = followed.read_positions.len() as u32;
            let positions = &f.positions[range.start as usize..range.end as usize];
            let read = positions.iter().filter(|&&p| {
                let w = members[p as usize] as usize;
                followed.start[w] < followed.start[w + 1]
            });
            followed.read_positions.extend(read);
            let to = followed.read_positions.len() as u32;
            followed.read_runs.push(from..to);
        }
        followed
    }

    /// The sessions writing `key`, each with the positions in it of the
    /// key's writers someone read from, ascending.
    pub fn read_writers_of<'f>(
        &'f self,
        f: &'f Facts,
        key: u32,
    ) -> impl Iterator<Item = (u32, &'f [u32])> + 'f {
        let runs = f.key_runs.get(key as usize).cloned().unwrap_or(0..0);
        (runs.start as usize..runs.end as usize).map(move |i| {
            let r = &self.read_runs[i];
            (
                f.runs[i].0,
                &self.read_positions[r.start as usize..r.end as usize],
            )
        })
    }

    /// Whether `a` reaches by `(wr ; so*)+` a transaction whose causal clock
    /// (itself included) is `clock`: a reader of `a` is below it.
    pub fn reaches(&self, a: TxnId, clock: &[u32]) -> bool {
        let range = self.start[a as usize] as usize..self.start[a as usize + 1] as usize;
        (self.readers[range].iter()).any(|&(s, p)| s != NONE && p < clock[s as usize])
    }

    /// The last writer in session `s` (its writers of the key read from, at
    /// positions `writers`) seen through `clock`.
    pub fn latest(&self, f: &Facts, s: u32, writers: &[u32], clock: &[u32]) -> Option<TxnId> {
        let below = writers.partition_point(|&p| p < clock[s as usize]);
        let members = &f.sessions[s as usize];
        (writers[..below].iter().rev())
            .map(|&p| members[p as usize])
            .find(|&w| self.reaches(w, clock))
    }

    /// A writer of list read `r`'s key seen through `clock` that the read
    /// does not show (`shown`): in the first session that has one, the
    /// first.
    pub fn unshown(
        &self,
        f: &Facts,
        r: &Read,
        clock: &[u32],
        shown: impl Fn(TxnId) -> bool,
    ) -> Option<TxnId> {
        self.read_writers_of(f, r.key).find_map(|(s, writers)| {
            let below = writers.partition_point(|&p| p < clock[s as usize]);
            let members = &f.sessions[s as usize];
            (writers[..below].iter())
                .map(|&p| members[p as usize])
                .find(|&w| !shown(w) && self.reaches(w, clock))
        })
    }
}
