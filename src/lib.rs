//! isocheck: a checker of database isolation for Jepsen histories.
//!
//! The pipeline, one module per stage (see `ARCHITECTURE.md`):
//! [`history`] reads files into transactions; [`stats`] summarises them;
//! [`gen`] generates histories; [`recheck`] reads Jepsen stores for
//! `isocheck recheck`; [`cli`] is the command line.

pub mod check;
pub mod cli;
mod facade;
pub mod gen;
pub mod graph;
pub mod history;
pub mod infer;
pub mod limits;
pub mod report;
pub mod store;

pub use facade::{check, load, Outcome};
