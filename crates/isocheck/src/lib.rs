//! isocheck: a checker of database isolation for Jepsen histories (and the
//! PolySI, dbcop and Cobra datasets). It infers what a history says about
//! the database's version order, decides Elle's consistency models over
//! every order the history allows, names anomalies as Elle does and explains
//! each with spans into the file.
//!
//! The way in is [`load`], [`check()`] and the [`Outcome`]'s renderers:
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let history = isocheck::load("history.edn".as_ref(), &Default::default())?;
//! let outcome = isocheck::check(&history, &Default::default())?;
//! println!("{}", outcome.edn(&history));
//! # Ok(())
//! # }
//! ```
//!
//! Beside the way in, the public modules are the data and the tools around
//! it: [`history`] (the histories read, and their EDN reader), [`report`]
//! (each output format), [`models`] (the models and anomalies known, and
//! Elle's lattice), [`limits`] (`--timeout`, `--max-memory`), [`files`]
//! (files written whole or not at all), [`store`] (Jepsen stores, for
//! `isocheck recheck`), [`stats`] and [`stream`] (the streaming
//! list-append check, op by op, for `isocheck check --stream`). The stages that decide (the dependency
//! graph, inference, the cycle search and solver, the register check and
//! Jepsen's checkers) are private; `ARCHITECTURE.md` maps them. The
//! generator (`isocheck-gen`), `isocheck run`'s drivers (`isocheck-run`) and
//! the command line (`isocheck-cli`) are crates of their own: this one
//! parses no arguments, drives no database and handles no signal.
//! `docs/design.md` holds the design notes the code cites as `SPEC §n`.

#![cfg_attr(not(feature = "internals"), deny(missing_docs))]

// The stages are private: what a program using the library needs of them is
// re-exported below, and `internals` opens the rest to isocheck's own tests.
mod check;
mod checkers;
mod clauses;
mod facade;
pub mod files;
mod graph;
pub mod history;
mod infer;
pub mod limits;
pub mod progress;
mod registers;
pub mod report;
pub mod stats;
pub mod store;
pub mod stream;
mod validity;

pub use check::sat::BACKEND as SAT_BACKEND;
pub use check::{anomaly_types, Analysis, CheckOptions, OptionError, SolveOptions, Verdict};
pub use checkers::{JepsenOptions, JepsenResult};
pub use facade::{check, load, Outcome};
pub use infer::InferOptions;
pub use registers::RegisterAnalysis;
pub use validity::Validity;

/// The consistency models and anomalies isocheck knows, and how they imply
/// one another (Elle's lattice, with isocheck's models beside it).
pub mod models {
    pub use crate::check::lattice::{
        all_implied_anomalies, all_implied_models, anomalies_prohibited_by, canonical_model,
        definition, is_known_anomaly, known_anomalies, known_models, prohibited_anomalies,
        CYCLE_SEARCH_TIMEOUT, DEFAULT_MODEL, EMPTY_TRANSACTION_GRAPH, MODEL_NOT_CHECKED,
    };
    pub use crate::check::models::{Definition, Model};
}

/// The stages' inner types and functions, for isocheck's own tests and
/// fuzz targets (the `internals` feature, which only they turn on): not
/// part of the library's API, and free to change.
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod internals {
    pub mod check {
        pub use crate::check::*;
    }
    pub mod checkers {
        pub use crate::checkers::*;
    }
    pub mod graph {
        pub use crate::graph::*;
    }
    pub mod infer {
        pub use crate::infer::*;
    }
    pub mod registers {
        pub use crate::registers::*;
    }
}
