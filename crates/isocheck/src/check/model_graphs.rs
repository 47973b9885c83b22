//! Elle's `cycle-exists-specs`: the models a cycle-exists graph decides,
//! each a [`ModelGraph`] of [`MODEL_GRAPHS`], derived from the model
//! table's rows with a [`Subgraph`] (`models::ROWS`). Apart from both, so
//! that the table (`models.rs`) and the relations it cites (`taxonomy.rs`)
//! do not import each other.

use super::models::{GRAPH_COUNT, ROWS};
use super::taxonomy::Subgraph;
use crate::graph::{Rel, RelSet};
use std::sync::OnceLock;

/// A model's [`Subgraph`] with the model's name: a row of
/// [`MODEL_GRAPHS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModelGraph {
    /// The canonical model name.
    pub model: &'static str,
    /// See [`Subgraph::base`].
    pub base: RelSet,
    /// See [`Subgraph::extension`].
    pub extension: bool,
    /// See [`Subgraph::plain_ww`].
    pub plain_ww: bool,
    /// See [`Subgraph::predicate_rw`].
    pub predicate_rw: bool,
    /// Its position in [`MODEL_GRAPHS`]; private, so that every
    /// `ModelGraph` is a row of it.
    row: usize,
}

/// Elle's `cycle-exists-specs`, in Elle's order: the models with a
/// `<model>-cycle-exists` anomaly, derived from the model table's rows
/// with a subgraph (`models::ROWS`, which puts them first in this order).
pub const MODEL_GRAPHS: [ModelGraph; GRAPH_COUNT] = model_graphs();

const fn model_graphs() -> [ModelGraph; GRAPH_COUNT] {
    let mut out = [ModelGraph::new("", Subgraph::of(RelSet::of(&[])), 0); GRAPH_COUNT];
    let (mut i, mut n) = (0, 0);
    while i < ROWS.len() {
        if let Some(g) = ROWS[i].graph {
            out[n] = ModelGraph::new(ROWS[i].name, g, n);
            n += 1;
        }
        i += 1;
    }
    out
}

impl ModelGraph {
    const fn new(model: &'static str, g: Subgraph, row: usize) -> ModelGraph {
        ModelGraph {
            model,
            base: g.base,
            extension: g.extension,
            plain_ww: g.plain_ww,
            predicate_rw: g.predicate_rw,
            row,
        }
    }

    /// The row of a canonical model, `None` if it has no cycle-exists
    /// anomaly.
    pub fn of(model: &str) -> Option<&'static ModelGraph> {
        MODEL_GRAPHS.iter().find(|m| m.model == model)
    }

    /// The row whose `<model>-cycle-exists` anomaly is `name`, `None` for
    /// any other anomaly.
    pub fn of_anomaly(name: &str) -> Option<&'static ModelGraph> {
        MODEL_GRAPHS.iter().find(|m| m.anomaly() == name)
    }

    /// The relations of the subgraph: `base`, with predicate
    /// anti-dependencies beside item ones unless Elle's subgraph leaves
    /// them out (repeatable read's). Without `extension`.
    pub fn rels(&self) -> RelSet {
        match self.base.contains(Rel::Rw) {
            true => self.base.union(self.antidependencies()),
            false => self.base,
        }
    }

    /// The anti-dependencies the subgraph counts, as `rels` or as its
    /// extension: item ones, and predicate ones unless Elle leaves them out.
    pub fn antidependencies(&self) -> RelSet {
        match self.predicate_rw {
            true => RelSet::of(&[Rel::Rw, Rel::Rwp]),
            false => Rel::Rw.bit(),
        }
    }

    /// The model's `<model>-cycle-exists` anomaly.
    pub fn anomaly(&self) -> &'static str {
        static NAMES: OnceLock<Vec<String>> = OnceLock::new();
        let names = NAMES.get_or_init(|| {
            MODEL_GRAPHS
                .iter()
                .map(|m| format!("{}-cycle-exists", m.model))
                .collect()
        });
        &names[self.row]
    }

    /// The subgraph as Elle's `cycle-exists-friendly-subgraph` prints it
    /// (`[:union :ww :wwp :wr :wrp]`); predicate relations are printed where
    /// Elle's subgraph has them.
    pub fn subgraph(&self) -> String {
        let mut rels = Vec::new();
        for r in Rel::ALL {
            if !self.base.contains(r) || (self.plain_ww && r == Rel::Ww) {
                continue;
            }
            rels.push(format!(":{}", r.name()));
            let predicate = match r {
                Rel::Ww | Rel::Wr => true,
                Rel::Rw => self.predicate_rw,
                Rel::Rwp | Rel::Process | Rel::Realtime => false,
            };
            if predicate {
                rels.push(format!(":{}p", r.name()));
            }
        }
        let union = format!("[:union {}]", rels.join(" "));
        match (self.extension, self.plain_ww) {
            (true, true) => format!("[:union :ww :wwp [:extension {union} [:union :rw :rwp]]]"),
            (true, false) => format!("[:extension {union} [:union :rw :rwp]]"),
            (false, _) => union,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_graphs() {
        let pl3 = ModelGraph::of("PL-3").unwrap();
        assert_eq!(pl3.anomaly(), "PL-3-cycle-exists");
        assert_eq!(pl3.subgraph(), "[:union :ww :wwp :wr :wrp :rw :rwp]");
        assert_eq!(
            ModelGraph::of("PL-2.99").unwrap().subgraph(),
            "[:union :ww :wwp :wr :wrp :rw]"
        );
        assert_eq!(
            ModelGraph::of("strong-snapshot-isolation")
                .unwrap()
                .subgraph(),
            "[:extension [:union :ww :wwp :wr :wrp :realtime] [:union :rw :rwp]]"
        );
        assert!(ModelGraph::of("serializable").is_none());
        for m in &MODEL_GRAPHS {
            assert_eq!(m.anomaly(), format!("{}-cycle-exists", m.model));
        }
        // As Elle's `cycle-exists-friendly-subgraph` prints them.
        let elle = [
            "[:union :ww :wwp]",
            "[:union :ww :wwp :wr :wrp]",
            "[:extension [:union :ww :wwp :wr :wrp] [:union :rw :rwp]]",
            "[:union :ww :wwp :wr :wrp :rw]",
            "[:union :ww :wwp :wr :wrp :rw :rwp]",
            "[:union :ww :wwp :process]",
            "[:union :ww :wwp :wr :wrp :process]",
            "[:extension [:union :ww :wwp :wr :wrp :process] [:union :rw :rwp]]",
            // isocheck's: prefix consistency.
            "[:union :ww :wwp [:extension [:union :wr :wrp :process] [:union :rw :rwp]]]",
            "[:union :ww :wwp :wr :wrp :rw :rwp :process]",
            "[:union :ww :wwp :realtime]",
            "[:union :ww :wwp :wr :wrp :realtime]",
            "[:extension [:union :ww :wwp :wr :wrp :realtime] [:union :rw :rwp]]",
            "[:union :ww :wwp :wr :wrp :rw :rwp :realtime]",
        ];
        let ours: Vec<String> = MODEL_GRAPHS.iter().map(ModelGraph::subgraph).collect();
        assert_eq!(ours, elle);
    }
}
