//! Elle's lattice of consistency models, drawn: each canonical model a box
//! under the models that imply it (the transitive reduction of
//! `check::lattice`'s implications, read through its public functions),
//! marked by what the check says of it: `:not` (ruled out by an anomaly
//! found), `:also-not` (ruled out because it implies one of those), holds
//! (a checked model of a valid history, and every model it implies), or
//! not decided.

use super::esc;
use super::plot::{Edge, Node, Plot};
use crate::check::lattice;
use std::collections::{BTreeMap, BTreeSet};

/// Model names are broken after a hyphen past this many characters.
const NAME_COLUMNS: usize = 10;

/// What the check says of a model.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mark {
    Not,
    AlsoNot,
    Holds,
    Undecided,
}

impl Mark {
    fn class(self) -> &'static str {
        match self {
            Mark::Not => "not",
            Mark::AlsoNot => "also-not",
            Mark::Holds => "holds",
            Mark::Undecided => "undecided",
        }
    }
}

/// The canonical models, each with the models it implies directly (no
/// model in between).
fn reduced() -> BTreeMap<&'static str, Vec<&'static str>> {
    let models: BTreeSet<&'static str> = lattice::known_models()
        .into_iter()
        .filter_map(lattice::canonical_model)
        .collect();
    let below = |m: &'static str| -> BTreeSet<&'static str> {
        let mut s = lattice::all_implied_models([m]);
        s.remove(m);
        s.into_iter().filter(|x| models.contains(x)).collect()
    };
    let all: BTreeMap<&'static str, BTreeSet<&'static str>> =
        models.iter().map(|&m| (m, below(m))).collect();
    all.iter()
        .map(|(&m, under)| {
            let direct = under
                .iter()
                .copied()
                .filter(|n| !under.iter().any(|k| k != n && all[k].contains(n)))
                .collect();
            (m, direct)
        })
        .collect()
}

/// The mark of each model, by friendly name.
pub fn marks<'a>(
    not: &'a BTreeSet<&str>,
    also_not: &'a BTreeSet<&str>,
    holds: &'a BTreeSet<&str>,
) -> impl Fn(&str) -> Mark + 'a {
    move |friendly: &str| {
        if not.contains(friendly) {
            Mark::Not
        } else if also_not.contains(friendly) {
            Mark::AlsoNot
        } else if holds.contains(friendly) {
            Mark::Holds
        } else {
            Mark::Undecided
        }
    }
}

/// The friendly names of the models that hold when a history is valid
/// under `checked` (friendly or canonical names): those and every model
/// they imply.
pub fn holding(checked: &[&str]) -> BTreeSet<&'static str> {
    let canonical: Vec<&'static str> = checked
        .iter()
        .filter_map(|m| lattice::canonical_model(m))
        .collect();
    lattice::all_implied_models(canonical)
        .into_iter()
        .map(lattice::friendly_model)
        .collect()
}

/// The drawing, strongest models on top.
pub fn plot(mark: impl Fn(&str) -> Mark) -> Plot {
    let graph = reduced();
    let index: BTreeMap<&str, usize> = graph.keys().enumerate().map(|(i, &m)| (m, i)).collect();
    let nodes = graph
        .keys()
        .map(|&m| {
            let name = lattice::friendly_model(m);
            Node {
                // `strong-session-snapshot-isolation` on two lines: the
                // widest layer sets the drawing's width.
                text: textwrap::fill(name, NAME_COLUMNS),
                attrs: format!(
                    "class=\"model {}\" data-model=\"{}\"",
                    mark(name).class(),
                    esc(name)
                ),
            }
        })
        .collect();
    let edges = graph
        .iter()
        .flat_map(|(&m, under)| under.iter().map(move |&n| (m, n)))
        .map(|(m, n)| Edge {
            from: index[m],
            to: index[n],
            label: String::new(),
            attrs: "class=\"implies\"".to_string(),
        })
        .collect();
    Plot { nodes, edges }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reduction_keeps_only_direct_implications() {
        let g = reduced();
        let ss = lattice::canonical_model("strict-serializable").unwrap();
        let sss = lattice::canonical_model("strong-session-serializable").unwrap();
        let ser = lattice::canonical_model("serializable").unwrap();
        let rc = lattice::canonical_model("read-committed").unwrap();
        // Strict serializability implies serializability through strong
        // session serializability, so not directly.
        assert!(g[ss].contains(&sss), "{:?}", g[ss]);
        assert!(!g[ss].contains(&ser), "{:?}", g[ss]);
        assert!(!g[ss].contains(&rc));
        // Every implication is still reachable through the direct ones.
        for (&m, _) in g.iter() {
            let mut seen = BTreeSet::new();
            let mut stack = vec![m];
            while let Some(x) = stack.pop() {
                for &y in &g[x] {
                    if seen.insert(y) {
                        stack.push(y);
                    }
                }
            }
            let mut want = lattice::all_implied_models([m]);
            want.remove(m);
            let want: BTreeSet<_> = want.into_iter().filter(|x| g.contains_key(x)).collect();
            assert_eq!(seen, want, "{m}");
        }
    }

    #[test]
    fn a_valid_serializable_history_holds_below_serializable_only() {
        let holds = holding(&["serializable"]);
        assert!(holds.contains("serializable"));
        assert!(holds.contains("read-committed"));
        assert!(!holds.contains("strict-serializable"));
    }
}
