//! Latency and throughput over time, as Jepsen's perf checker draws them
//! (`latency-raw.png`, `rate.png`), in SVG: `latency-raw.svg` has a point
//! per completed client op at its invocation time, its latency on a log
//! scale, coloured by outcome (`:ok`, `:info`, `:fail`); `rate.svg` has the
//! completions per second of each outcome. Both shade the nemesis's fault
//! windows. They are drawn from any history whose ops carry `:time`
//! (nanoseconds), so `isocheck check` could draw them too.
//!
//! Drawn with `plotters`, its SVG backend alone (no fonts, no bitmaps, no
//! system libraries): a clean release build of it and its three
//! dependencies took 3.3 s of CPU and added 171 KB to a binary (measured
//! with a probe crate, `cargo build --release` with `codegen-units = 4`):
//! little, for axes, log-scale ticks and legends we would otherwise write.

use isocheck::history::{History, OpType, Process};
use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::collections::HashMap;
use std::io;

/// The plots' size in pixels, Jepsen's.
const SIZE: (u32, u32) = (900, 400);

/// The most points the latency plot draws: past it, an even sample (every
/// n-th op), and the caption says so. A point is about 110 bytes of SVG,
/// so the file stays under about 11 MB whatever the run's length.
const MAX_POINTS: usize = 100_000;

/// How a client op completed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Ok,
    Info,
    Fail,
}

impl Outcome {
    const ALL: [Outcome; 3] = [Outcome::Ok, Outcome::Info, Outcome::Fail];

    fn name(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Info => "info",
            Outcome::Fail => "fail",
        }
    }

    /// Jepsen's perf colours.
    fn colour(self) -> RGBColor {
        match self {
            Outcome::Ok => RGBColor(0x81, 0xBF, 0xFC),
            Outcome::Info => RGBColor(0xFF, 0xA4, 0x00),
            Outcome::Fail => RGBColor(0xFF, 0x1E, 0x90),
        }
    }
}

/// A completed client op: when it was invoked and completed (seconds),
/// and how.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    pub invoked: f64,
    pub completed: f64,
    pub outcome: Outcome,
}

impl Sample {
    /// Milliseconds, at least a microsecond (the scale is logarithmic).
    fn latency_ms(&self) -> f64 {
        ((self.completed - self.invoked) * 1e3).max(1e-3)
    }
}

/// A fault in force from `start` to `end` (seconds), named by the
/// nemesis op that began it.
#[derive(Clone, Debug, PartialEq)]
pub struct Window {
    pub name: String,
    pub start: f64,
    pub end: f64,
}

/// The client ops that completed, each paired with its process's
/// invocation (as Jepsen pairs them), in the order of their completions.
/// Ops without `:time`, and completions with no invocation, are left out.
pub fn samples(history: &History) -> Vec<Sample> {
    let mut open: HashMap<i64, Option<f64>> = HashMap::new();
    let mut out = Vec::new();
    for op in &history.ops {
        isocheck::limits::tick();
        let Process::Client(p) = op.process else {
            continue;
        };
        let time = op.time().map(seconds);
        let outcome = match op.ty {
            OpType::Invoke => {
                open.insert(p, time);
                continue;
            }
            OpType::Ok => Outcome::Ok,
            OpType::Info => Outcome::Info,
            OpType::Fail => Outcome::Fail,
        };
        if let (Some(Some(invoked)), Some(completed)) = (open.remove(&p), time) {
            out.push(Sample {
                invoked,
                completed,
                outcome,
            });
        }
    }
    out
}

/// Nanoseconds as seconds.
fn seconds(ns: i64) -> f64 {
    ns as f64 / 1e9
}

/// A nemesis action: its op beginning it and the op with its outcome
/// (Jepsen's nemesis writes two `:info` ops with the same `:f`).
struct Action {
    f: String,
    begin: f64,
    end: f64,
}

/// The nemesis's actions, from its ops with a `:time`; one begun and never
/// ended lasts to the end of the history.
fn actions(history: &History) -> Vec<Action> {
    let mut done = Vec::new();
    let mut begun: Option<Action> = None;
    let mut last = 0.0f64;
    for op in &history.ops {
        let Some(time) = op.time().map(seconds) else {
            continue;
        };
        last = last.max(time);
        if !is_nemesis(history, op.process) {
            continue;
        }
        let f = history.values.text(op.f);
        let f = f.trim_start_matches(':');
        match begun.take() {
            Some(mut a) if a.f == f => {
                a.end = time;
                done.push(a);
            }
            other => {
                done.extend(other);
                let f = f.to_string();
                begun = Some(Action {
                    f,
                    begin: time,
                    end: time,
                });
            }
        }
    }
    if let Some(mut a) = begun {
        a.end = last;
        done.push(a);
    }
    done.sort_by(|a, b| a.begin.total_cmp(&b.begin));
    done
}

fn is_nemesis(history: &History, process: Process) -> bool {
    matches!(process, Process::Other(v) if history.values.text(v) == ":nemesis")
}

/// Whether a nemesis action `then` ends the fault `first` began: the
/// database nemesis's `kill`/`start` and `pause`/`resume` (what `isocheck
/// run` records), Jepsen's partitioner's `start`/`stop` and the combined
/// nemesis's `start-X`/`stop-X`.
fn ends(first: &str, then: &str) -> bool {
    match (first, then) {
        ("kill", "start") | ("pause", "resume") | ("start", "stop") => true,
        _ => first
            .strip_prefix("start-")
            .is_some_and(|x| then.strip_prefix("stop-") == Some(x)),
    }
}

/// The fault windows: an action followed by the one that ends its fault
/// spans both; any other action spans itself (`kill-connections`).
pub fn windows(history: &History) -> Vec<Window> {
    let actions = actions(history);
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(a) = actions.get(i) {
        let closer = actions.get(i + 1).filter(|b| ends(&a.f, &b.f));
        out.push(Window {
            name: a.f.clone(),
            start: a.begin,
            end: closer.map_or(a.end, |b| b.end),
        });
        i += if closer.is_some() { 2 } else { 1 };
    }
    out
}

/// The time axis: from 0 (or the first time, if earlier) to the last op.
fn time_range(history: &History) -> (f64, f64) {
    let times = history.ops.iter().filter_map(|o| o.time().map(seconds));
    let (lo, hi) = times.fold((0.0f64, 0.0f64), |(lo, hi), t| (lo.min(t), hi.max(t)));
    (lo, if hi > lo { hi } else { lo + 1.0 })
}

/// `latency-raw.svg`.
pub fn latency_raw_svg(history: &History) -> io::Result<String> {
    latency_raw(history, MAX_POINTS)
}

/// `latency-raw.svg` with at most about `max_points` points.
fn latency_raw(history: &History, max_points: usize) -> io::Result<String> {
    let samples = samples(history);
    let stride = samples.len().div_ceil(max_points.max(1)).max(1);
    let title = match stride {
        1 => "Raw latency".to_string(),
        n => format!("Raw latency (one op in {n}, of {})", samples.len()),
    };
    let drawn: Vec<&Sample> = samples.iter().step_by(stride).collect();
    let (lo, hi) = log_range(drawn.iter().map(|s| s.latency_ms()));
    let chart = Chart {
        title: &title,
        y_desc: "Latency (ms)",
        x: time_range(history),
        windows: windows(history),
    };
    svg(|root| {
        let mut c = chart.build(root, LogCoord::from((lo..hi).log_scale()))?;
        chart.shade(&mut c, lo, hi)?;
        for outcome in present(&samples) {
            let points = drawn.iter().filter(|s| s.outcome == outcome);
            let style = outcome.colour().filled();
            let dots = points.map(|s| Circle::new((s.invoked, s.latency_ms()), 2, style));
            let series = c.draw_series(dots)?;
            series
                .label(outcome.name())
                .legend(swatch(outcome.colour()));
        }
        legend(&mut c)
    })
}

/// The outcomes some op had: the only ones a legend names.
fn present(samples: &[Sample]) -> impl Iterator<Item = Outcome> + '_ {
    Outcome::ALL
        .into_iter()
        .filter(|o| samples.iter().any(|s| s.outcome == *o))
}

/// The y axis of a log-scale plot: powers of ten around the values.
fn log_range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values.fold((f64::INFINITY, 0.0f64), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    if !lo.is_finite() {
        return (0.1, 1000.0);
    }
    let lo = 10f64.powf(lo.log10().floor());
    let hi = 10f64.powf(hi.log10().ceil());
    (lo, if hi > lo { hi } else { lo * 10.0 })
}

/// `rate.svg`: completions per second of each outcome, counted in buckets
/// of about a sixtieth of the run.
pub fn rate_svg(history: &History) -> io::Result<String> {
    let samples = samples(history);
    let x = time_range(history);
    let dt = bucket(x.1 - x.0);
    let series: Vec<(Outcome, Vec<(f64, f64)>)> = present(&samples)
        .map(|o| (o, rates(&samples, o, x, dt)))
        .collect();
    let top = series
        .iter()
        .flat_map(|(_, r)| r.iter().map(|p| p.1))
        .fold(1.0f64, f64::max)
        * 1.1;
    let chart = Chart {
        title: "Throughput",
        y_desc: "Throughput (ops/s)",
        x,
        windows: windows(history),
    };
    svg(|root| {
        let mut c = chart.build(root, RangedCoordf64::from(0.0..top))?;
        chart.shade(&mut c, 0.0, top)?;
        for (outcome, points) in &series {
            let line = LineSeries::new(points.iter().copied(), outcome.colour().stroke_width(2));
            let drawn = c.draw_series(line)?;
            drawn.label(outcome.name()).legend(swatch(outcome.colour()));
        }
        legend(&mut c)
    })
}

/// A round bucket width (1, 2 or 5 times a power of ten seconds) giving
/// about 60 buckets over `span` seconds.
fn bucket(span: f64) -> f64 {
    let raw = (span / 60.0).max(1e-3);
    let base = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * base)
        .find(|w| *w >= raw)
        .unwrap_or(10.0 * base)
}

/// Completions of `outcome` per second in each bucket of `dt` seconds
/// from `x.0`, at the buckets' middles.
fn rates(samples: &[Sample], outcome: Outcome, x: (f64, f64), dt: f64) -> Vec<(f64, f64)> {
    // At most about 61 buckets (`bucket`), so the cast cannot overflow.
    let n = ((x.1 - x.0) / dt).ceil().max(1.0) as usize;
    let mut counts = vec![0u64; n];
    for s in samples.iter().filter(|s| s.outcome == outcome) {
        let i = ((s.completed - x.0) / dt).floor().max(0.0) as usize;
        if let Some(c) = counts.get_mut(i.min(n - 1)) {
            *c += 1;
        }
    }
    let middle = |i: usize| x.0 + (i as f64 + 0.5) * dt;
    counts
        .iter()
        .enumerate()
        .map(|(i, &c)| (middle(i), c as f64 / dt))
        .collect()
}

/// What both plots share: the title, the axes and the fault windows.
struct Chart<'a> {
    title: &'a str,
    y_desc: &'a str,
    x: (f64, f64),
    windows: Vec<Window>,
}

type Error = Box<dyn std::error::Error>;
type Area<'b> = DrawingArea<SVGBackend<'b>, Shift>;
type Plot<'a, 'b, Y> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, Y>>;

impl Chart<'_> {
    /// The chart on `root`, its y axis `y`, with its axes drawn.
    fn build<'a, 'b, Y>(&self, root: &'a Area<'b>, y: Y) -> Result<Plot<'a, 'b, Y>, Error>
    where
        Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
    {
        let mut c = ChartBuilder::on(root)
            .caption(self.title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(64)
            .build_cartesian_2d(self.x.0..self.x.1, y)?;
        c.configure_mesh()
            .x_desc("Time (s)")
            .y_desc(self.y_desc)
            .draw()?;
        Ok(c)
    }

    /// Shades each fault window from `lo` to `hi` on the y axis, a colour
    /// per fault name, each at least three pixels wide (a `kill` takes
    /// milliseconds: narrower, it would not be seen).
    fn shade<Y: Ranged<ValueType = f64>>(
        &self,
        c: &mut Plot<'_, '_, Y>,
        lo: f64,
        hi: f64,
    ) -> Result<(), Error> {
        let narrowest = 3.0 * (self.x.1 - self.x.0) / f64::from(SIZE.0);
        let mut names: Vec<&str> = Vec::new();
        for w in &self.windows {
            if !names.contains(&w.name.as_str()) {
                names.push(&w.name);
            }
        }
        for (i, name) in names.iter().enumerate() {
            let colour = FAULT_COLOURS[i % FAULT_COLOURS.len()];
            let of_name = self.windows.iter().filter(|w| w.name == *name);
            let style = colour.mix(0.5).filled();
            let rects = of_name.map(|w| {
                let end = w.end.max(w.start + narrowest);
                Rectangle::new([(w.start, lo), (end, hi)], style)
            });
            let drawn = c.draw_series(rects)?;
            drawn.label(printable(name)).legend(swatch(colour));
        }
        Ok(())
    }
}

/// The faults' colours, Jepsen's combined nemesis's.
const FAULT_COLOURS: [RGBColor; 4] = [
    RGBColor(0xE9, 0xA4, 0xA0),
    RGBColor(0xC5, 0xA0, 0xE9),
    RGBColor(0xE9, 0xDC, 0xA0),
    RGBColor(0xA0, 0xE9, 0xDB),
];

/// A name from the history as a label: no control characters, which XML
/// cannot hold even escaped.
fn printable(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

/// A legend's marker: a square (never a circle, so that the latency plot's
/// circles are its points).
fn swatch(colour: RGBColor) -> impl Fn((i32, i32)) -> Rectangle<(i32, i32)> {
    move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], colour.filled())
}

fn legend<'a, 'b: 'a, Y: Ranged>(c: &mut Plot<'a, 'b, Y>) -> Result<(), Error> {
    c.configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;
    Ok(())
}

/// The SVG text `draw` draws on a white page of [`SIZE`].
fn svg(draw: impl FnOnce(&Area<'_>) -> Result<(), Error>) -> io::Result<String> {
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, SIZE).into_drawing_area();
        let drawn = root
            .fill(&WHITE)
            .map_err(Error::from)
            .and_then(|()| draw(&root))
            .and_then(|()| root.present().map_err(Error::from));
        drawn.map_err(|e| io::Error::other(format!("drawing a plot: {e}")))?;
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn history(text: &str) -> History {
        isocheck::history::parse_edn("h.edn", text).expect("a history")
    }

    const RUN: &str = r#"
{:index 0, :time 0, :type :invoke, :process 0, :f :txn, :value [[:append :x 1]]}
{:index 1, :time 1000000, :type :info, :process :nemesis, :f :kill, :value nil}
{:index 2, :time 2000000, :type :ok, :process 0, :f :txn, :value [[:append :x 1]]}
{:index 3, :time 2500000, :type :invoke, :process 1, :f :txn, :value [[:r :x nil]]}
{:index 4, :time 3000000, :type :info, :process :nemesis, :f :kill, :value "done"}
{:index 5, :time 4000000, :type :info, :process :nemesis, :f :start, :value nil}
{:index 6, :time 5000000, :type :info, :process :nemesis, :f :start, :value "done"}
{:index 7, :time 6000000, :type :info, :process 1, :f :txn, :value [[:r :x nil]]}
{:index 8, :time 6500000, :type :info, :process :nemesis, :f :kill-connections, :value nil}
{:index 9, :time 7000000, :type :info, :process :nemesis, :f :kill-connections, :value "done"}
{:index 10, :time 7000000, :type :invoke, :process 0, :f :txn, :value [[:append :x 2]]}
{:index 11, :time 9000000, :type :fail, :process 0, :f :txn, :value [[:append :x 2]]}
"#;

    #[test]
    fn each_completed_client_op_is_a_sample() {
        let s = samples(&history(RUN));
        let outcomes: Vec<Outcome> = s.iter().map(|s| s.outcome).collect();
        assert_eq!(outcomes, [Outcome::Ok, Outcome::Info, Outcome::Fail]);
        assert_eq!((s[0].invoked, s[0].completed), (0.0, 0.002));
        assert!((s[1].latency_ms() - 3.5).abs() < 1e-9);
    }

    #[test]
    fn a_fault_lasts_until_the_action_that_ends_it() {
        let w = windows(&history(RUN));
        let spans: Vec<(&str, f64, f64)> = w
            .iter()
            .map(|w| (w.name.as_str(), w.start, w.end))
            .collect();
        assert_eq!(
            spans,
            [("kill", 0.001, 0.005), ("kill-connections", 0.0065, 0.007)]
        );
        assert!(ends("start-partition", "stop-partition"));
        assert!(!ends("start-partition", "stop-clock"));
    }

    #[test]
    fn an_unended_fault_lasts_to_the_end() {
        let text = "{:index 0, :time 0, :type :info, :process :nemesis, :f :pause, :value nil}\n\
             {:index 1, :time 5, :type :invoke, :process 0, :f :txn, :value [[:r :x nil]]}\n\
             {:index 2, :time 9, :type :ok, :process 0, :f :txn, :value [[:r :x []]]}\n";
        let w = windows(&history(text));
        assert_eq!(w.len(), 1);
        assert_eq!((w[0].start, w[0].end), (0.0, 9e-9));
    }

    #[test]
    fn rates_count_every_completion_once() {
        let s = samples(&history(RUN));
        let x = (0.0, 0.009);
        let dt = bucket(x.1);
        assert_eq!(dt, 1e-3, "a millisecond at least");
        for o in Outcome::ALL {
            let total: f64 = rates(&s, o, x, dt).iter().map(|p| p.1 * dt).sum();
            assert!((total - 1.0).abs() < 1e-9, "{o:?}: {total}");
        }
        assert_eq!(bucket(0.0), 1e-3);
        assert!((bucket(0.09) - 2e-3).abs() < 1e-12);
        assert_eq!(bucket(600.0), 10.0);
        assert_eq!(bucket(70.0), 2.0);
    }

    #[test]
    fn the_plots_have_a_point_per_op_and_the_windows() {
        let h = history(RUN);
        let latency = latency_raw_svg(&h).expect("drawn");
        assert_eq!(latency.matches("<circle").count(), 3);
        assert!(latency.contains("\nfail\n</text>"));
        let fail = "{:index 11, :time 9000000, :type :fail";
        let no_fail = latency_raw_svg(&history(
            &RUN.replace(fail, "{:index 11, :time 9000000, :type :ok"),
        ));
        assert!(
            !no_fail.expect("drawn").contains("\nfail\n</text>"),
            "only outcomes present"
        );
        assert!(latency.contains("kill-connections"));
        let rate = rate_svg(&h).expect("drawn");
        for o in Outcome::ALL {
            let c = o.colour();
            let line = format!(
                "stroke=\"#{:02X}{:02X}{:02X}\" stroke-width=\"2\"",
                c.0, c.1, c.2
            );
            assert_eq!(rate.matches(&line).count(), 1, "{o:?}");
        }
        assert!(rate.contains("Throughput"));
    }

    #[test]
    fn past_the_most_points_an_even_sample_is_drawn() {
        let svg = latency_raw(&history(RUN), 2).expect("drawn");
        assert_eq!(svg.matches("<circle").count(), 2);
        assert!(svg.contains("Raw latency (one op in 2, of 3)"), "{svg}");
    }

    #[test]
    fn an_empty_history_draws_empty_plots() {
        let h = history("");
        assert_eq!(
            latency_raw_svg(&h)
                .expect("drawn")
                .matches("<circle")
                .count(),
            0
        );
        assert!(rate_svg(&h).expect("drawn").starts_with("<svg"));
    }

    #[test]
    fn ranges() {
        assert_eq!(log_range([0.5, 30.0].into_iter()), (0.1, 100.0));
        assert_eq!(log_range([1.0].into_iter()), (1.0, 10.0));
        assert_eq!(log_range(std::iter::empty()), (0.1, 1000.0));
        assert_eq!(printable("a\u{1}b"), "a?b");
    }
}
