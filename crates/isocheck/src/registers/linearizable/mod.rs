//! Complete linearizability of registers: the general search behind the
//! value-chain check of `registers`. That check decides keys whose written
//! values tell the writes apart; the keys it leaves undecided (a value
//! written twice, too many blind writes) are decided here by
//! [`search::search`], one key at a time (linearizability is local:
//! P-compositionality) and in parallel across keys. A decided verdict of
//! the chain check is never revisited.
//!
//! The model is Knossos's `cas-register` (and `register`, without `:cas`):
//! one value per key, `nil` at first; a `:read` returns it, a `:write` sets
//! it, a `:cas [old new]` sets `new` if it holds `old`. Knossos's `mutex` is
//! the same register on two states, free at first: an `:acquire` is a cas
//! from free to held, a `:release` from held to free (whoever holds it). As in the chain
//! check, `:fail` ops never took effect and are left out, `:info` (or
//! unfinished) ops may take effect at any time after their invocation or
//! never, and reads that did not complete `:ok` carry nothing.

pub mod search;

use super::{self as registers, RegId, RegisterAnalysis, Violation};
use crate::history::{RegisterF, RegisterOp, Status, Val};
use crate::limits::{self, Stage};
use search::{Call, Counterexample};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Decides by search every key `out` leaves undecided: each becomes
/// linearizable (its undecided entries dropped) or a
/// [`Violation::NoLinearization`].
pub fn settle(regs: &[RegisterOp], out: &mut RegisterAnalysis) {
    let mut keys: Vec<Val> = out.undecided.iter().map(|u| u.key()).collect();
    keys.dedup();
    search_keys(regs, keys, out);
}

/// Decides every key by search (a mutex's: see [`crate::registers::check`]).
pub fn search_every_key(regs: &[RegisterOp]) -> RegisterAnalysis {
    let mut seen = std::collections::HashSet::new();
    let keys: Vec<Val> = regs
        .iter()
        .map(|o| o.key)
        .filter(|&k| seen.insert(k))
        .collect();
    let mut out = RegisterAnalysis {
        keys: keys.len(),
        ..RegisterAnalysis::default()
    };
    search_keys(regs, keys, &mut out);
    out
}

/// Searches `keys` in parallel; each becomes linearizable (its undecided
/// entries dropped) or a [`Violation::NoLinearization`].
fn search_keys(regs: &[RegisterOp], keys: Vec<Val>, out: &mut RegisterAnalysis) {
    if keys.is_empty() {
        return;
    }
    let mut ops: HashMap<Val, Vec<RegId>> = keys.iter().map(|&k| (k, Vec::new())).collect();
    for (i, o) in regs.iter().enumerate() {
        if let Some(ids) = ops.get_mut(&o.key) {
            ids.push(i as RegId);
        }
    }
    let jobs: Vec<(Val, Vec<RegId>)> = keys
        .into_iter()
        .map(|k| (k, ops.remove(&k).unwrap_or_default()))
        .collect();
    let results = in_parallel(&jobs, |(_, ids)| check_key(regs, ids));
    for ((key, _), result) in jobs.iter().zip(results) {
        out.undecided.retain(|u| u.key() != *key);
        if let Err(c) = result {
            out.violations.push(Violation::NoLinearization {
                key: *key,
                prefix: c.prefix,
                op: c.op,
                states: c.states,
            });
        }
    }
}

/// Whether an op never changes the register: a read, or a cas that sets
/// the value it expects.
fn pure(o: &RegisterOp) -> bool {
    registers::written(o).is_none()
}

/// The register ops of one key that the search places: `:fail` ops took no
/// effect, and pure ops that did not complete `:ok` changed nothing and
/// returned nothing.
fn placed(o: &RegisterOp) -> bool {
    o.status == Status::Committed || (o.status == Status::Indeterminate && !pure(o))
}

/// One key's ops (positions in `regs`): `Ok` when linearizable, else the
/// counterexample with ops and states as [`RegId`]s and values.
pub fn check_key(regs: &[RegisterOp], ids: &[RegId]) -> Result<(), Counterexample<RegId, Val>> {
    let ids: Vec<RegId> = ids
        .iter()
        .copied()
        .filter(|&i| placed(&regs[i as usize]))
        .collect();
    let op = |i: usize| &regs[ids[i] as usize];
    // Values as dense numbers, the initial one first; kinds of optional ops
    // likewise.
    let init = ids
        .first()
        .map_or(Val::NIL, |&i| initial(&regs[i as usize]));
    let mut values: Vec<Val> = vec![init];
    let mut number: HashMap<Val, u32> = HashMap::from([(init, 0)]);
    let mut num = |v: Val| {
        *number.entry(v).or_insert_with(|| {
            values.push(v);
            values.len() as u32 - 1
        })
    };
    let steps: Vec<(RegisterF, u32, u32)> = (0..ids.len())
        .map(|i| (op(i).f, num(op(i).value), num(op(i).new)))
        .collect();
    let mut kinds: HashMap<(RegisterF, u32, u32), u32> = HashMap::new();
    let calls: Vec<Call> = (0..ids.len())
        .map(|i| {
            let o = op(i);
            let n = kinds.len() as u32;
            Call {
                invoke: registers::inv(o),
                complete: o
                    .completion
                    .filter(|_| o.status == Status::Committed)
                    .map(i64::from),
                kind: *kinds.entry(steps[i]).or_insert(n),
                pure: pure(o),
            }
        })
        .collect();
    search::search(&calls, 0, |state, i| step(state, steps[i])).map_err(|c| {
        let mut states: Vec<Val> = c.states.into_iter().map(|s| values[s as usize]).collect();
        states.sort();
        Counterexample {
            prefix: c.prefix.into_iter().map(|i| ids[i]).collect(),
            op: ids[c.op],
            states,
        }
    })
}

/// The initial value of the register or mutex `o` acts on: `nil`, or the
/// mutex's free state.
fn initial(o: &RegisterOp) -> Val {
    match o.f {
        RegisterF::Acquire => o.value,
        RegisterF::Release => o.new,
        _ => Val::NIL,
    }
}

/// The cas-register's sequential specification on value numbers; a mutex
/// op is a compare-and-set between its two states (Knossos's mutex: an
/// acquire needs it free, a release needs it held).
fn step(state: u32, (f, value, new): (RegisterF, u32, u32)) -> Option<u32> {
    match f {
        RegisterF::Read => (state == value).then_some(state),
        RegisterF::Write => Some(value),
        RegisterF::Cas | RegisterF::Acquire | RegisterF::Release => (state == value).then_some(new),
    }
}

/// `f` on every job, on as many threads as there are cores (each under the
/// check's limits: a stop in one is the check's stop), results in order.
fn in_parallel<J: Sync, R: Send>(jobs: &[J], f: impl Fn(&J) -> R + Sync) -> Vec<R> {
    let threads = crate::limits::cores();
    if jobs.len() < 2 || threads < 2 {
        return jobs.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let deadline = limits::deadline();
    let worker = || {
        let mut done = Vec::new();
        let timeout = deadline.map(|d| d.saturating_duration_since(std::time::Instant::now()));
        let run = limits::run(timeout, || {
            limits::enter(Stage::Registers);
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                done.push((i, f(job)));
            }
        });
        run.map(|()| done)
    };
    let mut results: Vec<Option<R>> = jobs.iter().map(|_| None).collect();
    let finished: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads.min(jobs.len()))
            .map(|_| s.spawn(worker))
            .collect();
        handles.into_iter().map(|h| h.join()).collect()
    });
    for r in finished {
        match r {
            Ok(Ok(done)) => {
                for (i, x) in done {
                    results[i] = Some(x);
                }
            }
            Ok(Err(stop)) => std::panic::resume_unwind(Box::new(stop)),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }
    results.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests;
