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
//! readers of the writers passed over; memory: the live clocks and one
//! word per observation.
//!
//! Owns the readers and the answers ([`Followed`]).

use super::facts::{Facts, Read, NONE};
use crate::history::TxnId;

/// Per writer, the transactions that read from it.
pub(super) struct Followed {
    /// Per transaction `T`, its readers are `readers[start[T]..start[T + 1]]`.
    start: Vec<u32>,
    readers: Vec<TxnId>,
}

impl Followed {
    pub fn of(f: &Facts) -> Followed {
        let n = f.session.len();
        let mut pairs: Vec<(TxnId, TxnId)> = Vec::new();
        for c in 0..n as TxnId {
            for r in f.reads_of_txn(c) {
                pairs.extend(f.observed_by(r).iter().map(|&w| (w, c)));
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
        let mut start = vec![0u32; n + 1];
        for &(w, _) in &pairs {
            start[w as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        Followed {
            start,
            readers: pairs.into_iter().map(|(_, c)| c).collect(),
        }
    }

    /// Whether `a` reaches by `(wr ; so*)+` a transaction whose causal clock
    /// (itself included) is `clock`: a reader of `a` is below it.
    pub fn reaches(&self, f: &Facts, a: TxnId, clock: &[u32]) -> bool {
        let range = self.start[a as usize] as usize..self.start[a as usize + 1] as usize;
        self.readers[range].iter().any(|&c| {
            let s = f.session[c as usize];
            s != NONE && f.pos[c as usize] < clock[s as usize]
        })
    }

    /// The last writer in session `s` (its writers of the key at positions
    /// `writers`) seen through `clock`.
    pub fn latest(&self, f: &Facts, s: u32, writers: &[u32], clock: &[u32]) -> Option<TxnId> {
        let below = writers.partition_point(|&p| p < clock[s as usize]);
        let members = &f.sessions[s as usize];
        (writers[..below].iter().rev())
            .map(|&p| members[p as usize])
            .find(|&w| self.reaches(f, w, clock))
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
        f.writers_of(r.key).find_map(|(s, writers)| {
            let below = writers.partition_point(|&p| p < clock[s as usize]);
            let members = &f.sessions[s as usize];
            (writers[..below].iter())
                .map(|&p| members[p as usize])
                .find(|&w| !shown(w) && self.reaches(f, w, clock))
        })
    }
}
