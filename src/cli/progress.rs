//! Progress on stderr for long work: what it does, how far it is, how fast,
//! and when it should end.
//!
//! A painter thread asks the work's [`Status`] every so often. On a
//! terminal it draws an `indicatif` bar (stage, fraction, rate, ETA; a
//! spinner with a count where no total is known), once the work has run for
//! [`BAR_AFTER`]. Elsewhere (a pipe, a file, a CI log) it writes one plain
//! line every few seconds ([`DEFAULT_EVERY`]) once the work has run that
//! long, and nothing for shorter work, so captured output stays the same.
//! `ISOCHECK_PROGRESS=off` silences it; `ISOCHECK_PROGRESS=SECONDS` sets
//! how long work runs before progress shows, and the plain lines' interval
//! (the tests use a short one).
//!
//! The library never prints: a check's stages and counts come through
//! [`CheckFeed`], its `isocheck::progress::Listener`, which also prints
//! `-v`'s stage lines as the stages begin.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use isocheck::limits::Stage;
use isocheck::progress::{Count, Listener, Unit};
use std::io::{IsTerminal, Write};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Work shorter than this shows no bar on a terminal (it would only flash).
const BAR_AFTER: Duration = Duration::from_millis(500);
/// How often the bar is redrawn.
const BAR_EVERY: Duration = Duration::from_millis(100);
/// How often a plain line is written, and how long work must run before the
/// first, unless `ISOCHECK_PROGRESS` says otherwise.
const DEFAULT_EVERY: Duration = Duration::from_secs(5);
/// The variable that silences progress or sets the plain lines' interval.
pub const ENV: &str = "ISOCHECK_PROGRESS";

/// What some work is doing and how far it is.
#[derive(Clone, Debug, PartialEq)]
pub struct Status {
    /// What it does, for people ("inferring dependencies").
    pub what: String,
    pub done: u64,
    pub total: Option<u64>,
    /// What `done` counts (plural); bytes are shown in binary units.
    pub unit: &'static str,
    /// Said after the count in plain lines and after the bar (may be empty).
    pub note: String,
}

impl Status {
    pub fn new(what: impl Into<String>) -> Status {
        Status {
            what: what.into(),
            done: 0,
            total: None,
            unit: "",
            note: String::new(),
        }
    }

    /// `done` of `total` (when known) `unit`s.
    pub fn counting(mut self, done: u64, total: Option<u64>, unit: &'static str) -> Status {
        (self.done, self.total, self.unit) = (done, total, unit);
        self
    }

    pub fn noting(mut self, note: impl Into<String>) -> Status {
        self.note = note.into();
        self
    }

    /// The plain line: elapsed time, what, fraction or count, note.
    fn line(&self, elapsed: Duration) -> String {
        let mut line = format!("[{:6.1}s] {}", elapsed.as_secs_f64(), self.what);
        let count = self.count();
        if !count.is_empty() {
            line.push_str(": ");
            line.push_str(&count);
        }
        if !self.note.is_empty() {
            line.push_str("; ");
            line.push_str(&self.note);
        }
        line
    }

    /// "45% (450 of 1000 transactions)", "1234 cycles blocked", or empty.
    fn count(&self) -> String {
        if self.unit.is_empty() || (self.done == 0 && self.total.is_none()) {
            return String::new();
        }
        match self.total.filter(|&t| t > 0) {
            Some(total) => {
                let percent = u128::from(self.done.min(total)) * 100 / u128::from(total);
                format!("{percent}% ({} of {total} {})", self.done, self.unit)
            }
            None => format!("{} {}", self.done, self.unit),
        }
    }
}

/// How progress is shown on this stderr: a bar shown after so long, or a
/// line every so often.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    Off,
    Bar(Duration),
    Lines(Duration),
}

/// The mode `ISOCHECK_PROGRESS` and stderr ask for: `off`, or how long
/// work must run before progress shows (and, for lines, their interval).
fn mode() -> Mode {
    let setting = std::env::var(ENV).ok();
    let setting = setting.as_deref().map(str::trim);
    if matches!(setting, Some("off" | "0" | "false")) {
        return Mode::Off;
    }
    let after = setting
        .and_then(|s| s.parse::<f64>().ok())
        .and_then(seconds);
    match std::io::stderr().is_terminal() {
        true => Mode::Bar(after.unwrap_or(BAR_AFTER)),
        false => Mode::Lines(after.unwrap_or(DEFAULT_EVERY)),
    }
}

/// A positive, finite number of seconds.
fn seconds(s: f64) -> Option<Duration> {
    (s.is_finite() && s > 0.0)
        .then(|| Duration::try_from_secs_f64(s).ok())
        .flatten()
}

/// The bar being drawn, if any: lines printed meanwhile go above it.
static BAR: Mutex<Option<ProgressBar>> = Mutex::new(None);

fn bar_slot() -> MutexGuard<'static, Option<ProgressBar>> {
    BAR.lock().unwrap_or_else(|e| e.into_inner())
}

/// Prints a line on stderr, above the bar when one is drawn.
pub fn say(line: &str) {
    match bar_slot().as_ref() {
        Some(bar) => bar.println(line),
        // A closed or full stderr loses the line, nothing more.
        None => drop(writeln!(std::io::stderr(), "{line}")),
    }
}

/// Runs `f`, which prints on stdout, with the bar (if any) cleared
/// meanwhile, so that the two do not draw over each other.
pub fn suspended<R>(f: impl FnOnce() -> R) -> R {
    let bar = bar_slot().clone();
    match bar {
        Some(bar) => bar.suspend(f),
        None => f(),
    }
}

/// Progress shown while some work runs; [`Progress::finish`] (or dropping
/// it) clears it, before the work's own output is printed.
pub struct Progress {
    stop: Arc<(Mutex<bool>, Condvar)>,
    painter: Mutex<Option<JoinHandle<()>>>,
}

impl Progress {
    /// Shows the progress of work whose [`Status`] `status` tells.
    pub fn start(status: impl Fn() -> Status + Send + 'static) -> Progress {
        let stop = Arc::new((Mutex::new(false), Condvar::new()));
        let mode = mode();
        let painter = match mode {
            Mode::Off => None,
            _ => {
                let stop = Arc::clone(&stop);
                std::thread::Builder::new()
                    .name("isocheck-progress".into())
                    .spawn(move || paint(mode, &stop, &status))
                    .ok()
            }
        };
        Progress {
            stop,
            painter: Mutex::new(painter),
        }
    }

    /// Stops showing progress and clears the bar.
    pub fn finish(&self) {
        let (stopped, wake) = &*self.stop;
        *stopped.lock().unwrap_or_else(|e| e.into_inner()) = true;
        wake.notify_all();
        let painter = self
            .painter
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some(painter) = painter {
            let _ = painter.join();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

/// The painter thread: until told to stop, draws the bar or writes the
/// plain lines.
fn paint(mode: Mode, stop: &(Mutex<bool>, Condvar), status: &dyn Fn() -> Status) {
    let start = Instant::now();
    let (every, first) = match mode {
        Mode::Lines(every) => (every, every),
        Mode::Bar(after) => (BAR_EVERY, after),
        Mode::Off => return,
    };
    let mut next = start + first;
    let mut shown: Option<Status> = None;
    loop {
        if wait(stop, next) {
            break;
        }
        next = (next + every).max(Instant::now());
        let now = status();
        match mode {
            Mode::Lines(_) => say(&now.line(start.elapsed())),
            _ => draw(&now, shown.as_ref(), start.elapsed()),
        }
        shown = Some(now);
    }
    if let Some(bar) = bar_slot().take() {
        bar.finish_and_clear();
    }
}

/// Waits until `until` or a stop; whether it was a stop.
fn wait(stop: &(Mutex<bool>, Condvar), until: Instant) -> bool {
    let (stopped, wake) = stop;
    let mut guard = stopped.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        if *guard {
            return true;
        }
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return false;
        }
        guard = match wake.wait_timeout(guard, left) {
            Ok((g, _)) => g,
            Err(e) => e.into_inner().0,
        };
    }
}

/// Draws `now` on the bar (made on first use); a new stage starts the bar
/// afresh, so that its rate and ETA are the stage's own.
fn draw(now: &Status, before: Option<&Status>, elapsed: Duration) {
    let mut slot = bar_slot();
    let bar = slot.get_or_insert_with(|| {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        bar.enable_steady_tick(BAR_EVERY);
        bar
    });
    let same = before.is_some_and(|b| {
        (&b.what, b.total, b.unit) == (&now.what, now.total, now.unit) && b.done <= now.done
    });
    if !same {
        bar.reset();
        bar.set_style(style(now));
        bar.set_length(now.total.unwrap_or(0));
        bar.set_message(now.what.clone());
    }
    bar.set_prefix(format!("[{:6.1}s]", elapsed.as_secs_f64()));
    if before.is_none_or(|b| b.note != now.note) {
        bar.set_message(match now.note.is_empty() {
            true => now.what.clone(),
            false => format!("{} ({})", now.what, now.note),
        });
    }
    bar.set_position(now.done);
}

/// The bar's look for a status: a bar with fraction, rate and ETA when the
/// total is known, else a spinner with the count and rate.
fn style(s: &Status) -> ProgressStyle {
    let unit = s.unit;
    let template = match (s.total.is_some(), unit) {
        (_, "") => "{prefix} {spinner} {msg}".to_string(),
        (true, "bytes") => "{prefix} {msg} [{bar:30}] {percent:>3}% \
             {binary_bytes}/{binary_total_bytes} ({binary_bytes_per_sec}, ETA {eta})"
            .to_string(),
        (true, _) => format!(
            "{{prefix}} {{msg}} [{{bar:30}}] {{percent:>3}}% {{human_pos}}/{{human_len}} {unit} \
             ({{per_sec}}, ETA {{eta}})"
        ),
        (false, "bytes") => {
            "{prefix} {spinner} {msg}: {binary_bytes} ({binary_bytes_per_sec})".to_string()
        }
        (false, _) => format!("{{prefix}} {{spinner}} {{msg}}: {{human_pos}} {unit} ({{per_sec}})"),
    };
    ProgressStyle::with_template(&template)
        .unwrap_or_else(|_| ProgressStyle::default_spinner())
        .progress_chars("=> ")
}

/// A check's stages and counts, as the library reports them: the
/// [`Listener`] the binary installs, and the [`Status`] its [`Progress`]
/// shows. With `-v` it prints each stage's line as the stage begins.
pub struct CheckFeed {
    now: Mutex<(Stage, &'static str, Count)>,
    /// Set by [`CheckFeed::begin`]: `-v`'s stage lines, counted from then.
    verbose: OnceLock<Instant>,
}

/// The one feed: the library takes one listener for the process.
static FEED: CheckFeed = CheckFeed {
    now: Mutex::new((Stage::Reading, "", Count::NONE)),
    verbose: OnceLock::new(),
};

impl CheckFeed {
    /// Listens to the checks of this process, unless progress is off and
    /// not `verbose` (then the library has no one to tell); `verbose`
    /// prints each stage as it begins.
    pub fn begin(verbose: bool) -> &'static CheckFeed {
        if verbose {
            let _ = FEED.verbose.set(Instant::now());
        }
        if verbose || mode() != Mode::Off {
            isocheck::progress::listen(&FEED);
        }
        &FEED
    }

    fn now(&self) -> MutexGuard<'_, (Stage, &'static str, Count)> {
        self.now.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// What the check is doing now.
    pub fn status(&self) -> Status {
        let (stage, about, count) = *self.now();
        let what = match about {
            "" => stage.doing().to_string(),
            about => format!("{} ({about})", stage.doing()),
        };
        let unit = match (count.unit, count.done, count.total) {
            (Unit::Steps, 0, None) => "",
            (unit, _, _) => unit.name(),
        };
        Status::new(what).counting(count.done, count.total, unit)
    }
}

impl Listener for CheckFeed {
    fn stage(&self, stage: Stage, about: &'static str) {
        *self.now() = (stage, about, Count::NONE);
        if let Some(start) = self.verbose.get() {
            let line = Status::new(self.status().what).line(start.elapsed());
            say(&line);
        }
    }

    fn count(&self, count: Count) {
        self.now().2 = count;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_lines_say_the_fraction_or_the_count() {
        let s = Status::new("inferring dependencies").counting(450, Some(1000), "transactions");
        assert_eq!(
            s.line(Duration::from_secs(12)),
            "[  12.0s] inferring dependencies: 45% (450 of 1000 transactions)"
        );
        let s = Status::new("solving").counting(7, None, "cycles blocked");
        assert_eq!(
            s.line(Duration::ZERO),
            "[   0.0s] solving: 7 cycles blocked"
        );
        let s = Status::new("running").noting("past the time limit");
        assert_eq!(
            s.line(Duration::ZERO),
            "[   0.0s] running; past the time limit"
        );
    }

    #[test]
    fn a_count_past_its_total_is_at_most_all_of_it() {
        let s = Status::new("x").counting(12, Some(10), "ops");
        assert_eq!(s.count(), "100% (12 of 10 ops)");
    }
}
