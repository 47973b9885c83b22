//! The timeline of an anomaly, after Jepsen's `timeline.html`: one lane per
//! process, a bar per transaction (or register op) from its invocation to
//! its completion, coloured by outcome, the anomaly's own bars outlined and
//! named, and the nemesis's faults (`nemesis.rs`) shaded across the lanes.
//! Only the involved bars and their few neighbours are drawn, so a
//! timeline costs the same in a history of a million transactions. The x
//! axis is time (the ops' `:time`), or the order of the ops in the file
//! when some op has none (the page says which). Two views are drawn, the
//! anomaly's bars zoomed in and the whole run, and a checkbox the
//! stylesheet reads (`page.css`) switches between them without a script.

use super::esc;
use super::nemesis::{self, Window};
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
const LEFT: f64 = 92.0;
const TOP: f64 = 6.0;
/// The width of the drawing's time axis, in pixels.
const WIDTH: f64 = 1000.0;
/// The height of the axis's labels under the lanes.
const AXIS: f64 = 18.0;
/// The narrowest bar or fault drawn, in pixels.
const THIN: f64 = 2.0;

/// How the x axis is measured.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Clock {
    /// The ops' `:time`, in nanoseconds.
    Time,
    /// The ops' positions in the file.
    Order,
}

/// What every timeline of a page shares: the clock, the extent of the
/// history on it and the nemesis's faults. Read once per page.
pub struct Run {
    clock: Clock,
    start: f64,
    end: f64,
    faults: Vec<Window>,
    faults_total: usize,
}

impl Run {
    /// The clock of `h` (time when every op has one), its extent and its
    /// faults.
    pub fn of(h: &History) -> Run {
        let timed = !h.ops.is_empty()
            && h.ops.iter().all(|o| {
                crate::limits::tick();
                o.time().is_some()
            });
        let clock = if timed { Clock::Time } else { Clock::Order };
        let at = |i: usize| pos(h, clock, i);
        let (start, end) = (0..h.ops.len()).fold((f64::MAX, f64::MIN), |(lo, hi), i| {
            (lo.min(at(i)), hi.max(at(i)))
        });
        let (start, end) = match start <= end {
            true => (start, end),
            false => (0.0, 0.0),
        };
        let (faults, faults_total) = nemesis::windows(h, &at, end);
        Run {
            clock,
            start,
            end,
            faults,
            faults_total,
        }
    }

    /// Where op `op` of `h` is on the clock.
    fn at(&self, h: &History, op: OpId) -> f64 {
        pos(h, self.clock, op as usize)
    }
}

/// Where the op at position `i` of the file is on `clock`. Nanoseconds as
/// f64: exact to 2^53 ns (104 days), and no arithmetic on them overflows.
fn pos(h: &History, clock: Clock, i: usize) -> f64 {
    match clock {
        Clock::Time => h.ops.get(i).and_then(|o| o.time()).unwrap_or_default() as f64,
        Clock::Order => i as f64,
    }
}

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
/// register op; `id` names its view switch (unique on the page).
pub fn render(h: &History, run: &Run, involved: &[(OpId, String)], id: &str) -> Option<String> {
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
    Some(draw(h, run, &bars, pairs.len(), id))
}

/// The process of a pair's op, or `None` for ops of no client.
fn process(h: &History, p: &Pair) -> Option<i64> {
    h.op(p.first()).process.client()
}

/// A stretch of the clock drawn across [`WIDTH`] pixels.
#[derive(Clone, Copy)]
struct View {
    from: f64,
    to: f64,
    /// `in-anomaly` or `in-run`: the class the stylesheet shows or hides.
    class: &'static str,
}

impl View {
    /// The x of clock reading `t`, kept just outside the drawing when it is
    /// off it.
    fn x(&self, t: f64) -> f64 {
        let span = (self.to - self.from).max(f64::MIN_POSITIVE);
        ((t - self.from) / span * WIDTH).clamp(-THIN, WIDTH + THIN)
    }

    /// The left end and the width of the stretch `[a, b]`, at least
    /// [`THIN`] wide.
    fn stretch(&self, a: f64, b: f64) -> (f64, f64) {
        let (x0, x1) = (self.x(a), self.x(b));
        (x0, (x1 - x0).max(THIN))
    }

    fn shows(&self, a: f64, b: f64) -> bool {
        b >= self.from && a <= self.to
    }
}

/// The two views: the drawn bars with a margin, and the whole run.
fn views(run: &Run, spans: &[(f64, f64)]) -> [View; 2] {
    let lo = spans.iter().map(|s| s.0).fold(f64::MAX, f64::min);
    let hi = spans.iter().map(|s| s.1).fold(f64::MIN, f64::max);
    let (lo, hi) = match lo <= hi {
        true => (lo, hi),
        false => (run.start, run.end),
    };
    let least = match run.clock {
        Clock::Time => 1e6,
        Clock::Order => 4.0,
    };
    let margin = ((hi - lo) * 0.06).max(least / 2.0);
    [
        View {
            from: lo - margin,
            to: hi + margin,
            class: "in-anomaly",
        },
        View {
            from: run.start,
            to: run.end.max(run.start + least),
            class: "in-run",
        },
    ]
}

fn draw(
    h: &History,
    run: &Run,
    bars: &[(Pair, Option<&String>)],
    total: usize,
    id: &str,
) -> String {
    let lanes: BTreeSet<i64> = bars.iter().filter_map(|(p, _)| process(h, p)).collect();
    let lane_of: BTreeMap<i64, usize> = lanes.iter().enumerate().map(|(i, &p)| (p, i)).collect();
    // Each bar from its invocation to its completion; a bar never completed
    // runs to the end of the run, and does not widen the anomaly's view.
    let spans: Vec<(f64, f64)> = bars
        .iter()
        .map(|(p, _)| {
            let a = run.at(h, p.first());
            (a, p.completion.map_or(a, |c| run.at(h, c)))
        })
        .collect();
    let views = views(run, &spans);
    let nemesis_lane = if run.faults.is_empty() { 0.0 } else { LANE };
    let lanes_top = TOP + nemesis_lane;
    let bottom = lanes_top + lanes.len() as f64 * LANE;
    let width = LEFT + WIDTH + 8.0;
    let height = bottom + AXIS + TOP;
    let mut s = format!(
        "<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" \
         height=\"{height}\" viewBox=\"0 0 {width} {height}\">\n"
    );
    if nemesis_lane > 0.0 {
        let _ = writeln!(
            s,
            "<g class=\"nemesis-lane\"><rect x=\"0\" y=\"{TOP}\" width=\"{width}\" \
             height=\"{LANE}\"/><text x=\"4\" y=\"{}\">nemesis</text></g>",
            TOP + LANE * 0.65
        );
    }
    for (i, p) in lanes.iter().enumerate() {
        let y = lanes_top + i as f64 * LANE;
        let _ = write!(
            s,
            "<g class=\"lane\" data-process=\"{p}\"><rect x=\"0\" y=\"{y}\" width=\"{width}\" \
             height=\"{LANE}\"/><text x=\"4\" y=\"{}\">process {p}</text></g>",
            y + LANE * 0.65
        );
        s.push('\n');
    }
    // The drawing's own coordinates from here on: what is off the view is
    // clipped by the nested `svg`.
    let _ = writeln!(
        s,
        "<svg class=\"axis\" x=\"{LEFT}\" y=\"0\" width=\"{WIDTH}\" height=\"{}\">",
        bottom + AXIS
    );
    for w in &run.faults {
        crate::limits::tick();
        fault(&mut s, w, &views, [TOP, bottom]);
    }
    for ((p, name), &(a, b)) in bars.iter().zip(&spans) {
        crate::limits::tick();
        let Some(lane) = process(h, p).and_then(|q| lane_of.get(&q)) else {
            continue;
        };
        let b = if p.completion.is_some() { b } else { run.end };
        let y = lanes_top + *lane as f64 * LANE + 4.0;
        bar(h, &mut s, p, *name, &views, [a, b, y]);
    }
    for v in &views {
        ticks(&mut s, run, v, bottom);
    }
    s.push_str("</svg></svg>");
    let switch = format!("{id}-whole-run");
    format!(
        "<div class=\"timeline-view\"><input type=\"checkbox\" class=\"whole-run\" id=\"{0}\">\
         <label for=\"{0}\">show the whole run</label>\n<div class=\"timeline-box\">{s}</div>\n{1}</div>\n",
        esc(&switch),
        caption(h, run, bars.len(), total)
    )
}

/// What the timeline draws, in words: how many bars, which clock, the
/// faults.
fn caption(h: &History, run: &Run, drawn: usize, total: usize) -> String {
    let what = match h.workload {
        Workload::CasRegister => "register ops",
        _ => "transactions",
    };
    let clock = match run.clock {
        Clock::Time => "left to right is time (the ops' :time), zoomed to the anomaly",
        Clock::Order => {
            "the ops carry no :time, so left to right is the order of the ops in the file, \
             not time; zoomed to the anomaly"
        }
    };
    let faults = match (run.faults_total, run.faults.len()) {
        (0, _) => "no nemesis ops in the history".to_string(),
        (n, k) if n == k => format!("shaded: the nemesis's {n} faults"),
        (n, k) => format!("shaded: the first {k} of the nemesis's {n} faults"),
    };
    format!(
        "<p class=\"caption\">{drawn} of {total} {what} drawn, one lane per process; {clock}; \
         {faults}.</p>"
    )
}

/// One fault, shaded across the lanes in each view it reaches, named in
/// the nemesis lane.
fn fault(s: &mut String, w: &Window, views: &[View; 2], [top, bottom]: [f64; 2]) {
    let ended = if w.ended { "" } else { ", never ended" };
    let _ = write!(
        s,
        "<g class=\"fault\" data-f=\"{0}\"><title>nemesis :{0} from index {1}{ended}</title>",
        esc(&w.f),
        w.index
    );
    for v in views.iter().filter(|v| v.shows(w.from, w.to)) {
        let (x, width) = v.stretch(w.from, w.to);
        let _ = write!(
            s,
            "<rect class=\"{}\" x=\"{}\" y=\"{top}\" width=\"{}\" height=\"{}\"/>\
             <text class=\"{0}\" x=\"{}\" y=\"{}\">{}</text>",
            v.class,
            n(x),
            n(width),
            bottom - top,
            n(x.max(0.0) + 3.0),
            top + LANE * 0.65,
            esc(&w.f)
        );
    }
    s.push_str("</g>\n");
}

/// The axis's ticks and their labels in one view: seconds from the
/// history's first op, or positions in the file.
fn ticks(s: &mut String, run: &Run, v: &View, bottom: f64) {
    let unit = match run.clock {
        Clock::Time => 1e9,
        Clock::Order => 1.0,
    };
    let step = nice_step((v.to - v.from) / unit / 8.0) * unit;
    let _ = write!(s, "<g class=\"ticks {}\">", v.class);
    let first = ((v.from - run.start) / step).ceil();
    for k in 0..20u32 {
        let t = run.start + (first + f64::from(k)) * step;
        if t > v.to {
            break;
        }
        let x = v.x(t);
        let label = match run.clock {
            Clock::Time => {
                let digits = (-(step / unit).log10()).ceil().clamp(0.0, 9.0) as usize;
                format!("{:.digits$} s", (t - run.start) / unit)
            }
            Clock::Order => format!("op {}", t as i64),
        };
        let _ = write!(
            s,
            "<line x1=\"{0}\" y1=\"{TOP}\" x2=\"{0}\" y2=\"{bottom}\"/>\
             <text x=\"{0}\" y=\"{1}\">{label}</text>",
            n(x),
            bottom + AXIS - 4.0
        );
    }
    s.push_str("</g>\n");
}

/// 1, 2 or 5 times a power of ten, at least `raw` (and at least 1 for
/// positions in the file, which are whole).
fn nice_step(raw: f64) -> f64 {
    let raw = if raw.is_finite() && raw > 0.0 {
        raw
    } else {
        1.0
    };
    let power = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * power)
        .find(|&x| x >= raw)
        .unwrap_or(10.0 * power)
}

/// Coordinates rounded to a tenth of a pixel, so that the page is stable
/// and small.
fn n(x: f64) -> String {
    let r = (x * 10.0).round() / 10.0;
    format!("{r}")
}

/// One bar: its outcome as its class, the op's text and line as its
/// tooltip, its place in each view, and its name inside when it is one of
/// the anomaly's.
fn bar(
    h: &History,
    s: &mut String,
    p: &Pair,
    name: Option<&String>,
    views: &[View; 2],
    [a, b, y]: [f64; 3],
) {
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
         line {line}: {}</title>",
        process(h, p).unwrap_or_default(),
        name.map_or(String::new(), |n| format!("{}: ", esc(n))),
        esc(&crate::report::explain::clip(&op_text(h, op), 200)),
    );
    for v in views {
        let (x, width) = v.stretch(a, b);
        let _ = write!(
            s,
            "<rect class=\"{}\" x=\"{}\" y=\"{y}\" width=\"{}\" height=\"{}\" rx=\"3\"/>",
            v.class,
            n(x),
            n(width),
            LANE - 8.0
        );
        if let Some(name) = name {
            let _ = write!(
                s,
                "<text class=\"{}\" x=\"{}\" y=\"{}\">{}</text>",
                v.class,
                n(x + 3.0),
                y + LANE * 0.45,
                esc(name)
            );
        }
    }
    s.push_str("</g>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_one_two_or_five_times_a_power_of_ten() {
        assert_eq!(nice_step(0.3), 0.5);
        assert_eq!(nice_step(1.0), 1.0);
        assert_eq!(nice_step(1.2), 2.0);
        assert_eq!(nice_step(30.0), 50.0);
        assert_eq!(nice_step(0.0), 1.0);
        assert_eq!(nice_step(f64::NAN), 1.0);
    }

    #[test]
    fn a_view_keeps_what_is_off_it_just_outside() {
        let v = View {
            from: 10.0,
            to: 20.0,
            class: "in-anomaly",
        };
        assert_eq!(v.x(15.0), WIDTH / 2.0);
        assert_eq!(v.x(-1e18), -THIN);
        assert_eq!(v.x(1e18), WIDTH + THIN);
        assert_eq!(v.stretch(12.0, 12.0).1, THIN);
        assert!(!v.shows(0.0, 9.0) && v.shows(0.0, 10.0));
    }
}
