//! What the axiomatic checks read from a history ([`Facts`]): the
//! transactions that committed or were seen to, their sessions, and each
//! read of other transactions' writes with the transactions it observed.
//!
//! A read the definitions do not cover is left out: one of the reader's own
//! writes (Cerone et al.'s INT, Elle's `internal`), of an aborted or
//! intermediate write, or of a value nobody wrote (G1a, G1b and garbage
//! reads, which inference finds and every one of these models prohibits).
//! A read after the reader's own write that does not show it is kept aside
//! ([`Facts::unread_own`]): Elle's `internal` also rejects a read that
//! disagrees with an earlier read, which read committed allows, so that
//! level checks its own writes itself.

use crate::history::{History, MopKind, MopValue, Status, TxnId, Val, Workload};
use crate::infer::util::{pack, FxMap, KeyIds};
use std::ops::Range;

/// The session of a transaction the check leaves out.
pub(super) const NONE: u32 = u32::MAX;

/// One read of another transaction's writes.
#[derive(Clone, Debug)]
pub(super) struct Read {
    /// The micro-op, an index into `History::mops`.
    pub mop: u32,
    /// The key, by dense id.
    pub key: u32,
    /// The transaction whose version was read; `None` for the initial one.
    pub source: Option<TxnId>,
    /// The writers observed, an index range into [`Facts::observed`]: the
    /// source for a register, every appender in list order for a list.
    pub observed: Range<u32>,
    /// The last writer of the key before the reader in the reader's
    /// session, [`NONE`] if none: what read atomic sees of that session,
    /// found once here rather than searched for per read.
    pub prior: TxnId,
    /// A register read whose source writes no other key: whether the
    /// source writes a key is then known without looking it up, a cache
    /// miss per source at a million transactions.
    pub alone: bool,
}

/// The history as the axioms see it.
#[derive(Default)]
pub(super) struct Facts {
    /// Per transaction: its session, [`NONE`] when left out.
    pub session: Vec<u32>,
    /// Per transaction: its position in its session.
    pub pos: Vec<u32>,
    /// Per transaction: [`NONE`], or for an indeterminate one its process
    /// went on after (a leaf, alone in its session) the committed
    /// transaction of its process just before it, whose session prefix it
    /// follows ([`Facts::before`]).
    pub fork: Vec<TxnId>,
    pub sessions: Vec<Vec<TxnId>>,
    /// Per transaction `t`, its reads are `reads[read_start[t]..read_start[t + 1]]`.
    pub read_start: Vec<u32>,
    pub reads: Vec<Read>,
    pub observed: Vec<TxnId>,
    /// List-append: a read lists every visible append.
    pub lists: bool,
    /// Per key, its writers' sessions: a range of `runs`.
    pub key_runs: Vec<Range<u32>>,
    /// A session writing a key and the positions in it of the key's
    /// writers, ascending: a range of `positions`.
    pub runs: Vec<(u32, Range<u32>)>,
    pub positions: Vec<u32>,
    /// Per transaction `t`, the keys it writes are
    /// `written[written_start[t]..written_start[t + 1]]`, ascending.
    pub written_start: Vec<u32>,
    pub written: Vec<u32>,
    /// `(transaction, micro-op)`: the first read of each committed
    /// transaction, after its own write of the key, that does not show
    /// that write (the last one of a register; its appends, last, for a
    /// list).
    pub unread_own: Vec<(TxnId, u32)>,
}

/// Two ids as one map key.
pub(super) fn pair(a: u32, b: u32) -> u64 {
    (a as u64) << 32 | b as u64
}

impl Facts {
    /// The facts of `h`; `sources` are inference's
    /// ([`crate::infer::Inference::read_sources`]), or empty to find every
    /// write here. With `runs_wanted`, the writers per key and session and
    /// each read's [`Read::prior`] too, which read committed never asks.
    pub fn of(h: &History, sources: &[TxnId], runs_wanted: bool) -> Facts {
        let lists = h.workload == Workload::ListAppend;
        let status: Vec<Status> = h.txns.iter().map(|t| t.status).collect();
        let written = Writers::of(h, sources, lists);
        let key_counts = key_counts(h);
        let mut keys = KeyIds::default();
        let mut f = Facts {
            lists,
            ..Facts::default()
        };
        let mut seen_info = vec![false; h.txns.len()];
        let mut own = OwnWrites::default();
        f.read_start.push(0);
        for (t, txn) in h.txns.iter().enumerate() {
            if txn.status == Status::Committed {
                let (written, status) = (&written, &status[..]);
                let key_counts = &key_counts[..];
                let seen = Seen {
                    written,
                    status,
                    key_counts,
                };
                f.reads_of(h, t as TxnId, &seen, &mut keys, &mut seen_info, &mut own);
            }
            f.read_start.push(f.reads.len() as u32);
        }
        f.sessions_of(h, &seen_info);
        f.writes_of(h, &mut keys, runs_wanted);
        if runs_wanted {
            f.priors_of(keys.len());
        }
        f
    }

    /// The transaction just before `t` in session order, if any: its
    /// predecessor in its session, or for a leaf the one it forked from.
    pub fn before(&self, t: TxnId) -> Option<TxnId> {
        let (s, pos) = (self.session[t as usize], self.pos[t as usize]);
        match pos {
            0 => Some(self.fork[t as usize]).filter(|&p| p != NONE),
            p => Some(self.sessions[s as usize][p as usize - 1]),
        }
    }

    /// The session prefix a leaf follows besides its own: the session and
    /// the count of its transactions before the leaf.
    pub fn forked_prefix(&self, t: TxnId) -> Option<(usize, u32)> {
        let p = *self.fork.get(t as usize)?;
        (p != NONE).then(|| (self.session[p as usize] as usize, self.pos[p as usize] + 1))
    }

    pub fn reads_of_txn(&self, t: TxnId) -> &[Read] {
        let r = self.read_start[t as usize] as usize..self.read_start[t as usize + 1] as usize;
        &self.reads[r]
    }

    pub fn observed_by(&self, r: &Read) -> &[TxnId] {
        &self.observed[r.observed.start as usize..r.observed.end as usize]
    }

    /// Whether `w`, a writer read `x` observed, writes `key`: known from `x`
    /// alone when `x` is a register read whose source writes no other key.
    pub fn source_writes(&self, x: &Read, w: TxnId, key: u32) -> bool {
        match x.alone {
            true => x.key == key,
            false => self.writes(w, key),
        }
    }

    pub fn writes(&self, t: TxnId, key: u32) -> bool {
        self.keys_written(t).binary_search(&key).is_ok()
    }

    /// The keys checked transaction `t` writes, each once.
    pub fn keys_written(&self, t: TxnId) -> &[u32] {
        let r =
            self.written_start[t as usize] as usize..self.written_start[t as usize + 1] as usize;
        &self.written[r]
    }

    /// The sessions writing `key`, each with the positions in it of the
    /// key's writers, ascending.
    pub fn writers_of(&self, key: u32) -> impl Iterator<Item = (u32, &[u32])> + '_ {
        let runs = self.key_runs.get(key as usize).cloned().unwrap_or(0..0);
        self.runs[runs.start as usize..runs.end as usize]
            .iter()
            .map(|(s, r)| (*s, &self.positions[r.start as usize..r.end as usize]))
    }

    /// The positions in session `s` of `key`'s writers, ascending.
    pub fn writers_in(&self, key: u32, s: u32) -> &[u32] {
        let runs = self.key_runs.get(key as usize).cloned().unwrap_or(0..0);
        let runs = &self.runs[runs.start as usize..runs.end as usize];
        match runs.binary_search_by_key(&s, |(session, _)| *session) {
            Ok(i) => &self.positions[runs[i].1.start as usize..runs[i].1.end as usize],
            Err(_) => &[],
        }
    }

    /// The external reads of committed transaction `t`.
    fn reads_of(
        &mut self,
        h: &History,
        t: TxnId,
        seen: &Seen,
        keys: &mut KeyIds,
        seen_info: &mut [bool],
        own: &mut OwnWrites,
    ) {
        let txn = h.txn(t);
        own.0.clear();
        let mut unread = false;
        for (i, m) in h.mops_of(txn).iter().enumerate() {
            let mop = txn.mops.start + i as u32;
            if m.kind != MopKind::Read {
                own.wrote(m.key, m.value());
                continue;
            }
            if !unread && !own.shown(h, m.key, m.value(), self.lists) {
                unread = true;
                self.unread_own.push((t, mop));
            }
            if !self.lists && own.writes(m.key) {
                continue;
            }
            let start = self.observed.len() as u32;
            let resolved = match m.value() {
                MopValue::List { start, len } => {
                    self.observe_list(t, m.key, h.list(start, len), seen, seen_info);
                    true
                }
                MopValue::Val(v) if v == Val::NIL => true,
                MopValue::Val(v) => match seen.written.version(mop, m.key, v) {
                    Some(w) if w != t => {
                        seen.note(w, seen_info);
                        self.observed.push(w);
                        true
                    }
                    _ => false,
                },
            };
            if !resolved {
                continue;
            }
            let end = self.observed.len() as u32;
            self.reads.push(Read {
                mop,
                key: keys.id(m.key),
                source: (end > start).then(|| self.observed[end as usize - 1]),
                observed: start..end,
                prior: NONE,
                alone: !self.lists && end > start && seen.alone(self.observed[start as usize]),
            });
        }
    }

    /// The appenders of a list's elements, in order, each once however many
    /// elements it appended in a row; the reader's own and unknown elements
    /// are not observations.
    fn observe_list(
        &mut self,
        t: TxnId,
        key: Val,
        elems: &[Val],
        seen: &Seen,
        seen_info: &mut [bool],
    ) {
        let start = self.observed.len();
        for &v in elems {
            match seen.written.element(key, v) {
                Some(w) if w != t => {
                    seen.note(w, seen_info);
                    if self.observed.len() == start || self.observed.last() != Some(&w) {
                        self.observed.push(w);
                    }
                }
                _ => {}
            }
        }
    }

    /// Sessions: the transactions checked (committed, or indeterminate and
    /// read from), per process in the order of their ops. An indeterminate
    /// transaction may take effect at any time after its invocation, so it
    /// precedes nothing in session order: where its process went on after
    /// it (Jepsen gives such a process a new id, other tools may not), it is
    /// a leaf in a session of its own, forked from the committed
    /// transaction before it.
    fn sessions_of(&mut self, h: &History, seen_info: &[bool]) {
        let mut members: Vec<(i64, u32, TxnId)> = h
            .txns
            .iter()
            .enumerate()
            .filter(|&(t, x)| x.status == Status::Committed || seen_info[t])
            .map(|(t, x)| (x.process, x.op(), t as TxnId))
            .collect();
        members.sort_unstable();
        self.session = vec![NONE; h.txns.len()];
        self.pos = vec![0; h.txns.len()];
        self.fork = vec![NONE; h.txns.len()];
        for run in members.chunk_by(|a, b| a.0 == b.0) {
            self.sessions.push(Vec::new());
            let main = self.sessions.len() - 1;
            let mut last_committed = NONE;
            for (i, &(_, _, t)) in run.iter().enumerate() {
                let committed = h.txn(t).status == Status::Committed;
                let leaf = !committed && i + 1 < run.len();
                let s = if leaf {
                    self.sessions.push(Vec::new());
                    self.fork[t as usize] = last_committed;
                    self.sessions.len() - 1
                } else {
                    main
                };
                if committed {
                    last_committed = t;
                }
                self.session[t as usize] = s as u32;
                self.pos[t as usize] = self.sessions[s].len() as u32;
                self.sessions[s].push(t);
            }
        }
        // A process's last transaction is never a leaf: no session is empty.
    }

    /// Which checked transaction writes which key, and (with `runs_wanted`)
    /// per session the positions of a key's writers.
    fn writes_of(&mut self, h: &History, keys: &mut KeyIds, runs_wanted: bool) {
        let mut triples: Vec<(u32, u32, u32)> = Vec::new();
        let mut mine: Vec<u32> = Vec::new();
        self.written_start.push(0);
        for (t, txn) in h.txns.iter().enumerate() {
            let s = self.session[t];
            if s != NONE {
                let mops = h.mops_of(txn).iter().filter(|m| m.kind != MopKind::Read);
                mine.clear();
                mine.extend(mops.map(|m| keys.id(m.key)));
                mine.sort_unstable();
                mine.dedup();
                self.written.extend(&mine);
                let pos = self.pos[t];
                if runs_wanted {
                    triples.extend(mine.iter().map(|&key| (key, s, pos)));
                }
            }
            self.written_start.push(self.written.len() as u32);
        }
        triples.sort_unstable();
        self.key_runs = vec![0..0; keys.len()];
        for (i, &(key, s, p)) in triples.iter().enumerate() {
            let new_key = i == 0 || triples[i - 1].0 != key;
            if new_key || triples[i - 1].1 != s {
                let at = self.positions.len() as u32;
                self.runs.push((s, at..at));
            }
            if new_key {
                let run = self.runs.len() as u32 - 1;
                self.key_runs[key as usize] = run..run;
            }
            self.positions.push(p);
            let run = self.runs.len() - 1;
            self.runs[run].1.end += 1;
            self.key_runs[key as usize].end = run as u32 + 1;
        }
    }

    /// Each read's [`Read::prior`], in one pass per session: per key the
    /// last writer so far, stamped with its session so that nothing is
    /// cleared between sessions.
    fn priors_of(&mut self, key_count: usize) {
        let mut last: Vec<(u32, TxnId)> = vec![(NONE, NONE); key_count];
        let Facts {
            sessions,
            reads,
            read_start,
            written,
            written_start,
            ..
        } = self;
        for (s, members) in sessions.iter().enumerate() {
            let s = s as u32;
            for &t in members {
                let t = t as usize;
                let mine = read_start[t] as usize..read_start[t + 1] as usize;
                for r in &mut reads[mine] {
                    let (stamp, w) = last[r.key as usize];
                    r.prior = if stamp == s { w } else { NONE };
                }
                let keys = written_start[t] as usize..written_start[t + 1] as usize;
                for &key in &written[keys] {
                    last[key as usize] = (s, t as TxnId);
                }
            }
        }
    }
}

/// What one transaction has written so far: `(key, value)` in order.
#[derive(Default)]
struct OwnWrites(Vec<(Val, MopValue)>);

impl OwnWrites {
    fn wrote(&mut self, key: Val, v: MopValue) {
        self.0.push((key, v));
    }

    fn of(&self, key: Val) -> impl DoubleEndedIterator<Item = MopValue> + Clone + '_ {
        self.0
            .iter()
            .filter(move |(k, _)| *k == key)
            .map(|&(_, v)| v)
    }

    fn writes(&self, key: Val) -> bool {
        self.of(key).next().is_some()
    }

    /// Whether a read of `key` returning `read` shows the transaction's own
    /// writes of it (trivially when there are none): a register its last
    /// write, a list its appends, last and in order.
    fn shown(&self, h: &History, key: Val, read: MopValue, lists: bool) -> bool {
        if !self.writes(key) {
            return true;
        }
        if !lists {
            return self.of(key).next_back() == Some(read);
        }
        let elems = match read {
            MopValue::List { start, len } => h.list(start, len),
            MopValue::Val(_) => &[],
        };
        let appended = self.of(key).count();
        elems.len() >= appended
            && elems[elems.len() - appended..]
                .iter()
                .zip(self.of(key))
                .all(|(e, v)| MopValue::Val(*e) == v)
    }
}

/// What a read is resolved with: who wrote what, and every transaction's
/// status (a byte each, where a transaction's record is a cache miss).
struct Seen<'a> {
    written: &'a Writers<'a>,
    status: &'a [Status],
    /// Per transaction, how many keys it writes (at most 2 counted).
    key_counts: &'a [u8],
}

impl Seen<'_> {
    /// Whether writer `w` writes one key alone.
    fn alone(&self, w: TxnId) -> bool {
        self.key_counts[w as usize] == 1
    }

    /// Notes that writer `w` was read from: an indeterminate one is
    /// checked.
    fn note(&self, w: TxnId, seen_info: &mut [bool]) {
        seen_info[w as usize] |= self.status[w as usize] == Status::Indeterminate;
    }
}

/// Per transaction, how many keys it writes, 2 standing for more: a byte
/// each, as reads ask for their sources' at random.
fn key_counts(h: &History) -> Vec<u8> {
    let count = |txn: &crate::history::Txn| {
        let written = h.mops_of(txn).iter().filter(|m| m.kind != MopKind::Read);
        let mut keys = written.map(|m| m.key);
        match keys.next() {
            None => 0,
            Some(first) => 1 + u8::from(keys.any(|k| k != first)),
        }
    };
    h.txns.iter().map(count).collect()
}

/// Who wrote the version a read returns.
enum Writers<'a> {
    /// Per micro-op, as inference found them (rw-register).
    Sources(&'a [TxnId]),
    /// `(key, value)` → its writer and whether it is the writer's last
    /// write of the key, for every transaction that did not abort.
    Map(FxMap<u64, (TxnId, bool)>),
}

impl<'a> Writers<'a> {
    /// Inference's `sources` when they cover `h`'s micro-ops (never a
    /// list-append history's), else a map of every write.
    fn of(h: &History, sources: &'a [TxnId], lists: bool) -> Writers<'a> {
        match !lists && sources.len() == h.mops.len() {
            true => Writers::Sources(sources),
            false => Writers::Map(writer_of(h)),
        }
    }

    /// The writer of the version register read `mop` returns (`v` of
    /// `key`), when that is its last write of the key and it did not abort.
    fn version(&self, mop: u32, key: Val, v: Val) -> Option<TxnId> {
        match self {
            Writers::Sources(s) => Some(s[mop as usize]).filter(|&w| w != NONE),
            Writers::Map(m) => match m.get(&pack(key, v)) {
                Some(&(w, true)) => Some(w),
                _ => None,
            },
        }
    }

    /// The appender of element `v` of list `key`, if it did not abort.
    fn element(&self, key: Val, v: Val) -> Option<TxnId> {
        match self {
            Writers::Sources(_) => None,
            Writers::Map(m) => m.get(&pack(key, v)).map(|&(w, _)| w),
        }
    }
}

/// `(key, value)` → its writer and whether it is the writer's last write of
/// the key, for every transaction that did not abort.
fn writer_of(h: &History) -> FxMap<u64, (TxnId, bool)> {
    let mut written = FxMap::default();
    for (t, txn) in h.txns.iter().enumerate() {
        if txn.status == Status::Aborted {
            continue;
        }
        let mops = h.mops_of(txn);
        for (i, m) in mops.iter().enumerate() {
            if m.kind == MopKind::Read {
                continue;
            }
            let MopValue::Val(v) = m.value() else {
                continue;
            };
            let last = !mops[i + 1..]
                .iter()
                .any(|n| n.kind != MopKind::Read && n.key == m.key);
            written.insert(pack(m.key, v), (t as TxnId, last));
        }
    }
    written
}
