//! The streaming counter, set and bank checks (`isocheck::stream::
//! checkers`) against the offline checkers: on random simulated histories,
//! correct and with injected faults (reads out of bounds, adds that fail
//! yet take effect, lost and unexpected elements, wrong totals, negative
//! and nil balances, unknown and missing accounts, ops that fail, crash or
//! never complete, completions without invocations, concurrent processes),
//! with the workload given or detected and random bank options, the stream
//! gives the offline verdict and anomaly types, or refuses a history whose
//! workload the offline reader makes something it does not stream.

mod common;

use common::Rng;
use isocheck::history::jepsen::streaming::OpStream;
use isocheck::history::{self, Format, Workload};
use isocheck::stream::checkers::STREAMED;
use isocheck::stream::{CheckerEnding, CheckerStream};
use isocheck::{CheckOptions, JepsenOptions, Validity};
use proptest::prelude::*;

/// A history being written, one op map a line.
#[derive(Default)]
struct Writer {
    lines: Vec<String>,
}

impl Writer {
    fn op(&mut self, ty: &str, f: &str, value: &str, process: u64) {
        let i = self.lines.len();
        self.lines.push(format!(
            "{{:index {i}, :type :{ty}, :f :{f}, :value {value}, :process {process}}}"
        ));
    }
}

/// What a process has under way: `:f` and value.
type UnderWay = Option<(&'static str, i64)>;

/// One chance in `n`.
fn one_in(r: &mut Rng, n: u64) -> bool {
    r.below(n) == 0
}

/// How a completion ends: mostly `:ok`, sometimes `:fail` or `:info`.
fn outcome(r: &mut Rng) -> &'static str {
    ["ok", "ok", "ok", "ok", "ok", "fail", "info"][r.below(7) as usize]
}

/// A counter: adds take effect at their completion (an `:info` one maybe,
/// a `:fail`ed one under the fault), reads return the sum then (off by a
/// little under the fault).
fn counter(r: &mut Rng, w: &mut Writer) {
    let processes = 1 + r.below(4);
    let mut under_way: Vec<UnderWay> = vec![None; processes as usize];
    let mut sum = 0i64;
    let faulty = one_in(r, 3);
    for _ in 0..r.below(40) {
        let p = r.below(processes);
        match under_way[p as usize].take() {
            None if faulty && one_in(r, 20) => w.op("ok", "add", &r.below(5).to_string(), p),
            None if one_in(r, 2) => {
                // Under the fault, now and then an add of no count.
                let v = r.below(5) as i64 - i64::from(faulty && one_in(r, 50));
                w.op("invoke", "add", &v.to_string(), p);
                under_way[p as usize] = Some(("add", v));
            }
            None => {
                w.op("invoke", "read", "nil", p);
                under_way[p as usize] = Some(("read", 0));
            }
            Some(("add", v)) => {
                let ty = outcome(r);
                let applied = match ty {
                    "ok" => true,
                    "info" => one_in(r, 2),
                    _ => faulty && one_in(r, 3),
                };
                sum += if applied { v } else { 0 };
                let value = match one_in(r, 5) {
                    true => "nil".to_string(),
                    false => v.to_string(),
                };
                w.op(ty, "add", &value, p);
            }
            Some(_) => match outcome(r) {
                "ok" => {
                    let off = if faulty && one_in(r, 4) {
                        r.below(5) as i64 - 2
                    } else {
                        0
                    };
                    w.op("ok", "read", &(sum + off).to_string(), p);
                }
                ty => w.op(ty, "read", "nil", p),
            },
        }
    }
}

/// A set: adds of distinct elements (integers or keywords), taking effect
/// at completion, then (mostly) one final read of what is in it, an
/// element lost or one never added under the fault; now and then a read
/// along the way too (set-full's, unless the workload is given).
fn set(r: &mut Rng, w: &mut Writer) {
    let processes = 1 + r.below(4);
    let keyword = one_in(r, 2);
    let elem = |e: u64| match keyword {
        true => format!(":e{e}"),
        false => e.to_string(),
    };
    let mut under_way: Vec<UnderWay> = vec![None; processes as usize];
    let mut set: Vec<u64> = Vec::new();
    let mut next = 0u64;
    let faulty = one_in(r, 3);
    let read = |set: &[u64], r: &mut Rng| {
        let mut shown: Vec<String> = set.iter().map(|&e| elem(e)).collect();
        if faulty && !shown.is_empty() && one_in(r, 2) {
            shown.remove(r.below(shown.len() as u64) as usize);
        }
        if faulty && one_in(r, 3) {
            shown.push(elem(1000 + r.below(3)));
        }
        format!("[{}]", shown.join(" "))
    };
    for _ in 0..r.below(40) {
        let p = r.below(processes);
        match under_way[p as usize].take() {
            None if one_in(r, 12) => {
                w.op("invoke", "read", "nil", p);
                under_way[p as usize] = Some(("read", 0));
            }
            None => {
                // Now and then an element added twice.
                let e = match one_in(r, 10) {
                    true => next.saturating_sub(1),
                    false => next,
                };
                next += 1;
                w.op("invoke", "add", &elem(e), p);
                under_way[p as usize] = Some(("add", e as i64));
            }
            Some(("add", e)) => {
                let ty = outcome(r);
                if ty == "ok" || (ty == "info" && one_in(r, 2)) {
                    set.push(e as u64);
                }
                w.op(ty, "add", &elem(e as u64), p);
            }
            Some(_) => w.op("ok", "read", &read(&set, r), p),
        }
    }
    let p = r.below(processes);
    if under_way[p as usize].is_none() && !one_in(r, 8) {
        w.op("invoke", "read", "nil", p);
        match r.below(8) {
            0 => w.op("ok", "read", "nil", p),
            1 => w.op("fail", "read", "nil", p),
            _ => w.op("ok", "read", &read(&set, r), p),
        }
    }
}

/// A bank: transfers between accounts, applied at completion when the
/// balance allows (an `:info` one maybe), and reads of every balance then,
/// or, under the fault, a total off by one, a negative balance, a `nil`
/// one, an unknown account or a missing one.
fn bank(r: &mut Rng, w: &mut Writer) {
    let processes = 1 + r.below(4);
    let accounts = 2 + r.below(3) as usize;
    let mut balances = vec![10i64; accounts];
    let mut under_way: Vec<Option<(usize, usize, i64)>> = vec![None; processes as usize];
    let faulty = one_in(r, 3);
    for _ in 0..r.below(40) {
        let p = r.below(processes);
        match under_way[p as usize].take() {
            None if one_in(r, 2) => {
                let from = r.below(accounts as u64) as usize;
                let to = (from + 1 + r.below(accounts as u64 - 1) as usize) % accounts;
                let amount = 1 + r.below(5) as i64;
                let value = format!("{{:from {from}, :to {to}, :amount {amount}}}");
                w.op("invoke", "transfer", &value, p);
                under_way[p as usize] = Some((from, to, amount));
            }
            None => {
                w.op("invoke", "read", "nil", p);
                under_way[p as usize] = Some((0, 0, 0));
            }
            Some((from, to, amount)) if amount > 0 => {
                let allowed = balances[from] >= amount;
                let ty = match outcome(r) {
                    "ok" if !allowed => "fail",
                    ty => ty,
                };
                if allowed && (ty == "ok" || (ty == "info" && one_in(r, 2))) {
                    balances[from] -= amount;
                    balances[to] += amount;
                }
                let value = format!("{{:from {from}, :to {to}, :amount {amount}}}");
                w.op(ty, "transfer", &value, p);
            }
            Some(_) => match outcome(r) {
                "ok" => w.op("ok", "read", &bank_read(r, &balances, faulty), p),
                ty => w.op(ty, "read", "nil", p),
            },
        }
    }
}

/// A read of `balances`, perhaps broken.
fn bank_read(r: &mut Rng, balances: &[i64], faulty: bool) -> String {
    let mut shown: Vec<(usize, Option<i64>)> = balances
        .iter()
        .enumerate()
        .map(|(a, &b)| (a, Some(b)))
        .collect();
    if faulty && one_in(r, 3) {
        let k = r.below(shown.len() as u64) as usize;
        match r.below(6) {
            0 => shown[k].1 = shown[k].1.map(|b| b + 1),
            1 => {
                let (b0, b1) = (shown[0].1.unwrap_or(0), shown[1].1.unwrap_or(0));
                shown[0].1 = Some(-1);
                shown[1].1 = Some(b1 + b0 + 1);
            }
            2 => shown[k].1 = None,
            3 => shown.push((balances.len(), Some(0))),
            // A balance that is no number: the history does not read.
            4 if one_in(r, 8) => shown[k].1 = Some(i64::MIN),
            _ => {
                shown.remove(k);
            }
        }
    }
    let entries: Vec<String> = shown
        .iter()
        .map(|(a, b)| match b {
            Some(i64::MIN) => format!("{a} :x"),
            Some(b) => format!("{a} {b}"),
            None => format!("{a} nil"),
        })
        .collect();
    format!("{{{}}}", entries.join(", "))
}

/// Random bank options: the total and accounts given (right or not) or
/// taken from the first read, negative balances allowed or not.
fn bank_options(r: &mut Rng) -> JepsenOptions {
    JepsenOptions {
        total_amount: [None, Some(20), Some(30), Some(40)][r.below(4) as usize],
        accounts: match r.below(3) {
            0 => Some(vec!["0".into(), "1".into(), "2".into()]),
            1 => Some(vec!["0".into(), "1".into()]),
            _ => None,
        },
        negative_balances: one_in(r, 4),
        ..JepsenOptions::default()
    }
}

/// A random history: its text, the workload it simulates, the workload
/// given for it (if any), and options.
struct Generated {
    text: String,
    workload: Workload,
    given: Option<Workload>,
    options: JepsenOptions,
}

fn generated(seed: u64) -> Generated {
    let mut r = Rng(seed | 1);
    let mut w = Writer::default();
    let workload = STREAMED[r.below(3) as usize];
    match workload {
        Workload::Counter => counter(&mut r, &mut w),
        Workload::Set => set(&mut r, &mut w),
        _ => bank(&mut r, &mut w),
    }
    let options = match workload {
        Workload::Bank => bank_options(&mut r),
        _ => JepsenOptions::default(),
    };
    Generated {
        text: w.lines.join("\n") + "\n",
        workload,
        given: one_in(&mut r, 3).then_some(workload),
        options,
    }
}

/// The offline reader's workload, and its checker's verdict when it is
/// one the stream checks; `Err` when the history does not read.
type Offline = Result<(Workload, Option<(Validity, Vec<&'static str>)>), String>;

fn offline(text: &str, given: Option<Workload>, options: &JepsenOptions) -> Offline {
    let h = history::parse_text(Format::Edn, "g.edn", text.to_string(), given)
        .map_err(|d| d.to_string())?;
    if !STREAMED.contains(&h.workload) {
        return Ok((h.workload, None));
    }
    let opts = CheckOptions {
        jepsen: options.clone(),
        ..CheckOptions::default()
    };
    let o = isocheck::check(&h, &opts).expect("valid options");
    Ok((h.workload, Some((o.validity(), o.anomaly_types()))))
}

/// The stream's ending, fed the text op by op as `check --stream` reads
/// it, with the findings `drain` gave along the way put first.
fn streamed(
    text: &str,
    given: Option<Workload>,
    options: &JepsenOptions,
) -> Result<CheckerEnding, String> {
    let bytes = text.as_bytes().to_vec();
    let mut ops = OpStream::new(
        "g.edn",
        move || Ok(std::io::Cursor::new(bytes)),
        Default::default(),
    );
    let mut s = CheckerStream::new(given, options);
    let mut found = Vec::new();
    while let Some(op) = ops.next() {
        let op = op.map_err(|e| format!("{e:?}"))?;
        s.op(&op, ops.values()).map_err(|e| format!("{e:?}"))?;
        found.extend(s.drain());
    }
    let mut end = s.finish().map_err(|e| format!("{e:?}"))?;
    found.append(&mut end.findings);
    end.findings = found;
    Ok(end)
}

/// What the stream and the offline checker say of one history agree; the
/// offline verdict (`None`: not one the stream checks).
fn agree(seed: u64) -> Result<Option<Validity>, TestCaseError> {
    let Generated {
        text,
        given,
        options,
        ..
    } = generated(seed);
    let expected = offline(&text, given, &options);
    let ours = streamed(&text, given, &options);
    let context = format!("seed {seed}, {given:?}, {options:?}\n{text}");
    match (expected, ours) {
        (Err(_), ours) => {
            prop_assert!(
                ours.is_err(),
                "the offline reader refuses it: {ours:?}\n{context}"
            );
            Ok(None)
        }
        (Ok((w, Some((valid, types)))), Ok(end)) => {
            prop_assert_eq!(end.workload, Some(w), "{}", context);
            prop_assert_eq!(end.validity, valid, "{:?}\n{}", end.findings, context);
            prop_assert_eq!(&end.anomaly_types, &types, "{}", context);
            // Every finding is of a type the verdict names, and an invalid
            // history has one.
            for f in &end.findings {
                prop_assert!(types.contains(&f.name.as_str()), "{f:?}\n{context}");
            }
            prop_assert_eq!(
                valid == Validity::False,
                !end.findings.is_empty(),
                "{}",
                context
            );
            Ok(Some(valid))
        }
        (Ok((w, Some(_))), Err(e)) => Err(TestCaseError::fail(format!(
            "{w:?}: the stream refused it: {e}\n{context}"
        ))),
        (Ok((_, None)), ours) => {
            let refused = ours.as_ref().map_or(true, |end| end.workload.is_none());
            prop_assert!(refused, "offline: not streamed; ours: {ours:?}\n{context}");
            Ok(None)
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(3000, 30_000)))]

    #[test]
    fn the_stream_agrees_with_the_offline_checkers(seed in any::<u64>()) {
        agree(seed)?;
    }
}

/// The generator reaches every case: valid and invalid histories of each
/// workload, and histories the stream does not check.
#[test]
fn the_histories_cover_each_verdict() {
    // Workload × (valid, invalid, not streamed or not read).
    let mut counts = [[0usize; 3]; 3];
    for seed in 0..3000u64 {
        let simulated = generated(seed).workload;
        let workload = STREAMED.iter().position(|&x| x == simulated).unwrap_or(0);
        let kind = match agree(seed).unwrap_or_else(|e| panic!("{e}")) {
            Some(Validity::True) => 0,
            Some(Validity::False) => 1,
            _ => 2,
        };
        counts[workload][kind] += 1;
    }
    eprintln!("{counts:?}");
    assert!(counts.iter().flatten().all(|&n| n > 0), "{counts:?}");
}

/// The findings `drain` gives after each op of `text` (by op), and the
/// ending; the offline checker's verdict must be the same.
fn op_by_op(text: &str) -> (Vec<(usize, String)>, CheckerEnding) {
    let options = JepsenOptions::default();
    let bytes = text.as_bytes().to_vec();
    let mut ops = OpStream::new(
        "hand.edn",
        move || Ok(std::io::Cursor::new(bytes)),
        Default::default(),
    );
    let mut s = CheckerStream::new(None, &options);
    let mut found = Vec::new();
    let mut i = 0;
    while let Some(op) = ops.next() {
        let op = op.expect("the history reads");
        s.op(&op, ops.values()).expect("a checker's op");
        found.extend(s.drain().into_iter().map(|f| (i, f.name)));
        i += 1;
    }
    let end = s.finish().expect("a checker's history");
    let Ok((_, Some((valid, types)))) = offline(text, None, &options) else {
        panic!("not a streamed checker's history")
    };
    assert_eq!((end.validity, &end.anomaly_types), (valid, &types));
    (found, end)
}

/// A counter's read above what the adds invoked before it could sum to
/// waits for the add under way, and is reported when that add fails, not
/// before; an add that succeeds, crashes or never completes leaves it
/// within its bound. A read below its lower bound is reported at once.
#[test]
fn a_counter_read_waits_for_the_add_its_upper_bound_needs() {
    let head = "{:index 0, :type :invoke, :process 0, :f :add, :value 5}
{:index 1, :type :invoke, :process 1, :f :read, :value nil}
{:index 2, :type :ok, :process 1, :f :read, :value 5}
";
    let above = "read-above-upper-bound".to_string();
    for (end, expected) in [
        (
            "{:index 3, :type :fail, :process 0, :f :add, :value 5}\n",
            vec![(3, above)],
        ),
        (
            "{:index 3, :type :ok, :process 0, :f :add, :value 5}\n",
            vec![],
        ),
        (
            "{:index 3, :type :info, :process 0, :f :add, :value 5}\n",
            vec![],
        ),
        ("", vec![]),
    ] {
        let (found, _) = op_by_op(&format!("{head}{end}"));
        assert_eq!(found, expected, "{end}");
    }
    let below = "{:index 0, :type :invoke, :process 0, :f :add, :value 5}
{:index 1, :type :ok, :process 0, :f :add, :value 5}
{:index 2, :type :invoke, :process 1, :f :read, :value nil}
{:index 3, :type :ok, :process 1, :f :read, :value 4}
";
    let (found, _) = op_by_op(below);
    assert_eq!(found, [(3, "read-below-lower-bound".to_string())]);
}

/// A bank's first read is the first invoked: a read that completes while
/// an earlier one is under way waits for it, and is judged against its
/// total when it completes.
#[test]
fn a_bank_read_waits_for_the_first_invoked_read() {
    let text = "{:index 0, :type :invoke, :process 0, :f :read, :value nil}
{:index 1, :type :invoke, :process 1, :f :read, :value nil}
{:index 2, :type :ok, :process 1, :f :read, :value {0 5, 1 5}}
{:index 3, :type :invoke, :process 2, :f :transfer, :value {:from 0, :to 1, :amount 1}}
{:index 4, :type :ok, :process 0, :f :read, :value {0 6, 1 6}}
";
    let (found, end) = op_by_op(text);
    assert_eq!(found, [(4, "wrong-total".to_string())]);
    assert_eq!(end.anomaly_types, ["wrong-total"]);
}
