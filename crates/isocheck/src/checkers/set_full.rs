//! Jepsen's set-full checker (`jepsen.checker/set-full`): `:add`s of single
//! elements and `:read`s of the whole set throughout. Per element (from
//! its add's invocation on), the element is *known* once its add completes
//! `:ok` or a read shows it; it is *stable* when the last read (by
//! invocation) that showed it began after the last that did not, and *lost*
//! when, once known, a read that began after the last one showing it
//! missed it; otherwise it was never read. A stable element a read began
//! to miss after it was known is *stale*. An element twice in one read is
//! *duplicated*.
//!
//! One departure from Jepsen: its fold keeps a read's element counts
//! `(< v 1)`, which no count is, so it never reports duplicates; here an
//! element is duplicated when a read holds it more than once, as its
//! documentation and keys (`:duplicated-count`, `:duplicated`) intend.

use super::{element, elements, events, named, value_order};
use crate::history::{CheckerF, History, OpId, Status, Val};
use crate::validity::Validity;
use std::collections::HashMap;

/// What became of one element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Stable,
    Lost,
    NeverRead,
}

impl Outcome {
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Stable => "stable",
            Outcome::Lost => "lost",
            Outcome::NeverRead => "never-read",
        }
    }
}

/// One element's timeline and its result (Jepsen's `set-full-element-results`).
#[derive(Clone, Copy, Debug)]
pub struct Element {
    pub element: Val,
    /// The add's `:ok` completion or the first read completion showing it,
    /// whichever came first.
    pub known: Option<OpId>,
    /// Invocations of the last read that showed it and of the last that did not.
    pub last_present: Option<OpId>,
    pub last_absent: Option<OpId>,
    pub outcome: Outcome,
    /// Milliseconds from known to stable, or to lost.
    pub stable_latency: Option<i64>,
    pub lost_latency: Option<i64>,
}

#[derive(Debug)]
pub struct SetFullResult {
    /// Every element an add was invoked for, sorted.
    pub elements: Vec<Element>,
    /// Elements read more than once in one read, with the most copies one
    /// read held, sorted.
    pub duplicated: Vec<(Val, usize)>,
    /// Whether stale reads make the history invalid.
    pub linearizable: bool,
}

impl SetFullResult {
    pub fn with(&self, outcome: Outcome) -> impl Iterator<Item = &Element> {
        self.elements.iter().filter(move |e| e.outcome == outcome)
    }

    /// Stable elements some read missed after they were known.
    pub fn stale(&self) -> impl Iterator<Item = &Element> {
        self.with(Outcome::Stable)
            .filter(|e| e.stable_latency.is_some_and(|l| l > 0))
    }

    /// The eight stalest, stalest first (ties: the later element first, as
    /// Jepsen's reversed stable sort gives them).
    pub fn worst_stale(&self) -> Vec<&Element> {
        let mut stale: Vec<&Element> = self.stale().collect();
        stale.sort_by_key(|e| e.stable_latency);
        stale.into_iter().rev().take(8).collect()
    }

    pub fn validity(&self) -> Validity {
        let set = if self.with(Outcome::Lost).next().is_some() {
            Validity::False
        } else if self.with(Outcome::Stable).next().is_none() {
            Validity::Unknown
        } else if self.linearizable && self.stale().next().is_some() {
            Validity::False
        } else {
            Validity::True
        };
        match self.duplicated.is_empty() {
            true => set,
            false => Validity::False,
        }
    }

    pub fn anomaly_types(&self) -> Vec<&'static str> {
        let stale = self.stale().next().is_some();
        named(&[
            (self.with(Outcome::Lost).next().is_some(), "lost"),
            (!self.duplicated.is_empty(), "duplicated"),
            (self.linearizable && stale, "stale"),
            (
                self.with(Outcome::Stable).next().is_none(),
                "no-stable-element",
            ),
        ])
    }
}

/// An element's state while the history is folded.
#[derive(Clone, Copy)]
struct State {
    element: Val,
    known: Option<OpId>,
    last_present: Option<OpId>,
    last_absent: Option<OpId>,
}

/// The later of two reads by their invocations' `:index`.
fn latest(h: &History, old: Option<OpId>, new: OpId) -> Option<OpId> {
    match old {
        Some(o) if h.op(o).index >= h.op(new).index => Some(o),
        _ => Some(new),
    }
}

pub fn check(h: &History, linearizable: bool) -> SetFullResult {
    let ops = &h.checker_ops;
    let mut states: Vec<State> = Vec::new();
    let mut slot: HashMap<Val, usize> = HashMap::new();
    // `stamp[s] == i`: element `s` is in read `i` (the read at hand).
    let mut stamp = Vec::<usize>::new();
    let mut duplicated: HashMap<Val, usize> = HashMap::new();
    for (id, i, invocation) in events(ops) {
        let o = &ops[i];
        match (o.f, invocation) {
            (CheckerF::Add, true) => {
                let Some(x) = element(&o.invoked) else {
                    continue;
                };
                let fresh = State {
                    element: x,
                    known: None,
                    last_present: None,
                    last_absent: None,
                };
                match slot.get(&x) {
                    Some(&s) => states[s] = fresh,
                    None => {
                        slot.insert(x, states.len());
                        states.push(fresh);
                        stamp.push(usize::MAX);
                    }
                }
            }
            (CheckerF::Add, false) if o.status == Status::Committed => {
                let x = element(&o.completed).or(element(&o.invoked));
                if let Some(&s) = x.and_then(|x| slot.get(&x)) {
                    states[s].known = states[s].known.or(Some(id));
                }
            }
            (CheckerF::Read, false) if o.status == Status::Committed => {
                let read = elements(h, &o.completed);
                let iop = o.invoke.unwrap_or(id);
                for &x in read {
                    if let Some(&s) = slot.get(&x) {
                        stamp[s] = i;
                    }
                }
                count_duplicates(read, &mut duplicated);
                for (s, st) in states.iter_mut().enumerate() {
                    if stamp[s] == i {
                        st.known = st.known.or(Some(id));
                        st.last_present = latest(h, st.last_present, iop);
                    } else {
                        st.last_absent = latest(h, st.last_absent, iop);
                    }
                }
            }
            _ => {}
        }
    }
    let mut elements: Vec<Element> = states.iter().map(|s| result(h, s)).collect();
    elements.sort_by(|a, b| value_order(h, a.element, b.element));
    let mut duplicated: Vec<(Val, usize)> = duplicated.into_iter().filter(|d| d.1 > 1).collect();
    duplicated.sort_by(|a, b| value_order(h, a.0, b.0));
    SetFullResult {
        elements,
        duplicated,
        linearizable,
    }
}

/// Keeps, per element, the most copies of it one read held.
fn count_duplicates(read: &[Val], most: &mut HashMap<Val, usize>) {
    let mut counts: HashMap<Val, usize> = HashMap::new();
    for &x in read {
        *counts.entry(x).or_default() += 1;
    }
    for (x, n) in counts {
        let m = most.entry(x).or_default();
        *m = (*m).max(n);
    }
}

/// Jepsen's `set-full-element-results` for one element.
fn result(h: &History, s: &State) -> Element {
    let index = |id: Option<OpId>| id.map_or(-1, |id| h.op(id).index);
    let time = |id: OpId| h.op(id).time().unwrap_or(0);
    let stable = s.last_present.is_some() && index(s.last_absent) < index(s.last_present);
    let lost = s.known.is_some()
        && s.last_absent.is_some()
        && index(s.last_present) < index(s.last_absent)
        && index(s.known) < index(s.last_absent);
    let after = |id: Option<OpId>| id.map_or(0, |id| time(id).saturating_add(1));
    // Nanoseconds to whole milliseconds, as `(long (nanos->ms x))` truncates.
    let latency = |from: i64| {
        let known = s.known.map_or(0, time);
        from.saturating_sub(known).max(0) / 1_000_000
    };
    let outcome = match (stable, lost) {
        (true, _) => Outcome::Stable,
        (false, true) => Outcome::Lost,
        (false, false) => Outcome::NeverRead,
    };
    Element {
        element: s.element,
        known: s.known,
        last_present: s.last_present,
        last_absent: s.last_absent,
        outcome,
        stable_latency: stable.then(|| latency(after(s.last_absent))),
        lost_latency: lost.then(|| latency(after(s.last_present))),
    }
}
