//! Rendering results for people and programs: miette diagnostics, tables,
//! Elle's result map as EDN and JSON, explanation files and Graphviz.

pub mod cut;
pub mod diagnostic;
pub mod directory;
pub mod edn;
pub mod excerpt;
mod explain;
mod explanation;
pub mod html;
pub mod human;
pub mod jepsen;
pub mod json;
pub mod registers;
pub(crate) mod result;
pub mod stop;
