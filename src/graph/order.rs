//! Session and real-time order between transactions, as Elle derives them.

use crate::history::{History, OpId, OpType, Status, TxnId};

/// Process (session) order: each committed transaction to the next committed
/// transaction of the same process (Elle's `process-graph` links `:ok` ops only).
pub fn process_edges(history: &History) -> Vec<(TxnId, TxnId)> {
    let mut last: std::collections::HashMap<i64, TxnId> = std::collections::HashMap::new();
    let mut order: Vec<(OpId, TxnId)> = committed(history).collect();
    order.sort_unstable();
    let mut edges = Vec::new();
    for (_, t) in order {
        let p = history.txn(t).process;
        if let Some(prev) = last.insert(p, t) {
            edges.push((prev, t));
        }
    }
    edges
}

fn committed(history: &History) -> impl Iterator<Item = (OpId, TxnId)> + '_ {
    history.txns.iter().enumerate().filter_map(|(i, t)| {
        let c = t.completion?;
        (t.status == Status::Committed).then_some((c, i as TxnId))
    })
}

/// Real-time order, transitively reduced as Elle's `realtime-graph` does:
/// walking the file, every invocation gets an edge from each buffered `:ok`
/// completion; a new `:ok` completion evicts the buffered ones that already
/// precede it. Only transactions with both an invocation and a completion
/// take part as targets; only `:ok` ones as sources.
pub fn realtime_edges(history: &History) -> Vec<(TxnId, TxnId)> {
    let mut events: Vec<(OpId, TxnId, bool)> = Vec::new();
    for (i, t) in history.txns.iter().enumerate() {
        let (Some(inv), Some(c)) = (t.invoke, t.completion) else {
            continue;
        };
        events.push((inv, i as TxnId, true));
        if history.op(c).ty == OpType::Ok {
            events.push((c, i as TxnId, false));
        }
    }
    events.sort_unstable();
    // `preds[t]`: the buffered completions linked to t's invocation.
    let mut preds: Vec<Vec<TxnId>> = vec![Vec::new(); history.txns.len()];
    let mut buffer: Vec<TxnId> = Vec::new();
    let mut in_buffer = vec![false; history.txns.len()];
    let mut edges = Vec::new();
    for (_, t, is_invoke) in events {
        crate::limits::tick();
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
