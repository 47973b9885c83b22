//! The vector clocks the saturation keeps for causal consistency and PRAM
//! ([`Clocks`]), each only while a later transaction of the sweep needs it.
//!
//! A transaction's clock is read by the transactions after it that join it
//! or look a position up in it: those reading from it and, for causal
//! consistency, its successor in session order (or a leaf forked from it).
//! Every one of them comes later in the sweep (an order of `so ∪ wr`), so
//! the sweep index of the last one tells when the clock can go. Keeping
//! one for every transaction would cost transactions × sessions words
//! (9 GB for AWDIT's 5M-event history: 1M transactions, 2,237 sessions);
//! only those read from and not yet read by all their readers are kept,
//! in rows of a slab reused through a free list.

use super::facts::{Facts, NONE};
use crate::history::TxnId;
use crate::limits;

/// Who reads a transaction's clock: its readers, and its session successor
/// too when clocks are joined along session order.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Users {
    /// Causal consistency: readers and session successors.
    ReadersAndSuccessor,
    /// PRAM (a running bound per session holds the session's past): readers.
    Readers,
}

/// Per transaction, its clock while some later transaction needs it.
pub(super) struct Clocks {
    k: usize,
    /// Per transaction, the sweep index of the last transaction reading its
    /// clock ([`NONE`]: none does).
    last_use: Vec<u32>,
    /// Per transaction, its row in `rows` ([`NONE`]: not kept).
    slot: Vec<u32>,
    rows: Vec<u32>,
    /// Rows given back, for reuse.
    free: Vec<u32>,
}

impl Clocks {
    /// Clocks of `k` entries for the transactions swept in order `swept`.
    pub fn new(f: &Facts, swept: &[TxnId], k: usize, users: Users) -> Clocks {
        let mut last_use = vec![NONE; f.session.len()];
        for (i, &t) in swept.iter().enumerate() {
            if f.session[t as usize] != NONE {
                for w in read_by(f, t, users) {
                    last_use[w as usize] = i as u32;
                }
            }
        }
        Clocks {
            k,
            last_use,
            slot: vec![NONE; f.session.len()],
            rows: Vec::new(),
            free: Vec::new(),
        }
    }

    /// How many rows the slab holds, in use or free.
    #[cfg(test)]
    pub fn rows(&self) -> usize {
        self.rows.len() / self.k
    }

    /// The clock of `t`, kept while a later transaction reads it.
    pub fn get(&self, t: TxnId) -> &[u32] {
        let row = self.slot[t as usize] as usize * self.k;
        &self.rows[row..row + self.k]
    }

    /// Keeps `clock` as `t`'s when a later transaction reads it.
    pub fn keep(&mut self, t: TxnId, clock: &[u32]) {
        if self.last_use[t as usize] == NONE {
            return;
        }
        let row = match self.free.pop() {
            Some(row) => row,
            None => {
                limits::tick();
                self.rows.extend_from_slice(clock);
                self.slot[t as usize] = (self.rows.len() / self.k - 1) as u32;
                return;
            }
        };
        let at = row as usize * self.k;
        self.rows[at..at + self.k].copy_from_slice(clock);
        self.slot[t as usize] = row;
    }

    /// Gives back the clocks whose last reader, `t` at sweep index `i`, is
    /// done with them.
    pub fn done(&mut self, f: &Facts, t: TxnId, i: u32, users: Users) {
        for w in read_by(f, t, users) {
            let slot = self.slot[w as usize];
            if self.last_use[w as usize] == i && slot != NONE {
                self.free.push(slot);
                self.slot[w as usize] = NONE;
            }
        }
    }
}

/// The transactions whose clocks `t` reads.
pub(super) fn read_by(f: &Facts, t: TxnId, users: Users) -> impl Iterator<Item = TxnId> + '_ {
    let before = match users {
        Users::ReadersAndSuccessor => f.before(t),
        Users::Readers => None,
    };
    let sources = f.reads_of_txn(t).iter().flat_map(|r| f.observed_by(r));
    before.into_iter().chain(sources.copied())
}
