//! Rendering results for people and programs: miette diagnostics, tables, JSON.

pub mod diagnostic;
