//! Generating histories: a simulated database that runs a workload from many
//! client processes and writes the Jepsen history it observed.

pub mod list_append;
pub mod lwt;
pub mod rng;
