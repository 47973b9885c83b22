//! The saturation of Biswas and Enea (2019): the commit-order edges every
//! order satisfying a level must have, found in one sweep of the
//! transactions in an order of `so ∪ wr`, and a cycle among them if there
//! is one.
//!
//! What a transaction sees is kept per session as a bound: the writers of
//! a key in a session it sees are a prefix of that session's writers, so
//! only the latest matters (the earlier ones precede it in session order).
//! For causal consistency the bounds are vector clocks over `(so ∪ wr)+`,
//! as in AWDIT (Møldrup and Pavlogiannis 2025): O(n·k) time for `n`
//! transactions and `k` sessions, plus a binary search per read and
//! session; a clock is kept only while a later transaction reads it
//! (`clocks.rs`). Monotonic writes bounds each session by the writers read
//! from; PRAM keeps a running bound per session, joined with every writer
//! read from, and each transaction's bound as its clock.
//!
//! Monotonic reads sees no session prefix (what a session read from is
//! not closed under session order), so it keeps, per session and key, the
//! writers of the key seen since the session last read it: a register read
//! orders them before its version and then stands for them all (the
//! commit order is transitive), a list read must show them all. Each
//! writer read from enters once per key it writes: O(observations · keys
//! per writer).
//!
//! Read committed sees, per read, the writers its transaction's earlier
//! reads read from. Writes follow reads keeps causal clocks too and sees
//! what `follow.rs` answers from them: the writers read from, and per
//! session writing the key the latest writer with a reader in the causal
//! past of a source (a list read: whether it shows them all); a seen
//! writer with a reader in the source's causal past is ordered already.

use super::clocks::{Clocks, Users};
use super::facts::{pair, Facts, Read, NONE};
use super::follow::Followed;
use super::{Found, Level, Step, Why};
use crate::graph::{csr, nontrivial, tarjan, topological};
use crate::history::TxnId;
use crate::infer::util::FxMap;
use crate::limits;
use std::collections::VecDeque;

/// Decides `level`: `None` when it holds.
pub(super) fn decide(f: &Facts, level: Level) -> Option<Found> {
    if let (Level::ReadCommitted, Some(&(reader, mop))) = (level, f.unread_own.first()) {
        return Some(Found::OwnWrite { reader, mop });
    }
    if level == Level::ReadCommitted && read_committed_holds(f) {
        return None;
    }
    let n = f.session.len();
    let mut edges: Vec<Step> = base_edges(f).collect();
    let seen_by = |s: &&Step| matches!(s.why, Why::Session | Why::ReadFrom { .. });
    let Some(swept) = order(n, edges.iter().filter(seen_by).copied()) else {
        return cycle(n, &edges);
    };
    let mut sweep = Sweep::new(f, level, &swept);
    for (i, &t) in swept.iter().enumerate() {
        limits::tick();
        if f.session[t as usize] == NONE {
            continue;
        }
        if let Some(found) = sweep.txn(t, i as u32, &mut edges) {
            return Some(with_path_seen(n, &edges, found, level));
        }
    }
    // Most histories hold: a topological order is cheaper than the
    // components a cycle is looked for in.
    match order(n, edges.iter().copied()) {
        Some(_) => None,
        None => cycle(n, &edges),
    }
}

/// Whether read committed holds, by a sweep in transaction order: a
/// transaction's reads are checked against its own earlier reads alone, so
/// the sweep adds the same edges in any order, and needs no topological
/// order of `so ∪ wr` first, nor those edges as [`Step`]s. When it does not
/// hold, [`decide`]'s sweep in that order finds the violation it names.
fn read_committed_holds(f: &Facts) -> bool {
    let n = f.session.len();
    let mut forced = Vec::new();
    let mut sweep = Sweep::new(f, Level::ReadCommitted, &[]);
    let mut swept = (0..n as TxnId).filter(|&t| f.session[t as usize] != NONE);
    // Read committed keeps no clocks: the sweep index is not read.
    let clean = swept.all(|t| {
        limits::tick();
        sweep.txn(t, t, &mut forced).is_none()
    });
    clean && order(n, base_edges(f).chain(forced.iter().copied())).is_some()
}

/// A topological order of the transactions under `edges`, if acyclic.
fn order(n: usize, edges: impl Iterator<Item = Step> + Clone) -> Option<Vec<u32>> {
    let (start, succ) = csr(n, edges.map(|s| (s.from, s.to)));
    topological(n, |v: u32| {
        succ[start[v as usize] as usize..start[v as usize + 1] as usize]
            .iter()
            .copied()
    })
}

/// Session order, reads-from, and the order list reads show.
fn base_edges(f: &Facts) -> impl Iterator<Item = Step> + Clone + '_ {
    let n = f.session.len() as TxnId;
    let session = (0..n).filter_map(|t| {
        let before = f.before(t)?;
        Some(Step {
            from: before,
            to: t,
            why: Why::Session,
        })
    });
    let reads = (0..n).flat_map(move |t| f.reads_of_txn(t).iter().map(move |r| (t, r)));
    session.chain(reads.flat_map(move |(t, r)| read_edges(f, t, r)))
}

/// What read `r` of transaction `t` orders: each writer it observed
/// before `t`, and a list's appenders in the order it shows them.
fn read_edges<'f>(f: &'f Facts, t: TxnId, r: &'f Read) -> impl Iterator<Item = Step> + Clone + 'f {
    let observed = f.observed_by(r);
    let read_from = observed.iter().map(move |&w| Step {
        from: w,
        to: t,
        why: Why::ReadFrom { mop: r.mop },
    });
    let list_order = observed.windows(2).map(move |pair| Step {
        from: pair[0],
        to: pair[1],
        why: Why::ListOrder { mop: r.mop },
    });
    read_from.chain(list_order)
}

/// The sweep's state: for causal consistency and PRAM, each swept
/// transaction's vector clock (per session, how many of its transactions
/// it sees, itself included), by which an edge the order already has is
/// not added again; for PRAM, each session's running bound; for
/// monotonic reads, the writers seen and not yet read over.
struct Sweep<'a> {
    f: &'a Facts,
    level: Level,
    k: usize,
    clocks: Option<(Clocks, Users)>,
    /// PRAM: per session, what its transactions so far see (a `k` row).
    running: Vec<u32>,
    /// Monotonic reads: `(session, key)` → the writers of the key the
    /// session sees that its last read of the key did not already order.
    pending: FxMap<u64, Vec<TxnId>>,
    /// What the current transaction sees, per session.
    bound: Vec<u32>,
    /// Per session, how many distinct writers the current read observed.
    counts: Vec<u32>,
    /// Per transaction, the last read (numbered by `stamp`) that observed it.
    mark: Vec<u32>,
    stamp: u32,
    /// Writes follow reads: each writer's readers.
    followed: Option<Followed>,
}

impl<'a> Sweep<'a> {
    fn new(f: &'a Facts, level: Level, swept: &[TxnId]) -> Sweep<'a> {
        let k = f.sessions.len();
        let users = match level {
            Level::Causal | Level::WritesFollowReads => Some(Users::ReadersAndSuccessor),
            Level::Pram => Some(Users::Readers),
            _ => None,
        };
        let clocks = users.map(|u| (Clocks::new(f, swept, k, u), u));
        let running = match level {
            Level::Pram => vec![0; k * k],
            _ => Vec::new(),
        };
        Sweep {
            f,
            level,
            k,
            clocks,
            running,
            pending: FxMap::default(),
            bound: vec![0; k],
            counts: vec![0; k],
            mark: vec![0; f.session.len()],
            stamp: 0,
            followed: (level == Level::WritesFollowReads).then(|| Followed::of(f)),
        }
    }

    /// Checks `t` (sweep index `i`) reads against what it sees, adding the
    /// edges they force.
    fn txn(&mut self, t: TxnId, i: u32, edges: &mut Vec<Step>) -> Option<Found> {
        if self.level == Level::MonotonicReads {
            return self.monotonic_reads(t, edges);
        }
        let f = self.f;
        let (s, pos) = (f.session[t as usize], f.pos[t as usize]);
        self.see(t);
        let found = match self.level {
            Level::WritesFollowReads => self.follows(t, edges),
            _ => self.each_read(t, edges, |sweep, r, edges| sweep.read(t, r, edges)),
        };
        if found.is_some() {
            return found;
        }
        if self.level == Level::WritesFollowReads {
            // What `t` sees is its sources' causal pasts; its own clock
            // takes its session's too.
            self.join_clocks(f.before(t));
        }
        if let Some((clocks, users)) = &mut self.clocks {
            // `t` sees itself: its clock is the bound with its own entry.
            self.bound[s as usize] = pos + 1;
            clocks.keep(t, &self.bound);
            clocks.done(f, t, i, *users);
        }
        None
    }

    /// Sets the bounds to what `t` sees, per session.
    fn see(&mut self, t: TxnId) {
        let s = self.f.session[t as usize] as usize;
        match self.level {
            // Read committed sees no session: its reads' earlier sources
            // are checked in `read`. Its bounds, like those of read
            // atomic's register reads (`Read::prior`), are never looked at:
            // clearing them would cost O(sessions) per transaction.
            Level::ReadCommitted => {}
            Level::ReadAtomic if !self.f.lists => {}
            Level::ReadAtomic => {
                self.bound.fill(0);
                self.see_session(t);
            }
            Level::Causal => {
                self.bound.fill(0);
                self.see_session(t);
                self.join_clocks(self.f.before(t));
                self.join_clocks(self.sources(t));
            }
            Level::WritesFollowReads => {
                self.bound.fill(0);
                self.join_clocks(self.sources(t));
            }
            Level::MonotonicWrites => {
                self.bound.fill(0);
                self.see_sources(t);
            }
            Level::Pram => {
                let row = s * self.k..(s + 1) * self.k;
                self.bound.copy_from_slice(&self.running[row.clone()]);
                self.see_sources(t);
                self.see_session(t);
                self.running[row].copy_from_slice(&self.bound);
            }
            Level::MonotonicReads => {
                unreachable!("monotonic reads keeps no bounds")
            }
        }
    }

    /// Raises the bounds to the transactions before `t` in session order:
    /// its session's, and a leaf's forked prefix.
    fn see_session(&mut self, t: TxnId) {
        let f = self.f;
        let s = f.session[t as usize] as usize;
        self.bound[s] = self.bound[s].max(f.pos[t as usize]);
        if let Some((s, count)) = f.forked_prefix(t) {
            self.bound[s] = self.bound[s].max(count);
        }
    }

    /// Raises the bounds to the writers `t` read from, and so to every
    /// transaction before them in session order.
    fn see_sources(&mut self, t: TxnId) {
        let f = self.f;
        for r in f.reads_of_txn(t) {
            for &w in f.observed_by(r) {
                let b = &mut self.bound[f.session[w as usize] as usize];
                *b = (*b).max(f.pos[w as usize] + 1);
                if let Some((s, count)) = f.forked_prefix(w) {
                    self.bound[s] = self.bound[s].max(count);
                }
            }
        }
    }

    /// Monotonic reads: `t` sees the writers it and its session read from.
    fn monotonic_reads(&mut self, t: TxnId, edges: &mut Vec<Step>) -> Option<Found> {
        let f = self.f;
        let s = f.session[t as usize];
        for r in f.reads_of_txn(t) {
            for &w in f.observed_by(r) {
                for &key in f.keys_written(w) {
                    self.pending.entry(pair(s, key)).or_default().push(w);
                }
            }
        }
        self.each_read(t, edges, |sweep, r, edges| sweep.pending_seen(t, r, edges))
    }

    /// Checks each of `t`'s reads with `check`, the writers it observed
    /// marked; the first violation found.
    fn each_read(
        &mut self,
        t: TxnId,
        edges: &mut Vec<Step>,
        check: impl Fn(&mut Self, &Read, &mut Vec<Step>) -> Option<Found>,
    ) -> Option<Found> {
        // A register read observes its source alone: nothing to mark.
        let lists = self.f.lists;
        for r in self.f.reads_of_txn(t) {
            if lists {
                self.count_observed(r);
            }
            let found = check(self, r, edges);
            if lists {
                self.uncount_observed(r);
            }
            if found.is_some() {
                return found;
            }
        }
        None
    }

    /// The writers of `r`'s key `t`'s session sees and has not read over
    /// since: ordered before the version read, or for a list, shown. What
    /// `r` observed then stands for them.
    fn pending_seen(&mut self, t: TxnId, r: &Read, edges: &mut Vec<Step>) -> Option<Found> {
        let f = self.f;
        let key = pair(f.session[t as usize], r.key);
        let seen = self.pending.remove(&key).unwrap_or_default();
        for &w in &seen {
            if self.observed(r, w) {
                continue;
            }
            if f.lists {
                return Some(missed(t, r, w));
            }
            if let Some(found) = self.seen_writer(t, r, w, edges) {
                return Some(found);
            }
        }
        self.pending.insert(key, f.observed_by(r).to_vec());
        None
    }

    /// The writers `t` read from.
    fn sources(&self, t: TxnId) -> impl Iterator<Item = TxnId> + 'a {
        let f = self.f;
        f.reads_of_txn(t)
            .iter()
            .flat_map(|r| f.observed_by(r))
            .copied()
    }

    /// Joins the clocks of `ws` into the bounds.
    fn join_clocks(&mut self, ws: impl IntoIterator<Item = TxnId>) {
        let Some((clocks, _)) = &self.clocks else {
            return;
        };
        for w in ws {
            for (b, &c) in self.bound.iter_mut().zip(clocks.get(w)) {
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

    /// Whether the read being checked, `r`, observed `w`: its source, or
    /// for a list read, one of the writers marked.
    fn observed(&self, r: &Read, w: TxnId) -> bool {
        match self.f.lists {
            true => self.mark[w as usize] == self.stamp,
            false => r.source == Some(w),
        }
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
        let found = match self.level {
            // Read committed sees no session, read atomic only `t`'s own
            // and a leaf's forked prefix: looking those up, rather than
            // going through every session writing the key, keeps a read's
            // cost apart from the number of sessions.
            Level::ReadCommitted => None,
            // A register read sees the last writer of its key before it in
            // its session (a checked reader is committed, never a leaf).
            Level::ReadAtomic if !f.lists => match r.prior {
                NONE => None,
                w => self.seen_writer(t, r, w, edges),
            },
            Level::ReadAtomic => {
                let own = f.session[t as usize];
                let fork = f.forked_prefix(t).map(|(s, _)| s as u32);
                // In ascending order, as `writers_of` goes.
                let mut sessions = [Some(own), fork.filter(|&s| s != own)];
                sessions.sort_unstable();
                (sessions.into_iter().flatten())
                    .find_map(|s| self.session_seen(t, r, s, f.writers_in(r.key, s), edges))
            }
            _ => (f.writers_of(r.key))
                .find_map(|(s, writers)| self.session_seen(t, r, s, writers, edges)),
        };
        if found.is_some() {
            return found;
        }
        match self.level {
            Level::ReadAtomic => self.sources_seen(t, r, f.reads_of_txn(t), edges),
            Level::ReadCommitted => {
                let reads = f.reads_of_txn(t);
                let earlier = &reads[..reads.partition_point(|x| x.mop < r.mop)];
                self.sources_seen(t, r, earlier, edges)
            }
            _ => None,
        }
    }

    /// The writers of `r`'s key in session `s` (their positions, `writers`)
    /// that `t` sees, against what `r` shows.
    fn session_seen(
        &self,
        t: TxnId,
        r: &Read,
        s: u32,
        writers: &[u32],
        edges: &mut Vec<Step>,
    ) -> Option<Found> {
        let f = self.f;
        let s = s as usize;
        let bound = self.bound[s];
        if bound == 0 {
            return None;
        }
        let seen = writers.partition_point(|&p| p < bound);
        if seen == 0 {
            return None;
        }
        let members = &f.sessions[s];
        match f.lists {
            true => (seen as u32 > self.counts[s])
                .then(|| {
                    writers[..seen]
                        .iter()
                        .map(|&p| members[p as usize])
                        .find(|&w| !self.observed(r, w))
                })
                .flatten()
                .map(|w| missed(t, r, w)),
            false if self.ordered(r, s, writers[seen - 1]) => None,
            false => self.seen_writer(t, r, members[writers[seen - 1] as usize], edges),
        }
    }

    /// Whether the writer at position `p` of session `s` is `r`'s source
    /// or known to commit before it, by the source's clock alone (which
    /// holds its session and forked prefixes): what `seen_writer` would
    /// find, without looking the writer up.
    fn ordered(&self, r: &Read, s: usize, p: u32) -> bool {
        match (r.source, &self.clocks, &self.followed) {
            (Some(source), Some((clocks, _)), None) => p < clocks.get(source)[s],
            _ => false,
        }
    }

    /// Each writer the reads `reads` of `t` read from, if it writes `r`'s
    /// key, must be in what `r` shows or commit before its source.
    fn sources_seen(
        &self,
        t: TxnId,
        r: &Read,
        reads: &[Read],
        edges: &mut Vec<Step>,
    ) -> Option<Found> {
        let f = self.f;
        let sources = reads
            .iter()
            .flat_map(|x| f.observed_by(x).iter().map(move |&w| (x, w)));
        for (x, w) in sources {
            if self.observed(r, w) || !f.source_writes(x, w, r.key) {
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

    /// Writes follow reads: `t` sees the writers it read from and those
    /// reaching them (`follow.rs`); the bounds are its sources' clocks.
    fn follows(&mut self, t: TxnId, edges: &mut Vec<Step>) -> Option<Found> {
        self.each_read(t, edges, |sweep, r, edges| sweep.follow_read(t, r, edges))
    }

    /// The writers of `r`'s key `t` sees: those it read from, and per
    /// session writing the key those reaching a writer it read from.
    fn follow_read(&self, t: TxnId, r: &Read, edges: &mut Vec<Step>) -> Option<Found> {
        let f = self.f;
        if let Some(found) = self.sources_seen(t, r, f.reads_of_txn(t), edges) {
            return Some(found);
        }
        let (Some(followed), Some((clocks, _))) = (&self.followed, &self.clocks) else {
            unreachable!("writes follow reads keeps causal clocks and readers")
        };
        if f.lists {
            return self
                .unshown(t, r, followed, clocks)
                .map(|w| missed(t, r, w));
        }
        followed.read_writers_of(f, r.key).find_map(|(s, writers)| {
            let w = followed.latest(f, s, writers, &self.bound)?;
            self.seen_writer(t, r, w, edges)
        })
    }

    /// A writer of list read `r`'s key that `t` sees and `r` does not
    /// show: for each session `t` read from, the first one seen through its
    /// last source there; the least of them.
    fn unshown(&self, t: TxnId, r: &Read, followed: &Followed, clocks: &Clocks) -> Option<TxnId> {
        let f = self.f;
        let mut last: Vec<TxnId> = Vec::new();
        for w in self.sources(t) {
            let s = f.session[w as usize];
            match last.iter_mut().find(|v| f.session[**v as usize] == s) {
                Some(v) if f.pos[*v as usize] < f.pos[w as usize] => *v = w,
                Some(_) => {}
                None => last.push(w),
            }
        }
        (last.iter())
            .filter_map(|&w| followed.unshown(f, r, clocks.get(w), |x| self.observed(r, x)))
            .min()
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
    /// for causal consistency and PRAM what `b` sees, within `(so ∪ wr)+`
    /// (`b` was swept before `t`), or for writes follow reads a path from
    /// `a` to `b` beginning with a reads-from step (a reader of `a` in
    /// `b`'s causal past).
    fn precedes(&self, a: TxnId, b: TxnId) -> bool {
        let f = self.f;
        let (sa, pa) = (f.session[a as usize], f.pos[a as usize]);
        if sa == f.session[b as usize] && pa < f.pos[b as usize] {
            return true;
        }
        if f.forked_prefix(b)
            .is_some_and(|(s, count)| s == sa as usize && pa < count)
        {
            return true;
        }
        if let (Some(followed), Some((clocks, _))) = (&self.followed, &self.clocks) {
            return followed.reaches(a, clocks.get(b));
        }
        (self.clocks.as_ref()).is_some_and(|(clocks, _)| pa < clocks.get(b)[sa as usize])
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
/// steps by which its reader sees it under `level`.
fn with_path_seen(n: usize, edges: &[Step], found: Found, level: Level) -> Found {
    let Found::Missed {
        reader,
        mop,
        writer,
        ..
    } = found
    else {
        return found;
    };
    Found::Missed {
        reader,
        mop,
        writer,
        seen: seen_path(n, edges, writer, reader, level).unwrap_or_default(),
    }
}

/// Where a path of session-order and reads-from steps stands: at its
/// start, after session-order steps only, or after a reads-from step.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    Start,
    Session,
    Read,
}

/// The phase after a step (session order or reads-from) on a path along
/// which `level` makes the start visible to the end; `None` when the level
/// allows no such path.
fn next_phase(level: Level, phase: Phase, session: bool) -> Option<Phase> {
    use Level::*;
    if level == WritesFollowReads {
        // Reads-from first and last, session order between.
        return match (phase, session) {
            (Phase::Start, true) => None,
            (_, true) => Some(Phase::Session),
            (_, false) => Some(Phase::Read),
        };
    }
    let lead = matches!(level, MonotonicWrites | Pram | Causal);
    let trail = matches!(level, MonotonicReads | Pram | Causal);
    match (phase, session) {
        (Phase::Start | Phase::Session, true) => {
            (lead || level == ReadAtomic).then_some(Phase::Session)
        }
        (Phase::Start, false) => Some(Phase::Read),
        (Phase::Session, false) => lead.then_some(Phase::Read),
        (Phase::Read, true) => trail.then_some(Phase::Read),
        (Phase::Read, false) => (level == Causal).then_some(Phase::Read),
    }
}

/// Whether a path in `phase` makes its start visible to its end.
fn ends(level: Level, phase: Phase) -> bool {
    use Level::*;
    phase == Phase::Read
        || (phase == Phase::Session
            && !matches!(level, MonotonicWrites | MonotonicReads | WritesFollowReads))
}

/// A shortest path of session-order and reads-from steps from `from` to
/// `to` along which `level` makes `from` visible to `to`.
fn seen_path(n: usize, edges: &[Step], from: TxnId, to: TxnId, level: Level) -> Option<Vec<Step>> {
    let kept = edges
        .iter()
        .enumerate()
        .filter(|(_, s)| matches!(s.why, Why::Session | Why::ReadFrom { .. }));
    let (start, succ) = csr(n, kept.map(|(i, s)| (s.from, i as u32)));
    let state = |v: TxnId, p: Phase| v as usize * 3 + p as usize;
    // Per state, the edge into it and the phase it came from.
    let mut parent = vec![(u32::MAX, Phase::Start); 3 * n];
    let mut queue = VecDeque::from([(from, Phase::Start)]);
    while let Some((v, p)) = queue.pop_front() {
        for &e in &succ[start[v as usize] as usize..start[v as usize + 1] as usize] {
            let s = edges[e as usize];
            let Some(q) = next_phase(level, p, s.why == Why::Session) else {
                continue;
            };
            if s.to == to && ends(level, q) {
                return Some(phase_path(edges, &parent, e, (v, p), from));
            }
            if parent[state(s.to, q)].0 == u32::MAX {
                parent[state(s.to, q)] = (e, p);
                queue.push_back((s.to, q));
            }
        }
    }
    None
}

/// The steps from `first` to the edge `last`, which leaves state `at`.
fn phase_path(
    edges: &[Step],
    parent: &[(u32, Phase)],
    last: u32,
    mut at: (TxnId, Phase),
    first: TxnId,
) -> Vec<Step> {
    let mut steps = vec![edges[last as usize]];
    while at != (first, Phase::Start) {
        let (e, p) = parent[at.0 as usize * 3 + at.1 as usize];
        steps.push(edges[e as usize]);
        at = (edges[e as usize].from, p);
    }
    steps.reverse();
    steps
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
