//! Reports of Jepsen's standard checkers (`checkers`): the result map
//! with the keys Jepsen's checker writes in `results.edn` (so that
//! `recheck` and people can compare them), as EDN and JSON, and the report
//! for people, a diagnostic per finding with labels on the ops.
//!
//! Where the values differ in form from Jepsen's: ops are the history's op
//! maps as written; total-queue's multisets are vectors, each element
//! repeated as often as it occurs, sorted.

use super::diagnostic;
use super::explain::{clip, op_text, value_text, PROSE};
use super::explanation::Explanation;
use super::human::{lay_out, SHOWN_PER_TYPE};
use super::result::{edn, kws, map, valid, R};
use crate::check::Validity;
use crate::checkers::bank::{BankError, BankResult};
use crate::checkers::counter::CounterResult;
use crate::checkers::long_fork::{Finding, LongForkResult};
use crate::checkers::set::SetResult;
use crate::checkers::set_full::{Element, Outcome, SetFullResult};
use crate::checkers::total_queue::{self, Multiset, TotalQueueResult};
use crate::checkers::unique_ids::UniqueIdsResult;
use crate::checkers::{each_result, element, integer, JepsenResult};
use crate::history::{CheckerF, CheckerOp, History, OpId, Span, Status, Val};
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt::Write;

/// The checker's result map.
pub(crate) fn result_map<'a>(h: &'a History, r: &JepsenResult) -> R<'a> {
    each_result!(r, r => r.result_map(h))
}

/// What the report says of each checker's result: its result map, its
/// counts in a line and its findings for people.
trait CheckerReport {
    fn result_map<'a>(&self, h: &'a History) -> R<'a>;
    fn summary(&self) -> String;
    fn notes(&self, h: &History) -> Vec<Note>;
}

fn op(h: &History, id: OpId) -> R<'_> {
    R::Edn(op_text(h, id))
}

fn val(h: &History, v: Val) -> R<'static> {
    edn(h.values.display(v))
}

/// An integer that may pass the 64-bit limits (Clojure's `+'` would give
/// a bigint there).
fn wide(n: i128) -> R<'static> {
    match i64::try_from(n) {
        Ok(n) => R::Int(n),
        Err(_) => edn(format!("{n}N")),
    }
}

fn count(n: usize) -> R<'static> {
    R::Int(n as i64)
}

fn vals<'a>(h: &History, vs: impl IntoIterator<Item = Val>) -> R<'a> {
    R::Vec(vs.into_iter().map(|v| val(h, v)).collect())
}

fn bank_error<'a>(h: &'a History, (id, e): &(OpId, BankError)) -> R<'a> {
    let detail = match e {
        BankError::UnexpectedKey { unexpected } => ("unexpected", vals(h, unexpected.clone())),
        BankError::NilBalance { nils } => (
            "nils",
            R::Map(nils.iter().map(|&a| (val(h, a), R::Nil)).collect()),
        ),
        BankError::WrongTotal { total } => ("total", wide(*total)),
        BankError::NegativeValue { negative } => (
            "negative",
            R::Vec(negative.iter().map(|&n| R::Int(n)).collect()),
        ),
    };
    map(vec![
        ("type", R::Kw(Cow::Borrowed(e.name()))),
        detail,
        ("op", op(h, *id)),
    ])
}

fn bank_map<'a>(h: &'a History, r: &BankResult) -> R<'a> {
    let groups = r.groups.iter().map(|g| {
        let at = |i: usize| bank_error(h, &g.errors[i]);
        let mut entries = vec![
            ("count", count(g.errors.len())),
            ("first", at(0)),
            ("worst", at(g.worst)),
            ("last", at(g.errors.len() - 1)),
        ];
        if let Some((lo, hi)) = g.lowest_highest {
            entries.extend([("lowest", at(lo)), ("highest", at(hi))]);
        }
        (R::Kw(Cow::Borrowed(g.errors[0].1.name())), map(entries))
    });
    map(vec![
        ("valid?", valid(r.validity())),
        ("read-count", count(r.read_count)),
        ("error-count", count(r.error_count())),
        (
            "first-error",
            r.first_error().map_or(R::Nil, |e| bank_error(h, e)),
        ),
        ("errors", R::Map(groups.collect())),
    ])
}

fn counter_map(r: &CounterResult) -> R<'static> {
    let triple = |x: &crate::checkers::counter::Read| {
        R::Vec(vec![wide(x.lower), wide(x.value), wide(x.upper)])
    };
    map(vec![
        ("valid?", valid(r.validity())),
        ("reads", R::Vec(r.reads.iter().map(triple).collect())),
        ("errors", R::Vec(r.errors().map(triple).collect())),
    ])
}

/// Jepsen's `integer-interval-set-str`: `#{1..3 5}` for sorted integers;
/// other values are listed as they are.
fn interval_set(h: &History, sorted: &[Val]) -> String {
    let mut runs: Vec<(String, Option<(i64, i64)>)> = Vec::new();
    for &v in sorted {
        match (integer(h, v), runs.last_mut()) {
            (Some(n), Some((_, Some((_, end))))) if n == end.saturating_add(1) => *end = n,
            (Some(n), _) => runs.push((String::new(), Some((n, n)))),
            (None, _) => runs.push((h.values.display(v), None)),
        }
    }
    let parts: Vec<String> = runs
        .into_iter()
        .map(|run| match run {
            (_, Some((a, b))) if a == b => a.to_string(),
            (_, Some((a, b))) => format!("{a}..{b}"),
            (text, None) => text,
        })
        .collect();
    format!("#{{{}}}", parts.join(" "))
}

fn set_map<'a>(h: &'a History, r: &SetResult) -> R<'a> {
    let Some(c) = &r.counts else {
        return map(vec![
            ("valid?", kws("unknown")),
            ("error", edn("\"Set was never read\"")),
        ]);
    };
    let text = |s: &[Val]| {
        let mut quoted = String::new();
        crate::history::edn::write_string(&interval_set(h, s), &mut quoted);
        edn(quoted)
    };
    map(vec![
        ("valid?", valid(r.validity())),
        ("attempt-count", count(c.attempt_count)),
        ("acknowledged-count", count(c.acknowledged_count)),
        ("ok-count", count(c.ok.len())),
        ("lost-count", count(c.lost.len())),
        ("recovered-count", count(c.recovered.len())),
        ("unexpected-count", count(c.unexpected.len())),
        ("ok", text(&c.ok)),
        ("lost", text(&c.lost)),
        ("unexpected", text(&c.unexpected)),
        ("recovered", text(&c.recovered)),
    ])
}

fn element_map<'a>(h: &'a History, e: &Element) -> R<'a> {
    let latency = |l: Option<i64>| l.map_or(R::Nil, R::Int);
    let maybe_op = |id: Option<OpId>| id.map_or(R::Nil, |id| op(h, id));
    map(vec![
        ("element", val(h, e.element)),
        ("outcome", R::Kw(Cow::Borrowed(e.outcome.name()))),
        ("stable-latency", latency(e.stable_latency)),
        ("lost-latency", latency(e.lost_latency)),
        ("known", maybe_op(e.known)),
        ("last-absent", maybe_op(e.last_absent)),
    ])
}

/// Jepsen's `frequency-distribution` at 0, 0.5, 0.95, 0.99 and 1.
fn distribution(mut xs: Vec<i64>) -> R<'static> {
    xs.sort_unstable();
    let n = xs.len();
    let points = [
        ("0", 0.0),
        ("0.5", 0.5),
        ("0.95", 0.95),
        ("0.99", 0.99),
        ("1", 1.0),
    ];
    R::Map(
        points
            .iter()
            .map(|&(name, p)| {
                let i = ((n as f64 * p).floor() as usize).min(n - 1);
                (edn(name), R::Int(xs[i]))
            })
            .collect(),
    )
}

fn set_full_map<'a>(h: &'a History, r: &SetFullResult) -> R<'a> {
    let of = |o: Outcome| r.with(o).map(|e| e.element).collect::<Vec<Val>>();
    let stale: Vec<Val> = r.stale().map(|e| e.element).collect();
    let mut entries = vec![
        ("valid?", valid(r.validity())),
        ("attempt-count", count(r.elements.len())),
        ("stable-count", count(of(Outcome::Stable).len())),
        ("lost-count", count(of(Outcome::Lost).len())),
        ("lost", vals(h, of(Outcome::Lost))),
        ("never-read-count", count(of(Outcome::NeverRead).len())),
        ("never-read", vals(h, of(Outcome::NeverRead))),
        ("stale-count", count(stale.len())),
        ("stale", vals(h, stale)),
        (
            "worst-stale",
            R::Vec(
                r.worst_stale()
                    .into_iter()
                    .map(|e| element_map(h, e))
                    .collect(),
            ),
        ),
    ];
    let stable: Vec<i64> = r.elements.iter().filter_map(|e| e.stable_latency).collect();
    let lost: Vec<i64> = r.elements.iter().filter_map(|e| e.lost_latency).collect();
    if !stable.is_empty() {
        entries.push(("stable-latencies", distribution(stable)));
    }
    if !lost.is_empty() {
        entries.push(("lost-latencies", distribution(lost)));
    }
    let dups = r.duplicated.iter().map(|&(x, n)| (val(h, x), count(n)));
    entries.push(("duplicated-count", count(r.duplicated.len())));
    entries.push(("duplicated", R::Map(dups.collect())));
    map(entries)
}

fn long_fork_map<'a>(h: &'a History, r: &LongForkResult) -> R<'a> {
    if let Finding::Illegal { message, .. } = &r.finding {
        let mut quoted = String::new();
        crate::history::edn::write_string(message, &mut quoted);
        return map(vec![("valid?", kws("unknown")), ("error", edn(quoted))]);
    }
    let mut entries = vec![
        ("reads-count", count(r.reads_count)),
        ("early-read-count", count(r.early_read_count)),
        ("late-read-count", count(r.late_read_count)),
        ("valid?", valid(r.validity())),
    ];
    match &r.finding {
        Finding::MultipleWrites(k) => {
            entries.push(("error", R::Vec(vec![kws("multiple-writes"), val(h, *k)])))
        }
        Finding::Forks(pairs) => {
            let txn = |t| op(h, h.txn(t).op());
            let forks = pairs.iter().map(|&(a, b)| R::Vec(vec![txn(a), txn(b)]));
            entries.push(("forks", R::Vec(forks.collect())));
        }
        Finding::NoFork | Finding::Illegal { .. } => {}
    }
    map(entries)
}

fn unique_ids_map<'a>(h: &'a History, r: &UniqueIdsResult) -> R<'a> {
    let shown = r.shown_duplicates(h);
    map(vec![
        ("valid?", valid(r.validity())),
        ("attempted-count", count(r.attempted_count)),
        ("acknowledged-count", count(r.acknowledged_count)),
        ("duplicated-count", count(r.duplicated.len())),
        (
            "duplicated",
            R::Map(shown.iter().map(|&(x, n)| (val(h, x), count(n))).collect()),
        ),
        (
            "range",
            r.range
                .map_or(R::Nil, |(lo, hi)| R::Vec(vec![val(h, lo), val(h, hi)])),
        ),
    ])
}

fn multiset<'a>(h: &History, m: &Multiset) -> R<'a> {
    vals(
        h,
        m.iter()
            .flat_map(|&(x, n)| std::iter::repeat_n(x, n))
            .collect::<Vec<Val>>(),
    )
}

fn total_queue_map<'a>(h: &'a History, r: &TotalQueueResult) -> R<'a> {
    map(vec![
        ("valid?", valid(r.validity())),
        ("attempt-count", count(r.attempt_count)),
        ("acknowledged-count", count(r.acknowledged_count)),
        ("ok-count", count(r.ok_count)),
        ("unexpected-count", count(total_queue::size(&r.unexpected))),
        ("duplicated-count", count(total_queue::size(&r.duplicated))),
        ("lost-count", count(total_queue::size(&r.lost))),
        ("recovered-count", count(total_queue::size(&r.recovered))),
        ("lost", multiset(h, &r.lost)),
        ("unexpected", multiset(h, &r.unexpected)),
        ("duplicated", multiset(h, &r.duplicated)),
        ("recovered", multiset(h, &r.recovered)),
    ])
}

/// One finding for people: its name, what happened, and labels on ops.
struct Note {
    name: &'static str,
    help: String,
    labels: Vec<(Span, String)>,
    warning: bool,
}

impl Note {
    fn new(name: &'static str, help: String) -> Note {
        Note {
            name,
            help,
            labels: Vec::new(),
            warning: false,
        }
    }

    fn at(mut self, h: &History, id: Option<OpId>, text: impl Into<String>) -> Note {
        if let Some(id) = id {
            self.labels.push((h.op(id).span, text.into()));
        }
        self
    }
}

/// The report for people: the verdict line, a summary, then each finding
/// (at most [`SHOWN_PER_TYPE`] of a kind).
pub fn render(h: &History, r: &JepsenResult, color: bool) -> String {
    let mut out = String::new();
    render_into(&mut out, h, r, color);
    out
}

/// [`render`] into `out`, a finding at a time, so that a report a limit
/// cuts keeps what was written before.
pub fn render_into(out: &mut String, h: &History, r: &JepsenResult, color: bool) {
    let paint = |code: &str, word: &str| match color {
        true => format!("\x1b[1;{code}m{word}\x1b[0m"),
        false => word.to_string(),
    };
    let verdict = match r.validity() {
        Validity::True => paint("32", "valid"),
        Validity::False => paint("31", "invalid"),
        Validity::Unknown => paint("33", "unknown"),
    };
    let types = r.anomaly_types();
    let verdict = match types.is_empty() {
        true => format!("{verdict}: {} checker\n", h.workload.name()),
        false => format!(
            "{verdict}: {} ({} checker)\n",
            types.join(", "),
            h.workload.name()
        ),
    };
    out.push_str(&verdict);
    let _ = writeln!(out, "  {}", each_result!(r, r => r.summary()));
    let notes = each_result!(r, r => r.notes(h));
    let mut shown: Vec<(&str, usize)> = Vec::new();
    for note in notes {
        crate::limits::tick();
        let seen = match shown.iter_mut().find(|s| s.0 == note.name) {
            Some(s) => s,
            None => {
                shown.push((note.name, 0));
                shown.last_mut().expect("just pushed")
            }
        };
        seen.1 += 1;
        if seen.1 > SHOWN_PER_TYPE {
            continue;
        }
        let x = Explanation {
            entry: R::Nil,
            help: note.help,
            labels: note.labels,
            warning: note.warning,
        };
        let finding = lay_out(h, format!("{} #{}", note.name, seen.1 - 1), x);
        out.push('\n');
        out.push_str(&diagnostic::render(&finding, color));
    }
    for (name, n) in shown.into_iter().filter(|s| s.1 > SHOWN_PER_TYPE) {
        let _ = writeln!(
            out,
            "\n… and {} more {name} (--format edn or json lists them all)",
            n - SHOWN_PER_TYPE
        );
    }
}

impl CheckerReport for BankResult {
    fn result_map<'a>(&self, h: &'a History) -> R<'a> {
        bank_map(h, self)
    }

    fn summary(&self) -> String {
        format!(
            "{} reads, {} with errors; total {}",
            self.read_count,
            self.error_count(),
            self.total
        )
    }

    fn notes(&self, h: &History) -> Vec<Note> {
        bank_notes(h, self)
    }
}

impl CheckerReport for CounterResult {
    fn result_map<'a>(&self, _: &'a History) -> R<'a> {
        counter_map(self)
    }

    fn summary(&self) -> String {
        format!(
            "{} reads, {} outside their bounds",
            self.reads.len(),
            self.errors().count()
        )
    }

    fn notes(&self, h: &History) -> Vec<Note> {
        counter_notes(h, self)
    }
}

impl CheckerReport for SetResult {
    fn result_map<'a>(&self, h: &'a History) -> R<'a> {
        set_map(h, self)
    }

    fn summary(&self) -> String {
        match &self.counts {
        None => "the set was never read".to_string(),
        Some(c) => format!(
            "{} adds attempted, {} acknowledged; final read: {} ok, {} lost, {} unexpected, {} recovered",
            c.attempt_count,
            c.acknowledged_count,
            c.ok.len(),
            c.lost.len(),
            c.unexpected.len(),
            c.recovered.len()
        ),
    }
    }

    fn notes(&self, h: &History) -> Vec<Note> {
        set_notes(h, self)
    }
}

impl CheckerReport for SetFullResult {
    fn result_map<'a>(&self, h: &'a History) -> R<'a> {
        set_full_map(h, self)
    }

    fn summary(&self) -> String {
        format!(
            "{} elements: {} stable ({} stale), {} lost, {} never read; {} duplicated",
            self.elements.len(),
            self.with(Outcome::Stable).count(),
            self.stale().count(),
            self.with(Outcome::Lost).count(),
            self.with(Outcome::NeverRead).count(),
            self.duplicated.len()
        )
    }

    fn notes(&self, h: &History) -> Vec<Note> {
        set_full_notes(h, self)
    }
}

impl CheckerReport for LongForkResult {
    fn result_map<'a>(&self, h: &'a History) -> R<'a> {
        long_fork_map(h, self)
    }

    fn summary(&self) -> String {
        format!(
            "{} reads ({} early, {} late), groups of {} keys",
            self.reads_count, self.early_read_count, self.late_read_count, self.group_size
        )
    }

    fn notes(&self, h: &History) -> Vec<Note> {
        long_fork_notes(h, self)
    }
}

impl CheckerReport for UniqueIdsResult {
    fn result_map<'a>(&self, h: &'a History) -> R<'a> {
        unique_ids_map(h, self)
    }

    fn summary(&self) -> String {
        format!(
            "{} ids generated of {} attempted, {} duplicated",
            self.acknowledged_count,
            self.attempted_count,
            self.duplicated.len()
        )
    }

    fn notes(&self, h: &History) -> Vec<Note> {
        unique_ids_notes(h, self)
    }
}

impl CheckerReport for TotalQueueResult {
    fn result_map<'a>(&self, h: &'a History) -> R<'a> {
        total_queue_map(h, self)
    }

    fn summary(&self) -> String {
        format!(
        "{} enqueues attempted, {} acknowledged; {} lost, {} unexpected, {} duplicated, {} recovered",
        self.attempt_count,
        self.acknowledged_count,
        total_queue::size(&self.lost),
        total_queue::size(&self.unexpected),
        total_queue::size(&self.duplicated),
        total_queue::size(&self.recovered)
    )
    }

    fn notes(&self, h: &History) -> Vec<Note> {
        total_queue_notes(h, self)
    }
}

/// A value in a note, clipped (the result maps keep it whole).
fn shown(h: &History, v: Val) -> String {
    value_text(h, v, PROSE.value_chars)
}

fn list(h: &History, vs: impl IntoIterator<Item = Val>) -> String {
    let items: Vec<String> = vs.into_iter().map(|v| shown(h, v)).collect();
    items.join(", ")
}

fn bank_notes(h: &History, r: &BankResult) -> Vec<Note> {
    let mut errors: Vec<&(OpId, BankError)> = r.groups.iter().flat_map(|g| &g.errors).collect();
    errors.sort_by_key(|e| e.0);
    errors
        .into_iter()
        .map(|(id, e)| {
            let help = match e {
                BankError::UnexpectedKey { unexpected } => {
                    format!(
                    "this read holds accounts not among the bank's (--accounts, else the first read's): {}",
                    list(h, unexpected.clone())
                )
                }
                BankError::NilBalance { nils } => {
                    format!("this read has a nil balance for {}", list(h, nils.clone()))
                }
                BankError::WrongTotal { total } => format!(
                    "the balances of this read sum to {total}, not {}: money appeared or vanished",
                    r.total
                ),
                BankError::NegativeValue { negative } => {
                    let n: Vec<String> = negative.iter().map(i64::to_string).collect();
                    format!("this read has negative balances: {}", n.join(", "))
                }
            };
            Note::new(e.name(), help).at(h, Some(*id), "this read")
        })
        .collect()
}

fn counter_notes(h: &History, r: &CounterResult) -> Vec<Note> {
    r.errors()
        .map(|x| {
            let (name, help) = match x.value < x.lower {
                true => ("read-below-lower-bound", format!(
                    "this read returned {}, but adds summing to {} were acknowledged before it began",
                    x.value, x.lower
                )),
                false => ("read-above-upper-bound", format!(
                    "this read returned {}, but the adds that could have taken effect before it ended sum to {}",
                    x.value, x.upper
                )),
            };
            Note::new(name, help).at(h, Some(x.op), format!("read {}", x.value))
        })
        .collect()
}

/// Where the add (or enqueue) of each element is shown: the `:ok`
/// completion of the first add of it, or that add's invocation. One pass
/// over the ops, for every element a report names (a lookup per element
/// was a pass per element: quadratic in lost elements).
fn adds_by_element(h: &History) -> HashMap<Val, OpId> {
    let mut adds = HashMap::new();
    let ops = h.checker_ops.iter();
    for o in ops.filter(|o| matches!(o.f, CheckerF::Add | CheckerF::Enqueue)) {
        crate::limits::tick();
        let Some(x) = element(&o.invoked) else {
            continue;
        };
        adds.entry(x).or_insert(match o.status {
            Status::Committed => o.op(),
            _ => o.invoke.unwrap_or(o.op()),
        });
    }
    adds
}

fn set_notes(h: &History, r: &SetResult) -> Vec<Note> {
    let Some(c) = &r.counts else {
        return vec![Note {
            warning: true,
            ..Note::new(
                "never-read",
                "no :read completed :ok, so nothing can be checked".into(),
            )
        }];
    };
    let final_read = h
        .checker_ops
        .iter()
        .filter(|o| o.f == CheckerF::Read && o.status == Status::Committed)
        .filter_map(|o| o.completion)
        .max();
    let adds = adds_by_element(h);
    let lost = c.lost.iter().map(|&x| {
        Note::new(
            "lost",
            format!(
                "the add of {} was acknowledged, but the final read misses it",
                shown(h, x)
            ),
        )
        .at(h, adds.get(&x).copied(), "acknowledged here")
        .at(h, final_read, "the final read")
    });
    let unexpected = (!c.unexpected.is_empty()).then(|| {
        Note::new(
            "unexpected",
            format!(
                "the final read holds elements no add attempted: {}",
                list(h, c.unexpected.clone())
            ),
        )
        .at(h, final_read, "the final read")
    });
    lost.chain(unexpected).collect()
}

fn set_full_notes(h: &History, r: &SetFullResult) -> Vec<Note> {
    let lost = r.with(Outcome::Lost).map(|e| {
        Note::new("lost", format!(
            "{} was known to be in the set, but no read that began after the last one showing it holds it",
            shown(h, e.element)
        ))
        .at(h, e.last_absent, "this read (invoked here) misses it")
        .at(h, e.known, "known here")
        .at(h, e.last_present, "last read showing it")
    });
    let stale = r.stale().filter(|_| r.linearizable).map(|e| {
        Note::new("stale", format!(
            "{} was known to be in the set, but a read that began later missed it ({} ms until it was stable)",
            shown(h, e.element),
            e.stable_latency.unwrap_or(0)
        ))
        .at(h, e.last_absent, "this read (invoked here) misses it")
        .at(h, e.known, "known here")
    });
    let duplicated = r.duplicated.iter().map(|&(x, n)| {
        Note::new(
            "duplicated",
            format!("{} appears {n} times in one read", shown(h, x)),
        )
    });
    let mut notes: Vec<Note> = lost.chain(stale).chain(duplicated).collect();
    if r.with(Outcome::Stable).next().is_none() {
        notes.push(Note {
            warning: true,
            ..Note::new("no-stable-element", "no element was ever stable (seen by every read that began after some time), so nothing can be said".into())
        });
    }
    notes
}

fn long_fork_notes(h: &History, r: &LongForkResult) -> Vec<Note> {
    let txn = |t| Some(h.txn(t).op());
    match &r.finding {
        Finding::NoFork => Vec::new(),
        Finding::MultipleWrites(k) => vec![Note {
            warning: true,
            ..Note::new("multiple-writes", format!(
                "key {} is written more than once, so reads cannot be ordered by what they saw",
                shown(h, *k)
            ))
        }],
        Finding::Illegal { message, reads } => {
            let mut note = Note {
                warning: true,
                ..Note::new("illegal-history", clip(message, PROSE.op_chars).into_owned())
            };
            for &t in reads {
                note = note.at(h, txn(t), "this read");
            }
            vec![note]
        }
        Finding::Forks(pairs) => pairs
            .iter()
            .map(|&(a, b)| {
                Note::new("long-fork", "each of these reads saw a write the other did not: they observed the writes in conflicting orders".into())
                    .at(h, txn(a), "one read")
                    .at(h, txn(b), "another read")
            })
            .collect(),
    }
}

fn unique_ids_notes(h: &History, r: &UniqueIdsResult) -> Vec<Note> {
    // The first two `:ok` generates that returned each id, in one pass.
    let mut returned: HashMap<Val, Vec<OpId>> = HashMap::new();
    let ok = |o: &&CheckerOp| o.f == CheckerF::Generate && o.status == Status::Committed;
    for o in h.checker_ops.iter().filter(ok) {
        crate::limits::tick();
        let (Some(x), Some(at)) = (element(&o.completed), o.completion) else {
            continue;
        };
        let ops = returned.entry(x).or_default();
        if ops.len() < 2 {
            ops.push(at);
        }
    }
    r.duplicated
        .iter()
        .map(|&(x, n)| {
            let mut note = Note::new(
                "duplicated",
                format!("{} was generated {n} times", shown(h, x)),
            );
            for &at in returned.get(&x).into_iter().flatten() {
                note = note.at(h, Some(at), "returned here");
            }
            note
        })
        .collect()
}

/// ` (3 times)`, or nothing for once.
fn times(n: usize) -> String {
    match n {
        1 => String::new(),
        n => format!(" ({n} times)"),
    }
}

fn total_queue_notes(h: &History, r: &TotalQueueResult) -> Vec<Note> {
    let kinds: [(&'static str, &Multiset, &str); 3] = [
        (
            "lost",
            &r.lost,
            "enqueued (acknowledged) but never dequeued",
        ),
        ("unexpected", &r.unexpected, "dequeued but never enqueued"),
        (
            "duplicated",
            &r.duplicated,
            "dequeued more often than enqueued",
        ),
    ];
    let adds = adds_by_element(h);
    let adds = &adds;
    kinds
        .into_iter()
        .flat_map(|(name, m, what)| {
            m.iter().map(move |&(x, n)| {
                Note::new(name, format!("{} was {what}{}", shown(h, x), times(n))).at(
                    h,
                    adds.get(&x).copied(),
                    "enqueued here",
                )
            })
        })
        .collect()
}
