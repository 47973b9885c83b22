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
//! One module per stage, each using only those before it (see
//! `ARCHITECTURE.md`): [`history`] reads files into transactions; [`graph`]
//! owns the dependency edges, the graph and the session and real-time
//! orders; [`infer`] finds the edges a history implies and the non-cycle
//! anomalies; [`check`](mod@check) decides the models (cycle search, the solver over
//! unknown version orders, the register check); [`report`] renders the
//! results. Beside them: [`limits`] (`--timeout`, `--max-memory`), [`files`]
//! (files written whole or not at all) and [`store`] (Jepsen stores, for
//! `isocheck recheck`). The generator (`isocheck-gen`), `isocheck run`'s
//! drivers (`isocheck-run`) and the command line (`isocheck-cli`) are crates
//! of their own: this one parses no arguments, drives no database and
//! handles no signal. `docs/design.md` holds the design notes the code cites
//! as `SPEC §n`.

pub mod check;
pub mod checkers;
mod facade;
pub mod files;
pub mod graph;
pub mod history;
pub mod infer;
pub mod limits;
pub mod progress;
pub mod registers;
pub mod report;
pub mod stats;
pub mod store;
pub mod validity;

pub use facade::{check, load, Outcome};
