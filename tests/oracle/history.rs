//! The oracle's own picture of a Jepsen transaction history (transactions
//! with their process, outcome and the file positions of their invocation
//! and completion), its rendering as Jepsen EDN, and the random generator
//! of small histories the comparison runs on: with values unique per key,
//! or (rw-register) drawn from a small pool so that they repeat.

use super::common::Rng;

/// rw-register (`[:w k v]`, `[:r k v]`) or list-append (`[:append k v]`,
/// `[:r k [..]]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Register,
    List,
}

/// How the transaction ended: `:ok`, `:fail`, `:info`, or no completion at
/// all (an invocation left open at the end of the history).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Ok,
    Fail,
    Info,
    Open,
}

impl Status {
    /// `:info` or never completed: it may or may not have committed.
    pub fn indeterminate(self) -> bool {
        matches!(self, Status::Info | Status::Open)
    }
}

/// One micro-operation. A read holds what an `:ok` completion says it
/// returned: for a register at most one value (none is `nil`); for a list
/// its elements, `nil` telling `nil` from `[]` apart in the text only (both
/// are the empty list). Reads of transactions that are not `:ok` are
/// written `nil` and mean nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mop {
    Write(usize, u32),
    Read(usize, Vec<u32>, bool),
}

impl Mop {
    pub fn key(&self) -> usize {
        match self {
            Mop::Write(k, _) | Mop::Read(k, _, _) => *k,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Txn {
    pub process: u32,
    pub status: Status,
    /// Position of the invocation in the file (any increasing numbering).
    pub invoke: usize,
    /// Position of the completion; `None` for [`Status::Open`].
    pub complete: Option<usize>,
    pub mops: Vec<Mop>,
}

impl Txn {
    pub fn ok(&self) -> bool {
        self.status == Status::Ok
    }

    /// The values this transaction writes to `key`, in program order.
    pub fn writes(&self, key: usize) -> Vec<u32> {
        self.writes_before(key, self.mops.len())
    }

    /// The values this transaction writes to `key` before micro-op `op`,
    /// in program order.
    pub fn writes_before(&self, key: usize, op: usize) -> Vec<u32> {
        self.mops[..op]
            .iter()
            .filter_map(|m| match m {
                Mop::Write(k, v) if *k == key => Some(*v),
                _ => None,
            })
            .collect()
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct History {
    pub kind: Kind,
    pub keys: usize,
    pub txns: Vec<Txn>,
}

impl History {
    /// Real-time order: `a` is `:ok` and completed before `b` was invoked.
    /// An indeterminate transaction may take effect at any time after its
    /// invocation, so it is never a source.
    pub fn realtime(&self, a: usize, b: usize) -> bool {
        let (ta, tb) = (&self.txns[a], &self.txns[b]);
        a != b && ta.ok() && ta.complete.is_some_and(|c| c < tb.invoke)
    }

    /// Session order: real-time order within one process.
    pub fn session(&self, a: usize, b: usize) -> bool {
        self.realtime(a, b) && self.txns[a].process == self.txns[b].process
    }

    /// Jepsen EDN, one op a line, `:index` and `:time` counting lines.
    pub fn edn(&self) -> String {
        let mut events: Vec<(usize, usize, bool)> = Vec::new();
        for (t, txn) in self.txns.iter().enumerate() {
            events.push((txn.invoke, t, false));
            if let Some(c) = txn.complete {
                events.push((c, t, true));
            }
        }
        events.sort();
        let mut text = String::new();
        for (i, &(_, t, completion)) in events.iter().enumerate() {
            let txn = &self.txns[t];
            let (ty, value) = if !completion {
                ("invoke", self.value(txn, false))
            } else {
                let ty = match txn.status {
                    Status::Ok => "ok",
                    Status::Fail => "fail",
                    Status::Info | Status::Open => "info",
                };
                (ty, self.value(txn, txn.ok()))
            };
            text.push_str(&format!(
                "{{:index {i}, :time {i}, :type :{ty}, :process {}, :f :txn, :value {value}}}\n",
                txn.process
            ));
        }
        text
    }

    fn value(&self, txn: &Txn, with_reads: bool) -> String {
        let mops: Vec<String> = txn
            .mops
            .iter()
            .map(|m| match m {
                Mop::Write(k, v) if self.kind == Kind::List => format!("[:append {} {v}]", key(*k)),
                Mop::Write(k, v) => format!("[:w {} {v}]", key(*k)),
                Mop::Read(k, vs, nil) => {
                    let shown = if !with_reads
                        || (vs.is_empty() && (*nil || self.kind == Kind::Register))
                    {
                        "nil".to_string()
                    } else if self.kind == Kind::Register {
                        vs[0].to_string()
                    } else {
                        let vs: Vec<String> = vs.iter().map(u32::to_string).collect();
                        format!("[{}]", vs.join(" "))
                    };
                    format!("[:r {} {shown}]", key(*k))
                }
            })
            .collect();
        format!("[{}]", mops.join(" "))
    }
}

fn key(k: usize) -> &'static str {
    [":x", ":y", ":z"].get(k).copied().unwrap_or(":w")
}

/// A value no transaction of a generated history writes.
pub const GARBAGE: u32 = 99;

/// The histories a comparison draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// Of one workload, written values unique per key.
    Unique(Kind),
    /// rw-register histories whose writes draw their values from a pool
    /// of one to three per key, kept when some value is written twice.
    Repeated,
}

impl Source {
    pub fn kind(self) -> Kind {
        match self {
            Source::Unique(kind) => kind,
            Source::Repeated => Kind::Register,
        }
    }

    /// The history of `seed`; `None` if a repeated one writes no value
    /// twice.
    pub fn draw(self, seed: u64) -> Option<History> {
        match self {
            Source::Unique(kind) => Some(generate(seed, kind, false)),
            Source::Repeated => {
                let h = generate(seed, Kind::Register, true);
                h.repeats_a_value().then_some(h)
            }
        }
    }

    /// `n` histories, from the first seed at or after `seed` that draws
    /// one: (seed, history).
    pub fn histories(self, seed: u64, n: u64) -> impl Iterator<Item = (u64, History)> {
        (seed..)
            .filter_map(move |s| self.draw(s).map(|h| (s, h)))
            .take(n as usize)
    }
}

impl History {
    /// Whether some value is written to its key by two micro-ops.
    pub fn repeats_a_value(&self) -> bool {
        (0..self.keys).any(|k| {
            let mut vs: Vec<u32> = self.txns.iter().flat_map(|t| t.writes(k)).collect();
            let all = vs.len();
            vs.sort_unstable();
            vs.dedup();
            vs.len() < all
        })
    }
}

/// A random history: 1 to 5 transactions (6, one time in eight), 1 to 3
/// concurrent processes, 1 or 2 keys, 1 to 3 micro-ops each, written
/// values unique per key (`repeated`: drawn from a pool of 1 to 3 values
/// per key, its size drawn too); outcomes mostly `:ok`, some `:fail`, `:info` or
/// left open; invocations and completions interleaved at random (a process
/// has at most one open op; after an `:info` its next op usually takes a
/// new process id, as Jepsen does, and sometimes the same one). Reads are
/// filled in for half the seeds from a simulated execution (serial, from
/// snapshots, or per read) of a random committed set, one read sometimes
/// perturbed; for the other half at random.
pub fn generate(seed: u64, kind: Kind, repeated: bool) -> History {
    let salt = match (kind, repeated) {
        (_, true) => 0xD0B1,
        (Kind::Register, false) => 0x5EED,
        (Kind::List, false) => 0x115D,
    };
    let mut r = Rng((seed ^ salt).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let n = if r.below(8) == 0 {
        6
    } else {
        1 + r.below(5) as usize
    };
    let keys = 1 + r.below(2) as usize;
    // Drawn only for a pool, so that unique histories stay as they were.
    let pool = repeated.then(|| 1 + r.below(3));
    let mut next = vec![1u32; keys];
    let mut txns: Vec<Txn> = (0..n)
        .map(|_| {
            let mops = (0..1 + r.below(3))
                .map(|_| {
                    let k = r.below(keys as u64) as usize;
                    if r.below(2) == 0 {
                        Mop::Read(k, Vec::new(), true)
                    } else if let Some(pool) = pool {
                        Mop::Write(k, 1 + r.below(pool) as u32)
                    } else {
                        next[k] += 1;
                        Mop::Write(k, next[k] - 1)
                    }
                })
                .collect();
            let status = match r.below(100) {
                0..=61 => Status::Ok,
                62..=73 => Status::Fail,
                74..=87 => Status::Info,
                _ => Status::Open,
            };
            Txn {
                process: 0,
                status,
                invoke: 0,
                complete: None,
                mops,
            }
        })
        .collect();
    let threads = 1 + r.below(3) as u32;
    schedule(&mut r, &mut txns, threads);
    let mut h = History { kind, keys, txns };
    if r.below(2) == 0 {
        simulate(&mut r, &mut h);
        if r.below(3) == 0 {
            perturb_one(&mut r, &mut h);
        }
    } else {
        for t in 0..h.txns.len() {
            for i in 0..h.txns[t].mops.len() {
                if matches!(h.txns[t].mops[i], Mop::Read(..)) {
                    random_read(&mut r, &mut h, t, i);
                }
            }
        }
    }
    h
}

/// Interleaves invocations and completions over `threads` workers; drops
/// the transactions left when every worker is stuck on an open one.
fn schedule(r: &mut Rng, txns: &mut Vec<Txn>, threads: u32) {
    // Per worker: its current process id and the transaction it runs.
    let mut workers: Vec<(u32, Option<usize>)> = (0..threads).map(|p| (p, None)).collect();
    let mut fresh = threads;
    let mut pos = 0;
    let mut next = 0;
    loop {
        let free: Vec<usize> = (0..workers.len())
            .filter(|&w| workers[w].1.is_none())
            .collect();
        let finishing: Vec<usize> = (0..workers.len())
            .filter(|&w| workers[w].1.is_some_and(|t| txns[t].status != Status::Open))
            .collect();
        let can_invoke = next < txns.len() && !free.is_empty();
        if !can_invoke && finishing.is_empty() {
            break;
        }
        if can_invoke && (finishing.is_empty() || r.below(2) == 0) {
            let w = free[r.below(free.len() as u64) as usize];
            txns[next].process = workers[w].0;
            txns[next].invoke = pos;
            workers[w].1 = Some(next);
            next += 1;
        } else {
            let w = finishing[r.below(finishing.len() as u64) as usize];
            let t = workers[w].1.take().unwrap_or_default();
            txns[t].complete = Some(pos);
            if txns[t].status == Status::Info && r.below(3) > 0 {
                workers[w].0 = fresh;
                fresh += 1;
            }
        }
        pos += 1;
    }
    txns.truncate(next);
}

/// Fills the `:ok` reads from an execution: a random committed set (the
/// `:ok` transactions and some indeterminate ones), each committing at a
/// random point of its interval (an indeterminate one any time after its
/// invocation), and reading either the state at its commit point (serial),
/// at one snapshot point of its interval, or at a point per read.
fn simulate(r: &mut Rng, h: &mut History) {
    let end = h
        .txns
        .iter()
        .map(|t| t.complete.unwrap_or(t.invoke))
        .max()
        .unwrap_or(0)
        + 2;
    // Points are scaled by 16 to fall strictly between file positions.
    let commit: Vec<Option<u64>> = h
        .txns
        .iter()
        .map(|t| {
            let committed = t.ok() || (t.status.indeterminate() && r.below(2) == 0);
            let lo = 16 * t.invoke as u64 + 1;
            let hi = 16 * t.complete.unwrap_or(end) as u64;
            committed.then(|| lo + r.below(hi - lo))
        })
        .collect();
    let mode = r.below(3);
    for t in 0..h.txns.len() {
        let Some(at) = commit[t] else { continue };
        let start = 16 * h.txns[t].invoke as u64 + 1;
        let snapshot = start + r.below(at - start + 1);
        for i in 0..h.txns[t].mops.len() {
            let Mop::Read(k, _, _) = h.txns[t].mops[i] else {
                continue;
            };
            let point = match mode {
                0 => at,
                1 => snapshot,
                _ => start + r.below(at - start + 1),
            };
            let mut seen = state(h, &commit, t, k, point);
            // The transaction's own earlier writes come last: a list shows
            // them all, a register the last.
            seen.extend(h.txns[t].mops[..i].iter().filter_map(|m| match m {
                Mop::Write(j, v) if *j == k => Some(*v),
                _ => None,
            }));
            if h.kind == Kind::Register {
                seen = seen.last().copied().into_iter().collect();
            }
            let nil = r.below(2) == 0;
            h.txns[t].mops[i] = Mop::Read(k, seen, nil);
        }
    }
}

/// The appends to `k` (register: the writes) of every transaction other
/// than `t` committed before `point`, in commit order.
fn state(h: &History, commit: &[Option<u64>], t: usize, k: usize, point: u64) -> Vec<u32> {
    let mut before: Vec<(u64, usize)> = commit
        .iter()
        .enumerate()
        .filter_map(|(u, c)| c.filter(|&c| u != t && c < point).map(|c| (c, u)))
        .collect();
    before.sort();
    before
        .iter()
        .flat_map(|&(_, u)| h.txns[u].writes(k))
        .collect()
}

/// Replaces one `:ok` read, chosen at random, by a random one.
fn perturb_one(r: &mut Rng, h: &mut History) {
    let reads: Vec<(usize, usize)> = h
        .txns
        .iter()
        .enumerate()
        .filter(|(_, txn)| txn.ok())
        .flat_map(|(t, txn)| {
            txn.mops
                .iter()
                .enumerate()
                .filter(|(_, m)| matches!(m, Mop::Read(..)))
                .map(move |(i, _)| (t, i))
        })
        .collect();
    if !reads.is_empty() {
        let (t, i) = reads[r.below(reads.len() as u64) as usize];
        random_read(r, h, t, i);
    }
}

/// A random read of the key of the `i`th micro-op of `t`: `nil` (or `[]`),
/// a value some transaction writes there (any outcome, the reader's own
/// earlier or later writes included), for a list a few of them in any
/// order, rarely a value nobody writes or an element twice.
fn random_read(r: &mut Rng, h: &mut History, t: usize, i: usize) {
    let k = h.txns[t].mops[i].key();
    let mut written: Vec<u32> = h.txns.iter().flat_map(|u| u.writes(k)).collect();
    for j in (1..written.len()).rev() {
        written.swap(j, r.below(j as u64 + 1) as usize);
    }
    let len = match h.kind {
        Kind::Register => (r.below(10) < 7) as usize,
        Kind::List => r.below(4) as usize,
    };
    written.truncate(len);
    if r.below(20) == 0 {
        written.push(GARBAGE);
    }
    if h.kind == Kind::List && !written.is_empty() && r.below(30) == 0 {
        written.push(written[0]);
    }
    if h.kind == Kind::Register {
        written.truncate(1);
    }
    let nil = r.below(2) == 0;
    h.txns[t].mops[i] = Mop::Read(k, written, nil);
}
