//! PolySI's pruning: sides that close a cycle with the known graph are
//! impossible, so the other side of their constraint is forced, round after
//! round, with reachability asked of `Reach`.

use super::reach::Reach;
use super::{Problem, Stats};
use std::time::Instant;

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
    deadline: Option<Instant>,
    stats: &mut Stats,
) -> Result<Option<Vec<usize>>, String> {
    let total = p.constraints();
    let suspects = |forced: &[Option<usize>], extra: Option<usize>| {
        let mut v: Vec<usize> = (0..forced.len()).filter(|&c| forced[c].is_some()).collect();
        v.extend(extra);
        v
    };
    // The index costs O((n + m) · k) a round; with few constraints per node
    // the bounded searches cost less (1M list-append transactions, 59k
    // constraints: pruning 2.0–2.4 s with them, 3.0–4.7 s with the index).
    let indexed = p.constraints() * 8 >= p.nodes();
    loop {
        stats.prune_rounds += 1;
        let Some(reach) = Reach::new(p.nodes(), p.known_arcs(forced_arcs)) else {
            return Ok(Some(suspects(forced, None)));
        };
        let mut reach = if indexed { reach.indexed(p) } else { reach };
        let mut newly = 0;
        for c in 0..total {
            if forced[c].is_some() {
                continue;
            }
            if c % 1024 == 0 && deadline.is_some_and(|d| Instant::now() >= d) {
                return Err("timeout".into());
            }
            let bad = |s: usize, reach: &mut Reach| {
                p.side(c, s).iter().any(|&e| {
                    let mut hit = false;
                    p.arcs(e, |a, b| hit = hit || reach.reaches(b, a));
                    hit
                })
            };
            match (bad(0, &mut reach), bad(1, &mut reach)) {
                (true, true) => return Ok(Some(suspects(forced, Some(c)))),
                (true, false) => forced[c] = Some(1),
                (false, true) => forced[c] = Some(0),
                (false, false) => continue,
            }
            newly += 1;
            let s = forced[c].unwrap_or(0);
            p.push_arcs(p.side(c, s), forced_arcs);
        }
        // PolySI stops once a round forces at most 1% of the constraints:
        // past that, rounds cost more than the solver needs for the rest.
        if newly == 0 || newly * 100 <= total {
            return Ok(None);
        }
    }
}
