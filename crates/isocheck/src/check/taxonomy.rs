//! The cycle anomalies as one table: a row per base anomaly of Elle's
//! `base-cycle-anomaly-specs` (`elle.txn`), with the relations its cycles
//! may, must and may only once use, and where it is defined; the `-process`
//! and `-realtime` variants derived from the rows, as Elle's
//! `cycle-anomaly-spec-variant` does; and the [`Subgraph`] a model keeps
//! acyclic, which a row of the model table (`models.rs`) cites and
//! `model_graphs.rs` turns into Elle's `cycle-exists-specs`, the
//! `<model>-cycle-exists` anomalies.
//!
//! A cycle anomaly is a [`CycleAnomaly`] (a base and a [`Variant`]), named by
//! [`CycleAnomaly::name`] and parsed back by [`CycleAnomaly::parse`], which
//! returns an error for any other name. The lattice (`lattice.rs`) relates
//! the names; the cycle search (`cycles.rs`) reads the relations here.
//!
//! A new cycle anomaly is a row of [`BASES`] (and its edges in the lattice's
//! tables); a new model with a cycle-exists anomaly is a row of the model
//! table (`models::ROWS`) with a [`Subgraph`], from which
//! `model_graphs::MODEL_GRAPHS` is derived.

use crate::graph::{Rel, RelSet};
use std::sync::OnceLock;

/// A base cycle anomaly: one row of [`BASES`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Base {
    G0,
    G1c,
    GSingleItem,
    GSingle,
    GNonadjacentItem,
    GNonadjacent,
    G2Item,
    G2,
}

/// How a cycle of a base may use anti-dependency (rw) edges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Antidependency {
    /// None (G0, G1c).
    Never,
    /// Exactly one (Elle's `:single-rels`).
    Single,
    /// Two or more, no two adjacent, counting the wrap-around (Elle's
    /// `:nonadjacent-rels`).
    Nonadjacent,
    /// Two or more, some two adjacent.
    Adjacent,
}

/// One base cycle anomaly.
#[derive(Clone, Copy, Debug)]
pub struct BaseSpec {
    pub base: Base,
    pub name: &'static str,
    /// The relations every step may have besides rw (Elle's `:rels`).
    pub rels: RelSet,
    /// A relation the cycle must use at least once (Elle's
    /// `:required-rels`), besides what [`BaseSpec::rw`] requires.
    pub required: Option<Rel>,
    pub rw: Antidependency,
    /// Whether predicate anti-dependencies (rwp) count, and a cycle must
    /// have one (Elle's explainer names a cycle without one an `-item`
    /// cycle). Predicate write-reads (wrp) count everywhere wr does;
    /// closed-predicate histories alone have predicate edges.
    pub predicate: bool,
    /// Where the anomaly is defined.
    pub cite: &'static str,
}

// The relation sets of the rows here and of the model table's subgraphs.
pub(super) const WW: RelSet = RelSet::of(&[Rel::Ww]);
pub(super) const WWR: RelSet = RelSet::of(&[Rel::Ww, Rel::Wr]);
pub(super) const WWRRW: RelSet = RelSet::of(&[Rel::Ww, Rel::Wr, Rel::Rw]);
pub(super) const P: RelSet = RelSet::of(&[Rel::Process]);
pub(super) const RT: RelSet = RelSet::of(&[Rel::Realtime]);

/// Elle's `base-cycle-anomaly-specs`, one row per base, in [`Base`] order.
pub const BASES: [BaseSpec; 8] = [
    BaseSpec {
        base: Base::G0,
        name: "G0",
        rels: WW,
        required: None,
        rw: Antidependency::Never,
        predicate: false,
        cite: "Adya 1999, G0 (write cycles)",
    },
    BaseSpec {
        base: Base::G1c,
        name: "G1c",
        rels: WWR,
        required: Some(Rel::Wr),
        rw: Antidependency::Never,
        predicate: false,
        cite: "Adya 1999, G1c (circular information flow)",
    },
    BaseSpec {
        base: Base::GSingleItem,
        name: "G-single-item",
        rels: WWR,
        required: None,
        rw: Antidependency::Single,
        predicate: false,
        cite: "Adya 1999, G-single (single anti-dependency cycles), item edges only",
    },
    BaseSpec {
        base: Base::GSingle,
        name: "G-single",
        rels: WWR,
        required: None,
        rw: Antidependency::Single,
        predicate: true,
        cite: "Adya 1999, G-single (single anti-dependency cycles)",
    },
    BaseSpec {
        base: Base::GNonadjacentItem,
        name: "G-nonadjacent-item",
        rels: WWR,
        required: None,
        rw: Antidependency::Nonadjacent,
        predicate: false,
        cite: "Elle (Kingsbury and Alvaro 2020), G-nonadjacent, item edges only",
    },
    BaseSpec {
        base: Base::GNonadjacent,
        name: "G-nonadjacent",
        rels: WWR,
        required: None,
        rw: Antidependency::Nonadjacent,
        predicate: true,
        cite: "Elle (Kingsbury and Alvaro 2020), G-nonadjacent (generalizes Adya's G-SI)",
    },
    BaseSpec {
        base: Base::G2Item,
        name: "G2-item",
        rels: WWR,
        required: None,
        rw: Antidependency::Adjacent,
        predicate: false,
        cite: "Adya 1999, G2-item (item anti-dependency cycles)",
    },
    BaseSpec {
        base: Base::G2,
        name: "G2",
        rels: WWR,
        required: None,
        rw: Antidependency::Adjacent,
        predicate: true,
        cite: "Adya 1999, G2 (anti-dependency cycles)",
    },
];

impl Base {
    pub const ALL: [Base; 8] = [
        Base::G0,
        Base::G1c,
        Base::GSingleItem,
        Base::GSingle,
        Base::GNonadjacentItem,
        Base::GNonadjacent,
        Base::G2Item,
        Base::G2,
    ];

    /// This base's row of [`BASES`].
    pub fn spec(self) -> &'static BaseSpec {
        &BASES[self as usize]
    }

    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// The relations a cycle of this base may use.
    pub fn allowed(self) -> RelSet {
        let s = self.spec();
        match (s.rw, s.predicate) {
            (Antidependency::Never, _) => s.rels,
            (_, false) => s.rels.union(Rel::Rw.bit()),
            (_, true) => s.rels.union(RelSet::of(&[Rel::Rw, Rel::Rwp])),
        }
    }
}

/// A cycle anomaly's variant: whether it needs a session (process) or a
/// real-time edge (Elle's `cycle-anomaly-spec-variant`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Variant {
    Plain,
    Process,
    Realtime,
}

impl Variant {
    pub const ALL: [Variant; 3] = [Variant::Plain, Variant::Process, Variant::Realtime];

    /// The order relation the variant adds and requires, if any.
    pub fn rel(self) -> Option<Rel> {
        match self {
            Variant::Plain => None,
            Variant::Process => Some(Rel::Process),
            Variant::Realtime => Some(Rel::Realtime),
        }
    }

    /// The variant that adds `rel` (`None`: plain); `None` when `rel` is not
    /// an order relation.
    pub fn of(rel: Option<Rel>) -> Option<Variant> {
        Variant::ALL.into_iter().find(|v| v.rel() == rel)
    }

    /// What the variant appends to an anomaly's name: `""`, `"-process"`,
    /// `"-realtime"`.
    pub fn suffix(self) -> &'static str {
        match self {
            Variant::Plain => "",
            Variant::Process => "-process",
            Variant::Realtime => "-realtime",
        }
    }

    /// The variant an anomaly name carries by its suffix, for any anomaly of
    /// the lattice (Elle's aggregates `G1-process` and `G1-realtime` too).
    pub fn of_name(name: &str) -> Variant {
        [Variant::Realtime, Variant::Process]
            .into_iter()
            .find(|v| name.ends_with(v.suffix()))
            .unwrap_or(Variant::Plain)
    }
}

/// A cycle anomaly type: a base with a variant (`G1c-process`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CycleAnomaly {
    pub base: Base,
    pub variant: Variant,
}

/// A name that is not a cycle anomaly.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a cycle anomaly")]
pub struct NotACycleAnomaly(pub String);

impl CycleAnomaly {
    pub const fn new(base: Base, variant: Variant) -> CycleAnomaly {
        CycleAnomaly { base, variant }
    }

    /// The 24 cycle anomalies, base-major in [`Base`] order.
    pub fn all() -> impl Iterator<Item = CycleAnomaly> {
        Base::ALL.into_iter().flat_map(|b| {
            Variant::ALL
                .into_iter()
                .map(move |v| CycleAnomaly::new(b, v))
        })
    }

    /// Elle's name: the base's name and the variant's suffix.
    pub fn name(self) -> &'static str {
        static NAMES: OnceLock<Vec<String>> = OnceLock::new();
        let names = NAMES.get_or_init(|| {
            CycleAnomaly::all()
                .map(|c| format!("{}{}", c.base.name(), c.variant.suffix()))
                .collect()
        });
        &names[self.base as usize * Variant::ALL.len() + self.variant as usize]
    }

    /// The cycle anomaly of this name.
    pub fn parse(name: &str) -> Result<CycleAnomaly, NotACycleAnomaly> {
        CycleAnomaly::all()
            .find(|c| c.name() == name)
            .ok_or_else(|| NotACycleAnomaly(name.to_string()))
    }

    pub fn spec(self) -> &'static BaseSpec {
        self.base.spec()
    }

    /// The relations a cycle of this type may use.
    pub fn allowed(self) -> RelSet {
        match self.variant.rel() {
            Some(x) => self.base.allowed().union(x.bit()),
            None => self.base.allowed(),
        }
    }

    /// Elle's classification of a cycle by the relations of its steps (its
    /// cycle explainer): the base by its rw (item or predicate) and wr
    /// steps, an item anomaly unless a step is a predicate anti-dependency;
    /// the variant by a real-time step, else a process step.
    pub fn classify(rels: &[Rel]) -> CycleAnomaly {
        let count = |r: Rel| rels.iter().filter(|&&x| x == r).count();
        let adjacent = (0..rels.len()).any(|i| {
            let prev = rels[(i + rels.len() - 1) % rels.len()];
            rels[i].is_rw() && prev.is_rw()
        });
        let predicate = count(Rel::Rwp) > 0;
        let base = match (count(Rel::Rw) + count(Rel::Rwp), predicate) {
            (0, _) if count(Rel::Wr) > 0 => Base::G1c,
            (0, _) => Base::G0,
            (1, false) => Base::GSingleItem,
            (1, true) => Base::GSingle,
            (_, false) if adjacent => Base::G2Item,
            (_, true) if adjacent => Base::G2,
            (_, false) => Base::GNonadjacentItem,
            (_, true) => Base::GNonadjacent,
        };
        let variant = if count(Rel::Realtime) > 0 {
            Variant::Realtime
        } else if count(Rel::Process) > 0 {
            Variant::Process
        } else {
            Variant::Plain
        };
        CycleAnomaly::new(base, variant)
    }
}

/// The subgraph whose acyclicity a model requires (a row of Elle's
/// `cycle-exists-specs`), as its row of the model table
/// (`models::ModelRow::graph`) gives it: `base` relations, and with
/// `extension` the sequential extension `base ; rw?`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Subgraph {
    pub base: RelSet,
    pub extension: bool,
    /// With `extension`, ww edges stay outside it: the graph is
    /// `((base \ ww) ; rw?) ∪ ww`, so no rw edge follows a ww edge
    /// (prefix consistency: an rw edge closes a cycle only after a
    /// transaction that saw its reader's snapshot).
    pub plain_ww: bool,
    /// Whether Elle's subgraph counts predicate anti-dependencies (`:rwp`)
    /// beside item ones; only repeatable read's does not.
    pub predicate_rw: bool,
}

impl Subgraph {
    /// The union of `base`'s relations.
    pub const fn of(base: RelSet) -> Subgraph {
        Subgraph {
            base,
            extension: false,
            plain_ww: false,
            predicate_rw: true,
        }
    }

    /// `base ; rw?`.
    pub const fn extended(base: RelSet) -> Subgraph {
        Subgraph {
            extension: true,
            ..Subgraph::of(base)
        }
    }

    /// See [`Subgraph::plain_ww`].
    pub const fn with_plain_ww(self) -> Subgraph {
        Subgraph {
            plain_ww: true,
            ..self
        }
    }

    /// See [`Subgraph::predicate_rw`].
    pub const fn without_predicate_rw(self) -> Subgraph {
        Subgraph {
            predicate_rw: false,
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_in_base_order() {
        for (i, b) in Base::ALL.into_iter().enumerate() {
            assert_eq!(BASES[i].base, b);
            assert_eq!(b as usize, i);
        }
        // An item row and its predicate twin differ only in predicate edges.
        for pair in BASES[2..].chunks(2) {
            assert_eq!(format!("{}-item", pair[1].name), pair[0].name);
            assert!(!pair[0].predicate && pair[1].predicate);
            assert_eq!(pair[0].rw, pair[1].rw);
        }
    }

    #[test]
    fn names_round_trip() {
        let names: Vec<&str> = CycleAnomaly::all().map(CycleAnomaly::name).collect();
        assert_eq!(names.len(), 24);
        assert_eq!(&names[..4], ["G0", "G0-process", "G0-realtime", "G1c"]);
        assert_eq!(names[23], "G2-realtime");
        for c in CycleAnomaly::all() {
            assert_eq!(CycleAnomaly::parse(c.name()), Ok(c));
            assert_eq!(Variant::of_name(c.name()), c.variant);
        }
        for bad in [
            "G1a",
            "G1",
            "G1-process",
            "G0-session",
            "",
            " G0",
            "PL-1-cycle-exists",
        ] {
            assert_eq!(
                CycleAnomaly::parse(bad),
                Err(NotACycleAnomaly(bad.to_string()))
            );
        }
        assert_eq!(Variant::of_name("G1-realtime"), Variant::Realtime);
        assert_eq!(Variant::of(Some(Rel::Process)), Some(Variant::Process));
        assert_eq!(Variant::of(Some(Rel::Rw)), None);
    }

    #[test]
    fn allowed_relations() {
        let c = |b, v| CycleAnomaly::new(b, v).allowed();
        assert_eq!(c(Base::G0, Variant::Plain), WW);
        assert_eq!(c(Base::G1c, Variant::Process), WWR.union(P));
        assert_eq!(c(Base::G2Item, Variant::Realtime), WWRRW.union(RT));
        assert_eq!(c(Base::GSingleItem, Variant::Plain), WWRRW);
    }

    #[test]
    fn classification() {
        use Rel::*;
        let name = |rels: &[Rel]| CycleAnomaly::classify(rels).name();
        assert_eq!(name(&[Ww, Ww]), "G0");
        assert_eq!(name(&[Ww, Wr, Process]), "G1c-process");
        assert_eq!(name(&[Rw, Wr]), "G-single-item");
        assert_eq!(name(&[Rw, Wr, Rw, Wr]), "G-nonadjacent-item");
        // Adjacent across the wrap-around.
        assert_eq!(name(&[Rw, Wr, Rw]), "G2-item");
        assert_eq!(name(&[Rw, Process, Realtime]), "G-single-item-realtime");
        // A predicate anti-dependency makes it a predicate anomaly.
        assert_eq!(name(&[Rwp, Wr]), "G-single");
        assert_eq!(name(&[Rwp, Rw]), "G2");
        assert_eq!(name(&[Rwp, Wr, Rw, Wr]), "G-nonadjacent");
        assert_eq!(name(&[Rwp, Realtime]), "G-single-realtime");
    }
}
