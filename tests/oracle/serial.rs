//! Serializability and snapshot isolation by their operational
//! definitions: some total commit order of the committed set and, per
//! transaction, a snapshot point (a prefix of the commit order before it;
//! for the serializable models, all of it) such that each external read
//! returns the state of its key after the snapshot; for snapshot
//! isolation, first-committer-wins (of two writers of a common key, the
//! later one's snapshot includes the earlier); and the order a strong
//! variant keeps (session or real-time predecessors are in the snapshot,
//! so also before in the commit order).
//!
//! The orders are built by a depth-first search, one transaction appended
//! at a time, each checked when placed: its snapshot can only be a prefix
//! of what is already placed, so a choice that fails there fails for every
//! completion. Snapshot points are independent between transactions once
//! the order is fixed, so one that works is enough.

use super::reads::Facts;

/// The order a model's commit order contains, besides its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    None,
    /// Session order (`History::session`).
    Session,
    /// Real-time order (`History::realtime`).
    Realtime,
}

impl Order {
    pub fn holds(self, f: &Facts, a: usize, b: usize) -> bool {
        match self {
            Order::None => false,
            Order::Session => f.h.session(a, b),
            Order::Realtime => f.h.realtime(a, b),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Serial {
    /// Snapshot isolation (a snapshot per transaction and
    /// first-committer-wins) rather than serializability.
    pub snapshot: bool,
    pub order: Order,
}

/// Whether some commit order (and snapshot points) witnesses `m`.
pub fn holds(f: &Facts, m: Serial) -> bool {
    let members = f.members();
    let mut placed = Vec::with_capacity(members.len());
    let mut pos = vec![None; f.committed.len()];
    extend(f, m, &members, &mut placed, &mut pos)
}

fn extend(
    f: &Facts,
    m: Serial,
    members: &[usize],
    placed: &mut Vec<usize>,
    pos: &mut Vec<Option<usize>>,
) -> bool {
    if placed.len() == members.len() {
        return true;
    }
    for &t in members {
        let waiting = members
            .iter()
            .any(|&a| pos[a].is_none() && m.order.holds(f, a, t));
        if pos[t].is_some() || waiting || !fits(f, m, placed, pos, t) {
            continue;
        }
        pos[t] = Some(placed.len());
        placed.push(t);
        if extend(f, m, members, placed, pos) {
            return true;
        }
        placed.pop();
        pos[t] = None;
    }
    false
}

/// Whether `t`, placed next, has a snapshot point that its reads, its
/// order predecessors and first-committer-wins allow.
fn fits(f: &Facts, m: Serial, placed: &[usize], pos: &[Option<usize>], t: usize) -> bool {
    let end = placed.len();
    if !m.snapshot {
        return sees(f, &placed[..end], t);
    }
    let least = placed
        .iter()
        .filter(|&&a| f.conflict(a, t) || m.order.holds(f, a, t))
        .filter_map(|&a| pos[a].map(|p| p + 1))
        .max()
        .unwrap_or(0);
    (least..=end).any(|s| sees(f, &placed[..s], t))
}

/// Whether every external read of `t` returns the state after `snapshot`.
fn sees(f: &Facts, snapshot: &[usize], t: usize) -> bool {
    f.reads[t]
        .iter()
        .all(|r| f.state(snapshot, r.key) == r.seen)
}
