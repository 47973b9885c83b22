//! Jepsen's standard checkers: the reports of `fixtures/jepsen/` pinned
//! with insta (human, EDN, JSON), the workload told from the ops, the
//! diagnostics of `fixtures/jepsen/malformed/`, and property tests on
//! simulated stores: a correct counter, set, queue, bank or id generator is
//! always accepted, and an injected fault is always found.

use isocheck::history::{self, Format, History, Workload};
use isocheck::internals::checkers::set_full::Outcome as Element;
use isocheck::internals::checkers::{JepsenOptions, JepsenResult};
use isocheck::report::diagnostic;
use isocheck::Outcome;
use isocheck::{CheckOptions, Validity};
use proptest::prelude::*;
use std::path::Path;

fn read(rel: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel))
        .unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn parse(name: &str, text: String, workload: Option<Workload>) -> History {
    history::parse_text(Format::Edn, name, text, workload).unwrap_or_else(|d| panic!("{d}"))
}

fn run(h: &History, jepsen: JepsenOptions) -> (Outcome, JepsenResultView) {
    let opts = CheckOptions {
        jepsen,
        ..CheckOptions::default()
    };
    let outcome = isocheck::check(h, &opts).expect("options are valid");
    let view = JepsenResultView::of(&outcome);
    (outcome, view)
}

/// What the property tests look at, taken out of the outcome.
#[derive(Debug, Default)]
struct JepsenResultView {
    valid: Option<Validity>,
    types: Vec<&'static str>,
    lost_elements: usize,
    stale: usize,
}

impl JepsenResultView {
    fn of(o: &Outcome) -> JepsenResultView {
        let Outcome::Jepsen(r) = o else {
            panic!("not a Jepsen checker's outcome: {o:?}")
        };
        let (lost_elements, stale) = match r {
            JepsenResult::SetFull(s) => (s.with(Element::Lost).count(), s.stale().count()),
            _ => (0, 0),
        };
        JepsenResultView {
            valid: Some(r.validity()),
            types: r.anomaly_types(),
            lost_elements,
            stale,
        }
    }
}

/// (fixture, the workload given with `--workload` or `None` to detect it,
/// the workload expected, the verdict)
const FIXTURES: &[(&str, Option<Workload>, Workload, Validity)] = &[
    ("bank-valid", None, Workload::Bank, Validity::True),
    ("bank-invalid", None, Workload::Bank, Validity::False),
    (
        "bank-missing-account",
        None,
        Workload::Bank,
        Validity::False,
    ),
    ("counter-valid", None, Workload::Counter, Validity::True),
    ("counter-invalid", None, Workload::Counter, Validity::False),
    ("set-valid", None, Workload::Set, Validity::True),
    ("set-invalid", None, Workload::Set, Validity::False),
    ("set-full-valid", None, Workload::SetFull, Validity::True),
    ("set-full-invalid", None, Workload::SetFull, Validity::False),
    (
        "long-fork-valid",
        Some(Workload::LongFork),
        Workload::LongFork,
        Validity::True,
    ),
    (
        "long-fork-invalid",
        Some(Workload::LongFork),
        Workload::LongFork,
        Validity::False,
    ),
    (
        "long-fork-multiple-writes",
        Some(Workload::LongFork),
        Workload::LongFork,
        Validity::Unknown,
    ),
    (
        "long-fork-wrong-group",
        Some(Workload::LongFork),
        Workload::LongFork,
        Validity::Unknown,
    ),
    (
        "unique-ids-valid",
        None,
        Workload::UniqueIds,
        Validity::True,
    ),
    (
        "unique-ids-invalid",
        None,
        Workload::UniqueIds,
        Validity::False,
    ),
    (
        "total-queue-valid",
        None,
        Workload::TotalQueue,
        Validity::True,
    ),
    (
        "total-queue-invalid",
        None,
        Workload::TotalQueue,
        Validity::False,
    ),
];

#[test]
fn fixtures_render() {
    for &(name, flag, workload, validity) in FIXTURES {
        let rel = format!("fixtures/jepsen/{name}.edn");
        let h = parse(&rel, read(&rel), flag);
        assert_eq!(h.workload, workload, "{name}");
        let (outcome, view) = run(&h, JepsenOptions::default());
        assert_eq!(view.valid, Some(validity), "{name}: {outcome:?}");
        let edn = outcome.edn(&h);
        let forms = history::edn::read_all(&edn).unwrap_or_else(|e| panic!("{e:?}\n{edn}"));
        assert_eq!(forms.len(), 1, "{edn}");
        insta::assert_snapshot!(format!("{name}.human"), outcome.human(&h, false));
        insta::assert_snapshot!(format!("{name}.edn"), edn);
        insta::assert_snapshot!(format!("{name}.json"), outcome.json(&h));
    }
}

#[test]
fn bank_options_are_the_test_maps() {
    let rel = "fixtures/jepsen/bank-invalid.edn";
    let h = parse(rel, read(rel), None);
    // Given the total and the accounts (one of them the fourth), and with
    // negative balances allowed, only the nil balance and the wrong totals
    // remain.
    let options = JepsenOptions {
        total_amount: Some(30),
        accounts: Some(vec!["0".into(), "1".into(), "2".into(), "3".into()]),
        negative_balances: true,
        ..JepsenOptions::default()
    };
    let (_, view) = run(&h, options);
    assert_eq!(view.types, ["nil-balance", "wrong-total"]);
    // Held to another total, the reads summing to 30 are wrong, the one
    // summing to 45 with a negative balance is right (its negative balance
    // comes after the total in Jepsen's order of rules, and is allowed).
    let (outcome, _) = run(
        &h,
        JepsenOptions {
            total_amount: Some(45),
            negative_balances: true,
            ..JepsenOptions::default()
        },
    );
    let Outcome::Jepsen(JepsenResult::Bank(b)) = outcome else {
        panic!("not bank")
    };
    assert_eq!(
        b.anomaly_types(),
        ["nil-balance", "unexpected-key", "wrong-total"]
    );
    assert_eq!(b.error_count(), 5, "{b:?}");
    assert_eq!(b.read_count, 6);
}

#[test]
fn set_full_stale_reads_fail_only_when_linearizable() {
    let text = "{:type :invoke, :f :add, :value 1, :process 0, :time 1000000, :index 0}
{:type :ok, :f :add, :value 1, :process 0, :time 2000000, :index 1}
{:type :invoke, :f :read, :process 1, :time 3000000, :index 2}
{:type :ok, :f :read, :value [], :process 1, :time 4000000, :index 3}
{:type :invoke, :f :read, :process 1, :time 5000000, :index 4}
{:type :ok, :f :read, :value [1], :process 1, :time 6000000, :index 5}
";
    let h = parse("stale", text.into(), None);
    assert_eq!(h.workload, Workload::SetFull);
    let (_, plain) = run(&h, JepsenOptions::default());
    assert_eq!(plain.valid, Some(Validity::True));
    assert_eq!(plain.stale, 1);
    let linearizable = JepsenOptions {
        linearizable: true,
        ..JepsenOptions::default()
    };
    let (_, strict) = run(&h, linearizable);
    assert_eq!(strict.valid, Some(Validity::False));
    assert_eq!(strict.types, ["stale"]);
}

#[test]
fn detection_needs_one_family_of_ops() {
    let ambiguous = "{:type :invoke, :f :transfer, :value {:from 0 :to 1 :amount 1}, :process 0}
{:type :ok, :f :transfer, :value {:from 0 :to 1 :amount 1}, :process 0}
{:type :invoke, :f :generate, :process 1}
{:type :ok, :f :generate, :value 1, :process 1}
";
    let h = parse("ambiguous", ambiguous.into(), None);
    assert!(!h.workload.is_checker(), "{:?}", h.workload);
    // Adds never read could be a counter's or a set's.
    let unread = "{:type :invoke, :f :add, :value 1, :process 0}\n{:type :ok, :f :add, :value 1, :process 0}\n";
    let h = parse("unread", unread.into(), None);
    assert!(!h.workload.is_checker(), "{:?}", h.workload);
    let h = parse("unread", unread.into(), Some(Workload::Counter));
    let (_, view) = run(&h, JepsenOptions::default());
    assert_eq!(view.valid, Some(Validity::True));
}

#[test]
fn a_checker_flag_on_transactions_is_refused() {
    let text = "{:type :invoke, :f :txn, :value [[:append 1 1]], :process 0}\n{:type :ok, :f :txn, :value [[:append 1 1]], :process 0}\n";
    let d = history::parse_text(Format::Edn, "txn", text.into(), Some(Workload::Bank))
        .expect_err("transactions are not bank ops");
    assert!(d.error.help.contains("--workload bank"), "{}", d.error.help);
}

#[test]
fn malformed_checker_histories_are_diagnosed() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/jepsen/malformed");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixtures/jepsen/malformed exists")
        .map(|e| e.expect("readable entry").path())
        .collect();
    files.sort();
    assert!(files.len() >= 7, "{files:?}");
    for path in files {
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("a name")
            .to_string();
        let rel = format!("fixtures/jepsen/malformed/{name}.edn");
        let d = match history::parse_text(Format::Edn, &rel, read(&rel), None) {
            Ok(h) => panic!("{rel} was accepted as {:?}", h.workload),
            Err(d) => d,
        };
        assert!(!d.error.help.is_empty(), "{rel}: no help");
        assert!(!d.error.labels.is_empty(), "{rel}: no span");
        insta::assert_snapshot!(format!("malformed-{name}"), diagnostic::render(&d, false));
    }
}

/// The binary: exit status 1 for an invalid history, 3 for a malformed one.
#[test]
fn the_binary_gives_verdicts_and_diagnostics() {
    let status = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_isocheck"))
            .env("ISOCHECK_PROGRESS", "off")
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(args)
            .env("NO_COLOR", "1")
            .output()
            .expect("run isocheck")
            .status
            .code()
    };
    assert_eq!(
        status(&["check", "fixtures/jepsen/bank-valid.edn"]),
        Some(0)
    );
    assert_eq!(
        status(&["check", "fixtures/jepsen/counter-invalid.edn"]),
        Some(1)
    );
    assert_eq!(
        status(&[
            "check",
            "--workload",
            "long-fork",
            "--group-size",
            "3",
            "fixtures/jepsen/long-fork-wrong-group.edn"
        ]),
        Some(0)
    );
    assert_eq!(
        status(&["check", "fixtures/jepsen/malformed/bank-read-not-a-map.edn"]),
        Some(3)
    );
    assert_eq!(
        status(&[
            "check",
            "--total-amount",
            "29",
            "fixtures/jepsen/bank-valid.edn"
        ]),
        Some(1)
    );
}

/// Writes a Jepsen history, one op a line, `:time` a millisecond an op.
#[derive(Default)]
struct Writer {
    text: String,
    index: usize,
}

impl Writer {
    fn op(&mut self, ty: &str, f: &str, value: Option<String>, process: usize) {
        let value = value.map_or(String::new(), |v| format!(", :value {v}"));
        self.text.push_str(&format!(
            "{{:type :{ty}, :f :{f}{value}, :process {process}, :time {}, :index {}}}\n",
            self.index * 1_000_000,
            self.index
        ));
        self.index += 1;
    }

    /// The line of op `index`.
    fn replace_line(&mut self, index: usize, line: String) {
        let mut lines: Vec<String> = self.text.lines().map(String::from).collect();
        lines[index] = line;
        self.text = lines.join("\n") + "\n";
    }
}

/// One step of a simulated client: process `process` invokes an op (chosen
/// by `kind`, with `arg`) when idle, and else completes its op (`outcome`:
/// 0 and 1 `:ok`, 2 `:fail`, 3 `:info`).
#[derive(Clone, Copy, Debug)]
struct Step {
    process: usize,
    kind: u8,
    arg: i64,
    outcome: u8,
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    prop::collection::vec(
        (0..4usize, 0..4u8, 0..6i64, 0..4u8).prop_map(|(process, kind, arg, outcome)| Step {
            process,
            kind,
            arg,
            outcome,
        }),
        1..80,
    )
}

/// A counter that takes each op's effect at its completion (an `:info`
/// add at its completion or never): linearizable by construction. Returns
/// the history, the ops' lines of `:ok` reads, and the sum of every add
/// invoked.
fn counter(steps: &[Step]) -> (Writer, Vec<usize>, i64) {
    let mut w = Writer::default();
    let mut pending: [Option<(bool, i64)>; 4] = [None; 4];
    let (mut state, mut attempted, mut reads) = (0i64, 0i64, Vec::new());
    for s in steps {
        match pending[s.process].take() {
            None if s.kind % 2 == 0 => {
                w.op("invoke", "add", Some(s.arg.to_string()), s.process);
                attempted += s.arg;
                pending[s.process] = Some((true, s.arg));
            }
            None => {
                w.op("invoke", "read", None, s.process);
                pending[s.process] = Some((false, 0));
            }
            Some((true, n)) => {
                let (ty, applied) = match s.outcome {
                    0 | 1 => ("ok", true),
                    2 => ("fail", false),
                    _ => ("info", s.arg % 2 == 0),
                };
                if applied {
                    state += n;
                }
                w.op(ty, "add", Some(n.to_string()), s.process);
            }
            Some((false, _)) if s.outcome == 2 => w.op("fail", "read", None, s.process),
            Some((false, _)) => {
                reads.push(w.index);
                w.op("ok", "read", Some(state.to_string()), s.process);
            }
        }
    }
    (w, reads, attempted)
}

/// A set of unique elements with each op's effect at its completion, reads
/// throughout by process 4, and a final read after everything. Returns the
/// history, the acknowledged elements and the set at the end.
fn set(steps: &[Step], final_read_without: Option<usize>) -> (Writer, Vec<i64>) {
    let mut w = Writer::default();
    let mut pending: [Option<i64>; 4] = [None; 4];
    let (mut state, mut next, mut acknowledged) = (Vec::<i64>::new(), 0i64, Vec::new());
    let show = |s: &[i64]| format!("{s:?}").replace(',', "");
    for s in steps {
        match pending[s.process].take() {
            None if s.kind == 3 => {
                // A read, whole within this step.
                w.op("invoke", "read", None, 4);
                w.op("ok", "read", Some(show(&state)), 4);
            }
            None => {
                w.op("invoke", "add", Some(next.to_string()), s.process);
                pending[s.process] = Some(next);
                next += 1;
            }
            Some(x) => {
                let (ty, applied) = match s.outcome {
                    0 | 1 => ("ok", true),
                    2 => ("fail", false),
                    _ => ("info", s.arg % 2 == 0),
                };
                if applied {
                    state.push(x);
                }
                if ty == "ok" {
                    acknowledged.push(x);
                }
                w.op(ty, "add", Some(x.to_string()), s.process);
            }
        }
    }
    let mut last = state.clone();
    if let Some(i) = final_read_without {
        let x = acknowledged[i % acknowledged.len()];
        last.retain(|&y| y != x);
    }
    w.op("invoke", "read", None, 5);
    w.op("ok", "read", Some(show(&last)), 5);
    (w, acknowledged)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn a_linearizable_counter_is_accepted(steps in steps()) {
        let (w, _, _) = counter(&steps);
        let h = parse("counter", w.text, Some(Workload::Counter));
        let (_, view) = run(&h, JepsenOptions::default());
        prop_assert_eq!(view.valid, Some(Validity::True));
    }

    #[test]
    fn a_read_out_of_bounds_is_found(steps in steps(), which in any::<prop::sample::Index>(), above in any::<bool>()) {
        let (mut w, reads, attempted) = counter(&steps);
        prop_assume!(!reads.is_empty());
        let line = reads[which.index(reads.len())];
        let (value, anomaly) = match above {
            true => (attempted + 1, "read-above-upper-bound"),
            false => (-1, "read-below-lower-bound"),
        };
        let op = w.text.lines().nth(line).expect("the read's line").to_string();
        let head = op.split(", :value").next().expect("a head").to_string();
        let tail = op.split(", :process").nth(1).expect("a tail").to_string();
        w.replace_line(line, format!("{head}, :value {value}, :process{tail}"));
        let h = parse("counter", w.text, Some(Workload::Counter));
        let (_, view) = run(&h, JepsenOptions::default());
        prop_assert_eq!(view.valid, Some(Validity::False));
        prop_assert_eq!(view.types, vec![anomaly]);
    }

    #[test]
    fn a_linearizable_set_is_accepted_by_both_set_checkers(steps in steps()) {
        let (w, _) = set(&steps, None);
        for workload in [Workload::Set, Workload::SetFull] {
            let h = parse("set", w.text.clone(), Some(workload));
            let options = JepsenOptions { linearizable: true, ..JepsenOptions::default() };
            let (outcome, view) = run(&h, options);
            prop_assert_ne!(view.valid, Some(Validity::False), "{:?}", outcome);
            prop_assert_eq!(view.lost_elements, 0);
            prop_assert_eq!(view.stale, 0);
        }
    }

    #[test]
    fn an_acknowledged_element_missing_at_the_end_is_lost(steps in steps(), which in 0..1000usize) {
        let (plain, acknowledged) = set(&steps, None);
        prop_assume!(!acknowledged.is_empty());
        drop(plain);
        let (w, _) = set(&steps, Some(which));
        for workload in [Workload::Set, Workload::SetFull] {
            let h = parse("set", w.text.clone(), Some(workload));
            let (_, view) = run(&h, JepsenOptions::default());
            prop_assert_eq!(view.valid, Some(Validity::False));
            prop_assert!(view.types.contains(&"lost"), "{:?}", view.types);
        }
    }

    #[test]
    fn a_fifo_queue_is_accepted_and_a_lost_enqueue_found(steps in steps()) {
        let mut w = Writer::default();
        let mut pending: [Option<Option<i64>>; 4] = [None; 4];
        let (mut queue, mut next) = (std::collections::VecDeque::new(), 0i64);
        for s in &steps {
            match pending[s.process].take() {
                None if s.kind % 2 == 0 => {
                    w.op("invoke", "enqueue", Some(next.to_string()), s.process);
                    pending[s.process] = Some(Some(next));
                    next += 1;
                }
                None => {
                    w.op("invoke", "dequeue", None, s.process);
                    pending[s.process] = Some(None);
                }
                Some(Some(x)) => {
                    let (ty, applied) = match s.outcome {
                        0 | 1 => ("ok", true),
                        2 => ("fail", false),
                        _ => ("info", s.arg % 2 == 0),
                    };
                    if applied {
                        queue.push_back(x);
                    }
                    w.op(ty, "enqueue", Some(x.to_string()), s.process);
                }
                Some(None) => match queue.pop_front() {
                    Some(x) => w.op("ok", "dequeue", Some(x.to_string()), s.process),
                    None => w.op("fail", "dequeue", None, s.process),
                },
            }
        }
        let mut lost = w.text.clone();
        w.op("invoke", "drain", None, 5);
        let rest: Vec<String> = queue.iter().map(i64::to_string).collect();
        w.op("ok", "drain", Some(format!("[{}]", rest.join(" "))), 5);
        let h = parse("queue", w.text.clone(), Some(Workload::TotalQueue));
        let (outcome, view) = run(&h, JepsenOptions::default());
        prop_assert_eq!(view.valid, Some(Validity::True), "{:?}", outcome);
        // An acknowledged enqueue that no dequeue or drain returns.
        lost.push_str(&format!("{{:type :invoke, :f :enqueue, :value {next}, :process 6}}\n"));
        lost.push_str(&format!("{{:type :ok, :f :enqueue, :value {next}, :process 6}}\n"));
        lost.push_str(&format!("{{:type :invoke, :f :drain, :process 5}}\n{{:type :ok, :f :drain, :value [{}], :process 5}}\n", rest.join(" ")));
        let h = parse("queue", lost, Some(Workload::TotalQueue));
        let (_, view) = run(&h, JepsenOptions::default());
        prop_assert_eq!(view.valid, Some(Validity::False));
        prop_assert!(view.types.contains(&"lost"), "{:?}", view.types);
    }

    #[test]
    fn a_serializable_bank_is_accepted_and_a_changed_balance_found(steps in steps(), bump in 1..5i64) {
        let mut w = Writer::default();
        let mut balances = [10i64; 4];
        let mut pending: [Option<(usize, usize, i64)>; 4] = [None; 4];
        let mut reads = Vec::new();
        let show = |b: &[i64; 4]| {
            let parts: Vec<String> = b.iter().enumerate().map(|(a, x)| format!("{a} {x}")).collect();
            format!("{{{}}}", parts.join(", "))
        };
        for s in &steps {
            let transfer = |t: (usize, usize, i64)| format!("{{:from {}, :to {}, :amount {}}}", t.0, t.1, t.2);
            match pending[s.process].take() {
                None if s.kind % 2 == 0 => {
                    let t = (s.process, (s.process + 1 + s.kind as usize) % 4, s.arg + 1);
                    w.op("invoke", "transfer", Some(transfer(t)), s.process);
                    pending[s.process] = Some(t);
                }
                None => {
                    w.op("invoke", "read", None, 4);
                    reads.push(w.index);
                    w.op("ok", "read", Some(show(&balances)), 4);
                }
                Some(t) => {
                    // Applied at completion when the balance allows it.
                    let ok = s.outcome != 2 && balances[t.0] >= t.2;
                    if ok {
                        balances[t.0] -= t.2;
                        balances[t.1] += t.2;
                    }
                    w.op(if ok { "ok" } else { "fail" }, "transfer", Some(transfer(t)), s.process);
                }
            }
        }
        reads.push(w.index + 1);
        w.op("invoke", "read", None, 4);
        w.op("ok", "read", Some(show(&balances)), 4);
        let h = parse("bank", w.text.clone(), Some(Workload::Bank));
        let given = JepsenOptions { total_amount: Some(40), ..JepsenOptions::default() };
        let (outcome, view) = run(&h, given.clone());
        prop_assert_eq!(view.valid, Some(Validity::True), "{:?}", outcome);
        let last = *reads.last().expect("a final read");
        let mut changed = balances;
        changed[3] += bump;
        let op = format!("{{:type :ok, :f :read, :value {}, :process 4, :time 0, :index {last}}}", show(&changed));
        w.replace_line(last, op);
        let h = parse("bank", w.text, Some(Workload::Bank));
        let (_, view) = run(&h, given);
        prop_assert_eq!(view.valid, Some(Validity::False));
        prop_assert_eq!(view.types, vec!["wrong-total"]);
    }

    #[test]
    fn unique_ids_are_accepted_and_a_repeat_found(n in 1..40usize, repeat in any::<prop::sample::Index>()) {
        let mut w = Writer::default();
        for i in 0..n {
            w.op("invoke", "generate", None, i % 3);
            w.op("ok", "generate", Some((i * 7).to_string()), i % 3);
        }
        let h = parse("ids", w.text.clone(), None);
        let (_, view) = run(&h, JepsenOptions::default());
        prop_assert_eq!(view.valid, Some(Validity::True));
        w.op("invoke", "generate", None, 9);
        w.op("ok", "generate", Some((repeat.index(n) * 7).to_string()), 9);
        let h = parse("ids", w.text, None);
        let (_, view) = run(&h, JepsenOptions::default());
        prop_assert_eq!(view.valid, Some(Validity::False));
    }
}

/// Jepsen's set-full fold, written out plainly as the oracle: a sorted map
/// of element states updated op by op in file order, each `:ok` read
/// checked against every element with a set of what it holds.
fn set_full_oracle(h: &History) -> Vec<(i64, &'static str, Option<i64>, Option<i64>)> {
    use isocheck::history::{CheckerF, CheckerValue, OpType};
    use std::collections::{BTreeMap, HashMap, HashSet};
    #[derive(Clone, Copy, Default)]
    struct S {
        known: Option<usize>,
        present: Option<usize>,
        absent: Option<usize>,
    }
    let int = |v: isocheck::history::Val| h.values.display(v).parse::<i64>().expect("int");
    // Each op's checker op and whether it is the invocation.
    let mut of: HashMap<usize, (usize, bool)> = HashMap::new();
    for (i, o) in h.checker_ops.iter().enumerate() {
        if let Some(id) = o.invoke {
            of.insert(id as usize, (i, true));
        }
        if let Some(id) = o.completion {
            of.insert(id as usize, (i, false));
        }
    }
    let mut elements: BTreeMap<i64, S> = BTreeMap::new();
    for (id, op) in h.ops.iter().enumerate() {
        let Some(&(i, invocation)) = of.get(&id) else {
            continue;
        };
        let o = &h.checker_ops[i];
        match (o.f, invocation) {
            (CheckerF::Add, true) => {
                if let CheckerValue::Elem(x) = o.invoked {
                    elements.insert(int(x), S::default());
                }
            }
            (CheckerF::Add, false) if op.ty == OpType::Ok => {
                if let CheckerValue::Elem(x) = o.invoked {
                    if let Some(s) = elements.get_mut(&int(x)) {
                        s.known.get_or_insert(id);
                    }
                }
            }
            (CheckerF::Read, false) if op.ty == OpType::Ok => {
                let CheckerValue::Elems { start, len } = o.completed else {
                    panic!("a read")
                };
                let read: HashSet<i64> = h.list(start, len).iter().map(|&v| int(v)).collect();
                let inv = o.invoke.map_or(id, |x| x as usize);
                let index = |x: usize| h.ops[x].index;
                for (x, s) in elements.iter_mut() {
                    let slot = match read.contains(x) {
                        true => {
                            s.known.get_or_insert(id);
                            &mut s.present
                        }
                        false => &mut s.absent,
                    };
                    if slot.is_none_or(|old| index(old) < index(inv)) {
                        *slot = Some(inv);
                    }
                }
            }
            _ => {}
        }
    }
    let index = |x: Option<usize>| x.map_or(-1, |x| h.ops[x].index);
    let time = |x: usize| h.ops[x].time().unwrap_or(0);
    elements
        .into_iter()
        .map(|(x, s)| {
            let stable = s.present.is_some() && index(s.absent) < index(s.present);
            let lost = s.known.is_some()
                && s.absent.is_some()
                && index(s.present) < index(s.absent)
                && index(s.known) < index(s.absent);
            let known_time = s.known.map_or(0, time);
            let ms = |t: i64| Some((t - known_time).max(0) / 1_000_000);
            match (stable, lost) {
                (true, _) => (x, "stable", ms(s.absent.map_or(0, |a| time(a) + 1)), None),
                (false, true) => (x, "lost", None, ms(s.present.map_or(0, |p| time(p) + 1))),
                _ => (x, "never-read", None, None),
            }
        })
        .collect()
}

/// Random set-full histories: re-added elements, reads of any subset with
/// repeats, ops of every outcome, uneven times.
fn set_full_history(steps: &[Step], masks: &[u16]) -> String {
    let mut text = String::new();
    let mut pending: [Option<(bool, i64)>; 4] = [None; 4];
    let mut time = 0i64;
    for (n, s) in steps.iter().enumerate() {
        time += (s.arg + 1) * 700_000;
        let mask = masks[n % masks.len()];
        let (ty, f, value) = match pending[s.process].take() {
            None if s.kind == 0 => {
                pending[s.process] = Some((false, 0));
                ("invoke", "read", String::new())
            }
            None => {
                pending[s.process] = Some((true, s.arg));
                ("invoke", "add", format!(", :value {}", s.arg))
            }
            Some((true, x)) => {
                let ty = ["ok", "ok", "fail", "info"][s.outcome as usize];
                (ty, "add", format!(", :value {x}"))
            }
            Some((false, _)) => {
                let mut read: Vec<String> = (0..6)
                    .filter(|b| mask & (1 << b) != 0)
                    .map(|b| b.to_string())
                    .collect();
                if mask & (1 << 8) != 0 && !read.is_empty() {
                    read.push(read[0].clone());
                }
                let ty = if s.outcome == 2 { "fail" } else { "ok" };
                (ty, "read", format!(", :value [{}]", read.join(" ")))
            }
        };
        text.push_str(&format!(
            "{{:type :{ty}, :f :{f}{value}, :process {}, :time {time}, :index {n}}}\n",
            s.process
        ));
    }
    text
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn set_full_agrees_with_jepsens_fold(steps in steps(), masks in prop::collection::vec(any::<u16>(), 1..8)) {
        let text = set_full_history(&steps, &masks);
        let h = parse("set-full", text, Some(Workload::SetFull));
        let (outcome, _) = run(&h, JepsenOptions::default());
        let Outcome::Jepsen(JepsenResult::SetFull(r)) = outcome else { panic!("not set-full") };
        let ours: Vec<_> = r
            .elements
            .iter()
            .map(|e| {
                let x = h.values.display(e.element).parse::<i64>().expect("int");
                (x, e.outcome.name(), e.stable_latency, e.lost_latency)
            })
            .collect();
        prop_assert_eq!(ours, set_full_oracle(&h));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    /// Writes of fresh keys that take effect at completion, and reads of a
    /// key's group (`n` = 2) that return the state at completion: one order
    /// of states, so no long fork; two reads of a group that each miss the
    /// other's write are one.
    #[test]
    fn serial_reads_have_no_long_fork_and_an_injected_one_is_found(steps in steps()) {
        let mut w = Writer::default();
        let mut written = std::collections::BTreeSet::new();
        // (is it a write, its key or the first key of the group it reads)
        let mut pending: [Option<(bool, i64)>; 4] = [None; 4];
        let mut next = 0i64;
        for s in &steps {
            match pending[s.process].take() {
                None if s.kind % 2 == 0 => {
                    w.op("invoke", "write", Some(format!("[[:w {next} 1]]")), s.process);
                    pending[s.process] = Some((true, next));
                    next += 1;
                }
                None => {
                    let k = s.arg.min(next) / 2 * 2;
                    w.op("invoke", "read", Some(format!("[[:r {k} nil] [:r {} nil]]", k + 1)), s.process);
                    pending[s.process] = Some((false, k));
                }
                Some((true, k)) => {
                    let ok = s.outcome != 2;
                    if ok {
                        written.insert(k);
                    }
                    w.op(if ok { "ok" } else { "fail" }, "write", Some(format!("[[:w {k} 1]]")), s.process);
                }
                Some((false, k)) => {
                    let v = |k: i64| if written.contains(&k) { "1" } else { "nil" };
                    let value = format!("[[:r {k} {}] [:r {} {}]]", v(k), k + 1, v(k + 1));
                    w.op("ok", "read", Some(value), s.process);
                }
            }
        }
        let h = parse("long-fork", w.text.clone(), Some(Workload::LongFork));
        let (outcome, view) = run(&h, JepsenOptions::default());
        prop_assert_eq!(view.valid, Some(Validity::True), "{:?}\n{}", outcome, w.text);
        let (a, b) = (next + next % 2, next + next % 2 + 1);
        for k in [a, b] {
            w.op("invoke", "write", Some(format!("[[:w {k} 1]]")), 7);
            w.op("ok", "write", Some(format!("[[:w {k} 1]]")), 7);
        }
        for (x, y) in [("1", "nil"), ("nil", "1")] {
            w.op("invoke", "read", Some(format!("[[:r {a} nil] [:r {b} nil]]")), 8);
            w.op("ok", "read", Some(format!("[[:r {a} {x}] [:r {b} {y}]]")), 8);
        }
        let h = parse("long-fork", w.text, Some(Workload::LongFork));
        let (_, view) = run(&h, JepsenOptions::default());
        prop_assert_eq!(view.valid, Some(Validity::False));
        prop_assert_eq!(view.types, vec!["long-fork"]);
    }
}

/// Sums past the 64-bit limits neither overflow nor saturate: a bank whose
/// reads all sum to twice the largest integer is consistent, and a counter
/// read of the largest integer after adds summing to twice it is below its
/// lower bound.
#[test]
fn sums_past_the_integer_limits() {
    let max = i64::MAX;
    let read = format!("{{0 {max}, 1 {max}}}");
    let bank = format!(
        "{{:type :invoke, :f :read, :process 0}}\n{{:type :ok, :f :read, :value {read}, :process 0}}\n\
         {{:type :invoke, :f :transfer, :value {{:from 0 :to 1 :amount 1}}, :process 1}}\n\
         {{:type :fail, :f :transfer, :value {{:from 0 :to 1 :amount 1}}, :process 1}}\n\
         {{:type :invoke, :f :read, :process 0}}\n{{:type :ok, :f :read, :value {read}, :process 0}}\n"
    );
    let h = parse("bank", bank, None);
    let (_, view) = run(&h, JepsenOptions::default());
    assert_eq!(view.valid, Some(Validity::True));
    let add = format!(
        "{{:type :invoke, :f :add, :value {max}, :process 1}}\n{{:type :ok, :f :add, :value {max}, :process 1}}\n"
    );
    let counter = format!(
        "{add}{add}{{:type :invoke, :f :read, :process 1}}\n{{:type :ok, :f :read, :value {max}, :process 1}}\n"
    );
    let h = parse("counter", counter, None);
    let (outcome, view) = run(&h, JepsenOptions::default());
    assert_eq!(view.types, ["read-below-lower-bound"]);
    assert!(
        outcome.edn(&h).contains("18446744073709551614N"),
        "{}",
        outcome.edn(&h)
    );
}

/// Completions may leave out the value they repeat (a failed or crashed
/// add, an acknowledged enqueue); an `:ok` counter read may not.
#[test]
fn completions_without_values() {
    let counter = "{:type :invoke, :f :add, :value 2, :process 0}
{:type :info, :f :add, :process 0}
{:type :invoke, :f :add, :value 3, :process 1}
{:type :fail, :f :add, :process 1}
{:type :invoke, :f :add, :value 1, :process 2}
{:type :ok, :f :add, :process 2}
{:type :invoke, :f :read, :process 3}
{:type :ok, :f :read, :value 3, :process 3}
";
    let h = parse("counter", counter.into(), None);
    let (outcome, view) = run(&h, JepsenOptions::default());
    assert_eq!(view.valid, Some(Validity::True), "{outcome:?}");
    // Read 3: at least the acknowledged 1, at most 1 + the crashed 2.
    assert!(
        outcome.edn(&h).contains(":reads [[1 3 3]]"),
        "{}",
        outcome.edn(&h)
    );
    let queue = "{:type :invoke, :f :enqueue, :value 1, :process 0}
{:type :ok, :f :enqueue, :process 0}
{:type :invoke, :f :drain, :process 1}
{:type :ok, :f :drain, :value [1], :process 1}
";
    let h = parse("queue", queue.into(), None);
    let (_, view) = run(&h, JepsenOptions::default());
    assert_eq!(view.valid, Some(Validity::True));
    let unread = format!(
        "{counter}{{:type :invoke, :f :read, :process 3}}\n{{:type :ok, :f :read, :process 3}}\n"
    );
    let d =
        history::parse_text(Format::Edn, "counter", unread, None).expect_err("a read of nothing");
    assert!(d.to_string().contains("must be an integer"), "{d}");
}

/// Jepsen's set checker takes a final read of `nil` for no read (unknown),
/// and of `[]` for an empty set (everything acknowledged lost).
#[test]
fn a_final_read_of_nil_is_no_read() {
    let adds = "{:type :invoke, :f :add, :value 1, :process 0}\n{:type :ok, :f :add, :value 1, :process 0}\n";
    let nil = format!("{adds}{{:type :invoke, :f :read, :process 1}}\n{{:type :ok, :f :read, :value nil, :process 1}}\n");
    let h = parse("set", nil, None);
    assert_eq!(h.workload, Workload::Set);
    let (outcome, view) = run(&h, JepsenOptions::default());
    assert_eq!(view.valid, Some(Validity::Unknown));
    assert!(outcome.edn(&h).contains("Set was never read"));
    let empty = format!("{adds}{{:type :invoke, :f :read, :process 1}}\n{{:type :ok, :f :read, :value [], :process 1}}\n");
    let h = parse("set", empty, None);
    let (_, view) = run(&h, JepsenOptions::default());
    assert_eq!(view.types, ["lost"]);
}

/// Any value in any op of any checker's history: a verdict in every format
/// or a diagnostic, never a panic.
fn junk_value() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just(", :value nil".to_string()),
        (-3i64..4).prop_map(|n| format!(", :value {n}")),
        Just(", :value 9223372036854775807".to_string()),
        Just(", :value :x".to_string()),
        Just(", :value \"s\"".to_string()),
        prop::collection::vec(-2i64..4, 0..4).prop_map(|v| format!(", :value {v:?}")
            .replace(',', " ")
            .replacen("  :value", ", :value", 1)),
        prop::collection::vec((0i64..3, prop::option::of(-2i64..12)), 0..4).prop_map(|m| {
            let parts: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("{k} {}", v.map_or("nil".to_string(), |v| v.to_string())))
                .collect();
            format!(", :value {{{}}}", parts.join(", "))
        }),
        Just(", :value [[:w 1 1]]".to_string()),
        Just(", :value [[:r 1 nil] [:r 2 1]]".to_string()),
        Just(", :value #{1 2}".to_string()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn any_checker_history_gets_a_verdict_or_a_diagnostic(
        ops in prop::collection::vec(
            (0..3usize, 0..4usize, 0..9usize, junk_value()),
            0..14,
        ),
        workload in 0..8usize,
    ) {
        const FS: [&str; 9] = ["read", "add", "transfer", "enqueue", "dequeue", "drain", "generate", "write", "cas"];
        const TYPES: [&str; 4] = ["invoke", "ok", "fail", "info"];
        let text: String = ops
            .iter()
            .map(|(p, ty, f, value)| format!("{{:type :{}, :f :{}{value}, :process {p}}}\n", TYPES[*ty], FS[*f]))
            .collect();
        let flag = Workload::CHECKERS.get(workload).copied();
        let h = match history::parse_text(Format::Edn, "junk", text.clone(), flag) {
            Ok(h) => h,
            Err(d) => return input_diagnostic(&d, &text),
        };
        let opts = CheckOptions { jepsen: JepsenOptions { total_amount: Some(3), ..JepsenOptions::default() }, ..CheckOptions::default() };
        // The options are valid whatever the history: an error is a bug.
        let outcome = isocheck::check(&h, &opts)
            .map_err(|e| TestCaseError::fail(format!("check refused valid options: {e}\n{text}")))?;
        let edn = outcome.edn(&h);
        let json: serde_json::Value = serde_json::from_str(&outcome.json(&h))
            .map_err(|e| TestCaseError::fail(format!("{e}: the JSON report of\n{text}")))?;
        let _ = outcome.human(&h, false);
        let valid = match outcome.validity() {
            Validity::True => "true",
            Validity::False => "false",
            Validity::Unknown => ":unknown",
        };
        prop_assert!(edn.contains(&format!(":valid? {valid}")), "{}", edn);
        let json_valid = json["valid?"].to_string();
        prop_assert_eq!(json_valid.trim_matches('"'), valid.trim_start_matches(':'));
    }
}

/// A history the reader refuses gets a diagnostic about the input: a
/// reader's error code (not an I/O error: the text was given whole), every
/// label inside the text, and a rendering that names the code.
fn input_diagnostic(d: &history::InputDiagnostic, text: &str) -> Result<(), TestCaseError> {
    let code = d.error.code();
    prop_assert_ne!(code, "isocheck::io", "{}", d);
    for label in &d.error.labels {
        prop_assert!(
            label.span.end() <= text.len(),
            "{:?} past the text: {}",
            label.span,
            d
        );
    }
    let plain = diagnostic::render(d, false);
    prop_assert!(plain.contains(code), "{}", plain);
    Ok(())
}
