//! Lightweight transactions (cas-register histories) and Knossos's mutex:
//! the reports of `fixtures/lwt/` pinned with insta, the check against a
//! brute-force linearizability search on small random histories, and
//! histories of a simulated linearizable register (and mutex) accepted.

use isocheck::history::{self, Format, History, RegisterF, Status, Workload};
use isocheck::internals::registers::linearizable;
use isocheck::internals::registers::{self as lwt, RegisterAnalysis};
use isocheck::Validity;
use isocheck_gen::lwt as gen;
use proptest::prelude::*;
use std::path::Path;

fn load(name: &str) -> History {
    let rel = format!("fixtures/lwt/{name}.edn");
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(&rel))
        .unwrap_or_else(|e| panic!("{rel}: {e}"));
    history::parse_text(Format::Edn, &rel, text, None).unwrap_or_else(|d| panic!("{d}"))
}

const FIXTURES: &[(&str, Validity)] = &[
    ("valid", Validity::True),
    ("realtime", Validity::False),
    ("fork", Validity::False),
    ("unwritten", Validity::False),
    ("cycle", Validity::False),
    ("info-observed", Validity::False),
    ("no-order", Validity::False),
    ("repeated-values", Validity::True),
    ("no-linearization", Validity::False),
    ("mutex-valid", Validity::True),
    ("mutex-release-not-held", Validity::False),
];

#[test]
fn fixtures_render() {
    for &(name, validity) in FIXTURES {
        let h = load(name);
        let workload = match name.starts_with("mutex") {
            true => Workload::Mutex,
            false => Workload::CasRegister,
        };
        assert_eq!(h.workload, workload, "{name}");
        let outcome = isocheck::check(&h, &Default::default()).expect("no model options");
        assert_eq!(outcome.validity(), validity, "{name}: {outcome:?}");
        let edn = outcome.edn(&h);
        let json = outcome.json(&h);
        let forms = history::edn::read_all(&edn).unwrap_or_else(|e| panic!("{e:?}\n{edn}"));
        assert_eq!(forms.len(), 1, "{edn}");
        insta::assert_snapshot!(format!("{name}.human"), outcome.human(&h, false));
        insta::assert_snapshot!(format!("{name}.edn"), edn);
        insta::assert_snapshot!(format!("{name}.json"), json);
    }
}

/// Linearizability by exhaustive search: every order of every subset of the
/// indeterminate ops with all `:ok` ones (failed ops and reads that did not
/// complete with `:ok` left out), run on a register starting at nil (or a
/// mutex starting free), each op placed after every op that completed
/// before it was invoked.
fn brute_force(h: &History) -> bool {
    match h.workload {
        Workload::Mutex => brute_force_with(h, false, mutex_step),
        _ => brute_force_with(h, isocheck::history::Val::NIL, register_step),
    }
}

/// The cas-register's specification.
fn register_step(
    o: &isocheck::history::RegisterOp,
    state: isocheck::history::Val,
) -> Option<isocheck::history::Val> {
    match o.f {
        RegisterF::Read if o.value == state => Some(state),
        RegisterF::Write => Some(o.value),
        RegisterF::Cas if o.value == state => Some(o.new),
        _ => None,
    }
}

/// Knossos's mutex, on whether it is held (not on how the check encodes it).
fn mutex_step(o: &isocheck::history::RegisterOp, held: bool) -> Option<bool> {
    match o.f {
        RegisterF::Acquire => (!held).then_some(true),
        RegisterF::Release => held.then_some(false),
        _ => None,
    }
}

type Step<S> = fn(&isocheck::history::RegisterOp, S) -> Option<S>;

fn brute_force_with<S: Copy>(h: &History, init: S, step: Step<S>) -> bool {
    let mut keys: Vec<_> = h.registers.iter().map(|o| o.key).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter().all(|k| {
        let ops: Vec<_> = h
            .registers
            .iter()
            .filter(|o| o.key == k && o.status != Status::Aborted)
            .filter(|o| o.f != RegisterF::Read || o.status == Status::Committed)
            .collect();
        let inv = |i: usize| ops[i].invoke.map_or(-1, i64::from);
        let comp = |i: usize| match ops[i].status {
            Status::Committed => ops[i].completion.map_or(i64::MAX, i64::from),
            _ => i64::MAX,
        };
        let must: usize = (0..ops.len())
            .filter(|&i| ops[i].status == Status::Committed)
            .count();
        fn search<S: Copy>(
            ops: &[&isocheck::history::RegisterOp],
            inv: &dyn Fn(usize) -> i64,
            comp: &dyn Fn(usize) -> i64,
            step: Step<S>,
            placed: &mut Vec<usize>,
            state: S,
            must_left: usize,
        ) -> bool {
            if must_left == 0 {
                return true;
            }
            for i in 0..ops.len() {
                if placed.contains(&i) || placed.iter().any(|&p| comp(i) < inv(p)) {
                    continue;
                }
                let o = ops[i];
                let Some(next) = step(o, state) else {
                    continue;
                };
                let ok = (o.status == Status::Committed) as usize;
                placed.push(i);
                if search(ops, inv, comp, step, placed, next, must_left - ok) {
                    return true;
                }
                placed.pop();
            }
            false
        }
        search(&ops, &inv, &comp, step, &mut Vec::new(), init, must)
    })
}

/// Lines for `n` ops: each op's invocation and completion, shuffled,
/// invocations in op order. `(op, is_invocation)`.
fn interleave(n: usize, seed: u64) -> Vec<(usize, bool)> {
    let mut events: Vec<(usize, bool)> = Vec::new();
    let mut rng = isocheck_gen::rng::Rng::new(seed);
    let mut pending: Vec<usize> = (0..n).collect();
    let mut open: Vec<usize> = Vec::new();
    while !pending.is_empty() || !open.is_empty() {
        let invoke = !pending.is_empty() && (open.is_empty() || rng.below(2) == 0);
        if invoke {
            let i = pending.remove(0);
            events.push((i, true));
            open.push(i);
        } else {
            let j = rng.below(open.len() as u64) as usize;
            events.push((open.remove(j), false));
        }
    }
    events
}

/// A random small history with repeated values, as Jepsen's etcd test
/// writes them: on one register or two `jepsen.independent` keys, writes
/// of 1–4, reads and expected values nil or 1–4; random intervals and
/// outcomes (`:fail`, `:info`, no completion, and `:ok` for the other
/// `outcomes - 3` of `outcomes`).
fn repeated_history(outcomes: u8, most: usize) -> impl Strategy<Value = String> {
    let op = (0u8..3, 0u8..5, 1u8..5, 0u8..outcomes, 0u8..2);
    let ops = proptest::collection::vec(op, 1..=most);
    (ops, any::<u64>(), any::<bool>()).prop_map(|(ops, seed, two_keys)| {
        let value = |x: u8| match x {
            0 => "nil".to_string(),
            x => x.to_string(),
        };
        let mut out = String::new();
        for (i, is_invoke) in interleave(ops.len(), seed) {
            let (f, a, b, t, k) = ops[i];
            let (f, v) = match f {
                0 => ("read", value(a)),
                1 => ("write", b.to_string()),
                _ => ("cas", format!("[{} {b}]", value(a))),
            };
            let ty = match (is_invoke, t) {
                (true, _) => "invoke",
                (false, 0) => "fail",
                (false, 1) => "info",
                // No completion line: the op never finished.
                (false, 2) => continue,
                _ => "ok",
            };
            let v = if is_invoke && f == "read" {
                "nil".to_string()
            } else {
                v
            };
            let v = if two_keys { format!("[{k} {v}]") } else { v };
            out.push_str(&format!(
                "{{:process {i}, :type :{ty}, :f :{f}, :value {v}}}\n"
            ));
        }
        out
    })
}

/// A random small mutex history: acquires and releases with random
/// intervals and outcomes as [`repeated_history`]'s, on one mutex or two
/// `jepsen.independent` keys (`[k nil]`).
fn mutex_history(outcomes: u8, most: usize) -> impl Strategy<Value = String> {
    let op = (any::<bool>(), 0u8..outcomes, 0u8..2);
    let ops = proptest::collection::vec(op, 1..=most);
    (ops, any::<u64>(), any::<bool>()).prop_map(|(ops, seed, two_keys)| {
        let mut out = String::new();
        for (i, is_invoke) in interleave(ops.len(), seed) {
            let (acquire, t, k) = ops[i];
            let f = if acquire { "acquire" } else { "release" };
            let ty = match (is_invoke, t) {
                (true, _) => "invoke",
                (false, 0) => "fail",
                (false, 1) => "info",
                (false, 2) => continue,
                _ => "ok",
            };
            let v = if two_keys {
                format!("[{k} nil]")
            } else {
                "nil".into()
            };
            out.push_str(&format!(
                "{{:process {i}, :type :{ty}, :f :{f}, :value {v}}}\n"
            ));
        }
        out
    })
}

/// A simulated mutex, linearizable by construction: each step a random
/// process invokes an op (an acquire, or a release of the mutex it holds),
/// applies it atomically (an acquire of a held mutex fails, with no
/// effect), or completes it; a crash reports `:info` whether or not the op
/// was applied, and the process is replaced by a new one, as in Jepsen.
fn simulated_mutex(seed: u64, steps: usize, processes: usize, crash: f64) -> String {
    #[derive(Clone, Copy)]
    enum Pending {
        Idle,
        Invoked(bool),
        Applied(bool, bool),
    }
    let mut rng = isocheck_gen::rng::Rng::new(seed);
    let mut ids: Vec<usize> = (0..processes).collect();
    let mut pending = vec![Pending::Idle; processes];
    let (mut holder, mut next_id, mut out) = (None, processes, String::new());
    let mut line = |p: usize, ty: &str, acquire: bool| {
        let f = if acquire { "acquire" } else { "release" };
        out.push_str(&format!("{{:process {p}, :type :{ty}, :f :{f}}}\n"));
    };
    for _ in 0..steps {
        let p = rng.below(processes as u64) as usize;
        pending[p] = match pending[p] {
            Pending::Idle => {
                let acquire = holder != Some(p);
                line(ids[p], "invoke", acquire);
                Pending::Invoked(acquire)
            }
            Pending::Invoked(acquire) if rng.chance(crash) => {
                line(ids[p], "info", acquire);
                (ids[p], next_id) = (next_id, next_id + 1);
                if holder == Some(p) {
                    holder = Some(usize::MAX);
                }
                Pending::Idle
            }
            Pending::Invoked(acquire) => {
                let ok = match acquire {
                    true if holder.is_none() => {
                        holder = Some(p);
                        true
                    }
                    true => false,
                    false => {
                        holder = None;
                        true
                    }
                };
                Pending::Applied(acquire, ok)
            }
            Pending::Applied(acquire, ok) => {
                let crashed = rng.chance(crash);
                let ty = match (crashed, ok) {
                    (true, _) => "info",
                    (false, true) => "ok",
                    (false, false) => "fail",
                };
                line(ids[p], ty, acquire);
                if crashed {
                    (ids[p], next_id) = (next_id, next_id + 1);
                    if holder == Some(p) {
                        // The new process does not hold what the old one took.
                        holder = Some(usize::MAX);
                    }
                }
                Pending::Idle
            }
        };
    }
    out
}

/// A random small history on one register: written values unique, expected
/// and read values any of them, nil, or garbage; random intervals and outcomes.
fn small_history() -> impl Strategy<Value = String> {
    let op = (0u8..4, 0u8..10, 0u8..10, 0u8..5);
    (proptest::collection::vec(op, 1..=7), any::<u64>()).prop_map(|(ops, seed)| {
        let n = ops.len();
        let events = interleave(n, seed);
        // An expected or read value: nil, one of the written ones, or
        // (rarely) garbage.
        let writers: Vec<usize> = (0..n).filter(|&i| ops[i].0 != 0).collect();
        let value = |x: u8| match x as usize % (writers.len() + 1) {
            _ if x == 9 => "99".to_string(),
            0 => "nil".to_string(),
            j => (writers[j - 1] + 1).to_string(),
        };
        let mut out = String::new();
        for (i, is_invoke) in events {
            let (f, a, b, t) = ops[i];
            let written = (i + 1).to_string();
            let (f, v) = match f {
                0 => ("read", value(a)),
                1 => ("write", written),
                _ => ("cas", format!("[{} {written}]", value(b))),
            };
            let ty = match (is_invoke, t) {
                (true, _) => "invoke",
                (false, 0) => "fail",
                (false, 1) => "info",
                _ => "ok",
            };
            let v = if is_invoke && f == "read" {
                "nil".to_string()
            } else {
                v
            };
            out.push_str(&format!(
                "{{:process {i}, :type :{ty}, :f :{f}, :value {v}}}\n"
            ));
        }
        out
    })
}

/// The general search alone, on every key.
fn search_all(h: &History) -> bool {
    let mut keys: Vec<_> = h.registers.iter().map(|o| o.key).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter().all(|k| {
        let ids: Vec<u32> = (0..h.registers.len() as u32)
            .filter(|&i| h.registers[i as usize].key == k)
            .collect();
        linearizable::check_key(&h.registers, &ids).is_ok()
    })
}

/// The check decides a cas-register history (`text` may be none) as the
/// exhaustive search does.
fn decided_as_brute_force(text: &str) -> Result<(), TestCaseError> {
    let Ok(h) = history::parse_edn("p.edn", text) else {
        return Ok(());
    };
    if !matches!(h.workload, Workload::CasRegister | Workload::Mutex) {
        return Ok(());
    }
    let a = lwt::check(&h);
    prop_assert_ne!(a.validity(), Validity::Unknown, "{:?}\n{}", a, text);
    prop_assert_eq!(
        a.validity() == Validity::True,
        brute_force(&h),
        "{:?}\n{}",
        a,
        text
    );
    for v in &a.violations {
        if let lwt::Violation::NoLinearization {
            prefix, op, states, ..
        } = v
        {
            real_counterexample(&h, prefix, *op, states).map_err(|e| {
                TestCaseError::fail(format!("{e}: {prefix:?} {op} {states:?}\n{text}"))
            })?;
        }
    }
    Ok(())
}

/// A `:no-linearization` counterexample holds: its prefix uses each op
/// once, respects real time, runs on the register (or mutex), contains
/// every `:ok` op that completed before `op` did, and ends in one of
/// `states`.
fn real_counterexample(
    h: &History,
    prefix: &[u32],
    op: u32,
    states: &[isocheck::history::Val],
) -> Result<(), String> {
    let reg = |r: u32| &h.registers[r as usize];
    let inv = |r: u32| reg(r).invoke.map_or(-1, i64::from);
    let comp = |r: u32| match reg(r).status {
        Status::Committed => reg(r).completion.map_or(i64::MAX, i64::from),
        _ => i64::MAX,
    };
    let mut seen = std::collections::HashSet::new();
    if !prefix.iter().all(|&r| seen.insert(r)) || seen.contains(&op) {
        return Err("an op twice".into());
    }
    for (i, &a) in prefix.iter().enumerate() {
        if prefix[i + 1..].iter().any(|&b| comp(b) < inv(a)) {
            return Err(format!("{a} placed after an op that completed before it"));
        }
    }
    let key = reg(op).key;
    let missing = (0..h.registers.len() as u32).find(|&r| {
        let o = reg(r);
        o.key == key && o.status == Status::Committed && comp(r) < comp(op) && !seen.contains(&r)
    });
    if let Some(r) = missing {
        return Err(format!(
            "{r} completed before {op} but is not in the prefix"
        ));
    }
    let end = match h.workload {
        Workload::Mutex => {
            let held = prefix
                .iter()
                .try_fold(false, |s, &r| mutex_step(reg(r), s))
                .ok_or("the prefix does not run")?;
            states
                .iter()
                .any(|&v| (h.values.display(v) == ":held") == held)
        }
        _ => {
            let v = prefix
                .iter()
                .try_fold(isocheck::history::Val::NIL, |s, &r| {
                    register_step(reg(r), s)
                })
                .ok_or("the prefix does not run")?;
            states.contains(&v)
        }
    };
    end.then_some(())
        .ok_or_else(|| "the prefix ends outside the states".to_string())
}

fn check_text(text: &str) -> (History, RegisterAnalysis) {
    let h = history::parse_edn("p.edn", text).unwrap_or_else(|d| panic!("{d}\n{text}"));
    let a = lwt::check(&h);
    (h, a)
}

/// A simulated register's history is accepted, and the brute force agrees
/// when it is small enough to enumerate.
fn simulation_is_accepted(params: &gen::Params) -> Result<(), TestCaseError> {
    let mut text = Vec::new();
    gen::write(&mut text, params).expect("write");
    let text = String::from_utf8(text).expect("utf8");
    let (h, a) = check_text(&text);
    prop_assert_eq!(a.validity(), Validity::True, "{:?}\n{}", a, text);
    if h.registers.len() <= 7 {
        prop_assert!(brute_force(&h));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    /// The chain check agrees with the exhaustive search.
    #[test]
    fn agrees_with_brute_force(text in small_history()) {
        let Ok(h) = history::parse_edn("p.edn", &text) else { return Ok(()) };
        if h.workload != Workload::CasRegister {
            return Ok(());
        }
        let a = lwt::check(&h);
        let expected = brute_force(&h);
        // The search decides what the chain check leaves open.
        prop_assert_ne!(a.validity(), Validity::Unknown, "{:?}\n{}", a, text);
        prop_assert_eq!(a.validity() == Validity::True, expected, "{:?}\n{}", a, text);
    }

    /// Where the value chain decides, the general search agrees with it.
    #[test]
    fn chains_agree_with_the_search(text in small_history()) {
        let Ok(h) = history::parse_edn("p.edn", &text) else { return Ok(()) };
        if h.workload != Workload::CasRegister {
            return Ok(());
        }
        let chains = lwt::check_chains(&h).validity();
        if chains != Validity::Unknown {
            prop_assert_eq!(chains == Validity::True, search_all(&h), "{}", text);
        }
    }

    /// With repeated values (the general search's ground), the check agrees
    /// with the exhaustive search too.
    #[test]
    fn repeated_values_agree_with_brute_force(text in repeated_history(8, 8)) {
        decided_as_brute_force(&text)?;
    }

    /// The same with most ops unfinished or `:info`, where sets differ by
    /// the optional ops they leave open.
    #[test]
    fn optional_ops_agree_with_brute_force(text in repeated_history(4, 9)) {
        decided_as_brute_force(&text)?;
    }

    /// Mutex histories: the check decides them as the brute force does.
    #[test]
    fn mutexes_agree_with_brute_force(text in mutex_history(8, 8)) {
        decided_as_brute_force(&text)?;
    }

    /// The same with most mutex ops unfinished or `:info`.
    #[test]
    fn optional_mutex_ops_agree_with_brute_force(text in mutex_history(4, 9)) {
        decided_as_brute_force(&text)?;
    }

    /// A simulated mutex with crashes is accepted, and the brute force
    /// agrees when it is small.
    #[test]
    fn simulated_mutexes_are_linearizable(
        seed in any::<u64>(), steps in 1usize..400, processes in 1usize..8, crash in 0.0f64..0.2,
    ) {
        let text = simulated_mutex(seed, steps, processes, crash);
        if text.is_empty() {
            return Ok(());
        }
        let (h, a) = check_text(&text);
        prop_assert_eq!(h.workload, Workload::Mutex);
        prop_assert_eq!(a.validity(), Validity::True, "{:?}\n{}", a, text);
        if h.registers.len() <= 7 {
            prop_assert!(brute_force(&h), "{}", text);
        }
    }

    /// A simulated register with repeated values and crashes is accepted.
    #[test]
    fn simulated_registers_with_repeated_values_are_linearizable(
        seed in any::<u64>(), keys in 1u64..3, ops in 1u64..300, processes in 1u64..12,
    ) {
        let params = gen::Params {
            seed, keys, ops, processes, values: Some(5), info_rate: 0.05, ..gen::Params::default()
        };
        simulation_is_accepted(&params)?;
    }

    /// Histories of a simulated linearizable register are accepted, and the
    /// brute force agrees on the small ones.
    #[test]
    fn simulated_registers_are_linearizable(seed in any::<u64>(), keys in 1u64..4, ops in 1u64..200) {
        let params = gen::Params { seed, keys, ops, processes: 4, ..gen::Params::default() };
        simulation_is_accepted(&params)?;
    }
}

/// Two crashed writes of 4 and 1, and a cas 4 → 1 that needs the first:
/// sets that used the write of 4 and kept the write of 1 open are not
/// covered by those that kept the write of 4 (found by the proptest above
/// against a search that pruned on any open optional op).
#[test]
fn sets_with_other_optional_ops_open_are_not_pruned() {
    let text = "{:process 0, :type :invoke, :f :write, :value 4}
{:process 2, :type :invoke, :f :write, :value 2}
{:process 2, :type :info, :f :write, :value 2}
{:process 0, :type :info, :f :write, :value 4}
{:process 4, :type :invoke, :f :cas, :value [1 1]}
{:process 5, :type :invoke, :f :write, :value 1}
{:process 4, :type :ok, :f :cas, :value [1 1]}
{:process 6, :type :invoke, :f :cas, :value [4 1]}
{:process 5, :type :info, :f :write, :value 1}
{:process 6, :type :ok, :f :cas, :value [4 1]}
";
    let (h, a) = check_text(text);
    assert!(brute_force(&h));
    assert_eq!(a.validity(), Validity::True, "{a:?}");
}

/// A search stopped by `--timeout` is unknown with its reason, never a guess.
#[test]
fn a_timeout_in_the_search_is_unknown() {
    let params = gen::Params {
        seed: 3,
        keys: 1,
        ops: 10_000,
        processes: 50,
        values: Some(5),
        ..gen::Params::default()
    };
    let path = std::env::temp_dir().join(format!("isocheck-lin-{}.edn", std::process::id()));
    let file = std::fs::File::create(&path).expect("create");
    gen::write(file, &params).expect("write");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_isocheck"))
        .env("ISOCHECK_PROGRESS", "off")
        .args(["check", "--format", "edn", "--timeout", "1"])
        .arg(&path)
        .output()
        .expect("run isocheck");
    std::fs::remove_file(&path).ok();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(
        text.contains(":valid? :unknown") && text.contains(":reason :timeout"),
        "{text}"
    );
    assert!(text.contains(":stage :registers"), "{text}");
}

/// `isocheck check` runs the LWT check on cas-register histories, with
/// `check`'s exit statuses; `stats` says what the history is.
#[test]
fn cli_exit_statuses() {
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_isocheck"))
            .env("ISOCHECK_PROGRESS", "off")
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("run isocheck")
    };
    for (name, code) in [("valid", 0), ("realtime", 1), ("no-linearization", 1)] {
        let path = format!("fixtures/lwt/{name}.edn");
        let out = run(&["check", "--format", "edn", &path]);
        assert_eq!(out.status.code(), Some(code), "{name}");
    }
    let out = run(&["stats", "fixtures/lwt/realtime.edn"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("cas-register (detected)"), "{text}");
    assert!(
        text.contains("lightweight transactions on 2 keys"),
        "{text}"
    );
    // A :cas whose value is not [old new] cannot be read.
    let dir = std::env::temp_dir().join(format!("isocheck-lwt-{}.edn", std::process::id()));
    std::fs::write(
        &dir,
        "{:process 0, :type :ok, :f :write, :value 1}\n{:process 0, :type :ok, :f :cas, :value 3}\n",
    )
    .expect("write");
    let out = run(&["check", dir.to_str().expect("path")]);
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("must be [old new]"));
    std::fs::remove_file(&dir).ok();
}
