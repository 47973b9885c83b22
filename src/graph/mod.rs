//! The transaction dependency graph: a compact CSR over transaction ids with
//! typed edges, strongly connected components, and the session and
//! real-time orders. Knows nothing of models or anomaly names.

pub mod order;
