//! The streaming check (issue 37): a list-append history's ops
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
//! # Retirement
//!
//! Memory is bounded by a window of transactions (`Options::window`).
//! Nodes (transactions and ticks) leave it oldest first: a node retires
//! once `window` transactions were invoked after it was made, and before
//! it goes, each of its predecessors gets an edge to each of its
//! successors (unless it reaches it already: by an edge, or under real
//! time because it completed before the successor began), so that what
//! reached what among the live nodes still does, and every cycle closed
//! among them later is still found. The bypass's label composes the two
//! (the count of rw edges and which kinds it passes), so the cycle is named
//! as the one through the retired node. A key no op touched for half the
//! window retires too: its unobserved appends get the edges the end of the
//! stream would give them, and its state goes.
//!
//! An edge that arrives later to or from a retired transaction is placed
//! by real time where that decides it: one into a transaction that
//! completed before the edge's source began closes a cycle with real time
//! (reported), and one out of a transaction that completed before a live
//! target began adds no path that real time does not already have.
//! Anything else, and any touch of a retired key, would need the graph
//! that is gone: the answer becomes unknown, with the op (`Unknown`),
//! never a verdict the whole history would not give.
//!
//! Elle's dirty updates are found as a key retires (or the stream ends),
//! when every appender's outcome is known, over the order committed reads
//! showed (Elle's walks the longest read of any transaction).
//!
//! rw-register histories take the same graph and window (`core.rs`) with
//! the edges a register's reads give for certain (`rw_register.rs`): they
//! find violations as they happen, but cannot say `valid`, since the
//! version orders stay open.
//!
//! Not yet: anomaly types beyond each refused edge's own cycle (the final
//! verdict is the offline check's when the window retired nothing).

pub mod checkers;
mod core;
mod held;
mod list_append;
mod register;
mod rw_register;
mod workload;

pub use checkers::{CheckerEnding, CheckerStream};
pub use core::{About, Ending, Finding, Options, Unknown};
pub use held::{Held, HeldReader};
pub use list_append::StreamCheck;
pub use register::{RegisterEnding, RegisterFinding, RegisterStream};
pub use rw_register::RwRegisterCheck;
pub use workload::{Family, Shape};
