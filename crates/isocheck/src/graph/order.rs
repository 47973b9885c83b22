//! Session and real-time order between transactions, as Elle derives them,
//! extended to indeterminate transactions by their definitions.
//!
//! A transaction that ended `:info`, or whose invocation never completed,
//! may take effect at any time after its invocation: when it committed (its
//! write was observed) it follows everything its process or anyone else
//! completed before it was invoked, and precedes nothing. So it is a
//! target of both orders, never a source. Elle links `:ok` ops only; the
//! extra edges make `G1c-process` and `G1c-realtime` (and their kin) of
//! such histories visible (`tests/data/elle-differences.tsv`).

use crate::history::{History, OpId, OpType, Status, TxnId};
use std::ops::Range;

/// Process (session) order: each committed transaction to the next committed
/// transaction of the same process (Elle's `process-graph`), and to each
/// indeterminate transaction of the process invoked after it, from the last
/// committed one before it. The transitive closure is the whole order.
pub fn process_edges(history: &History) -> Vec<(TxnId, TxnId)> {
    let mut last: std::collections::HashMap<i64, TxnId> = std::collections::HashMap::new();
    let mut edges = Vec::new();
    for (_, t) in in_process_order(history) {
        let txn = history.txn(t);
        if let Some(&prev) = last.get(&txn.process) {
            edges.push((prev, t));
        }
        if txn.status == Status::Committed {
            last.insert(txn.process, t);
        }
    }
    edges
}

/// The committed chain of process order alone: each committed transaction
/// to the next committed one of its process.
pub fn committed_process_edges(history: &History) -> Vec<(TxnId, TxnId)> {
    process_edges(history)
        .into_iter()
        .filter(|&(_, b)| history.txn(b).status == Status::Committed)
        .collect()
}

/// The transactions that did not abort, by the position of the op standing
/// for them (a process's ops do not overlap, so this is its order).
fn in_process_order(history: &History) -> Vec<(OpId, TxnId)> {
    let mut order: Vec<(OpId, TxnId)> = history
        .txns
        .iter()
        .enumerate()
        .filter(|(_, t)| t.status != Status::Aborted)
        .map(|(i, t)| (t.op(), i as TxnId))
        .collect();
    order.sort_unstable();
    order
}

/// Real-time order, transitively reduced as Elle's `realtime-graph` does:
/// walking the file, every invocation gets an edge from each buffered `:ok`
/// completion; a new `:ok` completion evicts the buffered ones that already
/// precede it. Every invoked transaction takes part as a target (one with
/// no completion, too: it may still take effect); only `:ok` ones as
/// sources.
///
/// Time is O(n log n) for the sort plus O(edges): evictions mark entries
/// instead of rescanning the buffer on every completion (which was quadratic
/// in the number of concurrently open transactions).
pub fn realtime_edges(history: &History) -> Vec<(TxnId, TxnId)> {
    let n = history.txns.len();
    let mut buffer = Buffer::new(n);
    // `linked[t]`: the range of `edges` made at t's invocation, whose sources
    // are exactly the completions t's own completion evicts.
    let mut linked: Vec<Range<usize>> = vec![0..0; n];
    let mut edges = Vec::new();
    for (_, t, is_invoke) in realtime_events(history) {
        crate::limits::tick();
        if is_invoke {
            let start = edges.len();
            edges.extend(buffer.live().map(|a| (a, t)));
            linked[t as usize] = start..edges.len();
        } else {
            let range = std::mem::take(&mut linked[t as usize]);
            for i in range {
                buffer.evict(edges[i].0);
            }
            buffer.push(t);
        }
    }
    edges
}

/// Invocations (`true`) and `:ok` completions (`false`) in file order.
pub(crate) fn realtime_events(history: &History) -> Vec<(OpId, TxnId, bool)> {
    let mut events: Vec<(OpId, TxnId, bool)> = Vec::new();
    for (i, t) in history.txns.iter().enumerate() {
        let Some(inv) = t.invoke else {
            continue;
        };
        events.push((inv, i as TxnId, true));
        if let Some(c) = t.completion.filter(|&c| history.op(c).ty == OpType::Ok) {
            events.push((c, i as TxnId, false));
        }
    }
    events.sort_unstable();
    events
}

/// The buffered completions in the order they were buffered. Eviction only
/// clears a flag; the list is compacted once evicted entries outnumber live
/// ones, so a walk costs O(live entries) and compaction is paid for by the
/// evictions that preceded it.
struct Buffer {
    order: Vec<TxnId>,
    live: Vec<bool>,
    evicted: usize,
}

impl Buffer {
    fn new(txns: usize) -> Buffer {
        Buffer {
            order: Vec::new(),
            live: vec![false; txns],
            evicted: 0,
        }
    }

    fn live(&self) -> impl Iterator<Item = TxnId> + '_ {
        self.order
            .iter()
            .copied()
            .filter(|&a| self.live[a as usize])
    }

    fn evict(&mut self, a: TxnId) {
        if std::mem::replace(&mut self.live[a as usize], false) {
            self.evicted += 1;
        }
    }

    /// Each transaction completes once, so it is pushed at most once.
    fn push(&mut self, t: TxnId) {
        if 2 * self.evicted > self.order.len() {
            let live = &self.live;
            self.order.retain(|&a| live[a as usize]);
            self.evicted = 0;
        }
        self.order.push(t);
        self.live[t as usize] = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The rescanning version `realtime_edges` replaced, kept as the reference
    /// the proptest holds it to.
    fn realtime_edges_rescanning(history: &History) -> Vec<(TxnId, TxnId)> {
        let mut preds: Vec<Vec<TxnId>> = vec![Vec::new(); history.txns.len()];
        let mut buffer: Vec<TxnId> = Vec::new();
        let mut in_buffer = vec![false; history.txns.len()];
        let mut edges = Vec::new();
        for (_, t, is_invoke) in realtime_events(history) {
            if is_invoke {
                for &a in &buffer {
                    edges.push((a, t));
                }
                preds[t as usize] = buffer.clone();
            } else {
                for &a in &preds[t as usize] {
                    in_buffer[a as usize] = false;
                }
                preds[t as usize] = Vec::new();
                buffer.retain(|&a| in_buffer[a as usize]);
                buffer.push(t);
                in_buffer[t as usize] = true;
            }
        }
        edges
    }

    /// A history from `steps`: each picks a process, which invokes a
    /// transaction when it has none open, else completes it (`:ok`, `:fail`
    /// or `:info` by `kind`); transactions still open at the end stay so.
    fn interleaving(processes: usize, steps: &[(usize, u8)]) -> History {
        let mut open = vec![false; processes];
        let mut text = String::new();
        for &(p, kind) in steps {
            let p = p % processes;
            let ty = if !open[p] {
                "invoke"
            } else {
                ["ok", "ok", "fail", "info"][kind as usize % 4]
            };
            open[p] = !open[p];
            text.push_str(&format!(
                "{{:type :{ty}, :f :txn, :value [[:append 0 {}]], :process {p}}}\n",
                text.len()
            ));
        }
        crate::history::parse_edn("interleaving.edn", &text).expect("a well-formed history")
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        #[test]
        fn same_edges_in_the_same_order_as_rescanning(
            processes in 1usize..12,
            steps in proptest::collection::vec((0usize..12, 0u8..4), 0..120),
        ) {
            let h = interleaving(processes, &steps);
            prop_assert_eq!(realtime_edges(&h), realtime_edges_rescanning(&h));
        }
    }

    /// Every transaction invoked before any completes: no edges.
    #[test]
    fn all_concurrent_has_no_edges() {
        let steps: Vec<(usize, u8)> = (0..200).chain(0..200).map(|p| (p, 0)).collect();
        let h = interleaving(200, &steps);
        assert_eq!(h.txns.len(), 200);
        assert!(realtime_edges(&h).is_empty());
    }

    proptest! {
        /// What bounds the work: the buffer never holds more than twice its
        /// live entries (plus the one just pushed), so a walk costs O(live),
        /// and compactions rescan at most twice the entries ever pushed.
        #[test]
        fn buffer_stays_within_twice_its_live_entries(
            evictions in proptest::collection::vec(proptest::collection::vec(0u32..300, 0..6), 300),
        ) {
            let mut buffer = Buffer::new(300);
            let mut compacted = 0;
            for (t, evict) in evictions.iter().enumerate() {
                for &a in evict {
                    buffer.evict(a);
                }
                let before = buffer.order.len();
                buffer.push(t as u32);
                if buffer.order.len() <= before {
                    compacted += before;
                }
                let live = buffer.live().count();
                prop_assert!(buffer.order.len() <= 2 * live + 1);
                prop_assert_eq!(live, buffer.live.iter().filter(|&&l| l).count());
            }
            prop_assert!(compacted <= 2 * evictions.len());
        }
    }
}
