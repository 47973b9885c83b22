//! The timeline of an anomaly, after Jepsen's `timeline.html`: one lane per
//! process, a bar per transaction (or register op) from its invocation to
//! its completion, coloured by outcome, the anomaly's own bars outlined and
//! named. Only the involved bars and their few neighbours are drawn, so a
//! timeline costs the same in a history of a million transactions. The x
//! axis is the order of the ops in the file (real time, as the checker
//! reads it); ops no drawn bar touches take no room.

use super::esc;
use crate::history::{History, OpId, Status, Workload};
use crate::report::explain::op_text;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// Bars drawn before and after each involved one, in the order of
/// invocation.
const NEIGHBOURS: usize = 4;
/// At most this many bars in one timeline (involved ones first).
const MAX_BARS: usize = 160;
/// At most this many involved ops are looked up and drawn.
const MAX_INVOLVED: usize = 40;

const LANE: f64 = 24.0;
const STEP: f64 = 30.0;
const LEFT: f64 = 92.0;
const TOP: f64 = 6.0;

/// One transaction or register op: its two ends in the file.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Pair {
    invoke: Option<OpId>,
    completion: Option<OpId>,
    status: Status,
}

impl Pair {
    fn first(&self) -> OpId {
        self.invoke.or(self.completion).unwrap_or(0)
    }
}

/// The history's pairs (transactions, or register ops for cas-register
/// histories), in the order of their first op, read without copying them.
struct Pairs<'a> {
    h: &'a History,
}

impl Pairs<'_> {
    fn len(&self) -> usize {
        match self.h.workload {
            Workload::CasRegister => self.h.registers.len(),
            _ => self.h.txns.len(),
        }
    }

    fn get(&self, i: usize) -> Pair {
        match self.h.workload {
            Workload::CasRegister => {
                let r = &self.h.registers[i];
                Pair {
                    invoke: r.invoke,
                    completion: r.completion,
                    status: r.status,
                }
            }
            _ => {
                let t = &self.h.txns[i];
                Pair {
                    invoke: t.invoke,
                    completion: t.completion,
                    status: t.status,
                }
            }
        }
    }

    /// The pair an op is an end of: pairs are sorted by first op, and the
    /// pair a completion ends began at most as many pairs before it as
    /// there are ops between its two ends.
    fn of_op(&self, op: OpId) -> Option<usize> {
        let mut lo = 0;
        let mut hi = self.len();
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.get(mid).first() <= op {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        (0..lo).rev().find(|&i| {
            let p = self.get(i);
            p.invoke == Some(op) || p.completion == Some(op)
        })
    }
}

/// The op whose text holds byte `offset` of the file, if any: ops are in
/// file order.
pub fn op_at(h: &History, offset: usize) -> Option<OpId> {
    let i = h.ops.partition_point(|o| o.span.start() <= offset);
    let op = h.ops.get(i.checked_sub(1)?)?;
    (offset < op.span.end()).then_some((i - 1) as OpId)
}

/// The timeline of the ops `involved` (each with the name it is shown
/// with), or `None` when none of them is an end of a transaction or
/// register op.
pub fn render(h: &History, involved: &[(OpId, String)]) -> Option<String> {
    let pairs = Pairs { h };
    let mut named: BTreeMap<usize, String> = BTreeMap::new();
    for (op, name) in involved.iter().take(MAX_INVOLVED) {
        if let Some(i) = pairs.of_op(*op) {
            named.entry(i).or_insert_with(|| name.clone());
        }
    }
    if named.is_empty() {
        return None;
    }
    let mut shown: BTreeSet<usize> = named.keys().copied().collect();
    for &i in named.keys() {
        let near = i.saturating_sub(NEIGHBOURS)..(i + NEIGHBOURS + 1).min(pairs.len());
        for j in near {
            if shown.len() >= MAX_BARS {
                break;
            }
            shown.insert(j);
        }
    }
    let bars: Vec<(Pair, Option<&String>)> = shown
        .iter()
        .map(|&i| (pairs.get(i), named.get(&i)))
        .collect();
    Some(draw(h, &bars, pairs.len()))
}

/// The process of a pair's op, or `None` for ops of no client.
fn process(h: &History, p: &Pair) -> Option<i64> {
    h.op(p.first()).process.client()
}

fn draw(h: &History, bars: &[(Pair, Option<&String>)], total: usize) -> String {
    let lanes: BTreeSet<i64> = bars.iter().filter_map(|(p, _)| process(h, p)).collect();
    let lane_of: BTreeMap<i64, usize> = lanes.iter().enumerate().map(|(i, &p)| (p, i)).collect();
    // The x axis: the ends of the drawn bars, in file order, one step each.
    let ends: BTreeSet<OpId> = bars
        .iter()
        .flat_map(|(p, _)| [p.invoke, p.completion])
        .flatten()
        .collect();
    let x_of: BTreeMap<OpId, usize> = ends.iter().enumerate().map(|(i, &o)| (o, i)).collect();
    let x = |rank: usize| LEFT + rank as f64 * STEP;
    let width = x(ends.len() + 1) + 8.0;
    let height = TOP * 2.0 + lanes.len() as f64 * LANE;
    let mut s = format!(
        "<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" \
         height=\"{height}\" viewBox=\"0 0 {width} {height}\">\n"
    );
    for (i, p) in lanes.iter().enumerate() {
        let y = TOP + i as f64 * LANE;
        let _ = write!(
            s,
            "<g class=\"lane\" data-process=\"{p}\"><rect x=\"0\" y=\"{y}\" width=\"{width}\" \
             height=\"{LANE}\"/><text x=\"4\" y=\"{}\">process {p}</text></g>",
            y + LANE * 0.65
        );
        s.push('\n');
    }
    for (p, name) in bars {
        crate::limits::tick();
        let Some(lane) = process(h, p).and_then(|q| lane_of.get(&q)) else {
            continue;
        };
        let start = p.invoke.or(p.completion).map_or(0, |o| x_of[&o]);
        // A bar never completed runs to the end of the axis.
        let end = p.completion.map_or(ends.len(), |o| x_of[&o]);
        let (x0, x1) = (x(start), x(end).max(x(start) + STEP * 0.8));
        let y = TOP + *lane as f64 * LANE + 4.0;
        bar(h, &mut s, p, *name, [x0, x1, y]);
    }
    s.push_str("</svg>");
    let caption = format!(
        "<p class=\"caption\">{} of {total} {} drawn, one lane per process; left to right \
         is the order of the ops in the file.</p>",
        bars.len(),
        match h.workload {
            Workload::CasRegister => "register ops",
            _ => "transactions",
        }
    );
    format!("<div class=\"timeline-box\">{s}</div>\n{caption}\n")
}

/// One bar: its outcome as its class, the op's text and line as its
/// tooltip, and its name inside when it is one of the anomaly's.
fn bar(h: &History, s: &mut String, p: &Pair, name: Option<&String>, [x0, x1, y]: [f64; 3]) {
    let outcome = match (p.status, p.completion) {
        (Status::Committed, _) => "ok",
        (Status::Aborted, _) => "fail",
        (Status::Indeterminate, Some(_)) => "info",
        (Status::Indeterminate, None) => "open",
    };
    let op = p.completion.or(p.invoke).unwrap_or(0);
    let index = h.op(op).index;
    let line = h.source.line(h.op(op).span.start());
    let involved = if name.is_some() { " involved" } else { "" };
    let _ = write!(
        s,
        "<g class=\"bar {outcome}{involved}\" data-index=\"{index}\" data-process=\"{}\"><title>{}index {index}, \
         line {line}: {}</title><rect x=\"{}\" y=\"{y}\" width=\"{}\" height=\"{}\" rx=\"3\"/>",
        process(h, p).unwrap_or_default(),
        name.map_or(String::new(), |n| format!("{}: ", esc(n))),
        esc(&crate::report::explain::clip(&op_text(h, op), 200)),
        x0,
        x1 - x0,
        LANE - 8.0
    );
    if let Some(n) = name {
        let _ = write!(
            s,
            "<text x=\"{}\" y=\"{}\">{}</text>",
            x0 + 3.0,
            y + LANE * 0.45,
            esc(n)
        );
    }
    s.push_str("</g>\n");
}
