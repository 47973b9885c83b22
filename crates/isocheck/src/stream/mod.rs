//! The streaming check (issue 37), first slice: a list-append history's ops
//! taken once, in order, and each dependency cycle reported when the edge
//! that closes it arrives, on an incremental topological order
//! (`graph::online_dag`) instead of a search over the whole graph.
//!
//! What it infers is Elle's list-append inference made incremental. Per
//! key, the version order is the longest read so far: a read that extends
//! it reveals ww edges between the appenders of consecutive elements and rw
//! edges from the readers of the previous longest (who are waiting for the
//! element after theirs); a read that is a prefix of it gets its rw edge at
//! once. wr edges come from the appender of a read's last element. Process
//! order links each client's successive committed transactions; real time,
//! when asked for, goes through *tick* nodes: a completion links into the
//! next tick, ticks form a chain, and an invocation links from the current
//! one, so that `T1 ⇝ T2` exactly when `T1` completed before `T2` was
//! invoked, with one edge per transaction rather than one per pair.
//! Appends no read shows follow the last element shown, so at the end they
//! get a ww edge from its appender and an rw edge from its readers.
//!
//! Its user feeds it a history's ops in order ([`StreamCheck::op`], with
//! the ops of [`crate::history::jepsen::streaming::OpStream`], after
//! [`Shape::check`] has found each list-append's), takes the findings as
//! they come ([`StreamCheck::drain`]) and the rest at the end
//! ([`StreamCheck::finish`]): `isocheck check --stream` does so.
//!
//! Not yet: retirement (everything stays in memory), `--window`, Elle's
//! internal, duplicate-elements and dirty-update checks, anomaly types
//! beyond each refused edge's own cycle, and rw-register histories.

mod list_append;
mod workload;

pub use list_append::{About, Ending, Finding, Options, StreamCheck, Unknown};
pub use workload::Shape;
