//! Jepsen's total-queue checker (`jepsen.checker/total-queue`): what goes
//! in must come out. Multisets of the attempted and acknowledged
//! `:enqueue`s and of what `:ok` `:dequeue`s and `:drain`s returned: an
//! acknowledged element never dequeued is lost, a dequeued one never
//! enqueued unexpected, one dequeued more often than enqueued duplicated,
//! one dequeued whose enqueue was not acknowledged recovered.

use super::{element, elements, named, valid_if, value_order};
use crate::history::{CheckerF, History, Status, Val};
use crate::validity::Validity;
use std::collections::HashMap;

/// A multiset: each element with its multiplicity, sorted by element.
pub type Multiset = Vec<(Val, usize)>;

#[derive(Debug)]
pub struct TotalQueueResult {
    pub attempt_count: usize,
    pub acknowledged_count: usize,
    pub ok_count: usize,
    pub lost: Multiset,
    pub unexpected: Multiset,
    pub duplicated: Multiset,
    pub recovered: Multiset,
}

impl TotalQueueResult {
    pub fn validity(&self) -> Validity {
        valid_if(self.lost.is_empty() && self.unexpected.is_empty())
    }

    pub fn anomaly_types(&self) -> Vec<&'static str> {
        named(&[
            (!self.lost.is_empty(), "lost"),
            (!self.unexpected.is_empty(), "unexpected"),
            (!self.duplicated.is_empty(), "duplicated"),
        ])
    }
}

/// The number of elements of a multiset, counting repeats.
pub fn size(m: &Multiset) -> usize {
    m.iter().map(|e| e.1).sum()
}

type Counts = HashMap<Val, usize>;

fn count(items: impl Iterator<Item = Val>) -> Counts {
    let mut c = Counts::new();
    for x in items {
        *c.entry(x).or_default() += 1;
    }
    c
}

/// `a` less `b`, multiplicities subtracted.
fn minus(a: &Counts, b: &Counts) -> Counts {
    a.iter()
        .filter_map(|(&x, &n)| {
            let left = n.saturating_sub(b.get(&x).copied().unwrap_or(0));
            (left > 0).then_some((x, left))
        })
        .collect()
}

fn sorted(h: &History, c: Counts) -> Multiset {
    let mut m: Multiset = c.into_iter().collect();
    m.sort_by(|a, b| value_order(h, a.0, b.0));
    m
}

pub fn check(h: &History) -> TotalQueueResult {
    let ops = &h.checker_ops;
    let enqueues = || ops.iter().filter(|o| o.f == CheckerF::Enqueue);
    let attempts = count(
        enqueues()
            .filter(|o| o.invoke.is_some())
            .filter_map(|o| element(&o.invoked)),
    );
    let acknowledged = count(
        enqueues()
            .filter(|o| o.status == Status::Committed)
            .filter_map(|o| element(&o.completed).or(element(&o.invoked))),
    );
    let ok_ops = ops.iter().filter(|o| o.status == Status::Committed);
    let dequeues = count(ok_ops.flat_map(|o| match o.f {
        CheckerF::Dequeue => element(&o.completed).into_iter().collect::<Vec<Val>>(),
        CheckerF::Drain => elements(h, &o.completed).to_vec(),
        _ => Vec::new(),
    }));
    let ok: Counts = dequeues
        .iter()
        .filter_map(|(&x, &n)| Some((x, n.min(*attempts.get(&x)?))))
        .collect();
    let unexpected: Counts = dequeues
        .iter()
        .filter(|(x, _)| !attempts.contains_key(x))
        .map(|(&x, &n)| (x, n))
        .collect();
    let duplicated = minus(&minus(&dequeues, &attempts), &unexpected);
    let lost = minus(&acknowledged, &dequeues);
    let recovered = minus(&ok, &acknowledged);
    TotalQueueResult {
        attempt_count: attempts.values().sum(),
        acknowledged_count: acknowledged.values().sum(),
        ok_count: ok.values().sum(),
        lost: sorted(h, lost),
        unexpected: sorted(h, unexpected),
        duplicated: sorted(h, duplicated),
        recovered: sorted(h, recovered),
    }
}
