//! Deciding one model when the version order is uncertain (PolySI, SPEC §3):
//! a known graph, one constraint per transaction pair with two sides, PolySI's
//! pruning, and a lazy SAT loop that blocks the cycles of each
//! candidate resolution until one is acyclic or none can be.
//!
//! A model is the acyclicity of its edges; snapshot-isolation models use the
//! extension `A ; rw?` of their non-rw edges `A`. Both are decided on a
//! *product graph*: with the extension every transaction has two states
//! (arrived by an rw hop or not), an A edge leads into the "after A" state
//! from either state and an rw edge only leaves it, so that a cycle of the
//! product is exactly a cycle of `A ∪ A;rw`. Without it, one state.
//!
//! `problem.rs` is the problem, `prune.rs` PolySI's pruning, `reach.rs` and
//! `chains.rs` reachability in the known graph, `engine.rs` and
//! `propagate.rs` the solvers; this file strings them together.

mod chains;
mod engine;
mod parts;
mod problem;
#[cfg(feature = "cadical")]
mod propagate;
mod prune;
mod reach;
mod trace;

use super::sat::{Lit, Outcome};
use crate::limits;
use engine::Engine;
use parts::Split;
pub use parts::MIN_BATCH;
pub use problem::{Clause, Clauses, Decision, Edge, Problem, Settings, Stats};
use prune::prune;
use reach::Reach;
use std::time::Instant;
use trace::{Conflict, Trace};

const NONE: u32 = u32::MAX;

/// A decision with its figures. A violation comes with the constraints it
/// was found with: a core lies among them.
#[derive(Clone, Debug)]
pub struct Decided {
    pub decision: Decision,
    pub stats: Stats,
    pub suspects: Vec<usize>,
}

impl Decided {
    fn violated(stats: Stats, suspects: Vec<usize>) -> Decided {
        Decided {
            decision: Decision::Violated,
            stats,
            suspects,
        }
    }

    fn stopped(stats: Stats, why: String) -> Decided {
        Decided {
            decision: Decision::Stopped(why),
            stats,
            suspects: Vec::new(),
        }
    }
}

/// Whether the memory in use is over the check's budget, as a reason to
/// stop: the solver's structures are checked before the next is built
/// (this code may run on threads that cannot poll).
fn over_budget() -> Option<String> {
    limits::over_budget().then(|| limits::MEMORY_LIMIT.to_string())
}

/// Decides the problem. A violation comes with the constraints it was found
/// with (every constraint when the solver found it; those pruning forced
/// when pruning did): a core lies among them.
pub fn decide(p: &Problem, settings: Settings) -> Decided {
    let mut stats = Stats {
        constraints: p.constraints(),
        ..Stats::default()
    };
    let started = Instant::now();
    // The arcs of the sides pruning forces, after the known edges' arcs.
    let mut forced_arcs: Vec<(u32, u32)> = Vec::new();
    let mut forced: Vec<Option<usize>> = vec![None; p.constraints()];
    let mut trace = Trace::new(p.constraints());
    if settings.pruning {
        match prune(
            p,
            &mut forced_arcs,
            &mut forced,
            &mut trace,
            settings.deadline,
            &mut stats,
        ) {
            Ok(None) => {}
            Ok(Some(suspects)) => {
                stats.prune = started.elapsed();
                return Decided::violated(stats, suspects);
            }
            Err(stop) => {
                stats.prune = started.elapsed();
                return Decided::stopped(stats, stop);
            }
        }
    }
    stats.prune = started.elapsed();
    stats.pruned = forced.iter().filter(|f| f.is_some()).count();
    let open: Vec<usize> = (0..p.constraints())
        .filter(|&c| forced[c].is_none())
        .collect();
    // What pruning forced is no choice: a clause it falsifies wholly leaves
    // no resolution (a core is then sought among every constraint).
    let Some(clauses) = open_clauses(p, &forced) else {
        return Decided::violated(stats, (0..p.constraints()).collect());
    };
    let encoding = Instant::now();
    // The loop only looks for cycles through open constraints' edges, so
    // the known graph (with what pruning forced) must be acyclic itself.
    let Some(reach) = Reach::new(p.nodes(), p.known_arcs(&forced_arcs)) else {
        let suspects = trace.suspects(p, &forced_arcs, &forced, Conflict::Cycle);
        return Decided::violated(stats, suspects);
    };
    if let Some(why) = over_budget() {
        return Decided::stopped(stats, why);
    }
    // Hint each constraint toward a topological order of the known graph:
    // an order the database may well have used, so that the first model
    // is often nearly acyclic.
    let first: Vec<bool> = open
        .iter()
        .map(|&c| {
            let (a, b) = p.end_ranks(c, &reach.rank);
            a < b
        })
        .collect();
    let mut settings = settings;
    // A budget too long to represent is no budget.
    if let Some(end) = settings
        .solve_for
        .and_then(|b| Instant::now().checked_add(b))
    {
        settings.deadline = Some(settings.deadline.map_or(end, |d| d.min(end)));
    }
    // Decided in independent parts (`parts.rs`), on every core.
    let split = Split::new(p, &reach.csr, &open, &clauses, settings.min_batch);
    stats.encode = encoding.elapsed();
    if let Some(why) = over_budget() {
        return Decided::stopped(stats, why);
    }
    let solving = Instant::now();
    let outcome = split.solve(&first, &settings, &mut stats);
    stats.solve = solving.elapsed();
    let decision = match outcome {
        Outcome::Sat => Decision::Holds,
        Outcome::Unsat => Decision::Violated,
        Outcome::Stopped(why) => Decision::Stopped(why),
    };
    Decided {
        decision,
        stats,
        suspects: (0..p.constraints()).collect(),
    }
}

/// The problem's clauses over the constraints pruning left open: those a
/// forced side satisfies are gone, and so are the forced sides that fail;
/// `None` when a clause has nothing left.
fn open_clauses(p: &Problem, forced: &[Option<usize>]) -> Option<Clauses> {
    let mut out = Clauses::default();
    for clause in p.clauses.iter() {
        let Some(open) = prune::open_literals(clause, forced) else {
            continue;
        };
        let left: Clause = open.collect();
        if left.is_empty() {
            return None;
        }
        out.push(&left);
    }
    Some(out)
}

/// Whether the known edges alone are acyclic in the problem's graph (its
/// product graph under the extension): with no constraint, the decision.
pub fn known_acyclic(p: &Problem) -> bool {
    let n = p.nodes();
    let (start, succ) = crate::graph::csr(n, p.known_arcs(&[]));
    let out = |v: u32| &succ[start[v as usize] as usize..start[v as usize + 1] as usize];
    crate::graph::topological(n, |v| out(v).iter().copied()).is_some()
}

/// A smallest set of constraints among `suspects` (no member can be
/// dropped) that no resolution satisfies together with the known edges:
/// empty when the known edges cycle alone. `None` if the suspects are
/// satisfiable or the deadline passed.
pub fn core(p: &Problem, suspects: &[usize], settings: Settings) -> Option<Vec<usize>> {
    let Some(reach) = Reach::new(p.nodes(), p.known_arcs(&[])) else {
        return Some(Vec::new());
    };
    let all: Vec<usize> = suspects.to_vec();
    let mut engine = Engine::new(p, reach, &all, true, &settings);
    for i in 0..all.len() {
        let lit = engine.lit(i);
        engine.prefer(lit);
    }
    let select = engine.select().to_vec();
    let by_var: std::collections::HashMap<u32, usize> = select
        .iter()
        .enumerate()
        .map(|(c, s)| (s.var(), c))
        .collect();
    let unsat_core = |engine: &mut Engine, set: &[usize]| -> Option<Option<Vec<usize>>> {
        let assumptions: Vec<Lit> = set.iter().map(|&c| select[c]).collect();
        match engine.solve(&assumptions) {
            Outcome::Unsat => {
                // No core (the solver failed finding it) is a stop, never
                // an empty core, which would blame the known edges alone.
                let mut core: Vec<usize> = engine
                    .core_vars()?
                    .iter()
                    .filter_map(|v| by_var.get(v).copied())
                    .collect();
                core.sort_unstable();
                Some(Some(core))
            }
            Outcome::Sat => Some(None),
            Outcome::Stopped(_) => None,
        }
    };
    let positions: Vec<usize> = (0..all.len()).collect();
    let mut set = unsat_core(&mut engine, &positions)??;
    let mut i = 0;
    while i < set.len() {
        let without: Vec<usize> = set.iter().copied().filter(|&c| c != set[i]).collect();
        match unsat_core(&mut engine, &without)? {
            Some(smaller) => set = smaller,
            None => i += 1,
        }
    }
    Some(set.into_iter().map(|i| all[i]).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(from: u32, to: u32) -> Edge {
        Edge {
            from,
            to,
            ..Edge::default()
        }
    }

    fn rw(from: u32, to: u32) -> Edge {
        Edge {
            rw: true,
            ..e(from, to)
        }
    }

    fn settings(pruning: bool, propagate: bool) -> Settings {
        Settings {
            pruning,
            deadline: None,
            propagate,
            solve_for: None,
            min_batch: MIN_BATCH,
        }
    }

    /// The decision, the same with the propagator and the lazy loop, and
    /// with every independent part solved alone (the split's parts are
    /// rarely large enough to be solved apart otherwise).
    fn run(p: &Problem, pruning: bool) -> Decision {
        let with = decide(p, settings(pruning, true)).decision;
        assert_eq!(with, decide(p, settings(pruning, false)).decision);
        for propagate in [false, true] {
            let alone = Settings {
                min_batch: 1,
                ..settings(pruning, propagate)
            };
            assert_eq!(with, decide(p, alone).decision);
        }
        with
    }

    /// The core, the same with the propagator and the lazy loop.
    fn core_of(p: &Problem, suspects: &[usize]) -> Option<Vec<usize>> {
        let with = core(p, suspects, settings(false, true));
        assert_eq!(with, core(p, suspects, settings(false, false)));
        with
    }

    #[test]
    fn pruning_forces_the_side_that_keeps_the_graph_acyclic() {
        // 0 → 1 known; constraint {1 → 0} or {0 → 2}.
        let p = with_sides(
            3,
            false,
            vec![e(0, 1)],
            vec![[vec![e(1, 0)], vec![e(0, 2)]]],
        );
        let Decided {
            decision: d, stats, ..
        } = decide(&p, settings(true, true));
        assert_eq!(d, Decision::Holds);
        assert_eq!(stats.pruned, 1);
        assert_eq!(run(&p, false), Decision::Holds);
    }

    #[test]
    fn pruning_takes_what_a_clause_leaves_and_prunes_with_it() {
        // A clause leaves constraint 0 one side, 0 → 1; with it, constraint
        // 1's first side, 1 → 0, closes a cycle, so its second, 0 → 2, is
        // forced too.
        let mut p = with_sides(
            3,
            false,
            vec![],
            vec![[vec![e(0, 1)], vec![]], [vec![e(1, 0)], vec![e(0, 2)]]],
        );
        p.clauses = [[(0, 0)]].iter().collect();
        let Decided {
            decision: d, stats, ..
        } = decide(&p, settings(true, true));
        assert_eq!(d, Decision::Holds);
        assert_eq!(stats.pruned, 2);
        // A clause asking for that first side is falsified: a violation
        // found by pruning, whose suspects are the clause's constraint and
        // what forced it.
        p.clauses.push(&[(1, 0)]);
        let found = decide(&p, settings(true, true));
        assert_eq!(found.decision, Decision::Violated);
        assert_eq!(found.suspects, vec![0, 1]);
    }

    #[test]
    fn both_sides_impossible_is_a_violation() {
        let p = with_sides(
            3,
            false,
            vec![e(0, 1), e(1, 2)],
            vec![[vec![e(2, 0)], vec![e(1, 0)]]],
        );
        assert_eq!(run(&p, true), Decision::Violated);
        assert_eq!(run(&p, false), Decision::Violated);
        assert_eq!(core_of(&p, &[0]), Some(vec![0]));
    }

    #[test]
    fn the_solver_finds_the_one_acyclic_combination() {
        // Two constraints, each of whose sides is fine alone; only one
        // combination of the four (the second side, then the first) avoids
        // a cycle, and it is not the one the phases suggest.
        let p = with_sides(
            4,
            false,
            vec![e(0, 1), e(2, 3)],
            vec![
                [vec![e(1, 2)], vec![e(3, 0)]],
                [vec![e(3, 0)], vec![e(1, 2)]],
            ],
        );
        assert_eq!(run(&p, false), Decision::Holds);
        // Each side of this second constraint is acyclic alone but cycles
        // with either side of the first: every combination does.
        let q = with_sides(
            4,
            false,
            vec![e(0, 1), e(2, 3)],
            vec![
                [vec![e(1, 2)], vec![e(3, 0)]],
                [vec![e(2, 0), e(1, 3)], vec![e(3, 1), e(0, 2)]],
            ],
        );
        assert_eq!(run(&q, false), Decision::Violated);
        assert_eq!(run(&q, true), Decision::Violated);
        assert_eq!(core_of(&q, &[0, 1]), Some(vec![0, 1]));
    }

    #[test]
    fn two_adjacent_rw_hops_are_allowed_by_the_extension() {
        // Write skew: 0 -rw-> 1 -rw-> 0 is no cycle of A;rw?.
        let p = with_sides(
            2,
            true,
            vec![],
            vec![[vec![rw(0, 1), rw(1, 0)], vec![e(0, 1)]]],
        );
        assert_eq!(run(&p, false), Decision::Holds);
        // An A hop between them makes it one: 0 -ww-> 1 -rw-> 0.
        let q = with_sides(
            2,
            true,
            vec![e(0, 1)],
            vec![[vec![rw(1, 0)], vec![rw(1, 0), e(1, 0)]]],
        );
        assert_eq!(run(&q, true), Decision::Violated);
        assert_eq!(run(&q, false), Decision::Violated);
    }

    /// A problem with these constraints' sides.
    fn with_sides(
        txns: u32,
        extension: bool,
        known: Vec<Edge>,
        sides: Vec<[Vec<Edge>; 2]>,
    ) -> Problem {
        let mut p = Problem::new(txns, extension, known);
        for [a, b] in &sides {
            p.push([a, b]);
        }
        p
    }

    /// Whether some resolution of every constraint leaves the product
    /// graph acyclic, trying all of them.
    fn brute_force(p: &Problem) -> bool {
        let side = |bits: u32, c: u32| (bits >> c & 1) as u8;
        let satisfies =
            |bits: u32| (p.clauses.iter()).all(|cl| cl.iter().any(|&(c, s)| side(bits, c) == s));
        (0..1u32 << p.constraints())
            .filter(|&b| satisfies(b))
            .any(|bits| {
                let mut arcs = Vec::new();
                p.push_arcs(&p.known, &mut arcs);
                for c in 0..p.constraints() {
                    p.push_arcs(p.side(c, (bits >> c & 1) as usize), &mut arcs);
                }
                Reach::new(p.nodes(), arcs.iter().copied()).is_some()
            })
    }

    /// `p` with only the constraints `set`, and the clauses all of whose
    /// constraints are among them (a clause binds a core then only).
    fn restricted(p: &Problem, set: &[usize]) -> Problem {
        let mut q = Problem::new(p.txns, p.extension, p.known.clone());
        q.chains = p.chains.clone();
        for &c in set {
            q.push(p.sides(c));
        }
        let at = |c: u32| set.iter().position(|&k| k == c as usize);
        for cl in p.clauses.iter() {
            let local: Option<Clause> = cl.iter().map(|&(c, s)| Some((at(c)? as u32, s))).collect();
            if let Some(local) = local {
                q.clauses.push(&local);
            }
        }
        q
    }

    fn arb_edge(txns: u32) -> impl Strategy<Value = Edge> {
        // An edge barring rw hops (prefix consistency's ww) is no rw hop.
        (0..txns, 0..txns, 0..3u8).prop_map(|(from, to, kind)| Edge {
            rw: kind == 1,
            bars_rw: kind == 2,
            ..e(from, to)
        })
    }

    fn arb_problem() -> impl Strategy<Value = Problem> {
        (2u32..7, any::<bool>()).prop_flat_map(|(txns, extension)| {
            let side = || proptest::collection::vec(arb_edge(txns), 0..4);
            (
                proptest::collection::vec(arb_edge(txns), 0..6),
                proptest::collection::vec((side(), side()).prop_map(|(a, b)| [a, b]), 0..8),
                proptest::collection::vec((0..txns, 0..txns), 0..txns as usize),
                proptest::collection::vec(arb_clause(), 0..4),
            )
                .prop_map(move |(known, sides, chains, clauses)| {
                    let n = sides.len() as u32;
                    let mut p = with_sides(txns, extension, known, sides);
                    p.chains = chains;
                    // Literals on constraints the problem has.
                    p.clauses = (clauses.into_iter())
                        .map(|cl| cl.into_iter().filter(|&(c, _)| c < n).collect::<Clause>())
                        .filter(|cl| !cl.is_empty())
                        .collect();
                    p
                })
        })
    }

    /// A clause over up to three of the first eight constraints.
    fn arb_clause() -> impl Strategy<Value = Clause> {
        proptest::collection::vec((0..8u32, 0..2u8), 1..4)
    }

    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// The propagator, the lazy loop (each with and without pruning)
        /// and brute force agree, and a violation's core is violated alone.
        #[test]
        fn engines_agree_with_brute_force(p in arb_problem()) {
            let expected = if brute_force(&p) { Decision::Holds } else { Decision::Violated };
            for pruning in [false, true] {
                prop_assert_eq!(run(&p, pruning), expected.clone());
            }
            if expected == Decision::Violated {
                let all: Vec<usize> = (0..p.constraints()).collect();
                let core = core(&p, &all, settings(false, false)).expect("no deadline");
                prop_assert!(!brute_force(&restricted(&p, &core)));
                // Pruning's suspects (those its conflict follows from) hold
                // a core too.
                let pruned = decide(&p, settings(true, true));
                prop_assert!(!brute_force(&restricted(&p, &pruned.suspects)));
            }
        }

        /// Pruning's questions split over two threads, one constraint at a
        /// time, answer as one thread asking them all, with and without the
        /// chain index.
        #[test]
        fn pruning_judges_alike_on_two_threads(p in arb_problem(), bits in any::<u8>()) {
            let forced: Vec<Option<usize>> = (0..p.constraints())
                .map(|c| (bits >> c & 1 == 1).then_some(0))
                .collect();
            for indexed in [false, true] {
                let Some(reach) = Reach::new(p.nodes(), p.known_arcs(&[])) else {
                    return Ok(());
                };
                let reach = if indexed { reach.indexed(&p) } else { reach };
                let one = prune::judge(&p, &reach, &forced, None, 1, 1024);
                let two = prune::judge(&p, &reach, &forced, None, 2, 1);
                prop_assert_eq!(one, two);
            }
        }
    }
}
