//! Jepsen's set checker (`jepsen.checker/set`): `:add`s followed by a final
//! `:read`. Every acknowledged add must be in the final read (else lost),
//! and the read may hold only elements some add attempted (else
//! unexpected); elements of adds that did not complete `:ok` but were read
//! are recovered. A last read of `nil` counts as no read, as in Jepsen.

use super::{element, elements, named, valid_if};
use crate::history::{CheckerF, CheckerOp, History, OpValue, Status, Val};
use crate::validity::Validity;
use std::collections::HashSet;

#[derive(Debug)]
pub struct SetResult {
    /// `None` when the set was never read (`:valid? :unknown`).
    pub counts: Option<SetCounts>,
}

/// The sets of the result map, each sorted.
#[derive(Debug)]
pub struct SetCounts {
    pub attempt_count: usize,
    pub acknowledged_count: usize,
    pub ok: Vec<Val>,
    pub lost: Vec<Val>,
    pub unexpected: Vec<Val>,
    pub recovered: Vec<Val>,
}

impl SetResult {
    pub fn validity(&self) -> Validity {
        match &self.counts {
            None => Validity::Unknown,
            Some(c) => valid_if(c.lost.is_empty() && c.unexpected.is_empty()),
        }
    }

    pub fn anomaly_types(&self) -> Vec<&'static str> {
        match &self.counts {
            None => vec!["never-read"],
            Some(c) => named(&[
                (!c.lost.is_empty(), "lost"),
                (!c.unexpected.is_empty(), "unexpected"),
            ]),
        }
    }
}

pub fn check(h: &History) -> SetResult {
    let adds = || h.checker_ops.iter().filter(|o| o.f == CheckerF::Add);
    let attempts: HashSet<Val> = adds()
        .filter(|o| o.invoke.is_some())
        .filter_map(|o| element(&o.invoked))
        .collect();
    let acknowledged: HashSet<Val> = adds()
        .filter(|o| o.status == Status::Committed)
        .filter_map(|o| element(&o.completed).or(element(&o.invoked)))
        .collect();
    // The read that completed last in the file.
    let last_read = h
        .checker_ops
        .iter()
        .filter(|o| o.f == CheckerF::Read && o.status == Status::Committed)
        .max_by_key(|o| o.completion);
    // Jepsen takes a last read of `nil` for no read at all (`if-not`).
    let read_nil = |o: &&CheckerOp| o.completion.map(|c| h.op(c).value) == Some(OpValue::Nil);
    let Some(last_read) = last_read.filter(|o| !read_nil(o)) else {
        return SetResult { counts: None };
    };
    let read: HashSet<Val> = elements(h, &last_read.completed).iter().copied().collect();
    let sorted = |s: &mut dyn Iterator<Item = Val>| {
        let mut v: Vec<Val> = s.collect();
        v.sort_by(|&a, &b| super::value_order(h, a, b));
        v
    };
    let ok = sorted(&mut read.intersection(&attempts).copied());
    let recovered = sorted(&mut ok.iter().copied().filter(|x| !acknowledged.contains(x)));
    SetResult {
        counts: Some(SetCounts {
            attempt_count: attempts.len(),
            acknowledged_count: acknowledged.len(),
            lost: sorted(&mut acknowledged.difference(&read).copied()),
            unexpected: sorted(&mut read.difference(&attempts).copied()),
            recovered,
            ok,
        }),
    }
}
