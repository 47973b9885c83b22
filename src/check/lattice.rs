//! Elle's consistency-model lattice (to be written).
