//! Jepsen's counter checker (`checkers::counter`) over a stream. A read's
//! lower bound (the adds acknowledged before it was invoked) is known when
//! it is invoked; its upper bound (the adds invoked before it completed,
//! but those that fail) is known only once each add under way at its
//! completion has completed. So a read below its lower bound is reported
//! at its completion; one above every upper bound the adds under way
//! allow is reported then too, one within the bound those adds' failing
//! would leave is done with, and any other waits, holding its value and
//! what is known of its bound, until the adds it waits on complete (an
//! add never completed counts, as offline: indeterminate).

use super::{finding, Pair};
use crate::checkers::{named, valid_if};
use crate::history::{CheckerF, CheckerValue, Status};
use crate::infer::util::FxMap;
use crate::validity::Validity;
use std::collections::BTreeMap;

/// A read waiting for adds under way at its completion.
struct Waiting {
    /// Its completion's `:index`.
    index: i64,
    value: i128,
    /// The adds invoked before it completed: those with a lower number.
    before: u64,
    /// The sum of those of them that completed and did not fail.
    known: i128,
}

/// What each process has under way: a read's lower bound, or an add (its
/// number, in invocation order, and value).
enum UnderWay {
    Read(i128),
    Add(u64, i128),
}

#[derive(Default)]
pub(super) struct Counter {
    /// The sum of the adds acknowledged so far.
    lower: i128,
    /// The sum of the adds that completed and did not fail.
    resolved: i128,
    /// Adds under way, by number: their values.
    adds: BTreeMap<u64, i128>,
    next_add: u64,
    under_way: FxMap<i64, UnderWay>,
    waiting: Vec<Waiting>,
    below: bool,
    above: bool,
    pub found: Vec<super::Finding>,
}

fn int(v: CheckerValue) -> i128 {
    match v {
        CheckerValue::Int(n) => i128::from(n),
        _ => 0,
    }
}

impl Counter {
    pub fn invoke(&mut self, process: i64, f: CheckerF, invoked: CheckerValue) {
        let what = match f {
            CheckerF::Read => UnderWay::Read(self.lower),
            CheckerF::Add => {
                let n = self.next_add;
                self.next_add += 1;
                self.adds.insert(n, int(invoked));
                UnderWay::Add(n, int(invoked))
            }
            _ => return,
        };
        self.under_way.insert(process, what);
    }

    pub fn complete(&mut self, p: &Pair<'_>) {
        let under_way = self.under_way.remove(&p.process);
        match (p.f, under_way) {
            (CheckerF::Read, lower) if p.status == Status::Committed => {
                let lower = match lower {
                    Some(UnderWay::Read(l)) => l,
                    _ => 0,
                };
                self.read(p.index, lower, int(p.completed));
            }
            (CheckerF::Add, under_way) => {
                if p.status == Status::Committed {
                    let value = match p.completed {
                        CheckerValue::Nil => p.invoked,
                        v => v,
                    };
                    self.lower += int(value);
                }
                if let Some(UnderWay::Add(n, v)) = under_way {
                    self.resolve(n, v, p.status != Status::Aborted, p.index);
                }
            }
            _ => {}
        }
    }

    /// An `:ok` read of `value`, completed at op `index`.
    fn read(&mut self, index: i64, lower: i128, value: i128) {
        if value < lower {
            self.below = true;
            let detail = format!("read {value}, below {lower}, the adds acknowledged before it");
            self.found
                .push(finding("read-below-lower-bound", index, index, detail));
        }
        let w = Waiting {
            index,
            value,
            before: self.next_add,
            known: self.resolved,
        };
        if !self.judge(&w, index) {
            self.waiting.push(w);
        }
    }

    /// Add `n` of `value` completed at op `at` (`counts`: it did not fail).
    fn resolve(&mut self, n: u64, value: i128, counts: bool, at: i64) {
        self.adds.remove(&n);
        if counts {
            self.resolved += value;
        }
        let mut waiting = std::mem::take(&mut self.waiting);
        for w in &mut waiting {
            if counts && n < w.before {
                w.known += value;
            }
        }
        waiting.retain(|w| !self.judge(w, at));
        self.waiting = waiting;
    }

    /// Whether read `w`'s upper bound is decided (at op `at`): within it
    /// whatever the adds under way do, or above it whatever they do
    /// (reported).
    fn judge(&mut self, w: &Waiting, at: i64) -> bool {
        if w.value <= w.known {
            return true;
        }
        let most = w.known + self.adds.range(..w.before).map(|(_, v)| v).sum::<i128>();
        if w.value <= most {
            return false;
        }
        self.above = true;
        let detail = format!(
            "read {}, above {most}, the most the adds invoked before it sum to",
            w.value
        );
        let f = finding("read-above-upper-bound", at, w.index, detail);
        self.found.push(f);
        true
    }

    /// The stream ended: adds under way count (never completed, they may
    /// have taken effect), which decides every read still waiting.
    pub fn finish(&mut self) -> (Validity, Vec<&'static str>) {
        let mut waiting = std::mem::take(&mut self.waiting);
        for w in &mut waiting {
            w.known += self.adds.range(..w.before).map(|(_, v)| v).sum::<i128>();
        }
        self.adds.clear();
        for w in &waiting {
            self.judge(w, i64::MIN);
        }
        let names = named(&[
            (self.below, "read-below-lower-bound"),
            (self.above, "read-above-upper-bound"),
        ]);
        (valid_if(names.is_empty()), names)
    }
}
