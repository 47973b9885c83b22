//! A brute-force oracle for closed-predicate histories: is there a total
//! order of the transactions, after the `:init` state, that respects real
//! time, puts each key's writers in the order they completed (Elle's
//! assumption: a key's versions are its writes in completion order), and
//! in which every read returns what replaying the order gives, a predicate
//! read exactly the live keys whose values match? Shares no code with the
//! checker: it works on the test's own picture of the history.

use std::collections::BTreeMap;

/// Elle's predicates.
#[derive(Clone, Copy, Debug)]
pub enum Pred {
    True,
    Eq(i64),
    Mod(i64, i64),
}

impl Pred {
    pub fn matches(self, v: i64) -> bool {
        match self {
            Pred::True => true,
            Pred::Eq(x) => v == x,
            Pred::Mod(m, r) => v.rem_euclid(m) == r,
        }
    }
}

/// A micro-op with what it returned.
#[derive(Clone, Debug)]
pub enum Mop {
    Read(i64, Option<i64>),
    PredRead(Pred, BTreeMap<i64, i64>),
    Insert(i64, i64),
    Write(i64, i64),
    Delete(i64),
}

/// A committed transaction: its micro-ops and its invocation and
/// completion positions in the history.
#[derive(Clone, Debug)]
pub struct Txn {
    pub mops: Vec<Mop>,
    pub invoked: usize,
    pub completed: usize,
}

/// Whether some order explains every read (see the module's doc).
pub fn serializable(init: &BTreeMap<i64, i64>, txns: &[Txn]) -> bool {
    let mut placed = vec![false; txns.len()];
    search(init.clone(), txns, &mut placed, 0)
}

fn search(state: BTreeMap<i64, i64>, txns: &[Txn], placed: &mut [bool], n: usize) -> bool {
    if n == txns.len() {
        return true;
    }
    for i in 0..txns.len() {
        if placed[i] || !may_come_next(txns, placed, i) {
            continue;
        }
        let Some(next) = replay(&state, &txns[i]) else {
            continue;
        };
        placed[i] = true;
        let found = search(next, txns, placed, n + 1);
        placed[i] = false;
        if found {
            return true;
        }
    }
    false
}

/// No unplaced transaction must come before `i`: one that completed before
/// `i` was invoked, or one that wrote a key `i` writes and completed first.
fn may_come_next(txns: &[Txn], placed: &[bool], i: usize) -> bool {
    let t = &txns[i];
    (0..txns.len()).filter(|&j| j != i && !placed[j]).all(|j| {
        let u = &txns[j];
        let realtime = u.completed < t.invoked;
        let earlier_writer = u.completed < t.completed && shares_written_key(t, u);
        !realtime && !earlier_writer
    })
}

fn written(t: &Txn) -> Vec<i64> {
    t.mops
        .iter()
        .filter_map(|m| match m {
            Mop::Insert(k, _) | Mop::Write(k, _) | Mop::Delete(k) => Some(*k),
            _ => None,
        })
        .collect()
}

fn shares_written_key(a: &Txn, b: &Txn) -> bool {
    let bs = written(b);
    written(a).iter().any(|k| bs.contains(k))
}

/// The state after `t`, if each of its reads returned what the state held.
fn replay(state: &BTreeMap<i64, i64>, t: &Txn) -> Option<BTreeMap<i64, i64>> {
    let mut s = state.clone();
    for m in &t.mops {
        match m {
            Mop::Read(k, v) => {
                if s.get(k) != v.as_ref() {
                    return None;
                }
            }
            Mop::PredRead(p, got) => {
                let want: BTreeMap<i64, i64> = (s.iter())
                    .filter(|(_, v)| p.matches(**v))
                    .map(|(k, v)| (*k, *v))
                    .collect();
                if &want != got {
                    return None;
                }
            }
            Mop::Insert(k, v) | Mop::Write(k, v) => {
                s.insert(*k, *v);
            }
            Mop::Delete(k) => {
                s.remove(k);
            }
        }
    }
    Some(s)
}
