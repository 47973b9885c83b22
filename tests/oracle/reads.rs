//! What every model's definition starts from: a *witness*, that is a
//! committed set and, for each element an `:ok` transaction read, the
//! transaction taken to have written it; and each `:ok` transaction's
//! reads reduced to *external* reads (what it read of the state it sees,
//! its own earlier writes taken off), after the checks no execution of any
//! model can fail: a read of a value no other transaction wrote, an
//! element twice, a read that misses the transaction's own earlier write
//! (a register read after the transaction's write returns that write; a
//! list read ends with the transaction's own earlier appends).
//!
//! A value written once to its key has one possible writer. A value
//! written more than once (rw-register histories with repeated values)
//! may have been read from any transaction other than the reader that
//! writes it to the key, whatever its outcome under read uncommitted, else
//! one that may commit: the witnesses range over every choice of writers
//! (`Search::Choices`), each with the committed set it forces, the `:ok`
//! transactions and the indeterminate writers chosen. An indeterminate
//! transaction no chosen writer is can be left out of any witness: every
//! read that saw its key after it read a later write, so adding it never
//! helps (`Search::EverySubset`, every committed set with every choice,
//! checks that on the random histories). With unique values there is one
//! choice, and its committed set is the `:ok` transactions and the
//! indeterminate ones some `:ok` transaction read from
//! (`Search::FirstWriter`, the oracle before values could repeat, is the
//! reference the self-check holds that to). The operational definitions
//! (serial and snapshot executions) compare values and use only the
//! committed set; the graph and axiomatic ones take the chosen writer as
//! the one read.

use super::history::{History, Kind, Mop, Status};

/// One external read: micro-op `op` of its transaction read `seen` of
/// `key` (a register: at most one value; a list: its elements, before the
/// transaction's own earlier appends, if it made any: `own`), each element
/// written by the transaction at the same place in `from`.
#[derive(Clone, Debug)]
pub struct ExtRead {
    pub op: usize,
    pub key: usize,
    pub seen: Vec<u32>,
    pub from: Vec<usize>,
    pub own: bool,
}

/// A history under one witness: a committed set and a choice of writers.
pub struct Facts<'h> {
    pub h: &'h History,
    /// C, the committed transactions.
    pub committed: Vec<bool>,
    /// Per transaction, its external reads (only `:ok` ones have any).
    pub reads: Vec<Vec<ExtRead>>,
}

/// Which reads a model allows, so which witnesses it ranges over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    /// A read returns a committed write: the chosen writer commits (every
    /// model but read uncommitted).
    Committed,
    /// A read may return a write of a transaction that did not commit
    /// (read uncommitted's aborted reads): C is the `:ok` transactions.
    Dirty,
    /// As `Dirty`, but an indeterminate writer chosen commits: read
    /// uncommitted as the checker, like Elle, reads the history.
    DirtyObserved,
}

/// How many witnesses are tried.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Search {
    /// Each value's first writer in the history is the one read, with the
    /// committed set that forces: the oracle before values could repeat.
    FirstWriter,
    /// Every choice of writers, each with the committed set it forces.
    Choices,
    /// Every choice of writers with every committed set that contains what
    /// it forces (the `:ok` transactions and any indeterminate ones).
    EverySubset,
}

/// Beyond this many choices of writers a model is left undecided.
/// Histories that large are rare.
const CHOICES: usize = 50_000;

/// An external read before its writers are chosen: those each element may
/// have been written by (any outcome).
struct Unchosen {
    t: usize,
    read: ExtRead,
    writers: Vec<Vec<usize>>,
}

/// The witnesses a model allowing `reading` ranges over (none if some
/// `:ok` read is impossible whatever the model), or `None` if there are
/// more than [`CHOICES`] choices of writers.
pub fn witnesses(h: &History, reading: Reading, search: Search) -> Option<Vec<Facts<'_>>> {
    let Some(unchosen) = external_reads(h, search == Search::FirstWriter) else {
        return Some(Vec::new());
    };
    let may_read = |w: &usize| reading != Reading::Committed || h.txns[*w].status != Status::Fail;
    let candidates: Vec<Vec<usize>> = (unchosen.iter().flat_map(|u| &u.writers))
        .map(|ws| ws.iter().copied().filter(may_read).collect())
        .collect();
    let mut all = Vec::new();
    for chosen in choices(&candidates)? {
        let forced = forced(h, reading, &chosen);
        let sets = match search {
            Search::EverySubset => every_subset(h)
                .into_iter()
                .filter(|c| c.iter().zip(&forced).all(|(&c, &f)| c || !f))
                .collect(),
            _ => vec![forced],
        };
        for committed in sets {
            all.push(facts(h, &unchosen, &chosen, committed));
        }
    }
    Some(all)
}

/// Every `:ok` transaction's external reads with their possible writers,
/// or `None` when one is impossible whatever the model. With
/// `first_only`, a value's only possible writer is the first transaction
/// writing it, the reader itself included (then the read is impossible).
fn external_reads(h: &History, first_only: bool) -> Option<Vec<Unchosen>> {
    let mut all = Vec::new();
    for (t, txn) in h.txns.iter().enumerate() {
        if txn.status != Status::Ok {
            continue;
        }
        for (op, m) in txn.mops.iter().enumerate() {
            let Mop::Read(key, vs, _) = m else { continue };
            let own = txn.writes_before(*key, op);
            let seen = external(h.kind, vs, &own)?;
            let mut writers = Vec::new();
            for (i, &v) in seen.iter().enumerate() {
                let ws = writers_of(h, *key, v, t, first_only);
                if ws.is_empty() || seen[..i].contains(&v) {
                    return None;
                }
                writers.push(ws);
            }
            if h.kind == Kind::Register && !own.is_empty() {
                continue;
            }
            let read = ExtRead {
                op,
                key: *key,
                seen,
                from: Vec::new(),
                own: !own.is_empty(),
            };
            all.push(Unchosen { t, read, writers });
        }
    }
    Some(all)
}

/// The transactions other than `reader` that write `value` to `key` (with
/// `first_only`, the first one, unless it is `reader`).
fn writers_of(h: &History, key: usize, value: u32, reader: usize, first_only: bool) -> Vec<usize> {
    let writes = |u: &usize| h.txns[*u].writes(key).contains(&value);
    let mut ws: Vec<usize> = (0..h.txns.len()).filter(writes).collect();
    if first_only {
        ws.truncate(1);
    }
    ws.retain(|&u| u != reader);
    ws
}

/// Whether some `:ok` read returned a value that more than one transaction
/// other than the reader, not `:fail`, wrote to the key: its writer is a
/// choice (the witnesses' committed set aside).
pub fn has_choice(h: &History) -> bool {
    let Some(unchosen) = external_reads(h, false) else {
        return false;
    };
    let may_read = |w: &&usize| h.txns[**w].status != Status::Fail;
    (unchosen.iter().flat_map(|u| &u.writers)).any(|ws| ws.iter().filter(may_read).count() > 1)
}

/// Every choice of one element of each of `candidates`, or `None` if
/// there are more than [`CHOICES`] (none if one is empty).
fn choices(candidates: &[Vec<usize>]) -> Option<Vec<Vec<usize>>> {
    let count = candidates.iter().try_fold(1usize, |n, c| {
        n.checked_mul(c.len()).filter(|&n| n <= CHOICES)
    })?;
    let choice = |mut i: usize| -> Vec<usize> {
        (candidates.iter())
            .map(|c| {
                let w = c[i % c.len()];
                i /= c.len();
                w
            })
            .collect()
    };
    Some((0..count).map(choice).collect())
}

/// The committed set a choice of writers forces: the `:ok` transactions
/// and, unless reads may be dirty, the indeterminate writers chosen.
fn forced(h: &History, reading: Reading, chosen: &[usize]) -> Vec<bool> {
    let mut c: Vec<bool> = h.txns.iter().map(|t| t.ok()).collect();
    if reading != Reading::Dirty {
        for &w in chosen {
            c[w] |= h.txns[w].status.indeterminate();
        }
    }
    c
}

/// The `:ok` transactions with each subset of the indeterminate ones.
fn every_subset(h: &History) -> Vec<Vec<bool>> {
    let ok: Vec<bool> = h.txns.iter().map(|t| t.ok()).collect();
    let open: Vec<usize> = (0..h.txns.len())
        .filter(|&t| h.txns[t].status.indeterminate())
        .collect();
    (0..1u32 << open.len())
        .map(|bits| {
            let mut c = ok.clone();
            for (i, &t) in open.iter().enumerate() {
                c[t] = bits >> i & 1 == 1;
            }
            c
        })
        .collect()
}

/// The facts of one witness: the reads with the writers `chosen` (in the
/// order of `unchosen`'s elements) and the committed set.
fn facts<'h>(
    h: &'h History,
    unchosen: &[Unchosen],
    chosen: &[usize],
    committed: Vec<bool>,
) -> Facts<'h> {
    let mut reads = vec![Vec::new(); h.txns.len()];
    let mut chosen = chosen.iter().copied();
    for u in unchosen {
        let mut read = u.read.clone();
        read.from = chosen.by_ref().take(u.writers.len()).collect();
        reads[u.t].push(read);
    }
    Facts {
        h,
        committed,
        reads,
    }
}

/// What a read returned of the state outside its transaction, given the
/// transaction's own earlier writes of the key (`own`): a register read
/// after one returns the last of them (nothing external); a list read ends
/// with them. `None` if it does not.
fn external(kind: Kind, vs: &[u32], own: &[u32]) -> Option<Vec<u32>> {
    match kind {
        Kind::Register if own.is_empty() => Some(vs.to_vec()),
        Kind::Register => (vs == [own[own.len() - 1]]).then(Vec::new),
        Kind::List => {
            let cut = vs.len().checked_sub(own.len())?;
            (vs[cut..] == *own).then(|| vs[..cut].to_vec())
        }
    }
}

impl Facts<'_> {
    /// The committed transactions.
    pub fn members(&self) -> Vec<usize> {
        (0..self.committed.len())
            .filter(|&t| self.committed[t])
            .collect()
    }

    /// The values `t` writes to `key`, in program order.
    pub fn writes(&self, t: usize, key: usize) -> Vec<u32> {
        self.h.txns[t].writes(key)
    }

    pub fn writes_key(&self, t: usize, key: usize) -> bool {
        !self.writes(t, key).is_empty()
    }

    /// Whether `a` and `b` write a common key.
    pub fn conflict(&self, a: usize, b: usize) -> bool {
        a != b && (0..self.h.keys).any(|k| self.writes_key(a, k) && self.writes_key(b, k))
    }

    /// The state of `key` after the committed transactions `prefix`, in
    /// that order: a register's last write (none: `nil`), a list's appends.
    pub fn state(&self, prefix: &[usize], key: usize) -> Vec<u32> {
        let all = prefix.iter().flat_map(|&t| self.writes(t, key));
        match self.h.kind {
            Kind::List => all.collect(),
            Kind::Register => all.last().into_iter().collect(),
        }
    }

    /// Read-from between committed transactions: some external read of
    /// `b` returned something the witness takes `a` to have written.
    pub fn reads_from(&self, a: usize, b: usize) -> bool {
        self.committed[a] && self.reads[b].iter().any(|r| r.from.contains(&a))
    }
}
