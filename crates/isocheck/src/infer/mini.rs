//! Mini-transactions (MTC, SPEC §2.4): recognising them, and their
//! dependency edges in linear time.
//!
//! A mini-transaction has at most two reads and two writes, and reads every
//! key before writing it. The version a transaction read is then the one its
//! write overwrote, so each key's versions form a tree rooted at the initial
//! state; without DIVERGENCE (two writes of one version, a lost update) the
//! tree is a chain and the whole dependency graph is known. [`edges`] builds
//! it with one hash map and no per-key closure, and gives up (`None`) on
//! anything irregular — a non-cycle anomaly, a divergence, an observed
//! indeterminate write — which the general inference then explains.

use super::util::{pack, scalar, FxMap};
use crate::history::{History, MicroOp, MopKind, MopValue, Status, TxnId, Val};

/// Why a history is not made of mini-transactions: the first transaction
/// that is not one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NotMini {
    /// More than two reads, or more than two writes.
    TooManyOps,
    /// A write of a key the transaction had not read before.
    BlindWrite,
}

impl NotMini {
    pub fn describe(self) -> &'static str {
        match self {
            NotMini::TooManyOps => "more than two reads or two writes",
            NotMini::BlindWrite => "a write of a key not read before it",
        }
    }
}

/// Whether every committed and indeterminate transaction is a
/// mini-transaction; else the first that is not, and why.
pub fn shape(h: &History) -> Result<(), (TxnId, NotMini)> {
    for (t, txn) in h.txns.iter().enumerate() {
        if txn.status == Status::Aborted {
            continue;
        }
        if let Err(why) = mini(h.mops_of(txn)) {
            return Err((t as TxnId, why));
        }
    }
    Ok(())
}

fn mini(mops: &[MicroOp]) -> Result<(), NotMini> {
    let (mut reads, mut writes) = (0, 0);
    for (i, m) in mops.iter().enumerate() {
        if m.kind == MopKind::Read {
            reads += 1;
        } else {
            writes += 1;
            let read_before = mops[..i]
                .iter()
                .any(|r| r.kind == MopKind::Read && r.key == m.key);
            if !read_before {
                return Err(NotMini::BlindWrite);
            }
        }
    }
    if reads > 2 || writes > 2 {
        return Err(NotMini::TooManyOps);
    }
    Ok(())
}

/// A version of a key: `Val::NIL` for the initial state, else the value
/// that wrote it (unique per key).
type Version = Val;

/// A write that installed a version.
#[derive(Clone, Copy)]
struct Installed {
    txn: TxnId,
    /// The version it overwrote (the one its transaction read).
    parent: Version,
    /// Whether the version is in the key's chain: not overwritten in its
    /// own transaction (a list append always is).
    visible: bool,
    /// Whether it is its transaction's last write of the key: the only one
    /// another transaction may read (else G1b).
    last: bool,
}

/// An edge `from → to`, and whether it is an anti-dependency (rw).
pub type Edge = (TxnId, TxnId, bool);

/// The ww, wr and rw edges of a mini-transaction history, not deduplicated,
/// or `None` when the history needs the general inference. Assumes
/// [`shape`] holds.
pub fn edges(h: &History) -> Option<Vec<Edge>> {
    let installed = installed(h)?;
    let mut child: FxMap<u64, Version> = FxMap::default();
    for (&kv, w) in &installed {
        if w.visible && h.txns[w.txn as usize].status == Status::Committed {
            let key = Val::from_raw((kv >> 32) as u32);
            let v = Val::from_raw(kv as u32);
            // DIVERGENCE: two writes of one version.
            if child.insert(pack(key, w.parent), v).is_some() {
                return None;
            }
        }
    }
    let mut out = Vec::new();
    for (t, txn) in h.txns.iter().enumerate() {
        crate::limits::tick_of(t, h.txns.len(), crate::progress::Unit::Transactions);
        if txn.status != Status::Committed {
            continue;
        }
        let t = t as TxnId;
        for (key, read) in external_reads(h, h.mops_of(txn))? {
            let writer = |v: Version| installed.get(&pack(key, v)).map(|w| w.txn);
            if !read.is_nil() {
                let w = installed.get(&pack(key, read))?;
                let status = h.txns[w.txn as usize].status;
                if w.txn == t || status != Status::Committed || !w.last {
                    return None;
                }
                out.push((w.txn, t, false));
            }
            if let Some(next) = child.get(&pack(key, read)).and_then(|&v| writer(v)) {
                if next != t {
                    out.push((t, next, true));
                }
            }
        }
        for m in h.mops_of(txn).iter().filter(|m| m.kind != MopKind::Read) {
            let w = installed.get(&pack(m.key, scalar(m)))?;
            if w.visible && !w.parent.is_nil() {
                let from = installed.get(&pack(m.key, w.parent))?.txn;
                if from != t {
                    out.push((from, t, false));
                }
            }
        }
    }
    Some(out)
}

/// Every write, by key and value, with the version it overwrote; `None` if a
/// read list disagrees with the chain. Aborted transactions need not be
/// mini-transactions: their writes are kept only to recognise reads of them.
fn installed(h: &History) -> Option<FxMap<u64, Installed>> {
    let mut out: FxMap<u64, Installed> = FxMap::default();
    for (t, txn) in h.txns.iter().enumerate() {
        let mops = h.mops_of(txn);
        let mut current: Vec<(Val, Version)> = Vec::with_capacity(2);
        for (i, m) in mops.iter().enumerate() {
            if m.kind == MopKind::Read {
                let v = read_version(h, m);
                if !current.iter().any(|&(k, _)| k == m.key) {
                    current.push((m.key, v));
                }
                continue;
            }
            let parent = match current.iter_mut().find(|(k, _)| *k == m.key) {
                Some(slot) => slot,
                None if txn.status == Status::Aborted => {
                    current.push((m.key, Val::NIL));
                    current.last_mut()?
                }
                None => return None,
            };
            let v = scalar(m);
            let last = !mops[i + 1..]
                .iter()
                .any(|n| n.kind != MopKind::Read && n.key == m.key);
            let visible = last || m.kind == MopKind::Append;
            out.insert(
                pack(m.key, v),
                Installed {
                    txn: t as TxnId,
                    parent: parent.1,
                    visible,
                    last,
                },
            );
            if visible {
                parent.1 = v;
            }
        }
    }
    lists_agree(h, &out).then_some(out)
}

/// The version a read saw: its value, or a list's last element.
fn read_version(h: &History, m: &MicroOp) -> Version {
    match m.value() {
        MopValue::Val(v) => v,
        MopValue::List { start, len } => h.list(start, len).last().copied().unwrap_or(Val::NIL),
    }
}

/// The transaction's external reads: `(key, version)` for each key's first
/// read. `None` if a later read of the key disagrees with what the
/// transaction read and wrote (an internal anomaly).
fn external_reads(h: &History, mops: &[MicroOp]) -> Option<Vec<(Val, Version)>> {
    let mut first: Vec<(Val, Version)> = Vec::with_capacity(2);
    let mut current: Vec<(Val, Version)> = Vec::with_capacity(2);
    for m in mops {
        let now = current.iter_mut().find(|(k, _)| *k == m.key);
        if m.kind != MopKind::Read {
            now?.1 = scalar(m);
            continue;
        }
        let v = read_version(h, m);
        match now {
            Some(&mut (_, seen)) if seen != v => return None,
            Some(_) => {}
            None => {
                first.push((m.key, v));
                current.push((m.key, v));
            }
        }
    }
    Some(first)
}

/// List-append: every read list is the chain of its key from the initial
/// state up to the list's last element.
fn lists_agree(h: &History, installed: &FxMap<u64, Installed>) -> bool {
    for txn in h.txns.iter().filter(|t| t.status == Status::Committed) {
        for m in h.mops_of(txn) {
            let MopValue::List { start, len } = m.value() else {
                continue;
            };
            let list = h.list(start, len);
            // A failed or indeterminate append in a list is a dirty update
            // or an observed indeterminate write: the general path's.
            let parent_ok = |i: usize| {
                let want = if i == 0 { Val::NIL } else { list[i - 1] };
                installed.get(&pack(m.key, list[i])).is_some_and(|w| {
                    w.parent == want && h.txns[w.txn as usize].status == Status::Committed
                })
            };
            if !(0..list.len()).all(parent_ok) {
                return false;
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::parse_edn;

    fn history(txns: &[&str]) -> History {
        let text: String = txns
            .iter()
            .enumerate()
            .map(|(i, v)| format!("{{:index {i}, :type :ok, :process {i}, :f :txn, :value {v}}}\n"))
            .collect();
        parse_edn("t.edn", &text).expect("parses")
    }

    #[test]
    fn shapes() {
        assert_eq!(
            shape(&history(&["[[:r :x 1] [:w :x 2] [:r :y 3] [:w :y 4]]"])),
            Ok(())
        );
        assert_eq!(
            shape(&history(&["[[:r :x 1] [:w :y 2]]"])),
            Err((0, NotMini::BlindWrite))
        );
        assert_eq!(
            shape(&history(&["[[:r :x 1] [:r :y 1] [:r :z 1]]"])),
            Err((0, NotMini::TooManyOps))
        );
        assert_eq!(
            shape(&history(&[
                "[[:r :x []] [:append :x 1] [:append :x 2] [:append :x 3]]"
            ])),
            Err((0, NotMini::TooManyOps))
        );
    }

    #[test]
    fn a_chain_gives_ww_wr_and_rw() {
        let h = history(&[
            "[[:r :x nil] [:w :x 1]]",
            "[[:r :x 1] [:w :x 2]]",
            "[[:r :x 1]]",
        ]);
        let mut e = edges(&h).expect("regular");
        e.sort_unstable();
        e.dedup();
        // wr and ww 0→1, wr 0→2; rw 2→1 (read 1, overwritten by 2).
        assert_eq!(e, [(0, 1, false), (0, 2, false), (2, 1, true)]);
    }

    #[test]
    fn irregular_histories_go_to_the_general_path() {
        let cases: [&[&str]; 5] = [
            // divergence (lost update)
            &["[[:r :x nil] [:w :x 1]]", "[[:r :x nil] [:w :x 2]]"],
            // garbage read
            &["[[:r :x nil] [:w :x 1]]", "[[:r :x 9]]"],
            // intermediate read
            &["[[:r :x nil] [:w :x 1] [:w :x 2]]", "[[:r :x 1]]"],
            // internal: a read after the transaction's own write
            &["[[:r :x nil] [:w :x 1] [:r :x nil]]"],
            // list-append: a read list that is not the key's chain
            &[
                "[[:r :x []] [:append :x 1]]",
                "[[:r :x [1]] [:append :x 2]]",
                "[[:r :x [2]]]",
            ],
        ];
        for txns in cases {
            assert!(edges(&history(txns)).is_none(), "{txns:?}");
        }
    }
}
