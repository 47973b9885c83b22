//! Checking: consistency models, Elle's lattice, and the search for cycles.

pub mod lattice;
