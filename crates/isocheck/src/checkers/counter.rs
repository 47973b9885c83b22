//! Jepsen's counter checker (`jepsen.checker/counter`): the counter starts
//! at zero and only grows, so a read must return at least the sum of the
//! adds acknowledged before it was invoked and at most the sum of the adds
//! that may have taken effect before it completed (every add invoked by
//! then, but those that failed).

use super::{events, named, valid_if};
use crate::history::{CheckerF, CheckerValue, History, OpId, Status};
use crate::validity::Validity;

/// One `:ok` read: `[lower value upper]`, and its completion. The bounds
/// are sums of adds, wide so that they cannot overflow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Read {
    pub op: OpId,
    pub lower: i128,
    pub value: i128,
    pub upper: i128,
}

impl Read {
    pub fn in_bounds(&self) -> bool {
        self.lower <= self.value && self.value <= self.upper
    }
}

#[derive(Debug)]
pub struct CounterResult {
    /// Every `:ok` read, in the order they completed.
    pub reads: Vec<Read>,
}

impl CounterResult {
    pub fn validity(&self) -> Validity {
        valid_if(self.errors().next().is_none())
    }

    /// The reads outside their bounds.
    pub fn errors(&self) -> impl Iterator<Item = &Read> {
        self.reads.iter().filter(|r| !r.in_bounds())
    }

    pub fn anomaly_types(&self) -> Vec<&'static str> {
        let below = self.errors().any(|r| r.value < r.lower);
        let above = self.errors().any(|r| r.value > r.upper);
        named(&[
            (below, "read-below-lower-bound"),
            (above, "read-above-upper-bound"),
        ])
    }
}

fn int(v: CheckerValue) -> i128 {
    match v {
        CheckerValue::Int(n) => i128::from(n),
        _ => 0,
    }
}

pub fn check(h: &History) -> CounterResult {
    let ops = &h.checker_ops;
    let (mut lower, mut upper) = (0i128, 0i128);
    // The lower bound of each read in flight, by op.
    let mut pending = vec![0i128; ops.len()];
    let mut reads = Vec::new();
    for (id, i, invocation) in events(ops) {
        let o = &ops[i];
        match (o.f, invocation) {
            (CheckerF::Read, true) => pending[i] = lower,
            (CheckerF::Read, false) if o.status == Status::Committed => reads.push(Read {
                op: id,
                lower: pending[i],
                value: int(o.completed),
                upper,
            }),
            // An add may take effect from its invocation on, unless it failed.
            (CheckerF::Add, true) if o.status != Status::Aborted => upper += int(o.invoked),
            (CheckerF::Add, false) if o.status == Status::Committed => {
                let value = match o.completed {
                    CheckerValue::Nil => o.invoked,
                    v => v,
                };
                lower += int(value);
            }
            _ => {}
        }
    }
    CounterResult { reads }
}
