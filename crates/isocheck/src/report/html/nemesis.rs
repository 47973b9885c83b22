//! The nemesis's fault windows, which the timeline shades across its lanes,
//! read from the ops of no client (`:process :nemesis`) after Jepsen's
//! conventions (`jepsen.checker.perf` shades the time from an op that
//! starts a fault to the op that stops it): a fault begins with `:f
//! :start-X` and ends with `:stop-X`, or `:start`/`:stop`, `:kill` or
//! `:crash` then `:start`/`:restart`/`:recover`, `:pause` then `:resume`,
//! `:partition` then `:heal`. A nemesis op of any other `:f`
//! (`:kill-connections`, `:bump-clock`) is a window of its own, from its
//! invocation to its completion. A fault never ended runs to the end of
//! the history.

use crate::history::{History, Op, OpType, Process};

/// At most this many windows are kept: a run of hours with a fault every
/// few seconds would otherwise draw thousands in each timeline.
pub const MAX_WINDOWS: usize = 200;

/// One fault: the `:f` that began it, and its ends on the timeline's clock.
#[derive(Clone, Debug, PartialEq)]
pub struct Window {
    pub f: String,
    /// The `:index` of the op that began it.
    pub index: i64,
    pub from: f64,
    pub to: f64,
    /// Whether an op ended it (else it runs to the end of the history).
    pub ended: bool,
}

/// A nemesis op and its completion, when the next nemesis op has the same
/// `:f` (Jepsen writes an `:invoke` then an `:info`; `isocheck run` two
/// `:info`s, the first with a `nil` value).
struct Activity {
    f: String,
    index: i64,
    from: f64,
    to: f64,
}

/// Whether a fault begun by `begin` is ended by `f`.
fn ends(begin: &str, f: &str) -> bool {
    match begin {
        "kill" | "crash" => matches!(f, "start" | "restart" | "recover"),
        "pause" => f == "resume",
        "partition" => f == "heal",
        "start" => f == "stop",
        b => b
            .strip_prefix("start-")
            .is_some_and(|what| f.strip_prefix("stop-") == Some(what)),
    }
}

/// Whether `f` begins a fault that a later op ends.
fn begins(f: &str) -> bool {
    matches!(f, "kill" | "crash" | "pause" | "partition" | "start") || f.starts_with("start-")
}

/// The `:f` of a nemesis op, without its colon; `None` for client ops.
fn nemesis_f(h: &History, op: &Op) -> Option<String> {
    match op.process {
        Process::Other(_) => {
            let f = h.values.text(op.f);
            Some(f.strip_prefix(':').unwrap_or(f.as_ref()).to_string())
        }
        _ => None,
    }
}

/// The nemesis's activities, in file order; `at` places an op on the
/// timeline's clock.
fn activities(h: &History, at: &dyn Fn(usize) -> f64) -> Vec<Activity> {
    let mut out: Vec<Activity> = Vec::new();
    // Whether the last activity still waits for its completion.
    let mut waiting = false;
    for (i, op) in h.ops.iter().enumerate() {
        crate::limits::tick();
        let Some(f) = nemesis_f(h, op) else {
            continue;
        };
        match out.last_mut() {
            Some(last) if waiting && last.f == f => {
                last.to = at(i);
                waiting = false;
            }
            _ => {
                out.push(Activity {
                    f,
                    index: op.index,
                    from: at(i),
                    to: at(i),
                });
                // An `:info` with a value is a completion already
                // (`isocheck run` writes its outcome there).
                waiting = op.ty == OpType::Invoke || op_value_is_nil(op);
            }
        }
    }
    out
}

fn op_value_is_nil(op: &Op) -> bool {
    matches!(op.value, crate::history::OpValue::Nil)
}

/// The fault windows of `h`, at most [`MAX_WINDOWS`], and how many there
/// are; `at` places an op (by position) on the clock, `end` is the end of
/// the history on it.
pub fn windows(h: &History, at: &dyn Fn(usize) -> f64, end: f64) -> (Vec<Window>, usize) {
    let mut open: Vec<Activity> = Vec::new();
    let mut done: Vec<Window> = Vec::new();
    let mut total = 0usize;
    let mut keep = |w: Window| {
        total += 1;
        if done.len() < MAX_WINDOWS {
            done.push(w);
        }
    };
    for a in activities(h, at) {
        if let Some(k) = open.iter().position(|b| ends(&b.f, &a.f)) {
            let b = open.remove(k);
            keep(Window {
                f: b.f,
                index: b.index,
                from: b.from,
                to: a.to,
                ended: true,
            });
        } else if begins(&a.f) {
            if !open.iter().any(|b| b.f == a.f) {
                open.push(a);
            }
        } else {
            keep(Window {
                f: a.f,
                index: a.index,
                from: a.from,
                to: a.to,
                ended: true,
            });
        }
    }
    for b in open {
        keep(Window {
            f: b.f,
            index: b.index,
            from: b.from,
            to: end,
            ended: false,
        });
    }
    done.sort_by(|a, b| a.from.total_cmp(&b.from));
    (done, total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{self, Format};

    fn history(lines: &[&str]) -> History {
        let text = lines.join("\n") + "\n";
        history::parse_text(Format::Edn, "n.edn", text, None).expect("history")
    }

    fn found(h: &History) -> Vec<(String, f64, f64, bool)> {
        let at = |i: usize| i as f64;
        let (w, _) = windows(h, &at, h.ops.len() as f64);
        w.into_iter()
            .map(|w| (w.f, w.from, w.to, w.ended))
            .collect()
    }

    #[test]
    fn jepsen_pairs_and_isocheck_runs_pairs_make_windows() {
        let h = history(&[
            "{:index 0, :type :invoke, :process :nemesis, :f :start-partition, :value nil}",
            "{:index 1, :type :info, :process :nemesis, :f :start-partition, :value :majority}",
            "{:index 2, :type :invoke, :process 0, :f :txn, :value [[:r :x nil]]}",
            "{:index 3, :type :ok, :process 0, :f :txn, :value [[:r :x nil]]}",
            "{:index 4, :type :invoke, :process :nemesis, :f :stop-partition, :value nil}",
            "{:index 5, :type :info, :process :nemesis, :f :stop-partition, :value :healed}",
            "{:index 6, :type :info, :process :nemesis, :f :kill, :value nil}",
            "{:index 7, :type :info, :process :nemesis, :f :kill, :value \"done\"}",
            "{:index 8, :type :info, :process :nemesis, :f :kill-connections, :value nil}",
            "{:index 9, :type :info, :process :nemesis, :f :kill-connections, :value \"done\"}",
            "{:index 10, :type :info, :process :nemesis, :f :start, :value nil}",
            "{:index 11, :type :info, :process :nemesis, :f :start, :value \"done\"}",
            "{:index 12, :type :invoke, :process :nemesis, :f :pause, :value nil}",
        ]);
        assert_eq!(
            found(&h),
            [
                ("start-partition".to_string(), 0.0, 5.0, true),
                ("kill".to_string(), 6.0, 11.0, true),
                ("kill-connections".to_string(), 8.0, 9.0, true),
                ("pause".to_string(), 12.0, 13.0, false),
            ]
        );
    }

    #[test]
    fn client_ops_make_no_window() {
        let h = history(&[
            "{:index 0, :type :invoke, :process 0, :f :start, :value nil}",
            "{:index 1, :type :ok, :process 0, :f :start, :value nil}",
        ]);
        assert!(found(&h).is_empty());
    }
}
