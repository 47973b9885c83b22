//! PolySI's pruning: sides that close a cycle with the known graph are
//! impossible, so the other side of their constraint is forced, round after
//! round, with reachability asked of `Reach`.

use super::reach::{Reach, Search};
use super::trace::{Conflict, Trace};
use super::{Problem, Stats};
use crate::progress::{Count, Unit};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// A round's questions are split over every core from this many
/// constraints on (below, a thread costs more than it saves).
const PARALLEL_FROM: usize = 1 << 16;

/// Constraints a thread takes at a time (and between deadline checks).
const CHUNK: usize = 1024;

/// PolySI's pruning: a side whose edge closes a cycle with the known graph
/// is impossible, so the other side is forced and joins the known graph.
/// Rounds repeat until one forces almost nothing; forced sides' arcs are
/// appended to `forced_arcs`. Returns the constraints behind a violation when
/// some constraint has both sides impossible or a round's forced edges close
/// a cycle (the caller checks the last round's).
pub(super) fn prune(
    p: &Problem,
    forced_arcs: &mut Vec<(u32, u32)>,
    forced: &mut [Option<usize>],
    trace: &mut Trace,
    deadline: Option<Instant>,
    stats: &mut Stats,
) -> Result<Option<Vec<usize>>, String> {
    let total = p.constraints();
    // The index costs O((n + m) · k) a round; with few open constraints per
    // node the bounded searches cost less (1M list-append transactions, 59k
    // constraints: pruning 2.0–2.4 s with them, 3.0–4.7 s with the index;
    // the second round on 1M blind-write transactions, 1,340 open: 30 ms
    // with them, 190 ms with the index).
    let indexed_for = |open: usize| open * 8 >= p.nodes();
    loop {
        stats.prune_rounds += 1;
        if let Some(why) = super::over_budget() {
            return Err(why);
        }
        let Some(reach) = Reach::new(p.nodes(), p.known_arcs(forced_arcs)) else {
            return Ok(Some(trace.suspects(
                p,
                forced_arcs,
                forced,
                Conflict::Cycle,
            )));
        };
        let open = forced.iter().filter(|f| f.is_none()).count();
        let pruned = forced.len() - open;
        crate::progress::report(Count::of(pruned, forced.len(), Unit::Constraints));
        let reach = if indexed_for(open) {
            reach.indexed(p)
        } else {
            reach.with_depth_ranks()
        };
        let threads = crate::limits::threads_for(open, PARALLEL_FROM);
        let judged = judge(p, &reach, forced, deadline, threads, CHUNK)?;
        let mut newly = 0;
        // A constraint forced before is judged 0: it forces nothing again.
        if let Some(c) = judged.bad.iter().position(|&bad| bad == BOTH_BAD) {
            let conflict = Conflict::BothSides(c);
            return Ok(Some(trace.suspects(p, forced_arcs, forced, conflict)));
        }
        for (c, &bad) in judged.bad.iter().enumerate() {
            if let Some(s) = forced_side(bad) {
                forced[c] = Some(s);
                trace.force(c);
                newly += 1;
            }
        }
        trace.end_round(&judged.owners);
        forced_arcs.extend_from_slice(&judged.arcs);
        match propagate_clauses(p, forced, forced_arcs, trace) {
            Ok(n) => newly += n,
            Err(clause) => {
                let conflict = Conflict::Clause(clause);
                return Ok(Some(trace.suspects(p, forced_arcs, forced, conflict)));
            }
        }
        // PolySI stops once a round forces at most 1% of the constraints:
        // past that, rounds cost more than the solver needs for the rest.
        if newly == 0 || newly * 100 <= total {
            return Ok(None);
        }
    }
}

/// Unit propagation over the problem's clauses: a clause whose literals
/// but one are false (their constraints forced to the other side) forces
/// that one, whose arcs join `forced_arcs`; repeated until nothing more is
/// forced. A read of a repeated value left with one possible writer gets
/// it, and its edges then prune the version order like any known edge.
/// The number of constraints forced, or the clause whose every literal is
/// false (no resolution satisfies it).
fn propagate_clauses(
    p: &Problem,
    forced: &mut [Option<usize>],
    forced_arcs: &mut Vec<(u32, u32)>,
    trace: &mut Trace,
) -> Result<usize, usize> {
    let mut newly = 0;
    loop {
        let before = newly;
        for (i, clause) in p.clauses.iter().enumerate() {
            // The first two open literals, if the clause is not satisfied.
            let two = open_literals(clause, forced).map(|mut open| (open.next(), open.next()));
            let Some(two) = two else {
                continue;
            };
            match two {
                (None, _) => return Err(i),
                (Some((c, s)), None) => {
                    let (c, s) = (c as usize, s as usize);
                    forced[c] = Some(s);
                    let arcs = forced_arcs.len();
                    p.push_arcs(p.side(c, s), forced_arcs);
                    trace.clause(c, i, forced_arcs.len() - arcs);
                    newly += 1;
                }
                _ => {}
            }
        }
        if newly == before {
            return Ok(newly);
        }
    }
}

/// The literals of `clause` whose constraints are not `forced`, or `None`
/// when a forced side satisfies it (the others are false).
pub(super) fn open_literals<'c>(
    clause: &'c [(u32, u8)],
    forced: &'c [Option<usize>],
) -> Option<impl Iterator<Item = (u32, u8)> + 'c> {
    let satisfied = (clause.iter()).any(|&(c, s)| forced[c as usize] == Some(s as usize));
    let open = clause
        .iter()
        .filter(|&&(c, _)| forced[c as usize].is_none());
    (!satisfied).then(|| open.copied())
}

/// A round's answers.
#[derive(Debug, PartialEq)]
pub(super) struct Judged {
    /// Per constraint, which sides close a cycle with the known graph:
    /// bit 0 side 0, bit 1 side 1 (0 for a constraint already forced).
    pub(super) bad: Vec<u8>,
    /// The arcs of the sides this round forces (one side bad, the other
    /// not) that the known graph does not already imply, in constraint
    /// order. Nearly every forced arc is implied (99.3% on 1M blind-write
    /// transactions: the other side is bad because its reverse path
    /// exists), and leaving them out keeps the next rounds' graphs, and
    /// the solver's, the size of the first.
    pub(super) arcs: Vec<(u32, u32)>,
    /// Per arc, the constraint it is of.
    pub(super) owners: Vec<u32>,
}

/// Judges the constraints not yet `forced` against the known graph `reach`
/// answers for. The questions are independent, so `threads` ask them at
/// once, `chunk` constraints at a time; the answers are the same for any
/// split.
pub(super) fn judge(
    p: &Problem,
    reach: &Reach,
    forced: &[Option<usize>],
    deadline: Option<Instant>,
    threads: usize,
    chunk: usize,
) -> Result<Judged, String> {
    let mut bad = vec![0u8; forced.len()];
    let mut arcs: Vec<Vec<((u32, u32), u32)>> = vec![Vec::new(); forced.len().div_ceil(chunk)];
    let chunks = Mutex::new(bad.chunks_mut(chunk).zip(arcs.iter_mut()).enumerate());
    let late = AtomicBool::new(false);
    let worker = || {
        let mut search = Search::default();
        loop {
            // A poisoned lock still hands out the chunks left.
            let next = chunks.lock().unwrap_or_else(|e| e.into_inner()).next();
            let Some((i, (out, new_arcs))) = next else {
                break;
            };
            if late.load(Ordering::Relaxed) || deadline.is_some_and(|d| Instant::now() >= d) {
                late.store(true, Ordering::Relaxed);
                break;
            }
            for (j, slot) in out.iter_mut().enumerate() {
                let c = i * chunk + j;
                if forced[c].is_none() {
                    let mut side = |s: usize| closes_cycle(p, reach, &mut search, c, s) as u8;
                    *slot = side(0) | side(1) << 1;
                    if let Some(s) = forced_side(*slot) {
                        push_new_arcs(p, reach, &mut search, c, s, new_arcs);
                    }
                }
            }
        }
    };
    std::thread::scope(|s| {
        let handles: Vec<_> = (1..threads).map(|_| s.spawn(worker)).collect();
        worker();
        for h in handles {
            if let Err(panic) = h.join() {
                std::panic::resume_unwind(panic);
            }
        }
    });
    match late.into_inner() {
        true => Err("timeout".into()),
        false => {
            let (arcs, owners) = arcs.concat().into_iter().unzip();
            Ok(Judged { bad, arcs, owners })
        }
    }
}

/// A judgement with both sides bad: a violation.
const BOTH_BAD: u8 = 3;

/// The side a judgement forces: the other side of its one bad side.
fn forced_side(bad: u8) -> Option<usize> {
    match bad {
        1 => Some(1),
        2 => Some(0),
        _ => None,
    }
}

/// Appends the arcs of side `s` of constraint `c` that `reach` does not
/// already imply, each with `c`.
fn push_new_arcs(
    p: &Problem,
    reach: &Reach,
    search: &mut Search,
    c: usize,
    s: usize,
    out: &mut Vec<((u32, u32), u32)>,
) {
    for &e in p.side(c, s) {
        p.arcs(e, |a, b| {
            if !reach.reaches(search, a, b) {
                out.push(((a, b), c as u32));
            }
        });
    }
}

/// Whether side `s` of constraint `c` has an edge whose arcs close a cycle
/// with the known graph.
fn closes_cycle(p: &Problem, reach: &Reach, search: &mut Search, c: usize, s: usize) -> bool {
    p.side(c, s).iter().any(|&e| {
        let mut hit = false;
        p.arcs(e, |a, b| hit = hit || reach.reaches(search, b, a));
        hit
    })
}
