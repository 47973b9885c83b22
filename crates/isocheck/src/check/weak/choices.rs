//! The levels where some read's writer is a choice: a read of a value
//! written more than once that several writes could have given
//! ([`crate::infer::AmbiguousRead`]). The saturation takes one writer per
//! read, so the levels are decided once per assignment of a writer to each
//! such read, the certain reads keeping theirs: a level holds if some
//! assignment satisfies it, and is violated if every one violates it. A
//! violation is shown as the first assignment has it, with the writers it
//! chose ([`super::Violation::chosen`]).

use super::{violations, weakest, Chosen, Level, Violation};
use crate::history::{History, TxnId};
use crate::infer::AmbiguousRead;
use crate::limits;

/// The most assignments of writers the levels are decided over; beyond,
/// they are not checked. Each assignment is one check of the levels over
/// the whole history, and their number, the product of each read's
/// possible writers, is exponential in the reads: 4,096 is twelve reads of
/// two writers each. The worst case, a level every assignment violates,
/// is that many saturations: 10 s for read atomic on a history of 10,000
/// transactions (release build), a time `--timeout` bounds. A level that
/// holds stops being tried at the first assignment satisfying it, so most
/// histories take one or a few.
pub const MAX_ASSIGNMENTS: u64 = 4096;

/// How many assignments of a writer to each of `reads` there are, at most
/// `u64::MAX`.
pub fn assignments(reads: &[AmbiguousRead]) -> u64 {
    (reads.iter()).fold(1, |n: u64, r| n.saturating_mul(r.writers.len() as u64))
}

/// The violations of the weakest of `levels` that every assignment of a
/// writer to each of `reads` violates (each as the first assignment has
/// it), given inference's `sources` for the other reads
/// ([`crate::infer::Inference::read_sources`], which `reads`' writers are
/// written into); `reads` have at most [`MAX_ASSIGNMENTS`] assignments.
pub fn check_over_choices(
    history: &History,
    levels: &[Level],
    sources: &mut [TxnId],
    reads: &[AmbiguousRead],
) -> Vec<Violation> {
    // The levels every assignment so far violates.
    let mut open = levels.to_vec();
    let mut first = Vec::new();
    let count = assignments(reads);
    for i in 0..count {
        if open.is_empty() {
            break;
        }
        limits::tick();
        let reads_from = assign(i, reads, sources);
        let violated = violations(history, &open, sources);
        open.retain(|&l| violated.iter().any(|v| v.level == l));
        if i == 0 {
            let chosen = Chosen {
                assignments: count,
                reads_from,
            };
            first = (violated.into_iter())
                .map(|v| Violation {
                    chosen: Some(chosen.clone()),
                    ..v
                })
                .collect();
        }
    }
    first.retain(|v| open.contains(&v.level));
    weakest(first)
}

/// Gives each of `reads` (and its rereads) in `sources` its writer in
/// assignment `i`, the reads' choices as the digits of `i`, the first read
/// the lowest; the `(reader, writer)` of each, each pair once.
fn assign(mut i: u64, reads: &[AmbiguousRead], sources: &mut [TxnId]) -> Vec<(TxnId, TxnId)> {
    let mut chosen = Vec::new();
    for r in reads {
        let n = (r.writers.len() as u64).max(1);
        let Some(&writer) = usize::try_from(i % n).ok().and_then(|at| r.writers.get(at)) else {
            continue;
        };
        i /= n;
        for &mop in std::iter::once(&r.mop).chain(&r.rereads) {
            if let Some(source) = sources.get_mut(mop as usize) {
                *source = writer;
            }
        }
        if !chosen.contains(&(r.txn, writer)) {
            chosen.push((r.txn, writer));
        }
    }
    chosen
}
