//! What every model's definition starts from: the committed set chosen,
//! and each `:ok` transaction's reads reduced to *external* reads (what it
//! read of the state it sees, its own earlier writes taken off), after the
//! checks no execution of any model can fail: a read of a value nobody
//! wrote, an element twice, a read that misses the transaction's own
//! earlier write (a register read after the transaction's write returns
//! that write; a list read ends with the transaction's own earlier
//! appends), and a read of the transaction's own later write.

use super::history::{History, Kind, Mop, Status};

/// One external read: micro-op `op` of its transaction read `seen` of
/// `key` (a register: at most one value; a list: its elements, before the
/// transaction's own earlier appends, if it made any: `own`).
#[derive(Clone, Debug)]
pub struct ExtRead {
    pub op: usize,
    pub key: usize,
    pub seen: Vec<u32>,
    pub own: bool,
}

/// A history under one choice of committed set.
pub struct Facts<'h> {
    pub h: &'h History,
    /// C, the committed transactions.
    pub committed: Vec<bool>,
    /// Per transaction, its external reads (only `:ok` ones have any).
    pub reads: Vec<Vec<ExtRead>>,
}

/// Every committed set a model may need: `:ok` ∪ S for each subset S of
/// the indeterminate transactions (`all`), or only the one that matters.
/// Unless reads of uncommitted writes are allowed (`dirty`), that is the
/// `:ok` transactions and the indeterminate ones some other `:ok`
/// transaction read from: a value is written once, so its writer must
/// commit; and a transaction nobody read from can be left out of any
/// witness (every read that saw its key after it would have read its
/// value), so adding it never helps. With `dirty` (read uncommitted), a
/// read from a transaction left out is an aborted read, which is allowed:
/// the `:ok` transactions alone.
pub fn committed_sets(h: &History, dirty: bool, all: bool) -> Vec<Vec<bool>> {
    let ok: Vec<bool> = h.txns.iter().map(|t| t.ok()).collect();
    if !all {
        if dirty {
            return vec![ok];
        }
        let mut c = ok;
        for (t, txn) in h.txns.iter().enumerate() {
            for m in &txn.mops {
                if let (true, Mop::Read(k, vs, _)) = (txn.ok(), m) {
                    for &v in vs {
                        if let Some(w) = writer(h, *k, v).filter(|&w| w != t) {
                            c[w] |= h.txns[w].status.indeterminate();
                        }
                    }
                }
            }
        }
        return vec![c];
    }
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

/// The transaction that writes `value` to `key` (values are unique per
/// key), whatever its outcome.
pub fn writer(h: &History, key: usize, value: u32) -> Option<usize> {
    h.txns.iter().position(|t| t.writes(key).contains(&value))
}

/// The facts of `h` under committed set `committed`, or `None` when some
/// `:ok` read is impossible whatever the model: a value nobody wrote,
/// an element twice, its own write missed or read before it is written,
/// or (unless `dirty`) a value whose writer did not commit.
pub fn facts(h: &History, committed: Vec<bool>, dirty: bool) -> Option<Facts<'_>> {
    let mut reads = vec![Vec::new(); h.txns.len()];
    for (t, txn) in h.txns.iter().enumerate() {
        if txn.status != Status::Ok {
            continue;
        }
        for (op, m) in txn.mops.iter().enumerate() {
            let Mop::Read(key, vs, _) = m else { continue };
            let own: Vec<u32> = txn.mops[..op]
                .iter()
                .filter_map(|m| match m {
                    Mop::Write(k, v) if k == key => Some(*v),
                    _ => None,
                })
                .collect();
            let seen = external(h.kind, vs, &own)?;
            for (i, &v) in seen.iter().enumerate() {
                let w = writer(h, *key, v)?;
                let repeated = seen[..i].contains(&v);
                if w == t || repeated || (!dirty && !committed[w]) {
                    return None;
                }
            }
            if h.kind == Kind::Register && !own.is_empty() {
                continue;
            }
            reads[t].push(ExtRead {
                op,
                key: *key,
                seen,
                own: !own.is_empty(),
            });
        }
    }
    Some(Facts {
        h,
        committed,
        reads,
    })
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

    /// The writer of an external read's value (a register's, or each
    /// list element's).
    pub fn writer(&self, key: usize, value: u32) -> usize {
        writer(self.h, key, value).unwrap_or(usize::MAX)
    }

    /// Read-from between committed transactions: `b`'s external reads
    /// returned something `a` wrote.
    pub fn reads_from(&self, a: usize, b: usize) -> bool {
        self.committed[a]
            && self.reads[b]
                .iter()
                .any(|r| r.seen.iter().any(|&v| self.writer(r.key, v) == a))
    }
}
